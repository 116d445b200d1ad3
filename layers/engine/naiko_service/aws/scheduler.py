""":mod:`naiko_service.aws.scheduler` runs table wake-ups: as SQS delay-queue messages
(:class:`DelayQueueScheduler`, the default) or as Step Functions executions
(:class:`StepFunctionsScheduler`).

The service keeps one armed wake-up per table (``usecases.arming.arm``, ``docs/timers.md``) and
asks for a new one only when the table's earliest deadline moves earlier than the armed one.

**Delay queue** (``TimerTransport=queue``): a wake-up up to :data:`QUEUE_MAX_DELAY_S` (15
minutes) away is one message on ``TimerQueue`` with ``DelaySeconds`` = the wait rounded up to
the second; the queue's event source mapping hands it to the timer Lambda when it becomes
visible (``naiko_service.timer_queue`` reads it). Billed per request (send, receive, delete:
about $0.0000012 a wake-up whatever the wait), where an EXPRESS execution bills every second it
waits. Longer waits go to the STANDARD machine.

**Step Functions** (``TimerTransport=express``, and the long waits of both): each wake-up is one
execution that waits until ``$.due``, then invokes the timer Lambda with ``{table_id, token}``.
The execution name is derived from the table and the token, so scheduling the same timer twice
starts one execution on a STANDARD machine (names are unique per state machine); on EXPRESS
(names not enforced) a duplicate is a no-op when it fires, like any execution whose token is no
longer current.

Two machines with the same definition (``template.yaml``), chosen BY COST per wake-up from its
wait (see :data:`EXPRESS_MAX_WAIT_MS`): short waits on EXPRESS, long ones on STANDARD.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

NAME_LIMIT = 80
"""Step Functions execution names: at most 80 characters."""

HASH_CHARS = 16
"""Hex digits of SHA-256 in an execution name (64 bits: different timers never collide)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def execution_name(table_id: str, token: str) -> str:
    """A deterministic execution name for the timer *token* of *table_id*: a readable prefix
    (characters other than ``[A-Za-z0-9_-]`` become ``_``, cut to fit) and a hash of the exact
    pair, so two different timers never share a name even when their prefixes do.

    >>> execution_name("t1", "decision:3.4")
    't1-decision_3_4-005062f36a19e0f0'
    >>> len(execution_name("t" * 100, "window:9")) <= NAME_LIMIT
    True
    """
    digest = hashlib.sha256(json.dumps([table_id, token]).encode()).hexdigest()[:HASH_CHARS]
    readable = _UNSAFE.sub("_", f"{table_id}-{token}")[:NAME_LIMIT - HASH_CHARS - 1]
    return f"{readable}-{digest}"


def due_timestamp(due_ms: int) -> str:
    """The ISO-8601 UTC timestamp (``Z``) for a Wait state's ``TimestampPath``, rounded UP to
    the whole second: Step Functions ignores fractions of a second in a timestamp, so keeping
    them would fire a timer up to a second early (a shortened decision clock); rounding up
    fires it at most a second late.

    >>> due_timestamp(1_700_000_000_000)
    '2023-11-14T22:13:20Z'
    >>> due_timestamp(1_700_000_000_001)
    '2023-11-14T22:13:21Z'
    """
    seconds = -(-due_ms // 1000)
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def execution_input(table_id: str, token: str, due_ms: int, kind: str) -> str:
    """The execution input: ``{"table_id", "token", "kind", "due", "due_ms"}`` as compact JSON
    with sorted keys (the same timer always gives the same input, which Step Functions needs
    to treat a repeated start as idempotent).

    >>> execution_input("t1", "next_hand:3", 1_700_000_000_000, "next_hand")
    '{"due":"2023-11-14T22:13:20Z","due_ms":1700000000000,"kind":"next_hand","table_id":"t1","token":"next_hand:3"}'
    """
    return json.dumps({"table_id": table_id, "token": token, "kind": kind,
                       "due": due_timestamp(due_ms), "due_ms": due_ms},
                      separators=(",", ":"), sort_keys=True)


EXPRESS_MAX_WAIT_MS = 45_000
"""Waits up to this long go to the EXPRESS machine, longer ones to the STANDARD machine.

us-east-1 prices (``scripts/cost_model.py`` has the table and its sources): a STANDARD wake-up
is 2 state transitions (``WaitUntilDue`` and ``Fire`` entered) x $0.000025 = $0.000050 whatever
it waits; an EXPRESS one is $0.000001 per request + 64 MB x (wait + ~0.1 s for the Lambda call)
x $0.0000166667 per GB-second = $0.000001 + $0.00000104 per second of wait. They cost the same
at a wait of (0.000050 - 0.000001 - 0.0000001) / 0.00000104 = 47 s: below, EXPRESS is cheaper
(a 20 s decision clock: $0.0000219, 2.3x cheaper; the 3 s pause: $0.0000042, 12x); above,
STANDARD (the 10-minute sit-out limit: $0.000050 instead of $0.000626, and EXPRESS stops at 5
minutes anyway). 45 s keeps every decision clock up to 45 s on EXPRESS."""


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class StepFunctionsScheduler:
    """:class:`~naiko_service.ports.Scheduler` on Step Functions.

    :param client: A boto3 ``stepfunctions`` client.
    :param state_machine_arn: The timer machine for short waits (EXPRESS in ``template.yaml``:
        waits until ``$.due``, then invokes the timer Lambda).
    :param long_state_machine_arn: The same machine as STANDARD, for waits longer than
        *express_max_wait_ms*; when ``None`` every wait goes to *state_machine_arn*.
    :param express_max_wait_ms: The longest wait sent to *state_machine_arn*.
    :param now_ms: The clock that measures the wait (wall-clock milliseconds).
    """

    def __init__(self, client: Any, state_machine_arn: str,
                 long_state_machine_arn: str | None = None, *,
                 express_max_wait_ms: int = EXPRESS_MAX_WAIT_MS,
                 now_ms: Callable[[], int] = _wall_clock_ms):
        self.client = client
        self.state_machine_arn = state_machine_arn
        self.long_state_machine_arn = long_state_machine_arn or state_machine_arn
        self.express_max_wait_ms = express_max_wait_ms
        self.now_ms = now_ms

    def machine_for(self, due_ms: int) -> str:
        """The state machine for a wake-up due at *due_ms*: by the length of its wait."""
        if due_ms - self.now_ms() <= self.express_max_wait_ms:
            return self.state_machine_arn
        return self.long_state_machine_arn

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        """Start the wake-up's execution. Starting it again is harmless: an existing execution
        of that name (``ExecutionAlreadyExists``: same timer, possibly a slightly different
        deadline computed by a retried write) counts as scheduled.

        :raises botocore.exceptions.ClientError: Any other failure, unchanged.
        """
        try:
            self.client.start_execution(stateMachineArn=self.machine_for(due_ms),
                                        name=execution_name(table_id, token),
                                        input=execution_input(table_id, token, due_ms, kind))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ExecutionAlreadyExists":
                raise


QUEUE_MAX_DELAY_S = 900
"""SQS's longest ``DelaySeconds`` (15 minutes)."""


def queue_delay_s(due_ms: int, now_ms: int, max_delay_s: int = QUEUE_MAX_DELAY_S) -> int:
    """``DelaySeconds`` for a wake-up due at *due_ms*: the wait rounded UP to the whole second
    (SQS counts whole seconds; rounding down would deliver up to a second early), at least 0,
    at most *max_delay_s* (a longer wait arrives early and is sent on again by the consumer,
    :func:`naiko_service.timer_queue.handle_records`).

    >>> queue_delay_s(10_001, 0), queue_delay_s(10_000, 0), queue_delay_s(-5, 0)
    (11, 10, 0)
    >>> queue_delay_s(3_600_000, 0)
    900
    """
    return max(0, min(max_delay_s, -(-(due_ms - now_ms) // 1000)))


class DelayQueueScheduler:
    """:class:`~naiko_service.ports.Scheduler` on an SQS delay queue (``TimerQueue``).

    A wake-up is one message, :func:`naiko_service.timer_queue.message_body` (``{table_id,
    token, kind, due_ms, attempt}``), sent with ``DelaySeconds`` = :func:`queue_delay_s`.
    SQS delivers at least once and never deduplicates a standard queue: a duplicate is a
    no-op when it fires, like any wake-up whose token is no longer current.

    :param client: A boto3 ``sqs`` client (or anything with its ``send_message``).
    :param queue_url: The queue (``TIMER_QUEUE_URL``).
    :param long_waits: Where wake-ups more than *max_delay_s* away go (the STANDARD machine's
        :class:`StepFunctionsScheduler`); with ``None`` they go on the queue with the longest
        delay and are sent on when they arrive early.
    :param max_delay_s: The longest delay the queue takes.
    :param now_ms: The clock that measures the wait (wall-clock milliseconds).
    """

    def __init__(self, client: Any, queue_url: str, long_waits: Any | None = None, *,
                 max_delay_s: int = QUEUE_MAX_DELAY_S,
                 now_ms: Callable[[], int] = _wall_clock_ms):
        self.client = client
        self.queue_url = queue_url
        self.long_waits = long_waits
        self.max_delay_s = max_delay_s
        self.now_ms = now_ms

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        """Send the wake-up (or hand a long one to *long_waits*).

        :raises botocore.exceptions.ClientError: The queue refused the message.
        """
        if self.long_waits is not None and due_ms - self.now_ms() > self.max_delay_s * 1000:
            self.long_waits.schedule(table_id, token, due_ms, kind)
            return
        self.send(table_id, token, due_ms, kind)

    def send(self, table_id: str, token: str, due_ms: int, kind: str, *, attempt: int = 0,
             delay_s: int | None = None) -> None:
        """Put one wake-up on the queue: visible at *due_ms* (or after *delay_s* seconds, for a
        retry), carrying the number of the delivery *attempt*."""
        from ..timer_queue import message_body

        delay = queue_delay_s(due_ms, self.now_ms(), self.max_delay_s) if delay_s is None \
            else max(0, min(self.max_delay_s, delay_s))
        self.client.send_message(QueueUrl=self.queue_url, DelaySeconds=delay,
                                 MessageBody=message_body(table_id, token, due_ms, kind,
                                                          attempt))
