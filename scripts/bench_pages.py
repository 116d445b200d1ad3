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
  service on the DynamoDB adapters, each call's Queries recorded and each message measured;
- **live standings** (issue 26 item 4, ``get_standings``): a running tournament of
  ``--players`` as play leaves it (a ``stand#`` row per table of 9, a tenth of the field out
  with a ``result#``): the first request, which builds the ranking (RCU read and WRU written:
  2 per KB of each item a transaction puts, 2 per item it deletes), the first page again once
  built, the second page by its cursor, and a page of the ``tables`` section.

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

        standing = _standings(args, client, names, store, service, gateway, calls, params,
                              read_cost, clock)

    print(f"A scheduled tournament of {args.players:,} registrations, results and "
          f"{args.players // 3:,} payments (ids of 64 characters)")
    print(f"  before: get_tournament  {before_rcu:7.1f} RCU  {before_calls} reads of "
          f"{before_items:,} items, one message of {before_bytes:,} bytes "
          f"({'over' if before_bytes > p.MAX_FRAME_BYTES else 'within'} the 32 KB frame)")
    for action, cost, count, items, size in rows:
        print(f"  after:  {action:<18} {cost:5.1f} RCU  {count} reads of {items:,} items, "
              f"{size:,} bytes")
    print(standing["title"])
    for line in standing["lines"]:
        print(line)
    return 0


def _standings(args: argparse.Namespace, client: Any, names: dict[str, str], store: Any,
               service: Any, gateway: Any, calls: list[Any], params: list[Any],
               read_cost: Any, clock: Any) -> dict[str, Any]:
    """Live standings (issue 26 item 4, ``get_standings``) of a running tournament of
    ``--players``: a table row per table (9 players each, ids of 64 characters) and a tenth of
    the field out with a result; the first request builds the ranking, then pages are read."""
    from naiko.tournaments.structures import from_preset
    from naiko_service import protocol as p
    from naiko_service.aws.dynamodb import dynamodb_item_size
    from naiko_service.ports import PutTournament
    from naiko_service.tournament_records import Result, TournamentRecord, TournamentStatus
    from naiko_service.usecases import standings

    tid = "s" + "0" * 20
    players = [f"{LONG}{n:08d}" for n in range(args.players)]
    out = args.players // 10
    seats = 9
    live = players[out:]
    tables = [f"{tid}-{n}" for n in range(1, (len(live) + seats - 1) // seats + 1)]
    record = TournamentRecord(tid, 1, "Sunday 10k standings", from_preset("mtt_turbo", 100),
                              clock.now, "ops", status=TournamentStatus.RUNNING,
                              starts_ms=clock.now, started_ms=clock.now,
                              entrants=args.players, players_left=len(live),
                              payouts=[100] * (args.players * 15 // 100), tables=tables)
    store.commit((PutTournament(record, None),))
    batch: list[dict[str, Any]] = []

    def put(key: str, data: dict[str, Any]) -> None:
        batch.append({"PutRequest": {"Item": {
            "tournament_id": {"S": tid}, "item": {"S": key},
            "data": {"S": json.dumps(data, separators=(",", ":"))}}}})
        if len(batch) == 25:
            client.batch_write_item(RequestItems={names["TournamentsTable"]: list(batch)})
            batch.clear()

    stack = record.terms.starting_stack * args.players // len(live)
    for number, table_id in enumerate(tables, 1):
        seated = live[(number - 1) * seats:number * seats]
        put(f"{standings.STAND_PREFIX}{number:05d}#{table_id}",
            {"table": table_id, "number": number, "at_ms": clock.now,
             "players": [[pid, stack + i, i] for i, pid in enumerate(seated)]})
    for place, player in enumerate(reversed(players[:out]), len(live) + 1):
        put(f"result#{player}", Result(player, place, 0, hand=place, table=tables[0],
                                       account=player).to_dict())
    if batch:
        client.batch_write_item(RequestItems={names["TournamentsTable"]: list(batch)})

    def write_cost(since: int) -> tuple[float, int]:
        """WRU of the transactions since *since*: 2 per KB of each item put, 2 per item
        deleted (counted at 1 KB); and how many transactions."""
        total, count = 0.0, 0
        for (name, _, _), request in zip(calls[since:], params[since:], strict=True):
            if name != "TransactWriteItems":
                continue
            count += 1
            for item in request["TransactItems"]:
                if "Put" in item:
                    total += 2 * math.ceil(dynamodb_item_size(item["Put"]["Item"]) / 1024)
                else:
                    total += 2
        return total, count

    def transact_reads(since: int) -> float:
        total = 0.0
        for name, _, parsed in calls[since:]:
            if name == "TransactGetItems":
                total += sum(2 * math.ceil(dynamodb_item_size(r.get("Item", {})) / 4096)
                             for r in parsed.get("Responses", []))
        return total

    lines = []
    cursor = None
    for label, fields in (("build + page 1", {"limit": 100}), ("page 1 (built)", {"limit": 100}),
                          ("page 2", {"limit": 100, "cursor": True}),
                          ("tables page", {"section": "tables", "limit": 20})):
        if fields.get("cursor"):
            fields["cursor"] = cursor
        request = p.parse_request(json.dumps({"action": "get_standings",
                                              "request_id": "r" * 16, "tournament_id": tid,
                                              **fields}))
        since = len(calls)
        service.handle("c2", players[-1], request)
        rcu_read, count, items = read_cost(since)
        rcu_read += transact_reads(since)
        wru, transactions = write_cost(since)
        reply = json.loads(gateway.sent["c2"][-1].data)
        assert reply["type"] == "standings", reply
        cursor = reply.get("next") or cursor
        size = len(gateway.sent["c2"][-1].data)
        rows = len(reply.get("players") or reply.get("tables") or [])
        lines.append(f"  get_standings {label:<15} {rcu_read:6.1f} RCU  {count} queries of "
                     f"{items:,} items, {wru:6.1f} WRU in {transactions} transactions, "
                     f"{rows} rows, {size:,} bytes")
    return {"title": f"Live standings of a running tournament of {args.players:,} "
                     f"({len(tables):,} tables of 9, {out:,} out; ids of 64 characters)",
            "lines": lines}


if __name__ == "__main__":
    sys.exit(main())
