"""Helpers for tests (and local mode) on moto: DynamoDB tables created from ``template.yaml``,
and a capture of the messages posted through the API Gateway Management API."""

from __future__ import annotations

import copy
import json
import re
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import unquote

REGION = "us-east-1"
"""The region every test client uses (moto's default backend region)."""

TEMPLATE_PATH = Path(__file__).resolve().parents[1] / "template.yaml"
"""The SAM template: the single source of truth for the DynamoDB tables."""


# -- template.yaml -> moto tables (the same code local mode uses) ----------------------------

from naiko_local.template import create_tables as _create_tables  # noqa: E402
from naiko_local.template import (  # noqa: E402
    load_template,
    table_definitions,
)

__all__ = ["REGION", "TEMPLATE_PATH", "load_template", "table_definitions",
           "create_tables_from_template", "PostCapture", "capture_posts", "atomic_dynamodb"]


_CREATED: dict[tuple[str, str, str, str], tuple[dict[str, str], dict[str, Any]]] = {}
"""``(template, stage, account, region)`` -> the names and moto's empty ``Table`` objects the
first creation in this process made (see :func:`create_tables_from_template`)."""


def create_tables_from_template(dynamodb_client: Any, stage: str = "test",
                               template_path: Path = TEMPLATE_PATH) -> dict[str, str]:
    """Create every DynamoDB table of ``template.yaml`` (keys, GSIs, TTL, as defined there)
    with *dynamodb_client* (moto's); returns ``logical id -> table name``
    (``{"TablesTable": "naiko-test-tables", ...}``).

    The first call in a process creates them through the API (about 25 requests, 0.2-0.3 s of
    CPU); later calls on moto's in-process backend (``mock_aws``, which starts empty each
    time) put copies of those empty tables into it (about 1 ms): the same tables, as moto made
    them from the template, for the few hundred tests that each start from fresh ones (issue
    28 item 12). A table of the same name already there: created through the API, as
    before (its error unchanged)."""
    backend, key = _in_process_backend(dynamodb_client, stage, template_path)
    if backend is not None and key in _CREATED:
        names, tables = _CREATED[key]
        if not set(tables) & set(backend.tables):
            backend.tables.update(copy.deepcopy(tables))
            return dict(names)
    names = _create_tables(dynamodb_client, load_template(template_path), stage)
    if backend is not None and set(names.values()) <= set(backend.tables):
        _CREATED[key] = (dict(names), copy.deepcopy({name: backend.tables[name]
                                                     for name in names.values()}))
    return names


def _in_process_backend(dynamodb_client: Any, stage: str, template_path: Path
                        ) -> tuple[Any, tuple[str, str, str, str]]:
    """moto's DynamoDB backend that *dynamodb_client* reaches in this process (``None`` for
    any other endpoint: a moto server, AWS), and its key in :data:`_CREATED`."""
    import os

    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    region = dynamodb_client.meta.region_name
    account = os.environ.get("MOTO_ACCOUNT_ID", DEFAULT_ACCOUNT_ID)
    key = (str(template_path), stage, account, region)
    if dynamodb_client.meta.endpoint_url != f"https://dynamodb.{region}.amazonaws.com":
        return None, key
    return dynamodb_backends[account][region], key


# -- API Gateway: a WebSocket route's event, and the Management API -------------------------

def websocket_event(connection_id: str, player: str, route: str, event_type: str,
                    body: str | None = None, *, request_id: str, stage: str,
                    connected_at: int = 0, region: str = "us-east-1") -> dict[str, Any]:
    """The event API Gateway hands a WebSocket route's Lambda: *player*'s frame (*body*, if
    any) on *connection_id*, as the authorizer bound it (``principalId``, ``player_id``)."""
    context = {"routeKey": route, "eventType": event_type, "connectionId": connection_id,
               "domainName": f"abcdef1234.execute-api.{region}.amazonaws.com",
               "stage": stage, "apiId": "abcdef1234", "requestId": request_id,
               "messageDirection": "IN", "connectedAt": connected_at,
               "authorizer": {"principalId": player, "player_id": player}}
    event: dict[str, Any] = {"requestContext": context, "isBase64Encoded": False}
    if body is not None:
        event["body"] = body
    return event


@dataclass
class PostCapture:
    """What :func:`capture_posts` saw: every posted message, one by one, per connection."""

    raw: dict[str, list[bytes]] = field(default_factory=lambda: defaultdict(list))
    """connection_id -> the bodies posted, in order."""
    gone: set[str] = field(default_factory=set)
    """Connections that answer 410 ``GoneException`` (add ids, or call :meth:`mark_gone`)."""

    @property
    def messages(self) -> dict[str, list[Any]]:
        """connection_id -> the posted bodies parsed as JSON."""
        return {cid: [json.loads(body) for body in bodies] for cid, bodies in self.raw.items()}

    def mark_gone(self, *connection_ids: str) -> None:
        self.gone.update(connection_ids)


@contextmanager
def capture_posts() -> Iterator[PostCapture]:
    """Patch moto's Management API backend (inside ``mock_aws``) so that each
    ``post_to_connection`` is recorded separately (moto concatenates them), and connections
    marked gone answer a real HTTP 410 ``GoneException`` to the boto3 client (moto never
    raises it).

    >>> from moto import mock_aws
    >>> import boto3
    >>> with mock_aws(), capture_posts() as posts:
    ...     endpoint = "https://abc.execute-api.us-east-1.amazonaws.com/prod"
    ...     client = boto3.client("apigatewaymanagementapi", region_name=REGION,
    ...                           endpoint_url=endpoint)
    ...     _ = client.post_to_connection(ConnectionId="c1", Data=b'{"a":1}')
    ...     posts.mark_gone("c2")
    ...     try:
    ...         client.post_to_connection(ConnectionId="c2", Data=b"{}")
    ...     except client.exceptions.GoneException as exc:
    ...         print(exc.response["ResponseMetadata"]["HTTPStatusCode"])
    410
    >>> posts.messages
    {'c1': [{'a': 1}]}
    """
    from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend
    from moto.core.exceptions import JsonRESTError

    class GoneException(JsonRESTError):
        code = 410  # moto's stubber answers with the exception's HTTP status

        def __init__(self, connection_id: str):
            super().__init__("GoneException", f"connection {connection_id} is gone")

    capture = PostCapture()

    def post_to_connection(backend: Any, data: bytes, connection_id: str) -> None:
        connection_id = unquote(connection_id)  # moto passes the id still URL-encoded
        if connection_id in capture.gone:
            raise GoneException(connection_id)
        capture.raw[connection_id].append(bytes(data))

    real_get_connection = ApiGatewayManagementApiBackend.get_connection

    def get_connection(backend: Any, connection_id: str) -> Any:
        if unquote(connection_id) in capture.gone:
            raise GoneException(unquote(connection_id))
        return real_get_connection(backend, connection_id)

    with mock.patch.object(ApiGatewayManagementApiBackend, "post_to_connection",
                           post_to_connection), \
            mock.patch.object(ApiGatewayManagementApiBackend, "get_connection", get_connection):
        yield capture


# -- Step Functions --------------------------------------------------------------------------


PASS_STATE_MACHINE = json.dumps({
    "Comment": "A stand-in timer machine for tests: one Pass state.",
    "StartAt": "Done",
    "States": {"Done": {"Type": "Pass", "End": True}},
})

TEST_ROLE_ARN = "arn:aws:iam::123456789012:role/naiko-test-states"

EXECUTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
"""What the scheduler promises about execution names."""


@contextmanager
def atomic_dynamodb() -> Iterator[None]:
    """Every DynamoDB request to moto's in-process backend atomic, as DynamoDB's are.

    moto checks a condition and then stores the item with no lock, so two threads writing
    ``version = :read`` at once can both pass (the local stack serialises its moto server for
    the same reason, ``naiko_local.stack._serial_moto_server``). Tests whose handlers run
    threads against moto (the timer function works a batch's records in parallel) need the
    guarantee the service relies on: one lock around each request's action."""
    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()
    original = DynamoHandler.call_action

    def call_action(self: Any) -> Any:
        with lock:
            return original(self)

    with mock.patch.object(DynamoHandler, "call_action", call_action):
        yield
