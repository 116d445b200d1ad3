""":mod:`naiko_service.usecases.scheduled` is what a scheduled tournament adds to the tournament
core (R7.5, R9.2, R9.11): the start at its time (or its cancellation when too few registered),
its tables written in batches, late registration, and the prizes fixed when late registration
closes. What its tables do together (balancing, breaking, the final table, hand-for-hand) is
:mod:`.mtt`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from naiko.cards import seeded_random
from naiko.tournaments.seating import initial_seating

from ..notices import TournamentStarted
from ..ports import ConcurrentUpdate, PutTable, TableNotFound, Write
from ..records import Hold, TableRecord, Timer, TimerKind
from ..tournament_records import PendingMove, Seating, TournamentRecord, TournamentStatus
from . import registrations
from .base import Deps, Outcome
from .tournament_log import LOG_PART_BYTES, log_entry
from .tournament_payments import PAYOUT_RETRY_MS, arm_tournament, settle
from .tournament_start import START_DELAY_MS, entries, new_table, schedule_level, started_fields
from .tournament_tables import close_late as close_late  # R9.11, used by tournaments
from .tournament_uow import Plan, Unchanged, store, transact

START_RETRY_MS = 30_000
"""When a start whose second transaction did not commit (a crash, ``busy``) is taken up again
by its ``start`` timer."""

TABLES_PER_TRANSACTION = 90
"""Table items written per transaction when a tournament starts (DynamoDB takes 100 items
per ``TransactWriteItems``; the last batch also carries the tournament and its log)."""


def late_open(record: TournamentRecord, now: int) -> bool:
    """R9.11: a running scheduled tournament still takes entries (until the end of its
    published late-registration level)."""
    if record.status is not TournamentStatus.RUNNING or record.started_ms is None:
        return False
    ends = record.terms.late_registration_ends_ms(record.started_ms)
    return ends is not None and now < ends and not record.payouts


def start_scheduled(deps: Deps, tournament_id: str) -> None:
    """R9.2: at its start time a scheduled tournament starts if at least its minimum number of
    players registered, otherwise it is cancelled and every entry returned. Starting: the
    registration closes and a seed for the seat draw is kept (one transaction), then the
    tables are written in batches (a retry after a crash draws the same seats and finds the
    tables it already wrote), and the last batch puts the tournament in play. Both
    transactions are :func:`.tournament_uow.transact`'s: retried on a conflict.

    :raises Busy: When a transaction met a conflict on every attempt (the start is taken up
        where it stopped by the next execution).
    """
    closed = transact(deps, tournament_id, partial(_close_registration, deps=deps))
    if closed.written and closed.record.status is TournamentStatus.CANCELLED:
        settle(deps, tournament_id)
        return
    seated = transact(deps, tournament_id, partial(_seat_field, deps=deps))
    if not seated.written or seated.result is None:
        return
    deps.count("TournamentsStarted", 1)
    from . import transaction

    for table in seated.result:
        for connection in table.connections.values():
            deps.connections.add_table(connection, table.table_id)
        transaction.fan_out(deps, table, [TournamentStarted(**started_fields(seated.record))])


def _close_registration(new: TournamentRecord, now: int, plan: Plan, *,
                        deps: Deps) -> None:
    """The start's first transaction: below ``min_players`` the tournament is cancelled
    (its ``payout`` timer returns the entries); otherwise registration closes (``starting``)
    with the seed of the seat draw."""
    if new.status is not TournamentStatus.REGISTERING:
        raise Unchanged
    new.timers = [t for t in new.timers if t.kind is not TimerKind.START]
    registrations.close(store(deps), new, plan)  # the counters' totals, folded (issue 23)
    if new.entrants < new.terms.min_players:
        new.status = TournamentStatus.CANCELLED
        new.timers.append(Timer(f"payout:{new.version}", TimerKind.PAYOUT,
                                now + PAYOUT_RETRY_MS))
        arm_tournament(deps, new)
        plan.writes.append(log_entry(new, now, "cancelled", entrants=new.entrants,
                                     reason="min_players"))
        return
    new.status = TournamentStatus.STARTING
    new.start_seed = deps.rng.randrange(2**63)
    # The second transaction may never run (a crash, or busy on every attempt): a start timer
    # stays armed until the field is seated, so its execution (or the sweep) takes it up.
    new.timers.append(Timer(f"start:{new.version}", TimerKind.START, now + START_RETRY_MS))
    arm_tournament(deps, new)


def _seat_field(new: TournamentRecord, now: int, plan: Plan, *,
                deps: Deps) -> list[TableRecord]:
    """The start's second transaction: the seats drawn from the kept seed, the tables
    written in batches (all but the last before this transaction, each found written by a
    retry), and the last batch with the tournament in play (``running``) and its log."""
    from . import arming

    if new.status is not TournamentStatus.STARTING:
        raise Unchanged
    new.timers = [t for t in new.timers if t.kind is not TimerKind.START]
    registrations = dict(entries(store(deps), new.tournament_id))
    assert new.start_seed is not None
    draw = seeded_random(new.start_seed)
    new.status = TournamentStatus.RUNNING
    new.started_ms = now + START_DELAY_MS
    new.players_left = len(registrations)
    late = new.terms.late_registration_level is not None
    new.payouts = [] if late else new.terms.prizes(len(registrations))
    new.level = 1
    layout = initial_seating(sorted(registrations), new.terms.seat_count, draw)
    tables = [new_table(deps, new, t.number, t.seats, registrations, now, multi=True,
                        rng=draw) for t in layout]
    new.seating = Seating(counts={t.number: t.player_count for t in layout},
                          table_ids={t.tournament.number: t.table_id  # type: ignore[union-attr]
                                     for t in tables},
                          next_number=len(tables) + 1)
    new.tables = [t.table_id for t in tables]
    schedule_level(new, now)
    if late:
        ends = new.terms.late_registration_ends_ms(new.started_ms)
        assert ends is not None
        new.timers.append(Timer("late_close", TimerKind.LATE_CLOSE, ends))
    arm_tournament(deps, new)
    for table in tables:
        arming.arm(deps, table.table_id, table, now)
    parts = started_parts(new, late, tables)
    # the last transaction also carries the log: the tables before it take the rest
    last = max(1, TABLES_PER_TRANSACTION - (len(parts) - 1))
    first = len(tables) - min(last, len(tables))
    batches = [tables[i:min(i + TABLES_PER_TRANSACTION, first)]
               for i in range(0, first, TABLES_PER_TRANSACTION)] + [tables[first:]]
    for batch in batches[:-1]:
        _write_tables(deps, batch)
    plan.writes.extend(PutTable(t, None) for t in batches[-1] if not _exists(deps, t.table_id))
    plan.writes.append(log_entry(new, now, "started", **_started_log(new, late),
                                 **parts[0], parts=len(parts)))
    plan.writes.extend(log_entry(new, now, "seated", part=number, **part)
                       for number, part in enumerate(parts[1:], start=2))
    if not late:
        plan.writes.append(log_entry(new, now, "prizes_final", entrants=new.entrants,
                                     prize_pool=sum(new.payouts), payouts=list(new.payouts)))
    return tables


def _started_log(new: TournamentRecord, late: bool) -> dict[str, Any]:
    """The ``started`` log entry's fields besides the seats: the field, the pool so far."""
    return {
        "starting_stack": new.terms.starting_stack, "entrants": new.entrants,
        "prize_pool": sum(new.payouts) if not late else new.terms.prize_entry * new.entrants,
        "payouts": list(new.payouts), **new.terms.bounty_terms()}


def started_parts(new: TournamentRecord, late: bool,
                  tables: list[TableRecord]) -> list[dict[str, Any]]:
    """The seat map's parts (:func:`_seat_parts`), the first sharing the ``started`` entry
    with its own fields (1,500 prizes at 10,000 players, ~10 KB: issue 23, that first part
    was 16,832 B before they counted)."""
    return _seat_parts(tables, LOG_PART_BYTES - len(json.dumps(_started_log(new, late))))


def _seat_parts(tables: list[TableRecord], first: int = LOG_PART_BYTES) -> list[dict[str, Any]]:
    """Every table's seats and first button, in parts of about :data:`LOG_PART_BYTES` (the
    first of about *first*: the rest of the ``started`` entry shares it): the first goes in
    the ``started`` entry, the others in ``seated`` entries (``part`` 2, 3, ...) written with
    it."""
    parts: list[dict[str, Any]] = [{"tables": {}, "buttons": {}}]
    size = LOG_PART_BYTES - max(first, 0)
    for table in tables:
        seats = {str(i): s.player_id for i, s in enumerate(table.state.seats) if s}
        nbytes = len(json.dumps([table.table_id, seats])) + len(table.table_id) + 8
        if size and size + nbytes > LOG_PART_BYTES:
            parts.append({"tables": {}, "buttons": {}})
            size = 0
        parts[-1]["tables"][table.table_id] = seats
        if table.tournament:
            parts[-1]["buttons"][table.table_id] = table.tournament.first_button
        size += nbytes
    return parts


def _exists(deps: Deps, table_id: str) -> bool:
    try:
        deps.tables.load(table_id)
    except TableNotFound:
        return False
    return True


def _write_tables(deps: Deps, batch: list[TableRecord]) -> None:
    tournaments = store(deps)
    try:
        tournaments.commit(tuple(PutTable(t, None) for t in batch))
    except ConcurrentUpdate:  # a retried start: write those not written yet
        missing = [t for t in batch if not _exists(deps, t.table_id)]
        if missing:
            tournaments.commit(tuple(PutTable(t, None) for t in missing))


# -- late registration (R9.11) ---------------------------------------------------------------

def seat_late(deps: Deps, new: TournamentRecord, players: dict[str, dict[str, Any]],
              now: int, writes: list[Write]) -> list[Callable[[], None]]:
    """Late entrants (R9.11) in the registering transaction: each gets the starting stack at a
    random empty seat of the shortest table, at once if that table is between hands (it is
    written in the same transaction), else when its hand ends (it pulls them, :mod:`.mtt`);
    when every table is full a new table opens and balancing fills it. Returns what to do
    after the commit (tell the tables)."""
    from . import arming, mtt, transaction
    seating = new.seating
    assert seating is not None
    after: list[Callable[[], None]] = []
    new.players_left += len(players)
    touched: dict[int, tuple[TableRecord, int]] = {}
    created: dict[int, TableRecord] = {}
    for player_id, registration in players.items():
        target = seating.shortest()
        if seating.counts[target] >= new.terms.seat_count:  # every table is full
            number = seating.next_number
            seating.next_number += 1
            table = new_table(deps, new, number, (player_id,) + (None,) * (
                new.terms.seat_count - 1), {player_id: registration}, now, multi=True)
            # Alone there: it holds (polling) until balancing or the next entrant brings a
            # second player, who releases it (:func:`.mtt._execute`).
            assert table.tournament is not None
            table.tournament = replace(table.tournament, hold=Hold.ALONE)
            table.timers = []
            created[number] = table
            seating.counts[number] = 1
            seating.table_ids[number] = table.table_id
            new.tables.append(table.table_id)
            writes.append(PutTable(table, None))
            writes.append(log_entry(new, now, "moved", player=player_id, from_table=None,
                                    to_table=table.table_id, seat=0,
                                    stack=new.terms.starting_stack))
            continue
        move = PendingMove(player_id, 0, target, "late", now)
        mtt._plan(new, move, now, writes)
        if target in created:  # opened by this transaction: between hands, written with it
            outcome = Outcome()
            table = created[target]
            mtt._seat_late(deps, table, new, move, now, outcome)
            writes.extend(outcome.writes)
            mtt._release_alone(table, now)
            continue
        if target in touched:
            table, _ = touched[target]
        else:
            try:
                loaded = deps.tables.load(seating.table_ids[target])
            except TableNotFound:
                continue
            if loaded.state.hand_in_progress or not mtt.seats_of(loaded).empty_seats:
                # the table pulls them when its hand ends, or once its players moving out
                # (R9.7) freed a seat
                continue
            touched[target] = (loaded, loaded.version)
            table = loaded
        outcome = Outcome()
        mtt._seat_late(deps, table, new, move, now, outcome)
        writes.extend(outcome.writes)
        mtt._release_alone(table, now)
    for table in created.values():
        from . import dealer

        dealer.sync_timers(deps, table, now)
        arming.arm(deps, table.table_id, table, now)
    for table, version in touched.values():
        table.version = version + 1
        table.seq += 1
        from . import dealer

        dealer.sync_timers(deps, table, now)
        arming.arm(deps, table.table_id, table, now)
        writes.append(PutTable(table, version))
        after.append(partial(transaction.fan_out, deps, table, []))
    return after


