"""Live standings on the in-memory adapters (issue 26 item 4; the scenarios of
``tests/standings_testing.py``; the same on DynamoDB:
``tests/integration/test_standings_on_moto.py``)."""

from __future__ import annotations

import standings_testing as scenarios
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from naiko_local.tournament import Simulation


@settings(max_examples=2, deadline=None,
          phases=(Phase.explicit, Phase.reuse, Phase.generate),  # no slow explain phase
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(5, 7), st.sampled_from([3, 4]), st.integers(0, 2**32))
def test_issue26_standings_after_hands_list_every_player_once_in_rank_order(
        players: int, seats: int, seed: int) -> None:
    """Random small fields at 3- or 4-seat tables (two or three tables: balancing, breaking,
    the final table), checked after every other hand and at the end."""
    sim = Simulation(scenarios.scheduled_terms(players, seats), players, seed, check=False)
    checks = scenarios.play_and_check(sim, every=2)
    assert checks.hands_checked > 0 and checks.placed_seen == players
    assert checks.sections == {"players", "tables"}


def test_issue26_standings_during_late_registration_and_reentries() -> None:
    """R9.11, R9.12: players out while late registration is open (no place yet) are listed
    after the players with chips, once each however many entries they paid."""
    sim = Simulation(scenarios.scheduled_terms(6, 3, reentries=2), 6, 3, check=False,
                     reentries=2)
    checks = scenarios.play_and_check(sim, every=3)
    assert sim.reentered == 2 and checks.placed_seen == 6
