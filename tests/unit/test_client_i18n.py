"""The terminal client's catalogues (naiko_client.i18n): five languages with the same keys and
parameters, every ``tr("…")`` the client looks up among them, ``--lang`` reaching the screen and
the server's URL."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import copy
import io
import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from naiko import cards, evaluator
from naiko.verify import Report
from naiko_client import i18n
from naiko_client.app import (
    _ALIASES,
    Client,
    main,
    parse_command,
    report_line,
    with_language,
)
from naiko_client.i18n_events import TEXTS as EVENT_TEXTS
from naiko_client.render import (
    HELP_HEADING,
    HELP_ROWS,
    POWER_KEYS,
    POWER_NAMES,
    RANK_NAMES,
    RANK_PLURALS,
    Narrator,
    hand_text,
    help_lines,
    power_name,
    render,
    render_lobby,
)

CLIENT = Path(__file__).resolve().parents[2] / "local" / "naiko_client"


def fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name)


def looked_up() -> set[str]:
    """The string literals passed to ``tr`` anywhere in the client (implicit concatenation
    included: the AST joins it)."""
    keys = set()
    for source in CLIENT.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text("utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "tr" and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                keys.add(node.args[0].value)
    return keys


@pytest.fixture
def polish() -> Iterator[None]:
    i18n.set_language("pl")
    yield
    i18n.set_language("en")


INDIRECT = {*POWER_NAMES.values(), HELP_HEADING,  # power_name(), help_lines()
            *(does for row in HELP_ROWS for _, does in row)}
"""The texts the client looks up through a table of its own rather than a literal ``tr``."""


def test_every_text_the_client_looks_up_is_in_the_english_catalogue() -> None:
    assert sorted(looked_up() - set(i18n.CATALOGUES["en"])) == []
    assert sorted(set(i18n.CATALOGUES["en"]) - looked_up() - INDIRECT) == []


NOT_READ = frozenset({
    "all-in", "sit-out", "sit-in", "min-players",  # command words (app._ALIASES)
    "you're", "you've", "you'll",  # render.SECOND_PERSON: names that read as "you"
    "join with ", "catch up", "more tournaments",  # request labels (shown_label(), or never)
    "naiko-client", "--buy-in", "--no-color",  # the program and its options
    "high card", "one pair", "two pair", "three of a kind", "four of a kind", "full house",
    "straight flush", "royal flush",  # the engine's words that hand_text() reads
    r"(?P<kind>[a-z ]+?)(?:, (?P<first>[A-Z][a-z]+)(?: high| and (?P<and>[A-Z][a-z]+)"
    r"| full of (?P<of>[A-Z][a-z]+))?)?",
})
"""String literals of the client with words in them that are not texts a person reads."""

TYPED_HERE = frozenset({*(command for row in HELP_ROWS for command, _ in row),
                        *POWER_KEYS.values()})
"""What the help and the prompt tell you to type (the same in every language)."""


def english_literals() -> list[str]:
    """String literals of render.py and app.py holding words (two, or one hyphenated) that
    are neither docstrings nor the English of ``tr("…")`` (f-strings' literal parts
    included)."""
    found = []
    for name in ("render.py", "app.py"):
        tree = ast.parse((CLIENT / name).read_text("utf-8"))
        skip = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef)):
                skip.update(id(st.value) for st in node.body
                            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "tr" and node.args):
                skip.add(id(node.args[0]))
        found.extend(f"{name}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str)
                     and id(node) not in skip and node.value not in NOT_READ | TYPED_HERE
                     and node.value not in i18n.CATALOGUES["en"]
                     and re.search(r"[A-Za-z]{2,}[ '-]+[A-Za-z]{2,}", node.value))
    return found


def test_no_english_literal_is_left_in_the_client() -> None:
    """Every text render.py and app.py show is looked up in the catalogues: a literal with
    words in it is a catalogue text read through a table (HELP_ROWS) or not read at all."""
    assert english_literals() == []


@pytest.mark.parametrize("lang", i18n.LANGUAGES[1:])
def test_every_language_has_the_english_keys_with_the_same_parameters(lang: str) -> None:
    english, other = i18n.CATALOGUES["en"], i18n.CATALOGUES[lang]
    assert sorted(set(english) ^ set(other)) == []
    assert [key for key, text in other.items() if fields(key) != fields(text)] == []
    assert [key for key, text in other.items()
            if key.endswith(" ") != text.endswith(" ") or not text.strip()] == []


def test_the_prompt_and_the_powers_in_polish(polish: None) -> None:
    view = {"table_id": "t1", "version": 3, "seat_index": 0,
            "config": {"variant": "NAIKO", "seat_count": 2},
            "seats": [{"player_id": "ola", "stack": 500, "bet": 0, "in_hand": True},
                      {"player_id": "bob", "stack": 500, "bet": 10, "in_hand": True}],
            "hand": {"number": 1, "street": "preflop", "board": "", "pot": 0, "actor": 0,
                     "complete": False},
            "prompt": {"actions": ["fold", "call", "raise_to"], "to_call": 10,
                       "min_raise_to": 20, "max_raise_to": 500, "deadline_ms": 5_000,
                       "powers": ["short_anchor"], "anchor_targets": [1]}}
    screen = "\n".join(render(view, now_ms=0, player_id="ola", width=120, height=40))
    assert "TWOJA KOLEJ" in screen and "do wyrównania 10" in screen
    assert "f pas" in screen and "c sprawdź 10" in screen
    assert "Krótka Kotwica" in screen
    assert power_name("seal_shield") == "Pieczęć Ochronna"


def test_english_is_the_default_and_unchanged() -> None:
    assert i18n.language() == "en"
    assert i18n.tr("YOUR TURN") == "YOUR TURN"
    assert power_name("seal_shield") == "Seal Shield"


def test_the_server_is_asked_for_the_same_language() -> None:
    assert with_language("ws://127.0.0.1:8765", "pt") == "ws://127.0.0.1:8765?lang=pt"
    assert with_language("ws://127.0.0.1:8765", "en") == "ws://127.0.0.1:8765"


def test_without_lang_the_client_speaks_the_locale_s_language(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No ``--lang``: the locale's language (LC_ALL, LC_MESSAGES, LANG), English when it is
    none of the five; ``--lang`` wins over it."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    said = {}
    for env, argv in (({"LANG": "pl_PL.UTF-8"}, []), ({"LANG": "de_DE.UTF-8"}, []),
                      ({"LC_ALL": "vi_VN", "LANG": "pl_PL"}, []),
                      ({"LANG": "pl_PL.UTF-8"}, ["--lang", "pt"])):
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        said[len(said)] = capsys.readouterr().out.split(":", 1)[0]
        for name in env:
            monkeypatch.delenv(name)
    i18n.set_language("en")
    assert list(said.values()) == ["użycie", "usage", "cách dùng", "uso"]


def test_the_event_sentences_in_polish_about_you_and_about_others(polish: None) -> None:
    """The Narrator speaks the client's language: the reader in the second person (Polish
    conjugates: "Podbijasz"), others by name ("bob podbija"), places as Polish ordinals."""
    from naiko_client.render import Narrator

    view = {"seat_index": 0, "seats": [{"seat_index": 0, "player_id": "ola"},
                                       {"seat_index": 1, "player_id": "bob"}]}
    events = [{"kind": "action", "seat_index": 0, "action": "raise_to", "to": 40,
               "all_in": False},
              {"kind": "action", "seat_index": 1, "action": "call", "amount": 30,
               "all_in": True},
              {"kind": "timed_out", "seat_index": 1, "decision": "fold"},
              {"kind": "eliminated", "player_id": "bob", "place": 3, "prize": 120},
              {"kind": "power_used", "seat_index": 1, "power": "short_anchor",
               "target_seat": 0, "destellos": 1}]
    assert Narrator("ola").narrate(events, view) == [
        "Podbijasz do 40",
        "bob sprawdza 30 i jest all-in",
        "Czas gracza bob minął: bob pasuje",
        "bob odpada na 3. miejscu i wygrywa 120",
        "bob używa: Krótka Kotwica na tobie (został 1 Destello)"]


def test_r9_15_a_deal_ended_by_the_director_s_pause_is_not_told_as_the_clock_running_out(
        polish: None) -> None:
    from naiko_client.render import Narrator

    view = {"seat_index": 0, "seats": [{"seat_index": 0, "player_id": "ola"}]}
    events = [{"kind": "deal_cancelled", "reason": "paused", "player_id": None},
              {"kind": "deal_cancelled", "reason": "timeout", "player_id": None}]
    assert Narrator("ola").narrate(events, view) == [
        "Brak umowy: dyrektor wstrzymał turniej", "Brak umowy: czas minął, gra toczy się dalej"]


def test_every_event_sentence_has_a_text_in_every_language() -> None:
    """The sentences of :mod:`naiko_client.i18n_events` are in the catalogues, and no
    translation is left equal to a long English sentence (a text copied, not translated)."""
    from naiko_client.i18n_events import TEXTS

    for lang in i18n.LANGUAGES[1:]:
        catalogue = i18n.CATALOGUES[lang]
        assert all(english in catalogue for english in TEXTS)
        copied = [e for e in TEXTS if len(e) > 24 and catalogue[e] == e]
        assert copied == [], lang


# -- every screen, in every language ---------------------------------------------------------

NOW = 1_700_000_008_000


def _base() -> dict[str, Any]:
    """bob's view on his turn at a Naiko table (docs/protocol.md, the snapshot)."""
    seat = {"is_bot": False, "sitting_out": False, "destellos": 1, "owes_big": False,
            "owes_small": False, "entry": "wait", "in_hand": True, "folded": False,
            "all_in": False, "bet": 0, "cards": None, "card_count": 2}
    return {
        "config": {"variant": "NAIKO", "seat_count": 5, "small_blind": 5, "big_blind": 10},
        "seat_index": 1, "table_id": "t1",
        "seats": [dict(seat, seat_index=0, player_id="alice", stack=490, bet=10),
                  dict(seat, seat_index=1, player_id="bob", stack=500, cards="TdKh"),
                  None, dict(seat, seat_index=3, player_id="carol", stack=495, bet=5),
                  dict(seat, seat_index=4, player_id="dave", stack=300)],
        "hand": {"number": 1, "button": 1, "small_blind_seat": 3, "big_blind_seat": 0,
                 "street": "flop", "board": "8h9sQd", "pot": 30, "bets_total": 15,
                 "current_bet": 10, "actor": 1, "complete": False, "awards": [],
                 "actor_deadline_ms": NOW + 12_000,
                 "powers": {"carousel": ["peek", "sleeve_swap", "short_anchor"], "used": {},
                            "round_activations": 0, "anchors": {}, "windows": [],
                            "peek": None, "can_shield": False}},
        "prompt": {"seat_index": 1, "actions": ["fold", "call", "raise_to", "all_in"],
                   "to_call": 10, "min_raise_to": 20, "max_raise_to": 500,
                   "powers": ["peek", "short_anchor"], "anchor_targets": [0, 3],
                   "anchored": True, "deadline_ms": NOW + 12_000},
        "settings": {"name": "Friday Naiko", "min_buy_in": 200, "max_buy_in": 1000,
                     "decision_ms": 20000, "kind": "cash", "host": "alice", "bots": False,
                     "min_players": 3},
        "disconnected": [],
        "room": {"waitlist": [], "held_seats": 0, "paused": False, "closing": False,
                 "closed": False, "pending": {}},
    }


LEVEL = {"small_blind": 10, "big_blind": 20, "ante": 5, "ante_mode": "each", "minutes": 3}
TOURNAMENT = {"tournament_id": "u1", "name": "Spin 100", "kind": "spin", "variant": "NLHE",
              "status": "running", "entry": 100, "starting_stack": 500, "seat_count": 3,
              "entrants": 3, "max_players": 3, "players_left": 2, "payouts": [],
              "payout_split": {"entrants": 3, "prizes": [300]},
              "payout_table": [{"min_entrants": 2, "max_entrants": 3, "percent": [100]},
                               {"min_entrants": 4, "max_entrants": 4, "percent": [65, 35]}],
              "terms": {"decision_ms": 12000, "bots_allowed": False, "structure": {
                  "levels": [dict(LEVEL, minutes=m) for m in (3, 3, 3, 3, 3, 3, 5)]}},
              "registered": [], "results": [{"player_id": "erin", "place": 3, "prize": 0}]}


def _variants() -> Iterator[dict[str, Any]]:  # noqa: C901 - one screen state per branch
    """Views that between them take every branch of the table screen."""
    yield _base()
    v = _base()  # a bet, not a raise; owing both blinds and posting; anchors and a window
    v["prompt"].update(actions=["check", "bet", "all_in"], anchored=False)
    v["seats"][1].update(owes_big=True, owes_small=True, entry="post", sitting_out=True)
    v["seats"][0].update(folded=True, is_bot=True)
    v["seats"][3].update(all_in=True, owes_big=True, entry="post")
    v["seats"][4].update(owes_small=True, in_hand=False)
    v["disconnected"] = ["carol"]
    v["hand"]["powers"].update(
        used={"0": ["peek"]}, round_activations=2, peek="Ah",
        anchors={"1": {"state": "pending", "by": 0}, "0": {"state": "applied", "by": 1},
                 "3": {"state": "shielded", "by": 0}},
        windows=[{"target": 1, "attacker": 0, "deadline_ms": NOW + 5_000},
                 {"target": 3, "attacker": 0, "deadline_ms": NOW + 5_000}],
        can_shield=True)
    yield v
    for big, small, entry in ((True, False, "post"), (False, True, "post"), (True, True, "wait"),
                              (True, False, "wait"), (False, True, "wait")):
        v = _base()
        v["seats"][1].update(owes_big=big, owes_small=small, entry=entry, in_hand=entry == "post")
        v["hand"]["powers"]["windows"] = [{"target": 1, "attacker": 3,
                                           "deadline_ms": NOW + 5_000}]
        yield v
    v = _base()  # somebody else to act; the room full of things; the host
    v.update(prompt=None)
    v["hand"]["actor"] = 0
    v["seats"][0]["is_bot"] = True
    v["settings"].update(kind="private", host="bob")
    v["room"].update(waitlist=["erin", "bob"], held_seats=2, invite_code="FBCJZG26",
                     pending={"small_blind": 2, "big_blind": 4, "decision_ms": 30000,
                              "min_players": 2})
    yield v
    v["room"].update(held_seats=1, invite_code=None, pending={"small_blind": 3})
    v["hand"]["actor"] = 4
    yield v
    v["room"].update(waitlist=[], pending={"big_blind": 6})
    yield v
    for flags in ({"paused": True}, {"closing": True}, {"closed": True}):
        v = _base()
        v.update(prompt=None)
        v["hand"]["complete"] = True
        v["hand"]["awards"] = [{"winners": {"1": 40, "0": 20}}]
        v["room"].update(flags)
        yield v
    v = _base()  # a hand over, no Carousel
    v.update(prompt=None)
    v["hand"].update(complete=True, awards=[{"winners": {"0": 60}}])
    v["hand"]["powers"]["carousel"] = []
    yield v
    v = _base()  # before the first hand; a spectator; a deep-stack table
    v.update(hand=None, prompt=None, seat_index=None)
    yield v
    for low, high, minutes in ((400, 400, 1), (400, 800, 25)):
        v = _base()
        v.update(prompt=None, seat_index=None, required_buy_in={
            "min": low, "max": high, "left_with": low, "until_ms": NOW + minutes * 60_000})
        yield v
    v = _base()  # PLO: no powers
    v["config"]["variant"] = "PLO"
    v["seats"][1]["cards"] = "TdKhAs2c"
    yield v
    tournament = {"tournament_id": "u1", "level": 2, "small_blind": 10, "big_blind": 20,
                  "ante": 20, "ante_mode": "big_blind", "level_ends_ms": NOW + 60_000,
                  "next_level": {"small_blind": 15, "big_blind": 30, "ante": 5,
                                 "ante_mode": "each"}, "players_left": 3, "entrants": 3,
                  "payouts": [300, 150], "multiplier": 5, "first_hand_ms": NOW + 5_000}
    v = _base()  # a tournament's table
    v["settings"]["kind"] = "tournament"
    v["tournament"] = dict(tournament)
    v["seats"][1]["sitting_out"] = True
    yield v
    v = copy.deepcopy(v)
    v.update(hand=None, prompt=None)
    yield v
    v = copy.deepcopy(v)
    v["tournament"].update(next_level=None, first_hand_ms=None)
    yield v
    v = copy.deepcopy(v)
    v["tournament"].update(next_level={"small_blind": 15, "big_blind": 30},
                           level_ends_ms=NOW - 1, payouts=[], multiplier=None)
    v["seat_index"] = None
    yield v
    v = copy.deepcopy(v)
    v["room"]["closed"] = True
    yield v
    v = _base()  # R9.13 and R9.16: a knockout final table, a deal asked for, offered, made
    v["settings"]["kind"] = "tournament"
    v["tournament"] = dict(tournament, bounty=50, deal={"asked": ["bob"], "offer": None,
                                                        "made": None})
    v["seats"][1]["bounty"] = 75
    yield v
    offer = {"offer_id": "1.5", "ends_ms": NOW + 30_000, "players": ["bob", "carol"],
             "stacks": [700, 300], "prizes": [300, 150], "kept": 0, "icm": [270, 180],
             "chip_count": [255, 195], "accepted": {"carol": "chip_count"}}
    for kept in (0, 30):
        v = copy.deepcopy(v)
        v["tournament"]["deal"] = {"asked": ["bob", "carol"], "made": None,
                                   "offer": dict(offer, kept=kept)}
        yield v
    v = copy.deepcopy(v)
    v["tournament"]["deal"] = {"asked": [], "offer": None, "made": "icm"}
    yield v


def _tournament_details() -> Iterator[dict[str, Any]]:
    yield TOURNAMENT
    yield dict(TOURNAMENT, status="finished", payouts=[500], multiplier=5, registered=["bob"],
               results=[{"player_id": "erin", "place": 1, "prize": 500},
                        {"player_id": "bob", "place": 2, "prize": 0}],
               terms=dict(TOURNAMENT["terms"], bots_allowed=True))
    yield dict(TOURNAMENT, status="registering", kind="sit_and_go", payout_split=None,
               payout_table=None, terms={"structure": {"levels": [LEVEL]}})
    yield dict(TOURNAMENT, status="cancelled")
    knockout = {"bounty": 50, "deals": {"max_players": 3, "keep_percent": 0, "clock_s": 60},
                "entries_per_player": 3}
    yield dict(TOURNAMENT, terms=dict(TOURNAMENT["terms"], **knockout),
               you={"registered": True, "entries": 2, "result": None})
    yield dict(TOURNAMENT, terms=dict(TOURNAMENT["terms"], progressive=True, **knockout))


TYPED = ("hello", "f", "f 3", "x", "c", "a", "b", "r 1", "r 99999", "b 1", "b 99999", "r 500",
         "peek", "peek 1", "swap", "swap 3", "swap 1", "anchor", "anchor 9", "anchor 1",
         "anchor 2", "anchor 0", "anchor 3", "anchor 4", "shield", "pass", "sitin x", "sitin",
         "sitout", "leave", "waitlist 1", "waitlist", "unwait", "add", "add 50", "join x",
         "join 500", "take", "account 1", "account", "find x", "find ABCDEF", "quick x",
         "quick NLHE 1/2 200", "tournaments 1", "tournaments", "tournament x", "tournament 1",
         "register !",
         "register 1", "register 2", "register 3", "register 4", "register 5", "unregister 1",
         "unregister 2", "unregister 3", "unregister 4", "unregister 5", "post", "post 1",
         "wait", "code 1", "code", "revoke", "pause", "resume", "close", "invite", "invite erin",
         "kick", "kick bob", "kick carol", "bot", "bot x", "blinds x", "blinds 2/4", "clock 1",
         "clock 30", "minplayers 1", "minplayers 2", "history x", "history 1", "history", "q",
         "help", "say", "say " + "x" * 201, "say hi", "emote", "emote gg", "mute", "mute 9",
         "mute bob", "bank", "bank 1", "pre", "pre x", "pre check", "pre call", "pre cf", "pre off",
         "deal", "deal x", "deal icm", "deal chips", "nodeal", "nodeal 1")
LISTED = [{"tournament_id": f"u{n}", "name": f"Cup {n}", "status": status, "entrants": full,
           "max_players": 3, "registered": reg, "you": {"registered": "bob" in reg}}
          for n, (status, full, reg) in enumerate((("running", 1, []), ("finished", 3, []),
                                                   ("cancelled", 0, []), ("registering", 3, []),
                                                   ("registering", 1, ["bob"])), 1)]


def _refusals() -> Iterator[str]:
    """What the command line answers to :data:`TYPED`, against views that refuse each for one
    of its reasons."""
    views: list[dict[str, Any] | None] = [None, *_variants()]
    v = _base()
    v["room"]["paused"] = True
    v["settings"]["host"] = "bob"
    views.append(v)
    for actions in (["fold", "check"], ["check", "call", "all_in"]):
        v = _base()
        v["prompt"]["actions"] = actions
        views.append(v)
    v = _base()
    v["settings"].update(host="bob", bots=True)
    v["room"]["closed"] = True
    views.append(v)
    v = _base()
    v["settings"].update(host="bob", bots=True)
    v["hand"]["street"] = "river"
    v["hand"]["powers"].update(carousel=["peek", "short_anchor", "sleeve_swap"],
                               anchors={"3": {"state": "applied", "by": 1}})
    v["prompt"].update(powers=[], anchor_targets=[])
    v["seats"][0].update(all_in=True)
    v["seats"][1].update(destellos=3)
    v["seats"][4].update(in_hand=False)
    views.append(v)
    for change in ({"variant": "NLHE"}, {"used": True}, {"broke": True}, {"busy": True},
                   {"preflop": True}, {"flop": True}, {"listed": True}):
        v = _base()
        v["prompt"].update(powers=["sleeve_swap"] if "listed" in change else [])
        v["seats"][1]["destellos"] = 3
        powers = v["hand"]["powers"]
        if "variant" in change:
            v["config"]["variant"] = "NLHE"
        if "used" in change:
            powers["used"] = {"1": ["peek", "sleeve_swap"]}
        if "broke" in change:
            v["seats"][1]["destellos"] = 0
        if "busy" in change:
            powers["round_activations"] = 3
        if "preflop" in change:
            v["hand"]["street"] = "preflop"
            v["seats"][1]["bet"] = 10
            powers["carousel"] = ["sleeve_swap"]
        if "listed" in change:
            v["hand"]["street"] = "preflop"
        views.append(v)
    for bank in ({"time_bank_ms": 0}, {"time_bank_ms": 5000, "time_bank_running": True}):
        v = _base()  # R8.7: a table with a time bank, bob's empty or running
        v["settings"]["time_bank"] = {"initial_s": 30, "top_up_s": 5, "every": 10,
                                      "per": "hands", "cap_s": 60}
        v["seats"][1].update(bank)
        views.append(v)
    v = _base()  # R8.8: not bob's turn, nothing to call
    v["prompt"] = None
    for seat in v["seats"]:
        if seat:
            seat["bet"] = 0
    views.append(v)
    for view in views:
        for line in TYPED:
            shown = (view or {}).get("tournament") and dict(LISTED[0], tournament_id="u1")
            parsed = parse_command(line, view, player_id="bob", tournaments=LISTED,
                                   tournament=shown or None)
            yield parsed.error or parsed.label


def _statuses() -> list[str]:
    """What the client says on its status line and in its log besides the screens: the
    answers to requests, the connection, the histories and the deck checks."""
    said: list[str] = []

    async def steps() -> None:
        client = Client("ws://127.0.0.1:1/", "bob", out=io.StringIO(), in_fd=0,
                        player_id="bob")
        said.append(client.connection)

        class Socket:
            async def send(self, text: str) -> None:
                pass

        client.ws = Socket()  # type: ignore[assignment]
        client.on_message({"type": "tables", "tables": [
            {"table_id": "t1", "name": "A", "seated": 0, "seat_count": 4},
            {"table_id": "t2", "name": "B", "seated": 0, "seat_count": 4}]})
        said.append(client.status)
        for line in ("9", "zzz", "find x"):
            client._lobby_command(line)
            said.append(client.status)
        client.choose({"table_id": "t1", "name": "A"})
        said.append(client.status)
        client.view = _base()
        for label in ("join with 500", "leave", "sitout", "sitin", "add 50", "post", "wait",
                      "waitlist", "unwait", "revoke", "kick carol", "register u1",
                      "unregister u1", "mute bob", "unmute bob", "pre off", "pre call 20"):
            client._on_ack({"table_id": "t1"}, label)
            said.append(client.status)
        client.join()  # at a tournament's table
        client._on_ack({"table_id": "t3"}, "quick NLHE 1/2")
        said.append(client.status)
        client.view = dict(_base(), tournament={}, table_id="t3", seat_index=None)
        client.join()
        said.append(client.status)
        client._check_proofs({"proofs": [{"card": "Ah"}]}, [])
        said.append(client.status)
        said.extend(report_line(Report(hand="t1#3", proved=n)) for n in (0, 2))
        client.view = None
        for message in ({"type": "account", "balance": 900, "open_tables": 1,
                         "ratholes_today": 0, "day": "2026-12-03"},
                        {"type": "invite_code", "code": "FBCJZG26", "table_id": "t9"},
                        {"type": "tournaments", "tournaments": LISTED},
                        {"type": "tournaments", "tournaments": LISTED[:1]},
                        {"type": "tournament", "tournament": TOURNAMENT},
                        {"type": "hands", "hands": []},
                        {"type": "hands", "hands": [{"hand_number": 3, "table_name": "A",
                                                     "table_id": "t1", "variant": "NLHE",
                                                     "ended_ms": NOW, "net": -20,
                                                     "cancelled": "stalled"}]},
                        {"type": "error", "code": "table_full", "message": "…"},
                        {"type": "hand", "hand": {"hand_number": 3, "table_name": "A",
                                                  "table_id": "t1", "events": []}}):
            client.on_message(message)
            said.append(client.status)
        said.extend(client.log)
        client.pending = {"a": "join with 500",
                          "b": parse_command("r 60", _base()).label}  # raise to 60
        client._on_lost(i18n.tr("closed by the server"))
        said.append(client.status)
        client._on_error({"code": "x", "message": "…"}, "watch")
        said.append(client.status)
        client._on_error({"code": "x", "message": "…"}, None)
        said.append(client.status)
        client.view = dict(_base(), table_id="t1")
        client.table_id = "t1"
        client.on_message({"type": "update", "table_id": "t2", "version": 1, "events": [
            {"kind": "tournament_started"}]})
        said.append(client.status)
        client.view = dict(_base(), seat_index=None)
        client.on_message({"type": "update", "table_id": "t2", "version": 1, "events": [
            {"kind": "tournament_started"}]})
        said.append(client.status)
        client.on_message({"type": "table_found", "table_id": "t4"})
        said.append(client.status)
        client._ever_connected = True
        client._on_open()
        said.extend([client.status, client.connection])
        client.ws = None
        client.send({"action": "snapshot"}, "watch")
        said.append(client.status)

    asyncio.run(steps())
    return said


def everything_said() -> str:
    """Every screen the client draws and everything it says, in the current language."""
    texts = [*render(None, now_ms=NOW, connection=i18n.tr("connecting")), *help_lines()]
    for view in _variants():
        texts.extend(render(view, now_ms=NOW, player_id="bob", width=400, height=80,
                            version=7, offer_until_ms=NOW + 20_000))
    details = list(_tournament_details())
    for tournament in (None, *details):
        texts.extend(render_lobby([], tournaments=[], tournament=tournament, width=400,
                                  height=80))
    texts.extend(render_lobby([{"table_id": "t1", "name": "Demo", "variant": "NAIKO"}],
                              tournaments=[dict(TOURNAMENT, status=s) for s in
                                           ("registering", "running", "finished",
                                            "cancelled")], width=400, height=80))
    texts.extend(_refusals())
    texts.extend(_statuses())
    texts.extend(Narrator("bob").narrate([{"kind": "showdown", "hands": [
        {"seat_index": i, "cards": "AsKs", "hand": hand} for i, hand in enumerate(HANDS)]}]))
    for argv in (["--help"], ["ws://h", "t", "--buy-in", "0"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                contextlib.suppress(SystemExit):
            main([*argv, "--lang", i18n.language()])
        texts.append(" ".join(out.getvalue().split()))  # argparse wraps the lines
    return "\n".join(texts)


HANDS = ("high card, Ace", "one pair, Eights", "two pair, Kings and Fours",
         "three of a kind, Sevens", "straight, Five high", "flush, Queen high",
         "full house, Kings full of Fours", "four of a kind, Aces", "straight flush, King high",
         "royal flush")
"""A showdown hand of each kind, as the engine words them (naiko.evaluator.describe)."""


def test_a_showdown_hand_in_each_language() -> None:
    """The engine words a hand in English (``showdown.hands[].hand``); the client says it in
    its language with the rank names of the rule texts, and leaves a text it does not know."""
    assert (RANK_NAMES, RANK_PLURALS) == (cards.RANK_NAMES, cards.RANK_PLURALS)
    assert [evaluator.describe(evaluator.evaluate(cards.parse_cards(h)))
            for h in ("KsKd4c4h2s", "8c8d2h3s5d")] == list(HANDS[2:0:-1])
    said = {}
    for lang in i18n.LANGUAGES:
        i18n.set_language(lang)
        said[lang] = [hand_text(hand) for hand in (*HANDS, "seven-deuce, offsuit")]
    i18n.set_language("en")
    assert said["en"] == [*HANDS, "seven-deuce, offsuit"]
    assert said["pl"] == ["wysoka karta: as", "para: ósemki", "dwie pary: króle i czwórki",
                          "trójka: siódemki", "strit (najwyższa karta: piątka)",
                          "kolor (najwyższa karta: dama)", "full: króle i czwórki",
                          "kareta: asy", "poker (najwyższa karta: król)", "poker królewski",
                          "seven-deuce, offsuit"]
    assert said["pt"][2] == "dois pares, Reis e Quatros" and said["vi"][7] == "tứ quý Át"
    assert said["ro"][6] == "full de regi cu patru"


def _fragments(english: str) -> list[str]:
    """The parts of an English text that a screen would show word for word: the text between
    its parameters and the commands in backquotes, when it holds two words, or one of four
    letters or more that is not a command (``fold``: what you type is English everywhere)."""
    parts = (part.strip(" .,:;()+=#") for part in re.split(r"\{[^}]*\}|`[^`]*`", english))
    return [part for part in parts
            if len(re.findall(r"[A-Za-z][A-Za-z'-]+", part)) >= 2
            or re.fullmatch(r"[A-Za-z][A-Za-z'-]{3,}", part) and part.lower() not in COMMANDS]


COMMANDS = frozenset(_ALIASES)
"""The command words (the same in every language)."""


def _shows(fragment: str, said: str) -> bool:
    """Whether *fragment* is on the screen as words of its own (``host`` is not in ``--host``
    nor in ``hosts``)."""
    if fragment not in said:
        return False
    before = r"(?<![\w-])" if fragment[0].isalnum() else ""
    after = r"(?![\w-])" if fragment[-1].isalnum() else ""
    return re.search(before + re.escape(fragment) + after, said) is not None


UNSAMPLED = {
    "OFFLINE: reconnecting in {seconds}s", "renewed before the 2-hour limit",
    "The server refused the token (HTTP {status}).", "catch up", "reconnecting",  # the loop
    "Bye. Table {table}: your seat stays (the clock checks or folds for you); reconnect with "
    "the same token and --table to play on, or `leave` to cash out.",
    "Bye. Table {table}: you have no seat there.",  # main(), once the terminal is restored
    "proved against the commitment: {cards}",  # a card proof that holds (test_client_render)
    "more tournaments",  # the label of a next lobby page's request, shown only if it is refused
}
"""Texts of the client (not events) that :func:`everything_said` does not reach: the English
end-to-end tests (tests/e2e/test_client_pty.py) show them; the key tests above check them."""


def test_the_screens_say_every_text_of_the_client() -> None:
    """In English, the screens and statuses of :func:`everything_said` show every text of the
    client's own catalogues but :data:`UNSAMPLED` (the event sentences have their tests): what
    the next test finds in another language is then everything there is to find."""
    said = everything_said()
    texts = {k for k in i18n.CATALOGUES["en"] if k not in EVENT_TEXTS and _fragments(k)}
    assert sorted(k for k in texts if not all(_shows(f, said) for f in _fragments(k))) == \
        sorted(UNSAMPLED)


@pytest.mark.parametrize("lang", i18n.LANGUAGES[1:])
def test_no_english_text_is_left_on_any_screen(lang: str) -> None:
    """Every screen drawn in *lang* (the table in its states, the lobby, the tournaments, the
    help, the refusals of the command line, the statuses, ``--help``): no English text of the
    catalogue shows there, but words the translations keep too (``all-in``, ``Flop``, the
    game's names)."""
    i18n.set_language(lang)
    try:
        said = everything_said()
    finally:
        i18n.set_language("en")
    kept = "\n".join(i18n.CATALOGUES[lang].values())
    left = sorted({f for english in i18n.CATALOGUES["en"] for f in _fragments(english)
                   if _shows(f, said) and not _shows(f, kept)})
    assert left == []


def test_the_polish_screen_of_docs_client_md_is_what_the_client_draws() -> None:
    """docs/client.md, "Languages": bob's turn with ``--lang pl``, as render() draws it."""
    doc = (CLIENT.parents[1] / "docs" / "client.md").read_text("utf-8")
    shown = re.search(r"bob at a Naiko table with `--lang pl`.*?```\n(.*?)```", doc, re.S)
    assert shown is not None
    view = _base()
    view["hand"].update(street="turn", board="4h7h5hTs")
    view["hand"]["powers"].update(used={"0": ["peek"]}, round_activations=1)
    view["prompt"]["anchored"] = False
    i18n.set_language("pl")
    try:
        log = Narrator("bob").narrate([
            {"kind": "board_dealt", "street": "turn", "cards": "Ts", "board": "4h7h5hTs",
             "run_out": False},
            {"kind": "power_used", "seat_index": 0, "power": "peek", "destellos": 0},
            {"kind": "action", "seat_index": 0, "action": "bet", "to": 10, "all_in": False},
            {"kind": "action", "seat_index": 3, "action": "call", "amount": 5,
             "all_in": False}], view)
        lines = render(view, now_ms=NOW, player_id="bob", connection=i18n.tr("online"),
                       version=13, log=log, width=100, height=26, input_text="r 40")
    finally:
        i18n.set_language("en")
    assert [line.rstrip() for line in lines] == shown.group(1).rstrip("\n").split("\n")
