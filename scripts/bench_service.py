#!/usr/bin/env python3
"""Where a warm player action spends its time, through the real Lambda handlers on moto.

    .venv/bin/python scripts/bench_service.py [--players 6] [--actions 300] [--seed 2]

Players connect and sit at an NLHE 1/2 table (buy-in 200) through ``functions/connect`` and
``functions/game``; every action is a frame sent to ``functions/game/app.py`` exactly as API
Gateway would send it, and the next hand is dealt by ``functions/timer/app.py`` called with the
``next_hand`` timer, as Step Functions would. Each player checks when it can, else calls or
folds at random. The first ``--warm-up`` actions are not timed (imports, clients, the first
hand). For every timed action (a whole handler invocation) the time is split into:

- engine: ``apply_in_place`` as the use cases call it;
- dynamodb: the DynamoDB client's calls (moto answers them in this process);
- fan-out: the gateway's sends (moto's Management API, captured per connection);
- other: the rest: Powertools logging and metrics, JSON, the protocol models, the views.

Also printed: DynamoDB calls per action (the goal, and what
``tests/integration/test_handlers_on_moto.py::test_one_read_and_one_write_per_action``
asserts, is 1 GetItem + 1 PutItem) and the size of the table item after an action. moto
runs in-process, so "dynamodb" and "fan-out" measure moto's request handling, not the network:
read the split, not the absolute figures (docs/service.md, "Measured").
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "tests")]

REGION = "us-east-1"
ENDPOINT = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/bench"
KEY = bytes(range(32))


class Session:
    """Connections driven through the handlers as API Gateway would call them."""

    def __init__(self, handlers: dict[str, Any], posts: Any, context: Any):
        self.handlers, self.posts, self.context = handlers, posts, context
        self.players: dict[str, str] = {}  # connection id -> player id
        self.counter = 0

    def event(self, connection_id: str, route: str, kind: str,
              body: str | None = None) -> dict[str, Any]:
        player = self.players[connection_id]
        self.counter += 1
        event: dict[str, Any] = {"requestContext": {
            "routeKey": route, "eventType": kind, "connectionId": connection_id,
            "domainName": "abcdef1234.execute-api.us-east-1.amazonaws.com", "stage": "bench",
            "apiId": "abcdef1234", "requestId": f"r{self.counter}", "messageDirection": "IN",
            "connectedAt": 1_700_000_000_000,
            "authorizer": {"principalId": player, "player_id": player}},
            "isBase64Encoded": False}
        if body is not None:
            event["body"] = body
        return event

    def connect(self, player: str) -> str:
        connection_id = f"c-{player}"
        self.players[connection_id] = player
        self.handlers["connect"].lambda_handler(
            self.event(connection_id, "$connect", "CONNECT"), self.context())
        return connection_id

    def send(self, connection_id: str, **frame: Any) -> dict[str, Any]:
        frame.setdefault("request_id", f"q{self.counter}")
        before = len(self.posts.raw[connection_id])
        self.handlers["game"].lambda_handler(
            self.event(connection_id, str(frame["action"]), "MESSAGE", json.dumps(frame)),
            self.context())
        replies = [json.loads(b) for b in self.posts.raw[connection_id][before:]]
        return next(m for m in replies if m["type"] in ("ack", "error", "snapshot", "tables")
                    or (m["type"] == "update" and m.get("request_id") == frame["request_id"]))

    def view(self, connection_id: str) -> dict[str, Any]:
        for body in reversed(self.posts.raw[connection_id]):
            message = json.loads(body)
            if "view" in message:
                return dict(message["view"])
        raise LookupError(connection_id)


def run(players: int, actions: int, warm_up: int, seed: int) -> str:
    import boto3
    from aws_testing import capture_posts, create_tables_from_template
    from moto import mock_aws
    from naiko_local.stack import LambdaContext
    from naiko_local.template import load_handler, load_template, table_environment
    from naiko_service import bootstrap

    env = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
           "AWS_DEFAULT_REGION": REGION, "POWERTOOLS_TRACE_DISABLED": "true",
           "POWERTOOLS_METRICS_NAMESPACE": "Naiko", "STATE_KEY": base64.b64encode(KEY).decode(),
           "WEBSOCKET_ENDPOINT": ENDPOINT}
    with mock.patch.dict(os.environ, env), mock_aws(), capture_posts() as posts:
        for name in ("AWS_ENDPOINT_URL", "STATE_KEY_SECRET_ARN", "TIMER_STATE_MACHINE_ARN"):
            os.environ.pop(name, None)
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(dynamodb, stage="bench")
        # Every table the handlers read, from template.yaml (a hand-kept list missed the ledger)
        os.environ.update(table_environment(load_template(), names))
        bootstrap.reset()
        handlers = {n: load_handler(n) for n in ("connect", "game", "timer")}
        session = Session(handlers, posts, lambda: LambdaContext("naiko-bench"))
        connections = []
        for i in range(players):
            dynamodb.update_item(TableName=names["AccountsTable"],
                                 Key={"player_id": {"S": f"player{i}"}},
                                 UpdateExpression="ADD balance :c",
                                 ExpressionAttributeValues={":c": {"N": "1000000"}})
            connections.append(session.connect(f"player{i}"))
        table_id = session.send(connections[0], action="create_table", name="bench",
                                variant="NLHE", small_blind=1, big_blind=2, min_buy_in=40,
                                max_buy_in=400)["table_id"]
        for connection in connections:
            session.send(connection, action="join_table", table_id=table_id, buy_in=200)

        service = bootstrap.get_service()
        timing = False
        split: Counter[str] = Counter()
        calls: Counter[str] = Counter()
        client = service.deps.tables.client  # type: ignore[attr-defined]
        real_call = client._make_api_call

        def timed_call(operation: str, params: dict[str, Any]) -> Any:
            start = time.perf_counter()
            try:
                return real_call(operation, params)
            finally:
                if timing:
                    calls[operation] += 1
                    split["dynamodb"] += time.perf_counter() - start

        client._make_api_call = timed_call
        gateway = service.deps.gateway
        real_send = gateway.send

        def timed_send(connection_id: str, message: dict[str, Any]) -> None:
            start = time.perf_counter()
            try:
                real_send(connection_id, message)
            finally:
                if timing:
                    split["fan_out"] += time.perf_counter() - start

        gateway.send = timed_send  # type: ignore[method-assign]
        import naiko_service.usecases.base as usecases

        real_apply = usecases.apply_in_place

        def timed_apply(state: Any, command: Any) -> Any:
            start = time.perf_counter()
            try:
                return real_apply(state, command)
            finally:
                if timing:
                    split["engine"] += time.perf_counter() - start

        usecases.apply_in_place = timed_apply  # type: ignore[assignment]
        rng = random.Random(seed)
        totals: list[float] = []
        done = 0
        item_sizes: list[int] = []
        while done < warm_up + actions:
            view = session.view(connections[0])
            if view["hand"] is None or view["hand"]["complete"]:
                record = service.deps.tables.load(table_id)
                token = next(t.token for t in record.timers if t.kind == "next_hand")
                handlers["timer"].lambda_handler({"table_id": table_id, "token": token},
                                                 session.context())
                continue
            seat = view["hand"]["actor"]
            player = view["seats"][seat]["player_id"]
            connection = next(c for c, p in session.players.items() if p == player)
            prompt = session.view(connection)["prompt"]
            move = "check" if "check" in prompt["actions"] else rng.choice(["call", "fold"])
            timing = done >= warm_up
            start = time.perf_counter()
            session.send(connection, action="act", table_id=table_id, move=move)
            elapsed = time.perf_counter() - start
            timing = False
            if done >= warm_up:
                totals.append(elapsed)
                if len(item_sizes) < 20:
                    item_sizes.append(service.deps.tables.item_size(table_id))  # type: ignore[attr-defined]
            done += 1
        usecases.apply_in_place = real_apply  # type: ignore[assignment]

    n = len(totals)
    ms = {k: v / n * 1000 for k, v in split.items()}
    total_ms = sum(totals) / n * 1000
    other = total_ms - ms.get("engine", 0) - ms.get("dynamodb", 0) - ms.get("fan_out", 0)
    per_action = {k: round(v / n, 2) for k, v in sorted(calls.items())}
    return "\n".join([
        f"Python {platform.python_version()} on {platform.machine()}; moto in-process; "
        f"NLHE {players}-handed; {n} timed actions after {warm_up} warm-up",
        f"DynamoDB calls per action: {per_action}",
        f"warm handler time per action (ms): total {total_ms:.2f} (median "
        f"{statistics.median(totals) * 1000:.2f}); engine {ms.get('engine', 0):.2f}; "
        f"dynamodb {ms.get('dynamodb', 0):.2f}; fan-out {ms.get('fan_out', 0):.2f}; "
        f"other {other:.2f}",
        f"table item after an action: {min(item_sizes)}-{max(item_sizes)} bytes",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=6, help="3 to 6 (default 6)")
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--warm-up", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args(argv)
    if not 3 <= args.players <= 6:  # R7.7: a new public table deals at 3 players; 6 seats
        parser.error("--players must be 3 to 6 (a public 6-max table deals its first hand at 3)")
    if args.actions < 1 or args.warm_up < 0:
        parser.error("--actions must be at least 1 and --warm-up at least 0")
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        report = run(args.players, args.actions, args.warm_up, args.seed)  # handlers log a lot
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
