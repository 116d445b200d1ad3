#!/usr/bin/env python3
"""The whole fault-injection matrix (issue 10) on the in-memory adapters: every call of the
session, every fault that applies to it, for several seeds and longer sessions.

    .venv/bin/python scripts/fault_matrix.py [--seeds 1,2,3] [--rounds 2] [--jobs 2]
                                             [--per-site N] [--port store] [--no-shortcut]

For each seed, ``tests/fault_testing.py`` records the session (NLHE, PLO and NAIKO tables played
*rounds* times: joins, leaves, add chips, powers and Shield windows, timeouts, disconnects and
reconnects, the sweep) with a checkpoint per event, then replays it once per (call, fault) with
that one fault injected, and checks that the ledger identity held after every event, that every
hand ended (normally or cancelled, R8.6), that no table was stuck past its deadline plus the
sweep period, and that every player's snapshot is the stored table. It prints the matrix
(port.method x fault: ``held N`` or ``FAILED f/N``) per seed and in total, the number of
injected faults, the time taken, and every failure with its call site.

``--per-site N`` samples N calls per distinct call site instead of every call (what the CI test
does); ``--no-shortcut`` plays every run to its end even when it reaches a state of the
recording (slower; the same verdicts). Exit status 1 if any run broke an invariant.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "tests")]

from fault_testing import (  # noqa: E402
    PORT_METHODS,
    Cell,
    Fault,
    Matrix,
    Outcome,
    describe_failures,
    faults_for,
    format_matrix,
    standard_script,
)

_MATRIX: Matrix | None = None


def _run(task: tuple[int, str]) -> tuple[int, str, Outcome]:
    assert _MATRIX is not None
    target, fault = task
    return target, fault, _MATRIX.run(target, Fault(fault))


def run_seed(seed: int, rounds: int, jobs: int, per_site: int | None, ports: list[str],
             shortcut: bool) -> Matrix:
    """Record one session and run its matrix (in *jobs* processes)."""
    global _MATRIX
    matrix = Matrix(standard_script(seed=seed, rounds=rounds))
    baseline = matrix.record()
    if not baseline.held:
        raise SystemExit(f"seed {seed}: the session without faults already fails: {baseline}")
    matrix.shortcut = shortcut
    tasks: list[tuple[int, str]] = []
    for port in ports:
        for method in PORT_METHODS[port]:
            targets = matrix.targets(port, method, per_site=per_site, seed=seed)
            for fault in faults_for(port, method):
                matrix.cells[(port, method, fault)] = Cell()
                tasks += [(target, fault.value) for target in targets]
    _MATRIX = matrix
    if jobs > 1:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(_run, tasks, chunksize=16)
    else:
        results = [_run(task) for task in tasks]
    for target, name, outcome in results:
        call = matrix.calls[target]
        cell = matrix.cells[(call.port, call.method, Fault(name))]
        cell.runs += 1
        if not outcome.held:
            cell.failures.append((target, outcome))
    return matrix


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1,2,3", help="comma-separated session seeds")
    parser.add_argument("--rounds", type=int, default=2,
                        help="times the three tables are played in one session")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--per-site", type=int, default=None,
                        help="sample this many calls per call site (default: every call)")
    parser.add_argument("--port", action="append", choices=sorted(PORT_METHODS),
                        help="only this port (repeatable)")
    parser.add_argument("--no-shortcut", action="store_true",
                        help="never stop a run early when it reaches a recorded state")
    args = parser.parse_args(argv)
    ports = args.port or list(PORT_METHODS)
    total: dict[tuple[str, str, Fault], Cell] = {}
    failures = 0
    started = time.perf_counter()
    for seed in (int(s) for s in args.seeds.split(",")):
        began = time.perf_counter()
        matrix = run_seed(seed, args.rounds, args.jobs, args.per_site, ports,
                          not args.no_shortcut)
        runs = sum(c.runs for c in matrix.cells.values())
        print(format_matrix(matrix.cells, f"seed {seed}, {args.rounds} round(s): "
                                          f"{matrix.session_calls:,} calls in "
                                          f"{len(matrix.checkpoints)} events, {runs:,} runs, "
                                          f"{time.perf_counter() - began:.1f} s"))
        details = describe_failures(matrix)
        if details:
            print(details)
        print()
        for key, cell in matrix.cells.items():
            merged = total.setdefault(key, Cell())
            merged.runs += cell.runs
            merged.failures += cell.failures
            failures += len(cell.failures)
    print(format_matrix(total, f"all seeds ({args.seeds}), {args.rounds} round(s), "
                               f"{args.jobs} job(s): {time.perf_counter() - started:.1f} s"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
