"""The API Gateway Management API adapter against moto: each message is posted as compact JSON
to its connection, and a 410 ``GoneException`` becomes :class:`ConnectionGone`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from unittest import mock

import boto3
import pytest
from aws_testing import REGION, PostCapture, capture_posts
from botocore.exceptions import ClientError
from moto import mock_aws
from naiko_service.aws import ManagementApiGateway
from naiko_service.ports import ConnectionGone

ENDPOINT = "https://abc123.execute-api.us-east-1.amazonaws.com/prod"
"""The WebSocket API's callback URL (``https://{api-id}.execute-api.{region}.amazonaws.com/
{stage}``)."""


@pytest.fixture(params=[ENDPOINT, ENDPOINT.removesuffix("/prod")], ids=["stage", "no-stage"])
def posts(request: pytest.FixtureRequest) -> Iterator[tuple[ManagementApiGateway, PostCapture]]:
    with mock_aws(), capture_posts() as capture:
        client = boto3.client("apigatewaymanagementapi", region_name=REGION,
                              endpoint_url=request.param)
        yield ManagementApiGateway(client), capture


def test_messages_are_captured_one_by_one_per_connection(
        posts: tuple[ManagementApiGateway, PostCapture]) -> None:
    gateway, capture = posts
    gateway.send("conn-A=", {"type": "ack", "request_id": "r1", "version": 2})
    gateway.send("conn-B=", {"type": "event", "kind": "folded", "seat_index": 3})
    gateway.send("conn-A=", {"type": "prompt", "actions": ["fold", "call"]})
    assert capture.messages == {
        "conn-A=": [{"type": "ack", "request_id": "r1", "version": 2},
                    {"type": "prompt", "actions": ["fold", "call"]}],
        "conn-B=": [{"type": "event", "kind": "folded", "seat_index": 3}],
    }


def test_messages_are_compact_utf8_json(posts: tuple[ManagementApiGateway, PostCapture]) -> None:
    gateway, capture = posts
    message = {"type": "error", "message": "mesa llena ♠", "codes": [1, 2]}
    gateway.send("c1", message)
    assert capture.raw["c1"] == [json.dumps(message, separators=(",", ":"),
                                            ensure_ascii=False).encode()]


def test_a_gone_connection_raises_connection_gone(
        posts: tuple[ManagementApiGateway, PostCapture]) -> None:
    gateway, capture = posts
    capture.mark_gone("left-early=")
    with pytest.raises(ConnectionGone) as caught:
        gateway.send("left-early=", {"type": "snapshot"})
    assert str(caught.value) == "left-early="
    cause = caught.value.__cause__
    assert isinstance(cause, ClientError)
    assert cause.response["Error"]["Code"] == "GoneException"
    assert cause.response["ResponseMetadata"]["HTTPStatusCode"] == 410
    gateway.send("still-here=", {"type": "snapshot"})  # other connections are unaffected
    assert capture.messages == {"still-here=": [{"type": "snapshot"}]}


def test_other_errors_propagate_unchanged(
        posts: tuple[ManagementApiGateway, PostCapture]) -> None:
    gateway, _ = posts
    failure = ClientError({"Error": {"Code": "LimitExceededException", "Message": "slow down"},
                           "ResponseMetadata": {"HTTPStatusCode": 429}}, "PostToConnection")
    with mock.patch.object(gateway.client, "post_to_connection", side_effect=failure):
        with pytest.raises(ClientError) as caught:
            gateway.send("c1", {"type": "ack"})
    assert caught.value is failure


def test_a_bare_410_counts_as_gone(posts: tuple[ManagementApiGateway, PostCapture]) -> None:
    gateway, _ = posts
    failure = ClientError({"Error": {"Code": "410", "Message": ""},
                           "ResponseMetadata": {"HTTPStatusCode": 410}}, "PostToConnection")
    with mock.patch.object(gateway.client, "post_to_connection", side_effect=failure):
        with pytest.raises(ConnectionGone):
            gateway.send("c1", {"type": "ack"})
