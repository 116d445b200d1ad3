#!/usr/bin/env python3
"""A scale model with simulated AWS latencies (issue 15, item 6; not a test).

    PYTHONPATH=layers/engine:local:tests .venv/bin/python scripts/bench_scale.py

The REAL handlers (``functions/game/app.py`` for every frame, ``functions/timer/app.py`` for
every wake-up) run against the in-memory adapters wrapped so that each port call takes the
time the AWS call it stands for takes (:data:`LATENCY_MS`, lognormal around the median, p99
about 2.5 x the median). Each table is played by bots in its own thread, which stands for the
table's Lambda containers: it has its own fan-out pool of ``fanout.FAN_OUT_WORKERS``, as each
Lambda process does (in one process the module's pool would be shared by every table). The
tables of a run play at once. Each run is made twice, in the same process, with the fan-out
posting one message after another (``Deps.parallel_fan_out = False``, as before issue 15) and
concurrently.

Reported per run: p50/p99 of the time from a frame's arrival (the handler called) to the last
player's update posted; p50/p99 of an invocation's duration (game and timer invocations) and
the Lambda GB-seconds per action (duration x 0.5 GB, the template's 512 MB); the CPU time per
invocation on this machine. Extrapolated to 10,000 tables: the invocations per second (the
cost model's rate per 6-max table: ``INVOCATIONS_PER_TABLE_S``) x the mean duration = the
Lambda concurrency needed (Little's law), and the posts per second.

Latencies are medians ASSUMED from AWS's published guidance (sources in
``docs/benchmarks.md``, "Scale"): DynamoDB "single-digit millisecond" reads and writes, a
transaction about twice a write, PostToConnection one HTTPS round trip to a regional endpoint,
SendMessage (a wake-up on the timer queue) a little less. The
CPU of this machine is not a 512 MB Lambda's (about 0.29 vCPU): the CPU column shows how much
of a duration is computing (x 3.5 on Lambda, ``scripts/cost_model.py``'s factor).
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import io
import json
import math
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "tests")]

LATENCY_MS = {"GetItem": 4.0, "PutItem": 6.0, "UpdateItem": 6.0, "DeleteItem": 6.0,
              "Query": 6.0, "TransactWriteItems": 12.0, "PostToConnection": 12.0,
              "GetConnection": 8.0, "SendMessage": 8.0}
"""Median milliseconds of each AWS call, in region (the same as ``scripts/cost_model.py``)."""
SIGMA = 0.4
"""Lognormal spread of a call's latency: p99 = median x e^(2.326 x 0.4) = 2.5 x median."""
MEMORY_GB = 0.5
INVOCATIONS_PER_TABLE_S = 14_150 / 1000 / 40.1
"""Lambda invocations per second of a busy 6-max table: 14,150 per 1,000 hands of 40.1 s
(``scripts/cost_model.py``, docs/timers.md, 2026-12-01: frames and wake-ups)."""
CPU_FACTOR = 3.5
SEATS = 6


# -- adapters with AWS latencies ------------------------------------------------------------

class Latency:
    """Sleeps like the AWS call it stands for; the in-memory call itself runs under one lock
    (the in-memory adapters are not made for threads; the sleep is outside it)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.on = False
        self.calls: dict[str, int] = {}

    def call(self, operation: str, action: Callable[[], Any]) -> Any:
        with self.lock:
            result = action()
            if not self.on:
                return result
            self.calls[operation] = self.calls.get(operation, 0) + 1
            ms = LATENCY_MS[operation] * math.exp(self.rng.gauss(0, SIGMA))
        time.sleep(ms / 1000)
        return result


class Slow:
    """A port whose methods take an AWS call's time: ``methods`` maps a method to its AWS
    operation (or to a function of the call's arguments that names it)."""

    def __init__(self, inner: Any, latency: Latency,
                 methods: dict[str, str | Callable[..., str]]):
        self._inner, self._latency, self._methods = inner, latency, methods

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._inner, name)
        operation = self._methods.get(name)
        if operation is None:
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            op = operation if isinstance(operation, str) else operation(*args, **kwargs)
            return self._latency.call(op, lambda: method(*args, **kwargs))

        return call


def _save_operation(record: Any, expected_version: int, moves: tuple[Any, ...] = ()) -> str:
    """A table write is a PutItem, or a transaction when chips move or a hand's record goes
    with it (``aws.dynamodb.DynamoTableStore.save``)."""
    return "TransactWriteItems" if moves or record.histories else "PutItem"


_action: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar("action",
                                                                              default=None)
"""The post completion times of the invocation being measured (seen by the fan-out's
threads: it copies the context)."""


class TimedGateway:
    """Records when each post of the measured invocation completed."""

    def __init__(self, inner: Any):
        self.inner = inner

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        self.inner.send(connection_id, message)
        posted = _action.get()
        if posted is not None:
            posted.append(time.perf_counter())

    def alive(self, connection_id: str) -> bool:
        return bool(self.inner.alive(connection_id))


class CountingGateway:
    """Keeps only how many messages each connection got (a long run keeps no views)."""

    def __init__(self) -> None:
        self.count = 0
        self.last: dict[str, dict[str, Any]] = {}

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        self.count += 1
        self.last[connection_id] = message

    def alive(self, connection_id: str) -> bool:
        return True


# -- the run --------------------------------------------------------------------------------

@dataclass
class Sample:
    kind: str
    """``game`` or ``timer``."""
    duration: float
    to_last_update: float | None
    cpu: float
    posts: int


@dataclass
class Run:
    tables: int
    parallel: bool
    spectators: int = 0
    seats: int = SEATS
    samples: list[Sample] = field(default_factory=list)
    wall: float = 0.0


def play(tables: int, actions: int, parallel: bool, seed: int, spectators: int = 0,
         seats: int = SEATS) -> Run:
    """*tables* tables of *seats* bots (and *spectators* watching each) play *actions* frames
    each, all at once; every invocation measured."""
    from naiko.engine import legal_actions
    from naiko_local.stack import LambdaContext
    from naiko_local.template import load_handler
    from naiko_service import bootstrap
    from naiko_service.memory import (
        MemoryAccounts,
        MemoryConnections,
        MemoryTableStore,
        RecordingScheduler,
    )
    from naiko_service.protocol import parse_request
    from naiko_service.usecases import Deps, TableService, fanout

    latency = Latency(seed)
    accounts = MemoryAccounts()
    store = MemoryTableStore(accounts=accounts)
    scheduler = RecordingScheduler()
    gateway = CountingGateway()
    deps = Deps(
        tables=Slow(store, latency, {"load": "GetItem", "save": _save_operation,
                                     "create": "TransactWriteItems", "list_open": "Query",
                                     "find_open": "Query", "find_by_code": "Query",
                                     "due_tables": "Query"}),
        accounts=Slow(accounts, latency, {"balance": "GetItem", "profile": "GetItem",
                                          "grant": "TransactWriteItems"}),
        connections=Slow(MemoryConnections(), latency, {
            "bind": "PutItem", "player_of": "GetItem", "tables_of": "GetItem",
            "add_table": "UpdateItem", "unbind": "DeleteItem"}),
        gateway=TimedGateway(Slow(gateway, latency, {"send": "PostToConnection",
                                                     "alive": "GetConnection"})),
        scheduler=Slow(scheduler, latency, {"schedule": "SendMessage"}),
        clock=bootstrap.SystemClock(), rng=random.Random(seed),
        deadline=bootstrap.InvocationDeadline(), default_pause_ms=300,
        parallel_fan_out=parallel)
    service = TableService(deps)
    bootstrap.set_service(service)
    game, timer = load_handler("game"), load_handler("timer")

    # every table's thread is one Lambda container: its own fan-out pool
    local = threading.local()
    original_executor = fanout._executor

    def own_pool() -> ThreadPoolExecutor:
        pool = getattr(local, "pool", None)
        if pool is None:
            pool = local.pool = ThreadPoolExecutor(fanout.FAN_OUT_WORKERS)
        return pool

    fanout._executor = own_pool

    table_ids = []
    for t in range(tables):
        host = f"host{t}"
        accounts.grant(host, 10_000)
        service.connect(f"c-{host}", host)
        service.handle(f"c-{host}", host, parse_request(json.dumps({
            "action": "create_table", "request_id": f"create-{t}", "name": f"bench {t}",
            "seat_count": seats, "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
            "max_buy_in": 400})))
        table_id = gateway.last[f"c-{host}"]["table_id"]
        table_ids.append(table_id)
        for s in range(seats):
            player = f"p{t}-{s}"
            accounts.grant(player, 1_000_000)
            service.connect(f"c-{player}", player)
            service.handle(f"c-{player}", player, parse_request(json.dumps({
                "action": "join_table", "request_id": f"join-{t}-{s}", "table_id": table_id,
                "buy_in": 200})))
        for w in range(spectators):
            watcher = f"w{t}-{w}"
            service.connect(f"c-{watcher}", watcher)
            service.handle(f"c-{watcher}", watcher, parse_request(json.dumps({
                "action": "snapshot", "request_id": f"watch-{t}-{w}", "table_id": table_id})))
    run = Run(tables, parallel, spectators, seats)
    samples_lock = threading.Lock()
    counter = iter(range(10**9))

    def invoke(kind: str, call: Callable[[], Any]) -> None:
        posted: list[float] = []
        token = _action.set(posted)
        cpu = time.thread_time()
        arrival = time.perf_counter()
        try:
            call()
        finally:
            _action.reset(token)
        done = time.perf_counter()
        sample = Sample(kind, done - arrival, (max(posted) - arrival) if posted else None,
                        time.thread_time() - cpu, len(posted))
        with samples_lock:
            run.samples.append(sample)

    def event(player: str, body: dict[str, Any]) -> dict[str, Any]:
        return {"requestContext": {
            "routeKey": body["action"], "eventType": "MESSAGE", "connectionId": f"c-{player}",
            "domainName": "bench.execute-api.us-east-1.amazonaws.com", "stage": "bench",
            "apiId": "bench", "requestId": f"r{next(counter)}", "messageDirection": "IN",
            "connectedAt": 0, "authorizer": {"principalId": player, "player_id": player}},
            "isBase64Encoded": False, "body": json.dumps(body)}

    def drive(index: int, table_id: str) -> None:
        rng = random.Random(seed * 1000 + index)
        done = 0
        idle = 0
        while done < actions:
            with latency.lock:
                state = store.load(table_id).state
                due = sorted((d, tok) for tid, tok, d, _ in scheduler.scheduled
                             if tid == table_id)
            prompt = legal_actions(state) if state.hand is not None else None
            if prompt is None:  # between hands: the next hand's wake-up
                if not due:
                    idle += 1
                    if idle > 200:
                        raise RuntimeError(f"table {table_id} is stuck")
                    time.sleep(0.01)
                    continue
                due_ms, token = due[0]
                wait = due_ms / 1000 - time.time()
                if wait > 0:
                    time.sleep(wait)
                with latency.lock:
                    scheduler.scheduled[:] = [e for e in scheduler.scheduled
                                              if not (e[0] == table_id and e[1] == token)]
                wake = {"table_id": table_id, "token": token}
                invoke("timer", lambda wake=wake: timer.lambda_handler(  # type: ignore[misc]
                    wake, LambdaContext("bench-timer")))
                continue
            idle = 0
            seat = state.seats[prompt.seat_index]
            assert seat is not None
            if "check" in prompt.actions:
                move = "check"
            else:
                move = "fold" if rng.random() < 0.4 else "call"
            body = {"action": "act", "request_id": f"a{next(counter)}", "table_id": table_id,
                    "move": move}
            frame = event(seat.player_id, body)
            invoke("game", lambda frame=frame: game.lambda_handler(  # type: ignore[misc]
                frame, LambdaContext("bench-game")))
            done += 1

    latency.on = True
    started = time.perf_counter()
    with ThreadPoolExecutor(tables) as drivers:
        for future in [drivers.submit(drive, i, t) for i, t in enumerate(table_ids)]:
            future.result()
    run.wall = time.perf_counter() - started
    fanout._executor = original_executor
    bootstrap.reset()
    return run


# -- the report -------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else math.nan


def row(run: Run) -> dict[str, float]:
    games = [s for s in run.samples if s.kind == "game"]
    every = run.samples
    to_last = [s.to_last_update for s in games if s.to_last_update is not None]
    durations = [s.duration for s in every]
    mean = statistics.fmean(durations)
    return {"actions": len(games), "timers": len(every) - len(games),
            "p50 to last update ms": pct(to_last, 0.5) * 1000,
            "p99 to last update ms": pct(to_last, 0.99) * 1000,
            "p50 duration ms": pct(durations, 0.5) * 1000,
            "p99 duration ms": pct(durations, 0.99) * 1000,
            "mean duration ms": mean * 1000,
            "GB-s per action": mean * MEMORY_GB,
            "CPU ms per invocation": statistics.fmean(s.cpu for s in every) * 1000,
            "posts per invocation": statistics.fmean(s.posts for s in every)}


def report(runs: list[Run]) -> str:
    lines = ["Simulated AWS latencies, medians (lognormal, p99 = 2.5 x median): "
             + ", ".join(f"{op} {ms:g} ms" for op, ms in LATENCY_MS.items()),
             f"fan-out pool: {FAN_OUT} posts at once per Lambda container; 512 MB = "
             f"{MEMORY_GB} GB", ""]
    header = (f"{'tables':>6} {'seats+watch':>11} {'fan-out':>10} {'actions':>7} "
              f"{'timers':>6} {'to last update p50':>18} {'p99':>7} {'duration p50':>12} "
              f"{'p99':>7} {'GB-s/action':>11} {'CPU ms':>7}")
    lines.append(header)
    for run in runs:
        r = row(run)
        lines.append(
            f"{run.tables:>6} {f'{run.seats}+{run.spectators}':>11} "
            f"{'parallel' if run.parallel else 'sequential':>10} {r['actions']:>7.0f} "
            f"{r['timers']:>6.0f} {r['p50 to last update ms']:>15.1f} ms "
            f"{r['p99 to last update ms']:>7.1f} {r['p50 duration ms']:>9.1f} ms "
            f"{r['p99 duration ms']:>7.1f} {r['GB-s per action']:>11.4f} "
            f"{r['CPU ms per invocation']:>7.1f}")
    lines.append("")
    lines.append(f"Extrapolated to 10,000 busy 6-max tables ({INVOCATIONS_PER_TABLE_S:.3f} "
                 f"invocations/s per table, the cost model's): "
                 f"{10_000 * INVOCATIONS_PER_TABLE_S:,.0f} invocations/s")
    for parallel in (False, True):
        base = [r for r in runs if r.parallel is parallel and r.spectators == 0
                and r.seats == SEATS]
        if not base:
            continue
        one = min(base, key=lambda r: r.tables)  # the least contended run of this machine
        r = row(one)
        rate = 10_000 * INVOCATIONS_PER_TABLE_S
        concurrency = rate * r["mean duration ms"] / 1000
        lines.append(
            f"  {'parallel' if parallel else 'sequential':>10} fan-out: p50/p99 to the last "
            f"update {r['p50 to last update ms']:.0f}/{r['p99 to last update ms']:.0f} ms "
            f"(per invocation, independent of the table count on Lambda); mean duration "
            f"{r['mean duration ms']:.0f} ms -> Lambda concurrency {concurrency:,.0f}; "
            f"{rate * r['GB-s per action']:,.1f} GB-s per second; "
            f"{rate * r['posts per invocation']:,.0f} posts/s")
    return "\n".join(lines)


FAN_OUT = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--actions", type=int, default=0,
                        help="frames per table (default: 120 at 1 table, 30 at 10, 10 at 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-crowd", action="store_true",
                        help="skip the 10-seat table with 20 spectators")
    args = parser.parse_args(argv)
    from naiko_service.usecases import fanout

    global FAN_OUT
    FAN_OUT = fanout.FAN_OUT_WORKERS
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Naiko")
    plans: list[tuple[int, int, int]] = [
        (n, args.actions or {1: 120, 10: 30}.get(n, 10), 0) for n in args.tables]
    runs: list[Run] = []
    sink = io.StringIO()
    for tables, actions, _ in plans:
        for parallel in (False, True):
            began = time.perf_counter()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                run = play(tables, actions, parallel, args.seed)
            sink.seek(0)
            sink.truncate()
            runs.append(run)
            print(f"[{tables} tables, {'parallel' if parallel else 'sequential'}: "
                  f"{time.perf_counter() - began:.0f} s]", file=sys.stderr)
    if not args.no_crowd:
        for parallel in (False, True):
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                runs.append(play(1, args.actions or 60, parallel, args.seed, spectators=20,
                                 seats=10))
            sink.seek(0)
            sink.truncate()
    print(report(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
