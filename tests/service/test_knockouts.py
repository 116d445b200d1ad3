"""Knockout bounties through the service on the memory adapters (R9.13), amounts worked by hand:
a bounty paid in the write that eliminates its player, split like the pot that did it (R4.5),
progressive halves, the winner's own bounty at the end, the table's view and the hand's record,
a knockout Spin's bounties held by the tournament. Every account starts with 10,000 chips; a
3-seat Sit & Go of 1,500 chips at 10/20, entry 100."""

from __future__ import annotations

from dataclasses import replace

import pytest
from naiko.tournaments.structures import from_preset
from naiko_service.ports import ConcurrentUpdate, LedgerReason
from naiko_service.tournament_records import HOUSE_PRIZES, TournamentStatus
from naiko_service.usecases.base import Outcome
from naiko_service.usecases.tournament_bounties import BOUNTY_PREFIX, knock_out
from naiko_service.usecases.tournament_log import Out
from service_testing import Harness, Player, harness
from test_tournaments import (
    act,
    at,
    deal,
    ledger,
    log,
    new_tournament,
    register,
    results,
    rig,
    sng_terms,
    spin_25x,
    table_of,
)

BOARD = "AhKd7c4s2h"
"""With it ``AsKc`` and ``AcKs`` tie (two pair, aces and kings) and beat ``QhJh``."""


def three_way(h: Harness, monkeypatch: pytest.MonkeyPatch, *, bounty: int,
              progressive: bool = False) -> tuple[str, Player, Player, Player]:
    """A 3-seat knockout Sit & Go whose first hand is all in three ways: the button and the
    small blind tie and eliminate the big blind. Returns the id, button, small, big."""
    terms = replace(sng_terms(3), bounty=bounty, progressive=progressive)
    tid = new_tournament(h, terms)
    players = [h.player(name) for name in ("ann", "bob", "cy")]
    register(tid, *players)
    info = table_of(h, tid).tournament
    assert info is not None and info.first_button is not None
    b = info.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "AsKc"), (small, "AcKs"), (big, "QhJh")], BOARD)
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    return tid, button, small, big


def heads_up(h: Harness, monkeypatch: pytest.MonkeyPatch, tid: str, winner: Player,
             loser: Player) -> None:
    """The next hand: both all in, *winner* with aces."""
    rig(monkeypatch, h, tid, [(winner, "AsAh"), (loser, "7c2d")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(2):
        act(h, tid, [winner, loser], "all_in")


def bounty_ledger(h: Harness) -> list[tuple[str, int]]:
    return ledger(h, LedgerReason.BOUNTY)


def test_r9_13_a_bounty_is_split_like_the_pot_that_eliminated_its_player_in_that_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, button, small, big = three_way(h, monkeypatch, bounty=41)
    # R4.5: 41 between the two winners, the odd chip to the first clockwise from the button.
    assert sorted(bounty_ledger(h)) == sorted([(small.player_id, 21), (button.player_id, 20)])
    assert results(h, tid) == {big.player_id: (3, 0)}
    ko = log(h, tid, "bounty")
    assert [(e["player"], e["bounty"], e["paid"], e["added"], e["reason"], e["hand"])
            for e in ko] == [(big.player_id, 41, {small.player_id: 21, button.player_id: 20},
                              {}, "knockout", 1)]
    # In the write that eliminated the player: the same moment as the elimination, and the
    # bounty's own item (never twice) stored with its result.
    eliminated = log(h, tid, "eliminated")
    assert ko[0]["at_ms"] == eliminated[0]["at_ms"]
    assert h.accounts.ledger[-1].at_ms == ko[0]["at_ms"]
    assert h.tournaments is not None
    keys = [k for k, _ in h.tournaments.items(tid, BOUNTY_PREFIX)]
    assert keys == [f"{BOUNTY_PREFIX}{big.player_id}#{tid}-1#000001"]
    record = h.tournaments.load(tid)
    assert record.pool_held == 3 * 100 - 41  # the prize pool and the two bounties left
    # The hand's record: each seat's bounty at its start and the knockout.
    hand = h.store.hand(f"{tid}-1", 1)
    assert hand is not None and hand.tournament is not None
    assert hand.tournament["bounties"] == {p.player_id: 41 for p in (button, small, big)}
    assert hand.tournament["knockouts"] == [{
        "eliminated": big.player_id, "bounty": 41,
        "paid": {small.player_id: 21, button.player_id: 20}, "added": {}}]
    # The winner of the last hand takes the loser's bounty, then their own with the finish.
    heads_up(h, monkeypatch, tid, small, button)
    assert [(e["player"], e["paid"], e["reason"]) for e in log(h, tid, "bounty")[1:]] == [
        (button.player_id, {small.player_id: 41}, "knockout"),
        (small.player_id, {small.player_id: 41}, "winner")]
    record = h.tournaments.load(tid)
    assert record.status is TournamentStatus.FINISHED and record.pool_held == 0
    prize = 3 * (100 - 41)  # 3 to 5 entrants: winner takes all (R9.9)
    assert h.accounts.balance(small.player_id) == 10_000 - 100 + 21 + 41 + 41 + prize
    assert h.accounts.balance(button.player_id) == 10_000 - 100 + 20
    assert h.accounts.balance(big.player_id) == 10_000 - 100
    assert sum(amount for _, amount in bounty_ledger(h)) == 3 * 41
    assert h.store.audit().holds


def test_r9_13_progressive_pays_half_and_adds_half_to_the_winners_own_bounty(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, button, small, big = three_way(h, monkeypatch, bounty=40, progressive=True)
    # 40 split 20/20; of each share 10 paid at once and 10 on the winner's head.
    assert sorted(bounty_ledger(h)) == sorted([(small.player_id, 10), (button.player_id, 10)])
    assert h.tournaments is not None
    assert h.tournaments.load(tid).bounties == {small.player_id: 50, button.player_id: 50}
    # The table shows each seat's bounty (and the hand's record the knockout's halves).
    view = small.last_view()
    shown = {s["player_id"]: s["bounty"] for s in view["seats"] if s is not None}
    assert shown == {small.player_id: 50, button.player_id: 50}
    assert view["tournament"]["bounty"] == 40
    hand = h.store.hand(f"{tid}-1", 1)
    assert hand is not None and hand.tournament is not None
    assert hand.tournament["knockouts"][0]["added"] == {small.player_id: 10,
                                                        button.player_id: 10}
    # The button's grown bounty (50): 25 paid, 25 added; then the winner's own, 75.
    heads_up(h, monkeypatch, tid, small, button)
    assert [(e["player"], e["bounty"], e["paid"], e["added"]) for e in log(h, tid, "bounty")[1:]
            ] == [(button.player_id, 50, {small.player_id: 25}, {small.player_id: 25}),
                  (small.player_id, 75, {small.player_id: 75}, {})]
    record = h.tournaments.load(tid)
    assert record.pool_held == 0 and record.bounties == {}
    assert sum(amount for _, amount in bounty_ledger(h)) == 3 * 40
    assert h.accounts.balance(small.player_id) == 10_000 - 100 + 10 + 25 + 75 + 3 * 60
    assert h.store.audit().holds


def test_r9_13_a_knockout_spin_multiplies_the_prize_part_and_holds_the_bounties(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    monkeypatch.setattr("test_tournaments.spin_terms", lambda entry, **_: replace(
        from_preset("spin_3max_hyper_ko", entry), decision_ms=20_000))
    tid, players = spin_25x(h)  # 25 x the prize part (50): 1,250 as 1,000 / 150 / 100
    assert h.tournaments is not None
    record = h.tournaments.load(tid)
    assert record.payouts == [1_000, 150, 100] and record.pool_held == 3 * 50
    assert h.accounts.balance(HOUSE_PRIZES) == 100_000 + 3 * 50
    info = table_of(h, tid).tournament
    assert info is not None and info.first_button is not None
    b = info.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    # Both out in one hand, tied for 2nd (125 each); both bounties and the winner's own to
    # the button, from the tournament, not the house.
    assert sorted(bounty_ledger(h)) == [(button.player_id, 50)] * 3
    assert h.accounts.balance(button.player_id) == 10_000 - 100 + 1_000 + 150
    assert h.accounts.balance(HOUSE_PRIZES) == 100_000 + 3 * 50 - 1_250
    assert h.tournaments.load(tid).pool_held == 0
    assert h.store.audit().holds


def test_r9_13_unregistering_from_a_knockout_spin_brings_both_parts_back() -> None:
    h = harness()
    h.accounts.grant(HOUSE_PRIZES, 1_000)
    tid = new_tournament(h, from_preset("spin_3max_hyper_ko", 100))
    ann = h.player("ann")
    register(tid, ann)
    assert h.tournaments is not None and h.tournaments.load(tid).pool_held == 50
    assert h.accounts.balance(HOUSE_PRIZES) == 1_050
    reply = ann.send(action="unregister", tournament_id=tid)
    assert reply["type"] == "ack", reply
    assert h.accounts.balance("ann") == 10_000
    assert h.accounts.balance(HOUSE_PRIZES) == 1_000
    assert h.tournaments.load(tid).pool_held == 0
    assert h.store.audit().holds


def test_r9_13_bad_knockout_terms_are_refused_with_their_code_and_nothing_created() -> None:
    h = harness()
    creator = h.player("ann")
    reply = creator.send(action="create_tournament", preset="sng_6max_turbo_ko", entry=1,
                         request_id="r1")
    assert reply["type"] == "error" and reply["code"] == "invalid_bounty", reply
    assert "bounty" in reply["message"]
    assert creator.send(action="list_tournaments")["tournaments"] == []
    # A valid entry lists it, its terms publishing the bounty part of the entry.
    reply = creator.send(action="create_tournament", preset="sng_6max_turbo_ko", entry=100,
                         request_id="r2")
    assert reply["type"] == "ack", reply
    (listed,) = creator.send(action="list_tournaments")["tournaments"]
    assert (listed["terms"]["bounty"], listed["terms"]["progressive"]) == (50, False)
    assert listed["payout_split"] == {"entrants": 6, "prizes": [195, 105]}  # 6 x 50, 65/35


def test_r9_13_a_knockout_written_again_pays_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounty's item may not exist yet: the same knockout decided again (a retried or
    duplicated write of the hand's end) is refused whole, and no chip moves twice."""
    h = harness()
    tid, button, small, big = three_way(h, monkeypatch, bounty=41)
    assert h.tournaments is not None
    table = table_of(h, tid)
    assert table.state.hand is not None and table.state.hand.number == 1
    new = h.tournaments.load(tid).copy()
    outcome = Outcome()
    again = knock_out(h.service.deps, table, new, [Out(big.player_id, 1_500, table.table_id, 1,
                                                       big.player_id)], h.clock.now, outcome)
    assert [k.paid for k in again] == [{small.player_id: 21, button.player_id: 20}]
    balances = [h.accounts.balance(p.player_id) for p in (button, small, big)]
    with pytest.raises(ConcurrentUpdate):
        h.tournaments.commit(tuple(outcome.writes), tuple(outcome.moves))
    assert [h.accounts.balance(p.player_id) for p in (button, small, big)] == balances
    assert len(bounty_ledger(h)) == 2


def test_r4_5_two_odd_bounties_split_between_the_button_and_the_big_blind_go_left_of_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """R4.5 through R9.13 at a 4-seat knockout Sit & Go (bounty 41): all four all in on the
    first hand, the button and the big blind tie (``AsKc``, ``AcKs``) and eliminate the small
    blind and the cut-off. Each odd bounty is split as R4.5 splits a pot: 20 each and the odd
    chip to the first tied winner clockwise (left) of the button, the big blind (the small
    blind, between them, is out): the button gets 20 of each, never the odd chip for being
    on the button."""
    h = harness()
    terms = replace(sng_terms(4), bounty=41)
    tid = new_tournament(h, terms)
    players = [h.player(name) for name in ("ann", "bob", "cy", "dee")]
    register(tid, *players)
    info = table_of(h, tid).tournament
    assert info is not None and info.first_button is not None
    b = info.first_button
    button, small, big, cutoff = (at(h, tid, (b + k) % 4, players) for k in range(4))
    rig(monkeypatch, h, tid, [(button, "AsKc"), (small, "QhJh"), (big, "AcKs"),
                              (cutoff, "QdJd")], BOARD)
    deal(h, tid)
    for _ in range(4):
        act(h, tid, players, "all_in")
    hand = table_of(h, tid).state.hand
    assert hand is not None and hand.button == b
    assert [a["winners"] for a in hand.awards] == [{str(b): 3_000, str((b + 2) % 4): 3_000}]
    ko = {e["player"]: e["paid"] for e in log(h, tid, "bounty")}
    split = {big.player_id: 21, button.player_id: 20}
    assert ko == {small.player_id: split, cutoff.player_id: split}
    assert sorted(bounty_ledger(h)) == sorted([(big.player_id, 21), (button.player_id, 20)] * 2)
    assert h.store.audit().holds
