#!/usr/bin/env python3
"""What a launch asks of AWS: request rates, concurrency, the quota increases to request, the
warm throughput and the data growth of N busy 6-max tables, a big tournament's registrations,
featured tables' spectators and a reconnect storm after a regional blip, all computed from a
model run this script makes first (``scripts/cost_model.py``'s simulation: humans at a 20 s
clock through the real handlers on moto, wake-up design).

    python scripts/capacity.py [--tables 10000] [--hands 40] [--shards 16] [--lambda-ms MS]
        [--featured 10 --watchers 10000] [--tournament-players 10000 --registration-s 60]
        [--storm-s 120]

The run: one table plays ``--hands`` hands with two spectators watching (their posts counted
apart from the players'); then every player reconnects (``$connect`` and the ``snapshot`` a
client sends to catch up, R8.3) and registers for a Sit & Go (``sng_9max_turbo``, six of
nine: it does not start), each counted on its own. Everything else is arithmetic on those
counts, printed as the tables of ``docs/deploy.md`` ("Capacity for a 10,000-table launch").
The modelled Lambda duration moves with the machine's load (``--lambda-ms`` to fix it).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
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
    "table_wru": 40_000,  # DynamoDB on-demand, per table (the table's maximum)
    "table_rru": 40_000,
    "new_table_wru": 4_000,  # a new on-demand table's warm throughput (writes a second)
}
WATCHERS_MODELLED = 2
"""Spectators on the modelled table (their posts per hand scale to ``--watchers``)."""
RECORDED = ROOT / "scripts" / "capacity_figures.json"
"""The figures of the documented run (``--record``): what :func:`needs` uses when given none
(the tests of ``template.yaml``'s sizing), so they check the table ``docs/deploy.md`` shows."""


def _cost_model() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_cost_model",
                                                  ROOT / "scripts" / "cost_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def run_model(hands: int = 40, seed: int = 1) -> dict[str, float]:
    """Play the model (see the module's doc) and return its figures: per 1,000 hands
    (``messages_in``, ``messages_out`` to players, ``wru`` ..., ``wru:<table>``), per
    spectator per hand, per reconnect and per registration."""
    cost = _cost_model()

    class Measured(cost.Table):  # type: ignore[name-defined,misc]
        watchers: list[Any] = []
        extra: dict[str, Any] = {}

        def setup(self, world: Any) -> None:
            super().setup(world)  # counting from here
            self.watchers, self.extra = [], {}
            world.counting_on = False  # the spectators' arrival is not a hand's cost
            for i in range(WATCHERS_MODELLED):
                watcher = cost.Player(f"watcher{i}", f"conn-watcher{i}")
                world.handlers["connect"].lambda_handler(
                    world.event(watcher, "$connect", "CONNECT"), cost.Context())
                watcher.table_id = world.players[0].table_id
                world.send(watcher, action="snapshot", table_id=watcher.table_id)
                self.watchers.append(watcher)
            world.counting_on = True

        def finish(self, world: Any) -> None:
            super().finish(world)
            counting, kept = world.counting, world.counting.bill
            # every player reconnects: $connect, then the snapshot that catches up
            counting.bill = cost.Bill()
            for player in world.players:
                with counting.invocation("connect"):
                    world.handlers["connect"].lambda_handler(
                        world.event(player, "$connect", "CONNECT"), cost.Context())
                world.send(player, action="snapshot", table_id=player.table_id)
            self.extra["reconnect"] = counting.bill
            # and registers for a Sit & Go that does not start (6 of 9)
            world.counting_on = False
            reply = world.send(world.players[0], action="create_tournament",
                               preset="sng_9max_turbo", entry=100)
            world.counting_on = True
            counting.bill = cost.Bill()
            for player in world.players:
                world.send(player, action="register", tournament_id=reply["tournament_id"])
            self.extra["register"] = counting.bill
            counting.bill = kept

    simulation = Measured("wake-up", hands, seed)
    with contextlib.redirect_stderr(io.StringIO()):
        bill = simulation.run()
    scale = 1000 / bill.hands
    watcher_posts = sum(bill.posts_by_connection[w.connection_id] for w in simulation.watchers)
    invocations = bill.invocations
    figures = {
        "seconds_per_hand": bill.seconds / bill.hands,
        "messages_in": bill.messages_in * scale,
        "messages_out": (bill.messages_out - watcher_posts) * scale,
        "post_bytes": bill.post_bytes / max(1, bill.messages_out),
        "lambda_requests": len(invocations) * scale,
        "lambda_mean_ms": sum(i.modeled_ms for i in invocations) / max(1, len(invocations)),
        "rru": bill.rru * scale,
        "wru": (bill.wru + bill.gsi_wru) * scale,
        "gsi_wru": bill.gsi_wru * scale,
        "wakeups": bill.queue_messages * scale,
        "stored_bytes_per_hand": (sum(bill.history_bytes) + sum(bill.history_entry_bytes)
                                  + cost.ITEM_STORAGE_OVERHEAD * (len(bill.history_bytes)
                                                                  + len(bill.history_entry_bytes)))
        / bill.hands,
        "watcher_posts_per_hand": watcher_posts / WATCHERS_MODELLED / bill.hands,
        "largest_table_item": bill.largest_item.get("naiko-cost-tables", 0),
    }
    for table, units in bill.table_wru.items():
        figures[f"wru:{table.removeprefix('naiko-cost-')}"] = units * scale
    for kind in ("reconnect", "register"):
        part = simulation.extra[kind]
        n = SEATS
        figures[f"{kind}_invocations"] = len(part.invocations) / n
        figures[f"{kind}_rru"] = part.rru / n
        figures[f"{kind}_wru"] = (part.wru + part.gsi_wru) / n
        figures[f"{kind}_posts"] = part.messages_out / n
        figures[f"{kind}_ms"] = (sum(i.modeled_ms for i in part.invocations)
                                 / max(1, len(part.invocations)))
    figures["largest_tournament_item"] = simulation.extra["register"].largest_item.get(
        "naiko-cost-tournaments", 0)
    figures["hands_modelled"] = bill.hands
    return figures


def model() -> dict[str, float]:
    """The figures of the documented run (:data:`RECORDED`, written by ``--record``)."""
    figures: dict[str, float] = json.loads(RECORDED.read_text())
    return figures


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
    hottest_table: str
    hottest_wru: float
    egress_mb_s: float
    stored_gb_day: float


def needs(tables: int, shards: int = 16, figures: dict[str, float] | None = None) -> Needs:
    """The mean rates of *tables* busy tables (peaks are :data:`PEAK` times these), from
    *figures* (:func:`run_model`; default: the documented run's, :func:`model`)."""
    f = model() if figures is None else figures
    hands = tables / f["seconds_per_hand"]

    def rate(name: str) -> float:
        return f[name] / 1000 * hands

    invocations = rate("lambda_requests")
    timer_invocations = rate("wakeups")
    due_writes = rate("gsi_wru")
    per_table = {name[4:]: rate(name) for name in f if name.startswith("wru:")}
    hottest = max(per_table, key=lambda name: per_table[name]) if per_table else "tables"
    return Needs(tables=tables, shards=shards, hands=hands, frames_in=rate("messages_in"),
                 posts_out=rate("messages_out"), invocations=invocations,
                 concurrency=invocations * f["lambda_mean_ms"] / 1000,
                 timer_invocations=timer_invocations,
                 timer_concurrency=timer_invocations * f["lambda_mean_ms"] / 1000,
                 wru=rate("wru"), rru=rate("rru"), due_index_writes=due_writes,
                 per_shard_writes=due_writes / shards, wakeups=timer_invocations,
                 connections=tables * SEATS, reconnects=tables * SEATS / 7_200,
                 hottest_table=hottest, hottest_wru=per_table.get(hottest, rate("wru")),
                 egress_mb_s=rate("messages_out") * f.get("post_bytes", 0) / 1e6,
                 stored_gb_day=hands * 86_400 * f.get("stored_bytes_per_hand", 0) / 1e9)


def _up(value: float, step: int) -> int:
    return int(math.ceil(value / step) * step)


def _rows(width: int, rows: list[tuple[str, float, str, str]]) -> list[str]:
    return [f"{name:{width}}  {mean:>10,.1f}  {mean * PEAK:>10,.1f}  {default} / {action}"
            for name, mean, default, action in rows]


def report(n: Needs) -> str:
    """The docs table: what is needed (mean, peak), the default, what to set or request."""
    warm = max(DEFAULT_QUOTAS["new_table_wru"], _up(n.hottest_wru * PEAK, 1000))
    rows = [
        ("act route (frames in)", n.frames_in, "stage default 200/s per route",
         f"ActThrottlingRateLimit {_up(n.frames_in * PEAK, 1000):,}"),
        ("API Gateway requests (frames in + posts out)", n.frames_in + n.posts_out,
         f"{DEFAULT_QUOTAS['api_rps']:,}/s, burst {DEFAULT_QUOTAS['api_burst']:,}",
         f"request {_up((n.frames_in + n.posts_out) * PEAK, 10_000):,}/s"),
        ("new WebSocket connections (2-hour limit)", n.reconnects,
         f"{DEFAULT_QUOTAS['new_connections']}/s", "default (see the storm below)"),
        ("Lambda invocations", n.invocations, "-", "-"),
        ("Lambda concurrency (all functions)", n.concurrency,
         f"{DEFAULT_QUOTAS['lambda_concurrency']:,}",
         f"request {_up(n.concurrency * PEAK * 2, 1000):,}"),
        ("  of which GameFunction", n.concurrency - n.timer_concurrency, "-",
         f"GameConcurrencyCap {_up((n.concurrency - n.timer_concurrency) * PEAK, 100):,}"),
        ("  of which TimerFunction", n.timer_concurrency, "-",
         f"TimerReservedConcurrency {_up(n.timer_concurrency * PEAK, 50) + 50:,}"),
        ("DynamoDB write units (all tables)", n.wru,
         f"{DEFAULT_QUOTAS['table_wru']:,} per table", "default"),
        (f"  of which {n.hottest_table} (the hottest)", n.hottest_wru,
         f"new table {DEFAULT_QUOTAS['new_table_wru']:,}/s",
         f"WarmThroughput {warm:,}" if n.hottest_wru * PEAK > DEFAULT_QUOTAS["new_table_wru"]
         else "WarmThroughput 0 (off)"),
        ("DynamoDB read units", n.rru, f"{DEFAULT_QUOTAS['table_rru']:,} per table",
         "default"),
        ("due-index writes", n.due_index_writes, f"{PARTITION_WRITES:,} per key",
         f"DueIndexShards {n.shards}: {n.per_shard_writes:,.0f}/s per shard"),
        ("wake-ups (timer queue SendMessage)", n.wakeups, "SQS standard: no quota",
         "- (TimerQueueConcurrency "
         f"{_up(n.timer_concurrency * PEAK, 50):,} invocations at once)"),
        ("internet egress (MB/s, posts)", n.egress_mb_s, "-", "-"),
        ("stored hands (GB a day)", n.stored_gb_day, "-",
         "kept HandRetentionDays (TTL)"),
    ]
    width = max(len(r[0]) for r in rows) + 6
    lines = [f"{n.tables:,} busy 6-max tables ({n.connections:,} connections): "
             f"{n.hands:,.0f} hands/s; peak = {PEAK:g} x mean",
             f"{'':{width}}  {'mean':>10}  {'peak':>10}  default / set or request"]
    lines += _rows(width, rows)
    return "\n".join(lines)


def launch_report(n: Needs, f: dict[str, float], featured: int, watchers: int,
                  players: int, registration_s: float, storm_s: float,
                  retention_days: int) -> str:
    """Spectators, a tournament's registrations, a reconnect storm and the data kept."""
    lines = []
    spectators = featured * watchers
    watcher_posts = n.hands / n.tables * f["watcher_posts_per_hand"] * spectators
    lines.append(f"spectators: {featured:,} featured tables x {watchers:,} watchers = "
                 f"{spectators:,} connections; {f['watcher_posts_per_hand']:.1f} posts per "
                 f"watcher per hand (modelled): {watcher_posts:,.0f} posts/s more, API "
                 f"Gateway total {n.frames_in + n.posts_out + watcher_posts:,.0f}/s mean")
    registrations = players / registration_s
    per_partition = registrations * f["register_wru"]
    lines.append(f"tournament: {players:,} registrations in {registration_s:g} s = "
                 f"{registrations:,.0f}/s, {f['register_wru']:.1f} WRU, "
                 f"{f['register_rru']:.1f} RRU, {f['register_invocations']:.1f} invocations "
                 f"each (modelled): {per_partition:,.0f} WRU/s into one tournament "
                 f"(partition limit {PARTITION_WRITES:,}/s: "
                 f"{'over' if per_partition > PARTITION_WRITES else 'under'}); "
                 f"largest tournament item written {f['largest_tournament_item']:,.0f} B")
    connections = n.connections + spectators
    storm = connections / storm_s
    per_s = DEFAULT_QUOTAS["new_connections"]
    invocations = storm * (f["reconnect_invocations"] + 1)  # + the authorizer's
    lines.append(f"reconnect storm after a regional blip: {connections:,} connections back "
                 f"within {storm_s:g} s = {storm:,.0f} new connections/s (quota {per_s}/s: "
                 f"{'request ' + format(_up(storm, 500), ',') if storm > per_s else 'default'}"
                 f"; at {per_s}/s they take {connections / per_s:,.0f} s); each "
                 f"{f['reconnect_invocations'] + 1:.1f} invocations (authorizer, $connect, "
                 f"snapshot), {f['reconnect_rru']:.1f} RRU, {f['reconnect_wru']:.1f} WRU, "
                 f"{f['reconnect_posts']:.1f} posts: {invocations:,.0f} invocations/s, "
                 f"{storm * f['reconnect_wru']:,.0f} WRU/s, concurrency "
                 f"{invocations * f['reconnect_ms'] / 1000:,.0f} on top of play")
    kept = n.stored_gb_day * retention_days
    lines.append(f"data growth: {n.stored_gb_day:,.1f} GB of hands a day "
                 f"({f['stored_bytes_per_hand']:,.0f} B per hand, record and entries); kept "
                 f"{retention_days} days (HandRetentionDays): {kept:,.0f} GB at steady state; "
                 f"largest table item {f['largest_table_item']:,.0f} B")
    lines.append(f"(model: {f['hands_modelled']:.0f} hands, {f['seconds_per_hand']:.1f} s a "
                 f"hand, Lambda {f['lambda_mean_ms']:.0f} ms mean modelled)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--hands", type=int, default=40,
                        help="hands of the model run the figures come from")
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--lambda-ms", type=float, default=None,
                        help="mean Lambda duration instead of the model's (it moves with "
                             "the measuring machine's load)")
    parser.add_argument("--featured", type=int, default=10, help="featured tables")
    parser.add_argument("--watchers", type=int, default=10_000, help="watchers per featured")
    parser.add_argument("--tournament-players", type=int, default=10_000)
    parser.add_argument("--registration-s", type=float, default=60.0)
    parser.add_argument("--storm-s", type=float, default=120.0,
                        help="seconds in which every client reconnects after a blip")
    parser.add_argument("--retention-days", type=int, default=90)
    parser.add_argument("--record", action="store_true",
                        help=f"write the run's figures to {RECORDED.relative_to(ROOT)} (what "
                             "the template's sizing tests read)")
    args = parser.parse_args(argv)
    figures = run_model(args.hands)
    if args.record:
        RECORDED.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    if args.lambda_ms is not None:
        figures["lambda_mean_ms"] = args.lambda_ms
    n = needs(args.tables, args.shards, figures)
    print(report(n))
    print()
    print(launch_report(n, figures, args.featured, args.watchers, args.tournament_players,
                        args.registration_s, args.storm_s, args.retention_days))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
