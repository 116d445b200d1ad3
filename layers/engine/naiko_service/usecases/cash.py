""":mod:`naiko_service.usecases.cash` is a player's life at a cash or private table: joining with
a buy-in from the account, leaving with the stack, sitting out and in, adding chips (R7.1,
R7.2, R7.9, R7.11)."""

from __future__ import annotations

from naiko import commands as cmd

from .. import protocol as p
from ..ports import AccountMove, LedgerReason
from ..records import TableRecord
from . import path
from .base import Caller, Deps, Outcome, ServiceError, engine_step, seat_of
from .seats import remove_player, sit_out

REBUY_PROTECTION_MS = 30 * 60_000
"""R7.11: leaving with 100 big blinds or more and returning within 30 minutes."""


def join_table(deps: Deps, caller: Caller, request: p.JoinTable) -> None:
    """Sit down with a buy-in moved from the account in the same transaction (R7.1)."""
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        settings = record.settings
        state = record.state
        if record.closed:
            raise ServiceError("table_closed", "this table is closed")
        if record.seat_of(player_id) is not None:
            raise ServiceError("already_seated", "you already have a seat at this table")
        if settings.private and player_id != settings.host and player_id not in settings.invited:
            raise ServiceError("not_invited", "this private table is for invited players (R7.2)")
        minimum = settings.min_buy_in
        left = record.left_stacks.get(player_id)
        if left is not None and now - left["left_ms"] < REBUY_PROTECTION_MS:
            minimum = max(minimum, left["stack"])  # R7.11
        if not minimum <= request.buy_in <= max(settings.max_buy_in, minimum):
            raise ServiceError("bad_buy_in", f"the buy-in must be between {minimum} and "
                               f"{max(settings.max_buy_in, minimum)}")
        seat_index = request.seat_index
        if seat_index is None:
            seat_index = next((i for i, s in enumerate(state.seats) if s is None), None)
            if seat_index is None:
                raise ServiceError("table_full", "every seat is taken")
        if seat_index >= state.config.seat_count:
            raise ServiceError("unknown_seat", f"this table has {state.config.seat_count} seats")
        if deps.accounts.balance(player_id) < request.buy_in:
            raise ServiceError("insufficient_funds", "your account cannot cover that buy-in")
        outcome = engine_step(deps, record, cmd.SitDown(
            seat_index=seat_index, player_id=player_id, stack=request.buy_in))
        record.connections[player_id] = caller.connection_id
        record.disconnected.pop(player_id, None)
        record.left_stacks.pop(player_id, None)
        deps.connections.add_table(caller.connection_id, record.table_id)
        outcome.moves.append(AccountMove(player_id, request.buy_in, record.table_id))
        return outcome

    path.mutate(deps, request.table_id, change, caller=caller)


def leave_table(deps: Deps, caller: Caller, request: p.LeaveTable) -> None:
    """Leave; the stack returns to the account (after the hand if still in it)."""
    def change(record: TableRecord, now: int) -> Outcome:
        seat_of(record, caller.player_id)
        return remove_player(deps, record, now, caller.player_id, reason="left")

    path.mutate(deps, request.table_id, change, caller=caller)


def sit_out_request(deps: Deps, caller: Caller, request: p.SitOut) -> None:
    """Stop being dealt in from the next hand (R7.9)."""
    def change(record: TableRecord, now: int) -> Outcome:
        seat_of(record, caller.player_id)
        return sit_out(deps, record, now, caller.player_id)

    path.mutate(deps, request.table_id, change, caller=caller)


def sit_in(deps: Deps, caller: Caller, request: p.SitIn) -> None:
    """Be dealt in again from the next hand."""
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        outcome = engine_step(deps, record, cmd.SitIn(seat_index=seat_of(record, player_id)))
        record.sitting_out_since.pop(player_id, None)
        if player_id in record.sit_out_after_hand:
            record.sit_out_after_hand.remove(player_id)
        return outcome

    path.mutate(deps, request.table_id, change, caller=caller)


def add_chips(deps: Deps, caller: Caller, request: p.AddChips) -> None:
    """Reload between hands, up to the maximum buy-in (R7.1)."""
    def change(record: TableRecord, now: int) -> Outcome:
        seat_index = seat_of(record, caller.player_id)
        seat = record.state.seats[seat_index]
        assert seat is not None
        if seat.stack + request.amount > record.settings.max_buy_in:
            raise ServiceError("bad_buy_in", f"a stack may not exceed the maximum buy-in of "
                               f"{record.settings.max_buy_in}")
        outcome = engine_step(deps, record, cmd.AddChips(seat_index=seat_index,
                                                         amount=request.amount))
        outcome.moves.append(AccountMove(caller.player_id, request.amount, record.table_id,
                                         LedgerReason.RELOAD))
        return outcome

    path.mutate(deps, request.table_id, change, caller=caller)
