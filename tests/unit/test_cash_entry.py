"""Entering a hand at a cash table (R7.8), sitting out (R7.9), and the dead button (R2.6):
players who sit down or come back owe blinds, post them or wait for the big blind, and never
come in between the button and the small blind. Positions and amounts worked by hand; blinds
1/2 throughout, every stack 100."""

from __future__ import annotations

import pytest
from naiko.commands import ChooseEntry, SitDown, SitIn, SitOut, StandUp
from naiko.engine import apply
from naiko.errors import EngineError
from naiko.events import BlindPosted, CarouselDrawn
from naiko.state import EntryChoice, TableConfig, TableState, Variant
from naiko_testing import play, start

POST, WAIT = EntryChoice.POST, EntryChoice.WAIT


def cash_table(occupied: list[int], seats: int = 6, variant: Variant = Variant.NLHE,
               destellos: int = 0) -> TableState:
    """A cash table (entry rules on) with 100 chips at each of *occupied*."""
    state = TableState.new(TableConfig(variant=variant, seat_count=seats, small_blind=1,
                                       big_blind=2, entry_rules=True))
    for index in occupied:
        state, _ = apply(state, SitDown(seat_index=index, player_id=f"p{index}", stack=100))
        seat = state.seats[index]
        assert seat is not None
        seat.destellos = destellos
    return state


def fold_out(state: TableState) -> TableState:
    """Everybody folds to the big blind."""
    while state.hand is not None and not state.hand.complete:
        actor = state.hand.actor
        assert actor is not None
        state, _ = play(state, f"{actor} f")
    return state


def posts(events: list[object]) -> list[tuple[int, str, int]]:
    return [(e.seat_index, e.blind, e.amount) for e in events if isinstance(e, BlindPosted)]


def dealt(state: TableState) -> list[int]:
    assert state.hand is not None
    return [i for i, d in enumerate(state.hand.dealt) if d]


def test_r7_8_a_new_player_between_the_button_and_the_small_blind_waits_then_posts() -> None:
    # Seats 0, 2, 5. Hand 1 (button 0): small blind 2, big blind 5.
    state = cash_table([0, 2, 5])
    state, _ = start(state, button=0)
    assert (state.hand.small_blind_seat, state.hand.big_blind_seat) == (2, 5)  # type: ignore
    state = fold_out(state)
    # A newcomer sits at seat 3 and wants to post. Hand 2 (dead button): the button moves to
    # 2, the small blind to 5, the big blind to 0: seat 3 lies between the button (2) and the
    # small blind (5), so it is not dealt in and posts nothing.
    state, _ = apply(state, SitDown(seat_index=3, player_id="new", stack=100, entry=POST))
    state, events = start(state)
    hand = state.hand
    assert hand is not None and (hand.button, hand.small_blind_seat, hand.big_blind_seat) \
        == (2, 5, 0)
    assert dealt(state) == [0, 2, 5] and posts(events) == [(5, "small", 1), (0, "big", 2)]
    state = fold_out(state)
    # Hand 3: button 5, small blind 0, big blind 2. The button has passed seat 3: it is dealt
    # in and posts a big blind live (it counts toward its call).
    state, events = start(state)
    hand = state.hand
    assert hand is not None and (hand.button, hand.small_blind_seat, hand.big_blind_seat) \
        == (5, 0, 2)
    assert dealt(state) == [0, 2, 3, 5]
    assert posts(events) == [(0, "small", 1), (2, "big", 2), (3, "post", 2)]
    assert hand.bets == [1, 0, 2, 2, 0, 0] and hand.pot == 0 and hand.current_bet == 2
    assert hand.actor == 3  # first to act after the big blind: the poster, who owes nothing
    seat = state.seats[3]
    assert seat is not None and not seat.owes


def test_r7_8_a_waiting_player_is_dealt_in_when_the_big_blind_reaches_them() -> None:
    state = cash_table([0, 2, 5])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitDown(seat_index=1, player_id="new", stack=100, entry=WAIT))
    # Hand 2: button 2, small blind 5, big blind 0 (the next present seat after 5): seat 1
    # waits, although it is not in the gap: it chose to wait for the big blind.
    state, _ = start(state)
    assert state.hand is not None and state.hand.big_blind_seat == 0
    assert dealt(state) == [0, 2, 5]
    state = fold_out(state)
    # Hand 3: button 5, small blind 0, big blind 1: the big blind reaches the newcomer, who is
    # dealt in and pays only the big blind (waiting forgives the entry post).
    state, events = start(state)
    assert state.hand is not None and state.hand.big_blind_seat == 1
    assert dealt(state) == [0, 1, 2, 5]
    assert posts(events) == [(0, "small", 1), (1, "big", 2)]


def test_r7_8_r7_9_missing_both_blinds_then_posting_pays_big_live_and_small_dead() -> None:
    # Seats 0-3. Hand 1 (button 0): blinds 1 and 2.
    state = cash_table([0, 1, 2, 3])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitOut(seat_index=3))
    # Hand 2: button 1, small blind 2, big blind: the next present seat after 2 is 0, so the
    # big blind passes seat 3, who is away: it owes the big blind and the small blind (R7.9).
    state, _ = start(state)
    hand = state.hand
    assert hand is not None and (hand.small_blind_seat, hand.big_blind_seat) == (2, 0)
    away = state.seats[3]
    assert away is not None and (away.owes_big, away.owes_small) == (True, True)
    state = fold_out(state)
    state, _ = apply(state, SitIn(seat_index=3, entry=POST))
    # Hand 3: button 2, small blind 0, big blind 1 (the next present seat after 0). Seat 3 lies
    # between the button (2) and the small blind (0): it waits for the button to pass.
    state, events = start(state)
    hand = state.hand
    assert hand is not None and (hand.button, hand.small_blind_seat, hand.big_blind_seat) \
        == (2, 0, 1)
    assert dealt(state) == [0, 1, 2]
    state = fold_out(state)
    # Hand 4: button 0, small blind 1, big blind 2. Seat 3 posts: the big blind live (2, a bet)
    # and the small blind dead (1, straight into the pot).
    state, events = start(state)
    hand = state.hand
    assert hand is not None and (hand.button, hand.small_blind_seat, hand.big_blind_seat) \
        == (0, 1, 2)
    assert posts(events) == [(1, "small", 1), (2, "big", 2), (3, "dead", 1), (3, "post", 2)]
    assert hand.bets == [0, 1, 2, 2, 0, 0] and hand.pot == 1 and hand.committed[3] == 3
    seat = state.seats[3]
    assert seat is not None and seat.stack == 100 - 3 and not seat.owes
    # Seat 3 acts first (after the big blind, seat 2) and owes 0 more to call.
    assert hand.actor == 3
    state, _ = play(state, "3 x")  # its live blind lets it check when nobody raised
    assert state.hand is not None and state.hand.actor == 0


def test_r7_8_a_dead_small_blind_is_won_by_the_winner_never_returned_to_its_poster() -> None:
    # As above up to hand 4, where seat 3 posts 1 dead and 2 live; everybody checks or calls
    # to the showdown and seat 0 wins with aces.
    state = cash_table([0, 1, 2, 3])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitOut(seat_index=3))
    state, _ = start(state)
    state = fold_out(state)
    state, _ = apply(state, SitIn(seat_index=3, entry=POST))
    state, _ = start(state)
    state = fold_out(state)
    before = [s.stack if s else 0 for s in state.seats]
    state, _ = start(state, holes={0: "AsAh", 1: "8c3d", 2: "9c4d", 3: "7c2d"},
                     board="KdQh5s6c2h")
    state, _ = play(state, "3 x", "0 c", "1 c", "2 x")
    for _ in range(3):  # flop, turn, river: checked by 1, 2, 3, 0
        state, _ = play(state, "1 x", "2 x", "3 x", "0 x")
    hand = state.hand
    assert hand is not None and hand.complete
    # The pot: 2 from each of the four, and the dead 1: 9, all to seat 0. Seat 3 paid 3 and
    # gets none of it back (the dead blind is in the main pot, not a bet of its own, R7.8).
    after = [s.stack if s else 0 for s in state.seats]
    assert [a - b for a, b in zip(after, before, strict=True)][:4] == [9 - 2, -2, -2, -3]


def test_r7_8_missing_only_the_small_blind_posts_it_dead_or_waits() -> None:
    # Seats 0-3. Hand 1 (button 0): blinds 1 and 2. Seat 2 (the big blind) then sits out.
    state = cash_table([0, 1, 2, 3])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitOut(seat_index=2))
    # Hand 2: the small blind falls on seat 2 (last hand's big blind), away: a dead small blind
    # it has missed; the big blind moves to 3 and passes nobody absent.
    state, events = start(state)
    hand = state.hand
    assert hand is not None and (hand.small_blind_seat, hand.big_blind_seat) == (None, 3)
    away = state.seats[2]
    assert away is not None and (away.owes_big, away.owes_small) == (False, True)
    state = fold_out(state)
    state, _ = apply(state, SitIn(seat_index=2, entry=POST))
    # Hand 3: the button moves to 2 (last hand's dead small blind position), the small blind to
    # 3, the big blind to 0. Seat 2 is the button, not between the button and the small blind: dealt
    # in, posting only the missed small blind, dead.
    state, events = start(state)
    hand = state.hand
    assert hand is not None and (hand.button, hand.small_blind_seat, hand.big_blind_seat) \
        == (2, 3, 0)
    assert posts(events) == [(3, "small", 1), (0, "big", 2), (2, "dead", 1)]
    assert hand.pot == 1 and hand.bets == [2, 0, 0, 1, 0, 0]


def test_r7_8_while_the_table_is_starting_everyone_is_dealt_in_without_posting() -> None:
    # Two players play heads-up; a third sits down: the hand before had fewer than 3 players,
    # so the newcomer is dealt in at once, posting nothing.
    state = cash_table([0, 3])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitDown(seat_index=1, player_id="new", stack=100, entry=WAIT))
    state, events = start(state)
    assert dealt(state) == [0, 1, 3]
    assert [p[1] for p in posts(events)] == ["small", "big"]
    seat = state.seats[1]
    assert seat is not None and not seat.owes


def test_r7_8_the_choice_can_change_until_the_hand_starts() -> None:
    state = cash_table([0, 2, 5])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitDown(seat_index=1, player_id="new", stack=100, entry=WAIT))
    state, _ = apply(state, ChooseEntry(seat_index=1, entry=POST))
    state, events = start(state)  # hand 2: button 2, small blind 5, big blind 0
    assert dealt(state) == [0, 1, 2, 5] and (1, "post", 2) in posts(events)
    with pytest.raises(EngineError) as refused:
        apply(state, ChooseEntry(seat_index=0, entry=WAIT))
    assert refused.value.code == "nothing_owed"


def test_r7_8_naiko_destellos_go_only_to_players_dealt_in() -> None:
    state = cash_table([0, 2, 5], variant=Variant.NAIKO)
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = apply(state, SitDown(seat_index=3, player_id="new", stack=100, entry=POST))
    state, events = start(state)  # seat 3 is between the button (2) and the small blind (5)
    credit = next(e for e in events if isinstance(e, CarouselDrawn))
    assert "3" not in credit.destellos
    seat = state.seats[3]
    assert seat is not None and seat.destellos == 0


def test_r2_6_the_big_blind_never_skips_a_seat_dealt_in_with_newcomers_waiting() -> None:
    state = cash_table([0, 2, 4])
    state, _ = start(state, button=0)
    bigs = [state.hand.big_blind_seat]  # type: ignore[union-attr]
    state = fold_out(state)
    for index, entry in ((1, WAIT), (3, POST), (5, WAIT)):
        state, _ = apply(state, SitDown(seat_index=index, player_id=f"n{index}", stack=100,
                                        entry=entry))
    for _ in range(12):
        state, _ = start(state)
        hand = state.hand
        assert hand is not None
        bigs.append(hand.big_blind_seat)
        state = fold_out(state)
    for before, after in zip(bigs, bigs[1:], strict=False):
        assert before != after
        passed = [(before + step) % 6 for step in range(1, (after - before) % 6)]
        assert not passed, (before, after)  # everyone is present: the big blind never skips


def _newcomer_on_the_last_big_blinds_seat(entry: EntryChoice,
                                          sit_out: bool) -> tuple[TableState, list[object]]:
    """Seats 0-3. Hand 1 (button 0): blinds 1 and 2; hand 2: blinds 2 and 3. The big blind of
    hand 2 (seat 3) leaves and a newcomer takes seat 3 (sitting out at once with *sit_out*).
    Hand 3 (dead button): the big blind moves to 0, the small blind falls on seat 3, the
    button on 2."""
    state = cash_table([0, 1, 2, 3])
    state, _ = start(state, button=0)
    state = fold_out(state)
    state, _ = start(state)
    assert (state.hand.small_blind_seat, state.hand.big_blind_seat) == (2, 3)  # type: ignore
    state = fold_out(state)
    state, _ = apply(state, StandUp(seat_index=3))
    state, _ = apply(state, SitDown(seat_index=3, player_id="new", stack=100, entry=entry))
    if sit_out:
        state, _ = apply(state, SitOut(seat_index=3))
    state, events = start(state)
    hand = state.hand
    assert hand is not None and hand.big_blind_seat == 0 and hand.small_blind_position == 3
    return state, events


def test_r7_8_r7_9_a_newcomer_sitting_out_on_a_dead_small_blind_owes_both_blinds() -> None:
    state, events = _newcomer_on_the_last_big_blinds_seat(POST, sit_out=True)
    hand = state.hand
    assert hand is not None and hand.small_blind_seat is None  # dead: nobody there to post
    assert dealt(state) == [0, 1, 2] and posts(events) == [(0, "big", 2)]
    seat = state.seats[3]
    assert seat is not None
    # They still owe the big blind they sat down owing, and now the small blind they missed.
    assert (seat.owes_big, seat.owes_small) == (True, True)
    state = fold_out(state)
    state, _ = apply(state, SitIn(seat_index=3, entry=POST))
    state, events = start(state)  # hand 4: button 3, blinds 0 (small) and 1 (big)
    assert 3 in dealt(state)  # the button has passed: they come in posting both
    assert sorted(p for p in posts(events) if p[0] == 3) == [(3, "dead", 1), (3, "post", 2)]


def test_r7_8_a_newcomer_waiting_on_the_small_blinds_seat_posts_nothing() -> None:
    # Present, but on the small blind's seat: not dealt in until the button passes (R7.8), so
    # the small blind is dead: no chip of theirs goes into a pot they cannot win.
    state, events = _newcomer_on_the_last_big_blinds_seat(POST, sit_out=False)
    hand = state.hand
    assert hand is not None and hand.small_blind_seat is None
    assert dealt(state) == [0, 1, 2] and posts(events) == [(0, "big", 2)]
    assert state.stack(3) == 100 and hand.committed[3] == 0
    seat = state.seats[3]
    assert seat is not None and (seat.owes_big, seat.owes_small) == (True, False)
