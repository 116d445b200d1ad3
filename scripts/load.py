"""Load the local stack: N tables of WebSocket bots through the local gateway for T seconds.

Starts the local stack in this process (moto, the local API Gateway, local timers, the real
Lambda handlers), opens N tables with 4 bot players each (``naiko_local.stack.BotClient``:
real WebSocket clients deciding with ``naiko.bots`` after a short think), and reports hands/s,
actions/s, the p50/p99 latency of an action (frame sent -> its answer received: the update
carrying its request id, posted with the others of the fan-out after the conditional write)
and the optimistic-lock conflicts and retries the service counted.

    .venv/bin/python scripts/load.py --tables 4 --seconds 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

from naiko_local.stack import (  # noqa: E402
    BotRunner,
    LocalStack,
    StackConfig,
    TimedBotClient,
    open_demo_table,
)

SEATS = 4
BUY_IN = 200


class TimedBot(TimedBotClient):
    """A bot that times each of its actions from the frame sent to the reply received."""

    latencies: list[float] = []
    actions = 0

    def timed(self, sent: float, latency: float, answer: dict[str, Any]) -> None:
        TimedBot.latencies.append(latency)
        TimedBot.actions += answer.get("type") != "error"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def run(tables: int, seconds: float, think: float) -> dict[str, float]:
    TimedBot.latencies, TimedBot.actions = [], 0
    state_dir = Path(tempfile.mkdtemp(prefix="naiko-load-"))
    stack = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                   lambda_log=state_dir / "lambda.log"))
    stack.start()
    counts: Counter[str] = Counter()
    from naiko_service import bootstrap

    service = bootstrap.get_service()
    counted = service.deps.count

    def count(name: str, value: int = 1) -> None:
        counts[name] += value
        counted(name, value)

    service.deps.count = count
    runner = BotRunner()
    bots: list[TimedBot] = []
    try:
        for t in range(tables):
            table = open_demo_table(stack, variant="NLHE", seats=SEATS, small_blind=1,
                                    big_blind=2, decision_seconds=None, bots=False)
            for i in range(SEATS):
                player = f"load-{t}-{i}"
                bot = TimedBot(stack.url, stack.token(player), player, table.table_id,
                               buy_in=BUY_IN, seed=t * 100 + i, think=(0.0, think))
                bots.append(bot)
                runner.add(bot)
        # Warm-up: every bot connected, seated and a hand dealt at every table; the burst of
        # simultaneous joins is not what a running table does, so it is not measured.
        warm_until = time.perf_counter() + 30
        while time.perf_counter() < warm_until and any(
                b.view is None or b.view.get("seat_index") is None or b.view.get("hand") is None
                for b in bots):
            time.sleep(0.2)
        TimedBot.latencies, TimedBot.actions = [], 0
        counts.clear()
        for bot in bots:
            bot.hands_seen, bot.errors = 0, []
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            hands = sum(b.hands_seen for b in bots) / SEATS
            done = int(30 * elapsed / seconds)
            sys.stderr.write(f"\r[{'#' * done}{'.' * (30 - done)}] {elapsed:5.1f}/{seconds:.0f} s"
                             f"  hands {hands:6.0f}  actions {TimedBot.actions:7d}")
            sys.stderr.flush()
            time.sleep(0.5)
        elapsed = time.perf_counter() - start
        sys.stderr.write("\n")
        hands = sum(b.hands_seen for b in bots) / SEATS
        return {
            "tables": tables, "seconds": elapsed, "hands": hands,
            "hands_per_s": hands / elapsed, "actions": TimedBot.actions,
            "actions_per_s": TimedBot.actions / elapsed,
            "p50_ms": percentile(TimedBot.latencies, 0.50) * 1000,
            "p99_ms": percentile(TimedBot.latencies, 0.99) * 1000,
            "mean_ms": statistics.fmean(TimedBot.latencies) * 1000
            if TimedBot.latencies else float("nan"),
            "conflicts": counts["Conflicts"], "retries": counts["Retries"],
            "writes": counts["TableWrites"],
            "errors": sum(len(b.errors) for b in bots),
        }
    finally:
        runner.stop()
        stack.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 4, 16],
                        help="numbers of concurrent tables, one run each (default 1 4 16)")
    parser.add_argument("--seconds", type=float, default=30, help="length of each run")
    parser.add_argument("--think", type=float, default=0.2,
                        help="bots think up to this many seconds before acting (default 0.2)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # a single run in this process: one stack per process, like a fresh machine
        print(json.dumps(run(args.tables[0], args.seconds, args.think)))
        return 0
    rows = []
    for tables in args.tables:
        result = subprocess.run(
            [sys.executable, __file__, "--one", "--tables", str(tables), "--seconds",
             str(args.seconds), "--think", str(args.think)],
            stdout=subprocess.PIPE, text=True, check=True)
        rows.append(json.loads(result.stdout.strip().splitlines()[-1]))
    print(f"local stack, NLHE {SEATS}-max WebSocket bots (think 0-{args.think:g} s), "
          f"{args.seconds:g} s per run after warm-up, 1 s pause between hands")
    print(f"{'tables':>6} {'hands/s':>8} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'writes':>7} {'conflicts':>9} {'retries':>7} {'errors':>6}")
    for r in rows:
        print(f"{r['tables']:>6} {r['hands_per_s']:>8.2f} {r['actions_per_s']:>10.1f} "
              f"{r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['writes']:>7} "
              f"{r['conflicts']:>9} {r['retries']:>7} {r['errors']:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
