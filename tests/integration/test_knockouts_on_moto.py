"""R9.13 on moto: a knockout Sit & Go played to the end through the real handlers and state
machines, tables and tournaments in DynamoDB. Each bounty is paid in the transaction that
eliminates its player (``TransactWriteItems``: the table, the tournament, the result, the
``bounty#`` item, the winners' accounts and ledger entries), once each, and the ledger audit
holds with the tournament's ``pool_held`` back to 0."""

from __future__ import annotations

from collections import Counter

import boto3
from aws_testing import REGION
from naiko_local.bounty_audit import audit
from naiko_service.ledger import audit_dynamodb
from naiko_service.records import Sealer
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases.tournament_bounties import BOUNTY_PREFIX
from test_timers_on_moto import World
from test_tournament_on_moto import grant, tournaments

ENTRY = 100


def test_r9_13_a_knockout_sit_and_go_pays_every_bounty_once_on_dynamodb(world: World) -> None:
    ann, bob = world.connect("ann"), world.connect("bob")
    for player in ("ann", "bob"):
        grant(world, player, 1_000)
    grant(world, "house:bots", 10_000)
    created = world.send(ann, action="create_tournament", preset="sng_6max_turbo_ko",
                         entry=ENTRY, bots=True, name="moto knockout")
    assert created["type"] == "ack"
    tid = str(created["tournament_id"])
    for connection in (ann, bob):
        assert world.send(connection, action="register", tournament_id=tid)["type"] == "ack"
    assert world.send(ann, action="tournament_add_bots", tournament_id=tid)["type"] == "ack"
    store = tournaments(world)
    record = store.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.payouts == [195, 105]
    table_id = record.tables[0]
    seats = [s for s in world.view(ann)["seats"] if s is not None]
    assert [s["bounty"] for s in seats] == [50] * 6  # shown at the table
    steps = 0
    while store.load(tid).status is TournamentStatus.RUNNING:
        table = world.load(table_id)
        hand = table.state.hand
        seat = None if hand is None or hand.complete else hand.actor
        player = None if seat is None else table.state.seats[seat]
        if player is not None and player.player_id in ("ann", "bob") and not player.sitting_out:
            connection = ann if player.player_id == "ann" else bob
            prompt = world.view(connection)["prompt"]
            move = "all_in" if "all_in" in prompt["actions"] else "check"
            assert world.send(connection, action="act", table_id=table_id,
                              move=move)["type"] in ("ack", "update")
        else:
            assert world.time.step() is not None, "no execution left"
        steps += 1
        assert steps < 2_000
    while world.time.parked():
        world.time.step()
    record = store.load(tid)
    assert record.status is TournamentStatus.FINISHED and record.pool_held == 0
    paid = [data for _, data in store.items(tid, BOUNTY_PREFIX)]
    assert Counter(d["reason"] for d in paid) == {"knockout": 5, "winner": 1}
    assert sum(sum(d["paid"].values()) for d in paid) == 6 * 50
    prizes = {data["player_id"]: data["prize"] for _, data in store.items(tid, "result#")}
    for human in ("ann", "bob"):
        won = sum(amount for d in paid for winner, amount in d["paid"].items()
                  if winner == human)
        assert world.balance(human) == 900 + prizes[human] + won
    log = [data for _, data in store.items(tid, "log#")]
    result = audit(log)
    assert result.holds and result.payments == 6, result.problems
    ledger = audit_dynamodb(boto3.client("dynamodb", region_name=REGION),
                            world.names["AccountsTable"], world.names["LedgerTable"],
                            world.names["TablesTable"], Sealer(bytes(range(32))),
                            world.names["TournamentsTable"])
    assert ledger.holds, ledger.line()
