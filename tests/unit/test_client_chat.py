"""R8.9 in the terminal client: ``say``, ``emote``, ``mute`` and ``unmute`` become the chat
requests (the text as typed, checked before sending), and a ``chat`` message becomes a log
line in the client's language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from naiko_client import i18n
from naiko_client.app import EMOTES, parse_command
from naiko_client.render import chat_line, settings_text
from naiko_service.protocol import CHAT_TEXT_MAX
from naiko_service.protocol import EMOTES as SERVER_EMOTES

VIEW = {"seat_index": 0, "seats": [{"seat_index": 0, "player_id": "alice"},
                                   {"seat_index": 1, "player_id": "Bob"}]}


@pytest.fixture
def polish() -> Iterator[None]:
    i18n.set_language("pl")
    yield
    i18n.set_language("en")


def test_r8_9_say_sends_the_text_as_typed() -> None:
    assert parse_command("say  Nice  hand, Bob!  ", VIEW).request == {
        "action": "chat", "text": "Nice  hand, Bob!"}
    assert parse_command("chat gl", VIEW).request == {"action": "chat", "text": "gl"}
    assert parse_command("say", VIEW).error
    assert parse_command("say " + "x" * (CHAT_TEXT_MAX + 1), VIEW).error
    assert parse_command("say hi", None).error  # no table: nowhere to say it


def test_r8_9_emote_takes_a_code_of_the_servers_list() -> None:
    assert EMOTES == SERVER_EMOTES
    assert parse_command("emote GG", VIEW).request == {"action": "emote", "emote": "gg"}
    refused = parse_command("emote dance", VIEW).error
    assert refused and "thumbs_up" in refused


def test_r8_9_mute_names_a_player_by_id_or_seat() -> None:
    assert parse_command("mute bob", VIEW).request == {"action": "chat_mute",
                                                       "player_id": "Bob"}
    assert parse_command("mute 1", VIEW).request == {"action": "chat_mute", "player_id": "Bob"}
    assert parse_command("unmute dave", VIEW).request == {"action": "chat_unmute",
                                                          "player_id": "dave"}  # a spectator
    assert parse_command("mute 7", VIEW).error
    assert parse_command("mute", VIEW).error


def test_r8_9_chat_lines_in_polish(polish: None) -> None:
    assert chat_line({"player_id": "alice", "seat_index": 0, "text": "gl"}, "alice") == "Ty: gl"
    assert chat_line({"player_id": "dave", "seat_index": None, "emote": "clap"}) == \
        "dave (obserwuje): \U0001f44f"
    assert settings_text({"chat": "off"}) == "czat wyłączony"
