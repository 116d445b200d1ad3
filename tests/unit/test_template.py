"""template.yaml: the linters (cfn-lint, sam validate --lint), sam build, and what the
template must say: a route and an integration per protocol route, the token authorizer on
$connect, IAM scoped to the stack's own resources, and the functions' wiring."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from naiko_service import auth, bootstrap
from naiko_service.protocol import ROUTES

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
FUNCTIONS = {"ConnectFunction": "connect", "DisconnectFunction": "disconnect",
             "GameFunction": "game", "AuthorizerFunction": "authorizer",
             "TimerFunction": "timer", "SweepFunction": "sweep",
             "WatchersFunction": "watchers"}
ALIAS = "live"
"""Every function's ``AutoPublishAlias`` (``Globals``): what API Gateway invokes."""
ROUTE_FUNCTIONS = {"$connect": "ConnectFunction", "$disconnect": "DisconnectFunction",
                   "$default": "GameFunction", **{route: "GameFunction" for route in ROUTES}}


# -- reading the template with its intrinsic functions ---------------------------------------

class _Loader(yaml.SafeLoader):
    """Turns CloudFormation's short tags into their long form (``!Ref X`` -> ``{"Ref": "X"}``,
    ``!GetAtt A.B`` -> ``{"Fn::GetAtt": ["A", "B"]}``, ``!Sub s`` -> ``{"Fn::Sub": s}``)."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        return {"Fn::GetAtt": value.split(".", 1)}
    return {f"Fn::{suffix}": value}


_Loader.add_multi_constructor("!", _intrinsic)


def load_cfn() -> dict[str, Any]:
    """``template.yaml`` with CloudFormation's short tags in their long form."""
    with open(TEMPLATE, encoding="utf-8") as stream:
        loaded: dict[str, Any] = yaml.load(stream, Loader=_Loader)  # noqa: S506 (SafeLoader)
    return loaded


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_cfn()


def resources(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def references(value: Any) -> set[str]:
    """Every logical id or parameter *value* refers to (Ref, GetAtt, ${...} in Sub; SAM's
    ``Ref: Function.Alias`` refers to the function)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref":
                found.add(inner.removesuffix(".Alias"))
            elif key == "Fn::GetAtt":
                found.add(inner[0])
            elif key == "Fn::Sub":
                text = inner if isinstance(inner, str) else inner[0]
                found |= {m.split(".")[0] for m in re.findall(r"\$\{([^}!]+)\}", text)}
            else:
                found |= references(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= references(inner)
    return found


# -- the tools ---------------------------------------------------------------------------------

def _tool(name: str, *candidates: Path) -> str:
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed on this machine")
    return found


def _run(args: list[str], env: dict[str, str] | None = None,
         timeout: int = 900) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    result = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                            env={**os.environ, "SAM_CLI_TELEMETRY": "0", **(env or {})})
    return result, time.monotonic() - started


def _sam() -> str:
    return _tool("sam", ROOT / ".venv-sam" / "bin" / "sam")


def test_cfn_lint_is_clean() -> None:
    cfn_lint = _tool("cfn-lint", Path(sys.executable).parent / "cfn-lint")
    result, seconds = _run([cfn_lint, str(TEMPLATE)])
    print(f"cfn-lint: {seconds:.1f} s")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == ""


def test_sam_validate_lint_is_clean() -> None:
    result, seconds = _run([_sam(), "validate", "--lint", "--template-file", str(TEMPLATE)])
    print(f"sam validate --lint: {seconds:.1f} s")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is a valid SAM Template" in result.stdout + result.stderr


LAYER_PACKAGES = ("naiko", "naiko_service")
"""What the layer carries of this repository (``layers/engine/Makefile``)."""

LOCAL_PACKAGES = ("naiko_client", "naiko_local")
"""Packages of ``local/``: the terminal client and the local stack never go to Lambda."""


def _python312(env: dict[str, str]) -> str:
    """The magic number of python3.12's bytecode (hex); skips when python3.12 is not on PATH
    (``sam build`` needs it without a container; ``scripts/test`` puts pyenv's there)."""
    probe = subprocess.run(
        ["python3.12", "-c", "import importlib.util; print(importlib.util.MAGIC_NUMBER.hex())"],
        capture_output=True, text=True, env={**os.environ, **env}) \
        if shutil.which("python3.12") else None
    if probe is None or probe.returncode != 0:
        pytest.skip("python3.12 is not on PATH (sam build needs it without a container)")
    return probe.stdout.strip()


def botocore_services() -> list[str]:
    """``BOTOCORE_SERVICES`` of ``layers/engine/Makefile``: the botocore models the layer keeps."""
    makefile = (ROOT / "layers/engine/Makefile").read_text()
    found = re.search(r"^BOTOCORE_SERVICES := ((?:.*\\\n)*.*)$", makefile, re.M)
    assert found, "BOTOCORE_SERVICES"
    return found.group(1).replace("\\", " ").split()


def test_the_layer_keeps_the_botocore_model_of_every_client_the_code_builds() -> None:
    # issue 23 item 9 (docs/deploy.md, "7. Cold start"): the build removes every other
    # service's model; a client of a removed one would fail with UnknownServiceError
    named = set()
    for module in (ROOT / "layers/engine").rglob("*.py"):
        named |= set(re.findall(r"(?:aws_client|LazyClient)\(\s*\"([a-z0-9-]+)\"",
                                module.read_text()))
    assert {"dynamodb", "secretsmanager", "apigatewaymanagementapi", "sqs"} <= named
    assert named <= set(botocore_services()), named - set(botocore_services())
    assert not re.search(r"boto3\.(client|resource)\(|create_client\(\s*\"",
                         "".join(p.read_text() for p in (ROOT / "functions").rglob("*.py")))


def assert_lean_compiled_layer(layer: Path, magic: str) -> None:
    """*layer* (the layer's ``python/``) holds the engine, the service and their third-party
    packages, nothing of ``local/`` nor of the build, and an unchecked-hash cpython-312 .pyc
    beside every module, so that Lambda's read-only file system never compiles one."""
    for package in (*LAYER_PACKAGES, "pydantic", "pydantic_core", "cryptography",
                    "aws_lambda_powertools", "aws_xray_sdk", "boto3", "botocore"):
        assert (layer / package / "__init__.py").is_file(), package
    assert (layer / "naiko" / "data" / "eval_tables.bin").is_file()
    models = {p.name for p in (layer / "botocore" / "data").iterdir() if p.is_dir()}
    assert models == set(botocore_services())  # only the services the functions call
    cache = (layer / "naiko" / "data" / "dataclass_code.bin").read_bytes()  # naiko.codecache
    assert cache[:4].hex() == magic and len(cache) > 100_000
    assert (layer / "naiko" / "py.typed").is_file()
    for package in LOCAL_PACKAGES:
        assert not (layer / package).exists(), f"{package} is in the layer"
        assert not list(layer.rglob(f"{package}*")), f"{package} is in the layer"
    for stray in ("Makefile", "requirements.txt", "bin"):
        assert not (layer / stray).exists(), stray
    assert not list(layer.glob("naiko_backend*")), "build metadata in the layer"
    for package in LAYER_PACKAGES:  # every module of ours, as in the repository
        shipped = {p.relative_to(layer / package) for p in (layer / package).rglob("*.py")}
        assert shipped, package
        assert shipped <= {p.relative_to(ROOT / "layers/engine" / package)
                           for p in (ROOT / "layers/engine" / package).rglob("*.py")}
    modules = list(layer.rglob("*.py"))
    assert len(modules) > 500  # the third-party packages are compiled too
    missing, checked = [], []
    for module in modules:
        pyc = module.parent / "__pycache__" / f"{module.stem}.cpython-312.pyc"
        if not pyc.is_file():
            missing.append(str(module.relative_to(layer)))
            continue
        header = pyc.read_bytes()[:8]
        flags = int.from_bytes(header[4:8], "little")
        if header[:4].hex() != magic or flags != 0b01:  # hash-based, source never checked
            checked.append(f"{module.relative_to(layer)}: magic {header[:4].hex()} flags {flags}")
    assert not missing, f"{len(missing)} of {len(modules)} modules without a .pyc: {missing[:5]}"
    assert not checked, f"not unchecked-hash cpython-312: {checked[:5]}"
    for package in LAYER_PACKAGES:
        assert list((layer / package / "__pycache__").glob("*.cpython-312.pyc")), package


@pytest.mark.slow
def test_sam_build_builds_a_lean_compiled_layer_for_arm64_and_every_function(
        tmp_path: Path) -> None:
    """``sam build`` without a container needs python3.12 on PATH; with pyenv that is
    ``PYENV_VERSION=3.11.7:3.12.1``. Takes 10-90 s (pip, wheels cached or not)."""
    sam = _sam()
    env = {"PYENV_VERSION": os.environ.get("PYENV_VERSION", "3.11.7:3.12.1")}
    magic = _python312(env)
    build = tmp_path / "build"
    result, seconds = _run([sam, "build", "--template-file", str(TEMPLATE), "--build-dir",
                            str(build), "--cache-dir", str(tmp_path / "cache")], env=env)
    print(f"sam build: {seconds:.1f} s")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Build Succeeded" in output
    layer = build / "EngineLayer" / "python"
    assert_lean_compiled_layer(layer, magic)
    native = list((layer / "pydantic_core").glob("*.so"))
    assert native and all("aarch64" in so.name for so in native)
    for logical_id in FUNCTIONS:
        assert (build / logical_id / "app.py").is_file(), logical_id


# -- routes, integrations, authorizer -------------------------------------------------------

def test_the_api_is_a_websocket_api_routed_by_the_action_field(template: dict[str, Any]) -> None:
    (api,) = resources(template, "AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["ProtocolType"] == "WEBSOCKET"
    assert api["Properties"]["RouteSelectionExpression"] == "$request.body.action"
    (stage,) = resources(template, "AWS::ApiGatewayV2::Stage").values()
    props = stage["Properties"]
    assert props["StageName"] == {"Ref": "Stage"} and props["AutoDeploy"] is True
    assert {"ThrottlingRateLimit", "ThrottlingBurstLimit"} <= set(props["DefaultRouteSettings"])
    routes = set(resources(template, "AWS::ApiGatewayV2::Route"))
    assert routes <= set(stage["DependsOn"])  # the first deployment has every route


def test_every_route_has_a_route_and_an_integration_to_its_function(
        template: dict[str, Any]) -> None:
    integrations = resources(template, "AWS::ApiGatewayV2::Integration")
    routes = {r["Properties"]["RouteKey"]: r["Properties"]
              for r in resources(template, "AWS::ApiGatewayV2::Route").values()}
    assert set(routes) == set(ROUTE_FUNCTIONS)  # nothing missing, nothing extra
    for route_key, function in ROUTE_FUNCTIONS.items():
        target = routes[route_key]["Target"]
        match = re.fullmatch(r"integrations/\$\{(\w+)\}", target["Fn::Sub"])
        assert match, (route_key, target)
        integration = integrations[match.group(1)]["Properties"]
        assert integration["IntegrationType"] == "AWS_PROXY"
        assert integration["ApiId"] == {"Ref": "WebSocketApi"}
        assert references(integration["IntegrationUri"]) >= {function}, route_key
        # the function's live alias (issue 23 item 8: what CodeDeploy shifts gradually)
        assert integration["IntegrationUri"]["Fn::Sub"].endswith(
            f"${{{function}.Arn}}:{ALIAS}/invocations")


def test_connect_is_the_only_route_and_uses_the_token_authorizer(
        template: dict[str, Any]) -> None:
    routes = {r["Properties"]["RouteKey"]: r["Properties"]
              for r in resources(template, "AWS::ApiGatewayV2::Route").values()}
    connect = routes["$connect"]
    assert connect["AuthorizationType"] == "CUSTOM"
    (name, authorizer), = resources(template, "AWS::ApiGatewayV2::Authorizer").items()
    assert connect["AuthorizerId"] == {"Ref": name}
    props = authorizer["Properties"]
    assert props["AuthorizerType"] == "REQUEST"
    assert props["IdentitySource"] == ["route.request.querystring.token"]
    assert "AuthorizerFunction" in references(props["AuthorizerUri"])
    for key, route in routes.items():  # WebSocket APIs authorize $connect only
        if key != "$connect":
            assert route.get("AuthorizationType", "NONE") == "NONE", key
    function = template["Resources"]["AuthorizerFunction"]["Properties"]
    assert function["Environment"]["Variables"]["AUTH_PUBLIC_KEY"] == {"Ref": "AuthPublicKey"}


def test_tokens_are_bound_to_the_stage(template: dict[str, Any]) -> None:
    """Issue 15 item 9: the authorizer requires iss and aud naiko-<Stage>, what
    scripts/mint_token.py --stage and auth.stage_claim mint; the rotation settings too."""
    variables = template["Resources"]["AuthorizerFunction"]["Properties"]["Environment"][
        "Variables"]
    assert variables["AUTH_ISSUER"] == variables["AUTH_AUDIENCE"] == {"Fn::Sub": "naiko-${Stage}"}
    assert auth.stage_claim("${Stage}") == "naiko-${Stage}"
    assert variables["AUTH_PREVIOUS_PUBLIC_KEY"] == {"Ref": "AuthPreviousPublicKey"}
    assert variables["AUTH_MAX_TOKEN_SECONDS"] == {"Ref": "AuthMaxTokenSeconds"}
    parameters = template["Parameters"]
    assert parameters["AuthPreviousPublicKey"]["Default"] == ""
    previous = re.compile(parameters["AuthPreviousPublicKey"]["AllowedPattern"])
    assert previous.fullmatch("") and previous.fullmatch("A" * 43 + "=")
    assert not previous.fullmatch("A" * 44)
    assert "AUTH_ISSUER" not in template["Globals"]["Function"]["Environment"]["Variables"]


def test_api_gateway_may_invoke_each_function_from_this_api_only(
        template: dict[str, Any]) -> None:
    permissions = {p["Properties"]["FunctionName"]["Ref"].removesuffix(".Alias"): p["Properties"]
                   for p in resources(template, "AWS::Lambda::Permission").values()}
    for permission in resources(template, "AWS::Lambda::Permission").values():
        # on the live alias that the integrations invoke (issue 23 item 8)
        assert permission["Properties"]["FunctionName"]["Ref"].endswith(".Alias")
    expected = {"ConnectFunction": "/${Stage}/$connect",
                "DisconnectFunction": "/${Stage}/$disconnect",
                "GameFunction": "/${Stage}/*",
                "AuthorizerFunction": "/authorizers/${ConnectAuthorizer}"}
    assert set(permissions) == set(expected)
    for function, suffix in expected.items():
        props = permissions[function]
        assert props["Principal"] == "apigateway.amazonaws.com"
        assert props["Action"] == "lambda:InvokeFunction"
        assert props["SourceArn"]["Fn::Sub"] == ("arn:${AWS::Partition}:execute-api:"
                                                 "${AWS::Region}:${AWS::AccountId}:"
                                                 "${WebSocketApi}" + suffix)


# -- IAM -----------------------------------------------------------------------------------

def _statements(template: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(owner, statement) for every statement written in the template: managed policies and
    the functions' inline policy documents."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, policy in resources(template, "AWS::IAM::ManagedPolicy").items():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if "Fn::If" in statement:  # a conditional statement: check its true branch
                statement = statement["Fn::If"][1]
            found.append((name, statement))
    for name, function in resources(template, "AWS::Serverless::Function").items():
        for policy in function["Properties"].get("Policies", []):
            if isinstance(policy, dict) and "Statement" in policy:
                found += [(name, statement) for statement in policy["Statement"]]
    return found


PUSH_APPLICATIONS = {"ApnsPlatformApplicationArn", "ApnsSandboxPlatformApplicationArn",
                     "FcmPlatformApplicationArn"}
"""The parameters naming the SNS platform applications (issue 25)."""

PUSH_STATEMENTS = {"CreatePushEndpoints", "PublishToPushEndpoints"}


def test_iam_statements_are_scoped_to_this_stack_s_resources(template: dict[str, Any]) -> None:
    """No "*" resource anywhere in the template. (SAM itself adds AWSLambdaBasicExecutionRole
    and, for Tracing: Active, AWSXrayWriteOnlyAccess, whose X-Ray actions only exist on "*".)"""
    own = set(template["Resources"])
    statements = _statements(template)
    assert statements
    for owner, statement in statements:
        assert statement["Effect"] == "Allow"
        actions = statement["Action"] if isinstance(statement["Action"], list) \
            else [statement["Action"]]
        assert all("*" not in action for action in actions), (owner, actions)
        resource = statement["Resource"]
        # Push notifications (issue 25): SNS platform applications have no CloudFormation
        # resource; they are the deployer's, named by parameters (test_template_push.py).
        outside = PUSH_APPLICATIONS if statement.get("Sid") in PUSH_STATEMENTS else set()
        for item in resource if isinstance(resource, list) else [resource]:
            assert item != "*" and isinstance(item, dict), (owner, statement)
            refs = references(item) - {"AWS::Partition", "AWS::Region", "AWS::AccountId",
                                       "Stage", "AWS::NoValue"}
            assert refs and refs <= own | outside, (owner, statement)


def test_functions_get_only_the_template_s_own_policies(template: dict[str, Any]) -> None:
    for name, function in resources(template, "AWS::Serverless::Function").items():
        for policy in function["Properties"].get("Policies", []):
            # No AWS managed policies and no SAM policy templates: a statement document or
            # a reference to this template's managed policy.
            assert ("Statement" in policy or
                    policy.get("Ref") in resources(template, "AWS::IAM::ManagedPolicy")), \
                (name, policy)


def test_connections_may_be_managed_on_this_api_and_stage_only(template: dict[str, Any]) -> None:
    manage = [s for _, s in _statements(template)
              if "execute-api:ManageConnections" in s["Action"]]
    assert [s["Resource"] for s in manage] == [[{"Fn::Sub": (
        "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:"
        f"${{WebSocketApi}}/${{Stage}}/{method}/@connections/*")}
        for method in ("POST", "GET", "DELETE")]]


def test_every_call_the_aws_adapters_make_is_allowed(template: dict[str, Any]) -> None:
    """Cross-check naiko_service/aws/*.py against the service policy, so a new client call
    cannot ship without its permission."""
    granted = {action for owner, s in _statements(template) if owner == "ServiceAccessPolicy"
               for action in s["Action"]}
    service = {"dynamodb.py": "dynamodb", "histories.py": "dynamodb", "gateway.py": "execute-api",
               "scheduler.py": "states", "notifier.py": "sns", "watchers.py": "dynamodb"}
    needed: set[str] = set()
    for filename, prefix in service.items():
        source = (ROOT / "layers/engine/naiko_service/aws" / filename).read_text()
        for call in set(re.findall(r"client\.(\w+)\(", source)):
            if call == "transact_write_items":  # authorised per item: Put/Update/Delete/Check
                needed |= {"dynamodb:PutItem", "dynamodb:UpdateItem"}
                if filename == "watchers.py":  # a spectator leaving: Delete + Update
                    needed.add("dynamodb:DeleteItem")
                continue
            if call in ("post_to_connection", "get_connection", "delete_connection"):
                needed.add("execute-api:ManageConnections")
                continue
            if call == "send_message":  # the timer queue's wake-ups, the spectators' updates
                needed.add("sqs:SendMessage")
                continue
            needed.add(f"{prefix}:" + "".join(w.capitalize() for w in call.split("_")))
    assert needed <= granted, needed - granted


def test_connect_may_only_bind_connections(template: dict[str, Any]) -> None:
    """Issue 15 item 9: $connect never loads the table-state key; it may not even read the
    secret, nor learn where it is (nor may the authorizer)."""
    for values, allowed in (({}, {"dynamodb:PutItem"}), (  # with push notifications on, the
            {"FcmPlatformApplicationArn": "arn:aws:sns:eu-west-1:123456789012:app/GCM/naiko"},
            {"dynamodb:PutItem", "dynamodb:UpdateItem"})):  # device book's open connections
        statements = [s for owner, s in _statements(render(template, **values))
                      if owner == "ConnectFunction"]
        actions = {a for s in statements for a in s["Action"]}
        assert actions == allowed, values
        assert [s["Resource"] for s in statements] == [
            {"Fn::GetAtt": ["ConnectionsTable", "Arn"]}]
    functions = resources(template, "AWS::Serverless::Function")
    for name in ("ConnectFunction", "AuthorizerFunction"):
        props = functions[name]["Properties"]
        assert "StateKeySecret" not in references(props), name
        assert props.get("Policies", []) == [] or name == "ConnectFunction"
        assert all(policy.get("Ref") != "ServiceAccessPolicy"
                   for policy in props.get("Policies", [])), name
    assert "STATE_KEY_SECRET_ARN" not in template["Globals"]["Function"]["Environment"][
        "Variables"]
    secret_readers = {owner for owner, s in _statements(template)
                      if "secretsmanager:GetSecretValue" in s["Action"]}
    assert secret_readers == {"ServiceAccessPolicy"}


def test_the_service_functions_read_the_state_key(template: dict[str, Any]) -> None:
    for name, function in resources(template, "AWS::Serverless::Function").items():
        props = function["Properties"]
        variables = props.get("Environment", {}).get("Variables", {})
        service = {"Ref": "ServiceAccessPolicy"} in props.get("Policies", [])
        assert service == (name not in ("ConnectFunction", "AuthorizerFunction")), name
        if service:
            assert variables["STATE_KEY_SECRET_ARN"] == {"Ref": "StateKeySecret"}, name
        else:
            assert "STATE_KEY_SECRET_ARN" not in variables, name


# -- functions, layer, configuration ---------------------------------------------------------

def test_globals_match_the_lambda_settings(template: dict[str, Any]) -> None:
    function = template["Globals"]["Function"]
    assert function["Runtime"] == "python3.12" and function["Architectures"] == ["arm64"]
    assert (function["MemorySize"], function["Timeout"]) == (512, 28)
    # X-Ray is a parameter, off by default (its traces are billed: docs/deploy.md)
    assert function["Tracing"] == {"Ref": "Tracing"}
    assert template["Parameters"]["Tracing"]["Default"] == "PassThrough"
    # ...and without traces the X-Ray SDK is never loaded (its cold start buys nothing)
    assert function["Environment"]["Variables"]["POWERTOOLS_TRACE_DISABLED"] == {
        "Fn::If": ["TracingActive", {"Ref": "TraceDisabled"}, "true"]}
    assert template["Conditions"]["TracingActive"] == {
        "Fn::Equals": [{"Ref": "Tracing"}, "Active"]}
    assert function["Layers"] == [{"Ref": "EngineLayer"}]
    variables = function["Environment"]["Variables"]
    assert variables["POWERTOOLS_SERVICE_NAME"] == "naiko"
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == bootstrap.METRICS_NAMESPACE == "Naiko"
    assert variables["POWERTOOLS_LOG_LEVEL"] == {"Ref": "LogLevel"}
    # no pydantic plugins: no scan of every installed distribution at the first model
    assert variables["PYDANTIC_DISABLE_PLUGINS"] == "__all__"


def test_snap_start_is_a_parameter_off_by_default(template: dict[str, Any]) -> None:
    # issue 23 item 9 (docs/deploy.md "7. Cold start"): SnapStart on the published versions
    # (every function has AutoPublishAlias), and the warm-up it needs told to the code
    parameter = template["Parameters"]["SnapStart"]
    assert (parameter["Default"], parameter["AllowedValues"]) == ("off", ["on", "off"])
    assert template["Conditions"]["SnapStartOn"] == {"Fn::Equals": [{"Ref": "SnapStart"}, "on"]}
    function = template["Globals"]["Function"]
    assert function["AutoPublishAlias"] == "live"
    assert function["SnapStart"] == {"Fn::If": ["SnapStartOn", {"ApplyOn": "PublishedVersions"},
                                                {"Ref": "AWS::NoValue"}]}
    assert function["Environment"]["Variables"]["NAIKO_SNAPSTART"] == {
        "Fn::If": ["SnapStartOn", "true", "false"]}
    for name, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Serverless::Function":
            assert "SnapStart" not in resource["Properties"], name  # the Globals' one
            assert resource["Properties"].get("AutoPublishAlias", "live") == "live", name
    assert bootstrap.snap_start_enabled({"NAIKO_SNAPSTART": "false"}) is False


def test_every_setting_the_bootstrap_reads_is_set(template: dict[str, Any]) -> None:
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    source = (ROOT / "layers/engine/naiko_service/bootstrap.py").read_text()
    read = set(re.findall(r'(?:required|optional|seconds|count)\("([A-Z_]+)"', source))
    assert read == {"TABLES_TABLE", "ACCOUNTS_TABLE", "LEDGER_TABLE", "CONNECTIONS_TABLE",
                    "WEBSOCKET_ENDPOINT",
                    "TIMER_STATE_MACHINE_ARN", "TIMER_LONG_STATE_MACHINE_ARN", "STATE_KEY",
                    "TIMER_QUEUE_URL", "TIMER_TRANSPORT",
                    "STATE_KEY_SECRET_ARN",
                    "DEFAULT_DECISION_SECONDS", "DEFAULT_PAUSE_SECONDS", "SEAT_OFFER_SECONDS",
                    "TOURNAMENTS_TABLE", "HISTORY_TABLE", "HISTORY_RETENTION_DAYS",
                    "DUE_INDEX_SHARDS", "DUE_INDEX_PREVIOUS_SHARDS", "SWEEP_WORKERS",
                    "QUICK_SEAT_STAKES", "WATCHERS_TABLE", "WATCHERS_QUEUE_URL",
                    "SEAL_DICTIONARY"}
    # STATE_KEY is for local/dev only; STATE_KEY_SECRET_ARN is the service functions' own
    # (test_the_service_functions_read_the_state_key), never $connect's.
    assert read - {"STATE_KEY", "STATE_KEY_SECRET_ARN"} <= set(variables)
    assert variables["WEBSOCKET_ENDPOINT"]["Fn::Sub"] == \
        "https://${WebSocketApi}.execute-api.${AWS::Region}.amazonaws.com/${Stage}"
    for table in ("TablesTable", "AccountsTable", "LedgerTable", "ConnectionsTable",
                  "TournamentsTable", "HandHistoryTable", "WatchersTable"):
        assert {"Ref": table} in variables.values()
    # issue 23 item 10: sealed against the preset dictionary unless a stage still upgrades
    assert variables["SEAL_DICTIONARY"] == {"Ref": "SealDictionary"}
    assert template["Parameters"]["SealDictionary"]["Default"] == "on"


def test_each_function_has_its_own_directory_and_handler(template: dict[str, Any]) -> None:
    functions = resources(template, "AWS::Serverless::Function")
    assert set(functions) == set(FUNCTIONS)
    for name, directory in FUNCTIONS.items():
        props = functions[name]["Properties"]
        assert props["CodeUri"] == f"functions/{directory}/"
        assert props["Handler"] == "app.lambda_handler"
        tree = ast.parse((ROOT / "functions" / directory / "app.py").read_text())
        assert any(isinstance(node, ast.FunctionDef) and node.name == "lambda_handler"
                   for node in tree.body), name


def test_the_engine_layer_is_built_for_python_3_12_on_arm64(template: dict[str, Any]) -> None:
    layer = template["Resources"]["EngineLayer"]
    assert layer["Properties"]["ContentUri"] == "layers/engine/"
    assert layer["Properties"]["CompatibleRuntimes"] == ["python3.12"]
    assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]
    assert layer["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": "arm64"}
    makefile = (ROOT / "layers/engine/Makefile").read_text()
    assert re.search(r"^build-EngineLayer:", makefile, re.M)
    for option in ("--platform manylinux2014_aarch64", "--only-binary=:all:",
                   "--implementation cp", "--python-version 3.12",
                   "-m compileall", "--invalidation-mode unchecked-hash",
                   "from naiko.codecache import main", "naiko/data/dataclass_code.bin"):
        assert option in makefile, option
    assert re.search(r"^PACKAGES := naiko naiko_service$", makefile, re.M)


def test_nothing_in_the_template_ships_the_local_packages() -> None:
    """The client and the local stack live in local/, outside every CodeUri and ContentUri."""
    text = TEMPLATE.read_text()
    for package in LOCAL_PACKAGES:
        assert package not in text
        assert (ROOT / "local" / package / "__init__.py").is_file()
        assert not (ROOT / "layers/engine" / package).exists()
    uris = re.findall(r"(?:CodeUri|ContentUri): (\S+)", text)
    assert len(uris) == len(FUNCTIONS) + 1
    assert not [uri for uri in uris if uri.startswith("local") or "naiko_" in uri]


def test_the_layer_pins_its_third_party_packages_and_the_engine_stays_stdlib_only() -> None:
    lines = [line.split("#")[0].strip() for line in
             (ROOT / "layers/engine/requirements.txt").read_text().splitlines()]
    pins = {re.split(r"[\[<>=]", line)[0]: line for line in lines if line}
    assert {"pydantic", "cryptography", "aws-lambda-powertools"} <= set(pins)
    assert "aws-lambda-powertools[tracer]" in pins["aws-lambda-powertools"]
    for line in pins.values():
        assert ">=" in line and "<" in line.replace("<=", ""), line  # a compatible range
    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "layers/engine/naiko").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in stdlib or top == "naiko", f"{path.name} imports {module}"


def test_the_sweep_runs_every_minute(template: dict[str, Any]) -> None:
    events = template["Resources"]["SweepFunction"]["Properties"]["Events"]
    assert [e["Properties"]["Schedule"] for e in events.values() if e["Type"] == "Schedule"] \
        == ["rate(1 minute)"]


def test_the_state_key_secret_is_generated_retained_and_derivable(
        template: dict[str, Any]) -> None:
    (name, secret), = resources(template, "AWS::SecretsManager::Secret").items()
    assert secret["DeletionPolicy"] == secret["UpdateReplacePolicy"] == "Retain"
    generate = secret["Properties"]["GenerateSecretString"]
    assert generate["PasswordLength"] >= 43 and generate["ExcludePunctuation"] is True
    sample = "aB3" * (generate["PasswordLength"] // 3) + "x" * (generate["PasswordLength"] % 3)
    assert len(bootstrap.state_key_from_secret(sample)) == 32
    assert bootstrap.keyring_from_secret(sample).versions == (0, 1)  # legacy + version 1


def test_outputs(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    assert outputs["WebSocketURL"]["Value"]["Fn::Sub"] == \
        "wss://${WebSocketApi}.execute-api.${AWS::Region}.amazonaws.com/${Stage}"
    assert outputs["ManagementEndpoint"]["Value"]["Fn::Sub"] == \
        template["Globals"]["Function"]["Environment"]["Variables"]["WEBSOCKET_ENDPOINT"]["Fn::Sub"]
    for table in ("TablesTable", "AccountsTable", "LedgerTable", "ConnectionsTable",
                  "HandHistoryTable"):
        assert outputs[f"{table}Name"]["Value"] == {"Ref": table}


def test_parameters_have_what_sam_deploy_guided_asks(template: dict[str, Any]) -> None:
    parameters = template["Parameters"]
    assert {"Stage", "AuthPublicKey", "DefaultDecisionSeconds", "DefaultPauseSeconds",
            "LogLevel"} <= set(parameters)
    pattern = re.compile(parameters["AuthPublicKey"]["AllowedPattern"])
    assert pattern.fullmatch("A" * 43 + "=") and not pattern.fullmatch("A" * 44)


# -- conditions: the template as CloudFormation creates it for some parameter values ----------

_DROP = object()
"""What ``Fn::If`` leaves for ``AWS::NoValue``: the key or list item goes."""


def _truth(template: dict[str, Any], value: Any, parameters: dict[str, str]) -> Any:
    """*value* of a ``Conditions`` entry, evaluated (Fn::Equals, Fn::Not, Fn::And, Fn::Or,
    Condition, Ref to a parameter)."""
    if isinstance(value, dict):
        (key, inner), = value.items()
        if key == "Ref":
            return parameters[inner]
        if key == "Condition":
            return _truth(template, template["Conditions"][inner], parameters)
        if key == "Fn::Equals":
            left, right = (_truth(template, v, parameters) for v in inner)
            return str(left) == str(right)
        if key == "Fn::Not":
            return not _truth(template, inner[0], parameters)
        if key == "Fn::And":
            return all(_truth(template, v, parameters) for v in inner)
        if key == "Fn::Or":
            return any(_truth(template, v, parameters) for v in inner)
        raise AssertionError(f"condition function {key} is not rendered by this test")
    return value


def _choose(value: Any, holds: dict[str, bool]) -> Any:
    """*value* with every ``Fn::If`` replaced by the branch its condition takes."""
    if isinstance(value, dict):
        if set(value) == {"Fn::If"}:
            condition, then, otherwise = value["Fn::If"]
            chosen = then if holds[condition] else otherwise
            return _DROP if chosen == {"Ref": "AWS::NoValue"} else _choose(chosen, holds)
        pairs = ((k, _choose(v, holds)) for k, v in value.items())
        return {k: v for k, v in pairs if v is not _DROP}
    if isinstance(value, list):
        items = (_choose(v, holds) for v in value)
        return [v for v in items if v is not _DROP]
    return value


def render(template: dict[str, Any], **values: str) -> dict[str, Any]:
    """*template* as CloudFormation would create it with these parameter *values* (the others
    at their defaults): resources and outputs whose condition is false removed, every
    ``Fn::If`` resolved."""
    parameters = {name: str(p.get("Default", "")) for name, p in template["Parameters"].items()}
    assert set(values) <= set(parameters), set(values) - set(parameters)
    parameters.update(values)
    holds = {name: bool(_truth(template, value, parameters))
             for name, value in template.get("Conditions", {}).items()}
    rendered = {key: value for key, value in template.items()
                if key not in ("Resources", "Outputs", "Conditions")}
    for section in ("Resources", "Outputs"):
        rendered[section] = {name: _choose(body, holds)
                             for name, body in template.get(section, {}).items()
                             if holds.get(body.get("Condition", ""), True)}
    return rendered


def dangling(rendered: dict[str, Any]) -> set[str]:
    """The names a rendered template's resources and outputs refer to (Ref, GetAtt, ${...},
    DependsOn) that are neither one of its resources nor a parameter nor a pseudo parameter:
    CloudFormation refuses such a template."""
    known = set(rendered["Resources"]) | set(rendered["Parameters"])
    named: set[str] = set()
    for body in (*rendered["Resources"].values(), *rendered["Outputs"].values()):
        depends = body.get("DependsOn", [])
        named |= references(body) | set([depends] if isinstance(depends, str) else depends)
    return {name for name in named if name not in known and not name.startswith("AWS::")}


def test_every_condition_renders_to_a_template_without_dangling_references(
        template: dict[str, Any]) -> None:
    for values in ({}, {"SetApiGatewayLoggingRole": "false"}, {"AlarmEmail": "ops@example.com"},
                   {"GameConcurrencyCap": "0", "TimerReservedConcurrency": "0",
                    "SweepReservedConcurrency": "0", "Tracing": "Active"}):
        assert dangling(render(template, **values)) == set(), values


LAMBDA_LEVELS = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"]
"""Lambda's application log levels, most detailed first (``LoggingConfig.ApplicationLogLevel``)."""


def test_functions_log_json_without_lambda_s_platform_lines_and_keep_the_metrics(
        template: dict[str, Any]) -> None:
    """Issue 23 item 10 (docs/deploy.md "Logs"): every function logs in Lambda's JSON format at
    a system level of WARN, so Lambda's START/END/REPORT lines (INFO, ~450 bytes an
    invocation) are not written; its application filter follows ``LogLevel`` but never goes
    above INFO, where Lambda files the metrics' EMF lines (they carry no level): a WARN filter
    would drop every custom metric and the alarms on them. ``scripts/cost_model.py`` counts
    the platform lines from this setting."""
    levels = template["Parameters"]["LogLevel"]["AllowedValues"]
    mapping = template["Mappings"]["ApplicationLogLevels"]
    assert set(mapping) == set(levels)
    for name in FUNCTIONS:
        config = template["Resources"][name]["Properties"]["LoggingConfig"]
        assert config["LogFormat"] == "JSON", name
        assert config["SystemLogLevel"] == "WARN", name
        assert config["ApplicationLogLevel"] == {
            "Fn::FindInMap": ["ApplicationLogLevels", {"Ref": "LogLevel"}, "Lambda"]}, name
    for level in levels:
        lambda_level = mapping[level]["Lambda"]
        assert LAMBDA_LEVELS.index(lambda_level) <= LAMBDA_LEVELS.index("INFO"), level
    assert mapping["DEBUG"]["Lambda"] == "DEBUG"  # debugging still gets its lines
    assert mapping["INFO"]["Lambda"] == "INFO"


def test_the_account_wide_logging_role_is_optional(template: dict[str, Any]) -> None:
    """``SetApiGatewayLoggingRole`` (default ``true``: a first deployment in a new account
    works) sets API Gateway's CloudWatch role for the whole account and region; ``false``
    creates neither the setting nor its role, and the stage keeps its access log (it then
    logs through the role the account already has)."""
    assert template["Parameters"]["SetApiGatewayLoggingRole"]["Default"] == "true"
    on, off = render(template), render(template, SetApiGatewayLoggingRole="false")
    assert set(resources(on, "AWS::ApiGateway::Account")) == {"ApiGatewayAccount"}
    assert on["Resources"]["ApiGatewayAccount"]["Properties"]["CloudWatchRoleArn"] == {
        "Fn::GetAtt": ["ApiGatewayLogsRole", "Arn"]}
    assert resources(off, "AWS::ApiGateway::Account") == {}
    assert set(on["Resources"]) - set(off["Resources"]) == {"ApiGatewayAccount",
                                                           "ApiGatewayLogsRole"}
    assert set(off["Resources"]) - set(on["Resources"]) == set()
    for role in resources(off, "AWS::IAM::Role").values():  # no role for API Gateway itself
        trusted = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert all(s["Principal"].get("Service") != "apigateway.amazonaws.com" for s in trusted)
    # The stage waits for the account's role when the stack sets it, and only then.
    assert "ApiGatewayAccount" in references(on["Resources"]["WebSocketStage"])
    assert "ApiGatewayAccount" not in references(off["Resources"]["WebSocketStage"])
    assert "ApiGatewayAccount" not in template["Resources"]["WebSocketStage"].get("DependsOn", [])
    for rendered in (on, off):
        assert "AccessLogSettings" in rendered["Resources"]["WebSocketStage"]["Properties"]


def test_the_local_parser_reads_the_template_alike_with_libyaml_and_without() -> None:
    """``naiko_local.template`` (every moto test, every local stack) parses on libyaml's
    ``CSafeLoader`` when PyYAML has it: the same document as the pure-Python ``SafeLoader``."""
    from naiko_local import template as local_template

    with open(TEMPLATE, encoding="utf-8") as stream:
        fast = local_template.parse_template(stream)
    with open(TEMPLATE, encoding="utf-8") as stream:
        pure = local_template.parse_template(stream, pure_python=True)
    assert fast == pure
    assert fast["Resources"]["TablesTable"]["Type"] == "AWS::DynamoDB::Table"
    if yaml.__with_libyaml__:
        assert issubclass(local_template._loader(), yaml.CSafeLoader)
    assert not issubclass(local_template._loader(pure_python=True), yaml.CSafeLoader)
