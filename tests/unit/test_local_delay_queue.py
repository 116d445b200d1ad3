"""The local stack's timer queue (:class:`naiko_local.timers.LocalDelayQueue`): SQS's delays,
batches of up to 10, partial batch failures delivered again after the visibility timeout and
moved to the dead letters after ``max_receives`` receives, as ``template.yaml`` configures the
real ``TimerQueue``. Real time, with short delays (the queue's thread waits on the clock)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from naiko_local.timers import LOCAL_QUEUE_URL, LocalDelayQueue
from naiko_service.aws.scheduler import DelayQueueScheduler
from naiko_service.timer_queue import parse_body


class Lambda:
    """The timer function as the queue sees it: records every event, answers with the
    ``batchItemFailures`` that :attr:`fail` picks (or raises when :attr:`crash`)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.times: list[float] = []
        self.fail: Callable[[dict[str, Any]], bool] = lambda record: False
        self.crash = False
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.events.append(event)
            self.times.append(time.monotonic())
        if self.crash:
            raise RuntimeError("the function crashed")
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]}
                                      for r in event["Records"] if self.fail(r)]}

    def bodies(self) -> list[str]:
        with self.lock:
            return [r["body"] for e in self.events for r in e["Records"]]


@pytest.fixture
def function() -> Lambda:
    return Lambda()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    executor = ThreadPoolExecutor(2, thread_name_prefix="test-lambda")
    yield executor
    executor.shutdown(wait=True)


def queue_of(function: Lambda, pool: ThreadPoolExecutor, **kwargs: Any) -> LocalDelayQueue:
    return LocalDelayQueue(function, executor=pool, **kwargs)


def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def send(queue: LocalDelayQueue, body: str, delay: int = 0) -> str:
    return queue.send_message(QueueUrl=LOCAL_QUEUE_URL, MessageBody=body, DelaySeconds=delay)[
        "MessageId"]


def test_a_message_is_delivered_after_its_delay_not_before(function: Lambda,
                                                           pool: ThreadPoolExecutor) -> None:
    queue = queue_of(function, pool).start()
    try:
        sent = time.monotonic()
        send(queue, "later", delay=1)
        send(queue, "now")
        until(lambda: "now" in function.bodies())
        assert function.bodies() == ["now"]  # the delayed one waits
        assert [m.body for m in queue.waiting()] == ["later"]
        until(lambda: "later" in function.bodies())
        assert function.times[-1] - sent >= 0.99
        [event] = function.events[-1:]
        [item] = event["Records"]
        assert item["body"] == "later" and item["eventSource"] == "aws:sqs"
        assert item["attributes"]["ApproximateReceiveCount"] == "1"
        assert queue.stats["delivered"] == 2 and queue.waiting() == []
    finally:
        queue.stop()


def test_visible_messages_go_in_batches_of_at_most_10(function: Lambda,
                                                      pool: ThreadPoolExecutor) -> None:
    queue = queue_of(function, pool)
    ids = [send(queue, f"m{i}") for i in range(25)]
    queue.start()
    try:
        until(lambda: len(function.bodies()) == 25)
        assert sorted(len(e["Records"]) for e in function.events) == [5, 10, 10]
        assert sorted(r["messageId"] for e in function.events for r in e["Records"]) \
            == sorted(ids)
        assert len(set(ids)) == 25
        assert queue.stats["batches"] == 3
    finally:
        queue.stop()


def test_a_reported_failure_comes_back_after_the_visibility_timeout_then_dies(
        function: Lambda, pool: ThreadPoolExecutor) -> None:
    function.fail = lambda record: record["body"] == "bad"
    queue = queue_of(function, pool, visibility_seconds=0.2, max_receives=3).start()
    try:
        send(queue, "bad")
        send(queue, "good")
        until(lambda: len(queue.dead_letters) == 1)
        assert function.bodies().count("bad") == 3 and function.bodies().count("good") == 1
        bad_times = [t for e, t in zip(function.events, function.times, strict=True)
                     if e["Records"][0]["body"] == "bad"]
        assert all(b - a >= 0.19 for a, b in zip(bad_times, bad_times[1:], strict=False))
        receives = [r["attributes"]["ApproximateReceiveCount"] for e in function.events
                    for r in e["Records"] if r["body"] == "bad"]
        assert receives == ["1", "2", "3"]
        [dead] = queue.dead_letters
        assert dead.body == "bad" and dead.receives == 3 and dead.failed
        assert queue.waiting() == []
        assert queue.stats["dead"] == 1 and queue.stats["failed"] == 3
        time.sleep(0.3)
        assert function.bodies().count("bad") == 3  # never again
    finally:
        queue.stop()


def test_a_crashed_batch_fails_every_message_in_it(function: Lambda,
                                                   pool: ThreadPoolExecutor) -> None:
    function.crash = True
    queue = queue_of(function, pool, visibility_seconds=0.05, max_receives=2)
    send(queue, "a")
    send(queue, "b")
    queue.start()
    try:
        until(lambda: len(queue.dead_letters) == 2)
        assert sorted(function.bodies()) == ["a", "a", "b", "b"]
    finally:
        queue.stop()


@pytest.mark.parametrize("delay", [-1, 901])
def test_a_delay_beyond_15_minutes_is_refused(function: Lambda, pool: ThreadPoolExecutor,
                                              delay: int) -> None:
    queue = queue_of(function, pool)
    with pytest.raises(ValueError, match="DelaySeconds"):
        send(queue, "x", delay=delay)
    assert queue.waiting() == [] and queue.stats["sent"] == 0
    send(queue, "x", delay=900)  # the longest SQS takes
    assert [m.visible_ms for m in queue.waiting()] != []


def test_only_its_own_url_is_a_queue(function: Lambda, pool: ThreadPoolExecutor) -> None:
    with pytest.raises(ValueError, match="no local queue"):
        queue_of(function, pool).send_message(QueueUrl="https://elsewhere", MessageBody="x")


def test_the_real_scheduler_sends_to_it(function: Lambda, pool: ThreadPoolExecutor) -> None:
    queue = queue_of(function, pool)
    now = int(time.time() * 1000)
    scheduler = DelayQueueScheduler(queue, LOCAL_QUEUE_URL, now_ms=lambda: now)
    scheduler.schedule("t1", "decision:1.1", now + 20_000, "decision")
    [message] = queue.waiting()
    assert parse_body(message.body).token == "decision:1.1"
    assert message.wakeup["table_id"] == "t1"
    assert 19_000 <= message.visible_ms - now <= 21_000
    assert json.loads(message.body)["attempt"] == 0
