"""Issue 15, items 1, 5, 11, 12 and 14 in ``template.yaml``: throttles and concurrency sized by
``scripts/capacity.py``, no retried sweep, a log group with retention for every function and
the API's access log, the alarms and the metrics they watch (each emitted by the code), and
``docs/deploy.md`` naming what the template defines."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_template import load_cfn

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
DEPLOY = ROOT / "docs" / "deploy.md"


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    """The template with its intrinsic functions in their long form."""
    return load_cfn()


@pytest.fixture(scope="module")
def capacity() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_capacity", ROOT / "scripts/capacity.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def default(template: dict[str, Any], parameter: str) -> int:
    return int(template["Parameters"][parameter]["Default"])


# -- items 1 and 5: throttles and concurrency --------------------------------------------------

def test_throttles_are_parameters_sized_for_10000_tables(
        template: dict[str, Any], capacity: ModuleType) -> None:
    stage = template["Resources"]["WebSocketStage"]["Properties"]
    assert stage["DefaultRouteSettings"] == {
        "ThrottlingRateLimit": {"Ref": "RouteThrottlingRateLimit"},
        "ThrottlingBurstLimit": {"Ref": "RouteThrottlingBurstLimit"}}
    assert stage["RouteSettings"] == {"act": {
        "ThrottlingRateLimit": {"Ref": "ActThrottlingRateLimit"},
        "ThrottlingBurstLimit": {"Ref": "ActThrottlingBurstLimit"}}}
    needs = capacity.needs(10_000)
    assert default(template, "ActThrottlingRateLimit") >= needs.frames_in * capacity.PEAK
    assert default(template, "ActThrottlingBurstLimit") >= needs.frames_in
    # Every other route carries a small share (lobby, joins, snapshots): 100/s is generous.
    assert default(template, "RouteThrottlingRateLimit") >= 100 * 2
    # The old default capped the service at about 770 busy tables (205 act frames/s).
    assert capacity.needs(770).frames_in > 200


def test_the_clocks_have_reserved_concurrency_and_the_game_a_cap(
        template: dict[str, Any], capacity: ModuleType) -> None:
    functions = of_type(template, "AWS::Serverless::Function")
    reserved = {name: f["Properties"].get("ReservedConcurrentExecutions")
                for name, f in functions.items()}
    assert reserved["GameFunction"] == {"Fn::If": ["CapGame", {"Ref": "GameConcurrencyCap"},
                                                   {"Ref": "AWS::NoValue"}]}
    assert reserved["TimerFunction"] == {"Fn::If": [
        "ReserveTimer", {"Ref": "TimerReservedConcurrency"}, {"Ref": "AWS::NoValue"}]}
    assert reserved["SweepFunction"] == {"Fn::If": ["ReserveSweep", 1,
                                                    {"Ref": "AWS::NoValue"}]}
    needs = capacity.needs(10_000)
    game = default(template, "GameConcurrencyCap")
    timer = default(template, "TimerReservedConcurrency")
    assert game >= (needs.concurrency - needs.timer_concurrency) * capacity.PEAK
    assert timer >= needs.timer_concurrency * capacity.PEAK
    # Deployable in a default account: Lambda keeps 100 of its 1,000 unreserved.
    assert game + timer + default(template, "SweepReservedConcurrency") <= 1_000 - 100


def test_due_index_shards_keep_each_partition_under_half_its_writes(
        template: dict[str, Any], capacity: ModuleType) -> None:
    shards = default(template, "DueIndexShards")
    needs = capacity.needs(10_000, shards)
    assert needs.per_shard_writes * capacity.PEAK <= capacity.PARTITION_WRITES * 0.6
    assert capacity.needs(10_000, 1).per_shard_writes > capacity.PARTITION_WRITES  # why
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["DUE_INDEX_SHARDS"] == {"Ref": "DueIndexShards"}
    assert variables["DUE_INDEX_PREVIOUS_SHARDS"] == {"Ref": "DueIndexPreviousShards"}
    assert variables["SWEEP_WORKERS"] == {"Ref": "SweepWorkers"}


def test_the_sweep_is_never_retried_and_runs_one_at_a_time(template: dict[str, Any]) -> None:
    props = template["Resources"]["SweepFunction"]["Properties"]
    assert props["EventInvokeConfig"] == {"MaximumRetryAttempts": 0,
                                          "MaximumEventAgeInSeconds": 60}
    assert template["Parameters"]["SweepReservedConcurrency"]["Default"] == 1
    assert template["Resources"]["TimerFunction"]["Properties"]["EventInvokeConfig"][
        "MaximumRetryAttempts"] == 0


# -- item 11: logs, alarms, dashboard ----------------------------------------------------------

def test_every_function_logs_to_its_own_group_with_retention(template: dict[str, Any]) -> None:
    groups = of_type(template, "AWS::Logs::LogGroup")
    assert groups
    for name, group in groups.items():
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}, name
        assert "DeletionPolicy" not in group, name  # deleted with the stack: no collision
    used = set()
    for name, function in of_type(template, "AWS::Serverless::Function").items():
        ref = function["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert ref in groups, name
        used.add(ref)
    assert len(used) == len(of_type(template, "AWS::Serverless::Function"))
    stage = template["Resources"]["WebSocketStage"]
    access = stage["Properties"]["AccessLogSettings"]
    assert access["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    assert groups.keys() == used | {"ApiAccessLogGroup"}
    assert "ApiGatewayAccount" in stage["DependsOn"]
    assert "querystring" not in access["Format"].lower()  # the $connect token is there
    assert "$context.requestId" in access["Format"]


def emitted_metrics() -> set[str]:
    """Every metric name the code writes: ``count("X"...)``, ``measure("X"...)``,
    ``deps.count("X"...)``, ``bootstrap.count("X"...)``."""
    names: set[str] = set()
    for path in [*(ROOT / "layers/engine/naiko_service").rglob("*.py"),
                 *(ROOT / "functions").rglob("*.py")]:
        names |= set(re.findall(r'(?:count|measure)\(\s*"([A-Za-z]+)"', path.read_text()))
    return names


def test_the_alarms_cover_the_issue_and_watch_metrics_the_code_emits(
        template: dict[str, Any]) -> None:
    alarms = of_type(template, "AWS::CloudWatch::Alarm")
    watched: dict[str, set[tuple[str, str]]] = {}
    for name, alarm in alarms.items():
        props = alarm["Properties"]
        assert props["AlarmActions"] == [{"Ref": "AlarmTopic"}], name
        assert props["TreatMissingData"] == "notBreaching", name
        stats = [props] if "MetricName" in props else [
            m["MetricStat"]["Metric"] for m in props["Metrics"] if "MetricStat" in m]
        watched[name] = {(s["Namespace"], s["MetricName"]) for s in stats}
        for stat in stats:
            if stat["Namespace"] == "Naiko":  # Powertools' default dimension
                assert stat["Dimensions"] == [{"Name": "service", "Value": "naiko"}], name
    every = set().union(*watched.values())
    needed = {("AWS/Lambda", "Errors"), ("Naiko", "UnexpectedErrors"), ("AWS/Lambda", "Throttles"),
              ("Naiko", "Conflicts"), ("Naiko", "Retries"), ("Naiko", "FanOutFailures"),
              ("Naiko", "TimerLag"), ("Naiko", "SweepStuckTables"), ("AWS/Lambda", "Duration"),
              ("AWS/DynamoDB", "WriteThrottleEvents"), ("AWS/DynamoDB", "ReadThrottleEvents")}
    assert needed <= every, needed - every
    own = {metric for namespace, metric in every if namespace == "Naiko"}
    assert own <= emitted_metrics(), own - emitted_metrics()
    p99 = [a["Properties"] for a in alarms.values()
           if a["Properties"].get("ExtendedStatistic") == "p99"]
    assert {(a["Namespace"], a["MetricName"]) for a in p99} == {
        ("AWS/Lambda", "Duration"), ("Naiko", "TimerLag")}


def test_the_dashboard_graphs_what_the_alarms_watch(template: dict[str, Any]) -> None:
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    for metric in ("TimerLag", "SweepStuckTables", "FanOutFailures", "Conflicts", "Retries",
                   "WriteThrottleEvents", "Throttles", "Duration", "UnexpectedErrors"):
        assert f'"{metric}"' in body, metric


# -- items 12 and 14: names, teardown, docs/deploy.md --------------------------------------------

def test_the_data_is_retained_and_everything_else_goes_with_the_stack(
        template: dict[str, Any]) -> None:
    retained = {name for name, r in template["Resources"].items()
                if r.get("DeletionPolicy") == "Retain"}
    tables = set(of_type(template, "AWS::DynamoDB::Table"))
    assert retained == tables | {"StateKeySecret", "ApiGatewayLogsRole"}
    for name in tables:  # named by stage: a redeploy over kept tables is refused, not shadowed
        assert template["Resources"][name]["Properties"]["TableName"]["Fn::Sub"].startswith(
            "naiko-${Stage}-")
    text = DEPLOY.read_text()
    assert "sam delete" in text and "IMPORT" in text and "restore-secret" in text


def backticked(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


def test_deploy_md_names_what_the_template_defines(template: dict[str, Any]) -> None:
    text = DEPLOY.read_text()
    names = backticked(text)
    for parameter in template["Parameters"]:
        assert parameter in text, f"parameter {parameter} is not in docs/deploy.md"
    for output in template["Outputs"]:
        assert output in names, f"output {output} is not in docs/deploy.md"
    resources = set(template["Resources"])
    kinds = ("Function", "StateMachine", "Table", "Secret", "Policy", "Role", "Alarm",
             "LogGroup", "Topic", "Layer", "Authorizer", "Api", "Stage", "Account")
    claimed = {n for n in names if re.fullmatch(r"[A-Z][A-Za-z]+", n) and n.endswith(kinds)}
    known = resources | set(template["Outputs"]) | set(template["Parameters"]) | {
        "DeletionPolicy", "UpdateReplacePolicy"}  # attributes, not names
    assert claimed <= known, f"docs/deploy.md names what the template lacks: {claimed - known}"
    for machine in of_type(template, "AWS::StepFunctions::StateMachine").values():
        name = machine["Properties"]["StateMachineName"]["Fn::Sub"]
        assert f"`{name.replace('${Stage}', '<stage>')}`" in text, name


def test_deploy_md_assumes_no_path_of_this_machine() -> None:
    text = DEPLOY.read_text()
    for local in (".venv/bin", "PYENV_VERSION=", "/work/", "/root/", "/home/", "3.11.7:3.12.1"):
        assert local not in text, local
