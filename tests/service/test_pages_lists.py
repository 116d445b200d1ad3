"""Every list paged on the in-memory adapters (the scenarios of ``tests/pages_testing.py``;
the same on DynamoDB: ``tests/integration/test_pages_on_moto.py``), and the one send point
that refuses a message over 32 KB (issue 23 item 2)."""

from __future__ import annotations

from typing import Any

import pages_testing as scenarios
import pytest
from naiko_service.memory import RecordingGateway
from naiko_service.protocol import MAX_FRAME_BYTES
from naiko_service.usecases import fanout
from service_testing import harness


def test_issue23_tournament_players_are_paged() -> None:
    scenarios.issue23_tournament_players_are_paged(harness())


def test_issue23_tournament_results_are_paged_with_their_payments() -> None:
    scenarios.issue23_tournament_results_are_paged_with_their_payments(harness())


def test_issue23_the_lobby_tables_are_paged() -> None:
    scenarios.issue23_the_lobby_tables_are_paged(harness())


def test_issue23_the_lobby_tournaments_are_paged() -> None:
    scenarios.issue23_the_lobby_tournaments_are_paged(harness())


def test_issue23_a_cursor_of_one_list_is_refused_by_another() -> None:
    scenarios.issue23_a_cursor_of_one_list_is_refused_by_another(harness())


def test_issue23_an_unknown_tournament_is_not_an_empty_list() -> None:
    scenarios.issue23_an_unknown_tournament_is_not_an_empty_list(harness())


# -- the send point (fanout.deliver) -----------------------------------------------------------

def _logged(h: Any) -> list[tuple[str, dict[str, Any]]]:
    errors: list[tuple[str, dict[str, Any]]] = []
    h.service.deps.error = lambda message, fields: errors.append((message, fields))
    return errors


@pytest.mark.parametrize("size", [MAX_FRAME_BYTES - 200, MAX_FRAME_BYTES + 1, 409_000])
def test_issue23_the_send_point_refuses_a_message_over_a_frame_and_says_so(size: int) -> None:
    """A message over 32 KB is never posted (API Gateway would drop it): the connection gets
    ``reply_too_large`` with the request's id, the error is logged with the message's type and
    size, and counted ``MessagesOversize``; one under the limit goes out unchanged."""
    h = harness()
    errors = _logged(h)
    message = {"type": "tournaments", "request_id": "r1", "tournaments": [], "next": None}
    message["pad"] = "é" * ((size - len(fanout.Encoded.of(message).data)) // 2)
    size = len(fanout.Encoded.of(message).data)
    fanout.deliver(h.service.deps, "c1", message)
    (posted,) = h.gateway.sent["c1"]
    assert len(posted.data) <= MAX_FRAME_BYTES
    if size <= MAX_FRAME_BYTES:
        assert posted == message and not errors and "MessagesOversize" not in h.counters
        return
    assert posted["type"] == "error" and posted["code"] == "reply_too_large"
    assert posted["request_id"] == "r1" and str(size) in posted["message"]
    assert h.counters["MessagesOversize"] == 1
    assert errors == [("a message over the frame limit was not sent", {
        "connection_id": "c1", "message_type": "tournaments", "bytes": size,
        "limit": MAX_FRAME_BYTES})]


def test_issue23_every_post_of_a_request_goes_through_the_send_point(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Replies, errors and the fan-out's updates all pass ``fanout.deliver``: with the limit
    lowered under an update's size, the table's update is refused as well, never posted."""
    h = harness()
    seen: list[str] = []
    original = fanout.deliver

    def spy(deps: Any, connection_id: str, message: dict[str, Any]) -> None:
        seen.append(str(message.get("type")))
        original(deps, connection_id, message)

    monkeypatch.setattr(fanout, "deliver", spy)
    ann = h.player("ann")
    created = ann.send(action="create_table", name="t", small_blind=1, big_blind=2,
                       min_buy_in=40, max_buy_in=200)
    table_id = created["table_id"]
    ann.send(action="list_tables")
    ann.send(action="snapshot", table_id=table_id)
    ann.send(action="join_table", table_id=table_id, buy_in=100)
    ann.send(action="tournament_players", tournament_id="nope")
    assert {"ack", "tables", "snapshot", "update", "error"} <= set(seen)
    assert len(seen) == sum(len(v) for v in h.gateway.sent.values())
    errors = _logged(h)
    monkeypatch.setattr(fanout.p, "MAX_FRAME_BYTES", 500)
    bob = h.player("bob")
    reply = bob.send(action="snapshot", table_id=table_id)
    assert reply["type"] == "error" and reply["code"] == "reply_too_large"
    assert errors and errors[0][1]["message_type"] == "snapshot"
    assert h.counters["MessagesOversize"] == 1


def test_issue23_the_handler_s_own_error_frames_pass_the_send_point(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``functions/game/app.py`` answers a frame it cannot parse through ``fanout.deliver``."""
    import importlib

    app = importlib.import_module("functions.game.app")
    h = harness()
    delivered: list[dict[str, Any]] = []
    monkeypatch.setattr(fanout, "deliver",
                        lambda deps, connection_id, message: delivered.append(message))
    app.reply(h.service, "c1", "malformed_json", "the message is not valid JSON", None)
    assert [m["code"] for m in delivered] == ["malformed_json"]
    assert isinstance(h.gateway, RecordingGateway) and not h.gateway.sent


def test_issue23_a_route_s_own_response_body_passes_the_same_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A handler's returned ``body`` (sent by API Gateway to a route with a route response) is
    held to the frame too: over it, the body becomes ``reply_too_large``, logged and counted."""
    import json

    from naiko_service import bootstrap

    counted: list[str] = []
    monkeypatch.setattr(bootstrap, "count", lambda name, value=1: counted.append(name))
    small = {"statusCode": 200, "body": json.dumps({"type": "ack", "request_id": "r"})}
    assert bootstrap.route_response("game", small) is small
    assert bootstrap.route_response("game", {"statusCode": 200}) == {"statusCode": 200}
    big = {"statusCode": 200, "body": "x" * (MAX_FRAME_BYTES + 1)}
    answered = bootstrap.route_response("game", big)
    error = json.loads(answered["body"])
    assert (error["type"], error["code"]) == ("error", "reply_too_large")
    assert len(answered["body"]) < MAX_FRAME_BYTES and counted == ["MessagesOversize"]
