"""Every game route of the WebSocket API, and ``$default``: one client frame -> one use case.

The player is the one the ``$connect`` authorizer verified, which API Gateway passes with every
message of the connection (never a field of the frame); without it, the one bound at ``$connect``.
A frame that is not a valid request (malformed JSON, an unknown ``action``, which is how
``$default`` is reached, invalid fields, too large) is answered with an ``error`` frame on that
connection; so are the service's own refusals. A frame over the connection's or the player's
rate limit is answered ``rate_limited`` and changes nothing; a connection that keeps sending
is closed (:mod:`naiko_service.ratelimit`, checked in memory: no DynamoDB call on the normal
path). Anything unexpected is logged, answered with
``internal_error`` and re-raised (:func:`naiko_service.bootstrap.entry_point`).

The service and its pydantic protocol (~0.2 s of imports) load on the first frame, not at
import; see ``docs/deploy.md`` ("Cold start").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.logging import correlation_paths
from naiko_service import bootstrap

if TYPE_CHECKING:
    from naiko_service.ratelimit import Admission
    from naiko_service.usecases import TableService

logger = bootstrap.logger

OK = {"statusCode": 200}


def internal_error(event: dict[str, Any]) -> None:
    """Tell the client that its frame failed on our side (nothing it sent was wrong)."""
    service = bootstrap.get_service(bootstrap.endpoint_from_event(event))
    from naiko_service.i18n import text

    reply(service, event["requestContext"]["connectionId"], "internal_error",
          text("error.internal_error"),
          logger.thread_safe_get_current_keys().get("request_id"),
          lang=connection_language(event["requestContext"]))


@bootstrap.entry_point("game", correlation_id_path=correlation_paths.API_GATEWAY_REST,
                       on_failure=internal_error)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    connection_id = bootstrap.connection_of(event)
    service = bootstrap.get_service(bootstrap.endpoint_from_event(event))
    context = event["requestContext"]
    from naiko_service.i18n import speaking

    with speaking(connection_language(context)):  # its error texts in its language
        serve(service, connection_id, event.get("body"), authorized_player(context),
              context.get("messageId"))
    return OK


def authorized_player(request_context: dict[str, Any]) -> str | None:
    """The player the ``$connect`` authorizer verified. API Gateway passes the authorizer's
    context with every message of the connection, so no lookup is needed."""
    authorizer = request_context.get("authorizer") or {}
    player_id = authorizer.get("player_id") or authorizer.get("principalId")
    return player_id if isinstance(player_id, str) and player_id else None


def connection_language(request_context: dict[str, Any]) -> str:
    """The language the connection chose at ``$connect`` (``?lang=``), which the authorizer
    put in its context next to the player; English without one (docs/protocol.md,
    "Languages")."""
    from naiko_service.i18n import language_of

    return language_of((request_context.get("authorizer") or {}).get("lang"))


def serve(service: TableService, connection_id: str, body: str | None,
          player_id: str | None = None, frame_id: str | None = None) -> None:
    """Answer one frame: through the service, or with an ``error`` frame. Without the
    authorizer's context (older events, tests) the player is looked up by connection.
    *frame_id* is the event's ``messageId`` (a frame :func:`screen` admitted takes no second
    token)."""
    from naiko_service.i18n import text
    from naiko_service.protocol import ProtocolError, parse_request

    if player_id is None:
        player_id = service.deps.connections.player_of(connection_id)
    if player_id is None:
        bootstrap.count("NotConnected")
        reply(service, connection_id, "not_connected", text("error.not_connected"), None)
        return
    logger.thread_safe_append_keys(player_id=player_id)
    admission = service.admit(connection_id, player_id, frame_id)
    try:
        request = parse_request(body)
    except ProtocolError as error:
        if not admission.allowed:
            refuse(service, connection_id, admission, error.request_id)
            return
        logger.thread_safe_append_keys(request_id=error.request_id)
        logger.info("frame refused", extra={"code": error.code})
        bootstrap.count("ProtocolErrors")
        reply(service, connection_id, error.code, error.message, error.request_id)
        return
    if not admission.allowed:
        refuse(service, connection_id, admission, request.request_id)
        return
    logger.thread_safe_append_keys(request_id=request.request_id, action=request.action,
                       table_id=getattr(request, "table_id", None))
    bootstrap.count("Requests")
    service.handle(connection_id, player_id, request)


def refuse(service: TableService, connection_id: str, admission: Admission,
           request_id: str | None) -> None:
    """Answer a frame over the rate limit with ``rate_limited`` (nothing else happens); close
    the connection when its refusals persisted."""
    logger.thread_safe_append_keys(request_id=request_id)
    bootstrap.count("RateLimited")
    reply(service, connection_id, "rate_limited", rate_limited_text(admission), request_id,
          admission.retry_after_ms, scope=admission.by or "connection")
    if admission.close:
        logger.warning("connection closed: its frames kept exceeding the rate limit",
                       extra={"refusals": admission.refusals, "limited_by": admission.by})
        bootstrap.count("RateLimitCloses")
        close = getattr(service.deps.gateway, "close", None)
        if close is not None:
            close(connection_id)


def rate_limited_text(admission: Admission) -> str:
    """The English text of ``rate_limited`` (the catalogue's; other languages:
    :func:`naiko_service.protocol.error_message`)."""
    from naiko_service.i18n import text

    return text("error.rate_limited", scope=admission.by or "connection",
                retry_after_ms=admission.retry_after_ms)


def screen(service: TableService, body: str | None,
           request_context: dict[str, Any]) -> tuple[dict[str, Any], bool] | None:
    """The rate limit alone, before any other work: for a frame over it, the ``error`` frame
    :func:`serve` would answer and whether to close the connection now; ``None`` for any
    other frame, whose tokens are then taken (:func:`serve` of the same ``messageId`` takes
    none). Lambda never calls this; the local gateway does, on its event loop, before it
    queues a frame, so that a refused frame takes no invocation (docs/local.md, "Fairness").
    It does no I/O and logs nothing: the refusal is counted in this container only
    (``RateLimiter.screen``), and the gateway logs the close."""
    from naiko_service.protocol import ProtocolError, error_message, parse_request

    player_id = authorized_player(request_context)
    connection_id = request_context.get("connectionId")
    frame_id = request_context.get("messageId")
    if player_id is None or not isinstance(connection_id, str) or not isinstance(frame_id, str):
        return None
    admission = service.screen(connection_id, player_id, frame_id)
    if admission is None:
        return None
    try:  # the request id serve() would echo
        request_id = parse_request(body).request_id
    except ProtocolError as error:
        request_id = error.request_id
    return (error_message("rate_limited", rate_limited_text(admission), request_id,
                          admission.retry_after_ms, lang=connection_language(request_context),
                          scope=admission.by or "connection"), admission.close)


def reply(service: TableService, connection_id: str, code: str, message: str,
          request_id: str | None, retry_after_ms: int | None = None, **params: Any) -> None:
    """Send an ``error`` frame to the connection (its text in the connection's language, the
    code's *params* filled in) through the service's one send point
    (:func:`naiko_service.usecases.fanout.deliver`: no message over a frame); a connection
    that is gone is not an error."""
    from naiko_service.ports import ConnectionGone
    from naiko_service.protocol import error_message
    from naiko_service.usecases.fanout import deliver

    try:
        deliver(service.deps, connection_id,
                error_message(code, message, request_id, retry_after_ms, **params))
    except ConnectionGone:
        logger.info("connection gone before the reply", extra={"code": code})
