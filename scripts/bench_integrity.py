#!/usr/bin/env python3
"""Precision and recall of the integrity review (R10.3) on a planted population.

    .venv/bin/python scripts/bench_integrity.py [--hands 20000] [--seed 1] [--jobs 2] [--save FILE]
    .venv/bin/python scripts/bench_integrity.py --seed 1 --records FILE [--jobs 2]  # again
    .venv/bin/python scripts/bench_integrity.py --seed 1 --facts FACTS  # scored again

Simulates ``--hands`` hands of 6-max BOT sessions with planted chip dumpers, soft-playing
friends and a multi-accounting ring, plus innocent friends at private tables and lucky streaks
(:mod:`naiko_service.integrity.population`), reviews them (:mod:`naiko_service.integrity.analysis`,
the published thresholds) and prints, per kind of abuse: the planted cases, those flagged
(recall), the flags that are wrong, and the share of innocent pairs flagged (for dumping also
at other thresholds); then the innocent look-alikes' scores and the time per 1,000 hands of
simulating and replaying the hands (``--jobs`` processes share the sessions out) and of
scoring. ``--save`` writes
the simulated records as JSON Lines (what ``scripts/integrity_review.py --hands`` reads);
``--records`` reviews such a file again without simulating (the seed plants the same accounts).
``--save-facts`` writes the replayed hands' facts (a pickle: what the replay found, before any
score) and ``--facts`` scores such a file again without simulating or replaying (seconds,
where the replay takes minutes: how a change of the scoring alone is measured on the same
hands).
Figures: docs/integrity.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import pickle
import sys
import tempfile
import time
from dataclasses import replace
from itertools import combinations, islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "engine"))

from naiko_service.integrity.analysis import (  # noqa: E402
    Equities,
    HandFacts,
    Review,
    Thresholds,
    hand_facts,
)
from naiko_service.integrity.population import Plan, Truth, simulate  # noqa: E402
from naiko_service.integrity.sources import from_jsonl  # noqa: E402

DUMPING_CURVE = (1.5, 2.0, 3.0, 4.0)
"""Dumping thresholds also measured, besides the published one."""


def _part(job: tuple[int, str, int, int, str | None, str | None]) -> list[HandFacts]:
    """One process's share: its sessions simulated (or its share of a file's records, every
    *jobs*-th line), each hand's facts (the review's costly part), the records written to
    *path* when given."""
    hands, seed, index, jobs, source, path = job
    if source is None:
        records, _ = simulate(hands, seed=seed, plan=Plan(), part=(index, jobs))
    else:
        records = islice(from_jsonl(Path(source)), index, hands, jobs)
    facts = []
    equity = Equities()
    out = open(path, "w") if path else None  # noqa: SIM115
    for record in records:
        found = hand_facts(record, Thresholds(), equity)
        if found is not None:
            facts.append(found)
        if out is not None:
            out.write(json.dumps(record.to_document(), separators=(",", ":")) + "\n")
    if out is not None:
        out.close()
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--save", type=Path, default=None, help="write the records (JSON Lines)")
    parser.add_argument("--records", type=Path, default=None,
                        help="review these records (written by --save with the same --seed) "
                             "instead of simulating")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes that simulate and replay hands (sessions shared out)")
    parser.add_argument("--save-facts", type=Path, default=None,
                        help="write the replayed hands' facts (a pickle) for --facts")
    parser.add_argument("--facts", type=Path, default=None,
                        help="score these facts (written by --save-facts with the same --hands "
                             "and --seed) instead of simulating and replaying")
    args = parser.parse_args(argv)
    thresholds = Thresholds()
    started = time.perf_counter()
    _, truth = simulate(args.hands, seed=args.seed, plan=Plan())  # who was planted as what
    source = str(args.records) if args.records is not None else None
    if args.facts is not None:
        with args.facts.open("rb") as saved:
            kept = pickle.load(saved)  # noqa: S301 (a file this script wrote)
        if (kept["hands"], str(kept["seed"])) != (args.hands, str(args.seed)):
            parser.error(f"{args.facts} holds the facts of --hands {kept['hands']} "
                         f"--seed {kept['seed']}")
        return report(args, thresholds, truth, [kept["facts"]], time.perf_counter() - started,
                      "reading the facts", started)
    with tempfile.TemporaryDirectory() as parts:
        paths = [str(Path(parts) / f"part{i}.jsonl") if args.save and source is None else None
                 for i in range(args.jobs)]
        jobs = [(args.hands, args.seed, i, args.jobs, source, paths[i])
                for i in range(args.jobs)]
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                shares = pool.map(_part, jobs)
        else:
            shares = [_part(jobs[0])]
        if args.save and source is None:
            with args.save.open("w") as out:
                for path in paths:
                    assert path is not None
                    out.write(Path(path).read_text())
    played_s = time.perf_counter() - started
    if args.save_facts is not None:
        with args.save_facts.open("wb") as out_facts:
            pickle.dump({"hands": args.hands, "seed": str(args.seed),
                         "facts": [f for share in shares for f in share]}, out_facts)
    source_name = "reading and replaying the records" if source is not None \
        else "simulating and replaying"
    return report(args, thresholds, truth, shares, played_s, source_name, started)


def report(args: argparse.Namespace, thresholds: Thresholds, truth: Truth,
           shares: list[list[HandFacts]], played_s: float, source_name: str,
           started: float) -> int:
    """Score the facts and print the figures."""
    review = Review(thresholds)
    for share in shares:
        for facts in share:
            review.add_facts(facts)
    review_s = time.perf_counter() - started - played_s
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
    curve = []
    for score in DUMPING_CURVE:  # the same review at other dumping thresholds
        review.t = replace(thresholds, dumping_score=score)
        at = {f.accounts for f in review.flags() if f.kind == "dumping"}
        recall = len(at & truth.dumping) / max(1, len(truth.dumping))
        innocent_share = len(at & innocent) / max(1, len(innocent))
        curve.append(f"{score:g}: recall {recall:.2f}, innocent {len(at & innocent)} "
                     f"({innocent_share:.1%})")
    review.t = thresholds
    print(f"          at other dumping thresholds: {'; '.join(curve)}")
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
    print(f"time per 1,000 hands: {source_name} {played_s * per:.2f} s ({args.jobs} "
          f"process{'es' if args.jobs > 1 else ''}, wall), scoring {review_s * per:.2f} s "
          f"({groups:,} possible pairs); seed {args.seed}, wall time "
          f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
