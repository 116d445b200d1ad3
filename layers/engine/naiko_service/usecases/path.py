""":mod:`naiko_service.usecases.path` is the one way a table changes, used by every use case
(cash tables, play, timers, connections, and next to them tournaments):

**load → catch up → change → drive → arm → conditional write → answer → fan out**

1. load the item (one consistent read); a request id this player sent recently is answered
   (``replayed``, with the current state) and not applied again. A state that cannot be read is
   replaced by its fallback: the table with the hand cancelled (R8.6, :func:`recover`);
2. catch up: deadlines already past (a decision clock, a Shield window) act first, on the
   server's clock, even if their timer has not fired yet (R6.5, R8.1);
3. the use case's change edits this attempt's private copy; a refusal writes nothing (but what
   step 2 did); an unexpected failure cancels the hand in progress (R8.6) and is re-raised;
4. the dealer drives the table (:func:`naiko_service.usecases.dealer.after_change`);
5. the table's one wake-up is armed for its earliest deadline (:func:`arm`), *before* the write:
   if the write loses, the wake-up fires as a no-op; if the process dies after the write, it
   exists (and the sweep backs it up);
6. the write is conditional on the version read, with the account moves (and, at a
   tournament's table, the tournament's own items) in the same transaction and, during a hand,
   the table's fallback sealed on its own; on a conflict the
   change is re-applied to a fresh read, a bounded number of times;
7. the write's follow-ups run (a tournament's prizes, each its own transaction,
   :attr:`~.base.Outcome.after`); every watching connection gets its own view (R8.3: the
   confirmed state), posted concurrently; the requester's update carries its ``request_id``
   and is its answer (an ``ack`` goes first instead only when no update goes to the
   requester's connection: a write nobody sees, a requester not watching the table). A
   recipient that cannot be reached never stops the others; connections that are gone are
   forgotten in one more write (it tells the others only when a seated player is now
   disconnected; spectators leave quietly).

No step starts an AWS call whose worst case would outlast the invocation
(:attr:`Deps.deadline`, ``docs/deploy.md``).
"""

from __future__ import annotations

import contextvars
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from naiko.commitment import DeckCommitment
from naiko.errors import EngineError
from naiko.events import Event, event_from_dict
from naiko.views import cards_in, commitment_of, proofs_for_events, view_for, viewer_seat

from .. import hand_records
from ..limits import MAX_TABLES_PER_CONNECTION, MAX_WAITLISTS_PER_PLAYER
from ..ports import (
    AccountMove,
    ConcurrentUpdate,
    ConnectionGone,
    Encoded,
    HistoryStored,
    InsufficientFunds,
    LedgerReason,
    PutTable,
    TableNotFound,
    TooManyTables,
    TooManyWaitlists,
    TooManyWatched,
    UnreadableTable,
    Write,
)
from ..records import TableRecord, Timer, TimerKind
from . import cancel, deadlines, dealer, tournament_tables
from .base import Caller, Change, Deps, NoOp, Outcome, ServiceError, backoff, refuse_bot_seat
from .subscriptions import drop_connections

MAX_ATTEMPTS = 4
"""Conditional-write attempts before a request is answered ``busy``."""

AWS_CALL_WORST_MS = 4_000
"""The worst case of one AWS call with the clients' settings (``bootstrap.BOTO_CONFIG``: two
attempts of at most 0.5 s to connect and 1 s to read, and the SDK's backoff between them)."""

ATTEMPT_WORST_MS = 3 * AWS_CALL_WORST_MS
"""One attempt of the path: the read, a timer execution, the write."""

SWEEP_ONLY = frozenset({TimerKind.IDLE_CLOSE})
"""Timers no execution is started for: their time is coarse (closing an empty table), so the
sweep, which finds them on ``due-index`` within a minute, fires them."""

WAKE_PREFIX = "wake:"
"""The token of a table's wake-up marker is this prefix + the token its execution carries."""

WAKE_LATE_MS = 10_000
"""An armed wake-up this far past its time is presumed lost (a table write re-arms, and the
sweep, which sees the marker's deadline on ``due-index``, takes over); until then it may still
be on its way (a Lambda retry), and arming another would only add a no-op."""


def mutate(deps: Deps, table_id: str, change: Change, *, caller: Caller | None = None,
           catch_up: bool = True, announce: bool = True,
           cancel_on_failure: bool = True) -> TableRecord:
    """Apply *change* to the table through the whole path (see the module docstring) and
    return the record as written (or as found, for a replayed request).

    :param catch_up: Fire the deadlines already past before the change (the timer use cases,
        which fire them themselves, say ``False``).
    :param announce: Fan the write out to every connection (``False``: a bookkeeping write
        nobody needs to hear about).
    :param cancel_on_failure: Cancel the hand in progress if the change fails unexpectedly
        (``False`` for that cancellation itself).
    :raises ServiceError: A refusal (nothing of the change written), or ``busy`` after
        :data:`MAX_ATTEMPTS` conflicts or when no attempt fits in the time left.
    :raises TableNotFound: If there is no such table.
    :raises NoOp: If the change found nothing to do.
    """
    # Request ids are the client's: remembered per player, so two players who happen to pick
    # the same id never shadow each other.
    key = None if caller is None else f"{caller.player_id}/{caller.request_id}"
    for attempt in range(MAX_ATTEMPTS):
        if deps.deadline.remaining_ms() < ATTEMPT_WORST_MS:
            deps.count("OutOfTime", 1)
            break
        try:
            record = deps.tables.load(table_id)
        except UnreadableTable as unreadable:
            recover(deps, unreadable)
            continue
        if caller is not None:
            refuse_bot_seat(record, caller.player_id)  # R8.4: before anything is written
            if key in record.recent_requests:
                replay(deps, caller, record)
                return record
        now = deps.clock.now_ms()
        new = record.copy()
        new.version = record.version + 1
        outcome = Outcome()
        refusal: ServiceError | EngineError | None = None
        try:
            # Strictly past: an action (or a Shield) at its deadline's millisecond is in time.
            caught_up = (deadlines.fire_due(deps, new, now, outcome, horizon=now - 1)
                         if catch_up else 0)
            before_change = new.copy() if caught_up else new
            try:
                outcome.add(change(new, now))
            except (ServiceError, EngineError) as error:
                if not caught_up:
                    raise
                refusal = error  # the deadlines that passed are written; the request is not
                new = before_change
            dealer.after_change(deps, new, now, outcome)
        except (ServiceError, EngineError, NoOp):
            raise
        except ConcurrentUpdate:  # another item read for the change was older than this one
            deps.count("Conflicts", 1)
            continue
        except Exception as failure:
            if cancel_on_failure:
                cancel_after_failure(deps, record, failure)
            raise
        announced = announce and bool(outcome.events or not outcome.quiet)
        new.seq = record.seq + 1 if announced else record.seq
        if key is not None and refusal is None:
            new.remember_request(key, new.seq)
        new.fallback = cancel.fallback_for(deps, new, now)
        arm(deps, table_id, new, now)
        try:
            write(deps, new, record.version, outcome, now)
        except ConcurrentUpdate:
            deps.count("Conflicts", 1)
            continue
        except InsufficientFunds as exc:
            raise ServiceError("insufficient_funds",
                               "your account cannot cover that buy-in") from exc
        except TooManyTables as exc:
            raise ServiceError("too_many_tables", too_many_tables_message()) from exc
        except TooManyWaitlists as exc:
            raise ServiceError("too_many_waitlists", f"you are on {MAX_WAITLISTS_PER_PLAYER} "
                               "waiting lists already: leave one first (leave_waitlist)") \
                from exc
        if attempt:
            deps.count("Retries", attempt)
        deps.count("TableWrites", 1)
        # The requester's answer: the update it gets anyway (it carries the request id), or,
        # when no update goes to its connection, an ``ack`` (docs/protocol.md, "Replies").
        requester = caller if refusal is None else None
        folded = announced and requester is not None and watching(new, requester)
        if requester is not None and not folded:
            send(deps, requester.connection_id, ack(requester, table_id, new.seq))
        run_after(deps, table_id, outcome)  # prizes on the accounts before players hear of them
        if announced:
            fan_out(deps, new, outcome.events, answer=requester if folded else None)
        for other in outcome.others.values():
            if other.changed:
                fan_out(deps, other.record, other.events)
        if refusal is not None:
            raise refusal
        return new
    raise ServiceError("busy", "the table is busy; please retry")


def mutate_until_written(deps: Deps, table_id: str, change: Change) -> TableRecord | None:
    """For a change nobody may be refused (a connection subscribing or closing): retry while
    the table is ``busy`` (many writers at once) and the invocation has time, with a short
    random pause that spreads the writers out. Returns the record written, or ``None`` when
    there was nothing to do (no such table, :class:`NoOp`).

    :raises ServiceError: ``busy`` when the invocation ran out of time first.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            return mutate(deps, table_id, change)
        except (TableNotFound, NoOp):
            return None
        except ServiceError as error:
            if error.code != "busy" or deps.deadline.remaining_ms() < ATTEMPT_WORST_MS:
                raise
            deps.count("BusyRetries", 1)
            backoff(deps, attempt)


def load(deps: Deps, table_id: str) -> TableRecord:
    """Read a table for a use case that does not change it (a snapshot); a state that cannot
    be read is first replaced by its fallback (:func:`recover`)."""
    try:
        return deps.tables.load(table_id)
    except UnreadableTable as unreadable:
        recover(deps, unreadable)
        return deps.tables.load(table_id)


def write(deps: Deps, record: TableRecord, expected_version: int, outcome: Outcome,
          now: int) -> None:
    """The conditional write of one attempt: the table and its account moves; with other
    items to write (a tournament table's hand), all of them in one transaction. The records of
    hands that ended in this write travel with the table (R10.1, ``record.histories``): one
    found stored already (a write that carried it committed before) is left out, and the
    write is made again without it, so a hand is stored once."""
    try:
        _write(deps, record, expected_version, outcome, now)
    except HistoryStored as stored:
        deps.count("HistoriesStoredBefore", len(stored.hands))
        deps.warn("a hand's record was stored already", {"table_id": record.table_id,
                                                         "hands": [n for _, n in stored.hands]})
        record.histories = [h for h in record.histories if h.key not in stored.hands]
        _write(deps, record, expected_version, outcome, now)


def _write(deps: Deps, record: TableRecord, expected_version: int, outcome: Outcome,
           now: int) -> None:
    # one record per hand (a transaction may touch an item once)
    record.histories = list({history.key: history for history in record.histories}.values())
    moves = stamped(outcome.moves, now)
    others: list[Write] = []
    for other in outcome.others.values():
        if other.changed:  # armed and sealed like the table itself (steps 5 and 6)
            table = other.record
            dealer.sync_timers(deps, table, now)
            table.fallback = cancel.fallback_for(deps, table, now)
            arm(deps, table.table_id, table, now)
            others.append(PutTable(table, other.expected_version))
    if not outcome.writes and not others:
        deps.tables.save(record, expected_version, moves)
        return
    if deps.tournaments is None:
        raise RuntimeError("a tournament table needs the tournament store")
    deps.tournaments.commit((PutTable(record, expected_version), *others, *outcome.writes),
                            moves)


def run_after(deps: Deps, table_id: str, outcome: Outcome) -> None:
    """Run the write's follow-ups (:attr:`Outcome.after`), before the fan-out: a player told
    of their prize finds it on their account. Each stands alone: a failure is logged, and the
    timer that backs it up (a tournament's ``payout``) does it later."""
    for callback in outcome.after:
        if deps.deadline.remaining_ms() < ATTEMPT_WORST_MS:
            deps.count("AfterSkipped", 1)
            return
        try:
            callback()
        except Exception as error:
            deps.count("AfterFailures", 1)
            deps.warn("a follow-up of a write failed", {"table_id": table_id,
                                                        "error": type(error).__name__})


def stamped(moves: list[AccountMove], now: int) -> tuple[AccountMove, ...]:
    """The moves of a write, each stamped with the write's time (their ledger entries')."""
    return tuple(replace(move, at_ms=now) for move in moves)


def internal(deps: Deps, table_id: str, change: Change, *, announce: bool = True) -> None:
    """A change nobody waits for an answer to (a timer, a dropped connection): a missing
    table or nothing to do is not an error."""
    try:
        mutate(deps, table_id, change, announce=announce)
    except (TableNotFound, NoOp):
        pass


def ack(caller: Caller, table_id: str, version: int | None,
        replayed: bool = False) -> dict[str, Any]:
    """The ``ack`` message of an applied (or replayed) request."""
    return {"type": "ack", "request_id": caller.request_id, "table_id": table_id,
            "version": version, "replayed": replayed}


def replay(deps: Deps, caller: Caller, record: TableRecord) -> None:
    """A request already applied (the client or the SDK retried): answered without applying
    it again, with the version that applied it, and with the table as it is now, so that an
    update lost with the first answer is never left unseen."""
    deps.count("Replays", 1)
    send(deps, caller.connection_id,
         ack(caller, record.table_id, record.recent_requests[
             f"{caller.player_id}/{caller.request_id}"], replayed=True))
    send(deps, caller.connection_id,
         snapshot_message(record, caller.player_id, None, deps.clock.now_ms()))


# -- R8.6: what cannot be read or applied cancels the hand -----------------------------------

def recover(deps: Deps, unreadable: UnreadableTable) -> None:
    """The stored state cannot be read: write its fallback (the table with the hand
    cancelled, R8.6) in its place and tell its players why. Without a fallback (no hand was in
    progress when it was last written) nothing can be restored: the error stands.

    :raises UnreadableTable: If there is no fallback.
    """
    fallback = unreadable.fallback
    deps.warn("table state unreadable", {"table_id": unreadable.table_id,
                                         "restored": fallback is not None})
    if fallback is None:
        raise unreadable
    record = fallback.record
    record.version = unreadable.version + 1
    now = deps.clock.now_ms()
    arm(deps, record.table_id, record, now)
    moves = tuple(AccountMove(player, -amount, record.table_id, LedgerReason.REFUND, now)
                  for player, amount in fallback.moves)
    outcome = Outcome(moves=list(moves))
    history = hand_records.from_fallback(fallback, now)
    if history is not None:  # R10.1: the cancelled hand is stored, without its actions
        record.histories = [history]
    if record.tournament is not None:  # the tournament's log records the cancelled hand
        outcome.writes.append(tournament_tables.cancelled_hand_log(record, fallback.event, now))
    try:
        write(deps, record, unreadable.version, outcome, now)
    except ConcurrentUpdate:
        return  # another invocation restored it first
    deps.count("HandsCancelled", 1)
    fan_out(deps, record, [event_from_dict(fallback.event)])


def cancel_after_failure(deps: Deps, record: TableRecord, failure: Exception) -> None:
    """Applying a change to *record* failed unexpectedly (not a rule rejection): cancel the
    hand in progress (R8.6) in a write of its own, and tell every player why. The failure
    itself is re-raised by the caller (logged and answered ``internal_error``)."""
    hand = record.state.hand
    deps.warn("change failed unexpectedly", {"table_id": record.table_id,
                                             "error": type(failure).__name__,
                                             "hand_in_progress": record.state.hand_in_progress})
    if hand is None or hand.complete:
        return

    def change(new: TableRecord, now: int) -> Outcome:
        current = new.state.hand
        if current is None or current.complete or current.number != hand.number:
            raise NoOp()  # the hand ended meanwhile
        return cancel.cancel_hand(deps, new, "server_error")

    try:
        mutate(deps, record.table_id, change, catch_up=False, cancel_on_failure=False)
    except Exception as error:  # the stalled timer, then the sweep, will try again
        deps.warn("could not cancel the hand", {"table_id": record.table_id,
                                                "error": type(error).__name__})


# -- telling the players ---------------------------------------------------------------------

def table_view(record: TableRecord, seat_index: int | None, *,
               proofs: bool = False) -> dict[str, Any]:
    """What *seat_index* (``None``: a spectator) sees of the table: the engine's view plus the
    table's settings, who is disconnected, and the deadline of the seat to act; with *proofs*,
    the proof of every card the viewer has seen in the hand (R10.2, a snapshot)."""
    view = view_for(record.state, seat_index, proofs=proofs)
    settings = record.settings
    room = record.room
    view["table_id"] = record.table_id
    view["settings"] = {"name": settings.name, "min_buy_in": settings.min_buy_in,
                        "max_buy_in": settings.max_buy_in, "decision_ms": settings.decision_ms,
                        "kind": settings.kind.value, "host": settings.host,
                        "bots": settings.bots, "min_players": settings.min_players,
                        "deep_stack": settings.deep_stack}
    view["disconnected"] = sorted(record.disconnected)
    view["room"] = {"waitlist": list(room.waitlist), "held_seats": len(room.offers),
                    "paused": room.paused, "closing": room.closing, "closed": record.closed,
                    "pending": dict(room.pending)}
    viewer = record.state.seats[seat_index] if seat_index is not None else None
    if viewer is not None and viewer.player_id == settings.host and settings.private:
        view["room"]["invite_code"] = room.invite_code  # the host's eyes only (R7.12)
    if record.tournament is not None:
        view["tournament"] = tournament_view(record)
    deadline = next((t.due_ms for t in record.timers if t.kind in dealer.DEALT_IN_TIMERS), None)
    if view["prompt"] is not None:
        view["prompt"]["deadline_ms"] = deadline
    if view["hand"] is not None:
        view["hand"]["actor_deadline_ms"] = deadline
    return view


def tournament_view(record: TableRecord) -> dict[str, Any]:
    """A tournament table's tournament: the level of the hand (R9.3), when the next level
    starts and what it is, players left, the prizes (and a Spin's multiplier)."""
    info = record.tournament
    assert info is not None
    structure = info.structure
    level = structure.level(max(info.announced_level, 1))
    following = structure.following(level)
    ends = info.level_ends_ms
    if not info.announced_level and len(structure.levels) > 1:  # before the first hand
        ends = structure.level_start_ms(info.started_ms, 2)
    return {"tournament_id": info.tournament_id, "level": level.number,
            "small_blind": level.small_blind, "big_blind": level.big_blind,
            "ante": level.ante, "ante_mode": level.ante_mode.value, "level_ends_ms": ends,
            "next_level": None if following is None else following.to_dict(),
            "players_left": info.players_left, "entrants": info.entrants,
            "payouts": list(info.payouts), "multiplier": info.multiplier,
            "first_hand_ms": info.started_ms}


def snapshot_message(record: TableRecord, player_id: str, request_id: str | None,
                     now: int | None = None) -> dict[str, Any]:
    """A ``snapshot``: the whole table as *player_id* may see it (at *now*: with the buy-in
    a deep-stack table requires of them, :func:`with_required_buy_in`)."""
    view = table_view(record, record.seat_of(player_id), proofs=True)
    return {"type": "snapshot", "table_id": record.table_id, "version": record.seq,
            "view": with_required_buy_in(view, record, player_id, now),
            "request_id": request_id}


def with_required_buy_in(view: dict[str, Any], record: TableRecord, player_id: str,
                         now: int | None) -> dict[str, Any]:
    """*view* with ``required_buy_in`` when *player_id*, not seated, left this deep-stack
    table less than 30 minutes before *now* (R7.11, :func:`.room.required_buy_in`); a copy
    then, *view* itself otherwise (the spectators' shared view is never changed)."""
    from . import room

    if now is None or view.get("seat_index") is not None:
        return view
    required = room.required_buy_in(record, player_id, now)
    return view if required is None else {**view, "required_buy_in": required}


FAN_OUT_WORKERS = 10
"""Posts of one fan-out in flight at once (:func:`fan_out`): botocore's connection pool per
client (``max_pool_connections``, 10 by default); more threads would open connections the pool
then throws away. A 10-seat table with 20 spectators posts in 3 rounds instead of 30."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The process's fan-out pool: made on first use, kept across warm invocations (Lambda
    freezes its idle threads between them); the Management API client is thread-safe."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(FAN_OUT_WORKERS, thread_name_prefix="fan-out")
        return _pool


def watching(record: TableRecord, caller: Caller) -> bool:
    """Whether *caller*'s connection gets the table's updates (it watches the table)."""
    return caller.connection_id in record.connections.values()


def fan_out(deps: Deps, record: TableRecord, events: list[Event],
            answer: Caller | None = None) -> None:
    """After the commit: every watching connection gets its own view (R8.3: the confirmed
    state), ONE message per connection; the update to *answer*'s connection carries its
    ``request_id`` and ``replayed: false`` (the answer to that request: no separate
    ``ack``).

    The posts go out concurrently, at most :data:`FAN_OUT_WORKERS` at once (sequentially
    when ``deps.parallel_fan_out`` is off, or for one recipient); the messages are made
    first, in this thread, the public part serialised once (:class:`Updates`). Each
    recipient stands alone: a failure of one (gone, throttled, timed out, any error) is
    counted and logged here, after every post ended, and the others still get their message;
    a post starts only with :data:`AWS_CALL_WORST_MS` left (else it is skipped and counted);
    a recipient that missed one sees the gap in versions and asks for a snapshot.
    Connections that are gone are forgotten in ONE more write: quiet when only spectators
    left (a crowd of dead spectators costs one write), announced with ``disconnected`` events
    when a seated player is now away (everyone sees it: a new version)."""
    updates = Updates(record, events, deps.clock.now_ms())
    jobs = [(player_id, connection_id, updates.message(
        player_id, answer.request_id
        if answer is not None and connection_id == answer.connection_id else None))
        for player_id, connection_id in list(record.connections.items())]
    results = _post_all(deps, [(connection_id, message) for _, connection_id, message in jobs])
    gone: list[tuple[str, str]] = []
    sent = 0
    for (player_id, connection_id, _), result in zip(jobs, results, strict=True):
        if result is None:
            sent += 1
        elif result is _SKIPPED:
            deps.count("FanOutSkipped", 1)  # out of time: the client will ask for a snapshot
        elif isinstance(result, ConnectionGone):
            gone.append((player_id, connection_id))
        else:
            deps.count("FanOutFailures", 1)
            deps.warn("could not post an update", {"table_id": record.table_id,
                                                   "connection_id": connection_id,
                                                   "version": record.seq,
                                                   "error": type(result).__name__})
    if sent:
        deps.count("MessagesSent", sent)
    if gone:  # one more write: quiet for spectators, announced when a seated player is away
        deps.count("ConnectionsGone", len(gone))
        internal(deps, record.table_id, drop_connections(gone))


class _Skipped:
    """A post not started: too little of the invocation left."""


_SKIPPED = _Skipped()


def _post(deps: Deps, connection_id: str, message: dict[str, Any]) -> Exception | _Skipped | None:
    """One post: ``None`` when sent, :data:`_SKIPPED`, or the exception it raised (what is
    not an :class:`Exception`, a process dying, is raised)."""
    if deps.deadline.remaining_ms() < AWS_CALL_WORST_MS:
        return _SKIPPED
    try:
        deps.gateway.send(connection_id, message)
    except Exception as error:
        return error
    return None


def _post_all(deps: Deps, posts: list[tuple[str, dict[str, Any]]]
              ) -> list[Exception | _Skipped | None]:
    """Every post's result, in order. Concurrently on the shared pool (each post in a copy of
    this thread's context: the invocation's deadline and log keys), or in order here."""
    if len(posts) <= 1 or not deps.parallel_fan_out:
        return [_post(deps, connection_id, message) for connection_id, message in posts]
    pool = _executor()
    futures = [pool.submit(contextvars.copy_context().run, _post, deps, connection_id, message)
               for connection_id, message in posts]
    return [future.result() for future in futures]


class Updates:
    """The ``update`` messages of one fan-out. The spectators' view (the public part) is
    made once and serialised once; a seat's view is made per recipient (its own cards, its
    prompt) and serialised against the public one: every part equal to the public part's
    reuses its JSON, only what differs is serialised again. Events are serialised once each.
    Each message is an :class:`~naiko_service.ports.Encoded`: the dict, and the exact bytes
    :func:`naiko_service.aws.gateway.encode_message` would make of it."""

    def __init__(self, record: TableRecord, events: list[Event], now: int | None = None):
        self.record = record
        self.now = now
        self.public = table_view(record, None)
        self.events = [(event, event.to_dict()) for event in events]
        self._event_json: dict[int, str] = {}
        self._json: dict[int, str] = {}
        self._head = (f'{{"type":"update","table_id":{_dumps(record.table_id)},'
                      f'"version":{record.seq}')
        self._commitment: DeckCommitment | None = None  # R10.2: built once, when needed

    def message(self, player_id: str, request_id: str | None = None) -> Encoded:
        """The update *player_id* gets (with *request_id*: the answer to its request)."""
        record = self.record
        seat_index = record.seat_of(player_id)
        view = (with_required_buy_in(self.public, record, player_id, self.now)
                if seat_index is None else table_view(record, seat_index))
        own = viewer_seat(record.state, seat_index)  # never an earlier occupant's private events
        visible = [i for i, (event, _) in enumerate(self.events)
                   if event.visible_to(own, player_id)]
        message: dict[str, Any] = {"type": "update", "table_id": record.table_id,
                                   "version": record.seq,
                                   "events": [self.events[i][1] for i in visible],
                                   "view": view}
        tail = "}"
        proofs = self._proofs([self.events[i][0] for i in visible])
        if proofs:  # R10.2: the proofs of the cards these events show this recipient
            message["proofs"] = proofs
            tail = f',"proofs":{_dumps(proofs)}}}'
        if request_id is not None:  # the answer: applied now, never a replay (see replay)
            message["request_id"] = request_id
            message["replayed"] = False
            tail = tail[:-1] + f',"request_id":{_dumps(request_id)},"replayed":false}}'
        text = (f'{self._head},"events":[{",".join(self._event(i) for i in visible)}],'
                f'"view":{self._like(view, self.public)}{tail}')
        try:
            data = text.encode()
        except UnicodeEncodeError:  # a lone surrogate: escaped, as encode_message does
            data = json.dumps(message, separators=(",", ":")).encode()
        return Encoded(message, data)

    def _proofs(self, shown: list[Event]) -> list[dict[str, Any]]:
        """R10.2: the inclusion proofs of the cards *shown* (one recipient's events) show."""
        hand = self.record.state.hand
        if hand is None or hand.commitment is None or not cards_in(shown):
            return []
        self._commitment = self._commitment or commitment_of(hand)
        return proofs_for_events(hand, shown, self._commitment)

    def _event(self, index: int) -> str:
        text = self._event_json.get(index)
        if text is None:
            text = self._event_json[index] = _dumps(self.events[index][1])
        return text

    def _like(self, value: Any, public: Any) -> str:
        """*value* as JSON, reusing the JSON of the parts of *public* it equals."""
        if value is public or (type(value) is type(public) and value == public):
            text = self._json.get(id(public))
            if text is None:
                text = self._json[id(public)] = _dumps(public)
            return text
        if type(value) is dict and type(public) is dict \
                and all(type(key) is str for key in value):
            return "{" + ",".join(
                f"{_dumps(key)}:{self._like(item, public[key]) if key in public else _dumps(item)}"
                for key, item in value.items()) + "}"
        if type(value) is list and type(public) is list and len(value) == len(public):
            return "[" + ",".join(self._like(item, base)
                                  for item, base in zip(value, public, strict=True)) + "]"
        return _dumps(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def send(deps: Deps, connection_id: str, message: dict[str, Any]) -> None:
    """Send one message to one connection; a failure (gone or otherwise) is counted and
    logged, never raised: the client can always recover with a snapshot."""
    if deps.deadline.remaining_ms() < AWS_CALL_WORST_MS:
        deps.count("FanOutSkipped", 1)
        return
    try:
        deps.gateway.send(connection_id, message)
    except ConnectionGone:
        deps.count("ConnectionsGone", 1)
    except Exception as error:
        deps.count("FanOutFailures", 1)
        deps.warn("could not post a reply", {"connection_id": connection_id,
                                             "error": type(error).__name__})


# -- the table's wake-up ---------------------------------------------------------------------

def arm(deps: Deps, table_id: str, record: TableRecord, now: int) -> None:
    """Keep ONE wake-up armed per table, for its earliest deadline.

    A Step Functions execution is started only when no armed wake-up fires by the earliest
    deadline: when that deadline moved EARLIER than the armed one (the pause after a hand,
    a Shield window), when the armed one was consumed (it fired) or presumed lost. A turn
    that ends early moves the deadline later: nothing is started, the armed wake-up fires
    at its time, finds nothing due, and re-arms for the deadline of the moment. The armed
    wake-up is remembered as a :attr:`TimerKind.WAKE` marker in ``record.timers``, so its
    deadline is also on ``due-index`` for the sweep. The execution carries the earliest
    timer's own token and kind (a pending token always acts, so even a superseded execution
    that fires is either useful or a no-op)."""
    real = [t for t in record.timers if t.kind is not TimerKind.WAKE]
    wake = next((t for t in record.timers if t.kind is TimerKind.WAKE), None)
    earliest = min((t for t in real if t.kind not in SWEEP_ONLY),
                   key=lambda t: (t.due_ms, t.token), default=None)
    if earliest is None:
        record.timers = real  # nothing to wait for: an armed wake-up will be a no-op
        return
    if wake is not None and now - WAKE_LATE_MS <= wake.due_ms <= earliest.due_ms:
        record.timers = [*real, wake]
        return
    deps.scheduler.schedule(table_id, earliest.token, earliest.due_ms, earliest.kind)
    deps.count("WakeupsArmed", 1)
    record.timers = [*real, Timer(WAKE_PREFIX + earliest.token, TimerKind.WAKE,
                                  earliest.due_ms)]


def watch(deps: Deps, connection_id: str, table_id: str) -> None:
    """Record that *connection_id* watches *table_id* (its fan-out reaches it).

    :raises ServiceError: ``too_many_tables_watched`` when the connection watches as many
        tables as one may (:data:`~naiko_service.limits.MAX_TABLES_PER_CONNECTION`).
    """
    try:
        deps.connections.add_table(connection_id, table_id)
    except TooManyWatched as exc:
        raise ServiceError("too_many_tables_watched", f"this connection watches "
                           f"{MAX_TABLES_PER_CONNECTION} tables already: stop watching one "
                           "first (unwatch)") from exc


def too_many_tables_message() -> str:
    from ..limits import MAX_OPEN_TABLES

    return (f"you already have {MAX_OPEN_TABLES} open tables; an empty table closes after "
            f"{dealer.IDLE_CLOSE_MS // 60_000} minutes")
