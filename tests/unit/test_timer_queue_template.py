"""template.yaml's timer queue: ``TimerQueue`` and its dead-letter queue, the timer function's
SQS event source mapping, the parameters that choose and bound it, the permission to send
wake-ups, and the alarm on dead letters (``docs/timers.md``)."""

from __future__ import annotations

from typing import Any

import pytest
from test_template import load_cfn, resources


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_cfn()


def _function_timeout(template: dict[str, Any], logical_id: str) -> int:
    properties = template["Resources"][logical_id]["Properties"]
    return int(properties.get("Timeout", template["Globals"]["Function"]["Timeout"]))


def _mapping(template: dict[str, Any]) -> dict[str, Any]:
    events = template["Resources"]["TimerFunction"]["Properties"]["Events"]
    [sqs] = [e for e in events.values() if e["Type"] == "SQS"]
    properties: dict[str, Any] = sqs["Properties"]
    return properties


def test_the_queue_hides_a_message_for_six_times_the_timer_function_s_timeout(
        template: dict[str, Any]) -> None:
    """AWS refuses an event source mapping whose queue's visibility timeout is shorter than
    the function's timeout, and advises 6 times it."""
    queue = template["Resources"]["TimerQueue"]["Properties"]
    timeout = _function_timeout(template, "TimerFunction")
    assert timeout == 28
    assert queue["VisibilityTimeout"] >= timeout
    assert queue["VisibilityTimeout"] == 6 * timeout


def test_the_queue_keeps_a_wakeup_longer_than_its_longest_delay_and_is_encrypted(
        template: dict[str, Any]) -> None:
    queue = template["Resources"]["TimerQueue"]["Properties"]
    assert queue["MessageRetentionPeriod"] > 900 + 5 * queue["VisibilityTimeout"]
    assert queue["SqsManagedSseEnabled"] is True
    dead = template["Resources"]["TimerDeadLetterQueue"]["Properties"]
    assert dead["SqsManagedSseEnabled"] is True
    assert dead["MessageRetentionPeriod"] == 14 * 24 * 3600  # SQS's longest


def test_a_wakeup_that_fails_five_receives_goes_to_the_dead_letter_queue(
        template: dict[str, Any]) -> None:
    assert template["Resources"]["TimerDeadLetterQueue"]["Type"] == "AWS::SQS::Queue"
    redrive = template["Resources"]["TimerQueue"]["Properties"]["RedrivePolicy"]
    assert redrive == {"deadLetterTargetArn": {"Fn::GetAtt": ["TimerDeadLetterQueue", "Arn"]},
                       "maxReceiveCount": 5}


def test_the_mapping_reports_partial_failures_in_batches_of_10_without_waiting(
        template: dict[str, Any]) -> None:
    mapping = _mapping(template)
    assert mapping["Queue"] == {"Fn::GetAtt": ["TimerQueue", "Arn"]}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["BatchSize"] == 10
    assert mapping.get("MaximumBatchingWindowInSeconds", 0) == 0
    assert mapping["ScalingConfig"] == {"MaximumConcurrency": {"Ref": "TimerQueueConcurrency"}}
    assert "Enabled" not in mapping or mapping["Enabled"] is True


def test_the_batch_size_is_the_number_of_wakeups_handled_at_once(
        template: dict[str, Any]) -> None:
    from naiko_service.usecases.timers import BATCH_WORKERS

    assert _mapping(template)["BatchSize"] == BATCH_WORKERS


def test_the_mapping_stays_under_the_timer_function_s_reserved_concurrency(
        template: dict[str, Any]) -> None:
    """The constraint binds where there is a reservation: in production (params/production.toml,
    issue 23 item 5); the template's default, 0, reserves nothing."""
    from test_template_operations import production_parameters

    parameters = template["Parameters"]
    queue = parameters["TimerQueueConcurrency"]
    production = production_parameters()
    assert parameters["TimerReservedConcurrency"]["Default"] == 0  # no reservation, no limit
    assert 2 <= int(production.get("TimerQueueConcurrency", queue["Default"])) \
        < int(production["TimerReservedConcurrency"])
    assert queue["MinValue"] == 2  # Lambda's smallest MaximumConcurrency
    assert queue["MaxValue"] <= 1000


def test_the_queue_is_the_default_transport(template: dict[str, Any]) -> None:
    transport = template["Parameters"]["TimerTransport"]
    assert transport["Default"] == "queue"
    assert transport["AllowedValues"] == ["queue", "express"]
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["TIMER_TRANSPORT"] == {"Ref": "TimerTransport"}
    assert variables["TIMER_QUEUE_URL"] == {"Ref": "TimerQueue"}


def test_every_function_that_changes_tables_may_send_wakeups_to_the_queue_only(
        template: dict[str, Any]) -> None:
    policy = template["Resources"]["ServiceAccessPolicy"]
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    sending = [s for s in statements  # (a conditional statement, Fn::If, is push's)
               if "Action" in s and "sqs:SendMessage" in s["Action"]]
    assert sending == [{"Sid": "SendWakeups", "Effect": "Allow", "Action": ["sqs:SendMessage"],
                        "Resource": {"Fn::GetAtt": ["TimerQueue", "Arn"]}},
                       {"Sid": "SendSpectatorUpdates", "Effect": "Allow",
                        "Action": ["sqs:SendMessage"],
                        "Resource": {"Fn::GetAtt": ["WatchersQueue", "Arn"]}}]
    functions = resources(template, "AWS::Serverless::Function")
    with_policy = {name for name, function in functions.items()
                   if {"Ref": "ServiceAccessPolicy"} in function["Properties"].get("Policies", [])}
    assert {"GameFunction", "DisconnectFunction", "TimerFunction", "SweepFunction"} \
        <= with_policy
    # nobody may send to the dead-letter queue: only SQS's redrive puts messages there
    assert "TimerDeadLetterQueue" not in str(statements)


def test_the_dead_letter_alarm_watches_the_dead_letter_queue(template: dict[str, Any]) -> None:
    alarm = template["Resources"]["TimerDeadLettersAlarm"]["Properties"]
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/SQS",
                                                         "ApproximateNumberOfMessagesVisible")
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {
        "Fn::GetAtt": ["TimerDeadLetterQueue", "QueueName"]}}]
    assert alarm["Threshold"] == 1
    assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert alarm["TreatMissingData"] == "notBreaching"
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_the_outputs_name_both_queues(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    assert outputs["TimerQueueUrl"]["Value"] == {"Ref": "TimerQueue"}
    assert outputs["TimerDeadLetterQueueUrl"]["Value"] == {"Ref": "TimerDeadLetterQueue"}


def test_a_wakeup_that_fails_inside_a_successful_invocation_still_raises_an_alarm(
        template: dict[str, Any]) -> None:
    """A batch answers failures per record, so the invocation succeeds and Lambda's Errors
    (TimerErrorsAlarm) never see them: TimerFailuresAlarm watches the metrics
    ``naiko_service.timer_queue`` counts for them."""
    from naiko_service import timer_queue

    alarm = template["Resources"]["TimerFailuresAlarm"]["Properties"]
    watched = {m["MetricStat"]["Metric"]["MetricName"]
               for m in alarm["Metrics"] if "MetricStat" in m}
    assert watched == {"TimerFailures", "TimerRequeueFailures"}
    source = open(timer_queue.__file__).read()
    assert all(f'count("{name}"' in source for name in watched)
    expression = next(m["Expression"] for m in alarm["Metrics"] if "Expression" in m)
    assert "failed" in expression and "unsent" in expression
    assert alarm["AlarmActions"] == [{"Ref": "AlarmTopic"}]
