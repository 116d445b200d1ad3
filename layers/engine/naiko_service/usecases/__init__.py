""":mod:`naiko_service.usecases` is the table service: every route and timer, written once
against the ports, one module per concern:

=========================== ==============================================================
:mod:`.connections`         ``$connect``, ``$disconnect``, ``snapshot``, ``heartbeat``
:mod:`.lobby`               ``create_table``, ``list_tables``, ``quick_seat``, ``get_account``
:mod:`.cash`                ``join_table``, ``leave_table``, ``sit_out``, ``sit_in``,
                            ``add_chips``, ``join_waitlist``, ``leave_waitlist``
:mod:`.private`             a private table's host: invitations, settings, BOTs, pause, close
:mod:`.play`                ``act``, ``use_power``, ``shield``, ``pass_window``
:mod:`.timers`              the timer callback, the sweep (:mod:`.deadlines`: one handler per
                            timer kind)
:mod:`.tournaments`         ``create_tournament``, ``list_tournaments``, ``get_tournament``,
                            ``tournament_players``, ``tournament_results``, ``register``,
                            ``unregister``, ``tournament_add_bots``, ``cancel_tournament``,
                            the tournaments' timers (R9)
:mod:`.standings`           ``get_standings``: a tournament's live standings, paged
:mod:`.histories`           ``hand_history``, ``get_hand``: the stored hands (R10.1)
:mod:`.chat`                ``chat``, ``emote``, ``chat_mute``, ``chat_unmute``: table chat
                            (R8.9)
:mod:`.push`                ``register_device``, ``unregister_device``, the push
                            notifications of players whose app sleeps (issue 25)
:mod:`.policies`            one policy per table type (cash, private, Sit & Go / Spin,
                            scheduled multi-table), asked by the dealer and the clock
:mod:`.tournament_tables`   what a tournament's table adds to the dealer and the clock
:mod:`.mtt`                 what a scheduled tournament's tables do together (R9.7, R9.8)
:mod:`.tournament_payments` prizes and refunds, each paid once
:mod:`.bots`                BOT seats
:mod:`.transaction`         the one way a table changes: load, change, drive, arm, conditional
                            write, answer, fan out
:mod:`.views`, :mod:`.fanout`, :mod:`.arming`   what a player sees, telling them, the wake-up
:mod:`.dealer`              what drives a table after any change (hands, timers)
:mod:`.seats`, :mod:`.room`, :mod:`.subscriptions`   record-level seat, waiting-list and
                            connection changes
=========================== ==============================================================

:func:`handle` dispatches a parsed request with an exhaustive ``match`` (``mypy --strict``
proves that every request kind of :data:`naiko_service.protocol.ClientRequest` is handled);
:class:`TableService` is the object the Lambda handlers and the local stack hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from naiko.errors import EngineError

from .. import protocol as p
from ..ports import TableNotFound
from ..ratelimit import ALLOWED, Admission, RateLimiter
from ..records import TableRecord
from . import (
    bots,
    cash,
    chat,
    connections,
    deal_requests,
    fanout,
    histories,
    lobby,
    play,
    private,
    push,
    standings,
    timers,
    tournaments,
    views,
)
from .base import Caller, Deps, ServiceError, refuse_bot

__all__ = ["Deps", "ServiceError", "TableService", "handle"]


def handle(deps: Deps, connection_id: str, player_id: str, request: p.ClientRequest) -> None:
    """Apply one validated request from *player_id* and answer on *connection_id*: the use
    case's own answer, or an ``error`` frame with a stable code (nothing changed)."""
    if isinstance(request, p.Heartbeat):  # its request_id is optional: no Caller
        connections.heartbeat(deps, connection_id, request)
        return
    caller = Caller(connection_id, player_id, request.request_id)
    try:
        refuse_bot(player_id)  # R8.4: the authorizer lets no such token in; nor does this
        dispatch(deps, caller, request)
    except (ServiceError, EngineError) as error:
        deps.count("Errors", 1)
        fanout.send(deps, connection_id,
                    p.error_message(error.code, error.message, request.request_id,
                                    error.retry_after_ms if isinstance(error, ServiceError)
                                    else None,
                                    **({"scope": "player"} if error.code == "rate_limited"
                                       else {})))
    except TableNotFound:
        deps.count("Errors", 1)
        fanout.send(deps, connection_id,
                    p.error_message("unknown_table", "no table has that id", request.request_id))


def dispatch(deps: Deps, caller: Caller, request: p.ClientRequest) -> None:
    """The use case of each request kind."""
    match request:
        case p.CreateTable():
            lobby.create_table(deps, caller, request)
        case p.ListTables():
            lobby.list_tables(deps, caller, request)
        case p.Snapshot():
            connections.snapshot(deps, caller, request)
        case p.Unwatch():
            connections.unwatch(deps, caller, request)
        case p.JoinTable():
            cash.join_table(deps, caller, request)
        case p.LeaveTable():
            cash.leave_table(deps, caller, request)
        case p.SitOut():
            cash.sit_out_request(deps, caller, request)
        case p.SitIn():
            cash.sit_in(deps, caller, request)
        case p.ChooseEntry():
            cash.choose_entry(deps, caller, request)
        case p.AddChips():
            cash.add_chips(deps, caller, request)
        case p.Act():
            play.act(deps, caller, request)
        case p.UsePower():
            play.use_power(deps, caller, request)
        case p.Shield():
            play.shield(deps, caller, request)
        case p.PassWindow():
            play.pass_window(deps, caller, request)
        case p.JoinWaitlist():
            cash.join_waitlist(deps, caller, request)
        case p.LeaveWaitlist():
            cash.leave_waitlist(deps, caller, request)
        case p.QuickSeat():
            lobby.quick_seat(deps, caller, request)
        case p.GetAccount():
            lobby.get_account(deps, caller, request)
        case p.Invite():
            private.invite(deps, caller, request)
        case p.Uninvite():
            private.uninvite(deps, caller, request)
        case p.CreateInviteCode():
            private.create_invite_code(deps, caller, request)
        case p.RevokeInviteCode():
            private.revoke_invite_code(deps, caller, request)
        case p.FindTable():
            private.find_table(deps, caller, request)
        case p.HostSettings():
            private.host_settings(deps, caller, request)
        case p.HostAddBot():
            private.host_add_bot(deps, caller, request)
        case p.HostRemove():
            private.host_remove(deps, caller, request)
        case p.HostPause():
            private.host_pause(deps, caller, request)
        case p.HostClose():
            private.host_close(deps, caller, request)
        case p.CreateTournament():
            tournaments.create_tournament(deps, caller, request)
        case p.ListTournaments():
            tournaments.list_tournaments(deps, caller, request)
        case p.GetTournament():
            tournaments.tournament(deps, caller, request)
        case p.TournamentPlayers():
            tournaments.tournament_players(deps, caller, request)
        case p.TournamentResults():
            tournaments.tournament_results(deps, caller, request)
        case p.GetStandings():
            standings.get_standings(deps, caller, request)
        case p.Register():
            tournaments.register(deps, caller, request)
        case p.Reenter():
            tournaments.reenter(deps, caller, request)
        case p.Unregister():
            tournaments.unregister(deps, caller, request)
        case p.TournamentAddBots():
            tournaments.add_bots(deps, caller, request)
        case p.CancelTournament():
            tournaments.cancel_tournament(deps, caller, request)
        case p.HandHistory():
            histories.hand_history(deps, caller, request)
        case p.GetHand():
            histories.get_hand(deps, caller, request)
        case p.Heartbeat():
            connections.heartbeat(deps, caller.connection_id, request)
        # -- table chat (R8.9) --
        case p.Chat():
            chat.say(deps, caller, request)
        case p.SendEmote():
            chat.say(deps, caller, request)
        case p.ChatMute():
            chat.mute(deps, caller, request)
        case p.ChatUnmute():
            chat.unmute(deps, caller, request)
        case p.UseTimeBank():
            play.use_time_bank(deps, caller, request)
        case p.PreAction():
            play.pre_action(deps, caller, request)
        case p.ClearPreAction():
            play.clear_pre_action(deps, caller, request)
        case p.AskDeal():  # R9.16
            deal_requests.ask_deal(deps, caller, request)
        case p.AcceptDeal():
            deal_requests.accept_deal(deps, caller, request)
        case p.DeclineDeal():
            deal_requests.decline_deal(deps, caller, request)
        case p.RegisterDevice():
            push.register_device(deps, caller, request)
        case p.UnregisterDevice():
            push.unregister_device(deps, caller, request)
        case _:
            assert_never(request)


class TableService:
    """The use cases bound to one set of ports: one instance per Lambda container (or per
    local server). Each method is one entry point of the service.

    :param limiter: The container's frame limits (:mod:`naiko_service.ratelimit`); ``None``:
        no limit (tests that send frames as fast as they can).
    """

    def __init__(self, deps: Deps, limiter: RateLimiter | None = None):
        self.deps = deps
        self.limiter = limiter

    def admit(self, connection_id: str, player_id: str,
              frame_id: str | None = None) -> Admission:
        """Whether a frame of *player_id* on *connection_id* is within the rate limits; see
        :meth:`naiko_service.ratelimit.RateLimiter.admit`."""
        return ALLOWED if self.limiter is None else self.limiter.admit(connection_id,
                                                                       player_id, frame_id)

    def screen(self, connection_id: str, player_id: str, frame_id: str) -> Admission | None:
        """:meth:`admit` ahead of the handler (the local gateway); see
        :meth:`naiko_service.ratelimit.RateLimiter.screen`."""
        return None if self.limiter is None else self.limiter.screen(connection_id, player_id,
                                                                     frame_id)

    def connect(self, connection_id: str, player_id: str) -> None:
        """``$connect``: see :func:`.connections.connect`."""
        connections.connect(self.deps, connection_id, player_id)

    def disconnect(self, connection_id: str) -> None:
        """``$disconnect``: see :func:`.connections.disconnect`."""
        connections.disconnect(self.deps, connection_id)

    def handle(self, connection_id: str, player_id: str, request: p.ClientRequest) -> None:
        """A client frame, parsed: see :func:`handle`."""
        handle(self.deps, connection_id, player_id, request)

    def timer_fired(self, table_id: str, token: str) -> bool:
        """The timer callback: see :func:`.timers.timer_fired`."""
        return timers.timer_fired(self.deps, table_id, token)

    def timers_fired(self, wakeups: list[tuple[str, str]], *,
                     on_start: Callable[[str, str], None] | None = None
                     ) -> list[bool | Exception]:
        """A batch of wake-ups from the timer queue: see :func:`.timers.timers_fired`."""
        return timers.timers_fired(self.deps, wakeups, on_start=on_start)

    def sweep(self) -> int:
        """The sweep: see :func:`.timers.sweep`."""
        return timers.sweep(self.deps)

    def add_bot(self, table_id: str, bot_id: str, buy_in: int) -> None:
        """Seat a BOT: see :func:`.bots.add_bot`."""
        bots.add_bot(self.deps, table_id, bot_id, buy_in)

    def view(self, record: TableRecord, seat_index: int | None, *,
             proofs: bool = False) -> dict[str, Any]:
        """What *seat_index* sees of the table: see :func:`.views.table_view` (*proofs*: as in
        a snapshot)."""
        return views.table_view(record, seat_index, proofs=proofs)
