"""Cold start of the game function with the engine layer as source only and precompiled.

    .venv/bin/python scripts/bench_cold_start.py [--runs 9] [--keep DIR]

Builds two layer trees in a temporary directory with ``layers/engine/Makefile`` for *this*
interpreter (``LAYER_PLATFORM=`` so pip picks this machine's wheels, ``PYTHON`` = this Python):

* ``before``: the Makefile's output with every ``__pycache__`` removed, i.e. what
  ``BuildMethod: python3.12`` shipped (sources only: no .pyc in the layer at all);
* ``after``: the Makefile's output as is (``compileall --invalidation-mode unchecked-hash``).

Each run is a fresh interpreter, as on a new Lambda container, with ``PYTHONDONTWRITEBYTECODE=1``
(Lambda's file system is read-only: nothing compiled on one run is cached for the next) and
the Lambda import path: the function's code (a source-only copy of ``functions/game``), then the
layer's ``python/``; ``-S``, so nothing comes from the virtualenv. It measures the first frame
on a new container: ``import app`` (``functions/game/app.py``), then building the service on
the in-memory adapters (``tests/service_testing.py``, handed to ``bootstrap.set_service`` like
the tests do), connecting the sample player and invoking the game handler with
``events/create_table.json`` (whose reply must be an ``ack``). Runs alternate between the two
trees (before, after, after, before, ...) so both see the same machine load; it prints min and
median per variant and the ratios after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import time
started = time.perf_counter()
import json, sys
import app
imported = time.perf_counter()

from naiko_service import bootstrap
from service_testing import harness

event = json.loads(open(sys.argv[1], encoding="utf-8").read())
context = event["requestContext"]
player = context["authorizer"]["player_id"]
h = harness()
bootstrap.set_service(h.service)
h.accounts.grant(player, 10_000)
h.service.connect(context["connectionId"], player)


class Context:
    function_name = "naiko-bench-game"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-bench-game"
    aws_request_id = "6f1c2d3e-0000-4000-8000-000000000001"


result = app.lambda_handler(event, Context())
answered = time.perf_counter()
reply = h.gateway.sent[context["connectionId"]][-1]
modules = len(sys.modules)
print(json.dumps({"import_ms": (imported - started) * 1000,
                  "first_ms": (answered - imported) * 1000,
                  "total_ms": (answered - started) * 1000,
                  "status": result.get("statusCode"), "reply": reply.get("type"),
                  "modules": modules}))
"""


def build_layer(work: Path) -> Path:
    """The Makefile's layer for this interpreter, in *work*/after; returns its python/."""
    started = time.monotonic()
    done = subprocess.run(["make", "--no-print-directory", "-s", "build-EngineLayer",
                           f"ARTIFACTS_DIR={work / 'after'}", f"PYTHON={sys.executable}",
                           "LAYER_PLATFORM="],
                          cwd=ROOT / "layers" / "engine", capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"make build-EngineLayer failed:\n{done.stdout}{done.stderr}")
    print(f"built the layer with layers/engine/Makefile in {time.monotonic() - started:.1f} s")
    return work / "after" / "python"


def source_only_copy(layer: Path, target: Path) -> Path:
    shutil.copytree(layer, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def tree_stats(tree: Path) -> str:
    files = [p for p in tree.rglob("*") if p.is_file()]
    pyc = sum(1 for p in files if p.suffix == ".pyc")
    size = sum(p.stat().st_size for p in files) / 1e6
    return f"{len(files)} files, {pyc} .pyc, {size:.1f} MB"


def make_read_only(tree: Path) -> None:
    """As on Lambda (root ignores the mode bits; PYTHONDONTWRITEBYTECODE does the rest)."""
    for path in tree.rglob("*"):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & 0o555)
    tree.chmod(tree.stat().st_mode & 0o555)


def make_writable(tree: Path) -> None:
    for path in [tree, *tree.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def run_once(layer: Path, function: Path, support: Path, event: Path) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "AWS_", "POWERTOOLS_"))}
    env.update({"PYTHONPATH": os.pathsep.join([str(function), str(layer), str(support)]),
                "PYTHONDONTWRITEBYTECODE": "1", "POWERTOOLS_SERVICE_NAME": "naiko",
                "POWERTOOLS_METRICS_NAMESPACE": "Naiko", "POWERTOOLS_TRACE_DISABLED": "true",
                "AWS_DEFAULT_REGION": "eu-west-1"})
    done = subprocess.run([sys.executable, "-S", "-c", CHILD, str(event)], capture_output=True,
                          text=True, env=env, cwd=str(function), timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the run failed:\n{done.stderr[-3000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if measured["status"] != 200 or measured["reply"] != "ack":
        raise RuntimeError(f"unexpected reply: {measured}")
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per variant (default 9)")
    parser.add_argument("--keep", type=Path, help="build in DIR and keep it (default: a temp dir)")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="naiko-cold-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        after = build_layer(work)
        before = source_only_copy(after, work / "before" / "python")
        function = work / "function"
        shutil.copytree(ROOT / "functions" / "game", function,
                        ignore=shutil.ignore_patterns("__pycache__"))
        support = work / "support"
        support.mkdir()
        shutil.copy2(ROOT / "tests" / "service_testing.py", support)
        event = support / "create_table.json"
        shutil.copy2(ROOT / "events" / "create_table.json", event)
        trees = {"before": before, "after": after}
        for tree in (*trees.values(), function, support):
            make_read_only(tree)
        print(f"Python {sys.version.split()[0]} on {os.uname().machine}; "
              f"{args.runs} runs per variant, interleaved")
        for name, tree in trees.items():
            print(f"  {name:6}  {tree_stats(tree)}")
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for i in range(args.runs):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")
            for name in order:
                results[name].append(run_once(trees[name], function, support, event))
        print()
        print("first frame on a new container: import app + in-memory service + create_table")
        print(f"{'variant':8} {'import app':>21} {'first request':>21} {'total':>21}")
        print(f"{'':8} {'min':>10} {'median':>10} {'min':>10} {'median':>10} "
              f"{'min':>10} {'median':>10}")
        summary: dict[str, dict[str, tuple[float, float]]] = {}
        for name, runs in results.items():
            summary[name] = {key: (min(r[key] for r in runs),
                                   statistics.median(r[key] for r in runs))
                             for key in ("import_ms", "first_ms", "total_ms")}
            cells = " ".join(f"{low:8.0f}ms {mid:8.0f}ms"
                             for low, mid in summary[name].values())
            print(f"{name:8} {cells}")
        cells = " ".join(
            f"{summary['after'][key][0] / summary['before'][key][0]:10.2f} "
            f"{summary['after'][key][1] / summary['before'][key][1]:10.2f}"
            for key in ("import_ms", "first_ms", "total_ms"))
        print(f"{'ratio':8} {cells}   (after / before)")
        modules = {name: int(statistics.median(r["modules"] for r in runs))
                   for name, runs in results.items()}
        print(f"modules loaded by the first frame: {modules['before']} (before), "
              f"{modules['after']} (after)")
    finally:
        if args.keep is None:
            make_writable(work)
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
