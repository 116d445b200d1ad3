"""The parallel fan-out and the folded answer (issue 15, items 4 and 15): posts go out
concurrently on a bounded pool, each recipient still stands alone (every failure caught,
counted, logged; a Gone seated player announced in one write), one message per connection
per fan-out in version order, the bytes posted are exactly the message's JSON, and the
requester's answer is the update it gets (an ``ack`` only where no update goes to it)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from naiko_service import bootstrap
from naiko_service.aws.gateway import encode_message
from naiko_service.ports import ConnectionGone, Encoded
from naiko_service.usecases import fanout, spectators
from service_testing import Harness, Player, harness
from test_service import actor, seated


class SlowGateway:
    """Each post takes *delay* seconds; posts in ``failing`` raise their exception. Records
    how many posts were in flight at once."""

    def __init__(self, inner: Any, delay: float, failing: dict[str, BaseException] | None = None):
        self.inner, self.delay, self.failing = inner, delay, failing or {}
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most = 0

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        with self.lock:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
        try:
            time.sleep(self.delay)
            error = self.failing.get(connection_id)
            if error is not None:
                raise error
            self.inner.send(connection_id, message)
        finally:
            with self.lock:
                self.in_flight -= 1

    def alive(self, connection_id: str) -> bool:
        return bool(self.inner.alive(connection_id))


def crowd(h: Harness, table_id: str, n: int) -> list[Player]:
    """*n* spectators watching the table."""
    spectators = [h.player(f"s{i}") for i in range(n)]
    for spectator in spectators:
        assert spectator.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    return spectators


def play(players: list[Player], table_id: str) -> None:
    """The player to act checks, or calls."""
    mover = actor(players)
    prompt = mover.last_view()["prompt"]
    move = "check" if "check" in prompt["actions"] else "call"
    assert mover.send(action="act", table_id=table_id, move=move)["type"] == "update"


def versions(player: Player) -> list[int]:
    return [m["version"] for m in player.messages if m["type"] == "update"]


def test_posts_go_out_concurrently_at_most_the_pool_size_at_once() -> None:
    h = harness()
    slow = SlowGateway(h.gateway, 0.02)
    h.service.deps.gateway = slow
    started = time.perf_counter()
    results = fanout.post_all(h.service.deps, [(f"c{i}", {"type": "x"}) for i in range(30)])
    elapsed = time.perf_counter() - started
    assert results == [None] * 30
    assert slow.most == fanout.FAN_OUT_WORKERS  # bounded, and used
    assert elapsed < 30 * 0.02 / 2  # 3 rounds of 10, not 30 posts one after another


def test_spectators_posts_go_out_on_their_own_wider_pool_after_the_players() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    watchers = crowd(h, table_id, 40)
    slow = SlowGateway(h.gateway, 0.02)
    h.service.deps.gateway = slow
    started = time.perf_counter()
    assert actor(players).send(action="act", table_id=table_id, move="call")["type"] == "update"
    elapsed = time.perf_counter() - started
    # 32 at once, then 8 (more than the players' pool; exactly 32 unless the machine is busy)
    assert fanout.FAN_OUT_WORKERS < slow.most <= spectators.WATCHER_POST_WORKERS
    assert elapsed < 43 * 0.02 / 2  # 3 rounds (players, 32 and 8 spectators), not 43 posts
    for watcher in (*players, *watchers):
        assert len(versions(watcher)) >= 1


def test_sequential_fan_out_posts_one_at_a_time() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    crowd(h, table_id, 5)
    slow = SlowGateway(h.gateway, 0.005)
    h.service.deps.gateway = slow
    h.service.deps.parallel_fan_out = False
    actor(players).send(action="act", table_id=table_id, move="call")
    assert slow.most == 1


@pytest.mark.parametrize("error", [RuntimeError("LimitExceededException"),
                                   TimeoutError("read timeout"), ValueError("throttled")])
def test_r8_3_in_parallel_every_failure_is_counted_and_the_others_get_their_update(
        error: Exception) -> None:
    h = harness()
    table_id, players = seated(h, 4)
    spectators = crowd(h, table_id, 12)
    mover = actor(players)
    broken = [p for p in players if p is not mover][0]
    gone_seat = [p for p in players if p is not mover][1]
    gone_spectator, failing_spectator = spectators[0], spectators[1]
    warnings: list[tuple[str, dict[str, Any]]] = []
    h.service.deps.warn = lambda message, fields: warnings.append((message, fields))
    h.service.deps.gateway = SlowGateway(h.gateway, 0.001, {
        broken.connection_id: error, failing_spectator.connection_id: error,
        gone_seat.connection_id: ConnectionGone(gone_seat.connection_id),
        gone_spectator.connection_id: ConnectionGone(gone_spectator.connection_id)})
    before = h.store.load(table_id)
    reply = mover.send(action="act", table_id=table_id, move="call")
    assert reply["type"] == "update" and reply["version"] == before.seq + 1  # committed
    # each failing recipient failed in both fan-outs (the action, the drop announced)
    assert h.counters["FanOutFailures"] == 4
    assert [f["connection_id"] for m, f in warnings if m == "could not post an update"] \
        .count(broken.connection_id) == 2
    assert h.counters["ConnectionsGone"] == 2
    record = h.store.load(table_id)
    assert gone_seat.player_id in record.disconnected  # announced: a seated player is away
    assert gone_spectator.player_id not in record.connections
    assert record.seq == before.seq + 2  # the action, then ONE write dropping both
    reached = [p for p in (*players, *spectators)
               if p not in (broken, failing_spectator, gone_seat, gone_spectator)]
    for watcher in reached:
        assert versions(watcher)[-2:] == [before.seq + 1, before.seq + 2], watcher.player_id


class Crash(BaseException):
    """The process dying in a post (no ``except Exception`` may swallow it)."""


def test_a_crash_in_a_post_thread_is_not_swallowed() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    spectators = crowd(h, table_id, 4)
    h.service.deps.gateway = SlowGateway(h.gateway, 0.001,
                                         {spectators[2].connection_id: Crash("oom")})
    mover = actor(players)
    with pytest.raises(Crash):
        h.service.handle(mover.connection_id, mover.player_id, _call(table_id))


def test_posts_in_the_pool_see_the_invocation_s_deadline() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    crowd(h, table_id, 6)
    h.service.deps.deadline = bootstrap.InvocationDeadline()
    version = h.store.load(table_id).version
    left = {"ms": 60_000.0}

    def remaining() -> float:  # the write took the time: nothing left to post after it
        return left["ms"] if h.store.load(table_id).version == version else 0.0

    token = bootstrap._remaining.set(remaining)
    try:
        mover = actor(players)
        h.service.handle(mover.connection_id, mover.player_id, _call(table_id))
    finally:
        bootstrap._remaining.reset(token)
    assert h.store.load(table_id).version == version + 1
    assert h.counters["FanOutSkipped"] == 9  # every recipient, each checked in its thread


def test_r8_3_each_connection_gets_every_version_in_order_with_posts_racing() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    spectators = crowd(h, table_id, 12)
    h.service.deps.gateway = SlowGateway(h.gateway, 0.0005)
    for _ in range(12):
        view = players[0].last_view()
        if view["hand"] is None or view["hand"]["complete"]:
            break
        play(players, table_id)
    for watcher in (*players, *spectators):
        seen = versions(watcher)
        assert seen == list(range(seen[0], seen[0] + len(seen))), (watcher.player_id, seen)


def test_the_bytes_posted_are_the_message_s_json_for_every_viewer() -> None:
    """Seats (their own cards, prompt, powers), the host (invite code) and spectators: every
    update's pre-serialised bytes equal encode_message of its dict, across whole NAIKO
    hands."""
    h = harness(seed=11)
    table_id, players = seated(h, 4, "NAIKO")
    crowd(h, table_id, 3)
    for _ in range(40):
        view = players[0].last_view()
        if view["hand"] is None:
            break
        if view["hand"]["complete"]:
            h.clock.advance(10_000)
            h.fire_due_timers()
            continue
        play(players, table_id)
    encoded = [m for sent in h.gateway.sent.values() for m in sent if isinstance(m, Encoded)]
    assert len(encoded) > 100
    for message in encoded:
        assert message.data == encode_message(dict(message))
        assert json.loads(message.data) == json.loads(json.dumps(message))
    # every post is serialised once at the send point (fanout.deliver), the replies too
    assert {m["type"] for m in encoded} > {"update"}
    seat_views = {json.dumps(m["view"]["seat_index"]) for m in encoded if m["type"] == "update"}
    assert len(seat_views) == 5  # four seats and the spectators


def test_a_lone_surrogate_is_escaped_like_encode_message_does() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    record = h.store.load(table_id)
    record.connections["\ud800odd"] = "conn-odd"
    message = fanout.Updates(record, []).message("\ud800odd", "r\ud800")
    assert message.data == encode_message(dict(message))


def test_r8_3_the_requester_s_update_is_its_answer_and_no_ack_is_sent() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    mover = actor(players)
    before = len(mover.messages)
    mover.send(action="act", table_id=table_id, move="call", request_id="call-1")
    new = mover.messages[before:]
    assert [m["type"] for m in new] == ["update"]
    assert (new[0]["request_id"], new[0]["replayed"]) == ("call-1", False)
    others = [m for p in players if p is not mover for m in p.messages[-1:]]
    assert all("request_id" not in m for m in others)  # only the requester's carries it


def test_an_ack_answers_when_no_update_goes_to_the_requester() -> None:
    h = harness()
    table_id, players = seated(h, 3, seat_count=3)
    mover = actor(players)
    # the same player acting from a second connection that does not watch the table
    elsewhere = Player(h, mover.player_id, "conn-elsewhere")
    h.service.connect(elsewhere.connection_id, mover.player_id)
    reply = elsewhere.send(action="act", table_id=table_id, move="call", request_id="far-1")
    assert [m["type"] for m in elsewhere.messages] == ["ack"]
    assert reply["version"] == h.store.load(table_id).seq
    # a write nobody is told of (joining a waiting list twice changes nothing anyone sees)
    waiting = h.player("w")
    assert waiting.send(action="join_waitlist", table_id=table_id)["type"] in ("ack", "update")
    again = waiting.send(action="join_waitlist", table_id=table_id)
    assert again["type"] == "ack" and not again["replayed"]


def _call(table_id: str) -> Any:
    from naiko_service.protocol import Act

    return Act(action="act", request_id="late-1", table_id=table_id, move="call")


def test_an_idle_wake_up_re_arms_without_telling_anyone() -> None:
    """Nothing was due (the turn it was armed for ended early): the table re-arms for its
    earliest deadline in a write nobody is told of: no message, the same version."""
    from naiko_service.records import TimerKind

    h = harness()
    table_id, players = seated(h, 3)
    spectators = crowd(h, table_id, 2)
    record = h.store.load(table_id)
    first = next(t for t in record.timers if t.kind is TimerKind.DECISION)
    h.clock.advance(5_000)
    play(players, table_id)  # the turn ends early: the armed wake-up is now idle
    before = h.store.load(table_id)
    sent = {p.player_id: len(p.messages) for p in (*players, *spectators)}
    scheduled = len(h.scheduler.scheduled)
    h.clock.now = first.due_ms
    assert h.service.timer_fired(table_id, first.token) is False  # nothing fired
    after = h.store.load(table_id)
    assert after.version == before.version + 1  # written: the wake-up re-armed
    assert len(h.scheduler.scheduled) == scheduled + 1
    assert after.seq == before.seq  # ...but no version for the players
    assert {p.player_id: len(p.messages) for p in (*players, *spectators)} == sent
    # the next action's update follows without a gap
    play(players, table_id)
    assert versions(players[0])[-1] == before.seq + 1
