"""A person's session, scripted: the real terminal client (``python -m naiko_client.app``) runs
in a pseudo-terminal against a small WebSocket server in front of the in-memory service, joins
the demo table, and plays a hand to the end from the keyboard. The assertions are on what the
screen showed.

The server (:class:`LocalServer`) is a test stand-in for the local stack's gateway: a
``websockets`` server on 127.0.0.1 (random port) that binds each connection to the player named
by its ``token`` query parameter (used verbatim as the player id), parses frames with
``naiko_service.protocol.parse_request`` and hands them to ``TableService.handle`` of
``service_testing.harness()``, whose gateway is replaced by one that pushes each message to its
connection's socket. Everything service-side runs on the server's event-loop thread; the test
talks to it through :meth:`LocalServer.call`. The demo table's other seats are scripted players
(called directly, marked BOT) that check when they can and call otherwise; due timers fire on
the wall clock, and the test can fire one at once (:meth:`LocalServer.fire_timer`).

Play against it by hand::

    PYTHONPATH=layers/engine:local:tests python tests/e2e/test_client_pty.py   # prints the command
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import itertools
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

websockets = pytest.importorskip("websockets")

from naiko_service.ports import ConnectionGone  # noqa: E402
from naiko_service.protocol import ProtocolError, error_message, parse_request  # noqa: E402
from service_testing import harness  # noqa: E402
from websockets.asyncio.server import ServerConnection, serve  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
_ids = itertools.count(1)


# -- the test server -------------------------------------------------------------------------

class WallClock:
    """The service's clock on real time (the client's countdowns compare with it); ``skew``
    moves it for tests."""

    def __init__(self) -> None:
        self.skew = 0

    @property
    def now(self) -> int:
        return int(time.time() * 1000) + self.skew

    def now_ms(self) -> int:
        return self.now


class SocketGateway:
    """The service's gateway port: each connection id has a sink (a socket's queue, or a
    scripted player); a connection without one is gone, like a 410 from API Gateway."""

    def __init__(self) -> None:
        self.sinks: dict[str, Callable[[dict[str, Any]], None]] = {}
        self.sent: dict[str, list[dict[str, Any]]] = defaultdict(list)

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        sink = self.sinks.get(connection_id)
        if sink is None:
            raise ConnectionGone(connection_id)
        self.sent[connection_id].append(message)
        sink(message)

    def alive(self, connection_id: str) -> bool:
        return connection_id in self.sinks


class ScriptedPlayer:
    """A seat played by the test server itself: after a short think it checks when it can,
    calls otherwise, and lets any Short Anchor aimed at it through. It reacts to the messages
    the service pushes to it, never re-entering the service from inside a push."""

    def __init__(self, server: LocalServer, player_id: str, anchor: str | None = None):
        self.server = server
        self.player_id = player_id
        self.anchor = anchor  # a player to Short Anchor whenever the prompt allows it
        self.connection_id = f"script-{player_id}-{next(_ids)}"
        self.view: dict[str, Any] | None = None
        self.scheduled = False
        self.errors: list[dict[str, Any]] = []
        server.gateway.sinks[self.connection_id] = self.receive
        server.h.accounts.grant(player_id, 10_000)
        server.h.service.connect(self.connection_id, player_id)

    def send(self, **frame: Any) -> None:
        frame.setdefault("request_id", f"{self.player_id}-{next(_ids)}")
        self.server.h.service.handle(self.connection_id, self.player_id,
                                     parse_request(json.dumps(frame)))

    def receive(self, message: dict[str, Any]) -> None:
        if message.get("type") == "error":
            self.errors.append(message)
        if "view" not in message:
            return
        self.view = message["view"]
        if self._wants_to_move() and not self.scheduled:
            self.scheduled = True
            self.server.loop.call_later(self.server.think_s, self._move)

    def _window(self) -> bool:
        hand = (self.view or {}).get("hand") or {}
        windows = (hand.get("powers") or {}).get("windows") or []
        return any(w.get("target") == (self.view or {}).get("seat_index") for w in windows)

    def _wants_to_move(self) -> bool:
        return bool((self.view or {}).get("prompt")) or self._window()

    def _move(self) -> None:
        self.scheduled = False
        view = self.view or {}
        table_id = view.get("table_id")
        if self._window():
            self.send(action="pass_window", table_id=table_id)
            return
        prompt = view.get("prompt")
        if not prompt:
            return
        target = next((i for i, seat in enumerate(view.get("seats") or [])
                       if seat and seat["player_id"] == self.anchor), None)
        if "short_anchor" in prompt["powers"] and target in prompt["anchor_targets"]:
            self.send(action="use_power", table_id=table_id, power="short_anchor",
                      target_seat=target)
            return  # the prompt comes back without powers: then the poker action
        actions = prompt["actions"]
        move = "check" if "check" in actions else "call" if "call" in actions else "fold"
        self.send(action="act", table_id=table_id, move=move)


class LocalServer:
    """The in-memory service behind a WebSocket server, on a thread of its own."""

    def __init__(self, *, seed: int = 7, variant: str = "NAIKO", seat_count: int = 4,
                 scripted: tuple[str, ...] = ("ana", "ben"), decision_seconds: int = 20,
                 think_s: float = 0.2, port: int = 0, anchor: str | None = None):
        self.seed, self.variant, self.seat_count = seed, variant, seat_count
        self.scripted_ids, self.decision_seconds = scripted, decision_seconds
        self.think_s, self.port, self.anchor = think_s, port, anchor
        self.clock = WallClock()
        self.gateway = SocketGateway()
        self.sockets: dict[str, list[ServerConnection]] = defaultdict(list)
        self.frames: list[tuple[str, str]] = []
        self.players: dict[str, ScriptedPlayer] = {}
        self.table_id = ""
        self.auto_timers = True
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._seat_check: Any = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> LocalServer:
        # The scripted seats are marked BOT (for the labels) yet play by requests, which the
        # service refuses for a BOT seat (R8.4: bot_seat). They stand in for the server's own
        # BOT strategy, so the seat check lets these scripted ids through while this runs.
        from naiko_service.usecases import transaction

        checked = self._seat_check = transaction.refuse_bot_seat
        scripted = frozenset(self.scripted_ids)

        def scripted_may_act(record: Any, player_id: str) -> None:
            if player_id not in scripted:
                checked(record, player_id)

        transaction.refuse_bot_seat = scripted_may_act
        self._thread = threading.Thread(target=self._run, name="naiko-test-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(15) or self._error is not None:
            raise RuntimeError(f"the test server did not start: {self._error!r}")
        return self

    def stop(self) -> None:
        if self._stop is not None and self._thread is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
        if self._seat_check is not None:
            from naiko_service.usecases import transaction

            transaction.refuse_bot_seat = self._seat_check  # type: ignore[assignment]
            self._seat_check = None

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by start()
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self.h = harness(self.seed)
        self.h.service.deps.clock = self.clock
        self.h.service.deps.gateway = self.gateway
        self._open_demo_table()
        async with serve(self._handler, "127.0.0.1", self.port,
                         process_request=self._authorize) as server:
            self.port = server.sockets[0].getsockname()[1]
            timers = asyncio.create_task(self._timers())
            self._ready.set()
            await self._stop.wait()
            timers.cancel()

    def call(self, fn: Callable[[], Any], timeout: float = 10) -> Any:
        """Run *fn* on the server's loop thread (where the service lives); return its result."""
        future: Future[Any] = Future()

        def run() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)

        self.loop.call_soon_threadsafe(run)
        return future.result(timeout)

    # -- the table ---------------------------------------------------------------------------

    def _open_demo_table(self) -> None:
        house = "house"
        self.gateway.sinks["house-conn"] = lambda message: None
        self.h.service.connect("house-conn", house)
        self.h.service.handle("house-conn", house, parse_request(json.dumps({
            "action": "create_table", "name": "Demo table", "variant": self.variant,
            "seat_count": self.seat_count, "small_blind": 5, "big_blind": 10,
            "min_buy_in": 200, "max_buy_in": 1000, "decision_seconds": self.decision_seconds,
            "bots": True, "request_id": "house-1"})))
        ack = self.gateway.sent["house-conn"][-1]
        assert ack["type"] in ("ack", "update"), ack
        self.table_id = ack["table_id"]
        for player_id in self.scripted_ids:
            player = self.players[player_id] = ScriptedPlayer(self, player_id, self.anchor)
            player.send(action="join_table", table_id=self.table_id, buy_in=500)
        # The service has no bot seats yet: mark the scripted seats BOT in the stored table.
        record = self.h.store.load(self.table_id)
        marked = record.copy()
        marked.version = record.version + 1
        for seat in marked.state.seats:
            if seat is not None and seat.player_id in self.players:
                seat.is_bot = True
        self.h.store.save(marked, record.version)

    def fire_timer(self, kind: str = "decision") -> bool:
        """Fire the table's pending timer of *kind* now, as if its time had come."""
        def fire() -> bool:
            record = self.h.store.load(self.table_id)
            timer = next((t for t in record.timers if t.kind == kind), None)
            return timer is not None and self.h.service.timer_fired(self.table_id, timer.token)
        return bool(self.call(fire))

    def drop(self, player_id: str) -> int:
        """Cut *player_id*'s sockets abruptly (no closing handshake)."""
        def cut() -> int:
            sockets = list(self.sockets.get(player_id, []))
            for ws in sockets:
                ws.transport.abort()
            return len(sockets)
        return int(self.call(cut))

    def view_of(self, player_id: str) -> dict[str, Any]:
        def read() -> dict[str, Any]:
            record = self.h.store.load(self.table_id)
            return self.h.service.view(record, record.seat_of(player_id))
        return dict(self.call(read))

    async def _timers(self) -> None:
        while True:
            await asyncio.sleep(0.1)
            if not self.auto_timers:
                continue
            for item in list(self.h.scheduler.scheduled):
                table_id, token, due_ms, _kind = item
                if due_ms <= self.clock.now and item in self.h.scheduler.scheduled:
                    self.h.scheduler.scheduled.remove(item)
                    self.h.service.timer_fired(table_id, token)

    # -- connections -------------------------------------------------------------------------

    @staticmethod
    def _token(path: str) -> str | None:
        tokens = parse_qs(urlsplit(path).query).get("token")
        return tokens[0] if tokens else None

    def _authorize(self, connection: ServerConnection, request: Any) -> Any:
        if not self._token(request.path):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "a token is required\n")
        return None

    async def _handler(self, ws: ServerConnection) -> None:
        player_id = self._token(ws.request.path if ws.request else "") or ""
        connection_id = f"ws-{player_id}-{next(_ids)}"
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.gateway.sinks[connection_id] = queue.put_nowait
        self.sockets[player_id].append(ws)
        if self.h.accounts.balance(player_id) == 0:
            self.h.accounts.grant(player_id, 10_000)
        self.h.service.connect(connection_id, player_id)
        writer = asyncio.create_task(self._writer(ws, queue))
        try:
            async for frame in ws:
                text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
                self.frames.append((player_id, text))
                try:
                    request = parse_request(text)
                except ProtocolError as error:
                    self.gateway.send(connection_id, error_message(
                        error.code, error.message, error.request_id))
                else:
                    self.h.service.handle(connection_id, player_id, request)
        except websockets.exceptions.ConnectionClosed:
            pass
        finally:
            self.gateway.sinks.pop(connection_id, None)
            self.sockets[player_id].remove(ws)
            self.h.service.disconnect(connection_id)
            writer.cancel()

    @staticmethod
    async def _writer(ws: ServerConnection, queue: asyncio.Queue[dict[str, Any]]) -> None:
        try:
            while True:
                await ws.send(json.dumps(await queue.get()))
        except websockets.exceptions.ConnectionClosed:
            pass


# -- the terminal ----------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class PtyClient:
    """The real client program in a pseudo-terminal of ROWS x COLS. Its output is split into
    frames (each redraw starts with cursor-home ``ESC[H`` and ends with ``ESC[J``); a frame's
    text, without escapes, is what the screen showed."""

    def __init__(self, *args: str, rows: int = 60, cols: int = 110):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", LC_ALL="C.UTF-8",  # English unless --lang
                   PYTHONPATH=os.pathsep.join([str(ROOT / "layers" / "engine"), str(ROOT / "local"),
                                               os.environ.get("PYTHONPATH", "")]))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "naiko_client.app", *args], stdin=slave, stdout=slave,
            stderr=slave, env=env, start_new_session=True, close_fds=True, cwd=ROOT)
        os.close(slave)
        self.raw = ""
        self.frames: list[str] = []
        self._consumed = 0  # frames already offered to wait_for

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: the program exited and closed the terminal
            return False
        if not data:
            return False
        self.raw += data.decode("utf-8", "replace")
        *complete, rest = self.raw.split("\x1b[H")
        for chunk in complete:
            if "\x1b[J" in chunk:
                self.frames.append(_ANSI.sub("", chunk.split("\x1b[J")[0]).replace("\r", ""))
        if "\x1b[J" in rest:  # a whole frame at the end: keep it, and its tail for later
            frame, _, after = rest.partition("\x1b[J")
            self.frames.append(_ANSI.sub("", frame).replace("\r", ""))
            self.raw = after  # what followed in the same read (the goodbye after the last frame)
        else:
            self.raw = "\x1b[H" + rest if complete else rest
        return True

    @property
    def screen(self) -> str:
        return self.frames[-1] if self.frames else ""

    def wait_for(self, test: str | Callable[[str], Any], timeout: float = 20) -> str:
        """The first new frame on which *test* (a regex, or a predicate) holds."""
        check = (lambda s: re.search(test, s)) if isinstance(test, str) else test
        deadline = time.monotonic() + timeout
        while True:
            while self._consumed < len(self.frames):
                frame = self.frames[self._consumed]
                self._consumed += 1
                if check(frame):
                    return frame
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {test!r}; the screen:\n{self.screen}")
            self._read(0.1)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def command(self, line: str) -> None:
        self.type(line + "\r")

    def wait_exit(self, timeout: float = 10) -> tuple[int, str]:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(0.1)
        while self._read(0.2):
            pass
        tail = _ANSI.sub("", self.raw)
        return self.proc.wait(1), tail

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)
        os.close(self.master)


MY_SEAT = r"(?m)^[> ] +\d+ [A-Z/ ]{5} You +\d+"
"""The row of your own seat: its player is `You` (your id is in the header)."""


def version_of(screen: str) -> int:
    match = re.search(r"version (\d+)", screen)
    return int(match.group(1)) if match else 0


def hand_of(screen: str) -> int:
    """The hand number the header shows (``hand #N``), 0 before the first."""
    numbers = [int(n) for n in re.findall(r"\bhand #(\d+)", screen)]
    return max(numbers, default=0)


def play_until_hand_over(client: PtyClient, on_first_turn: Callable[[str], None] | None = None
                         ) -> tuple[str, list[str]]:
    """Answer every prompt (call, else check) until a pot is awarded; return the screen that
    showed the result and the commands typed."""
    typed: list[str] = []
    hand_over = r"\b(wins|You win) \d+"
    while True:
        screen = client.wait_for(lambda s: "YOUR TURN" in s or re.search(hand_over, s), 30)
        if re.search(hand_over, screen):
            return screen, typed
        if not typed and on_first_turn is not None:
            on_first_turn(screen)
            screen = client.wait_for(lambda s: "YOUR TURN" in s, 10)
        command = "c" if re.search(r"\| c call \d+|^  c call", screen, re.M) else "x"
        before = version_of(screen)
        client.command(command)
        typed.append(command)
        client.wait_for(lambda s, v=before: version_of(s) > v, 10)


# -- the tests -------------------------------------------------------------------------------

@pytest.fixture
def server() -> Any:
    local = LocalServer().start()
    yield local
    local.stop()


@pytest.fixture
def clients() -> Any:
    started: list[PtyClient] = []

    def start(*args: str) -> PtyClient:
        client = PtyClient(*args)
        started.append(client)
        return client

    yield start
    for client in started:
        client.close()


def test_a_person_joins_the_demo_table_and_plays_a_hand_to_the_end(server: LocalServer,
                                                                   clients: Any) -> None:
    client = clients(server.url, "alice")  # no --table: the lobby's only table, the demo
    screen = client.wait_for(MY_SEAT)
    assert "you: alice" in screen  # the header names you; your seat's row says `You`
    # The table: seats with players, stacks and BOT labels, the Naiko columns and the Carousel.
    assert "Demo table [NAIKO 5/10]" in screen
    assert re.search(r"ana BOT\s+\d+", screen) and re.search(r"ben BOT\s+\d+", screen)
    assert "Dest" in screen and "Carousel:" in screen

    client.command("help")
    assert "swap 1|2" in client.wait_for("Commands \\(type one")
    client.command("help")
    client.command("zz")
    client.wait_for("Unknown command 'zz'")

    def first_turn(screen: str) -> None:
        # The prompt: legal actions, amount to call, min/max raise-to and a running countdown.
        assert re.search(r"YOUR TURN\s+\d+s\s+to call \d+\s+raise to \d+\.\.\d+", screen)
        assert re.search(r"f fold \| .*r N raise to N \(\d+-\d+\) \| a all-in", screen)
        assert re.search(r"Your cards: [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]", screen)
        assert re.search(r"\bD\b", screen) and "SB" in screen and "BB" in screen
        # Checked against the prompt before sending: nothing goes to the server.
        sent = len(server.frames)
        client.command("r 1")
        client.wait_for("The smallest raise is to \\d+")
        client.command("swap 3")
        client.wait_for("Type `swap 1` or `swap 2`|Sleeve Swap is not available")
        assert len(server.frames) == sent
        if re.search(r"powers: .*peek \(Peek", screen):
            client.command("peek")  # a power from the keyboard
            client.wait_for("You peek: [2-9TJQKA][cdhs] will come on the")

    screen, typed = play_until_hand_over(client, first_turn)
    assert typed, "alice never got a prompt"
    # Played to the end: a showdown on a full board, the pot awarded with the winning hand.
    assert re.search(r"Board: ([2-9TJQKA][cdhs] ){4}[2-9TJQKA][cdhs] ", screen)
    assert re.search(r"^You show [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]: ", screen, re.M)
    assert re.search(r"^(You win|ana wins|ben wins) \d+ with [a-z]", screen, re.M)
    assert re.search(r"^Result: .*wins? \d+", screen, re.M)
    acts = [json.loads(text) for player, text in server.frames if player == "alice"]
    assert {"join_table", "act"} <= {a["action"] for a in acts}
    assert server.view_of("alice")["hand"]["number"] >= 1
    # R10.2: the cards came with proofs, checked by the client as they arrived
    assert "Deck committed before the deal:" in "\n".join(client.frames)
    assert re.search(r"You are dealt [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]  ✓ proved "
                     r"[2-9TJQKA][cdhs]@\d+ [2-9TJQKA][cdhs]@\d+", "\n".join(client.frames))
    # R10.1: `history` lists the hands; `history 1` reads hand 1 back and checks its deck
    client.command("history")
    client.wait_for("Your last \\d+ hand")
    client.command("history 1")
    client.wait_for("Deck check: .*#1: verified, \\d+ card")

    client.command("leave")
    client.wait_for("You (stand up with \\d+|will leave after this hand)")
    client.command("q")
    code, tail = client.wait_exit()
    assert code == 0
    assert "Bye." in tail


def test_the_client_reconnects_after_a_drop_and_the_clock_acts(server: LocalServer,
                                                               clients: Any) -> None:
    client = clients(server.url, "carol", "--table", server.table_id, "--buy-in", "300")
    screen = client.wait_for(MY_SEAT)
    assert re.search(r"Your cards: .*stack (300|295|290)\b", screen)  # 300, maybe less a blind
    # Wait for a turn of carol's, then cut the socket under the client.
    screen = client.wait_for(lambda s: "YOUR TURN" in s, 30)
    assert re.search(r"YOUR TURN\s+\d+s", screen)
    assert server.drop("carol") == 1
    client.wait_for("OFFLINE")
    screen = client.wait_for("Reconnected: the table shows the server's confirmed state")
    client.wait_for("You are back")
    # Still her turn, in the confirmed state: the decision clock runs out and acts for her.
    client.wait_for("YOUR TURN")
    assert server.fire_timer("decision")
    client.wait_for(r"Your clock ran out: you (check|fold)")
    # And the keyboard still works on the new connection.
    client.command("sitout")
    client.wait_for("You sit out")
    client.command("q")
    assert client.wait_exit()[0] == 0


def test_a_short_anchor_aimed_at_the_person_is_shielded_from_the_keyboard(clients: Any) -> None:
    server = LocalServer(anchor="dora").start()  # the scripted seats anchor dora when they can
    try:
        client = clients(server.url, "dora", "--table", server.table_id)
        window = r"SHIELD WINDOW \d+s: (ana|ben)'s Short Anchor aims at you: `shield`"
        for _ in range(60):  # prompts answered (call, else check) until a window opens
            screen = client.wait_for(lambda s: "YOUR TURN" in s or re.search(window, s), 30)
            if re.search(window, screen):
                break
            before = version_of(screen)
            client.command("c" if "| c call" in screen else "x")
            client.wait_for(lambda s, v=before: version_of(s) > v, 10)
        else:
            raise AssertionError("no Short Anchor was aimed at dora")
        destellos = int(re.search(r"destellos (\d)", screen).group(1))
        assert re.search(r"(ana|ben) uses Short Anchor on you", screen)
        assert re.search(r"Anchor on you by (ana|ben) \(pending\)", screen)
        client.command("shield")
        screen = client.wait_for("You shield: the Short Anchor is cancelled")
        assert "SHIELD WINDOW" not in screen
        assert re.search(r"You use Seal Shield against (ana|ben)", screen)
        assert f"destellos {destellos - 1}" in screen
        assert re.search(r"Anchor on you by (ana|ben) \(shielded\)", screen)
    finally:
        server.stop()


def test_a_person_plays_in_polish(server: LocalServer, clients: Any) -> None:
    """``--lang pl``: the table, the prompt, the help, the client's refusals and its goodbye in
    Polish, the commands typed as in English; no English text of the screens on any frame."""
    client = clients(server.url, "ola", "--lang", "pl")
    screen = client.wait_for(r"(?m)^[> ] +\d+ [A-Z/ ]{5} Ty +\d+")  # your seat: `Ty`
    assert "ty: ola" in screen and "połączono" in screen
    assert re.search(r"Gracz\s+Żetony\s+Stawka\s+Karty\s+Dest\s+Stan", screen)
    assert "Karuzela:" in screen
    client.command("help")
    assert "pokaż lub ukryj tę pomoc" in client.wait_for("Polecenia \\(wpisz jedno")
    client.command("help")
    client.command("zz")
    client.wait_for("Nieznane polecenie 'zz': wpisz `help`.")
    screen = client.wait_for(lambda s: "TWOJA KOLEJ" in s, 30)
    assert re.search(r"TWOJA KOLEJ\s+\d+s\s+do wyrównania \d+", screen)
    assert re.search(r"^  f pas \| ", screen, re.M)
    assert re.search(r"Twoje karty: [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]\s+żetony \d+", screen)
    client.command("r 1")
    client.wait_for("(Podbić|Postawić) można najmniej (do )?\\d+")
    client.command("q")
    code, tail = client.wait_exit()
    assert code == 0 and "Do zobaczenia. Stół " in tail
    english = ("YOUR TURN", "Your cards", "Board:", "Carousel:", "Commands (type", "to call",
               "Player", "Stack", "Unknown command", "online", "Bye.")
    assert [e for e in english if any(e in frame for frame in client.frames)] == []


def test_a_refused_token_ends_the_client_with_a_message(server: LocalServer) -> None:
    client = PtyClient(server.url, "")
    try:
        code, tail = client.wait_exit(15)
    finally:
        client.close()
    assert code == 2
    assert "refused the token (HTTP 401)" in tail


# -- by hand ---------------------------------------------------------------------------------

def serve_forever(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A demo table on the in-memory service.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--variant", default="NAIKO", choices=["NLHE", "PLO", "NAIKO"])
    args = parser.parse_args(argv)
    server = LocalServer(port=args.port, variant=args.variant, think_s=1.0).start()
    print(f"Demo table {server.table_id} ({args.variant}) on {server.url}\nPlay:  "
          f"PYTHONPATH=layers/engine:local python -m naiko_client.app {server.url} alice\n"
          "Ctrl-C stops the server.")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    serve_forever()


def test_a_person_plays_a_hand_on_the_real_local_stack_against_bot_seats(
        clients: Any, tmp_path: Any) -> None:
    """The whole thing a person runs: the local stack of ``scripts/run`` (moto, the local API
    Gateway, local timers, the real handlers) with a demo table whose bots are the service's
    BOT seats; the terminal client, in a pseudo-terminal, joins it and plays a hand to the end."""
    from naiko_local.stack import LocalStack, StackConfig, open_demo_table, seat_server_bots

    stack = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                   lambda_log=tmp_path / "lambda.log")).start()
    try:
        table = open_demo_table(stack, variant="NLHE", seats=3, small_blind=1, big_blind=2,
                                decision_seconds=None, bots=True)
        seat_server_bots(stack, table.table_id, 2, buy_in=200)
        client = clients(stack.url, stack.token("person"), "--table", table.table_id)
        screen = client.wait_for(MY_SEAT, 30)
        assert re.search(r"bot-1 BOT\s+\d+", screen) and re.search(r"bot-2 BOT\s+\d+", screen)
        # A hand can end without the person's turn (both bots fold to the big blind): then
        # the next hand is played, up to three.
        for _ in range(3):
            screen, typed = play_until_hand_over(client)
            if typed:
                break
            played = hand_of(screen)
            client.wait_for(lambda s, n=played: hand_of(s) > n, 30)
        assert typed, "the person never got a prompt"
        assert re.search(r"^(You win|bot-1 wins|bot-2 wins) \d+", screen, re.M)
        client.command("q")
        assert client.wait_exit()[0] == 0
    finally:
        stack.stop()
