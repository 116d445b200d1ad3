""":mod:`naiko_service.usecases.lobby` is the lobby: creating a table (its creator is the host)
listing the public tables with a free seat (an index query, never a scan), quick seat (R7.10)
and the account a player reads (balance, open tables, the day's ratholing counter, R7.11)."""

from __future__ import annotations

import hashlib

from naiko.state import TableConfig, TableState, Variant
from naiko.time_bank import CASH_TIME_BANK

from .. import pages
from .. import protocol as p
from ..ports import AccountMove, ConcurrentUpdate, TableNotFound, TooManyTables
from ..records import (
    LOBBY_WINDOW,
    TableKind,
    TableRecord,
    TableSettings,
    TableSummary,
    stakes_key,
)
from . import arming, dealer, fanout, transaction
from .base import Caller, Deps, ServiceError, read_cursor
from .cash import seat_player
from .room import utc_day


def create_table(deps: Deps, caller: Caller, request: p.CreateTable) -> None:
    """Create a cash or private table (R7.1, R7.2). A replayed ``create_table`` finds the same
    id (derived from the player and request ids) and is answered ``replayed``."""
    if request.small_blind > request.big_blind:
        raise ServiceError("invalid_request", "the small blind cannot exceed the big blind")
    if not request.big_blind <= request.min_buy_in <= request.max_buy_in:
        raise ServiceError("invalid_request",
                           "buy-ins must satisfy big_blind <= min_buy_in <= max_buy_in")
    table_id = "t" + hashlib.sha256(
        f"{caller.player_id}/{caller.request_id}".encode()).hexdigest()[:20]
    config = TableConfig(variant=Variant(request.variant), seat_count=request.seat_count,
                         small_blind=request.small_blind, big_blind=request.big_blind,
                         entry_rules=True)  # R7.8, R7.9: cash and private tables
    decision_ms = (deps.default_decision_ms if request.decision_seconds is None
                   else request.decision_seconds * 1000)
    settings = TableSettings(
        name=request.name, host=caller.player_id, min_buy_in=request.min_buy_in,
        max_buy_in=request.max_buy_in, decision_ms=decision_ms, pause_ms=deps.default_pause_ms,
        kind=TableKind.PRIVATE if request.private else TableKind.CASH,
        invited=tuple(request.invited), bots=request.bots,
        min_players=_min_players(request), deep_stack=request.deep_stack,
        bot_level=deps.bot_level, chat=request.chat,
        time_bank=CASH_TIME_BANK if request.time_bank else None)
    now = deps.clock.now_ms()
    record = TableRecord(table_id, 1, settings, TableState.new(config), created_ms=now,
                         seq=1, opened_by=caller.player_id, empty_since=now)
    record.remember_request(f"{caller.player_id}/{caller.request_id}", 1)
    dealer.sync_timers(deps, record, now)  # the empty table's closing time
    arming.arm(deps, table_id, record, now)
    replayed = False
    try:
        deps.tables.create(record, (AccountMove(caller.player_id, 0, table_id, at_ms=now,
                                                open_tables=1),))
    except ConcurrentUpdate:
        replayed = True
    except TooManyTables as exc:
        raise ServiceError("too_many_tables", transaction.too_many_tables_message()) from exc
    fanout.send(deps, caller.connection_id, fanout.ack(caller, table_id, 1, replayed=replayed))


def _min_players(request: p.CreateTable) -> int:
    """R7.7: 3 players start a public table (2 at a heads-up one); a private table's host may
    say 2 or more."""
    default = min(3, request.seat_count)
    if request.min_players is None:
        return default
    if not request.private:
        raise ServiceError("invalid_request", "only a private table's host sets min_players")
    if request.min_players > request.seat_count:
        raise ServiceError("invalid_request", "min_players cannot exceed seat_count")
    return request.min_players


TABLES_LIST = "tables"
"""The lobby's list name (its cursors, :mod:`naiko_service.pages`)."""


def _lobby_key(summary: TableSummary) -> tuple[bool, int, str]:
    """A table's place in the lobby's order (:func:`~naiko_service.records.lobby_order`)."""
    return (summary.seated == 0, -summary.created_ms, summary.table_id)


def list_tables(deps: Deps, caller: Caller, request: p.ListTables) -> None:
    """Public tables with a free seat, tables with players first, each group newest first, a
    page at a time: the lobby reads its window (the newest
    :data:`~naiko_service.records.LOBBY_WINDOW` listed tables, one index Query whatever the
    page) and sends the ``limit`` after the cursor's table in that order."""
    position = read_cursor(TABLES_LIST, request.cursor, {"e": bool, "c": int, "t": str})
    window = deps.tables.list_open(LOBBY_WINDOW)
    if position is not None:
        after = (position["e"], -position["c"], position["t"])
        window = [s for s in window if _lobby_key(s) > after]
    page, next_cursor = pages.cut(TABLES_LIST, window, request.limit, lambda s: {
        "e": s.seated == 0, "c": s.created_ms, "t": s.table_id})
    fanout.send(deps, caller.connection_id, {
        "type": "tables", "request_id": request.request_id,
        "tables": [s.to_dict() for s in page],
        "quick_seat_stakes": [s.to_dict() for s in deps.quick_seat_stakes],
        "next": next_cursor})


# -- quick seat (R7.10) -------------------------------------------------------------------------

QUICK_SEAT_BUY_INS = (40, 200)
"""The buy-in range, in big blinds, of a table quick seat opens (a real room's usual)."""


QUICK_SEAT_CANDIDATES = 20
"""Tables of the stakes quick seat reads from the index before choosing."""


QUICK_SEAT_PASSES_OVER = frozenset({"table_full", "table_closed", "busy", "not_invited",
                                    "bad_buy_in", "already_seated"})
"""Refusals for which quick seat tries the next table (R7.10: a table the player may not join,
its buy-in rule included, is passed over, never an error while another table can take them)."""


def quick_seat(deps: Deps, caller: Caller, request: p.QuickSeat) -> None:
    """R7.10: a seat at a table of this variant and these stakes (a query of the stakes index,
    never a scan), at random among the tables the player may join: a table they played at
    before first, then the fewest players, ties drawn at random. A table the player may not
    join (full, closed, private, or whose buy-in rule they cannot meet, R7.11) is passed over;
    when none can take them, a new public table is opened and the player waits in it until 3
    are there (R7.7). The ``ack`` names the table."""
    if request.small_blind > request.big_blind:
        raise ServiceError("invalid_request", "the small blind cannot exceed the big blind")
    stakes = stakes_key(request.variant, request.small_blind, request.big_blind)
    published = [s.key for s in deps.quick_seat_stakes]
    if stakes not in published:
        raise ServiceError("unknown_stakes", "quick seat serves the published stakes only: "
                           + ", ".join(k.replace(":", " ") for k in published))
    profile = deps.accounts.profile(caller.player_id)
    candidates = deps.tables.find_open(stakes, limit=QUICK_SEAT_CANDIDATES)
    draw = {s.table_id: deps.rng.randrange(1 << 30) for s in candidates}  # "aleatoriu"
    ordered = sorted(candidates, key=lambda s: (s.table_id not in profile.visited, s.seated,
                                                draw[s.table_id]))
    for summary in ordered:
        try:
            transaction.mutate(deps, summary.table_id,
                        seat_player(deps, caller, request.buy_in, None, request.entry),
                        caller=caller)
            return
        except ServiceError as error:
            if error.code not in QUICK_SEAT_PASSES_OVER:
                raise
        except TableNotFound:
            continue
    if profile.balance < request.buy_in:  # refuse before opening a table nobody would sit at
        raise ServiceError("insufficient_funds", "your account cannot cover that buy-in")
    table_id = _open_quick_table(deps, caller, request)
    transaction.mutate(deps, table_id,
                       seat_player(deps, caller, request.buy_in, None, request.entry),
                       caller=caller)


def _open_quick_table(deps: Deps, caller: Caller, request: p.QuickSeat) -> str:
    """A public table of the requested game, opened by the room for the caller: it counts
    among the caller's open tables while they sit there (``settings.quick``; released when they
    leave, :func:`release_quick_table`), so one player cannot open more than
    :data:`~naiko_service.limits.MAX_OPEN_TABLES` empty tables. Replaying the request finds the
    same table."""
    table_id = "q" + hashlib.sha256(
        f"{caller.player_id}/{caller.request_id}".encode()).hexdigest()[:20]
    big = request.big_blind
    low, high = QUICK_SEAT_BUY_INS
    config = TableConfig(variant=Variant(request.variant), seat_count=6,
                         small_blind=request.small_blind, big_blind=big, entry_rules=True)
    settings = TableSettings(
        name=f"{request.variant} {request.small_blind}/{big}", host=caller.player_id,
        min_buy_in=low * big, max_buy_in=high * big, decision_ms=deps.default_decision_ms,
        pause_ms=deps.default_pause_ms, kind=TableKind.CASH, quick=True,
        time_bank=CASH_TIME_BANK)  # R8.7: the room's tables publish the room's bank
    if not settings.min_buy_in <= request.buy_in <= settings.max_buy_in:
        raise ServiceError("bad_buy_in", f"a quick-seat table takes {settings.min_buy_in} to "
                           f"{settings.max_buy_in} ({low} to {high} big blinds)")
    now = deps.clock.now_ms()
    record = TableRecord(table_id, 1, settings, TableState.new(config), created_ms=now,
                         seq=1, empty_since=now, opened_by=caller.player_id)
    dealer.sync_timers(deps, record, now)
    arming.arm(deps, table_id, record, now)
    try:
        deps.tables.create(record, (AccountMove(caller.player_id, 0, table_id, at_ms=now,
                                                open_tables=1),))
    except ConcurrentUpdate:
        pass  # a replay: the table exists
    except TooManyTables as exc:
        raise ServiceError("too_many_tables", transaction.too_many_tables_message()) from exc
    return table_id


def get_account(deps: Deps, caller: Caller, request: p.GetAccount) -> None:
    """The player's own account: balance, open tables, and today's ratholing counter (R7.11)."""
    profile = deps.accounts.profile(caller.player_id)
    today = utc_day(deps.clock.now_ms())
    fanout.send(deps, caller.connection_id, {
        "type": "account", "request_id": request.request_id, "balance": profile.balance,
        "open_tables": profile.open_tables, "ratholes_today": profile.ratholes_on(today),
        "day": today})
