"""``$connect``: bind the player that the authorizer verified to the new connection.

The player id comes only from ``requestContext.authorizer.player_id``, which the ``$connect``
REQUEST authorizer (``functions/authorizer``) puts there; nothing the client sends can set it.

It only writes the connection's item (:func:`naiko_service.bootstrap.get_connector`): it never
builds the table service nor reads the table-state key, and the template gives it no
permission to (``tests/unit/test_template.py``).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from naiko_service import bootstrap
from naiko_service.auth import is_bot_id

logger = bootstrap.logger


@bootstrap.entry_point("$connect", correlation_id_path=correlation_paths.API_GATEWAY_REST)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    connection_id = bootstrap.connection_of(event)
    player_id = (event["requestContext"].get("authorizer") or {}).get("player_id")
    logger.thread_safe_append_keys(player_id=player_id)
    if not isinstance(player_id, str) or not player_id or is_bot_id(player_id):
        # Only reachable if the route lost its authorizer (which admits no BOT's id, R8.4):
        # refuse the connection.
        logger.error("no verified player on $connect; is the authorizer attached?")
        bootstrap.count("ConnectsRefused")
        return {"statusCode": 403}
    bootstrap.get_connector().connect(connection_id, player_id)
    bootstrap.count("Connects")
    return {"statusCode": 200}
