""":mod:`naiko_service.usecases.tournament_tables` is what a tournament's table adds to the
dealer (:mod:`.dealer`) and the clock (:mod:`.deadlines`): it deals the level in effect
(R9.3) to everybody with chips, absent or not (R9.4); it plays absent players' turns at once;
and when a hand ends it writes the hand's log entry and eliminates players left without chips,
giving them their places (R9.5) and prizes (R9.9).

Everything here edits the table record of one write (:func:`.path.mutate`); what it changes
elsewhere (the tournament item, results, log entries) goes into ``outcome.writes``, the same
transaction as the table."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from naiko import commands as cmd
from naiko.engine import legal_actions
from naiko.tournaments import prizes as prize_rules
from naiko.tournaments.structures import level_at

from ..notices import Eliminated, LevelChanged, TournamentFinished
from ..ports import (
    PutItem,
    PutTournament,
)
from ..records import TableRecord, Timer, TimerKind
from ..tournament_records import (
    Result,
    TournamentRecord,
    TournamentStatus,
)
from .base import Deps, Outcome, ServiceError, engine_step
from .tournament_payments import PAYOUT_RETRY_MS, arm_tournament, settle, store


def refuse_at_tournament(record: TableRecord, what: str) -> None:
    """Cash-table requests (buying in, reloading, leaving with chips, waiting lists) have no
    meaning at a tournament's table: its seats and chips are the tournament's (R7.6, R9.4).

    :raises ServiceError: ``tournament_table``.
    """
    if record.tournament is not None:
        raise ServiceError("tournament_table", f"{what} is not possible at a tournament table: "
                           "seats and chips are the tournament's (sit out to stop playing; "
                           "you are dealt in and blinded away)")


# -- dealing (R9.3, R9.4) ---------------------------------------------------------------------

def may_deal(record: TableRecord) -> bool:
    """R9.4: everybody with chips is dealt in, sitting out or not; two are enough."""
    return sum(1 for s in record.state.seats if s is not None and s.stack > 0) >= 2


def before_deal(record: TableRecord, now: int, outcome: Outcome) -> None:
    """R9.3: set the level in effect now, worked out from the tournament's start time and
    published structure alone (a level change writes no table item and cannot be missed);
    the first hand of a new level announces it and the next one to the table's players."""
    info = record.tournament
    assert info is not None
    at = level_at(info.structure, info.started_ms, now)
    level = at.level
    record.state.config = replace(record.state.config, small_blind=level.small_blind,
                                  big_blind=level.big_blind, ante=level.ante,
                                  ante_mode=level.ante_mode)
    if level.number != info.announced_level:
        following = info.structure.following(level)
        outcome.events.append(LevelChanged(
            level=level.number, small_blind=level.small_blind, big_blind=level.big_blind,
            ante=level.ante, ante_mode=level.ante_mode.value, ends_ms=at.next_ms,
            next_level=None if following is None else following.to_dict()))
    record.tournament = replace(info, announced_level=level.number, level_ends_ms=at.next_ms)


def absent_turn(record: TableRecord) -> cmd.Command | None:
    """R9.4: the player to act is sitting out: checked when they can, otherwise folded, at
    once and without a clock (until they say they are back)."""
    hand = record.state.hand
    if record.tournament is None or hand is None or hand.complete or hand.actor is None:
        return None
    seat = record.state.seats[hand.actor]
    if seat is None or not seat.sitting_out:
        return None
    prompt = legal_actions(record.state)
    if prompt is None:
        return None
    if "check" in prompt.actions:
        return cmd.Check(seat_index=hand.actor)
    return cmd.Fold(seat_index=hand.actor)


# -- the end of a hand (R9.5, R9.9) -----------------------------------------------------------

def after_hand(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
    """The hand's log entry, then eliminations (:func:`eliminate`); in the table's write."""
    outcome.writes.append(hand_log(record, now))
    hand = record.state.hand
    assert hand is not None
    if not hand.cancelled:
        eliminate(deps, record, now, outcome)


def hand_log(record: TableRecord, now: int) -> PutItem:
    """The ``hand`` entry of the tournament log: level and blinds, button and blind seats,
    every dealt player's stack before and after (``cancelled`` for a hand cancelled by R8.6,
    whose stacks went back)."""
    info = record.tournament
    hand = record.state.hand
    assert info is not None and hand is not None
    config = record.state.config
    players = [(i, pid) for i, pid in enumerate(hand.player_ids) if pid is not None]
    fields: dict[str, Any] = {
        "type": "hand", "tournament": info.tournament_id, "table": record.table_id,
        "hand": hand.number, "level": info.announced_level, "small_blind": config.small_blind,
        "big_blind": config.big_blind, "ante": config.ante, "ante_mode": config.ante_mode.value,
        "button": hand.button, "small_blind_seat": hand.small_blind_seat,
        "big_blind_seat": hand.big_blind_seat, "at_ms": now,
        "stacks_before": {pid: hand.starting_stacks[i] for i, pid in players},
        "stacks_after": {pid: record.state.stack(i) for i, pid in players}}
    if hand.cancelled:
        fields["cancelled"] = True
    return PutItem(info.tournament_id, f"log#{now:013d}#h#{record.table_id}#{hand.number:06d}",
                   fields, new=True)


def cancelled_hand_log(record: TableRecord, cancelled: dict[str, Any], now: int) -> PutItem:
    """The ``hand`` entry of a hand cancelled because the table's state could not be read
    (R8.6): *record* is the table restored without it (stacks as before the hand), *cancelled*
    the ``hand_cancelled`` event; where the button and blinds were is not known any more."""
    info = record.tournament
    assert info is not None
    config = record.state.config
    number = int(cancelled["hand_number"])
    players = [(i, pid) for i, pid in enumerate(cancelled["player_ids"]) if pid is not None]
    stacks = {pid: record.state.stack(i) for i, pid in players}
    return PutItem(info.tournament_id, f"log#{now:013d}#h#{record.table_id}#{number:06d}", {
        "type": "hand", "tournament": info.tournament_id, "table": record.table_id,
        "hand": number, "level": info.announced_level, "small_blind": config.small_blind,
        "big_blind": config.big_blind, "ante": config.ante,
        "ante_mode": config.ante_mode.value, "button": None, "small_blind_seat": None,
        "big_blind_seat": None, "at_ms": now, "stacks_before": stacks,
        "stacks_after": dict(stacks), "cancelled": True}, new=True)


def log_entry(record: TournamentRecord, now: int, kind: str, **fields: Any) -> PutItem:
    """A tournament's own log entry, ``log#<time>#t#<n>``: in time order with the tables'
    ``hand`` entries (``log#<time>#h#<table>#<hand>``), which tables write without touching
    the tournament item. At one millisecond a hand comes before what it caused."""
    record.log_seq += 1
    return PutItem(record.tournament_id, f"log#{now:013d}#t#{record.log_seq:08d}",
                   {"type": kind, "tournament": record.tournament_id, "at_ms": now, **fields},
                   new=True)


def eliminate(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
    """R9.5: players left without chips at the end of the hand are eliminated and get the next
    places, last place first; players eliminated in the same hand are ranked by their stacks at
    its start, equal stacks tie and share their places' prizes (the odd chip from the better
    place down, to the first clockwise from the button). The last player standing wins.

    The tournament item, each result and the log entries go into the table's write; the prizes
    are paid after it, each in a transaction of its own (:func:`pay_prizes`), backed up by the
    tournament's ``payout`` timer."""
    info = record.tournament
    hand = record.state.hand
    assert info is not None and hand is not None
    n = len(record.state.seats)
    order = [(hand.button + k) % n for k in range(1, n + 1)]  # clockwise from the button
    out = [(i, record.state.seats[i]) for i in order
           if record.state.seats[i] is not None and record.state.stack(i) == 0]
    if not out:
        return
    stored = store(deps).load(info.tournament_id)
    new = stored.copy()
    new.version += 1
    groups = prize_rules.rank_eliminations(
        [(seat.player_id, hand.starting_stacks[i]) for i, seat in out if seat is not None],
        stored.players_left)
    new.players_left -= len(out)
    for index, _seat in out:
        outcome.add(engine_step(deps, record, cmd.StandUp(seat_index=index)))
    finished = new.players_left == 1
    if finished:
        winner = next(s.player_id for s in record.state.seats if s is not None)
        groups = [prize_rules.TieGroup(1, (winner,)), *groups]
    prizes = prize_rules.prizes_for(groups, new.payouts)
    for group in reversed(groups):  # last place first
        for player_id in group.player_ids:
            won = finished and group.place == 1
            result = Result(player_id, group.place, prizes[player_id], False,
                            0 if won else hand.number, record.table_id,
                            record.room.account_of(player_id))
            outcome.writes.append(PutItem(new.tournament_id, f"result#{player_id}",
                                          result.to_dict(), new=True))
            if not won:
                outcome.writes.append(log_entry(new, now, "eliminated", player=player_id,
                                                place=group.place, table=record.table_id,
                                                hand=hand.number))
                outcome.events.append(Eliminated(player_id=player_id, place=group.place,
                                                 prize=prizes[player_id]))
    if finished:
        new.status = TournamentStatus.FINISHED
        new.timers = [t for t in new.timers if t.kind is not TimerKind.LEVEL]
        record.closed = True
        earlier = [Result.from_dict(data) for _, data in store(deps).items(
            new.tournament_id, "result#")]
        places = {r.player_id: r.place for r in earlier}
        paid_out = {r.player_id: r.prize for r in earlier if r.prize}
        places.update({pid: g.place for g in groups for pid in g.player_ids})
        paid_out.update({pid: prize for pid, prize in prizes.items() if prize})
        outcome.writes.append(log_entry(new, now, "finished",
                                        places=dict(sorted(places.items(),
                                                           key=lambda item: item[1])),
                                        prizes=paid_out))
        outcome.events.append(TournamentFinished(winner=groups[0].player_ids[0],
                                                 prize=prizes[groups[0].player_ids[0]]))
    record.tournament = replace(info, players_left=new.players_left)
    if any(prizes.values()):
        new.timers = [t for t in new.timers if t.kind is not TimerKind.PAYOUT]
        new.timers.append(Timer(f"payout:{new.version}", TimerKind.PAYOUT,
                                now + PAYOUT_RETRY_MS))
        arm_tournament(deps, new)
        tournament_id = new.tournament_id
        outcome.after.append(lambda: settle(deps, tournament_id))
    outcome.writes.append(PutTournament(new, stored.version))
