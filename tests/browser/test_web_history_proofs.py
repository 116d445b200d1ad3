"""R10.1/R10.2 in the web client's hand-history panel: a stored hand read with ``get_hand`` is
checked in the page as ``naiko-verify`` checks it (``proofs.js`` ``verifyStoredHand``, the
panel in ``history.js``):

- end to end against the local stack: a hand played from the page, opened in the panel, says
  ✓ with as many cards as its reader was shown, each card marked ✓;
- a doctored ``get_hand`` reply from a stand-in server (a flipped bit in one proof; two flop
  cards swapped in the log, so that each real proof is at a position the dealing order does
  not give it) says ✗ with the problem and marks the cards ✗; a hand dealt before R10.2 says
  "not committed";
- parity: on stored hands built by the engine (NLHE, PLO, NAIKO with a Peek and a Sleeve Swap,
  each reader) and doctored copies of them, the page's verdict (ok, cards proved, every
  problem's sentence) is :func:`naiko.verify.check_hand`'s.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Shots, wait_until

pytest.importorskip("websockets")

from naiko.commands import StartHand  # noqa: E402
from naiko.engine import apply  # noqa: E402
from naiko.state import TableState, Variant  # noqa: E402
from naiko.verify import check_hand  # noqa: E402
from naiko_local.stack import LocalStack, seat_server_bots  # noqa: E402
from naiko_testing import fixed_deck, play, prompt, table  # noqa: E402
from test_web_client import (  # noqa: E402
    PLAYER,
    AdditionsServer,
    check_or_call,
    demo_table,
    sit_from_lobby,
)
from test_web_proofs import flip  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

SEED = "ab" * 32

VERIFY = """async (hands) => { const m = await import('/js/proofs.js');
  const out = [];
  for (const hand of hands) {
    const v = await m.verifyStoredHand(hand);
    out.push({ ok: v.ok, proved: v.proved, problems: v.problems,
               cards: Object.fromEntries([...v.cards].map(([c, s]) => [c, s.state])) });
  }
  return out;
}"""

MARKS = """els => els.map(e => [e.dataset.card, e.dataset.proof || '',
                            (e.querySelector('.proof-mark') || {}).textContent || ''])"""


# -- stored hands, built by the engine -------------------------------------------------------

def _finish(state: TableState) -> TableState:
    """Check or call until the hand ends."""
    for _ in range(60):
        assert state.hand is not None
        if state.hand.complete:
            return state
        p = prompt(state)
        state, _ = play(state, f"{p.seat_index} {'x' if 'check' in p.actions else 'c'}")
    raise AssertionError("the hand did not end")


def _read(state: TableState, reader: str) -> dict[str, Any]:
    from naiko_service import hand_records

    record = hand_records.build(state, table_id="t1", table_name="Aludra", kind="cash",
                                started_ms=1, ended_ms=2)
    hand: dict[str, Any] = json.loads(json.dumps(hand_records.for_reader(record, reader)))
    return hand


def stored_hands() -> list[dict[str, Any]]:
    """Each reader's copy of three hands: NLHE to a showdown, PLO with a fold, NAIKO where
    seat 0 peeks and seat 1 swaps (the peeked card) before the showdown."""
    hands: list[dict[str, Any]] = []
    nlhe = table([100, 100, 100])
    deck = fixed_deck(nlhe, {0: "AhAd", 1: "KhKd", 2: "7s2c"}, "2d3c4c7d9s", 1)
    nlhe, _ = apply(nlhe, StartHand(deck=deck, button=1, deck_seed=SEED))
    nlhe = _finish(nlhe)
    plo = table([100, 100], variant=Variant.PLO)
    deck = fixed_deck(plo, {0: "AhAdKcQc", 1: "KhKd7s2c"}, "2d3c4c7d9s", 0)
    plo, _ = apply(plo, StartHand(deck=deck, button=0, deck_seed=SEED))
    plo, _ = play(plo, "0 c", "1 x", "1 x", "0 x", "1 b 4", "0 f")
    naiko = table([100, 100, 100], variant=Variant.NAIKO, destellos=[2, 2, 2])
    deck = fixed_deck(naiko, {0: "AhKh", 1: "7c2d", 2: "9s9h"}, "QsJs3c4d5h", 0)
    naiko, _ = apply(naiko, StartHand(deck=deck, button=0, deck_seed=SEED,
                                      carousel=("peek", "sleeve_swap", "short_anchor")))
    naiko, _ = play(naiko, "0 peek", "0 c", "1 swap 1")
    naiko = _finish(naiko)
    for state, readers in ((nlhe, "p0 p1 p2"), (plo, "p0 p1"), (naiko, "p0 p1 p2")):
        hands.extend(_read(state, reader) for reader in readers.split())
    return hands


def doctored(hand: dict[str, Any]) -> list[dict[str, Any]]:
    """Broken copies of *hand*: one bit of a proof's salt / of a sibling flipped, the first two
    flop cards swapped in the log (real proofs at positions the deal does not give them), a
    proof dropped, a proof of a card the reader was not shown (a forged one; real ones, the
    showdown taken out of the log), a card proved at a second position, a ``card_id`` that is
    not the card, a proof's position changed, no commitment at all, an upper-case commitment."""
    out = []
    salt = copy.deepcopy(hand)
    salt["proofs"][0]["salt"] = flip(salt["proofs"][0]["salt"], 5)
    out.append(salt)
    sibling = copy.deepcopy(hand)
    sibling["proofs"][-1]["path"][1] = flip(sibling["proofs"][-1]["path"][1], 200)
    out.append(sibling)
    out.append(swapped_flop(hand))
    dropped = copy.deepcopy(hand)
    del dropped["proofs"][1]
    out.append(dropped)
    stranger = copy.deepcopy(hand)
    stranger["proofs"].append({**stranger["proofs"][0], "card": "2h", "card_id": 2})
    out.append(stranger)
    twice = copy.deepcopy(hand)
    twice["proofs"].append({**twice["proofs"][0], "position": twice["proofs"][0]["position"] + 1})
    out.append(twice)
    unshown = copy.deepcopy(hand)  # real proofs of cards the log no longer shows
    kinds = [e["kind"] for e in unshown["events"]]
    if "showdown" in kinds:
        unshown["events"][kinds.index("showdown")]["hands"] = []
    else:  # the last street's cards
        del unshown["events"][len(kinds) - 1 - kinds[::-1].index("board_dealt")]
    out.append(unshown)
    malformed = copy.deepcopy(hand)
    malformed["proofs"][0]["card_id"] = (malformed["proofs"][0]["card_id"] + 1) % 52
    out.append(malformed)
    moved = copy.deepcopy(hand)
    moved["proofs"][0]["position"] = (moved["proofs"][0]["position"] + 20) % 52
    out.append(moved)
    old = copy.deepcopy(hand)
    del old["commitment"], old["proofs"]
    out.append(old)
    upper = copy.deepcopy(hand)
    upper["commitment"] = upper["commitment"].upper()
    out.append(upper)
    return out


def swapped_flop(hand: dict[str, Any]) -> dict[str, Any]:
    """*hand* with the flop's first two cards swapped in its ``board_dealt`` event: each proof
    still holds against the root, at the position of the other card."""
    hand = copy.deepcopy(hand)
    for event in hand["events"]:
        if event["kind"] == "board_dealt" and event.get("street") == "flop":
            cards = event["cards"]
            event["cards"] = cards[2:4] + cards[0:2] + cards[4:]
            return hand
    raise AssertionError("no flop")


@pytest.fixture
def module_page(open_page: Any) -> Iterator[Any]:
    """A page of the web client's origin (a secure context: WebCrypto) that can import
    ``/js/proofs.js``; no WebSocket server behind it."""
    from naiko_local.web import WebServer

    web = WebServer("127.0.0.1", 0, ws_port=9, mint=lambda p, ttl: "t").start()
    try:
        page = open_page()
        page.goto(f"{web.url}/api/config")
        yield page
    finally:
        web.stop()


# -- (c) parity with naiko-verify ------------------------------------------------------------

def test_r10_2_the_page_judges_stored_hands_as_naiko_verify(module_page: Any) -> None:
    real = stored_hands()
    broken = [bad for hand in real[::3] for bad in doctored(hand)]
    hands = real + broken
    got = module_page.evaluate(VERIFY, hands)
    for hand, verdict in zip(hands, got, strict=True):
        report = check_hand(hand)
        assert (verdict["ok"], verdict["proved"], verdict["problems"]) == \
            (report.ok, report.proved, report.problems), (hand["events"], report.line())
    # A log that cannot be placed: the same verdict; the reason after the colon is the
    # language's own (Python's exception text).
    mangled = []
    for edit in ({"cards": "Xx2c"}, {"seat_index": 7}):
        hand = copy.deepcopy(real[0])
        next(e for e in hand["events"] if e["kind"] == "hole_cards").update(edit)
        mangled.append(hand)
    hand = copy.deepcopy(real[6])  # NAIKO, p1: the swap received two cards
    swap = next(e for e in hand["events"] if e["kind"] == "sleeve_swap_result")
    swap["received"] += "2h"
    mangled.append(hand)
    for hand, verdict in zip(mangled, module_page.evaluate(VERIFY, mangled), strict=True):
        report = check_hand(hand)
        assert (verdict["ok"], verdict["proved"]) == (report.ok, report.proved) == (False, 0)
        assert [p.partition(": ")[0] for p in verdict["problems"]] == \
            [p.partition(": ")[0] for p in report.problems] == \
            ["the hand's events are malformed"], (verdict["problems"], report.problems)
    assert all(v["ok"] for v in got[:len(real)])
    assert [v["proved"] for v in got[:len(real)]] == [len(_cards_shown(h)) for h in real]
    assert [v["proved"] for v in got[:len(real)]] == [11, 11, 11, 8, 8, 11, 12, 11]
    assert not any(v["ok"] for v in got[len(real):])
    # every real card marked proved; a doctored one marked failed, the others still proved
    assert all(set(v["cards"].values()) == {"proved"} for v in got[:len(real)])
    swapped = got[len(real) + 2]
    assert sorted(v for v in swapped["cards"].values()) == ["failed", "failed"] + \
        ["proved"] * (len(swapped["cards"]) - 2)
    assert all("the dealing order puts it at" in p for p in swapped["problems"])


# -- (b) a doctored get_hand reply from a stand-in server ------------------------------------

class HistoryServer(AdditionsServer):
    """A stand-in server with a lobby and a hand history of the given hands (its ``get_hand``
    replies are what the test makes them)."""

    def __init__(self, hands: list[dict[str, Any]]) -> None:
        super().__init__()
        self.hands = hands

    async def _handle(self, ws: Any) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            rid, action = frame["request_id"], frame["action"]
            if action == "hand_history":
                reply: dict[str, Any] = {"type": "hands", "next": None, "hands": [
                    {"table_id": h["table_id"], "hand_number": h["hand_number"],
                     "table_name": h["table_name"], "net": 0, "cancelled": None}
                    for h in self.hands]}
            elif action == "get_hand":
                reply = {"type": "hand", "hand": next(
                    h for h in self.hands if h["table_id"] == frame["table_id"]
                    and h["hand_number"] == frame["hand_number"])}
            elif action == "list_tables":
                reply = {"type": "tables", "tables": []}
            elif action == "list_tournaments":
                reply = {"type": "tournaments", "tournaments": []}
            elif action == "get_account":
                reply = {"type": "account", "balance": 0, "open_tables": 0,
                         "ratholes_today": 0, "day": "2026-12-01"}
            else:
                reply = {"type": "error", "code": "unknown_action", "message": action}
            await ws.send(json.dumps({**reply, "request_id": rid}))


def open_in_panel(page: Any, table_id: str, number: int) -> str:
    """Open the history panel, then one hand; the deck check's final state."""
    page.wait_for_selector("body[data-conn=online]", state="attached")
    page.locator("#history-button").click()
    return open_hand(page, table_id, number)


def open_hand(page: Any, table_id: str, number: int) -> str:
    """In the open panel's list, open one hand; the deck check's final state."""
    page.locator(f"#history button[data-hand='{number}'][data-table='{table_id}']").click()
    check = page.locator(f"#history [data-history-hand='{number}'] [data-deck-check]")
    wait_until(lambda: check.count() and check.get_attribute("data-deck-check") != "pending",
               what="the stored hand's check")
    state: str = check.get_attribute("data-deck-check")
    return state


def test_r10_2_a_doctored_stored_hand_shows_the_failure(open_page: Any, shots: Shots) -> None:
    from naiko_local.web import WebServer

    real = stored_hands()[0]  # NLHE, seat 0's: AhAd, the board, the showdown
    bits = copy.deepcopy(real)
    bits["hand_number"] = 2
    bad_card = bits["proofs"][0]["card"]
    bits["proofs"][0]["path"][3] = flip(bits["proofs"][0]["path"][3], 17)
    moved = swapped_flop(real)
    moved["hand_number"] = 3
    old = copy.deepcopy(real)
    old["hand_number"] = 4
    del old["commitment"], old["proofs"]
    empty = copy.deepcopy(real)  # as a hand cancelled before any card: committed, none shown
    empty["hand_number"] = 5
    empty["proofs"] = []
    empty["events"] = [e for e in empty["events"] if e["kind"] in ("hand_started",
                                                                  "deck_committed")]
    with HistoryServer([real, bits, moved, old, empty]) as fake:
        web = WebServer("127.0.0.1", 0, ws_port=fake.port, mint=lambda p, ttl: "t").start()
        try:
            page = open_page()
            page.goto(f"{web.url}?player={PLAYER}")
            assert open_in_panel(page, "t1", 1) == "ok"
            text = page.locator("#history [data-deck-check]").inner_text()
            root = real["commitment"][:16]
            assert text.startswith(f"✓ 11 cards proved against commitment {root}…")
            marks = page.locator("#history .card.face").evaluate_all(MARKS)
            assert marks and all(m[1:] == ["proved", "✓"] for m in marks), marks

            page.locator("#history button.ghost", has_text="All hands").click()
            assert open_hand(page, "t1", 2) == "failed"
            problems = page.locator("#history .deck-check li").all_inner_texts()
            assert problems == check_hand(bits).problems
            assert problems == [f"proof 0 ({bad_card} at position "
                                f"{bits['proofs'][0]['position']}) does not match the root"]
            assert page.locator("#history .deck-check").inner_text().startswith(
                "✗ Deck check FAILED")
            marks = page.locator("#history .card.face").evaluate_all(MARKS)
            assert [m for m in marks if m[1] != "proved"] == [[bad_card, "failed", "✗"]] * \
                sum(1 for m in marks if m[0] == bad_card)
            shots(page, "flipped-bit")

            page.locator("#history button.ghost", has_text="All hands").click()
            assert open_hand(page, "t1", 3) == "failed"
            problems = page.locator("#history .deck-check li").all_inner_texts()
            assert problems == check_hand(moved).problems and len(problems) == 2
            assert all("but the dealing order puts it at" in p for p in problems), problems
            flop = [e for e in moved["events"] if e.get("street") == "flop"][0]["cards"]
            failed = {m[0] for m in page.locator("#history .card.face").evaluate_all(MARKS)
                      if m[1:] == ["failed", "✗"]}
            assert failed == {flop[0:2], flop[2:4]}
            shots(page, "moved-card")

            page.locator("#history button.ghost", has_text="All hands").click()
            assert open_hand(page, "t1", 4) == "uncommitted"
            check = page.locator("#history [data-deck-check]")
            assert "not committed" in check.inner_text()
            assert not page.locator("#history .proof-mark").count()

            page.locator("#history button.ghost", has_text="All hands").click()
            assert open_hand(page, "t1", 5) == "empty"
            assert check_hand(empty).line().endswith("nothing to verify (no card proved)")
            assert "nothing to verify" in check.inner_text()
        finally:
            web.stop()


# -- (a) end to end: a hand played from the page ---------------------------------------------

def _cards_shown(hand: dict[str, Any]) -> set[str]:
    """Every card the reader's events show (own hole cards, the board, Peek, swap, showdown)."""
    out: set[str] = set()
    for e in hand["events"]:
        for key in ("cards", "card", "received", "discarded"):
            if isinstance(e.get(key), str) and e["kind"] != "hand_started":
                out.update(e[key][i:i + 2] for i in range(0, len(e[key]), 2))
        for shown in e.get("hands") or ():
            out.update(shown["cards"][i:i + 2] for i in range(0, len(shown["cards"]), 2))
    return out


def test_r10_2_a_hand_played_from_the_page_verifies_in_the_history(
        stack: LocalStack, open_page: Any, shots: Shots) -> None:
    table_ = demo_table(stack, "NLHE", 6, (1, 2), bots=True)
    seat_server_bots(stack, table_.table_id, 2, buy_in=200)
    page = open_page()
    sit_from_lobby(page, stack, table_.table_id)
    ask = ("async () => (await naikoApp.conn.request('hand_history', {limit: 5})).hands"
           ".map((h) => h.hand_number)")
    deadline = time.monotonic() + 60
    while not page.evaluate(ask):
        check_or_call(page)
        assert time.monotonic() < deadline, "no hand stored within 60 s"
        time.sleep(0.2)
    number = page.evaluate(ask)[-1]
    assert open_in_panel(page, table_.table_id, number) == "ok"
    hand = page.evaluate("naikoApp.history.hand")
    seen = _cards_shown(hand)
    report = check_hand(hand)
    assert report.ok and report.proved == len(seen) >= 2
    check = page.locator("#history [data-deck-check]")
    assert check.get_attribute("data-proved") == str(len(seen))
    assert check.inner_text().startswith(
        f"✓ {len(seen)} cards proved against commitment {hand['commitment'][:16]}…")
    marks = page.locator("#history .card.face").evaluate_all(MARKS)
    assert marks and all(m[1:] == ["proved", "✓"] for m in marks), marks
    assert {m[0] for m in marks} <= seen
    shots(page, "history-verified")


