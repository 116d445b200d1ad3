"""The tournament item stays small whatever the field (issue 23: at 10,000 players it was
75.6 KB, ~150 WRU per transactional write; the ``started`` log entry 186 KB): its seating and
tables are stored compactly (runs of table numbers, only the table ids that are not
``<tournament>-<n>``), its DynamoDB document compressed, and a large field's seats logged in
parts. Each bound is checked at the size of a 10,000-player field, and the compact form is
checked to read back exactly what was written (old documents still read)."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko_local.tournament import terms_for
from naiko_service.aws.dynamodb import DynamoTableStore, dynamodb_item_size
from naiko_service.aws.tournaments import DynamoTournamentStore, packed, unpacked
from naiko_service.ports import PutItem
from naiko_service.records import Sealer, Timer, TimerKind
from naiko_service.tournament_records import (
    PendingMove,
    Seating,
    TournamentRecord,
    TournamentStatus,
)
from naiko_service.usecases.scheduled import _seat_parts, _started_log, started_parts
from naiko_service.usecases.tournament_log import in_parts, joined
from naiko_service.usecases.tournament_start import new_table

TID = "sunday-10k"
ITEM_LIMIT = 16_384
"""Issue 23's goal: no item over 16 KB."""


def store() -> DynamoTournamentStore:
    return DynamoTournamentStore(None, "tournaments", DynamoTableStore(
        None, "tables", "accounts", Sealer(bytes(32))))


def running(players: int, seats: int = 9) -> TournamentRecord:
    """A running scheduled tournament of *players* as its item holds it after the start:
    prizes fixed, every table counted, moves pending, a final table's id among them."""
    terms = terms_for("mtt", Variant.NLHE, 100, players)
    record = TournamentRecord(TID, 900, "Sunday 10K", terms, 1, "ops",
                              status=TournamentStatus.RUNNING, starts_ms=2, started_ms=3,
                              entrants=players, players_left=players - 1)
    record.payouts = terms.prizes(players)
    tables = -(-players // seats)
    record.seating = Seating(
        counts={n: seats - (n % 2) for n in range(1, tables + 1)},
        table_ids={n: f"{TID}-{n}" for n in range(1, tables + 1)},
        pending=[PendingMove(f"bot-{n:05d}", n, n + 1, "balance", 5) for n in range(30)],
        breaking=[tables], next_number=tables + 1)
    record.tables = [f"{TID}-{n}" for n in range(1, tables + 1)]
    record.timers = [Timer("level:2", TimerKind.LEVEL, 10, 0)]
    return record


def test_issue_23_a_10000_player_tournament_item_is_under_16_kb() -> None:
    record = running(10_000)
    item, play = store().to_item(record), store().field_item(record)
    assert dynamodb_item_size(item) < ITEM_LIMIT and dynamodb_item_size(play) < ITEM_LIMIT
    document = {**unpacked(item["doc"]), **unpacked(play["doc"])}  # as load() joins them
    assert TournamentRecord.from_document(TID, 900, document).to_document() \
        == record.to_document()
    assert unpacked(item["summary"]) == record.summary()


def test_issue_23_a_large_fields_seats_are_logged_in_parts_under_16_kb() -> None:
    record = running(10_000)
    players = [f"player-with-a-long-id-{n:05d}" for n in range(10_000)]
    registrations: dict[str, dict[str, Any]] = {p: {} for p in players}
    tables = [new_table_for(record, n, players[(n - 1) * 9:n * 9], registrations)
              for n in range(1, 1_112)]
    parts = _seat_parts(tables)
    assert len(parts) > 1
    assert [t for part in parts for t in part["tables"]] == [t.table_id for t in tables]
    for part in parts:
        item = store()._transact_item(_log_put(part))["Put"]["Item"]
        assert dynamodb_item_size(item) < ITEM_LIMIT
    assert len(_seat_parts(tables[:7])) == 1  # a small field: the started entry alone
    # the started entry's own fields (its 1,500 prizes) share the first part: under 16 KB
    # with them (the 10,000-player bench's was 16,832 B before they counted)
    fields = _started_log(record, False)
    first = started_parts(record, False, tables)[0]
    item = store()._transact_item(PutItem(TID, "log#1767225600000#t#00000001", {
        "type": "started", "tournament": TID, "at_ms": 1767225600000, **fields, **first,
        "parts": len(parts)}, new=True))["Put"]["Item"]
    assert dynamodb_item_size(item) < ITEM_LIMIT and len(fields["payouts"]) >= 1_000


def new_table_for(record: TournamentRecord, number: int, seats: list[str],
                  registrations: dict[str, dict[str, Any]]) -> Any:
    deps: Any = SimpleNamespace(default_pause_ms=3_000)  # all new_table reads of Deps
    return new_table(deps, record, number, tuple(seats) + (None,) * (9 - len(seats)),
                     registrations, 0, multi=True, rng=random.Random(number))


def _log_put(part: dict[str, Any]) -> PutItem:
    return PutItem(TID, "log#1767225600000#t#00000002",
                   {"type": "seated", "tournament": TID, "at_ms": 1767225600000, "part": 2,
                    **part}, new=True)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(min_value=1, max_value=400),
                       st.integers(min_value=0, max_value=10), max_size=60),
       st.lists(st.sampled_from([f"{TID}-1", f"{TID}-2", f"{TID}-3", f"{TID}-final",
                                 f"{TID}-07", "other", f"{TID}-x", f"{TID}-40"]),
                max_size=12),
       st.sets(st.integers(min_value=1, max_value=400), max_size=5))
def test_issue_23_property_the_compact_document_reads_back_what_was_written(
        counts: dict[int, int], tables: list[str], renamed: set[int]) -> None:
    record = running(20)
    ids = {n: (f"{TID}-final" if n in renamed else f"{TID}-{n}") for n in counts}
    record.seating = Seating(counts=dict(sorted(counts.items())), table_ids=ids,
                             next_number=max(counts, default=0) + 1)
    record.tables = tables
    document = record.to_document()
    back = TournamentRecord.from_document(TID, record.version, unpacked(packed(document)))
    assert back.tables == tables
    assert back.seating is not None
    assert back.seating.counts == record.seating.counts
    assert back.seating.table_ids == record.seating.table_ids
    assert back.to_document() == document


def test_issue_23_a_document_stored_before_the_compact_form_still_reads() -> None:
    record = running(60, seats=6)
    assert record.seating is not None
    old = {**record.to_document(), "tables": list(record.tables),
           "seating": record.seating.to_dict()}
    del old["table_runs"]
    back = TournamentRecord.from_document(TID, 900, unpacked({"S": json.dumps(old)}))
    assert back.tables == record.tables and back.seating is not None
    assert back.seating.counts == record.seating.counts
    assert back.seating.table_ids == record.seating.table_ids


def test_issue_23_a_large_fields_places_are_logged_in_parts_under_16_kb() -> None:
    """The ``finished`` entry of a 10,000-player tournament (every place, the 1,500 prizes)
    was one 160 KB item: in parts, each under 16 KB, read back whole by ``joined``."""
    players = [f"player-with-a-long-id-{n:05d}" for n in range(10_000)]
    places = {p: n for n, p in enumerate(players, start=1)}
    prizes = {p: 1_000_000 - n for n, p in enumerate(players[:1_500])}
    parts = in_parts({"places": places, "prizes": prizes})
    assert len(parts) > 1
    log = [{"type": "finished", "at_ms": 1, **parts[0], "parts": len(parts)}]
    log += [{"type": "placed", "at_ms": 1, "part": n, **part}
            for n, part in reversed(list(enumerate(parts[1:], start=2)))]
    for entry in log:
        item = store()._transact_item(PutItem(TID, "log#1767225600000#t#00000009",
                                              entry, new=True))["Put"]["Item"]
        assert dynamodb_item_size(item) < ITEM_LIMIT
    whole = joined(log, "finished", "placed")
    assert list(whole["places"].items()) == list(places.items()) and whole["prizes"] == prizes
    small = in_parts({"places": dict(list(places.items())[:60]), "prizes": {}})
    assert len(small) == 1  # a small field: the finished entry alone
