"""Build ``layers/engine/naiko/data/eval_tables.bin``, the lookup tables of ``naiko.evaluator``.

The tables are derived from first principles by a deliberately slow and obviously correct
five-card categoriser (:func:`classify5`, a direct transcription of rule R1.5); nothing is
copied from another evaluator.  Run it after changing the key constants or the file format::

    PYTHONPATH=layers/engine python scripts/build_eval_tables.py          # rewrite the file
    PYTHONPATH=layers/engine python scripts/build_eval_tables.py --check  # compare only

The output is deterministic.  ``tests/unit/test_evaluator.py`` rebuilds the sections and
compares them with the shipped file, so the tables cannot drift from this script.

File format (little-endian): ``HEADER`` (magic, the key constants, the number of sections),
then per section a ``SECTION`` entry (name, uncompressed size, compressed size), then the
sections' zlib streams in the same order.  Each section is compressed on its own so that the
evaluator inflates only the tables a process uses, when it first needs them:

* ``rank5`` / ``rank6`` / ``rank7``: the *n*-card rank table, its sorted keys as ``int32``
  deltas (the first from 0), then the matching strengths as ``uint16``;
* ``flush``: ``FLUSH_TABLE`` (``uint16`` x 8192), then the flush flags for 5, 6 and 7 cards
  (``uint8`` x 256 each);
* ``omaha3`` / ``omaha4``: ``OMAHA3`` (``uint16`` x 91 x 455) and ``OMAHA4`` (``uint16`` x
  91 x 1820), row by row.

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
* ``OMAHA3[pair][triple]`` is the non-flush strength of two hole ranks (``PAIRS`` order) with
  three board ranks (``TRIPLES`` order); 0 for the impossible five-of-a-kind.
  ``OMAHA4[pair][quad]`` is the best of those over the four triples within four board ranks
  (``QUADS`` order).  A five-card board's ten triples all lie within the four four-card
  sub-boards that share one given card, so an Omaha river needs 6 x 4 lookups, not 6 x 10.
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
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
DATA_FILE = ROOT / "layers" / "engine" / "naiko" / "data" / "eval_tables.bin"

MAGIC = b"NKEVAL01"
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SUIT_KEYS = (0, 2, 23, 28)
RANK_BIAS = 599186  # 7 * RANK_BIAS * 256 == 2**30 - 512: every 7-card key is one digit
HAND_SIZES = (5, 6, 7)
PAIRS = tuple(combinations_with_replacement(range(13), 2))  # 91 rank pairs, ascending
TRIPLES = tuple(combinations_with_replacement(range(13), 3))  # 455 rank triples, ascending
QUADS = tuple(combinations_with_replacement(range(13), 4))  # 1820 rank quadruples, ascending
HEADER = struct.Struct("<8s13i4iiI")
"""magic, RANK_KEYS, SUIT_KEYS, RANK_BIAS, number of sections."""
SECTION = struct.Struct("<8sII")
"""section name (ASCII, NUL-padded), uncompressed size, compressed size."""

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


class Tables(NamedTuple):
    rank_tables: dict[int, dict[int, int]]
    """hand size -> {sum of (RANK_KEYS[r] - RANK_BIAS) over the ranks: best strength}"""
    flush_table: list[int]
    """13-bit rank mask of one suit -> best flush / straight flush strength (or 0)"""
    flush_flags: dict[int, list[int]]
    """hand size -> 256 flags: does this suit-key sum mean five or more cards of a suit?"""
    omaha3: list[list[int]]
    """PAIRS index -> TRIPLES index -> non-flush strength of the five ranks (or 0)"""
    omaha4: list[list[int]]
    """PAIRS index -> QUADS index -> best OMAHA3 value over the quad's four triples"""


def build_tables() -> Tables:
    """Compute every table as plain Python objects (about a second)."""
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

    omaha3 = [[plain5.get(tuple(sorted(pair + triple)), 0) for triple in TRIPLES]
              for pair in PAIRS]
    triple_index = {triple: i for i, triple in enumerate(TRIPLES)}
    omaha4 = [[max(row[triple_index[triple]] for triple in combinations(quad, 3))
               for quad in QUADS] for row in omaha3]

    return Tables(rank_tables, flush_table, flush_flags, omaha3, omaha4)


def _le(a: array[int]) -> bytes:
    if sys.byteorder == "big":
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def build_sections() -> dict[str, bytes]:
    """The uncompressed content of every section of the file, in file order."""
    rank_tables, flush_table, flush_flags, omaha3, omaha4 = build_tables()
    sections = {}
    for size in HAND_SIZES:
        keys = sorted(rank_tables[size])
        deltas = [b - a for a, b in zip([0, *keys], keys, strict=False)]
        sections[f"rank{size}"] = (_le(array("i", deltas))
                                   + _le(array("H", [rank_tables[size][k] for k in keys])))
    sections["flush"] = (_le(array("H", flush_table))
                         + b"".join(bytes(flush_flags[size]) for size in HAND_SIZES))
    sections["omaha3"] = _le(array("H", [v for row in omaha3 for v in row]))
    sections["omaha4"] = _le(array("H", [v for row in omaha4 for v in row]))
    return sections


def build_file_bytes() -> bytes:
    """The file as shipped."""
    sections = build_sections()
    streams = {name: zlib.compress(raw, 9) for name, raw in sections.items()}
    parts = [HEADER.pack(MAGIC, *RANK_KEYS, *SUIT_KEYS, RANK_BIAS, len(sections))]
    parts += [SECTION.pack(name.encode("ascii"), len(sections[name]), len(stream))
              for name, stream in streams.items()]
    parts += streams.values()
    return b"".join(parts)


def parse_file(data: bytes) -> tuple[tuple[int, ...], dict[str, bytes]]:
    """The key constants and the uncompressed sections of a file's content.

    Compare these rather than the raw bytes: another zlib build may compress differently.
    """
    magic, *fields = HEADER.unpack_from(data)
    assert magic == MAGIC, magic
    *constants, count = fields
    pos = HEADER.size + count * SECTION.size
    sections = {}
    for i in range(count):
        name, size, length = SECTION.unpack_from(data, HEADER.size + i * SECTION.size)
        raw = zlib.decompress(data[pos:pos + length])
        assert len(raw) == size
        sections[name.rstrip(b"\0").decode("ascii")] = raw
        pos += length
    assert pos == len(data)
    return tuple(constants), sections


def is_up_to_date(path: Path = DATA_FILE) -> bool:
    """Does the file at *path* hold exactly what this script builds?"""
    expected = ((*RANK_KEYS, *SUIT_KEYS, RANK_BIAS), build_sections())
    return path.exists() and parse_file(path.read_bytes()) == expected


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="only compare the shipped file with a fresh build")
    parser.add_argument("--output", type=Path, default=DATA_FILE)
    args = parser.parse_args(argv)
    if args.check:
        same = is_up_to_date(args.output)
        print(f"{args.output}: {'up to date' if same else 'STALE'}")
        return 0 if same else 1
    data = build_file_bytes()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(data)
    size = sum(len(raw) for raw in parse_file(data)[1].values())
    print(f"wrote {args.output} ({len(data):,} bytes, {size:,} uncompressed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
