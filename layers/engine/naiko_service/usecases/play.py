""":mod:`naiko_service.usecases.play` is playing a hand: poker actions and Naiko powers, each
for the requester's own seat (the seat always comes from the verified player, never from the
frame)."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.events import Power

from .. import protocol as p
from ..records import TableRecord
from . import transaction
from .base import Caller, Deps, Outcome, ServiceError, engine_step, seat_of


def act(deps: Deps, caller: Caller, request: p.Act) -> None:
    """A poker action (R2.7, R3.1–R3.3); ``amount`` is the total of a bet or raise."""
    def change(record: TableRecord, now: int) -> Outcome:
        return engine_step(deps, record,
                           betting_command(seat_of(record, caller.player_id), request))

    transaction.mutate(deps, request.table_id, change, caller=caller)


def use_power(deps: Deps, caller: Caller, request: p.UsePower) -> None:
    """A turn power, before the action (R5.5, R6.1–R6.3)."""
    def change(record: TableRecord, now: int) -> Outcome:
        return engine_step(deps, record, cmd.UsePower(
            seat_index=seat_of(record, caller.player_id), power=Power(request.power),
            target_seat=request.target_seat, card_index=request.card_index, at_ms=now))

    transaction.mutate(deps, request.table_id, change, caller=caller)


def shield(deps: Deps, caller: Caller, request: p.Shield) -> None:
    """Seal Shield against the Short Anchor aimed at the requester (R6.4)."""
    def change(record: TableRecord, now: int) -> Outcome:
        return engine_step(deps, record, cmd.UsePower(
            seat_index=seat_of(record, caller.player_id), power=Power.SEAL_SHIELD, at_ms=now))

    transaction.mutate(deps, request.table_id, change, caller=caller)


def pass_window(deps: Deps, caller: Caller, request: p.PassWindow) -> None:
    """Let the Short Anchor aimed at the requester apply (R6.5)."""
    def change(record: TableRecord, now: int) -> Outcome:
        return engine_step(deps, record,
                           cmd.PassWindow(seat_index=seat_of(record, caller.player_id)))

    transaction.mutate(deps, request.table_id, change, caller=caller)


def betting_command(seat_index: int, request: p.Act) -> cmd.Command:
    """The engine command of an ``act`` request.

    :raises ServiceError: ``invalid_request`` when ``amount`` is missing for a bet or raise, or
        given for another move.
    """
    match request.move:
        case "bet" | "raise_to":
            if request.amount is None:
                raise ServiceError("invalid_request",
                                   f"{request.move} needs an amount (the total to)")
            if request.move == "bet":
                return cmd.Bet(seat_index=seat_index, amount=request.amount)
            return cmd.RaiseTo(seat_index=seat_index, amount=request.amount)
    if request.amount is not None:
        raise ServiceError("invalid_request", f"{request.move} takes no amount")
    match request.move:
        case "fold":
            return cmd.Fold(seat_index=seat_index)
        case "check":
            return cmd.Check(seat_index=seat_index)
        case "call":
            return cmd.Call(seat_index=seat_index)
        case "all_in":
            return cmd.AllIn(seat_index=seat_index)
