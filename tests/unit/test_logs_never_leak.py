"""Issue 15, item 11: structured logs never carry a token or a card.

A whole session runs through the real handlers (``functions/*/app.py``) on the in-memory
adapters, every log line at DEBUG and every metric line captured: three players' tokens go
through the authorizer, they connect, one creates a table, all join, hands are played (in
turn, out of turn, a malformed frame, a post that fails, a decision clock that runs out via
the timer function, the sweep), and they disconnect. The needles are the session's own
secrets in the forms they take in JSON: each token (and its signature and claims segments),
and every hole card dealt, alone and as the pair a view shows (``"AhKd"``), quoted, escaped
inside a JSON string, and in Python's repr. The same needles are first found in what the
players were sent (their own views), so the search cannot be vacuous.
"""

from __future__ import annotations

import copy
import io
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from naiko.cards import format_cards, seeded_random
from naiko_local.template import load_handler
from naiko_service import bootstrap
from naiko_service.auth import public_key_to_base64, sign_token
from naiko_service.memory import (
    ManualClock,
    MemoryAccounts,
    MemoryConnections,
    MemoryTableStore,
    RecordingGateway,
    RecordingScheduler,
)
from naiko_service.usecases import Deps, TableService

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
PLAYERS = ("alice", "bob", "carol")


@dataclass
class Context:
    function_name: str = "naiko-dev-game"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-dev-game"
    aws_request_id: str = "6f1c2d3e-0000-4000-8000-000000000009"

    def get_remaining_time_in_millis(self) -> int:
        return 20_000


class FlakyGateway(RecordingGateway):
    """Posts fail for connections in :attr:`failing` (a logged ``FanOutFailures``)."""

    def __init__(self) -> None:
        super().__init__()
        self.failing: set[str] = set()

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        if connection_id in self.failing:
            raise TimeoutError("post timed out")
        super().send(connection_id, message)


@dataclass
class Session:
    handlers: dict[str, ModuleType]
    store: MemoryTableStore
    gateway: FlakyGateway
    scheduler: RecordingScheduler
    clock: ManualClock
    tokens: dict[str, str] = field(default_factory=dict)
    holes: set[str] = field(default_factory=set)
    table_id: str = ""
    counter: int = 0

    def _event(self, name: str, player: str) -> dict[str, Any]:
        event: dict[str, Any] = copy.deepcopy(json.loads((EVENTS / f"{name}.json").read_text()))
        context = event["requestContext"]
        context["connectionId"] = f"conn-{player}"
        context["authorizer"] = {"principalId": player, "player_id": player}
        return event

    def invoke(self, handler: str, event: dict[str, Any]) -> Any:
        result = self.handlers[handler].lambda_handler(event, Context())
        self._note_holes()
        return result

    def authorize(self, player: str) -> Any:
        event = json.loads((EVENTS / "connect_authorizer.json").read_text())
        event["queryStringParameters"]["token"] = self.tokens[player]
        event["multiValueQueryStringParameters"]["token"] = [self.tokens[player]]
        return self.invoke("authorizer", event)

    def connect(self, player: str) -> None:
        event = self._event("connect", player)
        event["queryStringParameters"]["token"] = self.tokens[player]
        event["multiValueQueryStringParameters"]["token"] = [self.tokens[player]]
        assert self.invoke("connect", event) == {"statusCode": 200}

    def frame(self, player: str, body: str | dict[str, Any]) -> dict[str, Any]:
        self.counter += 1
        if isinstance(body, dict):
            body = json.dumps({"request_id": f"q{self.counter}", **body})
        event = self._event("act", player)
        event["requestContext"]["routeKey"] = "act"
        event["body"] = body
        before = len(self.gateway.sent.get(f"conn-{player}", []))
        assert self.invoke("game", event) == {"statusCode": 200}
        sent = self.gateway.sent.get(f"conn-{player}", [])[before:]
        return next((m for m in sent if m["type"] in ("ack", "error")
                     or (m["type"] == "update" and m.get("request_id") is not None)), {})

    def _note_holes(self) -> None:
        if not self.table_id:
            return
        hand = self.store.load(self.table_id).state.hand
        if hand is not None:
            self.holes |= {format_cards(h) for h in hand.hole if h}

    def actor(self) -> str | None:
        record = self.store.load(self.table_id)
        hand = record.state.hand
        if hand is None or hand.complete or hand.actor is None:
            return None
        seat = record.state.seats[hand.actor]
        return None if seat is None else seat.player_id


@pytest.fixture
def session(monkeypatch: pytest.MonkeyPatch) -> Iterator[Session]:
    key = Ed25519PrivateKey.generate()
    monkeypatch.setenv("AUTH_PUBLIC_KEY", public_key_to_base64(key.public_key()))
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "DEBUG")
    handlers = {name: load_handler(name)
                for name in ("authorizer", "connect", "disconnect", "game", "timer", "sweep")}
    accounts = MemoryAccounts()
    store = MemoryTableStore(accounts=accounts)
    gateway = FlakyGateway()
    scheduler = RecordingScheduler()
    clock = ManualClock(1_737_321_206_344)
    service = TableService(Deps(tables=store, accounts=accounts,
                                connections=MemoryConnections(), gateway=gateway,
                                scheduler=scheduler, clock=clock, rng=seeded_random(11),
                                count=bootstrap.count, measure=bootstrap.measure,
                                warn=bootstrap.warn, histories=store))
    now = int(time.time())
    tokens = {p: sign_token(key, p, issued_at=now, expires_at=now + 600) for p in PLAYERS}
    for player in PLAYERS:
        accounts.grant(player, 10_000)
    bootstrap.metrics.clear_metrics()
    bootstrap.set_service(service)
    try:
        yield Session(handlers, store, gateway, scheduler, clock, tokens)
    finally:
        bootstrap.reset()


class Captured:
    """Every log line of the session: the Powertools logger (at DEBUG), any other logger
    (root), and stdout/stderr, where the metrics' EMF lines are printed."""

    def __init__(self, capfd: pytest.CaptureFixture[str]):
        self.capfd = capfd
        self.stream = io.StringIO()

    def text(self) -> str:
        out, err = self.capfd.readouterr()
        self.stream.write(out + err)
        return self.stream.getvalue()


@pytest.fixture
def captured(capfd: pytest.CaptureFixture[str]) -> Iterator[Captured]:
    capture = Captured(capfd)
    handler = bootstrap.logger.registered_handler
    previous_stream = handler.setStream(capture.stream)
    previous_level = bootstrap.logger.log_level
    bootstrap.logger.setLevel("DEBUG")
    root = logging.StreamHandler(capture.stream)
    logging.getLogger().addHandler(root)
    try:
        yield capture
    finally:
        logging.getLogger().removeHandler(root)
        handler.setStream(previous_stream)
        bootstrap.logger.setLevel(previous_level)


def needles(session: Session) -> list[str]:
    """The session's secrets, in every form a log line could carry them."""
    found: list[str] = []
    for token in session.tokens.values():
        found.append(token)
        found += [segment for segment in token.split(".") if len(segment) >= 16]
    cards = set(session.holes)
    cards |= {pair[i:i + 2] for pair in session.holes for i in range(0, len(pair), 2)}
    for text in cards:
        found += [json.dumps(text), json.dumps(json.dumps(text))[1:-1], repr(text)]
    pairs = [pair for pair in session.holes if len(pair) == 4]
    found += [json.dumps(f"{pair[:2]} {pair[2:]}") for pair in pairs]
    found += [json.dumps([pair[:2], pair[2:]]) for pair in pairs]
    return found


def play_a_session(session: Session) -> None:
    for player in PLAYERS:
        session.authorize(player)
        session.connect(player)
    ack = session.frame("alice", {"action": "create_table", "name": "leak check",
                                  "variant": "NLHE", "small_blind": 1, "big_blind": 2,
                                  "min_buy_in": 40, "max_buy_in": 400})
    session.table_id = str(ack["table_id"])
    for player in PLAYERS:
        assert session.frame(player, {"action": "join_table", "table_id": session.table_id,
                                      "buy_in": 200})["type"] in ("ack", "update")
    session.frame("alice", '{"action": "act", "move": "call", "table_id": ')  # malformed
    for step in range(40):
        actor = session.actor()
        if actor is None:  # between hands: the pause's wake-up deals the next one
            session.clock.advance(4_000)
            due = [(t, tok) for t, tok, d, _ in session.scheduler.scheduled
                   if d <= session.clock.now]
            for table_id, token in due:
                session.invoke("timer", {"table_id": table_id, "token": token})
            continue
        idle = next(p for p in PLAYERS if p != actor)
        session.frame(idle, {"action": "act", "table_id": session.table_id,
                             "move": "check"})  # out of turn: refused
        if step == 5:  # a post that fails, then a clock that runs out, then the sweep
            session.gateway.failing.add(f"conn-{idle}")
            session.clock.advance(25_000)
            for table_id, token, due_ms, _ in list(session.scheduler.scheduled):
                if due_ms <= session.clock.now:
                    session.invoke("timer", {"table_id": table_id, "token": token})
            session.invoke("sweep", {"source": "aws.events"})
            session.gateway.failing.clear()
            continue
        session.frame(actor, {"action": "act", "table_id": session.table_id, "move": "call"})
        session.frame(actor, {"action": "act", "table_id": session.table_id, "move": "check"})
    session.frame("bob", {"action": "snapshot", "table_id": session.table_id})
    for player in PLAYERS:
        assert session.invoke("disconnect", session._event("disconnect", player)) \
            == {"statusCode": 200}


def test_no_token_and_no_card_appears_in_the_logs_of_a_whole_session(
        session: Session, captured: Captured) -> None:
    play_a_session(session)
    logs = captured.text()
    sent = json.dumps(session.gateway.sent)
    assert len(session.holes) >= 6  # at least two hands dealt to three players
    # The needles are the right ones: the players' views carry their own cards ...
    assert any(json.dumps(pair) in sent for pair in session.holes)
    # ... and the logs are real: the authorizer, refusals and failures logged, with their
    # keys (table, connection, timer token), and every invocation wrote its metrics.
    for line in ("connection authorized", "frame refused", "could not post an update",
                 '"table_id":"' + session.table_id, '"connection_id":"conn-', '"_aws"',
                 "TimerLag", "FanOutFailures", "Disconnects"):
        assert line in logs, line
    leaked = [needle for needle in needles(session) if needle in logs]
    assert leaked == []
