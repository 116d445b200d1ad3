#!/usr/bin/env python3
"""The tournament property test at full size: many random Sit & Gos and Spins (2-10 seats,
every variant, random blind structures and stacks) played to the end by BOTs through the real
service and timers in virtual time, the ledger identity checked after every transaction, and
the same checks as ``tests/service/test_tournament_properties.py`` on each.

    .venv/bin/python scripts/tournament_runs.py [--runs 200] [--seed 1]

Prints one line per 10 runs and a summary (hands, virtual minutes and wall time per run).
Exits 1 at the first run that breaks a check, with its seed and terms.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "tests"),
                str(ROOT / "tests" / "service")]

from naiko.state import AnteMode, Variant  # noqa: E402
from naiko.tournaments.prizes import SPIN_TABLE, PayoutRule  # noqa: E402
from naiko.tournaments.structures import (  # noqa: E402
    BlindLevel,
    BlindStructure,
    TournamentKind,
    TournamentTerms,
)
from naiko_local.tournament import Simulation  # noqa: E402
from test_tournament_properties import check_finished  # noqa: E402


def random_terms(rng: random.Random) -> tuple[TournamentTerms, int]:
    """As the property test draws them: 1-6 levels of 1-3 minutes, rising blinds, antes (each
    or big-blind) from some level, a stack of 1-60 first big blinds."""
    kind = rng.choice([TournamentKind.SIT_AND_GO, TournamentKind.SPIN])
    count = rng.randint(1, 6)
    ante_from = rng.randint(1, count + 1)
    mode = rng.choice([AnteMode.EACH, AnteMode.BIG_BLIND])
    big_blind = rng.randint(1, 25) * 2
    levels = []
    for number in range(1, count + 1):
        if number > 1:
            big_blind += 2 * rng.randint(1, max(1, big_blind // 2))
        ante = 0
        if number >= ante_from:
            ante = max(1, big_blind // 10) if mode is AnteMode.EACH else big_blind
        levels.append(BlindLevel(number, big_blind // 2, big_blind, ante,
                                 mode if ante else AnteMode.NONE, rng.randint(1, 3)))
    structure = BlindStructure(tuple(levels))
    seats = 3 if kind is TournamentKind.SPIN else rng.randint(2, 10)
    terms = TournamentTerms(
        kind=kind, variant=rng.choice(list(Variant)), seat_count=seats,
        entry=rng.randint(1, 500), starting_stack=levels[0].big_blind * rng.randint(1, 60),
        structure=structure, decision_ms=rng.randint(5, 120) * 1000, bots_allowed=True,
        min_players=seats, max_players=seats,
        payout=PayoutRule.SPIN if kind is TournamentKind.SPIN else PayoutRule.SIT_AND_GO,
        spin_table=SPIN_TABLE if kind is TournamentKind.SPIN else None)
    return terms, seats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    hands = minutes = 0.0
    started = time.perf_counter()
    for run in range(1, args.runs + 1):
        terms, players = random_terms(rng)
        seed = rng.randrange(2**32)
        simulation = Simulation(terms, players, seed, check=True)
        try:
            log = simulation.run()
            check_finished(simulation, log, players)
        except Exception:
            print(f"run {run} FAILED: seed {seed}, {players} players, terms {terms}",
                  file=sys.stderr)
            raise
        hands += sum(1 for entry in log if entry["type"] == "hand")
        minutes += (log[-1]["at_ms"] - log[0]["at_ms"]) / 60_000
        if run % 10 == 0:
            print(f"{run} runs: every check held", flush=True)
    wall = time.perf_counter() - started
    print(f"{args.runs} random Sit & Gos and Spins: every check held; per run "
          f"{hands / args.runs:.1f} hands, {minutes / args.runs:.1f} virtual minutes, "
          f"{wall / args.runs:.2f} s of wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
