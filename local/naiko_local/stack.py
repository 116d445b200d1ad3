""":mod:`naiko_local.stack` runs the whole backend on this machine: ``python -m naiko_local.stack``
(what ``scripts/run`` starts).

What is real and what is local:

* **Real**: the Lambda handlers (``functions/*/app.py``, loaded by path, one warm module per
  function), the service and engine they call, the AWS adapters (``naiko_service.aws``:
  DynamoDB through boto3, ``ManagementApiGateway`` posting through boto3's
  ``apigatewaymanagementapi`` client), the token authorizer and its Ed25519 tokens, the
  sealed table state, and ``template.yaml`` (tables, routes, authorizer, sweep schedule).
* **Local**: DynamoDB is moto's server (in this process, on ``127.0.0.1``; ``AWS_ENDPOINT_URL``
  points boto3 at it); API Gateway is :class:`naiko_local.gateway.LocalGateway`; the timer
  queue and its event source mapping are :class:`naiko_local.timers.LocalDelayQueue` (the real
  ``DelayQueueScheduler`` sends to it); Step Functions (waits over 15 minutes) and EventBridge
  are :class:`naiko_local.timers.LocalTimers`; Lambda is a thread pool.

:class:`LocalStack` is the programmatic form (the end-to-end tests start one in-process);
:func:`main` adds the demo table, bots and the banner.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import contextvars
import functools
import io
import json
import logging
import os
import random
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from naiko_client.keepalive import KeepAlive, keep_alive

from . import template as tpl
from .gateway import Limits, LocalGateway, Refusal, Routes
from .timers import LOCAL_QUEUE_URL, LocalDelayQueue, LocalTimers
from .web import WebServer

log = logging.getLogger("naiko_local")
push_log = logging.getLogger("naiko_local.push")

REGION = "us-east-1"
ACCOUNT_ID = "123456789012"
DEFAULT_PORT = 8765
WELCOME_CHIPS = 10_000
"""Chips granted to a player's account on its first connection to a running stack (local
only: the service has no cashier route)."""


# -- Lambda stand-in -------------------------------------------------------------------------

class LambdaContext:
    """What a handler's ``context`` offers (Powertools reads these)."""

    def __init__(self, function_name: str, timeout_s: float | None = None,
                 memory_mb: int = 512):
        if timeout_s is None:
            timeout_s = tpl.default_timeout_s()
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = memory_mb
        self.invoked_function_arn = (f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:"
                                     f"{function_name}")
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


_in_lambda = threading.local()

_lambda_logs: list[TextIO] = []
"""The Lambda logs of the running stacks, newest last: where handlers' output goes. Process-wide
like :data:`_in_lambda`, because a :class:`_RoutedOutput` outlives its stack: whoever took
``sys.stdout`` while it was installed keeps it (Powertools' ``Logger`` builds one handler per
service name, on the stdout of its first load, for the life of the process)."""
_lambda_logs_lock = threading.Lock()
"""Held by every write to a Lambda log and while one is attached or detached, so that a log is
never written to once detached (and never closed before that)."""


def _attach_lambda_log(sink: TextIO) -> None:
    with _lambda_logs_lock:
        _lambda_logs.append(sink)


def _detach_lambda_log(sink: TextIO) -> None:
    """After this returns no write reaches *sink*: it may be closed."""
    with _lambda_logs_lock:
        if sink in _lambda_logs:
            _lambda_logs.remove(sink)


class _RoutedOutput(io.TextIOBase):
    """``sys.stdout`` while a stack with a Lambda log runs: what a handler prints (Powertools'
    JSON logs and EMF metrics, CloudWatch's share in AWS) goes to the Lambda log of the newest
    running stack; everything else, and handlers' output when no such stack runs (this object
    stays in the hands of whoever took ``sys.stdout`` meanwhile), to the console."""

    def __init__(self, console: TextIO):
        self.console = console

    def write(self, text: str) -> int:
        if getattr(_in_lambda, "active", False):
            with _lambda_logs_lock:
                if _lambda_logs:
                    return _lambda_logs[-1].write(text)
        return self.console.write(text)

    def flush(self) -> None:
        with _lambda_logs_lock:
            for sink in _lambda_logs:
                sink.flush()
        try:
            self.console.flush()
        except ValueError:  # a console closed under us (a test's capture): nothing to flush
            pass

    def isatty(self) -> bool:
        return self.console.isatty()

    def fileno(self) -> int:
        return self.console.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.console, "encoding", "utf-8")


class LocalFunctions:
    """The functions of ``template.yaml``, each loaded once from its code directory (a warm
    container) and invoked synchronously with a Lambda context.

    Invocations run side by side (the gateway's and the timers' threads), but each is isolated
    as if it had a container to itself: it runs in a fresh :class:`contextvars.Context`, and
    the per-invocation state of Powertools' per-container objects (the logger's keys, the metric
    set) lives in that context (:func:`isolate_invocations`)."""

    def __init__(self, specs: Mapping[str, tpl.FunctionSpec], root: Path = tpl.ROOT):
        self.specs = dict(specs)
        self.root = root
        self.modules: dict[str, ModuleType] = {}
        self.invocations: dict[str, int] = {}
        self.errors: dict[str, int] = {}
        self._count_lock = threading.Lock()

    def load(self) -> None:
        tag = uuid.uuid4().hex[:8]
        for name, spec in self.specs.items():
            self.modules[name] = tpl.load_module(spec.module_path(self.root),
                                                 f"naiko_local_fn_{name}_{tag}")

    def invoke(self, name: str, event: dict[str, Any]) -> Any:
        """Run function *name* on *event* in this thread, in a context of its own; returns or
        raises what it does."""
        return contextvars.Context().run(self._invoke, name, event)

    def _invoke(self, name: str, event: dict[str, Any]) -> Any:
        _invocation.set({})
        module = self.modules[name]
        handler = getattr(module, self.specs[name].function_name)
        with self._count_lock:
            self.invocations[name] = self.invocations.get(name, 0) + 1
        previous = getattr(_in_lambda, "active", False)
        _in_lambda.active = True
        try:
            return handler(event, LambdaContext(f"naiko-local-{name}",
                                                self.specs[name].timeout_s))
        except Exception:
            with self._count_lock:
                self.errors[name] = self.errors.get(name, 0) + 1
            raise
        finally:
            _in_lambda.active = previous


_invocation: contextvars.ContextVar[dict[tuple[int, str], Any] | None] = contextvars.ContextVar(
    "naiko_local_invocation", default=None)
"""The per-invocation attributes of the invocation running in this context (each runs in a
fresh :class:`contextvars.Context`, see :meth:`LocalFunctions.invoke`); ``None`` outside one."""


def per_invocation(obj: Any, fresh: Mapping[str, Callable[[Any], Any]]) -> None:
    """Make attributes of *obj* per invocation: inside an invocation, attribute *name* starts as
    ``fresh[name](the object's own value)`` and whatever the invocation sets or changes there
    stays in its context, dropped with it; outside any invocation, it is the object's own value
    (idempotent). *obj*'s class is swapped for a subclass of its own with one property per
    name."""
    if getattr(type(obj), "_naiko_local_per_invocation", False):
        return
    own = {name: obj.__dict__.pop(name) for name in fresh}

    def attribute(name: str) -> property:
        key = (id(obj), name)

        def get(self: Any) -> Any:
            state = _invocation.get()
            if state is None:
                return own[name]
            if key not in state:
                state[key] = fresh[name](own[name])
            return state[key]

        def set_(self: Any, value: Any) -> None:
            state = _invocation.get()
            if state is None:
                own[name] = value
            else:
                state[key] = value

        return property(get, set_)

    base = type(obj)
    obj.__class__ = type(base.__name__, (base,), {
        "__module__": base.__module__, "_naiko_local_per_invocation": True,
        **{name: attribute(name) for name in fresh}})


def isolate_invocations() -> None:
    """Lambda runs one invocation per container at a time, and a container's Powertools objects
    hold one invocation's state: the logger's keys (``inject_lambda_context`` puts the Lambda
    context and the correlation id in its formatter's shared ``log_format``, replaced on every
    invocation) and the metric set (``log_metrics`` flushes it when the invocation ends). Here
    the handlers share one process, so those become per invocation (:func:`per_invocation`):
    a log line never carries another invocation's ``function_request_id``, ``function_name``
    or ``correlation_id``, and each invocation prints exactly its own metrics. The keys handlers
    add themselves (``thread_safe_append_keys``) are context variables already, and each
    invocation starts from a fresh context. Idempotent; covers every Powertools formatter on a
    logger at the time of the call (call it once the functions are loaded)."""
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
    from naiko_service.bootstrap import metrics

    # Handlers that count nothing (a stale timer) make Powertools warn on every flush.
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    loggers = [logging.getLogger(), *(candidate for candidate in list(
        logging.Logger.manager.loggerDict.values()) if isinstance(candidate, logging.Logger))]
    for logger in loggers:
        for handler in list(logger.handlers):
            if isinstance(handler.formatter, LambdaPowertoolsFormatter):
                per_invocation(handler.formatter, {"log_format": dict})
    provider = metrics.provider
    fresh: dict[str, Callable[[Any], Any]] = {
        "metric_set": lambda _: {}, "metadata_set": lambda _: {},
        "dimension_set": dict,  # the default dimensions (what clear_metrics leaves)
        "dimension_sets": lambda _: []}
    per_invocation(provider, {name: make for name, make in fresh.items()
                              if name in vars(provider)})


# -- the stack -------------------------------------------------------------------------------

HOUSE_BOT_CHIPS = 10_000_000
"""Chips granted to the house's bot account when a local stack starts (on the ledger)."""

HOUSE_PRIZE_CHIPS = 100_000_000
"""Chips granted to the house's prize account (Spin prizes, R9.10) when a local stack starts."""


@dataclass
class StackConfig:
    """How to run the stack; the defaults are the run command's."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    """WebSocket API port (0: any free port)."""
    management_port: int = 0
    """Management API port (0: any free port)."""
    moto_port: int = 0
    """moto's port (0: any free port)."""
    stage: str = "local"
    root: Path = tpl.ROOT
    """The repository: ``template.yaml`` and ``functions/``."""
    sweep_seconds: float | None = None
    """Sweep period; ``None``: the template's schedule (every minute)."""
    decision_seconds: int | None = None
    """``DEFAULT_DECISION_SECONDS`` (a table's clock when ``create_table`` names none)."""
    pause_seconds: int | None = None
    """``DEFAULT_PAUSE_SECONDS`` (the pause between hands of new tables)."""
    offer_seconds: int | None = None
    """``SEAT_OFFER_SECONDS`` (how long a freed seat is held for the waiting list, R7.10)."""
    welcome_chips: int = WELCOME_CHIPS
    lambda_workers: int = 8
    """Concurrent invocations (boto3's pool holds 10 connections per client)."""
    lambda_log: Path | None = None
    """Where handlers' output goes; ``None``: stdout, unchanged."""
    log_level: str = "INFO"
    """``POWERTOOLS_LOG_LEVEL`` of the handlers."""
    limits: Limits = field(default_factory=Limits)
    env: dict[str, str] = field(default_factory=dict)
    """Extra environment for the handlers."""
    web_port: int | None = None
    """The browser client's port (:mod:`naiko_local.web`; 0: any free port); ``None``: no web
    server (the run command's default is ``--port`` + 2)."""


class LocalStack:
    """moto + the local gateway + local timers around the real handlers.

    >>> stack = LocalStack(StackConfig(port=0)).start()  # doctest: +SKIP
    >>> stack.gateway.url, stack.token("alice")  # doctest: +SKIP
    >>> stack.stop()  # doctest: +SKIP
    """

    def __init__(self, config: StackConfig | None = None):
        self.config = config or StackConfig()
        self.moto: Any = None
        self.moto_endpoint = ""
        self.table_names: dict[str, str] = {}
        self.gateway: LocalGateway
        self.timers: LocalTimers
        self.timer_queue: LocalDelayQueue | None = None
        self.functions: LocalFunctions
        self.service: Any = None
        self.private_key: Any = None
        self.public_key = ""
        self.private_key_pem = b""
        self._executor: ThreadPoolExecutor | None = None
        self._saved_env: dict[str, str | None] = {}
        self._output: _RoutedOutput | None = None
        self._log_file: TextIO | None = None
        self._welcomed: set[str] = set()
        self._welcome_lock = threading.Lock()
        self._dynamodb: Any = None
        self.web: WebServer | None = None
        self.notifier: Any = None
        """The push notifications' recorder (:meth:`_push_on`)."""
        self.started = False

    # -- start / stop ------------------------------------------------------------------------

    def start(self) -> LocalStack:
        from moto.server import ThreadedMotoServer
        from naiko_service import auth

        config = self.config
        if not logging.getLogger("werkzeug").level:  # moto's server logs every request
            logging.getLogger("werkzeug").setLevel(logging.ERROR)
        try:
            template = tpl.load_template(config.root / "template.yaml")
            self.moto = _serial_moto_server(ThreadedMotoServer)(
                ip_address=config.host, port=config.moto_port, verbose=False)
            self.moto.start()
            host, port = self.moto.get_host_and_port()
            self.moto_endpoint = f"http://{host}:{port}"

            self.private_key = auth.generate_private_key()
            self.private_key_pem = auth.private_key_to_pem(self.private_key)
            self.public_key = auth.public_key_to_base64(self.private_key.public_key())
            self._set_env({
                "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                "AWS_SESSION_TOKEN": None, "AWS_PROFILE": None,
                "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION,
                "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
                "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_ENDPOINT_URL": self.moto_endpoint,
                "POWERTOOLS_SERVICE_NAME": "naiko", "POWERTOOLS_METRICS_NAMESPACE": "Naiko",
                "POWERTOOLS_LOG_LEVEL": config.log_level,
                "POWERTOOLS_TRACE_DISABLED": "true",
                "STATE_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
                "STATE_KEY_SECRET_ARN": None,
                "TIMER_STATE_MACHINE_ARN": None, "TIMER_LONG_STATE_MACHINE_ARN": None,
                "AUTH_PROVIDER": "naiko", "AUTH_PUBLIC_KEY": self.public_key,
                # Tokens are bound to the stage, as in template.yaml (docs/auth.md).
                "AUTH_ISSUER": auth.stage_claim(config.stage),
                "AUTH_AUDIENCE": auth.stage_claim(config.stage),
                "AUTH_PREVIOUS_PUBLIC_KEY": None, "AUTH_MAX_TOKEN_SECONDS": None,
                "DEFAULT_DECISION_SECONDS": (None if config.decision_seconds is None
                                             else str(config.decision_seconds)),
                "DEFAULT_PAUSE_SECONDS": (None if config.pause_seconds is None
                                          else str(config.pause_seconds)),
                "SEAT_OFFER_SECONDS": (None if config.offer_seconds is None
                                       else str(config.offer_seconds)),
                "WEBSOCKET_ENDPOINT": None,
                **config.env,
            })

            import boto3

            self._dynamodb = boto3.client("dynamodb", endpoint_url=self.moto_endpoint,
                                          region_name=REGION)
            # moto's backends are per process: drop what an earlier stack here left behind
            existing = set(self._dynamodb.list_tables().get("TableNames", []))
            for args in tpl.table_definitions(template, config.stage).values():
                if args["TableName"] in existing:
                    self._dynamodb.delete_table(TableName=args["TableName"])
            self.table_names = tpl.create_tables(self._dynamodb, template, config.stage)
            self._set_env({"TABLES_TABLE": self.table_names["TablesTable"],
                           "ACCOUNTS_TABLE": self.table_names["AccountsTable"],
                           "LEDGER_TABLE": self.table_names["LedgerTable"],
                           "CONNECTIONS_TABLE": self.table_names["ConnectionsTable"],
                           "TOURNAMENTS_TABLE": self.table_names["TournamentsTable"],
                           "HISTORY_TABLE": self.table_names["HandHistoryTable"],
                           # spectators' items; no WATCHERS_QUEUE_URL: their updates are
                           # posted by the writing function, after the players' own
                           "WATCHERS_TABLE": self.table_names["WatchersTable"]})

            if config.lambda_log is not None:
                config.lambda_log.parent.mkdir(parents=True, exist_ok=True)
                self._log_file = open(config.lambda_log, "a", encoding="utf-8",  # noqa: SIM115
                                      buffering=1)
                _attach_lambda_log(self._log_file)
                self._output = _RoutedOutput(sys.stdout)
                sys.stdout = self._output
            # Only now: the handlers' Powertools logger is built when bootstrap is first
            # imported, and takes the service name (POWERTOOLS_SERVICE_NAME) and the stdout of
            # that moment for the life of the process.
            from naiko_service import bootstrap
            from naiko_service.aws.scheduler import DelayQueueScheduler

            routes = tpl.websocket_routes(template)
            authorizer = tpl.connect_authorizer(template)
            sweep = tpl.sweep_function(template)
            specs = {spec.name: spec for spec in tpl.functions(template).values()}
            self.functions = LocalFunctions(specs, config.root)
            self.functions.load()
            isolate_invocations()

            self._executor = ThreadPoolExecutor(config.lambda_workers,
                                                thread_name_prefix="lambda")
            self.gateway = LocalGateway(
                self.functions.invoke,
                Routes({key: spec.name for key, spec in routes.items()},
                       authorizer=authorizer.function.name if authorizer else None,
                       identity_query=authorizer.query_parameters() if authorizer else (),
                       selection_key=_selection_key(tpl.route_selection_expression(template))),
                host=config.host, port=config.port, management_port=config.management_port,
                stage=config.stage, region=REGION, account_id=ACCOUNT_ID,
                executor=self._executor, limits=config.limits,
                before_connect=self._welcome if config.welcome_chips > 0 else None,
                screen=self._screen)
            self.gateway.start()
            self._set_env({"WEBSOCKET_ENDPOINT": self.gateway.management_url})
            if config.web_port is not None:
                self.web = WebServer(config.host, config.web_port, ws_port=self.gateway.port,
                                     mint=lambda player, ttl: self.token(player, ttl),
                                     notifications=self.notifications_of).start()

            # The handlers' own bootstrap builds the service on the AWS adapters from this
            # environment; only the Scheduler port is swapped for local timers.
            bootstrap.reset()
            self.service = bootstrap.get_service()
            sweep_name = sweep[0].name if sweep else None
            sweep_seconds = (config.sweep_seconds if config.sweep_seconds is not None
                             else sweep[1] if sweep else 60.0)
            self.timers = LocalTimers(
                lambda event: self.functions.invoke("timer", event),
                sweep=(lambda: self.functions.invoke(sweep_name, _sweep_event()))
                if sweep_name else None,
                sweep_seconds=sweep_seconds, executor=self._executor)
            # The timer queue (TimerTransport=queue, the template's default) takes the wake-ups
            # up to 15 minutes away; the local "STANDARD machine" the longer ones.
            self.timer_queue = LocalDelayQueue(
                lambda event: self.functions.invoke("timer", event), executor=self._executor)
            self.service.deps.scheduler = DelayQueueScheduler(
                self.timer_queue, LOCAL_QUEUE_URL, long_waits=self.timers)
            self.timers.start()
            self.timer_queue.start()
            self._push_on()
            if config.welcome_chips > 0:  # the house funds the BOT seats hosts add (R7.12),
                # tournament BOTs' entries, and Spin prizes (R9.10)
                from naiko_service.tournament_records import HOUSE_PRIZES
                from naiko_service.usecases.private import HOUSE_BOTS

                self.grant(HOUSE_BOTS, HOUSE_BOT_CHIPS)
                self.grant(HOUSE_PRIZES, HOUSE_PRIZE_CHIPS)
            self.started = True
            return self
        except BaseException:
            self.stop()
            raise

    def _push_on(self) -> None:
        """Push notifications (issue 25) on every platform: the device books on the
        connections table (moto), like a deployment's, and a recording notifier instead of
        SNS, which logs each notification (``naiko_local.push``) and serves them to the web
        client (``GET /api/notifications``); ``docs/local.md``, "Push notifications"."""
        from naiko_service.aws.dynamodb import DynamoDevices
        from naiko_service.memory import RecordingNotifier

        def logged(player_id: str, device: Any, notification: Any) -> None:
            push_log.info("push to %s (%s): %s: %s %s", player_id, device.platform,
                          notification.title, notification.body, notification.data)

        self.notifier = RecordingNotifier(listener=logged)
        deps = self.service.deps
        deps.devices = DynamoDevices(self._dynamodb, self.table_names["ConnectionsTable"])
        deps.notifier = self.notifier

    def notifications_of(self, player_id: str) -> list[dict[str, Any]]:
        """The push notifications sent to *player_id*'s devices, oldest first."""
        if self.notifier is None:
            return []
        return [n.to_dict() | {"platform": str(device.platform)}
                for player, device, n in list(self.notifier.sent) if player == player_id]

    def _screen(self, function: str, event: dict[str, Any]) -> Refusal | None:
        """The function's own rate limit (``screen`` in ``functions/game/app.py``), asked by
        the gateway before it queues a frame, so that a refused frame takes no invocation
        (docs/local.md, "Fairness")."""
        screen = getattr(self.functions.modules.get(function), "screen", None)
        if screen is None or self.service is None:
            return None
        verdict = screen(self.service, event.get("body"), event["requestContext"])
        if verdict is None:
            return None
        from naiko_service.aws.gateway import encode_message

        message, close = verdict
        return Refusal(encode_message(message), close)

    def stop(self) -> None:
        """Stop everything and restore the process's environment (idempotent)."""
        from naiko_service import bootstrap

        for part in ("web", "gateway", "timers", "timer_queue"):
            component = getattr(self, part, None)
            if component is not None:
                try:
                    component.stop()
                except Exception:
                    log.exception("stopping the %s failed", part)
        self.web = None
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self._dynamodb is not None:  # moto's backends outlive its server in this process
            for name in self.table_names.values():
                try:
                    self._dynamodb.delete_table(TableName=name)
                except Exception:
                    log.debug("could not delete %s", name)
            self._dynamodb = None
        if self.moto is not None:
            try:
                self.moto.stop()
            except Exception:
                log.exception("stopping moto failed")
            self.moto = None
        if self.service is not None:
            bootstrap.reset()
            self.service = None
        if self._output is not None:
            if sys.stdout is self._output:
                sys.stdout = self._output.console
            self._output = None
        if self._log_file is not None:
            # Handlers' output may still come (a logger holding this stack's stdout, a thread
            # that outlived the pool): detach the log first, then close it.
            _detach_lambda_log(self._log_file)
            self._log_file.close()
            self._log_file = None
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved_env = {}
        self.started = False

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _set_env(self, values: Mapping[str, str | None]) -> None:
        for name, value in values.items():
            if name not in self._saved_env:
                self._saved_env[name] = os.environ.get(name)
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    # -- players -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.gateway.url

    @property
    def web_url(self) -> str | None:
        """The browser client's address, when the stack serves it (``StackConfig.web_port``)."""
        return self.web.url if self.web is not None else None

    def token(self, player_id: str, ttl: int = 12 * 3600) -> str:
        """A v1 token for *player_id*, signed with this run's key (``docs/auth.md``)."""
        from naiko_service import auth

        now = int(time.time())
        claim = auth.stage_claim(self.config.stage)
        return auth.sign_token(self.private_key, player_id, issued_at=now,
                               expires_at=now + ttl, issuer=claim, audience=claim)

    def accounts(self) -> Any:
        from naiko_service.aws.dynamodb import DynamoAccounts

        return DynamoAccounts(self._dynamodb, self.table_names["AccountsTable"],
                              ledger_table=self.table_names["LedgerTable"])

    def grant(self, player_id: str, chips: int) -> int:
        """Add chips to a player's account; returns the balance."""
        balance: int = self.accounts().grant(player_id, chips)
        return balance

    def balance(self, player_id: str) -> int:
        balance: int = self.accounts().balance(player_id)
        return balance

    def _welcome(self, player_id: str) -> None:
        with self._welcome_lock:
            if player_id in self._welcomed:
                return
            self._welcomed.add(player_id)
        self.grant(player_id, self.config.welcome_chips)

    def write_private_key(self, path: Path) -> Path:
        """Write this run's private key (PEM, mode 0600), for ``scripts/mint_token.py --key``."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(self.private_key_pem)
        return path


def _serial_moto_server(base: type) -> type:
    """``ThreadedMotoServer`` handling one request at a time.

    DynamoDB applies a conditional write atomically; moto checks the condition and then stores
    the item without a lock, so two threads of its threaded server could both pass
    ``version = :read``. The service's optimistic lock depends on that atomicity: requests are
    serialised (connections are still accepted concurrently).

    After each request the DynamoDB model instances moto tracked are forgotten
    (:func:`forget_tracked_models`): moto keeps every one it ever created, for its dashboard."""

    class SerialMotoServer(base):  # type: ignore[misc]
        def _server_entry(self) -> None:
            from moto.moto_server.werkzeug_app import (
                DomainDispatcherApplication,
                MotoRequestHandler,
                create_backend_app,
            )
            from werkzeug.serving import make_server

            app = DomainDispatcherApplication(create_backend_app)
            lock = threading.Lock()

            def serial(environ: dict[str, Any], start_response: Any) -> list[bytes]:
                with lock:
                    try:
                        result = app(environ, start_response)
                        try:
                            return [b"".join(result)]
                        finally:
                            close = getattr(result, "close", None)
                            if close is not None:
                                close()
                    finally:
                        forget_tracked_models()

            self._server = make_server(self._ip_address, self._port, serial, True,
                                       request_handler=MotoRequestHandler)
            self._server_ready_event.set()
            self._server.serve_forever()

    return SerialMotoServer


TRACKED_SERVICES = ("dynamodb",)
"""The moto services the stack uses, whose model instances :func:`forget_tracked_models`
drops."""


def forget_tracked_models(services: tuple[str, ...] = TRACKED_SERVICES) -> int:
    """Drop what moto's instance tracker holds for *services*; returns how many it held.

    Every moto model (``BaseModel``: a DynamoDB ``Item``, ``Table``, index...) appends itself on
    creation to its class's ``instances_tracked`` list, for the server's dashboard
    (``/moto-api/data.json``), and only a reset of moto empties it. Every ``PutItem`` or
    ``UpdateItem`` creates an ``Item``, and every ``TransactWriteItems`` deep-copies each table
    it touches (its rollback copy), so that list grew by thousands of dead items per thousand
    requests and the stack's memory with it (issue 10, item 15). The stack serves no
    dashboard; the items DynamoDB holds stay in the tables."""
    from moto.core.model_instances import model_data

    held = 0
    for service in services:
        for model in list(model_data.get(service, {}).values()):
            tracked = getattr(model, "instances_tracked", None)
            if tracked:
                held += len(tracked)
                tracked.clear()
    return held


def _selection_key(expression: str | None) -> str:
    prefix = "$request.body."
    if expression and expression.startswith(prefix):
        return expression[len(prefix):]
    return "action"


def _sweep_event() -> dict[str, Any]:
    """The EventBridge scheduled event the sweep function receives."""
    now = time.gmtime()
    return {"version": "0", "id": str(uuid.uuid4()), "detail-type": "Scheduled Event",
            "source": "aws.events", "account": ACCOUNT_ID,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", now), "region": REGION,
            "resources": [f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/naiko-local-sweep"],
            "detail": {}}


# -- a WebSocket player driven by the bots' decision code -------------------------------------

def frame_for(command: Any, table_id: str) -> dict[str, Any]:
    """The protocol frame (without ``request_id``) for an engine command a bot returned.

    >>> from naiko.commands import RaiseTo, UsePower
    >>> frame_for(RaiseTo(seat_index=1, amount=20), "t1")
    {'action': 'act', 'table_id': 't1', 'move': 'raise_to', 'amount': 20}
    >>> frame_for(UsePower(seat_index=1, power="seal_shield"), "t1")
    {'action': 'shield', 'table_id': 't1'}
    """
    kind = command.kind
    if kind in ("fold", "check", "call", "all_in"):
        return {"action": "act", "table_id": table_id, "move": kind}
    if kind in ("bet", "raise_to"):
        return {"action": "act", "table_id": table_id, "move": kind, "amount": command.amount}
    if kind == "pass_window":
        return {"action": "pass_window", "table_id": table_id}
    if kind == "use_power":
        if command.power == "seal_shield":
            return {"action": "shield", "table_id": table_id}
        frame = {"action": "use_power", "table_id": table_id, "power": command.power}
        if command.target_seat is not None:
            frame["target_seat"] = command.target_seat
        if command.card_index is not None:
            frame["card_index"] = command.card_index
        return frame
    raise ValueError(f"no frame for a {kind} command")


def my_turn(view: Mapping[str, Any] | None) -> bool:
    """Whether *view* prompts its own seat."""
    prompt = (view or {}).get("prompt")
    return isinstance(prompt, dict) and prompt.get("seat_index") == (view or {}).get(
        "seat_index") and view.get("seat_index") is not None  # type: ignore[union-attr]


def window_aimed_at_me(view: Mapping[str, Any] | None) -> bool:
    """Whether *view* shows an open Short Anchor window aimed at its own seat."""
    if not view or view.get("seat_index") is None or not view.get("hand"):
        return False
    powers = view["hand"].get("powers") or {}
    return any(w.get("target") == view["seat_index"] for w in powers.get("windows", []))


BUSY_RETRIES = 5
"""How often a bot sends a request answered ``busy`` again (protocol.md: retry)."""


class BotClient:
    """A seat played over a real WebSocket connection with :func:`naiko.bots.decide` /
    :func:`naiko.bots.respond` (the seat's own view only), after a short think.

    This is how the run command fills seats until the service seats its own BOT players
    (``create_table`` with ``bots: true``); the bots connect with their own tokens like anyone.
    Idle, a bot sends ``heartbeat``; before API Gateway's 2 hours it reconnects and resumes
    its seat from a snapshot (:mod:`naiko_client.keepalive`, *keepalive*).
    """

    def __init__(self, url: str, token: str, player_id: str, table_id: str, *, buy_in: int,
                 seed: int | None = None, think: tuple[float, float] = (0.4, 1.2),
                 keepalive: KeepAlive | None = None):
        self.url = url
        self.token = token
        self.player_id = player_id
        self.table_id = table_id
        self.buy_in = buy_in
        self.rng = random.Random(seed)
        self.think = think
        self.view: dict[str, Any] | None = None
        self.version = 0
        self.hands_seen = 0
        self.errors: list[dict[str, Any]] = []
        self._ws: Any = None
        self._ids = 0
        self._pending: dict[str, dict[str, Any]] = {}
        """Frames sent recently, by ``request_id`` (to send again when answered ``busy``)."""
        self._busy_tries: dict[str, int] = {}
        self._acting_on: int | None = None
        self._joined_at: int | None = None
        self._reloaded_at: int | None = None
        self.keepalive = keepalive or KeepAlive()
        self.last_sent = time.monotonic()
        self.connections: list[tuple[float, float | None, int | None, str]] = []
        """Each connection: ``(opened, closed, close code, reason)`` (monotonic seconds;
        the code and reason of whichever side closed first)."""

    def _request_id(self) -> str:
        self._ids += 1
        return f"{self.player_id}-{self._ids}-{secrets.token_hex(3)}"

    async def send(self, frame: dict[str, Any], request_id: str | None = None) -> str:
        request_id = request_id or self._request_id()
        self._pending[request_id] = frame
        while len(self._pending) > 32:  # only the recent ones can still be answered busy
            self._pending.pop(next(iter(self._pending)))
        await self._ws.send(json.dumps({**frame, "request_id": request_id}))
        self.last_sent = time.monotonic()
        return request_id

    async def _retry_busy(self, request_id: str) -> None:
        """``busy`` (protocol.md: the table's write lost its retries to other writers;
        nothing was applied): send the same request again, with the same ``request_id`` so
        that it can never apply twice, after a growing random pause. A join lost to
        ``busy`` and never retried left the seat empty for good (issue 21: an e2e table
        that waited forever for its third player)."""
        frame = self._pending.get(request_id)
        tries = self._busy_tries.get(request_id, 0) + 1
        if frame is None or tries > BUSY_RETRIES:
            return
        self._busy_tries[request_id] = tries
        await asyncio.sleep(self.rng.uniform(0.05, 0.25) * tries)
        try:
            await self.send(frame, request_id)
        except Exception as error:  # the connection went: the reconnect resumes the seat
            log.debug("bot %s: retry of %s: %s", self.player_id, request_id, error)

    async def run(self, stop: asyncio.Event) -> None:
        """Play until *stop* is set, reconnecting (and re-subscribing) when dropped."""
        from websockets.asyncio.client import connect

        delay = 0.5
        while not stop.is_set():
            refreshing: list[bool] = []  # the keepalive closes the connection to reconnect
            try:
                async with connect(f"{self.url}/?token={self.token}", max_size=2**21,
                                   compression=None, open_timeout=10) as ws:
                    self._ws = ws
                    delay = 0.5
                    self.connections.append((time.monotonic(), None, None, ""))
                    try:
                        await self.send({"action": "snapshot", "table_id": self.table_id})
                        receiver = asyncio.create_task(self._receive(ws))
                        stopper = asyncio.create_task(stop.wait())
                        keeper = asyncio.create_task(keep_alive(
                            ws, self.keepalive, lambda: self.last_sent, rng=self.rng,
                            on_refresh=functools.partial(refreshing.append, True)))
                        await asyncio.wait({receiver, stopper, keeper},
                                           return_when=asyncio.FIRST_COMPLETED)
                        for task in (receiver, stopper, keeper):
                            task.cancel()
                    finally:
                        self._closed(ws)
            except Exception as error:  # refused, dropped, timed out: try again
                log.debug("bot %s: %s", self.player_id, error)
            if not stop.is_set() and not refreshing:  # a refresh reconnects at once
                await asyncio.sleep(delay)
                delay = min(delay * 2, 8.0)

    def _closed(self, ws: Any) -> None:
        opened = self.connections[-1][0]
        protocol = getattr(ws, "protocol", None)
        sent = getattr(protocol, "close_sent", None)
        received = getattr(protocol, "close_rcvd", None)
        first = sent if sent is not None and (
            received is None or getattr(protocol, "close_rcvd_then_sent", None) is False) \
            else received
        self.connections[-1] = (opened, time.monotonic(),
                                None if first is None else int(first.code),
                                "" if first is None else str(first.reason))

    async def _receive(self, ws: Any) -> None:
        async for raw in ws:
            await self.handle(json.loads(raw))

    async def handle(self, message: dict[str, Any]) -> None:
        """React to one server message (the load script extends this to time replies)."""
        kind = message.get("type")
        if kind == "error":
            self.errors.append(message)
            if message.get("code") == "busy" and message.get("request_id"):
                asyncio.get_running_loop().create_task(
                    self._retry_busy(str(message["request_id"])))
            return
        view = message.get("view")
        version = message.get("version")
        if view is None or not isinstance(version, int) or version < self.version:
            return
        self.version, self.view = version, view
        for event in message.get("events") or []:
            if event.get("kind") == "hand_ended":
                self.hands_seen += 1
        await self._react()

    async def _react(self) -> None:
        view = self.view
        assert view is not None
        if view.get("seat_index") is None:
            # join once per sitting: updates that raced the join's write must not re-send it
            if self._joined_at is None:
                self._joined_at = self.version
                await self.send({"action": "join_table", "table_id": self.table_id,
                                 "buy_in": self.buy_in})
            return
        self._joined_at = None
        seat = view["seats"][view["seat_index"]]
        if seat and seat["stack"] == 0 and kind_of_hand(view) != "running" and (
                self._reloaded_at is None or self._reloaded_at < view.get("hand_count", 0)):
            self._reloaded_at = view.get("hand_count", 0)
            await self.send({"action": "add_chips", "table_id": self.table_id,
                             "amount": self.buy_in})
            return
        if (my_turn(view) or window_aimed_at_me(view)) and self._acting_on != self.version:
            self._acting_on = self.version
            asyncio.get_running_loop().create_task(self._act_later(self.version))

    async def _act_later(self, version: int) -> None:
        from naiko import bots

        await asyncio.sleep(self.rng.uniform(*self.think))
        if self.version != version or self.view is None:
            return  # the table moved on; the newer view decides
        view = self.view
        command = bots.decide(view, self.rng) if my_turn(view) else None
        if command is None and window_aimed_at_me(view):
            command = bots.respond(view, self.rng)
        if command is not None:
            await self.send(frame_for(command, self.table_id))


class TimedBotClient(BotClient):
    """A :class:`BotClient` that times each of its actions, from the frame sent to its answer
    (an error, an ack, or the update carrying the request id): the load and flood benchmarks
    (``scripts/load.py``, ``scripts/bench_flood.py``) subclass it and keep the figures in
    :meth:`timed`. A request sent again after ``busy`` keeps its first send time."""

    TIMED_ACTIONS = frozenset({"act", "use_power", "shield", "pass_window"})

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._sent_at: dict[str, float] = {}

    async def send(self, frame: dict[str, Any], request_id: str | None = None) -> str:
        request_id = await super().send(frame, request_id)
        if frame.get("action") in self.TIMED_ACTIONS:
            self._sent_at.setdefault(request_id, time.perf_counter())
        return request_id

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in ("ack", "update", "error") and not (
                kind == "error" and message.get("code") == "busy"):
            sent = self._sent_at.pop(str(message.get("request_id")), None)
            if sent is not None:
                self.timed(sent, time.perf_counter() - sent, message)
        await super().handle(message)

    def timed(self, sent: float, latency: float, answer: dict[str, Any]) -> None:
        """One action answered: sent at *sent* (``perf_counter``), after *latency* s."""


def kind_of_hand(view: Mapping[str, Any]) -> str:
    """``"running"`` while a hand is being played, else ``"between"``."""
    hand = view.get("hand")
    return "running" if hand and not hand.get("complete") else "between"


class BotRunner:
    """Runs :class:`BotClient` players on an event loop of their own (a thread)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.stop_event: asyncio.Event | None = None
        self.bots: list[BotClient] = []
        self._tasks: list[Any] = []
        self._thread = threading.Thread(target=self.loop.run_forever, name="naiko-local-bots",
                                        daemon=True)
        self._thread.start()

    def add(self, bot: BotClient) -> None:
        async def start() -> None:
            if self.stop_event is None:
                self.stop_event = asyncio.Event()
            self._tasks.append(asyncio.create_task(bot.run(self.stop_event)))

        self.bots.append(bot)
        asyncio.run_coroutine_threadsafe(start(), self.loop).result(timeout=10)

    def run(self, coroutine: Any, timeout: float = 30) -> Any:
        """Run *coroutine* on the bots' loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=timeout)

    def stop(self) -> None:
        async def finish() -> None:
            if self.stop_event is not None:
                self.stop_event.set()
            if self._tasks:
                await asyncio.wait(self._tasks, timeout=5)
            rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in rest:  # a bot's pending think
                task.cancel()
            await asyncio.gather(*rest, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(finish(), self.loop).result(timeout=10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)


async def request(url: str, token: str, frame: dict[str, Any], *,
                  expect: tuple[str, ...] = ("ack", "update", "error", "snapshot", "tables"),
                  timeout: float = 10.0) -> dict[str, Any]:
    """Open a connection, send one request and return its reply (then close): the message
    of an *expect* type carrying its ``request_id`` (an applied request is answered by an
    ``ack``, or by the ``update`` carrying its request id when one goes to this
    connection)."""
    from websockets.asyncio.client import connect

    request_id = f"req-{secrets.token_hex(6)}"
    async with connect(f"{url}/?token={token}", compression=None) as ws:
        await ws.send(json.dumps({**frame, "request_id": request_id}))
        async with asyncio.timeout(timeout):
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") in expect and message.get("request_id") == request_id:
                    return dict(message)
    raise ConnectionError("the connection closed before the reply")


# -- the run command -------------------------------------------------------------------------

@dataclass
class DemoTable:
    table_id: str
    name: str
    variant: str
    seats: int
    small_blind: int
    big_blind: int
    min_buy_in: int
    max_buy_in: int


def open_demo_table(stack: LocalStack, *, variant: str, seats: int, small_blind: int,
                    big_blind: int, decision_seconds: int | None, bots: bool,
                    host: str = "house", time_bank: bool = False) -> DemoTable:
    """Create the demo table through the WebSocket API, as its host *host* would (with the
    room's time bank, R8.7, when *time_bank*)."""
    name = f"Demo {variant} {seats}-max"
    frame: dict[str, Any] = {
        "action": "create_table", "name": name, "variant": variant, "seat_count": seats,
        "small_blind": small_blind, "big_blind": big_blind,
        "min_buy_in": 20 * big_blind, "max_buy_in": 200 * big_blind}
    if decision_seconds is not None:
        frame["decision_seconds"] = decision_seconds
    if bots:
        frame["bots"] = True
    if time_bank:
        frame["time_bank"] = True
    reply = asyncio.run(request(stack.url, stack.token(host), frame))
    if reply.get("type") != "ack":
        raise RuntimeError(f"create_table failed: {reply}")
    return DemoTable(reply["table_id"], name, variant, seats, small_blind, big_blind,
                     20 * big_blind, 200 * big_blind)


def open_demo_tournaments(stack: LocalStack, creator: str,
                          scheduled_in_s: int | None = None) -> list[tuple[str, str]]:
    """List a 6-max turbo Sit & Go (entry 100) and a Spin (entry 50), BOTs allowed, created by
    *creator* (who may fill free seats with BOTs: ``tournament_add_bots``), and, with
    *scheduled_in_s*, a scheduled turbo MTT (entry 100, listed by ``ops``) starting that many
    seconds from now. Returns ``(tournament_id, name)`` pairs."""
    from dataclasses import replace

    from naiko.tournaments.structures import from_preset
    from naiko_service import bootstrap
    from naiko_service.usecases import tournaments

    deps = bootstrap.get_service().deps
    listed = []
    for tournament_id, name, preset, entry in (
            ("demo-sng", "Demo Sit & Go 6-max turbo", "sng_6max_turbo", 100),
            ("demo-spin", "Demo Spin", "spin_3max_hyper", 50)):
        terms = replace(from_preset(preset, entry), bots_allowed=True)
        tournaments.create(deps, tournament_id, name, terms, creator)
        listed.append((tournament_id, name))
    if scheduled_in_s is not None:  # a scheduled tournament, listed by ops (R9.2, R9.11)
        name = "Demo Turbo MTT (scheduled)"
        starts = deps.clock.now_ms() + scheduled_in_s * 1000
        tournaments.create(deps, "demo-mtt", name, from_preset("mtt_turbo", 100), "ops",
                           starts_ms=starts)
        listed.append(("demo-mtt", f"{name}, starts in {scheduled_in_s // 60} minutes"))
    return listed


def seat_server_bots(stack: LocalStack, table_id: str, count: int, *, buy_in: int) -> None:
    """Seat *count* server-side BOT players (R8.4) through the service itself: they buy in from
    the house's bot account (granted here, on the ledger) and act through the timer mechanism,
    deciding from their own view."""
    from naiko_service import bootstrap
    from naiko_service.auth import bot_id
    from naiko_service.usecases.private import HOUSE_BOTS

    service = bootstrap.get_service()
    stack.grant(HOUSE_BOTS, 100 * buy_in * count)
    for i in range(count):
        service.add_bot(table_id, bot_id(i + 1), buy_in)


def _parse_blinds(text: str) -> tuple[int, int]:
    small, _, big = text.partition("/")
    try:
        values = int(small), int(big)
    except ValueError:
        raise argparse.ArgumentTypeError("blinds are SMALL/BIG, e.g. 1/2") from None
    if not 0 < values[0] <= values[1]:
        raise argparse.ArgumentTypeError("0 < small blind <= big blind")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="naiko-local",
        description="Run the Naiko backend locally: moto (DynamoDB), a local API Gateway "
                    "(WebSocket + Management API), local timers, the real Lambda handlers, "
                    "and a demo table with bots.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default 127.0.0.1; keep it local)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"WebSocket port (default {DEFAULT_PORT}; 0 = any free port)")
    parser.add_argument("--management-port", type=int,
                        help="Management API port (default: --port + 1, or free with --port 0)")
    parser.add_argument("--web-port", type=int,
                        help="the browser client's port (default: --port + 2, or free with "
                             "--port 0; -1: no web client)")
    parser.add_argument("--moto-port", type=int, default=0,
                        help="moto (DynamoDB) port (default: any free port)")
    parser.add_argument("--variant", choices=("NLHE", "PLO", "NAIKO"), default="NLHE",
                        help="the demo table's variant (default NLHE)")
    parser.add_argument("--seats", type=int, default=6, choices=range(2, 11),
                        metavar="{2..10}", help="the demo table's seats (default 6)")
    parser.add_argument("--bots", type=int, default=3, metavar="N",
                        help="bots seated at the demo table (default 3)")
    parser.add_argument("--client-bots", action="store_true",
                        help="instead of the service's BOT seats (R8.4: server-side, timer "
                             "driven), start bots as WebSocket clients (ordinary players)")
    parser.add_argument("--blinds", type=_parse_blinds, default=(1, 2), metavar="SB/BB",
                        help="the demo table's blinds (default 1/2)")
    parser.add_argument("--decision-seconds", type=int, default=None,
                        help="the demo table's decision clock (5-120; default 20)")
    parser.add_argument("--pause-seconds", type=int, default=None,
                        help="pause between hands (DEFAULT_PAUSE_SECONDS; default 3)")
    parser.add_argument("--player", default="you", help="your player id (default: you)")
    parser.add_argument("--no-table", action="store_true", help="do not open a demo table")
    parser.add_argument("--sweep-seconds", type=float, default=None,
                        help="sweep period (default: template.yaml's, 60)")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="where the key and the Lambda log go, kept after a stop (default: "
                             "a temporary folder, removed when the stack stops)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="log gateway and timer activity to the console")
    args = parser.parse_args(argv)
    if not 0 <= args.bots < args.seats:
        parser.error(f"--bots must be between 0 and {args.seats - 1} (leave a seat for you)")
    if args.decision_seconds is not None and not 5 <= args.decision_seconds <= 120:
        parser.error("--decision-seconds must be between 5 and 120")

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)
    logging.getLogger("websockets").setLevel(logging.WARNING)
    # Without --state-dir: a temporary folder that goes with the stack, even after a failed
    # start (the key and the log of a stack whose state was all in memory are of no later use).
    created = args.state_dir is None
    state_dir = Path(tempfile.mkdtemp(prefix="naiko-local-")) if created else args.state_dir
    try:
        return _run(args, state_dir)
    finally:
        if created:
            shutil.rmtree(state_dir, ignore_errors=True)


def port_options(host: str, port: int, management_port: int, web_port: int,
                 moto_port: int) -> list[tuple[str, str, int]]:
    """``(what, the option that moves it, port)`` for each fixed port the stack will listen on
    (0, any free port, and -1, none, are left out)."""
    ports = [("WebSocket API", "--port", port),
             ("Management API", "--management-port", management_port),
             ("web client", "--web-port", web_port), ("DynamoDB (moto)", "--moto-port", moto_port)]
    return [(what, option, number) for what, option, number in ports if number > 0]


def busy_port(host: str, ports: list[tuple[str, str, int]]) -> tuple[str, str, int] | None:
    """The first of *ports* that another process already listens on at *host*, if any."""
    for what, option, number in ports:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the servers do
            try:
                probe.bind((host, number))
            except OSError:
                return what, option, number
    return None


def busy_port_message(host: str, busy: tuple[str, str, int]) -> str:
    """What to say when *busy* is taken: the port, and the option that moves it.

    >>> message = busy_port_message("127.0.0.1", ("web client", "--web-port", 8767))
    >>> "the web client port 8767 on 127.0.0.1 is in use" in message, message[-39:]
    (True, 'with --web-port PORT (0: any free port)')
    """
    what, option, number = busy
    return (f"naiko-local: cannot start: the {what} port {number} on {host} is in use "
            f"(another naiko-local?); choose another with {option} PORT (0: any free port)")


def _run(args: argparse.Namespace, state_dir: Path) -> int:
    state_dir.mkdir(parents=True, exist_ok=True)
    management_port = (args.management_port if args.management_port is not None
                       else args.port + 1 if args.port else 0)
    web_port = (args.web_port if args.web_port is not None
                else args.port + 2 if args.port else 0)
    ports = port_options(args.host, args.port, management_port, web_port, args.moto_port)
    busy = busy_port(args.host, ports)
    if busy is not None:
        print(busy_port_message(args.host, busy), file=sys.stderr)
        return 1
    stack = LocalStack(StackConfig(
        host=args.host, port=args.port, management_port=management_port,
        web_port=None if web_port < 0 else web_port,
        moto_port=args.moto_port, sweep_seconds=args.sweep_seconds,
        pause_seconds=args.pause_seconds, lambda_log=state_dir / "lambda.log"))
    print("Starting the Naiko local stack...", flush=True)
    stopping = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stopping.set()

    # Both stop the stack cleanly, whatever the parent left them at: a shell started with
    # nohup, or a CI runner, hands its children SIGINT ignored (then Ctrl-C would do nothing).
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        stack.start()
    except OSError as error:
        busy = busy_port(args.host, ports)  # taken between the check and the start
        with contextlib.suppress(Exception):
            stack.stop()
        print(busy_port_message(args.host, busy) if busy is not None else
              f"naiko-local: cannot start: {error} (a port option: "
              f"{', '.join(option for _, option, _ in ports) or '--port'})", file=sys.stderr)
        return 1
    runner: BotRunner | None = None
    try:
        key_path = stack.write_private_key(state_dir / "auth.pem")
        table = None
        if not args.no_table and not stopping.is_set():
            small, big = args.blinds
            table = open_demo_table(stack, variant=args.variant, seats=args.seats,
                                    small_blind=small, big_blind=big,
                                    decision_seconds=args.decision_seconds,
                                    bots=not args.client_bots)
            if args.bots and not args.client_bots:
                seat_server_bots(stack, table.table_id, args.bots, buy_in=100 * big)
            if args.bots and args.client_bots:
                runner = BotRunner()
                for i in range(args.bots):
                    # ordinary players with tokens: outside the BOT namespace (R8.4)
                    player = f"robot-{i + 1}"
                    runner.add(BotClient(stack.url, stack.token(player), player, table.table_id,
                                         buy_in=100 * big))
        listed = [] if args.no_table else open_demo_tournaments(stack, args.player,
                                                                scheduled_in_s=3600)
        token = stack.token(args.player)
        print(_banner(stack, table, args, token, key_path, listed), flush=True)
        while not stopping.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        print("\nStopping...", flush=True)
        if runner is not None:
            runner.stop()
        stack.stop()
    return 0


def _python() -> str:
    """This interpreter, as an absolute path: the banner's commands work from any folder."""
    return str(Path(sys.executable).absolute())


def _client_command() -> str:
    """How to start the terminal client from any folder: this venv's ``naiko-client`` (an
    absolute path), else the one on ``PATH``, else the module."""
    script = Path(sys.executable).absolute().parent / "naiko-client"
    if script.exists():
        return str(script)
    if shutil.which("naiko-client"):
        return "naiko-client"
    return f"{_python()} -m naiko_client.app"


def _mint_command(key_path: Path, stage: str) -> str:
    """The command that mints a token for another player, from any folder."""
    return (f"{_python()} {tpl.ROOT / 'scripts' / 'mint_token.py'} --key "
            f"{key_path.absolute()} --stage {stage} --player alice")


def _banner(stack: LocalStack, table: DemoTable | None, args: argparse.Namespace, token: str,
            key_path: Path, listed: list[tuple[str, str]] | None = None) -> str:
    names = ", ".join(stack.table_names.values())
    lines = [
        "",
        "Naiko is running locally (the real Lambda handlers; AWS is simulated).",
        f"  WebSocket API    {stack.url}   (API Gateway stand-in: connect with ?token=...)",
        f"  Management API   {stack.gateway.management_url}",
        f"  DynamoDB (moto)  {stack.moto_endpoint}   tables: {names}",
        f"  Lambda logs      {stack.config.lambda_log}",
    ]
    if table is not None:
        kind = "WebSocket client bot" if args.client_bots else "BOT seat"
        bots = f"{args.bots} {kind}{'s' * (args.bots != 1)}"
        lines += [
            "",
            f"Demo table {table.table_id}: {table.name}, blinds {table.small_blind}/"
            f"{table.big_blind}, buy-in {table.min_buy_in}-{table.max_buy_in}, {bots}.",
        ]
    if listed:
        lines += ["", "Tournaments registering (you may fill their free seats with BOTs):"]
        lines += [f"  {tournament_id}: {name}" for tournament_id, name in listed]
    lines += [
        "",
        f"Your token (player '{args.player}', valid 12 h; {stack.config.welcome_chips:,} chips "
        "on first connect):",
        f"  {token}",
        "",
        "Play from a terminal:",
        f"  {_client_command()} {stack.url} {token}",
        "",
    ]
    if stack.web_url is not None:
        lines += [
            "Play in a browser (local mode hands the page a token for the name in the URL):",
            f"  {stack.web_url}?player={args.player}",
            "",
        ]
    lines += [
        "Tokens for more players:",
        f"  {_mint_command(key_path, stack.config.stage)}",
        "",
        "Ctrl-C stops everything; all state is in memory (the key and the log go too, unless "
        "--state-dir named their folder).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
