"""The web client's catalogues (local/naiko_local/web/js/lang/<lang>.js, read by js/i18n.js):
every text the code looks up (``tr("…")`` in js/, ``data-i18n`` in index.html) is an English
key, and every language has exactly those keys, with the same named parameters and the same
leading and trailing spaces (the page joins some texts to what follows them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "local" / "naiko_local" / "web"
LANGUAGES = ("en", "pl", "pt", "vi", "ro")
FIELD = re.compile(r"\{(\w+)\}")


def catalogue(lang: str) -> dict[str, str]:
    module = (WEB / "js" / "lang" / f"{lang}.js").read_text(encoding="utf-8")
    body = module.split("export default ", 1)[1].strip()
    assert body.endswith(";")
    data = json.loads(body[:-1])  # strict JSON: no comment, no trailing comma
    assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values())
    return data


def looked_up() -> set[str]:
    """The English texts the page looks up: tr("…") literals and data-i18n attributes."""
    keys: set[str] = set()
    for script in sorted((WEB / "js").glob("*.js")):
        for match in re.finditer(r'\btr\("((?:[^"\\]|\\.)*)"', script.read_text("utf-8")):
            keys.add(json.loads(f'"{match.group(1)}"'))
    html = (WEB / "index.html").read_text("utf-8")
    keys |= set(re.findall(r'data-i18n="([^"]*)"', html))
    return keys


def test_the_picker_offers_the_five_languages() -> None:
    script = (WEB / "js" / "i18n.js").read_text("utf-8")
    offered = re.search(r"export const LANGUAGES = \{([^}]*)\}", script)
    assert offered is not None
    assert tuple(re.findall(r"(\w+): \"", offered.group(1))) == LANGUAGES


def test_english_is_the_identity_and_holds_every_text_the_page_looks_up() -> None:
    english = catalogue("en")
    assert {key: value for key, value in english.items() if key != value} == {}
    assert sorted(looked_up() - set(english)) == []


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_has_the_english_keys_and_no_other(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these texts"
    assert sorted(set(other) - set(english)) == [], f"{lang} has texts English lacks"


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_text_keeps_its_parameters_and_its_edge_spaces(lang: str) -> None:
    differ = []
    for key, text in catalogue(lang).items():
        if (sorted(FIELD.findall(key)) != sorted(FIELD.findall(text))
                or key.startswith(" ") != text.startswith(" ")
                or key.endswith(" ") != text.endswith(" ") or not text.strip()):
            differ.append((key, text))
    assert differ == []


def test_the_game_s_terms_are_the_rule_texts_own() -> None:
    assert catalogue("pl")["Carousel"] == "Karuzela"
    assert catalogue("pl")["Short Anchor"] == "Krótka Kotwica"
    assert catalogue("pt")["Seal Shield"] == "Escudo do Selo"
    assert catalogue("vi")["Sleeve Swap"] == "Đổi Bài Trong Tay Áo"
