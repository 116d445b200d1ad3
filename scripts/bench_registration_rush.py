#!/usr/bin/env python3
"""A registration rush on a scheduled tournament (issue 23): *N* players registering within 60 s
of simulated time, through the real service (``tournaments.enter``, the ``register`` route's
use case), on the in-memory adapters and on moto's DynamoDB. A benchmark, not a test.

    .venv/bin/python scripts/bench_registration_rush.py [--players 10000] [--extra 100]
        [--moto-players 1000] [--threads 16] [--latency-ms 1] [--seed 1]

Each simulated client is one player with chips who sends one registration at a random time
within the 60 s; the arrivals of each 100 ms window are sent at once from a pool of
``--threads`` threads (the clock at the window's time), so the registrations of a window read
and commit concurrently, as Lambda invocations do. ``--extra`` more players than the cap
register too (their answer must be ``tournament_full``: the cap holds). On memory every store
call is atomic with ``--latency-ms`` after each read and write (as ``bench_tournament.py``), so
reads and commits interleave, and a transaction stays in flight for that latency: another
one touching the same item meanwhile is cancelled, as DynamoDB cancels it
(``TransactionConflict``); on moto every DynamoDB request is atomic (one lock: moto's
transactions are not thread-safe, DynamoDB's are) and the same threads race between requests.

Printed per adapter: answers (``ack``, ``tournament_full``, ``busy``, other refusals), lost
(an ``ack`` without its ``reg#`` item, or a ``reg#`` item nobody was answered for), the ledger
check (each registered player exactly one entry on the ledger, the ledger identity over every
account and what the tournament holds, the counters adding up to the ``reg#`` items), the
tournament item's writes during the rush, conflicts, and the DynamoDB write units: per
registration (transactional writes: 2 WRU per KB of each item) and in the tournament's
partition. Then registration closes (the start's first transaction folds the counters into
the tournament item) and the tournament item's size is printed.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "scripts"),
                str(ROOT / "tests"), str(ROOT / "tests" / "integration")]

from bench_tournament import (  # noqa: E402
    BenchAccounts,
    BenchTableStore,
    BenchTournamentStore,
    LockedRandom,
    Meter,
)
from naiko.state import Variant  # noqa: E402
from naiko_local.tournament import terms_for  # noqa: E402
from naiko_service.aws.dynamodb import DynamoTableStore, dynamodb_item_size  # noqa: E402
from naiko_service.aws.tournaments import DynamoTournamentStore  # noqa: E402
from naiko_service.ledger import Audit  # noqa: E402
from naiko_service.memory import (  # noqa: E402
    ManualClock,
    MemoryConnections,
    RecordingGateway,
    RecordingScheduler,
)
from naiko_service.ports import (  # noqa: E402
    AccountMove,
    BumpCount,
    ConcurrentUpdate,
    LedgerEntry,
    LedgerReason,
    PutItem,
    PutTournament,
    TournamentStore,
    Write,
)
from naiko_service.records import Sealer  # noqa: E402
from naiko_service.tournament_records import COUNT_PREFIX  # noqa: E402
from naiko_service.usecases import Deps, ServiceError, scheduled, tournaments  # noqa: E402
from naiko_service.usecases.tournament_payments import REG_PREFIX  # noqa: E402

TID = "rush-1"
ENTRY = 100
START_MS = 1_767_225_600_000
RUSH_MS = 60_000
WINDOW_MS = 100
KEY = bytes(range(32))
ACCOUNT_WRU = 2
"""An account item is under 1 KB (a balance and capped sets): 2 WRU in a transaction."""


def wru(nbytes: int) -> int:
    """Write units of one item in a transaction: 2 per KB, rounded up."""
    return 2 * max(1, math.ceil(nbytes / 1024))


@dataclass
class Units:
    """Write units of the registration transactions, worked out from the items written."""

    sizer: DynamoTournamentStore
    lock: threading.Lock
    transactions: int = 0
    total: int = 0
    partition: int = 0
    tournament_writes: int = 0
    largest_item: int = 0

    def add(self, writes: tuple[Write, ...], moves: tuple[AccountMove, ...]) -> None:
        total = partition = tournament = 0
        largest = 0
        for write in writes:
            if isinstance(write, PutTournament):
                nbytes = dynamodb_item_size(self.sizer.to_item(write.record))
                tournament += 1
            elif isinstance(write, PutItem):
                nbytes = dynamodb_item_size(self.sizer._transact_item(write)["Put"]["Item"])
            elif isinstance(write, BumpCount):  # the counter as it is after the update
                nbytes = dynamodb_item_size({
                    "tournament_id": {"S": write.tournament_id}, "item": {"S": write.key},
                    "entrants": {"N": "1000"}, "chips": {"N": "100000000"},
                    "quota": {"N": str(write.quota)}})
            else:
                nbytes = 100
            largest = max(largest, nbytes)
            total += wru(nbytes)
            partition += wru(nbytes)
        accounts = len({m.player_id for m in moves})
        total += accounts * ACCOUNT_WRU
        tables = self.sizer.tables
        for index, move in enumerate(moves):
            total += wru(dynamodb_item_size(tables.ledger_put(move, f"k#{index}")["Item"]))
        with self.lock:
            self.transactions += 1
            self.total += total
            self.partition += partition
            self.tournament_writes += tournament
            self.largest_item = max(self.largest_item, largest)


@dataclass
class Rig:
    """One adapter's stores and service."""

    name: str
    deps: Deps
    tournaments: TournamentStore
    balance: Callable[[str], int]
    ledger: Callable[[], list[LedgerEntry]]
    audit: Callable[[], Audit]
    conflicts: Callable[[], int]
    clock: ManualClock
    units: Units


def sizer() -> DynamoTournamentStore:
    return DynamoTournamentStore(None, "tournaments", DynamoTableStore(
        None, "tables", "accounts", Sealer(KEY), ledger_table="ledger"))


def memory_rig(latency_ms: float, seed: int) -> Rig:
    meter = Meter(sizes=False)
    latency = latency_ms / 1000
    accounts = BenchAccounts(meter, latency)
    store = BenchTableStore(meter, accounts, latency, check=False)
    units = Units(sizer(), threading.Lock())

    flight: set[tuple[str, str]] = set()
    flight_lock = threading.Lock()
    refused = Counter[str]()

    class Counted(BenchTournamentStore):
        def commit(self, writes: tuple[Write, ...],
                   moves: tuple[AccountMove, ...] = ()) -> None:
            """As DynamoDB: a transaction is in flight for a while (the latency), and another
            one touching one of its items meanwhile is cancelled (``TransactionConflict``)."""
            keys = {(getattr(w, "tournament_id", ""), getattr(w, "key", "")) for w in writes
                    if isinstance(w, PutItem | BumpCount)}
            with flight_lock:
                if keys & flight:
                    refused["conflict"] += 1
                    raise ConcurrentUpdate("TransactionConflict")
                flight.update(keys)
            try:
                time.sleep(latency)
                super().commit(writes, moves)
            finally:
                with flight_lock:
                    flight.difference_update(keys)
            units.add(writes, moves)

    store_t = Counted(store)
    clock = ManualClock(START_MS)
    deps = Deps(tables=store, accounts=accounts, connections=MemoryConnections(),
                gateway=RecordingGateway(), scheduler=RecordingScheduler(), clock=clock,
                rng=LockedRandom(seed), tournaments=store_t, count=meter.metric,
                pause=time.sleep)
    return Rig("memory", deps, store_t, accounts.balance, lambda: list(accounts.ledger),
               store.audit, lambda: meter.counts["conflict"] + refused["conflict"], clock,
               units)


def moto_rig(seed: int) -> tuple[Rig, Any]:
    import boto3
    from aws_testing import REGION, create_tables_from_template
    from moto import mock_aws
    from naiko_service.aws import DynamoAccounts
    from naiko_service.ledger import audit_dynamodb
    from test_mtt_concurrency_on_moto import SerialClient

    mock = mock_aws()
    mock.start()
    raw = boto3.client("dynamodb", region_name=REGION)
    names = create_tables_from_template(raw)
    client = SerialClient(raw)
    store = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"], Sealer(KEY),
                             ledger_table=names["LedgerTable"])
    units = Units(sizer(), threading.Lock())
    conflicts = Counter[str]()

    class Counted(DynamoTournamentStore):
        def commit(self, writes: tuple[Write, ...],
                   moves: tuple[AccountMove, ...] = ()) -> None:
            try:
                super().commit(writes, moves)
            except Exception:
                with units.lock:
                    conflicts["conflict"] += 1
                raise
            units.add(writes, moves)

    store_t = Counted(client, names["TournamentsTable"], store)
    accounts = DynamoAccounts(client, names["AccountsTable"], ledger_table=names["LedgerTable"])
    clock = ManualClock(START_MS)
    deps = Deps(tables=store, accounts=accounts, connections=MemoryConnections(),
                gateway=RecordingGateway(), scheduler=RecordingScheduler(), clock=clock,
                rng=LockedRandom(seed), tournaments=store_t, pause=time.sleep)

    def ledger() -> list[LedgerEntry]:
        found = []
        request: dict[str, Any] = {"TableName": names["LedgerTable"], "ConsistentRead": True}
        while True:
            page = raw.scan(**request)
            found += [LedgerEntry(str(i["account"]["S"]), int(i["amount"]["N"]),
                                  LedgerReason(i["reason"]["S"]), str(i["ref"]["S"]),
                                  int(i["at_ms"]["N"])) for i in page.get("Items", [])]
            if not page.get("LastEvaluatedKey"):
                return found
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def audited() -> Audit:
        return audit_dynamodb(raw, names["AccountsTable"], names["LedgerTable"],
                              names["TablesTable"], Sealer(KEY), names["TournamentsTable"])

    return Rig("moto", deps, store_t, accounts.balance, ledger, audited,
               lambda: conflicts["conflict"], clock, units), mock


def rush(rig: Rig, players: int, extra: int, threads: int, seed: int) -> dict[str, Any]:
    deps = rig.deps
    terms = replace(terms_for("mtt", Variant.NLHE, ENTRY, players), max_players=players)
    tournaments.create(deps, TID, "Rush", terms, "ops", starts_ms=START_MS + 2 * RUSH_MS)
    version = rig.tournaments.load(TID).version
    rig.units.transactions = rig.units.total = rig.units.partition = 0  # the rush's alone
    rig.units.tournament_writes = rig.units.largest_item = 0
    names = [f"p{n:05d}" for n in range(players + extra)]
    for name in names:
        deps.accounts.grant(name, 1_000, ref="bench", at_ms=START_MS)
    draw = random.Random(seed)
    arrivals = sorted((draw.randrange(RUSH_MS), name) for name in names)
    windows: dict[int, list[str]] = {}
    for at, name in arrivals:
        windows.setdefault(at // WINDOW_MS, []).append(name)
    answers: dict[str, str] = {}
    lock = threading.Lock()

    def client(name: str) -> None:
        try:
            tournaments.enter(deps, None, TID, [tournaments.Entrant(name, name)])
            answer = "ack"
        except ServiceError as error:
            answer = error.code
        with lock:
            answers[name] = answer

    started = time.perf_counter()
    concurrency = 0
    with ThreadPoolExecutor(threads) as pool:
        for window in sorted(windows):
            rig.clock.now = START_MS + window * WINDOW_MS
            batch = windows[window]
            concurrency = max(concurrency, len(batch))
            list(pool.map(client, batch))
    wall = time.perf_counter() - started
    record = rig.tournaments.load(TID)
    regs = {key.removeprefix(REG_PREFIX) for key, _ in rig.tournaments.items(TID, REG_PREFIX)}
    counters = [data for _, data in rig.tournaments.items(TID, COUNT_PREFIX)]
    acked = {name for name, answer in answers.items() if answer == "ack"}
    ledger = rig.ledger()
    entries = Counter(e.player_id for e in ledger
                      if e.reason is LedgerReason.ENTRY and e.ref == TID)
    refused_paid = [n for n in names if n not in acked and rig.balance(n) != 1_000]
    checked = rig.audit()
    ledger_ok = (set(entries) == regs and all(v == 1 for v in entries.values())
                 and sum(c["entrants"] for c in counters) == len(regs)
                 and sum(c["chips"] for c in counters) == ENTRY * len(regs)
                 and not refused_paid and checked.holds)
    rush_units = (rig.units.transactions, rig.units.total, rig.units.partition,
                  rig.units.tournament_writes, rig.units.largest_item)
    conflicts = rig.conflicts()
    # registration closes: the counters folded into the tournament item
    rig.clock.now = START_MS + 2 * RUSH_MS
    scheduled_close(deps)
    after = rig.tournaments.load(TID)
    item_bytes = dynamodb_item_size(rig.units.sizer.to_item(after))
    registrations_n = max(rush_units[0], 1)
    return {
        "adapter": rig.name, "players": players, "extra": extra, "threads": threads,
        "largest_window": concurrency, "wall_s": round(wall, 1),
        "answers": dict(Counter(answers.values())),
        "busy": sum(1 for a in answers.values() if a == "busy"),
        "lost": len(acked ^ regs),
        "ledger_ok": ledger_ok, "audit": checked.line(),
        "tournament_item_writes_during_rush": record.version - version,
        "conflicts": conflicts,
        "wru_per_registration": round(rush_units[1] / registrations_n, 2),
        "wru_per_registration_tournament_partition": round(rush_units[2] / registrations_n, 2),
        "largest_item_written": rush_units[4],
        "after_close": {"status": after.status.value, "entrants": after.entrants,
                        "pool_held": after.pool_held, "tournament_item_bytes": item_bytes},
    }


def scheduled_close(deps: Deps) -> None:
    """The start's first transaction (registration closes, the counters folded)."""
    from functools import partial

    from naiko_service.usecases.tournament_uow import transact

    transact(deps, TID, partial(scheduled._close_registration, deps=deps))


def render(result: dict[str, Any]) -> str:
    answers = ", ".join(f"{k} {v:,}" for k, v in sorted(result["answers"].items()))
    close = result["after_close"]
    return "\n".join([
        f"== {result['adapter']}: {result['players']:,} seats, "
        f"{result['players'] + result['extra']:,} players within 60 s "
        f"({result['threads']} threads, up to {result['largest_window']} in one 100 ms window)",
        f"answers              {answers}",
        f"busy                 {result['busy']}",
        f"lost                 {result['lost']}",
        f"ledger check         {'ok' if result['ledger_ok'] else 'FAILED'} ({result['audit']})",
        f"tournament item      {result['tournament_item_writes_during_rush']} writes "
        "during the rush",
        f"conflicts            {result['conflicts']:,} (retried on the next counter)",
        f"WRU per registration {result['wru_per_registration']} "
        f"({result['wru_per_registration_tournament_partition']} in the tournament's partition)",
        f"largest item written {result['largest_item_written']:,} bytes",
        f"after the close      {close['status']}, entrants {close['entrants']:,}, pool "
        f"{close['pool_held']:,}, tournament item {close['tournament_item_bytes']:,} bytes",
        f"wall time            {result['wall_s']} s",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000, help="the field on memory "
                        "(0: moto only)")
    parser.add_argument("--extra", type=int, default=100)
    parser.add_argument("--moto-players", type=int, default=1_000,
                        help="the field on moto (0: memory only)")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    failed = False
    if args.players:
        result = rush(memory_rig(args.latency_ms, args.seed), args.players, args.extra,
                      args.threads, args.seed)
        print(render(result), flush=True)
        failed |= bool(result["busy"] or result["lost"] or not result["ledger_ok"])
    if args.moto_players:
        rig, mock = moto_rig(args.seed)
        try:
            extra = (max(1, args.extra * args.moto_players // args.players) if args.players
                     else args.extra)
            result = rush(rig, args.moto_players, extra, args.threads, args.seed)
        finally:
            mock.stop()
        print(render(result), flush=True)
        failed |= bool(result["busy"] or result["lost"] or not result["ledger_ok"])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
