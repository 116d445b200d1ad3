"""The engine's side of the committed deck (R10.2, :mod:`naiko.views`): which cards a viewer gets
proofs for — in a snapshot (every card seen so far, R6.8's swapped peek left out), in an update
that runs from one hand into the next (only the new hand's cards) — and a malformed deck seed
refused before anything changes."""

from __future__ import annotations

import pytest
from naiko.commands import StartHand
from naiko.commitment import CardProof, verify
from naiko.engine import apply
from naiko.errors import MalformedCommand
from naiko.events import Event
from naiko.state import TableState, Variant
from naiko.views import proofs_for_events, view_for
from naiko_testing import fixed_deck, play, table

NAIKO = Variant.NAIKO
SEED = "ab" * 32


def dealt(state: TableState, holes: dict[int, str], board: str, button: int | None,
          carousel: tuple[str, ...] = ()) -> tuple[TableState, list[Event]]:
    """A hand dealt from a fixed deck, committed with :data:`SEED`."""
    deck = fixed_deck(state, holes, board, button)
    return apply(state, StartHand(deck=deck, button=button, carousel=carousel, deck_seed=SEED))


def snapshot_proofs(state: TableState, seat: int) -> dict[str, int]:
    """card -> position of every proof in *seat*'s snapshot view, each checked on the root."""
    hand = view_for(state, seat, proofs=True)["hand"]
    proofs = [CardProof.from_dict(p) for p in hand["proofs"]]
    assert all(verify(hand["commitment"], p) for p in proofs)
    return {p.to_dict()["card"]: p.position for p in proofs}  # type: ignore[misc]


def test_r6_8_a_snapshot_leaves_out_the_proof_of_a_peeked_card_a_swap_took() -> None:
    # As test_r6_8_a_peek_then_a_public_swap_...: seat 0 peeks the Qs, seat 1's swap takes it.
    state = table([100, 100, 100], variant=NAIKO, destellos=[2, 2, 2])
    state, _ = dealt(state, {0: "AhKh", 1: "7c2d", 2: "9s9h"}, "QsJs3c4d5h", button=0,
                     carousel=("peek", "sleeve_swap", "short_anchor"))
    state, _ = play(state, "0 peek")
    assert snapshot_proofs(state, 0) == {"Ah": 4, "Kh": 5, "Qs": 6}  # seat 0 is dealt last
    state, _ = play(state, "0 c", "1 swap 1")
    assert snapshot_proofs(state, 0) == {"Ah": 4, "Kh": 5}  # the Qs is seat 1's card now
    assert snapshot_proofs(state, 1) == {"7c": 0, "2d": 1, "Qs": 6}  # its own, discarded too
    assert "Qs" not in snapshot_proofs(state, 2)


def test_r10_2_an_update_running_into_the_next_hand_proves_only_that_hands_cards() -> None:
    state = table([100, 100], destellos=None)
    state, first = dealt(state, {0: "AhAd", 1: "KhKd"}, "2c3c4c7d9s", button=0)
    state, ended = play(state, "0 c", "1 x", "1 x", "0 x", "1 x", "0 x", "1 x", "0 x")
    assert state.hand is not None and state.hand.complete
    state, second = dealt(state, {0: "QhQd", 1: "JhJd"}, "", button=None)
    hand = state.hand
    assert hand is not None and hand.number == 2
    events = [e for e in [*ended, *second] if e.visible_to(0)]  # the showdown, then the deal
    proofs = proofs_for_events(hand, events)
    cards = sorted(p["card"] for p in proofs)
    assert cards == ["Qd", "Qh"]  # not hand 1's shown AhAd / KhKd, nor its board
    assert all(verify(hand.commitment or "", CardProof.from_dict(p)) for p in proofs)


@pytest.mark.parametrize("seed", ["", "zz" * 32, "AB" * 32, "ab" * 31])
def test_r10_2_a_malformed_deck_seed_is_refused_and_changes_nothing(seed: str) -> None:
    state = table([100, 100])
    deck = fixed_deck(state, {}, "", 0)
    with pytest.raises(MalformedCommand) as refused:
        apply(state, StartHand(deck=deck, button=0, deck_seed=seed))
    assert refused.value.rule_id == "R10.2"
    assert state.hand is None and state.hand_count == 0


def _read_back(state: TableState, reader: str) -> dict[str, object]:
    from naiko_service import hand_records

    record = hand_records.build(state, table_id="t1", table_name="Aludra", kind="cash",
                                started_ms=1, ended_ms=2)
    return hand_records.for_reader(record, reader)


def test_r10_2_a_card_shown_twice_must_be_at_both_of_its_places() -> None:
    """naiko-verify: a card the hand shows twice (a hole card, and again on the board) is
    checked at both places; one proof at one of them does not clear the other."""
    from naiko.verify import check_hand

    state = table([100, 100])
    state, _ = dealt(state, {0: "AhAd", 1: "KhKd"}, "2c3c4c7d9s", button=0)
    state, _ = play(state, "0 c", "1 x", "1 x", "0 x", "1 x", "0 x", "1 x", "0 x")
    hand = _read_back(state, "p0")
    assert check_hand(hand).ok
    # A forged record: the flop's 2c replaced by the reader's own Ah, the 2c's proof dropped.
    events = [dict(e, cards=str(e["cards"]).replace("2c", "Ah"),
                   board=str(e["board"]).replace("2c", "Ah"))
              if e["kind"] == "board_dealt" else e for e in hand["events"]]  # type: ignore[attr-defined]
    proofs = [p for p in hand["proofs"] if p["card"] != "2c"]  # type: ignore[attr-defined]
    report = check_hand(dict(hand, events=events, proofs=proofs))
    assert not report.ok and "Ah is proved at position" in report.line()
