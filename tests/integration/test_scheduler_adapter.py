"""The Step Functions scheduler against moto: one execution per timer, named from the table and
the token, with the timer in its input; scheduling the same timer again is a no-op."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from aws_testing import EXECUTION_NAME, PASS_STATE_MACHINE, REGION, TEST_ROLE_ARN
from botocore.exceptions import ClientError
from moto import mock_aws
from naiko_service.aws import StepFunctionsScheduler, execution_name

DUE_MS = 1_700_000_000_500
"""2023-11-14T22:13:20.500Z."""


@dataclass
class Sfn:
    client: Any
    arn: str
    scheduler: StepFunctionsScheduler

    def executions(self) -> list[dict[str, Any]]:
        listed = self.client.list_executions(stateMachineArn=self.arn)["executions"]
        return [self.client.describe_execution(executionArn=e["executionArn"])
                for e in listed]


def _machine(definition: str, config: dict[str, Any] | None = None) -> Iterator[Sfn]:
    with mock_aws(config=config):  # type: ignore[arg-type]
        client = boto3.client("stepfunctions", region_name=REGION)
        arn = client.create_state_machine(name="naiko-test-timers", definition=definition,
                                          roleArn=TEST_ROLE_ARN)["stateMachineArn"]
        yield Sfn(client, arn, StepFunctionsScheduler(client, arn))


@pytest.fixture
def sfn() -> Iterator[Sfn]:
    yield from _machine(PASS_STATE_MACHINE)


def test_schedule_starts_one_named_execution_with_the_timer_as_input(sfn: Sfn) -> None:
    sfn.scheduler.schedule("t9f3a", "decision:4.7", DUE_MS, "decision")
    [execution] = sfn.executions()
    assert execution["name"] == execution_name("t9f3a", "decision:4.7")
    assert EXECUTION_NAME.match(execution["name"])
    assert execution["name"].startswith("t9f3a-decision_4_7-")
    assert json.loads(execution["input"]) == {
        "table_id": "t9f3a", "token": "decision:4.7", "kind": "decision",
        "due": "2023-11-14T22:13:21Z",  # rounded up: Step Functions ignores fractions
        "due_ms": DUE_MS,
    }


def test_scheduling_the_same_timer_again_is_idempotent(sfn: Sfn) -> None:
    sfn.scheduler.schedule("t1", "next_hand:3", DUE_MS, "next_hand")
    sfn.scheduler.schedule("t1", "next_hand:3", DUE_MS, "next_hand")  # same input: same run
    # A retried write computes the deadline again, slightly later: ExecutionAlreadyExists.
    sfn.scheduler.schedule("t1", "next_hand:3", DUE_MS + 2_000, "next_hand")
    [execution] = sfn.executions()
    assert json.loads(execution["input"])["due_ms"] == DUE_MS


def test_different_timers_get_different_executions(sfn: Sfn) -> None:
    sfn.scheduler.schedule("t1", "decision:1.0", DUE_MS, "decision")
    sfn.scheduler.schedule("t1", "decision:1.1", DUE_MS, "decision")
    sfn.scheduler.schedule("t2", "decision:1.0", DUE_MS, "decision")
    names = {e["name"] for e in sfn.executions()}
    assert len(names) == 3


def test_names_stay_valid_and_distinct_for_long_or_odd_ids(sfn: Sfn) -> None:
    table_id = "t" + "x" * 90
    tokens = ["sit_out_limit:ünïcode player/with spaces:1700000000000",
              "sit_out_limit:ünïcode player/with spaces:1700000000001",
              "window:a.b", "window:a_b"]
    names = [execution_name(table_id, token) for token in tokens]
    assert all(EXECUTION_NAME.match(name) for name in names)
    assert len(set(names)) == len(tokens)  # same readable prefix, different hash
    for token in tokens:
        sfn.scheduler.schedule(table_id, token, DUE_MS, "window")
    assert {e["name"] for e in sfn.executions()} == set(names)


def test_other_errors_propagate(sfn: Sfn) -> None:
    missing = sfn.arn.replace("naiko-test-timers", "missing")
    with pytest.raises(ClientError) as caught:
        StepFunctionsScheduler(sfn.client, missing).schedule("t1", "x:1", DUE_MS, "decision")
    assert caught.value.response["Error"]["Code"] == "StateMachineDoesNotExist"


WAIT_MACHINE = json.dumps({
    "StartAt": "Wait",
    "States": {
        "Wait": {"Type": "Wait", "TimestampPath": "$.due", "Next": "Fire"},
        "Fire": {"Type": "Pass", "Parameters": {"table_id.$": "$.table_id",
                                                "token.$": "$.token"}, "End": True},
    },
})
"""The shape of the real timer machine: wait until ``$.due``, then hand on
``{table_id, token}`` (the real one invokes the timer Lambda)."""


def test_a_wait_state_accepts_the_due_timestamp() -> None:
    config = {"stepfunctions": {"execute_state_machine": True}}
    for sfn in _machine(WAIT_MACHINE, config):
        sfn.scheduler.schedule("t1", "next_hand:1", DUE_MS, "next_hand")  # already past
        deadline = time.monotonic() + 10
        while (execution := sfn.executions()[0])["status"] == "RUNNING":
            assert time.monotonic() < deadline, "the execution never finished"
            time.sleep(0.05)
        assert execution["status"] == "SUCCEEDED", execution
        assert json.loads(execution["output"]) == {"table_id": "t1", "token": "next_hand:1"}
