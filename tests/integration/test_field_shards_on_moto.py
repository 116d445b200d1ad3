"""Issue 23 item 1: a scheduled tournament's players out are counted on count shards
(``field#<g>``), not on the field item, on both adapters (DynamoDB on moto, ``TournamentsTable``
from ``template.yaml``, and memory): a shard counts only within the room the field item granted
it, so tables of different groups (and, on one shard, at once) count without conflicts; the
field item never grants past the serial zone, so however many tables count from one stale read,
the field is never counted below it before the shards close; closing a shard is conditional on
the outs it read, and a closed shard counts nothing more (R9.5, R9.8, R9.9: the bubble, the
money and the final table are decided on the field item's exact count)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from hypothesis import given, settings
from hypothesis import strategies as st
from moto import mock_aws
from naiko.state import Variant
from naiko_local.tournament import terms_for
from naiko_service.aws.dynamodb import DynamoTableStore
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.memory import MemoryTableStore, MemoryTournamentStore
from naiko_service.ports import CloseOuts, ConcurrentUpdate, CountOuts, PutTournament, Write
from naiko_service.records import Sealer
from naiko_service.tournament_records import Seating, TournamentRecord, TournamentStatus
from naiko_service.usecases.field_shards import count_out, serial_zone

TID = "mtt-shards"
TABLES = 6


@contextmanager
def make_store(kind: str) -> Iterator[Any]:
    if kind == "memory":
        yield MemoryTournamentStore(MemoryTableStore())
        return
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(client)
        tables = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                  Sealer(bytes(32)))
        yield DynamoTournamentStore(client, names["TournamentsTable"], tables)


@pytest.fixture(params=["memory", "moto"])
def store(request: Any) -> Iterator[Any]:
    with make_store(request.param) as made:
        yield made


def running(players: int = 60) -> TournamentRecord:
    terms = terms_for("mtt", Variant.NLHE, 100, players)
    record = TournamentRecord(TID, 1, "shards", terms, 1, "ops",
                              status=TournamentStatus.RUNNING, starts_ms=2, started_ms=3,
                              entrants=players, players_left=players,
                              payouts=terms.prizes(players))
    per = players // TABLES
    record.seating = Seating(counts={n: per for n in range(1, TABLES + 1)},
                             table_ids={n: f"{TID}-{n}" for n in range(1, TABLES + 1)},
                             next_number=TABLES + 1)
    record.tables = [f"{TID}-{n}" for n in range(1, TABLES + 1)]
    return record


def eliminate(read: TournamentRecord, number: int, outs: int) -> tuple[Write, ...]:
    """A table's elimination write from the tournament as *read* (as
    :func:`naiko_service.usecases.mtt.between_hands` makes it): on the shard, the field item
    written only if its document changed (a grant, the serial zone)."""
    new = read.copy()
    new.version += 1
    before = new.to_document()
    assert new.seating is not None
    new.players_left -= outs
    new.seating.counts[number] -= outs
    writes: list[Write] = []
    count_out(new, number, outs, writes)
    if new.to_document() != before:
        writes.append(PutTournament(new, read.version))
    return tuple(writes)


def test_issue_23_eliminations_count_on_shards_and_leave_the_field_item_alone(
        store: Any) -> None:
    store.commit((PutTournament(running(), None),))
    first = eliminate(store.load(TID), 1, 1)  # the first on its shard: room granted
    assert {type(w) for w in first} == {CountOuts, PutTournament}
    store.commit(first)
    read = store.load(TID)  # two tables of different groups, one read
    two = eliminate(read, 1, 2)
    assert [type(w) for w in two] == [CountOuts]  # within the room: the shard alone
    store.commit(two)
    again = eliminate(read, 1, 1)  # from the same (stale) read: still no conflict
    store.commit(again)
    back = store.load(TID)
    assert back.version == read.version  # the field item not written
    assert back.players_left == 60 - 4 and back.seating is not None
    assert back.seating.counts[1] == 10 - 4
    assert back.to_document()["players_left"] == 60  # stored: the shards' outs added back
    assert [d["out"] for _, d in store.items(TID, "field#")] == [4]


def test_issue_23_a_closed_shard_counts_nothing_and_closing_checks_the_outs_read(
        store: Any) -> None:
    store.commit((PutTournament(running(), None),))
    store.commit(eliminate(store.load(TID), 2, 1))
    read = store.load(TID)
    shard = next(iter(read.shards))
    with pytest.raises(ConcurrentUpdate):  # it counts 1, not 0
        store.commit((CloseOuts(TID, shard, 0),))
    store.commit((CloseOuts(TID, shard, 1),))
    with pytest.raises(ConcurrentUpdate):
        store.commit(eliminate(read, 2, 1))
    with pytest.raises(ConcurrentUpdate):  # nor with room granted
        store.commit((CountOuts(TID, shard, 2, 1, grant=5),))
    assert store.load(TID).players_left == 59


def play(store: Any, eliminations: list[tuple[int, int]], stale_for: int) -> bool:
    """Tables eliminate from tournament reads up to *stale_for* writes old (each table's own
    count is exact: its own item orders its hands; a write that fails reads again and decides
    again), checking after each write that before the shards close the field never goes
    below the serial zone and that the count is exact (the players left are the field less
    every player out, the tables' counts add up to them). Whether the shards closed."""
    store.commit((PutTournament(running(), None),))
    zone = serial_zone(store.load(TID))
    reads = [store.load(TID)]
    out = 0
    for number, outs in eliminations:
        current = reads[-1]
        assert current.seating is not None
        if current.seating.counts[number] < outs or current.players_left - outs < 2:
            continue
        read = reads[max(0, len(reads) - stale_for)]
        for _ in range(10):
            try:
                store.commit(eliminate(read, number, outs))
                out += outs
                break
            except ConcurrentUpdate:
                read = store.load(TID)
        now = store.load(TID)
        assert now.players_left == 60 - out
        if not now.serial:
            assert now.players_left >= zone, (now.players_left, zone)
        assert now.seating is not None
        assert sum(now.seating.counts.values()) == now.players_left
        reads.append(now)
    return store.load(TID).serial


@pytest.mark.parametrize("kind", ["memory", "moto"])
def test_issue_23_r9_8_tables_counting_from_old_reads_down_to_two_close_the_shards_first(
        kind: str) -> None:
    with make_store(kind) as store:
        assert play(store, [(n % TABLES + 1, 1) for n in range(58)], stale_for=5)


@pytest.mark.parametrize("kind", ["memory", "moto"])
@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(1, TABLES), st.integers(1, 3)), min_size=1,
                max_size=60),
       st.integers(1, 6))
def test_issue_23_r9_8_property_stale_tables_never_count_the_field_past_the_serial_zone(
        kind: str, eliminations: list[tuple[int, int]], stale_for: int) -> None:
    with make_store(kind) as store:
        play(store, eliminations, stale_for)
