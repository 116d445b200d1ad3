"""Issue 23 item 1: a tournament is two items on DynamoDB (moto, ``TournamentsTable`` from
``template.yaml``), the ``tournament`` item (the terms part: terms, status, level, prizes,
timers, the lobby's summary, on both indexes) and the ``field`` item (the field part: players
left, the seating, the players out during late registration, the log's count; and the version
every write checks). A change of the field alone (a hand's end that eliminates or moves a
player, R9.5, R9.7) writes the field item only; a change of the terms part writes both; a write
from an older version fails and changes nothing; a tournament stored before the field item
existed still reads, and its next write splits it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws
from naiko.state import Variant
from naiko_local.tournament import terms_for
from naiko_service.aws.dynamodb import DynamoTableStore
from naiko_service.aws.tournaments import DynamoTournamentStore, packed
from naiko_service.ports import ConcurrentUpdate, PutTournament
from naiko_service.records import Sealer, Timer, TimerKind
from naiko_service.tournament_records import Seating, TournamentRecord, TournamentStatus

TID = "mtt-field"


@pytest.fixture
def moto() -> Iterator[tuple[Any, DynamoTournamentStore, str]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(client)
        tables = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                  Sealer(bytes(32)))
        yield client, DynamoTournamentStore(client, names["TournamentsTable"], tables), \
            names["TournamentsTable"]


def running() -> TournamentRecord:
    terms = terms_for("mtt", Variant.NLHE, 100, 30)
    record = TournamentRecord(TID, 1, "field", terms, 1, "ops",
                              status=TournamentStatus.RUNNING, starts_ms=2, started_ms=3,
                              entrants=30, players_left=30, payouts=[1_800, 1_200])
    record.seating = Seating(counts={1: 10, 2: 10, 3: 10},
                             table_ids={n: f"{TID}-{n}" for n in (1, 2, 3)}, next_number=4)
    record.tables = [f"{TID}-{n}" for n in (1, 2, 3)]
    record.timers = [Timer("level:2", TimerKind.LEVEL, 10_000)]
    return record


def stored(client: Any, table: str, key: str) -> dict[str, Any] | None:
    item: dict[str, Any] | None = client.get_item(
        TableName=table, ConsistentRead=True,
        Key={"tournament_id": {"S": TID}, "item": {"S": key}}).get("Item")
    return item


def versions(client: Any, table: str) -> tuple[int, int]:
    terms, play = stored(client, table, "tournament"), stored(client, table, "field")
    assert terms is not None and play is not None
    return int(terms["version"]["N"]), int(play["version"]["N"])


def next_version(record: TournamentRecord) -> TournamentRecord:
    new = record.copy()
    new.version += 1
    return new


def test_issue_23_an_elimination_writes_the_field_item_not_the_tournament_item(
        moto: tuple[Any, DynamoTournamentStore, str]) -> None:
    client, store, table = moto
    store.commit((PutTournament(running(), None),))
    assert versions(client, table) == (1, 1)
    loaded = store.load(TID)
    new = next_version(loaded)
    new.players_left -= 1  # R9.5: a player out at table 2
    assert new.seating is not None
    new.seating.counts[2] -= 1
    store.commit((PutTournament(new, loaded.version),))
    assert versions(client, table) == (1, 2)  # the tournament item untouched
    back = store.load(TID)
    assert back.version == 2 and back.to_document() == new.to_document()
    # a level recorded: the terms part changed, both items written
    later = next_version(back)
    later.level = 2
    later.timers = [Timer("level:3", TimerKind.LEVEL, 20_000)]
    store.commit((PutTournament(later, back.version),))
    assert versions(client, table) == (3, 3)
    assert store.load(TID).to_document() == later.to_document()
    assert store.due(20_000) == [(TID, "level:3")]


def test_issue_23_a_write_from_an_older_version_fails_whichever_part_it_changes(
        moto: tuple[Any, DynamoTournamentStore, str]) -> None:
    client, store, table = moto
    store.commit((PutTournament(running(), None),))
    first, second = store.load(TID), store.load(TID)
    winner = next_version(first)
    winner.players_left -= 1
    store.commit((PutTournament(winner, first.version),))
    for change in ("players_left", "level"):
        loser = next_version(second)
        setattr(loser, change, 7)
        with pytest.raises(ConcurrentUpdate):
            store.commit((PutTournament(loser, second.version),))
    assert versions(client, table) == (1, 2)
    assert store.load(TID).to_document() == winner.to_document()


def test_issue_23_a_tournament_stored_before_the_field_item_reads_and_is_split_on_its_write(
        moto: tuple[Any, DynamoTournamentStore, str]) -> None:
    client, store, table = moto
    old = running()
    item = store.to_item(old)
    item["doc"] = packed(old.to_document())  # the one item of the layout before
    client.put_item(TableName=table, Item=item)
    first, second = store.load(TID), store.load(TID)
    assert first.to_document() == old.to_document() and first.stored_terms is None
    new = next_version(first)
    new.players_left -= 1
    store.commit((PutTournament(new, first.version),))
    assert versions(client, table) == (2, 2)
    assert store.load(TID).to_document() == new.to_document()
    stale = next_version(second)  # read from the old layout too: its write fails
    stale.players_left -= 2
    with pytest.raises(ConcurrentUpdate):
        store.commit((PutTournament(stale, second.version),))
    assert store.load(TID).players_left == 29
