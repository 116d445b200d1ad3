"""Issue 10, "Bad input that still gets through": every frame a client can send is answered.

Hypothesis drives hostile frames through the real game handler (``functions/game/app.py``)
against a service on the in-memory adapters with a NAIKO hand running (the harness and its
properties: ``tests/fuzz_testing.py``). Four strategies: raw bytes, arbitrary JSON and text
(lone surrogates, NUL, bidi overrides, long strings), deep nesting, and valid requests of every
route with fields replaced, added or removed (real table ids and request ids reused, so replays
happen). Each example is a short session (1-4 frames) on a fresh stack.

The benchmark-size run is ``scripts/fuzz_frames.py`` (10,000 frames).
"""

from __future__ import annotations

import json

import pytest
from fuzz_testing import (
    FUZZERS,
    MODEL_FIELDS,
    NAIKO_TABLE,
    NLHE_TABLE,
    PLAUSIBLE,
    PROTOCOL_CODES,
    STRATEGIES,
    VALID_FRAMES,
    Delivery,
    Frame,
    FuzzStack,
    documented_error_codes,
    frames,
    is_reply,
    log_problems,
    message_problem,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from naiko_service.protocol import MAX_FRAME_BYTES, MAX_NESTING, ROUTES, parse_request
from profile_testing import by_profile

EXAMPLES = by_profile(ci=100, thorough=300)
"""Examples per strategy (each a session of 1-4 frames): about 1,000 frames in all, 3,000
under the ``thorough`` profile (``tests/profile_testing.py``)."""

FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example,
                                       HealthCheck.filter_too_much])


def run_session(session: list[Frame]) -> None:
    """Send *session* on a fresh stack; every frame must get what the harness checks."""
    with FuzzStack() as stack:
        for number, frame in enumerate(session):
            outcome = stack.send(frame)
            assert outcome.crash is None, f"frame {number} crashed: {frame.show()}\n" \
                                          f"{outcome.crash}"
            assert not outcome.violations, (f"frame {number}: {frame.show()}\n"
                                            + "\n".join(outcome.violations))


def sessions(kind: str) -> st.SearchStrategy[list[Frame]]:
    return st.lists(frames(kind), min_size=1, max_size=4)


# -- the harness itself -------------------------------------------------------------------------

def test_the_documented_codes_are_read_from_section_7() -> None:
    codes = documented_error_codes()
    assert PROTOCOL_CODES | {"not_connected", "internal_error", "not_seated", "unknown_table",
                             "not_your_turn", "window_closed", "hand_in_progress"} <= codes
    assert "fold" not in codes and "ack" not in codes


def test_the_valid_frames_cover_every_route_and_reach_the_use_cases() -> None:
    assert set(VALID_FRAMES) == set(ROUTES)
    assert set(STRATEGIES) == {"raw", "json", "deep", "mutated"}
    with FuzzStack() as stack:
        for action, fields in VALID_FRAMES.items():
            for fuzzer in FUZZERS:
                body = json.dumps({"action": action, "request_id": f"v-{action}", **fields})
                assert parse_request(body).action == action
                outcome = stack.send(Frame(body, fuzzer))
                assert outcome.ok, (action, fuzzer, outcome.violations, outcome.crash)
                assert outcome.replies[0].get("code") not in PROTOCOL_CODES, outcome.replies


def _world_of(stack: FuzzStack) -> tuple[object, ...]:
    """What a stack's world is: every table and tournament record, every balance and ledger
    entry, every message sent, every timer, the clock."""
    tables = {t: stack.store.load(t) for t in sorted(stack.known_tables)
              if t in stack.store._items}
    return (stack.fingerprint(), tables, dict(stack.accounts.balances),
            list(stack.accounts.ledger), dict(stack.gateway.sent), list(stack.scheduler.scheduled),
            stack.clock.now, dict(stack.connections.muted))


def test_a_copied_stack_is_the_world_built_afresh() -> None:
    """Each FuzzStack is a copy of one world set up once (the set-up was half of every
    example's time): the copy equals a world built through the service now, plays on the same
    (the same deck drawn, the same replies to every route, timers firing alike), and two copies
    share nothing."""
    fresh, copied, other = FuzzStack.built_afresh(), FuzzStack(), FuzzStack()
    assert _world_of(copied) == _world_of(fresh)
    frames_sent = [Frame(json.dumps({"action": action, "request_id": f"v-{action}", **fields}),
                         fuzzer, tick_ms=4_000, others_act=True)
                   for action, fields in VALID_FRAMES.items() for fuzzer in FUZZERS]
    replies = []
    for stack in (fresh, copied):
        with stack:
            replies.append([stack.send(frame).replies for frame in frames_sent])
    assert replies[1] == replies[0]
    assert _world_of(copied) == _world_of(fresh)
    assert copied.store.writes > other.store.writes  # the copy played, the other did not
    assert _world_of(other) == _world_of(FuzzStack.built_afresh())


def test_every_field_of_every_route_has_plausible_values() -> None:
    """The mutating strategy draws a field of the route's model and a value near the valid
    ones: a new field without its entry in PLAUSIBLE made it fail at random (a KeyError in one
    run of several), so the table is checked against the models here, every run."""
    missing = {(action, name) for action in ROUTES for name in MODEL_FIELDS[action]
               if name != "action" and name not in PLAUSIBLE}
    assert not missing, f"add these fields to fuzz_testing.PLAUSIBLE: {sorted(missing)}"


def test_a_replayed_request_is_one_reply_and_the_fuzzer_can_be_seated() -> None:
    rejoin = json.dumps({"action": "join_table", "request_id": "join-carol",
                         "table_id": NAIKO_TABLE, "buy_in": 500})
    with FuzzStack() as stack:
        outcome = stack.send(Frame(rejoin, "carol"))
        assert outcome.ok, outcome.violations
        assert outcome.replies[0]["replayed"] is True  # carol's own join, answered again
        sent = stack.gateway.sent[FUZZERS["carol"]]
        assert [m["type"] for m in sent] == ["ack", "snapshot"] and sent[1]["request_id"] is None
        join = json.dumps({"action": "join_table", "request_id": "r1", "table_id": NLHE_TABLE,
                           "buy_in": 100})
        first, again = stack.send(Frame(join)), stack.send(Frame(join))
        assert (first.reply_kind, first.replies[0]["replayed"]) == ("update", False)  # its answer
        assert (again.reply_kind, again.replies[0]["replayed"]) == ("ack", True)
        assert first.ok and again.ok, (first.violations, again.violations)


def test_the_checks_catch_what_they_guard() -> None:
    assert message_problem({"type": "error", "request_id": "\ud800", "code": "x",
                            "message": "m"}) is not None
    assert message_problem({"type": "ack", "request_id": "r1", "version": float("nan")})
    assert message_problem({"type": "error", "request_id": None, "code": "busy",
                            "message": "m"}) is None
    # a code outside protocol.ErrorCode (so outside docs/protocol.md's table) is caught too
    assert message_problem({"type": "error", "request_id": None, "code": "x", "message": "m"})
    assert not is_reply({"type": "snapshot", "request_id": None, "table_id": "t", "version": 1,
                         "view": {}})
    assert not is_reply({"type": "update"})
    emf = '{"_aws": {}, "ProtocolErrors": [1.0]}\n'
    refused = "malformed_json"
    record = json.dumps({"message": "frame refused", "code": "malformed_json",
                         "connection_id": "c"}).encode() + b"\n"
    assert log_problems(record, "", emf, refused, "c") == []
    assert log_problems(record, "--- Logging error ---\n", emf, refused, "c")
    assert log_problems(b"", "", emf, refused, "c")  # the refusal was not logged
    assert log_problems(record, "", emf + emf, refused, "c")  # counted twice
    assert log_problems(record, "", "", refused, "c")  # no metrics


# -- the four strategies ------------------------------------------------------------------------

@FUZZ
@given(session=sessions("raw"))
@example(session=[Frame(b"\xed\xa0\x80", delivery=Delivery.SURROGATEESCAPE)])
@example(session=[Frame(b'{"action": "list_tables", "request_id": "r\xff"}',
                        delivery=Delivery.SURROGATEESCAPE)])
@example(session=[Frame(b"\x00" * (MAX_FRAME_BYTES + 1), delivery=Delivery.LATIN1)])
@example(session=[Frame(b'{"action": "list_tables", "request_id": "r1"}',
                        delivery=Delivery.BASE64)])
@example(session=[Frame(None), Frame("")])
def test_raw_bytes_are_answered(session: list[Frame]) -> None:
    run_session(session)


@FUZZ
@given(session=sessions("json"))
@example(session=[Frame('{"action": "act", "request_id": "\\ud800"}')])
@example(session=[Frame('{"action": "list_tables", "request_id": "\\udfff"}')])
@example(session=[Frame(json.dumps({"action": "list_tables", "request_id": "r\ud800"},
                                   ensure_ascii=False))])
@example(session=[Frame('{"action": "list_tables", "request_id": "r1", "\\ud800": 1}')])
@example(session=[Frame('{"action": "\\ud800", "request_id": "r1"}')])
@example(session=[Frame(json.dumps({"action": "list_tables", "request_id": "r\u202e\x00"}))])
@example(session=[Frame('{"action": "list_tables", "request_id": "r1", "x": NaN}')])
@example(session=[Frame('{"action": "list_tables", "request_id": 1' + "0" * 5000 + "}")])
def test_json_values_and_text_are_answered(session: list[Frame]) -> None:
    run_session(session)


@FUZZ
@given(session=sessions("deep"))
@example(session=[Frame("[" * 1000 + "]" * 1000)])
@example(session=[Frame('{"a":' * 1000 + "0" + "}" * 1000)])
@example(session=[Frame("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1))])
@example(session=[Frame('{"action": "act", "request_id": "r1", "table_id": "t1", '
                        '"move": "bet", "amount": ' + "[" * MAX_NESTING + "]" * MAX_NESTING
                        + "}")])
@example(session=[Frame('{"action": "list_tables", "request_id": "r1", "x": "\\\\"'
                        + "[" * 2000 + "}")])
def test_deep_nesting_is_answered(session: list[Frame]) -> None:
    run_session(session)


@FUZZ
@given(session=sessions("mutated"))
@example(session=[Frame(json.dumps({"action": "create_table", "request_id": "r1",
                                    "name": "\ufb2c" * 40, "small_blind": 1, "big_blind": 2,
                                    "min_buy_in": 40, "max_buy_in": 200}))])
@example(session=[Frame(json.dumps({"action": "join_table", "request_id": "join-carol",
                                    "table_id": NAIKO_TABLE, "buy_in": 500}), "carol")] * 2)
@example(session=[Frame(json.dumps({"action": "add_chips", "request_id": "r1",
                                    "table_id": NAIKO_TABLE, "amount": 10**12}), "carol")])
def test_mutated_requests_of_every_route_are_answered(session: list[Frame]) -> None:
    run_session(session)


# -- found by this fuzzer, fixed in protocol.py (2607160) -----------------------------------------

LIST_TABLES = json.dumps({"action": "list_tables", "request_id": "r1"})


@pytest.mark.parametrize("body", [
    LIST_TABLES.encode("utf-16-be").decode("latin-1"),  # '\x00{\x00"...': text with NULs
    LIST_TABLES.encode("utf-32-le").decode("latin-1"),
    "\ufeff" + LIST_TABLES,
    '{"action": "act", "request_id": "r1", "table_id": "t1", "move": "bet", "amount": NaN}',
    '{"action": "add_chips", "request_id": "r1", "table_id": "t1", "amount": Infinity}',
], ids=["utf-16", "utf-32", "bom", "nan", "infinity"])
def test_frames_that_are_not_utf8_json_are_malformed_json(body: str) -> None:
    """json.loads(bytes) used to guess UTF-16/32, skip a BOM and read NaN/Infinity."""
    with FuzzStack() as stack:
        outcome = stack.send(Frame(body))
    assert outcome.ok, outcome.violations
    assert outcome.replies[0]["code"] == "malformed_json", outcome.replies


def test_a_table_name_is_at_most_40_characters_once_normalised() -> None:
    """NFC triples U+FB2C: a 40-character name used to be accepted as 120."""
    body = json.dumps({"action": "create_table", "request_id": "r1", "name": "\ufb2c" * 40,
                       "small_blind": 1, "big_blind": 2, "min_buy_in": 40, "max_buy_in": 200})
    with FuzzStack() as stack:
        outcome = stack.send(Frame(body))
        names = [t.name for t in stack.store.list_open()]
    assert outcome.ok, outcome.violations
    assert outcome.replies[0]["code"] == "invalid_request", outcome.replies
    assert max(map(len, names)) <= 40
