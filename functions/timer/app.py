"""Timer callback: ``{"table_id", "token"}`` from the timer state machines (a table's wake-up).

It fires the timer named by the token if it is still pending, or, if the token names the
table's armed wake-up, every timer already due; then the table re-arms one wake-up for its
earliest deadline. Anything else (the turn moved on, a superseded wake-up, a duplicate
execution) is a no-op, so a timer never needs cancelling. See ``docs/timers.md``.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext
from naiko_service import bootstrap
from naiko_service.bootstrap import metrics

tracer = bootstrap.LazyTracer()  # Tracer() imports the X-Ray SDK and botocore: built lazily
logger = Logger()


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    table_id, token = event.get("table_id"), event.get("token")
    logger.append_keys(table_id=table_id, token=token, route="timer")
    try:
        if not isinstance(table_id, str) or not isinstance(token, str):
            raise ValueError(f"a timer event needs string table_id and token, got {sorted(event)}")
        acted = bootstrap.get_service().timer_fired(table_id, token)
    except Exception as e:
        logger.exception("timer failed")
        bootstrap.count("UnexpectedErrors")
        raise bootstrap.UnexpectedError(f"timer {token} of table {table_id} failed") from e
    bootstrap.count("TimersFired" if acted else "TimersStale")
    return {"table_id": table_id, "token": token, "acted": acted}
