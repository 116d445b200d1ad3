"""The splits of a deal (R9.16) and a director's cancellation (R9.15): ICM (Malmuth–Harville),
chip-count and equal chop, against values worked out by hand and against every finishing order
enumerated directly; their properties: each sums to the prizes, a larger stack never gets less,
equal stacks get the same exact equity (within one chip once in whole chips)."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.tournaments.icm import (
    MAX_ICM_PLAYERS,
    IcmError,
    SplitPolicy,
    chip_split,
    deal_prizes,
    equal_split,
    icm_equities,
    icm_split,
    split,
)


def by_every_order(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    """Malmuth–Harville written out: the probability of each finishing order is the product,
    place by place, of the next player's stack over the chips of those not placed yet."""
    equity = [Fraction(0)] * len(stacks)
    for order in permutations(range(len(stacks))):
        chance, left = Fraction(1), sum(stacks)
        for i in order:
            chance *= Fraction(stacks[i], left)
            left -= stacks[i]
        for place, i in enumerate(order):
            if place < len(prizes):
                equity[i] += chance * prizes[place]
    return equity


def test_r9_16_icm_three_players_by_hand() -> None:
    """Stacks 5,000 / 3,000 / 2,000 for 500 / 300 / 200. First: 1/2, 3/10, 1/5. Second for the
    5,000: B first then A (3/10 * 5/7) + C first then A (1/5 * 5/8) = 19/56, third 9/56:
    500/2 + 300 * 19/56 + 200 * 9/56 = 5375/14. The 3,000: second 1/2 * 3/5 + 1/5 * 3/8 = 3/8,
    third 13/40: 150 + 112.5 + 65 = 655/2. The 2,000: the rest, 2020/7."""
    assert icm_equities([5_000, 3_000, 2_000], [500, 300, 200]) == [
        Fraction(5375, 14),
        Fraction(655, 2),
        Fraction(2020, 7),
    ]
    # 383.93, 327.5, 288.57: floors 998, the two chips left to .93 and .57
    assert icm_split([5_000, 3_000, 2_000], [500, 300, 200]) == [384, 327, 289]


def test_r9_16_icm_heads_up_by_hand() -> None:
    """Heads-up, ICM is the chip share of what the two places differ by: 3,000 v 1,000 for
    70 / 30: 3/4 * 70 + 1/4 * 30 = 60, and 40."""
    assert icm_equities([3_000, 1_000], [70, 30]) == [Fraction(60), Fraction(40)]
    assert icm_split([3_000, 1_000], [70, 30]) == [60, 40]


def test_r9_16_icm_one_prize_is_the_chip_share() -> None:
    """Winner takes all: ICM is exactly the chance to win, the stack's share."""
    assert icm_equities([1, 2, 3, 4], [1000]) == [Fraction(100 * k) for k in (1, 2, 3, 4)]


def test_r9_16_chip_and_equal_by_hand() -> None:
    """Chip chop: everybody is sure of 200 (the smallest prize left), the 400 above it goes
    5:3:2; equal chop: 1000 / 3, the odd chip to the largest stack."""
    assert chip_split([5_000, 3_000, 2_000], [500, 300, 200]) == [400, 320, 280]
    assert equal_split([5_000, 3_000, 2_000], [500, 300, 200]) == [334, 333, 333]
    # fewer prizes than players: nobody is sure of anything
    assert chip_split([1, 1, 2], [100]) == [25, 25, 50]
    assert split(SplitPolicy.ICM, [3_000, 1_000], [70, 30]) == [60, 40]
    assert split(SplitPolicy.CHIP_COUNT, [3_000, 1_000], [70, 30]) == [60, 40]
    assert split(SplitPolicy.EQUAL, [3_000, 1_000], [70, 30]) == [50, 50]


def test_r9_16_a_part_kept_for_the_winner() -> None:
    assert deal_prizes([500, 300, 200], 100) == ([400, 300, 200], 100)
    assert deal_prizes([500, 300], 900) == ([0, 300], 500)  # at most the first prize
    assert deal_prizes([], 100) == ([], 0)


def test_r9_16_icm_refuses_what_it_cannot_split() -> None:
    with pytest.raises(IcmError):
        icm_split([], [])
    with pytest.raises(IcmError):
        icm_split([100, 0], [10])
    with pytest.raises(IcmError):
        icm_split([100], [10, 5])
    with pytest.raises(IcmError):
        icm_split([1] * (MAX_ICM_PLAYERS + 1), [10])
    with pytest.raises(IcmError):
        chip_split([1, 2], [-1])


stacks_st = st.lists(st.integers(1, 50_000), min_size=1, max_size=MAX_ICM_PLAYERS)


@st.composite
def tables(draw: st.DrawFn, max_players: int = MAX_ICM_PLAYERS) -> tuple[list[int], list[int]]:
    stacks = draw(st.lists(st.integers(1, 50_000), min_size=1, max_size=max_players))
    prizes = sorted(
        draw(st.lists(st.integers(0, 100_000), min_size=1, max_size=len(stacks))), reverse=True
    )
    return stacks, prizes


@settings(max_examples=60, deadline=None)
@given(tables(max_players=6))
def test_r9_16_icm_is_malmuth_harville_over_every_order(
    table: tuple[list[int], list[int]],
) -> None:
    stacks, prizes = table
    assert icm_equities(stacks, prizes) == by_every_order(stacks, prizes)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_r9_16_splits_sum_to_the_prizes_and_follow_the_stacks(
    table: tuple[list[int], list[int]],
) -> None:
    stacks, prizes = table
    exact = icm_equities(stacks, prizes)
    assert sum(exact) == sum(prizes)
    for policy in SplitPolicy:
        shares = split(policy, stacks, prizes)
        assert sum(shares) == sum(prizes), policy
        assert all(share >= 0 for share in shares)
        for i, j in permutations(range(len(stacks)), 2):
            if stacks[i] > stacks[j]:
                assert shares[i] >= shares[j], (policy, stacks, prizes, shares)
            if stacks[i] == stacks[j]:
                assert abs(shares[i] - shares[j]) <= 1, (policy, shares)
                if policy is SplitPolicy.ICM:
                    assert exact[i] == exact[j]
    # ICM pays nobody more than the first prize nor less than the last one left
    icm = icm_split(stacks, prizes)
    last = prizes[-1] if len(prizes) == len(stacks) else 0
    assert all(last <= share <= prizes[0] for share in icm)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, MAX_ICM_PLAYERS), st.integers(1, 10_000))
def test_r9_16_equal_stacks_equal_equity(players: int, stack: int) -> None:
    prizes = list(range(1000, 1000 - 100 * players, -100))
    exact = icm_equities([stack] * players, prizes)
    assert len(set(exact)) == 1
    assert exact[0] == Fraction(sum(prizes), players)
