""":mod:`naiko_service.usecases.connections` is a client's connection: binding the verified
player at ``$connect``, marking them disconnected at ``$disconnect`` (the seat is kept and the
clock is not reset, R8.2), the ``snapshot`` that (re)subscribes a connection to a table and
returns its confirmed state (R8.3), and the ``heartbeat`` that keeps it open."""

from __future__ import annotations

from .. import protocol as p
from ..records import TableRecord
from . import fanout, push, spectators, subscriptions, transaction, views
from .base import Caller, Deps, NoOp, Outcome, ServiceError, refuse_bot_seat
from .room import invite, may_sit
from .subscriptions import drop_connection, subscribe


def connect(deps: Deps, connection_id: str, player_id: str) -> None:
    """``$connect``: bind the verified player to the connection."""
    deps.connections.bind(connection_id, player_id, deps.clock.now_ms())
    push.connected(deps, player_id, connection_id)


def disconnect(deps: Deps, connection_id: str) -> None:
    """``$disconnect``: the player is marked disconnected at the tables it watched; the seat
    is kept and the clock is not reset (R8.2, R8.3).

    A disconnect always takes effect: when several clients of one table close together their
    writes conflict, so each table's drop is retried until it is written (``busy`` is not an
    answer here: nobody is waiting for one) while the invocation has time. If it still has not
    been written, nothing is lost either: the next fan-out finds the connection gone (410) and
    drops it, and a decision clock that runs out checks the player's connection before deciding
    (R8.2, :func:`.deadlines.on_decision`)."""
    player_id = deps.connections.player_of(connection_id)
    try:
        if player_id is not None:
            for table_id in deps.connections.tables_of(connection_id):
                if deps.watchers.remove(table_id, player_id, connection_id):
                    continue  # a spectator: its own item, the table is not written
                try:
                    transaction.mutate_until_written(deps, table_id,
                                                     drop_connection(player_id, connection_id))
                except ServiceError:  # out of time: the next fan-out finds it gone (410)
                    deps.count("DisconnectsDeferred", 1)
                    deps.warn("disconnect left to the next fan-out",
                              {"table_id": table_id, "connection_id": connection_id})
    finally:
        deps.connections.unbind(connection_id)
        if player_id is not None:
            push.disconnected(deps, player_id, connection_id)


def snapshot(deps: Deps, caller: Caller, request: p.Snapshot) -> None:
    """Watch a table (as a player or a spectator) and get its confirmed state.

    A member (seated, in line, offered a seat) subscribing a new connection, or coming back
    after a disconnect, is a table write, retried while the table is busy; a snapshot on the
    connection already subscribed is a read only. A spectator is an item of its own
    (:func:`.spectators.subscribe`): the table item is not written (but to note an invite
    code's invitation at a private table), so a crowd arriving together never contends for
    it."""
    record = transaction.load(deps, request.table_id)
    player_id = caller.player_id
    refuse_bot_seat(record, player_id)  # R8.4: a BOT's view (its cards) is nobody's
    code = request.invite_code
    if record.settings.private and not may_sit(record, player_id) \
            and (code is None or code != record.room.invite_code):
        raise ServiceError("not_invited", "this private table shows itself to invited "
                           "players only (R7.12)")
    member = spectators.is_member(record, player_id) or player_id in record.connections
    if (member and (record.connections.get(player_id) != caller.connection_id
                    or player_id in record.disconnected)) \
            or (code is not None and not may_sit(record, player_id)):
        def change(rec: TableRecord, now: int) -> Outcome:
            if code is not None and rec.settings.private and not may_sit(rec, player_id):
                if code != rec.room.invite_code:
                    raise ServiceError("bad_invite_code", "that invite code is not this table's")
                invite(rec, player_id)
            if not (spectators.is_member(rec, player_id) or player_id in rec.connections):
                return Outcome(quiet=True)  # a spectator: invited, watching from its own item
            return subscribe(rec, player_id, caller.connection_id)

        watched = record.connections.get(player_id) == caller.connection_id
        subscriptions.watch(deps, caller.connection_id, request.table_id)  # refused at the cap
        try:
            written = transaction.mutate_until_written(deps, request.table_id, change)
        except ServiceError:
            if not watched:  # refused: the connection does not watch it after all
                deps.connections.remove_table(caller.connection_id, request.table_id)
            raise
        if written is not None:
            # Its fan-out may have written again (connections found gone): answer with the
            # table as stored now, never an older version.
            record = transaction.load(deps, request.table_id)
    if not (spectators.is_member(record, player_id) or player_id in record.connections):
        subscriptions.watch(deps, caller.connection_id, request.table_id)  # refused at the cap
        try:
            spectators.subscribe(deps, request.table_id, player_id, caller.connection_id)
        except ServiceError:  # a new spectator at the cap: the connection does not watch it
            deps.connections.remove_table(caller.connection_id, request.table_id)
            raise
    fanout.send(deps, caller.connection_id,
                views.snapshot_message(record, player_id, caller.request_id,
                                      deps.clock.now_ms()))


def unwatch(deps: Deps, caller: Caller, request: p.Unwatch) -> None:
    """Stop watching a table without a seat there: a spectator's item is removed (the table
    item is read, not written; a connection still in the table item is forgotten there, a
    quiet write), and the table leaves the connection's item. A seated player, or one on the
    waiting list, must leave first (their updates are how seat offers and turns reach them)."""
    player_id = caller.player_id

    def change(record: TableRecord, now: int) -> Outcome:
        if record.seat_of(player_id) is not None:
            raise ServiceError("seated", "you have a seat at this table: leave_table first")
        if player_id in record.room.waitlist or player_id in record.room.offers:
            raise ServiceError("waiting", "you are on this table's waiting list: "
                               "leave_waitlist first")
        if record.connections.get(player_id) != caller.connection_id:
            raise NoOp()
        del record.connections[player_id]
        return Outcome(quiet=True)

    try:
        transaction.mutate(deps, request.table_id, change, caller=caller)
    except NoOp:  # not in the table item (a spectator, or not watching): nothing written there
        fanout.send(deps, caller.connection_id, fanout.ack(caller, request.table_id, None))
    deps.watchers.remove(request.table_id, player_id, caller.connection_id)
    deps.connections.remove_table(caller.connection_id, request.table_id)


def heartbeat(deps: Deps, connection_id: str, request: p.Heartbeat) -> None:
    """Answer a ``heartbeat`` with the server's time. The frame itself is what keeps the
    connection open (API Gateway's idle timeout counts client frames); nothing is read or
    written."""
    fanout.send(deps, connection_id, p.heartbeat_message(request.request_id, deps.clock.now_ms()))
