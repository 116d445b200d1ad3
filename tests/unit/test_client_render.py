"""The terminal client's pure parts: the screen drawn from a view, events as sentences, commands
checked against the prompt, and the client's reaction to server messages (with a fake socket).

The views and events are the real examples of ``docs/protocol.md``, so a change to the protocol
document that the client does not follow shows up here."""

from __future__ import annotations

import asyncio
import copy
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from naiko_client.app import (
    Client,
    default_buy_in,
    parse_command,
    token_subject,
    with_token,
)
from naiko_client.render import (
    Narrator,
    cards_text,
    clock_text,
    help_lines,
    render,
    render_lobby,
    seconds_left,
    tournament_detail_lines,
)

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
NOW = 1_700_000_008_000  # 12 s before the examples' decision deadline


def _doc_message(kind: str) -> dict[str, Any]:
    for block in re.findall(r"```json\n(.*?)```", DOC, re.S):
        if block.lstrip().startswith("{") and f'"type": "{kind}"' in block.split("\n")[1]:
            return dict(json.loads(block))
    raise AssertionError(f"no {kind} example in docs/protocol.md")


def _doc_events() -> list[dict[str, Any]]:
    events = []
    for text in re.findall(r'`(\{"kind": [^`]*\})`', DOC):
        try:
            events.append(json.loads(text))
        except ValueError:  # a pattern such as {"kind": …, …data}
            continue
    return events


@pytest.fixture
def bob() -> dict[str, Any]:
    """Bob's view on his turn (the documented snapshot): seat 1, button; SB carol, BB alice."""
    return copy.deepcopy(_doc_message("snapshot")["view"])


@pytest.fixture
def carol() -> dict[str, Any]:
    """Carol's view after bob's raise (the documented update): bob used Peek."""
    return copy.deepcopy(_doc_message("update")["view"])


def screen(view: dict[str, Any] | None, **kw: Any) -> str:
    kw.setdefault("now_ms", NOW)
    kw.setdefault("width", 100)
    kw.setdefault("height", 40)
    return "\n".join(render(view, **kw))


def row(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if re.search(rf"\b{name}\b", line)
                and re.match(r"^[> ] +\d ", line))


# -- the table -------------------------------------------------------------------------------

def test_seats_show_player_stack_bet_markers_cards_destellos_and_the_actor(bob: Any) -> None:
    bob["seats"][3]["is_bot"] = True
    text = screen(bob, player_id="bob", version=5)
    assert "Friday Naiko [NAIKO 5/10]" in text and "you: bob" in text
    assert "table t12a908ded3ed4df94230   hand #1   Preflop" in text and "version 5" in text
    assert re.search(r"^   0 BB +alice +490 +10  ## ## +1  host$", row(text, "alice"))
    assert re.search(r"^>  1 D +You +500 +Td Kh +1  to act 12s$", row(text, "You"))
    assert re.search(r"^   3 SB +carol BOT +495 +5  ## ## +1$", row(text, "carol"))
    assert re.search(r"^   2 +\(empty\)$", text, re.M)
    assert "Dest" in text  # the destellos column, Naiko only


def test_board_pot_carousel_and_your_cards(bob: Any, carol: Any) -> None:
    text = screen(bob)
    assert "Board: -- -- -- -- --     Pot: 0 (+15 in bets = 15)   current bet 10" in text
    assert "Carousel: Peek (1) | Sleeve Swap (2) | Short Anchor (2)   powers this round: 0/3" \
        in text
    assert "Your cards: Td Kh   stack 500   destellos 1" in text
    assert "used: bob Peek" in screen(carol)
    bob["hand"].update(street="turn", board="4h7h5hTs", pot=60, bets_total=0, current_bet=0)
    assert "Board: 4h 7h 5h Ts --     Pot: 60" in screen(bob)


def test_the_prompt_shows_legal_actions_to_call_raise_range_powers_and_countdown(bob: Any) -> None:
    text = screen(bob)
    assert "YOUR TURN  12s   to call 10   raise to 20..500" in text
    assert "  f fold | c call 10 | r N raise to N (20-500) | a all-in (500)" in text
    assert "  powers: peek (Peek, 1)" in text
    bob["prompt"].update(actions=["fold", "check", "bet", "all_in"], to_call=0,
                         powers=["peek", "sleeve_swap", "short_anchor"], anchor_targets=[0, 3],
                         anchored=True)
    text = screen(bob, now_ms=NOW + 9_500)
    assert "YOUR TURN  3s   to call 0   bet 20..500   ANCHORED: your raises are capped" in text
    assert "f fold | x check | b N bet (20-500) | a all-in (500)" in text
    assert "powers: peek (Peek, 1) | swap 1|2 (Sleeve Swap, 2) | anchor 0|3 (Short Anchor, 2)" \
        in text


def test_waiting_for_another_seat_shows_its_countdown_and_bot_label(carol: Any) -> None:
    carol["prompt"] = None
    carol["hand"]["actor"] = 0
    carol["seats"][0]["is_bot"] = True
    text = screen(carol)
    assert "Waiting for alice (BOT) to act  12s" in text
    assert re.search(r"^> +0 BB +alice BOT .*to act 12s, host$", text, re.M)


def test_folded_all_in_sitting_out_and_offline_seats(bob: Any) -> None:
    bob["seats"][0].update(folded=True, card_count=0)
    bob["seats"][3].update(all_in=True, stack=0, sitting_out=True)
    bob["disconnected"] = ["carol"]
    text = screen(bob)
    assert row(text, "alice").endswith("folded, host")
    assert "##" not in row(text, "alice")
    assert row(text, "carol").endswith("ALL-IN, sitting out, offline")


def test_a_shield_window_aimed_at_you(bob: Any) -> None:
    bob["prompt"] = None
    bob["hand"]["actor"] = 0
    bob["hand"]["powers"].update(
        windows=[{"window_id": "h1-r0-s1", "target": 1, "attacker": 3,
                  "deadline_ms": NOW + 6_000}],
        anchors={"1": {"state": "pending", "by": 3}}, can_shield=True)
    text = screen(bob)
    assert "SHIELD WINDOW 6s: carol's Short Anchor aims at you: `shield` (1 destello) or `pass`" \
        in text
    assert "Anchor on you by carol (pending)" in text
    bob["hand"]["powers"]["can_shield"] = False
    assert "`pass` (you cannot shield)" in screen(bob)
    # Aimed at someone else: a note, not a prompt.
    bob["hand"]["powers"]["windows"][0]["target"] = 0
    text = screen(bob)
    assert "SHIELD WINDOW" not in text and "alice may shield (6s)" in text


def test_a_finished_hand_shows_the_shown_cards_and_who_won(bob: Any) -> None:
    bob["prompt"] = None
    bob["hand"].update(complete=True, actor=None, board="4h7h5hTsKd", pot=0, bets_total=0,
                       awards=[{"amount": 60, "eligible": [0, 1, 3], "winners": {"1": 60},
                                "showdown": True}])
    bob["seats"][3]["cards"] = "KsQh"
    text = screen(bob)
    assert "Preflop (hand over)" in text
    assert "Result: You win 60" in text
    assert row(text, "You").endswith("won 60")
    assert "Ks Qh" in row(text, "carol")
    assert "Hand #1 is over; the next one starts shortly." in text


def test_spectators_see_no_cards_and_how_to_sit(bob: Any) -> None:
    bob["seat_index"] = None
    bob["prompt"] = None
    bob["seats"][1]["cards"] = None
    bob["seats"][1]["card_count"] = 2
    text = screen(bob)
    assert "You are watching (no seat): type `join` to sit down." in text
    assert "Td" not in text and "YOUR TURN" not in text
    assert "Waiting for bob to act  12s" in text


def test_before_the_first_hand(bob: Any) -> None:
    bob.update(hand=None, prompt=None, seats=[bob["seats"][0], None, None, None])
    bob["seats"][0].update(in_hand=False)
    text = screen(bob)
    assert "no hand yet" in text and "Board: -" in text
    assert "Carousel: (dealt with the next hand)" in text
    assert "Waiting for players (1 seated)" in text


def test_plo_and_hold_em_tables_have_no_naiko_lines(bob: Any) -> None:
    bob["config"]["variant"] = "PLO"
    del bob["hand"]["powers"]
    bob["seats"][1]["cards"] = "TdKhAs2c"
    bob["seats"][0]["card_count"] = 4
    bob["prompt"]["powers"] = []
    text = screen(bob)
    assert "Carousel" not in text and "Dest" not in text and "destellos" not in text
    assert "Td Kh As 2c" in row(text, "You") and "## ## ## ##" in row(text, "alice")


def test_the_screen_fits_the_terminal_and_ends_with_the_command_line(bob: Any) -> None:
    log = [f"event {i}" for i in range(100)]
    for width, height in ((80, 24), (100, 40), (60, 16)):
        lines = render(bob, now_ms=NOW, log=log, status="hi", input_text="r 4", width=width,
                       height=height)
        assert len(lines) == height
        assert all(len(line) <= width for line in lines)
        assert lines[-1] == "> r 4" and lines[-2] == "hi"
    text = "\n".join(render(bob, now_ms=NOW, log=log, width=100, height=40))
    assert "event 99" in text and "event 0\n" not in text  # the newest events that fit
    text = screen(bob, show_help=True)
    assert help_lines()[0] in text and "swap 1|2" in text


def test_colour_is_optional(bob: Any) -> None:
    assert "\x1b[" not in screen(bob)
    coloured = screen(bob, color=True, status="boom", status_is_error=True)
    assert "\x1b[1;30;43mYOUR TURN" in coloured and "\x1b[1;31mboom\x1b[0m" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == screen(bob, status="boom")


def test_no_view_yet_and_the_lobby() -> None:
    assert "Waiting for the table..." in screen(None, connection="connecting")
    tables = [{"table_id": "t1", "name": "Demo table", "variant": "NAIKO", "small_blind": 5,
               "big_blind": 10, "seat_count": 4, "seated": 2, "min_buy_in": 200,
               "max_buy_in": 1000}]
    text = "\n".join(render_lobby(tables, width=90, height=12))
    assert re.search(r"1  Demo table +NAIKO  5/10 +2/4  200-1000 +t1", text)
    assert "Type a table's number" in text
    assert "No open table yet" in "\n".join(render_lobby([], height=12))
    assert len(render_lobby(tables * 30, height=12)) == 12


def test_small_helpers() -> None:
    assert cards_text("AsKd") == "As Kd" and cards_text(None) == ""
    assert seconds_left(NOW + 1, NOW) == 1 and seconds_left(NOW - 5000, NOW) == 0
    assert clock_text(NOW + 125_000, NOW) == "2:05" and clock_text(None, NOW) == ""


# -- events as sentences ---------------------------------------------------------------------

def test_every_documented_event_reads_as_a_sentence(bob: Any) -> None:
    events = _doc_events()
    kinds = {e["kind"] for e in events}
    assert {"action", "showdown", "pot_awarded", "window_opened", "hole_cards"} <= kinds
    narrator = Narrator()
    narrator.learn(bob)
    for event in events:
        lines = narrator.narrate([event])
        assert bool(lines) == (event["kind"] != "turn"), event  # a turn shows in the prompt
        assert all(line and "None" not in line for line in lines), (event, lines)


def test_sentences(bob: Any) -> None:
    n = Narrator()
    n.learn(bob)  # 0 alice, 1 bob, 3 carol
    said = n.narrate([
        {"kind": "hand_started", "hand_number": 2, "button": 1, "small_blind_seat": 3,
         "big_blind_seat": 0, "seats_dealt": [3, 0, 1], "small_blind": 5, "big_blind": 10,
         "ante": 0},
        {"kind": "blind_posted", "seat_index": 3, "blind": "small", "amount": 5,
         "all_in": False},
        {"kind": "hole_cards", "seat_index": 1, "cards": "TdKh", "private_to": 1},
        {"kind": "action", "seat_index": 1, "action": "raise_to", "to": 40, "all_in": False},
        {"kind": "action", "seat_index": 3, "action": "call", "amount": 35, "to": 40,
         "all_in": True},
        {"kind": "action", "seat_index": 0, "action": "fold"},
        {"kind": "power_used", "seat_index": 1, "power": "short_anchor", "destellos": 0,
         "target_seat": 3},
        {"kind": "board_dealt", "street": "flop", "cards": "4h7h5h", "board": "4h7h5h",
         "run_out": True},
        {"kind": "showdown", "board": "4h7h5hTsKd", "hands": [
            {"seat_index": 3, "cards": "KsQh", "best_five": "KsKdQhTs7h",
             "hand": "one pair, Kings"},
            {"seat_index": 1, "cards": "TdKh", "best_five": "KhKdTsTd7h",
             "hand": "two pair, Kings and Tens"}]},
        {"kind": "pot_awarded", "pot_index": 0, "amount": 120, "eligible": [1, 3],
         "winners": {"1": 120}, "showdown": True},
        {"kind": "pot_awarded", "pot_index": 1, "amount": 20, "eligible": [1, 3],
         "winners": {"1": 10, "3": 10}, "showdown": True},
        {"kind": "turn", "seat_index": 0},
    ])
    assert said == [
        "--- Hand #2: you have the button, blinds 5/10 ---",
        "carol posts the small blind of 5",
        "You are dealt Td Kh",
        "You raise to 40",
        "carol calls 35 and is all-in",
        "alice folds",
        "You use Short Anchor on carol (0 destellos left)",
        "Flop: 4h 7h 5h (run out)",
        "carol shows Ks Qh: one pair, Kings",
        "You show Td Kh: two pair, Kings and Tens",
        "You win 120 with two pair, Kings and Tens",
        "You win 10 from side pot 1 with two pair, Kings and Tens (split pot)",
        "carol wins 10 from side pot 1 with one pair, Kings (split pot)",
    ]
    assert n.narrate([{"kind": "pot_awarded", "pot_index": 0, "amount": 25,
                       "winners": {"1": 25}, "showdown": False}]) == ["You win 25"]


def test_names_survive_a_player_standing_up(bob: Any) -> None:
    n = Narrator()
    n.learn(bob)
    after = copy.deepcopy(bob)
    after["seats"][0] = None  # alice left in the same write
    said = n.narrate([{"kind": "action", "seat_index": 0, "action": "fold"},
                      {"kind": "stood_up", "seat_index": 0, "player_id": "alice",
                       "stack": 480},
                      {"kind": "seated", "seat_index": 0, "player_id": "dave", "stack": 300,
                       "is_bot": False},
                      {"kind": "action", "seat_index": 0, "action": "check"}], after)
    assert said == ["alice folds", "alice stands up with 480",
                    "dave sits down in seat 0 with 300", "dave checks"]


# -- you, and everybody else by name ---------------------------------------------------------

def _seats_view(names: dict[int, str], reader: int | None) -> dict[str, Any]:
    """A view naming *names* by seat, read from seat *reader* (``None``: a spectator)."""
    seats: list[dict[str, Any] | None] = [None] * 4
    for index, name in names.items():
        seats[index] = {"seat_index": index, "player_id": name, "stack": 500, "is_bot": False}
    return {"seat_index": reader, "seats": seats}


SUBJECT = 1
"""The seat the events below are about (bob); seat 0 (alice) is the other party, seat 3
(carol) the other reader."""

READER_CASES = [
    # (event about seat 1 / player bob, as bob reads it, as carol reads it)
    ({"kind": "seated", "seat_index": 1, "player_id": "bob", "stack": 500, "is_bot": False},
     "You sit down in seat 1 with 500", "bob sits down in seat 1 with 500"),
    ({"kind": "hand_started", "hand_number": 2, "button": 1, "small_blind": 5, "big_blind": 10},
     "--- Hand #2: you have the button, blinds 5/10 ---",
     "--- Hand #2: button bob, blinds 5/10 ---"),
    ({"kind": "blind_posted", "seat_index": 1, "blind": "small", "amount": 5, "all_in": False},
     "You post the small blind of 5", "bob posts the small blind of 5"),
    ({"kind": "blind_posted", "seat_index": 1, "blind": "big", "amount": 8, "all_in": True},
     "You post the big blind of 8 and are all-in",
     "bob posts the big blind of 8 and is all-in"),
    ({"kind": "blind_posted", "seat_index": 1, "blind": "post", "amount": 10, "all_in": False},
     "You post a big blind of 10 to come in", "bob posts a big blind of 10 to come in"),
    ({"kind": "blind_posted", "seat_index": 1, "blind": "dead", "amount": 5, "all_in": False},
     "You post a dead small blind of 5", "bob posts a dead small blind of 5"),
    ({"kind": "ante_posted", "seat_index": 1, "amount": 1, "all_in": False},
     "You post an ante of 1", "bob posts an ante of 1"),
    ({"kind": "action", "seat_index": 1, "action": "fold"}, "You fold", "bob folds"),
    ({"kind": "action", "seat_index": 1, "action": "check"}, "You check", "bob checks"),
    ({"kind": "action", "seat_index": 1, "action": "call", "amount": 35, "to": 40,
      "all_in": True}, "You call 35 and are all-in", "bob calls 35 and is all-in"),
    ({"kind": "action", "seat_index": 1, "action": "bet", "to": 20, "all_in": False},
     "You bet 20", "bob bets 20"),
    ({"kind": "action", "seat_index": 1, "action": "raise_to", "to": 8, "all_in": False},
     "You raise to 8", "bob raises to 8"),
    ({"kind": "uncalled_bet_returned", "seat_index": 1, "amount": 30},
     "30 uncalled returned to you", "30 uncalled returned to bob"),
    ({"kind": "showdown", "board": "4h7h5hTsKd", "hands": [
        {"seat_index": 1, "cards": "TdKh", "hand": "two pair, Kings and Tens"}]},
     "You show Td Kh: two pair, Kings and Tens", "bob shows Td Kh: two pair, Kings and Tens"),
    ({"kind": "pot_awarded", "pot_index": 0, "amount": 40, "winners": {"1": 40},
      "showdown": False}, "You win 40", "bob wins 40"),
    ({"kind": "power_used", "seat_index": 1, "power": "peek", "destellos": 0},
     "You use Peek (0 destellos left)", "bob uses Peek (0 destellos left)"),
    ({"kind": "power_used", "seat_index": 1, "power": "sleeve_swap", "card_index": 1,
      "destellos": 1}, "You use Sleeve Swap (card 2) (1 destello left)",
     "bob uses Sleeve Swap (card 2) (1 destello left)"),
    ({"kind": "power_used", "seat_index": 1, "power": "short_anchor", "target_seat": 0,
      "destellos": 1}, "You use Short Anchor on alice (1 destello left)",
     "bob uses Short Anchor on alice (1 destello left)"),
    ({"kind": "power_used", "seat_index": 0, "power": "short_anchor", "target_seat": 1,
      "destellos": 1}, "alice uses Short Anchor on you (1 destello left)",
     "alice uses Short Anchor on bob (1 destello left)"),
    ({"kind": "power_used", "seat_index": 1, "power": "seal_shield", "target_seat": 0,
      "destellos": 2}, "You use Seal Shield against alice (2 destellos left)",
     "bob uses Seal Shield against alice (2 destellos left)"),
    ({"kind": "window_opened", "target": 1, "attacker": 0, "window_id": "w",
      "deadline_ms": NOW}, "You may answer alice's Short Anchor with Seal Shield",
     "bob may answer alice's Short Anchor with Seal Shield"),
    ({"kind": "window_opened", "target": 0, "attacker": 1, "window_id": "w",
      "deadline_ms": NOW}, "alice may answer your Short Anchor with Seal Shield",
     "alice may answer bob's Short Anchor with Seal Shield"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "shielded"},
     "You shield: the Short Anchor is cancelled", "bob shields: the Short Anchor is cancelled"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "passed"},
     "You let the Short Anchor through", "bob lets the Short Anchor through"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "timed_out"},
     "Your Shield window timed out", "bob's Shield window timed out"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "round_ended"},
     "The Short Anchor on you expires with the round",
     "The Short Anchor on bob expires with the round"),
    ({"kind": "anchor_applied", "attacker": 1, "target": 0},
     "Your Short Anchor caps alice's raises this round",
     "bob's Short Anchor caps alice's raises this round"),
    ({"kind": "anchor_applied", "attacker": 0, "target": 1},
     "alice's Short Anchor caps your raises this round",
     "alice's Short Anchor caps bob's raises this round"),
    ({"kind": "timed_out", "seat_index": 1, "decision": "check"},
     "Your clock ran out: you check", "bob's clock ran out: bob checks"),
    ({"kind": "timed_out", "seat_index": 1, "decision": "fold"},
     "Your clock ran out: you fold", "bob's clock ran out: bob folds"),
    ({"kind": "disconnected", "player_id": "bob"},
     "You lost the connection", "bob lost the connection"),
    ({"kind": "reconnect_grace", "seat_index": 1, "until_ms": NOW},
     "You are disconnected: extra time to reconnect",
     "bob is disconnected: extra time to reconnect"),
    ({"kind": "reconnected", "player_id": "bob"}, "You are back", "bob is back"),
    ({"kind": "sat_out", "seat_index": 1}, "You sit out", "bob sits out"),
    ({"kind": "sat_in", "seat_index": 1}, "You are dealt in again", "bob is dealt in again"),
    ({"kind": "chips_added", "seat_index": 1, "amount": 100, "stack": 600},
     "You add 100 (stack 600)", "bob adds 100 (stack 600)"),
    ({"kind": "leaving_after_hand", "seat_index": 1},
     "You will leave after this hand", "bob will leave after this hand"),
    ({"kind": "stood_up", "seat_index": 1, "player_id": "bob", "stack": 480},
     "You stand up with 480", "bob stands up with 480"),
    ({"kind": "left_table", "seat_index": 1, "player_id": "bob", "reason": "sat_out_too_long"},
     "You left the table (sat out too long)", "bob left the table (sat out too long)"),
    ({"kind": "entry_chosen", "seat_index": 1, "entry": "post"},
     "You will post to be dealt in", "bob will post to be dealt in"),
    ({"kind": "entry_chosen", "seat_index": 1, "entry": "wait"},
     "You will wait for the big blind", "bob will wait for the big blind"),
    ({"kind": "waitlist_changed", "waitlist": ["erin", "bob"]},
     "Waiting list: erin, you", "Waiting list: erin, bob"),
    ({"kind": "seat_offered", "player_id": "bob", "until_ms": NOW},
     "A seat is held for you: type `take` to sit down before the countdown ends",
     "A seat is held for bob"),
    ({"kind": "offer_expired", "player_id": "bob"},
     "The seat held for you went to the next in line",
     "The seat held for bob went to the next in line"),
    ({"kind": "host_changed", "host": "bob"}, "You are now the host", "bob is now the host"),
    ({"kind": "eliminated", "player_id": "bob", "place": 2, "prize": 210},
     "You are out in 2nd place and win 210", "bob is out in 2nd place and wins 210"),
    ({"kind": "eliminated", "player_id": "bob", "place": 3, "prize": 0},
     "You are out in 3rd place", "bob is out in 3rd place"),
    ({"kind": "eliminated", "player_id": "bob", "place": None, "prize": 0},  # issue 23
     "You are out of the tournament (your place comes with the prizes)",
     "bob is out of the tournament"),
    ({"kind": "tournament_finished", "winner": "bob", "prize": 500},
     "You win the tournament and 500", "bob wins the tournament and 500"),
]


def _case_id(case: tuple[dict[str, Any], str, str]) -> str:
    event = case[0]
    detail = event.get("action") or event.get("power") or event.get("reason") \
        or event.get("blind") or event.get("decision") or event.get("entry") or ""
    if event["kind"] in ("window_opened", "anchor_applied", "power_used") \
            and event.get("target", event.get("target_seat")) == SUBJECT:
        detail += "-at-you"
    return f"{event['kind']}-{detail}".rstrip("-")


def read_as(names: dict[int, str], reader: int | None, event: dict[str, Any], *,
            player_id: str | None = None) -> list[str]:
    """*event* narrated for the player at seat *reader* of a table seating *names*."""
    return Narrator(player_id).narrate([copy.deepcopy(event)], _seats_view(names, reader))


def _named(event: dict[str, Any], name: str) -> dict[str, Any]:
    """*event* with bob's id replaced by *name*."""
    return dict(json.loads(json.dumps(event).replace('"bob"', json.dumps(name))))


@pytest.mark.parametrize(("event", "mine", "theirs"), READER_CASES,
                         ids=[_case_id(c) for c in READER_CASES])
@pytest.mark.parametrize("subject", ["bob", "you", "You", "YOUR", '"you"', "yourself!"])
def test_events_about_you_read_in_the_second_person_and_others_by_name(
        subject: str, event: dict[str, Any], mine: str, theirs: str) -> None:
    """Each event about seat 1 as its player reads it (second person: verb agreement,
    possessives) and as carol reads it (by name, third person). A player whose id reads as
    "you" gets the same second-person sentences on their own screen and is quoted on
    everybody else's (``"you" raises to 8``), never taken for the reader."""
    names = {0: "alice", 1: subject, 3: "carol"}
    event = _named(event, subject)
    shown = subject if subject == "bob" else f'"{subject}"'
    assert read_as(names, 1, event) == [mine]
    assert read_as(names, 3, event) == [theirs.replace("bob", shown)]
    # The reader known by id (the token's player) reads the same, seated or not.
    assert read_as(names, 1, event, player_id=subject) == [mine]
    assert read_as(names, None, event, player_id="carol") == [theirs.replace("bob", shown)]


def test_events_naming_nobody_read_the_same_for_every_reader(bob: Any) -> None:
    quiet = [e for e in _doc_events() if e["kind"] in {
        "deck_committed", "hole_cards", "carousel", "board_dealt", "hand_ended",
        "hand_cancelled", "table_closed", "peek_result", "sleeve_swap_result",
        "settings_changed", "table_paused", "tournament_started", "level_changed"}]
    assert len({e["kind"] for e in quiet}) >= 10
    names = {0: "alice", 1: "you", 3: "carol"}
    for event in quiet:
        assert read_as(names, 1, event) == read_as(names, 3, event), event


def test_a_player_named_you_at_a_table_with_you() -> None:
    """The reader is called "You" and so is another player: the reader's sentences are in the
    second person, the other's quoted, in both directions and both ways round."""
    names = {0: "You", 1: "you", 3: "carol"}
    anchor = {"kind": "power_used", "seat_index": 1, "power": "short_anchor", "target_seat": 0,
              "destellos": 1}
    raised = {"kind": "action", "seat_index": 0, "action": "raise_to", "to": 8, "all_in": False}
    timed = {"kind": "timed_out", "seat_index": 0, "decision": "fold"}
    # seen by "you" (seat 1)
    assert read_as(names, 1, anchor) == ['You use Short Anchor on "You" (1 destello left)']
    assert read_as(names, 1, raised) == ['"You" raises to 8']
    assert read_as(names, 1, timed) == ['"You"\'s clock ran out: "You" folds']
    # seen by "You" (seat 0)
    assert read_as(names, 0, anchor) == ['"you" uses Short Anchor on you (1 destello left)']
    assert read_as(names, 0, raised) == ["You raise to 8"]
    assert read_as(names, 0, timed) == ["Your clock ran out: you fold"]
    # and by carol
    assert read_as(names, 3, anchor) == ['"you" uses Short Anchor on "You" (1 destello left)']


def test_you_stay_you_in_the_events_of_the_update_where_you_stand_up() -> None:
    """The view that comes with the events may have no seat for you any more (you stood up):
    what you did before is still yours, and who sits down in your seat next is not you."""
    n = Narrator()
    n.learn(_seats_view({0: "alice", 1: "bob"}, 1))
    after = _seats_view({0: "alice", 1: "dave"}, None)
    said = n.narrate([{"kind": "action", "seat_index": 1, "action": "fold"},
                      {"kind": "stood_up", "seat_index": 1, "player_id": "bob", "stack": 480},
                      {"kind": "seated", "seat_index": 1, "player_id": "dave", "stack": 300,
                       "is_bot": False},
                      {"kind": "action", "seat_index": 1, "action": "check"}], after)
    assert said == ["You fold", "You stand up with 480", "dave sits down in seat 1 with 300",
                    "dave checks"]


def test_r7_10_a_seat_offered_is_told_to_you_only() -> None:
    """``seat_offered`` and ``offer_expired`` go to that player only: a reader the client
    cannot name (no player id, watching without a seat) is that player."""
    offered = {"kind": "seat_offered", "player_id": "erin", "until_ms": NOW}
    expired = {"kind": "offer_expired", "player_id": "erin"}
    names = {0: "alice", 1: "bob"}
    assert read_as(names, None, offered) == [
        "A seat is held for you: type `take` to sit down before the countdown ends"]
    assert read_as(names, None, expired) == ["The seat held for you went to the next in line"]
    assert read_as(names, None, offered, player_id="erin") == read_as(names, None, offered)
    assert read_as(names, None, offered, player_id="zoe") == ["A seat is held for erin"]


def test_an_unknown_seat_is_never_you() -> None:
    assert Narrator().narrate([{"kind": "action", "seat_index": 5, "action": "fold"},
                               {"kind": "reconnected", "player_id": "zoe"}]) \
        == ["seat 5 folds", "zoe is back"]


def test_a_history_hand_reads_with_you_in_it() -> None:
    """``history N``: the stored hand names its seats and the reader's (``seat_index``)."""
    line = next(x for x in DOC.splitlines() if x.startswith('{"type": "hand", '))
    message = json.loads(line)  # carol's hand #6 as docs/protocol.md shows it

    async def steps(client: Client) -> None:
        client.on_message(message)

    said = list(run_client(steps).log)
    assert "bob posts the small blind of 5" in said
    assert "You are dealt 4c 6c" in said and "You fold" in said
    assert "grace wins 25 with one pair, Eights" in said


# -- you on the table screen -----------------------------------------------------------------

def test_your_seat_is_labelled_you_and_a_player_named_you_is_quoted(bob: Any) -> None:
    bob["seats"][0]["player_id"] = "you"
    bob["seats"][3]["player_id"] = "Your"
    text = screen(bob, player_id="bob")
    assert "you: bob" in text  # the header names you
    assert re.search(r"^>  1 D +You +500 +Td Kh", text, re.M)
    assert re.search(r'^   0 BB +"you" +490', text, re.M)
    assert re.search(r'^   3 SB +"Your" +495', text, re.M)
    assert "(you)" not in text
    # The player named "you" at their own seat: `You`, never `you (you)`.
    bob["seats"][1]["player_id"] = "you"
    bob["seats"][0]["player_id"] = "alice"
    text = screen(bob, player_id="you")
    assert re.search(r"^>  1 D +You +500", text, re.M) and "you (you)" not in text


def test_you_on_the_waiting_list_and_as_the_host(bob: Any) -> None:
    bob["settings"].update(kind="private", host="you")
    bob["room"]["waitlist"] = ["erin", "zoe", "you"]
    bob["seat_index"], bob["prompt"] = None, None
    text = screen(bob, player_id="zoe")
    assert "Waiting list: erin, you, \"you\"" in text and 'host "you"' in text
    assert 'host you' in screen(bob, player_id="you")


def test_a_refused_anchor_quotes_a_target_named_you(bob: Any) -> None:
    bob["seats"][3]["player_id"] = "you"
    bob["prompt"].update(powers=["peek", "short_anchor"], anchor_targets=[0])
    assert error("anchor 3", bob) == ('Seat 3 cannot be anchored now: "you" has already acted '
                                      "this betting round (R6.3).")


def test_waiting_for_you_only_on_your_turn(carol: Any) -> None:
    carol["prompt"] = None
    carol["hand"]["actor"] = 1
    assert "Waiting for bob to act  12s" in screen(carol)
    carol["seats"][1]["player_id"] = "you"
    assert 'Waiting for "you" to act  12s' in screen(carol)
    carol["hand"]["actor"] = 3  # carol's own turn, her prompt not drawn yet
    assert "Waiting for you to act  12s" in screen(carol)


def test_results_anchors_and_windows_on_screen_say_you_and_quote_a_player_named_you(
        bob: Any) -> None:
    bob["seats"][3]["player_id"] = "you"
    bob["prompt"] = None
    bob["hand"]["actor"] = 0
    bob["hand"]["powers"].update(
        windows=[{"window_id": "w", "target": 1, "attacker": 3, "deadline_ms": NOW + 6_000}],
        anchors={"1": {"state": "pending", "by": 3}}, used={"3": ["short_anchor"],
                                                           "1": ["peek"]})
    text = screen(bob)
    assert 'SHIELD WINDOW 6s: "you"\'s Short Anchor aims at you' in text
    assert 'Anchor on you by "you" (pending)' in text
    assert 'used: you Peek; "you" Short Anchor' in text
    bob["hand"]["powers"]["windows"][0].update(target=3, attacker=1)
    assert '"you" may shield (6s)' in screen(bob)
    bob["hand"].update(complete=True, actor=None, awards=[
        {"amount": 60, "eligible": [1, 3], "winners": {"1": 30, "3": 30}, "showdown": True}])
    assert 'Result: You win 30, "you" wins 30' in screen(bob)


# -- commands --------------------------------------------------------------------------------

def request(line: str, view: Any) -> Any:
    parsed = parse_command(line, view)
    assert parsed.error is None, parsed.error
    return parsed.request


def error(line: str, view: Any) -> str:
    parsed = parse_command(line, view)
    assert parsed.request is None and parsed.error, parsed
    return parsed.error


def test_betting_commands_follow_the_prompt(bob: Any) -> None:
    assert request("f", bob) == {"action": "act", "move": "fold"}
    assert request("call", bob) == {"action": "act", "move": "call"}
    assert request("c", bob) == {"action": "act", "move": "call"}
    assert request("r 60", bob) == {"action": "act", "move": "raise_to", "amount": 60}
    assert request("r60", bob) == {"action": "act", "move": "raise_to", "amount": 60}
    assert request("b 60", bob) == {"action": "act", "move": "raise_to", "amount": 60}
    assert request("a", bob) == {"action": "act", "move": "all_in"}
    assert request("r 500", bob) == {"action": "act", "move": "all_in"}  # the whole stack
    assert "cannot check now: the prompt allows f, c, r N, a" in error("x", bob)
    assert error("r 19", bob).startswith("The smallest raise is to 20")
    assert error("r 501", bob) == "The largest raise is to 500."
    assert error("r", bob).startswith("Type `r N`")
    assert error("r lots", bob).startswith("Type `r N`")
    assert error("c 10", bob) == "`call` takes no amount."
    bob["prompt"].update(actions=["fold", "check", "bet", "all_in"], to_call=0)
    assert request("x", bob) == {"action": "act", "move": "check"}
    assert request("r 40", bob) == {"action": "act", "move": "bet", "amount": 40}
    assert error("b 5", bob).startswith("The smallest bet is 20")
    bob["prompt"].update(actions=["fold", "call"], min_raise_to=None, max_raise_to=None)
    assert "cannot bet or raise now" in error("r 40", bob)


def test_turn_and_seat_checks(bob: Any, carol: Any) -> None:
    carol["prompt"] = None
    assert error("c", carol) == "It is not your turn."
    carol["seat_index"] = None
    assert error("c", carol) == "You are watching: `join` to sit down first."
    assert error("leave", carol).startswith("You have no seat")
    bob["hand"]["complete"] = True
    assert error("c", bob) == "No hand is being played right now."
    assert error("hello", bob) == "Unknown command 'hello': type `help`."
    assert parse_command("", bob) == parse_command("   ", bob)
    assert parse_command("", bob).request is None and parse_command("", bob).error is None


def test_table_commands_and_local_commands(bob: Any) -> None:
    assert request("sitout", bob) == {"action": "sit_out"}
    assert request("sitin", bob) == {"action": "sit_in"}
    assert request("leave", bob) == {"action": "leave_table"}
    assert request("add 100", bob) == {"action": "add_chips", "amount": 100}
    assert error("add", bob).startswith("Type `add N`")
    assert parse_command("q", bob).local == "quit"
    assert parse_command("help", bob).local == "help"
    assert parse_command("join", None).local == "join"
    assert parse_command("join 300", None).amount == 300
    assert error("join x", None).startswith("Type `join`")


def test_powers_follow_the_prompt(bob: Any) -> None:
    assert request("peek", bob) == {"action": "use_power", "power": "peek"}
    assert "it costs 2 destellos, you have 1" in error("swap 1", bob)
    assert "it costs 2 destellos, you have 1" in error("anchor 0", bob)
    bob["prompt"].update(powers=["peek", "sleeve_swap", "short_anchor"], anchor_targets=[0, 3])
    assert request("swap 2", bob) == {"action": "use_power", "power": "sleeve_swap",
                                      "card_index": 1}
    assert error("swap 3", bob) == "Type `swap 1` or `swap 2`: the hole card to throw away."
    assert request("anchor 3", bob) == {"action": "use_power", "power": "short_anchor",
                                        "target_seat": 3}
    assert request("anchor carol", bob)["target_seat"] == 3
    assert error("anchor 1", bob) == "Seat 1 cannot be anchored now: you cannot anchor yourself."
    assert error("anchor", bob) == "Type `anchor S` with S one of the seats 0, 3."
    # R6.3: a target outside anchor_targets is refused with its own cause, never "one power
    # per turn"; when the view cannot tell (a target who acted), the server is asked.
    bob["prompt"]["anchor_targets"] = [0]
    assert error("anchor 3", bob) == ("Seat 3 cannot be anchored now: carol has already acted "
                                      "this betting round (R6.3).")
    bob["hand"]["powers"]["anchors"] = {"3": {"state": "applied", "by": 0}}
    assert "carol already received a Short Anchor this round (R6.3)" in error("anchor 3", bob)
    bob["hand"]["powers"]["anchors"] = {}
    bob["prompt"].update(powers=["peek"], anchor_targets=[])
    bob["seats"][1]["destellos"] = 2
    assert request("anchor 3", bob) == {"action": "use_power", "power": "short_anchor",
                                        "target_seat": 3}
    bob["seats"][3]["folded"] = True
    assert error("anchor 3", bob) == ("Seat 3 cannot be anchored now: that seat is not in the "
                                      "hand.")
    bob["seats"][3]["folded"] = False
    bob["prompt"]["powers"] = []  # a power used this turn: the view cannot tell, ask
    assert request("swap 1", bob)["power"] == "sleeve_swap"
    bob["seats"][1]["destellos"] = 1
    bob["prompt"]["powers"] = []
    bob["hand"]["powers"]["carousel"] = ["peek", "short_anchor", "seal_shield"]
    assert "not in this hand's Carousel" in error("swap 1", bob)
    bob["hand"]["powers"]["used"] = {"1": ["peek"]}
    assert "you already used it this hand" in error("peek", bob)
    bob["config"]["variant"] = "NLHE"
    del bob["hand"]["powers"]
    assert "only at Naiko tables" in error("peek", bob)


def test_shield_and_pass_need_a_window_aimed_at_you(bob: Any) -> None:
    assert error("shield", bob) == "No Short Anchor is aimed at you right now."
    assert error("pass", bob) == "No Short Anchor is aimed at you right now."
    bob["prompt"] = None  # a window is answered on or off turn
    bob["hand"]["powers"]["windows"] = [{"window_id": "h1-r0-s1", "target": 1, "attacker": 3,
                                         "deadline_ms": NOW + 6000}]
    assert request("pass", bob) == {"action": "pass_window"}
    assert error("shield", bob).startswith("You cannot shield")
    bob["hand"]["powers"]["can_shield"] = True
    assert request("shield", bob) == {"action": "shield"}


def test_helpers() -> None:
    assert with_token("wss://x.example/prod", "v1.a.b") == "wss://x.example/prod?token=v1.a.b"
    assert with_token("ws://h/?token=old&x=1", "new") == "ws://h/?x=1&token=new"
    assert token_subject("v1.!!.x") is None
    assert default_buy_in({"min_buy_in": 200, "max_buy_in": 1000}, None) == 200


# -- the client's reactions (no network: a fake socket) --------------------------------------

class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self) -> None:
        pass


def run_client(steps: Any, **kw: Any) -> Client:
    async def main() -> Client:
        client = Client("ws://127.0.0.1:1/", "bob", out=io.StringIO(), in_fd=0, **kw)
        client.ws = FakeSocket()
        await steps(client)
        return client
    return asyncio.run(main())


async def settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


def test_lobby_then_watch_then_join_with_the_default_buy_in(bob: Any) -> None:
    seen: list[list[dict[str, Any]]] = []

    async def steps(client: Client) -> None:
        ws = client.ws
        client._on_open()
        await settle()
        assert ws.sent[-1]["action"] == "list_tables"
        client.on_message({"type": "tables", "request_id": ws.sent[-1]["request_id"],
                           "tables": [{"table_id": "t1", "name": "Demo", "seat_count": 4,
                                       "seated": 2, "min_buy_in": 200, "max_buy_in": 1000,
                                       "big_blind": 5}]})
        await settle()
        assert ws.sent[-1] == {"action": "snapshot", "table_id": "t1",
                               "request_id": ws.sent[-1]["request_id"]}
        spectator = dict(bob, seat_index=None, prompt=None, table_id="t1")
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 4,
                           "view": spectator, "request_id": ws.sent[-1]["request_id"]})
        await settle()
        join = ws.sent[-1]
        assert (join["action"], join["table_id"], join["buy_in"]) == ("join_table", "t1", 500)
        client.on_message({"type": "update", "request_id": join["request_id"], "table_id": "t1",
                           "version": 5, "replayed": False, "events": [],
                           "view": dict(bob, table_id="t1")})  # the join's answer
        assert client.status == "You sit down (with 500)."
        seen.append(list(ws.sent))

    client = run_client(steps)
    assert client.table_id == "t1" and client.version == 5  # the update applied
    assert len({m["request_id"] for m in seen[0]}) == 3  # a fresh id per request


def test_r7_11_a_deep_stack_return_joins_with_the_required_buy_in(bob: Any) -> None:
    """The view's ``required_buy_in`` (a deep-stack table left 10 minutes ago with 1811, above
    its 1000 maximum) is what `join` proposes, not the lobby's default, and the screen says
    why."""
    required = {"min": 1811, "max": 1811, "left_with": 1811, "until_ms": NOW + 20 * 60_000}
    spectator = dict(bob, seat_index=None, prompt=None, table_id="t1", required_buy_in=required)
    text = screen(spectator)
    assert ("Deep-stack table (R7.11): you left with 1811 chips, so you buy in for exactly "
            "1811\nfor 20 more minutes: type `join` to sit down with 1811.") in text

    async def steps(client: Client) -> None:
        ws = client.ws
        client._on_open()
        await settle()
        client.on_message({"type": "tables", "request_id": ws.sent[-1]["request_id"],
                           "tables": [{"table_id": "t1", "name": "Demo", "seat_count": 4,
                                       "seated": 2, "min_buy_in": 200, "max_buy_in": 1000,
                                       "big_blind": 5}]})
        await settle()
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 4,
                           "view": spectator, "request_id": ws.sent[-1]["request_id"]})
        await settle()
        join = ws.sent[-1]
        assert (join["action"], join["buy_in"]) == ("join_table", 1811)

    run_client(steps)
    del spectator["required_buy_in"]
    assert "You are watching (no seat): type `join` to sit down." in screen(spectator)


def test_several_tables_let_the_person_pick() -> None:
    tables = [{"table_id": f"t{i}", "name": f"T{i}", "seat_count": 4, "seated": 1,
               "min_buy_in": 200, "max_buy_in": 1000, "big_blind": 10} for i in (1, 2)]

    async def steps(client: Client) -> None:
        client.on_message({"type": "tables", "request_id": "x", "tables": tables})
        assert client.table_id is None and "T2" in "\n".join(client.screen(90, 20))
        client.on_keys("2\r")
        await settle()
        assert client.ws.sent[-1]["table_id"] == "t2"

    assert run_client(steps).buy_in == 1000


def test_updates_in_order_gaps_and_errors(bob: Any) -> None:
    async def steps(client: Client) -> None:
        ws = client.ws
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5, "view": bob,
                           "request_id": "s"})
        client.on_message({"type": "update", "table_id": "t1", "version": 6, "view": bob,
                           "events": [{"kind": "action", "seat_index": 3, "action": "check"}]})
        assert client.version == 6 and list(client.log) == ["carol checks"]
        client.on_message({"type": "update", "table_id": "t1", "version": 6, "view": bob,
                           "events": [{"kind": "action", "seat_index": 3, "action": "fold"}]})
        assert list(client.log) == ["carol checks"]  # an old version: ignored
        client.on_message({"type": "update", "table_id": "other", "version": 9, "view": bob,
                           "events": []})
        assert client.version == 6
        client.on_message({"type": "update", "table_id": "t1", "version": 9, "view": bob,
                           "events": []})
        await settle()
        assert client.version == 9 and ws.sent[-1]["action"] == "snapshot"  # a gap: catch up
        client.on_keys("c\r")
        await settle()
        call = ws.sent[-1]
        assert (call["action"], call["move"], call["table_id"]) == ("act", "call", "t1")
        client.on_message({"type": "error", "request_id": call["request_id"],
                           "code": "not_your_turn", "message": "it is seat 3's turn"})
        assert client.status_is_error
        assert client.status == "`call 10` refused: it is seat 3's turn (not_your_turn)"
        client.on_keys("r 1\r")
        assert client.status.startswith("The smallest raise is to 20")
        assert ws.sent[-1] is call  # nothing sent

    run_client(steps, table_id="t1")


def test_r8_3_a_snapshot_older_than_the_version_shown_is_ignored(bob: Any) -> None:
    """A ``snapshot`` read before the last ``update`` applied (a reconnect's, crossing the
    write's fan-out) shows an older table: ignored, as the web client does; one of the same
    version or newer is applied (docs/protocol.md, "version")."""
    newer = copy.deepcopy(bob)
    newer["hand_count"] = bob["hand_count"] + 1

    async def steps(client: Client) -> None:
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5, "view": bob,
                           "request_id": "s"})
        client.on_message({"type": "update", "table_id": "t1", "version": 6, "view": newer,
                           "events": [{"kind": "action", "seat_index": 3, "action": "check"}]})
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5, "view": bob,
                           "request_id": "late"})
        assert (client.version, client.view) == (6, newer)  # the older snapshot: ignored
        assert list(client.log) == ["carol checks"]
        same = copy.deepcopy(newer)
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 6, "view": same,
                           "request_id": "again"})
        assert client.version == 6 and client.view is same
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 8, "view": bob,
                           "request_id": "later"})
        assert (client.version, client.view) == (8, bob)

    run_client(steps, table_id="t1")


def test_a_drop_is_reported_and_followed_by_a_snapshot(bob: Any) -> None:
    async def steps(client: Client) -> None:
        client._on_open()
        client.view, client.version = bob, 5
        client.on_keys("c\r")
        client._on_lost("connection reset")
        assert client.status_is_error and "No answer came to call 10" in client.status
        client._on_open()
        await settle()
        assert client.ws.sent[-1]["action"] == "snapshot"
        assert client.status.startswith("Reconnected")

    run_client(steps, table_id="t1")


def test_the_clock_offset_follows_the_server_when_clearly_off(
        bob: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import naiko_client.app

    local = [1_800_000_000.0]  # the local clock, moved by hand
    monkeypatch.setattr(naiko_client.app.time, "time", lambda: local[0])

    async def steps(client: Client) -> None:
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5, "view": bob,
                           "request_id": "s"})
        # The documented deadline is in 2023: the server clock is far from ours.
        client.on_message({"type": "update", "table_id": "t1", "version": 6, "view": bob,
                           "events": [{"kind": "turn", "seat_index": 1}]})
        assert client.now_ms() == 1_700_000_020_000 - 20_000
        local[0] += 0.4  # 19.6 seconds left: the countdown shows 20 until 19 are left
        assert client.now_ms() == 1_700_000_020_000 - 19_600
        assert "YOUR TURN  20s" in "\n".join(client.screen(100, 40))

    run_client(steps, table_id="t1")


# -- the room: entering a hand, the waiting list, the host (R7.8-R7.12) ------------------------

def test_r7_8_who_owes_blinds_and_posts_or_waits_for_the_big_blind(bob: Any) -> None:
    bob["seats"][2] = dict(bob["seats"][0], seat_index=2, player_id="erin", in_hand=False,
                           owes_big=True, owes_small=False, entry="post")
    bob["seats"][3].update(owes_big=True, owes_small=True, entry="wait", in_hand=False,
                           sitting_out=False)
    text = screen(bob)
    assert row(text, "erin").endswith("posts BB")
    assert row(text, "carol").endswith("waits for BB")
    assert "owes" not in row(text, "You") and "posts" not in row(text, "You")
    bob["prompt"] = None
    bob["seats"][1].update(owes_big=True, owes_small=True, entry="post", in_hand=False)
    text = screen(bob)
    assert "You owe both blinds: posting them (the small one dead). `wait` to wait for the " \
        "big blind" in text
    bob["seats"][1].update(owes_big=False)
    assert "You owe the small blind: posting it dead." in screen(bob)
    bob["seats"][1].update(owes_big=True, owes_small=False, entry="wait")
    assert "You owe the big blind: you wait for the big blind. `post` to post now" \
        in screen(bob, width=80)
    bob["hand"] = None  # a table that has not dealt deals everybody in: nothing is shown
    text = screen(bob)
    assert "waits for BB" not in text and "You owe" not in text


def test_r7_10_the_waiting_list_and_a_seat_offered_to_you_with_its_countdown(bob: Any) -> None:
    bob["room"].update(waitlist=["erin", "bob"], held_seats=1)
    bob["seat_index"], bob["prompt"] = None, None
    text = screen(bob, offer_until_ms=NOW + 25_000)
    assert "Waiting list: erin, bob   (1 seat held for the list)" in text
    assert "SEAT OFFERED 25s: a seat is held for you: `take` (or `take N`) to sit down" in text
    assert "SEAT OFFERED" not in screen(bob)  # no offer
    bob["room"].update(waitlist=[], held_seats=0)
    assert "Waiting list" not in screen(bob)


def test_r7_12_the_host_the_invite_code_a_paused_closing_or_closed_table(bob: Any) -> None:
    bob["settings"].update(kind="private", host="bob")
    bob["room"]["invite_code"] = "FBCJZG26"
    text = screen(bob)
    assert "Friday Naiko [NAIKO 5/10] private" in text and "host you" in text
    assert row(text, "You").endswith("host") and not row(text, "alice").endswith("host")
    assert "Invite code: FBCJZG26 (`revoke` to cancel it)" in text
    bob["room"].update(invite_code=None, pending={"small_blind": 2, "big_blind": 4,
                                                  "decision_ms": 30000})
    text = screen(bob)
    assert "Invite code: none (`code` makes one)" in text
    assert "From the next hand: blinds 2/4, clock 30s" in text
    del bob["room"]["invite_code"]  # anybody but the host: no code line at all
    assert "Invite code" not in screen(bob)
    bob["room"]["paused"] = True
    assert "PAUSED by the host: no new hand until it resumes." in screen(bob)
    bob["room"]["closing"] = True
    assert "CLOSING: the host closed the table; it closes when this hand ends." in screen(bob)
    bob.update(hand=None, prompt=None)
    bob["room"].update(closing=False, closed=True)
    text = screen(bob)
    assert "CLOSED: this table takes nobody" in text and "the table is closed" in text
    bob["room"].update(closed=False, paused=False)
    bob["settings"]["min_players"] = 2
    assert "the first hand starts with 2." in screen(bob)


def test_r7_the_room_events_read_as_sentences(bob: Any) -> None:
    n = Narrator()
    n.learn(bob)
    said = n.narrate([
        {"kind": "entry_chosen", "seat_index": 1, "entry": "post"},
        {"kind": "entry_chosen", "seat_index": 3, "entry": "wait"},
        {"kind": "blind_posted", "seat_index": 1, "blind": "dead", "amount": 5,
         "all_in": False},
        {"kind": "blind_posted", "seat_index": 1, "blind": "post", "amount": 10,
         "all_in": False},
        {"kind": "waitlist_changed", "waitlist": ["erin", "bob"]},
        {"kind": "waitlist_changed", "waitlist": []},
        {"kind": "seat_offered", "player_id": "erin", "until_ms": NOW + 30_000},
        {"kind": "offer_expired", "player_id": "erin"},
        {"kind": "settings_changed", "changes": {"decision_ms": 30000}, "pending": True},
        {"kind": "settings_changed", "changes": {"small_blind": 2, "big_blind": 4},
         "pending": False},
        {"kind": "table_paused", "paused": True},
        {"kind": "table_paused", "paused": False},
        {"kind": "left_table", "seat_index": 2, "player_id": "bot-1",
         "reason": "removed_by_host"},
        {"kind": "host_changed", "host": "dave"},
        {"kind": "left_table", "seat_index": 1, "player_id": "dave", "reason": "table_closed"},
        {"kind": "table_closed", "reason": "host"},
    ])
    assert said == [
        "You will post to be dealt in",
        "carol will wait for the big blind",
        "You post a dead small blind of 5",
        "You post a big blind of 10 to come in",
        "Waiting list: erin, you",
        "The waiting list is empty",
        "A seat is held for erin",
        "The seat held for erin went to the next in line",
        "The host sets clock 30s from the next hand",
        "The host sets blinds 2/4",
        "The host paused the table: no new hand until it resumes",
        "The host resumed the table",
        "bot-1 left the table (removed by the host)",
        "dave is now the host",
        "dave left the table (the table closed)",
        "The host closed the table: every stack went back to its account",
    ]


def test_r7_8_post_and_wait_and_joining_or_coming_back_with_a_choice(bob: Any) -> None:
    assert error("post", bob) == "You owe no blind: you are dealt in as usual."
    bob["seats"][1].update(owes_big=True, owes_small=True, entry="wait")
    assert request("post", bob) == {"action": "choose_entry", "entry": "post"}
    assert error("wait", bob) == "You already wait for the big blind."
    assert error("post now", bob) == "`post` takes nothing."
    assert request("sitin post", bob) == {"action": "sit_in", "entry": "post"}
    assert request("sitin", bob) == {"action": "sit_in"}
    assert error("sitin later", bob).startswith("Type `sitin`")
    joined = parse_command("join 300 post", None)
    assert (joined.local, joined.amount, joined.entry) == ("join", 300, "post")
    assert parse_command("join wait", None).entry == "wait"
    assert error("join 300 400", None).startswith("Type `join`")
    bob["seat_index"] = None
    assert error("post", bob).startswith("You have no seat at this table")


def test_r7_10_waitlist_take_quick_seat_and_the_account(bob: Any) -> None:
    assert error("waitlist", bob) == "You already have a seat here."
    assert request("unwait", bob) == {"action": "leave_waitlist"}
    bob["seat_index"] = None
    assert request("waitlist", bob) == {"action": "join_waitlist"}
    assert request("queue", bob) == {"action": "join_waitlist"}
    assert error("take", bob) == "No seat is offered to you (`waitlist` to queue for one)."
    taken = parse_command("take 400 post", bob, offer=True)
    assert (taken.local, taken.amount, taken.entry) == ("join", 400, "post")
    assert request("quick NLHE 1/2 200", None) == {
        "action": "quick_seat", "variant": "NLHE", "small_blind": 1, "big_blind": 2,
        "buy_in": 200}
    assert request("quick naiko 5/10 500 post", None) == {
        "action": "quick_seat", "variant": "NAIKO", "small_blind": 5, "big_blind": 10,
        "buy_in": 500, "entry": "post"}
    assert request("quick 1/2 100", None)["variant"] == "NLHE"
    for bad in ("quick", "quick NLHE 2/1 200", "quick NLHE 1/2", "quick OMAHA 1/2 200"):
        assert error(bad, None).startswith("Type `quick NLHE 1/2 200`"), bad
    assert request("account", None) == {"action": "get_account"}
    assert error("account now", None) == "`account` takes nothing."


def test_r7_12_invite_codes_and_the_host_commands(bob: Any) -> None:
    assert request("find fbcjzg26", None) == {"action": "find_table", "code": "FBCJZG26"}
    assert error("find abc", None).startswith("Type `find CODE`")
    # bob's view: alice hosts. Nobody else may use the host's commands.
    for line in ("invite dave", "code", "revoke", "blinds 2/4", "clock 30", "minplayers 2",
                 "bot", "kick carol", "pause", "resume", "close"):
        assert error(line, bob) == "Only the host (alice) may do that.", line
    bob["settings"].update(host="bob", bots=True)
    assert request("invite Dave.B", bob) == {"action": "invite", "player_id": "Dave.B"}
    assert request("code", bob) == {"action": "create_invite_code"}
    assert request("revoke", bob) == {"action": "revoke_invite_code"}
    assert request("blinds 2/4", bob) == {"action": "host_settings", "small_blind": 2,
                                          "big_blind": 4}
    assert error("blinds 4/2", bob).startswith("Type `blinds S/B`")
    assert request("clock 30", bob) == {"action": "host_settings", "decision_seconds": 30}
    assert error("clock 3", bob).startswith("Type `clock N`")
    assert request("minplayers 2", bob) == {"action": "host_settings", "min_players": 2}
    assert error("minplayers 1", bob).startswith("Type `minplayers N`")
    assert request("bot", bob) == {"action": "host_add_bot"}
    assert request("bot 300", bob) == {"action": "host_add_bot", "buy_in": 300}
    assert request("kick CAROL", bob) == {"action": "host_remove", "player_id": "carol"}
    assert request("kick 0", bob) == {"action": "host_remove", "player_id": "alice"}
    assert error("kick bob", bob) == "You cannot remove yourself: `leave`."
    assert error("kick zed", bob).startswith("Type `kick PLAYER`")
    assert request("pause", bob) == {"action": "host_pause", "paused": True}
    assert error("resume", bob) == "The table is not paused."
    bob["room"]["paused"] = True
    assert request("resume", bob) == {"action": "host_pause", "paused": False}
    assert request("close", bob) == {"action": "host_close"}
    bob["settings"]["bots"] = False
    assert error("bot", bob).startswith("Bots are off at this table")
    bob["room"]["closed"] = True
    assert error("pause", bob) == "The table is closed."
    # The host who is not seated is known by the token's player id.
    bob["settings"]["host"], bob["seat_index"] = "zoe", None
    bob["room"]["closed"] = False
    assert parse_command("close", bob, player_id="zoe").request == {"action": "host_close"}


def test_r7_10_a_seat_offered_then_taken_and_one_that_expires(bob: Any) -> None:
    spectator = dict(copy.deepcopy(bob), seat_index=None, prompt=None)

    async def steps(client: Client) -> None:
        ws = client.ws
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5,
                           "view": spectator, "request_id": "s"})
        client.on_message({"type": "update", "table_id": "t1", "version": 6,
                           "view": spectator, "events": [
                               {"kind": "seat_offered", "player_id": "bob",
                                "until_ms": client.now_ms() + 30_000}]})
        assert client.offer_until is not None
        assert "SEAT OFFERED 30s" in "\n".join(client.screen(100, 40))
        client.on_keys("take 300 post\r")
        await settle()
        join = ws.sent[-1]
        assert (join["action"], join["buy_in"], join["entry"], join["table_id"]) \
            == ("join_table", 300, "post", "t1")
        client.on_message({"type": "update", "table_id": "t1", "version": 7,
                           "view": spectator, "events": [
                               {"kind": "offer_expired", "player_id": "bob"}]})
        assert client.offer_until is None
        assert "SEAT OFFERED" not in "\n".join(client.screen(100, 40))
        client.on_keys("take\r")
        assert client.status.startswith("No seat is offered to you")

    run_client(steps, table_id="t1")


def test_r7_11_r7_12_account_codes_found_tables_and_quick_seats(bob: Any) -> None:
    async def steps(client: Client) -> None:
        ws = client.ws
        client.on_message({"type": "tables", "request_id": "x", "tables": []})
        client.on_keys("account\r")  # from the lobby
        await settle()
        assert ws.sent[-1] == {"action": "get_account", "request_id": ws.sent[-1]["request_id"]}
        client.on_message({"type": "account", "request_id": ws.sent[-1]["request_id"],
                           "balance": 9800, "open_tables": 0, "ratholes_today": 1,
                           "day": "2023-11-14"})
        assert client.status == ("Account: balance 9800, open tables 0, ratholes today 1 "
                                 "(2023-11-14, UTC).")
        client.on_keys("find fbcjzg26\r")
        await settle()
        find = ws.sent[-1]
        assert (find["action"], find["code"], "table_id" in find) \
            == ("find_table", "FBCJZG26", False)
        client.on_message({"type": "table_found", "request_id": find["request_id"],
                           "table_id": "t2"})
        await settle()
        assert client.table_id == "t2"
        watch = ws.sent[-1]
        assert (watch["action"], watch["table_id"], watch["invite_code"]) \
            == ("snapshot", "t2", "FBCJZG26")
        spectator = dict(copy.deepcopy(bob), seat_index=None, prompt=None, table_id="t2")
        client.on_message({"type": "snapshot", "table_id": "t2", "version": 4,
                           "view": spectator, "request_id": watch["request_id"]})
        await settle()
        assert ws.sent[-1] is watch  # found by a code: no automatic join
        client.on_keys("join 200\r")
        await settle()
        join = ws.sent[-1]
        assert (join["action"], join["buy_in"], join["invite_code"]) \
            == ("join_table", 200, "FBCJZG26")
        # The host's new code shows at once (no update follows a new code).
        client.view["settings"]["host"] = "bob"
        client.on_keys("code\r")
        await settle()
        code = ws.sent[-1]
        client.on_message({"type": "ack", "request_id": code["request_id"], "table_id": "t2",
                           "version": 4, "replayed": False})
        client.on_message({"type": "invite_code", "request_id": code["request_id"],
                           "table_id": "t2", "code": "K7M2QX9P"})
        assert "Invite code: K7M2QX9P" in "\n".join(client.screen(100, 40))
        assert client.status.startswith("Invite code K7M2QX9P")
        client.on_keys("quick PLO 5/10 500\r")
        await settle()
        quick = ws.sent[-1]
        assert (quick["action"], "table_id" in quick) == ("quick_seat", False)
        # the answer is the update of the table the room seated bob at (no ack)
        client.on_message({"type": "update", "table_id": "q9", "version": 2,
                           "view": dict(bob, table_id="q9"), "events": [],
                           "request_id": quick["request_id"], "replayed": False})
        assert client.table_id == "q9" and quick["request_id"] not in client.pending
        assert client.status == "Quick seat (PLO 5/10): you sit at table q9."
        assert client.view is not None and client.version == 2

    run_client(steps)


def test_a_full_table_suggests_the_waiting_list(bob: Any) -> None:
    async def steps(client: Client) -> None:
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5,
                           "view": dict(bob, seat_index=None, prompt=None), "request_id": "s"})
        await settle()
        join = client.ws.sent[-1]
        client.on_message({"type": "error", "request_id": join["request_id"],
                           "code": "table_full", "message": "every seat is taken"})
        assert client.status.endswith("(table_full) Type `waitlist` to queue for a seat.")

    run_client(steps, table_id="t1")


# -- tournaments (R9) --------------------------------------------------------------------------

def _doc_tournament_block() -> dict[str, Any]:
    """The view's ``tournament`` block of docs/protocol.md (grace's Spin when it started)."""
    for block in re.findall(r"```json\n(.*?)```", DOC, re.S):
        if block.startswith('{\n  "tournament_id"') and '"first_hand_ms"' in block:
            return dict(json.loads(block))
    raise AssertionError("no tournament block in docs/protocol.md")


SPIN = _doc_tournament_block()
LEVEL_ENDS = SPIN["level_ends_ms"]


@pytest.fixture
def spin(bob: Any) -> dict[str, Any]:
    """bob's view on his turn, at a tournament's table: the documented tournament block, a
    tournament's settings (no buy-in, the creator as host), no owed blinds (R9.4)."""
    bob["settings"].update(kind="tournament", min_buy_in=0, max_buy_in=0, host="alice",
                           name="Spin 100 #1")
    bob["config"].update(entry_rules=False, deal_absent=True)
    for seat in bob["seats"]:
        if seat:
            for key in ("owes_big", "owes_small", "entry"):
                seat.pop(key)
    bob["tournament"] = copy.deepcopy(SPIN)
    return dict(bob)


def test_r9_3_a_tournament_table_shows_its_level_the_next_one_players_and_prizes(
        spin: Any) -> None:
    text = screen(spin, now_ms=LEVEL_ENDS - 175_000, player_id="bob")
    assert "Spin 100 #1 [NAIKO 5/10] tournament" in text
    assert "buy-in" not in text and "host" not in text  # the tournament's seats and chips
    assert "Level 1: blinds 10/20   next level 15/30 in 2:55   players left 3/3" in text
    assert "Prizes: 1st 500   Spin x5" in text
    assert "first hand in" not in text  # a hand is being played
    # Its time has come: the next level starts with the next hand dealt (R9.3).
    assert "next level 15/30 from the next hand" in screen(spin, now_ms=LEVEL_ENDS + 1)
    spin["tournament"].update(level=7, small_blind=100, big_blind=200, ante=25,
                              ante_mode="each", players_left=2, payouts=[390, 210],
                              multiplier=None, next_level={
                                  "number": 8, "small_blind": 200, "big_blind": 400,
                                  "ante": 25, "ante_mode": "each", "minutes": 5})
    text = screen(spin, now_ms=LEVEL_ENDS - 60_000)
    assert "Level 7: blinds 100/200 ante 25   next level 200/400 ante 25 in 1:00   " \
        "players left 2/3" in text
    assert "Prizes: 1st 390, 2nd 210" in text and "Spin x" not in text
    spin["tournament"].update(next_level=None, level_ends_ms=None, ante=100,
                              ante_mode="big_blind")
    assert "Level 7: blinds 100/200 BB ante 100   the last level   players left 2/3" \
        in screen(spin)


def test_r9_2_before_the_first_hand_and_after_the_last(spin: Any) -> None:
    spin.update(hand=None, prompt=None)
    first = SPIN["first_hand_ms"]
    text = screen(spin, now_ms=first - 5_000)
    assert "Prizes: 1st 500   Spin x5   first hand in 5s" in text
    assert "The tournament starts: the first hand is dealt in 5s." in text
    assert "Waiting for players" not in text
    spin["room"]["closed"] = True
    spin["seat_index"] = None  # eliminated: watching on
    text = screen(spin, now_ms=first + 600_000)
    assert "CLOSED: the tournament is over." in text
    assert "No more hands: the tournament is over" in text
    assert "You are watching this tournament's table (no seat)." in text
    assert "`join`" not in text


def test_r9_4_sitting_out_is_shown_and_the_cash_commands_are_refused(spin: Any) -> None:
    spin["seats"][1]["sitting_out"] = True
    assert "(sitting out: played for at once; type `sitin`)" in screen(spin)
    for line in ("join", "join 500", "take", "add 100", "post", "wait", "waitlist", "unwait",
                 "code", "pause", "kick carol"):
        assert error(line, spin).startswith("This is a tournament's table"), line
    assert error("leave", spin).startswith("A tournament's seat cannot be left: `sitout`")
    assert request("sitout", spin) == {"action": "sit_out"}
    assert request("sitin", spin) == {"action": "sit_in"}
    assert request("f", spin) == {"action": "act", "move": "fold"}
    assert error("join", copy.deepcopy(spin) | {"seat_index": None}).startswith(
        "This is a tournament's table")


def test_r9_the_tournament_events_read_as_sentences(bob: Any) -> None:
    documented = {e["kind"]: e for e in _doc_events()}
    n = Narrator()
    n.learn(bob)
    said = n.narrate([documented["tournament_started"], documented["level_changed"],
                      documented["eliminated"], documented["tournament_finished"]])
    assert said == [
        "The tournament starts, a Spin x5: prize pool 500, prizes 1st 500; the first hand is "
        "dealt shortly",
        "Level 1: blinds 10/20; next 15/30",
        "grace is out in 3rd place",
        "erin wins the tournament and 500",
    ]
    assert n.narrate([
        {"kind": "tournament_started", "tournament_id": "u1", "first_hand_ms": NOW,
         "prize_pool": 600, "payouts": [390, 210], "multiplier": None},
        {"kind": "level_changed", "level": 18, "small_blind": 500, "big_blind": 1000,
         "ante": 100, "ante_mode": "each", "ends_ms": None, "next_level": None},
        {"kind": "eliminated", "player_id": "bob", "place": 2, "prize": 210},
    ]) == [
        "The tournament starts: prize pool 600, prizes 1st 390, 2nd 210; the first hand is "
        "dealt shortly",
        "Level 18: blinds 500/1000 ante 100 (the last level: it goes on)",
        "You are out in 2nd place and win 210",
    ]


LISTED = _doc_message("tournaments")["tournaments"]
SHOWN = _doc_message("tournament")["tournament"]
"""The documented lobby (grace's Spin registering) and the Spin once it finished."""


def test_r9_1_the_tournament_commands(bob: Any) -> None:
    spin_id = LISTED[0]["tournament_id"]

    def parsed(line: str, **kw: Any) -> Any:
        return parse_command(line, kw.pop("view", None), tournaments=LISTED, **kw)

    assert parsed("tournaments").request == {"action": "list_tournaments"}
    assert parsed("tourneys now").error == "`tournaments` takes nothing."
    assert parsed("tournament 1").request == {"action": "get_tournament",
                                              "tournament_id": spin_id}
    assert parsed("register 1").request == {"action": "register", "tournament_id": spin_id}
    assert parsed(f"reg {spin_id}").request == {"action": "register", "tournament_id": spin_id}
    assert parsed("unregister 1", view=bob).request == {"action": "unregister",
                                                        "tournament_id": spin_id}
    assert parsed("register uNotListed-1").request == {"action": "register",
                                                       "tournament_id": "uNotListed-1"}
    for bad in ("register", "register 2", "register 0", "register a/b", "tournament 1 2"):
        assert parsed(bad).error.startswith("Type `"), bad
    # What the list and the tournament shown say is checked before sending (R9.1).
    finished = parse_command("register 1", None, tournaments=LISTED, tournament=dict(
        SHOWN, tournament_id=spin_id))
    assert finished.error == "Registration is closed: Spin 100 is over."
    running = [dict(LISTED[0], status="running")]
    assert parse_command("unregister 1", None, tournaments=running).error == (
        "Spin 100 has started: entries are no longer returned (R9.1).")
    cancelled = [dict(LISTED[0], status="cancelled")]
    assert parse_command("unregister 1", None, tournaments=cancelled).error == (
        "Spin 100 was cancelled: every entry went back.")
    assert parse_command("register 1", None, tournaments=[dict(LISTED[0], entrants=3)]).error \
        == "Spin 100 is full."
    mine = dict(LISTED[0], you={"registered": True, "result": None})  # get_tournament's own
    theirs = dict(LISTED[0], you={"registered": False, "result": None})
    assert parse_command("register 1", None, tournaments=LISTED, tournament=mine,
                         player_id="bob").error == "You are registered for Spin 100 already."
    assert parse_command("unregister 1", None, tournaments=LISTED, tournament=theirs,
                         player_id="carol").error == "You are not registered for Spin 100."
    assert parse_command("unregister 1", None, tournaments=LISTED, tournament=mine,
                         player_id="bob").request == {"action": "unregister",
                                                      "tournament_id": spin_id}


def test_r9_1_the_lobby_lists_the_tournaments_and_shows_one() -> None:
    # The client adds the first pages of the players and the places (best first) to it.
    places = sorted(_doc_message("tournament_results")["results"], key=lambda r: r["place"])
    shown = dict(SHOWN, registered=["bot-1", "erin", "grace"], results=places)
    text = "\n".join(render_lobby([], tournaments=LISTED, tournament=shown, width=110,
                                  height=40))
    assert "Tournaments (`tournament N` to see one, `register N` to enter):" in text
    assert re.search(rf"^ +1  Spin 100 +Spin  NLHE +100 +0/3  registering  "
                     rf"{LISTED[0]['tournament_id']}$", text, re.M)
    assert f"Spin 100: Spin NLHE, finished   {SHOWN['tournament_id']}" in text
    assert "  entry 100   stack 500   3 seats   players 3/3 (1 left)   clock 12s   bots on" \
        in text
    assert "  levels of 3 min: 10/20, 15/30, 20/40, 25/50, 30/60, 40/80 ... (18 levels)" in text
    assert "  prizes: 1st 500   Spin x5" in text
    assert "  registered: bot-1, erin, grace" in text
    assert "  places: 1st erin 500, 2nd bot-1, 3rd grace" in text
    registering = "\n".join(text for text, _ in tournament_detail_lines(LISTED[0]))
    assert "prizes: fixed when it starts (a Spin: the pool is the entry times a multiplier " \
        "drawn at the start)" in registering
    assert "No tournament is registering or running." in "\n".join(
        render_lobby([], tournaments=[]))


def test_r9_2_register_from_the_lobby_and_the_table_shows_when_it_starts(spin: Any) -> None:
    table_id = SPIN["tournament_id"] + "-1"
    seat = dict(copy.deepcopy(spin), table_id=table_id, hand=None, prompt=None)

    async def steps(client: Client) -> None:
        ws = client.ws
        client.on_message({"type": "tables", "request_id": "x", "tables": []})
        client.on_keys("tournaments\r")
        await settle()
        listing = ws.sent[-1]
        assert (listing["action"], "table_id" in listing) == ("list_tournaments", False)
        client.on_message({"type": "tournaments", "request_id": listing["request_id"],
                           "tournaments": LISTED})
        assert client.status == "1 tournament: `tournament N` to see one, `register N` to enter."
        assert "Spin 100" in "\n".join(client.screen(110, 30))
        client.on_keys("tournament 1\r")
        await settle()
        assert ws.sent[-1]["action"] == "get_tournament"
        client.on_message({"type": "tournament", "request_id": ws.sent[-1]["request_id"],
                           "tournament": dict(LISTED[0], you={"registered": False,
                                                              "result": None})})
        await settle()  # its players and places are asked for, a page each
        players, places = ws.sent[-2], ws.sent[-1]
        assert (players["action"], places["action"]) == ("tournament_players",
                                                          "tournament_results")
        assert players["tournament_id"] == LISTED[0]["tournament_id"] and "table_id" not in players
        client.on_message({"type": "tournament_players", "request_id": players["request_id"],
                           "tournament_id": players["tournament_id"],
                           "players": [{"player_id": "erin", "bot": False}],
                           "next": "more"})
        assert "  registered: erin ... (more)" in "\n".join(client.screen(110, 40))
        client.on_keys("register 1\r")
        await settle()
        register = ws.sent[-1]
        assert register == {"action": "register", "tournament_id": LISTED[0]["tournament_id"],
                            "request_id": register["request_id"]}
        # The registration fills it: the table's first update comes before the ack.
        client.on_message({"type": "update", "table_id": table_id, "version": 1,
                           "view": seat, "events": [{
                               "kind": "tournament_started", "tournament_id": SPIN[
                                   "tournament_id"], "first_hand_ms": SPIN["first_hand_ms"],
                               "prize_pool": 500, "payouts": [500], "multiplier": 5}]})
        assert client.table_id == table_id and client.version == 1
        client.on_message({"type": "ack", "request_id": register["request_id"],
                           "tournament_id": SPIN["tournament_id"], "version": 6,
                           "replayed": False})
        assert client.status.startswith("Your tournament starts")
        text = "\n".join(client.screen(110, 40))
        assert "Level 1: blinds 10/20" in text and "Spin x5" in text
        assert list(client.log)[-1].startswith("The tournament starts, a Spin x5")
        client.on_message({"type": "update", "table_id": table_id, "version": 2, "view": seat,
                           "events": [{"kind": "eliminated", "player_id": "carol",
                                       "place": 3, "prize": 0}]})
        assert list(client.log)[-1] == "carol is out in 3rd place"
        client.on_keys("join\r")
        assert client.status.startswith("This is a tournament's table")

    run_client(steps)


def test_r9_2_a_tournament_that_starts_while_you_play_elsewhere(bob: Any) -> None:
    async def steps(client: Client) -> None:
        client.on_message({"type": "snapshot", "table_id": "t1", "version": 5, "view": bob,
                           "request_id": "s"})
        client.on_keys("register u1\r")
        await settle()
        register = client.ws.sent[-1]
        assert (register["action"], register["tournament_id"], "table_id" in register) \
            == ("register", "u1", False)
        client.on_message({"type": "ack", "request_id": register["request_id"],
                           "tournament_id": "u1", "version": 2, "replayed": False})
        assert client.status.startswith("You are registered for u1: the entry is paid.")
        client.on_message({"type": "update", "table_id": "u1-1", "version": 1, "view": bob,
                           "events": [{"kind": "tournament_started", "tournament_id": "u1",
                                       "first_hand_ms": NOW, "prize_pool": 200,
                                       "payouts": [200], "multiplier": 2}]})
        assert client.table_id == "t1"  # seated here: the client does not leave the table
        assert client.status == "Your tournament started at table u1-1 (`--table u1-1` " \
            "shows it)."
        client.on_message({"type": "update", "table_id": "u2-1", "version": 1, "view": bob,
                           "events": [{"kind": "action", "seat_index": 1,
                                       "action": "fold"}]})
        assert client.table_id == "t1" and client.version == 5  # not a start: ignored

    run_client(steps, table_id="t1")


def test_r9_9_the_terminal_shows_the_split_by_field_and_the_current_fields_prizes() -> None:
    sng = {"tournament_id": "u2", "name": "Six-max", "kind": "sit_and_go", "variant": "NLHE",
           "status": "registering", "entry": 100, "entrants": 2, "max_players": 6,
           "payouts": [], "payout_split": {"entrants": 6, "prizes": [390, 210]},
           "payout_table": [{"min_entrants": 2, "max_entrants": 5, "percent": [100]},
                            {"min_entrants": 6, "max_entrants": 6, "percent": [65, 35]}]}
    text = "\n".join(line for line, _ in tournament_detail_lines(sng))
    assert "  prizes (6 players): 1st 390, 2nd 210   split by field: 2-5: 100, 6: 65/35" in text
