"""Two independent readers of the PokerStars hand-history text we export (R10.1), for tests.

* :func:`read_strict` -- a strict grammar of every line kind that
  :func:`naiko.hand_formats.to_pokerstars` writes, in the sections PokerStars writes them
  in. Any other line, or a known line in the wrong place, is a :class:`GrammarError`. It
  keeps a tracker's chip ledger on the way (posts, calls, bets, raises, returns,
  collections) and checks that the summary agrees, so a read gives the pot, the winners and
  every final stack. Naiko's lines must be PokerStars chat lines
  (``Bea said, "[Naiko] uses Peek"``), the only lines trackers skip by design.
* :func:`read_with_poker` -- the ``poker`` package (pokerregion/poker 0.30.0, PyPI), a
  PokerStars parser written without any knowledge of Naiko. Its street parser raises
  ``RuntimeError("bad action line: ...")`` on a flop line that is neither an action, a
  return, a collection nor a chat line. It is narrower than real PokerStars files in three
  places, bridged here without touching how it reads actions: its header pattern wants the
  two-date header PokerStars writes for clients outside US Eastern time
  (``- 2026/12/01 17:00:00 ET [2026/12/01 17:00:00 ET]``), its table pattern has no room for
  the ``(Play Money)`` tag, and its hero parser needs a two-card ``Dealt to`` line (so an
  observer's hand or an Omaha hand is read with ``hero = None`` by :class:`_StarsHandHistory`).
  It also reads a name only up to its first space in ``collected`` lines and amounts as whole
  numbers, so the tests give it names without spaces and chips, not cents; its winners keep
  the summary's position tags (``Ana (button)``), and in a hand without a board it skips the
  first summary line (it expects a ``Board`` line there). Only the flop's lines are parsed
  as actions; the other streets are kept as text.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["GrammarError", "Notice", "StarsHand", "read_strict", "read_with_poker"]

AMOUNT = r"[$€£]?\d+(?:\.\d\d)?"
CARD = r"[2-9TJQKA][cdhs]"
CARDS = rf"{CARD}(?: {CARD})*"
HAND_NAME = (r"(?:high card \w+|a pair of \w+|two pair, \w+ and \w+|three of a kind, \w+|"
             r"a straight, \w+ to \w+|a flush, \w+ high|a full house, \w+ full of \w+|"
             r"four of a kind, \w+|a straight flush, \w+ to \w+|a Royal Flush)")
POWER = r"(?:Peek|Sleeve Swap|Short Anchor|Seal Shield)"

HEADER = re.compile(
    rf"PokerStars Hand #(?P<id>\d+): (?:Tournament #\d+, (?:Freeroll |{AMOUNT}\+{AMOUNT}"
    rf"(?: [A-Z]{{3}})?) (?P<tgame>Hold'em No Limit|Omaha Pot Limit) - Level [IVXLCDM]+ "
    rf"\((?P<tsb>\d+)/(?P<tbb>\d+)\)| (?P<game>Hold'em No Limit|Omaha Pot Limit) "
    rf"\((?P<sb>{AMOUNT})/(?P<bb>{AMOUNT})(?P<cur> USD| EUR| GBP)?\)) - "
    r"\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d ET")
TABLE = re.compile(r"Table '(?P<table>[^']+)' (?P<max>\d+)-max(?: \(Play Money\))? "
                   r"Seat #(?P<button>\d+) is the button")
SEAT = re.compile(rf"Seat (?P<seat>\d+): (?P<name>.+) \((?P<stack>{AMOUNT}) in chips\)")
POST = re.compile(rf"(?P<name>.+): posts (?P<kind>the ante|small blind|big blind|small & big "
                  rf"blinds) (?P<amount>{AMOUNT})(?P<all_in> and is all-in)?")
DEALT = re.compile(rf"Dealt to (?P<name>.+) \[(?P<cards>{CARDS})\]")
ACTION = re.compile(rf"(?P<name>.+): (?:(?P<fc>folds|checks)|calls (?P<call>{AMOUNT})|bets "
                    rf"(?P<bet>{AMOUNT})|raises (?P<by>{AMOUNT}) to (?P<to>{AMOUNT}))"
                    r"(?P<all_in> and is all-in)?")
STREET = re.compile(rf"\*\*\* (?P<street>FLOP|TURN|RIVER) \*\*\* (?:\[(?P<before>{CARDS})\] )?"
                    rf"\[(?P<cards>{CARDS})\]")
UNCALLED = re.compile(rf"Uncalled bet \((?P<amount>{AMOUNT})\) returned to (?P<name>.+)")
COLLECTED = re.compile(rf"(?P<name>.+) collected (?P<amount>{AMOUNT}) from "
                       r"(?P<pot>pot|main pot|side pot(?:-\d+)?)")
NO_SHOW = re.compile(r"(?P<name>.+): doesn't show hand")
SHOWS = re.compile(rf"(?P<name>.+): shows \[(?P<cards>{CARDS})\] \((?P<hand>{HAND_NAME})\)")
MUCKS = re.compile(r"(?P<name>.+): mucks hand")
NOTICE = re.compile(r'(?P<name>.+) said, "\[Naiko\] (?P<text>.+)"')
NOTICE_TEXTS = re.compile(
    rf"(?P<carousel>The Carousel offers {POWER}, {POWER} and {POWER})|"
    rf"uses (?P<power>{POWER})(?: on (?P<target>.+)| and sees \[(?P<seen>{CARD})\]| and swaps "
    rf"\[(?P<discarded>{CARD})\] for \[(?P<received>{CARD})\])?|(?P<anchored>is anchored)")
TOTAL = re.compile(rf"Total pot (?P<total>{AMOUNT})(?P<parts>(?: (?:Main|Side) pot(?:-\d+)? "
                   rf"{AMOUNT}\.)*) \| Rake (?P<rake>{AMOUNT})")
BOARD = re.compile(rf"Board \[(?P<cards>{CARDS})\]")
SUMMARY_SEAT = re.compile(
    rf"Seat (?P<seat>\d+): (?P<name>.+?)(?P<tags>(?: \((?:button|small blind|big blind)\))*) "
    rf"(?:folded before Flop(?: \(didn't bet\))?|folded on the (?:Flop|Turn|River)|mucked|"
    rf"collected \((?P<collected>{AMOUNT})\)|showed \[(?P<cards>{CARDS})\] and "
    rf"(?:won \((?P<won>{AMOUNT})\) with|lost with) {HAND_NAME})")


class GrammarError(AssertionError):
    """A line the grammar does not know, or a known line out of place."""


@dataclass
class Notice:
    street: str
    speaker: str
    text: str


@dataclass
class StarsHand:
    """What the strict reader read."""

    hand_id: int
    game: str
    small: int
    big: int
    button: int
    seats: dict[str, int] = field(default_factory=dict)
    starting: dict[str, int] = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)
    """Every player's stack after the hand, by the text's own chip ledger."""
    hero: str | None = None
    hero_cards: str | None = None
    board: list[str] = field(default_factory=list)
    actions: list[tuple[str, str, str, int | None]] = field(default_factory=list)
    """(street, name, folds / checks / calls / bets / raises, chips added or raised to)."""
    notices: list[Notice] = field(default_factory=list)
    shown: dict[str, str] = field(default_factory=dict)
    collected: dict[str, int] = field(default_factory=dict)
    total_pot: int = 0

    @property
    def winners(self) -> set[str]:
        return set(self.collected)


def read_strict(text: str) -> StarsHand:
    """Read one exported hand line by line, or raise :class:`GrammarError`."""
    lines = text.split("\n")
    if lines[-1] != "" or "" in lines[:-1]:
        raise GrammarError("a hand is lines ending with a newline, with no blank line")
    lines.pop()
    where = [0]

    def fail(why: str) -> GrammarError:
        return GrammarError(f"line {where[0] + 1} ({why}): {lines[where[0]]!r}\n{text}")

    head = HEADER.fullmatch(lines[0])
    if head is None:
        raise fail("header")
    cents = bool(head["cur"])

    def chips(amount: str) -> int:
        value = Decimal(amount.lstrip("$€£"))
        return int(value * 100) if cents else int(value)

    small = chips(head["sb"] or head["tsb"])
    big = chips(head["bb"] or head["tbb"])
    table = TABLE.fullmatch(lines[1]) if len(lines) > 1 else None
    where[0] = 1
    if table is None:
        raise fail("table")
    hand = StarsHand(int(head["id"]), head["game"] or head["tgame"], small, big,
                     int(table["button"]))
    i = 2
    while i < len(lines) and (m := SEAT.fullmatch(lines[i])):
        where[0] = i
        if m["name"] in hand.seats or not 1 <= int(m["seat"]) <= int(table["max"]):
            raise fail("seat")
        hand.seats[m["name"]] = int(m["seat"])
        hand.starting[m["name"]] = hand.stacks[m["name"]] = chips(m["stack"])
        i += 1
    if len(hand.seats) < 2:
        raise fail("fewer than two seats")
    bets: dict[str, int] = {}
    first_blind: str | None = None
    while i < len(lines) and (m := POST.fullmatch(lines[i])):
        where[0] = i
        name, amount = _player(m, hand, fail), chips(m["amount"])
        hand.stacks[name] -= amount
        if m["kind"] != "the ante":
            first_blind = first_blind or name
        live = {"the ante": 0, "big blind": amount, "small & big blinds": amount - small,
                "small blind": amount if name == first_blind else 0}[m["kind"]]
        bets[name] = bets.get(name, 0) + live
        i += 1
    where[0] = i
    if i >= len(lines) or lines[i] != "*** HOLE CARDS ***":
        raise fail("*** HOLE CARDS *** after the posts")
    i += 1
    if i < len(lines) and (m := DEALT.fullmatch(lines[i])):
        where[0] = i
        hand.hero, hand.hero_cards = _player(m, hand, fail), m["cards"].replace(" ", "")
        i += 1
    current = max(big, *bets.values()) if bets else big
    street = "preflop"
    streets = ["preflop", "flop", "turn", "river"]
    section = "play"
    for index in range(i, len(lines)):
        where[0] = index
        line = lines[index]
        if section == "play" or section == "showdown":
            if section == "play" and (m := ACTION.fullmatch(line)):
                name = _player(m, hand, fail)
                if m["fc"]:
                    hand.actions.append((street, name, m["fc"], None))
                elif m["call"]:
                    amount = chips(m["call"])
                    hand.stacks[name] -= amount
                    bets[name] = bets.get(name, 0) + amount
                    if bets[name] > current:
                        raise fail("a call above the bet")
                    hand.actions.append((street, name, "calls", amount))
                elif m["bet"]:
                    if current:
                        raise fail("a bet where there is one to call")
                    amount = chips(m["bet"])
                    hand.stacks[name] -= amount
                    bets[name] = current = amount
                    hand.actions.append((street, name, "bets", amount))
                else:
                    by, to = chips(m["by"]), chips(m["to"])
                    if to - current != by:
                        raise fail(f"raises {by} over {current}")
                    hand.stacks[name] -= to - bets.get(name, 0)
                    bets[name] = current = to
                    hand.actions.append((street, name, "raises", to))
                if hand.stacks[name] < 0 or (m["all_in"] is not None) != (
                        hand.stacks[name] == 0):
                    raise fail("all-in does not match the stack")
            elif section == "play" and (m := NOTICE.fullmatch(line)):
                _notice(m, hand, street, fail)
            elif section == "play" and (m := STREET.fullmatch(line)):
                if streets.index(m["street"].lower()) != streets.index(street) + 1:
                    raise fail("street out of order")
                before = (m["before"] or "").split()
                if before != hand.board or len(m["cards"].split()) != (
                        3 if m["street"] == "FLOP" else 1):
                    raise fail("board")
                street = m["street"].lower()
                hand.board += m["cards"].split()
                bets, current = {}, 0
            elif section == "play" and (m := UNCALLED.fullmatch(line)):
                name = _player(m, hand, fail)
                hand.stacks[name] += chips(m["amount"])
            elif section == "play" and line == "*** SHOW DOWN ***":
                section = "showdown"
            elif (m := COLLECTED.fullmatch(line)):
                name = _player(m, hand, fail)
                hand.collected[name] = hand.collected.get(name, 0) + chips(m["amount"])
            elif section == "play" and (m := NO_SHOW.fullmatch(line)):
                if _player(m, hand, fail) not in hand.collected:
                    raise fail("doesn't show hand by a player who won nothing")
            elif section == "showdown" and (m := SHOWS.fullmatch(line)):
                name = _player(m, hand, fail)
                if name in hand.shown:
                    raise fail("shown twice")
                hand.shown[name] = m["cards"].replace(" ", "")
            elif section == "showdown" and (m := MUCKS.fullmatch(line)):
                _player(m, hand, fail)
            elif line == "*** SUMMARY ***":
                section = "total"
            else:
                raise fail("not a line of the hand's play")
        elif section == "total":
            m = TOTAL.fullmatch(line)
            if m is None:
                raise fail("Total pot")
            hand.total_pot = chips(m["total"])
            parts = re.findall(rf"pot(?:-\d+)? ({AMOUNT})\.", m["parts"])
            if hand.total_pot != sum(hand.collected.values()) or chips(m["rake"]) != 0 or (
                    parts and sum(map(chips, parts)) != hand.total_pot):
                raise fail("the pot is not what was collected")
            section = "board"
        elif section == "board" and (m := BOARD.fullmatch(line)):
            if m["cards"].split() != hand.board:
                raise fail("summary board")
            section = "seats"
        elif section in ("board", "seats") and (m := SUMMARY_SEAT.fullmatch(line)):
            section = "seats"
            name = _player(m, hand, fail)
            if hand.seats[name] != int(m["seat"]):
                raise fail("summary seat")
            won = m["collected"] or m["won"]
            if (chips(won) if won else 0) != hand.collected.get(name, 0):
                raise fail("summary winnings")
            if m["cards"] and m["cards"].replace(" ", "") != hand.shown.get(name):
                raise fail("summary cards")
        else:
            raise fail("not a line of the summary")
    if section != "seats":
        raise GrammarError(f"the hand ends in its {section} section\n{text}")
    for name, amount in hand.collected.items():
        hand.stacks[name] += amount
    return hand


def _player(match: re.Match[str], hand: StarsHand, fail: Any) -> str:
    name = match["name"]
    if name not in hand.seats:
        raise fail("not a seated player")
    return name


def _notice(match: re.Match[str], hand: StarsHand, street: str, fail: Any) -> None:
    speaker, text = match["name"], match["text"]
    words = NOTICE_TEXTS.fullmatch(text)
    if words is None:
        raise fail("not a Naiko notice")
    if words["carousel"]:
        if speaker != "Naiko":
            raise fail("the Carousel is announced by the site")
    else:
        _player(match, hand, fail)
        if words["target"] is not None and (words["power"] != "Short Anchor"
                                             or words["target"] not in hand.seats):
            raise fail("only Short Anchor has a target, a seated player")
        if words["power"] == "Short Anchor" and words["target"] is None:
            raise fail("Short Anchor without a target")
    hand.notices.append(Notice(street, speaker, text))


# -- the poker package (pokerregion/poker 0.30.0) -------------------------------------------

def _poker_class() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pkg_resources' deprecation warning
        from poker.room.pokerstars import PokerStarsHandHistory

    class _StarsHandHistory(PokerStarsHandHistory):  # type: ignore[misc]
        """0.30.0's reader; an observer's hand or an Omaha hand has no two-card ``Dealt to``
        line, which its hero parser requires: those are read with ``hero = None``."""

        def _parse_hero(self) -> None:
            line = self._splitted[self._sections[0] + 2]
            if self._hero_re.fullmatch(line) is None:
                self.hero = None
                return
            super()._parse_hero()

    return _StarsHandHistory


def read_with_poker(text: str) -> Any:
    """*text* parsed by the ``poker`` package: its ``PokerStarsHandHistory`` after
    :meth:`parse`. Only the header and table lines are given the form it reads (see the
    module notes); it raises on what it cannot read."""
    lines = text.split("\n")
    lines[0] = re.sub(r" - (\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d ET)$", r" - \1 [\1]", lines[0])
    lines[1] = lines[1].replace(" (Play Money) ", " ")
    history = _poker_class()("\n".join(lines))
    history.parse()
    return history
