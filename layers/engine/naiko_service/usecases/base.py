""":mod:`naiko_service.usecases.base` holds what every use case shares: the ports
(:class:`Deps`), who is asking (:class:`Caller`), what a change produced (:class:`Outcome`), the
service's refusals (:class:`ServiceError`) and the one way a use case asks the engine for
something (:func:`engine_step`)."""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from naiko import commands as cmd
from naiko.engine import apply_in_place
from naiko.events import Event

from .. import pages
from ..auth import is_bot_id
from ..limits import DEFAULT_QUICK_SEAT_STAKES, Stakes
from ..ports import (
    AccountMove,
    Accounts,
    ChatLog,
    Clock,
    Connections,
    Deadline,
    Devices,
    Gateway,
    HandHistories,
    Notifier,
    Random,
    Scheduler,
    TableStore,
    TournamentStore,
    WatcherQueue,
    Watchers,
    Write,
)
from ..ratelimit import ChatLimiter
from ..records import TableRecord

_log = logging.getLogger("naiko_service")


def _memory_watchers() -> Watchers:
    from ..memory import MemoryWatchers

    return MemoryWatchers()


class NoDeadline:
    """Outside Lambda: no time limit."""

    def remaining_ms(self) -> float:
        return math.inf


NO_DEADLINE = NoDeadline()


class ServiceError(Exception):
    """A request the service refuses; ``code`` is stable, nothing was changed."""

    retry_after_ms: int | None = None
    """``rate_limited`` only: when the request would be accepted."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class RateLimited(ServiceError):
    """A request over a use case's own rate limit (R8.9 chat): ``rate_limited``, with when to
    try again."""

    def __init__(self, message: str, retry_after_ms: int):
        super().__init__("rate_limited", message)
        self.retry_after_ms = retry_after_ms


BOT_SEAT = "bot_seat"
"""The refusal of any client request that would act for, or read as, a BOT seat (R8.4)."""


def refuse_bot(player_id: str) -> None:
    """:raises ServiceError: ``bot_seat`` when *player_id* is in the BOT namespace
    (:data:`naiko_service.auth.BOT_ID_PREFIX`): the authorizer admits no such token, and the
    service answers none either (defence in depth, R8.4)."""
    if is_bot_id(player_id):
        raise ServiceError(BOT_SEAT, "BOT seats are the server's (R8.4): no client acts or "
                           "reads for one")


def refuse_bot_seat(record: TableRecord, player_id: str) -> None:
    """:raises ServiceError: ``bot_seat`` when *player_id*'s seat at *record* is marked BOT,
    whatever the id: a BOT acts only on its own timer, from its own view (R8.4)."""
    index = record.seat_of(player_id)
    seat = None if index is None else record.state.seats[index]
    if seat is not None and seat.is_bot:
        raise ServiceError(BOT_SEAT, "that seat is a BOT's, the server's alone (R8.4)")


BAD_CURSOR = pages.BAD_CURSOR
"""The refusal of a ``cursor`` that is not one of the list's (docs/protocol.md "Pages")."""


def read_cursor(list_name: str, cursor: str | None,
                fields: dict[str, type]) -> dict[str, Any] | None:
    """The position a request's *cursor* names in *list_name* (``None``: the first page),
    each of *fields* present with its type (a cursor is the client's to keep, not to trust).

    :raises ServiceError: ``bad_cursor`` for a cursor that does not decode, is another list's,
        or names no position of this list (nothing is read)."""
    if cursor is None:
        return None
    try:
        position = pages.decode(list_name, cursor)
    except pages.BadCursor as exc:
        raise ServiceError(BAD_CURSOR, str(exc)) from exc
    for name, kind in fields.items():
        value = position.get(name)
        if type(value) is not kind or (isinstance(value, str) and not 0 < len(value) <= 200):
            raise ServiceError(BAD_CURSOR, f"this cursor names no position of {list_name}")
    return position


class NoOp(Exception):
    """A change that turned out to have nothing to do (nothing is written)."""


@dataclass
class Deps:
    """The ports the service works against (wired in :mod:`naiko_service.bootstrap`)."""

    tables: TableStore
    accounts: Accounts
    connections: Connections
    gateway: Gateway
    scheduler: Scheduler
    clock: Clock
    rng: Random = field(default_factory=secrets.SystemRandom)
    secret_bytes: Callable[[int], bytes] = secrets.token_bytes
    """Secret random bytes (R10.2: a hand's deck seed), apart from :attr:`rng` so that a
    seeded game (tests, simulations) deals the same cards with or without commitments."""
    count: Callable[[str, int], None] = lambda name, value: None
    """Metrics hook: ``count("ActionsApplied", 1)``."""
    measure: Callable[[str, float], None] = lambda name, value: None
    """Metrics hook for a duration in milliseconds: ``measure("TimerLag", 850)``."""
    warn: Callable[[str, dict[str, Any]], None] = lambda message, fields: _log.warning(
        "%s %s", message, fields)
    """Logging hook for what went wrong but was handled (a failed post, a cancelled hand)."""
    error: Callable[[str, dict[str, Any]], None] = lambda message, fields: _log.error(
        "%s %s", message, fields)
    """Logging hook for a fault of ours the client was told of (a message over a frame,
    :func:`naiko_service.usecases.fanout.deliver`)."""
    pause: Callable[[float], None] = time.sleep
    """Waits this many seconds (between retries of a change nobody may be refused)."""
    deadline: Deadline = field(default_factory=lambda: NO_DEADLINE)
    """How long the current invocation may still run; the path never starts an AWS call whose
    worst case would outlast it (docs/deploy.md, "Worst cases")."""
    default_decision_ms: int = 20_000
    """The decision clock when ``create_table`` does not choose one (R8.1)."""
    default_pause_ms: int = 3_000
    """The pause between hands of new tables."""
    offer_ms: int = 30_000
    """R7.10: how long a freed seat is held for the first of a waiting list (30 s)."""
    bot_think_ms: int = 800
    """How long a BOT seat "thinks" before acting (R8.4)."""
    bot_think: Callable[[], int] | None = None
    """Draws each think time instead (``naiko-tournament simulate``: players' pace)."""
    bot_level: str = "regular"
    """The level of the BOTs of new cash and private tables (``TableSettings.bot_level``,
    issue 24); tournament tables always play the old bot."""
    tournaments: TournamentStore | None = None
    """Tournaments (R9); ``None`` in a deployment (or a test) without them."""
    histories: HandHistories | None = None
    """Reads the hands' records (R10.1; they are written with the table writes); ``None``:
    the history requests are refused (``no_histories``)."""
    devices: Devices | None = None
    """Players' registered devices (issue 25, push notifications); ``None``: none are kept."""
    notifier: Notifier | None = None
    """Sends push notifications (:mod:`.push`); ``None`` (or one reaching no platform, the
    ``NoNotifier`` of a deployment without platform applications): notifications are off."""
    sweep_workers: int = 1
    """Tables the sweep wakes at once (threads; ``SWEEP_WORKERS`` in a deployment, where the
    adapters are thread-safe). 1: one after another (the in-memory adapters)."""
    quick_seat_stakes: tuple[Stakes, ...] = DEFAULT_QUICK_SEAT_STAKES
    """R7.10: the stakes quick seat serves (the deployment's ``QUICK_SEAT_STAKES``); others are
    refused (``unknown_stakes``): one player cannot open tables at stakes of their own."""
    chat_limiter: ChatLimiter = field(default_factory=ChatLimiter)
    """R8.9: the container's chat buckets (one per player) and chat requests said."""
    chat_log: ChatLog | None = None
    """R8.9: where the chat said during hands is kept for their records; ``None``: chat is
    delivered, not kept."""
    parallel_fan_out: bool = True
    """Post a fan-out's messages concurrently (``usecases.fanout.FAN_OUT_WORKERS`` at once);
    ``False``: one after another, in the order of ``record.connections`` (deterministic: the
    fault-injection matrix numbers every call)."""
    watchers: Watchers = field(default_factory=lambda: _memory_watchers())
    """A table's spectators, out of the table item (issue 23 item 3): ``DynamoWatchers`` in a
    deployment, in memory otherwise."""
    watcher_queue: WatcherQueue | None = None
    """Where a write's spectator update goes (``WatchersQueue``, the ``watchers`` function's);
    ``None``: posted in this process, after the players' own updates
    (:func:`.spectators.deliver`: memory and local mode)."""


    def think_ms(self) -> int:
        """How long the BOT about to act thinks."""
        return self.bot_think() if self.bot_think is not None else self.bot_think_ms


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent a request: the verified player (never a field of the frame), the connection
    to answer on, and the client's request id."""

    connection_id: str
    player_id: str
    request_id: str


@dataclass
class Outcome:
    """What a change to a table produced: events for the players, and chips moving between
    accounts and the table (written in the same transaction as the table)."""

    events: list[Event] = field(default_factory=list)
    moves: list[AccountMove] = field(default_factory=list)
    quiet: bool = False
    """Nothing anyone sees changed (a spectator subscribed or left): unless events came with
    it, the write is not fanned out."""
    writes: list[Write] = field(default_factory=list)
    """Other items written in the same transaction as the table (a tournament table's hand:
    its tournament, results, log entries; :meth:`~naiko_service.ports.TournamentStore.commit`)."""
    after: list[Callable[[], Any]] = field(default_factory=list)
    """Run once the write is committed and fanned out (a tournament's prizes: each payment is
    a transaction of its own, R9.9); a failure is logged, the timers retry."""
    announce: list[TableRecord] = field(default_factory=list)
    """Tables this change created and wrote with it (a scheduled tournament's final table,
    R9.7): their players get their view as the last follow-up (:attr:`after`), before the
    table's own fan-out."""
    others: dict[str, OtherTable] = field(default_factory=dict)
    """Other tables read by this change (a move between a scheduled tournament's tables,
    R9.7), by id: each is read once, and those changed are written in the same transaction,
    conditional on the version read, then told (:func:`.transaction.write`)."""

    def add(self, other: Outcome) -> Outcome:
        """Append *other*'s events, moves, writes and callbacks; returns ``self``."""
        self.events.extend(other.events)
        self.moves.extend(other.moves)
        self.writes.extend(other.writes)
        self.after.extend(other.after)
        self.announce.extend(other.announce)
        self.others.update(other.others)
        self.quiet = self.quiet or other.quiet
        return self


@dataclass
class OtherTable:
    """A table read by another table's change (:attr:`Outcome.others`)."""

    record: TableRecord
    """This change's private copy (its ``version`` is the one it will be written with)."""
    expected_version: int
    events: list[Event] = field(default_factory=list)
    """What its players are told after the commit."""
    changed: bool = False


Change = Callable[[TableRecord, int], Outcome]
"""A use case's change to a table: it edits the record (this attempt's private copy) at the
given time, or raises (:class:`ServiceError`, an engine rejection, :class:`NoOp`) to write
nothing."""


def backoff(deps: Deps, attempt: int) -> None:
    """The pause before retry *attempt* (1, 2, ...) of a write that met a conflict or
    ``busy``: a random 1 to ``10 * attempt`` ms (at most 100 ms), which spreads the writers
    out (:func:`.transaction.mutate_until_written`, :func:`.tournament_uow.transact`)."""
    deps.pause(deps.rng.randrange(1, 10 * min(attempt, 10) + 1) / 1000)


def engine_step(deps: Deps, record: TableRecord, command: cmd.Command) -> Outcome:
    """Apply one engine command to the record's state, in place. The record is already this
    attempt's private copy (see :func:`naiko_service.usecases.transaction.mutate`), so there is no
    second copy per command: the engine makes every check before its first change, and a
    failed change is never written anyway."""
    events = apply_in_place(record.state, command)
    deps.count("EngineCommands", 1)
    return Outcome(events)


def seat_of(record: TableRecord, player_id: str) -> int:
    """The seat of *player_id* at the table.

    :raises ServiceError: ``not_seated``.
    """
    seat_index = record.seat_of(player_id)
    if seat_index is None:
        raise ServiceError("not_seated", "you have no seat at this table")
    return seat_index
