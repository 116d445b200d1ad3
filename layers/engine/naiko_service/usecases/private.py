""":mod:`naiko_service.usecases.private` is a private table's host (R7.2, R7.12): invitations by
player id and by a revocable invite code, and, between hands, the blinds and the clock, BOT
seats (their chips from the house's bot account, on the ledger), removing a player, pausing,
resuming and closing the table (every stack goes back). When the host leaves, the
longest-seated player becomes host (:func:`.seats.remove_player`)."""

from __future__ import annotations

from dataclasses import replace

from naiko import commands as cmd

from .. import auth
from .. import protocol as p
from ..ledger import HOUSE_BOTS as HOUSE_BOTS  # where BOT seats buy in from (R8.4)
from ..notices import SettingsChanged, TablePaused
from ..ports import AccountMove
from ..records import TableRecord
from . import fanout, room, transaction
from .base import Caller, Deps, Outcome, ServiceError, engine_step
from .policies import policy_for
from .policies.private import apply_settings, close_table
from .seats import remove_player

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Invite-code letters: capitals and digits without the easily confused 0/O, 1/I."""

CODE_LENGTH = 8


def host_of(record: TableRecord, player_id: str) -> None:
    """:raises ServiceError: ``not_host`` unless *player_id* hosts the table: a private
    table's host (R7.12). Public tables are the room's and have no host controls
    (``not_private``); a tournament's table neither (``tournament_table``)."""
    policy_for(record).refuse(record, "hosting")
    if not record.settings.private:
        raise ServiceError("not_private", "host controls are for private tables (R7.12); "
                           "a public table is run by the room")
    if record.settings.host != player_id:
        raise ServiceError("not_host", "only the table's host may do that (R7.12)")
    if record.closed:
        raise ServiceError("table_closed", "this table is closed")


def invite(deps: Deps, caller: Caller, request: p.Invite) -> None:
    """Invite a player by id: they may sit (and watch) at the private table."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        room.invite(record, request.player_id)
        return Outcome(quiet=True)

    transaction.mutate(deps, request.table_id, change, caller=caller)


def uninvite(deps: Deps, caller: Caller, request: p.Uninvite) -> None:
    """Take a player off the invited players: they may no longer sit or watch (a seat they
    have is kept until they leave; a place on the waiting list goes)."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        settings = record.settings
        if request.player_id not in settings.invited:
            raise ServiceError("not_invited", f"{request.player_id} is not invited here")
        record.settings = replace(settings, invited=tuple(
            player for player in settings.invited if player != request.player_id))
        outcome = Outcome(quiet=True)
        room.off_the_waitlist(record, request.player_id, outcome)
        return outcome

    transaction.mutate(deps, request.table_id, change, caller=caller)


def create_invite_code(deps: Deps, caller: Caller, request: p.CreateInviteCode) -> None:
    """A new invite code for the table (the previous one stops working); whoever brings it may
    watch and sit. The host's view shows it."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        record.room.invite_code = "".join(
            CODE_ALPHABET[deps.rng.randrange(len(CODE_ALPHABET))] for _ in range(CODE_LENGTH))
        return Outcome(quiet=True)

    record = transaction.mutate(deps, request.table_id, change, caller=caller)
    if record.room.invite_code is not None:  # a replay after a revoke: no code to give
        fanout.send(deps, caller.connection_id, {"type": "invite_code", "request_id":
                                                 request.request_id,
                                                 "table_id": record.table_id,
                                                 "code": record.room.invite_code})


def revoke_invite_code(deps: Deps, caller: Caller, request: p.RevokeInviteCode) -> None:
    """The code stops working; players it already let in stay invited."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        record.room.invite_code = None
        return Outcome(quiet=True)

    transaction.mutate(deps, request.table_id, change, caller=caller)


def find_table(deps: Deps, caller: Caller, request: p.FindTable) -> None:
    """The private table an invite code opens (the code index, never a scan)."""
    table_id = deps.tables.find_by_code(request.code)
    if table_id is None:
        raise ServiceError("bad_invite_code", "no table has that invite code")
    fanout.send(deps, caller.connection_id, {"type": "table_found", "request_id":
                                             request.request_id, "table_id": table_id})


def host_settings(deps: Deps, caller: Caller, request: p.HostSettings) -> None:
    """Change the blinds, the clock or the players needed to start: at once between hands,
    else from the next hand (R7.12); the chat (R8.9) at once."""
    changes: dict[str, int] = {}
    if request.small_blind is not None:
        changes["small_blind"] = request.small_blind
    if request.big_blind is not None:
        changes["big_blind"] = request.big_blind
    if request.decision_seconds is not None:
        changes["decision_ms"] = request.decision_seconds * 1000
    if request.min_players is not None:
        changes["min_players"] = request.min_players
    chat = request.chat
    if not changes and chat is None:
        raise ServiceError("invalid_request", "name at least one setting to change")

    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        outcome = Outcome()
        if chat is not None:  # R8.9: the host's choice, at once (nothing to wait for)
            record.settings = replace(record.settings, chat=chat)
            outcome.events.append(SettingsChanged(changes={"chat": chat}, pending=False))
        if not changes:
            return outcome
        merged = {**record.room.pending, **changes}
        small = merged.get("small_blind", record.state.config.small_blind)
        big = merged.get("big_blind", record.state.config.big_blind)
        if small > big:
            raise ServiceError("invalid_request", "the small blind cannot exceed the big blind")
        if big > record.settings.min_buy_in:  # as create_table: a buy-in covers a big blind
            raise ServiceError("invalid_request", f"the big blind cannot exceed the minimum "
                               f"buy-in of {record.settings.min_buy_in}")
        if merged.get("min_players", 2) > record.state.config.seat_count:
            raise ServiceError("invalid_request", "min_players cannot exceed the seats")
        if record.state.hand_in_progress:
            record.room.pending = merged
            outcome.events.append(SettingsChanged(changes=dict(changes), pending=True))
            return outcome
        apply_settings(record, merged)
        record.room.pending = {}
        outcome.events.append(SettingsChanged(changes=dict(changes), pending=False))
        return outcome

    transaction.mutate(deps, request.table_id, change, caller=caller)


def host_add_bot(deps: Deps, caller: Caller, request: p.HostAddBot) -> None:
    """Seat a BOT (tables with bots on), its buy-in from the house's bot account."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        return seat_bot(deps, record, now, None, request.buy_in)

    transaction.mutate(deps, request.table_id, change, caller=caller)


def seat_bot(deps: Deps, record: TableRecord, now: int, bot_id: str | None,
             buy_in: int | None) -> Outcome:
    """Seat a BOT (R8.4) whose chips come from, and go back to, :data:`HOUSE_BOTS`."""
    if not record.settings.bots:
        raise ServiceError("bots_off", "this table was created without bots")
    seat_index = next((i for i, s in enumerate(record.state.seats) if s is None), None)
    if seat_index is None or record.free_seats == 0:
        raise ServiceError("table_full", "every seat is taken")
    if bot_id is None:
        number = 1
        while record.seat_of(auth.bot_id(number)) is not None:
            number += 1
        bot_id = auth.bot_id(number)
    amount = buy_in or (record.settings.min_buy_in + record.settings.max_buy_in) // 2
    if not record.settings.min_buy_in <= amount <= record.settings.max_buy_in:
        raise ServiceError("bad_buy_in", f"the buy-in must be between "
                           f"{record.settings.min_buy_in} and {record.settings.max_buy_in}")
    outcome = engine_step(deps, record, cmd.SitDown(seat_index=seat_index, player_id=bot_id,
                                                    stack=amount, is_bot=True))
    record.room.funding[bot_id] = HOUSE_BOTS
    record.room.seated_since[bot_id] = now
    outcome.moves.append(AccountMove(HOUSE_BOTS, amount, record.table_id))
    return outcome


def host_remove(deps: Deps, caller: Caller, request: p.HostRemove) -> None:
    """Remove a player or a BOT: their stack goes back to their account (after the hand if
    they are in it)."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        if request.player_id == caller.player_id:
            raise ServiceError("invalid_request", "leave the table instead")
        if record.seat_of(request.player_id) is None:
            raise ServiceError("not_seated", f"{request.player_id} has no seat here")
        return remove_player(deps, record, now, request.player_id, reason="removed_by_host")

    transaction.mutate(deps, request.table_id, change, caller=caller)


def host_pause(deps: Deps, caller: Caller, request: p.HostPause) -> None:
    """Pause (no new hand starts; a hand in progress finishes) or resume the table."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        record.room.paused = request.paused
        return Outcome([TablePaused(paused=request.paused)])

    transaction.mutate(deps, request.table_id, change, caller=caller)


def host_close(deps: Deps, caller: Caller, request: p.HostClose) -> None:
    """Close the table: every stack goes back to its account, now or when the hand ends."""
    def change(record: TableRecord, now: int) -> Outcome:
        host_of(record, caller.player_id)
        if record.state.hand_in_progress:
            record.room.closing = True
            record.room.paused = True
            return Outcome([TablePaused(paused=True)])
        return close_table(deps, record, now, reason="host")

    transaction.mutate(deps, request.table_id, change, caller=caller)


