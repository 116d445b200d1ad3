"""Measure the local stack's memory over a fuzz session (issue 10, item 15): what grows, and why.

Starts a :class:`~naiko_local.stack.LocalStack` in this process (moto, the local API Gateway, the
local timers, the real handlers), opens the demo table with server-side bots, then sends N frames
(10,000 by default) over many short-lived WebSocket connections: each connects as one of a pool
of players, sends a burst of frames, waits for the replies (or a short while) and closes (now
and then it drops the network instead). The frames are a seeded mix of

* valid requests that change tables and connections: ``snapshot``, ``join_table``,
  ``leave_table``, ``sit_out``/``sit_in``, ``add_chips``, ``act``, ``list_tables`` on the demo
  table, and now and then a ``create_table`` (a new table that is legitimately kept);
* garbage from ``tests/fuzz_testing.py``'s strategies (``mixed_frames()``: raw bytes, arbitrary
  JSON, deep nesting, mutated requests), drawn with hypothesis in a child process (so that its
  own memory is not measured here) under a fixed seed.

Printed every ``--every`` frames: the process RSS (``VmRSS`` of ``/proc/self/status``), what
tracemalloc traces, and counts of what might accumulate (the gateway's per-connection dicts and
asyncio tasks, the stack's Lambda-log list and welcomed players, DynamoDB items per table in
moto and the model instances moto's tracker holds, threads, the timers' pending entries and
history, the Powertools metric set and logger keys as seen outside an invocation, logging
handlers, warning filters, gc objects). At the end, after ``gc.collect()``: the same, the top
allocation sites by size growth since the warm-up (tracemalloc snapshot diff, grouped by
traceback line, then the first five with their tracebacks), and the object types whose count
grew most::

    .venv/bin/python scripts/local_memory.py                        # 10,000 frames, seed 0
    .venv/bin/python scripts/local_memory.py --no-tracemalloc       # RSS figures

tracemalloc starts at the end of the warm-up and makes everything several times slower (10,000
frames: about 13 minutes instead of 1.5 on the 2-core dev machine; AWS calls then time out now
and then), and its own bookkeeping counts in RSS: take RSS figures with ``--no-tracemalloc``.

Leak or data? A table created by a ``create_table`` frame, an account per player and its ledger
entries, and a connection's item whose ``$disconnect`` did not delete it (one a snapshot
re-created while its connection closed; they expire by TTL in DynamoDB) are data DynamoDB keeps
too: they are counted separately. Memory that grows per frame or per connection with nothing
that should be kept is a leak.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import logging
import os
import random
import resource
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "layers" / "engine", ROOT / "tests", ROOT / "local"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

TEXT, BINARY, BAD_TEXT = 0, 1, 2
"""How a fuzz frame goes on the wire: a text frame, a binary frame, or invalid UTF-8 in a text
frame (the gateway closes the connection with 1007)."""

_RECORD = struct.Struct("!BI")


# -- fuzz frames, drawn in a child process ----------------------------------------------------

def generate(path: Path, count: int, seed_value: int) -> None:
    """Write *count* frames of ``fuzz_testing``'s four strategies (what ``mixed_frames()``
    draws: each strategy equally often; hypothesis, seed *seed_value*) to *path* as ``(kind,
    length, bytes)`` records, in a seeded random order (runs in the child process). A strategy
    that fails to draw (the fuzzer lagging behind a protocol change) is left out, with a
    warning."""
    import fuzz_testing
    from hypothesis import HealthCheck, Phase, given, seed, settings

    rng = random.Random(seed_value)
    kinds = list(fuzz_testing.STRATEGIES)
    drawn: dict[str, list[tuple[int, bytes]]] = {}

    def draw_frames(kind: str, wanted: int, seed_of_kind: int) -> list[tuple[int, bytes]]:
        frames: list[tuple[int, bytes]] = []

        @seed(seed_of_kind)
        @settings(max_examples=wanted, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(frame=fuzz_testing.frames(kind))
        def draw(frame: Any) -> None:
            if len(frames) < wanted:
                frames.append(wire_form(frame, fuzz_testing.Delivery, rng))

        draw()
        return frames

    for kind in kinds:
        try:
            drawn[kind] = draw_frames(kind, count // len(kinds) + 1, seed_value)
        except Exception as error:  # noqa: BLE001 (reported, the others still run)
            print(f"local_memory: the {kind!r} strategy fails ({type(error).__name__}: "
                  f"{error}); left out", file=sys.stderr)
    if not drawn:
        raise SystemExit("no fuzz strategy could draw a frame")
    left_out = len(drawn) < len(kinds)
    for number, kind in enumerate(sorted(drawn)):  # make up for a strategy left out
        short = count - sum(len(v) for v in drawn.values())
        if short > 0:
            drawn[kind] += draw_frames(kind, short // (len(drawn) - number) + 1,
                                       seed_value + 1 + number)
    written = 0
    with open(path, "wb") as out:
        while written < count:
            kind = rng.choice(sorted(k for k, v in drawn.items() if v))
            frame_kind, data = drawn[kind].pop()
            out.write(_RECORD.pack(frame_kind, len(data)))
            out.write(data)
            written += 1
            if not any(drawn.values()):
                break
    if left_out:
        raise SystemExit(LEFT_OUT)


def wire_form(frame: Any, delivery: Any, rng: random.Random) -> tuple[int, bytes]:
    """How a fuzz frame is sent over a real WebSocket: text that is valid UTF-8 as a text frame,
    text holding lone surrogates as a binary frame (one in ten as invalid UTF-8 in a text
    frame), bytes as the frame's delivery says (base64: binary; latin-1: decoded, as text;
    surrogateescape: text when valid UTF-8, else binary), no body as an empty text frame."""
    body = frame.body
    if body is None:
        return TEXT, b""
    if isinstance(body, str):
        try:
            return TEXT, body.encode("utf-8")
        except UnicodeEncodeError:
            data = body.encode("utf-8", errors="surrogatepass")
            return (BAD_TEXT if rng.random() < 0.1 else BINARY), data
    if frame.delivery == delivery.BASE64:
        return BINARY, body
    if frame.delivery == delivery.LATIN1:
        return TEXT, body.decode("latin-1").encode("utf-8")
    try:
        body.decode("utf-8")
        return TEXT, body
    except UnicodeDecodeError:
        return BINARY, body


def read_frames(path: Path) -> Iterator[tuple[int, bytes]]:
    """The records of :func:`generate`, read lazily (10,000 frames are tens of MB)."""
    with open(path, "rb") as file:
        while header := file.read(_RECORD.size):
            kind, length = _RECORD.unpack(header)
            yield kind, file.read(length)


LEFT_OUT = 3
"""The generator's exit status when a strategy was left out (its frames are not cached)."""


def fuzz_file(count: int, seed_value: int) -> Path:
    """Generate the fuzz frames in a child process (cached in the temp directory when every
    strategy could draw; otherwise the caller should delete the file after use)."""
    path = Path(tempfile.gettempdir()) / f"naiko-local-memory-{count}-{seed_value}.frames"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.partial")
        done = subprocess.run([sys.executable, __file__, "--generate", str(partial), "--frames",
                               str(count), "--seed", str(seed_value)])
        if done.returncode == LEFT_OUT:
            return partial
        done.check_returncode()
        partial.replace(path)
    return path


# -- valid requests -----------------------------------------------------------------------------

@dataclass
class World:
    """What valid requests refer to."""

    demo_table: str
    tables: list[str]
    """The demo table and the tables ``create_table`` frames opened."""


def valid_frame(rng: random.Random, world: World, player: str, number: int,
                create_every: int) -> dict[str, Any]:
    """A valid request (it may still be refused: a full table, not seated, not your turn)."""
    request_id = f"m{number}"
    table = world.demo_table if rng.random() < 0.8 else rng.choice(world.tables)
    if create_every and rng.randrange(create_every) == 0:
        return {"action": "create_table", "request_id": request_id,
                "name": f"mem {player} {number}", "small_blind": 1, "big_blind": 2,
                "min_buy_in": 40, "max_buy_in": 400, "seat_count": 6,
                "decision_seconds": 5}
    action = rng.choices(
        ["snapshot", "join_table", "leave_table", "sit_out", "sit_in", "add_chips", "act",
         "list_tables"], weights=[30, 15, 12, 4, 4, 5, 15, 15])[0]
    frame: dict[str, Any] = {"action": action, "request_id": request_id}
    if action != "list_tables":
        frame["table_id"] = table
    if action == "join_table":
        frame["buy_in"] = rng.choice([40, 100, 200, 400])
    elif action == "add_chips":
        frame["amount"] = rng.choice([10, 50])
    elif action == "act":
        frame["move"] = rng.choice(["fold", "check", "call"])
    return frame


# -- counts of what might accumulate -----------------------------------------------------------

def rss_kb() -> int:
    """``VmRSS`` of this process, in kB (``ru_maxrss`` where ``/proc`` is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def mb(kb: int) -> str:
    return f"{kb / 1024:.1f} MB"


def item_counts(stack: Any) -> dict[str, int]:
    """Items per DynamoDB table (moto), through the API (``Select=COUNT``)."""
    counts: dict[str, int] = {}
    client = stack._dynamodb
    for logical, name in stack.table_names.items():
        total, start = 0, None
        while True:
            request: dict[str, Any] = {"TableName": name, "Select": "COUNT"}
            if start:
                request["ExclusiveStartKey"] = start
            page = client.scan(**request)
            total += page["Count"]
            start = page.get("LastEvaluatedKey")
            if not start:
                break
        counts[logical.removesuffix("Table").lower()] = total
    return counts


def logging_handlers() -> tuple[int, int]:
    """(loggers, handlers attached to them, the root's included)."""
    loggers = [logging.getLogger()] + [
        lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    return len(loggers), sum(len(lg.handlers) for lg in loggers)


def accumulators(stack: Any) -> dict[str, Any]:
    """Counts of what could accumulate per frame or per connection."""
    from aws_lambda_powertools.logging.formatter import THREAD_LOCAL_KEYS
    from moto.core.model_instances import model_data
    from naiko_local import stack as stack_module
    from naiko_service import bootstrap

    gateway = stack.gateway
    provider = bootstrap.metrics.provider
    formatter = bootstrap.logger.registered_formatter
    loop = gateway._loop
    tasks = -1
    if loop is not None and loop.is_running():
        async def count_tasks() -> int:
            return len(asyncio.all_tasks())

        tasks = asyncio.run_coroutine_threadsafe(count_tasks(), loop).result(timeout=5)
    loggers, handlers = logging_handlers()
    tracked = sum(len(getattr(model, "instances_tracked", ()))
                  for models in model_data.values() for model in models.values())
    return {
        "gw.connections": len(gateway._connections),
        "gw.handshaking": len(gateway._handshaking),
        "gw.open": len(gateway.connection_ids()),
        "gw.tasks": tasks,
        "gw.server_conns": len(getattr(gateway._server, "connections", ()) or ()),
        "lambda_logs": len(stack_module._lambda_logs),
        "welcomed": len(stack._welcomed),
        "threads": threading.active_count(),
        "timers.waiting": len(stack.timers._waiting),
        "timers.heap": len(stack.timers._heap),
        "timers.history": len(stack.timers.history),
        "metric_set": len(provider.metric_set),
        "metric_values": sum(len(m.get("Value", ())) for m in provider.metric_set.values()),
        "dimension_set": len(provider.dimension_set),
        "metadata_set": len(provider.metadata_set),
        "logger.keys": len(getattr(formatter, "log_format", ())),
        "ctx.keys(main)": len(THREAD_LOCAL_KEYS.get()),
        "loggers": loggers,
        "log_handlers": handlers,
        "warning_filters": len(warnings.filters),
        "modules": len(sys.modules),
        "moto.tracked": tracked,
        "fn_modules": len(stack.functions.modules),
        "gc_objects": len(gc.get_objects()),
    }


def type_counts() -> collections.Counter[str]:
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


# -- the driver ----------------------------------------------------------------------------------

@dataclass
class Totals:
    frames: int = 0
    valid: int = 0
    fuzz: int = 0
    connections: int = 0
    replies: int = 0
    internal_errors: int = 0
    closed_by_server: int = 0
    refused: int = 0
    dropped: int = 0
    unanswered: int = 0


class Driver:
    """Sends the frames in bursts over short-lived connections, *concurrency* at a time."""

    def __init__(self, stack: Any, world: World, fuzz: Iterator[tuple[int, bytes]], *,
                 frames: int, seed_value: int, players: int, concurrency: int,
                 burst: tuple[int, int], fuzz_share: float, create_every: int,
                 every: int, on_checkpoint: Callable[[int], None]):
        self.stack = stack
        self.world = world
        self.fuzz = fuzz
        self.total = frames
        self.rng = random.Random(seed_value)
        self.players = [f"mem-{i}" for i in range(players)]
        self.tokens = {p: stack.token(p) for p in self.players}
        self.concurrency = concurrency
        self.burst = burst
        self.fuzz_share = fuzz_share
        self.create_every = create_every
        self.every = every
        self.on_checkpoint = on_checkpoint
        self.totals = Totals()
        self._next_checkpoint = every
        self._checkpoint_lock = asyncio.Lock()

    def _take(self) -> tuple[str, list[tuple[int, bytes]]]:
        """The next burst: its player and its (kind, data) frames."""
        left = self.total - self.totals.frames
        size = min(left, self.rng.randint(*self.burst))
        player = self.rng.choice(self.players)
        out: list[tuple[int, bytes]] = []
        for _ in range(size):
            self.totals.frames += 1
            if self.rng.random() < self.fuzz_share:
                frame = next(self.fuzz, None)
                if frame is not None:
                    self.totals.fuzz += 1
                    out.append(frame)
                    continue
            self.totals.valid += 1
            request = valid_frame(self.rng, self.world, player, self.totals.frames,
                                  self.create_every)
            out.append((TEXT, json.dumps(request).encode()))
        return player, out

    async def run(self) -> Totals:
        workers = [asyncio.create_task(self._worker()) for _ in range(self.concurrency)]
        await asyncio.gather(*workers)
        return self.totals

    async def _worker(self) -> None:
        while self.totals.frames < self.total:
            player, burst = self._take()
            await self._session(player, burst)
            async with self._checkpoint_lock:
                while self.totals.frames >= self._next_checkpoint:
                    # measured off the event loop: the stack's threads keep going meanwhile
                    await asyncio.to_thread(self.on_checkpoint, self._next_checkpoint)
                    self._next_checkpoint += self.every

    async def _session(self, player: str, burst: list[tuple[int, bytes]]) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        totals = self.totals
        drop = self.rng.random() < 0.1
        try:
            ws = await connect(f"{self.stack.url}/?token={self.tokens[player]}",
                               compression=None, max_size=2**22, open_timeout=20,
                               close_timeout=5)
        except (InvalidHandshake, OSError, TimeoutError):  # refused, or closed mid-handshake
            totals.refused += 1
            return
        totals.connections += 1
        received = 0
        sent = 0

        async def read() -> None:
            nonlocal received
            async for raw in ws:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if message.get("type") in ("ack", "update", "error", "snapshot", "tables") \
                        and message.get("request_id") is not None:
                    received += 1
                    if message.get("code") == "internal_error":
                        totals.internal_errors += 1
                    if message.get("type") == "ack" and isinstance(message.get("table_id"), str) \
                            and message["table_id"] not in self.world.tables:
                        self.world.tables.append(message["table_id"])  # a create_table's
                elif message.get("message") == "Internal server error":
                    received += 1
                    totals.internal_errors += 1

        reader = asyncio.create_task(read())
        try:
            for kind, data in burst:
                if kind == TEXT:
                    await ws.send(data.decode("utf-8"))
                elif kind == BINARY:
                    await ws.send(data)
                else:
                    await ws.send(data, text=True)  # invalid UTF-8: the gateway closes (1007)
                sent += 1
            try:
                async with asyncio.timeout(3):
                    while received < sent and not reader.done():
                        await asyncio.sleep(0.01)
            except TimeoutError:
                pass
            totals.unanswered += max(0, sent - received)
        except ConnectionClosed:
            totals.closed_by_server += 1
        finally:
            if drop and ws.transport is not None:
                totals.dropped += 1
                ws.transport.abort()
            else:
                try:
                    await ws.close()
                except Exception:  # noqa: BLE001 (closed under us)
                    pass
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            totals.replies += received


# -- reporting ------------------------------------------------------------------------------------

class Probe:
    """Prints checkpoints; keeps the warm-up baseline (tracemalloc snapshot, type counts)."""

    def __init__(self, stack: Any, *, use_tracemalloc: bool, warmup: int, top: int,
                 started: float, nframes: int = 6):
        self.stack = stack
        self.use_tracemalloc = use_tracemalloc
        self.warmup = warmup
        self.top = top
        self.started = started
        self.baseline: tracemalloc.Snapshot | None = None
        self.baseline_types: collections.Counter[str] | None = None
        self.baseline_counts: dict[str, Any] | None = None
        self.baseline_items: dict[str, int] | None = None
        self.rows: list[tuple[str, int]] = []
        self.nframes = nframes

    def line(self, label: str, *, collect: bool = False) -> None:
        if collect:
            gc.collect()
        rss = rss_kb()
        self.rows.append((label, rss))
        traced = ""
        if tracemalloc.is_tracing():
            current, peak = tracemalloc.get_traced_memory()
            traced = f"  traced {current / 2**20:6.1f} MB"
        counts = accumulators(self.stack)
        items = item_counts(self.stack)
        print(f"[{time.perf_counter() - self.started:7.1f} s] {label:<22} RSS {mb(rss):>9}"
              f"{traced}", flush=True)
        print("    " + "  ".join(f"{k}={v}" for k, v in counts.items()), flush=True)
        print("    items: " + "  ".join(f"{k}={v}" for k, v in items.items()), flush=True)

    def checkpoint(self, frames: int) -> None:
        self.line(f"{frames} frames")
        if frames == self.warmup:
            self.mark_warm()

    def mark_warm(self) -> None:
        gc.collect()
        self.line("after warm-up (gc)")
        self.baseline_types = type_counts()
        self.baseline_counts = accumulators(self.stack)
        self.baseline_items = item_counts(self.stack)
        if self.use_tracemalloc:
            tracemalloc.start(self.nframes)
            self.baseline = tracemalloc.take_snapshot()

    def final(self, totals: Totals) -> None:
        self.line("end")
        time.sleep(2)  # invocations of the last connections ($disconnect) finish
        self.line("end, after gc.collect()", collect=True)
        print(f"\nframes {totals.frames} (valid {totals.valid}, fuzz {totals.fuzz}) over "
              f"{totals.connections} connections ({totals.refused} refused, "
              f"{totals.dropped} dropped by the client, {totals.closed_by_server} closed by the "
              f"gateway mid-burst); replies {totals.replies}, internal errors "
              f"{totals.internal_errors}, unanswered {totals.unanswered}")
        print(f"invocations {dict(sorted(self.stack.functions.invocations.items()))}, "
              f"errors {dict(sorted(self.stack.functions.errors.items()))}")
        print(f"gateway stats {self.stack.gateway.stats}")
        print(f"timers stats {self.stack.timers.stats}")
        if self.baseline_counts is not None:
            now = accumulators(self.stack)
            grew = {k: (self.baseline_counts[k], v) for k, v in now.items()
                    if isinstance(v, int) and v != self.baseline_counts[k]}
            print("\ncounts changed since the warm-up: " + ", ".join(
                f"{k} {a} -> {b}" for k, (a, b) in grew.items()))
        if self.baseline_items is not None:
            items = item_counts(self.stack)
            print("DynamoDB items since the warm-up (data, kept as DynamoDB keeps it): " +
                  ", ".join(f"{k} {self.baseline_items[k]} -> {v}" for k, v in items.items()))
        if self.baseline_types is not None:
            types = type_counts()
            growth = sorted(((n - self.baseline_types.get(t, 0), t) for t, n in types.items()),
                            reverse=True)[:15]
            print("\nobject types that grew most since the warm-up (gc-tracked objects):")
            for delta, name in growth:
                print(f"  {delta:+8d}  {name}")
        if self.baseline is not None:
            gc.collect()
            snapshot = tracemalloc.take_snapshot().filter_traces([
                tracemalloc.Filter(False, tracemalloc.__file__),
                tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
            ])
            base = self.baseline.filter_traces([
                tracemalloc.Filter(False, tracemalloc.__file__)])
            stats = snapshot.compare_to(base, "lineno")
            print(f"\ntop {self.top} allocation sites by size growth since the warm-up "
                  "(tracemalloc, by traceback line):")
            for stat in stats[:self.top]:
                frame = stat.traceback[0]
                print(f"  {stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+8d} blocks  "
                      f"{short(frame.filename)}:{frame.lineno}")
            print(f"\nwhere the top 5 come from (innermost last, {self.nframes} frames):")
            tb_stats = snapshot.compare_to(base, "traceback")
            for stat in tb_stats[:5]:
                print(f"  {stat.size_diff / 1024:+10.1f} KiB {stat.count_diff:+8d} blocks")
                for frame in stat.traceback:
                    print(f"      {short(frame.filename)}:{frame.lineno}")
        print("\nRSS: " + ", ".join(f"{label} {mb(kb)}" for label, kb in self.rows
                                    if not label[0].isdigit() or label.startswith(
                                        f"{self.warmup} ")))


def short(filename: str) -> str:
    for marker in ("site-packages/", str(ROOT) + "/"):
        index = filename.find(marker)
        if index >= 0:
            return filename[index + len(marker):]
    return filename


# -- main ---------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10_000, help="frames to send (10,000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mix and of hypothesis")
    parser.add_argument("--fuzz-share", type=float, default=0.5,
                        help="share of garbage frames (0.5); the rest are valid requests")
    parser.add_argument("--players", type=int, default=60, help="players connecting (60)")
    parser.add_argument("--concurrency", type=int, default=8,
                        help="connections open at once (8)")
    parser.add_argument("--burst", type=int, nargs=2, default=(1, 12), metavar=("MIN", "MAX"),
                        help="frames per connection (1 12)")
    parser.add_argument("--create-every", type=int, default=400,
                        help="one valid frame in this many is a create_table (400; 0: never)")
    parser.add_argument("--every", type=int, default=1000, help="print every N frames (1000)")
    parser.add_argument("--warmup", type=int, default=1000,
                        help="frames before the baseline (tracemalloc starts there; 1000)")
    parser.add_argument("--top", type=int, default=15, help="allocation sites shown (15)")
    parser.add_argument("--no-tracemalloc", action="store_true",
                        help="no tracemalloc (its own overhead inflates RSS)")
    parser.add_argument("--tracemalloc-frames", type=int, default=6,
                        help="frames kept per traced allocation (6; more is slower)")
    parser.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.generate is not None:
        generate(args.generate, args.frames, args.seed)
        return 0

    fuzz_count = int(args.frames * args.fuzz_share) + args.burst[1] + 50
    print(f"drawing {fuzz_count} fuzz frames (tests/fuzz_testing.mixed_frames(), seed "
          f"{args.seed}) in a child process...", flush=True)
    frames_path = fuzz_file(fuzz_count, args.seed)
    if frames_path.suffix == ".partial":  # a strategy was left out: not kept for later runs
        import atexit

        atexit.register(frames_path.unlink, missing_ok=True)

    from naiko_local.stack import LocalStack, StackConfig, open_demo_table, seat_server_bots

    warnings.filterwarnings("ignore", message="No application metrics to publish")
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    state_dir = Path(tempfile.mkdtemp(prefix="naiko-local-memory-"))
    started = time.perf_counter()
    stack = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                   lambda_log=state_dir / "lambda.log"))
    print(f"start: RSS {mb(rss_kb())} (before the stack)", flush=True)
    stack.start()
    try:
        table = open_demo_table(stack, variant="NLHE", seats=6, small_blind=1, big_blind=2,
                                decision_seconds=5, bots=True)
        seat_server_bots(stack, table.table_id, 3, buy_in=200)
        world = World(table.table_id, [table.table_id])
        probe = Probe(stack, use_tracemalloc=not args.no_tracemalloc, warmup=args.warmup,
                      top=args.top, started=started, nframes=args.tracemalloc_frames)
        probe.line("stack + demo table")
        driver = Driver(stack, world, read_frames(frames_path), frames=args.frames,
                        seed_value=args.seed, players=args.players,
                        concurrency=args.concurrency, burst=tuple(args.burst),
                        fuzz_share=args.fuzz_share, create_every=args.create_every,
                        every=args.every, on_checkpoint=probe.checkpoint)
        totals = asyncio.run(driver.run())
        probe.final(totals)
        log_path = state_dir / "lambda.log"
        print(f"Lambda log: {log_path} ({log_path.stat().st_size / 2**20:.1f} MB)")
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
