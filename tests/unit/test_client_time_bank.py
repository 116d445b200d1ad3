"""The terminal client's time bank (R8.7) and pre-actions (R8.8): ``bank`` and ``pre ...`` typed
against the view, the seats' banks and your queued pre-action on the table screen, the events as
sentences. The views are the documented ones (``docs/protocol.md``) with a bank published."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from naiko_client import i18n
from naiko_client.app import parse_command
from naiko_client.render import Narrator, pre_action_text
from test_client_render import _doc_message, row, screen

BANK = {"initial_s": 30, "top_up_s": 5, "every": 10, "per": "hands", "cap_s": 60}


def with_bank(view: dict[str, Any], running: int | None = None) -> dict[str, Any]:
    view = copy.deepcopy(view)
    view["settings"]["time_bank"] = BANK
    for seat in view["seats"]:
        if seat:
            seat["time_bank_ms"] = 30_000
            seat["time_bank_running"] = seat["seat_index"] == running
    view.setdefault("pre_action", None)
    return view


@pytest.fixture
def bob() -> dict[str, Any]:
    """Bob's view on his turn (seat 1), the table publishing a bank."""
    return with_bank(_doc_message("snapshot")["view"])


@pytest.fixture
def carol() -> dict[str, Any]:
    """Carol's documented view after bob's raise (seat 3, 15 to call), but alice (seat 0) to
    act first: not carol's turn."""
    view = with_bank(_doc_message("update")["view"])
    view["prompt"] = None
    view["hand"]["actor"] = 0
    return view


def test_r8_7_bank_on_your_turn_starts_the_time_bank(bob: dict[str, Any]) -> None:
    assert parse_command("bank", bob).request == {"action": "use_time_bank"}
    bob["seats"][1]["time_bank_running"] = True
    assert parse_command("bank", bob).error == "Your time bank is already running."
    bob["seats"][1]["time_bank_running"] = False
    bob["seats"][1]["time_bank_ms"] = 0
    assert parse_command("bank", bob).error == "Your time bank is empty."
    bob["settings"]["time_bank"] = None
    assert parse_command("bank", bob).error == "This table has no time bank."


def test_r8_7_bank_when_it_is_not_your_turn_sends_nothing(carol: dict[str, Any]) -> None:
    assert carol["prompt"] is None
    assert parse_command("bank", carol).error == "It is not your turn."


def test_r8_7_every_seat_shows_its_bank_and_yours_offers_the_command(bob: dict[str, Any]) -> None:
    text = screen(bob)
    assert "bank 30s" in row(text, "carol") and "bank 30s" in row(text, "alice")
    assert "`bank` time bank (30 s)" in text
    running = with_bank(bob, running=1)
    text = screen(running)
    assert "BANK 30s" in row(text, "You") and "`bank` time bank" not in text


def test_r8_8_pre_commands_queue_what_the_view_allows(carol: dict[str, Any]) -> None:
    me = carol["seats"][carol["seat_index"]]
    top = max(s.get("bet") or 0 for s in carol["seats"] if s and s.get("in_hand"))
    price = min(top - (me.get("bet") or 0), me["stack"])
    assert price > 0
    assert parse_command("pre cf", carol).request == {"action": "pre_action",
                                                      "kind": "check_fold"}
    assert parse_command("pre any", carol).request == {"action": "pre_action",
                                                       "kind": "call_any"}
    assert parse_command("pre fold", carol).request == {"action": "pre_action", "kind": "fold"}
    parsed = parse_command("pre call", carol)
    assert parsed.request == {"action": "pre_action", "kind": "call", "amount": price}
    assert parsed.label == f"pre call {price}"
    assert parse_command("pre check", carol).error.startswith("There is a bet")  # type: ignore[union-attr]
    assert parse_command("pre off", carol).error == "You have no pre-action queued."
    carol["pre_action"] = {"kind": "fold", "amount": None}
    assert parse_command("pre off", carol).request == {"action": "clear_pre_action"}
    assert parse_command("pre maybe", carol).error is not None


def test_r8_8_on_your_turn_pre_is_refused(bob: dict[str, Any]) -> None:
    assert parse_command("pre fold", bob).error == "It is your turn: act now."


def test_r8_8_your_queued_pre_action_is_on_the_screen(carol: dict[str, Any]) -> None:
    assert "Pre-action" not in screen(carol)
    carol["pre_action"] = {"kind": "call", "amount": 10}
    assert "Pre-action: call 10 (`pre off` to clear)" in screen(carol)


def test_r8_7_r8_8_events_as_sentences(carol: dict[str, Any]) -> None:
    narrator = Narrator(carol["seats"][carol["seat_index"]]["player_id"])
    actor = carol["hand"]["actor"]
    name = carol["seats"][actor]["player_id"]
    said = narrator.narrate([{"kind": "time_bank_started", "seat_index": actor,
                              "bank_ms": 30_000, "until_ms": 1}], carol)
    assert said == [f"{name}'s time bank runs (30 s)"]
    mine = narrator.narrate([{"kind": "time_bank_started", "seat_index": carol["seat_index"],
                              "bank_ms": 25_000, "until_ms": 1}], carol)
    assert mine == ["Your clock ran out: your time bank runs (25 s)"]
    dropped = narrator.narrate([{"kind": "pre_action_cleared", "player_id": "carol",
                                 "pre_action": "call", "amount": 10, "reason": "stale"}], carol)
    assert dropped == ["Your pre-action (call 10) was dropped: the price changed"]


def test_r8_8_pre_action_texts_in_polish() -> None:
    i18n.set_language("pl")
    try:
        assert pre_action_text({"kind": "check_fold"}) == "czekaj/pas"
        assert pre_action_text({"kind": "call", "amount": 5}) == "sprawdź 5"
    finally:
        i18n.set_language("en")
