""":mod:`naiko_service.usecases.bots` is BOT seats (R8.4): seating one with chips from its own
account, like any buy-in, and letting it act when its timer fires, deciding from its own view
only."""

from __future__ import annotations

from dataclasses import replace

from naiko import bots as strategy
from naiko import commands as cmd
from naiko.views import view_for

from ..ports import AccountMove
from ..records import TableRecord, Timer, TimerKind
from . import path
from .base import Deps, NoOp, Outcome, ServiceError, engine_step


def add_bot(deps: Deps, table_id: str, bot_id: str, buy_in: int) -> None:
    """Seat a BOT (R8.4) with chips from its own account, like any buy-in (ops and local mode:
    bots fill seats of tables created with ``bots: true``)."""
    def change(record: TableRecord, now: int) -> Outcome:
        if not record.settings.bots:
            raise ServiceError("bots_off", "this table was created without bots")
        if record.seat_of(bot_id) is not None:
            raise NoOp()
        seat_index = next((i for i, s in enumerate(record.state.seats) if s is None), None)
        if seat_index is None:
            raise ServiceError("table_full", "every seat is taken")
        outcome = engine_step(deps, record, cmd.SitDown(seat_index=seat_index, player_id=bot_id,
                                                        stack=buy_in, is_bot=True))
        outcome.moves.append(AccountMove(bot_id, buy_in, table_id))
        return outcome

    try:
        path.mutate(deps, table_id, change)
    except NoOp:
        pass


def on_bot_timer(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """Let the bot at ``timer.seat_index`` decide from its own view only (R8.4): its action or
    power on its turn (``bot``), or its answer to a Shield window (``bot_respond``)."""
    seat_index = timer.seat_index
    if seat_index is None:
        return Outcome()
    view = view_for(record.state, seat_index)
    choose = strategy.respond if timer.kind is TimerKind.BOT_RESPOND else strategy.decide
    command = choose(view, deps.rng)
    if command is None:
        return Outcome()
    if isinstance(command, cmd.UsePower):
        command = replace(command, at_ms=now)
    return engine_step(deps, record, command)
