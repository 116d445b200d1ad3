""":mod:`naiko.events` defines what :func:`naiko.engine.apply` reports: one frozen dataclass per
kind of event (like PokerKit's operations), so that the service and the hand history read typed
fields instead of parsing text.

An event is public unless :attr:`Event.private_to` names the one seat allowed to see it (a
seat's own hole cards, its peek, its Sleeve Swap). :func:`naiko.views.events_for` filters a list
of events for one seat. Events that belong to the record of a hand (:attr:`Event.recorded`) are
also kept, in order, in :attr:`naiko.state.HandState.log`: the hand's history.

Every event has a wire form, :meth:`Event.to_dict` (``{"kind": "action", "seat_index": 2,
...}``), which :func:`event_from_dict` reads back:

>>> event = ActionTaken(seat_index=2, action="raise_to", to=60, all_in=False)
>>> event.to_dict()
{'kind': 'action', 'seat_index': 2, 'action': 'raise_to', 'to': 60, 'all_in': False}
>>> event_from_dict(event.to_dict()) == event
True
>>> HoleCardsDealt(seat_index=1, cards="AhKd").visible_to(0)
False
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar


class Power(StrEnum):
    """The four Naiko powers (R6.1–R6.4). Values are the wire names."""

    PEEK = "peek"
    SLEEVE_SWAP = "sleeve_swap"
    SHORT_ANCHOR = "short_anchor"
    SEAL_SHIELD = "seal_shield"

    @property
    def cost(self) -> int:
        """Destellos the power costs (R6.1–R6.4).

        >>> Power.SLEEVE_SWAP.cost
        2
        """
        return _POWER_COSTS[self.value]


_POWER_COSTS = {"peek": 1, "sleeve_swap": 2, "short_anchor": 2, "seal_shield": 1}


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event. ``kind`` is the wire name; fields are JSON-compatible."""

    kind: ClassVar[str] = ""
    recorded: ClassVar[bool] = True
    """Whether the event is part of the hand's record (kept in ``HandState.log``). Seat changes
    between hands and turn notices are not."""
    omit_if_none: ClassVar[frozenset[str]] = frozenset()
    """Optional fields left out of the wire form while ``None``."""

    @property
    def private_to(self) -> int | None:
        """The only seat that may see this event, or ``None`` if it is public."""
        return None

    @property
    def to_player(self) -> str | None:
        """The only player that may see this event (the service's notices to someone who may
        have no seat, e.g. a seat offer), or ``None``."""
        return None

    @property
    def data(self) -> dict[str, Any]:
        """The event's fields as a JSON-compatible dict (the wire form without ``kind``)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name in self.omit_if_none:
                continue
            out[f.name] = _plain(value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The wire form: ``{"kind": ..., **fields}`` (plus ``private_to`` if private)."""
        out: dict[str, Any] = {"kind": self.kind, **self.data}
        if self.private_to is not None:
            out["private_to"] = self.private_to
        return out

    def visible_to(self, seat_index: int | None, player_id: str | None = None) -> bool:
        """Whether *seat_index* (``None``: a spectator), played by *player_id*, may see this
        event."""
        if self.to_player is not None and self.to_player != player_id:
            return False
        return self.private_to is None or self.private_to == seat_index


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, ShownHand):
        return value.to_dict()
    return value


# -- seats (between hands; not part of a hand's record) --------------------------------------

@dataclass(frozen=True, slots=True)
class Seated(Event):
    kind: ClassVar[str] = "seated"
    recorded: ClassVar[bool] = False
    seat_index: int
    player_id: str
    stack: int
    is_bot: bool


@dataclass(frozen=True, slots=True)
class StoodUp(Event):
    kind: ClassVar[str] = "stood_up"
    recorded: ClassVar[bool] = False
    seat_index: int
    player_id: str
    stack: int


@dataclass(frozen=True, slots=True)
class SatOut(Event):
    kind: ClassVar[str] = "sat_out"
    recorded: ClassVar[bool] = False
    seat_index: int


@dataclass(frozen=True, slots=True)
class SatIn(Event):
    kind: ClassVar[str] = "sat_in"
    recorded: ClassVar[bool] = False
    seat_index: int


@dataclass(frozen=True, slots=True)
class ChipsAdded(Event):
    kind: ClassVar[str] = "chips_added"
    recorded: ClassVar[bool] = False
    seat_index: int
    amount: int
    stack: int


@dataclass(frozen=True, slots=True)
class EntryChosen(Event):
    """R7.8: a player who owes blinds chose to ``post`` or ``wait`` for the big blind."""

    kind: ClassVar[str] = "entry_chosen"
    recorded: ClassVar[bool] = False
    seat_index: int
    entry: str


# -- a hand ----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand is dealt. ``small_blind_seat`` is ``None`` for a dead small blind (R2.6);
    ``seats_dealt`` lists the seats dealt in, clockwise from the first left of the button."""

    kind: ClassVar[str] = "hand_started"
    hand_number: int
    button: int
    small_blind_seat: int | None
    big_blind_seat: int
    seats_dealt: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int


@dataclass(frozen=True, slots=True)
class AntePosted(Event):
    """R2.8: dead money in the main pot."""

    kind: ClassVar[str] = "ante_posted"
    seat_index: int
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class BlindPosted(Event):
    """``blind`` is ``"small"`` or ``"big"`` (the positions' blinds; a short blind posts what it
    has, R2.3), ``"post"`` (a big blind posted live to enter, R7.8) or ``"dead"`` (a missed small
    blind, straight into the pot, R7.8)."""

    kind: ClassVar[str] = "blind_posted"
    seat_index: int
    blind: str
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class DeckCommitted(Event):
    """R10.2: the Merkle root of the hand's shuffled deck (:mod:`naiko.commitment`), published
    before the first card is dealt. Public."""

    kind: ClassVar[str] = "deck_committed"
    root: str


@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    """A seat's hole cards (``"AhKd"``): private to that seat."""

    kind: ClassVar[str] = "hole_cards"
    seat_index: int
    cards: str

    @property
    def private_to(self) -> int | None:
        return self.seat_index


@dataclass(frozen=True, slots=True)
class CarouselDrawn(Event):
    """Naiko mode: the hand's 3 powers (R5.3) and each dealt seat's destellos after its credit
    (R5.1), keyed by seat index as text."""

    kind: ClassVar[str] = "carousel"
    powers: tuple[Power, ...]
    destellos: dict[str, int]


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """*seat_index* is to act (a notice for clients; not part of the hand's record)."""

    kind: ClassVar[str] = "turn"
    recorded: ClassVar[bool] = False
    seat_index: int


class Move(StrEnum):
    """A betting action as reported (``all_in`` resolves to a bet, raise or call)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE_TO = "raise_to"


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """A betting action. ``amount`` is the chips a call put in; ``to`` is the seat's total bet
    of the street after a call, bet or raise; ``all_in`` whether that emptied the stack."""

    kind: ClassVar[str] = "action"
    omit_if_none: ClassVar[frozenset[str]] = frozenset({"amount", "to", "all_in"})
    seat_index: int
    action: Move
    amount: int | None = None
    to: int | None = None
    all_in: bool | None = None


@dataclass(frozen=True, slots=True)
class UncalledBetReturned(Event):
    """R4.2: not a win."""

    kind: ClassVar[str] = "uncalled_bet_returned"
    seat_index: int
    amount: int


@dataclass(frozen=True, slots=True)
class BoardDealt(Event):
    """Board cards of a street; ``run_out`` when no betting was possible before it (R4.3)."""

    kind: ClassVar[str] = "board_dealt"
    street: str
    cards: str
    board: str
    run_out: bool


@dataclass(frozen=True, slots=True)
class ShownHand:
    """One hand shown at showdown (R4.4)."""

    seat_index: int
    cards: str
    best_five: str
    hand: str
    """The hand's name, e.g. ``"two pair, Kings and Fours"``."""

    def to_dict(self) -> dict[str, Any]:
        return {"seat_index": self.seat_index, "cards": self.cards,
                "best_five": self.best_five, "hand": self.hand}


@dataclass(frozen=True, slots=True)
class Showdown(Event):
    kind: ClassVar[str] = "showdown"
    board: str
    hands: tuple[ShownHand, ...]


@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    """One pot and who won what of it (``winners``: seat index as text -> chips).
    ``eligible`` is given at showdown; an uncontested pot (R2.4) has ``showdown`` false."""

    kind: ClassVar[str] = "pot_awarded"
    omit_if_none: ClassVar[frozenset[str]] = frozenset({"eligible"})
    pot_index: int
    amount: int
    winners: dict[str, int]
    showdown: bool
    eligible: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    kind: ClassVar[str] = "hand_ended"
    hand_number: int


@dataclass(frozen=True, slots=True)
class HandCancelled(Event):
    """R8.6: the hand was cancelled and the table is as it was before it. ``refunds``: seat as
    text -> the chips that seat had put in; ``absent``: player id -> chips owed to players who
    left the table during the hand (their account is refunded by the service)."""

    kind: ClassVar[str] = "hand_cancelled"
    hand_number: int
    reason: str
    refunds: dict[str, int]
    absent: dict[str, int]
    player_ids: tuple[str | None, ...]


# -- Naiko powers ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PowerUsed(Event):
    """A power was used and paid; ``destellos`` is what the seat has left."""

    kind: ClassVar[str] = "power_used"
    omit_if_none: ClassVar[frozenset[str]] = frozenset({"card_index", "target_seat"})
    seat_index: int
    power: Power
    destellos: int
    card_index: int | None = None
    target_seat: int | None = None


@dataclass(frozen=True, slots=True)
class PeekResult(Event):
    """R6.1: the next board card, private to the peeking seat."""

    kind: ClassVar[str] = "peek_result"
    seat_index: int
    card: str
    street: str

    @property
    def private_to(self) -> int | None:
        return self.seat_index


@dataclass(frozen=True, slots=True)
class SleeveSwapResult(Event):
    """R6.2: the swapper's discarded and received card, private to the swapper (R6.8: the
    discarded card is never shown to anyone else)."""

    kind: ClassVar[str] = "sleeve_swap_result"
    seat_index: int
    discarded: str
    received: str
    cards: str

    @property
    def private_to(self) -> int | None:
        return self.seat_index


@dataclass(frozen=True, slots=True)
class WindowOpened(Event):
    """R6.5: a Seal Shield response window for ``target`` until ``deadline_ms``."""

    kind: ClassVar[str] = "window_opened"
    window_id: str
    target: int
    attacker: int
    deadline_ms: int


@dataclass(frozen=True, slots=True)
class WindowClosed(Event):
    """``reason``: ``shielded``, ``passed``, ``acted``, ``timed_out`` or ``round_ended``."""

    kind: ClassVar[str] = "window_closed"
    window_id: str
    target: int
    reason: str


@dataclass(frozen=True, slots=True)
class AnchorApplied(Event):
    kind: ClassVar[str] = "anchor_applied"
    target: int
    attacker: int


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls for cls in (
        Seated, StoodUp, SatOut, SatIn, ChipsAdded, EntryChosen, HandStarted, AntePosted,
        BlindPosted, DeckCommitted, HoleCardsDealt, CarouselDrawn, TurnStarted, ActionTaken,
        UncalledBetReturned,
        BoardDealt, Showdown, PotAwarded, HandEnded, HandCancelled, PowerUsed, PeekResult,
        SleeveSwapResult, WindowOpened, WindowClosed, AnchorApplied)
}
"""Every engine event class by its wire ``kind``."""

_ENUM_FIELDS: dict[str, type[StrEnum]] = {"action": Move, "power": Power}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Rebuild an engine event from its :meth:`Event.to_dict` form (stored hand logs).

    :raises ValueError: If the kind is unknown or a field is missing.
    """
    cls = EVENT_TYPES.get(str(data.get("kind")))
    if cls is None:
        raise ValueError(f"unknown event kind {data.get('kind')!r}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        if f.name == "hands":
            value = tuple(ShownHand(**h) for h in value)
        elif f.name == "powers":
            value = tuple(Power(p) for p in value)
        elif f.name in _ENUM_FIELDS and value is not None:
            value = _ENUM_FIELDS[f.name](value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bad {cls.kind} event: {exc}") from exc
