"""Prizes (RULES.md R9.5, R9.9, R9.10): payout tables by field size, ties sharing prizes, and the
Spin multiplier table checked against a million seeded draws with a chi-square test.

The chi-square critical value is computed here with the standard library only: the
Wilson–Hilferty approximation (1931) of the chi-square quantile with k degrees of freedom,
``k * (1 - 2/(9k) + z * sqrt(2/(9k)))**3``, where ``z`` is the standard normal quantile
(``statistics.NormalDist().inv_cdf(1 - p)``, 3.0902 for p = 0.001). At p = 0.001 it is at most
2 % above the tabulated values for k >= 3 (1 % for k = 6, the test's; checked below against the
NIST/SEMATECH e-Handbook table 1.3.6.7.4), so the test rejects a correct table slightly less
often than one time in a thousand, never more.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from fractions import Fraction
from statistics import NormalDist

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.cards import seeded_random
from naiko.tournaments.prizes import (
    SIT_AND_GO_TABLE,
    SPIN_TABLE,
    PayoutRule,
    PrizeError,
    SpinPrize,
    SpinTable,
    TieGroup,
    draw_multiplier,
    payout_shape,
    payouts,
    places_paid,
    prize_pool,
    prizes_for,
    rank_eliminations,
    share_tied_prizes,
    spin_payouts,
    split_pool,
)

SNG, MTT, WTA = PayoutRule.SIT_AND_GO, PayoutRule.SCHEDULED, PayoutRule.WINNER_TAKES_ALL


def non_increasing(values: list[int]) -> bool:
    return all(a >= b for a, b in zip(values, values[1:], strict=False))


# -- R9.9 payout tables ---------------------------------------------------------------------------


def test_r9_9_sit_and_go_splits_worked_by_hand() -> None:
    assert payouts(200, 2, SNG) == [200]                   # heads-up: winner takes all
    assert payouts(300, 3, SNG) == [300]
    assert payouts(500, 5, SNG) == [500]
    assert payouts(600, 6, SNG) == [390, 210]              # 6-max: 65/35
    assert payouts(900, 9, SNG) == [450, 270, 180]         # 9-max: 50/30/20
    assert payouts(1000, 10, SNG) == [500, 300, 200]
    # 1003 chips: 501.5, 300.9, 200.6 -> 501, 300, 200 (1001); the 2 chips left go to 1st, 2nd.
    assert payouts(1003, 9, SNG) == [502, 301, 200]
    assert payouts(7, 6, SNG) == [5, 2]                    # 4.55 -> 4, 2.45 -> 2, +1 to 1st
    assert payouts(0, 9, SNG) == [0, 0, 0]
    assert [places_paid(n, SNG) for n in range(2, 11)] == [1, 1, 1, 1, 2, 2, 2, 3, 3]


def test_r9_9_winner_takes_all_and_small_scheduled_fields() -> None:
    assert payouts(12_345, 10_000, WTA) == [12_345]
    # Scheduled tournaments use the Sit & Go table up to 10 players, 50/30/20 up to 23.
    assert payouts(600, 6, MTT) == [390, 210]
    assert payouts(2_300, 23, MTT) == [1_150, 690, 460]
    assert places_paid(24, MTT) == 4


def test_r9_9_scheduled_pays_about_the_top_15_percent() -> None:
    for n in range(24, 10_001, 37):
        assert places_paid(n, MTT) == math.floor(0.15 * n + 0.5)
    assert places_paid(10_000, MTT) == 1_500 and places_paid(100_000, MTT) == 15_000


@pytest.mark.parametrize(("entrants", "first_low", "first_high"), [
    (100, 24, 27), (200, 21, 24), (500, 19, 21), (1_000, 18, 20), (10_000, 15, 17),
])
def test_r9_9_scheduled_shape_has_a_steep_top(entrants: int, first_low: float,
                                              first_high: float) -> None:
    prizes = payouts(100 * entrants, entrants, MTT)        # entry 100
    first = 100 * prizes[0] / sum(prizes)
    assert first_low <= first <= first_high
    assert prizes[1] < 0.65 * prizes[0]                    # 2nd ~ 58-60 % of 1st
    assert 150 <= prizes[-1] <= 260                        # min cash 1.5-2.6 entries


def test_r9_9_every_paid_place_of_a_scheduled_field_wins_more_than_its_entry() -> None:
    for n in list(range(2, 400)) + [999, 1_000, 4_321, 10_000]:
        assert payouts(1_000 * n, n, MTT)[-1] > 1_000


@settings(max_examples=300, deadline=None)
@given(pool=st.integers(0, 10**12), entrants=st.integers(2, 10_000),
       rule=st.sampled_from([SNG, MTT, WTA]))
def test_r9_9_payouts_sum_to_the_pool_and_never_increase(pool: int, entrants: int,
                                                         rule: PayoutRule) -> None:
    if rule is SNG and entrants > 10:
        rule = MTT
    prizes = payouts(pool, entrants, rule)
    assert sum(prizes) == pool
    assert non_increasing(prizes)
    assert len(prizes) == places_paid(entrants, rule) <= entrants
    assert all(p >= 0 for p in prizes)


def test_r9_9_payouts_sum_to_the_pool_for_every_small_field() -> None:
    for n in range(2, 601):
        for pool in (0, 1, n - 1, 7 * n + 3, 10**9 + 7):
            prizes = payouts(pool, n, MTT)
            assert sum(prizes) == pool and non_increasing(prizes)


def test_r9_9_remainder_chips_go_to_the_best_places() -> None:
    # 3 chips over 4 equal weights: 0 each, then one chip each to places 1, 2, 3.
    assert split_pool(3, (1, 1, 1, 1)) == [1, 1, 1, 0]
    # 1500 paid places, 1000 chips: most places get nothing, the top does.
    prizes = payouts(1_000, 10_000, MTT)
    assert sum(prizes) == 1_000 and prizes[0] > 100 and prizes[-1] == 0


def test_r9_9_pool_is_the_sum_of_entries_or_entry_times_multiplier() -> None:
    assert prize_pool(100, 9) == 900
    assert prize_pool(100, 3, multiplier=120) == 12_000
    assert prize_pool(100, 3, multiplier=1) == 100
    with pytest.raises(PrizeError):
        prize_pool(-1, 9)


@pytest.mark.parametrize(("call", "args"), [
    (payouts, (100, 1, MTT)),                  # too small a field
    (payouts, (100, 100_001, MTT)),            # too large
    (payouts, (100, 11, SNG)),                 # the Sit & Go table stops at 10
    (payouts, (100, 3, PayoutRule.SPIN)),      # a Spin's split comes with its multiplier
    (payouts, (-1, 9, SNG)),
    (payouts, (10.0, 9, SNG)),
    (split_pool, (10, ())),
    (split_pool, (10, (30, 70))),              # increasing
    (split_pool, (10, (0, 0))),
    (split_pool, (10, (5, -1))),
])
def test_r9_9_impossible_splits_are_rejected(call: object, args: tuple[object, ...]) -> None:
    with pytest.raises(PrizeError) as info:
        call(*args)  # type: ignore[operator]
    assert info.value.code == "invalid_prizes" and isinstance(info.value, ValueError)


def test_r9_9_the_sit_and_go_table_covers_2_to_10_without_gaps() -> None:
    covered = [n for fewest, most, _ in SIT_AND_GO_TABLE for n in range(fewest, most + 1)]
    assert covered == list(range(2, 11))
    assert all(sum(split) == 100 for _, _, split in SIT_AND_GO_TABLE)
    assert payout_shape(9, SNG) == (50, 30, 20)


# -- R9.5 eliminations and ties -------------------------------------------------------------------


def test_r9_5_same_hand_eliminations_ranked_by_starting_stack() -> None:
    # 9 players left; three bust in one hand with 500, 300 and 300 at its start: the 500 takes
    # 7th, the two 300s tie for 8th (places 8 and 9).
    groups = rank_eliminations([("ann", 300), ("bob", 500), ("cy", 300)], players_before=9)
    assert groups == [TieGroup(7, ("bob",)), TieGroup(8, ("ann", "cy"))]
    assert groups[1].places == range(8, 10)
    assert rank_eliminations([("ann", 10)], 2) == [TieGroup(2, ("ann",))]
    assert rank_eliminations([("a", 1), ("b", 2), ("c", 3)], 6) == [
        TieGroup(4, ("c",)), TieGroup(5, ("b",)), TieGroup(6, ("a",))]


def test_r9_5_two_tied_players_share_two_prizes_with_an_odd_chip() -> None:
    # Prizes 500 and 301 shared by two: 801 / 2 = 400 rest 1, the better place takes the chip.
    assert share_tied_prizes([500, 301], [(1, 2)]) == [401, 400]
    assert share_tied_prizes([1000, 500, 301, 100], [range(2, 4)]) == [1000, 401, 400, 100]
    # Three tie for 2nd-4th of 1000/300/200/102: 602 / 3 = 200 rest 2 -> 201, 201, 200.
    assert share_tied_prizes([1000, 300, 200, 102], [[2, 3, 4]]) == [1000, 201, 201, 200]
    # On the bubble: 3rd and 4th share the 3rd prize and nothing.
    assert share_tied_prizes([500, 300, 201], [range(3, 5)]) == [500, 300, 101, 100]
    # Outside the prizes a tie shares nothing.
    assert share_tied_prizes([500, 300], [range(5, 7)]) == [500, 300, 0, 0, 0, 0]


def test_r9_5_prizes_for_players_give_the_odd_chip_to_the_first_listed() -> None:
    prizes = payouts(801, 6, SNG)                          # 520.65 -> 521, 280.35 -> 280
    assert prizes == [521, 280]
    groups = rank_eliminations([("cy", 40), ("ann", 40)], players_before=3)
    assert prizes_for(groups, [500, 301, 0]) == {"cy": 151, "ann": 150}
    heads_up = rank_eliminations([("ann", 40), ("cy", 40)], players_before=3)
    assert prizes_for(heads_up, prizes) == {"ann": 140, "cy": 140}


@pytest.mark.parametrize(("stacks", "before"), [
    ([], 5),                           # nobody eliminated
    ([("a", 10), ("b", 10)], 2),       # nobody left to win
    ([("a", 10), ("a", 20)], 5),       # a player twice
    ([("a", 0)], 5),                   # stacks at the start of the hand are positive
])
def test_r9_5_impossible_eliminations_are_rejected(stacks: list[tuple[str, int]],
                                                   before: int) -> None:
    with pytest.raises(PrizeError):
        rank_eliminations(stacks, before)


@pytest.mark.parametrize("groups", [[()], [(2, 4)], [(0, 1)], [(1, 2), (2, 3)]])
def test_r9_5_ties_are_consecutive_disjoint_places(groups: list[tuple[int, ...]]) -> None:
    with pytest.raises(PrizeError):
        share_tied_prizes([10, 5, 1], groups)


@settings(max_examples=200, deadline=None)
@given(pool=st.integers(0, 10**7), entrants=st.integers(2, 200),
       cuts=st.lists(st.integers(1, 40), min_size=1, max_size=8))
def test_r9_5_sharing_keeps_the_total_and_the_order(pool: int, entrants: int,
                                                    cuts: list[int]) -> None:
    prizes = payouts(pool, entrants, MTT)
    groups, place = [], 1
    for size in cuts:  # consecutive groups, every other one a tie
        groups.append(range(place, place + size))
        place += size + 1
    shared = share_tied_prizes(prizes, groups)
    assert sum(shared) == pool and non_increasing(shared)
    for group in groups:
        values = [shared[p - 1] for p in group]
        assert max(values) - min(values) <= 1 and non_increasing(values)


# -- R9.10 the Spin multiplier --------------------------------------------------------------------

DRAWS = 1_000_000
P_VALUE = 0.001


def chi_square_critical(df: int, p: float = P_VALUE) -> float:
    """Wilson–Hilferty: the chi-square value exceeded with probability *p*."""
    z = NormalDist().inv_cdf(1 - p)
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3


def chi_square(table: SpinTable, counts: Counter[int], draws: int) -> tuple[float, int]:
    """Pearson's statistic of *counts* (by multiplier) against *table*'s published odds, rows
    with an expected count under 5 grouped, rarest first, with the next rarest; and its degrees
    of freedom."""
    rows = sorted(table.prizes, key=lambda p: p.weight)
    groups: list[tuple[float, int]] = []
    expected, observed = 0.0, 0
    for row in rows:
        expected += draws * row.weight / table.total_weight
        observed += counts[row.multiplier]
        if expected >= 5:
            groups.append((expected, observed))
            expected, observed = 0.0, 0
    if observed or expected:  # a rare tail left over joins the last group
        last_e, last_o = groups.pop()
        groups.append((last_e + expected, last_o + observed))
    statistic = sum((o - e) ** 2 / e for e, o in groups)
    return statistic, len(groups) - 1


def draw_counts(table: SpinTable, seed: int) -> Counter[int]:
    rng = random.Random(seed)
    return Counter(draw_multiplier(table, rng).multiplier for _ in range(DRAWS))


def test_r9_10_wilson_hilferty_matches_the_chi_square_table() -> None:
    tabulated = {3: 16.266, 5: 20.515, 6: 22.458, 7: 24.322, 10: 29.588, 20: 45.315}
    for df, value in tabulated.items():
        assert value <= chi_square_critical(df) <= 1.02 * value


def test_r9_10_a_million_seeded_draws_fit_the_published_table() -> None:
    counts = draw_counts(SPIN_TABLE, seed=20_240_910)
    statistic, df = chi_square(SPIN_TABLE, counts, DRAWS)
    critical = chi_square_critical(df)
    print(f"\nchi-square {statistic:.2f} with {df} degrees of freedom; "
          f"critical value at p={P_VALUE}: {critical:.2f}; counts {sorted(counts.items())}")
    assert df == 6  # 2, 3, 5, 10, 25, 120 and (240 + 12,000) grouped
    assert statistic < critical


def test_r9_10_a_table_with_one_percent_moved_from_2x_to_10x_fails_the_test() -> None:
    rows = {p.multiplier: p for p in SPIN_TABLE.prizes}
    moved = DRAWS // 100
    mutated = SpinTable(tuple(
        dataclasses.replace(p, weight=p.weight - moved) if p.multiplier == 2
        else dataclasses.replace(p, weight=p.weight + moved) if p.multiplier == 10 else p
        for p in SPIN_TABLE.prizes))
    assert mutated.total_weight == SPIN_TABLE.total_weight and rows[10].weight + moved == 30_000
    counts = draw_counts(mutated, seed=20_240_910)
    statistic, df = chi_square(SPIN_TABLE, counts, DRAWS)
    print(f"\nmutated table: chi-square {statistic:.2f} with {df} degrees of freedom, "
          f"critical {chi_square_critical(df):.2f}")
    assert statistic > chi_square_critical(df)


def test_r9_10_expected_prize_per_entry_is_published_and_below_three_entries() -> None:
    table = SPIN_TABLE
    ev = table.expected_pool_per_entry
    # (2*535,989 + 3*373,000 + 5*70,000 + 10*20,000 + 25*900 + 120*100 + 240*10 + 12,000*1)
    #   / 1,000,000 = 2,789,878 / 1,000,000
    assert ev == Fraction(2_789_878, 1_000_000) and ev <= 3
    assert table.return_to_player == Fraction(2_789_878, 3_000_000)
    print(f"\nSpin expected pool per entry: {ev} = {float(ev):.6f} entries; "
          f"expected prize per entry paid: {float(table.return_to_player):.4%}; "
          f"house edge {float(1 - table.return_to_player):.4%}")
    assert table.total_weight == 1_000_000
    assert sum(table.probability(p) for p in table.prizes) == 1
    assert table.probability(table.prizes[0]) == Fraction(535_989, 1_000_000)
    assert max(table.prizes, key=lambda p: p.weight).multiplier == 2
    assert table.probability(table.prizes[-1]) == Fraction(1, 1_000_000)


def test_r9_10_small_multipliers_winner_takes_all_large_ones_top_three_share() -> None:
    for prize in SPIN_TABLE.prizes:
        assert prize.split == ((100,) if prize.multiplier <= 10 else prize.split)
        if prize.multiplier >= 25:
            assert len(prize.split) == 3
    assert spin_payouts(100, SPIN_TABLE.prizes[0]) == [200]
    assert spin_payouts(100, SpinPrize(25, 900, (80, 12, 8))) == [2_000, 300, 200]
    # 12,000x of 7 chips: 84,000 -> 67,200 / 8,400 / 8,400.
    assert spin_payouts(7, SPIN_TABLE.prizes[-1]) == [67_200, 8_400, 8_400]
    # 25x of 3 chips: 75 -> 60, 9, 6.
    assert spin_payouts(3, SpinPrize(25, 1, (80, 12, 8))) == [60, 9, 6]


class ScriptedRandom:
    """A random source returning set values, recording what it was asked."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.calls: list[tuple[int, ...]] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        self.calls.append((start,) if stop is None else (start, stop))
        return self.values.pop(0)


def test_r9_10_draw_maps_each_of_the_million_outcomes_to_its_row() -> None:
    # Outcomes 0..535,988 are 2x, 535,989..908,988 3x, ..., the very last one 12,000x.
    rng = ScriptedRandom(0, 535_988, 535_989, 908_988, 908_989, 999_998, 999_999)
    got = [draw_multiplier(SPIN_TABLE, rng).multiplier for _ in range(7)]
    assert got == [2, 2, 3, 3, 5, 240, 12_000]
    assert rng.calls == [(1_000_000,)] * 7


def test_r9_10_draws_are_repeatable_with_a_seed() -> None:
    a = [draw_multiplier(SPIN_TABLE, seeded_random(7)).multiplier for _ in range(3)]
    b = [draw_multiplier(SPIN_TABLE, seeded_random(7)).multiplier for _ in range(3)]
    assert a == b


@pytest.mark.parametrize("rows", [
    (),
    (SpinPrize(2, 1, (100,)), SpinPrize(2, 1, (100,))),            # multipliers must increase
    (SpinPrize(4, 1, (100,)),),                                    # expected pool 4 entries
    (SpinPrize(2, 996, (100,)), SpinPrize(1000, 1, (100,))),       # 2992/997 = 3.001 entries
])
def test_r9_10_tables_are_checked(rows: tuple[SpinPrize, ...]) -> None:
    with pytest.raises(PrizeError):
        SpinTable(rows)


def test_r9_9_a_table_at_exactly_three_entries_is_allowed() -> None:
    # (2 * 997 + 1000 * 1) / 998 = 3 entries exactly: no house edge, still within R9.9.
    assert SpinTable((SpinPrize(2, 997, (100,)), SpinPrize(1000, 1, (100,))),
                     ).expected_pool_per_entry == 3


@pytest.mark.parametrize("args", [
    (0, 1, (100,)), (2, 0, (100,)), (2, 1, (60, 30)), (2, 1, (30, 70)),
    (2, 1, (25, 25, 25, 25)), (2, 1, (100, 0)),
])
def test_r9_10_rows_are_checked(args: tuple[int, int, tuple[int, ...]]) -> None:
    with pytest.raises(PrizeError):
        SpinPrize(*args)


def test_r9_10_the_table_round_trips() -> None:
    assert SpinTable.from_dict(SPIN_TABLE.to_dict()) == SPIN_TABLE
    assert SPIN_TABLE.to_dict()["prizes"][-1] == {"multiplier": 12_000, "weight": 1,
                                                  "split": [80, 10, 10]}
