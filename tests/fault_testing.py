"""Fault injection for the table service (issue 10, "the proof"): nothing is lost, whatever fails.

Every port the service uses (store, accounts, connections, gateway, scheduler) is wrapped by a
:class:`Injector`, which numbers every call the service makes. A *session* (complete hands of
NLHE, PLO and NAIKO; joins, leaves, add chips, powers, shields, timeouts, disconnects and
reconnects, the sweep) is played by a deterministic :class:`Driver`: a seeded RNG, a
:class:`~naiko_service.memory.ManualClock`, clients that decide every move from the *stored*
state (read below the faulty wrappers) with :func:`naiko.bots.decide` / :func:`naiko.bots.respond`
on their own seat's view, Step Functions firing the scheduled wake-ups at their time, and the
sweep every minute.

A run replays the session with ONE fault at global call index ``k`` (:class:`Fault`): an
exception before the call, one after it succeeded, a conditional-check conflict, a throttle, a
``GoneException``, a duplicate delivery, or a process crash (:class:`Crash`, a
``BaseException`` no ``except Exception`` of the service catches: the driver ends the
invocation there as Lambda would). The session then goes on: a client whose request got
``internal_error`` or no answer retries once with the same ``request_id``; a timer execution
that failed is retried once (the state machines' ``States.TaskFailed`` retry); a failed sweep
waits for the next minute. Every run must end with (:class:`Broken` names the invariant):

- ``chips``: the ledger identity ``granted = accounts + tables`` (and every balance the sum of
  its ledger entries), checked after EVERY event of the run;
- ``hands``: no hand replaced or lost while in progress, a cancelled hand returns every stack
  to where it was (R8.6), and after the wind-down every hand ever dealt is complete or
  cancelled and no stored table has a hand in progress;
- ``stuck``: during the wind-down (15 minutes, the clock advanced a minute at a time, executions
  fired late or twice, the sweep every minute) no table keeps a timer overdue by more than the
  sweep period;
- ``snapshot``: a player who asks for a snapshot gets the stored version (``seq``, what players
  are told) and exactly :meth:`~naiko_service.usecases.TableService.view` of the stored record
  for its seat: every snapshot answered in the session (a returning player's, R8.3), and every
  connected player's at the end of the session and again after the wind-down.

To stay fast, a recording run keeps a checkpoint of the whole world at the start of every event
(:meth:`Matrix.record`); a run with a fault at call ``k`` restores the checkpoint of the event
holding ``k`` (the prefix is identical by determinism: :func:`check_checkpoints` compares it
with a replay from scratch) and plays the rest. A run whose whole state (stored documents,
accounts and ledger, connections, pending executions, the driver, the random sources) becomes
the recording's at the start of some event stops there (:class:`Converged`): the rest would be
the recording's, whose every check held. Most faults are absorbed within a few events (a retry
with the same request id, a post nobody needed); the others play to the end.
``scripts/fault_matrix.py`` runs every call of every cell; ``tests/service/
test_fault_injection.py`` a sample of each call site's calls per cell (every site of every
cell, one call of each under the ``ci`` profile, three under ``thorough``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar, cast

from naiko import bots
from naiko_local.stack import frame_for
from naiko_service.ledger import Audit, audit
from naiko_service.memory import (
    ManualClock,
    MemoryAccounts,
    MemoryConnections,
    MemoryTableStore,
    MemoryWatchers,
    RecordingGateway,
    RecordingScheduler,
)
from naiko_service.ports import (
    AccountMove,
    Accounts,
    ConcurrentUpdate,
    ConnectionGone,
    Connections,
    Gateway,
    Scheduler,
    TableStore,
    Watchers,
)
from naiko_service.protocol import error_message, parse_request
from naiko_service.records import TableRecord
from naiko_service.usecases import Deps, TableService

T = TypeVar("T")

SWEEP_PERIOD_MS = 60_000
"""The sweep runs every minute (EventBridge)."""

WIND_DOWN_MS = 15 * 60_000
"""After the session: players leave, the clock runs and the sweep runs this long."""

TIMER_RETRY_MS = 2_000
"""The state machines retry a failed ``Fire`` once, 2 s later (``States.TaskFailed``)."""


# -- the faults ------------------------------------------------------------------------------


class Crash(BaseException):
    """The process dies here (out of memory, the Lambda timeout): no ``except Exception`` of
    the service catches it; the driver ends the invocation, as Lambda would."""


class ThrottlingException(Exception):  # noqa: N818 - botocore's name
    """Like botocore's ``ThrottlingException`` (a ``ClientError`` the adapters do not
    translate): the service must treat it as any unexpected error."""


class InjectedError(Exception):
    """An unexpected failure of a call (a read timeout, a 500): before it, or after it
    succeeded (the caller cannot know that it did)."""


class Fault(StrEnum):
    """What happens at the injected call."""

    BEFORE = "before"
    """An exception before the call: the call never happens."""
    AFTER = "after"
    """The call succeeds, then an exception: the caller does not know it succeeded."""
    CONFLICT = "conflict"
    """A conditional-check conflict (:class:`ConcurrentUpdate`) instead of the call."""
    THROTTLE = "throttle"
    """A :class:`ThrottlingException` instead of the call."""
    GONE = "gone"
    """A :class:`ConnectionGone` (API Gateway's 410) instead of the call."""
    DUPLICATE = "duplicate"
    """The call is delivered twice (a post twice, two executions; a write twice, the second
    answering :class:`ConcurrentUpdate` as DynamoDB would)."""
    CRASH = "crash"
    """The process dies at the call: :class:`Crash`."""


def _methods(protocol: type, skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(name for name in vars(protocol)
                 if not name.startswith("_") and callable(getattr(protocol, name))
                 and name not in skip)


PORT_METHODS: dict[str, tuple[str, ...]] = {
    "store": _methods(TableStore),
    "accounts": _methods(Accounts, skip=("grant",)),
    "connections": _methods(Connections),
    "gateway": _methods(Gateway),
    "scheduler": _methods(Scheduler),
}
"""Every method of the five ports (read off :mod:`naiko_service.ports`; ``Accounts.grant`` is
ops, never the service)."""


def faults_for(port: str, method: str) -> tuple[Fault, ...]:
    """The faults that apply to *port*.*method*, in matrix order."""
    faults = [Fault.BEFORE, Fault.AFTER]
    if (port, method) in (("store", "save"), ("store", "create")):
        faults.append(Fault.CONFLICT)
    faults.append(Fault.THROTTLE)
    if port == "gateway":
        faults.append(Fault.GONE)
    if (port, method) in (("gateway", "send"), ("scheduler", "schedule"), ("store", "save")):
        faults.append(Fault.DUPLICATE)
    faults.append(Fault.CRASH)
    return tuple(faults)


KNOWN_FAILURES: dict[tuple[str, str, str], str] = {}
"""(port, method, fault) -> why it fails: real bugs of the service (not of this harness), marked
``xfail(strict=True)`` in the tests until the service is fixed; then remove the entry. Empty: the
last one (``gateway.send`` gone: a returning player's snapshot stale at the stored version,
because a drop of gone connections marked a seated player disconnected without a new version)
is fixed: that drop is announced, and a subscribing snapshot answers with the table as stored
after its own fan-out."""

@dataclass(frozen=True, slots=True)
class Call:
    """One call the service made through a port, as the recording run saw it."""

    index: int
    port: str
    method: str
    event: int
    """The driver's event (one invocation) the call belongs to."""
    site: str
    """The invocation and the chain of use-case functions that made the call."""


class Injector:
    """Numbers every port call; at call :attr:`target` injects :attr:`fault` (once)."""

    def __init__(self) -> None:
        self.count = 0
        self.target: int | None = None
        self.fault: Fault | None = None
        self.injected: tuple[int, str, str] | None = None
        self.recording: list[Call] | None = None
        self.event = 0
        self.label = ""

    def call(self, port: str, method: str, subject: str, action: Callable[[], T]) -> T:
        """Make the call *action* (``port.method`` about *subject*: a table or connection id),
        or inject the fault if this is the target call."""
        index = self.count
        self.count += 1
        if self.recording is not None:
            self.recording.append(Call(index, port, method, self.event, _site(self.label)))
        if index != self.target:
            return action()
        fault = self.fault
        self.injected = (index, port, method)
        where = f"{port}.{method} #{index}"
        if fault is Fault.BEFORE:
            raise InjectedError(f"{where}: failed before the call")
        if fault is Fault.THROTTLE:
            raise ThrottlingException(f"{where}: Rate exceeded")
        if fault is Fault.CONFLICT:
            raise ConcurrentUpdate(subject)
        if fault is Fault.GONE:
            raise ConnectionGone(subject)
        if fault is Fault.CRASH:
            raise Crash(where)
        action()
        if fault is Fault.AFTER:
            raise InjectedError(f"{where}: failed after the call succeeded")
        assert fault is Fault.DUPLICATE, fault
        return action()  # delivered again: its answer (a conflict for a write) is the caller's


def _site(label: str) -> str:
    """The invocation *label* and the use-case functions on the stack, outermost first."""
    names: list[str] = []
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("naiko_service.usecases"):
            name = frame.f_code.co_name
            if not names or names[-1] != name:
                names.append(name)
        frame = frame.f_back  # type: ignore[assignment]
    return label + ":" + ">".join(reversed(names))


class FaultyPort:
    """A port through the injector: every method of :data:`PORT_METHODS` for *port* is
    numbered and may fail; anything else is the real adapter's."""

    def __init__(self, port: str, inner: Any, injector: Injector):
        self._port, self._inner, self._injector = port, inner, injector
        self._methods = frozenset(PORT_METHODS[port])

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self._methods:
            return attr
        port, injector = self._port, self._injector

        def call(*args: Any, **kwargs: Any) -> Any:
            return injector.call(port, name, _subject(args), lambda: attr(*args, **kwargs))

        return call


def _subject(args: tuple[Any, ...]) -> str:
    """The table or connection a call is about (for the errors it may raise)."""
    if args and isinstance(args[0], str):
        return args[0]
    return str(getattr(args[0], "table_id", "")) if args else ""


# -- what every committed write shows ----------------------------------------------------------


class Converged(Exception):  # noqa: N818 - not an error: the run is known to hold from here
    """A run reached exactly the state of the recording at the start of event ``event``: the
    rest is the recording's, whose every check held."""

    def __init__(self, event: int):
        super().__init__(event)
        self.event = event


class Broken(Exception):  # noqa: N818 - an invariant, not an error of the code under test
    """An invariant does not hold: ``invariant`` is ``chips``, ``hands``, ``stuck`` or
    ``snapshot``."""

    def __init__(self, invariant: str, detail: str):
        super().__init__(f"{invariant}: {detail}")
        self.invariant = invariant
        self.detail = detail


@dataclass
class HandWatch:
    """Every committed table write, seen below the faults: each hand's fate, and R8.6."""

    hands: dict[str, dict[int, str]] = field(default_factory=dict)
    """table_id -> hand number -> ``open``, ``done`` or ``cancelled``."""
    problems: list[str] = field(default_factory=list)

    def committed(self, record: TableRecord) -> None:
        seen = self.hands.setdefault(record.table_id, {})
        hand = record.state.hand
        number = hand.number if hand is not None else 0
        for other, status in seen.items():
            if status == "open" and other != number:
                if hand is None and record.hands_closed >= other:
                    seen[other] = "cancelled"  # the fallback: the hand cancelled, none left
                else:
                    self.problems.append(f"table {record.table_id} v{record.version}: hand "
                                         f"{other} was replaced while in progress")
                    seen[other] = "lost"
        if hand is None:
            return
        before = seen.get(number)
        status = "cancelled" if hand.cancelled else "done" if hand.complete else "open"
        if before in ("done", "cancelled") and status != before:
            self.problems.append(f"table {record.table_id} v{record.version}: hand {number} "
                                 f"went from {before} to {status}")
        seen[number] = status
        if status == "cancelled" and before != "cancelled":
            for index, seat in enumerate(record.state.seats):  # R8.6: every stack as before
                if (seat is not None and hand.dealt[index]
                        and hand.player_ids[index] == seat.player_id
                        and seat.stack != hand.starting_stacks[index]):
                    self.problems.append(
                        f"table {record.table_id} v{record.version}: hand {number} cancelled "
                        f"but seat {index} has {seat.stack}, not {hand.starting_stacks[index]}")

    def copy(self) -> HandWatch:
        return HandWatch({t: dict(h) for t, h in self.hands.items()}, list(self.problems))


class ObservedStore:
    """The real store, telling a :class:`HandWatch` about every committed write."""

    def __init__(self, inner: TableStore, watch: HandWatch):
        self._inner, self._watch = inner, watch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def create(self, record: TableRecord, moves: tuple[AccountMove, ...] = ()) -> None:
        self._inner.create(record, moves)
        self._watch.committed(record)

    def save(self, record: TableRecord, expected_version: int,
             moves: tuple[AccountMove, ...] = ()) -> None:
        self._inner.save(record, expected_version, moves)
        self._watch.committed(record)


# -- the world the service runs in -------------------------------------------------------------


class Backend:
    """The real adapters (below the faults) and what the driver reads directly from them.
    Subclasses: :class:`MemoryBackend`, and the moto one in the integration test."""

    store: TableStore
    accounts: Accounts
    connections: Connections
    watchers: Watchers
    gateway: Gateway
    scheduler: RecordingScheduler
    clock: ManualClock

    def grant(self, player_id: str, chips: int) -> None:
        raise NotImplementedError

    def delivered(self, connection_id: str) -> Sequence[dict[str, Any]]:
        """Every message delivered to the connection so far, in order."""
        raise NotImplementedError

    def close(self, connection_id: str) -> None:
        """The client closed the connection: API Gateway answers 410 from now on."""
        raise NotImplementedError

    def read(self, table_id: str) -> TableRecord | None:
        """The stored table, read directly (never through the faults)."""
        raise NotImplementedError

    def audit(self) -> Audit:
        raise NotImplementedError

    def snapshot(self) -> Any:
        """Everything stored, to :meth:`restore` later (``None``: not supported)."""
        return None

    def fingerprint(self, table_ids: Iterable[str]) -> Any:
        """What the rest of a session depends on, as plain data (``None``: not supported)."""
        return None

    def restore(self, snapshot: Any) -> None:
        raise NotImplementedError


class MemoryBackend(Backend):
    """The in-memory adapters of :mod:`naiko_service.memory`."""

    def __init__(self) -> None:
        self.memory_accounts = MemoryAccounts()
        self.memory_store = MemoryTableStore(accounts=self.memory_accounts)
        self.memory_connections = MemoryConnections()
        self.memory_watchers = MemoryWatchers()
        """Spectators' items (issue 23 item 3): not a faulty port of the matrix (the worker
        posts in this process), but part of every snapshot and fingerprint."""
        self.recording_gateway = RecordingGateway()
        self.store = self.memory_store
        self.accounts = self.memory_accounts
        self.connections = self.memory_connections
        self.watchers = self.memory_watchers
        self.gateway = self.recording_gateway
        self.scheduler = RecordingScheduler()
        self.clock = ManualClock()
        self._opened: dict[str, tuple[bytes, TableRecord]] = {}
        self._audited: tuple[Any, Any, Audit] | None = None
        self._digests: dict[str, tuple[bytes, str]] = {}

    def grant(self, player_id: str, chips: int) -> None:
        self.memory_accounts.grant(player_id, chips, ref="ops", at_ms=self.clock.now)

    def delivered(self, connection_id: str) -> Sequence[dict[str, Any]]:
        return self.recording_gateway.sent.get(connection_id, [])

    def close(self, connection_id: str) -> None:
        self.recording_gateway.gone.add(connection_id)

    def read(self, table_id: str) -> TableRecord | None:
        item = self.memory_store._items.get(table_id)
        if item is None:
            return None
        cached = self._opened.get(table_id)
        if cached is not None and cached[0] is item.blob:
            return cached[1]
        record = TableRecord.from_document(
            table_id, item.version, self.memory_store.sealer.open(item.blob, table_id))
        self._opened[table_id] = (item.blob, record)
        return record

    def audit(self) -> Audit:
        """``MemoryTableStore.audit()``, each stored table opened once per write and the sum
        taken again only when something it adds up changed (the same sum: :meth:`check_audit`
        compares the two)."""
        store = self.memory_store
        chips = {}
        for table_id in list(store._items):
            record = self.read(table_id)
            if record is not None and getattr(record, "tournament", None) is None:
                chips[table_id] = record.state.total_chips()
        tournaments = getattr(store, "tournaments", None)
        held = {} if tournaments is None else tournaments.pools()
        ledger = self.memory_accounts.ledger
        balances = dict(self.memory_accounts.balances)
        key = (id(ledger), len(ledger), sorted(balances.items()), sorted(chips.items()),
               sorted(held.items()))
        if self._audited is None or self._audited[0] != key or self._audited[1] is not ledger:
            self._audited = (key, ledger, audit(balances, list(ledger), chips, held))
        return self._audited[2]

    def check_audit(self) -> None:
        """The cached :meth:`audit` is the store's own."""
        assert self.audit() == self.memory_store.audit(), (self.audit(),
                                                            self.memory_store.audit())

    def fingerprint(self, table_ids: Iterable[str]) -> Any:
        """The stored documents (not the sealed bytes: every seal has a fresh nonce), the
        accounts and ledger, the connections, the gone connections, the clock. Not the
        messages delivered so far: nothing that follows depends on them."""
        tables = {}
        for table_id in table_ids:
            item = self.memory_store._items.get(table_id)
            if item is not None:
                tables[table_id] = _document_digest(self, table_id, item.blob)
        accounts = _data_of(self.memory_accounts)
        ledger = accounts.pop("ledger", [])
        return (tables, accounts, _ledger_digest(ledger), _data_of(self.memory_connections),
                _data_of(self.memory_watchers), sorted(self.recording_gateway.gone),
                self.scheduler.scheduled, self.clock.now)

    def snapshot(self) -> Any:
        return (_capture(self.memory_store), _capture(self.memory_accounts),
                _capture(self.memory_connections), _capture(self.memory_watchers),
                _capture(self.recording_gateway), _capture(self.scheduler), self.clock.now)

    def restore(self, snapshot: Any) -> None:
        store, accounts, connections, watchers, gateway, scheduler, now = snapshot
        _apply(self.memory_store, store)
        _apply(self.memory_accounts, accounts)
        _apply(self.memory_connections, connections)
        _apply(self.memory_watchers, watchers)
        _apply(self.recording_gateway, gateway)
        _apply(self.scheduler, scheduler)
        self.clock.now = now


_DATA = (dict, list, set, tuple, int, float, str, bytes, bool, type(None))


def _capture(adapter: Any) -> dict[str, Any]:
    """An in-memory adapter's state (its attributes holding data, not its locks, keys or the
    other adapters it uses), copied. The messages a gateway delivered are never changed:
    their lists are copied, not them."""
    state: dict[str, Any] = {}
    for name, value in vars(adapter).items():
        if not isinstance(value, _DATA) or name in ("reads", "writes"):
            continue
        if name == "sent" and isinstance(value, dict):
            state[name] = {k: list(v) for k, v in value.items()}
        else:
            state[name] = _copy(value)
    return state


def _copy(value: Any) -> Any:
    """A deep copy that shares what cannot change (atoms, frozen dataclasses)."""
    if isinstance(value, (int, float, str, bytes, bool, type(None))):
        return value
    params = getattr(type(value), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return value
    if type(value) is list:
        return [_copy(v) for v in value]
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is defaultdict:
        return defaultdict(value.default_factory, {k: _copy(v) for k, v in value.items()})
    if type(value) in (set, tuple):
        return type(value)(_copy(v) for v in value)
    return copy.deepcopy(value)


def _document_digest(backend: MemoryBackend, table_id: str, blob: bytes) -> str:
    """The digest of a stored table's document (and version), once per write."""
    cached = backend._digests.get(table_id)
    if cached is not None and cached[0] is blob:
        return cached[1]
    record = backend.read(table_id)
    assert record is not None
    text = json.dumps((record.version, record.to_document()), sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    backend._digests[table_id] = (blob, digest)
    return digest


_LEDGERS: dict[int, tuple[list[Any], int, Any]] = {}
"""id(ledger list) -> (the list, entries hashed, the running hash): a ledger only grows."""


def _ledger_digest(ledger: list[Any]) -> str:
    cached = _LEDGERS.get(id(ledger))
    if cached is None or cached[0] is not ledger or cached[1] > len(ledger):
        if len(_LEDGERS) > 1_000:
            _LEDGERS.clear()
        cached = (ledger, 0, hashlib.sha256())
    _, done, running = cached
    for entry in ledger[done:]:
        running.update(repr(entry).encode())
    _LEDGERS[id(ledger)] = (ledger, len(ledger), running)
    return str(running.copy().hexdigest())


def _canonical(value: Any) -> Any:
    """JSON for what ``json`` cannot write, the same whatever the hash seed (sets sorted)."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def _data_of(adapter: Any) -> dict[str, Any]:
    """An in-memory adapter's data attributes (not copied: for a fingerprint)."""
    return {name: value for name, value in vars(adapter).items()
            if isinstance(value, _DATA) and name not in ("reads", "writes")}


def _apply(adapter: Any, state: dict[str, Any]) -> None:
    """Put back a state :func:`_capture` took (copied again: a checkpoint serves many runs)."""
    for name, value in state.items():
        if name == "sent":
            setattr(adapter, name, defaultdict(list, {k: list(v) for k, v in value.items()}))
        else:
            setattr(adapter, name, _copy(value))


# -- the session -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Move:
    """What the script wants next: a client frame (``send``), ``connect``, ``disconnect``
    (with ``$disconnect``), ``drop`` (the connection closes, ``$disconnect`` lost) or
    ``wait`` (nothing: let the clock run to the next timer or sweep)."""

    kind: str
    player: str = ""
    frame: dict[str, Any] | None = None
    tag: str = ""


WAIT = Move("wait")


@dataclass
class Client:
    """A player's app: its connection, its request ids, the tables it plays or watches."""

    player_id: str
    connection_id: str | None = None
    connections_made: int = 0
    requests: int = 0
    tables: list[str] = field(default_factory=list)

    def new_request_id(self) -> str:
        self.requests += 1
        return f"{self.player_id}-r{self.requests}"

    def copy(self) -> Client:
        return Client(self.player_id, self.connection_id, self.connections_made, self.requests,
                      list(self.tables))


@dataclass(frozen=True, slots=True)
class Execution:
    """A Step Functions wake-up: fires ``(table_id, token)`` at ``fire_at``."""

    fire_at: int
    seq: int
    table_id: str
    token: str
    kind: str
    attempt: int = 0


@dataclass
class DriverState:
    """Everything the driver keeps between events (copied into checkpoints)."""

    rng: random.Random
    clients: dict[str, Client]
    next_sweep: int
    cursor: int = 0
    step: dict[str, Any] = field(default_factory=dict)
    slots: dict[str, str] = field(default_factory=dict)
    """The script's table names -> table ids."""
    tables: list[str] = field(default_factory=list)
    """Every table id a create may have made, in order."""
    executions: list[Execution] = field(default_factory=list)
    seq: int = 0
    move_at: int | None = None
    retry: tuple[str, dict[str, Any], str] | None = None
    """A request to send again once, with the same request id: (player, frame, request_id)."""
    events: int = 0
    late_rng: random.Random | None = None
    """In the wind-down: executions fire late, and some twice."""

    def copy(self) -> DriverState:
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return DriverState(rng, {k: c.copy() for k, c in self.clients.items()},
                           self.next_sweep, self.cursor, json.loads(json.dumps(self.step)),
                           dict(self.slots), list(self.tables), list(self.executions),
                           self.seq, self.move_at,
                           None if self.retry is None else (self.retry[0], dict(self.retry[1]),
                                                            self.retry[2]),
                           self.events, None)


class Step:
    """One line of the script. :meth:`plan` says what to do next from the stored state, or
    ``None`` when the step is over; :meth:`done` is told what a performed move got."""

    budget = 24
    """Moves this step may make at most (a session that a fault sent elsewhere goes on)."""
    time_limit = 15 * 60_000
    """Simulated time this step may last at most (a table that does not move on is left)."""

    def plan(self, d: Driver) -> Move | None:
        raise NotImplementedError

    def done(self, d: Driver, move: Move, reply: dict[str, Any] | None) -> None:
        d.state.step["attempts"] = d.state.step.get("attempts", 0) + 1
        key = f"attempts:{move.player}"
        d.state.step[key] = d.state.step.get(key, 0) + 1


@dataclass(frozen=True)
class Connect(Step):
    """The player (``*``: every player without one) opens a connection (``$connect``),
    trying up to three times."""

    player: str

    def plan(self, d: Driver) -> Move | None:
        for player in d.players(self.player):
            if d.state.clients[player].connection_id is None and d.attempts(player) < 3:
                return Move("connect", player)
        return None


@dataclass(frozen=True)
class Create(Step):
    """*host* creates the table named *slot*: again with a new request id while no table
    exists for it (at most three times)."""

    host: str
    slot: str
    variant: str

    def plan(self, d: Driver) -> Move | None:
        table_id = d.state.slots.get(self.slot)
        if table_id is not None and d.backend.read(table_id) is not None:
            return None
        if d.state.step.get("attempts", 0) >= 3 or not d.connected(self.host):
            return None
        return Move("send", self.host, {
            "action": "create_table", "name": self.slot, "variant": self.variant,
            "small_blind": 1, "big_blind": 2, "min_buy_in": 40, "max_buy_in": 400},
            tag=self.slot)


@dataclass(frozen=True)
class Join(Step):
    """The player sits down with *buy_in* (again with a new request id if not seated)."""

    player: str
    slot: str
    buy_in: int = 200

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is None or record.seat_of(self.player) is not None:
            return None
        if d.state.step.get("attempts", 0) >= 2 or not d.connected(self.player):
            return None
        return Move("send", self.player, {"action": "join_table", "table_id": record.table_id,
                                          "buy_in": self.buy_in})


@dataclass(frozen=True)
class QuickSeat(Step):
    """The player asks the room for a seat at a table of this game (R7.10): the table named
    *slot*, unless the room chooses (or opens) another."""

    player: str
    slot: str
    variant: str
    buy_in: int = 200

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is not None and record.seat_of(self.player) is not None:
            return None
        if d.state.step.get("attempts", 0) >= 2 or not d.connected(self.player):
            return None
        return Move("send", self.player, {"action": "quick_seat", "variant": self.variant,
                                          "small_blind": 1, "big_blind": 2,
                                          "buy_in": self.buy_in})


@dataclass(frozen=True)
class Leave(Step):
    """The player leaves (at once between hands; folds at its turn and goes when the hand
    ends during one)."""

    player: str
    slot: str

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is None or record.seat_of(self.player) is None \
                or f"leave:{self.player}" in record.sit_out_after_hand:
            return None
        if d.state.step.get("attempts", 0) >= 2 or not d.connected(self.player):
            return None
        return Move("send", self.player, {"action": "leave_table",
                                          "table_id": record.table_id})


@dataclass(frozen=True)
class AddChips(Step):
    """The player reloads *amount* between hands (R7.1): one request."""

    player: str
    slot: str
    amount: int

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is None or record.seat_of(self.player) is None:
            return None
        if d.state.step.get("attempts", 0) >= 1 or not d.connected(self.player):
            return None
        return Move("send", self.player, {"action": "add_chips", "table_id": record.table_id,
                                          "amount": self.amount})


@dataclass(frozen=True)
class SitIn(Step):
    """The player (``*``: every player) sitting out is dealt in again."""

    player: str
    slot: str

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is None:
            return None
        for player in d.players(self.player):
            seat = record.seat_of(player)
            state_seat = None if seat is None else record.state.seats[seat]
            if (state_seat is not None and d.connected(player) and d.attempts(player) < 2
                    and (state_seat.sitting_out or player in record.sit_out_after_hand)):
                return Move("send", player, {"action": "sit_in", "table_id": record.table_id})
        return None


@dataclass(frozen=True)
class SitOut(Step):
    """The player stops being dealt in (R7.9)."""

    player: str
    slot: str

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        seat = None if record is None else record.seat_of(self.player)
        if record is None or seat is None:
            return None
        state_seat = record.state.seats[seat]
        if state_seat is None or state_seat.sitting_out:
            return None
        if d.state.step.get("attempts", 0) >= 2 or not d.connected(self.player):
            return None
        return Move("send", self.player, {"action": "sit_out", "table_id": record.table_id})


@dataclass(frozen=True)
class Lobby(Step):
    """The player lists the open tables: one request."""

    player: str

    def plan(self, d: Driver) -> Move | None:
        if d.state.step.get("attempts", 0) >= 1 or not d.connected(self.player):
            return None
        return Move("send", self.player, {"action": "list_tables"})


@dataclass(frozen=True)
class Subscribe(Step):
    """The player (back on a new connection) asks for a snapshot: it watches the table again
    and is no longer marked disconnected (R8.3)."""

    player: str
    """``*``: every player seated at the table."""
    slot: str

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is None:
            return None
        for player in d.players(self.player):
            connection_id = d.state.clients[player].connection_id
            if (connection_id is not None and d.attempts(player) < 2
                    and (self.player != "*" or record.seat_of(player) is not None)
                    and (record.connections.get(player) != connection_id
                         or player in record.disconnected)):
                return Move("send", player, {"action": "snapshot",
                                             "table_id": record.table_id})
        return None


@dataclass(frozen=True)
class Close(Step):
    """The player's connection closes, with ``$disconnect`` (``lost=False``) or without it."""

    player: str
    lost: bool = False

    def plan(self, d: Driver) -> Move | None:
        if not d.connected(self.player) or d.state.step.get("attempts", 0) >= 1:
            return None
        return Move("drop" if self.lost else "disconnect", self.player)


@dataclass(frozen=True)
class Play(Step):
    """Play the table until hand *until* is over: each client on turn decides from its own
    view (:func:`naiko.bots.decide`), each Shield window aimed at a client is answered
    (:func:`naiko.bots.respond`), and the clock decides for whoever does not act.

    :param slow: ``(player, hand)``: the player lets every clock of that hand run out (R8.1).
    :param close_on_turn: ``(player, hand, lost)``: on its first turn of that hand the player's
        (``*``: the first client on turn's) connection closes instead (with ``$disconnect``
        unless *lost*; R8.2).
    :param leave_in: ``(player, hand)``: the player leaves during that hand.
    :param quit_in: Hands in which the first client on turn with chips in the pot folds and
        leaves at once (its chips stay in the pot), and every other client then lets its clock
        run out: a hand that a failure cancels then owes the one who left a refund (R8.6).
    :param anchor: Hands in which a client on turn who may aims a Short Anchor (R6.3).
    :param silent: Hands in which Shield windows are left to time out (R6.5).
    :param shield: Hands in which a client a window is aimed at shields when it can.
    :param thrifty: Hands in which clients use no power but the scripted Anchor (they keep
        their destellos for it).
    """

    slot: str
    until: int
    slow: tuple[tuple[str, int], ...] = ()
    close_on_turn: tuple[tuple[str, int, bool], ...] = ()
    leave_in: tuple[tuple[str, int], ...] = ()
    quit_in: tuple[int, ...] = ()
    anchor: tuple[int, ...] = ()
    silent: tuple[int, ...] = ()
    shield: tuple[int, ...] = ()
    thrifty: tuple[int, ...] = ()
    budget = 400

    def plan(self, d: Driver) -> Move | None:
        record = d.table(self.slot)
        if record is None or record.closed:
            return None
        state = record.state
        hand = state.hand
        if state.hand_count > self.until or (state.hand_count == self.until
                                             and not state.hand_in_progress):
            return None
        done = d.state.step.setdefault("done", [])
        if hand is None or hand.complete:
            for index, seat in enumerate(state.seats):  # R7.1: a busted player reloads
                tag = f"reload:{index}:{state.hand_count}"
                if (seat is not None and seat.stack == 0 and tag not in done
                        and d.connected(seat.player_id)):
                    return Move("send", seat.player_id, {
                        "action": "add_chips", "table_id": record.table_id,
                        "amount": record.settings.min_buy_in * 4}, tag=tag)
            return WAIT  # the pause: the next hand deals itself
        number = hand.number
        if number in self.quit_in:
            move = self._quit(d, record, done)
            if move is not None:
                return move
        for player, at in self.leave_in:
            tag = f"leave:{player}:{at}"
            if at == number and tag not in done and d.connected(player) \
                    and record.seat_of(player) is not None:
                return Move("send", player, {"action": "leave_table",
                                             "table_id": record.table_id}, tag=tag)
        windows = [] if hand.powers is None else [w.target for w in hand.powers.windows]
        if number not in self.silent:
            for target in windows:
                move = self._respond(d, record, target, number in self.shield)
                if move is not None:
                    return move
        if hand.actor is None or hand.actor in windows:
            return WAIT  # a silent target lets its window time out before it acts
        seat = state.seats[hand.actor]
        if seat is None:
            return WAIT
        player = seat.player_id
        for who, at, lost in self.close_on_turn:
            tag = f"close:{who}:{at}"
            if who in (player, "*") and at == number and tag not in done \
                    and d.connected(player):
                return Move("drop" if lost else "disconnect", player, tag=tag)
        if not d.connected(player) or (player, number) in self.slow \
                or player not in d.state.clients \
                or any(tag.startswith(f"quit:{number}:") for tag in done):
            return WAIT
        view = d.service.view(record, hand.actor)
        prompt = view["prompt"]
        tag = f"anchor:{number}"
        if (number in self.anchor and tag not in done and prompt is not None
                and "short_anchor" in prompt.get("powers", ())
                and prompt.get("anchor_targets")):
            # With Seal Shield in the Carousel, only at a target that can pay for it (a
            # response window opens); without it, at anyone (the Anchor applies at once).
            targets = list(prompt["anchor_targets"])
            if "seal_shield" in view["hand"]["powers"]["carousel"]:
                targets = [t for t in targets
                           if (view["seats"][t] or {}).get("destellos", 0) >= 1]
            if targets:
                return Move("send", player, {"action": "use_power",
                                             "table_id": record.table_id,
                                             "power": "short_anchor", "target_seat": targets[0]},
                            tag=tag)
        if number in self.thrifty and prompt is not None and prompt.get("powers"):
            view = {**view, "prompt": {**prompt, "powers": [], "anchor_targets": []}}
        command = d.decide(view, record, bots.decide)
        if command is None:
            return WAIT
        return Move("send", player, frame_for(command, record.table_id))

    def _quit(self, d: Driver, record: TableRecord, done: list[str]) -> Move | None:
        hand = record.state.hand
        assert hand is not None
        quitter = next((tag.split(":")[2] for tag in done
                        if tag.startswith(f"fold:{hand.number}:")), None)
        if quitter is None:
            actor = hand.actor
            seat = None if actor is None else record.state.seats[actor]
            if actor is None or seat is None or hand.committed[actor] == 0 \
                    or not d.connected(seat.player_id):
                return None
            return Move("send", seat.player_id, {"action": "act", "move": "fold",
                                                 "table_id": record.table_id},
                        tag=f"fold:{hand.number}:{seat.player_id}")
        tag = f"quit:{hand.number}:{quitter}"
        if tag in done or record.seat_of(quitter) is None or not d.connected(quitter):
            return None
        return Move("send", quitter, {"action": "leave_table", "table_id": record.table_id},
                    tag=tag)

    def _respond(self, d: Driver, record: TableRecord, target: int,
                 shield: bool) -> Move | None:
        seat = record.state.seats[target]
        if seat is None or not d.connected(seat.player_id):
            return None
        view = d.service.view(record, target)
        if shield and view["hand"]["powers"]["can_shield"]:
            return Move("send", seat.player_id, {"action": "shield",
                                                 "table_id": record.table_id})
        command = d.decide(view, record, bots.respond)
        if command is None:
            return None
        return Move("send", seat.player_id, frame_for(command, record.table_id))

    def done(self, d: Driver, move: Move, reply: dict[str, Any] | None) -> None:
        if move.tag:
            d.state.step.setdefault("done", []).append(move.tag)


@dataclass(frozen=True)
class Idle(Step):
    """Nobody does anything for *ms* (timers and the sweep run)."""

    ms: int
    time_limit = 24 * 60 * 60_000

    def plan(self, d: Driver) -> Move | None:
        until = d.state.step.setdefault("until", d.backend.clock.now + self.ms)
        return WAIT if d.backend.clock.now < until else None


@dataclass(frozen=True)
class Script:
    """A session: its players (each granted *chips*) and its steps."""

    players: tuple[str, ...]
    steps: tuple[Step, ...]
    chips: int = 2_000
    seed: int = 1
    rounds: int = 1
    """How many times the tables' part of the script is played (longer sessions)."""


def standard_script(seed: int = 1, rounds: int = 1) -> Script:
    """The session of the suite: complete hands of NLHE, PLO and NAIKO; joins (one in the
    middle of a hand), leaves (one in the middle of a hand), add chips, powers and Shield
    windows (answered, and left to time out), timeouts, a disconnect on turn and a connection
    lost without ``$disconnect``, reconnects, and the sweep (every minute throughout)."""
    steps: list[Step] = [Connect(p) for p in "abcd"]
    for r in range(rounds):
        n, p, k = f"nlhe{r}", f"plo{r}", f"naiko{r}"
        steps += [
            Create("a", n, "NLHE"), Join("a", n), Join("b", n), Join("c", n),
            Play(n, 1, slow=(("c", 1),)),
            Join("d", n),
            Play(n, 2, quit_in=(2,)),
            AddChips("c", n, 100), SitOut("d", n),
            Play(n, 3),
            SitIn("d", n), Leave("a", n), Leave("c", n), Leave("d", n),
            Create("b", p, "PLO"), Lobby("d"), Join("b", p), Join("a", p),
            QuickSeat("d", p, "PLO"),
            Play(p, 2, close_on_turn=(("*", 2, False),)),
            Connect("*"), Subscribe("*", p), SitIn("*", p),
            Play(p, 3, slow=(("b", 3),)),
            Leave("a", p), Leave("b", p), Leave("d", p),
            Create("c", k, "NAIKO"), Join("c", k), Join("a", k), Join("b", k), Join("d", k),
            Play(k, 3, anchor=(2, 3), silent=(3,), thrifty=(1, 2, 3)),
            Play(k, 4, anchor=(4,), shield=(4,), close_on_turn=(("*", 4, True),)),
            Connect("*"), Subscribe("*", k), SitIn("*", k),
            Play(k, 5),
        ]
        if r + 1 < rounds:
            steps += [Leave(x, k) for x in "abcd"] + [Idle(11 * 60_000)]
    return Script(("a", "b", "c", "d"), tuple(steps), seed=seed, rounds=rounds)


def small_script(seed: int = 1) -> Script:
    """A shorter session (the moto test): one NAIKO table, 3 players, a Short Anchor, a
    disconnect on turn and a reconnect, a connection lost without ``$disconnect``, add chips,
    a leave during a hand."""
    return Script(("a", "b", "c"), (
        Connect("a"), Connect("b"), Connect("c"),
        Create("a", "k", "NAIKO"), Join("a", "k"), Join("b", "k"), Join("c", "k"),
        Play("k", 2, anchor=(2,), close_on_turn=(("*", 2, False),)),
        Connect("*"), Subscribe("*", "k"), SitIn("*", "k"),
        AddChips("c", "k", 50),
        Play("k", 3, close_on_turn=(("*", 3, True),)),
        Connect("*"), Subscribe("*", "k"), SitIn("*", "k"),
        Play("k", 4, leave_in=(("a", 4),)),
    ), seed=seed)


# -- the driver ---------------------------------------------------------------------------------


_DECISIONS: dict[str, Any] = {}
"""decide()/respond() answers by (view, seed): a replayed session asks the same questions."""


class Driver:
    """Plays a :class:`Script` against the service, one event (one invocation) at a time,
    deciding every move from the stored state."""

    def __init__(self, backend: Backend, script: Script, injector: Injector | None = None):
        self.backend = backend
        self.script = script
        self.injector = injector or Injector()
        self.watch = HandWatch()
        inj = self.injector
        self.service_rng = random.Random(f"service-{script.seed}")
        self.secret_rng = random.Random(f"secrets-{script.seed}")  # R10.2 deck seeds
        self.counters: Counter[str] = Counter()
        deps = Deps(
            tables=cast(TableStore, FaultyPort("store", ObservedStore(backend.store, self.watch),
                                               inj)),
            accounts=cast(Accounts, FaultyPort("accounts", backend.accounts, inj)),
            connections=cast(Connections, FaultyPort("connections", backend.connections, inj)),
            gateway=cast(Gateway, FaultyPort("gateway", backend.gateway, inj)),
            scheduler=cast(Scheduler, FaultyPort("scheduler", backend.scheduler, inj)),
            clock=backend.clock, rng=self.service_rng, count=self._count,
            secret_bytes=self.secret_rng.randbytes,
            warn=lambda message, fields: None,
            pause=lambda seconds: backend.clock.advance(int(seconds * 1000)),  # simulated
            watchers=backend.watchers,
            parallel_fan_out=False)  # every call numbered in a deterministic order
        self.service = TableService(deps)
        self.phase = "the session"
        """Where the run is (for the reports)."""
        self.trace: list[str] | None = None
        """When a list: every move performed, for reading a run."""
        self.checkpoints: list[Any] | None = None
        self.fingerprints: dict[str | None, int] | None = None
        self.converge: tuple[dict[str | None, int], int] | None = None
        """(fingerprints of the recording's events, the event after which to stop looking):
        a run whose state becomes one of the recording's stops there (:class:`Converged`)."""
        start = backend.clock.now
        self.state = DriverState(
            rng=random.Random(f"driver-{script.seed}"),
            clients={p: Client(p) for p in script.players},
            next_sweep=start - start % SWEEP_PERIOD_MS + SWEEP_PERIOD_MS)
        for player in script.players:
            backend.grant(player, script.chips)

    def _count(self, name: str, value: int) -> None:
        self.counters[name] += value

    # -- checkpoints ---------------------------------------------------------------------

    def checkpoint(self) -> Any:
        return (self.backend.snapshot(), self.state.copy(), self.watch.copy(),
                self.service_rng.getstate(), self.injector.count, self.secret_rng.getstate())

    def restore(self, checkpoint: Any) -> None:
        backend, state, watch, rng_state, count, secret_state = checkpoint
        self.backend.restore(backend)
        self.state = state.copy()
        self.watch.hands = watch.copy().hands
        self.watch.problems = list(watch.problems)
        self.service_rng.setstate(rng_state)
        self.secret_rng.setstate(secret_state)
        self.injector.count = count

    def fingerprint(self) -> str | None:
        """A digest of everything the rest of the session depends on (the world, the driver,
        the service's random source, what the hand watch saw); ``None`` if the backend cannot
        say. Two runs with the same fingerprint at the start of an event go on identically."""
        world = self.backend.fingerprint(self.state.tables)
        if world is None:
            return None
        s = self.state
        driver = (s.rng.getstate(), sorted((p, c.connection_id, c.connections_made, c.requests,
                                            c.tables) for p, c in s.clients.items()),
                  s.next_sweep, s.cursor, s.step, s.slots, s.tables,
                  [(e.fire_at, e.table_id, e.token, e.kind, e.attempt)
                   for e in sorted(s.executions, key=lambda e: (e.fire_at, e.seq))],
                  s.move_at, s.retry)
        plain = json.dumps((world, driver, self.service_rng.getstate(), self.secret_rng.getstate(),
                            self.watch.hands,
                            self.watch.problems), sort_keys=True, default=_canonical)
        return hashlib.sha256(plain.encode()).hexdigest()

    # -- reading -------------------------------------------------------------------------

    def players(self, name: str) -> list[str]:
        """*name*, or every player of the script for ``*``."""
        return list(self.script.players) if name == "*" else [name]

    def attempts(self, player: str) -> int:
        """Moves this step made for *player* so far."""
        return int(self.state.step.get(f"attempts:{player}", 0))

    def connected(self, player: str) -> bool:
        client = self.state.clients.get(player)
        return client is not None and client.connection_id is not None

    def table(self, slot: str) -> TableRecord | None:
        table_id = self.state.slots.get(slot)
        return None if table_id is None else self.backend.read(table_id)

    def decide(self, view: dict[str, Any], record: TableRecord,
               choose: Callable[[dict[str, Any], Any], Any]) -> Any:
        """*choose* (``bots.decide`` or ``bots.respond``) on the seat's own view, with a
        random source fixed by the position (so a replay decides the same)."""
        hand = record.state.hand
        position = (record.table_id, hand.number if hand else 0, len(hand.log) if hand else 0,
                    view["seat_index"], self.script.seed)
        seed = int.from_bytes(hashlib.sha256(repr(position).encode()).digest()[:8], "big")
        key = choose.__name__ + json.dumps(_decision_key(view), sort_keys=True,
                                           default=str) + str(seed)
        if key not in _DECISIONS:
            if len(_DECISIONS) > 200_000:
                _DECISIONS.clear()
            _DECISIONS[key] = choose(view, random.Random(seed))
        return _DECISIONS[key]

    # -- the session ---------------------------------------------------------------------

    def run_session(self) -> None:
        """Play the script to its end (one event per :meth:`step`).

        :raises Converged: When the run reached a state of the recording (see
            :attr:`converge`): the rest of it is the recording's, which held.
        """
        while self.step():
            pass

    def step(self) -> bool:
        """Perform the next event of the session; ``False`` when the script is over."""
        if self.checkpoints is not None:
            assert len(self.checkpoints) == self.state.events
            self.checkpoints.append(self.checkpoint())
            if self.fingerprints is not None:
                self.fingerprints.setdefault(self.fingerprint(), self.state.events)
        elif self.converge is not None and self.injector.injected is not None:
            known, limit = self.converge
            if self.state.events < limit:
                event = known.get(self.fingerprint())
                if event is not None:
                    raise Converged(event)
        s = self.state
        if s.retry is not None:
            player, frame, request_id = s.retry
            s.retry = None
            self._event(frame["action"], lambda: self._request(player, frame, request_id,
                                                               retry=False))
            return True
        due = self._next_platform()
        if s.move_at is not None and due is not None and due[0] <= s.move_at:
            self._platform(due)
            return True
        move = self._plan()
        if move is None:
            return False
        if move.kind == "wait":
            assert due is not None  # the sweep is always on its way
            self._platform(due)
            return True
        if s.move_at is None:
            s.move_at = self.backend.clock.now + 800 + s.rng.randrange(2_500)
            if due is not None and due[0] <= s.move_at:
                self._platform(due)
                return True
        self.backend.clock.now = max(self.backend.clock.now, s.move_at)
        s.move_at = None
        move = self._plan()  # the same state, the same answer
        assert move is not None and move.kind != "wait"
        self._perform(move)
        return True

    def _plan(self) -> Move | None:
        s = self.state
        steps = self.script.steps
        now = self.backend.clock.now
        while s.cursor < len(steps):
            step = steps[s.cursor]
            since = s.step.setdefault("since", now)
            if s.step.get("events", 0) < step.budget and now - since <= step.time_limit:
                move = step.plan(self)
                if move is not None:
                    return move
            s.cursor += 1
            s.step = {}
        return None

    def _perform(self, move: Move) -> None:
        s = self.state
        step = self.script.steps[s.cursor]
        s.step["events"] = s.step.get("events", 0) + 1
        if self.trace is not None:
            self.trace.append(f"{self.backend.clock.now} #{s.events} step {s.cursor} "
                              f"{type(step).__name__}: {move.kind} {move.player} "
                              f"{json.dumps(move.frame) if move.frame else ''} {move.tag}")
        reply: dict[str, Any] | None = None
        if move.kind == "send":
            assert move.frame is not None
            frame = move.frame
            client = s.clients[move.player]
            request_id = client.new_request_id()
            if frame["action"] == "create_table":
                table_id = "t" + hashlib.sha256(
                    f"{move.player}/{request_id}".encode()).hexdigest()[:20]
                s.slots[move.tag] = table_id
                s.tables.append(table_id)
            holder: list[dict[str, Any] | None] = []
            self._event(frame["action"], lambda: holder.append(
                self._request(move.player, frame, request_id)))
            reply = holder[0] if holder else None
        elif move.kind == "connect":
            self._event("$connect", lambda: self._connect(move.player))
        elif move.kind == "disconnect":
            self._event("$disconnect", lambda: self._disconnect(move.player, lost=False))
        elif move.kind == "drop":
            self._event("drop", lambda: self._disconnect(move.player, lost=True))
        else:
            raise AssertionError(move)
        step.done(self, move, reply)

    # -- invocations ---------------------------------------------------------------------

    def _event(self, label: str, invocation: Callable[[], object]) -> None:
        """One invocation (a Lambda call), then the checks that hold after every event."""
        self.injector.event = self.state.events
        self.injector.label = label
        invocation()
        self.state.events += 1
        self._harvest()
        self.check_chips()
        self.check_hand_watch()

    def _request(self, player: str, frame: dict[str, Any], request_id: str,
                 retry: bool = True) -> dict[str, Any] | None:
        """A client frame through the game handler: an unexpected error is answered
        ``internal_error`` (``bootstrap.entry_point``), a crash answers nothing. Without an
        answer (or with ``internal_error``) the client sends the same request once more."""
        client = self.state.clients[player]
        connection_id = client.connection_id
        assert connection_id is not None
        body = {**frame, "request_id": request_id}
        table_id = frame.get("table_id")
        if isinstance(table_id, str) and table_id not in client.tables:
            client.tables.append(table_id)
        before = len(self.backend.delivered(connection_id))
        request = parse_request(json.dumps(body))
        try:
            try:
                self.service.handle(connection_id, player, request)
            except Exception:  # the handler logs it and answers internal_error
                self.counters["InternalErrors"] += 1
                try:
                    self.service.deps.gateway.send(connection_id, error_message(
                        "internal_error", "the server failed to handle that request; please "
                        "retry", request_id))
                except ConnectionGone:
                    pass
        except Crash:
            self.counters["Crashes"] += 1
        except Exception:  # noqa: S110 - the failure could not be reported: logged, no more
            pass
        reply = next((m for m in self.backend.delivered(connection_id)[before:]
                      if m.get("request_id") == request_id
                      and m.get("type") in ("ack", "error", "snapshot", "tables", "update")),
                     None)
        if retry and (reply is None or reply.get("code") == "internal_error"):
            self.state.retry = (player, frame, request_id)
        if reply is not None and reply.get("type") == "snapshot" \
                and frame["action"] == "snapshot":
            self.verify_snapshot(player, frame["table_id"], reply)
        named = None if reply is None else reply.get("table_id")
        if isinstance(named, str):  # a table the room chose or opened (quick seat)
            if named not in client.tables:
                client.tables.append(named)
            if named not in self.state.tables:
                self.state.tables.append(named)
        return reply

    def _connect(self, player: str) -> None:
        client = self.state.clients[player]
        client.connections_made += 1
        connection_id = f"{player}-c{client.connections_made}"
        try:
            self.service.connect(connection_id, player)
        except (Exception, Crash):
            self.counters["ConnectsRefused"] += 1  # API Gateway refuses the connection
            self.backend.close(connection_id)
            return
        client.connection_id = connection_id

    def _disconnect(self, player: str, lost: bool) -> None:
        client = self.state.clients[player]
        connection_id = client.connection_id
        assert connection_id is not None
        client.connection_id = None
        self.backend.close(connection_id)
        if lost:
            return  # API Gateway never called $disconnect
        try:
            self.service.disconnect(connection_id)
        except (Exception, Crash):
            self.counters["DisconnectsFailed"] += 1

    def _timer(self, execution: Execution) -> None:
        try:
            self.service.timer_fired(execution.table_id, execution.token)
        except (Exception, Crash):
            self.counters["TimersFailed"] += 1
            if execution.attempt == 0:  # the state machine's retry of a failed Fire
                self._add_execution(replace(execution, attempt=1),
                                    self.backend.clock.now + TIMER_RETRY_MS)

    def _sweep(self) -> None:
        try:
            self.service.sweep()
        except (Exception, Crash):
            self.counters["SweepsFailed"] += 1  # the next minute's run goes on

    # -- the platform: Step Functions and EventBridge ------------------------------------

    def _add_execution(self, execution: Execution, fire_at: int) -> None:
        self.state.seq += 1
        self.state.executions.append(replace(execution, fire_at=fire_at, seq=self.state.seq))

    def _harvest(self) -> None:
        """Executions the service started: each fires at its due time, rounded up to the
        second as Step Functions waits (late, or twice, in the wind-down)."""
        scheduled = self.backend.scheduler.scheduled
        late = self.state.late_rng
        for table_id, token, due_ms, kind in scheduled:
            fire_at = -(-due_ms // 1000) * 1000
            execution = Execution(fire_at, 0, table_id, token, kind)
            if late is None:
                self._add_execution(execution, fire_at)
                continue
            self._add_execution(execution, fire_at + late.choice((0, 0, 1_000, 7_000, 45_000)))
            if late.random() < 0.3:
                self._add_execution(execution, fire_at + late.randrange(90_000))
        scheduled.clear()

    def _next_platform(self) -> tuple[int, int, Execution | None] | None:
        s = self.state
        first = min(s.executions, key=lambda e: (e.fire_at, e.seq), default=None)
        if first is not None and first.fire_at <= s.next_sweep:
            return first.fire_at, 0, first
        return s.next_sweep, 1, None

    def _platform(self, due: tuple[int, int, Execution | None]) -> None:
        at, _, execution = due
        clock = self.backend.clock
        clock.now = max(clock.now, at)
        if execution is None:
            self.state.next_sweep += SWEEP_PERIOD_MS
            self._event("sweep", self._sweep)
        else:
            self.state.executions.remove(execution)
            self._event(f"timer:{execution.kind}", lambda: self._timer(execution))

    def run_until(self, until: int) -> None:
        """Let the platform run (timers, sweeps) until the clock reaches *until*."""
        while True:
            due = self._next_platform()
            if due is None or due[0] > until:
                break
            self._platform(due)
        self.backend.clock.now = max(self.backend.clock.now, until)

    # -- the checks ----------------------------------------------------------------------

    def check_chips(self) -> None:
        result = self.backend.audit()
        if not result.holds:
            raise Broken("chips", f"after event {self.state.events - 1} "
                                  f"({self.injector.label}): {result.line()}")

    def check_hand_watch(self) -> None:
        if self.watch.problems:
            raise Broken("hands", "; ".join(self.watch.problems[:3]))

    def send_now(self, player: str, frame: dict[str, Any]) -> dict[str, Any] | None:
        """A request outside the script (the checks): sent, and sent again once if it got no
        answer, like any client."""
        client = self.state.clients[player]
        request_id = client.new_request_id()
        holder: list[dict[str, Any] | None] = []
        self._event(frame["action"], lambda: holder.append(
            self._request(player, frame, request_id)))
        if self.state.retry is not None:
            self.state.retry = None
            holder.clear()
            self._event(frame["action"], lambda: holder.append(
                self._request(player, frame, request_id, retry=False)))
        return holder[0] if holder else None

    def reconnect_everyone(self) -> None:
        """Every client without a connection opens one and watches its tables again."""
        for player, client in self.state.clients.items():
            for _ in range(3):
                if client.connection_id is not None:
                    break
                self._event("$connect", lambda p=player: self._connect(p))  # type: ignore[misc]
            if client.connection_id is None:
                continue
            for table_id in self.state.tables:
                record = self.backend.read(table_id)
                if record is not None and record.seat_of(player) is not None and (
                        record.connections.get(player) != client.connection_id
                        or player in record.disconnected):
                    self.send_now(player, {"action": "snapshot", "table_id": table_id})

    def check_snapshots(self) -> None:
        """Every connected player asks for a snapshot of every table it sits at or watches:
        it gets the stored version and exactly the stored record's view for its seat."""
        for player, client in self.state.clients.items():
            if client.connection_id is None:
                continue
            for table_id in self.state.tables:
                record = self.backend.read(table_id)
                if record is None or (record.seat_of(player) is None
                                      and player not in record.connections
                                      and table_id not in client.tables):
                    continue
                reply = self.send_now(player, {"action": "snapshot", "table_id": table_id})
                if reply is None or reply.get("type") != "snapshot":
                    raise Broken("snapshot", f"{self.phase}: {player} asked for a snapshot of "
                                             f"{table_id} and got {_short(reply)}")

    def verify_snapshot(self, player: str, table_id: str, reply: dict[str, Any]) -> None:
        """A snapshot just answered is the stored table: its version, and exactly the stored
        record's view for the player's seat (R8.3)."""
        stored = self.backend.read(table_id)
        assert stored is not None
        expected = _plain(self.service.view(stored, stored.seat_of(player), proofs=True))
        version = seen_version(stored)
        if reply["version"] != version or _plain(reply["view"]) != expected:
            raise Broken("snapshot", f"{self.phase}: {player}'s snapshot of {table_id} is "
                                     f"v{reply['version']}, stored v{version}"
                                     f"{_diff(_plain(reply['view']), expected)}")

    def leave_everywhere(self) -> None:
        """Players stop: each leaves every table it sits at."""
        for player, client in self.state.clients.items():
            for table_id in self.state.tables:
                record = self.backend.read(table_id)
                if (client.connection_id is not None and record is not None
                        and record.seat_of(player) is not None
                        and f"leave:{player}" not in record.sit_out_after_hand):
                    self.send_now(player, {"action": "leave_table", "table_id": table_id})

    def wind_down(self, duration: int = WIND_DOWN_MS) -> None:
        """The clock runs a minute at a time with the sweep; executions fire as Step Functions
        would, some late and some twice. No table keeps a timer overdue by more than the sweep
        period."""
        self.state.late_rng = random.Random(f"late-{self.script.seed}")
        clock = self.backend.clock
        end = clock.now + duration
        while clock.now < end:
            self.run_until(self.state.next_sweep)  # ... and the sweep at that minute
            self.check_stuck()

    def check_stuck(self) -> None:
        now = self.backend.clock.now
        for table_id in self.state.tables:
            record = self.backend.read(table_id)
            if record is None:
                continue
            for timer in record.timers:
                if timer.due_ms + SWEEP_PERIOD_MS < now:
                    raise Broken("stuck", f"table {table_id} v{record.version}: {timer.kind} "
                                          f"timer {timer.token} due {now - timer.due_ms} ms "
                                          f"ago")

    def check_hands_over(self) -> None:
        """No stored table has a hand in progress; every hand ever dealt ended complete
        (normally or cancelled, R8.6)."""
        self.check_hand_watch()
        for table_id in self.state.tables:
            record = self.backend.read(table_id)
            if record is None:
                continue
            if record.state.hand_in_progress:
                hand = record.state.hand
                assert hand is not None
                raise Broken("hands", f"table {table_id} v{record.version}: hand {hand.number} "
                                      f"still in progress after the wind-down")
            seen = self.watch.hands.get(table_id, {})
            for number in range(1, record.state.hand_count + 1):
                status = seen.get(number)
                if status not in ("done", "cancelled"):
                    raise Broken("hands", f"table {table_id}: hand {number} ended {status}")

    def finish(self) -> None:
        """After the session: everyone back, the snapshot check, players stop, the wind-down,
        and the final checks."""
        self.state.retry = None
        self.phase = "the end of the session"
        self.reconnect_everyone()
        self.check_snapshots()
        self.phase = "players leaving"
        self.leave_everywhere()
        self.phase = "the wind-down"
        self.wind_down()
        self.check_hands_over()
        self.check_chips()
        self.phase = "after the wind-down"
        self.check_snapshots()


def _decision_key(view: dict[str, Any]) -> dict[str, Any]:
    """The view without what :func:`naiko.bots.decide` never reads (the clocks' deadlines,
    who is disconnected, the table's settings and id): replays that only moved the clock ask
    the same question."""
    key = {k: v for k, v in view.items() if k not in ("disconnected", "settings", "table_id")}
    if isinstance(key.get("prompt"), dict):
        key["prompt"] = {k: v for k, v in key["prompt"].items() if k != "deadline_ms"}
    if isinstance(key.get("hand"), dict):
        key["hand"] = {k: v for k, v in key["hand"].items() if k != "actor_deadline_ms"}
    return key


def seen_version(record: TableRecord) -> int:
    """The version players are told about: ``seq`` (writes that are fanned out) where the
    record has one, else the item's ``version``."""
    return int(getattr(record, "seq", record.version))


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) < 300 else text[:300] + "..."


def _diff(got: Any, expected: Any, path: str = "") -> str:
    """Where two JSON values first differ."""
    if isinstance(got, dict) and isinstance(expected, dict):
        for key in sorted(set(got) | set(expected)):
            if got.get(key) != expected.get(key):
                return _diff(got.get(key), expected.get(key), f"{path}.{key}")
        return ""
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected):
        for i, (a, b) in enumerate(zip(got, expected, strict=True)):
            if a != b:
                return _diff(a, b, f"{path}[{i}]")
        return ""
    return f"; first difference at {path or '.'}: got {_short(got)}, stored {_short(expected)}"


# -- runs and the matrix ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run ended with: ``held``, or the broken invariant (``harness``: the driver
    itself failed, which is a bug of this module)."""

    held: bool
    invariant: str = ""
    detail: str = ""


def play(backend: Backend, script: Script, target: int | None = None,
         fault: Fault | None = None) -> Outcome:
    """One whole run from scratch: the session (with *fault* at call *target*), then the end
    checks (for backends without checkpoints, such as moto)."""
    driver = Driver(backend, script)
    driver.injector.target, driver.injector.fault = target, fault
    return _conclude(driver, target)


def record_calls(backend: Backend, script: Script) -> tuple[Outcome, list[Call]]:
    """The session without faults, from scratch, numbering every call; then the end checks."""
    driver = Driver(backend, script)
    calls: list[Call] = []
    driver.injector.recording = calls
    try:
        driver.run_session()
    except Broken as broken:
        return Outcome(False, broken.invariant, broken.detail), calls
    driver.injector.recording = None
    return _conclude(driver, None), calls


def _conclude(driver: Driver, target: int | None) -> Outcome:
    try:
        try:
            driver.run_session()
        except Converged as converged:
            return Outcome(True, detail=f"converged at event {converged.event}")
        if target is not None and driver.injector.injected is None:
            return Outcome(False, "harness", f"call {target} never happened")
        driver.injector.target = None
        driver.finish()
    except Broken as broken:
        return Outcome(False, broken.invariant, broken.detail)
    except Exception as error:  # the driver itself failed: a bug in this module
        return Outcome(False, "harness", f"{type(error).__name__}: {error}")
    return Outcome(True)


@dataclass
class Cell:
    """One port × method × fault of the matrix."""

    runs: int = 0
    failures: list[tuple[int, Outcome]] = field(default_factory=list)

    @property
    def held(self) -> bool:
        return not self.failures


class Matrix:
    """The recording run (a checkpoint per event) and the runs with one fault each."""

    def __init__(self, script: Script, backend_factory: Callable[[], Backend] = MemoryBackend):
        self.script = script
        self.backend_factory = backend_factory
        self.calls: list[Call] = []
        self.checkpoints: list[Any] = []
        self.cells: dict[tuple[str, str, Fault], Cell] = {}
        self.driver: Driver | None = None
        self.fingerprints: dict[str | None, int] = {}
        self.shortcut = True
        """Stop a run that reaches a state of the recording (it goes on as the recording)."""
        self.shortcut_events = 40
        """... looking for one during this many events after the fault's."""

    def record(self) -> Outcome:
        """Play the session without faults, numbering every call and keeping a checkpoint of
        the world at the start of every event; the end checks must hold."""
        driver = Driver(self.backend_factory(), self.script)
        driver.injector.recording = self.calls
        driver.checkpoints = self.checkpoints
        driver.fingerprints = self.fingerprints
        try:
            driver.run_session()
        except Broken as broken:
            return Outcome(False, broken.invariant, broken.detail)
        driver.injector.recording = None
        driver.checkpoints = None
        self.session_calls = driver.injector.count
        self.driver = driver
        self.baseline = Counter(driver.counters)
        self.hands = {t: len(h) for t, h in driver.watch.hands.items()}
        return _conclude(driver, None)

    def run(self, target: int, fault: Fault) -> Outcome:
        """The session with *fault* at call *target*, from the checkpoint of its event."""
        call = self.calls[target]
        driver = Driver(self.backend_factory(), self.script)
        driver.restore(self.checkpoints[call.event])
        driver.injector.target, driver.injector.fault = target, fault
        if self.shortcut and None not in self.fingerprints:
            driver.converge = (self.fingerprints, call.event + self.shortcut_events)
        outcome = _conclude(driver, target)
        if driver.injector.injected not in (None, (target, call.port, call.method)):
            return Outcome(False, "harness", f"call {target} was {driver.injector.injected}, "
                                             f"recorded as {call.port}.{call.method}")
        return outcome

    def targets(self, port: str, method: str, per_site: int | None = None,
                seed: int = 0) -> list[int]:
        """Call indices of *port*.*method*: all of them, or up to *per_site* per distinct
        call site (the first, the last, and others at random; with *per_site* 1, one of the
        site's calls at random)."""
        indices = [c.index for c in self.calls if (c.port, c.method) == (port, method)]
        if per_site is None:
            return indices
        by_site: dict[str, list[int]] = defaultdict(list)
        for call in self.calls:
            if (call.port, call.method) == (port, method):
                by_site[call.site].append(call.index)
        rng = random.Random(f"{seed}-{port}-{method}")
        chosen: set[int] = set()
        for site in sorted(by_site):
            found = by_site[site]
            if per_site == 1:
                chosen.add(rng.choice(found))
                continue
            picks = [found[0], found[-1]]
            rest = found[1:-1]
            picks += rng.sample(rest, min(len(rest), max(0, per_site - 2)))
            chosen.update(picks[:per_site])
        return sorted(chosen)

    def sweep_cell(self, port: str, method: str, fault: Fault,
                   targets: Iterable[int]) -> Cell:
        """Run every target of one cell; returns (and keeps) the cell."""
        cell = self.cells.setdefault((port, method, fault), Cell())
        for target in targets:
            outcome = self.run(target, fault)
            cell.runs += 1
            if not outcome.held:
                cell.failures.append((target, outcome))
        return cell

    def site_of(self, target: int) -> str:
        return self.calls[target].site


def format_matrix(cells: dict[tuple[str, str, Fault], Cell], title: str = "") -> str:
    """The matrix as text: one row per port method, one column per fault; each cell
    ``held N`` or ``FAILED f/N``, then the total of injected faults."""
    columns = list(Fault)
    rows = [(p, m) for p, methods in PORT_METHODS.items() for m in methods]
    width = 16
    lines = [title] if title else []
    lines.append(f"{'port.method':24}" + "".join(f"{c.value:>{width}}" for c in columns))
    total = failed = 0
    for port, method in rows:
        line = f"{port + '.' + method:24}"
        for fault in columns:
            cell = cells.get((port, method, fault))
            if fault not in faults_for(port, method):
                text = "-"
            elif cell is None or cell.runs == 0:
                text = "(no calls)"
            elif cell.held:
                text = f"held {cell.runs}"
            else:
                known = "*" if (port, method, fault.value) in KNOWN_FAILURES else ""
                text = f"FAILED{known} {len(cell.failures)}/{cell.runs}"
            if cell is not None:
                total += cell.runs
                failed += len(cell.failures)
            line += f"{text:>{width}}"
        lines.append(line)
    lines.append(f"injected faults: {total:,}; runs that broke an invariant: {failed:,}")
    if any(not c.held and k[:2] + (k[2].value,) in KNOWN_FAILURES for k, c in cells.items()):
        lines.append("* a known failure of the service (fault_testing.KNOWN_FAILURES)")
    return "\n".join(lines)


def describe_failures(matrix: Matrix, limit: int = 3,
                      only: tuple[str, str, Fault] | None = None) -> str:
    """The failures of every failing cell (or of the cell *only*), the first *limit* of each,
    with their call sites."""
    lines = []
    for (port, method, fault), cell in sorted(matrix.cells.items()):
        if only is not None and (port, method, fault) != only:
            continue
        for target, outcome in cell.failures[:limit]:
            lines.append(f"{port}.{method} {fault} at call {target} "
                         f"({matrix.site_of(target)}): {outcome.invariant}: {outcome.detail}")
        if len(cell.failures) > limit:
            lines.append(f"  ... and {len(cell.failures) - limit} more in that cell")
    return "\n".join(lines)


def check_checkpoints(matrix: Matrix, targets: Iterable[int], fault: Fault) -> list[str]:
    """Runs from a checkpoint end exactly as runs replayed from scratch (the harness's
    determinism): a list of the differences (empty when none)."""
    problems = []
    for target in targets:
        restored = _fingerprint_run(matrix, target, fault, from_scratch=False)
        scratch = _fingerprint_run(matrix, target, fault, from_scratch=True)
        if restored != scratch:
            problems.append(f"call {target} {fault}: {restored[:2]} != {scratch[:2]}")
    return problems


def _fingerprint_run(matrix: Matrix, target: int, fault: Fault,
                     from_scratch: bool) -> tuple[Any, ...]:
    backend = matrix.backend_factory()
    driver = Driver(backend, matrix.script)
    if not from_scratch:
        driver.restore(matrix.checkpoints[matrix.calls[target].event])
    driver.injector.target, driver.injector.fault = target, fault
    outcome = _conclude(driver, target)
    tables = []
    for table_id in driver.state.tables:
        record = backend.read(table_id)
        if record is not None:
            tables.append((table_id, record.version, json.dumps(record.to_document(),
                                                                sort_keys=True)))
    return (outcome, driver.injector.count, driver.state.events, tables,
            sorted(backend.audit().line().splitlines()))


__all__ = [
    "KNOWN_FAILURES", "PORT_METHODS", "Backend", "Broken", "Call", "Cell", "Crash", "Driver",
    "Fault", "FaultyPort", "Injector", "Matrix", "MemoryBackend", "Outcome", "Script",
    "ThrottlingException", "check_checkpoints", "describe_failures", "faults_for",
    "format_matrix", "play", "record_calls", "small_script", "standard_script",
]
