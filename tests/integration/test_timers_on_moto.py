"""The timer state machines of ``template.yaml``, executed by moto, driving the real handlers.

Both machines (``TimerExpressStateMachine``, ``TimerStandardStateMachine``) are created in moto
from the definitions in ``template.yaml`` and run with executions enabled
(``mock_aws(config={"stepfunctions": {"execute_state_machine": True}, ...})``). Two hooks in
moto make that usable in a test (see "Testing" in ``docs/timers.md``):

- **Waits are instant, in virtual time.** moto's Wait state
  (``moto.stepfunctions.parser...wait_function.WaitFunction._eval_body``) is patched: instead of
  sleeping, the execution parks on :class:`VirtualTime` with its due time (parsed from
  ``TimestampPath`` exactly as Step Functions reads it). The test releases parked executions
  one by one, earliest first, setting the service's clock to that due time, and waits until
  every running execution is parked again or finished. Timers therefore fire in deadline order,
  deterministically, and a 10-minute wait takes milliseconds.
- **The Lambda invocation reaches the real timer handler in-process.** The Task state
  (``arn:aws:states:::lambda:invoke``) calls Lambda through a boto3 client, which moto answers
  with ``LambdaSimpleBackend.invoke`` (``"lambda": {"use_docker": False}``); that method is
  patched to call ``functions/timer/app.py``'s ``lambda_handler`` with the Task's payload and
  return its result (or a function error), as Lambda would.

Every execution the service starts is named :func:`execution_name` ``(table_id, token)``; each
test checks that too.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import boto3
import pytest
from aws_testing import (
    EXECUTION_NAME,
    REGION,
    TEST_ROLE_ARN,
    capture_posts,
    create_tables_from_template,
    load_template,
    websocket_event,
)
from moto import mock_aws
from naiko.cards import seeded_random
from naiko.events import ActionTaken, Move
from naiko_local.stack import LambdaContext
from naiko_local.template import load_handler
from naiko_service import bootstrap
from naiko_service.aws import execution_name
from naiko_service.aws.dynamodb import DynamoTableStore
from naiko_service.records import Sealer, TableRecord
from service_testing import ACCEPTED


def Context() -> LambdaContext:  # noqa: N802 - reads like the handlers' context class
    """A Lambda context for the handlers (naiko_local.stack.LambdaContext)."""
    return LambdaContext("naiko-test")


ROOT = Path(__file__).resolve().parents[2]
ACCOUNT = "123456789012"
ENDPOINT = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/test"
TIMER_FUNCTION = "naiko-test-timer"
TIMER_FUNCTION_ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{TIMER_FUNCTION}"
START_MS = 1_800_000_000_000
"""Virtual time when each test starts (2027-01-15T08:00:00Z, a whole second)."""
MACHINES = {"TimerExpressStateMachine": "EXPRESS", "TimerStandardStateMachine": "STANDARD"}
SETTLE_TIMEOUT_S = 20.0


def machine_definition(logical_id: str, function_arn: str = TIMER_FUNCTION_ARN) -> str:
    """The ASL of a timer machine exactly as ``template.yaml`` writes it, with its
    ``DefinitionSubstitutions`` applied (the timer function's ARN)."""
    properties = load_template()["Resources"][logical_id]["Properties"]
    text = json.dumps(properties["Definition"])
    assert set(properties["DefinitionSubstitutions"]) == {"TimerFunctionArn"}
    text = text.replace("${TimerFunctionArn}", function_arn)
    assert "${" not in text
    return text


# -- virtual time --------------------------------------------------------------------------


class _Abandoned(Exception):
    """Raised in a parked execution when the test ends (or loses it on purpose)."""


@dataclass(eq=False)
class _Parked:
    due_ms: int
    seq: int
    token: str
    released: bool = False
    lose: bool = False


class VirtualTime:
    """The service's clock, and the Wait states parked until their time comes.

    :param running: Counts the executions moto still runs (parked or not).
    """

    def __init__(self, start_ms: int, running: Callable[[], int]):
        self.now = start_ms
        self._running = running
        self._cond = threading.Condition()
        self._parked: list[_Parked] = []
        self._seq = itertools.count()
        self.lost: set[str] = set()
        """Tokens whose next execution fails in its Wait state (a lost execution)."""
        self.abandoned = False

    def now_ms(self) -> int:
        return self.now

    def park(self, due_ms: int, token: str) -> None:
        """Called from an execution's thread: block until :meth:`step` releases it."""
        entry = _Parked(due_ms, next(self._seq), token)
        with self._cond:
            if token in self.lost:
                self.lost.discard(token)
                entry.lose = True
            self._parked.append(entry)
            self._cond.notify_all()
            self._cond.wait_for(lambda: entry.released)
        if entry.lose or self.abandoned:
            raise _Abandoned(f"execution for {token} lost")

    def lose(self, token: str) -> None:
        """The execution parked (or the next to park) with *token* fails in its Wait state,
        before invoking anything: a lost timer execution."""
        with self._cond:
            parked = [p for p in self._parked if p.token == token]
            for entry in parked:
                entry.lose = True
            if not parked:
                self.lost.add(token)

    def parked(self) -> list[tuple[int, str]]:
        with self._cond:
            return sorted((p.due_ms, p.token) for p in self._parked)

    def settle(self) -> None:
        """Wait until every running execution is parked in its Wait state (or finished)."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while True:
            with self._cond:
                parked = len(self._parked)
            if self._running() == parked:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"executions did not settle: {self._running()} running, "
                                     f"{parked} parked")
            time.sleep(0.002)

    def step(self) -> int | None:
        """Release the earliest parked execution (virtual time jumps to its due time) and let
        it run to its end. Returns that time, or ``None`` if nothing is parked."""
        self.settle()
        with self._cond:
            if not self._parked:
                return None
            entry = min(self._parked, key=lambda p: (p.due_ms, p.seq))
            self._parked.remove(entry)
            self.now = max(self.now, entry.due_ms)
            entry.released = True
            self._cond.notify_all()
        self.settle()
        return entry.due_ms

    def run(self, until_ms: int, max_steps: int = 500) -> int:
        """Fire, in order, every execution due by *until_ms*; then the clock reads *until_ms*.
        Returns how many were released."""
        released = 0
        for _ in range(max_steps):
            self.settle()
            parked = self.parked()
            if not parked or parked[0][0] > until_ms:
                self.now = max(self.now, until_ms)
                return released
            self.step()
            released += 1
        raise AssertionError("too many timer executions")

    def abandon(self) -> None:
        with self._cond:
            self.abandoned = True
            for entry in self._parked:
                entry.released = True
            self._parked.clear()
            self._cond.notify_all()


# -- the world: moto, the handlers, both machines -------------------------------------------


@dataclass
class World:
    time: VirtualTime
    handlers: dict[str, ModuleType]
    posts: Any
    names: dict[str, str]
    sfn: Any
    arns: dict[str, str]
    invocations: list[dict[str, Any]] = field(default_factory=list)
    players: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    # -- connections and frames, as API Gateway calls the handlers --

    def _event(self, connection_id: str, route: str, event_type: str,
               body: str | None = None) -> dict[str, Any]:
        self.counter += 1
        return websocket_event(connection_id, self.players[connection_id], route, event_type,
                               body, request_id=f"r{self.counter}", stage="test",
                               connected_at=START_MS)

    def connect(self, player: str, connection_id: str | None = None) -> str:
        connection_id = connection_id or f"c-{player}"
        self.players[connection_id] = player
        assert self.handlers["connect"].lambda_handler(
            self._event(connection_id, "$connect", "CONNECT"), Context()) == {"statusCode": 200}
        return connection_id

    def disconnect(self, connection_id: str) -> None:
        assert self.handlers["disconnect"].lambda_handler(
            self._event(connection_id, "$disconnect", "DISCONNECT"), Context()) \
            == {"statusCode": 200}
        self.time.settle()

    def send(self, connection_id: str, **frame: Any) -> dict[str, Any]:
        frame.setdefault("request_id", f"q{self.counter}")
        before = len(self.messages(connection_id))
        event = self._event(connection_id, str(frame["action"]), "MESSAGE", json.dumps(frame))
        assert self.handlers["game"].lambda_handler(event, Context()) == {"statusCode": 200}
        self.time.settle()  # executions started by this frame reach their Wait state
        new = self.messages(connection_id)[before:]
        return next(m for m in new if m["type"] in ("ack", "error", "snapshot", "tables",
                                                    "tournaments", "tournament",
                                                    "tournament_players",
                                                    "tournament_results")
                    or (m["type"] == "update" and m.get("request_id") == frame["request_id"]))

    def sweep(self) -> dict[str, int]:
        result: dict[str, int] = self.handlers["sweep"].lambda_handler({}, Context())
        self.time.settle()
        return result

    def messages(self, connection_id: str) -> list[dict[str, Any]]:
        return list(self.posts.messages.get(connection_id, []))

    def view(self, connection_id: str) -> dict[str, Any]:
        return next(m["view"] for m in reversed(self.messages(connection_id)) if "view" in m)

    def events(self, connection_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        return [e for m in self.messages(connection_id) if m["type"] == "update"
                for e in m["events"] if kind is None or e["kind"] == kind]

    def connection_of(self, record: TableRecord, seat: int) -> str:
        seat_ = record.state.seats[seat]
        assert seat_ is not None
        return next(c for c, p in self.players.items() if p == seat_.player_id)

    # -- the tables --

    @property
    def store(self) -> DynamoTableStore:
        return DynamoTableStore(boto3.client("dynamodb", region_name=REGION),
                                self.names["TablesTable"], self.names["AccountsTable"],
                                Sealer(bytes(range(32))))

    def load(self, table_id: str) -> TableRecord:
        return self.store.load(table_id)

    def balance(self, player: str) -> int:
        item = boto3.client("dynamodb", region_name=REGION).get_item(
            TableName=self.names["AccountsTable"], Key={"player_id": {"S": player}}).get("Item")
        return int(item["balance"]["N"]) if item else 0

    def sit(self, variant: str = "NLHE", count: int = 3,
            **settings: Any) -> tuple[str, list[str]]:
        """*count* players at a new table (the last join deals the first hand); *settings*:
        more ``create_table`` fields."""
        client = boto3.client("dynamodb", region_name=REGION)
        connections = []
        for i in range(count):
            client.update_item(TableName=self.names["AccountsTable"],
                               Key={"player_id": {"S": f"player{i}"}},
                               UpdateExpression="ADD balance :c",
                               ExpressionAttributeValues={":c": {"N": "10000"}})
            connections.append(self.connect(f"player{i}"))
        ack = self.send(connections[0], action="create_table", name="timers", variant=variant,
                        small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400,
                        **settings)
        table_id = str(ack["table_id"])
        for connection in connections:
            assert self.send(connection, action="join_table", table_id=table_id,
                             buy_in=200)["type"] in ("ack", "update")
        return table_id, connections

    # -- the machines --

    def executions(self) -> list[dict[str, Any]]:
        """Every execution of both machines: name, status, type, parsed input and output."""
        found = []
        for logical_id, arn in self.arns.items():
            for listed in self.sfn.list_executions(stateMachineArn=arn)["executions"]:
                described = self.sfn.describe_execution(executionArn=listed["executionArn"])
                found.append({"name": described["name"], "status": described["status"],
                              "type": MACHINES[logical_id],
                              "input": json.loads(described["input"]),
                              "output": json.loads(described.get("output") or "null")})
        return sorted(found, key=lambda e: (e["input"]["due_ms"], e["name"]))


def assert_named(executions: list[dict[str, Any]]) -> None:
    """Every execution is named from its table and token (nothing anonymous)."""
    assert executions
    for execution in executions:
        expected = execution_name(execution["input"]["table_id"], execution["input"]["token"])
        assert execution["name"] == expected and EXECUTION_NAME.match(expected), execution


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    from moto.awslambda.models import LambdaBackend
    from moto.awslambda_simple.models import LambdaSimpleBackend
    from moto.stepfunctions.parser.api import ExecutionStatus
    from moto.stepfunctions.parser.asl.component.common.error_name.failure_event import (
        FailureEventException,
    )
    from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
    from moto.stepfunctions.parser.asl.component.state.wait.wait_function.timestamp import (
        Timestamp,
    )
    from moto.stepfunctions.parser.asl.component.state.wait.wait_function.wait_function import (
        WaitFunction,
    )
    from moto.stepfunctions.parser.models import stepfunctions_parser_backends

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_ENDPOINT_URL", "STATE_KEY_SECRET_ARN", "DEFAULT_DECISION_SECONDS",
                 "DEFAULT_PAUSE_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Naiko")

    def running() -> int:
        backend = stepfunctions_parser_backends[ACCOUNT][REGION]
        return sum(1 for machine in backend.state_machines for e in machine.executions
                   if e.exec_status == ExecutionStatus.RUNNING)

    clock = VirtualTime(START_MS, running)
    handlers: dict[str, ModuleType] = {}
    invocations: list[dict[str, Any]] = []

    def wait(self: Any, env: Any) -> None:
        """A Wait state that parks in virtual time instead of sleeping."""
        if isinstance(self, Timestamp):  # Timestamp and TimestampPath
            self.string.eval(env=env)
            text = env.stack.pop()
            when = self._from_timestamp_string(text)
            if when is None:
                raise FailureEventException(self._create_failure_event(env, text))
            due_ms = int(when.replace(tzinfo=UTC).timestamp() * 1000)
        else:
            due_ms = clock.now + 1000 * self._get_wait_seconds(env=env)
        state_input = env.states.get_input()
        clock.park(due_ms, str(state_input.get("token", "")))

    def invoke(self: Any, function_name: str, qualifier: str | None, body: Any, headers: Any,
               response_headers: Any) -> bytes:
        """Lambda's Invoke, answered by the real timer handler in-process."""
        assert function_name == TIMER_FUNCTION_ARN, function_name
        event = json.loads(body)
        invocations.append(event)
        try:
            result = handlers["timer"].lambda_handler(event, Context())
        except Exception as exc:  # reported to the Task as a function error, like Lambda
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": type(exc).__name__,
                               "errorMessage": str(exc)}).encode()
        return json.dumps(result).encode()

    config: Any = {"stepfunctions": {"execute_state_machine": True},
                   "lambda": {"use_docker": False}}
    with mock_aws(config=config), capture_posts() as posts, \
            mock.patch.object(WaitFunction, "_eval_body", wait), \
            mock.patch.object(LambdaSimpleBackend, "invoke", invoke), \
            mock.patch.object(LambdaBackend, "invoke", invoke), \
            mock.patch.object(retrier_decl, "time", mock.Mock(sleep=lambda seconds: None)):
        names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION))
        monkeypatch.setenv("TABLES_TABLE", names["TablesTable"])
        monkeypatch.setenv("ACCOUNTS_TABLE", names["AccountsTable"])
        monkeypatch.setenv("LEDGER_TABLE", names["LedgerTable"])
        monkeypatch.setenv("CONNECTIONS_TABLE", names["ConnectionsTable"])
        monkeypatch.setenv("TOURNAMENTS_TABLE", names["TournamentsTable"])
        monkeypatch.setenv("STATE_KEY", base64.b64encode(bytes(range(32))).decode())
        monkeypatch.setenv("WEBSOCKET_ENDPOINT", ENDPOINT)
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arns = {}
        for logical_id, kind in MACHINES.items():
            arns[logical_id] = sfn.create_state_machine(
                name=f"naiko-test-{kind.lower()}", definition=machine_definition(logical_id),
                roleArn=TEST_ROLE_ARN, type=kind)["stateMachineArn"]
        monkeypatch.setenv("TIMER_STATE_MACHINE_ARN", arns["TimerExpressStateMachine"])
        monkeypatch.setenv("TIMER_LONG_STATE_MACHINE_ARN", arns["TimerStandardStateMachine"])
        bootstrap.reset()
        handlers.update({n: load_handler(n)
                         for n in ("connect", "disconnect", "game", "timer", "sweep")})
        service = bootstrap.get_service()
        service.deps.clock = clock
        service.deps.rng = seeded_random(7)
        service.deps.scheduler.now_ms = clock.now_ms  # type: ignore[attr-defined]
        try:
            yield World(clock, handlers, posts, names, sfn, arns, invocations)
        finally:
            clock.abandon()
            bootstrap.reset()


# -- the scenarios --------------------------------------------------------------------------


def _actor(world: World, table_id: str) -> tuple[TableRecord, int, str]:
    record = world.load(table_id)
    hand = record.state.hand
    assert hand is not None and not hand.complete and hand.actor is not None
    return record, hand.actor, world.connection_of(record, hand.actor)


def _decision(record: TableRecord) -> int:
    return next(t.due_ms for t in record.timers if t.kind in ("decision", "grace"))


def test_a_whole_hand_in_which_players_time_out_then_the_next_hand_deals_itself(
        world: World) -> None:
    """R8.1: on expiry the clock checks when it can, else folds; the decision is announced
    like any other action, the prompt carries the deadline, and after the pause the next hand
    starts by itself. Every wake-up that fired acted (no wasted execution)."""
    table_id, connections = world.sit("NLHE", 3)
    watcher = connections[0]
    # Preflop: the button and the small blind call at once; everything after that times out.
    for _ in range(2):
        _, _, connection = _actor(world, table_id)
        assert world.send(connection, action="act", table_id=table_id, move="call")["type"] \
            in ("ack", "update")
    timeouts = 0
    while not world.load(table_id).state.hand.complete:  # type: ignore[union-attr]
        record, seat, connection = _actor(world, table_id)
        deadline = _decision(record)
        prompt = world.view(connection)["prompt"]
        assert prompt["seat_index"] == seat and prompt["deadline_ms"] == deadline
        assert "check" in prompt["actions"]
        assert world.time.step() == deadline  # the armed wake-up fires at the deadline
        timeouts += 1
        announced = world.events(watcher, "timed_out")[-1]
        assert announced == {"kind": "timed_out", "seat_index": seat, "decision": "check"}
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.complete
    assert timeouts == 10  # the big blind preflop, then 3 x 3 on flop, turn and river
    ended = world.time.now
    assert world.time.step() == ended + 3_000  # the pause between hands
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.number == 2
    assert not record.state.hand.complete
    executions = world.executions()
    assert_named(executions)
    finished = [e for e in executions if e["status"] != "RUNNING"]
    assert all(e["status"] == "SUCCEEDED" for e in finished)
    assert all(e["type"] == "EXPRESS" for e in executions)
    assert [e["input"]["kind"] for e in executions if e["status"] == "RUNNING"] == ["decision"]
    assert all(e["output"]["result"] == {"acted": True} for e in finished)
    assert len(finished) == timeouts + 1  # one wake-up per time-out, one for the pause
    assert [e["input"]["kind"] for e in executions].count("next_hand") == 1


def test_r8_7_the_time_bank_runs_on_its_own_wake_up_when_the_clock_runs_out(
        world: World) -> None:
    """R8.7 on the AWS adapter: at a table with the room's time bank, the decision clock's
    wake-up starts the bank (announced to the table), which arms a ``time_bank`` execution,
    named from its token, for the bank's end; when it fires the clock decides (R8.1). The next
    player acts 2.5 s into their bank: 3 seconds are charged and the bank's armed wake-up, when
    it fires, finds its token gone and does nothing."""
    table_id, connections = world.sit("NLHE", 3, time_bank=True)
    record, seat, connection = _actor(world, table_id)
    player = world.players[connection]
    watcher = next(c for c in connections if c != connection)
    deadline = _decision(record)
    assert world.time.step() == deadline
    assert world.events(watcher, "time_bank_started")[-1] == {
        "kind": "time_bank_started", "seat_index": seat, "bank_ms": 30_000,
        "until_ms": deadline + 30_000}
    assert not world.events(watcher, "timed_out")
    armed = world.executions()[-1]
    assert armed["input"]["kind"] == "time_bank" and armed["input"]["due_ms"] == deadline + 30_000
    assert armed["input"]["token"].startswith("time_bank:")
    assert world.view(watcher)["hand"]["actor_deadline_ms"] == deadline + 30_000
    assert world.time.step() == deadline + 30_000
    assert world.events(watcher, "timed_out")[-1]["seat_index"] == seat
    assert world.load(table_id).banks[player][0] == 0
    assert world.view(watcher)["seats"][seat]["time_bank_ms"] == 0  # shown to the table
    record, seat, connection = _actor(world, table_id)
    player = world.players[connection]
    deadline = _decision(record)
    assert world.time.step() == deadline  # the next player's clock: their bank starts
    token = world.executions()[-1]["input"]["token"]
    assert token.startswith("time_bank:")
    world.time.now = deadline + 2_500
    assert world.send(connection, action="act", table_id=table_id, move="fold")["type"] \
        in ACCEPTED
    assert world.load(table_id).banks[player][0] == 27_000
    world.time.run(deadline + 30_000)  # the bank's armed wake-up: its token is gone
    fired = next(e for e in world.executions() if e["input"]["token"] == token)
    assert fired["status"] == "SUCCEEDED" and fired["output"]["result"] == {"acted": False}
    assert world.load(table_id).banks[player][0] == 27_000
    assert_named(world.executions())


def test_the_shield_window_expires_and_the_anchor_applies(world: World) -> None:
    """R6.5 on a NAIKO table: an 8-second window opens on a Short Anchor; play does not wait
    for it; nobody answers, the window's wake-up fires at its deadline, the Anchor applies."""
    table_id, connections = world.sit("NAIKO", 3)
    while world.load(table_id).state.hand.number == 1:  # type: ignore[union-attr]
        world.time.step()  # hand 1 times out; hand 2 deals everyone a second destello
    record, seat, connection = _actor(world, table_id)
    hand = record.state.hand
    assert hand is not None and hand.powers is not None
    assert "seal_shield" in hand.powers.carousel, "pick another seed: no Shield this hand"
    prompt = world.view(connection)["prompt"]
    assert "short_anchor" in prompt["powers"]
    target = prompt["anchor_targets"][-1]
    anchored_at = world.time.now
    assert world.send(connection, action="use_power", table_id=table_id, power="short_anchor",
                      target_seat=target)["type"] in ("ack", "update")
    opened = world.events(connection, "window_opened")[-1]
    assert opened["deadline_ms"] == anchored_at + 8_000
    assert world.send(connection, action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    # The window's deadline is now the table's earliest: its wake-up is armed (EXPRESS).
    window = next(e for e in world.executions() if e["input"]["kind"] == "window")
    assert window["input"]["due_ms"] == opened["deadline_ms"] and window["type"] == "EXPRESS"
    assert world.time.step() == opened["deadline_ms"]
    closed = world.events(connection, "window_closed")[-1]
    assert closed["reason"] == "timed_out" and closed["target"] == target
    assert world.events(connection, "anchor_applied")[-1] == {
        "kind": "anchor_applied", "target": target, "attacker": seat}
    record = world.load(table_id)
    assert record.state.hand is not None and not record.state.hand.complete
    assert record.state.hand.powers is not None
    assert record.state.hand.powers.anchors[target] == "applied"
    assert_named(world.executions())


def test_a_disconnected_player_gets_20_more_seconds_then_sits_out_after_the_hand(
        world: World) -> None:
    """R8.2: the normal clock, then 20 seconds of grace (its own wake-up), then the automatic
    decision; the player sits out when the hand ends, and the table plays on."""
    table_id, connections = world.sit("NLHE", 3)
    record, seat, connection = _actor(world, table_id)
    player = world.players[connection]
    watcher = next(c for c in connections if c != connection)
    deadline = _decision(record)
    world.disconnect(connection)
    assert world.time.step() == deadline
    grace = world.events(watcher, "reconnect_grace")[-1]
    assert grace == {"kind": "reconnect_grace", "seat_index": seat, "until_ms": deadline + 20_000}
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.actor == seat  # still to act
    armed = world.executions()[-1]
    assert armed["input"]["kind"] == "grace" and armed["input"]["due_ms"] == deadline + 20_000
    assert world.time.step() == deadline + 20_000
    assert world.events(watcher, "timed_out")[-1] == {
        "kind": "timed_out", "seat_index": seat, "decision": "fold"}
    assert player in world.load(table_id).sit_out_after_hand
    while not world.load(table_id).state.hand.complete:  # type: ignore[union-attr]
        _, _, other = _actor(world, table_id)
        move = "check" if "check" in world.view(other)["prompt"]["actions"] else "call"
        assert world.send(other, action="act", table_id=table_id, move=move)["type"] in ACCEPTED
    record = world.load(table_id)
    sat = record.state.seats[seat]
    assert sat is not None and sat.sitting_out and player not in record.sit_out_after_hand
    assert player in record.sitting_out_since  # the 10-minute limit (R7.7) runs
    world.time.run(world.time.now + 3_000)  # the pause: two players keep playing
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.number == 2
    assert not record.state.hand.dealt[seat]
    assert_named(world.executions())


def test_a_stale_timer_and_a_duplicated_timer_do_nothing(world: World) -> None:
    """Tokens, not cancellations: an execution whose turn is over, or delivered twice, fires
    as a no-op (no write, no message); the armed wake-up whose turn ended early only re-arms."""
    table_id, connections = world.sit("NLHE", 3)
    record, _, connection = _actor(world, table_id)
    first = next(t for t in record.timers if t.kind == "decision")
    world.time.run(world.time.now + 5_000)
    assert world.send(connection, action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    # Express delivers at least once: the same wake-up a second time (same input, new run).
    [armed] = world.executions()
    world.sfn.start_execution(stateMachineArn=world.arns["TimerExpressStateMachine"],
                              name=armed["name"][:70] + "-again",
                              input=json.dumps(armed["input"]))
    world.time.settle()
    before = world.load(table_id)
    log = list(before.state.hand.log)  # type: ignore[union-attr]
    world.time.run(first.due_ms)  # both fire at the first turn's deadline
    after = world.load(table_id)
    assert after.state.hand.log == log  # type: ignore[union-attr]  # the game did not move
    assert not any(world.events(c, "timed_out") for c in connections)
    assert after.version == before.version + 1  # one re-arm write; the duplicate wrote nothing
    fired = [e for e in world.executions() if e["status"] == "SUCCEEDED"]
    assert sorted(e["output"]["result"]["acted"] for e in fired) == [False, False]
    # The re-armed wake-up is for the turn of the moment, not a reset clock.
    _, _, current = _actor(world, table_id)
    assert world.view(current)["prompt"]["deadline_ms"] == first.due_ms + 5_000
    # A stale token (that turn is long over) through the real machine: a no-op.
    messages = sum(len(world.messages(c)) for c in connections)
    world.sfn.start_execution(
        stateMachineArn=world.arns["TimerExpressStateMachine"], name="stale-decision",
        input=json.dumps({**armed["input"], "due": "2027-01-15T08:00:01Z"}))
    world.time.settle()
    world.time.step()
    assert world.load(table_id).version == after.version
    assert sum(len(world.messages(c)) for c in connections) == messages
    stale = next(e for e in world.executions() if e["name"] == "stale-decision")
    assert stale["status"] == "SUCCEEDED" and stale["output"]["result"] == {"acted": False}


def test_a_lost_timer_is_recovered_by_the_sweep_within_a_minute(world: World) -> None:
    """An execution that dies before calling the function leaves the table waiting; the sweep
    (every minute, a due-index query) fires the overdue timer and re-arms the table."""
    table_id, connections = world.sit("NLHE", 3)
    record, seat, _ = _actor(world, table_id)
    deadline = _decision(record)
    [armed] = world.executions()
    world.time.lose(armed["input"]["token"])
    assert world.time.step() == deadline  # it fails in its Wait state: nothing is invoked
    assert world.invocations == []
    assert [e["status"] for e in world.executions()] == ["FAILED"]
    assert world.load(table_id).state.hand.actor == seat  # type: ignore[union-attr]
    # EventBridge runs the sweep every minute: the first run after the deadline recovers it.
    minute = START_MS + 60_000
    while minute <= deadline:
        minute += 60_000
    world.time.run(minute)
    assert world.sweep() == {"fired": 1}
    assert minute - deadline <= 60_000
    assert world.events(connections[0], "timed_out")[-1]["seat_index"] == seat
    # The table is armed again: the next time-out fires on time, without the sweep.
    record, next_seat, _ = _actor(world, table_id)
    assert world.time.step() == _decision(record)
    assert world.events(connections[0], "timed_out")[-1]["seat_index"] == next_seat
    assert world.sweep() == {"fired": 0}
    assert_named(world.executions())


def test_disconnect_mid_decision_and_reconnect_before_the_deadline(world: World) -> None:
    """R8.2/R8.3: the clock is not reset by the disconnection nor by the reconnection; the
    player acts in time, the snapshot is the server's confirmed state, no timer decides."""
    table_id, connections = world.sit("NLHE", 3)
    record, seat, connection = _actor(world, table_id)
    player = world.players[connection]
    deadline = _decision(record)
    world.time.run(START_MS + 5_000)
    world.disconnect(connection)
    assert world.load(table_id).disconnected == {player: START_MS + 5_000}
    world.time.run(START_MS + 12_000)
    back = world.connect(player, f"c-{player}-again")
    snapshot = world.send(back, action="snapshot", table_id=table_id)
    record = world.load(table_id)
    assert snapshot["type"] == "snapshot" and snapshot["version"] == record.seq
    assert player not in record.disconnected
    service = bootstrap.get_service()
    assert snapshot["view"] == service.view(record, seat, proofs=True)  # the server's, exactly
    assert snapshot["view"]["prompt"]["deadline_ms"] == deadline  # not reset
    assert _decision(record) == deadline
    assert world.send(back, action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    world.time.run(deadline)  # the wake-up armed for that turn fires: nothing is due
    assert not any(world.events(c, "timed_out") for c in [*connections, back])
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.actor != seat
    actions = [e for e in record.state.hand.log if isinstance(e, ActionTaken)]
    assert actions[-1] == ActionTaken(seat_index=seat, action=Move.CALL, amount=2, to=2,
                                      all_in=False)
    last = [m for m in world.messages(back) if m["type"] == "update"][-1]
    # the new connection follows the table (the idle wake-up at the deadline re-armed in a
    # write nobody is told of: the players' version, seq, did not move)
    assert last["version"] == record.seq
    assert_named(world.executions())


def test_sitting_out_ten_minutes_removes_the_player_via_the_standard_machine(
        world: World) -> None:
    """R7.7, and the cost rule: a wake-up more than 45 s away runs on STANDARD. Two players sit
    out between hands; nothing else is pending; ten minutes later both are removed and their
    stacks are back on their accounts."""
    table_id, connections = world.sit("NLHE", 3)
    while not world.load(table_id).state.hand.complete:  # type: ignore[union-attr]
        world.time.step()
    for connection in connections[1:]:
        assert world.send(connection, action="sit_out", table_id=table_id)["type"] in ACCEPTED
    sat_out_at = world.time.now
    world.time.step()  # the pause ends: one active player, no hand
    record = world.load(table_id)
    assert record.state.hand is not None and record.state.hand.complete
    long_wait = world.executions()[-1]
    assert long_wait["type"] == "STANDARD" and long_wait["input"]["kind"] == "sit_out_limit"
    assert long_wait["input"]["due_ms"] == sat_out_at + 600_000
    stacks = {world.players[c]: record.state.seats[record.seat_of(world.players[c])].stack  # type: ignore[index, union-attr]
              for c in connections[1:]}
    balances = {player: world.balance(player) for player in stacks}
    assert world.time.step() == sat_out_at + 600_000
    record = world.load(table_id)
    for player, stack in stacks.items():
        assert record.seat_of(player) is None
        assert world.balance(player) == balances[player] + stack
    assert {e["kind"] for e in world.events(connections[0], "left_table")} == {"left_table"}
    assert_named(world.executions())
