"""Every list paged on the DynamoDB adapters (moto, tables from template.yaml): the scenarios
of ``tests/pages_testing.py`` (the same on the in-memory adapters:
``tests/service/test_pages_lists.py``), and what a page reads: one Query with ``Limit`` (the
page and one row more) and ``ExclusiveStartKey``, eventually consistent, never the whole field
(issue 23 item 2)."""

from __future__ import annotations

from typing import Any

import pages_testing as scenarios
from naiko.cards import seeded_random
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.memory import ManualClock, RecordingGateway, RecordingScheduler
from naiko_service.usecases import Deps, TableService
from service_testing import Harness
from test_dynamodb_adapters import Aws, aws  # noqa: F401 - the fixture


def on_dynamodb(aws: Aws) -> Harness:  # noqa: F811
    gateway, scheduler, clock = RecordingGateway(), RecordingScheduler(), ManualClock()
    counters: dict[str, int] = {}

    def count(name: str, value: int) -> None:
        counters[name] = counters.get(name, 0) + value

    tournaments = DynamoTournamentStore(aws.client, aws.names["TournamentsTable"], aws.store)
    deps = Deps(tables=aws.store, accounts=aws.accounts, connections=aws.connections,
                gateway=gateway, scheduler=scheduler, clock=clock, rng=seeded_random(3),
                count=count, tournaments=tournaments)
    return Harness(TableService(deps), aws.store, aws.accounts, gateway,  # type: ignore[arg-type]
                   scheduler, clock, aws.connections, counters,  # type: ignore[arg-type]
                   tournaments)  # type: ignore[arg-type]


def queries(aws: Aws, since: int) -> list[dict[str, Any]]:  # noqa: F811
    return [params for name, params in aws.calls[since:] if name == "Query"]


def test_issue23_tournament_players_are_paged(aws: Aws) -> None:  # noqa: F811
    scenarios.issue23_tournament_players_are_paged(on_dynamodb(aws))


def test_issue23_tournament_results_are_paged_with_their_payments(aws: Aws) -> None:  # noqa: F811
    scenarios.issue23_tournament_results_are_paged_with_their_payments(on_dynamodb(aws))


def test_issue23_the_lobby_tables_are_paged(aws: Aws) -> None:  # noqa: F811
    scenarios.issue23_the_lobby_tables_are_paged(on_dynamodb(aws))


def test_issue23_the_lobby_tournaments_are_paged(aws: Aws) -> None:  # noqa: F811
    scenarios.issue23_the_lobby_tournaments_are_paged(on_dynamodb(aws))


def test_issue23_a_cursor_of_one_list_is_refused_by_another(aws: Aws) -> None:  # noqa: F811
    scenarios.issue23_a_cursor_of_one_list_is_refused_by_another(on_dynamodb(aws))


def test_issue23_an_unknown_tournament_is_not_an_empty_list(aws: Aws) -> None:  # noqa: F811
    scenarios.issue23_an_unknown_tournament_is_not_an_empty_list(on_dynamodb(aws))


def test_issue23_a_page_reads_the_page_and_no_more(aws: Aws) -> None:  # noqa: F811
    """A page of players is ONE Query of ``limit`` + 1 items, from the cursor's key, not
    consistent; ``get_tournament`` reads the tournament item and one key per fact about you,
    whatever the field (before: three consistent Queries of every registration, result and
    payment)."""
    h = on_dynamodb(aws)
    tid, reader = scenarios.scheduled_field(h, 12)
    since = len(aws.calls)
    first = reader.send(action="tournament_players", tournament_id=tid, limit=5)
    (query,) = queries(aws, since)
    assert query["Limit"] == 6 and "ExclusiveStartKey" not in query
    assert not query.get("ConsistentRead")
    since = len(aws.calls)
    reader.send(action="tournament_players", tournament_id=tid, limit=5, cursor=first["next"])
    (query,) = queries(aws, since)
    assert query["Limit"] == 6
    assert query["ExclusiveStartKey"]["item"] == {"S": "reg#" + first["players"][-1][
        "player_id"]}
    since = len(aws.calls)
    reader.send(action="get_tournament", tournament_id=tid)
    reads = queries(aws, since)  # reg#reader, result#reader (paid# only for a result)
    # the tournament's two items (issue 23: its field apart) in one read, the requester's two
    # keys, and its registration counters (entrants while it registers: at most 32 items)
    assert [name for name, _ in aws.calls[since:]] == ["TransactGetItems", "Query", "Query",
                                                       "Query"]
    prefixes = sorted(q["ExpressionAttributeValues"][":prefix"]["S"] for q in reads)
    assert prefixes == ["count#", "reg#reader", "result#reader"], prefixes
    keys = [q for q in reads if q["ExpressionAttributeValues"][":prefix"]["S"] != "count#"]
    assert len(keys) == 2 and all(q["Limit"] == 1 and not q.get("ConsistentRead")
                                  for q in keys)
    since = len(aws.calls)
    reader.send(action="list_tournaments", limit=2)
    query, *counted = queries(aws, since)  # the page, then each registering one's counters
    assert query["IndexName"] == "lobby-index" and query["Limit"] == 3
    assert len(counted) <= 2 and all(
        q["ExpressionAttributeValues"][":prefix"]["S"] == "count#" for q in counted)
