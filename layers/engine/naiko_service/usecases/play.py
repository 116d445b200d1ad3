""":mod:`naiko_service.usecases.play` is playing a hand: poker actions and Naiko powers, each
for the requester's own seat (the seat always comes from the verified player, never from the
frame)."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.events import Power

from .. import protocol as p
from ..notices import TimeBankStarted
from ..records import DEALT_IN_TIMERS, TableRecord, TimerKind
from . import pre_actions, time_banks, transaction
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


# -- time bank and pre-actions (R8.7, R8.8) ------------------------------------------------

def use_time_bank(deps: Deps, caller: Caller, request: p.UseTimeBank) -> None:
    """R8.7: start your time bank now, on your turn: the rest of the decision clock is given
    up and the bank is spent from now (it would start by itself when the clock runs out).

    :raises ServiceError: ``no_time_bank`` (the table publishes none), ``not_your_turn``,
        ``time_bank_running``, ``time_bank_empty``.
    """
    def change(record: TableRecord, now: int) -> Outcome:
        seat_index = seat_of(record, caller.player_id)
        if record.settings.time_bank is None:
            raise ServiceError("no_time_bank", "this table has no time bank")
        hand = record.state.hand
        if hand is None or hand.complete or hand.actor != seat_index:
            raise ServiceError("not_your_turn", "the time bank runs on your turn only")
        if caller.player_id in record.bank_since:
            raise ServiceError("time_bank_running", "your time bank is already running")
        key = f"{hand.number}.{hand.betting_actions}"
        timer = time_banks.start(record, now, seat_index, caller.player_id, key)
        if timer is None or any(t.kind is TimerKind.GRACE for t in record.timers):
            record.bank_since.pop(caller.player_id, None)
            raise ServiceError("time_bank_empty", "your time bank is empty")
        record.timers = [t for t in record.timers if t.kind not in DEALT_IN_TIMERS] + [timer]
        return Outcome([TimeBankStarted(seat_index=seat_index, bank_ms=timer.due_ms - now,
                                        until_ms=timer.due_ms)])

    transaction.mutate(deps, request.table_id, change, caller=caller)


def pre_action(deps: Deps, caller: Caller, request: p.PreAction) -> None:
    """R8.8: queue (or replace) your one pre-action for your next turn of this hand. A quiet
    write: nobody else is told (the requester gets an ``ack``; their views show it).

    :raises ServiceError: ``not_seated``, ``no_hand_in_progress``, ``not_in_hand`` (folded,
        all-in, not dealt in), ``your_turn`` (act instead), ``cannot_check`` (a bet is
        pending), ``nothing_to_call``, ``price_changed`` (the call's amount is not the price
        now), ``invalid_request`` (an amount for anything but ``call``, none for ``call``).
    """
    if (request.kind == "call") != (request.amount is not None):
        raise ServiceError("invalid_request",
                           "a call pre-action needs the amount to call; the others take none")

    def change(record: TableRecord, now: int) -> Outcome:
        seat_index = seat_of(record, caller.player_id)
        state = record.state
        hand = state.hand
        if hand is None or hand.complete:
            raise ServiceError("no_hand_in_progress", "no hand is being played")
        if not pre_actions.in_hand(state, seat_index, caller.player_id):
            raise ServiceError("not_in_hand", "you have no decision left in this hand")
        if hand.actor == seat_index:
            raise ServiceError("your_turn", "it is your turn: act now")
        price = pre_actions.owed(state, seat_index)
        if request.kind == "check" and price > 0:
            raise ServiceError("cannot_check", f"there is a bet: {price} to call")
        if request.kind == "call":
            if price == 0:
                raise ServiceError("nothing_to_call", "there is no bet to call")
            if request.amount != price:
                raise ServiceError("price_changed", f"the price is {price} now, not "
                                   f"{request.amount}")
        record.pre_actions[caller.player_id] = {"kind": request.kind, "amount": request.amount,
                                                "hand": hand.number}
        return Outcome(quiet=True)

    transaction.mutate(deps, request.table_id, change, caller=caller)


def clear_pre_action(deps: Deps, caller: Caller, request: p.ClearPreAction) -> None:
    """R8.8: drop your queued pre-action (a quiet write).

    :raises ServiceError: ``no_pre_action``.
    """
    def change(record: TableRecord, now: int) -> Outcome:
        if record.pre_actions.pop(caller.player_id, None) is None:
            raise ServiceError("no_pre_action", "you have no pre-action queued")
        return Outcome(quiet=True)

    transaction.mutate(deps, request.table_id, change, caller=caller)
