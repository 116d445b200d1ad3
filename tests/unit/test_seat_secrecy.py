"""A seat's secrets belong to the player dealt there, never to the seat's next occupant (R10.2:
mucked cards stay secret; R6.1: nobody else learns a peeked card). A player who folds may leave
at once, and a newcomer may take the freed seat while the hand goes on: whatever the hand keeps
for that seat (its hole cards, its Peek, the proofs of both) must not reach the newcomer."""

from __future__ import annotations

from naiko.cards import FULL_DECK, format_cards
from naiko.commands import SitDown, StandUp, StartHand
from naiko.engine import apply
from naiko.state import TableState, Variant
from naiko.views import events_for, seen_cards, view_for
from naiko_testing import cards_in, hidden_from, play, table

SEED = "ab" * 32


def _newcomer_in_a_folded_seat(variant: Variant = Variant.NLHE,
                               moves: tuple[str, ...] = ()) -> tuple[TableState, int]:
    """Four players, the deck in its plain order with a commitment (R10.2); *moves* first, then
    the first player to act folds and leaves, and ``newcomer`` sits in that seat."""
    state = table([100, 100, 100, 100], variant=variant,
                  destellos=[2, 2, 2, 2] if variant is Variant.NAIKO else None)
    state, _ = apply(state, StartHand(deck=tuple(FULL_DECK), button=0, deck_seed=SEED,
                                      carousel=("peek", "short_anchor", "seal_shield")
                                      if variant is Variant.NAIKO else ()))
    hand = state.hand
    assert hand is not None
    folder = hand.actor
    assert folder is not None
    state, _ = play(state, *moves, f"{folder} f")
    state, _ = apply(state, StandUp(seat_index=folder))
    state, _ = apply(state, SitDown(seat_index=folder, player_id="newcomer", stack=100))
    return state, folder


def test_r10_2_a_newcomer_in_a_folded_players_seat_sees_none_of_that_players_cards() -> None:
    state, seat = _newcomer_in_a_folded_seat()
    hand = state.hand
    assert hand is not None and hand.folded[seat] and not hand.complete
    folded_cards = {format_cards([card]) for card in hand.hole[seat]}
    forbidden = hidden_from(hand, "newcomer")
    assert folded_cards <= forbidden  # the oracle compares players, not seats
    view = view_for(state, seat, proofs=True)  # a snapshot, with the proofs of cards seen
    assert view["seats"][seat]["player_id"] == "newcomer"
    assert not cards_in(view) & forbidden, sorted(cards_in(view) & forbidden)
    assert view["hand"]["proofs"] == []  # the newcomer saw no card of this hand
    assert seen_cards(state, seat) == []
    assert view["prompt"] is None


def test_r6_1_a_newcomer_never_sees_the_peek_of_the_seats_earlier_player() -> None:
    state = table([100, 100, 100, 100], variant=Variant.NAIKO, destellos=[2, 2, 2, 2])
    state, _ = apply(state, StartHand(deck=tuple(FULL_DECK), button=0, deck_seed=SEED,
                                      carousel=("peek", "short_anchor", "seal_shield")))
    hand = state.hand
    assert hand is not None and hand.actor is not None
    seat = hand.actor
    state, events = play(state, f"{seat} peek", f"{seat} f")
    assert state.hand is not None and state.hand.powers is not None
    peeked = state.hand.powers.peeks[seat]
    assert peeked is not None
    state, _ = apply(state, StandUp(seat_index=seat))
    state, _ = apply(state, SitDown(seat_index=seat, player_id="newcomer", stack=100))
    hand = state.hand
    assert hand is not None
    view = view_for(state, seat, proofs=True)
    assert view["hand"]["powers"]["peek"] is None
    forbidden = hidden_from(hand, "newcomer")
    seen = cards_in(view) | cards_in(events_for(events, None))
    assert not seen & forbidden, sorted(seen & forbidden)

