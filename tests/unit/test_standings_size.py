"""Issue 26 item 4: the largest page of either section of ``get_standings`` fits a 32 KB frame
(issue 23 item 2), built by the code that builds real pages (:func:`standings.summary`,
:func:`standings.player_row`, :func:`standings.table_entry`) with every id at its longest, every
number at its widest and the largest ``limit``; and so do the items the standings store."""

from __future__ import annotations

import json
from typing import Any

from naiko.tournaments.structures import PRESETS, from_preset
from naiko_service import pages, protocol
from naiko_service.aws.dynamodb import dynamodb_item_size
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.ports import Encoded, PutItem
from naiko_service.tournament_records import TournamentRecord, TournamentStatus
from naiko_service.usecases import standing_rows, standings

ID = "p" * 64
"""The longest player id a token allows, and the longest table or tournament id."""
BIG = 10**12
"""Chips at their widest (the protocol's maximum amount)."""


def _record() -> TournamentRecord:
    terms = max((from_preset(p, BIG) for p in PRESETS),
                key=lambda t: len(json.dumps(t.to_dict())))
    return TournamentRecord(ID, 1, "n", terms, 10**13, ID, status=TournamentStatus.RUNNING,
                            started_ms=10**13, entrants=10**5, players_left=10**5,
                            payouts=[BIG] * 15_000)


def _rows(count: int) -> list[list[Any]]:
    """Ranked rows at their widest: a player with chips at a table, and a player placed."""
    live = [10**5, ID, BIG, ID, None, None]
    placed = [10**5, ID, 0, None, 10**5, BIG]
    return [live if i % 2 else placed for i in range(count)]


def _envelope(section: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "standings", "request_id": "r" * 64, "tournament_id": ID,
            "section": section, "summary": standings.summary(_record(), _rows(4), 10**13),
            "as_of_ms": 10**13, **body, "next": "A" * pages.CURSOR_MAX_CHARS}


def _bytes(message: dict[str, Any]) -> int:
    return len(Encoded.of(json.loads(json.dumps(message))).data)


def test_issue26_the_largest_players_page_fits_a_frame() -> None:
    message = _envelope("players", {"players": [standings.player_row(r) for r in
                                                _rows(pages.PAGE_LIMIT_MAX)]})
    protocol.TypeAdapter(protocol.AnyMessage).validate_python(message)
    size = _bytes(message)
    assert size <= protocol.MAX_FRAME_BYTES, size
    assert len(message["summary"]["prizes"]) == standings.PRIZES_SHOWN  # not 15,000 prizes


def test_issue26_the_largest_tables_page_fits_a_frame() -> None:
    table = {"table": ID, "number": 10**5, "at_ms": 10**13,
             "players": [[ID, BIG, seat] for seat in range(10)]}
    message = _envelope("tables", {"tables": [standings.table_entry(table)]
                                   * standings.TABLES_PAGE_MAX})
    protocol.TypeAdapter(protocol.AnyMessage).validate_python(message)
    size = _bytes(message)
    assert size <= protocol.MAX_FRAME_BYTES, size


def test_issue26_a_tables_page_is_at_most_twenty_tables_whatever_the_limit() -> None:
    """The ``tables`` section cuts ``limit`` to :data:`standings.TABLES_PAGE_MAX`: 100 tables
    of 10 players would be ~110 KB."""
    table = {"table": ID, "number": 10**5, "at_ms": 10**13,
             "players": [[ID, BIG, seat] for seat in range(10)]}
    hundred = _envelope("tables", {"tables": [standings.table_entry(table)]
                                   * pages.PAGE_LIMIT_MAX})
    assert _bytes(hundred) > protocol.MAX_FRAME_BYTES  # why the cut is needed
    assert standings.TABLES_PAGE_MAX * 5 == pages.PAGE_LIMIT_MAX


def test_issue26_the_stored_chunks_and_rows_are_small_items() -> None:
    """A chunk of :data:`standings.CHUNK_ROWS` rows and a table row as DynamoDB stores them:
    far under the 400 KB item limit (a chunk ~17 KB at its widest, a table row ~1 KB)."""
    store = DynamoTournamentStore(None, "tournaments", None)  # type: ignore[arg-type]
    chunk = PutItem(ID, f"{standings.RANK_PREFIX}{10**9:010d}#{99:05d}",
                    {"rows": _rows(standings.CHUNK_ROWS), "total": 10**5})
    row = PutItem(ID, f"{standing_rows.STAND_PREFIX}{10**4:05d}#{ID}",
                  {"table": ID, "number": 10**4, "at_ms": 10**13,
                   "players": [[ID, BIG, seat] for seat in range(10)]})
    sizes = [dynamodb_item_size(store._transact_item(w)["Put"]["Item"]) for w in (chunk, row)]
    assert sizes[0] < 20_000 and sizes[1] < 1_500, sizes
