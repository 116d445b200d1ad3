"""The spectators' resources of ``template.yaml`` (issue 23 item 3): their table, the FIFO queue
their updates go through with its dead-letter queue and alarm, the worker function and what it
may do."""

from __future__ import annotations

from typing import Any

import pytest
from naiko_service import limits
from naiko_service.usecases import spectators
from test_template import load_cfn


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_cfn()


def resource(template: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = template["Resources"][name]
    return found


def test_spectators_have_a_table_keyed_by_table_and_watcher_with_a_ttl(
        template: dict[str, Any]) -> None:
    table = resource(template, "WatchersTable")
    props = table["Properties"]
    assert table["DeletionPolicy"] == "Retain"
    assert [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]] == [
        ("table_id", "HASH"), ("watcher", "RANGE")]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["WATCHERS_TABLE"] == {"Ref": "WatchersTable"}
    assert variables["WATCHERS_QUEUE_URL"] == {"Ref": "WatchersQueue"}


def test_updates_go_through_a_fifo_queue_with_a_fifo_dead_letter_queue(
        template: dict[str, Any]) -> None:
    queue = resource(template, "WatchersQueue")["Properties"]
    dead = resource(template, "WatchersDeadLetterQueue")["Properties"]
    assert queue["FifoQueue"] is True and dead["FifoQueue"] is True  # a FIFO queue's DLQ is FIFO
    assert queue["QueueName"]["Fn::Sub"].endswith(".fifo")
    assert dead["QueueName"]["Fn::Sub"].endswith(".fifo")
    assert queue["ContentBasedDeduplication"] is False  # table + version + shard dedup ids
    assert (queue["DeduplicationScope"], queue["FifoThroughputLimit"]) == (
        "messageGroup", "perMessageGroupId")  # high throughput: per table
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": ["WatchersDeadLetterQueue", "Arn"]},
        "maxReceiveCount": 3}
    function = resource(template, "WatchersFunction")["Properties"]
    # AWS's advice for an event source mapping: visibility 6 x the function's timeout
    assert queue["VisibilityTimeout"] == 6 * function["Timeout"]


def test_the_worker_takes_the_queue_s_batches_and_reports_failures_one_by_one(
        template: dict[str, Any]) -> None:
    function = resource(template, "WatchersFunction")["Properties"]
    assert function["CodeUri"] == "functions/watchers/"
    (event,) = function["Events"].values()
    assert event["Type"] == "SQS"
    props = event["Properties"]
    assert props["Queue"] == {"Fn::GetAtt": ["WatchersQueue", "Arn"]}
    assert props["BatchSize"] <= 10  # the most a FIFO queue's mapping takes
    assert "MaximumBatchingWindowInSeconds" not in props  # not supported for FIFO queues
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert props["ScalingConfig"]["MaximumConcurrency"] >= limits.WATCHER_SHARDS
    assert function["Policies"] == [{"Ref": "ServiceAccessPolicy"}]


def test_the_service_may_write_spectators_and_send_their_updates_only(
        template: dict[str, Any]) -> None:
    statements = {s["Sid"]: s for s in resource(template, "ServiceAccessPolicy")[
        "Properties"]["PolicyDocument"]["Statement"]
        if "Sid" in s}  # (a conditional statement, Fn::If, is push's: test_template_push)
    items = statements["WatchersItems"]
    assert items["Resource"] == {"Fn::GetAtt": ["WatchersTable", "Arn"]}
    assert set(items["Action"]) == {"dynamodb:GetItem", "dynamodb:PutItem",
                                    "dynamodb:UpdateItem", "dynamodb:DeleteItem",
                                    "dynamodb:Query"}  # no Scan, no BatchWriteItem
    send = statements["SendSpectatorUpdates"]
    assert send["Action"] == ["sqs:SendMessage"]
    assert send["Resource"] == {"Fn::GetAtt": ["WatchersQueue", "Arn"]}


def test_an_alarm_watches_the_dead_letter_queue_s_depth(template: dict[str, Any]) -> None:
    alarm = resource(template, "WatcherDeadLettersAlarm")["Properties"]
    assert (alarm["Namespace"], alarm["MetricName"]) == (
        "AWS/SQS", "ApproximateNumberOfMessagesVisible")
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {
        "Fn::GetAtt": ["WatchersDeadLetterQueue", "QueueName"]}}]
    assert alarm["Threshold"] == 1 and alarm["ComparisonOperator"] == \
        "GreaterThanOrEqualToThreshold"
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    rollback = resource(template, "WatchersFunction")["Properties"]["DeploymentPreference"]
    assert {"Ref": "WatcherDeadLettersAlarm"} in rollback["Alarms"]


def test_the_worker_s_pool_fits_the_clients_connection_pool() -> None:
    from naiko_service.bootstrap import BOTO_SETTINGS

    assert spectators.WATCHER_POST_WORKERS <= BOTO_SETTINGS["max_pool_connections"]
