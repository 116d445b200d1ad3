"""Timer callback: a table's wake-up, from the timer queue (an SQS event of up to 10 records,
``naiko_service.timer_queue``) or from the STANDARD timer machine (``{"table_id", "token"}``,
long waits; both from the EXPRESS machine when ``TimerTransport`` is ``express``).

Each wake-up fires the timer named by its token if it is still pending, or, if the token names
the table's armed wake-up, every timer already due; then the table re-arms one wake-up for its
earliest deadline. Anything else (the turn moved on, a superseded wake-up, a duplicate
delivery) is a no-op, so a timer never needs cancelling. See ``docs/timers.md``.
"""

from __future__ import annotations

from typing import Any

from naiko_service import bootstrap

logger = bootstrap.logger


@bootstrap.entry_point("timer")
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if "Records" in event:
        return _from_queue(event["Records"])
    table_id, token = event.get("table_id"), event.get("token")
    logger.thread_safe_append_keys(table_id=table_id, token=token)
    if not isinstance(table_id, str) or not isinstance(token, str):
        raise ValueError(f"a timer event needs string table_id and token, got {sorted(event)}")
    acted = bootstrap.get_service().timer_fired(table_id, token)
    bootstrap.count("TimersFired" if acted else "TimersStale")
    return {"table_id": table_id, "token": token, "acted": acted}


def _from_queue(records: list[dict[str, Any]]) -> dict[str, Any]:
    # imported with the service, on the first wake-up (nothing at import: cold start)
    from naiko_service.aws.scheduler import DelayQueueScheduler
    from naiko_service.records import TimerKind
    from naiko_service.timer_queue import TimerMessage, handle_records

    service = bootstrap.get_service()
    scheduler = service.deps.scheduler

    def requeue(message: TimerMessage, delay_s: int | None) -> None:
        if isinstance(scheduler, DelayQueueScheduler):
            scheduler.send(message.table_id, message.token, message.due_ms, message.kind,
                           attempt=message.attempt, delay_s=delay_s)
        else:  # a queue event in a deployment that schedules elsewhere (TimerTransport switched
            # to express with messages still queued): by its deadline, so a retry runs at once
            # and its attempt is not kept
            scheduler.schedule(message.table_id, message.token, message.due_ms,
                               TimerKind(message.kind))

    def fire(wakeups: list[tuple[str, str]]) -> list[bool | Exception]:
        return service.timers_fired(wakeups, on_start=lambda table_id, token: (
            logger.thread_safe_append_keys(table_id=table_id, token=token)))

    result = handle_records(records, fire=fire, requeue=requeue,
                            now_ms=service.deps.clock.now_ms, count=bootstrap.count,
                            warn=bootstrap.warn)
    logger.debug("timer messages", extra={"records": len(records), "fired": result.fired,
                                         "stale": result.stale, "early": result.early,
                                         "retried": result.retried,
                                         "failed": len(result.failed)})
    return result.response()
