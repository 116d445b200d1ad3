""":mod:`naiko_service.usecases.director`: the tournament director's tools (R9.15).

An operator (the same role and authorization as the account actions of R10.3,
:mod:`.accounts`: ``scripts/director.py`` calls this module with the AWS credentials of an
operator; no player's token reaches it) may:

- **pause** a running tournament: the tournament item says so (:attr:`TournamentRecord.paused`)
  and its level and late-registration timers stop; every table is told at once
  (``tournament_paused``), finishes the hand it is playing, then holds
  (:attr:`~naiko_service.records.Hold.DIRECTOR`): no hand, decision clock or level runs;
- **resume** it: the tournament's clock (:attr:`TournamentRecord.started_ms`, from which every
  level, break and the end of late registration are worked out, R9.3) moves on by the time it
  was paused, so the level goes on with the time it had left; the timers come back, every table
  is told (``tournament_resumed``) and deals;
- **add a minute** (or a few) to the current level: the clock moves on by that much, the level
  timer is armed again under a new token (an execution armed before finds none), every table is
  told (``level_extended``);
- **move a player** from one table to another, both between hands, keeping their stack and time
  bank (the move of R9.7, in one transaction over both tables and the tournament); refused
  mid-hand (``hand_in_progress``) or to a full table (``table_full``), and at a Sit & Go or a
  Spin, which has one table (``single_table``);
- **cancel** it: before its start every entry goes back (the creator's cancellation,
  :func:`.tournaments.cancel_registering`); after it (paused, every table between hands) the
  prizes left are split among the players still in by the terms' published policy
  (``TournamentTerms.cancellation``: equal chop, chip-count, ICM; :mod:`naiko.tournaments.icm`)
  and paid once each (``paid#`` items), with what eliminated players are still owed; at a
  knockout tournament each player still in is paid their own bounty back with their share
  (R9.13). The pause ends a deal offered at the final table (R9.16,
  :func:`.deals.paused`).

**A Sit & Go or a Spin** (one table, which deals without reading the tournament item: its level
comes from its own copy of the clock, R9.3) gets each action in ONE transaction over its table
and the tournament item (:func:`_at_its_table`), so its table cannot miss it: the pause holds
it at once (a hand in progress is played to its end, then nothing is dealt), the resume and the
added minutes move its clock with the tournament's, the cancel closes it. Its cancel needs its
table between hands (paused or not: the write is conditional on the table's version, so the
stacks are final). A Spin's cancel splits only the entries, not the drawn multiplier's pool
(:func:`_cancel_prizes`).

Every action is written, in the transaction of the change it makes, with its operator log entry
(:class:`~naiko_service.ports.PutOperatorAction`: who, what, why, when) and a ``director`` entry
of the tournament log (JSON Lines); a refusal (:class:`.accounts.OperatorError`, a stable
``code``) writes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from naiko.tournaments import icm
from naiko.tournaments.prizes import split_pool
from naiko.tournaments.structures import MINUTE_MS, TournamentKind, level_at

from ..notices import LevelExtended, TournamentCancelled, TournamentPaused, TournamentResumed
from ..ports import OperatorAction, PutItem, PutOperatorAction, PutTournament, TableNotFound
from ..records import Hold, TableRecord, Timer, TimerKind
from ..tournament_records import PendingMove, TournamentRecord, TournamentStatus
from . import deals, mtt, transaction
from .accounts import Log, OperatorError, _text, log_action
from .base import Deps, NoOp, Outcome, ServiceError
from .tournament_log import in_parts, log_entry
from .tournament_payments import (
    CANCEL_PREFIX,
    PAYOUT_RETRY_MS,
    arm_tournament,
    pay_cancellation,
    pay_prizes,
    refund_entries,
)
from .tournament_start import schedule_level
from .tournament_uow import Busy, Plan, store, transact

Change = Callable[[TournamentRecord, int, Plan, TableRecord | None], None]
"""A director's change of the tournament item (in its transaction; the table of a Sit & Go or
a Spin, as that one transaction writes it, or ``None`` for a scheduled tournament's)."""
TableChange = Callable[[TournamentRecord, TableRecord, int], Outcome]
"""What a table is told of the change (the tournament as written)."""

MAX_MINUTES = 60
"""At most this many minutes added to a level at once."""

HELD_TIMERS = (TimerKind.LEVEL, TimerKind.LATE_CLOSE)
"""The tournament's timers that stop while it is paused (its clock stops)."""

SPLIT_CHUNK = 500
"""Players per ``cancel#<k>`` item of a cancellation's split (an item stays far below 400 KB)."""


class _Refused(ServiceError):
    """A refusal inside :func:`move_player`'s table change: a :class:`ServiceError`, so the
    table's write path (:func:`.transaction.mutate`) writes nothing and cancels no hand, and
    turned into an :class:`OperatorError` for the operator. Never sent to a player (no route
    reaches this module): its codes are the operator's, like :mod:`.accounts`' ones, not the
    protocol's error codes."""


def _action(operator: str, action: str, subject: str, reason: str, now_ms: int,
            **details: Any) -> OperatorAction:
    return OperatorAction(uuid.uuid4().hex, _text("the operator", operator), action,
                          _text("the subject", subject), _text("the reason", reason), now_ms,
                          details)


def _record(writes: list[Any], new: TournamentRecord, action: OperatorAction, now: int,
            **fields: Any) -> None:
    """The action's two log entries, in the change's transaction."""
    writes.append(log_entry(new, now, "director", action=action.action,
                            operator=action.operator, reason=action.reason,
                            action_id=action.action_id, **fields))
    writes.append(PutOperatorAction(replace(action, at_ms=now)))


def _running(new: TournamentRecord) -> None:
    if new.status is not TournamentStatus.RUNNING:
        raise OperatorError("not_running", f"the tournament is {new.status.value}, not running")


def _single_table(record: TournamentRecord) -> str | None:
    """The one table of a running Sit & Go or Spin (``None``: a scheduled tournament, or one
    not started)."""
    if record.seating is None and record.terms.kind is not TournamentKind.SCHEDULED \
            and record.tables:
        return record.tables[0]
    return None


def _load(deps: Deps, tournament_id: str) -> TournamentRecord:
    try:
        return store(deps).load(tournament_id)
    except ServiceError as refused:  # no_tournaments
        raise OperatorError(refused.code, str(refused)) from None
    except Exception:
        raise OperatorError("unknown_tournament", "no tournament has that id") from None


def _apply(deps: Deps, tournament_id: str, change: Change, table_change: TableChange) -> None:
    """Apply a director's *change* and tell the tables (*table_change*). A scheduled
    tournament: the tournament's transaction, then every table told (a table busy then reads
    the tournament at its next deal, :func:`.mtt.between_hands`). A Sit & Go or a Spin: ONE
    transaction over its table and the tournament item, each on its version
    (:func:`_at_its_table`): its table never reads the tournament to deal (R9.3), so it must
    not miss the change.

    :raises OperatorError: the change's refusal, ``unknown_tournament``, ``busy`` (nothing
        written)."""
    table_id = _single_table(_load(deps, tournament_id))
    if table_id is not None:
        _at_its_table(deps, tournament_id, table_id, change, table_change)
        return
    done = _transact(deps, tournament_id, partial(_untabled, change))
    _tell(deps, _tables(done.record), partial(table_change, done.record))


def _untabled(change: Change, new: TournamentRecord, now: int, plan: Plan) -> None:
    change(new, now, plan, None)


def _at_its_table(deps: Deps, tournament_id: str, table_id: str, change: Change,
                  table_change: TableChange) -> None:
    """:func:`_apply` at a single table: the table's write path (:func:`.transaction.mutate`:
    fanned out to its players, timers kept) carries the tournament item on its version, the
    change's log entries and operator log entry. Deadlines past act first, as in every table
    write (in a write of their own when they write the tournament's items too: a hand ended,
    :func:`.transaction.mutate`). A refusal inside is a
    :class:`_Refused`, so the table's path writes nothing and cancels no hand."""
    def both(table: TableRecord, now: int) -> Outcome:
        stored = store(deps).load(tournament_id)
        new = stored.copy()
        new.version += 1
        plan = Plan()
        try:
            change(new, now, plan, table)
            outcome = table_change(new, table, now)
        except OperatorError as refused:
            raise _Refused(refused.code, str(refused)) from None
        except NoOp:
            raise _Refused("not_running", "the tournament's table is closed") from None
        assert not plan.moves  # the director's changes move no chips in their own write
        outcome.writes.extend(plan.writes)
        outcome.writes.append(PutTournament(new, stored.version))
        return outcome

    try:
        transaction.mutate(deps, table_id, both)
    except ServiceError as refused:  # the change's, or busy
        raise OperatorError(refused.code, str(refused)) from None
    except TableNotFound:
        raise OperatorError("not_running", "the tournament's table is gone") from None


def _transact(deps: Deps, tournament_id: str, change: Any) -> Any:
    try:
        return transact(deps, tournament_id, change, refuse_unknown=True)
    except ServiceError as refused:  # unknown_tournament, busy, no_tournaments
        raise OperatorError(refused.code, str(refused)) from None


def _tables(record: TournamentRecord) -> list[str]:
    if record.seating is not None:
        return list(record.seating.table_ids.values())
    return list(record.tables)


def _tell(deps: Deps, table_ids: list[str], change: Callable[[TableRecord, int], Outcome],
          ) -> None:
    """*change* at each table (after the tournament's commit); a busy or closed table is left
    to its own next deal, which reads the tournament."""
    for table_id in table_ids:
        try:
            transaction.internal(deps, table_id, change)
        except ServiceError:
            deps.count("DirectorTableBusy", 1)


def _refresh(record: TableRecord, started_ms: int, now: int) -> None:
    """The table's copy of the tournament's clock, after the director moved it."""
    info = record.tournament
    assert info is not None
    ends = info.level_ends_ms
    at = level_at(info.structure, started_ms, now)
    if at.level.number == info.announced_level:
        ends = at.next_ms
    record.tournament = replace(info, started_ms=started_ms, level_ends_ms=ends)


# -- pause and resume -------------------------------------------------------------------------

def pause(deps: Deps, tournament_id: str, operator: str, reason: str,
          log: Log = log_action) -> OperatorAction:
    """Pause a running tournament (see the module docstring).

    :raises OperatorError: ``unknown_tournament``, ``not_running``, ``already_paused``
        (nothing written)."""
    action = _action(operator, "pause", tournament_id, reason, deps.clock.now_ms(),
                     tournament_id=tournament_id)

    def change(new: TournamentRecord, now: int, plan: Plan, table: TableRecord | None) -> None:
        _running(new)
        if new.paused is not None:
            raise OperatorError("already_paused", "the tournament is paused already")
        held = [t for t in new.timers if t.kind in HELD_TIMERS]
        new.timers = [t for t in new.timers if t.kind not in HELD_TIMERS]
        new.paused = {"since_ms": now, "operator": action.operator, "reason": action.reason,
                      "timers": [Timer(t.token, t.kind, t.due_ms).to_dict() for t in held]}
        arm_tournament(deps, new)
        _record(plan.writes, new, action, now)

    _apply(deps, tournament_id, change, partial(_pause_table, action.reason))
    log(action)
    return action


def _pause_table(reason: str, tournament: TournamentRecord, record: TableRecord,
                 now: int) -> Outcome:
    """A table told of the pause holds now if it is between hands; one playing a hand plays it
    to its end: a scheduled tournament's holds then (:func:`.mtt.between_hands` reads the
    tournament), a Sit & Go's or a Spin's, which deals without reading it, holds now (its
    hold only stops the next deal, :meth:`.policies.sit_and_go.SitAndGoPolicy.may_deal`)."""
    info = record.tournament
    if info is None or record.closed:
        raise NoOp
    outcome = Outcome()
    outcome.events.append(TournamentPaused(reason=reason))
    deals.paused(record, now, outcome)  # R9.16: the pause ends a deal offered or asked for
    info = record.tournament
    assert info is not None
    if info.hold is None and not (record.state.hand_in_progress and info.multi):
        record.tournament = replace(info, hold=Hold.DIRECTOR)
        record.timers = [t for t in record.timers if t.kind is not TimerKind.NEXT_HAND]
    return outcome


def resume(deps: Deps, tournament_id: str, operator: str, reason: str,
           log: Log = log_action) -> OperatorAction:
    """Resume a paused tournament: its clock moves on by the time paused.

    :raises OperatorError: ``unknown_tournament``, ``not_running``, ``not_paused`` (nothing
        written)."""
    action = _action(operator, "resume", tournament_id, reason, deps.clock.now_ms(),
                     tournament_id=tournament_id)
    told: dict[str, Any] = {}

    def change(new: TournamentRecord, now: int, plan: Plan, table: TableRecord | None) -> None:
        _running(new)
        if new.paused is None or new.started_ms is None:
            raise OperatorError("not_paused", "the tournament is not paused")
        paused_ms = max(0, now - int(new.paused["since_ms"]))
        held = [Timer.from_dict(t) for t in new.paused.get("timers", [])]
        new.paused = None
        new.started_ms += paused_ms
        new.clock_shifts += 1
        new.timers += [Timer(t.token, t.kind, t.due_ms + paused_ms) for t in held
                       if t.kind is not TimerKind.LEVEL]
        _clock_moved(deps, new, now, plan, action, told, paused_ms=paused_ms)

    _apply(deps, tournament_id, change, partial(_resume_table, told))
    log(action)
    return action


def _clock_moved(deps: Deps, new: TournamentRecord, now: int, plan: Plan,
                 action: OperatorAction, told: dict[str, Any], **fields: Any) -> None:
    """After the tournament's clock moved (a resume, minutes added): the level timer armed
    for the level's new end, what the tables are told (*fields*, the level and its end), the
    action logged in the same transaction."""
    assert new.started_ms is not None
    schedule_level(new, now)
    arm_tournament(deps, new)
    at = level_at(new.terms.structure, new.started_ms, now)
    told.update(**fields, level=at.level.number, level_ends_ms=at.next_ms)
    _record(plan.writes, new, action, now, **told)


def _resume_table(told: dict[str, Any], tournament: TournamentRecord, record: TableRecord,
                  now: int) -> Outcome:
    info = record.tournament
    if info is None or record.closed:
        raise NoOp
    assert tournament.started_ms is not None
    _refresh(record, tournament.started_ms, now)
    if info.hold == Hold.DIRECTOR:
        assert record.tournament is not None
        record.tournament = replace(record.tournament, hold=None)
        record.timers = [t for t in record.timers if t.kind is not TimerKind.NEXT_HAND]
    outcome = Outcome()
    outcome.events.append(TournamentResumed(**told))
    return outcome


# -- the clock --------------------------------------------------------------------------------

def add_minutes(deps: Deps, tournament_id: str, operator: str, reason: str, minutes: int = 1,
                log: Log = log_action) -> OperatorAction:
    """Add *minutes* to the current level (every later level and break starts that much later;
    so does the end of late registration, which is the end of a level).

    :raises OperatorError: ``invalid_request``, ``unknown_tournament``, ``not_running``
        (nothing written)."""
    if not 1 <= minutes <= MAX_MINUTES:
        raise OperatorError("invalid_request", f"add 1-{MAX_MINUTES} minutes")
    action = _action(operator, "add_minutes", tournament_id, reason, deps.clock.now_ms(),
                     tournament_id=tournament_id, minutes=minutes)
    told: dict[str, Any] = {}

    def change(new: TournamentRecord, now: int, plan: Plan, table: TableRecord | None) -> None:
        _running(new)
        assert new.started_ms is not None
        shift = minutes * MINUTE_MS
        new.started_ms += shift
        new.clock_shifts += 1
        new.timers = [Timer(t.token, t.kind, t.due_ms + shift) if t.kind is TimerKind.LATE_CLOSE
                      else t for t in new.timers]
        if new.paused is not None:  # the held late-registration timer moves too
            new.paused["timers"] = [
                {**t, "due_ms": int(t["due_ms"]) + shift} if t["kind"] == TimerKind.LATE_CLOSE
                else t for t in new.paused["timers"]]
        _clock_moved(deps, new, now, plan, action, told, minutes=minutes)

    _apply(deps, tournament_id, change, partial(_extend_table, told))
    log(action)
    return action


def _extend_table(told: dict[str, Any], tournament: TournamentRecord, record: TableRecord,
                  now: int) -> Outcome:
    if record.tournament is None or record.closed:
        raise NoOp
    assert tournament.started_ms is not None
    _refresh(record, tournament.started_ms, now)
    outcome = Outcome()
    outcome.events.append(LevelExtended(**told))
    return outcome


# -- moving a player --------------------------------------------------------------------------

def _number(record: TournamentRecord, table: str) -> int:
    """A table of the tournament by its number or id."""
    assert record.seating is not None
    ids = record.seating.table_ids
    if table.isdigit() and int(table) in ids:
        return int(table)
    for number, table_id in ids.items():
        if table_id == table:
            return number
    raise OperatorError("unknown_table", f"the tournament has no table {table!r} in play")


def move_player(deps: Deps, tournament_id: str, player_id: str, from_table: str,
                to_table: str, operator: str, reason: str,
                log: Log = log_action) -> OperatorAction:
    """Move *player_id* from *from_table* to *to_table* (numbers or ids), both between hands,
    with their stack and time bank, in one transaction over both tables and the tournament.

    :raises OperatorError: ``unknown_tournament``, ``single_table`` (a Sit & Go or a Spin:
        there is no other table), ``not_running``, ``unknown_table``, ``same_table``,
        ``not_at_table``, ``move_pending``, ``hand_in_progress``, ``table_full``, ``busy``
        (nothing written)."""
    record = _load(deps, tournament_id)
    if record.terms.kind is not TournamentKind.SCHEDULED:
        raise OperatorError("single_table", f"a {record.terms.kind.value} plays at one table: "
                            "there is no other table to move a player to")
    _running(record)
    if record.seating is None:
        raise OperatorError("not_running", "the tournament has no tables in play")
    source, target = _number(record, from_table), _number(record, to_table)
    if source == target:
        raise OperatorError("same_table", "the player is at that table already")
    assert record.seating is not None
    action = _action(operator, "move", _text("the player", player_id), reason,
                     deps.clock.now_ms(), tournament_id=tournament_id,
                     from_table=record.seating.table_ids[source],
                     to_table=record.seating.table_ids[target])
    try:
        transaction.mutate(deps, record.seating.table_ids[source],
                           partial(_move, deps, tournament_id, action, source, target))
    except ServiceError as refused:
        raise OperatorError(refused.code, str(refused)) from None
    except TableNotFound:
        raise OperatorError("unknown_table", f"table {from_table!r} is gone") from None
    log(action)
    return action


def _move(deps: Deps, tournament_id: str, action: OperatorAction, source: int, target: int,
          record: TableRecord, now: int) -> Outcome:
    """:func:`move_player`'s change of the source table (refusals are :class:`ServiceError`:
    the table's path writes nothing for them)."""
    player = action.player_id
    stored = store(deps).load(tournament_id)
    new = stored.copy()
    new.version += 1
    seating = new.seating
    if new.status is not TournamentStatus.RUNNING or seating is None or record.closed:
        raise _Refused("not_running", "the tournament is not running at that table")
    if record.state.hand_in_progress:
        raise _Refused("hand_in_progress", f"table {source} is playing a hand: move the "
                           "player between hands (pause the tournament first)")
    if record.seat_of(player) is None:
        raise _Refused("not_at_table", f"{player} is not seated at table {source}")
    if any(m.player_id == player for m in seating.pending):
        raise _Refused("move_pending", f"{player} is already waiting to move")
    outcome = Outcome()
    destination = mtt._table(deps, outcome, seating, target, record)
    if destination is None or destination.closed or target in seating.breaking:
        raise _Refused("unknown_table", f"table {target} is not in play")
    if destination.state.hand_in_progress:
        raise _Refused("hand_in_progress", f"table {target} is playing a hand: move the "
                           "player between hands (pause the tournament first)")
    if not mtt.seats_of(destination).empty_seats:
        raise _Refused("table_full", f"table {target} has no empty seat")
    move = PendingMove(player, source, target, "director", now)
    mtt._plan(new, move, now, outcome.writes)
    mtt._execute(deps, record, destination, new, move, now, outcome)
    _record(outcome.writes, new, action, now, player=player,
            from_table=seating.table_ids[source], to_table=seating.table_ids[target])
    outcome.writes.append(PutTournament(new, stored.version))
    return outcome


# -- cancellation -----------------------------------------------------------------------------

def cancel(deps: Deps, tournament_id: str, operator: str, reason: str,
           log: Log = log_action) -> OperatorAction:
    """Cancel a tournament. Before its start every entry goes back; after it (paused first,
    every table between hands) the prizes left are split by the terms' cancellation policy.

    :raises OperatorError: ``unknown_tournament``, ``not_running`` (finished, cancelled,
        starting), ``not_paused`` (a scheduled tournament), ``hand_in_progress``,
        ``late_registration_open``, ``busy`` (nothing written)."""
    record = _load(deps, tournament_id)
    action = _action(operator, "cancel", tournament_id, reason, deps.clock.now_ms(),
                     tournament_id=tournament_id)
    if record.status is TournamentStatus.REGISTERING:
        from .tournaments import cancel_registering

        def before(new: TournamentRecord, now: int, plan: Plan) -> None:
            if new.status is not TournamentStatus.REGISTERING:
                raise OperatorError("not_running", f"the tournament is {new.status.value}")
            cancel_registering(deps, new, now, plan)
            _record(plan.writes, new, action, now, started=False)

        _transact(deps, tournament_id, before)
        refund_entries(deps, tournament_id)
        log(action)
        return action
    # a Sit & Go's or a Spin's stacks are read from its table in the cancel's own write
    stacks = None if _single_table(record) is not None else _stacks_between_hands(deps, record)
    told: dict[str, Any] = {}
    _apply(deps, tournament_id, partial(_cancel_started, deps, action, stacks, told),
           partial(_close_table, told))
    pay_prizes(deps, tournament_id)  # what eliminated players are still owed
    pay_cancellation(deps, tournament_id)
    log(action)
    return action


def _stacks_between_hands(deps: Deps, record: TournamentRecord) -> dict[str, tuple[int, str,
                                                                                   str]]:
    """Every player still in: ``player -> (stack, account, table)``, read from tables that
    are all between hands while the tournament is paused (none can deal: R9.15)."""
    _running(record)
    if record.paused is None:
        raise OperatorError("not_paused", "pause the tournament first: its tables finish "
                            "their hands and hold, then the stacks are final")
    if record.late:
        raise OperatorError("late_registration_open", "players went out while late "
                            "registration is open and have no place yet: cancel after it "
                            "closes (or before the start, which returns every entry)")
    stacks: dict[str, tuple[int, str, str]] = {}
    for table_id in _tables(record):
        try:
            table = deps.tables.load(table_id)
        except TableNotFound:
            continue
        if table.closed:
            continue
        if table.state.hand_in_progress:
            raise OperatorError("hand_in_progress", f"table {table_id} is still playing its "
                                "hand: cancel once every table holds")
        stacks.update(_stacks_at(table))
    return stacks


def _stacks_at(table: TableRecord) -> dict[str, tuple[int, str, str]]:
    return {seat.player_id: (seat.stack, table.room.account_of(seat.player_id), table.table_id)
            for seat in table.state.seats if seat is not None and seat.stack > 0}


def _cancel_prizes(new: TournamentRecord, players: int) -> list[int]:
    """The prizes the players still in share (places 1..*players*, the zeros dropped). A
    Spin's drawn pool (its multiplier, R9.10) is not at stake: only the entries are (the
    prize part of each, as R9.9 counts an ordinary pool), split as the drawn row splits
    (winner takes all at the low multipliers); docs/tournaments.md says why."""
    payouts = new.payouts
    if new.spin is not None:
        payouts = split_pool(new.entrants * new.terms.prize_entry, new.spin.split)
    prizes = list(payouts[:players])
    while prizes and prizes[-1] == 0:
        prizes.pop()
    return prizes


def _cancel_started(deps: Deps, action: OperatorAction,
                    read: dict[str, tuple[int, str, str]] | None, told: dict[str, Any],
                    new: TournamentRecord, now: int, plan: Plan,
                    table: TableRecord | None) -> None:
    """The cancellation's transaction after the start: the split, in ``cancel#<k>`` items
    (each player's place by stack, share and account; paid once each from them,
    :func:`.tournament_payments.pay_cancellation`), the status, the payout timer, the logs.
    At a knockout tournament (R9.13) each row also carries the player's own bounty as it is
    now (grown, in progressive knockout), paid back with their share, so nothing stays held
    (a transaction per player: this one stays within DynamoDB's 100 items however many are
    still in). A Sit & Go's or a Spin's *table* (its stacks; *read* is ``None``) is written
    in this transaction: between hands, paused or not (its version holds the stacks)."""
    _running(new)
    if table is not None:
        if table.state.hand_in_progress:
            raise OperatorError("hand_in_progress", "the table is playing a hand: pause "
                                "first (it holds when the hand ends), then cancel")
        stacks = _stacks_at(table)
    elif new.paused is None:
        raise OperatorError("not_paused", "the tournament was resumed meanwhile")
    else:
        assert read is not None
        stacks = read
    if len(stacks) != new.players_left:
        raise OperatorError("busy", f"{len(stacks)} players seated with chips, the "
                            f"tournament counts {new.players_left}: try again")
    players = sorted(stacks, key=lambda p: (-stacks[p][0], p))
    prizes = _cancel_prizes(new, len(players))
    policy = applied = new.terms.cancellation
    if policy is icm.SplitPolicy.ICM and len(players) > icm.MAX_ICM_PLAYERS:
        applied = icm.SplitPolicy.CHIP_COUNT  # exact ICM is for a final table (docs)
    shares = (icm.split(applied, [stacks[p][0] for p in players], prizes) if prizes
              else [0] * len(players))
    places: dict[str, int] = {}
    for player in players:  # equal stacks share the best place they occupy
        places[player] = 1 + next(i for i, p in enumerate(players)
                                  if stacks[p][0] == stacks[player][0])
    # R9.13: each player still in gets their own bounty back (as it is now) with their share
    rows = [{"player_id": p, "place": places[p], "prize": share, "account": stacks[p][1],
             "table": stacks[p][2], "stack": stacks[p][0],
             "bounty": new.bounty_of(p) if new.terms.bounty else 0}
            for p, share in zip(players, shares, strict=True)]
    for k in range(0, len(rows), SPLIT_CHUNK):
        plan.writes.append(PutItem(new.tournament_id, f"{CANCEL_PREFIX}{k // SPLIT_CHUNK:05d}",
                                   {"rows": rows[k:k + SPLIT_CHUNK]}, new=True))
    new.bounties = {}  # the rows carry them
    new.status = TournamentStatus.CANCELLED
    new.paused = None
    new.players_left = 0
    new.timers = [Timer(f"payout:{new.version}", TimerKind.PAYOUT, now + PAYOUT_RETRY_MS)]
    arm_tournament(deps, new)
    told.update(policy=policy.value, applied=applied.value,
                prizes={r["player_id"]: r["prize"] for r in rows})
    # issue 23: every player still in has a stack, a prize and a place here (about 45 B
    # each): in parts under 16 KB, the ``cancelled`` entry with the first, ``cancelled_part``
    # entries (``part`` 2, 3, ...) the others, as the ``finished`` entry's
    parts = in_parts({"stacks": {p: stacks[p][0] for p in players},
                      "prizes": {str(r["player_id"]): r["prize"] for r in rows}, "places": places})
    plan.writes.append(log_entry(new, now, "cancelled", entrants=new.entrants, started=True,
                                 policy=policy.value, applied=applied.value, **parts[0],
                                 parts=len(parts)))
    plan.writes.extend(log_entry(new, now, "cancelled_part", part=number, **part)
                       for number, part in enumerate(parts[1:], start=2))
    _record(plan.writes, new, action, now, started=True, policy=policy.value,
            applied=applied.value)


def _close_table(told: dict[str, Any], tournament: TournamentRecord, record: TableRecord,
                 now: int) -> Outcome:
    if record.tournament is None or record.closed:
        raise NoOp
    record.closed = True
    record.timers = []
    mine = {p: told["prizes"][p] for s in record.state.seats if s is not None
            for p in [s.player_id] if p in told["prizes"]}
    outcome = Outcome()
    outcome.events.append(TournamentCancelled(policy=told["applied"], prizes=mine))
    return outcome


__all__ = ["Busy", "OperatorError", "add_minutes", "cancel", "move_player", "pause", "resume"]
