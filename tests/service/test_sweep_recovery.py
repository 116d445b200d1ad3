"""Issue 15, item 3: the sweep after a mass loss of timer executions, on the in-memory adapters.

No cap but time (every due table is read; a run stops starting tables when the invocation has
no time for a whole attempt, and the next run goes on), tables woken on a thread pool, one
failing table never stopping the others, waking idempotent (a second or overlapping run does
nothing), and the two figures the alarms watch: ``TimerLag`` (fired minus due) and
``SweepStuckTables``. The same on moto DynamoDB and Step Functions with 2,000 tables:
``tests/integration/test_sweep_scale_on_moto.py``.
"""

from __future__ import annotations

import math
from typing import Any

from naiko_service import bootstrap
from naiko_service.ports import UnreadableTable
from naiko_service.records import TableRecord, TableSettings, Timer, TimerKind
from naiko_service.usecases import arming, timers
from naiko_testing import table
from service_testing import Harness, harness


def lost_table(table_id: str, due_ms: int, *, marker_due_ms: int | None = None) -> TableRecord:
    """Three players between hands; the pause ended at *due_ms*, its wake-up never came."""
    settings = TableSettings(name=table_id, host="p0", min_buy_in=40, max_buy_in=200,
                             decision_ms=600_000)
    marker = due_ms if marker_due_ms is None else marker_due_ms
    return TableRecord(table_id, 1, settings, table([200] * 3), due_ms - 60_000,
                       timers=[Timer("next_hand:1", TimerKind.NEXT_HAND, due_ms),
                               Timer(arming.WAKE_PREFIX + "next_hand:1", TimerKind.WAKE, marker)])


def lose(h: Harness, count: int, overdue_ms: int = 90_000) -> list[str]:
    ids = [f"t{i:05d}" for i in range(count)]
    for table_id in ids:
        h.store.create(lost_table(table_id, h.clock.now - overdue_ms))
    return ids


def measured(h: Harness) -> list[tuple[str, float]]:
    values: list[tuple[str, float]] = []
    h.service.deps.measure = lambda name, value: values.append((name, value))
    return values


class Budget:
    """The invocation's remaining time: plenty until *tables* wake-ups were armed, then none."""

    def __init__(self, h: Harness, tables: int):
        self.h, self.tables = h, tables

    def remaining_ms(self) -> float:
        return math.inf if len(self.h.scheduler.scheduled) < self.tables else 0.0


def test_r8_1_the_sweep_has_no_cap_of_1000_tables() -> None:
    h = harness()
    ids = lose(h, 1_200)
    assert h.service.sweep() == 1_200
    armed = [table_id for table_id, *_ in h.scheduler.scheduled]
    assert sorted(armed) == ids  # one wake-up each, no table twice
    assert h.counters["SweepDueTables"] == 1_200
    assert all(h.store.load(t).state.hand is not None for t in ids[::100])


def test_r8_1_a_run_out_of_time_stops_and_the_next_run_goes_on() -> None:
    h = harness()
    ids = lose(h, 50)
    h.service.deps.deadline = Budget(h, 30)
    assert h.service.sweep() == 30
    assert h.counters["SweepOutOfTime"] == 1
    h.service.deps.deadline = Budget(h, 10_000)
    h.clock.advance(60_000)  # the next period
    assert h.service.sweep() == 20
    assert sorted(t for t, *_ in h.scheduler.scheduled) == ids


def test_r8_1_the_threads_keep_the_invocation_s_deadline() -> None:
    """The Lambda deadline is a context variable (``bootstrap.InvocationDeadline``): the
    pool's threads must see the invocation's, not "no limit"."""
    h = harness()
    h.service.deps.sweep_workers = 4
    h.service.deps.deadline = bootstrap.InvocationDeadline()
    lose(h, 12)
    token = bootstrap._remaining.set(lambda: 1_000.0)  # 1 s left: no time for an attempt
    try:
        assert h.service.sweep() == 0
    finally:
        bootstrap._remaining.reset(token)
    assert h.counters["SweepOutOfTime"] == 1 and h.scheduler.scheduled == []
    assert h.service.sweep() == 12  # outside an invocation: no limit


def test_r8_1_the_sweep_wakes_tables_in_parallel_and_each_once() -> None:
    h = harness()
    h.service.deps.sweep_workers = 8
    ids = lose(h, 400)
    assert h.service.sweep() == 400
    assert sorted(t for t, *_ in h.scheduler.scheduled) == ids
    assert h.counters["SweepStuckTables"] == 400


def test_r8_1_waking_is_idempotent_a_second_run_does_nothing() -> None:
    h = harness()
    h.service.deps.sweep_workers = 4
    lose(h, 40)
    assert h.service.sweep() == 40
    versions = {t: h.store.load(t).version for t in h.store._items}
    scheduled = len(h.scheduler.scheduled)
    assert h.service.sweep() == 0  # a retried, late or overlapping run
    assert len(h.scheduler.scheduled) == scheduled
    assert {t: h.store.load(t).version for t in h.store._items} == versions


def test_r8_6_one_failing_table_does_not_stop_the_others() -> None:
    h = harness()
    h.service.deps.sweep_workers = 4
    ids = lose(h, 20)
    warnings: list[tuple[str, dict[str, Any]]] = []
    h.service.deps.warn = lambda message, fields: warnings.append((message, fields))
    real_load = h.store.load

    def load(table_id: str) -> TableRecord:
        if table_id == ids[7]:
            raise UnreadableTable(table_id, 1, None)
        return real_load(table_id)

    h.store.load = load  # type: ignore[method-assign]
    assert h.service.sweep() == 19
    assert h.counters["SweepFailures"] == 1
    assert ("the sweep could not wake a table",
            {"table_id": ids[7], "error": "UnreadableTable"}) in warnings


def test_r8_1_stuck_tables_and_timer_lag_are_measured() -> None:
    h = harness()
    now = h.clock.now
    # Its wake-up (armed for an earlier deadline, the turn ended early) was lost: stuck since.
    h.store.create(lost_table("lost", now - 90_000, marker_due_ms=now - 95_000))
    h.store.create(lost_table("late", now - 500))  # its wake-up is on its way: not stuck
    values = measured(h)
    assert h.service.sweep() == 2
    assert h.counters["SweepStuckTables"] == 1
    assert values == [("SweepMaxLag", 95_000)]

    # An execution that fires 1.2 s after its deadline: TimerLag 1,200 ms.
    h.clock.advance(1_000)
    record = h.store.load("lost")
    wake = next(t for t in record.timers if t.kind is TimerKind.WAKE)
    h.clock.now = wake.due_ms + 1_200
    values.clear()
    assert h.service.timer_fired("lost", wake.token.removeprefix(arming.WAKE_PREFIX))
    assert values == [("TimerLag", 1_200)]


def test_a_table_with_only_a_sweep_only_timer_is_not_stuck() -> None:
    h = harness()
    settings = TableSettings(name="empty", host="p0", min_buy_in=40, max_buy_in=200)
    h.store.create(TableRecord("empty", 1, settings, table([None] * 3), 0, empty_since=0,
                               timers=[Timer("idle_close:0", TimerKind.IDLE_CLOSE,
                                             h.clock.now - 50_000)]))
    values = measured(h)
    assert h.service.sweep() == 1
    assert h.counters["SweepStuckTables"] == 0 and values == []
    assert timers.STUCK_AFTER_MS > timers.WAKE_TOLERANCE_MS
