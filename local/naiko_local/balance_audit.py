""":mod:`naiko_local.balance_audit` checks a scheduled tournament's balancing (R9.7) from its log
alone (``docs/tournaments.md``, "The log"), as an auditor would:

- who sits where: the ``started`` seat map, then every ``moved``, the players left without chips
  in each ``hand``'s ``stacks_after`` (they leave at the hand's end), ``table_broken`` and
  ``final_table``;
- the moves decided and not done yet: ``move_planned`` until its ``moved`` (or its
  ``move_cancelled``, the player's elimination, the final table). A table's count is its seated
  players plus the moves planned to it minus those planned from it (R9.7: moves decided count
  at both tables);
- the tables breaking: when the players left fit at fewer tables, the highest-numbered ones (the
  published order); they are not "the shortest table".

At every ``hand``'s deal (its ``started_ms``) with two tables or more, the dealing table's count
is compared with the shortest other table's: :attr:`BalanceAudit.over` counts the hands dealt
at a table two or more players over it (R9.7 allows none). :attr:`BalanceAudit.moves` counts
each player's moves between tables (a late entrant's first seat is not a move).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class BalanceAudit:
    """What :func:`audit` found."""

    hands: int = 0
    """Hands dealt with a ``started_ms`` while two tables or more were in play."""
    over: int = 0
    """Of those, hands dealt at a table two or more players over the shortest other table."""
    over_examples: list[dict[str, Any]] = field(default_factory=list)
    """The first few of them: hand, table, its count, the shortest count."""
    moves: Counter[str] = field(default_factory=Counter)
    """Moves between tables, per player."""
    planned: int = 0
    """``move_planned`` entries."""
    unplanned: int = 0
    """``moved`` entries between tables with no ``move_planned`` for that move before them."""

    @property
    def max_moves(self) -> int:
        """The most moves of one player."""
        return max(self.moves.values(), default=0)


def _number(table_id: str) -> int:
    tail = table_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def audit(log: Iterable[dict[str, Any]], seat_count: int) -> BalanceAudit:
    """Replay *log* (a tournament's log, in its order) and check every deal (see the module).

    :param log: The entries, as ``tournaments.export_log`` returns them.
    :param seat_count: Seats per table (the tournament's terms).
    """
    entries = list(log)
    timeline: list[tuple[int, int, int, str, dict[str, Any]]] = []
    for index, entry in enumerate(entries):
        if entry["type"] == "hand" and entry.get("started_ms") is not None:
            timeline.append((int(entry["started_ms"]), 1, index, "deal", entry))
        timeline.append((int(entry["at_ms"]), 0, index, entry["type"], entry))
    timeline.sort(key=lambda item: item[:3])
    result = BalanceAudit()
    seats: dict[str, set[str]] = {}
    pending: dict[str, tuple[str | None, str]] = {}
    examples = 5
    for _, _, _, kind, entry in timeline:
        if kind == "started":
            seats = {table: set(layout.values()) for table, layout in entry["tables"].items()}
        elif kind == "seated":  # the rest of a large field's seats (issue 23)
            seats.update({table: set(layout.values())
                          for table, layout in entry["tables"].items()})
        elif kind == "move_planned":
            result.planned += 1
            pending[entry["player"]] = (entry["from_table"], entry["to_table"])
        elif kind == "move_cancelled":
            pending.pop(entry["player"], None)
        elif kind == "moved":
            player, origin, destination = entry["player"], entry["from_table"], entry["to_table"]
            planned = pending.pop(player, None)
            if origin is not None:
                result.moves[player] += 1
                if planned != (origin, destination):
                    result.unplanned += 1
                seats.get(origin, set()).discard(player)
            seats.setdefault(destination, set()).add(player)
        elif kind == "hand":
            if not entry.get("cancelled"):
                gone = {p for p, chips in entry["stacks_after"].items() if chips == 0}
                seats.get(entry["table"], set()).difference_update(gone)
                for player in gone:
                    pending.pop(player, None)
        elif kind == "eliminated":
            seats.get(entry["table"], set()).discard(entry["player"])
            pending.pop(entry["player"], None)
        elif kind == "table_broken":
            seats.pop(entry["table"], None)
        elif kind == "final_table":
            seats = {entry["table"]: set(entry["seats"].values())}
            pending = {p: m for p, m in pending.items() if m[0] is None}
        elif kind == "deal":
            _check_deal(result, entry, seats, pending, seat_count, examples)
    return result


def _check_deal(result: BalanceAudit, hand: dict[str, Any], seats: dict[str, set[str]],
                pending: dict[str, tuple[str | None, str]], seat_count: int,
                examples: int) -> None:
    counts = {table: len(players) for table, players in seats.items()}
    for origin, destination in pending.values():
        if origin is not None and origin in counts:
            counts[origin] -= 1
        counts[destination] = counts.get(destination, 0) + 1
    if len(counts) < 2:
        return
    left = sum(counts.values())
    needed = max(1, -(-left // seat_count))
    in_play = sorted(counts, key=_number)[:needed]  # the highest numbers break first
    table = hand["table"]
    others = [counts[t] for t in in_play if t != table]
    if not others:
        return
    result.hands += 1
    shortest = min(others)
    if counts.get(table, 0) - shortest >= 2:
        result.over += 1
        if len(result.over_examples) < examples:
            result.over_examples.append({"table": table, "hand": hand["hand"],
                                         "started_ms": hand["started_ms"],
                                         "count": counts.get(table, 0), "shortest": shortest})
