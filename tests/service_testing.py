"""Helpers for service tests: a whole service on in-memory adapters, and players that send
JSON frames through the same parser the Lambda handlers use."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field
from typing import Any

from naiko.cards import seeded_random
from naiko_service.memory import (
    ManualClock,
    MemoryAccounts,
    MemoryChatLog,
    MemoryConnections,
    MemoryDevices,
    MemoryTableStore,
    MemoryTournamentStore,
    RecordingGateway,
    RecordingNotifier,
    RecordingScheduler,
)
from naiko_service.protocol import ProtocolError, error_message, parse_request
from naiko_service.usecases import Deps, TableService

_ids = itertools.count(1)

REPLIES = ("ack", "error", "tables", "snapshot", "account", "table_found", "tournaments",
           "tournament", "tournament_players", "tournament_results", "standings", "hands", "hand",
           "heartbeat")
"""Message types that answer a request (``invite_code`` follows its ``ack``); an ``update``
or a ``chat`` (R8.9) answers one when it carries its ``request_id`` (:func:`is_reply`)."""

ACCEPTED = ("ack", "update")
"""How an applied request is answered: its update (carrying its ``request_id``), or an
``ack`` when no update goes to the requester (docs/protocol.md, "Replies")."""


def is_reply(message: dict[str, Any]) -> bool:
    """Whether *message* answers a request (an update only with its ``request_id``)."""
    return message["type"] in REPLIES or (message["type"] in ("update", "chat")
                                          and message.get("request_id") is not None)


@dataclass
class Harness:
    service: TableService
    store: MemoryTableStore
    accounts: MemoryAccounts
    gateway: RecordingGateway
    scheduler: RecordingScheduler
    clock: ManualClock
    connections: MemoryConnections
    counters: dict[str, int] = field(default_factory=dict)
    tournaments: MemoryTournamentStore | None = None
    chat_log: MemoryChatLog | None = None
    devices: MemoryDevices | None = None
    notifier: RecordingNotifier | None = None

    def player(self, player_id: str, chips: int = 10_000) -> Player:
        self.accounts.grant(player_id, chips)
        connection_id = f"conn-{player_id}-{next(_ids)}"
        self.service.connect(connection_id, player_id)
        return Player(self, player_id, connection_id)

    def fire_due_timers(self) -> int:
        """Fire every scheduled timer whose time has come, like Step Functions would."""
        fired = 0
        for table_id, token, due_ms, _ in list(self.scheduler.scheduled):
            if due_ms <= self.clock.now:
                self.scheduler.scheduled.remove((table_id, token, due_ms, _))
                fired += self.service.timer_fired(table_id, token)
        return fired


@dataclass
class Player:
    harness: Harness
    player_id: str
    connection_id: str

    def send(self, **frame: Any) -> dict[str, Any]:
        frame.setdefault("request_id", f"r{next(_ids)}")
        return self.send_raw(json.dumps(frame))

    def send_raw(self, body: str) -> dict[str, Any]:
        """Send a frame as the handler would; return the reply to this request."""
        before = len(self.messages)
        try:
            request = parse_request(body)
        except ProtocolError as error:
            self.harness.gateway.send(self.connection_id, error_message(
                error.code, error.message, error.request_id))
        else:
            self.harness.service.handle(self.connection_id, self.player_id, request)
        replies = [m for m in self.messages[before:] if is_reply(m)]
        assert replies, "no reply"
        return replies[0]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.harness.gateway.sent[self.connection_id]

    def last_view(self) -> dict[str, Any]:
        return next(m["view"] for m in reversed(self.messages) if "view" in m)


def harness(seed: int = 7, *, push: bool = False) -> Harness:
    """A service on the in-memory adapters; *push*: with push notifications on (issue 25: a
    :class:`MemoryDevices` and a :class:`RecordingNotifier`)."""
    accounts = MemoryAccounts()
    store = MemoryTableStore(accounts=accounts)
    tournaments = MemoryTournamentStore(store)
    gateway = RecordingGateway()
    scheduler = RecordingScheduler()
    clock = ManualClock()
    connections = MemoryConnections()
    chat_log = MemoryChatLog()
    counters: dict[str, int] = {}

    def count(name: str, value: int) -> None:
        counters[name] = counters.get(name, 0) + value

    deps = Deps(tables=store, accounts=accounts, connections=connections, gateway=gateway,
                scheduler=scheduler, clock=clock, rng=seeded_random(seed), count=count,
                secret_bytes=random.Random(f"secrets-{seed}").randbytes,
                tournaments=tournaments, histories=store, chat_log=chat_log)
    if push:
        deps.devices, deps.notifier = MemoryDevices(), RecordingNotifier()
    return Harness(TableService(deps), store, accounts, gateway, scheduler, clock, connections,
                   counters, tournaments, chat_log, deps.devices,  # type: ignore[arg-type]
                   deps.notifier)  # type: ignore[arg-type]
