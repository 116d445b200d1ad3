""":mod:`naiko_service.aws.gateway` pushes messages to WebSocket clients through the API Gateway
Management API."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError, ConnectionClosedError
from botocore.exceptions import ConnectionError as SdkConnectionError

from ..ports import ConnectionGone, Encoded

POST_ATTEMPTS = 2
"""Attempts of one post (:meth:`ManagementApiGateway.send`): a second only when the first
cannot have reached the connection."""

RETRIED_STATUSES = frozenset({429})
"""Answers to a post that may be tried again: throttled (refused, not delivered). A 5xx may
come after the delivery (the local gateway's own timeout does): not retried."""


class ManagementApiGateway:
    """:class:`~naiko_service.ports.Gateway` on the API Gateway Management API.

    :param client: ``boto3.client("apigatewaymanagementapi", endpoint_url=...)``, where the
        endpoint is the WebSocket API's callback URL (``https://{api-id}.execute-api.{region}
        .amazonaws.com/{stage}``).
    """

    def __init__(self, client: Any):
        self.client = client

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        """Post *message* as compact UTF-8 JSON to one connection (an
        :class:`~naiko_service.ports.Encoded` message: its bytes, serialised already). The
        client is thread-safe: the fan-out posts from several threads at once.

        A post is tried again (once, :data:`POST_ATTEMPTS`) only when it was not delivered: no
        connection was made, a kept-alive one was closed before any answer, or the API answered
        throttled (:data:`RETRIED_STATUSES`). A read timeout is NOT retried: the
        request reached the API, which may have delivered it (the SDK's own retry then
        delivered it twice: "a write was pushed twice"); the post fails, and the client sees
        the gap in versions and asks for a snapshot. The client should make one attempt a call
        (:func:`naiko_service.bootstrap.management_gateway`).

        :raises ConnectionGone: If API Gateway answers ``GoneException`` (HTTP 410): the
            client disconnected.
        :raises botocore.exceptions.ClientError: Any other failure, unchanged.
        """
        data = Encoded.of(message).data
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                self.client.post_to_connection(ConnectionId=connection_id, Data=data)
                return
            except ClientError as exc:
                code = exc.response.get("Error", {}).get("Code")
                status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
                if code == "GoneException" or status == 410:
                    raise ConnectionGone(connection_id) from exc
                if status not in RETRIED_STATUSES or attempt == POST_ATTEMPTS:
                    raise
            except (SdkConnectionError, ConnectionClosedError):
                # never connected (nothing sent), or a kept-alive connection the API had closed
                # (closed before any answer: as the SDK, taken for not delivered)
                if attempt == POST_ATTEMPTS:
                    raise

    def close(self, connection_id: str) -> None:
        """``DeleteConnection`` (``DELETE @connections/{id}``): API Gateway closes the socket
        and ``$disconnect`` follows. A connection already gone (410) is not an error.

        :raises botocore.exceptions.ClientError: Any other failure, unchanged.
        """
        try:
            self.client.delete_connection(ConnectionId=connection_id)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if not (code == "GoneException" or status == 410):
                raise

    def alive(self, connection_id: str) -> bool:
        """``GetConnection``: ``False`` only on ``GoneException`` (410); any other failure
        counts as alive (the caller then does what it would do for a connected player)."""
        try:
            self.client.get_connection(ConnectionId=connection_id)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            return not (code == "GoneException" or status == 410)
        return True


def encode_message(message: dict[str, Any]) -> bytes:
    """*message* as compact UTF-8 JSON (:meth:`~naiko_service.ports.Encoded.of`). Text that
    UTF-8 cannot encode (a lone surrogate the parser should already have refused) is escaped
    rather than failing the post.

    >>> encode_message({"id": "\\ud800", "name": "Jos\u00e9"})
    b'{"id":"\\\\ud800","name":"Jos\\\\u00e9"}'
    >>> encode_message({"name": "Jos\u00e9"})
    b'{"name":"Jos\\xc3\\xa9"}'
    """
    return Encoded.of(message).data
