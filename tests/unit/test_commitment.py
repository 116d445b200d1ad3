"""R10.2 committed deck: a Merkle root over salted positions, one proof per card seen.

Sources: RULES.md R10.2 (and R1.1, R6.1 for what a hand's proofs must agree on); RFC 6962 §2.1
(Merkle tree hash and audit paths) and RFC 9162 §2.1.3.2 (inclusion check); the reference
vectors come from google/trillian ``merkle/log_verifier_test.go`` (the certificate-transparency
test data: leaves ``""``, ``00``, ``10``, ``2021``, ... with the roots of trees of 1..8 leaves).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.cards import DECK_SIZE, FULL_DECK, format_card, parse_card
from naiko.commitment import (
    CardProof,
    DeckCommitment,
    InvalidDeck,
    MalformedProof,
    audit_path,
    leaf_hash,
    merkle_root,
    node_hash,
    root_from_path,
    verify,
    verify_hand,
)

decks = st.permutations(FULL_DECK)
salt_lists = st.lists(st.binary(min_size=32, max_size=32), min_size=DECK_SIZE,
                      max_size=DECK_SIZE, unique=True)
positions = st.integers(0, DECK_SIZE - 1)

FIXED_SALTS = [bytes([i]) * 32 for i in range(DECK_SIZE)]
# Known answer: FULL_DECK in order (2c 2d 2h 2s 3c ... As) with salt i = 32 bytes of value i.
# Also printed in docs/fairness.md; it must never change (stored hands are verified with it).
FIXED_ROOT = "bd789070c98d4072d80d00e33781bc52880f71cad947157e3279f01251c1a5d6"


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def reference_root(deck: list[int], salts: list[bytes]) -> bytes:
    """The construction of docs/fairness.md written out again with hashlib only."""
    def tree(hashes: list[bytes]) -> bytes:
        if len(hashes) == 1:
            return hashes[0]
        k = 1
        while k * 2 < len(hashes):
            k *= 2
        return sha256(b"\x01" + tree(hashes[:k]) + tree(hashes[k:]))
    return tree([sha256(b"\x00naiko-card" + bytes([i, card]) + salt)
                 for i, (card, salt) in enumerate(zip(deck, salts, strict=True))])


def is_hash_hex(text: object) -> bool:
    return (isinstance(text, str) and len(text) == 64
            and all(c in "0123456789abcdef" for c in text))


# -- every position verifies; the root binds every card and salt ------------------------------

@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists)
def test_r10_2_every_position_of_a_random_deck_verifies_against_the_root(
        deck: list[int], salts: list[bytes]) -> None:
    commitment = DeckCommitment(deck, salts)
    proofs = [commitment.proof(i) for i in range(DECK_SIZE)]
    assert commitment.root == reference_root(deck, salts).hex()
    for i, proof in enumerate(proofs):
        assert (proof.position, proof.card, proof.salt) == (i, deck[i], salts[i].hex())
        assert verify(commitment.root, proof)
        assert len(proof.path) == (6 if i < 48 else 4)  # 52 = 32 + 16 + 4
    assert verify_hand(commitment.root, proofs) == []


@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists, i=positions, j=positions, bit=st.integers(0, 255))
def test_r10_2_root_changes_when_any_card_or_salt_changes(
        deck: list[int], salts: list[bytes], i: int, j: int, bit: int) -> None:
    root = DeckCommitment(deck, salts).root
    if i != j:
        swapped = list(deck)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        assert DeckCommitment(swapped, salts).root != root
    salted = list(salts)
    flipped = bytearray(salted[i])
    flipped[bit // 8] ^= 1 << (bit % 8)
    salted[i] = bytes(flipped)
    assert DeckCommitment(deck, salted).root != root


def test_r10_2_known_answer_for_a_fixed_deck_and_fixed_salts() -> None:
    commitment = DeckCommitment(list(FULL_DECK), FIXED_SALTS)
    assert commitment.root == FIXED_ROOT
    assert commitment.root == reference_root(list(FULL_DECK), FIXED_SALTS).hex()
    # leaf 0 (2c, salt 00..00) as docs/fairness.md computes it with sha256sum
    assert leaf_hash(0, 0, bytes(32)).hex() == (
        "b815313de09c2c3470a40f5239dd4c8a0a6fccdb902de94edb5d8d0251aa34e6")


# -- a deck altered after the commitment -------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists, i=positions, j=positions)
def test_r10_2_a_swap_after_the_commitment_fails_for_the_swapped_positions(
        deck: list[int], salts: list[bytes], i: int, j: int) -> None:
    if i == j:
        j = (i + 1) % DECK_SIZE
    commitment = DeckCommitment(deck, salts)
    altered = list(deck)
    altered[i], altered[j] = altered[j], altered[i]
    # the server deals from the altered deck, with the original proofs' salts and paths ...
    for position in (i, j):
        honest = commitment.proof(position)
        assert not verify(commitment.root, replace(honest, card=altered[position]))
    # ... or with proofs recomputed from the altered deck: they lead to another root
    recomputed = DeckCommitment(altered, salts)
    for position in (i, j):
        assert not verify(commitment.root, recomputed.proof(position))
    # ... or moves the proof of the other position along with its card
    assert not verify(commitment.root, replace(commitment.proof(j), position=i))
    # the untouched positions still verify against the published root
    k = next(p for p in range(DECK_SIZE) if p not in (i, j))
    assert verify(commitment.root, commitment.proof(k))


@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists, i=positions, card=st.integers(0, DECK_SIZE - 1))
def test_r10_2_a_card_replaced_after_the_commitment_fails(
        deck: list[int], salts: list[bytes], i: int, card: int) -> None:
    commitment = DeckCommitment(deck, salts)
    proof = commitment.proof(i)
    assert verify(commitment.root, replace(proof, card=card)) == (card == deck[i])


# -- a proof reveals nothing about the other positions ---------------------------------------

@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists, i=positions)
def test_r10_2_a_proof_carries_no_card_or_salt_of_another_position(
        deck: list[int], salts: list[bytes], i: int) -> None:
    commitment = DeckCommitment(deck, salts)
    wire = commitment.proof(i).to_dict()
    assert set(wire) == {"position", "card", "card_id", "salt", "path"}
    assert (wire["position"], wire["card"], wire["card_id"]) == (i, format_card(deck[i]), deck[i])
    assert wire["salt"] == salts[i].hex()
    assert isinstance(wire["path"], list) and all(is_hash_hex(h) for h in wire["path"])
    text = json.dumps(wire)
    for j, salt in enumerate(salts):
        if j != i:
            assert salt.hex() not in text


@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists, i=positions, data=st.data())
def test_r10_2_decks_differing_away_from_i_give_proofs_for_i_differing_only_in_hashes(
        deck: list[int], salts: list[bytes], i: int, data: st.DataObject) -> None:
    others = [p for p in range(DECK_SIZE) if p != i]
    shuffled = data.draw(st.permutations([deck[p] for p in others]), label="other cards")
    new_salts = data.draw(st.lists(st.binary(min_size=32, max_size=32).filter(
        lambda s: s != salts[i]), min_size=DECK_SIZE - 1, max_size=DECK_SIZE - 1, unique=True),
        label="other salts")
    deck2, salts2 = list(deck), list(salts)
    for p, card, salt in zip(others, shuffled, new_salts, strict=True):
        deck2[p], salts2[p] = card, salt
    first, second = DeckCommitment(deck, salts).proof(i), DeckCommitment(deck2, salts2).proof(i)
    assert replace(second, path=first.path) == first
    assert len(first.path) == len(second.path)
    assert all(is_hash_hex(h) for h in first.path + second.path)


@settings(max_examples=40, deadline=None)
@given(deck=decks, salts=salt_lists, i=positions)
def test_r10_2_the_revealed_salt_does_not_open_the_neighbouring_leaf(
        deck: list[int], salts: list[bytes], i: int) -> None:
    """The bottom hash of a proof is the neighbour's leaf: trying the 52 cards with the salt
    that the proof reveals must find nothing (it would if positions shared a salt)."""
    proof = DeckCommitment(deck, salts).proof(i)
    if len(proof.path) < 6:
        return  # positions 48..51: the bottom sibling is a pair of leaves, not one leaf
    neighbour, revealed = i ^ 1, bytes.fromhex(proof.salt)
    assert not any(leaf_hash(neighbour, c, revealed).hex() == proof.path[0]
                   for c in range(DECK_SIZE))
    # positive control: with one salt for both positions the search finds the card
    shared = leaf_hash(neighbour, deck[neighbour], revealed).hex()
    assert [c for c in range(DECK_SIZE)
            if leaf_hash(neighbour, c, revealed).hex() == shared] == [deck[neighbour]]


def test_r10_2_commitment_never_shows_the_deck_or_salts_in_its_repr() -> None:
    commitment = DeckCommitment(list(FULL_DECK), FIXED_SALTS)
    assert repr(commitment) == f"DeckCommitment(root='{FIXED_ROOT}')"


# -- malformed input ---------------------------------------------------------------------------

GOOD = DeckCommitment(list(FULL_DECK), FIXED_SALTS)
GOOD_PROOF = GOOD.proof(5)
HASH = "ab" * 32


@pytest.mark.parametrize("change", [
    {"path": GOOD_PROOF.path[:-1]},                      # too short
    {"path": GOOD_PROOF.path + (HASH,)},                  # too long
    {"path": GOOD_PROOF.path + ("zz" * 32,)},             # a valid path and junk
    {"path": (None,) + GOOD_PROOF.path},
    {"path": ()},
    {"path": (GOOD_PROOF.path[0][:-2],) + GOOD_PROOF.path[1:]},          # 31-byte hash
    {"path": (GOOD_PROOF.path[0] + "00",) + GOOD_PROOF.path[1:]},        # 33-byte hash
    {"path": (GOOD_PROOF.path[0].upper(),) + GOOD_PROOF.path[1:]},       # not canonical
    {"path": ("zz" * 32,) + GOOD_PROOF.path[1:]},                        # not hex
    {"path": (None,) + GOOD_PROOF.path[1:]},
    {"path": (bytes(32),) + GOOD_PROOF.path[1:]},
    {"path": "".join(GOOD_PROOF.path)},
    {"path": None},
    {"position": -1}, {"position": 52}, {"position": 10**30}, {"position": "5"},
    {"position": 5.0}, {"position": None},
    {"card": -1}, {"card": 52}, {"card": "2h"}, {"card": None}, {"card": 5.0},
    {"salt": GOOD_PROOF.salt[:-2]}, {"salt": GOOD_PROOF.salt + "00"}, {"salt": ""},
    {"salt": "g" * 64}, {"salt": bytes.fromhex(GOOD_PROOF.salt)}, {"salt": None},
])
def test_r10_2_malformed_proofs_are_false_and_never_raise(change: dict[str, Any]) -> None:
    assert verify(GOOD.root, GOOD_PROOF)
    bad = replace(GOOD_PROOF, **change)
    assert verify(GOOD.root, bad) is False
    assert verify_hand(GOOD.root, [bad]) != []


@pytest.mark.parametrize("root", ["", GOOD.root[:-2], GOOD.root.upper(), None, 5,
                                  bytes.fromhex(GOOD.root), "x" * 64])
def test_r10_2_a_malformed_root_is_false_and_never_raises(root: Any) -> None:
    assert verify(root, GOOD_PROOF) is False
    assert len(verify_hand(root, [GOOD_PROOF])) == 1


@pytest.mark.parametrize("leaf_count", [0, -1, 53, 64, 10**9, None, "52", True, 26, 13])
def test_r10_2_a_proof_holds_only_for_a_tree_of_52_leaves(leaf_count: Any) -> None:
    """As in RFC 6962 the tree size is an input of the check, not part of the proof (a path
    can fit several sizes: position 5 has the same path shape for 33..52 leaves); for us it is
    always 52."""
    assert verify(GOOD.root, GOOD_PROOF, leaf_count) is False


@pytest.mark.parametrize("junk", ["zz" * 32, None, "", HASH.upper()])
def test_r10_2_junk_next_to_a_valid_short_path_is_false(junk: Any) -> None:
    """Positions 48..51 have 4 hashes, so junk added to them is still within 6 entries."""
    proof = GOOD.proof(49)
    assert len(proof.path) == 4 and verify(GOOD.root, proof)
    assert verify(GOOD.root, replace(proof, path=(*proof.path, junk))) is False
    assert verify(GOOD.root, replace(proof, path=(junk, *proof.path))) is False


def test_r10_2_a_position_past_the_last_leaf_is_false() -> None:
    assert verify(GOOD.root, GOOD.proof(51), 51) is False


anything = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(),
                     st.text(max_size=70), st.binary(max_size=40),
                     st.text(alphabet="0123456789abcdefABCDEF", min_size=62, max_size=66))


@settings(max_examples=300, deadline=None)
@given(position=anything, card=anything, salt=anything,
       path=st.one_of(anything, st.lists(anything, max_size=8),
                      st.lists(anything, max_size=8).map(tuple)),
       root=anything, leaf_count=anything)
def test_r10_2_verify_never_raises_on_arbitrary_fields(
        position: Any, card: Any, salt: Any, path: Any, root: Any, leaf_count: Any) -> None:
    proof = CardProof(position=position, card=card, salt=salt, path=path)
    assert verify(root, proof, leaf_count) is False  # nothing random proves a card
    assert verify(GOOD.root, proof) is False
    assert isinstance(verify_hand(GOOD.root, [proof, proof, GOOD_PROOF]), list)


def test_r10_2_verify_is_false_for_something_that_is_not_a_proof() -> None:
    wire: Any = GOOD_PROOF.to_dict()
    assert verify(GOOD.root, wire) is False
    assert verify_hand(GOOD.root, [wire]) != []


# -- the wire form -----------------------------------------------------------------------------

def test_r10_2_every_proof_round_trips_through_json() -> None:
    for i in range(DECK_SIZE):
        proof = GOOD.proof(i)
        back = CardProof.from_dict(json.loads(json.dumps(proof.to_dict())))
        assert back == proof and verify(GOOD.root, back)
    assert GOOD.proof(50).to_dict()["card"] == "Ah" == format_card(parse_card("Ah"))


def test_r10_2_the_card_id_may_be_left_out_of_the_wire_form() -> None:
    wire = GOOD_PROOF.to_dict()
    del wire["card_id"]
    assert CardProof.from_dict(wire) == GOOD_PROOF


@pytest.mark.parametrize("change", [
    {"position": "5"}, {"position": True}, {"position": None}, {"card": "Xx"}, {"card": 5},
    {"card": None}, {"card_id": 6}, {"card_id": "5"}, {"salt": None}, {"salt": 5},
    {"path": None}, {"path": "ab"}, {"path": [1, 2]},
])
def test_r10_2_from_dict_rejects_what_is_not_shaped_like_a_proof(change: dict[str, Any]) -> None:
    wire = {**GOOD_PROOF.to_dict(), **change}
    with pytest.raises(MalformedProof):
        CardProof.from_dict(wire)


@settings(max_examples=200, deadline=None)
@given(data=st.dictionaries(st.sampled_from(["position", "card", "card_id", "salt", "path"]),
                            st.one_of(anything, st.lists(anything, max_size=3))))
def test_r10_2_from_dict_raises_only_malformed_proof(data: dict[str, Any]) -> None:
    try:
        proof = CardProof.from_dict(data)
    except MalformedProof:
        return
    assert verify(GOOD.root, proof) is False


def test_r10_2_to_dict_refuses_a_card_that_is_not_a_card() -> None:
    with pytest.raises(MalformedProof):
        replace(GOOD_PROOF, card=-1).to_dict()


# -- one hand's proofs together ----------------------------------------------------------------

def test_r10_2_hand_with_one_position_claimed_for_two_cards() -> None:
    """A Peek (R6.1) showed one card, the board card dealt from that position is another."""
    peeked = GOOD.proof(20)
    forged = replace(peeked, card=(peeked.card + 1) % DECK_SIZE)
    problems = verify_hand(GOOD.root, [GOOD.proof(0), peeked, forged])
    assert problems == [
        "proof 2 (7d at position 20) does not match the root",
        "position 20 is claimed for both 7c and 7d",
    ]


def test_r10_2_hand_with_one_card_claimed_at_two_positions() -> None:
    moved = replace(GOOD.proof(3), position=9)
    problems = verify_hand(GOOD.root, [GOOD.proof(3), moved])
    assert problems == [
        "proof 1 (2s at position 9) does not match the root",
        "2s is claimed at positions 3 and 9 (a deck holds each card once, R1.1)",
    ]


def test_r10_2_the_same_card_proved_twice_is_not_a_problem() -> None:
    board = GOOD.proof(25)
    assert verify_hand(GOOD.root, [board, GOOD.proof(26), board]) == []


def test_r10_2_hand_proofs_are_checked_against_that_hands_root() -> None:
    other = DeckCommitment(list(reversed(FULL_DECK)), FIXED_SALTS)
    problems = verify_hand(other.root, [GOOD.proof(0), GOOD.proof(1)])
    assert len(problems) == 2 and all("does not match the root" in p for p in problems)


# -- the commitment refuses what is not a deck -------------------------------------------------

@pytest.mark.parametrize(("cards", "salts"), [
    (list(FULL_DECK)[:51], FIXED_SALTS[:51]),
    (list(FULL_DECK)[:51] + [0], FIXED_SALTS),                  # a card twice (R1.1)
    (list(FULL_DECK)[:51] + [52], FIXED_SALTS),
    ([True] + list(FULL_DECK)[1:], FIXED_SALTS),
    (list(FULL_DECK), FIXED_SALTS[:51]),
    (list(FULL_DECK), FIXED_SALTS[:51] + [b"x" * 31]),
    (list(FULL_DECK), FIXED_SALTS[:51] + ["00" * 32]),
    (list(FULL_DECK), [bytes(32)] * DECK_SIZE),                 # one salt for every position
    (list(FULL_DECK), FIXED_SALTS[:51] + [FIXED_SALTS[0]]),
])
def test_r10_2_commitment_needs_a_full_deck_and_distinct_salts(cards: Any, salts: Any) -> None:
    with pytest.raises(InvalidDeck):
        DeckCommitment(cards, salts)


@pytest.mark.parametrize("position", [-1, 52, True, "0"])
def test_r10_2_no_proof_for_a_position_outside_the_deck(position: Any) -> None:
    with pytest.raises(IndexError):
        GOOD.proof(position)


# -- the RFC 6962 tree shape -------------------------------------------------------------------

L = [bytes([i]) * 32 for i in range(8)]  # stand-in leaf hashes


def test_r10_2_tree_of_3_leaves_splits_2_plus_1() -> None:
    #        root
    #       /    \
    #     ab      c
    #    /  \
    #   a    b
    a, b, c = L[:3]
    ab = node_hash(a, b)
    root = node_hash(ab, c)
    assert root == sha256(b"\x01" + sha256(b"\x01" + a + b) + c)
    assert merkle_root([a, b, c]) == root
    assert audit_path([a, b, c], 0) == [b, c]
    assert audit_path([a, b, c], 1) == [a, c]
    assert audit_path([a, b, c], 2) == [ab]
    for i, leaf in enumerate((a, b, c)):
        assert root_from_path(leaf, i, 3, audit_path([a, b, c], i)) == root


def test_r10_2_tree_of_5_leaves_splits_4_plus_1() -> None:
    #            root
    #          /      \
    #       abcd        e
    #      /    \
    #    ab      cd
    #   /  \    /  \
    #  a    b  c    d
    a, b, c, d, e = L[:5]
    ab, cd = node_hash(a, b), node_hash(c, d)
    abcd = node_hash(ab, cd)
    root = node_hash(abcd, e)
    leaves = [a, b, c, d, e]
    assert merkle_root(leaves) == root
    assert audit_path(leaves, 0) == [b, cd, e]
    assert audit_path(leaves, 3) == [c, ab, e]
    assert audit_path(leaves, 4) == [abcd]
    for i, leaf in enumerate(leaves):
        assert root_from_path(leaf, i, 5, audit_path(leaves, i)) == root
        # the same path does not prove the leaf in a tree of another size
        assert root_from_path(leaf, i, 4 if i < 4 else 6, audit_path(leaves, i)) != root
    # not a balanced tree padded to 8, nor a split in halves
    assert root != node_hash(node_hash(a, b), node_hash(node_hash(c, d), e))
    assert root != node_hash(node_hash(node_hash(a, b), c), node_hash(d, e))


def test_r10_2_tree_of_52_leaves_splits_32_16_4() -> None:
    leaves = [sha256(bytes([i])) for i in range(DECK_SIZE)]
    top16 = merkle_root(leaves[32:48])
    last4 = merkle_root(leaves[48:])
    assert merkle_root(leaves) == node_hash(merkle_root(leaves[:32]), node_hash(top16, last4))
    assert audit_path(leaves, 50)[2:] == [top16, merkle_root(leaves[:32])]


RFC6962_DATA = [b"", b"\x00", b"\x10", b"\x20\x21", b"\x30\x31", b"\x40\x41\x42\x43",
                bytes(range(0x50, 0x58)), bytes(range(0x60, 0x70))]
RFC6962_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (leaf index, tree size, audit path) from the same test file
RFC6962_PATHS = [
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]


def test_r10_2_tree_matches_the_certificate_transparency_reference_roots() -> None:
    """Same node hash as RFC 6962 (``0x01 || left || right``), so with RFC 6962 leaves
    (``SHA-256(0x00 || data)``) our tree must give the published roots."""
    leaves = [sha256(b"\x00" + data) for data in RFC6962_DATA]
    assert [merkle_root(leaves[:n]).hex() for n in range(1, 9)] == RFC6962_ROOTS


@pytest.mark.parametrize(("index", "size", "path"), RFC6962_PATHS)
def test_r10_2_audit_paths_match_the_certificate_transparency_reference(
        index: int, size: int, path: list[str]) -> None:
    leaves = [sha256(b"\x00" + data) for data in RFC6962_DATA[:size]]
    assert [h.hex() for h in audit_path(leaves, index)] == path
    root = bytes.fromhex(RFC6962_ROOTS[size - 1])
    siblings = [bytes.fromhex(h) for h in path]
    assert root_from_path(leaves[index], index, size, siblings) == root
    for wrong_index in {index - 1, index + 1, index ^ 2} - {index}:
        assert root_from_path(leaves[index], wrong_index, size, siblings) != root
    for wrong_size in (size * 2, size // 2):
        assert root_from_path(leaves[index], index, wrong_size, siblings) != root
    assert root_from_path(leaves[index], index, size, siblings[:-1]) != root
    assert root_from_path(leaves[index], index, size, [*siblings, root]) != root
    assert root_from_path(leaves[index], index, size, [root, *siblings]) != root


@pytest.mark.parametrize("size", [3, 5])
def test_r10_2_small_trees_verify_through_card_proofs(size: int) -> None:
    """``verify`` with ``leaf_count`` 3 and 5: card proofs over hand-built small trees."""
    cards = [parse_card(t) for t in ("Ah", "Kd", "7c", "2s", "Th")[:size]]
    salts = FIXED_SALTS[:size]
    leaves = [leaf_hash(i, c, s) for i, (c, s) in enumerate(zip(cards, salts, strict=True))]
    root = merkle_root(leaves).hex()
    for i in range(size):
        proof = CardProof(position=i, card=cards[i], salt=salts[i].hex(),
                          path=tuple(h.hex() for h in audit_path(leaves, i)))
        assert verify(root, proof, size)
        assert not verify(root, proof, size * 2)
        assert not verify(root, proof)  # a 52-card deck
