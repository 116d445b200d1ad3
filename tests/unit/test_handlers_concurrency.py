"""Invocations side by side in threads (how the local stack runs the handlers): each keeps its
own log keys and its own deadline, so an ``internal_error`` frame carries its own request id."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from naiko_service import bootstrap
from test_handlers import (  # noqa: F401 - fixtures
    FakeLambdaContext,
    Stack,
    handlers,
    load_event,
    stack,
    table,
)


def test_concurrent_failing_frames_each_answer_with_their_own_request_id(
        table: Stack, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    barrier = threading.Barrier(8)

    def slow_failure(table_id: str) -> Any:  # every load fails, after all threads are inside
        barrier.wait(timeout=10)
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(table.store, "load", slow_failure)
    base = load_event("act")
    errors: list[BaseException] = []

    def frame(i: int) -> None:
        event = json.loads(json.dumps(base))
        event["requestContext"]["connectionId"] = f"conn-{i}"
        event["body"] = json.dumps({**json.loads(base["body"]), "request_id": f"req-{i}"})
        try:
            table.handlers["game"].lambda_handler(event, FakeLambdaContext())
        except bootstrap.UnexpectedError:
            pass
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=frame, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert not errors
    for i in range(8):
        [reply] = table.gateway.sent[f"conn-{i}"]
        assert (reply["code"], reply["request_id"]) == ("internal_error", f"req-{i}")


class SlowContext(FakeLambdaContext):
    def __init__(self, remaining: int) -> None:
        super().__init__()
        self.remaining = remaining

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining


def test_each_invocation_has_its_own_deadline(table: Stack) -> None:  # noqa: F811
    seen: dict[str, float] = {}
    barrier = threading.Barrier(2)

    def run(name: str, remaining: int) -> None:
        @bootstrap.entry_point(name)
        def handler(event: dict[str, Any], context: Any) -> None:
            barrier.wait(timeout=10)
            seen[name] = bootstrap.InvocationDeadline().remaining_ms()
        handler({}, SlowContext(remaining))

    threads = [threading.Thread(target=run, args=("short", 1_000)),
               threading.Thread(target=run, args=("long", 25_000))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert seen == {"short": 1_000, "long": 25_000}
    assert bootstrap.InvocationDeadline().remaining_ms() == float("inf")  # outside
