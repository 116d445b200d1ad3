"""The DynamoDB adapters against moto, on tables created from ``template.yaml``: the item layout,
version-conditioned writes, the buy-in/cash-out transaction, the lobby and timer indexes, the
item size of a 9-seat table mid-hand, and a whole hand through the service on these adapters."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template, load_template
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb.models import DynamoDBBackend
from naiko.cards import seeded_random, shuffled_deck
from naiko.commands import Call, Check, Command, Fold, RaiseTo, SitDown, StandUp, StartHand
from naiko.engine import apply, legal_actions
from naiko.state import TableConfig, TableState, Variant
from naiko_service.aws import DynamoAccounts, DynamoConnections, DynamoTableStore
from naiko_service.memory import ManualClock, RecordingGateway, RecordingScheduler
from naiko_service.ports import AccountMove, ConcurrentUpdate, InsufficientFunds, TableNotFound
from naiko_service.records import (
    RECENT_REQUESTS_KEPT,
    Sealer,
    TableKind,
    TableRecord,
    TableSettings,
    Timer,
    TimerKind,
)
from naiko_service.usecases import Deps, TableService
from naiko_testing import play, start, table
from service_testing import ACCEPTED, Harness

KEY = bytes(range(32))
ITEM_SIZE_GOAL = 4 * 1024
"""A table item should stay within 4 KB: one write costs ceil(size / 1 KB) WCUs, a consistent
read ceil(size / 4 KB) RCUs (docs/storage.md)."""


@dataclass
class Aws:
    client: Any
    names: dict[str, str]
    store: DynamoTableStore
    accounts: DynamoAccounts
    connections: DynamoConnections
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(operation, parameters) of every DynamoDB call the adapters made."""

    def raw(self, table_id: str) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self.client.get_item(
            TableName=self.names["TablesTable"], Key={"table_id": {"S": table_id}},
            ConsistentRead=True).get("Item")
        return item

    def operations(self) -> list[str]:
        return [name for name, _ in self.calls]


@pytest.fixture
def aws() -> Iterator[Aws]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(client)
        env = Aws(client, names,
                  DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                   Sealer(KEY)),
                  DynamoAccounts(client, names["AccountsTable"]),
                  DynamoConnections(client, names["ConnectionsTable"], clock=lambda: 1_000.0))

        def record_call(params: dict[str, Any], model: Any, **_: Any) -> None:
            env.calls.append((model.name, dict(params)))

        client.meta.events.register("before-parameter-build.dynamodb", record_call)
        yield env


def record(table_id: str = "t1", *, seats: int = 6, seated: int = 2, created_ms: int = 1_000,
           private: bool = False, timers: tuple[Timer, ...] = ()) -> TableRecord:
    """A small NLHE table, *seated* players (p0, p1, ...) with 200 each, no hand yet."""
    state = table([200] * seated + [None] * (seats - seated))
    settings = TableSettings(name=f"table {table_id}", host="p0", min_buy_in=40,
                             max_buy_in=200,
                             kind=TableKind.PRIVATE if private else TableKind.CASH)
    return TableRecord(table_id, 1, settings, state, created_ms, timers=list(timers))


def bumped(rec: TableRecord) -> TableRecord:
    new = rec.copy()
    new.version = rec.version + 1
    return new


def sit(rec: TableRecord, seat_index: int, player_id: str, stack: int) -> TableRecord:
    """The next version of *rec* with *player_id* seated (what a join writes)."""
    new = bumped(rec)
    new.state, _ = apply(new.state, SitDown(seat_index=seat_index, player_id=player_id,
                                            stack=stack))
    return new


def nine_seat_mid_hand(variant: Variant = Variant.NLHE, *, seed: int = 7,
                       to_river: bool = False) -> TableRecord:
    """A realistic 9-seat table mid-hand: UUID player ids, API Gateway connection ids, a
    shuffled deck, the last 16 request ids, a decision timer; preflop after a few actions
    (or, with *to_river*, the river after a round of calls on every street)."""
    rng = random.Random(seed)
    config = TableConfig(variant=variant, seat_count=9, small_blind=50, big_blind=100)
    state = TableState.new(config)
    players = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(9)]
    for seat_index, player in enumerate(players):
        state, _ = apply(state, SitDown(seat_index=seat_index, player_id=player,
                                        stack=10_000 + 1_237 * seat_index))
    carousel = ("peek", "short_anchor", "seal_shield") if config.rules.powers else ()
    state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=0,
                                      carousel=carousel))
    # Preflop: 3 calls, 4 folds, 5 raises to 300, 6 folds, 7 calls.
    state, _ = apply(state, Call(seat_index=3))
    state, _ = apply(state, Fold(seat_index=4))
    state, _ = apply(state, RaiseTo(seat_index=5, amount=300))
    state, _ = apply(state, Fold(seat_index=6))
    state, _ = apply(state, Call(seat_index=7))
    if to_river:
        for _ in range(40):
            prompt = legal_actions(state)
            if prompt is None or state.hand is None or state.hand.street == 3:
                break
            move: Command = (Call(seat_index=prompt.seat_index) if "call" in prompt.actions
                             else Check(seat_index=prompt.seat_index))
            state, _ = apply(state, move)
    settings = TableSettings(name="Friday night 50/100", host=players[0], min_buy_in=4_000,
                             max_buy_in=20_000)
    rec = TableRecord("t" + uuid.UUID(int=rng.getrandbits(128)).hex[:20], 42, settings, state,
                      created_ms=1_700_000_000_000)
    rec.connections = {p: f"{uuid.UUID(int=rng.getrandbits(128)).hex[:15]}=" for p in players}
    for n in range(RECENT_REQUESTS_KEPT):
        rec.remember_request(str(uuid.UUID(int=rng.getrandbits(128), version=4)), 26 + n)
    prompt = legal_actions(state)
    assert prompt is not None
    rec.timers = [Timer("decision:1.5", TimerKind.DECISION, 1_700_000_020_000, prompt.seat_index)]
    return rec


# -- the template ---------------------------------------------------------------------------


def test_tables_are_created_from_the_template_keys_indexes_and_ttl(aws: Aws) -> None:
    template = load_template()["Resources"]
    assert aws.names == {"TablesTable": "naiko-test-tables",
                         "AccountsTable": "naiko-test-accounts",
                         "LedgerTable": "naiko-test-ledger",
                         "TournamentsTable": "naiko-test-tournaments",
                         "HandHistoryTable": "naiko-test-hands",
                         "ConnectionsTable": "naiko-test-connections",
                         "WatchersTable": "naiko-test-watchers"}
    hands = aws.client.describe_table(TableName=aws.names["HandHistoryTable"])["Table"]
    assert hands["KeySchema"] == template["HandHistoryTable"]["Properties"]["KeySchema"]
    ledger = aws.client.describe_table(TableName=aws.names["LedgerTable"])["Table"]
    assert ledger["KeySchema"] == template["LedgerTable"]["Properties"]["KeySchema"]
    tables = aws.client.describe_table(TableName=aws.names["TablesTable"])["Table"]
    assert tables["KeySchema"] == template["TablesTable"]["Properties"]["KeySchema"]
    indexes = {i["IndexName"]: i for i in tables["GlobalSecondaryIndexes"]}
    assert set(indexes) == {"lobby-index", "due-index", "stakes-index", "code-index"}
    assert [k["AttributeName"] for k in indexes["stakes-index"]["KeySchema"]] \
        == ["stakes", "seated"]
    assert indexes["lobby-index"]["Projection"]["NonKeyAttributes"] == ["summary"]
    assert [k["AttributeName"] for k in indexes["due-index"]["KeySchema"]] == ["timer", "due_ms"]
    ttl = aws.client.describe_time_to_live(TableName=aws.names["ConnectionsTable"])
    assert ttl["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED",
                                            "AttributeName": "expires_at"}


# -- load / create / the item ----------------------------------------------------------------


def test_load_of_an_unknown_table_raises_table_not_found(aws: Aws) -> None:
    with pytest.raises(TableNotFound):
        aws.store.load("nope")


def test_create_then_load_round_trips_with_one_consistent_get(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.calls.clear()
    loaded = aws.store.load("t1")
    assert loaded.version == 1
    assert loaded.to_document() == rec.to_document()
    assert aws.operations() == ["GetItem"]
    assert aws.calls[0][1]["ConsistentRead"] is True


def test_create_of_an_existing_id_raises_concurrent_update_and_keeps_the_first(aws: Aws) -> None:
    aws.store.create(record())
    before = aws.raw("t1")
    other = record(seated=3)
    with pytest.raises(ConcurrentUpdate) as caught:
        aws.store.create(other)
    assert isinstance(caught.value.__cause__, ClientError)
    assert aws.raw("t1") == before


def test_item_layout_seals_the_document_and_keeps_only_index_keys_in_clear(aws: Aws) -> None:
    timers = (Timer("next_hand:3", TimerKind.NEXT_HAND, 9_000),
              Timer("window:2", TimerKind.WINDOW, 7_000))
    rec = record(timers=timers)
    aws.store.create(rec)
    item = aws.raw("t1")
    assert item is not None
    assert set(item) == {"table_id", "version", "blob", "created_ms", "lobby", "summary",
                         "stakes", "seated", "timer", "due_ms"}
    assert item["stakes"] == {"S": "NLHE:1/2"} and item["seated"] == {"N": "2"}
    assert item["version"] == {"N": "1"} and item["created_ms"] == {"N": "1000"}
    assert item["lobby"] == {"S": "open"}
    assert json.loads(item["summary"]["S"]) == rec.summary().to_dict()
    assert item["timer"] == {"S": "due#7"} and item["due_ms"] == {"N": "7000"}  # crc32("t1") % 16
    blob = item["blob"]["B"]
    assert b"p0" not in blob and b"table t1" not in blob
    assert Sealer(KEY).open(blob, "t1") == rec.to_document()


def test_unlisted_tables_and_tables_without_timers_leave_the_sparse_attributes_out(
        aws: Aws) -> None:
    aws.store.create(record("private", private=True))
    aws.store.create(record("full", seats=2, seated=2))
    for table_id in ("private", "full"):
        item = aws.raw(table_id)
        assert item is not None
        assert set(item) == {"table_id", "version", "blob", "created_ms"}


def test_round_trip_of_a_table_mid_hand_and_the_hand_goes_on_identically(aws: Aws) -> None:
    rec = record(seats=6, seated=4)
    rec.state, _ = start(rec.state, {0: "AsKs", 1: "QhQd"}, board="2c7d9hTs3c", button=0)
    rec.state, _ = play(rec.state, "3 c", "0 r 8", "1 c", "2 f")
    aws.store.create(rec)
    loaded = aws.store.load("t1")
    assert loaded.to_document() == rec.to_document()
    assert legal_actions(loaded.state) == legal_actions(rec.state)
    after_original, events_original = play(rec.state, "3 c", "1 x", "3 b 10")
    after_loaded, events_loaded = play(loaded.state, "3 c", "1 x", "3 b 10")
    assert after_loaded.to_dict() == after_original.to_dict()
    assert events_loaded == events_original


# -- save: the version condition -------------------------------------------------------------


def test_save_with_the_version_read_writes_the_next_version_with_one_put(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    new = sit(rec, 2, "p2", 150)
    aws.calls.clear()
    aws.store.save(new, expected_version=1)
    assert aws.operations() == ["PutItem"]
    loaded = aws.store.load("t1")
    assert loaded.version == 2
    assert loaded.to_document() == new.to_document()


def test_save_with_a_stale_version_raises_concurrent_update_and_changes_nothing(
        aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.store.save(sit(rec, 2, "p2", 150), expected_version=1)
    before = aws.raw("t1")
    loser = sit(rec, 3, "p3", 150)  # computed from version 1, which is gone
    with pytest.raises(ConcurrentUpdate) as caught:
        aws.store.save(loser, expected_version=1)
    assert isinstance(caught.value.__cause__, ClientError)
    assert aws.raw("t1") == before


def test_save_of_a_table_that_does_not_exist_raises_concurrent_update(aws: Aws) -> None:
    with pytest.raises(ConcurrentUpdate):
        aws.store.save(bumped(record()), expected_version=1)
    assert aws.raw("t1") is None


# -- save with account moves: one transaction --------------------------------------------------


def test_buy_in_moves_chips_from_the_account_in_one_transaction(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.accounts.grant("p2", 1_000)
    aws.calls.clear()
    aws.store.save(sit(rec, 2, "p2", 400), 1, (AccountMove("p2", 400, "t1"),))
    assert aws.operations() == ["TransactWriteItems"]
    items = aws.calls[0][1]["TransactItems"]
    assert [next(iter(i)) for i in items] == ["Put", "Update"]
    assert aws.accounts.balance("p2") == 600
    assert aws.store.load("t1").version == 2


def test_buy_in_the_account_cannot_cover_raises_and_changes_neither_table_nor_account(
        aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.accounts.grant("p2", 100)
    before = aws.raw("t1")
    with pytest.raises(InsufficientFunds) as caught:
        aws.store.save(sit(rec, 2, "p2", 400), 1, (AccountMove("p2", 400, "t1"),))
    assert str(caught.value) == "p2"
    assert isinstance(caught.value.__cause__, ClientError)
    assert aws.raw("t1") == before
    assert aws.accounts.balance("p2") == 100


def test_buy_in_without_an_account_raises_insufficient_funds(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    with pytest.raises(InsufficientFunds):
        aws.store.save(sit(rec, 2, "ghost", 40), 1, (AccountMove("ghost", 40, "t1"),))
    assert aws.accounts.balance("ghost") == 0
    assert aws.store.load("t1").version == 1


def test_one_account_short_cancels_every_move_of_the_transaction(aws: Aws) -> None:
    rec = record(seated=0)
    aws.store.create(rec)
    aws.accounts.grant("rich", 1_000)
    aws.accounts.grant("poor", 10)
    new = sit(sit(rec, 0, "rich", 200), 1, "poor", 200)
    new.version = 2
    before = aws.raw("t1")
    with pytest.raises(InsufficientFunds) as caught:
        aws.store.save(new, 1, (AccountMove("rich", 200, "t1"), AccountMove("poor", 200, "t1")))
    assert str(caught.value) == "poor"
    assert aws.accounts.balance("rich") == 1_000  # its update ran, then was rolled back
    assert aws.accounts.balance("poor") == 10
    assert aws.raw("t1") == before


def test_stale_version_with_moves_raises_concurrent_update_not_insufficient_funds(
        aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.store.save(bumped(rec), 1)
    with pytest.raises(ConcurrentUpdate):  # the version is checked first, like in memory
        aws.store.save(sit(rec, 2, "broke", 100), 1, (AccountMove("broke", 100, "t1"),))
    assert aws.accounts.balance("broke") == 0


def test_cash_out_returns_chips_and_creates_the_account(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    assert aws.accounts.balance("p1") == 0
    aws.calls.clear()
    aws.store.save(bumped(rec), 1, (AccountMove("p1", -200, "t1"),))
    assert aws.operations() == ["TransactWriteItems"]
    assert "ConditionExpression" not in aws.calls[0][1]["TransactItems"][1]["Update"]
    assert aws.accounts.balance("p1") == 200


def test_moves_of_one_player_are_netted_into_one_update(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.accounts.grant("p0", 50)
    moves = (AccountMove("p0", -200, "t1"), AccountMove("p0", 120, "t1"),
             AccountMove("p1", 30, "t1"), AccountMove("p1", -30, "t1"))
    aws.calls.clear()
    aws.store.save(bumped(rec), 1, moves)
    items = aws.calls[0][1]["TransactItems"]
    assert len(items) == 2  # p1's moves cancel out; p0 gets 80 back in one update
    assert aws.accounts.balance("p0") == 130


# -- transactions that really fail: moto runs the transaction and rolls it back ------------


def _balances(aws: Aws, *players: str) -> dict[str, int]:
    return {p: aws.accounts.balance(p) for p in players}


@pytest.mark.parametrize(("case", "expected", "reasons"), [
    ("stale version, the account can pay", ConcurrentUpdate, ["ConditionalCheckFailed", "None"]),
    ("stale version, the account cannot pay", ConcurrentUpdate,
     ["ConditionalCheckFailed", "ConditionalCheckFailed"]),
    ("stale version, a cash-out", ConcurrentUpdate, ["ConditionalCheckFailed", "None"]),
    ("the account cannot pay", InsufficientFunds, ["None", "ConditionalCheckFailed"]),
    ("a cash-out, then a buy-in the account cannot pay", InsufficientFunds,
     ["None", "None", "ConditionalCheckFailed"]),
])
def test_a_transaction_that_really_fails_leaves_every_stored_item_as_it_was(
        aws: Aws, case: str, expected: type[Exception], reasons: list[str]) -> None:
    """No patch: the version condition or an account condition really fails inside moto's
    TransactWriteItems, after the items before it were applied; the stored table item and
    every balance are read back."""
    rec = record()
    aws.store.create(rec)
    aws.accounts.grant("p2", 1_000)
    aws.accounts.grant("poor", 10)
    if case.startswith("stale version"):
        aws.store.save(sit(rec, 5, "p5", 100), 1)  # another writer commits version 2 first
    before = aws.raw("t1")
    balances = _balances(aws, "p0", "p1", "p2", "poor")
    new = sit(rec, 2, "p2", 400)
    moves = [AccountMove("p2", 400, "t1")]
    if case == "stale version, the account cannot pay":
        new, moves = sit(rec, 2, "poor", 400), [AccountMove("poor", 400, "t1")]
    elif case == "stale version, a cash-out":
        new, moves = bumped(rec), [AccountMove("p1", -200, "t1")]
    elif case == "the account cannot pay":
        new, moves = sit(rec, 2, "poor", 400), [AccountMove("poor", 400, "t1")]
    elif case == "a cash-out, then a buy-in the account cannot pay":
        new, moves = sit(rec, 2, "poor", 400), [AccountMove("p1", -200, "t1"),
                                                AccountMove("poor", 400, "t1")]
    aws.calls.clear()
    with pytest.raises(expected) as caught:
        aws.store.save(new, 1, tuple(moves))
    assert aws.operations() == ["TransactWriteItems"]  # one real call, nothing patched
    cause = caught.value.__cause__
    assert isinstance(cause, ClientError)
    assert [r["Code"] for r in cause.response["CancellationReasons"]] == reasons
    assert aws.raw("t1") == before
    assert _balances(aws, "p0", "p1", "p2", "poor") == balances


class ThrottlingError(Exception):
    """Raised inside moto's transaction after the table put was applied."""


def test_a_transaction_failing_after_the_table_put_leaves_both_as_before(aws: Aws) -> None:
    """DynamoDB fails the account update (moto's backend method for that one item raises)
    after it applied the table put: the real client call and moto's real rollback run."""
    rec = record()
    aws.store.create(rec)
    aws.accounts.grant("p2", 1_000)
    before = aws.raw("t1")
    backend_tables: list[Any] = []

    def failing_update(backend: DynamoDBBackend, *args: Any, **kwargs: Any) -> None:
        # the table put of the same transaction is already applied inside moto
        stored = backend.get_item(aws.names["TablesTable"], {"table_id": {"S": "t1"}})
        backend_tables.append(stored.to_json()["Attributes"]["version"])
        raise ThrottlingError("slow")

    with mock.patch.object(DynamoDBBackend, "update_item", autospec=True,
                           side_effect=failing_update):
        with pytest.raises(ClientError) as caught:
            aws.store.save(sit(rec, 2, "p2", 400), 1, (AccountMove("p2", 400, "t1"),))
    assert backend_tables == [{"N": "2"}]  # the put had been applied when the update failed
    assert caught.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in caught.value.response["CancellationReasons"]] == [
        "None", "ThrottlingError"]
    assert aws.raw("t1") == before  # moto rolled the put back
    assert aws.accounts.balance("p2") == 1_000


# -- error mapping, with synthetic errors (the call is replaced: nothing is stored) ----------


def test_error_mapping_synthetic_a_transact_write_error_propagates_unchanged(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    aws.accounts.grant("p2", 1_000)
    failure = ClientError({"Error": {"Code": "InternalServerError", "Message": "boom"},
                           "ResponseMetadata": {"HTTPStatusCode": 500}}, "TransactWriteItems")
    aws.calls.clear()
    with mock.patch.object(aws.client, "transact_write_items", side_effect=failure):
        with pytest.raises(ClientError) as caught:
            aws.store.save(sit(rec, 2, "p2", 400), 1, (AccountMove("p2", 400, "t1"),))
    assert caught.value is failure
    assert aws.operations() == []  # no other write after the failed one (no retry, no put)


@pytest.mark.parametrize(("reasons", "expected"), [
    (["None", "ConditionalCheckFailed"], InsufficientFunds),
    (["ConditionalCheckFailed", "ConditionalCheckFailed"], ConcurrentUpdate),
    (["ConditionalCheckFailed", "None"], ConcurrentUpdate),
    (["TransactionConflict", "None"], ConcurrentUpdate),
    (["None", "TransactionConflict"], ConcurrentUpdate),
    (["None", "ThrottlingError"], ClientError),
    (["None", "ValidationError"], ClientError),
])
def test_error_mapping_synthetic_cancellation_reasons_map_to_port_errors(
        aws: Aws, reasons: list[str], expected: type[Exception]) -> None:
    """The mapping alone, including reasons moto never produces (TransactionConflict)."""
    rec = record()
    aws.store.create(rec)
    cancelled = ClientError({"Error": {"Code": "TransactionCanceledException",
                                       "Message": "Transaction cancelled"},
                             "CancellationReasons": [{"Code": code} for code in reasons]},
                            "TransactWriteItems")
    with mock.patch.object(aws.client, "transact_write_items", side_effect=cancelled):
        with pytest.raises(expected) as caught:
            aws.store.save(sit(rec, 2, "p2", 400), 1, (AccountMove("p2", 400, "t1"),))
    if expected is ClientError:
        assert caught.value is cancelled
    else:
        assert caught.value.__cause__ is cancelled


def test_error_mapping_synthetic_other_put_errors_propagate_unchanged(aws: Aws) -> None:
    aws.store.create(record())
    failure = ClientError({"Error": {"Code": "ProvisionedThroughputExceededException",
                                     "Message": "slow down"}}, "PutItem")
    with mock.patch.object(aws.client, "put_item", side_effect=failure):
        with pytest.raises(ClientError) as caught:
            aws.store.save(bumped(record()), 1)
    assert caught.value is failure


# -- the lobby index -------------------------------------------------------------------------


def test_list_open_queries_the_lobby_index_newest_first_listed_tables_only(aws: Aws) -> None:
    aws.store.create(record("old", created_ms=1_000))
    aws.store.create(record("new", created_ms=3_000))
    aws.store.create(record("mid", created_ms=2_000))
    aws.store.create(record("private", created_ms=4_000, private=True))
    aws.store.create(record("full", created_ms=5_000, seats=2, seated=2))
    aws.calls.clear()
    summaries = aws.store.list_open()
    assert [s.table_id for s in summaries] == ["new", "mid", "old"]
    assert aws.operations() == ["Query"]
    query = aws.calls[0][1]
    assert query["IndexName"] == "lobby-index" and query["ScanIndexForward"] is False
    assert summaries[0] == aws.store.load("new").summary()
    index = aws.client.scan(TableName=aws.names["TablesTable"], IndexName="lobby-index")
    assert index["Count"] == 3  # sparse: unlisted tables are not in the index at all
    assert [s.table_id for s in aws.store.list_open(limit=2)] == ["new", "mid"]
    assert aws.store.list_open(limit=0) == []


def test_a_table_leaves_the_lobby_when_its_last_seat_is_taken(aws: Aws) -> None:
    rec = record(seats=3, seated=2)
    aws.store.create(rec)
    assert [s.seated for s in aws.store.list_open()] == [2]
    aws.store.save(sit(rec, 2, "p2", 100), 1)
    assert aws.store.list_open() == []
    item = aws.raw("t1")
    assert item is not None and "lobby" not in item and "summary" not in item


# -- the timer index -------------------------------------------------------------------------


def test_due_tables_queries_the_due_index_for_timers_past_their_deadline(aws: Aws) -> None:
    aws.store.create(record("t1", timers=(Timer("decision:1.0", TimerKind.DECISION, 5_000, 0),
                                          Timer("window:1", TimerKind.WINDOW, 9_000))))
    aws.store.create(record("t2", timers=(Timer("next_hand:1", TimerKind.NEXT_HAND, 3_000),)))
    aws.store.create(record("t3", timers=(Timer("next_hand:4", TimerKind.NEXT_HAND, 20_000),)))
    aws.store.create(record("t4"))
    aws.calls.clear()
    assert aws.store.due_tables(2_999) == []
    assert aws.store.due_tables(6_000) == ["t2", "t1"]
    assert {name for name in aws.operations()} == {"Query"}
    assert {params["IndexName"] for _, params in aws.calls} == {"due-index"}
    assert aws.store.due_tables(10_000) == ["t2", "t1"]  # t1 once, with two timers due
    assert aws.store.due_tables(30_000) == ["t2", "t1", "t3"]
    assert aws.store.due_tables(30_000, limit=2) == ["t2", "t1"]
    assert aws.store.due_tables(10_000, limit=1) == ["t2"]
    index = aws.client.scan(TableName=aws.names["TablesTable"], IndexName="due-index")
    assert index["Count"] == 3


def test_a_table_whose_timers_fired_leaves_the_due_index(aws: Aws) -> None:
    rec = record(timers=(Timer("next_hand:1", TimerKind.NEXT_HAND, 3_000),))
    aws.store.create(rec)
    assert aws.store.due_tables(5_000) == ["t1"]
    fired = bumped(rec)
    fired.timers = []
    aws.store.save(fired, 1)
    assert aws.store.due_tables(5_000) == []
    item = aws.raw("t1")
    assert item is not None and not {"timer", "due_ms", "due_tokens"} & set(item)


# -- item size -------------------------------------------------------------------------------


def test_item_size_of_a_nine_seat_nlhe_table_mid_hand(aws: Aws) -> None:
    """The figure in docs/storage.md. Goal: at most 4 KB (one 4 KB read unit, 4 write units)."""
    rec = nine_seat_mid_hand()
    aws.store.create(rec)
    size = aws.store.item_size(rec.table_id)
    item = aws.raw(rec.table_id)
    assert item is not None
    document = json.dumps(rec.to_document(), separators=(",", ":"))
    print(f"\n9-seat NLHE mid-hand (preflop, 5 actions): item {size} B, blob "
          f"{len(item['blob']['B'])} B, document JSON {len(document)} B")
    listed = nine_seat_mid_hand(seed=10)
    leaver = listed.state.seats[4]
    assert leaver is not None
    listed.state, _ = apply(listed.state, StandUp(seat_index=4))  # folded, then left
    del listed.connections[leaver.player_id]
    assert listed.listed
    for label, other in (("9-seat NLHE on the river", nine_seat_mid_hand(seed=8, to_river=True)),
                         ("9-seat NAIKO mid-hand", nine_seat_mid_hand(Variant.NAIKO, seed=9)),
                         ("9-seat NLHE mid-hand, a seat free (listed)", listed)):
        aws.store.create(other)
        print(f"{label}: item {aws.store.item_size(other.table_id)} B")
    assert size <= ITEM_SIZE_GOAL


def test_item_size_counts_names_and_values(aws: Aws) -> None:
    rec = record()
    aws.store.create(rec)
    item = aws.raw("t1")
    assert item is not None
    expected = (len("table_id") + 2 + len("version") + 2 + len("blob") + len(item["blob"]["B"])
                + len("created_ms") + 2 + len("lobby") + 4 + len("summary")
                + len(item["summary"]["S"]) + len("stakes") + len("NLHE:1/2")
                + len("seated") + 2)
    assert aws.store.item_size("t1") == expected
    with pytest.raises(TableNotFound):
        aws.store.item_size("nope")


# -- accounts and connections ----------------------------------------------------------------


def test_accounts_start_at_zero_and_grants_add_up(aws: Aws) -> None:
    assert aws.accounts.balance("alice") == 0
    assert aws.accounts.grant("alice", 1_000) == 1_000
    assert aws.accounts.grant("alice", 250) == 1_250
    assert aws.accounts.balance("alice") == 1_250


def test_connections_bind_track_tables_and_unbind(aws: Aws) -> None:
    connections = aws.connections
    assert connections.player_of("c1") is None and connections.tables_of("c1") == []
    connections.bind("c1", "alice", now_ms=1_700_000_000_123)
    item = aws.client.get_item(TableName=aws.names["ConnectionsTable"],
                               Key={"connection_id": {"S": "c1"}})["Item"]
    assert item["expires_at"] == {"N": str(1_700_000_000 + 86_400)}
    assert connections.player_of("c1") == "alice"
    assert connections.tables_of("c1") == []
    connections.add_table("c1", "t2")
    connections.add_table("c1", "t1")
    connections.add_table("c1", "t2")
    assert connections.tables_of("c1") == ["t1", "t2"]
    connections.unbind("c1")
    assert connections.player_of("c1") is None and connections.tables_of("c1") == []
    connections.unbind("c1")  # unbinding twice is harmless


def test_add_table_to_an_unbound_connection_still_sets_an_expiry(aws: Aws) -> None:
    aws.connections.add_table("late", "t1")
    item = aws.client.get_item(TableName=aws.names["ConnectionsTable"],
                               Key={"connection_id": {"S": "late"}})["Item"]
    assert item["expires_at"] == {"N": str(1_000 + 86_400)}
    assert aws.connections.player_of("late") is None
    assert aws.connections.tables_of("late") == ["t1"]


# -- the service on these adapters -------------------------------------------------------------


def test_a_hand_through_the_service_on_dynamodb_conserves_chips(aws: Aws) -> None:
    gateway, scheduler, clock = RecordingGateway(), RecordingScheduler(), ManualClock()
    deps = Deps(tables=aws.store, accounts=aws.accounts, connections=aws.connections,
                gateway=gateway, scheduler=scheduler, clock=clock, rng=seeded_random(3))
    h = Harness(TableService(deps), aws.store, aws.accounts, gateway,  # type: ignore[arg-type]
                scheduler, clock, aws.connections)  # type: ignore[arg-type]
    alice, bob, carol = h.player("alice"), h.player("bob"), h.player("carol")
    ack = alice.send(action="create_table", name="Moto", small_blind=1, big_blind=2,
                     min_buy_in=40, max_buy_in=200)
    table_id = ack["table_id"]
    for p in (alice, bob, carol):
        assert p.send(action="join_table", table_id=table_id, buy_in=100)["type"] in ACCEPTED
    assert aws.accounts.balance("alice") == 9_900
    assert aws.connections.tables_of(alice.connection_id) == [table_id]
    poor = h.player("poor", chips=10)
    reply = poor.send(action="join_table", table_id=table_id, buy_in=100)
    assert reply["type"] == "error" and reply["code"] == "insufficient_funds"
    for _ in range(20):
        view = alice.last_view()
        if view["hand"]["complete"]:
            break
        actor = view["seats"][view["hand"]["actor"]]["player_id"]
        who = {"alice": alice, "bob": bob, "carol": carol}[actor]
        move = "check" if "check" in who.last_view()["prompt"]["actions"] else "call"
        assert who.send(action="act", table_id=table_id, move=move)["type"] in ("ack", "update")
    assert alice.last_view()["hand"]["complete"]
    for p in (alice, bob, carol):
        p.send(action="leave_table", table_id=table_id)
    balances = [aws.accounts.balance(p) for p in ("alice", "bob", "carol")]
    assert sum(balances) == 30_000
    record_ = aws.store.load(table_id)
    assert all(s is None for s in record_.state.seats)
    assert [s.table_id for s in aws.store.list_open()] == [table_id]
