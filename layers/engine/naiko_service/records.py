""":mod:`naiko_service.records` is what the service stores per table, and how it is stored.

One table is one item. Everything the game needs (the engine state with its hidden deck and hole
cards, the connections, the recent request ids, its pending timers) travels in one JSON document
that is compressed and then sealed with AES-GCM under the table's own key
(:class:`~naiko_service.sealing.Sealer`), so reading the database does not reveal the deck. Only
what indexes need stays in clear: the version, the lobby summary of a public table with a free
seat, and the earliest timer deadline.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from naiko.state import TableState
from naiko.time_bank import TimeBank
from naiko.tournaments.structures import BlindStructure

from .port_errors import UnreadableTable
from .sealing import Sealer as Sealer  # re-exported: every store imports it from here
from .sealing import UnknownKeyVersion as UnknownKeyVersion

if TYPE_CHECKING:
    from .hand_records import HandRecord

RECENT_TIMERS_KEPT = 8
"""Timer execution tokens remembered per table, to answer a duplicated execution."""

RECENT_REQUESTS_KEPT = 16
"""Request ids (per player, ``player/request_id``) remembered per table, to answer a replayed
request without applying it twice."""

FORMAT_VERSION = 1


class TableKind(StrEnum):
    """What kind of table an item is (R7.1, R7.2)."""

    CASH = "cash"
    """A public cash table, listed in the lobby while a seat is free."""
    PRIVATE = "private"
    """A host's table for invited players only; never listed."""
    TOURNAMENT = "tournament"
    """A table of a tournament: tournament chips, seats given by the tournament (R9)."""


class Hold(StrEnum):
    """Why a scheduled tournament's table does not deal its next hand (R9.7, R9.8):
    :attr:`TournamentSeat.hold`. Its value is in the table's ``hold`` timer's token."""

    ALONE = "alone"
    """One player with chips is left here: the others come to this table (R9.7)."""
    MOVE = "move"
    """A player of its waits to move to a table still playing a hand (R9.7)."""
    BREAK = "break"
    """The table is broken: its players are leaving (R9.7)."""
    FINAL = "final"
    """The final table is being formed (R9.7)."""
    HFH = "hfh"
    """Hand-for-hand: waiting for the other tables to finish the round (R9.8)."""
    PAUSE = "pause"
    """A published break (R9.14): the table finished its hand and waits for play to resume."""
    DEAL = "deal"
    """A deal is offered (R9.16): the table finished its hand and waits for the players'
    answers until the deal clock runs out (its ``hold`` timer)."""
    DIRECTOR = "director"
    """The director paused the tournament (R9.15): the table finished its hand and waits for
    the director to resume play."""


class TimerKind(StrEnum):
    """What a table timer is for; its token names the exact turn or window it was set for."""

    DECISION = "decision"
    """The decision clock of the seat to act (R8.1)."""
    GRACE = "grace"
    """A disconnected player's 20 more seconds on turn (R8.2)."""
    WINDOW = "window"
    """A Seal Shield response window closes (R6.5)."""
    NEXT_HAND = "next_hand"
    """The pause between hands ends."""
    SIT_OUT_LIMIT = "sit_out_limit"
    """A player sitting out 10 minutes is removed (R7.9)."""
    BOT = "bot"
    """A BOT seat acts after its think delay (R8.4)."""
    BOT_RESPOND = "bot_respond"
    """A BOT seat answers a Shield window aimed at it (R8.4)."""
    OFFER = "offer"
    """A seat held for the first of the waiting list is given up after 30 s (R7.10)."""
    IDLE_CLOSE = "idle_close"
    """A table nobody has sat at for 10 minutes closes (its opener may open another)."""
    STALLED = "stalled"
    """A hand that has not progressed for 5 minutes is cancelled (R8.6)."""
    HOLD = "hold"
    """A scheduled tournament's table that holds its next hand (a move, a break, the final
    table, hand-for-hand: R9.7, R9.8) looks again. Hand-for-hand's ``hold:hfh:<round>`` is
    also the token the round's closer starts, so the release comes at once; the timer itself
    backs up a lost release."""
    LEVEL = "level"
    """A tournament's next blind level starts: recorded for the lobby and the log (R9.3).
    A tournament timer (``T:<tournament id>``), never on a table."""
    START = "start"
    """A scheduled tournament's start time (R9.2): it starts, or is cancelled. A tournament
    timer."""
    LATE_CLOSE = "late_close"
    """Late registration closes (R9.11): the prizes are fixed. A tournament timer."""
    NOTIFY_START = "notify_start"
    """A scheduled tournament starts in 5 minutes: its registered players with no live
    connection get a push notification (issue 25). A tournament timer, set when the start
    time is, only where notifications are on."""
    PAYOUT = "payout"
    """A tournament's final places have prizes not paid yet (R9.9): pay them. A tournament
    timer, never on a table."""
    TIME_BANK = "time_bank"
    """The decision clock ran out (or the player asked): the player's time bank runs until
    this deadline, then R8.1 applies (R8.7)."""
    WAKE = "wake"
    """Not a timer: the marker of the table's one armed wake-up execution (docs/timers.md)."""


DEALT_IN_TIMERS = (TimerKind.DECISION, TimerKind.TIME_BANK, TimerKind.GRACE)
"""Timers that belong to the turn of the seat to act."""


@dataclass(frozen=True, slots=True)
class TableSettings:
    """The host's choices for a table (besides the engine's :class:`~naiko.state.TableConfig`)."""

    name: str
    host: str
    min_buy_in: int
    max_buy_in: int
    decision_ms: int = 20_000
    """The decision clock (R8.1)."""
    disconnect_grace_ms: int = 20_000
    """Extra time a disconnected player on turn gets before the automatic decision (R8.2)."""
    pause_ms: int = 3_000
    """The pause between hands."""
    sit_out_limit_ms: int = 600_000
    """Sitting out this long removes the player from the table (R7.9: 10 minutes)."""
    kind: TableKind = TableKind.CASH
    invited: tuple[str, ...] = ()
    """Private tables (R7.2): only these players (and the host) may sit."""
    bots: bool = False
    min_players: int = 3
    """R7.7: players seated for a new table to deal its first hand (3 at a public cash table; a
    private table's host sets it, 2 or more)."""
    quick: bool = False
    """Opened by quick seat (R7.10): the room's table, counted among its opener's open tables
    only while they sit there."""
    deep_stack: bool = False
    """R7.11: a deep-stack table allows no ratholing: a player who left it and returns within 30
    minutes buys in for at least what they left with (or all they have, if less). At other
    tables such a return only counts on the day's ratholing counter."""
    bot_level: str = "regular"
    """R8.4, issue 24: how the table's BOTs play (:data:`naiko.bot_styles.LEVELS`): "beginner",
    "regular", "strong", or "old" (the first bot, :mod:`naiko.bots`); each seat's style varies
    (:func:`naiko.bot_styles.profile_for_seat`). Tournament tables use "old"."""
    chat: str = "on"
    """R8.9: the table's chat: ``on``, ``apart`` (during a hand, seated players and spectators
    read only their own group) or ``off`` (:data:`naiko_service.protocol.ChatSetting`)."""
    time_bank: TimeBank | None = None
    """R8.7: the table's published time bank (a tournament's from its terms); ``None``: none,
    the clock alone decides (R8.1)."""

    @property
    def private(self) -> bool:
        """Whether only invited players may sit (R7.2)."""
        return self.kind is TableKind.PRIVATE

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind.value
        data["invited"] = list(self.invited)
        data["time_bank"] = None if self.time_bank is None else self.time_bank.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableSettings:
        bank = data.get("time_bank")
        return cls(**{**data, "kind": TableKind(data["kind"]),
                      "invited": tuple(data.get("invited", ())),
                      "time_bank": None if bank is None else TimeBank.from_dict(bank)})


@dataclass(slots=True)
class Timer:
    """A pending timer of a table: it fires ``(table_id, token)`` at ``due_ms``."""

    token: str
    kind: TimerKind
    due_ms: int
    seat_index: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"token": self.token, "kind": self.kind, "due_ms": self.due_ms,
                "seat_index": self.seat_index}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Timer:
        return cls(str(data["token"]), TimerKind(data["kind"]), int(data["due_ms"]),
                   data.get("seat_index"))


@dataclass(frozen=True, slots=True)
class DealOffer:
    """R9.16: the splits offered to the players left at the final table
    (:func:`naiko.tournaments.icm.deal_splits`), each player's amount shown to all."""

    offer_id: str
    """Names this offer (the hand after which it was made): an answer names the offer it is
    for, and the deal clock's token carries it."""
    ends_ms: int
    """The deal clock: the offer ends unaccepted at this time (epoch ms)."""
    players: tuple[str, ...]
    """The players left, in seat order."""
    stacks: tuple[int, ...]
    prizes: tuple[int, ...]
    """The prizes shared (place 1, 2, ... of the places left; the first less :attr:`kept`)."""
    kept: int
    """What is kept for the winner to play for (0: the tournament ends with the deal)."""
    splits: dict[str, tuple[int, ...]]
    """``icm`` and ``chip_count``: each player's amount, in :attr:`players` order."""
    accepted: dict[str, str] = field(default_factory=dict)
    """Player -> the split they accepted (a player may change their mind until all agree)."""

    def to_dict(self) -> dict[str, Any]:
        return {"offer_id": self.offer_id, "ends_ms": self.ends_ms,
                "players": list(self.players), "stacks": list(self.stacks),
                "prizes": list(self.prizes), "kept": self.kept,
                "splits": {k: list(v) for k, v in self.splits.items()},
                "accepted": dict(self.accepted)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DealOffer:
        return cls(str(data["offer_id"]), int(data["ends_ms"]),
                   tuple(str(x) for x in data["players"]), tuple(int(x) for x in data["stacks"]),
                   tuple(int(x) for x in data["prizes"]), int(data["kept"]),
                   {str(k): tuple(int(x) for x in v) for k, v in data["splits"].items()},
                   {str(k): str(v) for k, v in data.get("accepted", {}).items()})


@dataclass(frozen=True, slots=True)
class Deal:
    """R9.16 at a final table: who asked for a deal, the offer once everyone did, and whether
    a deal was made (then no other is asked for)."""

    asked: tuple[str, ...] = ()
    offer: DealOffer | None = None
    made: str | None = None
    """The split applied (``icm`` or ``chip_count``): the deal is done."""
    log_seq: int = 0
    """The table's deal log entries so far (``log#<ms>#d#<table>#<n>``: no tournament write)."""

    def to_dict(self) -> dict[str, Any]:
        return {"asked": list(self.asked),
                "offer": None if self.offer is None else self.offer.to_dict(),
                "made": self.made, "log_seq": self.log_seq}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Deal:
        offer = data.get("offer")
        return cls(tuple(str(x) for x in data.get("asked", [])),
                   None if offer is None else DealOffer.from_dict(offer), data.get("made"),
                   int(data.get("log_seq", 0)))


@dataclass(frozen=True, slots=True)
class TournamentSeat:
    """What a tournament's table keeps of its tournament: enough to deal every hand at the
    right level without reading the tournament item (R9.3), and, at a scheduled tournament's
    tables, where it stands in the tournament's seating (R9.7, R9.8)."""

    tournament_id: str
    started_ms: int
    structure: BlindStructure
    announced_level: int = 0
    """The level of the last hand dealt here (announced to the table when it began, R9.3)."""
    level_ends_ms: int | None = None
    """When the level after :attr:`announced_level` starts (``None``: the last level)."""
    payouts: tuple[int, ...] = ()
    """The prize of place 1, 2, ... (shown at the table)."""
    entrants: int = 0
    players_left: int = 0
    """Players still in the tournament, as of this table's last elimination or start."""
    multiplier: int | None = None
    """A Spin's multiplier (R9.10)."""
    first_button: int | None = None
    """The first hand's button, drawn at random when the tournament starts (R9.2, R2.6)."""
    number: int = 1
    """The table's number in its tournament (the highest breaks first, R9.7)."""
    multi: bool = False
    """A scheduled tournament's table: balanced, broken, held hand-for-hand (R9.7, R9.8)."""
    hold: Hold | None = None
    """Why the table does not deal its next hand (:class:`Hold`); ``None``: it deals when it
    may."""
    waiting: frozenset[int] = frozenset()
    """Seats whose players arrived on the small blind or between the button and the small
    blind: they wait, without posting, until the big blind reaches them (R9.7)."""
    arrived: frozenset[int] = frozenset()
    """Seats whose players arrived since the last hand: the next deal decides (R9.7)."""
    dealt_round: int | None = None
    """The hand-for-hand round of the hand dealt last (``None``: dealt outside hand-for-hand)."""
    hfh_done: int | None = None
    """The last hand-for-hand round this table reported finished."""
    deal: Deal | None = None
    """R9.16: a deal asked for, offered or made at this (final) table."""
    bounty: int = 0
    """R9.13: the published bounty of an entry (``0``: no knockout), shown for every seat."""
    bounties: tuple[tuple[str, int], ...] = ()
    """R9.13, progressive knockout: the players here whose bounty grew, with their bounty, as
    of this table's last write that read the tournament (shown at the table)."""

    def bounty_of(self, player_id: str) -> int:
        """R9.13: *player_id*'s bounty as this table knows it (``0`` without knockout)."""
        return dict(self.bounties).get(player_id, self.bounty)

    def to_dict(self) -> dict[str, Any]:
        return {"tournament_id": self.tournament_id, "started_ms": self.started_ms,
                "structure": self.structure.to_dict(), "announced_level": self.announced_level,
                "level_ends_ms": self.level_ends_ms, "payouts": list(self.payouts),
                "entrants": self.entrants, "players_left": self.players_left,
                "multiplier": self.multiplier, "first_button": self.first_button,
                "number": self.number, "multi": self.multi, "hold": self.hold,
                "waiting": sorted(self.waiting), "arrived": sorted(self.arrived),
                "dealt_round": self.dealt_round, "hfh_done": self.hfh_done,
                **({} if self.deal is None else {"deal": self.deal.to_dict()}),
                **({"bounty": self.bounty, "bounties": dict(self.bounties)} if self.bounty
                   else {})}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentSeat:
        def optional(name: str) -> int | None:
            value = data.get(name)
            return None if value is None else int(value)

        return cls(str(data["tournament_id"]), int(data["started_ms"]),
                   BlindStructure.from_dict(data["structure"]), int(data["announced_level"]),
                   optional("level_ends_ms"),
                   tuple(int(x) for x in data.get("payouts", [])), int(data.get("entrants", 0)),
                   int(data.get("players_left", 0)), optional("multiplier"),
                   optional("first_button"), int(data.get("number", 1)),
                   bool(data.get("multi", False)),
                   None if data.get("hold") is None else Hold(data["hold"]),
                   frozenset(int(x) for x in data.get("waiting", [])),
                   frozenset(int(x) for x in data.get("arrived", [])),
                   optional("dealt_round"), optional("hfh_done"),
                   None if data.get("deal") is None else Deal.from_dict(data["deal"]),
                   int(data.get("bounty", 0)),
                   tuple(sorted((str(k), int(v))
                                for k, v in data.get("bounties", {}).items())))


@dataclass(slots=True)
class Room:
    """How a cash or private table is run besides the game (R7.10, R7.12): its waiting list and
    seat offers, the host's invite code and pending changes, pause and close, who sat when, and
    which account funds a seat (a BOT's chips come from the house)."""

    waitlist: list[str] = field(default_factory=list)
    """R7.10: players waiting for a seat, first in line first."""
    offers: dict[str, int] = field(default_factory=dict)
    """R7.10: player -> until when (ms) a freed seat is held for them (30 s)."""
    invite_code: str | None = None
    """R7.12: the private table's current invite code (revocable), if any."""
    paused: bool = False
    """R7.12: the host paused the table: no new hand starts."""
    closing: bool = False
    """R7.12: the host closed the table during a hand: it closes when the hand ends."""
    pending: dict[str, int] = field(default_factory=dict)
    """R7.12: the host's changes for the next hand (``small_blind``, ``big_blind``,
    ``decision_ms``, ``min_players``)."""
    seated_since: dict[str, int] = field(default_factory=dict)
    """When each seated player sat down (host succession: the longest seated, R7.12)."""
    funding: dict[str, str] = field(default_factory=dict)
    """Seated player -> the account their chips come from and go back to, when it is not their
    own (a BOT's: the house's bot account)."""
    stopped: bool = False
    """R7.7: the table stopped dealing (when a hand was due, fewer than two players could play):
    like a new table, it waits for its minimum to start (3 at a public table) before dealing
    again; a table that keeps dealing goes on with 2."""

    def copy(self) -> Room:
        return Room(list(self.waitlist), dict(self.offers), self.invite_code, self.paused,
                    self.closing, dict(self.pending), dict(self.seated_since),
                    dict(self.funding), self.stopped)

    def to_dict(self) -> dict[str, Any]:
        return {"waitlist": list(self.waitlist), "offers": dict(self.offers),
                "invite_code": self.invite_code, "paused": self.paused,
                "closing": self.closing, "pending": dict(self.pending),
                "seated_since": dict(self.seated_since), "funding": dict(self.funding),
                **({"stopped": True} if self.stopped else {})}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Room:
        return cls([str(p) for p in data.get("waitlist", [])],
                   {str(k): int(v) for k, v in data.get("offers", {}).items()},
                   data.get("invite_code"), bool(data.get("paused", False)),
                   bool(data.get("closing", False)),
                   {str(k): int(v) for k, v in data.get("pending", {}).items()},
                   {str(k): int(v) for k, v in data.get("seated_since", {}).items()},
                   {str(k): str(v) for k, v in data.get("funding", {}).items()},
                   bool(data.get("stopped", False)))

    def account_of(self, player_id: str) -> str:
        """The account *player_id*'s chips at this table belong to."""
        return self.funding.get(player_id, player_id)


@dataclass(slots=True)
class TableRecord:
    """Everything stored for one table."""

    table_id: str
    version: int
    settings: TableSettings
    state: TableState
    created_ms: int
    connections: dict[str, str] = field(default_factory=dict)
    """player_id -> connection_id of everyone watching (seated players and spectators)."""
    disconnected: dict[str, int] = field(default_factory=dict)
    """Seated players whose connection dropped -> since when (ms). Their seat is kept (R8.3)."""
    sitting_out_since: dict[str, int] = field(default_factory=dict)
    """Players sitting out -> since when (R7.9)."""
    sit_out_after_hand: list[str] = field(default_factory=list)
    """Players the clock decided for while disconnected: sat out when the hand ends (R8.2)."""
    recent_requests: dict[str, int] = field(default_factory=dict)
    """``player/request_id`` -> the :attr:`seq` that applied it (the last
    :data:`RECENT_REQUESTS_KEPT`)."""
    timers: list[Timer] = field(default_factory=list)
    """Pending timers; a fired timer acts only while its token is listed here."""
    left_stacks: dict[str, dict[str, int]] = field(default_factory=dict)
    """R7.11: player_id -> {"stack", "left_ms", "counts"} of players who left within the last 30
    minutes with 100 big blinds or more (``counts``: 1, a return counts on the day's ratholing
    counter) or, at a deep-stack table, with any stack (``counts``: 0 below 100 big blinds);
    older entries are dropped whenever one is added (:func:`.usecases.room.note_leaving`)."""
    hands_closed: int = 0
    """The last hand whose end-of-hand chores ran."""
    seq: int = 0
    """The version players see: +1 for every write that is fanned out (``version`` in every
    message), so a gap means a missed update. Writes nobody sees (a spectator subscribing or
    leaving, gone connections dropped) leave it unchanged; ``version`` (the item's lock) moves
    on every write."""
    opened_by: str | None = None
    """The player whose open-table count this table holds (released when it closes)."""
    empty_since: int | None = None
    """Since when nobody is seated (an empty table closes after a while), ``None`` if seated."""
    closed: bool = False
    """Closed tables take nobody and are never listed."""
    room: Room = field(default_factory=Room)
    """Waiting list, offers, invite code, host controls (cash and private tables)."""
    tournament: TournamentSeat | None = None
    """A tournament's table: which tournament, and what it deals with (R9)."""
    recent_timers: dict[str, int] = field(default_factory=dict)
    """Tokens of executions that acted -> the version they wrote (the last
    :data:`RECENT_TIMERS_KEPT`): a duplicated execution is answered without acting again."""
    hand_started_ms: int | None = None
    """When the current (or last) hand was dealt: its record's start time (R10.1)."""
    banks: dict[str, list[int]] = field(default_factory=dict)
    """R8.7: seated player -> ``[bank ms, mark]``: what is left of their time bank, and the
    hand (cash) or level (tournament) it was last topped up at (:mod:`.usecases.time_banks`).
    A tournament move takes it along."""
    bank_since: dict[str, int] = field(default_factory=dict)
    """R8.7: player -> since when (ms) their time bank runs: charged when their turn ends."""
    pre_actions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """R8.8: player -> their one queued pre-action ``{"kind", "amount", "hand"}`` (only they
    see it, :mod:`.usecases.pre_actions`)."""
    fallback: Fallback | None = None
    """Not part of the document: while a hand is in progress, the table as it would be with the
    hand cancelled (R8.6), which the store seals on its own next to the state."""
    histories: list[HandRecord] = field(default_factory=list)
    """Not part of the document: the records of hands that ended in this write (R10.1), which
    the store writes in the same transaction as the table, each only if it is not stored yet
    (:class:`~naiko_service.ports.HistoryStored`). Kept by :meth:`copy` (a change that is
    refused after a deadline ended a hand still writes that hand's record)."""

    def copy(self) -> TableRecord:
        return TableRecord(
            self.table_id, self.version, self.settings, self.state.copy(), self.created_ms,
            dict(self.connections), dict(self.disconnected), dict(self.sitting_out_since),
            list(self.sit_out_after_hand), dict(self.recent_requests),
            [Timer(t.token, t.kind, t.due_ms, t.seat_index) for t in self.timers],
            {k: dict(v) for k, v in self.left_stacks.items()}, self.hands_closed,
            self.seq, self.opened_by, self.empty_since, self.closed, self.room.copy(),
            self.tournament, dict(self.recent_timers), self.hand_started_ms,
            banks={k: list(v) for k, v in self.banks.items()}, bank_since=dict(self.bank_since),
            pre_actions={k: dict(v) for k, v in self.pre_actions.items()},
            histories=list(self.histories))

    def remember_request(self, request_id: str, version: int) -> None:
        self.recent_requests[request_id] = version
        while len(self.recent_requests) > RECENT_REQUESTS_KEPT:
            del self.recent_requests[next(iter(self.recent_requests))]

    def remember_timer(self, token: str, version: int) -> None:
        self.recent_timers[token] = version
        while len(self.recent_timers) > RECENT_TIMERS_KEPT:
            del self.recent_timers[next(iter(self.recent_timers))]

    def seat_of(self, player_id: str) -> int | None:
        for index, seat in enumerate(self.state.seats):
            if seat is not None and seat.player_id == player_id:
                return index
        return None

    def next_due_ms(self) -> int | None:
        return min((t.due_ms for t in self.timers), default=None)

    def to_document(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "settings": self.settings.to_dict(),
            "state": self.state.to_dict(),
            "created_ms": self.created_ms,
            "connections": self.connections,
            "disconnected": self.disconnected,
            "sitting_out_since": self.sitting_out_since,
            "sit_out_after_hand": self.sit_out_after_hand,
            "recent_requests": self.recent_requests,
            "timers": [t.to_dict() for t in self.timers],
            "left_stacks": self.left_stacks,
            "hands_closed": self.hands_closed,
            "seq": self.seq,
            "opened_by": self.opened_by,
            "empty_since": self.empty_since,
            "closed": self.closed,
            "room": self.room.to_dict(),
            "tournament": self.tournament.to_dict() if self.tournament else None,
            "recent_timers": self.recent_timers,
            "hand_started_ms": self.hand_started_ms,
            "banks": self.banks,
            "bank_since": self.bank_since,
            "pre_actions": self.pre_actions,
        }

    @classmethod
    def from_document(cls, table_id: str, version: int, doc: dict[str, Any]) -> TableRecord:
        if doc.get("format") != FORMAT_VERSION:
            raise ValueError(f"unknown table document format {doc.get('format')!r}")
        return cls(
            table_id=table_id, version=version,
            settings=TableSettings.from_dict(doc["settings"]),
            state=TableState.from_dict(doc["state"]), created_ms=int(doc["created_ms"]),
            connections=dict(doc["connections"]), disconnected=dict(doc["disconnected"]),
            sitting_out_since=dict(doc["sitting_out_since"]),
            sit_out_after_hand=list(doc["sit_out_after_hand"]),
            recent_requests=dict(doc["recent_requests"]),
            timers=[Timer.from_dict(t) for t in doc["timers"]],
            left_stacks={k: dict(v) for k, v in doc.get("left_stacks", {}).items()},
            hands_closed=int(doc.get("hands_closed", 0)),
            seq=int(doc.get("seq", 0)),
            opened_by=doc.get("opened_by"), empty_since=doc.get("empty_since"),
            closed=bool(doc.get("closed", False)), room=Room.from_dict(doc.get("room", {})),
            tournament=(TournamentSeat.from_dict(doc["tournament"]) if doc.get("tournament")
                        else None),
            recent_timers={str(k): int(v) for k, v in doc.get("recent_timers", {}).items()},
            hand_started_ms=doc.get("hand_started_ms"),
            banks={str(k): [int(x) for x in v] for k, v in doc.get("banks", {}).items()},
            bank_since={str(k): int(v) for k, v in doc.get("bank_since", {}).items()},
            pre_actions={str(k): dict(v) for k, v in doc.get("pre_actions", {}).items()})

    def summary(self) -> TableSummary:
        config = self.state.config
        seated = sum(1 for s in self.state.seats if s is not None)
        return TableSummary(
            table_id=self.table_id, name=self.settings.name, variant=config.variant.value,
            small_blind=config.small_blind, big_blind=config.big_blind,
            seat_count=config.seat_count, seated=seated, min_buy_in=self.settings.min_buy_in,
            max_buy_in=self.settings.max_buy_in, created_ms=self.created_ms,
            deep_stack=self.settings.deep_stack)

    @property
    def stakes(self) -> str:
        """The quick-seat key of the table's game (:func:`stakes_key`)."""
        config = self.state.config
        return stakes_key(config.variant.value, config.small_blind, config.big_blind)

    @property
    def listed(self) -> bool:
        """Whether the lobby lists it: public with a free seat."""
        return (not self.closed and self.settings.kind is TableKind.CASH
                and self.free_seats > 0)

    @property
    def free_seats(self) -> int:
        """Empty seats not held for a player of the waiting list (R7.10)."""
        empty = sum(1 for s in self.state.seats if s is None)
        return max(0, empty - len(self.room.offers))


@dataclass(frozen=True, slots=True)
class Fallback:
    """R8.6: what to write if the table's state cannot be read: the table with its hand
    cancelled (``record``, whose state has no hand), the notice for its players, and the chips
    owed to players who left during the hand. Sealed on its own, so that whatever makes the
    hand unreadable cannot reach it."""

    record: TableRecord
    event: dict[str, Any]
    """The ``hand_cancelled`` event (wire form) to send to the players."""
    moves: tuple[tuple[str, int], ...] = ()
    """(player_id, chips) owed to players who left the table during the hand."""
    dealt: tuple[int, ...] = ()
    """R10.1: the seats dealt into the hand (its record names them, :mod:`.hand_records`)."""
    started_ms: int | None = None
    """R10.1: when the hand was dealt."""

    def to_document(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "record": self.record.to_document(),
                "event": self.event, "moves": [list(m) for m in self.moves],
                "dealt": list(self.dealt), "started_ms": self.started_ms}

    @classmethod
    def from_document(cls, table_id: str, version: int, doc: dict[str, Any]) -> Fallback:
        if doc.get("format") != FORMAT_VERSION:
            raise ValueError(f"unknown fallback format {doc.get('format')!r}")
        started = doc.get("started_ms")
        return cls(TableRecord.from_document(table_id, version, doc["record"]),
                   dict(doc["event"]), tuple((str(p), int(a)) for p, a in doc["moves"]),
                   tuple(int(s) for s in doc.get("dealt", ())),
                   None if started is None else int(started))


FALLBACK_AAD_SUFFIX = "#fallback"
"""The fallback is sealed with the table id + this suffix as associated data, so it can never
be opened as (or swapped with) the state itself."""


def stakes_key(variant: str, small_blind: int, big_blind: int) -> str:
    """How quick seat finds tables of a game (R7.10): ``"NLHE:1/2"``."""
    return f"{variant}:{small_blind}/{big_blind}"


LOBBY_WINDOW = 200
"""The newest listed tables the lobby reads before ordering them (:func:`lobby_order`)."""


def lobby_order(summaries: list[TableSummary]) -> list[TableSummary]:
    """The lobby's order: tables with players first, then empty ones (a flood of one player's
    empty tables never hides the tables people play at), each group newest first (then by
    id: a total order, which the lobby's pages follow)."""
    return sorted(summaries, key=lambda s: (s.seated == 0, -s.created_ms, s.table_id))


@dataclass(frozen=True, slots=True)
class TableSummary:
    """What the lobby shows of a table."""

    table_id: str
    name: str
    variant: str
    small_blind: int
    big_blind: int
    seat_count: int
    seated: int
    min_buy_in: int
    max_buy_in: int
    created_ms: int
    deep_stack: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableSummary:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def seal_fallback(sealer: Sealer, record: TableRecord) -> bytes | None:
    """The sealed fallback of *record* (R8.6), or ``None`` when it has none."""
    if record.fallback is None:
        return None
    return sealer.seal(record.fallback.to_document(), record.table_id, FALLBACK_AAD_SUFFIX)


def open_record(sealer: Sealer, table_id: str, version: int, blob: bytes,
                fallback: bytes | None) -> TableRecord:
    """Open a stored table.

    :raises UnreadableTable: If the state cannot be opened or read (R8.6), with the fallback
        when it can be.
    :raises UnknownKeyVersion: If the state was sealed with a key version the keyring does not
        hold: a configuration error, not a damaged table (its hand is not cancelled).
    """
    try:
        return TableRecord.from_document(table_id, version, sealer.open(blob, table_id))
    except UnknownKeyVersion:
        raise
    except Exception as exc:  # a bad tag, a bad document, a bug in from_document: all unreadable
        rescue = None
        if fallback is not None:
            try:
                doc = sealer.open(fallback, table_id, FALLBACK_AAD_SUFFIX)
                rescue = Fallback.from_document(table_id, version, doc)
            except Exception:
                rescue = None
        raise UnreadableTable(table_id, version, rescue) from exc
