"""The timer state machines of ``template.yaml``: valid Amazon States Language (``asl-validator``
from npm, on the definitions as deployed), ``cfn-lint`` clean, one definition on both workflow
types, wired as ``docs/timers.md`` says; and the scheduler's choice of machine by cost.

``asl-validator`` is installed on first use into ``.cache/npm`` (``npm install --no-save``, a
pinned version, under a file lock so parallel workers install it once). Only a missing ``npm``
skips the test; a failed install fails it.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from naiko_service.aws.scheduler import EXPRESS_MAX_WAIT_MS, StepFunctionsScheduler

ROOT = Path(__file__).resolve().parents[2]
NPM_CACHE = ROOT / ".cache" / "npm"
ASL_VALIDATOR = "asl-validator@4.0.0"
MACHINES = {"TimerExpressStateMachine": "EXPRESS", "TimerStandardStateMachine": "STANDARD"}
FUNCTION_ARN = ("arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:"
                "function:naiko-${Stage}-timer")
DEPLOYED_ARN = "arn:aws:lambda:us-east-1:123456789012:function:naiko-prod-timer"


class _Loader(yaml.SafeLoader):
    """CloudFormation's short tags in their long form (``!Ref X`` -> ``{"Ref": "X"}``)."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {"Ref": value} if suffix == "Ref" else {f"Fn::{suffix}": value}


_Loader.add_multi_constructor("!", _intrinsic)


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    with open(ROOT / "template.yaml", encoding="utf-8") as stream:
        loaded: dict[str, Any] = yaml.load(stream, Loader=_Loader)  # noqa: S506 (SafeLoader)
    return loaded


def deployed_definition(template: dict[str, Any], logical_id: str) -> str:
    """The definition as Step Functions receives it: ``DefinitionSubstitutions`` applied."""
    properties = template["Resources"][logical_id]["Properties"]
    text = json.dumps(properties["Definition"], indent=2)
    for name in properties["DefinitionSubstitutions"]:
        text = text.replace("${" + name + "}", DEPLOYED_ARN)
    assert "${" not in text
    return text


def asl_validator() -> Path:
    """The ``asl-validator`` command, installed into ``.cache/npm`` if needed."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed (asl-validator is an npm package)")
    binary = NPM_CACHE / "node_modules" / ".bin" / "asl-validator"
    package = NPM_CACHE / "node_modules" / "asl-validator" / "package.json"
    wanted = ASL_VALIDATOR.rsplit("@", 1)[1]
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    with open(NPM_CACHE.parent / "npm.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (binary.exists() and package.exists()
                and json.loads(package.read_text())["version"] == wanted):
            subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund",
                            "--prefix", str(NPM_CACHE), ASL_VALIDATOR],
                           check=True, capture_output=True, timeout=600)
    return binary


@pytest.mark.parametrize("logical_id", sorted(MACHINES))
def test_asl_validator_accepts_each_timer_definition(template: dict[str, Any], logical_id: str,
                                                     tmp_path: Path) -> None:
    command = asl_validator()
    path = tmp_path / f"{logical_id}.asl.json"
    path.write_text(deployed_definition(template, logical_id))
    result = subprocess.run([str(command), "--json-path", str(path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is valid" in result.stdout
    # ... and the validator is not vacuous: the same definition without its terminal state
    broken = json.loads(path.read_text())
    del broken["States"]["Fire"]["End"]
    path.write_text(json.dumps(broken))
    result = subprocess.run([str(command), "--json-path", str(path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode != 0 and "MISSING_TERMINAL_STATE" in result.stdout + result.stderr


def test_cfn_lint_is_clean_on_the_template_and_its_state_machines(tmp_path: Path) -> None:
    """cfn-lint checks the whole template (references, no circular dependency between the
    machines, the functions and their policies) and each state machine's definition against
    the States Language schema (E3601, on ``AWS::StepFunctions::StateMachine``)."""
    from cfnlint.api import lint_file

    matches = lint_file(ROOT / "template.yaml")
    assert matches == [], "\n".join(str(m) for m in matches)
    # ... and it does read the definitions: a stray field in one is reported.
    broken = tmp_path / "template.yaml"
    broken.write_text((ROOT / "template.yaml").read_text().replace(
        "            ResultPath: $.result\n", "            ResultPath: $.result\n"
        "            Foo: 1\n", 1))
    assert [m.rule.id for m in lint_file(broken)] == ["E3601"]


def test_one_definition_two_workflow_types(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    definitions = []
    for logical_id, kind in MACHINES.items():
        machine = resources[logical_id]
        assert machine["Type"] == "AWS::StepFunctions::StateMachine"
        properties = machine["Properties"]
        assert properties["StateMachineType"] == kind
        assert properties["RoleArn"] == {"Fn::GetAtt": "TimerStateMachineRole.Arn"}
        assert properties["DefinitionSubstitutions"] == {
            "TimerFunctionArn": {"Fn::Sub": FUNCTION_ARN}}
        definitions.append(properties["Definition"])
    assert definitions[0] == definitions[1]
    definition = definitions[0]
    assert definition["StartAt"] == "WaitUntilDue"
    wait, fire = definition["States"]["WaitUntilDue"], definition["States"]["Fire"]
    assert wait == {"Type": "Wait", "TimestampPath": "$.due", "Next": "Fire"}
    assert fire["Resource"] == "arn:aws:states:::lambda:invoke" and fire["End"] is True
    assert fire["Parameters"] == {"FunctionName": "${TimerFunctionArn}",
                                  "Payload": {"table_id.$": "$.table_id", "token.$": "$.token"}}
    # Retries are transitions (STANDARD) or seconds (EXPRESS): few, short, and bounded.
    assert sum(r["MaxAttempts"] for r in fire["Retry"]) <= 4


def test_the_machines_may_invoke_only_the_timer_function(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    assert resources["TimerFunction"]["Properties"]["FunctionName"] == {
        "Fn::Sub": "naiko-${Stage}-timer"}
    role = resources["TimerStateMachineRole"]["Properties"]
    [assumed] = role["AssumeRolePolicyDocument"]["Statement"]
    assert assumed["Principal"] == {"Service": "states.amazonaws.com"}
    [policy] = role["Policies"]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == ["lambda:InvokeFunction"]
    assert statement["Resource"] == {"Fn::Sub": FUNCTION_ARN}
    assert role.get("ManagedPolicyArns") is None


def test_the_scheduling_functions_may_start_exactly_these_machines(
        template: dict[str, Any]) -> None:
    resources = template["Resources"]
    statements = resources["ServiceAccessPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    starting = [s for s in statements  # (a conditional statement, Fn::If, is no timer's)
                if any(a.startswith("states:") for a in s.get("Action", []))]
    assert starting == [{"Sid": "StartTimers", "Effect": "Allow",
                         "Action": ["states:StartExecution"],
                         "Resource": [{"Ref": "TimerExpressStateMachine"},
                                      {"Ref": "TimerStandardStateMachine"}]}]
    # Every function that changes tables (and so arms wake-ups) has that policy; the others not.
    with_policy = {name for name, resource in resources.items()
                   if resource["Type"] == "AWS::Serverless::Function"
                   and {"Ref": "ServiceAccessPolicy"} in resource["Properties"].get("Policies", [])}
    assert with_policy == {"GameFunction", "DisconnectFunction", "TimerFunction", "SweepFunction",
                           "WatchersFunction"}  # the spectators' worker: the service's adapters
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["TIMER_STATE_MACHINE_ARN"] == {"Ref": "TimerExpressStateMachine"}
    assert variables["TIMER_LONG_STATE_MACHINE_ARN"] == {"Ref": "TimerStandardStateMachine"}
    assert "TimerStateMachineArn" not in template["Parameters"]  # the placeholder is gone


class _Client:
    def __init__(self) -> None:
        self.started: list[dict[str, Any]] = []

    def start_execution(self, **request: Any) -> dict[str, Any]:
        self.started.append(request)
        return {"executionArn": "arn"}


@pytest.mark.parametrize(("wait_ms", "machine"), [
    (0, "express"), (3_000, "express"), (20_000, "express"), (EXPRESS_MAX_WAIT_MS, "express"),
    (EXPRESS_MAX_WAIT_MS + 1, "standard"), (600_000, "standard"),
])
def test_the_scheduler_sends_short_waits_to_express_and_long_ones_to_standard(
        wait_ms: int, machine: str) -> None:
    client = _Client()
    scheduler = StepFunctionsScheduler(client, "express", "standard", now_ms=lambda: 1_000_000)
    scheduler.schedule("t1", "decision:1.0", 1_000_000 + wait_ms, "decision")
    assert [r["stateMachineArn"] for r in client.started] == [machine]


def test_without_a_long_machine_every_wait_goes_to_the_one_machine() -> None:
    client = _Client()
    scheduler = StepFunctionsScheduler(client, "only", now_ms=lambda: 0)
    scheduler.schedule("t1", "sit_out_limit:p:0", 600_000, "sit_out_limit")
    assert client.started[0]["stateMachineArn"] == "only"


def test_the_express_limit_is_the_break_even_wait() -> None:
    """From the us-east-1 prices (scripts/cost_model.py): STANDARD 2 transitions x $0.000025;
    EXPRESS $0.000001 + 64 MB x (wait + 0.1 s) x $0.0000166667/GB-s. The limit sits just
    under the break-even, far from EXPRESS's 5-minute maximum."""
    standard = 2 * 0.000025
    per_second = 64 / 1024 * 0.0000166667
    break_even_s = (standard - 0.000001) / per_second - 0.1
    assert 40 <= EXPRESS_MAX_WAIT_MS / 1000 <= break_even_s < 300
