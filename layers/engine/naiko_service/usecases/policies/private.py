""":mod:`naiko_service.usecases.policies.private` is a private table's policy (R7.12): a cash
table (:mod:`.cash`) whose host's changes wait for the next deal and whose host may close it
(every stack back when the hand in progress ends)."""

from __future__ import annotations

from dataclasses import replace

from ...notices import TableClosed
from ...ports import AccountMove
from ...records import TableRecord
from .. import room
from ..base import Deps, Outcome
from ..seats import remove_player
from .cash import CashPolicy


class PrivatePolicy(CashPolicy):
    """A host's table for invited players (:class:`~naiko_service.records.TableKind`
    ``private``)."""

    def before_deal(self, deps: Deps, record: TableRecord, now: int,
                    outcome: Outcome) -> frozenset[int]:
        """R7.12: the host's changes made during the last hand take effect now."""
        if record.room.pending:
            apply_settings(record, record.room.pending)
            record.room.pending = {}
        return frozenset()

    def after_hand(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
        """R7.12: the host closed the table during the hand: it closes now; else as a cash
        table (R7.9)."""
        if record.room.closing:
            outcome.add(close_table(deps, record, now, reason="host"))
            return
        super().after_hand(deps, record, now, outcome)


def apply_settings(record: TableRecord, changes: dict[str, int]) -> None:
    """Put the host's changes in effect (between hands)."""
    config = record.state.config
    record.state.config = replace(config,
                                  small_blind=changes.get("small_blind", config.small_blind),
                                  big_blind=changes.get("big_blind", config.big_blind))
    record.settings = replace(
        record.settings, decision_ms=changes.get("decision_ms", record.settings.decision_ms),
        min_players=changes.get("min_players", record.settings.min_players))


def close_table(deps: Deps, record: TableRecord, now: int, reason: str) -> Outcome:
    """Every player stands up with their stack back on their account; the table closes and
    stops counting against the player who opened it."""
    outcome = Outcome()
    record.room.closing = True  # nobody takes over as host while everyone stands up
    for seat in list(record.state.seats):
        if seat is not None:
            outcome.add(remove_player(deps, record, now, seat.player_id, reason="table_closed"))
    record.closed = True
    record.room.closing = False
    for player_id in [*record.room.waitlist, *record.room.offers]:
        room.off_the_waitlist(record, player_id, outcome)
    record.room.invite_code = None
    outcome.events.append(TableClosed(reason=reason))
    if record.opened_by is not None:
        outcome.moves.append(AccountMove(record.opened_by, 0, record.table_id, open_tables=-1))
    return outcome


POLICY = PrivatePolicy()
