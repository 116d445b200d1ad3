"""``$connect``: bind the player that the authorizer verified to the new connection.

The player id comes only from ``requestContext.authorizer.player_id``, which the ``$connect``
REQUEST authorizer (``functions/authorizer``) puts there; nothing the client sends can set it.
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
    player_id = (request_context.get("authorizer") or {}).get("player_id")
    logger.append_keys(connection_id=connection_id, player_id=player_id,
                       route=request_context.get("routeKey"))
    if not isinstance(player_id, str) or not player_id:
        # Only reachable if the route lost its authorizer: refuse the connection.
        logger.error("no verified player on $connect; is the authorizer attached?")
        bootstrap.count("ConnectsRefused")
        return {"statusCode": 403}
    try:
        bootstrap.get_service(bootstrap.endpoint_from_event(event)).connect(connection_id,
                                                                           player_id)
    except Exception as e:
        logger.exception("connect failed")
        bootstrap.count("UnexpectedErrors")
        raise bootstrap.UnexpectedError(f"$connect failed for {connection_id}") from e
    bootstrap.count("Connects")
    return {"statusCode": 200}
