""":mod:`naiko_service.usecases.timers` is what happens when a table's time comes: the timer
callback of the Step Functions wake-up, and the sweep that recovers lost wake-ups; what each kind of
timer does is in :mod:`.deadlines`.

A timer acts only while its token is still on the table; anything else (the turn moved on, a
superseded wake-up, an execution delivered twice) is a no-op that writes nothing, so a timer
never needs cancelling. See ``docs/timers.md``."""

from __future__ import annotations

from ..ports import TableNotFound
from ..records import TableRecord, TimerKind
from ..tournament_records import TOURNAMENT_PREFIX
from . import deadlines, path, tournaments
from .base import Deps, NoOp, Outcome

WAKE_TOLERANCE_MS = 1_000
"""A wake-up fires the timers due within this much of now: its execution waited until a
whole second, on Step Functions' clock, which may run slightly ahead of the function's."""

SWEEP_LIMIT = 1_000
"""Due ``(table, token)`` pairs one sweep run takes (a table has its timers and its wake-up
marker): hundreds of tables per minute, well inside the sweep function's 60 s."""

def timer_fired(deps: Deps, table_id: str, token: str) -> bool:
    """A timer execution carrying *token* fired. Returns whether a timer acted.

    It acts if *token* is still pending on the table (that timer fires), or if it names the
    table's armed wake-up and its time has come (every timer already due fires: the deadline
    may have moved since it was armed). Either way the table then re-arms one wake-up for its
    earliest remaining deadline (:func:`~naiko_service.usecases.path.arm`). A target
    ``T:<id>`` names a tournament's timer (:func:`.tournaments.tournament_timer`)."""
    if tournaments.is_tournament_timer(table_id):
        return tournaments.tournament_timer(
            deps, table_id.removeprefix(TOURNAMENT_PREFIX), token) > 0
    return _wake(deps, table_id, token) > 0


def sweep(deps: Deps) -> int:
    """Every minute: wake every table whose earliest deadline (armed wake-up included) passed,
    found on the ``due-index`` (a query, never a scan), then every tournament whose timer
    passed (:func:`.tournaments.sweep`). This recovers lost timer executions: a table is never
    stuck more than about a minute. Returns the number of timers that acted."""
    fired = 0
    woken: set[str] = set()
    for table_id, _token in deps.tables.due_tables(deps.clock.now_ms(), limit=SWEEP_LIMIT):
        if deps.deadline.remaining_ms() < path.ATTEMPT_WORST_MS:
            deps.count("SweepOutOfTime", 1)  # the next run (a minute later) goes on
            break
        if table_id not in woken:
            woken.add(table_id)
            fired += _wake(deps, table_id, None)
    return fired + tournaments.sweep(deps)


def _wake(deps: Deps, table_id: str, token: str | None) -> int:
    """Fire what is due on the table for the execution that carried *token* (``None``: the
    sweep, which also takes over an overdue wake-up); returns how many timers acted.

    An execution fires timers due within :data:`WAKE_TOLERANCE_MS` (Step Functions waits to a
    whole second, and its clock is not ours). A duplicated execution (its token already acted,
    :attr:`~naiko_service.records.TableRecord.recent_timers`) acts no more, but sends every
    connection the table as it is: whatever the first delivery could not send is seen."""
    fired = 0
    duplicate = False

    def change(record: TableRecord, now: int) -> Outcome:
        nonlocal fired, duplicate
        fired = 0
        horizon = now if token is None else now + WAKE_TOLERANCE_MS
        wake = next((t for t in record.timers if t.kind is TimerKind.WAKE), None)
        pending = None if token is None else next(
            (t for t in record.timers if t.kind is not TimerKind.WAKE and t.token == token),
            None)
        if token is None:  # the sweep takes over an overdue wake-up (lost, or late)
            ours = wake is not None and wake.due_ms <= horizon
        else:  # the armed execution fired: its time came, or its timer is still pending
            ours = (wake is not None and wake.token == path.WAKE_PREFIX + token
                    and (wake.due_ms <= horizon or pending is not None))
        if pending is None and not ours and (
                token is not None or not deadlines.due(record, horizon)):
            duplicate = token is not None and token in record.recent_timers
            raise NoOp()  # stale, duplicated, or not yet time
        if ours and wake is not None:
            record.timers.remove(wake)  # consumed: the write re-arms (path.arm)
        outcome = Outcome()
        fired = deadlines.fire_due(deps, record, now, outcome, first=pending,
                                   horizon=horizon)
        if token is not None and fired:
            record.remember_timer(token, record.version)
        # An idle wake-up (nothing due: the turn it was armed for ended early) only re-arms:
        # nothing any player sees changed, so it is not announced (no new version, no
        # fan-out: ~9 messages a 6-max hand, docs/timers.md); what the dealer does next with
        # events still is.
        outcome.quiet = not fired
        return outcome

    try:
        path.mutate(deps, table_id, change, catch_up=False)
    except (NoOp, TableNotFound):
        if duplicate:
            deps.count("TimersDuplicated", 1)
            path.fan_out(deps, path.load(deps, table_id), [])
        return 0
    return fired
