"""The service's catalogues (naiko_service.i18n): five languages with the same keys and the same
named parameters, an entry for every error code, and the language a connection chose at
``$connect`` (``?lang=``) giving it error texts in that language under the same stable code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from naiko_service import i18n
from naiko_service.protocol import ERROR_CODES, error_message, parse_request
from test_authorizer import FakeLambdaContext as AuthorizerContext
from test_authorizer import app, configured, event_with, key, token_for  # noqa: F401 (fixtures)
from test_handlers import Stack, frame_event, handlers, load_event, stack  # noqa: F401

REFERENCE = i18n.CATALOGUES[i18n.DEFAULT]


def test_the_five_languages_are_served() -> None:
    assert i18n.LANGUAGES == ("en", "pl", "pt", "vi", "ro")


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_catalogue_has_the_reference_keys_and_no_other(lang: str) -> None:
    catalogue = i18n.CATALOGUES[lang]
    assert sorted(set(REFERENCE) - set(catalogue)) == [], f"{lang} lacks these keys"
    assert sorted(set(catalogue) - set(REFERENCE)) == [], f"{lang} has keys English lacks"


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_entry_takes_the_same_named_parameters_as_english(lang: str) -> None:
    catalogue = i18n.CATALOGUES[lang]
    differ = {name: (sorted(i18n.parameters(REFERENCE[name])), sorted(i18n.parameters(text)))
              for name, text in catalogue.items()
              if name in REFERENCE and i18n.parameters(text) != i18n.parameters(REFERENCE[name])}
    assert differ == {}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_entries_are_non_empty_and_only_named_parameters(lang: str) -> None:
    for name, text in i18n.CATALOGUES[lang].items():
        assert text.strip(), (lang, name)
        assert all(field.isidentifier() for field in i18n.parameters(text)), (lang, name)


def test_every_error_code_the_service_can_send_has_an_entry() -> None:
    # ERROR_CODES is every code the code can send (tests/unit/test_protocol.py proves it by an
    # AST scan of the sources), so this covers the frame's, the handler's, the service's and
    # the engine's refusals.
    keys = {name.removeprefix("error.") for name in REFERENCE if name.startswith("error.")}
    assert sorted(set(ERROR_CODES) - keys) == []
    assert sorted(keys - set(ERROR_CODES)) == []  # no entry for a code nobody sends


def test_the_game_s_terms_are_the_rule_texts_own() -> None:
    assert i18n.text("power.short_anchor", "pl") == "Krótka Kotwica"
    assert i18n.text("power.seal_shield", "pt") == "Escudo do Selo"
    assert i18n.text("power.sleeve_swap", "vi") == "Đổi Bài Trong Tay Áo"
    assert i18n.text("term.carousel", "pl") == "Karuzela"
    assert {i18n.text("term.destellos", lang) for lang in i18n.LANGUAGES} == {"Destellos"}


@pytest.mark.parametrize(("requested", "served"), [
    (None, "en"), ("", "en"), ("pl", "pl"), ("pt-BR", "pt"), ("PT_br", "pt"), ("vi", "vi"),
    ("ro-RO", "ro"), ("de", "en"), ("en-GB", "en"), (7, "en"), ("x" * 500, "en"),
])
def test_a_requested_language_is_served_or_english(requested: Any, served: str) -> None:
    assert i18n.language_of(requested) == served


def test_english_keeps_the_refusal_s_own_text_other_languages_the_catalogue_s() -> None:
    english = "it is seat 1's turn, not seat 0's"
    assert error_message("not_your_turn", english, "r1")["message"] == english
    portuguese = error_message("not_your_turn", english, "r1", lang="pt")
    assert portuguese == {"type": "error", "request_id": "r1", "code": "not_your_turn",
                          "message": "não é a sua vez"}
    with i18n.speaking("pl"):
        assert error_message("not_your_turn", english, "r1")["message"] == "to nie twoja kolej"
    assert error_message("not_your_turn", english, "r1")["message"] == english


def test_parameters_are_filled_and_scope_words_translated() -> None:
    frame = error_message("rate_limited", "too many frames on this player; retry in 250 ms",
                          "r1", 250, lang="pl", scope="player")
    assert frame["message"] == "za dużo ramek od tego gracza; spróbuj ponownie za 250 ms"
    assert frame["retry_after_ms"] == 250 and frame["code"] == "rate_limited"
    too_large = error_message("frame_too_large", "a frame is at most 32768 bytes, got 40000",
                              None, lang="vi")
    assert too_large["message"] == "khung dữ liệu lớn hơn 32768 byte"


def test_the_authorizer_passes_the_requested_language_on(configured: Any, key: Any) -> None:  # noqa: F811
    event = event_with(token_for(key, "alice"))
    event["queryStringParameters"]["lang"] = "pt-BR"
    response = configured.lambda_handler(event, AuthorizerContext())
    assert response["context"] == {"player_id": "alice", "lang": "pt"}
    event["queryStringParameters"]["lang"] = "klingon"
    response = configured.lambda_handler(event, AuthorizerContext())
    assert response["context"] == {"player_id": "alice", "lang": "en"}


def speaking(event: dict[str, Any], lang: str | None) -> dict[str, Any]:
    if lang is not None:
        event["requestContext"]["authorizer"]["lang"] = lang
    return event


@pytest.mark.parametrize(("lang", "message"), [
    (None, "no table has that id"),
    ("pt", "nenhuma mesa tem esse id"),
    ("pl", "żaden stół nie ma takiego id"),
])
def test_a_service_refusal_is_sent_in_the_connection_s_language(
        stack: Stack, lang: str | None, message: str) -> None:  # noqa: F811
    stack.send("connect")
    before = len(stack.frames())
    # The sample table was never created here: the service refuses, unknown_table.
    assert stack.invoke("game", speaking(load_event("join_table"), lang)) == {"statusCode": 200}
    reply = [m for m in stack.frames()[before:] if m["type"] == "error"][0]
    assert reply["code"] == "unknown_table"
    assert reply["message"] == message


def test_an_engine_refusal_for_a_pt_connection_is_portuguese_with_the_same_code(
        stack: Stack) -> None:  # noqa: F811
    stack.send("connect")
    stack.send("create_table")
    table_id = json.loads(load_event("join_table")["body"])["table_id"]
    stack.send("join_table")
    # No hand is being played (one player seated): the engine refuses the act.
    body = json.dumps({"action": "act", "request_id": "pt-1", "table_id": table_id,
                       "move": "check"})
    parse_request(body)
    before = len(stack.frames())
    stack.invoke("game", speaking(frame_event(body), "pt"))
    reply = [m for m in stack.frames()[before:] if m["type"] == "error"][0]
    english_before = len(stack.frames())
    stack.invoke("game", frame_event(body))
    english = [m for m in stack.frames()[english_before:] if m["type"] == "error"][0]
    assert reply["code"] == english["code"]
    assert reply["message"] == i18n.text(f"error.{reply['code']}", "pt")
    assert reply["message"] != english["message"]


def test_a_frame_error_for_a_vi_connection_is_vietnamese(stack: Stack) -> None:  # noqa: F811
    stack.send("connect")
    stack.invoke("game", speaking(frame_event("{not json"), "vi"))
    reply = stack.frames()[-1]
    assert reply["code"] == "malformed_json"
    assert reply["message"] == "tin nhắn không phải là một đối tượng JSON hợp lệ"


def test_the_handler_s_own_english_texts_are_the_catalogue_s() -> None:
    # The codes the message handler itself sends take their English from the catalogue too
    # (the service's and the engine's refusals keep their raise site's text in English).
    source = (Path(__file__).resolve().parents[2] / "functions" / "game" / "app.py").read_text()
    for code in ("internal_error", "not_connected", "rate_limited"):
        assert f'text("error.{code}"' in source
    assert i18n.text("error.rate_limited", scope="player", retry_after_ms=250) == \
        "too many frames on this player; retry in 250 ms"
