"""Frames limited per connection and per player (issue 15, item 8): the token buckets, the game
handler's ``rate_limited`` answer, the close after refusals persist, the refusals shared across
containers through the connection's item (on moto), and the normal path that reads and writes
nothing."""

from __future__ import annotations

import importlib.util
import io
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.bots import decide
from naiko.cards import seeded_random
from naiko.engine import legal_actions
from naiko_service import bootstrap
from naiko_service.aws.dynamodb import DynamoConnections
from naiko_service.ratelimit import Bucket, RateLimiter, RateLimits
from service_testing import Harness, harness

ROOT = Path(__file__).resolve().parents[2]

TIGHT = RateLimits(connection_per_second=5.0, connection_burst=5, player_per_second=8.0,
                   player_burst=8, close_after=30, window_ms=10_000, persist_every=10)
"""Small limits, so that each test needs few frames."""


def load_game_handler() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_game_app_rate",
                                                  ROOT / "functions" / "game" / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GAME = load_game_handler()


@pytest.fixture(autouse=True)
def _clear_metrics() -> Iterator[None]:
    yield
    bootstrap.metrics.clear_metrics()


class Room:
    """A service on in-memory adapters with a limiter, driven through the game handler's
    ``serve`` (what every game frame goes through on AWS)."""

    def __init__(self, limits: RateLimits = TIGHT, add_refusals: Any = None):
        self.h: Harness = harness(seed=11)
        self.h.service.limiter = RateLimiter(limits, self.h.clock.now_ms, add_refusals)
        self.connections: dict[str, str] = {}
        self._ids = 0

    def connect(self, player_id: str, connection_id: str | None = None) -> str:
        connection_id = connection_id or f"conn-{player_id}"
        self.h.accounts.grant(player_id, 10_000)
        self.h.service.connect(connection_id, player_id)
        self.connections.setdefault(player_id, connection_id)
        return connection_id

    def send(self, player_id: str, frame: dict[str, Any],
             connection_id: str | None = None) -> dict[str, Any]:
        """One frame through the handler; returns the reply to it."""
        connection_id = connection_id or self.connections[player_id]
        self._ids += 1
        request_id = f"{player_id}-{self._ids}"
        before = len(self.h.gateway.sent[connection_id])
        GAME.serve(self.h.service, connection_id, json.dumps({**frame, "request_id": request_id}),
                   player_id)
        replies = [m for m in self.h.gateway.sent[connection_id][before:]
                   if m.get("request_id") == request_id]
        assert replies, self.h.gateway.sent[connection_id][before:]
        reply: dict[str, Any] = replies[0]
        return reply

    def table(self, players: list[str]) -> str:
        ack = self.send(players[0], {"action": "create_table", "name": "limits",
                                     "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                                     "max_buy_in": 200, "decision_seconds": 60})
        assert ack["type"] in ("ack", "update"), ack
        table_id = str(ack["table_id"])
        for player in players:
            joined = self.send(player, {"action": "join_table", "table_id": table_id,
                                        "buy_in": 100})
            assert joined["type"] in ("ack", "update"), joined
        return table_id

    def act(self, table_id: str) -> dict[str, Any] | None:
        """The player to act calls or checks; ``None`` when nobody is to act."""
        state = self.h.store.load(table_id).state
        prompt = legal_actions(state)
        if prompt is None:
            return None
        seat = state.seats[prompt.seat_index]
        assert seat is not None
        move = "call" if "call" in prompt.actions else "check"
        return self.send(seat.player_id, {"action": "act", "table_id": table_id, "move": move})


def fresh_players(room: Room, *names: str) -> list[str]:
    for name in names:
        room.connect(name)
    return list(names)


# -- the bucket ------------------------------------------------------------------------------

def test_a_bucket_refills_at_its_rate_up_to_its_size() -> None:
    bucket = Bucket(0.0, 1_000)
    assert bucket.refilled(1_200, per_second=5.0, size=3).tokens == pytest.approx(1.0)
    assert bucket.refilled(9_000, per_second=5.0, size=3).tokens == 3.0
    assert bucket.refilled(500, per_second=5.0, size=3) == Bucket(0.0, 1_000)  # no time back
    assert Bucket(0.2, 0).wait_ms(per_second=5.0) == 160


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=400),
                          st.sampled_from(["c1", "c2", "c3"])), min_size=1, max_size=150))
def test_no_connection_nor_player_gets_more_than_its_burst_plus_its_rate(
        frames: list[tuple[int, str]]) -> None:
    now = [0]
    limiter = RateLimiter(TIGHT, lambda: now[0])
    admitted = dict.fromkeys(("c1", "c2", "c3"), 0)
    for gap, connection_id in frames:
        now[0] += gap
        admitted[connection_id] += limiter.admit(connection_id, "p").allowed
        seconds = now[0] / 1000
        assert admitted[connection_id] <= TIGHT.connection_burst \
            + TIGHT.connection_per_second * seconds
        assert sum(admitted.values()) <= TIGHT.player_burst + TIGHT.player_per_second * seconds


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=0.2, max_value=5.0), st.integers(min_value=1, max_value=120))
def test_a_client_within_the_rate_is_never_refused(per_second: float, frames: int) -> None:
    now = [0]
    limiter = RateLimiter(TIGHT, lambda: now[0])
    for _ in range(frames):
        assert limiter.admit("c", "p").allowed
        now[0] += int(1000 / per_second) + 1


# -- through the game handler ----------------------------------------------------------------

def test_a_flood_from_one_connection_is_rate_limited_while_the_others_play_on() -> None:
    room = Room(replace(TIGHT, close_after=10_000))  # (the close has a test of its own)
    players = fresh_players(room, "alice", "bob", "carol")
    table_id = room.table(players)
    room.connect("mallory")  # watches the same table, and floods it with snapshots
    assert room.send("mallory", {"action": "snapshot", "table_id": table_id})["type"] \
        == "snapshot"
    limited = applied = 0
    for _ in range(15):  # rounds: mallory floods, whoever is to act acts
        for _ in range(10):
            reply = room.send("mallory", {"action": "snapshot", "table_id": table_id})
            if reply["type"] == "error":
                assert reply["code"] == "rate_limited", reply
                assert 0 < reply["retry_after_ms"] <= 200
                limited += 1
        version = room.h.store.load(table_id).version
        ack = room.act(table_id)
        if ack is not None:
            assert ack["type"] in ("ack", "update"), ack
            assert room.h.store.load(table_id).version > version
            applied += 1
        room.h.clock.advance(200)
        room.h.fire_due_timers()
    assert limited >= 100 and applied >= 10
    # mallory's allowed frames were answered as usual; the table's updates still reach her
    assert any(m["type"] == "update" for m in room.h.gateway.sent["conn-mallory"])


def test_a_refused_frame_changes_nothing() -> None:
    room = Room()
    players = fresh_players(room, "alice", "bob", "carol")
    table_id = room.table(players)
    while room.send("bob", {"action": "get_account"})["type"] == "account":
        pass  # bob's buckets are empty now
    version = room.h.store.load(table_id).version
    reply = room.send("bob", {"action": "leave_table", "table_id": table_id})
    assert (reply["type"], reply["code"]) == ("error", "rate_limited")
    record = room.h.store.load(table_id)
    assert record.version == version and record.seat_of("bob") is not None
    # and a frame that is not even valid is refused the same way, with its request id
    GAME.serve(room.h.service, "conn-bob", '{"action": "act", "request_id": "x-1"}', "bob")
    assert room.h.gateway.sent["conn-bob"][-1]["code"] == "rate_limited"
    assert room.h.gateway.sent["conn-bob"][-1]["request_id"] == "x-1"


def test_one_player_is_limited_across_two_connections() -> None:
    room = Room()
    room.connect("bob", "bob-phone")
    room.connect("bob", "bob-laptop")
    room.connect("alice")
    replies = [room.send("bob", {"action": "get_account"},
                         "bob-phone" if i % 2 else "bob-laptop") for i in range(10)]
    # each connection sent 5 (its own burst), but bob as a whole only has 8
    assert [r["type"] for r in replies[:8]] == ["account"] * 8
    assert [(r["type"], r.get("code")) for r in replies[8:]] == [("error", "rate_limited")] * 2
    assert "player" in replies[9]["message"]
    assert room.send("alice", {"action": "get_account"})["type"] == "account"  # not alice


@pytest.fixture
def logs() -> Iterator[io.StringIO]:
    """The handlers' structured log lines (one Powertools logger)."""
    stream = io.StringIO()
    handler = GAME.logger.registered_handler
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


def test_a_connection_that_keeps_flooding_is_closed_once_and_logged(
        logs: io.StringIO) -> None:
    room = Room()
    room.connect("mallory")
    room.connect("alice")
    codes = []
    for _ in range(TIGHT.connection_burst + TIGHT.close_after - 1):
        codes.append(room.send("mallory", {"action": "get_account"}).get("code"))
    assert codes.count("rate_limited") == TIGHT.close_after - 1
    assert room.h.gateway.closed == []  # one refusal short of the close
    reply = room.send("mallory", {"action": "get_account"})
    assert reply["code"] == "rate_limited"
    assert room.h.gateway.closed == ["conn-mallory"]
    log = [json.loads(line) for line in logs.getvalue().splitlines()]
    closes = [entry for entry in log if "kept exceeding the rate limit" in entry["message"]]
    assert len(closes) == 1 and closes[0]["refusals"] == TIGHT.close_after
    assert closes[0]["player_id"] == "mallory" and closes[0]["request_id"] == reply["request_id"]
    room.h.gateway.gone.discard("conn-mallory")  # frames still in flight: not closed twice
    room.send("mallory", {"action": "get_account"})
    assert room.h.gateway.closed == ["conn-mallory"]
    assert room.send("alice", {"action": "get_account"})["type"] == "account"


def test_refusals_spread_over_a_window_do_not_close() -> None:
    room = Room()
    room.connect("bob")
    refused = 0
    for _ in range(6):  # a burst too many now and then: never 30 refusals in 10 s
        for _ in range(TIGHT.connection_burst + 5):
            refused += room.send("bob", {"action": "get_account"}).get("code") == "rate_limited"
        room.h.clock.advance(TIGHT.window_ms)
    assert refused >= 30 and room.h.gateway.closed == []


def test_sessions_at_normal_speed_never_see_rate_limited() -> None:
    """Four players at the default limits: each acts 0.4-3 s after its turn comes (a BOT's
    think is 0.4-1.2 s), one of them also refreshes the lobby every 3 s (the terminal client's
    empty lobby), every player sends a heartbeat every 4 minutes of idleness and a snapshot
    when it comes back from a (simulated) reconnect every 10 hands."""
    room = Room(RateLimits())
    players = fresh_players(room, "p1", "p2", "p3", "p4")
    table_id = room.table(players)
    rng = seeded_random(3)
    replies: list[dict[str, Any]] = []
    last_sent = dict.fromkeys(players, room.h.clock.now)
    last_lobby = room.h.clock.now
    hands = 0
    for _ in range(5_000):
        if hands >= 20:
            break
        room.h.clock.advance(rng.randrange(400, 3_001))
        room.h.fire_due_timers()
        now = room.h.clock.now
        if now - last_lobby >= 3_000:
            replies.append(room.send("p1", {"action": "list_tables"}))
            last_lobby = now
        for player in players:
            if now - last_sent[player] >= 240_000:
                replies.append(room.send(player, {"action": "heartbeat"}))
                last_sent[player] = now
        record = room.h.store.load(table_id)
        if record.state.hand is not None and record.state.hand.number > hands:
            hands = record.state.hand.number
            if hands % 10 == 0:
                for player in players:
                    replies.append(room.send(player, {"action": "snapshot",
                                                      "table_id": table_id}))
        prompt = legal_actions(record.state)
        if prompt is None:
            continue
        seat = record.state.seats[prompt.seat_index]
        assert seat is not None
        actor = seat.player_id
        view = room.h.service.view(record, prompt.seat_index)
        command = decide(view, rng)
        if command is None:
            continue
        from naiko_local.stack import frame_for

        replies.append(room.send(actor, frame_for(command, table_id)))
        last_sent[actor] = now
    assert hands >= 20 and len(replies) > 100
    assert not [r for r in replies if r.get("code") == "rate_limited"]


# -- no DynamoDB on the normal path; refusals shared across containers -----------------------

class CountingClient:
    """A DynamoDB client that counts the calls made to it (and answers none)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        def call(**kwargs: Any) -> Any:
            self.calls.append(name)
            return {"Attributes": {"refusals": {"N": "10"}}}
        return call


def test_frames_within_the_limits_make_no_dynamodb_call() -> None:
    client = CountingClient()
    connections = DynamoConnections(client, "connections")
    room = Room(add_refusals=connections.add_refusals)
    room.connect("alice")  # (the in-memory store binds it: no call either)
    for _ in range(TIGHT.connection_burst):
        assert room.send("alice", {"action": "get_account"})["type"] == "account"
    assert client.calls == []  # the limits cost nothing while they allow
    for _ in range(2 * TIGHT.persist_every):
        assert room.send("alice", {"action": "get_account"})["code"] == "rate_limited"
    assert client.calls == ["update_item", "update_item"]  # one per batch of refusals


@pytest.fixture
def dynamodb() -> Iterator[Any]:
    moto = pytest.importorskip("moto")
    import boto3
    from naiko_local import template as tpl

    with moto.mock_aws():
        client = boto3.client("dynamodb", region_name="eu-west-1")
        template = tpl.load_template(ROOT / "template.yaml")
        names = tpl.create_tables(client, template, "test")
        yield client, names["ConnectionsTable"]


def test_the_stored_refusals_count_per_window_and_never_for_a_gone_connection(
        dynamodb: tuple[Any, str]) -> None:
    client, table = dynamodb
    connections = DynamoConnections(client, table)
    connections.bind("c1", "mallory", 1_700_000_000_000)
    assert connections.add_refusals("c1", 10, 7) == 10
    assert connections.add_refusals("c1", 10, 7) == 20
    assert connections.add_refusals("c1", 10, 8) == 10  # a new window starts anew
    assert connections.add_refusals("c1", 10, 7) == 10  # (a late, older window: not added)
    assert connections.player_of("c1") == "mallory"
    assert connections.add_refusals("nobody", 10, 8) == 0
    assert "Item" not in client.get_item(TableName=table,
                                         Key={"connection_id": {"S": "nobody"}})


def test_a_flood_spread_over_two_containers_is_closed_by_their_stored_count(
        dynamodb: tuple[Any, str]) -> None:
    client, table = dynamodb
    connections = DynamoConnections(client, table)
    connections.bind("c1", "mallory", 1_700_000_000_000)
    now = [1_700_000_000_000]
    containers = [RateLimiter(TIGHT, lambda: now[0], connections.add_refusals)
                  for _ in range(2)]
    for i in range(200):  # frames alternate between two warm containers
        admission = containers[i % 2].admit("c1", "mallory")
        if admission.close:
            break
    else:
        pytest.fail("never closed")
    # neither container refused close_after frames itself: the stored count closed it
    local = [limiter._strikes["c1"].local for limiter in containers]
    assert max(local) < TIGHT.close_after and admission.refusals >= TIGHT.close_after
    # closed once the stored count got there: each container holds back fewer than a batch
    assert sum(local) < TIGHT.close_after + len(containers) * TIGHT.persist_every


# -- the local gateway's screen (docs/local.md, "Fairness") ----------------------------------

def test_a_screened_frame_takes_its_tokens_once_and_the_handler_none() -> None:
    calls: list[Any] = []
    limiter = RateLimiter(TIGHT, lambda: 0, add_refusals=lambda *a: calls.append(a) or 0)
    # the burst is screened in: tokens taken at the screen
    assert [limiter.screen("c", "p", f"m{i}") for i in range(TIGHT.connection_burst)] \
        == [None] * TIGHT.connection_burst
    refused = limiter.screen("c", "p", "m-over")
    assert refused is not None and not refused.allowed and refused.by == "connection"
    # each screened frame's handler is allowed without a second token, once
    assert all(limiter.admit("c", "p", f"m{i}").allowed for i in range(TIGHT.connection_burst))
    assert not limiter.admit("c", "p", "m0").allowed  # (a frame id admits once)
    assert not limiter.admit("c", "p").allowed  # the buckets stayed empty
    # refusals at the screen count towards the close, and never write (no I/O on the loop)
    for i in range(TIGHT.close_after * 2):
        limiter.screen("c", "p", f"x{i}")
    assert calls == []
    assert limiter.screen("c", "p", "last") is not None


def test_the_game_handler_screen_refuses_as_serve_does() -> None:
    room = Room()
    fresh_players(room, "bob")
    context = {"connectionId": "conn-bob", "authorizer": {"principalId": "bob"}}
    answers = [GAME.screen(room.h.service, '{"action": "get_account", "request_id": "r-1"}',
                           {**context, "messageId": f"m{i}"})
               for i in range(TIGHT.connection_burst + 1)]
    assert answers[:-1] == [None] * TIGHT.connection_burst
    refusal = answers[-1]
    assert refusal is not None
    message, close = refusal
    assert (message["type"], message["code"], message["request_id"], close) \
        == ("error", "rate_limited", "r-1", False)
    assert 0 < message["retry_after_ms"] <= 200
    # a screened frame's handler does not pay again: its frame is answered
    GAME.serve(room.h.service, "conn-bob", '{"action": "get_account", "request_id": "r-2"}',
               "bob", "m0")
    assert room.h.gateway.sent["conn-bob"][-1]["type"] == "account"
    GAME.serve(room.h.service, "conn-bob", '{"action": "get_account", "request_id": "r-3"}',
               "bob", "unscreened")
    assert room.h.gateway.sent["conn-bob"][-1]["code"] == "rate_limited"
