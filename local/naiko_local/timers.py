""":mod:`naiko_local.timers` runs table timers on this machine in place of Step Functions.

:class:`LocalTimers` implements the service's :class:`~naiko_service.ports.Scheduler` port with
the semantics of the timer state machines in ``template.yaml``:

* ``schedule(table_id, token, due_ms, kind)`` is a ``StartExecution``: at ``due_ms`` the real
  timer handler (``functions/timer/app.py``) is invoked with ``{"table_id", "token"}``, on a
  worker thread, never on the caller's;
* an execution is named by ``(table_id, token)``: scheduling a pair that is still waiting is
  idempotent (one execution, the first deadline kept), like a repeated ``StartExecution`` with
  the same name; once it has fired, the same pair may be scheduled again (EXPRESS machines do
  not enforce names either), and the handler treats a stale token as a no-op anyway;
* a handler that raises is retried once after 2 s (the state machines' ``States.TaskFailed``
  retry), then given up (the sweep backs it up, as in AWS);
* nothing is ever cancelled: the service does not need it.

It also plays EventBridge for the sweep function: ``sweep()`` every *sweep_seconds*.

>>> import threading
>>> fired = []
>>> done = threading.Event()
>>> timers = LocalTimers(lambda event: (fired.append(event), done.set()))
>>> timers = timers.start()
>>> now = wall_clock_ms()
>>> timers.schedule("t1", "decision:1.0", now + 20, "decision")
>>> timers.schedule("t1", "decision:1.0", now + 5_000, "decision")  # the same execution
>>> done.wait(5)
True
>>> timers.stop()
>>> fired
[{'table_id': 't1', 'token': 'decision:1.0'}]
>>> timers.stats["duplicates"]
1
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("naiko_local.timers")

RETRY_DELAYS_S: tuple[float, ...] = (2.0,)
"""Waits before retrying a failed timer invocation (``States.TaskFailed``: 2 s, 1 attempt)."""


def wall_clock_ms() -> int:
    """Wall-clock milliseconds, the service's clock (``bootstrap.SystemClock``)."""
    return time.time_ns() // 1_000_000


@dataclass
class Execution:
    """One timer execution, as the history keeps it."""

    table_id: str
    token: str
    kind: str
    due_ms: int
    scheduled_ms: int
    fired_ms: int | None = None
    result: Any = None
    error: str | None = None
    attempts: int = 0


class _Loop:
    """A daemon thread running ``self._run`` under ``self._cond``, started and stopped once
    (what :class:`LocalTimers` and :class:`LocalDelayQueue` share); ``_run`` returns when it
    sees ``self._stopping``."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False

    def _run(self) -> None:
        raise NotImplementedError

    def _start_loop(self, name: str) -> None:
        """Start the thread unless it runs (call with ``self._cond`` held)."""
        if self._thread is None:
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name=name, daemon=True)
            self._thread.start()

    def _stop_loop(self) -> None:
        """Tell the thread to stop and wait for it (at most 5 s)."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)


class LocalTimers(_Loop):
    """The :class:`~naiko_service.ports.Scheduler` of the local stack.

    :param fire: Invokes the timer function with ``{"table_id", "token"}`` (the local stack
        passes the real handler of ``functions/timer/app.py``); called on a worker thread.
    :param sweep: Invokes the sweep function (``functions/sweep/app.py``), or ``None``.
    :param sweep_seconds: Period of *sweep* (``template.yaml`` says every minute).
    :param executor: Where invocations run (the stack's "Lambda" pool); a small pool of its
        own if ``None``.
    :param clock_ms: The clock deadlines are compared with (the service's clock).
    """

    def __init__(self, fire: Callable[[dict[str, Any]], Any], *,
                 sweep: Callable[[], Any] | None = None, sweep_seconds: float = 60.0,
                 executor: Executor | None = None,
                 clock_ms: Callable[[], int] = wall_clock_ms,
                 retry_delays: tuple[float, ...] = RETRY_DELAYS_S,
                 history: int = 2000):
        super().__init__()
        self._fire = fire
        self._sweep = sweep
        self.sweep_seconds = sweep_seconds
        self._own_executor = executor is None
        self._executor = executor or ThreadPoolExecutor(4, thread_name_prefix="lambda-timer")
        self._clock_ms = clock_ms
        self._retry_delays = retry_delays
        self._heap: list[tuple[int, int, str, Execution]] = []
        self._waiting: dict[tuple[str, str], Execution] = {}
        self._seq = itertools.count()
        self._next_sweep_ms: int | None = None
        self.history: deque[Execution] = deque(maxlen=history)
        """The latest executions that fired (oldest first)."""
        self.stats = {"scheduled": 0, "duplicates": 0, "fired": 0, "failed": 0, "retried": 0,
                      "sweeps": 0}

    # -- the port ----------------------------------------------------------------------------

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        """Start the execution for ``(table_id, token)`` unless one is already waiting."""
        key = (table_id, token)
        with self._cond:
            if key in self._waiting:
                self.stats["duplicates"] += 1
                return
            execution = Execution(table_id, token, kind, int(due_ms), self._clock_ms())
            self._waiting[key] = execution
            heapq.heappush(self._heap, (execution.due_ms, next(self._seq), "fire", execution))
            self.stats["scheduled"] += 1
            self._cond.notify()

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> LocalTimers:
        """Start the timer thread (idempotent)."""
        with self._cond:
            if self._thread is None and self._sweep is not None and self.sweep_seconds > 0:
                self._next_sweep_ms = self._clock_ms() + int(self.sweep_seconds * 1000)
            self._start_loop("naiko-local-timers")
        return self

    def stop(self) -> None:
        """Stop firing (waiting executions are dropped, as if the machine were deleted)."""
        self._stop_loop()
        if self._own_executor:
            self._executor.shutdown(wait=True, cancel_futures=True)

    def waiting(self) -> list[tuple[str, str, int]]:
        """``(table_id, token, due_ms)`` of every execution still waiting, soonest first."""
        with self._cond:
            return sorted(((e.table_id, e.token, e.due_ms) for e in self._waiting.values()),
                          key=lambda x: x[2])

    def sweep_now(self) -> None:
        """Run the sweep at once (on a worker thread)."""
        if self._sweep is not None:
            self._submit(self._run_sweep)

    # -- the timer thread --------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._stopping:
                        return
                    now = self._clock_ms()
                    wake = [due for due in (self._heap[0][0] if self._heap else None,
                                            self._next_sweep_ms) if due is not None]
                    if wake and min(wake) <= now:
                        break
                    timeout = (min(wake) - now) / 1000 if wake else None
                    self._cond.wait(timeout)
                due: list[tuple[str, Execution]] = []
                while self._heap and self._heap[0][0] <= now:
                    _, _, what, execution = heapq.heappop(self._heap)
                    if what == "fire":
                        self._waiting.pop((execution.table_id, execution.token), None)
                    due.append((what, execution))
                sweep = self._next_sweep_ms is not None and self._next_sweep_ms <= now
                if sweep:
                    self._next_sweep_ms = now + int(self.sweep_seconds * 1000)
            for _, execution in due:
                self._submit(functools.partial(self._run_execution, execution))
            if sweep:
                self._submit(self._run_sweep)

    def _submit(self, job: Callable[[], None]) -> None:
        try:
            self._executor.submit(job)
        except RuntimeError:  # the pool is shutting down with the stack
            log.debug("timer dropped: the executor is shut down")

    def _run_execution(self, execution: Execution) -> None:
        execution.attempts += 1
        execution.fired_ms = self._clock_ms()
        try:
            execution.result = self._fire({"table_id": execution.table_id,
                                           "token": execution.token})
            execution.error = None
        except Exception as error:  # the timer function failed: retry like the state machine
            execution.error = f"{type(error).__name__}: {error}"
            retry = execution.attempts - 1
            if retry < len(self._retry_delays) and not self._stopping:
                log.warning("timer %s of table %s failed (%s); retrying in %.0f s",
                            execution.token, execution.table_id, execution.error,
                            self._retry_delays[retry])
                with self._cond:
                    self.stats["retried"] += 1
                    due = self._clock_ms() + int(self._retry_delays[retry] * 1000)
                    heapq.heappush(self._heap, (due, next(self._seq), "retry", execution))
                    self._cond.notify()
                return
            log.error("timer %s of table %s failed: %s", execution.token, execution.table_id,
                      execution.error)
            with self._cond:
                self.stats["failed"] += 1
        with self._cond:
            self.stats["fired"] += 1
            self.history.append(execution)

    def _run_sweep(self) -> None:
        assert self._sweep is not None
        try:
            self._sweep()
        except Exception:
            log.exception("sweep failed")
        with self._cond:
            self.stats["sweeps"] += 1


# -- the timer queue ---------------------------------------------------------------------------

LOCAL_QUEUE_URL = "local://naiko-local-timers"
"""The local timer queue's URL (:class:`LocalDelayQueue` answers only ``send_message``)."""


@dataclass
class Delivery:
    """One message of the local timer queue, as its history keeps it."""

    message_id: str
    body: str
    visible_ms: int
    receives: int = 0
    delivered_ms: int | None = None
    failed: bool = False

    @property
    def wakeup(self) -> dict[str, Any]:
        """The wake-up the body carries (``{}`` if it is not JSON)."""
        try:
            value = json.loads(self.body)
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}


class LocalDelayQueue(_Loop):
    """``TimerQueue`` and its event source mapping, on this machine.

    An in-memory SQS standard queue with per-message delays: :meth:`send_message` takes the
    parameters of boto3's (``QueueUrl``, ``MessageBody``, ``DelaySeconds`` at most 900), so the
    service's real :class:`~naiko_service.aws.scheduler.DelayQueueScheduler` sends to it. A
    thread delivers messages as they become visible, in batches of up to *batch_size*, to
    *deliver* (the timer function) as an SQS event (``Records`` with ``messageId`` and
    ``body``), on the stack's Lambda pool; the ids in the answer's ``batchItemFailures`` (every
    id if it raised) become visible again after *visibility_seconds* and, after *max_receives*
    receives, go to :attr:`dead_letters`, as the template's redrive policy says (with a
    shorter visibility than the deployed 168 s: nobody waits for it here).

    :param deliver: Invokes the timer function with an SQS event; returns its answer.
    :param executor: Where deliveries run (the stack's "Lambda" pool).
    :param clock_ms: The clock delays are measured with (the service's clock).
    """

    def __init__(self, deliver: Callable[[dict[str, Any]], Any], *, executor: Executor,
                 clock_ms: Callable[[], int] = wall_clock_ms, batch_size: int = 10,
                 visibility_seconds: float = 5.0, max_receives: int = 5,
                 history: int = 2000):
        super().__init__()
        self._deliver = deliver
        self._executor = executor
        self._clock_ms = clock_ms
        self.batch_size = batch_size
        self.visibility_seconds = visibility_seconds
        self.max_receives = max_receives
        self._heap: list[tuple[int, int, Delivery]] = []
        self._seq = itertools.count()
        self._ids = itertools.count(1)
        self.history: deque[Delivery] = deque(maxlen=history)
        """The latest deliveries (oldest first)."""
        self.dead_letters: list[Delivery] = []
        """Messages that failed *max_receives* receives."""
        self.stats = {"sent": 0, "batches": 0, "delivered": 0, "failed": 0, "dead": 0}

    def send_message(self, *, QueueUrl: str, MessageBody: str,  # noqa: N803 - boto3's names
                     DelaySeconds: int = 0, **_: Any) -> dict[str, str]:
        """``SendMessage``: visible after *DelaySeconds* (0 to 900)."""
        if QueueUrl != LOCAL_QUEUE_URL:
            raise ValueError(f"no local queue {QueueUrl!r}")
        if not 0 <= DelaySeconds <= 900:
            raise ValueError(f"DelaySeconds must be 0 to 900, not {DelaySeconds}")
        message = Delivery(f"local-{next(self._ids)}", MessageBody,
                           self._clock_ms() + DelaySeconds * 1000)
        with self._cond:
            heapq.heappush(self._heap, (message.visible_ms, next(self._seq), message))
            self.stats["sent"] += 1
            self._cond.notify()
        return {"MessageId": message.message_id}

    def waiting(self) -> list[Delivery]:
        """Messages not delivered yet (or to be delivered again), soonest first."""
        with self._cond:
            return [m for _, _, m in sorted(self._heap, key=lambda entry: entry[:2])]

    def start(self) -> LocalDelayQueue:
        """Start delivering (idempotent)."""
        with self._cond:
            self._start_loop("naiko-local-queue")
        return self

    def stop(self) -> None:
        """Stop delivering (the messages left are dropped with the queue)."""
        self._stop_loop()

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._stopping:
                        return
                    now = self._clock_ms()
                    if self._heap and self._heap[0][0] <= now:
                        break
                    self._cond.wait((self._heap[0][0] - now) / 1000 if self._heap else None)
                batch: list[Delivery] = []
                while self._heap and self._heap[0][0] <= now and len(batch) < self.batch_size:
                    batch.append(heapq.heappop(self._heap)[2])
            try:
                self._executor.submit(self._run_batch, batch)
            except RuntimeError:  # the pool is shutting down with the stack
                log.debug("timer messages dropped: the executor is shut down")

    def _run_batch(self, batch: list[Delivery]) -> None:
        now = self._clock_ms()
        for message in batch:
            message.receives += 1
            message.delivered_ms = now
        event = {"Records": [{"messageId": m.message_id, "receiptHandle": m.message_id,
                              "body": m.body, "eventSource": "aws:sqs",
                              "eventSourceARN": "arn:aws:sqs:local:000000000000:naiko-timers",
                              "attributes": {"ApproximateReceiveCount": str(m.receives)}}
                             for m in batch]}
        try:
            answer = self._deliver(event)
            failed = {str(item.get("itemIdentifier")) for item in
                      (answer or {}).get("batchItemFailures", [])}
        except Exception:
            log.exception("the timer function failed a batch of %d", len(batch))
            failed = {m.message_id for m in batch}
        with self._cond:
            self.stats["batches"] += 1
            for message in batch:
                message.failed = message.message_id in failed
                self.history.append(message)
                if not message.failed:
                    self.stats["delivered"] += 1
                    continue
                self.stats["failed"] += 1
                if message.receives >= self.max_receives:
                    self.dead_letters.append(message)
                    self.stats["dead"] += 1
                    continue
                again = self._clock_ms() + int(self.visibility_seconds * 1000)
                heapq.heappush(self._heap, (again, next(self._seq), message))
            self._cond.notify()
