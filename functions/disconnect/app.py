"""``$disconnect``: the player's seats are kept, the tables it watched are told (R8.2, R8.3).

API Gateway calls this on a best-effort basis; connections whose ``$disconnect`` never runs
expire from the connections table (TTL) and are dropped from a table on the first failed push.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from naiko_service import bootstrap
from naiko_service.bootstrap import metrics

tracer = bootstrap.LazyTracer()  # Tracer() imports the X-Ray SDK and botocore: built lazily
logger = Logger()


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST,
                              clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, int]:
    request_context = event["requestContext"]
    connection_id = request_context["connectionId"]
    logger.append_keys(connection_id=connection_id, route=request_context.get("routeKey"))
    try:
        bootstrap.get_service(bootstrap.endpoint_from_event(event)).disconnect(connection_id)
    except Exception as e:
        logger.exception("disconnect failed")
        bootstrap.count("UnexpectedErrors")
        raise bootstrap.UnexpectedError(f"$disconnect failed for {connection_id}") from e
    bootstrap.count("Disconnects")
    return {"statusCode": 200}
