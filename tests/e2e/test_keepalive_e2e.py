"""Keepalive, the 2-hour limit and the rate limits over real WebSockets (issue 15, items 8 and
13), against the local stack with API Gateway's connection limits shrunk (``Limits``): 10
idle minutes become 1.5 s, 2 hours become 4 s, and the clients' keepalive shrinks with them.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("flask", reason="moto's server needs moto[server]")

from naiko_client.keepalive import REFRESH_REASON, KeepAlive  # noqa: E402
from naiko_local.gateway import Limits  # noqa: E402
from naiko_local.stack import BotClient, LocalStack, StackConfig, request  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

IDLE_S = 1.5
MAX_AGE_S = 4.0
GOING_AWAY = 1001
"""The close code of the gateway's idle and duration limits."""


@pytest.fixture
def stack() -> Any:
    local = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                   limits=Limits(idle_seconds=IDLE_S,
                                                 max_connection_seconds=MAX_AGE_S)))
    local.start()
    try:
        yield local
    finally:
        local.stop()


def unique(name: str) -> str:
    return f"{name}-{secrets.token_hex(3)}"


def closed_at(connection: tuple[float, float | None, int | None, str]) -> float:
    """When a :attr:`BotClient.connections` entry closed (monotonic seconds)."""
    assert connection[1] is not None, connection
    return connection[1]


def test_a_heartbeating_client_outlives_the_idle_limit_and_resumes_its_seat_after_the_max_age(
        stack: LocalStack) -> None:
    async def scenario() -> tuple[str, dict[str, BotClient]]:
        ack = await request(stack.url, stack.token(unique("host")), {
            "action": "create_table", "name": "keepalive", "small_blind": 1, "big_blind": 2,
            "min_buy_in": 40, "max_buy_in": 400})
        assert ack["type"] in ("ack", "update"), ack
        table_id = str(ack["table_id"])
        # Two seats only: no hand starts (a public table needs 3), so the bots stay idle.
        policies = {
            # heartbeats, and reconnects by itself before the 4 s
            "refresher": KeepAlive(idle_s=0.4, refresh_after_s=2.8, jitter_s=0.2),
            # heartbeats, never reconnects by itself: the gateway closes it at 4 s
            "outlived": KeepAlive(idle_s=0.4, refresh_after_s=60.0, jitter_s=0.0),
        }
        bots = {name: BotClient(stack.url, stack.token(player), player, table_id, buy_in=200,
                                seed=i, keepalive=policy)
                for i, (name, policy) in enumerate(policies.items())
                for player in [unique(name)]}
        stop = asyncio.Event()
        tasks = [asyncio.create_task(bot.run(stop)) for bot in bots.values()]
        await asyncio.sleep(MAX_AGE_S + 1.5)
        stop.set()
        await asyncio.gather(*tasks)
        return table_id, bots

    started = time.monotonic()
    table_id, bots = asyncio.run(scenario())
    assert time.monotonic() - started < 15
    record = stack.service.deps.tables.load(table_id)
    for name, bot in bots.items():
        first = bot.connections[0]
        lasted = closed_at(first) - first[0]
        assert lasted > IDLE_S + 0.5, (name, bot.connections)  # the heartbeats kept it open
        assert len(bot.connections) >= 2, (name, bot.connections)
        # back on a new connection, the bot resumed its seat from a snapshot
        assert record.seat_of(bot.player_id) is not None, name
        assert bot.view is not None and bot.view["seat_index"] == record.seat_of(bot.player_id)
        assert not [e for e in bot.errors if e.get("code") == "rate_limited"]
    refresher, outlived = bots["refresher"], bots["outlived"]
    # the refresher closed its connection itself, before the gateway's 4 s, and never met them
    assert refresher.connections[0][2:] == (1000, REFRESH_REASON)
    assert closed_at(refresher.connections[0]) - refresher.connections[0][0] < MAX_AGE_S
    assert all(c[2] != GOING_AWAY for c in refresher.connections)
    # at once, without the reconnect backoff (0.5 s)
    assert refresher.connections[1][0] - closed_at(refresher.connections[0]) < 0.4
    # the other one met the 2-hour limit (4 s here), reconnected and resumed
    assert outlived.connections[0][2] == GOING_AWAY
    assert closed_at(outlived.connections[0]) - outlived.connections[0][0] >= MAX_AGE_S - 0.1


def test_a_silent_client_is_closed_at_the_idle_limit(stack: LocalStack) -> None:
    async def scenario() -> tuple[float, int | None]:
        async with connect(f"{stack.url}/?token={stack.token(unique('silent'))}",
                           compression=None) as ws:
            opened = time.monotonic()
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), timeout=IDLE_S + 3)
            return time.monotonic() - opened, ws.close_code

    lasted, code = asyncio.run(scenario())
    assert code == GOING_AWAY and IDLE_S - 0.2 <= lasted < IDLE_S + 1.5


def test_a_heartbeat_is_answered_with_the_server_time(stack: LocalStack) -> None:
    reply = asyncio.run(request(stack.url, stack.token(unique("beat")),
                                {"action": "heartbeat"}, expect=("heartbeat",)))
    assert reply["type"] == "heartbeat"
    assert abs(reply["server_time_ms"] - time.time() * 1000) < 5_000


def test_a_flood_over_a_real_connection_is_refused_then_closed(stack: LocalStack) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], int | None]:
        replies: list[dict[str, Any]] = []
        async with connect(f"{stack.url}/?token={stack.token(unique('flood'))}",
                           compression=None) as ws:
            for i in range(90):
                await ws.send(json.dumps({"action": "get_account", "request_id": f"f{i}"}))
            try:
                async with asyncio.timeout(15):
                    async for raw in ws:
                        replies.append(json.loads(raw))
            except ConnectionClosed:
                pass
            return replies, ws.close_code

    replies, code = asyncio.run(scenario())
    time.sleep(1.0)  # the frames still in flight finish before the stack stops
    codes = [r.get("code") for r in replies if r.get("type") == "error"]
    assert codes and set(codes) == {"rate_limited"}
    assert any(r.get("type") == "account" for r in replies)
    assert code == 1000  # closed by the server (DELETE @connections)


def test_the_terminal_client_reconnects_before_the_max_age_and_keeps_its_seat(
        stack: LocalStack) -> None:
    import io

    from naiko_client.app import Client

    player = unique("term")

    async def scenario() -> tuple[str, Client]:
        ack = await request(stack.url, stack.token(unique("host")), {
            "action": "create_table", "name": "terminal", "small_blind": 1, "big_blind": 2,
            "min_buy_in": 40, "max_buy_in": 400})
        table_id = str(ack["table_id"])
        client = Client(stack.url, stack.token(player), table_id=table_id, buy_in=200,
                        out=io.StringIO(), in_fd=0, player_id=player,
                        keepalive=KeepAlive(idle_s=0.4, refresh_after_s=2.5, jitter_s=0.1))
        loop = asyncio.create_task(client.connection_loop())
        await asyncio.sleep(MAX_AGE_S + 1.0)
        client.quit()
        await asyncio.wait_for(loop, 5)
        return table_id, client

    table_id, client = asyncio.run(scenario())
    assert client.refreshes >= 1  # closed and reopened by itself, before the gateway's 4 s
    assert client.view is not None and client.view["seat_index"] is not None
    record = stack.service.deps.tables.load(table_id)
    assert record.seat_of(player) == client.view["seat_index"]
    assert "Connection lost" not in client.status
