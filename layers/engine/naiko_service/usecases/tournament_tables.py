""":mod:`naiko_service.usecases.tournament_tables` is what a tournament's table adds to the
dealer and the clock, through the tournament tables' policies (:mod:`.policies.sit_and_go`,
:mod:`.policies.mtt`): it deals the level in effect
(R9.3) to everybody with chips, absent or not (R9.4); it plays absent players' turns at once;
and when a hand ends it writes the hand's log entry and eliminates players left without chips,
giving them their places (R9.5) and prizes (R9.9).

Everything here edits the table record of one write (:func:`.transaction.mutate`); what it changes
elsewhere (the tournament item, results, log entries) goes into ``outcome.writes``, the same
transaction as the table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from naiko import commands as cmd
from naiko.engine import legal_actions
from naiko.tournaments import prizes as prize_rules
from naiko.tournaments.places import OutRecord, derive_places, out_key
from naiko.tournaments.structures import level_at

from ..notices import Eliminated, LevelChanged, TournamentFinished
from ..ports import PutItem, PutTournament, TournamentStore, Write
from ..records import TableRecord, Timer, TimerKind
from ..tournament_records import (
    Result,
    TournamentRecord,
    TournamentStatus,
)
from .base import Deps, Outcome, ServiceError, engine_step
from .tournament_log import Out, in_parts, log_entry
from .tournament_payments import PAYOUT_RETRY_MS, arm_tournament, settle
from .tournament_uow import store


def refuse_at_tournament(record: TableRecord, what: str) -> None:
    """Cash-table requests (buying in, reloading, leaving with chips, waiting lists) have no
    meaning at a tournament's table (:meth:`.policies.sit_and_go.SitAndGoPolicy.refuse`): its
    seats and chips are the tournament's (R7.6, R9.4).

    :raises ServiceError: ``tournament_table``.
    """
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
    if hand is None or hand.complete or hand.actor is None:
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

def hand_log(record: TableRecord, now: int) -> PutItem:
    """The ``hand`` entry of the tournament log: level and blinds, button and blind seats,
    when it was dealt (``started_ms``; ``at_ms`` is its end), every dealt player's stack
    before and after (``cancelled`` for a hand cancelled by R8.6, whose stacks went back)."""
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
        "big_blind_seat": hand.big_blind_seat, "started_ms": record.hand_started_ms,
        "at_ms": now, "stacks_before": {pid: hand.starting_stacks[i] for i, pid in players},
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
        "big_blind_seat": None, "started_ms": record.hand_started_ms, "at_ms": now,
        "stacks_before": stacks,
        "stacks_after": dict(stacks), "cancelled": True}, new=True)


def stand_up_out(deps: Deps, record: TableRecord, outcome: Outcome) -> list[Out]:
    """The players of the hand that just ended left without chips, clockwise from the button
    (the order that receives a tie's odd chip, R9.5), stood up from the table."""
    hand = record.state.hand
    assert hand is not None
    n = len(record.state.seats)
    order = [(hand.button + k) % n for k in range(1, n + 1)]
    outs = []
    for index in order:
        seat = record.state.seats[index]
        if seat is None or seat.stack > 0:
            continue
        outs.append(Out(seat.player_id, hand.starting_stacks[index], record.table_id,
                        hand.number, record.room.account_of(seat.player_id)))
        outcome.add(engine_step(deps, record, cmd.StandUp(seat_index=index)))
    return outs


def tournament_of(tournaments: TournamentStore, outcome: Outcome, tournament_id: str,
                  ) -> tuple[TournamentRecord, int, dict[str, Any] | None]:
    """The tournament item as this table's change sees it, a copy to change (its version
    counted up), the version its write is conditional on, and its document as read (to tell
    whether it changed), ``None`` when the change wrote it already: then it is that write's
    record, taken out of ``outcome.writes`` (the caller writes it again). A change may look
    twice (a hand dealt and ended in one change, its deadlines fired together:
    :func:`.mtt.at_deal`, then the hand's end): both looks make ONE write of the item, the
    second from what the first changed (its log numbered on), never two writes of one item in
    a transaction."""
    for write in outcome.writes:
        if isinstance(write, PutTournament) and write.record.tournament_id == tournament_id:
            outcome.writes.remove(write)
            assert write.expected_version is not None
            return write.record, write.expected_version, None
    stored = tournaments.load(tournament_id)
    new = stored.copy()
    new.version += 1
    return new, stored.version, new.to_document()


def eliminate(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
    """At a single table's hand end (a Sit & Go, a Spin): the players left without chips are
    eliminated (:func:`give_places`), in the table's write."""
    info = record.tournament
    assert info is not None
    outs = stand_up_out(deps, record, outcome)
    if not outs:
        return
    new, expected, _ = tournament_of(store(deps), outcome, info.tournament_id)
    from .tournament_bounties import knock_out  # it builds on this module

    knock_out(deps, record, new, outs, now, outcome)  # R9.13: in this write

    def remaining() -> tuple[str, str]:
        winner = next(s.player_id for s in record.state.seats if s is not None)
        return winner, record.room.account_of(winner)

    give_places(deps, new, outs, now, outcome, remaining)
    if new.status is TournamentStatus.FINISHED:
        record.closed = True
    assert record.tournament is not None
    record.tournament = replace(record.tournament, players_left=new.players_left)
    outcome.writes.append(PutTournament(new, expected))


def give_places(deps: Deps, new: TournamentRecord, outs: list[Out], now: int,
                outcome: Outcome, remaining: Callable[[], tuple[str, str]],
                round_: int | None = None) -> None:
    """R9.5: players eliminated together (one hand; or, hand-for-hand, one round, R9.8) get the
    next places, last place first: the larger stack at the start of the hand finishes higher,
    equal stacks tie and share their places' prizes (the odd chip from the better place down,
    to the first clockwise from the button). When one player is left they win (*remaining*
    gives the winner and the account their prize goes to: a BOT's is the house's, R8.4).
    Edits *new* (the tournament, written by the caller) and adds the results, log
    entries and events to *outcome*; the prizes are paid after the write, each in a
    transaction of its own (:func:`~.tournament_payments.pay_prizes`), backed up by the
    tournament's ``payout`` timer. A scheduled tournament's players out also get their
    ``out#`` item (:func:`record_outs`; *round_*: the hand-for-hand round they went out in)."""
    if new.seating is not None:
        record_outs(new, [(o, now) for o in outs], new.players_left, round_, outcome.writes)
    groups = prize_rules.rank_eliminations([(o.player_id, o.stack) for o in outs],
                                           new.players_left)
    new.players_left -= len(outs)
    finished = new.players_left == 1
    winner_account = ""
    if finished:
        winner, winner_account = remaining()
        groups = [prize_rules.TieGroup(1, (winner,)), *groups]
    prizes = prize_rules.prizes_for(groups, new.payouts)
    by_player = {o.player_id: o for o in outs}
    _place(new, groups, prizes, by_player, winner_account, now, outcome)
    if finished:
        from .tournament_bounties import pay_own_bounty  # it builds on this module

        # R9.13: the winner's own bounty, in the write that finishes the tournament
        pay_own_bounty(new, groups[0].player_ids[0], winner_account, now, outcome.moves,
                       outcome.writes)
        _finish(deps, new, groups, prizes, by_player, now, outcome)
    if any(prizes.values()):
        _pay_after(deps, new, now, outcome)


def record_outs(new: TournamentRecord, outs: list[tuple[Out, int]], left: int | None,
                round_: int | None, writes: list[Write]) -> None:
    """R9.5, R9.8: each player out (with when their hand ended) gets an ``out#`` item, the
    record their place is derived from (:func:`naiko.tournaments.places.derive_places`):
    their stack at the start of the hand, the hand, the hand-for-hand round, and *left* (the
    players left before them, as the field item counts it)."""
    for out, at_ms in outs:
        record = OutRecord(out.player_id, out.stack, at_ms, out.table, out.hand, round_, left)
        writes.append(PutItem(new.tournament_id, out_key(record), record.to_dict(),
                              new=True))


def out_without_place(new: TournamentRecord, outs: list[Out], now: int,
                      outcome: Outcome) -> None:
    """Issue 23: players out counted on a count shard (:mod:`.field_shards`): their ``out#``
    items without ``left``, and an ``eliminated`` entry and event with no ``place`` (keyed by
    table, hand and player, not by the field item's log count: this write does not write the
    field item). Their places come when the shards close (never a prize)."""
    record_outs(new, [(o, now) for o in outs], None, None, outcome.writes)
    for out in outs:
        outcome.writes.append(PutItem(
            new.tournament_id, f"log#{now:013d}#o#{out.table}#{out.hand:06d}#{out.player_id}",
            {"type": "eliminated", "tournament": new.tournament_id, "at_ms": now,
             "player": out.player_id, "place": None, "table": out.table, "hand": out.hand},
            new=True))
        outcome.events.append(Eliminated(player_id=out.player_id, place=None, prize=0))


def derived_places(tournaments: TournamentStore, new: TournamentRecord,
                   writes: list[Write]) -> dict[str, int]:
    """The places of a scheduled tournament's players out, derived from their ``out#``
    items (those stored and those in *writes*, this very transaction's; R9.5, R9.8)."""
    stored = [OutRecord.from_dict(data) for _, data in tournaments.items(new.tournament_id,
                                                                         "out#")]
    stored += [OutRecord.from_dict(w.data) for w in writes
               if isinstance(w, PutItem) and w.key.startswith("out#")]
    return {pid: group.place for group in derive_places(stored, new.players)
            for pid in group.player_ids}


def _place(new: TournamentRecord, groups: list[prize_rules.TieGroup], prizes: dict[str, int],
           by_player: dict[str, Out], winner_account: str, now: int, outcome: Outcome) -> None:
    """R9.5: each player's result (place, prize, where their prize goes), last place first;
    the players out get their log entry and ``eliminated`` event."""
    for group in reversed(groups):  # last place first
        for player_id in group.player_ids:
            out = by_player.get(player_id)
            result = Result(player_id, group.place, prizes[player_id], False,
                            out.hand if out else 0, out.table if out else "",
                            out.account if out else winner_account or player_id)
            outcome.writes.append(PutItem(new.tournament_id, f"result#{player_id}",
                                          result.to_dict(), new=True))
            if out is not None:
                outcome.writes.append(log_entry(new, now, "eliminated", player=player_id,
                                                place=group.place, table=out.table,
                                                hand=out.hand))
                outcome.events.append(Eliminated(player_id=player_id, place=group.place,
                                                 prize=prizes[player_id]))


def _finish(deps: Deps, new: TournamentRecord, groups: list[prize_rules.TieGroup],
            prizes: dict[str, int], by_player: dict[str, Out], now: int,
            outcome: Outcome) -> None:
    """One player is left: the tournament is finished, its ``finished`` log entry lists every
    place and prize (those stored, and those given in this very transaction)."""
    new.status = TournamentStatus.FINISHED
    new.timers = [t for t in new.timers if t.kind is not TimerKind.LEVEL]
    earlier = [Result.from_dict(data) for _, data in store(deps).items(
        new.tournament_id, "result#")]
    # and those given in this very transaction (late registration closing with the
    # field at one, R9.11), not stored yet
    earlier += [Result.from_dict(w.data) for w in outcome.writes
                if isinstance(w, PutItem) and w.key.startswith("result#")
                and w.data["player_id"] not in by_player]
    places = {r.player_id: r.place for r in earlier}
    if new.seating is not None:  # a scheduled tournament: derived from the out# items
        places.update(derived_places(store(deps), new, outcome.writes))
    paid_out = {r.player_id: r.prize for r in earlier if r.prize}
    places.update({pid: g.place for g in groups for pid in g.player_ids})
    paid_out.update({pid: prize for pid, prize in prizes.items() if prize})
    # issue 23: every place is ~16 B, 160 KB at 10,000 players: in parts under 16 KB each,
    # the ``finished`` entry with the first and ``parts``, ``placed`` entries the others
    parts = in_parts({"places": dict(sorted(places.items(), key=lambda item: item[1])),
                      "prizes": paid_out})
    outcome.writes.append(log_entry(new, now, "finished", **parts[0], parts=len(parts)))
    outcome.writes.extend(log_entry(new, now, "placed", part=number, **part)
                          for number, part in enumerate(parts[1:], start=2))
    outcome.events.append(TournamentFinished(winner=groups[0].player_ids[0],
                                             prize=prizes[groups[0].player_ids[0]]))


def _pay_after(deps: Deps, new: TournamentRecord, now: int, outcome: Outcome) -> None:
    """R9.9: the prizes are paid after the write (:func:`~.tournament_payments.settle`),
    backed up by the tournament's ``payout`` timer."""
    new.timers = [t for t in new.timers if t.kind is not TimerKind.PAYOUT]
    new.timers.append(Timer(f"payout:{new.version}", TimerKind.PAYOUT,
                            now + PAYOUT_RETRY_MS))
    arm_tournament(deps, new)
    tournament_id = new.tournament_id
    outcome.after.append(lambda: settle(deps, tournament_id))


def close_late(deps: Deps, new: TournamentRecord, now: int, writes: list[Write]) -> None:
    """R9.11: late registration closes: the prizes are fixed for the field (every entry, R9.12)
    and published (``prizes_final``); the players who went out meanwhile get their places now,
    from the bottom (of the players: one place each, by their last entry, R9.12), in the order
    they went out (those out in the same hand ranked by their stacks at its start, R9.5)."""
    new.payouts = new.terms.prizes_for_entries(new.entrants, new.players)
    writes.append(log_entry(new, now, "prizes_final", entrants=new.entrants,
                            players=new.players, reentries=new.reentries,
                            prize_pool=sum(new.payouts), payouts=list(new.payouts)))
    place = new.players  # R9.12: a player who re-entered is placed once, by their last entry
    groups: list[list[dict[str, Any]]] = []
    for out in new.late:
        if groups and (groups[-1][0]["table"], groups[-1][0]["hand"]) == (out["table"],
                                                                            out["hand"]):
            groups[-1].append(out)
        else:
            groups.append([out])
    for group in groups:
        ranked = prize_rules.rank_eliminations([(o["player_id"], o["stack"]) for o in group],
                                               place)
        prizes = prize_rules.prizes_for(ranked, new.payouts)
        by_player = {o["player_id"]: o for o in group}
        record_outs(new, [(Out.from_dict(o), int(o["at_ms"])) for o in group], place, None,
                    writes)
        for tie in reversed(ranked):
            for player_id in tie.player_ids:
                out = by_player[player_id]
                writes.append(PutItem(new.tournament_id, f"result#{player_id}", Result(
                    player_id, tie.place, prizes[player_id], False, int(out["hand"]),
                    str(out["table"]), str(out["account"])).to_dict(), new=True))
                writes.append(log_entry(new, int(out["at_ms"]), "eliminated",
                                        player=player_id, place=tie.place,
                                        table=out["table"], hand=out["hand"]))
        place -= len(group)
    new.late = []
