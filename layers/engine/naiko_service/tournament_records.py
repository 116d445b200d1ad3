""":mod:`naiko_service.tournament_records` is what the service stores per tournament (R9): one
item for the tournament itself (its terms, fixed at creation, and its progress) and items of
their own for what grows with the field: each registration and each result (a finishing place,
its prize and whether it was paid), and the tournament's log. Its tables are ordinary table
items that name their tournament (:class:`~.records.TournamentSeat`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from naiko.tournaments.prizes import SpinPrize
from naiko.tournaments.structures import TournamentKind, TournamentTerms

from .records import Timer

TOURNAMENT_PREFIX = "T:"
"""Timer executions of a tournament carry ``T:<tournament id>`` where a table's carry its id."""

RECENT_REQUESTS_KEPT = 64
"""Request ids remembered per tournament (registrations come from many players)."""

COUNT_PREFIX = "count#"
"""A registration counter of a scheduled tournament: ``count#<k>`` (issue 23; the counters'
rules are :mod:`naiko_service.usecases.registrations`')."""

SHARD_PREFIX = "field#"
"""A count shard of a scheduled tournament's field: ``field#<g>`` (issue 23), the players out
at the tables of group *g* (:func:`shard_of`), counted there instead of on the field item so
that eliminations at different tables do not take turns on one item
(:class:`~naiko_service.ports.CountOuts`; docs/tournaments.md "Count shards")."""

SHARDS = 8
"""Count shards per tournament: tables ``n`` with ``n % SHARDS == g`` share ``field#<g>``."""


def shard_of(number: int) -> str:
    """The key of the count shard table *number* counts its players out on."""
    return f"{SHARD_PREFIX}{number % SHARDS}"


@dataclass(slots=True)
class Shard:
    """A count shard as read: its players out (``out``, and per table ``tables``), the outs it
    may still count without the field item (``room``, granted from the field item's
    :attr:`TournamentRecord.granted`), and whether the field item counts again (``closed``)."""

    out: int = 0
    room: int = 0
    closed: bool = False
    tables: dict[int, int] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Shard:
        return cls(int(data.get("out", 0)), int(data.get("room", 0)),
                   bool(data.get("closed", False)),
                   {int(k): int(v) for k, v in data.get("tables", {}).items()})


HOUSE_PRIZES = "house:prizes"
"""The house account Spin entries go to and Spin prizes come from (R9.9, R9.10)."""


class TournamentStatus(StrEnum):
    REGISTERING = "registering"
    STARTING = "starting"
    """A scheduled tournament whose tables are being written (registration closed)."""
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class PendingMove:
    """A player to move to another table (R9.7) once that table is between hands: decided by
    the table that finished a hand (balancing, breaking) or by a late registration (R9.11,
    ``from_table`` 0). Until then the player stays where they are and that table holds."""

    player_id: str
    from_table: int
    to_table: int
    reason: str
    """``balance``, ``break`` or ``late``."""
    decided_ms: int

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "from_table": self.from_table,
                "to_table": self.to_table, "reason": self.reason,
                "decided_ms": self.decided_ms}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PendingMove:
        return cls(str(data["player_id"]), int(data["from_table"]), int(data["to_table"]),
                   str(data["reason"]), int(data["decided_ms"]))


@dataclass(slots=True)
class Seating:
    """A scheduled tournament's tables as the tournament item keeps them (R9.7, R9.8): small
    whatever happens at the tables, and written only when a count changes (an elimination, a
    move), a table breaks, the final table forms or a hand-for-hand round closes, never on
    every hand (docs/tournaments.md, "No hot item")."""

    counts: dict[int, int] = field(default_factory=dict)
    """Table number -> players it has, counting moves decided but not done yet (a player
    waiting to move counts at the destination)."""
    table_ids: dict[int, str] = field(default_factory=dict)
    """Table number -> its table item's id, for the tables in play."""
    pending: list[PendingMove] = field(default_factory=list)
    breaking: list[int] = field(default_factory=list)
    """Tables to break whose players are not all assigned yet (they were playing a hand)."""
    final: bool = False
    """The players fit at one table: every table holds after its hand; the last one to hold
    forms the final table (R9.7)."""
    final_held: list[int] = field(default_factory=list)
    hfh: int | None = None
    """The hand-for-hand round in play (R9.8; 0: waiting for the hands dealt before it began
    to finish), ``None`` outside hand-for-hand."""
    hfh_over: bool = False
    """The bubble burst: hand-for-hand does not come back."""
    next_number: int = 1
    """The number the next new table takes (a late registration's, R9.11)."""

    def copy(self) -> Seating:
        return Seating.from_dict(self.to_dict())

    def to_dict(self, tournament_id: str | None = None) -> dict[str, Any]:
        """As stored. Given the tournament's id, compactly (issue 23: a few bytes per table
        whatever the field): the counts as runs of consecutive table numbers
        (``count_runs``: ``[first number, [count, ...]]``), and only the table ids that are
        not ``<tournament>-<number>``."""
        data: dict[str, Any] = {
            "pending": [m.to_dict() for m in self.pending], "breaking": list(self.breaking),
            "final": self.final, "final_held": list(self.final_held), "hfh": self.hfh,
            "hfh_over": self.hfh_over, "next_number": self.next_number}
        if tournament_id is None:
            data["counts"] = {str(k): v for k, v in self.counts.items()}
            data["table_ids"] = {str(k): v for k, v in self.table_ids.items()}
            return data
        runs: list[list[Any]] = []
        for number in sorted(self.counts):
            if runs and runs[-1][0] + len(runs[-1][1]) == number:
                runs[-1][1].append(self.counts[number])
            else:
                runs.append([number, [self.counts[number]]])
        data["count_runs"] = runs
        data["ids"] = {str(k): v for k, v in self.table_ids.items()
                       if v != f"{tournament_id}-{k}"}
        data["numbers"] = _runs(sorted(self.table_ids))
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], tournament_id: str | None = None) -> Seating:
        hfh = data.get("hfh")
        if "count_runs" in data:
            assert tournament_id is not None
            counts = {int(first) + i: int(c) for first, run in data["count_runs"]
                      for i, c in enumerate(run)}
            ids = {int(k): str(v) for k, v in data["ids"].items()}
            table_ids = {n: ids.get(n, f"{tournament_id}-{n}")
                         for n in _expand(data["numbers"])}
        else:
            counts = {int(k): int(v) for k, v in data["counts"].items()}
            table_ids = {int(k): str(v) for k, v in data["table_ids"].items()}
        return cls(counts, table_ids,
                   [PendingMove.from_dict(m) for m in data["pending"]],
                   [int(x) for x in data["breaking"]], bool(data["final"]),
                   [int(x) for x in data["final_held"]], None if hfh is None else int(hfh),
                   bool(data.get("hfh_over", False)), int(data.get("next_number", 1)))

    def shortest(self, exclude: set[int] | None = None) -> int:
        """The table with the fewest players (ties: the lowest number, R9.7)."""
        candidates = [(count, number) for number, count in self.counts.items()
                      if number not in (exclude or set()) and number not in self.breaking]
        return min(candidates)[1]


@dataclass(slots=True)
class TournamentRecord:
    """The tournament item: terms and progress; small whatever the field (counters, not lists
    of players: registrations and results are items of their own)."""

    tournament_id: str
    version: int
    name: str
    terms: TournamentTerms
    created_ms: int
    created_by: str
    status: TournamentStatus = TournamentStatus.REGISTERING
    starts_ms: int | None = None
    """A scheduled tournament's start time (R9.2); ``None`` for a Sit & Go or a Spin."""
    started_ms: int | None = None
    """When play started: blind levels count from here (R9.3)."""
    entrants: int = 0
    """Players registered (and, once it started, who entered)."""
    spin: SpinPrize | None = None
    """A Spin's drawn multiplier and split (R9.10)."""
    payouts: list[int] = field(default_factory=list)
    """The prize of place 1, 2, ... fixed when registration closes (R9.9, R9.11)."""
    pool_held: int = 0
    """Account chips the tournament holds: entries received minus prizes paid (a Spin's go to
    and come from the house's prize account instead)."""
    players_left: int = 0
    tables: list[str] = field(default_factory=list)
    level: int = 0
    """The level in effect as the level timer last recorded it (the lobby's; tables work the
    level out themselves, R9.3)."""
    paid: int = 0
    """Prizes paid so far (a count; each payment is its own transaction, R9.9)."""
    log_seq: int = 0
    """Log entries written so far (their keys count from 1)."""
    timers: list[Timer] = field(default_factory=list)
    recent_requests: dict[str, int] = field(default_factory=dict)
    """``player/request id`` -> the version that applied it (the last
    :data:`RECENT_REQUESTS_KEPT`): a retried request is answered, not applied twice."""
    seating: Seating | None = None
    """A scheduled tournament's tables once it started (R9.7, R9.8)."""
    start_seed: int | None = None
    """The seed of a scheduled tournament's seat draw, drawn from the random source when it
    starts and kept, so a retried start draws the same seats (R9.2)."""
    late: list[dict[str, Any]] = field(default_factory=list)
    """Players eliminated while late registration is open (R9.11): their places are given
    when it closes and the field is known (``player``, ``stack``, ``at_ms``, ``table``,
    ``hand``, in elimination order)."""
    opens_ms: int | None = None
    """A scheduled tournament's registration opening (R9.1): entries are refused before it
    (``None``: open from its listing)."""
    reentries: int = 0
    """Entries after a player's first (R9.12): counted in :attr:`entrants` (the field and the
    pool), not in the places (``entrants - reentries`` players are placed)."""
    bounties: dict[str, int] = field(default_factory=dict)
    """R9.13, progressive knockout: player -> their bounty, for the players in play whose
    bounty grew (everyone else's is the published ``terms.bounty``; a player out has none, and
    a new entry starts again at ``terms.bounty``, R9.12)."""
    paused: dict[str, Any] | None = None
    """R9.15: the director paused the tournament: ``since_ms``, ``operator``, ``reason`` and the
    ``timers`` held (the level and late-registration timers, which stop with the clock).
    ``None``: play goes on."""
    clock_shifts: int = 0
    """R9.15: how many times the director moved the tournament's clock (a resume after a pause,
    a minute added): :attr:`started_ms` moved on each time, and the level timer's token carries
    the count, so an execution armed before finds no such timer."""
    granted: int = 0
    """Issue 23: players out the count shards were allowed to count in all (their ``room``
    plus their ``out``): the field item never lets it go past the serial zone
    (:func:`naiko_service.usecases.field_shards.serial_zone`), so the shards cannot count the
    field below it whatever the tables do at once."""
    serial: bool = False
    """The shards are closed: from here on the field item counts every player out (the exact
    count the bubble, the money and the final table need, R9.8, R9.9)."""
    shards: dict[str, Shard] = field(default_factory=dict, compare=False)
    """The count shards as :meth:`TournamentStore.load` read them (not in the document):
    :attr:`players_left` and the seating's counts are the field item's less their outs
    (:meth:`apply_shards`); :meth:`to_document` adds them back, so a player out counted on a
    shard leaves the field item's document as it was."""
    stored_terms: str | None = field(default=None, compare=False)
    """The digest (:func:`terms_digest`) of the terms part as a store read it, if that store
    keeps the two parts apart (``aws.tournaments``): a write of an unchanged terms part
    writes only the field item (issue 23). Not part of the document; kept by :meth:`copy`."""

    def copy(self) -> TournamentRecord:
        return TournamentRecord(
            self.tournament_id, self.version, self.name, self.terms, self.created_ms,
            self.created_by, self.status, self.starts_ms, self.started_ms, self.entrants,
            self.spin, list(self.payouts), self.pool_held, self.players_left,
            list(self.tables), self.level, self.paid, self.log_seq,
            [Timer(t.token, t.kind, t.due_ms, t.seat_index) for t in self.timers],
            dict(self.recent_requests),
            None if self.seating is None else self.seating.copy(),
            self.start_seed, [dict(x) for x in self.late], self.opens_ms, self.reentries,
            dict(self.bounties),
            None if self.paused is None else json.loads(json.dumps(self.paused)),
            self.clock_shifts, self.granted, self.serial,
            {k: Shard(v.out, v.room, v.closed, dict(v.tables)) for k, v in self.shards.items()},
            self.stored_terms)

    def apply_shards(self, shards: dict[str, Shard]) -> None:
        """The field item's counts (as stored: every player out on a shard still counted)
        less the players out the count shards *shards* hold (issue 23)."""
        self.shards = shards
        self.players_left -= sum(s.out for s in shards.values())
        if self.seating is not None:
            for shard in shards.values():
                for number, out in shard.tables.items():
                    if number in self.seating.counts:
                        self.seating.counts[number] -= out

    def remember_request(self, key: str) -> None:
        """Remember that this (new) version applied the request *key*."""
        self.recent_requests[key] = self.version
        while len(self.recent_requests) > RECENT_REQUESTS_KEPT:
            del self.recent_requests[next(iter(self.recent_requests))]

    def to_document(self) -> dict[str, Any]:
        return {"name": self.name, "terms": self.terms.to_dict(), "created_ms": self.created_ms,
                "created_by": self.created_by, "status": self.status.value,
                "starts_ms": self.starts_ms, "started_ms": self.started_ms,
                "entrants": self.entrants, "spin": self.spin.to_dict() if self.spin else None,
                "payouts": list(self.payouts), "pool_held": self.pool_held,
                "players_left": self.players_left + sum(s.out for s in self.shards.values()),
                "table_runs": _table_runs(self.tournament_id, self.tables),
                "level": self.level, "paid": self.paid, "log_seq": self.log_seq,
                "timers": [t.to_dict() for t in self.timers],
                "recent_requests": dict(self.recent_requests),
                "seating": (None if self.seating is None else self._stored_seating()),
                "start_seed": self.start_seed, "late": [dict(x) for x in self.late],
                "opens_ms": self.opens_ms, "reentries": self.reentries,
                **({"bounties": dict(self.bounties)} if self.bounties else {}),
                **({} if self.paused is None else {"paused": self.paused}),
                **({"clock_shifts": self.clock_shifts} if self.clock_shifts else {}),
                **({"sharding": {"granted": self.granted, "serial": self.serial}}
                   if self.granted or self.serial else {})}

    def _stored_seating(self) -> dict[str, Any]:
        """The seating as the field item stores it: each table's count with its players out
        on a shard added back (:meth:`apply_shards`)."""
        assert self.seating is not None
        if not self.shards:
            return self.seating.to_dict(self.tournament_id)
        seating = self.seating.copy()
        for shard in self.shards.values():
            for number, out in shard.tables.items():
                if number in seating.counts:
                    seating.counts[number] += out
        return seating.to_dict(self.tournament_id)

    @classmethod
    def from_document(cls, tournament_id: str, version: int,
                      doc: dict[str, Any]) -> TournamentRecord:
        spin = doc.get("spin")
        return cls(
            tournament_id, version, str(doc["name"]), TournamentTerms.from_dict(doc["terms"]),
            int(doc["created_ms"]), str(doc["created_by"]), TournamentStatus(doc["status"]),
            doc.get("starts_ms"), doc.get("started_ms"), int(doc["entrants"]),
            SpinPrize.from_dict(spin) if spin else None, [int(x) for x in doc["payouts"]],
            int(doc["pool_held"]), int(doc["players_left"]),
            ([str(t) for t in doc["tables"]] if "tables" in doc
             else _table_list(tournament_id, doc["table_runs"])),
            int(doc["level"]), int(doc["paid"]), int(doc["log_seq"]),
            [Timer.from_dict(t) for t in doc["timers"]],
            {str(k): int(v) for k, v in doc.get("recent_requests", {}).items()},
            Seating.from_dict(doc["seating"], tournament_id) if doc.get("seating") else None,
            doc.get("start_seed"), [dict(x) for x in doc.get("late", [])], doc.get("opens_ms"),
            int(doc.get("reentries", 0)),
            {str(k): int(v) for k, v in doc.get("bounties", {}).items()},
            doc.get("paused"), int(doc.get("clock_shifts", 0)),
            int(doc.get("sharding", {}).get("granted", 0)),
            bool(doc.get("sharding", {}).get("serial", False)))

    def summary(self) -> dict[str, Any]:
        """What the lobby shows: the terms (shown before registration, R9.1) and progress."""
        terms = self.terms
        return {"tournament_id": self.tournament_id, "name": self.name,
                "kind": terms.kind.value, "variant": terms.variant.value,
                "status": self.status.value, "entry": terms.entry,
                "starting_stack": terms.starting_stack, "seat_count": terms.seat_count,
                "min_players": terms.min_players, "max_players": terms.max_players,
                "entrants": self.entrants, "players_left": self.players_left,
                "entries_per_player": terms.entries_per_player, "reentries": self.reentries,
                "opens_ms": self.opens_ms, "starts_ms": self.starts_ms,
                "started_ms": self.started_ms, "level": self.level, "payouts": list(self.payouts),
                "paused": self.paused is not None,
                "multiplier": self.spin.multiplier if self.spin else None,
                "payout_table": terms.payout_table(),
                "payout_split": ({"entrants": self.entrants, "prizes": list(self.payouts)}
                                 if self.payouts else terms.payout_split(self.entrants)),
                "terms": terms.to_dict()}

    def bounty_of(self, player_id: str) -> int:
        """R9.13: *player_id*'s bounty now (``0`` without knockout)."""
        return self.bounties.get(player_id, self.terms.bounty)

    def next_due_ms(self) -> int | None:
        return min((t.due_ms for t in self.timers), default=None)

    @property
    def listed(self) -> bool:
        """Shown in the tournament lobby: registering or running."""
        return self.status in (TournamentStatus.REGISTERING, TournamentStatus.STARTING,
                               TournamentStatus.RUNNING)

    @property
    def players(self) -> int:
        """Players who entered (R9.12: each once, however many entries they paid): the places
        given are ``1..players``."""
        return self.entrants - self.reentries

    @property
    def is_spin(self) -> bool:
        return self.terms.kind is TournamentKind.SPIN


FIELD_KEYS = ("players_left", "table_runs", "log_seq", "seating", "late", "bounties",
              "sharding")
"""The keys of a tournament's document that change as play goes on at the tables
(eliminations, moves, breaks, the final table, hand-for-hand, log entries): the **field
part**, stored apart from the terms part (``aws.tournaments``: the ``field`` item) so that a
hand's end does not rewrite the terms, the prizes, the timers and the lobby's summary
(issue 23)."""


def split_document(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A tournament document as its terms part and its field part (:data:`FIELD_KEYS`)."""
    return ({k: v for k, v in doc.items() if k not in FIELD_KEYS},
            {k: v for k, v in doc.items() if k in FIELD_KEYS})


def terms_digest(terms: dict[str, Any]) -> str:
    """A digest of a terms part (its JSON, keys in document order): equal parts, equal
    digests."""
    encoded = json.dumps(terms, separators=(",", ":")).encode()
    return hashlib.blake2b(encoded, digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Result:
    """A player's finishing place (R9.5) and prize (R9.9), an item of its own."""

    player_id: str
    place: int
    prize: int = 0
    """Account chips won (0 outside the prizes); ties share (R9.5)."""
    paid: bool = False
    hand: int = 0
    """The hand (at ``table``) in which the player was eliminated; 0 for the winner."""
    table: str = ""
    account: str = ""
    """The account the prize goes to: the player's own, a BOT's the house's (R8.4)."""

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "place": self.place, "prize": self.prize,
                "paid": self.paid, "hand": self.hand, "table": self.table,
                "account": self.account or self.player_id}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        return cls(str(data["player_id"]), int(data["place"]), int(data.get("prize", 0)),
                   bool(data.get("paid", False)), int(data.get("hand", 0)),
                   str(data.get("table", "")), str(data.get("account") or data["player_id"]))


def _runs(numbers: list[int]) -> list[list[int]]:
    """Sorted numbers as ``[first, last]`` runs of consecutive ones."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][1] + 1 == number:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return runs


def _expand(runs: list[list[int]]) -> list[int]:
    return [n for first, last in runs for n in range(int(first), int(last) + 1)]


def _table_runs(tournament_id: str, tables: list[str]) -> list[Any]:
    """A tournament's table ids, in order, as stored: ``<tournament>-<n>`` ids in runs of
    consecutive numbers (``[first, last]``), any other id as it is (issue 23: 1,112 tables
    are a few bytes, not 20 KB)."""
    stored: list[Any] = []
    prefix = f"{tournament_id}-"
    for table_id in tables:
        number = table_id.removeprefix(prefix)
        if table_id.startswith(prefix) and number.isdigit() and str(int(number)) == number:
            n = int(number)
            if stored and isinstance(stored[-1], list) and stored[-1][1] + 1 == n:
                stored[-1][1] = n
                continue
            stored.append([n, n])
        else:
            stored.append(table_id)
    return stored


def _table_list(tournament_id: str, stored: list[Any]) -> list[str]:
    tables: list[str] = []
    for entry in stored:
        if isinstance(entry, list):
            tables += [f"{tournament_id}-{n}" for n in range(int(entry[0]), int(entry[1]) + 1)]
        else:
            tables.append(str(entry))
    return tables
