""":mod:`naiko_local.web` serves the browser client (``naiko_local/web/``: plain HTML, CSS and
JavaScript modules, no build step, nothing fetched from elsewhere) from the local stack, on a
port of its own (``--web-port``, default the WebSocket port + 2).

The page speaks only the public WebSocket protocol (``docs/protocol.md``) to the local gateway;
this server only hands it its files and, **local mode only**, a token:

``GET /``, ``GET /<file>``
    The client's files (package data of :mod:`naiko_local`), ``index.html`` for ``/``.
``GET /api/config``
    ``{"ws_port": 8765, "ws_path": "/"}``: where the WebSocket API listens (the page connects
    to ``ws://<the host it was loaded from>:<ws_port>/?token=...``, so a phone on the local
    network that loaded the page from the machine's address reaches the same machine).
``GET /api/notifications?player=NAME``
    ``{"player_id", "total", "notifications": [{"kind", "title", "body", "data", "platform"},
    ...]}``: the push notifications the stack's notifier sent to *NAME*'s devices (issue 25;
    the stack has no APNs or FCM: it records them), oldest first, the last 50 of ``total``
    (local mode only, like the token below). The page shows the newest it has not seen as a
    toast when it connects (again).
``GET /api/dev-token?player=NAME``
    ``{"player_id", "token", "expires_at"}``: a v1 token for *NAME* signed with this run's key
    (what ``scripts/mint_token.py`` would print). Anyone who can reach this port may play as
    anyone: it exists because the stack is a development tool (a deployment's tokens come from
    its own sign-in, ``docs/auth.md``). The BOT players' ids (``bot-…``) and the house's
    accounts (``house:…``, which the id pattern refuses anyway) are not handed out.

Why a port of its own rather than the gateway's ``process_request`` hook: the gateway is an API
Gateway stand-in whose every HTTP request is a WebSocket handshake with an authorizer; a web
server inside it would be a behaviour API Gateway does not have.
"""

from __future__ import annotations

import json
import logging
import mimetypes
import re
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from naiko_service.auth import is_bot_id

log = logging.getLogger("naiko_local.web")

PLAYER_ID = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
"""A token's subject (``docs/auth.md``)."""

TOKEN_TTL_S = 12 * 3600

_TYPES = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8",
          ".svg": "image/svg+xml", ".png": "image/png", ".json": "application/json",
          ".ico": "image/x-icon"}


def web_root() -> Traversable:
    """The client's files: the ``web`` folder shipped inside :mod:`naiko_local`."""
    return resources.files("naiko_local") / "web"


def dev_player_ok(player_id: str) -> bool:
    """Whether the dev-token route hands out a token for *player_id*.

    >>> dev_player_ok("alice"), dev_player_ok("bot-1"), dev_player_ok("house:bots")
    (True, False, False)
    >>> dev_player_ok("BOT-2"), dev_player_ok("robot-1")
    (False, True)
    >>> dev_player_ok(""), dev_player_ok("a b")
    (False, False)
    """
    return bool(PLAYER_ID.fullmatch(player_id)) and not is_bot_id(player_id)


class WebServer:
    """The browser client's HTTP server (a :class:`ThreadingHTTPServer` on its own thread).

    :param host: Interface to listen on (the stack's ``--host``).
    :param port: Port (0: any free port).
    :param ws_port: The WebSocket API's port, told to the page (``/api/config``).
    :param mint: ``mint(player_id, ttl_seconds) -> token`` (the stack's :meth:`token`).
    :param notifications: The push notifications of a player (the stack's recorder).
    """

    def __init__(self, host: str, port: int, *, ws_port: int,
                 mint: Callable[[str, int], str],
                 notifications: Callable[[str], list[dict[str, Any]]] | None = None):
        self.host = host
        self.ws_port = ws_port
        self.mint = mint
        self.notifications = notifications
        """``notifications(player_id)``: the push notifications sent to the player's devices
        (``/api/notifications``); ``None``: none are recorded."""
        self._server = _Server((host, port), self)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The page's address (``http://127.0.0.1:8767/``)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="naiko-local-web", daemon=True)
        self._thread.start()
        log.info("web client on %s", self.url)
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], web: WebServer):
        self.web = web
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("web: " + format, *args)

    def _send(self, status: int, body: bytes, content_type: str,
              cache: str = "no-cache") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", cache="no-store")

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        path = parts.path
        web = self.server.web
        if path == "/api/config":
            self._json(200, {"ws_port": web.ws_port, "ws_path": "/"})
            return
        if path == "/api/notifications":
            player = (parse_qs(parts.query).get("player") or [""])[0]
            if not PLAYER_ID.fullmatch(player):
                self._json(400, {"error": "a player id is 1-64 of A-Z a-z 0-9 _ . @ -"})
                return
            sent = web.notifications(player) if web.notifications is not None else []
            self._json(200, {"player_id": player, "total": len(sent),
                             "notifications": sent[-50:]})
            return
        if path == "/api/dev-token":
            player = (parse_qs(parts.query).get("player") or [""])[0]
            if not dev_player_ok(player):
                self._json(400, {"error": "a player id is 1-64 of A-Z a-z 0-9 _ . @ - "
                                          "(not a BOT's bot-N)"})
                return
            self._json(200, {"player_id": player, "token": web.mint(player, TOKEN_TTL_S),
                             "expires_at": int(time.time()) + TOKEN_TTL_S})
            return
        file = _static(path)
        if file is None:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")
            return
        name = file.name
        suffix = name[name.rfind("."):] if "." in name else ""
        content_type = _TYPES.get(suffix) or mimetypes.guess_type(name)[0] or \
            "application/octet-stream"
        self._send(HTTPStatus.OK, file.read_bytes(), content_type)


def _static(path: str) -> Traversable | None:
    """The packaged file a URL path names (``/`` is ``index.html``), or ``None``: no ``..``,
    no hidden files, files only.

    >>> _static("/").name, _static("/js/connection.js").name
    ('index.html', 'connection.js')
    >>> _static("/../web.py"), _static("/js/.x"), _static("/nothing.js")
    (None, None, None)
    """
    parts = [p for p in path.split("/") if p]
    if not parts:
        parts = ["index.html"]
    if any(p in (".", "..") or p.startswith(".") or "\\" in p for p in parts):
        return None
    node = web_root()
    for part in parts:
        node = node / part
    return node if node.is_file() else None
