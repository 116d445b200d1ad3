"""Every rule of RULES.md §1–4, one test (or more) per rule id, amounts worked out by hand.

Scenarios use fixed decks (:func:`naiko_testing.fixed_deck`) and the short move notation of
:func:`naiko_testing.play`: ``"2 f"`` fold, ``"0 x"`` check, ``"1 c"`` call, ``"3 b 10"`` bet,
``"4 r 30"`` raise to 30, ``"5 a"`` all-in.
"""

from __future__ import annotations

import pytest
from naiko.cards import FULL_DECK, parse_cards, seeded_random, shuffled_deck
from naiko.commands import (
    Bet,
    CancelHand,
    Check,
    Fold,
    RaiseTo,
    SitDown,
    StandUp,
    StartHand,
)
from naiko.engine import apply, legal_actions
from naiko.errors import (
    IllegalAction,
    MalformedCommand,
    NoHandInProgress,
    TableError,
)
from naiko.state import VARIANT_RULES, AnteMode, TableConfig, TableState, Variant
from naiko.views import view_for
from naiko_testing import kinds, play, prompt, rejected_in_place, stack_list, start, table

# -- §1 cards and variants -------------------------------------------------------------------


def test_r1_1_deck_is_52_distinct_cards_dealt_without_burns() -> None:
    deck = shuffled_deck(seeded_random(3))
    assert sorted(deck) == list(FULL_DECK)
    state = table([100, 100, 100])
    state, _ = apply(state, StartHand(deck=tuple(deck), button=0))
    hand = state.hand
    assert hand is not None
    # seats 1, 2, 0 receive two cards each, in that order, from the top of the deck
    assert hand.hole[1] == deck[0:2] and hand.hole[2] == deck[2:4] and hand.hole[0] == deck[4:6]
    state, _ = play(state, "0 c", "1 c", "2 x")
    assert state.hand is not None and state.hand.board == deck[6:9]  # no burn card
    state, _ = play(state, "1 x", "2 x", "0 x")
    assert state.hand is not None and state.hand.board == deck[6:10]


def test_r1_1_a_deck_with_a_repeated_card_is_refused() -> None:
    state = table([100, 100])
    deck = list(range(52))
    deck[51] = 0
    with pytest.raises(MalformedCommand) as error:
        apply(state, StartHand(deck=tuple(deck), button=0))
    assert error.value.rule_id == "R1.1"


def test_r1_2_holdem_uses_the_board_when_it_plays() -> None:
    # Board is a broadway straight: both players play the board and split (R1.2 zero hole cards).
    state = table([100, 100])
    state, _ = start(state, {0: "2c3d", 1: "2h3s"}, "TsJdQcKhAs", button=1)
    state, _ = play(state, "1 c", "0 x", "0 x", "1 x", "0 x", "1 x", "0 x", "1 x")
    assert stack_list(state) == [100, 100]
    assert state.hand is not None and len(state.hand.hole[0]) == 2


def test_r1_3_omaha_uses_exactly_two_hole_cards() -> None:
    # Seat 0 holds four hearts, the board two hearts: no flush (R1.3); seat 1's pair of kings wins
    # against seat 0's ace high? Seat 0: AhKhQhJh + board 2h7h9c4d5s -> best is A-K + 9-7-5 = ace
    # high (a flush needs three hearts on the board). Seat 1: KcKd + 975 = pair of kings.
    state = table([100, 100], variant=Variant.PLO)
    state, _ = start(state, {0: "AhKhQhJh", 1: "KcKd3c8s"}, "2h7h9c4d5s", button=1)
    assert state.hand is not None and len(state.hand.hole[0]) == 4
    state, _ = play(state, "1 c", "0 x", "0 x", "1 x", "0 x", "1 x", "0 x", "1 x")
    assert stack_list(state) == [98, 102]


def test_r1_3_omaha_must_use_three_board_cards() -> None:
    # Board AsAdAc Kh 2d: seat 0 holds the last ace but must use two hole cards: quads need
    # A + one more hole card with three board aces -> AsAdAc + Ah + 9c... = three aces kicked by
    # two hole cards? Exactly two hole + three board: Ah9c + AsAdAc = four aces. Seat 1: KdKc +
    # AsAdKh = full house. Quads win.
    state = table([100, 100], variant=Variant.PLO)
    state, _ = start(state, {0: "Ah9c3s4s", 1: "KdKc5h6h"}, "AsAdAcKh2d", button=1)
    state, _ = play(state, "1 c", "0 x", "0 x", "1 x", "0 x", "1 x", "0 x", "1 x")
    assert stack_list(state) == [102, 98]


def test_r1_4_powers_only_in_naiko_mode() -> None:
    assert not VARIANT_RULES[Variant.NLHE].powers
    assert not VARIANT_RULES[Variant.PLO].powers
    assert VARIANT_RULES[Variant.NAIKO].powers


def test_r1_5_rankings_decide_the_showdown() -> None:
    # Flush (seat 0) beats straight (seat 1: Q-J-T-9-8) on 9h 8h 2h Qc 3s.
    state = table([100, 100])
    state, events = start(state, {0: "Ah4h", 1: "JdTd"}, "9h8h2hQc3s", button=1)
    state, events = play(state, "1 c", "0 x", "0 x", "1 x", "0 x", "1 x", "0 x", "1 x")
    assert stack_list(state) == [102, 98]
    showdown = next(e for e in events if e.kind == "showdown")
    described = {h["seat_index"]: h["hand"] for h in showdown.data["hands"]}
    assert described[0].startswith("flush")
    assert described[1].startswith("straight")


def test_r1_6_table_sizes_are_2_to_10_seats() -> None:
    for seats in (1, 11):
        with pytest.raises(MalformedCommand):
            TableState.new(TableConfig(seat_count=seats))
    for seats in (2, 10):
        state = table([50] * seats)
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(seeded_random(1))), button=0))
        assert state.hand is not None and sum(state.hand.dealt) == seats


# -- §2 order of play, blinds, end of a round ------------------------------------------------


def test_r2_1_blinds_left_of_button_and_first_to_act_after_big_blind() -> None:
    state = table([100, 100, 100, 100])
    state, _ = start(state, button=2)
    hand = state.hand
    assert hand is not None
    assert (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (2, 3, 0)
    assert hand.bets == [2, 0, 0, 1]
    assert prompt(state).seat_index == 1  # the player after the big blind
    state, _ = play(state, "1 c", "2 c", "3 c", "0 x")
    # Flop: the first player able to act left of the button (the small blind).
    assert prompt(state).seat_index == 3
    state, _ = play(state, "3 x", "0 b 2", "1 f")
    assert prompt(state).seat_index == 2  # skips the folded seat in seat order
    state, _ = play(state, "2 c", "3 c")
    # Turn: seat 1 has folded; order is 3, 0, 2
    assert prompt(state).seat_index == 3


def test_r2_1_all_in_players_are_skipped() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    state, _ = play(state, "0 c", "1 c", "2 x")  # flop: 1, 2, 0
    state, _ = play(state, "1 a", "2 c", "0 c")  # seat 1 and 2 all-in... seat 0 also all-in
    assert state.hand is not None and state.hand.complete  # everyone all-in: run-out


def test_r2_2_heads_up_button_posts_small_blind_and_acts_first_preflop() -> None:
    state = table([100, 100])
    state, _ = start(state, button=0)
    hand = state.hand
    assert hand is not None
    assert (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (0, 0, 1)
    assert hand.bets == [1, 2]
    assert prompt(state).seat_index == 0
    state, _ = play(state, "0 c", "1 x")
    assert prompt(state).seat_index == 1  # the big blind acts first after the flop
    state, _ = play(state, "1 x", "0 x")
    assert prompt(state).seat_index == 1


def test_r2_3_short_small_blind_posts_what_it_has_all_in() -> None:
    state = table([100, 100, 1, 100], sb=2, bb=4)  # seat 2, the small blind, has 1 chip
    state, events = start(state, button=1)
    hand = state.hand
    assert hand is not None
    assert hand.bets == [0, 0, 1, 4]
    posted = [e.data for e in events if e.kind == "blind_posted"]
    assert posted[0] == {"seat_index": 2, "blind": "small", "amount": 1, "all_in": True}
    assert prompt(state).to_call == 4


def test_r2_3_short_big_blind_does_not_lower_the_price() -> None:
    # Blinds 5/10; the big blind (seat 2) has only 6 and is all-in.
    state = table([100, 100, 6], sb=5, bb=10)
    state, _ = start(state, button=0)
    p = prompt(state)
    assert p.seat_index == 0
    assert p.to_call == 10  # at least the nominal big blind, not 6
    assert p.min_raise_to == 20  # a raise goes at least one big blind above it
    state, events = play(state, "0 c", "1 c")
    # Seats 0 and 1 each put in the full 10; the big blind's 6 is all it can win from each.
    hand = state.hand
    assert hand is not None and hand.committed == [10, 10, 6] and len(hand.board) == 3


def test_r2_3_short_big_blind_heads_up_gets_the_uncalled_part_back() -> None:
    # Heads-up 5/10, big blind seat 1 has 6. The button calls 10; 4 of it was never matched.
    state = table([100, 6], sb=5, bb=10)
    state, _ = start(state, {0: "AsAd", 1: "7c2d"}, "KhQh3c4d9s", button=0)
    assert prompt(state).to_call == 5
    state, events = play(state, "0 c")
    returned = [e.data for e in events if e.kind == "uncalled_bet_returned"]
    assert returned == [{"seat_index": 0, "amount": 4}]
    assert stack_list(state) == [106, 0]


def test_r2_4_the_last_hand_left_wins_without_showdown() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    state, events = play(state, "0 r 6", "1 f", "2 f")
    assert "showdown" not in kinds(events)
    award = next(e for e in events if e.kind == "pot_awarded")
    assert award.data["showdown"] is False and award.data["winners"] == {"0": 5}
    assert stack_list(state) == [103, 99, 98]
    # the winner's cards stay hidden
    assert view_for(state, None)["seats"][0]["cards"] is None


def test_r2_4_round_ends_when_everyone_has_matched() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    state, _ = play(state, "0 r 6", "1 c")
    assert prompt(state).seat_index == 2  # the big blind still owes 4
    state, _ = play(state, "2 c")
    assert state.hand is not None and len(state.hand.board) == 3


def test_r2_5_big_blind_option_after_limps() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    state, _ = play(state, "0 c", "1 c")
    p = prompt(state)
    assert p.seat_index == 2
    assert p.actions == ("fold", "check", "raise_to", "all_in")
    assert p.min_raise_to == 4
    state, _ = play(state, "2 r 8")
    assert prompt(state).seat_index == 0


def test_r2_5_no_option_after_a_raise_is_called() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    state, _ = play(state, "0 r 6", "1 c", "2 c")
    assert state.hand is not None and len(state.hand.board) == 3


def test_r2_6_first_button_is_given_and_later_moves_one_seat() -> None:
    state = table([100, 100, 100, 100])
    with pytest.raises(TableError) as error:
        apply(state, StartHand(deck=tuple(shuffled_deck(seeded_random(1)))))
    assert error.value.code == "button_required"
    state, _ = start(state, button=1)
    positions = []
    for _ in range(5):
        hand = state.hand
        assert hand is not None
        positions.append((hand.button, hand.small_blind_seat, hand.big_blind_seat))
        for _ in range(3):
            state, _ = play(state, f"{prompt(state).seat_index} f")
        state, _ = start(state)
    assert positions == [(1, 2, 3), (2, 3, 0), (3, 0, 1), (0, 1, 2), (1, 2, 3)]


def test_r2_6_dead_small_blind_when_last_big_blind_leaves() -> None:
    state = table([100, 100, 100, 100])
    state, _ = start(state, button=0)  # button 0, sb 1, bb 2
    state, _ = play(state, "3 f", "0 f", "1 f")
    state, _ = apply(state, StandUp(seat_index=2))  # last hand's big blind leaves
    state, _ = start(state)
    hand = state.hand
    assert hand is not None
    # The big blind moves exactly one seat (to 3); the small blind falls on the empty seat 2
    # and is dead; the button is where the small blind was (seat 1).
    assert (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (1, None, 3)
    assert hand.bets == [0, 0, 0, 2]
    assert prompt(state).seat_index == 0


def test_r2_6_dead_button_when_last_small_blind_leaves() -> None:
    state = table([100, 100, 100, 100])
    state, _ = start(state, button=0)  # button 0, sb 1, bb 2
    state, _ = play(state, "3 f", "0 f", "1 f")
    state, _ = apply(state, StandUp(seat_index=1))
    state, _ = start(state)
    hand = state.hand
    assert hand is not None
    assert (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (1, 2, 3)
    state, _ = play(state, "0 c", "2 c", "3 x")
    assert prompt(state).seat_index == 2  # first live seat left of the (empty) button seat


def test_r2_6_three_to_two_players_last_big_blind_gets_the_button() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)  # button 0, sb 1, bb 2
    state, _ = play(state, "0 f", "1 f")
    state, _ = apply(state, StandUp(seat_index=0))
    state, _ = start(state)
    hand = state.hand
    assert hand is not None
    # Seat 2 paid the big blind most recently: it gets the button (and the small blind).
    assert (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (2, 2, 1)


def test_r2_6_nobody_pays_the_big_blind_twice_in_a_row() -> None:
    rng = seeded_random(11)
    state = table([100, 100, 100, 100, 100])
    state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=0))
    previous = None
    for hand_number in range(30):
        hand = state.hand
        assert hand is not None
        assert hand.big_blind_seat != previous
        previous = hand.big_blind_seat
        while not state.hand.complete:  # type: ignore[union-attr]
            state, _ = play(state, f"{prompt(state).seat_index} f")
        # players come and go
        if hand_number == 5:
            state, _ = apply(state, StandUp(seat_index=(previous + 1) % 5))
        if hand_number == 9:
            seat = next(i for i, s in enumerate(state.seats) if s is None)
            state, _ = apply(state, SitDown(seat_index=seat, player_id="new", stack=100))
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng))))


def test_r2_7_check_call_bet_raise_are_distinct() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    with pytest.raises(IllegalAction) as error:
        play(state, "0 x")
    assert error.value.code == "cannot_check"
    with pytest.raises(IllegalAction) as error:
        play(state, "0 b 10")
    assert error.value.code == "bet_not_allowed"
    state, _ = play(state, "0 c", "1 c")
    with pytest.raises(IllegalAction) as error:
        play(state, "2 c")
    assert error.value.code == "nothing_to_call"
    state, _ = play(state, "2 x")
    with pytest.raises(IllegalAction) as error:
        play(state, "1 r 4")
    assert error.value.code == "raise_not_allowed"
    assert prompt(state).actions == ("fold", "check", "bet", "all_in")
    state, _ = play(state, "1 b 4")
    assert prompt(state).actions == ("fold", "call", "raise_to", "all_in")


def test_r2_8_antes_are_dead_money_and_never_count_toward_a_call() -> None:
    state = table([100, 100, 100], sb=5, bb=10, ante=2, ante_mode=AnteMode.EACH)
    state, events = start(state, button=0)
    assert kinds(events)[1:4] == ["ante_posted"] * 3  # antes before the blinds
    hand = state.hand
    assert hand is not None
    assert hand.pot == 6 and hand.bets == [0, 5, 10]
    assert prompt(state).to_call == 10  # the ante is not part of the bet
    state, _ = play(state, "0 c", "1 c", "2 x")
    assert state.hand is not None and state.hand.pot == 36


def test_r2_8_big_blind_ante_posts_the_blind_first_when_short() -> None:
    # Big-blind ante 10 at 5/10; the big blind (seat 2) has 15: blind 10 first, then 5 of ante.
    state = table([100, 100, 15], sb=5, bb=10, ante=10, ante_mode=AnteMode.BIG_BLIND)
    state, events = start(state, button=0)
    hand = state.hand
    assert hand is not None
    assert hand.bets == [0, 5, 10] and hand.antes == [0, 0, 5] and hand.pot == 5
    assert kinds(events)[1:4] == ["blind_posted", "blind_posted", "ante_posted"]


def test_r2_8_all_in_for_the_ante_wins_only_the_main_pot() -> None:
    # Seat 0 has exactly the ante; it wins the antes (dead money) and nothing of the bets.
    state = table([2, 100, 100], sb=5, bb=10, ante=2, ante_mode=AnteMode.EACH)
    state, _ = start(state, {0: "AsAd", 1: "7c2d", 2: "7d2c"}, "KhQh4c5d9s", button=0)
    state, _ = play(state, "1 c", "2 x", "1 x", "2 x", "1 x", "2 x", "1 x", "2 x")
    # Main pot 6 (antes) to seat 0; seats 1 and 2 both hold K-Q-9-7-5 and split the 20 of bets.
    assert stack_list(state) == [6, 98, 98]


# -- §3 bets and raises ----------------------------------------------------------------------


def test_r3_1_min_raise_is_the_last_full_raise() -> None:
    # Bet 5, raise to 15 => the next raise at least to 25 (RULES.md example), blinds 1/2.
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    state, _ = play(state, "0 c", "1 c", "2 x")
    state, _ = play(state, "1 b 5")
    assert prompt(state).min_raise_to == 10
    state, _ = play(state, "2 r 15")
    p = prompt(state)
    assert (p.seat_index, p.to_call, p.min_raise_to, p.max_raise_to) == (0, 15, 25, 98)
    with pytest.raises(IllegalAction) as error:
        play(state, "0 r 24")
    assert error.value.code == "amount_below_minimum" and error.value.rule_id == "R3.1"
    with pytest.raises(IllegalAction) as error:
        play(state, "0 r 99")
    assert error.value.code == "amount_above_maximum"
    state, _ = play(state, "0 r 25")


def test_r3_1_opening_bet_at_least_the_big_blind_and_all_in_for_less_is_legal() -> None:
    state = table([100, 7, 100], sb=1, bb=2)
    state, _ = start(state, button=0)  # sb seat 1 (7 chips), bb seat 2
    state, _ = play(state, "0 c", "1 c", "2 x")
    p = prompt(state)
    assert p.seat_index == 1 and p.min_raise_to == 2 and p.max_raise_to == 5
    with pytest.raises(IllegalAction):
        play(state, "1 b 1")
    state, _ = play(state, "1 b 5")  # all-in, and a full bet (5 >= 2): the next raise is +5
    assert prompt(state).min_raise_to == 10


def test_r3_1_all_in_below_minimum_raise_is_allowed() -> None:
    state = table([100, 100, 12])
    state, _ = start(state, button=0)  # sb 1, bb 2 (12 chips)
    state, _ = play(state, "0 r 10", "1 f")
    p = prompt(state)
    assert p.min_raise_to == 12 and p.max_raise_to == 12  # all-in for less than 18
    state, _ = play(state, "2 r 12")
    assert prompt(state).seat_index == 0


def test_r3_2_short_all_in_does_not_reopen_raising() -> None:
    state = table([100, 100, 100, 14])
    state, _ = start(state, button=3)  # sb 0, bb 1
    state, _ = play(state, "2 r 10", "3 a", "0 f", "1 f")  # seat 3 all-in to 14: +4 < 8
    p = prompt(state)
    assert p.seat_index == 2
    assert p.actions == ("fold", "call")
    with pytest.raises(IllegalAction) as error:
        play(state, "2 r 30")
    assert error.value.code == "raise_not_allowed" and error.value.rule_id == "R3.2"


def test_r3_2_short_all_ins_adding_up_to_a_full_raise_reopen() -> None:
    # House-rules example: A bets 10, B calls, C all-in to 18, D all-in to 25: increments 8+7
    # reach 10, so A and B may raise.
    state = table([100, 100, 18, 25, 100])
    state, _ = start(state, button=4)  # sb 0, bb 1; seats 0..3 = A..D after the flop
    state, _ = play(state, "2 c", "3 c", "4 c", "0 c", "1 x")  # everyone limps
    state, _ = play(state, "0 b 10", "1 c", "2 a", "3 a", "4 f")
    p = prompt(state)
    assert p.seat_index == 0 and "raise_to" in p.actions
    state, _ = play(state, "0 c")
    p = prompt(state)
    assert p.seat_index == 1 and "raise_to" in p.actions


def test_r3_2_a_single_short_all_in_does_not_reopen_for_the_caller() -> None:
    # A bets 10, B calls, C all-in to 18 only: A and B may only call or fold.
    state = table([100, 100, 18, 100])
    state, _ = start(state, button=3)
    state, _ = play(state, "2 c", "3 c", "0 c", "1 x")
    state, _ = play(state, "0 b 10", "1 c", "2 a", "3 f")
    p = prompt(state)
    assert p.seat_index == 0 and p.actions == ("fold", "call")


def test_r3_3_pot_limit_maximum_is_the_pot_size_raise() -> None:
    # Pot 100, a bet of 40, the player has nothing in: call 40, pot after the call 180,
    # max raise-to 220 (RULES.md example).
    state = table([500, 500, 500], variant=Variant.PLO)
    state, _ = start(state, button=0)
    # pot-limit raises: 6 (max: 2 + 3 + 1), 18 (6 + 8 + 4), then 50 (max 54), called: pot 100
    state, _ = play(state, "0 f", "1 r 6", "2 r 18", "1 r 50", "2 c")
    assert state.hand is not None and state.hand.pot == 100
    state, _ = play(state, "1 b 40")
    p = prompt(state)
    assert (p.to_call, p.min_raise_to, p.max_raise_to) == (40, 80, 220)
    with pytest.raises(IllegalAction) as error:
        play(state, "2 r 221")
    assert error.value.rule_id == "R3.3"
    state, _ = play(state, "2 r 220")


def test_r3_3_pot_limit_preflop_and_all_in_capped_by_stack() -> None:
    state = table([100, 100, 100, 9], variant=Variant.PLO)
    state, _ = start(state, button=0)  # sb 1 (1), bb 2 (2); seat 3 first: call 2 -> pot 5 -> 7
    p = prompt(state)
    assert (p.seat_index, p.min_raise_to, p.max_raise_to) == (3, 4, 7)
    assert "all_in" not in p.actions  # the pot limit does not allow 9
    with pytest.raises(IllegalAction) as error:
        play(state, "3 a")
    assert error.value.code == "all_in_not_allowed"
    state, _ = play(state, "3 r 7", "0 c")
    # pot: 1 + 2 + 7 + 7 = 17; seat 1 owes 6: max = 7 + 17 + 6 = 30
    assert prompt(state).max_raise_to == 30


# -- §4 all-in, side pots, ties --------------------------------------------------------------


def test_r4_1_side_pots_by_all_in_amounts_with_dead_money() -> None:
    # Seat 0 all-in 20 with the best hand, seat 1 all-in 50 second best, seat 2 covers and has
    # the worst hand; seat 3 called 10 preflop and folded (dead money in the main pot).
    state = table([20, 50, 200, 200])
    state, _ = start(state, {0: "AsAd", 1: "KsKd", 2: "7c2d", 3: "9h8h"}, "AhKh3c4d9s", button=3)
    # button 3, sb 0, bb 1; seat 2 acts first
    state, _ = play(state, "2 r 10", "3 c", "0 a", "1 a", "2 c", "3 f")
    hand = state.hand
    assert hand is not None and hand.complete
    pots = [(a["amount"], a["eligible"], a["winners"]) for a in hand.awards]
    # Main pot: 20 from each of 0, 1, 2 + 10 dead from 3 = 70 -> seat 0.
    # Side pot: 30 from each of 1 and 2 = 60 -> seat 1. Seat 3's 10 makes no boundary.
    assert pots == [(70, [0, 1, 2], {"0": 70}), (60, [1, 2], {"1": 60})]
    assert stack_list(state) == [70, 60, 150, 190]


def test_r4_2_uncalled_bet_is_returned_and_is_not_a_win() -> None:
    state = table([100, 40, 100])
    state, _ = start(state, {0: "AsAd", 1: "KsKd"}, "2h3h7c8d9s", button=2)  # sb 0, bb 1
    state, events = play(state, "2 f", "0 r 100", "1 c")
    returned = [e.data for e in events if e.kind == "uncalled_bet_returned"]
    assert returned == [{"seat_index": 0, "amount": 60}]
    assert stack_list(state) == [140, 0, 100]


def test_r4_3_all_in_preflop_runs_the_board_out_at_once() -> None:
    state = table([50, 50])
    state, _ = start(state, {0: "AsAd", 1: "KsKd"}, "2h3h7c8d9s", button=0)
    state, events = play(state, "0 a", "1 c")
    boards = [e.data for e in events if e.kind == "board_dealt"]
    assert [b["street"] for b in boards] == ["flop", "turn", "river"]
    assert [b["run_out"] for b in boards] == [False, True, True]
    assert "showdown" in kinds(events)
    assert stack_list(state) == [100, 0]


def test_r4_4_every_remaining_hand_is_shown() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, {0: "AsAd", 1: "KsKd", 2: "7c2d"}, "2h3h7h8d9s", button=2)
    state, events = play(state, "2 f", "0 c", "1 x", "0 x", "1 x", "0 x", "1 x", "0 x", "1 x")
    showdown = next(e for e in events if e.kind == "showdown")
    assert [h["seat_index"] for h in showdown.data["hands"]] == [0, 1]
    public = view_for(state, None)
    assert public["seats"][0]["cards"] == "AsAd" and public["seats"][1]["cards"] == "KsKd"
    assert public["seats"][2]["cards"] is None  # folded hand stays hidden


def test_r4_5_odd_chips_one_at_a_time_from_the_left_of_the_button() -> None:
    # Three players tie with a pot of 8: 3, 3, 2 — the first two clockwise from the button
    # get the odd chips. Blinds 1/2, each puts in... build a pot of 8 from a 3-way split:
    # ante-free: seat 0 button calls 2? pot 6. Use blinds 1/2 with a dead 2 from a 4th player.
    state = table([100, 100, 100, 100])
    state, _ = start(state, {0: "2c3d", 1: "2d3c", 2: "2h3s", 3: "4c5d"},
                     "TsJdQcKhAs", button=0)  # sb 1, bb 2, seat 3 first
    state, _ = play(state, "3 c", "0 c", "1 c", "2 x")  # pot 8
    state, _ = play(state, "1 x", "2 x", "3 f", "0 x")  # seat 3 folds on the flop
    state, _ = play(state, "1 x", "2 x", "0 x", "1 x", "2 x", "0 x")
    hand = state.hand
    assert hand is not None
    assert hand.awards[0]["winners"] == {"1": 3, "2": 3, "0": 2}


def test_r4_5_each_pot_is_split_on_its_own() -> None:
    # Two pots each with an odd chip: each pot gives its own odd chip from the button's left.
    state = table([3, 100, 100], sb=1, bb=2)
    state, _ = start(state, {0: "2c3d", 1: "2d3c", 2: "2h3s"}, "TsJdQcKhAs", button=0)
    state, _ = play(state, "0 a", "1 r 6", "2 c")  # seat 0 all-in 3; seats 1, 2 put 6
    state, _ = play(state, "1 b 5", "2 c", "1 x", "2 x", "1 x", "2 x")
    hand = state.hand
    assert hand is not None
    # main pot 9 three ways: 3 each; side pot (3+3) + 10 = 16 two ways: 8 each.
    assert [a["winners"] for a in hand.awards] == [{"1": 3, "2": 3, "0": 3}, {"1": 8, "2": 8}]


# -- rejections change nothing ---------------------------------------------------------------


def test_illegal_commands_are_rejected_with_a_code_and_change_nothing() -> None:
    state = table([100, 100, 100])
    state, _ = start(state, button=0)
    before = state.to_dict()
    attempts = [
        (Fold(seat_index=1), "not_your_turn"),  # out of turn
        (Check(seat_index=7), "unknown_seat"),  # no such seat
        (Check(seat_index=0), "cannot_check"),  # facing the big blind
        (RaiseTo(seat_index=0, amount=3), "amount_below_minimum"),
        (RaiseTo(seat_index=0, amount=101), "amount_above_maximum"),
        (Bet(seat_index=0, amount=10), "bet_not_allowed"),
        (SitDown(seat_index=0, player_id="x", stack=10), "seat_taken"),
        (SitDown(seat_index=0, player_id="p1", stack=10), "seat_taken"),
        (StandUp(seat_index=0), "in_hand"),
        (StartHand(deck=tuple(range(52))), "hand_in_progress"),
    ]
    for command, code in attempts:
        # apply_in_place, not apply: apply works on a copy and would hide a handler that
        # changes the state before it raises
        assert rejected_in_place(state, command) == code, command
        assert state.to_dict() == before
    state, _ = play(state, "0 f", "1 f")
    with pytest.raises(NoHandInProgress):  # after the hand ended
        play(state, "2 x")


def test_r8_6_cancelled_hand_returns_every_chip() -> None:
    state = table([100, 100, 100], ante=1, ante_mode=AnteMode.EACH)
    state, _ = start(state, button=0)
    state, _ = play(state, "0 r 10", "1 c")
    state, events = apply(state, CancelHand())
    assert stack_list(state) == [100, 100, 100]
    assert events[0].data["refunds"] == {"0": 11, "1": 11, "2": 3}


def test_legal_actions_none_between_hands() -> None:
    state = table([100, 100])
    assert legal_actions(state) is None
    assert parse_cards("Ah") == [50]
