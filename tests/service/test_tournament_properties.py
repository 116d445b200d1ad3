"""Property test: random Sit & Gos and Spins (2-10 seats, every variant, random blind
structures and stacks) played to the end by BOTs through the real service and timers
(``naiko-tournament simulate``'s :class:`~naiko_local.tournament.Simulation`), with the ledger
identity checked after every transaction. Small sizes here; ``scripts/tournament_runs.py``
plays many more."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import AnteMode, Variant
from naiko.tournaments.prizes import SPIN_TABLE, PayoutRule
from naiko.tournaments.structures import (
    BlindLevel,
    BlindStructure,
    TournamentKind,
    TournamentTerms,
)
from naiko_local.tournament import Simulation
from naiko_service.tournament_records import TournamentStatus
from profile_testing import by_profile

EXAMPLES = by_profile(ci=6, thorough=12)


@st.composite
def structures(draw: st.DrawFn) -> BlindStructure:
    """1-6 levels of 1-3 minutes, blinds rising, antes (each or big-blind) from some level."""
    count = draw(st.integers(1, 6))
    ante_from = draw(st.integers(1, count + 1))
    mode = draw(st.sampled_from([AnteMode.EACH, AnteMode.BIG_BLIND]))
    big_blind = draw(st.integers(1, 25)) * 2
    levels = []
    for number in range(1, count + 1):
        if number > 1:
            big_blind = big_blind + 2 * draw(st.integers(1, max(1, big_blind // 2)))
        ante = 0
        if number >= ante_from:
            ante = max(1, big_blind // 10) if mode is AnteMode.EACH else big_blind
        levels.append(BlindLevel(number, big_blind // 2, big_blind, ante,
                                 mode if ante else AnteMode.NONE, draw(st.integers(1, 3))))
    return BlindStructure(tuple(levels))


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[TournamentTerms, int]:
    kind = draw(st.sampled_from([TournamentKind.SIT_AND_GO, TournamentKind.SPIN]))
    structure = draw(structures())
    seats = 3 if kind is TournamentKind.SPIN else draw(st.integers(2, 10))
    first = structure.levels[0].big_blind
    terms = TournamentTerms(
        kind=kind, variant=draw(st.sampled_from(list(Variant))), seat_count=seats,
        entry=draw(st.integers(1, 500)), starting_stack=first * draw(st.integers(1, 60)),
        structure=structure, decision_ms=draw(st.integers(5, 120)) * 1000, bots_allowed=True,
        min_players=seats, max_players=seats,
        payout=PayoutRule.SPIN if kind is TournamentKind.SPIN else PayoutRule.SIT_AND_GO,
        spin_table=SPIN_TABLE if kind is TournamentKind.SPIN else None)
    return terms, seats


def check_finished(simulation: Simulation, log: list[dict[str, Any]], players: int) -> None:
    terms = simulation.terms
    record = simulation.tournaments.load(simulation.tournament_id)
    assert record.status is TournamentStatus.FINISHED and record.players_left == 1
    finished = [e for e in log if e["type"] == "finished"]
    assert len(finished) == 1
    places: dict[str, int] = finished[0]["places"]
    # Exactly one winner; places 1..N each once, except that a tie of k players at place p
    # occupies p..p+k-1 (R9.5).
    assert sorted(places) == sorted(f"bot-{n}" for n in range(1, players + 1))
    counts = Counter(places.values())
    assert counts[1] == 1
    place = 1
    while place <= players:
        assert counts[place] >= 1, (place, places)
        place += counts[place]
    # The prizes: as fixed at the start, summing to the pool, each paid once.
    started = next(e for e in log if e["type"] == "started")
    prizes = finished[0]["prizes"]
    assert sum(prizes.values()) == started["prize_pool"] == sum(record.payouts)
    assert record.pool_held == 0  # everything a Sit & Go took in was paid out
    paid = simulation.tournaments.items(simulation.tournament_id, "paid#")
    assert sorted((d["player_id"], d["prize"]) for _, d in paid) == sorted(prizes.items())
    # Tournament chips: every hand keeps the field's total, nobody below zero.
    total = terms.starting_stack * players
    hands = [e for e in log if e["type"] == "hand"]
    assert hands
    for hand in hands:
        assert sum(hand["stacks_before"].values()) == total
        assert sum(hand["stacks_after"].values()) == total
        assert min(hand["stacks_after"].values()) >= 0
    # Eliminations come in time order, worst place first.
    out = [e for e in log if e["type"] == "eliminated"]
    assert [e["place"] for e in out] == sorted((e["place"] for e in out), reverse=True)
    assert len(out) == players - 1
    assert [e["at_ms"] for e in log] == sorted(e["at_ms"] for e in log)
    assert simulation.store.audit().holds


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tournaments(), st.integers(0, 2**32))
def test_r9_random_sit_and_gos_and_spins_finish_with_one_winner_and_every_chip_paid(
        tournament: tuple[TournamentTerms, int], seed: int) -> None:
    terms, players = tournament
    simulation = Simulation(terms, players, seed, check=True)
    log = simulation.run()
    check_finished(simulation, log, players)
