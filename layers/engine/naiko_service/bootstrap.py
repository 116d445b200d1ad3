""":mod:`naiko_service.bootstrap` wires one :class:`~naiko_service.usecases.TableService` per
Lambda container from environment variables: the one place where real or fake adapters are
chosen.

Nothing here builds a client at import time. :func:`get_service` builds the AWS adapters on the
first call (importing botocore, the use cases, the engine and the protocol only then) and keeps
them for the life of the container; tests and the local stack hand in a service built from
other adapters with :func:`set_service`. Importing this module stays cheap, and so does
importing a handler (see "Cold start" in ``docs/deploy.md``).

Environment (set by ``template.yaml``):

``TABLES_TABLE``, ``ACCOUNTS_TABLE``, ``LEDGER_TABLE``, ``CONNECTIONS_TABLE``
    DynamoDB table names.
``TOURNAMENTS_TABLE``
    Tournaments (R9); optional: a deployment without it refuses tournament requests.
``HISTORY_TABLE``
    The hands' records (R10.1, ``HandHistoryTable``); optional: a deployment without it stores
    no hands and refuses the history requests (``no_histories``).
``WEBSOCKET_ENDPOINT``
    The API Gateway Management API endpoint, ``https://{apiId}.execute-api.{region}
    .amazonaws.com/{stage}``. When unset, WebSocket handlers derive it from their event
    (:func:`endpoint_from_event`).
``TIMER_QUEUE_URL``, ``TIMER_TRANSPORT``
    The timer delay queue (``TimerQueue``) and which transport takes the wake-ups up to 15
    minutes away: ``queue`` (the default when the queue is set: one SQS message each, see
    :class:`~naiko_service.aws.scheduler.DelayQueueScheduler`) or ``express`` (the EXPRESS
    machine up to 45 s, as before; the ``TimerTransport`` parameter).
``TIMER_STATE_MACHINE_ARN``, ``TIMER_LONG_STATE_MACHINE_ARN``
    The timer state machines (``template.yaml``): EXPRESS for wake-ups up to 45 s away,
    STANDARD for longer ones (see :mod:`naiko_service.aws.scheduler`); with the queue, only the
    STANDARD one is used (waits over 15 minutes). With neither a queue nor the first machine,
    timers are only logged and the sweep (every minute) fires them late, see
    :class:`SweepOnlyScheduler`; without the second, every wake-up goes to the first (or the
    queue, which sends a long one on until its time).
``STATE_KEY`` or ``STATE_KEY_SECRET_ARN``
    The keys that seal table state (:mod:`naiko_service.sealing`): base64 of 32 bytes or a
    keyring JSON (local/dev), or a Secrets Manager secret read on the first use and again every
    :data:`~naiko_service.sealing.REFRESH_SECONDS` (see :func:`keyring_from_secret`). The
    ``$connect`` function has neither: it only binds connections (:func:`get_connector`).
``AWS_ENDPOINT_URL``
    Honoured by botocore itself (moto server, LocalStack).
``POWERTOOLS_METRICS_NAMESPACE``
    Metrics namespace, ``Naiko`` by default.
``DEFAULT_DECISION_SECONDS``, ``DEFAULT_PAUSE_SECONDS``, ``SEAT_OFFER_SECONDS``
    Table defaults, parsed into :class:`Config` (see the warning there).
``RATE_LIMIT_CONNECTION_PER_SECOND``, ``RATE_LIMIT_CONNECTION_BURST``,
``RATE_LIMIT_PLAYER_PER_SECOND``, ``RATE_LIMIT_PLAYER_BURST``, ``RATE_LIMIT_CLOSE_AFTER``
    The game frames' rate limits (:class:`naiko_service.ratelimit.RateLimits`; its defaults
    when unset).
``QUICK_SEAT_STAKES``
    The stakes quick seat serves, ``VARIANT:SMALL/BIG`` comma-separated (R7.10;
    :data:`naiko_service.limits.DEFAULT_QUICK_SEAT_STAKES` when unset).
``WATCHERS_TABLE``, ``WATCHERS_QUEUE_URL``
    Spectators (issue 23 item 3): their items (``WatchersTable``,
    :class:`~naiko_service.aws.watchers.DynamoWatchers`) and the FIFO queue their updates go
    to (``WatchersQueue``, the ``watchers`` function's). Without the table a deployment takes
    no spectators (``too_many_spectators``: items in one container's memory would be wrong);
    without the queue their updates are posted by the function that wrote the table, after
    the players' own.
``DUE_INDEX_SHARDS``, ``DUE_INDEX_PREVIOUS_SHARDS``, ``SWEEP_WORKERS``
    Shards of the tables' ``due-index`` (and the count before a change, still read), and how
    many tables the sweep wakes at once (``docs/storage.md``, ``docs/timers.md``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import gc
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

# No pydantic plugins (the template sets this too; here for containers and tools that do not):
# without it pydantic's first model imports importlib.metadata and reads every installed
# distribution's entry points, ~25 ms of a new container's first frame (docs/deploy.md,
# "7. Cold start"). Set before anything imports pydantic; a value already set wins.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from aws_lambda_powertools import Logger, Metrics  # noqa: E402
from aws_lambda_powertools.metrics import MetricUnit  # noqa: E402

from .limits import DEFAULT_QUICK_SEAT_STAKES, Stakes, parse_stakes_list  # noqa: E402
from .ratelimit import RateLimits  # noqa: E402

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

    from .ports import Connections, Devices, Notifier, Scheduler
    from .sealing import Keyring, Sealer
    from .usecases import TableService

Handler = TypeVar("Handler", bound=Callable[..., Any])

def log_json(record: Any) -> str:
    """Powertools' JSON serializer, but never failing on content: text that UTF-8 cannot encode
    (a lone surrogate) makes the whole line ASCII-escaped instead of a logging error."""
    text = json.dumps(record, default=str, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, default=str, separators=(",", ":"))
    return text


logger = Logger(json_serializer=log_json)
"""The functions' one Powertools logger (service name from ``POWERTOOLS_SERVICE_NAME``); every
handler logs through it (:func:`entry_point` injects the Lambda context)."""


def apply_log_level(log: Logger, environ: Mapping[str, str] = os.environ) -> None:
    """Set the level the template's ``LogLevel`` asks for (``POWERTOOLS_LOG_LEVEL``) on *log*.

    The functions log in Lambda's JSON format (template ``LoggingConfig``), so Lambda sets
    ``AWS_LAMBDA_LOG_LEVEL`` to its application filter, and Powertools prefers that variable
    to ``POWERTOOLS_LOG_LEVEL``. The filter is never above INFO (the metrics' EMF lines carry
    no level and Lambda files them INFO: template ``ApplicationLogLevels``), so without this a
    ``LogLevel`` of WARNING or ERROR would still log every INFO line."""
    level = (environ.get("POWERTOOLS_LOG_LEVEL") or "").upper()
    if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        logging.getLogger(log.name).setLevel(level)
        log.initial_log_level = level  # what Powertools' sampling goes back to


apply_log_level(logger)

METRICS_NAMESPACE = os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "Naiko"
metrics = Metrics(namespace=METRICS_NAMESPACE)
"""The container's metrics. Handlers flush them with ``@metrics.log_metrics``."""

STATE_KEY_INFO = b"naiko/table-state-key/v1"
"""HKDF ``info`` used to derive the AES key from a generated secret string."""


class ConfigurationError(RuntimeError):
    """A required environment variable is missing or malformed."""


@dataclass(frozen=True, slots=True)
class Config:
    """What the environment says; parsed once, before any client exists."""

    tables_table: str
    accounts_table: str
    ledger_table: str
    connections_table: str
    websocket_endpoint: str | None = None
    timer_queue_url: str | None = None
    """``TimerQueue``: the wake-ups up to 15 minutes away, when :attr:`timer_transport` is
    ``queue``."""
    timer_transport: str = "queue"
    """``queue`` or ``express``: what takes the short waits (``TimerTransport``)."""
    timer_state_machine_arn: str | None = None
    """The EXPRESS timer machine (short waits)."""
    timer_long_state_machine_arn: str | None = None
    """The STANDARD timer machine (waits longer than 45 s)."""
    state_key: str | None = None
    """Base64 of the 32-byte table-state key (local/dev only)."""
    state_key_secret_arn: str | None = None
    default_decision_seconds: int = 20
    """The decision clock of a table whose ``create_table`` does not choose one (R8.1)."""
    default_pause_seconds: int = 3
    """The pause between hands of new tables."""
    seat_offer_seconds: int = 30
    """R7.10: how long a freed seat is held for the first of a waiting list."""
    tournaments_table: str | None = None
    """``TournamentsTable``: tournaments (R9); without it the deployment runs none."""
    history_table: str | None = None
    """``HandHistoryTable``: every finished or cancelled hand (R10.1); without it none is
    stored."""
    history_retention_days: int = 0
    """Days a stored hand is kept before it expires (``HISTORY_RETENTION_DAYS``, the template's
    ``HandRetentionDays``, R10.1); 0: kept forever (no ``expires_at``)."""
    rate_limits: RateLimits = field(default_factory=lambda: RateLimits())
    """Frames per connection and per player (:mod:`naiko_service.ratelimit`)."""
    due_index_shards: int = 16
    """Shards a table's ``due-index`` entry is written to (``aws.dynamodb.DUE_SHARDS``)."""
    due_index_previous_shards: int = 0
    """The shard count before a change, still read by the sweep (0: none)."""
    sweep_workers: int = 32
    """Tables the sweep wakes at once (threads)."""
    seal_dictionary: bool = True
    """Whether the state sealer deflates against its preset dictionary (``SEAL_DICTIONARY``:
    ``on``/``off``, the template's ``SealDictionary``; docs/deploy.md, "Upgrading")."""
    quick_seat_stakes: tuple[Stakes, ...] = DEFAULT_QUICK_SEAT_STAKES
    """R7.10: the stakes quick seat serves (``QUICK_SEAT_STAKES``: ``NLHE:1/2, PLO:5/10``)."""
    push_applications: tuple[tuple[str, str], ...] = ()
    """Issue 25: ``(platform, platform application ARN)`` of each push platform served
    (``APNS_PLATFORM_APPLICATION_ARN``, ``APNS_SANDBOX_PLATFORM_APPLICATION_ARN``,
    ``FCM_PLATFORM_APPLICATION_ARN``); none: notifications off (``NoNotifier``)."""
    watchers_table: str | None = None
    """``WatchersTable``: the spectators' items; without it no spectators are taken."""
    watchers_queue_url: str | None = None
    """``WatchersQueue``: where the spectators' updates go; without it they are posted in
    the writing function, after the players' own."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Read the configuration.

        :raises ConfigurationError: If a table name or the key source is missing.
        """
        env = os.environ if env is None else env

        def required(name: str) -> str:
            value = env.get(name, "").strip()
            if not value:
                raise ConfigurationError(f"environment variable {name} is not set")
            return value

        def optional(name: str) -> str | None:
            return env.get(name, "").strip() or None

        def seconds(name: str, default: int) -> int:
            raw = optional(name)
            try:
                value = default if raw is None else int(raw)
            except ValueError as exc:
                raise ConfigurationError(f"{name} must be a whole number of seconds") from exc
            if value <= 0:
                raise ConfigurationError(f"{name} must be positive")
            return value

        def number(name: str, default: float) -> float:
            raw = optional(name)
            try:
                value = default if raw is None else float(raw)
            except ValueError as exc:
                raise ConfigurationError(f"{name} must be a number") from exc
            if not value > 0 or value == float("inf"):
                raise ConfigurationError(f"{name} must be positive")
            return value

        base = RateLimits()
        rate_limits = RateLimits(
            connection_per_second=number("RATE_LIMIT_CONNECTION_PER_SECOND",
                                         base.connection_per_second),
            connection_burst=int(number("RATE_LIMIT_CONNECTION_BURST", base.connection_burst)),
            player_per_second=number("RATE_LIMIT_PLAYER_PER_SECOND", base.player_per_second),
            player_burst=int(number("RATE_LIMIT_PLAYER_BURST", base.player_burst)),
            close_after=int(number("RATE_LIMIT_CLOSE_AFTER", base.close_after)),
            window_ms=base.window_ms, persist_every=base.persist_every, max_keys=base.max_keys)
        def count(name: str, default: int, least: int = 0) -> int:
            raw = optional(name)
            try:
                value = default if raw is None else int(raw)
            except ValueError as exc:
                raise ConfigurationError(f"{name} must be a whole number") from exc
            if value < least:
                raise ConfigurationError(f"{name} must be at least {least}")
            return value

        try:
            stakes = parse_stakes_list(optional("QUICK_SEAT_STAKES") or "") \
                if optional("QUICK_SEAT_STAKES") else DEFAULT_QUICK_SEAT_STAKES
        except ValueError as exc:
            raise ConfigurationError(f"QUICK_SEAT_STAKES: {exc}") from exc
        seal_dictionary = optional("SEAL_DICTIONARY") or "on"
        if seal_dictionary not in ("on", "off"):
            raise ConfigurationError("SEAL_DICTIONARY must be on or off")
        transport = optional("TIMER_TRANSPORT") or "queue"
        if transport not in ("queue", "express"):
            raise ConfigurationError("TIMER_TRANSPORT must be queue or express")
        config = cls(
            tables_table=required("TABLES_TABLE"),
            accounts_table=required("ACCOUNTS_TABLE"),
            ledger_table=required("LEDGER_TABLE"),
            connections_table=required("CONNECTIONS_TABLE"),
            websocket_endpoint=optional("WEBSOCKET_ENDPOINT"),
            timer_queue_url=optional("TIMER_QUEUE_URL"),
            timer_transport=transport,
            timer_state_machine_arn=optional("TIMER_STATE_MACHINE_ARN"),
            timer_long_state_machine_arn=optional("TIMER_LONG_STATE_MACHINE_ARN"),
            state_key=optional("STATE_KEY"),
            state_key_secret_arn=optional("STATE_KEY_SECRET_ARN"),
            default_decision_seconds=seconds("DEFAULT_DECISION_SECONDS", 20),
            default_pause_seconds=seconds("DEFAULT_PAUSE_SECONDS", 3),
            seat_offer_seconds=seconds("SEAT_OFFER_SECONDS", 30),
            tournaments_table=optional("TOURNAMENTS_TABLE"),
            history_table=optional("HISTORY_TABLE"),
            history_retention_days=count("HISTORY_RETENTION_DAYS", 0),
            rate_limits=rate_limits,
            due_index_shards=count("DUE_INDEX_SHARDS", 16, least=1),
            due_index_previous_shards=count("DUE_INDEX_PREVIOUS_SHARDS", 0),
            sweep_workers=count("SWEEP_WORKERS", 32, least=1),
            quick_seat_stakes=stakes,
            push_applications=push_applications(env),
            watchers_table=optional("WATCHERS_TABLE"),
            watchers_queue_url=optional("WATCHERS_QUEUE_URL"),
            seal_dictionary=seal_dictionary == "on",
        )
        if config.state_key is None and config.state_key_secret_arn is None:
            raise ConfigurationError("set STATE_KEY (base64 of 32 bytes) or STATE_KEY_SECRET_ARN")
        return config


PUSH_APPLICATION_VARIABLES = (("apns", "APNS_PLATFORM_APPLICATION_ARN"),
                              ("apns_sandbox", "APNS_SANDBOX_PLATFORM_APPLICATION_ARN"),
                              ("fcm", "FCM_PLATFORM_APPLICATION_ARN"))
"""Issue 25: each push platform's platform application, by environment variable (the
template's ``ApnsPlatformApplicationArn`` and the others; empty: that platform is not served)."""


def push_applications(env: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """``(platform, ARN)`` of every platform application the environment names.

    :raises ConfigurationError: If a value is not an SNS platform application's ARN.
    """
    env = os.environ if env is None else env
    found = []
    for platform, name in PUSH_APPLICATION_VARIABLES:
        arn = env.get(name, "").strip()
        if not arn:
            continue
        if not arn.startswith("arn:") or ":sns:" not in arn or ":app/" not in arn:
            raise ConfigurationError(f"{name} must be an SNS platform application ARN")
        found.append((platform, arn))
    return tuple(found)


# -- the container's service -----------------------------------------------------------------

_service: TableService | None = None
_lock = threading.Lock()


def get_service(endpoint: str | None = None) -> TableService:
    """The container's service, built on first use from :meth:`Config.from_env`.

    :param endpoint: Management API endpoint to use when ``WEBSOCKET_ENDPOINT`` is unset
        (WebSocket handlers pass :func:`endpoint_from_event`); ignored once the service exists.
    :raises ConfigurationError: If the environment is incomplete.
    """
    global _service
    service = _service
    if service is None:
        with _lock:
            if _service is None:
                config = Config.from_env()
                _service = without_gc(lambda: build_service(config, endpoint=endpoint))
            service = _service
    return service


_gc_frozen = False
Built = TypeVar("Built")


def without_gc(build: Callable[[], Built]) -> Built:
    """*build()* with the cyclic garbage collector paused. Building the service imports most
    of a function's modules (botocore, pydantic, the use cases, the engine: some 130,000 new
    objects, nearly none of them garbage), and each collection the allocations trigger walks
    every object still young: about 50 ms of a new container's first frame on the dev VM
    (docs/deploy.md, "7. Cold start"). After the first build in the process, everything
    alive is moved to the permanent generation (:func:`gc.freeze`), which later collections
    skip: the modules, classes and clients live as long as the container. Later builds (a
    SnapStart restore, the tests) only pause the collector."""
    global _gc_frozen
    if not gc.isenabled():
        return build()
    gc.disable()
    try:
        return build()
    finally:
        if not _gc_frozen:
            _gc_frozen = True
            gc.freeze()
        gc.enable()


class Connector(Protocol):
    """What ``$connect`` needs: bind a verified player to a new connection."""

    def connect(self, connection_id: str, player_id: str) -> None: ...


class ConnectionBinder:
    """The ``$connect`` function's :class:`Connector`: the connections table, nothing else
    (no table state, no state key: the function may not even read the secret)."""

    def __init__(self, connections: Connections, clock: Callable[[], int],
                 devices: Devices | None = None):
        self.connections = connections
        self.clock = clock
        self.devices = devices
        """Where push notifications are on (issue 25): the player's device book counts the
        connection as open (one conditional write; nothing for a player without a book)."""

    def connect(self, connection_id: str, player_id: str) -> None:
        self.connections.bind(connection_id, player_id, self.clock())
        if self.devices is not None:
            try:
                self.devices.connected(player_id, connection_id)
            except Exception as error:  # a notification too many is better than no connect
                count("PushFailures", 1)
                warn("could not record a connection for push", {"error": type(error).__name__})


_connector: Connector | None = None


def get_connector() -> Connector:
    """The container's :class:`Connector`: the service when one was set (tests, the local
    stack) or built, else a :class:`ConnectionBinder` built from ``CONNECTIONS_TABLE`` alone.

    :raises ConfigurationError: If ``CONNECTIONS_TABLE`` is not set.
    """
    global _connector
    if _service is not None:
        return _service
    connector = _connector
    if connector is None:
        with _lock:
            if _connector is None:
                table = os.environ.get("CONNECTIONS_TABLE", "").strip()
                if not table:
                    raise ConfigurationError("environment variable CONNECTIONS_TABLE is not set")
                from .aws.dynamodb import DynamoConnections, DynamoDevices

                dynamodb = aws_client("dynamodb")
                _connector = ConnectionBinder(
                    DynamoConnections(dynamodb, table), SystemClock().now_ms,
                    DynamoDevices(dynamodb, table) if push_applications() else None)
            connector = _connector
    return connector


def set_service(service: TableService) -> None:
    """Use *service* for this container (tests, the local stack)."""
    global _service
    with _lock:
        _service = service


def reset() -> None:
    """Forget the container's service (and connector) and the botocore session its clients
    came from; the next :func:`get_service` builds a new one on a new session. A session
    outliving its service kept what it was made with: one made before moto was imported (an
    earlier test's) has none of moto's hooks, and a service built "on moto" after a reset
    sent its requests to AWS itself."""
    global _service, _connector, _botocore_session
    with _lock:
        _service = None
        _connector = None
    with _clients_lock:
        _botocore_session = None


def endpoint_from_event(event: Mapping[str, Any]) -> str | None:
    """The Management API endpoint of the API that sent a WebSocket *event*:
    ``https://{domainName}/{stage}`` (for a custom domain set ``WEBSOCKET_ENDPOINT`` instead).
    """
    context = event.get("requestContext") or {}
    domain, stage = context.get("domainName"), context.get("stage")
    if not domain or not stage:
        return None
    return f"https://{domain}/{stage}"


BOTO_SETTINGS: dict[str, Any] = {"connect_timeout": 0.5, "read_timeout": 1.0,
                                 "retries": {"mode": "standard", "total_max_attempts": 2},
                                 "max_pool_connections": 64}
"""Every AWS client's settings: two attempts of at most 0.5 s to connect and 1 s to read, and
the SDK's backoff (at most 1 s) between them: at most 4 s a call
(:data:`naiko_service.usecases.fanout.AWS_CALL_WORST_MS`). Up to 64 connections a client, so
that threads sharing it (the sweep's :attr:`Config.sweep_workers`) do not queue for one (the
SDK's default is 10; connections are opened only when used)."""

_botocore_session: Any = None
_clients_lock = threading.Lock()


def aws_client(service: str, attempts: int | None = None, **options: Any) -> Any:
    """A low-level AWS client of *service* with :data:`BOTO_SETTINGS`, from one botocore
    session per container. botocore's, not boto3's: ``boto3.client`` hands out the same
    botocore client, but ``import boto3`` also imports s3transfer (urllib3's and
    multiprocessing's parts with it), which costs a new container about as much again as
    botocore itself (docs/deploy.md, "7. Cold start"). Region, credentials and
    ``AWS_ENDPOINT_URL`` come from the environment as with boto3. *attempts*: the SDK's
    attempts per call instead of the settings' two (``1``: the caller retries what it may,
    :class:`~naiko_service.aws.gateway.ManagementApiGateway`).
    """
    global _botocore_session
    import botocore.session
    from botocore.config import Config as BotoConfig

    settings = BOTO_SETTINGS if attempts is None else {
        **BOTO_SETTINGS, "retries": {"mode": "standard", "total_max_attempts": attempts}}
    with _clients_lock:  # a botocore session is not thread-safe; its clients are
        if _botocore_session is None:
            _botocore_session = botocore.session.get_session()
        return _botocore_session.create_client(service, config=BotoConfig(**settings),
                                               **options)


def management_gateway(endpoint_url: str | None) -> Any:
    """The Management API adapter the service posts through: its client makes ONE attempt a
    call (a post the SDK retried after its read timeout had reached the connection already,
    and the client got the message twice); the adapter retries only a post that cannot have
    been delivered (:class:`~naiko_service.aws.gateway.ManagementApiGateway`)."""
    from .aws.gateway import ManagementApiGateway

    return ManagementApiGateway(LazyClient("apigatewaymanagementapi", attempts=1,
                                           endpoint_url=endpoint_url))


class LazyClient:
    """An :func:`aws_client` built on first use (any attribute: an operation, ``meta``,
    ``exceptions``), once, even from several threads. A client costs a new container a few
    tens of ms (its service model is read and parsed): the timer queue's is not needed by a
    frame that arms no timer, the Management API's by an invocation that tells nobody.
    """

    def __init__(self, service: str, **options: Any):
        self._service = service
        self._options = options
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._client is not None

    def __getattr__(self, name: str) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = aws_client(self._service, **self._options)
                client = self._client
        return getattr(client, name)

_remaining: ContextVar[Callable[[], float] | None] = ContextVar("naiko_remaining", default=None)


class InvocationDeadline:
    """The :class:`~naiko_service.ports.Deadline` of the invocation being handled: the Lambda
    context's remaining time, set by :func:`entry_point` (per thread of the local stack too,
    as a context variable); no limit outside an invocation."""

    def remaining_ms(self) -> float:
        remaining = _remaining.get()
        return math.inf if remaining is None else remaining()


def warn(message: str, fields: dict[str, Any]) -> None:
    """The ``Deps.warn`` hook: a structured warning log line."""
    logger.warning(message, extra=fields)


def error(message: str, fields: dict[str, Any]) -> None:
    """The ``Deps.error`` hook: a structured error log line."""
    logger.error(message, extra=fields)


def count(name: str, value: int = 1) -> None:
    """The ``Deps.count`` hook: a CloudWatch (EMF) count metric, flushed by the handler."""
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def measure(name: str, value: float) -> None:
    """The ``Deps.measure`` hook: a CloudWatch (EMF) metric in milliseconds (``TimerLag``),
    flushed by the handler."""
    metrics.add_metric(name=name, unit=MetricUnit.Milliseconds, value=value)


# -- building the AWS adapters ---------------------------------------------------------------

def build_service(config: Config, endpoint: str | None = None) -> TableService:
    """A service on the AWS adapters described by *config* (botocore is imported here). Only
    the clients every frame needs are built now: the timer transports' on their first
    wake-up (:class:`LazyClient`)."""
    from .aws.dynamodb import DynamoAccounts, DynamoConnections, DynamoTableStore
    from .ratelimit import RateLimiter
    from .usecases import Deps, TableService

    websocket_endpoint = config.websocket_endpoint or endpoint
    if websocket_endpoint is None:
        raise ConfigurationError("WEBSOCKET_ENDPOINT is not set and the event names no API")
    # The worst case of one call is bounded (usecases.fanout.AWS_CALL_WORST_MS, docs/deploy.md
    # "Worst cases"); the adapters map errors to ports.
    dynamodb = aws_client("dynamodb")
    sealer = state_sealer(config, lambda: aws_client("secretsmanager"))
    scheduler: Scheduler
    if config.timer_transport == "queue" and config.timer_queue_url:
        from .aws.scheduler import DelayQueueScheduler, StepFunctionsScheduler

        long_waits = None
        if config.timer_long_state_machine_arn:
            long_waits = StepFunctionsScheduler(LazyClient("stepfunctions"),
                                                config.timer_long_state_machine_arn)
        scheduler = DelayQueueScheduler(LazyClient("sqs"), config.timer_queue_url, long_waits)
    elif config.timer_state_machine_arn:
        from .aws.scheduler import StepFunctionsScheduler

        scheduler = StepFunctionsScheduler(LazyClient("stepfunctions"),
                                           config.timer_state_machine_arn,
                                           config.timer_long_state_machine_arn)
    else:
        scheduler = SweepOnlyScheduler()
    tables = DynamoTableStore(dynamodb, config.tables_table, config.accounts_table, sealer,
                              ledger_table=config.ledger_table,
                              history_table=config.history_table,
                              history_retention_days=config.history_retention_days,
                              due_shards=config.due_index_shards,
                              due_previous_shards=config.due_index_previous_shards)
    histories = chat_log = None
    if config.history_table:
        from .aws.histories import DynamoChatLog, DynamoHandHistories

        histories = DynamoHandHistories(dynamodb, config.history_table, sealer)
        chat_log = DynamoChatLog(dynamodb, config.history_table,
                                 config.history_retention_days)  # R8.9
    tournaments = None
    if config.tournaments_table:
        from .aws.tournaments import DynamoTournamentStore

        tournaments = DynamoTournamentStore(dynamodb, config.tournaments_table, tables)
    connections = DynamoConnections(dynamodb, config.connections_table)
    clock = SystemClock()
    from .aws.notifier import NoNotifier, SnsNotifier

    notifier: Notifier = NoNotifier()
    devices = None
    if config.push_applications:  # issue 25: push notifications on
        from .aws.dynamodb import DynamoDevices
        from .ports import Platform

        notifier = SnsNotifier(LazyClient("sns"), {Platform(platform): arn for platform, arn
                                                   in config.push_applications})
        devices = DynamoDevices(dynamodb, config.connections_table)

    from .memory import MemoryWatchers
    from .ports import WatcherQueue, Watchers

    watchers: Watchers = MemoryWatchers(cap=0)  # no table: no spectators
    watcher_queue: WatcherQueue | None = None
    if config.watchers_table:
        from .aws.watchers import DynamoWatchers, SqsWatcherQueue

        watchers = DynamoWatchers(dynamodb, config.watchers_table)
        if config.watchers_queue_url:
            watcher_queue = SqsWatcherQueue(LazyClient("sqs"), config.watchers_queue_url)
    deps = Deps(
        tables=tables,
        tournaments=tournaments,
        histories=histories,
        chat_log=chat_log,
        accounts=DynamoAccounts(dynamodb, config.accounts_table,
                                ledger_table=config.ledger_table),
        connections=connections,
        gateway=management_gateway(websocket_endpoint),
        watchers=watchers,
        watcher_queue=watcher_queue,
        scheduler=scheduler,
        clock=clock,
        count=count,
        measure=measure,
        warn=warn,
        error=error,
        deadline=InvocationDeadline(),
        default_decision_ms=config.default_decision_seconds * 1000,
        default_pause_ms=config.default_pause_seconds * 1000,
        offer_ms=config.seat_offer_seconds * 1000,
        sweep_workers=config.sweep_workers,
        quick_seat_stakes=config.quick_seat_stakes,
        devices=devices,
        notifier=notifier,
    )
    logger.debug("table service built", extra={"websocket_endpoint": websocket_endpoint,
                                                "timers": type(scheduler).__name__})
    # The frames' limits live in this container's memory; refusals only ever reach DynamoDB
    # (docs/service.md, "Rate limits").
    limiter = RateLimiter(config.rate_limits, clock.now_ms,
                          add_refusals=connections.add_refusals)
    return TableService(deps, limiter)


def state_sealer(config: Config, secrets_client: Callable[[], Any]) -> Sealer:
    """The sealer of table state: from ``STATE_KEY`` (fixed), or from the state-key secret,
    read now and again every :data:`~naiko_service.sealing.REFRESH_SECONDS` (a rotation
    reaches every container within that time, ``docs/secrets.md``).

    :raises ConfigurationError: If the key or the secret is malformed.
    """
    from .sealing import Sealer

    if config.state_key is not None:
        return Sealer(keyring_from_secret(config.state_key, plain="base64"),
                      dictionary=config.seal_dictionary)
    arn = config.state_key_secret_arn

    def read() -> Keyring:
        response = secrets_client().get_secret_value(SecretId=arn)
        return keyring_from_secret(response["SecretString"])

    return Sealer(read(), refresh=read, dictionary=config.seal_dictionary)


KEYRING_FORMAT = "naiko-state-keyring/1"
"""The ``format`` of a keyring secret (:func:`keyring_from_secret`)."""


def keyring_from_secret(secret: str, *, plain: str = "any") -> Keyring:
    """The keyring a state-key secret holds (``docs/secrets.md``).

    A JSON object ``{"format": "naiko-state-keyring/1", "current": 2, "keys": {"0": ...,
    "1": ..., "2": ...}}`` names each version's key material (each one read by
    :func:`state_key_from_secret`; version 0 is the legacy key) and the version that seals.
    Anything else is one key material (what CloudFormation generates, or base64 of 32 bytes;
    with ``plain="base64"`` only the latter): it opens legacy blobs and seals as version 1
    (:meth:`~naiko_service.sealing.Keyring.single`).

    >>> keyring_from_secret("a" * 64).versions
    (0, 1)
    >>> keyring_from_secret('{"format": "naiko-state-keyring/1", "current": 2, '
    ...                     '"keys": {"2": "' + "b" * 64 + '"}}').versions
    (2,)

    :raises ConfigurationError: If the secret is malformed.
    """
    from .sealing import Keyring

    text = secret.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigurationError("the state-key secret is not valid JSON") from exc
        if not isinstance(data, dict) or data.get("format") != KEYRING_FORMAT:
            raise ConfigurationError(f"a keyring secret has format {KEYRING_FORMAT!r}")
        keys, current = data.get("keys"), data.get("current")
        if not isinstance(keys, dict) or type(current) is not int:
            raise ConfigurationError("a keyring secret has 'current' (int) and 'keys' (object)")
        masters: dict[int, bytes] = {}
        for name, material in keys.items():
            if not (isinstance(name, str) and name.isdigit() and isinstance(material, str)):
                raise ConfigurationError("keyring keys are version numbers and strings")
            masters[int(name)] = state_key_from_secret(material)
        try:
            return Keyring(current, masters)
        except ValueError as exc:
            raise ConfigurationError(f"bad keyring: {exc}") from exc
    if plain == "base64":
        key = _b64_key(text)
        if key is None:
            raise ConfigurationError("STATE_KEY must be the base64 encoding of 32 bytes "
                                     "or a keyring JSON")
        return Keyring.single(key)
    return Keyring.single(state_key_from_secret(text))


def state_key_from_secret(secret: str) -> bytes:
    """The 32-byte AES key held by the state-key secret.

    A secret that is the base64 of exactly 32 bytes (``openssl rand -base64 32``) is the key
    itself. Anything else, such as the 64 random letters and digits CloudFormation generates
    (about 381 bits), is stretched with HKDF-SHA256 (``info`` :data:`STATE_KEY_INFO`).

    >>> len(state_key_from_secret("a" * 64))
    32
    >>> state_key_from_secret(base64.b64encode(bytes(range(32))).decode()) == bytes(range(32))
    True

    :raises ConfigurationError: If the secret is shorter than 32 characters.
    """
    text = secret.strip()
    key = _b64_key(text)
    if key is not None:
        return key
    if len(text) < 32:
        raise ConfigurationError("the state-key secret is too short (32 characters at least)")
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=STATE_KEY_INFO).derive(text.encode())


def _b64_key(text: str) -> bytes | None:
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return key if len(key) == 32 else None


class SystemClock:
    """Wall-clock milliseconds."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


class SweepOnlyScheduler:
    """The scheduler when neither the timer queue nor a timer state machine is configured
    (``TIMER_QUEUE_URL`` and ``TIMER_STATE_MACHINE_ARN`` unset: some tests): it only logs.
    Timers still fire, late: the sweep function (every minute) fires every timer past its
    deadline (the tables' ``due-index``)."""

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        logger.warning("no timer queue nor state machine (TIMER_QUEUE_URL and "
                       "TIMER_STATE_MACHINE_ARN unset): the timer fires on the next sweep",
                       extra={"table_id": table_id, "token": token, "due_ms": due_ms,
                              "kind": kind})


# -- SnapStart (template parameter SnapStart, off by default) ----------------------------------

def snap_start_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether the function runs with SnapStart (``NAIKO_SNAPSTART``, set by the template's
    ``SnapStart`` parameter).

    >>> snap_start_enabled({"NAIKO_SNAPSTART": "true"}), snap_start_enabled({})
    (True, False)
    """
    env = os.environ if env is None else env
    return env.get("NAIKO_SNAPSTART", "").strip().lower() in _TRUTHY


def warm_up(route: str) -> None:
    """Do now what a new container's first frames would do: import the use cases, the engine,
    the evaluator (its tables inflated) and the bots' styles, build every request's validator,
    and build what *route*'s handler uses (the service with its clients and the state key, or
    ``$connect``'s binder). With SnapStart this runs during initialisation, before the
    snapshot is taken."""
    from naiko import bot_styles  # noqa: F401  (the first bot's turn)
    from naiko.cards import parse_cards
    from naiko.evaluator import evaluate, evaluate_omaha

    from . import (
        protocol,
        usecases,  # noqa: F401
    )

    hand = parse_cards("As Kd 7h 7c 2s 9d Tc")
    for size in (5, 6, 7):  # each rank table is inflated at its first use
        evaluate(hand[:size])
    evaluate_omaha(parse_cards("As Kd 7h 7c"), hand[4:])
    for model in protocol.REQUEST_MODELS.values():
        model.model_rebuild()  # defer_build: built now, once, into the snapshot
    if route == "$connect":
        get_connector()
    else:  # every other entry point (game, timer, sweep, watchers, $disconnect) uses it
        service = get_service()
        for client in (service.deps.gateway, service.deps.scheduler):
            for lazy in vars(client).values():
                if isinstance(lazy, LazyClient):
                    lazy.meta  # noqa: B018  (built now: nothing left to build on a frame)


def after_restore() -> None:
    """What a container restored from a snapshot must not share with the others restored
    from it: the service (its clients' pooled connections, the credentials they cached, the
    state key read at snapshot time and the monotonic clock its refresh is timed by, the rate
    limiter's counts) is dropped and built again, on a new botocore session that keeps only
    the snapshot's parsed service models; the :mod:`random` module, whose generator every
    restored container would otherwise continue identically (botocore's retry jitter, the
    backoff in :mod:`.usecases.base` draws from ``SystemRandom``), is re-seeded from the OS.
    The decks never depended on it: ``Deps.rng`` is :class:`secrets.SystemRandom` and the
    deck seeds ``secrets.token_bytes``, read from ``os.urandom`` at each use."""
    global _botocore_session
    import random

    random.seed(os.urandom(32))
    route = _snap_route
    old = _botocore_session
    reset()  # the service, the connector and the session
    if old is not None:
        import botocore.session

        session = botocore.session.get_session()
        session.register_component("data_loader", old.get_component("data_loader"))
        with _clients_lock:
            _botocore_session = session
    if route is not None:
        try:
            warm_up(route)
        except Exception:  # e.g. Secrets Manager unreachable: the first frame retries it
            logger.exception("the warm-up after a restore failed: the first frame builds it")
            reset()


_snap_route: str | None = None


def snap_start(route: str) -> bool:
    """With SnapStart (:func:`snap_start_enabled`), warm *route*'s container up now, at
    initialisation (:func:`warm_up`), and register :func:`after_restore` with the Lambda
    runtime's hooks (``snapshot_restore_py``, on the python3.12 runtime); returns whether it
    did. Without SnapStart, or without the hooks' module (not on Lambda), nothing happens:
    the lazy path stays as it is. :func:`entry_point` calls this for every handler."""
    global _snap_route
    if not snap_start_enabled():
        return False
    try:
        from snapshot_restore_py import register_after_restore  # type: ignore[import-not-found]
    except ImportError:
        logger.warning("NAIKO_SNAPSTART is set but snapshot_restore_py is missing: no warm-up")
        return False
    _snap_route = route
    register_after_restore(after_restore)
    try:
        warm_up(route)
    except Exception:  # the lazy path still serves; the snapshot is only less warm
        logger.exception("the SnapStart warm-up failed: the first frame builds the rest")
        reset()
    return True


class UnexpectedError(RuntimeError):
    """What a handler raises, from the original exception, after logging something it did not
    expect (so Lambda records the invocation as failed)."""


LambdaHandler = Callable[[dict[str, Any], Any], Any]


def entry_point(route: str, *, correlation_id_path: str | None = None,
                on_failure: Callable[[dict[str, Any]], None] | None = None
                ) -> Callable[[LambdaHandler], LambdaHandler]:
    """The one decorator stack of every Lambda handler: the Powertools logger with the Lambda
    context (keys cleared per invocation, ``route`` set), the lazy tracer, metrics flushed at
    the end, and one way to fail: anything unexpected is logged with its traceback, counted
    (``UnexpectedErrors``), handed to *on_failure* (the game handler answers the client), and
    re-raised as :class:`UnexpectedError` from the original, so Lambda records the failure.

    Each ``functions/<name>/app.py`` keeps only what is specific to its route. With SnapStart
    the container is warmed up here, at import (:func:`snap_start`).
    """
    snap_start(route)

    def decorate(handler: LambdaHandler) -> LambdaHandler:
        @functools.wraps(handler)
        def run(event: dict[str, Any], context: Any) -> Any:
            # Per-invocation keys live in a context variable: a Lambda container reuses its
            # thread, and the local stack runs invocations side by side in threads.
            logger.thread_safe_clear_keys()
            logger.thread_safe_append_keys(route=route)
            remaining = getattr(context, "get_remaining_time_in_millis", None)
            token = _remaining.set(remaining if callable(remaining) else None)
            try:
                return route_response(route, handler(event, context))
            except Exception as error:
                logger.exception(f"{route} failed")
                count("UnexpectedErrors")
                if on_failure is not None:
                    try:
                        on_failure(event)
                    except Exception:
                        logger.exception("the failure could not be reported to the client")
                raise UnexpectedError(f"{route} failed") from error
            finally:
                _remaining.reset(token)

        traced = LazyTracer().capture_lambda_handler(metrics.log_metrics(run))
        # Events are never logged (log_event=False even if POWERTOOLS_LOGGER_LOG_EVENT is set):
        # a $connect event carries the player's token in its query string.
        injected: LambdaHandler = logger.inject_lambda_context(
            correlation_id_path=correlation_id_path, clear_state=True, log_event=False)(traced)
        return injected

    return decorate


def route_response(route: str, result: Any) -> Any:
    """A handler's return value, with the same check as every post
    (:func:`naiko_service.usecases.fanout.deliver`): a ``body`` (which API Gateway would send
    the client, were the route given a route response) over the 32 KB frame is replaced by a
    ``reply_too_large`` error, logged and counted ``MessagesOversize``. No route of ours
    returns a body today (they answer by posting); this keeps it so if one ever does."""
    if not isinstance(result, dict) or not isinstance(result.get("body"), str):
        return result
    from .protocol import MAX_FRAME_BYTES, error_message

    size = len(result["body"].encode("utf-8", "surrogatepass"))
    if size <= MAX_FRAME_BYTES:
        return result
    logger.error("a route's response over the frame limit was not sent",
                 extra={"message_type": "route_response", "bytes": size,
                        "limit": MAX_FRAME_BYTES, "route": route})
    count("MessagesOversize")
    return {**result, "body": json.dumps(error_message(
        "reply_too_large", f"the reply ({route}, {size} bytes) is larger than a frame "
        f"({MAX_FRAME_BYTES} bytes); ask for a smaller page", None,
        type=route, size=size, limit=MAX_FRAME_BYTES))}


def connection_of(event: Mapping[str, Any]) -> str:
    """The WebSocket connection id of an API Gateway event; it and the event's route key
    become log keys."""
    request_context = event["requestContext"]
    connection_id = str(request_context["connectionId"])
    logger.thread_safe_append_keys(connection_id=connection_id,
                                   route=request_context.get("routeKey"))
    return connection_id


class LazyTracer:
    """A Powertools :class:`~aws_lambda_powertools.Tracer` built on first use.

    ``Tracer()`` imports ``aws_xray_sdk.core`` (which imports ``botocore.session`` and
    ``wrapt``) and patches botocore, even when tracing is disabled: about 0.25 s on the dev
    machine, four times the rest of a handler's imports. Handlers declare
    ``tracer = LazyTracer()`` at module level, so importing a handler stays cheap; the real
    tracer is built when the first invocation starts, before the handler builds any client
    (patching is per class, so it covers clients either way).
    When :func:`tracing_disabled` (``POWERTOOLS_TRACE_DISABLED``, or outside Lambda) the
    handler runs untraced and the X-Ray SDK is never imported at all.

    >>> tracer = LazyTracer()
    >>> @tracer.capture_lambda_handler
    ... def handler(event, context):
    ...     return event
    >>> tracer.built
    False
    """

    def __init__(self, **options: Any):
        self._options = options
        self._tracer: Tracer | None = None

    @property
    def built(self) -> bool:
        return self._tracer is not None

    @property
    def tracer(self) -> Tracer:
        """The real tracer (built now if needed)."""
        if self._tracer is None:
            from aws_lambda_powertools import Tracer

            self._tracer = Tracer(**self._options)
        return self._tracer

    def capture_lambda_handler(self, handler: Handler) -> Handler:
        """``Tracer.capture_lambda_handler``, applied on the first invocation."""
        traced: Callable[..., Any] | None = None

        @functools.wraps(handler)
        def run(event: Any, context: Any) -> Any:
            nonlocal traced
            if traced is None:
                traced = (handler if tracing_disabled()
                          else self.tracer.capture_lambda_handler(handler))
            return traced(event, context)

        return run  # type: ignore[return-value]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tracer, name)


def tracing_disabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether Powertools would disable tracing: ``POWERTOOLS_TRACE_DISABLED`` is truthy, or
    we run outside Lambda or under ``sam local``.

    >>> tracing_disabled({"POWERTOOLS_TRACE_DISABLED": "true", "LAMBDA_TASK_ROOT": "/var/task"})
    True
    >>> tracing_disabled({"LAMBDA_TASK_ROOT": "/var/task"})
    False
    """
    env = os.environ if env is None else env
    if env.get("POWERTOOLS_TRACE_DISABLED", "").strip().lower() in _TRUTHY:
        return True
    return not env.get("LAMBDA_TASK_ROOT") or bool(env.get("AWS_SAM_LOCAL"))


_TRUTHY = frozenset({"1", "true", "t", "yes", "y", "on"})
