""":mod:`naiko_service.usecases.pre_actions` is R8.8: a player who is not to act yet may queue
one pre-action for their next turn of the hand: ``check_fold``, ``check``, ``call`` (this
amount), ``call_any`` or ``fold``. It is kept in the table's record
(:attr:`~naiko_service.records.TableRecord.pre_actions`), seen by its owner only (never in
another player's view, never announced: queueing and clearing it are quiet writes), and played at
once when the turn arrives (:func:`at_turn`, from the dealer) if it is still legal at the same
price. A bet that makes it stale clears it and tells its owner (:func:`clear_stale`). BOT seats
have none: they never send requests (R8.4). The requests are :func:`.play.pre_action` and
:func:`.play.clear_pre_action`."""

from __future__ import annotations

from typing import Any

from naiko import commands as cmd
from naiko.engine import legal_actions
from naiko.state import TableState

from ..notices import PreActionCleared
from ..records import TableRecord
from .base import Outcome


def owed(state: TableState, seat_index: int) -> int:
    """What a call would put in now for *seat_index* (its whole stack when smaller): the
    price a pre-action is queued at."""
    hand = state.hand
    seat = state.seats[seat_index]
    assert hand is not None and seat is not None
    return max(0, min(max(hand.bets) - hand.bets[seat_index], seat.stack))


def in_hand(state: TableState, seat_index: int, player_id: str) -> bool:
    """Whether the seat was dealt in, has not folded and still has chips to decide with."""
    hand = state.hand
    seat = state.seats[seat_index]
    return (hand is not None and not hand.complete and seat is not None
            and hand.dealt[seat_index] and hand.player_ids[seat_index] == player_id
            and not hand.folded[seat_index] and seat.stack > 0)


def at_turn(record: TableRecord, outcome: Outcome) -> cmd.Command | None:
    """The command of the pre-action of the seat to act, if it has one and it is still legal at
    the price it was queued at (it is consumed either way; one dropped at another price is told
    to its owner, ``price_changed``). ``check_fold`` folds only when checking is not possible;
    ``call_any`` calls whatever the price (checks when there is nothing to call)."""
    state = record.state
    hand = state.hand
    if hand is None or hand.complete or hand.actor is None:
        return None
    seat = state.seats[hand.actor]
    if seat is None or seat.is_bot:
        return None
    entry = record.pre_actions.pop(seat.player_id, None)
    if entry is None or entry.get("hand") != hand.number:
        return None
    command = _played(state, hand.actor, entry)
    if command is None:
        outcome.events.append(_cleared(seat.player_id, entry, "price_changed"))
    return command


def _played(state: TableState, actor: int, entry: dict[str, Any]) -> cmd.Command | None:
    """The command *entry* (a queued pre-action) plays for *actor* now, or ``None`` when it is
    no longer legal at its price."""
    prompt = legal_actions(state)
    assert prompt is not None
    kind = entry["kind"]
    can_check = "check" in prompt.actions
    if kind == "fold" and "fold" in prompt.actions:
        return cmd.Fold(seat_index=actor)
    if kind == "check_fold":
        return cmd.Check(seat_index=actor) if can_check else cmd.Fold(seat_index=actor)
    if kind == "check" and can_check:
        return cmd.Check(seat_index=actor)
    if kind == "call_any":
        if "call" in prompt.actions:
            return cmd.Call(seat_index=actor)
        if can_check:
            return cmd.Check(seat_index=actor)
    if kind == "call" and "call" in prompt.actions and prompt.to_call == entry.get("amount"):
        return cmd.Call(seat_index=actor)
    return None


def clear_stale(record: TableRecord, outcome: Outcome) -> None:
    """After every change: pre-actions of a hand that ended (or a player who folded or went
    all-in) go silently; a ``check`` facing a bet and a ``call`` whose price changed go and
    their owner is told (``stale``)."""
    if not record.pre_actions:
        return
    state = record.state
    hand = state.hand
    for player, entry in list(record.pre_actions.items()):
        seat_index = record.seat_of(player)
        if (hand is None or hand.complete or entry.get("hand") != hand.number
                or seat_index is None or not in_hand(state, seat_index, player)):
            del record.pre_actions[player]
            continue
        price = owed(state, seat_index)
        if (entry["kind"] == "check" and price > 0) or (
                entry["kind"] == "call" and price != entry.get("amount")):
            del record.pre_actions[player]
            outcome.events.append(_cleared(player, entry, "stale"))


def _cleared(player: str, entry: dict[str, Any], reason: str) -> PreActionCleared:
    amount = entry.get("amount")
    return PreActionCleared(player_id=player, pre_action=str(entry["kind"]),
                            amount=None if amount is None else int(amount), reason=reason)


def view_of(record: TableRecord, player_id: str | None) -> dict[str, Any] | None:
    """*player_id*'s queued pre-action as their view shows it (``None``: none, or not theirs
    to see)."""
    entry = record.pre_actions.get(player_id) if player_id is not None else None
    return None if entry is None else {"kind": entry["kind"], "amount": entry.get("amount")}
