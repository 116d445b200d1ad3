"""Issue 15, items 1, 5, 11, 12 and 14 in ``template.yaml``: throttles and concurrency sized by
``scripts/capacity.py``, no retried sweep, a log group with retention for every function and
the API's access log, the alarms and the metrics they watch (each emitted by the code), and
``docs/deploy.md`` naming what the template defines."""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_template import dangling, load_cfn, render

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
DEPLOY = ROOT / "docs" / "deploy.md"
PRODUCTION = ROOT / "params" / "production.toml"
"""The production stage's ``sam deploy`` configuration (environment ``prod``)."""


def production_parameters() -> dict[str, str]:
    """The parameter values ``params/production.toml`` gives ``sam deploy --config-env prod``
    (its ``parameter_overrides``, ``Key=Value`` each)."""
    with open(PRODUCTION, "rb") as stream:
        config = tomllib.load(stream)
    assert config["version"] == 0.1
    overrides = config["prod"]["deploy"]["parameters"]["parameter_overrides"]
    assert isinstance(overrides, list), overrides
    pairs = dict(item.split("=", 1) for item in overrides)
    assert len(pairs) == len(overrides), "a parameter given twice"
    return pairs


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
    # Issue 23 item 5: sized for 10,000 tables in the production parameters file, the
    # template's defaults reserving nothing (test_reserved_concurrency_is_off_by_default).
    production = production_parameters()
    needs = capacity.needs(10_000)
    game = int(production["GameConcurrencyCap"])
    timer = int(production["TimerReservedConcurrency"])
    assert game >= (needs.concurrency - needs.timer_concurrency) * capacity.PEAK
    assert timer >= needs.timer_concurrency * capacity.PEAK
    # Deployable in a default account: Lambda keeps 100 of its 1,000 unreserved.
    assert game + timer + int(production["SweepReservedConcurrency"]) <= 1_000 - 100
    # ...with the authorizer's own reservation too (issue 23 item 4): 891.
    assert game + timer + int(production["SweepReservedConcurrency"]) + int(
        production["AuthorizerReservedConcurrency"]) <= 1_000 - 100


RESERVATIONS = {"GameFunction": "GameConcurrencyCap", "TimerFunction": "TimerReservedConcurrency",
                "SweepFunction": "SweepReservedConcurrency",
                "AuthorizerFunction": "AuthorizerReservedConcurrency"}
"""Each function with a reserved-concurrency parameter, and that parameter."""


def reserved(rendered: dict[str, Any], **values: str) -> dict[str, int]:
    """Reserved concurrency of each function of a template rendered with these parameter
    *values* (a ``Ref`` to a parameter resolved; absent: unreserved)."""
    found = {}
    for name, function in of_type(rendered, "AWS::Serverless::Function").items():
        value = function["Properties"].get("ReservedConcurrentExecutions")
        if isinstance(value, dict):
            (parameter,) = value.values()
            value = values.get(parameter, rendered["Parameters"][parameter].get("Default"))
        if value is not None:
            found[name] = int(value)
    return found


def test_reserved_concurrency_is_off_by_default_and_set_by_the_production_file(
        template: dict[str, Any]) -> None:
    """Issue 23 item 5: the defaults reserved 851 executions, more than a new account or a
    second stage beside the first can; now each defaults to 0 (no reservation at all, the
    property dropped with AWS::NoValue) and params/production.toml sets the launch's values."""
    for parameter in RESERVATIONS.values():
        assert default(template, parameter) == 0, parameter
    assert reserved(render(template)) == {}
    production = production_parameters()
    assert set(RESERVATIONS.values()) <= set(production)
    assert set(production) <= set(template["Parameters"]), \
        set(production) - set(template["Parameters"])
    rendered = render(template, **production)
    assert reserved(rendered, **production) == {
        "GameFunction": 600, "TimerFunction": 250, "SweepFunction": 1, "AuthorizerFunction": 40}
    # The timer queue's mapping stays below the timer function's reservation there.
    assert int(production.get("TimerQueueConcurrency",
                              default(template, "TimerQueueConcurrency"))) < 250
    text = DEPLOY.read_text()
    assert "params/production.toml" in text
    assert "--config-file params/production.toml --config-env prod" in text


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
    # one at a time in production (params/production.toml; the default reserves nothing and
    # two runs may overlap, which waking a table's idempotence allows)
    assert production_parameters()["SweepReservedConcurrency"] == "1"
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
    # after the account's logging role when the stack sets it (SetApiGatewayLoggingRole)
    assert stage["Metadata"]["AfterLoggingRole"]["Fn::If"][:2] == [
        "SetLoggingRole", {"Ref": "ApiGatewayAccount"}]
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
        # Missing data is an idle stage (no errors, no throttles), except where it means the
        # service is down (issue 23 item 6): those treat it as breaching.
        assert props["TreatMissingData"] == (
            "breaching" if name in MISSING_MEANS_DOWN else "notBreaching"), name
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
              ("AWS/DynamoDB", "WriteThrottleEvents"), ("AWS/DynamoDB", "ReadThrottleEvents"),
              ("Naiko", "SweepHeartbeat"), ("Naiko", "AuthDenied"), ("Naiko", "AuthAllowed"),
              ("Naiko", "AuthMisconfigured"), ("Naiko", "MessagesOversize")}
    assert needed <= every, needed - every
    own = {metric for namespace, metric in every if namespace == "Naiko"}
    assert own <= emitted_metrics(), own - emitted_metrics()
    p99 = [a["Properties"] for a in alarms.values()
           if a["Properties"].get("ExtendedStatistic") == "p99"]
    assert {(a["Namespace"], a["MetricName"]) for a in p99} == {
        ("AWS/Lambda", "Duration"), ("Naiko", "TimerLag")}


MISSING_MEANS_DOWN = {"SweepHeartbeatAlarm"}
"""Alarms whose metric is emitted whenever the service runs: no data is an outage."""


def _metric_stats(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    props = alarm["Properties"]
    return [props] if "MetricName" in props else [
        m["MetricStat"]["Metric"] for m in props["Metrics"] if "MetricStat" in m]


def test_alarms_that_stay_green_while_the_service_is_down(template: dict[str, Any]) -> None:
    """Issue 23 item 6: a wrong AuthPublicKey, a stopped sweep, a throttled table of any kind
    and an alarm that notifies nobody each have their answer."""
    alarms = of_type(template, "AWS::CloudWatch::Alarm")
    # The heartbeat: every sweep run counts it, and its absence is an alarm.
    heartbeat = alarms["SweepHeartbeatAlarm"]["Properties"]
    assert (heartbeat["Namespace"], heartbeat["MetricName"]) == ("Naiko", "SweepHeartbeat")
    assert heartbeat["ComparisonOperator"] == "LessThanThreshold"
    assert heartbeat["Threshold"] == 1 and heartbeat["TreatMissingData"] == "breaching"
    assert 'count("SweepHeartbeat")' in (ROOT / "functions/sweep/app.py").read_text()
    # A wrong key: most verified tokens denied, or no verifier at all.
    auth = alarms["AuthDeniedAlarm"]["Properties"]
    ids = {m["Id"]: m["MetricStat"]["Metric"]["MetricName"]
           for m in auth["Metrics"] if "MetricStat" in m}
    assert ids == {"denied": "AuthDenied", "allowed": "AuthAllowed",
                   "misconfigured": "AuthMisconfigured"}
    (expression,) = [m["Expression"] for m in auth["Metrics"] if m.get("ReturnData")]
    assert "FILL(denied,0) / (FILL(denied,0) + FILL(allowed,0))" in expression
    assert "FILL(misconfigured,0) > 0" in expression
    assert auth["Threshold"] == 0.5
    # Every table's throttles are watched (reads of the tables read from).
    for table in of_type(template, "AWS::DynamoDB::Table"):
        throttles = {s["MetricName"] for alarm in alarms.values() for s in _metric_stats(alarm)
                     if s["Namespace"] == "AWS/DynamoDB"
                     and {"Name": "TableName", "Value": {"Ref": table}} in s["Dimensions"]}
        assert "WriteThrottleEvents" in throttles, table
        if table in ("TablesTable", "TournamentsTable", "HandHistoryTable"):
            assert "ReadThrottleEvents" in throttles, table
    for alarm in alarms.values():  # CloudWatch takes at most 10 metrics in an alarm
        assert len(alarm["Properties"].get("Metrics", [])) <= 10
    # Nobody hears an unsubscribed topic: the address is required, "none" a conscious no.
    email = template["Parameters"]["AlarmEmail"]
    assert "Default" not in email
    pattern = re.compile(email["AllowedPattern"])
    assert pattern.fullmatch("ops@example.com") and pattern.fullmatch("none")
    assert not pattern.fullmatch("")
    assert template["Conditions"]["AlarmByEmail"] == {"Fn::Not": [{"Fn::Equals": [
        {"Ref": "AlarmEmail"}, "none"]}]}
    assert "AlarmEmailSubscription" in render(template, AlarmEmail="ops@example.com")[
        "Resources"]
    assert "AlarmEmailSubscription" not in render(template, AlarmEmail="none")["Resources"]


def test_the_dashboard_graphs_what_the_alarms_watch(template: dict[str, Any]) -> None:
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    for metric in ("TimerLag", "SweepStuckTables", "FanOutFailures", "Conflicts", "Retries",
                   "WriteThrottleEvents", "Throttles", "Duration", "UnexpectedErrors",
                   "SweepHeartbeat", "AuthDenied", "AuthAllowed", "AuthRejectedCheaply"):
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
    """No absolute path nor pyenv version of one machine (the repository's own ``.venv/`` and
    ``.venv-sam/``, which ``scripts/build`` creates, are not such paths), and the system is
    described, not the machine it was developed on (issue 28 item 18: figures live in
    docs/benchmarks.md)."""
    texts = {"docs/deploy.md": DEPLOY.read_text(),
             "README.md deploying": readme_deploying()}
    for name, text in texts.items():
        for local in ("PYENV_VERSION=", "/work/", "/root/", "/home/", "3.11.7:3.12.1",
                      "dev machine", "this machine", "on this machine"):
            assert local not in text, f"{name}: {local}"


def readme_deploying() -> str:
    text = (ROOT / "README.md").read_text()
    return text[text.index("## Deploying to AWS"):].split("\n## ", 1)[0]


def commands(text: str) -> list[str]:
    """Every command the text shows: lines of ``sh``/``bash`` blocks and of ``$ `` transcripts,
    and inline code spans (a span broken over lines joined)."""
    found: list[str] = []
    for kind, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if kind in ("", "sh", "bash"):
            found += [line.removeprefix("$ ") for line in block.splitlines()]
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found += [span.replace("\n", " ") for span in re.findall(r"`([^`]+)`", prose)]
    return found


def test_documented_commands_use_the_repository_s_virtualenvs() -> None:
    """Issue 28 items 13 and 14: the ops scripts need ``cryptography`` and ``boto3`` (in
    ``.venv``) and the SAM CLI lives in ``.venv-sam``: every documented run of one names its
    virtualenv, which ``scripts/build`` creates wherever Python 3.12 is installed."""
    checked = 0
    for name, text in (("docs/deploy.md", DEPLOY.read_text()),
                       ("README.md deploying", readme_deploying())):
        for command in commands(text):
            for script in re.finditer(r"(\S*)\s+scripts/\w+\.py\b", command):
                checked += 1
                assert script.group(1) == ".venv/bin/python", f"{name}: {command}"
            for sam in re.finditer(r"(\S*)\bsam (build|deploy|delete|validate|local) ", command):
                if re.fullmatch(r"sam [a-z ]+", command):  # the command's name, in prose
                    continue
                checked += 1
                assert sam.group(1) == ".venv-sam/bin/", f"{name}: {command}"
            if re.match(r"(python3?|pytest|cfn-lint) ", command):
                raise AssertionError(f"{name}: {command} without its virtualenv")
    assert checked >= 15
    assert "scripts/build" in readme_deploying()
    assert (ROOT / "scripts" / "build").stat().st_mode & 0o111


def test_the_house_accounts_are_funded_as_a_step_of_the_deploy() -> None:
    """Issue 28 item 15: BOTs and Spins need ``house:bots`` and ``house:prizes``; funding them
    is in "3. Deploy", after ``sam deploy`` and before players connect."""
    text = DEPLOY.read_text()
    deploy = text[text.index("## 3. Deploy"):text.index("## 4. Configuration")]
    grants = [c.split() for c in commands(deploy) if "scripts/grant_chips.py house:" in c]
    assert {g[2] for g in grants if g[3].isdigit() and int(g[3]) > 0} == {
        "house:bots", "house:prizes"}  # each granted an amount, not only --balance
    first_grant = deploy.index("scripts/grant_chips.py house:")
    assert deploy.index("sam deploy --guided") < first_grant < deploy.index("wscat")


IAM_PREFIX = {"ApiGateway": "apigateway", "ApiGatewayV2": "apigateway", "CloudWatch": "cloudwatch",
              "DynamoDB": "dynamodb", "IAM": "iam", "Lambda": "lambda", "Logs": "logs",
              "SNS": "sns", "SQS": "sqs", "SecretsManager": "secretsmanager",
              "StepFunctions": "states", "Events": "events", "CloudFront": "cloudfront",
              "WAFv2": "wafv2", "CodeDeploy": "codedeploy"}
"""The IAM prefix of the actions that create each service's resources (``AWS::<service>::``)."""

SAM_EXPANDS = {"AWS::Serverless::Function": {"Lambda", "IAM"},
               "AWS::Serverless::LayerVersion": {"Lambda"}}
SAM_EVENTS = {"Schedule": "Events", "SQS": "Lambda"}  # an EventBridge rule; a Lambda mapping


def test_deploy_md_lists_a_deployer_permission_for_every_service_the_template_uses(
        template: dict[str, Any]) -> None:
    """Issue 28 item 17: "Deployer permissions" has a row, with actions, for the service of
    every resource the stack creates (after the SAM transform), CloudFormation and S3."""
    services = set()
    for resource in template["Resources"].values():
        kind = resource["Type"]
        if kind in SAM_EXPANDS:
            services |= SAM_EXPANDS[kind]
            if "DeploymentPreference" in template["Globals"].get("Function", {}):
                services.add("CodeDeploy")  # an application, a group per function
            for event in resource["Properties"].get("Events", {}).values():
                services.add(SAM_EVENTS[event["Type"]])
        else:
            services.add(kind.split("::")[1])
    assert services <= set(IAM_PREFIX), services - set(IAM_PREFIX)
    text = DEPLOY.read_text()
    section = text[text.index("### Deployer permissions"):]
    section = section[:section.index("\n### ")]
    rows = {m.group(1): m.group(2) for m in
            re.finditer(r"^\| [^|]*\(`(\w+):`\) \| ([^|]+) \|", section, re.M)}
    for prefix in {IAM_PREFIX[s] for s in services} | {"cloudformation", "s3"}:
        assert prefix in rows, f"no {prefix}: row in docs/deploy.md's deployer permissions"
        actions = re.findall(r"`([a-z0-9]+):([A-Z]\w*)", rows[prefix])
        assert actions and {p for p, _ in actions} == {prefix}, rows[prefix]
    assert "CreateChangeSet" in rows["cloudformation"] and "PassRole" in rows["iam"]
    assert "SetApiGatewayLoggingRole" in section  # /account only when the stack sets it


# -- issue 23 item 4: connection floods ---------------------------------------------------------

EDGE = {"EdgeProtection": "on", "EdgeOriginSecret": "e" * 43}
"""The parameters that put CloudFront and AWS WAF in front of the API."""


def test_the_edge_is_off_by_default_and_renders_nothing(template: dict[str, Any]) -> None:
    off = render(template)
    kinds = {r["Type"] for r in off["Resources"].values()}
    assert not {k for k in kinds if k.startswith(("AWS::CloudFront::", "AWS::WAFv2::"))}
    assert "EdgeWebSocketURL" not in off["Outputs"]
    variables = off["Resources"]["AuthorizerFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["EDGE_ORIGIN_SECRET"] == ""  # the authorizer checks no header
    # API Gateway itself refuses a handshake without the token (the identity source), so
    # such a flood never invokes the authorizer.
    assert off["Resources"]["ConnectAuthorizer"]["Properties"]["IdentitySource"] == [
        "route.request.querystring.token"]


def test_the_edge_puts_cloudfront_and_a_waf_rate_rule_in_front_of_the_api(
        template: dict[str, Any]) -> None:
    on = render(template, **EDGE)
    assert dangling(on) == set()
    (distribution,) = of_type(on, "AWS::CloudFront::Distribution").values()
    config = distribution["Properties"]["DistributionConfig"]
    (origin,) = config["Origins"]
    assert origin["DomainName"] == {
        "Fn::Sub": "${WebSocketApi}.execute-api.${AWS::Region}.amazonaws.com"}
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    assert origin["OriginCustomHeaders"] == [
        {"HeaderName": "X-Naiko-Edge", "HeaderValue": {"Ref": "EdgeOriginSecret"}}]
    behaviour = config["DefaultCacheBehavior"]
    assert behaviour["TargetOriginId"] == origin["Id"]
    assert behaviour["CachePolicyId"] == "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"  # no caching
    # every viewer header and the query string (the token), but the API's own Host
    assert behaviour["OriginRequestPolicyId"] == "b689b0a8-53d0-40ab-baf2-68738e2966ac"
    assert config["WebACLId"] == {"Fn::GetAtt": ["EdgeWebAcl", "Arn"]}
    (acl,) = of_type(on, "AWS::WAFv2::WebACL").values()
    props = acl["Properties"]
    assert props["Scope"] == "CLOUDFRONT" and props["DefaultAction"] == {"Allow": {}}
    (rule,) = props["Rules"]
    assert rule["Action"] == {"Block": {}}
    assert rule["Statement"]["RateBasedStatement"] == {
        "AggregateKeyType": "IP", "Limit": {"Ref": "EdgeRateLimit"},
        "EvaluationWindowSec": {"Ref": "EdgeRateWindowSeconds"}}
    variables = on["Resources"]["AuthorizerFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["EDGE_ORIGIN_SECRET"] == {"Ref": "EdgeOriginSecret"}
    assert on["Outputs"]["EdgeWebSocketURL"]["Value"] == {
        "Fn::Sub": "wss://${EdgeDistribution.DomainName}/${Stage}"}
    assert template["Parameters"]["EdgeOriginSecret"]["NoEcho"] is True
    # Without a secret the edge would be one header away from bypassed: the template refuses.
    (rule_check,) = template["Rules"]["EdgeNeedsAnOriginSecret"]["Assertions"]
    assert rule_check["Assert"] == {"Fn::Not": [{"Fn::Equals": [
        {"Ref": "EdgeOriginSecret"}, ""]}]}


def test_the_edge_can_use_a_web_acl_made_in_us_east_1(template: dict[str, Any]) -> None:
    """CloudFront's web ACLs exist only in us-east-1: a stack elsewhere passes one's ARN."""
    arn = "arn:aws:wafv2:us-east-1:123456789012:global/webacl/naiko/0f1e2d3c"
    assert re.fullmatch(template["Parameters"]["EdgeWebAclArn"]["AllowedPattern"], arn)
    rendered = render(template, **EDGE, EdgeWebAclArn=arn)
    assert dangling(rendered) == set()
    assert of_type(rendered, "AWS::WAFv2::WebACL") == {}
    (distribution,) = of_type(rendered, "AWS::CloudFront::Distribution").values()
    assert distribution["Properties"]["DistributionConfig"]["WebACLId"] == {
        "Ref": "EdgeWebAclArn"}


def test_deploy_md_lists_the_limits_that_remain() -> None:
    text = DEPLOY.read_text()
    section = text[text.index("### Connection floods"):]
    section = section[:section.index("\n## ")]
    for fact in ("500 new connections", "WAF cannot attach", "AuthorizerReservedConcurrency",
                 "EdgeProtection", "EdgeOriginSecret", "us-east-1", "identity source",
                 "scripts/bench_authorizer.py"):
        assert fact in section, fact


def test_every_alarm_has_a_runbook(template: dict[str, Any]) -> None:
    """Issue 23 item 8: docs/runbooks.md says, per alarm, what it means and what to do."""
    text = (ROOT / "docs" / "runbooks.md").read_text()
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    covered: dict[str, str] = {}
    for section in sections:
        heading, _, body = section.partition("\n")
        assert "**Means**" in body and "**Do**" in body, heading
        for name in re.findall(r"`(\w+Alarm)`", heading):
            covered[name] = body
    alarms = set(of_type(template, "AWS::CloudWatch::Alarm"))
    assert set(covered) == alarms, set(covered) ^ alarms
    assert "runbooks.md" in DEPLOY.read_text()


# -- issue 23 item 8: deploy safety -------------------------------------------------------------

ROLLBACK_ALARMS = {
    "ConnectFunction": {"UnexpectedErrorsAlarm", "ApiErrorsAlarm"},
    "DisconnectFunction": {"UnexpectedErrorsAlarm", "ApiErrorsAlarm"},
    "GameFunction": {"GameErrorsAlarm", "UnexpectedErrorsAlarm", "ApiErrorsAlarm"},
    "AuthorizerFunction": {"AuthDeniedAlarm", "ApiErrorsAlarm"},
    "TimerFunction": {"TimerErrorsAlarm", "TimerFailuresAlarm", "UnexpectedErrorsAlarm"},
    "SweepFunction": {"SweepErrorsAlarm", "UnexpectedErrorsAlarm"},
    "WatchersFunction": {"WatcherDeadLettersAlarm", "UnexpectedErrorsAlarm"},
}
"""Each function's rollback triggers: the alarms of what its new version could break."""


def test_functions_deploy_gradually_behind_an_alias_with_alarms_to_roll_back(
        template: dict[str, Any]) -> None:
    function = template["Globals"]["Function"]
    assert function["AutoPublishAlias"] == "live"
    assert function["DeploymentPreference"] == {"Type": {"Ref": "DeploymentType"}}
    deployment = template["Parameters"]["DeploymentType"]
    assert deployment["Default"] == "Canary10Percent5Minutes"
    assert {"Canary10Percent5Minutes", "Linear10PercentEvery1Minute", "AllAtOnce"} <= set(
        deployment["AllowedValues"])
    alarms = set(of_type(template, "AWS::CloudWatch::Alarm"))
    functions = of_type(template, "AWS::Serverless::Function")
    assert set(ROLLBACK_ALARMS) == set(functions)
    for name, props in functions.items():
        triggers = props["Properties"]["DeploymentPreference"]["Alarms"]
        assert {t["Ref"] for t in triggers} == ROLLBACK_ALARMS[name], name
        assert {t["Ref"] for t in triggers} <= alarms
    # What invokes a function names its alias, or the canary would never see traffic: the
    # API's integrations and permissions (test_template.py), the authorizer, the queue's
    # mapping and the schedule (SAM attaches event sources to the alias itself).
    uri = template["Resources"]["ConnectAuthorizer"]["Properties"]["AuthorizerUri"]["Fn::Sub"]
    assert uri.endswith("${AuthorizerFunction.Arn}:live/invocations")
    # The heartbeat alarm is no rollback trigger: it is breaching for the minutes after a
    # stack is created, before the first sweep's metric arrives.
    assert all("SweepHeartbeatAlarm" not in t for t in ROLLBACK_ALARMS.values())
    text = DEPLOY.read_text()
    assert "### Deploy safety" in text and "AutoPublishAlias" in text


def test_the_tables_are_protected_from_deletion(template: dict[str, Any]) -> None:
    tables = of_type(template, "AWS::DynamoDB::Table")
    assert len(tables) == 7
    for name, table in tables.items():
        assert table["Properties"]["DeletionProtectionEnabled"] is True, name
    assert "--no-deletion-protection-enabled" in DEPLOY.read_text()


# -- issue 23 item 7: launch capacity and data growth ------------------------------------------

HOT_TABLES = ("TablesTable", "HandHistoryTable", "TournamentsTable", "ConnectionsTable")


def test_warm_throughput_is_off_by_default_and_prewarms_the_hot_tables(
        template: dict[str, Any]) -> None:
    assert default(template, "WarmThroughput") == 0
    off = render(template)
    for name, table in of_type(off, "AWS::DynamoDB::Table").items():
        assert "WarmThroughput" not in table["Properties"], name
    on = render(template, WarmThroughput="16000")
    assert dangling(on) == set()
    warmed = {name for name, table in of_type(on, "AWS::DynamoDB::Table").items()
              if "WarmThroughput" in table["Properties"]}
    assert warmed == set(HOT_TABLES)
    for name in HOT_TABLES:
        assert on["Resources"][name]["Properties"]["WarmThroughput"] == {
            "WriteUnitsPerSecond": {"Ref": "WarmThroughput"}}


def test_stored_hands_expire_after_a_retention_parameter(template: dict[str, Any]) -> None:
    """R10.1: the hands' table deletes by ``expires_at`` (TTL), which the service writes from
    ``HISTORY_RETENTION_DAYS`` = the ``HandRetentionDays`` parameter."""
    hands = template["Resources"]["HandHistoryTable"]["Properties"]
    assert hands["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert default(template, "HandRetentionDays") >= 1
    assert template["Parameters"]["HandRetentionDays"]["MinValue"] >= 1  # they always expire
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["HISTORY_RETENTION_DAYS"] == {"Ref": "HandRetentionDays"}
