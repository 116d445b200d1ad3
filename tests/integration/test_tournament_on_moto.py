"""A Sit & Go played to the end on moto: frames through the real handlers, tables and
tournaments in DynamoDB (``TournamentsTable`` from ``template.yaml``), every timer a real
execution of the template's state machines (waits made instant in virtual time, see
``test_timers_on_moto.py``), prizes paid to the accounts with their ledger entries."""

from __future__ import annotations

import boto3
from aws_testing import REGION
from naiko_service.tournament_records import TournamentStatus
from sit_and_go_on_moto_testing import (
    ENTRY,
    created_sit_and_go,
    grant,
    ledger_audit,
    play_to_the_end,
    tournaments,
)
from test_timers_on_moto import World, assert_named


def test_a_sit_and_go_played_to_the_end_through_the_handlers_and_state_machines(
        world: World) -> None:
    ann, bob, tid = created_sit_and_go(world, "sng_6max_turbo", "moto sng")
    listed = world.send(bob, action="list_tournaments")
    assert [t["tournament_id"] for t in listed["tournaments"]] == [tid]
    assert listed["tournaments"][0]["terms"]["structure"]["levels"][0]["big_blind"] == 20
    for connection in (ann, bob):
        assert world.send(connection, action="register", tournament_id=tid)["type"] == "ack"
    assert world.balance("ann") == 900
    assert world.send(ann, action="tournament_add_bots", tournament_id=tid)["type"] == "ack"
    store = tournaments(world)
    record = store.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.entrants == 6
    table_id = record.tables[0]
    assert world.events(ann, "tournament_started")[0]["payouts"] == [390, 210]
    # Play: the humans move all in at every turn; the BOTs and the clock do the rest.
    play_to_the_end(world, tid, table_id, ann, bob)
    record = store.load(tid)
    assert record.status is TournamentStatus.FINISHED and record.players_left == 1
    assert not record.timers and record.pool_held == 0
    results = {data["player_id"]: (data["place"], data["prize"])
               for _, data in store.items(tid, "result#")}
    assert sorted(place for place, _ in results.values()) == [1, 2, 3, 4, 5, 6]
    assert sorted(prize for _, prize in results.values()) == [0, 0, 0, 0, 210, 390]
    paid = {data["player_id"]: data["prize"] for _, data in store.items(tid, "paid#")}
    assert paid == {p: prize for p, (_, prize) in results.items() if prize}
    for human in ("ann", "bob"):
        assert world.balance(human) == 900 + results[human][1]
    log = [data for _, data in store.items(tid, "log#")]
    kinds = [entry["type"] for entry in log]
    assert kinds[:2] == ["started", "prizes_final"] and kinds[-1] == "finished"
    assert kinds.count("eliminated") == 5 and "hand" in kinds
    assert [entry["at_ms"] for entry in log] == sorted(entry["at_ms"] for entry in log)
    executions = world.executions()
    assert_named(executions)
    by_target = {e["input"]["table_id"] for e in executions}
    assert {table_id, "T:" + tid} <= by_target  # the table's wake-ups and the tournament's
    level = [e for e in executions if e["input"]["kind"] == "level"]
    assert level and all(e["type"] == "STANDARD" for e in level)  # a 5-minute wait
    audit = ledger_audit(world)
    assert audit.holds, audit.line()


def test_a_tournament_timer_is_written_to_its_due_index_shard_and_found_there_and_unsharded(
        world: World) -> None:
    """Issue 15, item 2, for tournaments too: a tournament's ``due-index`` key is sharded like
    a table's (one key for every tournament would be one hot partition), every shard is read,
    and an item written before the sharding (plain ``due``) is still found."""
    from naiko_service.aws.dynamodb import due_key
    from naiko_service.records import Timer, TimerKind

    ann = world.connect("ann")
    grant(world, "ann", 1_000)
    created = world.send(ann, action="create_tournament", preset="sng_6max_turbo",
                         entry=ENTRY, name="shards")
    tid = str(created["tournament_id"])
    store = tournaments(world)
    record = store.load(tid)
    record.timers = [Timer("level:2", TimerKind.LEVEL, 5_000)]
    item = store.to_item(record)
    shards = world.store.due_shards
    assert item["timer"] == {"S": due_key(tid, shards)} and shards > 1
    client = boto3.client("dynamodb", region_name=REGION)
    client.put_item(TableName=world.names["TournamentsTable"], Item=item)
    assert store.due(4_999) == [] and store.due(5_000) == [(tid, "level:2")]
    client.put_item(TableName=world.names["TournamentsTable"],
                    Item={**item, "timer": {"S": "due"}})  # as written before the sharding
    assert store.due(5_000) == [(tid, "level:2")]
