"""Spectators out of the table item, their updates off the players' path (issue 23 item 3), in
memory: the worker runs in the writing process (no queue), after the players' posts."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko_service import limits
from naiko_service.memory import RecordingGateway
from naiko_service.usecases import spectators
from naiko_service.watcher_queue import SpectatorUpdate, message_body, parse_body
from naiko_testing import cards_in, hidden_from
from service_testing import ACCEPTED, Harness, Player, harness
from test_service import actor, seated


def updates(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.messages if m["type"] == "update"]


def crowd(h: Harness, table_id: str, n: int, prefix: str = "w") -> list[Player]:
    watchers = [h.player(f"{prefix}{i}") for i in range(n)]
    for watcher in watchers:
        assert watcher.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    return watchers


class OrderedGateway:
    """Records which connection each post went to, in the order posted."""

    def __init__(self, inner: RecordingGateway):
        self.inner = inner
        self.order: list[str] = []

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        self.order.append(connection_id)
        self.inner.send(connection_id, message)

    def alive(self, connection_id: str) -> bool:
        return bool(self.inner.alive(connection_id))


def test_a_spectator_subscribing_and_leaving_never_writes_the_table_item() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    writes = h.store.writes
    watchers = crowd(h, table_id, 20)
    assert h.store.writes == writes
    record = h.store.load(table_id)
    assert set(record.connections) == {p.player_id for p in players}
    assert h.service.deps.watchers.count(table_id) == 20
    for watcher in watchers[:10]:
        assert watcher.send(action="unwatch", table_id=table_id)["type"] == "ack"
    for watcher in watchers[10:]:
        h.service.disconnect(watcher.connection_id)
    assert h.store.writes == writes
    assert h.service.deps.watchers.count(table_id) == 0


def test_players_are_posted_before_any_spectator_and_every_update_carries_the_version() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    watchers = crowd(h, table_id, 5)
    ordered = OrderedGateway(h.gateway)
    h.service.deps.gateway = ordered
    h.service.deps.parallel_fan_out = False
    update = actor(players).send(action="act", table_id=table_id, move="call")
    assert update["type"] == "update"
    player_connections = {p.connection_id for p in players}
    assert set(ordered.order[:3]) == player_connections
    assert set(ordered.order[3:]) == {w.connection_id for w in watchers}
    for watcher in watchers:
        (got,) = updates(watcher)
        assert got["version"] == update["version"]
        assert got["view"]["seat_index"] is None and "request_id" not in got


def test_a_spectator_that_misses_an_update_sees_the_gap_and_a_snapshot_catches_it_up() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    (watcher,) = crowd(h, table_id, 1)
    h.gateway.gone.add(watcher.connection_id)  # a post fails: the item is removed
    actor(players).send(action="act", table_id=table_id, move="call")
    assert h.service.deps.watchers.count(table_id) == 0
    h.gateway.gone.discard(watcher.connection_id)
    again = watcher.send(action="snapshot", table_id=table_id)
    assert again["type"] == "snapshot"
    actor(players).send(action="act", table_id=table_id, move="call")
    assert updates(watcher)[-1]["version"] == again["version"] + 1


def test_a_player_who_leaves_watches_on_as_a_spectator_outside_the_table_item() -> None:
    h = harness()
    table_id, players = seated(h, 4)
    leaver = actor(players)
    assert leaver.send(action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    assert leaver.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
    record = h.store.load(table_id)
    assert leaver.player_id not in record.connections  # out of the table item
    assert h.service.deps.watchers.connection_of(table_id, leaver.player_id) \
        == leaver.connection_id
    seen = len(updates(leaver))
    others = [p for p in players if p is not leaver]
    actor(others).send(action="act", table_id=table_id, move="call")
    assert len(updates(leaver)) == seen + 1  # from the spectators' worker now
    assert updates(leaver)[-1]["view"]["seat_index"] is None
    # ...and a spectator who sits down is a member again; its stale item goes.
    assert leaver.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    assert h.store.load(table_id).connections[leaver.player_id] == leaver.connection_id
    actor(others).send(action="act", table_id=table_id, move="call")
    assert h.service.deps.watchers.connection_of(table_id, leaver.player_id) is None
    last = [m["version"] for m in updates(leaver)]
    assert last == sorted(set(last))  # never the same version twice


def test_r7_11_a_deep_stack_leaver_watching_is_told_the_buy_in_it_owes() -> None:
    h = harness()
    host = h.player("host")
    ack = host.send(action="create_table", name="deep", small_blind=1, big_blind=2,
                    min_buy_in=40, max_buy_in=400, deep_stack=True)
    table_id = str(ack["table_id"])
    players = [host, h.player("p1"), h.player("p2")]
    for player in players:
        assert player.send(action="join_table", table_id=table_id, buy_in=400)["type"] \
            in ACCEPTED
    while h.store.load(table_id).state.hand_in_progress:
        mover = actor(players)
        move = "check" if "check" in mover.last_view()["prompt"]["actions"] else "call"
        mover.send(action="act", table_id=table_id, move=move)
    leaver = players[2]
    assert leaver.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
    assert h.service.deps.watchers.connection_of(table_id, leaver.player_id) is not None
    h.fire_due_timers()
    required = updates(leaver)[-1]["view"].get("required_buy_in")
    assert required is not None and required["min"] == required["left_with"] > 0
    assert all("required_buy_in" not in m["view"] for p in players[:2] for m in updates(p))


def test_the_spectator_cap_is_10000_and_refuses_only_newcomers() -> None:
    assert limits.MAX_SPECTATORS == 10_000
    h = harness()
    table_id, _ = seated(h, 3)
    watchers = h.service.deps.watchers
    for i in range(limits.MAX_SPECTATORS):
        watchers.add(table_id, f"v{i}", f"cv{i}", 0)
    late = h.player("late")
    refused = late.send(action="snapshot", table_id=table_id)
    assert (refused["type"], refused["code"]) == ("error", "too_many_spectators")
    assert table_id not in h.connections.tables_of(late.connection_id)


def test_an_update_s_message_round_trips_and_refuses_what_is_not_one() -> None:
    update = SpectatorUpdate("t1", 9, '{"type":"update"}', ("p1",), ("p2",),
                             {"p3": {"min": 400, "max": 400}}, 5)
    assert parse_body(message_body(update)) == update
    assert update.group == "t1#5" and update.dedup == "t1.9.5"
    assert spectators.WATCHER_PAGE == 1_000


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), moves=st.lists(st.sampled_from(["call", "fold", "raise"]),
                                                    min_size=4, max_size=30))
def test_no_spectator_ever_gets_a_hidden_card(seed: int, moves: list[str]) -> None:
    """Every update a spectator gets from the worker (and every snapshot) names no card the
    spectator may not see at that moment: hole cards not shown at a showdown, the deck (R10.2,
    the hidden-information rule behind every view)."""
    h = harness(seed=seed)
    table_id, players = seated(h, 4)
    watchers = crowd(h, table_id, 3)
    for move in moves:
        record = h.store.load(table_id)
        if not record.state.hand_in_progress:
            h.fire_due_timers()
            continue
        mover = actor(players)
        prompt = mover.last_view()["prompt"]
        choice = move if move in prompt["actions"] else (
            "check" if "check" in prompt["actions"] else "call")
        frame: dict[str, Any] = {"action": "act", "table_id": table_id, "move": choice}
        if choice == "raise":
            frame["amount"] = prompt["min_raise_to"]
        counts = [len(w.messages) for w in watchers]
        assert mover.send(**frame)["type"] in ACCEPTED
        hand = h.store.load(table_id).state.hand
        assert hand is not None
        for watcher, before in zip(watchers, counts, strict=True):
            forbidden = hidden_from(hand, None)
            for message in watcher.messages[before:]:
                assert not cards_in(message) & forbidden, (message["type"],
                                                           cards_in(message) & forbidden)
