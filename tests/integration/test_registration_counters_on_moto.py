"""Registration counters on the DynamoDB adapter (moto, tables from ``template.yaml``; issue
23): a ``count#<k>`` item updated in place under its quota and its ``closed`` flag
(:class:`~naiko_service.ports.BumpCount`, :class:`~naiko_service.ports.CloseCount`), and a
rush of concurrent registrations through the service that never goes over the cap, never
answers ``busy``, puts every entry on the ledger once and never writes the tournament item.
Each DynamoDB request is atomic (``SerialClient``: DynamoDB's guarantee, which moto does not
give threads); the threads race between requests."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws
from naiko.state import Variant
from naiko_local.tournament import terms_for
from naiko_service.aws import DynamoAccounts, DynamoTableStore
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.ledger import audit_dynamodb
from naiko_service.memory import (
    ManualClock,
    MemoryConnections,
    RecordingGateway,
    RecordingScheduler,
)
from naiko_service.ports import (
    AccountMove,
    BumpCount,
    CloseCount,
    ConcurrentUpdate,
    LedgerReason,
    PutItem,
)
from naiko_service.records import Sealer
from naiko_service.tournament_records import COUNT_PREFIX, TournamentStatus
from naiko_service.usecases import Deps, scheduled, tournaments
from naiko_service.usecases.tournament_payments import REG_PREFIX
from test_mtt_concurrency_on_moto import SerialClient
from test_registration_counters import rush

KEY = bytes(range(32))
TID = "mtt-moto-rush"
ENTRY = 10


@pytest.fixture
def world() -> Iterator[tuple[Any, dict[str, str], Deps]]:
    with mock_aws():
        raw = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(raw)
        client = SerialClient(raw)
        store = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                 Sealer(KEY), ledger_table=names["LedgerTable"])
        deps = Deps(tables=store, accounts=DynamoAccounts(
                        client, names["AccountsTable"], ledger_table=names["LedgerTable"]),
                    connections=MemoryConnections(), gateway=RecordingGateway(),
                    scheduler=RecordingScheduler(), clock=ManualClock(1_767_225_600_000),
                    rng=random.Random(3),
                    tournaments=DynamoTournamentStore(client, names["TournamentsTable"], store),
                    pause=lambda seconds: None)
        yield raw, names, deps


def listed(deps: Deps, cap: int) -> None:
    terms = replace(terms_for("mtt", Variant.NLHE, ENTRY, cap), max_players=cap, seat_count=6)
    tournaments.create(deps, TID, "Rush", terms, "ops",
                       starts_ms=deps.clock.now_ms() + 3_600_000)


def test_issue_23_a_counter_counts_within_its_quota_until_it_is_closed(
        world: tuple[Any, dict[str, str], Deps]) -> None:
    _, _, deps = world
    store = deps.tournaments
    assert isinstance(store, DynamoTournamentStore)
    listed(deps, 60)
    key = COUNT_PREFIX + "00"
    store.commit((BumpCount(TID, key, 2, 20, 3),))  # created at 0 on first use
    with pytest.raises(ConcurrentUpdate):  # 2 + 2 > 3: nothing written
        store.commit((BumpCount(TID, key, 2, 20, 3),))
    store.commit((BumpCount(TID, key, 1, 10, 3),))
    with pytest.raises(ConcurrentUpdate):  # full
        store.commit((BumpCount(TID, key, 1, 10, 3),))
    store.commit((BumpCount(TID, key, -1, -10, 3),))
    with pytest.raises(ConcurrentUpdate):  # never below 0
        store.commit((BumpCount(TID, COUNT_PREFIX + "01", -1, -10, 3),))
    assert dict(store.items(TID, COUNT_PREFIX)) == {
        key: {"entrants": 2, "chips": 20, "quota": 3, "closed": False}}
    with pytest.raises(ConcurrentUpdate):  # the close counts what it read: 2, not 1
        store.commit((CloseCount(TID, key, 1),))
    store.commit((CloseCount(TID, key, 2), CloseCount(TID, COUNT_PREFIX + "01", 0)))
    with pytest.raises(ConcurrentUpdate):  # closed: no entry counts any more
        store.commit((BumpCount(TID, key, 1, 10, 3),))
    with pytest.raises(ConcurrentUpdate):  # and it never closes twice
        store.commit((CloseCount(TID, key, 2),))
    assert dict(store.items(TID, COUNT_PREFIX)) == {
        key: {"entrants": 2, "chips": 20, "quota": 3, "closed": True},
        COUNT_PREFIX + "01": {"entrants": 0, "chips": 0, "quota": 0, "closed": True}}


def test_issue_23_a_registration_is_all_or_nothing_with_its_counter(
        world: tuple[Any, dict[str, str], Deps]) -> None:
    """A counter full: the ``reg#`` item, the entry and its ledger entry are not written
    either."""
    _, _, deps = world
    store = deps.tournaments
    assert store is not None
    listed(deps, 60)
    deps.accounts.grant("ann", 100, ref="test")
    store.commit((BumpCount(TID, COUNT_PREFIX + "00", 3, 30, 3),))
    with pytest.raises(ConcurrentUpdate):
        store.commit((PutItem(TID, REG_PREFIX + "ann", {"player_id": "ann"}, new=True),
                      BumpCount(TID, COUNT_PREFIX + "00", 1, ENTRY, 3)),
                     (AccountMove("ann", ENTRY, TID, LedgerReason.ENTRY, 1),))
    assert deps.accounts.balance("ann") == 100 and not store.items(TID, REG_PREFIX)


def test_r9_1_a_registration_rush_on_dynamodb_fills_the_cap_without_busy_or_loss(
        world: tuple[Any, dict[str, str], Deps]) -> None:
    """Forty-eight players for forty seats from eight threads: forty in, eight
    ``tournament_full``, no ``busy``, the tournament item never written; every entry on the
    ledger once and the ledger identity holds (with the counters' chips); the close folds the
    counters into the tournament item."""
    raw, names, deps = world
    store = deps.tournaments
    assert store is not None
    listed(deps, 40)
    version = store.load(TID).version
    players = [f"p{n:02d}" for n in range(48)]
    for player in players:
        deps.accounts.grant(player, 100, ref="test")
    answers = rush(deps, [tournaments.Entrant(player, player) for player in players], TID)
    assert answers == Counter({"ack": 40, "tournament_full": 8}), answers
    assert store.load(TID).version == version, "the tournament item was written"
    regs = {key.removeprefix(REG_PREFIX) for key, _ in store.items(TID, REG_PREFIX)}
    counted = [data for _, data in store.items(TID, COUNT_PREFIX)]
    assert len(regs) == sum(c["entrants"] for c in counted) == 40
    assert all(c["entrants"] <= c["quota"] for c in counted)
    paid = {p for p in players if deps.accounts.balance(p) == 100 - ENTRY}
    assert paid == regs
    checked = audit_dynamodb(raw, names["AccountsTable"], names["LedgerTable"],
                             names["TablesTable"], Sealer(KEY), names["TournamentsTable"])
    assert checked.holds, checked.line()
    assert isinstance(deps.clock, ManualClock)
    deps.clock.advance(3_600_000)
    scheduled.start_scheduled(deps, TID)
    record = store.load(TID)
    assert record.status is TournamentStatus.RUNNING
    assert record.entrants == record.players_left == 40 and record.pool_held == 40 * ENTRY
    checked = audit_dynamodb(raw, names["AccountsTable"], names["LedgerTable"],
                             names["TablesTable"], Sealer(KEY), names["TournamentsTable"])
    assert checked.holds, checked.line()


def test_r9_1_unregistering_on_dynamodb_is_symmetric_and_a_replay_is_answered(
        world: tuple[Any, dict[str, str], Deps]) -> None:
    """Register, unregister (twice: the retry answered), register again: the counter, the
    account and the ledger agree at each step; the tournament item is never written."""
    from naiko_service import protocol as p
    from naiko_service.usecases.base import Caller

    raw, names, deps = world
    store = deps.tournaments
    assert store is not None and isinstance(deps.clock, ManualClock)
    listed(deps, 40)
    version = store.load(TID).version
    deps.accounts.grant("ann", 100, ref="test")
    caller = Caller("c-ann", "ann", "reg-1")
    tournaments.enter(deps, caller, TID, [tournaments.Entrant("ann", "ann", False, "c-ann")])
    deps.clock.advance(1)
    leave = p.Unregister(action="unregister", request_id="leave-1", tournament_id=TID)
    for _ in range(2):
        tournaments.unregister(deps, Caller("c-ann", "ann", "leave-1"), leave)
    acks = [m for m in deps.gateway.sent["c-ann"] if m["type"] == "ack"]  # type: ignore[attr-defined]
    assert [a["replayed"] for a in acks] == [False, False, True]
    assert deps.accounts.balance("ann") == 100 and not store.items(TID, REG_PREFIX)
    assert [c["entrants"] for _, c in store.items(TID, COUNT_PREFIX)] == [0]
    deps.clock.advance(1)
    tournaments.enter(deps, Caller("c-ann", "ann", "reg-2"), TID,
                      [tournaments.Entrant("ann", "ann", False, "c-ann")])
    assert deps.accounts.balance("ann") == 100 - ENTRY
    assert store.load(TID).version == version
    checked = audit_dynamodb(raw, names["AccountsTable"], names["LedgerTable"],
                             names["TablesTable"], Sealer(KEY), names["TournamentsTable"])
    assert checked.holds, checked.line()
