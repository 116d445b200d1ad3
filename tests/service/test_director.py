"""R9.15, the director's tools (issue 26 item 5), on the in-memory adapters: an operator pauses
and resumes a whole scheduled tournament (every table finishes its hand, then holds; clocks and
level timers stop; the level goes on with the time it had left), adds a minute to the level,
moves a player between hands, and cancels (before the start every entry back; after it the
prizes left split by the published policy, each paid once); every action in the operator log
and the tournament log with who did it, a refusal writes nothing, and no player's route
reaches any of it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko.tournaments import icm
from naiko.tournaments.structures import MINUTE_MS, TournamentTerms, level_at
from naiko_local.tournament import Simulation, terms_for
from naiko_service.ports import LedgerReason, OperatorAction, PutTournament
from naiko_service.records import Hold, TableRecord, TimerKind
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import (
    director,
    tournament_log,
    tournament_payments,
    tournaments,
    transaction,
)
from naiko_service.usecases.accounts import OperatorError
from tournament_testing import (
    play_director_actions,
    record_of,
    run_until,
    script,
    started,
    the_hands_last_deadline,
)

OLGA = "olga"


def deps(simulation: Simulation) -> Any:
    return simulation.service.deps


def tables(simulation: Simulation) -> list[TableRecord]:
    seating = record_of(simulation).seating
    assert seating is not None
    return [simulation.store.load(t) for t in seating.table_ids.values()]


def log(simulation: Simulation, kind: str) -> list[dict[str, Any]]:
    return [e for e in tournaments.export_log(deps(simulation), simulation.tournament_id)
            if e["type"] == kind]


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


def test_r9_15_pause_holds_every_table_after_its_hand_and_resume_keeps_the_level_time(
        told: list[tuple[str, str]]) -> None:
    simulation = started()
    record = record_of(simulation)
    assert record.started_ms is not None
    run_until(simulation, record.started_ms + 2 * MINUTE_MS + 30_000)
    paused_at = simulation.clock.now
    level = level_at(record.terms.structure, record.started_ms, paused_at)
    assert level.next_ms is not None
    left = level.next_ms - paused_at
    playing = sum(t.state.hand_in_progress for t in tables(simulation))
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "server maintenance")
    paused = record_of(simulation)
    assert paused.paused is not None and paused.paused["since_ms"] == paused_at
    assert not [t for t in paused.timers if t.kind is TimerKind.LEVEL]  # the level stops
    ids = {t.table_id for t in tables(simulation)}
    assert {tid for tid, kind in told if kind == "tournament_paused"} == ids  # all told
    assert playing  # some hands were in progress: they are played to their end
    run_until(simulation, paused_at + 20 * MINUTE_MS)
    for table in tables(simulation):
        assert not table.state.hand_in_progress
        assert not [t for t in table.timers if t.kind is TimerKind.DECISION]  # no clock
        assert table.tournament is not None and table.tournament.hold == Hold.DIRECTOR
    hands = log(simulation, "hand")
    assert not [h for h in hands if h["started_ms"] > paused_at], "a hand dealt while paused"
    assert record_of(simulation).level == level.level.number  # no level passed
    resumed_at = simulation.clock.now
    director.resume(deps(simulation), simulation.tournament_id, OLGA, "maintenance over")
    after = record_of(simulation)
    assert after.paused is None and after.started_ms == record.started_ms + (resumed_at
                                                                            - paused_at)
    timer = next(t for t in after.timers if t.kind is TimerKind.LEVEL)
    assert timer.due_ms == resumed_at + left  # the level's remaining time, no more, no less
    assert {tid for tid, kind in told if kind == "tournament_resumed"} == ids
    for table in tables(simulation):
        assert table.tournament is not None and table.tournament.hold != Hold.DIRECTOR
        assert table.tournament.started_ms == after.started_ms
    run_until(simulation, resumed_at + 2 * MINUTE_MS)
    dealt = [h for h in log(simulation, "hand") if h["started_ms"] >= resumed_at]
    assert dealt and all(h["level"] == level.level.number for h in dealt
                         if h["started_ms"] < resumed_at + left)
    assert simulation.store.audit().holds  # (checked after every transaction too)


def test_r9_15_an_added_minute_moves_the_level_timer_and_a_stale_timer_is_ignored(
        told: list[tuple[str, str]]) -> None:
    simulation = started()
    record = record_of(simulation)
    assert record.started_ms is not None
    run_until(simulation, record.started_ms + MINUTE_MS)
    before = next(t for t in record_of(simulation).timers if t.kind is TimerKind.LEVEL)
    director.add_minutes(deps(simulation), simulation.tournament_id, OLGA, "a long hand")
    after = record_of(simulation)
    timer = next(t for t in after.timers if t.kind is TimerKind.LEVEL)
    assert timer.due_ms == before.due_ms + MINUTE_MS and timer.token != before.token
    assert {kind for _, kind in told} >= {"level_extended"}
    assert all(t.tournament is not None and t.tournament.level_ends_ms == timer.due_ms
               for t in tables(simulation))
    # what the tables were told (and the log says): the level and its new end
    line = log(simulation, "director")[-1]
    assert (line["level"], line["minutes"], line["level_ends_ms"]) == (1, 1, timer.due_ms)
    # the execution armed for the old start of level 2 fires: nothing happens
    simulation.clock.now = before.due_ms
    simulation.service.timer_fired("T:" + simulation.tournament_id, before.token)
    assert record_of(simulation).level == 1
    assert [t.token for t in record_of(simulation).timers if t.kind is TimerKind.LEVEL] == [
        timer.token]
    run_until(simulation, timer.due_ms + 1_000)
    assert record_of(simulation).level == 2
    hands = log(simulation, "hand")
    assert all(h["level"] == 1 for h in hands if h["started_ms"] < timer.due_ms)


def test_r9_15_a_move_keeps_the_stack_and_time_bank_and_is_refused_mid_hand_or_when_full(
        told: list[tuple[str, str]]) -> None:
    simulation = started()
    record = record_of(simulation)
    assert record.seating is not None
    numbers = sorted(record.seating.table_ids)
    with pytest.raises(OperatorError) as refused:  # pausing first is how a director moves
        while True:
            source = simulation.store.load(record.seating.table_ids[numbers[0]])
            if source.state.hand_in_progress:
                player = next(s.player_id for s in source.state.seats if s is not None)
                director.move_player(deps(simulation), simulation.tournament_id, player,
                                     str(numbers[0]), str(numbers[1]), OLGA, "balance")
            assert simulation.step()
    assert refused.value.code == "hand_in_progress"
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "to move a player")
    run_until(simulation, simulation.clock.now + 5 * MINUTE_MS)
    source = simulation.store.load(record.seating.table_ids[numbers[0]])
    target = simulation.store.load(record.seating.table_ids[numbers[1]])
    seat = next(s for s in source.state.seats if s is not None)
    source.banks[seat.player_id] = [12_345, 1]  # a bank partly spent
    simulation.store._items[source.table_id] = simulation.store._item(source)
    before = (seat.stack, sum(s.stack for t in tables(simulation) for s in t.state.seats if s))
    log_before = len(simulation.accounts.operator_actions)
    director.move_player(deps(simulation), simulation.tournament_id, seat.player_id,
                         source.table_id, str(numbers[1]), OLGA, "seat a player by the rail")
    moved_to = simulation.store.load(target.table_id)
    index = moved_to.seat_of(seat.player_id)
    assert index is not None and simulation.store.load(source.table_id).seat_of(
        seat.player_id) is None
    stack = moved_to.state.seats[index]
    assert stack is not None and stack.stack == before[0]
    assert moved_to.banks[seat.player_id] == [12_345, 1]
    assert sum(s.stack for t in tables(simulation) for s in t.state.seats if s) == before[1]
    assert ("player_moved" in {k for tid, k in told if tid == target.table_id})
    moved = log(simulation, "moved")[-1]
    assert (moved["player"], moved["to_table"]) == (seat.player_id, target.table_id)
    entry = log(simulation, "director")[-1]
    assert (entry["action"], entry["operator"], entry["player"]) == ("move", OLGA,
                                                                     seat.player_id)
    assert len(simulation.accounts.operator_actions) == log_before + 1
    # a full table: fill the target's empty seats from the other tables, then one more
    while simulation.store.load(target.table_id).state.seats.count(None):
        donor = max((t for t in tables(simulation) if t.table_id != target.table_id),
                    key=lambda t: sum(1 for s in t.state.seats if s))
        player = next(s.player_id for s in donor.state.seats if s is not None)
        director.move_player(deps(simulation), simulation.tournament_id, player,
                             donor.table_id, target.table_id, OLGA, "fill it")
    donor = next(t for t in tables(simulation) if t.table_id != target.table_id
                 and any(t.state.seats))
    player = next(s.player_id for s in donor.state.seats if s is not None)
    versions = [t.version for t in tables(simulation)], record_of(simulation).version
    with pytest.raises(OperatorError) as full:
        director.move_player(deps(simulation), simulation.tournament_id, player,
                             donor.table_id, target.table_id, OLGA, "one too many")
    assert full.value.code == "table_full"
    with pytest.raises(OperatorError) as absent:
        director.move_player(deps(simulation), simulation.tournament_id, "nobody",
                             donor.table_id, target.table_id, OLGA, "who?")
    assert absent.value.code == "not_at_table"
    assert ([t.version for t in tables(simulation)], record_of(simulation).version) == versions
    assert simulation.store.audit().holds


def test_r9_15_a_move_after_a_deadline_that_ended_the_hand_writes_the_hand_first() -> None:
    # The move's write catches the source table's deadlines up (R8.1); the last one ends the
    # hand, which writes the tournament's items (players out, results, log) that the move
    # writes too: one transaction may name an item once (DynamoDB refuses it whole, and so does
    # the in-memory store), so the hand's end is written first and the move reads it.
    simulation = started()
    record = record_of(simulation)
    assert record.seating is not None
    numbers = sorted(record.seating.table_ids)
    source_id, target_id = (record.seating.table_ids[n] for n in numbers[:2])
    while not simulation.store.load(source_id).state.hand_in_progress:
        assert simulation.step()
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "to move a player")
    while (last := the_hands_last_deadline(deps(simulation),
                                           simulation.store.load(source_id))) is None:
        assert simulation.step()
    timer, ended = last
    simulation.clock.now = timer.due_ms + 1  # past, and its wake-up not delivered yet
    before = simulation.store.load(source_id)
    out_before = len(simulation.tournaments.items(simulation.tournament_id, "out#"))
    chips = sum(s.stack for t in [ended, *(t for t in tables(simulation)
                                           if t.table_id != source_id)]
                for s in t.state.seats if s)  # the hand ended: no chip in a pot
    player = max((s for s in ended.state.seats if s is not None), key=lambda s: s.stack)
    director.move_player(deps(simulation), simulation.tournament_id, player.player_id,
                         source_id, target_id, OLGA, "balance")
    source, target = simulation.store.load(source_id), simulation.store.load(target_id)
    assert source.version == before.version + 2  # the hand's end, then the move
    assert not source.state.hand_in_progress and source.hands_closed == ended.hands_closed
    assert source.seat_of(player.player_id) is None
    assert target.seat_of(player.player_id) is not None
    busted = {s.player_id for s in before.state.seats if s} - {
        s.player_id for s in ended.state.seats if s}
    assert busted  # the hand's end wrote the tournament item (the case of this test)
    outs = {key.rsplit("#", 1)[1] for key, _ in simulation.tournaments.items(
        simulation.tournament_id, "out#")}
    assert len(outs) == out_before + len(busted) and busted <= outs
    assert record_of(simulation).players_left == record.players_left - len(outs)
    assert log(simulation, "moved")[-1]["player"] == player.player_id
    assert log(simulation, "director")[-1]["action"] == "move"
    assert sum(s.stack for t in tables(simulation) for s in t.state.seats if s) == chips
    assert simulation.store.audit().holds


def test_r9_15_a_transaction_naming_one_item_twice_is_refused_whole() -> None:
    """As DynamoDB's TransactWriteItems: the in-memory store refuses a transaction that names
    one item twice, and writes nothing of it."""
    simulation = started()
    stored = record_of(simulation)
    first, second = stored.copy(), stored.copy()
    first.version = second.version = stored.version + 1
    second.level += 1
    with pytest.raises(ValueError, match="touches an item twice"):
        simulation.tournaments.commit((PutTournament(first, stored.version),
                                       PutTournament(second, stored.version)))
    assert record_of(simulation).to_document() == stored.to_document()


def test_r9_15_cancelled_before_the_start_every_entry_is_returned_once() -> None:
    terms = terms_for("mtt", Variant.NLHE, 10, 13)
    simulation = Simulation(terms, 13, 1, check=True)
    simulation.register()
    house = simulation.accounts.balance("house:bots")
    director.cancel(deps(simulation), simulation.tournament_id, OLGA, "the venue closed")
    record = record_of(simulation)
    assert record.status is TournamentStatus.CANCELLED
    assert simulation.tournaments.pools()[simulation.tournament_id] == 0  # counters included
    assert simulation.accounts.balance("house:bots") == house + 13 * 10
    refunds = [e for e in simulation.accounts.ledger
               if e.player_id == "house:bots" and e.reason is LedgerReason.UNREGISTER]
    assert len(refunds) == 13
    tournament_payments.settle(deps(simulation), simulation.tournament_id)  # the timer, again
    assert simulation.accounts.balance("house:bots") == house + 13 * 10
    (entry,) = log(simulation, "director")
    assert (entry["action"], entry["operator"], entry["started"]) == ("cancel", OLGA, False)
    assert simulation.store.audit().holds
    with pytest.raises(OperatorError) as again:
        director.cancel(deps(simulation), simulation.tournament_id, OLGA, "twice")
    assert again.value.code == "not_running"


@pytest.mark.parametrize("policy", list(icm.SplitPolicy))
def test_r9_15_cancelled_after_the_start_the_prizes_left_are_split_by_the_published_policy(
        policy: icm.SplitPolicy, told: list[tuple[str, str]]) -> None:
    simulation = started(players=8, cancellation=policy)
    record = record_of(simulation)
    assert record.started_ms is not None and record.terms.cancellation is policy
    assert TournamentTerms.from_dict(record.terms.to_dict()).cancellation is policy
    while record_of(simulation).players_left > 6:
        assert simulation.step()
    with pytest.raises(OperatorError) as unpaused:
        director.cancel(deps(simulation), simulation.tournament_id, OLGA, "storm")
    assert unpaused.value.code == "not_paused"
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "storm")
    run_until(simulation, simulation.clock.now + 5 * MINUTE_MS)
    live = record_of(simulation)
    stacks = {s.player_id: s.stack for t in tables(simulation) for s in t.state.seats
              if s is not None and s.stack > 0}
    owed = sum(live.payouts) - sum(
        int(d["prize"]) for _, d in simulation.tournaments.items(live.tournament_id, "paid#"))
    house = simulation.accounts.balance("house:bots")
    director.cancel(deps(simulation), simulation.tournament_id, OLGA, "storm: no power")
    done = record_of(simulation)
    assert done.status is TournamentStatus.CANCELLED and done.pool_held == 0
    assert simulation.accounts.balance("house:bots") == house + owed  # BOTs: the house's
    (cancelled,) = [e for e in log(simulation, "cancelled") if e.get("started")]
    players = sorted(stacks, key=lambda p: (-stacks[p], p))
    prizes = [p for p in live.payouts[:len(players)]]
    while prizes and prizes[-1] == 0:
        prizes.pop()
    assert cancelled["prizes"] == dict(zip(players, icm.split(
        policy, [stacks[p] for p in players], prizes), strict=True))
    assert cancelled["policy"] == cancelled["applied"] == policy.value
    paid = {k: d for k, d in simulation.tournaments.items(live.tournament_id, "paid#")}
    assert all(f"paid#{p}" in paid for p, prize in cancelled["prizes"].items() if prize)
    assert {kind for _, kind in told} >= {"tournament_cancelled"}
    assert all(t.closed for t in tables(simulation))
    again = simulation.accounts.balance("house:bots")
    tournament_payments.settle(deps(simulation), simulation.tournament_id)  # paid once
    assert simulation.accounts.balance("house:bots") == again
    run_until(simulation, simulation.clock.now + 5 * MINUTE_MS)
    assert not record_of(simulation).timers  # every share paid: the payout timer retired
    assert simulation.store.audit().holds


def test_r9_15_issue_23_a_cancellations_log_entry_comes_in_parts_read_back_whole(
        monkeypatch: Any) -> None:
    """The ``cancelled`` entry after the start carries every player's stack, prize and place
    (about 45 B each): in parts under 16 KB (here parts of 100 B), the ``cancelled`` entry
    with ``parts`` N and ``cancelled_part`` entries 2..N, read back whole by ``joined``."""
    monkeypatch.setattr(tournament_log, "LOG_PART_BYTES", 100)
    simulation = started(players=8)
    director.pause(deps(simulation), simulation.tournament_id, OLGA, "storm")
    run_until(simulation, simulation.clock.now + 5 * MINUTE_MS)
    stacks = {s.player_id: s.stack for t in tables(simulation) for s in t.state.seats
              if s is not None and s.stack > 0}
    director.cancel(deps(simulation), simulation.tournament_id, OLGA, "storm: no power")
    entries = tournaments.export_log(deps(simulation), simulation.tournament_id)
    (first,) = [e for e in entries if e["type"] == "cancelled"]
    rest = [e for e in entries if e["type"] == "cancelled_part"]
    assert first["parts"] == len(rest) + 1 > 2
    whole = tournament_log.joined(entries, "cancelled", "cancelled_part")
    assert whole["stacks"] == stacks and set(whole["places"]) == set(stacks)
    assert set(whole["prizes"]) == set(stacks) and whole["policy"] == first["policy"]


@pytest.mark.parametrize("policy", list(icm.SplitPolicy))
def test_r9_15_a_cancellation_after_the_start_retires_its_payout_timer_once_every_share_is_paid(
        policy: icm.SplitPolicy, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cancelled after its start, a tournament's entries stay in (a share is paid per player
    still in, each with its ``paid#`` item), so "every entry returned" never comes: the payout
    timer must go once every share is paid, and not before. Here the cancellation's own
    payments do not run (as if its invocation ended right after the write), so the payout
    timer pays the shares; while one is unpaid it stays, then it retires and fires no more."""
    simulation = started(players=8, cancellation=policy)
    while record_of(simulation).players_left > 6:
        assert simulation.step()
    d, tid = deps(simulation), simulation.tournament_id
    director.pause(d, tid, OLGA, "storm")
    run_until(simulation, simulation.clock.now + 5 * MINUTE_MS)
    monkeypatch.setattr(director, "pay_cancellation", lambda deps, tournament_id: 0)
    director.cancel(d, tid, OLGA, "storm: no power")
    shares = {str(row["player_id"]) for _, chunk in simulation.tournaments.items(tid, "cancel#")
              for row in chunk["rows"] if int(row["prize"]) > 0}
    assert shares and record_of(simulation).status is TournamentStatus.CANCELLED

    def payout_timers() -> list[Any]:
        return [t for t in record_of(simulation).timers if t.kind is TimerKind.PAYOUT]

    tournament_payments.retire_payout_timer(d, tid)  # shares owed: it stays
    assert payout_timers()
    assert tournament_payments.paid_players(simulation.tournaments, tid).isdisjoint(shares)
    run_until(simulation, simulation.clock.now + 10 * MINUTE_MS)  # the payout timer fires
    assert tournament_payments.paid_players(simulation.tournaments, tid) >= shares
    assert record_of(simulation).pool_held == 0
    assert not payout_timers()  # every share paid: retired
    fired = simulation.executions
    run_until(simulation, simulation.clock.now + 10 * MINUTE_MS)
    assert simulation.executions == fired  # nothing comes back
    assert simulation.store.audit().holds


def test_r9_15_each_action_is_in_the_operator_log_and_the_tournament_log_with_who() -> None:
    simulation = started()
    d, tid = deps(simulation), simulation.tournament_id
    director.pause(d, tid, "olga", "maintenance")
    run_until(simulation, simulation.clock.now + MINUTE_MS)
    director.add_minutes(d, tid, "pete", "one more minute", 2)
    run_until(simulation, simulation.clock.now + MINUTE_MS)
    director.resume(d, tid, "olga", "back")
    actions: list[OperatorAction] = simulation.accounts.operator_actions
    assert [(a.action, a.operator, a.details["tournament_id"]) for a in actions] == [
        ("pause", "olga", tid), ("add_minutes", "pete", tid), ("resume", "olga", tid)]
    entries = log(simulation, "director")
    assert [(e["action"], e["operator"], e["reason"], e["action_id"]) for e in entries] == [
        (a.action, a.operator, a.reason, a.action_id) for a in actions]
    assert entries[1]["minutes"] == 2
    from naiko_service.usecases import accounts
    page, _ = accounts.operator_log(simulation.accounts)
    assert [a.action for a in page] == ["resume", "add_minutes", "pause"]  # newest first


def test_r9_15_refusals_have_a_stable_code_and_write_nothing() -> None:
    simulation = started()
    d, tid = deps(simulation), simulation.tournament_id

    def refused(code: str, call: Any, *args: Any) -> None:
        before = (record_of(simulation).to_document(), [t.version for t in tables(simulation)],
                  len(simulation.accounts.operator_actions))
        with pytest.raises(OperatorError) as error:
            call(d, tid, *args)
        assert error.value.code == code
        assert (record_of(simulation).to_document(), [t.version for t in tables(simulation)],
                len(simulation.accounts.operator_actions)) == before

    refused("not_paused", director.resume, OLGA, "nothing to resume")
    refused("invalid_request", director.add_minutes, OLGA, "too much", 61)
    refused("invalid_request", director.add_minutes, OLGA, "", 1)  # a reason is required
    refused("invalid_request", director.pause, "", "who?")  # so is who acts
    director.pause(d, tid, OLGA, "maintenance")
    refused("already_paused", director.pause, OLGA, "again")
    refused("same_table", director.move_player, "bot-1", "1", "1", OLGA, "here")
    refused("unknown_table", director.move_player, "bot-1", "1", "99", OLGA, "where?")
    with pytest.raises(OperatorError) as unknown:
        director.pause(d, "no-such-tournament", OLGA, "x")
    assert unknown.value.code == "unknown_tournament"


def test_r9_15_no_players_route_reaches_the_directors_tools() -> None:
    """The tools are the operator's (``scripts/director.py`` with an operator's AWS
    credentials), like R10.3's account actions: a player asking for them over the WebSocket
    gets a stable error and nothing changes; the creator's own ``cancel_tournament`` is refused
    once play started."""
    from service_testing import harness
    from test_tournaments import new_tournament, sng_terms

    h = harness()
    bob = h.player("bob")
    tid = new_tournament(h, sng_terms(2))
    before = h.tournaments.load(tid).to_document()
    for action in ("pause_tournament", "resume_tournament", "add_minute", "move_player",
                   "director"):
        reply = bob.send(action=action, tournament_id=tid)
        assert reply["type"] == "error" and reply["code"] == "unknown_action", reply
    reply = bob.send(action="cancel_tournament", tournament_id=tid)
    assert reply["code"] == "not_host"
    assert h.tournaments.load(tid).to_document() == before
    assert not h.accounts.operator_actions


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32), st.lists(st.sampled_from(["pause", "resume", "minute", "move"]),
                                       min_size=3, max_size=8))
def test_r9_15_property_director_actions_keep_every_chip_and_hold_no_hand_while_paused(
        seed: int, actions: list[str]) -> None:
    """Random pauses, resumes, added minutes and moves during a tournament: the ledger identity
    and the stores' invariants after every transaction (the simulation checks them), no hand
    dealt while paused, every applied action logged once, and a cancellation at the end pays
    the whole pool."""
    simulation = started(players=9, seed=seed % 1000)
    d, tid = deps(simulation), simulation.tournament_id

    def move() -> None:
        live = [t for t in tables(simulation) if not t.closed]
        source = max(live, key=lambda t: sum(1 for s in t.state.seats if s))
        target = min(live, key=lambda t: sum(1 for s in t.state.seats if s))
        player = next(s.player_id for s in source.state.seats if s is not None)
        director.move_player(d, tid, player, source.table_id, target.table_id, OLGA, "m")

    play = play_director_actions(simulation, actions, 90_000, OLGA, move, (
        "already_paused", "not_paused", "hand_in_progress", "table_full", "same_table",
        "not_running", "unknown_table", "not_at_table", "move_pending"))
    applied, paused_since = play.applied, play.paused_since
    for hand in log(simulation, "hand"):
        assert not any(start < hand["started_ms"] < end for start, end in play.gaps), hand
    if not simulation.finished():  # the end: pause (if it is not), cancel, all paid
        if paused_since is None:
            director.pause(d, tid, OLGA, "p")
            applied += 1
        run_until(simulation, simulation.clock.now + 5 * MINUTE_MS)
        director.cancel(d, tid, OLGA, "c")
        applied += 1
    record = record_of(simulation)
    assert record.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
    assert record.pool_held == 0 and not [t for t in record.timers
                                          if t.kind is not TimerKind.PAYOUT]
    assert len(simulation.accounts.operator_actions) == applied == len(log(simulation,
                                                                           "director"))
    assert simulation.store.audit().holds


def test_r9_15_the_admin_script_calls_the_service_and_says_why_it_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    simulation = started()
    module = script("director")
    d, tid = deps(simulation), simulation.tournament_id
    args = module.parser().parse_args(["--operator", OLGA, "pause", tid, "--reason", "break"])
    assert module.run(d, args) == 0
    assert "pause" in capsys.readouterr().out
    assert module.run(d, args) == 1
    assert "already_paused" in capsys.readouterr().err
    args = module.parser().parse_args(["pause", tid, "--reason", "who?"])
    args.operator = None
    assert module.run(d, args) == 2


def test_r9_15_a_pause_during_hand_for_hand_loses_no_player_and_no_place() -> None:
    """Hand-for-hand's barrier (R9.8) hears from every table, paused or not: the hands in
    progress at the pause are reported and their players placed; after the resume the rounds go
    on to the end, every entrant with one place, the whole pool paid."""
    simulation = started(players=10, seed=2, seat_count=3)
    while record_of(simulation).seating.hfh is None:  # type: ignore[union-attr]
        assert simulation.step()
    pauses = 0
    while record_of(simulation).seating.hfh is not None:  # type: ignore[union-attr]
        # pause in the middle of every hand-for-hand round, until the bubble bursts
        while not any(t.state.hand_in_progress for t in tables(simulation)):
            assert simulation.step()
        director.pause(deps(simulation), simulation.tournament_id, OLGA, "on the bubble")
        run_until(simulation, simulation.clock.now + 3 * MINUTE_MS)
        assert not any(t.state.hand_in_progress for t in tables(simulation) if not t.closed)
        director.resume(deps(simulation), simulation.tournament_id, OLGA, "play on")
        pauses += 1
    assert pauses
    while not simulation.finished():
        assert simulation.step()
    record = record_of(simulation)
    places = [int(d["place"]) for _, d in simulation.tournaments.items(
        simulation.tournament_id, "result#")]
    assert sorted(places) == list(range(1, 11))
    assert record.status is TournamentStatus.FINISHED and record.pool_held == 0
    assert simulation.store.audit().holds
