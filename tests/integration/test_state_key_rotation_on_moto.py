"""The state-key rotation of docs/secrets.md on moto (Secrets Manager + DynamoDB from
template.yaml), issue 15 items 7 and 10: blobs sealed with version 1 (and legacy ones) still
open after rotating to version 2, new writes use version 2, the re-seal pass (safe while a
table is written) leaves no version-1 blob, and then version 1 can be retired; plus the
``$connect`` function working without the state key."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from moto import mock_aws
from naiko_service import bootstrap, sealing
from naiko_service.aws import DynamoTableStore
from naiko_service.records import TableKind, TableRecord, TableSettings
from naiko_service.sealing import Keyring, Sealer, UnknownKeyVersion, key_version
from naiko_testing import table

ROOT = Path(__file__).resolve().parents[2]
GENERATED = "Q7dk" * 16
"""What CloudFormation's GenerateSecretString gives (64 letters and digits)."""


def load_module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


rotate = load_module("naiko_rotate_state_key", ROOT / "scripts" / "rotate_state_key.py")


@dataclass
class World:
    dynamodb: Any
    secrets: Any
    names: dict[str, str]
    arn: str

    def container(self) -> tuple[Sealer, DynamoTableStore]:
        """A new Lambda container: its sealer read from the secret, as bootstrap builds it."""
        config = bootstrap.Config(self.names["TablesTable"], self.names["AccountsTable"],
                                  self.names["LedgerTable"], self.names["ConnectionsTable"],
                                  state_key_secret_arn=self.arn)
        sealer = bootstrap.state_sealer(config, lambda: self.secrets)
        return sealer, DynamoTableStore(self.dynamodb, self.names["TablesTable"],
                                        self.names["AccountsTable"], sealer,
                                        history_table=self.names["HandHistoryTable"])

    def item(self, table_id: str) -> dict[str, Any]:
        item: dict[str, Any] = self.dynamodb.get_item(
            TableName=self.names["TablesTable"], Key={"table_id": {"S": table_id}},
            ConsistentRead=True)["Item"]
        return item

    def put_hand(self, table_id: str, number: int, blob: bytes) -> None:
        self.dynamodb.put_item(TableName=self.names["HandHistoryTable"], Item={
            "pk": {"S": f"table#{table_id}"}, "sk": {"S": f"hand#{number:010d}"},
            "blob": {"B": blob}, "ended_ms": {"N": "1"}})

    def hand_blob(self, table_id: str, number: int) -> bytes:
        blob: bytes = self.dynamodb.get_item(
            TableName=self.names["HandHistoryTable"],
            Key={"pk": {"S": f"table#{table_id}"}, "sk": {"S": f"hand#{number:010d}"}},
            ConsistentRead=True)["Item"]["blob"]["B"]
        return blob

    def keyring(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(
            self.secrets.get_secret_value(SecretId=self.arn)["SecretString"])
        return document


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        secrets = boto3.client("secretsmanager", region_name=REGION)
        names = create_tables_from_template(dynamodb)
        arn = secrets.create_secret(Name="naiko-test-state-key", SecretString=GENERATED)["ARN"]
        yield World(dynamodb, secrets, names, arn)


def record(table_id: str) -> TableRecord:
    settings = TableSettings(name=f"table {table_id}", host="p0", min_buy_in=40,
                             max_buy_in=200, kind=TableKind.CASH)
    return TableRecord(table_id, 1, settings, table([200, 200, None, None]), 1_000)


def legacy_blob(document: dict[str, Any], aad: str) -> bytes:
    """What the service sealed before key versions: nonce || AES-GCM under the one key."""
    nonce = os.urandom(12)
    plain = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)
    key = bootstrap.state_key_from_secret(GENERATED)
    return nonce + AESGCM(key).encrypt(nonce, plain, aad.encode())


def bumped(rec: TableRecord) -> TableRecord:
    new = rec.copy()
    new.version = rec.version + 1
    new.seq = rec.seq + 1
    return new


def test_rotating_the_state_key_from_version_1_to_2_and_retiring_1(world: World) -> None:
    names = world.names
    tables, hands = names["TablesTable"], names["HandHistoryTable"]
    # -- before: the generated secret, unchanged (version 1 seals; legacy blobs are version 0)
    sealer_a, store_a = world.container()
    assert sealer_a.keyring.versions == (0, 1)
    for table_id in ("t1", "t2", "old"):
        store_a.create(record(table_id))
    world.dynamodb.update_item(  # a table last written before key versions existed
        TableName=tables, Key={"table_id": {"S": "old"}}, UpdateExpression="SET #b = :b",
        ExpressionAttributeNames={"#b": "blob"},
        ExpressionAttributeValues={":b": {"B": legacy_blob(record("old").to_document(),
                                                           "old")}})
    world.dynamodb.update_item(  # "old" in a hand: its R8.6 fallback, sealed on its own
        TableName=tables, Key={"table_id": {"S": "old"}}, UpdateExpression="SET fallback = :f",
        ExpressionAttributeValues={":f": {"B": sealer_a.seal({"fb": 1}, "old", "#fallback")}})
    world.put_hand("t1", 1, sealer_a.seal({"hand": 1}, "t1", "#hand#1"))
    world.put_hand("old", 1, legacy_blob({"hand": 0}, "old#hand#1"))
    assert key_version(world.item("t1")["blob"]["B"]) == 1
    assert key_version(world.item("old")["blob"]["B"]) == 0
    before = rotate.count_versions(world.dynamodb, tables, hands, sealer_a).versions
    assert before == {("state", 1): 2, ("state", 0): 1, ("fallback", 1): 1, ("hand", 1): 1,
                      ("hand", 0): 1}

    # -- rotate: version 2 becomes current
    assert rotate.add_version(world.secrets, world.arn) == 2
    stored = world.keyring()
    assert (stored["format"], stored["current"], sorted(stored["keys"])) == (
        bootstrap.KEYRING_FORMAT, 2, ["0", "1", "2"])
    assert stored["keys"]["1"] == stored["keys"]["0"] == GENERATED
    assert len(stored["keys"]["2"]) == 64 and stored["keys"]["2"] != GENERATED

    # A new container reads the version-1 blob (and the legacy one) and writes version 2.
    sealer_b, store_b = world.container()
    assert sealer_b.keyring.current == 2
    t1 = store_b.load("t1")
    assert t1.to_document() == record("t1").to_document()
    assert store_b.load("old").settings.name == "table old"
    store_b.save(bumped(t1), t1.version)
    assert key_version(world.item("t1")["blob"]["B"]) == 2
    # The old container meets a version-2 blob: it re-reads the keyring and opens it.
    assert store_a.load("t1").seq == 1 and sealer_a.keyring.current == 2

    # Retiring version 1 now is refused: blobs still name it, and containers may still use it.
    with pytest.raises(rotate.RotationError, match="still sealed with version 1"):
        rotate.retire_version(world.secrets, world.arn, 1, world.dynamodb, tables, hands,
                              settle_seconds=0)
    with pytest.raises(rotate.RotationError, match="wait"):
        rotate.retire_version(world.secrets, world.arn, 1, world.dynamodb, tables, hands)
    with pytest.raises(rotate.RotationError, match="current"):
        rotate.retire_version(world.secrets, world.arn, 2, world.dynamodb, tables, hands,
                              settle_seconds=0)

    # -- re-seal, while a player acts at t2 between the pass's read and its write
    update_item = world.dynamodb.update_item
    raced: list[int] = []

    def racing_update(**params: Any) -> Any:
        if params["Key"].get("table_id") == {"S": "t2"} and not raced:
            t2 = store_b.load("t2")
            store_b.save(bumped(t2), t2.version)  # seals with version 2, moves the version
            raced.append(t2.version + 1)
        return update_item(**params)

    world.dynamodb.update_item = racing_update
    try:
        report = rotate.reseal(world.dynamodb, Sealer(Keyring(2, sealer_b.keyring.masters)),
                               tables, hands)
    finally:
        world.dynamodb.update_item = update_item
    assert raced and report.conflicts == 1 and not report.skipped and not report.unreadable
    assert report.resealed == 3  # old (state and fallback), both hands; t1, t2 were rewritten
    assert report.of_version(0) == report.of_version(1) == 0
    assert report.versions == {("state", 2): 3, ("fallback", 2): 1, ("hand", 2): 2}
    t2 = store_b.load("t2")
    assert (t2.version, t2.seq) == (raced[0], 1)  # the player's write was not undone
    assert store_b.load("old").to_document() == record("old").to_document()
    assert store_b.load("t1").version == 2  # a re-seal does not move a table's version

    # -- retire versions 1 and 0: everything still opens, with version 2 alone
    for version in (1, 0):
        rotate.retire_version(world.secrets, world.arn, version, world.dynamodb, tables, hands,
                              settle_seconds=0)
    assert sorted(world.keyring()["keys"]) == ["2"]
    sealer_c, store_c = world.container()
    assert sealer_c.keyring.versions == (2,)
    for table_id in ("t1", "t2", "old"):
        assert store_c.load(table_id).settings.name == f"table {table_id}"
    assert sealer_c.open(world.item("old")["fallback"]["B"], "old", "#fallback") == {"fb": 1}
    assert sealer_c.open(world.hand_blob("t1", 1), "t1", "#hand#1") == {"hand": 1}
    assert sealer_c.open(world.hand_blob("old", 1), "old", "#hand#1") == {"hand": 0}
    # A stolen copy of the retired version opens nothing stored any more.
    retired = Sealer(Keyring(1, {1: bootstrap.state_key_from_secret(GENERATED)}))
    with pytest.raises(UnknownKeyVersion):
        retired.open(world.item("t1")["blob"]["B"], "t1")


def test_the_rotation_command_line(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    sealer, store = world.container()
    store.create(record("t1"))
    common = ["--secret-id", world.arn, "--region", REGION, "--stage", "test"]
    assert rotate.main([*common, "status"]) == 0
    out = capsys.readouterr().out
    assert "current version 1" in out and "state    v1: 1" in out and GENERATED not in out
    assert rotate.main([*common, "add"]) == 0
    assert "version 2 is current" in capsys.readouterr().out
    assert rotate.main([*common, "retire", "--version", "1", "--settle-seconds", "0"]) == 2
    assert "run reseal first" in capsys.readouterr().err
    assert rotate.main([*common, "reseal", "--settle-seconds", "0"]) == 0
    assert "state    v2: 1" in capsys.readouterr().out
    assert rotate.main([*common, "retire", "--version", "1", "--settle-seconds", "0"]) == 0
    assert "holds 0, 2" in capsys.readouterr().out
    assert rotate.main([*common, "status"]) == 0  # never prints key material
    out = capsys.readouterr().out
    assert "current version 2" in out and world.keyring()["keys"]["2"] not in out


def test_connect_binds_without_the_state_key(world: World,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15 item 9: $connect has CONNECTIONS_TABLE and no state key (template.yaml);
    it binds the player without building the service or reading the secret."""
    for name in ("STATE_KEY", "STATE_KEY_SECRET_ARN", "TABLES_TABLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CONNECTIONS_TABLE", world.names["ConnectionsTable"])

    def no_key(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("$connect loaded the state key")

    monkeypatch.setattr(bootstrap, "state_sealer", no_key)
    monkeypatch.setattr(sealing.Sealer, "__init__", no_key)
    connect = load_module("naiko_connect_app_no_key", ROOT / "functions/connect/app.py")
    event = json.loads((ROOT / "events/connect.json").read_text())
    context = type("Context", (), {"function_name": "naiko-test-connect",
                                   "memory_limit_in_mb": 512, "aws_request_id": "r1",
                                   "invoked_function_arn": "arn:aws:lambda:eu-west-1:1:f"})()
    bootstrap.reset()
    try:
        assert connect.lambda_handler(event, context) == {"statusCode": 200}
        item = world.dynamodb.get_item(
            TableName=world.names["ConnectionsTable"],
            Key={"connection_id": {"S": event["requestContext"]["connectionId"]}})["Item"]
        assert item["player_id"]["S"] == event["requestContext"]["authorizer"]["player_id"]
        assert bootstrap._service is None  # the table service was never built
        with pytest.raises(bootstrap.ConfigurationError):
            bootstrap.get_service()  # (it could not be: no key, no tables)
    finally:
        bootstrap.reset()
