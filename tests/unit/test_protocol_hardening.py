"""Frames the WebSocket fuzzer found crashing every route (issue 10): a lone UTF-16 surrogate
in a request id, and deeply nested JSON. Each is now refused at parse time with a stable code,
and no reply can fail on its content."""

from __future__ import annotations

import json

import pytest
from naiko_service.aws.gateway import encode_message
from naiko_service.protocol import MAX_NESTING, ROUTES, ProtocolError, parse_request


def refusal(body: str | bytes) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_request(body)
    return caught.value


@pytest.mark.parametrize("action", ROUTES)
def test_a_lone_surrogate_request_id_is_refused_and_never_echoed(action: str) -> None:
    error = refusal(f'{{"action": "{action}", "request_id": "\\ud800"}}')
    assert error.code == "malformed_json" and error.request_id is None
    json.dumps({"message": error.message}).encode()  # the reply can be sent


def test_a_lone_surrogate_anywhere_is_refused() -> None:
    frame = '{"action": "create_table", "request_id": "r1", "name": "a\\udfffb"}'
    assert refusal(frame).code == "malformed_json"
    assert refusal('{"action": "list_tables", "request_id": "r1", "\\ud83d": 1}').code \
        == "malformed_json"


def test_an_encoded_surrogate_in_a_str_body_is_refused() -> None:
    assert refusal('{"action": "list_tables", "request_id": "\ud800"}').code == "malformed_json"


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_a_thousand_levels_of_nesting_in_2_kb_are_refused_before_parsing(opening: str) -> None:
    depth = 1_000 if opening == "[" else 300
    closing = "]" if opening == "[" else "}"
    body = opening * depth + "1" + closing * depth
    assert len(body.encode()) < 2_100 or opening != "["
    assert refusal(body).code == "malformed_json"
    inside = f'{{"action": "list_tables", "request_id": "r1", "x": {body}}}'
    assert refusal(inside).code == "malformed_json"


def test_nesting_up_to_the_limit_and_brackets_inside_strings_are_fine() -> None:
    nested = "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)
    error = refusal(f'{{"action": "list_tables", "request_id": "r1", "x": {nested}}}')
    assert error.code == "invalid_request"  # parsed; the model refuses the unknown field
    text = "[" * 5_000
    parsed = parse_request(
        f'{{"action": "create_table", "request_id": "r1", "name": "{text[:40]}", "small_blind": 1, '
        '"big_blind": 2, "min_buy_in": 40, "max_buy_in": 80}')
    assert parsed.action == "create_table"


def test_an_unknown_action_is_quoted_short() -> None:
    error = refusal(json.dumps({"action": "x" * 10_000, "request_id": "r1"}))
    assert error.code == "unknown_action" and "x" * 40 not in error.message
    assert len(error.message) < 100 + len(", ".join(ROUTES))  # the quote, then the routes


def test_a_reply_never_fails_on_its_content() -> None:
    assert json.loads(encode_message({"text": "\ud800"})) == {"text": "\ud800"}
    assert encode_message({"name": "Café"}) == '{"name":"Café"}'.encode()


@pytest.mark.parametrize("body", [
    '{"action": "list_tables", "request_id": "r1"}'.encode("utf-16"),
    '{"action": "list_tables", "request_id": "r1"}'.encode("utf-32-le"),
    b"\xef\xbb\xbf" + b'{"action": "list_tables", "request_id": "r1"}',
    b'{"action": "list_tables", "request_id": "r1", "x": NaN}',
    b'{"action": "list_tables", "request_id": "r1", "x": -Infinity}',
], ids=["utf-16", "utf-32", "bom", "nan", "infinity"])
def test_a_frame_is_json_in_utf_8_and_nothing_else(body: bytes) -> None:
    assert refusal(body).code == "malformed_json"


def test_a_name_is_at_most_40_characters_once_normalised() -> None:
    frame = json.dumps({"action": "create_table", "request_id": "r1", "name": "\ufb2c" * 40,
                        "small_blind": 1, "big_blind": 2, "min_buy_in": 40, "max_buy_in": 80})
    assert refusal(frame).code == "invalid_request"  # NFC makes it 120 characters
