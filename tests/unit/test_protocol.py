"""The WebSocket protocol (``naiko_service.protocol``, ``docs/protocol.md``): every route parses,
bad frames get their stable codes, the published schemas are current, and every message a real
session sends (``scripts/protocol_examples.py``) matches the message models and the docs."""

from __future__ import annotations

import ast
import copy
import functools
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
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
                 "table_found", "tournaments", "tournament", "tournament_players",
                 "tournament_results", "standings", "hands", "hand", "heartbeat", "chat"}
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
    "tournament_players": {"tournament_id": TOURNAMENT},
    "tournament_results": {"tournament_id": TOURNAMENT},
    "get_standings": {"tournament_id": TOURNAMENT},
    "register": {"tournament_id": TOURNAMENT},
    "reenter": {"tournament_id": TOURNAMENT},
    "unregister": {"tournament_id": TOURNAMENT},
    "tournament_add_bots": {"tournament_id": TOURNAMENT},
    "cancel_tournament": {"tournament_id": TOURNAMENT},
    "hand_history": {},
    "get_hand": {"table_id": TABLE, "hand_number": 1},
    "heartbeat": {},
    # -- table chat (R8.9)
    "chat": {"table_id": "t1", "text": "nice hand"},
    "emote": {"table_id": "t1", "emote": "gg"},
    "chat_mute": {"player_id": "bob"},
    "chat_unmute": {"player_id": "bob"},
    # R8.7, R8.8
    "use_time_bank": {"table_id": TABLE},
    "ask_deal": {"table_id": TABLE},
    "accept_deal": {"table_id": TABLE, "offer_id": "41.1700000300000", "split": "icm"},
    "decline_deal": {"table_id": TABLE, "offer_id": "41.1700000300000"},
    "pre_action": {"table_id": TABLE, "kind": "check_fold"},
    "clear_pre_action": {"table_id": TABLE},
    "register_device": {"platform": "fcm", "token": "t0"},
    "unregister_device": {"token": "t0"},
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


FORWARDED = frozenset({"error.code", "code"})
"""The only non-literal codes a sender may pass: a caught error's own ``code`` (the service's
``handle``, the handler's ``reply``), itself made by one of the senders scanned."""


def _error_code_senders() -> tuple[dict[str, list[str]], list[str]]:
    """:func:`_scan_error_code_senders`, read once per process (three tests use it: a second
    of CPU each); a copy each time."""
    return copy.deepcopy(_scan_error_code_senders())


@functools.cache
def _scan_error_code_senders() -> tuple[dict[str, list[str]], list[str]]:
    """Every error code the code can send a client, found in the syntax trees of the engine,
    the service and the Lambda handlers: the first argument of ``ServiceError(...)``,
    ``ProtocolError(...)`` and ``error_message(...)``, the third of the game handler's
    ``reply(...)``, the ``code=`` of a call to any ``EngineError`` subclass (``InvalidTerms``,
    ``PowerRejected``...) and the ``code = ...`` of each such class body. A name is resolved
    through the module-level string constants (``BOT_SEAT``). Returns the codes (each with
    where it is made) and the arguments it could not resolve (which must be none)."""
    engine = ROOT / "layers" / "engine"
    files = [*sorted((engine / "naiko").rglob("*.py")),
             *sorted((engine / "naiko_service").rglob("*.py")),
             *sorted((ROOT / "functions").glob("*/app.py"))]
    trees = {path: ast.parse(path.read_text("utf-8")) for path in files}
    constants: dict[str, str] = {}
    bases: dict[str, list[str]] = {}
    for tree in trees.values():
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                constants.update((t.id, node.value.value) for t in node.targets
                                 if isinstance(t, ast.Name))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = [ast.unparse(b).split(".")[-1] for b in node.bases]

    def engine_error(name: str | None) -> bool:
        return name == "EngineError" or any(engine_error(b) for b in bases.get(name or "", []))

    def resolved(node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
        return constants.get(name or "")

    codes: dict[str, list[str]] = {}
    unresolved: list[str] = []
    for path, tree in trees.items():
        where = path.relative_to(ROOT)
        for node in ast.walk(tree):
            made: list[ast.expr] = []
            if isinstance(node, ast.ClassDef) and engine_error(node.name):
                made = [st.value for st in node.body if isinstance(st, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "code" for t in st.targets)]
            elif isinstance(node, ast.Call):
                called = ast.unparse(node.func).split(".")[-1]
                if called in ("ServiceError", "ProtocolError", "error_message") and node.args:
                    made = [node.args[0]]
                elif called == "reply" and path.parent.name == "game" and len(node.args) >= 3:
                    made = [node.args[2]]
                elif engine_error(called):
                    made = [k.value for k in node.keywords if k.arg == "code"]
            for argument in made:
                code = resolved(argument)
                if code is not None:
                    codes.setdefault(code, []).append(f"{where}:{argument.lineno}")
                elif ast.unparse(argument) not in FORWARDED:
                    unresolved.append(f"{where}:{argument.lineno}: {ast.unparse(argument)}")
    return codes, unresolved


def _error_codes_in_source() -> set[str]:
    codes, unresolved = _error_code_senders()
    assert not unresolved, f"error codes the scan cannot read: {unresolved}"
    return set(codes)


def _error_codes_in_doc() -> set[str]:
    """The codes of the doc's error-code tables (section 7): the first column of each row."""
    section = _doc().split("## 7. Error codes", 1)[1].split("\n## 8.", 1)[0]
    return {code for line in section.splitlines() if line.startswith("| `")
            for code in re.findall(r"`([a-z_]+)`", line.split("|")[1])}


def test_the_doc_lists_every_error_code_of_the_code() -> None:
    """Issue 21 item 13: every code the code can send is in docs/protocol.md's error-code
    table, and the table lists no code the code cannot send."""
    codes = _error_codes_in_source()
    assert {"not_your_turn", "frame_too_large", "busy", "no_open_window", "bot_seat",
            "too_many_tournaments", "too_many_registrations", "invalid_terms",
            "rate_limited", "not_connected", "internal_error", "unknown_table",
            "malformed_json"} <= codes
    documented = _error_codes_in_doc()
    assert sorted(codes - documented) == [], "sent but not documented"
    assert sorted(documented - codes) == [], "documented but never sent"


def test_the_error_model_enumerates_every_error_code_of_the_code() -> None:
    """The ``error`` message's ``code`` is an enum (``protocol.ErrorCode``) of exactly the
    codes the code sends, and so are the published schema and the AsyncAPI document."""
    codes = _error_codes_in_source()
    assert set(protocol.ERROR_CODES) == codes
    assert len(protocol.ERROR_CODES) == len(codes)
    published = json.loads((SCHEMAS / "messages.schema.json").read_text("utf-8"))
    assert set(published["$defs"]["Error"]["properties"]["code"]["enum"]) == codes
    asyncapi = yaml.load((ROOT / "docs" / "asyncapi.yaml").read_text("utf-8"),  # noqa: S506
                         Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml's: 5x
    error = asyncapi["components"]["schemas"]["Error"]["properties"]["code"]
    assert set(error["enum"]) == codes
    assert asyncapi["components"]["messages"]["Error"]["payload"] == {
        "$ref": "#/components/schemas/Error"}


def test_the_error_code_scan_finds_what_it_must() -> None:
    """The scan itself: codes made every way it reads (a ServiceError's literal and named
    first argument, a ProtocolError, an EngineError subclass's ``code=`` and class body, the
    handler's ``reply``) are found where they are made."""
    codes, _ = _error_code_senders()
    where = {code: {w.split(":")[0] for w in places} for code, places in codes.items()}
    assert "layers/engine/naiko_service/usecases/base.py" in where["bot_seat"]  # BOT_SEAT
    assert "layers/engine/naiko_service/protocol.py" in where["frame_too_large"]
    assert "layers/engine/naiko/engine.py" in where["cannot_check"]
    assert "layers/engine/naiko/tournaments/structures.py" in where["invalid_terms"]
    assert "layers/engine/naiko/tournaments/structures.py" in where["unknown_preset"]
    assert "layers/engine/naiko/errors.py" in where["not_your_turn"]
    assert "functions/game/app.py" in where["rate_limited"]
    assert "hand_not_complete" not in codes  # HandExportError is not an EngineError


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
