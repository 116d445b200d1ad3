""":mod:`naiko_service.usecases.lobby` is the lobby: creating a table (its creator is the host)
and listing the public tables with a free seat (an index query, never a scan)."""

from __future__ import annotations

import hashlib

from naiko.state import TableConfig, TableState, Variant

from .. import protocol as p
from ..ports import AccountMove, ConcurrentUpdate, TooManyTables
from ..records import TableKind, TableRecord, TableSettings
from . import dealer, path
from .base import Caller, Deps, ServiceError


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
        bot_level=deps.bot_level)
    now = deps.clock.now_ms()
    record = TableRecord(table_id, 1, settings, TableState.new(config), created_ms=now,
                         seq=1, opened_by=caller.player_id, empty_since=now)
    record.remember_request(f"{caller.player_id}/{caller.request_id}", 1)
    dealer.sync_timers(deps, record, now)  # the empty table's closing time
    path.arm(deps, table_id, record, now)
    replayed = False
    try:
        deps.tables.create(record, (AccountMove(caller.player_id, 0, table_id, at_ms=now,
                                                open_tables=1),))
    except ConcurrentUpdate:
        replayed = True
    except TooManyTables as exc:
        raise ServiceError("too_many_tables", path.too_many_tables_message()) from exc
    path.send(deps, caller.connection_id, path.ack(caller, table_id, 1, replayed=replayed))


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


def list_tables(deps: Deps, caller: Caller, request: p.ListTables) -> None:
    """Public tables with a free seat, newest first."""
    tables = [s.to_dict() for s in deps.tables.list_open()]
    path.send(deps, caller.connection_id, {
        "type": "tables", "request_id": request.request_id, "tables": tables,
        "quick_seat_stakes": [s.to_dict() for s in deps.quick_seat_stakes]})
