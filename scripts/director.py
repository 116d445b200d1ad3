#!/usr/bin/env python3
"""Ops: the tournament director's tools (issue 26 item 5, R9.15).

    python scripts/director.py --operator olga pause TOURNAMENT --reason "server maintenance"
    python scripts/director.py --operator olga resume TOURNAMENT --reason "maintenance over"
    python scripts/director.py --operator olga add-minute TOURNAMENT [--minutes 2] --reason "..."
    python scripts/director.py --operator olga move TOURNAMENT PLAYER --from 3 --to 1 \\
        --reason "seat by the rail"
    python scripts/director.py --operator olga cancel TOURNAMENT --reason "the venue closed"

Tables, timers and the WebSocket endpoint from the game function's environment variables (as
``naiko-tournament export`` reads them: :func:`naiko_service.bootstrap.get_service`, which
``Config.from_env`` documents), the standard AWS credential
chain (and ``AWS_ENDPOINT_URL`` for the local stack's moto). It calls
:mod:`naiko_service.usecases.director`, never a player's route: who may run it is who holds AWS
credentials that write those tables, as for ``scripts/operator.py`` (R10.3). ``--operator`` (or
``$NAIKO_OPERATOR``) is written in the operator log (``operator.py log`` reads it) and the
tournament log's ``director`` entry of every action. ``--from``/``--to`` take a table's number
or id. Every kind of tournament: a Sit & Go or a Spin (one table) has every tool but ``move``
(refused ``single_table``). Exit 0 done, 1 refused (nothing written; the stable code is
printed), 2 bad arguments. See docs/tournaments.md ("The director's tools").
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

from naiko_service.ports import OperatorAction  # noqa: E402
from naiko_service.usecases import director  # noqa: E402
from naiko_service.usecases.accounts import OperatorError  # noqa: E402


def describe(action: OperatorAction) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(action.at_ms / 1000))
    details = " ".join(f"{k}={v}" for k, v in sorted(action.details.items()))
    return (f"{when} UTC  {action.operator}: {action.action} {action.player_id} ({details}): "
            f"{action.reason}")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        description="Pause, resume, add a minute, move a player, cancel (R9.15).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="each command's options (COMMAND --help says more):\n"
               "  pause TOURNAMENT --reason TEXT\n"
               "  resume TOURNAMENT --reason TEXT\n"
               "  add-minute TOURNAMENT [--minutes N] --reason TEXT\n"
               "  move TOURNAMENT PLAYER --from TABLE --to TABLE --reason TEXT\n"
               "  cancel TOURNAMENT --reason TEXT")
    top.add_argument("--operator", default=os.environ.get("NAIKO_OPERATOR"),
                     help="who acts (written in the logs; default $NAIKO_OPERATOR)")
    commands = top.add_subparsers(dest="command", required=True)
    for name, text in (("pause", "every table finishes its hand, then holds"),
                       ("resume", "play resumes with the level's time left"),
                       ("add-minute", "add minutes to the current level"),
                       ("move", "move a player between hands (scheduled tournaments)"),
                       ("cancel", "cancel: entries back before the start, else the "
                                  "published split")):
        command = commands.add_parser(name, help=text)
        command.add_argument("tournament_id")
        if name == "move":
            command.add_argument("player_id")
            command.add_argument("--from", dest="from_table", required=True,
                                 help="the player's table (number or id)")
            command.add_argument("--to", dest="to_table", required=True,
                                 help="the table to seat them at (number or id)")
        if name == "add-minute":
            command.add_argument("--minutes", type=int, default=1,
                                 help=f"1-{director.MAX_MINUTES} (default 1)")
        command.add_argument("--reason", required=True)
    return top


def run(deps: Any, args: argparse.Namespace) -> int:
    """The command *args* on the service's *deps*."""
    if not args.operator:
        print("name the operator with --operator or $NAIKO_OPERATOR", file=sys.stderr)
        return 2
    who, tid, why = args.operator, args.tournament_id, args.reason
    try:
        if args.command == "pause":
            action = director.pause(deps, tid, who, why)
        elif args.command == "resume":
            action = director.resume(deps, tid, who, why)
        elif args.command == "add-minute":
            action = director.add_minutes(deps, tid, who, why, args.minutes)
        elif args.command == "move":
            action = director.move_player(deps, tid, args.player_id, args.from_table,
                                          args.to_table, who, why)
        else:
            action = director.cancel(deps, tid, who, why)
    except OperatorError as refused:
        print(f"refused ({refused.code}): {refused}", file=sys.stderr)
        return 1
    print(describe(action))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from naiko_service.bootstrap import get_service

    deps = get_service().deps
    # the structured logger's line of each action, on stderr (accounts.log_action)
    log = logging.getLogger("naiko_service.operator")
    log.setLevel(logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    log.addHandler(handler)
    try:
        return run(deps, args)
    finally:
        log.removeHandler(handler)


if __name__ == "__main__":
    raise SystemExit(main())
