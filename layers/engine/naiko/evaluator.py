""":mod:`naiko.evaluator` ranks poker hands (R1.2 Hold'em, R1.3 Omaha, R1.5 ranking).

A hand's value is a :data:`Strength`: an ``int`` from 1 (7-5-4-3-2 offsuit) to 7462 (a royal
flush).  Higher is better, equal strengths split, and every one of the 7,462 distinct
five-card values has its own number.

>>> from naiko.cards import parse_cards
>>> a = evaluate(parse_cards("AhKh QhJhTh 2c 3d"))
>>> b = evaluate(parse_cards("AsAd AcAh Kd 2c 3d"))
>>> a > b, describe(a), describe(b)
(True, 'royal flush', 'four of a kind, Aces')

Fast paths (no validation -- cards must be distinct ints 0..51): :func:`evaluate` (and the
positional :func:`evaluate5`, :func:`evaluate6`, :func:`evaluate7`), :func:`evaluate_omaha`
and :func:`evaluate_many` (many Hold'em hands against one board, for equity).  Showdown path
(validated, slow): :func:`best_hand` returns a :class:`HandValue` with the five cards used
and an English description.

How it works (details in ``docs/evaluator.md``): each card has an integer key; a hand's key
is the sum of its cards' keys.  The bits above the low 8 sum per-rank keys chosen so that
every multiset of 5, 6 or 7 ranks has its own sum, and a dictionary maps that sum to the
best non-flush strength.  The low 8 bits sum per-suit keys chosen so that a 256-entry flag
list tells whether some suit has five or more cards; only then (about 3% of 7-card hands)
is the suit's 13-bit rank mask looked up in the flush table.  With seven cards or fewer a
flush excludes quads and full houses, so the flush value is then the answer.  All keys stay
below 2**30, so CPython adds them as one-digit integers.  The tables are built by
``scripts/build_eval_tables.py`` and read from ``data/eval_tables.bin``, each one inflated
the first time it is needed.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from _thread import allocate_lock
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import accumulate, chain, combinations, combinations_with_replacement
from math import comb
from operator import itemgetter
from typing import Literal, TypeAlias

from naiko.cards import RANK_NAMES, RANK_PLURALS, Card

__all__ = [
    "Category",
    "HandValue",
    "Strength",
    "best_hand",
    "category_of",
    "describe",
    "evaluate",
    "evaluate5",
    "evaluate6",
    "evaluate7",
    "evaluate_many",
    "evaluate_omaha",
    "MAX_STRENGTH",
]

Strength: TypeAlias = int
"""A hand's value, 1..7462, higher is better; equal strengths split the pot (R1.5)."""

MAX_STRENGTH: Strength = 7462
"""The strength of a royal flush (and the number of distinct five-card values)."""


class Category(IntEnum):
    """The nine hand categories of R1.5, weakest first."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


# Distinct values per category, weakest first: 1,277 high-card hands .. 10 straight flushes.
_CATEGORY_SIZES = (1277, 2860, 858, 858, 10, 1277, 156, 156, 10)
_CATEGORY_TOP = tuple(accumulate(_CATEGORY_SIZES))  # highest strength of each category
_CATEGORY_BASE = (0, *_CATEGORY_TOP[:-1])  # strength just below each category
_CATEGORIES = tuple(Category)

# --- keys (must match scripts/build_eval_tables.py; the data file header is checked) -------
_MAGIC = b"NKEVAL01"
_RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
_SUIT_KEYS = (0, 2, 23, 28)
_RANK_BIAS = 599186
_HEADER = struct.Struct("<8s13i4iiI")  # magic, keys, bias, number of sections
_SECTION = struct.Struct("<8sII")  # name, uncompressed size, compressed size
_DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "eval_tables.bin")

_RANK_OF: list[int] = [c >> 2 for c in range(52)]
_BIT: list[int] = [1 << (c >> 2) for c in range(52)]  # the card's bit in a 13-bit rank mask
_RANK_PART: list[int] = [_RANK_KEYS[c >> 2] - _RANK_BIAS for c in range(52)]
_KEY: list[int] = [(_RANK_PART[c] << 8) + _SUIT_KEYS[c & 3] for c in range(52)]
_KEY2: list[list[int]] = [[_KEY[a] + _KEY[b] for b in range(52)] for a in range(52)]  # pairs
_NIBBLE: list[int] = [1 << ((c & 3) << 2) for c in range(52)]  # per-suit counters in nibbles
_RANK_PART13: list[int] = [k - _RANK_BIAS for k in _RANK_KEYS]


# --- the data file ------------------------------------------------------------------------------
# Each table is a separately compressed section of the file (see scripts/build_eval_tables.py),
# inflated the first time it is needed: the flush table at import, the rank table of n cards at
# the first n-card evaluation, the Omaha table at the first Omaha evaluation.

def _read_sections(path: str) -> dict[str, tuple[int, bytes]]:
    """Section name -> (uncompressed size, zlib stream) of the data file at *path*."""
    with open(path, "rb") as fh:
        data = fh.read()
    magic, *fields = _HEADER.unpack_from(data)
    if magic != _MAGIC or tuple(fields[:-1]) != (*_RANK_KEYS, *_SUIT_KEYS, _RANK_BIAS):
        raise RuntimeError(f"{path} does not match naiko.evaluator; "
                           "run scripts/build_eval_tables.py")
    sections = {}
    pos = _HEADER.size + fields[-1] * _SECTION.size
    for i in range(fields[-1]):
        name, size, length = _SECTION.unpack_from(data, _HEADER.size + i * _SECTION.size)
        sections[name.rstrip(b"\0").decode("ascii")] = (size, data[pos:pos + length])
        pos += length
    if pos != len(data):
        raise RuntimeError(f"{path} is corrupt")
    return sections


def _section(name: str, *typecodes_and_counts: tuple[Literal["i", "H", "B"], int]
             ) -> list[list[int]]:
    """Inflate section *name* into lists of little-endian numbers of the given struct type
    codes and lengths (-1: the rest of the section)."""
    size, stream = _SECTIONS[name]
    raw = zlib.decompress(stream)
    if len(raw) != size:  # pragma: no cover - a damaged file
        raise RuntimeError(f"{_DATA_FILE}: section {name} is corrupt")
    lists = []
    pos = 0
    for typecode, count in typecodes_and_counts:
        itemsize = struct.calcsize(typecode)
        end = len(raw) if count < 0 else pos + itemsize * count
        if sys.byteorder == "little":
            lists.append(memoryview(raw)[pos:end].cast(typecode).tolist())
        else:  # pragma: no cover
            lists.append(list(struct.unpack(f"<{(end - pos) // itemsize}{typecode}",
                                            raw[pos:end])))
        pos = end
    return lists


_SECTIONS = _read_sections(_DATA_FILE)
_LOCK = allocate_lock()

_flush_table, _flags = _section("flush", ("H", 8192), ("B", -1))
_FLUSH_TABLE: list[int] = _flush_table  # 13-bit rank mask of one suit -> best flush
_FLUSH5: list[int] = _flags[0:256]  # suit-key sum of 5 cards -> 1 if a flush
_FLUSH6: list[int] = _flags[256:512]
_FLUSH7: list[int] = _flags[512:768]
_FLUSH_FLAGS = {5: _FLUSH5, 6: _FLUSH6, 7: _FLUSH7}
del _flush_table, _flags

# Hand size -> {rank-key sum: best non-flush strength}; empty until first needed.  A table is
# built completely before it is published (rebinding the global), so other threads see either
# the empty placeholder (and come here) or the whole table.
_RANK5: dict[int, int] = {}
_RANK6: dict[int, int] = {}
_RANK7: dict[int, int] = {}
_RANK_TABLES = {5: _RANK5, 6: _RANK6, 7: _RANK7}


def _rank_table(size: int) -> dict[int, int]:
    """The rank table for *size* cards, loaded on first use."""
    global _RANK5, _RANK6, _RANK7
    table = _RANK_TABLES[size]
    if table:
        return table
    with _LOCK:
        table = _RANK_TABLES[size]
        if not table:
            deltas, values = _section(f"rank{size}", ("i", _SECTIONS[f"rank{size}"][0] // 6),
                                      ("H", -1))
            table = dict(zip(accumulate(deltas), values, strict=True))
            _RANK_TABLES[size] = table
            if size == 5:
                _RANK5 = table
            elif size == 6:
                _RANK6 = table
            else:
                _RANK7 = table
    return table


def _rank_miss(size: int, key: int) -> Strength:
    """A key missed its rank table: load the table, or reject impossible cards."""
    try:
        return _rank_table(size)[key]
    except KeyError:
        raise ValueError("not a hand of distinct cards 0..51") from None


# Omaha: _OMAHA3[h1][h2] is the row of the hole cards' rank pair in the "omaha3" table,
# indexed by a board triple's index _TRIPLE_INDEX[sum of _BOARD_KEY over the three cards];
# likewise _OMAHA4 and _QUAD_INDEX for four board cards.  _BOARD_KEYS give distinct sums to
# all multisets of four ranks, hence also to all multisets of three.
_BOARD_KEYS = (0, 1, 5, 21, 55, 153, 368, 856, 1424, 2603, 4967, 8194, 13663)
_BOARD_KEY: list[int] = [_BOARD_KEYS[c >> 2] for c in range(52)]
_TRIPLE_INDEX: list[int] = []
_QUAD_INDEX: list[int] = []
_OMAHA3: list[list[Sequence[int]]] = []
_OMAHA4: list[list[Sequence[int]]] = []


def _load_omaha() -> list[list[Sequence[int]]]:
    """Load the Omaha tables on first use; return _OMAHA4.

    The rows are slices of a ``uint16`` memoryview over the inflated section: no Python int
    per entry to create at load time, and two bytes per entry (cache-friendly) at look-up."""
    global _OMAHA3, _OMAHA4, _TRIPLE_INDEX, _QUAD_INDEX
    with _LOCK:
        if not _OMAHA4:
            ranks = range(13)
            keys = _BOARD_KEYS
            triple_index = [0] * (3 * keys[12] + 1)
            for i, (a, b, c) in enumerate(combinations_with_replacement(ranks, 3)):
                triple_index[keys[a] + keys[b] + keys[c]] = i
            quad_index = [0] * (4 * keys[12] + 1)
            for i, (a, b, c, d) in enumerate(combinations_with_replacement(ranks, 4)):
                quad_index[keys[a] + keys[b] + keys[c] + keys[d]] = i
            pairs = list(combinations_with_replacement(ranks, 2))
            tables: list[list[list[Sequence[int]]]] = []
            for name, width in (("omaha3", 455), ("omaha4", 1820)):
                flat: Sequence[int]
                if sys.byteorder == "little":
                    flat = memoryview(zlib.decompress(_SECTIONS[name][1])).cast("H")
                else:  # pragma: no cover
                    (flat,) = _section(name, ("H", -1))
                if len(flat) != 91 * width:  # pragma: no cover - a damaged file
                    raise RuntimeError(f"{_DATA_FILE}: section {name} is corrupt")
                by_pair: dict[tuple[int, int], Sequence[int]] = {
                    pair: flat[width * i:width * (i + 1)] for i, pair in enumerate(pairs)}
                by_ranks = [[by_pair[min(x, y), max(x, y)] for y in _RANK_OF] for x in ranks]
                tables.append([by_ranks[x] for x in _RANK_OF])
            _TRIPLE_INDEX, _QUAD_INDEX = triple_index, quad_index
            _OMAHA3 = tables[0]
            _OMAHA4 = tables[1]  # published last: evaluate_omaha tests this one
    return _OMAHA4


# --- fast paths ---------------------------------------------------------------------------------

def _flush_strength(cards: Sequence[Card]) -> Strength:
    """The best flush of 5..7 cards known to hold one (the flush table gives 0 to <5 bits)."""
    masks = [0, 0, 0, 0]
    for c in cards:
        masks[c & 3] |= _BIT[c]
    t = _FLUSH_TABLE
    return max(t[masks[0]], t[masks[1]], t[masks[2]], t[masks[3]])


def evaluate7(c1: Card, c2: Card, c3: Card, c4: Card, c5: Card, c6: Card, c7: Card) -> Strength:
    """The strength of the best five of seven distinct cards (positional form of
    :func:`evaluate`).

    >>> from naiko.cards import parse_cards
    >>> describe(evaluate7(*parse_cards("9c 9d 9h 4s 4c 2d Ks")))
    'full house, Nines full of Fours'
    """
    k = _KEY2[c1][c2] + _KEY2[c3][c4] + _KEY2[c5][c6] + _KEY[c7]
    if _FLUSH7[k & 255]:
        return _flush_strength((c1, c2, c3, c4, c5, c6, c7))
    try:
        return _RANK7[k >> 8]
    except KeyError:
        return _rank_miss(7, k >> 8)


def evaluate6(c1: Card, c2: Card, c3: Card, c4: Card, c5: Card, c6: Card) -> Strength:
    """The strength of the best five of six distinct cards.

    >>> from naiko.cards import parse_cards
    >>> describe(evaluate6(*parse_cards("Ah 2h 3h 4h 5d 6h")))
    'flush, Ace high'
    """
    k = _KEY2[c1][c2] + _KEY2[c3][c4] + _KEY2[c5][c6]
    if _FLUSH6[k & 255]:
        return _flush_strength((c1, c2, c3, c4, c5, c6))
    try:
        return _RANK6[k >> 8]
    except KeyError:
        return _rank_miss(6, k >> 8)


def evaluate5(c1: Card, c2: Card, c3: Card, c4: Card, c5: Card) -> Strength:
    """The strength of five distinct cards.

    >>> from naiko.cards import parse_cards
    >>> describe(evaluate5(*parse_cards("Ah 2d 3c 4s 5h")))
    'straight, Five high'
    """
    k = _KEY2[c1][c2] + _KEY2[c3][c4] + _KEY[c5]
    if _FLUSH5[k & 255]:
        return _FLUSH_TABLE[_BIT[c1] | _BIT[c2] | _BIT[c3] | _BIT[c4] | _BIT[c5]]
    try:
        return _RANK5[k >> 8]
    except KeyError:
        return _rank_miss(5, k >> 8)


def _evaluate_short(cards: Sequence[Card]) -> Strength:
    n = len(cards)
    if n == 5:
        return evaluate5(*cards)
    if n == 6:
        return evaluate6(*cards)
    raise ValueError(f"a hand has 5, 6 or 7 cards, not {n}")


def evaluate(cards: Sequence[Card]) -> Strength:
    """The strength of the best five-card hand within 5, 6 or 7 distinct cards (R1.2).

    This is the hot path: it does not validate the cards (use :func:`best_hand` for that).

    >>> from naiko.cards import parse_cards
    >>> evaluate(parse_cards("As Ks Qs Js Ts 2c 3d"))
    7462
    >>> evaluate(parse_cards("7c 5d 4h 3s 2c"))
    1
    >>> describe(evaluate(parse_cards("Qh Kd Ac 2s 3h 8d 9c")))  # no wrap-around
    'high card, Ace'
    """
    try:
        a, b, c, d, e, f, g = cards
    except ValueError:
        return _evaluate_short(cards)
    k = _KEY2[a][b] + _KEY2[c][d] + _KEY2[e][f] + _KEY[g]
    if _FLUSH7[k & 255]:
        return _flush_strength(cards)
    try:
        return _RANK7[k >> 8]
    except KeyError:
        return _rank_miss(7, k >> 8)


def evaluate_omaha(hole: Sequence[Card], board: Sequence[Card]) -> Strength:
    """The strength of the best Omaha hand: exactly two of the four *hole* cards and exactly
    three of the 3..5 *board* cards (R1.3).  No validation.

    >>> from naiko.cards import parse_cards
    >>> board = parse_cards("Ah Kh Qh Jh 2c")
    >>> describe(evaluate_omaha(parse_cards("Th 9c 4d 5s"), board))  # one heart in hand
    'straight, King high'
    >>> describe(evaluate_omaha(parse_cards("As Ad Kc Kd"), parse_cards("Ac Ks 7d 7h 2c")))
    'full house, Aces full of Sevens'
    """
    h0, h1, h2, h3 = hole
    quad_rows = _OMAHA4 or _load_omaha()
    bk = _BOARD_KEY
    nib = _NIBBLE
    n = len(board)
    if n == 5:
        v, w, x, y, z = board
        suits = nib[v] + nib[w] + nib[x] + nib[y] + nib[z]
        v, w, x, y, z = bk[v], bk[w], bk[x], bk[y], bk[z]
        total = v + w + x + y + z
        qi = _QUAD_INDEX
        # The four 4-card sub-boards holding v contain all ten triples of the board.
        get = itemgetter(qi[total - z], qi[total - y], qi[total - x], qi[total - w])
        r0 = quad_rows[h0]
        r1 = quad_rows[h1]
        r2 = quad_rows[h2]
        best: int = max(chain.from_iterable(map(get, (
            r0[h1], r0[h2], r0[h3], r1[h2], r1[h3], r2[h3]))))
    elif n == 4:
        v, w, x, y = board
        suits = nib[v] + nib[w] + nib[x] + nib[y]
        q = _QUAD_INDEX[bk[v] + bk[w] + bk[x] + bk[y]]
        r0 = quad_rows[h0]
        r1 = quad_rows[h1]
        r2 = quad_rows[h2]
        best = max(r0[h1][q], r0[h2][q], r0[h3][q], r1[h2][q], r1[h3][q], r2[h3][q])
    elif n == 3:
        v, w, x = board
        suits = nib[v] + nib[w] + nib[x]
        t = _TRIPLE_INDEX[bk[v] + bk[w] + bk[x]]
        r0 = _OMAHA3[h0]
        r1 = _OMAHA3[h1]
        r2 = _OMAHA3[h2]
        best = max(r0[h1][t], r0[h2][t], r0[h3][t], r1[h2][t], r1[h3][t], r2[h3][t])
    else:
        raise ValueError(f"an Omaha board has 3, 4 or 5 cards, not {n}")
    # Per-suit counts in nibbles: is there a suit with >= 3 board cards and >= 2 hole cards?
    flush_suits = ((suits + 0x5555) & (nib[h0] + nib[h1] + nib[h2] + nib[h3] + 0x6666)
                   & 0x8888)
    if flush_suits:  # one suit at most, as the board has 3..5 cards
        flush = _omaha_flush(hole, board, (flush_suits.bit_length() >> 2) - 1)
        if flush > best:
            return flush
    return best


def _omaha_flush(hole: Sequence[Card], board: Sequence[Card], suit: int) -> Strength:
    """The best Omaha flush in *suit* (two hole cards and three board cards of the suit)."""
    bit = _BIT
    table = _FLUSH_TABLE
    in_hand = [bit[c] for c in hole if c & 3 == suit]
    on_board = [bit[c] for c in board if c & 3 == suit]
    return max([table[p | q | r | s | t] for p, q in combinations(in_hand, 2)
                for r, s, t in combinations(on_board, 3)])


_SMALL_BATCH = 48  # below this many hands, evaluate_many evaluates hands one by one


def evaluate_many(board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Strength]:
    """The Hold'em strengths of many two-card *holes* against one *board* of 3, 4 or 5 cards,
    in order: ``[evaluate([*board, *hole]) for hole in holes]``, only much faster.

    For large batches a per-board table of all 52 x 52 hole pairs is built first (rank sums
    of the board precomputed; flush-capable suits patched in), then each hand is two list
    lookups.  Hole cards must not collide with the board or each other (not checked).

    >>> from naiko.cards import parse_cards
    >>> board = parse_cards("Ah Kh 7h 7d 2c")
    >>> [describe(s) for s in evaluate_many(board, [parse_cards("Qh 3h"), parse_cards("7c 2d")])]
    ['flush, Ace high', 'full house, Sevens full of Twos']
    """
    n = len(board)
    if n not in (3, 4, 5):
        raise ValueError(f"a Hold'em board has 3, 4 or 5 cards, not {n}")
    total = n + 2
    table = _rank_table(total)
    if len(holes) < _SMALL_BATCH:
        flags = _FLUSH_FLAGS[total]
        key = _KEY
        base = sum([key[c] for c in board])
        out = []
        for x, y in holes:
            k = base + key[x] + key[y]
            out.append(_flush_strength([*board, x, y]) if flags[k & 255] else table[k >> 8])
        return out
    matrix = _board_matrix(board, table)
    return [matrix[x][y] for x, y in holes]


def _board_matrix(board: Sequence[Card], table: dict[int, int]) -> list[list[Strength]]:
    """``matrix[x][y]`` = strength of board + cards x, y (garbage when x/y are invalid)."""
    base = sum([_RANK_PART[c] for c in board])
    get = table.get
    parts = _RANK_PART13
    rank_of = _RANK_OF
    rows: list[list[int]] = []
    for p in parts:
        b = base + p
        row13 = [get(b + q, 0) for q in parts]
        rows.append(list(map(row13.__getitem__, rank_of)))
    matrix = list(map(rows.__getitem__, rank_of))
    suit_counts = [0, 0, 0, 0]
    for c in board:
        suit_counts[c & 3] += 1
    for suit in range(4):
        need = 5 - suit_counts[suit]  # hole cards of this suit that complete a flush
        if need > 2:
            continue
        ft = _FLUSH_TABLE
        bit = _BIT
        bm = 0
        for c in board:
            if c & 3 == suit:
                bm |= bit[c]
        free = [c for c in range(suit, 52, 4) if not bm & bit[c]]
        if need <= 1:  # one suited hole card is enough: patch the other cards' rows
            if need <= 0:
                shared = [ft[bm]] * 52
                for y in free:
                    shared[y] = ft[bm | bit[y]]
                patched = [shared] * 13
            else:
                patched = []
                for row in rows:
                    row = row[:]
                    for y in free:
                        row[y] = ft[bm | bit[y]]
                    patched.append(row)
            for x in range(52):
                if x & 3 != suit:
                    matrix[x] = patched[x >> 2]
        for x in free:
            bx = bm | bit[x]
            row = [ft[bx]] * 52 if need <= 1 else rows[x >> 2][:]
            for y in free:
                row[y] = ft[bx | bit[y]]
            matrix[x] = row
    return matrix


# --- categories and descriptions ---------------------------------------------------------------

def category_of(strength: Strength) -> Category:
    """The :class:`Category` of *strength*.

    >>> category_of(1), category_of(7462)
    (<Category.HIGH_CARD: 0>, <Category.STRAIGHT_FLUSH: 8>)
    """
    if not 1 <= strength <= MAX_STRENGTH:
        raise ValueError(f"not a hand strength: {strength!r}")
    return _CATEGORIES[bisect_left(_CATEGORY_TOP, strength)]


def _straights_topped_by(rank: int) -> int:
    """How many straights have *rank* as the highest rank of their five-rank set."""
    return 2 if rank == 12 else 1 if rank >= 4 else 0


# Sets of five distinct ranks that are not straights, by highest rank, cumulated: the index
# within HIGH_CARD (or FLUSH) below _NO_STRAIGHT_CUM[t] has a top rank of at most t.
_NO_STRAIGHT_CUM = tuple(accumulate(comb(t, 4) - _straights_topped_by(t) for t in range(13)))


def _details(strength: Strength) -> tuple[Category, int, int]:
    """Category and its one or two defining ranks (the second is -1 when not used)."""
    category = category_of(strength)
    i = strength - _CATEGORY_BASE[category] - 1
    if category in (Category.HIGH_CARD, Category.FLUSH):
        return category, bisect_left(_NO_STRAIGHT_CUM, i + 1), -1
    if category == Category.ONE_PAIR:
        return category, i // 220, -1  # C(12, 3) kicker sets per pair
    if category == Category.TWO_PAIR:
        high = 1
        while 11 * (high + 1) * high // 2 <= i:  # 11 kickers x `high` low pairs per high pair
            high += 1
        return category, high, (i - 11 * high * (high - 1) // 2) // 11
    if category == Category.THREE_OF_A_KIND:
        return category, i // 66, -1  # C(12, 2) kicker sets per rank
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        return category, i + 3, -1  # the wheel is five high
    second = i % 12
    return category, i // 12, second + (second >= i // 12)  # full house / quads + other rank


def describe(strength: Strength) -> str:
    """The English description of *strength* used in showdown messages.

    >>> from naiko.cards import parse_cards
    >>> [describe(evaluate(parse_cards(h))) for h in ("KsKd4c4h2s", "7c7d7h2s3d", "AhKs9c5d3h")]
    ['two pair, Kings and Fours', 'three of a kind, Sevens', 'high card, Ace']
    >>> describe(7462), describe(7461), describe(5854)
    ('royal flush', 'straight flush, King high', 'straight, Five high')
    """
    category, first, second = _details(strength)
    if category == Category.HIGH_CARD:
        return f"high card, {RANK_NAMES[first]}"
    if category == Category.ONE_PAIR:
        return f"one pair, {RANK_PLURALS[first]}"
    if category == Category.TWO_PAIR:
        return f"two pair, {RANK_PLURALS[first]} and {RANK_PLURALS[second]}"
    if category == Category.THREE_OF_A_KIND:
        return f"three of a kind, {RANK_PLURALS[first]}"
    if category == Category.STRAIGHT:
        return f"straight, {RANK_NAMES[first]} high"
    if category == Category.FLUSH:
        return f"flush, {RANK_NAMES[first]} high"
    if category == Category.FULL_HOUSE:
        return f"full house, {RANK_PLURALS[first]} full of {RANK_PLURALS[second]}"
    if category == Category.FOUR_OF_A_KIND:
        return f"four of a kind, {RANK_PLURALS[first]}"
    if first == 12:
        return "royal flush"
    return f"straight flush, {RANK_NAMES[first]} high"


# --- showdown path ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandValue:
    """A player's best hand at showdown."""

    strength: Strength
    """Compare these: higher wins, equal splits."""
    category: Category
    cards: tuple[Card, ...]
    """The five cards used, as a human reads them: the larger rank groups first (quads, trips,
    pairs), then kickers, high to low; straights high to low with the wheel as 5-4-3-2-A."""
    description: str
    """E.g. ``"full house, Kings full of Fours"`` (see :func:`describe`)."""


def _validate(cards: Sequence[Card]) -> None:
    for c in cards:
        if type(c) is not int or not 0 <= c < 52:
            raise ValueError(f"not a card: {c!r}")
    if len(set(cards)) != len(cards):
        raise ValueError("duplicate cards")


def _human_order(five: Sequence[Card], category: Category) -> tuple[Card, ...]:
    ranks = [c >> 2 for c in five]
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH) and 12 in ranks and 0 in ranks:
        return tuple(sorted(five, key=lambda c: -1 if c >> 2 == 12 else c, reverse=True))
    return tuple(sorted(five, key=lambda c: (ranks.count(c >> 2), c), reverse=True))


def best_hand(hole: Sequence[Card], board: Sequence[Card], omaha: bool = False) -> HandValue:
    """The best hand of a player at showdown, validated and explained.

    Hold'em (R1.2): the best five of hole + board (5..7 cards, any number of hole cards).
    Omaha (R1.3, ``omaha=True``): four hole cards, 3..5 board cards, exactly two from the
    hole and three from the board.  Agrees with :func:`evaluate` / :func:`evaluate_omaha`.

    :raises ValueError: On invalid or duplicate cards or wrong card counts.

    >>> from naiko.cards import parse_cards, format_cards
    >>> hv = best_hand(parse_cards("Ah 2d"), parse_cards("3c 4s 5h Kd Kh"))
    >>> hv.description, format_cards(hv.cards, " ")
    ('straight, Five high', '5h 4s 3c 2d Ah')
    >>> hv = best_hand(parse_cards("Ah Ad 2c 3c"), parse_cards("As Kh Kd 7c 8c"), omaha=True)
    >>> hv.description, format_cards(hv.cards, " ")
    ('full house, Aces full of Kings', 'As Ah Ad Kh Kd')
    """
    hole = tuple(hole)
    board = tuple(board)
    _validate(hole + board)
    if omaha:
        if len(hole) != 4 or not 3 <= len(board) <= 5:
            raise ValueError("Omaha needs 4 hole cards and 3..5 board cards")
        candidates = [h + b for h in combinations(hole, 2) for b in combinations(board, 3)]
    else:
        if not 5 <= len(hole) + len(board) <= 7:
            raise ValueError("Hold'em needs 5..7 cards in hole and board together")
        candidates = list(combinations(hole + board, 5))
    scored = [(evaluate5(*five), five) for five in candidates]
    strength = max(s for s, _ in scored)
    five = next(f for s, f in scored if s == strength)
    category = category_of(strength)
    return HandValue(strength, category, _human_order(five, category), describe(strength))
