""":mod:`naiko.hand_formats` writes a finished hand in the two hand-history formats trackers
import besides PHH (:mod:`naiko.phh`): PokerStars hand-history text and Open Hand History
(OHH) JSON (R10.1).

* :func:`to_pokerstars` -- the text PokerStars writes and PokerTracker, Holdem Manager and
  PokerKit's ``PokerStarsParser`` read: header, seats, posts, ``*** HOLE CARDS ***``, actions,
  streets, ``*** SHOW DOWN ***`` with main and side pots, ``*** SUMMARY ***``.
* :func:`to_ohh` / :func:`dumps_ohh` -- the ``{"ohh": {...}}`` object of the Open Hand History
  specification (hh-specs.handhistory.org, version :data:`OHH_SPEC_VERSION`).

Both are written for one reader, the *hero* (a player id, or ``None`` for an observer): the
export is built only from the events of the hand's log that the hero may see
(:meth:`naiko.events.Event.visible_to`), so it holds the hero's own hole cards and the hands
shown at the showdown (R4.4), never a folded, mucked or otherwise unseen hand (R10.1).

Decisions where the formats are silent (sources: real PokerStars files in the test fixtures of
``pokerregion/poker``, ``thlorenz/hhp`` and ``poker-apprentice/hand-history-parser``; PokerKit
0.7.7 ``pokerkit/notation.py``; the OHH pages at hh-specs.handhistory.org):

* **Chips and money.** Our chips are virtual (R7), so by default amounts are plain chips,
  written as PokerStars writes play money and tournament chips: ``Hold'em No Limit (10/20)``,
  ``(1500 in chips)``, and a cash table line tagged ``(Play Money)``; OHH ``currency`` is
  ``"XPM"`` (play money, OHH 1.4.6). For tables whose chips stand for cents,
  ``currency="USD"`` (or ``"EUR"``, ``"GBP"``) writes the real-money form:
  ``Hold'em No Limit ($0.50/$1.00 USD)``, ``$1.50``, whole amounts without decimals
  (``$2``) as PokerStars prints them. Rake is always 0 (the rules take none).
* **Time.** PokerStars stamps hands in US Eastern time (``2026/12/01 17:00:00 ET``, the hour not
  padded); the offset follows the US daylight-saving rule in force since 2007, computed here
  without a time-zone database. OHH gets UTC (``2026-12-01T22:00:00Z``).
* **Blinds.** A missed small blind posted dead (R7.8) is ``posts small blind`` from its seat,
  written with the live big blind of the same seat as PokerStars' ``posts small & big blinds``
  (their total); a big blind posted to enter is ``posts big blind`` (OHH: ``Post Dead`` and
  ``Post Extra Blind``). A dead small blind (R2.6) has no line. Antes and the big-blind ante are
  ``posts the ante``, in the engine's order (R2.8: the big blind before its ante).
* **Raises** are ``raises X to Y`` where ``X`` is ``Y`` minus the bet to match before it (a short
  big blind does not lower that bet, R2.3, which PokerStars also does); OHH action amounts are
  the chips each action added (a raise to 20 after betting 2 is 18, as the spec says). OHH has
  no "uncalled bet" action: amounts stay as bet and the pots exclude what was returned (R4.2).
* **Showdown.** Hands are shown starting with the last player who bet or raised on the final
  betting round (else the first left of the button), and pots are awarded from the last side
  pot down to the main pot, each pot's contenders showing before its ``collected`` lines, as
  PokerStars prints them: ``from pot`` for a single pot, else ``from main pot``,
  ``from side pot`` (one side pot) or ``from side pot-1``, ``-2``... Hand names are PokerStars'
  (``a pair of Aces``, ``two pair, Kings and Fours``, ``a straight, Ten to Ace``,
  ``a Royal Flush``). A hand won without a showdown is ``collected N from pot`` followed by
  ``doesn't show hand``. OHH: one pot object per pot, a ``Showdown`` round of ``Shows Cards``.
  A hand thrown away unseen at the showdown (only in replays of online logs,
  :func:`naiko.phh.replay`) is ``mucks hand`` and ``mucked`` (OHH ``Mucks Cards``).
* **Naiko powers** (R1.4) have no place in either format. PokerStars text gets one chat line
  per power, the one kind of line PokerStars writes that every reader skips by design (a
  parser that does not know a line, e.g. ``Alice uses Peek``, stops on it:
  pokerregion/poker raises ``bad action line``): the player concerned "says" it, its text
  starts with ``[Naiko]`` (:data:`NOTICE_TAG`): ``Alice said, "[Naiko] uses Peek"``,
  ``Bob said, "[Naiko] uses Short Anchor on Alice"``, ``Alice said, "[Naiko] uses Seal
  Shield"``, ``Alice said, "[Naiko] is anchored"``, and after the hole cards the site's
  ``Naiko said, "[Naiko] The Carousel offers Peek, Sleeve Swap and Short Anchor"``
  (``powers=False`` leaves them out). The hero's own lines add what the hero saw:
  ``"[Naiko] uses Peek and sees [Kd]"`` and ``"[Naiko] uses Sleeve Swap and swaps [7c] for
  [Qs]"``.
  A peeked card that a later Sleeve Swap put into another player's hand (the peeker knew it
  during play, R6.8) is not named when that hand was never shown: the history follows R10.1,
  as :func:`naiko.views.view_for` hides such a peek once the card has left the deck. OHH gets a
  site extension object ``"naiko"`` inside ``"ohh"`` (carousel, destellos, and each power with
  its round and position among the round's actions); action names stay the standard ones, so
  strict readers are not broken.
* **Sleeve Swap and consistency.** Every hole card an export shows (``Dealt to``, OHH
  ``Dealt Cards``, the showdown) is the card the hand ended with, so the hero's cards, the
  shown hands and the board never contradict each other for a tracker; the card thrown away is
  named only in the swapper's own ``swaps`` line (R6.8) and is never shown to anyone else.
* **Observers.** ``*** HOLE CARDS ***`` is written for every reader; ``Dealt to`` only for
  the hero, so an observer's hand has the section without any card in it.
* Hands cancelled by R8.6 are not exported (nothing was played to its end).

>>> from datetime import UTC, datetime
>>> from naiko.commands import Fold, SitDown, StartHand
>>> from naiko.engine import apply
>>> from naiko.state import TableConfig, TableState
>>> table = TableState.new(TableConfig(seat_count=3, small_blind=1, big_blind=2))
>>> for seat in range(3):
...     table = apply(table, SitDown(seat_index=seat, player_id=f"p{seat}", stack=100))[0]
>>> table = apply(table, StartHand(deck=tuple(range(52)), button=0))[0]
>>> table = apply(table, Fold(seat_index=0))[0]
>>> table = apply(table, Fold(seat_index=1))[0]
>>> when = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)
>>> print(to_pokerstars(table, hand_id=7, table_name="Aludra", started=when, hero="p1"))
PokerStars Hand #7:  Hold'em No Limit (1/2) - 2026/12/01 17:00:00 ET
Table 'Aludra' 3-max (Play Money) Seat #1 is the button
Seat 1: p0 (100 in chips)
Seat 2: p1 (100 in chips)
Seat 3: p2 (100 in chips)
p1: posts small blind 1
p2: posts big blind 2
*** HOLE CARDS ***
Dealt to p1 [2c 2d]
p0: folds
p1: folds
Uncalled bet (1) returned to p2
p2 collected 2 from pot
p2: doesn't show hand
*** SUMMARY ***
Total pot 2 | Rake 0
Seat 1: p0 (button) folded before Flop (didn't bet)
Seat 2: p1 (small blind) folded before Flop
Seat 3: p2 (big blind) collected (2)
<BLANKLINE>
>>> ohh = to_ohh(table, hand_id=7, table_name="Aludra", started=when, hero="p1")["ohh"]
>>> [(a["action"], a.get("amount")) for a in ohh["rounds"][0]["actions"]]
[('Post SB', 1), ('Post BB', 2), ('Dealt Cards', None), ('Fold', None), ('Fold', None)]
>>> ohh["pots"]
[{'number': 0, 'amount': 2, 'rake': 0, 'player_wins': [{'player_id': 2, 'win_amount': 2, \
'contributed_rake': 0}]}]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from itertools import pairwise
from typing import Any

from .cards import format_cards, parse_cards, rank_of
from .evaluator import Category, category_of, evaluate
from .events import (
    ActionTaken,
    AnchorApplied,
    AntePosted,
    BlindPosted,
    BoardDealt,
    CarouselDrawn,
    Event,
    HandCancelled,
    HoleCardsDealt,
    Move,
    PeekResult,
    PotAwarded,
    Power,
    PowerUsed,
    Showdown,
    ShownHand,
    SleeveSwapResult,
    UncalledBetReturned,
)
from .pots import clockwise_from_button
from .state import HandState, TableState, Variant

__all__ = [
    "HandExportError", "Tournament", "TournamentType", "to_pokerstars", "to_ohh", "dumps_ohh",
    "pokerstars_hand_name", "eastern_time", "parse_cards_list", "OHH_SPEC_VERSION",
    "SITE_NAME", "NOTICE_TAG", "POWER_NAMES",
]

OHH_SPEC_VERSION = "1.4.6"
"""The Open Hand History version written (1.4.6, February 2024: play money is ``XPM``)."""

SITE_NAME = "Naiko"
"""OHH ``site_name`` and ``network_name``."""

EXPORTER_VERSION = "1.0.0"
"""OHH ``internal_version``: the version of this exporter's output."""

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "\N{EURO SIGN}", "GBP": "\N{POUND SIGN}"}
"""Currencies PokerStars writes with a symbol; with one of them a chip is a cent."""

PLAY_MONEY = "XPM"
"""OHH's currency code for play money and chips without value (OHH 1.4.6)."""

NOTICE_TAG = "[Naiko]"
"""What starts the text of every Naiko chat line of the PokerStars export."""

POWER_NAMES = {Power.PEEK: "Peek", Power.SLEEVE_SWAP: "Sleeve Swap",
               Power.SHORT_ANCHOR: "Short Anchor", Power.SEAL_SHIELD: "Seal Shield"}
"""How the powers are named in PokerStars text."""

_GAME_NAMES = {Variant.NLHE: "Hold'em No Limit", Variant.NAIKO: "Hold'em No Limit",
               Variant.PLO: "Omaha Pot Limit"}
_OHH_GAMES = {Variant.NLHE: ("Holdem", "NL"), Variant.NAIKO: ("Holdem", "NL"),
              Variant.PLO: ("Omaha", "PL")}
_STREET_TITLES = {"flop": "Flop", "turn": "Turn", "river": "River"}
_RANK_NAMES = ("Deuce", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack",
               "Queen", "King", "Ace")
"""PokerStars' rank names (``a straight, Deuce to Six``)."""
_RANK_PLURALS = ("Deuces", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines",
                 "Tens", "Jacks", "Queens", "Kings", "Aces")


# -- errors and inputs -----------------------------------------------------------------------

class HandExportError(ValueError):
    """A hand that cannot be exported, or export options that make no sense. ``code`` is a
    stable ``snake_case`` reason: ``hand_not_complete``, ``hand_cancelled``, ``bad_name``,
    ``bad_option``.

    >>> HandExportError("no hand", code="hand_not_complete").code
    'hand_not_complete'
    """

    code = "export_error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class TournamentType(StrEnum):
    """OHH ``tournament_info.type``."""

    SIT_AND_GO = "STT"
    """A single-table tournament (Sit & Go, Spin)."""
    MULTI_TABLE = "MTT"


@dataclass(frozen=True, slots=True)
class Tournament:
    """What a tournament hand's export says about its tournament (R9). Money amounts are whole
    units without a *currency* (play money: ``100+0``) and cents with one (``$1+$0.10 USD``).
    """

    number: int
    """The tournament's number (``Tournament #number``)."""
    level: int
    """The blind level being played, from 1 (written in Roman numerals: ``Level IV``)."""
    buy_in: int = 0
    """The entry that goes to the prize pool (R9.1, R9.9)."""
    fee: int = 0
    """The fee on top of the entry (none is taken here, so normally 0)."""
    currency: str | None = None
    """The currency of the buy-in; ``None`` for play money (OHH ``XPM``)."""
    name: str = ""
    """OHH ``tournament_info.name``."""
    started: datetime | None = None
    """When the tournament started (OHH ``tournament_info.start_date_utc``); default: the
    hand's start."""
    starting_stack: int = 0
    """Every entrant's starting stack of tournament chips (R9.1, OHH ``initial_stack``)."""
    type: TournamentType = TournamentType.SIT_AND_GO
    level_minutes: int = 0
    """Length of a level in minutes (OHH ``speed.round_time``)."""
    speed: str = "Normal"
    """OHH ``speed.type``: ``Normal``, ``Semi-Turbo``, ``Turbo``, ``Super-Turbo``,
    ``Hyper-Turbo`` or ``Ultra-Turbo``."""

    def __post_init__(self) -> None:
        if self.number < 0 or self.level < 1 or self.buy_in < 0 or self.fee < 0:
            raise HandExportError("a tournament needs a number >= 0, a level >= 1 and buy-in "
                                  "and fee >= 0", code="bad_option")
        _money(self.currency)


# -- money, time, names ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Money:
    """How amounts are written: plain chips, or cents of a currency."""

    currency: str | None

    @property
    def symbol(self) -> str:
        return "" if self.currency is None else CURRENCY_SYMBOLS[self.currency]

    def text(self, chips: int, *, decimals: bool = False) -> str:
        """``1500``; with a currency ``$2``, ``$0.50`` (or ``$2.00`` with *decimals*)."""
        if self.currency is None:
            return str(chips)
        whole, cents = divmod(chips, 100)
        if cents or decimals:
            return f"{self.symbol}{whole}.{cents:02d}"
        return f"{self.symbol}{whole}"

    def pair(self, first: int, second: int) -> str:
        """Stakes or a buy-in: ``1/2``, ``$1/$2``, ``$0.50/$1.00`` (both with cents when
        either has some)."""
        decimals = self.currency is not None and bool(first % 100 or second % 100)
        return f"{self.text(first, decimals=decimals)}/{self.text(second, decimals=decimals)}"

    def number(self, chips: int) -> int | float:
        """An OHH amount: chips, or the currency amount (``0.5`` for 50 cents)."""
        if self.currency is None:
            return chips
        return float(Decimal(chips).scaleb(-2))


def _money(currency: str | None) -> _Money:
    if currency is not None and currency not in CURRENCY_SYMBOLS:
        raise HandExportError(f"currency must be one of {sorted(CURRENCY_SYMBOLS)} or None "
                              f"(chips), not {currency!r}", code="bad_option")
    return _Money(currency)


def eastern_time(moment: datetime) -> datetime:
    """*moment* (timezone-aware) in US Eastern time, as PokerStars stamps hands: UTC-4 from
    the second Sunday of March 07:00 UTC to the first Sunday of November 06:00 UTC, else
    UTC-5 (the rule since 2007). The result is naive local time.

    >>> eastern_time(datetime(2026, 12, 1, 22, 0, tzinfo=UTC))
    datetime.datetime(2026, 12, 1, 17, 0)
    >>> eastern_time(datetime(2026, 7, 1, 22, 0, tzinfo=UTC))
    datetime.datetime(2026, 7, 1, 18, 0)

    :raises HandExportError: If *moment* has no time zone.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise HandExportError("a hand's start time needs a time zone (e.g. datetime.UTC)",
                              code="bad_option")
    utc = moment.astimezone(UTC).replace(tzinfo=None)
    year = utc.year
    start = datetime.combine(_nth_sunday(year, 3, 2), datetime.min.time()) + timedelta(hours=7)
    end = datetime.combine(_nth_sunday(year, 11, 1), datetime.min.time()) + timedelta(hours=6)
    return utc - timedelta(hours=4 if start <= utc < end else 5)


def _nth_sunday(year: int, month: int, n: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))


def _stars_time(moment: datetime) -> str:
    et = eastern_time(moment)
    return f"{et.year}/{et.month:02d}/{et.day:02d} {et.hour}:{et.minute:02d}:{et.second:02d} ET"


def _utc_text(moment: datetime) -> str:
    eastern_time(moment)  # the same check: an aware datetime
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _roman(number: int) -> str:
    numerals = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))
    out = []
    for value, letters in numerals:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def pokerstars_hand_name(best_five: str) -> str:
    """PokerStars' name of a five-card hand given as its cards (the engine's ``best_five``,
    larger groups first, straights high to low with the wheel as 5-4-3-2-A).

    >>> [pokerstars_hand_name(h) for h in ("AhAd9c5s2d", "KsKd4c4h2s", "5h4s3c2dAh",
    ...                                    "AhKhQhJhTh", "QsJsTs9s8s", "TcTdTh8s8c")]
    ['a pair of Aces', 'two pair, Kings and Fours', 'a straight, Ace to Five', 'a Royal Flush', \
'a straight flush, Eight to Queen', 'a full house, Tens full of Eights']
    """
    cards = parse_cards(best_five)
    ranks = [rank_of(c) for c in cards]
    category = category_of(evaluate(cards))
    first, last = ranks[0], ranks[-1]
    names: dict[Category, str] = {
        Category.HIGH_CARD: f"high card {_RANK_NAMES[first]}",
        Category.ONE_PAIR: f"a pair of {_RANK_PLURALS[first]}",
        Category.TWO_PAIR: f"two pair, {_RANK_PLURALS[first]} and {_RANK_PLURALS[ranks[2]]}",
        Category.THREE_OF_A_KIND: f"three of a kind, {_RANK_PLURALS[first]}",
        Category.STRAIGHT: f"a straight, {_RANK_NAMES[last]} to {_RANK_NAMES[first]}",
        Category.FLUSH: f"a flush, {_RANK_NAMES[first]} high",
        Category.FULL_HOUSE: f"a full house, {_RANK_PLURALS[first]} full of "
                             f"{_RANK_PLURALS[ranks[3]]}",
        Category.FOUR_OF_A_KIND: f"four of a kind, {_RANK_PLURALS[first]}",
        Category.STRAIGHT_FLUSH: ("a Royal Flush" if first == 12 and last == 8 else
                                  f"a straight flush, {_RANK_NAMES[last]} to "
                                  f"{_RANK_NAMES[first]}"),
    }
    return names[category]


def _spaced(cards: str) -> str:
    return format_cards(parse_cards(cards), " ")


# -- the hand as one reader sees it ----------------------------------------------------------

@dataclass(slots=True)
class _Hand:
    """A finished hand read from its log for one reader: the players dealt in, in seat order,
    and only the events the reader may see."""

    state: TableState
    hand: HandState
    seats: list[int]
    """Engine seat indexes dealt in, in seat order."""
    names: dict[int, str]
    hero: int | None
    events: list[Event]
    final_hole: str | None = None
    """The hero's hole cards at the end of the hand (after a Sleeve Swap)."""
    shown: dict[int, ShownHand] = field(default_factory=dict)
    awards: list[PotAwarded] = field(default_factory=list)
    won: dict[int, int] = field(default_factory=dict)
    results: dict[int, PeekResult | SleeveSwapResult] = field(default_factory=dict)
    """The private result of each of the hero's powers, by ``id()`` of its ``PowerUsed``."""

    @property
    def showdown(self) -> bool:
        return bool(self.shown)

    def seen_result(self, used: PowerUsed) -> str:
        """What the hero's own *used* power showed them, as PokerStars words: ``sees [Kd]``
        (unless that card ended in another player's unshown hand, R10.1) or
        ``swaps [7c] for [Qs]``; empty for another player's power."""
        if used.seat_index != self.hero:
            return ""
        result = self.results.get(id(used))
        if isinstance(result, PeekResult) and _peek_visible(self, result.card):
            return f"sees [{result.card}]"
        if isinstance(result, SleeveSwapResult):
            return f"swaps [{result.discarded}] for [{result.received}]"
        return ""


def _read(state: TableState, hero: str | None, names: Mapping[str, str] | None) -> _Hand:
    hand = state.hand
    if hand is None or not hand.complete:
        raise HandExportError("the table has no finished hand to export",
                              code="hand_not_complete")
    if hand.cancelled or any(isinstance(e, HandCancelled) for e in hand.log):
        raise HandExportError("a cancelled hand (R8.6) is not exported", code="hand_cancelled")
    seats = [s for s in range(state.config.seat_count) if hand.dealt[s]]
    by_seat: dict[int, str] = {}
    for seat in seats:
        player_id = hand.player_ids[seat] or f"Seat {seat + 1}"
        by_seat[seat] = _check_name(names.get(player_id, player_id) if names else player_id)
    if len(set(by_seat.values())) != len(by_seat):
        raise HandExportError(f"player names must differ: {sorted(by_seat.values())}",
                              code="bad_name")
    hero_seat = next((s for s in seats if hero is not None and hand.player_ids[s] == hero),
                     None)
    events = [e for e in hand.log if e.visible_to(hero_seat)]
    record = _Hand(state, hand, seats, by_seat, hero_seat, events)
    for used, result in pairwise(events):
        if isinstance(used, PowerUsed) and isinstance(result, PeekResult | SleeveSwapResult) \
                and result.seat_index == used.seat_index:
            record.results[id(used)] = result
    for event in events:
        match event:
            case HoleCardsDealt(seat_index=seat, cards=cards) if seat == hero_seat:
                record.final_hole = cards
            case SleeveSwapResult(seat_index=seat, cards=cards) if seat == hero_seat:
                record.final_hole = cards
            case Showdown(hands=hands):
                record.shown = {h.seat_index: h for h in hands}
            case PotAwarded():
                record.awards.append(event)
                for seat_text, chips in event.winners.items():
                    record.won[int(seat_text)] = record.won.get(int(seat_text), 0) + chips
            case _:
                pass
    return record


def _check_name(name: str) -> str:
    if not name or name != name.strip() or any(c in name for c in "\r\n"):
        raise HandExportError(f"a player name must be one line without surrounding spaces, "
                              f"not {name!r}", code="bad_name")
    return name


def _check_table_name(name: str) -> str:
    if not name or "'" in name or any(c in name for c in "\r\n"):
        raise HandExportError(f"a table name must be one line without quotes, not {name!r}",
                              code="bad_name")
    return name


def _pot_names(count: int) -> list[str]:
    """``pot``; or ``main pot``, ``side pot``; or ``main pot``, ``side pot-1``, ..."""
    if count <= 1:
        return ["pot"]
    if count == 2:
        return ["main pot", "side pot"]
    return ["main pot"] + [f"side pot-{i}" for i in range(1, count)]


def _show_order(record: _Hand) -> list[int]:
    """The hands still in at the showdown, in the order they are shown (or mucked): the last
    player to bet or raise on the final betting round first, else the first left of the
    button; then clockwise."""
    n = record.state.config.seat_count
    hand = record.hand
    last_round: list[ActionTaken] = []
    for event in record.events:
        if isinstance(event, BoardDealt) and not event.run_out:
            last_round = []
        elif isinstance(event, ActionTaken):
            last_round.append(event)
    aggressors = [a.seat_index for a in last_round if a.action in (Move.BET, Move.RAISE_TO)]
    order = clockwise_from_button([s for s in record.seats if hand.is_live(s)], n, hand.button)
    if aggressors and aggressors[-1] in order:
        start = order.index(aggressors[-1])
        order = order[start:] + order[:start]
    return order


def _peek_visible(record: _Hand, card: str) -> bool:
    """Whether the hero's peeked *card* may be named: not when a Sleeve Swap put it into
    another player's hand that was never shown (R10.1)."""
    code = parse_cards(card)[0]
    return not any(code in record.hand.hole[s] for s in record.seats
                   if s != record.hero and s not in record.shown)


# -- PokerStars text -------------------------------------------------------------------------

def _prepare(state: TableState, hand_id: int, hero: str | None,
             tournament: Tournament | None, currency: str | None,
             names: Mapping[str, str] | None) -> tuple[_Money, _Hand]:
    """The checks both exports make, then the money format and what *hero* may see."""
    if tournament is not None and currency is not None:
        raise HandExportError("a tournament hand is played in chips: give the buy-in's "
                              "currency in Tournament.currency", code="bad_option")
    if hand_id < 1:
        raise HandExportError(f"hand_id must be positive, not {hand_id}", code="bad_option")
    return _money(currency), _read(state, hero, names)


def to_pokerstars(state: TableState, *, hand_id: int, table_name: str, started: datetime,
                  hero: str | None = None, tournament: Tournament | None = None,
                  currency: str | None = None, names: Mapping[str, str] | None = None,
                  powers: bool = True) -> str:
    """The finished hand of *state* as PokerStars hand-history text, as *hero* may see it.

    :param state: A table whose hand is complete.
    :param hand_id: The hand's number (``PokerStars Hand #hand_id``), unique on the site.
    :param table_name: The table's name (no quote characters).
    :param started: When the hand started (timezone-aware).
    :param hero: The reader's player id: their hole cards are ``Dealt to``; ``None`` for an
        observer.
    :param tournament: For a tournament hand, its details (chips are tournament chips).
    :param currency: For a cash table whose chips are cents: ``"USD"``, ``"EUR"`` or ``"GBP"``;
        ``None`` for play chips.
    :param names: Screen names by player id (default: the player ids).
    :param powers: Write Naiko powers as info lines (see the module notes).
    :return: The text, one line per ``\\n``, ending with a newline.
    :raises HandExportError: If the hand is not finished, was cancelled, or a name or option
        is invalid.
    """
    money, record = _prepare(state, hand_id, hero, tournament, currency, names)
    return _StarsWriter(record, money, powers).write(hand_id, _check_table_name(table_name),
                                                      started, tournament)


class _StarsWriter:
    def __init__(self, record: _Hand, money: _Money, powers: bool) -> None:
        self.r = record
        self.money = money
        self.powers = powers
        self.lines: list[str] = []
        self.bets: dict[int, int] = {}
        self.current = 0
        self.street = "preflop"
        self.folded_on: dict[int, str] = {}
        self.put_in: set[int] = set()
        """Seats that posted a blind or put chips in preflop (not antes): no "didn't bet"."""

    def write(self, hand_id: int, table_name: str, started: datetime,
              tournament: Tournament | None) -> str:
        r, config = self.r, self.r.state.config
        stakes = self.money.pair(config.small_blind, config.big_blind)
        game = _GAME_NAMES[config.variant]
        when = _stars_time(started)
        if tournament is None:
            unit = f" {self.money.currency}" if self.money.currency else ""
            self.lines.append(f"PokerStars Hand #{hand_id}:  {game} ({stakes}{unit}) - {when}")
            tag = " (Play Money)" if self.money.currency is None else ""
        else:
            buy_in = _buy_in_text(tournament)
            self.lines.append(f"PokerStars Hand #{hand_id}: Tournament #{tournament.number}, "
                              f"{buy_in} {game} - Level {_roman(tournament.level)} ({stakes})"
                              f" - {when}")
            tag = ""
        self.lines.append(f"Table '{table_name}' {config.seat_count}-max{tag} "
                          f"Seat #{r.hand.button + 1} is the button")
        for seat in r.seats:
            self.lines.append(f"Seat {seat + 1}: {r.names[seat]} "
                              f"({self.money.text(r.hand.starting_stacks[seat])} in chips)")
        self._posts()
        self._play()
        self._results()
        self._summary()
        return "\n".join(self.lines) + "\n"

    # -- posts and play ----------------------------------------------------------------------

    def _posts(self) -> None:
        r = self.r
        dead = {e.seat_index: e for e in r.events
                if isinstance(e, BlindPosted) and e.blind == "dead"}
        both = {e.seat_index for e in r.events
                if isinstance(e, BlindPosted) and e.blind == "post" and e.seat_index in dead}
        posts = [e for e in r.events if isinstance(e, AntePosted | BlindPosted)]
        first_blind = next((i for i, e in enumerate(posts) if isinstance(e, BlindPosted)),
                           len(posts))
        # PokerStars lists the antes posted before the blinds in seat order.
        posts[:first_blind] = sorted(posts[:first_blind], key=lambda e: e.seat_index)
        for event in posts:
            if isinstance(event, AntePosted):
                self.lines.append(f"{r.names[event.seat_index]}: posts the ante "
                                  f"{self.money.text(event.amount)}{_all_in(event.all_in)}")
            elif isinstance(event, BlindPosted):
                seat = event.seat_index
                self.put_in.add(seat)
                if event.blind != "dead":
                    self.bets[seat] = self.bets.get(seat, 0) + event.amount
                if seat in both and event.blind == "post":
                    continue  # written with the dead small blind
                if seat in both:
                    total = event.amount + next(
                        e.amount for e in r.events if isinstance(e, BlindPosted)
                        and e.seat_index == seat and e.blind == "post")
                    self.lines.append(f"{r.names[seat]}: posts small & big blinds "
                                      f"{self.money.text(total)}{_all_in(self._all_in(seat))}")
                    continue
                which = "small" if event.blind in ("small", "dead") else "big"
                self.lines.append(f"{r.names[seat]}: posts {which} blind "
                                  f"{self.money.text(event.amount)}{_all_in(event.all_in)}")
        self.current = max([r.state.config.big_blind, *self.bets.values()])

    def _all_in(self, seat: int) -> bool:
        return any(isinstance(e, BlindPosted) and e.seat_index == seat and e.all_in
                   for e in self.r.events)

    def _play(self) -> None:
        r = self.r
        visible = {id(e) for e in r.events}
        first_hole = next((e for e in r.hand.log if isinstance(e, HoleCardsDealt)), None)
        for event in r.hand.log:
            if event is first_hole:  # for an observer too, who sees no hole cards (R10.1)
                self.lines.append("*** HOLE CARDS ***")
            if id(event) not in visible:
                continue
            match event:
                case HoleCardsDealt(seat_index=seat):
                    if seat == r.hero and r.final_hole is not None:
                        self.lines.append(f"Dealt to {r.names[seat]} [{_spaced(r.final_hole)}]")
                case CarouselDrawn(powers=carousel) if self.powers:
                    names = [POWER_NAMES[p] for p in carousel]
                    self._notice(SITE_NAME, f"The Carousel offers {', '.join(names[:-1])} and "
                                            f"{names[-1]}")
                case PowerUsed() if self.powers:
                    self._notice(r.names[event.seat_index], self._power_words(event))
                case AnchorApplied(target=target) if self.powers:
                    self._notice(r.names[target], "is anchored")
                case ActionTaken():
                    self._action(event)
                case UncalledBetReturned(seat_index=seat, amount=amount):
                    self.lines.append(f"Uncalled bet ({self.money.text(amount)}) returned to "
                                      f"{r.names[seat]}")
                case BoardDealt(street=street, cards=cards, board=board):
                    self.street = street
                    self.bets = {}
                    self.current = 0
                    before = board[:len(board) - len(cards)]
                    shown = f"[{_spaced(before)}] " if before else ""
                    self.lines.append(f"*** {street.upper()} *** {shown}[{_spaced(cards)}]")
                case _:
                    pass

    def _notice(self, speaker: str, words: str) -> None:
        """A Naiko line as a PokerStars chat line (``Bea said, "[Naiko] uses Peek"``), which
        every PokerStars reader skips."""
        self.lines.append(f'{speaker} said, "{NOTICE_TAG} {words}"')

    def _power_words(self, event: PowerUsed) -> str:
        r = self.r
        words = f"uses {POWER_NAMES[event.power]}"
        if event.power is Power.SHORT_ANCHOR and event.target_seat is not None:
            return f"{words} on {r.names[event.target_seat]}"
        seen = r.seen_result(event)
        return f"{words} and {seen}" if seen else words

    def _action(self, event: ActionTaken) -> None:
        name = self.r.names[event.seat_index]
        seat = event.seat_index
        tail = _all_in(bool(event.all_in))
        if event.action is Move.FOLD:
            self.folded_on[seat] = self.street
            self.lines.append(f"{name}: folds")
        elif event.action is Move.CHECK:
            self.lines.append(f"{name}: checks")
        elif event.action is Move.CALL:
            amount = event.amount or 0
            self.bets[seat] = self.bets.get(seat, 0) + amount
            self._mark(seat)
            self.lines.append(f"{name}: calls {self.money.text(amount)}{tail}")
        else:
            to = event.to or 0
            self._mark(seat)
            self.bets[seat] = to
            if event.action is Move.BET:
                self.lines.append(f"{name}: bets {self.money.text(to)}{tail}")
            else:
                self.lines.append(f"{name}: raises {self.money.text(to - self.current)} to "
                                  f"{self.money.text(to)}{tail}")
            self.current = max(self.current, to)

    def _mark(self, seat: int) -> None:
        if self.street == "preflop":
            self.put_in.add(seat)

    # -- showdown and summary ----------------------------------------------------------------

    def _results(self) -> None:
        r = self.r
        names = _pot_names(len(r.awards))
        if not r.showdown:
            for award in r.awards:
                for seat_text, chips in award.winners.items():
                    self.lines.append(f"{r.names[int(seat_text)]} collected "
                                      f"{self.money.text(chips)} from {names[award.pot_index]}")
            for seat in r.won:
                self.lines.append(f"{r.names[seat]}: doesn't show hand")
            return
        self.lines.append("*** SHOW DOWN ***")
        order = _show_order(r)
        shown: set[int] = set()
        for award in sorted(r.awards, key=lambda a: -a.pot_index):
            contenders = set(award.eligible or ()) | {int(s) for s in award.winners}
            for seat in order:
                if seat in contenders and seat not in shown:
                    self._show(seat)
                    shown.add(seat)
            for seat_text, chips in award.winners.items():
                self.lines.append(f"{r.names[int(seat_text)]} collected "
                                  f"{self.money.text(chips)} from {names[award.pot_index]}")
        for seat in order:
            if seat not in shown:
                self._show(seat)

    def _show(self, seat: int) -> None:
        hand = self.r.shown.get(seat)
        if hand is None:  # a hand thrown away unseen (replays of online logs only)
            self.lines.append(f"{self.r.names[seat]}: mucks hand")
            return
        self.lines.append(f"{self.r.names[seat]}: shows [{_spaced(hand.cards)}] "
                          f"({pokerstars_hand_name(hand.best_five)})")

    def _summary(self) -> None:
        r = self.r
        self.lines.append("*** SUMMARY ***")
        total = sum(a.amount for a in r.awards)
        pots = ""
        if len(r.awards) > 1:
            labels = ["Main pot"] + (["Side pot"] if len(r.awards) == 2 else
                                     [f"Side pot-{i}" for i in range(1, len(r.awards))])
            pots = "".join(f" {label} {self.money.text(a.amount)}."
                           for label, a in zip(labels, r.awards, strict=True))
        self.lines.append(f"Total pot {self.money.text(total)}{pots} | Rake "
                          f"{self.money.text(0)}")
        if r.hand.board:
            self.lines.append(f"Board [{_spaced(format_cards(r.hand.board))}]")
        hand = r.hand
        for seat in r.seats:
            tags = ""
            if seat == hand.button:
                tags += " (button)"
            if seat == hand.small_blind_seat:
                tags += " (small blind)"
            elif seat == hand.big_blind_seat:
                tags += " (big blind)"
            self.lines.append(f"Seat {seat + 1}: {r.names[seat]}{tags} {self._outcome(seat)}")

    def _outcome(self, seat: int) -> str:
        r = self.r
        won = r.won.get(seat, 0)
        if seat in r.shown:
            shown = r.shown[seat]
            cards, name = _spaced(shown.cards), pokerstars_hand_name(shown.best_five)
            if won:
                return f"showed [{cards}] and won ({self.money.text(won)}) with {name}"
            return f"showed [{cards}] and lost with {name}"
        if won:
            return f"collected ({self.money.text(won)})"
        if r.showdown and r.hand.is_live(seat):
            return "mucked"
        street = self.folded_on.get(seat, "preflop")
        if street == "preflop":
            return "folded before Flop" + ("" if seat in self.put_in else " (didn't bet)")
        return f"folded on the {_STREET_TITLES[street]}"


def _all_in(flag: bool) -> str:
    return " and is all-in" if flag else ""


def _buy_in_text(tournament: Tournament) -> str:
    if tournament.buy_in == 0 and tournament.fee == 0:
        return "Freeroll "  # PokerStars: "Tournament #1, Freeroll  Hold'em No Limit"
    money = _Money(tournament.currency)
    if tournament.currency is None:
        return f"{tournament.buy_in}+{tournament.fee}"
    amounts = money.pair(tournament.buy_in, tournament.fee).replace("/", "+")
    return f"{amounts} {tournament.currency}"


# -- Open Hand History -----------------------------------------------------------------------

def to_ohh(state: TableState, *, hand_id: int, table_name: str, started: datetime,
           hero: str | None = None, tournament: Tournament | None = None,
           currency: str | None = None, names: Mapping[str, str] | None = None,
           site_name: str = SITE_NAME) -> dict[str, Any]:
    """The finished hand of *state* as an Open Hand History object ``{"ohh": {...}}``, as
    *hero* may see it (parameters as :func:`to_pokerstars`). Amounts are JSON numbers: chips,
    or currency units when *currency* is given. A Naiko hand carries the site extension object
    ``"naiko"`` (see the module notes).

    :raises HandExportError: If the hand is not finished, was cancelled, or a name or option
        is invalid.
    """
    money, record = _prepare(state, hand_id, hero, tournament, currency, names)
    return {"ohh": _OhhWriter(record, money).write(hand_id, _check_table_name(table_name),
                                                   started, tournament, site_name)}


def dumps_ohh(documents: Iterable[dict[str, Any]]) -> str:
    """OHH objects as the text of an ``.ohh`` file: one JSON object per hand, separated by a
    blank line (the OHH storage format).

    >>> dumps_ohh([{"ohh": {"game_number": "1"}}, {"ohh": {"game_number": "2"}}])
    '{"ohh": {"game_number": "1"}}\\n\\n{"ohh": {"game_number": "2"}}\\n'
    """
    return "\n\n".join(json.dumps(d, ensure_ascii=False) for d in documents) + "\n"


class _OhhWriter:
    def __init__(self, record: _Hand, money: _Money) -> None:
        self.r = record
        self.money = money
        self.ids = {seat: i for i, seat in enumerate(record.seats)}
        self.rounds: list[dict[str, Any]] = []
        self.bets: dict[int, int] = {}
        self.powers: list[dict[str, Any]] = []

    def write(self, hand_id: int, table_name: str, started: datetime,
              tournament: Tournament | None, site_name: str) -> dict[str, Any]:
        r, config, money = self.r, self.r.state.config, self.money
        game_type, bet_type = _OHH_GAMES[config.variant]
        currency = (tournament.currency if tournament is not None else money.currency)
        out: dict[str, Any] = {
            "spec_version": OHH_SPEC_VERSION,
            "site_name": site_name,
            "network_name": site_name,
            "internal_version": EXPORTER_VERSION,
        }
        if tournament is not None:
            out["tournament"] = True
            out["tournament_info"] = _tournament_info(tournament, started)
        out.update({
            "game_number": str(hand_id),
            "start_date_utc": _utc_text(started),
            "table_name": table_name,
            "game_type": game_type,
            "bet_limit": {"bet_type": bet_type, "bet_cap": 0},
            "table_size": config.seat_count,
            "currency": currency or PLAY_MONEY,
            "dealer_seat": r.hand.button + 1,
            "small_blind_amount": money.number(config.small_blind),
            "big_blind_amount": money.number(config.big_blind),
            "ante_amount": money.number(config.ante),
        })
        if r.hero is not None:
            out["hero_player_id"] = self.ids[r.hero]
        else:
            out["flags"] = ["Observed"]
        out["players"] = [{"id": self.ids[s], "seat": s + 1, "name": r.names[s],
                           "starting_stack": money.number(r.hand.starting_stacks[s])}
                          for s in r.seats]
        self._rounds()
        out["rounds"] = self.rounds
        out["pots"] = [{"number": a.pot_index, "amount": money.number(a.amount), "rake": 0,
                        "player_wins": [{"player_id": self.ids[int(s)],
                                         "win_amount": money.number(c), "contributed_rake": 0}
                                        for s, c in a.winners.items()]}
                       for a in r.awards]
        if r.hand.powers is not None:
            out["naiko"] = self._naiko()
        return out

    def _round(self, street: str, cards: Sequence[str] = ()) -> list[dict[str, Any]]:
        actions: list[dict[str, Any]] = []
        self.rounds.append({"id": len(self.rounds), "street": street, "cards": list(cards),
                            "actions": actions})
        return actions

    def _add(self, actions: list[dict[str, Any]], seat: int, action: str,
             amount: int | None = None, all_in: bool | None = None,
             cards: str | None = None) -> None:
        entry: dict[str, Any] = {"action_number": len(actions), "player_id": self.ids[seat],
                                 "action": action}
        if amount is not None:
            entry["amount"] = self.money.number(amount)
            entry["is_allin"] = bool(all_in)
        if cards is not None:
            entry["cards"] = parse_cards_list(cards)
        actions.append(entry)

    def _rounds(self) -> None:
        r = self.r
        posts = {"small": "Post SB", "big": "Post BB", "post": "Post Extra Blind",
                 "dead": "Post Dead"}
        actions = self._round("Preflop")
        for event in r.events:
            match event:
                case AntePosted(seat_index=seat, amount=amount, all_in=all_in):
                    self._add(actions, seat, "Post Ante", amount, all_in)
                case BlindPosted(seat_index=seat, blind=blind, amount=amount, all_in=all_in):
                    if blind != "dead":
                        self.bets[seat] = self.bets.get(seat, 0) + amount
                    self._add(actions, seat, posts[blind], amount, all_in)
                case HoleCardsDealt(seat_index=seat) if seat == r.hero:
                    self._add(actions, seat, "Dealt Cards", cards=r.final_hole)
                case ActionTaken():
                    self._action(actions, event)
                case BoardDealt(street=street, cards=cards):
                    self.bets = {}
                    actions = self._round(_STREET_TITLES[street], parse_cards_list(cards))
                case PowerUsed() | AnchorApplied():
                    self._power(event, len(self.rounds) - 1, len(actions))
                case _:
                    pass
        if r.showdown:
            actions = self._round("Showdown")
            for seat in _show_order(r):
                if seat in r.shown:
                    self._add(actions, seat, "Shows Cards", cards=r.shown[seat].cards)
                else:
                    self._add(actions, seat, "Mucks Cards")

    def _action(self, actions: list[dict[str, Any]], event: ActionTaken) -> None:
        seat = event.seat_index
        if event.action is Move.FOLD:
            self._add(actions, seat, "Fold")
        elif event.action is Move.CHECK:
            self._add(actions, seat, "Check")
        elif event.action is Move.CALL:
            amount = event.amount or 0
            self.bets[seat] = self.bets.get(seat, 0) + amount
            self._add(actions, seat, "Call", amount, event.all_in)
        else:
            to = event.to or 0
            added = to - self.bets.get(seat, 0)
            self.bets[seat] = to
            name = "Bet" if event.action is Move.BET else "Raise"
            self._add(actions, seat, name, added, event.all_in)

    def _power(self, event: PowerUsed | AnchorApplied, round_id: int, position: int) -> None:
        r = self.r
        entry: dict[str, Any] = {"round_id": round_id, "action_position": position}
        if isinstance(event, AnchorApplied):
            entry.update(event="anchor_applied", player_id=self.ids[event.target],
                         by_player_id=self.ids[event.attacker])
            self.powers.append(entry)
            return
        entry.update(event="power_used", player_id=self.ids[event.seat_index],
                     power=event.power.value, destellos_left=event.destellos)
        if event.target_seat is not None:
            entry["target_player_id"] = self.ids[event.target_seat]
        result = r.results.get(id(event)) if event.seat_index == r.hero else None
        if isinstance(result, PeekResult) and _peek_visible(r, result.card):
            entry["cards"] = [result.card]
        elif isinstance(result, SleeveSwapResult):
            entry["discarded"] = [result.discarded]
            entry["received"] = [result.received]
        self.powers.append(entry)

    def _naiko(self) -> dict[str, Any]:
        r = self.r
        carousel = next((e for e in r.events if isinstance(e, CarouselDrawn)), None)
        return {
            "carousel": [p.value for p in carousel.powers] if carousel else [],
            "destellos": [{"player_id": self.ids[int(s)], "destellos": d}
                          for s, d in (carousel.destellos.items() if carousel else ())],
            "powers": self.powers,
        }


def parse_cards_list(cards: str) -> list[str]:
    """Cards text as OHH card strings: ``"AhKd"`` -> ``["Ah", "Kd"]``.

    >>> parse_cards_list("AhKd7c")
    ['Ah', 'Kd', '7c']
    """
    return format_cards(parse_cards(cards), " ").split()


def _tournament_info(tournament: Tournament, started: datetime) -> dict[str, Any]:
    money = _Money(tournament.currency)
    return {
        "tournament_number": str(tournament.number),
        "name": tournament.name or f"Tournament #{tournament.number}",
        "start_date_utc": _utc_text(tournament.started or started),
        "currency": tournament.currency or PLAY_MONEY,
        "buyin_amount": money.number(tournament.buy_in),
        "fee_amount": money.number(tournament.fee),
        "bounty_fee_amount": 0,
        "initial_stack": tournament.starting_stack,
        "type": tournament.type.value,
        "speed": {"type": tournament.speed, "round_time": tournament.level_minutes},
    }
