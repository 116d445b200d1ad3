""":mod:`naiko_service.usecases.push` tells a player whose app sleeps (issue 25, item 4): a phone
that backgrounds the app loses its WebSocket, so when it is their turn, a Seal Shield window is
aimed at them, a waiting-list seat is held for them, a tournament they registered for starts in
5 minutes or moves them to another table, and they have no live connection, a push notification
goes to the devices they registered (``register_device``), through the
:class:`~naiko_service.ports.Notifier` port (Amazon SNS mobile push in a deployment,
:mod:`naiko_service.aws.notifier`; a recorder locally).

* **Live** means: at a table, the player's connection watches it (``record.connections``, and
  the fan-out did not just find it gone); before a tournament (no table yet), one of the
  connections their device book counts as open still answers the gateway.
* **Rate-limited per player**, in their book (one item, so every container shares it): at most
  one notification of a kind every :data:`PER_KIND_MS`, and at most :data:`PER_MINUTE` a
  minute (a :class:`~naiko_service.ratelimit.Bucket` refilling at that rate). The book's write
  is conditional on its version: two containers never both pass the limit.
* **Public facts only**: a notification names the table or tournament and the kind of moment
  (:func:`render`), never a card, a stack, a bet or a hand; it is written in the player's
  language (the connection's ``?lang=`` at ``register_device``, :mod:`naiko_service.i18n`).
* **Off the critical path**: the pushes of a write go after its fan-out (every connected player
  has their update first); each failure is counted (``PushFailures``) and logged, never raised
  into the game. A device whose endpoint the push service disabled is forgotten.
"""

from __future__ import annotations

from collections.abc import Iterable

from naiko.events import Event, TurnStarted, WindowOpened

from .. import i18n
from .. import protocol as p
from ..auth import is_bot_id
from ..notices import PlayerMoved, SeatOffered
from ..ports import (
    Device,
    DeviceBook,
    EndpointDisabled,
    Notification,
    NotificationKind,
    Platform,
    PushUnavailable,
)
from ..ratelimit import Bucket
from ..records import TableRecord
from .base import Caller, Deps, ServiceError
from .fanout import AWS_CALL_WORST_MS, send

PER_KIND_MS = 30_000
"""At most one notification of one kind to one player in this long."""

PER_MINUTE = 6
"""At most this many notifications to one player a minute (all kinds together)."""

STARTING_SOON_MS = 5 * 60_000
"""A registered tournament's notification comes this long before its start (R9.2)."""

PUSH_WORST_MS = 2 * AWS_CALL_WORST_MS
"""One player's notification: the book's read and write; each publish is one more call."""

UNAVAILABLE = "push_unavailable"


def enabled(deps: Deps) -> bool:
    """Whether this deployment sends notifications at all (a device store and a notifier that
    reaches at least one platform)."""
    return deps.devices is not None and deps.notifier is not None \
        and bool(deps.notifier.platforms())


# -- the routes ----------------------------------------------------------------------------------

def register_device(deps: Deps, caller: Caller, request: p.RegisterDevice) -> None:
    """``register_device``: make the device's endpoint (SNS ``CreatePlatformEndpoint``) and keep
    it in the player's book, with this connection's language. Answered ``ack``.

    :raises ServiceError: ``push_unavailable`` when the deployment has no platform
        application for that platform (or notifications are off).
    """
    platform = Platform(request.platform)
    if not enabled(deps) or platform not in deps.notifier.platforms():  # type: ignore[union-attr]
        raise ServiceError(UNAVAILABLE, f"this server sends no push notifications to "
                           f"{platform} devices")
    assert deps.devices is not None and deps.notifier is not None
    try:
        endpoint = deps.notifier.endpoint(platform, request.token, caller.player_id)
    except PushUnavailable as exc:
        raise ServiceError(UNAVAILABLE, f"this server sends no push notifications to "
                           f"{platform} devices") from exc
    now = deps.clock.now_ms()
    deps.devices.add(caller.player_id, Device(platform, request.token, endpoint, now),
                     i18n.current_language(), now, caller.connection_id)
    deps.count("DevicesRegistered", 1)
    send(deps, caller.connection_id, _ack(caller))


def unregister_device(deps: Deps, caller: Caller, request: p.UnregisterDevice) -> None:
    """``unregister_device``: forget the device (idempotent: an unknown token is answered
    ``ack`` too) and delete its endpoint."""
    if deps.devices is not None:
        device = deps.devices.remove(caller.player_id, request.token)
        if device is not None and deps.notifier is not None:
            try:
                deps.notifier.forget(device)
            except Exception as error:  # an endpoint left behind only costs nothing
                deps.count("PushFailures", 1)
                deps.warn("could not delete a device's endpoint",
                          {"error": type(error).__name__})
    send(deps, caller.connection_id, _ack(caller))


def _ack(caller: Caller) -> dict[str, object]:
    return {"type": "ack", "request_id": caller.request_id, "version": None,
            "replayed": False}


def connected(deps: Deps, player_id: str, connection_id: str) -> None:
    """``$connect``: the player's book counts the connection as open (a tournament's
    notification is for players with none). A failure is logged, never refused."""
    if enabled(deps):
        assert deps.devices is not None
        try:
            deps.devices.connected(player_id, connection_id)
        except Exception as error:
            deps.count("PushFailures", 1)
            deps.warn("could not record a connection for push", {
                "error": type(error).__name__})


def disconnected(deps: Deps, player_id: str, connection_id: str) -> None:
    """``$disconnect``: the book no longer counts the connection."""
    if enabled(deps):
        assert deps.devices is not None
        try:
            deps.devices.disconnected(player_id, connection_id)
        except Exception as error:
            deps.count("PushFailures", 1)
            deps.warn("could not forget a connection for push", {
                "error": type(error).__name__})


# -- what a notification says --------------------------------------------------------------------

def render(kind: NotificationKind, lang: str, *, table: str = "", tournament: str = "",
           ids: dict[str, str] | None = None) -> Notification:
    """The notification of *kind* in *lang*: public facts only (the table's or tournament's
    name; ``ids``: the table or tournament to open)."""
    title = (i18n.text("power.seal_shield", lang) if kind is NotificationKind.SHIELD
             else i18n.text(f"push.{kind}.title", lang))
    body = i18n.text(f"push.{kind}.body", lang, table=table, tournament=tournament,
                     minutes=STARTING_SOON_MS // 60_000)
    return Notification(kind, title, body, dict(ids or {}))


# -- the rate limit ------------------------------------------------------------------------------

def admit(book: DeviceBook, kind: NotificationKind, now: int) -> float | None:
    """The bucket's tokens once a notification of *kind* is sent at *now*, or ``None`` when
    the limit refuses it (one of that kind within :data:`PER_KIND_MS`, or
    :data:`PER_MINUTE` in the last minute)."""
    last = book.last.get(str(kind))
    if last is not None and now - last < PER_KIND_MS:
        return None
    bucket = Bucket(float(PER_MINUTE) if book.tokens is None else book.tokens, book.at_ms)
    bucket = bucket.refilled(now, per_second=PER_MINUTE / 60.0, size=PER_MINUTE)
    if bucket.tokens < 1.0:
        return None
    return bucket.tokens - 1.0


# -- sending -------------------------------------------------------------------------------------

def notify(deps: Deps, player_id: str, notification_of: _Render, *,
           at_table: bool | None = None) -> bool:
    """Notify *player_id* unless they are live: *at_table* says whether their connection
    watches the table the moment happened at (``None``: no table, their book's connections
    are asked, :func:`live`). Returns whether a notification was sent to a device. Never
    raises: a failure is counted and logged."""
    if is_bot_id(player_id) or not enabled(deps):
        return False
    assert deps.devices is not None and deps.notifier is not None
    kind = notification_of.kind
    try:
        if at_table:
            deps.count("PushSkippedConnected", 1)
            return False
        if deps.deadline.remaining_ms() < PUSH_WORST_MS:
            deps.count("PushSkipped", 1)
            return False
        book = deps.devices.book(player_id)
        if book is None or not book.devices:
            return False
        if at_table is None and live(deps, book):
            deps.count("PushSkippedConnected", 1)
            return False
        now = deps.clock.now_ms()
        tokens = admit(book, kind, now)
        if tokens is None or not deps.devices.sent(book, kind, tokens, now):
            deps.count("PushRateLimited", 1)
            return False
        notification = notification_of.render(book.language)
        delivered = False
        for device in book.devices:
            if deps.deadline.remaining_ms() < AWS_CALL_WORST_MS:
                deps.count("PushSkipped", 1)
                break
            delivered = _publish(deps, player_id, device, notification) or delivered
        return delivered
    except Exception as error:
        deps.count("PushFailures", 1)
        deps.warn("could not notify a player", {"kind": str(kind),
                                                "error": type(error).__name__})
        return False


def _publish(deps: Deps, player_id: str, device: Device, notification: Notification) -> bool:
    assert deps.devices is not None and deps.notifier is not None
    try:
        deps.notifier.publish(device, notification)
    except EndpointDisabled:
        deps.count("PushEndpointsDisabled", 1)
        deps.devices.remove(player_id, device.token)
        return False
    except Exception as error:
        deps.count("PushFailures", 1)
        deps.warn("could not publish a notification", {"kind": str(notification.kind),
                                                      "platform": str(device.platform),
                                                      "error": type(error).__name__})
        return False
    deps.count("PushSent", 1)
    return True


def live(deps: Deps, book: DeviceBook) -> bool:
    """Whether one of the connections the book counts as open still answers the gateway (one
    whose ``$disconnect`` never ran answers 410 and is forgotten)."""
    assert deps.devices is not None
    for connection_id in sorted(book.live):
        if deps.gateway.alive(connection_id):
            return True
        deps.devices.disconnected(book.player_id, connection_id)
    return False


class _Render:
    """A notification to make once the player's language is known."""

    def __init__(self, kind: NotificationKind, *, table: str = "", tournament: str = "",
                 ids: dict[str, str] | None = None):
        self.kind = kind
        self.table = table
        self.tournament = tournament
        self.ids = ids or {}

    def render(self, lang: str) -> Notification:
        return render(self.kind, lang, table=self.table, tournament=self.tournament,
                      ids=self.ids)


# -- the triggers --------------------------------------------------------------------------------

def after_fan_out(deps: Deps, record: TableRecord, events: Iterable[Event],
                  gone: Iterable[tuple[str, str]] = ()) -> int:
    """After a table's fan-out (:func:`.transaction.fan_out`): the players the write's events
    call on (a turn, a Shield window, a seat offered, a tournament move arriving here) are
    notified unless their connection watches this table (and was not just found gone).
    Returns how many were sent."""
    if not enabled(deps):
        return 0
    try:
        calls = list(_called(record, events))
    except Exception as error:  # never into the game
        deps.count("PushFailures", 1)
        deps.warn("could not read a write's events for push", {
            "table_id": record.table_id, "error": type(error).__name__})
        return 0
    away = set(gone)
    sent = 0
    for player_id, notification in calls:
        connection = record.connections.get(player_id)
        watching = connection is not None and (player_id, connection) not in away
        sent += notify(deps, player_id, notification, at_table=watching)
    return sent


def _called(record: TableRecord, events: Iterable[Event]
            ) -> Iterable[tuple[str, _Render]]:
    """``(player, notification)`` of each event that calls on a player, once per player and
    kind."""
    name = record.settings.name
    ids = {"table_id": record.table_id}
    seen: set[tuple[str, NotificationKind]] = set()
    for event in events:
        player: str | None = None
        kind: NotificationKind | None = None
        render_: _Render | None = None
        if isinstance(event, TurnStarted):
            player, kind = _seated(record, event.seat_index), NotificationKind.TURN
        elif isinstance(event, WindowOpened):
            player, kind = _seated(record, event.target), NotificationKind.SHIELD
        elif isinstance(event, SeatOffered):
            player, kind = event.player_id, NotificationKind.SEAT_OFFERED
        elif isinstance(event, PlayerMoved) and event.to_table == record.table_id:
            player, kind = event.player_id, NotificationKind.TABLE_BROKEN
            tournament = record.tournament
            render_ = _Render(kind, tournament=_tournament_name(record), ids={
                "table_id": record.table_id,
                **({"tournament_id": tournament.tournament_id} if tournament else {})})
        if player is None or kind is None or (player, kind) in seen:
            continue
        seen.add((player, kind))
        yield player, render_ or _Render(kind, table=name, ids=ids)


def _seated(record: TableRecord, seat_index: int) -> str | None:
    seats = record.state.seats
    seat = seats[seat_index] if 0 <= seat_index < len(seats) else None
    return None if seat is None or seat.is_bot else seat.player_id


def _tournament_name(record: TableRecord) -> str:
    """A tournament table's name is its tournament's (``<name> #<n>``): the part before the
    table number, or ``final table``)."""
    return record.settings.name.removesuffix(" final table").rsplit(" #", 1)[0]


def tournament_starting(deps: Deps, tournament_id: str, name: str,
                        registered: Iterable[str]) -> int:
    """R9.2: a scheduled tournament starts in :data:`STARTING_SOON_MS`: each registered
    player with no live connection is notified (its ``notify_start`` timer). Returns how many
    were sent."""
    if not enabled(deps):
        return 0
    sent = 0
    for player_id in registered:
        if deps.deadline.remaining_ms() < PUSH_WORST_MS:
            deps.count("PushSkipped", 1)
            break
        sent += notify(deps, player_id, _Render(
            NotificationKind.TOURNAMENT_STARTING, tournament=name,
            ids={"tournament_id": tournament_id}))
    return sent
