"""Scheduled tournaments through the service (R9.1, R9.2 scheduled, R9.11): the registration
opening, the start at its time or the cancellation below the minimum, the seating across
tables, and late registration with the prizes fixed when it closes. The real service and timers
on the in-memory adapters, in virtual time (:class:`naiko_local.tournament.Simulation`)."""

from __future__ import annotations

from dataclasses import replace
from math import ceil
from typing import Any

import pytest
from naiko.state import Variant
from naiko_local.tournament import Simulation, terms_for
from naiko_service.ports import ConcurrentUpdate, PutTournament
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import ServiceError, scheduled, tournaments
from naiko_service.usecases.private import HOUSE_BOTS
from naiko_service.usecases.tournament_uow import MAX_ATTEMPTS

ENTRY = 10
MINUTE = 60_000


def simulation(players: int, seats: int = 6, **changes: object) -> Simulation:
    terms = replace(terms_for("mtt", Variant.NLHE, ENTRY, players), seat_count=seats,
                    bots_allowed=True, **changes)  # type: ignore[arg-type]
    return Simulation(terms, players, 1, check=True)


def listed(sim: Simulation, opens_in: int | None = None, starts_in: int = 60 * MINUTE) -> str:
    now = sim.clock.now
    sim.tournament_id = "mtt-1"
    tournaments.create(sim.service.deps, "mtt-1", "Sunday", sim.terms, "ops",
                       starts_ms=now + starts_in,
                       opens_ms=None if opens_in is None else now + opens_in)
    return "mtt-1"


def humans(sim: Simulation, count: int, chips: int = 100) -> list[tournaments.Entrant]:
    entrants = []
    for n in range(count):
        sim.accounts.grant(f"p{n}", chips, ref="test")
        entrants.append(tournaments.Entrant(f"p{n}", f"p{n}"))
    return entrants


def run_until(sim: Simulation, until_ms: int) -> None:
    """Fire every execution due up to *until_ms*."""
    while sim.scheduler.heap and sim.scheduler.heap[0][0] <= until_ms:
        assert sim.step()
    sim.clock.now = max(sim.clock.now, until_ms)


def test_r7_5_r9_1_a_scheduled_tournament_refuses_entries_before_registration_opens() -> None:
    sim = simulation(20)
    tid = listed(sim, opens_in=10 * MINUTE)
    deps = sim.service.deps
    (ann,) = humans(sim, 1)
    summary = sim.tournaments.load(tid).summary()
    assert summary["opens_ms"] == sim.clock.now + 10 * MINUTE and summary["terms"]
    version = sim.tournaments.load(tid).version
    with pytest.raises(ServiceError) as refused:
        tournaments.enter(deps, None, tid, [ann])
    assert refused.value.code == "registration_not_open"
    assert sim.accounts.balance("p0") == 100 and sim.tournaments.load(tid).version == version
    sim.clock.now += 10 * MINUTE
    tournaments.enter(deps, None, tid, [ann])
    assert sim.accounts.balance("p0") == 100 - ENTRY
    # issue 23: counted on a registration counter, the tournament item not written
    assert tournaments.describe(deps, tid)["entrants"] == 1
    assert sim.tournaments.load(tid).version == version


def test_r9_1_registration_must_open_before_the_start() -> None:
    sim = simulation(20)
    with pytest.raises(ServiceError) as refused:
        listed(sim, opens_in=61 * MINUTE, starts_in=60 * MINUTE)
    assert refused.value.code == "invalid_request"


def test_r7_5_r9_2_below_its_minimum_a_scheduled_tournament_is_cancelled_and_refunded() -> None:
    sim = simulation(20, min_players=5)
    tid = listed(sim)
    deps = sim.service.deps
    tournaments.enter(deps, None, tid, humans(sim, 4))
    assert [sim.accounts.balance(f"p{n}") for n in range(4)] == [90] * 4
    run_until(sim, sim.clock.now + 62 * MINUTE)
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.CANCELLED and not record.tables
    assert [sim.accounts.balance(f"p{n}") for n in range(4)] == [100] * 4
    assert record.pool_held == 0 and sim.store.audit().holds
    (cancelled,) = [e for e in tournaments.export_log(deps, tid) if e["type"] == "cancelled"]
    assert cancelled["entrants"] == 4


@pytest.mark.parametrize(("players", "seats"), [(23, 6), (19, 9), (60, 9), (7, 6)])
def test_r9_2_at_its_time_players_are_seated_at_random_evenly_and_every_table_deals(
        players: int, seats: int) -> None:
    """ceil(N / seats) tables, sizes within one of each other, every player once with the
    starting stack; each table's first hand is dealt at the start (5 s after the start time,
    the players seeing their seats first)."""
    sim = simulation(players, seats=seats)
    tid = listed(sim)
    deps = sim.service.deps
    sim.accounts.grant(HOUSE_BOTS, ENTRY * players, ref="test")
    tournaments.enter(deps, None, tid, [tournaments.Entrant(f"bot-{n}", HOUSE_BOTS, True)
                                        for n in range(players)])
    starts = sim.tournaments.load(tid).starts_ms
    assert starts is not None
    run_until(sim, starts)
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.started_ms == starts + 5_000
    assert len(record.tables) == ceil(players / seats)
    sizes, seen = [], []
    for table_id in record.tables:
        table = sim.store.load(table_id)
        assert not table.state.hand_in_progress  # nothing dealt before the start
        occupied = [s for s in table.state.seats if s is not None]
        sizes.append(len(occupied))
        seen += [s.player_id for s in occupied]
        assert {s.stack for s in occupied} == {sim.terms.starting_stack}
    assert max(sizes) - min(sizes) <= 1 and sorted(seen) == sorted(
        f"bot-{n}" for n in range(players))
    run_until(sim, record.started_ms)  # type: ignore[arg-type]
    for table_id in record.tables:
        hand = sim.store.load(table_id).state.hand
        assert hand is not None and hand.number == 1
    started = [e for e in tournaments.export_log(deps, tid) if e["type"] == "started"]
    assert started[0]["entrants"] == players


def test_r9_2_the_seat_draw_differs_between_tournaments() -> None:
    layouts = set()
    for seed in (1, 2, 3):
        sim = simulation(14)
        sim.service.deps.rng.seed(seed)  # type: ignore[attr-defined]
        tid = listed(sim)
        sim.accounts.grant(HOUSE_BOTS, ENTRY * 14, ref="test")
        tournaments.enter(sim.service.deps, None, tid, [
            tournaments.Entrant(f"bot-{n}", HOUSE_BOTS, True) for n in range(14)])
        run_until(sim, sim.clock.now + 60 * MINUTE)
        record = sim.tournaments.load(tid)
        layouts.add(tuple(tuple(s.player_id if s else None for s in sim.store.load(t).state.seats)
                          for t in record.tables))
    assert len(layouts) == 3


def test_r9_11_late_entrants_are_seated_and_prizes_are_fixed_when_late_registration_closes(
) -> None:
    """Late registration until the end of level 2: entries after the start sit at the
    shortest table with the starting stack; players out meanwhile wait for their places;
    when it closes, ``prizes_final`` publishes the prizes for the whole field, and those out get
    the bottom places in the order they went out. Played to the end: places 1..N, prizes = pool."""
    sim = simulation(12, late_registration_level=2)
    tid = listed(sim)
    deps = sim.service.deps
    sim.accounts.grant(HOUSE_BOTS, ENTRY * 20, ref="test")
    tournaments.enter(deps, None, tid, [tournaments.Entrant(f"bot-{n}", HOUSE_BOTS, True)
                                        for n in range(12)])
    record = sim.tournaments.load(tid)
    assert record.starts_ms is not None
    run_until(sim, record.starts_ms + MINUTE)
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.payouts == []
    late = [tournaments.Entrant(f"bot-late-{n}", HOUSE_BOTS, True) for n in range(3)]
    tournaments.enter(deps, None, tid, late)
    record = sim.tournaments.load(tid)
    assert record.entrants == 15
    seating = record.seating
    for move in seating.pending if seating is not None else ():  # those waiting for a seat:
        assert move.from_table == 0 and move.player_id in {e.player_id for e in late}
        table = sim.store.load(seating.table_ids[move.to_table])  # type: ignore[union-attr]
        assert table.state.hand_in_progress  # ... wait for their table's hand to end

    def seated_late() -> list[dict[str, Any]]:
        return [e for e in tournaments.export_log(deps, tid)
                if e["type"] == "moved" and e["from_table"] is None]

    for _ in range(2_000):
        if len(seated_late()) == len(late):
            break
        assert sim.step()
    moved = seated_late()
    assert {e["player"] for e in moved} == {e.player_id for e in late}
    assert {e["stack"] for e in moved} == {sim.terms.starting_stack}
    ends = record.terms.late_registration_ends_ms(record.started_ms)  # type: ignore[arg-type]
    assert ends is not None
    run_until(sim, ends + 1_000)
    with pytest.raises(ServiceError) as refused:
        tournaments.enter(deps, None, tid, [tournaments.Entrant("bot-too-late", HOUSE_BOTS, True)])
    assert refused.value.code == "registration_closed"
    log = tournaments.export_log(deps, tid)
    (final,) = [e for e in log if e["type"] == "prizes_final"]
    assert final["entrants"] == 15 and final["prize_pool"] == 15 * ENTRY
    for _ in range(60_000):  # bounded: a stuck table must fail, not hang
        if sim.finished():
            break
        assert sim.step()
    assert sim.finished()
    log = tournaments.export_log(deps, tid)
    finished = next(e for e in log if e["type"] == "finished")
    assert len(finished["places"]) == 15 and min(finished["places"].values()) == 1
    assert max(finished["places"].values()) <= 15
    assert sum(finished["prizes"].values()) == 15 * ENTRY


@pytest.mark.parametrize("players", [3, 8])
def test_r9_11_a_field_that_falls_to_one_during_late_registration_finishes_at_once(
        players: int) -> None:
    """Late registration to the end of level 8 (40 minutes), a starting stack of one big
    blind: the field is all-in from the first hands and falls to one player long before
    registration closes. Registration closes then (``prizes_final`` for the field, a later
    entry refused), every player gets a place (those out earlier from the bottom, in the order
    they went out), the winner is paid, and the tournament finishes: nobody waits at an empty
    table for entrants. With 8 players the field starts at two 6-seat tables."""
    sim = simulation(players, starting_stack=100, late_registration_level=8)
    tid = listed(sim)
    deps = sim.service.deps
    sim.accounts.grant(HOUSE_BOTS, ENTRY * players, ref="test")
    tournaments.enter(deps, None, tid, [tournaments.Entrant(f"bot-{n}", HOUSE_BOTS, True)
                                        for n in range(players)])
    record = sim.tournaments.load(tid)
    assert record.starts_ms is not None
    run_until(sim, record.starts_ms + 1_000)
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.payouts == []
    assert len(record.seating.counts) == ceil(players / 6)  # type: ignore[union-attr]
    ends = record.terms.late_registration_ends_ms(record.started_ms)  # type: ignore[arg-type]
    assert ends is not None
    for _ in range(20_000):  # bounded: a tournament that never ends must fail, not hang
        if sim.finished() or sim.clock.now >= ends:
            break
        assert sim.step()
    assert sim.finished() and sim.clock.now < ends, "the last player waited for entrants"
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.FINISHED and record.players_left == 1
    assert record.late == [] and record.pool_held == 0 and sim.store.audit().holds
    assert not any(t.kind.value == "late_close" for t in record.timers)
    log = tournaments.export_log(deps, tid)
    kinds = [e["type"] for e in log]
    assert kinds.count("prizes_final") == 1 and kinds[-1] == "finished"
    (final,) = [e for e in log if e["type"] == "prizes_final"]
    assert final["entrants"] == players and final["prize_pool"] == players * ENTRY
    out = [e for e in log if e["type"] == "eliminated"]
    assert len(out) == players - 1
    finished = log[-1]
    places = sorted(finished["places"].values())
    assert len(places) == players and places[0] == 1 and places[1] > 1
    assert sum(finished["prizes"].values()) == players * ENTRY == sum(record.payouts)
    paid = sim.tournaments.items(tid, "paid#")
    assert sorted((d["player_id"], d["prize"]) for _, d in paid) == sorted(
        finished["prizes"].items())
    with pytest.raises(ServiceError) as refused:
        tournaments.enter(deps, None, tid, [tournaments.Entrant("bot-too-late", HOUSE_BOTS, True)])
    assert refused.value.code in ("registration_closed", "tournament_finished")


# -- the start through the tournament unit of work (issue 22 item 3) -------------------------

def racing_commit(sim: Simulation, when: Any, other: Any) -> list[int]:
    """Run *other* once, just before the first commit whose tournament item satisfies *when*
    (after the start read the item, before its commit lands): the commit then meets the
    other's write. Returns a list that counts the races."""
    commit = sim.tournaments.commit
    raced: list[int] = []

    def racing(writes: tuple[Any, ...], moves: tuple[Any, ...] = ()) -> None:
        if not raced and any(isinstance(w, PutTournament) and when(w.record) for w in writes):
            raced.append(1)
            other()
        commit(writes, moves)

    sim.tournaments.commit = racing  # type: ignore[method-assign]
    return raced


def test_r9_2_an_entry_committed_while_the_start_closes_registration_is_in_the_field() -> None:
    sim = simulation(20)
    tid = listed(sim)
    deps = sim.service.deps
    tournaments.enter(deps, None, tid, humans(sim, 6))
    sim.accounts.grant("late", 100, ref="test")
    raced = racing_commit(
        sim, lambda record: record.status is TournamentStatus.STARTING,
        lambda: tournaments.enter(deps, None, tid, [tournaments.Entrant("late", "late")]))
    sim.clock.now = sim.tournaments.load(tid).starts_ms  # type: ignore[assignment]
    scheduled.start_scheduled(deps, tid)
    record = sim.tournaments.load(tid)
    assert raced == [1]
    assert record.status is TournamentStatus.RUNNING and record.entrants == 7
    seated = [s.player_id for t in record.tables for s in sim.store.load(t).state.seats if s]
    assert sorted(seated) == sorted([f"p{n}" for n in range(6)] + ["late"])
    assert sim.store.audit().holds


def test_r9_2_a_start_run_twice_at_once_seats_the_field_once() -> None:
    """A duplicated execution of the start: both draw the same seats from the kept seed; the
    one that commits second finds the tournament running and writes nothing."""
    sim = simulation(20)
    tid = listed(sim)
    deps = sim.service.deps
    tournaments.enter(deps, None, tid, humans(sim, 13))
    raced = racing_commit(sim, lambda record: record.status is TournamentStatus.RUNNING,
                          lambda: scheduled.start_scheduled(deps, tid))
    sim.clock.now = sim.tournaments.load(tid).starts_ms  # type: ignore[assignment]
    scheduled.start_scheduled(deps, tid)
    record = sim.tournaments.load(tid)
    assert raced == [1] and record.status is TournamentStatus.RUNNING
    assert len(record.tables) == 3
    seated = [s.player_id for t in record.tables for s in sim.store.load(t).state.seats if s]
    assert sorted(seated) == sorted(f"p{n}" for n in range(13))
    started = [e for e in tournaments.export_log(deps, tid) if e["type"] == "started"]
    assert len(started) == 1
    assert sim.store.audit().holds


def test_r9_2_a_start_that_always_conflicts_is_busy_and_changes_nothing() -> None:
    sim = simulation(20)
    tid = listed(sim)
    deps = sim.service.deps
    deps.pause = lambda seconds: None
    tournaments.enter(deps, None, tid, humans(sim, 6))
    before = sim.tournaments.load(tid).to_document()
    commits: list[int] = []

    def conflicting(writes: tuple[Any, ...], moves: tuple[Any, ...] = ()) -> None:
        commits.append(1)
        raise ConcurrentUpdate(tid)

    sim.tournaments.commit = conflicting  # type: ignore[method-assign]
    sim.clock.now = sim.tournaments.load(tid).starts_ms  # type: ignore[assignment]
    with pytest.raises(ServiceError) as refused:
        scheduled.start_scheduled(deps, tid)
    assert refused.value.code == "busy" and len(commits) == MAX_ATTEMPTS
    assert sim.tournaments.load(tid).to_document() == before  # still registering, start timer


def test_r9_2_a_crash_between_the_starts_two_transactions_is_taken_up_by_its_start_timer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Registration closed (``starting``), then the process died before the field was seated:
    a ``start`` timer is still armed, and its execution seats the field once."""
    sim = simulation(20)
    tid = listed(sim)
    deps = sim.service.deps
    tournaments.enter(deps, None, tid, humans(sim, 7))
    sim.clock.now = sim.tournaments.load(tid).starts_ms  # type: ignore[assignment]

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the container died")

    seat_field = scheduled._seat_field
    monkeypatch.setattr(scheduled, "_seat_field", crash)
    with pytest.raises(RuntimeError):
        scheduled.start_scheduled(deps, tid)
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.STARTING
    starts = [t for t in record.timers if t.kind.value == "start"]
    assert len(starts) == 1 and starts[0].due_ms == sim.clock.now + scheduled.START_RETRY_MS
    monkeypatch.setattr(scheduled, "_seat_field", seat_field)
    sim.clock.now = starts[0].due_ms
    assert tournaments.tournament_timer(deps, tid, starts[0].token) == 1
    record = sim.tournaments.load(tid)
    assert record.status is TournamentStatus.RUNNING
    assert not [t for t in record.timers if t.kind.value == "start"]
    seated = [s.player_id for t in record.tables for s in sim.store.load(t).state.seats if s]
    assert sorted(seated) == sorted(f"p{n}" for n in range(7))
    assert sim.store.audit().holds
