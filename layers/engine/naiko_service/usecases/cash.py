""":mod:`naiko_service.usecases.cash` is a player's life at a cash or private table: joining with
a buy-in from the account, leaving with the stack, sitting out and in, adding chips, and the
waiting list of a full table (R7.1, R7.2, R7.9, R7.10, R7.11)."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.state import EntryChoice

from .. import protocol as p
from ..limits import MAX_WAITLIST
from ..notices import WaitlistChanged
from ..ports import AccountMove, LedgerReason, TableNotFound, visited_after
from ..records import TableRecord
from . import fanout, subscriptions, transaction
from .base import Caller, Change, Deps, Outcome, ServiceError, engine_step, seat_of
from .policies import policy_for
from .room import Return, invite, may_sit, off_the_waitlist, returning, utc_day
from .seats import remove_player, sit_out


def join_table(deps: Deps, caller: Caller, request: p.JoinTable) -> None:
    """Sit down with a buy-in moved from the account in the same transaction (R7.1)."""
    transaction.mutate(deps, request.table_id,
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
        policy_for(record).refuse(record, "buying in")
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
        subscriptions.watch(deps, caller.connection_id, record.table_id)
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
        policy_for(record).refuse(record, "leaving with your chips")
        return remove_player(deps, record, now, caller.player_id, reason="left")

    transaction.mutate(deps, request.table_id, change, caller=caller)


def sit_out_request(deps: Deps, caller: Caller, request: p.SitOut) -> None:
    """Stop being dealt in from the next hand (R7.9)."""
    def change(record: TableRecord, now: int) -> Outcome:
        seat_of(record, caller.player_id)
        return sit_out(deps, record, now, caller.player_id)

    transaction.mutate(deps, request.table_id, change, caller=caller)


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

    transaction.mutate(deps, request.table_id, change, caller=caller)


def choose_entry(deps: Deps, caller: Caller, request: p.ChooseEntry) -> None:
    """Post now or wait for the big blind (R7.8), until the next hand starts."""
    def change(record: TableRecord, now: int) -> Outcome:
        policy_for(record).refuse(record, "posting to enter")
        return engine_step(deps, record, cmd.ChooseEntry(
            seat_index=seat_of(record, caller.player_id), entry=EntryChoice(request.entry)))

    transaction.mutate(deps, request.table_id, change, caller=caller)


def add_chips(deps: Deps, caller: Caller, request: p.AddChips) -> None:
    """Reload between hands, up to the maximum buy-in (R7.1)."""
    def change(record: TableRecord, now: int) -> Outcome:
        policy_for(record).refuse(record, "adding chips")
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

    transaction.mutate(deps, request.table_id, change, caller=caller)


# -- the waiting list (R7.10) -------------------------------------------------------------------

def join_waitlist(deps: Deps, caller: Caller, request: p.JoinWaitlist) -> None:
    """Join a full table's waiting list (R7.10): at most :data:`MAX_WAITLIST` players per table
    and :data:`MAX_WAITLISTS_PER_PLAYER` lists per player (the account's ``waiting`` set, in
    the same transaction); the connection is subscribed, so the seat offer reaches it."""
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        policy_for(record).refuse(record, "a waiting list")
        if record.closed:
            raise ServiceError("table_closed", "this table is closed")
        if record.seat_of(player_id) is not None:
            raise ServiceError("already_seated", "you already have a seat at this table")
        if not may_sit(record, player_id):
            raise ServiceError("not_invited", "this private table is for invited players (R7.2)")
        if player_id in record.room.waitlist or player_id in record.room.offers:
            record.connections[player_id] = caller.connection_id
            return Outcome(quiet=True)  # already in line
        if record.free_seats:
            raise ServiceError("seat_available", "a seat is free: join the table")
        if len(record.room.waitlist) >= MAX_WAITLIST:
            raise ServiceError("waitlist_full", f"{MAX_WAITLIST} players are waiting for this "
                               "table already, the most a list may hold: try another table")
        record.room.waitlist.append(player_id)
        record.connections[player_id] = caller.connection_id
        subscriptions.watch(deps, caller.connection_id, record.table_id)
        return Outcome([WaitlistChanged(waitlist=tuple(record.room.waitlist))],
                       moves=[AccountMove(player_id, 0, record.table_id, waitlist=True)])

    transaction.mutate(deps, request.table_id, change, caller=caller)


def leave_waitlist(deps: Deps, caller: Caller, request: p.LeaveWaitlist) -> None:
    """Leave the waiting list (an offer held for the player goes to the next in line). Also
    answered when the table no longer holds the player (closed, gone): the account forgets it
    either way."""
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        outcome = Outcome()
        if not off_the_waitlist(record, player_id, outcome):
            raise ServiceError("not_waiting", "you are not on this table's waiting list")
        return outcome

    try:
        transaction.mutate(deps, request.table_id, change, caller=caller)
    except (ServiceError, TableNotFound) as error:
        if isinstance(error, ServiceError) and error.code != "not_waiting":
            raise
        if request.table_id not in deps.accounts.profile(caller.player_id).waiting:
            raise ServiceError("not_waiting", "you are not on this table's waiting list") \
                from None
        deps.accounts.forget_waiting(caller.player_id, request.table_id)  # a stale entry
        fanout.send(deps, caller.connection_id, fanout.ack(caller, request.table_id, None))
