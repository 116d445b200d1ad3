"""Naiko mode: destellos, the Carousel and the four powers (RULES.md §5–6), one test (or more)
per rule id, with every worked example of the seeds (000 Polish, 001 Portuguese, 002
Vietnamese): pot 100 and a bet of 40 => an anchored player can raise to at most 220; 7c 2d
swapping the 2d; two peeks see the same card unless a Sleeve Swap changed the deck between them;
a Shield answering the Anchor that used the last slot; an Anchor paid although blocked.

Moves use :func:`naiko_testing.play` notation ("1 peek", "1 swap 0", "1 anchor 3", "3 shield").
"""

from __future__ import annotations

from collections import Counter

import pytest
from naiko.cards import parse_card, parse_cards, seeded_random, shuffled_deck
from naiko.commands import PassWindow, StandUp, StartHand, UsePower, WindowTimeout
from naiko.engine import apply, legal_actions
from naiko.errors import EngineError, MalformedCommand, NotYourTurn
from naiko.powers import ALLOWED_CAROUSELS, draw_carousel
from naiko.state import TableState, Variant
from naiko.views import view_for
from naiko_testing import command, destellos, kinds, play, prompt, rejected_in_place, start, table

NAIKO = Variant.NAIKO
ALL_BUT_SHIELD = ("peek", "sleeve_swap", "short_anchor")
WITH_SHIELD = ("peek", "short_anchor", "seal_shield")
SWAP_ANCHOR_SHIELD = ("sleeve_swap", "short_anchor", "seal_shield")


def rejected(state: TableState, move: str) -> str:
    """Apply a move that must be rejected to *state* itself (``apply_in_place``); check that
    nothing changed; return the error code."""
    return rejected_in_place(state, command(move))


def pot_100_flop(destellos_before: list[int], carousel: tuple[str, ...] = WITH_SHIELD,
                 stacks: list[int] | None = None) -> TableState:
    """Three players, blinds 1/2; seat 0 folds, seats 1 and 2 put in 50 each: flop, pot 100,
    seat 1 to act first."""
    state = table(stacks or [500, 500, 500], variant=NAIKO, destellos=destellos_before)
    state, _ = start(state, button=0, carousel=carousel)
    state, _ = play(state, "0 f", "1 r 50", "2 c")
    hand = state.hand
    assert hand is not None and hand.pot == 100 and prompt(state).seat_index == 1
    return state


# -- §5 destellos and the Carousel -----------------------------------------------------------


def test_r5_1_one_destello_per_hand_dealt_never_above_three() -> None:
    state = table([100, 100, 100], variant=NAIKO)
    state, _ = apply(state, _sit_out(2))
    seen = []
    for _ in range(4):
        state, _ = start(state, button=0) if state.hand is None else start(state)
        seen.append(destellos(state))
        state, _ = play(state, f"{prompt(state).seat_index} f")
    # seat 2 sits out: never dealt in, never credited
    assert seen == [[1, 1, 0], [2, 2, 0], [3, 3, 0], [3, 3, 0]]


def _sit_out(seat: int) -> object:
    from naiko.commands import SitOut

    return SitOut(seat_index=seat)


def test_r5_2_destellos_stay_while_seated_and_are_lost_on_leaving() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[1, 1, 1])
    state, _ = start(state, button=0)
    state, _ = play(state, "0 f", "1 f")
    assert destellos(state) == [2, 2, 2]
    state, _ = apply(state, StandUp(seat_index=2))
    from naiko.commands import SitDown

    state, _ = apply(state, SitDown(seat_index=2, player_id="p2", stack=100))
    assert destellos(state) == [2, 2, 0]
    assert view_for(state, None)["seats"][0]["destellos"] == 2  # public, like a stack


def test_r5_3_carousel_is_three_powers_public_and_fixed_for_the_hand() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state, events = start(state, button=0, carousel=ALL_BUT_SHIELD)
    assert next(e for e in events if e.kind == "carousel").data["powers"] == list(ALL_BUT_SHIELD)
    views = [view_for(state, s)["hand"]["powers"]["carousel"] for s in (None, 0, 1, 2)]
    assert views == [list(ALL_BUT_SHIELD)] * 4
    state, _ = play(state, "0 peek", "0 c", "1 c", "2 x")  # the Carousel stays the same
    assert view_for(state, None)["hand"]["powers"]["carousel"] == list(ALL_BUT_SHIELD)
    for bad in [("peek", "sleeve_swap"), ("peek", "peek", "short_anchor"),
                ("peek", "sleeve_swap", "short_anchor", "seal_shield"), ("x", "y", "z"), ()]:
        with pytest.raises(MalformedCommand):
            apply(table([100, 100], variant=NAIKO),
                  StartHand(deck=tuple(range(52)), button=0, carousel=bad))


def test_r5_4_shield_never_without_anchor() -> None:
    with pytest.raises(MalformedCommand) as error:
        apply(table([100, 100], variant=NAIKO),
              StartHand(deck=tuple(range(52)), button=0,
                        carousel=("peek", "sleeve_swap", "seal_shield")))
    assert error.value.rule_id == "R5.4"
    for carousel in ALLOWED_CAROUSELS:
        state, _ = apply(table([100, 100], variant=NAIKO),
                         StartHand(deck=tuple(range(52)), button=0, carousel=carousel))
        assert state.hand is not None


def test_r5_4_carousel_draw_is_uniform_over_the_allowed_sets() -> None:
    rng = seeded_random(5)
    draws = 30_000
    counts = Counter(draw_carousel(rng) for _ in range(draws))
    assert set(counts) == set(ALLOWED_CAROUSELS)
    for count in counts.values():
        # 1/3 each; 5 standard deviations (~0.0136) of tolerance
        assert abs(count / draws - 1 / 3) < 0.014


def test_r1_4_powers_are_refused_at_classic_tables() -> None:
    state = table([100, 100])
    state, _ = start(state, button=0)
    assert rejected(state, "0 peek") == "powers_not_available"
    with pytest.raises(MalformedCommand):
        apply(table([100, 100]), StartHand(deck=tuple(range(52)), button=0,
                                           carousel=WITH_SHIELD))
    assert legal_actions(state) is not None and legal_actions(state).powers == ()  # type: ignore[union-attr]


def test_r5_5_one_power_per_turn_before_the_action_and_the_turn_goes_on() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])  # 3 each after credit
    state, _ = start(state, button=0, carousel=ALL_BUT_SHIELD)
    state, events = play(state, "0 peek")
    assert prompt(state).seat_index == 0  # R6.6: the power did not end the turn
    assert "peek" not in prompt(state).powers
    assert rejected(state, "0 swap 0") == "one_power_per_turn"
    state, _ = play(state, "0 c", "1 c", "2 x")
    state, _ = play(state, "1 x", "2 x")
    assert rejected(state, "0 peek") == "already_used"  # once per player per hand
    assert rejected(state, "1 peek") == "not_your_turn"  # only on your own turn


def test_r5_6_three_activations_per_round_at_the_table() -> None:
    state = table([100, 100, 100, 100], variant=NAIKO, destellos=[2, 2, 2, 2])
    state, _ = start(state, button=0, carousel=ALL_BUT_SHIELD)  # sb 1, bb 2; seat 3 first
    state, _ = play(state, "3 peek", "3 c", "0 peek", "0 c", "1 peek", "1 c")
    assert rejected(state, "2 peek") == "table_limit_reached"
    assert prompt(state).powers == ()
    state, _ = play(state, "2 x")  # flop: a new round, the slots reset
    state, _ = play(state, "1 swap 0") if False else (state, [])
    assert "short_anchor" in prompt(state).powers


def test_r5_6_shield_answers_the_anchor_that_took_the_last_slot() -> None:
    state = table([100, 100, 100, 100], variant=NAIKO, destellos=[2, 2, 2, 2])
    state, _ = start(state, button=0, carousel=WITH_SHIELD)  # seat 3 acts first preflop
    state, _ = play(state, "3 peek", "3 c", "0 peek", "0 c")
    state, _ = play(state, "1 anchor 2")  # the third activation: the last slot
    hand = state.hand
    assert hand is not None and hand.powers is not None and hand.powers.round_activations == 3
    state, events = play(state, "2 shield")  # R6.7: not counted, still allowed
    assert "window_closed" in kinds(events)
    assert hand.powers is not None
    assert state.hand is not None and state.hand.powers is not None
    assert state.hand.powers.anchors[2] == "shielded"
    assert state.hand.powers.round_activations == 3


def test_r5_7_rejected_attempts_cost_nothing() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[0, 0, 0])  # 1 each after credit
    state, _ = start(state, button=0, carousel=ALL_BUT_SHIELD)
    assert rejected(state, "0 shield") == "no_open_window"
    assert rejected(state, "0 swap 1") == "cannot_pay"  # costs 2, has 1
    assert rejected(state, "0 anchor 1") == "cannot_pay"
    assert destellos(state) == [1, 1, 1]
    state, _ = play(state, "0 c", "1 c", "2 x")
    state2 = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state2, _ = start(state2, button=0, carousel=ALL_BUT_SHIELD)
    code = rejected(state2, "0 shield")
    assert code == "no_open_window"
    state3 = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state3, _ = start(state3, button=0, carousel=SWAP_ANCHOR_SHIELD)
    assert rejected(state3, "0 peek") == "not_in_carousel"
    # powers the seat can pay for, asked with a wrong card, target or turn: nothing is paid
    assert rejected(state3, "0 swap 2") == "invalid_card"
    assert rejected(state3, "0 anchor 0") == "invalid_target"
    assert rejected(state3, "0 anchor 7") == "invalid_target"
    assert rejected(state3, "1 swap 0") == "not_your_turn"
    assert destellos(state3) == [3, 3, 3]


def test_r5_7_anchor_is_paid_even_when_blocked() -> None:
    state = pot_100_flop([1, 1, 0])  # seat 1 holds 2, seat 2 holds 1 after the credit
    state, _ = play(state, "1 anchor 2")
    assert destellos(state) == [2, 0, 1]
    state, _ = play(state, "2 shield")
    assert destellos(state) == [2, 0, 0]  # attacker paid 2, target 1; no refunds


# -- §6 the four powers ----------------------------------------------------------------------


def test_r6_1_peek_shows_the_next_board_card_privately() -> None:
    state = table([100, 100, 100], variant=NAIKO)
    state, _ = start(state, {0: "AsKs", 1: "2c2d", 2: "7h8h"}, "QsJsTs9d3c", button=0,
                     carousel=ALL_BUT_SHIELD)
    state, events = play(state, "0 peek")
    private = [e for e in events if e.kind == "peek_result"]
    assert len(private) == 1 and private[0].private_to == 0
    assert private[0].data["card"] == "Qs"  # the first flop card
    public = [e for e in events if e.private_to is None]
    assert all("Qs" not in str(e.data) for e in public)
    assert view_for(state, 0)["hand"]["powers"]["peek"] == "Qs"
    assert view_for(state, 1)["hand"]["powers"]["peek"] is None
    assert view_for(state, None)["hand"]["powers"]["peek"] is None
    hand = state.hand
    assert hand is not None and hand.board == [] and hand.deck[0] == parse_card("Qs")


def test_r6_1_peek_on_flop_sees_the_turn_and_never_on_the_river() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state, _ = start(state, {}, "QsJsTs9d3c", button=0, carousel=ALL_BUT_SHIELD)
    state, _ = play(state, "0 c", "1 c", "2 x")
    state, events = play(state, "1 peek")
    assert next(e for e in events if e.kind == "peek_result").data["card"] == "9d"
    state, _ = play(state, "1 x", "2 x", "0 x", "1 x", "2 x", "0 x")  # river
    assert rejected(state, "1 c") == "nothing_to_call"
    state, _ = play(state, "1 x")
    assert rejected(state, "2 peek") == "wrong_street"


def test_r6_1_two_peeks_see_the_same_card() -> None:
    state = table([100, 100, 100], variant=NAIKO)
    state, _ = start(state, {}, "QsJsTs9d3c", button=0, carousel=ALL_BUT_SHIELD)
    state, e1 = play(state, "0 peek", "0 c")
    state, e2 = play(state, "1 peek")
    seen = [next(e for e in ev if e.kind == "peek_result").data["card"] for ev in (e1, e2)]
    assert seen == ["Qs", "Qs"]


def test_r6_1_a_sleeve_swap_between_two_peeks_changes_the_card() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state, _ = start(state, {}, "QsJsTs9d3c", button=0, carousel=ALL_BUT_SHIELD)
    state, e1 = play(state, "0 peek", "0 c")
    state, _ = play(state, "1 swap 0", "1 c")  # takes the Qs
    state, e3 = play(state, "2 peek")
    assert next(e for e in e1 if e.kind == "peek_result").data["card"] == "Qs"
    assert next(e for e in e3 if e.kind == "peek_result").data["card"] == "Js"
    # Seat 0's view no longer shows the Qs: it is now seat 1's hole card.
    assert view_for(state, 0)["hand"]["powers"]["peek"] is None
    state, _ = play(state, "2 x")
    assert state.hand is not None and state.hand.board[0] == parse_card("Js")


def test_r6_2_sleeve_swap_seven_deuce_swapping_the_deuce() -> None:
    # 7c 2d, swap the 2d; the next deck card (Ad) arrives; the 2d is dead for the hand.
    state = table([100, 100, 100], variant=NAIKO, destellos=[1, 1, 1])
    state, _ = start(state, {0: "7c2d"}, "AdKs9h4c3c", button=0, carousel=ALL_BUT_SHIELD)
    state, events = play(state, "0 swap 1")
    hand = state.hand
    assert hand is not None
    assert hand.hole[0] == parse_cards("7cAd")
    private = next(e for e in events if e.kind == "sleeve_swap_result")
    assert private.private_to == 0
    assert private.data == {"seat_index": 0, "discarded": "2d", "received": "Ad",
                            "cards": "7cAd"}
    public = next(e for e in events if e.kind == "power_used")
    assert public.private_to is None and "Ad" not in str(public.data)
    assert view_for(state, 0)["seats"][0]["cards"] == "7cAd"
    assert view_for(state, 1)["seats"][0]["cards"] is None
    state, _ = play(state, "0 c", "1 c", "2 x")
    assert state.hand is not None and parse_card("2d") not in state.hand.board  # dead card
    assert state.hand.board == parse_cards("Ks9h4c")  # the board moved up one card


def test_r6_2_sleeve_swap_only_preflop_before_the_first_betting_action() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state, _ = start(state, button=0, carousel=ALL_BUT_SHIELD)
    assert rejected(state, "0 swap 2") == "invalid_card"
    state, _ = play(state, "0 c", "1 c")
    state, _ = play(state, "2 swap 0")  # the big blind: posting a blind is not an action
    state, _ = play(state, "2 r 6", "0 c")
    assert rejected(state, "1 swap 0") == "already_acted"
    state, _ = play(state, "1 c")
    assert rejected(state, "1 swap 0") == "wrong_street"


def test_r6_3_anchor_worked_example_pot_100_bet_40_max_220() -> None:
    state = pot_100_flop([1, 1, 1], carousel=ALL_BUT_SHIELD)
    state, events = play(state, "1 anchor 2", "1 b 40")
    assert "anchor_applied" in kinds(events)  # no Shield in the Carousel: applies at once
    p = prompt(state)
    assert (p.seat_index, p.to_call, p.min_raise_to, p.max_raise_to) == (2, 40, 80, 220)
    assert p.anchored
    assert rejected(state, "2 r 221") == "amount_above_maximum"
    assert rejected(state, "2 a") == "all_in_not_allowed"
    state, _ = play(state, "2 r 220")


def test_r6_3_without_the_anchor_the_same_seat_could_go_all_in() -> None:
    state = pot_100_flop([1, 1, 1], carousel=ALL_BUT_SHIELD)
    state, _ = play(state, "1 b 40")
    assert prompt(state).max_raise_to == 450


def test_r6_3_target_must_be_able_to_act_and_not_have_acted() -> None:
    state = table([100, 100, 100, 100], variant=NAIKO, destellos=[2, 2, 2, 2])
    state, _ = start(state, button=0, carousel=ALL_BUT_SHIELD)  # seat 3 first
    state, _ = play(state, "3 c")
    assert prompt(state).anchor_targets == (1, 2)  # seat 3 acted; seat 0 is the actor
    assert rejected(state, "0 anchor 3") == "invalid_target"
    assert rejected(state, "0 anchor 0") == "invalid_target"
    assert rejected(state, "0 anchor 9") == "invalid_target"
    state, _ = play(state, "0 f")
    assert rejected(state, "1 anchor 0") == "invalid_target"  # folded


def test_r6_3_one_declaration_per_target_per_round_even_if_blocked() -> None:
    state = table([100, 100, 100, 100], variant=NAIKO, destellos=[2, 2, 2, 2])
    state, _ = start(state, button=0, carousel=WITH_SHIELD)
    state, _ = play(state, "3 anchor 2", "2 shield", "3 c")
    assert rejected(state, "0 anchor 2") == "already_anchored"
    assert 2 not in prompt(state).anchor_targets
    state, _ = play(state, "0 c", "1 c", "2 x")
    # a new round: seat 2 may be anchored again (R6.3 expires with the round)
    assert 2 in prompt(state).anchor_targets


def test_r6_3_anchor_expires_when_the_round_ends() -> None:
    state = pot_100_flop([1, 1, 1], carousel=ALL_BUT_SHIELD)
    state, _ = play(state, "1 anchor 2", "1 x", "2 x")  # turn
    state, _ = play(state, "1 b 10")
    p = prompt(state)
    assert not p.anchored and p.max_raise_to == 450


def test_r6_3_anchor_never_removes_a_legal_minimum_raise() -> None:
    # Over many random positions, anchoring the seat to act keeps its minimum raise and keeps
    # max >= min; it only ever lowers the maximum.
    rng = seeded_random(8)
    checked = 0
    for _ in range(300):
        state = table([rng.choice([3, 30, 300]) for _ in range(4)], variant=NAIKO)
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=0,
                                          carousel=ALL_BUT_SHIELD))
        while legal_actions(state) is not None:
            p = prompt(state)
            hand = state.hand
            assert hand is not None and hand.powers is not None
            anchored = state.copy()
            assert anchored.hand is not None and anchored.hand.powers is not None
            anchored.hand.powers.anchors[p.seat_index] = "applied"
            q = prompt(anchored)
            assert q.min_raise_to == p.min_raise_to
            if p.max_raise_to is not None:
                assert q.max_raise_to is not None
                assert q.min_raise_to is not None and q.min_raise_to <= q.max_raise_to
                assert q.max_raise_to <= p.max_raise_to
                checked += 1
            action = rng.choice(p.actions)
            move = {"fold": "f", "check": "x", "call": "c", "all_in": "a"}.get(action)
            if move is None:
                assert p.min_raise_to is not None
                move = f"{'b' if action == 'bet' else 'r'} {p.min_raise_to}"
            state, _ = play(state, f"{p.seat_index} {move}")
    assert checked > 300


def test_r6_3_anchored_short_stack_can_still_go_all_in() -> None:
    # The target has 60 behind: the pot-size raise (220) is above the stack: all-in for 60 is
    # the maximum, and also the minimum (a full raise to 80 is out of reach).
    state = pot_100_flop([1, 1, 1], carousel=ALL_BUT_SHIELD, stacks=[500, 500, 110])
    state, _ = play(state, "1 anchor 2", "1 b 40")
    p = prompt(state)
    assert (p.min_raise_to, p.max_raise_to) == (60, 60) and "all_in" in p.actions
    state, _ = play(state, "2 a")


def test_r6_4_shield_only_inside_the_window_aimed_at_you_even_off_turn() -> None:
    state = pot_100_flop([1, 1, 1])
    assert rejected(state, "2 shield") == "no_open_window"  # never preventive
    state, events = play(state, "1 anchor 2 1000")
    window = next(e for e in events if e.kind == "window_opened").data
    assert window == {"window_id": "h1-r1-s2", "target": 2, "attacker": 1, "deadline_ms": 9000}
    assert rejected(state, "0 shield") == "no_open_window"  # seat 0 folded but is seated
    assert view_for(state, 2)["hand"]["powers"]["can_shield"] is True
    state, events = play(state, "2 shield")  # not seat 2's turn: seat 1 is to act
    assert prompt(state).seat_index == 1
    state, _ = play(state, "1 b 40")
    p = prompt(state)
    assert not p.anchored and p.max_raise_to == 450  # the normal table limit stays


def test_r6_4_bets_already_made_stay_in_the_pot() -> None:
    state = pot_100_flop([1, 1, 1])
    state, _ = play(state, "1 anchor 2", "1 b 40", "2 shield")
    hand = state.hand
    assert hand is not None and hand.bets[1] == 40 and hand.pot == 100


def test_r6_5_pass_timeout_or_acting_applies_the_anchor_and_costs_nothing() -> None:
    for closing in ("pass", "timeout", "act"):
        state = pot_100_flop([1, 1, 1])
        state, _ = play(state, "1 anchor 2", "1 b 40")
        assert prompt(state).anchored  # the Anchor binds an action taken inside the window
        # a rejected action is no action: it leaves the window open (and the state as it was)
        assert rejected(state, "2 r 221") == "amount_above_maximum"
        if closing == "pass":
            state, events = apply(state, PassWindow(seat_index=2))
        elif closing == "timeout":
            state, events = apply(state, WindowTimeout(window_id="h1-r1-s2"))
        else:
            state, events = play(state, "2 r 220")
        closed = next(e for e in events if e.kind == "window_closed").data
        assert closed["reason"] == {"pass": "passed", "timeout": "timed_out",
                                    "act": "acted"}[closing]
        assert "anchor_applied" in kinds(events)
        assert destellos(state) == [2, 0, 2]  # the target spent nothing
        hand = state.hand
        assert hand is not None and hand.powers is not None and hand.powers.windows == []
        assert rejected(state, "2 shield") == "window_closed"  # R6.5: it closed


def test_r6_5_play_does_not_pause_for_the_window() -> None:
    state = table([100, 100, 100, 100], variant=NAIKO, destellos=[2, 2, 2, 2])
    state, _ = start(state, button=0, carousel=WITH_SHIELD)  # seat 3 first
    state, _ = play(state, "3 anchor 1", "3 c", "0 c")  # the window on seat 1 is still open
    hand = state.hand
    assert hand is not None and hand.powers is not None and len(hand.powers.windows) == 1
    state, events = play(state, "1 c")  # the target's own action closes it
    assert kinds(events)[:2] == ["window_closed", "anchor_applied"]


def test_r6_5_a_stale_window_timer_changes_nothing() -> None:
    state = pot_100_flop([1, 1, 1])
    state, _ = play(state, "1 anchor 2", "2 shield")
    assert rejected_in_place(state, WindowTimeout(window_id="h1-r1-s2")) == "no_open_window"


def test_r6_6_a_power_never_ends_the_turn_and_never_changes_rankings() -> None:
    state = table([100, 100], variant=NAIKO, destellos=[2, 2])
    state, _ = start(state, {0: "7c2d", 1: "AsAh"}, "AdAcKs9h4c3c", button=0,
                     carousel=ALL_BUT_SHIELD)
    state, _ = play(state, "0 swap 1")  # 7c 2d -> 7c Ad
    assert prompt(state).seat_index == 0  # still seat 0's turn
    state, _ = play(state, "0 c", "1 x", "1 x", "0 x", "1 x", "0 x", "1 x", "0 x")
    # seat 0: Ad Ac... board Ac Ks 9h 4c 3c: seat 0 has a pair of aces with 7; seat 1 trips
    assert state.hand is not None and state.hand.complete
    assert [s.stack for s in state.seats if s] == [98, 102]


def test_r6_7_shield_uses_neither_a_slot_nor_the_turn_power() -> None:
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state, _ = start(state, button=0, carousel=WITH_SHIELD)  # seat 0 first (3-handed)
    state, _ = play(state, "0 anchor 1", "0 c")
    state, _ = play(state, "1 shield")  # seat 1 is now to act; the shield is not its turn power
    hand = state.hand
    assert hand is not None and hand.powers is not None
    assert hand.powers.round_activations == 1 and not hand.powers.turn_power_used
    state, _ = play(state, "1 peek")  # its one turn power is still available
    assert prompt(state).seat_index == 1


def test_naiko_power_commands_are_validated() -> None:
    state = table([100, 100], variant=NAIKO)
    state, _ = start(state, button=0)
    with pytest.raises(MalformedCommand):
        apply(state, UsePower(seat_index=0, power="teleport"))
    with pytest.raises(NotYourTurn):
        apply(state, UsePower(seat_index=1, power="peek"))
    with pytest.raises(EngineError):
        apply(state, PassWindow(seat_index=1))


def _refusal_scenarios() -> dict[str, tuple[TableState, str]]:
    """One table per power refusal, and the move it refuses."""
    def fresh(carousel: tuple[str, ...] = ALL_BUT_SHIELD, chips: int = 2,
              seats: int = 4) -> TableState:
        state = table([100] * seats, variant=NAIKO, destellos=[chips] * seats)
        return start(state, button=0, carousel=carousel)[0]  # seat 3 first preflop

    acted = play(fresh(), "3 c")[0]
    peeked = play(fresh(), "3 peek")[0]
    anchored = play(fresh(WITH_SHIELD), "3 anchor 2", "2 shield", "3 c")[0]
    limit = play(fresh(), "3 peek", "3 c", "0 peek", "0 c", "1 peek", "1 c")[0]
    river = play(fresh(seats=3), "0 c", "1 c", "2 x", "1 x", "2 x", "0 x", "1 x", "2 x",
                 "0 x")[0]
    swap_acted = play(fresh(), "3 c", "0 c", "1 c", "2 x", "1 x", "2 x", "3 x", "0 x")[0]
    return {
        "peek_river": (river, "1 peek"),
        "sleeve_swap_after_preflop": (swap_acted, "1 swap 0"),
        "one_power_per_turn": (peeked, "3 anchor 2"),
        "anchor_target_acted": (play(acted, "0 c")[0], "1 anchor 3"),
        "anchor_target_folded": (play(fresh(), "3 f")[0], "0 anchor 3"),
        "anchor_target_anchored": (anchored, "0 anchor 2"),
        "anchor_cannot_pay": (fresh(chips=0), "3 anchor 2"),
        "table_limit": (limit, "2 peek"),
        "not_in_carousel": (fresh(SWAP_ANCHOR_SHIELD), "3 peek"),
        "shield_no_window": (fresh(WITH_SHIELD), "2 shield"),
    }


POWER_REFUSALS = [
    ("peek_river", "wrong_street", "river"),
    ("sleeve_swap_after_preflop", "wrong_street", "preflop only"),
    ("one_power_per_turn", "one_power_per_turn", "already used one this turn"),
    ("anchor_target_acted", "invalid_target", "seat 3 has already acted in this betting round"),
    ("anchor_target_folded", "invalid_target", "still in the hand"),
    ("anchor_target_anchored", "already_anchored", "already received a Short Anchor"),
    ("anchor_cannot_pay", "cannot_pay", "costs 2 destellos; you have 1"),
    ("table_limit", "table_limit_reached", "3 powers this betting round"),
    ("not_in_carousel", "not_in_carousel", "not in this hand's Carousel"),
    ("shield_no_window", "no_open_window", "open Short Anchor window aimed at you"),
]


@pytest.mark.parametrize(("scenario", "code", "cause"), POWER_REFUSALS,
                         ids=[s for s, _, _ in POWER_REFUSALS])
def test_r6_every_power_refusal_names_its_own_cause(scenario: str, code: str,
                                                    cause: str) -> None:
    """R5.5-R5.7, R6.1-R6.4: the code and the message of each refusal say why (a Short Anchor
    at a seat that has acted says so, not "one power per turn")."""
    state, move = _refusal_scenarios()[scenario]
    try:
        apply(state, command(move))
    except EngineError as error:
        assert error.code == code, (error.code, str(error))
        assert cause in str(error), str(error)
        if code != "one_power_per_turn":
            assert "one power per turn" not in str(error)
        return
    raise AssertionError(f"{move} was accepted")
