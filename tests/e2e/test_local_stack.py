"""End to end over real WebSocket connections (the ``websockets`` client) against the local stack
(``naiko_local``), started in this process on free ports: moto's server for DynamoDB (tables
from ``template.yaml``), the local API Gateway (authorizer, ``$connect``, routes,
``$disconnect``, Management API), local timers, and the real handlers of ``functions/``.

Clients play by reacting to their own prompts with the bots' decision code (``naiko.bots``,
which sees only the seat's view); some seats are the run command's own WebSocket bots
(``naiko_local.stack.BotClient``). The last test starts the run command itself.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("flask", reason="moto's server needs moto[server]")

from naiko import bots  # noqa: E402
from naiko_local.stack import (  # noqa: E402
    BotClient,
    LocalStack,
    StackConfig,
    frame_for,
    my_turn,
    window_aimed_at_me,
)
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

# Powertools warns on every flush of a handler that counted nothing (a stale timer).
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

ROOT = Path(__file__).resolve().parents[2]
REPLIES = ("ack", "error", "snapshot", "tables", "account", "table_found", "tournaments",
           "tournament", "tournament_players", "tournament_results", "standings",
           "update")
"""Message types that answer a request (with its ``request_id``: an ``update`` does when it is
the update of the request's change)."""
BUY_IN = 200
BLINDS = {"small_blind": 1, "big_blind": 2, "min_buy_in": 40, "max_buy_in": 400}


@pytest.fixture
def stack() -> Any:
    """A fresh stack per test (about half a second): the stack lives in this process, and other
    test modules that share a pytest-xdist worker reset moto's backends and the handlers'
    bootstrap between tests. The handlers' output stays on stdout (pytest shows it on a
    failure); the pause between hands is 1 s."""
    local = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1))
    local.start()
    try:
        yield local
    finally:
        local.stop()


def run(coroutine: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
    async def bounded() -> Any:
        async with asyncio.timeout(timeout):
            return await coroutine

    return asyncio.run(bounded())


def unique(name: str) -> str:
    return f"{name}-{secrets.token_hex(3)}"


class Player:
    """A client: one WebSocket connection at a time, every message kept, the newest view."""

    def __init__(self, stack: LocalStack, player_id: str, seed: int = 0):
        self.stack = stack
        self.player_id = player_id
        self.rng = random.Random(seed)
        self.ws: ClientConnection | None = None
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.closed: tuple[int | None, str | None] | None = None
        """``(close code, reason)`` once the connection is closed (the server's, if any)."""
        self._changed = asyncio.Event()
        self._ids = 0
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, token: str | None = None, open_timeout: float = 10) -> Player:
        token = token or self.stack.token(self.player_id)
        self.ws = await connect(f"{self.stack.url}/?token={token}", compression=None,
                                max_size=2**21, open_timeout=open_timeout)
        self.closed = None
        self._reader = asyncio.create_task(self._read(self.ws))
        return self

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                self.messages.append(message)
                version = message.get("version")
                if "view" in message and isinstance(version, int) and version >= self.version:
                    self.version, self.view = version, message["view"]
                self._changed.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed = (ws.close_code, ws.close_reason)
            self._changed.set()

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e for m in self.messages for e in m.get("events") or []]

    def count(self, kind: str) -> int:
        return sum(1 for e in self.events if e["kind"] == kind)

    def next_id(self) -> str:
        self._ids += 1
        return f"{self.player_id}-{self._ids}"

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        async with asyncio.timeout(timeout):
            while True:
                self._changed.clear()
                result = predicate()
                if result:
                    return result
                await self._changed.wait()

    async def send(self, frame: dict[str, Any]) -> str:
        assert self.ws is not None
        request_id = frame.get("request_id") or self.next_id()
        await self.ws.send(json.dumps({**frame, "request_id": request_id}))
        return str(request_id)

    async def request(self, frame: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        request_id = await self.send(frame)
        return dict(await self.wait_for(lambda: next(
            (m for m in self.messages if m.get("request_id") == request_id
             and m.get("type") in REPLIES), None), timeout))

    async def play(self, table_id: str, until: Callable[[], bool]) -> None:
        """Answer every prompt (and Anchor window) of this seat with the bots' choice."""
        acted = None
        while not until():
            view = self.view
            if (view is not None and self.ws is not None and acted != self.version
                    and (my_turn(view) or window_aimed_at_me(view))):
                acted = self.version
                command = bots.decide(view, self.rng) if my_turn(view) else None
                if command is None and window_aimed_at_me(view):
                    command = bots.respond(view, self.rng)
                if command is not None:
                    await self.send(frame_for(command, table_id))
            self._changed.clear()
            if until():
                return
            try:
                async with asyncio.timeout(0.5):
                    await self._changed.wait()
            except TimeoutError:
                pass

    async def drop(self) -> None:
        """Lose the network: no closing handshake (the server sees 1006)."""
        assert self.ws is not None
        self.ws.transport.abort()
        await self.wait_for(lambda: self.closed is not None)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            if self._reader is not None:
                await self._reader


async def seat(players: list[Player], variant: str = "NLHE",
               **settings: Any) -> str:
    """Connect everyone; the first creates a table; everyone sits down (the first hand starts
    with the third player)."""
    for player in players:
        await player.connect()
    ack = await players[0].request({"action": "create_table", "name": f"e2e {variant}",
                                    "variant": variant, "seat_count": 6, **BLINDS, **settings})
    assert ack["type"] == "ack", ack
    table_id = str(ack["table_id"])
    for player in players:
        joined = await player.request({"action": "join_table", "table_id": table_id,
                                       "buy_in": BUY_IN})
        assert joined["type"] == "update" and joined["replayed"] is False, joined
    return table_id


def hand_running(view: dict[str, Any] | None) -> bool:
    return bool(view and view.get("hand") and not view["hand"]["complete"])


def chips_on_table(view: dict[str, Any]) -> int:
    hand = view.get("hand")
    in_play = hand["pot"] + hand["bets_total"] if hand and not hand["complete"] else 0
    return sum(s["stack"] for s in view["seats"] if s) + int(in_play)


def connection_of(stack: LocalStack, player_id: str) -> str:
    for connection_id in stack.gateway.connection_ids():
        connection = stack.gateway.connection(connection_id)
        if connection is not None and connection.authorizer.get("principalId") == player_id:
            return connection_id
    raise AssertionError(f"{player_id} has no open connection")


def has_no_connection(stack: LocalStack, player_id: str) -> bool:
    try:
        connection_of(stack, player_id)
    except AssertionError:
        return True
    return False


# -- connecting --------------------------------------------------------------------------------


def test_a_bad_token_is_refused_at_connect_with_401(stack: LocalStack) -> None:
    from naiko_service import auth

    now = int(time.time())
    other_key = auth.generate_private_key()
    bad = {
        "garbage": "not-a-token",
        "another key": auth.sign_token(other_key, "mallory", issued_at=now,
                                       expires_at=now + 60, issuer=None, audience=None),
        "expired": auth.sign_token(stack.private_key, "mallory", issued_at=now - 7200,
                                   expires_at=now - 3600, issuer=None, audience=None),
        # the right key, but minted for another stage (issue 15: tokens bound to the stage)
        "another stage": auth.sign_token(stack.private_key, "mallory", issued_at=now,
                                         expires_at=now + 60, issuer=auth.stage_claim("prod"),
                                         audience=auth.stage_claim("prod")),
    }

    async def scenario() -> None:
        for token in bad.values():
            with pytest.raises(InvalidStatus) as refused:
                await connect(f"{stack.url}/?token={token}")
            assert refused.value.response.status_code == 401
        with pytest.raises(InvalidStatus) as missing:  # no token: 401 before any Lambda
            await connect(f"{stack.url}/")
        assert missing.value.response.status_code == 401
        player = await Player(stack, unique("welcome")).connect()
        reply = await player.request({"action": "list_tables"})
        assert reply["type"] == "tables"
        await player.close()

    refused_before = stack.gateway.stats["refused"]
    run(scenario())
    assert stack.gateway.stats["refused"] == refused_before + len(bad) + 1  # + no token
    assert has_no_connection(stack, "mallory")


# -- whole hands -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["NLHE", "PLO", "NAIKO"])
def test_clients_and_bots_play_complete_hands_in_every_variant(stack: LocalStack,
                                                               variant: str) -> None:
    hands = 2

    async def scenario() -> list[Player]:
        players = [Player(stack, unique(f"{variant.lower()}{i}"), seed=i) for i in range(2)]
        table_id = await seat(players, variant)
        stop = asyncio.Event()
        robots = [BotClient(stack.url, stack.token(name), name, table_id, buy_in=BUY_IN,
                            seed=i, think=(0.0, 0.02))
                  for i, name in enumerate(unique(f"bot{i}") for i in range(2))]
        bot_tasks = [asyncio.create_task(robot.run(stop)) for robot in robots]

        def done() -> bool:
            return all(p.count("hand_ended") >= hands for p in players)

        await asyncio.gather(*(p.play(table_id, done) for p in players))
        stop.set()
        await asyncio.gather(*bot_tasks)
        assert all(robot.hands_seen >= hands - 1 for robot in robots)
        for player in players:
            seen = player.version
            snapshot = await player.request({"action": "snapshot", "table_id": table_id})
            assert snapshot["type"] == "snapshot" and snapshot["version"] >= seen
            await player.close()
        return players

    players = run(scenario(), timeout=45)
    for player in players:
        # (pushes from concurrent invocations may arrive out of order, as with API Gateway)
        updates = sorted((m for m in player.messages if m["type"] == "update"),
                         key=lambda m: m["version"])
        versions = [m["version"] for m in updates]
        assert len(versions) == len(set(versions)), "a write was pushed twice"
        seat_index = updates[-1]["view"]["seat_index"]
        # No chip is created or lost: what is on the table (stacks, pot, bets) only grows by
        # buy-ins and reloads.
        brought = chips_on_table(updates[0]["view"])
        for message in updates[1:]:
            view = message["view"]
            brought += sum(e["stack"] for e in message["events"] if e["kind"] == "seated")
            brought += sum(e["amount"] for e in message["events"] if e["kind"] == "chips_added")
            assert chips_on_table(view) == brought, message
            if hand_running(view):  # nobody sees another seat's hole cards during a hand
                assert all(s is None or s["seat_index"] == view["seat_index"]
                           or s.get("cards") is None for s in view["seats"])
        assert all(e.get("private_to", seat_index) == seat_index for e in player.events)
        assert player.count("hand_started") >= hands
        assert player.count("pot_awarded") >= hands
    if variant == "NAIKO":
        assert any(e["kind"] == "carousel" for e in players[0].events)


# -- dropping and coming back ------------------------------------------------------------------


def test_a_client_drops_mid_hand_and_reconnects_to_the_confirmed_state(
        stack: LocalStack) -> None:
    async def scenario() -> None:
        players = [Player(stack, unique(f"drop{i}"), seed=10 + i) for i in range(3)]
        table_id = await seat(players)
        leaver = players[2]
        others = players[:2]
        # Everyone plays until it is the leaver's turn in a running hand: it drops right there.
        stop_others = asyncio.Event()
        playing = [asyncio.create_task(p.play(table_id, stop_others.is_set)) for p in others]
        await leaver.wait_for(lambda: hand_running(leaver.view) and my_turn(leaver.view))
        before = leaver.view
        assert before is not None
        my_cards = before["seats"][before["seat_index"]]["cards"]
        await leaver.drop()
        for other in others:  # $disconnect ran: every watcher is told, the seat is kept
            await other.wait_for(lambda o=other: any(
                e["kind"] == "disconnected" and e["player_id"] == leaver.player_id
                for e in o.events))
        assert has_no_connection(stack, leaver.player_id)

        await leaver.connect()  # a new connection, the same player
        snapshot = await leaver.request({"action": "snapshot", "table_id": table_id})
        assert snapshot["type"] == "snapshot"
        view = snapshot["view"]
        for other in others:
            await other.wait_for(lambda o=other: o.version >= snapshot["version"])
            assert any(e["kind"] == "reconnected" and e["player_id"] == leaver.player_id
                       for e in other.events)
            theirs = other.view
            assert theirs is not None and other.version == snapshot["version"]
            for key in ("number", "street", "board", "pot", "bets_total", "current_bet",
                        "actor"):
                assert view["hand"][key] == theirs["hand"][key], key
        # the same seat, the same hand, the same cards, and the turn is still the leaver's
        assert view["seat_index"] == before["seat_index"]
        assert view["hand"]["number"] == before["hand"]["number"]
        assert view["seats"][view["seat_index"]]["cards"] == my_cards
        assert my_turn(view) and view["prompt"]["actions"] == before["prompt"]["actions"]
        assert leaver.player_id not in view["disconnected"]

        # and the hand plays on to its end
        hand_number = view["hand"]["number"]

        def hand_over() -> bool:
            return all(any(e["kind"] == "hand_ended" and e["hand_number"] == hand_number
                           for e in p.events) for p in players)

        await leaver.play(table_id, hand_over)
        stop_others.set()
        await asyncio.gather(*playing)
        for player in players:
            await player.close()

    run(scenario(), timeout=30)


# -- the decision clock ------------------------------------------------------------------------


def test_a_short_clock_makes_a_silent_player_check_or_fold(stack: LocalStack) -> None:
    async def scenario() -> tuple[str, float, dict[str, Any], int]:
        players = [Player(stack, unique(f"clock{i}"), seed=20 + i) for i in range(3)]
        table_id = await seat(players, decision_seconds=5)  # the protocol's minimum
        silent = players[2]
        silent_seat = None

        def timed_out() -> dict[str, Any] | None:
            return next((e for e in players[0].events if e["kind"] == "timed_out"
                         and e["seat_index"] == silent_seat), None)

        playing = [asyncio.create_task(p.play(table_id, lambda: timed_out() is not None))
                   for p in players[:2]]
        await silent.wait_for(lambda: my_turn(silent.view), timeout=15)
        assert silent.view is not None
        silent_seat = silent.view["seat_index"]
        turn_started = time.monotonic()
        event = await players[0].wait_for(timed_out, timeout=10)
        waited = time.monotonic() - turn_started
        await asyncio.gather(*playing)
        for player in players:
            await player.close()
        return table_id, waited, event, silent_seat

    table_id, waited, event, silent_seat = run(scenario(), timeout=40)
    assert event["decision"] in ("check", "fold")
    assert 3.5 <= waited <= 8.0, waited  # the 5 s clock, through a local timer

    def fired() -> list[Any]:  # the timer's invocation may still be pushing its updates
        assert stack.timer_queue is not None
        return [m for m in stack.timer_queue.history if m.wakeup.get("table_id") == table_id
                and str(m.wakeup.get("token")).startswith("decision:") and not m.failed]

    deadline = time.monotonic() + 5
    while not fired() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fired(), "the timed-out decision came from a wake-up on the timer queue"


# -- API Gateway's limits ----------------------------------------------------------------------


def test_malformed_and_oversized_frames_get_errors_and_the_table_survives(
        stack: LocalStack) -> None:
    async def scenario() -> None:
        players = [Player(stack, unique(f"frames{i}"), seed=30 + i) for i in range(3)]
        table_id = await seat(players)
        alice, bob, carol = players
        await alice.wait_for(lambda: hand_running(alice.view))

        def error(code: str, who: Player) -> Callable[[], dict[str, Any] | None]:
            return lambda: next((m for m in who.messages if m["type"] == "error"
                                 and m["code"] == code), None)

        # A frame that is not JSON reaches $default and is answered; the connection stays.
        await alice.ws.send("this is {not json")  # type: ignore[union-attr]
        malformed = await alice.wait_for(error("malformed_json", alice))
        assert malformed["request_id"] is None

        # A 40 KB message sent in frames of at most 32 KB passes API Gateway (128 KB message
        # limit) and the game handler refuses it (32 KB request limit); the connection stays.
        big = json.dumps({"action": "snapshot", "table_id": table_id, "request_id": "big-1",
                          "padding": "x" * 40_000})
        await alice.ws.send([big[:20_000], big[20_000:]])  # type: ignore[union-attr]
        too_large = await alice.wait_for(error("frame_too_large", alice))
        assert too_large["request_id"] is None
        assert (await alice.request({"action": "snapshot", "table_id": table_id}))[
            "type"] == "snapshot"

        # One frame over 32 KB, or a message over 128 KB in any frames: API Gateway closes
        # the connection with 1009 (message too big), and so does the local gateway.
        await bob.ws.send(big)  # type: ignore[union-attr]
        await bob.wait_for(lambda: bob.closed is not None)
        assert bob.closed is not None and bob.closed[0] == 1009, bob.closed
        huge = "y" * 140_000
        await carol.ws.send([huge[i:i + 30_000]  # type: ignore[union-attr]
                             for i in range(0, len(huge), 30_000)])
        await carol.wait_for(lambda: carol.closed is not None)
        assert carol.closed is not None and carol.closed[0] == 1009, carol.closed

        # The stack and the table survive: both come back to their seats and the hand ends.
        for player in (bob, carol):
            await player.connect()
            snapshot = await player.request({"action": "snapshot", "table_id": table_id})
            assert snapshot["type"] == "snapshot"
            assert snapshot["view"]["seat_index"] is not None
        hand_number = alice.view["hand"]["number"]  # type: ignore[index]

        def hand_over() -> bool:
            return all(any(e["kind"] == "hand_ended" and e["hand_number"] == hand_number
                           for e in p.events) for p in (alice,))

        await asyncio.gather(*(p.play(table_id, hand_over) for p in players))
        for player in players:
            await player.close()

    too_big_before = stack.gateway.stats["too_big"]
    run(scenario(), timeout=30)
    assert stack.gateway.stats["too_big"] == too_big_before + 2


# Marked xfail from 2026-12-01 (the local gateway closed a new connection's opening handshake
# while 200 $disconnects ran, under the whole suite's load) until the handshake's functions got
# threads of their own (gateway._connect_executor); it then passed in two whole-suite runs and
# three runs beside a loaded suite, so it is an ordinary test again: it can fail.
def test_200_spectators_dropping_at_once_leave_the_table_answering_in_seconds_not_minutes(
        stack: LocalStack) -> None:
    """Issue 10: spectators cutting their connections together made $disconnect writes fan out
    to every remaining connection and conflict (busy): a new connection waited 299 s for its
    answer. Spectators now come and go in writes nobody is told about, and each drop is
    retried until written. The bound is about liveness (minutes before the fix), not speed:
    the time from the drop to a newcomer's answer, connection included, is printed; the 200
    $disconnects run first, which takes seconds on a small machine."""
    async def scenario() -> float:
        players = [Player(stack, unique(f"p{i}"), seed=i) for i in range(3)]
        table_id = await seat(players)
        watchers = [Player(stack, unique(f"w{i}")) for i in range(200)]
        for start in range(0, len(watchers), 50):  # under the listen backlog (asyncio: 100)
            await asyncio.gather(*(w.connect(open_timeout=60)
                                   for w in watchers[start:start + 50]))
        replies = await asyncio.gather(*(w.request({"action": "snapshot", "table_id": table_id},
                                                   timeout=60) for w in watchers))
        assert all(r["type"] == "snapshot" for r in replies)
        for watcher in watchers:  # the network goes: no closing handshakes, all at once
            assert watcher.ws is not None
            watcher.ws.transport.abort()
        started = time.monotonic()  # from the drop: the newcomer's connection and answer
        newcomer = Player(stack, unique("new"))
        await newcomer.connect(open_timeout=60)
        reply = await newcomer.request({"action": "snapshot", "table_id": table_id},
                                       timeout=60)
        elapsed = time.monotonic() - started
        assert reply["type"] == "snapshot"
        for player in [*players, newcomer]:
            await player.close()
        return elapsed

    elapsed = run(scenario(), timeout=180)
    print(f"\nconnected and answered {elapsed:.2f} s after 200 spectators dropped")
    assert elapsed < 60.0


def test_the_management_api_answers_like_api_gateway(stack: LocalStack) -> None:
    import boto3

    client = boto3.client("apigatewaymanagementapi", region_name="us-east-1",
                          endpoint_url=stack.gateway.management_url)

    async def scenario() -> None:
        player = await Player(stack, unique("mgmt")).connect()
        connection_id = connection_of(stack, player.player_id)
        info = await asyncio.to_thread(client.get_connection, ConnectionId=connection_id)
        assert info["Identity"]["SourceIp"] == "127.0.0.1"
        assert info["ConnectedAt"] <= info["LastActiveAt"] or info["ConnectedAt"]

        await asyncio.to_thread(client.post_to_connection, ConnectionId=connection_id,
                                Data=b'{"hello": 1}')
        await player.wait_for(lambda: {"hello": 1} in player.messages)
        # over 32 KB: delivered whole, in frames of at most 32 KB
        large = {"text": "é" * 30_000}  # 60 KB of UTF-8
        await asyncio.to_thread(client.post_to_connection, ConnectionId=connection_id,
                                Data=json.dumps(large, ensure_ascii=False).encode())
        await player.wait_for(lambda: large in player.messages)
        with pytest.raises(client.exceptions.PayloadTooLargeException):
            await asyncio.to_thread(client.post_to_connection, ConnectionId=connection_id,
                                    Data=b"z" * (128 * 1024 + 1))

        await asyncio.to_thread(client.delete_connection, ConnectionId=connection_id)
        await player.wait_for(lambda: player.closed is not None)
        with pytest.raises(client.exceptions.GoneException):
            await asyncio.to_thread(client.post_to_connection, ConnectionId=connection_id,
                                    Data=b"{}")
        with pytest.raises(client.exceptions.GoneException):
            await asyncio.to_thread(client.get_connection, ConnectionId=connection_id)

    run(scenario())


def test_a_connection_is_usable_as_soon_as_its_handshake_completes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """API Gateway knows a connection once its client has the 101: the client, and the service
    posting to it, may use it before the local gateway's handler for it has started (a loaded
    machine). That handler is held back here by a second."""
    import boto3
    from naiko_local.gateway import LocalGateway

    handle = LocalGateway._handle

    async def late_handle(self: LocalGateway, websocket: Any) -> None:
        await asyncio.sleep(1.0)
        await handle(self, websocket)

    monkeypatch.setattr(LocalGateway, "_handle", late_handle)
    local = LocalStack(StackConfig(port=0, management_port=0)).start()
    try:
        client = boto3.client("apigatewaymanagementapi", region_name="us-east-1",
                              endpoint_url=local.gateway.management_url)

        async def scenario() -> None:
            player = await Player(local, unique("early")).connect()
            connection_id = connection_of(local, player.player_id)
            info = await asyncio.to_thread(client.get_connection, ConnectionId=connection_id)
            assert info["Identity"]["SourceIp"] == "127.0.0.1"
            await asyncio.to_thread(client.post_to_connection, ConnectionId=connection_id,
                                    Data=b'{"early": 1}')
            await player.wait_for(lambda: {"early": 1} in player.messages)
            reply = await player.request({"action": "list_tables"})
            assert reply["type"] == "tables"
            await player.close()

        run(scenario())
    finally:
        local.stop()


# -- the Lambda log ----------------------------------------------------------------------------

PROBE = """\
import sys

OUT = sys.stdout  # taken at load, as Powertools' Logger takes it for its one handler


def lambda_handler(event, context):
    OUT.write(event["line"] + "\\n")
    return len(event["line"])
"""


class _Tee(io.TextIOBase):
    """A console that keeps what it is given and passes it on; never closed (a stack's router
    keeps its console for the life of the process: pytest's ``capsys`` stream would be closed
    after the test)."""

    def __init__(self, out: Any):
        self.out = out
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        self.lines += [line for line in text.splitlines() if line]
        return int(self.out.write(text))

    def flush(self) -> None:
        self.out.flush()


def test_handler_output_racing_the_stack_s_stop_never_hits_the_closed_lambda_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A function keeps writing (from a thread outside the stack's pool, through the stdout it
    took while the stack ran) while the stack stops and after: every line lands in the Lambda
    log until the stack lets it go, then on the console; none hits the closed file (``ValueError:
    I/O operation on closed file``)."""
    import threading

    from naiko_local import template as tpl

    console = _Tee(sys.stdout)
    monkeypatch.setattr(sys, "stdout", console)
    log_path = tmp_path / "lambda.log"
    local = LocalStack(StackConfig(port=0, management_port=0, lambda_log=log_path)).start()
    try:
        (tmp_path / "probe").mkdir()
        (tmp_path / "probe" / "app.py").write_text(PROBE)
        spec = tpl.FunctionSpec("ProbeFunction", "probe/", "app.lambda_handler")
        local.functions.specs["probe"] = spec
        local.functions.modules["probe"] = tpl.load_module(spec.module_path(tmp_path))
    except BaseException:
        local.stop()
        raise
    written, errors = [], []
    first, stopped = threading.Event(), threading.Event()

    def invoke(line: str) -> None:
        try:
            local.functions.invoke("probe", {"line": line})
            written.append(line)
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(f"{line}: {type(error).__name__}: {error}")

    def writer() -> None:
        count = 0
        while not stopped.is_set():
            count += 1
            invoke(f"probe line {count}")
            first.set()
            time.sleep(0.0005)
        invoke("probe line after the stop")

    thread = threading.Thread(target=writer, name="lambda-straggler")
    thread.start()
    assert first.wait(10)
    local.stop()
    stopped.set()
    thread.join(10)
    assert not thread.is_alive()
    assert errors == []
    assert sys.stdout is console  # the stack put back what it found
    logged = log_path.read_text().splitlines()
    printed = [line for line in console.lines if line.startswith("probe")]
    assert logged and logged + printed == written  # each line once, in order
    assert printed[-1:] == ["probe line after the stop"]


def test_a_later_stack_s_handlers_log_to_its_own_lambda_log(tmp_path: Path) -> None:
    """Two stacks one after the other in a fresh process, each with a Lambda log: the
    handlers' Powertools logger, built on the first stack's stdout, writes to the second
    stack's log while that one runs, never to the first's closed file."""
    script = f"""
import asyncio
from pathlib import Path
from naiko_local.stack import LocalStack, StackConfig, request

for name in ("first", "second"):
    stack = LocalStack(StackConfig(port=0, management_port=0,
                                   lambda_log=Path({str(tmp_path)!r}) / f"{{name}}.log")).start()
    try:
        reply = asyncio.run(request(stack.url, stack.token(name), {{"action": "list_tables"}}))
        assert reply["type"] == "tables", reply
    finally:
        stack.stop()
print("done")
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "layers" / "engine"), str(ROOT / "local")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stdout + done.stderr
    assert "Logging error" not in done.stderr and "closed file" not in done.stderr, done.stderr
    for name in ("first", "second"):
        lines = [json.loads(line) for line in (tmp_path / f"{name}.log").read_text().splitlines()]
        authorized = [line for line in lines if line.get("message") == "connection authorized"]
        assert [line["player_id"] for line in authorized] == [name], lines


# -- isolation and memory (issue 10, item 15) ---------------------------------------------------

ISOLATION_PROBE = """\
import threading

from naiko_service import bootstrap

BOTH_INSIDE = threading.Barrier(2, timeout=10)


@bootstrap.entry_point("probe", correlation_id_path="requestContext.requestId")
def lambda_handler(event, context):
    bootstrap.count(event["metric"])
    bootstrap.logger.thread_safe_append_keys(request_id=event["metric"])
    BOTH_INSIDE.wait()  # the other invocation has set its keys and counted too
    keys = bootstrap.logger.registered_formatter.log_format
    return {"function_request_id": keys.get("function_request_id"),
            "own_request_id": context.aws_request_id,
            "correlation_id": keys.get("correlation_id"),
            "request_id": bootstrap.logger.thread_safe_get_current_keys().get("request_id"),
            "metrics": sorted(bootstrap.metrics.provider.metric_set)}
"""


def test_concurrent_invocations_keep_their_own_log_keys_and_metrics(
        stack: LocalStack, tmp_path: Path) -> None:
    """Lambda runs one invocation per container at a time; the local stack runs them side by
    side in one process. Two invocations inside the same function at once each log with their
    own Lambda context and correlation id (Powertools' formatter keys), their own keys, and
    hold only their own metrics (flushed when each ends)."""
    import threading

    from naiko_local import template as tpl

    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "app.py").write_text(ISOLATION_PROBE)
    spec = tpl.FunctionSpec("ProbeFunction", "probe/", "app.lambda_handler")
    stack.functions.specs["probe"] = spec
    stack.functions.modules["probe"] = tpl.load_module(spec.module_path(tmp_path))
    results: dict[str, Any] = {}

    def invoke(metric: str) -> None:
        results[metric] = stack.functions.invoke("probe", {
            "metric": metric, "requestContext": {"requestId": f"corr-{metric}"}})

    threads = [threading.Thread(target=invoke, args=(m,)) for m in ("ProbeA", "ProbeB")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    assert set(results) == {"ProbeA", "ProbeB"}, results
    for metric, seen in results.items():
        assert seen["function_request_id"] == seen["own_request_id"], results
        assert seen["correlation_id"] == f"corr-{metric}", results
        assert seen["request_id"] == metric, results
        assert seen["metrics"] == [metric], results


def test_300_short_connections_leave_no_state_behind(stack: LocalStack) -> None:
    """Issue 10, item 15: the stack's memory grew over a fuzz session and was not released
    (moto kept every model instance it ever created). 300 connections that connect, send a
    frame and close leave nothing per connection: no gateway entry, no connection item, no
    instance in moto's tracker, no logging handler."""
    import logging

    from moto.core.model_instances import model_data

    def handlers() -> int:
        loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                          if isinstance(lg, logging.Logger))]
        return sum(len(lg.handlers) for lg in loggers)

    before = handlers()
    tokens = [stack.token(f"short-{i % 30}") for i in range(300)]

    async def one(token: str) -> None:
        async with connect(f"{stack.url}/?token={token}", compression=None) as ws:
            await ws.send(json.dumps({"action": "list_tables", "request_id": "r1"}))
            assert json.loads(await ws.recv())["type"] == "tables"

    async def scenario() -> None:
        pending = iter(tokens)

        async def worker() -> None:
            for token in pending:
                await one(token)

        await asyncio.gather(*(worker() for _ in range(20)))

    run(scenario(), timeout=60)
    gateway = stack.gateway

    def connection_items() -> int:  # each $disconnect deletes its item (they may still run)
        return int(stack._dynamodb.scan(TableName=stack.table_names["ConnectionsTable"],
                                        Select="COUNT")["Count"])

    deadline = time.monotonic() + 10
    while connection_items() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert connection_items() == 0
    assert gateway.stats["connects"] == gateway.stats["disconnects"] == 300
    assert gateway._connections == {} and gateway._handshaking == {}
    tracked = {name: len(model.instances_tracked)  # type: ignore[attr-defined]
               for name, model in model_data["dynamodb"].items()}
    assert sum(tracked.values()) == 0, tracked
    assert handlers() == before


# -- the run command ---------------------------------------------------------------------------


def test_the_run_command_opens_a_demo_table_with_bots(tmp_path: Path) -> None:
    """``python -m naiko_local.stack`` (what ``scripts/run`` starts): the banner's URL and token
    let a person's client in, the demo table is in the lobby with its bots, and a hand is
    played; SIGINT stops it cleanly."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "layers" / "engine"), str(ROOT / "local")])}
    process = subprocess.Popen(
        [sys.executable, "-m", "naiko_local.stack", "--port", "0", "--bots", "2",
         "--pause-seconds", "1", "--player", "human", "--state-dir", str(tmp_path)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        banner = []
        deadline = time.monotonic() + 30
        assert process.stdout is not None
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            banner.append(line)
            if line.startswith("Ctrl-C"):
                break
        text = "".join(banner)
        command = re.search(r"naiko-client (ws://\S+) (\S+)", text)
        assert command, text
        url, token = command.groups()
        assert (tmp_path / "auth.pem").exists() and (tmp_path / "lambda.log").exists()

        async def play_a_hand() -> None:
            async with connect(f"{url}/?token={token}", compression=None) as ws:
                await ws.send(json.dumps({"action": "list_tables", "request_id": "l1"}))
                tables = json.loads(await ws.recv())
                assert tables["type"] == "tables" and len(tables["tables"]) == 1
                table_id = tables["tables"][0]["table_id"]
                await ws.send(json.dumps({"action": "join_table", "request_id": "j1",
                                          "table_id": table_id, "buy_in": 200}))
                rng = random.Random(1)
                version, acted, dealt = 0, None, set()
                robots: set[str] = set()
                async for raw in ws:
                    message = json.loads(raw)
                    view, events = message.get("view"), message.get("events") or []
                    if view is None:
                        continue
                    # the demo's bots are the service's BOT seats (R8.4), marked is_bot
                    robots |= {s["player_id"] for s in view["seats"] if s and s["is_bot"]}
                    if view["hand"] and any(e["kind"] == "hole_cards" for e in events):
                        dealt.add(view["hand"]["number"])
                    if any(e["kind"] == "hand_ended" and e["hand_number"] in dealt
                           for e in events):
                        assert robots == {"bot-1", "bot-2"}
                        return  # a whole hand, dealt in from the start, is over
                    if message["version"] < version:
                        continue
                    version = message["version"]
                    if my_turn(view) and acted != version:
                        acted = version
                        command = bots.decide(view, rng)
                        if command is not None:
                            await ws.send(json.dumps({**frame_for(command, table_id),
                                                      "request_id": f"a{version}"}))

        run(play_a_hand(), timeout=60)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            output, _ = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    assert process.returncode == 0, output
    assert "Stopping" in output
