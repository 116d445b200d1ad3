"""Ops: check that no chip was created or lost, on a deployment (or the local stack).

    python scripts/ledger_check.py --stage dev --state-key-secret-arn arn:aws:secretsmanager:...
    python scripts/ledger_check.py --stage local --state-key <base64>   # with AWS_ENDPOINT_URL

Prints ``granted = accounts + tables + tournaments`` over every account, ledger entry, cash table
and tournament (``naiko_service.ledger.audit_dynamodb``) and every account whose balance is not
the sum of its ledger entries; exits 1 when the identity does not hold. It reads whole tables
(Scan): an ops check, run off-peak, never on a player's path.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

from naiko_service.bootstrap import ConfigurationError, keyring_from_secret  # noqa: E402
from naiko_service.ledger import audit_dynamodb  # noqa: E402
from naiko_service.records import Sealer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the chip ledger identity.")
    parser.add_argument("--stage", default=os.environ.get("STAGE", "dev"),
                        help="names the tables naiko-<stage>-accounts, -ledger, -tables")
    parser.add_argument("--state-key", default=os.environ.get("STATE_KEY"),
                        help="base64 of the 32-byte table-state key, or a keyring JSON "
                             "(local/dev)")
    parser.add_argument("--state-key-secret-arn", default=os.environ.get("STATE_KEY_SECRET_ARN"))
    parser.add_argument("--region", default=os.environ.get("AWS_REGION")
                        or os.environ.get("AWS_DEFAULT_REGION"))
    args = parser.parse_args(argv)
    import boto3

    # Every key version of the keyring (docs/secrets.md): tables sealed before and after a
    # rotation open alike.
    if args.state_key:
        try:
            key = keyring_from_secret(args.state_key, plain="base64")
        except ConfigurationError as error:
            parser.error(str(error))
    elif args.state_key_secret_arn:
        secret = boto3.client("secretsmanager", region_name=args.region).get_secret_value(
            SecretId=args.state_key_secret_arn)["SecretString"]
        try:
            key = keyring_from_secret(secret)
        except ConfigurationError as error:
            parser.error(str(error))
    else:
        parser.error("give --state-key or --state-key-secret-arn (tables are sealed)")
    client = boto3.client("dynamodb", region_name=args.region)
    prefix = f"naiko-{args.stage}-"
    result = audit_dynamodb(client, prefix + "accounts", prefix + "ledger", prefix + "tables",
                            Sealer(key), prefix + "tournaments")
    print(result.line())
    return 0 if result.holds else 1


if __name__ == "__main__":
    raise SystemExit(main())
