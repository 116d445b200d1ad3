""":mod:`naiko_service.hand_records` is the stored record of one finished or cancelled hand
(R10.1), what a player may read of it, and its exports.

A :class:`HandRecord` is built when a hand ends, inside the table write that ends it
(:func:`from_table`, called by :func:`naiko_service.usecases.dealer.after_change`), and travels
on the record (:attr:`naiko_service.records.TableRecord.histories`) to the store, which writes
it in the same transaction as the table, only if no record of that hand exists yet. It keeps
everything every export needs for any reader: the table's state at the hand's end (the engine's
:class:`~naiko.state.TableState` with the hand and its whole log, hidden cards included), the
table's name and kind, when the hand started and ended, each dealt player's net result and a
tournament's details. It is sealed like a table (AES-GCM, :class:`~naiko_service.records.Sealer`)
because it holds every hole card: filtering happens when it is read.

What a reader gets (:func:`for_reader`): the events of the hand's log that reader was shown
(:meth:`naiko.events.Event.visible_to`): their own hole cards, Peek and Sleeve Swap results,
the hands shown at the showdown, and everything public; of a cancelled hand only the public
events. Only players dealt into the hand may read it (:class:`NotInHand`).

>>> from naiko.commands import Fold, SitDown, StartHand
>>> from naiko.engine import apply
>>> from naiko.state import TableConfig, TableState
>>> state = TableState.new(TableConfig(seat_count=3, small_blind=1, big_blind=2))
>>> for seat in range(3):
...     state = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}", stack=100))[0]
>>> state = apply(state, StartHand(deck=tuple(range(52)), button=0))[0]
>>> state = apply(apply(state, Fold(seat_index=0))[0], Fold(seat_index=1))[0]
>>> record = build(state, table_id="t1", table_name="Aludra", kind="cash",
...                started_ms=1_700_000_000_000, ended_ms=1_700_000_009_000)
>>> record.players, record.results
(('p0', 'p1', 'p2'), {'p0': 0, 'p1': -1, 'p2': 1})
>>> [e["kind"] for e in for_reader(record, "p1")["events"]][:4]
['hand_started', 'blind_posted', 'blind_posted', 'hole_cards']
>>> [e["seat_index"] for e in for_reader(record, "p1")["events"] if e["kind"] == "hole_cards"]
[1]
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, time
from typing import TYPE_CHECKING, Any

from naiko.events import Event, HandCancelled, event_from_dict
from naiko.state import TableState
from naiko.views import cards_in, proofs_for

if TYPE_CHECKING:
    from naiko.hand_formats import Tournament

    from .records import Fallback, Sealer, TableRecord

FORMAT_VERSION = 1
"""Version of :meth:`HandRecord.to_document`."""

MAX_SEALED_BYTES = 350_000
"""A sealed record larger than this is stored without its log (:meth:`HandRecord.stub`), so
that no hand can make its table's write fail: a DynamoDB item holds at most 400 KB. The record
holds the same state the table item held one write before (with its fallback), so this is a
safety net, never expected to be used (``docs/histories.md``: measured sizes)."""

EXPORT_FORMATS = ("phh", "pokerstars", "ohh", "json")
"""What a record can be exported to for one reader (``json``: :func:`for_reader`)."""


class NotInHand(Exception):
    """The reader was not dealt into the hand: its record is not theirs to read (R10.1)."""


@dataclass(frozen=True, slots=True)
class HandSeat:
    """A seat dealt into the hand."""

    seat_index: int
    player_id: str
    stack: int
    """Chips in front of the player when the hand was dealt."""
    is_bot: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"seat_index": self.seat_index, "player_id": self.player_id,
                "stack": self.stack, "is_bot": self.is_bot}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandSeat:
        return cls(int(data["seat_index"]), str(data["player_id"]), int(data["stack"]),
                   bool(data.get("is_bot", False)))


@dataclass(frozen=True, slots=True)
class ChatLine:
    """R8.9: one chat message or emote said at the table during a hand and shown to its
    players. User text, public at the table: it is never part of the hand's log nor of any
    export's actions (PokerStars, PHH, OHH), only the record's :attr:`HandRecord.chat`."""

    player_id: str
    seat_index: int | None
    """The speaker's seat, ``None`` for a spectator."""
    at_ms: int
    text: str | None = None
    emote: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"player_id": self.player_id, "seat_index": self.seat_index,
                                "at_ms": self.at_ms}
        if self.text is not None:
            data["text"] = self.text
        if self.emote is not None:
            data["emote"] = self.emote
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatLine:
        seat = data.get("seat_index")
        text, emote = data.get("text"), data.get("emote")
        return cls(str(data["player_id"]), None if seat is None else int(seat),
                   int(data["at_ms"]), None if text is None else str(text),
                   None if emote is None else str(emote))


MAX_CHAT_LINES = 200
"""Chat lines kept with one hand (R8.9): the first ones said; the rate limit lets a table of ten
say about that many in a few minutes' hand."""


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One finished or cancelled hand, as stored (R10.1)."""

    table_id: str
    hand_number: int
    started_ms: int
    ended_ms: int
    table_name: str
    kind: str
    """``cash``, ``private`` or ``tournament`` (:class:`~naiko_service.records.TableKind`)."""
    config: dict[str, Any]
    """The table's :class:`~naiko.state.TableConfig` for this hand (blinds, ante, variant)."""
    seats: tuple[HandSeat, ...]
    """The seats dealt in, in seat order."""
    results: dict[str, int]
    """Player id -> chips won minus chips put in (0 for everyone in a cancelled hand)."""
    state: dict[str, Any] | None
    """:meth:`naiko.state.TableState.to_dict` at the hand's end: the hand with its whole log.
    ``None`` when the log could not be kept (:attr:`lost`)."""
    cancelled: str | None = None
    """R8.6: why the hand was cancelled (``server_error``, ``stalled``,
    ``state_unreadable``), ``None`` for a finished hand."""
    tournament: dict[str, Any] | None = None
    """A tournament's hand: ``tournament_id``, ``level``, ``level_minutes``, ``started_ms``,
    ``multi``, ``table_number``, ``entrants``; at a knockout tournament (R9.13) ``bounties``
    (player -> bounty at the hand's start) and ``knockouts`` (the bounties it paid:
    ``eliminated``, ``bounty``, ``paid``, ``added``)."""
    event: dict[str, Any] | None = None
    """Without a state: the ``hand_cancelled`` event that ended the hand (wire form)."""
    lost: str | None = None
    """Why the log is missing: ``state_unreadable`` (the table's state could not be read, R8.6:
    its fallback knows the players, not the actions) or ``too_large``."""
    chat: tuple[ChatLine, ...] = ()
    """R8.9: what was said at the table during the hand, oldest first. Each line is stored
    on its own next to the record as it is said (:class:`~naiko_service.ports.ChatLog`: the
    table item is not written per message) and joined to the record when it is read
    (:func:`with_chat`); never in the exports' action lines."""

    @property
    def key(self) -> tuple[str, int]:
        """The record's identity: one record per hand of a table."""
        return self.table_id, self.hand_number

    @property
    def players(self) -> tuple[str, ...]:
        """Player ids dealt in, in seat order."""
        return tuple(seat.player_id for seat in self.seats)

    @property
    def variant(self) -> str:
        return str(self.config.get("variant", "NLHE"))

    def seat_of(self, player_id: str) -> int | None:
        """The seat *player_id* was dealt in at, or ``None``."""
        return next((s.seat_index for s in self.seats if s.player_id == player_id), None)

    def table_state(self) -> TableState:
        """The engine state at the hand's end.

        :raises ValueError: If the record has no state (:attr:`lost`).
        """
        if self.state is None:
            raise ValueError(f"the log of hand {self.hand_number} was not kept ({self.lost})")
        return TableState.from_dict(self.state)

    def events(self) -> list[Event]:
        """The hand's log (hidden events included), or just its ``hand_cancelled`` event."""
        if self.state is not None:
            hand = self.state.get("hand") or {}
            return [event_from_dict(e) for e in hand.get("log", ())]
        return [event_from_dict(self.event)] if self.event is not None else []

    def stub(self, lost: str) -> HandRecord:
        """This record without its state (the log), saying why."""
        if self.state is None:
            return self
        cancelled = next((e for e in reversed(self.events()) if isinstance(e, HandCancelled)),
                         None)
        return replace(self, state=None, lost=lost,
                       event=None if cancelled is None else cancelled.to_dict())

    def pointer(self, seat: HandSeat) -> PlayerHand:
        """What *seat*'s player's list of hands shows of this one."""
        return PlayerHand(
            player_id=seat.player_id, table_id=self.table_id, hand_number=self.hand_number,
            started_ms=self.started_ms, ended_ms=self.ended_ms, table_name=self.table_name,
            kind=self.kind, variant=self.variant, seat_index=seat.seat_index,
            net=self.results.get(seat.player_id, 0), cancelled=self.cancelled,
            tournament_id=None if self.tournament is None
            else str(self.tournament["tournament_id"]))

    def pointers(self) -> list[PlayerHand]:
        """One per player dealt in, BOT seats excepted (a BOT never reads its hands)."""
        return [self.pointer(seat) for seat in self.seats if not seat.is_bot]

    def to_document(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "table_id": self.table_id,
                "hand_number": self.hand_number, "started_ms": self.started_ms,
                "ended_ms": self.ended_ms, "table_name": self.table_name, "kind": self.kind,
                "config": self.config, "seats": [s.to_dict() for s in self.seats],
                "results": self.results, "state": self.state, "cancelled": self.cancelled,
                "tournament": self.tournament, "event": self.event, "lost": self.lost,
                **({"chat": [line.to_dict() for line in self.chat]} if self.chat else {})}

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> HandRecord:
        """:raises ValueError: If the document's format is unknown."""
        if doc.get("format") != FORMAT_VERSION:
            raise ValueError(f"unknown hand record format {doc.get('format')!r}")
        return cls(str(doc["table_id"]), int(doc["hand_number"]), int(doc["started_ms"]),
                   int(doc["ended_ms"]), str(doc["table_name"]), str(doc["kind"]),
                   dict(doc["config"]), tuple(HandSeat.from_dict(s) for s in doc["seats"]),
                   {str(k): int(v) for k, v in doc["results"].items()}, doc.get("state"),
                   doc.get("cancelled"), doc.get("tournament"), doc.get("event"),
                   doc.get("lost"),
                   tuple(ChatLine.from_dict(line) for line in doc.get("chat", ())))


def with_chat(record: HandRecord, lines: list[ChatLine]) -> HandRecord:
    """*record* with the chat said during its hand (R8.9), oldest first, at most
    :data:`MAX_CHAT_LINES`."""
    if not lines:
        return record
    ordered = sorted(lines, key=lambda line: line.at_ms)[:MAX_CHAT_LINES]
    return replace(record, chat=tuple(ordered))


@dataclass(frozen=True, slots=True)
class PlayerHand:
    """One entry of a player's list of hands (a small item of its own, so the list is one
    query of the player's partition and never opens a record)."""

    player_id: str
    table_id: str
    hand_number: int
    started_ms: int
    ended_ms: int
    table_name: str
    kind: str
    variant: str
    seat_index: int
    net: int
    """Chips won minus chips put in."""
    cancelled: str | None = None
    tournament_id: str | None = None

    @property
    def cursor(self) -> str:
        """Its place in the player's list, newest last: ``<ended_ms>#<table_id>#<hand>`` (the
        sort key; a page of older hands starts below it)."""
        return player_key(self.ended_ms, self.table_id, self.hand_number)

    def to_dict(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "hand_number": self.hand_number,
                "started_ms": self.started_ms, "ended_ms": self.ended_ms,
                "table_name": self.table_name, "kind": self.kind, "variant": self.variant,
                "seat_index": self.seat_index, "net": self.net, "cancelled": self.cancelled,
                "tournament_id": self.tournament_id}

    @classmethod
    def from_dict(cls, player_id: str, data: dict[str, Any]) -> PlayerHand:
        return cls(player_id, str(data["table_id"]), int(data["hand_number"]),
                   int(data["started_ms"]), int(data["ended_ms"]), str(data["table_name"]),
                   str(data["kind"]), str(data["variant"]), int(data["seat_index"]),
                   int(data["net"]), data.get("cancelled"), data.get("tournament_id"))


def player_key(ended_ms: int, table_id: str, hand_number: int) -> str:
    """The sort key of a player's entry: time first, so a player's hands read newest first.

    >>> player_key(1_700_000_000_000, "t1", 7)
    '1700000000000#t1#0000000007'
    """
    return f"{ended_ms:013d}#{table_id}#{hand_number:010d}"


@dataclass
class Page:
    """A page of a player's hands, newest first; ``next`` is the cursor of the following
    page (``None``: none)."""

    hands: list[PlayerHand] = field(default_factory=list)
    next: str | None = None


# -- building ----------------------------------------------------------------------------------

def build(state: TableState, *, table_id: str, table_name: str, kind: str, started_ms: int,
          ended_ms: int, tournament: dict[str, Any] | None = None) -> HandRecord:
    """The record of the finished (or cancelled) hand of *state*.

    :raises ValueError: If *state* has no finished hand.
    """
    hand = state.hand
    if hand is None or not hand.complete:
        raise ValueError("the table has no finished hand")
    seats = []
    for index, player_id in enumerate(hand.player_ids):
        if player_id is None or not hand.dealt[index]:
            continue
        seat = state.seats[index]
        bot = seat is not None and seat.player_id == player_id and seat.is_bot
        seats.append(HandSeat(index, player_id, hand.starting_stacks[index], bot))
    won: dict[int, int] = {}
    for award in hand.awards:
        for seat_text, chips in award["winners"].items():
            won[int(seat_text)] = won.get(int(seat_text), 0) + int(chips)
    results = {s.player_id: 0 if hand.cancelled else won.get(s.seat_index, 0)
               - hand.committed[s.seat_index] for s in seats}
    cancelled = next((e.reason for e in hand.log if isinstance(e, HandCancelled)), None)
    return HandRecord(table_id, hand.number, started_ms, ended_ms, table_name, kind,
                      state.config.to_dict(), tuple(seats), results, state.to_dict(),
                      cancelled, tournament)


def from_table(record: TableRecord, now: int) -> HandRecord:
    """The record of the hand that just ended at *record* (its write is about to be made)."""
    return build(record.state, table_id=record.table_id, table_name=record.settings.name,
                 kind=record.settings.kind.value,
                 started_ms=now if record.hand_started_ms is None else record.hand_started_ms,
                 ended_ms=now, tournament=tournament_of(record))


def tournament_of(record: TableRecord) -> dict[str, Any] | None:
    """What a tournament table's hand records of its tournament."""
    info = record.tournament
    if info is None:
        return None
    level = max(info.announced_level, 1)
    return {"tournament_id": info.tournament_id, "level": level,
            "level_minutes": info.structure.level(level).minutes,
            "started_ms": info.started_ms, "multi": info.multi, "table_number": info.number,
            "entrants": info.entrants,
            # R9.13: each seat's bounty at the hand's start (the knockouts are added when the
            # hand's end is written, naiko_service.usecases.tournament_bounties)
            **({"bounties": {s.player_id: info.bounty_of(s.player_id)
                             for s in record.state.seats if s is not None}}
               if info.bounty else {})}


def from_fallback(fallback: Fallback, now: int) -> HandRecord | None:
    """R8.6: the record of a hand whose table state could not be read, from what its fallback
    knows (the table before the hand, who was dealt in, when it started): no actions.
    ``None`` for a fallback written before hands were recorded with it."""
    table = fallback.record
    event = fallback.event
    if fallback.started_ms is None:
        return None
    player_ids = event.get("player_ids", [])
    seats = []
    for index in fallback.dealt:
        player_id = player_ids[index] if index < len(player_ids) else None
        if player_id is None:
            continue
        seat = table.state.seats[index]
        here = seat is not None and seat.player_id == player_id
        seats.append(HandSeat(index, player_id, seat.stack if here and seat else 0,
                              bool(here and seat and seat.is_bot)))
    return HandRecord(table.table_id, int(event["hand_number"]), fallback.started_ms, now,
                      table.settings.name, table.settings.kind.value,
                      table.state.config.to_dict(), tuple(seats),
                      {s.player_id: 0 for s in seats}, None, str(event.get("reason")),
                      tournament_of(table), dict(event), "state_unreadable")


# -- storing -------------------------------------------------------------------------------------

def purpose(hand_number: int) -> str:
    """What a hand's record is sealed as, after its table's id (:mod:`.sealing`): the
    associated data is ``<table_id>#hand#<n>``, so it opens only as this hand's record, under
    its table's key."""
    return f"#hand#{hand_number}"


def aad(table_id: str, hand_number: int) -> str:
    """The associated data a record is sealed with: it opens only as this hand's record."""
    return table_id + purpose(hand_number)


def seal(sealer: Sealer, record: HandRecord) -> bytes:
    """The sealed record, under its table's key; one larger than :data:`MAX_SEALED_BYTES` is
    sealed without its log (:meth:`HandRecord.stub`)."""
    table_id, number = record.key
    blob = sealer.seal(record.to_document(), table_id, purpose(number))
    if len(blob) > MAX_SEALED_BYTES:
        blob = sealer.seal(record.stub("too_large").to_document(), table_id, purpose(number))
    return blob


def open_sealed(sealer: Sealer, table_id: str, hand_number: int, blob: bytes) -> HandRecord:
    """:raises Exception: If the blob does not open as that hand's record."""
    return HandRecord.from_document(sealer.open(blob, table_id, purpose(hand_number)))


# -- reading -------------------------------------------------------------------------------------

def visible_events(record: HandRecord, player_id: str | None) -> list[Event]:
    """The events of the hand *player_id* was shown (``None``: an observer): the public ones,
    plus their own private ones (hole cards, Peek, Sleeve Swap); of a cancelled hand only the
    public ones."""
    seat = None if player_id is None else record.seat_of(player_id)
    if record.cancelled is not None:
        return [e for e in record.events() if e.private_to is None and e.to_player is None]
    return [e for e in record.events() if e.visible_to(seat, player_id)]


def for_reader(record: HandRecord, player_id: str) -> dict[str, Any]:
    """The hand as *player_id* may read it (the ``hand`` message's ``hand``).

    :raises NotInHand: If *player_id* was not dealt in.
    """
    seat = record.seat_of(player_id)
    if seat is None:
        raise NotInHand(player_id)
    events = visible_events(record, player_id)
    return {**deck_proofs(record, events), "table_id": record.table_id,
            "hand_number": record.hand_number, "table_name": record.table_name,
            "kind": record.kind, "variant": record.variant,
            "started_ms": record.started_ms, "ended_ms": record.ended_ms,
            "config": dict(record.config), "seat_index": seat,
            "seats": [s.to_dict() for s in record.seats], "results": dict(record.results),
            "cancelled": record.cancelled, "tournament": record.tournament,
            "complete": record.lost is None,
            "events": [e.to_dict() for e in events],
            "chat": [line.to_dict() for line in record.chat]}


def deck_proofs(record: HandRecord, events: list[Event]) -> dict[str, Any]:
    """R10.2: the hand's deck ``commitment`` and the ``proofs`` of every card *events* show
    (the reader's own cards, the board, a Peek, a swap, the hands shown), so that a stored hand
    can be checked afterwards (``naiko-verify``); ``{}`` for a hand dealt without one."""
    if record.state is None:
        return {}
    hand = record.table_state().hand
    if hand is None or hand.number != record.hand_number or hand.commitment is None:
        return {}
    return {"commitment": hand.commitment,
            "proofs": proofs_for(hand, cards_in(events))}


# -- exports -------------------------------------------------------------------------------------

def site_number(text: str) -> int:
    """A stable positive number for an id (PokerStars hand and tournament numbers are numbers,
    unique on the site; ours are text).

    >>> site_number("t1#7") == site_number("t1#7") != site_number("t1#8")
    True
    """
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) + 1


def export_name(text: str) -> str:
    """A table name as the PokerStars format can carry it (no straight quotes)."""
    return text.replace("'", "\N{RIGHT SINGLE QUOTATION MARK}")


def _tournament(record: HandRecord) -> Tournament | None:
    from naiko.hand_formats import Tournament, TournamentType

    info = record.tournament
    if info is None:
        return None
    return Tournament(number=site_number(str(info["tournament_id"])), level=int(info["level"]),
                      name=str(info["tournament_id"]),
                      started=datetime.fromtimestamp(int(info["started_ms"]) / 1000, UTC),
                      type=TournamentType.MULTI_TABLE if info.get("multi")
                      else TournamentType.SIT_AND_GO,
                      level_minutes=int(info.get("level_minutes", 0)))


def export(record: HandRecord, fmt: str, reader: str | None) -> str:
    """The hand in *fmt* (:data:`EXPORT_FORMATS`) as *reader* may see it (``None``: an
    observer, who sees the hands shown at the showdown and nothing private).

    :raises NotInHand: If *reader* was not dealt in.
    :raises ValueError: If the hand has no form in *fmt* (a cancelled hand, a record without
        its log) or *fmt* is unknown. ``code`` names why when the
        engine's exporters raise (:class:`naiko.hand_formats.HandExportError`,
        :class:`naiko.phh.PHHError`).
    """
    if reader is not None and record.seat_of(reader) is None:
        raise NotInHand(reader)
    if fmt == "json":
        if reader is None:
            raise ValueError("the json export is one player's view: name a player")
        return json.dumps(for_reader(record, reader), ensure_ascii=False) + "\n"
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {EXPORT_FORMATS}")
    # The exporters load with the first export, never on a table's path (cold start:
    # docs/deploy.md "7. Cold start")
    from naiko.hand_formats import dumps_ohh, to_ohh, to_pokerstars

    state = record.table_state()
    started = datetime.fromtimestamp(record.started_ms / 1000, UTC)
    hand_id = site_number(f"{record.table_id}#{record.hand_number}")
    if fmt == "pokerstars":
        return to_pokerstars(state, hand_id=hand_id, table_name=export_name(record.table_name),
                             started=started, hero=reader, tournament=_tournament(record))
    if fmt == "ohh":
        return dumps_ohh([to_ohh(state, hand_id=hand_id,
                                 table_name=export_name(record.table_name), started=started,
                                 hero=reader, tournament=_tournament(record))])
    return _phh(record, state, reader, started)


def _phh(record: HandRecord, state: TableState, reader: str | None, started: datetime) -> str:
    """PHH for one reader: the hole cards they were not shown are written unknown (``??``
    per card, as the PHH standard writes hands nobody saw), and so are, in a Naiko hand's
    extension, the cards of other players' peeks and swaps (:func:`naiko.phh.for_reader`)."""
    from naiko import phh

    extra: dict[str, Any] = {"table": record.table_name, "year": started.year,
                             "month": started.month, "day": started.day,
                             "time": time(started.hour, started.minute, started.second),
                             "time_zone": "UTC"}
    history = phh.from_state(state, extra=extra)
    order = [int(s) - 1 for s in history.extra["seats"]]
    own = None if reader is None else record.seat_of(reader)
    return phh.dumps(phh.for_reader(history, order.index(own) if own in order else None))
