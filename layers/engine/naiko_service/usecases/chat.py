""":mod:`naiko_service.usecases.chat` is table chat (R8.9): ``chat`` and ``emote`` say something
to a table the connection watches, ``chat_mute`` and ``chat_unmute`` choose whose chat this
connection receives.

A message costs one read of the table item (who watches it, who is seated, the table's chat
setting), one batched read of the recipients' mutes (:meth:`~naiko_service.ports.Connections.
muted_by`), one small write during a hand (the line, kept for the hand's record:
:class:`~naiko_service.ports.ChatLog`) and one post per recipient. It never writes the table
item, so chat never conflicts with a player's action on the table's version, nor moves the
version players see. What goes out is the speaker's own text (normalised by the protocol:
:func:`naiko_service.protocol._chat_text`) or an emote code, with only who said it added by the
server: chat can show nothing the server hides.

Who reads it: everyone watching the table at once (no private messages, R8.9), but for the
connections that muted the speaker and, at a table whose chat is ``apart`` during a hand, the
other group (the seated players' chat to seated players, the spectators' to spectators).
"""

from __future__ import annotations

from typing import Any

from .. import protocol as p
from ..hand_records import ChatLine
from ..limits import MAX_MUTES
from ..ports import TooManyMutes
from ..records import TableRecord
from . import fanout, transaction
from .base import Caller, Deps, RateLimited, ServiceError, refuse_bot_seat
from .spectators import WATCHER_PAGE


def say(deps: Deps, caller: Caller, request: p.Chat | p.SendEmote) -> None:
    """``chat`` / ``emote``: send *request* to the table's watchers (the speaker's own
    connection gets it as the answer, with the ``request_id``).

    :raises ServiceError: ``not_watching`` (this connection does not watch the table: send a
        ``snapshot`` first), ``chat_off`` (the table's chat is off), ``rate_limited`` (the
        player's chat bucket is empty, :class:`~naiko_service.ratelimit.ChatLimits`).
    """
    limiter = deps.chat_limiter
    key = f"{caller.player_id}/{caller.request_id}"
    if limiter.said(key):  # a replay: answered, not said twice
        fanout.send(deps, caller.connection_id, fanout.ack(caller, request.table_id, None, True))
        return
    record = transaction.load(deps, request.table_id)
    refuse_bot_seat(record, caller.player_id)
    if not _watches(deps, record, caller):
        raise ServiceError("not_watching", "this connection does not watch that table: send "
                           "a snapshot of it first")
    if record.settings.chat == "off":
        raise ServiceError("chat_off", "chat is off at this table (R8.9)")
    now = deps.clock.now_ms()
    wait_ms = limiter.take(caller.player_id, now)
    if wait_ms:
        raise RateLimited("you are chatting too fast (R8.9): wait a moment", wait_ms)
    limiter.remember(key, now)
    seat_index = record.seat_of(caller.player_id)
    line = ChatLine(caller.player_id, seat_index, now,
                    text=request.text if isinstance(request, p.Chat) else None,
                    emote=request.emote if isinstance(request, p.SendEmote) else None)
    hand = record.state.hand
    in_hand = record.state.hand_in_progress and hand is not None
    apart = in_hand and record.settings.chat == "apart"
    if deps.chat_log is not None and hand is not None and in_hand \
            and (seat_index is not None or not apart):  # what the hand's players read
        if not deps.chat_log.add(record.table_id, hand.number, key, line):
            fanout.send(deps, caller.connection_id,
                        fanout.ack(caller, request.table_id, None, True))
            return  # said already, by another container
    deps.count("ChatMessages", 1)
    recipients = audience(record, caller.player_id, apart, spectators_of(deps, record))
    muted = deps.connections.muted_by([c for pid, c in recipients if pid != caller.player_id])
    message = chat_message(record.table_id, line)
    for player_id, connection_id in recipients:
        if player_id == caller.player_id:
            fanout.send(deps, connection_id, {**message, "request_id": caller.request_id})
        elif caller.player_id not in muted.get(connection_id, frozenset()):
            fanout.send(deps, connection_id, message)


def _watches(deps: Deps, record: TableRecord, caller: Caller) -> bool:
    """Whether *caller*'s connection watches *record*: as a member (the table item) or as a
    spectator (their own items)."""
    return record.connections.get(caller.player_id) == caller.connection_id \
        or deps.watchers.connection_of(record.table_id, caller.player_id) == caller.connection_id


def spectators_of(deps: Deps, record: TableRecord) -> list[tuple[str, str]]:
    """``(player_id, connection_id)`` of the table's spectators, paged from their own items
    (:class:`~naiko_service.ports.Watchers`, issue 23 item 3: never in the table item). A
    crowded table pays one Query per :data:`.spectators.WATCHER_PAGE` of them for each line
    said (docs/service.md "Table chat")."""
    found: list[tuple[str, str]] = []
    if not deps.watchers.count(record.table_id):
        return found
    after: str | None = None
    while True:
        page, after = deps.watchers.page(record.table_id, None, after, WATCHER_PAGE)
        found.extend((w.player_id, w.connection_id) for w in page
                     if w.player_id not in record.connections)
        if after is None:
            return found


def audience(record: TableRecord, speaker: str, apart: bool,
             spectators: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """``(player_id, connection_id)`` of who reads *speaker* at *record*: everyone watching
    (the members in the table item and the *spectators* in their own items), or with *apart*
    only those of the speaker's group (seated or spectating)."""
    watching = list(record.connections.items()) + list(spectators or [])
    if not apart:
        return watching
    seated = record.seat_of(speaker) is not None
    return [(pid, c) for pid, c in watching if (record.seat_of(pid) is not None) == seated]


def chat_message(table_id: str, line: ChatLine) -> dict[str, Any]:
    """The ``chat`` message of *line* (:class:`~naiko_service.protocol.ChatMessage`)."""
    return {"type": "chat", "table_id": table_id, **line.to_dict()}


def mute(deps: Deps, caller: Caller, request: p.ChatMute) -> None:
    """``chat_mute``: this connection stops receiving *player_id*'s chat (answered ``ack``).

    :raises ServiceError: ``invalid_request`` (yourself), ``too_many_mutes``.
    """
    if request.player_id == caller.player_id:
        raise ServiceError("invalid_request", "you cannot mute yourself")
    try:
        deps.connections.mute(caller.connection_id, request.player_id)
    except TooManyMutes as exc:
        raise ServiceError("too_many_mutes", f"a connection mutes at most "
                           f"{MAX_MUTES} players: unmute one first") from exc
    fanout.send(deps, caller.connection_id, _ack(caller))


def unmute(deps: Deps, caller: Caller, request: p.ChatUnmute) -> None:
    """``chat_unmute``: this connection receives *player_id*'s chat again (answered ``ack``)."""
    deps.connections.unmute(caller.connection_id, request.player_id)
    fanout.send(deps, caller.connection_id, _ack(caller))


def _ack(caller: Caller) -> dict[str, Any]:
    """The ``ack`` of a mute or an unmute (no table: a connection's choice)."""
    return {"type": "ack", "request_id": caller.request_id}
