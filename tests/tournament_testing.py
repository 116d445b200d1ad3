"""Helpers shared by the tournament tests on the in-memory adapters (``tests/service``): a
simulated scheduled tournament of BOTs just started (:class:`naiko_local.tournament.Simulation`:
the real service and timers, virtual time) and the director's random actions on it, the
deadline that will end a table's hand (the moto tests use it too), and the ops scripts under
``scripts/`` loaded as modules, as their tests call them."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from naiko.state import Variant
from naiko_local.tournament import Simulation, terms_for
from naiko_service.records import TableRecord, Timer, TimerKind
from naiko_service.tournament_records import TournamentRecord, TournamentStatus
from naiko_service.usecases import deadlines, director
from naiko_service.usecases.accounts import OperatorError
from naiko_service.usecases.base import Deps, Outcome

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def started(players: int = 13, seed: int = 1, **changes: Any) -> Simulation:
    """A scheduled NLHE tournament (entry 10) of *players* BOTs on 6-seat tables, *changes*
    to its terms (``seat_count=9``, ``structure=...``), just started: registered, its timers
    fired until it runs, its tables written and none dealt yet."""
    terms = replace(terms_for("mtt", Variant.NLHE, 10, players), **{"seat_count": 6, **changes})
    return running(Simulation(terms, players, seed, check=True))


def running(simulation: Simulation) -> Simulation:
    """*simulation* registered and stepped until its tournament runs."""
    simulation.register()
    while record_of(simulation).status is not TournamentStatus.RUNNING:
        assert simulation.step()
    return simulation


def record_of(simulation: Simulation) -> TournamentRecord:
    """The simulated tournament's record as stored now."""
    return simulation.tournaments.load(simulation.tournament_id)


def run_until(simulation: Simulation, when: int) -> None:
    """Fire every execution due by *when*; then the clock reads *when* (or later)."""
    while simulation.scheduler.heap and simulation.scheduler.heap[0][0] <= when:
        assert simulation.step()
    simulation.clock.now = max(simulation.clock.now, when)


@dataclass
class DirectorPlay:
    """What :func:`play_director_actions` did."""

    applied: int = 0
    """Actions the director's tools took (the refused ones not counted)."""
    paused_since: int | None = None
    """When the pause still on began."""
    gaps: list[tuple[int, int]] = field(default_factory=list)
    """Each pause ended, as ``(since, until)``."""


def play_director_actions(simulation: Simulation, actions: Sequence[str], every_ms: int,
                          operator: str, move: Callable[[], None], refusals: Collection[str],
                          after_each: Callable[[], None] | None = None) -> DirectorPlay:
    """The R9.15 properties' random director: one of *actions* (``pause``, ``resume``,
    ``minute``, ``move``: *move* makes it) every *every_ms* of virtual time, by *operator*,
    until the tournament finishes; a refusal must have one of the codes *refusals*;
    *after_each* checks the tournament after each action."""
    d, tid = simulation.service.deps, simulation.tournament_id
    play = DirectorPlay()
    for action in actions:
        run_until(simulation, simulation.clock.now + every_ms)
        if simulation.finished():
            break
        try:
            if action == "pause":
                director.pause(d, tid, operator, "p")
                play.paused_since = simulation.clock.now
            elif action == "resume":
                director.resume(d, tid, operator, "r")
                assert play.paused_since is not None
                play.gaps.append((play.paused_since, simulation.clock.now))
                play.paused_since = None
            elif action == "minute":
                director.add_minutes(d, tid, operator, "m")
            else:
                move()
            play.applied += 1
        except OperatorError as refused:
            assert refused.code in refusals, refused.code
        if after_each is not None:
            after_each()
    return play


def the_hands_last_deadline(deps: Deps, record: TableRecord) -> tuple[Timer, TableRecord] | None:
    """*record*'s next deadline if firing it ends the hand in progress, with the table as it
    would then be (fired on a copy, nothing written); ``None`` otherwise."""
    timers = [t for t in record.timers if t.kind is not TimerKind.WAKE]
    if not record.state.hand_in_progress or not timers:
        return None
    timer = min(timers, key=lambda t: (t.due_ms, t.token))
    ended = record.copy()
    deadlines.fire_due(deps, ended, timer.due_ms, Outcome(), horizon=timer.due_ms)
    return None if ended.state.hand_in_progress else (timer, ended)


def script(name: str) -> ModuleType:
    """``scripts/<name>.py`` loaded as the module ``naiko_<name>_script`` (its ``parser()``
    and ``run(...)`` called by the test, as ``main`` would)."""
    spec = importlib.util.spec_from_file_location(f"naiko_{name}_script", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
