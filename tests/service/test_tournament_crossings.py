"""Where the tournament features meet (issue 26): knockout bounties (R9.13) with the director's
cancellation (R9.15) and with a deal that ends the tournament (R9.16), and the director's
pause, moves and cancellation while a deal is offered. On the in-memory adapters in virtual
time (:class:`naiko_local.tournament.Simulation`, the ledger identity checked after every
transaction): every bounty is paid once, on the ledger, and the tournament holds nothing at the
end, however it ends."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko.tournaments.structures import MINUTE_MS, BlindStructure, DealTerms
from naiko_local.bounty_audit import audit
from naiko_local.tournament import Simulation, terms_for
from naiko_service.ports import LedgerReason
from naiko_service.records import Hold
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import (
    ServiceError,
    deal_requests,
    director,
    tournament_payments,
    tournaments,
)
from naiko_service.usecases.accounts import OperatorError
from naiko_service.usecases.tournament_bounties import BOUNTY_PREFIX
from test_deals import accept, ask, caller, humans, table, until_offered
from test_director import OLGA, record_of, run_until
from test_director import started as started_mtt

ENTRY = 100


def knockout_mtt(players: int, *, bounty: int = 40, progressive: bool = False,
                 keep: int = 0, seed: int = 2) -> Simulation:
    """A scheduled knockout tournament of *players* humans at one 9-seat table (the final
    table from the start) with one-minute levels, deals published for all of them."""
    base = replace(terms_for("mtt", Variant.NLHE, ENTRY, players), seat_count=9)
    terms = replace(base, structure=BlindStructure(tuple(
        replace(level, minutes=1) for level in base.structure.levels)),
        deals=DealTerms(players, keep, 60), bounty=bounty, progressive=progressive)
    sim = humans(terms, players, seed)
    while not table(sim).state.hand_in_progress:
        assert sim.step()
    return sim


def log(sim: Simulation) -> list[dict[str, Any]]:
    return tournaments.export_log(sim.service.deps, sim.tournament_id)


def bounty_items(sim: Simulation) -> list[dict[str, Any]]:
    return [d for _, d in sim.tournaments.items(sim.tournament_id, BOUNTY_PREFIX)]


def ledger(sim: Simulation, reason: LedgerReason) -> list[Any]:
    return [e for e in sim.accounts.ledger if e.ref == sim.tournament_id and e.reason is reason]


def check_every_bounty_once(sim: Simulation) -> None:
    """Each entry's bounty once (one ``bounty#`` item per entry), the same payments on the
    ledger, the whole bounty pool paid, nothing held, the log's audit holding."""
    record = record_of(sim)
    assert record.pool_held == 0
    pool = record.terms.bounty * record.entrants
    items = bounty_items(sim)
    assert len(items) == record.entrants
    owed: Counter[tuple[str, int]] = Counter()
    for data in items:
        for winner, amount in data["paid"].items():
            owed[(data["accounts"][winner], data["at_ms"])] += amount
    on_ledger: Counter[tuple[str, int]] = Counter()
    for e in ledger(sim, LedgerReason.BOUNTY):
        on_ledger[(e.player_id, e.at_ms)] += e.amount
    assert +owed == +on_ledger
    assert sum(on_ledger.values()) == pool
    result = audit(log(sim))
    assert result.holds, result.problems
    assert result.paid == pool and result.payments == record.entrants
    assert sim.store.audit().holds  # granted = accounts + tables + tournaments


# -- 1. the director cancels a started knockout tournament ------------------------------------

@pytest.mark.parametrize("progressive", [False, True])
def test_r9_15_cancelling_a_started_knockout_tournament_pays_each_player_left_their_own_bounty(
        progressive: bool) -> None:
    sim = started_mtt(players=8, bounty=4, progressive=progressive)
    while record_of(sim).players_left > 6:
        assert sim.step()
    director.pause(sim.service.deps, sim.tournament_id, OLGA, "storm")
    run_until(sim, sim.clock.now + 5 * MINUTE_MS)
    live = record_of(sim)
    carried = {s.player_id: live.bounty_of(s.player_id)
               for t in live.tables for s in sim.store.load(t).state.seats
               if s is not None and s.stack > 0}
    assert len(carried) == live.players_left
    if progressive:
        assert any(b != live.terms.bounty for b in carried.values())  # some grew
    director.cancel(sim.service.deps, sim.tournament_id, OLGA, "storm: no power")
    done = record_of(sim)
    assert done.status is TournamentStatus.CANCELLED and done.bounties == {}
    own = {d["player"]: d for d in bounty_items(sim) if d["reason"] == "cancelled"}
    assert {p: d["paid"] for p, d in own.items()} == {p: {p: b} for p, b in carried.items()}
    check_every_bounty_once(sim)
    again = len(sim.accounts.ledger)
    tournament_payments.settle(sim.service.deps, sim.tournament_id)  # nothing paid twice
    assert len(sim.accounts.ledger) == again


# -- 2. a deal that ends a knockout tournament ------------------------------------------------

@pytest.mark.parametrize("progressive", [False, True])
def test_r9_16_a_deal_that_ends_a_knockout_tournament_pays_each_player_their_own_bounty(
        progressive: bool) -> None:
    sim = knockout_mtt(4, progressive=progressive, keep=0)
    while record_of(sim).players_left > 3:  # a knockout first: progressive bounties grow
        assert sim.step()
    offer = offered(sim)
    carried = {p: record_of(sim).bounty_of(p) for p in offer.players}
    for player in offer.players:
        accept(sim, player, offer.offer_id, "icm")
    done = record_of(sim)
    assert done.status is TournamentStatus.FINISHED and table(sim).closed
    own = {d["player"]: d["paid"] for d in bounty_items(sim) if d["reason"] == "deal"}
    assert own == {p: {p: b} for p, b in carried.items()}
    deal = ledger(sim, LedgerReason.DEAL)
    assert sorted(e.player_id for e in deal) == sorted(offer.players)
    prizes = ledger(sim, LedgerReason.PRIZE)
    assert sum(e.amount for e in deal + prizes) == done.terms.prize_entry * 4  # the pool, once
    check_every_bounty_once(sim)


# -- 3. the director's tools while a deal is offered -----------------------------------------

def offered(sim: Simulation, n: int = 0) -> Any:
    """Every player asks (request ids of round *n*: a request id repeated is a replay), then
    the offer."""
    for player in [s.player_id for s in table(sim).state.seats if s is not None]:
        deal_requests.ask_deal(sim.service.deps, caller(player, 100 + n), ask(sim))
    return until_offered(sim)


def test_r9_15_a_pause_takes_precedence_over_a_deal_offered_and_no_deal_is_made_paused() -> None:
    sim = knockout_mtt(4, keep=0)
    offer = offered(sim)
    deps = sim.service.deps
    director.pause(deps, sim.tournament_id, OLGA, "a dispute")
    held = table(sim)
    assert held.tournament is not None and held.tournament.hold == Hold.DIRECTOR
    assert held.tournament.deal is not None and held.tournament.deal.offer is None
    assert held.tournament.deal.asked == ()
    assert [e["offer"] for e in log(sim) if e["type"] == "deal_paused"] == [offer.offer_id]
    with pytest.raises(ServiceError) as answered:
        accept(sim, offer.players[0], offer.offer_id, "icm", n=7)
    assert answered.value.code == "no_deal_offer"
    version = table(sim).version
    with pytest.raises(ServiceError) as asked:  # no deal asked for while paused
        deal_requests.ask_deal(deps, caller(offer.players[0], 8), ask(sim))
    assert asked.value.code == "not_final_table" and "paused" in str(asked.value)
    assert table(sim).version == version
    run_until(sim, sim.clock.now + 3 * MINUTE_MS)  # held: no hand, no deal
    assert not table(sim).state.hand_in_progress and not ledger(sim, LedgerReason.DEAL)
    director.resume(deps, sim.tournament_id, OLGA, "settled")
    offer = offered(sim, 1)  # asked again after the resume: a deal can be made
    for player in offer.players:
        accept(sim, player, offer.offer_id, "chip_count", n=20)
    assert record_of(sim).status is TournamentStatus.FINISHED
    check_every_bounty_once(sim)


def test_r9_15_an_offer_the_pause_did_not_reach_cannot_be_accepted_while_paused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The table busy at the pause keeps its offer until its next write; the deal made reads
    the tournament, conditional on its version: paused, it is refused and nothing is paid."""
    sim = knockout_mtt(4, keep=0)
    offer = offered(sim)
    monkeypatch.setattr(director, "_tell", lambda *args: None)  # no table told
    director.pause(sim.service.deps, sim.tournament_id, OLGA, "a dispute")
    *first, last = offer.players
    for player in first:
        accept(sim, player, offer.offer_id, "icm")
    before = (table(sim).version, record_of(sim).version, len(sim.accounts.ledger))
    with pytest.raises(ServiceError) as refused:
        accept(sim, last, offer.offer_id, "icm")
    assert refused.value.code == "not_final_table" and "paused" in str(refused.value)
    assert (table(sim).version, record_of(sim).version, len(sim.accounts.ledger)) == before


def test_r9_15_a_move_during_an_offer_is_refused_and_a_cancel_after_the_pause_pays_bounties(
        ) -> None:
    sim = knockout_mtt(4, keep=0)
    offer = offered(sim)
    deps = sim.service.deps
    with pytest.raises(OperatorError) as moved:  # the final table is the only table
        director.move_player(deps, sim.tournament_id, offer.players[0], "1", "1", OLGA, "x")
    assert moved.value.code == "same_table"
    with pytest.raises(OperatorError) as elsewhere:
        director.move_player(deps, sim.tournament_id, offer.players[0], "1", "2", OLGA, "x")
    assert elsewhere.value.code == "unknown_table"
    with pytest.raises(OperatorError) as unpaused:  # a cancel needs the pause, which ends it
        director.cancel(deps, sim.tournament_id, OLGA, "the venue closed")
    assert unpaused.value.code == "not_paused"
    director.pause(deps, sim.tournament_id, OLGA, "the venue closes")
    director.cancel(deps, sim.tournament_id, OLGA, "the venue closed")
    assert record_of(sim).status is TournamentStatus.CANCELLED and table(sim).closed
    with pytest.raises(ServiceError):
        accept(sim, offer.players[0], offer.offer_id, "icm", n=5)
    assert not ledger(sim, LedgerReason.DEAL)
    check_every_bounty_once(sim)


# -- 4. the property: small knockout tournaments ending every way -----------------------------

@st.composite
def endings(draw: st.DrawFn) -> tuple[int, int, bool, int, int, int]:
    """Players, bounty, progressive, kept percent, steps before the ending, seed."""
    players = draw(st.integers(2, 9))
    bounty = draw(st.integers(1, ENTRY - 1))
    return (players, bounty, draw(st.booleans()), draw(st.sampled_from([0, 0, 20])),
            draw(st.integers(0, 40)), draw(st.integers(0, 2**16)))


def _until_between_hands(sim: Simulation) -> None:
    for _ in range(2_000):
        if sim.finished() or not table(sim).state.hand_in_progress:
            return
        assert sim.step()


@pytest.mark.parametrize("ending", ["play", "deal", "cancel"])
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(endings())
def test_r9_13_property_knockouts_ending_by_play_deal_or_cancel_pay_everything_once(
        ending: str, case: tuple[int, int, bool, int, int, int]) -> None:
    """Chips conserved (the ledger identity after every transaction, and what the deal and
    the prizes paid is the prize pool), nothing held at the end, every bounty, prize, deal
    and cancellation share once on the ledger."""
    players, bounty, progressive, keep, steps, seed = case
    sim = knockout_mtt(players, bounty=bounty, progressive=progressive, keep=keep, seed=seed)
    deps = sim.service.deps
    for _ in range(steps):
        if sim.finished() or record_of(sim).players_left <= 1:
            break
        assert sim.step()
    offer = None
    if not sim.finished() and record_of(sim).status is TournamentStatus.RUNNING:
        if ending == "deal":
            _until_between_hands(sim)
            if not sim.finished():
                offer = offered(sim)
                for player in offer.players:
                    accept(sim, player, offer.offer_id, "icm")
        elif ending == "cancel":
            director.pause(deps, sim.tournament_id, OLGA, "test")
            _until_between_hands(sim)  # the hand in progress ends (nobody acts: its clocks)
            director.cancel(deps, sim.tournament_id, OLGA, "test")
    event(f"{ending}{' (made)' if offer else ''}, kept {keep}")
    while record_of(sim).status is TournamentStatus.RUNNING or not (
            sim.finished() or record_of(sim).status is TournamentStatus.CANCELLED):
        assert sim.step()
    record = record_of(sim)
    # every share of a deal once; every prize and cancellation share once
    deal = ledger(sim, LedgerReason.DEAL)
    if offer is not None:
        assert sorted(e.player_id for e in deal) == sorted(offer.players)
    else:
        assert not deal
    paid = [d for _, d in sim.tournaments.items(sim.tournament_id, "paid#")]
    prizes = ledger(sim, LedgerReason.PRIZE)
    assert len(prizes) == len(paid) and sum(e.amount for e in prizes) == sum(
        int(d["prize"]) for d in paid)
    assert sum(e.amount for e in deal + prizes) == record.terms.prize_entry * players
    check_every_bounty_once(sim)

