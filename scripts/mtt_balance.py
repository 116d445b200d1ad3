#!/usr/bin/env python3
"""Balancing of scheduled multi-table tournaments (R9.7), measured from their logs alone: a whole
``mtt`` tournament of BOTs per field size (``naiko-tournament simulate --kind mtt``: 9-max turbo,
no late registration, the real service and timers in virtual time), then
:func:`naiko_local.balance_audit.audit` over its log. A measurement, not a test
(``tests/service/test_mtt_properties.py`` asserts the same audit on small fields).

    .venv/bin/python scripts/mtt_balance.py [--players 150 400] [--seed 1] [--check]
        [--log-dir DIR]

Prints, per field: hands, moves (planned and done), the most moves of one player, and how many
hands were dealt at a table two or more players over the shortest table at that moment.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local")]

from naiko.state import Variant  # noqa: E402
from naiko_local.balance_audit import audit  # noqa: E402
from naiko_local.tournament import Simulation, terms_for, write_jsonl  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[150, 400])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true",
                        help="check the ledger identity after every transaction (slower)")
    parser.add_argument("--log-dir", type=Path, default=None,
                        help="also write each log there as JSON Lines (mtt-<players>.jsonl)")
    args = parser.parse_args(argv)
    for players in args.players:
        started = time.perf_counter()
        terms = terms_for("mtt", Variant.NLHE, 10, players)
        simulation = Simulation(terms, players, args.seed, check=args.check)
        log = simulation.run()
        if args.log_dir is not None:
            args.log_dir.mkdir(parents=True, exist_ok=True)
            write_jsonl(log, args.log_dir / f"mtt-{players}.jsonl")
        found = audit(log, terms.seat_count)
        hands = sum(1 for entry in log if entry["type"] == "hand")
        busiest = found.moves.most_common(1)
        print(f"{players} players, seed {args.seed}: {hands} hands "
              f"({found.hands} dealt with two tables or more); "
              f"{sum(found.moves.values())} moves ({found.planned} planned, "
              f"{found.unplanned} not planned first); most moves of one player "
              f"{found.max_moves}" + (f" ({busiest[0][0]})" if busiest else "") +
              f"; hands dealt two or more over the shortest table {found.over}; "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        for example in found.over_examples:
            print(f"  over: {example}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
