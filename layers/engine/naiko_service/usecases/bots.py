""":mod:`naiko_service.usecases.bots` seats BOT players for ops and local mode (R8.4): like the
host's ``host_add_bot``, a BOT's chips come from the house's bot account (on the ledger) and go
back there. A bot acts when its timer fires (:func:`.deadlines.on_bot_timer`), deciding from
its own view only."""

from __future__ import annotations

from ..auth import BOT_ID_PREFIX, is_bot_id
from ..records import TableRecord
from . import private, transaction
from .base import Deps, NoOp, Outcome


def add_bot(deps: Deps, table_id: str, bot_id: str, buy_in: int) -> None:
    """Seat the BOT *bot_id* with *buy_in* chips from :data:`.private.HOUSE_BOTS` (a table
    created with ``bots: true``); a bot already seated is left as it is.

    :raises ValueError: If *bot_id* is not in the BOT namespace
        (:func:`naiko_service.auth.bot_id`, R8.4).
    """
    if not is_bot_id(bot_id):
        raise ValueError(f"a BOT's id is {BOT_ID_PREFIX}<n> (R8.4), not {bot_id!r}")

    def change(record: TableRecord, now: int) -> Outcome:
        if record.seat_of(bot_id) is not None:
            raise NoOp()
        return private.seat_bot(deps, record, now, bot_id, buy_in)

    try:
        transaction.mutate(deps, table_id, change)
    except NoOp:
        pass
