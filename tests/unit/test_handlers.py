"""The Lambda handlers (functions/*/app.py) driven with the sample events of events/, on the
in-memory adapters injected through naiko_service.bootstrap; and the bootstrap's own wiring
(environment, state key, the AWS adapters on moto, what a handler imports cold; the cold-start
time itself is measured by scripts/bench_cold_start.py, not here)."""

from __future__ import annotations

import base64
import copy
import importlib.util
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from naiko.cards import seeded_random
from naiko.engine import legal_actions
from naiko_service import bootstrap
from naiko_service.memory import (
    ManualClock,
    MemoryAccounts,
    MemoryConnections,
    MemoryTableStore,
    RecordingGateway,
    RecordingScheduler,
)
from naiko_service.protocol import MAX_FRAME_BYTES, ROUTES, parse_request
from naiko_service.usecases import Deps, TableService

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
EVENTS = ROOT / "events"
HANDLER_NAMES = ("connect", "disconnect", "game", "timer", "sweep")

PROTOCOL_CODES = {"malformed_json", "unknown_action", "invalid_request", "frame_too_large"}
"""Error codes that mean the frame never reached a use case."""

NOT_ACCEPTED = PROTOCOL_CODES | {"internal_error", "not_connected"}


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return event


def event_names() -> list[str]:
    """Every sample event of this suite (``connect_authorizer`` belongs to the authorizer)."""
    return sorted(p.stem for p in EVENTS.glob("*.json") if p.stem != "connect_authorizer")


def handler_of(event_name: str) -> str:
    return event_name if event_name in ("connect", "disconnect", "timer", "sweep") else "game"


CONNECT = load_event("connect")
CONNECTION_ID: str = CONNECT["requestContext"]["connectionId"]
PLAYER: str = CONNECT["requestContext"]["authorizer"]["player_id"]
TABLE_ID: str = json.loads(load_event("join_table")["body"])["table_id"]


def load_handler(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"naiko_{name}_app",
                                                  FUNCTIONS / name / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class FakeLambdaContext:
    function_name: str = "naiko-dev-game"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-dev-game"
    aws_request_id: str = "6f1c2d3e-0000-4000-8000-000000000002"


@dataclass
class Stack:
    """A service on in-memory adapters, installed with ``bootstrap.set_service``."""

    service: TableService
    store: MemoryTableStore
    accounts: MemoryAccounts
    connections: MemoryConnections
    gateway: RecordingGateway
    scheduler: RecordingScheduler
    clock: ManualClock
    handlers: dict[str, ModuleType]

    def invoke(self, handler: str, event: dict[str, Any]) -> Any:
        return self.handlers[handler].lambda_handler(event, FakeLambdaContext())

    def send(self, event_name: str) -> Any:
        """Invoke the sample event's handler with the sample event."""
        return self.invoke(handler_of(event_name), load_event(event_name))

    def frames(self, connection_id: str = CONNECTION_ID) -> list[dict[str, Any]]:
        return self.gateway.sent[connection_id]

    def reply_after(self, before: int, connection_id: str = CONNECTION_ID) -> dict[str, Any]:
        """The answer to the last frame: its first ack, error, tables, snapshot, account,
        table_found, tournaments or tournament message."""
        new = self.frames(connection_id)[before:]
        replies = [m for m in new if m["type"] in ("ack", "error", "tables", "snapshot",
                                                   "account", "table_found", "tournaments",
                                                   "tournament", "tournament_players",
                                                   "tournament_results", "standings",
                                                   "heartbeat")
                   or (m["type"] in ("update", "chat") and m.get("request_id") is not None)]
        assert replies, f"no reply among {new}"
        return replies[0]

    def join(self, player_id: str, buy_in: int = 100) -> str:
        """Another player, connected and seated through the service itself."""
        connection_id = f"conn-{player_id}"
        self.accounts.grant(player_id, 10_000)
        self.service.connect(connection_id, player_id)
        self.service.handle(connection_id, player_id, parse_request(json.dumps(
            {"action": "join_table", "request_id": f"join-{player_id}", "table_id": TABLE_ID,
             "buy_in": buy_in})))
        first = self.frames(connection_id)[0]
        assert first["type"] in ("ack", "update") and first.get("request_id") == \
            f"join-{player_id}", first
        return connection_id


@pytest.fixture(scope="module")
def handlers() -> dict[str, ModuleType]:
    return {name: load_handler(name) for name in HANDLER_NAMES}


@pytest.fixture
def logs(handlers: dict[str, ModuleType]) -> Iterator[io.StringIO]:
    """The handlers' structured log lines (they share one Powertools logger)."""
    stream = io.StringIO()
    handler = handlers["game"].logger.registered_handler
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


@pytest.fixture
def stack(handlers: dict[str, ModuleType]) -> Iterator[Stack]:
    accounts = MemoryAccounts()
    store = MemoryTableStore(accounts=accounts)
    connections = MemoryConnections()
    gateway = RecordingGateway()
    scheduler = RecordingScheduler()
    clock = ManualClock(CONNECT["requestContext"]["connectedAt"])
    service = TableService(Deps(tables=store, accounts=accounts, connections=connections,
                                gateway=gateway, scheduler=scheduler, clock=clock,
                                rng=seeded_random(7), count=bootstrap.count,
                                secret_bytes=random.Random("secrets").randbytes))
    accounts.grant(PLAYER, 10_000)
    bootstrap.metrics.clear_metrics()
    bootstrap.set_service(service)
    yield Stack(service, store, accounts, connections, gateway, scheduler, clock, handlers)
    bootstrap.reset()


@pytest.fixture
def table(stack: Stack) -> Stack:
    """The sample player connected (connect.json), the sample table created
    (create_table.json) and joined (join_table.json); two more players seated, so hand 1 runs."""
    assert stack.send("connect") == {"statusCode": 200}
    assert stack.send("create_table") == {"statusCode": 200}
    assert stack.send("join_table") == {"statusCode": 200}
    stack.join("bob")
    stack.join("carol")
    assert stack.store.load(TABLE_ID).state.hand is not None
    return stack


def assert_accepted(stack: Stack, before: int, event_name: str) -> dict[str, Any]:
    """The frame reached its use case: the reply is an ack/tables/snapshot, or a refusal of
    the service or the engine (never a protocol error, internal_error or not_connected)."""
    reply = stack.reply_after(before)
    if reply["type"] == "error":
        assert reply["code"] not in NOT_ACCEPTED, (event_name, reply)
    if "request_id" in reply and event_name != "default":
        assert reply["request_id"] == json.loads(load_event(event_name)["body"])["request_id"]
    return reply


# -- the sample events -----------------------------------------------------------------------

def test_there_is_a_sample_event_for_every_route_the_timer_and_the_sweep() -> None:
    expected = {"connect", "disconnect", "default", "timer", "sweep", *ROUTES}
    assert set(event_names()) == expected


@pytest.mark.parametrize("name", ["default", *ROUTES])
def test_message_events_name_their_route_and_carry_a_valid_frame(name: str) -> None:
    event = load_event(name)
    context = event["requestContext"]
    assert context["eventType"] == "MESSAGE"
    assert context["routeKey"] == ("$default" if name == "default" else name)
    body = json.loads(event["body"])
    if name == "default":
        assert body["action"] not in ROUTES  # how a frame reaches $default
    else:
        assert body["action"] == name
        assert parse_request(event["body"]).action == name


def test_websocket_events_have_the_api_gateway_shapes() -> None:
    from aws_lambda_powertools.utilities.parser.models import (
        APIGatewayWebSocketConnectEventModel,
        APIGatewayWebSocketDisconnectEventModel,
        APIGatewayWebSocketMessageEventModel,
    )

    APIGatewayWebSocketConnectEventModel.model_validate(load_event("connect"))
    APIGatewayWebSocketDisconnectEventModel.model_validate(load_event("disconnect"))
    contexts = []
    for name in ["connect", "disconnect", "default", *ROUTES]:
        if name not in ("connect", "disconnect"):
            APIGatewayWebSocketMessageEventModel.model_validate(load_event(name))
        contexts.append(load_event(name)["requestContext"])
    # One connection of one API stage, as a sam local session would see it.
    for key in ("apiId", "stage", "domainName", "connectionId", "connectedAt"):
        assert len({c[key] for c in contexts}) == 1, key
    assert len({c["requestId"] for c in contexts}) == len(contexts)
    authorizer_event = load_event("connect_authorizer")["requestContext"]
    assert authorizer_event["connectionId"] == CONNECTION_ID


def test_a_table_s_life_through_the_sample_events(stack: Stack) -> None:
    assert stack.send("connect") == {"statusCode": 200}
    assert stack.connections.player_of(CONNECTION_ID) == PLAYER

    before = len(stack.frames())
    stack.send("create_table")
    ack = assert_accepted(stack, before, "create_table")
    assert ack["type"] == "ack" and ack["table_id"] == TABLE_ID  # the other events' table

    before = len(stack.frames())
    stack.send("list_tables")
    listing = assert_accepted(stack, before, "list_tables")
    assert [t["table_id"] for t in listing["tables"]] == [TABLE_ID]

    # joining subscribes the connection: its update, carrying the request id, is the answer
    for name, kind in (("join_table", "update"), ("snapshot", "snapshot")):
        before = len(stack.frames())
        stack.send(name)
        assert assert_accepted(stack, before, name)["type"] == kind
    # R8.9: the watching connection chats (before the hand: nothing is kept), mutes, unmutes
    for name, kind in (("chat", "chat"), ("emote", "chat"), ("chat_mute", "ack"),
                       ("chat_unmute", "ack")):
        before = len(stack.frames())
        stack.send(name)
        assert assert_accepted(stack, before, name)["type"] == kind
    stack.join("bob")
    stack.join("carol")

    # Play until it is the sample player's turn facing a bet, so that act.json's "call" is
    # legal whoever has the button.
    for _ in range(10):
        state = stack.store.load(TABLE_ID).state
        prompt = legal_actions(state)
        assert prompt is not None
        seat = state.seats[prompt.seat_index]
        assert seat is not None
        if seat.player_id == PLAYER:
            break
        stack.service.handle(f"conn-{seat.player_id}", seat.player_id, parse_request(json.dumps(
            {"action": "act", "request_id": f"r-{seat.player_id}-{len(stack.frames())}",
             "table_id": TABLE_ID, "move": "raise_to", "amount": prompt.min_raise_to})))
    else:
        pytest.fail("the sample player never got the turn")
    before = len(stack.frames())
    stack.send("act")
    assert assert_accepted(stack, before, "act")["type"] in ("ack", "update")

    for name in ("use_power", "shield", "pass_window", "sit_out", "sit_in", "add_chips",
                 "leave_table"):
        before = len(stack.frames())
        assert stack.send(name) == {"statusCode": 200}
        assert_accepted(stack, before, name)

    assert isinstance(stack.send("timer")["acted"], bool)
    assert isinstance(stack.send("sweep")["fired"], int)

    before = len(stack.frames())
    assert stack.send("default") == {"statusCode": 200}
    error = stack.reply_after(before)
    assert (error["type"], error["code"], error["request_id"]) \
        == ("error", "unknown_action", "req-default-1")

    assert stack.send("disconnect") == {"statusCode": 200}
    assert stack.connections.player_of(CONNECTION_ID) is None


@pytest.mark.parametrize("name", [n for n in event_names()
                                  if n not in ("connect", "disconnect", "timer", "sweep")])
def test_every_message_event_is_accepted_by_the_game_handler(table: Stack, name: str) -> None:
    before = len(table.frames())
    assert table.send(name) == {"statusCode": 200}
    if name == "default":
        assert table.reply_after(before)["code"] == "unknown_action"
    else:
        assert_accepted(table, before, name)


def test_the_timer_event_fires_the_first_decision_clock_of_the_sample_table(table: Stack) -> None:
    timer = load_event("timer")
    pending = [t.token for t in table.store.load(TABLE_ID).timers]
    assert timer["token"] in pending, f"events/timer.json names no pending timer: {pending}"
    table.clock.advance(60_000)
    assert table.send("timer") == {"table_id": TABLE_ID, "token": timer["token"], "acted": True}
    assert table.send("timer")["acted"] is False  # a duplicate execution is a no-op


def test_the_sweep_event_fires_overdue_timers(table: Stack) -> None:
    table.clock.advance(60_000)
    assert table.send("sweep")["fired"] >= 1
    assert table.send("sweep") == {"fired": 0}


def test_disconnect_keeps_the_seat_and_unbinds_the_connection(table: Stack) -> None:
    assert table.send("disconnect") == {"statusCode": 200}
    record = table.store.load(TABLE_ID)
    assert record.seat_of(PLAYER) is not None and PLAYER in record.disconnected
    assert table.connections.player_of(CONNECTION_ID) is None


# -- $connect --------------------------------------------------------------------------------

def test_connect_takes_the_player_from_the_authorizer_only(stack: Stack) -> None:
    event = copy.deepcopy(CONNECT)
    event["queryStringParameters"]["player_id"] = "mallory"
    event["headers"]["X-Player-Id"] = "mallory"
    assert stack.invoke("connect", event) == {"statusCode": 200}
    assert stack.connections.player_of(CONNECTION_ID) == PLAYER


@pytest.mark.parametrize("authorizer", [None, {}, {"principalId": "alice"}, {"player_id": ""},
                                        {"player_id": "bot-1"}, {"player_id": "BOT-2"}])
def test_connect_without_a_verified_player_is_refused(stack: Stack, authorizer: Any) -> None:
    event = copy.deepcopy(CONNECT)
    if authorizer is None:
        del event["requestContext"]["authorizer"]
    else:
        event["requestContext"]["authorizer"] = authorizer
    assert stack.invoke("connect", event) == {"statusCode": 403}
    assert stack.connections.player_of(CONNECTION_ID) is None


# -- errors on the game route ----------------------------------------------------------------

def frame_event(body: str | None) -> dict[str, Any]:
    event = load_event("act")
    event["body"] = body
    return event


def test_a_frame_on_an_unbound_connection_is_answered_not_connected(stack: Stack) -> None:
    # Without the authorizer's context (API Gateway always passes it on an authorized
    # connection) the player is looked up by connection: none is bound.
    event = load_event("act")
    del event["requestContext"]["authorizer"]
    assert stack.invoke("game", event) == {"statusCode": 200}
    assert stack.frames()[-1]["code"] == "not_connected"


def test_the_player_comes_from_the_authorizer_context_not_a_lookup(stack: Stack) -> None:
    reads = []
    original = stack.connections.player_of
    stack.connections.player_of = lambda c: reads.append(c) or original(c)  # type: ignore[method-assign]
    assert stack.send("list_tables") == {"statusCode": 200}
    assert reads == [] and stack.frames()[-1]["type"] == "tables"


@pytest.mark.parametrize(("body", "code"), [
    (None, "malformed_json"),
    ("{not json", "malformed_json"),
    ("[1, 2]", "malformed_json"),
    (json.dumps({"action": "act", "request_id": "r1", "table_id": "t1", "move": "dance"}),
     "invalid_request"),
    (json.dumps({"action": "list_tables", "request_id": "r1", "pad": "x" * MAX_FRAME_BYTES}),
     "frame_too_large"),
])
def test_frames_that_are_not_requests_get_protocol_errors(stack: Stack, body: str | None,
                                                          code: str) -> None:
    stack.send("connect")
    assert stack.invoke("game", frame_event(body)) == {"statusCode": 200}
    assert stack.frames()[-1]["code"] == code


def test_a_request_for_an_unknown_table_is_refused_by_the_service(stack: Stack) -> None:
    stack.send("connect")
    before = len(stack.frames())
    stack.send("join_table")  # the sample table was never created here
    assert assert_accepted(stack, before, "join_table")["type"] == "error"


def test_a_reply_to_a_connection_that_is_gone_is_not_an_error(stack: Stack) -> None:
    stack.send("connect")
    stack.gateway.gone.add(CONNECTION_ID)
    assert stack.send("default") == {"statusCode": 200}
    assert stack.send("list_tables") == {"statusCode": 200}


def test_an_unexpected_failure_is_logged_answered_and_reraised(
        table: Stack, logs: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_load(table_id: str) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(table.store, "load", broken_load)
    with pytest.raises(bootstrap.UnexpectedError) as raised:
        table.send("act")
    assert isinstance(raised.value.__cause__, RuntimeError)
    frame = table.frames()[-1]
    assert (frame["type"], frame["code"], frame["request_id"]) \
        == ("error", "internal_error", "req-act-1")
    assert "disk on fire" not in json.dumps(frame)
    record = next(r for r in map(json.loads, logs.getvalue().splitlines())
                  if r.get("level") == "ERROR")
    assert "disk on fire" in record["exception"]
    assert record["connection_id"] == CONNECTION_ID and record["player_id"] == PLAYER
    assert record["table_id"] == TABLE_ID and record["route"] == "act"
    assert record["request_id"] == "req-act-1"


def test_log_keys_do_not_leak_into_the_next_invocation(table: Stack) -> None:
    logger = table.handlers["game"].logger
    table.send("act")
    assert logger.thread_safe_get_current_keys()["table_id"] == TABLE_ID
    table.send("sweep")
    keys = table.handlers["sweep"].logger.thread_safe_get_current_keys()
    assert keys["route"] == "sweep" and "table_id" not in keys and "player_id" not in keys


def test_the_timer_event_needs_a_table_and_a_token(stack: Stack) -> None:
    with pytest.raises(bootstrap.UnexpectedError) as raised:
        stack.invoke("timer", {"table_id": TABLE_ID})
    assert isinstance(raised.value.__cause__, ValueError)


def test_metrics_are_flushed_in_the_naiko_namespace(
        table: Stack, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    table.send("act")
    emf = [json.loads(line) for line in capsys.readouterr().out.splitlines()
           if line.startswith("{") and '"_aws"' in line]
    assert emf, "no EMF document printed"
    directives = emf[-1]["_aws"]["CloudWatchMetrics"][0]
    assert directives["Namespace"] == "Naiko"
    names = {m["Name"] for m in directives["Metrics"]}
    assert {"Requests", "TableWrites"} <= names  # the handler's and the service's (Deps.count)


def _emf_names(out: str) -> list[set[str]]:
    """The metric names of each EMF document in *out*."""
    return [{m["Name"] for m in json.loads(line)["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
            for line in out.splitlines() if line.startswith("{") and '"_aws"' in line]


def test_the_sweep_always_beats(stack: Stack, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 item 6: every sweep run counts SweepHeartbeat, with nothing due and when the
    sweep fails (SweepHeartbeatAlarm treats its absence as a sweep that no longer runs)."""
    capsys.readouterr()
    assert stack.send("sweep") == {"fired": 0}
    assert any("SweepHeartbeat" in names for names in _emf_names(capsys.readouterr().out))

    def broken() -> int:
        raise RuntimeError("DynamoDB is gone")

    monkeypatch.setattr(stack.service, "sweep", broken)
    with pytest.raises(bootstrap.UnexpectedError):
        stack.send("sweep")
    (names,) = _emf_names(capsys.readouterr().out)
    assert {"SweepHeartbeat", "UnexpectedErrors"} <= names


# -- bootstrap -------------------------------------------------------------------------------

ENV = {"TABLES_TABLE": "naiko-test-tables", "ACCOUNTS_TABLE": "naiko-test-accounts",
       "LEDGER_TABLE": "naiko-test-ledger",
       "CONNECTIONS_TABLE": "naiko-test-connections",
       "STATE_KEY": base64.b64encode(bytes(range(32))).decode()}


def test_config_reads_the_environment() -> None:
    config = bootstrap.Config.from_env({**ENV, "DEFAULT_DECISION_SECONDS": "30",
                                        "TIMER_STATE_MACHINE_ARN": ""})
    assert config.tables_table == "naiko-test-tables"
    assert config.timer_state_machine_arn is None and config.websocket_endpoint is None
    assert (config.default_decision_seconds, config.default_pause_seconds) == (30, 3)


@pytest.mark.parametrize("change", [
    {"TABLES_TABLE": ""}, {"STATE_KEY": ""}, {"DEFAULT_PAUSE_SECONDS": "soon"},
    {"DEFAULT_DECISION_SECONDS": "0"},
])
def test_config_refuses_an_incomplete_environment(change: dict[str, str]) -> None:
    with pytest.raises(bootstrap.ConfigurationError):
        bootstrap.Config.from_env({**ENV, **change})


def test_state_key_from_a_secret() -> None:
    raw = bytes(range(32))
    assert bootstrap.state_key_from_secret(base64.b64encode(raw).decode() + "\n") == raw
    generated = "Q7d" * 21 + "x"  # what GenerateSecretString makes: 64 letters and digits
    key = bootstrap.state_key_from_secret(generated)
    assert len(key) == 32 and key == bootstrap.state_key_from_secret(generated)
    assert key != bootstrap.state_key_from_secret(generated[:-1] + "y")
    with pytest.raises(bootstrap.ConfigurationError):
        bootstrap.state_key_from_secret("too-short")


def test_the_service_is_built_once_per_container(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[bootstrap.Config, str | None]] = []

    def fake_build(config: bootstrap.Config, endpoint: str | None = None) -> Any:
        built.append((config, endpoint))
        return object()

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(bootstrap, "build_service", fake_build)
    bootstrap.reset()
    try:
        endpoint = bootstrap.endpoint_from_event(load_event("act"))
        assert endpoint == "https://abcdef1234.execute-api.eu-west-1.amazonaws.com/dev"
        first = bootstrap.get_service(endpoint)
        assert bootstrap.get_service() is first and len(built) == 1
        assert built[0][1] == endpoint
        bootstrap.reset()
        assert bootstrap.get_service() is not first and len(built) == 2
    finally:
        bootstrap.reset()


def test_the_service_is_built_with_the_collector_paused_and_the_first_build_frozen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 23 item 9 (docs/deploy.md, "7. Cold start"): no cyclic collection while the
    # service's imports run; the first build in a process moves what is alive to the
    # permanent generation; the collector runs again afterwards, also when the build fails
    import gc

    seen: list[bool] = []
    frozen: list[int] = []

    def fake_build(config: bootstrap.Config, endpoint: str | None = None) -> Any:
        seen.append(gc.isenabled())
        if len(seen) == 2:
            raise bootstrap.ConfigurationError("no")
        return object()

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(bootstrap, "build_service", fake_build)
    monkeypatch.setattr(bootstrap, "_gc_frozen", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(gc.isenabled()))
    assert gc.isenabled()
    bootstrap.reset()
    try:
        bootstrap.get_service()
        assert seen == [False] and frozen == [False] and gc.isenabled()
        bootstrap.reset()
        with pytest.raises(bootstrap.ConfigurationError):
            bootstrap.get_service()
        assert seen == [False, False] and gc.isenabled()
        bootstrap.get_service()
        assert seen == [False, False, False] and frozen == [False]  # frozen once
        gc.disable()  # a caller that paused it keeps it paused
        try:
            bootstrap.reset()
            bootstrap.get_service()
            assert not gc.isenabled()
        finally:
            gc.enable()
    finally:
        bootstrap.reset()


def test_the_aws_adapters_are_wired_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, handlers: dict[str, ModuleType]) -> None:
    """The real builder on moto: tables from template.yaml, the key from Secrets Manager,
    replies through the Management API."""
    boto3 = pytest.importorskip("boto3")
    moto = pytest.importorskip("moto")
    from aws_testing import REGION, capture_posts, create_tables_from_template
    from naiko_service.aws import (
        DynamoTableStore,
        ManagementApiGateway,
        StepFunctionsScheduler,
    )

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("STATE_KEY", raising=False)
    with moto.mock_aws(), capture_posts() as posts:
        names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION))
        secret = boto3.client("secretsmanager", region_name=REGION).create_secret(
            Name="naiko-test-state-key", SecretString="k3y" * 21 + "z")
        monkeypatch.setenv("TABLES_TABLE", names["TablesTable"])
        monkeypatch.setenv("ACCOUNTS_TABLE", names["AccountsTable"])
        monkeypatch.setenv("LEDGER_TABLE", names["LedgerTable"])
        monkeypatch.setenv("CONNECTIONS_TABLE", names["ConnectionsTable"])
        monkeypatch.setenv("STATE_KEY_SECRET_ARN", secret["ARN"])
        monkeypatch.setenv("WEBSOCKET_ENDPOINT",
                           "https://abcdef1234.execute-api.eu-west-1.amazonaws.com/dev")
        bootstrap.reset()
        try:
            service = bootstrap.get_service()
            assert isinstance(service.deps.tables, DynamoTableStore)
            assert isinstance(service.deps.gateway, ManagementApiGateway)
            assert isinstance(service.deps.scheduler, bootstrap.SweepOnlyScheduler)
            assert service.deps.count is bootstrap.count
            context = FakeLambdaContext()
            assert handlers["connect"].lambda_handler(load_event("connect"), context) \
                == {"statusCode": 200}
            assert handlers["game"].lambda_handler(load_event("create_table"), context) \
                == {"statusCode": 200}
            ack = posts.messages[CONNECTION_ID][-1]
            assert (ack["type"], ack["table_id"]) == ("ack", TABLE_ID)
            assert service.deps.tables.load(TABLE_ID).settings.name == "Friday Naiko"

            monkeypatch.setenv("TIMER_STATE_MACHINE_ARN",
                               f"arn:aws:states:{REGION}:123456789012:stateMachine:timers")
            bootstrap.reset()
            assert isinstance(bootstrap.get_service().deps.scheduler, StepFunctionsScheduler)
        finally:
            bootstrap.reset()


def test_a_botocore_session_an_earlier_test_made_does_not_outlive_bootstrap_reset(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The wiring test above failed after tests that had made the container's botocore session
    before moto was imported (``-p no:randomly tests/service/test_nothing_lost.py
    tests/service/test_service.py tests/unit/test_handlers.py`` in one process): such a session
    has none of moto's hooks, it outlived ``bootstrap.reset()``, and the service built "on
    moto" asked the real Secrets Manager for its key. Here that session is made on purpose
    (moto's hook taken off, a hook that fails any request put on), and the clients after a
    reset come from a new session, which moto serves."""
    pytest.importorskip("boto3")
    moto = pytest.importorskip("moto")
    import botocore.session
    from aws_testing import REGION
    from moto.core.models import botocore_stubber

    def left(**kwargs: Any) -> None:
        raise AssertionError(f"a request left for AWS itself: {kwargs.get('event_name')}")

    stale = botocore.session.get_session()
    stale.unregister("before-send", botocore_stubber)  # as if made before moto's import
    stale.register("before-send", left)
    monkeypatch.setattr(bootstrap, "_botocore_session", stale)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with moto.mock_aws():
        bootstrap.reset()
        try:
            client = bootstrap.aws_client("secretsmanager", region_name=REGION)
            arn = client.create_secret(Name="naiko-stale", SecretString="k3y" * 22)["ARN"]
            assert client.get_secret_value(SecretId=arn)["SecretString"] == "k3y" * 22
            assert bootstrap._botocore_session is not stale
        finally:
            bootstrap.reset()


# -- cold start ------------------------------------------------------------------------------

def _python(*args: str, handler: str = "game") -> subprocess.CompletedProcess[str]:
    """A fresh interpreter with the Lambda's import path: the function's code, then the layer."""
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(FUNCTIONS / handler), str(ROOT / "layers/engine")])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=str(ROOT / "tests"), timeout=120)


@pytest.mark.parametrize("handler", HANDLER_NAMES)
def test_importing_a_handler_imports_no_sdk_no_tracer_and_no_service(handler: str) -> None:
    # (Powertools imports the bare botocore package for its user agent: 1 ms, no session.)
    heavy = ["boto3", "botocore.session", "aws_xray_sdk", "aws_xray_sdk.core", "pydantic",
             "naiko_service.usecases", "naiko_service.protocol", "naiko.engine"]
    result = _python("-c", f"import sys, app; print(sorted(set({heavy!r}) & set(sys.modules)))",
                     handler=handler)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


LAZY_FRAME = r"""
import json, sys
import app
from naiko_service import bootstrap
from service_testing import harness

event = json.load(open(sys.argv[1], encoding="utf-8"))
context = event["requestContext"]
player = context["authorizer"]["player_id"]
h = harness()
bootstrap.set_service(h.service)
h.accounts.grant(player, 10_000)
h.service.connect(context["connectionId"], player)


class Context:
    function_name = "naiko-test-game"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-test-game"
    aws_request_id = "6f1c2d3e-0000-4000-8000-000000000001"


assert app.lambda_handler(event, Context()) == {"statusCode": 200}
from naiko_service import protocol
import pydantic.plugin._loader as plugins

print(json.dumps({
    "reply": h.gateway.sent[context["connectionId"]][-1]["type"],
    "modules": sorted(m for m in sys.modules if m.startswith(("naiko.", "naiko_service."))),
    "models": sorted(a for a, m in protocol.REQUEST_MODELS.items() if m.__pydantic_complete__)
              + sorted(m.__name__ for m in protocol.Message.__subclasses__()
                       if m.__pydantic_complete__),
    "plugins_scanned": plugins._plugins is not None}))
"""


def test_a_new_containers_first_frame_loads_only_what_it_needs() -> None:
    # issue 23 item 9 (docs/deploy.md, "7. Cold start"): a fresh interpreter imports the game
    # handler and answers create_table; the evaluator's tables (first showdown), the bots'
    # styles (first bot turn), the other requests' validators and pydantic's plugin scan
    # stay out of that frame.
    env = {key: value for key, value in os.environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(FUNCTIONS / "game"), str(ROOT / "layers/engine"),
                                         str(ROOT / "tests")])
    result = subprocess.run([sys.executable, "-c", LAZY_FRAME,
                             str(EVENTS / "create_table.json")], capture_output=True,
                            text=True, env=env, cwd=str(ROOT / "tests"), timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded["reply"] == "ack"
    lazy = {"naiko.evaluator", "naiko.bot_styles", "naiko.bots", "naiko.ranges",
            "naiko.hand_formats", "naiko_service.integrity"}
    assert lazy.isdisjoint(loaded["modules"]), lazy & set(loaded["modules"])
    assert "naiko.engine" in loaded["modules"]  # the frame did reach the engine
    assert loaded["models"] == ["create_table"]
    assert loaded["plugins_scanned"] is False


def test_snap_start_warms_the_container_up_and_a_restore_rebuilds_what_is_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 23 item 9, SnapStart (docs/deploy.md "7. Cold start"): initialisation builds the
    # service and every lazy part; after a restore the service (clients, credentials, state
    # key) is built again on a new botocore session and the random module is re-seeded.
    import random
    import types

    import botocore.session
    from naiko import evaluator
    from naiko_service import protocol
    from service_testing import harness

    hooks: list[Any] = []
    module = types.ModuleType("snapshot_restore_py")
    module.register_after_restore = hooks.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", module)
    built: list[Any] = []

    def fake_build(config: bootstrap.Config, endpoint: str | None = None) -> Any:
        built.append(harness().service)
        return built[-1]

    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(bootstrap, "build_service", fake_build)
    bootstrap.reset()
    try:
        monkeypatch.delenv("NAIKO_SNAPSTART", raising=False)
        assert bootstrap.snap_start("game") is False and built == [] and hooks == []
        monkeypatch.setenv("NAIKO_SNAPSTART", "true")
        assert bootstrap.snap_start("game") is True
        assert hooks == [bootstrap.after_restore] and len(built) == 1
        assert bootstrap.get_service() is built[0]
        assert evaluator._RANK5 and evaluator._RANK6 and evaluator._RANK7 and evaluator._OMAHA4
        assert all(m.__pydantic_complete__ for m in protocol.REQUEST_MODELS.values())
        assert "naiko.bot_styles" in sys.modules

        session = botocore.session.get_session()
        monkeypatch.setattr(bootstrap, "_botocore_session", session)
        random.seed(7)
        snapshot_draw = random.random()
        random.seed(7)
        bootstrap.after_restore()
        assert random.random() != snapshot_draw  # not the snapshot's sequence
        assert len(built) == 2 and bootstrap.get_service() is built[1]
        assert bootstrap._botocore_session is not session
        assert bootstrap._botocore_session.get_component("data_loader") is \
            session.get_component("data_loader")
    finally:
        bootstrap.reset()


def test_bootstrap_doctests() -> None:
    import doctest

    assert doctest.testmod(bootstrap).failed == 0


@pytest.mark.parametrize("level", ["WARNING", "ERROR", "DEBUG"])
def test_the_log_level_is_the_template_s_under_lambda_s_json_format(
        level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 item 10 (docs/deploy.md "Logs"): in Lambda's JSON log format Lambda sets
    ``AWS_LAMBDA_LOG_LEVEL`` (its application filter, INFO for every ``LogLevel`` but DEBUG)
    and Powertools prefers it to ``POWERTOOLS_LOG_LEVEL``; ``bootstrap.apply_log_level`` puts
    the template's ``LogLevel`` back, so WARNING and ERROR keep INFO lines out."""
    from aws_lambda_powertools import Logger

    monkeypatch.setenv("AWS_LAMBDA_LOG_LEVEL", "DEBUG" if level == "DEBUG" else "INFO")
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", level)
    log = Logger(service=f"naiko-level-{level.lower()}")
    stream = io.StringIO()
    log.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    bootstrap.apply_log_level(log)
    log.debug("a debug line")
    log.info("an info line")
    log.warning("a warning line")
    log.error("an error line")
    written = [json.loads(line)["message"] for line in stream.getvalue().splitlines()]
    expected = {"DEBUG": ["a debug line", "an info line", "a warning line", "an error line"],
                "WARNING": ["a warning line", "an error line"],
                "ERROR": ["an error line"]}[level]
    assert written == expected
