"""You and everybody else in the web client's words (``local/naiko_local/web/js/narrate.js``,
``table.js``; ``docs/web.md``): events about the viewer's own seat read in the second person
("You raise to 8", "Your clock ran out: you fold"), anybody else's by name ("bob raises to 8"),
and a player whose id reads as "you" is quoted (``"you" raises to 8``), never taken for the
viewer; the viewer's seat is labelled ``You`` and "Waiting for you" only on the viewer's turn.

- narrate.js is a pure module: it is imported in a page of the client's origin and run on every
  event kind it names a player in, as the viewer and as another player reads it, with the
  subject called bob or a name that reads as "you";
- table.js draws a view in the page: the seat labels and the "Waiting for" line;
- the app itself (against a stand-in server): the log, the seats and the waiting line of a
  player called "you" at a table with a player called "You".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("websockets")

from test_web_client import AdditionsServer  # noqa: E402

NARRATE = "const m = await import('/js/narrate.js');"
NAMES = {0: "alice", 1: "bob", 3: "carol"}
"""Seat 1 (bob) is what the events are about, seat 0 (alice) the other party, seat 3 (carol)
the other reader."""

CASES = [
    # (event about seat 1 / player bob, as bob reads it, as carol reads it)
    ({"kind": "seated", "seat_index": 1, "player_id": "bob", "stack": 500, "is_bot": False},
     "You sit down with 500", "bob sits down with 500"),
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
    ({"kind": "action", "seat_index": 1, "action": "raise_to", "to": 8, "all_in": True},
     "You raise to 8 (all-in)", "bob raises to 8 (all-in)"),
    ({"kind": "uncalled_bet_returned", "seat_index": 1, "amount": 30},
     "30 uncalled returned to you", "30 uncalled returned to bob"),
    ({"kind": "showdown", "board": "4h7h5hTsKd", "hands": [
        {"seat_index": 1, "cards": "TdKh", "hand": "two pair, Kings and Tens"}]},
     "You show Td Kh: two pair, Kings and Tens", "bob shows Td Kh: two pair, Kings and Tens"),
    ({"kind": "pot_awarded", "pot_index": 0, "amount": 40, "winners": {"1": 40},
      "showdown": False}, "You win 40 (the pot of 40, uncontested)",
     "bob wins 40 (the pot of 40, uncontested)"),
    ({"kind": "pot_awarded", "pot_index": 1, "amount": 40, "winners": {"0": 20, "1": 20},
      "showdown": True}, "alice wins 20, you win 20 (side pot 1 of 40)",
     "alice wins 20, bob wins 20 (side pot 1 of 40)"),
    ({"kind": "power_used", "seat_index": 1, "power": "peek", "destellos": 1},
     "You use Peek (1 destello left)", "bob uses Peek (1 destello left)"),
    ({"kind": "power_used", "seat_index": 1, "power": "sleeve_swap", "card_index": 1,
      "destellos": 0}, "You use Sleeve Swap (card 2)", "bob uses Sleeve Swap (card 2)"),
    ({"kind": "power_used", "seat_index": 1, "power": "short_anchor", "target_seat": 0,
      "destellos": 1}, "You use Short Anchor on alice", "bob uses Short Anchor on alice"),
    ({"kind": "power_used", "seat_index": 0, "power": "short_anchor", "target_seat": 1,
      "destellos": 1}, "alice uses Short Anchor on you", "alice uses Short Anchor on bob"),
    ({"kind": "power_used", "seat_index": 1, "power": "seal_shield", "target_seat": 0,
      "destellos": 2}, "You use Seal Shield", "bob uses Seal Shield"),
    ({"kind": "window_opened", "target": 1, "attacker": 0},
     "You may answer alice's Short Anchor with Seal Shield",
     "bob may answer alice's Short Anchor with Seal Shield"),
    ({"kind": "window_opened", "target": 0, "attacker": 1},
     "alice may answer your Short Anchor with Seal Shield",
     "alice may answer bob's Short Anchor with Seal Shield"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "shielded"},
     "You shield: the Short Anchor is cancelled", "bob shields: the Short Anchor is cancelled"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "passed"},
     "You let the Short Anchor apply", "bob lets the Short Anchor apply"),
    ({"kind": "window_closed", "target": 1, "attacker": 0, "reason": "acted"},
     "You acted: the Short Anchor applies", "bob acted: the Short Anchor applies"),
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
    ({"kind": "reconnect_grace", "seat_index": 1},
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
     "You left the table (sat_out_too_long)", "bob left the table (sat_out_too_long)"),
    ({"kind": "entry_chosen", "seat_index": 1, "entry": "post"},
     "You will post to be dealt in", "bob will post to be dealt in"),
    ({"kind": "entry_chosen", "seat_index": 1, "entry": "wait"},
     "You will wait for the big blind", "bob will wait for the big blind"),
    ({"kind": "waitlist_changed", "waitlist": ["erin", "bob"]},
     "Waiting list: erin, you", "Waiting list: erin, bob"),
    ({"kind": "seat_offered", "player_id": "bob", "until_ms": 1},
     "A seat is held for you", "A seat is held for bob"),
    ({"kind": "offer_expired", "player_id": "bob"},
     "The seat held for you went to the next in line",
     "The seat held for bob went to the next in line"),
    ({"kind": "host_changed", "host": "bob"}, "You are now the host", "bob is now the host"),
    ({"kind": "eliminated", "player_id": "bob", "place": 2, "prize": 210},
     "You are out in place 2, winning 210", "bob is out in place 2, winning 210"),
    ({"kind": "tournament_finished", "winner": "bob", "prize": 500},
     "You win the tournament and 500", "bob wins the tournament and 500"),
]

QUIET = [  # name nobody: the same for every reader
    {"kind": "hand_started", "hand_number": 2, "button": 1, "small_blind": 5, "big_blind": 10},
    {"kind": "deck_committed", "root": "ab" * 32},
    {"kind": "hole_cards", "seat_index": 1, "cards": "TdKh", "private_to": 1},
    {"kind": "carousel", "powers": ["peek", "short_anchor"]},
    {"kind": "board_dealt", "street": "flop", "cards": "4h7h5h", "run_out": False},
    {"kind": "hand_ended", "hand_number": 2},
    {"kind": "hand_cancelled", "hand_number": 2, "reason": "stalled"},
    {"kind": "peek_result", "card": "Ah", "street": "turn"},
    {"kind": "sleeve_swap_result", "discarded": "Td", "received": "Ah", "cards": "AhKh"},
    {"kind": "window_closed", "target": 1, "attacker": 0, "reason": "timed_out"},
    {"kind": "window_closed", "target": 1, "attacker": 0, "reason": "round_ended"},
    {"kind": "table_closed", "reason": "host"},
    {"kind": "settings_changed", "changes": {"big_blind": 4}, "pending": True},
    {"kind": "table_paused", "paused": True},
    {"kind": "tournament_started", "prize_pool": 500, "multiplier": 5},
    {"kind": "level_changed", "level": 2, "small_blind": 15, "big_blind": 30, "ante": 0},
]

SUBJECTS = ["bob", "you", "You", "YOUR", '"you"', "yourself!"]


def _case_id(case: tuple[dict[str, Any], str, str]) -> str:
    event = case[0]
    detail = event.get("action") or event.get("power") or event.get("reason") \
        or event.get("blind") or event.get("decision") or event.get("entry") or ""
    if event.get("target", event.get("target_seat")) == 1:
        detail += "-at-you"
    if event["kind"] == "pot_awarded" and len(event["winners"]) > 1:
        detail += "split"
    return f"{event['kind']}-{detail}".rstrip("-")


def _named(event: dict[str, Any], name: str) -> dict[str, Any]:
    return dict(json.loads(json.dumps(event).replace('"bob"', json.dumps(name))))


def narrate_in_page(page: Any, events: list[dict[str, Any]], names: dict[int, str],
                    seat: int | None, player: str | None = None) -> list[list[str]]:
    """Each event narrated on its own by the page's narrate.js, read from *seat* (and with the
    reader's id *player* when given), the seats named *names*."""
    result: list[list[str]] = page.evaluate(
        f"async ([events, names, seat, player]) => {{ {NARRATE} "
        "const nameOf = (s) => names[s] ?? `seat ${s}`; "
        "return events.map((e) => m.narrate([e], nameOf, { seat, player })); }",
        [events, {str(k): v for k, v in names.items()}, seat, player])
    return result


@pytest.mark.parametrize(("event", "mine", "theirs"), CASES, ids=[_case_id(c) for c in CASES])
def test_events_about_you_read_in_the_second_person_and_others_by_name(
        page: Any, event: dict[str, Any], mine: str, theirs: str) -> None:
    """As the player of seat 1 reads it, and as carol (seat 3) does; seat 1's player called
    bob, or by a name that reads as "you": the same second-person sentence on their screen,
    quoted on carol's. The reader named by id (the token's player) reads the same, seated or
    watching."""
    for subject in SUBJECTS:
        names = {**NAMES, 1: subject}
        named = _named(event, subject)
        shown = subject if subject == "bob" else f'"{subject}"'
        other = theirs.replace("bob", shown)
        assert narrate_in_page(page, [named], names, 1) == [[mine]], subject
        assert narrate_in_page(page, [named], names, 3) == [[other]], subject
        assert narrate_in_page(page, [named], names, 1, subject) == [[mine]], subject
        assert narrate_in_page(page, [named], names, None, "carol") == [[other]], subject


def test_events_naming_nobody_read_the_same_for_every_reader(page: Any) -> None:
    names = {**NAMES, 1: "you"}
    mine = narrate_in_page(page, QUIET, names, 1)
    assert all(lines for lines in mine)
    assert mine == narrate_in_page(page, QUIET, names, 3)


def test_a_player_named_you_at_a_table_with_you(page: Any) -> None:
    names = {0: "You", 1: "you", 3: "carol"}
    events = [
        {"kind": "power_used", "seat_index": 1, "power": "short_anchor", "target_seat": 0},
        {"kind": "action", "seat_index": 0, "action": "raise_to", "to": 8, "all_in": False},
        {"kind": "timed_out", "seat_index": 0, "decision": "fold"},
    ]
    assert narrate_in_page(page, events, names, 1) == [
        ['You use Short Anchor on "You"'], ['"You" raises to 8'],
        ['"You"\'s clock ran out: "You" folds']]
    assert narrate_in_page(page, events, names, 0) == [
        ['"you" uses Short Anchor on you'], ["You raise to 8"], ["Your clock ran out: you fold"]]
    assert narrate_in_page(page, events[:1], names, 3) == [['"you" uses Short Anchor on "You"']]


def test_a_seat_offered_is_told_to_you_only(page: Any) -> None:
    """R7.10: ``seat_offered`` goes to that player only; a reader with no id is that player."""
    event = {"kind": "seat_offered", "player_id": "erin", "until_ms": 1}
    assert narrate_in_page(page, [event], NAMES, None) == [["A seat is held for you"]]
    assert narrate_in_page(page, [event], NAMES, None, "zoe") == [["A seat is held for erin"]]


def test_the_helpers_agree_with_the_terminal_client(page: Any) -> None:
    """The same names read as "you" in both clients (naiko_client.render.reads_as_you)."""
    from naiko_client.render import reads_as_you, shown_name

    names = ["you", "You", "YOU", "your", "Yours", "yourself", "you're", "you’re", '"you"',
             "'Your'", "you!", "_you_", "youth", "ayou", "yo", "bob", "éyou", "you2", "ÿou"]
    shown = page.evaluate(
        f"async (names) => {{ {NARRATE} return names.map((n) => [m.readsAsYou(n), "
        "m.shownName(n)]); }", names)
    assert shown == [[reads_as_you(n), shown_name(n)] for n in names]


RAISE = {"kind": "action", "seat_index": 1, "action": "raise_to", "to": 8, "all_in": True}
CHECKED = {"kind": "timed_out", "seat_index": 1, "decision": "check"}
SPLIT = {"kind": "pot_awarded", "pot_index": 1, "amount": 40, "winners": {"0": 20, "1": 20},
         "showdown": True}
PEEK = {"kind": "power_used", "seat_index": 1, "power": "peek", "destellos": 1}
FOLD = {"kind": "action", "seat_index": 1, "action": "fold"}
OUT = {"kind": "eliminated", "player_id": "bob", "place": 2, "prize": 210}
CHECK = {"kind": "action", "seat_index": 1, "action": "check"}
SHIELD = {"kind": "power_used", "seat_index": 1, "power": "seal_shield", "target_seat": 0,
          "destellos": 2}
LANGUAGE_CASES: dict[str, list[tuple[dict[str, Any], str, str]]] = {
    # language: (event about bob at seat 1, as bob reads it, as carol reads it)
    "pl": [(RAISE, "Podbijasz do 8 (all-in)", "bob podbija do 8 (all-in)"),
           (CHECKED, "Twój czas minął: czekasz", "Czas gracza bob minął: bob czeka"),
           (SPLIT, "alice wygrywa 20, wygrywasz 20 (pula boczna 1: 40)",
            "alice wygrywa 20, bob wygrywa 20 (pula boczna 1: 40)")],
    "pt": [(RAISE, "Você aumenta para 8 (all-in)", "bob aumenta para 8 (all-in)"),
           (PEEK, "Você usa Olhar Furtivo (resta 1 Destello)",
            "bob usa Olhar Furtivo (resta 1 Destello)")],
    "vi": [(FOLD, "Bạn bỏ bài", "bob bỏ bài"),
           (OUT, "Bạn bị loại ở hạng 2, nhận 210", "bob bị loại ở hạng 2, nhận 210")],
    "ro": [(CHECK, "Dai check", "bob dă check"),
           (SHIELD, "Folosești Sigiliul Protector", "bob folosește Sigiliul Protector")],
}


@pytest.mark.parametrize("lang", sorted(LANGUAGE_CASES))
def test_events_read_in_the_pages_language(page: Any, lang: str) -> None:
    """The log speaks the page's language (js/i18n.js), in the second person for the reader
    and by name for others, as in English."""
    cases = LANGUAGE_CASES[lang]
    events = [event for event, _, _ in cases]
    try:
        page.evaluate("async (lang) => (await import('/js/i18n.js')).loadLanguage(lang)", lang)
        assert narrate_in_page(page, events, NAMES, 1) == [[mine] for _, mine, _ in cases]
        assert narrate_in_page(page, events, NAMES, 3) == [[theirs] for _, _, theirs in cases]
    finally:
        page.evaluate("async () => (await import('/js/i18n.js')).loadLanguage('en')")
    assert narrate_in_page(page, events[:1], NAMES, 3) != [[cases[0][2]]]  # English again


# -- the table -------------------------------------------------------------------------------

def seated_view() -> dict[str, Any]:
    """A seated view of the stand-in server: seat 0 the viewer (alice), seat 1 bot-1, on the
    viewer's turn."""
    server = AdditionsServer()
    server.loop.close()
    return server.view(True)


SEATS_AND_WAITING = """(root) => ({
  names: [...root.querySelectorAll('.seat .name')].map((e) =>
    [Number(e.closest('.seat').dataset.seat), e.firstChild.textContent]),
  waiting: root.querySelector('[data-waiting]')?.textContent.trim() ?? null })"""
"""What :func:`draw_table` reads by default: the seat labels and the waiting line."""


def draw_table(page: Any, view: dict[str, Any], read: str = SEATS_AND_WAITING, *,
               player: str | None = None, terms: dict[str, Any] | None = None,
               click: str | None = None) -> dict[str, Any]:
    """table.js draws *view* into a fresh element, for the reader *player* (``playerId``), the
    lobby's terms of its tournament *terms*; *click* (a CSS selector) is clicked. Returns
    what *read* (a JavaScript function of the element) reads, the element's text and what
    the page sent (``[action, fields]`` each)."""
    result: dict[str, Any] = page.evaluate(
        f"""async ([view, player, terms, click]) => {{
          const t = await import('/js/table.js');
          const root = document.createElement('div');
          document.body.replaceChildren(root);
          const sent = [];
          t.renderTable(root, view, {{ nowMs: 0, version: 1, tableId: view.table_id, log: [],
            ui: {{}}, showdown: null, offerUntil: null, playerId: player, proofs: null,
            tournamentTerms: () => terms,
            send: (action, fields) => sent.push([action, fields]),
            join: () => {{}}, toLobby: () => {{}} }});
          if (click) root.querySelector(click).click();
          return {{ ...({read})(root), sent, text: root.innerText }};
        }}""", [view, player, terms, click])
    return result


def test_your_seat_is_labelled_you_and_a_player_named_you_is_quoted(page: Any) -> None:
    view = seated_view()
    view["seats"][0]["player_id"] = "you"
    view["seats"][1]["player_id"] = "You"
    drawn = draw_table(page, view)
    assert drawn["names"] == [[0, "You"], [1, '"You"']]
    assert "(you)" not in drawn["text"]


def test_waiting_for_you_only_on_your_turn(page: Any) -> None:
    view = seated_view()
    view["prompt"] = None
    assert draw_table(page, view)["waiting"] == "Waiting for you"  # your turn, no prompt yet
    view["hand"]["actor"] = 1
    assert draw_table(page, view)["waiting"] == "Waiting for bot-1 (BOT)"
    view["seats"][1]["player_id"] = "you"
    assert draw_table(page, view)["waiting"] == 'Waiting for "you" (BOT)'
    view["prompt"] = seated_view()["prompt"]  # your turn: the action bar instead
    view["hand"]["actor"] = 0
    assert draw_table(page, view)["waiting"] is None


def test_a_finished_hand_says_who_won_with_you_in_it(page: Any) -> None:
    view = seated_view()
    view["seats"][1]["player_id"] = "you"
    view["prompt"] = None
    view["hand"].update(complete=True, actor=None, awards=[
        {"amount": 40, "eligible": [0, 1], "winners": {"1": 20, "0": 20}, "showdown": True}])
    assert '★ You win 20, "you" wins 20' in draw_table(page, view)["text"]


# -- the app ---------------------------------------------------------------------------------

def test_the_app_names_you_and_quotes_a_player_named_you(open_page: Any) -> None:
    """A player called "you" sits at the stand-in server's table; seat 1 is played by "You".
    The log, the seats and the waiting line say which is which."""
    from naiko_local.web import WebServer

    with AdditionsServer() as fake:
        web = WebServer("127.0.0.1", 0, ws_port=fake.port, mint=lambda p, ttl: "t").start()
        try:
            tab = open_page()
            tab.goto(f"{web.url}?player=you")
            tab.locator("[data-action=play][data-table=tfake]").click()
            tab.wait_for_selector(".seat.me .card.face")
            state = tab.evaluate("({view: naikoApp.view, version: naikoApp.version})")
            view = state["view"]
            view["seats"][0]["player_id"] = "you"
            view["seats"][1]["player_id"] = "You"
            view["prompt"] = None
            view["hand"]["actor"] = 1
            events = [{"kind": "action", "seat_index": 0, "action": "raise_to", "to": 8,
                       "all_in": False},
                      {"kind": "action", "seat_index": 1, "action": "raise_to", "to": 16,
                       "all_in": False},
                      {"kind": "timed_out", "seat_index": 1, "decision": "fold"}]
            tab.evaluate("(m) => naikoApp.onMessage(m)",
                         {"type": "update", "table_id": "tfake", "version": state["version"] + 1,
                          "events": events, "view": view})
            tab.wait_for_selector("ol.log li:has-text('clock ran out')")
            log = tab.locator("ol.log li").all_inner_texts()
            assert log[-3:] == ["You raise to 8", '"You" raises to 16',
                                '"You"\'s clock ran out: "You" folds']
            assert tab.locator(".seat.me .name").inner_text() == "You"
            assert tab.locator(".seat[data-seat='1'] .name").inner_text().startswith('"You"')
            assert tab.locator("[data-waiting]").inner_text().startswith('Waiting for "You"')
            assert "(you)" not in tab.locator("#screen").inner_text()
        finally:
            web.stop()


def test_a_stored_hand_in_the_history_reads_with_you_in_it(page: Any) -> None:
    """The history panel (history.js) narrates a stored hand for its reader (the hand's
    ``seat_index``): carol's hand #6 of docs/protocol.md, carol called "you" and the winner,
    grace, called "You"."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    line = next(x for x in doc.splitlines() if x.startswith('{"type": "hand", '))
    text = line.replace('"carol"', '"you"').replace('"grace"', '"You"')
    hand = json.loads(text)["hand"]
    drawn: dict[str, Any] = page.evaluate(
        """async (hand) => {
          const m = await import('/js/history.js');
          const root = document.createElement('div');
          document.body.replaceChildren(root);
          m.renderHistory(root, { hands: [], next: null, hand, error: null, verdict: null },
            { more() {}, open() {}, close() {}, back() {} });
          return { log: [...root.querySelectorAll('ol.log li')].map((li) => li.textContent),
                   rows: [...root.querySelectorAll('.row')].map((r) => r.textContent) };
        }""", hand)
    assert "You are dealt 4c 6c" in drawn["log"] and "You fold" in drawn["log"]
    assert '"You" shows 5s Kd: one pair, Eights' in drawn["log"]
    assert '"You" wins 25 (the pot of 25)' in drawn["log"]
    assert any(r.startswith('"You": ') for r in drawn["rows"]), drawn["rows"]
    assert "Result: erin -10, bob -5, \"You\" +15, You 0" in drawn["rows"]
