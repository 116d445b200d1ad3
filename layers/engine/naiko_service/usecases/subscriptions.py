""":mod:`naiko_service.usecases.subscriptions` records who watches a table: the connection a
player's updates go to, and whether a seated player is disconnected (R8.2, R8.3). Record-level
changes only; the caller's table write stores them. Only members (seated, in line, offered a
seat) are in the table item; spectators are items of their own (:mod:`.spectators`)."""

from __future__ import annotations

from naiko.events import Event

from ..limits import MAX_TABLES_PER_CONNECTION
from ..notices import Disconnected, Reconnected
from ..ports import TooManyWatched
from ..records import TableRecord
from .base import Change, Deps, NoOp, Outcome, ServiceError
from .spectators import is_member


def subscribe(record: TableRecord, player_id: str, connection_id: str) -> Outcome:
    """Send *player_id*'s updates to *connection_id*; a disconnected player is back (R8.3)."""
    record.connections[player_id] = connection_id
    if record.disconnected.pop(player_id, None) is not None:
        return Outcome([Reconnected(player_id=player_id)])
    return Outcome(quiet=True)  # nobody else sees who watches


def drop_connection(player_id: str, connection_id: str) -> Change:
    """The change that forgets *connection_id* of *player_id* (it closed, or API Gateway said it
    is gone); a seated player is marked disconnected and keeps the seat (R8.2)."""
    def change(record: TableRecord, now: int) -> Outcome:
        if record.connections.get(player_id) != connection_id:
            raise NoOp()
        del record.connections[player_id]
        if record.seat_of(player_id) is not None:
            record.disconnected.setdefault(player_id, now)
            return Outcome([Disconnected(player_id=player_id)])
        return Outcome(quiet=True)  # a spectator left: nothing anyone sees changed

    return change


def drop_connections(gone: list[tuple[str, str]],
                     leaving: list[tuple[str, str]] | None = None) -> Change:
    """The change that forgets every ``(player_id, connection_id)`` of *gone* at once (a
    fan-out found them gone): seated players are marked disconnected and keep their seats,
    which everyone sees (``disconnected`` events: the write is announced, with its own
    version); spectators leaving changes nothing anyone sees (a quiet write). The connections
    of *leaving* (players who left their seat or the line, spectators now: their own items,
    :func:`.spectators.demote`) leave the table item in the same write, unless they are members
    again by then."""
    def change(record: TableRecord, now: int) -> Outcome:
        dropped = False
        events: list[Event] = []
        for player_id, connection_id in gone:
            if record.connections.get(player_id) != connection_id:
                continue
            del record.connections[player_id]
            dropped = True
            if record.seat_of(player_id) is not None and player_id not in record.disconnected:
                record.disconnected[player_id] = now
                events.append(Disconnected(player_id=player_id))
        for player_id, connection_id in leaving or ():
            if record.connections.get(player_id) == connection_id \
                    and not is_member(record, player_id):
                del record.connections[player_id]
                dropped = True
        if not dropped:
            raise NoOp()
        return Outcome(events) if events else Outcome(quiet=True)

    return change


def watch(deps: Deps, connection_id: str, table_id: str) -> None:
    """Record that *connection_id* watches *table_id* (its fan-out reaches it).

    :raises ServiceError: ``too_many_tables_watched`` when the connection watches as many
        tables as one may (:data:`~naiko_service.limits.MAX_TABLES_PER_CONNECTION`).
    """
    try:
        deps.connections.add_table(connection_id, table_id)
    except TooManyWatched as exc:
        raise ServiceError("too_many_tables_watched", f"this connection watches "
                           f"{MAX_TABLES_PER_CONNECTION} tables already: stop watching one "
                           "first (unwatch)") from exc
