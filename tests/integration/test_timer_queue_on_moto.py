"""The timer queue of ``template.yaml`` on moto, driving the real handlers.

``TimerQueue`` and ``TimerDeadLetterQueue`` are created in moto's SQS from their properties in
``template.yaml`` (visibility, retention, redrive policy); the service is built by the real
bootstrap with ``TIMER_TRANSPORT=queue`` (so its scheduler is a ``DelayQueueScheduler`` on a
boto3 ``sqs`` client, its long waits on the STANDARD machine, created from the template too).
A table is played through ``functions/game/app.py``; what the queue holds is received as the
event source mapping would (``ReceiveMessage``, then the records handed to
``functions/timer/app.py``, then ``DeleteMessage`` of every record not in
``batchItemFailures``).

**Virtual time.** moto's SQS measures ``DelaySeconds`` and visibility timeouts with the wall
clock (``moto.sqs.models.unix_time_millis``/``unix_time``); both are patched to read the same
virtual clock as the service, so a 20-second decision clock or a 168-second visibility timeout
takes no real time, and "not receivable one millisecond before its delay" is exact.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from unittest import mock

import boto3
import pytest
from aws_testing import (
    REGION,
    TEST_ROLE_ARN,
    atomic_dynamodb,
    capture_posts,
    create_tables_from_template,
    websocket_event,
)
from moto import mock_aws
from naiko.cards import seeded_random
from naiko_local.stack import LambdaContext
from naiko_local.template import load_handler, load_template
from naiko_service import bootstrap
from naiko_service.aws.dynamodb import DynamoTableStore
from naiko_service.aws.scheduler import DelayQueueScheduler, StepFunctionsScheduler
from naiko_service.records import Sealer, TableRecord, TimerKind
from naiko_service.timer_queue import RETRY_DELAY_S, parse_body

ACCOUNT = "123456789012"
STAGE = "test"
ENDPOINT = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/test"
TIMER_FUNCTION_ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:naiko-test-timer"
START_MS = 1_800_000_000_000
"""Virtual time when each test starts (2027-01-15T08:00:00Z)."""


class Clock:
    """The virtual clock of the service and of moto's SQS."""

    def __init__(self, now: int) -> None:
        self.now = now

    def now_ms(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


def Context() -> LambdaContext:  # noqa: N802 - reads like the handlers' context class
    return LambdaContext("naiko-test")


def _queue_attributes(logical_id: str, arns: dict[str, str]) -> tuple[str, dict[str, str]]:
    """``(QueueName, Attributes)`` of a template queue, its references resolved."""
    properties = dict(load_template()["Resources"][logical_id]["Properties"])
    name = str(properties.pop("QueueName")).replace("${Stage}", STAGE)
    attributes: dict[str, str] = {}
    for key, value in properties.items():
        if key == "RedrivePolicy":
            target = str(value["deadLetterTargetArn"])  # "TimerDeadLetterQueue.Arn"
            logical, attribute = target.split(".")
            assert attribute == "Arn"
            value = json.dumps({"deadLetterTargetArn": arns[logical],
                                "maxReceiveCount": value["maxReceiveCount"]})
        attributes[key] = str(value).lower() if isinstance(value, bool) else str(value)
    return name, attributes


def _standard_machine_definition() -> str:
    properties = load_template()["Resources"]["TimerStandardStateMachine"]["Properties"]
    text = json.dumps(properties["Definition"]).replace("${TimerFunctionArn}",
                                                        TIMER_FUNCTION_ARN)
    assert "${" not in text
    return text


@dataclass
class World:
    clock: Clock
    handlers: dict[str, ModuleType]
    posts: Any
    names: dict[str, str]
    sqs: Any
    queue_url: str
    dead_url: str
    sfn: Any
    standard_arn: str
    sent: list[dict[str, Any]]
    """Every ``SendMessage`` the service made (its parameters), in order."""
    players: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    # -- API Gateway calling the handlers --

    def _event(self, connection_id: str, route: str, event_type: str,
               body: str | None = None) -> dict[str, Any]:
        self.counter += 1
        return websocket_event(connection_id, self.players[connection_id], route, event_type,
                               body, request_id=f"r{self.counter}", stage=STAGE,
                               connected_at=START_MS)

    def connect(self, player: str) -> str:
        connection_id = f"c-{player}"
        self.players[connection_id] = player
        assert self.handlers["connect"].lambda_handler(
            self._event(connection_id, "$connect", "CONNECT"), Context()) == {"statusCode": 200}
        return connection_id

    def send(self, connection_id: str, **frame: Any) -> dict[str, Any]:
        frame.setdefault("request_id", f"q{self.counter}")
        before = len(self.messages(connection_id))
        event = self._event(connection_id, str(frame["action"]), "MESSAGE", json.dumps(frame))
        assert self.handlers["game"].lambda_handler(event, Context()) == {"statusCode": 200}
        new = self.messages(connection_id)[before:]
        return next(m for m in new if m["type"] in ("ack", "error", "snapshot")
                    or (m["type"] == "update" and m.get("request_id") == frame["request_id"]))

    def messages(self, connection_id: str) -> list[dict[str, Any]]:
        return list(self.posts.messages.get(connection_id, []))

    def events(self, connection_id: str, kind: str) -> list[dict[str, Any]]:
        return [e for m in self.messages(connection_id) if m["type"] == "update"
                for e in m["events"] if e["kind"] == kind]

    def sit(self, count: int = 3, prefix: str = "player") -> tuple[str, list[str]]:
        """*count* players at a new table (the last join deals the first hand)."""
        client = boto3.client("dynamodb", region_name=REGION)
        connections = []
        for i in range(count):
            client.update_item(TableName=self.names["AccountsTable"],
                               Key={"player_id": {"S": f"{prefix}{i}"}},
                               UpdateExpression="ADD balance :c",
                               ExpressionAttributeValues={":c": {"N": "10000"}})
            connections.append(self.connect(f"{prefix}{i}"))
        ack = self.send(connections[0], action="create_table", name="queue", variant="NLHE",
                        small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400)
        table_id = str(ack["table_id"])
        for connection in connections:
            assert self.send(connection, action="join_table", table_id=table_id,
                             buy_in=200)["type"] in ("ack", "update")
        return table_id, connections

    def load(self, table_id: str) -> TableRecord:
        return DynamoTableStore(boto3.client("dynamodb", region_name=REGION),
                                self.names["TablesTable"], self.names["AccountsTable"],
                                Sealer(bytes(range(32)))).load(table_id)

    # -- the queue and its event source mapping --

    def receive(self, url: str | None = None) -> list[dict[str, Any]]:
        """``ReceiveMessage`` (up to 10, no long polling, the queue's visibility timeout)."""
        answer = self.sqs.receive_message(QueueUrl=url or self.queue_url,
                                          MaxNumberOfMessages=10, WaitTimeSeconds=0,
                                          AttributeNames=["All"])
        messages: list[dict[str, Any]] = answer.get("Messages", [])
        return messages

    def deliver(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """What the event source mapping does with received *messages*: invoke the timer
        function with them, then delete every one it did not report."""
        event = {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"],
                              "body": m["Body"], "eventSource": "aws:sqs",
                              "eventSourceARN": f"arn:aws:sqs:{REGION}:{ACCOUNT}:timers",
                              "attributes": m.get("Attributes", {})} for m in messages]}
        answer: dict[str, Any] = self.handlers["timer"].lambda_handler(event, Context())
        failed = {item["itemIdentifier"] for item in answer["batchItemFailures"]}
        for message in messages:
            if message["MessageId"] not in failed:
                self.sqs.delete_message(QueueUrl=self.queue_url,
                                        ReceiptHandle=message["ReceiptHandle"])
        return answer

    def standard_executions(self) -> list[dict[str, Any]]:
        listed = self.sfn.list_executions(stateMachineArn=self.standard_arn)["executions"]
        return [json.loads(self.sfn.describe_execution(executionArn=e["executionArn"])["input"])
                for e in listed]


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_ENDPOINT_URL", "STATE_KEY_SECRET_ARN", "DEFAULT_DECISION_SECONDS",
                 "DEFAULT_PAUSE_SECONDS", "TIMER_STATE_MACHINE_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Naiko")
    clock = Clock(START_MS)
    with mock_aws(), capture_posts() as posts, atomic_dynamodb(), \
            mock.patch("moto.sqs.models.unix_time_millis", lambda: float(clock.now)), \
            mock.patch("moto.sqs.models.unix_time", lambda: clock.now / 1000):
        names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION))
        for variable, logical_id in (("TABLES_TABLE", "TablesTable"),
                                     ("ACCOUNTS_TABLE", "AccountsTable"),
                                     ("LEDGER_TABLE", "LedgerTable"),
                                     ("CONNECTIONS_TABLE", "ConnectionsTable"),
                                     ("TOURNAMENTS_TABLE", "TournamentsTable")):
            monkeypatch.setenv(variable, names[logical_id])
        monkeypatch.setenv("STATE_KEY", base64.b64encode(bytes(range(32))).decode())
        monkeypatch.setenv("WEBSOCKET_ENDPOINT", ENDPOINT)
        sqs = boto3.client("sqs", region_name=REGION)
        arns: dict[str, str] = {}
        urls: dict[str, str] = {}
        for logical_id in ("TimerDeadLetterQueue", "TimerQueue"):  # the target first
            name, attributes = _queue_attributes(logical_id, arns)
            urls[logical_id] = sqs.create_queue(QueueName=name,
                                                Attributes=attributes)["QueueUrl"]
            arns[logical_id] = sqs.get_queue_attributes(
                QueueUrl=urls[logical_id], AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sfn = boto3.client("stepfunctions", region_name=REGION)
        standard = sfn.create_state_machine(
            name="naiko-test-standard", definition=_standard_machine_definition(),
            roleArn=TEST_ROLE_ARN, type="STANDARD")["stateMachineArn"]
        monkeypatch.setenv("TIMER_QUEUE_URL", urls["TimerQueue"])
        monkeypatch.setenv("TIMER_TRANSPORT", "queue")
        monkeypatch.setenv("TIMER_LONG_STATE_MACHINE_ARN", standard)
        bootstrap.reset()
        handlers = {n: load_handler(n) for n in ("connect", "game", "timer")}
        service = bootstrap.get_service()
        service.deps.clock = clock
        service.deps.rng = seeded_random(7)
        scheduler = service.deps.scheduler
        assert isinstance(scheduler, DelayQueueScheduler)  # TIMER_TRANSPORT=queue
        assert scheduler.queue_url == urls["TimerQueue"]
        assert isinstance(scheduler.long_waits, StepFunctionsScheduler)
        assert scheduler.long_waits.long_state_machine_arn == standard
        scheduler.now_ms = clock.now_ms
        scheduler.long_waits.now_ms = clock.now_ms
        sent: list[dict[str, Any]] = []
        scheduler.client.meta.events.register(
            "provide-client-params.sqs.SendMessage",
            lambda params, **_: sent.append(dict(params)))
        try:
            yield World(clock, handlers, posts, names, sqs, urls["TimerQueue"],
                        urls["TimerDeadLetterQueue"], sfn, standard, sent)
        finally:
            bootstrap.reset()


def _decision(record: TableRecord) -> tuple[int, str]:
    timer = next(t for t in record.timers if t.kind in ("decision", "grace"))
    return timer.due_ms, timer.token


def test_the_queue_is_created_as_the_template_says(world: World) -> None:
    attributes = world.sqs.get_queue_attributes(QueueUrl=world.queue_url,
                                                AttributeNames=["All"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "168"
    assert attributes["MessageRetentionPeriod"] == "3600"
    redrive = json.loads(attributes["RedrivePolicy"])
    assert redrive["deadLetterTargetArn"].endswith(":naiko-test-timers-dead")
    assert int(redrive["maxReceiveCount"]) == 5


def test_r8_1_a_decision_wakeup_waits_on_the_queue_then_times_the_player_out(world: World) -> None:
    """R8.1 through the queue: the dealt hand arms one wake-up, a message delayed until the
    decision deadline (rounded up to the second); it cannot be received a millisecond
    before, it can at its time, and the timer function acts on it: the silent player times
    out, the next wake-up goes on the queue, and the batch reports no failure."""
    table_id, connections = world.sit(3)
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.actor is not None
    seat = record.state.hand.actor
    due_ms, token = _decision(record)
    [sent] = [s for s in world.sent if parse_body(s["MessageBody"]).token == token]
    delay = sent["DelaySeconds"]
    assert delay * 1000 >= due_ms - START_MS > (delay - 1) * 1000
    assert sent["QueueUrl"] == world.queue_url
    message = parse_body(sent["MessageBody"])
    assert (message.table_id, message.kind, message.due_ms, message.attempt) == (
        table_id, "decision", due_ms, 0)

    world.clock.now = START_MS + delay * 1000 - 1
    assert world.receive() == []  # still delayed
    world.clock.now = START_MS + delay * 1000
    received = world.receive()
    assert [parse_body(m["Body"]).token for m in received] == [token]
    before = world.load(table_id)
    assert world.deliver(received) == {"batchItemFailures": []}

    after = world.load(table_id)
    assert after.version > before.version
    assert world.events(connections[0], "timed_out")[-1]["seat_index"] == seat
    assert after.state.hand is not None and after.state.hand.actor != seat
    next_due, next_token = _decision(after)
    assert next_token != token
    # the next turn's wake-up is on the queue, the delivered one is gone
    assert world.receive() == []
    world.clock.now = next_due + 999
    [again] = world.receive()
    assert parse_body(again["Body"]).token == next_token
    assert world.standard_executions() == []


def test_one_batch_wakes_several_tables_at_once(world: World) -> None:
    """A batch of wake-ups for different tables (handled on parallel threads,
    ``usecases.timers.timers_fired``): each table acts, each gets its own next wake-up, and
    the metrics of every thread are counted."""
    tables = [world.sit(3, prefix=f"p{t}-") for t in range(3)]
    due = {table_id: _decision(world.load(table_id)) for table_id, _ in tables}
    world.clock.now = max(d for d, _ in due.values())
    received = world.receive()
    assert sorted(parse_body(m["Body"]).token for m in received) \
        == sorted(t for _, t in due.values())
    world.sent.clear()
    counted: list[tuple[str, int]] = []
    real_count = bootstrap.count

    def count(name: str, value: int = 1) -> None:
        counted.append((name, value))
        real_count(name, value)

    with mock.patch.object(bootstrap, "count", count):
        assert world.deliver(received) == {"batchItemFailures": []}
    for table_id, connections in tables:
        assert len(world.events(connections[0], "timed_out")) == 1
        assert _decision(world.load(table_id))[1] != due[table_id][1]
    assert sorted(parse_body(s["MessageBody"]).table_id for s in world.sent) \
        == sorted(t for t, _ in tables)
    assert ("TimersFired", 3) in counted


def test_a_duplicate_delivery_is_a_no_op(world: World) -> None:
    table_id, connections = world.sit(3)
    due_ms, token = _decision(world.load(table_id))
    world.clock.now = due_ms + 1000
    received = world.receive()
    assert world.deliver(received) == {"batchItemFailures": []}
    fired = world.load(table_id)
    timed_out = len(world.events(connections[0], "timed_out"))
    # SQS delivers at least once: the same message again
    world.sqs.send_message(QueueUrl=world.queue_url, MessageBody=received[0]["Body"])
    [duplicate] = [m for m in world.receive() if parse_body(m["Body"]).token == token]
    assert world.deliver([duplicate]) == {"batchItemFailures": []}
    again = world.load(table_id)
    assert again.version == fired.version and again.state == fired.state
    assert len(world.events(connections[0], "timed_out")) == timed_out


def test_an_early_message_is_sent_on_with_the_rest_of_its_wait(world: World) -> None:
    """A message that arrives long before its time (a wait over 15 minutes with no long-wait
    machine, or clocks apart) goes back on the queue until its due time."""
    table_id, _ = world.sit(3)
    world.sent.clear()
    due = START_MS + 100_500
    world.sqs.send_message(QueueUrl=world.queue_url, MessageBody=json.dumps(
        {"table_id": table_id, "token": "decision:9.9", "kind": "decision", "due_ms": due}))
    received = [m for m in world.receive() if parse_body(m["Body"]).token == "decision:9.9"]
    assert world.deliver(received) == {"batchItemFailures": []}
    [sent] = world.sent
    assert sent["DelaySeconds"] == 101  # rounded up: never before its time
    assert parse_body(sent["MessageBody"]).due_ms == due
    world.clock.now = START_MS + 101_000 - 1
    assert [m for m in world.receive() if "9.9" in m["Body"]] == []
    world.clock.now = START_MS + 101_000
    assert [parse_body(m["Body"]).due_ms for m in world.receive()
            if "9.9" in m["Body"]] == [due]


def test_a_wakeup_that_arrives_up_to_a_second_early_by_our_clock_fires(world: World) -> None:
    """SQS's clock may run ahead of the function's: a wake-up within ``WAKE_TOLERANCE_MS`` of
    its deadline acts (neither sent on nor a no-op)."""
    table_id, connections = world.sit(3)
    due_ms, _ = _decision(world.load(table_id))
    world.clock.now = due_ms
    received = world.receive()
    world.sent.clear()
    world.clock.now = due_ms - 900  # our clock, behind the queue's
    assert world.deliver(received) == {"batchItemFailures": []}
    assert len(world.events(connections[0], "timed_out")) == 1
    assert all(parse_body(s["MessageBody"]).due_ms != due_ms for s in world.sent)


def test_a_failed_wakeup_is_sent_again_after_two_seconds_then_acts(world: World) -> None:
    table_id, connections = world.sit(3)
    due_ms, token = _decision(world.load(table_id))
    world.clock.now = due_ms
    received = world.receive()
    world.sent.clear()
    from naiko_service.usecases import timers

    with mock.patch.object(timers, "timer_fired", side_effect=RuntimeError("throttled")):
        assert world.deliver(received) == {"batchItemFailures": []}  # retried, not reported
    [retry] = world.sent
    assert retry["DelaySeconds"] == RETRY_DELAY_S
    assert parse_body(retry["MessageBody"]).attempt == 1
    assert parse_body(retry["MessageBody"]).token == token
    assert world.events(connections[0], "timed_out") == []
    assert world.receive() == []
    world.clock.advance(RETRY_DELAY_S * 1000)
    [again] = world.receive()
    assert world.deliver([again]) == {"batchItemFailures": []}
    assert len(world.events(connections[0], "timed_out")) == 1


def test_a_malformed_message_is_reported_then_dead_lettered_after_5_receives(
        world: World) -> None:
    """Not a wake-up: reported in batchItemFailures each time (never deleted); after
    ``maxReceiveCount`` receives SQS moves it to the dead-letter queue (moto implements the
    redrive on the receive after the last one)."""
    world.sqs.send_message(QueueUrl=world.queue_url, MessageBody="not a wake-up")
    for receive in range(1, 6):
        [message] = world.receive()
        assert message["Attributes"]["ApproximateReceiveCount"] == str(receive)
        assert world.deliver([message]) == {
            "batchItemFailures": [{"itemIdentifier": message["MessageId"]}]}
        assert world.receive() == []  # invisible for the visibility timeout (168 s)
        world.clock.advance(168_000 + 1)
    assert world.receive() == []  # the sixth receive moves it instead
    [dead] = world.receive(world.dead_url)
    assert dead["Body"] == "not a wake-up"


def test_a_wait_over_15_minutes_goes_to_the_standard_machine_not_the_queue(
        world: World) -> None:
    table_id, _ = world.sit(3)
    scheduler = bootstrap.get_service().deps.scheduler
    world.sent.clear()
    scheduler.schedule(table_id, "hold:1", START_MS + 900_001, TimerKind.HOLD)
    scheduler.schedule(table_id, "hold:2", START_MS + 900_000, TimerKind.HOLD)
    assert [parse_body(s["MessageBody"]).token for s in world.sent] == ["hold:2"]
    assert world.sent[0]["DelaySeconds"] == 900
    [execution] = world.standard_executions()
    assert (execution["token"], execution["due_ms"]) == ("hold:1", START_MS + 900_001)


def test_with_another_scheduler_an_early_message_is_scheduled_by_its_deadline(
        world: World) -> None:
    """Messages left on the queue after a switch to ``TimerTransport=express``: the timer
    function hands an early one to whatever schedules wake-ups, by its deadline and kind (a
    kind it does not know is reported, not lost silently)."""
    service = bootstrap.get_service()
    scheduled: list[tuple[str, str, int, TimerKind]] = []

    class Recorder:
        def schedule(self, table_id: str, token: str, due_ms: int, kind: TimerKind) -> None:
            assert isinstance(kind, TimerKind)
            scheduled.append((table_id, token, due_ms, kind))

    service.deps.scheduler = Recorder()
    due = START_MS + 60_000
    for kind in ("next_hand", "no_such_kind"):
        world.sqs.send_message(QueueUrl=world.queue_url, MessageBody=json.dumps(
            {"table_id": "t1", "token": f"{kind}:1", "kind": kind, "due_ms": due}))
    received = world.receive()
    unknown = next(m["MessageId"] for m in received if "no_such_kind" in m["Body"])
    assert world.deliver(received) == {"batchItemFailures": [{"itemIdentifier": unknown}]}
    assert scheduled == [("t1", "next_hand:1", due, TimerKind.NEXT_HAND)]


def test_the_same_wakeup_twice_in_one_batch_acts_once(world: World) -> None:
    """At-least-once delivery can put a wake-up and its duplicate in the same batch, whose
    records run on parallel threads: one acts, the other is a no-op, neither fails."""
    table_id, connections = world.sit(3)
    due_ms, token = _decision(world.load(table_id))
    world.clock.now = due_ms
    [original] = world.receive()
    world.sqs.send_message(QueueUrl=world.queue_url, MessageBody=original["Body"])
    [duplicate] = world.receive()
    before = world.load(table_id)
    assert world.deliver([original, duplicate]) == {"batchItemFailures": []}
    after = world.load(table_id)
    assert len(world.events(connections[0], "timed_out")) == 1
    assert after.state.hand is not None and before.state.hand is not None
    assert after.state.hand.actor != before.state.hand.actor
    assert token in after.recent_timers
