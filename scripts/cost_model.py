#!/usr/bin/env python3
"""Cost per 1,000 hands of a 6-max table of humans, from AWS calls COUNTED while hands are
played through the real Lambda handlers on moto.

    .venv/bin/python scripts/cost_model.py [--hands 200] [--seed 1] [--design all]
    .venv/bin/python scripts/cost_model.py --tournament sng|spin [--knockout] [--deal N]

What runs: six players connect and sit at an NLHE 1/2 table (buy-in 200, decision clock 20 s,
pause 3 s, the template's defaults); each decision is taken after a think time drawn below (or
never, for a player who lets the clock run out), by sending the frame through
``functions/game/app.py``. Every AWS call the handlers make is counted at botocore's
``_make_api_call`` (moto answers it), with its parameters and response, so DynamoDB units come
from the real item sizes. Timers run on a virtual clock: each counted ``SendMessage`` to the
timer queue is delivered ``DelaySeconds`` after it was sent, as an SQS event of one record to
``functions/timer/app.py`` (what the event source mapping does; the queue path is exercised on
moto in ``tests/integration/test_timer_queue_on_moto.py``), and each ``StartExecution`` fires
at its ``$.due`` with ``{table_id, token}``, as the state machine's Task does
(``tests/integration/test_timers_on_moto.py``); the sweep runs every virtual minute. Setup
(connecting, creating the table, the first buy-ins) is not counted; rebuys are.

Designs compared on the same seeded players:

``wake-up``   this design: one armed wake-up per table, re-armed only when the earliest
              deadline moves earlier (``usecases.arming.arm``), sent on the timer queue (SQS
              delay queue) up to 15 minutes, else STANDARD (``TimerTransport=queue``).
``express``   the same wake-ups on the EXPRESS machine up to 45 s, else STANDARD
              (``TimerTransport=express``, the design before).
``per-timer`` one execution per timer, each waiting until its deadline even when the turn ended
              early (EXPRESS up to 45 s, else STANDARD).
``naive``     one STANDARD execution per timer, i.e. per action.

Prices (us-east-1, on-demand, no free tier; read 2026-11-29 from the pages below):
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import heapq
import io
import itertools
import json
import math
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"), str(ROOT / "tests")]
# (``local`` too: naiko_local.template loads the handlers of THIS tree, not of an installed one)

from naiko_local.stack import LambdaContext  # noqa: E402
from naiko_local.template import load_handler  # noqa: E402


def Context() -> LambdaContext:  # noqa: N802 - reads like the handlers' context class
    """A Lambda context for the handlers (naiko_local.stack.LambdaContext)."""
    return LambdaContext("naiko-cost")


PRICES = {
    # https://aws.amazon.com/lambda/pricing/ (Arm, first tier)
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm": 0.0000133334,
    # https://aws.amazon.com/dynamodb/pricing/on-demand/ (since 2024-11-01)
    "dynamodb_wru": 0.625 / 1e6,
    "dynamodb_rru": 0.125 / 1e6,
    # https://aws.amazon.com/api-gateway/pricing/ (WebSocket: first billion messages; a message
    # is metered in 32 KB units)
    "apigw_message": 1.00 / 1e6,
    "apigw_connection_minute": 0.25 / 1e6,
    # https://aws.amazon.com/sqs/pricing/ (standard queue, per request of up to 64 KB)
    "sqs_request": 0.40 / 1e6,
    # https://aws.amazon.com/step-functions/pricing/
    "sfn_standard_transition": 0.025 / 1000,
    "sfn_express_request": 1.00 / 1e6,
    "sfn_express_gb_second": 0.00001667,  # first 1,000 GB-hours/month; 64 MB chunks, 100 ms
    # https://aws.amazon.com/cloudwatch/pricing/ (Logs, Standard class: data ingested)
    "logs_ingested_gb": 0.50,
    # https://aws.amazon.com/xray/pricing/ (traces recorded)
    "xray_trace_recorded": 5.00 / 1e6,
    # https://aws.amazon.com/secrets-manager/pricing/ (API calls),
    # https://aws.amazon.com/kms/pricing/ (requests; the secret's key is aws/secretsmanager)
    "secrets_api_call": 0.05 / 10_000,
    "kms_request": 0.03 / 10_000,
    # https://aws.amazon.com/api-gateway/pricing/ ("data transfer out ... at the Amazon EC2
    # data transfer rates"), https://aws.amazon.com/ec2/pricing/on-demand/ (Data Transfer OUT
    # from Amazon EC2 to the internet: the first 10 TB a month; EGRESS_TIERS below for the rest)
    "internet_egress_gb": 0.09,
    # https://aws.amazon.com/dynamodb/pricing/on-demand/ (data storage after the first 25 GB,
    # Standard table class; continuous backups, PITR, per GB-month of table size)
    "dynamodb_storage_gb_month": 0.25,
    "dynamodb_pitr_gb_month": 0.20,
    # https://aws.amazon.com/cloudwatch/pricing/ (standard-resolution alarm, dashboard,
    # custom metric: first 10,000 a month; Logs, Standard class: stored, per GB-month)
    "cloudwatch_alarm_month": 0.10,
    "cloudwatch_dashboard_month": 3.00,
    "cloudwatch_metric_month": 0.30,
    "logs_stored_gb_month": 0.03,
    # https://aws.amazon.com/secrets-manager/pricing/ (per secret per month)
    "secret_month": 0.40,
}
__doc__ += "".join(f"\n    {name:26} ${price:.10f}" for name, price in PRICES.items())
__doc__ += """

Lambda: 512 MB (template Globals), arm64, billed per ms. A handler's duration is MODELLED:
its Python time measured here x CPU_FACTOR (512 MB is ~0.29 vCPU), plus an assumed in-region
latency per AWS call (LATENCY_MS). The Python time is CPU time (``time.thread_time()``), so
other processes on the machine do not change it (a thread waiting for the CPU, or for the
fan-out's pool, uses none): the invoking thread's CPU over the invocation minus its CPU inside
moto's answers (moto answers in-process, in that thread, in botocore's ``before-send`` hook:
``Counting.answer``; its work stands for AWS's, which the call's latency replaces) and in
this model's own bookkeeping of each call and log line; botocore's client side of each call
(serialising, signing, parsing) is the function's CPU on Lambda and stays counted. The method
before, wall time minus each call's whole wall time, grew 2-4x on a loaded machine (and left
botocore's client side out); it is printed alongside (``by wall time instead``).
Express executions: billed from start to end (the whole wait, plus the Lambda call),
rounded up to 100 ms, at 64 MB. Standard: 2 transitions per execution (WaitUntilDue and Fire
entered; no retries happen here). Timer
queue: 3 requests per wake-up (``SendMessage``; the event source mapping's ``ReceiveMessage``
and ``DeleteMessageBatch``, counted as if every batch held one message, the case of a quiet
queue; at 10,000 tables batches fill and these two shrink); the mapping's empty long polls are
a fixed cost per deployment, not per hand (reported apart). DynamoDB:
a strongly consistent GetItem is ceil(size / 4 KB) RRU; a write ceil(size / 1 KB) WRU, doubled
in a transaction; each GSI whose projection changes costs ceil(entry / 1 KB) more (2 when its
key changes: delete + put; 0 when nothing projected changed); the sweep's GSI query is
eventually consistent (0.5 RRU per 4 KB, at least 0.5). API Gateway: every frame in and every
post out is a message (per 32 KB); connection minutes for the 6 players the whole time.

CloudWatch Logs: the bytes the handlers write to stdout in each counted invocation (the
Powertools logger at the template's ``LogLevel``, INFO, and the metrics' EMF lines), each line
billed with 26 bytes of event overhead, plus Lambda's own START/END/REPORT lines
(``PLATFORM_LOG_BYTES`` per invocation, assumed from their format, with the X-Ray trace id)
unless the function's ``LoggingConfig`` in the template keeps them out (JSON log format,
``SystemLogLevel`` WARN: :func:`platform_log_bytes`).
X-Ray: billed only when the template's ``Tracing`` parameter defaults to ``Active`` (it defaults
to ``PassThrough``: nothing recorded); Active samples the first request each second and 5% of
the others (``XRAY_SAMPLED``: the share at 10,000 tables, about 3,600 invocations/s). Secrets
Manager and KMS: the state key is read once per container (``GetSecretValue``, and the KMS
``Decrypt`` Secrets Manager makes with the secret's key), so they scale with cold starts, not
actions: ``COLD_STARTS_PER_1000_HANDS`` (assumed below).

The fan-out posts concurrently (``usecases.fanout.FAN_OUT_WORKERS`` at once): the posts made from
its pool's threads are modelled as ``ceil(posts / FAN_OUT_WORKERS)`` rounds of one post's
latency, plus their client side's CPU measured in the pool's threads (moto's answers
excluded) x CPU_FACTOR, added to the invoking thread's: the threads share the function's one
CPU share and one GIL. The messages are made and serialised in the invoking thread before the
pool gets them (``fanout.post_updates``), so that work is counted there; the time the
invoking thread waits for the pool is not CPU (by wall time, the union of the pool's calls
was subtracted).

Hand histories (R10.1) are part of the bill and reported on their own: every item of
``HandHistoryTable`` put in the transaction that ends a hand (the sealed record and one entry
per player dealt in, each ceil(size / 1 KB) WRU, doubled in a transaction), plus what the
record makes the table write cost: a hand-ending write that would have been a ``PutItem`` is a
``TransactWriteItems`` because of it, which doubles the table put's units too.

What else is billed (issue 23, item 10), each its own line:

``Internet egress``  the bytes of every post (``PostToConnection``'s ``Data``, measured) leave
                     AWS for the players: data transfer out, at the tiers' blend for the month's
                     volume of ``--tables`` busy tables (``EGRESS_TIERS``).
``API access logs``  one line per frame in (the stage's ``AccessLogSettings`` format, rendered
                     with values of the real lengths), ingested into CloudWatch Logs.
``Stored hands``     every hand item and player entry written (measured, plus DynamoDB's 100
                     bytes of storage overhead per item), kept ``HandRetentionDays`` (the
                     template's default; TTL deletes are free) at the storage and PITR prices:
                     the GB-months of 1,000 hands over their whole life.
``Fixed per stage``  what a stage costs a month whether hands are played or not: the alarms and
                     dashboard of the template, its secret, the custom metrics the handlers
                     emitted here (EMF), the sweep's runs and the timer queue's empty long
                     polls; per 1,000 hands at ``--tables`` busy tables (and the break-even
                     table count is printed).
"""

MEMORY_GB = 512 / 1024
CPU_FACTOR = 3.5
LATENCY_MS = {"GetItem": 4, "PutItem": 6, "UpdateItem": 6, "DeleteItem": 6, "Query": 6,
              "TransactWriteItems": 12, "PostToConnection": 12, "StartExecution": 15,
              "SendMessage": 8,
              "GetSecretValue": 20}
EGRESS_TIERS = [(10 * 1024, 0.09), (40 * 1024, 0.085), (100 * 1024, 0.07), (math.inf, 0.05)]
"""Data transfer out to the internet, per GB, by the month's volume: (GB in the tier, price),
https://aws.amazon.com/ec2/pricing/on-demand/ (first 10 TB, next 40 TB, next 100 TB, over
150 TB). A stage's posts are billed at the blend of its month's volume (:func:`egress_price`)."""
RETENTION_DAYS = 90
"""Days a stored hand is kept when the template has no ``HandRetentionDays`` parameter."""
ITEM_STORAGE_OVERHEAD = 100
"""Bytes DynamoDB bills per item stored besides its attributes (the pricing page)."""
MONTH_S = 30 * 86_400
PLATFORM_LOG_BYTES = 370
"""Lambda's START (~70 B), END (~52 B) and REPORT (~250 B with the X-Ray line) per invocation."""
LOG_EVENT_OVERHEAD = 26
"""Bytes CloudWatch Logs counts per log event besides its message (PutLogEvents' rule)."""
FUNCTION_IDS = {"game": "GameFunction", "timer": "TimerFunction", "sweep": "SweepFunction",
                "connect": "ConnectFunction"}
"""The template's function of each kind of invocation the model counts."""


def platform_log_bytes(template: dict[str, Any], function: str) -> int:
    """Bytes (event overhead included) Lambda's START, END and REPORT lines add to one
    invocation's logs, as the template configures *function*: none when its ``LoggingConfig``
    has ``SystemLogLevel`` WARN (they are INFO, JSON log format only), else the text lines
    (``PLATFORM_LOG_BYTES``; JSON ones are longer)."""
    properties = template["Resources"][FUNCTION_IDS[function]]["Properties"]
    config = properties.get("LoggingConfig", {})
    if config.get("LogFormat") == "JSON" and config.get("SystemLogLevel") == "WARN":
        return 0
    return PLATFORM_LOG_BYTES + 3 * LOG_EVENT_OVERHEAD

XRAY_SAMPLED = 0.0503
"""Share of invocations traced at 10,000 tables: 1 per second + 5% of ~3,557 invocations/s."""
COLD_STARTS_PER_1000_HANDS = 0.1
"""Containers are reused: at 10,000 tables ~150 run at once (``scripts/bench_scale.py``), each
assumed to live about 1.5 hours; 1,000 hands are ~11 table-hours, 0.15 containers x 11 h /
1.5 h ~ 0.1 cold starts (each one GetSecretValue and one KMS Decrypt)."""
GOAL = 0.15
"""Dollars per 1,000 6-max hands (issue 15)."""
FAN_OUT_WORKERS = 10
"""``naiko_service.usecases.fanout.FAN_OUT_WORKERS`` (read from it when the model runs)."""
EXPRESS_OVERHEAD_MS = 30
"""Step Functions' own time around the Lambda call inside an Express execution (assumed)."""
QUEUE_POLLERS = 5
"""Long-polling connections Lambda keeps on an SQS event source mapping at least (assumed from
AWS's description of the mapping's minimum), each a ``ReceiveMessage`` of up to 20 s."""
QUEUE_LONG_POLL_S = 20
SEATS = 6
BUY_IN = 200
DECISION_MS = 20_000
PAUSE_MS = 3_000
TIMEOUT_RATE = 0.02
"""Share of decisions a player lets run out (away, distracted)."""
THINK_MEDIAN_S = {"fold": 1.5, "check": 1.5, "call": 3.0, "bet": 5.0, "raise_to": 5.0,
                  "all_in": 6.0}
THINK_SIGMA = 0.6
"""Think times are lognormal around these medians, capped at 19 s (the clock is 20 s)."""
ACCOUNT, REGION = "123456789012", "us-east-1"
START_MS = 1_800_000_000_000
ENDPOINT = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/prod"


# -- DynamoDB sizes and units ---------------------------------------------------------------

def attribute_size(value: dict[str, Any]) -> int:
    """Bytes of one typed attribute value, by DynamoDB's item-size rules."""
    (kind, raw), = value.items()
    if kind == "S":
        return len(raw.encode())
    if kind == "N":
        digits = raw.lstrip("-").replace(".", "").strip("0") or "0"
        return (len(digits) + 1) // 2 + 1
    if kind == "B":
        return len(raw if isinstance(raw, bytes | bytearray) else base64.b64decode(raw))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + attribute_size(v) + 1 for k, v in raw.items())
    if kind == "L":
        return 3 + sum(attribute_size(v) + 1 for v in raw)
    return sum(attribute_size({kind[0]: v}) for v in raw)  # SS, NS, BS


def item_size(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def index_entry(item: dict[str, Any] | None, index: dict[str, Any],
                table_keys: list[str]) -> tuple[tuple[Any, ...], int, str] | None:
    """(index key, entry size, projected content) of *item* in a GSI, or None if absent."""
    if item is None:
        return None
    keys = [k["AttributeName"] for k in index["KeySchema"]]
    if any(k not in item for k in keys):
        return None
    names = list(dict.fromkeys(keys + table_keys
                               + index["Projection"].get("NonKeyAttributes", [])))
    entry = {n: item[n] for n in names if n in item}
    return (tuple(json.dumps(item[k], sort_keys=True) for k in keys), item_size(entry),
            json.dumps(entry, sort_keys=True, default=str))


def gsi_units(before: dict[str, Any] | None, after: dict[str, Any] | None,
              indexes: list[dict[str, Any]], table_keys: list[str]) -> int:
    units = 0
    for index in indexes:
        old, new = (index_entry(before, index, table_keys),
                    index_entry(after, index, table_keys))
        if old is None and new is None:
            continue
        if old is None or new is None:
            units += math.ceil(((new or old))[1] / 1024)  # type: ignore[index]
        elif old[0] != new[0]:
            units += math.ceil(old[1] / 1024) + math.ceil(new[1] / 1024)
        elif old[2] != new[2]:
            units += math.ceil(new[1] / 1024)
    return units


# -- counting ---------------------------------------------------------------------------------

@dataclass
class Invocation:
    """One counted handler invocation: its AWS calls, and the time its Python took.

    The modelled duration (:attr:`modeled_ms`) is measured in CPU time (``time.thread_time()``),
    not wall time: the handler's own work is the invoking thread's CPU over the invocation
    minus its CPU inside moto's answers to its AWS calls (moto answers in this thread, in
    botocore's ``before-send`` hook: its work stands for AWS's, which the assumed
    ``LATENCY_MS`` of each call replaces) and in this model's bookkeeping. botocore's own
    client side of each call (serialising, signing, parsing the answer) is the function's CPU
    on Lambda too, so it stays counted, and so is that of the fan-out pool's posts (measured
    in the pool's threads: they share the function's one CPU share and one GIL with the
    invoking thread). Time a thread spends descheduled by other processes, or blocked waiting
    for the pool, is not CPU time, so the figure does not depend on the machine's load.
    :attr:`wall_modeled_ms` is the method before (wall time minus the calls' whole wall time),
    printed alongside to compare."""

    function: str
    calls: Counter[str] = field(default_factory=Counter)
    platform_log_bytes: int = 0
    """What Lambda's own START/END/REPORT lines add to its logs (:func:`platform_log_bytes`)."""
    aws_seconds: float = 0.0
    """Wall time of the invoking thread's own AWS calls."""
    aws_cpu: float = 0.0
    """CPU time of the invoking thread inside moto's answers to its calls and in this model's
    bookkeeping of them and of the logs (:meth:`Counting.observe`, :class:`LogMeter`)."""
    started: float = 0.0
    cpu_started: float = 0.0
    wall: float = 0.0
    cpu: float = 0.0
    """CPU time of the invoking thread over the whole invocation."""
    thread: int = 0
    """The invocation's own thread; calls from others are the fan-out pool's."""
    pooled: list[tuple[float, float]] = field(default_factory=list)
    """(start, end) of each call made from the fan-out pool's threads (wall clock)."""
    pooled_calls: Counter[str] = field(default_factory=Counter)
    pooled_cpu: float = 0.0
    """CPU time of the pool's threads in botocore's client side of their calls (moto's
    answers excluded)."""

    @property
    def handler_cpu_ms(self) -> float:
        """Milliseconds of the handler's own Python, botocore's client side of the calls
        included (the pool's too), moto's answers and the bookkeeping excluded, in CPU time
        (before :data:`CPU_FACTOR`)."""
        return (max(0.0, self.cpu - self.aws_cpu) + self.pooled_cpu) * 1000

    @property
    def handler_wall_ms(self) -> float:
        """The same measured the way before: wall time minus the calls' wall time (and the
        wait for the pool's posts): it grows with the machine's load."""
        waited = 0.0  # the union of the pool's calls: the invocation waits for them
        reach = -math.inf
        for start, end in sorted(self.pooled):
            if end > reach:
                waited += end - max(start, reach)
                reach = end
        return max(0.0, self.wall - self.aws_seconds - waited) * 1000

    def latency_ms(self) -> float:
        """The assumed in-region latency of the calls: the invoking thread's one after the
        other, the pool's posts in ``ceil(posts / FAN_OUT_WORKERS)`` rounds."""
        own = self.calls - self.pooled_calls
        rounds = sum(math.ceil(n / FAN_OUT_WORKERS) * LATENCY_MS.get(op, 10)
                     for op, n in self.pooled_calls.items())
        return rounds + sum(LATENCY_MS.get(op, 10) * n for op, n in own.items())

    @property
    def modeled_ms(self) -> int:
        """The billed duration: the handler's CPU time x CPU_FACTOR + the calls' latency."""
        return math.ceil(self.handler_cpu_ms * CPU_FACTOR + self.latency_ms())

    @property
    def wall_modeled_ms(self) -> int:
        """:attr:`modeled_ms` by the method before (wall time), to compare."""
        return math.ceil(self.handler_wall_ms * CPU_FACTOR + self.latency_ms())


@dataclass
class Bill:
    """Everything counted for one design."""

    invocations: list[Invocation] = field(default_factory=list)
    sweep_invocations: list[Invocation] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    rru: float = 0.0
    wru: int = 0
    gsi_wru: int = 0
    messages_in: int = 0
    messages_out: int = 0
    express: list[tuple[int, int]] = field(default_factory=list)
    """(start_ms, due_ms) of each EXPRESS execution."""
    standard: int = 0
    queue_messages: int = 0
    """Wake-ups sent on the timer queue (each: send, receive, delete)."""
    tracing: bool = False
    """The template's default ``Tracing`` is ``Active`` (X-Ray billed)."""
    timer_durations: list[int] = field(default_factory=list)
    sweep_rru: float = 0.0
    seconds: float = 0.0
    seats: int = SEATS
    hands: int = 0
    decisions: int = 0
    timeouts: int = 0
    history_wru: Counter[str] = field(default_factory=Counter)
    """WRU of storing hand histories: ``records``, ``entries`` (one per player dealt in) and
    ``table put in a transaction`` (the doubling a record adds to a write that had no other
    reason to be a transaction, its index updates included)."""
    history_bytes: list[int] = field(default_factory=list)
    """Size of every hand item written."""
    log_bytes: int = 0
    """Bytes the counted invocations wrote to their logs (stdout), lines included."""
    log_lines: int = 0
    table_wru: Counter[str] = field(default_factory=Counter)
    """Write units per DynamoDB table (name), indexes included (``scripts/capacity.py``)."""
    largest_item: Counter[str] = field(default_factory=Counter)
    """The largest item written to each table (bytes)."""
    posts_by_connection: Counter[str] = field(default_factory=Counter)
    """Posts (messages) sent to each connection."""
    post_bytes: int = 0
    """Bytes of every post's ``Data`` (internet egress)."""
    access_log_bytes: int = 0
    """Bytes of the API access log lines of the frames in (one each)."""
    history_entry_bytes: list[int] = field(default_factory=list)
    """Size of every player entry written (``history_bytes``: the hand items)."""
    retention_days: int = RETENTION_DAYS
    fixed_month: dict[str, float] = field(default_factory=dict)
    """Dollars a month per stage whatever is played (see :func:`fixed_per_month`)."""
    metrics: set[str] = field(default_factory=set)
    """Custom metrics (namespace, name, dimensions) the handlers' EMF lines emitted."""
    answers: Counter[str] = field(default_factory=Counter)
    """How each counted frame was answered: ``update`` (the answer folded in), ``ack``,
    ``error``..."""
    tournament_writes: Counter[str] = field(default_factory=Counter)
    """Writes to the tournaments table by its item's kind (``tournament``, ``bounty#``,
    ``deal#``, ``log#``, ``reg#``, ``result#``, ``paid#``...): what a tournament's pieces add
    (R9.12, R9.13, R9.16)."""
    tournament_wru: Counter[str] = field(default_factory=Counter)
    """Their write units, indexes and the transactions' doubling included."""
    ledger_writes: Counter[str] = field(default_factory=Counter)
    """Ledger entries written by reason (``entry``, ``prize``, ``bounty``, ``deal``...)."""


answering = threading.local()
"""``moto``: the CPU time moto's answer took in this thread during the current call."""


class Counting:
    """Patches botocore's ``_make_api_call``: inside a handler invocation every call is
    counted (and its DynamoDB units computed); outside (setup) nothing is."""

    def __init__(self, template: dict[str, Any], express_arn: str, standard_arn: str):
        self.current: Invocation | None = None
        self.bill = Bill()
        self.platform_bytes = {function: platform_log_bytes(template, function)
                               for function in FUNCTION_IDS}
        self.express_arn, self.standard_arn = express_arn, standard_arn
        self.now_ms = START_MS
        self.items: dict[tuple[str, str], dict[str, Any]] = {}
        self.indexes: dict[str, list[dict[str, Any]]] = {}
        self.keys: dict[str, list[str]] = {}
        for resource in template["Resources"].values():
            if resource["Type"] == "AWS::DynamoDB::Table":
                props = resource["Properties"]
                name = props["TableName"].replace("${Stage}", "cost")
                self.indexes[name] = props.get("GlobalSecondaryIndexes", [])
                self.keys[name] = [k["AttributeName"] for k in props["KeySchema"]]
        self.started: list[tuple[str, int, dict[str, Any]]] = []
        """What the handlers asked to fire later: ``("execution" | "message", when, payload)``."""
        self.sweeping = False
        self.lock = threading.RLock()
        self.tournaments_table = next(
            (r["Properties"]["TableName"].replace("${Stage}", "cost")
             for logical_id, r in template["Resources"].items()
             if logical_id == "TournamentsTable"), None)
        self.ledger_table = next(
            (r["Properties"]["TableName"].replace("${Stage}", "cost")
             for logical_id, r in template["Resources"].items()
             if logical_id == "LedgerTable"), None)
        self.history_table = next(
            (r["Properties"]["TableName"].replace("${Stage}", "cost")
             for logical_id, r in template["Resources"].items()
             if logical_id == "HandHistoryTable"), None)

    def _key(self, table: str, item: dict[str, Any]) -> tuple[str, str]:
        return table, json.dumps([item.get(k) for k in self.keys.get(table, [])],
                                 sort_keys=True)

    def _write(self, table: str, item: dict[str, Any], factor: int) -> int:
        """Bill one put; returns its units (table and indexes) before *factor*."""
        key = self._key(table, item)
        before = self.items.get(key)
        self.items[key] = item
        if self.current is None:
            return 0
        units = math.ceil(item_size(item) / 1024)
        index_units = gsi_units(before, item, self.indexes.get(table, []),
                                self.keys.get(table, []))
        self.bill.wru += factor * units
        self.bill.gsi_wru += factor * index_units
        self.bill.table_wru[table] += factor * (units + index_units)
        self.bill.largest_item[table] = max(self.bill.largest_item[table], item_size(item))
        return units + index_units

    def _classify(self, table: str, key_or_item: dict[str, Any], wru: int,
                  reason: str | None = None) -> None:
        """Bill a write of *wru* units to the tournaments table's item kind, or a ledger
        entry to its reason (counted invocations only)."""
        if self.current is None:
            return
        if table == self.tournaments_table:
            name = str(key_or_item.get("item", {}).get("S", "?"))
            kind = name.split("#", 1)[0] + "#" if "#" in name else name
            self.bill.tournament_writes[kind] += 1
            self.bill.tournament_wru[kind] += wru
        elif table == self.ledger_table and reason is not None:
            self.bill.ledger_writes[reason] += 1

    def _histories(self, items: list[dict[str, Any]], units: list[int]) -> None:
        """The WRU a transaction spends on hand histories (R10.1); *units* are each item's
        units (table and indexes) outside a transaction."""
        puts = [e["Put"] for e in items if "Put" in e
                and e["Put"]["TableName"] == self.history_table]
        if not puts:
            return
        for put in puts:
            charged = 2 * math.ceil(item_size(put["Item"]) / 1024)
            if put["Item"]["sk"]["S"].startswith("hand#"):
                self.bill.history_wru["records"] += charged
                self.bill.history_bytes.append(item_size(put["Item"]))
            else:
                self.bill.history_wru["entries"] += charged
                self.bill.history_entry_bytes.append(item_size(put["Item"]))
        others = [i for i, e in enumerate(items) if not ("Put" in e and e["Put"] in puts)]
        if len(others) == 1 and "Put" in items[others[0]]:  # else a transaction anyway
            # the table put (and its index updates) at transactional price: twice, not once
            self.bill.history_wru["table put in a transaction"] += units[others[0]]

    @contextlib.contextmanager
    def invocation(self, function: str) -> Iterator[Invocation]:
        current = Invocation(function, started=time.perf_counter(),
                             cpu_started=time.thread_time(), thread=threading.get_ident(),
                             platform_log_bytes=self.platform_bytes[function])
        self.current = current
        try:
            yield current
        finally:
            current.wall = time.perf_counter() - current.started
            current.cpu = time.thread_time() - current.cpu_started
            self.current = None
            if function == "sweep":
                self.bill.sweep_invocations.append(current)
            else:
                self.bill.invocations.append(current)

    def make_api_call(self, original: Any) -> Any:
        counting = self

        def call(client: Any, operation: str, params: dict[str, Any]) -> Any:
            start, cpu = time.perf_counter(), time.thread_time()
            current = counting.current
            own = current is not None and threading.get_ident() == current.thread
            answering.moto = 0.0  # this call's CPU inside moto's answer (:meth:`answer`)
            try:
                response = original(client, operation, params)
            finally:
                if current is not None:
                    if own:
                        current.aws_seconds += time.perf_counter() - start
                    else:  # a post from the fan-out's pool: its client side is counted
                        with counting.lock:
                            current.pooled.append((start, time.perf_counter()))
                            current.pooled_calls[operation] += 1
                            current.pooled_cpu += time.thread_time() - cpu - answering.moto
            observing = time.thread_time()
            with counting.lock:
                counting.observe(operation, params, response)
            if own:  # moto's answer and this model's bookkeeping (observe): not the handler's
                current.aws_cpu += (answering.moto  # type: ignore[union-attr]
                                    + time.thread_time() - observing)
            return response

        return call

    @staticmethod
    def answer(original: Any) -> Any:
        """Wraps moto's ``BotocoreStubber.__call__`` (botocore's ``before-send`` hook, where
        moto makes its answer): the CPU time it takes, in this thread, is AWS's work, not the
        function's (:meth:`make_api_call` subtracts it)."""

        def stub(self: Any, *args: Any, **kwargs: Any) -> Any:
            cpu = time.thread_time()
            try:
                return original(self, *args, **kwargs)
            finally:
                answering.moto = getattr(answering, "moto", 0.0) + time.thread_time() - cpu

        return stub

    def observe(self, operation: str, params: dict[str, Any], response: Any) -> None:
        if operation == "PutItem":
            item = params["Item"]
            wru = self._write(params["TableName"], item, 1)
            self._classify(params["TableName"], item, wru, item.get("reason", {}).get("S"))
        elif operation == "TransactWriteItems":
            units = [self._write(entry["Put"]["TableName"], entry["Put"]["Item"], 2)
                     if "Put" in entry else 0 for entry in params["TransactItems"]]
            for entry, wru in zip(params["TransactItems"], units, strict=True):
                if "Put" in entry:
                    item = entry["Put"]["Item"]
                    self._classify(entry["Put"]["TableName"], item, 2 * wru,
                                   item.get("reason", {}).get("S"))
            for entry in params["TransactItems"]:
                if "Put" not in entry and self.current is not None:
                    self.bill.wru += 2  # account updates and condition checks: < 1 KB items
                    (other,) = entry.values()
                    self.bill.table_wru[other["TableName"]] += 2
                    self._classify(other["TableName"], other.get("Key", {}), 2)
            if self.current is not None:
                self._histories(params["TransactItems"], units)
        if operation == "StartExecution":  # fires in the simulation, billed or not
            execution = json.loads(params["input"])
            self.started.append(("execution", -(-execution["due_ms"] // 1000) * 1000,
                                 execution))
        elif operation == "SendMessage":  # delivered after its delay, billed or not
            self.started.append(("message", self.now_ms + 1000 * params.get("DelaySeconds", 0),
                                 {"messageId": response.get("MessageId", "m"),
                                  "body": params["MessageBody"], "eventSource": "aws:sqs"}))
        if self.current is None:
            return
        self.current.calls[operation] += 1
        if self.current.function == "sweep":  # per deployment, reported apart
            if operation == "Query":
                size = sum(item_size(i) for i in response.get("Items", []))
                self.bill.sweep_rru += max(0.5, math.ceil(size / 4096) * 0.5)
            return
        self.bill.calls[operation] += 1
        if operation == "GetItem":
            item = response.get("Item")
            size = item_size(item) if item else 1
            units = math.ceil(size / 4096) * (1 if params.get("ConsistentRead") else 0.5)
            self.bill.rru += units
        elif operation in ("UpdateItem", "DeleteItem"):
            self.bill.wru += 1
            self.bill.table_wru[params["TableName"]] += 1
            self._classify(params["TableName"], params.get("Key", {}), 1)
        elif operation == "Query":
            size = sum(item_size(i) for i in response.get("Items", []))
            self.bill.rru += max(0.5, math.ceil(size / 4096) * 0.5)
        elif operation == "PostToConnection":
            self.bill.messages_out += max(1, math.ceil(len(params["Data"]) / 32768))
            self.bill.post_bytes += len(params["Data"])
            self.bill.posts_by_connection[params["ConnectionId"]] += 1
        elif operation == "SendMessage":
            self.bill.queue_messages += 1
        elif operation == "StartExecution":
            execution = json.loads(params["input"])
            if params["stateMachineArn"] == self.express_arn:
                self.bill.express.append((self.now_ms, execution["due_ms"]))
            else:
                self.bill.standard += 1


def emf_metrics(text: str) -> set[str]:
    """The custom metrics (one per namespace, name and dimension values) of EMF lines."""
    found: set[str] = set()
    for line in text.splitlines():
        try:
            blob = json.loads(line)
            directives = blob["_aws"]["CloudWatchMetrics"]
        except (ValueError, KeyError, TypeError):
            continue
        for directive in directives:
            for dims in directive.get("Dimensions", [[]]):
                values = ",".join(f"{d}={blob.get(d)}" for d in dims)
                for metric in directive.get("Metrics", []):
                    found.add(f"{directive.get('Namespace')}/{metric.get('Name')}[{values}]")
    return found


def access_log_line(template: dict[str, Any], route: str, player_id: str) -> int:
    """Bytes of one API access log line for a frame: the stage's format with values of the
    lengths API Gateway fills in (request and connection ids, epoch ms, a 2xx, no error)."""
    stage = next(r for r in template["Resources"].values()
                 if r["Type"] == "AWS::ApiGatewayV2::Stage"
                 and "AccessLogSettings" in r["Properties"])
    line = str(stage["Properties"]["AccessLogSettings"]["Format"])
    values = {"requestId": "Xa1b2C3d4E5f6G7=", "requestTimeEpoch": str(START_MS),
              "connectionId": "L0SM9cOFvHcCIhw=", "eventType": "MESSAGE", "routeKey": route,
              "status": "200", "integrationLatency": "45", "error.messageString": "-",
              "authorizer.principalId": player_id}
    for name in sorted(values, key=len, reverse=True):
        line = line.replace(f"$context.{name}", values[name])
    return len(line.encode()) + 1


class LogMeter(io.TextIOBase):
    """Where the handlers' logs go (stdout): counts the bytes and lines of counted invocations
    (the sweep's are per deployment, not per hand), keeps nothing."""

    def __init__(self, counting: Counting):
        self.counting = counting

    def write(self, text: str) -> int:
        current = self.counting.current
        if current is not None and current.function != "sweep":
            cpu = time.thread_time()
            with self.counting.lock:
                bill = self.counting.bill
                bill.log_bytes += len(text.encode())
                bill.log_lines += text.count("\n")
                if '"_aws"' in text:
                    bill.metrics.update(emf_metrics(text))
            if threading.get_ident() == current.thread:  # the metering: not the handler's
                current.aws_cpu += time.thread_time() - cpu
        return len(text)

    def writable(self) -> bool:
        return True


# -- the table ----------------------------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = START_MS

    def now_ms(self) -> int:
        return self.now


@dataclass
class Player:
    player_id: str
    connection_id: str
    seen: int = 0
    view: dict[str, Any] | None = None
    version: int = 0
    turn: tuple[int, int] | None = None
    rebuying: bool = False
    table_id: str = ""


def choose(prompt: dict[str, Any], street: str, rng: random.Random) -> dict[str, Any]:
    """A plausible human decision: mostly folds preflop, checks and small bets after."""
    actions = prompt["actions"]
    facing = "call" in actions

    def sized(low: float, high: float) -> dict[str, Any]:
        move = "bet" if "bet" in actions else "raise_to"
        lo, hi = prompt["min_raise_to"], prompt["max_raise_to"]
        return {"move": move, "amount": min(hi, max(lo, int(lo * rng.uniform(low, high))))}

    roll = rng.random()
    if street == "preflop":
        if facing:
            if roll < 0.62:
                return {"move": "fold"}
            if roll < 0.84 or "raise_to" not in actions:
                return {"move": "call"}
            return sized(1.0, 1.6)
        return {"move": "check"} if roll < 0.8 or "raise_to" not in actions else sized(1, 2)
    if facing:
        if roll < 0.40:
            return {"move": "fold"}
        if roll < 0.85 or "raise_to" not in actions:
            return {"move": "call"}
        return sized(1.0, 1.5)
    if roll < 0.6 or "bet" not in actions:
        return {"move": "check"}
    return sized(1.0, 3.0)


class Simulation:
    """Humans playing through the real handlers on moto, on one design: :class:`Table` (a
    cash table for a number of hands) or :class:`Tournament` (a Sit & Go or Spin to its end).
    """

    seats = SEATS
    label = ""

    histories = True
    """Store hand histories (``HISTORY_TABLE`` set); ``--no-histories`` measures without."""

    def __init__(self, design: str, seed: int):
        self.design, self.seed = design, seed

    def run(self) -> Bill:
        import boto3
        from aws_testing import capture_posts, create_tables_from_template, load_template
        from botocore.client import BaseClient
        from moto import mock_aws
        from moto.core.botocore_stubber import BotocoreStubber

        template = load_template()
        env = {"AWS_ACCESS_KEY_ID": "cost", "AWS_SECRET_ACCESS_KEY": "cost",
               "AWS_DEFAULT_REGION": REGION, "POWERTOOLS_TRACE_DISABLED": "true",
               "POWERTOOLS_METRICS_NAMESPACE": "Naiko", "POWERTOOLS_LOG_LEVEL": "ERROR",
               "STATE_KEY": base64.b64encode(bytes(range(32))).decode(),
               "WEBSOCKET_ENDPOINT": ENDPOINT}
        with mock.patch.dict(os.environ, env), mock_aws(), capture_posts() as posts:
            for name in ("AWS_ENDPOINT_URL", "STATE_KEY_SECRET_ARN", "HISTORY_TABLE"):
                os.environ.pop(name, None)
            names = create_tables_from_template(boto3.client("dynamodb", region_name=REGION),
                                                stage="cost")
            sfn = boto3.client("stepfunctions", region_name=REGION)
            arns = {}
            for logical_id in ("TimerExpressStateMachine", "TimerStandardStateMachine"):
                props = template["Resources"][logical_id]["Properties"]
                arns[logical_id] = sfn.create_state_machine(
                    name=f"cost-{logical_id}", type=props["StateMachineType"],
                    definition=json.dumps(props["Definition"]),
                    roleArn=f"arn:aws:iam::{ACCOUNT}:role/cost")["stateMachineArn"]
            queue = template["Resources"]["TimerQueue"]["Properties"]
            queue_url = boto3.client("sqs", region_name=REGION).create_queue(
                QueueName="cost-timers", Attributes={
                    "VisibilityTimeout": str(queue["VisibilityTimeout"])})["QueueUrl"]
            os.environ.update({
                "TIMER_QUEUE_URL": queue_url,
                "TIMER_TRANSPORT": "queue" if self.design == "wake-up" else "express",
                "TABLES_TABLE": names["TablesTable"], "ACCOUNTS_TABLE": names["AccountsTable"],
                "CONNECTIONS_TABLE": names["ConnectionsTable"],
                "WATCHERS_TABLE": names["WatchersTable"],  # posted inline: no queue here
                "LEDGER_TABLE": names["LedgerTable"],
                "TOURNAMENTS_TABLE": names["TournamentsTable"],
                **({"HISTORY_TABLE": names["HandHistoryTable"]} if self.histories else {}),
                "TIMER_STATE_MACHINE_ARN": arns["TimerExpressStateMachine"],
                "TIMER_LONG_STATE_MACHINE_ARN": arns["TimerStandardStateMachine"],
                # the sealed blobs as the template's default seals them (issue 23 item 10)
                "SEAL_DICTIONARY": template["Parameters"]["SealDictionary"]["Default"]})
            counting = Counting(template, arns["TimerExpressStateMachine"],
                                arns["TimerStandardStateMachine"])
            counting.bill.tracing = template["Parameters"]["Tracing"]["Default"] == "Active"
            original = BaseClient._make_api_call
            meter = LogMeter(counting)
            with mock.patch.object(BaseClient, "_make_api_call",
                                   counting.make_api_call(original)), \
                    mock.patch.object(BotocoreStubber, "__call__",
                                      Counting.answer(BotocoreStubber.__call__)), \
                    contextlib.redirect_stdout(meter):
                return self._play(counting, posts, names, meter, template)

    # -- what each kind of simulation does ----------------------------------------------------

    def setup(self, world: World) -> None:
        """Open the game (not counted unless it calls :meth:`World.start_counting` first)."""
        raise NotImplementedError

    def done(self, world: World) -> bool:
        raise NotImplementedError

    def between_hands(self, world: World, player: Player, view: dict[str, Any]) -> None:
        """A player's chores when a hand is over (a rebuy, coming back from sitting out)."""

    def finish(self, world: World) -> None:
        """Fill in what the bill needs once done (hands played)."""

    # -- the loop -----------------------------------------------------------------------------

    def _play(self, counting: Counting, posts: Any, names: dict[str, str], meter: LogMeter,
              template: dict[str, Any]) -> Bill:
        from naiko.cards import seeded_random
        from naiko_service import bootstrap
        from naiko_service.records import TableRecord, TimerKind
        from naiko_service.usecases import arming, fanout

        global FAN_OUT_WORKERS
        FAN_OUT_WORKERS = fanout.FAN_OUT_WORKERS
        bootstrap.reset()
        # the logs as deployed: the template's level, every line counted
        bootstrap.logger.setLevel(template["Parameters"]["LogLevel"]["Default"])
        bootstrap.logger.registered_handler.setStream(meter)  # type: ignore[attr-defined]
        # the metrics as deployed: the template's service name, the dimension of every EMF
        # line (the module's Metrics was made at import, before this run's environment)
        bootstrap.metrics.service = template["Globals"]["Function"]["Environment"][
            "Variables"]["POWERTOOLS_SERVICE_NAME"]
        handlers = {n: load_handler(n) for n in ("connect", "game", "timer", "sweep")}
        clock = Clock()
        service = bootstrap.get_service()
        service.deps.clock = clock
        if service.limiter is not None:  # the frame limits refill in virtual time too (a
            service.limiter.clock = clock.now_ms  # whole Spin plays in a minute of wall time)
        service.deps.rng = seeded_random(self.seed)
        seeds = random.Random(self.seed)  # the decks' secret seeds (R10.2) too: one run, one bill
        service.deps.secret_bytes = lambda n: seeds.randbytes(n)
        scheduler: Any = service.deps.scheduler
        scheduler.now_ms = clock.now_ms
        if getattr(scheduler, "long_waits", None) is not None:
            scheduler.long_waits.now_ms = clock.now_ms
        if self.design == "naive":
            scheduler.express_max_wait_ms = -1  # every execution on STANDARD
        if self.design in ("naive", "per-timer"):
            scheduled: set[tuple[str, str]] = set()

            def per_timer(deps: Any, table_id: str, record: TableRecord, now: int) -> None:
                """The design before: one execution for each new timer, no wake-up marker."""
                record.timers = [t for t in record.timers if t.kind is not TimerKind.WAKE]
                for timer in record.timers:
                    if (table_id, timer.token) not in scheduled:
                        scheduled.add((table_id, timer.token))
                        service.deps.scheduler.schedule(table_id, timer.token, timer.due_ms,
                                                        timer.kind)

            patch = mock.patch.object(arming, "arm", per_timer)
        else:
            patch = contextlib.nullcontext()  # type: ignore[assignment]
        world = World(counting, posts, names, handlers, clock, service, random.Random(self.seed))
        world.template = template
        for seat in range(self.seats):
            world.add_player(f"human{seat}")
        with patch:
            counting.current = None
            self.setup(world)
            world.loop(self)
            self.finish(world)
            counting.bill.seconds = (clock.now - world.first_ms) / 1000
            counting.bill.seats = self.seats
            counting.bill.retention_days = int(template["Parameters"].get(
                "HandRetentionDays", {}).get("Default", RETENTION_DAYS))
            counting.bill.fixed_month = fixed_per_month(template, counting.bill)
            bootstrap.reset()
            return counting.bill


class World:
    """The players, the handlers, virtual time and the queue of what happens next."""

    def __init__(self, counting: Counting, posts: Any, names: dict[str, str],
                 handlers: dict[str, Any], clock: Clock, service: Any, rng: random.Random):
        self.counting, self.posts, self.names = counting, posts, names
        self.handlers, self.clock, self.service, self.rng = handlers, clock, service, rng
        self.players: list[Player] = []
        self.template: dict[str, Any] = {}
        self.counter = itertools.count()
        self.queue: list[tuple[int, int, str, Any]] = []
        self.seq = itertools.count()
        self.fired = 0
        self.hand_number = 0
        self.hands: set[tuple[str, int]] = set()
        self.first_ms = clock.now

    def event(self, player: Player, route: str, kind: str, body: str | None = None) -> Any:
        context = {"routeKey": route, "eventType": kind, "connectionId": player.connection_id,
                   "domainName": "abcdef1234.execute-api.us-east-1.amazonaws.com",
                   "stage": "prod", "apiId": "abcdef1234",
                   "requestId": f"r{next(self.counter)}", "messageDirection": "IN",
                   "connectedAt": START_MS,
                   "authorizer": {"principalId": player.player_id,
                                  "player_id": player.player_id}}
        out: dict[str, Any] = {"requestContext": context, "isBase64Encoded": False}
        if body is not None:
            out["body"] = body
        return out

    def add_player(self, player_id: str, chips: int = 1_000_000) -> Player:
        import boto3

        boto3.client("dynamodb", region_name=REGION).update_item(
            TableName=self.names["AccountsTable"], Key={"player_id": {"S": player_id}},
            UpdateExpression="ADD balance :c",
            ExpressionAttributeValues={":c": {"N": str(chips)}})
        player = Player(player_id, f"conn-{player_id}")
        self.handlers["connect"].lambda_handler(self.event(player, "$connect", "CONNECT"),
                                                Context())
        self.players.append(player)
        return player

    def send(self, player: Player, **frame: Any) -> dict[str, Any]:
        """A frame through the game handler (counted if counting); returns the reply."""
        frame.setdefault("request_id", f"q{next(self.counter)}")
        body = json.dumps(frame)
        if self.counting.current is None and self.counting_on:
            self.counting.bill.messages_in += max(1, math.ceil(len(body.encode()) / 32768))
            self.counting.bill.access_log_bytes += access_log_line(
                self.template, str(frame["action"]), player.player_id)
            with self.counting.invocation("game"):
                self.handlers["game"].lambda_handler(
                    self.event(player, str(frame["action"]), "MESSAGE", body), Context())
        else:
            self.handlers["game"].lambda_handler(
                self.event(player, str(frame["action"]), "MESSAGE", body), Context())
        replies = [json.loads(b) for b in self.posts.raw.get(player.connection_id, [])]
        reply: dict[str, Any] = next((m for m in reversed(replies)
                                  if m.get("request_id") == frame["request_id"]), {})
        if self.counting_on:
            self.counting.bill.answers[str(reply.get("type", "none"))] += 1
        return reply

    counting_on = False

    def start_counting(self) -> None:
        """From here on everything is billed (executions started before still fire)."""
        self.counting.bill = Bill(tracing=self.counting.bill.tracing)
        self.counting_on = True
        self.first_ms = self.clock.now
        heapq.heappush(self.queue, (self.clock.now + 60_000, next(self.seq), "sweep", None))

    def refresh(self, player: Player) -> None:
        raw = self.posts.raw.get(player.connection_id, [])
        for body in raw[player.seen:]:
            message = json.loads(body)
            if "view" in message and message.get("version", 0) >= player.version:
                player.view, player.version = message["view"], message.get("version", 0)
                player.table_id = str(message.get("table_id", player.table_id))
        player.seen = len(raw)

    def loop(self, simulation: Simulation) -> None:
        counting, clock, rng = self.counting, self.clock, self.rng
        steps = 0
        while True:
            steps += 1
            if steps > 400_000:
                raise RuntimeError("the simulation does not end")
            # executions started since the last step fire at their $.due (whole seconds),
            # messages sent are delivered after their delay
            while self.fired < len(counting.started):
                what, when, payload = counting.started[self.fired]
                self.fired += 1
                heapq.heappush(self.queue, (when, next(self.seq), "fire",
                                            {"table_id": payload["table_id"],
                                             "token": payload["token"]}
                                            if what == "execution" else {"Records": [payload]}))
            for player in self.players:
                self.refresh(player)
                view = player.view
                if view is None or view["hand"] is None:
                    continue
                hand = view["hand"]
                self.hand_number = max(self.hand_number, hand["number"])
                self.hands.add((player.table_id, hand["number"]))
                prompt = view["prompt"]
                if prompt is not None and prompt.get("deadline_ms") is not None:
                    turn = (hand["number"], prompt["deadline_ms"])
                    if turn != player.turn:
                        player.turn = turn
                        counting.bill.decisions += 1
                        if rng.random() < TIMEOUT_RATE:
                            counting.bill.timeouts += 1
                            continue
                        choice = choose(prompt, hand["street"], rng)
                        clock_s = view["settings"]["decision_ms"] / 1000
                        think = min(clock_s - 1, rng.lognormvariate(
                            math.log(THINK_MEDIAN_S[choice["move"]]), THINK_SIGMA))
                        heapq.heappush(self.queue, (clock.now + int(think * 1000),
                                                    next(self.seq), "act",
                                                    (player, turn, choice)))
                simulation.between_hands(self, player, view)
            if simulation.done(self):
                return
            when, _, kind, payload = heapq.heappop(self.queue)
            clock.now = max(clock.now, when)
            counting.now_ms = clock.now
            if kind == "act":
                player, turn, choice = payload
                if player.turn != turn or player.view is None \
                        or player.view.get("prompt") is None:
                    continue
                self.send(player, action="act", table_id=player.table_id, **choice)
            elif kind == "frame":
                player, frame = payload
                self.refresh(player)
                self.send(player, **frame)
            elif kind == "fire":
                with counting.invocation("timer") as invocation:
                    self.handlers["timer"].lambda_handler(payload, Context())
                counting.bill.timer_durations.append(invocation.modeled_ms)
            elif kind == "sweep":
                with counting.invocation("sweep"):
                    self.handlers["sweep"].lambda_handler({}, Context())
                heapq.heappush(self.queue, (when + 60_000, next(self.seq), "sweep", None))

    def later(self, delay_ms: int, player: Player, frame: dict[str, Any]) -> None:
        heapq.heappush(self.queue, (self.clock.now + delay_ms, next(self.seq), "frame",
                                    (player, frame)))


class Table(Simulation):
    """One 6-max NLHE 1/2 cash table (buy-in 200) for a number of hands; a busted player
    rebuys, one the clock sat out comes back (``sit_in``) 10 s later, and one who was removed
    (the 10-minute sit-out limit, R7.7) sits down again."""

    def __init__(self, design: str, hands: int, seed: int):
        super().__init__(design, seed)
        self.hands_wanted = hands

    def setup(self, world: World) -> None:
        players = world.players
        reply = world.send(players[0], action="create_table", name="cost", variant="NLHE",
                           small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400)
        table_id = reply["table_id"]
        for player in players:
            player.table_id = table_id
            world.send(player, action="join_table", table_id=table_id, buy_in=BUY_IN)
        # The first hand starts with the third player; from here on everything counts.
        world.start_counting()

    def done(self, world: World) -> bool:
        return world.hand_number > self.hands_wanted

    def between_hands(self, world: World, player: Player, view: dict[str, Any]) -> None:
        if view.get("seat_index") is None:  # removed: sit down again
            if not player.rebuying:
                player.rebuying = True
                world.later(10_000, player, {"action": "join_table",
                                             "table_id": player.table_id, "buy_in": BUY_IN})
            return
        me = view["seats"][view["seat_index"]]
        if me and me.get("sitting_out") and me["stack"] > 0 and not player.rebuying:
            player.rebuying = True  # coming back
            world.later(10_000, player, {"action": "sit_in", "table_id": player.table_id})
        elif view["hand"]["complete"] and me and me["stack"] == 0 and not player.rebuying:
            player.rebuying = True
            world.later(1_000, player, {"action": "add_chips", "table_id": player.table_id,
                                        "amount": BUY_IN})
        elif me and me["stack"] > 0 and not me.get("sitting_out"):
            player.rebuying = False

    def finish(self, world: World) -> None:
        world.counting.bill.hands = self.hands_wanted


class Tournament(Simulation):
    """A Sit & Go (``sng_6max_turbo``) or a Spin (``spin_3max_hyper``) of humans, entry 100,
    from the first registration to the last prize paid. A player the clock sat out (R9.4)
    comes back (``sit_in``) 10 s later.

    *knockout*: the preset's knockout variant (``_ko``, R9.13: half of each entry a bounty).
    *deal_at*: the operator publishes deals (R9.16, ``DealTerms(deal_at, 0, 60)``, before
    anyone registers, not billed); when *deal_at* players are left every one of them asks
    (``ask_deal``) 2 s after seeing it and accepts the ICM split 3 s after the offer: the
    tournament ends with the deal (nothing is kept)."""

    def __init__(self, design: str, kind: str, seed: int, knockout: bool = False,
                 deal_at: int = 0):
        super().__init__(design, seed)
        self.kind = kind
        self.seats = 3 if kind == "spin" else 6
        self.tournament_id = ""
        self.knockout, self.deal_at = knockout, deal_at
        self.asked: set[str] = set()
        self.answered: set[tuple[str, str]] = set()

    def setup(self, world: World) -> None:
        from naiko_service.aws.dynamodb import DynamoAccounts

        if self.kind == "spin":
            import boto3

            DynamoAccounts(boto3.client("dynamodb", region_name=REGION),
                           world.names["AccountsTable"],
                           ledger_table=world.names["LedgerTable"]).grant(
                "house:prizes", 10_000_000, ref="cost")
        preset = "spin_3max_hyper" if self.kind == "spin" else "sng_6max_turbo"
        reply = world.send(world.players[0], action="create_tournament",
                           preset=preset + ("_ko" if self.knockout else ""), entry=100)
        self.tournament_id = reply["tournament_id"]
        if self.deal_at:  # the operator publishes deals with the terms (not billed)
            from dataclasses import replace

            from naiko.tournaments.structures import DealTerms
            from naiko_service.ports import PutTournament

            store = self.store(world)
            record = store.load(self.tournament_id)
            new = record.copy()
            new.version += 1
            new.terms = replace(record.terms, deals=DealTerms(self.deal_at, 0, 60))
            store.commit((PutTournament(new, record.version),))
        world.start_counting()
        for player in world.players:
            world.send(player, action="register", tournament_id=self.tournament_id)

    def store(self, world: World) -> Any:
        import boto3
        from naiko_service.aws.dynamodb import DynamoTableStore
        from naiko_service.aws.tournaments import DynamoTournamentStore
        from naiko_service.records import Sealer

        client = boto3.client("dynamodb", region_name=REGION)
        tables = DynamoTableStore(client, world.names["TablesTable"],
                                  world.names["AccountsTable"], Sealer(bytes(range(32))))
        return DynamoTournamentStore(client, world.names["TournamentsTable"], tables)

    def done(self, world: World) -> bool:
        record = self.store(world).load(self.tournament_id)  # between invocations: not billed
        return record.status.value == "finished" and not record.timers

    def between_hands(self, world: World, player: Player, view: dict[str, Any]) -> None:
        me = view["seats"][view["seat_index"]] if view.get("seat_index") is not None else None
        if me and me.get("sitting_out") and not player.rebuying:
            player.rebuying = True  # coming back
            world.later(10_000, player, {"action": "sit_in", "table_id": player.table_id})
        elif me and not me.get("sitting_out"):
            player.rebuying = False
        if me and self.deal_at:
            self.deal(world, player, view)

    def deal(self, world: World, player: Player, view: dict[str, Any]) -> None:
        """R9.16: ask when :attr:`deal_at` players are left; accept the ICM split offered."""
        info = view.get("tournament") or {}
        deal = info.get("deal") or {}
        offer = deal.get("offer")
        if deal.get("made"):
            return
        if offer is not None:
            answer = (player.player_id, str(offer["offer_id"]))
            if player.player_id in offer["players"] and answer not in self.answered:
                self.answered.add(answer)
                world.later(3_000, player, {"action": "accept_deal", "table_id": player.table_id,
                                            "offer_id": offer["offer_id"], "split": "icm"})
        elif info.get("players_left", 99) <= self.deal_at and player.player_id not in self.asked:
            self.asked.add(player.player_id)
            world.later(2_000, player, {"action": "ask_deal", "table_id": player.table_id})

    def finish(self, world: World) -> None:
        world.counting.bill.hands = len(world.hands)


# -- the bill -----------------------------------------------------------------------------------

TABLES = 10_000
"""Busy tables a stage runs (``--tables``): what the fixed cost per stage is shared by."""


def fixed_per_month(template: dict[str, Any], bill: Bill) -> dict[str, float]:
    """Dollars a month one stage costs with no hand played: counted from the template's
    resources (alarms, dashboards, secrets, unconditional or not) and from the run (the custom
    metrics emitted, the sweep's mean run, the timer queue's pollers)."""
    kinds = Counter(r["Type"] for r in template["Resources"].values())
    out = {
        f"{kinds['AWS::CloudWatch::Alarm']} alarms":
            kinds["AWS::CloudWatch::Alarm"] * PRICES["cloudwatch_alarm_month"],
        f"{kinds['AWS::CloudWatch::Dashboard']} dashboard":
            kinds["AWS::CloudWatch::Dashboard"] * PRICES["cloudwatch_dashboard_month"],
        f"{kinds['AWS::SecretsManager::Secret']} secret":
            kinds["AWS::SecretsManager::Secret"] * PRICES["secret_month"],
        f"{len(bill.metrics)} custom metrics":
            len(bill.metrics) * PRICES["cloudwatch_metric_month"],
    }
    runs = MONTH_S // 60
    if bill.sweep_invocations:
        ms = sum(i.modeled_ms for i in bill.sweep_invocations) / len(bill.sweep_invocations)
        out["sweep (1 a minute)"] = runs * (
            PRICES["lambda_request"] + ms / 1000 * MEMORY_GB * PRICES["lambda_gb_second_arm"]
            + 0.5 * PRICES["dynamodb_rru"])
    if bill.queue_messages:
        polls = QUEUE_POLLERS * 60 / QUEUE_LONG_POLL_S * runs
        out["timer queue's empty long polls"] = polls * PRICES["sqs_request"]
    return out


def egress_price(gb_a_month: float) -> float:
    """Dollars per GB of internet egress, blended over a month of *gb_a_month* GB."""
    left, dollars = gb_a_month, 0.0
    for size, price in EGRESS_TIERS:
        dollars += min(left, size) * price
        left -= min(left, size)
        if left <= 0:
            break
    return dollars / gb_a_month if gb_a_month > 0 else EGRESS_TIERS[0][1]


def hands_per_month(bill: Bill, tables: int) -> float:
    return tables * MONTH_S / (bill.seconds / bill.hands)

def costs(bill: Bill) -> dict[str, dict[str, float]]:
    """Per 1,000 hands: quantities and dollars per service."""
    scale = 1000 / bill.hands
    lambda_requests = len(bill.invocations)
    lambda_gbs = sum(i.modeled_ms for i in bill.invocations) / 1000 * MEMORY_GB
    timer_ms = (sum(bill.timer_durations) / len(bill.timer_durations)
                if bill.timer_durations else 100)
    express_gbs = 0.0
    for start, due in bill.express:
        due_fire = -(-due // 1000) * 1000
        billed_ms = max(0, due_fire - start) + timer_ms + EXPRESS_OVERHEAD_MS
        express_gbs += math.ceil(billed_ms / 100) / 10 * (64 / 1024)
    connection_minutes = bill.seats * bill.seconds / 60
    invocations = len(bill.invocations)
    logs_gb = (bill.log_bytes + LOG_EVENT_OVERHEAD * bill.log_lines
               + sum(i.platform_log_bytes for i in bill.invocations)) / 1024**3
    traces = invocations * XRAY_SAMPLED if bill.tracing else 0.0
    cold_starts = COLD_STARTS_PER_1000_HANDS * bill.hands / 1000
    egress_gb = bill.post_bytes / 1024**3
    egress_rate = egress_price(egress_gb / bill.hands * hands_per_month(bill, TABLES))
    access_gb = (bill.access_log_bytes + LOG_EVENT_OVERHEAD * bill.messages_in) / 1024**3
    stored = (sum(bill.history_bytes) + sum(bill.history_entry_bytes)
              + ITEM_STORAGE_OVERHEAD * (len(bill.history_bytes) + len(bill.history_entry_bytes)))
    stored_gb_months = stored / 1024**3 * bill.retention_days * 86_400 / MONTH_S
    unscale = bill.hands / 1000  # for the two figures that are not per 1,000 hands (below)
    fixed = sum(bill.fixed_month.values())
    out = {
        "Lambda": {"requests": lambda_requests, "GB-s": lambda_gbs,
                   "$": lambda_requests * PRICES["lambda_request"]
                   + lambda_gbs * PRICES["lambda_gb_second_arm"]},
        "DynamoDB": {"RRU": bill.rru, "WRU": bill.wru + bill.gsi_wru, "of which GSI": bill.gsi_wru,
                     "$": bill.rru * PRICES["dynamodb_rru"]
                     + (bill.wru + bill.gsi_wru) * PRICES["dynamodb_wru"]},
        "API Gateway": {"messages in": bill.messages_in, "messages out": bill.messages_out,
                        "connection-min": connection_minutes,
                        "$": (bill.messages_in + bill.messages_out) * PRICES["apigw_message"]
                        + connection_minutes * PRICES["apigw_connection_minute"]},
        "Step Functions": {
            "express runs": len(bill.express), "express GB-s": express_gbs,
            "standard runs": bill.standard, "transitions": 2 * bill.standard,
            "$": len(bill.express) * PRICES["sfn_express_request"]
            + express_gbs * PRICES["sfn_express_gb_second"]
            + 2 * bill.standard * PRICES["sfn_standard_transition"]},
        "SQS": {"wake-ups": bill.queue_messages, "requests": 3 * bill.queue_messages,
                "$": 3 * bill.queue_messages * PRICES["sqs_request"]},
        "CloudWatch Logs": {"MB ingested": logs_gb * 1024, "$": logs_gb
                            * PRICES["logs_ingested_gb"]},
        "X-Ray": {"traces": traces, "$": traces * PRICES["xray_trace_recorded"]},
        "Secrets+KMS": {"calls": 2 * cold_starts,
                        "$": cold_starts * (PRICES["secrets_api_call"] + PRICES["kms_request"])},
        "Internet egress": {"MB out": egress_gb * 1024, "$": egress_gb * egress_rate},
        "API access logs": {"MB ingested": access_gb * 1024,
                            "$": access_gb * PRICES["logs_ingested_gb"]},
        "Stored hands": {"MB-months": stored_gb_months * 1024,
                         "$": stored_gb_months * (PRICES["dynamodb_storage_gb_month"]
                                                  + PRICES["dynamodb_pitr_gb_month"])},
        "Fixed per stage": {"$ a month": fixed * unscale,
                            "$": fixed * 1000 / hands_per_month(bill, TABLES) * unscale},
    }
    return {service: {k: v * scale for k, v in row.items()} for service, row in out.items()}


def wall_mean_ms(bill: Bill) -> float:
    """The mean modelled duration by wall time (:attr:`Invocation.wall_modeled_ms`)."""
    return (sum(i.wall_modeled_ms for i in bill.invocations)
            / max(1, len(bill.invocations)))


def wall_lambda_dollars(bill: Bill) -> float:
    """The Lambda line per 1,000 hands had the duration been measured in wall time."""
    gbs = sum(i.wall_modeled_ms for i in bill.invocations) / 1000 * MEMORY_GB
    return (len(bill.invocations) * PRICES["lambda_request"]
            + gbs * PRICES["lambda_gb_second_arm"]) * 1000 / bill.hands


def report(bills: dict[str, Bill], label: str = "6-max NLHE 1/2, humans",
           per_tournament: bool = False) -> str:
    lines = []
    first = next(iter(bills.values()))
    lines.append(f"{label}; {first.hands} hands per design, "
                 f"{first.seconds / first.hands:.1f} s per hand on average "
                 f"(decision clock {DECISION_MS // 1000} s, pause {PAUSE_MS // 1000} s, "
                 f"{first.decisions / first.hands:.1f} decisions per hand, "
                 f"{first.timeouts / max(1, first.decisions):.1%} timed out)")
    per_hand = {d: sum(i.modeled_ms for i in b.invocations) / max(1, len(b.invocations))
                for d, b in bills.items()}
    lines.append("Lambda: 512 MB arm64; modelled mean duration per invocation (thread CPU): "
                 + ", ".join(f"{d} {ms:.0f} ms" for d, ms in per_hand.items()))
    table = {d: costs(b) for d, b in bills.items()}
    walls = {d: (wall_lambda_dollars(b), sum(row["$"] for row in table[d].values())
                 - table[d]["Lambda"]["$"] + wall_lambda_dollars(b)) for d, b in bills.items()}
    lines.append("  by wall time instead (the method before, grows with the load): " + ", ".join(
        f"{d} {wall_mean_ms(b):.0f} ms (Lambda ${walls[d][0]:.4f}, TOTAL ${walls[d][1]:.4f})"
        for d, b in bills.items()))
    designs = list(bills)
    width = 16
    lines.append("")
    lines.append("per 1,000 hands".ljust(34) + "".join(d.rjust(width) for d in designs))
    lines.append("(table seconds per hand)".ljust(34) + "".join(
        f"{bills[d].seconds / bills[d].hands:.1f}".rjust(width) for d in designs))
    lines.append("(decisions per hand, timed out)".ljust(34) + "".join(
        f"{bills[d].decisions / bills[d].hands:.2f}, {bills[d].timeouts / bills[d].hands:.2f}"
        .rjust(width) for d in designs))
    for service in table[designs[0]]:
        for quantity in table[designs[0]][service]:
            label = f"{service} {quantity}" if quantity != "$" else f"{service} $"
            cells = []
            for d in designs:
                value = table[d][service][quantity]
                cells.append((f"${value:.4f}" if quantity == "$" else f"{value:,.1f}")
                             .rjust(width))
            lines.append(label.ljust(34) + "".join(cells))
    operations = sorted({op for b in bills.values() for op in b.calls})
    for op in operations:
        lines.append(f"AWS calls: {op}".ljust(34) + "".join(
            f"{bills[d].calls[op] * 1000 / bills[d].hands:,.0f}".rjust(width) for d in designs))
    totals = {d: sum(row["$"] for row in table[d].values()) for d in designs}
    lines.append("TOTAL $ per 1,000 hands".ljust(34)
                 + "".join(f"${totals[d]:.4f}".rjust(width) for d in designs))
    if per_tournament:
        for d in designs:
            lines.append(tournament_writes_line(d, bills[d]))
        lines.append("TOTAL $ per tournament".ljust(34) + "".join(
            f"${totals[d] * bills[d].hands / 1000:.5f}".rjust(width) for d in designs))
        lines.append("(hands, minutes per tournament)".ljust(34) + "".join(
            f"{bills[d].hands}, {bills[d].seconds / 60:.1f}".rjust(width) for d in designs))
    lines.append(f"goal <= ${GOAL:.2f}".ljust(34)
                 + "".join(("met" if totals[d] <= GOAL else "not met").rjust(width)
                           for d in designs))
    lines.append("")
    if not per_tournament:
        lines.append(goal_line(designs[0], totals[designs[0]], table[designs[0]]))
    lines.append("answers per 1,000 hands (" + designs[0] + "): " + ", ".join(
        f"{kind} {n * 1000 / first.hands:,.0f}"
        for kind, n in sorted(first.answers.items())))
    for d in designs:
        lines.append(history_line(d, bills[d]))
    sweep = next(iter(bills.values()))
    if sweep.sweep_invocations:
        ms = sum(i.modeled_ms for i in sweep.sweep_invocations) / len(sweep.sweep_invocations)
        per_month = 43_200 * (PRICES["lambda_request"]
                              + ms / 1000 * MEMORY_GB * PRICES["lambda_gb_second_arm"]
                              + 0.5 * PRICES["dynamodb_rru"])
        lines.append("")
        lines.append(f"sweep (rate 1 minute, per deployment, not per table): {ms:.0f} ms per "
                     f"run, ${per_month:.4f} per month")
    if any(b.queue_messages for b in bills.values()):
        polls = QUEUE_POLLERS * 60 / QUEUE_LONG_POLL_S * 43_200
        lines.append(f"timer queue's empty long polls (per deployment, not per table): "
                     f"{QUEUE_POLLERS} pollers x {60 / QUEUE_LONG_POLL_S:.0f} a minute = "
                     f"{polls:,.0f} requests, ${polls * PRICES['sqs_request']:.4f} per month")
    lines.append(fixed_line(designs[0], first, totals[designs[0]], table[designs[0]]))
    return "\n".join(lines)


def fixed_line(design: str, bill: Bill, total: float, table: dict[str, dict[str, float]]) -> str:
    """The fixed cost per stage, what it is made of, per 1,000 hands at :data:`TABLES` busy
    tables, and the fewest busy tables at which the goal still holds."""
    month = sum(bill.fixed_month.values())
    parts = ", ".join(f"{name} ${dollars:.2f}" for name, dollars in bill.fixed_month.items())
    variable = total - table["Fixed per stage"]["$"]
    per_table = hands_per_month(bill, 1) / 1000  # thousands of hands a busy table plays a month
    if variable < GOAL:
        least = f"the goal holds from {math.ceil(month / ((GOAL - variable) * per_table)):,} " \
                "busy tables up"
    else:
        least = "the goal is not met at any size"
    return (f"fixed per stage ({design}): ${month:.2f} a month ({parts}) = "
            f"${table['Fixed per stage']['$']:.6f} per 1,000 hands at {TABLES:,} busy tables "
            f"({per_table * TABLES / 1000:,.0f} M hands a month); {least}; hands stored "
            f"{bill.retention_days} days (HandRetentionDays)")


def goal_line(design: str, total: float, table: dict[str, dict[str, float]]) -> str:
    """The goal: met, or not and by how much, with what the bill is made of."""
    parts = ", ".join(f"{service} ${row['$']:.4f}" for service, row in
                      sorted(table.items(), key=lambda item: -item[1]["$"]))
    if total <= GOAL:
        return (f"{design}: ${total:.4f} per 1,000 6-max hands: met "
                f"(goal <= ${GOAL:.2f}); {parts}")
    return (f"{design}: ${total:.4f} per 1,000 6-max hands: not met (goal <= ${GOAL:.2f}, "
            f"${total - GOAL:.4f} left to save); {parts}")


def tournament_writes_line(design: str, bill: Bill) -> str:
    """A tournament's writes to its own table, by item kind (count and WRU per tournament),
    and its ledger entries by reason: what bounties (``bounty#`` items, the tournament item
    written again at each knockout), deals (``deal#`` items) and entries add."""
    wru = sum(bill.tournament_wru.values())
    parts = ", ".join(f"{kind} {n:,} ({bill.tournament_wru[kind]:,} WRU)"
                      for kind, n in sorted(bill.tournament_writes.items()))
    ledger = ", ".join(f"{reason} {n:,}" for reason, n in sorted(bill.ledger_writes.items()))
    return (f"tournament writes ({design}): {sum(bill.tournament_writes.values()):,} = "
            f"{wru:,} WRU = ${wru * PRICES['dynamodb_wru']:.5f} per tournament ({parts}); "
            f"ledger entries: {ledger or 'none'}")


def history_line(design: str, bill: Bill) -> str:
    """What storing the hands' records (R10.1) costs per 1,000 hands (part of the DynamoDB
    figures above)."""
    scale = 1000 / bill.hands
    wru = sum(bill.history_wru.values()) * scale
    parts = ", ".join(f"{name} {units * scale:,.0f}"
                      for name, units in sorted(bill.history_wru.items()))
    size = (f"; hand items {min(bill.history_bytes):,}-{max(bill.history_bytes):,} B, "
            f"mean {sum(bill.history_bytes) / len(bill.history_bytes):,.0f} B"
            if bill.history_bytes else "")
    return (f"hand histories ({design}): {wru:,.0f} WRU per 1,000 hands = "
            f"${wru * PRICES['dynamodb_wru']:.4f} ({parts}{size})")


def main(argv: list[str] | None = None) -> int:
    global TABLES
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--design", choices=["all", "wake-up", "express", "per-timer", "naive"],
                        default="all")
    parser.add_argument("--tournament", choices=["sng", "spin"], default=None,
                        help="a whole Sit & Go (6 humans) or Spin (3) instead of a cash table")
    parser.add_argument("--knockout", action="store_true",
                        help="with --tournament: its knockout preset (_ko, R9.13)")
    parser.add_argument("--deal", type=int, default=0, metavar="N",
                        help="with --tournament: deals published for N players; at N left "
                             "they ask and accept the ICM split (R9.16)")
    parser.add_argument("--no-histories", action="store_true",
                        help="store no hand histories (HISTORY_TABLE unset), to compare")
    parser.add_argument("--tables", type=int, default=TABLES,
                        help="busy tables the stage's fixed monthly cost is shared by")
    parser.add_argument("--retention-days", type=int, default=None,
                        help="days stored hands are kept (default: the template's "
                             "HandRetentionDays)")
    args = parser.parse_args(argv)
    TABLES = args.tables
    designs = (["wake-up", "express", "per-timer", "naive"] if args.design == "all"
               else [args.design])
    bills = {}
    for design in designs:
        started = time.perf_counter()
        simulation: Simulation = (Table(design, args.hands, args.seed) if args.tournament is None
                                  else Tournament(design, args.tournament, args.seed,
                                                  args.knockout, args.deal))
        simulation.histories = not args.no_histories
        bills[design] = simulation.run()
        if args.retention_days is not None:
            bills[design].retention_days = args.retention_days
        print(f"[{design}: {bills[design].hands} hands simulated in "
              f"{time.perf_counter() - started:.0f} s]", file=sys.stderr)
    if args.tournament is None:
        print(report(bills))
    else:
        name = {"sng": "Sit & Go sng_6max_turbo, 6 humans",
                "spin": "Spin spin_3max_hyper, 3 humans"}[args.tournament]
        extras = (" knockout," if args.knockout else "") + (
            f" a deal at {args.deal} left," if args.deal else "")
        print(report(bills, f"{name},{extras} entry 100, registration to last prize",
                     per_tournament=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
