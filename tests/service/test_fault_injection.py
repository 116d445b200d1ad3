"""Issue 10, "the proof": nothing is lost, whatever fails (R8.1-R8.6, the ledger).

Every port of the service (store, accounts, connections, gateway, scheduler) fails in turn at
calls of a scripted session (complete hands of NLHE, PLO and NAIKO; joins, leaves, add chips,
powers and Shield windows, timeouts, disconnects and reconnects, the sweep): an exception
before the call or after it succeeded, a conditional-check conflict, a throttle, a
``GoneException``, a duplicate delivery, a process crash. After each, the session goes on and
must end with every chip accounted for (after every event), every hand finished or cancelled
(R8.6), no table stuck past its deadline plus the sweep period, and every player's snapshot
equal to the stored table (``tests/fault_testing.py`` explains the harness).

One test per port x method x fault, on a sample of the calls that covers every distinct call
site of every cell on every run (``PER_SITE``, ``tests/profile_testing.py``): under the ``ci``
profile (the default) one call of each site, drawn by the seed (422 injected faults; the
module 88 s of CPU in one process); under ``thorough`` the first and the last call of each site
and one more at random (989 faults, 158 s), spread over the workers by pytest-xdist;
``scripts/fault_matrix.py`` runs every call, for more seeds and longer sessions. The matrix is
printed when the module runs in one process (``-p no:xdist``; the output of pytest-xdist
workers is not shown). Cells known to fail are listed in ``fault_testing.KNOWN_FAILURES`` and
marked ``xfail(strict=True)``: fixing the service makes them pass, and the strict mark then
asks for the entry to be removed. The last tests check the harness itself: the session covers
what the issue lists, a run from a checkpoint is the run replayed from scratch, the convergence
shortcut changes no verdict, and each oracle fails when the harness itself loses something.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fault_testing import (
    KNOWN_FAILURES,
    PORT_METHODS,
    Cell,
    Fault,
    FaultyPort,
    Matrix,
    MemoryBackend,
    Outcome,
    check_checkpoints,
    describe_failures,
    faults_for,
    format_matrix,
    standard_script,
)
from naiko_service.ports import LedgerReason
from profile_testing import by_profile

SEED = 3
"""The session's seed: its hands include a Shield, a window that times out and one passed,
clocks that check and clocks that fold (:func:`test_the_session_covers_what_issue_10_lists`)."""

PER_SITE = by_profile(ci=1, thorough=3)
"""Calls sampled per distinct call site of a port method: every site is injected into on
every run; ``thorough`` adds the first and the last call of each."""

_CELLS: dict[tuple[str, str, Fault], Cell] = {}


@functools.cache
def recorded() -> Matrix:
    """The session without faults (its checks must hold), with a checkpoint per event."""
    matrix = Matrix(standard_script(seed=SEED))
    outcome = matrix.record()
    assert outcome.held, f"the session fails without any fault: {outcome}"
    return matrix


def _cells() -> Iterator[Any]:
    for port, methods in PORT_METHODS.items():
        for method in methods:
            for fault in faults_for(port, method):
                reason = KNOWN_FAILURES.get((port, method, fault.value))
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                yield pytest.param(port, method, fault, marks=marks,
                                   id=f"{port}.{method}-{fault.value}")


@pytest.fixture(scope="module", autouse=True)
def print_the_matrix(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the module: the matrix of every cell this process ran."""
    yield
    if not _CELLS:
        return
    capture = request.config.pluginmanager.getplugin("capturemanager")
    text = format_matrix(_CELLS, f"fault injection, seed {SEED}, {PER_SITE} calls per site:")
    if capture is None:
        print(text)
        return
    with capture.global_and_fixture_disabled():
        print("\n" + text)


@pytest.mark.parametrize(("port", "method", "fault"), list(_cells()))
def test_r8_6_nothing_is_lost_whatever_fails(port: str, method: str, fault: Fault) -> None:
    matrix = recorded()
    targets = matrix.targets(port, method, per_site=PER_SITE, seed=SEED)
    if not targets:
        pytest.skip(f"the session makes no {port}.{method} call")
    cell = matrix.sweep_cell(port, method, fault, targets)
    _CELLS[(port, method, fault)] = cell
    assert cell.held, (f"{len(cell.failures)} of {cell.runs} runs broke an invariant:\n"
                       + describe_failures(matrix, only=(port, method, fault)))


# -- the harness itself -------------------------------------------------------------------


def test_the_session_covers_what_issue_10_lists() -> None:
    """Complete hands of the three variants, and every situation the issue names."""
    matrix = recorded()
    driver = matrix.driver
    assert driver is not None
    hands = driver.watch.hands
    variants: Counter[str] = Counter()
    for table_id in driver.state.tables:
        record = driver.backend.read(table_id)
        assert record is not None
        variants[record.state.config.variant.value] += sum(
            status == "done" for status in hands.get(table_id, {}).values())
    assert all(variants[v] >= 3 for v in ("NLHE", "PLO", "NAIKO")), variants
    seen: set[tuple[Any, Any]] = set()
    events: Counter[str] = Counter()
    assert isinstance(driver.backend, MemoryBackend)
    driver.backend.check_audit()  # the harness's cached audit is the store's own
    for messages in driver.backend.recording_gateway.sent.values():
        for message in messages:
            key = (message.get("version"), message.get("table_id"))
            if message.get("type") != "update" or key in seen:
                continue
            seen.add(key)
            for event in message["events"]:
                detail = event.get("reason") or event.get("decision") or event.get("power")
                events[f"{event['kind']}:{detail}" if detail else event["kind"]] += 1
    for kind in ("seated", "left_table:left", "leaving_after_hand", "chips_added", "sat_out",
                 "sat_in", "power_used:short_anchor", "power_used:seal_shield",
                 "window_closed:shielded", "window_closed:timed_out", "window_closed:passed",
                 "anchor_applied", "timed_out:check", "timed_out:fold", "reconnect_grace",
                 "disconnected", "reconnected"):
        assert events[kind], f"the session has no {kind} ({sorted(events)})"
    assert any(kind.startswith("power_used:") and kind not in (
        "power_used:short_anchor", "power_used:seal_shield") for kind in events), events
    assert driver.counters["ConnectionsGone"], "no connection was found gone (410)"
    labels = Counter(call.site.split(":")[0] for call in matrix.calls)
    assert labels["sweep"] and labels["$disconnect"] and labels["$connect"], labels
    called = {(call.port, call.method) for call in matrix.calls}
    for port, methods in PORT_METHODS.items():
        assert any((port, m) in called for m in methods), f"no call to the {port}"
    assert {("gateway", "alive"), ("store", "due_tables"), ("store", "create"),
            ("connections", "unbind"), ("scheduler", "schedule")} <= called


def test_a_run_from_a_checkpoint_ends_as_the_run_replayed_from_scratch() -> None:
    matrix = recorded()
    targets = [call.index for call in matrix.calls[:: max(1, len(matrix.calls) // 5)]]
    assert check_checkpoints(matrix, targets[:5], Fault.CRASH) == []
    saves = matrix.targets("store", "save")
    assert check_checkpoints(matrix, saves[len(saves) // 2:][:1], Fault.DUPLICATE) == []


def test_a_run_stopped_where_it_met_the_recording_has_the_same_verdict() -> None:
    """The shortcut (a run whose state becomes the recording's stops there) decides as a run
    played to its end."""
    matrix = recorded()
    picks = [(t, f) for port, method, f in (("gateway", "send", Fault.GONE),
                                            ("store", "save", Fault.AFTER),
                                            ("store", "load", Fault.CRASH),
                                            ("scheduler", "schedule", Fault.DUPLICATE))
             for t in matrix.targets(port, method)[3:4]]
    for target, fault in picks:
        matrix.shortcut = True
        short = matrix.run(target, fault)
        matrix.shortcut = False
        try:
            full = matrix.run(target, fault)
        finally:
            matrix.shortcut = True
        assert (short.held, short.invariant) == (full.held, full.invariant), (target, fault)


# -- the oracles can fail ---------------------------------------------------------------


def _after_the_fault(port: str, method: str,
                     mutate: Callable[..., Any]) -> Callable[[Any, str], Any]:
    """A ``FaultyPort.__getattr__`` that, once the fault was injected, calls *mutate* instead
    of ``port.method`` (with the real method first)."""
    real = FaultyPort.__getattr__

    def getattr_(self: FaultyPort, name: str) -> Any:
        method_ = real(self, name)
        if (self._port, name) != (port, method):
            return method_

        def call(*args: Any, **kwargs: Any) -> Any:
            if self._injector.injected is None:
                return method_(*args, **kwargs)
            return mutate(method_, *args, **kwargs)

        return call

    return getattr_


def _skip_buy_in_ledger(save: Any, record: Any, expected: int, moves: Any = ()) -> Any:
    return save(record, expected, tuple(m for m in moves
                                        if m.ledger_reason is not LedgerReason.BUY_IN))


def _renumber_the_hand(save: Any, record: Any, expected: int, moves: Any = ()) -> Any:
    hand = record.state.hand
    if hand is not None and not hand.complete:
        hand.number += 1000  # the hand in progress is lost, another takes its place
    return save(record, expected, moves)


def _blackhole_a(send: Any, connection_id: str, message: Any) -> Any:
    return None if connection_id.startswith("a-") else send(connection_id, message)


MUTATIONS: dict[str, tuple[str, str, Callable[..., Any], tuple[str, str]]] = {
    "chips": ("store", "save", _skip_buy_in_ledger, ("accounts", "profile")),
    "hands": ("store", "save", _renumber_the_hand, ("gateway", "send")),
    "snapshot": ("gateway", "send", _blackhole_a, ("gateway", "send")),
}
"""invariant -> (port, method, mutation after the fault, where to inject the fault)."""


@pytest.mark.parametrize("invariant", sorted(MUTATIONS))
def test_the_oracles_see_a_harness_that_loses_something(
        invariant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the injected fault the harness itself breaks something (a buy-in without its
    ledger move; a hand in progress replaced by another; nothing delivered to one player):
    the run must fail on that invariant."""
    port, method, mutate, (fault_port, fault_method) = MUTATIONS[invariant]
    matrix = recorded()
    target = matrix.targets(fault_port, fault_method)[2]
    monkeypatch.setattr(FaultyPort, "__getattr__", _after_the_fault(port, method, mutate))
    matrix.shortcut = False
    try:
        outcome = matrix.run(target, Fault.BEFORE)
    finally:
        matrix.shortcut = True
    assert (outcome.held, outcome.invariant) == (False, invariant), outcome


def test_the_stuck_oracle_sees_timers_nobody_fires(monkeypatch: pytest.MonkeyPatch) -> None:
    """After the fault no execution starts and the sweep finds nothing: a table keeps a
    timer past its deadline plus the sweep period."""
    matrix = recorded()
    target = matrix.targets("gateway", "send")[len(matrix.targets("gateway", "send")) // 2]
    real = FaultyPort.__getattr__

    def getattr_(self: FaultyPort, name: str) -> Any:
        method = real(self, name)
        if (self._port, name) not in (("scheduler", "schedule"), ("store", "due_tables")):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            if self._injector.injected is None:
                return method(*args, **kwargs)
            return None if name == "schedule" else []

        return call

    monkeypatch.setattr(FaultyPort, "__getattr__", getattr_)
    matrix.shortcut = False
    try:
        outcome: Outcome = matrix.run(target, Fault.BEFORE)
    finally:
        matrix.shortcut = True
    assert not outcome.held and outcome.invariant in ("stuck", "hands"), outcome
