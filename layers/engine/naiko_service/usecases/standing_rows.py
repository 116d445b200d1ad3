"""The standings row every tournament table writes with itself (live standings, issue 26):
what the units of work attach to each transaction that writes a tournament table. A module of
its own, below :mod:`.standings` (which reads the rows) and :mod:`.tournament_uow` (which
writes them), so that neither imports the other in a circle."""

from __future__ import annotations

from collections.abc import Sequence

from ..ports import DeleteItem, PutItem, PutTable, Write
from ..records import TableRecord

STAND_PREFIX = "stand#"
"""A table's standings row: ``stand#<number:05d>#<table id>`` (tables in number order)."""

ATTACH_MAX_TABLES = 10
"""Table rows :func:`attach` adds to one transaction at most (a scheduled start's batches of 90
tables get none: :func:`.standings.build` reads a table that has no row yet)."""


def row_key(record: TableRecord) -> str:
    info = record.tournament
    assert info is not None
    return f"{STAND_PREFIX}{info.number:05d}#{record.table_id}"


def table_row(record: TableRecord, now: int) -> Write:
    """The table's standings row as *record* leaves it: its players (seat order) with their
    stacks; a closed or empty table's row is deleted."""
    info = record.tournament
    assert info is not None
    players = [[s.player_id, s.stack, i] for i, s in enumerate(record.state.seats)
               if s is not None]
    if record.closed or not players:
        return DeleteItem(info.tournament_id, row_key(record), must_exist=False)
    return PutItem(info.tournament_id, row_key(record),
                   {"table": record.table_id, "number": info.number, "at_ms": now,
                    "players": players})


def attach(writes: Sequence[Write], now: int,
           max_tables: int | None = None) -> tuple[Write, ...]:
    """*writes* with the standings row of every tournament table they write (once each, after
    them). With *max_tables*, none when more tables than that are written (the transaction
    stays within DynamoDB's 100 items; :func:`.standings.build` reads those tables itself)."""
    tables = {w.record.table_id: w.record for w in writes
              if isinstance(w, PutTable) and w.record.tournament is not None}
    if not tables or (max_tables is not None and len(tables) > max_tables):
        return tuple(writes)
    return (*writes, *(table_row(record, now) for record in tables.values()))


