""":mod:`naiko_client.keepalive` keeps a client's WebSocket connection open for as long as the
player plays (issue 15, item 13).

API Gateway closes a connection that has sent nothing for 10 minutes (it may not answer, and
does not count, WebSocket pings) and every connection after 2 hours. So a client

- sends ``{"action": "heartbeat"}`` whenever it has sent nothing for :attr:`KeepAlive.idle_s`
  (4 minutes), and
- closes its connection itself after :attr:`KeepAlive.refresh_after_s` (1 h 50 min) ± a
  jitter, and reconnects at once; its reconnect sends ``snapshot``, which moves the table's
  subscription to the new connection and returns the confirmed state: the seat was kept all
  along (R8.2, R8.3).

:func:`keep_alive` runs beside a connection; the terminal client and the BOT clients of the
local stack (:class:`naiko_local.stack.BotClient`) use it. Standard library only.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REFRESH_REASON = "refresh"
"""The close reason of a connection the client closed to reconnect before the 2 hours."""


@dataclass(frozen=True)
class KeepAlive:
    """When a client sends ``heartbeat`` and when it reconnects; the defaults fit API
    Gateway's limits (10 minutes idle, 2 hours in all), with a margin."""

    idle_s: float = 240.0
    """Send a heartbeat after this long without sending anything."""
    refresh_after_s: float = 6600.0
    """Reconnect after this long (1 h 50 min)..."""
    jitter_s: float = 180.0
    """... plus or minus up to this much (a tournament's players do not all reconnect at
    once)."""

    def refresh_delay(self, rng: random.Random) -> float:
        """Seconds from opening a connection to closing it for a fresh one.

        >>> KeepAlive(refresh_after_s=100.0, jitter_s=0.0).refresh_delay(random.Random(1))
        100.0
        """
        return max(0.0, self.refresh_after_s + rng.uniform(-self.jitter_s, self.jitter_s))


async def keep_alive(ws: Any, policy: KeepAlive, last_sent: Callable[[], float], *,
                     rng: random.Random | None = None,
                     clock: Callable[[], float] = time.monotonic,
                     on_refresh: Callable[[], None] | None = None) -> str:
    """Keep *ws* open: send a heartbeat whenever nothing was sent for ``policy.idle_s``
    (*last_sent* says when the client last sent a frame, on *clock*); close it with reason
    :data:`REFRESH_REASON` once its time is up. Returns :data:`REFRESH_REASON` then (the
    caller reconnects at once); ends with the connection otherwise (an error sending).

    :param on_refresh: Called just before the refresh closes the connection (the caller's
        reader may see the close before this coroutine returns).
    """
    opened = heartbeat = clock()
    refresh_at = opened + policy.refresh_delay(rng or random.Random())
    while True:
        now = clock()
        if now >= refresh_at:
            if on_refresh is not None:
                on_refresh()
            await ws.close(1000, REFRESH_REASON)
            return REFRESH_REASON
        idle_due = max(last_sent(), heartbeat) + policy.idle_s
        if now >= idle_due:
            await ws.send(json.dumps({"action": "heartbeat"}))
            heartbeat = now
            continue
        await asyncio.sleep(min(refresh_at, idle_due) - now)
