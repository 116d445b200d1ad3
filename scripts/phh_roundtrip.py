"""PHH round trip over many random engine hands (issue 14, R10.1).

Random hands of every variant (NLHE, PLO, NAIKO with powers; 2-10 players, heads-up and
10-handed often; no ante, an ante each or a big-blind ante; short and uneven stacks, so all-ins
and side pots) are exported with ``naiko.phh.from_state``, written, parsed and replayed by our
replayer to the same finishing stacks (Naiko hands: also the same destellos, replayed with their
powers; and the file replayed as plain Hold'em with the extension ignored); so must every
player's and an observer's copy (``for_reader``), which must name no card that reader was not
shown during the hand. Every file, NAIKO ones included (as plain ``NT``), is also replayed by
PokerKit 0.7.7; where its stacks differ or it refuses an action, the hand must touch a rule on
which RULES.md differs from PokerKit on purpose (R2.3 short blind, R2.8 big-blind ante, R3.2
reopening, R4.5 odd chips) and is counted under that rule. The hands and checks are those of
``tests/roundtrip_hands.py``; the CI test runs 80 per variant.

Usage: ``python scripts/phh_roundtrip.py [--hands 5000] [--seed 14] [--no-pokerkit]``.
Prints the counts per variant, PokerKit's outcomes, what the hands covered, the failures (each
with its PHH text; there should be none) and the time; exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in ("layers/engine", "local", "tests"):
    if str(ROOT / folder) not in sys.path:
        sys.path.insert(0, str(ROOT / folder))

import roundtrip_hands  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=5000, help="hands in all (variants cycle)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--no-pokerkit", action="store_true", help="our replayer only")
    args = parser.parse_args(argv)
    pokerkit = not args.no_pokerkit
    if pokerkit:
        try:
            import pokerkit as _  # noqa: F401
        except ImportError:
            print("pokerkit is not installed: our replayer only (--no-pokerkit)")
            pokerkit = False
    started = time.perf_counter()
    tally = roundtrip_hands.run(args.seed, args.hands, pokerkit=pokerkit)
    elapsed = time.perf_counter() - started
    print(f"PHH round trip: {args.hands} random engine hands, seed {args.seed}")
    print("hands per variant (export -> parse -> replay: same stacks; NAIKO: same destellos, "
          "also as Hold'em; every reader's copy: replays, no card not shown):")
    for variant, count in sorted(tally.hands.items()):
        print(f"  {variant:6} {count:6d}")
    if pokerkit:
        print("PokerKit 0.7.7 on the same files:")
        for outcome, count in sorted(tally.pokerkit.items()):
            print(f"  {count:6d}  {outcome}")
    print("covered (hands):")
    for feature, count in sorted(tally.features.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count:6d}  {feature}")
    for failure in tally.failures[:5]:
        print(f"FAILED: {failure}")
    print(f"failures: {len(tally.failures)}")
    print(f"time: {elapsed:.1f} s ({1000 * elapsed / max(1, args.hands):.1f} ms per hand)")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
