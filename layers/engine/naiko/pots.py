""":mod:`naiko.pots` builds the main and side pots and splits them (R4.1, R4.5).

>>> [(p.amount, p.eligible) for p in build_pots([100, 40, 100], [0, 0, 0], [True, True, True])]
[(120, (0, 1, 2)), (120, (0, 2))]
>>> split_pot(8, [3, 5, 0], seat_count=6, button=5)
{0: 3, 3: 3, 5: 2}
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot and the seats that may win it."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(committed: list[int], antes: list[int], live: list[bool]) -> list[Pot]:
    """Main pot first, then side pots.

    R4.1 decision: the boundaries are the contributions of the players still in the hand
    (their all-in amounts and the largest live contribution); folded players' chips are dead
    money inside the pots they reached and never make a boundary. Antes are dead money in the
    main pot (R2.8). Uncalled chips must already have been returned (R4.2).

    :param committed: each seat's total contribution this hand, antes included.
    :param antes: the part of ``committed`` that was antes.
    :param live: whether each seat is still in the hand (dealt in, not folded).
    """
    bets = [c - a for c, a in zip(committed, antes, strict=True)]
    levels = sorted({bets[s] for s in range(len(bets)) if live[s]})
    pots: list[Pot] = []
    previous = 0
    dead_antes = sum(antes)
    for i, level in enumerate(levels):
        top = i == len(levels) - 1
        amount = sum(min(b, level) - min(b, previous) for b in bets)
        if top:  # anything above the last live level (should be nothing once returns are done)
            amount += sum(max(0, b - level) for b in bets)
        if i == 0:
            amount += dead_antes
        eligible = tuple(s for s in range(len(bets)) if live[s] and bets[s] >= level)
        if amount:
            pots.append(Pot(amount, eligible))
        previous = level
    return pots


def clockwise_from_button(seats: list[int], seat_count: int, button: int) -> list[int]:
    """*seats* ordered clockwise starting with the first seat left of the button."""
    return sorted(seats, key=lambda s: (s - button - 1) % seat_count)


def split_pot(amount: int, winners: list[int], seat_count: int, button: int) -> dict[int, int]:
    """Split *amount* among tied *winners* (R4.5).

    Odd chips go one at a time to the winners starting from the first one clockwise (left) of
    the button, so no winner gets more than one odd chip of a pot: 8 three ways is 3, 3, 2.
    """
    ordered = clockwise_from_button(winners, seat_count, button)
    share, odd = divmod(amount, len(ordered))
    return {seat: share + (1 if i < odd else 0) for i, seat in enumerate(ordered)}
