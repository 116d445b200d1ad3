"""template.yaml's push notifications (issue 25, item 4): three optional parameters naming SNS
platform applications (empty by default), conditions so that nothing is allowed when they are
empty, IAM scoped to exactly the applications named and their endpoints, the routes, and the
settings the bootstrap reads."""

from __future__ import annotations

import re
from typing import Any

import pytest
from naiko_service import bootstrap
from test_template import _statements, dangling, load_cfn, render

PARAMETERS = {"apns": "ApnsPlatformApplicationArn",
              "apns_sandbox": "ApnsSandboxPlatformApplicationArn",
              "fcm": "FcmPlatformApplicationArn"}

ARNS = {"apns": "arn:aws:sns:eu-west-1:123456789012:app/APNS/naiko-ios",
        "apns_sandbox": "arn:aws:sns:eu-west-1:123456789012:app/APNS_SANDBOX/naiko-dev",
        "fcm": "arn:aws:sns:eu-west-1:123456789012:app/GCM/naiko-android"}



@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_cfn()


SNS_ACTIONS = {"sns:CreatePlatformEndpoint", "sns:Publish", "sns:SetEndpointAttributes",
               "sns:DeleteEndpoint"}


def evaluate(value: Any, parameters: dict[str, str]) -> Any:
    """*value* with Ref (to a parameter), Fn::Join, Fn::Select and Fn::Split computed."""
    if isinstance(value, dict) and len(value) == 1:
        (key, inner), = value.items()
        if key == "Ref":
            return parameters[inner]
        if key == "Fn::Join":
            return inner[0].join(evaluate(v, parameters) for v in inner[1])
        if key == "Fn::Select":
            return evaluate(inner[1], parameters)[int(inner[0])]
        if key == "Fn::Split":
            return evaluate(inner[1], parameters).split(inner[0])
    if isinstance(value, list):
        return [evaluate(v, parameters) for v in value]
    return value


def sns_statements(rendered: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(owner, s) for owner, s in _statements(rendered)
            if any(str(a).startswith("sns:") for a in s["Action"])
            and owner != "AlarmTopicPolicy"]


def test_the_platform_applications_are_optional_and_validated(template: dict[str, Any]) -> None:
    parameters = template["Parameters"]
    for platform, name in PARAMETERS.items():
        parameter = parameters[name]
        assert parameter["Default"] == "" and parameter["Type"] == "String"
        pattern = re.compile(parameter["AllowedPattern"])
        assert pattern.fullmatch("") and pattern.fullmatch(ARNS[platform])
        for other, arn in ARNS.items():  # another platform's application is refused
            assert bool(pattern.fullmatch(arn)) == (other == platform), (name, arn)
        assert not pattern.fullmatch("arn:aws:sns:eu-west-1:123456789012:naiko-alarms")


def test_by_default_nothing_may_touch_sns_mobile_push(template: dict[str, Any]) -> None:
    rendered = render(template)
    assert [s for _, s in sns_statements(rendered)
            if set(s["Action"]) & SNS_ACTIONS] == []
    assert dangling(rendered) == set()


@pytest.mark.parametrize("platforms", [("fcm",), ("apns",), ("apns", "apns_sandbox", "fcm")])
def test_iam_allows_exactly_the_applications_named_and_their_endpoints(
        template: dict[str, Any], platforms: tuple[str, ...]) -> None:
    values = {PARAMETERS[p]: ARNS[p] for p in platforms}
    rendered = render(template, **values)
    assert dangling(rendered) == set()
    parameters = {name: "" for name in PARAMETERS.values()} | values
    granted: dict[str, list[str]] = {}
    for owner, statement in sns_statements(rendered):
        assert owner == "ServiceAccessPolicy", owner
        resources = [evaluate(r, parameters) for r in statement["Resource"]]
        for action in statement["Action"]:
            granted.setdefault(action, []).extend(resources)
    assert set(granted) == SNS_ACTIONS
    assert sorted(granted["sns:CreatePlatformEndpoint"]) == sorted(ARNS[p] for p in platforms)
    endpoints = sorted(ARNS[p].replace(":app/", ":endpoint/") + "/*" for p in platforms)
    for action in ("sns:Publish", "sns:SetEndpointAttributes", "sns:DeleteEndpoint"):
        assert sorted(granted[action]) == endpoints, action
    connect = {a for owner, s in _statements(rendered) if owner == "ConnectFunction"
               for a in s["Action"]}
    assert connect == {"dynamodb:PutItem", "dynamodb:UpdateItem"}


def test_the_functions_get_the_applications_the_bootstrap_reads(template: dict[str, Any]
                                                                 ) -> None:
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    for platform, variable in bootstrap.PUSH_APPLICATION_VARIABLES:
        assert variables[variable] == {"Ref": PARAMETERS[platform]}, variable
    env = {variable: ARNS[platform] for platform, variable
           in bootstrap.PUSH_APPLICATION_VARIABLES}
    assert bootstrap.push_applications(env) == tuple(ARNS.items())
    assert bootstrap.push_applications({}) == ()
    with pytest.raises(bootstrap.ConfigurationError):
        bootstrap.push_applications({"FCM_PLATFORM_APPLICATION_ARN": "naiko"})


def test_the_device_routes_go_to_the_game_function(template: dict[str, Any]) -> None:
    routes = {r["Properties"]["RouteKey"]: r for r in template["Resources"].values()
              if r["Type"] == "AWS::ApiGatewayV2::Route"}
    for key in ("register_device", "unregister_device"):
        assert routes[key]["Properties"]["Target"] == {
            "Fn::Sub": "integrations/${GameIntegration}"}
    depends = template["Resources"]["WebSocketStage"]["DependsOn"]
    assert {"RegisterDeviceRoute", "UnregisterDeviceRoute"} <= set(depends)
