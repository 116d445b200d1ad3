""":mod:`naiko_service.usecases.tournament_start` is what every tournament's start needs, a Sit &
Go's or a Spin's (:func:`.tournaments.start`) and a scheduled one's
(:func:`.scheduled.start_scheduled`): the field (its registrations), its tables with their
first hand at the start, the ``tournament_started`` notice's fields and the lobby's level
timer (R9.2, R9.3)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from naiko import commands as cmd
from naiko.engine import apply_in_place
from naiko.state import TableState
from naiko.tournaments.structures import level_at

from ..ports import TournamentStore
from ..records import TableKind, TableRecord, TableSettings, Timer, TimerKind, TournamentSeat
from ..tournament_records import TournamentRecord
from .base import Deps
from .tournament_payments import REG_PREFIX

START_DELAY_MS = 5_000
"""Between the start and the first hand: players see their seats (and a Spin its multiplier,
R9.10) before the first card."""


def entries(tournaments: TournamentStore, tournament_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The registrations: ``(player, reg# item)`` in player order."""
    return [(key.removeprefix(REG_PREFIX), data)
            for key, data in tournaments.items(tournament_id, REG_PREFIX)]


def new_table(deps: Deps, record: TournamentRecord, number: int,
              seats: tuple[str | None, ...], registrations: dict[str, dict[str, Any]],
              now: int, multi: bool = False, rng: Any = None) -> TableRecord:
    """A tournament table: an ordinary table item marked with its tournament, every entrant
    with the starting stack of tournament chips; its first hand at the tournament's start."""
    terms = record.terms
    started = record.started_ms
    assert started is not None
    config = replace(terms.table_config(started, started), deal_absent=True)
    state = TableState.new(config)
    occupied = []
    for index, player_id in enumerate(seats):
        if player_id is not None:
            apply_in_place(state, cmd.SitDown(
                seat_index=index, player_id=player_id, stack=terms.starting_stack,
                is_bot=bool(registrations[player_id].get("bot"))))
            occupied.append(index)
    settings = TableSettings(name=f"{record.name} #{number}", host=record.created_by,
                             min_buy_in=0, max_buy_in=0, decision_ms=terms.decision_ms,
                             pause_ms=deps.default_pause_ms, kind=TableKind.TOURNAMENT,
                             bots=terms.bots_allowed, min_players=2, bot_level="old",
                             time_bank=terms.time_bank)
    info = TournamentSeat(record.tournament_id, started, terms.structure,
                          payouts=tuple(record.payouts), entrants=record.entrants,
                          players_left=record.players_left,
                          multiplier=record.spin.multiplier if record.spin else None,
                          first_button=(occupied[(rng or deps.rng).randrange(len(occupied))]
                                        if occupied else None),
                          number=number, multi=multi, bounty=terms.bounty)
    table = TableRecord(f"{record.tournament_id}-{number}", 1, settings, state, created_ms=now,
                        seq=1, tournament=info)
    for player_id in seats:
        if player_id is not None:
            connection = registrations[player_id].get("connection_id")
            if connection:
                table.connections[player_id] = str(connection)
            if registrations[player_id].get("bot"):
                table.room.funding[player_id] = str(registrations[player_id]["account"])
    table.timers.append(Timer("next_hand:0", TimerKind.NEXT_HAND, started))
    return table


def started_fields(record: TournamentRecord) -> dict[str, Any]:
    return {"tournament_id": record.tournament_id, "first_hand_ms": record.started_ms or 0,
            "prize_pool": sum(record.payouts), "payouts": tuple(record.payouts),
            "multiplier": record.spin.multiplier if record.spin else None}


def schedule_level(record: TournamentRecord, now: int) -> None:
    """R9.3: one timer at the start of the next level; it records the level for the lobby and
    the log (tables work the level out themselves when they deal: no table is written). After
    the director moved the clock (R9.15) the token carries :attr:`~TournamentRecord.clock_shifts`
    (``level:<n>#<shifts>``): an execution armed for the level's old start finds no timer. None
    while the director holds the tournament paused: the clock stops."""
    assert record.started_ms is not None
    at = level_at(record.terms.structure, record.started_ms, max(now, record.started_ms))
    record.timers = [t for t in record.timers if t.kind is not TimerKind.LEVEL]
    if at.next_ms is not None and record.paused is None:
        shifted = f"#{record.clock_shifts}" if record.clock_shifts else ""
        record.timers.append(Timer(f"level:{at.level.number + 1}{shifted}", TimerKind.LEVEL,
                                   at.next_ms))
