"""Hand histories through the real Lambda handlers on moto (R10.1): DynamoDB tables from
template.yaml (``HandHistoryTable`` included), hands played frame by frame, and the write that
ends each hand hit by what goes wrong on the way to DynamoDB:

- the SDK retries a ``TransactWriteItems`` whose first attempt committed but whose answer was
  lost (the retry meets its own conditions: the table's version has moved on, the records
  exist);
- the answer is lost and the invocation fails: the client sends the same frame again (its
  ``request_id``), or Step Functions invokes the timer again with the same token;
- the same frame, or the same timer event, is simply delivered twice.

Every hand is stored exactly once: one hand item per hand number, one entry per player dealt
in, and the records open and read back as the hands that were played."""

from __future__ import annotations

import base64
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from aws_testing import REGION, capture_posts, create_tables_from_template
from botocore.client import BaseClient
from botocore.exceptions import ReadTimeoutError
from moto import mock_aws
from naiko_service import bootstrap
from naiko_service.aws.dynamodb import DynamoTableStore
from naiko_service.aws.histories import DynamoHandHistories
from naiko_service.bootstrap import UnexpectedError
from naiko_service.records import Sealer
from test_handlers_on_moto import ENDPOINT, Context, Session, grant

KEY = bytes(range(32))


class Faults:
    """Wraps botocore's ``_make_api_call``: each ``TransactWriteItems`` that stores a hand's
    record meets the next fault of :attr:`plan` (cycling): ``retried`` (committed, then sent
    again by the SDK, whose answer is the one returned), ``lost`` (committed, then the call
    times out) or ``none``."""

    def __init__(self, history_table: str, plan: tuple[str, ...]):
        self.history_table = history_table
        self.plan = plan
        self.met: Counter[str] = Counter()
        self.transactions = 0

    def wrap(self, original: Any) -> Any:
        faults = self

        def call(client: Any, operation: str, params: dict[str, Any]) -> Any:
            if operation != "TransactWriteItems" or not any(
                    item.get("Put", {}).get("TableName") == faults.history_table
                    for item in params["TransactItems"]):
                return original(client, operation, params)
            fault = faults.plan[faults.transactions % len(faults.plan)]
            faults.transactions += 1
            faults.met[fault] += 1
            response = original(client, operation, params)
            if fault == "retried":
                return original(client, operation, params)  # raises: its conditions fail
            if fault == "lost":
                raise ReadTimeoutError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com")
            return response

        return call


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Session, dict[str, str], Any]]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_ENDPOINT_URL", "TIMER_STATE_MACHINE_ARN", "STATE_KEY_SECRET_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Naiko")
    with mock_aws(), capture_posts() as posts:
        names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION))
        for variable, logical_id in (("TABLES_TABLE", "TablesTable"),
                                     ("ACCOUNTS_TABLE", "AccountsTable"),
                                     ("LEDGER_TABLE", "LedgerTable"),
                                     ("CONNECTIONS_TABLE", "ConnectionsTable"),
                                     ("HISTORY_TABLE", "HandHistoryTable")):
            monkeypatch.setenv(variable, names[logical_id])
        monkeypatch.setenv("STATE_KEY", base64.b64encode(KEY).decode())
        monkeypatch.setenv("WEBSOCKET_ENDPOINT", ENDPOINT)
        bootstrap.reset()
        from naiko_local.template import load_handler

        handlers = {n: load_handler(n) for n in ("connect", "disconnect", "game", "timer")}
        try:
            yield Session(handlers, posts), names, posts
        finally:
            bootstrap.reset()


def send(session: Session, connection: str, frame: dict[str, Any], twice: bool) -> None:
    """Send a frame as a client does: again, with the same ``request_id``, when the server
    failed (``internal_error``) or when the client simply sends it twice."""
    session.counter += 1
    frame = {**frame, "request_id": f"h{session.counter}"}
    for attempt in range(3):
        event = session._event(connection, str(frame["action"]), "MESSAGE", json.dumps(frame))
        try:
            session.handlers["game"].lambda_handler(event, Context())
        except UnexpectedError:
            continue  # the write's answer was lost: the client retries the same frame
        if not twice or attempt:
            return
    raise AssertionError("the frame never went through")


def fire(session: Session, table_id: str, token: str, twice: bool) -> None:
    """A timer execution (Step Functions invokes the handler again when it fails)."""
    for attempt in range(3):
        try:
            session.handlers["timer"].lambda_handler({"table_id": table_id, "token": token},
                                                     Context())
        except UnexpectedError:
            continue
        if not twice or attempt:
            return
    raise AssertionError("the timer never went through")


def play(session: Session, tables: DynamoTableStore, table_id: str, connections: list[str],
         hands: int, rng: random.Random, powers: bool) -> None:
    """Play *hands* hands with random moves; some turns run out (the decision timer fires),
    every second frame and timer is delivered twice."""
    by_player = {session.players[c]: c for c in connections}
    for _ in range(hands):
        start = tables.load(table_id)
        number = start.state.hand.number if start.state.hand else 0
        for _ in range(400):
            record = tables.load(table_id)
            hand = record.state.hand
            if hand is None or hand.number != number or hand.complete:
                break
            twice = rng.random() < 0.5
            if hand.powers is not None and hand.powers.windows:
                window = hand.powers.windows[0]
                seat = record.state.seats[window.target]
                assert seat is not None
                send(session, by_player[seat.player_id], {
                    "action": rng.choice(["shield", "pass_window"]), "table_id": table_id},
                    twice)
                continue
            seat = record.state.seats[hand.actor]  # type: ignore[index]
            assert seat is not None
            connection = by_player[seat.player_id]
            prompt = session.view(connection)["prompt"]
            if prompt is None or rng.random() < 0.1:  # the clock runs out
                token = next(t.token for t in record.timers if t.kind == "decision")
                fire(session, table_id, token, twice)
                continue
            if powers and prompt["powers"] and rng.random() < 0.3:
                power = rng.choice(prompt["powers"])
                frame: dict[str, Any] = {"action": "use_power", "table_id": table_id,
                                         "power": power}
                if power == "sleeve_swap":
                    frame["card_index"] = 1
                if power == "short_anchor":
                    frame["target_seat"] = prompt["anchor_targets"][0]
                send(session, connection, frame, twice)
                continue
            move = rng.choice([m for m in prompt["actions"] if m != "all_in"])
            frame = {"action": "act", "table_id": table_id, "move": move}
            if move in ("bet", "raise_to"):
                frame["amount"] = prompt["min_raise_to"]
            send(session, connection, frame, twice)
        else:
            raise AssertionError("the hand did not end")
        record = tables.load(table_id)
        token = next((t.token for t in record.timers if t.kind == "next_hand"), None)
        if token is None:
            return  # somebody busted
        fire(session, table_id, token, rng.random() < 0.5)


def three_at_a_table(session: Session, names: dict[str, str], name: str, variant: str,
                     ) -> tuple[list[str], str, Any, DynamoTableStore]:
    """Three granted players connected and seated with 200 at a new 1/2 table (a hand starts
    with the third): their connections, the table's id, a DynamoDB client and the table store."""
    connections = []
    for i in range(3):
        grant(names, f"player{i}")
        connections.append(session.connect(f"player{i}"))
    send(session, connections[0], {"action": "create_table", "name": name, "variant": variant,
                                   "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                                   "max_buy_in": 400}, False)
    ack = next(m for m in session.messages(connections[0]) if m["type"] in ("ack", "update"))
    table_id = ack["table_id"]
    for connection in connections:
        send(session, connection, {"action": "join_table", "table_id": table_id,
                                   "buy_in": 200}, False)
    client = boto3.client("dynamodb", region_name=REGION)
    tables = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"], Sealer(KEY))
    return connections, table_id, client, tables


@pytest.mark.parametrize("variant", ["NLHE", "NAIKO"])
def test_r10_1_hands_played_through_the_handlers_are_stored_exactly_once(
        aws: tuple[Session, dict[str, str], Any], monkeypatch: pytest.MonkeyPatch,
        variant: str) -> None:
    """A moto test: hands played through the handlers are stored exactly once each, including
    when the final write is retried."""
    session, names, _ = aws
    faults = Faults(names["HandHistoryTable"], ("retried", "lost", "none"))
    monkeypatch.setattr(BaseClient, "_make_api_call", faults.wrap(BaseClient._make_api_call))
    connections, table_id, client, tables = three_at_a_table(session, names, "moto", variant)
    play(session, tables, table_id, connections, 4, random.Random(11), variant == "NAIKO")
    assert faults.met["retried"] >= 1 and faults.met["lost"] >= 1  # each fault was met

    closed = tables.load(table_id).hands_closed
    assert closed >= 3
    assert faults.transactions == closed  # one write carried each record, once
    items = client.query(TableName=names["HandHistoryTable"],
                         KeyConditionExpression="pk = :pk",
                         ExpressionAttributeValues={":pk": {"S": f"table#{table_id}"}})["Items"]
    assert [i["sk"]["S"] for i in items] == [f"hand#{n:010d}" for n in range(1, closed + 1)]
    histories = DynamoHandHistories(client, names["HandHistoryTable"], Sealer(KEY))
    records = histories.table_hands(table_id)
    assert [r.hand_number for r in records] == list(range(1, closed + 1))
    for player in ("player0", "player1", "player2"):
        entries = client.query(TableName=names["HandHistoryTable"],
                               KeyConditionExpression="pk = :pk",
                               ExpressionAttributeValues={":pk": {"S": f"player#{player}"}}
                               )["Items"]
        hands = [json.loads(e["summary"]["S"])["hand_number"] for e in entries]
        assert sorted(hands) == [r.hand_number for r in records if player in r.players]
        page = histories.player_hands(player, None, 2)
        assert [h.hand_number for h in page.hands] == sorted(hands, reverse=True)[:2]
    for record in records:
        state = record.table_state()
        assert state.hand is not None and state.hand.complete
        assert state.hand.number == record.hand_number and sum(record.results.values()) == 0
    # a player reads one of them through the handler, as they saw it
    reader = connections[1]
    number = next(r.hand_number for r in records if "player1" in r.players)
    send(session, reader, {"action": "get_hand", "table_id": table_id,
                           "hand_number": number}, False)
    reply = next(m for m in reversed(session.messages(reader)) if m["type"] == "hand")
    assert reply["hand"]["hand_number"] == number
    assert all(e.get("private_to", reply["hand"]["seat_index"]) == reply["hand"]["seat_index"]
               for e in reply["hand"]["events"])


def test_r10_1_a_record_stored_already_fails_only_its_own_condition_on_dynamodb(
        aws: tuple[Session, dict[str, str], Any]) -> None:
    """The adapter's side of "never twice": a table write carrying a hand's record that is
    stored already is refused as :class:`HistoryStored` (not as a conflict: the table's own
    condition held) and writes nothing; the same write without it goes through."""
    from naiko.commands import Fold
    from naiko.engine import apply_in_place, legal_actions
    from naiko_service.hand_records import build
    from naiko_service.ports import ConcurrentUpdate, HistoryStored
    from naiko_service.records import TableRecord, TableSettings
    from naiko_service.usecases.base import Deps, Outcome
    from naiko_service.usecases.transaction import write
    from naiko_testing import start, table

    _, names, _ = aws
    state, _ = start(table([200, 200, 200]), button=0)  # a hand, played to its end
    while (prompt := legal_actions(state)) is not None:
        apply_in_place(state, Fold(seat_index=prompt.seat_index))
    table_id = "t" + "0" * 20
    record = TableRecord(table_id, 1, TableSettings("t", "p0", 40, 400), state, 0)
    history = build(record.state, table_id=table_id, table_name="t", kind="cash",
                    started_ms=1, ended_ms=2)
    client = boto3.client("dynamodb", region_name=REGION)
    tables = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"], Sealer(KEY),
                              ledger_table=names["LedgerTable"],
                              history_table=names["HandHistoryTable"])
    tables.create(record)
    first = record.copy()
    first.version = 2
    first.histories = [history]
    tables.save(first, 1)  # the hand's record, with the write that ends it
    second = first.copy()
    second.version = 3
    with pytest.raises(HistoryStored) as stored:
        tables.save(second, 2)  # carries it again
    assert stored.value.hands == (history.key,)
    assert tables.load(table_id).version == 2  # nothing written
    with pytest.raises(ConcurrentUpdate):
        tables.save(second, 1)  # an old version: a conflict first, whatever else fails
    from naiko_service.memory import (
        ManualClock,
        MemoryAccounts,
        MemoryConnections,
        RecordingGateway,
        RecordingScheduler,
    )

    deps = Deps(tables=tables, accounts=MemoryAccounts(), connections=MemoryConnections(),
                gateway=RecordingGateway(), scheduler=RecordingScheduler(), clock=ManualClock())
    write(deps, second, 2, Outcome(), 3)  # the path leaves the stored one out
    assert tables.load(table_id).version == 3
    histories = DynamoHandHistories(client, names["HandHistoryTable"], Sealer(KEY))
    assert histories.table_hands(table_id) == [history]
    entries = client.query(TableName=names["HandHistoryTable"],
                           KeyConditionExpression="pk = :pk",
                           ExpressionAttributeValues={":pk": {"S": "player#p0"}})["Items"]
    assert len(entries) == 1


def test_r10_1_stored_hands_expire_after_the_templates_retention_on_dynamodb(
        aws: tuple[Session, dict[str, str], Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """R10.1's retention: with ``HISTORY_RETENTION_DAYS`` as the template passes it
    (``HandRetentionDays``), every hand item and player entry written through the handlers
    carries ``expires_at`` = the hand's end (epoch seconds) + the retention, and the table's
    TTL (created from the template) deletes by that attribute."""
    from aws_testing import load_template

    template = load_template()
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["HISTORY_RETENTION_DAYS"] in ("HandRetentionDays",
                                                   {"Ref": "HandRetentionDays"})
    days = int(template["Parameters"]["HandRetentionDays"]["Default"])
    monkeypatch.setenv("HISTORY_RETENTION_DAYS", str(days))
    session, names, _ = aws
    connections, table_id, client, tables = three_at_a_table(session, names, "ttl", "NLHE")
    play(session, tables, table_id, connections, 2, random.Random(5), False)

    ttl = client.describe_time_to_live(TableName=names["HandHistoryTable"])
    assert ttl["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED",
                                            "AttributeName": "expires_at"}
    items = client.scan(TableName=names["HandHistoryTable"])["Items"]
    hands = {i["pk"]["S"][len("table#"):] + "/" + i["sk"]["S"]: i for i in items
             if i["sk"]["S"].startswith("hand#")}
    entries = [i for i in items if i["pk"]["S"].startswith("player#")]
    assert hands and len(entries) >= 2 * len(hands)
    for item in hands.values():
        ended_s = int(item["ended_ms"]["N"]) // 1000
        assert int(item["expires_at"]["N"]) == ended_s + days * 86_400
    for entry in entries:
        ended_s = int(entry["sk"]["S"].split("#")[0]) // 1000  # "<ended_ms>#<table>#<n>"
        assert int(entry["expires_at"]["N"]) == ended_s + days * 86_400
