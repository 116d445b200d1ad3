"""The ledger on DynamoDB (moto): chips granted with their entries, hands played through the real
handlers, a player leaving: every movement is an entry written in the same transaction, and
``scripts/ledger_check.py`` finds the identity granted = accounts + tables; a balance changed
behind the ledger's back breaks it."""

from __future__ import annotations

import base64
import importlib.util
from pathlib import Path
from typing import Any

import boto3
import pytest
from aws_testing import REGION
from naiko_service.aws.dynamodb import DynamoAccounts
from naiko_service.ledger import audit_dynamodb
from naiko_service.records import Sealer
from service_testing import ACCEPTED
from test_handlers_on_moto import Session, aws  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]


def balance_of(client: Any, names: dict[str, str], player: str) -> int:
    item = client.get_item(TableName=names["AccountsTable"], Key={"player_id": {"S": player}})
    return int(item["Item"]["balance"]["N"])


def check(names: dict[str, str]) -> Any:
    return audit_dynamodb(boto3.client("dynamodb", region_name=REGION), names["AccountsTable"],
                          names["LedgerTable"], names["TablesTable"], Sealer(bytes(range(32))))


def test_every_movement_is_on_the_ledger_and_the_identity_holds(
        aws: tuple[Session, dict[str, str], Any]) -> None:  # noqa: F811
    session, names, _ = aws
    client = boto3.client("dynamodb", region_name=REGION)
    accounts = DynamoAccounts(client, names["AccountsTable"], ledger_table=names["LedgerTable"])
    connections = []
    for i in range(3):
        accounts.grant(f"player{i}", 10_000, ref="test")
        connections.append(session.connect(f"player{i}"))
    ack = session.send(connections[0], action="create_table", name="ledger", variant="NLHE",
                       small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400)
    table_id = ack["table_id"]
    for connection in connections:
        assert session.send(connection, action="join_table", table_id=table_id,
                            buy_in=200)["type"] in ("ack", "update")
    for _ in range(2):  # the hand: two folds, the big blind wins
        view = session.view(connections[0])
        player = view["seats"][view["hand"]["actor"]]["player_id"]
        actor = next(c for c, p in session.players.items() if p == player)
        assert session.send(actor, action="act", table_id=table_id, move="fold")["type"] in ACCEPTED
    assert session.view(connections[0])["hand"]["complete"]
    leaver = next(s for s in session.view(connections[0])["seats"]
                  if s and s["player_id"] == "player1")
    assert session.send(connections[1], action="leave_table",
                        table_id=table_id)["type"] in ("ack", "update")
    result = check(names)
    assert result.holds, result.line()
    assert result.granted == 30_000 and result.accounts + result.tables == 30_000
    entries = client.scan(TableName=names["LedgerTable"])["Items"]
    mine = sorted((e["entry"]["S"], e["reason"]["S"], int(e["amount"]["N"])) for e in entries
                  if e["account"]["S"] == "player1")  # in time order
    assert [(reason, amount) for _, reason, amount in mine] == [
        ("grant", 10_000), ("buy_in", -200), ("cash_out", leaver["stack"])]
    assert balance_of(client, names, "player1") == 10_000 - 200 + leaver["stack"]
    # A balance changed outside a ledger transaction breaks the identity, and the script says so.
    client.update_item(TableName=names["AccountsTable"], Key={"player_id": {"S": "player2"}},
                       UpdateExpression="ADD balance :c",
                       ExpressionAttributeValues={":c": {"N": "7"}})
    broken = check(names)
    assert not broken.holds and broken.mismatched[0][0] == "player2"
    spec = importlib.util.spec_from_file_location("ledger_check", ROOT / "scripts/ledger_check.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    key = base64.b64encode(bytes(range(32))).decode()
    assert script.main(["--stage", "test", "--state-key", key, "--region", REGION]) == 1


@pytest.mark.parametrize("over", [False, True])
def test_a_fourth_open_table_is_refused_in_the_same_transaction(
        aws: tuple[Session, dict[str, str], Any], over: bool) -> None:  # noqa: F811
    session, names, _ = aws
    client = boto3.client("dynamodb", region_name=REGION)
    connection = session.connect("host")
    for i in range(4 if over else 3):
        reply = session.send(connection, action="create_table", name=f"t{i}", small_blind=1,
                             big_blind=2, min_buy_in=40, max_buy_in=400)
    assert reply["type"] == ("error" if over else "ack")
    if over:
        assert reply["code"] == "too_many_tables"
    item = client.get_item(TableName=names["AccountsTable"],
                           Key={"player_id": {"S": "host"}})["Item"]
    assert int(item["open_tables"]["N"]) == 3
    assert len(client.scan(TableName=names["TablesTable"])["Items"]) == 3
