"""Live standings on the DynamoDB adapters (moto, the tables of ``template.yaml``; issue 26
item 4): the scenarios of ``tests/standings_testing.py`` (the same on the in-memory adapters:
``tests/service/test_standings.py``), and what a page reads once the ranking is built: the
``standings`` item and one Query of at most two chunks, never the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
import standings_testing as scenarios
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws
from naiko_local.tournament import Simulation
from naiko_service import pages
from naiko_service.usecases import standings


@pytest.fixture
def dynamo() -> Iterator[tuple[Any, dict[str, str]]]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        yield client, create_tables_from_template(client)


def test_issue26_standings_after_hands_on_dynamodb(
        dynamo: tuple[Any, dict[str, str]]) -> None:
    client, names = dynamo
    sim = scenarios.on_dynamodb(Simulation(scenarios.scheduled_terms(6, 3), 6, 11,
                                           check=False), client, names)
    checks = scenarios.play_and_check(sim, every=4, until_left=4)
    assert checks.hands_checked > 0 and checks.placed_seen >= 2


def test_issue26_a_standings_page_reads_the_summary_and_one_query(
        dynamo: tuple[Any, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    client, names = dynamo
    sim = scenarios.on_dynamodb(Simulation(scenarios.scheduled_terms(8, 3), 8, 5,
                                           check=False), client, names)
    scenarios.play_and_check(sim, every=1_000, until_left=6)
    calls: list[tuple[str, dict[str, Any]]] = []

    def before_call(params: dict[str, Any], model: Any, **kwargs: Any) -> None:
        calls.append((model.name, dict(params)))

    client.meta.events.register("provide-client-params.dynamodb", before_call)
    first, _ = scenarios.ask(sim, limit=3)  # built a moment ago: fresh (FRESH_MS is 30 s)
    assert [name for name, _ in calls] == ["Query", "Query"], calls
    assert calls[0][1]["Limit"] == 1 and calls[1][1]["Limit"] == 1  # the page: one chunk
    assert not any(c[1].get("ConsistentRead") for c in calls), "eventually consistent reads"
    assert [r["rank"] for r in first["players"]] == [1, 2, 3] and first["next"]
    calls.clear()
    second, _ = scenarios.ask(sim, limit=3, cursor=first["next"])
    assert [name for name, _ in calls] == ["Query", "Query"]
    assert [r["rank"] for r in second["players"]] == [4, 5, 6]
    calls.clear()  # a page across two chunks (of 4 rows here): one Query of Limit 2
    monkeypatch.setattr(standings, "CHUNK_ROWS", 4)
    sim.clock.now += standings.FRESH_MS
    scenarios.ask(sim)
    calls.clear()
    across, _ = scenarios.ask(sim, limit=3, cursor=pages.encode(
        standings.PLAYERS_LIST, {"t": sim.tournament_id,
                                 "b": sim.clock.now // standings.FRESH_MS, "i": 3}))
    assert [r["rank"] for r in across["players"]] == [4, 5, 6]
    assert [c[1]["Limit"] for c in calls] == [1, 2]
    # an old build's cursor, after two builds since: refused, nothing changed
    sim.clock.now += standings.FRESH_MS
    scenarios.ask(sim)
    sim.clock.now += standings.FRESH_MS
    scenarios.ask(sim)
    stale, _ = scenarios.ask(sim, cursor=first["next"])
    assert stale["type"] == "error" and stale["code"] == standings.STALE_CURSOR
