#!/usr/bin/env python3
"""What looking a tournament up reads, and how large the answer is, before and after its lists
were paged (issue 23 item 2; ``docs/benchmarks.md``, "Pages"). A benchmark, not a test.

    .venv/bin/python scripts/bench_pages.py [--players 10000] [--page 50]

A scheduled tournament of ``--players`` registrations (ids of 64 characters, the longest a
token allows), each with a result, a third of them paid, is written to ``TournamentsTable`` on
moto (the template's table) through the adapter's own item layout. Then:

- **before**: what ``get_tournament`` read until this change (the tournament item, and three
  strongly consistent Queries of every ``reg#``, ``result#`` and ``paid#`` item) and the size of
  the one message it sent with all of them;
- **after**: ``get_tournament`` (the item and at most three one-key Queries), one page of
  ``tournament_players`` and one of ``tournament_results`` (``--page`` rows each), through the
  service on the DynamoDB adapters, each call's Queries recorded and each message measured.

Read capacity is worked out as DynamoDB bills it, from the sizes of the items each call read
(``aws.dynamodb.dynamodb_item_size``): a GetItem ``ceil(size / 4 KB)`` units strongly
consistent, half that eventually consistent; a Query the sum of its items' sizes, rounded up
to 4 KB, the same way (moto does not report consumed capacity).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "layers" / "engine", ROOT / "tests"):
    sys.path.insert(0, str(path))

os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

LONG = "p" * 56


def rcu(size: int, consistent: bool) -> float:
    units = math.ceil(max(size, 1) / 4096)
    return float(units) if consistent else units / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--page", type=int, default=50)
    args = parser.parse_args(argv)

    import boto3
    from aws_testing import REGION, create_tables_from_template
    from moto import mock_aws
    from naiko.cards import seeded_random
    from naiko.tournaments.structures import from_preset
    from naiko_service import protocol as p
    from naiko_service.aws.dynamodb import (
        DynamoAccounts,
        DynamoConnections,
        DynamoTableStore,
        dynamodb_item_size,
    )
    from naiko_service.aws.tournaments import DynamoTournamentStore
    from naiko_service.memory import ManualClock, RecordingGateway, RecordingScheduler
    from naiko_service.ports import Encoded, PutTournament
    from naiko_service.records import Sealer
    from naiko_service.tournament_records import Result, TournamentRecord
    from naiko_service.usecases import Deps, TableService

    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(client)
        tables = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                  Sealer(bytes(32)))
        store = DynamoTournamentStore(client, names["TournamentsTable"], tables)
        tid = "u" + "0" * 20
        clock = ManualClock()
        record = TournamentRecord(tid, 1, "Sunday 10k", from_preset("mtt_turbo", 100),
                                  clock.now, "ops", starts_ms=clock.now + 3_600_000,
                                  entrants=args.players)
        store.commit((PutTournament(record, None),))
        players = [f"{LONG}{n:08d}" for n in range(args.players)]
        batch: list[dict[str, Any]] = []

        def put(key: str, data: dict[str, Any]) -> None:
            batch.append({"PutRequest": {"Item": {
                "tournament_id": {"S": tid}, "item": {"S": key},
                "data": {"S": json.dumps(data, separators=(",", ":"))}}}})
            if len(batch) == 25:
                flush()

        def flush() -> None:
            if batch:
                client.batch_write_item(RequestItems={names["TournamentsTable"]: list(batch)})
                batch.clear()

        for place, player in enumerate(players, 1):
            put(f"reg#{player}", {"player_id": player, "account": player, "bot": False,
                                  "at_ms": clock.now, "connection_id": "Y" * 16 + "="})
            put(f"result#{player}", Result(player, place, 100 if place % 3 == 0 else 0,
                                           hand=place, table=f"{tid}-{place % 1112 + 1}",
                                           account=player).to_dict())
            if place % 3 == 0:
                put(f"paid#{player}", {"player_id": player, "prize": 100})
        flush()

        calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

        def after_call(http_response: Any, parsed: dict[str, Any], model: Any,
                       **kwargs: Any) -> None:
            calls.append((model.name, kwargs.get("context", {}).get("params", {}), parsed))

        params: list[dict[str, Any]] = []

        def before_call(params: dict[str, Any], **kwargs: Any) -> None:
            requests.append(dict(params))

        requests = params
        client.meta.events.register("before-parameter-build.dynamodb", before_call)
        client.meta.events.register("after-call.dynamodb", after_call)

        def read_cost(since: int) -> tuple[float, int, int]:
            total, count, items = 0.0, 0, 0
            for (name, _, parsed), request in zip(calls[since:], params[since:], strict=True):
                consistent = bool(request.get("ConsistentRead"))
                if name == "GetItem":
                    size = dynamodb_item_size(parsed.get("Item", {}))
                    items += 1
                elif name == "Query":
                    size = sum(dynamodb_item_size(i) for i in parsed.get("Items", []))
                    items += len(parsed.get("Items", []))
                else:
                    continue
                total += rcu(size, consistent)
                count += 1
            return total, count, items

        # -- before: the tournament item and every reg#, result#, paid# (consistent) ----------
        since = len(calls)
        store.load(tid)
        registered = [k.removeprefix("reg#") for k, _ in store.items(tid, "reg#")]
        paid = {k.removeprefix("paid#") for k, _ in store.items(tid, "paid#")}
        results = sorted(({**Result.from_dict(d).to_dict(), "paid": d["player_id"] in paid}
                          for _, d in store.items(tid, "result#")),
                         key=lambda r: (r["place"], r["player_id"]))
        before_rcu, before_calls, before_items = read_cost(since)
        old = {"type": "tournament", "request_id": "r" * 16, "tournament": {
            **store.load(tid).summary(), "tables": [], "registered": registered,
            "results": results}}
        before_bytes = len(Encoded.of(old).data)

        # -- after: through the service on the DynamoDB adapters ----------------------------
        gateway = RecordingGateway()
        deps = Deps(tables=tables, accounts=DynamoAccounts(client, names["AccountsTable"]),
                    connections=DynamoConnections(client, names["ConnectionsTable"]),
                    gateway=gateway, scheduler=RecordingScheduler(), clock=clock,
                    rng=seeded_random(1), tournaments=store)
        service = TableService(deps)
        reader = players[args.players // 2]
        rows = []
        for action, fields in (("get_tournament", {}),
                               ("tournament_players", {"limit": args.page}),
                               ("tournament_results", {"limit": args.page})):
            request = p.parse_request(json.dumps({"action": action, "request_id": "r" * 16,
                                                  "tournament_id": tid, **fields}))
            since = len(calls)
            service.handle("c1", reader, request)
            cost, count, items = read_cost(since)
            size = len(gateway.sent["c1"][-1].data)
            rows.append((action, cost, count, items, size))

    print(f"A scheduled tournament of {args.players:,} registrations, results and "
          f"{args.players // 3:,} payments (ids of 64 characters)")
    print(f"  before: get_tournament  {before_rcu:7.1f} RCU  {before_calls} reads of "
          f"{before_items:,} items, one message of {before_bytes:,} bytes "
          f"({'over' if before_bytes > p.MAX_FRAME_BYTES else 'within'} the 32 KB frame)")
    for action, cost, count, items, size in rows:
        print(f"  after:  {action:<18} {cost:5.1f} RCU  {count} reads of {items:,} items, "
              f"{size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
