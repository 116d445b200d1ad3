""":mod:`naiko.commitment` implements the committed deck of R10.2: a Merkle root over the salted
positions of a shuffled deck, published before the first card is dealt, and one proof per card
that anyone can check against it afterwards.

Construction (the exact bytes are a public contract: changing them breaks the verification of
every stored hand; ``docs/fairness.md`` spells them out for independent verifiers):

- leaf ``i`` = ``SHA-256(b"\\x00naiko-card" || i || card || salt_i)``: position and card are one
  byte each (``0..51``; the card is ``rank * 4 + suit`` as in :mod:`naiko.cards`), the salt is
  32 bytes, 45 bytes hashed in all;
- node = ``SHA-256(b"\\x01" || left || right)``, 65 bytes hashed;
- tree shape of RFC 6962 §2.1 (Certificate Transparency, kept in RFC 9162 §2.1.1): a list of
  ``n > 1`` leaves splits at ``k``, the largest power of two smaller than ``n``; the left
  ``k`` leaves form the left subtree. The root is the committed value (64 lowercase hex digits);
- a proof is the RFC 6962 audit path of the leaf: the sibling hashes from the bottom up, checked
  with the algorithm of RFC 9162 §2.1.3.2 for a tree of 52 leaves.

Why a salt: a leaf has only 52 x 52 possible (position, card) contents, so an unsalted leaf
hash is inverted by trying them all; every sibling hash in a proof would then give away a card.
A secret 32-byte salt makes that search hopeless (2**256 salts per guess).

Why one salt per position: a proof reveals the salt of its own position (the verifier needs it to
rebuild the leaf). If another position shared that salt, its leaf, the very hash that a proof
for a neighbouring position carries, could again be inverted by trying 52 cards. With a
distinct secret salt per position, a proof for position ``i`` carries nothing about any other
position but hashes of secret-salted data. :class:`DeckCommitment` therefore refuses repeated
salts (with ``secrets.token_bytes(32)`` that only ever catches a bug such as ``[salt] * 52``).

Why domain separation: leaves start with ``0x00`` and nodes with ``0x01`` (and the two inputs
differ in length: 45 and 65 bytes), so a node can never be passed off as a leaf or a leaf as a
node: the second-preimage attack on plain Merkle trees, where an inner node is presented as a
leaf of a shorter tree, does not apply. The ``naiko-card`` tag keeps our leaves apart from any
other use of SHA-256 leaves with the same 0x00 prefix (such as Certificate Transparency logs).

Wire size: 52 leaves split as 32 + 16 + 4, so a proof for positions 0..47 has 6 sibling hashes
and one for positions 48..51 has 4 (a hand never deals that deep: 10 Omaha players and a board
take 45 cards). A proof is a position, a card, a 32-byte salt and at most 6 hashes: 226 bytes
in binary; :meth:`CardProof.to_dict` as compact JSON is about 520 bytes.

What the commitment does not prove: that the shuffle was uniform (the server still chooses the
deck), nor that the 52 committed cards are 52 different cards (only cards that are revealed can
be compared: :func:`verify_hand` reports a card claimed at two positions). It proves that the
cards a player saw were fixed, at the positions the dealing order gives them, before the hand's
first card.

>>> from dataclasses import replace
>>> from naiko.cards import seeded_random, shuffled_deck
>>> deck = shuffled_deck(seeded_random(7))
>>> salts = [bytes([i]) * 32 for i in range(52)]  # the service draws secrets.token_bytes(32)
>>> commitment = DeckCommitment(deck, salts)
>>> proof = commitment.proof(0)
>>> proof.card == deck[0], len(proof.path)
(True, 6)
>>> verify(commitment.root, proof)
True
>>> verify(commitment.root, replace(proof, card=deck[1]))
False
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

from .cards import DECK_SIZE, FULL_DECK, Card, InvalidCard, format_card, parse_card

LEAF_PREFIX = b"\x00naiko-card"
"""Prefix of every leaf's hash input (``0x00`` marks a leaf, the tag names the scheme)."""

NODE_PREFIX = b"\x01"
"""Prefix of every inner node's hash input."""

SALT_SIZE = 32
"""Bytes in one position's salt."""

HASH_SIZE = 32
"""Bytes in one SHA-256 hash (64 lowercase hex digits on the wire)."""

SEED_SIZE = 32
"""Bytes in a hand's secret deck seed (:func:`salts_from_seed`)."""

SALT_TAG = b"naiko-salt"
"""HMAC message prefix of a position's salt (:func:`salts_from_seed`)."""

_HEX32 = re.compile(r"[0-9a-f]{64}")


class InvalidDeck(ValueError):
    """Raised when a commitment is asked for something other than a full deck with 52 distinct
    32-byte salts."""


class MalformedProof(ValueError):
    """Raised by :meth:`CardProof.from_dict` when the data does not have the shape of a proof."""


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _hash_from_hex(text: object) -> bytes | None:
    """32 bytes from exactly 64 lowercase hex digits, or ``None`` for anything else."""
    if isinstance(text, str) and _HEX32.fullmatch(text):
        return bytes.fromhex(text)
    return None


def leaf_hash(position: int, card: Card, salt: bytes) -> bytes:
    """The leaf of *card* at *position*: ``SHA-256(LEAF_PREFIX || position || card || salt)``.

    :param position: The position in the shuffled deck, 0 for the first card dealt (0..51).
    :param card: The card (0..51), see :mod:`naiko.cards`.
    :param salt: The position's secret salt, :data:`SALT_SIZE` bytes.
    :raises ValueError: If a value is out of range or the salt has the wrong length.

    >>> leaf_hash(0, 0, bytes(32)).hex()[:16]
    'b815313de09c2c34'
    """
    if not (_is_int(position) and 0 <= position < DECK_SIZE):
        raise ValueError(f"position must be 0..{DECK_SIZE - 1}, not {position!r}")
    if not (_is_int(card) and 0 <= card < DECK_SIZE):
        raise ValueError(f"card must be 0..{DECK_SIZE - 1}, not {card!r}")
    if not (isinstance(salt, bytes) and len(salt) == SALT_SIZE):
        raise ValueError(f"a salt is {SALT_SIZE} bytes")
    return hashlib.sha256(LEAF_PREFIX + bytes((position, card)) + salt).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """An inner node: ``SHA-256(NODE_PREFIX || left || right)``."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def _split(size: int) -> int:
    """The largest power of two smaller than *size* (``size >= 2``), RFC 6962 §2.1."""
    return 1 << ((size - 1).bit_length() - 1)


def _subtree(leaves: Sequence[bytes], start: int, end: int,
             nodes: dict[tuple[int, int], bytes]) -> bytes:
    """The hash of ``leaves[start:end]``, recording every subtree's hash in *nodes*."""
    if end - start == 1:
        digest = leaves[start]
    else:
        middle = start + _split(end - start)
        digest = node_hash(_subtree(leaves, start, middle, nodes),
                           _subtree(leaves, middle, end, nodes))
    nodes[(start, end)] = digest
    return digest


def _path(nodes: Mapping[tuple[int, int], bytes], start: int, end: int,
          index: int) -> list[bytes]:
    """The audit path of leaf *index* inside ``[start, end)``, bottom-up (RFC 6962 §2.1.1)."""
    path: list[bytes] = []
    while end - start > 1:
        middle = start + _split(end - start)
        if index < middle:
            path.append(nodes[(middle, end)])
            end = middle
        else:
            path.append(nodes[(start, middle)])
            start = middle
    path.reverse()  # collected top-down
    return path


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """The RFC 6962 Merkle tree hash of already hashed *leaves*, with :func:`node_hash` nodes.

    :raises ValueError: If *leaves* is empty.

    >>> a, b, c = (bytes([i]) * 32 for i in range(3))
    >>> merkle_root([a, b, c]) == node_hash(node_hash(a, b), c)
    True
    """
    if not leaves:
        raise ValueError("a Merkle tree needs at least one leaf")
    return _subtree(leaves, 0, len(leaves), {})


def audit_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The RFC 6962 audit path of ``leaves[index]``: sibling hashes from the bottom up.

    :raises IndexError: If *index* is not a position of *leaves*.

    >>> a, b, c = (bytes([i]) * 32 for i in range(3))
    >>> audit_path([a, b, c], 2) == [node_hash(a, b)]
    True
    """
    if not 0 <= index < len(leaves):
        raise IndexError(f"no leaf {index} among {len(leaves)}")
    nodes: dict[tuple[int, int], bytes] = {}
    _subtree(leaves, 0, len(leaves), nodes)
    return _path(nodes, 0, len(leaves), index)


def root_from_path(leaf: bytes, index: int, size: int, path: Sequence[bytes]) -> bytes | None:
    """The root that *path* leads to from *leaf* at *index* in a tree of *size* leaves, or
    ``None`` when the path cannot belong to that position (too short or too long).

    This is the inclusion check of RFC 9162 §2.1.3.2, with :func:`node_hash` nodes.

    >>> a, b, c = (bytes([i]) * 32 for i in range(3))
    >>> root_from_path(c, 2, 3, [node_hash(a, b)]) == merkle_root([a, b, c])
    True
    >>> root_from_path(c, 2, 3, []) is None
    True
    """
    if not 0 <= index < size:
        return None
    fn, sn, digest = index, size - 1, leaf
    for sibling in path:
        if sn == 0:
            return None  # the path is longer than the leaf's depth
        if fn & 1 or fn == sn:
            digest = node_hash(sibling, digest)
            if not fn & 1:  # the last node of a level with no right sibling: go up
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            digest = node_hash(digest, sibling)
        fn >>= 1
        sn >>= 1
    return digest if sn == 0 else None


@dataclass(frozen=True)
class CardProof:
    """The proof that *card* was at *position* of a committed deck (R10.2).

    A proof is plain data as received from the wire: it is not checked when built. Check it
    with :func:`verify`.

    >>> proof = CardProof(position=0, card=50, salt="00" * 32, path=("11" * 32,))
    >>> proof.to_dict()["card"]
    'Ah'
    >>> CardProof.from_dict(proof.to_dict()) == proof
    True
    """

    position: int
    """The card's position in the shuffled deck, 0 for the first card dealt."""
    card: Card
    """The card, ``rank * 4 + suit`` (0..51)."""
    salt: str
    """The position's salt, 64 lowercase hex digits."""
    path: tuple[str, ...]
    """The audit path: sibling hashes from the leaf up to the root, 64 lowercase hex digits each;
    at most 6 for a 52-card deck."""

    def to_dict(self) -> dict[str, object]:
        """The proof as a JSON-compatible value: ``card`` is the text (``"Ah"``), ``card_id``
        the int.

        :raises MalformedProof: If the card is not a card.
        """
        if not (_is_int(self.card) and 0 <= self.card < DECK_SIZE):
            raise MalformedProof(f"not a card: {self.card!r}")
        return {"position": self.position, "card": format_card(self.card),
                "card_id": self.card, "salt": self.salt, "path": list(self.path)}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> CardProof:
        """A proof from its :meth:`to_dict` form. Only the shape is checked (types, and that
        ``card`` and ``card_id`` name the same card; ``card_id`` may be left out);
        :func:`verify` checks the content.

        :raises MalformedProof: If *data* does not have the shape of a proof.
        """
        if not isinstance(data, Mapping):
            raise MalformedProof("a proof is an object")
        position, text, salt, path = (data.get(k) for k in ("position", "card", "salt", "path"))
        if not _is_int(position):
            raise MalformedProof(f"position must be an int, not {position!r}")
        if not isinstance(text, str):
            raise MalformedProof(f"card must be the text of a card, not {text!r}")
        try:
            card = parse_card(text)
        except InvalidCard as e:
            raise MalformedProof(str(e)) from e
        if "card_id" in data and (not _is_int(data["card_id"]) or data["card_id"] != card):
            raise MalformedProof(f"card_id {data['card_id']!r} is not {text}")
        if not isinstance(salt, str):
            raise MalformedProof("salt must be a hex string")
        if not (isinstance(path, list | tuple) and all(isinstance(h, str) for h in path)):
            raise MalformedProof("path must be a list of hex strings")
        return cls(position=position, card=card, salt=salt, path=tuple(path))


@dataclass(frozen=True)
class DeckCommitment:
    """The commitment to one hand's shuffled deck (R10.2): publish :attr:`root` before the first
    card is dealt, and send :meth:`proof` with every card a player receives or sees.

    .. warning:: It holds the whole deck and every salt, which must stay secret until the end
       of the hand and, for cards nobody saw, forever. ``repr`` shows the root only.

    :param cards: The shuffled deck, position 0 first: each of the 52 cards once (R1.1).
    :param salts: 52 distinct salts of :data:`SALT_SIZE` bytes, ``salts[i]`` for position
        ``i``; draw them with ``secrets.token_bytes(SALT_SIZE)`` (passed in, so the engine
        stays deterministic).
    :raises InvalidDeck: If *cards* is not a full deck or *salts* are not 52 distinct salts.

    >>> commitment = DeckCommitment(list(range(52)), [bytes([i]) * 32 for i in range(52)])
    >>> commitment
    DeckCommitment(root='bd789070c98d4072d80d00e33781bc52880f71cad947157e3279f01251c1a5d6')
    """

    cards: Sequence[Card] = field(repr=False)
    """The deck, stored as a tuple."""
    salts: Sequence[bytes] = field(repr=False)
    """The salts, stored as a tuple."""
    root: str = field(init=False)
    """The Merkle root, 64 lowercase hex digits: the value published before dealing."""
    _nodes: dict[tuple[int, int], bytes] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cards, salts = tuple(self.cards), tuple(self.salts)
        if (len(cards) != DECK_SIZE or not all(_is_int(c) for c in cards)
                or sorted(cards) != list(FULL_DECK)):
            raise InvalidDeck("the deck must hold each of the 52 cards once (R1.1)")
        if len(salts) != DECK_SIZE or not all(
                isinstance(s, bytes) and len(s) == SALT_SIZE for s in salts):
            raise InvalidDeck(f"a commitment needs {DECK_SIZE} salts of {SALT_SIZE} bytes")
        if len(set(salts)) != DECK_SIZE:
            raise InvalidDeck("every position needs its own salt: a proof reveals its salt")
        nodes: dict[tuple[int, int], bytes] = {}
        leaves = [leaf_hash(i, card, salt)
                  for i, (card, salt) in enumerate(zip(cards, salts, strict=True))]
        root = _subtree(leaves, 0, DECK_SIZE, nodes)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "salts", salts)
        object.__setattr__(self, "root", root.hex())
        object.__setattr__(self, "_nodes", nodes)

    @property
    def leaf_count(self) -> int:
        """The number of leaves, always 52: the ``leaf_count`` that :func:`verify` expects."""
        return len(self.cards)

    def proof(self, position: int) -> CardProof:
        """The proof for the card at *position*, to send with that card.

        :raises IndexError: If *position* is not 0..51.
        """
        if not (_is_int(position) and 0 <= position < DECK_SIZE):
            raise IndexError(f"no position {position!r} in a {DECK_SIZE}-card deck")
        path = _path(self._nodes, 0, DECK_SIZE, position)
        return CardProof(position=position, card=self.cards[position],
                         salt=self.salts[position].hex(), path=tuple(h.hex() for h in path))


def verify(root: str, proof: CardProof, leaf_count: int = DECK_SIZE) -> bool:
    """Whether *proof* shows its card at its position of the deck committed to by *root*.

    Never raises: anything malformed (a root or hash that is not 64 lowercase hex digits, a salt
    of the wrong length, a position or card out of range, a path of the wrong length) is
    ``False``.

    :param root: The published root, 64 lowercase hex digits.
    :param proof: The proof, as received.
    :param leaf_count: The number of committed leaves: 52 for a deck (1..52 accepted).

    >>> commitment = DeckCommitment(list(range(52)), [bytes([i]) * 32 for i in range(52)])
    >>> verify(commitment.root, commitment.proof(51))
    True
    >>> verify(commitment.root, CardProof(position=51, card=51, salt="zz", path=()))
    False
    """
    if not isinstance(proof, CardProof):
        return False
    if not (_is_int(leaf_count) and 1 <= leaf_count <= DECK_SIZE):
        return False
    position, card = proof.position, proof.card
    if not (_is_int(position) and 0 <= position < leaf_count):
        return False
    if not (_is_int(card) and 0 <= card < DECK_SIZE):
        return False
    expected, salt = _hash_from_hex(root), _hash_from_hex(proof.salt)
    if expected is None or salt is None:
        return False
    if not isinstance(proof.path, tuple | list) or len(proof.path) > leaf_count.bit_length():
        return False
    siblings: list[bytes] = []
    for text in proof.path:
        sibling = _hash_from_hex(text)
        if sibling is None:
            return False
        siblings.append(sibling)
    return root_from_path(leaf_hash(position, card, salt), position, leaf_count,
                          siblings) == expected


def _describe(proof: CardProof) -> str:
    card = proof.card
    text = format_card(card) if _is_int(card) and 0 <= card < DECK_SIZE else repr(card)
    return f"{text} at position {proof.position!r}"


def verify_hand(root: str, proofs: Iterable[CardProof],
                leaf_count: int = DECK_SIZE) -> list[str]:
    """Every problem with the proofs of one hand's cards, or ``[]`` when they all hold.

    Besides :func:`verify` on each proof, it checks that no position is claimed for two
    different cards (a Peek and the board card dealt from the same position must agree, R6.1)
    and that no card is claimed at two positions (a deck holds each card once, R1.1). The
    same card at the same position twice (a board card proved to every player) is fine.
    Never raises on malformed proofs or a malformed root.

    :param root: The root published before the hand's first card.
    :param proofs: The proofs of every card the verifier received or saw in the hand.
    :param leaf_count: As for :func:`verify`.

    >>> commitment = DeckCommitment(list(range(52)), [bytes([i]) * 32 for i in range(52)])
    >>> verify_hand(commitment.root, [commitment.proof(0), commitment.proof(1)])
    []
    >>> forged = CardProof(0, 51, commitment.salts[0].hex(), commitment.proof(0).path)
    >>> for problem in verify_hand(commitment.root, [commitment.proof(0), forged]):
    ...     print(problem)
    proof 1 (As at position 0) does not match the root
    position 0 is claimed for both 2c and As
    """
    if _hash_from_hex(root) is None:
        return [f"the root is not 64 lowercase hex digits: {root!r}"]
    problems: list[str] = []
    cards_at: dict[int, tuple[Card, int]] = {}
    positions_of: dict[Card, tuple[int, int]] = {}
    for index, proof in enumerate(proofs):
        if not isinstance(proof, CardProof):
            problems.append(f"proof {index} is not a card proof: {proof!r}")
            continue
        if not verify(root, proof, leaf_count):
            problems.append(f"proof {index} ({_describe(proof)}) does not match the root")
        position, card = proof.position, proof.card
        if not (_is_int(position) and _is_int(card) and 0 <= card < DECK_SIZE):
            continue
        seen = cards_at.setdefault(position, (card, index))
        if seen[0] != card:
            problems.append(f"position {position} is claimed for both "
                            f"{format_card(seen[0])} and {format_card(card)}")
        first = positions_of.setdefault(card, (position, index))
        if first[0] != position:
            problems.append(f"{format_card(card)} is claimed at positions {first[0]} and "
                            f"{position} (a deck holds each card once, R1.1)")
    return problems


def salts_from_seed(seed: bytes) -> list[bytes]:
    """The 52 salts of one hand from its secret seed: ``salt_i = HMAC-SHA256(seed, SALT_TAG ||
    i)`` with ``i`` one byte. The server keeps 32 bytes per hand instead of 52 x 32; a proof
    reveals its own position's salt, and an HMAC output gives away neither the key nor any
    other output, so the other positions' salts stay as secret as independent ones.

    :param seed: :data:`SEED_SIZE` secret bytes (``secrets.token_bytes(SEED_SIZE)``).
    :raises ValueError: If the seed is not :data:`SEED_SIZE` bytes.

    >>> salts = salts_from_seed(bytes(32))
    >>> len(salts), len(set(salts)), len(salts[0])
    (52, 52, 32)
    """
    if not (isinstance(seed, bytes) and len(seed) == SEED_SIZE):
        raise ValueError(f"a deck seed is {SEED_SIZE} bytes")
    return [hmac.new(seed, SALT_TAG + bytes([i]), hashlib.sha256).digest()
            for i in range(DECK_SIZE)]


def seed_from_hex(text: object) -> bytes:
    """The seed written as 64 lowercase hex digits (as a hand's state keeps it).

    :raises ValueError: For anything else.
    """
    seed = _hash_from_hex(text)
    if seed is None:
        raise ValueError("a deck seed is 64 lowercase hex digits")
    return seed


def commit_deck(cards: Sequence[Card], seed_hex: str) -> DeckCommitment:
    """The commitment to *cards* with the salts of :func:`salts_from_seed`.

    :raises InvalidDeck: If *cards* is not a full deck.
    :raises ValueError: If *seed_hex* is not 64 lowercase hex digits.
    """
    return DeckCommitment(cards, salts_from_seed(seed_from_hex(seed_hex)))
