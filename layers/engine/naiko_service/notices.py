""":mod:`naiko_service.notices` defines the events the service itself reports (next to the
engine's :mod:`naiko.events`): what the clock decided, who left, who disconnected. They travel in
the same ``update`` messages and have the same wire form (``{"kind": ..., ...}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from naiko.events import Event


@dataclass(frozen=True, slots=True)
class TimedOut(Event):
    """R8.1: the decision clock ran out; the server checked or folded (``decision``)."""

    kind: ClassVar[str] = "timed_out"
    seat_index: int
    decision: str


@dataclass(frozen=True, slots=True)
class ReconnectGrace(Event):
    """R8.2: the player on turn is disconnected: 20 more seconds, until ``until_ms``."""

    kind: ClassVar[str] = "reconnect_grace"
    recorded: ClassVar[bool] = False
    seat_index: int
    until_ms: int


@dataclass(frozen=True, slots=True)
class LeavingAfterHand(Event):
    """The player asked to leave while in the hand: they fold at their turn and leave when the
    hand ends."""

    kind: ClassVar[str] = "leaving_after_hand"
    recorded: ClassVar[bool] = False
    seat_index: int


@dataclass(frozen=True, slots=True)
class LeftTable(Event):
    """The player stood up with their stack (``reason``: ``left``, ``sat_out_too_long``)."""

    kind: ClassVar[str] = "left_table"
    recorded: ClassVar[bool] = False
    seat_index: int
    player_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Disconnected(Event):
    """R8.2: the player's connection dropped; the seat is kept."""

    kind: ClassVar[str] = "disconnected"
    recorded: ClassVar[bool] = False
    player_id: str


@dataclass(frozen=True, slots=True)
class Reconnected(Event):
    """R8.3: the player is back and has the confirmed state."""

    kind: ClassVar[str] = "reconnected"
    recorded: ClassVar[bool] = False
    player_id: str


@dataclass(frozen=True, slots=True)
class TableClosed(Event):
    """The table closed (``reason``: ``idle``, ``host``): it takes nobody and is not listed."""

    kind: ClassVar[str] = "table_closed"
    recorded: ClassVar[bool] = False
    reason: str
