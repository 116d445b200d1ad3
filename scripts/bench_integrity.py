#!/usr/bin/env python3
"""Precision and recall of the integrity review (R10.3) on a planted population.

    .venv/bin/python scripts/bench_integrity.py [--hands 20000] [--seed 1] [--save FILE]
    .venv/bin/python scripts/bench_integrity.py --seed 1 --records FILE   # review again

Simulates ``--hands`` hands of 6-max BOT sessions with planted chip dumpers, soft-playing
friends and a multi-accounting ring, plus innocent friends at private tables and lucky streaks
(:mod:`naiko_service.integrity.population`), reviews them (:mod:`naiko_service.integrity.analysis`,
the published thresholds) and prints, per kind of abuse: the planted cases, those flagged
(recall), the flags that are wrong, and the share of innocent pairs flagged; then the innocent
look-alikes' scores and the time per 1,000 hands of simulation and of review. ``--save`` writes
the simulated records as JSON Lines (what ``scripts/integrity_review.py --hands`` reads);
``--records`` reviews such a file again without simulating (the seed plants the same accounts).
Figures: docs/integrity.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
import time
from itertools import chain, combinations, islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "engine"))

from naiko_service.integrity.analysis import Review, Thresholds  # noqa: E402
from naiko_service.integrity.population import Plan, simulate  # noqa: E402
from naiko_service.integrity.sources import from_jsonl  # noqa: E402


def _simulate_part(job: tuple[int, str, int, int, str]) -> None:
    """One process's share of the sessions, written to a JSON Lines file."""
    hands, seed, index, jobs, path = job
    records, _ = simulate(hands, seed=seed, plan=Plan(), part=(index, jobs))
    with open(path, "w") as out:
        for record in records:
            out.write(json.dumps(record.to_document(), separators=(",", ":")) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--save", type=Path, default=None, help="write the records (JSON Lines)")
    parser.add_argument("--records", type=Path, default=None,
                        help="review these records (written by --save with the same --seed) "
                             "instead of simulating")
    parser.add_argument("--jobs", type=int, default=1,
                        help="simulate in this many processes (sessions shared out)")
    args = parser.parse_args(argv)
    thresholds = Thresholds()
    started = time.perf_counter()
    records, truth = simulate(args.hands, seed=args.seed, plan=Plan())
    parts = tempfile.TemporaryDirectory()
    sim_s = review_s = 0.0
    if args.records is not None:  # the same seed plants the same accounts
        records = islice(from_jsonl(args.records), args.hands)
    elif args.jobs > 1:
        paths = [str(Path(parts.name) / f"part{i}.jsonl") for i in range(args.jobs)]
        with multiprocessing.Pool(args.jobs) as pool:
            pool.map(_simulate_part, [(args.hands, args.seed, i, args.jobs, path)
                                      for i, path in enumerate(paths)])
        sim_s = time.perf_counter() - started
        records = chain.from_iterable(from_jsonl(Path(path)) for path in paths)
    review = Review(thresholds)
    out = args.save.open("w") if args.save else None
    clock = time.perf_counter()
    for record in records:
        now = time.perf_counter()
        sim_s += now - clock
        review.add(record)
        if out is not None:
            out.write(json.dumps(record.to_document(), separators=(",", ":")) + "\n")
        clock = time.perf_counter()
        review_s += clock - now
    if out is not None:
        out.close()
    parts.cleanup()
    flags = review.flags()
    t = thresholds
    print(f"{review.hands:,} hands, {len(truth.accounts)} accounts, {len(flags)} flags "
          f"(thresholds: dumping {t.dumping_score} / {t.dumping_min_bb:g} bb, soft play "
          f"{t.soft_score} over >= {t.soft_min_rounds} rounds, ring co-seating "
          f">= {t.ring_coseating}); pairs scored from {t.min_shared_hands} hands together")
    scored_pairs = [p for p, n in review.shared.items() if n >= t.min_shared_hands]
    directed = {(a, b) for a, b in scored_pairs} | {(b, a) for a, b in scored_pairs}

    flagged = {f.accounts for f in flags if f.kind == "dumping"}
    innocent = directed - truth.dumping
    found = truth.dumping & flagged
    wrong = flagged - truth.dumping
    print(f"dumping   planted {len(truth.dumping)}, flagged {len(found)} "
          f"(recall {len(found) / max(1, len(truth.dumping)):.2f}), wrong flags {len(wrong)}, "
          f"innocent directed pairs flagged {len(wrong & innocent)}/{len(innocent)} "
          f"({len(wrong & innocent) / max(1, len(innocent)):.1%})")
    flagged = {f.accounts for f in flags if f.kind == "soft_play"}
    innocent = set(scored_pairs) - truth.soft_play
    found = truth.soft_play & flagged
    wrong = flagged - truth.soft_play
    print(f"soft play planted {len(truth.soft_play)}, flagged {len(found)} "
          f"(recall {len(found) / max(1, len(truth.soft_play)):.2f}), wrong flags {len(wrong)}, "
          f"innocent pairs flagged {len(wrong & innocent)}/{len(innocent)} "
          f"({len(wrong & innocent) / max(1, len(innocent)):.1%})")
    rings = [frozenset(f.accounts) for f in flags if f.kind == "ring"]
    found_rings = [r for r in truth.rings if any(len(r & g) >= 2 for g in rings)]
    wrong_rings = [g for g in rings if not any(len(r & g) >= 2 for r in truth.rings)]
    print(f"ring      planted {len(truth.rings)}, flagged {len(found_rings)} "
          f"(recall {len(found_rings) / max(1, len(truth.rings)):.2f}), wrong groups "
          f"{len(wrong_rings)}")

    dumping = review.dumping_scores()
    soft = review.soft_scores()

    def look(pair: tuple[str, str]) -> str:
        a, b = pair
        worst = max(dumping.get((a, b), 0.0), dumping.get((b, a), 0.0))
        key = (a, b) if a < b else (b, a)
        return (f"{a}/{b}: {review.shared.get(key, 0)} hands together, co-seating "
                f"{review.coseating(a, b):.2f}, dumping {worst:.1f}, soft play "
                f"{soft.get(key, 0.0):.1f}, chips {b} -> {a} "
                f"{review.flow.get((b, a), 0.0) - review.flow.get((a, b), 0.0):+.0f} bb")

    for pair in sorted(truth.innocent_friends):
        print(f"innocent friends  {look(pair)}")
    for pair in sorted(truth.lucky):
        print(f"lucky streak      {look(pair)}")
    for giver, taker in sorted(truth.dumping):
        print(f"planted dumping   {look((taker, giver))}")
    groups = sum(1 for _ in combinations(truth.accounts, 2))
    per = 1000 / max(1, review.hands)
    source = ("reading the records" if args.records is not None
              else f"simulation ({args.jobs} processes, wall)" if args.jobs > 1 else "simulation")
    print(f"time per 1,000 hands: {source} {sim_s * per:.2f} s, review {review_s * per:.2f} s "
          f"({groups:,} possible pairs); seed {args.seed}, wall time "
          f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
