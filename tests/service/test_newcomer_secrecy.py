"""A seat's secrets belong to the player dealt there, through the whole service (R10.2; the
engine's side: tests/unit/test_seat_secrecy.py)."""

from __future__ import annotations

from naiko.cards import format_cards
from naiko_testing import cards_in, hidden_from
from service_testing import ACCEPTED, harness
from test_service import actor, seated


def test_r10_2_through_the_service_a_newcomer_in_a_folded_seat_learns_nothing_of_it() -> None:
    """The whole path: a player folds and leaves at once (folded, so not held to the hand's
    end), a newcomer takes that seat during the same hand and subscribes (a snapshot carries
    the proofs of every card its viewer saw, R10.2); the hand plays on to its end. Nothing the
    newcomer is sent names a card of the folded player, nor any other hidden card."""
    h = harness(seed=3)
    table_id, players = seated(h, 4)
    folder = actor(players)
    assert folder.send(action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    assert folder.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None and not hand.complete
    seat = hand.player_ids.index(folder.player_id)
    assert record.state.seats[seat] is None  # folded: gone at once
    folded_cards = {format_cards([card]) for card in hand.hole[seat]}
    newcomer = h.player("newcomer")
    reply = newcomer.send(action="join_table", table_id=table_id, buy_in=200, seat_index=seat)
    assert reply["type"] in ACCEPTED, reply
    snapshot = newcomer.send(action="snapshot", table_id=table_id)
    assert snapshot["type"] == "snapshot"
    others = [p for p in players if p is not folder]
    while h.store.load(table_id).state.hand_in_progress:
        player = actor(others)
        move = "check" if "check" in player.last_view()["prompt"]["actions"] else "call"
        assert player.send(action="act", table_id=table_id, move=move)["type"] in ACCEPTED
    final = h.store.load(table_id).state.hand
    assert final is not None and final.number == hand.number
    forbidden = hidden_from(final, "newcomer")  # at the end: the deck, hands not shown
    assert folded_cards <= forbidden
    for message in newcomer.messages:
        assert not cards_in(message) & folded_cards, (message["type"], folded_cards)
        assert not cards_in(message) & forbidden, (message["type"], cards_in(message) & forbidden)
    assert snapshot["view"]["hand"]["proofs"] == []
