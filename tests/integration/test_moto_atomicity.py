"""``aws_testing.atomic_dynamodb``: moto's conditional writes made atomic under threads, as
DynamoDB's are (the timer function's batch runs records on parallel threads; without it two
threads can both pass ``version = :read`` and a duplicated wake-up acts twice: seen once in a
full run of ``test_timer_queue_on_moto.py::test_the_same_wakeup_twice_in_one_batch_acts_once``,
and 7 of 150 rounds of this test without the lock)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import boto3
import pytest
from aws_testing import REGION, atomic_dynamodb
from moto import mock_aws

ROUNDS = 150


@pytest.fixture
def fine_switching(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Threads switch every microsecond, so a check-then-store without a lock interleaves."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def test_two_threads_writing_on_the_same_version_commit_exactly_one(fine_switching: None) -> None:
    with mock_aws(), atomic_dynamodb():
        client = boto3.client("dynamodb", region_name=REGION)
        client.create_table(TableName="t", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
        commits_per_round = []
        for _ in range(ROUNDS):
            client.put_item(TableName="t", Item={"k": {"S": "a"}, "version": {"N": "0"}})
            committed: list[int] = []

            def write(writer: int, committed: list[int]) -> None:
                try:
                    client.put_item(
                        TableName="t", ConditionExpression="version = :read",
                        ExpressionAttributeValues={":read": {"N": "0"}},
                        Item={"k": {"S": "a"}, "version": {"N": "1"},
                              "writer": {"N": str(writer)}})
                    committed.append(writer)
                except client.exceptions.ConditionalCheckFailedException:
                    pass

            threads = [threading.Thread(target=write, args=(i, committed)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            commits_per_round.append(len(committed))
        assert commits_per_round == [1] * ROUNDS
