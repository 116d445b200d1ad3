""":mod:`naiko_service.usecases.cash` is a player's life at a cash or private table: joining with
a buy-in from the account, leaving with the stack, sitting out and in, adding chips (R7.1,
R7.2, R7.9, R7.11)."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.state import EntryChoice

from .. import protocol as p
from ..ports import AccountMove, LedgerReason, visited_after
from ..records import TableRecord
from . import path
from .base import Caller, Change, Deps, Outcome, ServiceError, engine_step, seat_of
from .room import Return, invite, may_sit, returning, utc_day
from .seats import remove_player, sit_out
from .tournament_tables import refuse_at_tournament


def join_table(deps: Deps, caller: Caller, request: p.JoinTable) -> None:
    """Sit down with a buy-in moved from the account in the same transaction (R7.1)."""
    path.mutate(deps, request.table_id,
                seat_player(deps, caller, request.buy_in, request.seat_index, request.entry,
                            request.invite_code), caller=caller)


def seat_player(deps: Deps, caller: Caller, buy_in: int, seat_index: int | None, entry: str,
                invite_code: str | None = None) -> Change:
    """The change that seats the caller with *buy_in* chips from their account (R7.1):

    - a closed table takes nobody; a private table only its host and invited players, or
      whoever brings its current invite code (R7.2, R7.12);
    - a seat held for a player of the waiting list counts as taken for everybody else; the
      player it is held for takes it (R7.10);
    - a player who left this table with 100 big blinds or more and returns within 30 minutes
      counts on the day's ratholing counter, grown in the same transaction; at a deep-stack
      table, a player who returns within 30 minutes buys in for at least what they left with,
      or all they have if less (R7.11);
    - a new player at a table already playing waits for the big blind or posts (R7.8).
    """
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        settings = record.settings
        state = record.state
        room = record.room
        refuse_at_tournament(record, "buying in")
        if record.closed:
            raise ServiceError("table_closed", "this table is closed")
        if record.seat_of(player_id) is not None:
            raise ServiceError("already_seated", "you already have a seat at this table")
        if invite_code is not None and settings.private:
            if invite_code != room.invite_code:
                raise ServiceError("bad_invite_code", "that invite code is not this table's")
            invite(record, player_id)
        if not may_sit(record, player_id):
            raise ServiceError("not_invited", "this private table is for invited players (R7.2)")
        held = player_id in room.offers
        if not held and record.free_seats == 0:
            raise ServiceError("table_full", "every seat is taken (join the waiting list)")
        profile = deps.accounts.profile(player_id)
        minimum, maximum = record.settings.min_buy_in, record.settings.max_buy_in
        rathole = None
        back = returning(record, player_id, now)  # R7.11
        if back is not None and back.counts:
            today = utc_day(now)
            rathole = (today, profile.ratholes_on(today) + 1, profile.rathole_day)
        if back is not None and back.deep_stack:
            minimum = max(minimum, back.minimum(profile.balance))
            maximum = max(maximum, minimum)
            if not minimum <= buy_in <= maximum:
                raise ServiceError("bad_buy_in", _deep_stack_refusal(record, back, minimum,
                                                                     now))
        if not minimum <= buy_in <= maximum:
            raise ServiceError("bad_buy_in", f"the buy-in must be between {minimum} and "
                               f"{maximum}")
        index = seat_index
        if index is None:
            index = next((i for i, s in enumerate(state.seats) if s is None), None)
            if index is None:
                raise ServiceError("table_full", "every seat is taken")
        if index >= state.config.seat_count:
            raise ServiceError("unknown_seat", f"this table has {state.config.seat_count} seats")
        if profile.balance < buy_in:
            raise ServiceError("insufficient_funds", "your account cannot cover that buy-in")
        outcome = engine_step(deps, record, cmd.SitDown(
            seat_index=index, player_id=player_id, stack=buy_in, entry=EntryChoice(entry)))
        was_waiting = player_id in room.offers or player_id in room.waitlist
        room.offers.pop(player_id, None)
        if player_id in room.waitlist:
            room.waitlist.remove(player_id)
        room.seated_since[player_id] = now
        record.connections[player_id] = caller.connection_id
        record.disconnected.pop(player_id, None)
        record.left_stacks.pop(player_id, None)
        path.watch(deps, caller.connection_id, record.table_id)
        outcome.moves.append(AccountMove(player_id, buy_in, record.table_id,
                                         visited=visited_after(profile, record.table_id),
                                         rathole=rathole,
                                         waitlist=False if was_waiting else None))
        return outcome

    return change


def _deep_stack_refusal(record: TableRecord, back: Return, minimum: int, now: int) -> str:
    """Why a return to a deep-stack table is refused, in words (R7.11)."""
    minutes = max(1, -(-(now - back.left_ms) // 60_000))
    ago = f"{minutes} minute{'s' if minutes != 1 else ''} ago"
    table_max = record.settings.max_buy_in
    amount = (f"exactly {minimum}, above the table's {table_max} maximum"
              if minimum > table_max else f"{minimum} to {table_max}")
    return (f"this is a deep-stack table: you left it {ago} with {back.left_with} chips, so "
            f"until 30 minutes have passed you buy in for {amount} (R7.11: no ratholing)")


def leave_table(deps: Deps, caller: Caller, request: p.LeaveTable) -> None:
    """Leave; the stack returns to the account (after the hand if still in it)."""
    def change(record: TableRecord, now: int) -> Outcome:
        seat_of(record, caller.player_id)
        refuse_at_tournament(record, "leaving with your chips")
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
        outcome = engine_step(deps, record, cmd.SitIn(seat_index=seat_of(record, player_id),
                                                      entry=EntryChoice(request.entry)))
        record.sitting_out_since.pop(player_id, None)
        if player_id in record.sit_out_after_hand:
            record.sit_out_after_hand.remove(player_id)
        return outcome

    path.mutate(deps, request.table_id, change, caller=caller)


def choose_entry(deps: Deps, caller: Caller, request: p.ChooseEntry) -> None:
    """Post now or wait for the big blind (R7.8), until the next hand starts."""
    def change(record: TableRecord, now: int) -> Outcome:
        refuse_at_tournament(record, "posting to enter")
        return engine_step(deps, record, cmd.ChooseEntry(
            seat_index=seat_of(record, caller.player_id), entry=EntryChoice(request.entry)))

    path.mutate(deps, request.table_id, change, caller=caller)


def add_chips(deps: Deps, caller: Caller, request: p.AddChips) -> None:
    """Reload between hands, up to the maximum buy-in (R7.1)."""
    def change(record: TableRecord, now: int) -> Outcome:
        refuse_at_tournament(record, "adding chips")
        seat_index = seat_of(record, caller.player_id)
        seat = record.state.seats[seat_index]
        assert seat is not None
        if seat.stack + request.amount > record.settings.max_buy_in:
            raise ServiceError("bad_buy_in", f"a stack may not exceed the maximum buy-in of "
                               f"{record.settings.max_buy_in}")
        busted = seat.stack == 0 and seat.sitting_out
        outcome = engine_step(deps, record, cmd.AddChips(seat_index=seat_index,
                                                         amount=request.amount))
        outcome.moves.append(AccountMove(caller.player_id, request.amount, record.table_id,
                                         LedgerReason.RELOAD))
        if busted:  # R7.9: sat out for having no chips until they reload: back in
            outcome.add(engine_step(deps, record, cmd.SitIn(seat_index=seat_index)))
            record.sitting_out_since.pop(caller.player_id, None)
        return outcome

    path.mutate(deps, request.table_id, change, caller=caller)
