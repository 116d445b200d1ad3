"""R9.16 deals through the service, on the in-memory adapters in virtual time
(:class:`naiko_local.tournament.Simulation`, the ledger identity checked after every
transaction): every player at the final table asks, play holds after the hand, the chip-count
and ICM splits are offered; unanimous acceptance pays each amount once, on the ledger, and play
goes on for the part kept (or the tournament ends when nothing is kept); a decline or the deal
clock resumes play; refusals change nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.state import Variant
from naiko.tournaments.structures import (
    BlindStructure,
    DealTerms,
    TournamentKind,
    TournamentTerms,
)
from naiko_local.tournament import Simulation, terms_for
from naiko_service import protocol as p
from naiko_service.ports import LedgerReason
from naiko_service.records import Hold, TableRecord
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import ServiceError, deal_requests, deals, tournaments
from naiko_service.usecases.base import Caller

ENTRY = 100


def humans(terms: TournamentTerms, players: int, seed: int) -> Simulation:
    """The tournament with *players* humans (a BOT's seat is the server's alone, R8.4: only
    people ask for deals), each paying the entry from their own account. Nobody acts: each is
    sat out by the clock and played at once from then on (R9.4), so play goes on."""
    sim = Simulation(terms, players, seed, check=True)
    deps = sim.service.deps
    scheduled = terms.kind is TournamentKind.SCHEDULED
    tournaments.create(deps, sim.tournament_id, "deals", terms, "test",
                       starts_ms=sim.clock.now + 60_000 if scheduled else None)
    names = [f"p{n}" for n in range(1, players + 1)]
    for name in names:
        sim.accounts.grant(name, terms.entry, ref="test")
        sim.service.connect(f"conn-{name}", name)
    tournaments.enter(deps, None, sim.tournament_id, [
        tournaments.Entrant(name, name, connection_id=f"conn-{name}") for name in names])
    while sim.tournaments.load(sim.tournament_id).status is not TournamentStatus.RUNNING:
        assert sim.step()
    return sim


def started(players: int = 3, *, keep: int = 10, max_players: int | None = None,
            seed: int = 3, deal_terms: bool = True, stack: int = 1_500) -> Simulation:
    base = replace(terms_for("sng", Variant.NLHE, ENTRY, players), starting_stack=stack)
    # one-minute levels: nobody acts (each is played at once, R9.4), the blinds decide soon
    terms = replace(base, structure=BlindStructure(tuple(
        replace(level, minutes=1) for level in base.structure.levels)))
    if deal_terms:
        terms = replace(terms, deals=DealTerms(max_players or players, keep, 60))
    sim = humans(terms, players, seed)
    while not sim.store.load(table_id(sim)).state.hand_in_progress:
        assert sim.step()
    return sim


def table_id(sim: Simulation) -> str:
    return sim.tournaments.load(sim.tournament_id).tables[0]


def table(sim: Simulation) -> TableRecord:
    return sim.store.load(table_id(sim))


def caller(player: str, n: int = 0) -> Caller:
    return Caller(f"conn-{player}", player, f"req-{player}-{n}")


def players(sim: Simulation) -> list[str]:
    return [s.player_id for s in table(sim).state.seats if s is not None]


def ask(sim: Simulation) -> p.AskDeal:
    return p.AskDeal(action="ask_deal", request_id="r", table_id=table_id(sim))


def decline(sim: Simulation, offer_id: str) -> p.DeclineDeal:
    return p.DeclineDeal(action="decline_deal", request_id="r", table_id=table_id(sim),
                         offer_id=offer_id)


def ask_all(sim: Simulation) -> None:
    for player in players(sim):
        deal_requests.ask_deal(sim.service.deps, caller(player),
                       ask(sim))


def until_offered(sim: Simulation) -> Any:
    for _ in range(2_000):
        info = table(sim).tournament
        assert info is not None
        if info.deal is not None and info.deal.offer is not None:
            return info.deal.offer
        assert sim.step()
    raise AssertionError("no offer")


def deal_ledger(sim: Simulation) -> list[Any]:
    return [e for e in sim.accounts.ledger
            if e.ref == sim.tournament_id and e.reason is LedgerReason.DEAL]


def log_types(sim: Simulation) -> list[str]:
    return [e["type"] for e in tournaments.export_log(sim.service.deps, sim.tournament_id)]


def accept(sim: Simulation, player: str, offer_id: str, split: str, n: int = 1) -> None:
    deal_requests.accept_deal(sim.service.deps, caller(player, n), p.AcceptDeal(
        action="accept_deal", request_id="r", table_id=table_id(sim), offer_id=offer_id,
        split=split))  # type: ignore[arg-type]


def test_r9_16_unanimous_acceptance_pays_once_then_play_goes_on_for_the_kept_part() -> None:
    sim = started(3, keep=10, stack=300)  # short stacks: the kept part is played for soon
    ask_all(sim)
    assert table(sim).state.hand_in_progress  # the hand in progress is played out
    offer = until_offered(sim)
    held = table(sim)
    assert not held.state.hand_in_progress and held.tournament is not None
    assert held.tournament.hold == Hold.DEAL
    record = sim.tournaments.load(sim.tournament_id)
    left = record.payouts[:len(offer.players)]
    assert sum(offer.prizes) + offer.kept == sum(left)
    assert offer.kept == sum(left) * 10 // 100
    assert list(offer.stacks) == [held.state.seats[held.seat_of(x)].stack  # type: ignore[union-attr,index]
                                  for x in offer.players]
    for split in ("icm", "chip_count"):
        assert sum(offer.splits[split]) == sum(offer.prizes)
    first, *rest = offer.players
    accept(sim, first, offer.offer_id, "chip_count")
    for player in rest:  # one changes their mind: nothing applied until all agree
        accept(sim, player, offer.offer_id, "icm")
    assert not deal_ledger(sim)
    pool = sim.tournaments.load(sim.tournament_id).pool_held
    accept(sim, first, offer.offer_id, "icm", n=2)  # now unanimous: applied
    paid = deal_ledger(sim)
    assert sorted((e.player_id, e.amount) for e in paid) == sorted(
        (sim.store.load(table_id(sim)).room.account_of(x), a)
        for x, a in zip(offer.players, offer.splits["icm"], strict=True))
    after = sim.tournaments.load(sim.tournament_id)
    assert after.pool_held == pool - sum(offer.prizes)
    assert after.payouts[:len(offer.players)] == [offer.kept] + [0] * (len(left) - 1)
    with pytest.raises(ServiceError) as again:  # nothing left to accept: never twice
        accept(sim, first, offer.offer_id, "icm", n=3)
    assert again.value.code == "no_deal_offer"
    with pytest.raises(ServiceError) as asked:
        deal_requests.ask_deal(sim.service.deps, caller(first, 9), ask(sim))
    assert asked.value.code == "deal_made"
    while not sim.finished():  # play goes on for the kept part
        assert sim.step()
    assert len(deal_ledger(sim)) == len(offer.players)
    prizes = [e for e in sim.accounts.ledger
              if e.ref == sim.tournament_id and e.reason is LedgerReason.PRIZE]
    won = sum(e.amount for e in prizes) + sum(e.amount for e in deal_ledger(sim))
    assert won == ENTRY * 3  # the whole pool, once
    assert sim.tournaments.load(sim.tournament_id).pool_held == 0
    types = log_types(sim)
    assert types.count("deal_asked") == 3 and types.count("deal_offered") == 1
    assert types.count("deal_accepted") == 4 and types.count("deal_made") == 1
    assert types.index("deal_made") < types.index("finished")


def test_r9_16_nothing_kept_the_deal_ends_the_tournament_with_places_by_stacks() -> None:
    sim = started(3, keep=0)
    ask_all(sim)
    offer = until_offered(sim)
    for player in offer.players:
        accept(sim, player, offer.offer_id, "chip_count")
    record = sim.tournaments.load(sim.tournament_id)
    assert record.status is TournamentStatus.FINISHED and table(sim).closed
    places = {d["player_id"]: d["place"] for _, d in sim.tournaments.items(
        sim.tournament_id, "result#")}
    assert places == deals.stack_places(offer.players, offer.stacks)
    assert sum(e.amount for e in deal_ledger(sim)) == ENTRY * 3 == -sum(
        -e.amount for e in deal_ledger(sim))
    assert record.pool_held == 0


def test_r9_16_one_decline_resumes_play() -> None:
    sim = started(3)
    ask_all(sim)
    offer = until_offered(sim)
    accept(sim, offer.players[0], offer.offer_id, "icm")
    hands = table(sim).state.hand_count
    deal_requests.decline_deal(sim.service.deps, caller(offer.players[1], 5),
                       decline(sim, offer.offer_id))
    after = table(sim)
    assert after.tournament is not None and after.tournament.hold is None
    assert after.tournament.deal is not None and after.tournament.deal.offer is None
    assert after.state.hand_count == hands + 1  # dealt in the same write
    assert not deal_ledger(sim)
    assert "deal_declined" in log_types(sim)


def test_r9_16_the_deal_clock_running_out_resumes_play() -> None:
    sim = started(3)
    ask_all(sim)
    offer = until_offered(sim)
    accept(sim, offer.players[0], offer.offer_id, "icm")
    for _ in range(200):  # bounded: a clock that never ends the offer must fail, not hang
        if table(sim).tournament.deal.offer is None:  # type: ignore[union-attr]
            break
        assert sim.step()
    else:
        raise AssertionError("the deal clock did not end the offer")
    assert sim.clock.now >= offer.ends_ms
    after = table(sim)
    assert after.tournament is not None and after.tournament.hold is None
    assert after.state.hand_in_progress  # play resumed
    assert not deal_ledger(sim)
    assert "deal_expired" in log_types(sim)


def snapshot(sim: Simulation) -> tuple[int, int, int]:
    return (table(sim).version, sim.tournaments.load(sim.tournament_id).version,
            len(sim.accounts.ledger))


@pytest.mark.parametrize(("case", "code"), [
    ("no_terms", "deals_off"), ("too_many", "too_many_players"), ("stranger", "not_seated"),
    ("twice", "already_asked"), ("no_offer", "no_deal_offer")])
def test_r9_16_refusals_change_nothing(case: str, code: str) -> None:
    sim = started(3, deal_terms=case != "no_terms", max_players=2 if case == "too_many" else 3)
    deps = sim.service.deps
    who = "zed" if case == "stranger" else players(sim)[0]
    if case == "twice":
        deal_requests.ask_deal(deps, caller(who), ask(sim))
    before = snapshot(sim)
    with pytest.raises(ServiceError) as refused:
        if case == "no_offer":
            deal_requests.decline_deal(deps, caller(who, 1), decline(sim, "1.1"))
        else:
            deal_requests.ask_deal(deps, caller(who, 1),
                           ask(sim))
    assert refused.value.code == code and refused.value.message
    assert snapshot(sim) == before


def test_r9_16_an_answer_to_an_offer_that_is_over_is_refused() -> None:
    sim = started(3)
    ask_all(sim)
    offer = until_offered(sim)
    before = snapshot(sim)
    with pytest.raises(ServiceError) as refused:
        accept(sim, offer.players[0], "0.1", "icm")
    assert refused.value.code == "deal_changed"
    assert snapshot(sim) == before


def test_r9_16_not_at_the_final_table_while_other_tables_play() -> None:
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 12), seat_count=6,
                    deals=DealTerms(6, 0, 60))
    sim = humans(terms, 12, 1)
    record = sim.tournaments.load(sim.tournament_id)
    assert len(record.tables) == 2
    first = sim.store.load(record.tables[0])
    player = next(s.player_id for s in first.state.seats if s is not None)
    before = (first.version, record.version, len(sim.accounts.ledger))
    with pytest.raises(ServiceError) as refused:
        deal_requests.ask_deal(sim.service.deps, caller(player),
                       p.AskDeal(action="ask_deal", request_id="r", table_id=first.table_id))
    assert refused.value.code == "not_final_table"
    assert (sim.store.load(first.table_id).version,
            sim.tournaments.load(sim.tournament_id).version,
            len(sim.accounts.ledger)) == before


def test_r9_16_players_are_told_at_each_step() -> None:
    sim = started(3)
    ask_all(sim)
    offer = until_offered(sim)
    for player in offer.players:
        accept(sim, player, offer.offer_id, "icm")
    sent = sim.service.deps.gateway.sent  # type: ignore[attr-defined]
    offered_view = next(m["view"]["tournament"]["deal"] for m in sent[f"conn-{offer.players[0]}"]
                        if m.get("view", {}).get("tournament", {}).get("deal", {}).get("offer"))
    assert offered_view["offer"]["icm"] == list(offer.splits["icm"])  # a snapshot shows it too
    assert offered_view["asked"] == list(offer.players)
    for player in offer.players:  # everyone heard every step, with every amount
        events = [e for m in sent[f"conn-{player}"] for e in m.get("events", [])]
        kinds = [e["kind"] for e in events]
        assert kinds.count("deal_asked") == 3
        assert kinds.count("deal_accepted") == 3  # the last one with the deal made
        offered = next(e for e in events if e["kind"] == "deal_offered")
        assert offered["icm"] == list(offer.splits["icm"])
        assert offered["chip_count"] == list(offer.splits["chip_count"])
        assert offered["players"] == list(offer.players)
        made = next(e for e in events if e["kind"] == "deal_made")
        assert made["amounts"] == list(offer.splits["icm"]) and made["split"] == "icm"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 5), st.integers(0, 50), st.sampled_from(["icm", "chip_count"]),
       st.integers(1, 1_000))
def test_r9_16_property_a_deal_conserves_chips_and_pays_each_player_once(
        players_n: int, keep: int, split: str, seed: int) -> None:
    sim = started(players_n, keep=keep, seed=seed)
    ask_all(sim)
    offer = until_offered(sim)
    for player in offer.players:
        accept(sim, player, offer.offer_id, split)
    record = sim.tournaments.load(sim.tournament_id)
    paid = deal_ledger(sim)
    # every player of the offer once on the ledger, once in the deal# items
    assert sorted(e.player_id for e in paid) == sorted(offer.players)
    assert sorted(k for k, _ in sim.tournaments.items(sim.tournament_id, "deal#")) == sorted(
        f"deal#{x}" for x in offer.players)
    # chips conserved: what the pool holds and what the deal paid are the entries
    assert record.pool_held + sum(e.amount for e in paid) == ENTRY * players_n
    assert sum(e.amount for e in paid) == sum(offer.prizes)
    assert record.pool_held == offer.kept == sum(record.payouts[:players_n])
    assert sim.store.audit().holds  # granted = accounts + tables + tournaments


def test_r9_16_a_scheduled_tournament_s_final_table_deals_too() -> None:
    """The scheduled tables' policy (``MttPolicy.may_deal``) holds for the deal as the Sit &
    Go's does: four players at one 6-seat table is the final table from the start."""
    base = replace(terms_for("mtt", Variant.NLHE, ENTRY, 4), seat_count=6)
    terms = replace(base, structure=BlindStructure(tuple(
        replace(level, minutes=1) for level in base.structure.levels)),
        deals=DealTerms(4, 20, 60))
    sim = humans(terms, 4, 2)
    record = sim.tournaments.load(sim.tournament_id)
    assert len(record.tables) == 1 and table(sim).tournament.multi  # type: ignore[union-attr]
    while not table(sim).state.hand_in_progress:
        assert sim.step()
    ask_all(sim)
    offer = until_offered(sim)
    assert table(sim).tournament.hold == Hold.DEAL  # type: ignore[union-attr]
    for player in offer.players:
        accept(sim, player, offer.offer_id, "chip_count")
    assert sorted(e.amount for e in deal_ledger(sim)) == sorted(offer.splits["chip_count"])
    hands = table(sim).state.hand_count
    for _ in range(200):  # play goes on for the kept part
        if table(sim).state.hand_count > hands:
            break
        assert sim.step()
    assert table(sim).state.hand_count == hands + 1
    record = sim.tournaments.load(sim.tournament_id)
    assert record.payouts[:1] == [offer.kept] and record.pool_held == offer.kept > 0
