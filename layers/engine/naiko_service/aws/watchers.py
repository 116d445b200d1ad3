""":mod:`naiko_service.aws.watchers` keeps a table's spectators in DynamoDB (``WatchersTable``)
and hands their updates to the worker through SQS (``WatchersQueue``), issue 23 item 3.

``WatchersTable``: partition key ``table_id``, sort key ``watcher``:

* ``<shard>#<player_id>`` (shard ``00``..``15``, :func:`~naiko_service.watcher_queue.shard_of`):
  one spectator, with ``connection_id`` and ``expires_at`` (the table's TTL: 2 h 15 min after it
  subscribed, API Gateway closes a connection after 2 hours, so an item whose ``$disconnect``
  was lost goes away by itself);
* ``#count``: the table's counter ``n``, which the cap is checked on. It sorts before every
  spectator, so a ``Query`` of the partition does not read it.

Adding a spectator is one ``TransactWriteItems``: the item (only if new) and the counter (only
below the cap); a spectator's new connection replaces its old one with a plain ``PutItem``.
Removing is the same pair, conditional on the connection. TTL deletions do not decrement the
counter: a worker that pages through the whole table sets it (:meth:`DynamoWatchers.recount`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from ..limits import MAX_SPECTATORS
from ..ports import TooManySpectators, Watcher
from ..watcher_queue import shard_of
from .dynamodb import cancellation_codes
from .dynamodb_client import Item, error_code

COUNT_KEY = "#count"
"""The sort key of a table's spectator counter."""

WATCHER_TTL_SECONDS = 2 * 3600 + 15 * 60
"""A spectator item's lifetime: API Gateway's 2-hour connection limit and a margin."""

ATTEMPTS = 4
"""Tries of a transaction that met another on the same counter (``TransactionConflict``)."""


class DynamoWatchers:
    """:class:`~naiko_service.ports.Watchers` on ``WatchersTable`` (see the module)."""

    def __init__(self, client: Any, table: str, cap: int = MAX_SPECTATORS,
                 clock: Callable[[], float] = time.time,
                 pause: Callable[[float], None] = time.sleep):
        self.client = client
        self.table = table
        self.cap = cap
        self.clock = clock
        self.pause = pause

    @staticmethod
    def sort_key(player_id: str) -> str:
        return f"{shard_of(player_id):02d}#{player_id}"

    def _key(self, table_id: str, sort_key: str) -> Item:
        return {"table_id": {"S": table_id}, "watcher": {"S": sort_key}}

    def _item(self, table_id: str, player_id: str, connection_id: str) -> Item:
        return {**self._key(table_id, self.sort_key(player_id)),
                "connection_id": {"S": connection_id},
                "expires_at": {"N": str(int(self.clock()) + WATCHER_TTL_SECONDS)}}

    def _counter(self, table_id: str, delta: int, capped: bool) -> dict[str, Any]:
        update: dict[str, Any] = {
            "TableName": self.table, "Key": self._key(table_id, COUNT_KEY),
            "UpdateExpression": "ADD #n :delta",
            "ExpressionAttributeNames": {"#n": "n"},
            "ExpressionAttributeValues": {":delta": {"N": str(delta)}}}
        if capped:
            update["ConditionExpression"] = "attribute_not_exists(#n) OR #n < :cap"
            update["ExpressionAttributeValues"][":cap"] = {"N": str(self.cap)}
        return update

    def add(self, table_id: str, player_id: str, connection_id: str, now_ms: int) -> None:
        """The item and the counter in one transaction; a spectator already there gets its
        new connection (a ``PutItem``, the counter unchanged).

        :raises TooManySpectators: If *player_id* is new and the counter is at the cap.
        """
        item = self._item(table_id, player_id, connection_id)
        for attempt in range(ATTEMPTS):
            try:
                self.client.transact_write_items(TransactItems=[
                    {"Put": {"TableName": self.table, "Item": item,
                             "ConditionExpression": "attribute_not_exists(watcher)"}},
                    {"Update": self._counter(table_id, 1, capped=True)}])
                return
            except ClientError as exc:
                if error_code(exc) != "TransactionCanceledException":
                    raise
                codes = cancellation_codes(exc)
                if codes and codes[0] == "ConditionalCheckFailed":  # a spectator already
                    self.client.put_item(TableName=self.table, Item=item)
                    return
                if len(codes) > 1 and codes[1] == "ConditionalCheckFailed":
                    raise TooManySpectators(table_id) from exc
                if attempt == ATTEMPTS - 1:
                    raise
                self.pause(0.01 * (attempt + 1))  # another subscriber's transaction: again

    def remove(self, table_id: str, player_id: str, connection_id: str | None = None) -> bool:
        """The item (only while its connection is *connection_id*, when given) and the
        counter, in one transaction; ``False`` when there was no such spectator."""
        delete: dict[str, Any] = {"TableName": self.table,
                                  "Key": self._key(table_id, self.sort_key(player_id)),
                                  "ConditionExpression": "attribute_exists(watcher)"}
        if connection_id is not None:
            delete["ConditionExpression"] = "connection_id = :c"
            delete["ExpressionAttributeValues"] = {":c": {"S": connection_id}}
        for attempt in range(ATTEMPTS):
            try:
                self.client.transact_write_items(TransactItems=[
                    {"Delete": delete}, {"Update": self._counter(table_id, -1, capped=False)}])
                return True
            except ClientError as exc:
                if error_code(exc) != "TransactionCanceledException":
                    raise
                codes = cancellation_codes(exc)
                if codes and codes[0] == "ConditionalCheckFailed":
                    return False
                if attempt == ATTEMPTS - 1:
                    raise
                self.pause(0.01 * (attempt + 1))
        return False  # pragma: no cover (the loop returns or raises)

    def connection_of(self, table_id: str, player_id: str) -> str | None:
        item = self.client.get_item(TableName=self.table,
                                    Key=self._key(table_id, self.sort_key(player_id)),
                                    ConsistentRead=True).get("Item")
        return str(item["connection_id"]["S"]) if item else None

    def count(self, table_id: str) -> int:
        """The counter, read eventually consistent (half a read unit)."""
        item = self.client.get_item(TableName=self.table,
                                    Key=self._key(table_id, COUNT_KEY)).get("Item")
        return max(0, int(item["n"]["N"])) if item and "n" in item else 0

    def page(self, table_id: str, shard: int | None, after: str | None,
             limit: int) -> tuple[list[Watcher], str | None]:
        """One ``Query`` (eventually consistent): the spectators of the shard (``begins_with``
        its prefix) or of the table (every sort key from ``0``: after the counter)."""
        names = {"#t": "table_id", "#w": "watcher"}
        values: dict[str, Any] = {":t": {"S": table_id}}
        if shard is None:
            condition = "#t = :t AND #w >= :from"
            values[":from"] = {"S": "0"}
        else:
            condition = "#t = :t AND begins_with(#w, :shard)"
            values[":shard"] = {"S": f"{shard:02d}#"}
        request: dict[str, Any] = {
            "TableName": self.table, "KeyConditionExpression": condition,
            "ExpressionAttributeNames": names, "ExpressionAttributeValues": values,
            "ProjectionExpression": "#w, connection_id", "Limit": limit}
        if after is not None:
            request["ExclusiveStartKey"] = self._key(table_id, after)
        response = self.client.query(**request)
        watchers = [Watcher(str(item["watcher"]["S"]).split("#", 1)[1],
                            str(item["connection_id"]["S"]))
                    for item in response.get("Items", [])]
        last = response.get("LastEvaluatedKey")
        return watchers, (str(last["watcher"]["S"]) if last else None)

    def recount(self, table_id: str, counted: int) -> None:
        self.client.update_item(TableName=self.table, Key=self._key(table_id, COUNT_KEY),
                                UpdateExpression="SET #n = :n",
                                ExpressionAttributeNames={"#n": "n"},
                                ExpressionAttributeValues={":n": {"N": str(counted)}})


class SqsWatcherQueue:
    """:class:`~naiko_service.ports.WatcherQueue` on the ``WatchersQueue`` FIFO queue."""

    def __init__(self, client: Any, queue_url: str):
        self.client = client
        self.queue_url = queue_url

    def publish(self, body: str, group: str, dedup: str) -> None:
        self.client.send_message(QueueUrl=self.queue_url, MessageBody=body,
                                 MessageGroupId=group, MessageDeduplicationId=dedup)
