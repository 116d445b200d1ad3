"""The clients' keepalive (issue 15, item 13): a heartbeat after each idle period, none while
the client sends on its own, and the connection closed for a fresh one once its time is up.
(``tests/e2e/test_keepalive_e2e.py`` runs it against the local gateway's limits.)"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from naiko_client.keepalive import REFRESH_REASON, KeepAlive, keep_alive


class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[tuple[float, dict[str, Any]]] = []
        self.closed: tuple[int, str] | None = None

    async def send(self, text: str) -> None:
        self.sent.append((time.monotonic(), json.loads(text)))

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def test_an_idle_client_heartbeats_then_reconnects_when_its_time_is_up() -> None:
    ws = FakeSocket()
    policy = KeepAlive(idle_s=0.05, refresh_after_s=0.4, jitter_s=0.0)
    refreshed: list[bool] = []

    async def scenario() -> str:
        return await keep_alive(ws, policy, lambda: 0.0, rng=random.Random(1),
                                on_refresh=lambda: refreshed.append(ws.closed is None))

    started = time.monotonic()
    assert asyncio.run(scenario()) == REFRESH_REASON
    assert 0.38 <= time.monotonic() - started < 1.0
    assert ws.closed == (1000, REFRESH_REASON) and refreshed == [True]  # told before closing
    assert {frame["action"] for _, frame in ws.sent} == {"heartbeat"}
    assert 5 <= len(ws.sent) <= 8  # one per idle period, no more
    gaps = [b - a for (a, _), (b, _) in zip(ws.sent, ws.sent[1:], strict=False)]
    assert min(gaps) >= 0.045


def test_a_client_that_sends_on_its_own_needs_no_heartbeat() -> None:
    ws = FakeSocket()
    policy = KeepAlive(idle_s=0.1, refresh_after_s=0.35, jitter_s=0.0)
    asyncio.run(keep_alive(ws, policy, time.monotonic))  # "just sent something", always
    assert ws.sent == [] and ws.closed == (1000, REFRESH_REASON)


def test_the_refresh_comes_before_api_gateway_s_two_hours_with_jitter() -> None:
    policy = KeepAlive()
    delays = [policy.refresh_delay(random.Random(seed)) for seed in range(200)]
    assert 6400 < min(delays) < max(delays) < 7200 - 300
    assert len({round(d) for d in delays}) > 100  # spread, not all at once
    assert policy.idle_s < 600  # under the 10 idle minutes
