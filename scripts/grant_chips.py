"""Ops: grant virtual chips to a player's account (nothing here has real value, R7.6).

    python scripts/grant_chips.py alice 5000          # tables from $ACCOUNTS_TABLE, $LEDGER_TABLE
    python scripts/grant_chips.py alice 5000 --table naiko-dev-accounts \
        --ledger-table naiko-dev-ledger --region eu-west-1
    python scripts/grant_chips.py alice --balance             # just show the balance

It is one transaction (``DynamoAccounts.grant``): an atomic ``ADD`` on the account item and its
``grant`` ledger entry (the only way chips enter the system; ``scripts/ledger_check.py`` sums
them), so it is safe while the player is sitting at tables: buy-ins are transactions
conditioned on the balance. Uses the
standard AWS credential chain (and ``AWS_ENDPOINT_URL`` for the local stack's moto).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

from naiko_service.aws.dynamodb import DynamoAccounts  # noqa: E402

MAX_GRANT = 10**9


def grant(client: Any, table: str, player_id: str, amount: int, ledger_table: str,
          ref: str = "ops:grant_chips") -> int:
    """Add *amount* chips to *player_id*'s account with its ledger entry; return the new
    balance."""
    if not 0 < amount <= MAX_GRANT:
        raise ValueError(f"the amount must be between 1 and {MAX_GRANT}")
    return DynamoAccounts(client, table, ledger_table=ledger_table).grant(player_id, amount,
                                                                        ref=ref)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Grant virtual chips to a player's account.")
    parser.add_argument("player_id")
    parser.add_argument("amount", type=int, nargs="?")
    parser.add_argument("--balance", action="store_true", help="only print the balance")
    parser.add_argument("--table", default=os.environ.get("ACCOUNTS_TABLE"),
                        help="the accounts table (default: $ACCOUNTS_TABLE)")
    parser.add_argument("--ledger-table", default=os.environ.get("LEDGER_TABLE"),
                        help="the ledger table (default: $LEDGER_TABLE)")
    parser.add_argument("--ref", default="ops:grant_chips",
                        help="the reference written in the ledger entry (a ticket, a campaign)")
    parser.add_argument("--region", default=os.environ.get("AWS_REGION")
                        or os.environ.get("AWS_DEFAULT_REGION"))
    args = parser.parse_args(argv)
    if not args.table:
        parser.error("name the accounts table with --table or $ACCOUNTS_TABLE")
    import boto3

    client = boto3.client("dynamodb", region_name=args.region)
    if args.balance or args.amount is None:
        print(DynamoAccounts(client, args.table).balance(args.player_id))
        return 0
    if not args.ledger_table:
        parser.error("name the ledger table with --ledger-table or $LEDGER_TABLE")
    try:
        balance = grant(client, args.table, args.player_id, args.amount, args.ledger_table,
                        args.ref)
    except ValueError as error:
        parser.error(str(error))
    print(f"{args.player_id}: +{args.amount} chips, balance {balance}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
