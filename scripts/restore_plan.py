#!/usr/bin/env python3
"""Redeploying a stage whose stack was deleted: what `sam delete` kept, and the CloudFormation
*import* that adopts it into the new stack (``docs/deploy.md``, "Teardown, redeploy and
restore").

    python scripts/restore_plan.py --stage dev [--region eu-west-1] [--out restore/]

It looks for the resources ``template.yaml`` retains on deletion that an import can adopt (the
DynamoDB tables ``naiko-<stage>-...`` and the stage's ``StateKeySecret``, found by its
description) and writes, when some exist:

- ``import-template.json``: the template's ``Parameters`` and only those resources, unchanged
  (an import creates nothing else);
- ``resources-to-import.json``: what each of them is (table name, secret ARN);

then prints the two ``aws cloudformation`` commands and the ``sam deploy`` that follows. It
refuses (exit status 2) when tables were kept but no secret, or several secrets, match: the
tables cannot be opened without the secret that sealed them. Nothing kept: a plain
``sam deploy`` works (exit status 0, nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "local")]

from naiko_local.template import load_template  # noqa: E402

IMPORTABLE = ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret")


class RefusedError(RuntimeError):
    """The kept resources cannot be restored as they are (said why)."""


def kept_resources(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The template's resources retained on deletion that an import can adopt."""
    return {name: resource for name, resource in template["Resources"].items()
            if resource.get("DeletionPolicy") == "Retain" and resource["Type"] in IMPORTABLE}


def _stage_text(value: Any, stage: str) -> str:
    text = value["Fn::Sub"] if isinstance(value, dict) else value
    return str(text).replace("${Stage}", stage)


def find(template: dict[str, Any], stage: str, dynamodb: Any,
         secrets: Any) -> dict[str, dict[str, str]]:
    """Logical id -> CloudFormation import identifier of every kept resource that exists.

    :raises RefusedError: Tables exist without exactly one secret of the stage.
    """
    found: dict[str, dict[str, str]] = {}
    secret_ids: list[str] = []
    for name, resource in kept_resources(template).items():
        props = resource["Properties"]
        if resource["Type"] == "AWS::DynamoDB::Table":
            table = _stage_text(props["TableName"], stage)
            try:
                dynamodb.describe_table(TableName=table)
            except dynamodb.exceptions.ResourceNotFoundException:
                continue
            found[name] = {"TableName": table}
        else:
            description = _stage_text(props["Description"], stage)
            pages = secrets.get_paginator("list_secrets").paginate(
                Filters=[{"Key": "description", "Values": [description]}])
            arns = [s["ARN"] for page in pages for s in page["SecretList"]
                    if s.get("Description") == description and not s.get("DeletedDate")]
            if len(arns) > 1:
                raise RefusedError(f"{len(arns)} secrets are described {description!r}: "
                                   f"import the one that sealed the tables by hand ({arns})")
            if arns:
                found[name] = {"Id": arns[0]}
                secret_ids = arns
    if any(template["Resources"][n]["Type"] == "AWS::DynamoDB::Table" for n in found) \
            and not secret_ids:
        raise RefusedError("tables were kept but no state-key secret of this stage exists: a "
                           "new secret cannot open them. Restore the old one first (aws "
                           "secretsmanager restore-secret, within its recovery window)")
    return found


def plan(template: dict[str, Any], found: dict[str, dict[str, str]]
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The import template and the resources to import."""
    resources = {name: template["Resources"][name] for name in found}
    import_template = {"AWSTemplateFormatVersion": "2010-09-09",
                       "Description": "Naiko: the resources kept by a deleted stack, imported",
                       "Parameters": template["Parameters"], "Resources": resources}
    to_import = [{"ResourceType": resources[name]["Type"], "LogicalResourceId": name,
                  "ResourceIdentifier": identifier} for name, identifier in found.items()]
    return import_template, to_import


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", required=True)
    parser.add_argument("--region", default=None)
    parser.add_argument("--stack-name", default=None, help="default: naiko-<stage>")
    parser.add_argument("--out", type=Path, default=Path("restore"))
    args = parser.parse_args(argv)
    import boto3

    template = load_template()
    try:
        found = find(template, args.stage, boto3.client("dynamodb", region_name=args.region),
                     boto3.client("secretsmanager", region_name=args.region))
    except RefusedError as refused:
        print(f"refused: {refused}", file=sys.stderr)
        return 2
    if not found:
        print(f"nothing of stage {args.stage!r} was kept: a plain `sam deploy` works")
        return 0
    import_template, to_import = plan(template, found)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "import-template.json").write_text(json.dumps(import_template, indent=1))
    (args.out / "resources-to-import.json").write_text(json.dumps(to_import, indent=1))
    stack = args.stack_name or f"naiko-{args.stage}"
    print(f"kept: {', '.join(sorted(found))}\nwrote {args.out}/import-template.json and "
          f"{args.out}/resources-to-import.json; then:\n"
          f"  aws cloudformation create-change-set --stack-name {stack} --change-set-name "
          f"restore --change-set-type IMPORT --template-body "
          f"file://{args.out}/import-template.json --resources-to-import "
          f"file://{args.out}/resources-to-import.json --parameters "
          f"ParameterKey=Stage,ParameterValue={args.stage} "
          f"ParameterKey=AuthPublicKey,ParameterValue=<key> "
          f"ParameterKey=AlarmEmail,ParameterValue=<address or none>\n"
          f"  aws cloudformation execute-change-set --stack-name {stack} --change-set-name "
          f"restore\n"
          f"  sam deploy --stack-name {stack}   # everything else, on the same secret")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
