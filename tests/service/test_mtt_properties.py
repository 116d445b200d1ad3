"""Property test over simulated scheduled tournaments (R9.2, R9.5, R9.7, R9.8, R9.9): random
fields of 12 to 30 BOTs (60 under the ``thorough`` profile, ``tests/profile_testing.py``; 30 is
four or five tables: tables break, players move and the final table forms) at 6- or 9-seat
tables, played to the end through the real service and
timers in virtual time, with these checked after every transaction:

- tournament chips are conserved (every table's chips add up to the entries' starting stacks);
- every seat a table keeps waiting for the big blind (or arrived since its last deal) holds a
  player;
- nobody sits at two tables; the tournament's counts match who sits where, plus the moves
  decided and not done yet and the players out in a hand-for-hand round not closed yet, and
  add up to the players left;
- the number of tables is what the field needs (more only while tables break or the final
  table forms);

and, at each deal, the table dealing is within one player of the shortest table; at the end:
one winner, places 1..N (ties aside), prizes equal to the pool, each paid once; and the log alone
(:mod:`naiko_local.balance_audit`) shows every move planned before it was done and no hand dealt
at a table two or more players over the shortest (R9.7).
``scripts/bench_tournament.py`` plays 1,000 and 10,000; ``scripts/mtt_balance.py`` audits 150
and 400."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko.tournaments.seating import tables_needed
from naiko_local.balance_audit import audit
from naiko_local.tournament import Simulation, terms_for
from naiko_service.ports import PutTournament
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import mtt
from profile_testing import by_profile

EXAMPLES = 4

MOST_PLAYERS = by_profile(ci=30, thorough=60)
"""The largest field drawn: a simulation's cost grows with the square of its field."""


def check_seating(simulation: Simulation) -> None:
    record = simulation.tournaments.load(simulation.tournament_id)
    seating = record.seating
    if seating is None or record.status is not TournamentStatus.RUNNING:
        return
    terms = record.terms
    chips = 0
    seen: Counter[str] = Counter()
    seated: dict[int, int] = {}
    for number, table_id in seating.table_ids.items():
        table = simulation.store.load(table_id)
        chips += table.state.total_chips()
        players = [s.player_id for s in table.state.seats if s is not None]
        seen.update(players)
        seated[number] = len(players)
        # R9.7: the seats kept waiting for the big blind, or arrived since the last deal, hold
        # a player (issue 26: a seat left waiting after its player moved on failed the deal)
        info = table.tournament
        assert info is not None
        assert all(table.state.seats[i] is not None for i in info.waiting | info.arrived), (
            number, sorted(info.waiting), sorted(info.arrived))
    # A late entrant (R9.11) or re-entry (R9.12) counted at a table in its hand waits for a
    # seat (a move from table 0): their starting stack is on no table until it pulls them.
    late = sum(1 for m in seating.pending if m.from_table == 0)
    chips += terms.starting_stack * late
    assert chips == terms.starting_stack * record.entrants, "tournament chips conserved"
    assert not [p for p, n in seen.items() if n > 1], "a player at two tables"
    assert sum(seating.counts.values()) == record.players_left
    # Hand-for-hand: players out in the round in play wait for it to close for their places
    # (and their table's count); they already left their seats.
    waiting: Counter[str] = Counter()
    if seating.hfh is not None:
        for _, report in simulation.tournaments.items(simulation.tournament_id,
                                                      f"hfh#{seating.hfh:05d}#"):
            waiting.update(out["table"] for out in report["out"])
    for number, count in seating.counts.items():
        incoming = sum(1 for m in seating.pending if m.to_table == number)
        outgoing = sum(1 for m in seating.pending if m.from_table == number)
        out = waiting[seating.table_ids[number]]
        assert count == seated[number] + incoming - outgoing + out, (number, seating.to_dict())
    if not seating.final and not seating.breaking:
        needed = max(1, tables_needed(record.players_left, terms.seat_count))
        assert len(seating.counts) == needed, (len(seating.counts), needed)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(12, MOST_PLAYERS), st.sampled_from([6, 9]), st.integers(0, 2**32))
def test_r9_7_r9_8_random_scheduled_tournaments_keep_every_invariant(
        players: int, seats: int, seed: int) -> None:
    from dataclasses import replace

    terms = replace(terms_for("mtt", Variant.NLHE, 10, players), seat_count=seats)
    simulation = Simulation(terms, players, seed, check=True)
    broken: list[str] = []

    def invariants() -> None:  # also inside follow-ups, which log what they raise and go on
        try:
            check_seating(simulation)
        except AssertionError as error:
            broken.append(str(error))
            raise

    simulation.tournaments.invariants = invariants  # type: ignore[attr-defined]
    simulation.store.invariants = invariants  # type: ignore[attr-defined]
    dealt: list[tuple[int, int]] = []
    original = mtt.at_deal

    def at_deal(deps: Any, record: Any, now: int, outcome: Any) -> bool:
        may = original(deps, record, now, outcome)
        if may:  # the tournament as this write will leave it (a pull changes its counts)
            written = [w.record for w in outcome.writes if isinstance(w, PutTournament)]
            tournament = written[-1] if written else simulation.tournaments.load(
                simulation.tournament_id)
            assert tournament.seating is not None
            counts = tournament.seating.counts
            me = record.tournament.number
            others = [c for n, c in counts.items() if n != me
                      and n not in tournament.seating.breaking]
            seated = sum(1 for s in record.state.seats if s is not None)
            if others:
                dealt.append((seated, min(others)))
        return may

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mtt, "at_deal", at_deal)
        log = simulation.run()
    assert not broken, broken[:3]
    assert dealt and all(seated <= shortest + 1 for seated, shortest in dealt), dealt
    found = audit(log, seats)  # R9.7 from the log alone
    assert found.hands > 0 and found.over == 0, found.over_examples
    assert found.unplanned == 0 and found.planned >= sum(found.moves.values())
    record = simulation.tournaments.load(simulation.tournament_id)
    assert record.status is TournamentStatus.FINISHED and record.players_left == 1
    finished = next(e for e in log if e["type"] == "finished")
    places = Counter(finished["places"].values())
    assert len(finished["places"]) == players and places[1] == 1
    place = 1
    while place <= players:
        assert places[place] >= 1, (place, finished["places"])
        place += places[place]
    started = next(e for e in log if e["type"] == "started")
    assert sum(finished["prizes"].values()) == started["prize_pool"] == sum(record.payouts)
    assert record.pool_held == 0 and simulation.store.audit().holds
    paid = simulation.tournaments.items(simulation.tournament_id, "paid#")
    assert sorted((d["player_id"], d["prize"]) for _, d in paid) == sorted(
        finished["prizes"].items())
    # R9.5, R9.8: one out# item per player out; the places derived from them (the finished
    # entry's) are those given at each elimination (the result# items).
    outs = [d for _, d in simulation.tournaments.items(simulation.tournament_id, "out#")]
    assert len(outs) == players - 1 == len({d["player_id"] for d in outs})
    results = simulation.tournaments.items(simulation.tournament_id, "result#")
    assert finished["places"] == {d["player_id"]: d["place"] for _, d in results}
    # Issue 23: what each player was told equals the derived place: at the elimination (the
    # serial zone, the field item counting) or, counted on a shard (told no place), in their
    # result# item once the shards closed, never in the money.
    told = {e["player"]: e["place"] for e in log if e["type"] == "eliminated"}
    paid_places = sum(1 for prize in record.payouts if prize > 0)
    for player, place in told.items():
        if place is None:
            assert finished["places"][player] > paid_places
            assert player not in finished["prizes"]
        else:
            assert finished["places"][player] == place
