""":mod:`naiko_service.usecases.room` is the room around a cash table (R7.10, R7.11): the
waiting list of a full table and the seats it offers, quick seat, and the account a player
reads (balance, open tables, the day's ratholing counter).

When a seat frees at a table with a waiting list, the first in line is offered it for 30
seconds (``Deps.offer_ms``, an ``offer`` timer), then the next: the held seat counts as taken for
everybody else (:attr:`~naiko_service.records.TableRecord.free_seats`). The offered player
takes it with an ordinary ``join_table``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from naiko.state import TableConfig, TableState, Variant

from .. import protocol as p
from ..limits import MAX_INVITED, MAX_LEFT_STACKS, MAX_WAITLIST
from ..notices import OfferExpired, SeatOffered, WaitlistChanged
from ..ports import AccountMove, TableNotFound
from ..records import TableKind, TableRecord, TableSettings, Timer, TimerKind, stakes_key
from . import path
from .base import Caller, Deps, Outcome, ServiceError
from .tournament_tables import refuse_at_tournament

QUICK_SEAT_BUY_INS = (40, 200)
"""The buy-in range, in big blinds, of a table quick seat opens (a real room's usual)."""

QUICK_SEAT_CANDIDATES = 20
"""Tables of the stakes quick seat reads from the index before choosing."""

QUICK_SEAT_PASSES_OVER = frozenset({"table_full", "table_closed", "busy", "not_invited",
                                    "bad_buy_in", "already_seated"})
"""Refusals for which quick seat tries the next table (R7.10: a table the player may not join,
its buy-in rule included, is passed over, never an error while another table can take them)."""

RATHOLE_WINDOW_MS = 30 * 60_000
"""R7.11: leaving a cash table and sitting at the same table again within 30 minutes."""

RATHOLE_BIG_BLINDS = 100
"""R7.11: the counter counts returns of players who left with this many big blinds or more."""


@dataclass(frozen=True, slots=True)
class Return:
    """R7.11: a player sitting again at a cash table they left less than 30 minutes ago."""

    left_with: int
    left_ms: int
    counts: bool
    """Whether it counts on the day's ratholing counter (they left with 100 big blinds or
    more)."""
    deep_stack: bool
    """Whether the table's buy-in rule applies (a deep-stack table: at least what they left
    with, or all they have if less)."""

    def minimum(self, balance: int) -> int:
        """The least buy-in of a deep-stack table's return (R7.11)."""
        return min(self.left_with, balance)


def note_leaving(record: TableRecord, player_id: str, stack: int, is_bot: bool,
                 now: int) -> None:
    """R7.11: remember a player who leaves with *stack*, as long as a return could count or be
    held to the deep-stack rule; entries older than 30 minutes go (the list stays small)."""
    record.left_stacks = {player: left for player, left in record.left_stacks.items()
                          if now - left["left_ms"] < RATHOLE_WINDOW_MS}
    if is_bot or record.tournament is not None:
        return
    counts = stack >= RATHOLE_BIG_BLINDS * record.state.config.big_blind
    if counts or (record.settings.deep_stack and stack > 0):
        record.left_stacks.pop(player_id, None)
        record.left_stacks[player_id] = {"stack": stack, "left_ms": now, "counts": int(counts)}
        while len(record.left_stacks) > MAX_LEFT_STACKS:  # the oldest is forgotten
            del record.left_stacks[next(iter(record.left_stacks))]


def returning(record: TableRecord, player_id: str, now: int) -> Return | None:
    """R7.11: *player_id* sitting at *record* again within 30 minutes of leaving it."""
    left = record.left_stacks.get(player_id)
    if left is None or now - left["left_ms"] >= RATHOLE_WINDOW_MS:
        return None
    return Return(left["stack"], left["left_ms"], bool(left.get("counts", 1)),
                  record.settings.deep_stack)


def required_buy_in(record: TableRecord, player_id: str, now: int) -> dict[str, int] | None:
    """R7.11: the buy-in a deep-stack table requires of *player_id*, who left it less than 30
    minutes ago (``None`` when no such rule applies): ``min`` is what they left with (never
    below the table's minimum), ``max`` the table's maximum or ``min`` when that is more;
    ``until_ms`` when the rule ends. What the view shows that player (the web form and the
    terminal client propose ``min``); a player whose account holds less than ``min`` may buy
    in for all of it (the join decides, with the balance)."""
    back = returning(record, player_id, now)
    if back is None or not back.deep_stack:
        return None
    low = max(record.settings.min_buy_in, back.left_with)
    return {"min": low, "max": max(record.settings.max_buy_in, low),
            "left_with": back.left_with, "until_ms": back.left_ms + RATHOLE_WINDOW_MS}


def join_waitlist(deps: Deps, caller: Caller, request: p.JoinWaitlist) -> None:
    """Join a full table's waiting list (R7.10): at most :data:`MAX_WAITLIST` players per table
    and :data:`MAX_WAITLISTS_PER_PLAYER` lists per player (the account's ``waiting`` set, in
    the same transaction); the connection is subscribed, so the seat offer reaches it."""
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        refuse_at_tournament(record, "a waiting list")
        if record.closed:
            raise ServiceError("table_closed", "this table is closed")
        if record.seat_of(player_id) is not None:
            raise ServiceError("already_seated", "you already have a seat at this table")
        if not may_sit(record, player_id):
            raise ServiceError("not_invited", "this private table is for invited players (R7.2)")
        if player_id in record.room.waitlist or player_id in record.room.offers:
            record.connections[player_id] = caller.connection_id
            return Outcome(quiet=True)  # already in line
        if record.free_seats:
            raise ServiceError("seat_available", "a seat is free: join the table")
        if len(record.room.waitlist) >= MAX_WAITLIST:
            raise ServiceError("waitlist_full", f"{MAX_WAITLIST} players are waiting for this "
                               "table already, the most a list may hold: try another table")
        record.room.waitlist.append(player_id)
        record.connections[player_id] = caller.connection_id
        path.watch(deps, caller.connection_id, record.table_id)
        return Outcome([WaitlistChanged(waitlist=tuple(record.room.waitlist))],
                       moves=[AccountMove(player_id, 0, record.table_id, waitlist=True)])

    path.mutate(deps, request.table_id, change, caller=caller)


def leave_waitlist(deps: Deps, caller: Caller, request: p.LeaveWaitlist) -> None:
    """Leave the waiting list (an offer held for the player goes to the next in line). Also
    answered when the table no longer holds the player (closed, gone): the account forgets it
    either way."""
    def change(record: TableRecord, now: int) -> Outcome:
        player_id = caller.player_id
        outcome = Outcome()
        if not off_the_waitlist(record, player_id, outcome):
            raise ServiceError("not_waiting", "you are not on this table's waiting list")
        return outcome

    try:
        path.mutate(deps, request.table_id, change, caller=caller)
    except (ServiceError, TableNotFound) as error:
        if isinstance(error, ServiceError) and error.code != "not_waiting":
            raise
        if request.table_id not in deps.accounts.profile(caller.player_id).waiting:
            raise ServiceError("not_waiting", "you are not on this table's waiting list") \
                from None
        deps.accounts.forget_waiting(caller.player_id, request.table_id)  # a stale entry
        path.send(deps, caller.connection_id, path.ack(caller, request.table_id, None))


def off_the_waitlist(record: TableRecord, player_id: str, outcome: Outcome) -> bool:
    """Take *player_id* off the table's waiting list (and any seat held for them), with the
    account's ``waiting`` set in the same write; whether they were on it."""
    room = record.room
    if player_id not in room.waitlist and player_id not in room.offers:
        return False
    if player_id in room.waitlist:
        room.waitlist.remove(player_id)
    room.offers.pop(player_id, None)
    outcome.events.append(WaitlistChanged(waitlist=tuple(room.waitlist)))
    outcome.moves.append(AccountMove(player_id, 0, record.table_id, waitlist=False))
    return True


def invite(record: TableRecord, player_id: str) -> None:
    """Add *player_id* to a private table's invited players (R7.12), at most
    :data:`MAX_INVITED`.

    :raises ServiceError: ``too_many_invites`` at the cap (the host may ``uninvite``).
    """
    settings = record.settings
    if player_id == settings.host or player_id in settings.invited:
        return
    if len(settings.invited) >= MAX_INVITED:
        raise ServiceError("too_many_invites", f"this private table has invited {MAX_INVITED} "
                           "players, the most a table may: its host can uninvite some")
    record.settings = replace(settings, invited=(*settings.invited, player_id))


def may_sit(record: TableRecord, player_id: str) -> bool:
    """Whether *player_id* may sit at (or queue for) the table: any player at a public table,
    the host and the invited at a private one (R7.2, R7.12)."""
    settings = record.settings
    return not settings.private or player_id == settings.host or player_id in settings.invited


def offer_seats(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
    """R7.10: hold every freed seat for the next player in line, for 30 seconds (the dealer
    calls this after every change)."""
    room = record.room
    if record.closed:
        return
    while room.waitlist and record.free_seats > 0:
        player_id = room.waitlist.pop(0)
        if record.seat_of(player_id) is not None:
            outcome.moves.append(AccountMove(player_id, 0, record.table_id, waitlist=False))
            continue
        room.offers[player_id] = now + deps.offer_ms
        outcome.events.append(SeatOffered(player_id=player_id, until_ms=now + deps.offer_ms))
        outcome.events.append(WaitlistChanged(waitlist=tuple(room.waitlist)))


def offer_timers(record: TableRecord) -> list[Timer]:
    """One ``offer`` timer per held seat: it expires the offer."""
    return [Timer(f"offer:{player}:{until}", TimerKind.OFFER, until)
            for player, until in record.room.offers.items()]


def on_offer_expired(record: TableRecord, timer: Timer) -> Outcome:
    """R7.10: the offer was not taken in time: the seat goes to the next in line."""
    _, player_id, until = timer.token.split(":", 2)
    if record.room.offers.get(player_id) != int(until):
        return Outcome()
    del record.room.offers[player_id]
    return Outcome([OfferExpired(player_id=player_id)],
                   moves=[AccountMove(player_id, 0, record.table_id, waitlist=False)])


# -- quick seat ----------------------------------------------------------------------------------

def quick_seat(deps: Deps, caller: Caller, request: p.QuickSeat) -> None:
    """R7.10: a seat at a table of this variant and these stakes (a query of the stakes index,
    never a scan), at random among the tables the player may join: a table they played at
    before first, then the fewest players, ties drawn at random. A table the player may not
    join (full, closed, private, or whose buy-in rule they cannot meet, R7.11) is passed over;
    when none can take them, a new public table is opened and the player waits in it until 3
    are there (R7.7). The ``ack`` names the table."""
    from .cash import seat_player

    if request.small_blind > request.big_blind:
        raise ServiceError("invalid_request", "the small blind cannot exceed the big blind")
    stakes = stakes_key(request.variant, request.small_blind, request.big_blind)
    published = [s.key for s in deps.quick_seat_stakes]
    if stakes not in published:
        raise ServiceError("unknown_stakes", "quick seat serves the published stakes only: "
                           + ", ".join(k.replace(":", " ") for k in published))
    profile = deps.accounts.profile(caller.player_id)
    candidates = deps.tables.find_open(stakes, limit=QUICK_SEAT_CANDIDATES)
    draw = {s.table_id: deps.rng.randrange(1 << 30) for s in candidates}  # "aleatoriu"
    ordered = sorted(candidates, key=lambda s: (s.table_id not in profile.visited, s.seated,
                                                draw[s.table_id]))
    for summary in ordered:
        try:
            path.mutate(deps, summary.table_id,
                        seat_player(deps, caller, request.buy_in, None, request.entry),
                        caller=caller)
            return
        except ServiceError as error:
            if error.code not in QUICK_SEAT_PASSES_OVER:
                raise
        except TableNotFound:
            continue
    if profile.balance < request.buy_in:  # refuse before opening a table nobody would sit at
        raise ServiceError("insufficient_funds", "your account cannot cover that buy-in")
    table_id = _open_quick_table(deps, caller, request)
    path.mutate(deps, table_id, seat_player(deps, caller, request.buy_in, None, request.entry),
                caller=caller)


def _open_quick_table(deps: Deps, caller: Caller, request: p.QuickSeat) -> str:
    """A public table of the requested game, opened by the room for the caller: it counts
    among the caller's open tables while they sit there (``settings.quick``; released when they
    leave, :func:`release_quick_table`), so one player cannot open more than
    :data:`~naiko_service.limits.MAX_OPEN_TABLES` empty tables. Replaying the request finds the
    same table."""
    from ..ports import ConcurrentUpdate, TooManyTables
    from . import dealer

    table_id = "q" + hashlib.sha256(
        f"{caller.player_id}/{caller.request_id}".encode()).hexdigest()[:20]
    big = request.big_blind
    low, high = QUICK_SEAT_BUY_INS
    config = TableConfig(variant=Variant(request.variant), seat_count=6,
                         small_blind=request.small_blind, big_blind=big, entry_rules=True)
    settings = TableSettings(
        name=f"{request.variant} {request.small_blind}/{big}", host=caller.player_id,
        min_buy_in=low * big, max_buy_in=high * big, decision_ms=deps.default_decision_ms,
        pause_ms=deps.default_pause_ms, kind=TableKind.CASH, quick=True)
    if not settings.min_buy_in <= request.buy_in <= settings.max_buy_in:
        raise ServiceError("bad_buy_in", f"a quick-seat table takes {settings.min_buy_in} to "
                           f"{settings.max_buy_in} ({low} to {high} big blinds)")
    now = deps.clock.now_ms()
    record = TableRecord(table_id, 1, settings, TableState.new(config), created_ms=now,
                         seq=1, empty_since=now, opened_by=caller.player_id)
    dealer.sync_timers(deps, record, now)
    path.arm(deps, table_id, record, now)
    try:
        deps.tables.create(record, (AccountMove(caller.player_id, 0, table_id, at_ms=now,
                                                open_tables=1),))
    except ConcurrentUpdate:
        pass  # a replay: the table exists
    except TooManyTables as exc:
        raise ServiceError("too_many_tables", path.too_many_tables_message()) from exc
    return table_id


def release_quick_table(record: TableRecord, player_id: str, outcome: Outcome) -> None:
    """A quick-seat table stops counting among its opener's open tables when they leave it
    (it is the room's table; it closes when it stays empty)."""
    if record.settings.quick and record.opened_by == player_id:
        record.opened_by = None
        outcome.moves.append(AccountMove(player_id, 0, record.table_id, open_tables=-1))


# -- the account ---------------------------------------------------------------------------------

def utc_day(now_ms: int) -> str:
    """The UTC day of *now_ms* (the ratholing counter resets at 00:00 UTC, R7.11).

    >>> utc_day(1_700_000_000_000)
    '2023-11-14'
    """
    return datetime.fromtimestamp(now_ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def get_account(deps: Deps, caller: Caller, request: p.GetAccount) -> None:
    """The player's own account: balance, open tables, and today's ratholing counter (R7.11)."""
    profile = deps.accounts.profile(caller.player_id)
    today = utc_day(deps.clock.now_ms())
    path.send(deps, caller.connection_id, {
        "type": "account", "request_id": request.request_id, "balance": profile.balance,
        "open_tables": profile.open_tables, "ratholes_today": profile.ratholes_on(today),
        "day": today})
