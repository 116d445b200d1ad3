"""Nothing lost, whatever fails (issue 10): deadlines met on the server's clock (R6.5, R8.1),
hands cancelled on server faults (R8.6), a fan-out that survives every error, replays and
duplicated timers that re-send what may have been missed, gone connections dropped in one
write, and a path that never starts a call it has no time to finish."""

from __future__ import annotations

from typing import Any

import pytest
from naiko.engine import legal_actions
from naiko_service.memory import MemoryTableStore
from naiko_service.records import TableRecord, TimerKind
from naiko_service.usecases import arming, fanout, transaction
from service_testing import ACCEPTED, Harness, Player, harness
from test_service import InterleavingStore, actor, chips_everywhere, seated


def install(h: Harness, table_id: str, edit: Any) -> TableRecord:
    """Rewrite the stored table through *edit* (a position for a test to start from)."""
    record = h.store.load(table_id)
    new = record.copy()
    new.version += 1
    edit(new)
    h.store.save(new, record.version)
    return new


def updates(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.messages if m["type"] == "update"]


def events_of(player: Player, kind: str) -> list[dict[str, Any]]:
    return [e for m in updates(player) for e in m["events"] if e["kind"] == kind]


def naiko_anchor_position(h: Harness) -> tuple[str, list[Player], Player, Player]:
    """A NAIKO table whose hand offers Short Anchor and Seal Shield, everyone with 3 destellos;
    the player to act anchors the next player, who has not acted yet. Returns the table, the
    players, the attacker and the target."""
    table_id, players = seated(h, 3, "NAIKO")

    def edit(record: TableRecord) -> None:
        hand = record.state.hand
        assert hand is not None and hand.powers is not None
        hand.powers.carousel = ["peek", "short_anchor", "seal_shield"]
        for seat in record.state.seats:
            if seat is not None:
                seat.destellos = 3

    install(h, table_id, edit)
    attacker = actor(players)
    record = h.store.load(table_id)
    prompt = legal_actions(record.state)
    assert prompt is not None and prompt.anchor_targets
    target_seat = prompt.anchor_targets[0]
    target = next(p for p in players if record.seat_of(p.player_id) == target_seat)
    reply = attacker.send(action="use_power", table_id=table_id, power="short_anchor",
                          target_seat=target_seat)
    assert reply["type"] in ("ack", "update"), reply
    return table_id, players, attacker, target


# -- R6.5 and R8.1 on the server's clock ---------------------------------------------------------

def test_r6_5_a_shield_after_the_deadline_is_refused_before_its_timer_fires() -> None:
    h = harness()
    table_id, players, attacker, target = naiko_anchor_position(h)
    h.clock.advance(8_001)  # the window's timer has not fired (nobody fires it here)
    reply = target.send(action="shield", table_id=table_id)
    assert (reply["type"], reply["code"]) == ("error", "window_closed")
    record = h.store.load(table_id)
    seat = record.state.seats[record.seat_of(target.player_id)]  # type: ignore[index]
    assert seat is not None and seat.destellos == 3  # nothing paid
    hand = record.state.hand
    assert hand is not None and hand.powers is not None and hand.powers.windows == []
    closed = events_of(target, "window_closed")
    assert closed and closed[-1]["reason"] == "timed_out"  # the window closed on its deadline


def test_r6_5_a_shield_at_the_deadline_is_in_time() -> None:
    h = harness()
    table_id, players, attacker, target = naiko_anchor_position(h)
    h.clock.advance(8_000)
    assert target.send(action="shield", table_id=table_id)["type"] in ("ack", "update")
    assert events_of(target, "window_closed")[-1]["reason"] == "shielded"


def test_r8_1_a_late_action_meets_its_expired_clock_first() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    late = actor(players)
    h.clock.advance(20_001)  # the decision clock ran out; its timer has not fired
    reply = late.send(action="act", table_id=table_id, move="call", request_id="late-1")
    assert (reply["type"], reply["code"]) == ("error", "not_your_turn")
    for player in players:  # everyone was told what the clock decided
        assert events_of(player, "timed_out")[-1]["decision"] == "fold"
    record = h.store.load(table_id)
    assert f"{late.player_id}/late-1" not in record.recent_requests  # the call was not applied
    seat = record.seat_of(late.player_id)
    assert record.state.hand is not None and record.state.hand.folded[seat]  # type: ignore


# -- R8.6: server faults cancel the hand ---------------------------------------------------------

def _stacks(h: Harness, table_id: str) -> list[int | None]:
    return [s.stack if s else None for s in h.store.load(table_id).state.seats]


def test_r8_6_an_unexpected_failure_applying_a_command_cancels_the_hand(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    table_id, players = seated(h, 3)
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None
    before = [stack + hand.committed[i] if stack is not None else None
              for i, stack in enumerate(_stacks(h, table_id))]
    total = chips_everywhere(h, table_id, players)
    from naiko_service.usecases import play

    def broken(seat_index: int, request: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(play, "betting_command", broken)
    with pytest.raises(ZeroDivisionError):
        actor(players).send(action="act", table_id=table_id, move="call")
    record = h.store.load(table_id)
    assert record.state.hand is not None and record.state.hand.cancelled
    assert _stacks(h, table_id) == before
    assert chips_everywhere(h, table_id, players) == total
    for player in players:
        assert events_of(player, "hand_cancelled")[-1]["reason"] == "server_error"
    assert h.counters["HandsCancelled"] == 1


def test_r8_6_an_unreadable_state_is_replaced_by_the_hand_cancelled_in_a_new_version() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    first = actor(players)
    assert first.send(action="act", table_id=table_id, move="call")["type"] in ("ack", "update")
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None
    before = [s.stack + hand.committed[i] if s else None
              for i, s in enumerate(record.state.seats)]
    total = chips_everywhere(h, table_id, players)
    h.store.corrupt(table_id)
    reply = players[0].send(action="snapshot", table_id=table_id)  # any request will do
    assert reply["type"] == "snapshot"
    record = h.store.load(table_id)
    assert record.state.hand is None and record.hands_closed == hand.number
    assert [s.stack if s else None for s in record.state.seats] == before
    assert chips_everywhere(h, table_id, players) == total
    for player in players:
        assert events_of(player, "hand_cancelled")[-1]["reason"] == "state_unreadable"
        # the cancellation is a write of its own: a new version, never one pushed already
        versions = [m["version"] for m in updates(player)]
        assert len(versions) == len(set(versions)), "two writes pushed under one version"
        assert versions[-1] == record.seq
    h.clock.advance(record.settings.pause_ms)
    h.fire_due_timers()
    assert h.store.load(table_id).state.hand_in_progress  # play goes on with the next hand


def test_r8_6_a_player_who_left_during_a_cancelled_hand_gets_the_chips_back() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    folder = actor(players)
    assert folder.send(action="act", table_id=table_id, move="fold")["type"] in ("ack", "update")
    before_balance = h.accounts.balance(folder.player_id)
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None
    seat = record.seat_of(folder.player_id)
    assert seat is not None
    owed = hand.committed[seat]
    stack = record.state.seats[seat].stack  # type: ignore[union-attr]
    assert folder.send(action="leave_table", table_id=table_id)["type"] in ("ack", "update")
    total = chips_everywhere(h, table_id, players)
    h.store.corrupt(table_id)
    players[1].send(action="snapshot", table_id=table_id)
    assert h.accounts.balance(folder.player_id) == before_balance + stack + owed
    assert chips_everywhere(h, table_id, players) == total


def test_r8_6_a_hand_that_has_not_progressed_for_5_minutes_is_cancelled_by_the_sweep() -> None:
    h = harness()
    table_id, players = seated(h, 3)

    def lose_every_clock(record: TableRecord) -> None:  # a bug left the hand without timers
        record.timers = [t for t in record.timers if t.kind is TimerKind.STALLED]

    install(h, table_id, lose_every_clock)
    h.clock.advance(5 * 60_000 - 1)
    assert h.service.sweep() == 0
    h.clock.advance(1)
    assert h.service.sweep() == 1
    record = h.store.load(table_id)
    assert record.state.hand is not None and record.state.hand.cancelled
    assert events_of(players[0], "hand_cancelled")[-1]["reason"] == "stalled"


# -- the fan-out --------------------------------------------------------------------------------

class FlakyGateway:
    """A gateway whose posts to some connections fail with an error of any kind."""

    def __init__(self, inner: Any, failing: dict[str, Exception]):
        self.inner, self.failing = inner, failing

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        error = self.failing.get(connection_id)
        if error is not None:
            raise error
        self.inner.send(connection_id, message)

    def alive(self, connection_id: str) -> bool:
        return bool(self.inner.alive(connection_id))


@pytest.mark.parametrize("error", [RuntimeError("LimitExceededException"),
                                   TimeoutError("read timeout"), ValueError("throttled")])
def test_one_recipient_failing_never_hides_a_committed_action_from_the_others(
        error: Exception) -> None:
    h = harness()
    table_id, players = seated(h, 3)
    mover = actor(players)
    broken = next(p for p in players if p is not mover)
    h.service.deps.gateway = FlakyGateway(h.gateway, {broken.connection_id: error})
    before = {p.player_id: len(updates(p)) for p in players}
    assert mover.send(action="act", table_id=table_id, move="call")["type"] in ("ack", "update")
    version = h.store.load(table_id).version
    for player in players:
        if player is not broken:
            assert len(updates(player)) == before[player.player_id] + 1
            assert updates(player)[-1]["version"] == version
    assert len(updates(broken)) == before[broken.player_id]
    assert h.counters["FanOutFailures"] == 1
    h.service.deps.gateway = h.gateway  # the recipient recovers with a snapshot
    assert broken.send(action="snapshot", table_id=table_id)["version"] == version


def test_a_replayed_request_also_resends_the_current_state() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    mover = actor(players)
    frame = {"action": "act", "request_id": "again-1", "table_id": table_id, "move": "call"}
    assert mover.send(**frame)["type"] in ("ack", "update")
    other = actor(players)
    assert other.send(action="act", table_id=table_id, move="call")["type"] in ("ack", "update")
    version = h.store.load(table_id).version
    writes = h.store.writes
    before = len(mover.messages)
    assert mover.send(**frame)["replayed"] is True
    assert h.store.writes == writes
    resent = [m for m in mover.messages[before:] if m["type"] == "snapshot"]
    assert [m["version"] for m in resent] == [version]


def snapshots(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.messages if m["type"] == "snapshot"]


def test_r8_3_a_duplicated_timer_acts_once_and_resends_the_state_as_a_snapshot() -> None:
    """A duplicated execution cannot know whether the first one's fan-out went out: it sends
    every member the table as it is, as a ``snapshot`` (``request_id`` null, as a replay does),
    never a second ``update`` of a version already pushed (the e2e test's "a write was pushed
    twice")."""
    h = harness()
    table_id, players = seated(h, 3)
    record = h.store.load(table_id)
    decision = next(t for t in record.timers if t.kind is TimerKind.DECISION)
    h.clock.advance(20_000)
    assert h.service.timer_fired(table_id, decision.token) is True
    version = h.store.load(table_id).seq
    counts = [len(updates(p)) for p in players]
    writes = h.store.writes
    assert h.service.timer_fired(table_id, decision.token) is False  # delivered again
    assert h.store.writes == writes
    assert [len(updates(p)) for p in players] == counts  # no update twice
    for player in players:
        assert [m["version"] for m in updates(player)].count(version) == 1
        resent = snapshots(player)[-1]
        assert (resent["version"], resent["request_id"]) == (version, None)
        assert resent["view"]["seat_index"] == h.store.load(table_id).seat_of(player.player_id)
    assert h.counters["TimersDuplicated"] == 1


def _end_the_hand_losing_one_race(h: Harness, table_id: str, players: list[Player]) -> None:
    """Two folds end the hand of *players*; the second's write loses one race (a bookkeeping
    write lands between its read and its write) and is applied again. The executions armed
    before it are forgotten (``h.scheduler.scheduled``), so what is left there is its own."""
    assert actor(players).send(action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    last = actor(players)

    def other_writer() -> None:
        other = h.store.load(table_id)
        other.version += 1
        other.recent_timers["other-writer"] = 1
        MemoryTableStore.save(h.store, other, other.version - 1)

    h.scheduler.scheduled.clear()
    h.service.deps.tables = InterleavingStore.over(h.store, other_writer)
    ended = last.send(action="act", table_id=table_id, move="fold")
    assert ended["type"] in ACCEPTED and h.counters["Conflicts"] == 1
    h.service.deps.tables = h.store


def test_r8_3_a_conflict_on_the_hand_ending_write_pushes_each_version_once() -> None:
    """The write that ends a hand arms the next hand's timer before it is written; it loses a
    race and is applied again (arming nothing more, the test below), and SQS delivers at least
    once: the next hand's execution comes twice. The first starts the hand; the second finds
    its token acted and resends a snapshot: every player sees each version in ONE
    ``update``."""
    h = harness()
    table_id, players = seated(h, 3)
    _end_the_hand_losing_one_race(h, table_id, players)
    h.clock.advance(10_000)
    executions = list(h.scheduler.scheduled)
    assert h.fire_due_timers() >= 1
    for execution in executions:  # delivered again
        h.service.timer_fired(execution[0], execution[1])
    assert h.counters["TimersDuplicated"] == len(executions)
    started = h.store.load(table_id)
    assert started.state.hand is not None and started.state.hand.number == 2
    for player in players:
        versions = [m["version"] for m in updates(player)]
        assert len(versions) == len(set(versions)), "a write was pushed twice"
        assert versions[-1] == started.seq


def test_r8_1_a_write_retried_after_a_conflict_arms_its_wake_up_once() -> None:
    """The write that ends a hand arms the next hand's wake-up before it is written (so a
    process that dies after its write leaves it armed); when it loses a race and is applied
    again, the retry finds that wake-up armed already by the lost attempt, for the same
    deadline: it arms no second one (which would only fire as a duplicate: a snapshot to each
    player). One execution, one hand dealt."""
    h = harness()
    table_id, players = seated(h, 3)
    armed_before = h.counters.get("WakeupsArmed", 0)
    _end_the_hand_losing_one_race(h, table_id, players)
    written = h.store.load(table_id)
    (next_hand,) = [t for t in written.timers if t.kind is TimerKind.NEXT_HAND]
    assert [(t, token) for t, token, _, _ in h.scheduler.scheduled] == [
        (table_id, next_hand.token)]  # one execution, for the written record's deadline
    assert h.counters["WakeupsArmed"] - armed_before == 1
    (wake,) = [t for t in written.timers if t.kind is TimerKind.WAKE]
    assert (wake.token, wake.due_ms) == (arming.WAKE_PREFIX + next_hand.token, next_hand.due_ms)
    h.clock.advance(10_000)
    assert h.fire_due_timers() == 1
    started = h.store.load(table_id)
    assert started.state.hand is not None and started.state.hand.number == 2
    assert not h.counters.get("TimersDuplicated")


def test_a_fold_with_64_dead_spectators_writes_the_table_once_and_drops_their_items() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    spectators = [h.player(f"s{i}") for i in range(64)]
    for spectator in spectators:
        assert spectator.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    watchers = h.service.deps.watchers
    assert not any(s.player_id in h.store.load(table_id).connections for s in spectators)
    assert watchers.count(table_id) == 64  # their own items, not the table's
    for spectator in spectators:  # 64 spectators cut their connections at once
        h.gateway.gone.add(spectator.connection_id)
    reads, writes = h.store.reads, h.store.writes
    assert actor(players).send(action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    assert h.store.writes - writes == 1  # the fold only: the spectators' items go by themselves
    assert h.store.reads - reads == 1
    assert watchers.count(table_id) == 0
    assert h.counters["ConnectionsGone"] == 64
    # The drop is a write nobody sees: the versions players see stay gapless.
    fold_version = updates(players[0])[-1]["version"]
    assert actor(players).send(action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    assert updates(players[0])[-1]["version"] == fold_version + 1


def test_an_idle_wake_up_a_moment_early_on_our_clock_still_re_arms() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    record = h.store.load(table_id)
    first = next(t for t in record.timers if t.kind is TimerKind.DECISION)
    h.clock.advance(5_000)
    assert actor(players).send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    record = h.store.load(table_id)
    marker = next(t for t in record.timers if t.kind is TimerKind.WAKE)
    assert marker.token == arming.WAKE_PREFIX + first.token  # armed for the turn that ended
    scheduled = len(h.scheduler.scheduled)
    h.clock.now = marker.due_ms - 500  # Step Functions' clock runs a little ahead of ours
    h.service.timer_fired(table_id, first.token)
    record = h.store.load(table_id)
    marker = next(t for t in record.timers if t.kind is TimerKind.WAKE)
    current = next(t for t in record.timers if t.kind is TimerKind.DECISION)
    assert marker.token == arming.WAKE_PREFIX + current.token  # re-armed, not left to the sweep
    assert len(h.scheduler.scheduled) == scheduled + 1


class Remaining:
    def __init__(self, ms: float):
        self.ms = ms

    def remaining_ms(self) -> float:
        return self.ms


def test_no_attempt_starts_without_the_time_to_finish_it() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    version = h.store.load(table_id).version
    h.service.deps.deadline = Remaining(transaction.ATTEMPT_WORST_MS - 1)
    reply = actor(players).send(action="act", table_id=table_id, move="call")
    assert reply["type"] != "ack"  # busy, or no answer at all when even that cannot be sent
    assert h.store.load(table_id).version == version
    assert h.counters["OutOfTime"] == 1


def test_the_fan_out_skips_what_it_has_no_time_to_send() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    h.service.deps.deadline = Remaining(fanout.AWS_CALL_WORST_MS - 1)
    version = h.store.load(table_id).version
    h.service.deps.deadline = Remaining(transaction.ATTEMPT_WORST_MS)  # time for the write only
    mover = actor(players)
    before = [len(updates(p)) for p in players]

    class Ticking(Remaining):
        def remaining_ms(self) -> float:  # the write took the time: nothing left to post
            return self.ms if h.store.load(table_id).version == version else 0

    h.service.deps.deadline = Ticking(transaction.ATTEMPT_WORST_MS)
    mover.harness.service.handle(mover.connection_id, mover.player_id, _call(table_id))
    assert h.store.load(table_id).version == version + 1
    assert [len(updates(p)) for p in players] == before
    assert h.counters["FanOutSkipped"] == 3  # three updates (the mover's is its answer)


def _call(table_id: str) -> Any:
    from naiko_service.protocol import Act

    return Act(action="act", request_id="late-1", table_id=table_id, move="call")


# -- $disconnect always takes effect -------------------------------------------------------------

def test_a_disconnect_racing_other_writes_still_takes_effect() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    leaver = players[1]

    class Contended:
        """Six writes in a row lose their race (several clients of the table close together):
        more than one attempt of the path can absorb."""

        def __init__(self, inner: Any) -> None:
            self.inner, self.losses = inner, 6

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def save(self, record: TableRecord, expected: int, moves: Any = ()) -> None:
            if self.losses:
                self.losses -= 1
                from naiko_service.ports import ConcurrentUpdate

                raise ConcurrentUpdate(record.table_id)
            self.inner.save(record, expected, moves)

    h.service.deps.tables = Contended(h.store)
    h.service.disconnect(leaver.connection_id)
    record = h.store.load(table_id)
    assert leaver.player_id in record.disconnected
    assert leaver.player_id not in record.connections
    assert h.connections.player_of(leaver.connection_id) is None
    assert h.counters["BusyRetries"] == 1


def test_r8_2_a_lost_disconnect_still_gets_the_reconnection_grace() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    gone = actor(players)
    h.gateway.gone.add(gone.connection_id)  # closed; API Gateway never called $disconnect
    record = h.store.load(table_id)
    decision = next(t for t in record.timers if t.kind is TimerKind.DECISION)
    h.clock.now = decision.due_ms
    h.fire_due_timers()
    record = h.store.load(table_id)
    assert gone.player_id in record.disconnected
    assert any(t.kind is TimerKind.GRACE for t in record.timers)  # 20 more seconds (R8.2)
    assert not events_of(players[0], "timed_out")


def test_spectators_coming_and_going_are_writes_nobody_hears_about() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    before = [len(updates(p)) for p in players]
    version = updates(players[0])[-1]["version"]
    watchers = [h.player(f"w{i}") for i in range(5)]
    for watcher in watchers:
        assert watcher.send(action="snapshot", table_id=table_id)["version"] == version
    for watcher in watchers:
        h.service.disconnect(watcher.connection_id)
    assert [len(updates(p)) for p in players] == before  # O(1) posts per spectator, not O(n)
    assert actor(players).send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    assert updates(players[0])[-1]["version"] == version + 1


def test_r8_3_a_returning_player_sees_a_seated_player_whose_connection_died() -> None:
    # Found by the fault-injection matrix (gateway.send gone): p1's connection dies without a
    # $disconnect; p0 comes back and subscribes; that write's fan-out finds p1 gone and marks
    # them disconnected. Everyone must see it under a new version, and p0's snapshot must be
    # the table as stored, not the state before that drop.
    h = harness()
    table_id, (p0, p1, p2) = seated(h, 3)
    h.service.disconnect(p0.connection_id)
    h.gateway.gone.add(p1.connection_id)
    h.service.connect("p0-new", "p0")
    back = Player(h, "p0", "p0-new")
    reply = back.send(action="snapshot", table_id=table_id)
    stored = h.store.load(table_id)
    assert "p1" in stored.disconnected
    assert reply["version"] == stored.seq and reply["view"]["disconnected"] == ["p1"]
    told = [m for m in p2.messages if m["type"] == "update"][-1]
    assert told["version"] == stored.seq and told["view"]["disconnected"] == ["p1"]
    assert {"kind": "disconnected", "player_id": "p1"} in told["events"]


# -- R8.6: a cancelled hand gives back its blind debts (R7.8) ------------------------------------

def _cancel(h: Harness, table_id: str, players: list[Player], how: str) -> None:
    """Cancel the hand in progress as a server fault would: a hand that stood still for five
    minutes (the sweep, ``stalled``), an unreadable state (its fallback, ``state_unreadable``),
    or a command that failed unexpectedly (``server_error``)."""
    if how == "stalled":
        install(h, table_id, lambda r: setattr(r, "timers", [
            t for t in r.timers if t.kind is TimerKind.STALLED]))
        h.clock.advance(5 * 60_000)
        assert h.service.sweep() == 1
    elif how == "state_unreadable":
        h.store.corrupt(table_id)
        players[0].send(action="snapshot", table_id=table_id)
    else:
        from naiko_service.usecases import play

        original = play.betting_command

        def broken(seat_index: int, request: Any) -> Any:
            raise ZeroDivisionError("a bug")

        play.betting_command = broken  # type: ignore[assignment]
        try:
            with pytest.raises(ZeroDivisionError):
                actor(players).send(action="act", table_id=table_id, move="fold")
        finally:
            play.betting_command = original  # type: ignore[assignment]
    events = events_of(players[0], "hand_cancelled")
    assert events and events[-1]["reason"] == how


def _fold_out(h: Harness, table_id: str, players: list[Player]) -> None:
    while h.store.load(table_id).state.hand_in_progress:
        assert actor(players).send(action="act", table_id=table_id, move="fold")["type"] \
            in ACCEPTED


def _next_hand(h: Harness, table_id: str) -> None:
    h.clock.advance(h.store.load(table_id).settings.pause_ms)
    h.fire_due_timers()


def _owes(h: Harness, table_id: str, player: Player) -> tuple[bool, bool]:
    record = h.store.load(table_id)
    seat = record.state.seats[record.seat_of(player.player_id)]  # type: ignore[index]
    assert seat is not None
    return seat.owes_big, seat.owes_small


@pytest.mark.parametrize("how", ["stalled", "state_unreadable", "server_error"])
def test_r8_6_a_newcomer_who_posted_into_a_cancelled_hand_owes_the_big_blind_again(
        how: str) -> None:
    h = harness(seed=11)
    table_id, players = seated(h, 3)
    _fold_out(h, table_id, players)  # hand 1: the table started, everybody in for free
    late = h.player("late")
    assert late.send(action="join_table", table_id=table_id, buy_in=200,
                     entry="post")["type"] in ACCEPTED
    everyone = [*players, late]
    total = chips_everywhere(h, table_id, everyone)
    for _ in range(3):  # at once, or after the button passed (R7.8)
        _next_hand(h, table_id)
        record = h.store.load(table_id)
        seat = record.seat_of("late")
        assert record.state.hand is not None and seat is not None
        if record.state.hand.dealt[seat]:
            break
        _fold_out(h, table_id, everyone)
    hand = h.store.load(table_id).state.hand
    assert hand is not None and hand.dealt[seat] and hand.committed[seat] == 2  # posted live
    assert _owes(h, table_id, late) == (False, False)
    _cancel(h, table_id, everyone, how)
    record = h.store.load(table_id)
    assert record.state.stack(seat) == 200  # the post came back ...
    assert _owes(h, table_id, late) == (True, False)  # ... and is owed again
    assert chips_everywhere(h, table_id, everyone) == total
    assert h.store.audit().holds
    _next_hand(h, table_id)  # the hand after: never dealt in free
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None and hand.number > 2
    if hand.dealt[seat]:
        assert seat == hand.big_blind_seat or hand.committed[seat] == 2


@pytest.mark.parametrize("how", ["stalled", "state_unreadable"])
def test_r8_6_missed_blinds_posted_into_a_cancelled_hand_are_owed_again(how: str) -> None:
    h = harness(seed=2)
    players = [h.player(n) for n in ("a", "b", "c", "d")]
    table_id = seated_four(h, players)
    away = players[3]
    assert away.send(action="sit_out", table_id=table_id)["type"] in ACCEPTED
    for _ in range(4):  # an orbit: the big blind passes the absent seat
        _fold_out(h, table_id, players)
        _next_hand(h, table_id)
    assert _owes(h, table_id, away) == (True, True)
    assert away.send(action="sit_in", table_id=table_id, entry="post")["type"] in ACCEPTED
    total = chips_everywhere(h, table_id, players)
    for _ in range(4):
        _fold_out(h, table_id, players)
        _next_hand(h, table_id)
        record = h.store.load(table_id)
        seat = record.seat_of("d")
        hand = record.state.hand
        assert hand is not None and seat is not None
        if hand.dealt[seat]:
            break
    assert hand.dealt[seat]
    if seat == hand.big_blind_seat:
        pytest.skip("the big blind reached the returning seat first: nothing was posted")
    assert hand.committed[seat] == 3  # the big blind live and the small blind dead
    _cancel(h, table_id, players, how)
    assert _owes(h, table_id, away) == (True, True)
    assert chips_everywhere(h, table_id, players) == total
    assert h.store.audit().holds


def seated_four(h: Harness, players: list[Player]) -> str:
    from test_service import new_table

    table_id = new_table(h, players[0])
    for player in players:
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] \
            in ACCEPTED
    return table_id


@pytest.mark.parametrize("how", ["stalled", "server_error"])
def test_r8_6_a_player_who_left_during_a_hand_cancelled_in_play_gets_the_chips_back(
        how: str) -> None:
    """The cancel of a hand still readable (not its fallback): a player who folded and left
    during it gets back on their account what they had put in."""
    h = harness()
    table_id, players = seated(h, 3)
    assert actor(players).send(action="act", table_id=table_id, move="call")["type"] \
        in ACCEPTED
    folder = actor(players)  # the small blind: it has a chip in
    record = h.store.load(table_id)
    seat = record.seat_of(folder.player_id)
    assert seat is not None and record.state.hand is not None
    owed = record.state.hand.committed[seat]
    assert owed > 0
    assert folder.send(action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    assert folder.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
    balance = h.accounts.balance(folder.player_id)
    total = chips_everywhere(h, table_id, players)
    stayed = [p for p in players if p is not folder]
    _cancel(h, table_id, stayed, how)
    assert h.accounts.balance(folder.player_id) == balance + owed
    assert chips_everywhere(h, table_id, players) == total
    assert h.store.audit().holds
