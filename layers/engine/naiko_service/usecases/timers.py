""":mod:`naiko_service.usecases.timers` is what happens when a table's time comes: the timer
callback of the Step Functions wake-up, and the sweep that recovers lost wake-ups; what each kind of
timer does is in :mod:`.deadlines`.

A timer acts only while its token is still on the table; anything else (the turn moved on, a
superseded wake-up, an execution delivered twice) is a no-op that writes nothing, so a timer
never needs cancelling. See ``docs/timers.md``."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TypeVar

from ..ports import TableNotFound
from ..records import TableRecord, Timer, TimerKind
from ..tournament_records import TOURNAMENT_PREFIX
from . import arming, deadlines, tournaments, transaction
from .base import Deps, NoOp, Outcome

_N = TypeVar("_N", int, float)
_T = TypeVar("_T")
_R = TypeVar("_R")

WAKE_TOLERANCE_MS = 1_000
"""A wake-up fires the timers due within this much of now: it waited until a whole second, on
Step Functions' or SQS's clock, which may run slightly ahead of the function's."""

BATCH_WORKERS = 10
"""Wake-ups of one batch from the timer queue handled at once (:func:`timers_fired`; the
event source mapping's ``BatchSize``)."""

SWEEP_LIMIT = 100_000
"""Due tables one sweep run reads at most: a bound on memory (a few MB), ten times a
10,000-table launch, not on throughput. What bounds a run is its time: a table is
woken only with :data:`~.transaction.ATTEMPT_WORST_MS` left, the rest wait for the next run."""

STUCK_AFTER_MS = 5_000
"""A table the sweep finds this far past a deadline that has a wake-up (not a sweep-only
timer) was stuck: its execution was lost or is very late (counted ``SweepStuckTables``)."""


@dataclass(frozen=True, slots=True)
class Woken:
    """What waking one table did: timers that acted, and how late the oldest of them was
    (``None`` when nothing with a wake-up was overdue: a sweep-only timer, or nothing)."""

    fired: int
    lag_ms: int | None = None


def timer_fired(deps: Deps, table_id: str, token: str) -> bool:
    """A timer execution carrying *token* fired. Returns whether a timer acted.

    It acts if *token* is still pending on the table (that timer fires), or if it names the
    table's armed wake-up and its time has come (every timer already due fires: the deadline
    may have moved since it was armed). Either way the table then re-arms one wake-up for its
    earliest remaining deadline (:func:`~naiko_service.usecases.arming.arm`). A target
    ``T:<id>`` names a tournament's timer (:func:`.tournaments.tournament_timer`). The lag
    (now minus the deadline of what acted) is measured as ``TimerLag``."""
    if tournaments.is_tournament_timer(table_id):
        return tournaments.tournament_timer(
            deps, table_id.removeprefix(TOURNAMENT_PREFIX), token) > 0
    woken = _wake(deps, table_id, token)
    if woken.fired and woken.lag_ms is not None:
        deps.measure("TimerLag", woken.lag_ms)
    return woken.fired > 0


def timers_fired(deps: Deps, wakeups: list[tuple[str, str]], *,
                 on_start: Callable[[str, str], None] | None = None
                 ) -> list[bool | Exception]:
    """Several wake-ups at once (a batch from the timer queue): each ``(table_id, token)`` as
    :func:`timer_fired`, :data:`BATCH_WORKERS` at a time (at most
    :attr:`~.base.Deps.sweep_workers`: 1 keeps a seeded run deterministic), each in a copy of
    the caller's context, where *on_start* runs first (the handler's log keys). Returns, in
    order, whether each acted, or the exception it raised (never raised here: one table's
    failure is that wake-up's alone)."""
    workers = max(1, min(BATCH_WORKERS, deps.sweep_workers, len(wakeups)))

    def fire(shared: Deps, wakeup: tuple[str, str]) -> bool | Exception:
        try:
            if on_start is not None:
                on_start(*wakeup)
            return timer_fired(shared, *wakeup)
        except Exception as error:  # reported per wake-up by the caller
            return error

    return _each_at_once(deps, wakeups, fire, workers, "wakeups")


def sweep(deps: Deps) -> int:
    """Every minute: wake every table whose earliest deadline (armed wake-up included) passed,
    found on the ``due-index`` (one query per shard, in parallel, never a scan), then every
    tournament whose timer passed (:func:`.tournaments.sweep`). This recovers lost timer
    executions: a table is never stuck more than about a minute.

    No cap but time: every due table is read (:data:`SWEEP_LIMIT` bounds memory only), and
    woken :attr:`~.base.Deps.sweep_workers` at a time, each only while the invocation has the
    time for a whole attempt; a table that fails is counted and logged and does not stop the
    others (the next run tries again). Waking is idempotent: each write is conditional on the
    version read, so a table woken twice (two runs, a retried run) acts once, and the second
    finds its new wake-up armed and does nothing. Returns the number of timers that acted."""
    now = deps.clock.now_ms()
    tables = deps.tables.due_tables(now, limit=SWEEP_LIMIT)
    deps.count("SweepDueTables", len(tables))
    woken = _sweep_tables(deps, tables)
    stuck = [w.lag_ms for w in woken if w.lag_ms is not None and w.lag_ms >= STUCK_AFTER_MS]
    deps.count("SweepStuckTables", len(stuck))
    if stuck:
        deps.measure("SweepMaxLag", max(stuck))
    return sum(w.fired for w in woken) + tournaments.sweep(deps)


def _sweep_tables(deps: Deps, tables: list[str]) -> list[Woken]:
    """Wake *tables* (oldest deadline first), :attr:`~.base.Deps.sweep_workers` at a time."""
    workers = max(1, min(deps.sweep_workers, len(tables)))
    out_of_time = threading.Event()

    def wake(shared: Deps, table_id: str) -> Woken:
        if shared.deadline.remaining_ms() < transaction.ATTEMPT_WORST_MS:
            out_of_time.set()  # the next run (a minute later) goes on
            return Woken(0)
        try:
            return _wake(shared, table_id, None)
        except Exception as error:  # one table never stops the others
            shared.count("SweepFailures", 1)
            shared.warn("the sweep could not wake a table",
                        {"table_id": table_id, "error": type(error).__name__})
            return Woken(0)

    woken = _each_at_once(deps, tables, wake, workers, "sweep")
    if out_of_time.is_set():
        deps.count("SweepOutOfTime", 1)
    return woken


def _each_at_once(deps: Deps, items: list[_T], job: Callable[[Deps, _T], _R], workers: int,
                  name: str) -> list[_R]:
    """``job(deps, item)`` for each item, *workers* at a time, each in a copy of the caller's
    context: the invocation's deadline and log keys are context variables, which a pool's
    threads do not inherit. With more than one worker the jobs get *deps* with locked metric
    hooks (they append to one buffer: one thread at a time). With one worker the jobs run in
    order on the caller's thread."""
    contexts = [contextvars.copy_context() for _ in items]
    if workers == 1:
        return [context.run(job, deps, item) for context, item in zip(contexts, items,
                                                                      strict=True)]
    lock = threading.Lock()
    shared = replace(deps, count=_locked(lock, deps.count), measure=_locked(lock, deps.measure))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        return list(pool.map(lambda context, item: context.run(job, shared, item),
                             contexts, items))


def _locked(lock: threading.Lock, hook: Callable[[str, _N], None]) -> Callable[[str, _N], None]:
    def call(name: str, value: _N) -> None:
        with lock:
            hook(name, value)

    return call


def _wake(deps: Deps, table_id: str, token: str | None) -> Woken:
    """Fire what is due on the table for the execution that carried *token* (``None``: the
    sweep, which also takes over an overdue wake-up); returns how many timers acted and how
    late the oldest of them (or the overdue wake-up) was.

    An execution fires timers due within :data:`WAKE_TOLERANCE_MS` (Step Functions waits to a
    whole second, and its clock is not ours). A duplicated execution (its token already acted,
    :attr:`~naiko_service.records.TableRecord.recent_timers`) acts no more, but sends every
    member's connection the table as it is, as a ``snapshot`` (:func:`.transaction.resend`):
    whatever the first delivery could not send is seen, and no version is pushed twice as an
    ``update``."""
    fired = 0
    lag: int | None = None
    duplicate = False

    def change(record: TableRecord, now: int) -> Outcome:
        nonlocal fired, duplicate, lag
        fired = 0
        horizon = now if token is None else now + WAKE_TOLERANCE_MS
        wake = next((t for t in record.timers if t.kind is TimerKind.WAKE), None)
        pending = None if token is None else next(
            (t for t in record.timers if t.kind is not TimerKind.WAKE and t.token == token),
            None)
        if token is None:  # the sweep takes over an overdue wake-up (lost, or late)
            ours = wake is not None and wake.due_ms <= horizon
        else:  # the armed execution fired: its time came, or its timer is still pending
            ours = (wake is not None and wake.token == arming.WAKE_PREFIX + token
                    and (wake.due_ms <= horizon or pending is not None))
        if pending is None and not ours and (
                token is not None or not deadlines.due(record, horizon)):
            duplicate = token is not None and token in record.recent_timers
            raise NoOp()  # stale, duplicated, or not yet time
        lag = _lag(record, now, horizon, wake if ours else None, pending)
        if ours and wake is not None:
            record.timers.remove(wake)  # consumed: the write re-arms (arming.arm)
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
        transaction.mutate(deps, table_id, change, catch_up=False)
    except (NoOp, TableNotFound):
        if duplicate:
            deps.count("TimersDuplicated", 1)
            transaction.resend(deps, transaction.load(deps, table_id))
        return Woken(0)
    return Woken(fired, lag)


def _lag(record: TableRecord, now: int, horizon: int, wake: Timer | None,
         pending: Timer | None) -> int | None:
    """How late the oldest deadline about to act is (ms, at least 0): the timer the execution
    named, the overdue wake-up taken over, or a timer due; sweep-only timers are left out (the
    sweep is their clock). ``None`` when none of those is overdue."""
    due = [t.due_ms for t in record.timers
           if t.due_ms <= horizon and t.kind not in arming.SWEEP_ONLY
           and (t.kind is not TimerKind.WAKE or t is wake)]
    if pending is not None:
        due.append(pending.due_ms)
    return max(0, now - min(due)) if due else None
