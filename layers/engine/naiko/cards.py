""":mod:`naiko.cards` implements cards, their text form and the shuffled deck (R1.1).

A card is a plain ``int`` from 0 to 51: ``rank * 4 + suit``, ranks ``2..A`` as ``0..12``
and suits ``c d h s`` as ``0..3``. Card objects never exist inside the engine; text such as
``"Ah"`` or ``"Td"`` exists only at the edges (views, events, hand histories).

>>> format_card(parse_card("Ah"))
'Ah'
>>> parse_cards("AhKd")
[50, 45]
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol, TypeAlias

Card: TypeAlias = int
"""A card as ``rank * 4 + suit`` (0..51)."""

Rank: TypeAlias = int
"""A rank, ``0`` for a deuce up to ``12`` for an ace."""

Suit: TypeAlias = int
"""A suit, ``0..3`` for clubs, diamonds, hearts, spades. Suits have no rank (R1.5)."""

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52
FULL_DECK: tuple[Card, ...] = tuple(range(DECK_SIZE))

RANK_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
              "Jack", "Queen", "King", "Ace")
RANK_PLURALS = ("Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines",
                "Tens", "Jacks", "Queens", "Kings", "Aces")

_TEXT = tuple(r + s for r in RANKS for s in SUITS)
_PARSE = {text: card for card, text in enumerate(_TEXT)}


class InvalidCard(ValueError):
    """Raised when text does not name a card (``"Ah"``, ``"Td"``, ``"2c"``)."""


def rank_of(card: Card) -> Rank:
    """The rank of *card* (0 = deuce ... 12 = ace).

    >>> rank_of(parse_card("Ah"))
    12
    """
    return card >> 2


def parse_card(text: str) -> Card:
    """Parse one card such as ``"Ah"`` or ``"td"`` (rank letters are case-insensitive).

    :raises InvalidCard: If *text* is not a card.
    """
    if len(text) == 2:
        card = _PARSE.get(text[0].upper() + text[1].lower())
        if card is not None:
            return card
    raise InvalidCard(f"not a card: {text!r} (expected a rank of {RANKS} and a suit of {SUITS})")


def parse_cards(text: str) -> list[Card]:
    """Parse concatenated or space-separated cards: ``"AhKd"``, ``"Ah Kd"``.

    :raises InvalidCard: If any part is not a card.
    """
    compact = "".join(text.split())
    if len(compact) % 2:
        raise InvalidCard(f"not a list of cards: {text!r}")
    return [parse_card(compact[i:i + 2]) for i in range(0, len(compact), 2)]


def format_card(card: Card) -> str:
    """The two-character text of *card*, e.g. ``"Td"``."""
    return _TEXT[card]


def format_cards(cards: list[Card] | tuple[Card, ...], sep: str = "") -> str:
    """The text of several cards, concatenated by default (PHH style ``"AhKd"``)."""
    return sep.join(_TEXT[c] for c in cards)


class RandomSource(Protocol):
    """What the engine needs from a random source: ``random.Random`` and
    ``secrets.SystemRandom`` both qualify."""

    def randrange(self, start: int, stop: int | None = ..., step: int = ...) -> int: ...


def system_random() -> RandomSource:
    """The production random source: the operating system's CSPRNG."""
    return secrets.SystemRandom()


def seeded_random(seed: int | str) -> RandomSource:
    """A repeatable random source for tests and demos (never for real tables)."""
    return random.Random(seed)


def shuffled_deck(rng: RandomSource) -> list[Card]:
    """A fresh 52-card deck in random order (Fisher–Yates driven by *rng*).

    The deck is dealt from the front; there are no burn cards (R1.1).

    >>> deck = shuffled_deck(seeded_random(1))
    >>> sorted(deck) == list(FULL_DECK)
    True
    """
    deck = list(FULL_DECK)
    for i in range(DECK_SIZE - 1, 0, -1):
        j = rng.randrange(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
