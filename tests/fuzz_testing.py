"""A WebSocket frame fuzzer for the game handler (issue 10, "Bad input that still gets
through"): hypothesis strategies for hostile frames, and a harness that drives each frame
through the REAL ``functions/game/app.py`` ``lambda_handler`` against a service on the
in-memory adapters, checking what every frame must get.

Used by ``tests/unit/test_fuzz_frames.py`` (a few hundred examples per strategy) and by
``scripts/fuzz_frames.py`` (a benchmark-size run, 10,000 frames by default).

The world (:class:`FuzzStack`): **alice** (host), **bob** and **carol** seated at a 6-seat
NAIKO table with a hand running (:data:`NAIKO_TABLE`), an empty 2-seat NLHE table of bob's
(:data:`NLHE_TABLE`), mallory's 6-seat Sit & Go with bots on that carol registered for
(:data:`SNG_TOURNAMENT`; its table, :data:`SNG_TABLE`, exists once it fills), alice's heads-up
Sit & Go against bob, running (:data:`HEADSUP_TOURNAMENT` at :data:`HEADSUP_TABLE`: neither
plays, so the clock sits them out and they are blinded away, R9.4), and two fuzzing
connections: ``fuzz-mallory`` (mallory, funded, seated nowhere, the Sit & Go's creator) and
``fuzz-carol`` (carol again, on a second connection: a seated fuzzer).

How a frame reaches the handler (:func:`message_event`): an API Gateway WebSocket MESSAGE event
shaped like ``events/act.json`` whose ``body`` is the frame as text. API Gateway hands Lambda
text, so raw bytes are delivered one of three ways (:class:`Delivery`): decoded as UTF-8 with
``errors="surrogateescape"`` (valid UTF-8 arrives unchanged; each invalid byte becomes a lone
surrogate U+DC80-U+DCFF, the worst text a JSON event can carry), decoded as Latin-1 (every byte
a character: mojibake, never invalid), or base64 with ``isBase64Encoded: true`` (how a binary
frame could arrive; the handler does not decode it and must refuse it like any other text).

What every frame must get (:meth:`FuzzStack.send` returns the violations):

* the handler returns ``{"statusCode": 200}``: no exception escapes (the handler re-raises
  anything unexpected, so an exception is a crash);
* the sending connection receives exactly one reply (``ack``, ``error``, ``tables``,
  ``account``, ``table_found``, ``tournaments``, ``tournament``, or a ``snapshot`` with a
  ``request_id``: the ``snapshot`` that
  follows a replayed ``ack`` has ``request_id: null`` and is not a reply; the ``invite_code``
  that follows the ``ack`` of ``create_invite_code`` is not one either); every other
  connection receives only ``update``s;
* an ``error`` carries a code of ``docs/protocol.md`` section 7 (:func:`documented_error_codes`)
  and nothing changed: no table write (``MemoryTableStore.writes``), no table version, no
  tournament write (``MemoryTournamentStore.writes``) or tournament version, no balance,
  open-table count or ledger entry (one known service bug is tolerated and counted:
  :data:`KNOWN_BUGS`);
* the frame checks answer as docs/protocol.md says (:func:`frame_oracle`, worked out without
  the parser): ``frame_too_large``, ``malformed_json`` (not UTF-8, not a JSON object, nested
  deeper than 16, a lone surrogate), ``unknown_action``, each with the documented
  ``request_id`` (null, or the frame's own when it is a valid id), and a frame that passes them
  never gets one of those three; and the reply is what
  :func:`~naiko_service.protocol.parse_request` itself says for a frame it refuses;
* every message sent (to any connection) is a valid server message (the pydantic models) and
  encodes as strict UTF-8 JSON (no lone surrogates, no NaN), as the gateway posts bytes;
* logging: no ``--- Logging error ---`` on stderr, every log record is one JSON object written
  to a strict UTF-8 stream (like Lambda's stdout), a frame refused before the use case has its
  ``frame refused`` record naming the code, and the invocation prints EMF metrics (stdout)
  that count it exactly once (``Requests``, ``ProtocolErrors`` or ``NotConnected``).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import copyreg
import enum
import hashlib
import importlib.util
import io
import json
import random
import re
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

from hypothesis import strategies as st
from naiko.cards import seeded_random
from naiko.engine import legal_actions
from naiko.state import Variant
from naiko_service import bootstrap, pages
from naiko_service.memory import (
    ManualClock,
    MemoryAccounts,
    MemoryChatLog,
    MemoryConnections,
    MemoryDevices,
    MemoryTableStore,
    MemoryTournamentStore,
    RecordingGateway,
    RecordingNotifier,
    RecordingScheduler,
)
from naiko_service.ports import TournamentNotFound
from naiko_service.protocol import (
    MAX_FRAME_BYTES,
    ROUTES,
    AnyMessage,
    ClientRequest,
    ProtocolError,
    parse_request,
)
from naiko_service.usecases import Deps, TableService
from naiko_service.usecases.private import HOUSE_BOTS
from naiko_service.usecases.tournaments import tournament_id_for
from pydantic import TypeAdapter

ROOT = Path(__file__).resolve().parents[1]
GAME_APP = ROOT / "functions" / "game" / "app.py"
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
EVENT_TEMPLATE = ROOT / "events" / "act.json"

REPLY_TYPES = frozenset({"ack", "error", "tables", "snapshot", "account", "table_found",
                         "tournaments", "tournament", "tournament_players",
                         "tournament_results", "standings", "hands", "hand", "heartbeat"})
"""Besides these, an ``update`` or a ``chat`` (R8.9) that carries the request id."""
PROTOCOL_CODES = frozenset({"frame_too_large", "malformed_json", "unknown_action",
                            "invalid_request"})
"""What :func:`~naiko_service.protocol.parse_request` refuses with (the service may also
refuse with ``invalid_request``)."""
PARSER_ONLY_CODES = PROTOCOL_CODES - {"invalid_request"}
FRAME_COUNTERS = ("Requests", "ProtocolErrors", "NotConnected")
"""The handler's per-frame metrics: each invocation counts exactly one of them once."""

SEATED = ("alice", "bob", "carol")
FUZZERS = {"mallory": "fuzz-mallory", "carol": "fuzz-carol"}
"""Fuzzing player -> its connection: mallory is funded and seated nowhere, carol is seated at
the NAIKO table (and also watches it on ``conn-carol``)."""
FUNDS = 10_000
SEED = 5
"""The deck's seed: carol is the first to act in the first hand."""


def table_id_of(player_id: str, request_id: str) -> str:
    """The id ``create_table`` derives (``usecases.lobby``); the setup checks it."""
    return "t" + hashlib.sha256(f"{player_id}/{request_id}".encode()).hexdigest()[:20]


NAIKO_TABLE = table_id_of("alice", "create-naiko")
NLHE_TABLE = table_id_of("bob", "create-nlhe")
SNG_TOURNAMENT = tournament_id_for("mallory", "create-sng")
"""mallory's Sit & Go (6 seats, entry 50, bots on); carol registered for it."""
SNG_TABLE = f"{SNG_TOURNAMENT}-1"
"""The Sit & Go's table, once it fills (a fuzzer's ``register`` or ``tournament_add_bots``)."""
HEADSUP_TOURNAMENT = tournament_id_for("alice", "create-headsup")
"""alice's heads-up Sit & Go (entry 50) against bob: it started at the setup."""
HEADSUP_TABLE = f"{HEADSUP_TOURNAMENT}-1"
UNKNOWN_TABLE = "t0000000000000000dead"
UNKNOWN_TOURNAMENT = "u0000000000000000dead"
TABLE_IDS = (NAIKO_TABLE, NLHE_TABLE, HEADSUP_TABLE, SNG_TABLE, UNKNOWN_TABLE)
TOURNAMENT_IDS = (SNG_TOURNAMENT, HEADSUP_TOURNAMENT, UNKNOWN_TOURNAMENT)

REQUEST_IDS = ("r1", "r2", "r-3", "a.b:c", "join-carol", "join-alice", "create-naiko",
               "create-nlhe", "create-sng", "x" * 64)
"""Request ids reused across frames so that replays happen: ``join-carol`` is carol's real
join (a replay when the seated fuzzer resends it), ``create-sng`` mallory's Sit & Go (a
``create_tournament`` of hers with it finds the same one), the others are re-sent within an
example."""

KNOWN_BUGS: dict[str, frozenset[str]] = {}
"""Service bugs the harness tolerates (reported; remove an entry once its bug is fixed):
route -> the error codes after which the state may have changed. Empty: the last one
(``tournament_add_bots`` registering some BOTs before an error) is fixed: its BOTs register
in one transaction. :attr:`Outcome.known_bug` names a tolerated case."""


# -- the documented error codes ---------------------------------------------------------------

@cache
def documented_error_codes(doc: Path = PROTOCOL_DOC) -> frozenset[str]:
    """Every code in the first column of the tables of section 7 ("Error codes").

    :raises ValueError: If the section or its tables cannot be found.
    """
    text = doc.read_text(encoding="utf-8")
    match = re.search(r"^## 7\. Error codes$(.*?)^## 8\.", text, re.M | re.S)
    if match is None:
        raise ValueError(f"{doc} has no section 7 'Error codes'")
    codes: set[str] = set()
    for line in match.group(1).splitlines():
        if line.startswith("| `"):
            codes.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    if not codes:
        raise ValueError(f"no error codes in section 7 of {doc}")
    return frozenset(codes)


# -- the handler and its events ---------------------------------------------------------------

@cache
def game_handler() -> ModuleType:
    """``functions/game/app.py``, loaded as the Lambda runtime would (as tests/unit/
    test_handlers.py does)."""
    spec = importlib.util.spec_from_file_location("naiko_game_app_fuzz", GAME_APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class FakeLambdaContext:
    function_name: str = "naiko-fuzz-game"
    memory_limit_in_mb: int = 512
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-fuzz-game"
    aws_request_id: str = "6f1c2d3e-0000-4000-8000-00000000f022"


class Delivery(enum.StrEnum):
    """How raw bytes become the event's text ``body`` (see the module docstring)."""

    TEXT = "text"
    """The frame is already text (``Frame.body`` is a ``str``, sent as is)."""
    SURROGATEESCAPE = "surrogateescape"
    LATIN1 = "latin-1"
    BASE64 = "base64"


@dataclass(frozen=True)
class Frame:
    """One fuzzed frame, who sends it and when.

    :param body: The frame: text (possibly holding lone surrogates), bytes (delivered per
        *delivery*), or ``None`` (an event without a body).
    :param fuzzer: ``mallory`` (unseated) or ``carol`` (seated): the sender.
    :param tick_ms: Milliseconds the clock moves (due timers fire) before the frame.
    :param others_act: Before the frame, alice and bob check or call while it is their turn
        (so that hands reach later streets and carol's turn comes back).
    :param kind: The strategy that made it.
    """

    body: str | bytes | None
    fuzzer: str = "mallory"
    delivery: Delivery = Delivery.TEXT
    tick_ms: int = 0
    others_act: bool = False
    kind: str = ""

    def text(self) -> tuple[str | None, bool]:
        """The event's ``body`` and ``isBase64Encoded``."""
        body = self.body
        if body is None or isinstance(body, str):
            return body, False
        match self.delivery:
            case Delivery.BASE64:
                return base64.b64encode(body).decode("ascii"), True
            case Delivery.LATIN1:
                return body.decode("latin-1"), False
            case _:
                return body.decode("utf-8", errors="surrogateescape"), False

    def show(self, limit: int = 300) -> str:
        """A reproducible, ASCII-only description (``ascii()`` escapes lone surrogates)."""
        shown = ascii(self.body)
        if len(shown) > limit:
            shown = f"{shown[:limit]}... ({len(shown)} chars)"
        return (f"Frame(body={shown}, fuzzer={self.fuzzer!r}, delivery={self.delivery.value!r}, "
                f"tick_ms={self.tick_ms}, others_act={self.others_act}, kind={self.kind!r})")


def route_key(body: str | None) -> str:
    """What API Gateway's route selection (``$request.body.action``) would pick."""
    try:
        data = json.loads(body) if body else None
    except (ValueError, RecursionError):
        return "$default"
    action = data.get("action") if isinstance(data, dict) else None
    return action if isinstance(action, str) and action in ROUTES else "$default"


@cache
def _event_template() -> dict[str, Any]:
    event: dict[str, Any] = json.loads(EVENT_TEMPLATE.read_text())
    return event


def message_event(connection_id: str, player_id: str, body: str | None, is_base64: bool,
                  number: int) -> dict[str, Any]:
    """An API Gateway WebSocket MESSAGE event (``events/act.json``'s shape) carrying *body*."""
    event = copy.deepcopy(_event_template())
    context = event["requestContext"]
    context["connectionId"] = connection_id
    context["routeKey"] = route_key(body) if not is_base64 else "$default"
    context["authorizer"] = {"principalId": player_id, "player_id": player_id,
                             "integrationLatency": 12}
    context["requestId"] = context["extendedRequestId"] = f"fuzz-{number}"
    context["messageId"] = f"fuzz-message-{number}"
    event["body"] = body
    event["isBase64Encoded"] = is_base64
    return event


# -- the stack ----------------------------------------------------------------------------------

_MESSAGES: TypeAdapter[Any] = TypeAdapter(AnyMessage)


@dataclass
class Outcome:
    """What one frame got."""

    frame: Frame
    replies: list[dict[str, Any]]
    crash: str | None = None
    """The traceback of an exception that escaped the handler."""
    violations: list[str] = field(default_factory=list)
    state_changed_on_error: bool = False
    known_bug: str | None = None
    """A violation of :data:`KNOWN_BUGS` that was tolerated (not in :attr:`violations`)."""

    @property
    def reply_kind(self) -> str:
        """``ack``, ``tables``, ``snapshot``, ``error:<code>``, or ``none``/``many``."""
        if len(self.replies) != 1:
            return "none" if not self.replies else "many"
        reply = self.replies[0]
        return f"error:{reply.get('code')}" if reply.get("type") == "error" else str(reply["type"])

    @property
    def ok(self) -> bool:
        return self.crash is None and not self.violations


class LogCapture:
    """The Powertools logger's stream, replaced by a strict UTF-8 byte stream (Lambda's stdout
    encodes; a ``StringIO`` would accept any lone surrogate)."""

    def __init__(self, logger_handler: Any):
        self._handler = logger_handler
        self.buffer = io.BytesIO()
        self.stream = io.TextIOWrapper(self.buffer, encoding="utf-8", errors="strict",
                                       newline="\n", write_through=True)
        self._previous: Any = None

    def __enter__(self) -> LogCapture:
        self._previous = self._handler.setStream(self.stream)
        return self

    def __exit__(self, *exc: object) -> None:
        self._handler.setStream(self._previous)

    def tell(self) -> int:
        """The end of what was logged so far."""
        return self.buffer.tell()

    def since(self, offset: int) -> bytes:
        """What was logged after *offset*."""
        with self.buffer.getbuffer() as view:
            return bytes(view[offset:])


class FuzzStack:
    """A service on in-memory adapters, installed with ``bootstrap.set_service``: the NAIKO
    table mid-hand with alice, bob and carol, bob's empty NLHE table, and the two fuzzing
    connections. Use it as a context manager (it restores the logger and the bootstrap).

    :param seed: The service's random seed (the deck); with the default, carol (the seated
        fuzzer) is the first to act.
    """

    def __init__(self, seed: int = SEED):
        # Every stack starts as the same world: build it once per seed through the service
        # (``_build``), then each stack is a deep copy of that untouched original (the same
        # records, balances, timers, sent messages and random generators' states), in a
        # fraction of the set-up's time. ``test_a_copied_stack_is_the_world_built_afresh``.
        template = _built_world(seed)
        self.__dict__.update(_copy_world(template))
        bootstrap.metrics.clear_metrics()

    @classmethod
    def built_afresh(cls, seed: int = SEED) -> FuzzStack:
        """A stack whose world is set up through the service now (what every copy equals)."""
        stack = cls.__new__(cls)
        stack._build(seed)
        return stack

    def _build(self, seed: int) -> None:
        self.handler = game_handler()
        self.accounts = MemoryAccounts()
        self.store = MemoryTableStore(accounts=self.accounts)
        self.tournaments = MemoryTournamentStore(self.store)
        self.connections = MemoryConnections()
        self.chat_log = MemoryChatLog()
        self.gateway = RecordingGateway()
        self.scheduler = RecordingScheduler()
        self.clock = ManualClock()
        self.service = TableService(Deps(
            tables=self.store, accounts=self.accounts, connections=self.connections,
            gateway=self.gateway, scheduler=self.scheduler, clock=self.clock,
            rng=seeded_random(seed), count=bootstrap.count, tournaments=self.tournaments,
            secret_bytes=random.Random(f"secrets-{seed}").randbytes,
            histories=self.store, chat_log=self.chat_log,
            devices=MemoryDevices(), notifier=RecordingNotifier()))  # issue 25: push on
        self.frames_sent = 0
        self._world_requests = 0
        self.known_tables: set[str] = set(TABLE_IDS[:4])
        self.known_tournaments: set[str] = set(TOURNAMENT_IDS[:2])
        self._logs: LogCapture | None = None
        self._setup()

    # setup, through the service itself (not fuzzed)
    def _request(self, player_id: str, **frame: Any) -> dict[str, Any]:
        connection_id = f"conn-{player_id}"
        before = len(self.gateway.sent[connection_id])
        self.service.handle(connection_id, player_id, parse_request(json.dumps(frame)))
        reply = next(m for m in self.gateway.sent[connection_id][before:] if is_reply(m))
        assert reply["type"] in ("ack", "update"), reply
        return reply

    def _setup(self) -> None:
        for player_id in (*SEATED, "mallory"):
            self.accounts.grant(player_id, FUNDS)
            self.service.connect(f"conn-{player_id}", player_id)
        for player_id, connection_id in FUZZERS.items():
            self.service.connect(connection_id, player_id)
        ack = self._request("alice", action="create_table", request_id="create-naiko",
                            name="Fuzz Naiko", variant=Variant.NAIKO.value, seat_count=6,
                            small_blind=5, big_blind=10, min_buy_in=200, max_buy_in=1000)
        assert ack["table_id"] == NAIKO_TABLE, ack
        ack = self._request("bob", action="create_table", request_id="create-nlhe",
                            name="Fuzz NLHE", seat_count=2, small_blind=1, big_blind=2,
                            min_buy_in=40, max_buy_in=200)
        assert ack["table_id"] == NLHE_TABLE, ack
        for player_id in SEATED:
            self._request(player_id, action="join_table", request_id=f"join-{player_id}",
                          table_id=NAIKO_TABLE, buy_in=500)
        assert self.store.load(NAIKO_TABLE).state.hand is not None, "no hand running"
        self.accounts.grant(HOUSE_BOTS, FUNDS)  # the house's BOT account (R8.4)
        ack = self._request("mallory", action="create_tournament", request_id="create-sng",
                            preset="sng_6max_turbo", entry=50, name="Fuzz SNG", bots=True)
        assert ack["tournament_id"] == SNG_TOURNAMENT, ack
        self._request("carol", action="register", request_id="register-carol",
                      tournament_id=SNG_TOURNAMENT)
        ack = self._request("alice", action="create_tournament", request_id="create-headsup",
                            preset="sng_headsup_hyper", entry=50, name="Fuzz heads-up")
        assert ack["tournament_id"] == HEADSUP_TOURNAMENT, ack
        for player_id in ("alice", "bob"):  # bob's registration fills it: it starts
            self._request(player_id, action="register", request_id=f"register-{player_id}",
                          tournament_id=HEADSUP_TOURNAMENT)
        assert self.store.load(HEADSUP_TABLE).tournament is not None, "no tournament table"
        bootstrap.metrics.clear_metrics()

    def __enter__(self) -> FuzzStack:
        assert self._logs is None, "a FuzzStack is entered once"
        bootstrap.set_service(self.service)
        self._logs = LogCapture(self.handler.logger.registered_handler).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._logs is not None:
            self._logs.__exit__()
            self._logs = None
        bootstrap.reset()

    # between frames
    def tick(self, ms: int) -> None:
        """Move the clock and fire every due timer (as Step Functions would)."""
        if ms <= 0:
            return
        self.clock.advance(ms)
        for timer in sorted(self.scheduler.scheduled, key=lambda t: t[2]):
            table_id, token, due_ms, _ = timer
            if due_ms <= self.clock.now and timer in self.scheduler.scheduled:
                self.scheduler.scheduled.remove(timer)
                self.service.timer_fired(table_id, token)

    def others_play(self) -> None:
        """The rest of the world moves on (through the service, not fuzzed): a seated player
        who sat out sits back in, carol sits back down if she left, and while it is alice's
        or bob's turn at the NAIKO table, they check (or call)."""
        record = self.store.load(NAIKO_TABLE)
        for player_id in SEATED:
            index = record.seat_of(player_id)
            seat = None if index is None else record.state.seats[index]
            if seat is not None and seat.sitting_out:
                self._world(player_id, action="sit_in")
            elif seat is None and player_id == "carol":
                self._world(player_id, action="join_table", buy_in=500)
        for _ in range(8):
            record = self.store.load(NAIKO_TABLE)
            prompt = legal_actions(record.state)
            seat = None if prompt is None else record.state.seats[prompt.seat_index]
            if prompt is None or seat is None or seat.player_id not in ("alice", "bob"):
                return
            self._world(seat.player_id, action="act",
                        move="check" if "check" in prompt.actions else "call")

    def _world(self, player_id: str, **frame: Any) -> None:
        self._world_requests += 1
        frame.update(request_id=f"world-{self._world_requests}", table_id=NAIKO_TABLE)
        self.service.handle(f"conn-{player_id}", player_id, parse_request(json.dumps(frame)))

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything a refused frame must leave as it was."""
        versions: list[tuple[str, int | str]] = []
        for table_id in sorted(self.known_tables):
            try:
                versions.append((table_id, self.store.load(table_id).version))
            except Exception as error:  # a table that closed, or that cannot be read
                versions.append((table_id, type(error).__name__))
        for tournament_id in sorted(self.known_tournaments):
            try:
                versions.append((tournament_id, self.tournaments.load(tournament_id).version))
            except TournamentNotFound:
                versions.append((tournament_id, "TournamentNotFound"))
        return (self.store.writes, self.tournaments.writes, tuple(versions),
                tuple(sorted((p, b) for p, b in self.accounts.balances.items() if b)),
                tuple(sorted((p, n) for p, n in self.accounts.open_tables.items() if n)),
                len(self.accounts.ledger),
                tuple(sorted((c, tuple(sorted(m))) for c, m in self.connections.muted.items()
                             if m)),  # R8.9: mutes
                tuple(sorted((k, len(v)) for k, v in self.chat_log.lines_by_hand.items())))

    def _counts(self) -> dict[str, int]:
        return {c: len(m) for c, m in self.gateway.sent.items()}

    # one frame
    def send(self, frame: Frame) -> Outcome:
        """Deliver *frame* through the game handler and check every property of the module
        docstring; the returned :class:`Outcome` lists the violations."""
        assert self._logs is not None, "use FuzzStack as a context manager"
        world_failure = None
        try:
            self.tick(frame.tick_ms)
            if frame.others_act:
                self.others_play()
        except Exception:  # a timer or another player's request failed: report, go on
            world_failure = traceback.format_exc()
        self.frames_sent += 1
        connection_id = FUZZERS[frame.fuzzer]
        body, is_base64 = frame.text()
        event = message_event(connection_id, frame.fuzzer, body, is_base64, self.frames_sent)
        before_counts = self._counts()
        before_state = self.fingerprint()
        log_offset = self._logs.tell()
        stdout, stderr = io.StringIO(), io.StringIO()
        crash: str | None = None
        result: Any = None
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                result = self.handler.lambda_handler(event, FakeLambdaContext())
            except Exception:  # an escaped exception: the property under test
                crash = traceback.format_exc()
        new = {c: m[before_counts.get(c, 0):] for c, m in self.gateway.sent.items()}
        mine = new.get(connection_id, [])
        replies = [m for m in mine if is_reply(m)]
        outcome = Outcome(frame, replies, crash)
        violations = outcome.violations
        if world_failure is not None:
            violations.append(f"before the frame, a timer or another player's request failed:"
                              f"\n{world_failure}")
        if crash is None and result != {"statusCode": 200}:
            violations.append(f"the handler returned {result!r}")
        if len(replies) != 1:
            violations.append(f"{len(replies)} replies (want exactly 1): {shorten(mine)}")
        codes = [m for m in mine if m.get("type") == "invite_code"]
        if codes and not (len(codes) == 1 and len(replies) == 1
                          and replies[0].get("type") == "ack"
                          and codes[0].get("request_id") == replies[0].get("request_id")):
            violations.append(f"an invite_code not after the ack of its request: "
                              f"{shorten(mine)}")
        if len(mine) > len(replies) + len(codes) + sum(
                m.get("type") == "update" and not is_reply(m) for m in mine) and not (
                len(replies) == 1 and replies[0].get("replayed") is True):
            violations.append(f"a snapshot without request_id, not after a replayed ack: "
                              f"{shorten(mine)}")
        for other, messages in new.items():
            if other != connection_id and any(m.get("type") not in ("update", "chat")
                                              for m in messages):  # chat: R8.9
                violations.append(f"connection {other} got a non-update: {shorten(messages)}")
        for messages in new.values():
            violations += [problem for m in messages if (problem := message_problem(m))]
        refused: tuple[str, str | None] | None = None
        try:
            parse_request(body)
        except ProtocolError as error:
            refused = (error.code, error.request_id)
        for reply in replies:
            self._note_tables(reply)
            violations += reply_problems(reply, body, refused)
        if any(r.get("type") == "error" for r in replies):
            after_state = self.fingerprint()
            if after_state != before_state:
                outcome.state_changed_on_error = True
                change = f"an error changed state: {before_state} -> {after_state}"
                route = route_key(body) if not is_base64 else "$default"
                if replies[0].get("code") in KNOWN_BUGS.get(route, ()):
                    outcome.known_bug = f"{route}: {change}"
                else:
                    violations.append(change)
        violations += log_problems(self._logs.since(log_offset), stderr.getvalue(),
                                   stdout.getvalue(), refused and refused[0], connection_id)
        return outcome

    def _note_tables(self, reply: dict[str, Any]) -> None:
        table_id, tournament_id = reply.get("table_id"), reply.get("tournament_id")
        if reply.get("type") in ("ack", "update") and isinstance(table_id, str):
            self.known_tables.add(table_id)
        if reply.get("type") == "ack" and isinstance(tournament_id, str):
            self.known_tournaments.add(tournament_id)


DOC_MAX_FRAME_BYTES = 32_768
"""docs/protocol.md section 2: a frame is at most 32 768 bytes."""
DOC_MAX_NESTING = 16
"""docs/protocol.md section 7: ``malformed_json`` for a frame "nested deeper than 16 levels"."""
_ECHOABLE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
"""docs/protocol.md section 2: a ``request_id`` is 1-64 characters of ``A-Z a-z 0-9 _ . : -``."""


def frame_oracle(body: str | None) -> tuple[str | None, str | None]:
    """What docs/protocol.md (sections 2 and 7) says the frame checks answer, worked out
    without :mod:`naiko_service.protocol`: ``(code, request_id)`` where *code* is
    ``frame_too_large``, ``malformed_json``, ``unknown_action``, or ``None`` for a frame that
    passes them (its reply is then anything but those three), and *request_id* is what the
    reply must echo.

    A frame is a JSON object in UTF-8: no byte-order mark, no ``NaN``/``Infinity``. (A number
    of more than 4,300 digits is refused by Python's parser, so ``malformed_json`` here too.)
    """
    if not body:
        return "malformed_json", None
    try:
        raw = body.encode("utf-8")
    except UnicodeEncodeError:
        return "malformed_json", None
    if len(raw) > DOC_MAX_FRAME_BYTES:
        return "frame_too_large", None
    try:
        data = json.loads(body, parse_constant=_not_json)
    except (ValueError, RecursionError):  # a BOM is a JSONDecodeError for str input
        return "malformed_json", None
    if not isinstance(data, dict) or nesting(data) > DOC_MAX_NESTING or not unicode_only(data):
        return "malformed_json", None
    request_id = data.get("request_id")
    echoed = request_id if isinstance(request_id, str) and _ECHOABLE.fullmatch(request_id) \
        else None
    action = data.get("action")
    return (None if isinstance(action, str) and action in ROUTES else "unknown_action"), echoed


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def nesting(value: Any) -> int:
    """How deep arrays and objects nest in *value* (a scalar is 0, ``[]`` is 1)."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = (list(item.values()) if isinstance(item, dict)
                    else item if isinstance(item, list) else None)
        if children is not None:
            deepest = max(deepest, depth)
            pending += [(child, depth + 1) for child in children]
    return deepest


def unicode_only(value: Any) -> bool:
    """Whether every string of *value* (keys included) is valid Unicode (no lone surrogate)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            pending += item
    return True


def reply_problems(reply: dict[str, Any], body: str | None,
                   refused: tuple[str, str | None] | None) -> list[str]:
    """What is wrong with the *reply* to the frame *body*, which :func:`parse_request`
    *refused* with ``(code, request_id)`` (``None``: it read a request)."""
    problems = []
    got = (reply.get("code"), reply.get("request_id"))
    code, request_id = frame_oracle(body)
    if code is not None and got != (code, request_id):
        problems.append(f"docs/protocol.md says {(code, request_id)}, the reply is {got}")
    if code is None:
        if reply.get("request_id") != request_id:
            problems.append(f"reply request_id {reply.get('request_id')!r} is not the "
                            f"frame's {request_id!r}")
        if reply.get("type") == "error" and reply.get("code") in PARSER_ONLY_CODES:
            problems.append(f"a frame that passes the frame checks got {got}")
    if refused is not None and got != refused:
        problems.append(f"the parser refuses with {refused}, the reply is {got}")
    if reply.get("type") == "error":
        if reply.get("code") not in documented_error_codes():
            problems.append(f"undocumented error code {reply.get('code')!r}")
        if reply.get("code") == "internal_error":
            problems.append("internal_error: the server failed on this frame")
    return problems


def is_reply(message: dict[str, Any]) -> bool:
    """Whether *message* answers a request (the ``snapshot`` after a replayed ``ack`` has
    ``request_id: null`` and does not; an ``update`` does when it carries a request id)."""
    kind = message.get("type")
    if kind in ("update", "chat"):  # chat: R8.9, the speaker's own line is the answer
        return message.get("request_id") is not None
    return kind in REPLY_TYPES and (kind != "snapshot" or message.get("request_id") is not None)


def message_problem(message: dict[str, Any]) -> str | None:
    """Why *message* could not be posted as is: not strict UTF-8 JSON, or not a server
    message of the models."""
    try:
        json.dumps(message, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError) as error:
        return (f"a message is not UTF-8 JSON ({type(error).__name__}: {error}): "
                f"{ascii(message)[:300]}")
    try:
        _MESSAGES.validate_python(message)
    except ValueError as error:
        return f"a message matches no server model: {ascii(message)[:300]} ({error})"
    return None


def log_problems(log: bytes, stderr: str, stdout: str, refused: str | None,
                 connection_id: str) -> list[str]:
    """The logging properties of one invocation (see the module docstring); *refused* is the
    parser's code for a frame it refuses."""
    problems = []
    if "--- Logging error ---" in stderr:
        problems.append(f"a logging error: {stderr[-600:]}")
    records = []
    for line in log.decode("utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            problems.append(f"a log line is not JSON: {line[:200]!r}")
            continue
        if not isinstance(record, dict):
            problems.append(f"a log line is not an object: {line[:200]!r}")
            continue
        records.append(record)
        if record.get("connection_id") != connection_id:
            problems.append(f"a log record without the connection: {line[:200]!r}")
    if refused is not None and not any(r.get("message") == "frame refused"
                                       and r.get("code") == refused for r in records):
        problems.append(f"no 'frame refused' log record for {refused}")
    counted = {name: 0.0 for name in FRAME_COUNTERS}
    documents = 0
    for line in stdout.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            documents += 1
            document = json.loads(line)
            for name in FRAME_COUNTERS:
                counted[name] += sum(document.get(name, [])) if isinstance(
                    document.get(name), list) else float(document.get(name, 0))
    if documents == 0:
        problems.append("no EMF metrics document printed")
    elif sorted(counted.values()) != [0.0] * (len(FRAME_COUNTERS) - 1) + [1.0]:
        problems.append(f"the frame is not counted once: {counted}")
    return problems


def shorten(messages: Sequence[dict[str, Any]], limit: int = 400) -> str:
    text = ascii([{k: v for k, v in m.items() if k not in ("view", "events", "tables")}
                  for m in messages])
    return text if len(text) <= limit else text[:limit] + "..."


# -- strategies -------------------------------------------------------------------------------

NASTY_CHARS = ("\ud800", "\udbff", "\udc00", "\udfff", "\udc80", "\x00", "\x1f", "\x7f",
               "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\ufffe", "\uffff",
               "\U0001f0a1", "\U0010ffff", "\ufb2c", "\u0301", "\\", '"', "/", "\n", "\u2028",
               "e\u0301", "\U0001f469\u200d\U0001f4bb")
"""Lone surrogates (``\\ud800``-``\\udfff``), NUL and controls, bidi overrides and isolates,
zero-width and non-characters, astral characters, a character NFC expands to three
(U+FB2C), combining marks, JSON's own metacharacters."""

any_char = st.characters(codec=None, exclude_categories=[])
"""Any code point, surrogates (category Cs) included."""
nasty_char = st.one_of(st.characters(min_codepoint=0x20, max_codepoint=0x7E), any_char,
                       st.sampled_from([c for c in NASTY_CHARS if len(c) == 1]))
"""Printable ASCII, any code point, or one of :data:`NASTY_CHARS`."""
short_text = st.one_of(st.text(nasty_char, max_size=40),
                       st.sampled_from([c for c in NASTY_CHARS if len(c) > 1]))
long_text = st.builds(lambda chunk, times: (chunk * times)[:40_000],
                      st.text(nasty_char, min_size=1, max_size=3), st.integers(40, 12_000))
json_text = st.one_of(short_text, short_text, short_text, long_text,
                      st.sampled_from(REQUEST_IDS), st.sampled_from(TABLE_IDS),
                      st.sampled_from(TOURNAMENT_IDS),
                      st.sampled_from(ROUTES))

json_number = st.one_of(
    st.integers(-(10**13), 10**13), st.sampled_from([0, -1, 1, 10**12, 10**12 + 1, 2**63,
                                                     -(2**63), 2**64, 10**30]),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 1.0, 100.0,
                                                                       1e308, 5e-324]))
json_scalar = st.one_of(st.none(), st.booleans(), json_number, json_text)
json_value = st.recursive(
    json_scalar,
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(json_text, children, max_size=5)),
    max_leaves=20)
"""Any JSON value (floats include NaN and Infinity, which Python's ``json`` reads and writes)."""


def dump(value: Any, ascii_only: bool) -> str:
    """*value* as JSON text; with *ascii_only* a lone surrogate becomes a ``\\ud800`` escape,
    without it the text itself holds the surrogate."""
    return json.dumps(value, ensure_ascii=ascii_only)


FIELD_NAMES = ("action", "request_id", "table_id", "name", "variant", "seat_count",
               "small_blind", "big_blind", "min_buy_in", "max_buy_in", "decision_seconds",
               "private", "invited", "bots", "buy_in", "seat_index", "amount", "move",
               "power", "target_seat", "card_index", "player_id", "entry", "invite_code",
               "code", "paused", "min_players", "tournament_id", "preset", "entry", "count",
               "limit", "before", "hand_number", "text", "emote", "chat", "platform", "token",
               "cursor",
               "__proto__", "", "request_id ", "Action")

VALID_FRAMES: dict[str, dict[str, Any]] = {
    "create_table": {"name": "Friday", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                     "max_buy_in": 200},
    "list_tables": {},
    "join_table": {"table_id": NLHE_TABLE, "buy_in": 100},
    "leave_table": {"table_id": NAIKO_TABLE},
    "sit_out": {"table_id": NAIKO_TABLE},
    "sit_in": {"table_id": NAIKO_TABLE},
    "add_chips": {"table_id": NAIKO_TABLE, "amount": 50},
    "snapshot": {"table_id": NAIKO_TABLE},
    "unwatch": {"table_id": NAIKO_TABLE},
    "act": {"table_id": NAIKO_TABLE, "move": "fold"},
    "use_power": {"table_id": NAIKO_TABLE, "power": "peek"},
    "shield": {"table_id": NAIKO_TABLE},
    "pass_window": {"table_id": NAIKO_TABLE},
    "choose_entry": {"table_id": NAIKO_TABLE, "entry": "post"},
    "join_waitlist": {"table_id": NAIKO_TABLE},
    "leave_waitlist": {"table_id": NAIKO_TABLE},
    "quick_seat": {"small_blind": 1, "big_blind": 2, "buy_in": 100},
    "get_account": {},
    "invite": {"table_id": NAIKO_TABLE, "player_id": "dave"},
    "uninvite": {"table_id": NAIKO_TABLE, "player_id": "dave"},
    "create_invite_code": {"table_id": NAIKO_TABLE},
    "revoke_invite_code": {"table_id": NAIKO_TABLE},
    "find_table": {"code": "K7M2QX9P"},
    "host_settings": {"table_id": NAIKO_TABLE, "decision_seconds": 30},
    "host_add_bot": {"table_id": NAIKO_TABLE},
    "host_remove": {"table_id": NAIKO_TABLE, "player_id": "bob"},
    "host_pause": {"table_id": NAIKO_TABLE, "paused": True},
    "host_close": {"table_id": NAIKO_TABLE},
    "create_tournament": {"preset": "spin_3max_hyper", "entry": 100},
    "list_tournaments": {},
    "get_tournament": {"tournament_id": SNG_TOURNAMENT},
    "tournament_players": {"tournament_id": SNG_TOURNAMENT},
    "tournament_results": {"tournament_id": SNG_TOURNAMENT},
    "get_standings": {"tournament_id": SNG_TOURNAMENT},
    "register": {"tournament_id": SNG_TOURNAMENT},
    "reenter": {"tournament_id": SNG_TOURNAMENT},
    "unregister": {"tournament_id": SNG_TOURNAMENT},
    "tournament_add_bots": {"tournament_id": SNG_TOURNAMENT},
    "cancel_tournament": {"tournament_id": SNG_TOURNAMENT},
    "hand_history": {"limit": 5},
    "get_hand": {"table_id": NAIKO_TABLE, "hand_number": 1},
    "heartbeat": {},
    # -- table chat (R8.9)
    "chat": {"table_id": NAIKO_TABLE, "text": "nice hand"},
    "emote": {"table_id": NAIKO_TABLE, "emote": "gg"},
    "chat_mute": {"player_id": "alice"},
    "chat_unmute": {"player_id": "alice"},
    # R8.7, R8.8
    "use_time_bank": {"table_id": NAIKO_TABLE},
    "ask_deal": {"table_id": NAIKO_TABLE},
    "accept_deal": {"table_id": NAIKO_TABLE, "offer_id": "41.1700000300000", "split": "icm"},
    "decline_deal": {"table_id": NAIKO_TABLE, "offer_id": "41.1700000300000"},
    "pre_action": {"table_id": NAIKO_TABLE, "kind": "check_fold"},
    "clear_pre_action": {"table_id": NAIKO_TABLE},
    "register_device": {"platform": "fcm", "token": "fKq1:APA91b-token_1"},
    "unregister_device": {"token": "fKq1:APA91b-token_1"},
}
"""A valid frame of every route (``MINIMAL`` of tests/unit/test_protocol.py, on this stack's
tables), besides ``action`` and ``request_id``."""

PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "table_id": st.sampled_from([NAIKO_TABLE, NAIKO_TABLE, NAIKO_TABLE, NLHE_TABLE,
                                 HEADSUP_TABLE, SNG_TABLE, UNKNOWN_TABLE, "", "t" * 65,
                                 "../t"]),
    "tournament_id": st.sampled_from([SNG_TOURNAMENT, SNG_TOURNAMENT, SNG_TOURNAMENT,
                                      HEADSUP_TOURNAMENT, UNKNOWN_TOURNAMENT, "", "u" * 65,
                                      "../u"]),
    "request_id": st.sampled_from(REQUEST_IDS),
    "action": st.sampled_from(ROUTES),
    "name": st.one_of(st.sampled_from(["Friday", " x ", "\u202eevil", "a" * 40, "\ufb2c" * 40,
                                       "e\u0301" * 20, "\U0001f469\u200d\U0001f4bb"]),
                      short_text),
    "variant": st.sampled_from(["NLHE", "PLO", "NAIKO", "naiko", ""]),
    "seat_count": st.integers(0, 12),
    "small_blind": st.integers(0, 50),
    "big_blind": st.integers(0, 100),
    "min_buy_in": st.integers(0, 1000),
    "max_buy_in": st.integers(0, 20_000),
    "decision_seconds": st.integers(0, 130),
    "private": st.booleans(),
    "bots": st.booleans(),
    "deep_stack": st.booleans(),
    "invited": st.lists(st.sampled_from(["mallory", "alice", "bob", "x y", "\u202e", ""]),
                        max_size=3),
    "buy_in": st.sampled_from([1, 39, 40, 100, 199, 200, 500, 1000, 1001, FUNDS, FUNDS + 1]),
    "seat_index": st.integers(-1, 10),
    "amount": st.integers(0, 1200),
    "move": st.sampled_from(["fold", "check", "call", "bet", "raise_to", "all_in", "raise"]),
    "power": st.sampled_from(["peek", "sleeve_swap", "short_anchor", "seal_shield"]),
    "target_seat": st.integers(-1, 10),
    "card_index": st.integers(-1, 2),
    "entry": st.one_of(st.sampled_from(["wait", "post", "dead", ""]),  # join_table's (R7.8)
                       st.sampled_from([0, 1, 50, 100, FUNDS, FUNDS + 1, 10**12,
                                        10**12 + 1])),  # a tournament's entry
    "invite_code": st.sampled_from(["K7M2QX9P", "ABCDEF", "abcdef", "ABC", "A" * 17]),
    "code": st.sampled_from(["K7M2QX9P", "ABCDEF", "abcdef", "ABC", "A" * 17]),
    "player_id": st.sampled_from(["alice", "bob", "carol", "mallory", "dave", "bot-1", "x y",
                                  "\u202e", ""]),
    "paused": st.booleans(),
    "min_players": st.integers(1, 11),
    "preset": st.sampled_from(["spin_3max_hyper", "sng_6max_turbo", "sng_9max_turbo",
                               "sng_headsup_hyper", "mtt_deep", "SPIN", ""]),
    "count": st.integers(0, 11),
    "limit": st.integers(0, 51),
    "before": st.sampled_from(["1700000000000#" + NAIKO_TABLE + "#0000000001",
                               "9999999999999#x#9999999999", "0#t#1", ""]),
    "hand_number": st.integers(0, 3),
    "text": st.one_of(short_text, long_text, st.sampled_from(["gg", " \u202e\n ", "a" * 200,
                                                              "a" * 201, "a " * 200])),
    "emote": st.sampled_from(["gg", "clap", "thumbs_up", "GG", "", "poop"]),
    "chat": st.sampled_from(["on", "apart", "off", "OFF", ""]),
    # R8.7, R8.8
    "time_bank": st.booleans(),
    # R9.16
    "offer_id": st.sampled_from(["41.1700000300000", "1.1", "0.0", "x", "", "1" * 27]),
    "split": st.sampled_from(["icm", "chip_count", "ICM", "equal", ""]),
    "kind": st.sampled_from(["check_fold", "check", "call", "call_any", "fold", "raise", ""]),
    "platform": st.sampled_from(["apns", "apns_sandbox", "fcm", "gcm", "APNS", ""]),
    "token": st.sampled_from(["fKq1:APA91b-token_1", "a1b2" * 16, "t" * 512, "t" * 513,
                              "has space", "\u202e", ""]),
    "section": st.sampled_from(["players", "tables", "PLAYERS", "results", ""]),
    "cursor": st.sampled_from([
        pages.encode("tournament_players", {"t": SNG_TOURNAMENT, "a": "bob"}),
        pages.encode("tournament_results", {"t": SNG_TOURNAMENT, "a": "bob"}),
        pages.encode("standings", {"t": SNG_TOURNAMENT, "b": 1, "i": 100}),
        pages.encode("standings_tables", {"t": SNG_TOURNAMENT, "a": "00001#x"}),
        pages.encode("tables", {"e": True, "c": 1_700_000_000_000, "t": NAIKO_TABLE}),
        pages.encode("tournaments", {"c": 1_700_000_000_000, "t": SNG_TOURNAMENT}),
        pages.encode("tables", {"e": 1, "c": "x", "t": ""}), "bm90LWEtY3Vyc29y", "e30", "",
        "A" * 513]),
}
"""Values near the valid ones, so that mutated frames often reach the use cases."""

wrong_value = st.one_of(
    json_value, st.sampled_from([None, True, False, 0, -1, 1.5, 100.0, 10**12 + 1, 2**64,
                                 float("nan"), "", "100", [], {}, [1], {"a": {"b": [None]}},
                                 "\ud800", "\x00", "\u202e"]))


MODEL_FIELDS: dict[str, tuple[str, ...]] = {
    get_args(model.model_fields["action"].annotation)[0]: tuple(model.model_fields)
    for model in get_args(ClientRequest)}
"""Every field of each route's request model (``action`` and ``request_id`` included)."""


@st.composite
def mutated_frames(draw: st.DrawFn) -> str:
    """A valid frame of a random route, then 0-3 changes: a field of the model set to a value
    near the valid ones (often still valid, so that the frame reaches the use case), or any
    field set to a wrong value (wrong type, float, boolean, huge or negative number, unicode,
    nested object), a field added, a field removed."""
    action = draw(st.sampled_from(ROUTES))
    frame: dict[str, Any] = {"action": action, "request_id": draw(PLAUSIBLE["request_id"]),
                             **VALID_FRAMES[action]}
    if "table_id" in frame:
        frame["table_id"] = draw(st.sampled_from([NAIKO_TABLE, NAIKO_TABLE, NAIKO_TABLE,
                                                  NLHE_TABLE, HEADSUP_TABLE, UNKNOWN_TABLE]))
    if "tournament_id" in frame:
        frame["tournament_id"] = draw(st.sampled_from([SNG_TOURNAMENT, SNG_TOURNAMENT,
                                                       HEADSUP_TOURNAMENT, UNKNOWN_TOURNAMENT]))
    changes = draw(st.sampled_from([0, 1, 1, 1, 2, 2, 3]))
    for _ in range(changes):
        operation = draw(st.sampled_from(["plausible"] * 4 + ["wrong", "add", "remove"]))
        if operation == "remove" and frame:
            frame.pop(draw(st.sampled_from(sorted(frame))))
        elif operation == "add":
            frame[draw(st.one_of(st.sampled_from(FIELD_NAMES), json_text))] = draw(json_value)
        elif operation == "wrong":
            frame[draw(st.sampled_from(sorted(frame) or ["action"]))] = draw(wrong_value)
        else:
            name = draw(st.sampled_from([f for f in MODEL_FIELDS[action] if f != "action"]))
            frame[name] = draw(PLAUSIBLE[name])
    return dump(frame, ascii_only=draw(st.sampled_from([True, True, True, False])))


@st.composite
def json_frames(draw: st.DrawFn) -> str:
    """Arbitrary JSON: any value, or an object with the request fields and arbitrary values."""
    if draw(st.booleans()):
        value = draw(json_value)
    else:
        value = draw(st.dictionaries(st.one_of(st.sampled_from(FIELD_NAMES), json_text),
                                     json_value, max_size=8))
        if draw(st.booleans()):
            value.setdefault("action", draw(st.one_of(st.sampled_from(ROUTES), json_value)))
            value.setdefault("request_id", draw(st.one_of(PLAUSIBLE["request_id"], json_value)))
    text = dump(value, ascii_only=draw(st.booleans()))
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from(TRICKY_JSON))
    elif draw(st.integers(0, 9)) == 0:  # damaged JSON: cut, or padded with stray bytes
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", " ", "\x00", "]", "}", ",", "\ud800"]))
    return text


TRICKY_JSON = (
    '{"action": "act", "request_id": "r1", "table_id": "t1", "move": "bet", "amount": '
    + "9" * 5000 + "}",  # past Python's 4300-digit limit for int()
    '{"action": "list_tables", "request_id": ' + "1" * 4301 + "}",
    '{"action": "act", "request_id": "r1", "table_id": "t1", "move": "bet", "amount": 1e99999}',
    '{"action": "act", "request_id": "r1", "table_id": "t1", "move": "bet", "amount": -0}',
    '{"action": "add_chips", "request_id": "r1", "table_id": "t1", "amount": Infinity}',
    '{"action": "act", "action": "list_tables", "request_id": "r1"}',  # duplicate keys
    '{"action": "list_tables", "request_id": "r1", "request_id": "\\ud800"}',
    '{"action": "list_tables", "request_id": "r1"} {"action": "list_tables"}',  # two values
    '{"action": "list_tables", "request_id": "r1"}\x00',
    '{"action": "list_tables", "request_id": "r1", "x": "\\u0000"}',
    '\ufeff{"action": "list_tables", "request_id": "r1"}',
)
"""Hand-written frames at the edges of Python's ``json``: huge numbers, duplicate keys, two
values, a NUL after the object, a BOM."""

OPENERS = ("[", "{\"a\":", "{\"action\":\"act\",\"x\":", "[{\"k\":[", "[\"]\\\"\",")
"""What a nesting level opens with; the last one puts brackets and an escaped quote inside a
string, which the depth scan must skip."""


@st.composite
def deep_frames(draw: st.DrawFn) -> str:
    """Hundreds to thousands of levels of ``[``/``{``, alone or as a field of a valid frame,
    balanced or not, mostly under the 32 KB frame limit (sometimes just over)."""
    opener = draw(st.sampled_from(OPENERS))
    closer = "".join({"[": "]", "{": "}"}[c] for c in opener if c in "[{")[::-1]
    budget = MAX_FRAME_BYTES - 200
    if draw(st.integers(0, 19)) == 0:
        budget = MAX_FRAME_BYTES + 400  # just over: frame_too_large wins
    most = max(1, budget // (len(opener) + len(closer)))
    depth = draw(st.one_of(st.integers(15, 18), st.integers(100, 1000),
                           st.integers(1000, most)))
    depth = min(depth, most)
    inner = draw(st.sampled_from(["0", "null", "\"\\ud800\"", "\"x\"", "", "[]", "{}"]))
    closing = draw(st.sampled_from(["balanced", "balanced", "none", "half"]))
    tail = {"balanced": closer * depth, "none": "", "half": closer * (depth // 2)}[closing]
    nested = opener * depth + inner + tail
    wrapper = draw(st.sampled_from(["alone", "field", "string"]))
    if wrapper == "alone":
        return nested
    table = draw(PLAUSIBLE["table_id"])
    request_id = draw(PLAUSIBLE["request_id"])
    if wrapper == "string":  # brackets inside a string do not nest
        return json.dumps({"action": "act", "request_id": request_id, "table_id": table,
                           "move": "fold", "note": nested[:budget]})
    field_name = draw(st.sampled_from(["amount", "invited", "table_id", "extra"]))
    return (f'{{"action": "act", "request_id": "{request_id}", "table_id": "{table}", '
            f'"move": "bet", "{field_name}": {nested}}}')


raw_bytes = st.builds(
    lambda prefix, data: prefix + data,
    st.sampled_from([b"", b"", b"{", b'{"action": "act", "request_id": "r1", "x": "',
                     b"\xef\xbb\xbf", b"\xff\xfe{\x00"]),
    st.one_of(st.binary(max_size=300), st.binary(max_size=300), st.builds(
        lambda chunk, size: (chunk * (size // len(chunk) + 1))[:size],
        st.binary(min_size=1, max_size=16), st.integers(MAX_FRAME_BYTES - 600,
                                                         MAX_FRAME_BYTES + 600))))
raw_frames: st.SearchStrategy[bytes | None] = st.builds(
    lambda data, no_body: None if no_body == 0 else data, raw_bytes, st.integers(0, 24))
"""Raw bytes, usually not UTF-8; sometimes behind a JSON-looking prefix or a BOM, sometimes
around the 32 KB limit; now and then no body at all (``None``)."""

fuzzers = st.sampled_from(["mallory", "carol"])
ticks = st.one_of(st.just(0), st.just(0), st.integers(0, 25_000))



AS_TEXT = st.just(Delivery.TEXT)


def framed(kind: str, bodies: st.SearchStrategy[Any],
           deliveries: st.SearchStrategy[Delivery] = AS_TEXT) -> st.SearchStrategy[Frame]:
    """:class:`Frame` s of *bodies*, from either fuzzer, at any time."""
    return st.builds(Frame, body=bodies, fuzzer=fuzzers, delivery=deliveries, tick_ms=ticks,
                     others_act=st.booleans(), kind=st.just(kind))


STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Frame]]] = {
    "raw": lambda: framed("raw", raw_frames, st.sampled_from(
        [Delivery.SURROGATEESCAPE, Delivery.SURROGATEESCAPE, Delivery.LATIN1,
         Delivery.BASE64])),
    "json": lambda: framed("json", json_frames()),
    "deep": lambda: framed("deep", deep_frames()),
    "mutated": lambda: framed("mutated", mutated_frames()),
}
"""The four strategies of issue 10, by name; each makes :class:`Frame` s."""


def frames(kind: str) -> st.SearchStrategy[Frame]:
    """The strategy *kind* (a key of :data:`STRATEGIES`)."""
    return STRATEGIES[kind]()


def mixed_frames() -> st.SearchStrategy[Frame]:
    """A frame of any of the four strategies (each picked with equal chance)."""
    return st.sampled_from(tuple(STRATEGIES)).flatmap(frames)


_LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))


@cache
def _built_world(seed: int) -> FuzzStack:
    """The world of :class:`FuzzStack` for *seed*, set up once; only ever copied."""
    return FuzzStack.built_afresh(seed)


def _copy_world(template: FuzzStack) -> dict[str, Any]:
    """A deep copy of *template*'s attributes: the game handler (a module) and the store's
    :class:`~naiko_service.sealing.Sealer` (one key for every copy, its AES-GCM keys cannot be
    copied) are shared, and every lock of the in-memory adapters is a new, released lock."""
    assert template._logs is None and template.frames_sent == 0, "the template was used"
    saved = {kind: copyreg.dispatch_table.get(kind) for kind in _LOCK_TYPES}
    for kind in _LOCK_TYPES:
        copyreg.pickle(kind, _new_lock_like)
    try:
        shared = (template.handler, template.store.sealer)
        return copy.deepcopy(template.__dict__, {id(item): item for item in shared})
    finally:
        for kind, reducer in saved.items():
            if reducer is None:
                copyreg.dispatch_table.pop(kind, None)
            else:
                copyreg.dispatch_table[kind] = reducer


def _new_lock_like(lock: Any) -> tuple[Callable[[], Any], tuple[()]]:
    return (threading.RLock if isinstance(lock, _LOCK_TYPES[1]) else threading.Lock), ()
