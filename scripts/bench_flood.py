"""Does a flooding connection stall the other tables of the local stack? (issue 29 item 5)

Starts the local stack in this process (moto, the local API Gateway, local timers, the real
Lambda handlers), seats 4 WebSocket bots at each of a few tables (``naiko_local.stack.BotClient``
deciding with ``naiko.bots`` after a short think) and times their actions (frame sent -> its
answer received, as ``scripts/load.py`` does) in three phases of the same length:

``normal``
    nobody floods;
``1 flooder``
    at the phase's start one connection sends 1,000 ``get_account`` frames within about 10 ms
    (the game handler's rate limit answers them ``rate_limited`` and closes the connection);
``30 flooders``
    30 connections (30 players) do the same at once.

It prints p50, p99 and the slowest action of each phase side by side, their ratio to the
normal phase, and what the flooders got back (answers, ``rate_limited`` refusals, when their
connection closed). The machine is a shared 2-core VM: read the ratios.

    .venv/bin/python scripts/bench_flood.py --tables 3 --seconds 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "local"))

from naiko_local.stack import (  # noqa: E402
    BotRunner,
    LocalStack,
    StackConfig,
    TimedBotClient,
    open_demo_table,
)

SEATS = 4
BUY_IN = 200
FRAMES = 1000
SEND_WINDOW_S = 0.010


class TimedBot(TimedBotClient):
    """A bot that times each of its actions, from the frame sent to its answer."""

    samples: list[tuple[float, float]] = []
    """(sent at, latency) of every action, all bots."""
    lock = threading.Lock()

    def timed(self, sent: float, latency: float, answer: dict[str, Any]) -> None:
        with TimedBot.lock:
            TimedBot.samples.append((sent, latency))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


async def flood(url: str, token: str, frames: int) -> dict[str, Any]:
    """One connection: *frames* frames as fast as it can (about 10 ms for 1,000), then read
    the answers until the server closes it (or 30 s)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    got = {"answers": 0, "rate_limited": 0, "closed_after_s": float("nan"), "send_ms": 0.0}
    async with connect(f"{url}/?token={token}", compression=None, open_timeout=30) as ws:
        started = time.perf_counter()
        for i in range(frames):
            await ws.send(json.dumps({"action": "get_account", "request_id": f"f{i}"}))
        got["send_ms"] = (time.perf_counter() - started) * 1000
        try:
            async with asyncio.timeout(30):
                async for raw in ws:
                    message = json.loads(raw)
                    got["answers"] += 1
                    got["rate_limited"] += message.get("code") == "rate_limited"
        except (ConnectionClosed, TimeoutError):
            pass
        got["closed_after_s"] = time.perf_counter() - started
    return got


async def floods(url: str, tokens: list[str]) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(flood(url, token, FRAMES) for token in tokens)))


def phase(stack: LocalStack, name: str, flooders: int, seconds: float,
          tag: str) -> dict[str, Any]:
    tokens = [stack.token(f"flooder-{tag}-{i}") for i in range(flooders)]
    start = time.perf_counter()
    results: list[dict[str, Any]] = []
    thread = None
    if flooders:
        def run() -> None:
            results.extend(asyncio.run(floods(stack.url, tokens)))

        thread = threading.Thread(target=run, name="flooders", daemon=True)
        thread.start()
    time.sleep(seconds)
    if thread is not None:
        thread.join(timeout=60)
    with TimedBot.lock:
        latencies = [lat for sent, lat in TimedBot.samples
                     if start <= sent < start + seconds]
    return {
        "phase": name, "actions": len(latencies),
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": max(latencies, default=float("nan")) * 1000,
        "flooders": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=3, help="tables of 4 bots (default 3)")
    parser.add_argument("--seconds", type=float, default=8.0,
                        help="length of each phase (default 8)")
    parser.add_argument("--think", type=float, default=0.2,
                        help="bots think up to this many seconds before acting (default 0.2)")
    args = parser.parse_args(argv)

    state_dir = Path(tempfile.mkdtemp(prefix="naiko-flood-"))
    stack = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                   lambda_log=state_dir / "lambda.log"))
    stack.start()
    runner = BotRunner()
    bots: list[TimedBot] = []
    rows = []
    try:
        for t in range(args.tables):
            table = open_demo_table(stack, variant="NLHE", seats=SEATS, small_blind=1,
                                    big_blind=2, decision_seconds=None, bots=False)
            for i in range(SEATS):
                player = f"bench-{t}-{i}"
                bot = TimedBot(stack.url, stack.token(player), player, table.table_id,
                               buy_in=BUY_IN, seed=t * 100 + i, think=(0.0, args.think))
                bots.append(bot)
                runner.add(bot)
        warm_until = time.perf_counter() + 30
        while time.perf_counter() < warm_until and any(
                b.view is None or b.view.get("seat_index") is None or b.view.get("hand") is None
                for b in bots):
            time.sleep(0.2)
        time.sleep(1.0)
        for name, flooders, tag in (("normal", 0, "n"), ("1 flooder", 1, "a"),
                                    ("30 flooders", 30, "b")):
            rows.append(phase(stack, name, flooders, args.seconds, tag))
            time.sleep(2.0)  # let the tables settle between phases
        gateway = stack.gateway.stats
    finally:
        runner.stop()
        stack.stop()

    base = rows[0]
    print(f"local stack, {args.tables} tables of {SEATS} WebSocket bots (think 0-{args.think:g} s),"
          f" {args.seconds:g} s per phase; a flooder sends {FRAMES:,} get_account frames at once")
    print(f"{'phase':<12} {'actions':>7} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9} "
          f"{'p50 x':>7} {'p99 x':>7}   flooders: sent in, answers, rate_limited, closed after")
    for r in rows:
        fl = r["flooders"]
        flood_text = ""
        if fl:
            flood_text = (f"{max(f['send_ms'] for f in fl):.0f} ms, "
                          f"{sum(f['answers'] for f in fl)}, "
                          f"{sum(f['rate_limited'] for f in fl)}, "
                          f"{max(f['closed_after_s'] for f in fl):.2f} s (slowest)")
        print(f"{r['phase']:<12} {r['actions']:>7} {r['p50_ms']:>9.1f} {r['p99_ms']:>9.1f} "
              f"{r['max_ms']:>9.1f} {r['p50_ms'] / base['p50_ms']:>6.1f}x "
              f"{r['p99_ms'] / base['p99_ms']:>6.1f}x   {flood_text}")
    print("gateway:", ", ".join(f"{k} {v}" for k, v in sorted(gateway.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
