"""The ops script that grants virtual chips (issue 4: accounts), on moto."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws

ROOT = Path(__file__).resolve().parents[2]


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("grant_chips", ROOT / "scripts/grant_chips.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_grant_adds_chips_atomically_and_refuses_bad_amounts(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    script = load_script()
    with mock_aws():
        names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION))
        table = names["AccountsTable"]
        ledger = ["--ledger-table", names["LedgerTable"]]
        assert script.main(["alice", "500", "--table", table, "--region", REGION, *ledger]) == 0
        assert script.main(["alice", "250", "--table", table, "--region", REGION, *ledger,
                            "--ref", "ticket-42"]) == 0
        assert "balance 750" in capsys.readouterr().out
        entries = boto3.client("dynamodb", region_name=REGION).scan(
            TableName=names["LedgerTable"])["Items"]
        assert sorted((e["account"]["S"], int(e["amount"]["N"]), e["reason"]["S"], e["ref"]["S"])
                      for e in entries) == [("alice", 250, "grant", "ticket-42"),
                                            ("alice", 500, "grant", "ops:grant_chips")]
        assert script.main(["alice", "--balance", "--table", table, "--region", REGION]) == 0
        assert capsys.readouterr().out.strip() == "750"
        with pytest.raises(SystemExit):
            script.main(["alice", "-5", "--table", table, "--region", REGION, *ledger])
        with pytest.raises(SystemExit):  # no ledger table named: no chips without an entry
            script.main(["alice", "5", "--table", table, "--region", REGION])
        with pytest.raises(SystemExit):
            script.main(["alice", "5"])  # no table named
