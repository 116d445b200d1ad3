"""Registering for a scheduled tournament on counters (R9.1, issue 23): a registration is its
own ``reg#`` item, one registration counter ``count#<k>`` and the entry's account move with its
ledger entry, in one transaction; the tournament item is only read. The field's cap is split
across the counters, so concurrent registrations never go over it and never answer ``busy``;
unregistering is symmetric; registration closing folds the counters into the tournament item.
The real service on the in-memory adapters."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko_local.tournament import terms_for
from naiko_service.aws.dynamodb import DynamoTableStore, dynamodb_item_size
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.ledger import audit
from naiko_service.memory import MemoryTournamentStore
from naiko_service.ports import LedgerReason
from naiko_service.records import Sealer
from naiko_service.tournament_records import COUNT_PREFIX, TournamentStatus
from naiko_service.usecases import ServiceError, registrations, scheduled, tournaments
from naiko_service.usecases.base import Caller
from naiko_service.usecases.tournament_payments import REG_PREFIX
from service_testing import Harness, harness

ENTRY = 10
MINUTE = 60_000
TID = "mtt-rush"


class InterleavingStore(MemoryTournamentStore):
    """The memory store with a thread switch after every read, so concurrent registrations
    read, then commit on what others changed meanwhile (as Lambda invocations on DynamoDB)."""

    def load(self, tournament_id: str) -> Any:
        try:
            return super().load(tournament_id)
        finally:
            time.sleep(0.0001)

    def items(self, tournament_id: str, prefix: str) -> list[tuple[str, dict[str, Any]]]:
        try:
            return super().items(tournament_id, prefix)
        finally:
            time.sleep(0.0001)


def listed(cap: int, min_players: int = 2, interleave: bool = False) -> Harness:
    h = harness()
    if interleave:
        store = InterleavingStore(h.store)
        h.tournaments = store
        h.service.deps.tournaments = store
        h.service.deps.pause = lambda seconds: time.sleep(seconds)
    terms = replace(terms_for("mtt", Variant.NLHE, ENTRY, cap), max_players=cap,
                    min_players=min_players, seat_count=6, bots_allowed=True)
    tournaments.create(h.service.deps, TID, "Rush", terms, "ops",
                       starts_ms=h.clock.now + 60 * MINUTE)
    return h


def entrant(h: Harness, name: str, chips: int = 100) -> tournaments.Entrant:
    h.accounts.grant(name, chips, ref="test")
    return tournaments.Entrant(name, name)


def reg_items(h: Harness) -> dict[str, dict[str, Any]]:
    """Player -> their registration."""
    assert h.tournaments is not None
    return {key.removeprefix(REG_PREFIX): data
            for key, data in h.tournaments.items(TID, REG_PREFIX)}


def counted(h: Harness) -> list[dict[str, Any]]:
    assert h.tournaments is not None
    return [data for _, data in h.tournaments.items(TID, COUNT_PREFIX)]


def check(h: Harness) -> None:
    """The invariants: the counters count the ``reg#`` items, each within its quota, the
    field within the cap; every registration paid exactly one entry (the ledger), chips
    conserved (the ledger identity over accounts and what the tournament holds)."""
    assert h.tournaments is not None
    record = h.tournaments.load(TID)
    regs = reg_items(h)
    counts = counted(h)
    assert sum(c["entrants"] for c in counts) == len(regs) <= record.terms.max_players
    assert all(0 <= c["entrants"] <= c["quota"] for c in counts)
    assert sum(registrations.quotas(record)) == record.terms.max_players
    by_counter = Counter(int(r["counter"]) for r in regs.values())
    assert {int(k.removeprefix(COUNT_PREFIX)): c["entrants"]
            for k, c in h.tournaments.items(TID, COUNT_PREFIX) if c["entrants"]} \
        == dict(by_counter)
    entries = Counter(e.player_id for e in h.accounts.ledger if e.ref == TID
                      and e.reason is LedgerReason.ENTRY)
    refunds = Counter(e.player_id for e in h.accounts.ledger if e.ref == TID
                      and e.reason is LedgerReason.UNREGISTER)
    assert {p for p in entries if entries[p] - refunds[p] == 1} == set(regs)
    assert all(entries[p] - refunds[p] in (0, 1) for p in entries)
    assert sum(c["chips"] for c in counts) == ENTRY * len(regs)
    assert h.store.audit().holds, h.store.audit().line()


def rush(deps: Any, entrants: list[tournaments.Entrant], tournament_id: str = TID,
         threads: int = 8) -> Counter[str]:
    """*entrants* registering for *tournament_id* from *threads* threads at once, each its
    share in turn: how many answers of each kind (``ack`` or the refusal's code)."""
    answers: Counter[str] = Counter()
    lock = threading.Lock()

    def client(group: list[tournaments.Entrant]) -> None:
        for player in group:
            try:
                tournaments.enter(deps, None, tournament_id, [player])
                answer = "ack"
            except ServiceError as error:
                answer = error.code
            with lock:
                answers[answer] += 1

    running = [threading.Thread(target=client, args=(entrants[i::threads],))
               for i in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return answers


def test_r9_1_a_registration_writes_its_own_items_and_never_the_tournament_item() -> None:
    h = listed(60)
    deps = h.service.deps
    assert h.tournaments is not None
    version = h.tournaments.load(TID).version
    for n in range(40):
        tournaments.enter(deps, None, TID, [entrant(h, f"p{n:02d}")])
    assert h.tournaments.load(TID).version == version, "the tournament item was written"
    assert tournaments.describe(deps, TID)["entrants"] == 40
    assert len(counted(h)) == registrations.counter_count(h.tournaments.load(TID)) == 4
    assert all(c["entrants"] for c in counted(h)), "the players' hashes spread them out"
    check(h)


def test_r9_1_concurrent_registrations_fill_the_cap_exactly_and_never_answer_busy() -> None:
    """Eighty players for sixty seats, eight threads at once: sixty in, twenty refused
    ``tournament_full``, none ``busy``; every entry on the ledger once, chips conserved."""
    h = listed(60, interleave=True)
    deps = h.service.deps
    players = [entrant(h, f"p{n:02d}") for n in range(80)]
    answers = rush(deps, players)
    assert answers == Counter({"ack": 60, "tournament_full": 20}), answers
    assert len(reg_items(h)) == 60
    assert sum(1 for p in players if h.accounts.balance(p.player_id) == 100 - ENTRY) == 60
    check(h)


def test_r9_1_a_full_counter_sends_the_entrant_to_the_next_one() -> None:
    """Four counters of two seats each: whatever the players' hashes, eight register."""
    h = listed(8)
    deps = h.service.deps
    for n in range(8):
        tournaments.enter(deps, None, TID, [entrant(h, f"same-{n}")])
    assert sorted(c["entrants"] for c in counted(h)) == [2, 2, 2, 2]
    with pytest.raises(ServiceError) as refused:
        tournaments.enter(deps, None, TID, [entrant(h, "ninth")])
    assert refused.value.code == "tournament_full"
    assert h.accounts.balance("ninth") == 100
    check(h)


def test_r9_1_unregistering_is_the_registration_backwards_and_a_replay_is_answered() -> None:
    h = listed(60)
    ann = h.player("ann", chips=100)
    assert h.tournaments is not None
    version = h.tournaments.load(TID).version
    reply = ann.send(action="register", tournament_id=TID, request_id="reg-1")
    assert reply["type"] == "ack" and not reply["replayed"]
    again = ann.send(action="register", tournament_id=TID, request_id="reg-1")
    assert again["type"] == "ack" and again["replayed"]
    assert h.accounts.balance("ann") == 100 - ENTRY
    left = ann.send(action="unregister", tournament_id=TID, request_id="leave-1")
    assert left["type"] == "ack" and not left["replayed"]
    replay = ann.send(action="unregister", tournament_id=TID, request_id="leave-1")
    assert replay["type"] == "ack" and replay["replayed"]
    assert h.accounts.balance("ann") == 100 and not reg_items(h)
    assert sum(c["entrants"] for c in counted(h)) == 0
    other = ann.send(action="unregister", tournament_id=TID, request_id="leave-2")
    assert other["type"] == "error" and other["code"] == "not_registered"
    assert ann.send(action="register", tournament_id=TID)["type"] == "ack"  # again, later
    assert h.tournaments.load(TID).version == version
    check(h)


def test_r9_2_closing_registration_folds_the_counters_and_refuses_later_entries() -> None:
    h = listed(60)
    deps = h.service.deps
    assert h.tournaments is not None
    tournaments.enter(deps, None, TID, [entrant(h, f"p{n:02d}") for n in range(13)])
    h.clock.now += 60 * MINUTE
    scheduled.start_scheduled(deps, TID)
    record = h.tournaments.load(TID)
    assert record.status is TournamentStatus.RUNNING
    assert record.entrants == record.players_left == 13
    assert record.pool_held == 13 * ENTRY
    assert all(c["closed"] for c in counted(h))
    assert sum(record.seating.counts.values()) == 13  # type: ignore[union-attr]
    with pytest.raises(ServiceError) as refused:
        tournaments.enter(deps, None, TID, [entrant(h, "late")])
    assert refused.value.code == "registration_closed"
    assert h.accounts.balance("late") == 100
    assert h.store.audit().holds


def test_r9_2_a_registration_committed_while_registration_closes_is_in_the_field() -> None:
    """The close reads the counters, then a registration commits before the close does: the
    close fails its condition, reads again, and counts that entrant."""
    h = listed(60)
    deps = h.service.deps
    assert h.tournaments is not None
    tournaments.enter(deps, None, TID, [entrant(h, f"p{n:02d}") for n in range(5)])
    h.clock.now += 60 * MINUTE
    sneaked = entrant(h, "sneak")
    original = registrations.counters
    calls = {"n": 0}

    def counters_then_a_registration(store: Any, record: Any) -> Any:
        read = original(store, record)
        calls["n"] += 1
        if calls["n"] == 1:  # the close's read: a registration commits after it
            tournaments.enter(deps, None, TID, [sneaked])
        return read

    registrations.counters = counters_then_a_registration  # type: ignore[assignment]
    try:
        scheduled.start_scheduled(deps, TID)
    finally:
        registrations.counters = original  # type: ignore[assignment]
    record = h.tournaments.load(TID)
    assert record.status is TournamentStatus.RUNNING and record.entrants == 6
    assert record.pool_held == 6 * ENTRY and h.store.audit().holds


def test_r7_5_a_cancelled_scheduled_tournament_refunds_every_counted_entry() -> None:
    h = listed(60, min_players=10)
    deps = h.service.deps
    assert h.tournaments is not None
    tournaments.enter(deps, None, TID, [entrant(h, f"p{n:02d}") for n in range(4)])
    h.clock.now += 60 * MINUTE
    scheduled.start_scheduled(deps, TID)
    record = h.tournaments.load(TID)
    assert record.status is TournamentStatus.CANCELLED and record.pool_held == 0
    assert [h.accounts.balance(f"p{n:02d}") for n in range(4)] == [100] * 4
    assert h.store.audit().holds


def test_issue_23_the_tournament_item_stays_small_whatever_the_field() -> None:
    """The DynamoDB item of a registering tournament is the same size after 0 and 60
    registrations (the field grows in items of its own), under issue 23's 16 KB (most of it
    the terms, twice: the item's and the lobby's summary)."""
    h = listed(60)
    deps = h.service.deps
    assert h.tournaments is not None
    dynamo = DynamoTournamentStore(None, "tournaments", DynamoTableStore(
        None, "tables", "accounts", Sealer(bytes(32))))
    before = dynamodb_item_size(dynamo.to_item(h.tournaments.load(TID)))
    tournaments.enter(deps, None, TID, [entrant(h, f"p{n:02d}") for n in range(60)])
    after = dynamodb_item_size(dynamo.to_item(h.tournaments.load(TID)))
    assert after == before < 16_384


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=4, max_value=40),
       st.lists(st.tuples(st.sampled_from(["register", "unregister"]),
                          st.integers(min_value=0, max_value=59)), max_size=80),
       st.booleans())
def test_r9_1_property_registrations_and_unregistrations_keep_the_counts_and_the_chips(
        cap: int, operations: list[tuple[str, int]], start: bool) -> None:
    """Any sequence of registrations and unregistrations, then (maybe) the start: the
    counters count the registrations, within their quotas and the cap; every entry paid once
    and refunded at most once; chips conserved; after the close the tournament item counts
    the field exactly."""
    h = listed(cap)
    deps = h.service.deps
    assert h.tournaments is not None
    for n in range(60):
        h.accounts.grant(f"p{n:02d}", 100, ref="test")
    for operation, n in operations:
        caller = Caller(f"c{n}", f"p{n:02d}", f"{operation}-{len(h.accounts.ledger)}")
        try:
            if operation == "register":
                tournaments.enter(deps, caller, TID, [tournaments.Entrant(
                    caller.player_id, caller.player_id, False, caller.connection_id)])
            else:
                from naiko_service import protocol as p
                tournaments.unregister(deps, caller, p.Unregister(
                    action="unregister", request_id=caller.request_id, tournament_id=TID))
        except ServiceError as error:
            assert error.code in ("tournament_full", "already_registered", "not_registered")
        check(h)
    if start:
        field = len(reg_items(h))
        h.clock.now += 60 * MINUTE
        scheduled.start_scheduled(deps, TID)
        record = h.tournaments.load(TID)
        if record.status is TournamentStatus.RUNNING:
            assert record.entrants == record.players_left == field
        else:  # below the minimum: every counted entry refunded
            assert record.status is TournamentStatus.CANCELLED and field < 2
            assert record.entrants == record.pool_held == 0
        assert audit(dict(h.accounts.balances), list(h.accounts.ledger),
                     h.store.table_chips(), h.tournaments.pools()).holds
