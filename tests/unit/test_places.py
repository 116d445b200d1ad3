"""Places derived from the records eliminations leave (R9.5, R9.8, R9.12):
:func:`naiko.tournaments.places.derive_places`, against the hand-by-hand ranking a counted
field gives (:func:`naiko.tournaments.prizes.rank_eliminations`, one group after the other)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.tournaments.places import OutRecord, derive_places, out_key
from naiko.tournaments.prizes import PrizeError, TieGroup, rank_eliminations

# A field's eliminations: groups (a hand, or a hand-for-hand round) of starting stacks, small
# stacks so that ties are common.
groups_strategy = st.lists(st.lists(st.integers(1, 4), min_size=1, max_size=4),
                           min_size=1, max_size=12)


def counted(groups: list[list[str]], stacks: dict[str, int], players: int) -> dict[str, int]:
    """What counting the field at each elimination gives: each group ranked with the players
    left before it (the hand-by-hand way the field item places them)."""
    places: dict[str, int] = {}
    left = players
    for group in groups:
        for tie in rank_eliminations([(p, stacks[p]) for p in group], left):
            places.update(dict.fromkeys(tie.player_ids, tie.place))
        left -= len(group)
    return places


def field(data: list[list[int]], extra: int) -> tuple[list[list[str]], dict[str, int], int]:
    groups = [[f"p{g}-{k}" for k in range(len(stacks))] for g, stacks in enumerate(data)]
    stacks = {f"p{g}-{k}": s for g, group in enumerate(data) for k, s in enumerate(group)}
    return groups, stacks, sum(map(len, groups)) + extra


def as_places(groups: list[TieGroup]) -> dict[str, int]:
    return {pid: g.place for g in groups for pid in g.player_ids}


@settings(max_examples=200, deadline=None)
@given(groups_strategy, st.integers(1, 3), st.randoms(use_true_random=False))
def test_r9_5_places_derived_in_time_order_equal_the_counted_places(
        data: list[list[int]], extra: int, rng: random.Random) -> None:
    """Every group at its own table and time (no ``left``): the derived places are those a
    count of the field gives, group after group, ties included; the records' order does not
    matter."""
    groups, stacks, players = field(data, extra)
    outs = [OutRecord(p, stacks[p], 1_000 * (g + 1), f"t-{g % 3}", g, None)
            for g, group in enumerate(groups) for p in group]
    rng.shuffle(outs)
    assert as_places(derive_places(outs, players)) == counted(groups, stacks, players)


@settings(max_examples=200, deadline=None)
@given(groups_strategy, st.integers(1, 3), st.randoms(use_true_random=False))
def test_r9_5_the_field_count_places_groups_whose_writes_committed_out_of_time_order(
        data: list[list[int]], extra: int, rng: random.Random) -> None:
    """With ``left`` (the field item's count before each group), each group is placed as the
    count placed it even when the hands' times disagree with the order the writes committed
    in (two tables' writes, the later hand committing first)."""
    groups, stacks, players = field(data, extra)
    times = [rng.randrange(10_000) for _ in groups]
    outs, left = [], players
    for g, group in enumerate(groups):
        outs += [OutRecord(p, stacks[p], times[g], f"t-{g}", 7, None, left) for p in group]
        left -= len(group)
    rng.shuffle(outs)
    assert as_places(derive_places(outs, players)) == counted(groups, stacks, players)


@settings(max_examples=100, deadline=None)
@given(groups_strategy, st.integers(1, 3))
def test_r9_5_derived_places_fill_every_place_below_the_winner_once(
        data: list[list[int]], extra: int) -> None:
    """The groups occupy consecutive places from the last up: a tie of k players at place q
    takes q..q+k-1; nobody is placed twice; no place 1 while a player is left."""
    groups, stacks, players = field(data, extra)
    outs = [OutRecord(p, stacks[p], g, "t", g) for g, group in enumerate(groups) for p in group]
    ranked = derive_places(outs, players)
    occupied = [place for g in ranked for place in g.places]
    assert occupied == list(range(players - len(outs) + 1, players + 1))
    assert len({pid for g in ranked for pid in g.player_ids}) == len(outs)


def test_r9_8_a_hand_for_hand_rounds_players_at_different_tables_rank_together() -> None:
    """R9.8 (the Decision): one round, two tables, different hands: one group, ranked by the
    stacks at the start of the round's hand; equal stacks at different tables tie. The hand
    before the round, at one table, is a group of its own."""
    outs = [OutRecord("a", 900, 50, "t-1", 8),  # before hand-for-hand: 10th of 10
            OutRecord("x", 900, 90, "t-1", 9, round=1),
            OutRecord("y", 1_500, 90, "t-2", 14, round=1),
            OutRecord("z", 900, 90, "t-2", 14, round=1)]
    assert as_places(derive_places(outs, players=10)) == {"a": 10, "y": 7, "x": 8, "z": 8}
    # the same players out in their own hands (no round): three groups, in time order
    apart = [OutRecord("x", 900, 60, "t-1", 9), OutRecord("y", 1_500, 70, "t-2", 14),
             OutRecord("z", 900, 80, "t-2", 15)]
    assert as_places(derive_places(apart, players=10)) == {"x": 10, "y": 9, "z": 8}


def test_r9_12_a_player_who_reentered_is_placed_once_by_the_last_record() -> None:
    outs = [OutRecord("r", 500, 10, "t-1", 2), OutRecord("b", 300, 20, "t-2", 3),
            OutRecord("r", 700, 30, "t-1", 5)]
    assert as_places(derive_places(outs, players=4)) == {"b": 4, "r": 3}


def test_r9_5_r9_11_sharded_groups_take_the_places_the_counted_ones_leave() -> None:
    """Issue 23: late registration's players out (counted when it closed: ``left``) hold the
    bottom places, the players out on the field's shards (no ``left``) the next ones in time
    order, and those out from the serial zone on (``left`` again) the top ones, wherever
    their times fall."""
    outs = [OutRecord("late", 100, 5, "t-1", 1, left=8),
            OutRecord("s1", 100, 10, "t-2", 3), OutRecord("s2", 300, 20, "t-1", 4),
            OutRecord("s3", 300, 20, "t-1", 4),
            OutRecord("top", 100, 15, "t-3", 9, left=4)]  # a time before s2: still above
    assert as_places(derive_places(outs, players=8)) == {
        "late": 8, "s1": 7, "s2": 5, "s3": 5, "top": 4}


def test_r9_5_the_records_of_one_group_that_disagree_on_the_count_are_refused() -> None:
    outs = [OutRecord("a", 1, 1, "t", 1, left=5), OutRecord("b", 1, 1, "t", 1)]
    with pytest.raises(PrizeError):
        derive_places(outs, players=5)


def test_out_items_sort_in_time_order_and_read_back() -> None:
    early = OutRecord("zed", 5, 999, "t-9", 3, 2, 40)
    late = OutRecord("amy", 5, 1_000, "t-1", 1)
    assert out_key(early) < out_key(late)
    assert OutRecord.from_dict(early.to_dict()) == early
