""":mod:`naiko_service.usecases.seats` changes a seat on a table record: sitting out, standing up
with the stack (now, or when the hand ends). Shared by the cash-table use cases, the dealer and
the timers; it never writes by itself (the caller's table write does)."""

from __future__ import annotations

from dataclasses import replace

from naiko import commands as cmd

from ..notices import HostChanged, LeavingAfterHand, LeftTable
from ..ports import AccountMove
from ..records import TableRecord
from . import room
from .base import Deps, Outcome, engine_step, seat_of

LEAVE_PREFIX = "leave:"
"""Marks, in ``record.sit_out_after_hand``, a player who leaves when the hand ends."""


def sit_out(deps: Deps, record: TableRecord, now: int, player_id: str) -> Outcome:
    """Sit *player_id* out and start their 10-minute clock (R7.9; a tournament player is
    never removed for being absent, R9.4)."""
    outcome = engine_step(deps, record, cmd.SitOut(seat_index=seat_of(record, player_id)))
    if record.tournament is None:
        record.sitting_out_since.setdefault(player_id, now)
    return outcome


def leaving(record: TableRecord) -> list[str]:
    """Players who leave when the hand ends."""
    return [x.removeprefix(LEAVE_PREFIX) for x in record.sit_out_after_hand
            if x.startswith(LEAVE_PREFIX)]


def remove_player(deps: Deps, record: TableRecord, now: int, player_id: str,
                  reason: str) -> Outcome:
    """Stand the player up and cash the stack out; a player still in the hand folds now if
    it is their turn, else as soon as it is, and leaves when the hand ends."""
    seat_index = record.seat_of(player_id)
    if seat_index is None:
        return Outcome()
    hand = record.state.hand
    if hand is not None and not hand.complete and hand.is_live(seat_index):
        marker = LEAVE_PREFIX + player_id
        if marker not in record.sit_out_after_hand:
            record.sit_out_after_hand.append(marker)
        if hand.actor == seat_index:
            return engine_step(deps, record, cmd.Fold(seat_index=seat_index))
        return Outcome([LeavingAfterHand(seat_index=seat_index)])
    seat = record.state.seats[seat_index]
    assert seat is not None
    stack = seat.stack
    outcome = engine_step(deps, record, cmd.StandUp(seat_index=seat_index))
    outcome.events.append(LeftTable(seat_index=seat_index, player_id=player_id, reason=reason))
    record.sitting_out_since.pop(player_id, None)
    record.disconnected.pop(player_id, None)
    record.room.seated_since.pop(player_id, None)
    room.note_leaving(record, player_id, stack, seat.is_bot, now)  # R7.11
    if stack:
        outcome.moves.append(AccountMove(record.room.account_of(player_id), -stack,
                                         record.table_id))
    room.release_quick_table(record, player_id, outcome)
    if player_id == record.settings.host:
        outcome.add(pass_the_host(record))
    return outcome


def pass_the_host(record: TableRecord) -> Outcome:
    """R7.12: when the host of a private table leaves, the longest-seated player (not a BOT)
    becomes host (public tables have no host controls; a closing table needs no host)."""
    if not record.settings.private or record.room.closing or record.closed:
        return Outcome()
    people = sorted((since, player) for player, since in record.room.seated_since.items()
                    if player not in record.room.funding and record.seat_of(player) is not None)
    if not people:
        return Outcome()
    host = people[0][1]
    record.settings = replace(record.settings, host=host)
    return Outcome([HostChanged(host=host)])
