"""R9.16 deals, the pure part: the splits a deal offers (:func:`naiko.tournaments.icm.deal_splits`):
ICM exact (Malmuth–Harville) against a brute force over every finishing order, chip count,
whole chips summing exactly to what is shared, the part kept for the winner; and the terms."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.tournaments.icm import (
    MAX_ICM_PLAYERS,
    IcmError,
    chip_split,
    deal_splits,
    icm_equities,
    kept_for_winner,
)
from naiko.tournaments.structures import DealTerms, InvalidTerms, TournamentTerms, from_preset


def brute_force_icm(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    """Every order of the top ``len(prizes)`` places, each with its Malmuth–Harville
    probability (a player takes the next place with probability stack / chips left)."""
    total = sum(stacks)
    equity = [Fraction(0)] * len(stacks)
    for order in permutations(range(len(stacks)), len(prizes)):
        chance, left = Fraction(1), total
        for i in order:
            chance *= Fraction(stacks[i], left)
            left -= stacks[i]
        for place, i in enumerate(order):
            equity[i] += chance * prizes[place]
    return equity


def test_r9_16_icm_is_exact_for_nine_players_against_brute_force() -> None:
    stacks = [9_100, 7_300, 5_550, 4_000, 3_200, 2_750, 1_900, 1_200, 400]
    prizes = [4_000, 2_500, 1_700, 1_200, 900]  # 5 places: 9*8*7*6*5 orders
    assert len(stacks) == MAX_ICM_PLAYERS
    assert icm_equities(stacks, prizes) == brute_force_icm(stacks, prizes)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 50_000), min_size=2, max_size=6), st.data())
def test_r9_16_property_icm_equals_brute_force_and_splits_sum_exactly(
        stacks: list[int], data: st.DataObject) -> None:
    places = data.draw(st.integers(1, len(stacks)))
    prizes = sorted(data.draw(st.lists(st.integers(0, 10_000), min_size=places,
                                       max_size=places)), reverse=True)
    keep = data.draw(st.integers(0, 50))
    exact = icm_equities(stacks, prizes)
    assert exact == brute_force_icm(stacks, prizes)
    assert sum(exact) == sum(prizes)
    offer = deal_splits(stacks, prizes, keep)
    assert offer.kept == kept_for_winner(prizes, keep) <= prizes[0]
    assert sum(offer.prizes) + offer.kept == sum(prizes)
    for split in (offer.icm, offer.chip_count):
        assert sum(split) == sum(offer.prizes)  # every chip shared, none made
        assert all(amount >= 0 for amount in split)
    # whole chips: each amount is its exact share rounded down or up (the odd chips)
    shares = icm_equities(stacks, offer.prizes)
    assert all(int(s) <= a <= int(s) + 1 for s, a in zip(shares, offer.icm, strict=True))


def test_r9_16_chip_count_and_icm_splits_worked_by_hand() -> None:
    # 3 players, 1,000 left (500/300/200), 10 % kept for the winner: 100 of the first prize.
    offer = deal_splits([5_000, 3_000, 2_000], [500, 300, 200], 10)
    assert offer.prizes == [400, 300, 200] and offer.kept == 100
    # chip count: everybody is sure of 200; the 300 above that goes 50 / 30 / 20 %
    assert offer.chip_count == [350, 290, 260]
    # ICM: 333.9.., 297.1.., 268.9.. (exact fractions) -> floors 333/297/268, 2 odd chips
    # to the largest fractional parts (the 1st and the 3rd player)
    shares = icm_equities([5_000, 3_000, 2_000], [400, 300, 200])
    assert [int(s) for s in shares] == [333, 297, 268]
    assert offer.icm == [334, 297, 269]
    assert sum(offer.icm) == 900


def test_r9_16_odd_chips_go_to_the_larger_stack_on_equal_fractions() -> None:
    assert chip_split([100, 100, 200], [101, 0, 0]) == [25, 25, 51]  # 25.25 / 25.25 / 50.5
    assert chip_split([1, 3], [2]) == [0, 2]  # 0.5 / 1.5: equal fractions, the larger stack
    assert chip_split([200, 100, 100], [2, 1, 1]) == [2, 1, 1]
    assert chip_split([1, 1, 1], [2, 0, 0]) == [1, 1, 0]  # ties: the earlier players


def test_r9_16_fewer_prizes_than_players_and_nothing_kept() -> None:
    offer = deal_splits([600, 300, 100], [700, 300], 0)
    assert offer.kept == 0 and offer.prizes == [700, 300]
    assert sum(offer.icm) == sum(offer.chip_count) == 1_000
    assert offer.chip_count == [600, 300, 100]  # nobody is sure of anything: proportional


def test_r9_16_the_kept_part_is_at_most_the_first_prize() -> None:
    assert kept_for_winner([100, 100], 50) == 100
    assert kept_for_winner([60, 40], 50) == 50
    assert kept_for_winner([], 10) == 0


def test_r9_16_icm_refuses_more_than_nine_players() -> None:
    with pytest.raises(IcmError, match="up to 9"):
        deal_splits([100] * 10, [500, 300, 200], 0)


def test_r9_16_deal_terms_are_published_and_checked() -> None:
    terms = replace(from_preset("sng_6max_turbo", 100), deals=DealTerms(3, 10, 60))
    assert terms.to_dict()["deals"] == {"max_players": 3, "keep_percent": 10, "clock_s": 60}
    assert TournamentTerms.from_dict(terms.to_dict()) == terms
    assert "deals" not in from_preset("sng_6max_turbo", 100).to_dict()
    for bad in [(1, 0, 60), (10, 0, 60), (3, 51, 60), (3, 0, 5), (3, 0, 301)]:
        with pytest.raises(InvalidTerms):
            DealTerms(*bad)
    with pytest.raises(InvalidTerms, match="Spin"):
        replace(from_preset("spin_3max_hyper", 10), deals=DealTerms(3))
    with pytest.raises(InvalidTerms, match="seats"):
        replace(from_preset("sng_headsup_hyper", 10), deals=DealTerms(3))
