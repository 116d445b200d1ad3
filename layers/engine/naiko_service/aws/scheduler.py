""":mod:`naiko_service.aws.scheduler` runs table timers as Step Functions executions.

One execution per timer: the state machine waits until ``$.due``, then invokes the timer
Lambda with ``{table_id, token}``. The execution name is derived from the table and the token,
so scheduling the same timer twice starts one execution (Step Functions names are unique per
state machine), and timers never need cancelling: a stale token is a no-op when it fires.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

NAME_LIMIT = 80
"""Step Functions execution names: at most 80 characters."""

HASH_CHARS = 16
"""Hex digits of SHA-256 in an execution name (64 bits: different timers never collide)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def execution_name(table_id: str, token: str) -> str:
    """A deterministic execution name for the timer *token* of *table_id*: a readable prefix
    (characters other than ``[A-Za-z0-9_-]`` become ``_``, cut to fit) and a hash of the exact
    pair, so two different timers never share a name even when their prefixes do.

    >>> execution_name("t1", "decision:3.4")
    't1-decision_3_4-005062f36a19e0f0'
    >>> len(execution_name("t" * 100, "window:9")) <= NAME_LIMIT
    True
    """
    digest = hashlib.sha256(json.dumps([table_id, token]).encode()).hexdigest()[:HASH_CHARS]
    readable = _UNSAFE.sub("_", f"{table_id}-{token}")[:NAME_LIMIT - HASH_CHARS - 1]
    return f"{readable}-{digest}"


def due_timestamp(due_ms: int) -> str:
    """The ISO-8601 UTC timestamp (``Z``) for a Wait state's ``TimestampPath``, rounded UP to
    the whole second: Step Functions ignores fractions of a second in a timestamp, so keeping
    them would fire a timer up to a second early (a shortened decision clock); rounding up
    fires it at most a second late.

    >>> due_timestamp(1_700_000_000_000)
    '2023-11-14T22:13:20Z'
    >>> due_timestamp(1_700_000_000_001)
    '2023-11-14T22:13:21Z'
    """
    seconds = -(-due_ms // 1000)
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def execution_input(table_id: str, token: str, due_ms: int, kind: str) -> str:
    """The execution input: ``{"table_id", "token", "kind", "due", "due_ms"}`` as compact JSON
    with sorted keys (the same timer always gives the same input, which Step Functions needs
    to treat a repeated start as idempotent).

    >>> execution_input("t1", "next_hand:3", 1_700_000_000_000, "next_hand")
    '{"due":"2023-11-14T22:13:20Z","due_ms":1700000000000,"kind":"next_hand","table_id":"t1","token":"next_hand:3"}'
    """
    return json.dumps({"table_id": table_id, "token": token, "kind": kind,
                       "due": due_timestamp(due_ms), "due_ms": due_ms},
                      separators=(",", ":"), sort_keys=True)


class StepFunctionsScheduler:
    """:class:`~naiko_service.ports.Scheduler` on Step Functions.

    :param client: A boto3 ``stepfunctions`` client.
    :param state_machine_arn: The timer state machine (waits until ``$.due``, then invokes the
        timer Lambda).
    """

    def __init__(self, client: Any, state_machine_arn: str):
        self.client = client
        self.state_machine_arn = state_machine_arn

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        """Start the timer's execution. Starting it again is harmless: an existing execution
        of that name (``ExecutionAlreadyExists``: same timer, possibly a slightly different
        deadline computed by a retried write) counts as scheduled.

        :raises botocore.exceptions.ClientError: Any other failure, unchanged.
        """
        try:
            self.client.start_execution(stateMachineArn=self.state_machine_arn,
                                        name=execution_name(table_id, token),
                                        input=execution_input(table_id, token, due_ms, kind))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ExecutionAlreadyExists":
                raise
