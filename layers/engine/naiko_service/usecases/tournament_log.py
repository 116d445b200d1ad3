"""A scheduled or single-table tournament's own log entries and the players a hand put out:
what the tables' module, the bounties' and the payments' build on (a module of its own so that
none of them imports another in a circle)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..ports import PutItem
from ..tournament_records import TournamentRecord


def log_entry(record: TournamentRecord, now: int, kind: str, **fields: Any) -> PutItem:
    """A tournament's own log entry, ``log#<time>#t#<n>``: in time order with the tables'
    ``hand`` entries (``log#<time>#h#<table>#<hand>``), which tables write without touching
    the tournament item. At one millisecond a hand comes before what it caused."""
    record.log_seq += 1
    return PutItem(record.tournament_id, f"log#{now:013d}#t#{record.log_seq:08d}",
                   {"type": kind, "tournament": record.tournament_id, "at_ms": now, **fields},
                   new=True)


LOG_PART_BYTES = 12_000
"""About the most JSON of a list one log entry carries (issue 23: no item over 16 KB): the
seats of 1,112 tables were one 186 KB ``started`` entry, the places of 1,000 players one
16 KB ``finished`` entry (160 KB at 10,000)."""


def in_parts(sections: dict[str, dict[str, Any]]) -> list[dict[str, dict[str, Any]]]:
    """*sections* (names to mappings, e.g. ``places`` and ``prizes``) split into parts of
    about :data:`LOG_PART_BYTES` of JSON each, in their order, every part with every section
    (empty where that part has none of it): the first part goes in the entry itself, the
    others in entries of their own (``part`` 2, 3, ...) written in the same transaction.

    >>> parts = in_parts({"places": {f"p{n}": n for n in range(2_000)}, "prizes": {"p1": 5}})
    >>> len(parts), sum(len(p["places"]) for p in parts), parts[-1]["prizes"]
    (3, 2000, {'p1': 5})
    """
    parts: list[dict[str, dict[str, Any]]] = [{name: {} for name in sections}]
    size = 0
    for name, mapping in sections.items():
        for key, value in mapping.items():
            nbytes = len(json.dumps([key, value])) + 2
            if size and size + nbytes > LOG_PART_BYTES:
                parts.append({n: {} for n in sections})
                size = 0
            parts[-1][name][key] = value
            size += nbytes
    return parts


def joined(log: list[dict[str, Any]], first: str, rest: str) -> dict[str, Any]:
    """The entry of type *first* in *log* (a tournament's log, in order) with the sections
    of its parts (the entries of type *rest*, :func:`in_parts`) merged back into it: the
    ``finished`` entry with every place and prize (``placed`` parts), the ``started`` entry
    with every table (``seated`` parts). ``{}`` if there is no such entry yet."""
    entry = next((dict(e) for e in log if e["type"] == first), None)
    if entry is None:
        return {}
    for part in sorted((e for e in log if e["type"] == rest), key=lambda e: int(e["part"])):
        for name, value in part.items():
            if isinstance(value, dict) and isinstance(entry.get(name), dict):
                entry[name] = {**entry[name], **value}
    return entry


@dataclass(frozen=True, slots=True)
class Out:
    """A player left without chips at the end of a hand (R9.5)."""

    player_id: str
    stack: int
    """Their stack at the start of that hand (what ranks players out in the same hand)."""
    table: str
    hand: int
    account: str
    """Where their prize goes (a BOT's: the house's)."""

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "stack": self.stack, "table": self.table,
                "hand": self.hand, "account": self.account}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Out:
        return cls(str(data["player_id"]), int(data["stack"]), str(data["table"]),
                   int(data["hand"]), str(data["account"]))
