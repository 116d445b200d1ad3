""":mod:`naiko_service.usecases.room` is the room around a cash table (R7.10, R7.11): the
waiting list of a full table and the seats it offers, and who returns within 30 minutes. Record
changes only, made inside a table write; the requests (``join_waitlist``, ``leave_waitlist``)
are :mod:`.cash`'s, quick seat and the account :mod:`.lobby`'s.

When a seat frees at a table with a waiting list, the first in line is offered it for 30
seconds (``Deps.offer_ms``, an ``offer`` timer), then the next: the held seat counts as taken for
everybody else (:attr:`~naiko_service.records.TableRecord.free_seats`). The offered player
takes it with an ordinary ``join_table``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ..limits import MAX_INVITED, MAX_LEFT_STACKS
from ..notices import OfferExpired, SeatOffered, WaitlistChanged
from ..ports import AccountMove
from ..records import TableRecord, Timer, TimerKind
from .base import Deps, Outcome, ServiceError

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


def release_quick_table(record: TableRecord, player_id: str, outcome: Outcome) -> None:
    """A quick-seat table stops counting among its opener's open tables when they leave it
    (it is the room's table; it closes when it stays empty)."""
    if record.settings.quick and record.opened_by == player_id:
        record.opened_by = None
        outcome.moves.append(AccountMove(player_id, 0, record.table_id, open_tables=-1))


def utc_day(now_ms: int) -> str:
    """The UTC day of *now_ms* (the ratholing counter resets at 00:00 UTC, R7.11).

    >>> utc_day(1_700_000_000_000)
    '2023-11-14'
    """
    return datetime.fromtimestamp(now_ms / 1000, tz=UTC).strftime("%Y-%m-%d")


