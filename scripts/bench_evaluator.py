"""Benchmark ``naiko.evaluator`` against treys, eval7, phevaluator and pokerkit.

    PYTHONPATH=layers/engine python scripts/bench_evaluator.py [--quick]

Every library gets the same seeded random deals, converted beforehand into its own card
format (conversion is not timed).  The libraries are timed in interleaved rounds and each
keeps its best round.  Rates are given per second of CPU time of this process (what one
core delivers, even on a busy machine) and, in brackets, per second of wall-clock time;
the ratios (ours / theirs, from CPU time) are the figures to compare.  Also measured: the
cold start (a fresh interpreter importing ``naiko.evaluator`` and evaluating one hand,
minus ``python -c pass``).  Takes about a minute.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import eval7  # type: ignore[import-untyped]
import phevaluator
from phevaluator import _pheval  # the C extension under phevaluator's Python API
from pokerkit import Card as PkCard
from pokerkit import OmahaHoldemHand
from treys import Card as TreysCard  # type: ignore[import-untyped]
from treys import Evaluator as TreysEvaluator

ENGINE = Path(__file__).resolve().parent.parent / "layers" / "engine"
sys.path.insert(0, str(ENGINE))

from naiko.cards import format_card  # noqa: E402
from naiko.evaluator import (  # noqa: E402
    evaluate,
    evaluate7,
    evaluate_many,
    evaluate_omaha,
)

Timed = Callable[[], object]


Rates = dict[str, tuple[float, float]]
"""job name -> (items per CPU second, items per wall-clock second), best round of each."""


def best_rates(jobs: dict[str, tuple[Timed, int]], rounds: int) -> Rates:
    """Run every job *rounds* times, interleaved; return each job's best rates."""
    best_cpu = {name: float("inf") for name in jobs}
    best_wall = {name: float("inf") for name in jobs}
    for _ in range(rounds):
        for name, (job, _count) in jobs.items():
            gc.collect()
            gc.disable()
            wall, cpu = time.perf_counter(), time.process_time()
            job()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            gc.enable()
            best_cpu[name] = min(best_cpu[name], cpu)
            best_wall[name] = min(best_wall[name], wall)
    return {name: (jobs[name][1] / max(best_cpu[name], 1e-9), jobs[name][1] / best_wall[name])
            for name in jobs}


def report(title: str, rates: Rates, ours: str, competitors: list[str], unit: str = "/s") -> None:
    print(title)
    width = max(map(len, rates))
    for name, (cpu, wall) in rates.items():
        ratio = f"  ours/this {rates[ours][0] / cpu:7.2f}x" if name in competitors else ""
        print(f"  {name:<{width}} {cpu:>11,.0f} {unit} ({wall:>11,.0f}){ratio}")
    print()


def holdem(n_hands: int, rounds: int, rng: random.Random) -> dict[str, float]:
    deals = [rng.sample(range(52), 7) for _ in range(n_hands)]
    treys_deck = [TreysCard.new(format_card(c)) for c in range(52)]
    e7_deck = [eval7.Card(format_card(c)) for c in range(52)]
    t_deals = [([treys_deck[c] for c in d[2:]], [treys_deck[c] for c in d[:2]]) for d in deals]
    e7_deals = [[e7_deck[c] for c in d] for d in deals]
    ph_deals = [tuple(d) for d in deals]  # phevaluator uses the same 0..51 card ids

    def ours() -> None:
        f = evaluate
        for d in deals:
            f(d)

    def ours7() -> None:
        f = evaluate7
        for d in deals:
            f(*d)

    def treys() -> None:
        f = TreysEvaluator().evaluate
        for board, hand in t_deals:
            f(board, hand)

    def e7() -> None:
        f = eval7.evaluate
        for d in e7_deals:
            f(d)

    def pheval_api() -> None:
        f = phevaluator.evaluate_cards
        for d in ph_deals:
            f(*d)

    def pheval_c() -> None:
        f = _pheval.evaluate_7cards
        for d in ph_deals:
            f(*d)

    n = len(deals)
    rates = best_rates({
        "naiko evaluate(cards)": (ours, n),
        "naiko evaluate7(*cards)": (ours7, n),
        "treys Evaluator().evaluate(board, hand)": (treys, n),
        "eval7 evaluate(cards)": (e7, n),
        "phevaluator evaluate_cards(*cards)": (pheval_api, n),
        "phevaluator _pheval.evaluate_7cards (C)": (pheval_c, n),
    }, rounds)
    report(f"Hold'em, 7 cards: {n:,} random hands, best of {rounds} interleaved rounds",
           rates, "naiko evaluate(cards)", [k for k in rates if not k.startswith("naiko")])
    return rates


def equity(n_boards: int, rounds: int, rng: random.Random, holdem_rates: Rates) -> None:
    work = []
    for _ in range(n_boards):
        board = rng.sample(range(52), 5)
        rest = [c for c in range(52) if c not in board]
        work.append((board, list(combinations(rest, 2))))
    n = sum(len(holes) for _, holes in work)

    def many() -> None:
        f = evaluate_many
        for board, holes in work:
            f(board, holes)

    name = "naiko evaluate_many(board, holes)"
    rates = best_rates({name: (many, n)}, rounds)
    report(f"Equity path: {n_boards} random 5-card boards x all 1,081 hole pairs "
           f"({n:,} hands), best of {rounds} rounds", rates, name, [], "hands/s")
    cpu = rates[name][0]
    print("  evaluate_many hands/s over the 7-card rates above:")
    for other, (other_cpu, _) in holdem_rates.items():
        print(f"    vs {other:<42} {cpu / other_cpu:7.2f}x")
    print()


def omaha(n_deals: int, n_pokerkit: int, rounds: int, rng: random.Random) -> None:
    deals = [rng.sample(range(52), 9) for _ in range(n_deals)]
    ours_deals = [(d[:4], d[4:]) for d in deals]
    ph_deals = [tuple(d[4:] + d[:4]) for d in deals]  # phevaluator: board first, then hole
    pk_deals = [(tuple(PkCard.parse("".join(format_card(c) for c in d[:4]))),
                 tuple(PkCard.parse("".join(format_card(c) for c in d[4:]))))
                for d in deals[:n_pokerkit]]

    def ours() -> None:
        f = evaluate_omaha
        for hole, board in ours_deals:
            f(hole, board)

    def pheval_api() -> None:
        f = phevaluator.evaluate_omaha_cards
        for d in ph_deals:
            f(*d)

    def pheval_c() -> None:
        f = _pheval.evaluate_omaha_cards
        for d in ph_deals:
            f(*d)

    def pokerkit() -> None:
        f = OmahaHoldemHand.from_game
        for hole, board in pk_deals:
            f(hole, board)

    rates = best_rates({
        "naiko evaluate_omaha(hole, board)": (ours, n_deals),
        "phevaluator evaluate_omaha_cards": (pheval_api, n_deals),
        "phevaluator _pheval.evaluate_omaha_cards (C)": (pheval_c, n_deals),
        f"pokerkit OmahaHoldemHand.from_game ({n_pokerkit} deals)": (pokerkit, n_pokerkit),
    }, rounds)
    report(f"Omaha, 4 hole + 5 board: {n_deals:,} random deals, best of {rounds} rounds",
           rates, "naiko evaluate_omaha(hole, board)",
           [k for k in rates if not k.startswith("naiko")])


def _median_run_ms(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Median wall-clock and median CPU (user + system) milliseconds of running *args*."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(args, env=env, check=True)
        walls.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def cold_start(repeat: int) -> None:
    code = "import naiko.evaluator as e; assert e.evaluate([0, 5, 10, 15, 20, 25, 51]) > 0"
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:  # copies of the package, with and without .pyc
        compiled, source = Path(tmp) / "compiled", Path(tmp) / "source"
        for where in (compiled, source):
            shutil.copytree(ENGINE / "naiko", where / "naiko",
                            ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([py, "-m", "compileall", "-q", str(compiled)], check=True)
        with_pyc = dict(os.environ, PYTHONPATH=str(compiled))
        no_pyc = dict(os.environ, PYTHONPATH=str(source), PYTHONDONTWRITEBYTECODE="1")
        subprocess.run([py, "-c", code], env=with_pyc, check=True)  # warm the OS caches
        runs = [
            ("python -c pass", _median_run_ms([py, "-c", "pass"], with_pyc, repeat)),
            ("import naiko.evaluator + first evaluate()",
             _median_run_ms([py, "-c", code], with_pyc, repeat)),
            ("same, no .pyc for naiko (compiles the source)",
             _median_run_ms([py, "-c", code], no_pyc, repeat)),
        ]
    print(f"Cold start: fresh interpreter, median of {repeat} runs (wall clock; CPU time)")
    (base_wall, base_cpu) = runs[0][1]
    for name, (wall, cpu) in runs:
        extra = "" if name.startswith("python") else (
            f"  -> +{wall - base_wall:5.1f} ms wall, +{cpu - base_cpu:5.1f} ms CPU")
        print(f"  {name:<46} {wall:6.1f} ms; {cpu:6.1f} ms{extra}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer rounds")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    rng = random.Random(20240521)
    started = time.perf_counter()
    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}; seed 20240521\n")
    rates = holdem(200_000 // scale, 5, rng)
    equity(300 // scale, 5, rng, rates)
    omaha(20_000 // scale, 300 // scale, 3, rng)
    cold_start(10)
    print(f"(whole run: {time.perf_counter() - started:.0f} s, load average now "
          f"{os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
