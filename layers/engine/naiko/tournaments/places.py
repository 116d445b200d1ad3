""":mod:`naiko.tournaments.places` derives a tournament's finishing places (R9.5, R9.8) from
the record each elimination leaves, an :class:`OutRecord` (the ``out#`` items of a scheduled
tournament, docs/tournaments.md "Places derived from out# items"), instead of from a count
of the players left kept by one shared item at each elimination.

Players out together (one hand of one table; or, hand-for-hand, one round at every table,
R9.8) form one group; groups take the places from the bottom in the order they went out; in a
group the larger stack at the start of that hand (or round's hand) finishes higher and equal
stacks tie (:func:`~naiko.tournaments.prizes.rank_eliminations`).

>>> outs = [OutRecord("ann", 300, 10, "t-1", 4), OutRecord("bob", 500, 10, "t-1", 4),
...         OutRecord("cy", 200, 20, "t-2", 9)]
>>> derive_places(outs, players=5)
[TieGroup(place=3, player_ids=('cy',)), TieGroup(place=4, player_ids=('bob',)), \
TieGroup(place=5, player_ids=('ann',))]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .prizes import PrizeError, TieGroup, rank_eliminations


@dataclass(frozen=True, slots=True)
class OutRecord:
    """What an elimination records of one player out, all that ranking them needs (R9.5)."""

    player_id: str
    stack: int
    """Their stack at the start of the hand they went out in (hand-for-hand: that round's)."""
    at_ms: int
    """When their hand ended (hand-for-hand: when their round closed)."""
    table: str
    hand: int
    round: int | None = None
    """The hand-for-hand round they went out in (R9.8): players out in one round are one
    group whatever their tables."""
    left: int | None = None
    """The players left before their group went out, when a count of the field gave it at the
    time (the field item, still counting): then the group's places are counted from it, as
    that count placed them (two tables' eliminations in the order their writes committed,
    whatever their hands' times). Without it each group starts where the one before it, in
    time order (:attr:`at_ms`, then the table and hand), ended."""

    @property
    def group(self) -> tuple[Any, ...]:
        """Who went out together: one hand of one table, or one hand-for-hand round."""
        if self.round is not None:
            return ("round", self.round)
        return ("hand", self.table, self.hand)

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "stack": self.stack, "at_ms": self.at_ms,
                "table": self.table, "hand": self.hand, "round": self.round,
                "left": self.left}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OutRecord:
        round_, left = data.get("round"), data.get("left")
        return cls(str(data["player_id"]), int(data["stack"]), int(data["at_ms"]),
                   str(data["table"]), int(data["hand"]),
                   None if round_ is None else int(round_), None if left is None else int(left))


def out_key(out: OutRecord) -> str:
    """``out#<time>#<table>#<hand>#<player>``: a Query of ``out#`` reads them in time order."""
    return f"out#{out.at_ms:013d}#{out.table}#{out.hand:06d}#{out.player_id}"


def derive_places(outs: Iterable[OutRecord], players: int) -> list[TieGroup]:
    """R9.5 and R9.8: the places of every player out, best place first, from their records
    alone. *players* is how many players are placed in all (the winner included; R9.12: a
    player who re-entered is placed once, by their last record, the one with the latest
    :attr:`~OutRecord.at_ms`). A group whose records carry :attr:`~OutRecord.left` (a count
    of the field gave it: late registration's close, the field from the serial zone on)
    takes the places below it; the groups without it (eliminations counted on the field's
    shards, issue 23) follow in time order, each taking the lowest places still free.

    >>> sharded = [OutRecord("ann", 300, 10, "t-1", 4), OutRecord("cy", 200, 20, "t-2", 9)]
    >>> derive_places([*sharded, OutRecord("bob", 500, 30, "t-1", 7, left=3)], players=5)
    [TieGroup(place=3, player_ids=('bob',)), TieGroup(place=4, player_ids=('cy',)), \
TieGroup(place=5, player_ids=('ann',))]

    :raises PrizeError: If the records place more players than *players* less a winner, or
        the records of one group disagree on ``left``.
    """
    last: dict[str, OutRecord] = {}
    for out in outs:
        if out.player_id not in last or out.at_ms >= last[out.player_id].at_ms:
            last[out.player_id] = out
    groups: dict[tuple[Any, ...], list[OutRecord]] = {}
    for out in last.values():
        groups.setdefault(out.group, []).append(out)

    def order(members: list[OutRecord]) -> tuple[Any, ...]:
        first = min(members, key=lambda o: (o.at_ms, o.table, o.hand))
        return (first.at_ms, first.table, first.hand, first.round or 0)

    ranked: list[TieGroup] = []
    taken: set[int] = set()
    counted = [m for m in groups.values() if m[0].left is not None]
    for members in groups.values():
        if len({o.left for o in members}) > 1:
            raise PrizeError("the records of one group disagree on the players left",
                             rule_id="R9.5")
    for members in sorted(counted, key=lambda m: -int(m[0].left or 0)):
        members.sort(key=lambda o: (o.table, o.hand))
        before = int(members[0].left or 0)
        ranked.extend(rank_eliminations([(o.player_id, o.stack) for o in members], before))
        taken.update(range(before - len(members) + 1, before + 1))
    before = players
    for members in sorted((m for m in groups.values() if m[0].left is None), key=order):
        members.sort(key=lambda o: (o.table, o.hand))
        while before in taken:
            before -= 1
        ranked.extend(rank_eliminations([(o.player_id, o.stack) for o in members], before))
        taken.update(range(before - len(members) + 1, before + 1))
        before -= len(members)
    return sorted(ranked, key=lambda g: g.place)
