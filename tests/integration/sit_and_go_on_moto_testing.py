"""Helpers shared by the Sit & Go tests on moto (``test_tournament_on_moto.py``,
``test_knockouts_on_moto.py``, ``test_deals_on_moto.py``), all in the ``world`` of
``test_timers_on_moto.py``: ops' grants, the tournaments' store, a Sit & Go created by ann for
ann and bob, played to the end by them moving all in, and the ledger audit over every table."""

from __future__ import annotations

import boto3
from aws_testing import REGION
from naiko_service.aws.dynamodb import DynamoAccounts
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.ledger import Audit, audit_dynamodb
from naiko_service.records import Sealer
from naiko_service.tournament_records import TournamentStatus
from test_timers_on_moto import World

ENTRY = 100
HUMANS = ("ann", "bob")


def grant(world: World, player: str, chips: int) -> None:
    """Ops grant chips, with their ledger entry (``scripts/grant_chips.py``)."""
    DynamoAccounts(boto3.client("dynamodb", region_name=REGION), world.names["AccountsTable"],
                   ledger_table=world.names["LedgerTable"]).grant(player, chips, ref="test")


def tournaments(world: World) -> DynamoTournamentStore:
    return DynamoTournamentStore(boto3.client("dynamodb", region_name=REGION),
                                 world.names["TournamentsTable"], world.store)


def created_sit_and_go(world: World, preset: str, name: str) -> tuple[str, str, str]:
    """ann and bob connected with 1,000 chips each, the BOTs' house account with 10,000, and
    ann's Sit & Go of *preset* (entry ``ENTRY``, BOTs allowed) created, nobody registered yet.
    Returns ann's and bob's connections and the tournament's id."""
    ann, bob = world.connect("ann"), world.connect("bob")
    for player in HUMANS:
        grant(world, player, 1_000)
    grant(world, "house:bots", 10_000)
    created = world.send(ann, action="create_tournament", preset=preset, entry=ENTRY,
                         bots=True, name=name)
    assert created["type"] == "ack"
    return ann, bob, str(created["tournament_id"])


def play_to_the_end(world: World, tid: str, table_id: str, ann: str, bob: str) -> None:
    """Play the running Sit & Go at *table_id* out: the humans move all in (or check) at every
    turn, the BOTs and the clock do the rest; then whatever is still parked (the payout
    timer, the next level) runs out."""
    store = tournaments(world)
    steps = 0
    while store.load(tid).status is TournamentStatus.RUNNING:
        table = world.load(table_id)
        hand = table.state.hand
        seat = None if hand is None or hand.complete else hand.actor
        player = None if seat is None else table.state.seats[seat]
        if player is not None and player.player_id in HUMANS and not player.sitting_out:
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


def ledger_audit(world: World) -> Audit:
    """The ledger audit of ``naiko_service.ledger`` over the world's accounts, ledger, tables
    and tournaments."""
    return audit_dynamodb(boto3.client("dynamodb", region_name=REGION),
                          world.names["AccountsTable"], world.names["LedgerTable"],
                          world.names["TablesTable"], Sealer(bytes(range(32))),
                          world.names["TournamentsTable"])
