"""The WebSocket protocol (``naiko_service.protocol``, ``docs/protocol.md``): every route parses,
bad frames get their stable codes, the published schemas are current, and every message a real
session sends (``scripts/protocol_examples.py``) matches the message models and the docs."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from naiko_service import protocol
from naiko_service.protocol import MAX_FRAME_BYTES, ROUTES, ProtocolError, parse_request
from pydantic import TypeAdapter
from service_testing import harness

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
SCHEMAS = ROOT / "docs" / "schemas"

TABLE = "t12a908ded3ed4df94230"
TOURNAMENT = "ua745b06f34eb89f2749e"

MESSAGE_TYPES = {"ack", "error", "snapshot", "update", "tables", "account", "invite_code",
                 "table_found", "tournaments", "tournament", "hands", "hand", "heartbeat"}
"""Every type of server message."""

MINIMAL: dict[str, dict[str, Any]] = {
    "create_table": {"name": "Friday", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                     "max_buy_in": 200},
    "list_tables": {},
    "join_table": {"table_id": TABLE, "buy_in": 100},
    "leave_table": {"table_id": TABLE},
    "sit_out": {"table_id": TABLE},
    "sit_in": {"table_id": TABLE},
    "add_chips": {"table_id": TABLE, "amount": 50},
    "snapshot": {"table_id": TABLE},
    "unwatch": {"table_id": TABLE},
    "act": {"table_id": TABLE, "move": "fold"},
    "use_power": {"table_id": TABLE, "power": "peek"},
    "shield": {"table_id": TABLE},
    "pass_window": {"table_id": TABLE},
    "choose_entry": {"table_id": TABLE, "entry": "post"},
    "join_waitlist": {"table_id": TABLE},
    "leave_waitlist": {"table_id": TABLE},
    "quick_seat": {"small_blind": 1, "big_blind": 2, "buy_in": 100},
    "get_account": {},
    "invite": {"table_id": TABLE, "player_id": "dave"},
    "uninvite": {"table_id": TABLE, "player_id": "dave"},
    "create_invite_code": {"table_id": TABLE},
    "revoke_invite_code": {"table_id": TABLE},
    "find_table": {"code": "K7M2QX9P"},
    "host_settings": {"table_id": TABLE, "decision_seconds": 30},
    "host_add_bot": {"table_id": TABLE},
    "host_remove": {"table_id": TABLE, "player_id": "bob"},
    "host_pause": {"table_id": TABLE, "paused": True},
    "host_close": {"table_id": TABLE},
    "create_tournament": {"preset": "spin_3max_hyper", "entry": 100},
    "list_tournaments": {},
    "get_tournament": {"tournament_id": TOURNAMENT},
    "register": {"tournament_id": TOURNAMENT},
    "unregister": {"tournament_id": TOURNAMENT},
    "tournament_add_bots": {"tournament_id": TOURNAMENT},
    "cancel_tournament": {"tournament_id": TOURNAMENT},
    "hand_history": {},
    "get_hand": {"table_id": TABLE, "hand_number": 1},
    "heartbeat": {},
}
"""The smallest valid request of each route (besides ``action`` and ``request_id``)."""


def frame(action: str, **fields: Any) -> str:
    return json.dumps({"action": action, "request_id": "r1", **fields})


def refusal(body: str | bytes | None) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        parse_request(body)
    return caught.value


# -- requests --------------------------------------------------------------------------------

def test_minimal_examples_cover_every_route() -> None:
    assert set(MINIMAL) == set(ROUTES)


@pytest.mark.parametrize("action", ROUTES)
def test_every_route_parses_from_a_minimal_valid_example(action: str) -> None:
    request = parse_request(frame(action, **MINIMAL[action]))
    assert request.action == action
    assert request.request_id == "r1"


def test_defaults_of_create_table() -> None:
    request = parse_request(frame("create_table", **MINIMAL["create_table"]))
    assert (request.variant, request.seat_count, request.decision_seconds, request.private,
            request.invited, request.bots) == ("NLHE", 6, None, False, [], False)
    # no decision_seconds: the deployment's default clock applies (Deps.default_decision_ms)


def test_requests_are_immutable_values() -> None:
    request = parse_request(frame("act", table_id=TABLE, move="fold"))
    with pytest.raises(ValueError):
        request.move = "call"


@pytest.mark.parametrize("body", [
    "{not json", "", "[1, 2]", '"act"', "null", b'{"action": "\x80"}',
], ids=["syntax", "empty", "array", "string", "null", "not-utf8"])
def test_a_frame_that_is_not_a_json_object_is_malformed_json(body: str | bytes) -> None:
    error = refusal(body)
    assert error.code == "malformed_json"
    assert error.request_id is None


def test_no_body_at_all_is_malformed_json() -> None:
    assert refusal(None).code == "malformed_json"


@pytest.mark.parametrize("data", [
    {"action": "raise", "request_id": "r1"},
    {"action": "$default", "request_id": "r1"},
    {"action": None, "request_id": "r1"},
    {"request_id": "r1", "table_id": TABLE},
], ids=["unknown", "builtin-route", "null", "missing"])
def test_an_unknown_action_is_refused_and_the_request_id_echoed(data: dict[str, Any]) -> None:
    error = refusal(json.dumps(data))
    assert error.code == "unknown_action"
    assert error.request_id == "r1"


@pytest.mark.parametrize("body, field", [
    (frame("join_table", table_id=TABLE), "buy_in"),
    (json.dumps({"action": "list_tables"}), "request_id"),
    (frame("join_table", table_id=TABLE, buy_in="100"), "buy_in"),
    (frame("join_table", table_id=TABLE, buy_in=True), "buy_in"),
    (frame("join_table", table_id=123, buy_in=100), "table_id"),
    (frame("act", table_id=TABLE, move="raise_to", amount=-20), "amount"),
    (frame("add_chips", table_id=TABLE, amount=0), "amount"),
    (frame("act", table_id=TABLE, move="bet", amount=12.5), "amount"),
    (frame("act", table_id=TABLE, move="bet", amount=12.0), "amount"),
    (frame("act", table_id=TABLE, move="fold", player_id="bob"), "player_id"),
    (frame("snapshot", table_id=TABLE, seat_index=2), "seat_index"),
    (json.dumps({"action": "list_tables", "request_id": "r" * 65}), "request_id"),
    (json.dumps({"action": "list_tables", "request_id": "r 1"}), "request_id"),
    (frame("act", table_id=TABLE, move="raise"), "move"),
    (frame("use_power", table_id=TABLE, power="seal_shield"), "power"),
    (frame("use_power", table_id=TABLE, power="sleeve_swap", card_index=2), "card_index"),
    (frame("join_table", table_id=TABLE, buy_in=100, seat_index=10), "seat_index"),
    (frame("join_table", table_id="../t1", buy_in=100), "table_id"),
    (frame("create_table", **{**MINIMAL["create_table"], "seat_count": 11}), "seat_count"),
], ids=["missing-field", "missing-request-id", "string-for-int", "bool-for-int",
        "int-for-string", "negative-amount", "zero-amount", "fractional-amount",
        "float-amount", "extra-field", "extra-field-2", "request-id-too-long",
        "request-id-bad-chars", "unknown-move", "shield-is-its-own-route", "card-index",
        "seat-index", "table-id-chars", "seat-count"])
def test_an_invalid_request_names_the_field(body: str, field: str) -> None:
    error = refusal(body)
    assert error.code == "invalid_request"
    assert field in error.message


def test_an_invalid_request_echoes_a_readable_request_id() -> None:
    assert refusal(frame("join_table", table_id=TABLE)).request_id == "r1"


def test_a_frame_over_32_kb_is_refused_before_parsing() -> None:
    body = frame("list_tables").rstrip("}") + ', "pad": "' + "x" * MAX_FRAME_BYTES + '"}'
    error = refusal(body)
    assert error.code == "frame_too_large"
    assert error.request_id is None


def test_the_limit_counts_bytes_and_a_frame_of_exactly_32_kb_is_accepted() -> None:
    body = frame("list_tables")
    assert parse_request(body + " " * (MAX_FRAME_BYTES - len(body))).action == "list_tables"
    too_long = body + " " * (MAX_FRAME_BYTES - len(body) + 1)
    assert refusal(too_long).code == "frame_too_large"
    multibyte = json.dumps({"action": "create_table", "request_id": "r1",
                            **MINIMAL["create_table"], "name": "Piątek"}, ensure_ascii=False)
    padded = multibyte + " " * (MAX_FRAME_BYTES - len(multibyte))  # characters, not bytes
    assert len(padded) == MAX_FRAME_BYTES
    assert refusal(padded).code == "frame_too_large"


def test_amount_rules_of_act_are_enforced_by_the_service() -> None:
    h = harness()
    alice = h.player("alice")
    table = alice.send(action="create_table", name="x", small_blind=1, big_blind=2,
                       min_buy_in=40, max_buy_in=200)["table_id"]
    alice.send(action="join_table", table_id=table, buy_in=100)
    bet = alice.send(action="act", table_id=table, move="bet")
    call = alice.send(action="act", table_id=table, move="call", amount=2)
    assert (bet["code"], call["code"]) == ("invalid_request", "invalid_request")


# -- schemas ---------------------------------------------------------------------------------

def test_committed_schemas_are_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "export_schemas.py"),
                             "--check"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_request_schema_has_one_branch_per_route() -> None:
    schema = json.loads((SCHEMAS / "requests.schema.json").read_text(encoding="utf-8"))
    assert set(schema["discriminator"]["mapping"]) == set(ROUTES)


# -- a real session --------------------------------------------------------------------------

def _load_examples_script() -> ModuleType:
    path = ROOT / "scripts" / "protocol_examples.py"
    spec = importlib.util.spec_from_file_location("protocol_examples", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def session() -> Any:
    return _load_examples_script().play()


def _all_messages(session: Any) -> list[dict[str, Any]]:
    return [m for sent in session.harness.gateway.sent.values() for m in sent]


def test_the_session_exercises_every_route_and_message_type(session: Any) -> None:
    assert set(session.requests) == set(ROUTES)
    assert {m["type"] for m in _all_messages(session)} == MESSAGE_TYPES


def test_every_request_of_the_session_parses(session: Any) -> None:
    for example in session.requests.values():
        assert parse_request(json.dumps(example["request"])).action == example["request"][
            "action"]


def test_every_message_of_the_session_matches_the_message_models(session: Any) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(protocol.AnyMessage)
    messages = _all_messages(session)
    assert len(messages) > 100
    for message in messages:
        adapter.validate_python(message, strict=True)


def test_every_message_of_the_session_matches_the_published_schema(session: Any) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMAS / "messages.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for message in _all_messages(session):
        validator.validate(json.loads(json.dumps(message)))


def test_versions_increase_by_one_per_table_write(session: Any) -> None:
    for sent in session.harness.gateway.sent.values():
        versions = [m["version"] for m in sent if m["type"] == "update"]
        assert versions == sorted(versions)
    dave = session.clients["dave"]
    updates = [m["version"] for m in dave.messages if m["type"] == "update"]
    assert updates == list(range(updates[0], updates[0] + len(updates)))


def test_a_seat_sees_only_its_own_hidden_cards(session: Any) -> None:
    for connection, sent in session.harness.gateway.sent.items():
        for message in sent:
            if "view" not in message:
                continue
            view = message["view"]
            hand = view["hand"]
            # R4.4/R2.4: another seat's cards only once the hand is over, and only for the
            # hands still in at a showdown (never a folded hand, nor the last one left). The
            # showdown's pots name them (``eligible``): players a tournament eliminated in
            # that hand have already left their seats.
            in_hand = [s for s in view["seats"] if s is not None and s["in_hand"]]
            shown_down = {i for award in (hand or {}).get("awards", ())
                          if hand is not None and hand["complete"] and award["showdown"]
                          for i in award["eligible"]}
            for seat in in_hand:
                if seat["seat_index"] != view["seat_index"]:
                    shown = seat["seat_index"] in shown_down and not seat["folded"]
                    assert (seat["cards"] is not None) == shown, connection
            for event in message.get("events", ()):
                assert event.get("private_to", view["seat_index"]) == view["seat_index"]


# -- the document ----------------------------------------------------------------------------

def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _error_codes_in_source() -> set[str]:
    """Every error code a client can be sent, as written in the code that sends it."""
    engine = ROOT / "layers" / "engine"
    sources = [engine / p for p in ("naiko/errors.py", "naiko/engine.py", "naiko/powers.py")]
    sources += sorted((engine / "naiko_service").rglob("*.py"))
    sources.append(ROOT / "functions" / "game" / "app.py")
    pattern = re.compile(r'(?:\bcode\s*=\s*|ServiceError\(|ProtocolError\(|error_message\(\s*'
                         r'|reply\([^()"]*?,\s*)"([a-z_]+)"')
    return {code for path in sources if path.is_file()
            for code in pattern.findall(path.read_text("utf-8"))}


def test_the_doc_lists_every_error_code_of_the_code() -> None:
    codes = _error_codes_in_source()
    assert {"not_your_turn", "frame_too_large", "busy", "no_open_window"} <= codes
    missing = sorted(c for c in codes if f"`{c}`" not in _doc())
    assert not missing


def test_the_doc_covers_every_route_message_and_event_of_the_session(session: Any) -> None:
    doc = _doc()
    kinds = {e["kind"] for m in _all_messages(session) for e in m.get("events", ())}
    names = set(ROUTES) | MESSAGE_TYPES | kinds
    assert not sorted(n for n in names if f"`{n}`" not in doc)
    assert "schemas/requests.schema.json" in doc and "schemas/messages.schema.json" in doc


def _doc_examples() -> list[dict[str, Any]]:
    """Every JSON object of the doc's ``json`` code blocks (a block is one value or one value
    a line)."""
    examples: list[dict[str, Any]] = []
    for block in re.findall(r"```json\n(.*?)```", _doc(), flags=re.DOTALL):
        try:
            values = [json.loads(block)]
        except ValueError:
            values = [json.loads(line) for line in block.splitlines() if line.strip()]
        examples += [v for v in values if isinstance(v, dict)]
    return examples


def test_the_doc_examples_are_valid_requests_and_messages() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(protocol.AnyMessage)
    examples = _doc_examples()
    requests = [e for e in examples if "action" in e]
    messages = [e for e in examples if "type" in e]
    assert {r["action"] for r in requests} == set(ROUTES)
    assert {m["type"] for m in messages} == MESSAGE_TYPES
    for request in requests:
        parse_request(json.dumps(request))
    for message in messages:
        adapter.validate_python(message, strict=True)
