""":mod:`naiko_service.usecases.path` is the one way a table changes, used by every use case
(cash tables, play, timers, connections, and next to them tournaments):

**load → change → drive → schedule → conditional write → answer → fan out**

1. load the item (one consistent read); a request id this player sent recently is answered
   (``replayed``) and not applied again;
2. the use case's change edits this attempt's private copy (it may raise: nothing is written);
3. the dealer drives the table (:func:`naiko_service.usecases.dealer.after_change`);
4. the table's one wake-up is armed for its earliest deadline (:func:`arm`), *before* the write:
   if the write loses, the wake-up fires as a no-op; if the process dies after the write, it
   exists (and the sweep backs it up);
5. the write is conditional on the version read, with the account moves in the same
   transaction; on a conflict the change is re-applied to a fresh read, a bounded number of
   times;
6. the requester gets its ``ack``, and every watching connection its own view (R8.3: the
   confirmed state).
"""

from __future__ import annotations

from typing import Any

from naiko.events import Event
from naiko.views import events_for, view_for

from ..ports import ConcurrentUpdate, ConnectionGone, InsufficientFunds, TableNotFound
from ..records import TableRecord, Timer, TimerKind
from . import dealer
from .base import Caller, Change, Deps, NoOp, ServiceError
from .subscriptions import drop_connection

MAX_ATTEMPTS = 4
"""Conditional-write attempts before a request is answered ``busy``."""

WAKE_PREFIX = "wake:"
"""The token of a table's wake-up marker is this prefix + the token its execution carries."""

WAKE_LATE_MS = 10_000
"""An armed wake-up this far past its time is presumed lost (a table write re-arms, and the
sweep, which sees the marker's deadline on ``due-index``, takes over); until then it may still
be on its way (a Lambda retry), and arming another would only add a no-op."""


def mutate(deps: Deps, table_id: str, change: Change, *,
           caller: Caller | None = None) -> TableRecord:
    """Apply *change* to the table through the whole path (see the module docstring) and
    return the record as written (or as found, for a replayed request).

    :raises ServiceError: A refusal (nothing written), or ``busy`` after :data:`MAX_ATTEMPTS`
        conflicts.
    :raises TableNotFound: If there is no such table.
    :raises NoOp: If the change found nothing to do.
    """
    # Request ids are the client's: remembered per player, so two players who happen to pick
    # the same id never shadow each other.
    key = None if caller is None else f"{caller.player_id}/{caller.request_id}"
    for attempt in range(MAX_ATTEMPTS):
        record = deps.tables.load(table_id)
        if caller is not None and key in record.recent_requests:
            send(deps, caller.connection_id, ack(caller, table_id,
                                                 record.recent_requests[key], replayed=True))
            return record
        now = deps.clock.now_ms()
        new = record.copy()
        new.version = record.version + 1
        outcome = change(new, now)  # may raise: nothing is written
        dealer.after_change(deps, new, now, outcome)
        if key is not None:
            new.remember_request(key, new.version)
        arm(deps, table_id, new, now)
        try:
            deps.tables.save(new, record.version, tuple(outcome.moves))
        except ConcurrentUpdate:
            deps.count("Conflicts", 1)
            continue
        except InsufficientFunds as exc:
            raise ServiceError("insufficient_funds",
                               "your account cannot cover that buy-in") from exc
        if attempt:
            deps.count("Retries", attempt)
        deps.count("TableWrites", 1)
        if caller is not None:
            send(deps, caller.connection_id, ack(caller, table_id, new.version))
        fan_out(deps, new, outcome.events)
        return new
    raise ServiceError("busy", "the table is busy; please retry")


def internal(deps: Deps, table_id: str, change: Change) -> None:
    """A change nobody waits for an answer to (a timer, a dropped connection): a missing
    table or nothing to do is not an error."""
    try:
        mutate(deps, table_id, change)
    except (TableNotFound, NoOp):
        pass


def ack(caller: Caller, table_id: str, version: int, replayed: bool = False) -> dict[str, Any]:
    """The ``ack`` message of an applied (or replayed) request."""
    return {"type": "ack", "request_id": caller.request_id, "table_id": table_id,
            "version": version, "replayed": replayed}


# -- telling the players ---------------------------------------------------------------------

def table_view(record: TableRecord, seat_index: int | None) -> dict[str, Any]:
    """What *seat_index* (``None``: a spectator) sees of the table: the engine's view plus the
    table's settings, who is disconnected, and the deadline of the seat to act."""
    view = view_for(record.state, seat_index)
    view["table_id"] = record.table_id
    view["settings"] = {"name": record.settings.name, "min_buy_in": record.settings.min_buy_in,
                        "max_buy_in": record.settings.max_buy_in,
                        "decision_ms": record.settings.decision_ms}
    view["disconnected"] = sorted(record.disconnected)
    deadline = next((t.due_ms for t in record.timers if t.kind in dealer.DEALT_IN_TIMERS), None)
    if view["prompt"] is not None:
        view["prompt"]["deadline_ms"] = deadline
    if view["hand"] is not None:
        view["hand"]["actor_deadline_ms"] = deadline
    return view


def snapshot_message(record: TableRecord, player_id: str,
                     request_id: str | None) -> dict[str, Any]:
    """A ``snapshot``: the whole table as *player_id* may see it."""
    return {"type": "snapshot", "table_id": record.table_id, "version": record.version,
            "view": table_view(record, record.seat_of(player_id)), "request_id": request_id}


def fan_out(deps: Deps, record: TableRecord, events: list[Event]) -> None:
    """After the commit: every watching connection gets its own view (R8.3: the confirmed
    state). A gone connection never fails the action."""
    gone: list[tuple[str, str]] = []
    for player_id, connection_id in record.connections.items():
        seat_index = record.seat_of(player_id)
        message = {"type": "update", "table_id": record.table_id, "version": record.version,
                   "events": events_for(events, seat_index),
                   "view": table_view(record, seat_index)}
        try:
            deps.gateway.send(connection_id, message)
            deps.count("MessagesSent", 1)
        except ConnectionGone:
            gone.append((player_id, connection_id))
    for player_id, connection_id in gone:
        deps.count("ConnectionsGone", 1)
        internal(deps, record.table_id, drop_connection(player_id, connection_id))


def send(deps: Deps, connection_id: str, message: dict[str, Any]) -> None:
    """Send one message to one connection; a gone connection is not an error."""
    try:
        deps.gateway.send(connection_id, message)
    except ConnectionGone:
        deps.count("ConnectionsGone", 1)


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
    earliest = min(real, key=lambda t: (t.due_ms, t.token), default=None)
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
