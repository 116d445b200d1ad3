""":mod:`naiko_service.usecases.tournaments` is a tournament's life (R9) outside its tables:
created from a preset with its terms fixed and shown before anyone registers; registering and
unregistering move the entry in one transaction (R9.1); a Sit & Go starts when its seats are
filled, a Spin when three are registered, its multiplier drawn then (R9.2, R9.10); a cancelled
tournament gives every entry back; the tournament's own timers record each new level for the
lobby and the log (R9.3) and back up the prize payments (R9.9).

What happens at its tables (levels dealt, absent players, eliminations, prizes) is in
:mod:`.tournament_tables`.

Every change is one transaction of the items it touches (tournament, registration, tables, log
entries, accounts: :meth:`~naiko_service.ports.TournamentStore.commit`), conditional on the
versions read and retried on a conflict (:func:`.tournament_uow.transact`)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from naiko.state import Variant
from naiko.tournaments import prizes as prize_rules
from naiko.tournaments.seating import initial_seating
from naiko.tournaments.structures import (
    MINUTE_MS,
    InvalidTerms,
    TournamentKind,
    from_preset,
    level_at,
)

from .. import pages
from .. import protocol as p
from ..auth import BOT_ID_PREFIX, bot_id, is_bot_id
from ..limits import MAX_OPEN_TOURNAMENTS, MAX_REGISTRATIONS_PER_PLAYER
from ..notices import TournamentStarted
from ..ports import (
    AccountFrozen,
    AccountMove,
    AccountSet,
    ConcurrentUpdate,
    DeleteItem,
    InsufficientFunds,
    LedgerReason,
    PutItem,
    PutTable,
    PutTournament,
    TooManyRegistrations,
    TooManyTournaments,
    TournamentNotFound,
    TournamentStore,
    Write,
)
from ..records import TableRecord, Timer, TimerKind
from ..tournament_records import (
    HOUSE_PRIZES,
    TOURNAMENT_PREFIX,
    Result,
    TournamentRecord,
    TournamentStatus,
)
from . import arming, fanout, push, scheduled, transaction
from . import registrations as on_counters
from .accounts import frozen_error
from .base import BAD_CURSOR, BOT_SEAT, Caller, Deps, ServiceError, read_cursor
from .private import HOUSE_BOTS
from .tournament_log import log_entry
from .tournament_payments import (
    PAYOUT_BACKOFF_MS,
    PAYOUT_RETRY_MS,
    REG_PREFIX,
    arm_tournament,
    has_item,
    pay_cancellation,
    pay_prizes,
    refund_entries,
    refund_moves,
    refunds_entries,
    retire_payout_timer,
)
from .tournament_start import START_DELAY_MS, entries, new_table, schedule_level, started_fields
from .tournament_uow import Busy, Done, Plan, Unchanged, store, transact


def tournament_id_for(player_id: str, request_id: str) -> str:
    """A tournament's id derives from its creator and request: a replay finds the same one."""
    return "u" + hashlib.sha256(f"{player_id}/{request_id}".encode()).hexdigest()[:20]


def _load(tournaments: TournamentStore, tournament_id: str) -> TournamentRecord:
    try:
        return tournaments.load(tournament_id)
    except TournamentNotFound:
        raise ServiceError("unknown_tournament", "no tournament has that id") from None


def _ack(deps: Deps, caller: Caller, tournament_id: str, version: int,
         replayed: bool = False) -> None:
    fanout.send(deps, caller.connection_id, {
        "type": "ack", "request_id": caller.request_id, "tournament_id": tournament_id,
        "version": version, "replayed": replayed})


# -- the lobby -----------------------------------------------------------------------------------

def create_tournament(deps: Deps, caller: Caller, request: p.CreateTournament) -> None:
    """A Sit & Go or a Spin from a preset, its terms fixed now and shown in the lobby before
    anyone registers (R9.1, R9.9, R9.10). Scheduled tournaments are ops' (``naiko-tournament``).
    """
    tournaments = store(deps)
    try:
        terms = from_preset(request.preset, request.entry, Variant(request.variant))
        if terms.kind is TournamentKind.SCHEDULED:
            raise ServiceError("invalid_request", "scheduled tournaments are created by ops")
        if request.bots is not None:
            terms = replace(terms, bots_allowed=request.bots)
    except InvalidTerms as error:  # R9.13: a knockout preset's entry too small to split
        code = "invalid_bounty" if error.code == "invalid_bounty" else "invalid_request"
        raise ServiceError(code, error.message) from error
    record = TournamentRecord(tournament_id_for(caller.player_id, caller.request_id), 1,
                              request.name or request.preset, terms, deps.clock.now_ms(),
                              caller.player_id)
    # the creator's ``created`` set, in the same transaction: at most MAX_OPEN_TOURNAMENTS
    created = AccountMove(caller.player_id, 0, record.tournament_id, created=True)
    for attempt in range(2):
        try:
            tournaments.commit((PutTournament(record, None),), (created,))
            replayed = False
        except ConcurrentUpdate:
            replayed = True
        except AccountFrozen:
            raise frozen_error() from None
        except TooManyTournaments:
            if attempt == 0 and forget_finished(deps, caller.player_id, AccountSet.CREATED):
                continue
            raise ServiceError("too_many_tournaments", f"you have {MAX_OPEN_TOURNAMENTS} "
                               "tournaments open already: one must start and finish, or be "
                               "cancelled, before you create another") from None
        break
    _ack(deps, caller, record.tournament_id, 1, replayed)


def forget_finished(deps: Deps, player_id: str, which: AccountSet) -> bool:
    """A full ``registered`` or ``created`` set (issue 29 caps): forget the tournaments in it
    that no longer count (a registration counts until its tournament starts; a creation until
    it is over or cancelled; a tournament that is gone counts for nothing). Returns whether any
    was forgotten: the refused request may then be tried again. Runs only when a set is full,
    so starting a 10,000-player tournament never writes 10,000 accounts."""
    tournaments = store(deps)
    members = deps.accounts.profile(player_id).members(which)
    done = set()
    for tournament_id in members:
        try:
            status = tournaments.load(tournament_id).status
        except TournamentNotFound:
            done.add(tournament_id)
            continue
        if which is AccountSet.REGISTERED:
            still = status is TournamentStatus.REGISTERING and has_item(
                tournaments, tournament_id, REG_PREFIX + player_id)
        else:
            still = status in (TournamentStatus.REGISTERING, TournamentStatus.RUNNING)
        if not still:
            done.add(tournament_id)
    if done:
        deps.accounts.forget(player_id, which, frozenset(done))
    return bool(done)


def create(deps: Deps, tournament_id: str, name: str, terms: Any, created_by: str,
           starts_ms: int | None = None, opens_ms: int | None = None) -> TournamentRecord:
    """Ops (``naiko-tournament schedule``, the local stack, tests): list a tournament with
    these terms; a scheduled one with its start time and, if given, when its registration
    opens (before that it is listed, with its terms, and refuses entries).

    :raises ConcurrentUpdate: If that id exists.
    """
    record = TournamentRecord(tournament_id, 1, name, terms, deps.clock.now_ms(), created_by,
                              starts_ms=starts_ms, opens_ms=opens_ms)
    if terms.kind is TournamentKind.SCHEDULED:
        if starts_ms is None:
            raise ServiceError("invalid_request", "a scheduled tournament needs its start time")
        if opens_ms is not None and opens_ms >= starts_ms:
            raise ServiceError("invalid_request", "registration must open before the start")
        record.timers.append(Timer("start", TimerKind.START, starts_ms))  # R9.2
        notify_ms = starts_ms - push.STARTING_SOON_MS
        if push.enabled(deps) and notify_ms > record.created_ms:  # issue 25
            record.timers.append(Timer("notify_start", TimerKind.NOTIFY_START, notify_ms))
        arm_tournament(deps, record)
    store(deps).commit((PutTournament(record, None),))
    return record


TOURNAMENTS_LIST = "tournaments"
"""The tournament lobby's list name (its cursors, :mod:`naiko_service.pages`)."""

PLAYERS_LIST = "tournament_players"

RESULTS_LIST = "tournament_results"

TABLES_SHOWN = 20
"""Table ids ``get_tournament`` names at most (``table_count`` says how many there are): a
scheduled tournament of 10,000 players plays on ~1,100 tables, more than a frame holds."""


def list_tournaments(deps: Deps, caller: Caller, request: p.ListTournaments) -> None:
    """Tournaments registering or running, newest first, with their terms: a page of the
    lobby index (``limit`` + 1 items read, never the whole index)."""
    position = read_cursor(TOURNAMENTS_LIST, request.cursor, {"c": int, "t": str})
    after = None if position is None else (position["c"], position["t"])
    tournaments = store(deps)
    rows = tournaments.list_open(request.limit + 1, after)
    page, next_cursor = pages.cut(TOURNAMENTS_LIST, rows, request.limit, lambda row: {
        "c": row["created_ms"], "t": row["tournament_id"]})
    page = [{**_counted(tournaments, row), "created_ms": row["created_ms"]} for row in page]
    fanout.send(deps, caller.connection_id, {"type": "tournaments",
                                           "request_id": request.request_id,
                                           "tournaments": page, "next": next_cursor})


def _counted(tournaments: TournamentStore, summary: dict[str, Any]) -> dict[str, Any]:
    """A listed scheduled tournament still registering, with its entrants counted on its
    counters (one query each: a lobby page lists a few tournaments at a time)."""
    if summary.get("kind") != TournamentKind.SCHEDULED.value \
            or summary.get("status") != TournamentStatus.REGISTERING.value:
        return summary
    try:
        return _live(tournaments, tournaments.load(str(summary["tournament_id"])))
    except TournamentNotFound:
        return summary


def tournament(deps: Deps, caller: Caller, request: p.GetTournament) -> None:
    """One tournament: terms, progress, its first tables, and the requester's own entry and
    place; the field is paged apart (:func:`tournament_players`, :func:`tournament_results`)."""
    fanout.send(deps, caller.connection_id, {"type": "tournament",
                                           "request_id": request.request_id,
                                           "tournament": describe(deps, request.tournament_id,
                                                                  caller.player_id)})


def describe(deps: Deps, tournament_id: str, player_id: str | None = None) -> dict[str, Any]:
    """The tournament as the lobby shows it (:meth:`TournamentRecord.summary`), with
    ``table_count`` and the first :data:`TABLES_SHOWN` tables, and ``you``: whether
    *player_id* registered and their result (place, prize, paid) if they have one. Its size
    does not grow with the field: one read of the tournament and three of one key each."""
    tournaments = store(deps)
    record = _load(tournaments, tournament_id)
    you: dict[str, Any] = {"registered": False, "result": None}
    if player_id is not None:
        registration = _one(tournaments, tournament_id, REG_PREFIX + player_id)
        you["registered"] = registration is not None
        if registration is not None:  # R9.12: the entries used (the client shows those left)
            you["entries"] = int(registration.get("entries", 1))
        result = _one(tournaments, tournament_id, "result#" + player_id)
        if result is not None:
            you["result"] = {**Result.from_dict(result).to_dict(),
                             "paid": _one(tournaments, tournament_id,
                                          "paid#" + player_id) is not None}
    return {**_live(tournaments, record), "table_count": len(record.tables),
            "tables": list(record.tables[:TABLES_SHOWN]), "you": you}


def _one(tournaments: TournamentStore, tournament_id: str, key: str) -> dict[str, Any] | None:
    """The item *key* (exactly: ``reg#ann`` is not ``reg#anna``), in one read of one item: the
    first key of the prefix *key* is *key* itself when it exists."""
    found = tournaments.page(tournament_id, key, 1)
    return found[0][1] if found and found[0][0] == key else None


def tournament_players(deps: Deps, caller: Caller, request: p.TournamentPlayers) -> None:
    """A page of who registered, in player-id order: one Query of ``limit`` + 1 ``reg#``
    items after the cursor's player (eventually consistent: a list to show)."""
    position = read_cursor(PLAYERS_LIST, request.cursor, {"t": str, "a": str})
    tid = request.tournament_id
    _cursor_of(position, tid)
    tournaments = store(deps)
    rows = tournaments.page(tid, REG_PREFIX, request.limit + 1,
                            None if position is None else REG_PREFIX + position["a"])
    if not rows and position is None:
        _load(tournaments, tid)  # unknown_tournament, not an empty field
    page, next_cursor = pages.cut(PLAYERS_LIST, rows, request.limit, lambda row: {
        "t": tid, "a": row[0].removeprefix(REG_PREFIX)})
    fanout.send(deps, caller.connection_id, {
        "type": "tournament_players", "request_id": request.request_id, "tournament_id": tid,
        "players": [{"player_id": key.removeprefix(REG_PREFIX), "bot": bool(data.get("bot"))}
                    for key, data in page],
        "next": next_cursor})


def tournament_results(deps: Deps, caller: Caller, request: p.TournamentResults) -> None:
    """A page of the results so far (R9.9), in player-id order, each with ``paid``: one Query
    of ``limit`` + 1 ``result#`` items after the cursor's player, and one of at most
    ``limit`` ``paid#`` items after the same player (a prize is paid only for a result, so
    every payment of the page's players is among them)."""
    position = read_cursor(RESULTS_LIST, request.cursor, {"t": str, "a": str})
    tid = request.tournament_id
    _cursor_of(position, tid)
    tournaments = store(deps)
    after = None if position is None else position["a"]
    rows = tournaments.page(tid, "result#", request.limit + 1,
                            None if after is None else "result#" + after)
    if not rows and position is None:
        _load(tournaments, tid)
    page, next_cursor = pages.cut(RESULTS_LIST, rows, request.limit, lambda row: {
        "t": tid, "a": row[0].removeprefix("result#")})
    paid = {key.removeprefix("paid#") for key, _ in tournaments.page(
        tid, "paid#", len(page), None if after is None else "paid#" + after)} if page else set()
    results = [{**Result.from_dict(data).to_dict(), "paid": data["player_id"] in paid}
               for _, data in page]
    fanout.send(deps, caller.connection_id, {
        "type": "tournament_results", "request_id": request.request_id, "tournament_id": tid,
        "results": results, "next": next_cursor})


def _cursor_of(position: dict[str, Any] | None, tournament_id: str) -> None:
    """:raises ServiceError: ``bad_cursor`` for a cursor of another tournament's list."""
    if position is not None and position["t"] != tournament_id:
        raise ServiceError(BAD_CURSOR, "this cursor is another tournament's")


def _live(tournaments: TournamentStore, record: TournamentRecord) -> dict[str, Any]:
    """The lobby's summary with the field counted so far: a scheduled tournament registering
    counts its entrants on counters (one query), not on its item."""
    summary = record.summary()
    if on_counters.sharded(record):
        entrants = on_counters.registered(tournaments, record)
        summary["entrants"] = entrants
        summary["payout_split"] = record.terms.payout_split(entrants)
    return summary


# -- registration (R9.1) and the start (R9.2) ------------------------------------------------

@dataclass(frozen=True, slots=True)
class Entrant:
    """Someone registering: the player, the account paying the entry (a BOT's: the house's),
    and the connection to tell when the tournament starts."""

    player_id: str
    account: str
    bot: bool = False
    connection_id: str | None = None


def register(deps: Deps, caller: Caller, request: p.Register) -> None:
    """R9.1: the entry moves from the account to the tournament (a Spin's to the house's prize
    account) in one transaction with the registration; the registration that fills a Sit & Go
    or a Spin starts it in that same transaction (R9.2)."""
    enter(deps, caller, request.tournament_id,
          [Entrant(caller.player_id, caller.player_id, False, caller.connection_id)])


def add_bots(deps: Deps, caller: Caller, request: p.TournamentAddBots) -> None:
    """Fill a Sit & Go's or a Spin's free seats with BOTs (R8.4), if its terms allow bots, all
    in one transaction (all of them or none); the house's bot account pays their entries and
    takes their prizes. Its creator only. ``count`` more than the free seats is refused."""
    tournaments = store(deps)
    record = _load(tournaments, request.tournament_id)
    if _replayed(deps, caller, record):
        return
    if record.created_by != caller.player_id:
        raise ServiceError("not_host", "only the tournament's creator may add bots")
    if not record.terms.bots_allowed:
        raise ServiceError("bots_off", "this tournament was created without bots")
    if record.status is not TournamentStatus.REGISTERING:
        raise ServiceError("registration_closed", "this tournament takes no more entries")
    free = record.terms.max_players - on_counters.registered(tournaments, record)
    count = free if request.count is None else request.count
    if count > free or count == 0:
        raise ServiceError("tournament_full", f"{free} seat{'s' * (free != 1)} free")
    taken = {key.removeprefix(REG_PREFIX)
             for key, _ in tournaments.items(request.tournament_id, REG_PREFIX)}
    names = (bot_id(n) for n in range(1, len(taken) + count + 2) if bot_id(n) not in taken)
    enter(deps, caller, request.tournament_id,
          [Entrant(next(names), HOUSE_BOTS, True) for _ in range(count)])


def _request_key(caller: Caller) -> str:
    return f"{caller.player_id}/{caller.request_id}"


def _replayed(deps: Deps, caller: Caller | None, record: TournamentRecord) -> bool:
    """A request this player sent recently (the client or the SDK retried): answered with the
    version that applied it, and not applied again."""
    if caller is None:
        return False
    version = record.recent_requests.get(_request_key(caller))
    if version is None:
        return False
    deps.count("Replays", 1)
    _ack(deps, caller, record.tournament_id, version, replayed=True)
    return True


def _answer(deps: Deps, caller: Caller, done: Done[Any]) -> bool:
    """The requester's ``ack``: the version written, or (a replay) the one that applied the
    request before. Returns whether this request wrote now."""
    if done.replayed is not None:
        _ack(deps, caller, done.record.tournament_id, done.replayed, replayed=True)
        return False
    _ack(deps, caller, done.record.tournament_id, done.record.version)
    return True


def enter(deps: Deps, caller: Caller | None, tournament_id: str,
          entrants: list[Entrant]) -> int:
    """Register *entrants* in one transaction (every entry paid, or none); start the
    tournament if they fill it. The requester (if any) gets its ``ack`` first, then the
    started table's players their first ``update``. Returns the tournament's new version.

    :raises ServiceError: ``registration_closed``, ``registration_not_open``,
        ``already_registered``, ``tournament_full``, ``insufficient_funds``, ``busy``.
    """
    for entrant in entrants:  # R8.4: BOTs, and only BOTs, are in the BOT namespace
        if entrant.bot != is_bot_id(entrant.player_id):
            raise ValueError(f"{entrant.player_id!r}: a BOT's id is {BOT_ID_PREFIX}<n>, and "
                             "only a BOT's")
    key = None if caller is None else _request_key(caller)
    change = partial(_register, deps, entrants)
    done: Done[_Entered] | None = None
    for pruned in (False, True):
        try:
            done = _enter_once(deps, tournament_id, entrants, key, change)
            break
        except AccountFrozen:
            raise frozen_error() from None
        except InsufficientFunds:
            whose = ("the house's bot account cannot" if all(e.bot for e in entrants)
                     else "your account cannot")
            raise ServiceError("insufficient_funds", f"{whose} cover the entry") from None
        except TooManyRegistrations as refused:
            if pruned or not forget_finished(deps, str(refused), AccountSet.REGISTERED):
                raise ServiceError("too_many_registrations", "you are registered for "
                                   f"{MAX_REGISTRATIONS_PER_PLAYER} tournaments that have "
                                   "not started: unregister from one first") from None
    assert done is not None
    if done.replayed is not None:
        if caller is not None:
            _answer(deps, caller, done)
        return done.record.version
    new, entered = done.record, done.result
    assert entered is not None
    deps.count("Registrations", len(entrants))
    if caller is not None:
        _answer(deps, caller, done)
    for callback in entered.seated_late:
        callback()
    if entered.tables:
        _announce_start(deps, new, entered.tables, entered.registrations)
    return new.version


def _enter_once(deps: Deps, tournament_id: str, entrants: list[Entrant], key: str | None,
                change: Callable[..., Any]) -> Done[_Entered]:
    """One attempt of :func:`enter`: through the tournament item, or, for a scheduled
    tournament's registration, its own items and a counter, never the tournament item (issue
    23; ``on_counters.enter`` answers ``None`` once registration closed)."""
    try:
        return transact(deps, tournament_id, change, request_key=key, refuse_unknown=True)
    except on_counters.OnCounters as read:
        counted = on_counters.enter(deps, tournament_id, entrants, key, read.record)
    if counted is None:
        return transact(deps, tournament_id, change, request_key=key, refuse_unknown=True)
    return Done(counted.record, None if counted.replayed else _Entered([], {}, []),
                not counted.replayed, counted.record.version if counted.replayed else None)


@dataclass(frozen=True, slots=True)
class _Entered:
    """What a registration did besides the tournament item: the tables it started, with the
    whole field, and what to tell the tables late entrants joined."""

    tables: list[TableRecord]
    registrations: dict[str, dict[str, Any]]
    seated_late: list[Callable[[], None]]


def _register(deps: Deps, entrants: list[Entrant], new: TournamentRecord, now: int,
              plan: Plan) -> _Entered:
    """:func:`enter`'s change: the entries paid and registered; the start if they fill it."""
    if on_counters.sharded(new):  # on counters (issue 23): the tournament item not written
        raise on_counters.OnCounters(new)
    tournaments = store(deps)
    tournament_id = new.tournament_id
    late = scheduled.late_open(new, now)  # R9.11
    _refuse_entry(tournaments, new, entrants, now, late)
    new.entrants += len(entrants)
    registered: dict[str, dict[str, Any]] = {}
    for entrant in entrants:
        plan.moves.extend(_entry_moves(new, entrant.account, now, track=not entrant.bot))
        registered[entrant.player_id] = {
            "player_id": entrant.player_id, "account": entrant.account,
            "bot": entrant.bot, "at_ms": now, "connection_id": entrant.connection_id}
        plan.writes.append(PutItem(tournament_id, REG_PREFIX + entrant.player_id,
                                   registered[entrant.player_id], new=True))
    seated_late = scheduled.seat_late(deps, new, registered, now, plan.writes) if late else []
    if not _fills(new):
        return _Entered([], {}, seated_late)
    registrations = {**dict(entries(tournaments, tournament_id)), **registered}
    if len(registrations) != new.entrants:
        # The registrations changed after the tournament item was read (an unregister, or
        # other entries, committed in between): this commit would fail on the version anyway,
        # so read again instead of starting with the wrong field (issue 29: the race answered
        # ``invalid_terms: 1 entrants outside 2..2``).
        raise ConcurrentUpdate(tournament_id)
    return _Entered(start(deps, new, registrations, now, plan.writes), registrations,
                    seated_late)


def _refuse_entry(tournaments: TournamentStore, record: TournamentRecord,
                  entrants: list[Entrant], now: int, late: bool) -> None:
    """:raises ServiceError: When the tournament does not take these entrants now."""
    if record.status is not TournamentStatus.REGISTERING and not late:
        raise ServiceError("registration_closed", "this tournament takes no more entries")
    if record.opens_ms is not None and now < record.opens_ms:
        raise ServiceError("registration_not_open",
                           "registration for this tournament has not opened yet")
    for entrant in entrants:
        if has_item(tournaments, record.tournament_id, REG_PREFIX + entrant.player_id):
            raise ServiceError("already_registered",
                               f"{entrant.player_id} is registered already")
    if record.entrants + len(entrants) > record.terms.max_players:
        raise ServiceError("tournament_full", "every seat is taken")


def _announce_start(deps: Deps, new: TournamentRecord, tables: list[TableRecord],
                    registrations: dict[str, dict[str, Any]]) -> None:
    """A Sit & Go or a Spin started: its players' connections follow their tables, which
    tell them; the next one of the same terms is listed."""
    deps.count("TournamentsStarted", 1)
    for table in tables:
        for pid, data in registrations.items():
            if data.get("connection_id") and table.seat_of(pid) is not None:
                deps.connections.add_table(str(data["connection_id"]), table.table_id)
        transaction.fan_out(deps, table, [TournamentStarted(**started_fields(new))])
    _respawn(deps, new)


def _entry_moves(record: TournamentRecord, account: str, now: int,
                 track: bool = True) -> tuple[AccountMove, ...]:
    """The entry from *account* to the tournament; a Spin's on to the house's prize account
    (R9.10), which pays its prizes, but for its bounty (R9.13), which the tournament holds
    and pays. *track*: the tournament joins the account's ``registered`` set (a player's; not
    the house's bot account)."""
    entry = record.terms.entry
    move = AccountMove(account, entry, record.tournament_id, LedgerReason.ENTRY, now,
                       registered=True if track else None)
    if record.is_spin:
        record.pool_held += record.terms.bounty
        return move, AccountMove(HOUSE_PRIZES, -record.terms.prize_entry, record.tournament_id,
                                 LedgerReason.ENTRY, now)
    record.pool_held += entry
    return (move,)


def reenter(deps: Deps, caller: Caller, request: p.Reenter) -> None:
    """R9.12: a player eliminated while late registration is open enters again: the entry
    moves from their account (a ledger entry of its own), in one transaction with a new
    starting stack at a random empty seat of the shortest table (:func:`.scheduled.seat_late`)
    and the ``reentered`` log entry. Their place will be that of this last entry."""
    done = reenter_player(deps, caller, request.tournament_id, caller.player_id,
                          caller.player_id, connection_id=caller.connection_id)
    _answer(deps, caller, done)
    assert done.result is not None or done.replayed is not None
    for callback in done.result or []:
        callback()


def reenter_player(deps: Deps, caller: Caller | None, tournament_id: str, player_id: str,
                   account: str, *, connection_id: str | None = None,
                   ) -> Done[list[Callable[[], None]]]:
    """:func:`reenter`'s transaction, also for a BOT (whose entry the house's bot account
    pays) in simulations.

    :raises ServiceError: ``reentry_off``, ``registration_closed``, ``not_registered``,
        ``not_eliminated``, ``no_entries_left``, ``tournament_full``, ``insufficient_funds``,
        ``busy``.
    """
    tournaments = store(deps)
    key = REG_PREFIX + player_id

    def again(new: TournamentRecord, now: int, plan: Plan) -> list[Callable[[], None]]:
        allowed = new.terms.entries_per_player
        if allowed <= 1:
            raise ServiceError("reentry_off", "this tournament has no re-entry")
        if not scheduled.late_open(new, now):
            raise ServiceError("registration_closed",
                               "re-entry is possible only while late registration is open")
        registration = dict(tournaments.items(new.tournament_id, key)).get(key)
        if registration is None:
            raise ServiceError("not_registered", "you are not registered")
        out = next((o for o in new.late if o["player_id"] == player_id), None)
        if out is None:
            raise ServiceError("not_eliminated", "you are still in the tournament: only a "
                               "player who was eliminated may enter again")
        used = int(registration.get("entries", 1))
        if used >= allowed:
            raise ServiceError("no_entries_left",
                               f"you have used all {allowed} entries of this tournament")
        if new.entrants + 1 > new.terms.max_players:
            raise ServiceError("tournament_full", "every entry is taken")
        new.entrants += 1
        new.reentries += 1
        new.late = [o for o in new.late if o["player_id"] != player_id]
        plan.moves.extend(_entry_moves(new, account, now, track=False))
        updated = {**registration, "entries": used + 1, "account": account,
                   "connection_id": connection_id or registration.get("connection_id")}
        plan.writes.append(PutItem(new.tournament_id, key, updated))
        plan.writes.append(log_entry(new, now, "reentered", player=player_id, entry=used + 1,
                                     entrants=new.entrants, account=account,
                                     amount=new.terms.entry, previous=out))
        return scheduled.seat_late(deps, new, {player_id: updated}, now, plan.writes)

    try:
        return transact(deps, tournament_id, again,
                        request_key=None if caller is None else _request_key(caller),
                        refuse_unknown=True)
    except AccountFrozen:
        raise frozen_error() from None
    except InsufficientFunds:
        raise ServiceError("insufficient_funds", "your account cannot cover the entry") from None


def unregister(deps: Deps, caller: Caller, request: p.Unregister) -> None:
    """R9.1: until the start, the registration goes and the entry comes back."""
    tournaments = store(deps)
    player_id = caller.player_id
    key = REG_PREFIX + player_id

    def leave(new: TournamentRecord, now: int, plan: Plan) -> None:
        if new.status is not TournamentStatus.REGISTERING:
            raise ServiceError("registration_closed",
                               "the tournament has started: entries are no longer returned")
        registration = dict(tournaments.items(new.tournament_id, key)).get(key)
        if on_counters.sharded(new) and (registration is None or "counter" in registration):
            raise on_counters.OnCounters(new)  # (issue 23) the tournament item not written
        if registration is None:
            raise ServiceError("not_registered", "you are not registered")
        if registration.get("bot"):
            raise ServiceError(BOT_SEAT, "that entry is a BOT's, the server's alone (R8.4)")
        new.entrants -= 1
        plan.moves.extend(refund_moves(new, str(registration.get("account", player_id)),
                                       LedgerReason.UNREGISTER, now))
        plan.writes.append(DeleteItem(new.tournament_id, key))

    try:
        done = transact(deps, request.tournament_id, leave, request_key=_request_key(caller),
                        refuse_unknown=True)
    except on_counters.OnCounters as read:
        counted = on_counters.leave(deps, request.tournament_id, player_id,
                                      _request_key(caller), read.record)
        if counted is not None:
            _ack(deps, caller, request.tournament_id, counted.record.version, counted.replayed)
            return
        # a registration from before the counters, or registration closed meanwhile
        done = transact(deps, request.tournament_id, leave, request_key=_request_key(caller),
                        refuse_unknown=True)
    _answer(deps, caller, done)


def cancel_tournament(deps: Deps, caller: Caller, request: p.CancelTournament) -> None:
    """Its creator cancels a tournament that has not started: every entry goes back
    (:func:`refund_entries`)."""

    def cancel(new: TournamentRecord, now: int, plan: Plan) -> None:
        if new.created_by != caller.player_id:
            raise ServiceError("not_host", "only the tournament's creator may cancel it")
        if new.status is not TournamentStatus.REGISTERING:
            raise ServiceError("registration_closed", "the tournament has started")
        cancel_registering(deps, new, now, plan)

    done = transact(deps, request.tournament_id, cancel, request_key=_request_key(caller),
                    refuse_unknown=True)
    if _answer(deps, caller, done):
        refund_entries(deps, request.tournament_id)


def cancel_registering(deps: Deps, new: TournamentRecord, now: int, plan: Plan) -> None:
    """A tournament not started is cancelled (its creator's request, or the director's, R9.15):
    the ``payout`` timer backs up :func:`refund_entries`, which returns every entry once."""
    new.status = TournamentStatus.CANCELLED
    new.timers = [Timer(f"payout:{new.version}", TimerKind.PAYOUT, now + PAYOUT_RETRY_MS)]
    arm_tournament(deps, new)
    plan.writes.append(log_entry(new, now, "cancelled", entrants=new.entrants))


def _fills(record: TournamentRecord) -> bool:
    """R9.2: a Sit & Go starts when its seats are filled, a Spin with its three players."""
    return record.terms.kind in (TournamentKind.SIT_AND_GO, TournamentKind.SPIN) \
        and record.entrants >= record.terms.max_players


def start(deps: Deps, record: TournamentRecord, registrations: dict[str, dict[str, Any]],
          now: int, writes: list[Write]) -> list[TableRecord]:
    """R9.2: seats and each table's first button drawn at random, every entrant with the same
    stack of tournament chips (R9.1, R7.6); a Spin's multiplier drawn now, shown before the
    first hand (R9.10); the prizes fixed for this field (R9.9). Edits *record* and appends the
    writes (tables, log) to *writes*; returns the new tables."""
    terms = record.terms
    record.status = TournamentStatus.RUNNING
    record.started_ms = now + START_DELAY_MS
    record.players_left = len(registrations)
    if record.is_spin:
        assert terms.spin_table is not None
        record.spin = prize_rules.draw_multiplier(terms.spin_table, deps.rng)
        record.payouts = terms.prizes(len(registrations), record.spin)
    else:
        record.payouts = terms.prizes(len(registrations))
    record.level = 1
    tables = []
    for seating in initial_seating(sorted(registrations), terms.seat_count, deps.rng):
        table = new_table(deps, record, seating.number, seating.seats, registrations, now)
        arming.arm(deps, table.table_id, table, now)
        record.tables.append(table.table_id)
        writes.append(PutTable(table, None))
        tables.append(table)
    schedule_level(record, now)
    arm_tournament(deps, record)
    pool = sum(record.payouts)
    started: dict[str, Any] = {
        "starting_stack": terms.starting_stack, "entrants": record.entrants,
        "prize_pool": pool, "payouts": list(record.payouts),
        "tables": {t.table_id: {str(i): s.player_id for i, s in enumerate(t.state.seats) if s}
                   for t in tables},
        "buttons": {t.table_id: t.tournament.first_button for t in tables if t.tournament},
        **terms.bounty_terms()}
    if record.spin is not None:
        started["multiplier"] = record.spin.multiplier
    writes.append(log_entry(record, now, "started", **started))
    writes.append(log_entry(record, now, "prizes_final", entrants=record.entrants,
                            prize_pool=pool, payouts=list(record.payouts)))
    return tables


def _respawn(deps: Deps, record: TournamentRecord) -> None:
    """A room keeps a Sit & Go or a Spin of the same terms registering: when one starts, the
    next is listed (its id derives from the one that started, so this happens once)."""
    successor = TournamentRecord(
        "u" + hashlib.sha256(f"next/{record.tournament_id}".encode()).hexdigest()[:20], 1,
        record.name, record.terms, deps.clock.now_ms(), record.created_by)
    try:
        store(deps).commit((PutTournament(successor, None),))
    except ConcurrentUpdate:
        pass


def export_log(deps: Deps, tournament_id: str) -> list[dict[str, Any]]:
    """The tournament's log, one dict per event, in time order (``naiko-tournament``, the ops
    export): a Query of the tournament's ``log#`` items."""
    return [data for _, data in store(deps).items(tournament_id, "log#")]


# -- the tournament's timers ---------------------------------------------------------------------

def tournament_timer(deps: Deps, tournament_id: str, token: str | None) -> int:
    """A tournament timer fired (``token``; ``None``: the sweep). ``level``: the level that
    started is recorded once (a late or duplicated execution finds it recorded, or its timer
    gone); ``payout``: prizes not paid yet are paid, a cancelled tournament's entries
    returned. Returns how many timers acted."""
    try:
        done = transact(deps, tournament_id, partial(_fire, deps, token))
    except (TournamentNotFound, Busy):
        return 0
    fired = done.result
    assert fired is not None
    if fired.notify:  # issue 25: after the commit, off the tournament's write
        push.tournament_starting(deps, tournament_id, done.record.name, (
            key.removeprefix(REG_PREFIX) for key, _ in store(deps).items(tournament_id,
                                                                          REG_PREFIX)))
    if fired.start:  # R9.2: transactions of its own
        scheduled.start_scheduled(deps, tournament_id)
    elif fired.pay:
        if refunds_entries(done.record):
            refund_entries(deps, tournament_id)
        else:
            pay_prizes(deps, tournament_id)
            if done.record.status is TournamentStatus.CANCELLED:  # by the director (R9.15)
                pay_cancellation(deps, tournament_id)
        retire_payout_timer(deps, tournament_id)
    return fired.count


@dataclass(frozen=True, slots=True)
class _Fired:
    count: int
    """How many timers acted."""
    pay: bool = False
    """A ``payout`` timer: pay (or refund) after the commit."""
    start: bool = False
    """A scheduled tournament's ``start`` (:func:`.scheduled.start_scheduled`)."""
    notify: bool = False
    """Its ``notify_start``: registered players are notified after the commit (issue 25)."""


def _fire(deps: Deps, token: str | None, new: TournamentRecord, now: int,
          plan: Plan) -> _Fired:
    """:func:`tournament_timer`'s change: the due timers act, the ``payout`` timer comes back
    (:data:`PAYOUT_BACKOFF_MS`)
    until every payment is made."""
    horizon = now + 1_000  # Step Functions waits to a whole second on its own clock
    due = [t for t in new.timers if t.due_ms <= horizon
           and (token is None or t.token == token or t.due_ms <= now)]
    if not due:
        raise Unchanged(_Fired(0))
    if any(t.kind is TimerKind.START for t in due):
        raise Unchanged(_Fired(1, start=True))
    pay = notify = False
    for timer in due:
        new.timers = [t for t in new.timers if t.token != timer.token]
        if timer.kind is TimerKind.NOTIFY_START:  # once: the timer goes with this write
            notify = new.status is TournamentStatus.REGISTERING
        elif timer.kind is TimerKind.LEVEL and new.started_ms is not None \
                and new.status is TournamentStatus.RUNNING:
            _record_level(new, now, timer, plan)
        elif timer.kind is TimerKind.PAYOUT:
            pay = True
        elif timer.kind is TimerKind.LATE_CLOSE and new.status is TournamentStatus.RUNNING:
            scheduled.close_late(deps, new, now, plan.writes)  # R9.11
    if pay:  # until every payment is made, the timer comes back, every minute
        new.timers.append(Timer(f"payout:{new.version}", TimerKind.PAYOUT,
                                now + PAYOUT_BACKOFF_MS))
    arm_tournament(deps, new)
    return _Fired(len(due), pay=pay, notify=notify)


def _record_level(new: TournamentRecord, now: int, timer: Timer, plan: Plan) -> None:
    """R9.3: the level that started, once, in the log; the next level's timer. A level after a
    published break (R9.14) says so: ``break`` (``after_level``, ``minutes``, ``starts_ms``,
    ``ends_ms``), so an auditor checks that no hand was dealt in it."""
    assert new.started_ms is not None
    structure = new.terms.structure
    at = level_at(structure, new.started_ms, max(now, timer.due_ms))
    if at.level.number > new.level:
        new.level = at.level.number
        level = at.level
        extra: dict[str, Any] = {}
        brk = structure.break_after(level.number - 1)
        if brk is not None:
            extra["break"] = {"after_level": brk.after_level, "minutes": brk.minutes,
                              "starts_ms": at.started_ms - brk.minutes * MINUTE_MS,
                              "ends_ms": at.started_ms}
        plan.writes.append(log_entry(new, at.started_ms, "level", level=level.number,
                                     small_blind=level.small_blind,
                                     big_blind=level.big_blind, ante=level.ante,
                                     ante_mode=level.ante_mode.value, **extra))
    schedule_level(new, now)


def sweep(deps: Deps) -> int:
    """Tournament timers past their deadline (lost executions), found on the tournaments' due
    index (a query, never a scan)."""
    if deps.tournaments is None:
        return 0
    fired = 0
    for tournament_id in dict.fromkeys(tid for tid, _ in deps.tournaments.due(
            deps.clock.now_ms())):
        if deps.deadline.remaining_ms() < transaction.ATTEMPT_WORST_MS:
            break
        fired += tournament_timer(deps, tournament_id, None)
    return fired


def is_tournament_timer(target: str) -> bool:
    """Whether a timer execution's target names a tournament (``T:<id>``), not a table."""
    return target.startswith(TOURNAMENT_PREFIX)
