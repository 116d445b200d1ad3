""":mod:`naiko_service.usecases.bots` is BOT seats (R8.4): seating one with chips from its own
account, like any buy-in. A bot acts when its timer fires (:func:`.deadlines.on_bot_timer`),
deciding from its own view only."""

from __future__ import annotations

from naiko import commands as cmd

from ..ports import AccountMove
from ..records import TableRecord
from . import path
from .base import Deps, NoOp, Outcome, ServiceError, engine_step


def add_bot(deps: Deps, table_id: str, bot_id: str, buy_in: int) -> None:
    """Seat a BOT (R8.4) with chips from its own account, like any buy-in (ops and local mode:
    bots fill seats of tables created with ``bots: true``)."""
    def change(record: TableRecord, now: int) -> Outcome:
        if record.closed:
            raise ServiceError("table_closed", "this table is closed")
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
