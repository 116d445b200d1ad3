""":mod:`naiko_service.notices` defines the events the service itself reports (next to the
engine's :mod:`naiko.events`): what the clock decided, who left, who disconnected. They travel in
the same ``update`` messages and have the same wire form (``{"kind": ..., ...}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

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


# -- the room: waiting list, offers, the host (R7.10, R7.12) --------------------------------------

@dataclass(frozen=True, slots=True)
class WaitlistChanged(Event):
    """R7.10: the waiting list, first in line first (public, like a room's list)."""

    kind: ClassVar[str] = "waitlist_changed"
    recorded: ClassVar[bool] = False
    waitlist: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeatOffered(Event):
    """R7.10: a seat is held for ``player_id`` until ``until_ms``: join the table to take it.
    Only that player is told."""

    kind: ClassVar[str] = "seat_offered"
    recorded: ClassVar[bool] = False
    player_id: str
    until_ms: int

    @property
    def to_player(self) -> str | None:
        return self.player_id


@dataclass(frozen=True, slots=True)
class OfferExpired(Event):
    """R7.10: the offer was not taken in 30 s: the seat goes to the next in line. Only that
    player is told."""

    kind: ClassVar[str] = "offer_expired"
    recorded: ClassVar[bool] = False
    player_id: str

    @property
    def to_player(self) -> str | None:
        return self.player_id


@dataclass(frozen=True, slots=True)
class HostChanged(Event):
    """R7.12: the table has a new host (the host left: the longest-seated player)."""

    kind: ClassVar[str] = "host_changed"
    recorded: ClassVar[bool] = False
    host: str


@dataclass(frozen=True, slots=True)
class SettingsChanged(Event):
    """R7.12: the host's changes, in effect from the next hand (``changes``: name -> value;
    R8.9: ``chat`` is text and always in effect at once)."""

    kind: ClassVar[str] = "settings_changed"
    recorded: ClassVar[bool] = False
    changes: dict[str, int | str]
    pending: bool


@dataclass(frozen=True, slots=True)
class TablePaused(Event):
    """R7.12: the host paused (``paused``) or resumed the table: no new hand while paused."""

    kind: ClassVar[str] = "table_paused"
    recorded: ClassVar[bool] = False
    paused: bool


# -- tournaments (R9) ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TournamentStarted(Event):
    """R9.2, R9.10: the tournament started at this table: the first hand at ``first_hand_ms``,
    the prizes fixed (``payouts``: place 1, 2, ...) and, in a Spin, its multiplier."""

    kind: ClassVar[str] = "tournament_started"
    recorded: ClassVar[bool] = False
    tournament_id: str
    first_hand_ms: int
    prize_pool: int
    payouts: tuple[int, ...]
    multiplier: int | None


@dataclass(frozen=True, slots=True)
class LevelChanged(Event):
    """R9.3: a new blind level, in effect from this hand, until ``ends_ms`` (``None``: the
    last level goes on), and the level after it (``next_level``)."""

    kind: ClassVar[str] = "level_changed"
    recorded: ClassVar[bool] = False
    level: int
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: str
    ends_ms: int | None
    next_level: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class BreakStarted(Event):
    """R9.14: the table finished its hand and pauses for the published break after level
    ``after_level``; play resumes at ``resumes_ms`` (epoch ms) with level ``next_level``. No
    hand, decision clock or level runs until then."""

    kind: ClassVar[str] = "break_started"
    recorded: ClassVar[bool] = False
    after_level: int
    minutes: int
    resumes_ms: int
    next_level: int


@dataclass(frozen=True, slots=True)
class TournamentPaused(Event):
    """R9.15: the director paused the tournament; a hand in progress is played to its end,
    then the table holds (no hand, clock or level runs) until ``tournament_resumed``."""

    kind: ClassVar[str] = "tournament_paused"
    recorded: ClassVar[bool] = False
    reason: str


@dataclass(frozen=True, slots=True)
class TournamentResumed(Event):
    """R9.15: the director resumed play after ``paused_ms``; the level goes on with the time
    it had left, until ``level_ends_ms`` (``None``: the last level)."""

    kind: ClassVar[str] = "tournament_resumed"
    recorded: ClassVar[bool] = False
    paused_ms: int
    level: int
    level_ends_ms: int | None


@dataclass(frozen=True, slots=True)
class LevelExtended(Event):
    """R9.15: the director added ``minutes`` to level ``level``: it now ends at
    ``level_ends_ms`` (and every later level and break starts that much later)."""

    kind: ClassVar[str] = "level_extended"
    recorded: ClassVar[bool] = False
    level: int
    minutes: int
    level_ends_ms: int | None


@dataclass(frozen=True, slots=True)
class TournamentCancelled(Event):
    """R9.15: the director cancelled the tournament after its start; the prizes left were split
    by the published ``policy`` (``equal``, ``chip_count``, ``icm``): ``prizes`` (account chips)
    of this table's players. The table closes."""

    kind: ClassVar[str] = "tournament_cancelled"
    recorded: ClassVar[bool] = False
    policy: str
    prizes: dict[str, int]


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    """R9.5, R9.9: the player is out of the tournament in ``place``, winning ``prize``
    account chips (0 outside the prizes). ``place`` is ``None`` for a player out before the
    serial zone near the money (issue 23: counted on a count shard, no exact count of the
    field at that moment): their place is given with the prizes, in their ``result#`` item
    (``get_tournament``'s ``you``, ``tournament_results``), never a prize."""

    kind: ClassVar[str] = "eliminated"
    recorded: ClassVar[bool] = False
    player_id: str
    place: int | None
    prize: int


@dataclass(frozen=True, slots=True)
class TournamentFinished(Event):
    """The last player standing won the tournament (and ``prize``)."""

    kind: ClassVar[str] = "tournament_finished"
    recorded: ClassVar[bool] = False
    winner: str
    prize: int


@dataclass(frozen=True, slots=True)
class PlayerMoved(Event):
    """R9.7: ``player_id`` moved from ``from_table`` to ``to_table`` (seat ``seat_index``
    there) with their stack, between hands of both tables; told at both tables."""

    kind: ClassVar[str] = "player_moved"
    recorded: ClassVar[bool] = False
    player_id: str
    from_table: str
    to_table: str
    seat_index: int
    stack: int


@dataclass(frozen=True, slots=True)
class FinalTable(Event):
    """R9.7: the players fit at one table: the final table ``table_id`` is formed, seats and
    button drawn at random; this table closes."""

    kind: ClassVar[str] = "final_table"
    recorded: ClassVar[bool] = False
    table_id: str


# -- deals at the final table (R9.16) ------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DealAsked(Event):
    """R9.16: ``player_id`` asks for a deal; ``asked`` have, ``waiting`` not yet. When nobody
    is waiting, play holds after the hand in progress and the deal is offered."""

    kind: ClassVar[str] = "deal_asked"
    recorded: ClassVar[bool] = False
    player_id: str
    asked: tuple[str, ...]
    waiting: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DealOffered(Event):
    """R9.16: play holds; the prizes left (``prizes``, less ``kept`` for the winner to play
    for) split by ICM (``icm``) and by chip count (``chip_count``), each player's amount in
    ``players`` order, from their ``stacks``; every player accepts one split or declines
    before ``ends_ms``."""

    kind: ClassVar[str] = "deal_offered"
    recorded: ClassVar[bool] = False
    offer_id: str
    ends_ms: int
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    prizes: tuple[int, ...]
    kept: int
    icm: tuple[int, ...]
    chip_count: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DealAccepted(Event):
    """R9.16: ``player_id`` accepts the ``split`` (``icm`` or ``chip_count``) of the offer;
    ``accepted``: each player's answer so far."""

    kind: ClassVar[str] = "deal_accepted"
    recorded: ClassVar[bool] = False
    player_id: str
    split: str
    accepted: dict[str, str]


@dataclass(frozen=True, slots=True)
class DealCancelled(Event):
    """R9.16: no deal: ``player_id`` declined (``reason`` ``declined``) or the deal clock ran
    out (``timeout``, ``player_id`` ``None``); play resumes."""

    kind: ClassVar[str] = "deal_cancelled"
    recorded: ClassVar[bool] = False
    reason: str
    player_id: str | None


@dataclass(frozen=True, slots=True)
class DealMade(Event):
    """R9.16: every player accepted the ``split``: each of ``players`` is paid ``amounts``
    (account chips, on the ledger now); play goes on for ``kept`` (0: the tournament ends)."""

    kind: ClassVar[str] = "deal_made"
    recorded: ClassVar[bool] = False
    split: str
    players: tuple[str, ...]
    amounts: tuple[int, ...]
    kept: int


# -- time bank and pre-actions (R8.7, R8.8) ------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TimeBankStarted(Event):
    """R8.7: the seat's decision clock ran out (or its player asked): its time bank runs until
    ``until_ms`` (``bank_ms`` of it); told to the whole table."""

    kind: ClassVar[str] = "time_bank_started"
    recorded: ClassVar[bool] = False
    seat_index: int
    bank_ms: int
    until_ms: int


@dataclass(frozen=True, slots=True)
class PreActionCleared(Event):
    """R8.8: a bet made ``player_id``'s queued pre-action stale (``pre_action``: its kind, and
    ``amount`` for a call), or the turn came at another price: it was dropped, not played. Only
    that player is told."""

    kind: ClassVar[str] = "pre_action_cleared"
    recorded: ClassVar[bool] = False
    player_id: str
    pre_action: str
    amount: int | None
    reason: str
    """``stale``: the price changed before the turn; ``price_changed``: at the turn."""

    @property
    def to_player(self) -> str | None:
        return self.player_id
