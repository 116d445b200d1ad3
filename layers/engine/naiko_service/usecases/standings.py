""":mod:`naiko_service.usecases.standings` is a tournament's live standings (issue 26 item 4):
players left, average and largest stack, each player's rank and stack, the tables and their
players, the prizes, the current and next level, a page at a time (``get_standings``,
docs/tournaments.md "Live standings").

Nothing here reads the whole field on every request:

- **a row per table** (``stand#<number>#<table id>``: its players, stacks and seats) is
  written by every transaction that writes a tournament table (:func:`attach`: a hand's end,
  a move, a late entrant seated, the final table), in that same transaction; never the
  tournament or field item;
- **a snapshot** of the ranking (``rank#<build>#<chunk>`` items of :data:`CHUNK_ROWS` rows each
  and the small ``standings`` item: the summary and which build is current) is built by the
  first request that finds it older than :data:`FRESH_MS` (:func:`build`: one read of every
  table row and result, at most once per :data:`FRESH_MS` per tournament whoever asks); every
  other request reads the ``standings`` item and one Query of one chunk (two when the page
straddles them).

Rank order: players with chips by stack, largest first, ties by player id; then players out
whose place is not given yet (a hand-for-hand round not closed: by their stack at that hand's
start, R9.5); then players placed, by place (ties by player id); then, while late registration
is open (R9.11), players out, the most recent first (they get the bottom places when it
closes)."""

from __future__ import annotations

from typing import Any

from naiko.tournaments.places import OutRecord, derive_places
from naiko.tournaments.structures import level_at

from .. import pages
from .. import protocol as p
from ..ports import (
    ConcurrentUpdate,
    DeleteItem,
    PutItem,
    TableNotFound,
    TournamentStore,
    Write,
)
from ..tournament_records import TournamentRecord
from . import fanout, tournament_uow
from .base import Caller, Deps, ServiceError, read_cursor
from .standing_rows import STAND_PREFIX

RANK_PREFIX = "rank#"
"""A snapshot's chunk of ranked rows: ``rank#<build:010d>#<chunk:05d>``."""

CLAIM_PREFIX = "stbuild#"
"""``stbuild#<build:010d>``: who builds that snapshot (put only if absent: one builder)."""

STANDINGS_ITEM = "standings"
"""The current snapshot: its build, chunks and rows, and the summary."""

FRESH_MS = 30_000
"""A snapshot older than this is built again by the next request (and the build number is
the time divided by it: one build per tournament per period)."""

CHUNK_ROWS = pages.PAGE_LIMIT_MAX
"""Rows per stored chunk: a page (at most :data:`~naiko_service.pages.PAGE_LIMIT_MAX` rows) is
within two chunks, one Query of ``Limit`` 2."""

CHUNKS_PER_COMMIT = 25
"""Chunks written per transaction while building (each ~2–10 KB)."""

TABLES_PAGE_MAX = 20
"""Tables per page of the ``tables`` section at most (a table row is up to ~1.2 KB with
ids of 64 characters: 20 of them stay well inside a 32 KB frame)."""

PRIZES_SHOWN = 10
"""Places whose prizes the summary names (``paid_places`` and ``prize_pool`` say the rest;
``tournament_results`` pages every result)."""

PLAYERS_LIST = "standings"
TABLES_LIST = "standings_tables"

STALE_CURSOR = "stale_cursor"
"""The error code of a cursor of a snapshot that was replaced twice since (ask again)."""


# -- the snapshot ---------------------------------------------------------------------------

def store(deps: Deps) -> TournamentStore:
    return tournament_uow.store(deps)


def _everything(deps: Deps, tid: str, prefix: str) -> list[tuple[str, dict[str, Any]]]:
    return store(deps).page(tid, prefix, 1_000_000)


def _live(deps: Deps, record: TournamentRecord) -> dict[str, tuple[int, str]]:
    """``player -> (stack, table id)`` of everybody seated, from the table rows; a table of
    the tournament without a row yet (started, no hand ended) is read itself; late entrants
    waiting for a seat (R9.11) with the starting stack at their destination."""
    tid = record.tournament_id
    live: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    for _, data in _everything(deps, tid, STAND_PREFIX):
        seen.add(str(data["table"]))
        for player_id, stack, _ in data["players"]:
            live[str(player_id)] = (int(stack), str(data["table"]))
    for table_id in record.tables:
        if table_id in seen:
            continue
        try:
            table = deps.tables.load(table_id)
        except TableNotFound:
            continue
        for seat in table.state.seats:
            if seat is not None:
                live[seat.player_id] = (seat.stack, table_id)
    seating = record.seating
    if seating is not None:
        for move in seating.pending:
            if move.from_table == 0 and move.player_id not in live:
                live[move.player_id] = (record.terms.starting_stack,
                                        seating.table_ids.get(move.to_table, ""))
    return live


def ranked(deps: Deps, record: TournamentRecord) -> list[list[Any]]:
    """Every player of the tournament once, in rank order (the module's docstring), as rows
    ``[rank, player, stack, table, place, prize]``."""
    tid = record.tournament_id
    results = {str(d["player_id"]): d for _, d in _everything(deps, tid, "result#")}
    late = [str(o["player_id"]) for o in record.late]
    if any(shard.out for shard in record.shards.values()):
        # issue 23: players out on a count shard have no result# yet (their place comes with
        # the prizes): shown at the place their out# items give them so far, no prize
        outs = [OutRecord.from_dict(d) for _, d in _everything(deps, tid, "out#")]
        for group in derive_places(outs, record.players):
            for player in group.player_ids:
                results.setdefault(player, {"player_id": player, "place": group.place,
                                            "prize": 0})
    pending: list[tuple[int, str]] = []
    seating = record.seating
    if seating is not None and seating.hfh is not None:
        for _, report in _everything(deps, tid, f"hfh#{seating.hfh:05d}#"):
            pending += [(int(o["stack"]), str(o["player_id"])) for o in report["out"]]
    out = set(results) | set(late) | {player for _, player in pending}
    live = sorted(((stack, player, table) for player, (stack, table)
                   in _live(deps, record).items() if player not in out),
                  key=lambda row: (-row[0], row[1]))
    rows: list[list[Any]] = [[rank, player, stack, table, None, None]
                             for rank, (stack, player, table) in enumerate(live, 1)]
    for _, player in sorted(pending, key=lambda row: (-row[0], row[1])):
        rows.append([len(rows) + 1, player, 0, None, None, None])
    for player, data in sorted(results.items(), key=lambda r: (int(r[1]["place"]), r[0])):
        rows.append([int(data["place"]), player, 0, None, int(data["place"]),
                     int(data.get("prize", 0))])
    for player in reversed(late):
        rows.append([len(rows) + 1, player, 0, None, None, None])
    return rows


def summary(record: TournamentRecord, rows: list[list[Any]], now: int) -> dict[str, Any]:
    """What the lobby shows above the ranking: players left, average and largest stack, the
    level in effect and the next one, the prizes."""
    stacks = [row for row in rows if row[2] > 0]  # rank order: the largest first
    largest = stacks[0] if stacks else None
    level: dict[str, Any] | None = None
    if record.started_ms is not None:
        structure = record.terms.structure
        at = level_at(structure, record.started_ms, max(now, record.started_ms))
        following = structure.following(at.level)
        level = {"level": at.level.number, "small_blind": at.level.small_blind,
                 "big_blind": at.level.big_blind, "ante": at.level.ante,
                 "ends_ms": at.next_ms,
                 "next_level": None if following is None else following.to_dict()}
    chips = sum(row[2] for row in stacks)
    return {"status": record.status.value, "entrants": record.entrants,
            "players": record.players, "players_left": record.players_left,
            "average_stack": chips // len(stacks) if stacks else 0,
            "largest_stack": None if largest is None else {"player_id": largest[1],
                                                           "stack": largest[2]},
            "table_count": len({row[3] for row in stacks}),
            "level": level, "prize_pool": sum(record.payouts),
            "paid_places": len(record.payouts), "prizes": list(record.payouts[:PRIZES_SHOWN])}


def _chunk_key(build: int, chunk: int) -> str:
    return f"{RANK_PREFIX}{build:010d}#{chunk:05d}"


def build(deps: Deps, record: TournamentRecord, previous: dict[str, Any] | None,
          now: int) -> dict[str, Any] | None:
    """Build the snapshot of *now*'s period (:data:`FRESH_MS`): claim it (``stbuild#``, only if
    absent: another request building it answers ``None``), rank every player, write the
    chunks, then the ``standings`` item that makes them current, then delete the build before
    *previous* (a cursor of *previous* still reads)."""
    tid = record.tournament_id
    number = now // FRESH_MS
    tournaments = store(deps)
    try:
        tournaments.commit((PutItem(tid, f"{CLAIM_PREFIX}{number:010d}", {"at_ms": now},
                                    new=True),))
    except ConcurrentUpdate:
        return None
    rows = ranked(deps, record)
    chunks = [rows[i:i + CHUNK_ROWS] for i in range(0, len(rows), CHUNK_ROWS)]
    writes = [PutItem(tid, _chunk_key(number, k), {"rows": chunk, "total": len(rows)})
              for k, chunk in enumerate(chunks)]
    for i in range(0, len(writes), CHUNKS_PER_COMMIT):
        tournaments.commit(tuple(writes[i:i + CHUNKS_PER_COMMIT]))
    current = {"build": number, "built_ms": now, "chunks": len(chunks), "rows": len(rows),
               "previous": None if previous is None else {
                   "build": previous["build"], "chunks": previous["chunks"]},
               "summary": summary(record, rows, now)}
    tournaments.commit((PutItem(tid, STANDINGS_ITEM, current),))
    old = None if previous is None else previous.get("previous")
    if old is not None and old["build"] != number:
        gone: list[Write] = [DeleteItem(tid, _chunk_key(old["build"], k), must_exist=False)
                             for k in range(old["chunks"])]
        gone.append(DeleteItem(tid, f"{CLAIM_PREFIX}{old['build']:010d}", must_exist=False))
        for i in range(0, len(gone), CHUNKS_PER_COMMIT * 3):
            tournaments.commit(tuple(gone[i:i + CHUNKS_PER_COMMIT * 3]))
    return current


def _one(deps: Deps, tid: str, key: str) -> dict[str, Any] | None:
    found = store(deps).page(tid, key, 1)
    return found[0][1] if found and found[0][0] == key else None


def current(deps: Deps, tid: str, now: int) -> dict[str, Any]:
    """The current snapshot (the ``standings`` item), built first when missing or older
    than :data:`FRESH_MS` (or when the level it shows is over).

    :raises ServiceError: ``unknown_tournament``."""
    stored = _one(deps, tid, STANDINGS_ITEM)
    if stored is not None and not _stale(stored, now):
        return stored
    record = tournament_uow.load(store(deps), tid, refuse_unknown=True)
    if record.started_ms is None:  # nobody has a stack yet: the summary alone, nothing stored
        return {"build": None, "built_ms": now, "chunks": 0, "rows": 0, "previous": None,
                "summary": summary(record, [], now)}
    built = build(deps, record, stored, now)
    if built is not None:
        return built
    return stored if stored is not None else {  # being built by another request right now
        "build": None, "built_ms": now, "chunks": 0, "rows": 0, "previous": None,
        "summary": summary(record, [], now)}


def _stale(stored: dict[str, Any], now: int) -> bool:
    if stored["summary"]["status"] in ("finished", "cancelled"):
        return False
    level = stored["summary"].get("level")
    ends = None if level is None else level.get("ends_ms")
    return now - int(stored["built_ms"]) >= FRESH_MS or (ends is not None and now >= ends)


# -- the request ----------------------------------------------------------------------------

def get_standings(deps: Deps, caller: Caller, request: p.GetStandings) -> None:
    """One page of a tournament's standings: ``section`` ``players`` (the ranking, from the
    snapshot its cursor names) or ``tables`` (the table rows, in table order, as written),
    each with the summary."""
    tid = request.tournament_id
    now = deps.clock.now_ms()
    if request.section == "tables":
        reply = _tables_page(deps, tid, request, now)
    else:
        reply = _players_page(deps, tid, request, now)
    fanout.send(deps, caller.connection_id, {"type": "standings", "request_id": request.request_id,
                                      "tournament_id": tid, "section": request.section,
                                      **reply})


def _players_page(deps: Deps, tid: str, request: p.GetStandings, now: int) -> dict[str, Any]:
    position = read_cursor(PLAYERS_LIST, request.cursor, {"t": str, "b": int, "i": int})
    if position is not None and position["t"] != tid:
        raise ServiceError(pages.BAD_CURSOR, "this cursor is another tournament's")
    snapshot = current(deps, tid, now)
    number = snapshot["build"] if position is None else position["b"]
    start = 0 if position is None else position["i"]
    if number is None:
        return {"summary": snapshot["summary"], "as_of_ms": snapshot["built_ms"],
                "players": [], "next": None}
    chunk = start // CHUNK_ROWS
    prefix = f"{RANK_PREFIX}{number:010d}#"
    within = start % CHUNK_ROWS + request.limit <= CHUNK_ROWS  # the page is in one chunk
    found = store(deps).page(tid, prefix, 1 if within else 2,
                             None if chunk == 0 else _chunk_key(number, chunk - 1))
    if not found or found[0][0] != _chunk_key(number, chunk):
        if position is None and snapshot["rows"] == 0:
            return {"summary": snapshot["summary"], "as_of_ms": snapshot["built_ms"],
                    "players": [], "next": None}
        raise ServiceError(STALE_CURSOR, "the standings were rebuilt since this cursor: ask "
                           "for the first page again")
    rows = [row for _, data in found for row in data["rows"]][start % CHUNK_ROWS:]
    page = rows[:request.limit]
    total = int(found[0][1]["total"])
    after = start + len(page)
    next_cursor = pages.encode(PLAYERS_LIST, {"t": tid, "b": number, "i": after}) \
        if after < total and page else None
    as_of = snapshot["built_ms"] if number == snapshot["build"] else None
    return {"summary": snapshot["summary"], "as_of_ms": as_of,
            "players": [player_row(row) for row in page],
            "next": next_cursor}


def player_row(row: list[Any]) -> dict[str, Any]:
    """A stored ranked row (:func:`ranked`) as the ``players`` section sends it."""
    return {"rank": row[0], "player_id": row[1], "stack": row[2], "table_id": row[3],
            "place": row[4], "prize": row[5]}


def table_entry(data: dict[str, Any]) -> dict[str, Any]:
    """A table's standings row (:func:`.standing_rows.table_row`) as the ``tables`` section
    sends it."""
    return {"table_id": data["table"], "number": data["number"], "at_ms": data["at_ms"],
            "players": [{"player_id": pid, "stack": stack, "seat": seat}
                        for pid, stack, seat in data["players"]]}


def _tables_page(deps: Deps, tid: str, request: p.GetStandings, now: int) -> dict[str, Any]:
    position = read_cursor(TABLES_LIST, request.cursor, {"t": str, "a": str})
    if position is not None and position["t"] != tid:
        raise ServiceError(pages.BAD_CURSOR, "this cursor is another tournament's")
    snapshot = current(deps, tid, now)
    limit = min(request.limit, TABLES_PAGE_MAX)
    rows = store(deps).page(tid, STAND_PREFIX, limit + 1,
                            None if position is None else STAND_PREFIX + position["a"])
    page, next_cursor = pages.cut(TABLES_LIST, rows, limit, lambda row: {
        "t": tid, "a": row[0].removeprefix(STAND_PREFIX)})
    return {"summary": snapshot["summary"], "as_of_ms": snapshot["built_ms"],
            "tables": [table_entry(data) for _, data in page],
            "next": next_cursor}
