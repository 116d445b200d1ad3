""":mod:`naiko_service.aws.tournaments` stores tournaments in DynamoDB (``TournamentsTable`` in
``template.yaml``; ``docs/tournaments.md`` has the layout).

One partition per tournament (``tournament_id``), one item per thing in it, told apart by the
sort key ``item``:

- ``tournament``: the terms and progress (the terms part of a
  :class:`~naiko_service.tournament_records.TournamentRecord`'s document, compressed JSON,
  and the sparse index keys ``lobby``/``created_ms`` while it is listed and
  ``timer``/``due_ms`` while a timer is pending), written only when that part changes;
- ``field``: the field part (players left, the seating, the players out during late
  registration, the log's count; ``tournament_records.FIELD_KEYS``) and ``version`` for the
  conditions, written by every change of the tournament (issue 23: a hand's end that
  eliminates or moves a player writes this small item, not the tournament item and its
  indexes);
- ``reg#<player>``, ``result#<player>``, ``paid#<player>``, ``log#<time>#...``, a scheduled
  tournament's ``out#<time>#<table>#<hand>#<player>`` (a player out, what their place is derived
  from: :mod:`naiko.tournaments.places`): one item each, so a tournament item stays small
  whatever the field (JSON in ``data``);
- ``count#<k>``: a scheduled tournament's registration counters (numbers ``entrants``,
  ``chips``, ``quota`` and ``closed``, updated in place: :class:`~naiko_service.ports.BumpCount`).

:meth:`DynamoTournamentStore.commit` writes tournament items, table items (through the table
store's own item layout) and account moves with their ledger entries in ONE
``TransactWriteItems``, each conditional."""

from __future__ import annotations

import heapq
import json
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from botocore.exceptions import ClientError

from ..ports import (
    OPERATOR_LOG,
    AccountMove,
    BumpCount,
    CloseCount,
    CloseOuts,
    ConcurrentUpdate,
    CountOuts,
    DeleteItem,
    HistoryStored,
    PutItem,
    PutOperatorAction,
    PutTable,
    PutTournament,
    TournamentNotFound,
    Write,
)
from ..tournament_records import (
    SHARD_PREFIX,
    Shard,
    TournamentRecord,
    split_document,
    terms_digest,
)
from .dynamodb import (
    SHARD_QUERY_WORKERS,
    DynamoTableStore,
    _net_moves,
    due_key,
    due_read_keys,
    stored_histories,
)
from .dynamodb_client import Item, error_code, paged_query

TOURNAMENT_ITEM = "tournament"
"""The sort key of a tournament's own item (the terms part of its document)."""

FIELD_ITEM = "field"
"""The sort key of a tournament's field item (the field part of its document and the
version: :data:`~naiko_service.tournament_records.FIELD_KEYS`)."""

LOBBY_INDEX = "lobby-index"
"""GSI ``lobby`` (HASH) + ``created_ms`` (RANGE), projecting ``summary``: the tournament lobby."""

DUE_INDEX = "due-index"
"""GSI ``timer`` (HASH) + ``due_ms`` (RANGE), projecting ``due_tokens``: the timer sweep. The
``timer`` key is sharded like the tables' (``aws.dynamodb.due_key``, the table store's
``due_shards``): one key for every tournament would be one hot partition of the index."""

MAX_TRANSACTION_ITEMS = 100
"""DynamoDB's limit of items in one ``TransactWriteItems``."""


class DynamoTournamentStore:
    """:class:`~naiko_service.ports.TournamentStore` on DynamoDB.

    :param client: A low-level boto3 DynamoDB client.
    :param tournaments_table: Name of ``TournamentsTable``.
    :param tables: The table store (its item layout, accounts and ledger) the transactions
        also write to.
    """

    def __init__(self, client: Any, tournaments_table: str, tables: DynamoTableStore):
        self.client = client
        self.tournaments_table = tournaments_table
        self.tables = tables
        self.reads = 0
        self.writes = 0

    # -- items -------------------------------------------------------------------------------

    def to_item(self, record: TournamentRecord) -> Item:
        """The tournament item: the terms part of the document
        (:func:`~naiko_service.tournament_records.split_document`) with the index keys."""
        terms, _ = split_document(record.to_document())
        item: Item = {"tournament_id": {"S": record.tournament_id},
                      "item": {"S": TOURNAMENT_ITEM},
                      "version": {"N": str(record.version)},
                      "doc": packed(terms)}
        if record.listed:
            item["lobby"] = {"S": "open"}
            item["created_ms"] = {"N": str(record.created_ms)}
            item["summary"] = packed(record.summary())
        due_ms = record.next_due_ms()
        if due_ms is not None:
            item["timer"] = {"S": due_key(record.tournament_id, self.tables.due_shards)}
            item["due_ms"] = {"N": str(due_ms)}
            item["due_tokens"] = {"S": json.dumps([[t.token, t.due_ms] for t in record.timers],
                                                  separators=(",", ":"))}
        return item

    def field_item(self, record: TournamentRecord) -> Item:
        """The field item: the field part of the document (players left, the seating, the
        players out during late registration, the log's count) and the record's ``version``,
        which every write of the tournament checks (issue 23: a hand's end writes this small
        item, not the tournament item and its two indexes)."""
        terms, play = split_document(record.to_document())
        return {"tournament_id": {"S": record.tournament_id}, "item": {"S": FIELD_ITEM},
                "version": {"N": str(record.version)}, "terms": {"S": terms_digest(terms)},
                "doc": packed(play)}

    def load(self, tournament_id: str) -> TournamentRecord:
        """The tournament item and the field item, in one strongly consistent
        ``TransactGetItems`` (the two parts of one version). A tournament written before the
        field item existed is its tournament item alone (its next write splits it).

        :raises TournamentNotFound: If no tournament has that id.
        """
        self.reads += 1
        response = self.client.transact_get_items(TransactItems=[
            {"Get": {"TableName": self.tournaments_table,
                     "Key": {"tournament_id": {"S": tournament_id}, "item": {"S": key}}}}
            for key in (TOURNAMENT_ITEM, FIELD_ITEM)])
        found = [r.get("Item") for r in response.get("Responses", [])]
        item = found[0] if found else None
        if item is None:
            raise TournamentNotFound(tournament_id)
        terms = unpacked(item["doc"])
        play = found[1] if len(found) > 1 else None
        if play is None:  # the layout before issue 23's field item: one document
            return TournamentRecord.from_document(tournament_id, int(item["version"]["N"]),
                                                  terms)
        record = TournamentRecord.from_document(tournament_id, int(play["version"]["N"]),
                                                {**terms, **unpacked(play["doc"])})
        record.stored_terms = terms_digest(terms)
        if record.seating is not None:  # issue 23: the count shards' players out
            record.apply_shards({key: Shard.from_dict(data)
                                 for key, data in self.items(tournament_id, SHARD_PREFIX)})
        return record

    def items(self, tournament_id: str, prefix: str) -> list[tuple[str, dict[str, Any]]]:
        """A strongly consistent Query of the tournament's partition, ``begins_with(item,
        prefix)``, in key order."""
        self.reads += 1
        return [(str(item["item"]["S"]), _data(item))
                for item in paged_query(
                    self.client, TableName=self.tournaments_table, ConsistentRead=True,
                    KeyConditionExpression="#t = :t AND begins_with(#item, :prefix)",
                    ExpressionAttributeNames={"#t": "tournament_id", "#item": "item"},
                    ExpressionAttributeValues={":t": {"S": tournament_id},
                                               ":prefix": {"S": prefix}})]

    def page(self, tournament_id: str, prefix: str, limit: int,
             after: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """One eventually consistent Query of the tournament's partition, ``begins_with(item,
        prefix)``, ``Limit`` *limit*, from ``ExclusiveStartKey`` *after*: it reads the page
        and nothing more (a list shown to a player; a registration a moment old may be
        missing)."""
        if limit <= 0:
            return []
        self.reads += 1
        request: dict[str, Any] = {
            "TableName": self.tournaments_table, "Limit": limit,
            "KeyConditionExpression": "#t = :t AND begins_with(#item, :prefix)",
            "ExpressionAttributeNames": {"#t": "tournament_id", "#item": "item"},
            "ExpressionAttributeValues": {":t": {"S": tournament_id}, ":prefix": {"S": prefix}}}
        if after is not None:
            request["ExclusiveStartKey"] = {"tournament_id": {"S": tournament_id},
                                            "item": {"S": after}}
        found: list[tuple[str, dict[str, Any]]] = []
        for item in paged_query(self.client, **request):
            found.append((str(item["item"]["S"]), json.loads(item["data"]["S"])))
            if len(found) >= limit:
                break
        return found

    # -- the transaction ---------------------------------------------------------------------

    def commit(self, writes: tuple[Write, ...], moves: tuple[AccountMove, ...] = ()) -> None:
        """Every write and account move in one ``TransactWriteItems``: each table and
        tournament item conditional on its version (or its absence), ``new`` items on their
        absence, deletions on their existence; accounts as a table write moves them (balance
        conditions, netted per player) with a ledger entry per move.

        :raises ConcurrentUpdate: If a condition on a table or tournament item failed.
        :raises InsufficientFunds: If an account cannot cover its move.
        :raises HistoryStored: If only the records of hands travelling with a table failed
            their condition (stored already, R10.1).
        :raises ValueError: If the transaction would exceed :data:`MAX_TRANSACTION_ITEMS`.
        """
        items: list[dict[str, Any]] = []
        for write in writes:
            items += self._transact_items(write)
        written = len(items)
        net = _net_moves(moves)
        players = list(net)
        key = _ledger_key(writes, moves)
        items += [{"Update": self.tables._account_update(player, net[player])}
                  for player in players]
        if self.tables.ledger_table:
            items += [{"Put": self.tables.ledger_put(move, f"{key}#{index}")}
                      for index, move in enumerate(moves) if move.amount]
        # R10.1: the records of hands that ended with a table write, last, each only if absent
        histories = [put for write in writes if isinstance(write, PutTable)
                     for put in self.tables.history_puts(write.record)]
        first_history = len(items)
        items += [{"Put": put} for _, put in histories]
        if len(items) > MAX_TRANSACTION_ITEMS:
            raise ValueError(f"a transaction of {len(items)} items (at most "
                             f"{MAX_TRANSACTION_ITEMS})")
        self.writes += 1
        try:
            self.client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons", [])
            codes = [str(reason.get("Code", "None")) for reason in reasons]
            accounts = range(written, written + len(players))
            for index, (code, reason) in enumerate(zip(codes, reasons, strict=False)):
                if code == "ConditionalCheckFailed" and index in accounts:
                    player = players[index - written]
                    raise self.tables._account_refusal(player, net[player],
                                                       reason.get("Item")) from exc
            failed = [i for i, code in enumerate(codes) if code == "ConditionalCheckFailed"]
            if failed and min(failed) >= first_history:  # only records stored already
                raise HistoryStored(stored_histories(codes, first_history, histories)) from exc
            if any(code in ("ConditionalCheckFailed", "TransactionConflict") for code in codes):
                raise ConcurrentUpdate(key) from exc
            raise

    def _transact_items(self, write: Write) -> list[dict[str, Any]]:
        """*write*'s items of the transaction: one, or a tournament's two parts (the field
        item always, conditional on the version; the tournament item only if its terms part
        changed since it was read: the field item's condition covers it, since every write
        of the tournament writes the field item)."""
        if not isinstance(write, PutTournament):
            return [self._transact_item(write)]
        record, expected = write.record, write.expected_version
        play: dict[str, Any] = {"TableName": self.tournaments_table,
                                "Item": self.field_item(record)}
        terms: dict[str, Any] = {"TableName": self.tournaments_table,
                                 "Item": self.to_item(record)}
        if expected is None:  # new: both parts absent
            _version_condition(terms, None, "tournament_id")
            _version_condition(play, None, "tournament_id")
            return [{"Put": terms}, {"Put": play}]
        if record.stored_terms is None:
            # read from the layout before the field item (or not through this store): the
            # tournament item still holds the version, and the field item is new
            _version_condition(terms, expected, "tournament_id")
            _version_condition(play, None, "tournament_id")
            return [{"Put": terms}, {"Put": play}]
        _version_condition(play, expected, "tournament_id")
        if play["Item"]["terms"]["S"] == record.stored_terms:
            return [{"Put": play}]
        return [{"Put": terms}, {"Put": play}]

    def _transact_item(self, write: Write) -> dict[str, Any]:
        match write:
            case PutTable(record=record, expected_version=expected):
                put: dict[str, Any] = {"TableName": self.tables.tables_table,
                                       "Item": self.tables.to_item(record)}
                _version_condition(put, expected, "table_id")
                return {"Put": put}
            case PutTournament(record=record, expected_version=expected):
                put = {"TableName": self.tournaments_table, "Item": self.to_item(record)}
                _version_condition(put, expected, "tournament_id")
                return {"Put": put}
            case PutItem(tournament_id=tid, key=key, data=data, new=new):
                put = {"TableName": self.tournaments_table,
                       "Item": {"tournament_id": {"S": tid}, "item": {"S": key},
                                "data": {"S": json.dumps(data, separators=(",", ":"))}}}
                if new:
                    put["ConditionExpression"] = "attribute_not_exists(#item)"
                    put["ExpressionAttributeNames"] = {"#item": "item"}
                return {"Put": put}
            case DeleteItem(tournament_id=tid, key=key, must_exist=must_exist):
                delete: dict[str, Any] = {
                    "TableName": self.tournaments_table,
                    "Key": {"tournament_id": {"S": tid}, "item": {"S": key}}}
                if must_exist:
                    delete["ConditionExpression"] = "attribute_exists(#item)"
                    delete["ExpressionAttributeNames"] = {"#item": "item"}
                return {"Delete": delete}
            case PutOperatorAction(action=action):
                # R9.15: the director's action in the operator log (the ledger table's
                # ``ops:log`` partition, as DynamoAccounts writes R10.3's), written once
                if not self.tables.ledger_table:
                    raise ValueError("operator actions need the ledger table (the operator log)")
                return {"Put": {"TableName": self.tables.ledger_table,
                                "Item": {"account": {"S": OPERATOR_LOG},
                                         "entry": {"S": action.log_key},
                                         "doc": {"S": json.dumps(action.to_dict(),
                                                                 sort_keys=True)}},
                                "ConditionExpression": "attribute_not_exists(#entry)",
                                "ExpressionAttributeNames": {"#entry": "entry"}}}
            case BumpCount(tournament_id=tid, key=key, entrants=entrants, chips=chips,
                           quota=quota):
                # a conditional update in place: concurrent registrations on one counter
                # never lose a count, and the quota holds without reading first
                values = {":zero": {"N": "0"}, ":entrants": {"N": str(entrants)},
                          ":chips": {"N": str(chips)}, ":quota": {"N": str(quota)}}
                if entrants > 0:
                    values[":room"] = {"N": str(quota - entrants)}
                    fits = "(attribute_not_exists(#n) OR #n <= :room)"
                else:
                    values[":need"] = {"N": str(-entrants)}
                    fits = "#n >= :need"
                return {"Update": {
                    "TableName": self.tournaments_table,
                    "Key": {"tournament_id": {"S": tid}, "item": {"S": key}},
                    "UpdateExpression": "SET #n = if_not_exists(#n, :zero) + :entrants, "
                                        "#chips = if_not_exists(#chips, :zero) + :chips, "
                                        "#quota = :quota",
                    "ConditionExpression": f"attribute_not_exists(#closed) AND {fits}",
                    "ExpressionAttributeNames": {"#n": "entrants", "#chips": "chips",
                                                 "#quota": "quota", "#closed": "closed"},
                    "ExpressionAttributeValues": values}}
            case CloseCount(tournament_id=tid, key=key, entrants=entrants):
                counted = ("(attribute_not_exists(#n) OR #n = :n)" if entrants == 0
                           else "#n = :n")
                return {"Update": {
                    "TableName": self.tournaments_table,
                    "Key": {"tournament_id": {"S": tid}, "item": {"S": key}},
                    "UpdateExpression": "SET #closed = :true, #n = if_not_exists(#n, :n), "
                                        "#chips = if_not_exists(#chips, :zero), "
                                        "#quota = if_not_exists(#quota, :zero)",
                    "ConditionExpression": f"attribute_not_exists(#closed) AND {counted}",
                    "ExpressionAttributeNames": {"#n": "entrants", "#chips": "chips",
                                                 "#quota": "quota", "#closed": "closed"},
                    "ExpressionAttributeValues": {":true": {"BOOL": True},
                                                  ":n": {"N": str(entrants)},
                                                  ":zero": {"N": "0"}}}}
            case CountOuts(tournament_id=tid, key=key, table=number, outs=outs, grant=grant):
                # issue 23: an update in place (tables of one group count at once without
                # losing a count), only while the shard is open and its room covers the outs
                need = outs - grant
                fits = ("(attribute_not_exists(#room) OR #room >= :need)" if need <= 0
                        else "#room >= :need")
                return {"Update": {
                    "TableName": self.tournaments_table,
                    "Key": {"tournament_id": {"S": tid}, "item": {"S": key}},
                    "UpdateExpression": "ADD #out :outs, #room :delta, #table :outs",
                    "ConditionExpression": f"attribute_not_exists(#closed) AND {fits}",
                    "ExpressionAttributeNames": {"#out": "out", "#room": "room",
                                                 "#table": f"t{number}", "#closed": "closed"},
                    "ExpressionAttributeValues": {":outs": {"N": str(outs)},
                                                  ":delta": {"N": str(grant - outs)},
                                                  ":need": {"N": str(need)}}}}
            case CloseOuts(tournament_id=tid, key=key, out=out):
                counted = "(attribute_not_exists(#out) OR #out = :out)" if out == 0 \
                    else "#out = :out"
                return {"Update": {
                    "TableName": self.tournaments_table,
                    "Key": {"tournament_id": {"S": tid}, "item": {"S": key}},
                    "UpdateExpression": "SET #closed = :true",
                    "ConditionExpression": f"attribute_not_exists(#closed) AND {counted}",
                    "ExpressionAttributeNames": {"#out": "out", "#closed": "closed"},
                    "ExpressionAttributeValues": {":true": {"BOOL": True},
                                                  ":out": {"N": str(out)}}}}
        raise TypeError(f"not a write: {write!r}")

    # -- indexes -----------------------------------------------------------------------------

    def list_open(self, limit: int = 50,
                  after: tuple[int, str] | None = None) -> list[dict[str, Any]]:
        """Tournaments registering or running, newest first: a Query on ``lobby-index`` of
        *limit* items (``ScanIndexForward=False``, from ``ExclusiveStartKey`` *after*; an index
        is read eventually consistent), each summary with the item's ``created_ms``."""
        found: list[dict[str, Any]] = []
        if limit <= 0:
            return found
        request: dict[str, Any] = {
            "TableName": self.tournaments_table, "IndexName": LOBBY_INDEX,
            "KeyConditionExpression": "#lobby = :open",
            "ExpressionAttributeNames": {"#lobby": "lobby"},
            "ExpressionAttributeValues": {":open": {"S": "open"}},
            "ScanIndexForward": False, "Limit": limit}
        if after is not None:
            created_ms, tournament_id = after
            request["ExclusiveStartKey"] = {
                "lobby": {"S": "open"}, "created_ms": {"N": str(created_ms)},
                "tournament_id": {"S": tournament_id}, "item": {"S": TOURNAMENT_ITEM}}
        for item in paged_query(self.client, **request):
            found.append({**unpacked(item["summary"]),
                          "created_ms": int(item["created_ms"]["N"])})
            if len(found) >= limit:
                break
        return found

    def due(self, now_ms: int, limit: int = 100) -> list[tuple[str, str]]:
        """``(tournament_id, token)`` of timers due by *now_ms*, the oldest deadlines first:
        one Query on ``due-index`` per shard (``aws.dynamodb.due_read_keys``: the plain
        ``due`` of items written before the sharding included), the shards in parallel."""
        if limit <= 0:
            return []
        keys = due_read_keys(self.tables.due_shards, self.tables.due_previous_shards)
        with ThreadPoolExecutor(max_workers=min(len(keys), SHARD_QUERY_WORKERS)) as pool:
            shards = list(pool.map(lambda key: self._due_shard(key, now_ms, limit), keys))
        due: list[tuple[str, str]] = []
        for _, tid, tokens in heapq.merge(*shards):
            due += [(tid, token) for token in tokens]
            if len(due) >= limit:
                break
        return due[:limit]

    def _due_shard(self, key: str, now_ms: int, limit: int
                   ) -> list[tuple[int, str, list[str]]]:
        found: list[tuple[int, str, list[str]]] = []
        count = 0
        for item in _due_items(self.client, self.tournaments_table, key, now_ms, limit):
            tokens = [str(token) for token, due_ms in json.loads(item["due_tokens"]["S"])
                      if int(due_ms) <= now_ms]
            found.append((int(item["due_ms"]["N"]), str(item["tournament_id"]["S"]), tokens))
            count += len(tokens)
            if count >= limit:
                break
        return found


def packed(document: dict[str, Any]) -> dict[str, Any]:
    """A tournament item's document as stored: its JSON compressed (zlib), a binary attribute
    (issue 23: a 10,000-player tournament's terms, prizes and seating are ~32 KB of JSON, ~4 KB
    compressed; every write of the item costs 2 WRU per KB stored)."""
    return {"B": zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 6)}


def unpacked(value: dict[str, Any]) -> dict[str, Any]:
    """:func:`packed`'s document (or, written before it, the plain JSON string)."""
    if "S" in value:
        loaded: dict[str, Any] = json.loads(value["S"])
    else:
        loaded = json.loads(zlib.decompress(bytes(value["B"])).decode())
    return loaded


def _due_items(client: Any, table: str, key: str, now_ms: int, limit: int) -> Iterator[Item]:
    yield from paged_query(
        client, TableName=table, IndexName=DUE_INDEX,
        KeyConditionExpression="#timer = :due AND #due_ms <= :now",
        ExpressionAttributeNames={"#timer": "timer", "#due_ms": "due_ms"},
        ExpressionAttributeValues={":due": {"S": key}, ":now": {"N": str(now_ms)}},
        Limit=min(limit, 1_000))


def _version_condition(put: dict[str, Any], expected: int | None, key_name: str) -> None:
    if expected is None:
        put["ConditionExpression"] = "attribute_not_exists(#key)"
        put["ExpressionAttributeNames"] = {"#key": key_name}
    else:
        put["ConditionExpression"] = "#version = :expected"
        put["ExpressionAttributeNames"] = {"#version": "version"}
        put["ExpressionAttributeValues"] = {":expected": {"N": str(expected)}}


def _ledger_key(writes: tuple[Write, ...], moves: tuple[AccountMove, ...] = ()) -> str:
    """A key unique to this transaction for its ledger entries: the first versioned item's id
    and new version (a version is written once), else the first item's key and the moves'
    time (a registration's ``reg#`` item, put only if absent: a player registering again
    after unregistering does so at a later time)."""
    for write in writes:
        if isinstance(write, PutTournament):
            return f"{write.record.tournament_id}#{write.record.version}"
        if isinstance(write, PutTable):
            return f"{write.record.table_id}#{write.record.version}"
    first = writes[0]
    assert isinstance(first, PutItem | DeleteItem | BumpCount | CloseCount | CountOuts
                      | CloseOuts)
    at = f"#{moves[0].at_ms}" if moves else ""
    return f"{first.tournament_id}#{first.key}{at}"


def _data(item: Item) -> dict[str, Any]:
    """A sub-item's data: its JSON, a count shard's numbers, or a registration counter's."""
    if "data" in item:
        loaded: dict[str, Any] = json.loads(item["data"]["S"])
        return loaded
    if item["item"]["S"].startswith(SHARD_PREFIX):
        return {"out": int(item.get("out", {"N": "0"})["N"]),
                "room": int(item.get("room", {"N": "0"})["N"]),
                "closed": bool(item.get("closed", {}).get("BOOL", False)),
                "tables": {name[1:]: int(value["N"]) for name, value in item.items()
                           if name[:1] == "t" and name[1:].isdigit()}}
    return {"entrants": int(item.get("entrants", {"N": "0"})["N"]),
            "chips": int(item.get("chips", {"N": "0"})["N"]),
            "quota": int(item.get("quota", {"N": "0"})["N"]),
            "closed": bool(item.get("closed", {}).get("BOOL", False))}
