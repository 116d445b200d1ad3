#!/usr/bin/env python3
"""What a launch of N busy 6-max tables asks of AWS: request rates, concurrency and the quota
increases to request, from the cost model's per-hand figures (``scripts/cost_model.py``,
wake-up design, humans at a 20 s clock).

    python scripts/capacity.py [--tables 10000] [--shards 16] [--lambda-ms MS]

The per-1,000-hand figures below are the cost model's documented run (``docs/timers.md``,
"The numbers"); re-run the model and update :data:`PER_1000_HANDS` when the service changes
what it sends or writes. Everything else is arithmetic, printed as the table in
``docs/deploy.md`` ("Capacity for a 10,000-table launch").
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

PER_1000_HANDS = {
    "seconds_per_hand": 40.1,
    "messages_in": 10_610.0,
    "messages_out": 71_130.0,
    "lambda_requests": 14_150.0,
    "lambda_mean_ms": 42.0,
    "rru": 14_150.0,
    "wru": 65_685.0,
    "gsi_wru": 8_680.0,
    "wakeups": 3_540.0,
}
"""``scripts/cost_model.py --hands 200``, wake-up design (the queue), 2026-12-01
(docs/timers.md, "The numbers")."""

SEATS = 6
PEAK = 2.0
"""Peak over mean assumed for request rates and concurrency (hands are not evenly spread)."""
PARTITION_WRITES = 1_000
"""DynamoDB: write units a second one partition (one index key) takes."""
DEFAULT_QUOTAS = {
    "api_rps": 10_000,  # API Gateway, account and region, all APIs (frames in and posts out)
    "api_burst": 5_000,
    "new_connections": 500,  # WebSocket new connections per second, account and region
    "lambda_concurrency": 1_000,
    "table_wru": 40_000,  # DynamoDB on-demand, per table
    "table_rru": 40_000,
}


@dataclass(frozen=True)
class Needs:
    """What *tables* busy tables need, per second unless said."""

    tables: int
    shards: int
    hands: float
    frames_in: float
    posts_out: float
    invocations: float
    concurrency: float
    timer_invocations: float
    timer_concurrency: float
    wru: float
    rru: float
    due_index_writes: float
    per_shard_writes: float
    wakeups: float
    connections: int
    reconnects: float


def needs(tables: int, shards: int = 16, figures: dict[str, float] | None = None) -> Needs:
    """The mean rates of *tables* busy tables (peaks are :data:`PEAK` times these).

    >>> round(needs(10_000).frames_in)
    2667
    """
    f = PER_1000_HANDS if figures is None else figures
    hands = tables / f["seconds_per_hand"]

    def rate(name: str) -> float:
        return f[name] / 1000 * hands

    invocations = rate("lambda_requests")
    timer_invocations = rate("wakeups")
    due_writes = rate("gsi_wru")
    return Needs(tables=tables, shards=shards, hands=hands, frames_in=rate("messages_in"),
                 posts_out=rate("messages_out"), invocations=invocations,
                 concurrency=invocations * f["lambda_mean_ms"] / 1000,
                 timer_invocations=timer_invocations,
                 timer_concurrency=timer_invocations * f["lambda_mean_ms"] / 1000,
                 wru=rate("wru"), rru=rate("rru"), due_index_writes=due_writes,
                 per_shard_writes=due_writes / shards, wakeups=timer_invocations,
                 connections=tables * SEATS, reconnects=tables * SEATS / 7_200)


def _up(value: float, step: int) -> int:
    return int(math.ceil(value / step) * step)


def report(n: Needs) -> str:
    """The docs table: what is needed (mean, peak), the default, what to set or request."""
    rows = [
        ("act route (frames in)", n.frames_in, "stage default 200/s per route",
         f"ActThrottlingRateLimit {_up(n.frames_in * PEAK, 1000):,}"),
        ("API Gateway requests (frames in + posts out)", n.frames_in + n.posts_out,
         f"{DEFAULT_QUOTAS['api_rps']:,}/s, burst {DEFAULT_QUOTAS['api_burst']:,}",
         f"request {_up((n.frames_in + n.posts_out) * PEAK, 10_000):,}/s"),
        ("new WebSocket connections (2-hour limit)", n.reconnects,
         f"{DEFAULT_QUOTAS['new_connections']}/s", "default (a full reconnect: 2 min)"),
        ("Lambda invocations", n.invocations, "-", "-"),
        ("Lambda concurrency (all functions)", n.concurrency,
         f"{DEFAULT_QUOTAS['lambda_concurrency']:,}",
         f"request {_up(n.concurrency * PEAK * 2, 1000):,}"),
        ("  of which GameFunction", n.concurrency - n.timer_concurrency, "-",
         f"GameConcurrencyCap {_up((n.concurrency - n.timer_concurrency) * PEAK, 100):,}"),
        ("  of which TimerFunction", n.timer_concurrency, "-",
         f"TimerReservedConcurrency {_up(n.timer_concurrency * PEAK, 50) + 50:,}"),
        ("DynamoDB write units (tables, all items)", n.wru,
         f"{DEFAULT_QUOTAS['table_wru']:,} per table", "default; pre-warm (below)"),
        ("DynamoDB read units", n.rru, f"{DEFAULT_QUOTAS['table_rru']:,} per table",
         "default"),
        ("due-index writes", n.due_index_writes, f"{PARTITION_WRITES:,} per key",
         f"DueIndexShards {n.shards}: {n.per_shard_writes:,.0f}/s per shard"),
        ("wake-ups (timer queue SendMessage)", n.wakeups, "SQS standard: no quota",
         "- (TimerQueueConcurrency "
         f"{_up(n.timer_concurrency * PEAK, 50):,} invocations at once)"),
    ]
    width = max(len(r[0]) for r in rows)
    lines = [f"{n.tables:,} busy 6-max tables ({n.connections:,} connections): "
             f"{n.hands:,.0f} hands/s; peak = {PEAK:g} x mean",
             f"{'':{width}}  {'mean':>10}  {'peak':>10}  default / set or request"]
    for name, mean, default, action in rows:
        lines.append(f"{name:{width}}  {mean:>10,.1f}  {mean * PEAK:>10,.1f}  "
                     f"{default} / {action}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--lambda-ms", type=float, default=None,
                        help="mean Lambda duration instead of the cost model's (it moves with "
                             "the measuring machine's load)")
    args = parser.parse_args(argv)
    figures = dict(PER_1000_HANDS)
    if args.lambda_ms is not None:
        figures["lambda_mean_ms"] = args.lambda_ms
    print(report(needs(args.tables, args.shards, figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
