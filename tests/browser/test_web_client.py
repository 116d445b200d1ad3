"""The web client in a real browser (headless Chromium driven by Playwright) against a local
stack started in this process: a person joins the demo table from the lobby and plays a hand
to showdown with clicks only; uses a power and answers a Short Anchor with Seal Shield in Naiko
mode; registers for a Sit & Go; survives a dropped connection.

Secrecy (the page never holds another seat's hidden card) is checked on the DOM at every step
against the table's true state read from the store (:class:`Secrecy`), and on every frame the
page received.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from conftest import Shots, wait_until

pytest.importorskip("websockets")

from naiko.cards import format_card  # noqa: E402
from naiko.views import view_for  # noqa: E402
from naiko_local.stack import (  # noqa: E402
    BotClient,
    BotRunner,
    LocalStack,
    my_turn,
    open_demo_table,
    open_demo_tournaments,
    seat_server_bots,
    window_aimed_at_me,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

PLAYER = "alice"


# -- secrecy ---------------------------------------------------------------------------------

DOM_CARDS = """els => els.map(e => {
  const seat = e.closest('.seat');
  return [e.dataset.card, e.dataset.hand || '', e.dataset.table || '',
          seat ? seat.dataset.seat : ''];
})"""


class Secrecy:
    """Checks the page against the table's true state (the store's sealed record, read
    in-process): every face-up card the DOM holds for the hand being played is never a hole card
    of another seat that was not shown at showdown, and a seat's face-up cards are the viewer's
    own or a shown hand's. Every frame the page received is checked too (:meth:`frames_ok`)."""

    def __init__(self, stack: LocalStack, table_id: str, player_id: str = PLAYER):
        self.stack = stack
        self.table_id = table_id
        self.player_id = player_id
        self.verified = 0
        """Face-up cards checked against a hand's true state."""
        self.frames: list[str] = []

    def listen(self, page: Any) -> None:
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: Any) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode())

    def check(self, page: Any) -> None:
        cards = page.eval_on_selector_all("[data-card]", DOM_CARDS)
        hand = self.stack.service.deps.tables.load(self.table_id).state.hand  # after the DOM
        if hand is None:
            return
        mine = (hand.player_ids.index(self.player_id)
                if self.player_id in hand.player_ids else None)
        hidden = {format_card(c) for s, hole in enumerate(hand.hole)
                  if s != mine and hand.dealt[s] and not hand.shown[s] for c in hole}
        for card, hand_number, table, seat in cards:
            if card == "back" or hand_number != str(hand.number) or table not in ("",
                                                                                  self.table_id):
                continue
            assert card not in hidden, f"the page shows {card}, a hidden card of another seat"
            if seat and int(seat) != mine:
                assert hand.shown[int(seat)], f"seat {seat}'s {card} is face up, never shown"
            self.verified += 1

    def frames_ok(self) -> int:
        """No view received shows another seat's cards before the hand is over (showdown), and
        every private event is addressed to the viewer's own seat. Returns the views read."""
        views = 0
        for raw in self.frames:
            message = json.loads(raw)
            if message.get("type") == "hand":  # get_hand: what the reader was shown
                record = message["hand"]
                for event in record.get("events") or []:
                    assert event.get("private_to", record["seat_index"]) == record["seat_index"]
                continue
            view = message.get("view")
            if not isinstance(view, dict):
                continue
            views += 1
            me = view.get("seat_index")
            hand = view.get("hand") or {}
            for index, seat in enumerate(view.get("seats") or []):
                if seat and seat.get("cards") and index != me:
                    assert hand.get("complete"), f"seat {index}'s cards in a running hand"
            for event in message.get("events") or []:
                if "private_to" in event:
                    assert event["private_to"] == me, f"another seat's private event {event}"
        return views


def outside_the_page_loop(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Run *function* on another thread: Playwright's sync API keeps an event loop running on
    this one, and the stack's helpers run their own (``asyncio.run``)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args, **kwargs).result()


def demo_table(stack: LocalStack, variant: str, seats: int, blinds: tuple[int, int], *,
               bots: bool, time_bank: bool = False) -> Any:
    """A public table as the run command opens it (a 20 s clock), BOT seats allowed or not,
    with the room's time bank (R8.7) or not."""
    return outside_the_page_loop(open_demo_table, stack, variant=variant, seats=seats,
                                 small_blind=blinds[0], big_blind=blinds[1],
                                 decision_seconds=20, bots=bots, time_bank=time_bank)


# -- clicking --------------------------------------------------------------------------------

def click_if_visible(page: Any, selector: str) -> bool:
    """Click the first element matching *selector* if the page shows one (the table is re-drawn
    on every update, so an element may go between the look and the click)."""
    locator = page.locator(selector)
    if locator.count() == 0:
        return False
    try:
        locator.first.click(timeout=1_000)
    except Exception:  # re-drawn under us: the loop looks again
        return False
    return True


def check_or_call(page: Any) -> bool:
    return click_if_visible(page, "[data-action=check]:enabled, [data-action=call]:enabled")


def sit_from_lobby(page: Any, stack: LocalStack, table_id: str) -> None:
    page.goto(f"{stack.web_url}?player={PLAYER}")
    page.locator(f"[data-action=play][data-table={table_id}]").click()
    page.wait_for_selector(".seat.me")


def acted_after_return(page: Any) -> bool:
    """The log shows an action of the person after "You are back" (the reconnection)."""
    lines = page.locator("ol.log li").all_inner_texts()
    back = [i for i, line in enumerate(lines) if line == "You are back"]
    return bool(back) and any(line.startswith(f"You {verb}") for line in lines[back[-1] + 1:]
                              for verb in ("check", "call", "fold"))


# -- the tests -------------------------------------------------------------------------------

def test_a_person_joins_from_the_lobby_and_plays_to_showdown(stack: LocalStack, open_page: Any,
                                                             shots: Shots) -> None:
    table = demo_table(stack, "NLHE", 6, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)  # the person's seat deals hand 1
    page = open_page()
    secrecy = Secrecy(stack, table.table_id)
    secrecy.listen(page)
    page.goto(f"{stack.web_url}?player={PLAYER}")
    page.wait_for_selector(f"[data-action=play][data-table={table.table_id}]")
    assert page.locator("#conn").inner_text() == "online"
    shots(page, "lobby")
    page.locator(f"[data-action=play][data-table={table.table_id}]").click()
    page.wait_for_selector(".seat.me")
    assert page.locator(".seat .bot").count() == 2  # BOT labels
    turn_shot = False
    deadline = time.monotonic() + 45
    while True:
        secrecy.check(page)
        if page.locator(".award").count() and \
                page.locator(".seat:not(.me) .seat-cards .card.face").count():
            break  # a showdown: another seat's hand is shown and the pot awarded
        if not turn_shot and page.locator("[data-raise-slider]").count():
            shots(page, "my-turn")
            turn_shot = True
        check_or_call(page)
        assert time.monotonic() < deadline, "no showdown within 45 s"
        time.sleep(0.1)
    secrecy.check(page)
    shots(page, "showdown")
    # the hand history has it, as the person saw it
    page.locator("[data-action=history]").click()
    page.locator("#history button[data-hand]").first.click()
    page.wait_for_selector("#history [data-history-hand] .card.face")
    secrecy.check(page)
    shots(page, "history")
    assert secrecy.verified > 10 and secrecy.frames_ok() > 5


def test_the_raise_slider_is_bounded_by_the_prompt(stack: LocalStack, open_page: Any) -> None:
    """The slider's bounds are the prompt's min and max raise-to, and a raise sent from it
    is what the server applies."""
    table = demo_table(stack, "NLHE", 3, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)
    page = open_page()
    sit_from_lobby(page, stack, table.table_id)
    slider = page.locator("[data-raise-slider]")

    def raise_offered() -> bool:
        if slider.count():
            return True
        check_or_call(page)  # not yet: play on
        return False

    wait_until(raise_offered, timeout=30, what="a prompt with a raise")
    state = stack.service.deps.tables.load(table.table_id).state
    assert state.seats[state.hand.actor].player_id == PLAYER
    prompt = view_for(state, state.hand.actor)["prompt"]  # the server's own prompt
    assert int(slider.get_attribute("min")) == prompt["min_raise_to"]
    assert int(slider.get_attribute("max")) == prompt["max_raise_to"]
    page.locator("[data-preset=Min]").click()
    assert page.locator("[data-raise-number]").input_value() == str(prompt["min_raise_to"])
    page.locator("[data-preset=Max]").click()
    assert page.locator("[data-raise-number]").input_value() == str(prompt["max_raise_to"])
    page.locator("[data-raise-number]").fill(str(prompt["max_raise_to"] + 50))  # out of bounds
    page.locator("[data-raise-number]").dispatch_event("change")
    assert page.locator("[data-raise-number]").input_value() == str(prompt["max_raise_to"])
    page.locator("[data-action=raise_to], [data-action=bet]").first.click()
    page.wait_for_selector(f"ol.log li:has-text('You raise to {prompt['max_raise_to']}'), "
                           f"ol.log li:has-text('You bet {prompt['max_raise_to']}')")


def test_r8_7_r8_8_time_bank_button_and_pre_action_boxes(stack: LocalStack, open_page: Any,
                                                         shots: Shots) -> None:
    """R8.7: every seat shows its bank; on the person's turn "Use time bank" starts theirs (the
    server's record says it runs, the seat shows it running). R8.8: off turn, the pre-action
    boxes are offered; ticking "Call any" queues it on the server, where only the person has
    it, and it is played when the turn comes (or is still queued)."""
    table = demo_table(stack, "NLHE", 3, (1, 2), bots=True, time_bank=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)
    page = open_page()
    sit_from_lobby(page, stack, table.table_id)
    assert page.locator(".seat .time-bank").count() == 3  # every seat's bank, shown to all

    def load() -> Any:
        return stack.service.deps.tables.load(table.table_id)

    def my_turn_offers_the_bank() -> bool:
        return page.locator("[data-action=use_time_bank]").count() > 0

    wait_until(my_turn_offers_the_bank, timeout=60, what="the person's turn with a bank")
    page.locator("[data-action=use_time_bank]").click()
    page.wait_for_selector(".seat.me .time-bank.running")
    assert PLAYER in load().bank_since
    shots(page, "time-bank")
    check_or_call(page)

    clicked_at: list[int] = []

    def queued_or_played() -> bool:
        """Tick "Call any" whenever the boxes show (BOTs act fast: a box may go before the
        click); done when the server has it queued, or it was played (the log says so)."""
        if load().pre_actions.get(PLAYER, {}).get("kind") == "call_any":
            return True
        said = page.locator("ol.log li").all_inner_texts()
        if clicked_at and any(line.startswith(("You call", "You check"))
                              for line in said[clicked_at[0]:]):
            return True
        if page.locator("[data-pre-action=call_any]").count():
            if not clicked_at:
                clicked_at.append(len(said))
            click_if_visible(page, "[data-pre-action=call_any]")
        else:
            check_or_call(page)  # the person's turn: play on
        return False

    wait_until(queued_or_played, timeout=30, what="a pre-action queued or played")
    assert set(load().pre_actions) <= {PLAYER}  # nobody else's


def test_a_public_new_table_offers_no_bots_box_and_asks_for_none(
        stack: LocalStack, open_page: Any) -> None:
    """Issue 28 item 5: BOTs come from a host's bar, so only a private table offers the box; a
    public table (for people, no host) is created with ``bots: false``."""
    from naiko_service import bootstrap

    page = open_page()
    page.goto(f"{stack.web_url}?player=pub")
    page.wait_for_selector("[data-balance]")
    assert page.locator("[data-table-bots]").is_visible()
    page.locator("[data-table-private]").uncheck()
    assert not page.locator("[data-table-bots]").is_visible()
    page.locator("[data-table-name]").fill("Open game")
    page.locator("[data-action=create_table]").click()
    page.wait_for_selector(".table-name:has-text('Open game')")
    table_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('table')")
    record = bootstrap.get_service().deps.tables.load(table_id)
    assert not record.settings.private and record.settings.bots is False


def test_a_private_table_hosted_from_the_page_and_opened_by_invite_code(
        stack: LocalStack, open_page: Any, shots: Shots) -> None:
    """alice opens a private table from the lobby's form, makes an invite code, seats a BOT and
    sits down (two players start a private table here); bob brings the code to his lobby and
    watches the hand, seeing no hole card."""
    host = open_page()
    host.goto(f"{stack.web_url}?player={PLAYER}")
    host.wait_for_selector("[data-balance]")
    host.locator("[data-table-name]").fill("Friday game")
    host.locator("[data-action=create_table]").click()
    host.wait_for_selector(".table-name:has-text('Friday game')")
    assert "private" in host.locator(".table-header").inner_text()
    host.locator("[data-action=create_invite_code]").click()
    code = host.locator(".invite").inner_text().split()[-1]
    host.locator("[data-action=host_add_bot]").click()
    host.wait_for_selector(".seat .bot")
    host.locator("[data-action=join]").click()
    host.wait_for_selector(".seat.me .card.face")
    table_id = host.evaluate("new URLSearchParams(location.hash.slice(1)).get('table')")
    Secrecy(stack, table_id).check(host)
    shots(host, "host")

    guest = open_page()
    guest.goto(f"{stack.web_url}?player=bob")
    guest.locator("[data-invite-code]").fill(code.lower())
    guest.wait_for_selector("[data-balance]")  # the lobby re-drawn once loaded keeps the code
    guest.locator("[data-action=find]").click()
    guest.wait_for_selector(".table-name:has-text('Friday game')")
    guest.wait_for_selector(".seat .card.back")
    watcher = Secrecy(stack, table_id, "bob")
    watcher.check(guest)
    assert guest.locator("[data-action=join]").count() == 1  # the code lets him sit down too
    assert guest.locator("[data-action=host_add_bot]").count() == 0  # not his table


class ScriptedPlayer(BotClient):
    """A WebSocket player that checks or calls; with *anchor*, it aims a Short Anchor at that
    player whenever the Carousel also holds Seal Shield and the target could answer it."""

    def __init__(self, *args: Any, anchor: str | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.anchor = anchor
        self.anchored_hands: set[int] = set()

    async def _act_later(self, version: int) -> None:
        await asyncio.sleep(self.rng.uniform(*self.think))
        view = self.view
        if self.version != version or view is None:
            return
        if window_aimed_at_me(view):
            await self.send({"action": "pass_window", "table_id": self.table_id})
            return
        if not my_turn(view):
            return
        prompt, hand = view["prompt"], view["hand"]
        powers = hand.get("powers") or {}
        target = next((s["seat_index"] for s in view["seats"]
                       if s and s["player_id"] == self.anchor), None)
        if (target is not None and hand["number"] not in self.anchored_hands
                and "short_anchor" in prompt["powers"] and target in prompt["anchor_targets"]
                and "seal_shield" in powers.get("carousel", [])
                and "seal_shield" not in powers.get("used", {}).get(str(target), [])
                and view["seats"][target]["destellos"] >= 1):
            self.anchored_hands.add(hand["number"])
            await self.send({"action": "use_power", "table_id": self.table_id,
                             "power": "short_anchor", "target_seat": target})
            return  # a power does not end the turn: the next view prompts again
        move = "check" if "check" in prompt["actions"] else "call"
        await self.send({"action": "act", "table_id": self.table_id, "move": move})


def test_naiko_a_power_and_a_shield_from_the_page(stack: LocalStack, open_page: Any,
                                                  shots: Shots) -> None:
    table = demo_table(stack, "NAIKO", 4, (5, 10), bots=False)
    runner = BotRunner()
    try:
        for name, anchor in (("vic", PLAYER), ("carl", None)):
            runner.add(ScriptedPlayer(stack.url, stack.token(name), name, table.table_id,
                                      buy_in=1000, think=(0.05, 0.15), anchor=anchor))
        page = open_page()
        secrecy = Secrecy(stack, table.table_id)
        secrecy.listen(page)
        sit_from_lobby(page, stack, table.table_id)
        powered = shielded = False
        deadline = time.monotonic() + 60
        while not (powered and shielded):
            secrecy.check(page)
            shield = page.locator("[data-action=shield]:enabled")
            if not shielded and shield.count():
                assert page.locator(".shield-window svg[data-deadline]").count() == 1
                shots(page, "shield-window")
                if click_if_visible(page, "[data-action=shield]:enabled"):
                    page.wait_for_selector("ol.log li:has-text('You shield:')")
                    shielded = True
                continue
            if not powered and click_if_visible(page, "[data-power=peek]:enabled"):
                page.wait_for_selector(".peek .card.face")
                page.wait_for_selector("ol.log li:has-text('You use Peek')")
                secrecy.check(page)
                shots(page, "peek")
                powered = True
                continue
            check_or_call(page)
            assert time.monotonic() < deadline, (
                f"within 60 s: power {powered}, shield {shielded}")
            time.sleep(0.1)
        assert "You use Seal Shield" in page.locator("ol.log").inner_text().splitlines()
        assert secrecy.verified > 5 and secrecy.frames_ok() > 5
    finally:
        runner.stop()


def test_registers_for_a_sit_and_go_and_plays_its_table(stack: LocalStack, open_page: Any,
                                                         shots: Shots) -> None:
    outside_the_page_loop(open_demo_tournaments, stack, PLAYER, scheduled_in_s=3600)
    page = open_page()
    page.goto(f"{stack.web_url}?player={PLAYER}")
    card = page.locator("article[data-tournament=demo-sng]")
    card.locator("[data-action=register]").click()
    card.locator("[data-registered]").wait_for()
    assert page.locator("[data-balance]").get_attribute("data-balance") == "9900"
    assert page.locator("[data-tournament=demo-mtt][data-kind=scheduled]").count() == 1
    page.locator("article[data-tournament=demo-mtt] summary").click()  # the published terms
    assert "Late registration" in page.locator("article[data-tournament=demo-mtt]").inner_text()
    # R9.9: the split by field size, and the prizes of the field that starts it (2 x 100).
    split = page.locator("article[data-tournament=demo-mtt] [data-payout-table]").inner_text()
    assert "2–5" in split and "6–8" in split and "65 / 35" in split and "50 / 30 / 20" in split
    assert "Prizes (2 players)" in page.locator("article[data-tournament=demo-mtt]").inner_text()
    shots(page, "registered")
    card.locator("[data-action=add_bots]").click()  # the creator fills it: it starts
    page.wait_for_selector(".tournament-bar")
    bar = page.locator(".tournament-bar").inner_text()
    assert "Level 1" in bar and "Prizes" in bar and "Players 6/6" in bar
    table_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('table')")
    secrecy = Secrecy(stack, table_id)
    page.wait_for_selector(".seat.me .card.face", timeout=15_000)  # the first hand, 5 s later
    secrecy.check(page)
    assert page.locator(".seat .bot").count() == 5
    shots(page, "tournament-table")
    assert secrecy.verified >= 2
    # Issue 26 item 4: back in the lobby, the running Sit & Go shows its live standings.
    page.goto(f"{stack.web_url}?player={PLAYER}")
    standing = page.locator("article[data-tournament=demo-sng] [data-standings]")
    standing.wait_for(state="attached")
    standing.locator("summary").click()
    text = standing.inner_text()
    assert "Players left" in text and "Average stack" in text and "Next level" in text
    assert standing.locator("[data-standings-rows] tbody tr").count() == 6  # everyone, once


def test_survives_a_dropped_connection(stack: LocalStack, open_page: Any, shots: Shots) -> None:
    table = demo_table(stack, "NLHE", 6, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)
    page = open_page()
    secrecy = Secrecy(stack, table.table_id)
    secrecy.listen(page)
    sit_from_lobby(page, stack, table.table_id)
    page.wait_for_selector(".seat.me .card.face")
    before = page.locator(".seat.me .card.face").evaluate_all("els => els.map(e => e.dataset.card)")
    hand = page.locator(".board").get_attribute("data-hand")
    gateway = stack.gateway
    connections = [gateway.connection(cid) for cid in gateway.connection_ids()]
    mine = [c for c in connections if c and c.authorizer.get("principalId") == PLAYER]
    assert len(mine) == 1
    websocket = mine[0].websocket
    gateway._loop.call_soon_threadsafe(websocket.transport.abort)  # the network drops
    page.wait_for_function("Number(document.body.dataset.drops || 0) >= 1")
    page.wait_for_function("document.body.dataset.conn === 'online'")
    page.wait_for_selector("ol.log li:text-is('You are back')")
    shots(page, "reconnected")
    if page.locator(".board").get_attribute("data-hand") == hand:  # the same hand goes on
        after = page.locator(".seat.me .card.face").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        assert after == before
    deadline = time.monotonic() + 30
    while not acted_after_return(page):  # play goes on from the page
        secrecy.check(page)
        check_or_call(page)
        if time.monotonic() > deadline:
            shots(page, "stuck")
            raise AssertionError("no action of the page's after the reconnection")
        time.sleep(0.1)
    assert secrecy.frames_ok() > 3


# -- protocol additions ----------------------------------------------------------------------

class AdditionsServer:
    """A stand-in WebSocket server that speaks the protocol with additions landing in parallel:
    the ``ack`` folded into the requester's ``update`` (the update carries the ``request_id``),
    a deck ``commitment`` and per-card ``proofs`` in the hand, fields and an event kind and a
    message type the client does not know."""

    COMMITMENT = "c0ffee" + "ab" * 29

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self.received: list[dict[str, Any]] = []
        self._server: Any = None

    def view(self, seated: bool) -> dict[str, Any]:
        bot = {"seat_index": 1, "player_id": "bot-1", "stack": 200, "is_bot": True,
               "sitting_out": False, "owes_big": False, "owes_small": False, "entry": "wait",
               "in_hand": seated, "folded": False, "all_in": False, "bet": 2 if seated else 0,
               "cards": None, "card_count": 2 if seated else 0, "shiny_new_field": 1}
        me = {"seat_index": 0, "player_id": PLAYER, "stack": 199, "is_bot": False,
              "sitting_out": False, "owes_big": False, "owes_small": False, "entry": "wait",
              "in_hand": True, "folded": False, "all_in": False, "bet": 1, "cards": "AhKd"}
        hand = {"number": 1, "button": 0, "small_blind_seat": 0, "big_blind_seat": 1,
                "street": "preflop", "board": "", "pot": 0, "bets_total": 3, "current_bet": 2,
                "actor": 0, "complete": False, "awards": [], "actor_deadline_ms": 4102444800000,
                "commitment": self.COMMITMENT,
                "proofs": [{"card": "Ah", "position": 3, "path": ["00"]}]}
        return {
            "config": {"variant": "NLHE", "seat_count": 3, "small_blind": 1, "big_blind": 2,
                       "ante": 0, "ante_mode": "none", "entry_rules": True,
                       "deal_absent": False},
            "seat_index": 0 if seated else None, "hand_count": 1 if seated else 0,
            "seats": [me if seated else None, bot, None], "hand": hand if seated else None,
            "prompt": {"seat_index": 0, "actions": ["fold", "call", "raise_to", "all_in"],
                       "to_call": 1, "min_raise_to": 4, "max_raise_to": 200, "powers": [],
                       "anchor_targets": [], "anchored": False,
                       "deadline_ms": 4102444800000} if seated else None,
            "table_id": "tfake", "disconnected": [], "future_block": {"any": "thing"},
            "settings": {"name": "Additions", "min_buy_in": 40, "max_buy_in": 200,
                         "decision_ms": 20000, "kind": "cash", "host": "h", "bots": True,
                         "min_players": 2},
            "room": {"waitlist": [], "held_seats": 0, "paused": False, "closing": False,
                     "closed": False, "pending": {}}}

    async def _handle(self, ws: Any) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            self.received.append(frame)
            rid, action = frame["request_id"], frame["action"]
            table = {"table_id": "tfake", "name": "Additions", "variant": "NLHE",
                     "small_blind": 1, "big_blind": 2, "seat_count": 3, "seated": 1,
                     "min_buy_in": 40, "max_buy_in": 200, "created_ms": 0}
            replies: list[dict[str, Any]] = {
                "list_tables": [{"type": "tables", "request_id": rid, "tables": [table]}],
                "list_tournaments": [{"type": "tournaments", "request_id": rid,
                                      "tournaments": []}],
                "get_account": [{"type": "account", "request_id": rid, "balance": 10000,
                                 "open_tables": 0, "ratholes_today": 0, "day": "2026-12-01"}],
                "snapshot": [{"type": "snapshot", "request_id": rid, "table_id": "tfake",
                              "version": 1, "view": self.view(False)}],
                "join_table": [  # no ack: the update carries the request's id
                    {"type": "something_new", "request_id": None, "hello": 1},
                    {"type": "update", "request_id": rid, "table_id": "tfake", "version": 2,
                     "events": [{"kind": "seated", "seat_index": 0, "player_id": PLAYER,
                                 "stack": 200, "is_bot": False},
                                {"kind": "brand_new_kind", "seat_index": 0},
                                {"kind": "hole_cards", "seat_index": 0, "cards": "AhKd",
                                 "private_to": 0, "proof": {"path": []}}],
                     "view": self.view(True)}],
            }.get(action, [{"type": "error", "request_id": rid, "code": "unknown_action",
                            "message": action}])
            for reply in replies:
                await ws.send(json.dumps(reply))

    def __enter__(self) -> AdditionsServer:
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


def test_tolerates_protocol_additions(open_page: Any) -> None:
    """An ack folded into the update, a deck commitment with proofs, unknown fields, event
    kinds and message types: the page sits down, shows the cards and the commitment, and counts
    the update as the join's reply (no "no answer" notice). Its cards come without proofs in
    the update: the page marks them unproved (R10.2)."""
    from naiko_local.web import WebServer

    with AdditionsServer() as fake:
        web = WebServer("127.0.0.1", 0, ws_port=fake.port, mint=lambda p, ttl: "t").start()
        try:
            page = open_page()
            page.goto(f"{web.url}?player={PLAYER}")
            page.locator("[data-action=play][data-table=tfake]").click()
            page.wait_for_selector(".seat.me .card.face")
            cards = page.locator(".seat.me .card.face").evaluate_all(
                "els => els.map(e => e.dataset.card)")
            assert cards == ["Ah", "Kd"]
            assert page.locator("[data-commitment]").get_attribute(
                "data-commitment") == AdditionsServer.COMMITMENT
            # R10.2: the update carries no `proofs` (an update's view.hand.proofs is not where
            # they travel): the cards are marked unproved, not proved, and nothing failed
            marks = page.locator(".seat.me .card.face").evaluate_all(
                "els => els.map(e => e.dataset.proof)")
            assert marks == ["unproved", "unproved"]
            assert page.locator(".proof-alert").count() == 0
            page.wait_for_selector("#toast:has-text('You sit down.')")
            assert page.locator("[data-raise-slider]").get_attribute("max") == "200"
            assert [f["action"] for f in fake.received].count("join_table") == 1
        finally:
            web.stop()


def test_the_history_panel_shows_signed_nets_and_never_covers_the_action_bar(
        stack: LocalStack, open_page: Any, shots: Shots) -> None:
    """Issue 28 item 9: at 1280x800 the open history panel and the action bar (Raise
    included) do not overlap, and each hand reads `name #N · ±0` (a net of 0 no longer runs
    into the hand number: `#140` for hand #14)."""
    table = demo_table(stack, "NLHE", 3, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)
    page = open_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    sit_from_lobby(page, stack, table.table_id)

    def hands_played() -> bool:
        click_if_visible(page, "[data-action=fold]:enabled")  # folding: nets of 0 or less
        return stack.service.deps.tables.load(table.table_id).state.hand_count >= 3

    wait_until(hands_played, timeout=60, what="two finished hands")
    page.locator("[data-action=history]").click()
    page.wait_for_selector("#history button[data-hand]")
    entries = page.locator("#history ul.hands li").all_inner_texts()
    assert entries and all(re.search(r"#\d+ · (\+[\d,]+|−[\d,]+|±0)\b", e) for e in entries), \
        entries
    for item in page.locator("#history ul.hands li").all():
        net = int(item.locator(".net").get_attribute("data-net"))
        number = item.locator("button[data-hand]").get_attribute("data-hand")
        sign = f"+{net}" if net > 0 else f"−{-net}" if net < 0 else "±0"
        assert item.inner_text().endswith(f"#{number} · {sign}"), item.inner_text()
    wait_until(lambda: page.locator(".actions [data-action]").count() > 0, timeout=60,
               what="the person's turn with the panel open")
    panel = page.locator("#history").bounding_box()
    shots(page, "history-beside-actions")
    for box in [page.locator(".actions").bounding_box()] + [
            b.bounding_box() for b in page.locator(".actions button").all()]:
        if box is None:
            continue
        apart = (box["x"] + box["width"] <= panel["x"] or panel["x"] + panel["width"] <= box["x"]
                 or box["y"] + box["height"] <= panel["y"]
                 or panel["y"] + panel["height"] <= box["y"])
        assert apart, (box, panel)


# -- table chat (R8.9) -----------------------------------------------------------------------

def test_r8_9_two_people_chat_emote_and_mute_from_a_seats_menu(
        stack: LocalStack, open_page: Any, shots: Shots) -> None:
    """alice sits at a table, bob watches it on a phone: alice types a line and sends an emote,
    bob reads both in his Chat panel (opened by its button, with the count of new lines); bob
    answers, alice reads it; alice mutes bob from his line's button, bob's next line never
    reaches her page, and the mute is listed (and undone) in her panel."""
    table = demo_table(stack, "NLHE", 6, (1, 2), bots=False)
    alice = open_page()
    sit_from_lobby(alice, stack, table.table_id)
    bob = open_page()
    bob.set_viewport_size({"width": 390, "height": 844})
    bob.goto(f"{stack.web_url}?player=bob#table={table.table_id}")
    bob.wait_for_selector(".seat")
    assert not bob.locator(".chat-panel").is_visible()  # a phone: closed until its button
    alice.locator("[data-chat-input]").fill("  good luck\u202e all  ")
    alice.locator("[data-chat-form] button[type=submit]").click()
    alice.locator(".chat-panel [data-emote=clap]").click()
    wait_until(lambda: bob.locator("[data-panel-button=chat] .badge").count()
               and bob.locator("[data-panel-button=chat] .badge").inner_text() == "2")
    bob.locator("[data-panel-button=chat]").click()
    assert bob.locator(".chat-panel").is_visible()
    lines = bob.locator(".chat-panel ol.chat-lines li").all_text_contents()
    assert lines[0] == "alice: good luck all" and lines[1].startswith("alice: 👏"), lines
    assert bob.locator("[data-panel-button=chat] .badge").count() == 0
    bob.locator("[data-chat-input]").fill("thanks!")
    bob.locator("[data-chat-input]").press("Enter")
    wait_until(lambda: "bob (watching): thanks!" in alice.locator(
        ".chat-panel ol.chat-lines li").all_text_contents()[-1])
    shots(bob, "phone-chat")
    alice.locator(".chat-panel [data-action=chat-mute][data-player=bob]").click()
    wait_until(lambda: alice.locator(".chat-muted [data-player=bob]").count())
    bob.locator("[data-chat-input]").fill("can you hear me?")
    bob.locator("[data-chat-input]").press("Enter")
    wait_until(lambda: bob.locator(".chat-panel ol.chat-lines li").count() == 4)
    time.sleep(0.5)
    assert not any("can you hear me" in line for line in alice.locator(
        ".chat-panel ol.chat-lines li").all_text_contents())
    shots(alice, "chat-muted")
    alice.locator(".chat-muted [data-action=chat-unmute][data-player=bob]").click()
    wait_until(lambda: alice.locator(".chat-muted").count() == 0)
    # a seated player's plate opens their seat's menu: bob (watching) mutes alice there
    bob.locator("[data-panel-button=chat]").click()  # closes the panel: the felt is free
    bob.locator(".seat[data-player=alice] .plate").click()
    bob.locator(".seat-menu [data-action=chat-mute]").click()
    wait_until(lambda: bob.locator(".seat[data-player=alice] .muted-mark").count())
    alice.locator("[data-chat-input]").fill("muted now")
    alice.locator("[data-chat-input]").press("Enter")
    time.sleep(0.5)
    assert not any("muted now" in line for line in bob.locator(
        ".chat-panel ol.chat-lines li").all_text_contents())
