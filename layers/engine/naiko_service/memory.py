""":mod:`naiko_service.memory` holds in-memory adapters of every port: the fakes of the unit
tests and the pieces local mode can use without AWS.

The table store keeps each table as its sealed document plus a version, exactly like the
DynamoDB adapter, so a test that passes here exercises the same serialisation.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from . import hand_records
from .hand_records import MAX_CHAT_LINES, ChatLine, HandRecord, Page, PlayerHand
from .ledger import Audit, audit
from .limits import (
    MAX_DEVICES_PER_PLAYER,
    MAX_MUTES,
    MAX_OPEN_TABLES,
    MAX_SPECTATORS,
    MAX_TABLES_PER_CONNECTION,
)
from .ports import (
    ACCOUNT_SET_CAPS,
    OPERATOR_LOG,
    AccountFrozen,
    AccountMove,
    AccountProfile,
    AccountSet,
    AlreadyReversed,
    BumpCount,
    CloseCount,
    CloseOuts,
    ConcurrentUpdate,
    ConnectionGone,
    CountOuts,
    DeleteItem,
    Device,
    DeviceBook,
    HistoryStored,
    InsufficientFunds,
    LedgerEntry,
    LedgerReason,
    NotFrozen,
    Notification,
    NotificationKind,
    OperatorAction,
    Platform,
    PutItem,
    PutOperatorAction,
    PutTable,
    PutTournament,
    TableNotFound,
    TooManyMutes,
    TooManySpectators,
    TooManyTables,
    TooManyWatched,
    TournamentNotFound,
    Watcher,
    Write,
)
from .records import (
    LOBBY_WINDOW,
    Sealer,
    TableRecord,
    TableSummary,
    lobby_order,
    open_record,
    seal_fallback,
)
from .tournament_records import COUNT_PREFIX, SHARD_PREFIX, Shard, TournamentRecord
from .watcher_queue import shard_of


@dataclass
class _Item:
    """What the DynamoDB item holds, in memory: version, sealed state, sealed fallback, and the
    index keys in clear."""

    version: int
    blob: bytes
    fallback: bytes | None
    summary: TableSummary | None
    due_ms: int | None
    stakes: str | None = None
    """The stakes key while listed (the stakes index)."""
    invite_code: str | None = None
    """The current invite code (the code index)."""


class MemoryTableStore:
    """Tables and accounts in dicts; a save with account moves is all-or-nothing. It also
    keeps the hands' records (R10.1) written with the tables, sealed as on DynamoDB, and
    reads them (:class:`~naiko_service.ports.HandHistories`)."""

    def __init__(self, sealer: Sealer | None = None, accounts: MemoryAccounts | None = None):
        self.sealer = sealer or Sealer(bytes(32))
        self.accounts = accounts or MemoryAccounts()
        self._items: dict[str, _Item] = {}
        self._lock = threading.RLock()
        self.reads = 0
        self.writes = 0
        self.tournaments: MemoryTournamentStore | None = None
        """The tournaments written with these tables (set by :class:`MemoryTournamentStore`)."""
        self.hands: dict[tuple[str, int], bytes] = {}
        """(table_id, hand_number) -> the sealed record (R10.1)."""
        self.player_index: dict[str, dict[str, PlayerHand]] = defaultdict(dict)
        """player_id -> cursor -> the entry of the player's list of hands."""
        self.keep_histories = True
        """``False``: hands' records are checked but not kept (long simulations)."""

    def load(self, table_id: str) -> TableRecord:
        with self._lock:
            self.reads += 1
            item = self._items.get(table_id)
        if item is None:
            raise TableNotFound(table_id)
        return open_record(self.sealer, table_id, item.version, item.blob, item.fallback)

    def create(self, record: TableRecord, moves: tuple[AccountMove, ...] = ()) -> None:
        with self._lock:
            if record.table_id in self._items:
                raise ConcurrentUpdate(record.table_id)
            self.accounts.apply_moves(moves)  # raises before any change
            self.writes += 1
            self._items[record.table_id] = self._item(record)

    def save(self, record: TableRecord, expected_version: int,
             moves: tuple[AccountMove, ...] = ()) -> None:
        with self._lock:
            current = self._items.get(record.table_id)
            if current is None or current.version != expected_version:
                raise ConcurrentUpdate(record.table_id)
            self.check_histories(record)
            self.accounts.apply_moves(moves)  # raises InsufficientFunds before any change
            self.writes += 1
            self._items[record.table_id] = self._item(record)
            self.put_histories(record)

    # -- hands' records (R10.1) --------------------------------------------------------------

    def check_histories(self, record: TableRecord) -> None:
        """:raises HistoryStored: If a record travelling with *record* is stored already."""
        found = tuple(h.key for h in record.histories if h.key in self.hands)
        if found:
            raise HistoryStored(found)

    def put_histories(self, record: TableRecord) -> None:
        """Store the records travelling with *record* (checked by :meth:`check_histories`)."""
        for history in record.histories:
            if not self.keep_histories:
                continue
            self.hands[history.key] = hand_records.seal(self.sealer, history)
            for pointer in history.pointers():
                self.player_index[pointer.player_id][pointer.cursor] = pointer

    def hand(self, table_id: str, hand_number: int) -> HandRecord | None:
        with self._lock:
            blob = self.hands.get((table_id, hand_number))
        if blob is None:
            return None
        return hand_records.open_sealed(self.sealer, table_id, hand_number, blob)

    def player_hands(self, player_id: str, before: str | None = None,
                     limit: int = 20) -> Page:
        with self._lock:
            entries = sorted((c for c in self.player_index.get(player_id, {})
                              if before is None or c < before), reverse=True)
            hands = [self.player_index[player_id][c] for c in entries[:limit + 1]]
        if len(hands) > limit:
            return Page(hands[:limit], hands[limit - 1].cursor)
        return Page(hands, None)

    def table_hands(self, table_id: str, after: int = 0,
                    limit: int = 100) -> list[HandRecord]:
        with self._lock:
            numbers = sorted(n for t, n in self.hands if t == table_id and n > after)
        found = [self.hand(table_id, n) for n in numbers[:limit]]
        return [h for h in found if h is not None]

    def _item(self, record: TableRecord) -> _Item:
        listed = record.listed
        return _Item(record.version, self.sealer.seal(record.to_document(), record.table_id),
                     seal_fallback(self.sealer, record),
                     record.summary() if listed else None, record.next_due_ms(),
                     record.stakes if listed else None, record.room.invite_code)

    def list_open(self, limit: int = 50) -> list[TableSummary]:
        with self._lock:
            summaries = [item.summary for item in self._items.values() if item.summary]
        newest = sorted(summaries, key=lambda s: -s.created_ms)[:LOBBY_WINDOW]
        return lobby_order(newest)[:limit]

    def find_open(self, stakes: str, limit: int = 20) -> list[TableSummary]:
        with self._lock:
            found = [item.summary for item in self._items.values()
                     if item.summary is not None and item.stakes == stakes]
        return sorted(found, key=lambda s: (s.seated, s.created_ms))[:limit]

    def find_by_code(self, code: str) -> str | None:
        with self._lock:
            return next((table_id for table_id, item in self._items.items()
                         if item.invite_code == code), None)

    def due_tables(self, now_ms: int, limit: int = 100) -> list[str]:
        with self._lock:
            due = sorted((item.due_ms, table_id) for table_id, item in self._items.items()
                         if item.due_ms is not None and item.due_ms <= now_ms)
        return [table_id for _, table_id in due[:max(limit, 0)]]

    def item_size(self, table_id: str) -> int:
        """Bytes of the stored blobs (what dominates a DynamoDB item's size)."""
        item = self._items[table_id]
        return len(item.blob) + len(item.fallback or b"")

    def table_chips(self) -> dict[str, int]:
        """Every cash table's chips (stacks, bets and pots): for the ledger identity.
        Tournament tables play tournament chips, which are not money (R7.6)."""
        with self._lock:
            items = list(self._items.items())
        chips = {}
        for table_id, item in items:
            record = open_record(self.sealer, table_id, item.version, item.blob, item.fallback)
            if record.tournament is None:
                chips[table_id] = record.state.total_chips()
        return chips

    def audit(self) -> Audit:
        """The ledger identity over this store's accounts, tables and tournaments."""
        held = {} if self.tournaments is None else self.tournaments.pools()
        return audit(dict(self.accounts.balances), list(self.accounts.ledger),
                     self.table_chips(), held)

    def corrupt(self, table_id: str) -> None:
        """Tests: make the stored state unreadable (its fallback stays as it is)."""
        with self._lock:
            item = self._items[table_id]
            item.blob = item.blob[:-1] + bytes([item.blob[-1] ^ 1])


class MemoryTournamentStore:
    """Tournaments and their items in dicts, sharing the table store's lock and accounts, so a
    :meth:`commit` across tables, tournaments and accounts is all-or-nothing."""

    def __init__(self, tables: MemoryTableStore):
        self.tables = tables
        tables.tournaments = self
        self._records: dict[str, tuple[int, dict[str, Any]]] = {}
        self._items: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        self.writes = 0

    def load(self, tournament_id: str) -> TournamentRecord:
        with self.tables._lock:
            stored = self._records.get(tournament_id)
        if stored is None:
            raise TournamentNotFound(tournament_id)
        record = TournamentRecord.from_document(tournament_id, stored[0], dict(stored[1]))
        if record.seating is not None:  # issue 23: the count shards' players out
            record.apply_shards({key: Shard.from_dict(data)
                                 for key, data in self.items(tournament_id, SHARD_PREFIX)})
        return record

    def items(self, tournament_id: str, prefix: str) -> list[tuple[str, dict[str, Any]]]:
        with self.tables._lock:
            found = self._items.get(tournament_id, {})
            return [(key, dict(found[key])) for key in sorted(found) if key.startswith(prefix)]

    def commit(self, writes: tuple[Write, ...], moves: tuple[AccountMove, ...] = ()) -> None:
        tables = self.tables
        keys = [_item_key(write) for write in writes]
        if len(set(keys)) != len(keys):  # as DynamoDB: one action per item
            raise ValueError(f"a transaction touches an item twice: {sorted(keys)}")
        with tables._lock:
            for write in writes:  # every condition before any change
                match write:
                    case PutTable(record=record, expected_version=expected):
                        current = tables._items.get(record.table_id)
                        if (current is None) != (expected is None) or (
                                current is not None and current.version != expected):
                            raise ConcurrentUpdate(record.table_id)
                    case PutTournament(record=record, expected_version=expected):
                        stored = self._records.get(record.tournament_id)
                        if (stored is None) != (expected is None) or (
                                stored is not None and stored[0] != expected):
                            raise ConcurrentUpdate(record.tournament_id)
                    case PutItem(tournament_id=tid, key=key, new=True):
                        if key in self._items.get(tid, {}):
                            raise ConcurrentUpdate(f"{tid}/{key}")
                    case DeleteItem(tournament_id=tid, key=key, must_exist=must_exist):
                        if must_exist and key not in self._items.get(tid, {}):
                            raise ConcurrentUpdate(f"{tid}/{key}")
                    case BumpCount(tournament_id=tid, key=key, entrants=entrants, quota=quota):
                        count = self._items.get(tid, {}).get(key, {})
                        after = count.get("entrants", 0) + entrants
                        if count.get("closed") or after < 0 or (entrants > 0 and after > quota):
                            raise ConcurrentUpdate(f"{tid}/{key}")
                    case CloseCount(tournament_id=tid, key=key, entrants=entrants):
                        count = self._items.get(tid, {}).get(key, {})
                        if count.get("closed") or count.get("entrants", 0) != entrants:
                            raise ConcurrentUpdate(f"{tid}/{key}")
                    case CountOuts(tournament_id=tid, key=key, outs=outs, grant=grant):
                        shard = self._items.get(tid, {}).get(key, {})
                        if shard.get("closed") or shard.get("room", 0) + grant < outs:
                            raise ConcurrentUpdate(f"{tid}/{key}")
                    case CloseOuts(tournament_id=tid, key=key, out=out):
                        shard = self._items.get(tid, {}).get(key, {})
                        if shard.get("closed") or shard.get("out", 0) != out:
                            raise ConcurrentUpdate(f"{tid}/{key}")
                    case PutOperatorAction(action=action):
                        if any(a.log_key == action.log_key
                               for a in tables.accounts.operator_actions):
                            raise ConcurrentUpdate(f"{OPERATOR_LOG}/{action.log_key}")
            for write in writes:  # as DynamoDB: versions fail first, then the records
                if isinstance(write, PutTable):
                    tables.check_histories(write.record)
            tables.accounts.apply_moves(moves)  # raises before any change
            self.writes += 1
            for write in writes:
                match write:
                    case PutTable(record=record):
                        tables._items[record.table_id] = tables._item(record)
                        tables.put_histories(record)
                    case PutTournament(record=record):
                        self._records[record.tournament_id] = (record.version,
                                                               record.to_document())
                    case PutItem(tournament_id=tid, key=key, data=data):
                        self._items[tid][key] = dict(data)
                    case DeleteItem(tournament_id=tid, key=key):
                        self._items.get(tid, {}).pop(key, None)
                    case BumpCount(tournament_id=tid, key=key, entrants=entrants,
                                   chips=chips, quota=quota):
                        count = self._items[tid].get(key, {})
                        self._items[tid][key] = {
                            "entrants": count.get("entrants", 0) + entrants,
                            "chips": count.get("chips", 0) + chips, "quota": quota,
                            "closed": False}
                    case CloseCount(tournament_id=tid, key=key):
                        count = self._items[tid].get(key, {})
                        self._items[tid][key] = {
                            "entrants": count.get("entrants", 0), "chips": count.get("chips", 0),
                            "quota": count.get("quota", 0), "closed": True}
                    case CountOuts(tournament_id=tid, key=key, table=number, outs=outs,
                                   grant=grant):
                        shard = self._items[tid].get(key, {})
                        counted = dict(shard.get("tables", {}))
                        counted[str(number)] = counted.get(str(number), 0) + outs
                        self._items[tid][key] = {
                            "out": shard.get("out", 0) + outs,
                            "room": shard.get("room", 0) + grant - outs, "closed": False,
                            "tables": counted}
                    case CloseOuts(tournament_id=tid, key=key):
                        self._items[tid][key] = {**self._items[tid].get(key, {}), "closed": True}
                    case PutOperatorAction(action=action):
                        tables.accounts.operator_actions.append(action)

    def page(self, tournament_id: str, prefix: str, limit: int,
             after: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """:meth:`items` after *after*, at most *limit*: the order and bounds of the DynamoDB
        Query (``Limit``, ``ExclusiveStartKey``)."""
        return [(key, data) for key, data in self.items(tournament_id, prefix)
                if after is None or key > after][:max(limit, 0)]

    def list_open(self, limit: int = 50,
                  after: tuple[int, str] | None = None) -> list[dict[str, Any]]:
        with self.tables._lock:
            records = [TournamentRecord.from_document(tid, v, dict(doc))
                       for tid, (v, doc) in self._records.items()]
        listed = sorted((r for r in records if r.listed),
                        key=lambda r: (r.created_ms, r.tournament_id), reverse=True)
        if after is not None:
            listed = [r for r in listed if (r.created_ms, r.tournament_id) < after]
        return [{**r.summary(), "created_ms": r.created_ms} for r in listed[:max(limit, 0)]]

    def due(self, now_ms: int, limit: int = 100) -> list[tuple[str, str]]:
        with self.tables._lock:
            records = [TournamentRecord.from_document(tid, v, dict(doc))
                       for tid, (v, doc) in self._records.items()]
        return [(r.tournament_id, t.token) for r in records for t in r.timers
                if t.due_ms <= now_ms][:limit]

    def pools(self) -> dict[str, int]:
        """Account chips each tournament holds (entries received, prizes not yet paid)."""
        with self.tables._lock:
            return {tid: int(doc["pool_held"]) + sum(  # entries on open counters: not folded
                        int(data["chips"]) for key, data in self._items.get(tid, {}).items()
                        if key.startswith(COUNT_PREFIX) and not data["closed"])
                    for tid, (_, doc) in self._records.items()}


def _item_key(write: Write) -> tuple[str, str]:
    match write:
        case PutTable(record=record):
            return ("table", record.table_id)
        case PutTournament(record=record):
            return ("tournament", record.tournament_id)
        case PutItem(tournament_id=tid, key=key) | DeleteItem(tournament_id=tid, key=key) \
                | BumpCount(tournament_id=tid, key=key) | CloseCount(tournament_id=tid, key=key) \
                | CountOuts(tournament_id=tid, key=key) | CloseOuts(tournament_id=tid, key=key):
            return (tid, key)
        case PutOperatorAction(action=action):
            return (OPERATOR_LOG, action.log_key)
    raise TypeError(f"not a write: {write!r}")


class MemoryAccounts:
    """Balances, open-table counts and the ledger in memory; moves are all-or-nothing, netted
    per player as the DynamoDB transaction nets them."""

    def __init__(self, max_open_tables: int = MAX_OPEN_TABLES) -> None:
        self.balances: dict[str, int] = defaultdict(int)
        self.open_tables: dict[str, int] = defaultdict(int)
        self.visited: dict[str, tuple[str, ...]] = defaultdict(tuple)
        self.sets: dict[AccountSet, dict[str, set[str]]] = {
            which: defaultdict(set) for which in AccountSet}
        self.waiting = self.sets[AccountSet.WAITING]
        self.ratholes: dict[str, tuple[str, int]] = {}
        self.ledger: list[LedgerEntry] = []
        self.max_open_tables = max_open_tables
        self.frozen: set[str] = set()
        self.operator_actions: list[OperatorAction] = []
        """The operator log, oldest first (:class:`~naiko_service.ports.AccountsAdmin`)."""
        self.reversals: dict[str, OperatorAction] = {}
        self._lock = threading.RLock()

    def balance(self, player_id: str) -> int:
        return self.balances[player_id]

    def profile(self, player_id: str) -> AccountProfile:
        with self._lock:
            day, count = self.ratholes.get(player_id, (None, 0))
            return AccountProfile(self.balances[player_id], self.open_tables[player_id], day,
                                  count, self.visited[player_id],
                                  frozenset(self.waiting[player_id]),
                                  frozenset(self.sets[AccountSet.REGISTERED][player_id]),
                                  frozenset(self.sets[AccountSet.CREATED][player_id]))

    def forget_waiting(self, player_id: str, table_id: str) -> None:
        self.forget(player_id, AccountSet.WAITING, frozenset((table_id,)))

    def forget(self, player_id: str, which: AccountSet, ids: frozenset[str]) -> None:
        with self._lock:
            self.sets[which][player_id] -= ids

    def grant(self, player_id: str, amount: int, ref: str = "ops", at_ms: int = 0) -> int:
        """:raises AccountFrozen: The account is frozen (nothing is granted)."""
        with self._lock:
            if player_id in self.frozen:
                raise AccountFrozen(player_id)
            self.balances[player_id] += amount
            self.ledger.append(LedgerEntry(player_id, amount, LedgerReason.GRANT, ref, at_ms))
            return self.balances[player_id]

    def apply_moves(self, moves: tuple[AccountMove, ...]) -> None:
        """Apply *moves*, or raise and apply none.

        :raises InsufficientFunds: If a player's net move takes more than the balance.
        :raises TooManyTables: If a player's open tables would pass the limit.
        :raises TooManyWaitlists: If a player would be on too many waiting lists (and the
            other refusals of :data:`~naiko_service.ports.ACCOUNT_SET_CAPS`).
        """
        chips: dict[str, int] = defaultdict(int)
        opened: dict[str, int] = defaultdict(int)
        for move in moves:  # one net change per player, as the DynamoDB transaction does
            chips[move.player_id] += move.amount
            opened[move.player_id] += move.open_tables
        with self._lock:
            for move in moves:  # a frozen account takes no chips out and joins nothing
                if move.player_id in self.frozen and (
                        chips[move.player_id] > 0 or any(a for _, a in move.set_changes())):
                    raise AccountFrozen(move.player_id)
            for player_id, amount in chips.items():
                if amount > 0 and self.balances[player_id] < amount:
                    raise InsufficientFunds(player_id)
            for player_id, count in opened.items():
                if count > 0 and self.open_tables[player_id] + count > self.max_open_tables:
                    raise TooManyTables(player_id)
            for move in moves:
                if move.rathole is not None and \
                        self.ratholes.get(move.player_id, (None, 0))[0] != move.rathole[2]:
                    raise ConcurrentUpdate(move.player_id)  # the counter changed since read
                for which, added in move.set_changes():
                    members = self.sets[which][move.player_id]
                    cap, refusal = ACCOUNT_SET_CAPS[which]
                    if added and move.table_id not in members and len(members) >= cap:
                        raise refusal(move.player_id)
            for player_id, amount in chips.items():
                self.balances[player_id] -= amount
            for player_id, count in opened.items():
                self.open_tables[player_id] += count
            for move in moves:
                if move.visited is not None:
                    self.visited[move.player_id] = move.visited
                for which, added in move.set_changes():
                    if added:
                        self.sets[which][move.player_id].add(move.table_id)
                    else:
                        self.sets[which][move.player_id].discard(move.table_id)
                if move.rathole is not None:
                    self.ratholes[move.player_id] = move.rathole[:2]
            self.ledger += [LedgerEntry(m.player_id, -m.amount, m.ledger_reason, m.table_id,
                                        m.at_ms) for m in moves if m.amount]

    # -- operators (AccountsAdmin, issue 27) ----------------------------------------------

    def _exists(self, player_id: str) -> bool:
        return player_id in self.balances or any(e.player_id == player_id for e in self.ledger)

    def is_frozen(self, player_id: str) -> bool:
        return player_id in self.frozen

    def set_frozen(self, player_id: str, frozen: bool, action: OperatorAction) -> None:
        with self._lock:
            if not self._exists(player_id):
                raise KeyError(player_id)
            if frozen and player_id in self.frozen:
                raise AccountFrozen(player_id)
            if not frozen and player_id not in self.frozen:
                raise NotFrozen(player_id)
            (self.frozen.add if frozen else self.frozen.discard)(player_id)
            self.operator_actions.append(action)

    def reverse(self, source: str, target: str, amount: int, action: OperatorAction) -> None:
        with self._lock:
            done = self.reversals.get(action.action_id)
            if done is not None:
                raise AlreadyReversed(done)
            if not self._exists(target):
                raise KeyError(target)
            if self.balances[source] < amount:
                raise InsufficientFunds(source)
            self.balances[source] -= amount
            self.balances[target] += amount
            ref = f"reversal:{action.action_id}"
            self.ledger += [LedgerEntry(source, -amount, LedgerReason.REVERSAL, ref, action.at_ms),
                            LedgerEntry(target, amount, LedgerReason.REVERSAL, ref, action.at_ms)]
            self.reversals[action.action_id] = action
            self.operator_actions.append(action)

    def operator_log(self, limit: int = 50, before: str | None = None,
                     ) -> tuple[list[OperatorAction], str | None]:
        with self._lock:
            newest = [(a.log_key, a) for a in self.operator_actions]
        newest.sort(key=lambda x: x[0], reverse=True)
        older = [(k, a) for k, a in newest if before is None or k < before]
        page = older[:limit]
        after = page[-1][0] if len(older) > limit else None
        return [a for _, a in page], after


class MemoryConnections:
    def __init__(self) -> None:
        self.players: dict[str, str] = {}
        self.tables: dict[str, list[str]] = defaultdict(list)
        self.muted: dict[str, set[str]] = defaultdict(set)
        """R8.9: connection -> the players it muted."""
        self.mute_reads = 0
        """How many times :meth:`muted_by` was asked (one batched read each)."""

    def bind(self, connection_id: str, player_id: str, now_ms: int) -> None:
        self.players[connection_id] = player_id

    def player_of(self, connection_id: str) -> str | None:
        return self.players.get(connection_id)

    def tables_of(self, connection_id: str) -> list[str]:
        return list(self.tables.get(connection_id, []))

    def add_table(self, connection_id: str, table_id: str) -> None:
        """:raises TooManyWatched: If the connection watches as many tables as it may."""
        tables = self.tables[connection_id]
        if table_id not in tables:
            if len(tables) >= MAX_TABLES_PER_CONNECTION:
                raise TooManyWatched(connection_id)
            tables.append(table_id)

    def remove_table(self, connection_id: str, table_id: str) -> None:
        if table_id in self.tables.get(connection_id, []):
            self.tables[connection_id].remove(table_id)

    def unbind(self, connection_id: str) -> None:
        self.players.pop(connection_id, None)
        self.tables.pop(connection_id, None)
        self.muted.pop(connection_id, None)

    def mute(self, connection_id: str, player_id: str) -> None:
        """:raises TooManyMutes: If the connection mutes as many players as it may."""
        muted = self.muted[connection_id]
        if player_id not in muted:
            if len(muted) >= MAX_MUTES:
                raise TooManyMutes(connection_id)
            muted.add(player_id)

    def unmute(self, connection_id: str, player_id: str) -> None:
        self.muted.get(connection_id, set()).discard(player_id)

    def muted_by(self, connection_ids: list[str]) -> dict[str, frozenset[str]]:
        self.mute_reads += 1
        return {c: frozenset(self.muted[c]) for c in connection_ids if self.muted.get(c)}


class MemoryChatLog:
    """R8.9: :class:`~naiko_service.ports.ChatLog` in memory."""

    def __init__(self) -> None:
        self.lines_by_hand: dict[tuple[str, int], dict[str, ChatLine]] = defaultdict(dict)
        self._lock = threading.Lock()

    def add(self, table_id: str, hand_number: int, key: str, line: ChatLine) -> bool:
        with self._lock:
            lines = self.lines_by_hand[(table_id, hand_number)]
            if key in lines:
                return False
            lines[key] = line
            return True

    def lines(self, table_id: str, hand_number: int) -> list[ChatLine]:
        with self._lock:
            found = list(self.lines_by_hand.get((table_id, hand_number), {}).values())
        return sorted(found, key=lambda line: line.at_ms)[:MAX_CHAT_LINES]


class MemoryWatchers:
    """:class:`~naiko_service.ports.Watchers` in memory: per table, ``shard#player`` ->
    :class:`~naiko_service.ports.Watcher`, kept sorted by key when paged (as DynamoDB's sort
    key); the count is exact."""

    def __init__(self, cap: int = MAX_SPECTATORS) -> None:
        self.cap = cap
        self.tables: dict[str, dict[str, Watcher]] = defaultdict(dict)
        self.lock = threading.Lock()

    @staticmethod
    def key(player_id: str) -> str:
        return f"{shard_of(player_id):02d}#{player_id}"

    def add(self, table_id: str, player_id: str, connection_id: str, now_ms: int) -> None:
        """:raises TooManySpectators: If the table has :attr:`cap` spectators already."""
        with self.lock:
            watchers = self.tables[table_id]
            key = self.key(player_id)
            if key not in watchers and len(watchers) >= self.cap:
                raise TooManySpectators(table_id)
            watchers[key] = Watcher(player_id, connection_id)

    def remove(self, table_id: str, player_id: str, connection_id: str | None = None) -> bool:
        with self.lock:
            watchers = self.tables.get(table_id, {})
            watcher = watchers.get(self.key(player_id))
            if watcher is None or connection_id not in (None, watcher.connection_id):
                return False
            del watchers[self.key(player_id)]
            return True

    def connection_of(self, table_id: str, player_id: str) -> str | None:
        watcher = self.tables.get(table_id, {}).get(self.key(player_id))
        return None if watcher is None else watcher.connection_id

    def count(self, table_id: str) -> int:
        return len(self.tables.get(table_id, {}))

    def page(self, table_id: str, shard: int | None, after: str | None,
             limit: int) -> tuple[list[Watcher], str | None]:
        with self.lock:
            keys = sorted(k for k in self.tables.get(table_id, {})
                          if (shard is None or k.startswith(f"{shard:02d}#"))
                          and (after is None or k > after))
            page = keys[:limit]
            watchers = [self.tables[table_id][k] for k in page]
        return watchers, (page[-1] if len(keys) > limit else None)

    def recount(self, table_id: str, counted: int) -> None:
        """Nothing to do: the count is exact."""


@dataclass
class RecordingGateway:
    """Captures every message per connection; connections in ``gone`` answer like a 410."""

    sent: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    gone: set[str] = field(default_factory=set)
    closed: list[str] = field(default_factory=list)
    """Connections closed by the service (:meth:`close`), in order."""

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        if connection_id in self.gone:
            raise ConnectionGone(connection_id)
        self.sent[connection_id].append(message)

    def alive(self, connection_id: str) -> bool:
        return connection_id not in self.gone

    def close(self, connection_id: str) -> None:
        """``DELETE @connections``: the connection is gone from now on."""
        self.closed.append(connection_id)
        self.gone.add(connection_id)


@dataclass
class RecordingScheduler:
    """Remembers the timers asked for; tests fire them by hand."""

    scheduled: list[tuple[str, str, int, str]] = field(default_factory=list)

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        self.scheduled.append((table_id, token, due_ms, kind))


@dataclass
class ManualClock:
    now: int = 1_700_000_000_000

    def now_ms(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


# -- push notifications (issue 25, item 4) -------------------------------------------------------

class MemoryDevices:
    """:class:`~naiko_service.ports.Devices` in memory: one :class:`DeviceBook` per player,
    its devices and rate limit written only at the version read, its open connections changed
    without a version (like the DynamoDB item)."""

    def __init__(self) -> None:
        self.books: dict[str, DeviceBook] = {}
        self._lock = threading.Lock()

    def book(self, player_id: str) -> DeviceBook | None:
        with self._lock:
            return self.books.get(player_id)

    def add(self, player_id: str, device: Device, language: str, now_ms: int,
            connection_id: str | None = None) -> None:
        with self._lock:
            book = self.books.get(player_id) or DeviceBook(player_id)
            kept = [d for d in book.devices if d.token != device.token] + [device]
            live = book.live | ({connection_id} if connection_id else set())
            self.books[player_id] = replace(book, devices=tuple(kept[-MAX_DEVICES_PER_PLAYER:]),
                                            language=language, live=frozenset(live),
                                            version=book.version + 1)

    def remove(self, player_id: str, token: str) -> Device | None:
        with self._lock:
            book = self.books.get(player_id)
            found = next((d for d in book.devices if d.token == token), None) if book else None
            if book is not None and found is not None:
                self.books[player_id] = replace(
                    book, devices=tuple(d for d in book.devices if d.token != token),
                    version=book.version + 1)
            return found

    def sent(self, book: DeviceBook, kind: NotificationKind, tokens: float,
             now_ms: int) -> bool:
        with self._lock:
            stored = self.books.get(book.player_id)
            if stored is None or stored.version != book.version:
                return False
            self.books[book.player_id] = replace(
                stored, tokens=tokens, at_ms=now_ms, last={**stored.last, str(kind): now_ms},
                version=stored.version + 1)
            return True

    def connected(self, player_id: str, connection_id: str) -> None:
        with self._lock:
            book = self.books.get(player_id)
            if book is not None:  # only a player with a book is tracked
                self.books[player_id] = replace(book, live=book.live | {connection_id})

    def disconnected(self, player_id: str, connection_id: str) -> None:
        with self._lock:
            book = self.books.get(player_id)
            if book is not None and connection_id in book.live:
                self.books[player_id] = replace(book, live=book.live - {connection_id})


_push_log = logging.getLogger("naiko_service.push")


@dataclass
class RecordingNotifier:
    """:class:`~naiko_service.ports.Notifier` that records (and logs) every notification:
    the unit tests' fake and the local stack's notifier (``docs/local.md``, "Push
    notifications": its log and ``GET /api/notifications``). Endpoints in ``disabled``
    answer like an SNS endpoint the push service disabled."""

    reach: frozenset[Platform] = frozenset(Platform)
    sent: list[tuple[str, Device, Notification]] = field(default_factory=list)
    """``(player_id, device, notification)``, oldest first."""
    disabled: set[str] = field(default_factory=set)
    forgotten: list[str] = field(default_factory=list)
    failing: bool = False
    """Every publish raises (a push service down)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    keep: int = 1000
    """At most this many kept (the oldest dropped)."""
    listener: Callable[[str, Device, Notification], None] | None = None
    """Called with each notification recorded (the local stack logs it)."""

    def platforms(self) -> frozenset[Platform]:
        return self.reach

    def endpoint(self, platform: Platform, token: str, player_id: str) -> str:
        return f"memory:{player_id}:{platform}:{token}"

    def publish(self, device: Device, notification: Notification) -> None:
        from .ports import EndpointDisabled

        if self.failing:
            raise RuntimeError("push service unavailable")
        if device.endpoint in self.disabled:
            raise EndpointDisabled(device.endpoint)
        player_id = device.endpoint.split(":", 2)[1] if device.endpoint.startswith(
            "memory:") else ""
        with self._lock:
            self.sent.append((player_id, device, notification))
            del self.sent[:-self.keep]
        _push_log.info("push notification", extra={"player_id": player_id,
                                                   "platform": str(device.platform),
                                                   "notification": notification.to_dict()})
        if self.listener is not None:
            self.listener(player_id, device, notification)

    def forget(self, device: Device) -> None:
        self.forgotten.append(device.endpoint)

    def of(self, player_id: str) -> list[Notification]:
        """The notifications sent to *player_id*'s devices, oldest first."""
        with self._lock:
            return [n for player, _, n in self.sent if player == player_id]
