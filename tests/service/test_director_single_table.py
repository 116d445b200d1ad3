"""R9.15 at a single table (issue 26 item 5): the director pauses, resumes, adds minutes to and
cancels a Sit & Go or a Spin as they do a scheduled tournament. Its one table deals without
reading the tournament item (R9.3: the level from its own copy of the clock), so each action is
ONE transaction over the table and the tournament: the table holds at once (a hand in progress
plays to its end, then nothing is dealt), takes the moved clock, closes with the cancel. A
Spin's cancel splits the entries (not the drawn multiplier's pool) by the published policy; a
move is refused (``single_table``). Every action is in the operator log and the tournament log
with who did it; a refusal writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko.tournaments import icm
from naiko.tournaments.prizes import SpinPrize, spin_payouts, split_pool
from naiko.tournaments.structures import MINUTE_MS, level_at
from naiko_local.tournament import Simulation, terms_for
from naiko_service.ports import ConcurrentUpdate, PutTable, PutTournament
from naiko_service.records import Hold, TableRecord, TimerKind
from naiko_service.tournament_records import HOUSE_PRIZES, TournamentStatus
from naiko_service.usecases import director, tournament_payments, tournaments, transaction
from naiko_service.usecases.accounts import OperatorError
from tournament_testing import play_director_actions, record_of, run_until, running

OLGA = "olga"
KINDS = ("sng", "spin")


def started(kind: str, players: int = 6, seed: int = 1, **changes: Any) -> Simulation:
    terms = replace(terms_for(kind, Variant.NLHE, 10, players), **changes)
    return running(Simulation(terms, 3 if kind == "spin" else players, seed, check=True))


def deps(simulation: Simulation) -> Any:
    return simulation.service.deps


def table(simulation: Simulation) -> TableRecord:
    (table_id,) = record_of(simulation).tables
    return simulation.store.load(table_id)


def until_hand(simulation: Simulation) -> None:
    while not table(simulation).state.hand_in_progress:
        assert simulation.step()


def until_between_hands(simulation: Simulation) -> None:
    while table(simulation).state.hand_in_progress:
        assert simulation.step()


def log(simulation: Simulation, kind: str) -> list[dict[str, Any]]:
    return [e for e in tournaments.export_log(deps(simulation), simulation.tournament_id)
            if e["type"] == kind]


def stacks_of(simulation: Simulation) -> dict[str, int]:
    return {s.player_id: s.stack for s in table(simulation).state.seats
            if s is not None and s.stack > 0}


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Every event fanned out to a table's players: ``(table id, kind)``."""
    seen: list[tuple[str, str]] = []
    fan_out = transaction.fan_out

    def recording(deps: Any, record: TableRecord, events: list[Any], **kw: Any) -> None:
        seen.extend((record.table_id, e.kind) for e in events)
        fan_out(deps, record, events, **kw)

    monkeypatch.setattr(transaction, "fan_out", recording)
    yield seen


@pytest.mark.parametrize("kind", KINDS)
def test_r9_15_a_single_table_pauses_after_its_hand_and_resumes_with_the_level_time_left(
        kind: str, told: list[tuple[str, str]]) -> None:
    simulation = started(kind)
    record = record_of(simulation)
    assert record.started_ms is not None and record.seating is None
    run_until(simulation, record.started_ms + MINUTE_MS + 20_000)
    until_hand(simulation)  # paused mid-hand: the hand is played to its end
    paused_at = simulation.clock.now
    level = level_at(record.terms.structure, record.started_ms, paused_at)
    assert level.next_ms is not None
    left = level.next_ms - paused_at
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "server maintenance")
    paused = record_of(simulation)
    assert paused.paused is not None and paused.paused["since_ms"] == paused_at
    assert not [t for t in paused.timers if t.kind is TimerKind.LEVEL]  # the clock stops
    held = table(simulation)
    assert held.state.hand_in_progress
    assert held.tournament is not None and held.tournament.hold == Hold.DIRECTOR  # at once
    assert (held.table_id, "tournament_paused") in told
    run_until(simulation, paused_at + 15 * MINUTE_MS)
    held = table(simulation)
    assert not held.state.hand_in_progress  # the hand ended ...
    assert not [t for t in held.timers if t.kind in (TimerKind.DECISION, TimerKind.NEXT_HAND)]
    assert not [h for h in log(simulation, "hand") if h["started_ms"] > paused_at]  # ... alone
    assert record_of(simulation).level == level.level.number  # no level passed
    resumed_at = simulation.clock.now
    director.resume(deps(simulation), simulation.tournament_id, OLGA, "maintenance over")
    after = record_of(simulation)
    assert after.started_ms == record.started_ms + (resumed_at - paused_at)
    timer = next(t for t in after.timers if t.kind is TimerKind.LEVEL)
    assert timer.due_ms == resumed_at + left  # the level's time left, no more, no less
    resumed = table(simulation)
    assert resumed.tournament is not None and resumed.tournament.hold is None
    assert resumed.tournament.started_ms == after.started_ms  # the table's own clock moved
    assert resumed.tournament.level_ends_ms == resumed_at + left
    assert (resumed.table_id, "tournament_resumed") in told
    run_until(simulation, resumed_at + left - 1)
    dealt = [h for h in log(simulation, "hand") if h["started_ms"] >= resumed_at]
    assert dealt and {h["level"] for h in dealt} == {level.level.number}
    entries = log(simulation, "director")
    assert [(e["action"], e["operator"]) for e in entries] == [("pause", OLGA),
                                                               ("resume", OLGA)]
    assert entries[1]["paused_ms"] == resumed_at - paused_at
    assert [a.action for a in simulation.accounts.operator_actions] == ["pause", "resume"]
    assert simulation.store.audit().holds


@pytest.mark.parametrize("kind", KINDS)
def test_r9_15_an_added_minute_moves_the_single_tables_own_clock(
        kind: str, told: list[tuple[str, str]]) -> None:
    """The table works its level out from its copy of the tournament's start (R9.3): the
    added minute is written to it in the same transaction, so the hands dealt in that minute
    are still at the old level."""
    simulation = started(kind)
    record = record_of(simulation)
    assert record.started_ms is not None
    run_until(simulation, record.started_ms + MINUTE_MS)
    before = next(t for t in record_of(simulation).timers if t.kind is TimerKind.LEVEL)
    director.add_minutes(deps(simulation), simulation.tournament_id, "pete", "a long hand", 2)
    after = record_of(simulation)
    timer = next(t for t in after.timers if t.kind is TimerKind.LEVEL)
    assert timer.due_ms == before.due_ms + 2 * MINUTE_MS and timer.token != before.token
    extended = table(simulation)
    assert extended.tournament is not None
    assert extended.tournament.started_ms == after.started_ms
    assert extended.tournament.level_ends_ms == timer.due_ms
    assert (extended.table_id, "level_extended") in told
    (line,) = log(simulation, "director")
    assert (line["action"], line["operator"], line["minutes"], line["level"],
            line["level_ends_ms"]) == ("add_minutes", "pete", 2, 1, timer.due_ms)
    simulation.clock.now = max(simulation.clock.now, before.due_ms)  # the stale timer fires
    simulation.service.timer_fired("T:" + simulation.tournament_id, before.token)
    assert record_of(simulation).level == 1
    run_until(simulation, timer.due_ms + 1_000)
    hands = log(simulation, "hand")
    assert [h for h in hands if before.due_ms <= h["started_ms"] < timer.due_ms]
    assert all(h["level"] == 1 for h in hands if h["started_ms"] < timer.due_ms)
    assert record_of(simulation).level == 2
    assert simulation.store.audit().holds


@pytest.mark.parametrize("policy", list(icm.SplitPolicy))
def test_r9_15_a_sit_and_go_cancelled_after_its_start_splits_the_prizes_left_by_policy(
        policy: icm.SplitPolicy, told: list[tuple[str, str]]) -> None:
    simulation = started("sng", players=5, cancellation=policy)
    while record_of(simulation).players_left > 4:
        assert simulation.step()
    until_hand(simulation)
    versions = record_of(simulation).to_document(), table(simulation).version
    with pytest.raises(OperatorError) as playing:  # mid-hand: refused, nothing written
        director.cancel(deps(simulation), simulation.tournament_id, OLGA, "storm")
    assert playing.value.code == "hand_in_progress"
    assert (record_of(simulation).to_document(), table(simulation).version) == versions
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "storm")
    until_between_hands(simulation)
    live = record_of(simulation)
    stacks = stacks_of(simulation)
    owed = sum(live.payouts) - sum(
        int(d["prize"]) for _, d in simulation.tournaments.items(live.tournament_id, "paid#"))
    house = simulation.accounts.balance("house:bots")
    director.cancel(deps(simulation), simulation.tournament_id, OLGA, "storm: no power")
    done = record_of(simulation)
    assert done.status is TournamentStatus.CANCELLED and done.pool_held == 0
    assert not [t for t in done.timers if t.kind is not TimerKind.PAYOUT]
    assert simulation.accounts.balance("house:bots") == house + owed  # the whole pool paid
    players = sorted(stacks, key=lambda p: (-stacks[p], p))
    prizes = list(live.payouts[:len(players)])
    while prizes and prizes[-1] == 0:
        prizes.pop()
    (cancelled,) = [e for e in log(simulation, "cancelled") if e.get("started")]
    assert cancelled["prizes"] == dict(zip(players, icm.split(
        policy, [stacks[p] for p in players], prizes), strict=True))
    assert cancelled["policy"] == cancelled["applied"] == policy.value
    closed = table(simulation)
    assert closed.closed and not closed.timers
    assert (closed.table_id, "tournament_cancelled") in told
    entry = log(simulation, "director")[-1]
    assert (entry["action"], entry["operator"], entry["started"]) == ("cancel", OLGA, True)
    again = simulation.accounts.balance("house:bots")
    tournament_payments.settle(deps(simulation), simulation.tournament_id)  # paid once
    assert simulation.accounts.balance("house:bots") == again
    run_until(simulation, simulation.clock.now + MINUTE_MS)
    assert not [h for h in log(simulation, "hand") if h["at_ms"] > entry["at_ms"]]
    assert not record_of(simulation).timers  # everything paid: the payout timer retired
    assert simulation.store.audit().holds


def _draw(simulation: Simulation, prize: SpinPrize) -> None:
    """The Spin's drawn row set to *prize* (its multiplier and split), as if drawn so."""
    record = record_of(simulation)
    new = record.copy()
    new.version += 1
    new.spin = prize
    new.payouts = spin_payouts(new.terms.prize_entry, prize)
    simulation.tournaments.commit((PutTournament(new, record.version),), ())


@pytest.mark.parametrize(("prize", "policy"), [
    (SpinPrize(2, 1, (100,)), icm.SplitPolicy.EQUAL),
    (SpinPrize(2, 1, (100,)), icm.SplitPolicy.CHIP_COUNT),
    (SpinPrize(1000, 1, (80, 10, 10)), icm.SplitPolicy.ICM),
    (SpinPrize(1000, 1, (80, 10, 10)), icm.SplitPolicy.CHIP_COUNT)])
def test_r9_15_a_spin_cancelled_returns_its_entries_by_policy_not_the_drawn_pool(
        prize: SpinPrize, policy: icm.SplitPolicy, told: list[tuple[str, str]]) -> None:
    """The multiplier was drawn at the start (R9.10), but only the entries are at stake: the
    players still in share the three entries by the published policy (split as the drawn
    row splits), and the house's prize account, which took the entries, pays them back: it
    ends where it was before the Spin, neither the multiplier's pool (1000x: far more) nor
    its edge (2x: less than the entries) paid."""
    simulation = started("spin", cancellation=policy)
    _draw(simulation, prize)
    house = simulation.accounts.balance(HOUSE_PRIZES)
    entries = 3 * record_of(simulation).terms.prize_entry
    until_hand(simulation)  # the first hand: nobody is out yet
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "the server room floods")
    until_between_hands(simulation)
    live = record_of(simulation)
    stacks = stacks_of(simulation)
    assert live.players_left == len(stacks) == 3
    director.cancel(deps(simulation), simulation.tournament_id, OLGA, "the server room floods")
    done = record_of(simulation)
    assert done.status is TournamentStatus.CANCELLED and done.pool_held == 0
    players = sorted(stacks, key=lambda p: (-stacks[p], p))
    shares = icm.split(policy, [stacks[p] for p in players], split_pool(entries, prize.split))
    (cancelled,) = [e for e in log(simulation, "cancelled") if e.get("started")]
    assert cancelled["prizes"] == dict(zip(players, shares, strict=True))
    assert sum(cancelled["prizes"].values()) == entries
    assert simulation.accounts.balance(HOUSE_PRIZES) == house - entries  # the entries back
    assert table(simulation).closed
    assert (table(simulation).table_id, "tournament_cancelled") in told
    assert simulation.store.audit().holds


@pytest.mark.parametrize("kind", KINDS)
def test_r9_15_a_move_at_a_single_table_is_refused_and_refusals_write_nothing(
        kind: str) -> None:
    simulation = started(kind)
    d, tid = deps(simulation), simulation.tournament_id
    player = next(iter(stacks_of(simulation)))

    def refused(code: str, call: Any, *args: Any) -> None:
        before = (record_of(simulation).to_document(), table(simulation).version,
                  len(simulation.accounts.operator_actions))
        with pytest.raises(OperatorError) as error:
            call(d, tid, *args)
        assert error.value.code == code, error.value
        assert (record_of(simulation).to_document(), table(simulation).version,
                len(simulation.accounts.operator_actions)) == before

    refused("single_table", director.move_player, player, "1", "2", OLGA, "by the rail")
    refused("not_paused", director.resume, OLGA, "nothing to resume")
    refused("invalid_request", director.add_minutes, OLGA, "too much", 61)
    director.pause(d, tid, OLGA, "maintenance")
    refused("already_paused", director.pause, OLGA, "again")
    refused("single_table", director.move_player, player, "1", "1", OLGA, "paused or not")
    unstarted = Simulation(terms_for(kind, Variant.NLHE, 10, 6), 1, 2, check=True)
    unstarted.register()  # one entrant: still registering
    with pytest.raises(OperatorError) as waiting:
        director.pause(unstarted.service.deps, unstarted.tournament_id, OLGA, "x")
    assert waiting.value.code == "not_running"


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(KINDS), st.integers(0, 2**32),
       st.lists(st.sampled_from(["pause", "resume", "minute", "move"]), min_size=2,
                max_size=6))
def test_r9_15_property_single_table_director_actions_keep_every_chip_and_deal_nothing_paused(
        kind: str, seed: int, actions: list[str]) -> None:
    """Random pauses, resumes, added minutes (and refused moves) at a Sit & Go or a Spin: the
    ledger identity and the stores' invariants after every transaction (the simulation checks
    them), no hand dealt while paused, the table's clock always the tournament's, every
    applied action logged once; a cancellation at the end (or the finish) pays everything."""
    simulation = started(kind, players=4, seed=seed % 1000)
    d, tid = deps(simulation), simulation.tournament_id

    def same_clock() -> None:
        record = record_of(simulation)
        info = table(simulation).tournament
        if record.status is TournamentStatus.RUNNING:
            assert info is not None and info.started_ms == record.started_ms

    play = play_director_actions(
        simulation, actions, 75_000, OLGA,
        lambda: director.move_player(d, tid, "bot-1", "1", "2", OLGA, "m"),
        ("already_paused", "not_paused", "not_running", "single_table"), same_clock)
    applied, paused_since, gaps = play.applied, play.paused_since, play.gaps
    if paused_since is not None:
        gaps.append((paused_since, simulation.clock.now))
    for hand in log(simulation, "hand"):
        assert not any(start < hand["started_ms"] < end for start, end in gaps), hand
    if record_of(simulation).status is TournamentStatus.RUNNING:
        if paused_since is None:
            director.pause(d, tid, OLGA, "p")
            applied += 1
        until_between_hands(simulation)  # the hand in play may be the last one
        if record_of(simulation).status is TournamentStatus.RUNNING:
            director.cancel(d, tid, OLGA, "c")
            applied += 1
    run_until(simulation, simulation.clock.now + 10 * MINUTE_MS)  # the payout timer retires
    record = record_of(simulation)
    assert record.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
    assert record.pool_held == 0 and not record.timers
    assert len(simulation.accounts.operator_actions) == applied == len(log(simulation,
                                                                           "director"))
    assert simulation.store.audit().holds


@pytest.mark.parametrize("kind", KINDS)
def test_r9_15_a_busy_single_table_refuses_the_action_whole_never_half(
        kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table and the tournament item change together or not at all: were the tournament
    paused and its table (busy) left untold, the table, which never reads the tournament to
    deal, would play on through the pause. Busy, the action is refused ``busy`` and nothing is
    written; once the table is free again, it applies."""
    simulation = started(kind)
    d, tid = deps(simulation), simulation.tournament_id
    table_id = table(simulation).table_id
    save, commit = simulation.store.save, simulation.tournaments.commit

    def busy_save(record: TableRecord, *args: Any, **kwargs: Any) -> None:
        if record.table_id == table_id:
            raise ConcurrentUpdate(table_id)
        save(record, *args, **kwargs)

    def busy_commit(writes: Any, moves: Any = ()) -> None:
        if any(isinstance(w, PutTable) and w.record.table_id == table_id for w in writes):
            raise ConcurrentUpdate(table_id)
        commit(writes, moves)

    monkeypatch.setattr(simulation.store, "save", busy_save)
    monkeypatch.setattr(simulation.tournaments, "commit", busy_commit)
    before = (record_of(simulation).to_document(), table(simulation).version,
              len(simulation.accounts.operator_actions))
    for call in (director.pause, director.add_minutes, director.cancel):
        with pytest.raises(OperatorError) as refused:
            call(d, tid, OLGA, "the table is busy")
        assert refused.value.code == "busy", (call, refused.value)
        assert (record_of(simulation).to_document(), table(simulation).version,
                len(simulation.accounts.operator_actions)) == before
    monkeypatch.undo()
    director.pause(d, tid, OLGA, "free again")
    held = table(simulation).tournament
    assert record_of(simulation).paused is not None
    assert held is not None and held.hold == Hold.DIRECTOR
