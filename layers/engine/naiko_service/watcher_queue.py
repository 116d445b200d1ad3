""":mod:`naiko_service.watcher_queue` is the message a table's write hands to the spectators'
worker (issue 23 item 3).

``WatchersQueue`` (``template.yaml``) is an SQS FIFO queue. The game function (any function that
writes a table) sends ONE message per announced write of a table that has spectators, after the
players' own updates are posted (:func:`.usecases.spectators.publish`); its message group is the
table (:func:`group_of`), so the worker gets a table's updates one after another in version
order. A table with more than :data:`~naiko_service.limits.WATCHERS_PER_WORKER` spectators has
its message split by the worker into one per shard (group ``<table>#<shard>``), each posted by an
invocation of its own. The body is compact JSON (:func:`message_body`); the update itself is the
exact JSON every spectator gets (at most 32 KB, the protocol's cap, far under SQS's 256 KB).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .limits import WATCHER_SHARDS


def shard_of(player_id: str) -> int:
    """The shard of *player_id*'s spectator item: ``crc32 % WATCHER_SHARDS`` (stable across
    processes, unlike :func:`hash`).

    >>> shard_of("alice")
    7
    """
    return zlib.crc32(player_id.encode()) % WATCHER_SHARDS


@dataclass(frozen=True, slots=True)
class SpectatorUpdate:
    """One write's update for the spectators of a table."""

    table_id: str
    version: int
    """The table's ``seq`` (``version`` in the message): a spectator that sees a gap asks for
    a snapshot."""
    message: str
    """The ``update`` every spectator gets (compact JSON): the public view, the events nobody
    in particular is told of."""
    members: tuple[str, ...] = ()
    """Players whose updates are their own (seated, in line, offered a seat): never posted
    here; their spectator items are stale (they sat down) and removed."""
    direct: tuple[str, ...] = ()
    """Other players whose connection was still in the table item (they left their seat in
    this write and got it directly): not posted here either, their items kept."""
    required: dict[str, dict[str, int]] = field(default_factory=dict)
    """R7.11: ``required_buy_in`` of players who left this deep-stack table less than 30
    minutes ago, added to their copy of the view."""
    shard: int | None = None
    """``None``: every spectator (the worker may split it); a shard: only that shard's."""

    def for_shard(self, shard: int) -> SpectatorUpdate:
        return replace(self, shard=shard)

    @property
    def group(self) -> str:
        """The FIFO message group: the table, or the table and shard."""
        return self.table_id if self.shard is None else f"{self.table_id}#{self.shard}"

    @property
    def dedup(self) -> str:
        """The FIFO deduplication id: one message per version (and shard)."""
        tail = "" if self.shard is None else f".{self.shard}"
        return f"{self.table_id}.{self.version}{tail}"


def message_body(update: SpectatorUpdate) -> str:
    """An update's message body: compact JSON, sorted keys.

    >>> message_body(SpectatorUpdate("t1", 7, '{"type":"update"}'))
    '{"direct":[],"members":[],"message":"{\\\\"type\\\\":\\\\"update\\\\"}","required":{},"shard":null,"table_id":"t1","version":7}'
    """
    return json.dumps({"table_id": update.table_id, "version": update.version,
                       "message": update.message, "members": list(update.members),
                       "direct": list(update.direct),
                       "required": update.required, "shard": update.shard},
                      separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def parse_body(body: str) -> SpectatorUpdate:
    """The update in a message body.

    :raises ValueError: If *body* is not a spectator update.

    >>> parse_body(message_body(SpectatorUpdate("t1", 7, "{}", ("p1",), shard=3))).shard
    3
    >>> parse_body('{"table_id": "t1"}')
    Traceback (most recent call last):
    ValueError: a spectator update needs table_id, version, message, members, required and shard
    """
    try:
        data = json.loads(body)
    except (TypeError, json.JSONDecodeError) as exc:
        raise ValueError("a spectator update's body is not JSON") from exc
    if not isinstance(data, dict):
        raise ValueError("a spectator update's body is not a JSON object")
    table_id, version, message = data.get("table_id"), data.get("version"), data.get("message")
    members, required, shard = data.get("members"), data.get("required"), data.get("shard")
    direct = data.get("direct", [])
    if not (isinstance(table_id, str) and table_id and _whole(version)
            and isinstance(message, str) and _names(members) and _names(direct)
            and isinstance(required, dict)
            and (shard is None or (_whole(shard) and shard < WATCHER_SHARDS))):
        raise ValueError("a spectator update needs table_id, version, message, members, "
                         "required and shard")
    assert isinstance(version, int)
    assert isinstance(members, list) and isinstance(direct, list)
    return SpectatorUpdate(table_id, version, message, tuple(members), tuple(direct),
                           {str(k): dict(v) for k, v in required.items()}, shard)


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class BatchResult:
    """What one batch of the worker did (the handler logs it and returns :meth:`response`)."""

    delivered: int = 0
    """Updates delivered (or split into shard messages)."""
    failed: tuple[str, ...] = ()
    """Message ids to deliver again: the first that failed and every later one of the batch
    (a FIFO queue's order: a later update of the table must not overtake it)."""

    def response(self) -> dict[str, list[dict[str, str]]]:
        """The event source mapping's partial batch response."""
        return {"batchItemFailures": [{"itemIdentifier": i} for i in self.failed]}


def handle_records(records: Sequence[Mapping[str, Any]], *,
                   deliver: Callable[[SpectatorUpdate], object],
                   warn: Callable[[str, dict[str, Any]], None]) -> BatchResult:
    """Deliver each record's update in order. A malformed body, or a delivery that raises,
    is reported with every record after it (SQS delivers them again in order; after
    ``maxReceiveCount`` receives the failing one moves to the dead-letter queue, where the
    ``WatcherDeadLetters`` alarm sees it). A post that fails for one spectator does not raise
    (:func:`.usecases.spectators.deliver` counts it)."""
    delivered = 0
    for index, record in enumerate(records):
        message_id = str(record.get("messageId", ""))
        try:
            update = parse_body(str(record.get("body", "")))
            deliver(update)
        except Exception as error:
            warn("a spectator update failed", {"message_id": message_id,
                                               "error": type(error).__name__})
            return BatchResult(delivered, tuple(str(r.get("messageId", ""))
                                                for r in records[index:]))
        delivered += 1
    return BatchResult(delivered)
