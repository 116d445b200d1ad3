"""Helpers shared by the tournament tests on the in-memory adapters (``tests/service``): a
simulated scheduled tournament of BOTs just started (:class:`naiko_local.tournament.Simulation`:
the real service and timers, virtual time), the deadline that will end a table's hand (the
moto tests use it too), and the ops scripts under ``scripts/`` loaded as modules, as their
tests call them."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from naiko.state import Variant
from naiko_local.tournament import Simulation, terms_for
from naiko_service.records import TableRecord, Timer, TimerKind
from naiko_service.tournament_records import TournamentRecord, TournamentStatus
from naiko_service.usecases import deadlines
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
