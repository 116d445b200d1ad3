"""R9.16 on moto: a heads-up Sit & Go whose terms publish deals, frames through the real
handlers, the table and the tournament in DynamoDB, the timers real executions of the
template's state machines. Both players ask, the table holds after the hand and offers the
splits, both accept: each amount is paid once, in the table's transaction with the tournament
item, the ``deal#`` items and the ledger entries; a replayed or second answer pays nothing."""

from __future__ import annotations

from dataclasses import replace

import boto3
from aws_testing import REGION
from naiko.tournaments.structures import DealTerms
from naiko_service.ports import PutTournament
from naiko_service.records import Hold
from naiko_service.tournament_records import TournamentStatus
from sit_and_go_on_moto_testing import ENTRY, grant, ledger_audit, tournaments
from test_timers_on_moto import World


def _ledger_deals(world: World, tid: str) -> list[dict[str, str]]:
    items = boto3.client("dynamodb", region_name=REGION).scan(
        TableName=world.names["LedgerTable"])["Items"]
    return [{"player": i["account"]["S"], "amount": i["amount"]["N"]} for i in items
            if i.get("reason", {}).get("S") == "deal" and i.get("ref", {}).get("S") == tid]


def test_r9_16_a_deal_made_on_dynamodb_is_paid_once(world: World) -> None:
    ann, bob = world.connect("ann"), world.connect("bob")
    for player in ("ann", "bob"):
        grant(world, player, 1_000)
    created = world.send(ann, action="create_tournament", preset="sng_headsup_hyper",
                         entry=ENTRY, name="deal")
    tid = str(created["tournament_id"])
    store = tournaments(world)
    record = store.load(tid)  # ops publish deals with the terms, before anyone registers
    new = record.copy()
    new.version += 1
    new.terms = replace(record.terms, deals=DealTerms(2, 0, 60))
    store.commit((PutTournament(new, record.version),))
    listed = world.send(bob, action="get_tournament", tournament_id=tid)
    assert listed["tournament"]["terms"]["deals"] == {"max_players": 2, "keep_percent": 0,
                                                       "clock_s": 60}
    for connection in (ann, bob):
        assert world.send(connection, action="register", tournament_id=tid)["type"] == "ack"
    table_id = store.load(tid).tables[0]
    while not world.load(table_id).state.hand_in_progress:
        assert world.time.step() is not None
    for connection in (ann, bob):
        asked = world.send(connection, action="ask_deal", table_id=table_id)
        assert asked["type"] == "update", asked
    for _ in range(200):  # the hand in progress is played out (the clock folds)
        table = world.load(table_id)
        info = table.tournament
        assert info is not None
        if info.deal is not None and info.deal.offer is not None:
            break
        assert world.time.step() is not None
    offer = info.deal.offer  # type: ignore[union-attr]
    assert offer is not None and info.hold == Hold.DEAL and not table.state.hand_in_progress
    assert sum(offer.splits["icm"]) == sum(offer.prizes) == ENTRY * 2  # nothing kept
    pool = store.load(tid).pool_held
    assert world.send(ann, action="accept_deal", table_id=table_id, offer_id=offer.offer_id,
                      split="icm")["type"] == "update"
    frame = {"action": "accept_deal", "table_id": table_id, "offer_id": offer.offer_id,
             "split": "icm", "request_id": "bob-accept"}
    made = world.send(bob, **frame)
    assert any(e["kind"] == "deal_made" for e in made["events"]), made
    amounts = dict(zip(offer.players, offer.splits["icm"], strict=True))
    assert world.balance("ann") == 1_000 - ENTRY + amounts["ann"]
    assert world.balance("bob") == 1_000 - ENTRY + amounts["bob"]
    # a replayed frame and a second answer pay nothing
    assert world.send(bob, **frame).get("replayed") is True
    again = world.send(ann, action="accept_deal", table_id=table_id, offer_id=offer.offer_id,
                       split="icm")
    assert again["type"] == "error" and again["code"] == "no_deal_offer"
    assert world.balance("bob") == 1_000 - ENTRY + amounts["bob"]
    after = store.load(tid)
    assert after.pool_held == pool - ENTRY * 2 == 0
    assert after.status is TournamentStatus.FINISHED  # nothing kept: it ends with the deal
    paid = {d["player_id"]: d["amount"] for _, d in store.items(tid, "deal#")}
    assert paid == amounts
    ledger = sorted((e["player"], int(e["amount"])) for e in _ledger_deals(world, tid))
    assert ledger == sorted(amounts.items())  # one ``deal`` entry each, what they got
    places = {d["player_id"]: d["place"] for _, d in store.items(tid, "result#")}
    assert sorted(places.values()) in ([1, 2], [1, 1])
    kinds = [d["type"] for _, d in store.items(tid, "log#")]
    assert kinds.count("deal_asked") == 2 and "deal_offered" in kinds
    assert kinds.index("deal_made") < kinds.index("finished")
    audit = ledger_audit(world)
    assert audit.holds, audit.line()
