#!/usr/bin/env python3
"""One featured table with 10,000 spectators, simulated AWS latencies (issue 23 item 3).

    PYTHONPATH=layers/engine:local:tests .venv/bin/python scripts/bench_watchers.py

A 6-seat table of bots is played through the REAL handlers (``functions/game/app.py`` for every
frame, ``functions/timer/app.py`` for every wake-up), on the in-memory adapters wrapped so that
each port call takes the time of the AWS call it stands for (``bench_scale.LATENCY_MS``,
lognormal, p99 = 2.5 x the median; the same wrappers as ``scripts/bench_scale.py``). The
spectators are items of the in-memory :class:`~naiko_service.ports.Watchers` (a ``Query`` per
page of 1,000, a ``GetItem`` for the counter). Their updates go through a simulated
``WatchersQueue``: ``SendMessage`` takes its latency, the event source mapping hands a FIFO
group's messages to a new worker invocation after :data:`PICKUP_MS` (lognormal too), one group
at a time, up to the function's ``MaximumConcurrency`` (50) invocations at once, each with its
own pool of ``spectators.WATCHER_POST_WORKERS`` posts (each invocation is a Lambda container of
its own: its own threads). A table above 1,000 spectators is split by the first invocation into
16 shard messages, each its own invocation.

The tables (0 and 10,000 spectators) are played in the same process, in turns, one invocation
each, so that both meet the same load of this machine. Each frame waits until the spectators'
worker has finished with the previous update before it is sent (on AWS the worker runs in
other containers, on other cores: here it would steal this machine's CPU from the players'
invocation). Reported, for each table: the players'
own update time (a frame's arrival to the last player's post, p50/p99), the game invocation's
duration, the time to the LAST spectator's update of each version (from the frame's arrival),
and the cost per 1,000 hands of the spectators' path: DynamoDB read units of the pages and the
counter, posts, SQS requests (FIFO), the worker's Lambda requests and GB-seconds (1 GB, its
``MemorySize``), internet egress of the posts. Prices are ``scripts/cost_model.py``'s (SQS FIFO
at $0.50 per million requests).

The time to the last spectator is this machine's: 10,000 posts by up to 512 threads in ONE
Python process share one interpreter lock, where 16 Lambda containers would not; the CPU of
the posts themselves is not simulated (on Lambda, signing and sending a post costs about
1 ms of CPU: :data:`POST_CPU_MS`), which the estimate printed next to it adds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "tests"),
                str(ROOT / "scripts")]

from bench_scale import (  # noqa: E402
    LATENCY_MS,
    SIGMA,
    CountingGateway,
    Latency,
    Slow,
    TimedGateway,
    _action,
    _save_operation,
    pct,
)

PICKUP_MS = 20.0
"""Median from ``SendMessage`` to the worker's invocation (the event source mapping's long
poll answers as soon as a message is there; an ASSUMED figure, docs/benchmarks.md)."""
WORKER_CONCURRENCY = 50
"""``WatchersFunction``'s ``ScalingConfig.MaximumConcurrency``."""
WORKER_GB = 1.0
"""``WatchersFunction``'s ``MemorySize`` (1024 MB)."""
POST_CPU_MS = 1.0
"""CPU of one post on a Lambda of 1 GB (about 0.58 vCPU): SigV4 signing and the HTTPS request
(an ASSUMED figure: botocore's per-call overhead measured on this machine, x 1.7)."""
SQS_FIFO_REQUEST = 0.50 / 1e6
"""https://aws.amazon.com/sqs/pricing/ (FIFO queue, per request of up to 64 KB)."""
SQS_REQUESTS_PER_MESSAGE = 3
"""Send, the mapping's receive (shared by a batch: counted whole, an upper bound) and delete."""
WARM_UP = 3
"""Game frames played before measuring (the first loads the service, a cold start's work)."""
ITEM_BYTES = 110
"""A spectator item's size: ``table_id``, ``watcher`` (shard, ``#``, a 64-character id),
``connection_id``, ``expires_at`` (what a page's read units are counted on)."""


class SimQueue:
    """``WatchersQueue`` and its event source mapping, simulated: FIFO per message group (a
    group's next message waits for its invocation to end), each message one invocation in a
    thread of its own (a container: its own posting pool), at most *concurrency* at once."""

    def __init__(self, latency: Latency, deliver: Callable[[str], None], concurrency: int):
        self.latency = latency
        self.deliver = deliver
        self.rng = random.Random(11)
        self.lock = threading.Condition()
        self.pending: dict[str, list[str]] = defaultdict(list)
        self.busy: set[str] = set()
        self.running = 0
        self.limit = concurrency
        self.messages = 0
        self.durations: list[float] = []
        self.invocations = ThreadPoolExecutor(concurrency, thread_name_prefix="worker")

    def publish(self, body: str, group: str, dedup: str) -> None:
        self.latency.call("SendMessage", lambda: None)
        with self.lock:
            self.messages += 1
            self.pending[group].append(body)
            self.running += 1  # counted from the send: idle() waits for it
        self._schedule(group)

    def _schedule(self, group: str) -> None:
        with self.lock:
            if group in self.busy or not self.pending[group]:
                return
            self.busy.add(group)
            body = self.pending[group].pop(0)
        self.invocations.submit(self._invoke, group, body)

    def _invoke(self, group: str, body: str) -> None:
        time.sleep(PICKUP_MS * math.exp(self.rng.gauss(0, SIGMA)) / 1000)
        started = time.perf_counter()
        try:
            self.deliver(body)
        finally:
            with self.lock:
                self.durations.append(time.perf_counter() - started)
                self.busy.discard(group)
                self.running -= 1
                self.lock.notify_all()
            self._schedule(group)

    def idle(self) -> None:
        with self.lock:
            while self.running:
                self.lock.wait()


class WatchedGateway:
    """Records, per connection of a spectator, the version of each update and when it was
    posted (the last post of each version is what the benchmark reports)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.lock = threading.Lock()
        self.last_post: dict[tuple[str, int], float] = {}
        self.posts: dict[tuple[str, int], int] = defaultdict(int)
        self.bytes: dict[str, int] = defaultdict(int)

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        self.inner.send(connection_id, message)
        if connection_id.startswith("c-w"):
            now = time.perf_counter()
            key = (str(message["table_id"]), int(message["version"]))
            size = len(getattr(message, "data", b"")) or len(json.dumps(message))
            with self.lock:
                self.last_post[key] = max(self.last_post.get(key, 0.0), now)
                self.posts[key] += 1
                self.bytes[key[0]] += size

    def alive(self, connection_id: str) -> bool:
        return bool(self.inner.alive(connection_id))


@dataclass
class Run:
    watchers: int
    players_ms: list[float] = field(default_factory=list)
    """Per game frame: arrival to the last player's post."""
    duration_ms: list[float] = field(default_factory=list)
    """Per game frame: the invocation's duration."""
    last_watcher_ms: list[float] = field(default_factory=list)
    """Per announced version: its frame's (or wake-up's) arrival to the last spectator's post."""
    hands: int = 0
    versions: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    """The spectators' path's calls (only them are counted)."""
    queue_messages: int = 0
    worker_seconds: float = 0.0
    worker_invocations: int = 0
    watcher_posts: int = 0
    watcher_bytes: int = 0


def play(counts: list[int], actions: int, seed: int) -> list[Run]:
    """One table per spectator count in *counts*, played in turns (one invocation each), so
    that every table meets the same load of this machine."""
    from naiko.engine import legal_actions
    from naiko_local.stack import LambdaContext
    from naiko_local.template import load_handler
    from naiko_service import bootstrap
    from naiko_service.memory import (
        MemoryAccounts,
        MemoryConnections,
        MemoryTableStore,
        MemoryWatchers,
        RecordingScheduler,
    )
    from naiko_service.protocol import parse_request
    from naiko_service.usecases import Deps, TableService, spectators
    from naiko_service.watcher_queue import parse_body

    latency = Latency(seed)
    watcher_latency = Latency(seed + 1)  # the spectators' path's calls, counted apart
    accounts = MemoryAccounts()
    store = MemoryTableStore(accounts=accounts)
    scheduler = RecordingScheduler()
    counting = CountingGateway()
    watched = WatchedGateway(counting)
    memory_watchers = MemoryWatchers()
    deps = Deps(
        tables=Slow(store, latency, {"load": "GetItem", "save": _save_operation,
                                     "create": "TransactWriteItems"}),
        accounts=Slow(accounts, latency, {"balance": "GetItem", "profile": "GetItem",
                                          "grant": "TransactWriteItems"}),
        connections=Slow(MemoryConnections(), latency, {
            "bind": "PutItem", "player_of": "GetItem", "tables_of": "GetItem",
            "add_table": "UpdateItem", "unbind": "DeleteItem"}),
        gateway=TimedGateway(Slow(watched, latency, {"send": "PostToConnection",
                                                     "alive": "GetConnection"})),
        scheduler=Slow(scheduler, latency, {"schedule": "SendMessage"}),
        watchers=Slow(memory_watchers, watcher_latency, {
            "count": "GetItem", "page": "Query", "add": "TransactWriteItems",
            "remove": "TransactWriteItems", "recount": "UpdateItem"}),
        clock=bootstrap.SystemClock(), rng=random.Random(seed),
        deadline=bootstrap.InvocationDeadline(), default_pause_ms=300)
    service = TableService(deps)

    # The worker's invocations: each thread its own posting pool (its own container).
    local = threading.local()
    original_executor = spectators._executor

    def own_pool() -> ThreadPoolExecutor:
        pool = getattr(local, "pool", None)
        if pool is None:
            pool = local.pool = ThreadPoolExecutor(spectators.WATCHER_POST_WORKERS)
        return pool

    spectators._executor = own_pool
    worker_deps = Deps(tables=deps.tables, accounts=deps.accounts,
                       connections=deps.connections,
                       gateway=Slow(watched, watcher_latency, {"send": "PostToConnection"}),
                       scheduler=deps.scheduler, clock=deps.clock, watchers=deps.watchers)
    queue = SimQueue(watcher_latency, lambda body: None, WORKER_CONCURRENCY)
    queue.deliver = lambda body: _deliver(spectators, worker_deps, parse_body(body))
    worker_deps.watcher_queue = queue
    deps.watcher_queue = queue
    bootstrap.set_service(service)
    game, timer = load_handler("game"), load_handler("timer")

    tables: list[str] = []
    for index, watchers in enumerate(counts):
        host = f"host{index}"
        accounts.grant(host, 10_000)
        service.connect(f"c-{host}", host)
        service.handle(f"c-{host}", host, parse_request(json.dumps({
            "action": "create_table", "request_id": f"create-{index}", "name": "featured",
            "seat_count": 6, "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
            "max_buy_in": 400})))
        table_id = counting.last[f"c-{host}"]["table_id"]
        tables.append(table_id)
        for s in range(6):
            player = f"p{index}-{s}"
            accounts.grant(player, 1_000_000)
            service.connect(f"c-{player}", player)
            service.handle(f"c-{player}", player, parse_request(json.dumps({
                "action": "join_table", "request_id": f"join-{index}-{s}",
                "table_id": table_id, "buy_in": 200})))
        for w in range(watchers):  # subscribed straight through the port: no latency
            memory_watchers.add(table_id, f"w{index}-{w:05d}", f"c-w{index}-{w:05d}", 0)
    queue.idle()
    runs = [Run(n) for n in counts]
    counter = iter(range(10**9))
    arrivals: list[dict[int, float]] = [{} for _ in counts]
    warm = [0 for _ in counts]

    def invoke(index: int, kind: str, call: Callable[[], Any]) -> None:
        posted: list[float] = []
        token = _action.set(posted)
        arrival = time.perf_counter()
        try:
            call()
        finally:
            _action.reset(token)
        finished = time.perf_counter()
        seq = store.load(tables[index]).seq
        arrivals[index].setdefault(seq, arrival)
        if warm[index] < WARM_UP:  # the first frames load the service lazily: not timed
            warm[index] += kind == "game"
            queue.idle()
            return
        if kind == "game":
            runs[index].duration_ms.append((finished - arrival) * 1000)
            if posted:
                runs[index].players_ms.append((max(posted) - arrival) * 1000)
        queue.idle()  # the worker is done with this version before the next frame

    def event(player: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"requestContext": {
            "routeKey": body["action"], "eventType": "MESSAGE", "connectionId": f"c-{player}",
            "domainName": "bench.execute-api.us-east-1.amazonaws.com", "stage": "bench",
            "apiId": "bench", "requestId": f"r{next(counter)}", "messageDirection": "IN",
            "connectedAt": 0, "authorizer": {"principalId": player, "player_id": player}},
            "isBase64Encoded": False, "body": json.dumps(body)}

    rng = random.Random(seed)
    latency.on = watcher_latency.on = True
    done = [0 for _ in counts]
    hands_seen: list[set[int]] = [set() for _ in counts]

    def step(index: int) -> None:
        """One invocation at table *index*: a wake-up between hands, else the next move."""
        table_id = tables[index]
        state = store.load(table_id).state
        if state.hand is not None:
            hands_seen[index].add(state.hand.number)
        prompt = legal_actions(state) if state.hand is not None else None
        if prompt is None:
            due = sorted((d, tok) for tid, tok, d, _ in scheduler.scheduled if tid == table_id)
            if not due:
                raise RuntimeError("the table is stuck")
            due_ms, token = due[0]
            wait = due_ms / 1000 - time.time()
            if wait > 0:
                time.sleep(wait)
            scheduler.scheduled[:] = [e for e in scheduler.scheduled
                                      if not (e[0] == table_id and e[1] == token)]
            wake = {"table_id": table_id, "token": token}
            invoke(index, "timer", lambda: timer.lambda_handler(
                wake, LambdaContext("bench-timer")))
            return
        seat = state.seats[prompt.seat_index]
        assert seat is not None
        move = "check" if "check" in prompt.actions else (
            "fold" if rng.random() < 0.4 else "call")
        frame = event(seat.player_id, {"action": "act", "request_id": f"a{next(counter)}",
                                       "table_id": table_id, "move": move})
        invoke(index, "game", lambda: game.lambda_handler(frame, LambdaContext("bench-game")))
        done[index] += 1

    while min(done) < actions:  # the tables take turns: the same machine load for each
        for index in range(len(counts)):
            if done[index] < actions:
                step(index)
    watched_runs = [i for i, n in enumerate(counts) if n]
    for index, run in enumerate(runs):
        run.hands = len(hands_seen[index])  # (warm-up hands included, as the counts are)
        for (table_id, version), last in watched.last_post.items():
            if table_id == tables[index] and version in arrivals[index]:
                run.last_watcher_ms.append((last - arrivals[index][version]) * 1000)
        run.versions = len(arrivals[index])
        run.watcher_posts = sum(n for (t, _), n in watched.posts.items() if t == tables[index])
        run.watcher_bytes = sum(n for t, n in watched.bytes.items() if t == tables[index])
        if index in watched_runs:  # the queue and the pages are the watched table's
            share = 1 / len(watched_runs)
            run.calls = {k: int(v * share) for k, v in watcher_latency.calls.items()}
            run.queue_messages = int(queue.messages * share)
            run.worker_seconds = sum(queue.durations) * share
            run.worker_invocations = int(len(queue.durations) * share)
    spectators._executor = original_executor
    queue.invocations.shutdown()
    bootstrap.reset()
    return runs


def _deliver(spectators: Any, deps: Any, update: Any) -> None:
    spectators.deliver(deps, update)


def cost_per_1000_hands(run: Run) -> dict[str, float]:
    """The spectators' path's bill per 1,000 hands, by line."""
    sys.argv, argv = sys.argv[:1], sys.argv  # cost_model parses nothing at import
    try:
        from cost_model import PRICES
    finally:
        sys.argv = argv
    per_hand = 1000 / max(run.hands, 1)
    pages = run.calls.get("Query", 0)
    page_items = min(run.watchers, 1000) if run.watchers else 0
    page_rru = math.ceil(page_items * ITEM_BYTES / 4096) / 2  # eventually consistent
    counter_reads = 2 * run.versions  # publish, and the first delivery (shards read none)
    rru = pages * page_rru + counter_reads * 0.5
    egress_gb = run.watcher_bytes / 1e9
    return {
        "DynamoDB reads (pages + counter)": rru * PRICES["dynamodb_rru"] * per_hand,
        "posts (API Gateway messages)": run.watcher_posts * PRICES["apigw_message"] * per_hand,
        "SQS FIFO requests": run.queue_messages * SQS_REQUESTS_PER_MESSAGE * SQS_FIFO_REQUEST
        * per_hand,
        "worker Lambda (requests + GB-s, simulated durations)": (
            run.worker_invocations * PRICES["lambda_request"]
            + run.worker_seconds * WORKER_GB * PRICES["lambda_gb_second_arm"]) * per_hand,
        "internet egress of the posts": egress_gb * PRICES["internet_egress_gb"] * per_hand,
    }


def report(runs: list[Run]) -> str:
    lines = ["Simulated AWS latencies, medians (lognormal, p99 = 2.5 x median): "
             + ", ".join(f"{op} {ms:g} ms" for op, ms in LATENCY_MS.items())
             + f"; SQS to the worker {PICKUP_MS:g} ms", ""]
    lines.append(f"{'spectators':>10} {'frames':>6} {'hands':>5} {'players p50':>11} "
                 f"{'p99':>6} {'duration p50':>12} {'p99':>6} {'last spectator p50':>18} "
                 f"{'p99':>7} {'posts/version':>13}")
    for run in runs:
        last50 = pct(run.last_watcher_ms, 0.5) if run.last_watcher_ms else math.nan
        last99 = pct(run.last_watcher_ms, 0.99) if run.last_watcher_ms else math.nan
        lines.append(
            f"{run.watchers:>10,} {len(run.players_ms):>6} {run.hands:>5} "
            f"{pct(run.players_ms, 0.5):>8.1f} ms {pct(run.players_ms, 0.99):>6.1f} "
            f"{pct(run.duration_ms, 0.5):>9.1f} ms {pct(run.duration_ms, 0.99):>6.1f} "
            f"{last50:>15.0f} ms {last99:>7.0f} "
            f"{run.watcher_posts / max(run.versions, 1):>13,.0f}")
    for run in runs:
        if not run.watchers:
            continue
        shards = 16 if run.watchers > 1000 else 1
        per_invocation = math.ceil(run.watchers / shards)
        rounds = math.ceil(per_invocation / spectators_threads())
        cpu_s = per_invocation * POST_CPU_MS / 1000
        # On Lambda: SendMessage, the pick-up (twice when split), the counter and a page, the
        # rounds of posts (each as slow as its slowest of 32: ~p95, 1.9 x the median), and the
        # posts' CPU, serial on the invocation's one core.
        model_s = (LATENCY_MS["SendMessage"] * (2 if shards > 1 else 1)
                   + PICKUP_MS * (2 if shards > 1 else 1) + LATENCY_MS["GetItem"]
                   + LATENCY_MS["Query"] + rounds * 1.9 * LATENCY_MS["PostToConnection"]
                   ) / 1000 + cpu_s
        lines.append("")
        lines.append(
            f"{run.watchers:,} spectators: {run.queue_messages / max(run.versions, 1):.0f} SQS "
            f"messages and {run.worker_invocations / max(run.versions, 1):.0f} worker "
            f"invocations per update; mean {statistics.fmean(run.last_watcher_ms or [0]):.0f} "
            f"ms to the last spectator HERE (16 invocations' posts in one interpreter). "
            f"Lambda estimate: {per_invocation:,} posts per invocation in {rounds} rounds of "
            f"{spectators_threads()} plus {cpu_s:.2f} s of their CPU = about {model_s:.2f} s "
            f"to the last spectator")
        costs = cost_per_1000_hands(run)
        lines.append(f"  cost per 1,000 hands of the spectators' path "
                     f"({run.versions / max(run.hands, 1):.1f} updates a hand, "
                     f"{run.watcher_bytes / max(run.watcher_posts, 1):,.0f} bytes a post):")
        for name, value in costs.items():
            lines.append(f"    {name:55} ${value:,.2f}")
        lines.append(f"    {'total':55} ${sum(costs.values()):,.2f}")
    return "\n".join(lines)


def spectators_threads() -> int:
    from naiko_service.usecases import spectators

    return spectators.WATCHER_POST_WORKERS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, nargs="+", default=[0, 10_000])
    parser.add_argument("--actions", type=int, default=40, help="game frames per run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Naiko")
    sink = io.StringIO()
    began = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        runs = play(args.watchers, args.actions, args.seed)
    print(f"[{len(runs)} tables in turns: {time.perf_counter() - began:.0f} s]",
          file=sys.stderr)
    print(report(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
