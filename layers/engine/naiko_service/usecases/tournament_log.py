"""A scheduled or single-table tournament's own log entries and the players a hand put out:
what the tables' module, the bounties' and the payments' build on (a module of its own so that
none of them imports another in a circle)."""

from __future__ import annotations

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
