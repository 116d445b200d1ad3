""":mod:`naiko_local.gateway` is a local stand-in for an API Gateway WebSocket API.

Clients connect to ``ws://127.0.0.1:PORT/?token=...`` as they would to
``wss://{api}.execute-api.{region}.amazonaws.com/{stage}?token=...``, and the gateway calls the
same Lambda handlers with the same events API Gateway sends them:

``$connect``
    The route's REQUEST authorizer runs first (an event with ``methodArn``,
    ``queryStringParameters``, ``headers`` and ``requestContext``). A missing identity source
    (the ``token`` parameter) is refused with **401** before it runs; an authorizer that raises
    ``Exception("Unauthorized")`` gives **401**, a ``Deny`` policy **403**, any other failure
    **500**. Then the ``$connect`` integration runs with ``requestContext.authorizer`` =
    ``principalId`` + the authorizer's ``context`` (+ ``integrationLatency``); an error gives
    500 and a non-2xx ``statusCode`` that status. Only then does the handshake complete.
messages
    Each data frame is routed by ``$request.body.action`` (a JSON body whose ``action`` names a
    route) or to ``$default``, and delivered to its integration as a ``MESSAGE`` event carrying
    the same ``requestContext.authorizer``. Invocations run on a thread pool (handlers are
    synchronous; the event loop never blocks). A failed invocation answers the client with
    API Gateway's own ``{"message": "Internal server error", ...}`` frame.
fairness
    In API Gateway each frame is its own Lambda invocation, so one connection's flood never
    waits in front of another connection's frame. Here invocations share a few threads, so
    the gateway keeps them fair itself: an optional *screen* (the local stack passes the game
    handler's rate limit) refuses a frame on the event loop before it is queued, taking no
    thread; each connection has its own bounded queue (``queued_frames``; when it is full the
    gateway stops reading that socket) with at most ``connection_concurrency`` frames running
    (1: a connection's frames run in the order they came); and the connections with frames
    waiting take turns, round-robin, for ``message_concurrency`` invocations at a time (fewer
    than the pool's threads, which the timers and ``$disconnect`` share). A flooder's backlog
    so delays only its own frames.
``$disconnect``
    Called once the socket is closed (by either side, or by ``DELETE @connections``), with
    ``disconnectStatusCode`` and ``disconnectReason``; the connection is already gone for the
    Management API by then.

The Management API is served over HTTP on its own port (:attr:`LocalGateway.management_url`,
the ``WEBSOCKET_ENDPOINT`` of the handlers; boto3's ``apigatewaymanagementapi`` client works
against it unchanged through ``endpoint_url``): ``POST /@connections/{id}`` delivers the body
as one message (fragmented into frames of at most 32 KB when larger; over 128 KB is **413**
``PayloadTooLargeException``), ``GET`` describes the connection, ``DELETE`` closes it; an
unknown or closed id is **410** ``GoneException``.

Limits, as API Gateway enforces them (``Limits``): a frame over 32 KB or a message over 128 KB
closes the connection with **1009** (message too big); a message between 32 KB and 128 KB sent
in frames of at most 32 KB is delivered (the game handler refuses it with ``frame_too_large``);
a connection idle for 10 minutes is closed with 1001 (going away), and any connection after 2
hours. Per-route throttling is not enforced locally.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

log = logging.getLogger("naiko_local.gateway")

Invoke = Callable[[str, dict[str, Any]], Any]
"""Runs a Lambda function synchronously: ``invoke(function_name, event) -> result``; raises what
the handler raises."""

UNAUTHORIZED = "Unauthorized"
"""The error message with which a Lambda authorizer says "unauthenticated" (401)."""


@dataclass(frozen=True)
class Limits:
    """API Gateway's WebSocket quotas (``apigateway-execution-service-websocket-limits-table``):
    none of these can be raised on AWS."""

    frame_bytes: int = 32 * 1024
    """WebSocket frame size: 32 KB. A larger frame closes the connection with 1009."""
    message_bytes: int = 128 * 1024
    """Message payload size: 128 KB (in frames of at most 32 KB). Larger closes with 1009;
    a larger ``PostToConnection`` is refused with 413."""
    idle_seconds: float | None = 600.0
    """Idle connection timeout: 10 minutes without a message from the client."""
    max_connection_seconds: float | None = 7200.0
    """Connection duration: 2 hours."""


@dataclass(frozen=True)
class Routes:
    """Which function each route key reaches (``template.yaml``: routes -> integrations ->
    functions; see :func:`naiko_local.template.websocket_routes`)."""

    functions: Mapping[str, str]
    """Route key (``$connect``, ``$disconnect``, ``$default``, ``act``...) -> function name."""
    authorizer: str | None = None
    """The ``$connect`` authorizer function, if the route has one."""
    identity_query: tuple[str, ...] = ("token",)
    """Query parameters that must be present before the authorizer is called."""
    selection_key: str = "action"
    """The body field of the route selection expression ``$request.body.action``."""

    def route_of(self, body: str | None) -> str:
        """The route key a message body selects: the ``action`` of a JSON object if a route has
        that key, else ``$default``.

        >>> routes = Routes({"act": "game", "$default": "game"})
        >>> routes.route_of('{"action": "act"}'), routes.route_of('{"action": "$connect"}')
        ('act', '$default')
        >>> routes.route_of("not json"), routes.route_of('[1]')
        ('$default', '$default')
        >>> routes.route_of('{"action": ' * 100_000 + '1' + '}' * 100_000)
        '$default'
        """
        try:
            data = json.loads(body) if body is not None else None
        except (ValueError, RecursionError):  # deep nesting too: $default answers every frame
            return "$default"
        value = data.get(self.selection_key) if isinstance(data, dict) else None
        if isinstance(value, str) and not value.startswith("$") and value in self.functions:
            return value
        return "$default"


def new_id(nbytes: int = 11) -> str:
    """An API-Gateway-like id: standard base64 of random bytes (16 characters for 11 bytes,
    e.g. ``L0SM9cOFvHcCIhw=``); connection ids may contain ``+``, ``/`` and ``=``."""
    return base64.b64encode(secrets.token_bytes(nbytes)).decode()


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _request_time(ms: int) -> str:
    """API Gateway's ``requestTime`` format, ``19/Jan/2025:21:13:26 +0000``."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%d/%b/%Y:%H:%M:%S +0000")


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def utf8_fragments(data: bytes, limit: int) -> Iterator[str]:
    """*data* (UTF-8) cut into strings of at most *limit* bytes each, never inside a character.

    >>> list(utf8_fragments("aé€b".encode(), 3))
    ['aé', '€', 'b']
    """
    start = 0
    while start < len(data):
        end = min(start + limit, len(data))
        while end < len(data) and end > start and (data[end] & 0xC0) == 0x80:
            end -= 1
        yield data[start:end].decode("utf-8")
        start = end


class Gone(Exception):
    """The connection does not exist (any more): HTTP 410 ``GoneException``."""


@dataclass
class Connection:
    """One open WebSocket connection, as the Management API describes it."""

    connection_id: str
    connected_at_ms: int
    source_ip: str
    user_agent: str
    authorizer: dict[str, Any]
    last_active_ms: int = 0
    websocket: Any = None
    messages_in: int = 0
    messages_out: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    queue: deque[tuple[str | None, dict[str, Any]]] = field(default_factory=deque)
    """Frames waiting for an invocation: ``(function, event)``; ``(None, {})`` closes the
    connection once the frames before it ran."""
    running: int = 0
    """Its frames being invoked now."""
    waiting_turn: bool = False
    """In the gateway's round-robin line."""
    space: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    """A screen refused it for good: its later frames are read and dropped, and it closes
    once its queued frames ran."""
    """Set when a frame left its queue (the reader waits on it while the queue is full)."""


@dataclass(frozen=True)
class Refusal:
    """A *screen*'s verdict on a frame: it goes to no function; the gateway sends *reply* (if
    any) to the connection. With *close*, the frames that follow are dropped unread, and the
    connection is closed (1000, as ``DELETE @connections`` does) once the frames queued
    before this one ran."""

    reply: bytes | None = None
    close: bool = False


Screen = Callable[[str, dict[str, Any]], Refusal | None]
"""``screen(function, event) -> Refusal | None``: asked on the event loop for every frame
routed to a function, before it is queued; must be quick and do no I/O. ``None``: queue it."""


class LocalGateway:
    """The local WebSocket API and its Management API.

    :param invoke: Runs a function: ``invoke(name, event)`` (the local stack loads the real
        handlers of ``functions/*/app.py``).
    :param routes: Route keys -> function names, and the authorizer.
    :param host: Interface of both servers (keep it on loopback).
    :param port: WebSocket port (0: any free port).
    :param management_port: Management API port (0: any free port).
    :param stage: The stage name in events and in the Management API URL.
    :param executor: Where invocations run; a pool of its own if ``None``.
    :param limits: Frame, message, idle and duration limits.
    :param before_connect: Called with the player id after the authorizer allowed it and before
        ``$connect`` runs (the local stack funds new players' accounts there).
    :param screen: Refuses frames before they are queued (:data:`Screen`); ``None``: none.
    :param message_concurrency: Frames invoked at once, all connections together.
    :param connection_concurrency: Frames of one connection invoked at once.
    :param queued_frames: Frames one connection may have waiting before the gateway stops
        reading its socket.
    """

    def __init__(self, invoke: Invoke, routes: Routes, *, host: str = "127.0.0.1",
                 port: int = 0, management_port: int = 0, stage: str = "local",
                 api_id: str = "naikolocal", region: str = "us-east-1",
                 account_id: str = "123456789012", executor: Executor | None = None,
                 limits: Limits = Limits(),
                 before_connect: Callable[[str], None] | None = None,
                 post_timeout: float = 10.0, screen: Screen | None = None,
                 message_concurrency: int = 6, connection_concurrency: int = 1,
                 queued_frames: int = 64):
        if min(message_concurrency, connection_concurrency, queued_frames) < 1:
            raise ValueError("message_concurrency, connection_concurrency and queued_frames "
                             "must be at least 1")
        self.invoke = invoke
        self.routes = routes
        self.host = host
        self._port = port
        self._management_port = management_port
        self.stage = stage
        self.api_id = api_id
        self.region = region
        self.account_id = account_id
        self.limits = limits
        self.before_connect = before_connect
        self.post_timeout = post_timeout
        self.screen = screen
        self.message_concurrency = message_concurrency
        self.connection_concurrency = connection_concurrency
        self.queued_frames = queued_frames
        self._turns: deque[Connection] = deque()
        """Connections with a frame waiting and room to run it, in turn order."""
        self._running = 0
        """Frames being invoked (all connections)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._own_executor = executor is None
        self._executor = executor or ThreadPoolExecutor(8, thread_name_prefix="lambda")
        # The handshake's functions (authorizer, $connect) have threads of their own, as each
        # Lambda function has its own concurrency: a burst of other invocations (200
        # $disconnects at once) never holds a new handshake past the server's open timeout.
        self._connect_executor = ThreadPoolExecutor(4, thread_name_prefix="lambda-connect")
        self._connections: dict[str, Connection] = {}
        self._handshaking: dict[Any, Connection] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._server: Any = None
        self._http: ThreadingHTTPServer | None = None
        self._http_thread: threading.Thread | None = None
        self.stats = {"connects": 0, "refused": 0, "disconnects": 0, "messages": 0,
                      "posts": 0, "gone": 0, "integration_errors": 0, "too_big": 0,
                      "screened": 0, "dropped": 0, "invoked": 0}

    # -- addresses ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._port

    @property
    def management_port(self) -> int:
        return self._management_port

    @property
    def url(self) -> str:
        """The WebSocket URL clients connect to (add ``?token=...``)."""
        return f"ws://{self.host}:{self.port}"

    @property
    def management_url(self) -> str:
        """The Management API endpoint (``WEBSOCKET_ENDPOINT``), stage included."""
        return f"http://{self.host}:{self.management_port}/{self.stage}"

    @property
    def domain_name(self) -> str:
        return f"{self.host}:{self.port}"

    def connection_ids(self) -> list[str]:
        """The open connections."""
        with self._lock:
            known = list(self._connections)
        return [connection_id for connection_id in known
                if self.connection(connection_id) is not None]

    def connection(self, connection_id: str) -> Connection | None:
        """The open connection with that id (``None`` once it is closing or closed)."""
        with self._lock:
            conn = self._connections.get(connection_id)
        websocket = None if conn is None else conn.websocket
        if websocket is not None and getattr(websocket.state, "name", "OPEN") != "OPEN":
            return None
        return conn

    # -- life cycle --------------------------------------------------------------------------

    def start(self) -> LocalGateway:
        """Start both servers; returns when they listen."""
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._loop_thread = threading.Thread(target=loop.run_forever,
                                             name="naiko-local-gateway", daemon=True)
        self._loop_thread.start()
        asyncio.run_coroutine_threadsafe(self._start_websocket(), loop).result(timeout=30)
        self._http = _ManagementServer((self.host, self._management_port), self)
        self._management_port = self._http.server_address[1]
        self._http_thread = threading.Thread(target=self._http.serve_forever,
                                             name="naiko-local-management", daemon=True)
        self._http_thread.start()
        log.info("WebSocket API on %s, Management API on %s", self.url, self.management_url)
        return self

    async def _start_websocket(self) -> None:
        from websockets.asyncio.server import serve

        self._server = await serve(
            self._handle, self.host, self._port,
            process_request=self._process_request,
            compression=None,  # API Gateway does not negotiate permessage-deflate
            max_size=(self.limits.message_bytes, self.limits.frame_bytes),
            ping_interval=None,  # API Gateway answers pings but sends none
            server_header="naiko-local",
        )
        self._port = next(iter(self._server.sockets)).getsockname()[1]

    def stop(self) -> None:
        """Close every connection (running ``$disconnect`` for each), then both servers."""
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        loop = self._loop
        if loop is not None and loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(self._stop_websocket(), loop).result(timeout=30)
            except Exception:
                log.exception("stopping the WebSocket server failed")
            loop.call_soon_threadsafe(loop.stop)
            if self._loop_thread is not None:
                self._loop_thread.join(timeout=10)
            loop.close()
        self._loop = None
        if self._own_executor:
            self._executor.shutdown(wait=True)
        self._connect_executor.shutdown(wait=True)

    async def _stop_websocket(self) -> None:
        if self._server is None:
            return
        self._server.close(close_connections=True)
        await self._server.wait_closed()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while (self._running or self._turns or self._tasks) and loop.time() < deadline:
            if self._tasks:
                await asyncio.wait(list(self._tasks), timeout=max(0.0, deadline - loop.time()))
            else:
                await asyncio.sleep(0.01)

    # -- events ------------------------------------------------------------------------------

    def _request_context(self, conn: Connection, route: str, event_type: str,
                         now_ms: int) -> dict[str, Any]:
        request_id = new_id()
        context: dict[str, Any] = {
            "routeKey": route,
            "eventType": event_type,
            "extendedRequestId": request_id,
            "requestTime": _request_time(now_ms),
            "messageDirection": "IN",
            "stage": self.stage,
            "connectedAt": conn.connected_at_ms,
            "requestTimeEpoch": now_ms,
            "identity": {"userAgent": conn.user_agent, "sourceIp": conn.source_ip},
            "requestId": request_id,
            "domainName": self.domain_name,
            "connectionId": conn.connection_id,
            "apiId": self.api_id,
        }
        if conn.authorizer:
            context["authorizer"] = dict(conn.authorizer)
        return context

    def method_arn(self, route: str = "$connect") -> str:
        return (f"arn:aws:execute-api:{self.region}:{self.account_id}:{self.api_id}/"
                f"{self.stage}/{route}")

    async def _call(self, function: str, event: dict[str, Any], *,
                    handshake: bool = False) -> Any:
        loop = asyncio.get_running_loop()
        executor = self._connect_executor if handshake else self._executor
        return await loop.run_in_executor(executor, self.invoke, function, event)

    # -- $connect ----------------------------------------------------------------------------

    async def _process_request(self, websocket: Any, request: Any) -> Any:
        now = _now_ms()
        parts = urlsplit(request.path)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = dict(pairs)
        multi_query: dict[str, list[str]] = {}
        for key, value in pairs:
            multi_query.setdefault(key, []).append(value)
        headers: dict[str, str] = {}
        multi_headers: dict[str, list[str]] = {}
        for key, value in request.headers.raw_items():
            headers[key] = value
            multi_headers.setdefault(key, []).append(value)
        remote = websocket.remote_address
        conn = Connection(connection_id=self._new_connection_id(), connected_at_ms=now,
                          source_ip=str(remote[0]) if remote else "127.0.0.1",
                          user_agent=headers.get("User-Agent", ""), authorizer={},
                          last_active_ms=now)

        def refuse(status: HTTPStatus, message: str) -> Any:
            self.stats["refused"] += 1
            log.info("connection refused: %d %s", status, message)
            return websocket.respond(status, json.dumps({"message": message}) + "\n")

        authorizer = self.routes.authorizer
        if authorizer is not None:
            if any(not query.get(name) for name in self.routes.identity_query):
                return refuse(HTTPStatus.UNAUTHORIZED, UNAUTHORIZED)  # before any Lambda
            event: dict[str, Any] = {
                "type": "REQUEST",
                "methodArn": self.method_arn("$connect"),
                "headers": headers,
                "multiValueHeaders": multi_headers,
                "queryStringParameters": query,
                "multiValueQueryStringParameters": multi_query,
                "stageVariables": {},
                "requestContext": self._request_context(conn, "$connect", "CONNECT", now),
            }
            started = time.monotonic()
            try:
                policy = await self._call(authorizer, event, handshake=True)
            except Exception as error:
                if str(error) == UNAUTHORIZED:
                    return refuse(HTTPStatus.UNAUTHORIZED, UNAUTHORIZED)
                log.warning("authorizer failed: %s", type(error).__name__)
                return refuse(HTTPStatus.INTERNAL_SERVER_ERROR, "Internal server error")
            latency = int((time.monotonic() - started) * 1000)
            allowed = _allows(policy, event["methodArn"])
            if allowed is None:
                return refuse(HTTPStatus.INTERNAL_SERVER_ERROR, "Internal server error")
            if not allowed:
                return refuse(HTTPStatus.FORBIDDEN, "Forbidden")
            context = policy.get("context") or {}
            conn.authorizer = {"principalId": policy.get("principalId"),
                               **{k: v for k, v in context.items()
                                  if isinstance(v, (str, int, float, bool))},
                               "integrationLatency": latency}
            if self.before_connect is not None and isinstance(policy.get("principalId"), str):
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(self._connect_executor, self.before_connect,
                                           policy["principalId"])
        function = self.routes.functions.get("$connect")
        if function is not None:
            event = {"headers": headers, "multiValueHeaders": multi_headers,  # $connect
                     "queryStringParameters": query,
                     "multiValueQueryStringParameters": multi_query,
                     "requestContext": self._request_context(conn, "$connect", "CONNECT", now),
                     "isBase64Encoded": False}
            try:
                result = await self._call(function, event, handshake=True)
            except Exception as error:
                log.warning("$connect failed: %s", type(error).__name__)
                return refuse(HTTPStatus.INTERNAL_SERVER_ERROR, "Internal server error")
            status = result.get("statusCode", 200) if isinstance(result, dict) else 200
            if not 200 <= int(status) < 300:
                return refuse(HTTPStatus(int(status)), HTTPStatus(int(status)).phrase)
        # Known at once, as in API Gateway: the client may use its connection (and others post
        # to it) as soon as the 101 reaches it, before this server's handler for it runs.
        # connection() hides it until the handshake has completed (the websocket is OPEN).
        conn.websocket = websocket
        with self._lock:
            self._handshaking[websocket] = conn
            self._connections[conn.connection_id] = conn
        return None

    def _new_connection_id(self) -> str:
        with self._lock:
            while True:
                connection_id = new_id()
                if connection_id not in self._connections:
                    return connection_id

    # -- an open connection ------------------------------------------------------------------

    async def _handle(self, websocket: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        with self._lock:  # (registered by _process_request; DeleteConnection may have gone)
            conn = self._handshaking.pop(websocket)
        self.stats["connects"] += 1
        log.info("connected %s (%s)", conn.connection_id, conn.authorizer.get("principalId"))
        loop = asyncio.get_running_loop()
        ends = loop.time() + (self.limits.max_connection_seconds or float("inf"))
        try:
            while True:
                timeout = ends - loop.time()
                idle = self.limits.idle_seconds
                idle_timeout = idle is not None and idle < timeout
                if idle_timeout:
                    timeout = idle  # type: ignore[assignment]
                try:
                    async with asyncio.timeout(timeout if timeout != float("inf") else None):
                        message = await websocket.recv()
                except TimeoutError:
                    await websocket.close(1001, "Going away")
                    break
                conn.last_active_ms = _now_ms()
                conn.messages_in += 1
                self.stats["messages"] += 1
                if conn.closing:  # what follows the refusal that closes it goes nowhere
                    self.stats["dropped"] += 1
                    continue
                self._receive(conn, message)
                while len(conn.queue) >= self.queued_frames:  # read no more of this socket
                    conn.space.clear()
                    await conn.space.wait()
        except ConnectionClosed:
            pass
        finally:
            with self._lock:
                self._connections.pop(conn.connection_id, None)
            code, reason = _close_status(websocket.protocol)
            if code == 1009:
                self.stats["too_big"] += 1
            await self._disconnect(conn, code, reason)

    async def _disconnect(self, conn: Connection, code: int | None, reason: str | None) -> None:
        self.stats["disconnects"] += 1
        log.info("disconnected %s (%s %s)", conn.connection_id, code, reason or "")
        function = self.routes.functions.get("$disconnect")
        if function is None:
            return
        now = _now_ms()
        context = self._request_context(conn, "$disconnect", "DISCONNECT", now)
        context["disconnectStatusCode"] = code if code is not None else 1006
        context["disconnectReason"] = reason or ""
        event = {"headers": {"Host": self.domain_name}, "multiValueHeaders": {
            "Host": [self.domain_name]}, "requestContext": context, "isBase64Encoded": False}
        try:
            await self._call(function, event)
        except Exception as error:
            log.warning("$disconnect failed: %s", type(error).__name__)

    def _spawn(self, conn: Connection, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        for tasks in (conn.tasks, self._tasks):
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    def _receive(self, conn: Connection, message: str | bytes) -> None:
        """Route a frame, screen it, and queue it for its function (on the event loop)."""
        if isinstance(message, bytes):
            body, encoded = base64.b64encode(message).decode(), True
            route = "$default"
        else:
            body, encoded = message, False
            route = self.routes.route_of(message)
        function = self.routes.functions.get(route)
        context = self._request_context(conn, route, "MESSAGE", _now_ms())
        context["messageId"] = new_id()
        if function is None:  # no matching route and no $default
            self._spawn(conn, self._reply(conn, {
                "message": "Forbidden", "connectionId": conn.connection_id,
                "requestId": context["requestId"]}))
            return
        event = {"requestContext": context, "body": body, "isBase64Encoded": encoded}
        refusal = None
        if self.screen is not None:
            try:
                refusal = self.screen(function, event)
            except Exception:
                log.exception("screening a frame failed; it goes to %s", function)
        if refusal is not None:
            self.stats["screened"] += 1
            if refusal.reply is not None:
                self._spawn(conn, self._post_quietly(conn, refusal.reply))
            if refusal.close:
                conn.closing = True
                conn.queue.append((None, {}))
                self._take_turn(conn)
            return
        conn.queue.append((function, event))
        self._take_turn(conn)

    def _take_turn(self, conn: Connection) -> None:
        """Put *conn* at the end of the line if it has a frame waiting and room to run it,
        then start what the line and the concurrency allow."""
        if conn.queue and not conn.waiting_turn and conn.running < self.connection_concurrency:
            conn.waiting_turn = True
            self._turns.append(conn)
        while self._turns and self._running < self.message_concurrency:
            ready = self._turns.popleft()
            ready.waiting_turn = False
            function, event = ready.queue.popleft()
            ready.space.set()
            ready.running += 1
            self._running += 1
            self._spawn(ready, self._run(ready, function, event))
            if ready.queue and ready.running < self.connection_concurrency:
                ready.waiting_turn = True  # round robin: back of the line
                self._turns.append(ready)

    async def _run(self, conn: Connection, function: str | None,
                   event: dict[str, Any]) -> None:
        try:
            if function is None:
                await self._close_screened(conn)
            else:
                await self._message(conn, function, event)
        finally:
            conn.running -= 1
            self._running -= 1
            self._take_turn(conn)

    async def _post_quietly(self, conn: Connection, data: bytes) -> None:
        try:
            await self._send(conn, data)
            self.stats["posts"] += 1
        except Gone:
            self.stats["gone"] += 1

    async def _close_screened(self, conn: Connection) -> None:
        """Close a connection a screen refused for good, as ``DELETE @connections`` would."""
        log.info("closing %s: its frames kept exceeding the rate limit", conn.connection_id)
        with self._lock:
            self._connections.pop(conn.connection_id, None)
        if conn.websocket is not None:
            await conn.websocket.close(1000, "Normal closure")

    async def _message(self, conn: Connection, function: str, event: dict[str, Any]) -> None:
        self.stats["invoked"] += 1
        route = event["requestContext"]["routeKey"]
        try:
            await self._call(function, event)
        except Exception as error:
            self.stats["integration_errors"] += 1
            log.warning("%s failed on %s: %s", function, route, type(error).__name__)
            await self._reply(conn, {"message": "Internal server error",
                                     "connectionId": conn.connection_id,
                                     "requestId": event["requestContext"]["requestId"]})

    async def _reply(self, conn: Connection, message: dict[str, Any]) -> None:
        try:
            await self._send(conn, json.dumps(message).encode())
        except Gone:
            pass

    async def _send(self, conn: Connection, data: bytes) -> None:
        from websockets.exceptions import ConnectionClosed

        websocket = conn.websocket
        if websocket is None:
            raise Gone(conn.connection_id)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        try:
            if text is None:
                await websocket.send(data)  # binary frame
            elif len(data) <= self.limits.frame_bytes:
                await websocket.send(text)
            else:  # one message in frames of at most 32 KB, as API Gateway sends it
                await websocket.send(list(utf8_fragments(data, self.limits.frame_bytes)))
        except ConnectionClosed as exc:
            raise Gone(conn.connection_id) from exc
        conn.messages_out += 1

    # -- the Management API (called from the HTTP server's threads) --------------------------

    def post(self, connection_id: str, data: bytes) -> None:
        """``PostToConnection``: deliver *data* to the connection as one message.

        :raises Gone: If the connection does not exist or closed.
        """
        conn = self.connection(connection_id)
        loop = self._loop
        if conn is None or loop is None:
            self.stats["gone"] += 1
            raise Gone(connection_id)
        future = asyncio.run_coroutine_threadsafe(self._send(conn, data), loop)
        try:
            future.result(timeout=self.post_timeout)
        except Gone:
            self.stats["gone"] += 1
            raise
        self.stats["posts"] += 1

    def describe(self, connection_id: str) -> dict[str, Any]:
        """``GetConnection``. :raises Gone:"""
        conn = self.connection(connection_id)
        if conn is None:
            raise Gone(connection_id)
        return {"connectedAt": _iso(conn.connected_at_ms),
                "identity": {"sourceIp": conn.source_ip, "userAgent": conn.user_agent},
                "lastActiveAt": _iso(conn.last_active_ms)}

    def delete(self, connection_id: str) -> None:
        """``DeleteConnection``: close the connection (``$disconnect`` follows). :raises Gone:"""
        conn = self.connection(connection_id)
        loop = self._loop
        if conn is None or loop is None or conn.websocket is None:
            raise Gone(connection_id)
        with self._lock:  # gone for the Management API at once, as in API Gateway
            self._connections.pop(connection_id, None)
        asyncio.run_coroutine_threadsafe(conn.websocket.close(1000, "Normal closure"),
                                         loop).result(timeout=self.post_timeout)


def _close_status(protocol: Any) -> tuple[int, str]:
    """The ``disconnectStatusCode`` and reason of a closed connection: the code of whichever
    side closed first (the gateway's own 1009 or 1001, the client's close), 1006 when the
    connection dropped without a closing handshake."""
    sent, received = protocol.close_sent, protocol.close_rcvd
    first = sent if sent is not None and (
        received is None or protocol.close_rcvd_then_sent is False) else received
    if first is None:
        return 1006, "Connection dropped"
    return int(first.code), str(first.reason)


def _allows(policy: Any, method_arn: str) -> bool | None:
    """Whether an authorizer's *policy* allows ``execute-api:Invoke`` on *method_arn*
    (``None``: not a valid authorizer response, which API Gateway answers with 500).

    >>> arn = "arn:aws:execute-api:us-east-1:1:api/local/$connect"
    >>> stmt = {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": arn}
    >>> _allows({"principalId": "a", "policyDocument": {"Statement": [stmt]}}, arn)
    True
    >>> _allows({"principalId": "a", "policyDocument": {"Statement": [
    ...     {**stmt, "Effect": "Deny"}]}}, arn)
    False
    >>> _allows({"policyDocument": {}}, arn) is None
    True
    """
    import fnmatch

    if not isinstance(policy, dict) or not isinstance(policy.get("principalId"), str):
        return None
    document = policy.get("policyDocument")
    statements = document.get("Statement") if isinstance(document, dict) else None
    if not isinstance(statements, list):
        return None
    allowed = False
    for statement in statements:
        if not isinstance(statement, dict):
            return None
        actions = statement.get("Action")
        resources = statement.get("Resource")
        actions = [actions] if isinstance(actions, str) else actions or []
        resources = [resources] if isinstance(resources, str) else resources or []
        if not any(fnmatch.fnmatchcase("execute-api:Invoke", a) for a in actions):
            continue
        if not any(fnmatch.fnmatchcase(method_arn, r) for r in resources):
            continue
        if statement.get("Effect") == "Deny":
            return False
        if statement.get("Effect") == "Allow":
            allowed = True
    return allowed


# -- the Management API's HTTP server --------------------------------------------------------

class _ManagementServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], gateway: LocalGateway):
        self.gateway = gateway
        super().__init__(address, _ManagementHandler)


class _ManagementHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as boto3's connection pool expects
    server: _ManagementServer
    MARKER = "/@connections/"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("management API: " + format, *args)

    def _connection_id(self) -> str | None:
        path = urlsplit(self.path).path
        index = path.find(self.MARKER)
        if index < 0:
            return None
        raw = path[index + len(self.MARKER):]
        return unquote(raw) if raw and "/" not in raw else None

    def _answer(self, status: int, body: dict[str, Any] | None = None,
                error: str | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("x-amzn-RequestId", new_id())
        if error is not None:
            self.send_header("x-amzn-ErrorType", error)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def _error(self, status: int, code: str, message: str) -> None:
        self._answer(status, {"__type": code, "message": message}, error=code)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _route(self) -> str | None:
        connection_id = self._connection_id()
        if connection_id is None:
            self._read_body()
            self._error(403, "ForbiddenException", "Forbidden")
        return connection_id

    def do_POST(self) -> None:  # noqa: N802
        connection_id = self._route()
        if connection_id is None:
            return
        data = self._read_body()
        gateway = self.server.gateway
        if len(data) > gateway.limits.message_bytes:
            self._error(413, "PayloadTooLargeException",
                        f"Message too long: {len(data)} bytes, at most "
                        f"{gateway.limits.message_bytes}")
            return
        try:
            gateway.post(connection_id, data)
        except Gone:
            self._error(410, "GoneException", "")
            return
        except Exception as error:  # a stuck client: report it like a service error
            log.warning("post to %s failed: %s", connection_id, type(error).__name__)
            self._error(500, "InternalServerErrorException", "Internal server error")
            return
        self._answer(200)

    def do_GET(self) -> None:  # noqa: N802
        connection_id = self._route()
        if connection_id is None:
            return
        try:
            self._answer(200, self.server.gateway.describe(connection_id))
        except Gone:
            self._error(410, "GoneException", "")

    def do_DELETE(self) -> None:  # noqa: N802
        connection_id = self._route()
        if connection_id is None:
            return
        self._read_body()
        try:
            self.server.gateway.delete(connection_id)
        except Gone:
            self._error(410, "GoneException", "")
            return
        self._answer(204)
