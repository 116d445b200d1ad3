"""Rotate the key that seals table state: add a version, re-seal every stored blob with it,
retire the old versions (``docs/secrets.md`` is the procedure).

    python scripts/rotate_state_key.py --secret-id ARN status [--stage dev]
        the keyring's versions (never the keys) and, with --stage or the table options, how
        many stored blobs each version sealed
    python scripts/rotate_state_key.py --secret-id ARN add
        a new random key becomes the current version; the old ones keep opening what they
        sealed. Every container seals with the new one within REFRESH_SECONDS (5 minutes)
    python scripts/rotate_state_key.py --secret-id ARN reseal --stage dev
        re-seals every table item (state and fallback) and every hand record not sealed with
        the current version; safe while tables play: each write is conditioned on the item
        being unchanged (the table's version and blob), and an item that changed is read again
    python scripts/rotate_state_key.py --secret-id ARN retire --version 1 --stage dev
        removes a version from the keyring, refused while it is current, while any stored blob
        still names it, or before every container can have stopped sealing with it

``--stage S`` names the tables ``naiko-S-tables`` and ``naiko-S-hands`` (the template's names);
``--tables-table`` and ``--history-table`` name them explicitly. The caller needs
``secretsmanager:GetSecretValue`` and ``PutSecretValue`` on the secret, and ``dynamodb:Scan``,
``GetItem`` and ``UpdateItem`` on the two tables (an operator's role, not the functions').
Run one rotation at a time. Importable: :func:`add_version`, :func:`reseal`,
:func:`count_versions`, :func:`retire_version`, :func:`read_keyring`.
"""

from __future__ import annotations

import argparse
import json
import secrets
import string
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "layers" / "engine") not in sys.path:
    sys.path.append(str(ROOT / "layers" / "engine"))

from naiko_service.bootstrap import KEYRING_FORMAT, keyring_from_secret  # noqa: E402
from naiko_service.sealing import (  # noqa: E402
    LEGACY_VERSION,
    MAX_VERSION,
    REFRESH_SECONDS,
    Keyring,
    Sealer,
    key_version,
)

SETTLE_SECONDS = REFRESH_SECONDS + 60
"""How long after a version became current every container seals with it (a container
re-reads the keyring every :data:`~naiko_service.sealing.REFRESH_SECONDS`; a minute more for
an invocation that started just before)."""
MATERIAL_CHARS = 64
"""A new version's key material: 64 random letters and digits (~381 bits), like the secret
CloudFormation generates."""
HAND_PREFIX = "table#"
NAMES = {"#v": "version", "#b": "blob", "#f": "fallback"}
"""Attribute names in expressions (``blob`` is a DynamoDB reserved word)."""
ATTEMPTS = 5
"""Re-reads of an item that changed while it was re-sealed, before it is left for a rerun."""


class RotationError(RuntimeError):
    """The keyring or the stored blobs do not allow the step asked for."""


# -- the keyring secret ----------------------------------------------------------------------

def keyring_document(secret: str) -> dict[str, Any]:
    """The secret as a keyring document: a plain secret (what CloudFormation generated) is
    version 1 and the legacy version 0, as the functions read it
    (:func:`naiko_service.bootstrap.keyring_from_secret`)."""
    text = secret.strip()
    if text.startswith("{"):
        document: dict[str, Any] = json.loads(text)
        keyring_from_secret(text)  # refuse a malformed one before changing anything
        document.setdefault("current_since", 0)
        return document
    keyring_from_secret(text)
    return {"format": KEYRING_FORMAT, "current": 1, "current_since": 0,
            "keys": {str(LEGACY_VERSION): text, "1": text}}


def read_keyring(client: Any, secret_id: str) -> tuple[dict[str, Any], Keyring]:
    """The secret's keyring document and the keyring it gives."""
    text = client.get_secret_value(SecretId=secret_id)["SecretString"]
    document = keyring_document(text)
    return document, keyring_from_secret(json.dumps(document))


def _put(client: Any, secret_id: str, document: dict[str, Any]) -> Keyring:
    text = json.dumps(document, sort_keys=True)
    keyring = keyring_from_secret(text)  # never write what the functions could not read
    client.put_secret_value(SecretId=secret_id, SecretString=text)
    return keyring


def new_material() -> str:
    """Key material for a new version (:data:`MATERIAL_CHARS` letters and digits)."""
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(MATERIAL_CHARS))


def add_version(client: Any, secret_id: str, *, material: str | None = None,
                now: Callable[[], float] = time.time) -> int:
    """Add a key version and make it current. :returns: The new version.

    :raises RotationError: If the keyring holds the highest version already.
    """
    document, keyring = read_keyring(client, secret_id)
    version = max(keyring.versions) + 1
    if version > MAX_VERSION:
        raise RotationError(f"no version left after {MAX_VERSION}")
    document["keys"][str(version)] = material or new_material()
    document["current"] = version
    document["current_since"] = int(now())
    _put(client, secret_id, document)
    return version


def settled(document: dict[str, Any], settle_seconds: float, now: float) -> float:
    """Seconds still to wait before every container seals with the current version (0: none).
    """
    return max(0.0, float(document.get("current_since", 0)) + settle_seconds - now)


# -- the stored blobs --------------------------------------------------------------------------

@dataclass
class Report:
    """What :func:`reseal` did, and what :func:`count_versions` found."""

    versions: Counter[tuple[str, int]] = field(default_factory=Counter)
    """``(kind, key version) -> blobs``: kinds ``state``, ``fallback``, ``hand``; version -1:
    a blob that does not open (counted so only when the blobs were opened)."""
    resealed: int = 0
    conflicts: int = 0
    """Items that changed while being re-sealed (read again and re-sealed, or left current
    by the writer)."""
    unreadable: list[str] = field(default_factory=list)
    """Items whose blob does not open (left alone: R8.6 handles a table's)."""
    skipped: list[str] = field(default_factory=list)
    """Items still changing after :data:`ATTEMPTS` tries: run again."""

    def of_version(self, version: int) -> int:
        return sum(n for (_, v), n in self.versions.items() if v == version)


def _scan(client: Any, **params: Any) -> Iterator[dict[str, Any]]:
    while True:
        page = client.scan(**params)
        yield from page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            return
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _table_items(client: Any, tables_table: str) -> Iterator[dict[str, Any]]:
    return _scan(client, TableName=tables_table, ConsistentRead=True,
                 ProjectionExpression="table_id, #v, #b, #f",
                 ExpressionAttributeNames=NAMES)


def _hand_items(client: Any, history_table: str) -> Iterator[dict[str, Any]]:
    return _scan(client, TableName=history_table, ConsistentRead=True,
                 ProjectionExpression="pk, sk, #b",
                 ExpressionAttributeNames={"#b": "blob"},
                 FilterExpression="begins_with(pk, :t)",
                 ExpressionAttributeValues={":t": {"S": HAND_PREFIX}})


def _hand_of(item: dict[str, Any]) -> tuple[str, str]:
    """``(table_id, purpose)`` of a hand record item (``table#T`` / ``hand#<n>``)."""
    table_id = item["pk"]["S"][len(HAND_PREFIX):]
    number = int(item["sk"]["S"].split("#", 1)[1])
    return table_id, f"#hand#{number}"


def count_versions(client: Any, tables_table: str, history_table: str | None = None,
                   sealer: Sealer | None = None) -> Report:
    """How many stored blobs each key version sealed: from the blobs' headers, or, with
    *sealer*, from opening each one (a legacy blob whose nonce looks like a header, 1 in
    65,536, is then counted as what it is)."""
    report = Report()

    def version(blob: bytes, table_id: str, purpose: str) -> int:
        if sealer is None:
            return key_version(blob)
        try:
            return sealer.open_versioned(blob, table_id, purpose)[1]
        except Exception:
            return -1

    for item in _table_items(client, tables_table):
        table_id = item["table_id"]["S"]
        report.versions["state", version(item["blob"]["B"], table_id, "")] += 1
        if "fallback" in item:
            report.versions["fallback",
                            version(item["fallback"]["B"], table_id, "#fallback")] += 1
    if history_table:
        for item in _hand_items(client, history_table):
            report.versions["hand", version(item["blob"]["B"], *_hand_of(item))] += 1
    return report


def _resealed(sealer: Sealer, blob: bytes, table_id: str, purpose: str) -> bytes | None:
    """*blob* sealed again with the current version; ``None`` if it already is."""
    document, version = sealer.open_versioned(blob, table_id, purpose)
    if version == sealer.keyring.current:
        return None
    return sealer.seal(document, table_id, purpose)


def _reseal_table(client: Any, tables_table: str, sealer: Sealer, item: dict[str, Any],
                  report: Report) -> None:
    from botocore.exceptions import ClientError

    table_id = item["table_id"]["S"]
    for _ in range(ATTEMPTS):
        try:
            blob = _resealed(sealer, item["blob"]["B"], table_id, "")
            fallback = (_resealed(sealer, item["fallback"]["B"], table_id, "#fallback")
                        if "fallback" in item else None)
        except Exception as error:  # a damaged blob: never rewrite it
            report.unreadable.append(f"{table_id}: {type(error).__name__}")
            return
        if blob is None and fallback is None:
            return
        sets, values = [], {":v": item["version"], ":old": item["blob"]}
        if blob is not None:
            sets.append("#b = :blob")
            values[":blob"] = {"B": blob}
        if fallback is not None:
            sets.append("#f = :fallback")
            values[":fallback"] = {"B": fallback}
        condition = "#v = :v AND #b = :old"
        names = {"#v": "version", "#b": "blob"}
        if "fallback" in item:
            condition += " AND #f = :oldfb"
            values[":oldfb"] = item["fallback"]
            names["#f"] = "fallback"
        try:
            # The table's version is not moved: nothing a player sees changes, and a writer
            # that read the item before still writes its own (newer) state after this.
            client.update_item(TableName=tables_table, Key={"table_id": {"S": table_id}},
                               UpdateExpression="SET " + ", ".join(sets),
                               ConditionExpression=condition,
                               ExpressionAttributeNames=names,
                               ExpressionAttributeValues=values)
            report.resealed += 1
            return
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
        report.conflicts += 1
        fresh = client.get_item(TableName=tables_table, Key={"table_id": {"S": table_id}},
                                ConsistentRead=True).get("Item")
        if fresh is None:  # gone meanwhile
            return
        item = fresh
    report.skipped.append(table_id)


def _reseal_hand(client: Any, history_table: str, sealer: Sealer, item: dict[str, Any],
                 report: Report) -> None:
    from botocore.exceptions import ClientError

    table_id, purpose = _hand_of(item)
    try:
        blob = _resealed(sealer, item["blob"]["B"], table_id, purpose)
    except Exception as error:
        report.unreadable.append(f"{item['pk']['S']}/{item['sk']['S']}: {type(error).__name__}")
        return
    if blob is None:
        return
    try:
        client.update_item(TableName=history_table, Key={"pk": item["pk"], "sk": item["sk"]},
                           UpdateExpression="SET #b = :blob",
                           ConditionExpression="#b = :old",
                           ExpressionAttributeNames={"#b": "blob"},
                           ExpressionAttributeValues={":blob": {"B": blob},
                                                      ":old": item["blob"]})
        report.resealed += 1
    except ClientError as error:  # a hand's record is written once: only a rerun changes it
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        report.conflicts += 1


def reseal(client: Any, sealer: Sealer, tables_table: str,
           history_table: str | None = None) -> Report:
    """Seal every stored blob not sealed with the keyring's current version again with it.

    Each table item is one ``UpdateItem`` of ``blob`` (and ``fallback``), conditioned on the
    item's ``version`` and blobs being those read; the table's version is not moved. A
    condition that fails (a player acted meanwhile) reads the item again. Hand records (never
    rewritten by the service) are conditioned on their blob. :returns: What was done and what
    is stored now (:attr:`Report.versions`).
    """
    report = Report()
    for item in _table_items(client, tables_table):
        _reseal_table(client, tables_table, sealer, item, report)
    if history_table:
        for item in _hand_items(client, history_table):
            _reseal_hand(client, history_table, sealer, item, report)
    report.versions = count_versions(client, tables_table, history_table, sealer).versions
    return report


def retire_version(secrets_client: Any, secret_id: str, version: int, dynamodb: Any,
                   tables_table: str, history_table: str | None = None, *,
                   settle_seconds: float = SETTLE_SECONDS,
                   now: Callable[[], float] = time.time) -> Keyring:
    """Remove *version* from the keyring. :returns: The keyring now stored.

    :raises RotationError: If it is the current version or unknown, if containers may still
        seal with it (:data:`SETTLE_SECONDS` after the current version was added), or if a
        stored blob still names it (re-seal first).
    """
    document, keyring = read_keyring(secrets_client, secret_id)
    if version == keyring.current:
        raise RotationError(f"version {version} is the current one: add a version first")
    if version not in keyring.masters:
        raise RotationError(f"the keyring holds no version {version} "
                            f"(it holds {', '.join(map(str, keyring.versions))})")
    wait = settled(document, settle_seconds, now())
    if wait > 0:
        raise RotationError(f"containers may still seal with version {version}: wait "
                            f"{wait:.0f} s, re-seal, then retire")
    left = count_versions(dynamodb, tables_table, history_table,
                          Sealer(keyring)).of_version(version)
    if left:
        raise RotationError(f"{left} stored blob(s) still sealed with version {version}: "
                            "run reseal first")
    del document["keys"][str(version)]
    return _put(secrets_client, secret_id, document)


# -- command line ------------------------------------------------------------------------------

def _print_versions(report: Report) -> None:
    for (kind, version), count in sorted(report.versions.items()):
        print(f"  {kind:<8} v{version}: {count}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secret-id", required=True, help="the StateKeySecretArn output")
    parser.add_argument("--region", help="AWS region (default: the environment's)")
    parser.add_argument("--stage", help="names the tables naiko-STAGE-tables and -hands")
    parser.add_argument("--tables-table", help="the TablesTableName output")
    parser.add_argument("--history-table", help="the HandHistoryTableName output")
    parser.add_argument("--settle-seconds", type=float, default=SETTLE_SECONDS,
                        help=f"wait after add before reseal/retire (default {SETTLE_SECONDS:.0f})")
    parser.add_argument("command", choices=["status", "add", "reseal", "retire"])
    parser.add_argument("--version", type=int, help="retire: the version to remove")
    args = parser.parse_args(argv)

    import boto3

    secrets_client = boto3.client("secretsmanager", region_name=args.region)
    dynamodb = boto3.client("dynamodb", region_name=args.region)
    tables = args.tables_table or (f"naiko-{args.stage}-tables" if args.stage else None)
    hands = args.history_table or (f"naiko-{args.stage}-hands" if args.stage else None)
    try:
        if args.command == "add":
            print(f"version {add_version(secrets_client, args.secret_id)} is current; every "
                  f"container seals with it within {REFRESH_SECONDS:.0f} s")
            return 0
        document, keyring = read_keyring(secrets_client, args.secret_id)
        if args.command == "status":
            print(f"current version {keyring.current} (since {document['current_since']}), "
                  f"versions {', '.join(map(str, keyring.versions))}")
            if tables:
                _print_versions(count_versions(dynamodb, tables, hands, Sealer(keyring)))
            return 0
        if tables is None:
            parser.error(f"{args.command} needs --stage or --tables-table")
        if args.command == "reseal":
            wait = settled(document, args.settle_seconds, time.time())
            if wait > 0:
                print(f"waiting {wait:.0f} s until every container seals with version "
                      f"{keyring.current}", flush=True)
                time.sleep(wait)
            report = reseal(dynamodb, Sealer(keyring), tables, hands)
            print(f"re-sealed {report.resealed} item(s), {report.conflicts} changed meanwhile; "
                  f"unreadable {len(report.unreadable)}, to retry {len(report.skipped)}")
            _print_versions(report)
            for name in report.unreadable + report.skipped:
                print(f"  ! {name}")
            return 0 if not report.skipped else 1
        if args.version is None:
            parser.error("retire needs --version")
        kept = retire_version(secrets_client, args.secret_id, args.version, dynamodb, tables,
                              hands, settle_seconds=args.settle_seconds)
        print(f"version {args.version} retired; the keyring holds "
              f"{', '.join(map(str, kept.versions))}")
        return 0
    except RotationError as error:
        print(f"rotate_state_key: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
