""":mod:`naiko_local.bounty_audit` checks a knockout tournament's bounties (R9.13) from its log
alone (JSON Lines, ``docs/tournaments.md``): the ``started`` entry publishes the bounty of an
entry (and whether it is progressive), ``prizes_final`` the field (every entry, R9.12), and
each ``bounty`` line one payment. Replaying them in order, every player's bounty starts at the
published one (a re-entry's again, ``reentered``), a knockout's ``bounty`` is what the player
carried, its ``paid`` and ``added`` add up to it exactly (regular: nothing added; progressive:
each winner's share paid half, the odd chip with it, and added half), the added halves grow the
winners' bounties, nobody's entry is knocked out twice, the own bounties of the players left at
the end come last (``reason`` ``winner``; or each player still in when a deal ends the
tournament, ``deal``, or the director cancels it, ``cancelled``), each paid to its player whole,
and what was paid is the whole bounty pool: the bounty times the entries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

FINAL_REASONS = frozenset({"winner", "deal", "cancelled"})
"""The reasons of a bounty paid to its own player when the tournament ends (R9.13, R9.16,
R9.15)."""


@dataclass
class BountyAudit:
    """What :func:`audit` found."""

    payments: int = 0
    """``bounty`` lines (knockouts and the winner's own)."""
    paid: int = 0
    """Chips they paid."""
    pool: int = 0
    """The bounty pool: the published bounty times the entries."""
    problems: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return not self.problems and self.paid == self.pool

    def line(self) -> str:
        return (f"{self.payments} bounty payments, {self.paid} chips of a bounty pool of "
                f"{self.pool}" + (f"; {len(self.problems)} problems" if self.problems else ""))


def audit(log: Iterable[Mapping[str, Any]]) -> BountyAudit:
    """Replay the log's bounties (see the module's docstring)."""
    result = BountyAudit()
    base, progressive, entrants = 0, False, 0
    carried: dict[str, int] = {}
    out: set[str] = set()
    won = False
    for entry in log:
        kind = entry.get("type")
        if kind == "started":
            base, progressive = int(entry.get("bounty", 0)), bool(entry.get("progressive"))
        elif kind == "prizes_final":
            entrants = int(entry["entrants"])
        elif kind == "reentered":
            out.discard(str(entry["player"]))
        elif kind == "bounty":
            final = entry.get("reason") in FINAL_REASONS
            if won and not final:
                result.problems.append(f"a bounty paid after the winner's: {entry['player']}")
            if final and {str(k): int(v) for k, v in entry["paid"].items()} != {
                    str(entry["player"]): int(entry["bounty"])}:
                result.problems.append(f"{entry['player']}'s own bounty not paid to them whole")
            won = won or final
            _payment(entry, base, progressive, carried, out, result)
    result.pool = base * entrants
    if result.pool and not won:
        result.problems.append("the winner's own bounty was never paid")
    if result.paid != result.pool:
        result.problems.append(f"{result.paid} chips paid of a bounty pool of {result.pool}")
    return result


def _payment(entry: Mapping[str, Any], base: int, progressive: bool, carried: dict[str, int],
             out: set[str], result: BountyAudit) -> None:
    player = str(entry["player"])
    paid = {str(k): int(v) for k, v in entry["paid"].items()}
    added = {str(k): int(v) for k, v in entry.get("added", {}).items()}
    bounty = int(entry["bounty"])
    result.payments += 1
    result.paid += sum(paid.values())
    if player in out:
        result.problems.append(f"{player}'s bounty paid twice for one entry")
    out.add(player)
    expected = carried.pop(player, base)
    if bounty != expected:
        result.problems.append(f"the bounty of {player} is {bounty}, they carried {expected}")
    if sum(paid.values()) + sum(added.values()) != bounty:
        result.problems.append(f"{player}'s awards do not add up to their bounty {bounty}")
    if added and not progressive:
        result.problems.append(f"{player}'s bounty grew another's in a regular knockout")
    for winner, half in added.items():
        if progressive and paid.get(winner, 0) - half not in (0, 1):
            result.problems.append(f"{winner}'s share of {player}'s bounty is not halved")
        carried[winner] = carried.get(winner, base) + half
