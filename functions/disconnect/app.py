"""``$disconnect``: the player's seats are kept, the tables it watched are told (R8.2, R8.3).

API Gateway calls this on a best-effort basis; connections whose ``$disconnect`` never runs
expire from the connections table (TTL) and are dropped from a table on the first failed push.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from naiko_service import bootstrap

logger = bootstrap.logger


@bootstrap.entry_point("$disconnect", correlation_id_path=correlation_paths.API_GATEWAY_REST)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    connection_id = bootstrap.connection_of(event)
    bootstrap.get_service(bootstrap.endpoint_from_event(event)).disconnect(connection_id)
    bootstrap.count("Disconnects")
    return {"statusCode": 200}
