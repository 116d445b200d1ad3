""":mod:`naiko.tournaments.bounties` is the knockout rule (R9.13) as a pure function: who wins
the bounty of a player eliminated in a hand, and how much, from the hand's pot awards.

A player is eliminated by the pot of their all-in: the last pot (the highest side pot) they were
eligible for. Its winners share the eliminated player's bounty as they share that pot (R4.5:
equal shares, the odd chips one at a time to the winners from the first clockwise of the
button). In progressive knockout each winner's share is split in two: half paid at once, half
added to the winner's own bounty; of an odd share the odd chip is paid (the paid half is the
larger). Nothing here touches accounts: the service pays what this returns, once per
eliminated player (R9.9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..pots import split_pot


class BountyError(ValueError):
    """Awards that cannot have eliminated the player (no pot they were eligible for)."""

    code = "invalid_prizes"
    rule_id = "R9.13"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Knockout:
    """The bounty of one eliminated player and where it goes."""

    eliminated: str
    bounty: int
    """The eliminated player's bounty (all of it is awarded: ``sum(paid) + sum(added)``)."""
    paid: dict[str, int] = field(default_factory=dict)
    """Winner -> account chips paid at once."""
    added: dict[str, int] = field(default_factory=dict)
    """Winner -> chips added to their own bounty (progressive knockout; empty otherwise)."""

    def to_dict(self) -> dict[str, Any]:
        return {"eliminated": self.eliminated, "bounty": self.bounty, "paid": dict(self.paid),
                "added": dict(self.added)}


def eliminating_pot(awards: Sequence[Mapping[str, Any]], seat: int) -> Mapping[str, Any]:
    """The award of the pot that eliminated the player at *seat*: the last one (the highest
    side pot) *seat* was eligible for.

    :raises BountyError: If *seat* was eligible for no pot.
    """
    for award in reversed(awards):
        if seat in [int(s) for s in award.get("eligible", ())]:
            found: Mapping[str, Any] = award
            return found
    raise BountyError(f"seat {seat} was eligible for no pot of the hand")


def knockouts(awards: Sequence[Mapping[str, Any]], seats: Sequence[str | None],
              eliminated: Sequence[int], bounties: Mapping[str, int], *, progressive: bool,
              button: int) -> list[Knockout]:
    """R9.13: the bounties of the players eliminated in one hand.

    :param awards: The hand's pot awards, main pot first (``HandState.awards``: ``eligible``
        seats and ``winners`` seat -> chips of each pot).
    :param seats: The player at each seat during the hand.
    :param eliminated: The seats of the players the hand eliminated.
    :param bounties: Each player's bounty before the hand (progressive: grown by earlier
        knockouts).
    :param progressive: Half of each share paid at once, half added to the winner's bounty.
    :param button: The hand's button seat (the odd chip's start, R4.5).
    :raises BountyError: If an eliminated seat was eligible for no pot, or its pot has no
        winner.

    >>> awards = [{"amount": 300, "eligible": [0, 1, 2], "winners": {"1": 150, "2": 150}}]
    >>> [k.paid for k in knockouts(awards, ["ann", "bob", "cy"], [0], {"ann": 25},
    ...                            progressive=False, button=0)]
    [{'bob': 13, 'cy': 12}]
    >>> k = knockouts(awards, ["ann", "bob", "cy"], [0], {"ann": 25}, progressive=True,
    ...               button=0)[0]
    >>> k.paid, k.added
    ({'bob': 7, 'cy': 6}, {'bob': 6, 'cy': 6})
    """
    seat_count = len(seats)
    result: list[Knockout] = []
    for seat in eliminated:
        player = seats[seat]
        if player is None:
            raise BountyError(f"seat {seat} is empty")
        award = eliminating_pot(awards, seat)
        winners = [int(s) for s, amount in award["winners"].items() if int(amount) > 0]
        if not winners or seat in winners:
            raise BountyError(f"the pot that eliminated seat {seat} has no other winner")
        bounty = int(bounties.get(player, 0))
        shares = split_pot(bounty, winners, seat_count, button)
        paid: dict[str, int] = {}
        added: dict[str, int] = {}
        for winner, share in shares.items():
            name = seats[winner]
            assert name is not None
            if progressive:
                paid[name] = share - share // 2
                added[name] = share // 2
            else:
                paid[name] = share
        result.append(Knockout(player, bounty, paid, added if progressive else {}))
    return result


def bounties_after(bounties: Mapping[str, int], done: Sequence[Knockout]) -> dict[str, int]:
    """Every player's bounty after the knockouts *done*: the eliminated players' gone, the
    progressive halves added to their winners'."""
    after = dict(bounties)
    for knockout in done:
        after.pop(knockout.eliminated, None)
    for knockout in done:
        for winner, amount in knockout.added.items():
            if winner in after:
                after[winner] += amount
    return after
