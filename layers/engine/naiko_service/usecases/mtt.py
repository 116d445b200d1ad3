""":mod:`naiko_service.usecases.mtt` runs a scheduled tournament's tables together (R9.7, R9.8):
balancing, breaking, the final table and hand-for-hand, with no coordinator.

Each table decides **between its hands** (:func:`between_hands`): when a hand ends
(:meth:`.policies.mtt.MttPolicy.after_hand`) and when its next hand is due (:func:`at_deal`).
Both read the tournament item, whose
:class:`~naiko_service.tournament_records.Seating` holds what every table needs of the others
(how many players each has, the moves waiting for a table to finish its hand, the tables being
broken, the final table, the hand-for-hand round), and they write it only when one of those
changes: never on every hand (docs/tournaments.md, "No hot item").

A move (R9.7) happens only between hands of both tables, in ONE transaction over both table
items and the tournament item, each conditional on its version, so a player is never at two
tables or none and keeps every chip. The table that decides a move (it has two players more
than the shortest) holds its next hand; the move is done at once if the destination is between
hands, else by the destination itself when its hand ends (it pulls the players assigned to
it), which releases the source.

Hand-for-hand (R9.8): the barrier is one ``hfh#<round>#<table>`` item per table, written with
the table's own hand-end write (its players out in that round inside it); whichever write
completes the set closes the round in one tournament transaction (places across tables, R9.5)
and starts one execution per table to release it; a held table's ``hold`` timer backs that up.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from naiko import commands as cmd
from naiko.state import TableState
from naiko.tournaments import seating as rules
from naiko.tournaments.seating import TableSeats
from naiko.tournaments.structures import break_at

from ..notices import BreakStarted, FinalTable, PlayerMoved
from ..ports import (
    ConcurrentUpdate,
    PutItem,
    PutTable,
    PutTournament,
    TableNotFound,
    UnreadableTable,
)
from ..records import Hold, TableRecord, Timer, TimerKind, TournamentSeat
from ..tournament_records import PendingMove, Seating, TournamentRecord, TournamentStatus
from . import arming, deals, field_shards, time_banks
from .base import Deps, OtherTable, Outcome, engine_step
from .tournament_bounties import knock_out, show_bounties
from .tournament_log import Out, log_entry
from .tournament_tables import close_late, give_places, out_without_place, tournament_of
from .tournament_uow import Busy, Plan, Unchanged, store, transact

BREAK_TOLERANCE_MS = 1_000
"""A break is over for a table this close to its end (R9.14): its wake-up may fire that early
(:data:`~.timers.WAKE_TOLERANCE_MS`); the hand then dealt has the next level
(:func:`~naiko.tournaments.structures.level_at` gives it during a break)."""

HOLD_POLL_MS = 15_000
"""A held table looks again this often (its ``hold`` timer): it backs up a lost release."""

DIRECTOR_POLL_MS = 60_000
"""A table the director's pause holds (R9.15) looks again this often: the resume tells every
table at once; this backs up a table the resume could not write."""

FINAL_DELAY_MS = 5_000
"""Between forming the final table and its first hand: players see their new seats."""

HFH_PREFIX = "hfh#"


def hfh_key(round_: int, number: int) -> str:
    return f"{HFH_PREFIX}{round_:05d}#{number:05d}"


def seats_of(record: TableRecord) -> TableSeats:
    """The table as :mod:`naiko.tournaments.seating` sees it."""
    info = record.tournament
    assert info is not None
    state = record.state
    return TableSeats(number=info.number, seat_count=state.config.seat_count,
                      seats=tuple(s.player_id if s else None for s in state.seats),
                      last_big_blind_seat=state.last_big_blind_seat,
                      last_small_blind_position=state.last_small_blind_position,
                      waiting=info.waiting, arrived=info.arrived)


def paid_places(record: TournamentRecord) -> int:
    return sum(1 for prize in record.payouts if prize > 0)


# -- the two moments a table decides ---------------------------------------------------------

def at_deal(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
    """The table's next hand is due: whether it may deal now (see :func:`between_hands`)."""
    return between_hands(deps, record, now, outcome, outs=[], hand_ended=False)


def between_hands(deps: Deps, record: TableRecord, now: int, outcome: Outcome, *,
                  outs: list[Out], hand_ended: bool) -> bool:
    """This table is between hands: its hand ended (*hand_ended*, with its players *outs*
    stood up; :meth:`.policies.mtt.MttPolicy.after_hand`), or its next hand is due
    (:func:`at_deal`). Reads the tournament item; places (R9.5), then the moves waiting for
    this table, the final table, hand-for-hand, a break, a move out, balancing (R9.7, R9.8),
    the first that applies; writes the tournament item with the table only if it changed.
    Returns whether the table may deal now."""
    info = record.tournament
    assert info is not None
    new, expected, before = tournament_of(store(deps), outcome, info.tournament_id)
    seating = new.seating
    assert seating is not None
    me = info.number
    if me not in seating.table_ids and not record.closed:
        # The tournament, read after this table, already counts it closed: this table's
        # read is older than a write that closed it. Read both again.
        raise ConcurrentUpdate(record.table_id)
    record.tournament = info = replace(info, hold=None, started_ms=(
        info.started_ms if new.started_ms is None else new.started_ms))  # R9.15: its clock
    may_deal = True
    deferred = hand_ended and info.dealt_round is not None and info.dealt_round >= 1
    # R9.13: at the hand, places now or not (the table shows them below, show_bounties)
    knock_out(deps, record, new, outs, now, outcome)
    if outs and not deferred:  # R9.5: places now
        _eliminate(deps, record, new, outs, now, outcome)
        _plan_tables(new, now, outcome.writes)
    may_deal = _decide(deps, record, new, outs if deferred else [], now, outcome,
                       hand_ended=hand_ended, deferred=deferred)
    info = record.tournament
    assert info is not None
    if may_deal and not _can_deal(record):
        may_deal = False  # alone here: the others come to this table (R9.7)
        if info.hold is None:
            record.tournament = info = replace(info, hold=Hold.ALONE)
    record.tournament = replace(info, players_left=new.players_left,
                                payouts=tuple(new.payouts), entrants=new.entrants)
    show_bounties(record, new)  # R9.13: grown bounties of players who arrived meanwhile
    if _left_empty(record, seating, me):
        _close_empty(record, new, now, outcome)  # every player left or went out
    if new.to_document() != before:  # changed here, or written already by this change
        outcome.writes.append(PutTournament(new, expected))
    return may_deal and not record.closed


def _decide(deps: Deps, record: TableRecord, new: TournamentRecord, outs: list[Out], now: int,
            outcome: Outcome, *, hand_ended: bool, deferred: bool) -> bool:
    """:func:`between_hands`' choice once places are given: a table of a tournament over
    closes; hand-for-hand (R9.8) reports and waits as always (its barrier must hear from every
    table, paused or not); else the moves first (R9.7). The director's pause (R9.15: its
    players were told at the pause) then holds a table that could deal, and makes no move.
    Whether the table may deal."""
    seating = new.seating
    assert seating is not None
    if new.status is not TournamentStatus.RUNNING:
        record.closed = True
        return False
    if seating.hfh is not None or deferred:  # places of a round's players wait for it
        may_deal = _hand_for_hand(deps, record, new, outs, now, outcome, hand_ended)
    elif new.paused is None:
        return _moves_first(deps, record, new, now, outcome, hand_ended)
    else:
        may_deal = True
    if may_deal and new.paused is not None:
        assert record.tournament is not None
        record.tournament = replace(record.tournament, hold=Hold.DIRECTOR)
        return False
    return may_deal


def _moves_first(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
                 outcome: Outcome, hand_ended: bool) -> bool:
    """Outside hand-for-hand: the moves waiting for this table (R9.7), then the first of the
    final table, hand-for-hand starting (R9.8), a break, a move out, balancing; whether the
    table may deal."""
    _pull(deps, record, new, now, outcome)
    if _final(deps, record, new, now, outcome):
        return False
    if _start_hand_for_hand(record, new, now, outcome):
        # before breaking: the bubble must not pass while this table breaks (the break's
        # moves are planned when round 0 closes, :func:`_plan_moves`)
        return _hand_for_hand(deps, record, new, [], now, outcome, hand_ended)
    return not (_break(deps, record, new, now, outcome)
                or _pending_out(deps, record, new, now, outcome)
                or _balance(deps, record, new, now, outcome))


def _can_deal(record: TableRecord) -> bool:
    """Two players with chips are at the table (R9.4)."""
    return sum(1 for s in record.state.seats if s is not None and s.stack > 0) >= 2


def _left_empty(record: TableRecord, seating: Seating, me: int) -> bool:
    """Nobody is left at table *me* (every player left or went out) and no move from it
    waits: it closes."""
    return seating.counts.get(me) == 0 and not record.closed \
        and not any(m.from_table == me for m in seating.pending)


def _eliminate(deps: Deps, record: TableRecord, new: TournamentRecord, outs: list[Out],
               now: int, outcome: Outcome) -> None:
    seating = new.seating
    assert seating is not None and record.tournament is not None
    seating.counts[record.tournament.number] -= len(outs)
    if new.terms.late_registration_level is not None and new.payouts == []:
        if new.players_left - len(outs) > 1:
            # R9.11: places wait for the field to be known (when late registration closes)
            new.players_left -= len(outs)
            new.late += [{**o.to_dict(), "at_ms": now} for o in outs]
            return
        # R9.11: the field falls to one while late registration is open: it closes now (the
        # prizes fixed for the field, the earlier players out placed), and this hand's
        # players out and the winner get their places below, as at any finish.
        new.timers = [t for t in new.timers if t.kind is not TimerKind.LATE_CLOSE]
        close_late(deps, new, now, outcome.writes)
    new.players_left -= len(outs)  # as count_out reads the field: without them
    if field_shards.count_out(new, seating_number(record), len(outs), outcome.writes):
        # issue 23: counted on the table group's shard; no count of the field exists at this
        # moment, so no place yet (given with the prizes, field_shards.place_sharded)
        out_without_place(new, outs, now, outcome)
        return
    new.players_left += len(outs)  # counted on the field item: give_places places them
    if new.serial and new.shards:
        tournament_id = new.tournament_id  # the shards' players get their places now
        outcome.after.append(lambda: field_shards.place_sharded(deps, tournament_id))

    def remaining() -> tuple[str, str]:
        winner = next(s.player_id for s in record.state.seats if s is not None)
        return winner, record.room.account_of(winner)

    give_places(deps, new, outs, now, outcome, remaining)


def seating_number(record: TableRecord) -> int:
    assert record.tournament is not None
    return record.tournament.number


def _close_empty(record: TableRecord, new: TournamentRecord, now: int,
                 outcome: Outcome) -> None:
    """A table nobody is left at closes (broken, or every player went out or moved)."""
    seating = new.seating
    info = record.tournament
    assert seating is not None and info is not None
    number = info.number
    seating.counts.pop(number, None)
    seating.table_ids.pop(number, None)
    if number in seating.breaking:
        seating.breaking.remove(number)
    seating.final_held = [n for n in seating.final_held if n != number]
    new.tables = [t for t in new.tables if t != record.table_id]
    record.closed = True
    record.timers = [t for t in record.timers if t.kind is TimerKind.WAKE]
    outcome.writes.append(log_entry(new, now, "table_broken", table=record.table_id))


# -- moves (R9.7) --------------------------------------------------------------------------------

def _pull(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
          outcome: Outcome) -> None:
    """Do the moves waiting for this table (it is between hands): from each source (which
    holds between its hands), or a late entrant (R9.11)."""
    seating = new.seating
    assert seating is not None and record.tournament is not None
    me = record.tournament.number
    for move in [m for m in seating.pending if m.to_table == me]:
        if move.from_table == 0:
            _seat_late(deps, record, new, move, now, outcome)
            continue
        source = _table(deps, outcome, seating, move.from_table, record)
        if source is None or source.state.hand_in_progress:
            continue  # it will hold after its hand; the next between-hands tries again
        _execute(deps, source, record, new, move, now, outcome)


def _table(deps: Deps, outcome: Outcome, seating: Seating, number: int,
           record: TableRecord) -> TableRecord | None:
    """Table *number* as this change sees it: *record* itself, or another table read once per
    change (:attr:`~.base.Outcome.others`; written with it if changed)."""
    table_id = seating.table_ids.get(number)
    if table_id is None:
        return None
    if table_id == record.table_id:
        return record
    other = outcome.others.get(table_id)
    if other is None:
        try:
            loaded = deps.tables.load(table_id)
        except TableNotFound:
            return None
        other = OtherTable(loaded, loaded.version)
        loaded.version += 1
        outcome.others[table_id] = other
    return other.record


def _touch(outcome: Outcome, table: TableRecord, events: list[Any]) -> None:
    """*table* (another table of this change) is written with it; its players are told
    *events* after the commit."""
    other = outcome.others.get(table.table_id)
    if other is None:
        return  # the table this change is about
    if not other.changed:
        other.changed = True
        table.seq += 1
    other.events.extend(events)


def _execute(deps: Deps, source: TableRecord, destination: TableRecord, new: TournamentRecord,
             move: PendingMove, now: int, outcome: Outcome) -> None:
    """One move, both tables between hands: the player stands up at *source* with their stack
    and sits at *destination*. One of the two is the table this change is about; the other is
    written in the same transaction, conditional on its version (:func:`_touch`)."""
    seating = new.seating
    assert seating is not None and source.tournament and destination.tournament
    if not seats_of(destination).empty_seats:
        return  # its own player waiting to leave still sits there: later
    if destination.seat_of(move.player_id) is not None or destination.closed:
        # The tournament was read before a write that did this move (or closed the table)
        # and the table after it: read both again.
        raise ConcurrentUpdate(destination.table_id)
    seating.pending.remove(move)
    from_seat = source.seat_of(move.player_id)
    if from_seat is None:  # gone meanwhile (eliminated): nothing to move
        seating.counts[move.to_table] -= 1
        outcome.writes.append(_move_entry(new, now, "move_cancelled", move))
        _release(source, seating, now)
        _touch(outcome, source, [])
        return
    to_seats = seats_of(destination)
    if move.reason == "balance":
        # Decided on the counts (which include every move waiting at either table, so the
        # seats there may not tell). Several moves from one table are decided together, so a
        # move may leave its destination one over the source; it is dropped only when it would
        # leave it two over (players arrived there meanwhile, or went out at the source).
        if seating.counts[move.to_table] - seating.counts[move.from_table] >= 2:
            seating.counts[move.from_table] += 1
            seating.counts[move.to_table] -= 1
            outcome.writes.append(_move_entry(new, now, "move_cancelled", move))
            _release(source, seating, now)
            _touch(outcome, source, [])
            return
        to_seat = rules.seat_reached_soonest(to_seats)
        wait = rules.must_wait(to_seats, to_seat)
    else:
        empty = to_seats.empty_seats
        to_seat = empty[deps.rng.randrange(len(empty))]
        wait = rules.must_wait(to_seats, to_seat)
    seat = source.state.seats[from_seat]
    assert seat is not None
    stack, is_bot, absent = seat.stack, seat.is_bot, seat.sitting_out
    left = engine_step(deps, source, cmd.StandUp(seat_index=from_seat))
    arrived = engine_step(deps, destination, cmd.SitDown(
        seat_index=to_seat, player_id=move.player_id, stack=stack, is_bot=is_bot))
    if absent:  # R9.4: still absent at the new table
        arrived.add(engine_step(deps, destination, cmd.SitOut(seat_index=to_seat)))
    info = destination.tournament
    destination.tournament = replace(
        info, waiting=info.waiting | {to_seat} if wait else info.waiting,
        arrived=info.arrived if wait else info.arrived | {to_seat})
    _release_alone(destination, now)
    source.tournament = replace(source.tournament,
                                waiting=source.tournament.waiting - {from_seat},
                                arrived=source.tournament.arrived - {from_seat})
    connection = source.connections.pop(move.player_id, None)
    if connection is not None:
        destination.connections[move.player_id] = connection
        outcome.after.append(partial(deps.connections.add_table, connection,
                                     destination.table_id))
    account = source.room.funding.pop(move.player_id, None)
    if account is not None:
        destination.room.funding[move.player_id] = account
    time_banks.carry(source, destination, move.player_id)  # R8.7: the bank moves along
    source.disconnected.pop(move.player_id, None)
    event = PlayerMoved(player_id=move.player_id, from_table=source.table_id,
                        to_table=destination.table_id, seat_index=to_seat, stack=stack)
    left.events.append(event)
    arrived.events.append(event)
    outcome.writes.append(log_entry(new, now, "moved", player=move.player_id,
                                    from_table=source.table_id,
                                    to_table=destination.table_id, seat=to_seat, stack=stack))
    _release(source, seating, now)
    if source.tournament.number in seating.breaking and not any(
            s is not None for s in source.state.seats):
        _close_empty(source, new, now, outcome)
    for table, told in ((source, left), (destination, arrived)):
        if table.table_id in outcome.others:
            _touch(outcome, table, told.events)
        else:
            outcome.events.extend(told.events)


def _release_alone(table: TableRecord, now: int) -> None:
    """A table held for want of a second player deals again once it has one."""
    info = table.tournament
    assert info is not None
    if info.hold == Hold.ALONE and sum(
            1 for s in table.state.seats if s is not None and s.stack > 0) >= 2:
        table.tournament = replace(info, hold=None)
        table.timers = [t for t in table.timers if t.kind is not TimerKind.NEXT_HAND]
        table.timers.append(Timer(f"next_hand:moved:{now}", TimerKind.NEXT_HAND, now))


def _release(source: TableRecord, seating: Seating, now: int) -> None:
    """A table that held for its players to move deals again once none is waiting to."""
    info = source.tournament
    assert info is not None
    if info.hold in (Hold.MOVE, Hold.ALONE) and not any(
            m.from_table == info.number for m in seating.pending):
        source.tournament = replace(info, hold=None)
        source.timers = [t for t in source.timers if t.kind is not TimerKind.NEXT_HAND]
        source.timers.append(Timer(f"next_hand:moved:{now}", TimerKind.NEXT_HAND, now))


def _seat_late(deps: Deps, record: TableRecord, new: TournamentRecord, move: PendingMove,
               now: int, outcome: Outcome) -> None:
    """A late entrant (R9.11, or a re-entry, R9.12) takes a random empty seat here, with the
    starting stack. With no seat empty yet (counted short, but a player moving out still sits
    here, R9.7) the move stays waiting: the table pulls the entrant when it is next between
    hands (:func:`_pull`)."""
    seating = new.seating
    assert seating is not None and record.tournament is not None
    seats = seats_of(record)
    empty = seats.empty_seats
    if not empty:
        return
    seating.pending.remove(move)
    seat = empty[deps.rng.randrange(len(empty))]
    wait = rules.must_wait(seats, seat)
    registration = dict(store(deps).items(new.tournament_id, f"reg#{move.player_id}"))
    data = registration.get(f"reg#{move.player_id}", {})
    outcome.add(engine_step(deps, record, cmd.SitDown(
        seat_index=seat, player_id=move.player_id, stack=new.terms.starting_stack,
        is_bot=bool(data.get("bot")))))
    if data.get("bot"):
        record.room.funding[move.player_id] = str(data.get("account"))
    if data.get("connection_id"):
        record.connections[move.player_id] = str(data["connection_id"])
    info = record.tournament
    record.tournament = replace(info, waiting=info.waiting | {seat} if wait else info.waiting,
                                arrived=info.arrived if wait else info.arrived | {seat})
    outcome.writes.append(log_entry(new, now, "moved", player=move.player_id, from_table=None,
                                    to_table=record.table_id, seat=seat,
                                    stack=new.terms.starting_stack))


def _pending_out(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
                 outcome: Outcome) -> bool:
    """A player of this table is waiting to move: try the move now (its destination may be
    between hands); hold while it waits (R9.7: only between hands of both tables)."""
    seating = new.seating
    assert seating is not None and record.tournament is not None
    me = record.tournament.number
    for move in [m for m in seating.pending if m.from_table == me]:
        _push(deps, record, new, move, now, outcome)
    if any(m.from_table == me for m in seating.pending):
        # From the item as the moves done left it (a player gone takes their seat out of
        # ``waiting``/``arrived``), not as it was before them.
        record.tournament = replace(record.tournament, hold=Hold.MOVE)
        return True
    return False


def _balance(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
             outcome: Outcome) -> bool:
    """R9.7: while this table has two players or more than the shortest table, the player who
    would be big blind next here moves there, then the next such player, until it is within
    one (:func:`naiko.tournaments.seating.balance_destinations`: counts include the moves
    decided, and the table next to break takes a player only when no other can). The moves
    whose destination is between hands are done at once; the table holds for the others.
    Returns whether it holds."""
    seating = new.seating
    info = record.tournament
    assert seating is not None and info is not None
    me = info.number
    if record.state.last_big_blind_seat is None:
        return False
    destinations = rules.balance_destinations(seating.counts, me, seating.breaking)
    if not destinations:
        return False
    moving = {m.player_id for m in seating.pending}
    movers = [seat.player_id for seat in (record.state.seats[i] for i in
                                          rules.big_blind_order(seats_of(record)))
              if seat is not None and seat.player_id not in moving]
    planned = [PendingMove(player, me, target, "balance", now)
               for player, target in zip(movers, destinations, strict=False)]
    for move in planned:
        _plan(new, move, now, outcome.writes)
    record.tournament = replace(info, hold=Hold.MOVE)
    for move in planned:
        _push(deps, record, new, move, now, outcome)
    return record.tournament.hold == Hold.MOVE


def _plan(new: TournamentRecord, move: PendingMove, now: int, writes: list[Any]) -> None:
    """A move decided (R9.7, R9.11): waiting in ``pending`` until both tables are between
    hands, counted at both tables from now on, and logged (``move_planned``)."""
    seating = new.seating
    assert seating is not None
    seating.pending.append(move)
    if move.from_table:
        seating.counts[move.from_table] -= 1
    seating.counts[move.to_table] += 1
    writes.append(_move_entry(new, now, "move_planned", move))


def _move_entry(new: TournamentRecord, now: int, kind: str, move: PendingMove) -> PutItem:
    """A ``move_planned`` or ``move_cancelled`` log entry: player, tables (ids; ``None`` for a
    late entrant's origin), reason."""
    seating = new.seating
    assert seating is not None
    return log_entry(new, now, kind, player=move.player_id,
                     from_table=seating.table_ids.get(move.from_table),
                     to_table=seating.table_ids.get(move.to_table), reason=move.reason)


def _push(deps: Deps, record: TableRecord, new: TournamentRecord, move: PendingMove, now: int,
          outcome: Outcome) -> None:
    """Do a move from this table at once if its destination is between hands."""
    assert new.seating is not None
    destination = _table(deps, outcome, new.seating, move.to_table, record)
    if destination is None or destination is record or destination.state.hand_in_progress \
            or (destination.tournament is not None and destination.tournament.hold == Hold.FINAL):
        return
    _execute(deps, record, destination, new, move, now, outcome)


def _break(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
           outcome: Outcome) -> bool:
    """R9.7: while the players fit at fewer tables, the highest-numbered table breaks; its
    players go one by one, in random order, to the then shortest table (a random empty seat
    there, taken when that table is between hands). Returns whether this table holds."""
    seating = new.seating
    info = record.tournament
    assert seating is not None and info is not None
    me = info.number
    _mark_breaking(new, now, outcome.writes)
    if me not in seating.breaking:
        return False
    _plan_break(deps, new, record, now, outcome.writes)
    record.tournament = replace(info, hold=Hold.BREAK)
    for move in [m for m in seating.pending if m.from_table == me]:
        _push(deps, record, new, move, now, outcome)
    return True


def _plan_break(deps: Deps, new: TournamentRecord, table: TableRecord, now: int,
                writes: list[Any]) -> None:
    """R9.7: the players of breaking *table* not moving yet go, one by one in random order,
    each to the then shortest other table (counted at both at once, after the moves already
    decided)."""
    seating = new.seating
    assert table.tournament is not None and seating is not None
    number = table.tournament.number
    moving = {m.player_id for m in seating.pending}
    players = [s.player_id for s in table.state.seats
               if s is not None and s.player_id not in moving]
    rules._shuffle(players, deps.rng)
    for player in players:
        target = seating.shortest(exclude={number})
        _plan(new, PendingMove(player, number, target, "break", now), now, writes)


def _mark_breaking(new: TournamentRecord, now: int, writes: list[Any]) -> None:
    """While the players fit at fewer tables, the highest-numbered table not breaking yet
    breaks (the published order, R9.7). A move decided to a table that now breaks and not done
    yet goes to the then shortest table instead (a balancing move only if still needed),
    rather than sitting the player down at a table about to break."""
    seating = new.seating
    assert seating is not None
    needed = rules.tables_needed(new.players_left, new.terms.seat_count)
    added: list[int] = []
    while len(seating.counts) - len(seating.breaking) > max(needed, 1):
        number = max(n for n in seating.counts if n not in seating.breaking)
        seating.breaking.append(number)
        added.append(number)
    for move in [m for m in seating.pending if m.to_table in added]:
        seating.pending.remove(move)
        seating.counts[move.to_table] -= 1
        if move.from_table:
            seating.counts[move.from_table] += 1
        writes.append(_move_entry(new, now, "move_cancelled", move))
        if move.reason == "balance":
            again = [] if move.from_table in seating.breaking else rules.balance_destinations(
                seating.counts, move.from_table, seating.breaking)
            if not again:
                continue  # no longer needed: the source deals again when it looks (its poll)
            target = again[0]
        else:
            target = seating.shortest(exclude={move.from_table})
        _plan(new, replace(move, to_table=target), now, writes)


# -- the final table (R9.7) ----------------------------------------------------------------------

def _final(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
           outcome: Outcome) -> bool:
    """When the players fit at one table, every table holds after its hand; the last one to
    hold forms the final table, seats and button drawn at random. Returns whether this table
    holds."""
    seating = new.seating
    info = record.tournament
    assert seating is not None and info is not None
    if not seating.final:
        if len(seating.counts) < 2 or rules.tables_needed(new.players_left,
                                                          new.terms.seat_count) > 1:
            return False
        _start_final(new, now, outcome.writes)
    elif rules.tables_needed(new.players_left, new.terms.seat_count) > 1:
        # Entrants came after the final table was decided (late registration, R9.11, or a
        # re-entry, R9.12): the field needs tables again. The tables held for it let go at
        # their next look (their ``hold`` timer) and play on.
        seating.final = False
        seating.final_held = []
        outcome.writes.append(log_entry(new, now, "final_table_cancelled",
                                        players_left=new.players_left))
        return False
    if info.number not in seating.final_held:
        seating.final_held.append(info.number)
    record.tournament = replace(info, hold=Hold.FINAL)
    if set(seating.final_held) >= set(seating.counts):
        _form_final(deps, record, new, now, outcome)
    return True


def _start_final(new: TournamentRecord, now: int, writes: list[Any]) -> None:
    """The final table is to form: moves between tables do not matter any more (everyone is
    reseated), so those waiting are dropped (their counts go back; ``move_cancelled`` in the
    log); late entrants waiting for a seat stay (R9.11)."""
    seating = new.seating
    assert seating is not None
    seating.final = True
    for move in [m for m in seating.pending if m.from_table != 0]:
        seating.pending.remove(move)
        seating.counts[move.from_table] += 1
        seating.counts[move.to_table] -= 1
        writes.append(_move_entry(new, now, "move_cancelled", move))
    seating.breaking = []


def _form_final(deps: Deps, record: TableRecord, new: TournamentRecord, now: int,
                outcome: Outcome) -> None:
    """The final table forms once every table is between hands (the last one forms it): a
    new table item, every player reseated at random (R9.7) with their stack, the old tables
    closed, all in this write."""
    seating = new.seating
    assert seating is not None and record.tournament is not None
    others = _others_between_hands(deps, outcome, seating, record)
    if others is None:
        return  # not everyone is between hands yet: the last one forms it
    tables = [record, *others]
    layout = rules.final_table([seats_of(t) for t in tables], new.terms.seat_count, deps.rng)
    final = _final_record(deps, record, new, layout, now, {t.table_id for t in tables})
    _seat_final(deps, final, tables, layout, outcome)
    final.timers.append(Timer("next_hand:0", TimerKind.NEXT_HAND, now + FINAL_DELAY_MS))
    arming.arm(deps, final.table_id, final, now)
    outcome.writes.append(PutTable(final, None))
    event = FinalTable(table_id=final.table_id)
    for table in tables:
        _close_for_final(deps, table)
    for other in others:
        _touch(outcome, other, [event])
    outcome.events.append(event)
    outcome.announce.append(final)
    seating.counts = {layout.number: layout.player_count}
    seating.table_ids = {layout.number: final.table_id}
    seating.final = False
    seating.final_held = []
    new.tables = [final.table_id]
    assert final.tournament is not None
    outcome.writes.append(log_entry(new, now, "final_table", table=final.table_id,
                                    seats={str(i): p for i, p in enumerate(layout.seats) if p},
                                    button=final.tournament.first_button))


def _others_between_hands(deps: Deps, outcome: Outcome, seating: Seating,
                          record: TableRecord) -> list[TableRecord] | None:
    """The tournament's other tables, or ``None`` while one of them plays a hand."""
    assert record.tournament is not None
    others: list[TableRecord] = []
    for number in sorted(seating.counts):
        if number == record.tournament.number:
            continue
        other = _table(deps, outcome, seating, number, record)
        if other is None or other.state.hand_in_progress:
            return None
        others.append(other)
    return others


def _final_record(deps: Deps, record: TableRecord, new: TournamentRecord,
                  layout: TableSeats, now: int, merged: set[str]) -> TableRecord:
    """The final table's item, empty, dealing absent players (R9.4), its first button drawn
    among the seats the layout fills (R9.2). Its id is the first free one of
    ``<tournament>-final``, ``<tournament>-final-<now>``, ``<tournament>-final-<now>-<k>``
    (:func:`_final_id`)."""
    assert record.tournament is not None
    config = replace(record.state.config, deal_absent=True)
    occupied = [i for i, p in enumerate(layout.seats) if p is not None]
    first_button = occupied[deps.rng.randrange(len(occupied))]
    info = record.tournament
    table_id = _final_id(deps, new.tournament_id, now, merged)
    return TableRecord(table_id, 1,
                       replace(record.settings, name=f"{new.name} final table"),
                       TableState.new(config), created_ms=now, seq=1,
                       tournament=TournamentSeat(
                           new.tournament_id, info.started_ms, info.structure,
                           payouts=tuple(new.payouts), entrants=new.entrants,
                           players_left=new.players_left, first_button=first_button,
                           number=layout.number, multi=True, bounty=info.bounty,
                           bounties=tuple(sorted(new.bounties.items()))))


def _final_id(deps: Deps, tournament_id: str, now: int, merged: set[str]) -> str:
    """The id of a final table forming now: ``<tournament>-final`` the first time; when a
    table of that id exists (a final table that re-entries or late entrants split again,
    R9.11, R9.12, then formed anew: it is one of the tables *merged* now, or a closed table
    of an earlier formation), ``<tournament>-final-<now>``, then ``-<k>`` after it.

    Only an id no table holds: the new table is written on the condition that its item does
    not exist, so an id taken by any earlier final table would fail that condition on every
    attempt (the write answered ``busy``, the tournament stuck)."""
    base = f"{tournament_id}-final"
    for candidate in (base, f"{base}-{now}", *(f"{base}-{now}-{k}" for k in range(2, 10))):
        if candidate in merged:
            continue
        try:
            deps.tables.load(candidate)
        except TableNotFound:
            return candidate
        except UnreadableTable:
            continue  # it exists (its state cannot be read): taken
    raise ConcurrentUpdate(base)  # ten final tables in one millisecond: read again


def _seat_final(deps: Deps, final: TableRecord, tables: list[TableRecord],
                layout: TableSeats, outcome: Outcome) -> None:
    """Every player sits at the final table as the layout says, with their stack, sitting
    out if they were; their connection and their prize's account follow them."""
    seats_by_player = {s.player_id: (t, s) for t in tables
                       for s in t.state.seats if s is not None}
    for index, player_id in enumerate(layout.seats):
        if player_id is None:
            continue
        table, seat = seats_by_player[player_id]
        engine_step(deps, final, cmd.SitDown(seat_index=index, player_id=player_id,
                                             stack=seat.stack, is_bot=seat.is_bot))
        if seat.sitting_out:
            engine_step(deps, final, cmd.SitOut(seat_index=index))
        connection = table.connections.get(player_id)
        if connection is not None:
            final.connections[player_id] = connection
            outcome.after.append(partial(deps.connections.add_table, connection,
                                         final.table_id))
        account = table.room.funding.get(player_id)
        if account is not None:
            final.room.funding[player_id] = account
        time_banks.carry(table, final, player_id)  # R8.7: the bank moves along


def _close_for_final(deps: Deps, table: TableRecord) -> None:
    """A table whose players went to the final table: empty, closed, no timer but its
    wake-up marker."""
    for index, occupant in enumerate(table.state.seats):
        if occupant is not None:
            engine_step(deps, table, cmd.StandUp(seat_index=index))
    table.closed = True
    assert table.tournament is not None
    table.tournament = replace(table.tournament, hold=None)
    table.timers = [t for t in table.timers if t.kind is TimerKind.WAKE]


# -- hand-for-hand (R9.8) ------------------------------------------------------------------------

def _start_hand_for_hand(record: TableRecord, new: TournamentRecord, now: int,
                         outcome: Outcome) -> bool:
    """The next elimination would reach the prizes (the bubble) with more than one table:
    hand-for-hand starts (round 0: the hands in play finish first)."""
    seating = new.seating
    assert seating is not None
    if seating.hfh is not None or seating.hfh_over or len(seating.counts) < 2 \
            or not new.payouts or not rules.bubble(new.players_left, paid_places(new)):
        return False
    seating.hfh = 0
    outcome.writes.append(log_entry(new, now, "hand_for_hand", on=True))
    return True


def _hand_for_hand(deps: Deps, record: TableRecord, new: TournamentRecord, outs: list[Out],
                   now: int, outcome: Outcome, hand_ended: bool) -> bool:
    """This table between hands during hand-for-hand: it reports the round it finished (with
    its players out, whose places wait for the round to close) and holds, or deals the round
    that started. Returns whether it may deal."""
    seating = new.seating
    info = record.tournament
    assert seating is not None and info is not None
    round_ = seating.hfh
    done = -1 if info.hfh_done is None else info.hfh_done
    if hand_ended:
        finished = 0 if info.dealt_round is None else info.dealt_round
        if finished > done:
            _report(deps, record, new, finished, outs, now, outcome)
        return False
    if round_ is None:  # closed meanwhile
        return True
    if done >= round_ or (round_ == 0 and done < 0):
        if done < round_:
            _report(deps, record, new, round_, [], now, outcome)
        else:  # waiting for the others; close the round if they are done (a lost closer)
            _hold_for_round(record, done, now)
            tournament_id = new.tournament_id
            outcome.after.append(lambda: close_round(deps, tournament_id, done))
        return False
    # Between rounds: the moves the last round's close planned (a broken table's players,
    # balancing, R9.7) happen first, each while both tables are between hands (they all are
    # until they deal this round: whichever of the two comes first does the move).
    _pull(deps, record, new, now, outcome)
    if _pending_out(deps, record, new, now, outcome):
        return False
    can_deal = sum(1 for s in record.state.seats if s is not None and s.stack > 0) >= 2
    if not can_deal:  # alone at the table: this round has nothing to deal here
        _report(deps, record, new, round_, [], now, outcome)
        return False
    # The moves just done changed this table's item (a player who left takes their seat out
    # of ``waiting``/``arrived``, one who came in is put there): from it, not from *info*.
    info = record.tournament
    assert info is not None
    record.tournament = replace(info, dealt_round=round_)
    return True


def _report(deps: Deps, record: TableRecord, new: TournamentRecord, round_: int,
            outs: list[Out], now: int, outcome: Outcome) -> None:
    info = record.tournament
    assert info is not None
    outcome.writes.append(PutItem(new.tournament_id, hfh_key(round_, info.number),
                                  {"table": info.number, "round": round_,
                                   "out": [o.to_dict() for o in outs]}, new=True))
    record.tournament = replace(info, hfh_done=round_, dealt_round=None)
    _hold_for_round(record, round_, now)
    tournament_id = new.tournament_id
    outcome.after.append(lambda: close_round(deps, tournament_id, round_))


def _hold_for_round(record: TableRecord, round_: int, now: int) -> None:
    info = record.tournament
    assert info is not None
    record.tournament = replace(info, hold=Hold.HFH)
    record.timers = [t for t in record.timers if t.kind is not TimerKind.NEXT_HAND]


def hold_timers(record: TableRecord, now: int) -> list[Timer]:
    """The ``hold`` timer of a held table (:func:`.dealer.sync_timers` keeps it). During
    hand-for-hand its token names the round it waits for (``hold:hfh:<k>``), so the round's
    release (an execution started with that token) fires it at once; any other hold's token
    carries its deadline (``hold:<reason>:<table>:<due>``), so an execution left over from an
    earlier hold (a write that lost its condition had armed it) finds no such timer and does
    nothing."""
    info = record.tournament
    if info is None or info.hold is None or record.closed:
        return []
    if info.hold == Hold.HFH:
        token = f"hold:hfh:{info.hfh_done}"
        existing = next((t for t in record.timers if t.token == token), None)
        return [existing or Timer(token, TimerKind.HOLD, now + HOLD_POLL_MS)]
    prefix = f"hold:{info.hold}:{info.number}:"
    existing = next((t for t in record.timers if t.token.startswith(prefix)), None)
    due = now + (DIRECTOR_POLL_MS if info.hold == Hold.DIRECTOR else HOLD_POLL_MS)
    if info.hold == Hold.PAUSE:  # R9.14: the break's end (a hold:pause:<n>:<resume> timer)
        brk = break_at(info.structure, info.started_ms, now)
        due = brk.ends_ms if brk is not None else now
    if info.hold == Hold.DEAL:  # R9.16: the deal clock (a hold:deal:<n>:<ends_ms> timer)
        due = deals.clock_due(record) or now
    return [existing or Timer(f"{prefix}{due}", TimerKind.HOLD, due)]


def at_break(record: TableRecord, now: int, outcome: Outcome) -> bool:
    """R9.14: whether a published break is on at *now* (or ends within a timer's tolerance,
    :data:`~.timers.WAKE_TOLERANCE_MS`: the wake-up at its end may come that early). The
    first time a table finds it on, between hands, it holds (:attr:`Hold.PAUSE`, its
    ``hold`` timer due when play resumes) and tells its players when that is
    (``break_started``)."""
    info = record.tournament
    assert info is not None
    brk = break_at(info.structure, info.started_ms, now)
    if brk is None or brk.ends_ms - now <= BREAK_TOLERANCE_MS:
        return False
    outcome.events.append(BreakStarted(after_level=brk.brk.after_level,
                                       minutes=brk.brk.minutes, resumes_ms=brk.ends_ms,
                                       next_level=brk.brk.after_level + 1))
    record.tournament = replace(info, hold=Hold.PAUSE)
    return True


def on_hold(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """A held table looks again: it lets go of its hold, and the dealer's next deal
    (:func:`at_deal`) decides afresh, from the tournament as it is now."""
    info = record.tournament
    if info is None or info.hold is None:
        return Outcome()
    if info.hold == Hold.DEAL:  # R9.16: the deal clock ran out
        return deals.on_clock(record, now, timer)
    if info.hold == Hold.DIRECTOR and store(deps).load(info.tournament_id).paused is not None:
        return Outcome(quiet=True)  # R9.15: still paused (its hold timer polls again)
    record.tournament = replace(info, hold=None)
    record.timers = [t for t in record.timers if t.kind is not TimerKind.NEXT_HAND]
    return Outcome()


def close_round(deps: Deps, tournament_id: str, round_: int) -> bool:
    """If every table reported hand-for-hand round *round_* finished: its players out get
    their places together (ranked by their stacks at the start of that round's hand, R9.5),
    and the next round starts, or hand-for-hand ends once a player went out; then every table
    is released. Whoever completes the round closes it (a duplicate finds it closed)."""
    try:
        done = transact(deps, tournament_id, partial(_close_round, deps, round_))
    except Busy:
        return False
    if not done.written or done.result is None or done.record.seating is None:
        return False
    for callback in done.result.after:
        callback()
    now = deps.clock.now_ms()
    for table_id in done.record.seating.table_ids.values():  # release every table
        deps.scheduler.schedule(table_id, f"hold:hfh:{round_}", now, TimerKind.HOLD)
    return True


def _close_round(deps: Deps, round_: int, new: TournamentRecord, now: int,
                 plan: Plan) -> Outcome:
    """:func:`close_round`'s change (:class:`Unchanged` until every table reported)."""
    tournaments = store(deps)
    seating = new.seating
    if seating is None or seating.hfh != round_:
        raise Unchanged
    reports = tournaments.items(new.tournament_id, f"{HFH_PREFIX}{round_:05d}#")
    reported = {int(data["table"]) for _, data in reports}
    if not reported >= set(seating.counts):
        raise Unchanged
    outs = [Out.from_dict(o) for _, data in reports for o in data["out"]]
    outcome = Outcome()
    if outs:
        by_table: dict[str, int] = {}
        for out in outs:
            by_table[out.table] = by_table.get(out.table, 0) + 1
        numbers = {v: k for k, v in seating.table_ids.items()}
        for table_id, count in by_table.items():
            seating.counts[numbers[table_id]] -= count
        give_places(deps, new, outs, now, outcome, partial(_last_player, deps, new),
                    round_)
        plan.moves.extend(outcome.moves)  # the winner's own bounty (R9.13)
        _plan_tables(new, now, outcome.writes)
    if (round_ >= 1 and outs) or seating.final \
            or not rules.bubble(new.players_left, paid_places(new)):
        seating.hfh = None
        seating.hfh_over = True
        outcome.writes.append(log_entry(new, now, "hand_for_hand", on=False))
    else:
        seating.hfh = round_ + 1
        _plan_moves(deps, new, now, outcome.writes)
    plan.writes.extend(outcome.writes)
    return outcome


def _plan_moves(deps: Deps, new: TournamentRecord, now: int, writes: list[Any]) -> None:
    """Hand-for-hand goes on: the moves R9.7 needs before the next round, decided now that
    every table is between hands (each table does its own when released, before it deals):
    the players of a table to break, one by one in random order, each to the then shortest
    table; then, while a table has two or more players more than the shortest, its next big
    blinds move (as many as it takes, :func:`_balance`'s rule), the largest table first. Reads
    only the tables that give players."""
    seating = new.seating
    assert seating is not None
    for number in list(seating.breaking):
        if any(m.from_table == number for m in seating.pending):
            continue
        try:
            table = deps.tables.load(seating.table_ids[number])
        except TableNotFound:
            continue
        _plan_break(deps, new, table, now, writes)
    given: set[int] = set()
    while True:
        live = [n for n in seating.counts if n not in seating.breaking and n not in given]
        if not live:
            return
        largest = max(live, key=lambda n: (seating.counts[n], -n))
        destinations = rules.balance_destinations(seating.counts, largest, seating.breaking)
        if not destinations:
            return
        given.add(largest)
        try:
            table = deps.tables.load(seating.table_ids[largest])
        except TableNotFound:
            continue
        moving = {m.player_id for m in seating.pending}
        movers = [seat.player_id for seat in (table.state.seats[i] for i in
                                              rules.big_blind_order(seats_of(table)))
                  if seat is not None and seat.player_id not in moving]
        for player, target in zip(movers, destinations, strict=False):
            _plan(new, PendingMove(player, largest, target, "balance", now), now, writes)


def _plan_tables(new: TournamentRecord, now: int, writes: list[Any]) -> None:
    """After places changed the field: the tables it no longer needs are marked to break, or
    the final table to form; each table acts on it when it is next between hands."""
    seating = new.seating
    assert seating is not None
    needed = rules.tables_needed(new.players_left, new.terms.seat_count)
    if needed <= 1 and len(seating.counts) > 1:
        _start_final(new, now, writes)
        return
    _mark_breaking(new, now, writes)


def _last_player(deps: Deps, new: TournamentRecord) -> tuple[str, str]:
    """The one player left (a round that leaves one: they won) and their prize's account."""
    assert new.seating is not None
    for table_id in new.seating.table_ids.values():
        table = deps.tables.load(table_id)
        if table is not None:
            for seat in table.state.seats:
                if seat is not None and seat.stack > 0:
                    return seat.player_id, table.room.account_of(seat.player_id)
    raise RuntimeError("no player left")
