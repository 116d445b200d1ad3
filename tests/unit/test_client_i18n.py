"""The terminal client's catalogues (naiko_client.i18n): five languages with the same keys and
parameters, every ``tr("…")`` the client looks up among them, ``--lang`` reaching the screen and
the server's URL."""

from __future__ import annotations

import ast
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from naiko_client import i18n
from naiko_client.app import with_language
from naiko_client.render import HELP_HEADING, HELP_ROWS, POWER_NAMES, power_name, render

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


def test_every_event_sentence_has_a_text_in_every_language() -> None:
    """The sentences of :mod:`naiko_client.i18n_events` are in the catalogues, and no
    translation is left equal to a long English sentence (a text copied, not translated)."""
    from naiko_client.i18n_events import TEXTS

    for lang in i18n.LANGUAGES[1:]:
        catalogue = i18n.CATALOGUES[lang]
        assert all(english in catalogue for english in TEXTS)
        copied = [e for e in TEXTS if len(e) > 24 and catalogue[e] == e]
        assert copied == [], lang
