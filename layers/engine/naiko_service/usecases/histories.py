""":mod:`naiko_service.usecases.histories` answers the hand-history requests (R10.1):
``hand_history`` (a player's recent hands, a page at a time) and ``get_hand`` (one hand in
full, as that player saw it).

Both only read (:class:`~naiko_service.ports.HandHistories`: a Query of the player's entries, a
read by key), never a table. The records are written with the table writes that end the hands
(:func:`naiko_service.usecases.dealer.after_change`, :func:`.transaction.write`).

Who may read a hand: the players dealt into it, and only them (``not_in_hand``): a spectator
watched the table, but a history is a player's own record (their cards, their Peeks and
Sleeve Swaps). What they read: :func:`naiko_service.hand_records.for_reader`, the events they
were shown during the hand; another player's hole cards only when shown at the showdown; and
what was said at the table meanwhile (R8.9: ``chat``, read from the chat log after the record).
"""

from __future__ import annotations

from .. import hand_records
from .. import protocol as p
from ..ports import HandHistories
from . import fanout
from .base import BOT_SEAT, Caller, Deps, ServiceError


def store(deps: Deps) -> HandHistories:
    """The hands' records.

    :raises ServiceError: ``no_histories`` in a deployment that stores none.
    """
    if deps.histories is None:
        raise ServiceError("no_histories", "this server keeps no hand histories")
    return deps.histories


def hand_history(deps: Deps, caller: Caller, request: p.HandHistory) -> None:
    """The requester's hands, newest first, ``limit`` at a time; ``next`` continues."""
    page = store(deps).player_hands(caller.player_id, request.before, request.limit)
    fanout.send(deps, caller.connection_id, {
        "type": "hands", "request_id": request.request_id,
        "hands": [hand.to_dict() for hand in page.hands], "next": page.next})


def get_hand(deps: Deps, caller: Caller, request: p.GetHand) -> None:
    """One hand, as the requester saw it.

    :raises ServiceError: ``unknown_hand`` (no such hand stored), ``not_in_hand`` (the
        requester was not dealt in), ``bot_seat`` (the requester's seat in it was a BOT's).
    """
    record = store(deps).hand(request.table_id, request.hand_number)
    if record is None:
        raise ServiceError("unknown_hand", "no hand of that table has that number")
    if any(seat.is_bot and seat.player_id == caller.player_id for seat in record.seats):
        raise ServiceError(BOT_SEAT, "that hand's seat was a BOT's: a BOT's cards are its "
                           "own (R8.4)")
    if deps.chat_log is not None and record.seat_of(caller.player_id) is not None:
        # R8.9: the chat said during the hand, kept on its own
        record = hand_records.with_chat(
            record, deps.chat_log.lines(request.table_id, request.hand_number))
    try:
        hand = hand_records.for_reader(record, caller.player_id)
    except hand_records.NotInHand as exc:
        raise ServiceError("not_in_hand", "you were not dealt into that hand (R10.1)") from exc
    fanout.send(deps, caller.connection_id, {"type": "hand", "request_id": request.request_id,
                                             "hand": hand})
