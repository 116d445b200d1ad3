""":mod:`naiko.phh` reads, replays and writes PHH hand histories (Poker Hand History, the TOML
format of ``uoftcprg/phh-std``) for No-Limit Hold'em (``NT``) and Pot-Limit Omaha (``PO``).

* :func:`loads` / :func:`loads_all` / :func:`load` parse a ``.phh`` file (one hand) or a
  ``.phhs`` file (tables ``[1]``, ``[2]``, ...) into :class:`HandHistory` values, with exact
  :class:`~decimal.Decimal` amounts.
* :func:`replay` plays a hand on the engine, strictly: every action must be legal under our
  rules (RULES.md), nothing is repaired. Decimal amounts (online cash games in cents) are scaled
  to integer chips by the smallest power of ten that makes them all whole (:attr:`Replay.scale`).
* :func:`from_state` / :func:`to_phh` / :func:`dumps` write a finished engine hand as PHH.
  A Naiko hand is written as ``NT`` with its powers in user-defined ``_naiko_*`` fields (the
  grammar is in ``docs/phh.md``): any PHH replayer plays it as No-Limit Hold'em, and
  :func:`replay` plays it with its powers through the engine. :func:`for_reader` is one
  player's copy (what that player was not shown written unknown).
* :func:`main` is the ``naiko-phh`` command.

Anything the engine cannot play is refused with :class:`UnsupportedHand`; anything wrong in the
file (bad syntax, an illegal or missing action) raises :class:`PHHError`.

>>> hand = loads('''
... variant = "NT"
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ["d dh p1 AhKh", "d dh p2 7c2d", "d dh p3 QsQd", "p3 cbr 6", "p1 f", "p2 f"]
... finishing_stacks = [99, 98, 103]
... ''')
>>> result = replay(hand)
>>> [str(s) for s in result.finishing_stacks], result.matches
(['99', '98', '103'], True)
>>> print(to_phh(result.state).splitlines()[6])
actions = ["d dh p1 AhKh", "d dh p2 7c2d", "d dh p3 QsQd", "p3 cbr 6", "p1 f", "p2 f"]
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from .cards import DECK_SIZE, Card, InvalidCard, format_cards, parse_card
from .commands import (
    Bet,
    Call,
    Check,
    Command,
    Fold,
    PassWindow,
    RaiseTo,
    SitDown,
    StartHand,
    UsePower,
    WindowTimeout,
)
from .engine import apply_in_place, bet_or_raise, can_check
from .errors import EngineError
from .events import (
    ActionTaken,
    BoardDealt,
    CarouselDrawn,
    HandCancelled,
    HoleCardsDealt,
    Move,
    PeekResult,
    Power,
    PowerUsed,
    SleeveSwapResult,
    UncalledBetReturned,
    WindowClosed,
)
from .pots import clockwise_from_button
from .state import VARIANT_RULES, AnteMode, HandState, TableConfig, TableState, Variant

__all__ = [
    "PHHError", "UnsupportedHand", "HandHistory", "Action", "Replay", "Verdict",
    "loads", "loads_all", "load", "parse_action", "replay", "check", "from_state", "dumps",
    "dumps_all", "to_phh", "format_amount", "divergence_hints", "main", "NAIKO_FIELDS",
    "NaikoExtension", "PowerEntry", "parse_power", "for_reader",
]

VARIANTS: dict[str, Variant] = {"NT": Variant.NLHE, "PO": Variant.PLO}
"""PHH variant codes the engine plays, and the engine variant each maps to."""

CODES: dict[Variant, str] = {v: k for k, v in VARIANTS.items()}

_REQUIRED = ("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions")
_KNOWN = frozenset(_REQUIRED) | {"players", "finishing_stacks", "winnings",
                                 "ante_trimming_status"}
_PLAYER = re.compile(r"p([1-9][0-9]*)\Z")
_STREETS = {0: "flop", 3: "turn", 4: "river"}
_STREET_SIZES = {0: 3, 3: 1, 4: 1}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")


# -- errors ----------------------------------------------------------------------------------

class PHHError(ValueError):
    """A hand history that cannot be read or replayed: bad syntax, a wrong field, an illegal,
    misplaced or missing action. ``code`` is a stable ``snake_case`` reason; ``action_index``
    (0-based index into ``actions``) and ``action`` name the offending action, if any.

    >>> error = PHHError("p2 is to act, not p3", code="wrong_player", action_index=4,
    ...                  action="p3 f")
    >>> str(error), error.code
    ("action 4 'p3 f': p2 is to act, not p3", 'wrong_player')
    """

    code = "phh_error"

    def __init__(self, message: str, *, code: str | None = None,
                 action_index: int | None = None, action: str | None = None) -> None:
        if action_index is not None:
            message = f"action {action_index} {action!r}: {message}"
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.action_index = action_index
        self.action = action


class UnsupportedHand(PHHError):
    """A well-formed hand history that the engine refuses to play: another variant, straddles,
    antes other than uniform or big-blind-only, ``inf`` stacks, a showdown that needs cards the
    file does not know (``????``) and the like."""

    code = "unsupported"


# -- the hand history ------------------------------------------------------------------------

@dataclass(slots=True)
class HandHistory:
    """One hand of a PHH file, amounts exactly as written (``Decimal``; TOML ints become
    integral ``Decimal`` values). Per-player lists run p1 (small blind) ... pN (button).

    ``extra`` keeps every other non-``_`` field (``event``, ``hand``, ``seats``, ...);
    ``source`` says where the hand came from (``"file.phhs [3]"``), if known;
    ``user_fields`` keeps the user-defined ``_`` fields (written back by :func:`dumps`), among
    them the Naiko extension (:attr:`naiko`).
    """

    variant: str
    antes: list[Decimal]
    blinds_or_straddles: list[Decimal]
    min_bet: Decimal
    starting_stacks: list[Decimal]
    actions: list[str]
    players: list[str] | None = None
    finishing_stacks: list[Decimal] | None = None
    winnings: list[Decimal] | None = None
    ante_trimming_status: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    user_fields: dict[str, Any] = field(default_factory=dict)

    @property
    def is_naiko(self) -> bool:
        """Whether the hand carries the Naiko extension (its ``_naiko_carousel`` field)."""
        return "_naiko_carousel" in self.user_fields

    @property
    def naiko(self) -> NaikoExtension | None:
        """The Naiko extension (powers, destellos) parsed, or ``None`` for a plain hand.

        :raises PHHError: If an extension field is malformed (code ``bad_naiko``).
        """
        if not self.is_naiko:
            return None
        return _parse_extension(self.user_fields, self.player_count, len(self.actions))

    @property
    def player_count(self) -> int:
        return len(self.starting_stacks)

    @property
    def hole_card_count(self) -> int:
        """2 for ``NT``, 4 for ``PO``.

        :raises UnsupportedHand: For another variant.
        """
        return VARIANT_RULES[_engine_variant(self.variant)].hole_card_count

    def parsed_actions(self) -> list[Action]:
        """:attr:`actions` parsed (no-ops included, so indexes match).

        :raises PHHError: If an action is malformed.
        """
        return [parse_action(text, i, self.player_count) for i, text in enumerate(self.actions)]

    def amounts(self) -> Iterator[Decimal]:
        """Every amount of the file: antes, blinds, min_bet, stacks, bet sizes, finishing
        stacks and winnings."""
        yield from self.antes
        yield from self.blinds_or_straddles
        yield self.min_bet
        yield from self.starting_stacks
        for action in self.parsed_actions():
            if action.amount is not None:
                yield action.amount
        yield from self.finishing_stacks or ()
        yield from self.winnings or ()

    @property
    def scale(self) -> int:
        """The smallest ``k`` such that every amount times ``10**k`` is an integer: one chip is
        ``10**-k`` of the file's unit.

        >>> loads('variant = "NT"\\nantes = [0, 0]\\nblinds_or_straddles = [0.50, 1]\\n'
        ...       'min_bet = 1\\nstarting_stacks = [200.30, 81.25]\\nactions = []').scale
        2

        :raises UnsupportedHand: If an amount is ``inf`` or ``nan``.
        """
        return max((_decimal_places(a) for a in self.amounts()), default=0)

    @property
    def places(self) -> int:
        """Decimal places to print amounts with: the most the file writes (``200.30``: 2),
        never fewer than :attr:`scale`."""
        written = (-e for a in self.amounts()
                   if a.is_finite() and isinstance(e := a.as_tuple().exponent, int))
        return max(self.scale, max(written, default=0))

    def chips(self, amount: Decimal, scale: int | None = None) -> int:
        """*amount* in integer chips at *scale* (default :attr:`scale`).

        :raises PHHError: If *amount* is not a whole number of chips at that scale.
        """
        k = self.scale if scale is None else scale
        return _to_chips(amount, k)


def _engine_variant(code: str) -> Variant:
    variant = VARIANTS.get(code)
    if variant is None:
        raise UnsupportedHand(f"variant {code!r} is not played by the engine (only "
                              f"{' and '.join(VARIANTS)})", code="unsupported_variant")
    return variant


def _decimal_places(amount: Decimal) -> int:
    if not amount.is_finite():
        raise UnsupportedHand(f"amount {amount} is not a finite number of chips (an unknown "
                              "'inf' stack cannot be replayed)", code="infinite_amount")
    exponent = amount.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


def _to_chips(amount: Decimal, scale: int) -> int:
    scaled = amount.scaleb(scale)
    if scaled != scaled.to_integral_value():
        raise PHHError(f"{amount} is not a whole number of chips at scale 10^-{scale}",
                       code="bad_amount")
    return int(scaled)


def _from_chips(chips: int, scale: int, places: int = 0) -> Decimal:
    amount = Decimal(chips).scaleb(-scale) if scale else Decimal(chips)
    return amount.quantize(Decimal(1).scaleb(-places)) if places > 0 else amount


def format_amount(amount: Decimal) -> str:
    """An amount as PHH writes it: integers without a point, decimals as written.

    >>> [format_amount(Decimal(a)) for a in ("200.30", "1E+2", "5", "0.00")]
    ['200.30', '100', '5', '0']
    """
    exponent = amount.as_tuple().exponent
    if amount == 0 or (isinstance(exponent, int) and exponent >= 0):
        return str(int(amount))
    return format(amount, "f")


# -- actions ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Action:
    """One parsed entry of ``actions``.

    ``actor`` is the 0-based player index (``None`` for the dealer ``d`` and for no-ops);
    ``verb`` is ``dh db f cc cbr sm`` or ``""`` for a no-op (empty or commentary only);
    ``cards`` holds the cards of ``dh``/``db``/``sm`` with ``None`` for an unknown ``??``;
    ``amount`` is the ``cbr`` total; ``show_known`` marks ``sm -``.
    """

    index: int
    text: str
    verb: str
    actor: int | None = None
    cards: tuple[Card | None, ...] = ()
    amount: Decimal | None = None
    show_known: bool = False

    @property
    def player(self) -> str:
        """``pN`` of the actor (``d`` for the dealer)."""
        return "d" if self.actor is None else f"p{self.actor + 1}"


def parse_action(text: str, index: int, player_count: int) -> Action:
    """Parse one action string; ``# commentary`` is dropped.

    >>> action = parse_action("p3 cbr 7000  # Dwan", 5, 3)
    >>> action.verb, action.actor, action.amount, action.player
    ('cbr', 2, Decimal('7000'), 'p3')
    >>> parse_action("d dh p2 ????", 1, 3).cards
    (None, None)

    :raises PHHError: If the action is not NT/PO PHH grammar.
    """
    if not isinstance(text, str):
        raise PHHError(f"an action is a string, not {text!r}", code="bad_action",
                       action_index=index, action=str(text))
    words = text.split("#", 1)[0].split()

    def fail(why: str, code: str = "bad_action") -> PHHError:
        return PHHError(why, code=code, action_index=index, action=text)

    if not words:
        return Action(index, text, "")
    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            return Action(index, text, "dh", _player(words[2], player_count, fail),
                          _cards(words[3], fail))
        if len(words) == 3 and words[1] == "db":
            return Action(index, text, "db", None, _cards(words[2], fail))
        raise fail("expected 'd dh pN CARDS' or 'd db CARDS'")
    actor = _player(words[0], player_count, fail)
    verb, args = (words[1] if len(words) > 1 else ""), words[2:]
    if verb in ("f", "cc") and not args:
        return Action(index, text, verb, actor)
    if verb == "cbr" and len(args) == 1:
        try:
            amount = Decimal(args[0])
        except ArithmeticError:
            raise fail(f"not an amount: {args[0]!r}") from None
        if not amount.is_finite() or amount <= 0:
            raise fail(f"not a positive amount: {args[0]!r}")
        return Action(index, text, verb, actor, amount=amount)
    if verb == "sm" and len(args) <= 1:
        if args and args[0] == "-":
            return Action(index, text, verb, actor, show_known=True)
        return Action(index, text, verb, actor, _cards(args[0], fail) if args else ())
    if verb in ("sd", "pb"):
        raise fail(f"'{verb}' belongs to draw and stud games, not to NT/PO")
    raise fail("expected 'pN f', 'pN cc', 'pN cbr AMOUNT' or 'pN sm [CARDS]'")


def _player(word: str, player_count: int, fail: Any) -> int:
    match = _PLAYER.match(word)
    if match is None:
        raise fail(f"{word!r} is not an actor (d or p1..p{player_count})")
    number = int(match.group(1))
    if number > player_count:
        raise fail(f"there is no {word} in a {player_count}-player hand")
    return number - 1


def _cards(word: str, fail: Any) -> tuple[Card | None, ...]:
    if len(word) % 2:
        raise fail(f"not a list of cards: {word!r}")
    cards: list[Card | None] = []
    for i in range(0, len(word), 2):
        chunk = word[i:i + 2]
        if chunk == "??":
            cards.append(None)
            continue
        try:
            cards.append(parse_card(chunk))
        except InvalidCard as exc:
            raise fail(str(exc), "bad_card") from None
    return tuple(cards)


# -- the Naiko extension ---------------------------------------------------------------------

NAIKO_FIELDS = ("_naiko_carousel", "_naiko_destellos", "_naiko_finishing_destellos",
                "_naiko_powers")
"""The user-defined fields of the Naiko extension (grammar in ``docs/phh.md``)."""

_POWER_VERBS = ("peek", "sleeve_swap", "short_anchor", "seal_shield", "pass", "timeout")
_MAX_DESTELLOS = 3


@dataclass(frozen=True, slots=True)
class PowerEntry:
    """One entry of ``_naiko_powers``, ``"INDEX pK VERB [ARGS]"``: player ``actor`` (0-based)
    does *verb* just before ``actions[INDEX]`` (entries with the same index in list order).

    ``verb`` is a power (``peek``, ``sleeve_swap``, ``short_anchor``, ``seal_shield``) or a
    Seal Shield window closed by its target: ``pass`` (declined) or ``timeout`` (R6.5).
    ``card`` is the peeked card; ``card_index``, ``discarded``, ``received`` the Sleeve Swap;
    ``target`` the Short Anchor's target (0-based). Unknown cards (``??``) are ``None``.

    >>> entry = parse_power("9 p2 sleeve_swap 1 7c Qs", 0, 3, 20)
    >>> entry.index, entry.player, entry.card_index, format_cards([entry.received or 0])
    (9, 'p2', 1, 'Qs')
    """

    position: int
    """Index of the entry in ``_naiko_powers``."""
    text: str
    index: int
    actor: int
    verb: str
    card: Card | None = None
    card_index: int | None = None
    discarded: Card | None = None
    received: Card | None = None
    target: int | None = None

    @property
    def player(self) -> str:
        """``pN`` of the actor."""
        return f"p{self.actor + 1}"

    def error(self, why: str, code: str) -> PHHError:
        """A :class:`PHHError` naming this entry."""
        return PHHError(f"_naiko_powers[{self.position}] {self.text!r}: {why}", code=code)


@dataclass(frozen=True, slots=True)
class NaikoExtension:
    """The Naiko extension of a hand (per-player lists p1..pN)."""

    carousel: tuple[str, ...]
    """``_naiko_carousel``: the hand's 3 powers (R5.3)."""
    destellos: tuple[int, ...]
    """``_naiko_destellos``: destellos each player held before the hand's credit (R5.1)."""
    finishing_destellos: tuple[int, ...] | None
    """``_naiko_finishing_destellos``: destellos after the hand, if written."""
    powers: tuple[PowerEntry, ...]
    """``_naiko_powers``, in order."""


def parse_power(text: str, position: int, player_count: int, action_count: int) -> PowerEntry:
    """Parse one ``_naiko_powers`` entry (*position* is its index in that list).

    >>> parse_power("5 p3 short_anchor p1", 2, 3, 9).target
    0
    >>> parse_power("5 p3 peek ??", 0, 3, 9).card is None
    True

    :raises PHHError: If it is not the grammar of ``docs/phh.md`` (code ``bad_naiko``).
    """
    if not isinstance(text, str):
        raise PHHError(f"_naiko_powers[{position}]: an entry is a string, not {text!r}",
                       code="bad_naiko")
    words = text.split()

    def fail(why: str) -> PHHError:
        return PHHError(f"_naiko_powers[{position}] {text!r}: {why}", code="bad_naiko")

    if len(words) < 3 or not words[0].isdigit():
        raise fail("expected 'INDEX pK VERB [ARGS]'")
    index = int(words[0])
    if index > action_count:
        raise fail(f"index {index} is past the {action_count} actions")
    actor = _player(words[1], player_count, fail)
    verb, args = words[2], words[3:]

    def card(word: str) -> Card | None:
        cards = _cards(word, lambda why, code="": fail(why))
        if len(cards) != 1:
            raise fail(f"expected one card or '??', not {word!r}")
        return cards[0]

    entry = PowerEntry(position, text, index, actor, verb)
    if verb == "peek" and len(args) == 1:
        return replace(entry, card=card(args[0]))
    if verb == "sleeve_swap" and len(args) == 3 and args[0] in ("0", "1"):
        return replace(entry, card_index=int(args[0]), discarded=card(args[1]),
                       received=card(args[2]))
    if verb == "short_anchor" and len(args) == 1:
        return replace(entry, target=_player(args[0], player_count, fail))
    if verb in ("seal_shield", "pass", "timeout") and not args:
        return entry
    raise fail("expected 'peek CARD', 'sleeve_swap 0|1 OLD NEW', 'short_anchor pT', "
               "'seal_shield', 'pass' or 'timeout'")


def _parse_extension(fields: dict[str, Any], n: int, action_count: int) -> NaikoExtension:
    def fail(name: str, why: str) -> PHHError:
        return PHHError(f"field {name}: {why}", code="bad_naiko")

    carousel = fields.get("_naiko_carousel")
    if not isinstance(carousel, list) or len(carousel) != 3 \
            or not all(isinstance(p, str) and p in Power.__members__.values() for p in carousel):
        raise fail("_naiko_carousel", f"expected 3 power names, not {carousel!r}")

    def destellos(name: str) -> tuple[int, ...]:
        value = fields.get(name)
        if not isinstance(value, list) or len(value) != n or not all(
                isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= _MAX_DESTELLOS
                for d in value):
            raise fail(name, f"expected {n} numbers of destellos from 0 to {_MAX_DESTELLOS}")
        return tuple(value)

    entries = fields.get("_naiko_powers", [])
    if not isinstance(entries, list):
        raise fail("_naiko_powers", "expected a list of strings")
    powers = tuple(parse_power(text, i, n, action_count) for i, text in enumerate(entries))
    for before, after in zip(powers, powers[1:], strict=False):
        if after.index < before.index:
            raise after.error(f"index {after.index} comes after index {before.index}: entries "
                              "are in the order they happened", "bad_naiko")
    finishing = (destellos("_naiko_finishing_destellos")
                 if "_naiko_finishing_destellos" in fields else None)
    return NaikoExtension(tuple(carousel), destellos("_naiko_destellos"), finishing, powers)


# -- reading ---------------------------------------------------------------------------------

def loads(text: str, *, source: str | None = None) -> HandHistory:
    """Parse a ``.phh`` document (one hand).

    :raises PHHError: If the TOML is invalid or a required field is missing or mistyped.
    """
    return _hand_from_table(_toml(text, source), source)


def loads_all(text: str, *, source: str | None = None) -> list[HandHistory]:
    """Parse a ``.phhs`` document: hands in TOML tables ``[1]``, ``[2]``, ... (file order).

    >>> hands = loads_all('[1]\\nvariant = "NT"\\nantes = [0, 0]\\nblinds_or_straddles = [1, 2]\\n'
    ...                   'min_bet = 2\\nstarting_stacks = [50, 50]\\nactions = ["p2 f"]\\n'
    ...                   '[2]\\nvariant = "PO"\\nantes = [0, 0]\\nblinds_or_straddles = [1, 2]\\n'
    ...                   'min_bet = 2\\nstarting_stacks = [49, 51]\\nactions = ["p2 f"]\\n',
    ...                   source="x.phhs")
    >>> [(h.variant, h.source) for h in hands]
    [('NT', 'x.phhs [1]'), ('PO', 'x.phhs [2]')]

    :raises PHHError: If the document is not a table of hand tables.
    """
    hands = []
    for label, hand in _entries(text, source):
        if isinstance(hand, PHHError):
            raise PHHError(f"{label}: {hand.message}", code=hand.code)
        hands.append(hand)
    return hands


def _entries(text: str, source: str | None) -> Iterator[tuple[str, HandHistory | PHHError]]:
    """The hands of a ``.phhs`` document, each parsed or with the error that stopped it."""
    for key, value in _toml(text, source).items():
        if key.startswith("_"):
            continue
        label = f"{source} [{key}]" if source else f"[{key}]"
        if not isinstance(value, dict):
            yield label, PHHError(f"a .phhs file holds hand tables ([1], [2], ...), not "
                                  f"{key} = {value!r}", code="bad_file")
            continue
        try:
            yield label, _hand_from_table(value, label)
        except PHHError as exc:
            yield label, exc


def load(path: str | Path) -> list[HandHistory]:
    """Read a ``.phh`` (one hand) or ``.phhs`` (many) file; other suffixes are read as ``.phh``.

    :raises PHHError: If the file cannot be parsed. :raises OSError: If it cannot be read.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".phhs":
        return loads_all(text, source=str(path))
    return [loads(text, source=str(path))]


def _load_entries(path: Path) -> list[tuple[str, HandHistory | PHHError]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".phhs":
        return list(_entries(text, str(path)))
    try:
        return [(str(path), loads(text, source=str(path)))]
    except PHHError as exc:
        return [(str(path), exc)]


def _toml(text: str, source: str | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PHHError(f"not valid TOML: {exc}", code="bad_toml") from None


def _hand_from_table(table: dict[str, Any], source: str | None) -> HandHistory:
    variant = table.get("variant")
    if not isinstance(variant, str):
        raise PHHError(f"field variant: {variant!r} is not a variant code", code="bad_field")
    if variant in VARIANTS:
        missing = [name for name in _REQUIRED if name not in table]
        if missing:
            raise PHHError(f"missing required field(s) {', '.join(missing)}",
                           code="missing_field")
    else:
        # Another game (fixed-limit, stud, draw...): keep what is there so that the hand can
        # be listed and refused by replay() rather than failing the whole file here.
        table = {"antes": [], "blinds_or_straddles": [], "min_bet": 0, "starting_stacks": [],
                 "actions": [], **table}

    def fail(name: str, why: str) -> PHHError:
        return PHHError(f"field {name}: {why}", code="bad_field")

    def amount(name: str, value: Any) -> Decimal:
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise fail(name, f"{value!r} is not a number")
        return Decimal(value)

    def amounts(name: str) -> list[Decimal]:
        value = table[name]
        if not isinstance(value, list):
            raise fail(name, "expected one number per player")
        return [amount(name, v) for v in value]

    def strings(name: str) -> list[str]:
        value = table[name]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(name, "expected a list of strings")
        return list(value)

    trimming = table.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise fail("ante_trimming_status", "expected true or false")
    return HandHistory(
        variant=variant,
        antes=amounts("antes"),
        blinds_or_straddles=amounts("blinds_or_straddles"),
        min_bet=amount("min_bet", table["min_bet"]),
        starting_stacks=amounts("starting_stacks"),
        actions=strings("actions"),
        players=strings("players") if "players" in table else None,
        finishing_stacks=amounts("finishing_stacks") if "finishing_stacks" in table else None,
        winnings=amounts("winnings") if "winnings" in table else None,
        ante_trimming_status=trimming,
        extra={k: v for k, v in table.items() if k not in _KNOWN and not k.startswith("_")},
        source=source,
        user_fields={k: v for k, v in table.items() if k.startswith("_")},
    )


# -- what the engine can play ----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Setup:
    config: TableConfig
    scale: int
    stacks: list[int]
    actions: list[Action]


def _setup(hand: HandHistory, naiko: bool = False) -> _Setup:
    """Validate *hand* and build the table settings, refusing what the engine cannot play;
    *naiko*: a Naiko-mode table (the hand has the Naiko extension and is replayed with it)."""
    variant = _engine_variant(hand.variant)
    if naiko:
        if variant is not Variant.NLHE:
            raise UnsupportedHand(f"the Naiko extension on a {hand.variant} hand: Naiko mode is "
                                  "No-Limit Hold'em (NT) with powers (R1.4)",
                                  code="unsupported_variant")
        variant = Variant.NAIKO
    n = hand.player_count
    if not 2 <= n <= 10:
        raise UnsupportedHand(f"{n} players: the engine seats 2 to 10 (R1.6)",
                              code="player_count")
    amount_lists = {"antes": hand.antes, "blinds_or_straddles": hand.blinds_or_straddles,
                    "finishing_stacks": hand.finishing_stacks, "winnings": hand.winnings}
    lengths = {name: len(values) for name, values in amount_lists.items() if values is not None}
    if hand.players is not None:
        lengths["players"] = len(hand.players)
    for name, length in lengths.items():
        if length != n:
            raise PHHError(f"{name} has {length} entries for {n} players", code="bad_field")
    scale = hand.scale  # refuses inf/nan first
    for name, values in amount_lists.items():
        if values is not None and any(v < 0 for v in values):
            raise PHHError(f"{name} has a negative amount", code="bad_field")
    if any(s <= 0 for s in hand.starting_stacks):
        raise PHHError("starting_stacks must all be positive", code="bad_field")

    blinds = hand.blinds_or_straddles
    if any(b != 0 for b in blinds[2:]):
        raise UnsupportedHand(f"blinds_or_straddles {_fmt_list(blinds)}: straddles (a third "
                              "forced bet) are not played by the engine", code="straddle")
    small, big = blinds[0], blinds[1]
    if big <= 0:
        raise UnsupportedHand(f"blinds_or_straddles {_fmt_list(blinds)}: no big blind (p2)",
                              code="blinds")
    if small > big:
        raise UnsupportedHand(f"blinds_or_straddles {_fmt_list(blinds)}: the small blind is "
                              "larger than the big blind", code="blinds")
    if hand.min_bet != big:
        raise UnsupportedHand(f"min_bet {format_amount(hand.min_bet)} differs from the big "
                              f"blind {format_amount(big)}: the engine's minimum bet is the big "
                              "blind (R3.1)", code="min_bet")

    antes = hand.antes
    if all(a == 0 for a in antes):
        ante, mode = Decimal(0), AnteMode.NONE
    elif all(a == antes[0] for a in antes):
        ante, mode = antes[0], AnteMode.EACH
    elif antes[1] > 0 and all(a == 0 for i, a in enumerate(antes) if i != 1):
        # index 1 is the big blind's ante; heads-up PHH reverses forced bets, so p1 (the big
        # blind) pays antes[1] there too.
        ante, mode = antes[1], AnteMode.BIG_BLIND
    else:
        raise UnsupportedHand(f"antes {_fmt_list(antes)}: only uniform antes and a big-blind "
                              "ante are played (R2.8)", code="antes")
    if hand.ante_trimming_status and mode is AnteMode.BIG_BLIND:
        raise UnsupportedHand("ante_trimming_status = true with a big-blind ante: PokerKit "
                              "then counts the ante as the big blind's own contribution (a "
                              "pot only callers of it can win); R2.8 makes antes dead money "
                              "in the main pot", code="ante_trimming")

    config = TableConfig(variant=variant, seat_count=n, small_blind=_to_chips(small, scale),
                         big_blind=_to_chips(big, scale), ante=_to_chips(ante, scale),
                         ante_mode=mode)
    stacks = [_to_chips(s, scale) for s in hand.starting_stacks]
    return _Setup(config, scale, stacks, hand.parsed_actions())


def _fmt_list(values: Iterable[Decimal]) -> str:
    return "[" + ", ".join(format_amount(v) for v in values) + "]"


# -- the cards -------------------------------------------------------------------------------

@dataclass(slots=True)
class _Cards:
    hole: list[list[Card | None]]
    board: list[Card | None]
    mucked: frozenset[int]
    deck: tuple[Card, ...]


def _plan_cards(actions: list[Action], n: int, hole_count: int,
                naiko: NaikoExtension | None = None) -> _Cards:
    """Hole cards (from ``dh`` and shown ``sm`` cards), board, mucked players and a 52-card
    deck that makes the engine deal exactly the file's cards. With the Naiko extension the
    ``dh`` cards are the cards each player ended with: the deck deals the cards before each
    Sleeve Swap, then the cards the swaps received, then the board, and puts a peeked card that
    was never dealt where the next board card would have been."""
    hole: list[list[Card | None]] = [[] for _ in range(n)]
    shown: list[list[tuple[Card, Action]]] = [[] for _ in range(n)]
    showed = [False] * n
    went_to_showdown = [False] * n
    board: list[Card | None] = []
    for action in actions:
        if action.verb == "dh":
            assert action.actor is not None
            if len(hole[action.actor]) + len(action.cards) > hole_count:
                raise PHHError(f"{action.player} would hold more than {hole_count} hole cards",
                               code="bad_hole_cards", action_index=action.index,
                               action=action.text)
            hole[action.actor].extend(action.cards)
        elif action.verb == "db":
            board.extend(action.cards)
        elif action.verb == "sm":
            assert action.actor is not None
            went_to_showdown[action.actor] = True
            known = [c for c in action.cards if c is not None]
            if known or action.show_known:
                showed[action.actor] = True
            shown[action.actor].extend((c, action) for c in known)
    for p in range(n):
        cards = hole[p] + [None] * (hole_count - len(hole[p]))
        for card, action in shown[p]:
            if card in cards:
                continue
            if None not in cards:
                dealt = format_cards([c for c in cards if c is not None])
                raise PHHError(f"{action.player} shows {_card_text(card)} but was dealt "
                               f"{dealt}", code="card_mismatch", action_index=action.index,
                               action=action.text)
            cards[cards.index(None)] = card
        hole[p] = cards
    original = [cards[:] for cards in hole]
    stream: list[Card | None] = list(board)
    undealt: list[Card] = []
    if naiko is not None:
        stream, undealt = _naiko_stream(actions, naiko, hole, original)
    known_cards = [c for cards in original for c in cards if c is not None]
    known_cards += [c for c in stream + undealt if c is not None]
    repeated = [c for c, k in Counter(known_cards).items() if k > 1]
    if repeated:
        raise PHHError(f"card(s) {format_cards(sorted(repeated))} appear more than once",
                       code="duplicate_card")
    if len(board) > 5:
        raise PHHError(f"{len(board)} board cards: a board has 5", code="bad_board")
    unused = iter(sorted(set(range(DECK_SIZE)) - set(known_cards)))
    deck = [c if c is not None else next(unused) for cards in original for c in cards]
    deck += [c if c is not None else next(unused) for c in stream]
    deck += undealt + list(unused)
    mucked = frozenset(p for p in range(n) if went_to_showdown[p] and not showed[p])
    return _Cards(hole, board, mucked, tuple(deck))


def _card_text(card: Card) -> str:
    return format_cards([card])


def _by_index(naiko: NaikoExtension) -> dict[int, list[PowerEntry]]:
    entries: dict[int, list[PowerEntry]] = {}
    for entry in naiko.powers:
        entries.setdefault(entry.index, []).append(entry)
    return entries


def _naiko_stream(actions: list[Action], naiko: NaikoExtension, hole: list[list[Card | None]],
                  original: list[list[Card | None]]) -> tuple[list[Card | None], list[Card]]:
    """The cards drawn from the deck after the hole cards, in order: each Sleeve Swap's
    received card (R6.2), then the board; and the peeked card never dealt, if any (R6.1: a
    Peek sees the next card to be drawn). Fills *original* (the hole cards dealt: a swapped
    position holds the discarded card) and unknown swapped cards of *hole* (the final cards).

    :raises PHHError: ``swap_mismatch`` if a swap received a card other than the one its
        player ends with, ``peek_mismatch`` if a Peek saw another card than the next drawn.
    """
    entries = _by_index(naiko)
    stream: list[Card | None] = []
    peeks: list[tuple[int, Card, PowerEntry]] = []

    def powers_before(index: int) -> None:
        for entry in entries.get(index, ()):
            if entry.verb == "sleeve_swap":
                assert entry.card_index is not None
                player, k = entry.actor, entry.card_index
                if k >= len(hole[player]):
                    raise entry.error(f"{entry.player} has no hole card {k}", "bad_naiko")
                final = hole[player][k]
                if entry.received is not None:
                    if final is not None and final != entry.received:
                        raise entry.error(
                            f"{entry.player} received {_card_text(entry.received)} but ends "
                            f"the hand with {_card_text(final)} as hole card {k}",
                            "swap_mismatch")
                    hole[player][k] = entry.received
                stream.append(hole[player][k])
                original[player][k] = entry.discarded
            elif entry.verb == "peek" and entry.card is not None:
                peeks.append((len(stream), entry.card, entry))

    for action in actions:
        powers_before(action.index)
        if action.verb == "db":
            stream.extend(action.cards)
    powers_before(len(actions))
    undealt: list[Card] = []
    for position, card, entry in peeks:
        seen = stream[position] if position < len(stream) else next(iter(undealt), None)
        if seen is not None and seen != card:
            raise entry.error(f"{entry.player} peeked {_card_text(card)} but the next card "
                              f"drawn was {_card_text(seen)}", "peek_mismatch")
        if position < len(stream):
            stream[position] = card
        elif card not in stream:  # else the replay says what is wrong with this Peek
            undealt = [card]
    return stream, undealt


# -- replay ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of checking one hand: ``status`` is ``ok``, ``mismatch``, ``error`` or
    ``unsupported``; ``detail`` explains it."""

    status: str
    detail: str = ""
    code: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "ok"


@dataclass(slots=True)
class Replay:
    """A hand replayed on the engine. Per-player lists run p1 ... pN (seat ``i`` is p``i+1``)."""

    history: HandHistory
    state: TableState
    scale: int
    """One chip is ``10**-scale`` of the file's unit."""
    chips: list[int]
    """Finishing stacks in chips."""
    collected: list[int]
    """Chips won from pots (returned uncalled bets excluded), the counterpart of ``winnings``."""
    returned: list[int]
    """Uncalled chips returned to each player (R4.2)."""
    places: int = 0
    """Decimal places to print amounts with (:attr:`HandHistory.places`)."""
    destellos: list[int] | None = None
    """Replayed in Naiko mode: each player's destellos after the hand; else ``None``."""

    def amount(self, chips: int) -> Decimal:
        """*chips* in the file's unit, written with the file's decimal places."""
        return _from_chips(chips, self.scale, self.places)

    @property
    def finishing_stacks(self) -> list[Decimal]:
        """Finishing stacks in the file's unit."""
        return [self.amount(c) for c in self.chips]

    @property
    def expected_chips(self) -> list[int] | None:
        """The file's ``finishing_stacks`` in chips, if it has them."""
        expected = self.history.finishing_stacks
        return None if expected is None else [_to_chips(e, self.scale) for e in expected]

    @property
    def matches(self) -> bool | None:
        """Whether the finishing stacks equal the file's (``None`` if it has none)."""
        expected = self.expected_chips
        return None if expected is None else expected == self.chips

    def verdict(self) -> Verdict:
        """Compare with the file: ``finishing_stacks`` exactly; else ``winnings`` (post-rake:
        each winner may have collected at most what we compute, the same players must win);
        else there is nothing to compare and the replay alone passes."""
        expected = self.expected_chips
        if expected is not None and expected == self.chips:
            return self._compare_destellos()
        if expected is not None:
            hints = divergence_hints(self.state)
            detail = (f"expected {_fmt_list(self.amount(c) for c in expected)}"
                      + (f"; {'; '.join(hints)}" if hints else ""))
            return Verdict("mismatch", detail, "finishing_stacks")
        if self.history.winnings is not None:
            return self._compare_winnings([_to_chips(w, self.scale)
                                           for w in self.history.winnings])
        return Verdict("ok", "no finishing_stacks or winnings to compare")

    @property
    def expected_destellos(self) -> list[int] | None:
        """Replayed in Naiko mode: the file's ``_naiko_finishing_destellos``, if written."""
        extension = self.history.naiko if self.destellos is not None else None
        if extension is None or extension.finishing_destellos is None:
            return None
        return list(extension.finishing_destellos)

    def _compare_destellos(self) -> Verdict:
        if self.destellos is None:
            return Verdict("ok")
        expected = self.expected_destellos
        if expected is None:
            return Verdict("ok", "Naiko: powers replayed, no finishing destellos to compare")
        if expected == self.destellos:
            return Verdict("ok", "Naiko: powers replayed, destellos match")
        return Verdict("mismatch", f"destellos {self.destellos}, the file says {expected}",
                       "finishing_destellos")

    def _compare_winnings(self, theirs: list[int]) -> Verdict:
        ours = self.collected
        if theirs == ours:
            return Verdict("ok", "winnings match")
        game = self.state.hand
        assert game is not None
        if not any(a.get("showdown") for a in game.awards):
            # Won uncontested: online sites count the big blind's own unmatched blind as
            # "collected" where the engine returns it as uncalled (R4.2).
            bb = game.big_blind_seat
            walk = ours[:]
            walk[bb] += min(self.returned[bb], self.state.config.big_blind)
            if theirs == walk:
                return Verdict("ok", "winnings match, the site counting the big blind's "
                                     "unmatched blind as won")
        rake = sum(ours) - sum(theirs)
        pairs = zip(theirs, ours, strict=True)
        if all(t <= o and (t > 0) == (o > 0) for t, o in pairs) and rake > 0:
            return Verdict("ok", f"winnings match after a rake of {self.amount(rake)}")
        hints = divergence_hints(self.state)
        history = self.history.winnings or []
        return Verdict("mismatch", f"winnings {_fmt_list(history)}, we award "
                                   f"{_fmt_list(self.amount(c) for c in ours)}"
                                   + (f"; {'; '.join(hints)}" if hints else ""), "winnings")


def replay(hand: HandHistory, *, naiko: bool | None = None) -> Replay:
    """Play *hand* on the engine, strictly, and return the finished state.

    p1..pN sit in seats 0..N-1 and the button is seat N-1, so seat 0 posts the small blind
    (the big blind heads-up) exactly as PHH orders players.

    >>> hand = loads('''
    ... variant = "NT"
    ... antes = [0, 0]
    ... blinds_or_straddles = [0.50, 1]
    ... min_bet = 1
    ... starting_stacks = [10, 10]
    ... actions = ["d dh p1 ????", "d dh p2 ????", "p2 cc", "p1 cc", "d db 2c3d4h", "p1 f"]
    ... ''')
    >>> result = replay(hand)
    >>> result.scale, result.chips, [str(s) for s in result.finishing_stacks]
    (1, [90, 110], ['9.00', '11.00'])

    *naiko*: ``None`` (default) replays a hand with the Naiko extension in Naiko mode, each
    power at its place through the engine (:attr:`Replay.destellos` then holds the destellos),
    and any other hand as it is; ``False`` ignores the extension (plain Hold'em, as any PHH
    replayer does); ``True`` requires the extension.

    :raises UnsupportedHand: If the engine does not play this hand.
    :raises PHHError: If an action is malformed, illegal, out of turn, missing or extra; the
        message names the action's index and text. Naiko: ``bad_naiko`` (a malformed extension),
        ``bad_carousel``, ``illegal_power`` (the engine refuses a power where the file puts it),
        ``swap_mismatch``, ``peek_mismatch``, ``not_naiko``.
    """
    extension = hand.naiko if naiko is not False else None
    if naiko and extension is None:
        raise PHHError("the hand has no Naiko extension (_naiko_carousel)", code="not_naiko")
    setup = _setup(hand, naiko=extension is not None)
    config = setup.config
    n = config.seat_count
    cards = _plan_cards(setup.actions, n, config.rules.hole_card_count, extension)
    state = TableState.new(config)
    names = hand.players or []
    ids = [names[i] if i < len(names) and names[i] and names.count(names[i]) == 1
           else f"p{i + 1}" for i in range(n)]
    if len(set(ids)) != n:
        ids = [f"p{i + 1}" for i in range(n)]
    for seat in range(n):
        apply_in_place(state, SitDown(seat_index=seat, player_id=ids[seat],
                                      stack=setup.stacks[seat]))
        if extension is not None:
            player = state.seats[seat]
            assert player is not None
            player.destellos = extension.destellos[seat]
    try:
        apply_in_place(state, StartHand(deck=cards.deck, button=n - 1, mucked=cards.mucked,
                                        carousel=extension.carousel if extension else ()))
    except EngineError as exc:  # only a Carousel that R5.4 does not allow gets here
        raise PHHError(f"field _naiko_carousel: {exc.message}", code="bad_carousel") from None
    game = state.hand
    assert game is not None

    confirmed = 0  # board cards the file has dealt so far
    betting_started = False
    dealt = [0] * n
    returned = [0] * n
    final_deals: list[tuple[Action, int]] = []  # Naiko: dh lines carry the final hole cards
    entries = _by_index(extension) if extension is not None else {}

    def powers_before(index: int) -> None:
        for entry in entries.get(index, ()):
            if confirmed < len(game.board):
                raise entry.error(f"the file does not deal the {_STREETS[confirmed]} before this "
                                  "power", "missing_deal")
            _apply_power(state, game, entry)

    for action in setup.actions:
        powers_before(action.index)
        if not action.verb:
            continue

        def fail(why: str, code: str, action: Action = action) -> PHHError:
            return PHHError(why, code=code, action_index=action.index, action=action.text)

        if action.verb == "dh":
            assert action.actor is not None
            if betting_started:
                raise fail("hole cards are dealt before the betting starts", "late_deal")
            start = dealt[action.actor]
            dealt[action.actor] += len(action.cards)
            if extension is not None:
                final_deals.append((action, start))
                continue
            engine_cards = game.hole[action.actor][start:start + len(action.cards)]
            if not _same_cards(action.cards, engine_cards):
                raise fail(f"the engine dealt {format_cards(engine_cards)}", "deal_mismatch")
        elif action.verb == "db":
            size = _STREET_SIZES.get(confirmed)
            if size is None:
                raise fail("the board is already complete", "bad_board")
            if len(action.cards) != size:
                raise fail(f"the {_STREETS[confirmed]} is {size} card(s), not "
                           f"{len(action.cards)}", "bad_board")
            if len(game.board) < confirmed + size:
                if game.complete:
                    raise fail("the hand is already over: nobody is left to deal to",
                               "extra_action")
                raise fail(f"the betting round is not over: p{_actor(game)} is to act",
                           "premature_deal")
            engine_cards = game.board[confirmed:confirmed + size]
            if not _same_cards(action.cards, engine_cards):
                raise fail(f"the engine dealt {format_cards(engine_cards)}", "deal_mismatch")
            confirmed += size
        elif action.verb == "sm":
            assert action.actor is not None
            if not game.complete:
                raise fail(f"showdown before the betting is over: p{_actor(game)} is to act",
                           "premature_showdown")
            if not any(a.get("showdown") for a in game.awards):
                raise fail("there is no showdown: the pot was won uncontested", "bad_showdown")
            if game.folded[action.actor]:
                raise fail(f"{action.player} folded and has nothing to show", "bad_showdown")
        else:
            betting_started = True
            assert action.actor is not None
            if game.complete:
                raise fail("the hand is already over", "extra_action")
            if confirmed < len(game.board):
                street = _STREETS[confirmed]
                missing = format_cards(game.board[confirmed:confirmed + _STREET_SIZES[confirmed]])
                raise fail(f"the file does not deal the {street} ({missing}) before this "
                           "action", "missing_deal")
            if game.actor != action.actor:
                raise fail(f"p{_actor(game)} is to act, not {action.player}", "wrong_player")
            command = _command(state, game, action, setup.scale)
            try:
                events = apply_in_place(state, command)
            except EngineError as exc:
                hints = divergence_hints(state, errors_only=True)
                raise fail(exc.message + (f" [{'; '.join(hints)}]" if hints else ""),
                           "illegal_action") from None
            for event in events:
                if isinstance(event, UncalledBetReturned):
                    returned[event.seat_index] += event.amount
    powers_before(len(setup.actions))
    if not game.complete:
        raise PHHError(f"the file ends but the hand is not over: p{_actor(game)} is to act "
                       "(missing action)", code="incomplete")
    for action, start in final_deals:
        assert action.actor is not None
        engine_cards = game.hole[action.actor][start:start + len(action.cards)]
        if not _same_cards(action.cards, engine_cards):
            raise PHHError(f"{action.player} ends the hand with {format_cards(engine_cards)}",
                           code="deal_mismatch", action_index=action.index, action=action.text)
    if confirmed < len(game.board):
        missing = format_cards(game.board[confirmed:])
        raise PHHError(f"the file ends without dealing the rest of the board (the engine ran "
                       f"out {missing})", code="incomplete")
    _check_settled(game, cards, n)
    collected = [0] * n
    for award in game.awards:
        for seat, amount in award["winners"].items():
            collected[int(seat)] += amount
    chips = [state.stack(seat) for seat in range(n)]
    destellos = None
    if extension is not None:
        destellos = [seat.destellos if seat else 0 for seat in state.seats]
    return Replay(hand, state, setup.scale, chips, collected, returned, hand.places, destellos)


def _apply_power(state: TableState, game: HandState, entry: PowerEntry) -> None:
    """Apply one entry of ``_naiko_powers`` through the engine and check what it showed.

    :raises PHHError: ``illegal_power`` if the engine refuses it (the message gives the rule),
        ``peek_mismatch`` / ``swap_mismatch`` if it showed other cards than the file says.
    """
    seat = entry.actor
    command: Command
    if entry.verb == "pass":
        command = PassWindow(seat_index=seat)
    elif entry.verb == "timeout":
        window = game.powers.window_for(seat) if game.powers is not None else None
        if window is None:
            raise entry.error(f"no Seal Shield window is open for {entry.player} (R6.5)",
                              "illegal_power")
        command = WindowTimeout(window_id=window.window_id)
    else:
        command = UsePower(seat_index=seat, power=entry.verb, card_index=entry.card_index,
                           target_seat=entry.target)
    if game.complete:
        raise entry.error("the hand is already over", "illegal_power")
    try:
        events = apply_in_place(state, command)
    except EngineError as exc:
        rule = f" ({exc.rule_id})" if exc.rule_id and exc.rule_id not in exc.message else ""
        raise entry.error(f"{exc.message}{rule} [{exc.code}]", "illegal_power") from None
    for event in events:
        if isinstance(event, PeekResult) and entry.card is not None \
                and event.card != _card_text(entry.card):
            raise entry.error(f"the engine shows {event.card}", "peek_mismatch")
        if isinstance(event, SleeveSwapResult):
            for name, card, seen in (("discarded", entry.discarded, event.discarded),
                                     ("received", entry.received, event.received)):
                if card is not None and _card_text(card) != seen:
                    raise entry.error(f"the engine's swap {name} {seen}", "swap_mismatch")


def _same_cards(written: Sequence[Card | None], dealt: Sequence[Card]) -> bool:
    """Whether the engine dealt what the file says (``??`` matches anything)."""
    return all(c is None or c == d for c, d in zip(written, dealt, strict=True))


def _actor(game: HandState) -> str:
    return "?" if game.actor is None else str(game.actor + 1)


def _command(state: TableState, game: HandState, action: Action, scale: int) -> Command:
    """The engine command for a betting line: ``cc`` is a check when the engine's check rule
    allows one (else a call), ``cbr`` a bet or a raise as R2.7 names it (the engine's rules,
    :func:`naiko.engine.can_check` and :func:`naiko.engine.bet_or_raise`, not a copy)."""
    seat = action.actor
    assert seat is not None
    if action.verb == "f":
        return Fold(seat_index=seat)
    if action.verb == "cc":
        return Check(seat_index=seat) if can_check(state, seat) else Call(seat_index=seat)
    assert action.amount is not None
    amount = _to_chips(action.amount, scale)
    if bet_or_raise(game) is Move.BET:
        return Bet(seat_index=seat, amount=amount)
    return RaiseTo(seat_index=seat, amount=amount)


def _check_settled(game: HandState, cards: _Cards, n: int) -> None:
    """Refuse a showdown decided by cards the file does not know."""
    if not any(a.get("showdown") for a in game.awards):
        return
    contenders = [p for p in range(n) if game.is_live(p) and p not in cards.mucked]
    for award in game.awards:
        eligible = award.get("eligible", [])
        if eligible and all(p in cards.mucked for p in eligible):
            names = ", ".join(f"p{p + 1}" for p in eligible)
            raise UnsupportedHand(f"every player eligible for a pot ({names}) mucked: the "
                                  "file does not say who won it", code="unknown_cards")
    if len(contenders) < 2:
        return
    for p in contenders:
        if None in cards.hole[p]:
            raise UnsupportedHand(f"p{p + 1} reached the showdown with unknown cards (????) and "
                                  "did not muck: the pot cannot be settled",
                                  code="unknown_cards")
    if None in cards.board[:len(game.board)] or len(cards.board) < len(game.board):
        raise UnsupportedHand("the showdown needs board cards the file does not know",
                              code="unknown_cards")


def divergence_hints(state: TableState, *, errors_only: bool = False) -> list[str]:
    """Where this hand touches a rule on which RULES.md differs on purpose from PokerKit (the
    reference that most PHH files were checked with): R2.3 short blinds, R2.8 a short big blind
    with a big-blind ante, R4.5 odd chips. Empty when none applies.

    >>> table = TableState.new(TableConfig(seat_count=2, small_blind=1, big_blind=2))
    >>> divergence_hints(table)
    []
    """
    hand = state.hand
    if hand is None:
        return []
    config = state.config
    hints = []
    each = config.ante if config.ante_mode is AnteMode.EACH else 0
    blinds = [(hand.small_blind_seat, config.small_blind, "small"),
              (hand.big_blind_seat, config.big_blind, "big")]
    for seat, nominal, which in blinds:
        if seat is None:
            continue
        available = max(0, hand.starting_stacks[seat] - each)
        if available < nominal:
            hints.append(f"the {which} blind was short ({available} of {nominal} chips): R2.3 "
                         "keeps the preflop price at the nominal big blind, PokerKit lowers it")
    if config.ante_mode is AnteMode.BIG_BLIND:
        seat = hand.big_blind_seat
        if hand.starting_stacks[seat] < config.big_blind + config.ante:
            hints.append("the big blind could not cover blind and big-blind ante: R2.8 posts "
                         "the blind first, PokerKit the ante first")
    if not errors_only:
        split_odd: Counter[tuple[str, ...]] = Counter()
        for award in hand.awards:
            winners = len(award["winners"])
            if winners > 2 and award["amount"] % winners > 1:
                hints.append(f"a pot of {award['amount']} chips split {winners} ways: R4.5 "
                             "gives odd chips one at a time, PokerKit the whole remainder to "
                             "the first winner")
            if winners > 1 and award["amount"] % winners:
                split_odd[tuple(sorted(award["winners"]))] += 1
        if any(count > 1 for count in split_odd.values()):
            hints.append("several pots with odd chips went to the same tied winners: R4.5 "
                         "splits each pot on its own, PokerKit merges them first")
    return hints


def check(hand: HandHistory, *, naiko: bool | None = None) -> tuple[Verdict, Replay | None]:
    """Replay *hand* (*naiko* as for :func:`replay`) and compare with its ``finishing_stacks``
    (or ``winnings``) and, in Naiko mode, ``_naiko_finishing_destellos``; never raises
    :class:`PHHError`.

    >>> verdict, _ = check(loads('variant = "FT"\\nantes = [0, 0]\\nblinds_or_straddles = [1, 2]'
    ...                          '\\nmin_bet = 2\\nstarting_stacks = [5, 5]\\nactions = []'))
    >>> verdict.status, verdict.code
    ('unsupported', 'unsupported_variant')
    """
    try:
        result = replay(hand, naiko=naiko)
    except UnsupportedHand as exc:
        return Verdict("unsupported", exc.message, exc.code), None
    except PHHError as exc:
        return Verdict("error", exc.message, exc.code), None
    return result.verdict(), result


# -- writing ---------------------------------------------------------------------------------

def from_state(state: TableState, *, scale: int = 0,
               extra: dict[str, Any] | None = None) -> HandHistory:
    """The finished hand of *state* as a :class:`HandHistory`: p1 is the first seat dealt in
    left of the button, ..., pN the last (the button itself when it is occupied); heads-up p1
    is the big blind and p2 the button. Amounts are chips times ``10**-scale``.

    The optional fields written are ``players`` (player ids), ``finishing_stacks``, ``hand``
    (the hand number), ``seats`` (1-based seat numbers) and ``seat_count``, plus *extra*.

    A Naiko-mode hand is written as ``NT`` with the Naiko extension (``docs/phh.md``): its
    ``d dh`` lines give the hole cards each player ended with (after a Sleeve Swap), so that
    the file replays as plain No-Limit Hold'em with the same showdown, and the user-defined
    fields ``_naiko_carousel``, ``_naiko_destellos``, ``_naiko_finishing_destellos`` and
    ``_naiko_powers`` carry the powers, everything included (peeked and swapped cards: use
    :func:`for_reader` for one reader's copy).

    :raises PHHError: If there is no finished hand, or it was cancelled.
    """
    hand = state.hand
    if hand is None or not hand.complete:
        raise PHHError("the table has no finished hand to export", code="hand_not_complete")
    config = state.config
    naiko = config.rules.powers
    code = "NT" if naiko else CODES.get(config.variant)
    if code is None:  # pragma: no cover - every variant has a code
        raise UnsupportedHand(f"{config.variant.value} hands have no PHH variant",
                              code="unsupported_variant")
    n = config.seat_count
    order = clockwise_from_button([s for s in range(n) if hand.dealt[s]], n, hand.button)
    index = {seat: i for i, seat in enumerate(order)}
    heads_up = len(order) == 2

    def amount(chips: int) -> Decimal:
        return _from_chips(chips, scale)

    def forced(paid: dict[int, int]) -> list[Decimal]:
        values = [amount(paid.get(seat, 0)) for seat in order]
        return values[::-1] if heads_up else values  # PHH reverses heads-up forced bets

    if config.ante_mode is AnteMode.EACH:
        antes = [amount(config.ante)] * len(order)
    elif config.ante_mode is AnteMode.BIG_BLIND:
        antes = forced({hand.big_blind_seat: config.ante})
    else:
        antes = [Decimal(0)] * len(order)
    blinds_paid = {hand.big_blind_seat: config.big_blind}
    if hand.small_blind_seat is not None:
        blinds_paid[hand.small_blind_seat] = config.small_blind
    actions: list[str] = []
    powers: list[str] = []
    destellos = {seat: hand.starting_destellos[seat] for seat in order}
    for event in hand.log:
        if naiko and _power_entry(event, index, len(actions), powers, destellos):
            continue
        match event:
            case HoleCardsDealt(seat_index=seat, cards=cards):
                if naiko:  # the final cards, so that a Hold'em showdown gives the same result
                    cards = format_cards(hand.hole[seat])
                actions.append(f"d dh p{index[seat] + 1} {cards}")
            case BoardDealt(cards=cards):
                actions.append(f"d db {cards}")
            case ActionTaken(seat_index=seat, action=Move.FOLD):
                actions.append(f"p{index[seat] + 1} f")
            case ActionTaken(seat_index=seat, action=Move.CHECK | Move.CALL):
                actions.append(f"p{index[seat] + 1} cc")
            case ActionTaken(seat_index=seat, to=int(to)):
                actions.append(f"p{index[seat] + 1} cbr {format_amount(amount(to))}")
            case HandCancelled():
                raise PHHError("a cancelled hand (R8.6) has no PHH form",
                               code="hand_cancelled")
            case _:
                pass  # posts, returns, showdown and awards follow from the actions
    for seat in order:
        if hand.shown[seat]:
            actions.append(f"p{index[seat] + 1} sm {format_cards(hand.hole[seat])}")
        elif hand.mucked[seat] and hand.is_live(seat):
            actions.append(f"p{index[seat] + 1} sm")
    won = Counter[int]()
    for award in hand.awards:
        for seat, chips in award["winners"].items():
            won[int(seat)] += chips
    finishing = [hand.starting_stacks[s] - hand.committed[s] + won[s] for s in order]
    fields: dict[str, Any] = {"hand": hand.number, "seats": [s + 1 for s in order],
                              "seat_count": n}
    fields.update(extra or {})
    user: dict[str, Any] = {}
    if naiko:
        assert hand.powers is not None
        user = {"_naiko_carousel": list(hand.powers.carousel),
                "_naiko_destellos": [hand.starting_destellos[s] for s in order],
                "_naiko_finishing_destellos": [destellos[s] for s in order],
                "_naiko_powers": powers}
    return HandHistory(
        variant=code, antes=antes, blinds_or_straddles=forced(blinds_paid),
        min_bet=amount(config.big_blind),
        starting_stacks=[amount(hand.starting_stacks[s]) for s in order], actions=actions,
        players=[hand.player_ids[s] or "" for s in order],
        finishing_stacks=[amount(c) for c in finishing], extra=fields, user_fields=user)


def _power_entry(event: Any, index: dict[int, int], at: int, powers: list[str],
                 destellos: dict[int, int]) -> bool:
    """Write a power event of a Naiko hand's log as a ``_naiko_powers`` entry placed before
    ``actions[at]``, and follow each player's destellos; whether *event* was one."""
    match event:
        case CarouselDrawn(destellos=credited):
            destellos.update({int(seat): count for seat, count in credited.items()})
        case PowerUsed(seat_index=seat, power=power, destellos=left, target_seat=target):
            destellos[seat] = left
            player = f"p{index[seat] + 1}"
            if power is Power.SHORT_ANCHOR:
                assert target is not None
                powers.append(f"{at} {player} short_anchor p{index[target] + 1}")
            elif power is Power.SEAL_SHIELD:
                powers.append(f"{at} {player} seal_shield")
            # a Peek or a Sleeve Swap is written with its result, which follows at once
        case PeekResult(seat_index=seat, card=card):
            powers.append(f"{at} p{index[seat] + 1} peek {card}")
        case SleeveSwapResult(seat_index=seat, discarded=old, received=new, cards=cards):
            k = 0 if cards[:2] == new else 1
            powers.append(f"{at} p{index[seat] + 1} sleeve_swap {k} {old} {new}")
        case WindowClosed(target=seat, reason="passed" | "timed_out" as reason):
            verb = "pass" if reason == "passed" else "timeout"
            powers.append(f"{at} p{index[seat] + 1} {verb}")
        case _:
            return False
    return True


def for_reader(history: HandHistory, reader: int | None) -> HandHistory:
    """*history* as player ``p{reader + 1}`` (*reader* 0-based; ``None``: an observer) was
    shown it: other players' hole cards unknown (``??`` per card) unless shown at the showdown
    (an ``sm`` line with cards); in the Naiko extension, other players' peeked and swapped cards
    unknown (``peek ??``, ``sleeve_swap K ?? ??``: that a power was used, on which card, is
    public), and the reader's own peeked card too when a Sleeve Swap put it into a hand that
    was not shown (as :func:`naiko.views.view_for` hides it once it left the deck, R6.8).

    >>> hand = loads('variant = "NT"\\nantes = [0, 0]\\nblinds_or_straddles = [1, 2]\\n'
    ...              'min_bet = 2\\nstarting_stacks = [50, 50]\\n'
    ...              'actions = ["d dh p1 AsKs", "d dh p2 7h2c", "p2 f"]')
    >>> for_reader(hand, 1).actions
    ['d dh p1 ????', 'd dh p2 7h2c', 'p2 f']

    :raises PHHError: If an action or the Naiko extension is malformed.
    """
    parsed = history.parsed_actions()
    shown = {a.actor for a in parsed if a.verb == "sm" and any(c is not None for c in a.cards)}
    hidden: set[Card] = set()
    actions = []
    for action in parsed:
        if action.verb == "dh" and action.actor != reader and action.actor not in shown:
            hidden.update(c for c in action.cards if c is not None)
            actions.append(f"d dh {action.player} {'??' * len(action.cards)}")
        else:
            actions.append(action.text)
    user = dict(history.user_fields)
    extension = history.naiko
    if extension is not None:
        entries = []
        for entry in extension.powers:
            text = entry.text
            if entry.verb == "peek" and (entry.actor != reader or entry.card in hidden):
                text = f"{entry.index} {entry.player} peek ??"
            elif entry.verb == "sleeve_swap" and entry.actor != reader:
                text = f"{entry.index} {entry.player} sleeve_swap {entry.card_index} ?? ??"
            entries.append(text)
        user["_naiko_powers"] = entries
    return replace(history, actions=actions, user_fields=user)


def dumps(hand: HandHistory) -> str:
    """*hand* as a ``.phh`` TOML document (required fields first, then the optional ones).

    >>> print(dumps(HandHistory("NT", [Decimal(0)] * 2, [Decimal("0.5"), Decimal(1)],
    ...                         Decimal(1), [Decimal(20), Decimal("20.25")], ["p2 f"])))
    variant = "NT"
    ante_trimming_status = false
    antes = [0, 0]
    blinds_or_straddles = [0.5, 1]
    min_bet = 1
    starting_stacks = [20, 20.25]
    actions = ["p2 f"]
    <BLANKLINE>
    """
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in _fields(hand))


def dumps_all(hands: Sequence[HandHistory]) -> str:
    """*hands* as a ``.phhs`` document with tables ``[1]``, ``[2]``, ...

    >>> text = dumps_all([HandHistory("NT", [Decimal(0)] * 2, [Decimal(1), Decimal(2)],
    ...                               Decimal(2), [Decimal(9)] * 2, ["p2 f"])] * 2)
    >>> [h.source for h in loads_all(text)]
    ['[1]', '[2]']
    """
    return "\n".join(f"[{i}]\n{dumps(hand)}" for i, hand in enumerate(hands, 1))


def to_phh(source: TableState | HandHistory, *, scale: int = 0) -> str:
    """PHH text of a finished engine hand (a :class:`~naiko.state.TableState`, see
    :func:`from_state`) or of a :class:`HandHistory`.

    >>> from naiko.engine import apply
    >>> from naiko.commands import Fold
    >>> table = TableState.new(TableConfig(seat_count=2, small_blind=1, big_blind=2))
    >>> for seat in range(2):
    ...     table = apply(table, SitDown(seat_index=seat, player_id=f"x{seat}", stack=50))[0]
    >>> table = apply(table, StartHand(deck=tuple(range(52)), button=1))[0]
    >>> table = apply(table, Fold(seat_index=1))[0]
    >>> print(to_phh(table, scale=2))
    variant = "NT"
    ante_trimming_status = false
    antes = [0, 0]
    blinds_or_straddles = [0.01, 0.02]
    min_bet = 0.02
    starting_stacks = [0.50, 0.50]
    actions = ["d dh p1 2c2d", "d dh p2 2h2s", "p2 f"]
    players = ["x0", "x1"]
    finishing_stacks = [0.51, 0.49]
    hand = 1
    seats = [1, 2]
    seat_count = 2
    <BLANKLINE>
    """
    if isinstance(source, TableState):
        source = from_state(source, scale=scale)
    return dumps(source)


def _fields(hand: HandHistory) -> Iterator[tuple[str, Any]]:
    yield "variant", hand.variant
    yield "ante_trimming_status", hand.ante_trimming_status
    yield "antes", hand.antes
    yield "blinds_or_straddles", hand.blinds_or_straddles
    yield "min_bet", hand.min_bet
    yield "starting_stacks", hand.starting_stacks
    yield "actions", hand.actions
    for name in ("players", "finishing_stacks", "winnings"):
        value = getattr(hand, name)
        if value is not None:
            yield name, value
    for name, value in hand.extra.items():
        if not name.startswith("_") and name not in _KNOWN:
            yield name, value
    for name, value in hand.user_fields.items():
        if name.startswith("_"):
            yield name, value


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _string(key)


def _string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return {"Infinity": "inf", "-Infinity": "-inf"}.get(str(value), "nan")
        return format_amount(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise PHHError(f"cannot write {value!r} as TOML", code="bad_field")


# -- command line ----------------------------------------------------------------------------

def _files(paths: Iterable[str]) -> Iterator[Path]:
    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*")
                              if p.suffix in (".phh", ".phhs") and p.is_file())
        else:
            yield path


def main(argv: Sequence[str] | None = None) -> int:
    """``naiko-phh PATH...``: replay every hand of the given ``.phh``/``.phhs`` files and
    directories (searched recursively) and compare with their finishing stacks (and, for hands
    with the Naiko extension, replayed with their powers, their finishing destellos; with
    ``--holdem`` the extension is ignored). Prints one line per hand and closes with
    ``N passed, M failed`` (``, K skipped`` with ``--skip-unsupported``); returns 1 if any hand
    failed, else 0.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     with open(os.path.join(folder, "walk.phh"), "w") as f:
    ...         _ = f.write('variant = "NT"\\nantes = [0, 0]\\nblinds_or_straddles = [1, 2]\\n'
    ...                     'min_bet = 2\\nstarting_stacks = [50, 50]\\nactions = ["p2 f"]\\n'
    ...                     'finishing_stacks = [51, 49]\\n')
    ...     main([folder, "--quiet"])
    1 passed, 0 failed
    0
    """
    parser = argparse.ArgumentParser(
        prog="naiko-phh", description="Replay PHH hand histories (NT, PO, and NT with the Naiko "
                                      "extension) on the Naiko engine and compare the "
                                      "finishing stacks (and destellos).")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=".phh/.phhs files or directories (searched recursively)")
    parser.add_argument("--skip-unsupported", action="store_true",
                        help="count hands the engine refuses to play as skipped, not failed")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the hands that did not pass, and the summary")
    parser.add_argument("--reasons", action="store_true",
                        help="before the closing line, count the failures (and skips) by reason")
    parser.add_argument("--holdem", action="store_true",
                        help="ignore the Naiko extension: replay Naiko hands as plain No-Limit "
                             "Hold'em, as any PHH replayer does")
    args = parser.parse_args(argv)
    passed = failed = skipped = 0
    reasons: Counter[str] = Counter()
    out = sys.stdout

    def report(label: str, line: str, status: str, code: str = "") -> None:
        nonlocal passed, failed, skipped
        if status == "ok":
            passed += 1
        elif status == "unsupported" and args.skip_unsupported:
            skipped += 1
            reasons[f"skipped: {code}"] += 1
        else:
            failed += 1
            reasons[f"{status}: {code}"] += 1
        if status != "ok" or not args.quiet:
            print(f"{label}: {line}", file=out)

    for path in _files(args.paths):
        try:
            entries = _load_entries(path)
        except (OSError, UnicodeDecodeError) as exc:
            report(str(path), f"ERROR: cannot read: {exc}", "error", "unreadable")
            continue
        except PHHError as exc:
            report(str(path), f"ERROR: {exc.message}", "error", exc.code)
            continue
        for label, hand in entries:
            if isinstance(hand, PHHError):
                report(label, f"ERROR: {hand.message}", "error", hand.code)
                continue
            verdict, result = check(hand, naiko=False if args.holdem else None)
            stacks = "" if result is None else _fmt_list(result.finishing_stacks) + " "
            if verdict.status == "ok":
                line = "ok" + (f" ({verdict.detail})" if verdict.detail else "")
            elif verdict.status == "mismatch":
                line = f"MISMATCH ({verdict.detail})"
            elif verdict.status == "unsupported" and args.skip_unsupported:
                line = f"SKIPPED: {verdict.detail}"
            else:
                line = f"ERROR: {verdict.detail}"
            report(label, stacks + line, verdict.status, verdict.code)
    if args.reasons:
        for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {count:6d}  {reason}", file=out)
    summary = f"{passed} passed, {failed} failed"
    if args.skip_unsupported:
        summary += f", {skipped} skipped"
    print(summary, file=out)
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
