"""The timer queue's consumer (:mod:`naiko_service.timer_queue`) with fakes, and the delay the
scheduler puts on a wake-up (:func:`naiko_service.aws.scheduler.queue_delay_s`).

``handle_records`` sorts each record of a batch into exactly one of: fired, stale, early (sent
on), retried (sent again once after :data:`RETRY_DELAY_S`) or failed (reported in
``batchItemFailures``: malformed, or failed twice, or could not be sent on)."""

from __future__ import annotations

import base64
import json
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko_service import bootstrap
from naiko_service.aws.scheduler import (
    QUEUE_MAX_DELAY_S,
    DelayQueueScheduler,
    StepFunctionsScheduler,
    queue_delay_s,
)
from naiko_service.timer_queue import (
    MAX_ATTEMPTS,
    RETRY_DELAY_S,
    BatchResult,
    TimerMessage,
    handle_records,
    message_body,
    parse_body,
)
from naiko_service.usecases.timers import WAKE_TOLERANCE_MS

NOW = 1_800_000_000_000


def record(message_id: str, body: str) -> dict[str, Any]:
    """An SQS record as the event source mapping delivers it."""
    return {"messageId": message_id, "receiptHandle": f"rh-{message_id}", "body": body,
            "eventSource": "aws:sqs"}


def wakeup(message_id: str, table_id: str, due_ms: int = NOW, attempt: int = 0,
           token: str | None = None) -> dict[str, Any]:
    return record(message_id, message_body(table_id, token or f"decision:{table_id}", due_ms,
                                           "decision", attempt))


@dataclass
class Fakes:
    """``fire``/``requeue``/``count``/``warn`` recording what they were given."""

    outcomes: dict[str, bool | Exception] = field(default_factory=dict)
    """table_id -> what its wake-up does (default: acts)."""
    requeue_fails: bool = False
    fired: list[list[tuple[str, str]]] = field(default_factory=list)
    requeued: list[tuple[TimerMessage, int | None]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    warnings: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def fire(self, wakeups: list[tuple[str, str]]) -> list[bool | Exception]:
        self.fired.append(list(wakeups))
        return [self.outcomes.get(table_id, True) for table_id, _ in wakeups]

    def requeue(self, message: TimerMessage, delay_s: int | None) -> None:
        if self.requeue_fails:
            raise ConnectionError("the queue is down")
        self.requeued.append((message, delay_s))

    def count(self, name: str, value: int) -> None:
        self.counts[name] += value

    def warn(self, message: str, fields: dict[str, Any]) -> None:
        self.warnings.append((message, fields))

    def handle(self, records: list[dict[str, Any]], now: int = NOW) -> BatchResult:
        return handle_records(records, fire=self.fire, requeue=self.requeue,
                              now_ms=lambda: now, count=self.count, warn=self.warn)

    @property
    def fired_tables(self) -> list[str]:
        return [table_id for batch in self.fired for table_id, _ in batch]


MALFORMED = [
    "not json",
    "",
    "[1, 2]",
    json.dumps({"table_id": "t1", "token": "decision:1", "kind": "decision"}),  # no due_ms
    json.dumps({"token": "decision:1", "kind": "decision", "due_ms": NOW}),  # no table_id
    json.dumps({"table_id": "", "token": "decision:1", "kind": "decision", "due_ms": NOW}),
    json.dumps({"table_id": "t1", "token": "decision:1", "kind": "decision", "due_ms": True}),
    json.dumps({"table_id": "t1", "token": "decision:1", "kind": "decision", "due_ms": -1}),
    json.dumps({"table_id": "t1", "token": "decision:1", "kind": "decision",
                "due_ms": 1.5}),
    json.dumps({"table_id": "t1", "token": 7, "kind": "decision", "due_ms": NOW}),
    json.dumps({"table_id": "t1", "token": "decision:1", "kind": "decision", "due_ms": NOW,
                "attempt": -1}),
]


@pytest.mark.parametrize("body", MALFORMED)
def test_a_malformed_body_is_reported_and_nothing_fires(body: str) -> None:
    fakes = Fakes()
    result = fakes.handle([record("m1", body)])
    assert result.failed == ("m1",)
    assert result.response() == {"batchItemFailures": [{"itemIdentifier": "m1"}]}
    assert fakes.fired == [] and fakes.requeued == []
    assert fakes.counts == Counter({"TimerMessagesMalformed": 1})
    [(_, fields)] = fakes.warnings
    assert fields["message_id"] == "m1" and body not in fields.values()  # never the body


def test_a_body_round_trips() -> None:
    body = message_body("t1", "window:3.2", NOW + 5, "window", 1)
    assert parse_body(body) == TimerMessage("t1", "window:3.2", "window", NOW + 5, 1)
    assert parse_body(message_body("t1", "x:1", 0, "decision")).attempt == 0


def test_an_early_message_is_sent_on_until_its_time_and_not_fired() -> None:
    fakes = Fakes()
    result = fakes.handle([wakeup("m1", "t1", due_ms=NOW + WAKE_TOLERANCE_MS + 1)])
    assert result == BatchResult(early=1)
    assert result.response() == {"batchItemFailures": []}
    [(message, delay)] = fakes.requeued
    assert delay is None and message.table_id == "t1" and message.attempt == 0
    assert message.due_ms == NOW + WAKE_TOLERANCE_MS + 1
    assert fakes.fired == []
    assert fakes.counts == Counter({"TimerMessagesEarly": 1})


@pytest.mark.parametrize("due_ms", [NOW - 60_000, NOW, NOW + 1, NOW + WAKE_TOLERANCE_MS])
def test_a_due_message_fires_within_the_tolerance(due_ms: int) -> None:
    fakes = Fakes()
    result = fakes.handle([wakeup("m1", "t1", due_ms=due_ms, token="decision:1.2")])
    assert result == BatchResult(fired=1)
    assert fakes.fired == [[("t1", "decision:1.2")]]
    assert fakes.requeued == []
    assert fakes.counts == Counter({"TimersFired": 1})


def test_a_stale_wakeup_is_counted_stale_and_not_reported() -> None:
    fakes = Fakes(outcomes={"t1": False})
    assert fakes.handle([wakeup("m1", "t1")]) == BatchResult(stale=1)
    assert fakes.counts == Counter({"TimersStale": 1})


def test_a_raising_wakeup_is_sent_again_once_after_the_retry_delay_and_not_reported() -> None:
    fakes = Fakes(outcomes={"t1": RuntimeError("DynamoDB throttled")})
    result = fakes.handle([wakeup("m1", "t1", due_ms=NOW - 5)])
    assert result == BatchResult(retried=1)
    assert result.response() == {"batchItemFailures": []}
    [(message, delay)] = fakes.requeued
    assert message == TimerMessage("t1", "decision:t1", "decision", NOW - 5, 1)
    assert delay == RETRY_DELAY_S == 2
    assert fakes.counts == Counter({"TimersRetried": 1})
    [(_, fields)] = fakes.warnings
    assert fields["error"] == "RuntimeError" and fields["attempt"] == 0


def test_the_retry_failing_too_is_reported_and_counted() -> None:
    assert MAX_ATTEMPTS == 2
    fakes = Fakes(outcomes={"t1": RuntimeError("still throttled")})
    result = fakes.handle([wakeup("m1", "t1", attempt=1)])
    assert result == BatchResult(failed=("m1",))
    assert fakes.requeued == []
    assert fakes.counts == Counter({"TimerFailures": 1})


def test_a_failed_wakeup_that_cannot_be_sent_again_is_reported() -> None:
    fakes = Fakes(outcomes={"t1": RuntimeError("boom")}, requeue_fails=True)
    result = fakes.handle([wakeup("m1", "t1")])
    assert result == BatchResult(failed=("m1",))
    assert fakes.counts == Counter({"TimerFailures": 1})
    assert [m for m, _ in fakes.warnings] == ["a wake-up failed",
                                              "could not send a failed wake-up again"]


def test_an_early_message_that_cannot_be_sent_on_is_reported() -> None:
    fakes = Fakes(requeue_fails=True)
    result = fakes.handle([wakeup("m1", "t1", due_ms=NOW + 60_000)])
    assert result == BatchResult(failed=("m1",))
    assert fakes.fired == []
    assert fakes.counts == Counter({"TimerRequeueFailures": 1})


def test_a_mixed_batch_keeps_each_record_s_id_and_fires_the_due_ones_in_one_call() -> None:
    fakes = Fakes(outcomes={"t3": False, "t4": RuntimeError("a"), "t5": RuntimeError("b")})
    records = [wakeup("m1", "t1"),
               record("m2", "garbage"),
               wakeup("m3", "t3"),
               wakeup("m4", "t4"),
               wakeup("m5", "t5", attempt=1),
               wakeup("m6", "t6", due_ms=NOW + 90_000),
               wakeup("m7", "t7"),
               record("m8", json.dumps({"table_id": "t8"}))]
    result = fakes.handle(records)
    assert fakes.fired == [[("t1", "decision:t1"), ("t3", "decision:t3"),
                            ("t4", "decision:t4"), ("t5", "decision:t5"),
                            ("t7", "decision:t7")]]  # one call, in the records' order
    assert result == BatchResult(fired=2, stale=1, early=1, retried=1,
                                 failed=("m2", "m8", "m5"))
    assert result.response() == {"batchItemFailures": [
        {"itemIdentifier": "m2"}, {"itemIdentifier": "m8"}, {"itemIdentifier": "m5"}]}
    assert [(m.table_id, m.attempt, d) for m, d in fakes.requeued] == [
        ("t6", 0, None), ("t4", 1, RETRY_DELAY_S)]
    assert fakes.counts == Counter({"TimerMessagesMalformed": 2, "TimerMessagesEarly": 1,
                                    "TimersRetried": 1, "TimerFailures": 1,
                                    "TimersFired": 2, "TimersStale": 1})


def test_an_empty_batch_fires_nothing() -> None:
    fakes = Fakes()
    assert fakes.handle([]) == BatchResult()
    assert fakes.fired == [] and fakes.counts == Counter()


# -- every record lands in exactly one bucket ------------------------------------------------

_KINDS = st.sampled_from(["malformed", "early", "due"])
_OUTCOMES = st.sampled_from(["acted", "stale", "raises"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_KINDS, _OUTCOMES, st.integers(0, 1),
                          st.integers(-WAKE_TOLERANCE_MS * 5, WAKE_TOLERANCE_MS * 5)),
                max_size=10),
       st.booleans())
def test_every_record_is_exactly_one_of_fired_stale_early_retried_or_failed(
        batch: list[tuple[str, str, int, int]], requeue_fails: bool) -> None:
    outcomes: dict[str, bool | Exception] = {}
    records = []
    expected: dict[str, str] = {}
    for i, (kind, outcome, attempt, offset) in enumerate(batch):
        message_id, table_id = f"m{i}", f"t{i}"
        outcomes[table_id] = RuntimeError("x") if outcome == "raises" else outcome == "acted"
        if kind == "malformed":
            records.append(record(message_id, MALFORMED[offset % len(MALFORMED)]))
            expected[message_id] = "failed"
            continue
        due = NOW + WAKE_TOLERANCE_MS + 1 + abs(offset) if kind == "early" \
            else NOW + min(offset, WAKE_TOLERANCE_MS)
        records.append(wakeup(message_id, table_id, due_ms=due, attempt=attempt))
        if kind == "early":
            expected[message_id] = "failed" if requeue_fails else "early"
        elif outcome != "raises":
            expected[message_id] = "fired" if outcome == "acted" else "stale"
        else:
            expected[message_id] = "retried" if attempt == 0 and not requeue_fails else "failed"
    fakes = Fakes(outcomes=outcomes, requeue_fails=requeue_fails)
    result = fakes.handle(records)
    tally = Counter(expected.values())
    assert (result.fired, result.stale, result.early, result.retried, len(result.failed)) == (
        tally["fired"], tally["stale"], tally["early"], tally["retried"], tally["failed"])
    assert result.fired + result.stale + result.early + result.retried + len(result.failed) \
        == len(records)
    assert sorted(result.failed) == sorted(m for m, bucket in expected.items()
                                           if bucket == "failed")
    assert len(set(result.failed)) == len(result.failed)
    # only the due ones fire; nothing malformed or early reaches the tables
    fired = set(fakes.fired_tables)
    assert fired == {f"t{m[1:]}" for m, b in expected.items()
                     if b in ("fired", "stale", "retried")
                     or (b == "failed" and batch[int(m[1:])][0] == "due")}
    counted = fakes.counts
    assert counted["TimersFired"] == result.fired and counted["TimersStale"] == result.stale
    assert counted["TimerMessagesEarly"] == result.early
    assert counted["TimersRetried"] == result.retried
    malformed = sum(1 for kind, *_ in batch if kind == "malformed")
    unsent_early = sum(1 for kind, *_ in batch if kind == "early") if requeue_fails else 0
    assert counted["TimerMessagesMalformed"] == malformed
    assert counted["TimerRequeueFailures"] == unsent_early
    assert counted["TimerFailures"] == len(result.failed) - malformed - unsent_early


# -- queue_delay_s ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2_000_000_000_000), st.integers(-3_600_000, 3_600_000))
def test_a_queued_wakeup_is_never_delivered_early_nor_more_than_a_second_late(
        now: int, wait_ms: int) -> None:
    delay = queue_delay_s(now + wait_ms, now)
    assert isinstance(delay, int) and 0 <= delay <= QUEUE_MAX_DELAY_S
    if 0 <= wait_ms <= QUEUE_MAX_DELAY_S * 1000:
        assert delay * 1000 >= wait_ms  # never before it is due
        assert delay * 1000 - wait_ms < 1000  # at most a second late
    elif wait_ms < 0:
        assert delay == 0
    else:
        assert delay == QUEUE_MAX_DELAY_S  # sent on again when it arrives early


@pytest.mark.parametrize(("wait_ms", "delay"), [(0, 0), (1, 1), (999, 1), (1000, 1),
                                                (1001, 2), (20_000, 20), (900_000, 900),
                                                (900_001, 900), (-1, 0)])
def test_queue_delay_examples(wait_ms: int, delay: int) -> None:
    assert queue_delay_s(NOW + wait_ms, NOW) == delay


# -- DelayQueueScheduler with fakes ----------------------------------------------------------


@dataclass
class FakeSqs:
    sent: list[dict[str, Any]] = field(default_factory=list)

    def send_message(self, **kwargs: Any) -> dict[str, str]:
        self.sent.append(kwargs)
        return {"MessageId": str(len(self.sent))}


@dataclass
class FakeLongWaits:
    scheduled: list[tuple[str, str, int, str]] = field(default_factory=list)

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        self.scheduled.append((table_id, token, due_ms, kind))


def test_the_scheduler_sends_waits_up_to_15_minutes_and_hands_on_longer_ones() -> None:
    sqs, long_waits = FakeSqs(), FakeLongWaits()
    scheduler = DelayQueueScheduler(sqs, "https://q", long_waits, now_ms=lambda: NOW)
    scheduler.schedule("t1", "decision:1.1", NOW + 20_500, "decision")
    scheduler.schedule("t1", "sit_out_limit:p:1", NOW + 900_000, "sit_out_limit")
    scheduler.schedule("t1", "level:2", NOW + 900_001, "level")
    assert [(m["DelaySeconds"], json.loads(m["MessageBody"])["token"]) for m in sqs.sent] == [
        (21, "decision:1.1"), (900, "sit_out_limit:p:1")]
    assert all(m["QueueUrl"] == "https://q" for m in sqs.sent)
    assert parse_body(sqs.sent[0]["MessageBody"]) == TimerMessage(
        "t1", "decision:1.1", "decision", NOW + 20_500, 0)
    assert long_waits.scheduled == [("t1", "level:2", NOW + 900_001, "level")]


def test_without_long_waits_a_long_wait_goes_on_the_queue_at_the_longest_delay() -> None:
    sqs = FakeSqs()
    DelayQueueScheduler(sqs, "https://q", now_ms=lambda: NOW).schedule(
        "t1", "level:2", NOW + 3_600_000, "level")
    assert sqs.sent[0]["DelaySeconds"] == QUEUE_MAX_DELAY_S


def test_a_retry_is_sent_with_its_own_delay_and_attempt() -> None:
    sqs = FakeSqs()
    scheduler = DelayQueueScheduler(sqs, "https://q", now_ms=lambda: NOW)
    scheduler.send("t1", "decision:1.1", NOW - 10, "decision", attempt=1,
                   delay_s=RETRY_DELAY_S)
    scheduler.send("t1", "decision:1.1", NOW, "decision", delay_s=5_000)  # clipped
    assert [m["DelaySeconds"] for m in sqs.sent] == [RETRY_DELAY_S, QUEUE_MAX_DELAY_S]
    assert parse_body(sqs.sent[0]["MessageBody"]).attempt == 1


# -- the bootstrap's choice of transport -----------------------------------------------------

_ENV = {"TABLES_TABLE": "naiko-test-tables", "ACCOUNTS_TABLE": "naiko-test-accounts",
        "LEDGER_TABLE": "naiko-test-ledger", "CONNECTIONS_TABLE": "naiko-test-connections",
        "STATE_KEY": base64.b64encode(bytes(range(32))).decode(),
        "WEBSOCKET_ENDPOINT": "https://abcdef1234.execute-api.us-east-1.amazonaws.com/test",
        "TIMER_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/123456789012/naiko-test-timers",
        "TIMER_STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:x",
        "TIMER_LONG_STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:y"}


@pytest.fixture
def region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")


@pytest.mark.usefixtures("region")
def test_the_queue_is_the_default_transport_with_the_standard_machine_for_long_waits() -> None:
    config = bootstrap.Config.from_env(_ENV)
    assert config.timer_transport == "queue"
    scheduler = bootstrap.build_service(config).deps.scheduler
    assert isinstance(scheduler, DelayQueueScheduler)
    assert scheduler.queue_url == _ENV["TIMER_QUEUE_URL"]
    assert scheduler.max_delay_s == QUEUE_MAX_DELAY_S
    assert isinstance(scheduler.long_waits, StepFunctionsScheduler)
    assert scheduler.long_waits.state_machine_arn == _ENV["TIMER_LONG_STATE_MACHINE_ARN"]
    assert scheduler.long_waits.long_state_machine_arn == _ENV["TIMER_LONG_STATE_MACHINE_ARN"]


@pytest.mark.usefixtures("region")
def test_express_keeps_the_step_functions_path() -> None:
    config = bootstrap.Config.from_env({**_ENV, "TIMER_TRANSPORT": "express"})
    scheduler = bootstrap.build_service(config).deps.scheduler
    assert isinstance(scheduler, StepFunctionsScheduler)
    assert scheduler.state_machine_arn == _ENV["TIMER_STATE_MACHINE_ARN"]
    assert scheduler.long_state_machine_arn == _ENV["TIMER_LONG_STATE_MACHINE_ARN"]


def test_an_unknown_transport_is_refused() -> None:
    with pytest.raises(bootstrap.ConfigurationError, match="TIMER_TRANSPORT"):
        bootstrap.Config.from_env({**_ENV, "TIMER_TRANSPORT": "carrier-pigeon"})


# -- the batch's own failure, and the batch's threads ------------------------------------------


def test_a_batch_whose_firing_machinery_raises_retries_each_due_wakeup_once_and_sends_early_ones_on_once(  # noqa: E501
        ) -> None:
    """Review finding: a whole-batch failure after the early records were sent on made SQS
    deliver the batch again, and the early ones were sent on a second time."""
    fakes = Fakes()

    def broken(wakeups: list[tuple[str, str]]) -> list[bool | Exception]:
        raise RuntimeError("the pool could not start")

    records = [wakeup("m1", "t1"), wakeup("m2", "t2", due_ms=NOW + 60_000),
               wakeup("m3", "t3", attempt=1)]
    result = handle_records(records, fire=broken, requeue=fakes.requeue, now_ms=lambda: NOW,
                            count=fakes.count, warn=fakes.warn)
    # nothing raised: the early one was sent on once, the first-attempt one retried alone,
    # the one already retried reported alone
    assert result == BatchResult(early=1, retried=1, failed=("m3",))
    assert [(m.table_id, m.attempt, d) for m, d in fakes.requeued] == [
        ("t2", 0, None), ("t1", 1, RETRY_DELAY_S)]
    assert fakes.counts == Counter({"TimerMessagesEarly": 1, "TimersRetried": 1,
                                    "TimerFailures": 1})


@pytest.mark.parametrize("sweep_workers, threads", [(1, {"MainThread"}), (32, None)])
def test_timers_fired_keeps_to_the_deps_workers_and_runs_on_start_in_each_wakeups_context(
        sweep_workers: int, threads: set[str] | None) -> None:
    """A deterministic run (``sweep_workers`` 1, the in-memory adapters) fires a batch on the
    caller's thread, in order; otherwise on the pool. ``on_start`` (the handler's log keys)
    runs in each wake-up's own copy of the context, so keys never leak between wake-ups."""
    import contextvars

    from naiko_service.usecases import timers

    key: contextvars.ContextVar[str] = contextvars.ContextVar("key", default="-")
    seen: list[tuple[str, str, str]] = []

    def fired(deps: Any, table_id: str, token: str) -> bool:
        seen.append((table_id, key.get(), threading.current_thread().name))
        return True

    deps = replace_free_deps(sweep_workers)
    wakeups = [(f"t{i}", f"decision:{i}") for i in range(5)]
    with mock.patch.object(timers, "timer_fired", fired):
        results = timers.timers_fired(deps, wakeups,
                                      on_start=lambda table_id, token: key.set(table_id))
    assert results == [True] * 5
    assert sorted((t, k) for t, k, _ in seen) == [(f"t{i}", f"t{i}") for i in range(5)]
    assert key.get() == "-"  # the caller's context untouched
    names = {name for *_, name in seen}
    if threads is not None:
        assert names == threads and [t for t, *_ in seen] == [t for t, _ in wakeups]
    else:
        assert all(name.startswith("wakeups") for name in names)


def replace_free_deps(sweep_workers: int) -> Any:
    """The fields of ``Deps`` that ``timers_fired`` reads (``dataclasses.replace`` needs a
    dataclass: a real ``Deps`` on the in-memory adapters)."""
    from naiko_service.memory import MemoryAccounts, MemoryConnections, MemoryTableStore
    from naiko_service.usecases import Deps

    accounts = MemoryAccounts()
    return Deps(tables=MemoryTableStore(accounts=accounts), accounts=accounts,
                connections=MemoryConnections(), gateway=mock.Mock(), scheduler=mock.Mock(),
                clock=mock.Mock(), sweep_workers=sweep_workers)


def test_a_batch_s_wakeups_never_enter_the_metric_hooks_at_the_same_time() -> None:
    """The metric hooks append to one buffer (Powertools' metrics): the batch's threads must
    take turns in them (the same mechanism wakes the sweep's tables)."""
    import time as _time

    from naiko_service.usecases import timers

    inside = threading.Lock()
    overlaps: list[str] = []

    def hook(name: str, value: float) -> None:
        if not inside.acquire(blocking=False):
            overlaps.append(name)
            return
        try:
            _time.sleep(0.002)
        finally:
            inside.release()

    def fired(deps: Any, table_id: str, token: str) -> bool:
        for _ in range(5):
            deps.count("TableWrites", 1)
            deps.measure("TimerLag", 1.0)
        return True

    deps = replace_free_deps(10)
    deps = type(deps)(**{**{f: getattr(deps, f) for f in deps.__dataclass_fields__},
                         "count": hook, "measure": hook})
    with mock.patch.object(timers, "timer_fired", fired):
        assert timers.timers_fired(deps, [(f"t{i}", "x") for i in range(10)]) == [True] * 10
    assert overlaps == []
