""":mod:`naiko_service.aws.dynamodb` stores tables, accounts and connections in DynamoDB.

The item layout and the indexes are described in ``docs/storage.md``; the tables themselves
(keys, the ``lobby-index`` and ``due-index`` GSIs, the TTL) are defined in ``template.yaml``.
All adapters take a low-level boto3 DynamoDB client (``boto3.client("dynamodb")``), built once
per container by the caller.
"""

from __future__ import annotations

import heapq
import json
import time
import uuid
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from ..limits import (
    MAX_DEVICES_PER_PLAYER,
    MAX_MUTES,
    MAX_OPEN_TABLES,
    MAX_TABLES_PER_CONNECTION,
    MAX_VISITED,
)
from ..ports import (
    ACCOUNT_SET_CAPS,
    OPERATOR_LOG,
    REVERSALS,
    AccountFrozen,
    AccountMove,
    AccountProfile,
    AccountSet,
    AlreadyReversed,
    ConcurrentUpdate,
    Device,
    DeviceBook,
    HistoryStored,
    InsufficientFunds,
    LedgerReason,
    NotFrozen,
    NotificationKind,
    OperatorAction,
    TableNotFound,
    TooManyMutes,
    TooManyTables,
    TooManyWatched,
)
from ..records import (
    LOBBY_WINDOW,
    Sealer,
    TableRecord,
    TableSummary,
    lobby_order,
    open_record,
    seal_fallback,
)
from .dynamodb_client import Item, error_code, paged_query
from .histories import history_puts

LOBBY_INDEX = "lobby-index"
"""GSI ``lobby`` (HASH) + ``created_ms`` (RANGE), projecting ``summary``: the lobby list."""

DUE_INDEX = "due-index"
"""GSI ``timer`` (HASH) + ``due_ms`` (RANGE): the timer sweep. Its entry holds the keys only:
``template.yaml`` still projects ``due_tokens`` (a deployed GSI's projection cannot change), but
table items no longer carry it, so a write that keeps the earliest deadline leaves the entry as
it was and DynamoDB does not write it. Its hash key is sharded (:func:`due_key`): one key would
take every table write of the service."""

STAKES_INDEX = "stakes-index"
"""GSI ``stakes`` (HASH) + ``seated`` (RANGE), projecting ``summary``: quick seat (R7.10)."""

CODE_INDEX = "code-index"
"""GSI ``invite_code`` (HASH), keys only: a private table by its invite code (R7.12)."""

LOBBY_OPEN = "open"
"""The only value of ``lobby``: present on listed tables, absent otherwise (a sparse index)."""

TIMER_DUE = "due"
"""The prefix of ``timer``, present on tables with a pending timer (a sparse index): written
``due#<shard>`` (:func:`due_key`). Plain ``due`` is the key of the unsharded index that came
before: still read (:func:`due_read_keys`), never written."""

DUE_SHARDS = 16
"""Shards of ``due-index`` (``DUE_INDEX_SHARDS``, the ``DueIndexShards`` parameter). Sized when
every table write rewrote its entry (``due_tokens``, dropped since, changed with each turn): at
10,000 busy tables about 4,200 index writes a second, 260 per shard with 16 shards, against
DynamoDB's 1,000 write units a second per partition (``docs/storage.md``, "Sharding the
due-index"); now it changes only when ``due_ms`` does: fewer writes, the same bound."""

SHARD_QUERY_WORKERS = 16
"""Shards queried at once by :meth:`DynamoTableStore.due_tables` (threads)."""


def due_shard(table_id: str, shards: int) -> int:
    """The ``due-index`` shard of *table_id*: CRC-32 of its UTF-8 bytes modulo *shards*, the
    same in every process and Python version (``hash()`` is salted per process).

    >>> due_shard("t1", 16), due_shard("t1", 16) == due_shard("t1", 16)
    (7, True)
    """
    if shards < 1:
        raise ValueError(f"a due-index needs at least one shard, not {shards}")
    return zlib.crc32(table_id.encode()) % shards


def due_key(table_id: str, shards: int) -> str:
    """The ``timer`` value a table with a pending timer is written with.

    >>> due_key("t1", 16)
    'due#7'
    """
    return f"{TIMER_DUE}#{due_shard(table_id, shards)}"


def due_read_keys(shards: int, previous_shards: int = 0) -> list[str]:
    """Every ``timer`` value a reader queries: the shards ``0 .. max(shards,
    previous_shards) - 1`` (an item written while N was different is still found: a shard
    number is below the N it was written with) and the unsharded ``due``.

    >>> due_read_keys(2)
    ['due', 'due#0', 'due#1']
    >>> due_read_keys(2, previous_shards=3)
    ['due', 'due#0', 'due#1', 'due#2']
    """
    return [TIMER_DUE] + [f"{TIMER_DUE}#{k}" for k in range(max(shards, previous_shards))]

class DynamoTableStore:
    """:class:`~naiko_service.ports.TableStore` on DynamoDB: one item per table.

    Every write is conditional on the version read; a save with account moves is one
    ``TransactWriteItems`` (the table put and the account updates succeed or fail together).
    A load is one strongly consistent ``GetItem``; a save is exactly one write call.

    :param client: A low-level boto3 DynamoDB client.
    :param tables_table: Name of the tables table (``TablesTable`` in ``template.yaml``).
    :param accounts_table: Name of the accounts table (``AccountsTable``).
    :param sealer: Seals and opens the table document (AES-GCM, the table id as AAD).
    :param due_shards: Shards of ``due-index`` a table is written to (:data:`DUE_SHARDS`).
    :param due_previous_shards: The shard count before a change of *due_shards* (readers
        query ``max`` of both; ``docs/storage.md``); 0 when it never changed.
    """

    def __init__(self, client: Any, tables_table: str, accounts_table: str, sealer: Sealer,
                 *, ledger_table: str | None = None, max_open_tables: int = MAX_OPEN_TABLES,
                 history_table: str | None = None, due_shards: int = DUE_SHARDS,
                 due_previous_shards: int = 0, history_retention_days: int = 0):
        self.client = client
        self.history_retention_days = history_retention_days
        """Days a stored hand is kept (its items' ``expires_at``, R10.1); 0: forever."""
        self.tables_table = tables_table
        self.accounts_table = accounts_table
        self.sealer = sealer
        self.ledger_table = ledger_table
        """The ledger (``LedgerTable``): every chip move is an entry, in the same transaction.
        ``None`` only in adapter tests that are about something else."""
        self.max_open_tables = max_open_tables
        self.history_table = history_table
        """The hands' records (``HandHistoryTable``, R10.1): the records travelling with a
        table write go in its transaction. ``None``: not stored (adapter tests)."""
        due_shard("", due_shards)  # refuses a count below 1
        self.due_shards = due_shards
        self.due_previous_shards = due_previous_shards
        self.reads = 0
        """Table loads made (``GetItem``), like :class:`~naiko_service.memory.MemoryTableStore`."""
        self.writes = 0
        """Write calls made (PutItem or TransactWriteItems), successful or not."""

    # -- the item ----------------------------------------------------------------------------

    def to_item(self, record: TableRecord) -> Item:
        """The DynamoDB item of *record*: key, version, sealed blob, and the sparse index keys.

        ``lobby``/``summary`` exist only while the table is listed (public with a free seat),
        ``timer``/``due_ms`` only while it has a pending timer, ``fallback`` (the table with its
        hand cancelled, sealed on its own, R8.6) only while a hand is played. No ``due_tokens``
        (items written before carry it; nothing reads it): the tokens change with every turn,
        and each change would rewrite the ``due-index`` entry, which ``template.yaml`` still
        projects it into.
        """
        item: Item = {
            "table_id": {"S": record.table_id},
            "version": {"N": str(record.version)},
            "blob": {"B": self.sealer.seal(record.to_document(), record.table_id)},
            "created_ms": {"N": str(record.created_ms)},
        }
        fallback = seal_fallback(self.sealer, record)
        if fallback is not None:
            item["fallback"] = {"B": fallback}
        if record.listed:
            item["lobby"] = {"S": LOBBY_OPEN}
            item["summary"] = {"S": json.dumps(record.summary().to_dict(),
                                               separators=(",", ":"))}
            item["stakes"] = {"S": record.stakes}
            item["seated"] = {"N": str(sum(1 for s in record.state.seats if s is not None))}
        if record.room.invite_code is not None:
            item["invite_code"] = {"S": record.room.invite_code}
        due_ms = record.next_due_ms()
        if due_ms is not None:
            item["timer"] = {"S": due_key(record.table_id, self.due_shards)}
            item["due_ms"] = {"N": str(due_ms)}
        return item

    def from_item(self, item: Item) -> TableRecord:
        """The record stored in *item* (opens the sealed blob).

        :raises UnreadableTable: If the state cannot be read (with its fallback, R8.6).
        """
        fallback = item.get("fallback")
        return open_record(self.sealer, str(item["table_id"]["S"]), int(item["version"]["N"]),
                           bytes(item["blob"]["B"]),
                           None if fallback is None else bytes(fallback["B"]))

    # -- the port ----------------------------------------------------------------------------

    def load(self, table_id: str) -> TableRecord:
        """One strongly consistent ``GetItem``.

        :raises TableNotFound: If no table has that id.
        """
        self.reads += 1
        response = self.client.get_item(TableName=self.tables_table,
                                        Key={"table_id": {"S": table_id}}, ConsistentRead=True)
        item = response.get("Item")
        if item is None:
            raise TableNotFound(table_id)
        return self.from_item(item)

    def create(self, record: TableRecord, moves: tuple[AccountMove, ...] = ()) -> None:
        """``PutItem`` if no item has this id; with moves (the opener's ``open_tables`` +1),
        one ``TransactWriteItems`` holding the same put and the account updates.

        :raises ConcurrentUpdate: If the id exists.
        :raises TooManyTables: If an opener already has the most open tables.
        """
        put: dict[str, Any] = {"TableName": self.tables_table, "Item": self.to_item(record),
                               "ConditionExpression": "attribute_not_exists(#id)",
                               "ExpressionAttributeNames": {"#id": "table_id"}}
        self._write(record.table_id, put, record.version, moves)

    def save(self, record: TableRecord, expected_version: int,
             moves: tuple[AccountMove, ...] = ()) -> None:
        """Write *record* if the stored version is still *expected_version*.

        Without moves: one conditional ``PutItem``. With moves: one ``TransactWriteItems``
        holding the same conditional put, one update per player (``ADD balance``, conditioned
        on ``balance >= amount`` for a buy-in; ``ADD open_tables``, conditioned on the limit
        when it grows) and one ledger entry per chip move (:meth:`ledger_put`). Several moves of
        one player are netted into one update, because a transaction may touch an item only
        once.

        :raises ConcurrentUpdate: If the version moved on (or a concurrent transaction touched
            the same items): nothing was written.
        :raises InsufficientFunds: If an account cannot cover its buy-in: nothing was written.
        :raises TooManyTables: If a player would open one table too many: nothing written.
        :raises botocore.exceptions.ClientError: Any other failure, unchanged.
        """
        put: dict[str, Any] = {
            "TableName": self.tables_table,
            "Item": self.to_item(record),
            "ConditionExpression": "#version = :expected",
            "ExpressionAttributeNames": {"#version": "version"},
            "ExpressionAttributeValues": {":expected": {"N": str(expected_version)}},
        }
        self._write(record.table_id, put, record.version, moves, self.history_puts(record))

    def history_puts(self, record: TableRecord) -> list[tuple[tuple[str, int], dict[str, Any]]]:
        """``(hand, Put)`` of every item storing the hands' records that travel with *record*
        (R10.1, :func:`~naiko_service.aws.histories.history_puts`)."""
        if self.history_table is None:
            return []
        return [(history.key, put) for history in record.histories
                for put in history_puts(self.history_table, self.sealer, history,
                                        self.history_retention_days)]

    def _write(self, table_id: str, put: dict[str, Any], version: int,
               moves: tuple[AccountMove, ...],
               histories: list[tuple[tuple[str, int], dict[str, Any]]] | None = None) -> None:
        histories = histories or []
        net = _net_moves(moves)
        entries = [self.ledger_put(move, f"{table_id}#{version}#{index}")
                   for index, move in enumerate(moves) if move.amount and self.ledger_table]
        self.writes += 1
        if not net and not entries and not histories:
            try:
                self.client.put_item(**put)
            except ClientError as exc:
                if error_code(exc) in ("ConditionalCheckFailedException",
                                        "TransactionConflictException"):
                    raise ConcurrentUpdate(table_id) from exc
                raise
            return
        players = list(net)
        items: list[dict[str, Any]] = [{"Put": put}]
        items += [{"Update": self._account_update(player, net[player])} for player in players]
        items += [{"Put": entry} for entry in entries]
        first_history = len(items)
        items += [{"Put": history} for _, history in histories]
        try:
            self.client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
            codes = cancellation_codes(exc)
            if codes and codes[0] in ("ConditionalCheckFailed", "TransactionConflict"):
                raise ConcurrentUpdate(table_id) from exc
            reasons = exc.response.get("CancellationReasons", [])[1:]
            for player, code, reason in zip(players, codes[1:], reasons, strict=False):
                if code == "ConditionalCheckFailed":
                    raise self._account_refusal(player, net[player], reason.get("Item")) \
                        from exc
            stored = stored_histories(codes, first_history, histories)
            if stored:
                raise HistoryStored(stored) from exc
            if "TransactionConflict" in codes:
                raise ConcurrentUpdate(table_id) from exc
            raise

    def _account_update(self, player_id: str, net: _Net) -> dict[str, Any]:
        """One update of a player's account item for all the moves of one write:
        ``ADD balance -chips`` (a buy-in, *chips* > 0, only if the balance covers it),
        ``ADD open_tables`` (only below :attr:`max_open_tables` when it grows), ``ADD visited``
        (tables sat at, R7.10) and the ratholing counter (``SET``, only if the counter read is
        still the stored one, R7.11). ``ALL_OLD`` comes back with a failed condition, so the
        refusal can be told apart (:meth:`_account_refusal`)."""
        adds: list[str] = []
        sets: list[str] = []
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        conditions: list[str] = []
        if net.chips:
            adds.append("#balance :delta")
            names["#balance"] = "balance"
            values[":delta"] = {"N": str(-net.chips)}
            if net.chips > 0:
                conditions.append("#balance >= :amount")
                values[":amount"] = {"N": str(net.chips)}
        if net.opened:
            adds.append("#open :opened")
            names["#open"] = "open_tables"
            values[":opened"] = {"N": str(net.opened)}
            if net.opened > 0:
                conditions.append("(attribute_not_exists(#open) OR #open <= :room)")
                values[":room"] = {"N": str(self.max_open_tables - net.opened)}
        removes: list[str] = []
        if net.visited is not None:  # the bounded list replaces the legacy string set
            sets.append("#recent = :recent")
            removes.append("#visited")
            names.update({"#recent": "recent_tables", "#visited": "visited"})
            values[":recent"] = {"L": [{"S": t} for t in net.visited]}
        deletes: list[str] = []
        for n, (which, (added, dropped)) in enumerate(sorted(net.sets.items())):
            # a capped string set (AccountSet): ADD one id, only below its cap (or if there)
            attr, name = f"#set{n}", str(which)
            names[attr] = name
            if added:
                adds.append(f"{attr} :add{n}")
                values[f":add{n}"] = {"SS": sorted(added)}
                (member,) = added  # one write adds one id to a set
                conditions.append(f"(attribute_not_exists({attr}) OR size({attr}) < :cap{n} "
                                  f"OR contains({attr}, :member{n}))")
                values[f":cap{n}"] = {"N": str(ACCOUNT_SET_CAPS[which][0])}
                values[f":member{n}"] = {"S": member}
            elif dropped:
                deletes.append(f"{attr} :del{n}")
                values[f":del{n}"] = {"SS": sorted(dropped)}
        if net.takes:  # issue 27: a frozen account takes no chips out, joins nothing
            conditions.append("attribute_not_exists(#frozen)")
            names["#frozen"] = FROZEN
        if net.rathole is not None:
            day, count, read = net.rathole
            sets.append("#rday = :rday, #rcount = :rcount")
            names.update({"#rday": "rathole_day", "#rcount": "rathole_count"})
            values.update({":rday": {"S": day}, ":rcount": {"N": str(count)}})
            if read is None:
                conditions.append("attribute_not_exists(#rday)")
            else:
                conditions.append("#rday = :rread")
                values[":rread"] = {"S": read}
        expression = " ".join(part for part in (
            ("ADD " + ", ".join(adds)) if adds else "",
            ("SET " + ", ".join(sets)) if sets else "",
            ("REMOVE " + ", ".join(removes)) if removes else "",
            ("DELETE " + ", ".join(deletes)) if deletes else "") if part)
        update: dict[str, Any] = {
            "TableName": self.accounts_table,
            "Key": {"player_id": {"S": player_id}},
            "UpdateExpression": expression,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        if conditions:
            update["ConditionExpression"] = " AND ".join(conditions)
        return update

    def _account_refusal(self, player_id: str, net: _Net,
                         old: Item | None) -> Exception:
        """Which condition of an account update failed, from the item as it was."""
        balance = int(old["balance"]["N"]) if old and "balance" in old else 0
        opened = int(old["open_tables"]["N"]) if old and "open_tables" in old else 0
        if old and FROZEN in old and net.takes:
            return AccountFrozen(player_id)
        if net.chips > 0 and balance < net.chips:
            return InsufficientFunds(player_id)
        if net.opened > 0 and opened + net.opened > self.max_open_tables:
            return TooManyTables(player_id)
        for which, (added, _) in net.sets.items():
            members = old.get(str(which), {}).get("SS", []) if old else []
            cap, refusal = ACCOUNT_SET_CAPS[which]
            if added and not added <= set(members) and len(members) >= cap:
                return refusal(player_id)
        if old is None and net.chips > 0:
            return InsufficientFunds(player_id)
        return ConcurrentUpdate(player_id)  # the ratholing counter moved: read again

    def ledger_put(self, move: AccountMove, key: str) -> dict[str, Any]:
        """The ledger entry of *move*: ``amount`` is the account's change (+ in, - out). Its
        key is unique to the write that carries it (a table and its version), so an entry can
        never be written twice."""
        return {"TableName": self.ledger_table,
                "Item": ledger_item(move.player_id, -move.amount, move.ledger_reason,
                                    move.table_id, move.at_ms, key),
                "ConditionExpression": "attribute_not_exists(#entry)",
                "ExpressionAttributeNames": {"#entry": "entry"}}

    def list_open(self, limit: int = 50) -> list[TableSummary]:
        """Listed tables, tables with players first, each group newest first
        (:func:`~naiko_service.records.lobby_order`) among the newest
        :data:`~naiko_service.records.LOBBY_WINDOW`: a Query on ``lobby-index`` (never a
        Scan)."""
        summaries: list[TableSummary] = []
        if limit <= 0:
            return summaries
        for item in paged_query(
                self.client, TableName=self.tables_table, IndexName=LOBBY_INDEX,
                KeyConditionExpression="#lobby = :open",
                ExpressionAttributeNames={"#lobby": "lobby"},
                ExpressionAttributeValues={":open": {"S": LOBBY_OPEN}},
                ScanIndexForward=False, Limit=LOBBY_WINDOW):
            summaries.append(TableSummary.from_dict(json.loads(item["summary"]["S"])))
            if len(summaries) >= LOBBY_WINDOW:
                break
        return lobby_order(summaries)[:limit]

    def find_open(self, stakes: str, limit: int = 20) -> list[TableSummary]:
        """Listed tables at *stakes*, fewest players first: a Query on ``stakes-index``."""
        found: list[TableSummary] = []
        for item in paged_query(
                self.client, TableName=self.tables_table, IndexName=STAKES_INDEX,
                KeyConditionExpression="#stakes = :stakes",
                ExpressionAttributeNames={"#stakes": "stakes"},
                ExpressionAttributeValues={":stakes": {"S": stakes}}, Limit=limit):
            found.append(TableSummary.from_dict(json.loads(item["summary"]["S"])))
            if len(found) >= limit:
                break
        return found

    def find_by_code(self, code: str) -> str | None:
        """The table holding invite code *code*: a Query on ``code-index``."""
        for item in paged_query(
                self.client, TableName=self.tables_table, IndexName=CODE_INDEX,
                KeyConditionExpression="#code = :code",
                ExpressionAttributeNames={"#code": "invite_code"},
                ExpressionAttributeValues={":code": {"S": code}}, Limit=1):
            return str(item["table_id"]["S"])
        return None

    def due_tables(self, now_ms: int, limit: int = 100) -> list[str]:
        """Ids of the tables whose earliest deadline (``due_ms``) is at or before *now_ms*,
        the oldest deadline first, each once, at most *limit*: one Query per ``due-index``
        shard (:func:`due_read_keys`), the shards in parallel (never a Scan), each read page
        after page until *limit*, only ``table_id`` and ``due_ms`` projected; no sealed blob is
        opened. An item written before still carries ``due_tokens``: it is not read."""
        if limit <= 0:
            return []
        keys = due_read_keys(self.due_shards, self.due_previous_shards)
        with ThreadPoolExecutor(max_workers=min(len(keys), SHARD_QUERY_WORKERS)) as pool:
            shards = list(pool.map(lambda key: self._due_shard(key, now_ms, limit), keys))
        due: dict[str, None] = {}  # a table moving between shards may show in two for a moment
        for _, table_id in heapq.merge(*shards):
            due[table_id] = None
            if len(due) >= limit:
                break
        return list(due)

    def _due_shard(self, key: str, now_ms: int, limit: int) -> list[tuple[int, str]]:
        """``(due_ms, table_id)`` of one shard's due tables, oldest first, at most *limit*."""
        found: list[tuple[int, str]] = []
        for item in paged_query(
                self.client, TableName=self.tables_table, IndexName=DUE_INDEX,
                KeyConditionExpression="#timer = :due AND #due_ms <= :now",
                ProjectionExpression="#id, #due_ms",
                ExpressionAttributeNames={"#timer": "timer", "#due_ms": "due_ms",
                                          "#id": "table_id"},
                ExpressionAttributeValues={":due": {"S": key}, ":now": {"N": str(now_ms)}},
                Limit=min(limit, 1_000)):
            found.append((int(item["due_ms"]["N"]), str(item["table_id"]["S"])))
            if len(found) >= limit:
                break
        return found

    # -- measurements ------------------------------------------------------------------------

    def item_size(self, table_id: str) -> int:
        """Approximate size in bytes of the stored item, as DynamoDB bills it
        (see :func:`dynamodb_item_size`).

        :raises TableNotFound: If no table has that id.
        """
        response = self.client.get_item(TableName=self.tables_table,
                                        Key={"table_id": {"S": table_id}}, ConsistentRead=True)
        item = response.get("Item")
        if item is None:
            raise TableNotFound(table_id)
        return dynamodb_item_size(item)


def stored_histories(codes: list[str], first: int,
                     histories: list[tuple[tuple[str, int], dict[str, Any]]]
                     ) -> tuple[tuple[str, int], ...]:
    """The hands whose items failed their ``attribute_not_exists`` in a cancelled transaction
    whose history items start at index *first* (R10.1: the record is stored already)."""
    found: list[tuple[str, int]] = []
    for (hand, _), code in zip(histories, codes[first:], strict=False):
        if code == "ConditionalCheckFailed" and hand not in found:
            found.append(hand)
    return tuple(found)


@dataclass
class _Net:
    """What one write changes on one account (a transaction may touch an item only once)."""

    chips: int = 0
    opened: int = 0
    visited: tuple[str, ...] | None = None
    sets: dict[AccountSet, tuple[set[str], set[str]]] = field(default_factory=dict)
    """Per capped set: the ids added and the ids removed."""
    rathole: tuple[str, int, str | None] | None = None

    @property
    def empty(self) -> bool:
        return not (self.chips or self.opened or self.visited is not None or self.rathole
                    or any(added or dropped for added, dropped in self.sets.values()))

    @property
    def takes(self) -> bool:
        """Whether the write takes chips out of the account or adds it to a capped set (a
        table, a waiting list, a tournament): what a frozen account may not do (issue 27)."""
        return self.chips > 0 or any(added for added, _ in self.sets.values())


def _members(item: Item, which: AccountSet) -> frozenset[str]:
    return frozenset(item[str(which)]["SS"]) if str(which) in item else frozenset()


def _net_moves(moves: tuple[AccountMove, ...]) -> dict[str, _Net]:
    """player_id -> what the write changes on that account; players whose moves cancel out
    are dropped."""
    net: dict[str, _Net] = {}
    for move in moves:
        change = net.setdefault(move.player_id, _Net())
        change.chips += move.amount
        change.opened += move.open_tables
        if move.visited is not None:
            change.visited = move.visited
        for which, added in move.set_changes():
            adds, drops = change.sets.setdefault(which, (set(), set()))
            (adds if added else drops).add(move.table_id)
            (drops if added else adds).discard(move.table_id)
        if move.rathole is not None:
            change.rathole = move.rathole
    return {player: change for player, change in net.items() if not change.empty}


def cancellation_codes(exc: ClientError) -> list[str]:
    """The ``Code`` of each item of a cancelled ``TransactWriteItems`` (``"None"`` for an item
    that did not fail), in the order the items were written."""
    return [str(reason.get("Code", "None"))
            for reason in exc.response.get("CancellationReasons", [])]


FROZEN = "frozen"
"""The account item's attribute of a frozen account (the freezing action's id, issue 27)."""


def ledger_item(player_id: str, amount: int, reason: LedgerReason, ref: str, at_ms: int,
                key: str) -> Item:
    """A ledger entry as an item: ``account`` (HASH) and ``entry`` (RANGE) =
    ``{at_ms:013d}#{key}``, so an account's entries read in time order."""
    return {"account": {"S": player_id}, "entry": {"S": f"{at_ms:013d}#{key}"},
            "amount": {"N": str(amount)}, "reason": {"S": reason.value}, "ref": {"S": ref},
            "at_ms": {"N": str(at_ms)}}


def dynamodb_item_size(item: Item) -> int:
    """Approximate size of an item as DynamoDB counts it: UTF-8 attribute names plus values.

    Strings count their UTF-8 bytes, binaries their bytes, numbers one byte per two
    significant digits plus one; sets and lists/maps sum their members (plus the documented
    overheads of 3 bytes per list/map and 1 per element).

    >>> dynamodb_item_size({"id": {"S": "abc"}, "n": {"N": "1200"}, "b": {"B": b"xy"}})
    11
    """
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: dict[str, Any]) -> int:
    (kind, data), = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "N":
        return _number_size(str(data))
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(str(s).encode()) for s in data)
    if kind == "NS":
        return sum(_number_size(str(n)) for n in data)
    if kind == "BS":
        return sum(len(b) for b in data)
    if kind == "L":
        return 3 + sum(1 + _value_size(v) for v in data)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + _value_size(v) for k, v in data.items())
    raise ValueError(f"unknown DynamoDB type {kind!r}")


def _number_size(text: str) -> int:
    digits = text.lstrip("+-").lower().split("e")[0].replace(".", "").strip("0")
    return (max(len(digits), 1) + 1) // 2 + 1


def _visited(item: Item) -> tuple[str, ...]:
    """The account's tables played at, most recent last: the bounded list ``recent_tables``
    (an account written before it has the unordered string set ``visited``, read first)."""
    legacy = sorted(item["visited"]["SS"]) if "visited" in item else []
    recent = [str(v["S"]) for v in item["recent_tables"]["L"]] if "recent_tables" in item \
        else []
    return tuple(([t for t in legacy if t not in recent] + recent)[-MAX_VISITED:])


class DynamoAccounts:
    """:class:`~naiko_service.ports.Accounts` on DynamoDB: ``player_id`` -> ``balance`` (N).

    Buy-ins and cash-outs do not come through here: :meth:`DynamoTableStore.save` moves chips
    in the same transaction as the table write.
    """

    def __init__(self, client: Any, accounts_table: str, *, ledger_table: str | None = None):
        self.client = client
        self.accounts_table = accounts_table
        self.ledger_table = ledger_table

    def profile(self, player_id: str) -> AccountProfile:
        """Balance, open tables, ratholing counter and tables visited: one consistent GetItem
        (an empty profile for a player without an account item)."""
        response = self.client.get_item(TableName=self.accounts_table,
                                        Key={"player_id": {"S": player_id}},
                                        ConsistentRead=True)
        item = response.get("Item", {})

        def number(name: str) -> int:
            return int(item[name]["N"]) if name in item else 0

        return AccountProfile(
            balance=number("balance"), open_tables=number("open_tables"),
            rathole_day=item["rathole_day"]["S"] if "rathole_day" in item else None,
            rathole_count=number("rathole_count"),
            visited=_visited(item),
            waiting=_members(item, AccountSet.WAITING),
            registered=_members(item, AccountSet.REGISTERED),
            created=_members(item, AccountSet.CREATED))

    def balance(self, player_id: str) -> int:
        """The balance (0 for a player without an account item): one consistent GetItem."""
        response = self.client.get_item(TableName=self.accounts_table,
                                        Key={"player_id": {"S": player_id}},
                                        ConsistentRead=True,
                                        ProjectionExpression="#balance",
                                        ExpressionAttributeNames={"#balance": "balance"})
        balance = response.get("Item", {}).get("balance")
        return int(balance["N"]) if balance else 0

    def forget_waiting(self, player_id: str, table_id: str) -> None:
        """``DELETE`` *table_id* from the account's ``waiting`` set (idempotent)."""
        self.forget(player_id, AccountSet.WAITING, frozenset((table_id,)))

    def forget(self, player_id: str, which: AccountSet, ids: frozenset[str]) -> None:
        """``DELETE`` *ids* from the account's set *which* (idempotent)."""
        if not ids:
            return
        try:
            self.client.update_item(
                TableName=self.accounts_table, Key={"player_id": {"S": player_id}},
                UpdateExpression="DELETE #set :ids",
                ConditionExpression="attribute_exists(#id)",
                ExpressionAttributeNames={"#set": str(which), "#id": "player_id"},
                ExpressionAttributeValues={":ids": {"SS": sorted(ids)}})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise

    def grant(self, player_id: str, amount: int, ref: str = "ops", at_ms: int = 0) -> int:
        """Add *amount* virtual chips (ops only), creating the account, with its ledger entry
        in the same transaction; returns the new balance.

        :raises AccountFrozen: The account is frozen (issue 27): nothing is granted."""
        update = {"TableName": self.accounts_table, "Key": {"player_id": {"S": player_id}},
                  "UpdateExpression": "ADD #balance :amount",
                  "ConditionExpression": "attribute_not_exists(#frozen)",
                  "ExpressionAttributeNames": {"#balance": "balance", "#frozen": FROZEN},
                  "ExpressionAttributeValues": {":amount": {"N": str(amount)}}}
        try:
            if self.ledger_table is None:
                response = self.client.update_item(**update, ReturnValues="UPDATED_NEW")
                return int(response["Attributes"]["balance"]["N"])
            at_ms = at_ms or time.time_ns() // 1_000_000
            entry = ledger_item(player_id, amount, LedgerReason.GRANT, ref, at_ms,
                                f"grant#{uuid.uuid4().hex}")
            self.client.transact_write_items(TransactItems=[
                {"Update": update}, {"Put": {"TableName": self.ledger_table, "Item": entry}}])
        except ClientError as exc:
            codes = cancellation_codes(exc)
            if error_code(exc) == "ConditionalCheckFailedException" or codes[:1] == [
                    "ConditionalCheckFailed"]:
                raise AccountFrozen(player_id) from exc
            raise
        return self.balance(player_id)

    # -- operators (AccountsAdmin, issue 27) ----------------------------------------------

    def _log_put(self, action: OperatorAction) -> dict[str, Any]:
        """The operator log's item of *action*: partition ``ops:log`` of the ledger table,
        ``entry`` ``{at_ms:013d}#{action_id}`` (newest last), written once."""
        if self.ledger_table is None:
            raise ValueError("operator actions need the ledger table (the operator log)")
        return {"TableName": self.ledger_table,
                "Item": {"account": {"S": OPERATOR_LOG},
                         "entry": {"S": action.log_key},
                         "doc": {"S": json.dumps(action.to_dict(), sort_keys=True)}},
                "ConditionExpression": "attribute_not_exists(#entry)",
                "ExpressionAttributeNames": {"#entry": "entry"}}

    def is_frozen(self, player_id: str) -> bool:
        response = self.client.get_item(TableName=self.accounts_table,
                                        Key={"player_id": {"S": player_id}},
                                        ConsistentRead=True, ProjectionExpression="#frozen",
                                        ExpressionAttributeNames={"#frozen": FROZEN})
        return FROZEN in response.get("Item", {})

    def set_frozen(self, player_id: str, frozen: bool, action: OperatorAction) -> None:
        """One transaction: the account's ``frozen`` attribute (``SET`` with the action's id,
        only if the account exists and is not frozen; ``REMOVE``, only if frozen) and the
        action's operator log item."""
        update: dict[str, Any] = {
            "TableName": self.accounts_table, "Key": {"player_id": {"S": player_id}},
            "ExpressionAttributeNames": {"#frozen": FROZEN, "#id": "player_id"},
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
        if frozen:
            update["UpdateExpression"] = "SET #frozen = :action"
            update["ConditionExpression"] = ("attribute_exists(#id) AND "
                                             "attribute_not_exists(#frozen)")
            update["ExpressionAttributeValues"] = {":action": {"S": action.action_id}}
        else:
            update["UpdateExpression"] = "REMOVE #frozen"
            update["ConditionExpression"] = ("attribute_exists(#id) AND "
                                             "attribute_exists(#frozen)")
        try:
            self.client.transact_write_items(TransactItems=[
                {"Update": update}, {"Put": self._log_put(action)}])
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons", [])
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                old = reasons[0].get("Item")
                if not old:
                    raise KeyError(player_id) from exc
                raise (AccountFrozen(player_id) if frozen else NotFrozen(player_id)) from exc
            raise

    def reverse(self, source: str, target: str, amount: int, action: OperatorAction) -> None:
        """One transaction: the reversal id's item (``ops:reversal`` / the id, only if absent:
        a reversal happens once), ``ADD balance -amount`` on *source* (only if it covers it:
        never below zero), ``ADD balance +amount`` on *target* (only if the account exists),
        their two ``reversal`` ledger entries and the operator log item."""
        if self.ledger_table is None:
            raise ValueError("a reversal needs the ledger table")
        ref = f"reversal:{action.action_id}"
        marker = {"TableName": self.ledger_table,
                  "Item": {"account": {"S": REVERSALS}, "entry": {"S": action.action_id},
                           "doc": {"S": json.dumps(action.to_dict(), sort_keys=True)}},
                  "ConditionExpression": "attribute_not_exists(#entry)",
                  "ExpressionAttributeNames": {"#entry": "entry"}}
        take = {"TableName": self.accounts_table, "Key": {"player_id": {"S": source}},
                "UpdateExpression": "ADD #balance :minus",
                "ConditionExpression": "#balance >= :amount",
                "ExpressionAttributeNames": {"#balance": "balance"},
                "ExpressionAttributeValues": {":minus": {"N": str(-amount)},
                                              ":amount": {"N": str(amount)}}}
        give = {"TableName": self.accounts_table, "Key": {"player_id": {"S": target}},
                "UpdateExpression": "ADD #balance :plus",
                "ConditionExpression": "attribute_exists(#id)",
                "ExpressionAttributeNames": {"#balance": "balance", "#id": "player_id"},
                "ExpressionAttributeValues": {":plus": {"N": str(amount)}}}
        entries = [{"TableName": self.ledger_table,
                    "Item": ledger_item(player, change, LedgerReason.REVERSAL, ref, action.at_ms,
                                        f"reversal#{action.action_id}#{index}"),
                    "ConditionExpression": "attribute_not_exists(#entry)",
                    "ExpressionAttributeNames": {"#entry": "entry"}}
                   for index, (player, change) in enumerate(((source, -amount),
                                                             (target, amount)))]
        try:
            self.client.transact_write_items(TransactItems=[
                {"Put": marker}, {"Update": take}, {"Update": give},
                *({"Put": e} for e in entries), {"Put": self._log_put(action)}])
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
            codes = cancellation_codes(exc)
            if codes[:1] == ["ConditionalCheckFailed"]:
                stored = self.client.get_item(
                    TableName=self.ledger_table, ConsistentRead=True,
                    Key={"account": {"S": REVERSALS}, "entry": {"S": action.action_id}})
                raise AlreadyReversed(OperatorAction.from_dict(
                    json.loads(stored["Item"]["doc"]["S"]))) from exc
            if codes[1:2] == ["ConditionalCheckFailed"]:
                raise InsufficientFunds(source) from exc
            if codes[2:3] == ["ConditionalCheckFailed"]:
                raise KeyError(target) from exc
            raise

    def operator_log(self, limit: int = 50, before: str | None = None,
                     ) -> tuple[list[OperatorAction], str | None]:
        """A Query of the ``ops:log`` partition, newest first, from *before* (an ``entry``)."""
        if self.ledger_table is None:
            raise ValueError("the operator log is in the ledger table")
        request: dict[str, Any] = {
            "TableName": self.ledger_table, "ConsistentRead": True, "ScanIndexForward": False,
            "Limit": limit, "KeyConditionExpression": "#account = :log",
            "ExpressionAttributeNames": {"#account": "account"},
            "ExpressionAttributeValues": {":log": {"S": OPERATOR_LOG}}}
        if before is not None:
            request["ExclusiveStartKey"] = {"account": {"S": OPERATOR_LOG},
                                            "entry": {"S": before}}
        response = self.client.query(**request)
        actions = [OperatorAction.from_dict(json.loads(item["doc"]["S"]))
                   for item in response.get("Items", [])]
        last = response.get("LastEvaluatedKey")
        return actions, (str(last["entry"]["S"]) if last else None)


class DynamoConnections:
    """:class:`~naiko_service.ports.Connections` on DynamoDB: one item per WebSocket
    connection (``connection_id``), with ``player_id``, the string set ``tables`` and
    ``expires_at`` (epoch seconds, the table's TTL attribute) so that items of connections
    whose ``$disconnect`` never ran go away by themselves.

    :param ttl_seconds: Lifetime of an item after :meth:`bind` (API Gateway closes a
        connection after 2 hours at most).
    :param clock: Epoch seconds, for the expiry of an item that :meth:`add_table` creates.
    """

    def __init__(self, client: Any, connections_table: str, ttl_seconds: int = 86_400,
                 clock: Callable[[], float] = time.time):
        self.client = client
        self.connections_table = connections_table
        self.ttl_seconds = ttl_seconds
        self.clock = clock

    def _key(self, connection_id: str) -> Item:
        return {"connection_id": {"S": connection_id}}

    def _get(self, connection_id: str) -> Item:
        response = self.client.get_item(TableName=self.connections_table,
                                        Key=self._key(connection_id), ConsistentRead=True)
        item: Item = response.get("Item", {})
        return item

    def bind(self, connection_id: str, player_id: str, now_ms: int) -> None:
        """Put the connection's item: the player, no tables, expiry ``now + ttl``."""
        self.client.put_item(TableName=self.connections_table, Item={
            **self._key(connection_id),
            "player_id": {"S": player_id},
            "expires_at": {"N": str(now_ms // 1000 + self.ttl_seconds)},
        })

    def player_of(self, connection_id: str) -> str | None:
        player = self._get(connection_id).get("player_id")
        return str(player["S"]) if player else None

    def tables_of(self, connection_id: str) -> list[str]:
        """The tables the connection watches, sorted (a string set has no order)."""
        tables = self._get(connection_id).get("tables")
        return sorted(str(t) for t in tables["SS"]) if tables else []

    def add_table(self, connection_id: str, table_id: str) -> None:
        """``ADD`` *table_id* to the ``tables`` set (idempotent), only while the set holds fewer
        than :data:`~naiko_service.limits.MAX_TABLES_PER_CONNECTION` tables (or holds it
        already). An item created here (the connection was never bound, or was unbound
        meanwhile) still gets an expiry.

        :raises TooManyWatched: If the connection watches as many tables as it may.
        """
        try:
            self.client.update_item(
                TableName=self.connections_table, Key=self._key(connection_id),
                UpdateExpression="ADD #tables :table SET #expires = if_not_exists(#expires, :exp)",
                ConditionExpression="attribute_not_exists(#tables) OR size(#tables) < :cap "
                                    "OR contains(#tables, :id)",
                ExpressionAttributeNames={"#tables": "tables", "#expires": "expires_at"},
                ExpressionAttributeValues={
                    ":table": {"SS": [table_id]}, ":id": {"S": table_id},
                    ":cap": {"N": str(MAX_TABLES_PER_CONNECTION)},
                    ":exp": {"N": str(int(self.clock()) + self.ttl_seconds)},
                })
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            raise TooManyWatched(connection_id) from exc

    def remove_table(self, connection_id: str, table_id: str) -> None:
        """``DELETE`` *table_id* from the ``tables`` set (idempotent), on an existing item."""
        try:
            self.client.update_item(
                TableName=self.connections_table, Key=self._key(connection_id),
                UpdateExpression="DELETE #tables :table",
                ConditionExpression="attribute_exists(#id)",
                ExpressionAttributeNames={"#tables": "tables", "#id": "connection_id"},
                ExpressionAttributeValues={":table": {"SS": [table_id]}})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise

    def unbind(self, connection_id: str) -> None:
        self.client.delete_item(TableName=self.connections_table, Key=self._key(connection_id))

    # -- table chat (R8.9) --

    def mute(self, connection_id: str, player_id: str) -> None:
        """``ADD`` *player_id* to the ``muted`` set of an existing item (idempotent), only
        while it holds fewer than :data:`~naiko_service.limits.MAX_MUTES` players (or holds
        it already); a connection gone meanwhile mutes nobody.

        :raises TooManyMutes: If the connection mutes as many players as it may.
        """
        try:
            self.client.update_item(
                TableName=self.connections_table, Key=self._key(connection_id),
                UpdateExpression="ADD #muted :player",
                ConditionExpression="attribute_exists(#id) AND (attribute_not_exists(#muted) "
                                    "OR size(#muted) < :cap OR contains(#muted, :id))",
                ExpressionAttributeNames={"#muted": "muted", "#id": "connection_id"},
                ExpressionAttributeValues={":player": {"SS": [player_id]},
                                           ":id": {"S": player_id},
                                           ":cap": {"N": str(MAX_MUTES)}})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            if self._get(connection_id):
                raise TooManyMutes(connection_id) from exc

    def unmute(self, connection_id: str, player_id: str) -> None:
        """``DELETE`` *player_id* from the ``muted`` set (idempotent), on an existing item."""
        try:
            self.client.update_item(
                TableName=self.connections_table, Key=self._key(connection_id),
                UpdateExpression="DELETE #muted :player",
                ConditionExpression="attribute_exists(#id)",
                ExpressionAttributeNames={"#muted": "muted", "#id": "connection_id"},
                ExpressionAttributeValues={":player": {"SS": [player_id]}})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise

    def muted_by(self, connection_ids: list[str]) -> dict[str, frozenset[str]]:
        """``BatchGetItem`` of the ``muted`` sets, 100 keys a call (eventually consistent:
        a mute a moment old may be missed once); keys DynamoDB leaves unprocessed are asked
        again, twice at most, then counted as muting nobody (a chat line too many, never
        one lost)."""
        muted: dict[str, frozenset[str]] = {}
        unique = list(dict.fromkeys(connection_ids))
        for start in range(0, len(unique), 100):
            keys: list[Item] = [self._key(c) for c in unique[start:start + 100]]
            for _ in range(3):
                if not keys:
                    break
                response = self.client.batch_get_item(RequestItems={self.connections_table: {
                    "Keys": keys, "ProjectionExpression": "#id, #muted",
                    "ExpressionAttributeNames": {"#id": "connection_id", "#muted": "muted"}}})
                for item in response.get("Responses", {}).get(self.connections_table, []):
                    if "muted" in item:
                        muted[str(item["connection_id"]["S"])] = frozenset(
                            str(p) for p in item["muted"]["SS"])
                keys = response.get("UnprocessedKeys", {}).get(
                    self.connections_table, {}).get("Keys", [])
        return muted

    def add_refusals(self, connection_id: str, count: int, window: int) -> int:
        """Add *count* rate-limit refusals to the connection's counter of *window*
        (:mod:`naiko_service.ratelimit`) and return the counter (0 when the connection has no
        item: it is gone). Called on the abuse path only, one call per batch of refusals: an
        ``UpdateItem`` that adds to the counter if it counts *window*, else one that starts
        it anew (an older window's count is dropped).
        """
        key = self._key(connection_id)
        for _ in range(3):  # another container may start the window between the two calls
            try:
                response = self.client.update_item(
                    TableName=self.connections_table, Key=key,
                    UpdateExpression="ADD #refusals :count",
                    ConditionExpression="#window = :window",
                    ExpressionAttributeNames={"#refusals": "refusals",
                                              "#window": "refusal_window"},
                    ExpressionAttributeValues={":count": {"N": str(count)},
                                               ":window": {"N": str(window)}},
                    ReturnValues="UPDATED_NEW")
                return int(response["Attributes"]["refusals"]["N"])
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise
            try:
                self.client.update_item(
                    TableName=self.connections_table, Key=key,
                    UpdateExpression="SET #refusals = :count, #window = :window",
                    ConditionExpression="attribute_exists(#id) AND (attribute_not_exists("
                                        "#window) OR #window < :window)",
                    ExpressionAttributeNames={"#refusals": "refusals",
                                              "#window": "refusal_window",
                                              "#id": "connection_id"},
                    ExpressionAttributeValues={":count": {"N": str(count)},
                                               ":window": {"N": str(window)}})
                return count
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise
            if not self._get(connection_id):
                return 0
        return count


# -- push notifications (issue 25, item 4) -------------------------------------------------------

DEVICES_PREFIX = "devices#"
"""The connections table's key of a player's device book: ``devices#<player_id>`` (an API
Gateway connection id never holds a ``#``). The item has no ``expires_at``: the TTL keeps it."""


class DynamoDevices:
    """:class:`~naiko_service.ports.Devices` on the connections table: one item per player,
    ``connection_id`` = ``devices#<player_id>``, holding ``devices`` (JSON, at most
    :data:`~naiko_service.limits.MAX_DEVICES_PER_PLAYER`), ``language``, ``live`` (a string
    set of open connections), the rate limit's ``push_tokens``/``push_at``/``push_last`` and
    ``version``. Devices and the rate limit are written conditional on ``version``; ``live``
    changes with ``ADD``/``DELETE`` (no version: they never race the others' content)."""

    def __init__(self, client: Any, connections_table: str):
        self.client = client
        self.table = connections_table

    def _key(self, player_id: str) -> Item:
        return {"connection_id": {"S": DEVICES_PREFIX + player_id}}

    def book(self, player_id: str) -> DeviceBook | None:
        item = self.client.get_item(TableName=self.table, Key=self._key(player_id),
                                    ConsistentRead=True).get("Item")
        if not item:
            return None
        return DeviceBook(
            player_id=player_id,
            devices=tuple(Device.from_dict(d) for d in json.loads(item["devices"]["S"]))
            if "devices" in item else (),
            language=str(item["language"]["S"]) if "language" in item else "en",
            live=frozenset(str(c) for c in item["live"]["SS"]) if "live" in item
            else frozenset(),
            tokens=float(item["push_tokens"]["N"]) if "push_tokens" in item else None,
            at_ms=int(item["push_at"]["N"]) if "push_at" in item else 0,
            last={str(k): int(v) for k, v in json.loads(item["push_last"]["S"]).items()}
            if "push_last" in item else {},
            version=int(item["version"]["N"]) if "version" in item else 0)

    def _write_devices(self, player_id: str, change: Callable[[DeviceBook], DeviceBook | None],
                       live: str | None = None) -> None:
        """Read the book, apply *change*, write its devices and language if the version is
        still the one read (retried on a conflict: each writer is one player's own request)."""
        for _ in range(5):
            book = self.book(player_id) or DeviceBook(player_id)
            new = change(book)
            if new is None:
                return
            values: dict[str, Any] = {
                ":devices": {"S": json.dumps([d.to_dict() for d in new.devices],
                                             sort_keys=True)},
                ":language": {"S": new.language}, ":player": {"S": player_id},
                ":next": {"N": str(book.version + 1)}}
            expression = ("SET #devices = :devices, #language = :language, #player = :player, "
                          "#version = :next")
            if live is not None:
                expression += " ADD #live :live"
                values[":live"] = {"SS": [live]}
            if book.version:
                condition = "#version = :version"
                values[":version"] = {"N": str(book.version)}
            else:
                condition = "attribute_not_exists(#version)"
            try:
                self.client.update_item(
                    TableName=self.table, Key=self._key(player_id),
                    UpdateExpression=expression, ConditionExpression=condition,
                    ExpressionAttributeNames={"#devices": "devices", "#language": "language",
                                              "#player": "player_id", "#version": "version",
                                              **({"#live": "live"} if live else {})},
                    ExpressionAttributeValues=values)
                return
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise
        raise ConcurrentUpdate(DEVICES_PREFIX + player_id)

    def add(self, player_id: str, device: Device, language: str, now_ms: int,
            connection_id: str | None = None) -> None:
        def change(book: DeviceBook) -> DeviceBook:
            kept = [d for d in book.devices if d.token != device.token] + [device]
            return DeviceBook(player_id, tuple(kept[-MAX_DEVICES_PER_PLAYER:]), language)

        self._write_devices(player_id, change, connection_id)

    def remove(self, player_id: str, token: str) -> Device | None:
        found: list[Device] = []

        def change(book: DeviceBook) -> DeviceBook | None:
            found[:] = [d for d in book.devices if d.token == token]
            if not found:
                return None
            return DeviceBook(player_id, tuple(d for d in book.devices if d.token != token),
                              book.language)

        self._write_devices(player_id, change)
        return found[0] if found else None

    def sent(self, book: DeviceBook, kind: NotificationKind, tokens: float,
             now_ms: int) -> bool:
        """One conditional ``UpdateItem`` on ``version``."""
        try:
            self.client.update_item(
                TableName=self.table, Key=self._key(book.player_id),
                UpdateExpression="SET #tokens = :tokens, #at = :at, #last = :last, "
                                 "#version = :next",
                ConditionExpression="#version = :version",
                ExpressionAttributeNames={"#tokens": "push_tokens", "#at": "push_at",
                                          "#last": "push_last", "#version": "version"},
                ExpressionAttributeValues={
                    ":tokens": {"N": repr(round(tokens, 6))}, ":at": {"N": str(now_ms)},
                    ":last": {"S": json.dumps({**book.last, str(kind): now_ms},
                                              sort_keys=True)},
                    ":version": {"N": str(book.version)},
                    ":next": {"N": str(book.version + 1)}})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def connected(self, player_id: str, connection_id: str) -> None:
        """``ADD`` to ``live``, only on an existing book (a player who never registered a
        device costs a refused conditional write, nothing stored)."""
        self._live(player_id, connection_id, "ADD")

    def disconnected(self, player_id: str, connection_id: str) -> None:
        self._live(player_id, connection_id, "DELETE")

    def _live(self, player_id: str, connection_id: str, verb: str) -> None:
        try:
            self.client.update_item(
                TableName=self.table, Key=self._key(player_id),
                UpdateExpression=f"{verb} #live :live",
                ConditionExpression="attribute_exists(#id)",
                ExpressionAttributeNames={"#live": "live", "#id": "connection_id"},
                ExpressionAttributeValues={":live": {"SS": [connection_id]}})
        except ClientError as exc:
            if error_code(exc) != "ConditionalCheckFailedException":
                raise
