"""The committed deck (R10.2) through the service, on the in-memory adapters: the commitment is
published before the first card; every card a player receives or sees arrives with its proof;
proofs hold against the commitment at the positions the dealing order gives; a deck altered
after the commitment fails verification; the proofs a player receives reveal nothing about the
cards they did not see (their salts never travel, the hashes are salted); a stored hand verifies
with ``naiko-verify``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko import verify as naiko_verify
from naiko.cards import format_card, parse_cards
from naiko.commitment import CardProof, leaf_hash, salts_from_seed, verify
from naiko.verify import check_hand
from naiko_service.hand_records import HandRecord
from naiko_testing import cards_in
from service_testing import ACCEPTED, Harness, Player, harness
from test_histories import assert_stored_once, play_hands


def session(seed: int, variant: str, count: int, hands: int
            ) -> tuple[Harness, str, list[Player], list[HandRecord]]:
    h = harness(seed)
    players = [h.player(f"p{i}") for i in range(count)]
    table_id = players[0].send(action="create_table", name="deck", variant=variant,
                               seat_count=count, small_blind=1, big_blind=2, min_buy_in=40,
                               max_buy_in=400)["table_id"]
    for player in players:
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    play_hands(h, table_id, players, hands, random.Random(seed), powers=variant == "NAIKO")
    return h, table_id, players, assert_stored_once(h, table_id)


def received_proofs(player: Player) -> list[tuple[str, dict[str, Any], set[str]]]:
    """(commitment, proof, cards the same message showed) for every proof *player* got."""
    out = []
    for message in player.messages:
        view = message.get("view") or {}
        hand = view.get("hand") or {}
        proofs = message.get("proofs") or hand.get("proofs") or []
        shown = cards_in(message.get("events", [])) | cards_in(view)
        for proof in proofs:
            out.append((hand.get("commitment"), proof, shown))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["NLHE", "PLO", "NAIKO"]), seed=st.integers(0, 10**6),
       count=st.integers(2, 4), hands=st.integers(1, 3))
def test_r10_2_every_card_a_player_sees_arrives_with_a_proof_of_its_committed_position(
        variant: str, seed: int, count: int, hands: int) -> None:
    h, table_id, players, records = session(seed, variant, count, hands)
    for player in players:
        got = received_proofs(player)
        for root, proof, shown in got:
            assert root is not None and verify(root, CardProof.from_dict(proof)), proof
            # a proof travels with its card, never alone (R10.2: no other card is revealed)
            assert proof["card"] in shown, (proof["card"], shown)
        dealt_in = 0
        for record in records:
            if player.player_id not in record.players:
                continue
            dealt_in += 1
            hand = player.send(action="get_hand", table_id=table_id,
                               hand_number=record.hand_number)["hand"]
            report = check_hand(hand)
            assert report.ok, report.line()
            # the stored hand proves exactly the cards its reader was shown
            assert {p["card"] for p in hand["proofs"]} == cards_in(hand["events"])
        assert dealt_in == 0 or got  # not vacuous: cards arrived with proofs


def test_r10_2_the_commitment_is_published_before_the_first_card() -> None:
    h, table_id, players, records = session(11, "NLHE", 3, 1)
    for player in players:
        kinds = [e["kind"] for m in player.messages for e in m.get("events", [])]
        assert "deck_committed" in kinds and "hole_cards" in kinds
        assert kinds.index("deck_committed") < kinds.index("hole_cards")
        update = next(m for m in player.messages
                      if any(e["kind"] == "hole_cards" for e in m.get("events", [])))
        root = next(e["root"] for e in update["events"] if e["kind"] == "deck_committed")
        assert update["view"]["hand"]["commitment"] == root
        own = next(e["cards"] for e in update["events"] if e["kind"] == "hole_cards")
        assert sorted(p["card"] for p in update["proofs"]) == sorted(
            format_card(c) for c in parse_cards(own))


def _stored_hand(seed: int = 5, variant: str = "NLHE") -> tuple[dict[str, Any], HandRecord]:
    h, table_id, players, records = session(seed, variant, 3, 1)
    record = records[0]
    reader = players[0]
    hand = reader.send(action="get_hand", table_id=table_id,
                       hand_number=record.hand_number)["hand"]
    assert check_hand(hand).ok
    return hand, record


def test_r10_2_a_deck_altered_after_the_commitment_fails_verification() -> None:
    hand, record = _stored_hand()
    state = record.table_state()
    full = state.hand
    assert full is not None and full.commitment == hand["commitment"]
    # The server swaps two cards of the stored deck after publishing the commitment and
    # proves the new order: every proof of a moved card fails against the published root.
    proved = [p["position"] for p in hand["proofs"]]
    first, other = proved[0], next(i for i in range(52) if i not in proved)
    altered = list(full.shuffled)
    altered[first], altered[other] = altered[other], altered[first]
    from naiko.commitment import commit_deck
    assert full.deck_seed is not None
    forged = commit_deck(altered, full.deck_seed)
    assert forged.root != hand["commitment"]
    tampered = dict(hand, proofs=[forged.proof(p).to_dict() if p == first else proof
                                  for p, proof in zip(proved, hand["proofs"], strict=True)])
    report = check_hand(tampered)
    assert not report.ok and "does not match the root" in report.line()
    # ... and claiming that the reader saw that other card instead changes nothing: the card
    # shown no longer has a proof of its own.
    swapped_card = format_card(altered[first])
    events = [dict(e) for e in hand["events"]]
    for event in events:
        if event["kind"] == "hole_cards":
            event["cards"] = event["cards"].replace(format_card(full.shuffled[first]),
                                                    swapped_card)
    assert not check_hand(dict(tampered, events=events)).ok


def test_r10_2_a_real_card_proved_at_a_position_the_deal_did_not_give_it_fails() -> None:
    """The server cannot pick which committed card a player gets: a valid proof of a card at
    another position than the dealing order gives it is refused."""
    hand, record = _stored_hand(seed=8)
    full = record.table_state().hand
    assert full is not None and full.deck_seed is not None
    from naiko.commitment import commit_deck
    commitment = commit_deck(full.shuffled, full.deck_seed)
    hole = next(e for e in hand["events"] if e["kind"] == "hole_cards")
    mine = parse_cards(hole["cards"])
    # pretend the server dealt the reader the card at the deck's last position instead
    substitute = commitment.cards[51]
    events = [dict(e, cards=e["cards"].replace(format_card(mine[0]), format_card(substitute)))
              if e is hole or e.get("kind") == "hole_cards" else e for e in hand["events"]]
    proofs = [p for p in hand["proofs"] if p["card"] != format_card(mine[0])]
    proofs.append(commitment.proof(51).to_dict())
    assert all(verify(hand["commitment"], CardProof.from_dict(p)) for p in proofs)
    report = check_hand(dict(hand, events=events, proofs=proofs))
    assert not report.ok and "dealing order puts it at" in report.line()


@pytest.mark.parametrize("variant", ["NLHE", "NAIKO"])
def test_r10_2_proofs_reveal_nothing_about_cards_not_dealt_to_the_requester(
        variant: str) -> None:
    """What a player receives holds only salted hashes of the cards they did not see: the salt
    of every other position never travels to them, no sibling hash is the leaf of any card at
    its position without that secret salt, and guessing a hidden card by hashing every card at a
    position needs the salt."""
    h, table_id, players, records = session(3, variant, 4, 2)
    for player in players:
        text = json.dumps(player.messages)
        for record in records:
            full = record.table_state().hand
            if full is None or full.deck_seed is None or player.player_id not in record.players:
                continue
            salts = salts_from_seed(bytes.fromhex(full.deck_seed))
            seen = {c for c in (parse_cards("".join(cards_in_hand(player, record)))) }
            for position, card in enumerate(full.shuffled):
                if card in seen:
                    continue
                assert salts[position].hex() not in text  # the secret salt never left
                # with a public salt, a leaf would be found by trying 52 cards: not so here
                guesses = {leaf_hash(position, c, bytes(32)).hex() for c in range(52)}
                assert not guesses & set(_hashes_in(text))
            assert full.deck_seed not in text


def cards_in_hand(player: Player, record: HandRecord) -> list[str]:
    hand = player.send(action="get_hand", table_id=record.table_id,
                       hand_number=record.hand_number)["hand"]
    return sorted(cards_in(hand["events"]))


def _hashes_in(text: str) -> list[str]:
    import re
    return re.findall(r"[0-9a-f]{64}", text)


def test_r10_2_naiko_verify_checks_stored_hands(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    hand, _ = _stored_hand(seed=21, variant="NAIKO")
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"type": "hand", "request_id": "r", "hand": hand}))
    assert naiko_verify.main([str(good)]) == 0
    assert "verified" in capsys.readouterr().out
    bad = dict(hand, commitment="0" * 64)
    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps(hand) + "\n" + json.dumps(bad) + "\n")
    assert naiko_verify.main([str(lines)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "2 hand(s), 1 verified, 1 failed" in out
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert naiko_verify.main([str(garbage)]) == 2


def test_r10_2_naiko_history_json_is_what_naiko_verify_reads(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    """The README's pipeline: ``naiko-history --format json --player P | naiko-verify -``."""
    import io

    from naiko_local import history

    h, table_id, players, records = session(4, "PLO", 3, 2)
    out = io.StringIO()
    assert history.main(["--player", "p1", "--recent", "10", "--format", "json"],
                        histories=h.store, out=out) == 0
    hands = tmp_path / "hands.json"
    hands.write_text(out.getvalue())
    assert naiko_verify.main([str(hands)]) == 0
    printed = capsys.readouterr().out
    dealt = sum("p1" in r.players for r in records)
    assert dealt and f"{dealt} hand(s), {dealt} verified, 0 failed" in printed
