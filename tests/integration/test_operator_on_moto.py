"""Issue 27 item 3 on DynamoDB (moto): ``scripts/operator.py`` freezes an account (the account
item's ``frozen``, refused by the buy-in's own conditional transaction: ``account_frozen``
through the real handlers), reverses a transfer through the ledger (once per id, never below
zero) and reads the operator log back; the ledger identity still holds."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from aws_testing import REGION
from naiko_service.aws.dynamodb import DynamoAccounts, DynamoTableStore
from naiko_service.ledger import audit_dynamodb
from naiko_service.ports import AccountFrozen, AccountMove
from naiko_service.records import Sealer
from test_handlers_on_moto import Session, aws  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parents[2]


def operator_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_operator_moto", ROOT
                                                  / "scripts" / "operator.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_r10_3_issue_27_operators_freeze_reverse_and_read_the_log_on_dynamodb(
        aws: tuple[Session, dict[str, str], Any],  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    session, names, _ = aws
    client = boto3.client("dynamodb", region_name=REGION)
    accounts = DynamoAccounts(client, names["AccountsTable"], ledger_table=names["LedgerTable"])
    script = operator_script()
    tables = ["--table", names["AccountsTable"], "--ledger-table", names["LedgerTable"],
              "--region", REGION, "--operator", "olga"]

    def run(*argv: str) -> int:
        return int(script.main([*tables, *argv], client=client))

    for player in ("ann", "bob", "carol"):
        accounts.grant(player, 10_000, ref="test")
    ann, bob = session.connect("ann"), session.connect("bob")
    table_id = session.send(ann, action="create_table", name="ops", variant="NLHE",
                            small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400)["table_id"]
    assert session.send(ann, action="join_table", table_id=table_id,
                        buy_in=200)["type"] in ("ack", "update")

    assert run("freeze", "bob", "--reason", "flag 3: dumping to carol") == 0
    assert accounts.is_frozen("bob")
    refused = session.send(bob, action="join_table", table_id=table_id, buy_in=200)
    assert refused["code"] == "account_frozen"
    assert session.send(bob, action="quick_seat", variant="NLHE", small_blind=1, big_blind=2,
                        buy_in=100)["code"] == "account_frozen"
    assert accounts.balance("bob") == 10_000
    with pytest.raises(AccountFrozen):
        accounts.grant("bob", 5)
    store = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                             Sealer(bytes(range(32))))
    record = store.load(table_id)
    new = record.copy()
    new.version = record.version + 1
    with pytest.raises(AccountFrozen):  # the adapter's own condition, whatever the caller
        store.save(new, record.version, (AccountMove("bob", 100, table_id),))
    with pytest.raises(AccountFrozen):  # queueing moves no chip: refused all the same
        store.save(new, record.version, (AccountMove("bob", 0, table_id, waitlist=True),))
    assert store.load(table_id).version == record.version
    assert run("freeze", "bob", "--reason", "again") == 1
    assert run("freeze", "nobody", "--reason", "x") == 1

    assert run("reverse", "--from", "carol", "--to", "bob", "--amount", "2500", "--id",
               "flag-3", "--reason", "chips dumped in 14 hands") == 0
    assert run("reverse", "--from", "carol", "--to", "bob", "--amount", "2500", "--id",
               "flag-3", "--reason", "a retry") == 0  # once per id
    assert run("reverse", "--from", "carol", "--to", "bob", "--amount", "7501", "--id",
               "flag-4", "--reason", "more than it holds") == 1
    assert (accounts.balance("carol"), accounts.balance("bob")) == (7_500, 12_500)
    assert run("unfreeze", "bob", "--reason", "reviewed") == 0
    assert session.send(bob, action="join_table", table_id=table_id,
                        buy_in=200)["type"] in ("ack", "update")
    out = capsys.readouterr()
    assert "reversed already: " in out.out
    assert "refused (already_frozen)" in out.err and "refused (unknown_account)" in out.err
    assert "refused (insufficient_funds)" in out.err
    assert '"operator": "olga"' in out.err  # the structured logger's lines

    assert run("log", "--json", "--limit", "2") == 0
    page = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x.get("action"), x.get("player_id")) for x in page[:2]] == [
        ("unfreeze", "bob"), ("reverse", "carol")]
    assert page[1]["details"] == {"amount": 2500, "to": "bob"}
    assert run("log", "--json", "--cursor", page[2]["next"]) == 0
    rest = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x["operator"], x["action"]) for x in rest] == [("olga", "freeze")]

    result = audit_dynamodb(client, names["AccountsTable"], names["LedgerTable"],
                            names["TablesTable"], Sealer(bytes(range(32))))
    assert result.holds, result.line()
