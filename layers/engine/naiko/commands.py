""":mod:`naiko.commands` defines the commands :func:`naiko.engine.apply` accepts.

Commands are immutable values with noun names. Amounts named ``*_to`` are totals for the
street, never increments (``RaiseTo(seat_index=2, amount=60)`` means "my bet becomes 60").
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .state import EntryChoice


@dataclass(frozen=True, slots=True)
class Command:
    """Base class; ``kind`` is the name used in dicts and logs."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = list(value) if isinstance(value, (tuple, frozenset)) else value
        return data


# -- seats and the table ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SitDown(Command):
    """Take an empty seat with *stack* chips (the buy-in moves in the service layer). At a table
    with entry rules (R7.8) the new player owes a big blind: *entry* says whether they post it
    when they can or wait for the big blind."""

    kind: ClassVar[str] = "sit_down"
    seat_index: int
    player_id: str
    stack: int
    is_bot: bool = False
    entry: EntryChoice = EntryChoice.WAIT


@dataclass(frozen=True, slots=True)
class StandUp(Command):
    """Leave the seat; the stack goes back to the player (not while live in a hand)."""

    kind: ClassVar[str] = "stand_up"
    seat_index: int


@dataclass(frozen=True, slots=True)
class SitOut(Command):
    """Stop being dealt in from the next hand on: no cards, no blinds (R7.7)."""

    kind: ClassVar[str] = "sit_out"
    seat_index: int


@dataclass(frozen=True, slots=True)
class SitIn(Command):
    """Be dealt in again from the next hand; a player who missed blinds while away posts them
    or waits for the big blind, as *entry* says (R7.8)."""

    kind: ClassVar[str] = "sit_in"
    seat_index: int
    entry: EntryChoice = EntryChoice.WAIT


@dataclass(frozen=True, slots=True)
class ChooseEntry(Command):
    """Change how a player who owes blinds enters (post or wait, R7.8), until a hand starts."""

    kind: ClassVar[str] = "choose_entry"
    seat_index: int
    entry: EntryChoice


@dataclass(frozen=True, slots=True)
class AddChips(Command):
    """Add chips to a stack between hands (a reload, R7.1)."""

    kind: ClassVar[str] = "add_chips"
    seat_index: int
    amount: int


@dataclass(frozen=True, slots=True)
class StartHand(Command):
    """Deal a new hand from *deck* (a full shuffled deck, next card first).

    *button* places the button for the table's first hand (chosen at random by the caller,
    R2.6); later hands move the blinds by the dead-button rule and must leave it ``None``.
    *mucked* is for replaying external logs only: seats whose hands are thrown away unseen at
    showdown. Live tables never set it (R4.4).
    *carousel* is the hand's 3 powers in Naiko mode, drawn by the caller
    (:func:`naiko.powers.draw_carousel`, R5.3, R5.4); empty for the other variants.
    *wait* are seated players kept out of this hand: a tournament's players who arrived on the
    small blind or between the button and the small blind wait there, without posting, until
    the big blind reaches them (R9.7, :func:`naiko.tournaments.seating.next_deal`); the blinds
    move among the seats dealt in.
    *deck_seed* (64 lowercase hex digits, secret, drawn by the caller) commits the hand to its
    deck before the first card (R10.2): the hand publishes the Merkle root of *deck* salted
    with :func:`naiko.commitment.salts_from_seed`, and every card a seat sees can be proved
    against it. ``None`` deals without a commitment (replays of external logs, tests).
    """

    kind: ClassVar[str] = "start_hand"
    deck: tuple[int, ...]
    button: int | None = None
    mucked: frozenset[int] = field(default_factory=frozenset)
    carousel: tuple[str, ...] = ()
    wait: frozenset[int] = field(default_factory=frozenset)
    deck_seed: str | None = None


@dataclass(frozen=True, slots=True)
class CancelHand(Command):
    """A server fault stopped the hand (R8.6): the table returns to exactly its state before
    the hand: every chip put in goes back, destellos as they were (the hand's credit removed,
    powers paid refunded), the button does not move. *reason* is told to the players
    (``server_error``, ``state_unreadable``, ``stalled``)."""

    kind: ClassVar[str] = "cancel_hand"
    reason: str = "server_error"


# -- betting ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Fold(Command):
    kind: ClassVar[str] = "fold"
    seat_index: int


@dataclass(frozen=True, slots=True)
class Check(Command):
    kind: ClassVar[str] = "check"
    seat_index: int


@dataclass(frozen=True, slots=True)
class Call(Command):
    """Match the current bet, or put in the whole stack if it is smaller."""

    kind: ClassVar[str] = "call"
    seat_index: int


@dataclass(frozen=True, slots=True)
class Bet(Command):
    """Open the betting on a street: the seat's bet becomes *amount*."""

    kind: ClassVar[str] = "bet"
    seat_index: int
    amount: int


@dataclass(frozen=True, slots=True)
class RaiseTo(Command):
    """Raise: the seat's bet for the street becomes *amount*."""

    kind: ClassVar[str] = "raise_to"
    seat_index: int
    amount: int


@dataclass(frozen=True, slots=True)
class AllIn(Command):
    """Put in the whole stack: a bet or raise when the rules allow that much, else a call."""

    kind: ClassVar[str] = "all_in"
    seat_index: int


# -- Naiko powers ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class UsePower(Command):
    """Use a Naiko power (R5.5–R6.7).

    *power* is ``peek``, ``sleeve_swap``, ``short_anchor`` or ``seal_shield``;
    *target_seat* names the Short Anchor's target; *card_index* (0 or 1) the hole card a Sleeve
    Swap throws away; *at_ms* is the caller's clock when the command was accepted (a Short
    Anchor's response window closes ``shield_window_ms`` later).
    """

    kind: ClassVar[str] = "use_power"
    seat_index: int
    power: str
    target_seat: int | None = None
    card_index: int | None = None
    at_ms: int = 0


@dataclass(frozen=True, slots=True)
class PassWindow(Command):
    """The Anchor's target declines to shield: the window closes and the Anchor applies."""

    kind: ClassVar[str] = "pass_window"
    seat_index: int


@dataclass(frozen=True, slots=True)
class WindowTimeout(Command):
    """The timer of response window *window_id* fired: it closes and the Anchor applies."""

    kind: ClassVar[str] = "window_timeout"
    window_id: str
