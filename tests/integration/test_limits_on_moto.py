"""The caps of naiko_service.limits on the DynamoDB adapters (moto, tables from template.yaml):
the account's waiting-list set and its condition inside the table's transaction, the
connection's watched tables, the bounded list of tables played at (and an account written
before it), and the sizes of the items with every cap full, as DynamoDB counts them."""

from __future__ import annotations

import pytest
from limits_testing import fill_every_cap, full_table, long_id, refused
from naiko.cards import seeded_random
from naiko_service import limits
from naiko_service.aws.dynamodb import dynamodb_item_size
from naiko_service.memory import ManualClock, RecordingGateway, RecordingScheduler
from naiko_service.ports import AccountMove, TooManyWatched
from naiko_service.usecases import Deps, TableService
from service_testing import ACCEPTED, Harness
from test_dynamodb_adapters import Aws, aws  # noqa: F401 - the fixture
from test_dynamodb_adapters import record as table_record


def on_dynamodb(aws: Aws) -> Harness:  # noqa: F811
    gateway, scheduler, clock = RecordingGateway(), RecordingScheduler(), ManualClock()
    deps = Deps(tables=aws.store, accounts=aws.accounts, connections=aws.connections,
                gateway=gateway, scheduler=scheduler, clock=clock, rng=seeded_random(3))
    return Harness(TableService(deps), aws.store, aws.accounts, gateway,  # type: ignore[arg-type]
                   scheduler, clock, aws.connections)  # type: ignore[arg-type]


def test_r7_10_the_waiting_lists_of_a_player_are_capped_in_the_tables_transaction(
        aws: Aws) -> None:  # noqa: F811
    h = on_dynamodb(aws)
    tables = [full_table(h)[0] for _ in range(limits.MAX_WAITLISTS_PER_PLAYER + 1)]
    waiter = h.player("waiter")
    for table_id in tables[:-1]:
        assert waiter.send(action="join_waitlist", table_id=table_id)["type"] in ACCEPTED
    assert aws.accounts.profile("waiter").waiting == frozenset(tables[:-1])
    version = aws.store.load(tables[-1]).version
    refused(waiter.send(action="join_waitlist", table_id=tables[-1]), "too_many_waitlists")
    assert aws.store.load(tables[-1]).version == version  # the transaction wrote nothing
    assert waiter.send(action="leave_waitlist", table_id=tables[0])["type"] in ACCEPTED
    assert tables[0] not in aws.accounts.profile("waiter").waiting
    assert waiter.send(action="join_waitlist", table_id=tables[-1])["type"] in ACCEPTED
    # An entry no table holds any more (a table gone) is forgotten by leave_waitlist.
    aws.client.update_item(TableName=aws.names["AccountsTable"],
                           Key={"player_id": {"S": "waiter"}}, UpdateExpression="ADD #w :t",
                           ExpressionAttributeNames={"#w": "waiting"},
                           ExpressionAttributeValues={":t": {"SS": ["t-gone"]}})
    assert "t-gone" in aws.accounts.profile("waiter").waiting
    assert waiter.send(action="leave_waitlist", table_id="t-gone")["type"] == "ack"
    assert "t-gone" not in aws.accounts.profile("waiter").waiting
    refused(waiter.send(action="leave_waitlist", table_id="t-gone"), "not_waiting")
    aws.accounts.forget_waiting("nobody", "t-gone")  # no account: nothing is created
    assert aws.accounts.profile("nobody").waiting == frozenset()


def test_a_connection_watches_at_most_max_tables_per_connection_on_dynamodb(
        aws: Aws) -> None:  # noqa: F811
    connections = aws.connections
    connections.bind("c1", "alice", 0)
    for i in range(limits.MAX_TABLES_PER_CONNECTION):
        connections.add_table("c1", f"t{i}")
    connections.add_table("c1", "t0")  # idempotent, even at the cap
    with pytest.raises(TooManyWatched):
        connections.add_table("c1", "t-one-more")
    connections.remove_table("c1", "t3")
    connections.remove_table("c1", "t3")  # idempotent
    connections.add_table("c1", "t-one-more")
    assert len(connections.tables_of("c1")) == limits.MAX_TABLES_PER_CONNECTION
    connections.remove_table("gone", "t1")  # no item: nothing is created
    assert connections.player_of("gone") is None and connections.tables_of("gone") == []


def test_r7_10_the_tables_played_at_are_a_bounded_list_that_replaces_the_old_set(
        aws: Aws) -> None:  # noqa: F811
    aws.accounts.grant("roamer", 1_000)
    aws.client.update_item(TableName=aws.names["AccountsTable"],
                           Key={"player_id": {"S": "roamer"}},
                           UpdateExpression="ADD visited :old",
                           ExpressionAttributeValues={":old": {"SS": ["t-old-2", "t-old-1"]}})
    assert aws.accounts.profile("roamer").visited == ("t-old-1", "t-old-2")  # legacy, read
    rec = table_record("t-new")
    aws.store.create(rec)
    new = rec.copy()
    new.version += 1
    visited = (*aws.accounts.profile("roamer").visited, "t-new")
    aws.store.save(new, rec.version, (AccountMove("roamer", 0, "t-new", visited=visited),))
    item = aws.client.get_item(TableName=aws.names["AccountsTable"],
                               Key={"player_id": {"S": "roamer"}})["Item"]
    assert "visited" not in item  # the set is gone, the list replaces it
    assert aws.accounts.profile("roamer").visited == ("t-old-1", "t-old-2", "t-new")


@pytest.mark.parametrize("private", [False])  # the larger item (the private one: in memory)
def test_every_cap_full_the_items_stay_under_their_documented_sizes_on_dynamodb(
        aws: Aws, private: bool) -> None:  # noqa: F811
    h = on_dynamodb(aws)
    table_id, seated = fill_every_cap(h, private)
    table_item = aws.raw(table_id)
    assert table_item is not None
    size = dynamodb_item_size(table_item)
    # An account with the most tables played at and the most waiting lists.
    roamer = h.player(long_id(1, "roamer"), chips=1_000_000)
    for i in range(limits.MAX_VISITED + 2):
        other = h.player(long_id(i, "host"))
        other_table = other.send(action="create_table", name="t", small_blind=1,
                                 big_blind=2, min_buy_in=40, max_buy_in=400)["table_id"]
        assert roamer.send(action="join_table", table_id=other_table, buy_in=40)["type"] \
            in ACCEPTED
        assert roamer.send(action="leave_table", table_id=other_table)["type"] in ACCEPTED
        if i < limits.MAX_VISITED + 2 - limits.MAX_TABLES_PER_CONNECTION:
            assert roamer.send(action="unwatch", table_id=other_table)["type"] == "ack"
    for i in range(limits.MAX_MUTES):  # R8.9: the most players muted, the longest ids
        assert roamer.send(action="chat_mute", player_id=long_id(i, "muted"))["type"] == "ack"
    account = aws.client.get_item(TableName=aws.names["AccountsTable"],
                                  Key={"player_id": {"S": roamer.player_id}})["Item"]
    connection = aws.client.get_item(TableName=aws.names["ConnectionsTable"],
                                     Key={"connection_id": {"S": roamer.connection_id}}
                                     )["Item"]
    print(f"\n{'private' if private else 'public'}: table item {size:,} bytes, account "
          f"{dynamodb_item_size(account):,}, connection {dynamodb_item_size(connection):,}")
    assert size <= limits.TABLE_ITEM_MAX_BYTES
    assert dynamodb_item_size(account) <= limits.ACCOUNT_ITEM_MAX_BYTES
    assert dynamodb_item_size(connection) <= limits.CONNECTION_ITEM_MAX_BYTES
    assert len(account["recent_tables"]["L"]) == limits.MAX_VISITED
    assert len(connection["tables"]["SS"]) == limits.MAX_TABLES_PER_CONNECTION
    assert len(connection["muted"]["SS"]) == limits.MAX_MUTES


def test_r9_1_registrations_and_created_tournaments_are_capped_on_dynamodb(
        aws: Aws) -> None:  # noqa: F811
    """The ``registered`` and ``created`` sets of the account are conditioned in the
    tournament's transaction (size below the cap, or the id there already); a full set forgets
    the tournaments that no longer count and the request is tried once more."""
    from naiko_service.aws.tournaments import DynamoTournamentStore

    h = on_dynamodb(aws)
    tournaments = DynamoTournamentStore(aws.client, aws.names["TournamentsTable"], aws.store)
    h.service.deps.tournaments = tournaments
    h.tournaments = tournaments  # type: ignore[assignment]
    hosts = [h.player(f"host{i}") for i in range(limits.MAX_REGISTRATIONS_PER_PLAYER + 1)]
    tids = []
    for host in hosts:
        reply = host.send(action="create_tournament", preset="sng_headsup_hyper", entry=10)
        assert reply["type"] == "ack", reply
        tids.append(reply["tournament_id"])
    assert aws.accounts.profile("host0").created == frozenset(tids[:1])
    eager = h.player("eager")
    for tid in tids[:-1]:
        assert eager.send(action="register", tournament_id=tid)["type"] == "ack"
    assert aws.accounts.profile("eager").registered == frozenset(tids[:-1])
    balance = aws.accounts.balance("eager")
    refused(eager.send(action="register", tournament_id=tids[-1]), "too_many_registrations")
    assert aws.accounts.balance("eager") == balance and tournaments.load(tids[-1]).entrants == 0
    # the heads-up Sit & Go at tids[0] starts: the full set forgets it, the entry goes in
    assert hosts[0].send(action="register", tournament_id=tids[0])["type"] == "ack"
    assert eager.send(action="register", tournament_id=tids[-1])["type"] == "ack"
    registered = aws.accounts.profile("eager").registered
    assert tids[0] not in registered and tids[-1] in registered
    assert eager.send(action="unregister", tournament_id=tids[1])["type"] == "ack"
    assert tids[1] not in aws.accounts.profile("eager").registered
    creator = h.player("creator")
    for _ in range(limits.MAX_OPEN_TOURNAMENTS):
        assert creator.send(action="create_tournament", preset="sng_headsup_hyper",
                            entry=10)["type"] == "ack"
    refused(creator.send(action="create_tournament", preset="sng_headsup_hyper", entry=10),
            "too_many_tournaments")
    assert len(aws.accounts.profile("creator").created) == limits.MAX_OPEN_TOURNAMENTS
