""":mod:`naiko.tournaments.prizes` splits prize pools: the payout tables (R7.3, R9.9), tied places
(R9.5) and the Spin multiplier table (R7.4, R9.10).

Every amount is whole chips. A split always sums exactly to its pool and never grows with a worse
place: each place gets the floor of its share, and the chips left over go one at a time to the best
places first.

>>> payouts(900, 9, PayoutRule.SIT_AND_GO)
[450, 270, 180]
>>> payouts(100, 3, PayoutRule.SCHEDULED)
[100]
>>> share_tied_prizes([1000, 500, 301], [range(2, 4)])
[1000, 401, 400]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from typing import Any

from ..cards import RandomSource
from ..errors import EngineError


class PrizeError(EngineError):
    """A prize rule, payout table, tie or Spin table is invalid, or a split was asked for
    impossible inputs (a negative pool, a field size out of range...)."""

    code = "invalid_prizes"


class PayoutRule(StrEnum):
    """How a tournament's prize pool is split among its finishers, published in its terms."""

    SIT_AND_GO = "sit_and_go"
    """The Sit & Go table (:data:`SIT_AND_GO_TABLE`): 2–10 entrants, one paid place per three
    seats (heads-up and up to 5 players winner takes all, 6–8 players 65/35, 9–10 50/30/20)."""
    SCHEDULED = "scheduled"
    """Scheduled tournaments: the Sit & Go table up to 10 entrants, then about the top 15 %
    (:func:`places_paid`) along the curve of :func:`payout_shape`."""
    WINNER_TAKES_ALL = "winner_takes_all"
    """The winner takes the whole pool."""
    SPIN = "spin"
    """A Spin: the split comes with the multiplier drawn from its :class:`SpinTable` (R9.10);
    use :func:`spin_payouts`."""


MIN_ENTRANTS = 2
"""The smallest field a payout table covers."""
MAX_ENTRANTS = 100_000
"""The largest field a payout table covers (and the largest a tournament may have)."""

SIT_AND_GO_TABLE: tuple[tuple[int, int, tuple[int, ...]], ...] = (
    (2, 5, (100,)),
    (6, 8, (65, 35)),
    (9, 10, (50, 30, 20)),
)
"""``(fewest, most entrants, percentages for place 1, 2, ...)``: the split of the big rooms'
single-table Sit & Gos (heads-up 100, 6-max 65/35, 9- and 10-max 50/30/20), i.e. one paid place
per three entrants, at least one."""

PAID_PERCENT = 15
"""A scheduled tournament with more than 10 entrants pays this share of the field (rounded half
up, at least 3 places), as PokerStars has done since 2017."""

CURVE_OFFSET = 2
CURVE_HEAD = 32
CURVE_SCALE = 10**15
"""The scheduled curve's weight for place *i* is ``S // (i + 2) + 32 * S // (i + 2) ** 2`` with
``S = CURVE_SCALE``: a long ``1/i`` tail (every place pays more than the one below it) with a
steeper top. Integer arithmetic, so every machine publishes exactly the same table."""

MIN_CASH_ENTRIES = Fraction(3, 2)
"""On top of the curve every paid place of a scheduled tournament gets the same floor, sized so
that the floors together are worth 1.5 entries per paid place: the last paid place gets a bit
more than that (real rooms pay about 1.5–2.5 entries at the bubble)."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_field(entrants: int) -> None:
    if not _is_int(entrants) or not MIN_ENTRANTS <= entrants <= MAX_ENTRANTS:
        raise PrizeError(f"entrants must be {MIN_ENTRANTS}..{MAX_ENTRANTS}, not {entrants!r}",
                         rule_id="R9.9")


def places_paid(entrants: int, rule: PayoutRule) -> int:
    """How many places a field of *entrants* pays under *rule*.

    >>> [places_paid(n, PayoutRule.SCHEDULED) for n in (2, 6, 9, 23, 24, 100, 10_000)]
    [1, 2, 3, 3, 4, 15, 1500]

    :param entrants: The number of entries (2..:data:`MAX_ENTRANTS`).
    :param rule: The tournament's payout rule (not :attr:`PayoutRule.SPIN`).
    :raises PrizeError: If the field is out of range or the rule does not split by field size.
    """
    return len(payout_shape(entrants, rule))


def payout_shape(entrants: int, rule: PayoutRule) -> tuple[int, ...]:
    """The published split for a field of *entrants*: integer weights for place 1, 2, ...
    (non-increasing; percentages for the fixed tables). :func:`payouts` turns them into chips.

    :param entrants: The number of entries (2..:data:`MAX_ENTRANTS`).
    :param rule: The tournament's payout rule (not :attr:`PayoutRule.SPIN`).
    :raises PrizeError: If the field is out of range, the Sit & Go table does not cover it, or
        the rule is :attr:`PayoutRule.SPIN` (a Spin's split depends on its multiplier).
    """
    _check_field(entrants)
    rule = PayoutRule(rule)
    if rule is PayoutRule.WINNER_TAKES_ALL:
        return (1,)
    if rule is PayoutRule.SPIN:
        raise PrizeError("a Spin's split comes with its drawn multiplier: use spin_payouts",
                         rule_id="R9.10")
    if rule is PayoutRule.SIT_AND_GO and entrants > SIT_AND_GO_TABLE[-1][1]:
        raise PrizeError(f"the Sit & Go table covers 2..{SIT_AND_GO_TABLE[-1][1]} entrants, "
                         f"not {entrants}", rule_id="R7.3")
    return _shape(entrants)


@lru_cache(maxsize=1024)
def _shape(entrants: int) -> tuple[int, ...]:
    for fewest, most, percentages in SIT_AND_GO_TABLE:
        if fewest <= entrants <= most:
            return percentages
    paid = max(3, (PAID_PERCENT * entrants + 50) // 100)
    if paid == 3:
        return SIT_AND_GO_TABLE[-1][2]
    curve = _curve_prefix(paid)
    total = sum(curve)
    # Floors worth m entries per paid place: f * paid / (f * paid + total) = m * paid / entrants.
    m = MIN_CASH_ENTRIES
    floor = (m.numerator * total) // (m.denominator * entrants - m.numerator * paid)
    return tuple(weight + floor for weight in curve)


_CURVE: list[int] = []


def _curve_prefix(paid: int) -> list[int]:
    """The first *paid* weights of the scheduled curve (built once, extended on demand)."""
    while len(_CURVE) < paid:
        d = len(_CURVE) + 1 + CURVE_OFFSET
        _CURVE.append(CURVE_SCALE // d + CURVE_HEAD * CURVE_SCALE // (d * d))
    return _CURVE[:paid]


def split_pool(pool: int, weights: Sequence[int]) -> list[int]:
    """Split *pool* chips in proportion to *weights* (best place first): each place gets the
    floor of its share and the remainder goes one chip at a time to the best places first, so
    the result sums to *pool* exactly and never increases.

    >>> split_pool(101, (65, 35))
    [66, 35]
    >>> split_pool(10, (50, 30, 20))
    [5, 3, 2]

    :param pool: Chips to split (``>= 0``).
    :param weights: Non-negative, non-increasing integer weights with a positive total.
    :raises PrizeError: If the pool is negative or the weights are not as described.
    """
    if not _is_int(pool) or pool < 0:
        raise PrizeError(f"a prize pool is a whole number of chips >= 0, not {pool!r}")
    if (not weights or any(not _is_int(w) or w < 0 for w in weights)
            or any(a < b for a, b in zip(weights, weights[1:], strict=False))
            or sum(weights) <= 0):
        raise PrizeError(f"weights must be non-negative, non-increasing integers with a "
                         f"positive total, not {tuple(weights)!r}")
    total = sum(weights)
    prizes = [pool * w // total for w in weights]
    for place in range(pool - sum(prizes)):  # fewer than len(weights) chips
        prizes[place] += 1
    return prizes


def payouts(pool: int, entrants: int, rule: PayoutRule) -> list[int]:
    """The prize of place 1, 2, ... (whole chips; places not listed get nothing) when
    *entrants* players share *pool* under *rule* (R9.9). The list sums to *pool* exactly and
    never increases; chips that do not divide go to the best places first.

    >>> payouts(600, 6, PayoutRule.SIT_AND_GO)
    [390, 210]
    >>> sum(payouts(1_000_000, 10_000, PayoutRule.SCHEDULED))
    1000000

    :param pool: The prize pool in chips (``>= 0``).
    :param entrants: The number of entries (2..:data:`MAX_ENTRANTS`).
    :param rule: The payout rule (for a Spin use :func:`spin_payouts`).
    :raises PrizeError: If an argument is out of range (see :func:`payout_shape`).
    """
    return split_pool(pool, payout_shape(entrants, rule))


def prize_pool(entry: int, entrants: int, multiplier: int | None = None) -> int:
    """R9.9: the prize pool is the sum of the entries; a Spin's is its entry times its drawn
    multiplier (as the big rooms count it), whatever the number of entrants.

    >>> prize_pool(100, 9)
    900
    >>> prize_pool(100, 3, multiplier=25)
    2500

    :param entry: The entry, in chips of the account (``>= 0``).
    :param entrants: The number of entries (``>= 0``).
    :param multiplier: A Spin's drawn multiplier; ``None`` for other tournaments.
    :raises PrizeError: If an argument is negative or not an integer.
    """
    values = (entry, entrants) if multiplier is None else (entry, entrants, multiplier)
    if not all(_is_int(v) and v >= 0 for v in values):
        raise PrizeError("entry, entrants and multiplier must be integers >= 0", rule_id="R9.9")
    return entry * entrants if multiplier is None else entry * multiplier


# -- R9.5: eliminations in the same hand and tied places ----------------------------------------


@dataclass(frozen=True, slots=True)
class TieGroup:
    """Players who finish in the same place (one player when there is no tie)."""

    place: int
    """The finishing place they all get: the best of the places they occupy (R9.5)."""
    player_ids: tuple[str, ...]
    """The players, in the order that receives indivisible chips of a shared prize: the first
    takes the share of :attr:`place` (the largest), the next the one below, and so on."""

    @property
    def places(self) -> range:
        """The consecutive places the group occupies and whose prizes it shares."""
        return range(self.place, self.place + len(self.player_ids))


def rank_eliminations(start_stacks: Sequence[tuple[str, int]],
                      players_before: int) -> list[TieGroup]:
    """R9.5: give finishing places to the players eliminated in one hand (or, hand-for-hand,
    in one round of hands, R9.8). They take the next places, last place first: the larger the
    stack at the start of that hand, the better the place; equal stacks tie and all get the
    best of the places they occupy.

    >>> rank_eliminations([("ann", 300), ("bob", 500), ("cy", 300)], players_before=9)
    [TieGroup(place=7, player_ids=('bob',)), TieGroup(place=8, player_ids=('ann', 'cy'))]

    :param start_stacks: ``(player_id, stack at the start of the hand)`` of each eliminated
        player. Their order only settles who of a tie takes an indivisible chip (pass them
        clockwise from the button, as split pots do, R4.5).
    :param players_before: Players still in the tournament before these eliminations.
    :return: The groups, best place first.
    :raises PrizeError: If a stack is not positive, a player appears twice, or nobody (or
        everybody) would be left.
    """
    ids = [player_id for player_id, _ in start_stacks]
    if len(set(ids)) != len(ids) or any(not _is_int(s) or s <= 0 for _, s in start_stacks):
        raise PrizeError("each eliminated player once, with a positive starting stack",
                         rule_id="R9.5")
    if not _is_int(players_before) or not 1 <= len(ids) < players_before:
        raise PrizeError(f"{len(ids)} eliminations cannot leave a winner among "
                         f"{players_before!r} players", rule_id="R9.5")
    ordered = sorted(start_stacks, key=lambda item: -item[1])  # stable: keeps the given order
    groups: list[TieGroup] = []
    place = players_before - len(ids) + 1
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][1] == ordered[i][1]:
            j += 1
        groups.append(TieGroup(place, tuple(pid for pid, _ in ordered[i:j])))
        place += j - i
        i = j
    return groups


def share_tied_prizes(prizes: Sequence[int], groups: Iterable[Iterable[int]]) -> list[int]:
    """R9.5: tied players share the prizes of the places they occupy equally; the indivisible
    remainder goes one chip at a time from the better place down.

    >>> share_tied_prizes([500, 301], [(1, 2)])
    [401, 400]
    >>> share_tied_prizes([500, 300, 200], [range(3, 5)])  # a tie on the bubble
    [500, 300, 100, 100]

    :param prizes: The prize of place 1, 2, ... (places beyond the list pay nothing).
    :param groups: Each tie as the consecutive places it occupies (:attr:`TieGroup.places`).
    :return: The prize of each place after sharing, long enough to cover every group; it sums
        to the same total as *prizes*.
    :raises PrizeError: If a group is empty, not consecutive places from 1, or overlaps another.
    """
    shared = list(prizes)
    seen: set[int] = set()
    for group in groups:
        places = list(group)
        if (not places or any(not _is_int(p) or p < 1 for p in places)
                or places != list(range(places[0], places[0] + len(places)))
                or seen.intersection(places)):
            raise PrizeError(f"a tie is a set of consecutive places >= 1 shared by nobody else, "
                             f"not {places!r}", rule_id="R9.5")
        seen.update(places)
        shared.extend([0] * (places[-1] - len(shared)))
        first = places[0] - 1
        quotient, remainder = divmod(sum(shared[first:first + len(places)]), len(places))
        for k in range(len(places)):
            shared[first + k] = quotient + (1 if k < remainder else 0)
    return shared


def prizes_for(groups: Iterable[TieGroup], prizes: Sequence[int]) -> dict[str, int]:
    """The prize of each player of *groups* (0 outside the prizes), ties shared (R9.5).

    >>> groups = rank_eliminations([("ann", 300), ("cy", 300)], players_before=3)
    >>> prizes_for(groups, [500, 200, 101])
    {'ann': 151, 'cy': 150}

    :param groups: Groups from :func:`rank_eliminations`.
    :param prizes: The prize of place 1, 2, ... (:func:`payouts`).
    :raises PrizeError: As :func:`share_tied_prizes`.
    """
    groups = list(groups)
    shared = share_tied_prizes(prizes, [g.places for g in groups])
    return {pid: shared[g.place - 1 + k] for g in groups for k, pid in enumerate(g.player_ids)}


# -- R9.10: the Spin multiplier ------------------------------------------------------------------

SPIN_PLAYERS = 3
"""A Spin is played by three players (R7.4); its expected pool is at most their three entries."""


@dataclass(frozen=True, slots=True)
class SpinPrize:
    """One row of a Spin's published multiplier table."""

    multiplier: int
    """The prize pool is the entry times this (R9.9)."""
    weight: int
    """The row's chance is ``weight / total weight`` of its table: exact integer odds."""
    split: tuple[int, ...]
    """Percentages of the pool for place 1, 2, (3): non-increasing, summing to 100. ``(100,)``
    is winner takes all."""

    def __post_init__(self) -> None:
        if not _is_int(self.multiplier) or self.multiplier < 1:
            raise PrizeError(f"a multiplier is an integer >= 1, not {self.multiplier!r}",
                             rule_id="R9.10")
        if not _is_int(self.weight) or self.weight < 1:
            raise PrizeError(f"a weight is an integer >= 1, not {self.weight!r}",
                             rule_id="R9.10")
        split = tuple(self.split)
        object.__setattr__(self, "split", split)
        if (not 1 <= len(split) <= SPIN_PLAYERS or any(not _is_int(p) or p <= 0 for p in split)
                or sum(split) != 100
                or any(a < b for a, b in zip(split, split[1:], strict=False))):
            raise PrizeError(f"a split is 1..{SPIN_PLAYERS} positive, non-increasing "
                             f"percentages summing to 100, not {split!r}", rule_id="R9.10")

    def to_dict(self) -> dict[str, Any]:
        """The row as a JSON-compatible dict."""
        return {"multiplier": self.multiplier, "weight": self.weight, "split": list(self.split)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpinPrize:
        """Parse :meth:`to_dict`'s output.

        :raises PrizeError: If a field is missing or invalid.
        """
        try:
            return cls(data["multiplier"], data["weight"], tuple(data["split"]))
        except (KeyError, TypeError) as exc:
            raise PrizeError(f"bad Spin table row: {exc!r}", rule_id="R9.10") from exc


@dataclass(frozen=True, slots=True)
class SpinTable:
    """A published Spin multiplier table (R9.10): rows by increasing multiplier, integer
    weights (exact odds) and each row's split. Its expected pool is at most the three entries
    (R9.9).

    >>> SPIN_TABLE.expected_pool_per_entry == Fraction(2_789_878, 1_000_000)
    True
    """

    prizes: tuple[SpinPrize, ...]
    _cumulative: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        prizes = tuple(self.prizes)
        object.__setattr__(self, "prizes", prizes)
        if not prizes or any(not isinstance(p, SpinPrize) for p in prizes):
            raise PrizeError("a Spin table has at least one SpinPrize row", rule_id="R9.10")
        multipliers = [p.multiplier for p in prizes]
        if any(a >= b for a, b in zip(multipliers, multipliers[1:], strict=False)):
            raise PrizeError(f"multipliers must increase, not {multipliers}", rule_id="R9.10")
        object.__setattr__(self, "_cumulative", tuple(accumulate(p.weight for p in prizes)))
        if self.expected_pool_per_entry > SPIN_PLAYERS:
            raise PrizeError(f"the expected pool is {float(self.expected_pool_per_entry):.6f} "
                             f"entries, more than the {SPIN_PLAYERS} entries paid",
                             rule_id="R9.9")

    @property
    def total_weight(self) -> int:
        """The sum of the weights: a row's probability is its weight over this."""
        return self._cumulative[-1]

    def probability(self, prize: SpinPrize) -> Fraction:
        """The exact probability of drawing *prize* (a row of this table)."""
        return Fraction(prize.weight, self.total_weight)

    @property
    def expected_pool_per_entry(self) -> Fraction:
        """The expected prize pool, counted in entries: the expected multiplier (R9.9 requires
        at most :data:`SPIN_PLAYERS`)."""
        return Fraction(sum(p.multiplier * p.weight for p in self.prizes), self.total_weight)

    @property
    def return_to_player(self) -> Fraction:
        """The expected prize paid per entry taken (``expected_pool_per_entry / 3``); one minus
        this is the house edge."""
        return self.expected_pool_per_entry / SPIN_PLAYERS

    def to_dict(self) -> dict[str, Any]:
        """The table as a JSON-compatible dict."""
        return {"prizes": [p.to_dict() for p in self.prizes]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpinTable:
        """Parse :meth:`to_dict`'s output.

        :raises PrizeError: If the table is malformed or invalid.
        """
        try:
            rows = data["prizes"]
            if not isinstance(rows, list):
                raise TypeError("prizes must be a list")
            return cls(tuple(SpinPrize.from_dict(row) for row in rows))
        except (KeyError, TypeError) as exc:
            raise PrizeError(f"bad Spin table: {exc!r}", rule_id="R9.10") from exc


SPIN_TABLE = SpinTable((
    SpinPrize(2, 535_989, (100,)),
    SpinPrize(3, 373_000, (100,)),
    SpinPrize(5, 70_000, (100,)),
    SpinPrize(10, 20_000, (100,)),
    SpinPrize(25, 900, (80, 12, 8)),
    SpinPrize(120, 100, (80, 10, 10)),
    SpinPrize(240, 10, (80, 10, 10)),
    SpinPrize(12_000, 1, (80, 10, 10)),
))
"""The published Spin table, out of 1,000,000 draws. Modelled on PokerStars' Spin & Go
(multipliers 2, 3, 5, 10, 25, 120, 240 and 12,000; 25x pays 80/12/8 and the top three tiers
80/10/10; the 12,000x jackpot about one in a million; a house edge of about 7 %, like its rake).
Winner takes all up to 10x, as R9.10 asks of small multipliers. Expected pool 2.789878 entries of
the 3 paid (return to player 92.996 %)."""


def draw_multiplier(table: SpinTable, rng: RandomSource) -> SpinPrize:
    """R9.10: draw a Spin's multiplier row from *table* with its exact odds (one
    ``rng.randrange(total_weight)`` call).

    >>> from naiko.cards import seeded_random
    >>> draw_multiplier(SPIN_TABLE, seeded_random(1)).multiplier in (2, 3, 5, 10)
    True

    :param table: The published table.
    :param rng: The random source (the system CSPRNG in production, a seeded one in tests).
    """
    return table.prizes[bisect_right(table._cumulative, rng.randrange(table.total_weight))]


def spin_payouts(entry: int, prize: SpinPrize) -> list[int]:
    """The prize of place 1, 2, ... of a Spin whose multiplier row is *prize*: the pool
    ``entry * multiplier`` (R9.9) split as the row says (R9.10).

    >>> spin_payouts(100, SpinPrize(25, 900, (80, 12, 8)))
    [2000, 300, 200]

    :param entry: The Spin's entry (``>= 0``).
    :param prize: The drawn row.
    :raises PrizeError: If the entry is negative.
    """
    return split_pool(prize_pool(entry, SPIN_PLAYERS, prize.multiplier), prize.split)
