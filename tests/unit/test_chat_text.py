"""R8.9: what a chat message may hold, for any text a client sends (hypothesis): either the
frame is refused (``invalid_request``) or its text is what the table reads, normalised
(NFC, one line, no control, format, private-use or unassigned character but the emoji
joiner, no run of spaces, trimmed, 1 to 200 characters) and normalising it again changes
nothing."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from naiko_service.protocol import CHAT_TEXT_MAX, Chat, ProtocolError, parse_request

NASTY = st.sampled_from(["\u202e", "\u2066", "\u200b", "\u200d", "\x00", "\x1b[31m", "\n",
                         "\r\n", "\t", "\u2028", "\ufeff", "\ue000", "\U0001f469\u200d\U0001f4bb",
                         "e\u0301", "\ufb2c", "  ", "\x85", "\U000e0001"])
TEXTS = st.lists(st.one_of(st.text(max_size=30), NASTY), max_size=30).map("".join)


def chat(text: str) -> Chat | str:
    frame = json.dumps({"action": "chat", "request_id": "r1", "table_id": "t1", "text": text})
    try:
        request = parse_request(frame)
    except ProtocolError as error:
        return error.code
    assert isinstance(request, Chat)
    return request


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_r8_9_a_chat_text_is_refused_or_read_normalised(text: str) -> None:
    result = chat(text)
    if isinstance(result, str):
        assert result == "invalid_request"
        return
    said = result.text
    assert 1 <= len(said) <= CHAT_TEXT_MAX
    assert said == unicodedata.normalize("NFC", said) == said.strip()
    assert "  " not in said
    for char in said:
        category = unicodedata.category(char)
        assert category not in ("Cc", "Cs", "Co", "Cn"), repr(char)
        assert category != "Cf" or char == "\u200d", repr(char)
    again = chat(said)
    assert not isinstance(again, str) and again.text == said  # idempotent


def test_r8_9_the_length_is_counted_after_normalising() -> None:
    assert not isinstance(chat("a" * CHAT_TEXT_MAX), str)
    assert chat("a" * (CHAT_TEXT_MAX + 1)) == "invalid_request"
    padded = chat("  " + "a " * 99 + "\u202e" * 50)  # 400 raw, 197 once normalised
    assert not isinstance(padded, str) and len(padded.text) == 197
    assert chat("a" * (2 * CHAT_TEXT_MAX + 1)) == "invalid_request"  # the raw bound
