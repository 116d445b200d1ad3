"""Issue 15 (cost): table items no longer carry ``due_tokens``, so their ``due-index`` entry is
keys only (``timer``, ``due_ms``, ``table_id``) and DynamoDB writes it only when the earliest
deadline or the shard changes, not with every turn (``docs/storage.md``, "Indexes"). Items
written before, which still carry ``due_tokens``, are still found and woken by the sweep. On
moto, with the tables of ``template.yaml`` (whose ``due-index`` still projects ``due_tokens``:
a deployed GSI's projection cannot change)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws
from naiko.cards import seeded_random
from naiko_service.aws import DynamoAccounts, DynamoConnections, DynamoTableStore
from naiko_service.aws.dynamodb import DUE_INDEX, due_key
from naiko_service.memory import (
    ManualClock,
    MemoryTableStore,
    RecordingGateway,
    RecordingScheduler,
)
from naiko_service.records import Sealer, TableRecord, TableSettings, Timer, TimerKind
from naiko_service.usecases import Deps, TableService, arming, timers
from naiko_testing import table
from service_testing import ACCEPTED, Harness

KEY = bytes(range(32))
START_MS = 1_000_000


class Moto:
    def __init__(self, client: Any, names: dict[str, str]):
        self.client, self.names = client, names
        self.store = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                      Sealer(KEY))
        self.gateway, self.scheduler = RecordingGateway(), RecordingScheduler()
        self.clock = ManualClock(START_MS)
        accounts = DynamoAccounts(client, names["AccountsTable"])
        connections = DynamoConnections(client, names["ConnectionsTable"],
                                        clock=lambda: START_MS / 1000)
        self.deps = Deps(tables=self.store, accounts=accounts, connections=connections,
                         gateway=self.gateway, scheduler=self.scheduler, clock=self.clock,
                         rng=seeded_random(5))
        self.harness = Harness(TableService(self.deps), self.store,  # type: ignore[arg-type]
                               accounts, self.gateway, self.scheduler,  # type: ignore[arg-type]
                               self.clock, connections)  # type: ignore[arg-type]

    def entry(self, table_id: str) -> dict[str, Any] | None:
        """The table's ``due-index`` entry, as a Query on its shard returns it (every
        attribute the index holds for it)."""
        items = self.client.query(
            TableName=self.names["TablesTable"], IndexName=DUE_INDEX,
            KeyConditionExpression="#timer = :key",
            ExpressionAttributeNames={"#timer": "timer"},
            ExpressionAttributeValues={":key": {"S": due_key(table_id, self.store.due_shards)}},
        )["Items"]
        found: list[dict[str, Any]] = [i for i in items if i["table_id"]["S"] == table_id]
        assert len(found) <= 1
        return found[0] if found else None

    def raw(self, table_id: str) -> dict[str, Any]:
        item: dict[str, Any] = self.client.get_item(
            TableName=self.names["TablesTable"], Key={"table_id": {"S": table_id}},
            ConsistentRead=True)["Item"]
        return item


@pytest.fixture
def moto() -> Iterator[Moto]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        yield Moto(client, create_tables_from_template(client))


@pytest.mark.parametrize("adapter", ["dynamodb", "memory"])
def test_due_tables_gives_each_due_table_once_oldest_deadline_first_up_to_the_limit(
        moto: Moto, adapter: str) -> None:
    store = moto.store if adapter == "dynamodb" else MemoryTableStore(Sealer(KEY))
    settings = TableSettings(name="t", host="p0", min_buy_in=40, max_buy_in=200)
    deadlines = {"a": (5_000, 6_000), "b": (3_000,), "c": (4_000, 4_500, 9_000),
                 "d": (20_000,), "e": ()}
    for table_id, due in deadlines.items():
        store.create(TableRecord(table_id, 1, settings, table([200, 200, None]), 0,
                                 timers=[Timer(f"window:{n}", TimerKind.WINDOW, ms)
                                         for n, ms in enumerate(due)]))
    assert store.due_tables(2_999) == []
    assert store.due_tables(5_000) == ["b", "c", "a"]
    assert store.due_tables(10_000) == ["b", "c", "a"]  # c and a once, with timers due twice
    assert store.due_tables(10_000, limit=2) == ["b", "c"]
    assert store.due_tables(10_000, limit=0) == []
    assert store.due_tables(30_000) == ["b", "c", "a", "d"]


def test_the_due_index_entry_of_a_table_is_keys_only(moto: Moto) -> None:
    record = TableRecord("t1", 1, TableSettings(name="t1", host="p0", min_buy_in=40,
                                                 max_buy_in=200),
                         table([200, 200, None]), 0,
                         timers=[Timer("next_hand:1", TimerKind.NEXT_HAND, 9_000),
                                 Timer("window:1", TimerKind.WINDOW, 7_000)])
    moto.store.create(record)
    assert "due_tokens" not in moto.raw("t1")
    assert moto.entry("t1") == {"table_id": {"S": "t1"}, "timer": {"S": "due#7"},
                                "due_ms": {"N": "7000"}}


def test_a_write_that_keeps_the_earliest_deadline_leaves_the_due_index_entry_untouched(
        moto: Moto) -> None:
    """Two actions, each a table write that moves the decision timer to the next player, under
    the same armed wake-up: the entry (and so DynamoDB's index write) stays the same."""
    h = moto.harness
    alice, bob, carol = h.player("alice"), h.player("bob"), h.player("carol")
    table_id = alice.send(action="create_table", name="Keys", small_blind=1, big_blind=2,
                          min_buy_in=40, max_buy_in=200)["table_id"]
    for p in (alice, bob, carol):
        assert p.send(action="join_table", table_id=table_id, buy_in=100)["type"] in ACCEPTED
    players = {"alice": alice, "bob": bob, "carol": carol}
    before = moto.entry(table_id)
    record = moto.store.load(table_id)
    assert before is not None and record.state.hand is not None
    deciding = [t.token for t in record.timers if t.kind is TimerKind.DECISION]
    for _ in range(2):
        moto.clock.advance(1_000)  # each next clock ends later than the armed wake-up
        view = alice.last_view()
        who = players[view["seats"][view["hand"]["actor"]]["player_id"]]
        move = "check" if "check" in who.last_view()["prompt"]["actions"] else "call"
        assert who.send(action="act", table_id=table_id, move=move)["type"] in ACCEPTED
    after_record = moto.store.load(table_id)
    assert after_record.version == record.version + 2  # both actions were written ...
    assert [t.token for t in after_record.timers
            if t.kind is TimerKind.DECISION] != deciding  # ... with the turn's timer changed
    assert moto.entry(table_id) == before
    assert set(before) == {"table_id", "timer", "due_ms"}


def test_an_old_item_still_carrying_due_tokens_is_found_and_woken_by_the_sweep(
        moto: Moto) -> None:
    """An item written before this change (``due_tokens`` on the item and its index entry):
    the sweep finds it, deals the hand its lost wake-up should have dealt, and the rewrite
    drops ``due_tokens``."""
    due_ms = START_MS - 90_000
    settings = TableSettings(name="old", host="p0", min_buy_in=40, max_buy_in=200,
                             decision_ms=600_000)
    lost = TableRecord("old", 1, settings, table([200] * 3), due_ms - 60_000,
                       timers=[Timer("next_hand:1", TimerKind.NEXT_HAND, due_ms),
                               Timer(arming.WAKE_PREFIX + "next_hand:1", TimerKind.WAKE, due_ms)])
    item = moto.store.to_item(lost)
    item["due_tokens"] = {"S": json.dumps([[t.token, t.due_ms] for t in lost.timers],
                                          separators=(",", ":"))}  # as written before
    moto.client.put_item(TableName=moto.names["TablesTable"], Item=item)
    entry = moto.entry("old")
    assert entry is not None and "due_tokens" in entry
    assert moto.store.due_tables(START_MS) == ["old"]
    assert moto.store.load("old").state.hand is None

    assert timers.sweep(moto.deps) >= 1
    woken = moto.store.load("old")
    assert woken.version == 2 and woken.state.hand is not None
    assert "due_tokens" not in moto.raw("old")
    new_entry = moto.entry("old")
    assert new_entry is not None and set(new_entry) == {"table_id", "timer", "due_ms"}
    assert moto.store.due_tables(START_MS) == []
