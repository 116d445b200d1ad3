""":mod:`naiko_service.usecases.transaction` is the one way a table changes, used by every use case
(cash tables, play, timers, connections, and next to them tournaments):

**load → catch up → change → drive → arm → conditional write → answer → fan out**

1. load the item (one consistent read); a request id this player sent recently is answered
   (``replayed``, with the current state) and not applied again. A state that cannot be read is
   replaced by its fallback: the table with the hand cancelled (R8.6, :func:`recover`);
2. catch up: deadlines already past (a decision clock, a Shield window) act first, on the
   server's clock, even if their timer has not fired yet (R6.5, R8.1). When what they did
   writes other items than the table (a hand ended at a tournament's table: its tournament,
   results, log; another table), they are written first, on their own, and the change applies
   to the table read again: one transaction names an item once (DynamoDB refuses one that
   names it twice, whole), and the change then reads what they wrote;
3. the use case's change edits this attempt's private copy; a refusal writes nothing (but what
   step 2 did); an unexpected failure cancels the hand in progress (R8.6) and is re-raised;
4. the dealer drives the table (:func:`naiko_service.usecases.dealer.after_change`);
5. the table's one wake-up is armed for its earliest deadline (:func:`.arming.arm`), *before*
   the write: if the write loses, the wake-up fires as a no-op; if the process dies after the
   write, it exists (and the sweep backs it up); the attempt after a lost one arms nothing the
   lost one armed already (:data:`.arming.Armed`);
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

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from naiko.errors import EngineError
from naiko.events import Event, event_from_dict

from .. import hand_records
from ..limits import MAX_WAITLISTS_PER_PLAYER
from ..ports import (
    AccountFrozen,
    AccountMove,
    ConcurrentUpdate,
    ConnectionGone,
    HistoryStored,
    InsufficientFunds,
    LedgerReason,
    PutTable,
    TableNotFound,
    TooManyTables,
    TooManyWaitlists,
    UnreadableTable,
    Write,
)
from ..records import TableRecord
from . import (
    arming,
    cancel,
    deadlines,
    dealer,
    push,
    spectators,
    standing_rows,
    tournament_tables,
)
from .accounts import frozen_error
from .base import Caller, Change, Deps, NoOp, Outcome, ServiceError, backoff, refuse_bot_seat
from .fanout import (
    AWS_CALL_WORST_MS,
    SKIPPED,
    Updates,
    ack,
    post_all,
    post_updates,
    send,
    watching,
)
from .subscriptions import drop_connections
from .views import snapshot_message

MAX_ATTEMPTS = 4
"""Conditional-write attempts before a request is answered ``busy``."""


ATTEMPT_WORST_MS = 3 * AWS_CALL_WORST_MS
"""One attempt of the path: the read, a timer execution, the write."""


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
    armed: arming.Armed = {}  # what a lost attempt armed stays armed: not armed again
    for attempt in range(MAX_ATTEMPTS):
        if deps.deadline.remaining_ms() < ATTEMPT_WORST_MS:
            deps.count("OutOfTime", 1)
            break
        record = _read(deps, table_id)
        if record is None:  # it was unreadable: its fallback was written (R8.6), read again
            continue
        if caller is not None and _replayed(deps, caller, record):
            return record
        now = deps.clock.now_ms()
        applied = _apply(deps, record, change, now, catch_up, cancel_on_failure)
        if applied is None:  # another item read for the change was older than this one
            continue
        new, outcome, refusal, deadlines_only = applied
        requester = None if deadlines_only else caller  # the change comes in the next write
        announced = announce and bool(outcome.events or not outcome.quiet)
        new.seq = record.seq + 1 if announced else record.seq
        if requester is not None and refusal is None:
            new.remember_request(f"{requester.player_id}/{requester.request_id}", new.seq)
        new.fallback = cancel.fallback_for(deps, new, now)
        arming.arm(deps, table_id, new, now, armed)
        if not _commit(deps, new, record.version, outcome, now, armed):
            continue
        if attempt:
            deps.count("Retries", attempt)
        deps.count("TableWrites", 1)
        _answer(deps, requester if refusal is None else None, new, outcome, announced)
        if deadlines_only:
            continue
        if refusal is not None:
            raise refusal
        return new
    raise ServiceError("busy", "the table is busy; please retry")


def _read(deps: Deps, table_id: str) -> TableRecord | None:
    """Step 1: the table as stored; ``None`` when it could not be read and its fallback was
    written in its place (R8.6, :func:`recover`)."""
    try:
        return deps.tables.load(table_id)
    except UnreadableTable as unreadable:
        recover(deps, unreadable)
        return None


def _replayed(deps: Deps, caller: Caller, record: TableRecord) -> bool:
    """Whether *caller*'s request was applied already (then it is answered, :func:`replay`).

    :raises ServiceError: ``bot_seat`` (R8.4), before anything is written.
    """
    refuse_bot_seat(record, caller.player_id)
    if f"{caller.player_id}/{caller.request_id}" not in record.recent_requests:
        return False
    replay(deps, caller, record)
    return True


Applied = tuple[TableRecord, Outcome, ServiceError | EngineError | None, bool]
"""One attempt's copy of the table changed, what the change produced, the request's
refusal when deadlines that passed are written without it, and whether the copy holds only
the deadlines that passed (written on their own first: the change is applied next)."""


def _apply(deps: Deps, record: TableRecord, change: Change, now: int, catch_up: bool,
           cancel_on_failure: bool) -> Applied | None:
    """Steps 2-4 on a copy of *record*: the deadlines already past, the change, the dealer.
    ``None`` when another item the change read was older than this one (read again). Only
    the deadlines, without the change, when they wrote other items than the table (a hand
    ended at a tournament's table): they go in a write of their own first, since the change
    may write those items too, and one transaction names an item once.

    :raises ServiceError: A refusal (or :class:`EngineError`, :class:`NoOp`) when no
        deadline passed; an unexpected failure cancels the hand first (R8.6).
    """
    new = record.copy()
    new.version = record.version + 1
    outcome = Outcome()
    refusal: ServiceError | EngineError | None = None
    try:
        # Strictly past: an action (or a Shield) at its deadline's millisecond is in time.
        caught_up = (deadlines.fire_due(deps, new, now, outcome, horizon=now - 1)
                     if catch_up else 0)
        if caught_up and (outcome.writes or outcome.others):  # driven already (fire_due)
            deps.count("DeadlinesWrittenFirst", 1)
            return new, outcome, None, True
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
    except ConcurrentUpdate:
        deps.count("Conflicts", 1)
        return None
    except Exception as failure:
        if cancel_on_failure:
            cancel_after_failure(deps, record, failure)
        raise
    return new, outcome, refusal, False


def _commit(deps: Deps, new: TableRecord, expected_version: int, outcome: Outcome,
            now: int, armed: arming.Armed) -> bool:
    """Step 6: the conditional write (:func:`write`); ``False`` on a conflict (try again).

    :raises ServiceError: An account that cannot pay, or a cap of the account reached.
    """
    try:
        write(deps, new, expected_version, outcome, now, armed)
    except ConcurrentUpdate:
        deps.count("Conflicts", 1)
        return False
    except AccountFrozen as exc:
        raise frozen_error() from exc
    except InsufficientFunds as exc:
        raise ServiceError("insufficient_funds",
                           "your account cannot cover that buy-in") from exc
    except TooManyTables as exc:
        raise ServiceError("too_many_tables", too_many_tables_message()) from exc
    except TooManyWaitlists as exc:
        raise ServiceError("too_many_waitlists", f"you are on {MAX_WAITLISTS_PER_PLAYER} "
                           "waiting lists already: leave one first (leave_waitlist)") from exc
    return True


def _answer(deps: Deps, requester: Caller | None, new: TableRecord, outcome: Outcome,
            announced: bool) -> None:
    """Step 7, after the commit: the requester's answer, the write's follow-ups, then every
    watching connection of the tables written."""
    # The requester's answer: the update it gets anyway (it carries the request id), or,
    # when no update goes to its connection, an ``ack`` (docs/protocol.md, "Replies").
    folded = announced and requester is not None and watching(new, requester)
    if requester is not None and not folded:
        send(deps, requester.connection_id, ack(requester, new.table_id, new.seq))
    run_after(deps, new.table_id, outcome)  # prizes on the accounts before players hear of them
    if announced:
        fan_out(deps, new, outcome.events, answer=requester if folded else None)
    for other in outcome.others.values():
        if other.changed:
            fan_out(deps, other.record, other.events)


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
          now: int, armed: arming.Armed | None = None) -> None:
    """The conditional write of one attempt: the table and its account moves; with other
    items to write (a tournament table's hand), all of them in one transaction. The records of
    hands that ended in this write travel with the table (R10.1, ``record.histories``): one
    found stored already (a write that carried it committed before) is left out, and the
    write is made again without it, so a hand is stored once. *armed*: the wake-ups the
    write's earlier attempts armed (:func:`.arming.arm`)."""
    try:
        _write(deps, record, expected_version, outcome, now, armed)
    except HistoryStored as stored:
        deps.count("HistoriesStoredBefore", len(stored.hands))
        deps.warn("a hand's record was stored already", {"table_id": record.table_id,
                                                         "hands": [n for _, n in stored.hands]})
        record.histories = [h for h in record.histories if h.key not in stored.hands]
        _write(deps, record, expected_version, outcome, now, armed)


def _write(deps: Deps, record: TableRecord, expected_version: int, outcome: Outcome,
           now: int, armed: arming.Armed | None) -> None:
    # one record per hand (a transaction may touch an item once)
    record.histories = list({history.key: history for history in record.histories}.values())
    moves = stamped(outcome.moves, now)
    others: list[Write] = []
    for other in outcome.others.values():
        if other.changed:  # armed and sealed like the table itself (steps 5 and 6)
            table = other.record
            dealer.sync_timers(deps, table, now)
            table.fallback = cancel.fallback_for(deps, table, now)
            arming.arm(deps, table.table_id, table, now, armed)
            others.append(PutTable(table, other.expected_version))
    if not outcome.writes and not others:
        deps.tables.save(record, expected_version, moves)
        return
    if deps.tournaments is None:
        raise RuntimeError("a tournament table needs the tournament store")
    deps.tournaments.commit(standing_rows.attach(
        (PutTable(record, expected_version), *others, *outcome.writes), now), moves)


def run_after(deps: Deps, table_id: str, outcome: Outcome) -> None:
    """Run the write's follow-ups (:attr:`Outcome.after`, then the fan-out of each table the
    change created, :attr:`Outcome.announce`), before the table's own fan-out: a player told
    of their prize finds it on their account. Each stands alone: a failure is logged, and the
    timer that backs it up (a tournament's ``payout``) does it later."""
    callbacks: list[Callable[[], Any]] = [*outcome.after, *(
        partial(fan_out, deps, table, []) for table in outcome.announce)]
    for callback in callbacks:
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


def resend(deps: Deps, record: TableRecord) -> None:
    """The table as it is, again, to every connection in the table item (its members), each as
    a ``snapshot`` of its own (``"request_id": null``), as :func:`replay` does for a request: a
    duplicated timer execution (:func:`.timers._wake`) cannot know whether the first one's
    fan-out went out (it did, unless its function died after its write), so it sends what may
    have been missed without a second ``update`` of a version already pushed (an ``update`` is
    one write, told once to each connection: docs/protocol.md). Spectators are not sent it (their
    worker's queue keeps one message per version); a failure is counted, never raised."""
    now = deps.clock.now_ms()
    posts = [(connection_id, snapshot_message(record, player_id, None, now))
             for player_id, connection_id in list(record.connections.items())]
    results = post_all(deps, posts)
    for name, outcome in (("MessagesSent", None), ("FanOutSkipped", SKIPPED)):
        value = sum(1 for result in results if result is outcome)
        if value:
            deps.count(name, value)
    failed = sum(1 for result in results if isinstance(result, Exception)
                 and not isinstance(result, ConnectionGone))  # gone: $disconnect forgets it
    if failed:
        deps.count("FanOutFailures", failed)


def fan_out(deps: Deps, record: TableRecord, events: list[Event],
            answer: Caller | None = None) -> None:
    """After the commit: every connection in the table item (its members) gets its own view
    (:func:`.fanout.post_updates`); then the spectators' update goes to their worker
    (:func:`.spectators.publish`), off the players' path. The players the events call on who
    have no live connection here get a push notification once every post ended
    (:func:`.push.after_fan_out`: never raises). Connections that are gone are forgotten in ONE
    more write: quiet when only spectators left (a crowd of dead spectators costs one write),
    announced with ``disconnected`` events when a seated player is now away (everyone sees it:
    a new version). Players who left their seat in this write and still watch become
    spectators (their own items) and leave the table item in that same write."""
    updates = Updates(record, events, deps.clock.now_ms())
    gone = post_updates(deps, record, updates, answer)
    spectators.publish(deps, record, updates)
    push.after_fan_out(deps, record, events, gone)  # players whose app sleeps (issue 25)
    moving = [leaver for leaver in spectators.leavers(record) if leaver not in gone]
    if moving:
        spectators.demote(deps, record, moving)
    if gone or moving:  # one more write: quiet, but announced when a seated player is away
        if gone:
            deps.count("ConnectionsGone", len(gone))
        internal(deps, record.table_id, drop_connections(gone, moving))


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
    # The fallback was sealed with the write it stands in for, whose update was pushed: the
    # cancellation is a write of its own, told under the next version (never the same one).
    record.seq += 1
    now = deps.clock.now_ms()
    arming.arm(deps, record.table_id, record, now)
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


def too_many_tables_message() -> str:
    from ..limits import MAX_OPEN_TABLES

    return (f"you already have {MAX_OPEN_TABLES} open tables; an empty table closes after "
            f"{dealer.IDLE_CLOSE_MS // 60_000} minutes")
