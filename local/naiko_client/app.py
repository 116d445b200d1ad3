""":mod:`naiko_client.app` is the terminal client: ``naiko-client URL TOKEN [--table TABLE_ID]
[--buy-in N]``.

It connects to ``URL?token=TOKEN`` (the WebSocket API, ``docs/protocol.md``), finds a table (the
one given, else the first open table of the lobby, or the one you pick when several are open),
watches it with ``snapshot``, sits down with ``join_table`` unless already seated, and then
redraws the whole screen (:func:`naiko_client.render.render`) on every message and every second
for the countdowns. The room around a table works from the keyboard too: posting or waiting
for the big blind, the waiting list and a seat offered from it, quick seat, the account, a
private table's invite codes and its host's commands; and the tournaments: listing them, one
tournament's terms and places, registering and unregistering, and the tournament's table when
it starts (``docs/client.md``). Commands are typed
on the bottom line; :func:`parse_command` checks them against the prompt before anything is
sent, and the server's ``error`` replies are shown on the status line. A dropped connection
is reopened with backoff and followed by a ``snapshot`` (the server's confirmed state, R8.3).
Idle, the client sends ``heartbeat`` every 4 minutes, and it reconnects by itself after about
1 h 50 min, before API Gateway's 2-hour limit (:mod:`naiko_client.keepalive`).

The module only needs the standard library and ``websockets`` (imported when connecting).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import codecs
import contextlib
import json
import os
import re
import signal
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TextIO
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from naiko.commitment import CardProof, MalformedProof
from naiko.commitment import verify as verify_proof
from naiko.verify import Report, check_hand

from .i18n import LANGUAGES, served, set_language, tr
from .keepalive import KeepAlive, keep_alive
from .render import (
    POWER_COSTS,
    Narrator,
    cancel_reason,
    chat_line,
    is_tournament,
    my_seat,
    open_window_for,
    power_name,
    pre_action_text,
    render,
    render_lobby,
    shown_name,
    tournament_detail_lines,
    tournament_list_lines,
    tournament_status,
)

LOG_LINES = 200
"""Event sentences kept (the screen shows the newest that fit)."""

RECONNECT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds to wait before reconnecting, then the last one again."""

LOBBY_REFRESH_S = 3.0

TOURNAMENT_PAGE = 20
"""Players and places of the tournament shown (their first pages; "more" says there are more)."""

MAX_TOURNAMENTS_LISTED = 20
"""Tournaments ``tournaments`` lists at most (the lobby's pages are followed up to it)."""

_NOT_AT_A_TABLE = frozenset({"list_tables", "create_table", "quick_seat", "get_account",
                             "find_table", "list_tournaments", "get_tournament",
                             "tournament_players", "tournament_results", "register",
                             "unregister", "hand_history", "get_hand", "chat_mute",
                             "chat_unmute"})
"""Requests that carry no ``table_id``."""

# -- commands --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    """What a typed line means: a request to send (``action`` and its fields, without
    ``request_id`` and ``table_id``), a local command (``quit``, ``help``, ``join``), or an
    error to show instead of sending anything."""

    request: dict[str, Any] | None = None
    local: str | None = None
    amount: int | None = None
    error: str | None = None
    label: str = ""
    entry: str | None = None
    """``join`` / ``take``: ``"post"`` or ``"wait"`` (R7.8) when typed."""


_ALIASES = {
    "f": "fold", "fold": "fold", "x": "check", "k": "check", "check": "check", "c": "call",
    "call": "call", "b": "bet", "bet": "bet", "r": "raise", "raise": "raise", "a": "all_in",
    "allin": "all_in", "all-in": "all_in", "shove": "all_in", "peek": "peek", "swap": "swap",
    "sleeve": "swap", "anchor": "anchor", "shield": "shield", "pass": "pass",
    "sitout": "sitout", "sit-out": "sitout", "sitin": "sitin", "sit-in": "sitin",
    "leave": "leave", "q": "quit", "quit": "quit", "exit": "quit", "help": "help", "h": "help",
    "?": "help", "join": "join", "sit": "join", "add": "add", "reload": "add",
    "post": "post", "wait": "wait", "waitlist": "waitlist", "queue": "waitlist",
    "unwait": "unwait", "unqueue": "unwait", "take": "take", "quick": "quick",
    "account": "account", "invite": "invite", "code": "code", "revoke": "revoke",
    "find": "find", "blinds": "blinds", "clock": "clock", "minplayers": "minplayers",
    "min-players": "minplayers", "bot": "bot", "kick": "kick", "pause": "pause",
    "resume": "resume", "close": "close", "tournaments": "tournaments",
    "tourneys": "tournaments", "tournament": "tournament", "tourney": "tournament",
    "register": "register", "reg": "register", "unregister": "unregister",
    "unreg": "unregister", "history": "history", "hist": "history", "hands": "history",
    # -- table chat (R8.9)
    "say": "say", "chat": "say", "emote": "emote", "mute": "mute", "unmute": "unmute",
    "bank": "bank", "timebank": "bank", "pre": "pre",
    # -- deals at a final table (R9.16)
    "deal": "deal", "nodeal": "nodeal",
}

_HEAD = re.compile(r"^([a-z?][a-z-]*)(\S*)$")
"""A command word, and an argument glued to it (``r60``)."""

_ONE_ARG = frozenset({"fold", "check", "call", "bet", "raise", "all_in", "peek", "swap",
                      "anchor", "shield", "pass", "sitout", "leave", "quit", "help", "add",
                      "bank", "pre", "deal", "nodeal"})
"""Commands that take at most one argument (the others read several: ``join 300 post``)."""

_NO_TABLE = frozenset({"quick", "account", "find"})
"""Commands that need no table (they work from the lobby too)."""

_HOST = frozenset({"invite", "code", "revoke", "blinds", "clock", "minplayers", "bot", "kick",
                   "pause", "resume", "close"})
"""The host's commands (R7.12)."""

_TOURNAMENT = frozenset({"tournaments", "tournament", "register", "unregister"})
"""The tournaments' commands (R9.1): they need no table (the lobby's too)."""

_CASH_ONLY = frozenset({"join", "take", "add", "leave", "post", "wait", "waitlist",
                        "unwait"}) | _HOST
"""Commands a tournament's table refuses (``tournament_table``): its seats and chips are the
tournament's (R7.6, R9.4)."""

_TOURNAMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

_INVITE_CODE = re.compile(r"^[A-Z0-9]{6,16}$")
_PLAYER = re.compile(r"^[^\s]{1,64}$")


def parse_command(line: str, view: dict[str, Any] | None, *, player_id: str | None = None,
                  offer: bool = False, tournaments: Sequence[dict[str, Any]] = (),
                  tournament: dict[str, Any] | None = None) -> Parsed:
    """Read one typed line against the current *view* (*player_id*: who you are, when
    known; *offer*: a seat is held for you, R7.10; *tournaments*: the tournaments listed,
    which ``register N`` and the like number from 1; *tournament*: the one shown).

    Nothing is sent for a command the prompt does not allow: the error says why.

    >>> view = {"seat_index": 1, "seats": [None, {"seat_index": 1, "player_id": "bob",
    ...         "stack": 490, "bet": 10}], "hand": {"complete": False, "actor": 1},
    ...         "prompt": {"actions": ["fold", "call", "raise_to", "all_in"], "to_call": 10,
    ...                    "min_raise_to": 40, "max_raise_to": 500, "powers": []}}
    >>> parse_command("r 60", view).request
    {'action': 'act', 'move': 'raise_to', 'amount': 60}
    >>> parse_command("r 30", view).error
    'The smallest raise is to 40 (only an all-in may be smaller: `a`).'
    >>> parse_command("x", view).error
    'You cannot check now: the prompt allows f, c, r N, a.'
    >>> parse_command("quick NLHE 1/2 200", None).request
    {'action': 'quick_seat', 'variant': 'NLHE', 'small_blind': 1, 'big_blind': 2, 'buy_in': 200}
    >>> parse_command("register 1", None, tournaments=[{"tournament_id": "u1"}]).request
    {'action': 'register', 'tournament_id': 'u1'}
    """
    tokens = line.split()
    if not tokens:
        return Parsed()
    match = _HEAD.match(tokens[0].lower())
    unknown = Parsed(error=tr("Unknown command {command}: type `help`.",
                              command=repr(line.strip())))
    if match is None or match.group(1) not in _ALIASES:
        return unknown
    word = _ALIASES[match.group(1)]
    if word in _CHAT:
        return _chat_command(word, line, view)
    args = ([match.group(2)] if match.group(2) else []) + tokens[1:]
    if word in _ONE_ARG and len(args) > 1:
        return unknown
    arg = args[0].lower() if args else None
    if word in ("quit", "help"):
        return Parsed(local=word)
    if word in _TOURNAMENT:
        return _tournament_command(word, args, tournaments, tournament, player_id)
    if word == "history":
        return _history_command(args, view)
    if word in _CASH_ONLY and is_tournament(view):
        if word == "leave":
            return Parsed(error=tr("A tournament's seat cannot be left: `sitout` (you are "
                                   "dealt in and folded at once, R9.4) or `q` (your seat "
                                   "stays)."))
        return Parsed(error=tr("This is a tournament's table: its seats and chips are the "
                               "tournament's (`sitout` to stop playing, R9.4)."))
    if word in ("join", "take"):
        return _join_command(word, args, view, offer)
    if word in _NO_TABLE:
        return _lobby_request(word, args)
    if view is None:
        return Parsed(error=tr("No table yet."))
    seated = view.get("seat_index") is not None
    if word == "sitin" and seated:
        ok, entry = _entry_of(args)
        if not ok or any(a.isdigit() for a in args):
            return Parsed(error=tr("Type `sitin`, `sitin post` or `sitin wait`."))
        request: dict[str, Any] = {"action": "sit_in"}
        if entry:
            request["entry"] = entry
        return Parsed(request=request, label="sitin")
    if word in ("sitout", "sitin", "leave"):
        if not seated:
            return Parsed(error=tr("You have no seat at this table (`join` to sit down)."))
        action = {"sitout": "sit_out", "sitin": "sit_in", "leave": "leave_table"}[word]
        return Parsed(request={"action": action}, label=word)
    if word in ("post", "wait"):
        return _entry_command(word, args, view)
    if word in ("waitlist", "unwait"):
        if args:
            return Parsed(error=tr("`{command}` takes nothing.", command=word))
        if word == "unwait":
            return Parsed(request={"action": "leave_waitlist"}, label="unwait")
        if seated:
            return Parsed(error=tr("You already have a seat here."))
        return Parsed(request={"action": "join_waitlist"}, label="waitlist")
    if word in _HOST:
        return _host_command(word, args, view, player_id)
    if word == "add":
        amount = _amount(arg)
        if not seated:
            return Parsed(error=tr("You have no seat at this table (`join` to sit down)."))
        if amount is None:
            return Parsed(error=tr("Type `add N` with N the chips to add between hands."))
        return Parsed(request={"action": "add_chips", "amount": amount}, label=f"add {amount}")
    if word in ("shield", "pass"):
        return _window_command(word, view)
    if not seated:
        return Parsed(error=tr("You are watching: `join` to sit down first."))
    if word == "pre":
        return _pre_command(arg, view)
    if word in ("deal", "nodeal"):
        return _deal_command(word, arg, view)
    hand = view.get("hand") or {}
    if not hand or hand.get("complete"):
        return Parsed(error=tr("No hand is being played right now."))
    prompt = view.get("prompt")
    if not prompt:
        return Parsed(error=tr("It is not your turn."))
    if word in ("peek", "swap", "anchor"):
        return _power_command(word, arg, view, prompt)
    if word == "bank":
        return _bank_command(arg, view)
    return _betting_command(word, arg, view, prompt)


# -- table chat (R8.9) -------------------------------------------------------------------------

_CHAT = frozenset({"say", "emote", "mute", "unmute"})

EMOTES = ("thumbs_up", "clap", "laugh", "wow", "sad", "angry", "thinking", "gg", "nice_hand",
          "thanks")
"""The emote codes (``naiko_service.protocol.EMOTES``)."""

CHAT_TEXT_MAX = 200
"""Characters of a chat message (the server normalises it and counts again)."""


def _chat_command(word: str, line: str, view: dict[str, Any] | None) -> Parsed:
    """``say TEXT`` (the text as typed, case and spaces kept), ``emote CODE``, ``mute NAME`` /
    ``unmute NAME`` (a player id, or the seat number of a seated player).

    >>> parse_command("say Nice hand, Bob!", {"seats": []}).request
    {'action': 'chat', 'text': 'Nice hand, Bob!'}
    >>> parse_command("emote gg", {"seats": []}).request
    {'action': 'emote', 'emote': 'gg'}
    >>> parse_command("mute 1", {"seats": [None, {"seat_index": 1, "player_id": "bob"}]}).request
    {'action': 'chat_mute', 'player_id': 'bob'}
    """
    rest = line.strip()[len(line.split()[0]):].strip()
    if word == "say":
        if view is None:
            return Parsed(error=tr("No table yet: chat goes to the table you watch."))
        if not rest:
            return Parsed(error=tr("Type `say` and what to say."))
        if len(rest) > CHAT_TEXT_MAX:
            return Parsed(error=tr("A chat message is at most {limit} characters.",
                                       limit=CHAT_TEXT_MAX))
        return Parsed(request={"action": "chat", "text": rest}, label="say")
    if word == "emote":
        if view is None:
            return Parsed(error=tr("No table yet: emotes go to the table you watch."))
        if rest.lower() not in EMOTES:
            return Parsed(error=tr("Type `emote` and one of {emotes}.", emotes=", ".join(EMOTES)))
        return Parsed(request={"action": "emote", "emote": rest.lower()}, label="emote")
    if not rest or len(rest.split()) != 1:
        return Parsed(error=tr("Type `{command}` and a player's name (or seat number).",
                                   command=word))
    player = _player_of(view or {}, rest) or (None if rest.isdigit() else rest)
    if player is None:
        return Parsed(error=tr("Nobody sits at seat {seat}.", seat=rest))
    action = "chat_mute" if word == "mute" else "chat_unmute"
    return Parsed(request={"action": action, "player_id": player}, label=f"{word} {player}")


# -- deals at a final table (R9.16) ---------------------------------------------------------------

_SPLITS = {"icm": "icm", "chips": "chip_count", "chip": "chip_count", "chip_count": "chip_count",
           "cc": "chip_count"}
"""``deal`` arguments -> the splits of an offer (R9.16)."""


def _deal_command(word: str, arg: str | None, view: dict[str, Any]) -> Parsed:
    """``deal`` (ask for a deal), ``deal icm`` / ``deal chips`` (accept that split of the
    offer out), ``nodeal`` (decline it), at a tournament's table where you play (R9.16).

    >>> view = {"seat_index": 0, "seats": [{"player_id": "ann"}], "tournament": {}}
    >>> parse_command("deal", view).request
    {'action': 'ask_deal'}
    >>> view["tournament"] = {"deal": {"asked": ["ann"], "made": None, "offer": {
    ...     "offer_id": "1.5", "players": ["ann"], "accepted": {}}}}
    >>> parse_command("deal chips", view).request
    {'action': 'accept_deal', 'offer_id': '1.5', 'split': 'chip_count'}
    >>> parse_command("nodeal", view).request
    {'action': 'decline_deal', 'offer_id': '1.5'}
    """
    if not is_tournament(view):
        return Parsed(error=tr("Deals are made at a tournament's final table (R9.16)."))
    offer = ((view.get("tournament") or {}).get("deal") or {}).get("offer")
    if word == "nodeal":
        if arg is not None:
            return Parsed(error=tr("`{command}` takes nothing.", command=word))
        if not offer:
            return Parsed(error=tr("No deal is offered: `deal` to ask for one."))
        return Parsed(request={"action": "decline_deal", "offer_id": offer["offer_id"]},
                      label="nodeal")
    if arg is None:
        if offer:
            return Parsed(error=tr("A deal is offered: `deal icm`, `deal chips` or `nodeal`."))
        return Parsed(request={"action": "ask_deal"}, label="deal")
    split = _SPLITS.get(arg)
    if split is None:
        return Parsed(error=tr("Type `deal` to ask, `deal icm` or `deal chips` to accept, "
                               "`nodeal` to decline."))
    if not offer:
        return Parsed(error=tr("No deal is offered: `deal` to ask for one."))
    return Parsed(request={"action": "accept_deal", "offer_id": offer["offer_id"],
                           "split": split}, label=f"deal {arg}")


# -- time bank and pre-actions (R8.7, R8.8) -------------------------------------------------------

_PRE_KINDS = {"cf": "check_fold", "checkfold": "check_fold", "check/fold": "check_fold",
              "check": "check", "x": "check", "call": "call", "c": "call", "any": "call_any",
              "callany": "call_any", "fold": "fold", "f": "fold"}
"""``pre`` arguments -> the pre-action kinds (R8.8)."""


def price_of(view: dict[str, Any]) -> int:
    """What a call would put in now for your seat (your stack when smaller): the price a
    ``pre call`` is queued at."""
    seats = [s for s in view.get("seats") or [] if s]
    me = my_seat(view) or {}
    top = max((int(s.get("bet") or 0) for s in seats if s.get("in_hand")), default=0)
    return max(0, min(top - int(me.get("bet") or 0), int(me.get("stack") or 0)))


def _bank_command(arg: str | None, view: dict[str, Any]) -> Parsed:
    """``bank``: start your time bank now (R8.7), on your turn."""
    if arg is not None:
        return Parsed(error=tr("`bank` takes nothing."))
    if (view.get("settings") or {}).get("time_bank") is None:
        return Parsed(error=tr("This table has no time bank."))
    me = my_seat(view) or {}
    if me.get("time_bank_running"):
        return Parsed(error=tr("Your time bank is already running."))
    if not me.get("time_bank_ms"):
        return Parsed(error=tr("Your time bank is empty."))
    return Parsed(request={"action": "use_time_bank"}, label="bank")


def _pre_command(arg: str | None, view: dict[str, Any]) -> Parsed:
    """``pre cf|check|call|any|fold`` queues a pre-action for your next turn (R8.8); ``pre
    off`` drops it. ``pre call`` calls exactly the price you see now."""
    if arg == "off":
        if view.get("pre_action") is None:
            return Parsed(error=tr("You have no pre-action queued."))
        return Parsed(request={"action": "clear_pre_action"}, label="pre off")
    kind = _PRE_KINDS.get(arg or "")
    if kind is None:
        return Parsed(error=tr("Type `pre cf`, `pre check`, `pre call`, `pre any`, `pre fold` "
                               "or `pre off`."))
    hand = view.get("hand") or {}
    me = my_seat(view) or {}
    if not hand or hand.get("complete") or not me.get("in_hand") or me.get("folded"):
        return Parsed(error=tr("You have no decision left in this hand."))
    if view.get("prompt"):
        return Parsed(error=tr("It is your turn: act now."))
    request: dict[str, Any] = {"action": "pre_action", "kind": kind}
    price = price_of(view)
    if kind == "check" and price:
        return Parsed(error=tr("There is a bet: {price} to call (`pre cf` checks or folds).",
                                   price=price))
    if kind == "call":
        if not price:
            return Parsed(error=tr("There is nothing to call (`pre check`)."))
        request["amount"] = price
    label = f"pre {kind}" + (f" {request['amount']}" if "amount" in request else "")
    return Parsed(request=request, label=label)


def _history_command(args: list[str], view: dict[str, Any] | None) -> Parsed:
    """``history``: your last hands (R10.1); ``history N``: hand N of the table shown, in full,
    checked against the deck its server committed to (R10.2)."""
    if not args:
        return Parsed(request={"action": "hand_history", "limit": 10}, label="history")
    table_id = (view or {}).get("table_id")
    if len(args) > 1 or not args[0].isdigit() or int(args[0]) < 1:
        return Parsed(error=tr("Type `history` for your last hands, `history N` for hand N of "
                               "this table."))
    if not table_id:
        return Parsed(error=tr("`history N` reads hand N of the table shown: open a table "
                               "first."))
    return Parsed(request={"action": "get_hand", "table_id": table_id,
                           "hand_number": int(args[0])}, label=f"history {args[0]}")


def _amount(text: str | None) -> int | None:
    if text is None or not text.isdigit():
        return None
    value = int(text)
    return value if 0 < value <= 10**12 else None


def _entry_of(args: list[str]) -> tuple[bool, str | None]:
    """Whether *args* are only numbers and ``post`` / ``wait``, and which of the two was
    given (``None``: neither)."""
    entry: str | None = None
    for arg in args:
        if arg.lower() in ("post", "wait"):
            entry = arg.lower()
        elif not arg.isdigit():
            return False, None
    return True, entry


def _join_command(word: str, args: list[str], view: dict[str, Any] | None,
                  offer: bool) -> Parsed:
    """``join [N] [post|wait]``, ``take [N] [post|wait]`` (the seat offered to you, R7.10)."""
    numbers = [a for a in args if a.isdigit()]
    ok, entry = _entry_of(args)
    amount = _amount(numbers[0]) if numbers else None
    if not ok or len(numbers) > 1 or (numbers and amount is None):
        return Parsed(error=tr("Type `{command}` or `{command} N` with N the buy-in in chips, "
                               "and `post` to post a big blind at once (R7.8).", command=word))
    if word == "take" and not offer:
        return Parsed(error=tr("No seat is offered to you (`waitlist` to queue for one)."))
    return Parsed(local="join", amount=amount, entry=entry)


def _lobby_request(word: str, args: list[str]) -> Parsed:
    """Commands that need no table: quick seat, the account, an invite code."""
    if word == "account":
        if args:
            return Parsed(error=tr("`{command}` takes nothing.", command="account"))
        return Parsed(request={"action": "get_account"}, label="account")
    if word == "find":
        code = args[0].upper() if len(args) == 1 else ""
        if not _INVITE_CODE.match(code):
            return Parsed(error=tr("Type `find CODE` with the invite code (6 to 16 letters "
                                   "and digits)."))
        return Parsed(request={"action": "find_table", "code": code}, label=f"find {code}")
    # quick [VARIANT] SB/BB BUY-IN [post|wait]
    rest = list(args)
    variant = "NLHE"
    if rest and rest[0].upper() in ("NLHE", "PLO", "NAIKO"):
        variant = rest.pop(0).upper()
    entry = rest.pop().lower() if rest and rest[-1].lower() in ("post", "wait") else None
    blinds = _blinds(rest[0]) if len(rest) == 2 else None
    buy_in = _amount(rest[1]) if len(rest) == 2 else None
    if blinds is None or buy_in is None:
        return Parsed(error=tr("Type `quick NLHE 1/2 200`: the game (NLHE, PLO, NAIKO), the "
                               "blinds and your buy-in."))
    request = {"action": "quick_seat", "variant": variant, "small_blind": blinds[0],
               "big_blind": blinds[1], "buy_in": buy_in}
    if entry:
        request["entry"] = entry
    return Parsed(request=request, label=f"quick {variant} {blinds[0]}/{blinds[1]}")


def _registration_closed(name: str, status: str) -> str:
    """``register`` for a tournament no longer registering (by its ``status``)."""
    if status == "running":
        return tr("Registration is closed: {name} has started.", name=name)
    if status == "finished":
        return tr("Registration is closed: {name} is over.", name=name)
    if status == "cancelled":
        return tr("Registration is closed: {name} was cancelled.", name=name)
    return tr("Registration is closed: {name} ({status}).", name=name,
              status=tournament_status(status))


def _no_refund(name: str, status: str) -> str:
    """``unregister`` from a tournament that started (R9.1: the entry is no longer returned)."""
    if status == "running":
        return tr("{name} has started: entries are no longer returned (R9.1).", name=name)
    if status == "finished":
        return tr("{name} is over: entries are no longer returned (R9.1).", name=name)
    return tr("{name} ({status}): entries are no longer returned (R9.1).", name=name,
              status=tournament_status(status))


def _tournament_command(word: str, args: list[str], listed: Sequence[dict[str, Any]],
                        shown: dict[str, Any] | None, player_id: str | None) -> Parsed:
    """``tournaments``, ``tournament N|ID``, ``register N|ID``, ``unregister N|ID`` (R9.1),
    checked as far as the list and the tournament shown allow."""
    if word == "tournaments":
        if args:
            return Parsed(error=tr("`{command}` takes nothing.", command="tournaments"))
        return Parsed(request={"action": "list_tournaments"}, label="tournaments")
    usage = tr("Type `{command} N` with N a tournament of the list (`tournaments`), or "
               "`{command} ID` with its id.", command=word)
    found = _tournament_of(args[0], listed, shown) if len(args) == 1 else None
    if found is None:
        return Parsed(error=usage)
    tournament_id, info = found
    request = {"action": {"tournament": "get_tournament"}.get(word, word),
               "tournament_id": tournament_id}
    if word == "tournament":
        return Parsed(request=request, label=f"tournament {tournament_id}")
    name = str(info.get("name") or tournament_id)
    status = str(info.get("status") or "registering")
    you = info.get("you")
    mine = you.get("registered") if isinstance(you, dict) else None
    if word == "register":
        if status != "registering":
            return Parsed(error=_registration_closed(name, status))
        if mine:
            return Parsed(error=tr("You are registered for {name} already.", name=name))
        if int(info.get("entrants") or 0) >= int(info.get("max_players") or 10**9):
            return Parsed(error=tr("{name} is full.", name=name))
    elif status == "cancelled":
        return Parsed(error=tr("{name} was cancelled: every entry went back.", name=name))
    elif status != "registering":
        return Parsed(error=_no_refund(name, status))
    elif mine is False:
        return Parsed(error=tr("You are not registered for {name}.", name=name))
    return Parsed(request=request, label=f"{word} {tournament_id}")


def _tournament_of(text: str, listed: Sequence[dict[str, Any]],
                   shown: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
    """The tournament *text* names: a number of the list, or an id; with what is known of
    it (the tournament shown, else its line of the list, else nothing)."""
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= len(listed):
            return None
        tournament_id = str(listed[number - 1].get("tournament_id"))
    elif _TOURNAMENT_ID.match(text):
        tournament_id = text
    else:
        return None
    if shown is not None and shown.get("tournament_id") == tournament_id:
        return tournament_id, shown
    return tournament_id, next((dict(t) for t in listed
                                if t.get("tournament_id") == tournament_id), {})


def _blinds(text: str) -> tuple[int, int] | None:
    """``"2/4"`` -> ``(2, 4)``; ``None`` unless the small blind is at most the big one."""
    small, _, big = text.partition("/")
    pair = _amount(small), _amount(big)
    if pair[0] is None or pair[1] is None or pair[0] > pair[1]:
        return None
    return pair[0], pair[1]


def _entry_command(word: str, args: list[str], view: dict[str, Any]) -> Parsed:
    """``post`` / ``wait``: how a seat that owes blinds comes in (R7.8)."""
    me = my_seat(view)
    if me is None:
        return Parsed(error=tr("You have no seat at this table (`join N post` posts as you "
                               "sit down)."))
    if args:
        return Parsed(error=tr("`{command}` takes nothing.", command=word))
    if not me.get("owes_big") and not me.get("owes_small"):
        return Parsed(error=tr("You owe no blind: you are dealt in as usual."))
    if me.get("entry") == word:
        return Parsed(error=tr("You already post to come in.") if word == "post"
                      else tr("You already wait for the big blind."))
    return Parsed(request={"action": "choose_entry", "entry": word}, label=word)


def _host_command(word: str, args: list[str], view: dict[str, Any],
                  player_id: str | None) -> Parsed:
    """The host's commands (R7.12), checked as far as the view allows."""
    settings = view.get("settings") or {}
    room = view.get("room") or {}
    host = settings.get("host")
    me = player_id or (my_seat(view) or {}).get("player_id")
    if host and me and host != me:
        return Parsed(error=tr("Only the host ({host}) may do that.", host=host))
    if room.get("closed"):
        return Parsed(error=tr("The table is closed."))
    arg = args[0] if len(args) == 1 else None
    if word in ("code", "revoke", "pause", "resume", "close") and args:
        return Parsed(error=tr("`{command}` takes nothing.", command=word))
    if word == "code":
        return Parsed(request={"action": "create_invite_code"}, label="code")
    if word == "revoke":
        return Parsed(request={"action": "revoke_invite_code"}, label="revoke")
    if word in ("pause", "resume"):
        paused = word == "pause"
        if bool(room.get("paused")) == paused:
            return Parsed(error=tr("The table is already paused.") if paused
                          else tr("The table is not paused."))
        return Parsed(request={"action": "host_pause", "paused": paused}, label=word)
    if word == "close":
        return Parsed(request={"action": "host_close"}, label="close")
    if word == "invite":
        if arg is None or not _PLAYER.match(arg):
            return Parsed(error=tr("Type `invite PLAYER` with the player's id."))
        return Parsed(request={"action": "invite", "player_id": arg}, label=f"invite {arg}")
    if word == "kick":
        target = _player_of(view, arg)
        if target is None:
            return Parsed(error=tr("Type `kick PLAYER` with a seated player's name or seat."))
        if target == me:
            return Parsed(error=tr("You cannot remove yourself: `leave`."))
        return Parsed(request={"action": "host_remove", "player_id": target},
                      label=f"kick {target}")
    if word == "bot":
        if not settings.get("bots"):
            return Parsed(error=tr("Bots are off at this table (it was created without them)."))
        amount = _amount(arg)
        if (args and amount is None) or len(args) > 1:
            return Parsed(error=tr("Type `bot` or `bot N` with N the BOT's buy-in."))
        request: dict[str, Any] = {"action": "host_add_bot"}
        if amount is not None:
            request["buy_in"] = amount
        return Parsed(request=request, label="bot")
    return _settings_command(word, arg if len(args) == 1 else None)


def _settings_command(word: str, arg: str | None) -> Parsed:
    """``blinds S/B``, ``clock N``, ``minplayers N``: ``host_settings``."""
    if word == "blinds":
        blinds = _blinds(arg or "")
        if blinds is None:
            return Parsed(error=tr("Type `blinds S/B`, e.g. `blinds 2/4` (small at most big)."))
        return Parsed(request={"action": "host_settings", "small_blind": blinds[0],
                               "big_blind": blinds[1]}, label=f"blinds {blinds[0]}/{blinds[1]}")
    value = _amount(arg)
    if word == "clock":
        if value is None or not 5 <= value <= 120:
            return Parsed(error=tr("Type `clock N` with N the decision clock in seconds (5-120)."))
        return Parsed(request={"action": "host_settings", "decision_seconds": value},
                      label=f"clock {value}")
    if value is None or not 2 <= value <= 10:
        return Parsed(error=tr("Type `minplayers N` with N the players needed to start (2-10)."))
    return Parsed(request={"action": "host_settings", "min_players": value},
                  label=f"minplayers {value}")


def _player_of(view: dict[str, Any], text: str | None) -> str | None:
    """A seated player named by *text*: a seat number or a player id (any case)."""
    if text is None:
        return None
    seats = [s for s in view.get("seats") or [] if s]
    if text.isdigit():
        return next((str(s["player_id"]) for s in seats if s["seat_index"] == int(text)), None)
    return next((str(s["player_id"]) for s in seats
                 if str(s["player_id"]).lower() == text.lower()), None)


_KEYS = {"fold": "f", "check": "x", "call": "c", "bet": "b N", "raise_to": "r N", "all_in": "a"}


def _betting_command(word: str, arg: str | None, view: dict[str, Any],
                     prompt: dict[str, Any]) -> Parsed:
    actions = list(prompt.get("actions") or [])
    allowed = ", ".join(_KEYS.get(a, a) for a in actions)
    if word in ("fold", "check", "call", "all_in"):
        if arg is not None:
            return Parsed(error=tr("`{command}` takes no amount.", command=word))
        if word not in actions:
            cannot = {"fold": tr("You cannot fold now: the prompt allows {allowed}.",
                                 allowed=allowed),
                      "check": tr("You cannot check now: the prompt allows {allowed}.",
                                  allowed=allowed),
                      "call": tr("You cannot call now: the prompt allows {allowed}.",
                                 allowed=allowed),
                      "all_in": tr("You cannot go all-in now: the prompt allows {allowed}.",
                                   allowed=allowed)}
            return Parsed(error=cannot[word])
        label = f"call {prompt.get('to_call')}" if word == "call" else word.replace("_", "-")
        return Parsed(request={"action": "act", "move": word}, label=label)
    # bet / raise: whichever of the two the prompt allows (the amount is the total "to").
    move = "raise_to" if "raise_to" in actions else "bet" if "bet" in actions else None
    amount = _amount(arg)
    if amount is None:
        return Parsed(error=tr("Type `{command} N` with N the total of your bet (chips).",
                               command=word[0]))
    me = my_seat(view) or {}
    all_in_to = int(me.get("stack") or 0) + int(me.get("bet") or 0)
    if amount == all_in_to and "all_in" in actions:
        return Parsed(request={"action": "act", "move": "all_in"}, label="all-in")
    if move is None:
        return Parsed(error=tr("You cannot bet or raise now (all-in is possible: `a`): the "
                               "prompt allows {allowed}.", allowed=allowed)
                      if "all_in" in actions
                      else tr("You cannot bet or raise now: the prompt allows {allowed}.",
                              allowed=allowed))
    lo, hi = prompt.get("min_raise_to"), prompt.get("max_raise_to")
    raising = move == "raise_to"
    if lo is not None and amount < lo:
        return Parsed(error=tr("The smallest raise is to {amount} (only an all-in may be "
                               "smaller: `a`).", amount=lo) if raising
                      else tr("The smallest bet is {amount} (only an all-in may be smaller: "
                              "`a`).", amount=lo))
    if hi is not None and amount > hi:
        return Parsed(error=tr("The largest raise is to {amount}.", amount=hi) if raising
                      else tr("The largest bet is {amount}.", amount=hi))
    label = tr("raise to {amount}", amount=amount) if raising else f"bet {amount}"
    return Parsed(request={"action": "act", "move": move, "amount": amount}, label=label)


def _power_command(word: str, arg: str | None, view: dict[str, Any],
                   prompt: dict[str, Any]) -> Parsed:
    power = {"peek": "peek", "swap": "sleeve_swap", "anchor": "short_anchor"}[word]
    listed = power in (prompt.get("powers") or [])
    if not listed:
        why = _why_not(view, power)
        if why is not None:
            return Parsed(error=tr("{power} is not available: {why}.", power=power_name(power),
                                   why=why))
    request: dict[str, Any] = {"action": "use_power", "power": power}
    label = power_name(power)
    if power == "peek" and arg is not None:
        return Parsed(error=tr("`{command}` takes nothing.", command="peek"))
    if power == "sleeve_swap":
        if arg not in ("1", "2"):
            return Parsed(error=tr("Type `swap 1` or `swap 2`: the hole card to throw away."))
        request["card_index"] = int(arg) - 1
        label = tr("{power} card {card}", power=label, card=arg)
    if power == "short_anchor":
        targets = [int(t) for t in prompt.get("anchor_targets") or []]
        target = _seat_of(view, arg)
        if target is not None and target not in targets \
                and (listed or _target_shown(view, target)):
            return Parsed(error=tr("Seat {seat} cannot be anchored now: {why}.", seat=target,
                                   why=_why_not_target(view, target)))
        if target is None:
            return Parsed(error=tr("Type `anchor S` with S one of the seats {seats}.",
                                   seats=", ".join(map(str, targets)) or tr("(none)")))
        request["target_seat"] = target
        label = tr("{power} on seat {seat}", power=label, seat=target)
    return Parsed(request=request, label=label)


def _seat_of(view: dict[str, Any], text: str | None) -> int | None:
    if text is None:
        return None
    if text.isdigit():
        return int(text)
    for seat in view.get("seats") or []:
        if seat and str(seat.get("player_id", "")).lower() == text:
            return int(seat["seat_index"])
    return None


def _why_not(view: dict[str, Any], power: str) -> str | None:
    """Why the prompt does not list *power*, when the view shows it; ``None`` when it does not
    (a power already used this turn, R5.5, or every target having acted, R6.3): the request
    then goes to the server, whose refusal names the cause."""
    hand = view.get("hand") or {}
    powers = hand.get("powers")
    if (view.get("config") or {}).get("variant") != "NAIKO" or powers is None:
        return tr("powers exist only at Naiko tables")
    if power not in (powers.get("carousel") or []):
        return tr("it is not in this hand's Carousel")
    if power in (powers.get("used") or {}).get(str(view.get("seat_index")), []):
        return tr("you already used it this hand")
    me = my_seat(view) or {}
    if int(me.get("destellos") or 0) < POWER_COSTS.get(power, 0):
        return tr("it costs {cost} destellos, you have {have}", cost=POWER_COSTS[power],
                  have=me.get("destellos", 0))
    if int(powers.get("round_activations") or 0) >= 3:
        return tr("the table already used 3 powers this round")
    if power == "peek" and hand.get("street") == "river":
        return tr("there is no card left to peek at")
    if power == "sleeve_swap" and hand.get("street") != "preflop":
        return tr("Sleeve Swap is preflop only")
    if power == "sleeve_swap" and int(me.get("bet") or 0) > 0 and not me.get("owes_big"):
        return tr("Sleeve Swap comes before your first betting action (R6.2)")
    return None  # the view cannot tell (one power per turn, a target who acted): ask


def _target_shown(view: dict[str, Any], target: int) -> bool:
    """Whether the view itself shows why *target* cannot be anchored (not "has acted")."""
    return _target_problem(view, target) != "acted"


def _target_problem(view: dict[str, Any], target: int) -> str:
    """Why *target* is not among the prompt's ``anchor_targets`` (R6.3), as the view shows it:
    ``out`` (not in the hand), ``self``, ``all_in``, ``anchored`` or ``acted`` (the view
    cannot tell that one from the rest: the server's own refusal names the cause too)."""
    seats = view.get("seats") or []
    seat = seats[target] if 0 <= target < len(seats) else None
    anchors = (((view.get("hand") or {}).get("powers") or {}).get("anchors") or {})
    if seat is None or not seat.get("in_hand") or seat.get("folded"):
        return "out"
    if target == view.get("seat_index"):
        return "self"
    if seat.get("all_in") or not seat.get("stack"):
        return "all_in"
    return "anchored" if str(target) in anchors else "acted"


def _why_not_target(view: dict[str, Any], target: int) -> str:
    """:func:`_target_problem` in words."""
    problem = _target_problem(view, target)
    seats = view.get("seats") or []
    seat = seats[target] if 0 <= target < len(seats) else None
    name = shown_name(str((seat or {}).get("player_id")))
    if problem == "out":
        return tr("that seat is not in the hand")
    if problem == "self":
        return tr("you cannot anchor yourself")
    if problem == "all_in":
        return tr("{name} is all-in", name=name)
    if problem == "anchored":
        return tr("{name} already received a Short Anchor this round (R6.3)", name=name)
    return tr("{name} has already acted this betting round (R6.3)", name=name)


def _window_command(word: str, view: dict[str, Any]) -> Parsed:
    seat = view.get("seat_index")
    if open_window_for(view, seat) is None:
        return Parsed(error=tr("No Short Anchor is aimed at you right now."))
    if word == "pass":
        return Parsed(request={"action": "pass_window"}, label="pass")
    if not ((view.get("hand") or {}).get("powers") or {}).get("can_shield"):
        return Parsed(error=tr("You cannot shield (Seal Shield is not in the Carousel, used, "
                               "or you have no destello): `pass`."))
    return Parsed(request={"action": "shield"}, label=power_name("seal_shield"))


def shown_label(label: str) -> str:
    """A request as the status line names it (``label`` of :class:`Parsed`, or the client's
    own requests), in the client's language: mostly what was typed.

    >>> shown_label("join with 500"), shown_label("watch"), shown_label("call 10")
    ('join with 500', 'watch', 'call 10')
    """
    if label.startswith("join with "):
        return tr("join with {amount}", amount=label[10:])
    own = {"watch": tr("watch"), "tables": tr("tables"), "refresh": tr("refresh"),
           "catch up": tr("catch up"), "more tournaments": tr("more tournaments")}
    return own.get(label, label)


def report_line(report: Report) -> str:
    """:meth:`naiko.verify.Report.line` in the client's language (the problems found stay
    as the verifier words them: they name cards and positions)."""
    if report.ok:
        return tr("{hand}: verified, {n} card(s) at their committed positions",
                  hand=report.hand, n=report.proved)
    if not report.problems:
        return tr("{hand}: nothing to verify (no card proved)", hand=report.hand)
    return tr("{hand}: FAILED: {problems}", hand=report.hand, problems="; ".join(report.problems))


def default_buy_in(settings: dict[str, Any], big_blind: int | None) -> int:
    """100 big blinds, kept inside the table's buy-in range.

    >>> default_buy_in({"min_buy_in": 200, "max_buy_in": 1000}, 5)
    500
    >>> default_buy_in({"min_buy_in": 200, "max_buy_in": 1000}, 50)
    1000
    """
    lo = int(settings.get("min_buy_in") or 1)
    hi = int(settings.get("max_buy_in") or lo)
    return min(hi, max(lo, 100 * int(big_blind or 0)))


def with_language(url: str, lang: str) -> str:
    """*url* asking the server for its texts in *lang* (``?lang=``, docs/protocol.md
    "Languages"); English, the server's default, adds nothing.

    >>> with_language("ws://127.0.0.1:8000/", "pl"), with_language("ws://h/?lang=ro", "pt")
    ('ws://127.0.0.1:8000/?lang=pl', 'ws://h/?lang=pt')
    >>> with_language("ws://127.0.0.1:8000/", "en")
    'ws://127.0.0.1:8000/'
    """
    if lang == "en":
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "lang"] + [("lang", lang)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_token(url: str, token: str) -> str:
    """*url* with ``token`` added to its query string.

    >>> with_token("ws://127.0.0.1:8000/?a=1", "p 1")
    'ws://127.0.0.1:8000/?a=1&token=p+1'
    >>> with_token("ws://localhost:8000", "alice")
    'ws://localhost:8000?token=alice'
    """
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "token"] + [("token", token)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def token_subject(token: str) -> str | None:
    """The player id a token names, for display only (the server verifies it): the ``sub`` of
    a ``v1.PAYLOAD.SIG`` token or a JWT, or a bare id used as the token by a local test server.

    >>> token_subject("v1.eyJzdWIiOiJhbGljZSIsImlhdCI6MTcwMDAwMDAwMH0.sig")
    'alice'
    >>> token_subject("bob"), token_subject("a b")
    ('bob', None)
    """
    parts = token.split(".")
    if len(parts) == 3:
        try:
            payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        except ValueError:
            return None
        sub = payload.get("sub") if isinstance(payload, dict) else None
        return sub if isinstance(sub, str) else None
    return token if re.fullmatch(r"[A-Za-z0-9_.@-]{1,64}", token) else None


# -- the client ------------------------------------------------------------------------------


class Client:
    """One player's session: the connection, the table it shows, the keyboard."""

    def __init__(self, url: str, token: str, *, table_id: str | None = None,
                 buy_in: int | None = None, out: TextIO | None = None, in_fd: int | None = None,
                 color: bool = False, pick: bool = True, player_id: str | None = None,
                 keepalive: KeepAlive | None = None):
        self.url = with_token(url, token)
        self.player_id = player_id
        self.table_id = table_id
        self.buy_in = buy_in
        self.out = out or sys.stdout
        self.in_fd = sys.stdin.fileno() if in_fd is None else in_fd
        self.color = color
        self.pick = pick  # several open tables and no --table: let the person choose
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.tables: list[dict[str, Any]] | None = None
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.narrator = Narrator(player_id)
        self.status = ""
        self.status_is_error = False
        self.input = ""
        self.show_help = False
        self.connection = tr("connecting")
        self.pending: dict[str, str] = {}
        self.auto_join = True
        self.offset_ms = 0
        self.offer_until: int | None = None
        """A seat is held for you until then (``seat_offered``, R7.10)."""
        self.invite_code: str | None = None
        """The invite code of the private table shown (``find``): sent with ``join``."""
        self.tournament_list: list[dict[str, Any]] | None = None
        """The tournaments of the last ``tournaments`` (``list_tournaments``)."""
        self.tournament_shown: dict[str, Any] | None = None
        """The tournament of the last ``tournament N`` (``get_tournament``)."""
        self.ws: Any = None
        self.quitting = False
        self.fatal: str | None = None
        self._quit = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._escape = ""
        self._ever_connected = False
        self.deck_root: str | None = None
        """The commitment of the hand shown (R10.2), and its proofs checked so far."""
        self.deck_proved = 0
        self.deck_failed = 0
        self.keepalive = keepalive or KeepAlive()
        self.last_sent = time.monotonic()
        self.refreshes = 0
        """Connections closed and reopened before API Gateway's 2 hours."""

    # -- time and screen ---------------------------------------------------------------------

    def now_ms(self) -> int:
        """Now on the server's clock (the local clock, corrected when it is clearly off)."""
        return int(time.time() * 1000) + self.offset_ms

    def screen(self, width: int = 80, height: int = 30) -> list[str]:
        lobby = self.tables is not None or self.tournament_list is not None
        if self.view is None and lobby and self.table_id is None:
            return render_lobby(self.tables or [], player_id=self.player_id,
                                status=self.status, status_is_error=self.status_is_error,
                                input_text=self.input, connection=self.connection,
                                width=width, height=height, color=self.color,
                                tournaments=self.tournament_list,
                                tournament=self.tournament_shown)
        return render(self.view, now_ms=self.now_ms(), player_id=self.player_id,
                      log=list(self.log), status=self.status,
                      status_is_error=self.status_is_error, input_text=self.input,
                      connection=self.connection, show_help=self.show_help, width=width,
                      height=height, color=self.color, version=self.version,
                      offer_until_ms=self.offer_until)

    def redraw(self) -> None:
        try:
            size = os.get_terminal_size(self.out.fileno())
            width, height = size.columns, size.lines
        except (OSError, ValueError, AttributeError):
            width, height = 100, 32
        width, height = max(width, 40), max(height, 12)
        lines = self.screen(width, height)
        frame = "\x1b[H" + "\r\n".join(line + "\x1b[K" for line in lines) + "\x1b[J"
        frame += f"\x1b[{len(lines)};{min(len(self.input) + 3, width)}H"
        try:
            self.out.write(frame)
            self.out.flush()
        except (OSError, ValueError):
            pass

    def notice(self, text: str, error: bool = False) -> None:
        self.status, self.status_is_error = text, error

    # -- sending -----------------------------------------------------------------------------

    def send(self, request: dict[str, Any], label: str) -> None:
        """Send *request* (a table request gets the table id) with a fresh ``request_id``."""
        if self.ws is None:
            self.notice(tr("Not connected: try again when the connection is back."), error=True)
            return
        request_id = uuid.uuid4().hex
        frame = dict(request, request_id=request_id)
        if request["action"] not in _NOT_AT_A_TABLE:
            frame["table_id"] = self.table_id
        self.pending[request_id] = label
        self._spawn(self._send_frame(json.dumps(frame)))

    async def _send_frame(self, text: str) -> None:
        ws = self.ws
        if ws is None:
            return
        with contextlib.suppress(Exception):  # a closed socket: the reconnect loop handles it
            await ws.send(text)
            self.last_sent = time.monotonic()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the keyboard ------------------------------------------------------------------------

    def on_keys(self, text: str) -> None:
        for ch in text:
            if self._escape:  # swallow escape sequences (arrows, function keys)
                self._escape += ch
                if len(self._escape) == 2 and ch not in "[O":
                    self._escape = ""
                elif len(self._escape) > 2 and "\x40" <= ch <= "\x7e":
                    self._escape = ""
                continue
            if ch == "\x1b":
                self._escape = ch
            elif ch in "\r\n":
                line, self.input = self.input, ""
                self.submit(line)
            elif ch in "\x7f\x08":
                self.input = self.input[:-1]
            elif ch == "\x15":
                self.input = ""
            elif ch in "\x03\x04":
                self.quit()
            elif ch.isprintable() and len(self.input) < 200:
                self.input += ch
        self.redraw()

    def submit(self, line: str) -> None:
        if self.view is None and self.table_id is None:
            self._lobby_command(line.strip())
            return
        parsed = parse_command(line, self.view, player_id=self.player_id,
                               offer=self.offer_until is not None,
                               tournaments=self.tournament_list or (),
                               tournament=self.tournament_shown)
        if parsed.error:
            self.notice(parsed.error, error=True)
        elif parsed.local == "quit":
            self.quit()
        elif parsed.local == "help":
            self.show_help = not self.show_help
        elif parsed.local == "join":
            self.join(parsed.amount, parsed.entry)
        elif parsed.request is not None:
            self.notice("")
            self.send(parsed.request, parsed.label)

    def _lobby_command(self, typed: str) -> None:
        line = typed.lower()
        word = line.split()[0] if line.split() else ""
        if line in ("q", "quit", "exit"):
            self.quit()
        elif line in ("r", "refresh"):
            self.send({"action": "list_tables"}, "refresh")
        elif line == "" or line.isdigit():
            tables = self.tables or []
            number = int(line or 1)
            if 1 <= number <= len(tables):
                self.choose(tables[number - 1])
            else:
                self.notice(tr("Pick a table between 1 and {n}.", n=len(tables)), error=True)
        elif word in ("quick", "find", "account", "tournaments", "tourneys", "tournament",
                      "tourney", "register", "reg", "unregister", "unreg", "history", "hist",
                      "hands"):
            parsed = parse_command(typed, None, player_id=self.player_id,
                                   tournaments=self.tournament_list or (),
                                   tournament=self.tournament_shown)
            if parsed.error or parsed.request is None:
                self.notice(parsed.error or "", error=True)
            else:
                self.send(parsed.request, parsed.label)
        else:
            self.notice(tr("Type a table's number, `r`, `q`, `quick NLHE 1/2 200`, `find "
                           "CODE`, `account`, `tournaments` or `register N`."), error=True)

    def quit(self) -> None:
        self.quitting = True
        self._quit.set()
        if self.ws is not None:
            self._spawn(self.ws.close())

    # -- the table ---------------------------------------------------------------------------

    def choose(self, table: dict[str, Any]) -> None:
        self.table_id = str(table["table_id"])
        if self.buy_in is None:
            self.buy_in = default_buy_in(table, table.get("big_blind"))
        self.notice(tr("Opening {table}...", table=table.get("name", self.table_id)))
        self.send({"action": "snapshot"}, "watch")

    def join(self, amount: int | None = None, entry: str | None = None) -> None:
        view = self.view or {}
        if view.get("seat_index") is not None:
            self.notice(tr("You already have a seat here."), error=True)
            return
        if is_tournament(view):
            self.notice(tr("This is a tournament's table: its seats are the tournament's."),
                        error=True)
            return
        required = view.get("required_buy_in")  # R7.11: what a deep-stack table requires
        buy_in = amount or (required and int(required["min"])) or self.buy_in or default_buy_in(
            view.get("settings") or {}, (view.get("config") or {}).get("big_blind"))
        request: dict[str, Any] = {"action": "join_table", "buy_in": buy_in}
        if entry:
            request["entry"] = entry
        if self.invite_code:
            request["invite_code"] = self.invite_code
        self.send(request, f"join with {buy_in}")

    def switch_table(self, table_id: str, *, watch: bool) -> None:
        """Show another table (quick seat, an invite code); *watch*: ask for its snapshot
        (a quick seat's table sends its ``update`` by itself)."""
        if table_id != self.table_id:
            self.view, self.version, self.offer_until = None, 0, None
            self.log.clear()
        self.table_id = table_id
        self.auto_join = False
        if watch:
            request: dict[str, Any] = {"action": "snapshot"}
            if self.invite_code:
                request["invite_code"] = self.invite_code
            self.send(request, "watch")

    def on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        label = self.pending.pop(str(message.get("request_id")), None)
        if kind == "tables":
            self._on_tables(list(message.get("tables") or []))
        elif kind == "snapshot":
            if message.get("table_id") == self.table_id:
                self._apply(message, [])
                if self.auto_join and (self.view or {}).get("seat_index") is None \
                        and not is_tournament(self.view):
                    self.join()
                self.auto_join = False
        elif kind == "update":
            if label is not None:  # it answers our request: what its ack would have said
                self._on_ack(message, label)
            if message.get("table_id") == self.table_id:
                self._apply(message, list(message.get("events") or []))
            else:
                self._on_other_table(message)
        elif kind == "ack":
            self._on_ack(message, label)
        elif kind == "account":
            self.notice(tr("Account: balance {balance}, open tables {tables}, ratholes today "
                           "{ratholes} ({day}, UTC).", balance=message.get("balance"),
                           tables=message.get("open_tables"),
                           ratholes=message.get("ratholes_today"), day=message.get("day")))
        elif kind == "invite_code":
            code = message.get("code")
            if message.get("table_id") == self.table_id and self.view is not None:
                self.view.setdefault("room", {})["invite_code"] = code  # as the host sees it
            self.notice(tr("Invite code {code}: whoever brings it may watch and sit (`revoke` "
                           "to cancel it).", code=code))
        elif kind == "tournaments":
            more = label == "more tournaments"
            listed = ((self.tournament_list or []) if more else []) + list(
                message.get("tournaments") or [])
            if message.get("next") and len(listed) < MAX_TOURNAMENTS_LISTED:
                self.send({"action": "list_tournaments", "cursor": message["next"]},
                          "more tournaments")  # follow the pages (docs/protocol.md "Pages")
            self._on_tournaments(listed)
        elif kind == "tournament":
            self._on_tournament(dict(message.get("tournament") or {}))
        elif kind in ("tournament_players", "tournament_results"):
            self._on_tournament_page(message)
        elif kind == "table_found":
            self.invite_code = label[5:] if label and label.startswith("find ") else None
            self.switch_table(str(message.get("table_id")), watch=True)
            self.notice(tr("Table found: you watch it; `join` to sit down (your invite code "
                           "goes with it)."))
        elif kind == "hands":
            self._on_hands(list(message.get("hands") or []))
        elif kind == "hand":
            self._on_hand(dict(message.get("hand") or {}))
        elif kind == "chat":  # R8.9
            if message.get("table_id") == self.table_id:
                self.log.append(chat_line(message, self.player_id))
                self.redraw()
        elif kind == "error":
            self._on_error(message, label)

    # -- hand histories (R10.1) and the committed deck (R10.2) ----------------------------------

    def _on_hands(self, hands: list[dict[str, Any]]) -> None:
        """``history``: one line per hand, newest first."""
        self.log.append(tr("Your last {n} hand(s) (`history N` shows hand N here):",
                           n=len(hands)))
        for h in hands:
            when = time.strftime("%H:%M", time.gmtime(int(h.get("ended_ms") or 0) / 1000))
            net = int(h.get("net") or 0)
            note = (" " + tr("(cancelled: {why})", why=cancel_reason(str(h["cancelled"])))
                    if h.get("cancelled") else "")
            self.log.append(f"  #{h.get('hand_number')} {h.get('table_name')} "
                            f"[{h.get('table_id')}] {h.get('variant')} {when} UTC "
                            f"{net:+d}{note}")
        self.notice(tr("{n} hand(s) in your history.", n=len(hands)) if hands
                    else tr("No hands in your history yet."))

    def _on_hand(self, hand: dict[str, Any]) -> None:
        """``history N``: the hand as you saw it, then its check against the deck committed
        before its first card (the same check as ``naiko-verify``)."""
        self.log.append(tr("--- History of hand #{hand} ({table}) ---",
                           hand=hand.get("hand_number"), table=hand.get("table_name")))
        self.log.extend(Narrator(self.player_id).narrate(list(hand.get("events") or []), hand))
        report = check_hand(hand)
        line = report_line(report)
        self.log.append(tr("Deck check: {report}", report=line) if report.ok
                        else tr("Deck check FAILED: {report}", report=line))
        self.notice(line, error=not report.ok)

    def _check_proofs(self, message: dict[str, Any], lines: list[str]) -> None:
        """R10.2: check every card proof that arrives against the hand's commitment, and say
        so on screen: ``✓ proved 4c@4 8s@5`` at the end of the line that shows those cards
        (*lines*, the message's sentences; a line of its own when none does), and a failed
        proof as an error on the status line."""
        hand = (self.view or {}).get("hand") or {}
        root = hand.get("commitment")
        if root and root != self.deck_root:
            self.deck_root, self.deck_proved, self.deck_failed = root, 0, 0
        proofs = message.get("proofs") or (hand.get("proofs")
                                           if message.get("type") == "snapshot" else None)
        if not proofs:
            return
        good: list[str] = []
        for raw in proofs:
            try:
                proof = CardProof.from_dict(raw)
            except MalformedProof:
                proof = None
            if root and proof is not None and verify_proof(root, proof):
                good.append(f"{raw['card']}@{proof.position}")
            else:
                self.deck_failed += 1
                self.notice(tr("Card proof FAILED for {card}: it is not in the deck committed "
                               "before the deal (R10.2).", card=repr(raw.get("card"))),
                            error=True)
        self.deck_proved += len(good)
        if not good:
            return
        cards = [g.split("@")[0] for g in good]
        for index in range(len(lines) - 1, -1, -1):
            if any(card in lines[index] for card in cards):
                lines[index] += "  ✓ " + tr("proved {cards}", cards=" ".join(good))
                return
        lines.append("✓ " + tr("proved against the commitment: {cards}", cards=" ".join(good)))

    def _on_ack(self, message: dict[str, Any], label: str | None) -> None:
        """A request applied: its ``ack``, or the ``update`` carrying its ``request_id`` (the
        answer when an update goes to this connection anyway; handled before the update is
        applied, as the ``ack`` was)."""
        label = label or ""
        if label.startswith("join"):
            self.offer_until = None
            self.notice(tr("You sit down (with {amount}).", amount=label.rpartition(" ")[2]))
        elif label == "leave":
            self.notice(tr("You leave the table (your stack goes back to your account); "
                           "`join` to sit again, `q` to quit."))
        elif label in ("sitout", "sitin"):
            self.notice(tr("You sit out from the next hand.") if label == "sitout"
                        else tr("You come back from the next hand (owing blinds if the big "
                                "blind went past you)."))
        elif label.startswith("add "):
            self.notice(tr("Chips added ({amount}).", amount=label[4:]))
        elif label in ("post", "wait"):
            self.notice(tr("You will post to be dealt in at the next hand.") if label == "post"
                        else tr("You will wait for the big blind."))
        elif label == "waitlist":
            self.notice(tr("You are on the waiting list: a freed seat is held for the first "
                           "in line for 30 seconds."))
        elif label == "unwait":
            self.offer_until = None
            self.notice(tr("You left the waiting list."))
        elif label.startswith("quick "):
            self.switch_table(str(message.get("table_id")), watch=False)
            self.notice(tr("Quick seat ({game}): you sit at table {table}.", game=label[6:],
                           table=message.get("table_id")))
        elif label == "revoke":
            if self.view is not None:
                self.view.setdefault("room", {})["invite_code"] = None
            self.notice(tr("The invite code no longer works (players it let in stay "
                           "invited)."))
        elif label.startswith(("mute ", "unmute ")):  # R8.9
            word, _, player = label.partition(" ")
            self.notice(tr("You no longer receive {player}'s chat.", player=player)
                        if word == "mute" else tr("You receive {player}'s chat again.",
                                                  player=player))
        elif label.startswith(("invite ", "kick ", "blinds ", "clock ", "minplayers ")) or \
                label in ("bot", "pause", "resume", "close"):
            self.notice(tr("Done: {command}.", command=label))
        elif label.startswith("register "):
            tournament_id = label[9:]
            started = (self.view or {}).get("tournament") or {}
            if started.get("tournament_id") == tournament_id:
                return  # the registration filled it: its table shows already
            self.notice(tr("You are registered for {name}: the entry is paid. Its table shows "
                           "here when it starts (`unregister` until then).",
                           name=self._tournament_name(tournament_id)))
        elif label.startswith("pre "):
            self._on_pre_action(label)
        elif label.startswith("unregister "):
            self.notice(tr("You are no longer registered for {name}: the entry is back on "
                           "your account.", name=self._tournament_name(label[11:])))

    def _on_pre_action(self, label: str) -> None:
        """R8.8: the server keeps the pre-action (or dropped it, ``pre off``); nobody else is
        told, so no update shows it: the view the client keeps does, until the next one."""
        parts = label.split()
        if parts[1] == "off":
            pre = None
            self.notice(tr("Pre-action cleared."))
        else:
            pre = {"kind": parts[1], "amount": int(parts[2]) if len(parts) > 2 else None}
            self.notice(tr("Pre-action queued: {pre} (`pre off` to clear).",
                           pre=pre_action_text(pre)))
        if self.view is not None:
            self.view["pre_action"] = pre

    def _on_error(self, message: dict[str, Any], label: str | None) -> None:
        code, text = message.get("code"), message.get("message")
        what = tr("`{request}` refused", request=shown_label(label)) if label else tr("Error")
        hint = " " + tr("Type `waitlist` to queue for a seat.") if code == "table_full" else ""
        self.notice(f"{what}: {text} ({code}){hint}", error=True)
        if code == "unknown_table" and label == "watch":
            self.table_id, self.view, self.version = None, None, 0
            self.send({"action": "list_tables"}, "tables")

    def _tournament_name(self, tournament_id: str) -> str:
        known = [self.tournament_shown or {}, *(self.tournament_list or [])]
        return next((str(t["name"]) for t in known
                     if t.get("tournament_id") == tournament_id and t.get("name")),
                    tournament_id)

    def _on_tournaments(self, tournaments: list[dict[str, Any]]) -> None:
        """``list_tournaments``: the lobby shows them; at a table, the log does."""
        self.tournament_list = tournaments
        if self.view is not None:
            self.log.extend(text for text, _ in tournament_list_lines(tournaments))
        self.notice(tr("1 tournament: `tournament N` to see one, `register N` to enter.")
                    if len(tournaments) == 1
                    else tr("{n} tournaments: `tournament N` to see one, `register N` to enter.",
                            n=len(tournaments)))

    def _on_tournament(self, tournament: dict[str, Any]) -> None:
        """``get_tournament``: the lobby shows it; at a table, the log does. Its players and
        places are lists of their own: their first pages are asked for at once
        (:data:`TOURNAMENT_PAGE` rows each; more is said to follow when there is more)."""
        self.tournament_shown = tournament
        if self.view is not None:
            self.log.extend(text for text, _ in tournament_detail_lines(tournament))
        self.notice(tr("{name}: {status} ({entrants}/{max} players).",
                       name=tournament.get("name"),
                       status=tournament_status(tournament.get("status")),
                       entrants=tournament.get("entrants"), max=tournament.get("max_players")))
        tournament_id = tournament.get("tournament_id")
        if isinstance(tournament_id, str) and self.ws is not None:
            for action in ("tournament_players", "tournament_results"):
                self.send({"action": action, "tournament_id": tournament_id,
                           "limit": TOURNAMENT_PAGE}, action)

    def _on_tournament_page(self, message: dict[str, Any]) -> None:
        """A first page of the tournament shown's players or results: added to it (who
        registered, the places best first) with whether more pages follow."""
        shown = self.tournament_shown
        if shown is None or shown.get("tournament_id") != message.get("tournament_id"):
            return
        if message["type"] == "tournament_players":
            shown["registered"] = [str(p.get("player_id")) for p in message.get("players") or []]
            shown["registered_more"] = message.get("next") is not None
        else:
            shown["results"] = sorted(message.get("results") or [],
                                      key=lambda r: (int(r.get("place") or 0),
                                                     str(r.get("player_id"))))
            shown["results_more"] = message.get("next") is not None
        if self.view is not None:
            key = "registered" if message["type"] == "tournament_players" else "places"
            self.log.extend(text for text, _ in tournament_detail_lines(shown)
                            if text.lstrip().startswith(key))

    def _on_other_table(self, message: dict[str, Any]) -> None:
        """An update of a table not shown: a tournament you registered for started there
        (R9.2). Show it, unless you sit at the table shown (say where it is instead)."""
        events = list(message.get("events") or [])
        started = next((e for e in events if e.get("kind") == "tournament_started"), None)
        if started is None:
            return
        table_id = str(message.get("table_id"))
        if (self.view or {}).get("seat_index") is not None:
            self.notice(tr("Your tournament started at table {table} (`--table {table}` shows "
                           "it).", table=table_id))
            return
        self.switch_table(table_id, watch=False)
        self._apply(message, events)
        self.notice(tr("Your tournament starts: your seat is below; the first hand is dealt in "
                       "a few seconds."))

    def _on_tables(self, tables: list[dict[str, Any]]) -> None:
        self.tables = tables
        if self.table_id is not None:
            return
        free = [t for t in tables if int(t.get("seated", 0)) < int(t.get("seat_count", 0))]
        if len(free) == 1 or (free and not self.pick):
            self.choose(free[0])
        elif free:
            self.tables = free
            self.notice(tr("{n} open tables: pick one.", n=len(free)))

    def _apply(self, message: dict[str, Any], events: list[dict[str, Any]]) -> None:
        version = int(message.get("version") or 0)
        update = message.get("type") == "update"
        if version < self.version or (update and version == self.version):
            # older than what is shown (messages of concurrent writes may cross; a snapshot
            # read before the last update applied): ignored, a snapshot of the version shown
            # is shown again (as the web client, local/naiko_local/web/js/app.js)
            return
        gap = update and self.version and version > self.version + 1
        self.version = version
        view = message.get("view")
        if isinstance(view, dict):
            self.view = view
        for event in events:  # R7.10: told to the player offered the seat only
            if event.get("kind") == "seat_offered":
                self.offer_until = int(event.get("until_ms") or 0) or None
            elif event.get("kind") == "offer_expired":
                self.offer_until = None
        if (self.view or {}).get("seat_index") is not None:
            self.offer_until = None
        lines = self.narrator.narrate(events, self.view)
        self._check_proofs(message, lines)
        self.log.extend(lines)
        self._estimate_offset(events)
        if gap:
            self.send({"action": "snapshot"}, "catch up")

    def _estimate_offset(self, events: list[dict[str, Any]]) -> None:
        """A turn just started: its deadline is the server's now plus the decision clock. If the
        local clock is clearly off (more than 1.5 s), countdowns correct for it."""
        view = self.view or {}
        hand = view.get("hand") or {}
        deadline = hand.get("actor_deadline_ms")
        decision = (view.get("settings") or {}).get("decision_ms")
        kinds = {e.get("kind") for e in events}
        if "turn" not in kinds or "reconnect_grace" in kinds or not deadline or not decision:
            return
        offset = int(deadline) - int(decision) - int(time.time() * 1000)
        self.offset_ms = offset if abs(offset) > 1500 else 0

    # -- the connection ----------------------------------------------------------------------

    async def connection_loop(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus, WebSocketException

        attempt = 0
        while not self.quitting:
            refreshing = False

            def refresh() -> None:
                nonlocal refreshing
                refreshing = True

            try:
                async with connect(self.url, open_timeout=10, max_size=2**21,
                                   ping_interval=20) as ws:
                    self.ws = ws
                    attempt = 0
                    self._on_open()
                    self.redraw()
                    keeper = asyncio.get_running_loop().create_task(
                        keep_alive(ws, self.keepalive, lambda: self.last_sent,
                                   on_refresh=refresh))
                    try:
                        async for raw in ws:
                            try:
                                message = json.loads(raw)
                            except ValueError:
                                continue
                            if isinstance(message, dict):
                                self.on_message(message)
                                self.redraw()
                    finally:
                        keeper.cancel()
                if refreshing and not self.quitting:  # our own close, before the 2 hours
                    self.ws = None
                    self.refreshes += 1
                    self.connection = tr("reconnecting")
                    if any(label not in ("watch", "tables", "catch up")
                           for label in self.pending.values()):
                        self._on_lost(tr("renewed before the 2-hour limit"))  # name them
                    self.pending.clear()
                    continue
            except InvalidStatus as exc:
                status = exc.response.status_code
                if status in (401, 403):
                    self.fatal = tr("The server refused the token (HTTP {status}).",
                                    status=status)
                    self.quit()
                    break
                reason = f"HTTP {status}"
            except (TimeoutError, OSError, WebSocketException) as exc:
                reason = str(exc) or type(exc).__name__
            else:
                reason = tr("closed by the server")
            self.ws = None
            if self.quitting:
                break
            self._on_lost(reason)
            delay = RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)]
            attempt += 1
            self.connection = tr("OFFLINE: reconnecting in {seconds}s", seconds=f"{delay:g}")
            self.redraw()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._quit.wait(), delay)
            self.connection = tr("reconnecting")
            self.redraw()

    def _on_open(self) -> None:
        again = self._ever_connected
        self._ever_connected = True
        self.connection = tr("online")
        if self.table_id is not None:
            self.send({"action": "snapshot"}, "watch")
            if again:
                self.notice(tr("Reconnected: the table shows the server's confirmed state."))
        else:
            self.send({"action": "list_tables"}, "tables")

    def _on_lost(self, reason: str) -> None:
        unanswered = [label for label in self.pending.values()
                      if label not in ("watch", "tables", "catch up")]
        self.pending.clear()
        text = tr("Connection lost ({reason}).", reason=reason)
        if unanswered:
            text += " " + tr("No answer came to {requests}: the table will show what the "
                             "server applied.",
                             requests=", ".join(shown_label(label) for label in unanswered))
        self.notice(text, error=True)

    async def ticker(self) -> None:
        """Redraw every second (countdowns); refresh an empty lobby now and then."""
        last_lobby = time.monotonic()
        while not self.quitting:
            await asyncio.sleep(1 - (time.time() % 1) + 0.01)
            if self.table_id is None and self.ws is not None and not self.tables \
                    and time.monotonic() - last_lobby > LOBBY_REFRESH_S:
                last_lobby = time.monotonic()
                self.send({"action": "list_tables"}, "tables")
            self.redraw()


# -- the terminal ----------------------------------------------------------------------------


class Terminal:
    """Puts a TTY in cbreak mode (keys arrive one by one, no echo: the client draws the
    command line itself) on the alternate screen, and restores it."""

    def __init__(self, in_fd: int, out: TextIO):
        self.in_fd, self.out = in_fd, out
        self.saved: Any = None

    def __enter__(self) -> Terminal:
        if os.isatty(self.in_fd):
            import termios
            import tty

            self.saved = termios.tcgetattr(self.in_fd)
            tty.setcbreak(self.in_fd)
        if self.out.isatty():
            self.out.write("\x1b[?1049h\x1b[H\x1b[2J")
            self.out.flush()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.out.isatty():
            self.out.write("\x1b[0m\x1b[?1049l")
            self.out.flush()
        if self.saved is not None:
            import termios

            termios.tcsetattr(self.in_fd, termios.TCSADRAIN, self.saved)


async def run(client: Client) -> int:
    loop = asyncio.get_running_loop()
    tty = os.isatty(client.in_fd)

    def feed(data: bytes) -> None:
        if data:
            client.on_keys(client._decoder.decode(data))
        elif tty:  # the terminal went away
            client.quit()
        # A pipe or file ended: keep showing the table (Ctrl-C or SIGTERM quits).

    def on_input() -> None:
        try:
            data = os.read(client.in_fd, 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(client.in_fd)
        feed(data)

    def read_in_thread() -> None:  # stdin that cannot be polled (a regular file, /dev/null)
        while True:
            try:
                data = os.read(client.in_fd, 4096)
            except OSError:
                data = b""
            with contextlib.suppress(RuntimeError):  # the loop is closed: we are done
                loop.call_soon_threadsafe(feed, data)
            if not data:
                return

    try:
        loop.add_reader(client.in_fd, on_input)
    except (OSError, ValueError):
        threading.Thread(target=read_in_thread, name="stdin", daemon=True).start()
    handlers: list[tuple[int, Callable[[], None]]] = [
        (signal.SIGINT, client.quit), (signal.SIGTERM, client.quit),
        (signal.SIGWINCH, client.redraw)]
    for signum, handler in handlers:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, handler)
    ticker = loop.create_task(client.ticker())
    client.redraw()
    try:
        await client.connection_loop()
    finally:
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker
        with contextlib.suppress(Exception):
            loop.remove_reader(client.in_fd)
    return 2 if client.fatal else 0


def language_of(environ: Mapping[str, str]) -> str:
    """The language without ``--lang``: the locale's, as POSIX picks it (the first of
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set), when it is one of the five; else
    English.

    >>> language_of({"LANG": "pt_BR.UTF-8"}), language_of({"LC_ALL": "C.UTF-8", "LANG": "pl_PL"})
    ('pt', 'en')
    >>> language_of({"LC_MESSAGES": "vi_VN", "LANG": "ro_RO.UTF-8"}), language_of({})
    ('vi', 'en')
    """
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return served(environ[name]) or "en"
    return "en"


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help with its ``usage:`` in the client's language."""

    def add_usage(self, usage: str | None, actions: Any, groups: Any,
                  prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, tr("usage: ") if prefix is None else prefix)


class _Parser(argparse.ArgumentParser):
    """argparse with its ``error:`` line in the client's language (argparse's own reasons,
    such as a missing argument, stay as argparse words them)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, tr("{prog}: error: {message}", prog=self.prog, message=message) + "\n")


def main(argv: list[str] | None = None) -> int:
    early = argparse.ArgumentParser(add_help=False)  # the language first: --help speaks it
    early.add_argument("--lang", choices=LANGUAGES)
    set_language(early.parse_known_args(argv)[0].lang or language_of(os.environ))
    parser = _Parser(
        prog="naiko-client", add_help=False, formatter_class=_HelpFormatter,
        description=tr("Play at a Naiko table from a terminal. Type `help` at the table for "
                       "the commands."))
    parser._positionals.title = tr("positional arguments")
    parser._optionals.title = tr("options")
    parser.add_argument("-h", "--help", action="help", help=tr("show this help and exit"))
    parser.add_argument("url", help=tr("the WebSocket URL, e.g. ws://127.0.0.1:8765"))
    parser.add_argument("token", help=tr("your token (sent as ?token=...)"))
    parser.add_argument("--table", help=tr("the table id (default: the first open table, or "
                                           "pick one when several are open)"))
    parser.add_argument("--buy-in", type=int, help=tr("chips to sit down with (default: 100 "
                                                      "big blinds within the table's range)"))
    parser.add_argument("--first", action="store_true",
                        help=tr("with several open tables, join the first without asking"))
    parser.add_argument("--no-color", action="store_true", help=tr("no ANSI colours"))
    parser.add_argument("--lang", choices=LANGUAGES,
                        help=tr("the client's and the server's texts in English, Polish, "
                                "Portuguese, Vietnamese or Romanian (default: the locale's, "
                                "LC_ALL, LC_MESSAGES or LANG, else English); the commands "
                                "stay the same"))
    args = parser.parse_args(argv)
    lang = set_language(args.lang or language_of(os.environ))
    if args.buy_in is not None and args.buy_in <= 0:
        parser.error(tr("--buy-in must be a positive number of chips"))
    out = sys.stdout
    in_fd = sys.stdin.fileno()
    color = (not args.no_color and out.isatty() and os.environ.get("TERM") != "dumb"
             and "NO_COLOR" not in os.environ)
    client = Client(with_language(args.url, lang), args.token, table_id=args.table,
                    buy_in=args.buy_in, out=out, in_fd=in_fd, color=color,
                    pick=not args.first and os.isatty(in_fd),
                    player_id=token_subject(args.token))
    with Terminal(in_fd, out):
        code = asyncio.run(run(client))
    if client.fatal:
        print(client.fatal, file=sys.stderr)
    elif client.table_id:
        seated = (client.view or {}).get("seat_index") is not None
        print(tr("Bye. Table {table}: your seat stays (the clock checks or folds for you); "
                 "reconnect with the same token and --table to play on, or `leave` to cash "
                 "out.", table=client.table_id) if seated
              else tr("Bye. Table {table}: you have no seat there.", table=client.table_id))
    return code


if __name__ == "__main__":
    sys.exit(main())
