"""The local gateway is fair (issue 29 item 5; docs/local.md, "Fairness"): over real
WebSockets against the local stack, a flooder's backlog waits in its own queue (another
connection's frame is answered before that backlog drained, and the flooder's own frames are
answered in the order they came), and a frame the rate limit refuses never reaches a handler.
No timed assertions: orders and counts only.
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

from naiko_local.stack import LocalStack, StackConfig  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

BACKLOG = 400


def unique(name: str) -> str:
    return f"{name}-{secrets.token_hex(3)}"


def start(env: dict[str, str] | None = None) -> LocalStack:
    return LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                  env=env or {})).start()


def settle(stack: LocalStack, timeout: float = 30.0) -> None:
    """Wait until the gateway has no frame queued or running."""
    gateway = stack.gateway
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (gateway._running or gateway._turns):
        time.sleep(0.05)
    assert not gateway._running and not gateway._turns


def test_a_flooders_backlog_never_delays_another_connections_frame() -> None:
    # limits high enough that every frame of the flood is admitted: a real backlog
    stack = start({"RATE_LIMIT_CONNECTION_BURST": "100000",
                   "RATE_LIMIT_PLAYER_BURST": "100000"})
    try:
        async def scenario() -> tuple[int, list[str]]:
            flooder_url = f"{stack.url}/?token={stack.token(unique('flooder'))}"
            other_url = f"{stack.url}/?token={stack.token(unique('other'))}"
            async with connect(flooder_url, compression=None) as flooder, \
                    connect(other_url, compression=None) as other:
                answered: list[str] = []

                async def read_flooder() -> None:
                    while len(answered) < BACKLOG:
                        message = json.loads(await flooder.recv())
                        if message.get("type") == "account":
                            answered.append(str(message["request_id"]))

                reader = asyncio.create_task(read_flooder())
                for i in range(BACKLOG):
                    await flooder.send(json.dumps({"action": "get_account",
                                                   "request_id": f"f{i}"}))
                while not answered:  # the backlog is being worked through
                    await asyncio.sleep(0.01)
                await other.send(json.dumps({"action": "heartbeat", "request_id": "h-1"}))
                reply = json.loads(await asyncio.wait_for(other.recv(), 30))
                assert (reply["type"], reply["request_id"]) == ("heartbeat", "h-1")
                answered_then = len(answered)
                await asyncio.wait_for(reader, 120)
                return answered_then, answered

        answered_then, answered = asyncio.run(scenario())
        # the other connection's frame went ahead of most of the flooder's backlog ...
        assert answered_then < BACKLOG // 2, answered_then
        # ... and the flooder's frames were each answered, in the order it sent them
        assert answered == [f"f{i}" for i in range(BACKLOG)]
    finally:
        stack.stop()


def test_a_refused_frame_never_reaches_a_handler() -> None:
    stack = start()
    try:
        gateway, functions = stack.gateway, stack.functions
        settle(stack)
        before = (dict(gateway.stats), functions.invocations.get("game", 0))

        async def scenario() -> tuple[list[dict[str, Any]], int | None]:
            replies: list[dict[str, Any]] = []
            async with connect(f"{stack.url}/?token={stack.token(unique('flood'))}",
                               compression=None) as ws:
                for i in range(300):
                    await ws.send(json.dumps({"action": "get_account", "request_id": f"f{i}"}))
                try:
                    async with asyncio.timeout(30):
                        async for raw in ws:
                            replies.append(json.loads(raw))
                except ConnectionClosed:
                    pass
                return replies, ws.close_code

        replies, code = asyncio.run(scenario())
        settle(stack)
        stats = gateway.stats
        screened = stats["screened"] - before[0]["screened"]
        dropped = stats["dropped"] - before[0]["dropped"]
        messages = stats["messages"] - before[0]["messages"]
        invoked = functions.invocations.get("game", 0) - before[1]
        refusals = [r for r in replies if r.get("code") == "rate_limited"]
        accounts = [r for r in replies if r.get("type") == "account"]
        assert code == 1000  # closed by the server, as DELETE @connections does
        limits = stack.service.limiter.limits
        assert screened == limits.close_after == len(refusals)
        # every frame the gateway read was screened out, dropped after the close, or handled
        assert messages == screened + dropped + invoked
        # only the admitted ones reached the handler (its burst), and each was answered
        assert invoked == len(accounts) == stats["invoked"] - before[0]["invoked"]
        assert 0 < invoked <= limits.connection_burst + 2
        assert len(replies) == len(refusals) + len(accounts)
    finally:
        stack.stop()
