"""The terminal client at a knockout tournament's final table (R9.13, R9.16): the ``deal``
commands send ``ask_deal`` / ``accept_deal`` / ``decline_deal`` with the offer's id, the screen
shows the offer (both splits, every answer) and each seat's bounty."""

from __future__ import annotations

import copy
from typing import Any

from naiko_client.app import parse_command
from naiko_client.render import render

OFFER = {"offer_id": "2.1700000500800", "ends_ms": 30_000, "players": ["ann", "bob"],
         "stacks": [1400, 600], "prizes": [270], "kept": 30, "icm": [170, 100],
         "chip_count": [177, 93], "accepted": {"bob": "chip_count"}}


def _view(deal: dict[str, Any] | None = None, seat_index: int | None = 0) -> dict[str, Any]:
    tournament: dict[str, Any] = {
        "tournament_id": "u1", "level": 3, "small_blind": 20, "big_blind": 40, "ante": 0,
        "ante_mode": "none", "level_ends_ms": 60_000, "next_level": None, "players_left": 2,
        "entrants": 6, "payouts": [300], "multiplier": None, "first_hand_ms": 0,
        "bounty": 50}
    if deal is not None:
        tournament["deal"] = deal
    return {"table_id": "t1", "version": 9, "seat_index": seat_index,
            "config": {"variant": "NLHE", "seat_count": 2, "small_blind": 20,
                       "big_blind": 40},
            "settings": {"kind": "tournament", "name": "KO", "decision_ms": 20_000},
            "seats": [{"seat_index": 0, "player_id": "ann", "stack": 1400, "bet": 0,
                       "in_hand": False, "bounty": 50},
                      {"seat_index": 1, "player_id": "bob", "stack": 600, "bet": 0,
                       "in_hand": False, "bounty": 125}],
            "hand": None, "prompt": None, "room": {}, "tournament": tournament}


def test_r9_16_deal_asks_and_an_offer_is_answered_by_its_id() -> None:
    assert parse_command("deal", _view()).request == {"action": "ask_deal"}
    offered = _view({"asked": ["ann", "bob"], "made": None, "offer": OFFER})
    assert parse_command("deal icm", offered).request == {
        "action": "accept_deal", "offer_id": OFFER["offer_id"], "split": "icm"}
    assert parse_command("deal chips", offered).request == {
        "action": "accept_deal", "offer_id": OFFER["offer_id"], "split": "chip_count"}
    assert parse_command("nodeal", offered).request == {
        "action": "decline_deal", "offer_id": OFFER["offer_id"]}


def test_r9_16_what_cannot_be_sent_is_refused_with_why() -> None:
    offered = _view({"asked": ["ann", "bob"], "made": None, "offer": OFFER})
    assert "deal icm" in (parse_command("deal", offered).error or "")  # answer it instead
    assert "`deal` to ask" in (parse_command("nodeal", _view()).error or "")
    assert "`deal` to ask" in (parse_command("deal icm", _view()).error or "")
    assert parse_command("deal half", offered).request is None
    assert "watching" in (parse_command("deal", _view(seat_index=None)).error or "")
    cash = _view()
    del cash["tournament"]
    cash["settings"]["kind"] = "cash"
    assert "final table" in (parse_command("deal", cash).error or "")


def test_r9_16_the_screen_shows_the_offer_both_splits_and_every_answer() -> None:
    screen = "\n".join(render(_view({"asked": ["ann", "bob"], "made": None, "offer": OFFER}),
                              now_ms=0, player_id="ann", width=120, height=40))
    assert "DEAL OFFERED (answer in 30s): 30 kept for the winner" in screen
    assert "ann  stack 1400  ICM 170  chip count 177  -" in screen
    assert "bob  stack 600  ICM 100  chip count 93  accepts chip count" in screen
    asked = "\n".join(render(_view({"asked": ["bob"], "made": None, "offer": None}),
                             now_ms=0, player_id="ann", width=120, height=40))
    assert "Deal asked for by bob: `deal` to ask too." in asked
    made = "\n".join(render(_view({"asked": [], "made": "icm", "offer": None}),
                            now_ms=0, player_id="ann", width=120, height=40))
    assert "A deal was made (ICM)" in made and "DEAL OFFERED" not in made


def test_r9_13_each_seat_shows_its_bounty_and_the_terms_the_entry_s() -> None:
    view = _view()
    screen = "\n".join(render(view, now_ms=0, player_id="ann", width=120, height=40))
    assert "bounty 125" in screen and "bounty 50" in screen
    assert "knockout: bounty 50 an entry" in screen
    plain = copy.deepcopy(view)
    del plain["tournament"]["bounty"]
    for seat in plain["seats"]:
        del seat["bounty"]
    assert "bounty" not in "\n".join(render(plain, now_ms=0, player_id="ann", width=120,
                                            height=40))


def test_r9_12_r9_13_r9_16_a_tournament_s_terms_say_bounty_deals_and_re_entries_left() -> None:
    from naiko_client.render import tournament_detail_lines

    shown = {"tournament_id": "u1", "name": "KO", "kind": "scheduled", "variant": "NLHE",
             "status": "running", "entry": 100, "starting_stack": 1000, "seat_count": 6,
             "entrants": 12, "max_players": 60, "players_left": 9, "payouts": [],
             "terms": {"bounty": 50, "progressive": True, "entries_per_player": 3,
                       "deals": {"max_players": 3, "keep_percent": 0, "clock_s": 60}},
             "you": {"registered": True, "entries": 2, "result": None}}
    text = "\n".join(line for line, _ in tournament_detail_lines(shown))
    assert ("progressive knockout: bounty 50 an entry   deals at the final table of 3 or "
            "fewer   3 entries a player   re-entries left to you: 1") in text
    plain = dict(shown, terms={}, you={"registered": True, "entries": 1, "result": None})
    text = "\n".join(line for line, _ in tournament_detail_lines(plain))
    assert "bounty" not in text and "re-entries" not in text and "deals" not in text
