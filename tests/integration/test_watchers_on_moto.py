"""Spectators out of the table item, on moto (issue 23 item 3): ``WatchersTable`` and
``WatchersQueue`` (with its dead-letter queue) are created from ``template.yaml``; the real
bootstrap wires ``DynamoWatchers`` and ``SqsWatcherQueue`` from ``WATCHERS_TABLE`` and
``WATCHERS_QUEUE_URL``; players and spectators go through ``functions/game/app.py``; what the
queue holds is received as the event source mapping would and handed to
``functions/watchers/app.py`` (then ``DeleteMessage`` of every record not reported)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import boto3
import pytest
from aws_testing import REGION, capture_posts, create_tables_from_template, websocket_event
from limits_testing import fill_spectators
from moto import mock_aws
from naiko.cards import seeded_random
from naiko_local.stack import LambdaContext
from naiko_local.template import load_handler, load_template
from naiko_service import bootstrap, limits
from naiko_service.aws.dynamodb import DynamoTableStore
from naiko_service.aws.watchers import COUNT_KEY, WATCHER_TTL_SECONDS, DynamoWatchers
from naiko_service.memory import ManualClock
from naiko_service.records import Sealer, TableRecord
from naiko_service.watcher_queue import parse_body, shard_of

ACCOUNT = "123456789012"
STAGE = "test"
ENDPOINT = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/test"


def _queue(sqs: Any, logical_id: str, arns: dict[str, str]) -> str:
    """Create a template queue (its properties as attributes, references resolved)."""
    properties = dict(load_template()["Resources"][logical_id]["Properties"])
    name = str(properties.pop("QueueName")).replace("${Stage}", STAGE)
    attributes: dict[str, str] = {}
    for key, value in properties.items():
        if key == "RedrivePolicy":
            logical = str(value["deadLetterTargetArn"]).split(".")[0]
            value = json.dumps({"deadLetterTargetArn": arns[logical],
                                "maxReceiveCount": value["maxReceiveCount"]})
        attributes[key] = str(value).lower() if isinstance(value, bool) else str(value)
    url = str(sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"])
    arns[logical_id] = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url


@dataclass
class World:
    handlers: dict[str, ModuleType]
    posts: Any
    names: dict[str, str]
    sqs: Any
    queue_url: str
    dynamodb: Any
    clock: ManualClock
    players: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    def _event(self, connection_id: str, route: str, event_type: str,
               body: str | None = None) -> dict[str, Any]:
        self.counter += 1
        return websocket_event(connection_id, self.players[connection_id], route, event_type,
                               body, request_id=f"r{self.counter}", stage=STAGE,
                               connected_at=0)

    def connect(self, player: str) -> str:
        connection_id = f"c-{player}"
        self.players[connection_id] = player
        assert self.handlers["connect"].lambda_handler(
            self._event(connection_id, "$connect", "CONNECT"),
            LambdaContext("naiko-test")) == {"statusCode": 200}
        return connection_id

    def disconnect(self, connection_id: str) -> None:
        self.handlers["disconnect"].lambda_handler(
            self._event(connection_id, "$disconnect", "DISCONNECT"), LambdaContext("naiko-test"))

    def send(self, connection_id: str, **frame: Any) -> dict[str, Any]:
        frame.setdefault("request_id", f"q{self.counter}")
        before = len(self.messages(connection_id))
        event = self._event(connection_id, str(frame["action"]), "MESSAGE", json.dumps(frame))
        assert self.handlers["game"].lambda_handler(
            event, LambdaContext("naiko-test")) == {"statusCode": 200}
        new = self.messages(connection_id)[before:]
        return next(m for m in new if m["type"] in ("ack", "error", "snapshot")
                    or (m["type"] == "update" and m.get("request_id") == frame["request_id"]))

    def messages(self, connection_id: str) -> list[dict[str, Any]]:
        return list(self.posts.messages.get(connection_id, []))

    def updates(self, connection_id: str) -> list[dict[str, Any]]:
        return [m for m in self.messages(connection_id) if m["type"] == "update"]

    def sit(self, count: int = 3) -> tuple[str, list[str]]:
        connections = []
        for i in range(count):
            self.dynamodb.update_item(TableName=self.names["AccountsTable"],
                                      Key={"player_id": {"S": f"player{i}"}},
                                      UpdateExpression="ADD balance :c",
                                      ExpressionAttributeValues={":c": {"N": "10000"}})
            connections.append(self.connect(f"player{i}"))
        ack = self.send(connections[0], action="create_table", name="featured",
                        variant="NLHE", small_blind=1, big_blind=2, min_buy_in=40,
                        max_buy_in=400)
        table_id = str(ack["table_id"])
        for connection in connections:
            assert self.send(connection, action="join_table", table_id=table_id,
                             buy_in=200)["type"] in ("ack", "update")
        return table_id, connections

    def load(self, table_id: str) -> TableRecord:
        return DynamoTableStore(self.dynamodb, self.names["TablesTable"],
                                self.names["AccountsTable"], Sealer(bytes(range(32)))
                                ).load(table_id)

    def actor(self, table_id: str, connections: list[str]) -> str:
        record = self.load(table_id)
        assert record.state.hand is not None
        player = record.state.seats[record.state.hand.actor].player_id  # type: ignore[union-attr]
        return f"c-{player}"

    def receive(self) -> list[dict[str, Any]]:
        answer = self.sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10,
                                          WaitTimeSeconds=0, AttributeNames=["All"])
        messages: list[dict[str, Any]] = answer.get("Messages", [])
        return messages

    def deliver(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The event source mapping: invoke the worker, delete what it did not report."""
        event = {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"],
                              "body": m["Body"], "eventSource": "aws:sqs",
                              "attributes": m.get("Attributes", {})} for m in messages]}
        answer: dict[str, Any] = self.handlers["watchers"].lambda_handler(
            event, LambdaContext("naiko-test"))
        failed = {item["itemIdentifier"] for item in answer["batchItemFailures"]}
        for message in messages:
            if message["MessageId"] not in failed:
                self.sqs.delete_message(QueueUrl=self.queue_url,
                                        ReceiptHandle=message["ReceiptHandle"])
        return answer

    def drain(self) -> int:
        """Deliver until the queue is empty (shard messages included); how many."""
        total = 0
        while messages := self.receive():
            total += len(messages)
            assert self.deliver(messages) == {"batchItemFailures": []}
        return total

    def item(self, table_id: str, sort_key: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.dynamodb.get_item(
            TableName=self.names["WatchersTable"],
            Key={"table_id": {"S": table_id}, "watcher": {"S": sort_key}}).get("Item")
        return found


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_ENDPOINT_URL", "STATE_KEY_SECRET_ARN", "TIMER_QUEUE_URL",
                 "TIMER_STATE_MACHINE_ARN", "TIMER_LONG_STATE_MACHINE_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    with mock_aws(), capture_posts() as posts:
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(dynamodb)
        for variable, logical_id in (("TABLES_TABLE", "TablesTable"),
                                     ("ACCOUNTS_TABLE", "AccountsTable"),
                                     ("LEDGER_TABLE", "LedgerTable"),
                                     ("CONNECTIONS_TABLE", "ConnectionsTable"),
                                     ("WATCHERS_TABLE", "WatchersTable")):
            monkeypatch.setenv(variable, names[logical_id])
        sqs = boto3.client("sqs", region_name=REGION)
        arns: dict[str, str] = {}
        _queue(sqs, "WatchersDeadLetterQueue", arns)  # the target first
        queue_url = _queue(sqs, "WatchersQueue", arns)
        monkeypatch.setenv("WATCHERS_QUEUE_URL", queue_url)
        monkeypatch.setenv("STATE_KEY", base64.b64encode(bytes(range(32))).decode())
        monkeypatch.setenv("WEBSOCKET_ENDPOINT", ENDPOINT)
        bootstrap.reset()
        handlers = {n: load_handler(n) for n in ("connect", "disconnect", "game", "watchers")}
        service = bootstrap.get_service()
        clock = ManualClock(1_800_000_000_000)
        service.deps.clock = clock
        service.deps.rng = seeded_random(7)
        watchers = service.deps.watchers
        assert isinstance(watchers, DynamoWatchers)
        watchers.clock = lambda: clock.now / 1000
        try:
            yield World(handlers, posts, names, sqs, queue_url, dynamodb, clock)
        finally:
            bootstrap.reset()


def test_the_queue_is_fifo_with_a_dead_letter_queue_as_the_template_says(world: World) -> None:
    attributes = world.sqs.get_queue_attributes(QueueUrl=world.queue_url,
                                                AttributeNames=["All"])["Attributes"]
    assert attributes["FifoQueue"] == "true"
    assert attributes["VisibilityTimeout"] == "360"
    redrive = json.loads(attributes["RedrivePolicy"])
    assert redrive["maxReceiveCount"] == 3 and redrive["deadLetterTargetArn"].endswith(
        "naiko-test-watchers-dead.fifo")


def test_a_spectator_is_an_item_of_its_own_and_the_table_item_is_not_written(
        world: World) -> None:
    table_id, _ = world.sit()
    before = world.load(table_id)
    spectator = world.connect("fan")
    snapshot = world.send(spectator, action="snapshot", table_id=table_id)
    assert snapshot["type"] == "snapshot" and snapshot["version"] == before.seq
    after = world.load(table_id)
    assert after.version == before.version  # subscribing did not write the table
    assert "fan" not in after.connections
    item = world.item(table_id, f"{shard_of('fan'):02d}#fan")
    assert item is not None and item["connection_id"]["S"] == spectator
    assert int(item["expires_at"]["N"]) == world.clock.now // 1000 + WATCHER_TTL_SECONDS
    counter = world.item(table_id, COUNT_KEY)
    assert counter is not None and counter["n"]["N"] == "1"
    # A second snapshot (a resubscribe) keeps one item and the count.
    assert world.send(spectator, action="snapshot", table_id=table_id)["type"] == "snapshot"
    assert world.item(table_id, COUNT_KEY)["n"]["N"] == "1"  # type: ignore[index]
    # unwatch removes it, and the table item is still not written.
    assert world.send(spectator, action="unwatch", table_id=table_id)["type"] == "ack"
    assert world.item(table_id, f"{shard_of('fan'):02d}#fan") is None
    assert world.item(table_id, COUNT_KEY)["n"]["N"] == "0"  # type: ignore[index]
    assert world.load(table_id).version == before.version


def test_players_are_posted_first_and_spectators_get_the_public_update_from_the_worker(
        world: World) -> None:
    table_id, players = world.sit()
    fans = [world.connect(f"fan{i}") for i in range(5)]
    for fan in fans:
        assert world.send(fan, action="snapshot", table_id=table_id)["type"] == "snapshot"
    mover = world.actor(table_id, players)
    update = world.send(mover, action="act", table_id=table_id, move="call")
    assert update["type"] == "update"
    assert all(world.updates(fan) == [] for fan in fans)  # not yet: queued, off this path
    messages = world.receive()
    assert len(messages) == 1
    assert messages[0]["Attributes"]["MessageGroupId"] == table_id
    body = parse_body(messages[0]["Body"])
    assert body.version == update["version"] and set(body.members) == {
        "player0", "player1", "player2"}
    assert world.deliver(messages) == {"batchItemFailures": []}
    for fan in fans:
        (got,) = world.updates(fan)
        assert got["version"] == update["version"]
        assert got["view"]["seat_index"] is None and got["view"]["prompt"] is None
        assert all(seat["cards"] is None for seat in got["view"]["seats"] if seat)
    # A player's disconnect is a table write; a spectator's is only its own item.
    version = world.load(table_id).version
    world.disconnect(fans[0])
    assert world.load(table_id).version == version
    assert world.item(table_id, f"{shard_of('fan0'):02d}#fan0") is None


def test_the_worker_removes_a_gone_spectator_and_the_others_still_get_theirs(
        world: World) -> None:
    table_id, players = world.sit()
    fans = [world.connect(f"fan{i}") for i in range(4)]
    for fan in fans:
        world.send(fan, action="snapshot", table_id=table_id)
    world.posts.mark_gone(fans[1])
    world.send(world.actor(table_id, players), action="act", table_id=table_id, move="call")
    assert world.drain() == 1
    assert world.item(table_id, f"{shard_of('fan1'):02d}#fan1") is None
    assert world.item(table_id, COUNT_KEY)["n"]["N"] == "3"  # type: ignore[index]
    assert [len(world.updates(f)) for f in fans] == [1, 0, 1, 1]


def test_more_than_a_worker_s_share_of_spectators_is_split_into_shard_messages(
        world: World) -> None:
    table_id, players = world.sit()
    count = limits.WATCHERS_PER_WORKER + 1
    watchers = bootstrap.get_service().deps.watchers
    fill_spectators(watchers, table_id, count)
    world.send(world.actor(table_id, players), action="act", table_id=table_id, move="call")
    (first,) = world.receive()
    assert world.deliver([first]) == {"batchItemFailures": []}
    assert world.posts.raw == {k: v for k, v in world.posts.raw.items() if not k.startswith("cw")}
    shards = []
    while messages := world.receive():
        shards += messages
        assert world.deliver(messages) == {"batchItemFailures": []}
    assert sorted(m["Attributes"]["MessageGroupId"] for m in shards) == sorted(
        f"{table_id}#{s}" for s in range(limits.WATCHER_SHARDS))
    posted = {k for k in world.posts.raw if k.startswith("cw")}
    assert len(posted) == count  # every spectator once, by 16 invocations


def test_the_cap_is_the_counter_s_and_a_refusal_writes_nothing(world: World) -> None:
    table_id, _ = world.sit()
    world.dynamodb.update_item(TableName=world.names["WatchersTable"],
                               Key={"table_id": {"S": table_id}, "watcher": {"S": COUNT_KEY}},
                               UpdateExpression="SET n = :n",
                               ExpressionAttributeValues={
                                   ":n": {"N": str(limits.MAX_SPECTATORS - 1)}})
    last = world.connect("last")
    assert world.send(last, action="snapshot", table_id=table_id)["type"] == "snapshot"
    late = world.connect("late")
    refused = world.send(late, action="snapshot", table_id=table_id)
    assert (refused["type"], refused["code"]) == ("error", "too_many_spectators")
    assert world.item(table_id, f"{shard_of('late'):02d}#late") is None
    assert world.item(table_id, COUNT_KEY)["n"]["N"] == str(limits.MAX_SPECTATORS)  # type: ignore[index]


def test_a_malformed_message_is_reported_with_every_later_one(world: World) -> None:
    answer = world.handlers["watchers"].lambda_handler(
        {"Records": [{"messageId": "m1", "body": "not json"},
                     {"messageId": "m2", "body": "{}"}]}, LambdaContext("naiko-test"))
    assert answer == {"batchItemFailures": [{"itemIdentifier": "m1"},
                                            {"itemIdentifier": "m2"}]}
