""":mod:`naiko_service.timer_queue` reads the wake-ups that arrive from the timer queue.

``TimerQueue`` (``template.yaml``) is an SQS standard queue used as a delay queue: each message
is one table's wake-up (:func:`message_body`), sent by
:class:`naiko_service.aws.scheduler.DelayQueueScheduler` with ``DelaySeconds`` = the wait. The
queue's event source mapping invokes the timer function with batches of up to 10 records;
:func:`handle_records` answers with the ids of the records to deliver again
(``ReportBatchItemFailures``):

* a malformed body is reported (SQS delivers it again, then moves it to the dead-letter queue
  after ``maxReceiveCount`` receives, where the ``TimerDeadLetters`` alarm sees it);
* a message that arrives before its time (a wait longer than the queue's 15 minutes, or a clock
  ahead of ours by more than :data:`~naiko_service.usecases.timers.WAKE_TOLERANCE_MS`) is sent
  on with the rest of its wait;
* otherwise the wake-up fires (:meth:`~naiko_service.usecases.TableService.timers_fired`); one
  that raises is sent again once :data:`RETRY_DELAY_S` later (the state machines' retry of a
  failed task), and reported if that fails too or if it was already the retry (SQS then
  delivers it again after the visibility timeout; the sweep backs every wake-up up anyway).

A wake-up delivered twice is a no-op the second time (its token is gone), as with Step
Functions: nothing here deduplicates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .usecases.timers import WAKE_TOLERANCE_MS

RETRY_DELAY_S = 2
"""How long a wake-up whose handling raised waits before its one retry."""

MAX_ATTEMPTS = 2
"""Deliveries of a wake-up before a failure is left to SQS (its visibility timeout, then the
dead-letter queue): the first and one retry."""


@dataclass(frozen=True, slots=True)
class TimerMessage:
    """One wake-up on the queue."""

    table_id: str
    token: str
    kind: str
    due_ms: int
    attempt: int = 0
    """0 for the first delivery, 1 for the retry after a failure."""


def message_body(table_id: str, token: str, due_ms: int, kind: str, attempt: int = 0) -> str:
    """A wake-up's message body: compact JSON, sorted keys.

    >>> message_body("t1", "decision:3.4", 1_700_000_000_000, "decision")
    '{"attempt":0,"due_ms":1700000000000,"kind":"decision","table_id":"t1","token":"decision:3.4"}'
    """
    return json.dumps({"table_id": table_id, "token": token, "kind": kind, "due_ms": due_ms,
                       "attempt": attempt}, separators=(",", ":"), sort_keys=True)


def parse_body(body: str) -> TimerMessage:
    """The wake-up in a message body.

    :raises ValueError: If *body* is not a wake-up (not JSON, a field missing or mistyped).

    >>> parse_body('{"table_id": "t1", "token": "next_hand:3", "kind": "next_hand", '
    ...            '"due_ms": 5}')
    TimerMessage(table_id='t1', token='next_hand:3', kind='next_hand', due_ms=5, attempt=0)
    >>> parse_body('{"table_id": "t1"}')
    Traceback (most recent call last):
    ValueError: a wake-up needs string table_id, token and kind and whole due_ms and attempt
    """
    try:
        data = json.loads(body)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError("a wake-up's body is not JSON") from exc
    if not isinstance(data, dict):
        raise ValueError("a wake-up's body is not a JSON object")
    table_id, token, kind = data.get("table_id"), data.get("token"), data.get("kind")
    due_ms, attempt = data.get("due_ms"), data.get("attempt", 0)
    if not (isinstance(table_id, str) and table_id and isinstance(token, str) and token
            and isinstance(kind, str) and _whole(due_ms) and _whole(attempt)):
        raise ValueError("a wake-up needs string table_id, token and kind and whole due_ms "
                         "and attempt")
    assert isinstance(due_ms, int) and isinstance(attempt, int)  # checked by _whole
    return TimerMessage(table_id, token, kind, due_ms, attempt)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class BatchResult:
    """What one batch did (the handler logs it and returns :meth:`response`)."""

    fired: int = 0
    """Wake-ups that acted."""
    stale: int = 0
    """Wake-ups that found nothing to do (a superseded or duplicate one)."""
    early: int = 0
    """Sent on because their time had not come."""
    retried: int = 0
    """Failed, sent again once."""
    failed: tuple[str, ...] = ()
    """Message ids to deliver again (SQS: after the visibility timeout)."""

    def response(self) -> dict[str, list[dict[str, str]]]:
        """The event source mapping's partial batch response."""
        return {"batchItemFailures": [{"itemIdentifier": i} for i in self.failed]}


Requeue = Callable[[TimerMessage, "int | None"], None]
"""Sends a wake-up again: ``(message, delay_s)``; ``None`` for "until its ``due_ms``"."""


def handle_records(records: Sequence[Mapping[str, Any]], *,
                   fire: Callable[[list[tuple[str, str]]], list[bool | Exception]],
                   requeue: Requeue, now_ms: Callable[[], int],
                   count: Callable[[str, int], None],
                   warn: Callable[[str, dict[str, Any]], None]) -> BatchResult:
    """Handle one batch of SQS records (see the module's docstring).

    :param records: The event's ``Records`` (``messageId``, ``body``).
    :param fire: Fires ``(table_id, token)`` wake-ups, returning for each whether it acted or
        the exception it raised (:meth:`~naiko_service.usecases.TableService.timers_fired`).
    :param requeue: Sends a message again (:meth:`DelayQueueScheduler.send`).
    :param now_ms: The service's clock.
    :param count: A metric hook (``TimerMessagesMalformed``, ``TimerMessagesEarly``,
        ``TimerRequeueFailures`` (an early one that could not be sent on), ``TimersRetried``,
        ``TimerFailures``, ``TimersFired``, ``TimersStale``).
    :param warn: Logs what went wrong, with fields (never a message body: it is ours, but a
        malformed one may not be).
    """
    failed: list[str] = []
    due: list[tuple[str, TimerMessage]] = []
    early = 0
    now = now_ms()
    for record in records:
        message_id = str(record.get("messageId", ""))
        try:
            message = parse_body(record.get("body", ""))
        except ValueError as error:
            count("TimerMessagesMalformed", 1)
            warn("a timer message is not a wake-up", {"message_id": message_id,
                                                      "error": str(error)})
            failed.append(message_id)
            continue
        if message.due_ms > now + WAKE_TOLERANCE_MS:
            try:
                requeue(message, None)
            except Exception as error:
                count("TimerRequeueFailures", 1)
                warn("could not send an early wake-up on", {
                    "message_id": message_id, "table_id": message.table_id,
                    "error": type(error).__name__})
                failed.append(message_id)
                continue
            early += 1
            continue
        due.append((message_id, message))
    try:
        results = fire([(m.table_id, m.token) for _, m in due]) if due else []
    except Exception as error:  # the batch's machinery, not one wake-up: each is retried
        # alone below, so the early ones already sent on are not sent twice by a whole-batch
        # redelivery
        results = [error] * len(due)
    fired = stale = retried = 0
    for (message_id, message), result in zip(due, results, strict=True):
        if result is True:
            fired += 1
        elif result is False:
            stale += 1
        else:
            warn("a wake-up failed", {"message_id": message_id, "table_id": message.table_id,
                                      "token": message.token, "attempt": message.attempt,
                                      "error": type(result).__name__})
            if message.attempt + 1 < MAX_ATTEMPTS:
                try:
                    requeue(replace(message, attempt=message.attempt + 1), RETRY_DELAY_S)
                    retried += 1
                    continue
                except Exception as error:
                    warn("could not send a failed wake-up again", {
                        "message_id": message_id, "error": type(error).__name__})
            count("TimerFailures", 1)
            failed.append(message_id)
    for name, value in (("TimerMessagesEarly", early), ("TimersRetried", retried),
                        ("TimersFired", fired), ("TimersStale", stale)):
        if value:
            count(name, value)
    return BatchResult(fired=fired, stale=stale, early=early, retried=retried,
                       failed=tuple(failed))
