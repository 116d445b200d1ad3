"""Build ``layers/engine/naiko/data/eval_tables.bin``, the lookup tables of ``naiko.evaluator``.

The tables are derived from first principles by a deliberately slow and obviously correct
five-card categoriser (:func:`classify5`, a direct transcription of rule R1.5); nothing is
copied from another evaluator.  Run it after changing the key constants or the file format::

    PYTHONPATH=layers/engine python scripts/build_eval_tables.py          # rewrite the file
    PYTHONPATH=layers/engine python scripts/build_eval_tables.py --check  # compare only

The output is deterministic.  ``tests/unit/test_evaluator.py`` rebuilds the payload and
compares it with the shipped file, so the tables cannot drift from this script.

How the tables are keyed (see ``docs/evaluator.md``):

* Each rank ``r`` has a key ``RANK_KEYS[r]`` such that the key sums of the rank multisets of
  5, 6 or 7 cards (no rank more than four times) are distinct within each hand size.  The
  evaluator sums ``RANK_KEYS[r] - RANK_BIAS`` per card (the bias keeps the combined 7-card
  key inside CPython's one-digit integers), so the dictionary key of an *n*-card multiset is
  ``sum(RANK_KEYS[r]) - n * RANK_BIAS``.
* Each suit has a key ``SUIT_KEYS[s]``; for 5, 6 and 7 cards the suit-key sum (< 256) tells
  whether some suit holds five or more cards.  ``FLUSH_FLAGS[n][sum]`` is 1 for those sums.
* ``FLUSH_TABLE[mask]`` is the strength of the best flush or straight flush within a 13-bit
  rank mask of one suit (0 when fewer than five bits are set).
"""

from __future__ import annotations

import argparse
import struct
import sys
import zlib
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations, combinations_with_replacement, product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_FILE = ROOT / "layers" / "engine" / "naiko" / "data" / "eval_tables.bin"

MAGIC = b"NKEVAL01"
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SUIT_KEYS = (0, 2, 23, 28)
RANK_BIAS = 599186  # 7 * RANK_BIAS * 256 == 2**30 - 512: every 7-card key is one digit
HAND_SIZES = (5, 6, 7)
HEADER = struct.Struct("<8s13i4ii3I")
"""magic, RANK_KEYS, SUIT_KEYS, RANK_BIAS, entry counts of the 5-, 6- and 7-card tables."""

# Categories, low to high (R1.5); the same numbers as naiko.evaluator.Category.
HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = 5, 6, 7, 8

HandClass = tuple[int, tuple[int, ...]]
"""(category, tie-break ranks): comparing these tuples compares five-card hands."""


def classify5(ranks: Sequence[int], suited: bool) -> HandClass:
    """Categorise five cards given their ranks (0 = deuce .. 12 = ace) and whether all five
    share one suit.  Straight-forward transcription of R1.5.

    The tie-break is the ranks grouped by multiplicity (largest group first) and, within a
    multiplicity, high to low: quads then kicker, trips then pair, high pair, low pair,
    kicker, and so on.  Straights compare only by their top card, the wheel's being the five.
    """
    assert len(ranks) == 5
    counts = Counter(ranks)
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    ordered = tuple(r for _, r in groups)
    distinct = sorted(counts)
    straight_top = None
    if len(distinct) == 5:
        if distinct[4] - distinct[0] == 4:
            straight_top = distinct[4]
        elif distinct == [0, 1, 2, 3, 12]:  # A-2-3-4-5: the ace plays low, five high
            straight_top = 3
    if straight_top is not None and suited:
        return STRAIGHT_FLUSH, (straight_top,)
    if shape == (4, 1):
        return FOUR_OF_A_KIND, ordered
    if shape == (3, 2):
        return FULL_HOUSE, ordered
    if suited:
        return FLUSH, ordered
    if straight_top is not None:
        return STRAIGHT, (straight_top,)
    if shape == (3, 1, 1):
        return THREE_OF_A_KIND, ordered
    if shape == (2, 2, 1):
        return TWO_PAIR, ordered
    if shape == (2, 1, 1, 1):
        return ONE_PAIR, ordered
    return HIGH_CARD, ordered


def rank_multisets(size: int) -> Iterable[tuple[int, ...]]:
    """All multisets of *size* ranks with no rank more than four times (ascending tuples)."""
    for ranks in combinations_with_replacement(range(13), size):
        if max(Counter(ranks).values()) <= 4:
            yield ranks


def hand_classes() -> list[HandClass]:
    """Every distinct five-card value, weakest first (7,462 of them)."""
    classes = {classify5(r, False) for r in rank_multisets(5)}
    classes |= {classify5(r, True) for r in combinations(range(13), 5)}
    ordered = sorted(classes)
    assert len(ordered) == 7462, len(ordered)
    return ordered


def build_tables() -> dict[str, object]:
    """Compute every table (as plain Python objects).  Takes a few seconds."""
    strength = {c: i + 1 for i, c in enumerate(hand_classes())}
    plain5 = {r: strength[classify5(r, False)] for r in rank_multisets(5)}
    suited5 = {r: strength[classify5(r, True)] for r in combinations(range(13), 5)}

    rank_tables: dict[int, dict[int, int]] = {}
    for size in HAND_SIZES:
        table: dict[int, int] = {}
        for ranks in rank_multisets(size):
            key = sum(RANK_KEYS[r] for r in ranks) - size * RANK_BIAS
            assert key not in table, f"rank keys collide for {size} cards"
            # Subsets of a sorted tuple are sorted tuples, i.e. keys of plain5.
            table[key] = max(plain5[sub] for sub in combinations(ranks, 5))
        rank_tables[size] = table

    flush_table = [0] * 8192
    for mask in range(8192):
        ranks = tuple(r for r in range(13) if mask >> r & 1)
        if len(ranks) >= 5:
            flush_table[mask] = max(suited5[sub] for sub in combinations(ranks, 5))

    flush_flags: dict[int, list[int]] = {}
    for size in HAND_SIZES:
        flags: dict[int, int] = {}
        for counts in product(range(size + 1), repeat=4):
            if sum(counts) == size:
                total = sum(k * n for k, n in zip(SUIT_KEYS, counts, strict=True))
                flag = int(max(counts) >= 5)
                assert total < 256 and flags.setdefault(total, flag) == flag, "suit keys"
        flush_flags[size] = [flags.get(i, 0) for i in range(256)]

    return {"rank_tables": rank_tables, "flush_table": flush_table,
            "flush_flags": flush_flags}


def _le(a: array) -> bytes:  # type: ignore[type-arg]
    if sys.byteorder == "big":
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def build_payload() -> bytes:
    """The uncompressed file content: header, then per hand size the sorted dictionary keys
    as ``int32`` deltas and their strengths as ``uint16``, then the flush table (``uint16``
    x 8192), then the flush flags (``uint8`` x 256 per hand size).  Little-endian."""
    tables = build_tables()
    rank_tables: dict[int, dict[int, int]] = tables["rank_tables"]  # type: ignore[assignment]
    flush_table: list[int] = tables["flush_table"]  # type: ignore[assignment]
    flush_flags: dict[int, list[int]] = tables["flush_flags"]  # type: ignore[assignment]
    parts = [HEADER.pack(MAGIC, *RANK_KEYS, *SUIT_KEYS, RANK_BIAS,
                         *(len(rank_tables[n]) for n in HAND_SIZES))]
    for size in HAND_SIZES:
        keys = sorted(rank_tables[size])
        deltas = [b - a for a, b in zip([0, *keys], keys, strict=False)]
        parts.append(_le(array("i", deltas)))
        parts.append(_le(array("H", [rank_tables[size][k] for k in keys])))
    parts.append(_le(array("H", flush_table)))
    for size in HAND_SIZES:
        parts.append(bytes(flush_flags[size]))
    return b"".join(parts)


def build_file_bytes() -> bytes:
    """The file as shipped: the payload, zlib-compressed at level 9."""
    return zlib.compress(build_payload(), 9)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="only compare the shipped file with a fresh build")
    parser.add_argument("--output", type=Path, default=DATA_FILE)
    args = parser.parse_args(argv)
    payload = build_payload()
    if args.check:
        same = (args.output.exists()
                and zlib.decompress(args.output.read_bytes()) == payload)
        print(f"{args.output}: {'up to date' if same else 'STALE'}")
        return 0 if same else 1
    data = zlib.compress(payload, 9)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(data)
    print(f"wrote {args.output} ({len(data):,} bytes, {len(payload):,} uncompressed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
