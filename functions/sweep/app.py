"""Every minute (EventBridge schedule): fire every timer past its deadline.

This recovers timers whose Step Functions execution was lost, and until the timer state
machine exists it is what fires timers at all (late by up to a minute).
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
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, int]:
    logger.append_keys(route="sweep")
    try:
        fired = bootstrap.get_service().sweep()
    except Exception as e:
        logger.exception("sweep failed")
        bootstrap.count("UnexpectedErrors")
        raise bootstrap.UnexpectedError("sweep failed") from e
    bootstrap.count("SweepFired", fired)
    return {"fired": fired}
