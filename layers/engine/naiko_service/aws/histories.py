""":mod:`naiko_service.aws.histories` stores the hands' records (R10.1) in DynamoDB
(``HandHistoryTable`` in ``template.yaml``; the layout is in ``docs/storage.md``).

One table, key ``pk`` (HASH) + ``sk`` (RANGE), two kinds of item:

- a hand: ``pk = "table#<table_id>"``, ``sk = "hand#<hand_number:010d>"``, ``blob`` the sealed
  :class:`~naiko_service.hand_records.HandRecord` (zlib, AES-GCM: it holds every hole card),
  ``ended_ms``: a table's hands are one Query, in order;
- a player's entry: ``pk = "player#<player_id>"``, ``sk = "<ended_ms:013d>#<table_id>#
  <hand_number:010d>"``, ``summary`` (JSON of :class:`~naiko_service.hand_records.PlayerHand`):
  a player's hands are one Query, newest first, that opens no record.

- R8.9: a chat line said during a hand: ``pk = "chat#<table_id>#<hand_number:010d>"``,
  ``sk`` the speaker and the request id (one line per request: a replay is not stored twice),
  ``line`` (JSON of :class:`~naiko_service.hand_records.ChatLine`), ``at_ms``: a hand's chat is
  one Query, joined to the hand's record when it is read (:class:`DynamoChatLog`).

All carry ``expires_at`` (epoch seconds: the hand's end + the retention, ``HandRetentionDays``
in the template) when a retention is given: DynamoDB's TTL deletes them after it (R10.1).

:func:`history_puts` builds the ``Put`` requests of one record (the hand and one entry per
player dealt in), each conditioned on ``attribute_not_exists``; the table store writes them in
the same ``TransactWriteItems`` as the table write that ends the hand
(:class:`~naiko_service.aws.dynamodb.DynamoTableStore`,
:class:`~naiko_service.aws.tournaments.DynamoTournamentStore`).
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from .. import hand_records
from ..hand_records import MAX_CHAT_LINES, ChatLine, HandRecord, Page, PlayerHand, player_key
from ..records import Sealer
from .dynamodb_client import Item, error_code, paged_query

TABLE_PREFIX = "table#"
PLAYER_PREFIX = "player#"
HAND_PREFIX = "hand#"


def hand_key(table_id: str, hand_number: int) -> Item:
    """The key of a hand's item."""
    return {"pk": {"S": TABLE_PREFIX + table_id}, "sk": {"S": f"{HAND_PREFIX}{hand_number:010d}"}}


def history_puts(history_table: str, sealer: Sealer, record: HandRecord,
                  retention_days: int = 0) -> list[dict[str, Any]]:
    """The ``Put`` requests that store *record*: its hand item, then one entry per player
    dealt in (:meth:`~naiko_service.hand_records.HandRecord.pointers`), each only if absent;
    each expiring *retention_days* after the hand ended (``expires_at``; 0: never)."""
    absent = {"ConditionExpression": "attribute_not_exists(#pk)",
              "ExpressionAttributeNames": {"#pk": "pk"}}
    ttl = ({"expires_at": {"N": str(record.ended_ms // 1000 + retention_days * 86_400)}}
           if retention_days > 0 else {})
    puts: list[dict[str, Any]] = [{
        "TableName": history_table,
        "Item": {**hand_key(*record.key),
                 "blob": {"B": hand_records.seal(sealer, record)},
                 "ended_ms": {"N": str(record.ended_ms)}, **ttl},
        **absent}]
    for pointer in record.pointers():
        puts.append({"TableName": history_table, "Item": {
            "pk": {"S": PLAYER_PREFIX + pointer.player_id}, "sk": {"S": pointer.cursor},
            "summary": {"S": json.dumps(pointer.to_dict(), separators=(",", ":"))}, **ttl},
            **absent})
    return puts


class DynamoHandHistories:
    """:class:`~naiko_service.ports.HandHistories` on DynamoDB: reads by key and Queries of
    one partition, never a Scan.

    :param client: A low-level boto3 DynamoDB client.
    :param history_table: Name of ``HandHistoryTable``.
    :param sealer: Opens the records (the table state's key).
    """

    def __init__(self, client: Any, history_table: str, sealer: Sealer):
        self.client = client
        self.history_table = history_table
        self.sealer = sealer

    def hand(self, table_id: str, hand_number: int) -> HandRecord | None:
        """One strongly consistent ``GetItem`` (the hand may have ended a moment ago)."""
        response = self.client.get_item(TableName=self.history_table,
                                        Key=hand_key(table_id, hand_number),
                                        ConsistentRead=True)
        item = response.get("Item")
        if item is None:
            return None
        return hand_records.open_sealed(self.sealer, table_id, hand_number,
                                        bytes(item["blob"]["B"]))

    def player_hands(self, player_id: str, before: str | None = None,
                     limit: int = 20) -> Page:
        """A Query of the player's entries, newest first, below the cursor *before*; one
        entry more than *limit* is asked for, to know whether another page follows. Eventually
        consistent (half the read units): a list shown to its player, in which a hand that
        ended a moment ago may appear a moment later (docs/protocol.md "Pages")."""
        condition = "#pk = :pk"
        values: dict[str, Any] = {":pk": {"S": PLAYER_PREFIX + player_id}}
        if before is not None:
            condition += " AND #sk < :before"
            values[":before"] = {"S": before}
        hands: list[PlayerHand] = []
        for item in paged_query(
                self.client, TableName=self.history_table, ConsistentRead=False,
                           KeyConditionExpression=condition,
                           ExpressionAttributeNames={"#pk": "pk", **(
                               {"#sk": "sk"} if before is not None else {})},
                           ExpressionAttributeValues=values, ScanIndexForward=False,
                           Limit=limit + 1):
            hands.append(PlayerHand.from_dict(player_id, json.loads(item["summary"]["S"])))
            if len(hands) > limit:
                return Page(hands[:limit], hands[limit - 1].cursor)
        return Page(hands, None)

    def table_hands(self, table_id: str, after: int = 0,
                    limit: int = 100) -> list[HandRecord]:
        """A Query of the table's hand items numbered above *after*, in order."""
        found: list[HandRecord] = []
        if limit <= 0:
            return found
        for item in paged_query(
                self.client, TableName=self.history_table, ConsistentRead=True,
                           KeyConditionExpression="#pk = :pk AND #sk > :after",
                           ExpressionAttributeNames={"#pk": "pk", "#sk": "sk"},
                           ExpressionAttributeValues={
                               ":pk": {"S": TABLE_PREFIX + table_id},
                               ":after": {"S": f"{HAND_PREFIX}{after:010d}"}},
                           Limit=limit):
            number = int(item["sk"]["S"][len(HAND_PREFIX):])
            found.append(hand_records.open_sealed(self.sealer, table_id, number,
                                                  bytes(item["blob"]["B"])))
            if len(found) >= limit:
                break
        return found


CHAT_PREFIX = "chat#"


class DynamoChatLog:
    """R8.9: :class:`~naiko_service.ports.ChatLog` in ``HandHistoryTable``: one ``PutItem``
    per line (never the table item), one Query per hand read.

    :param retention_days: The hands' retention (``expires_at`` from the line's time).
    """

    def __init__(self, client: Any, history_table: str, retention_days: int = 0):
        self.client = client
        self.history_table = history_table
        self.retention_days = retention_days

    @staticmethod
    def partition(table_id: str, hand_number: int) -> str:
        return f"{CHAT_PREFIX}{table_id}#{hand_number:010d}"

    def add(self, table_id: str, hand_number: int, key: str, line: ChatLine) -> bool:
        ttl = ({"expires_at": {"N": str(line.at_ms // 1000 + self.retention_days * 86_400)}}
               if self.retention_days > 0 else {})
        try:
            self.client.put_item(
                TableName=self.history_table,
                Item={"pk": {"S": self.partition(table_id, hand_number)}, "sk": {"S": key},
                      "line": {"S": json.dumps(line.to_dict(), separators=(",", ":"),
                                               ensure_ascii=False)},
                      "at_ms": {"N": str(line.at_ms)}, **ttl},
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": "pk"})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def lines(self, table_id: str, hand_number: int) -> list[ChatLine]:
        found = [ChatLine.from_dict(json.loads(item["line"]["S"])) for item in paged_query(
            self.client, TableName=self.history_table, ConsistentRead=True,
            KeyConditionExpression="#pk = :pk", ExpressionAttributeNames={"#pk": "pk"},
            ExpressionAttributeValues={":pk": {"S": self.partition(table_id, hand_number)}})]
        return sorted(found, key=lambda line: line.at_ms)[:MAX_CHAT_LINES]


__all__ = ["DynamoChatLog", "DynamoHandHistories", "history_puts", "hand_key", "player_key"]
