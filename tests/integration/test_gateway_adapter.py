"""The API Gateway Management API adapter against moto: each message is posted as compact JSON
to its connection, and a 410 ``GoneException`` becomes :class:`ConnectionGone`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

import boto3
import pytest
from aws_testing import REGION, PostCapture, capture_posts
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)
from moto import mock_aws
from naiko_service import bootstrap
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


# -- retries: a post is never delivered twice ------------------------------------------------

class _SlowManagementApi(ThreadingHTTPServer):
    """A Management API that delivers each post at once and answers it *delay* seconds later
    (an event loop busy elsewhere: the local gateway's posts took 1.1-1.2 s under load)."""

    daemon_threads = True

    def __init__(self, delay: float):
        self.delay = delay
        self.posts: list[str] = []
        super().__init__(("127.0.0.1", 0), _SlowHandler)


class _SlowHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _SlowManagementApi

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.posts.append(self.path)  # delivered
        time.sleep(self.server.delay)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def slow_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[_SlowManagementApi]:
    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_DEFAULT_REGION", REGION)):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    server = _SlowManagementApi(delay=1.3)  # past the clients' 1 s read timeout
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_r8_3_a_post_answered_after_the_read_timeout_is_not_posted_again(
        slow_api: _SlowManagementApi) -> None:
    """The service's gateway (as the handlers build it): a post whose answer comes after the
    read timeout may have been delivered, so it fails and is not posted again. The SDK's retry
    posted it a second time: each player got that update twice (the e2e test's "a write was
    pushed twice", run 5 and 11 of a stress loop: two posts 1.2 s apart, the same bytes)."""
    gateway = bootstrap.management_gateway(f"http://127.0.0.1:{slow_api.server_port}/local")
    with pytest.raises(ReadTimeoutError):
        gateway.send("conn-A=", {"type": "update", "table_id": "t1", "version": 17})
    assert slow_api.posts == ["/local/@connections/conn-A%3D"]  # once


def _failing_then_sent(failure: Exception) -> mock.Mock:
    return mock.Mock(side_effect=[failure, {}])


@pytest.mark.parametrize("failure", [
    EndpointConnectionError(endpoint_url="https://api"),
    ConnectTimeoutError(endpoint_url="https://api"),
    ConnectionClosedError(endpoint_url="https://api"),
    ClientError({"Error": {"Code": "LimitExceededException", "Message": "slow down"},
                 "ResponseMetadata": {"HTTPStatusCode": 429}}, "PostToConnection"),
], ids=["no-connection", "connect-timeout", "closed-before-answer", "throttled"])
def test_a_post_that_was_not_delivered_is_tried_once_more(failure: Exception) -> None:
    client = mock.Mock(post_to_connection=_failing_then_sent(failure))
    ManagementApiGateway(client).send("c1", {"type": "ack"})
    assert client.post_to_connection.call_count == 2


@pytest.mark.parametrize("failure", [
    ReadTimeoutError(endpoint_url="https://api"),
    ClientError({"Error": {"Code": "InternalServerErrorException", "Message": ""},
                 "ResponseMetadata": {"HTTPStatusCode": 500}}, "PostToConnection"),
], ids=["read-timeout", "server-error"])
def test_a_post_that_may_have_been_delivered_is_not_tried_again(failure: Exception) -> None:
    client = mock.Mock(post_to_connection=_failing_then_sent(failure))
    with pytest.raises(type(failure)):
        ManagementApiGateway(client).send("c1", {"type": "ack"})
    assert client.post_to_connection.call_count == 1


def test_twice_not_delivered_is_raised() -> None:
    failure = EndpointConnectionError(endpoint_url="https://api")
    client = mock.Mock(post_to_connection=mock.Mock(side_effect=[failure, failure, {}]))
    with pytest.raises(EndpointConnectionError):
        ManagementApiGateway(client).send("c1", {"type": "ack"})
    assert client.post_to_connection.call_count == 2
