"""Races at a tournament's registration answer with documented codes (issue 29 item 4).

A registration that fills a Sit & Go reads the tournament item, then the registrations, then
commits on the item's version. Before the fix, a commit of another request between those two
reads made the registration start the tournament with the wrong field:
``invalid_terms: 1 entrants outside 2..2`` (a register racing the only entrant's unregister) or
``8 entrants outside 6..6`` (``tournament_add_bots`` racing two registrations). Each race is made
deterministic here: the other request runs exactly between the two reads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases.private import HOUSE_BOTS
from naiko_service.usecases.tournament_payments import REG_PREFIX
from service_testing import Harness, harness
from test_tournaments import new_tournament, register, sng_terms


def between_the_reads(h: Harness, other: Any, listing: int = 1) -> list[int]:
    """Run *other* once, when a request lists the registrations for the *listing*-th time
    (after it read the tournament item, before it commits). Returns a list that counts the
    listings."""
    store = h.tournaments
    assert store is not None
    items = store.items
    ran: list[int] = []

    def racing_items(tournament_id: str, prefix: str = "") -> Any:
        if prefix == REG_PREFIX:
            ran.append(1)
            if len(ran) == listing:
                other()
        return items(tournament_id, prefix)

    store.items = racing_items  # type: ignore[method-assign]
    return ran


def test_r9_1_register_racing_the_only_entrants_unregister_waits_for_a_second_player() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(2, entry=100))
    ann, bob = h.player("ann"), h.player("bob")
    register(tid, ann)
    ran = between_the_reads(
        h, lambda: ann.send(action="unregister", tournament_id=tid))
    reply = bob.send(action="register", tournament_id=tid)
    assert ran == [1]
    # read again after the unregister: bob is the only entrant, and waits for a second
    assert reply["type"] == "ack", reply
    assert h.tournaments is not None
    record = h.tournaments.load(tid)
    assert record.status is TournamentStatus.REGISTERING and record.entrants == 1
    assert h.accounts.balance("ann") == 10_000 and h.accounts.balance("bob") == 9_900
    assert h.counters["Conflicts"] >= 1
    assert h.store.audit().holds


def test_r9_1_bots_racing_two_registrations_answer_tournament_full() -> None:
    h = harness()
    tid = new_tournament(h, replace(sng_terms(6), bots_allowed=True))
    creator = h.player("ops")
    ann, bob, cid = h.player("ann"), h.player("bob"), h.player("cid")
    register(tid, ann)
    h.accounts.grant(HOUSE_BOTS, 5 * 100)

    def two_registrations() -> None:
        register(tid, bob, cid)

    # add_bots lists the registrations to name its bots, then reads the item to enter them:
    # the race is at the second listing, where the entry that fills it reads who is registered
    ran = between_the_reads(h, two_registrations, listing=2)
    # 5 seats were free when the request was read; 3 are when it would commit
    reply = creator.send(action="tournament_add_bots", tournament_id=tid, count=5)
    assert len(ran) >= 2
    assert reply["type"] == "error" and reply["code"] == "tournament_full", reply
    assert h.tournaments is not None
    record = h.tournaments.load(tid)
    assert record.status is TournamentStatus.REGISTERING and record.entrants == 3
    assert h.accounts.balance(HOUSE_BOTS) == 500  # nothing paid for bots that did not sit
    # asked again for the seats that are free, the bots fill it and it starts
    assert creator.send(action="tournament_add_bots", tournament_id=tid)["type"] == "ack"
    assert h.tournaments.load(tid).status is TournamentStatus.RUNNING
    assert h.store.audit().holds
