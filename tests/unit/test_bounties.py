"""Knockout bounties (R9.13) as the pure rule :mod:`naiko.tournaments.bounties` states them:
the pot that eliminated a player is their all-in's (the last pot they were eligible for); its
winners share the bounty as they share that pot (R4.5, the odd chip from the first clockwise of
the button); progressive knockout pays half at once and adds half to the winner's bounty. Every
bounty is awarded whole, once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naiko.pots import build_pots, split_pot
from naiko.tournaments.bounties import (
    BountyError,
    bounties_after,
    eliminating_pot,
    knockouts,
)

SEATS = ["ann", "bob", "cy", "dee", "eve", "fay"]


def test_r9_13_the_eliminating_pot_is_the_last_one_the_player_was_eligible_for() -> None:
    # ann all-in for 100, bob for 300, cy and dee cover: main pot (all four), side pot (bob,
    # cy, dee), second side pot (cy, dee)
    pots = build_pots([100, 300, 500, 500], [0, 0, 0, 0], [True] * 4)
    awards = [{"amount": p.amount, "eligible": list(p.eligible),
               "winners": {"2": p.amount}} for p in pots]
    assert eliminating_pot(awards, 0) is awards[0]
    assert eliminating_pot(awards, 1) is awards[1]
    with pytest.raises(BountyError):
        eliminating_pot(awards, 5)


def test_r9_13_a_bounty_goes_to_the_winner_of_the_pot_that_eliminated_its_player() -> None:
    # ann (100) loses the main pot to bob; bob's side pot is won by cy: ann's bounty is bob's
    awards = [{"amount": 400, "eligible": [0, 1, 2, 3], "winners": {"1": 400}},
              {"amount": 600, "eligible": [1, 2, 3], "winners": {"2": 600}}]
    (k,) = knockouts(awards, SEATS[:4], [0], {"ann": 50}, progressive=False, button=3)
    assert k.paid == {"bob": 50} and k.added == {}


def test_r9_13_a_split_pot_splits_the_bounty_with_the_odd_chip_left_of_the_button() -> None:
    awards = [{"amount": 300, "eligible": [0, 1, 2, 3], "winners": {"1": 100, "2": 100,
                                                                     "3": 100}}]
    (k,) = knockouts(awards, SEATS[:4], [0], {"ann": 101}, progressive=False, button=2)
    assert k.paid == {"dee": 34, "bob": 34, "cy": 33}  # from seat 3, left of the button (2)


def test_r9_13_progressive_pays_half_and_adds_half_to_the_winners_bounty() -> None:
    awards = [{"amount": 200, "eligible": [0, 1], "winners": {"1": 200}}]
    (k,) = knockouts(awards, SEATS[:2], [0], {"ann": 25, "bob": 25}, progressive=True,
                     button=0)
    assert k.paid == {"bob": 13} and k.added == {"bob": 12}
    assert bounties_after({"ann": 25, "bob": 25}, [k]) == {"bob": 37}


def test_r9_13_no_winner_besides_the_eliminated_player_is_refused() -> None:
    awards = [{"amount": 200, "eligible": [0, 1], "winners": {"0": 200}}]
    with pytest.raises(BountyError):
        knockouts(awards, SEATS[:2], [0], {"ann": 25}, progressive=False, button=0)


@given(stacks=st.lists(st.integers(1, 1_000), min_size=2, max_size=6),
       strengths=st.lists(st.integers(0, 3), min_size=6, max_size=6),
       bounty=st.integers(0, 10_000), progressive=st.booleans(), button=st.integers(0, 5))
def test_r9_13_property_every_bounty_is_awarded_whole_like_its_pot(
        stacks: list[int], strengths: list[int], bounty: int, progressive: bool,
        button: int) -> None:
    """Everyone all in: each pot to its best eligible hands (split like the engine), every
    player left without chips eliminated; each bounty goes whole (paid + added) to the winners
    of that player's last pot, in the shares split_pot gives the bounty."""
    n = len(stacks)
    button %= n
    pots = build_pots(list(stacks), [0] * n, [True] * n)
    won = [0] * n
    awards = []
    for pot in pots:
        best = max(strengths[s] for s in pot.eligible)
        winners = [s for s in pot.eligible if strengths[s] == best]
        shares = split_pot(pot.amount, winners, n, button)
        for s, a in shares.items():
            won[s] += a
        awards.append({"amount": pot.amount, "eligible": list(pot.eligible),
                       "winners": {str(s): a for s, a in shares.items()}})
    assert sum(won) == sum(stacks)  # chips conserved
    out = [s for s in range(n) if won[s] == 0]
    seats = SEATS[:n]
    bounties = {p: bounty for p in seats}
    done = knockouts(awards, seats, out, bounties, progressive=progressive, button=button)
    assert [k.eliminated for k in done] == [seats[s] for s in out]
    for k, seat in zip(done, out, strict=True):
        assert sum(k.paid.values()) + sum(k.added.values()) == k.bounty == bounty
        pot = eliminating_pot(awards, seat)
        winners = [int(s) for s in pot["winners"]]
        expected = split_pot(bounty, winners, n, button)
        got = {s: k.paid.get(seats[s], 0) + k.added.get(seats[s], 0) for s in winners}
        assert got == expected
        if progressive:
            for name, paid in k.paid.items():
                assert 0 <= paid - k.added[name] <= 1
    after = bounties_after(bounties, done)
    assert sum(after.values()) == bounty * n - sum(sum(k.paid.values()) for k in done)


@pytest.mark.parametrize(("button", "odd_to"), [
    (0, "cy"),   # left of ann's button: bob (folded), then cy
    (1, "cy"),   # cy sits just left of it
    (2, "eve"),  # cy is on the button: the odd chip starts at dee (folded), then eve
    (3, "eve"),
    (4, "cy"),   # eve is on the button: fay (folded), ann (out), bob (folded), then cy
    (5, "cy"),   # round the table: ann (out), bob (folded), then cy
])
def test_r4_5_an_odd_bounty_chip_goes_to_the_first_tied_winner_left_of_the_button(
        button: int, odd_to: str) -> None:
    """R4.5 through R9.13: cy (seat 2) and eve (seat 4) split the pot that eliminated ann (the
    others folded; its odd chip went by R4.5 too) and share her odd bounty of 25 as that pot
    is shared: 12 each and the odd chip to whichever of them sits first clockwise (left) of
    the button; never to the button's winner for being on it, nor to the lower seat or the
    winner listed first (the awards list eve first)."""
    awards = [{"amount": 301, "eligible": [0, 2, 4],
               "winners": {"4": 150, "2": 151} if odd_to == "cy" else {"4": 151, "2": 150}}]
    (k,) = knockouts(awards, SEATS, [0], {"ann": 25}, progressive=False, button=button)
    other = "eve" if odd_to == "cy" else "cy"
    assert k.paid == {odd_to: 13, other: 12} and k.added == {}
