#!/usr/bin/env python3
"""Ops: what an operator does to an account after an integrity review (issue 27, R10.3).

    python scripts/operator.py --operator alice freeze bob --reason "flag 12: dumping to carol"
    python scripts/operator.py --operator alice unfreeze bob --reason "reviewed: cooler streak"
    python scripts/operator.py --operator alice reverse --from carol --to bob --amount 1500 \\
        --id flag-12 --reason "chips dumped in hands t1#4, t1#9"
    python scripts/operator.py log [--limit 20] [--cursor NEXT] [--json]

Tables from ``--table``/``$ACCOUNTS_TABLE`` and ``--ledger-table``/``$LEDGER_TABLE`` (the
operator log is the ledger table's ``ops:log`` partition); the standard AWS credential chain
(and ``AWS_ENDPOINT_URL`` for the local stack's moto). It calls
:mod:`naiko_service.usecases.accounts`, never a player's route: who may run it is who holds
AWS credentials that write those tables. ``--operator`` (or ``$NAIKO_OPERATOR``) is written in
the log entry of every action. A reversal happens once per ``--id``: running it again prints the
first one. Exit 0 done, 1 refused (nothing written), 2 bad arguments. See docs/integrity.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

from naiko_service.pages import BadCursor  # noqa: E402
from naiko_service.ports import AccountsAdmin, OperatorAction  # noqa: E402
from naiko_service.usecases import accounts  # noqa: E402


def describe(action: OperatorAction) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(action.at_ms / 1000))
    what = action.action
    if action.action == "reverse":
        what = (f"reverse {action.details.get('amount')} chips {action.player_id} -> "
                f"{action.details.get('to')} (id {action.action_id})")
    else:
        what = f"{action.action} {action.player_id}"
    return f"{when} UTC  {action.operator}: {what}: {action.reason}"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        description="Freeze, unfreeze, reverse; read the operator log.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="each command's options (COMMAND --help says more):\n"
               "  freeze PLAYER --reason TEXT\n"
               "  unfreeze PLAYER --reason TEXT\n"
               "  reverse --from TAKER --to GIVER --amount N --id REVERSAL_ID --reason TEXT\n"
               "  log [--limit N] [--cursor NEXT] [--json]")
    top.add_argument("--operator", default=os.environ.get("NAIKO_OPERATOR"),
                     help="who acts (written in the log; default $NAIKO_OPERATOR)")
    top.add_argument("--table", default=os.environ.get("ACCOUNTS_TABLE"),
                     help="the accounts table (default: $ACCOUNTS_TABLE)")
    top.add_argument("--ledger-table", default=os.environ.get("LEDGER_TABLE"),
                     help="the ledger table, which holds the operator log (default: "
                          "$LEDGER_TABLE)")
    top.add_argument("--region", default=os.environ.get("AWS_REGION")
                     or os.environ.get("AWS_DEFAULT_REGION"))
    commands = top.add_subparsers(dest="command", required=True)
    for name, text in (("freeze", "freeze an account"), ("unfreeze", "unfreeze an account")):
        command = commands.add_parser(name, help=text)
        command.add_argument("player_id")
        command.add_argument("--reason", required=True)
    reverse = commands.add_parser("reverse", help="move flagged chips back through the ledger")
    reverse.add_argument("--from", dest="source", required=True,
                         help="the account that took the chips")
    reverse.add_argument("--to", dest="target", required=True,
                         help="the account they go back to")
    reverse.add_argument("--amount", type=int, required=True)
    reverse.add_argument("--id", dest="reversal_id", required=True,
                         help="the reversal id (e.g. the flag's ticket): it happens once")
    reverse.add_argument("--reason", required=True)
    log = commands.add_parser("log", help="the operator log, newest first")
    log.add_argument("--limit", type=int, default=20)
    log.add_argument("--cursor", default=None, help="the 'next' a page printed")
    log.add_argument("--json", action="store_true", help="one action per line as JSON")
    return top


def run(admin: AccountsAdmin, args: argparse.Namespace, now_ms: int) -> int:
    """The command *args* on *admin* (an :class:`~naiko_service.ports.AccountsAdmin`)."""
    try:
        if args.command == "log":
            actions, after = accounts.operator_log(admin, args.limit, args.cursor)
            for action in actions:
                print(json.dumps(action.to_dict(), sort_keys=True) if args.json
                      else describe(action))
            if after is not None:
                print(json.dumps({"next": after}) if args.json else f"next: {after}")
            return 0
        if not args.operator:
            print("name the operator with --operator or $NAIKO_OPERATOR", file=sys.stderr)
            return 2
        if args.command in ("freeze", "unfreeze"):
            act = accounts.freeze if args.command == "freeze" else accounts.unfreeze
            print(describe(act(admin, args.operator, args.player_id, args.reason, now_ms)))
            return 0
        action, done = accounts.reverse(admin, args.operator, args.source, args.target,
                                        args.amount, args.reason, args.reversal_id, now_ms)
        print(("" if done else "reversed already: ") + describe(action))
        return 0
    except accounts.OperatorError as refused:
        print(f"refused ({refused.code}): {refused}", file=sys.stderr)
        return 1
    except BadCursor as bad:
        print(f"refused (bad_cursor): {bad}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None, client: Any = None) -> int:
    args = parser().parse_args(argv)
    if not args.table or not args.ledger_table:
        print("name the accounts and ledger tables (--table, --ledger-table or "
              "$ACCOUNTS_TABLE, $LEDGER_TABLE)", file=sys.stderr)
        return 2
    if client is None:
        import boto3

        client = boto3.client("dynamodb", region_name=args.region)
    from naiko_service.aws.dynamodb import DynamoAccounts

    admin = DynamoAccounts(client, args.table, ledger_table=args.ledger_table)
    # the structured logger's line of each action, on stderr (accounts.log_action)
    log = logging.getLogger("naiko_service.operator")
    log.setLevel(logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    log.addHandler(handler)
    try:
        return run(admin, args, time.time_ns() // 1_000_000)
    finally:
        log.removeHandler(handler)


if __name__ == "__main__":
    raise SystemExit(main())
