"""The table's layout on a phone (390x844, and 360x800) and a desktop (1280x800) (issue 25 item 1,
``docs/web.md`` "On a phone"): heads-up, 6-max, 9-max and 10-max tables with every seat taken,
everyone in the hand with a bet, the board dealt, on the viewer's turn with the bet slider, at a
Naiko table (destellos on every plate, the Carousel): the worst case a table draws.

- no two seats, the board and the action bar overlap (bounding boxes), every seat lies inside
  the viewport and the viewer's own seat is the lowest, centred;
- the act buttons lie inside the viewport with the page not scrolled, and each is the element
  at its own centre (nothing covers it);
- on a phone the page is not wider than the screen, the board's cards stay readable, the
  Carousel and the log are closed until their buttons open them (and the history as before),
  an open panel never covers the action bar, and it closes; on a desktop the side column shows
  the Carousel and the log as before, without those buttons.

The views come from a stand-in server (:class:`LayoutServer`): the same table every time, so a
box that moves is the layout's doing. :func:`test_screenshots_for_the_docs` writes
``docs/images/web-phone.png`` and ``web-desktop.png`` when ``NAIKO_DOC_SCREENSHOTS=1``.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, Shots

pytest.importorskip("websockets")

PLAYER = "alice"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
VIEWPORTS = {"phone": PHONE, "android": {"width": 360, "height": 800}, "desktop": DESKTOP}
"""390x844: an iPhone 12 to 15; 360x800: the commonest Android phone's screen."""
NAMES = ["alice", "bartholomew-the-great", "bot-1", "carol", "dmitri_vasilyevich", "erin",
         "bot-2", "frank.o'hara", "grace", "heinrich"]
BOARD = "AhKdTs7c2h"


def table_view(seats: int, viewer: int) -> dict[str, Any]:
    """Every seat taken and in the hand with a bet and 2 cards; the board dealt (the river);
    the viewer (seat *viewer*, alice) to act with a raise; a Naiko table (destellos, the
    Carousel)."""
    names = [n for n in NAMES if n != PLAYER]
    rows: list[dict[str, Any]] = []
    for index in range(seats):
        player = PLAYER if index == viewer else names[(index - viewer - 1) % len(names)]
        rows.append({
            "seat_index": index, "player_id": player, "stack": 12_345 + 1_111 * index,
            "is_bot": player.startswith("bot-"), "sitting_out": False, "owes_big": False,
            "owes_small": False, "entry": "wait", "in_hand": True, "folded": False,
            "all_in": False, "bet": 250 + 10 * index, "destellos": index % 4,
            "cards": "QsQc" if index == viewer else None, "card_count": 2})
    hand = {"number": 7, "button": (viewer + 1) % seats,
            "small_blind_seat": (viewer + 2) % seats, "big_blind_seat": (viewer + 3) % seats,
            "street": "river", "board": BOARD, "pot": 4_800, "bets_total": sum(
                r["bet"] for r in rows), "current_bet": 250 + 10 * (seats - 1), "actor": viewer,
            "complete": False, "awards": [], "actor_deadline_ms": 4102444800000,
            "powers": {"carousel": ["peek", "sleeve_swap", "short_anchor"], "used": {},
                       "round_activations": 1, "anchors": {}, "windows": [], "peek": None,
                       "can_shield": False}}
    return {
        "config": {"variant": "NAIKO", "seat_count": seats, "small_blind": 50,
                   "big_blind": 100, "ante": 0, "ante_mode": "none", "entry_rules": True,
                   "deal_absent": False, "shield_window_ms": 8000},
        "seat_index": viewer, "hand_count": 7, "seats": rows, "hand": hand,
        "prompt": {"seat_index": viewer, "actions": ["fold", "call", "raise_to", "all_in"],
                   "to_call": 90, "min_raise_to": 600, "max_raise_to": rows[viewer]["stack"],
                   "powers": ["peek", "sleeve_swap"], "anchor_targets": [], "anchored": False,
                   "deadline_ms": 4102444800000},
        "table_id": f"t{seats}", "disconnected": [],
        "settings": {"name": f"Layout {seats}-max", "min_buy_in": 2_000, "max_buy_in": 20_000,
                     "decision_ms": 20000, "kind": "cash", "host": "house", "bots": True,
                     "min_players": 2},
        "room": {"waitlist": [], "held_seats": 0, "paused": False, "closing": False,
                 "closed": False, "pending": {}}}


def viewer_for(seats: int) -> int:
    """Not seat 0: the drawing turns the table so the viewer sits at the bottom."""
    return {2: 1}.get(seats, 3)


def variant(table_id: str) -> dict[str, Any]:
    """Table ``tN`` is :func:`table_view` with N seats; ``tN-shield``: a Short Anchor aims at
    the viewer; ``tN-watch``: the viewer watches, every other seat free; ``tN-host``: a private
    table the viewer hosts (the host's bar under the action bar); ``tN-tournament``: a
    tournament's table (its bar above the felt); ``tN-showdown``: the hand over, every hand
    shown with what it made."""
    seats, *flags = table_id[1:].split("-")
    count = int(seats)
    viewer = viewer_for(count)
    view = table_view(count, viewer)
    view["table_id"] = table_id
    deadline = int(time.time() * 1000) + 15_000  # the clock's 15 s, a short text
    view["hand"]["actor_deadline_ms"] = view["prompt"]["deadline_ms"] = deadline
    if "shield" in flags:
        view["hand"]["powers"].update(can_shield=True, windows=[
            {"window_id": "w1", "target": viewer, "attacker": 0,
             "deadline_ms": deadline - 7_000}])
    if "watch" in flags:
        view["seats"][viewer].update(cards=None, player_id="ivan")
        view.update(seat_index=None, prompt=None)
        view["hand"]["actor"] = viewer
        for index in range(0, count, 2):
            view["seats"][index] = None
    if "host" in flags:
        view["settings"].update(kind="private", host=PLAYER)
        view["room"]["invite_code"] = "K7Q2MX"
    if "showdown" in flags:  # the hand is over: every hand shown with what it made
        view["prompt"] = None
        view["hand"].update(complete=True, actor=None, awards=[
            {"amount": 9_000, "eligible": list(range(count)), "winners": {str(viewer): 9_000},
             "showdown": True}])
        for index, seat in enumerate(view["seats"]):
            seat.update(cards=["QsQc", "9h9d", "JcTc", "8s8d", "5h4h", "AdKc", "3s3c", "7d6d",
                               "KhJh", "2c2d"][(index - viewer) % 10], bet=0)
    if "tournament" in flags:
        view["settings"]["kind"] = "tournament"
        view["tournament"] = {
            "tournament_id": "u1", "level": 3, "small_blind": 50, "big_blind": 100,
            "ante": 10, "ante_mode": "each", "level_ends_ms": deadline + 120_000,
            "next_level": {"small_blind": 75, "big_blind": 150, "ante": 15, "minutes": 5},
            "players_left": 14, "entrants": 18, "payouts": [900, 540, 360]}
    return view


class LayoutServer:
    """A stand-in WebSocket server: table ``tN`` is :func:`table_view` with N seats, sent as a
    snapshot with a few events' worth of log; a one-hand history."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._server: Any = None

    async def _handle(self, ws: Any) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            rid, action = frame["request_id"], frame["action"]
            if action == "snapshot":
                table_id = frame["table_id"]
                view = variant(table_id)
                await ws.send(json.dumps({"type": "snapshot", "request_id": rid,
                                          "table_id": view["table_id"], "version": 1,
                                          "view": view}))
                events: list[dict[str, Any]] = [
                    {"kind": "action", "seat_index": 0, "action": "check"}] * 30
                if view["hand"]["complete"]:
                    events.append({"kind": "showdown", "board": BOARD, "hands": [
                        {"seat_index": seat["seat_index"], "cards": seat["cards"],
                         "hand": "two pair, Aces and Queens"}
                        for seat in view["seats"] if seat]})
                await ws.send(json.dumps({"type": "update", "request_id": None,
                                          "table_id": view["table_id"], "version": 2,
                                          "events": events, "view": view}))
                continue
            reply: dict[str, Any] = {
                "list_tables": {"type": "tables", "tables": []},
                "list_tournaments": {"type": "tournaments", "tournaments": []},
                "get_account": {"type": "account", "balance": 10_000, "open_tables": 0,
                                "ratholes_today": 0, "day": "2026-12-01"},
                "hand_history": {"type": "hands", "next": None, "hands": [
                    {"table_id": "t9", "hand_number": n, "table_name": "Layout 9-max",
                     "net": (-1) ** n * 100 * n, "cancelled": None} for n in range(1, 7)]},
            }.get(action, {"type": "error", "code": "unknown_action", "message": action})
            await ws.send(json.dumps({**reply, "request_id": rid}))

    def __enter__(self) -> LayoutServer:
        from websockets.asyncio.server import serve

        async def start() -> None:
            self._server = await serve(self._handle, "127.0.0.1", 0)
            self.port = next(iter(self._server.sockets)).getsockname()[1]

        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(start(), self.loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            self._server.close()
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def web_url() -> Iterator[str]:
    """The client's files served by the local stack's web server, against the stand-in."""
    from naiko_local.web import WebServer

    with LayoutServer() as fake:
        web = WebServer("127.0.0.1", 0, ws_port=fake.port, mint=lambda p, ttl: "t").start()
        try:
            yield web.url
        finally:
            web.stop()


def open_table(open_page: Any, web_url: str, viewport: dict[str, int], seats: int,
               suffix: str = "") -> Any:
    page = open_page()
    page.set_viewport_size(viewport)
    page.goto(f"{web_url}?player={PLAYER}#table=t{seats}{suffix}")
    page.wait_for_selector(".actions [data-action=raise_to]")
    page.wait_for_function("document.querySelectorAll('ol.log li').length >= 30")
    page.evaluate("document.fonts.ready")
    return page


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] | None = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not drawn"
    return found


def apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
            or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def inside(a: dict[str, float], viewport: dict[str, int]) -> bool:
    return (a["x"] >= 0 and a["y"] >= 0 and a["x"] + a["width"] <= viewport["width"]
            and a["y"] + a["height"] <= viewport["height"])


def visible(page: Any, selector: str) -> bool:
    locator = page.locator(selector)
    return locator.count() > 0 and bool(locator.first.is_visible())


def assert_laid_out(page: Any, viewport: dict[str, int], seats: int) -> None:
    """The seats, the board and the action bar pairwise apart, each inside the viewport."""
    drawn = {f"seat {i}": box(page, f".seat[data-seat='{i}']") for i in range(seats)}
    drawn["board"] = box(page, ".board")
    drawn["action bar"] = box(page, ".controls")
    names = list(drawn)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert apart(drawn[first], drawn[second]), (first, drawn[first], second,
                                                        drawn[second])
    for name, found in drawn.items():
        assert inside(found, viewport), (name, found)


UNCOVERED = """(els) => els.filter((e) => {
  const r = e.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !(at === e || e.contains(at));
}).map((e) => e.textContent)"""


def assert_act_buttons_reachable(page: Any, viewport: dict[str, int], at_least: int = 8) -> None:
    """Every act button (Fold, Call, the raise and its presets, All-in) inside the viewport at
    scroll 0 and not covered by anything."""
    assert page.evaluate("window.scrollY") == 0
    buttons = page.locator(".actions button").all()
    assert len(buttons) >= at_least  # fold, call, min, ½ pot, pot, max, raise to, all-in
    for button in buttons:
        found = button.bounding_box()
        assert found is not None and inside(found, viewport), (button.inner_text(), found)
    covered = page.locator(".actions button").evaluate_all(UNCOVERED)
    assert not covered, f"covered act buttons: {covered}"


@pytest.mark.parametrize("seats", [2, 6, 9, 10])
@pytest.mark.parametrize("screen", ["phone", "android", "desktop"])
def test_seats_board_and_action_bar_do_not_overlap(open_page: Any, web_url: str, screen: str,
                                                   seats: int, shots: Shots) -> None:
    viewport = VIEWPORTS[screen]
    page = open_table(open_page, web_url, viewport, seats)
    shots(page, f"{screen}-{seats}")
    assert_laid_out(page, viewport, seats)
    me = box(page, ".seat.me")
    assert page.locator(".seat.me").get_attribute("data-seat") == str(viewer_for(seats))
    centre = me["x"] + me["width"] / 2
    assert abs(centre - viewport["width"] / 2) < viewport["width"] * 0.15, me
    assert all(me["y"] >= box(page, f".seat[data-seat='{i}']")["y"] for i in range(seats)), \
        "not the lowest"
    assert_act_buttons_reachable(page, viewport)
    if screen != "desktop":
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        for card in page.locator(".board .card").all():  # 36x50 at 390 px, 34x47 at 360
            found = card.bounding_box()
            assert found is not None and found["width"] >= 34 and found["height"] >= 47, found


@pytest.mark.parametrize("seats", [2, 9])
def test_on_a_phone_the_carousel_log_and_history_open_on_demand(
        open_page: Any, web_url: str, seats: int, shots: Shots) -> None:
    page = open_table(open_page, web_url, PHONE, seats)
    for selector in (".naiko-panel", ".log-panel", "#history"):
        assert not visible(page, selector), f"{selector} is open on a phone before it is asked"
    for panel, selector in (("carousel", ".naiko-panel"), ("log", ".log-panel")):
        page.locator(f"[data-panel-button={panel}]").click()
        assert visible(page, selector)
        opened = box(page, selector)
        assert inside(opened, PHONE), opened
        assert apart(opened, box(page, ".controls")), "the panel covers the action bar"
        assert_act_buttons_reachable(page, PHONE)
        if panel == "carousel":
            assert visible(page, ".naiko-panel [data-power=peek]:enabled")
        else:  # scrolled to the newest line
            assert page.locator(".log-panel ol.log li").last.evaluate(
                "(li) => { const r = li.getBoundingClientRect();"
                " const list = li.parentElement.getBoundingClientRect();"
                " return r.top >= list.top && r.bottom <= list.bottom + 1; }")
        shots(page, f"{panel}-open")
        page.locator(f"[data-panel-button={panel}]").click()  # the same button closes it
        assert not visible(page, selector)
    page.locator("[data-panel-button=log]").click()
    page.locator("[data-panel-button=carousel]").click()  # one panel at a time
    assert visible(page, ".naiko-panel") and not visible(page, ".log-panel")
    page.locator(".naiko-panel [data-action=close-panel]").click()
    assert not visible(page, ".naiko-panel")
    page.locator("#history-button").click()
    page.wait_for_selector("#history button[data-hand]")
    opened = box(page, "#history")
    assert inside(opened, PHONE) and apart(opened, box(page, ".controls")), opened
    assert_act_buttons_reachable(page, PHONE)
    shots(page, "history-open")
    page.locator("[data-action=close-history]").click()
    assert not visible(page, "#history")


def test_on_a_phone_a_shield_window_shows_with_the_carousel_closed(
        open_page: Any, web_url: str, shots: Shots) -> None:
    """A Short Anchor aimed at you gives 8 seconds (R6.5): no time to find a button. With the
    Carousel closed the Shield window shows by itself over the top of the felt, over neither
    your cards, the panel buttons nor the action bar, without the rest of the Carousel; opened,
    the Carousel holds it."""
    page = open_table(open_page, web_url, PHONE, 6, "-shield")
    window = page.locator(".shield-window")
    assert window.is_visible() and not visible(page, ".carousel")
    drawn = box(page, ".shield-window")
    assert inside(drawn, PHONE) and apart(drawn, box(page, ".controls")), drawn
    assert apart(drawn, box(page, ".seat.me")) and apart(drawn, box(page, ".panel-buttons"))
    assert page.locator(".shield-window button").evaluate_all(UNCOVERED) == []
    assert page.locator("[data-action=shield]").is_enabled()
    assert_act_buttons_reachable(page, PHONE)
    shots(page, "shield")
    page.locator("[data-panel-button=carousel]").click()
    assert visible(page, ".carousel") and window.is_visible()
    assert apart(box(page, ".naiko-panel"), box(page, ".controls"))


@pytest.mark.parametrize("flags", ["watch", "host", "tournament", "showdown"])
@pytest.mark.parametrize("screen", ["phone", "android", "desktop"])
def test_watching_hosting_and_a_tournament_table_keep_the_layout(
        open_page: Any, web_url: str, screen: str, flags: str, shots: Shots) -> None:
    """The other bars: watching (free seats with *Sit here*, the buy-in and *Sit down*), a
    private table's host bar (under the act buttons; on a phone a panel opened by its button),
    a tournament's bar above the felt; and a showdown (every hand face up, each with what it
    made under it, the winner's line in the centre)."""
    viewport = VIEWPORTS[screen]
    page = open_page()
    page.set_viewport_size(viewport)
    page.goto(f"{web_url}?player={PLAYER}#table=t9-{flags}")
    page.wait_for_selector({"watch": "[data-action=join]", "showdown": ".seat .made"}.get(
        flags, ".actions [data-action=raise_to]"))
    page.wait_for_selector(".tournament-bar" if flags == "tournament" else ".seat")
    shots(page, f"{screen}-{flags}")
    assert_laid_out(page, viewport, 9)
    if flags == "watch":
        assert page.locator(".seat.empty [data-action=sit-here]").count() == 5
        for selector in ("[data-action=join]", "[data-buy-in]",
                         ".seat.empty [data-action=sit-here]"):
            for element in page.locator(selector).all():
                found = element.bounding_box()
                assert found is not None and inside(found, viewport), (selector, found)
        assert page.locator("[data-action=join], [data-action=sit-here]").evaluate_all(
            UNCOVERED) == []
    elif flags == "showdown":
        assert page.locator(".seat .made").count() == 9 and page.locator(".award").count() == 1
    else:
        assert_act_buttons_reachable(page, viewport)
    if flags == "host" and screen == "desktop":
        assert inside(box(page, ".hostbar"), viewport)
    if flags == "host" and screen != "desktop":  # a panel: closed, opened by its button
        assert not visible(page, ".hostbar")
        page.locator("[data-panel-button=host]").click()
        opened = box(page, ".hostbar")
        assert inside(opened, viewport) and apart(opened, box(page, ".controls")), opened
        assert page.locator(".hostbar button").evaluate_all(UNCOVERED) == []
        assert_act_buttons_reachable(page, viewport)
        shots(page, "host-open")
        page.locator(".hostbar [data-action=close-panel]").click()
        assert not visible(page, ".hostbar")
    if flags == "tournament":
        assert apart(box(page, ".tournament-bar"), box(page, ".felt .seat[data-seat='7']"))
    if screen != "desktop":
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_on_a_desktop_the_side_column_shows_the_carousel_and_the_log(
        open_page: Any, web_url: str) -> None:
    page = open_table(open_page, web_url, DESKTOP, 6)
    assert visible(page, ".naiko-panel") and visible(page, ".log-panel")
    assert not visible(page, "[data-panel-button]")
    felt, side = box(page, ".felt-area"), box(page, ".side")
    assert side["x"] >= felt["x"] + felt["width"]  # a column beside the table, as before


def test_a_person_plays_a_full_9_max_table_on_a_phone(stack: Any, open_page: Any,
                                                      shots: Shots) -> None:
    """The real thing: a local stack, a 9-max table with 8 BOTs, the person sits down from the
    lobby on a 390x844 screen and plays three turns by tapping Check or Call; at each turn the
    layout holds and the buttons are in reach without scrolling."""
    from test_web_client import check_or_call, demo_table, seat_server_bots, sit_from_lobby

    table = demo_table(stack, "NLHE", 9, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 8, buy_in=200)
    page = open_page()
    page.set_viewport_size(PHONE)
    page.goto(f"{stack.web_url}?player={PLAYER}")
    page.wait_for_selector(f"[data-action=play][data-table={table.table_id}]")
    shots(page, "lobby")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    sit_from_lobby(page, stack, table.table_id)
    turns = 0
    deadline = time.monotonic() + 60
    while turns < 3:
        assert time.monotonic() < deadline, f"{turns} turns in 60 s"
        if not page.locator(".actions [data-action=fold]").count():
            time.sleep(0.1)
            continue
        assert page.locator(".seat").count() == 9
        try:
            assert_laid_out(page, PHONE, 9)
            assert_act_buttons_reachable(page, PHONE, at_least=3)
        except AssertionError:
            if page.locator(".actions [data-action=fold]").count():
                raise
            continue  # the turn ended under us (the clock, a re-draw): look again
        if turns == 0:
            shots(page, "my-turn")
        if check_or_call(page):
            turns += 1
            page.wait_for_timeout(300)


@pytest.mark.skipif(os.environ.get("NAIKO_DOC_SCREENSHOTS") != "1",
                    reason="writes docs/images/web-phone.png and web-desktop.png: "
                           "NAIKO_DOC_SCREENSHOTS=1")
def test_screenshots_for_the_docs(open_page: Any, web_url: str) -> None:
    images = ROOT / "docs" / "images"
    for screen, name in (("phone", "web-phone.png"), ("desktop", "web-desktop.png")):
        page = open_table(open_page, web_url, VIEWPORTS[screen], 9)
        page.screenshot(path=str(Path(images / name)))
