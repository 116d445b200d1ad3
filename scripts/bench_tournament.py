#!/usr/bin/env python3
"""What a scheduled multi-table tournament (MTT) costs in DynamoDB calls, and whether its
tournament item is a hot spot (``docs/tournaments.md``, "No hot item"). A benchmark, not a test.

    .venv/bin/python scripts/bench_tournament.py [--players 1000 10000] [--seed 1]
        [--window-ms 200] [--threads 8] [--latency-ms 1] [--serial] [--no-check]
        [--no-sizes] [--scan-every-min 1] [--json] [--json-out FILE] [--progress-s 30]

    # as measured for docs/tournaments.md (the big field in the background):
    .venv/bin/python scripts/bench_tournament.py --players 1000 --no-check
    nohup .venv/bin/python scripts/bench_tournament.py --players 10000 --no-check \
        --scan-every-min 5 --progress-s 60 > bench_10k.out 2>&1 &

For each field size, a ``mtt`` tournament (``naiko_local.tournament.terms_for``: 9-max turbo, no
late registration) is played by BOTs to the end through the real service and its timers on the
in-memory adapters, in virtual time, as ``naiko-tournament simulate --kind mtt`` plays it
(:class:`naiko_local.tournament.Simulation`), with two differences:

**Counting.** The three in-memory stores are replaced by subclasses that count what the DynamoDB
adapters (``naiko_service.aws``) would call: GetItem of a table item, of the tournament item and
of an account; Query of a tournament's sub-items (``reg#``, ``result#``, ``paid#``, ``hfh#``,
``log#``) and of the indexes (the sweep's ``due-index``); PutItem (a table save without account
moves); TransactWriteItems (every ``TournamentStore.commit``, a table save with moves), and, per
successful write, the items written by kind: table, tournament item, tournament sub-items,
account updates (netted per player as the adapter nets them) and ledger entries. A write whose
condition fails is a conflict, classified by the items whose conditions failed (table,
tournament, sub-item), by what made the write (the table path at a hand's end or between
hands, a hand-for-hand round closing, a prize, a level timer, ...) and by the kind of timer
execution it ran in (its token's prefix: ``bot``, ``hold``, ``next_hand``, ...). An execution
with the same deadline, table and token as an earlier one is counted as a duplicate (an attempt
whose write lost had armed it too: ``arming.arm`` starts the execution before the write). A Query
reads a range of the tournament's sorted keys, as DynamoDB does (the memory store sorts the
whole partition per call, which at 10,000 players would dominate the run). Item sizes are the
sizes of
the items the DynamoDB adapters would write, counted by ``aws.dynamodb.dynamodb_item_size``
(``--no-sizes`` skips them):
a table's item is ``DynamoTableStore.to_item`` around the very sealed blob (and sealed
fallback) the memory store keeps, the tournament item ``DynamoTournamentStore.to_item`` (its
document as JSON), a sub-item the adapter's own ``Put``. The largest transaction (items,
including account updates and ledger entries, and bytes) is kept too: DynamoDB takes at most
100 items and 4 MB per ``TransactWriteItems``, which the memory store does not enforce.

**Concurrency.** The plain simulation fires timers one by one, so no write can ever conflict.
Here the timer executions due within one virtual window (``--window-ms``, 200 ms) are popped
together, the shared :class:`~naiko_service.memory.ManualClock` is set to the latest deadline
among them (so every one of them is due), and they run at once on a pool of ``--threads``
threads (8). Each store call is atomic (it holds the stores' shared lock for its whole
duration), and after each GetItem and each write a thread sleeps ``--latency-ms`` (1 ms: the
network round trip), which hands the interpreter to the other threads (Queries do not sleep:
the prizes' payments make thousands, one after the other, in one execution, and sleeping
through them would only hold the window up): a table's load and its later
conditional write interleave with the other executions' writes as Lambda invocations do on
DynamoDB, and a write conditional on a version that moved on fails and is retried by the
service (``usecases.transaction.mutate``: :class:`~naiko_service.ports.ConcurrentUpdate`, up to
``MAX_ATTEMPTS`` = 4 attempts, then ``busy``; the tournament's own transactions likewise). All
the executions of a window overlap (up to the thread count), where real ones, each some 30 ms
long, would overlap only partly within 200 ms: the conflict counts are an upper bound. The
sweep runs alone, every virtual minute, before the window it falls in, as in the simulation.
What the service keeps in memory besides the stores is made thread-safe here: the random
source, the scheduler's heap, the recording gateway and the connections. Threads make a run
nondeterministic: ``--seed`` fixes the field, the deck and the BOTs' draws only up to the
threads' interleaving. ``--serial`` fires timers one by one (no window, no threads, no
latency): conflicts must then be 0.

**Checks.** The ledger identity is checked after every transaction, as the simulation does
(``--no-check`` skips it, for big fields: it reads every table); whatever the flag, every
virtual minute
(``--scan-every-min``, between windows, when nothing runs) and at the end the tables are
scanned: every entrant is seated at exactly one table, or has a result, or is out in an open
hand-for-hand round; nobody is seated twice or both seated and placed; the tournament chips on
the tables are the entrants' starting stacks; each table's count in the tournament item's
seating is its players, less those waiting to leave, plus those waiting to arrive (and those out
in an open hand-for-hand round); the ledger identity holds. A broken invariant is printed (and
makes the exit status 1), as is any execution that failed with something else than ``busy``
(with its traceback; the run goes on, as the sweep would).

Printed per field size: wall time, hands played (the ``hand`` entries of the tournament's log,
written in the same transaction as the hand's end), tables at the start, virtual duration,
timer executions, DynamoDB calls per hand by item kind, transactions per hand, conflicts (total,
per 1,000 hands, by item kind and by cause), ``busy`` answers, writes to the tournament item per
hand (and by cause), the largest item of each kind and the largest transaction, and at the end
whether the ``finished`` entry's places (derived from the ``out#`` items, R9.5, R9.8) equal those
the eliminations gave (the ``result#`` items; read outside the counts). The figures
cover the play from the start (registration, reported on its own line, is not per hand). The
header names the source as loaded (a hash of the modules' files): the tree may change between
runs. A long run can be stopped: SIGTERM (or Ctrl-C) prints the figures so far (exit status 2),
and with ``--json-out FILE`` every progress line also writes them to ``FILE.partial.json``.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import random
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local")]

from naiko.state import Variant  # noqa: E402
from naiko_local.tournament import (  # noqa: E402
    MAX_EXECUTIONS,
    Simulation,
    VirtualScheduler,
    terms_for,
)
from naiko_service.aws.dynamodb import (  # noqa: E402
    DynamoTableStore,
    _net_moves,
    dynamodb_item_size,
)
from naiko_service.aws.tournaments import DynamoTournamentStore  # noqa: E402
from naiko_service.memory import (  # noqa: E402
    ManualClock,
    MemoryAccounts,
    MemoryConnections,
    MemoryTableStore,
    MemoryTournamentStore,
    RecordingGateway,
    _Item,
)
from naiko_service.ports import (  # noqa: E402
    AccountMove,
    AccountProfile,
    BumpCount,
    CloseCount,
    CloseOuts,
    ConcurrentUpdate,
    CountOuts,
    DeleteItem,
    InsufficientFunds,
    PutItem,
    PutTable,
    PutTournament,
    TooManyTables,
    Write,
)
from naiko_service.records import (  # noqa: E402
    FALLBACK_AAD_SUFFIX,
    Sealer,
    TableRecord,
    TableSummary,
    open_record,
)
from naiko_service.tournament_records import (  # noqa: E402
    TournamentRecord,
    TournamentStatus,
    split_document,
)
from naiko_service.usecases import Deps, TableService, tournaments  # noqa: E402
from naiko_service.usecases.base import ServiceError  # noqa: E402
from naiko_service.usecases.tournament_log import joined  # noqa: E402

MAX_TRANSACTION_ITEMS = 100
"""DynamoDB's limit of items per ``TransactWriteItems``."""

MAX_ITEM_BYTES = 400 * 1024
"""DynamoDB's limit of an item's size."""

FINISHED_EVERY = 25
"""Windows between two looks at whether the tournament finished (the benchmark's own read of
the tournament item, not counted; a few executions after the end are no-ops)."""

FAILURES_KEPT = 10
"""Tracebacks of failed executions (and invariant breaks) kept for the report."""

CAUSES = ("close_round", "pay_prizes", "retire_payout_timer", "settle", "tournament_timer",
          "start_scheduled", "_write_tables", "enter", "recover", "mutate")
"""The functions a write is attributed to: the innermost of these on the caller's stack (the
table path, ``mutate``, is refined by what it writes: a hand's end, or between hands)."""


# -- counting --------------------------------------------------------------------------------

class Meter:
    """Thread-safe counters, the largest items, and failures."""

    def __init__(self, sizes: bool = True) -> None:
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.largest: dict[str, tuple[int, str]] = {}
        """Item kind -> (bytes, item key) of the largest written."""
        self.sizes = sizes
        self.failures: list[str] = []
        self.failure_count = 0
        self.warnings: Counter[str] = Counter()
        self._local = threading.local()

    @property
    def active(self) -> bool:
        return not getattr(self._local, "quiet", False)

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """The benchmark's own reads (is it finished? the scans, the log) are not counted."""
        self._local.quiet = True
        try:
            yield
        finally:
            self._local.quiet = False

    def add(self, key: str, value: int = 1) -> None:
        if self.active:
            with self.lock:
                self.counts[key] += value

    def add_many(self, pairs: dict[str, int]) -> None:
        if self.active:
            with self.lock:
                self.counts.update(pairs)

    def size(self, kind: str, key: str, nbytes: int) -> None:
        with self.lock:
            if nbytes > self.largest.get(kind, (-1, ""))[0]:
                self.largest[kind] = (nbytes, key)

    def metric(self, name: str, value: int) -> None:
        """``Deps.count``: the service's own metrics (``Conflicts``, ``Retries``, ...)."""
        self.add(f"metric.{name}", value)

    def warning(self, message: str, fields: dict[str, Any]) -> None:
        """``Deps.warn``: what went wrong but was handled."""
        with self.lock:
            self.warnings[message] += 1
            if len(self.failures) < FAILURES_KEPT and message != "a follow-up of a write failed":
                self.failures.append(f"warning: {message} {fields}")

    @property
    def execution(self) -> str:
        """What the calling thread's timer execution is for (its token's kind)."""
        return str(getattr(self._local, "execution", "other"))

    @execution.setter
    def execution(self, label: str) -> None:
        self._local.execution = label

    def failure(self, text: str) -> None:
        print(f"FAILURE: {text}", file=sys.stderr, flush=True)
        with self.lock:
            self.failure_count += 1
            if len(self.failures) < FAILURES_KEPT:
                self.failures.append(text)


def cause_of_write(writes: Sequence[Write] = ()) -> str:
    """What made this write: the innermost known use case on the stack (see :data:`CAUSES`)."""
    frame: FrameType | None = sys._getframe(1)
    name = "other"
    while frame is not None:
        if frame.f_code.co_name in CAUSES:
            name = frame.f_code.co_name
            break
        frame = frame.f_back
    if name == "mutate":
        hand_end = any(isinstance(w, PutItem) and "#h#" in w.key for w in writes)
        tables = sum(1 for w in writes if isinstance(w, PutTable))
        name = "table: hand end" if hand_end else "table: between hands"
        if tables > 1:
            name += " + other tables"
    return name


def wru(nbytes: int) -> int:
    """Write units of one item written in a transaction: 2 per KB (rounded up)."""
    return 2 * max(1, -(-nbytes // 1024))


def sub_kind(key: str) -> str:
    """``reg``, ``result``, ``paid``, ``hfh``, ``log``, ``shard`` (a count shard,
    ``field#<g>``): a tournament sub-item's kind."""
    kind = key.split("#", 1)[0]
    return "shard" if kind == "field" else kind


class _ReplaySealer(Sealer):
    """Gives back the blobs the memory store already sealed (sizes without sealing twice)."""

    def __init__(self) -> None:  # no key: it never seals
        self.blobs: dict[str, bytes] = {}

    def seal(self, document: dict[str, Any], table_id: str, purpose: str = "") -> bytes:
        return self.blobs[table_id + purpose]


class BenchAccounts(MemoryAccounts):
    def __init__(self, meter: Meter, latency_s: float) -> None:
        super().__init__()
        self.meter = meter
        self.latency_s = latency_s

    def _wait(self) -> None:
        if self.latency_s and self.meter.active:
            time.sleep(self.latency_s)

    def balance(self, player_id: str) -> int:
        self.meter.add_many({"get.account": 1, "api.GetItem": 1})
        with self._lock:
            found = super().balance(player_id)
        self._wait()
        return found

    def profile(self, player_id: str) -> AccountProfile:
        self.meter.add_many({"get.account": 1, "api.GetItem": 1})
        with self._lock:
            found = super().profile(player_id)
        self._wait()
        return found

    def grant(self, player_id: str, amount: int, ref: str = "ops", at_ms: int = 0) -> int:
        self.meter.add_many({"api.TransactWriteItems": 1, "write.account": 1,
                             "write.ledger": 1})
        with self._lock:
            return super().grant(player_id, amount, ref, at_ms)


class BenchTableStore(MemoryTableStore):
    """The memory table store, each call atomic and counted (see the module docstring)."""

    def __init__(self, meter: Meter, accounts: BenchAccounts, latency_s: float,
                 check: bool) -> None:
        super().__init__(accounts=accounts)
        self.meter = meter
        self.latency_s = latency_s
        self.check = check
        self._replay = _ReplaySealer()
        self._dynamo = DynamoTableStore(None, "tables", "accounts", self._replay,
                                        ledger_table="ledger")
        self.sized = 0
        """Bytes of the table items sized since the last reset (a transaction's, under the
        lock)."""

    def _wait(self) -> None:
        if self.latency_s and self.meter.active:
            time.sleep(self.latency_s)

    def _item(self, record: TableRecord) -> _Item:
        item = super()._item(record)
        if self.meter.sizes:  # under the lock: the replay sealer is shared
            self._replay.blobs = {record.table_id: item.blob}
            if item.fallback is not None:
                self._replay.blobs[record.table_id + FALLBACK_AAD_SUFFIX] = item.fallback
            nbytes = dynamodb_item_size(self._dynamo.to_item(record))
            self.meter.size("table", record.table_id, nbytes)
            self.meter.add("bytes.table", nbytes)
            self.sized += nbytes
        return item

    def load(self, table_id: str) -> TableRecord:
        self.meter.add_many({"get.table": 1, "api.GetItem": 1})
        try:
            with self._lock:
                return super().load(table_id)
        finally:
            self._wait()

    def create(self, record: TableRecord, moves: tuple[AccountMove, ...] = ()) -> None:
        self._write(lambda: MemoryTableStore.create(self, record, moves), record, moves)

    def save(self, record: TableRecord, expected_version: int,
             moves: tuple[AccountMove, ...] = ()) -> None:
        self._write(lambda: MemoryTableStore.save(self, record, expected_version, moves),
                    record, moves)

    def _write(self, write: Callable[[], None], record: TableRecord,
               moves: tuple[AccountMove, ...]) -> None:
        net = _net_moves(moves)
        entries = sum(1 for move in moves if move.amount)
        call = "api.TransactWriteItems" if net or entries else "api.PutItem"
        self.meter.add(call)
        try:
            with self._lock:
                try:
                    write()
                except ConcurrentUpdate:
                    self.meter.add_many({"conflict": 1, "conflict.item.table": 1,
                                         f"conflict.cause.{cause_of_write()}": 1,
                                         f"conflict.timer.{self.meter.execution}": 1})
                    raise
                except (InsufficientFunds, TooManyTables):
                    self.meter.add("refused")
                    raise
                self.meter.add_many({"write.table": 1, "write.account": len(net),
                                     "write.ledger": entries})
                if self.check and moves:
                    assert_balanced(self.audit())
        finally:
            self._wait()

    def due_tables(self, now_ms: int, limit: int = 100) -> list[str]:
        self.meter.add_many({"query.index": 1, "api.Query": 1})
        with self._lock:
            return super().due_tables(now_ms, limit)

    def list_open(self, limit: int = 50) -> list[TableSummary]:
        self.meter.add_many({"query.index": 1, "api.Query": 1})
        with self._lock:
            return super().list_open(limit)

    def find_open(self, stakes: str, limit: int = 20) -> list[TableSummary]:
        self.meter.add_many({"query.index": 1, "api.Query": 1})
        with self._lock:
            return super().find_open(stakes, limit)

    def find_by_code(self, code: str) -> str | None:
        self.meter.add_many({"query.index": 1, "api.Query": 1})
        with self._lock:
            return super().find_by_code(code)


class BenchTournamentStore(MemoryTournamentStore):
    """The memory tournament store, each call atomic and counted (see the module docstring)."""

    tables: BenchTableStore

    def __init__(self, tables: BenchTableStore) -> None:
        super().__init__(tables)
        self.meter = tables.meter
        self._dynamo = DynamoTournamentStore(None, "tournaments", tables._dynamo)
        self._keys: dict[str, list[str]] = {}
        """Each tournament's sub-item keys, sorted: a Query by prefix reads a range, as on
        DynamoDB (the memory store sorts every key of the partition per call, which at 10,000
        players, tens of thousands of items, would dominate the run)."""

    def _index(self, writes: tuple[Write, ...]) -> None:
        for write in writes:
            if isinstance(write, PutItem | DeleteItem | BumpCount | CloseCount | CountOuts
                          | CloseOuts):
                keys = self._keys.setdefault(write.tournament_id, [])
                at = bisect.bisect_left(keys, write.key)
                present = at < len(keys) and keys[at] == write.key
                if not isinstance(write, DeleteItem) and not present:
                    keys.insert(at, write.key)
                elif isinstance(write, DeleteItem) and present:
                    del keys[at]

    def load(self, tournament_id: str) -> TournamentRecord:
        # aws.tournaments reads the tournament item and the field item together
        self.meter.add_many({"get.tournament": 1, "api.TransactGetItems": 1})
        try:
            with self.tables._lock:
                return super().load(tournament_id)
        finally:
            self.tables._wait()

    def items(self, tournament_id: str, prefix: str) -> list[tuple[str, dict[str, Any]]]:
        """As the memory store's, by a range of the sorted keys; no latency (see the module
        docstring)."""
        with self.tables._lock:
            keys = self._keys.get(tournament_id, [])
            stored = self._items.get(tournament_id, {})
            found = []
            for key in keys[bisect.bisect_left(keys, prefix):]:
                if not key.startswith(prefix):
                    break
                found.append((key, dict(stored[key])))
        kind = sub_kind(prefix)
        self.meter.add_many({"query.sub": 1, "api.Query": 1, "read.sub_items": len(found),
                             f"query.sub.{kind}": 1, f"read.sub_items.{kind}": len(found)})
        return found

    def commit(self, writes: tuple[Write, ...], moves: tuple[AccountMove, ...] = ()) -> None:
        meter = self.meter
        net = _net_moves(moves)
        entries = sum(1 for move in moves if move.amount)
        meter.add("api.TransactWriteItems")
        try:
            with self.tables._lock:
                self.tables.sized = 0
                terms_written = self._terms_written(writes)
                try:
                    super().commit(writes, moves)
                except ConcurrentUpdate:
                    failed = self._failed(writes)
                    counts = {"conflict": 1, f"conflict.cause.{cause_of_write(writes)}": 1,
                              f"conflict.timer.{meter.execution}": 1}
                    counts.update({f"conflict.item.{kind}": 1 for kind in failed or {"account"}})
                    meter.add_many(counts)
                    raise
                except (InsufficientFunds, TooManyTables):
                    meter.add("refused")
                    raise
                self._index(writes)
                if meter.active:
                    self._count(writes, net, entries, terms_written)
                if self.tables.check:
                    assert_balanced(self.tables.audit())
        finally:
            self.tables._wait()

    def _failed(self, writes: tuple[Write, ...]) -> set[str]:
        """The kinds of the items whose conditions fail now (under the lock: as the commit
        found them)."""
        tables = self.tables
        failed = set()
        for write in writes:
            match write:
                case PutTable(record=record, expected_version=expected):
                    current = tables._items.get(record.table_id)
                    if (current is None) != (expected is None) or (
                            current is not None and current.version != expected):
                        failed.add("table")
                case PutTournament(record=record, expected_version=expected):
                    stored = self._records.get(record.tournament_id)
                    if (stored is None) != (expected is None) or (
                            stored is not None and stored[0] != expected):
                        failed.add("tournament")
                case PutItem(tournament_id=tid, key=key, new=True):
                    if key in self._items.get(tid, {}):
                        failed.add(f"sub.{sub_kind(key)}")
                case DeleteItem(tournament_id=tid, key=key, must_exist=True):
                    if key not in self._items.get(tid, {}):
                        failed.add(f"sub.{sub_kind(key)}")
                case BumpCount(tournament_id=tid, key=key, entrants=entrants, quota=quota):
                    count = self._items.get(tid, {}).get(key, {})
                    after = count.get("entrants", 0) + entrants
                    if count.get("closed") or after < 0 or (entrants > 0 and after > quota):
                        failed.add(f"sub.{sub_kind(key)}")
                case CloseCount(tournament_id=tid, key=key, entrants=entrants):
                    count = self._items.get(tid, {}).get(key, {})
                    if count.get("closed") or count.get("entrants", 0) != entrants:
                        failed.add(f"sub.{sub_kind(key)}")
                case CountOuts(tournament_id=tid, key=key, outs=outs, grant=grant):
                    shard = self._items.get(tid, {}).get(key, {})
                    if shard.get("closed") or shard.get("room", 0) + grant < outs:
                        failed.add(f"sub.{sub_kind(key)}")
                case CloseOuts(tournament_id=tid, key=key, out=out):
                    shard = self._items.get(tid, {}).get(key, {})
                    if shard.get("closed") or shard.get("out", 0) != out:
                        failed.add(f"sub.{sub_kind(key)}")
        return failed

    def _terms_written(self, writes: tuple[Write, ...]) -> set[str]:
        """The tournaments whose tournament item these writes would write, as
        ``aws.tournaments`` does: new ones, and those whose terms part changed (every
        write of a tournament writes its field item; under the lock)."""
        written: set[str] = set()
        for write in writes:
            if isinstance(write, PutTournament):
                stored = self._records.get(write.record.tournament_id)
                terms, _ = split_document(write.record.to_document())
                if stored is None or split_document(stored[1])[0] != terms:
                    written.add(write.record.tournament_id)
        return written

    def _count(self, writes: tuple[Write, ...], net: dict[str, Any], entries: int,
               terms_written: set[str]) -> None:
        meter = self.meter
        counts: Counter[str] = Counter({"transactions.ok": 1, "write.account": len(net),
                                        "write.ledger": entries})
        total = self.tables.sized  # the table items' (BenchTableStore._item)
        tournament_written = False
        for write in writes:
            match write:
                case PutTable():
                    counts["write.table"] += 1
                case PutTournament(record=record):
                    counts["write.field"] += 1
                    if meter.sizes:
                        nbytes = dynamodb_item_size(self._dynamo.field_item(record))
                        meter.size("field", record.tournament_id, nbytes)
                        counts["wru.field"] += wru(nbytes)
                        total += nbytes
                    if record.tournament_id not in terms_written:
                        continue
                    counts["write.tournament"] += 1
                    tournament_written = True
                    if meter.sizes:
                        nbytes = dynamodb_item_size(self._dynamo.to_item(record))
                        meter.size("tournament", record.tournament_id, nbytes)
                        counts["bytes.tournament"] += nbytes
                        counts["wru.tournament"] += wru(nbytes)
                        total += nbytes
                case PutItem(key=key) | DeleteItem(key=key) | BumpCount(key=key) \
                        | CloseCount(key=key) | CountOuts(key=key) | CloseOuts(key=key):
                    kind = sub_kind(key)
                    counts[f"write.sub.{kind}"] += 1
                    counts["write.sub"] += 1
                    if "#h#" in key:
                        counts["write.sub.log.hand"] += 1
                    if meter.sizes and isinstance(write, PutItem):
                        put = self._dynamo._transact_item(write)["Put"]["Item"]
                        nbytes = dynamodb_item_size(put)
                        meter.size(f"sub.{kind}", key, nbytes)
                        total += nbytes
        if tournament_written:
            counts[f"write.tournament.cause.{cause_of_write(writes)}"] += 1
        items = len(writes) + len(net) + entries
        counts["transaction_items"] += items
        if items > MAX_TRANSACTION_ITEMS:
            counts["transactions.over_100_items"] += 1
        with meter.lock:
            if items > meter.counts["max.transaction_items"]:
                meter.counts["max.transaction_items"] = items
            if total > meter.counts["max.transaction_bytes"]:
                meter.counts["max.transaction_bytes"] = total
            meter.counts.update(counts)


def assert_balanced(audit: Any) -> None:
    if not audit.holds:
        raise AssertionError(f"the ledger identity does not hold: {audit.line()}")


# -- what the service keeps in memory, made thread-safe -----------------------------------

class LockedRandom(random.Random):
    """A seeded ``random.Random`` whose draws hold a lock (shared by the executions)."""

    def __init__(self, seed: int) -> None:
        self._lock = threading.RLock()
        super().__init__(seed)

    def random(self) -> float:
        with self._lock:
            return super().random()

    def getrandbits(self, k: int) -> int:
        with self._lock:
            return super().getrandbits(k)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        with self._lock:
            return super().randrange(start, stop, step)

    def shuffle(self, x: Any) -> None:
        with self._lock:
            super().shuffle(x)


class LockedScheduler(VirtualScheduler):
    """The virtual Step Functions, its heap behind a lock; pops a window of executions."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        with self.lock:
            super().schedule(table_id, token, due_ms, kind)

    def pop(self) -> tuple[int, str, str] | None:
        with self.lock:
            return super().pop()

    def pop_window(self, window_ms: int) -> list[tuple[int, str, str]]:
        """The next execution and every other one due within *window_ms* of it."""
        with self.lock:
            first = super().pop()
            if first is None:
                return []
            window = [first]
            while self.heap and self.heap[0][0] < first[0] + window_ms:
                popped = super().pop()
                assert popped is not None
                window.append(popped)
            return window


class LockedGateway(RecordingGateway):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        with self.lock:
            super().send(connection_id, message)


class LockedConnections(MemoryConnections):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def bind(self, connection_id: str, player_id: str, now_ms: int) -> None:
        with self.lock:
            super().bind(connection_id, player_id, now_ms)

    def add_table(self, connection_id: str, table_id: str) -> None:
        with self.lock:
            super().add_table(connection_id, table_id)

    def unbind(self, connection_id: str) -> None:
        with self.lock:
            super().unbind(connection_id)


# -- the run -----------------------------------------------------------------------------------

@dataclass
class BenchSimulation(Simulation):
    """:class:`~naiko_local.tournament.Simulation` on counting stores, its timer executions
    fired a window at a time on a thread pool (see the module docstring)."""

    window_ms: int = 200
    threads: int = 8
    latency_ms: float = 1.0
    serial: bool = False
    scan_every_ms: int = 60_000
    progress_s: float = 30.0
    meter: Meter = field(default_factory=Meter)
    windows: int = 0
    clock_start: int = 0
    tables_at_start: int = 0
    sweeps: int = 0
    scans: int = 0
    violations: list[str] = field(default_factory=list)
    fired: set[int] = field(default_factory=set)
    """Hashes of the executions fired: one with the same deadline, table and token as an
    earlier one is a duplicate (an attempt that lost its write had armed it too)."""
    busy: list[str] = field(default_factory=list)
    """The first executions answered ``busy``: (due, target, token) at the window's time."""

    def __post_init__(self) -> None:
        latency = 0.0 if self.serial else self.latency_ms / 1000
        self.accounts = BenchAccounts(self.meter, latency)
        self.store = BenchTableStore(self.meter, self.accounts, latency, self.check)
        self.tournaments = BenchTournamentStore(self.store)
        self.scheduler = LockedScheduler()
        self.clock = ManualClock(1_767_225_600_000)  # as the simulation: 2026-01-01
        think = LockedRandom(self.seed + 1)
        low, high = self.think_ms
        deps = Deps(tables=self.store, accounts=self.accounts, connections=LockedConnections(),
                    gateway=LockedGateway(), scheduler=self.scheduler, clock=self.clock,
                    rng=LockedRandom(self.seed), tournaments=self.tournaments,
                    bot_think=lambda: think.randrange(low, high + 1),
                    count=self.meter.metric, warn=self.meter.warning)
        self.service = TableService(deps)

    @property
    def bench_scheduler(self) -> LockedScheduler:
        assert isinstance(self.scheduler, LockedScheduler)
        return self.scheduler

    def finished(self) -> bool:
        with self.meter.quiet():
            record = self.tournaments.load(self.tournament_id)
        if not self.tables_at_start and record.seating is not None:
            self.tables_at_start = len(record.seating.counts)
        return record.status is TournamentStatus.FINISHED and not record.timers

    def play(self, report: Callable[[BenchSimulation], None]) -> None:
        """Every timer execution to the end, a window at a time (see the module docstring)."""
        pool = None if self.serial or self.threads <= 1 else ThreadPoolExecutor(self.threads)
        next_report = time.monotonic() + self.progress_s
        next_scan = self.clock.now + self.scan_every_ms
        try:
            while True:
                if (not self.scheduler.heap or self.windows % FINISHED_EVERY == 0) \
                        and self.finished():
                    break
                if self.serial:
                    popped = self.scheduler.pop()
                    window = [] if popped is None else [popped]
                else:
                    window = self.bench_scheduler.pop_window(self.window_ms)
                if not window:
                    raise RuntimeError("no timer left and the tournament is not finished")
                while self.next_sweep <= window[0][0]:  # EventBridge: alone, every minute
                    self.clock.now = max(self.clock.now, self.next_sweep)
                    self._fire(None)
                    self.sweeps += 1
                    self.next_sweep += 60_000
                self.clock.now = max(self.clock.now, window[-1][0])
                if pool is None or len(window) == 1:
                    for execution in window:
                        self._fire(execution)
                else:
                    list(pool.map(self._fire, window))
                self.windows += 1
                self.executions += len(window)
                if self.executions > MAX_EXECUTIONS:
                    raise RuntimeError(f"not finished after {MAX_EXECUTIONS} executions")
                if self.scan_every_ms and self.clock.now >= next_scan:
                    self.scan()
                    next_scan = self.clock.now + self.scan_every_ms
                if self.progress_s and time.monotonic() >= next_report:
                    report(self)
                    next_report = time.monotonic() + self.progress_s
        finally:
            if pool is not None:
                pool.shutdown()
        self.scan()

    def _fire(self, execution: tuple[int, str, str] | None) -> None:
        """One timer execution (``None``: the sweep), as the timer function runs it: ``busy``
        (four conflicts) is counted, as a failed execution the sweep makes up for; anything
        else is a failure of the run, kept with its traceback."""
        token = "sweep" if execution is None else execution[2]
        label = token.split(":", 1)[0]
        if execution is not None and execution[1].startswith("T:"):
            label = "tournament " + label
        self.meter.execution = label
        if execution is not None:
            key = hash(execution)
            with self.meter.lock:
                if key in self.fired:
                    self.meter.counts[f"duplicate.{label}"] += 1
                self.fired.add(key)
        try:
            if execution is None:
                self.service.sweep()
            else:
                self.service.timer_fired(execution[1], execution[2])
        except ServiceError as error:
            if error.code == "busy":
                self.meter.add_many({"busy": 1, f"busy.timer.{label}": 1})
                with self.meter.lock:
                    if len(self.busy) < FAILURES_KEPT:
                        self.busy.append(f"{execution} at {self.clock.now}")
            else:
                self.meter.failure(f"{execution}: {error.code} {error.message}")
        except Exception:
            self.meter.failure(f"{execution} at {self.clock.now}:\n{traceback.format_exc()}")

    # -- invariants ----------------------------------------------------------------------------

    def scan(self) -> None:
        """Between windows: the invariants of the module docstring; breaks are kept."""
        self.scans += 1
        with self.meter.quiet():
            problems = self._problems()
        for problem in problems:
            text = f"at {self.clock.now} (window {self.windows}): {problem}"
            if len(self.violations) < 50:
                self.violations.append(text)
            print(f"INVARIANT: {text}", file=sys.stderr, flush=True)

    def _problems(self) -> list[str]:
        tid = self.tournament_id
        store = self.store
        record = self.tournaments.load(tid)
        with store._lock:
            items = list(store._items.items())
        seated: dict[str, list[int]] = {}
        chips = 0
        by_table: dict[int, int] = Counter()
        for table_id, item in items:
            table = open_record(store.sealer, table_id, item.version, item.blob, item.fallback)
            if table.tournament is None or table.tournament.tournament_id != tid:
                continue
            chips += table.state.total_chips()
            for seat in table.state.seats:
                if seat is not None:
                    seated.setdefault(seat.player_id, []).append(table.tournament.number)
                    by_table[table.tournament.number] += 1
        problems = [f"{player} seated at tables {numbers}"
                    for player, numbers in seated.items() if len(numbers) > 1]
        entrants = {key.removeprefix("reg#") for key, _ in self.tournaments.items(tid, "reg#")}
        placed = {key.removeprefix("result#")
                  for key, _ in self.tournaments.items(tid, "result#")}
        # issue 23: players out on a count shard are placed when the shards close; until
        # their result# items are written their out# item (no players left) says where they are
        placed |= {str(data["player_id"]) for _, data in self.tournaments.items(tid, "out#")
                   if data.get("left") is None}
        seating = record.seating
        open_round = None if seating is None else seating.hfh
        out_now: dict[int, int] = Counter()  # out in an open hand-for-hand round, by table
        out_players: set[str] = set()
        numbers = {} if seating is None else {v: k for k, v in seating.table_ids.items()}
        for _, data in self.tournaments.items(tid, "hfh#"):
            for out in data["out"]:
                if out["player_id"] not in placed and open_round is not None:
                    out_players.add(str(out["player_id"]))
                    out_now[numbers.get(str(out["table"]), -1)] += 1
        if record.status.value == "registering":
            return []
        expected_chips = record.entrants * record.terms.starting_stack
        if chips != expected_chips:
            problems.append(f"{chips} tournament chips on the tables, {expected_chips} entered")
        both = set(seated) & placed
        if record.status.value == "finished":  # the winner stays at the closed final table
            if len(seated) != 1 or placed != entrants:
                problems.append(f"finished with {len(seated)} seated, {len(placed)} placed "
                                f"of {len(entrants)} entrants")
            both = set()
        if both:
            problems.append(f"seated and placed: {sorted(both)[:10]}")
        missing = entrants - set(seated) - placed - out_players
        if missing:
            problems.append(f"{len(missing)} entrants nowhere: {sorted(missing)[:10]}")
        if seating is not None and record.status.value == "running":
            pending_from: dict[int, int] = Counter(m.from_table for m in seating.pending)
            pending_to: dict[int, int] = Counter(m.to_table for m in seating.pending)
            for number, count in seating.counts.items():
                expected = (by_table[number] - pending_from[number] + pending_to[number]
                            + out_now[number])
                if count != expected:
                    problems.append(
                        f"seating counts table {number} at {count}: it seats "
                        f"{by_table[number]}, {pending_from[number]} leaving, "
                        f"{pending_to[number]} arriving, {out_now[number]} out this round")
        audit = store.audit()
        if not audit.holds:
            problems.append(f"ledger identity: {audit.line()}")
        return problems


# -- the figures ---------------------------------------------------------------------------------

def source_fingerprint() -> str:
    """The service's and the simulation's source as this run loaded it (a short hash of the
    files of the modules imported from this tree): the tree may change between runs."""
    digest = hashlib.sha256()
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and str(ROOT) in path and name.startswith(("naiko", "naiko_service",
                                                            "naiko_local")):
            digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:12]


class Interrupted(Exception):
    """SIGTERM: the run stops and prints its figures so far (as SIGINT does)."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(signal.Signals(signum).name)


def bench(players: int, args: argparse.Namespace) -> dict[str, Any]:
    """One field size to the end (or until SIGTERM/SIGINT): its figures."""
    terms = terms_for("mtt", Variant.NLHE, 100, players)
    meter = Meter(sizes=not args.no_sizes)
    simulation = BenchSimulation(terms, players, args.seed, check=not args.no_check,
                                 window_ms=args.window_ms, threads=args.threads,
                                 latency_ms=args.latency_ms, serial=args.serial,
                                 scan_every_ms=int(args.scan_every_min * 60_000),
                                 progress_s=args.progress_s, meter=meter)
    started = time.perf_counter()
    simulation.register()
    with meter.lock:
        registration = Counter(meter.counts)
        meter.counts.clear()
    registered_s = time.perf_counter() - started

    def report(sim: BenchSimulation) -> None:
        with meter.quiet():
            record = sim.tournaments.load(sim.tournament_id)
        counts = meter.counts
        print(f"  [{players}] {time.perf_counter() - started:7.0f} s wall, virtual "
              f"{(sim.clock.now - sim.clock_start) / 60_000:6.1f} min, "
              f"{record.players_left} players left on {len(record.tables)} tables, "
              f"{counts['write.sub.log.hand']} hands, {sim.executions} executions, "
              f"{counts['conflict']} conflicts, {counts['busy']} busy, "
              f"{meter.failure_count} failures, {len(sim.violations)} invariant breaks",
              file=sys.stderr, flush=True)
        if args.json_out is not None:  # the figures so far, should the run not end
            so_far = figures(sim, args, time.perf_counter() - started, registered_s,
                             registration, stopped="running")
            args.json_out.with_suffix(".partial.json").write_text(
                json.dumps(so_far, indent=2) + "\n", encoding="utf-8")

    simulation.clock_start = simulation.clock.now
    stopped = None
    try:
        simulation.play(report)
    except (Interrupted, KeyboardInterrupt) as stop:
        stopped = f"stopped by {stop or 'SIGINT'} before the end"
        print(f"  [{players}] {stopped}", file=sys.stderr, flush=True)
    return figures(simulation, args, time.perf_counter() - started, registered_s,
                   registration, stopped)


def figures(simulation: BenchSimulation, args: argparse.Namespace, wall: float,
            registered_s: float, registration: Counter[str],
            stopped: str | None = None) -> dict[str, Any]:
    """The figures of a run: at its end from the tournament's log; *stopped* (a run still
    going or interrupted) from the counters so far."""
    meter = simulation.meter
    players = simulation.players
    with meter.lock:
        counts = Counter(meter.counts)
    with meter.quiet():
        record = simulation.tournaments.load(simulation.tournament_id)
        log = [] if stopped else tournaments.export_log(simulation.service.deps,
                                                          simulation.tournament_id)
    hand_entries = [e for e in log if e["type"] == "hand"]
    if stopped:
        hands = counts["write.sub.log.hand"]
        cancelled = 0
        tables_at_start = simulation.tables_at_start
        minutes = (simulation.clock.now - (record.started_ms or simulation.clock.now)) / 60_000
        winner = None
    else:
        hands = sum(1 for e in hand_entries if not e.get("cancelled"))
        cancelled = len(hand_entries) - hands
        start = next(e for e in log if e["type"] == "started")
        finish = joined(log, "finished", "placed") or log[-1]  # with its parts (issue 23)
        tables_at_start = len(start["tables"]) + sum(
            len(e["tables"]) for e in log if e["type"] == "seated")
        minutes = (finish["at_ms"] - start["at_ms"]) / 60_000
        winner = next(iter(finish.get("places", {"?": 1})))
    places = None if stopped else _places_check(simulation, finish)
    per_hand = 1 / hands if hands else 0.0

    def ph(key: str) -> float:
        return round(counts[key] * per_hand, 3)

    with meter.lock:
        largest = {kind: {"bytes": nbytes, "item": key}
                   for kind, (nbytes, key) in sorted(meter.largest.items())}
        top = max(meter.largest.items(), key=lambda kv: kv[1][0], default=("", (0, "")))
        failure_details = list(meter.failures)
        warnings = dict(meter.warnings)

    return {
        "players": players, "seed": args.seed,
        "mode": "serial" if args.serial else (f"windows of {args.window_ms} ms on "
                                              f"{args.threads} threads, {args.latency_ms} ms "
                                              "latency per call"),
        "check": not args.no_check, "source": SOURCE,
        "stopped": stopped, "players_left": record.players_left,
        "wall_s": round(wall, 1), "registration_wall_s": round(registered_s, 1),
        "hands": hands, "hands_cancelled": cancelled,
        "tables_at_start": tables_at_start, "virtual_minutes": round(minutes, 1),
        "timer_executions": simulation.executions, "windows": simulation.windows,
        "duplicate_executions": {key.removeprefix("duplicate."): value
                                 for key, value in sorted(counts.items())
                                 if key.startswith("duplicate.")},
        "executions_per_window": round(simulation.executions / max(simulation.windows, 1), 2),
        "sweeps": simulation.sweeps,
        "per_hand": {
            "table": {"reads": ph("get.table"), "writes": ph("write.table")},
            "tournament_item": {"reads": ph("get.tournament"),
                                "writes": ph("write.tournament")},
            "field_item": {"reads": ph("get.tournament"), "writes": ph("write.field")},
            "tournament_sub_items": {"queries": ph("query.sub"),
                                     "items_read": ph("read.sub_items"),
                                     "writes": ph("write.sub")},
            "account": {"reads": ph("get.account"), "writes": ph("write.account"),
                        "ledger_entries": ph("write.ledger")},
            "index_queries": ph("query.index"),
            "api_calls": {"GetItem": ph("api.GetItem"), "Query": ph("api.Query"),
                          "PutItem": ph("api.PutItem"),
                          "TransactWriteItems": ph("api.TransactWriteItems")},
            "transactions": ph("api.TransactWriteItems"),
            "transaction_items": ph("transaction_items"),
        },
        "totals": {key: value for key, value in sorted(counts.items())
                   if not key.startswith("max.")},
        "sub_item_queries": {key.removeprefix("query.sub."): value
                             for key, value in sorted(counts.items())
                             if key.startswith("query.sub.")},
        "sub_items_read": {key.removeprefix("read.sub_items."): value
                           for key, value in sorted(counts.items())
                           if key.startswith("read.sub_items.")},
        "sub_item_writes": {key.removeprefix("write.sub."): value
                            for key, value in sorted(counts.items())
                            if key.startswith("write.sub.")},
        "conflicts": {
            "total": counts["conflict"],
            "per_1000_hands": round(counts["conflict"] * 1000 * per_hand, 2),
            "by_item": {key.removeprefix("conflict.item."): value
                        for key, value in sorted(counts.items())
                        if key.startswith("conflict.item.")},
            "by_cause": {key.removeprefix("conflict.cause."): value
                         for key, value in sorted(counts.items())
                         if key.startswith("conflict.cause.")},
            "by_timer": {key.removeprefix("conflict.timer."): value
                         for key, value in sorted(counts.items())
                         if key.startswith("conflict.timer.")},
            "busy_by_timer": {key.removeprefix("busy.timer."): value
                              for key, value in sorted(counts.items())
                              if key.startswith("busy.timer.")},
            "service_retries": counts["metric.Retries"],
            "busy": counts["busy"],
            "busy_executions": simulation.busy,
        },
        "tournament_item_writes": {
            "total": counts["write.tournament"],
            "per_hand": ph("write.tournament"),
            "wru_per_write": round(counts["wru.tournament"]
                                   / max(counts["write.tournament"], 1), 1),
            "by_cause": {key.removeprefix("write.tournament.cause."): value
                         for key, value in sorted(counts.items())
                         if key.startswith("write.tournament.cause.")},
        },
        "field_item_writes": {
            "total": counts["write.field"], "per_hand": ph("write.field"),
            "wru_per_write": round(counts["wru.field"] / max(counts["write.field"], 1), 1),
        },
        "largest_item": {"bytes": top[1][0], "kind": top[0], "item": top[1][1],
                         "by_kind": largest, "limit_bytes": MAX_ITEM_BYTES},
        "largest_transaction": {"items": counts["max.transaction_items"],
                                "over_100_items": counts["transactions.over_100_items"],
                                "bytes": counts["max.transaction_bytes"]},
        "registration": {"transactions": registration["api.TransactWriteItems"],
                         "conflicts": registration["conflict"]},
        "service_metrics": {key.removeprefix("metric."): value
                            for key, value in sorted(counts.items())
                            if key.startswith("metric.")},
        "warnings": warnings,
        "failures": meter.failure_count, "failure_details": failure_details,
        "invariant_scans": simulation.scans, "invariant_breaks": simulation.violations,
        "winner": winner, "places": places,
    }


def _places_check(simulation: Any, finish: dict[str, Any]) -> dict[str, int]:
    """The ``finished`` entry's places (derived from the ``out#`` items, R9.5, R9.8) against
    those each elimination gave (the ``result#`` items), read outside the counts."""
    with simulation.meter.quiet():
        tid = simulation.tournament_id
        outs = simulation.tournaments.items(tid, "out#")
        given = {str(d["player_id"]): int(d["place"])
                 for _, d in simulation.tournaments.items(tid, "result#")}
    derived = finish.get("places", {})
    return {"out_items": len(outs), "placed": len(derived),
            "differ": sum(1 for p, place in derived.items() if given.get(p) != place)
            + sum(1 for p in given if p not in derived)}


def render(result: dict[str, Any]) -> str:
    """One field size's figures as a readable table."""
    p = result["per_hand"]
    c = result["conflicts"]
    t = result["tournament_item_writes"]
    big = result["largest_item"]
    tx = result["largest_transaction"]
    lines = [
        *([f"!! {result['stopped']}: {result['players_left']:,} players were left"]
          if result["stopped"] else []),
        f"== {result['players']:,} players, seed {result['seed']}, {result['mode']}, "
        f"ledger check {'on' if result['check'] else 'off'}, source {result['source']} ==",
        f"wall time            {result['wall_s']:,.1f} s (registration "
        f"{result['registration_wall_s']:,.1f} s)",
        f"hands played         {result['hands']:,} (+{result['hands_cancelled']} cancelled)",
        f"tables at start      {result['tables_at_start']:,}",
        f"virtual duration     {result['virtual_minutes']:,.1f} min",
        f"timer executions     {result['timer_executions']:,} in {result['windows']:,} "
        f"windows ({result['executions_per_window']} per window), {result['sweeps']} sweeps",
        f"  duplicates         {_pairs(result['duplicate_executions'])} (same deadline, "
        "table and token as an earlier execution)",
        "",
        "DynamoDB per hand    reads      writes",
        f"  table item         {p['table']['reads']:<10} {p['table']['writes']}",
        f"  tournament item    {p['tournament_item']['reads']:<10} "
        f"{p['tournament_item']['writes']}   (reads: TransactGetItems of it and the field item)",
        f"  field item         {'':<10} {p['field_item']['writes']}",
        f"  tournament subitems {p['tournament_sub_items']['queries']:<9} "
        f"{p['tournament_sub_items']['writes']}   (queries; "
        f"{p['tournament_sub_items']['items_read']} items read per hand)",
        f"  account            {p['account']['reads']:<10} {p['account']['writes']}   "
        f"(+{p['account']['ledger_entries']} ledger entries)",
        f"  index queries      {p['index_queries']}",
        f"  API calls          GetItem {p['api_calls']['GetItem']}, Query "
        f"{p['api_calls']['Query']}, PutItem {p['api_calls']['PutItem']}, "
        f"TransactWriteItems {p['api_calls']['TransactWriteItems']}",
        f"  transactions       {p['transactions']} per hand ({p['transaction_items']} items)",
        "",
        f"conflicts            {c['total']:,} ({c['per_1000_hands']} per 1,000 hands); "
        f"service retries {c['service_retries']:,}; busy {c['busy']:,}",
        f"  by item            {_pairs(c['by_item'])}",
        f"  by cause           {_pairs(c['by_cause'])}",
        f"  by timer           {_pairs(c['by_timer'])}; busy: {_pairs(c['busy_by_timer'])}",
        *(f"  busy execution     {text}" for text in c["busy_executions"]),
        f"tournament item      {t['total']:,} writes, {t['per_hand']} per hand, "
        f"{t['wru_per_write']} WRU per write (2 per KB in a transaction)",
        f"  by cause           {_pairs(t['by_cause'])}",
        f"field item           {result['field_item_writes']['total']:,} writes, "
        f"{result['field_item_writes']['per_hand']} per hand, "
        f"{result['field_item_writes']['wru_per_write']} WRU per write",
        f"largest item         {big['bytes']:,} bytes ({big['kind']}: {big['item']}; "
        f"DynamoDB's limit {big['limit_bytes']:,})",
        "  by kind            " + ", ".join(f"{kind} {v['bytes']:,}"
                                            for kind, v in big["by_kind"].items()),
        f"largest transaction  {tx['items']} items (limit {MAX_TRANSACTION_ITEMS}; "
        f"{tx['over_100_items']} over it); the largest in bytes {tx['bytes']:,} (items only, "
        "not accounts and ledger entries)",
        f"sub-item writes      {_pairs(result['sub_item_writes'])}",
        f"sub-item queries     {_pairs(result['sub_item_queries'])}",
        f"  items they read    {_pairs(result['sub_items_read'])}",
        f"registration         {result['registration']['transactions']} transactions, "
        f"{result['registration']['conflicts']} conflicts (not in the per-hand figures)",
        f"winner               {result['winner']}",
        *([] if result["places"] is None else [
            f"places               {result['places']['placed']:,} in the finished entry, "
            f"derived from {result['places']['out_items']:,} out# items; "
            f"{result['places']['differ']} differ from those given at the eliminations"]),
        f"failures             {result['failures']}; invariant scans "
        f"{result['invariant_scans']}, breaks {len(result['invariant_breaks'])}",
    ]
    if result["warnings"]:
        lines.append(f"service warnings     {_pairs(result['warnings'])}")
    lines += [f"  ! {text}" for text in result["failure_details"]]
    lines += [f"  ! invariant: {text}" for text in result["invariant_breaks"]]
    return "\n".join(lines)


def _pairs(mapping: dict[str, Any]) -> str:
    return ", ".join(f"{key} {value:,}" for key, value in mapping.items()) or "none"


SOURCE = source_fingerprint()
"""The source as loaded (computed at import, before the tree can change under the run)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--players", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window-ms", type=int, default=200,
                        help="executions due within this much virtual time run at once")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--latency-ms", type=float, default=1.0,
                        help="each store call's round trip (the thread sleeps after it)")
    parser.add_argument("--serial", action="store_true",
                        help="fire the timers one by one (no window, no threads)")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the ledger check after every transaction")
    parser.add_argument("--no-sizes", action="store_true", help="do not size the items")
    parser.add_argument("--scan-every-min", type=float, default=1.0,
                        help="virtual minutes between invariant scans (0: at the end only)")
    parser.add_argument("--progress-s", type=float, default=30.0,
                        help="seconds of wall time between progress lines (stderr)")
    parser.add_argument("--json", action="store_true", help="print JSON, not the tables")
    parser.add_argument("--json-out", type=Path, default=None, help="also write JSON here")
    args = parser.parse_args(argv)
    for players in args.players:
        if not 2 <= players <= 10_000:
            parser.error("a scheduled tournament takes 2 to 10,000 players")
    signal.signal(signal.SIGTERM, _interrupt)
    results = []
    for players in args.players:
        result = bench(players, args)
        results.append(result)
        if not args.json:
            print(render(result), flush=True)
            print(flush=True)
        if args.json_out is not None:
            args.json_out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        if result["stopped"]:
            break
    if args.json:
        print(json.dumps(results, indent=2))
    if any(r["stopped"] for r in results):
        return 2
    broken = any(r["failures"] or r["invariant_breaks"] for r in results)
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
