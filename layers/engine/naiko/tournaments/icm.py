""":mod:`naiko.tournaments.icm` splits the prizes left to the players still in a tournament by
their stacks: the three splits a deal (R9.16) or a director's cancellation (R9.15) may use.

- :func:`icm_split`: the Independent Chip Model (Malmuth–Harville): a player finishes first
  with probability stack / total chips, and, given who finished above, each next place the same
  way among those left. Exact (fractions, every finishing order) for up to
  :data:`MAX_ICM_PLAYERS` players.
- :func:`chip_split`: chip-count ("chip chop"): everybody is sure of the smallest prize left,
  the rest goes in proportion to the stacks.
- :func:`equal_split`: equal chop.

Every amount is whole chips. Each split sums exactly to the prizes given: a player gets the
floor of their exact share, and the chips left over go one at a time to the largest fractional
parts (ties: the larger stack, then the lower index), so a larger stack never gets less and
equal stacks get within one chip of each other.

>>> icm_split([5_000, 3_000, 2_000], [500, 300, 200])
[384, 327, 289]
>>> chip_split([5_000, 3_000, 2_000], [500, 300, 200])
[400, 320, 280]
>>> equal_split([5_000, 3_000, 2_000], [500, 300, 200])
[334, 333, 333]
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from fractions import Fraction
from typing import NamedTuple

MAX_ICM_PLAYERS = 9
"""ICM is exact for at most this many players (a full final table): 2^9 subsets."""


class IcmError(ValueError):
    """A split was asked for impossible inputs (no players, a stack not positive, more
    prizes than players, a negative prize, too many players for exact ICM). Not an error code
    of the protocol: the deals (R9.16, :mod:`naiko_service.usecases.deals`) refuse such inputs
    before they get here (the terms allow at most 9 players, a seated player has chips)."""


class SplitPolicy(StrEnum):
    """How the prizes left are split by the stacks (R9.15 cancellation, R9.16 deals)."""

    EQUAL = "equal"
    CHIP_COUNT = "chip_count"
    ICM = "icm"


def _check(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    if not stacks:
        raise IcmError("a split needs at least one player")
    if any(not isinstance(s, int) or isinstance(s, bool) or s <= 0 for s in stacks):
        raise IcmError(f"stacks must be positive integers, not {list(stacks)}")
    if any(not isinstance(p, int) or isinstance(p, bool) or p < 0 for p in prizes):
        raise IcmError(f"prizes must be integers >= 0, not {list(prizes)}")
    if len(prizes) > len(stacks):
        raise IcmError(
            f"{len(prizes)} prizes for {len(stacks)} players: the places below "
            "the players left are already given"
        )


def icm_equities(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """Each player's exact ICM (Malmuth–Harville) equity in *prizes* (place 1, 2, ...; places
    past the list win nothing).

    Dynamic programming over the sets of players already placed: the probability that the
    players of set *m* took the top ``|m|`` places (in some order) is ``reach[m]``; from it the
    player *i* outside *m* takes the next place with probability ``stack_i / chips left``.

    >>> icm_equities([1, 1], [3, 1])
    [Fraction(2, 1), Fraction(2, 1)]

    :raises IcmError: On bad inputs or more than :data:`MAX_ICM_PLAYERS` players.
    """
    _check(stacks, prizes)
    n = len(stacks)
    if n > MAX_ICM_PLAYERS:
        raise IcmError(f"exact ICM covers up to {MAX_ICM_PLAYERS} players, not {n}")
    total = sum(stacks)
    equity = [Fraction(0)] * n
    reach: dict[int, Fraction] = {0: Fraction(1)}
    chips_in = {0: 0}
    for place, prize in enumerate(prizes):
        following: dict[int, Fraction] = {}
        for mask, chance in reach.items():
            left = total - chips_in[mask]
            for i in range(n):
                bit = 1 << i
                if mask & bit:
                    continue
                p = chance * Fraction(stacks[i], left)
                equity[i] += p * prize
                if place + 1 < len(prizes):
                    following[mask | bit] = following.get(mask | bit, Fraction(0)) + p
                    chips_in[mask | bit] = chips_in[mask] + stacks[i]
        reach = following
    return equity


def whole_chips(shares: Sequence[Fraction], stacks: Sequence[int], total: int) -> list[int]:
    """Exact *shares* (summing to *total*) in whole chips: the floors, then the chips left one
    at a time to the largest fractional parts (ties: the larger stack, then the lower index)."""
    floors = [int(s.numerator // s.denominator) for s in shares]
    left = total - sum(floors)
    order = sorted(range(len(shares)), key=lambda i: (-(shares[i] - floors[i]), -stacks[i], i))
    for i in order[:left]:
        floors[i] += 1
    return floors


def icm_split(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """The ICM split of *prizes* among the players with *stacks*, in whole chips summing to
    ``sum(prizes)`` (:func:`icm_equities`, :func:`whole_chips`).

    :raises IcmError: On bad inputs or more than :data:`MAX_ICM_PLAYERS` players.
    """
    return whole_chips(icm_equities(stacks, prizes), stacks, sum(prizes))


def chip_split(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """Chip-count ("chip chop"): each player is sure of the smallest prize left to the players
    (``0`` when fewer prizes than players are left), the rest of the pool in proportion to the
    stacks; whole chips summing to ``sum(prizes)``.

    :raises IcmError: On bad inputs.
    """
    _check(stacks, prizes)
    n = len(stacks)
    floor = min(prizes) if len(prizes) == n else 0
    rest = sum(prizes) - floor * n
    total = sum(stacks)
    shares = [floor + Fraction(rest * s, total) for s in stacks]
    return whole_chips(shares, stacks, sum(prizes))


def equal_split(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """Equal chop: the pool in equal parts (the odd chips to the larger stacks first).

    :raises IcmError: On bad inputs.
    """
    _check(stacks, prizes)
    n = len(stacks)
    return whole_chips([Fraction(sum(prizes), n)] * n, stacks, sum(prizes))


def split(policy: SplitPolicy, stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """The split *policy* of *prizes* among the players with *stacks*.

    :raises IcmError: On bad inputs.
    """
    if policy is SplitPolicy.ICM:
        return icm_split(stacks, prizes)
    if policy is SplitPolicy.CHIP_COUNT:
        return chip_split(stacks, prizes)
    return equal_split(stacks, prizes)


def deal_prizes(prizes: Sequence[int], keep_for_winner: int) -> tuple[list[int], int]:
    """R9.16: the prizes a deal splits when the terms keep *keep_for_winner* chips (at most the
    first prize left) for the winner to play for: ``(prizes to split, kept)``.

    >>> deal_prizes([500, 300, 200], 100)
    ([400, 300, 200], 100)
    """
    if not prizes:
        return [], 0
    kept = max(0, min(keep_for_winner, prizes[0]))
    return [prizes[0] - kept, *prizes[1:]], kept


class DealSplits(NamedTuple):
    """R9.16: what a deal offers the players left, in their order (:func:`deal_splits`)."""

    prizes: list[int]
    """The prizes the deal shares (place 1, 2, ...; the first less what is kept)."""
    kept: int
    """What is kept for the winner to play for (part of the first prize)."""
    icm: list[int]
    """Each player's ICM share of :attr:`prizes` (whole chips, summing to them)."""
    chip_count: list[int]
    """Each player's chip-count share of :attr:`prizes` (whole chips, summing to them)."""


def kept_for_winner(prizes: Sequence[int], keep_percent: int) -> int:
    """R9.16: *keep_percent* of the prizes left, rounded down, and at most the first prize."""
    if not prizes:
        return 0
    return min(sum(prizes) * keep_percent // 100, prizes[0])


def deal_splits(stacks: Sequence[int], prizes: Sequence[int], keep_percent: int) -> DealSplits:
    """R9.16: the two splits a deal offers the players with *stacks* of the prizes left
    (*prizes*: place 1, 2, ... of the places still to be given; fewer than the players when
    some of them win nothing), after keeping *keep_percent* % of their sum (rounded down, at
    most the first prize) for the winner. Each split is whole chips and sums exactly to what
    is shared (:func:`whole_chips`: the floors, then the odd chips one at a time to the largest
    fractional parts, ties to the larger stack, then to the earlier player).

    >>> deal_splits([5_000, 3_000, 2_000], [500, 300, 200], 10)
    DealSplits(prizes=[400, 300, 200], kept=100, icm=[334, 297, 269], chip_count=[350, 290, 260])

    :raises IcmError: On bad inputs or more than :data:`MAX_ICM_PLAYERS` players.
    """
    shared, kept = deal_prizes(prizes, kept_for_winner(prizes, keep_percent))
    return DealSplits(shared, kept, icm_split(stacks, shared), chip_split(stacks, shared))
