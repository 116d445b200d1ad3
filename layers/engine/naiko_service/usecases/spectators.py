""":mod:`naiko_service.usecases.spectators` keeps a table's spectators out of its item and
their updates off the players' path (issue 23 item 3).

A **member** of a table (seated, on its waiting list, offered a seat) has its connection in
the table item and gets its own update from the write's fan-out, as before. Anyone else who
watches is a **spectator**: an item of its own (:class:`~naiko_service.ports.Watchers`,
``WatchersTable``), added by ``snapshot`` and removed by ``unwatch``, ``$disconnect`` or a
post that finds the connection gone, none of which writes the table item. After the players'
posts, each announced write hands ONE update, the public view with the events nobody in
particular is told of, to the spectators' worker (:func:`publish`: the ``WatchersQueue``, an
SQS FIFO queue grouped by table, in a deployment; in this process in memory and local mode),
which pages through the spectators and posts it to each (:func:`deliver`). Every update carries
the table's ``version``: a spectator that misses one asks for a snapshot, as a player does.

A player who leaves their seat (or the waiting list) while watching becomes a spectator after
the write's fan-out (:func:`demote`): their item is added and their connection leaves the table
item in the one more write that also forgets gone connections."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..limits import MAX_SPECTATORS, WATCHER_SHARDS, WATCHERS_PER_WORKER
from ..ports import ConnectionGone, Encoded, TooManySpectators
from ..records import TableRecord
from ..watcher_queue import SpectatorUpdate, message_body
from .base import Deps, ServiceError
from .fanout import SKIPPED, Updates, post_all
from .room import required_buy_in

WATCHER_PAGE = 1_000
"""Spectator items read per page (one ``Query`` of about 120 KB: 15 read units)."""

WATCHER_POST_WORKERS = 32
"""Posts in flight at once in one worker invocation (the Management API client pools up to 64
connections, ``bootstrap.BOTO_SETTINGS``)."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The worker's posting pool, made on first use and kept across warm invocations."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(WATCHER_POST_WORKERS, thread_name_prefix="spectators")
        return _pool


def is_member(record: TableRecord, player_id: str) -> bool:
    """Whether *player_id*'s connection belongs in the table item: seated, in line, or
    offered a seat (their updates are their own: cards, turns, seat offers)."""
    return (record.seat_of(player_id) is not None or player_id in record.room.waitlist
            or player_id in record.room.offers)


def leavers(record: TableRecord) -> list[tuple[str, str]]:
    """Connections in the table item of players who are no longer members (they left their
    seat or the line in this write): spectators from now on (:func:`demote`)."""
    return [(player_id, connection_id) for player_id, connection_id in record.connections.items()
            if not is_member(record, player_id)]


def subscribe(deps: Deps, table_id: str, player_id: str, connection_id: str) -> None:
    """*player_id* watches *table_id* from *connection_id* as a spectator (one write of its
    own item, never the table's).

    :raises ServiceError: ``too_many_spectators`` when the table has
        :data:`~naiko_service.limits.MAX_SPECTATORS` already.
    """
    try:
        deps.watchers.add(table_id, player_id, connection_id, deps.clock.now_ms())
    except TooManySpectators as exc:
        raise ServiceError("too_many_spectators", f"{MAX_SPECTATORS} spectators watch this "
                           "table already, the most it takes: try again later") from exc


def demote(deps: Deps, record: TableRecord, moving: list[tuple[str, str]]) -> None:
    """*moving* (players who left their seat or the line, still connected) watch on as
    spectators. At the cap they stop watching (a ``snapshot`` says why)."""
    for player_id, connection_id in moving:
        try:
            deps.watchers.add(record.table_id, player_id, connection_id, deps.clock.now_ms())
        except TooManySpectators:
            deps.connections.remove_table(connection_id, record.table_id)


def members(record: TableRecord) -> tuple[str, ...]:
    """Who gets their own updates (and anyone who would: seated but disconnected): never
    posted by the worker."""
    seated = (seat.player_id for seat in record.state.seats if seat is not None)
    return tuple(sorted({*seated, *record.room.waitlist, *record.room.offers}))


def publish(deps: Deps, record: TableRecord, updates: Updates) -> None:
    """After the players' own posts: hand this write's spectator update to the worker (one
    SQS message), or post it here without a queue. A table without spectators costs one
    eventually consistent read of its counter; a failure is counted and logged, never raised
    (the spectators see the gap and ask for a snapshot)."""
    try:
        if deps.watchers.count(record.table_id) <= 0:
            return
        now = deps.clock.now_ms()
        own = members(record)
        direct = tuple(sorted(set(record.connections) - set(own)))
        required = {player_id: amount for player_id in record.left_stacks
                    if (amount := required_buy_in(record, player_id, now)) is not None}
        update = SpectatorUpdate(record.table_id, record.seq,
                                 updates.message(None).data.decode(), own, direct, required)
        if deps.watcher_queue is None:
            deliver(deps, update)
        else:
            deps.watcher_queue.publish(message_body(update), update.group, update.dedup)
            deps.count("SpectatorUpdatesQueued", 1)
    except Exception as error:
        deps.count("SpectatorFailures", 1)
        deps.warn("could not hand the spectators their update",
                  {"table_id": record.table_id, "version": record.seq,
                   "error": type(error).__name__})


@dataclass(slots=True)
class Delivery:
    """What one update's delivery did."""

    sent: int = 0
    gone: int = 0
    failed: int = 0
    skipped: int = 0
    stale: int = 0
    """Spectator items of players who are members now (they sat down): removed."""
    split: int = 0
    """Shard messages queued instead of posting (a table above
    :data:`~naiko_service.limits.WATCHERS_PER_WORKER`)."""
    pages: int = 0


def _split(deps: Deps, update: SpectatorUpdate, expected: int) -> bool:
    """Whether a whole-table *update* of *expected* spectators went to the queue as one
    message per shard instead (above :data:`~naiko_service.limits.WATCHERS_PER_WORKER`)."""
    if update.shard is not None or deps.watcher_queue is None \
            or expected <= WATCHERS_PER_WORKER:
        return False
    for shard in range(WATCHER_SHARDS):
        part = update.for_shard(shard)
        deps.watcher_queue.publish(message_body(part), part.group, part.dedup)
    return True


def deliver(deps: Deps, update: SpectatorUpdate) -> Delivery:
    """The worker: post *update* to every spectator of its table (of its shard), page after
    page, :data:`WATCHER_POST_WORKERS` at once. Above
    :data:`~naiko_service.limits.WATCHERS_PER_WORKER` spectators, a whole-table update with a
    queue is split into one message per shard instead (each its own invocation, each shard's
    versions in order: its own message group). A spectator found gone (410) is removed; any
    other failure is counted and logged and the others still get theirs. A pass over the whole
    table sets the counter to what it found (items expired by TTL never decremented it)."""
    done = Delivery()
    table_id = update.table_id
    expected = deps.watchers.count(table_id) if update.shard is None else 0
    if _split(deps, update, expected):
        done.split = WATCHER_SHARDS
        return done
    messages = _Messages(update)
    own, direct = set(update.members), set(update.direct)
    counted = 0
    after: str | None = None
    while True:
        page, after = deps.watchers.page(table_id, update.shard, after, WATCHER_PAGE)
        done.pages += 1
        posts: list[tuple[str, str]] = []
        for watcher in page:
            if watcher.player_id in own:
                if deps.watchers.remove(table_id, watcher.player_id, watcher.connection_id):
                    done.stale += 1
                continue
            if watcher.player_id in direct:
                counted += 1
                continue
            posts.append((watcher.player_id, watcher.connection_id))
        results = post_all(deps, [(connection_id, messages.of(player_id))
                                  for player_id, connection_id in posts], _executor())
        for (player_id, connection_id), result in zip(posts, results, strict=True):
            if result is None:
                done.sent += 1
                counted += 1
            elif result is SKIPPED:
                done.skipped += 1
                counted += 1
            elif isinstance(result, ConnectionGone):
                if deps.watchers.remove(table_id, player_id, connection_id):
                    done.gone += 1
            else:
                done.failed += 1
                counted += 1
                deps.warn("could not post a spectator's update",
                          {"table_id": table_id, "connection_id": connection_id,
                           "version": update.version, "error": type(result).__name__})
        if after is None:
            break
    if update.shard is None and counted != expected - done.stale - done.gone:
        deps.watchers.recount(table_id, counted)
    for name, value in (("MessagesSent", done.sent), ("ConnectionsGone", done.gone),
                        ("FanOutFailures", done.failed), ("FanOutSkipped", done.skipped)):
        if value:
            deps.count(name, value)
    return done


class _Messages:
    """The update each spectator gets: one :class:`~naiko_service.ports.Encoded` for all, a
    copy with ``required_buy_in`` for the few who left this deep-stack table (R7.11)."""

    def __init__(self, update: SpectatorUpdate):
        self.update = update
        self.base: dict[str, Any] = json.loads(update.message)
        self.shared = Encoded(self.base, update.message.encode())

    def of(self, player_id: str) -> Encoded:
        required = self.update.required.get(player_id)
        if required is None:
            return self.shared
        message = {**self.base, "view": {**self.base["view"], "required_buy_in": required}}
        return Encoded(message, json.dumps(message, separators=(",", ":"),
                                           ensure_ascii=False).encode())
