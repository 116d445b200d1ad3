"""R9.14: published breaks. A scheduled tournament's structure may publish breaks; at a break's
start every table finishes its hand and holds, no hand (so no decision clock) and no level runs
during it, the players are told when play resumes, and play resumes by the table's timer."""

from __future__ import annotations

from dataclasses import replace

import pytest
import tournament_testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import AnteMode, Variant
from naiko.tournaments.structures import (
    MINUTE_MS,
    BlindLevel,
    BlindStructure,
    Break,
    InvalidTerms,
    TournamentTerms,
    break_at,
    from_preset,
    hourly_breaks,
    level_at,
)
from naiko_local.tournament import Simulation, terms_for
from naiko_service.notices import BreakStarted
from naiko_service.records import Hold, TimerKind
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import mtt, tournaments
from naiko_service.usecases.base import Outcome
from profile_testing import by_profile

LEVELS = tuple(BlindLevel(n, 10 * n, 20 * n, 0, AnteMode.NONE, 5) for n in range(1, 6))


def test_r9_14_levels_stop_during_a_break() -> None:
    structure = BlindStructure(LEVELS, (Break(2, 3),))
    start = 1_000
    assert level_at(structure, start, start + 10 * MINUTE_MS - 1).level.number == 2
    assert level_at(structure, start, start + 10 * MINUTE_MS - 1).next_ms == \
        start + 13 * MINUTE_MS
    on = break_at(structure, start, start + 10 * MINUTE_MS)
    assert on is not None and (on.starts_ms, on.ends_ms) == (start + 10 * MINUTE_MS,
                                                             start + 13 * MINUTE_MS)
    during = level_at(structure, start, start + 11 * MINUTE_MS)
    assert (during.level.number, during.started_ms) == (3, start + 13 * MINUTE_MS)
    assert break_at(structure, start, start + 13 * MINUTE_MS) is None
    assert level_at(structure, start, start + 13 * MINUTE_MS).level.number == 3
    assert structure.level_start_ms(start, 4) == start + 18 * MINUTE_MS
    assert BlindStructure.from_dict(structure.to_dict()) == structure
    assert "breaks" not in BlindStructure(LEVELS).to_dict()


@pytest.mark.parametrize("breaks", [[(5, 5)], [(2, 5), (2, 5)], [(3, 5), (2, 5)], [(0, 5)],
                                    [(1, 61)], [(1, 0)]])
def test_r9_14_malformed_breaks_are_refused(breaks: list[tuple[int, int]]) -> None:
    with pytest.raises(InvalidTerms):
        BlindStructure(LEVELS, tuple(Break(a, m) for a, m in breaks))


def test_r9_14_only_a_scheduled_tournament_publishes_breaks() -> None:
    terms = from_preset("sng_6max_turbo", 100)
    with pytest.raises(InvalidTerms, match="breaks"):
        replace(terms, structure=BlindStructure(terms.structure.levels, (Break(1, 5),)))
    deep = from_preset("mtt_deep_breaks", 100)
    assert [b.after_level for b in deep.structure.breaks][:3] == [6, 12, 18]
    assert TournamentTerms.from_dict(deep.to_dict()) == deep
    assert hourly_breaks(LEVELS, 5, 10) == (Break(2, 5), Break(4, 5))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=2, max_size=12), st.data())
def test_r9_14_property_a_level_never_advances_during_a_break(minutes: list[int],
                                                              data: st.DataObject) -> None:
    levels = tuple(BlindLevel(n, 10 * n, 20 * n, 0, AnteMode.NONE, m)
                   for n, m in enumerate(minutes, 1))
    after = data.draw(st.lists(st.integers(1, len(levels) - 1), unique=True).map(sorted))
    structure = BlindStructure(levels, tuple(Break(a, 1 + a % 7) for a in after))
    now = data.draw(st.integers(0, 2 * sum(minutes) * MINUTE_MS))
    at, on = level_at(structure, 0, now), break_at(structure, 0, now)
    if on is None:  # playing: the level runs from its start, which came
        assert at.started_ms <= now and (at.next_ms is None or now < at.next_ms)
    else:  # on a break: the level that resumes starts at its end, no sooner
        assert at.started_ms == on.ends_ms > now
        assert at.level.number == on.brk.after_level + 1
    # Play time (the clock less the breaks passed) decides the level, as without breaks.
    played = now - sum(min(max(0, now - structure.level_start_ms(0, b.after_level + 1)
                                   + b.minutes * MINUTE_MS), b.minutes * MINUTE_MS)
                       for b in structure.breaks)
    plain = level_at(BlindStructure(levels), 0, played).level.number
    assert at.level.number == plain + (1 if on is not None and plain == on.brk.after_level
                                       else 0)


def started(seed: int = 1) -> Simulation:
    levels = terms_for("mtt", Variant.NLHE, 10, 13).structure.levels
    return tournament_testing.started(13, seed, structure=BlindStructure(levels, (Break(1, 5),)))


def test_r9_14_tables_finish_their_hand_hold_through_the_break_and_resume_by_timer() -> None:
    simulation = started()
    record = simulation.tournaments.load(simulation.tournament_id)
    assert record.started_ms is not None and record.seating is not None
    starts = record.started_ms + 5 * MINUTE_MS
    ends = starts + 5 * MINUTE_MS
    while simulation.scheduler.heap[0][0] < ends - 1_000:  # up to the break's end
        assert simulation.step()
    assert simulation.clock.now >= starts  # the tables went into the break
    held = 0
    for table_id in record.seating.table_ids.values():
        table = simulation.store.load(table_id)
        if table.closed:
            continue
        assert not table.state.hand_in_progress, "a hand dealt during the break"
        assert not any(t.kind is TimerKind.DECISION for t in table.timers)
        assert table.tournament is not None and table.tournament.hold == Hold.PAUSE
        assert [t.due_ms for t in table.timers if t.kind is TimerKind.HOLD] == [ends]
        held += 1
    assert held
    while simulation.clock.now < ends + 2 * MINUTE_MS:  # resumed by the hold timers
        assert simulation.step()
    hands = [e for e in tournaments.export_log(simulation.service.deps, simulation.tournament_id)
             if e["type"] == "hand"]
    assert not [h for h in hands if starts <= h["started_ms"] < ends - 1_000]
    after = [h for h in hands if h["started_ms"] >= ends - 1_000]
    assert after and all(h["level"] == 2 for h in after)
    assert all(h["level"] == 1 for h in hands if h["started_ms"] < starts)
    levels = [e for e in tournaments.export_log(simulation.service.deps,
                                                simulation.tournament_id)
              if e["type"] == "level" and e["level"] == 2]
    assert [e["break"] for e in levels] == [{"after_level": 1, "minutes": 5,
                                             "starts_ms": starts, "ends_ms": ends}]
    while not simulation.finished():  # and the tournament plays on to its end (audited)
        assert simulation.step()


def test_r9_14_players_are_told_when_play_resumes() -> None:
    simulation = started()
    record = simulation.tournaments.load(simulation.tournament_id)
    assert record.started_ms is not None and record.seating is not None
    table = simulation.store.load(next(iter(record.seating.table_ids.values())))
    starts = record.started_ms + 5 * MINUTE_MS
    outcome = Outcome()
    assert not mtt.at_break(table, starts - 1, outcome) and not outcome.events
    assert mtt.at_break(table, starts, outcome)
    assert outcome.events == [BreakStarted(after_level=1, minutes=5,
                                           resumes_ms=starts + 5 * MINUTE_MS, next_level=2)]
    assert table.tournament is not None and table.tournament.hold == Hold.PAUSE
    hold = mtt.hold_timers(table, starts)
    assert [t.due_ms for t in hold] == [starts + 5 * MINUTE_MS]


def test_r9_14_the_terminal_client_reads_the_break_in_five_languages() -> None:
    from naiko_client import i18n
    from naiko_client.render import Narrator

    event = {"kind": "break_started", "after_level": 6, "minutes": 5,
             "resumes_ms": 1_700_003_900_000, "next_level": 7}
    assert Narrator().narrate([event]) == ["A 5-minute break: play resumes with level 7"]
    text = "A {minutes}-minute break: play resumes with level {level}"
    for language in ("pl", "pt", "vi", "ro"):
        assert i18n.CATALOGUES[language][text] != text


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(12, by_profile(ci=20, thorough=30)), st.sampled_from([6, 9]),
       st.integers(1, 5), st.integers(5, 20),
       st.integers(0, 2**32))
def test_r9_14_property_random_tournaments_with_breaks_keep_every_invariant(
        players: int, seats: int, minutes: int, every: int, seed: int) -> None:
    """Random fields (12 to 20 players, two to four tables; 30 under ``thorough``) with
    breaks played to the end: the seating invariants of
    ``test_mtt_properties`` after every transaction (chips conserved, nobody at two tables,
    counts), the ledger identity, one winner and the whole pool paid; and no hand of the log
    dealt in a break, every hand at the level of its deal time."""
    from test_mtt_properties import check_seating

    base = terms_for("mtt", Variant.NLHE, 10, players)
    levels = base.structure.levels
    structure = BlindStructure(levels, hourly_breaks(levels, minutes, every))
    terms = replace(base, seat_count=seats, structure=structure)
    simulation = Simulation(terms, players, seed, check=True)
    simulation.tournaments.invariants = lambda: check_seating(simulation)  # type: ignore[attr-defined]
    simulation.store.invariants = lambda: check_seating(simulation)  # type: ignore[attr-defined]
    log = simulation.run()
    record = simulation.tournaments.load(simulation.tournament_id)
    assert record.started_ms is not None
    for hand in (e for e in log if e["type"] == "hand"):
        on = break_at(structure, record.started_ms, hand["started_ms"])
        assert on is None or on.ends_ms - hand["started_ms"] <= mtt.BREAK_TOLERANCE_MS, hand
        assert hand["level"] == level_at(structure, record.started_ms,
                                         hand["started_ms"]).level.number
    assert record.status is TournamentStatus.FINISHED and record.players_left == 1
    finished = next(e for e in log if e["type"] == "finished")
    assert sum(finished["prizes"].values()) == sum(record.payouts)
    assert record.pool_held == 0 and simulation.store.audit().holds
