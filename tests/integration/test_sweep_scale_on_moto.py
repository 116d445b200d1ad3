"""Issue 15, item 3: after a mass loss of timer executions the sweep recovers every table
within two sweep periods, on moto (DynamoDB from ``template.yaml`` and Step Functions), through
the real sweep handler (``functions/sweep/app.py``) and the service ``bootstrap`` builds from
the environment, as in Lambda.

1,001 six-seat tables (more than the 1,000 the sweep once capped a run at; 2,000 until issue 28
item 12 halved the test's CPU) are written directly with the adapter, each between two hands
with its ``next_hand`` timer and its armed wake-up 90 s overdue and the execution lost
(nothing runs in Step Functions): what a regional Step Functions failure leaves behind.
Creating them through the game handler would take minutes on moto; what the sweep then does
(query the sharded ``due-index``, read, deal, re-arm with ``StartExecution``, write) is the
production path.
"""

from __future__ import annotations

import base64
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any
from unittest import mock

import boto3
import pytest
from aws_testing import REGION, TEST_ROLE_ARN, create_tables_from_template
from moto import mock_aws
from naiko_local.stack import LambdaContext
from naiko_local.template import load_handler
from naiko_service import bootstrap
from naiko_service.aws import execution_name
from naiko_service.aws.dynamodb import DUE_SHARDS, DynamoTableStore, due_shard
from naiko_service.records import Sealer, TableRecord, TableSettings, Timer, TimerKind
from naiko_service.usecases import arming
from naiko_testing import table

TABLES = 1_001
KEY = bytes(range(32))
ENDPOINT = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/test"
SWEEP_PERIOD_MS = 60_000
"""The sweep's schedule (``rate(1 minute)`` in ``template.yaml``) and its timeout."""


@dataclass
class World:
    sweep_handler: ModuleType
    store: DynamoTableStore
    sfn: Any
    machines: dict[str, str]
    started: list[dict[str, Any]]

    def sweep(self, budget_ms: int = SWEEP_PERIOD_MS) -> int:
        result = self.sweep_handler.lambda_handler(
            {}, LambdaContext("naiko-test-sweep", timeout_s=budget_ms / 1000))
        return int(result["fired"])

    def executions(self) -> list[dict[str, Any]]:
        """Every ``StartExecution`` call (moto answers a repeated name and input with the
        running execution, which would hide a double start: calls are counted instead)."""
        return list(self.started)


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_ENDPOINT_URL", "STATE_KEY_SECRET_ARN", "DUE_INDEX_PREVIOUS_SHARDS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "ERROR")
    from moto.stepfunctions.models import StateMachine

    started: list[dict[str, Any]] = []
    real_start = StateMachine.start_execution

    def start_execution(machine: Any, region_name: str, account_id: str,
                        execution_name: str, execution_input: str) -> Any:
        started.append({"name": execution_name, "input": json.loads(execution_input),
                        "machine": machine.arn})
        return real_start(machine, region_name, account_id, execution_name, execution_input)

    with mock_aws(), mock.patch.object(StateMachine, "start_execution", start_execution):
        client = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(client)
        sfn = boto3.client("stepfunctions", region_name=REGION)
        pass_machine = json.dumps({"StartAt": "Done",
                                   "States": {"Done": {"Type": "Pass", "End": True}}})
        machines = {kind: sfn.create_state_machine(
            name=f"naiko-test-timers-{kind.lower()}", definition=pass_machine,
            roleArn=TEST_ROLE_ARN, type=kind)["stateMachineArn"]
            for kind in ("EXPRESS", "STANDARD")}
        env = {"TABLES_TABLE": names["TablesTable"], "ACCOUNTS_TABLE": names["AccountsTable"],
               "LEDGER_TABLE": names["LedgerTable"],
               "CONNECTIONS_TABLE": names["ConnectionsTable"],
               "HISTORY_TABLE": names["HandHistoryTable"],
               "STATE_KEY": base64.b64encode(KEY).decode(), "WEBSOCKET_ENDPOINT": ENDPOINT,
               "TIMER_STATE_MACHINE_ARN": machines["EXPRESS"],
               "TIMER_LONG_STATE_MACHINE_ARN": machines["STANDARD"],
               "DUE_INDEX_SHARDS": str(DUE_SHARDS), "SWEEP_WORKERS": "32"}
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        bootstrap.reset()
        store = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                                 Sealer(KEY), due_shards=DUE_SHARDS)
        try:
            yield World(load_handler("sweep"), store, sfn, machines, started)
        finally:
            bootstrap.reset()


def lost_table(table_id: str, due_ms: int) -> TableRecord:
    """Six players between hands; the pause ended at *due_ms* and its wake-up never came."""
    settings = TableSettings(name=table_id, host="p0", min_buy_in=40, max_buy_in=200,
                             decision_ms=600_000)  # no clock runs out during the test
    return TableRecord(table_id, 1, settings, table([200] * 6), due_ms - 60_000,
                       timers=[Timer("next_hand:1", TimerKind.NEXT_HAND, due_ms),
                               Timer(arming.WAKE_PREFIX + "next_hand:1", TimerKind.WAKE, due_ms)])


def test_the_sweep_recovers_1001_lost_timers_within_two_periods(world: World) -> None:
    setup = time.monotonic()
    lost_at = time.time_ns() // 1_000_000 - 90_000
    ids = [f"t{i:05d}" for i in range(TABLES)]
    items = [{"PutRequest": {"Item": world.store.to_item(lost_table(table_id, lost_at))}}
             for table_id in ids]  # the adapter's own items, 25 to a call (setup only)
    for first in range(0, TABLES, 25):
        world.store.client.batch_write_item(
            RequestItems={world.store.tables_table: items[first:first + 25]})
    shards = Counter(due_shard(table_id, DUE_SHARDS) for table_id in ids)
    assert len(shards) == DUE_SHARDS and max(shards.values()) < 2 * TABLES / DUE_SHARDS
    assert sorted(world.store.due_tables(lost_at, limit=10 * TABLES)) == ids

    started = time.monotonic()
    runs: list[int] = []
    while world.store.due_tables(time.time_ns() // 1_000_000, limit=1) and len(runs) < 2:
        runs.append(world.sweep())
    elapsed = time.monotonic() - started

    # Within two periods: every table dealt its next hand and armed a new wake-up.
    assert len(runs) <= 2 and sum(runs) == TABLES, runs
    now = time.time_ns() // 1_000_000
    assert world.store.due_tables(now, limit=10) == []
    executions = world.executions()
    assert len(executions) == TABLES  # one wake-up per table: nothing fired twice
    assert {e["input"]["table_id"] for e in executions} == set(ids)
    for execution in executions:
        assert execution["name"] == execution_name(execution["input"]["table_id"],
                                                   execution["input"]["token"])
    for table_id in ids[::250]:
        record = world.store.load(table_id)
        assert record.version == 2 and record.state.hand is not None
        wake = [t for t in record.timers if t.kind is TimerKind.WAKE]
        assert len(wake) == 1 and wake[0].due_ms > now
    print(f"\n{TABLES} tables written in {started - setup:.1f} s; recovered in {len(runs)} "
          f"sweep run(s) {runs}, {elapsed:.1f} s on moto")

    # Idempotent: a retried or overlapping run finds nothing due and starts nothing.
    assert world.sweep() == 0
    assert len(world.executions()) == TABLES
