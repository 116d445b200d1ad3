"""Issue 15, item 12: redeploying a stage after ``sam delete``. The tables and the state-key
secret are kept (``DeletionPolicy: Retain``) and named by stage, so CloudFormation refuses to
create them again; ``scripts/restore_plan.py`` finds what was kept and writes the import that
adopts it, the same secret included (a new one could not open the tables). On moto."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template, load_template
from moto import mock_aws

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def restore() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_restore_plan",
                                                  ROOT / "scripts" / "restore_plan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield


def keep_secret(stage: str) -> str:
    """A secret as the stack's StateKeySecret left it (its description names the stage)."""
    props = load_template()["Resources"]["StateKeySecret"]["Properties"]
    description = props["Description"].replace("${Stage}", stage)
    return str(boto3.client("secretsmanager", region_name=REGION).create_secret(
        Name=f"StateKeySecret-{stage}-x1", Description=description,
        SecretString="k" * 64)["ARN"])


def test_nothing_kept_means_a_plain_deploy(restore: ModuleType, aws: None, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert restore.main(["--stage", "dev", "--out", str(tmp_path)]) == 0
    assert "plain `sam deploy` works" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_kept_tables_and_secret_are_imported_unchanged(
        restore: ModuleType, aws: None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION), "dev")
    keep_secret("other")  # another stage's secret is not taken, nor one merely described alike
    props = load_template()["Resources"]["StateKeySecret"]["Properties"]
    boto3.client("secretsmanager", region_name=REGION).create_secret(
        Name="lookalike", SecretString="x" * 64,
        Description=props["Description"].replace("${Stage}", "dev") + " (a copy)")
    arn = keep_secret("dev")
    assert restore.main(["--stage", "dev", "--out", str(tmp_path)]) == 0
    to_import = json.loads((tmp_path / "resources-to-import.json").read_text())
    identifiers = {r["LogicalResourceId"]: r["ResourceIdentifier"] for r in to_import}
    assert identifiers == {**{logical: {"TableName": table} for logical, table in names.items()},
                           "StateKeySecret": {"Id": arn}}
    template = load_template()
    imported: dict[str, Any] = json.loads((tmp_path / "import-template.json").read_text())
    assert imported["Resources"] == {n: template["Resources"][n] for n in identifiers}
    assert all(r["DeletionPolicy"] == "Retain" for r in imported["Resources"].values())
    assert "Transform" not in imported and imported["Parameters"] == template["Parameters"]
    out = capsys.readouterr().out
    assert "--change-set-type IMPORT" in out and "sam deploy --stack-name naiko-dev" in out


def test_tables_without_their_secret_are_refused(restore: ModuleType, aws: None,
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    create_tables_from_template(boto3.client("dynamodb", region_name=REGION), "dev")
    assert restore.main(["--stage", "dev", "--out", str(tmp_path)]) == 2
    assert "new secret cannot open them" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_two_secrets_of_the_stage_are_refused(restore: ModuleType, aws: None,
                                              tmp_path: Path) -> None:
    create_tables_from_template(boto3.client("dynamodb", region_name=REGION), "dev")
    keep_secret("dev")
    props = load_template()["Resources"]["StateKeySecret"]["Properties"]
    boto3.client("secretsmanager", region_name=REGION).create_secret(
        Name="StateKeySecret-dev-x2", Description=props["Description"].replace("${Stage}", "dev"),
        SecretString="j" * 64)
    assert restore.main(["--stage", "dev", "--out", str(tmp_path)]) == 2
