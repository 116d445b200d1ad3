"""Issue 15, item 2: the tables' ``due-index`` is sharded (``timer = "due#<k>"``, k = CRC-32 of
the table id modulo N), read shard by shard in parallel, and readers keep finding every item
while N changes (``docs/storage.md``, "Sharding the due-index"). On moto, with the tables of
``template.yaml``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws
from naiko_service.aws.dynamodb import (
    DUE_SHARDS,
    DynamoTableStore,
    due_key,
    due_read_keys,
    due_shard,
)
from naiko_service.records import Sealer, TableRecord, TableSettings, Timer, TimerKind
from naiko_testing import table

KEY = bytes(range(32))


class Moto:
    def __init__(self, client: Any, names: dict[str, str]):
        self.client, self.names = client, names
        self.queries: list[dict[str, Any]] = []

        def record(params: dict[str, Any], **_: Any) -> None:
            self.queries.append(dict(params))

        client.meta.events.register("before-parameter-build.dynamodb.Query", record)

    def store(self, shards: int = DUE_SHARDS, previous: int = 0) -> DynamoTableStore:
        return DynamoTableStore(self.client, self.names["TablesTable"],
                                self.names["AccountsTable"], Sealer(KEY), due_shards=shards,
                                due_previous_shards=previous)

    def timer_of(self, table_id: str) -> str:
        item = self.client.get_item(TableName=self.names["TablesTable"],
                                    Key={"table_id": {"S": table_id}})["Item"]
        return str(item["timer"]["S"])


@pytest.fixture
def moto() -> Iterator[Moto]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        yield Moto(client, create_tables_from_template(client))


def record(table_id: str, due_ms: int) -> TableRecord:
    settings = TableSettings(name=table_id, host="p0", min_buy_in=40, max_buy_in=200)
    return TableRecord(table_id, 1, settings, table([200, 200, None]), 0,
                       timers=[Timer("next_hand:1", TimerKind.NEXT_HAND, due_ms)])


def test_shards_are_stable_and_spread() -> None:
    ids = [f"table-{i}" for i in range(10_000)]
    counts = Counter(due_shard(t, 16) for t in ids)
    assert set(counts) == set(range(16))
    assert max(counts.values()) < 1.1 * 10_000 / 16  # within 10% of an even spread
    assert due_shard("t1", 16) == 7 and due_key("t1", 16) == "due#7"  # CRC-32, not hash()
    with pytest.raises(ValueError):
        due_shard("t1", 0)


def test_tables_are_written_to_their_shard_and_read_from_every_shard_in_parallel(
        moto: Moto) -> None:
    store = moto.store()
    ids = [f"t{i:03d}" for i in range(64)]
    for n, table_id in enumerate(ids):
        store.create(record(table_id, 1_000 + n))
    assert {moto.timer_of(t) for t in ids} == {f"due#{k}" for k in range(DUE_SHARDS)}
    assert all(moto.timer_of(t) == due_key(t, DUE_SHARDS) for t in ids)
    moto.queries.clear()
    due = store.due_tables(10_000, limit=1_000)
    assert due == ids  # oldest deadline first, across shards
    assert sorted(q["ExpressionAttributeValues"][":due"]["S"] for q in moto.queries) \
        == sorted(due_read_keys(DUE_SHARDS))
    assert {q["IndexName"] for q in moto.queries} == {"due-index"}
    assert store.due_tables(1_010, limit=3) == ids[:3]


def test_items_of_the_unsharded_index_are_still_found(moto: Moto) -> None:
    legacy = moto.store().to_item(record("old", 500))
    legacy["timer"] = {"S": "due"}  # written by the code before the sharding
    moto.client.put_item(TableName=moto.names["TablesTable"], Item=legacy)
    moto.store().create(record("new", 700))
    assert moto.store().due_tables(1_000) == ["old", "new"]


def test_readers_find_every_table_while_the_shard_count_changes(moto: Moto) -> None:
    ids = [f"t{i:03d}" for i in range(48)]
    for table_id in ids:
        moto.store(shards=32).create(record(table_id, 100))
    assert any(due_shard(t, 32) >= 8 for t in ids)
    # Shrinking 32 -> 8: readers told the previous count find all of them ...
    assert len(moto.store(shards=8, previous=32).due_tables(1_000, limit=1_000)) == 48
    # ... a reader that forgot it would miss the tables in shards 8..31.
    missed = {t for t in ids if due_shard(t, 32) >= 8}
    found = set(moto.store(shards=8).due_tables(1_000, limit=1_000))
    assert found == set(ids) - missed and missed
    # Growing 8 -> 32 needs nothing: shards 0..7 are among 0..31.
    for table_id in ids[:10]:
        moto.store(shards=8).create(record(f"g{table_id}", 100))
    assert len(moto.store(shards=32).due_tables(1_000, limit=1_000)) == 58


def test_the_environment_sets_the_shards_and_the_sweep_workers() -> None:
    from naiko_service.bootstrap import Config, ConfigurationError

    base = {"TABLES_TABLE": "t", "ACCOUNTS_TABLE": "a", "LEDGER_TABLE": "l",
            "CONNECTIONS_TABLE": "c", "STATE_KEY": "x"}
    config = Config.from_env(base)
    assert (config.due_index_shards, config.due_index_previous_shards,
            config.sweep_workers) == (DUE_SHARDS, 0, 32)
    config = Config.from_env({**base, "DUE_INDEX_SHARDS": "32",
                              "DUE_INDEX_PREVIOUS_SHARDS": "16", "SWEEP_WORKERS": "8"})
    assert (config.due_index_shards, config.due_index_previous_shards,
            config.sweep_workers) == (32, 16, 8)
    for bad in ({"DUE_INDEX_SHARDS": "0"}, {"SWEEP_WORKERS": "0"},
                {"DUE_INDEX_PREVIOUS_SHARDS": "-1"}, {"DUE_INDEX_SHARDS": "many"}):
        with pytest.raises(ConfigurationError):
            Config.from_env({**base, **bad})
