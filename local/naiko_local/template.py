""":mod:`naiko_local.template` reads ``template.yaml`` (AWS SAM), the single source of truth the
local stack is built from: the DynamoDB tables (keys, indexes, TTL), the WebSocket API's routes
and which function each one reaches, the ``$connect`` authorizer and its identity source.

Nothing here talks to AWS: :func:`create_tables` takes any DynamoDB client (moto's server,
DynamoDB Local). ``tests/aws_testing.py`` has the same table loader for the moto tests; it can
import this module instead of keeping its own copy.

>>> import io
>>> template = parse_template(io.StringIO('''
... Resources:
...   Fn:
...     Type: AWS::Serverless::Function
...     Properties: {CodeUri: functions/game/, Handler: app.lambda_handler}
...   Integration:
...     Type: AWS::ApiGatewayV2::Integration
...     Properties:
...       IntegrationUri: !Sub "arn:aws:apigateway:r:lambda:path/functions/${Fn.Arn}/invocations"
...   Route:
...     Type: AWS::ApiGatewayV2::Route
...     Properties: {RouteKey: act, Target: !Sub "integrations/${Integration}"}
... '''))
>>> websocket_routes(template)["act"].code_uri, websocket_routes(template)["act"].timeout_s
('functions/game/', 3.0)
"""

from __future__ import annotations

import functools
import importlib.util
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository (this file is ``local/naiko_local/template.py``): ``template.yaml`` and
``functions/``."""

TEMPLATE_PATH = ROOT / "template.yaml"


# -- parsing ---------------------------------------------------------------------------------

def _loader(pure_python: bool = False) -> type:
    """The template's loader: on libyaml's ``CSafeLoader`` when PyYAML has it (parsing
    ``template.yaml`` takes a tenth of the CPU: every moto test and local stack parses it), else
    (or with *pure_python*) on ``SafeLoader``; both build the same document."""
    import yaml

    base = yaml.SafeLoader if pure_python else getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class TemplateLoader(base):  # type: ignore[misc,valid-type]
        """A SafeLoader that accepts CloudFormation tags (``!Sub``, ``!Ref``, ``!GetAtt``...)
        and keeps the value under the tag (the tag itself is dropped)."""

    def raw_tag_value(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return loader.construct_scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        raise yaml.constructor.ConstructorError(None, None, f"unexpected node {node!r}",
                                                node.start_mark)

    TemplateLoader.add_multi_constructor("!", raw_tag_value)
    return TemplateLoader


def parse_template(stream: IO[str], pure_python: bool = False) -> dict[str, Any]:
    """Parse a CloudFormation/SAM template from *stream*, tolerating intrinsic-function tags
    (*pure_python*: without libyaml, see :func:`_loader`)."""
    import yaml

    template: dict[str, Any] = yaml.load(stream, Loader=_loader(pure_python))
    return template


def load_template(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    """Parse the template at *path* (``template.yaml`` of this repository by default)."""
    with open(path, encoding="utf-8") as stream:
        return parse_template(stream)


def _resources(template: Mapping[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {logical_id: resource.get("Properties") or {}
            for logical_id, resource in (template.get("Resources") or {}).items()
            if isinstance(resource, dict) and resource.get("Type") == kind}


# -- DynamoDB --------------------------------------------------------------------------------

def table_name(logical_id: str, properties: Mapping[str, Any], stage: str) -> str:
    """The template's ``TableName`` with ``${Stage}`` substituted, else
    ``naiko-<stage>-<logical id>``."""
    name = properties.get("TableName")
    if isinstance(name, str):
        name = name.replace("${Stage}", stage)
        if "${" not in name:
            return name
    return f"naiko-{stage}-{logical_id}"


def table_definitions(template: Mapping[str, Any],
                      stage: str = "local") -> dict[str, dict[str, Any]]:
    """``logical id -> CreateTable arguments`` for every ``AWS::DynamoDB::Table`` (CloudFormation
    property shapes turned into API shapes). The TTL and point-in-time recovery settings come
    back under the extra keys ``TimeToLiveSpecification`` and
    ``PointInTimeRecoverySpecification``, which :func:`create_tables` applies with their own
    calls."""
    definitions: dict[str, dict[str, Any]] = {}
    for logical_id, props in _resources(template, "AWS::DynamoDB::Table").items():
        args: dict[str, Any] = {
            "TableName": table_name(logical_id, props, stage),
            "AttributeDefinitions": props["AttributeDefinitions"],
            "KeySchema": props["KeySchema"],
            "BillingMode": props.get("BillingMode", "PROVISIONED"),
        }
        for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes", "ProvisionedThroughput",
                    "TimeToLiveSpecification", "PointInTimeRecoverySpecification"):
            if key in props:
                args[key] = props[key]
        if "SSESpecification" in props:  # CloudFormation says SSEEnabled, the API Enabled
            sse = dict(props["SSESpecification"])
            args["SSESpecification"] = {"Enabled": bool(sse.pop("SSEEnabled", False)), **sse}
        if "StreamSpecification" in props:
            args["StreamSpecification"] = {"StreamEnabled": True, **props["StreamSpecification"]}
        definitions[logical_id] = args
    return definitions


def create_tables(dynamodb_client: Any, template: Mapping[str, Any] | None = None,
                  stage: str = "local") -> dict[str, str]:
    """Create every DynamoDB table of *template* (default: ``template.yaml``) with
    *dynamodb_client*: keys, GSIs, TTL, as defined there. Returns ``logical id -> table name``
    (``{"TablesTable": "naiko-local-tables", ...}``)."""
    template = load_template() if template is None else template
    names: dict[str, str] = {}
    for logical_id, args in table_definitions(template, stage).items():
        args = dict(args)
        ttl = args.pop("TimeToLiveSpecification", None)
        pitr = args.pop("PointInTimeRecoverySpecification", None)
        dynamodb_client.create_table(**args)
        dynamodb_client.get_waiter("table_exists").wait(
            TableName=args["TableName"], WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        if ttl:
            dynamodb_client.update_time_to_live(TableName=args["TableName"],
                                                TimeToLiveSpecification=ttl)
        if pitr:
            dynamodb_client.update_continuous_backups(
                TableName=args["TableName"], PointInTimeRecoverySpecification=pitr)
        names[logical_id] = args["TableName"]
    return names


def table_environment(template: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, str]:
    """The ``Globals`` function environment variables that name a table (``LEDGER_TABLE:
    !Ref LedgerTable``), with *names* (``logical id -> table name``, what :func:`create_tables`
    returns) substituted: every table a handler reads, as the deployed functions see them, so a
    script or the local stack never keeps its own list that a new table would leave behind.

    >>> template = {"Globals": {"Function": {"Environment": {"Variables": {
    ...     "LEDGER_TABLE": "LedgerTable", "LOG_LEVEL": "INFO"}}}}}
    >>> table_environment(template, {"LedgerTable": "naiko-test-ledger"})
    {'LEDGER_TABLE': 'naiko-test-ledger'}
    """
    variables = (((template.get("Globals") or {}).get("Function") or {})
                 .get("Environment") or {}).get("Variables") or {}
    return {variable: names[value] for variable, value in variables.items()
            if isinstance(value, str) and value in names}


# -- functions and the WebSocket API ---------------------------------------------------------

def load_module(path: Path, module_name: str | None = None) -> ModuleType:
    """Load a function's source file as a fresh module, like a new Lambda container: it is not
    registered in ``sys.modules``, so two loads never share module state."""
    name = module_name or f"naiko_fn_{path.parent.name}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load a function from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_handler(name: str, root: Path = ROOT) -> ModuleType:
    """``functions/<name>/app.py`` as a fresh module (tests, the cost model, local mode)."""
    return load_module(root / "functions" / name / "app.py")


@dataclass(frozen=True)
class FunctionSpec:
    """An ``AWS::Serverless::Function``: where its code is and which handler to call."""

    logical_id: str
    code_uri: str
    """Relative to the template, e.g. ``functions/game/``."""
    handler: str
    """``module.function``, e.g. ``app.lambda_handler``."""
    timeout_s: float = 3.0
    """The function's ``Timeout`` (its own, else ``Globals``; Lambda's default is 3 s)."""

    @property
    def name(self) -> str:
        """The code directory's last part (``game``): the name the local stack uses."""
        return Path(self.code_uri.rstrip("/")).name

    def module_path(self, root: Path = ROOT) -> Path:
        """The handler's source file."""
        module = self.handler.rsplit(".", 1)[0]
        return root / self.code_uri / (module.replace(".", "/") + ".py")

    @property
    def function_name(self) -> str:
        """The handler function's name in its module (``lambda_handler``)."""
        return self.handler.rsplit(".", 1)[1]


_FUNCTION_REF = re.compile(r"\$\{(\w+)\.Arn\}")
_INTEGRATION_REF = re.compile(r"integrations/\$\{(\w+)\}")


def functions(template: Mapping[str, Any]) -> dict[str, FunctionSpec]:
    """``logical id -> FunctionSpec`` for every ``AWS::Serverless::Function``."""
    default = float(template.get("Globals", {}).get("Function", {}).get("Timeout", 3))
    return {logical_id: FunctionSpec(logical_id, str(props["CodeUri"]), str(props["Handler"]),
                                     float(props.get("Timeout", default)))
            for logical_id, props in _resources(template, "AWS::Serverless::Function").items()}


@functools.cache
def default_timeout_s() -> float:
    """The ``Globals`` function timeout of ``template.yaml`` (what a handler gets locally)."""
    return float(load_template().get("Globals", {}).get("Function", {}).get("Timeout", 3))


def _function_of_uri(uri: Any, specs: Mapping[str, FunctionSpec]) -> FunctionSpec | None:
    match = _FUNCTION_REF.search(uri) if isinstance(uri, str) else None
    return specs.get(match.group(1)) if match else None


def websocket_routes(template: Mapping[str, Any]) -> dict[str, FunctionSpec]:
    """``route key -> the function its integration invokes``, for every
    ``AWS::ApiGatewayV2::Route`` whose target is a Lambda proxy integration (``$connect``,
    ``$disconnect``, ``$default`` and the game routes)."""
    specs = functions(template)
    integrations = {
        logical_id: spec for logical_id, props in
        _resources(template, "AWS::ApiGatewayV2::Integration").items()
        if (spec := _function_of_uri(props.get("IntegrationUri"), specs)) is not None}
    routes: dict[str, FunctionSpec] = {}
    for props in _resources(template, "AWS::ApiGatewayV2::Route").values():
        target = props.get("Target")
        match = _INTEGRATION_REF.search(target) if isinstance(target, str) else None
        if match and match.group(1) in integrations:
            routes[str(props["RouteKey"])] = integrations[match.group(1)]
    return routes


@dataclass(frozen=True)
class AuthorizerSpec:
    """The ``$connect`` REQUEST authorizer: its function and identity sources."""

    function: FunctionSpec
    identity_source: tuple[str, ...]
    """E.g. ``("route.request.querystring.token",)``: API Gateway answers 401 without calling
    the function when one of them is missing."""

    def query_parameters(self) -> tuple[str, ...]:
        """The query-string parameters among the identity sources."""
        prefix = "route.request.querystring."
        return tuple(s[len(prefix):] for s in self.identity_source if s.startswith(prefix))


def connect_authorizer(template: Mapping[str, Any]) -> AuthorizerSpec | None:
    """The authorizer attached to the ``$connect`` route, if any."""
    specs = functions(template)
    authorizers = _resources(template, "AWS::ApiGatewayV2::Authorizer")
    for props in _resources(template, "AWS::ApiGatewayV2::Route").values():
        if props.get("RouteKey") != "$connect":
            continue
        authorizer_id = props.get("AuthorizerId")
        authorizer = authorizers.get(authorizer_id) if isinstance(authorizer_id, str) else None
        if authorizer is None:
            return None
        spec = _function_of_uri(authorizer.get("AuthorizerUri"), specs)
        if spec is None:
            return None
        sources = authorizer.get("IdentitySource") or []
        if isinstance(sources, str):
            sources = [s.strip() for s in sources.split(",")]
        return AuthorizerSpec(spec, tuple(str(s) for s in sources))
    return None


def route_selection_expression(template: Mapping[str, Any]) -> str | None:
    """The WebSocket API's ``RouteSelectionExpression`` (``$request.body.action``)."""
    for props in _resources(template, "AWS::ApiGatewayV2::Api").values():
        if props.get("ProtocolType") == "WEBSOCKET":
            expression = props.get("RouteSelectionExpression")
            return str(expression) if expression else None
    return None


def sweep_function(template: Mapping[str, Any]) -> tuple[FunctionSpec, float] | None:
    """The function with a ``Schedule`` event (the sweep) and its period in seconds
    (``rate(1 minute)`` -> 60)."""
    for logical_id, props in _resources(template, "AWS::Serverless::Function").items():
        for event in (props.get("Events") or {}).values():
            if not isinstance(event, dict) or event.get("Type") != "Schedule":
                continue
            schedule = str((event.get("Properties") or {}).get("Schedule", ""))
            period = rate_seconds(schedule)
            if period is not None:
                return (FunctionSpec(logical_id, str(props["CodeUri"]), str(props["Handler"])),
                        period)
    return None


_RATE = re.compile(r"^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$")


def rate_seconds(schedule: str) -> float | None:
    """Seconds between runs of an EventBridge ``rate(...)`` expression (``None`` for a cron).

    >>> rate_seconds("rate(1 minute)"), rate_seconds("rate(2 hours)")
    (60.0, 7200.0)
    >>> rate_seconds("cron(0 12 * * ? *)") is None
    True
    """
    match = _RATE.match(schedule.strip())
    if match is None:
        return None
    unit = {"minute": 60, "hour": 3600, "day": 86400}[match.group(2).rstrip("s")]
    return float(int(match.group(1)) * unit)
