"""R9.12 as the lobby shows it: ``get_tournament``'s ``you.entries`` counts the entries a
player made (1, one more per ``reenter``), so a client shows the re-entries left
(``entries_per_player - entries``, the web lobby's badge) without reading the field."""

from __future__ import annotations

from naiko_service.usecases import tournaments
from naiko_service.usecases.private import HOUSE_BOTS
from test_reentry import ENTRY, simulation


def test_r9_12_get_tournament_counts_your_entries_for_the_re_entries_left() -> None:
    sim = simulation(6, reentries=0, entries=2)
    deps, tid = sim.service.deps, sim.tournament_id
    sim.register()
    assert "entries" not in tournaments.describe(deps, tid, "nobody")["you"]
    assert tournaments.describe(deps, tid, "bot-1")["you"]["entries"] == 1
    sim.accounts.grant(HOUSE_BOTS, 10 * ENTRY, ref="test")
    while not sim.tournaments.load(tid).late:
        assert sim.step()
    out = sim.tournaments.load(tid).late[0]["player_id"]
    assert tournaments.describe(deps, tid, out)["you"]["entries"] == 1
    tournaments.reenter_player(deps, None, tid, out, HOUSE_BOTS)
    you = tournaments.describe(deps, tid, out)["you"]
    assert you["registered"] and you["entries"] == 2
    assert sim.terms.entries_per_player - you["entries"] == 0
