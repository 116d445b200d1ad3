""":mod:`naiko_client.render` turns what the server sent into screen text. Pure functions (and
one small stateful narrator): no I/O, no clock (the caller passes ``now_ms``), no terminal.

- :func:`render` draws the table screen from a ``view`` (``docs/protocol.md`` section 5): seats
  with stacks, bets, BOT labels, button and blind markers, folded / all-in / sitting out /
  offline, the host, who owes blinds and posts or waits for the big blind (R7.8), the actor and
  its countdown, your cards, the board and pot, the Carousel, destellos, anchors and Shield
  windows (Naiko mode), the room (a paused, closing or closed table, the waiting list, seats
  held, the host's invite code and pending settings), a seat offered to you with its countdown
  (R7.10), at a tournament's table its level, blinds and ante, the time to the next level and
  what it is, players left and the prizes (R9.3, R9.9, R9.10), the last events, the prompt with
  the legal actions, the amount to call, the min/max raise-to and your countdown, a status line
  and the command line.
- :func:`render_lobby` draws the list of open tables, the tournaments and one tournament.
- :class:`Narrator` turns ``update.events`` into sentences ("bob raises to 40", "alice wins 120
  with two pair, Kings and Fours", "grace is out in 3rd place"; about the reader in the second
  person: "You raise to 40", "Your clock ran out: you fold"; a player whose id reads as "you"
  quoted: ``"you" raises to 40``, see :class:`Person`).

>>> cards_text("TdKh")
'Td Kh'
>>> seconds_left(1_000_500, 1_000_000), seconds_left(999_000, 1_000_000), seconds_left(None, 0)
(1, 0, None)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .i18n import language, tr
from .i18n_screens import RANK_WORDS

POWER_NAMES = {"peek": "Peek", "sleeve_swap": "Sleeve Swap", "short_anchor": "Short Anchor",
               "seal_shield": "Seal Shield"}
POWER_COSTS = {"peek": 1, "sleeve_swap": 2, "short_anchor": 2, "seal_shield": 1}
"""Destellos each power costs (R6.1-R6.4)."""

POWER_KEYS = {"peek": "peek", "sleeve_swap": "swap 1|2", "short_anchor": "anchor SEAT",
              "seal_shield": "shield"}
"""What to type for each power (see :data:`HELP_ROWS`)."""

HELP_ROWS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("f", "fold"), ("x", "check")),
    (("c", "call"), ("a", "all-in")),
    (("b N", "bet N chips"), ("r N", "raise to N (the total you put in this street)")),
    (("peek", "Peek: see the next board card (1 destello)"),),
    (("swap 1|2", "Sleeve Swap your 1st or 2nd hole card (2 destellos, preflop)"),),
    (("anchor S", "Short Anchor seat S (or a name): cap its raises this round (2 destellos)"),),
    (("shield", "Seal Shield the Anchor aimed at you (1)"), ("pass", "let it apply")),
    (("sitout", "sit out from the next hand"), ("sitin [post|wait]", "come back")),
    (("join [N] [post|wait]", "sit down with a buy-in of N"), ("leave", "leave the table")),
    (("post", "owing blinds: post now to be dealt in"), ("wait", "wait for the big blind")),
    (("add N", "add N chips between hands (up to the maximum buy-in)"),),
    (("waitlist", "join the waiting list (unwait: leave it)"),
     ("take [N]", "take a seat offered")),
    (("quick NLHE 1/2 200", "a seat at any table of that game"),
     ("account", "balance, ratholes")),
    (("find CODE", "open a private table by its invite code, then `join`"),),
    (("tournaments", "list the tournaments"), ("tournament N|ID", "show one")),
    (("register N|ID", "enter (the entry is paid at once)"),
     ("unregister N|ID", "until it starts")),
    (("history", "your last hands"), ("history N", "hand N, deck checked")),
    (("say TEXT", "chat to the table"), ("emote CODE", "gg, clap, thumbs_up, laugh, wow, ...")),
    (("mute P", "stop receiving P's chat"), ("unmute P", "receive it again")),
    (("bank", "start your time bank now (your turn; it also starts when the clock runs out)"),),
    (("pre cf|check|call|any|fold", "queue a pre-action for your next turn"),
     ("pre off", "drop it")),
    (("deal", "ask for a deal at the final table"),
     ("deal icm|chips", "accept that split (nodeal: decline)")),
    (("help", "show or hide this help"), ("q", "quit (the seat stays)")),
)
"""The commands of :func:`help_lines`: what to type (the same in every language) and what it
does (in English: the catalogues' keys), one or two to a line."""

HELP_HEADING = "Commands (type one, then Enter):"
HOST_COMMANDS = ("invite P | code | revoke | blinds 2/4 | clock 30 | minplayers 2 | bot [N]",
                 "kick P | pause | resume | close")
"""The host's commands (R7.12), listed after ``host:``."""


def help_lines() -> tuple[str, ...]:
    """The commands and what they do, in the client's language (what you type is the same in
    every language: only what it does is translated), in two columns."""
    lefts = []
    for row in HELP_ROWS:
        command, does = row[0]
        lefts.append(f"  {command:<10} {tr(does)}" if len(command) <= 10
                     else f"  {command}  {tr(does)}")
    column = max(len(left) for left, row in zip(lefts, HELP_ROWS, strict=True)
                 if len(row) > 1) + 3
    lines = [tr(HELP_HEADING)]
    for left, row in zip(lefts, HELP_ROWS, strict=True):
        if len(row) > 1:
            command, does = row[1]
            left = f"{left:<{column}}{command:<5}  {tr(does)}"
        lines.append(left)
        if row[0][0] == "find CODE":  # the host's commands after the private tables
            host = tr("host:")
            lines.append(f"  {host} {HOST_COMMANDS[0]}")
            lines.append(" " * (len(host) + 3) + HOST_COMMANDS[1])
    return tuple(lines)


_STYLES = {"bold": "\x1b[1m", "turn": "\x1b[1;30;43m", "error": "\x1b[1;31m",
           "header": "\x1b[7m", "dim": "\x1b[2m", "good": "\x1b[32m"}
_RESET = "\x1b[0m"

Line = tuple[str, str]
"""A screen line and its style name ("" for plain)."""


# -- small pieces ----------------------------------------------------------------------------

def cards_text(cards: str | None) -> str:
    """``"TdKh"`` -> ``"Td Kh"`` (``""`` for nothing)."""
    if not cards:
        return ""
    return " ".join(cards[i:i + 2] for i in range(0, len(cards), 2))


def seconds_left(deadline_ms: int | None, now_ms: int) -> int | None:
    """Whole seconds until *deadline_ms* (rounded up, never negative); ``None`` without one."""
    if deadline_ms is None:
        return None
    return max(0, -((now_ms - deadline_ms) // 1000))


def clock_text(deadline_ms: int | None, now_ms: int) -> str:
    """A countdown: ``"17s"``, ``"1:05"``; ``""`` without a deadline.

    >>> clock_text(1_065_000, 1_000_000), clock_text(1_017_000, 1_000_000)
    ('1:05', '17s')
    """
    left = seconds_left(deadline_ms, now_ms)
    if left is None:
        return ""
    return f"{left // 60}:{left % 60:02d}" if left >= 60 else f"{left}s"


def power_name(power: str) -> str:
    return tr(POWER_NAMES.get(power, power))


def seat_name(view: dict[str, Any] | None, seat_index: int | None) -> str:
    """The player at *seat_index* in *view*, else ``"seat N"``."""
    if seat_index is None:
        return tr("nobody")
    seats = (view or {}).get("seats") or []
    if 0 <= seat_index < len(seats) and seats[seat_index]:
        return str(seats[seat_index]["player_id"])
    return tr("seat {n}", n=seat_index)


def hole_count(view: dict[str, Any]) -> int:
    return 4 if (view.get("config") or {}).get("variant") == "PLO" else 2


def my_seat(view: dict[str, Any] | None) -> dict[str, Any] | None:
    if not view or view.get("seat_index") is None:
        return None
    seats = view.get("seats") or []
    index = view["seat_index"]
    return seats[index] if 0 <= index < len(seats) else None


def open_window_for(view: dict[str, Any] | None, seat_index: int | None) -> dict[str, Any] | None:
    """The Short Anchor response window aimed at *seat_index*, if one is open."""
    hand = (view or {}).get("hand") or {}
    if seat_index is None or hand.get("complete"):
        return None
    for window in (hand.get("powers") or {}).get("windows") or []:
        if window.get("target") == seat_index:
            return dict(window)
    return None


# -- events as sentences ---------------------------------------------------------------------

def settings_text(changes: dict[str, Any]) -> str:
    """The host's settings in words.

    >>> settings_text({"small_blind": 2, "big_blind": 4, "decision_ms": 30000})
    'blinds 2/4, clock 30s'
    >>> settings_text({"big_blind": 6, "min_players": 2})
    'big blind 6, 2 players to start'
    """
    parts = []
    small, big = changes.get("small_blind"), changes.get("big_blind")
    if small is not None and big is not None:
        parts.append(tr("blinds {sb}/{bb}", sb=small, bb=big))
    elif small is not None:
        parts.append(tr("small blind {n}", n=small))
    elif big is not None:
        parts.append(tr("big blind {n}", n=big))
    if changes.get("decision_ms") is not None:
        parts.append(tr("clock {n}s", n=int(changes["decision_ms"]) // 1000))
    if changes.get("min_players") is not None:
        parts.append(tr("{n} players to start", n=changes["min_players"]))
    chat = changes.get("chat")  # R8.9
    if chat == "on":
        parts.append(tr("chat on"))
    elif chat == "off":
        parts.append(tr("chat off"))
    elif chat == "apart":
        parts.append(tr("chat apart: players and spectators apart during a hand"))
    return ", ".join(parts) or tr("no change")


EMOTE_SYMBOLS = {"thumbs_up": "\U0001f44d", "clap": "\U0001f44f", "laugh": "\U0001f602",
                 "wow": "\U0001f62e", "sad": "\U0001f622", "angry": "\U0001f620",
                 "thinking": "\U0001f914", "gg": "GG", "nice_hand": "\U0001f44c",
                 "thanks": "\U0001f64f"}
"""How an emote code shows (R8.9); a code not listed shows as itself."""


def chat_line(message: dict[str, Any], player_id: str | None = None) -> str:
    """A ``chat`` message as a log line (R8.9): who said it (a spectator is marked), then the
    text or the emote.

    >>> chat_line({"player_id": "bob", "seat_index": 2, "text": "gl"})
    'bob: gl'
    >>> chat_line({"player_id": "dave", "seat_index": None, "emote": "gg"}, "alice")
    'dave (watching): GG'
    """
    speaker = str(message.get("player_id"))
    if player_id is not None and speaker == player_id:
        who = tr("You")
    elif message.get("seat_index") is None:
        who = tr("{name} (watching)", name=speaker)
    else:
        who = speaker
    emote = message.get("emote")
    said = EMOTE_SYMBOLS.get(str(emote), str(emote)) if emote else str(message.get("text"))
    return f"{who}: {said}"


def owing_text(seat: dict[str, Any]) -> str | None:
    """R7.8: what a seat that owes blinds does about it (``None`` when it owes nothing).

    >>> owing_text({"owes_big": True, "owes_small": True, "entry": "post"})
    'posts BB+SB'
    >>> owing_text({"owes_big": True, "owes_small": False, "entry": "wait"})
    'waits for BB'
    >>> owing_text({"owes_big": False, "owes_small": True, "entry": "post"})
    'posts SB'
    """
    big, small = bool(seat.get("owes_big")), bool(seat.get("owes_small"))
    if not big and not small:
        return None
    if seat.get("entry") != "post":
        return tr("waits for BB")
    if big and small:
        return tr("posts BB+SB")
    return tr("posts BB") if big else tr("posts SB")


def ordinal(number: int) -> str:
    """``1`` -> ``"1st"`` (in the client's language: ``1.`` in Polish).

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 103)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '103rd']
    """
    lang = language()
    if lang != "en":  # 1. (pl), 1º (pt), thứ 1 (vi), 1 (ro: "locul 1")
        return {"pl": f"{number}.", "pt": f"{number}º", "vi": f"thứ {number}"}.get(
            lang, str(number))
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


def level_text(level: dict[str, Any]) -> str:
    """A blind level's blinds and ante (R9.3, R2.8).

    >>> level_text({"small_blind": 10, "big_blind": 20, "ante": 0, "ante_mode": "none"})
    '10/20'
    >>> level_text({"small_blind": 100, "big_blind": 200, "ante": 25, "ante_mode": "each"})
    '100/200 ante 25'
    >>> level_text({"small_blind": 50, "big_blind": 100, "ante": 100, "ante_mode": "big_blind"})
    '50/100 BB ante 100'
    """
    text = f"{level.get('small_blind')}/{level.get('big_blind')}"
    ante, mode = level.get("ante") or 0, level.get("ante_mode")
    if ante and mode == "big_blind":
        text += " " + tr("BB ante {ante}", ante=ante)
    elif ante:
        text += " " + tr("ante {ante}", ante=ante)
    return text


def prizes_text(payouts: Sequence[int]) -> str:
    """The prizes by place (R9.9).

    >>> prizes_text([390, 210]), prizes_text([])
    ('1st 390, 2nd 210', 'fixed when it starts')
    """
    if not payouts:
        return tr("fixed when it starts")
    return ", ".join(tr("{place} {prize}", place=ordinal(place), prize=prize)
                     for place, prize in enumerate(payouts, 1))


# -- who is who: you, and everybody else by name ----------------------------------------------

SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "yourselves", "you're",
                           "you've", "you'll", "you'd"})
"""Words a sentence uses for the reader. A player whose id reads as one of them (any case,
quotes and punctuation around it ignored: ``You``, ``YOUR``, ``"you"``, ``you!``) is shown
quoted, so that the reader never takes them for themselves (``docs/client.md``)."""

_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


def reads_as_you(name: str) -> bool:
    """Whether a player id reads as a word for the reader.

    >>> [reads_as_you(n) for n in ("you", "You", "YOUR", '"you"', "you’re", "youth", "ayou")]
    [True, True, True, True, True, False, False]
    """
    return _EDGES.sub("", name.replace("’", "'")).lower() in SECOND_PERSON


def shown_name(name: str) -> str:
    """Another player's id as the client shows it: quoted when it reads as "you".

    >>> shown_name("ana"), shown_name("you"), shown_name("Your")
    ('ana', '"you"', '"Your"')
    """
    return f'"{name}"' if reads_as_you(name) else name


@dataclass(frozen=True)
class Person:
    """A player as a sentence names them: the reader as ``you`` (each sentence about the
    reader is a text of its own, :func:`say`: the other languages conjugate for it), anybody
    else by name, quoted when the name reads as "you" (``"you" raises to 8``).

    >>> me, ana, you = Person("bob", me=True), Person("ana"), Person("you")
    >>> me.who(True), me.who(), ana.who(), you.who()
    ('You', 'you', 'ana', '"you"')
    """

    name: str
    """The player id (``seat N`` when unknown)."""
    me: bool = False

    def who(self, start: bool = False) -> str:
        """Subject or object: ``You`` (*start*: at the start of a sentence) / ``you``, or the
        name as shown."""
        if self.me:
            return tr("You") if start else tr("you")
        return shown_name(self.name)


def seat_person(view: dict[str, Any] | None, seat_index: int | None) -> Person:
    """The player at *seat_index* of *view* as sentences name them (the viewer: you)."""
    me = seat_index is not None and (view or {}).get("seat_index") == seat_index
    return Person(seat_name(view, seat_index), me=me)


def player_person(view: dict[str, Any] | None, player: Any,
                  player_id: str | None = None) -> Person:
    """A player named by id as sentences name them: the viewer (*player_id*, else the player
    at the view's own seat) is you."""
    me = player_id if player_id is not None else (my_seat(view) or {}).get("player_id")
    return Person(str(player), me=me is not None and str(player) == str(me))


def seat_label(view: dict[str, Any] | None, seat_index: int) -> str:
    """What a seat's row calls its player: ``You`` for the viewer's own seat (the id is in the
    header, ``you: bob``), else the id, quoted when it reads as "you".

    >>> view = {"seat_index": 1, "seats": [{"seat_index": 0, "player_id": "you"},
    ...                                    {"seat_index": 1, "player_id": "you"}]}
    >>> seat_label(view, 0), seat_label(view, 1)
    ('"you"', 'You')
    """
    if (view or {}).get("seat_index") == seat_index:
        return tr("You")
    return shown_name(seat_name(view, seat_index)[:16])


class Narrator:
    """Turns events into sentences. It remembers seat names (a player who stood up is still
    named in the events that follow) and the hands shown at showdown (so that ``pot_awarded``
    can say what won).

    Sentences about the reader are in the second person ("You raise to 40", "Your clock ran
    out: you fold"), about anybody else by name ("bob raises to 40", a name that reads as
    "you" quoted: ``"you" raises to 40``). The reader is *player_id* when given, else the
    player of the seat the views show (``view.seat_index``).

    >>> n = Narrator()
    >>> n.narrate([{"kind": "seated", "seat_index": 1, "player_id": "bob", "stack": 500,
    ...             "is_bot": True},
    ...            {"kind": "action", "seat_index": 1, "action": "raise_to", "to": 40,
    ...             "all_in": False}])
    ['bob (BOT) sits down in seat 1 with 500', 'bob raises to 40']
    >>> n.narrate([{"kind": "action", "seat_index": 1, "action": "fold"}],
    ...           {"seat_index": 1, "seats": [None, {"seat_index": 1, "player_id": "bob"}]})
    ['You fold']
    """

    def __init__(self, player_id: str | None = None) -> None:
        self.names: dict[int, str] = {}
        self.hands: dict[int, str] = {}
        self.player_id = player_id
        """Who reads (the token's player), when known."""
        self.seat: int | None = None
        """The reader's seat, as the last view said."""
        self.reader: str | None = player_id
        """Who reads: *player_id*, else the player last seen at the reader's seat."""

    def learn(self, view: dict[str, Any] | None, overwrite: bool = True) -> None:
        """Seat names from *view* (``seats``) and the reader's seat (``seat_index``); a stored
        hand (``get_hand``) has both too."""
        for seat in (view or {}).get("seats") or []:
            if seat and (overwrite or seat["seat_index"] not in self.names):
                self.names[seat["seat_index"]] = str(seat["player_id"])
        if view is not None and "seat_index" in view:
            seat_index = view["seat_index"]
            self.seat = None if seat_index is None else int(seat_index)
            if self.player_id is None and self.seat is not None and self.seat in self.names:
                self.reader = self.names[self.seat]

    def name(self, seat_index: Any) -> str:
        try:
            index = int(seat_index)
        except (TypeError, ValueError):
            return str(seat_index)
        return self.names.get(index) or tr("seat {n}", n=index)

    def is_me(self, seat_index: Any) -> bool:
        """Whether *seat_index* is the reader's seat (or was, until they stood up)."""
        try:
            index = int(seat_index)
        except (TypeError, ValueError):
            return False
        return self.reader is not None and self.names.get(index) == self.reader

    def seat_person(self, seat_index: Any) -> Person:
        return Person(self.name(seat_index), me=self.is_me(seat_index))

    def player(self, player_id: Any) -> Person:
        """The player an event names by id."""
        return Person(str(player_id), me=self.reader is not None and
                      str(player_id) == self.reader)

    def narrate(self, events: Iterable[dict[str, Any]],
                view: dict[str, Any] | None = None) -> list[str]:
        """Sentences for *events* (those that say nothing worth reading give none); *view* is
        the view that came with them (it names seats that were not known yet, and the
        reader's)."""
        self.learn(view, overwrite=False)
        lines: list[str] = []
        for event in events:
            text = self._sentence(event)
            if text:
                lines.extend(text.split("\n"))
        self.learn(view)
        return lines

    def _sentence(self, e: dict[str, Any]) -> str | None:  # noqa: C901 - one case per kind
        kind = e.get("kind")
        p = self.seat_person(e.get("seat_index"))
        name = p.who()
        if kind == "seated":
            self.names[e["seat_index"]] = str(e["player_id"])
            p = self.player(e["player_id"])
            n = {"name": p.who(), "seat": e["seat_index"], "stack": e["stack"]}
            if e.get("is_bot") and not p.me:
                return tr("{name} (BOT) sits down in seat {seat} with {stack}", **n)
            return say(p, tr("You sit down in seat {seat} with {stack}", **n),
                       tr("{name} sits down in seat {seat} with {stack}", **n))
        if kind == "hand_started":
            self.hands = {}
            button = self.seat_person(e.get("button"))
            n = {"hand": e["hand_number"], "name": button.who(), "sb": e.get("small_blind"),
                 "bb": e.get("big_blind")}
            return say(button,
                       tr("--- Hand #{hand}: you have the button, blinds {sb}/{bb} ---", **n),
                       tr("--- Hand #{hand}: button {name}, blinds {sb}/{bb} ---", **n))
        if kind in ("blind_posted", "ante_posted"):
            return _blind(p, e, kind) + _all_in(p, e)
        if kind == "deck_committed":  # R10.2: the proofs of the cards dealt are checked on it
            root = str(e.get("root"))
            return tr("Deck committed before the deal: {root}…{tail}", root=root[:16],
                      tail=root[-8:])
        if kind == "hole_cards":  # private_to the reader
            return tr("You are dealt {cards}", cards=cards_text(e.get("cards")))
        if kind == "carousel":
            return tr("Carousel: {powers}",
                      powers=", ".join(power_name(p) for p in e.get("powers", [])))
        if kind == "action":
            return self._action(p, e)
        if kind == "board_dealt":
            street = street_name(str(e.get("street")))
            cards = cards_text(e.get("cards"))
            if e.get("run_out"):
                return tr("{street}: {cards} (run out)", street=street, cards=cards)
            return tr("{street}: {cards}", street=street, cards=cards)
        if kind == "uncalled_bet_returned":
            return say(p, tr("{amount} uncalled returned to you", amount=e["amount"]),
                       tr("{amount} uncalled returned to {name}", amount=e["amount"], name=name))
        if kind == "showdown":
            shown = []
            for h in e.get("hands", []):
                self.hands[int(h["seat_index"])] = hand_text(str(h.get("hand", "")))
                who = self.seat_person(h["seat_index"])
                n = {"name": who.who(), "cards": cards_text(h.get("cards")),
                     "hand": self.hands[int(h["seat_index"])]}
                shown.append(say(who, tr("You show {cards}: {hand}", **n),
                                 tr("{name} shows {cards}: {hand}", **n)))
            return "\n".join(shown) or None
        if kind == "pot_awarded":
            return self._award(e)
        if kind == "hand_ended":
            return tr("Hand #{hand} is over", hand=e.get("hand_number"))
        if kind == "hand_cancelled":
            return tr("Hand #{hand} was cancelled ({why}); every bet was returned and the table "
                      "is as it was before the hand", hand=e.get("hand_number"),
                      why=cancel_reason(str(e.get("reason"))))
        if kind == "table_closed":
            if e.get("reason") == "idle":
                return tr("The table closed: nobody sat at it for 10 minutes")
            if e.get("reason") == "host":
                return tr("The host closed the table: every stack went back to its account")
            return tr("The table closed")
        if kind == "power_used":
            return self._power(p, e)
        if kind == "peek_result":  # private_to the reader
            return tr("You peek: {card} will come on the {street}", card=e.get("card"),
                      street=street_name(str(e.get("street")), lower=True))
        if kind == "sleeve_swap_result":  # private_to the reader
            return tr("You swap {discarded} for {received}: your cards are now {cards}",
                      discarded=e.get("discarded"), received=e.get("received"),
                      cards=cards_text(e.get("cards")))
        if kind == "window_opened":
            target = self.seat_person(e.get("target"))
            attacker = self.seat_person(e.get("attacker"))
            n = {"name": target.who(), "attacker": attacker.who()}
            if target.me:
                return tr("You may answer {attacker}'s Short Anchor with Seal Shield", **n)
            if attacker.me:
                return tr("{name} may answer your Short Anchor with Seal Shield", **n)
            return tr("{name} may answer {attacker}'s Short Anchor with Seal Shield", **n)
        if kind == "window_closed":
            return self._window_closed(e)
        if kind == "anchor_applied":
            attacker = self.seat_person(e.get("attacker"))
            target = self.seat_person(e.get("target"))
            n = {"name": attacker.who(), "target": target.who()}
            if attacker.me:
                return tr("Your Short Anchor caps {target}'s raises this round", **n)
            if target.me:
                return tr("{name}'s Short Anchor caps your raises this round", **n)
            return tr("{name}'s Short Anchor caps {target}'s raises this round", **n)
        if kind == "time_bank_started":  # R8.7
            seconds = int(e.get("bank_ms") or 0) // 1000
            return say(p, tr("Your clock ran out: your time bank runs ({seconds} s)",
                             seconds=seconds),
                       tr("{name}'s time bank runs ({seconds} s)", name=name, seconds=seconds))
        if kind == "pre_action_cleared":  # R8.8: told to its owner only
            pre = pre_action_text({"kind": e.get("pre_action"), "amount": e.get("amount")})
            return tr("Your pre-action ({pre}) was dropped: the price changed", pre=pre)
        if kind == "timed_out":
            if e.get("decision") == "check":
                return say(p, tr("Your clock ran out: you check"),
                           tr("{name}'s clock ran out: {name} checks", name=name))
            return say(p, tr("Your clock ran out: you fold"),
                       tr("{name}'s clock ran out: {name} folds", name=name))
        return self._seat_sentence(e, p)

    def _seat_sentence(self, e: dict[str, Any], p: Person) -> str | None:
        """A player's connection and seat: away, back, sitting out, chips, standing up."""
        kind = e.get("kind")
        name = p.who()
        if kind == "disconnected":
            who = self.player(e.get("player_id"))
            return say(who, tr("You lost the connection"),
                       tr("{name} lost the connection", name=who.who()))
        if kind == "reconnect_grace":
            return say(p, tr("You are disconnected: extra time to reconnect"),
                       tr("{name} is disconnected: extra time to reconnect", name=name))
        if kind == "reconnected":
            who = self.player(e.get("player_id"))
            return say(who, tr("You are back"), tr("{name} is back", name=who.who()))
        if kind == "sat_out":
            return say(p, tr("You sit out"), tr("{name} sits out", name=name))
        if kind == "sat_in":
            return say(p, tr("You are dealt in again"), tr("{name} is dealt in again", name=name))
        if kind == "chips_added":
            n = {"name": name, "amount": e.get("amount"), "stack": e.get("stack")}
            return say(p, tr("You add {amount} (stack {stack})", **n),
                       tr("{name} adds {amount} (stack {stack})", **n))
        if kind == "leaving_after_hand":
            return say(p, tr("You will leave after this hand"),
                       tr("{name} will leave after this hand", name=name))
        if kind == "stood_up":
            who = self.player(e.get("player_id"))
            n = {"name": who.who(), "stack": e.get("stack")}
            return say(who, tr("You stand up with {stack}", **n),
                       tr("{name} stands up with {stack}", **n))
        if kind == "left_table":
            who = self.player(e.get("player_id"))
            left = say(who, tr("You left the table"), tr("{name} left the table", name=who.who()))
            return left + left_reason(str(e.get("reason")))
        return self._room_sentence(e, p)

    def _room_sentence(self, e: dict[str, Any], p: Person) -> str | None:
        """The room around the table: entering a hand, the waiting list, the host (R7.8,
        R7.10, R7.12)."""
        kind = e.get("kind")
        name = p.who()
        if kind == "entry_chosen":
            if e.get("entry") == "post":
                return say(p, tr("You will post to be dealt in"),
                           tr("{name} will post to be dealt in", name=name))
            return say(p, tr("You will wait for the big blind"),
                       tr("{name} will wait for the big blind", name=name))
        if kind == "waitlist_changed":
            waiting = [self.player(x) for x in e.get("waitlist") or []]
            if not waiting:
                return tr("The waiting list is empty")
            return tr("Waiting list: {players}", players=", ".join(
                tr("you") if who.me else who.who() for who in waiting))
        if kind in ("seat_offered", "offer_expired"):  # R7.10: told to that player only
            who = self.player(e.get("player_id"))
            if self.reader is None:  # the reader is that player
                who = Person(who.name, me=True)
            if kind == "offer_expired":
                return say(who, tr("The seat held for you went to the next in line"),
                           tr("The seat held for {name} went to the next in line",
                              name=who.who()))
            return say(who, tr("A seat is held for you: type `take` to sit down before the "
                               "countdown ends"),
                       tr("A seat is held for {name}", name=who.who()))
        if kind == "host_changed":
            who = self.player(e.get("host"))
            return say(who, tr("You are now the host"),
                       tr("{name} is now the host", name=who.who()))
        if kind == "settings_changed":
            settings = settings_text(e.get("changes") or {})
            if e.get("pending"):
                return tr("The host sets {settings} from the next hand", settings=settings)
            return tr("The host sets {settings}", settings=settings)
        if kind == "table_paused":
            return tr("The host paused the table: no new hand until it resumes") \
                if e.get("paused") else tr("The host resumed the table")
        return self._tournament_sentence(e)

    def _tournament_sentence(self, e: dict[str, Any]) -> str | None:
        """A tournament's table: the start, the levels, eliminations and the winner (R9.2,
        R9.3, R9.5, R9.9, R9.10)."""
        kind = e.get("kind")
        if kind == "tournament_started":
            n = {"pool": e.get("prize_pool"), "prizes": prizes_text(e.get("payouts") or []),
                 "multiplier": e.get("multiplier")}
            if e.get("multiplier"):
                return tr("The tournament starts, a Spin x{multiplier}: prize pool {pool}, "
                          "prizes {prizes}; the first hand is dealt shortly", **n)
            return tr("The tournament starts: prize pool {pool}, prizes {prizes}; the first "
                      "hand is dealt shortly", **n)
        if kind == "level_changed":
            following = e.get("next_level")
            if following:
                return tr("Level {level}: blinds {blinds}; next {next}", level=e.get("level"),
                          blinds=level_text(e), next=level_text(following))
            return tr("Level {level}: blinds {blinds} (the last level: it goes on)",
                      level=e.get("level"), blinds=level_text(e))
        if kind == "final_table":  # R9.7
            return tr("The final table is formed: every player left moves there")
        if kind == "break_started":
            return tr("A {minutes}-minute break: play resumes with level {level}",
                      minutes=int(e.get("minutes") or 0), level=e.get("next_level"))
        if kind in ("tournament_paused", "tournament_resumed", "level_extended",
                    "tournament_cancelled"):
            return self._director_sentence(e)
        if kind in ("deal_asked", "deal_offered", "deal_accepted", "deal_cancelled",
                    "deal_made"):
            return self._deal_sentence(e)
        if kind == "eliminated":
            who = self.player(e.get("player_id"))
            if e.get("place") is None:  # issue 23: out before the money, placed later
                return say(who, tr("You are out of the tournament (your place comes with "
                                   "the prizes)"),
                           tr("{name} is out of the tournament", name=who.who()))
            place = ordinal(int(e.get("place") or 0))
            out = say(who, tr("You are out in {place} place", place=place),
                      tr("{name} is out in {place} place", name=who.who(), place=place))
            if e.get("prize"):
                out += say(who, tr(" and win {prize}", prize=e["prize"]),
                           tr(" and wins {prize}", prize=e["prize"]))
            return out
        if kind == "tournament_finished":
            who = self.player(e.get("winner"))
            won = say(who, tr("You win the tournament"),
                      tr("{name} wins the tournament", name=who.who()))
            return won + (tr(" and {prize}", prize=e["prize"]) if e.get("prize") else "")
        return None  # "turn" and kinds this client does not know

    def _amounts(self, players: list[Any], amounts: list[Any]) -> str:
        return ", ".join(f"{self.player(x).who()} {a}" for x, a in zip(players, amounts,
                                                                       strict=False))

    @staticmethod
    def _director_sentence(e: dict[str, Any]) -> str:
        """R9.15: the director paused, resumed, lengthened a level or cancelled the tournament."""
        kind = e.get("kind")
        if kind == "tournament_paused":
            if e.get("reason"):
                return tr("The director pauses the tournament ({reason}): play holds after "
                          "this hand", reason=e["reason"])
            return tr("The director pauses the tournament: play holds after this hand")
        if kind == "tournament_resumed":
            return tr("Play resumes: level {level} goes on with the time it had left",
                      level=e.get("level"))
        if kind == "level_extended":
            return tr("The director adds {minutes} min to level {level}",
                      minutes=e.get("minutes"), level=e.get("level"))
        if e.get("policy") == "equal":
            return tr("The director cancels the tournament: the prizes left are split "
                      "equally; the table closes")
        if e.get("policy") == "icm":
            return tr("The director cancels the tournament: the prizes left are split by "
                      "ICM; the table closes")
        return tr("The director cancels the tournament: the prizes left are split by chip "
                  "count; the table closes")

    def _deal_sentence(self, e: dict[str, Any]) -> str:
        """R9.16: a deal at the final table, asked, offered (every amount), answered, made."""
        kind = e.get("kind")
        who = self.player(e.get("player_id"))
        if kind == "deal_asked":
            n = {"name": who.who(), "asked": len(e.get("asked") or []),
                 "players": len(e.get("asked") or []) + len(e.get("waiting") or [])}
            return say(who, tr("You ask for a deal ({asked} of {players} asked)", **n),
                       tr("{name} asks for a deal ({asked} of {players} asked)", **n))
        if kind == "deal_offered":
            players = list(e.get("players") or [])
            return tr("A deal is offered: ICM {icm}; chip count {chips}; kept for the winner "
                      "{kept}", icm=self._amounts(players, list(e.get("icm") or [])),
                      chips=self._amounts(players, list(e.get("chip_count") or [])),
                      kept=e.get("kept"))
        if kind == "deal_accepted":
            if e.get("split") == "icm":
                return say(who, tr("You accept the ICM split"),
                           tr("{name} accepts the ICM split", name=who.who()))
            return say(who, tr("You accept the chip-count split"),
                       tr("{name} accepts the chip-count split", name=who.who()))
        if kind == "deal_cancelled":
            if e.get("reason") == "declined":
                return say(who, tr("You decline the deal: play resumes"),
                           tr("{name} declines the deal: play resumes", name=who.who()))
            if e.get("reason") == "paused":  # R9.15: the director's pause ends the offer
                return tr("No deal: the director paused the tournament")
            return tr("No deal: the deal clock ran out, play resumes")
        amounts = self._amounts(list(e.get("players") or []), list(e.get("amounts") or []))
        if e.get("kept"):
            return tr("Deal made: {amounts}; play goes on for {kept}", amounts=amounts,
                      kept=e.get("kept"))
        return tr("Deal made: {amounts}; the tournament ends", amounts=amounts)

    @staticmethod
    def _action(p: Person, e: dict[str, Any]) -> str:
        action = e.get("action")
        n = {"name": p.who(), "amount": e.get("amount"), "to": e.get("to")}
        if action == "fold":
            text = say(p, tr("You fold"), tr("{name} folds", **n))
        elif action == "check":
            text = say(p, tr("You check"), tr("{name} checks", **n))
        elif action == "call":
            text = say(p, tr("You call {amount}", **n), tr("{name} calls {amount}", **n))
        elif action == "bet":
            text = say(p, tr("You bet {to}", **n), tr("{name} bets {to}", **n))
        elif action == "raise_to":
            text = say(p, tr("You raise to {to}", **n), tr("{name} raises to {to}", **n))
        else:
            text = f"{p.who(True)} {action}"
        return text + _all_in(p, e)

    def _award(self, e: dict[str, Any]) -> str:
        winners: dict[str, int] = e.get("winners") or {}
        pot = "" if not e.get("pot_index") else tr(" from side pot {index}",
                                                   index=e["pot_index"])
        split = tr(" (split pot)") if len(winners) > 1 else ""
        lines = []
        for seat, amount in winners.items():
            hand = self.hands.get(int(seat)) if e.get("showdown") else None
            with_hand = tr(" with {hand}", hand=hand) if hand else ""
            who = self.seat_person(seat)
            wins = say(who, tr("You win {amount}", amount=amount),
                       tr("{name} wins {amount}", name=who.who(), amount=amount))
            lines.append(f"{wins}{pot}{with_hand}{split}")
        return "\n".join(lines)

    def _power(self, p: Person, e: dict[str, Any]) -> str:
        power = str(e.get("power"))
        n = {"name": p.who(), "power": power_name(power)}
        text = say(p, tr("You use {power}", **n), tr("{name} uses {power}", **n))
        if power in ("short_anchor", "seal_shield") and e.get("target_seat") is not None:
            target = self.seat_person(e["target_seat"])
            if power == "short_anchor":
                text += say(target, tr(" on you"), tr(" on {target}", target=target.who()))
            else:
                text += say(target, tr(" against you"),
                            tr(" against {target}", target=target.who()))
        elif power == "sleeve_swap" and e.get("card_index") is not None:
            text += tr(" (card {card})", card=int(e["card_index"]) + 1)
        return text + f" ({destellos_left(e.get('destellos'))})"

    def _window_closed(self, e: dict[str, Any]) -> str | None:
        target = self.seat_person(e.get("target"))
        name = target.who()
        reason = e.get("reason")
        if reason == "shielded":
            return say(target, tr("You shield: the Short Anchor is cancelled"),
                       tr("{name} shields: the Short Anchor is cancelled", name=name))
        if reason == "passed":
            return say(target, tr("You let the Short Anchor through"),
                       tr("{name} lets the Short Anchor through", name=name))
        if reason == "timed_out":
            return say(target, tr("Your Shield window timed out"),
                       tr("{name}'s Shield window timed out", name=name))
        if reason == "round_ended":
            return say(target, tr("The Short Anchor on you expires with the round"),
                       tr("The Short Anchor on {name} expires with the round", name=name))
        return None  # "acted": anchor_applied follows


def say(person: Person, mine: str, theirs: str) -> str:
    """The sentence about the reader if *person* is the reader, else the one about them (two
    texts: the other languages conjugate differently for "you")."""
    return mine if person.me else theirs


def _blind(p: Person, e: dict[str, Any], kind: str) -> str:
    n = {"name": p.who(), "amount": e.get("amount")}
    blind = e.get("blind")
    if kind == "ante_posted":
        return say(p, tr("You post an ante of {amount}", **n),
                   tr("{name} posts an ante of {amount}", **n))
    if blind == "post":
        return say(p, tr("You post a big blind of {amount} to come in", **n),
                   tr("{name} posts a big blind of {amount} to come in", **n))
    if blind == "dead":
        return say(p, tr("You post a dead small blind of {amount}", **n),
                   tr("{name} posts a dead small blind of {amount}", **n))
    if blind == "small":
        return say(p, tr("You post the small blind of {amount}", **n),
                   tr("{name} posts the small blind of {amount}", **n))
    return say(p, tr("You post the big blind of {amount}", **n),
               tr("{name} posts the big blind of {amount}", **n))


def _all_in(p: Person, e: dict[str, Any]) -> str:
    if not e.get("all_in"):
        return ""
    return say(p, tr(" and are all-in"), tr(" and is all-in"))


def street_name(street: str, lower: bool = False) -> str:
    """A street's name in the client's language (*lower*: inside a sentence, "on the turn")."""
    if lower:
        return {"preflop": tr("preflop"), "flop": tr("flop"), "turn": tr("turn"),
                "river": tr("river")}.get(street, street)
    return {"preflop": tr("Preflop"), "flop": tr("Flop"), "turn": tr("Turn"),
            "river": tr("River")}.get(street, street)


def cancel_reason(reason: str) -> str:
    """Why a hand was cancelled (R8.6), in the client's language."""
    return {"server_error": tr("a server error"), "state_unreadable": tr("its record was lost"),
            "stalled": tr("it stopped moving for 5 minutes")}.get(reason, tr("a server fault"))


def left_reason(reason: str) -> str:
    """Why a player left the table, in the client's language; ``""`` for a plain ``left``."""
    return {"sat_out_too_long": tr(" (sat out too long)"),
            "removed_by_host": tr(" (removed by the host)"),
            "table_closed": tr(" (the table closed)")}.get(reason, "")


RANK_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack",
              "Queen", "King", "Ace")
RANK_PLURALS = ("Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines",
                "Tens", "Jacks", "Queens", "Kings", "Aces")
"""The ranks as the server's showdown hands name them (``naiko.cards``: the engine's words)."""

_HAND = re.compile(r"(?P<kind>[a-z ]+?)(?:, (?P<first>[A-Z][a-z]+)(?: high| and "
                   r"(?P<and>[A-Z][a-z]+)| full of (?P<of>[A-Z][a-z]+))?)?")


def hand_text(english: str) -> str:
    """A showdown hand (``showdown.hands[].hand``, in the engine's English) in the client's
    language; a text it does not know unchanged.

    >>> hand_text("two pair, Kings and Fours"), hand_text("straight, Five high")
    ('two pair, Kings and Fours', 'straight, Five high')
    """
    match = _HAND.fullmatch(english)
    if match is None or language() == "en":
        return english
    kind, first = match["kind"], match["first"]
    second = match["and"] or match["of"]
    names, plurals = RANK_WORDS[language()]
    if first is None:
        return tr("royal flush") if kind == "royal flush" else english
    if first in RANK_NAMES and second is None:
        rank = names[RANK_NAMES.index(first)]
        single = {"high card": tr("high card, {rank}", rank=rank),
                  "straight": tr("straight, {rank} high", rank=rank),
                  "flush": tr("flush, {rank} high", rank=rank),
                  "straight flush": tr("straight flush, {rank} high", rank=rank)}
        return single.get(kind, english)
    if first not in RANK_PLURALS:
        return english
    ranks = plurals[RANK_PLURALS.index(first)]
    if second is None:
        return {"one pair": tr("one pair, {ranks}", ranks=ranks),
                "three of a kind": tr("three of a kind, {ranks}", ranks=ranks),
                "four of a kind": tr("four of a kind, {ranks}", ranks=ranks)}.get(kind, english)
    if second not in RANK_PLURALS:
        return english
    low = plurals[RANK_PLURALS.index(second)]
    if kind == "two pair" and match["and"]:
        return tr("two pair, {high} and {low}", high=ranks, low=low)
    if kind == "full house" and match["of"]:
        return tr("full house, {high} full of {low}", high=ranks, low=low)
    return english


def destellos_left(count: Any) -> str:
    """``0 destellos left``, ``1 destello left``.

    >>> destellos_left(0), destellos_left(1), destellos_left(2)
    ('0 destellos left', '1 destello left', '2 destellos left')
    """
    if count == 1:
        return tr("1 destello left")
    return tr("{n} destellos left", n=count)


# -- the table screen ------------------------------------------------------------------------

def render(view: dict[str, Any] | None, *, now_ms: int, player_id: str | None = None,
           log: Sequence[str] = (), status: str = "", status_is_error: bool = False,
           input_text: str = "", connection: str = "", show_help: bool = False,
           width: int = 80, height: int = 30, color: bool = False,
           version: int | None = None, offer_until_ms: int | None = None) -> list[str]:
    """The whole screen, one string per row (at most *height* rows, each at most *width*
    characters before styling; *color* adds ANSI styles). The last row is the command line.

    *now_ms* is the current time on the server's clock (countdowns compare it with the
    view's deadlines); *log* holds event sentences, oldest first (the newest that fit are
    shown); *status* is the last error or notice; *connection* is shown in the header, and
    *version* (the table version shown) on the line below it. *offer_until_ms*: a seat is
    held for you until then (``seat_offered``, R7.10): shown with its countdown.
    """
    top: list[Line] = []
    if view is None:
        top.append((_header_text("Naiko", player_id, connection), "header"))
        top.append(("", ""))
        top.append((tr("Waiting for the table..."), ""))
        bottom: list[Line] = []
    else:
        top.extend(_table_section(view, now_ms, player_id, connection, version))
        bottom = _prompt_section(view, now_ms, width, offer_until_ms)
    bottom.append(("-" * width, "dim"))
    bottom.append((status, "error" if status_is_error else "good" if status else ""))
    bottom.append(("> " + input_text, ""))
    room = max(height - len(top) - len(bottom) - 1, 1)
    middle: list[Line] = [("-" * width, "dim")]
    if show_help:
        middle.extend((line, "") for line in help_lines()[:room])
    else:
        shown = list(log)[-room:] if room else []
        middle.extend((line, "") for line in shown)
        middle.extend(("", "") for _ in range(room - len(shown)))
    lines = top + middle + bottom
    return [_style(text[:width], style, color) for text, style in lines[-height:]]


def _style(text: str, style: str, color: bool) -> str:
    if not color or not style or not text:
        return text
    return _STYLES[style] + text + _RESET


def _header_text(name: str, player_id: str | None, connection: str) -> str:
    parts = [f"NAIKO  {name}"]
    if player_id:
        parts.append(tr("you: {player}", player=player_id))
    if connection:
        parts.append(connection)
    return "   ".join(parts)


def _table_section(view: dict[str, Any], now_ms: int, player_id: str | None,
                   connection: str, version: int | None) -> list[Line]:
    config = view.get("config") or {}
    settings = view.get("settings") or {}
    hand = view.get("hand")
    variant = config.get("variant", "?")
    naiko = variant == "NAIKO"
    title = (f"{settings.get('name') or tr('table')} [{variant} {config.get('small_blind')}/"
             f"{config.get('big_blind')}]")
    tournament = is_tournament(view)
    if settings.get("kind") == "private":
        title += " " + tr("private")
    elif tournament:
        title += " " + tr("tournament")
    lines: list[Line] = [(_header_text(title, player_id, connection), "header")]
    info = tr("table {table}", table=view.get("table_id", "?"))
    if hand:
        street = street_name(hand.get("street", ""))
        info += "   " + tr("hand #{number}", number=hand.get("number")) + f"   {street}"
        if hand.get("complete"):
            info += " " + tr("(hand over)")
    else:
        info += "   " + tr("no hand yet")
    if settings and not tournament:  # a tournament's seats and chips are its own (R7.6)
        info += "   " + tr("buy-in {lo}-{hi}", lo=settings.get("min_buy_in"),
                           hi=settings.get("max_buy_in"))
    if settings.get("host") and not tournament:
        info += "   " + tr("host {name}",
                           name=player_person(view, settings["host"], player_id).who())
    if version:
        info += "   " + tr("version {version}", version=version)
    lines.append((info, ""))
    state = _room_state(view)
    if state:
        lines.append((state, "error"))
    lines.extend(tournament_lines(view, now_ms))
    lines.append(("", ""))
    heads = {"#": "#", "pos": tr("Pos"), "player": tr("Player"), "stack": tr("Stack"),
             "bet": tr("Bet"), "cards": tr("Cards")}
    widths = {"pos": 5, "player": 22, "stack": 7, "bet": 6, "cards": 3 * hole_count(view) - 1}
    widths = {key: max(width, len(heads[key])) for key, width in widths.items()}
    head = (f"  {'#':>2} {heads['pos']:<{widths['pos']}} {heads['player']:<{widths['player']}} "
            f"{heads['stack']:>{widths['stack']}} {heads['bet']:>{widths['bet']}}  "
            f"{heads['cards']:<{widths['cards']}}")
    lines.append((head + ("  Dest" if naiko else "") + "  " + tr("Status"), "bold"))
    for index, seat in enumerate(view.get("seats") or []):
        lines.append((_seat_row(view, index, seat, now_ms, widths, naiko), ""))
    lines.append(("", ""))
    lines.extend(_room_lines(view, player_id))
    lines.extend(_board_lines(view, hand))
    if naiko:
        lines.extend(_naiko_lines(view, hand, now_ms))
    me = my_seat(view)
    if me is None and tournament:
        lines.append((tr("You are watching this tournament's table (no seat)."), ""))
    elif me is None:
        lines.extend(_deep_stack_lines(view, now_ms))
    else:
        cards = cards_text(me.get("cards")) if me.get("in_hand") else ""
        mine = (tr("Your cards: {cards}", cards=cards) if cards
                else tr("Your cards: (not in this hand)"))
        mine += "   " + tr("stack {stack}", stack=me.get("stack"))
        if naiko:
            mine += "   " + tr("destellos {n}", n=me.get("destellos", 0))
        if me.get("sitting_out") and tournament:  # R9.4: dealt in and blinded away
            mine += "   " + tr("(sitting out: played for at once; type `sitin`)")
        elif me.get("sitting_out"):
            mine += "   " + tr("(sitting out: type `sitin`)")
        lines.append((mine, "bold"))
        owing = _owing_line(view, me)
        if owing:
            lines.append((owing, ""))
    return lines


def _deep_stack_lines(view: dict[str, Any], now_ms: int) -> list[Line]:
    """A watcher's way to a seat; at a deep-stack table this player left less than 30 minutes
    ago, the buy-in it requires (R7.11)."""
    required = view.get("required_buy_in")
    if not required:
        return [(tr("You are watching (no seat): type `join` to sit down."), "")]
    exactly = (tr("exactly {amount}", amount=required["min"])
               if required["min"] == required["max"]
               else tr("{lo} to {hi}", lo=required["min"], hi=required["max"]))
    minutes = max(0, -(-(int(required["until_ms"]) - now_ms) // 60_000))
    first = tr("Deep-stack table (R7.11): you left with {chips} chips, so you buy in for "
               "{amount}", chips=required["left_with"], amount=exactly)
    second = (tr("for 1 more minute: type `join` to sit down with {amount}.",
                 amount=required["min"]) if minutes == 1
              else tr("for {minutes} more minutes: type `join` to sit down with {amount}.",
                      minutes=minutes, amount=required["min"]))
    return [(first, ""), (second, "")]


def is_tournament(view: dict[str, Any] | None) -> bool:
    """Whether *view* is a tournament's table (R9): seats and chips are the tournament's."""
    view = view or {}
    return "tournament" in view or (view.get("settings") or {}).get("kind") == "tournament"


def tournament_lines(view: dict[str, Any], now_ms: int) -> list[Line]:
    """A tournament's table: the level of the hand, blinds and ante, the time to the next
    level and what it is (R9.3), players left, the prizes and a Spin's multiplier (R9.9,
    R9.10); before the first hand, when it is dealt.

    >>> view = {"hand": None, "tournament": {"level": 1, "small_blind": 10, "big_blind": 20,
    ...         "ante": 0, "ante_mode": "none", "level_ends_ms": 180_000, "next_level": {
    ...         "small_blind": 15, "big_blind": 30, "ante": 0, "ante_mode": "none"},
    ...         "players_left": 3, "entrants": 3, "payouts": [500], "multiplier": 5,
    ...         "first_hand_ms": 5_000}}
    >>> for text, _ in tournament_lines(view, 0):
    ...     print(text)
    Level 1: blinds 10/20   next level 15/30 in 3:00   players left 3/3
    Prizes: 1st 500   Spin x5   first hand in 5s
    """
    info = view.get("tournament")
    if not info:
        return []
    parts = [tr("Level {level}: blinds {blinds}", level=info.get("level"),
                blinds=level_text(info))]
    following, ends = info.get("next_level"), info.get("level_ends_ms")
    if not following or ends is None:
        parts.append(tr("the last level"))
    elif int(ends) > now_ms:
        parts.append(tr("next level {level} in {clock}", level=level_text(following),
                        clock=clock_text(int(ends), now_ms)))
    else:  # R9.3: a level takes effect at the first hand dealt after its start
        parts.append(tr("next level {level} from the next hand", level=level_text(following)))
    parts.append(tr("players left {left}/{entrants}", left=info.get("players_left"),
                    entrants=info.get("entrants")))
    prizes = tr("Prizes: {prizes}", prizes=prizes_text(info.get("payouts") or []))
    if info.get("multiplier"):
        prizes += f"   Spin x{info['multiplier']}"
    first = info.get("first_hand_ms")
    if view.get("hand") is None and first and int(first) > now_ms:
        prizes += "   " + tr("first hand in {clock}", clock=clock_text(int(first), now_ms))
    if info.get("bounty"):  # R9.13: the published bounty of an entry (each seat shows its own)
        prizes += "   " + tr("knockout: bounty {bounty} an entry", bounty=info["bounty"])
    return [("   ".join(parts), "bold"), (prizes, ""), *deal_lines(info.get("deal"), now_ms)]


def deal_lines(deal: dict[str, Any] | None, now_ms: int) -> list[Line]:
    """R9.16 at a final table: who asked for a deal; the offer out (each player's stack and
    amount by ICM and by chip count, what is kept for the winner, the clock, who accepted
    which split) and how to answer it; the split made.

    >>> deal = {"asked": ["ann", "bob"], "made": None, "offer": {"offer_id": "1.5",
    ...         "ends_ms": 30_000, "players": ["ann", "bob"], "stacks": [700, 300],
    ...         "prizes": [70, 30], "kept": 0, "icm": [61, 39], "chip_count": [58, 42],
    ...         "accepted": {"bob": "icm"}}}
    >>> for text, _ in deal_lines(deal, 0):
    ...     print(text)
    DEAL OFFERED (answer in 30s): nothing kept for the winner
      ann  stack 700  ICM 61  chip count 58  -
      bob  stack 300  ICM 39  chip count 42  accepts ICM
      A deal is offered: `deal icm`, `deal chips` or `nodeal`.
    """
    if not deal:
        return []
    if deal.get("made"):
        return [(tr("A deal was made ({split}): play goes on for what is kept.",
                    split=_split_name(str(deal["made"]))), "bold")]
    offer = deal.get("offer")
    if not offer:
        return [(tr("Deal asked for by {players}: `deal` to ask too.",
                    players=", ".join(deal.get("asked") or [])), "")]
    kept = int(offer.get("kept") or 0)
    head = tr("DEAL OFFERED (answer in {clock}):", clock=clock_text(int(offer["ends_ms"]),
                                                                   now_ms))
    head += " " + (tr("{kept} kept for the winner", kept=kept) if kept
                   else tr("nothing kept for the winner"))
    lines: list[Line] = [(head, "bold")]
    accepted = offer.get("accepted") or {}
    width = max((len(str(p)) for p in offer.get("players") or []), default=0)
    for i, player in enumerate(offer.get("players") or []):
        answer = accepted.get(player)
        said = tr("accepts {split}", split=_split_name(answer)) if answer else "-"
        lines.append((f"  {player:<{width}}  " + tr(
            "stack {stack}  ICM {icm}  chip count {chips}", stack=offer["stacks"][i],
            icm=offer["icm"][i], chips=offer["chip_count"][i]) + f"  {said}", ""))
    lines.append(("  " + tr("A deal is offered: `deal icm`, `deal chips` or `nodeal`."), "dim"))
    return lines


def _split_name(split: str) -> str:
    return "ICM" if split == "icm" else tr("chip count")


def _room_state(view: dict[str, Any]) -> str:
    """A table that is not dealing as usual: closed, closing, paused (R7.12)."""
    room = view.get("room") or {}
    if room.get("closed") and is_tournament(view):
        return tr("CLOSED: the tournament is over.")
    if room.get("closed"):
        return tr("CLOSED: this table takes nobody (every stack went back).")
    if room.get("closing"):
        return tr("CLOSING: the host closed the table; it closes when this hand ends.")
    if room.get("paused"):
        return tr("PAUSED by the host: no new hand until it resumes.")
    return ""


def _room_lines(view: dict[str, Any], player_id: str | None = None) -> list[Line]:
    """The waiting list, held seats, the host's invite code and pending settings."""
    room = view.get("room") or {}
    lines: list[Line] = []
    waiting = [player_person(view, p, player_id).who() for p in room.get("waitlist") or []]
    held = int(room.get("held_seats") or 0)
    if waiting or held:
        text = tr("Waiting list: {players}",
                  players=", ".join(waiting) if waiting else tr("(empty)"))
        if held:
            text += "   " + (tr("(1 seat held for the list)") if held == 1
                             else tr("({n} seats held for the list)", n=held))
        lines.append((text, ""))
    if "invite_code" in room:  # the host's view of a private table only
        code = room.get("invite_code")
        lines.append((tr("Invite code: {code} (`revoke` to cancel it)", code=code) if code
                      else tr("Invite code: none (`code` makes one)"), ""))
    if room.get("pending"):
        lines.append((tr("From the next hand: {settings}",
                         settings=settings_text(room["pending"])), ""))
    return lines


def _owing_line(view: dict[str, Any], me: dict[str, Any]) -> str | None:
    """R7.8: what your seat owes and what happens at the next deal."""
    if owing_text(me) is None or view.get("hand") is None:
        return None  # a table that has not dealt deals everybody in for free
    big, small = bool(me.get("owes_big")), bool(me.get("owes_small"))
    if me.get("entry") == "post":
        if big and small:
            return tr("You owe both blinds: posting them (the small one dead). `wait` to wait "
                      "for the big blind")
        if big:
            return tr("You owe the big blind: posting it live. `wait` to wait for the big "
                      "blind")
        return tr("You owe the small blind: posting it dead. `wait` to wait for the big blind")
    if big and small:
        return tr("You owe both blinds: you wait for the big blind. `post` to post now")
    if big:
        return tr("You owe the big blind: you wait for the big blind. `post` to post now")
    return tr("You owe the small blind: you wait for the big blind. `post` to post now")


def _seat_row(view: dict[str, Any], index: int, seat: dict[str, Any] | None, now_ms: int,
              widths: dict[str, int], naiko: bool) -> str:
    if seat is None:
        return f"  {index:>2} {'':<{widths['pos']}} " + tr("(empty)")
    hand = view.get("hand") or {}
    live_hand = bool(hand) and not hand.get("complete")
    marks = []
    if hand:
        if hand.get("button") == index:
            marks.append("D")
        if hand.get("small_blind_seat") == index:
            marks.append("SB")
        if hand.get("big_blind_seat") == index:
            marks.append("BB")
    actor = live_hand and hand.get("actor") == index
    name = seat_label(view, index)
    if seat.get("is_bot"):
        name += " BOT"
    bet = seat.get("bet") or 0
    if seat.get("in_hand"):
        if seat.get("cards"):
            cards = cards_text(seat["cards"])
        else:
            cards = " ".join(["##"] * int(seat.get("card_count") or 0))
    else:
        cards = ""
    status: list[str] = []
    if actor:
        clock = clock_text(hand.get("actor_deadline_ms"), now_ms)
        status.append(tr("to act") + (f" {clock}" if clock else ""))
    if seat.get("in_hand") and seat.get("folded"):
        status.append(tr("folded"))
    if seat.get("in_hand") and seat.get("all_in") and not seat.get("folded"):
        status.append(tr("ALL-IN"))
    if seat.get("sitting_out"):
        status.append(tr("sitting out"))
    if seat.get("player_id") in (view.get("disconnected") or []):
        status.append(tr("offline"))
    if seat.get("bounty"):  # R9.13: a knockout tournament's bounty on this player
        status.append(tr("bounty {bounty}", bounty=seat["bounty"]))
    if "time_bank_ms" in seat:  # R8.7: every seat's bank, shown to the table
        seconds = int(seat.get("time_bank_ms") or 0) // 1000
        status.append(tr("BANK {seconds}s", seconds=seconds) if seat.get("time_bank_running")
                      else tr("bank {seconds}s", seconds=seconds))
    owing = owing_text(seat) if view.get("hand") is not None else None
    if owing:  # R7.8 (a table that has not dealt yet deals everybody in)
        status.append(owing)
    if seat.get("player_id") == (view.get("settings") or {}).get("host") \
            and not is_tournament(view):
        status.append(tr("host"))
    if hand.get("complete"):
        won = sum(int(a.get("winners", {}).get(str(index), 0)) for a in hand.get("awards", []))
        if won:
            status.append(tr("won {amount}", amount=won))
    row = (f"{'>' if actor else ' '} {index:>2} {'/'.join(marks):<{widths['pos']}} "
           f"{name:<{widths['player']}} {seat.get('stack', 0):>{widths['stack']}} "
           f"{bet if bet else '':>{widths['bet']}}  {cards:<{widths['cards']}}")
    if naiko:
        row += f"  {seat.get('destellos', 0):>4}"
    return (row + "  " + ", ".join(status)).rstrip()


def _board_lines(view: dict[str, Any], hand: dict[str, Any] | None) -> list[Line]:
    if not hand:
        return [(tr("Board: -"), "")]
    board = cards_text(hand.get("board"))
    dealt = len(hand.get("board") or "") // 2
    board = " ".join(x for x in (board, " ".join(["--"] * (5 - dealt))) if x)
    pot = int(hand.get("pot") or 0)
    bets = int(hand.get("bets_total") or 0)
    text = tr("Board: {cards}", cards=board) + "     " + tr("Pot: {pot}", pot=pot)
    if bets:
        text += " " + tr("(+{bets} in bets = {total})", bets=bets, total=pot + bets)
    if hand.get("current_bet"):
        text += "   " + tr("current bet {amount}", amount=hand["current_bet"])
    lines: list[Line] = [(text, "bold")]
    if hand.get("complete") and hand.get("awards"):
        parts = []
        for award in hand["awards"]:
            for seat, amount in (award.get("winners") or {}).items():
                who = seat_person(view, int(seat))
                parts.append(say(who, tr("You win {amount}", amount=amount),
                                 tr("{name} wins {amount}", name=who.who(), amount=amount)))
        lines.append((tr("Result: {winners}", winners=", ".join(parts)), "good"))
    return lines


def anchor_state(state: Any) -> str:
    """An Anchor's state (``view.hand.powers.anchors``) in the client's language."""
    return {"pending": tr("pending"), "applied": tr("applied"),
            "shielded": tr("shielded")}.get(str(state), str(state))


def _naiko_lines(view: dict[str, Any], hand: dict[str, Any] | None, now_ms: int) -> list[Line]:
    powers = (hand or {}).get("powers")
    if not powers or (hand or {}).get("complete") and not powers.get("carousel"):
        return [(tr("Carousel: (dealt with the next hand)"), "")]
    carousel = " | ".join(f"{power_name(p)} ({POWER_COSTS.get(p, '?')})"
                          for p in powers.get("carousel") or [])
    lines: list[Line] = [(tr("Carousel: {powers}", powers=carousel) + "   "
                          + tr("powers this round: {count}/3",
                               count=powers.get("round_activations", 0)), "")]
    extra = []
    used = powers.get("used") or {}
    if used:
        extra.append(tr("used: {uses}", uses="; ".join(
            f"{seat_person(view, int(s)).who()} {', '.join(power_name(p) for p in ps)}"
            for s, ps in sorted(used.items(), key=lambda kv: int(kv[0])))))
    anchors = powers.get("anchors") or {}
    for target, anchor in sorted(anchors.items(), key=lambda kv: int(kv[0])):
        on, by = seat_person(view, int(target)), seat_person(view, anchor.get("by"))
        n = {"target": on.who(), "attacker": by.who(), "state": anchor_state(anchor.get("state"))}
        extra.append(tr("Anchor on you by {attacker} ({state})", **n) if on.me
                     else tr("Anchor on {target} by you ({state})", **n) if by.me
                     else tr("Anchor on {target} by {attacker} ({state})", **n))
    for window in powers.get("windows") or []:
        if window.get("target") != view.get("seat_index"):
            extra.append(tr("{name} may shield ({clock})",
                            name=seat_person(view, window.get("target")).who(),
                            clock=clock_text(window.get("deadline_ms"), now_ms)))
    if powers.get("peek"):
        extra.append(tr("your Peek: {card} is the next board card", card=powers["peek"]))
    if extra:
        lines.append(("  " + "   ".join(extra), ""))
    return lines


def _prompt_section(view: dict[str, Any], now_ms: int, width: int,
                    offer_until_ms: int | None = None) -> list[Line]:
    lines: list[Line] = [("-" * width, "dim")]
    if offer_until_ms is not None and view.get("seat_index") is None:
        clock = clock_text(offer_until_ms, now_ms)
        lines.append((tr("SEAT OFFERED {clock}: a seat is held for you: `take` (or `take N`) "
                         "to sit down", clock=clock), "turn"))
    hand = view.get("hand") or {}
    prompt = view.get("prompt")
    window = open_window_for(view, view.get("seat_index"))
    if window is not None:
        attacker = seat_person(view, window.get("attacker")).who()
        clock = clock_text(window.get("deadline_ms"), now_ms)
        can = (hand.get("powers") or {}).get("can_shield")
        answer = tr("`shield` (1 destello) or `pass`") if can else tr("`pass` (you cannot shield)")
        lines.append((tr("SHIELD WINDOW {clock}: {attacker}'s Short Anchor aims at you: "
                         "{answer}",
                         clock=clock, attacker=attacker, answer=answer), "turn"))
    if prompt:
        lines.extend(_prompt_lines(view, prompt, now_ms))
        me = my_seat(view) or {}
        if me.get("time_bank_ms") and not me.get("time_bank_running"):
            lines.append(("  " + tr("`bank` time bank ({seconds} s)",
                                    seconds=int(me["time_bank_ms"]) // 1000), ""))
    elif hand and not hand.get("complete") and hand.get("actor") is not None:
        actor = seat_person(view, hand["actor"]).who()
        seats = view.get("seats") or []
        seat = seats[hand["actor"]] if hand["actor"] < len(seats) else None
        bot = " (BOT)" if seat and seat.get("is_bot") else ""
        clock = clock_text(hand.get("actor_deadline_ms"), now_ms)
        lines.append((tr("Waiting for {actor} to act", actor=f"{actor}{bot}")
                      + (f"  {clock}" if clock else ""), ""))
        if view.get("pre_action"):  # R8.8: yours only
            lines.append((tr("Pre-action: {pre} (`pre off` to clear)",
                             pre=pre_action_text(view["pre_action"])), "bold"))
    elif (view.get("room") or {}).get("closed") and is_tournament(view):
        lines.append((tr("No more hands: the tournament is over (`tournaments` for the "
                         "lobby's, `q` to quit)."), ""))
    elif (view.get("room") or {}).get("closed"):
        lines.append((tr("No more hands: the table is closed (`q` to quit)."), ""))
    elif (view.get("room") or {}).get("paused"):
        lines.append((tr("No new hand while the table is paused."), ""))
    elif hand and hand.get("complete"):
        lines.append((tr("Hand #{number} is over; the next one starts shortly.",
                         number=hand.get("number")), ""))
    elif is_tournament(view):
        first = (view.get("tournament") or {}).get("first_hand_ms")
        clock = clock_text(int(first), now_ms) if first else ""
        lines.append((tr("The tournament starts: the first hand is dealt in {clock}.",
                         clock=clock) if clock
                      else tr("The tournament starts: the first hand is dealt shortly."), ""))
    else:
        seated = sum(1 for s in view.get("seats") or [] if s)
        needed = (view.get("settings") or {}).get("min_players") or 3
        lines.append((tr("Waiting for players ({seated} seated); the first hand starts with "
                         "{needed}.", seated=seated, needed=needed), ""))
    return lines


def pre_action_text(pre: dict[str, Any]) -> str:
    """A queued pre-action (R8.8) as the screen shows it.

    >>> pre_action_text({"kind": "call", "amount": 20}), pre_action_text({"kind": "check_fold"})
    ('call 20', 'check/fold')
    """
    kind = pre.get("kind")
    if kind == "call":
        return tr("call {amount}", amount=pre.get("amount"))
    return {"check_fold": tr("check/fold"), "check": tr("check"), "call_any": tr("call any"),
            "fold": tr("fold")}.get(str(kind), str(kind))


def _prompt_lines(view: dict[str, Any], prompt: dict[str, Any], now_ms: int) -> list[Line]:
    actions = list(prompt.get("actions") or [])
    lo, hi = prompt.get("min_raise_to"), prompt.get("max_raise_to")
    clock = clock_text(prompt.get("deadline_ms"), now_ms)
    head = tr("YOUR TURN") + (f"  {clock}" if clock else "")
    head += "   " + tr("to call {amount}", amount=prompt.get("to_call", 0))
    if lo is not None and hi is not None:
        head += "   " + (tr("raise to {lo}..{hi}", lo=lo, hi=hi) if "raise_to" in actions
                         else tr("bet {lo}..{hi}", lo=lo, hi=hi))
    if prompt.get("anchored"):
        head += "   " + tr("ANCHORED: your raises are capped")
    lines: list[Line] = [(head, "turn")]
    me = my_seat(view) or {}
    all_in_to = int(me.get("stack") or 0) + int(me.get("bet") or 0)
    labels = {"fold": tr("f fold"), "check": tr("x check"),
              "call": tr("c call {amount}", amount=prompt.get("to_call")),
              "bet": tr("b N bet ({lo}-{hi})", lo=lo, hi=hi),
              "raise_to": tr("r N raise to N ({lo}-{hi})", lo=lo, hi=hi),
              "all_in": tr("a all-in ({amount})", amount=all_in_to)}
    lines.append(("  " + " | ".join(labels.get(a, a) for a in actions), "bold"))
    powers = list(prompt.get("powers") or [])
    if powers:
        parts = []
        for p in powers:
            key = POWER_KEYS.get(p, p)
            if p == "short_anchor":
                targets = prompt.get("anchor_targets") or []
                key = "anchor " + "|".join(str(t) for t in targets)
            parts.append(f"{key} ({power_name(p)}, {POWER_COSTS.get(p, '?')})")
        lines.append(("  " + tr("powers: ") + " | ".join(parts), ""))
    return lines


# -- the lobby -------------------------------------------------------------------------------

def _columns(rows: Sequence[Sequence[str]], spec: Sequence[tuple[str, int]]) -> list[str]:
    """*rows* of cells as columns two spaces apart, each aligned as its *spec* says (``<`` or
    ``>``) and as wide as its width there or its widest cell (a heading in another language
    may be longer than the English one); the last column is not padded."""
    widths = [max([width, *(len(row[i]) for row in rows)]) if i < len(spec) - 1 else 0
              for i, (_, width) in enumerate(spec)]
    return ["  " + "  ".join(f"{cell:{align}{width}}" if width else cell
                             for cell, (align, _), width in zip(row, spec, widths, strict=True))
            for row in rows]


def render_lobby(tables: Sequence[dict[str, Any]], *, player_id: str | None = None,
                 status: str = "", status_is_error: bool = False, input_text: str = "",
                 connection: str = "", width: int = 80, height: int = 30,
                 color: bool = False, tournaments: Sequence[dict[str, Any]] | None = None,
                 tournament: dict[str, Any] | None = None) -> list[str]:
    """The open tables, numbered from 1, and how to pick one; the *tournaments* listed
    (``list_tournaments``), numbered from 1 too, and one *tournament* (``get_tournament``).

    >>> render_lobby([{"table_id": "t1", "name": "Demo", "variant": "NAIKO", "small_blind": 5,
    ...                "big_blind": 10, "seat_count": 4, "seated": 2, "min_buy_in": 200,
    ...                "max_buy_in": 1000}], height=8)[3]
    '   1  Demo                  NAIKO  5/10         2/4  200-1000     t1'
    """
    lines: list[Line] = [(_header_text(tr("lobby"), player_id, connection), "header"),
                         ("", "")]
    rows = [["#", tr("Table"), tr("Game"), tr("Blinds"), tr("Seats"), tr("Buy-in"), "Id"]]
    rows.extend([str(number), str(t.get("name"))[:20], str(t.get("variant", "")),
                 f"{t.get('small_blind')}/{t.get('big_blind')}",
                 f"{t.get('seated')}/{t.get('seat_count')}",
                 f"{t.get('min_buy_in')}-{t.get('max_buy_in')}", str(t.get("table_id"))]
                for number, t in enumerate(tables, 1))
    columns = _columns(rows, ((">", 2), ("<", 20), ("<", 5), ("<", 9), (">", 5), ("<", 11),
                              ("<", 0)))
    lines.append((columns[0], "bold"))
    lines.extend((text, "") for text in columns[1:])
    if not tables:
        lines.append(("  " + tr("No open table yet (refreshing every few seconds)."), ""))
    if tournaments is not None:
        lines.append(("", ""))
        lines.extend(tournament_list_lines(tournaments))
    if tournament is not None:
        lines.append(("", ""))
        lines.extend(tournament_detail_lines(tournament))
    lines.append(("", ""))
    lines.append((tr("Type a table's number to sit down there (Enter: the first), `r` to "
                     "refresh, `q` to quit."), ""))
    lines.append((tr("Or `quick NLHE 1/2 200` (a seat at any table of that game), `find CODE` "
                     "(a private table), `account`."), ""))
    lines.append((tr("Tournaments: `tournaments` to list them, `tournament N` to see one, "
                     "`register N`, `unregister N`."), ""))
    bottom: list[Line] = [(status, "error" if status_is_error else "good" if status else ""),
                          ("> " + input_text, "")]
    room = max(height - len(lines) - len(bottom), 0)
    lines = lines[:height - len(bottom)] + [("", "")] * room + bottom
    return [_style(text[:width], style, color) for text, style in lines[-height:]]


KIND_NAMES = {"sit_and_go": "SNG", "spin": "Spin", "scheduled": "MTT"}
"""A tournament's kind as the lists show it (the same short names in every language)."""


def tournament_status(status: Any) -> str:
    """A tournament's ``status`` in the client's language."""
    return {"registering": tr("registering"), "running": tr("running"),
            "finished": tr("finished"), "cancelled": tr("cancelled")}.get(str(status),
                                                                          str(status))


def tournament_list_lines(tournaments: Sequence[dict[str, Any]]) -> list[Line]:
    """The tournaments of ``list_tournaments``, numbered from 1 (``register 1``).

    >>> for text, _ in tournament_list_lines([{"tournament_id": "u1", "name": "Spin 100",
    ...         "kind": "spin", "variant": "NLHE", "status": "registering", "entry": 100,
    ...         "entrants": 2, "max_players": 3}]):
    ...     print(text)
    Tournaments (`tournament N` to see one, `register N` to enter):
       #  Tournament            Kind  Game   Entry  Players  Status       Id
       1  Spin 100              Spin  NLHE     100      2/3  registering  u1
    """
    rows = [["#", tr("Tournament"), tr("Kind"), tr("Game"), tr("Entry"), tr("Players"),
             tr("Status"), "Id"]]
    rows.extend([str(number), str(t.get("name"))[:20],
                 KIND_NAMES.get(str(t.get("kind")), str(t.get("kind"))),
                 str(t.get("variant", "")), str(t.get("entry", "")),
                 f"{t.get('entrants')}/{t.get('max_players')}",
                 tournament_status(t.get("status", "")), str(t.get("tournament_id"))]
                for number, t in enumerate(tournaments, 1))
    columns = _columns(rows, ((">", 2), ("<", 20), ("<", 4), ("<", 5), (">", 5), (">", 7),
                              ("<", 11), ("<", 0)))
    lines: list[Line] = [(tr("Tournaments (`tournament N` to see one, `register N` to "
                             "enter):"), ""), (columns[0], "bold")]
    lines.extend((text, "") for text in columns[1:])
    if not tournaments:
        lines.append(("  " + tr("No tournament is registering or running."), ""))
    return lines


def tournament_detail_lines(t: dict[str, Any]) -> list[Line]:
    """One tournament (``get_tournament``): its terms (R9.1, R9.3, R9.9, R9.10), who
    registered, the places and prizes so far.

    >>> for text, _ in tournament_detail_lines({"tournament_id": "u1", "name": "Spin 100",
    ...         "kind": "spin", "variant": "NLHE", "status": "finished", "entry": 100,
    ...         "starting_stack": 500, "seat_count": 3, "entrants": 3, "max_players": 3,
    ...         "players_left": 1, "payouts": [500], "multiplier": 5, "terms": {
    ...             "decision_ms": 12000, "bots_allowed": True, "structure": {"levels": [
    ...             {"small_blind": 10, "big_blind": 20, "ante": 0, "ante_mode": "none",
    ...              "minutes": 3}]}}, "registered": ["bot-1", "erin", "grace"],
    ...         "results": [{"player_id": "erin", "place": 1, "prize": 500},
    ...                     {"player_id": "grace", "place": 2, "prize": 0}]}):
    ...     print(text)
    Spin 100: Spin NLHE, finished   u1
      entry 100   stack 500   3 seats   players 3/3 (1 left)   clock 12s   bots on
      levels of 3 min: 10/20
      prizes: 1st 500   Spin x5
      registered: bot-1, erin, grace
      places: 1st erin 500, 2nd grace
    """
    terms = t.get("terms") or {}
    kind = KIND_NAMES.get(str(t.get("kind")), str(t.get("kind")))
    lines: list[Line] = [(f"{t.get('name')}: {kind} {t.get('variant', '')}, "
                          f"{tournament_status(t.get('status'))}   {t.get('tournament_id')}",
                          "bold")]
    players = tr("players {entrants}/{max}", entrants=t.get("entrants"), max=t.get("max_players"))
    if t.get("status") == "running" or t.get("status") == "finished":
        players += " " + tr("({n} left)", n=t.get("players_left"))
    facts = [tr("entry {amount}", amount=t.get("entry")),
             tr("stack {stack}", stack=t.get("starting_stack")),
             tr("{n} seats", n=t.get("seat_count")), players]
    if terms.get("decision_ms"):
        facts.append(tr("clock {n}s", n=int(terms["decision_ms"]) // 1000))
    facts.append(tr("bots on") if terms.get("bots_allowed") else tr("bots off"))
    lines.append(("  " + "   ".join(facts), ""))
    extra = []  # R9.13, R9.16, R9.12
    if terms.get("bounty"):
        extra.append(tr("progressive knockout: bounty {bounty} an entry", bounty=terms["bounty"])
                     if terms.get("progressive")
                     else tr("knockout: bounty {bounty} an entry", bounty=terms["bounty"]))
    if terms.get("deals"):
        extra.append(tr("deals at the final table of {n} or fewer",
                        n=terms["deals"].get("max_players")))
    allowed = int(terms.get("entries_per_player") or 1)
    if allowed > 1:
        entries = (t.get("you") or {}).get("entries")
        extra.append(tr("{n} entries a player", n=allowed) + (
            "   " + tr("re-entries left to you: {left}", left=max(0, allowed - int(entries)))
            if entries else ""))
    if extra:
        lines.append(("  " + "   ".join(extra), ""))
    levels = list((terms.get("structure") or {}).get("levels") or [])
    if levels:
        minutes = {lv.get("minutes") for lv in levels}
        shown = ", ".join(level_text(lv) for lv in levels[:6])
        if len(levels) > 6:
            shown += " " + tr("... ({n} levels)", n=len(levels))
        lines.append(("  " + (tr("levels of {minutes} min: {levels}",
                                 minutes=levels[0].get("minutes"), levels=shown)
                              if len(minutes) == 1
                              else tr("levels (minutes vary): {levels}", levels=shown)), ""))
    prizes = "  " + tr("prizes: {prizes}", prizes=prizes_text(t.get("payouts") or []))
    split = t.get("payout_split")
    if not t.get("payouts") and split:  # R9.9: the current field's split, before the start
        prizes = "  " + tr("prizes ({n} players): {prizes}", n=split.get("entrants"),
                           prizes=prizes_text(split.get("prizes") or []))
    if t.get("payout_table"):
        prizes += "   " + tr("split by field: {splits}", splits=", ".join(
            f"{r['min_entrants']}" + (f"-{r['max_entrants']}"
                                      if r["max_entrants"] != r["min_entrants"] else "")
            + ": " + "/".join(str(x) for x in r["percent"]) for r in t["payout_table"]))
    if t.get("multiplier"):
        prizes += f"   Spin x{t['multiplier']}"
    elif t.get("kind") == "spin":
        prizes += " " + tr("(a Spin: the pool is the entry times a multiplier drawn at the "
                           "start)")
    lines.append((prizes, ""))
    registered = [str(p) for p in t.get("registered") or []]
    more = " " + tr("... (more)") if t.get("registered_more") else ""
    if "registered" in t:
        lines.append(("  " + tr("registered: {players}",
                                players=", ".join(registered) or tr("nobody yet")) + more, ""))
    results = t.get("results") or []
    if results:
        lines.append(("  " + tr("places: {places}", places=", ".join(
            tr("{place} {player}", place=ordinal(int(r.get("place") or 0)),
               player=r.get("player_id"))
            + (f" {r['prize']}" if r.get("prize") else "") for r in results))
            + (" " + tr("... (more)") if t.get("results_more") else ""), ""))
    return lines
