""":mod:`naiko_service.usecases.registrations` registers players for a scheduled tournament
without writing the tournament item (R9.1, issue 23: the tournament item was a hot key, every
registration rewriting it under its version, so a rush of registrations answered ``busy``).

A registration is one transaction of its own items: the ``reg#<player>`` item (put only if
absent), one of the tournament's registration counters ``count#<k>`` (a conditional update in
place, :class:`~naiko_service.ports.BumpCount`) and the entry's account move with its ledger
entry. The field's cap is split across the counters (:func:`quotas`): a counter counts at most
its quota, so the cap holds without any one item counting every registration; a full counter
sends the entrant to the next one. Each player starts at the counter their id hashes to, so
concurrent registrations spread over the counters and rarely meet on one. Unregistering is the
same transaction backwards (the ``reg#`` item deleted, the counter down one, the entry back)
plus a ``left#<player>`` item naming the request, so a retried request is answered, not
applied twice.

The tournament item is only read (its status, opening time, terms). When registration closes
(:func:`close`, in the start's first transaction) every counter is closed on condition that it
still counts what was read, and their totals are folded into the tournament item (``entrants``,
``pool_held``); a registration committing after that fails on its closed counter and, read
again, is refused (``registration_closed``) or goes to late registration (R9.11), which seats
the player and so writes the tournament item as before. Sit & Gos and Spins (at most ten
players, the last registration starting them) register on the tournament item as before."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from math import ceil
from typing import Any

from naiko.tournaments.structures import TournamentKind

from ..ports import (
    AccountMove,
    BumpCount,
    CloseCount,
    ConcurrentUpdate,
    DeleteItem,
    LedgerReason,
    PutItem,
    TournamentStore,
    Write,
)
from ..tournament_records import COUNT_PREFIX, TournamentRecord, TournamentStatus
from .base import BOT_SEAT, Deps, ServiceError, backoff
from .tournament_payments import REG_PREFIX
from .tournament_uow import Busy, Plan, load, store

LEFT_PREFIX = "left#"
"""``left#<player>``: the request that last unregistered the player (its replay is answered)."""

ENTRIES_PER_COUNTER = 400
"""About how many registrations one counter takes (its quota): 10,000 entrants are 25
counters."""

MIN_COUNTERS = 4
MAX_COUNTERS = 32
"""Counters per tournament: a close writes them all in one transaction (DynamoDB: 100 items)."""

MAX_ATTEMPTS = 16
"""Attempts of a registration before ``busy``: a conflict (another registration on the same
counter at the same moment, a counter full meanwhile) moves to another counter. Conflicts
come in runs only for the last seats, every registration then meeting on the few counters
with room (8 attempts left 6 of 10,100 ``busy`` in ``bench_registration_rush.py`` at 10 ms
a transaction; each of them would have found the field full next)."""


def sharded(record: TournamentRecord) -> bool:
    """Whether the tournament registers on counters: a scheduled one still registering."""
    return record.terms.kind is TournamentKind.SCHEDULED \
        and record.status is TournamentStatus.REGISTERING


def counter_count(record: TournamentRecord) -> int:
    """How many counters the tournament's field is split across (fixed by its terms)."""
    cap = record.terms.max_players
    wanted = max(MIN_COUNTERS, ceil(cap / ENTRIES_PER_COUNTER))
    return max(1, min(MAX_COUNTERS, cap, wanted))


def counter_key(number: int) -> str:
    return f"{COUNT_PREFIX}{number:02d}"


def quotas(record: TournamentRecord) -> list[int]:
    """Each counter's share of the seats (the cap less the entrants the tournament item counts
    already, which stays put while registering): they add up to the cap exactly."""
    room = max(0, record.terms.max_players - record.entrants)
    count = counter_count(record)
    return [room // count + (1 if k < room % count else 0) for k in range(count)]


@dataclass(frozen=True, slots=True)
class Counter:
    entrants: int = 0
    chips: int = 0
    closed: bool = False


def counters(tournaments: TournamentStore, record: TournamentRecord) -> list[Counter]:
    """The tournament's counters, in order (one query; a counter not written yet counts 0)."""
    read = dict(tournaments.items(record.tournament_id, COUNT_PREFIX))
    found = []
    for number in range(counter_count(record)):
        data = read.get(counter_key(number))
        found.append(Counter() if data is None else Counter(
            int(data["entrants"]), int(data["chips"]), bool(data["closed"])))
    return found


def registered(tournaments: TournamentStore, record: TournamentRecord) -> int:
    """The field so far: the tournament item's count plus what its open counters count (the
    closed ones are folded into the item)."""
    if record.terms.kind is not TournamentKind.SCHEDULED:
        return record.entrants
    return record.entrants + sum(c.entrants for c in counters(tournaments, record)
                                 if not c.closed)


def home(player_id: str, count: int) -> int:
    """The counter a player tries first: their id's hash (spreads a rush evenly, and never
    draws from the tournament's random source, whose draws seat the field)."""
    return int.from_bytes(hashlib.sha256(player_id.encode()).digest()[:4], "big") % count


class OnCounters(Exception):  # noqa: N818 -- a redirection, not an error
    """Raised by a tournament-item change that found the tournament registering on counters:
    the caller registers (or unregisters) here instead, starting from the item it read."""

    def __init__(self, new: TournamentRecord):
        super().__init__(new.tournament_id)
        self.record = new.copy()
        self.record.version = new.version - 1  # the change's copy is one version ahead


@dataclass(frozen=True, slots=True)
class Entered:
    """A registration on counters: the tournament item as read (not written) and, for a
    replay, nothing applied."""

    record: TournamentRecord
    replayed: bool = False


def enter(deps: Deps, tournament_id: str, entrants: list[Any], request_key: str | None,
          read: TournamentRecord | None = None) -> Entered | None:
    """Register *entrants* (:class:`.tournaments.Entrant`) on counters, all in one
    transaction (*read*: the tournament item as just read, for the first attempt). Returns
    ``None`` when the tournament does not (or no longer) register on counters (its
    registration closed meanwhile: the caller takes the tournament item's path, which refuses
    or registers late).

    :raises ServiceError: ``registration_not_open``, ``already_registered``,
        ``tournament_full``.
    :raises Busy: After :data:`MAX_ATTEMPTS` conflicts (nothing written).
    :raises InsufficientFunds, AccountFrozen, TooManyRegistrations: From the commit.
    """
    tournaments = store(deps)
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            backoff(deps, attempt)
        record = read if attempt == 0 and read is not None else load(
            tournaments, tournament_id, refuse_unknown=True)
        if not sharded(record):
            return None
        now = deps.clock.now_ms()
        if record.opens_ms is not None and now < record.opens_ms:
            raise ServiceError("registration_not_open",
                               "registration for this tournament has not opened yet")
        for entrant in entrants:
            key = REG_PREFIX + entrant.player_id
            found = dict(tournaments.items(tournament_id, key)).get(key)
            if found is None:
                continue
            if request_key is not None and found.get("request") == request_key:
                deps.count("Replays", 1)
                return Entered(record, replayed=True)
            raise ServiceError("already_registered",
                               f"{entrant.player_id} is registered already")
        writes, moves = _entries(record, counters(tournaments, record), entrants, now,
                                 request_key, attempt)
        try:
            tournaments.commit(tuple(writes), tuple(moves))
        except ConcurrentUpdate:
            deps.count("Conflicts", 1)
            continue
        return Entered(record)
    raise Busy()


def _entries(record: TournamentRecord, read: list[Counter], entrants: list[Any], now: int,
             request_key: str | None, attempt: int
             ) -> tuple[list[Write], list[AccountMove]]:
    """The registration's writes and moves: the entrants on the first counter with room from
    the first entrant's own (after a conflict, from another one: the hash of the id and the
    attempt, so registrations that met on one counter part), then the next: a batch (BOTs)
    touches as few counters as it can (DynamoDB takes 100 items per transaction)."""
    shares = quotas(record)
    room = [0 if c.closed else max(0, q - c.entrants) for c, q in zip(read, shares, strict=True)]
    if sum(room) < len(entrants):
        raise ServiceError("tournament_full", "every seat is taken")
    count = len(room)
    entry = record.terms.entry
    placed: dict[int, int] = {}
    writes: list[Write] = []
    moves: list[AccountMove] = []
    first = entrants[0].player_id
    start = home(first if attempt == 0 else f"{first}/{attempt}", count)
    for entrant in entrants:
        number = next(n % count for n in range(start, start + count)
                      if room[n % count] > placed.get(n % count, 0))
        placed[number] = placed.get(number, 0) + 1
        writes.append(PutItem(record.tournament_id, REG_PREFIX + entrant.player_id, {
            "player_id": entrant.player_id, "account": entrant.account, "bot": entrant.bot,
            "at_ms": now, "connection_id": entrant.connection_id, "counter": number,
            "request": request_key}, new=True))
        moves.append(AccountMove(entrant.account, entry, record.tournament_id,
                                 LedgerReason.ENTRY, now,
                                 registered=None if entrant.bot else True))
    writes += [BumpCount(record.tournament_id, counter_key(number), added, entry * added,
                         shares[number]) for number, added in sorted(placed.items())]
    return writes, moves


def leave(deps: Deps, tournament_id: str, player_id: str, request_key: str | None,
          read: TournamentRecord | None = None) -> Entered | None:
    """Unregister *player_id* from a tournament registering on counters: the ``reg#`` item
    deleted, its counter down one, the entry back, in one transaction. Returns ``None`` when
    the tournament does not register on counters (or the registration is not on one: written
    before counters existed), for the tournament item's path.

    :raises ServiceError: ``not_registered``, ``bot_seat``.
    :raises Busy: After :data:`MAX_ATTEMPTS` conflicts (nothing written).
    """
    tournaments = store(deps)
    key = REG_PREFIX + player_id
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            backoff(deps, attempt)
        record = read if attempt == 0 and read is not None else load(
            tournaments, tournament_id, refuse_unknown=True)
        if not sharded(record):
            return None
        registration = dict(tournaments.items(tournament_id, key)).get(key)
        if registration is None:
            left = dict(tournaments.items(tournament_id, LEFT_PREFIX + player_id)).get(
                LEFT_PREFIX + player_id)
            if request_key is not None and left is not None \
                    and left.get("request") == request_key:
                deps.count("Replays", 1)
                return Entered(record, replayed=True)
            raise ServiceError("not_registered", "you are not registered")
        if registration.get("bot"):
            raise ServiceError(BOT_SEAT, "that entry is a BOT's, the server's alone (R8.4)")
        if "counter" not in registration:
            return None
        now = deps.clock.now_ms()
        number = int(registration["counter"])
        entry = record.terms.entry
        writes: tuple[Write, ...] = (  # ``left#`` first: it names the ledger entry's key
            PutItem(tournament_id, LEFT_PREFIX + player_id,
                    {"player_id": player_id, "request": request_key, "at_ms": now}),
            DeleteItem(tournament_id, key),
            BumpCount(tournament_id, counter_key(number), -1, -entry, quotas(record)[number]))
        move = AccountMove(str(registration.get("account", player_id)), -entry,
                           tournament_id, LedgerReason.UNREGISTER, now, registered=False)
        try:
            tournaments.commit(writes, (move,))
        except ConcurrentUpdate:
            deps.count("Conflicts", 1)
            continue
        return Entered(record)
    raise Busy()


def close(tournaments: TournamentStore, new: TournamentRecord, plan: Plan) -> None:
    """Registration closes (the start's first transaction): every counter closed on
    condition that it counts what was read, their totals folded into *new* (``entrants``,
    ``pool_held``). A registration committed meanwhile fails that condition: the transaction
    reads again (:func:`.tournament_uow.transact`)."""
    read = counters(tournaments, new)
    for number, counter in enumerate(read):
        if counter.closed:  # closed with the item leaving ``registering``: read before that
            raise ConcurrentUpdate(new.tournament_id)
        plan.writes.append(CloseCount(new.tournament_id, counter_key(number),
                                      counter.entrants))
    new.entrants += sum(c.entrants for c in read)
    new.pool_held += sum(c.chips for c in read)
