"""R9.7 at the engine: a player moved in on the small blind or between the button and the small
blind waits there without posting; the engine deals exactly the seats
:func:`naiko.tournaments.seating.next_deal` says, and puts the button and blinds where it
assumed. Worked by hand; tournament blinds 10/20, every stack 1,000."""

from __future__ import annotations

from naiko.commands import Fold, SitDown, StandUp, StartHand
from naiko.engine import apply_in_place
from naiko.events import BlindPosted
from naiko.state import TableConfig, TableState
from naiko.tournaments.seating import TableSeats, next_deal
from naiko_testing import fixed_deck


def fold_to_big_blind(state: TableState) -> None:
    while state.hand is not None and not state.hand.complete:
        assert state.hand.actor is not None
        apply_in_place(state, Fold(seat_index=state.hand.actor))


def tournament_table(occupied: list[int], seats: int = 6) -> TableState:
    state = TableState.new(TableConfig(seat_count=seats, small_blind=10, big_blind=20,
                                       deal_absent=True))
    for index in occupied:
        apply_in_place(state, SitDown(seat_index=index, player_id=f"p{index}", stack=1_000))
    return state


def test_r9_7_a_player_moved_in_between_the_button_and_the_small_blind_waits() -> None:
    # Seats 0, 1, 3, 4 play hand 1 with the button on 0: small blind 1, big blind 3.
    state = tournament_table([0, 1, 3, 4])
    apply_in_place(state, StartHand(deck=fixed_deck(state, {}, button=0), button=0))
    hand = state.hand
    assert hand is not None and (hand.small_blind_seat, hand.big_blind_seat) == (1, 3)
    fold_to_big_blind(state)
    # A player moves in at seat 2. Hand 2: the big blind moves to 4, the small blind to 3
    # (last hand's big blind), the button to 1 (last hand's small blind): seat 2 lies between
    # the button and the small blind, so it waits, without posting.
    apply_in_place(state, SitDown(seat_index=2, player_id="moved", stack=1_000))
    seats = TableSeats(1, 6, tuple(s.player_id if s else None for s in state.seats),
                       state.last_big_blind_seat, state.last_small_blind_position,
                       arrived=frozenset({2}))
    deal = next_deal(seats)
    assert sorted(deal.dealt) == [0, 1, 3, 4] and deal.waiting == {2}
    events = apply_in_place(state, StartHand(deck=fixed_deck(state, {}), wait=frozenset({2})))
    hand = state.hand
    assert hand is not None
    assert (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (1, 3, 4)
    assert not hand.dealt[2] and state.stack(2) == 1_000
    assert [(e.seat_index, e.amount) for e in events if isinstance(e, BlindPosted)] == [
        (3, 10), (4, 20)]


def test_r9_7_a_waiting_player_is_dealt_in_when_the_big_blind_reaches_them() -> None:
    state = tournament_table([0, 1, 2, 3], seats=4)
    apply_in_place(state, StartHand(deck=fixed_deck(state, {}, button=0), button=0))
    fold_to_big_blind(state)  # hand 1: button 0, blinds 1 and 2
    apply_in_place(state, StandUp(seat_index=3))  # seat 3 leaves (its player moved away)
    apply_in_place(state, SitDown(seat_index=3, player_id="new", stack=1_000))
    # Hand 2: big blind 3 (the next seat after 2): the newcomer on seat 3 is the big blind
    # and is dealt in at once, posting it.
    seats = TableSeats(1, 4, tuple(s.player_id if s else None for s in state.seats),
                       state.last_big_blind_seat, state.last_small_blind_position,
                       arrived=frozenset({3}))
    deal = next_deal(seats)
    assert 3 in deal.dealt and not deal.waiting
    events = apply_in_place(state, StartHand(deck=fixed_deck(state, {}), wait=deal.waiting))
    assert [(e.seat_index, e.blind) for e in events if isinstance(e, BlindPosted)] == [
        (2, "small"), (3, "big")]
