"""The web client at a knockout tournament's final table and in its lobby (``table.js``,
``lobby.js``; ``docs/web.md``): the deal panel (R9.16) shows who asked, the offer's ICM and
chip-count amounts with every answer, and sends ``ask_deal`` / ``accept_deal`` /
``decline_deal`` with the offer's id; every seat shows its bounty (R9.13); the lobby shows
the bounty in the terms and your re-entries left (R9.12).

Drawn in a page of the client's origin from views and summaries as protocol.md gives them;
the buttons are clicked and what the page would send is recorded (no WebSocket server)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

pytest.importorskip("websockets")

from test_web_narrate import draw_table, seated_view  # noqa: E402

OFFER = {"offer_id": "2.1700000500800", "ends_ms": 30_000, "players": ["alice", "bot-1"],
         "stacks": [1400, 600], "prizes": [270], "kept": 30, "icm": [170, 100],
         "chip_count": [177, 93], "accepted": {"bot-1": "chip_count"}}


def final_table(deal: dict[str, Any] | None) -> dict[str, Any]:
    """alice (seat 0) and bot-1 at a knockout tournament's final table, between hands."""
    view = copy.deepcopy(seated_view())
    view["prompt"] = None
    view["hand"] = None
    view["settings"]["kind"] = "tournament"
    view["seats"] = [s for s in view["seats"] if s][:2] + [None] * (len(view["seats"]) - 2)
    view["seats"][0]["bounty"], view["seats"][1]["bounty"] = 50, 125
    view["tournament"] = {
        "tournament_id": "u1", "level": 3, "small_blind": 20, "big_blind": 40, "ante": 0,
        "ante_mode": "none", "level_ends_ms": None, "next_level": None, "players_left": 2,
        "entrants": 6, "payouts": [300], "multiplier": None, "first_hand_ms": 0, "bounty": 50}
    if deal is not None:
        view["tournament"]["deal"] = deal
    return view


DEAL_PANEL = """(root) => ({
  panel: root.querySelector('.deal-panel')?.dataset.deal ?? null,
  rows: [...root.querySelectorAll('.deal-offer tbody tr')].map((r) =>
    [...r.querySelectorAll('td')].map((d) => d.textContent)),
  bounties: [...root.querySelectorAll('.seat .bounty')].map((b) => b.textContent),
  buttons: [...root.querySelectorAll('.deal-panel button')].map((b) => b.dataset.action) })"""
"""What :func:`draw` reads: the deal panel (its ``data-deal``, the offer's rows, its buttons)
and the seats' bounties."""


def draw(page: Any, view: dict[str, Any], click: str | None = None,
         terms: dict[str, Any] | None = None) -> dict[str, Any]:
    """table.js draws *view* for alice, the lobby's terms *terms*; *click* (a CSS selector) is
    clicked; what it sent is returned, with the deal panel and the bounties."""
    return draw_table(page, view, DEAL_PANEL, player="alice", terms=terms, click=click)


def test_r9_16_the_deal_panel_shows_the_offer_and_answers_it_by_its_id(page: Any) -> None:
    view = final_table({"asked": ["alice", "bot-1"], "made": None, "offer": OFFER})
    drawn = draw(page, view, click='[data-action="accept_deal"][data-split="icm"]')
    assert drawn["panel"] == "offered"
    assert drawn["rows"] == [["You", "1,400", "170", "177", "…"],
                             ["bot-1", "600", "100", "93", "accepts chip count"]]
    assert "30 kept for the winner" in drawn["text"]
    assert drawn["buttons"] == ["accept_deal", "accept_deal", "decline_deal"]
    assert drawn["sent"] == [["accept_deal", {"offer_id": OFFER["offer_id"], "split": "icm"}]]
    drawn = draw(page, view, click='[data-action="accept_deal"][data-split="chip_count"]')
    assert drawn["sent"] == [["accept_deal", {"offer_id": OFFER["offer_id"],
                                              "split": "chip_count"}]]
    drawn = draw(page, view, click='[data-action="decline_deal"]')
    assert drawn["sent"] == [["decline_deal", {"offer_id": OFFER["offer_id"]}]]
    watcher = copy.deepcopy(view)
    watcher["seat_index"] = None
    assert draw(page, watcher)["buttons"] == []  # a spectator sees the offer, cannot answer


def test_r9_16_asking_for_a_deal_where_the_terms_publish_deals(page: Any) -> None:
    deals = {"deals": {"max_players": 3, "keep_percent": 10, "clock_s": 30}}
    drawn = draw(page, final_table(None), click='[data-action="ask_deal"]', terms=deals)
    assert drawn["sent"] == [["ask_deal", {}]]
    asked = draw(page, final_table({"asked": ["bot-1"], "made": None, "offer": None}),
                 terms=deals)
    assert asked["panel"] == "asked" and "A deal is asked for by bot-1" in asked["text"]
    assert asked["buttons"] == ["ask_deal"]
    mine = draw(page, final_table({"asked": ["alice"], "made": None, "offer": None}))
    assert mine["buttons"] == []  # asked already
    assert draw(page, final_table(None), terms={})["panel"] is None  # no deals in the terms
    more = final_table(None)
    more["tournament"]["players_left"] = 3  # another table still plays: not the final table
    assert draw(page, more, terms=deals)["panel"] is None
    made = draw(page, final_table({"asked": [], "made": "icm", "offer": None}))
    assert made["panel"] == "made" and "Deal made (ICM)" in made["text"]
    assert made["buttons"] == []


def test_r9_13_every_seat_shows_its_bounty(page: Any) -> None:
    drawn = draw(page, final_table(None), terms={})
    assert drawn["bounties"] == ["🎯 50", "🎯 125"]
    assert "Knockout: bounty 50 an entry" in drawn["text"]
    plain = final_table(None)
    del plain["tournament"]["bounty"]
    for seat in plain["seats"][:2]:
        del seat["bounty"]
    assert draw(page, plain, terms={})["bounties"] == []


def test_r9_12_r9_13_the_lobby_shows_the_bounty_and_your_re_entries_left(page: Any) -> None:
    terms = {"payout": "scheduled", "entries_per_player": 3, "bounty": 50, "progressive": True,
             "deals": {"max_players": 3, "keep_percent": 0, "clock_s": 30},
             "structure": {"levels": []}}
    summary = {"tournament_id": "u1", "name": "KO Cup", "kind": "scheduled", "variant": "NLHE",
               "status": "running", "entry": 100, "starting_stack": 1000, "seat_count": 6,
               "min_players": 2, "max_players": 60, "entrants": 12, "reentries": 2,
               "payouts": [], "terms": terms}
    shown: dict[str, Any] = page.evaluate(
        """async ([summary, entries]) => {
          const l = await import('/js/lobby.js');
          const root = document.createElement('div');
          document.body.replaceChildren(root);
          const details = new Map([[summary.tournament_id,
            { ...summary, tables: ['t1'], you: { registered: true, entries, result: null } }]]);
          const noop = () => {};
          l.renderLobby(root, { tables: [], tournaments: [summary], details, account: null,
            me: 'alice', nowMs: 0 }, { refresh: noop, register: noop, unregister: noop,
            reenter: noop, addBots: noop, openTable: noop, watch: noop, play: noop,
            findTable: noop, quickSeat: noop, createTable: noop });
          root.querySelector('details').open = true;
          const left = root.querySelector('[data-reentries-left]');
          return { text: root.innerText, left: left ? left.dataset.reentriesLeft : null,
                   reenter: Boolean(root.querySelector('[data-action="reenter"]')) };
        }""", [summary, 1])
    assert shown["left"] == "2" and "2 re-entries left" in shown["text"]
    assert "KO 50" in shown["text"]
    assert "50 an entry, progressive" in shown["text"]
    assert "at the final table of 3 or fewer" in shown["text"]
    assert shown["reenter"]
