""":mod:`naiko_service.ports` declares what the use cases need from the outside world.

Adapters implement these protocols: in memory (:mod:`naiko_service.memory`, used by unit tests
and local mode) and on AWS (:mod:`naiko_service.aws`). Adapters translate infrastructure
errors into the port errors below, so the use cases never see a ``ClientError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from .hand_records import ChatLine, HandRecord, Page
from .limits import (
    MAX_OPEN_TOURNAMENTS,
    MAX_REGISTRATIONS_PER_PLAYER,
    MAX_VISITED,
    MAX_WAITLISTS_PER_PLAYER,
)
from .port_errors import PortError as PortError
from .port_errors import UnreadableTable as UnreadableTable
from .records import TableRecord, TableSummary, TimerKind
from .tournament_records import TournamentRecord


class ConcurrentUpdate(PortError):
    """The table changed since it was read (its version moved on): reload and retry."""


class TableNotFound(PortError):
    """No table has that id."""


class InsufficientFunds(PortError):
    """The account cannot cover the buy-in."""


class ConnectionGone(PortError):
    """The WebSocket connection no longer exists (API Gateway answered 410)."""


class HistoryStored(PortError):
    """A hand's record travelling with a write is stored already (R10.1: a record is written
    only if absent): nothing was written. ``hands`` are the ``(table_id, hand_number)`` found.
    The writer writes again without them: the hand is stored, once.

    :param hands: The records found stored.
    """

    def __init__(self, hands: tuple[tuple[str, int], ...]):
        super().__init__(", ".join(f"{t}#{n}" for t, n in hands))
        self.hands = hands


class TooManyTables(PortError):
    """The player already has the most open tables one player may have."""


class TooManyWaitlists(PortError):
    """The player is on as many waiting lists as one player may be
    (:data:`~naiko_service.limits.MAX_WAITLISTS_PER_PLAYER`)."""


class TooManyWatched(PortError):
    """The connection watches as many tables as one connection may
    (:data:`~naiko_service.limits.MAX_TABLES_PER_CONNECTION`)."""


class TooManyRegistrations(PortError):
    """The player is registered for as many tournaments waiting to start as one player may be
    (:data:`~naiko_service.limits.MAX_REGISTRATIONS_PER_PLAYER`)."""


class TooManyTournaments(PortError):
    """The player has created as many tournaments not yet over as one player may
    (:data:`~naiko_service.limits.MAX_OPEN_TOURNAMENTS`)."""


class AccountFrozen(PortError):
    """An operator froze the account (issue 27): it may not take chips to a table or a
    tournament, queue, register, or receive a grant; its balance stays where it is."""


class NotFrozen(PortError):
    """Unfreezing an account that is not frozen (nothing was written)."""


class AlreadyReversed(PortError):
    """A reversal id used before: the first reversal stands, nothing was written again.

    :param action: The operator action that did it (:class:`OperatorAction`).
    """

    def __init__(self, action: OperatorAction):
        super().__init__(action.action_id)
        self.action = action


class AccountSet(StrEnum):
    """The capped sets of ids an account item keeps (attribute name = value): each grows by
    one id per move at most, refused beyond its cap (:data:`ACCOUNT_SET_CAPS`)."""

    WAITING = "waiting"
    """Tables whose waiting list the player is on (R7.10)."""
    REGISTERED = "registered"
    """Tournaments the player registered for (entries are removed when the entry goes back;
    entries of tournaments that started or ended are forgotten when the set is full)."""
    CREATED = "created"
    """Sit & Gos and Spins the player created (forgotten once over, when the set is full)."""


ACCOUNT_SET_CAPS: dict[AccountSet, tuple[int, type[PortError]]] = {
    AccountSet.WAITING: (MAX_WAITLISTS_PER_PLAYER, TooManyWaitlists),
    AccountSet.REGISTERED: (MAX_REGISTRATIONS_PER_PLAYER, TooManyRegistrations),
    AccountSet.CREATED: (MAX_OPEN_TOURNAMENTS, TooManyTournaments),
}
"""Each set's cap and the refusal raised by a move that would pass it."""


class LedgerReason(StrEnum):
    """Why chips moved on an account: every movement is a ledger entry with one of these,
    written in the same transaction as the movement."""

    GRANT = "grant"
    """Virtual chips granted by ops (the only chips that enter the system)."""
    BUY_IN = "buy_in"
    RELOAD = "reload"
    """Chips added to a stack between hands (R7.1)."""
    CASH_OUT = "cash_out"
    """A stack back to the account: leaving, removed, the table closed."""
    REFUND = "refund"
    """Chips of a cancelled hand owed to a player who had left the table (R8.6)."""
    ENTRY = "entry"
    UNREGISTER = "unregister"
    PRIZE = "prize"
    DEAL = "deal"
    """A player's share of a deal at a tournament's final table (R9.16)."""
    BOUNTY = "bounty"
    """R9.13: a knockout bounty won (or the winner's own bounty, at the end)."""
    REVERSAL = "reversal"
    """An operator moved chips back from one account to another (a flagged transfer, issue
    27): two entries of opposite amounts, whose ``ref`` is ``reversal:<id>``."""


@dataclass(frozen=True, slots=True)
class AccountMove:
    """Chips moving between an account and a table (or tournament), inside that item's write,
    each with its ledger entry.

    ``amount`` > 0 takes chips from the account (a buy-in); < 0 returns chips (a cash-out).
    ``open_tables`` counts tables the player opened (+1 opening, -1 closing; R7.1 lobby limit).
    """

    player_id: str
    amount: int
    table_id: str
    reason: LedgerReason | None = None
    """``None``: a buy-in when chips leave the account, a cash-out when they come back."""
    at_ms: int = 0
    """When it happened (stamped by the write that carries it)."""
    open_tables: int = 0
    visited: tuple[str, ...] | None = None
    """The account's tables played at once this write is done, most recent last (quick seat
    prefers them, R7.10): the player's profile as read plus the table they sit down at, at most
    :data:`~naiko_service.limits.MAX_VISITED` (:func:`visited_after`). It replaces the stored
    list (a lost race only forgets a preference)."""
    waitlist: bool | None = None
    """R7.10: ``True``, the player joins the waiting list of ``table_id`` (the account's
    ``waiting`` set, at most :data:`~naiko_service.limits.MAX_WAITLISTS_PER_PLAYER`);
    ``False``, they are off it (idempotent)."""
    rathole: tuple[str, int, str | None] | None = None
    """R7.11: ``(day, count, day read)``: the day's ratholing counter becomes *count* (the
    counter read was of *day read*; it resets every day at 00:00 UTC)."""
    registered: bool | None = None
    """``True``: ``table_id`` (a tournament) joins the account's ``registered`` set (at most
    :data:`~naiko_service.limits.MAX_REGISTRATIONS_PER_PLAYER`); ``False``: it leaves it."""
    created: bool | None = None
    """``True``: ``table_id`` (a tournament) joins the account's ``created`` set (at most
    :data:`~naiko_service.limits.MAX_OPEN_TOURNAMENTS`); ``False``: it leaves it."""

    def set_changes(self) -> tuple[tuple[AccountSet, bool], ...]:
        """The capped sets this move changes: ``(set, True)`` adds ``table_id``, ``False``
        removes it."""
        return tuple((which, flag) for which, flag in (
            (AccountSet.WAITING, self.waitlist), (AccountSet.REGISTERED, self.registered),
            (AccountSet.CREATED, self.created)) if flag is not None)

    @property
    def ledger_reason(self) -> LedgerReason:
        if self.reason is not None:
            return self.reason
        return LedgerReason.BUY_IN if self.amount > 0 else LedgerReason.CASH_OUT


@dataclass(frozen=True, slots=True)
class AccountProfile:
    """What the service reads of an account besides moving chips."""

    balance: int = 0
    open_tables: int = 0
    rathole_day: str | None = None
    """The UTC day (``YYYY-MM-DD``) the ratholing counter counts (R7.11)."""
    rathole_count: int = 0
    visited: tuple[str, ...] = ()
    """Tables the player sat down at, most recent last (R7.10 quick seat; at most
    :data:`~naiko_service.limits.MAX_VISITED`)."""
    waiting: frozenset[str] = frozenset()
    """Tables whose waiting list the player is on (R7.10)."""
    registered: frozenset[str] = frozenset()
    """Tournaments the player registered for (:attr:`AccountSet.REGISTERED`)."""
    created: frozenset[str] = frozenset()
    """Tournaments the player created (:attr:`AccountSet.CREATED`)."""

    def members(self, which: AccountSet) -> frozenset[str]:
        return {AccountSet.WAITING: self.waiting, AccountSet.REGISTERED: self.registered,
                AccountSet.CREATED: self.created}[which]

    def ratholes_on(self, day: str) -> int:
        """The ratholing counter of *day* (0 on a new day: it resets at 00:00 UTC)."""
        return self.rathole_count if self.rathole_day == day else 0


def visited_after(profile: AccountProfile, table_id: str) -> tuple[str, ...]:
    """The tables played at once *table_id* is added (most recent last, the oldest forgotten
    beyond :data:`~naiko_service.limits.MAX_VISITED`).

    >>> visited_after(AccountProfile(visited=("a", "b")), "a")
    ('b', 'a')
    """
    kept = [t for t in profile.visited if t != table_id] + [table_id]
    return tuple(kept[-MAX_VISITED:])


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One movement on one account: ``amount`` is the change of the balance (+ in, - out)."""

    player_id: str
    amount: int
    reason: LedgerReason
    ref: str
    """The table, tournament or ops reference the chips moved with."""
    at_ms: int


OPS_PREFIX = "ops:"
"""Ledger-table partitions that are not accounts: the operator log (:data:`OPERATOR_LOG`) and
the reversal ids used (:data:`REVERSALS`). A sum of the ledger skips them."""

OPERATOR_LOG = OPS_PREFIX + "log"
REVERSALS = OPS_PREFIX + "reversal"


@dataclass(frozen=True, slots=True)
class OperatorAction:
    """One thing an operator did to an account (issue 27), kept in the operator log."""

    action_id: str
    """Unique (a reversal's is its reversal id)."""
    operator: str
    """Who did it (the operator's name as the admin command was given it)."""
    action: str
    """``freeze``, ``unfreeze`` or ``reverse``."""
    player_id: str
    """The account acted on (a reversal's: the account the chips are taken from)."""
    reason: str
    at_ms: int
    details: dict[str, Any] = field(default_factory=dict)
    """A reversal's ``to`` and ``amount``."""

    @property
    def log_key(self) -> str:
        """Its place in the operator log: ``{at_ms:013d}#{action_id}`` (oldest first)."""
        return f"{self.at_ms:013d}#{self.action_id}"

    def to_dict(self) -> dict[str, Any]:
        return {"action_id": self.action_id, "operator": self.operator, "action": self.action,
                "player_id": self.player_id, "reason": self.reason, "at_ms": self.at_ms,
                "details": dict(self.details)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OperatorAction:
        return cls(str(data["action_id"]), str(data["operator"]), str(data["action"]),
                   str(data["player_id"]), str(data["reason"]), int(data["at_ms"]),
                   dict(data.get("details") or {}))


class AccountsAdmin(Protocol):
    """What operators do to accounts (issue 27), each action written with its log entry in
    one transaction; never reached by a player's token (``scripts/operator.py``)."""

    def set_frozen(self, player_id: str, frozen: bool, action: OperatorAction) -> None:
        """Freeze (or unfreeze) the account, with *action* in the operator log.

        :raises AccountFrozen: Freezing an account frozen already (nothing written).
        :raises NotFrozen: Unfreezing one that is not frozen (nothing written).
        :raises KeyError: No such account.
        """

    def is_frozen(self, player_id: str) -> bool: ...

    def reverse(self, source: str, target: str, amount: int, action: OperatorAction) -> None:
        """Move *amount* chips from *source* back to *target* with a ``reversal`` ledger entry
        on each, once per ``action.action_id`` (the reversal id).

        :raises InsufficientFunds: *source* holds less than *amount* (never below zero).
        :raises AlreadyReversed: The reversal id was used (nothing written again).
        :raises KeyError: *target* has no account.
        """

    def operator_log(self, limit: int = 50, before: str | None = None,
                     ) -> tuple[list[OperatorAction], str | None]:
        """The operator log, newest first: at most *limit* actions older than the position
        *before* (the second item returned: ``None`` on the last page)."""
        ...


class TableStore(Protocol):
    """One item per table, written only when its version is the one read."""

    def load(self, table_id: str) -> TableRecord:
        """:raises TableNotFound:"""
        ...

    def create(self, record: TableRecord, moves: tuple[AccountMove, ...] = ()) -> None:
        """Write a new table (version 1), with its account moves in the same transaction (the
        opener's ``open_tables`` +1, refused beyond the limit).

        :raises ConcurrentUpdate: If the id exists.
        :raises TooManyTables: If an opener already has the most open tables.
        """
        ...

    def save(self, record: TableRecord, expected_version: int,
             moves: tuple[AccountMove, ...] = ()) -> None:
        """Write *record* (already carrying ``expected_version + 1``) if the stored version is
        still *expected_version*; account moves happen in the same transaction, and so do the
        records of the hands that ended with it (``record.histories``, R10.1), each only if
        absent.

        :raises ConcurrentUpdate: If the version moved on.
        :raises HistoryStored: If a hand's record is stored already (nothing is written).
        :raises InsufficientFunds: If an account move cannot be covered (nothing is written).
        :raises TooManyTables: If a move opens one table too many (nothing is written).
        """
        ...

    def list_open(self, limit: int = 50) -> list[TableSummary]:
        """Public tables with a free seat, newest first (an index query, never a scan)."""
        ...

    def find_open(self, stakes: str, limit: int = 20) -> list[TableSummary]:
        """Public tables with a free seat at *stakes* (:func:`records.stakes_key`), fewest
        players first (an index query, never a scan): quick seat (R7.10)."""
        ...

    def find_by_code(self, code: str) -> str | None:
        """The table whose current invite code is *code* (an index query), if any (R7.12)."""
        ...

    def due_tables(self, now_ms: int, limit: int = 100) -> list[str]:
        """Ids of the tables whose earliest deadline (armed wake-up included) is at or before
        *now_ms*, the oldest deadline first, each once, at most *limit* (an index query). No
        tokens: the sweep loads each table and fires whatever is due."""
        ...


class HandHistories(Protocol):
    """The stored hands (R10.1): written with the table writes that end them (each record
    travels on :attr:`~naiko_service.records.TableRecord.histories`), read here, never by a
    scan."""

    def hand(self, table_id: str, hand_number: int) -> HandRecord | None:
        """One hand's record (a read by key), or ``None``."""
        ...

    def player_hands(self, player_id: str, before: str | None = None,
                     limit: int = 20) -> Page:
        """A player's hands, newest first: at most *limit*, older than the cursor *before*
        (:attr:`~naiko_service.hand_records.PlayerHand.cursor`); a query of the player's
        entries."""
        ...

    def table_hands(self, table_id: str, after: int = 0,
                    limit: int = 100) -> list[HandRecord]:
        """A table's hands numbered above *after*, in order (a query of the table's
        records)."""
        ...


class TournamentNotFound(PortError):
    """No tournament has that id."""


@dataclass(frozen=True, slots=True)
class PutTable:
    """Write a table item in a transaction: if its stored version is *expected_version*, or,
    with ``None``, if it does not exist yet."""

    record: TableRecord
    expected_version: int | None


@dataclass(frozen=True, slots=True)
class PutTournament:
    """Write a tournament item: if its stored version is *expected_version* (``None``: new)."""

    record: TournamentRecord
    expected_version: int | None


@dataclass(frozen=True, slots=True)
class PutItem:
    """Write one of a tournament's own items (a registration ``reg#<player>``, a result
    ``result#<player>``, a player out ``out#<time>#<table>#<hand>#<player>``, a payment
    ``paid#<player>``, a log entry ``log#<n>``)."""

    tournament_id: str
    key: str
    data: dict[str, Any]
    new: bool = False
    """Only if no such item exists (a registration, a payment: never twice)."""


@dataclass(frozen=True, slots=True)
class DeleteItem:
    """Delete one of a tournament's items, which must exist (an unregistration); with
    ``must_exist=False``, whether or not it exists (a closed table's standings row, derived
    data whose absence is no conflict)."""

    tournament_id: str
    key: str
    must_exist: bool = True


@dataclass(frozen=True, slots=True)
class BumpCount:
    """Add to one of a tournament's registration counters ``count#<k>`` (R9.1, issue 23): a
    registration counts there, not on the tournament item, so a registration rush spreads over
    the counters instead of queueing on one item. Adds *entrants* (negative: unregistrations)
    and the *chips* their entries brought, only while the counter is open and its count stays
    within ``0..quota`` (a counter not written yet counts 0). Its data, as
    :meth:`TournamentStore.items` reads it: ``entrants``, ``chips``, ``quota``, ``closed``."""

    tournament_id: str
    key: str
    entrants: int
    chips: int
    quota: int


@dataclass(frozen=True, slots=True)
class CloseCount:
    """Close a registration counter when registration closes: only if it is open and counts
    *entrants* (what the closing transaction folds into the tournament item); a closed counter
    takes no more entries, and never opens again."""

    tournament_id: str
    key: str
    entrants: int


@dataclass(frozen=True, slots=True)
class CountOuts:
    """Count *outs* players out of table *table* on the count shard *key* (``field#<g>``,
    issue 23), first adding *grant* to its room (the field item, in the same transaction,
    counts the grant in ``granted``): only while the shard is open and its room covers them
    (a shard not written yet has room 0). An update in place: tables of one group counting at
    once never lose a count. Its data, as :meth:`TournamentStore.items` reads it: ``out``,
    ``room``, ``closed``, ``tables`` (number -> players out)."""

    tournament_id: str
    key: str
    table: int
    outs: int
    grant: int = 0


@dataclass(frozen=True, slots=True)
class CloseOuts:
    """Close a count shard (the field item counts every player out from now on): only if it
    is open and counts *out* players out (what the closing write read)."""

    tournament_id: str
    key: str
    out: int


@dataclass(frozen=True, slots=True)
class PutOperatorAction:
    """Write an operator log entry (:data:`OPERATOR_LOG`, the ledger table's partition) with
    the change it records, in the same transaction, only if that entry does not exist yet: the
    director's tools (R9.15) log each action as the account actions (R10.3) do."""

    action: OperatorAction


Write = (PutTable | PutTournament | PutItem | DeleteItem | BumpCount | CloseCount
         | CountOuts | CloseOuts | PutOperatorAction)
"""One item of a transaction (:meth:`TournamentStore.commit`)."""


class TournamentStore(Protocol):
    """Tournaments (one item each) with their registrations, results and log (items of their
    own), written with their tables and accounts in one transaction."""

    def load(self, tournament_id: str) -> TournamentRecord:
        """:raises TournamentNotFound:"""
        ...

    def items(self, tournament_id: str, prefix: str) -> list[tuple[str, dict[str, Any]]]:
        """``(key, data)`` of the tournament's items whose key starts with *prefix*, in key
        order (a Query on the tournament's partition, never a scan)."""
        ...

    def page(self, tournament_id: str, prefix: str, limit: int,
             after: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """At most *limit* of :meth:`items`: those whose key sorts after *after* (a whole key
        of this list, which need not exist any more; ``None``: from the first), in key order.
        One eventually consistent Query (``Limit``, ``ExclusiveStartKey``): a list shown to a
        player, never read whole (docs/protocol.md "Pages")."""
        ...

    def commit(self, writes: tuple[Write, ...], moves: tuple[AccountMove, ...] = ()) -> None:
        """Every write and account move, or none (with the records of the hands that ended
        with a table write, ``PutTable.record.histories``, R10.1).

        :raises ConcurrentUpdate: If a version or existence condition failed.
        :raises HistoryStored: If only hands' records failed theirs (stored already).
        :raises InsufficientFunds: If an account cannot cover its move.
        """
        ...

    def list_open(self, limit: int = 50,
                  after: tuple[int, str] | None = None) -> list[dict[str, Any]]:
        """Summaries of tournaments registering or running, newest first (``created_ms``
        descending, then ``tournament_id`` descending), each with its ``created_ms``: at most
        *limit*, those after the position *after* (``(created_ms, tournament_id)`` of the last
        one of the page before). One index Query of *limit* items."""
        ...

    def due(self, now_ms: int, limit: int = 100) -> list[tuple[str, str]]:
        """``(tournament_id, token)`` of tournament timers past their deadline (an index)."""
        ...


class Accounts(Protocol):
    """Players' virtual-chip balances."""

    def balance(self, player_id: str) -> int: ...

    def profile(self, player_id: str) -> AccountProfile:
        """Balance, open tables, ratholing counter and tables visited: one consistent read."""
        ...

    def forget_waiting(self, player_id: str, table_id: str) -> None:
        """Drop *table_id* from the player's ``waiting`` set (an entry whose table no longer
        holds the player: closed, or gone)."""

    def forget(self, player_id: str, which: AccountSet, ids: frozenset[str]) -> None:
        """Drop *ids* from the player's set *which* (entries that no longer count against
        its cap: a tournament that started or ended). Idempotent."""

    def grant(self, player_id: str, amount: int, ref: str = "ops", at_ms: int = 0) -> int:
        """Add virtual chips (ops only) with their ledger entry, in one transaction; returns
        the new balance."""
        ...


class Connections(Protocol):
    """Which verified player is behind a WebSocket connection, and the tables it watches."""

    def bind(self, connection_id: str, player_id: str, now_ms: int) -> None: ...

    def player_of(self, connection_id: str) -> str | None: ...

    def tables_of(self, connection_id: str) -> list[str]: ...

    def add_table(self, connection_id: str, table_id: str) -> None:
        """Watch *table_id* (idempotent).

        :raises TooManyWatched: If the connection watches as many tables as it may.
        """

    def remove_table(self, connection_id: str, table_id: str) -> None:
        """Stop watching *table_id* (idempotent)."""

    def unbind(self, connection_id: str) -> None: ...

    # -- table chat (R8.9) --

    def mute(self, connection_id: str, player_id: str) -> None:
        """Stop pushing *player_id*'s chat to this connection (idempotent).

        :raises TooManyMutes: If the connection mutes as many players as it may.
        """

    def unmute(self, connection_id: str, player_id: str) -> None:
        """Push *player_id*'s chat to this connection again (idempotent)."""

    def muted_by(self, connection_ids: list[str]) -> dict[str, frozenset[str]]:
        """The players each of *connection_ids* muted (connections muting nobody, or gone,
        may be left out): one batched read, never one per connection."""
        ...


class TooManyMutes(PortError):
    """The connection mutes :data:`~naiko_service.limits.MAX_MUTES` players already (R8.9)."""


class ChatLog(Protocol):
    """R8.9: the chat said during each hand, one small item per line next to the hands'
    records, so that a chat message never writes the table item (the hot item); the hand's
    record is joined with its lines when it is read."""

    def add(self, table_id: str, hand_number: int, key: str, line: ChatLine) -> bool:
        """Store *line* of hand *hand_number* under *key* (unique per line: the speaker and
        the request id) if no line has that key; returns whether it was stored (``False``: a
        replayed request)."""
        ...

    def lines(self, table_id: str, hand_number: int) -> list[ChatLine]:
        """The hand's lines (at most :data:`~naiko_service.hand_records.MAX_CHAT_LINES`), oldest
        first: one Query."""
        ...


# -- Spectators (issue 23 item 3): items of their own, never in the table item ---------------

class TooManySpectators(PortError):
    """The table has :data:`~naiko_service.limits.MAX_SPECTATORS` spectators already."""


@dataclass(frozen=True, slots=True)
class Watcher:
    """One spectator of a table: who, and the connection its updates go to."""

    player_id: str
    connection_id: str


class Watchers(Protocol):
    """A table's spectators (watchers without a seat or a place in line), one item each, out of
    the table item: subscribing and leaving never write the table. Thread-safe (the worker
    removes gone connections from its pool threads)."""

    def add(self, table_id: str, player_id: str, connection_id: str, now_ms: int) -> None:
        """Send *player_id*'s updates of *table_id* to *connection_id* (a new connection of a
        spectator replaces its old one).

        :raises TooManySpectators: If *player_id* is not a spectator yet and the table has
            :data:`~naiko_service.limits.MAX_SPECTATORS` already.
        """

    def remove(self, table_id: str, player_id: str, connection_id: str | None = None) -> bool:
        """Forget *player_id* as a spectator of *table_id* (only while its connection is
        *connection_id*, when given); whether it was one."""
        ...

    def connection_of(self, table_id: str, player_id: str) -> str | None:
        """The connection *player_id* watches *table_id* from as a spectator, if any."""
        ...

    def count(self, table_id: str) -> int:
        """How many spectators *table_id* has (the counter the cap is checked on; it may count
        a few whose items expired, until a worker pages through them all)."""
        ...

    def page(self, table_id: str, shard: int | None, after: str | None,
             limit: int) -> tuple[list[Watcher], str | None]:
        """Up to *limit* spectators of *table_id* (of one shard, or of all with ``None``) after
        the cursor *after*, and the cursor of the next page (``None``: the last page)."""
        ...

    def recount(self, table_id: str, counted: int) -> None:
        """Set the counter to *counted*, what a worker just paged through (items expired by
        TTL never decremented it)."""


class WatcherQueue(Protocol):
    """Hands a table's spectator update to the asynchronous worker (``WatchersQueue``, SQS
    FIFO: one message group per table, or per table and shard)."""

    def publish(self, body: str, group: str, dedup: str) -> None: ...


class Encoded(dict[str, Any]):
    """A message whose JSON is made already: the dict (what in-memory gateways record), and
    ``data``, the exact bytes of its compact UTF-8 JSON, which a gateway that posts JSON sends
    as they are (the fan-out serialises the part of a view every recipient shares once)."""

    __slots__ = ("data",)

    def __init__(self, message: dict[str, Any], data: bytes):
        super().__init__(message)
        self.data = data

    @classmethod
    def of(cls, message: dict[str, Any]) -> Encoded:
        """*message* serialised (itself when it is one already): compact UTF-8 JSON; text that
        UTF-8 cannot encode (a lone surrogate the parser should already have refused) is
        escaped rather than failing the post.

        >>> Encoded.of({"name": "Jos\u00e9"}).data
        b'{"name":"Jos\\xc3\\xa9"}'
        """
        if isinstance(message, Encoded):
            return message
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        try:
            data = text.encode()
        except UnicodeEncodeError:
            data = json.dumps(message, separators=(",", ":")).encode()
        return cls(message, data)


class Gateway(Protocol):
    """Pushes messages to connections (API Gateway Management API, or the local hub). The
    fan-out calls :meth:`send` from several threads at once (``usecases.transaction.fan_out``)."""

    def send(self, connection_id: str, message: dict[str, Any]) -> None:
        """Post *message* (an :class:`Encoded` one: post its ``data``).

        :raises ConnectionGone: If the connection no longer exists."""
        ...

    def alive(self, connection_id: str) -> bool:
        """Whether the connection still exists (``False`` only when the gateway says it is
        gone; any other failure counts as alive)."""
        ...


class Scheduler(Protocol):
    """Runs a timer: at *due_ms*, call the timer use case with ``(table_id, token)``."""

    def schedule(self, table_id: str, token: str, due_ms: int, kind: TimerKind) -> None: ...


class Clock(Protocol):
    def now_ms(self) -> int: ...


class Deadline(Protocol):
    """How long the current invocation may still run (a Lambda function's timeout)."""

    def remaining_ms(self) -> float:
        """Milliseconds left; ``math.inf`` outside Lambda."""
        ...


class Random(Protocol):
    def randrange(self, start: int, stop: int | None = ..., step: int = ...) -> int: ...


# -- push notifications (issue 25, item 4) -------------------------------------------------------

class Platform(StrEnum):
    """A push service a device registers with (``register_device``)."""

    APNS = "apns"
    APNS_SANDBOX = "apns_sandbox"
    """APNs' development environment (builds signed for development)."""
    FCM = "fcm"


class NotificationKind(StrEnum):
    """Why a player is told while their app sleeps; each kind is rate-limited on its own."""

    TURN = "turn"
    """It is their turn to act (R8.1)."""
    SHIELD = "shield"
    """A Seal Shield window is aimed at them (R6.5)."""
    SEAT_OFFERED = "seat_offered"
    """A waiting-list seat is held for them (R7.10)."""
    TOURNAMENT_STARTING = "tournament_starting"
    """A tournament they registered for starts in 5 minutes (R9.2)."""
    TABLE_BROKEN = "table_broken"
    """Their tournament table broke: they were moved (R9.7)."""


@dataclass(frozen=True, slots=True)
class Notification:
    """What a player's devices show: a title and a body in the player's language, made of
    public facts only (a table's or tournament's name, never a card, a stack or a hand), and
    ``data`` for the app (the table or tournament to open)."""

    kind: NotificationKind
    title: str
    body: str
    data: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "title": self.title, "body": self.body,
                "data": dict(self.data)}


@dataclass(frozen=True, slots=True)
class Device:
    """One registered device: its platform, its push token, and the endpoint the notifier
    made for it (an SNS platform endpoint's ARN; the memory notifier's own id)."""

    platform: Platform
    token: str
    endpoint: str
    registered_ms: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"platform": str(self.platform), "token": self.token, "endpoint": self.endpoint,
                "registered_ms": self.registered_ms}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Device:
        return cls(Platform(str(data["platform"])), str(data["token"]), str(data["endpoint"]),
                   int(data.get("registered_ms", 0)))


@dataclass(frozen=True, slots=True)
class DeviceBook:
    """A player's push registration (one item): their devices, the language their
    notifications are written in, the connections open now (``$connect`` adds, ``$disconnect``
    removes; one whose ``$disconnect`` never ran is checked with the gateway), and the rate
    limit's state: the minute bucket (:class:`~naiko_service.ratelimit.Bucket`: ``tokens`` at
    ``at_ms``) and when each kind was last sent (``last``). ``version`` guards its write."""

    player_id: str
    devices: tuple[Device, ...] = ()
    language: str = "en"
    live: frozenset[str] = frozenset()
    tokens: float | None = None
    """``None``: never sent (a full bucket)."""
    at_ms: int = 0
    last: dict[str, int] = field(default_factory=dict)
    version: int = 0


class PushUnavailable(PortError):
    """The deployment has no platform application for that platform (or none at all)."""


class EndpointDisabled(PortError):
    """The push service no longer takes this device's token (uninstalled app, expired token):
    the device is forgotten."""


class Devices(Protocol):
    """Players' registered devices (:class:`DeviceBook`, one item per player)."""

    def book(self, player_id: str) -> DeviceBook | None:
        """The player's book (one consistent read), ``None`` if they never registered."""
        ...

    def add(self, player_id: str, device: Device, language: str, now_ms: int,
            connection_id: str | None = None) -> None:
        """Register *device* (the same token again replaces it), the oldest forgotten beyond
        :data:`~naiko_service.limits.MAX_DEVICES_PER_PLAYER`; *language* becomes the book's;
        *connection_id* (the registering one) counts as open."""

    def remove(self, player_id: str, token: str) -> Device | None:
        """Forget the device of *token* (idempotent); returns it if it was there."""
        ...

    def sent(self, book: DeviceBook, kind: NotificationKind, tokens: float,
             now_ms: int) -> bool:
        """Record a notification of *kind* sent at *now_ms*, the bucket now at *tokens*, if the
        book is still at ``book.version``; ``False`` when another writer came first (the
        notification is not sent: the limit is never passed by a race)."""
        ...

    def connected(self, player_id: str, connection_id: str) -> None:
        """A connection of the player opened (only a player with a book is tracked)."""

    def disconnected(self, player_id: str, connection_id: str) -> None:
        """That connection closed (idempotent)."""


class Notifier(Protocol):
    """Sends notifications to devices (Amazon SNS mobile push, or a recorder)."""

    def platforms(self) -> frozenset[Platform]:
        """The platforms it can reach (empty: notifications are off)."""
        ...

    def endpoint(self, platform: Platform, token: str, player_id: str) -> str:
        """The endpoint that reaches *token* (made once per device, at registration).

        :raises PushUnavailable: No platform application for *platform*.
        """
        ...

    def publish(self, device: Device, notification: Notification) -> None:
        """Send *notification* to *device*.

        :raises EndpointDisabled: The push service no longer takes the device's token.
        """
        ...

    def forget(self, device: Device) -> None:
        """Delete the device's endpoint (``unregister_device``; idempotent)."""
