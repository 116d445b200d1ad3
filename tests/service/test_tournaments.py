"""Sit & Go and Spin tournaments through the service (R9.1-R9.6, R9.9, R9.10), amounts worked
by hand. Every account starts with 10,000 chips; Spins here have entry 100 and 500 tournament
chips each unless said otherwise. Decks are fixed where a hand's result matters (the dealer's
shuffle is replaced, as PokerKit tests deal cards themselves)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from naiko.cards import seeded_random
from naiko.state import AnteMode, Variant
from naiko.tournaments.prizes import SPIN_TABLE, PayoutRule
from naiko.tournaments.structures import (
    BlindLevel,
    BlindStructure,
    TournamentKind,
    TournamentTerms,
    from_preset,
)
from naiko_service.ports import LedgerReason, TableNotFound
from naiko_service.records import TableRecord, TimerKind
from naiko_service.tournament_records import HOUSE_PRIZES, TournamentStatus
from naiko_service.usecases import (
    dealer,
    tournament_payments,
    tournament_tables,
    tournaments,
)
from naiko_service.usecases.private import HOUSE_BOTS
from naiko_testing import fixed_deck, predicted_button
from service_testing import Harness, Player, harness

MINUTE = 60_000

WEIGHT_OF_25X = sum(p.weight for p in SPIN_TABLE.prizes if p.multiplier < 25)
"""A Spin draw of this value (``randrange(1,000,000)``) is the 25x row: 80/12/8 to three places."""


class Scripted:
    """A random source whose first ``randrange`` answers are scripted (a Spin's multiplier,
    the seat draw), then seeded."""

    def __init__(self, *answers: int, seed: int = 5):
        self.answers = list(answers)
        self.rest = seeded_random(seed)

    def randrange(self, *args: int) -> int:
        if self.answers:
            return self.answers.pop(0)
        return self.rest.randrange(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rest, name)


def levels(*blinds: tuple[int, int], minutes: int = 3) -> BlindStructure:
    return BlindStructure(tuple(BlindLevel(n, sb, bb, 0, AnteMode.NONE, minutes)
                                for n, (sb, bb) in enumerate(blinds, 1)))


def spin_terms(entry: int = 100, structure: BlindStructure | None = None,
               decision_ms: int = 20_000) -> TournamentTerms:
    return replace(from_preset("spin_3max_hyper", entry), decision_ms=decision_ms,
                   structure=structure or levels((10, 20), (15, 30), (20, 40)))


def sng_terms(seats: int, entry: int = 100) -> TournamentTerms:
    return TournamentTerms(kind=TournamentKind.SIT_AND_GO, variant=Variant.NLHE,
                           seat_count=seats, entry=entry, starting_stack=1_500,
                           structure=levels((10, 20), (15, 30)), decision_ms=20_000,
                           bots_allowed=False, min_players=seats, max_players=seats,
                           payout=PayoutRule.SIT_AND_GO)


def new_tournament(h: Harness, terms: TournamentTerms, tid: str = "t1") -> str:
    tournaments.create(h.service.deps, tid, "test", terms, "ops")
    return tid


def register(tid: str, *players: Player) -> None:
    for player in players:
        reply = player.send(action="register", tournament_id=tid)
        assert reply["type"] == "ack", reply


def table_of(h: Harness, tid: str) -> TableRecord:
    return h.store.load(f"{tid}-1")


def seat_of(h: Harness, tid: str, player: Player) -> int:
    seat = table_of(h, tid).seat_of(player.player_id)
    assert seat is not None
    return seat


def rig(monkeypatch: pytest.MonkeyPatch, h: Harness, tid: str, holes: list[tuple[Player, str]],
        board: str) -> None:
    """The next hand at the tournament's table deals *holes* and *board*."""
    record = table_of(h, tid)
    state = record.state
    first = state.last_big_blind_seat is None
    assert record.tournament is not None
    button = record.tournament.first_button if first else predicted_button(state)
    deck = fixed_deck(state, {seat_of(h, tid, p): cards for p, cards in holes}, board,
                      button)
    monkeypatch.setattr(dealer, "shuffled_deck", lambda rng: list(deck))


def deal(h: Harness, tid: str) -> None:
    """The time of the next hand comes (the start, or the pause after a hand)."""
    record = table_of(h, tid)
    due = min(t.due_ms for t in record.timers if t.kind is TimerKind.NEXT_HAND)
    h.clock.now = max(h.clock.now, due)
    h.fire_due_timers()
    assert table_of(h, tid).state.hand_in_progress


def act(h: Harness, tid: str, players: list[Player], move: str, amount: int | None = None,
        who: Player | None = None) -> None:
    hand = table_of(h, tid).state.hand
    assert hand is not None and hand.actor is not None
    player = next(p for p in players if seat_of(h, tid, p) == hand.actor)
    if who is not None:
        assert player is who
    frame: dict[str, Any] = {"action": "act", "table_id": f"{tid}-1", "move": move}
    if amount is not None:
        frame["amount"] = amount
    reply = player.send(**frame)
    assert reply["type"] in ("ack", "update"), reply


def passive(h: Harness, tid: str, players: list[Player]) -> str:
    """Check if possible, else call: the move that keeps everyone in to the showdown."""
    hand = table_of(h, tid).state.hand
    assert hand is not None and hand.actor is not None
    actions = at(h, tid, hand.actor, players).last_view()["prompt"]["actions"]
    return "check" if "check" in actions else "call"


def table_seat(h: Harness, tid: str, player_id: str) -> int:
    """The seat *player_id* was given at the start (from the log: they may have left)."""
    seats = log(h, tid, "started")[0]["tables"][f"{tid}-1"]
    return next(int(seat) for seat, pid in seats.items() if pid == player_id)


def at(h: Harness, tid: str, seat: int, players: list[Player]) -> Player:
    return next(p for p in players if seat_of(h, tid, p) == seat)


def log(h: Harness, tid: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in tournaments.export_log(h.service.deps, tid) if e["type"] == kind]


def results(h: Harness, tid: str) -> dict[str, tuple[int, int]]:
    assert h.tournaments is not None
    return {data["player_id"]: (data["place"], data["prize"])
            for _, data in h.tournaments.items(tid, "result#")}


def ledger(h: Harness, reason: LedgerReason) -> list[tuple[str, int]]:
    return [(e.player_id, e.amount) for e in h.accounts.ledger if e.reason is reason]


def events(player: Player, kind: str) -> list[dict[str, Any]]:
    return [e for m in player.messages if m["type"] == "update" for e in m["events"]
            if e["kind"] == kind]


def spin(h: Harness, monkeypatch: pytest.MonkeyPatch | None = None, entry: int = 100,
         **terms: Any) -> tuple[str, list[Player]]:
    """A Spin of three registered players (their seats drawn by the seeded source)."""
    h.accounts.grant(HOUSE_PRIZES, 100_000)  # ops fund the house's prize account
    tid = new_tournament(h, spin_terms(entry, **terms))
    players = [h.player(name) for name in ("ann", "bob", "cy")]
    register(tid, *players)
    return tid, players


# -- R9.1 entries ---------------------------------------------------------------------------------

def test_r9_1_registering_moves_the_entry_and_unregistering_brings_it_back() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(6, entry=250))
    ann, bob = h.player("ann"), h.player("bob")
    register(tid, ann, bob)
    assert h.accounts.balance("ann") == 10_000 - 250
    assert h.tournaments is not None and h.tournaments.load(tid).pool_held == 500
    assert h.store.audit().holds
    assert ann.send(action="unregister", tournament_id=tid)["type"] == "ack"
    assert h.accounts.balance("ann") == 10_000  # 9,750 + 250 back
    assert h.tournaments.load(tid).pool_held == 250 and h.tournaments.load(tid).entrants == 1
    assert ledger(h, LedgerReason.ENTRY) == [("ann", -250), ("bob", -250)]
    assert ledger(h, LedgerReason.UNREGISTER) == [("ann", 250)]
    assert h.store.audit().holds


def test_r9_1_unregistering_from_a_spin_takes_the_entry_back_from_the_house() -> None:
    # A Spin's entry goes on to the house's prize account (the house pays its prizes, R9.10):
    # the refund takes it back from there, nothing is created.
    h = harness()
    h.accounts.grant(HOUSE_PRIZES, 100_000)
    tid = new_tournament(h, spin_terms(100))
    ann, bob = h.player("ann"), h.player("bob")
    register(tid, ann, bob)
    assert h.accounts.balance(HOUSE_PRIZES) == 100_200
    assert h.store.audit().holds
    assert ann.send(action="unregister", tournament_id=tid)["type"] == "ack"
    assert h.accounts.balance("ann") == 10_000 and h.accounts.balance("bob") == 9_900
    assert h.accounts.balance(HOUSE_PRIZES) == 100_100  # bob's entry only
    assert h.tournaments is not None and h.tournaments.load(tid).entrants == 1
    assert h.tournaments.load(tid).pool_held == 0  # a Spin holds no pool of its own
    assert sorted(ledger(h, LedgerReason.UNREGISTER)) == [("ann", 100), (HOUSE_PRIZES, -100)]
    assert h.store.audit().holds


def test_r9_1_refusals_change_nothing() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(2, entry=250))
    ann, poor = h.player("ann"), h.player("poor", chips=249)
    register(tid, ann)
    assert ann.send(action="register", tournament_id=tid)["code"] == "already_registered"
    assert poor.send(action="register", tournament_id=tid)["code"] == "insufficient_funds"
    assert poor.send(action="unregister", tournament_id=tid)["code"] == "not_registered"
    assert ann.send(action="register", tournament_id="nope")["code"] == "unknown_tournament"
    assert h.accounts.balance("poor") == 249 and h.accounts.balance("ann") == 9_750
    assert h.tournaments is not None and h.tournaments.load(tid).entrants == 1


def test_r9_1_no_refund_once_it_started_and_tournament_chips_are_not_money() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(2, entry=250))
    ann, bob = h.player("ann"), h.player("bob")
    register(tid, ann, bob)
    assert ann.send(action="unregister", tournament_id=tid)["code"] == "registration_closed"
    table = table_of(h, tid)
    assert [s.stack for s in table.state.seats if s] == [1_500, 1_500]  # the starting stack
    assert h.accounts.balance("ann") == 9_750  # the table's chips never touch the account
    assert ann.send(action="add_chips", table_id=table.table_id,
                    amount=100)["code"] == "tournament_table"
    assert ann.send(action="leave_table",
                    table_id=table.table_id)["code"] == "tournament_table"
    assert h.store.audit().holds  # accounts + the tournament's 500 = everything granted


def test_r9_1_a_cancelled_tournament_returns_every_entry_once() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(6, entry=100))
    ann, bob = h.player("ann"), h.player("bob")
    register(tid, ann, bob)
    tournaments.cancel_tournament(h.service.deps, tournaments.Caller("c", "ops", "r"),
                                  tournaments.p.CancelTournament(action="cancel_tournament",
                                                                 request_id="r",
                                                                 tournament_id=tid))
    h.clock.advance(10_000)
    h.fire_due_timers()
    tournaments.tournament_timer(h.service.deps, tid, None)  # the sweep, again
    assert h.accounts.balance("ann") == h.accounts.balance("bob") == 10_000
    assert sorted(ledger(h, LedgerReason.UNREGISTER)) == [("ann", 100), ("bob", 100)]
    assert h.tournaments is not None
    assert h.tournaments.load(tid).status is TournamentStatus.CANCELLED
    assert h.tournaments.load(tid).pool_held == 0 and h.store.audit().holds


# -- R9.2 the start -------------------------------------------------------------------------------

def test_r9_2_a_sit_and_go_starts_when_its_seats_are_filled() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(4))
    players = [h.player(f"p{i}") for i in range(4)]
    register(tid, *players[:3])
    assert h.tournaments is not None
    assert h.tournaments.load(tid).status is TournamentStatus.REGISTERING
    with pytest.raises(TableNotFound):
        table_of(h, tid)
    register(tid, players[3])
    record = h.tournaments.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.players_left == 4
    table = table_of(h, tid)
    assert table.tournament is not None and table.tournament.tournament_id == tid
    assert sorted(s.player_id for s in table.state.seats if s) == ["p0", "p1", "p2", "p3"]
    started = log(h, tid, "started")[0]
    assert started["entrants"] == 4 and started["prize_pool"] == 400
    assert started["payouts"] == [400]  # up to 5 players: winner takes all
    assert started["buttons"] == {table.table_id: table.tournament.first_button}
    assert started["tables"][table.table_id] == {
        str(i): s.player_id for i, s in enumerate(table.state.seats) if s}
    assert log(h, tid, "prizes_final")[0]["payouts"] == [400]
    deal(h, tid)  # the first hand, at the drawn button
    assert table_of(h, tid).state.hand.button == table.tournament.first_button  # type: ignore


def test_r9_2_seats_and_the_first_button_are_drawn_at_random() -> None:
    draws = set()
    for seed in range(12):
        h = harness(seed)
        tid = new_tournament(h, sng_terms(4))
        register(tid, *[h.player(f"p{i}") for i in range(4)])
        table = table_of(h, tid)
        assert table.tournament is not None
        draws.add((tuple(s.player_id for s in table.state.seats if s),
                   table.tournament.first_button))
    assert len(draws) >= 8  # 24 orders x 4 buttons: twelve seeds seldom repeat


# -- R9.3 blind levels ----------------------------------------------------------------------------

def test_r9_3_a_level_that_starts_during_a_hand_waits_for_the_next_hand() -> None:
    h = harness()
    tid, players = spin(h, structure=levels((10, 20), (15, 30), minutes=1))
    deal(h, tid)
    first = table_of(h, tid)
    assert first.tournament is not None
    level_two = first.tournament.started_ms + MINUTE
    assert (first.state.config.small_blind, first.state.config.big_blind) == (10, 20)
    # The hand goes on, an action every 15 s, past the start of level 2 (at +60 s).
    while table_of(h, tid).state.hand_in_progress:
        h.clock.advance(15_000)
        act(h, tid, players, passive(h, tid, players))
    assert h.clock.now > level_two
    hand_log = log(h, tid, "hand")[0]
    assert (hand_log["level"], hand_log["small_blind"], hand_log["big_blind"]) == (1, 10, 20)
    assert sum(hand_log["stacks_after"].values()) == 1_500
    deal(h, tid)
    second = table_of(h, tid)
    assert (second.state.config.small_blind, second.state.config.big_blind) == (15, 30)
    posted = [e["amount"] for e in events(players[0], "blind_posted")][-2:]
    assert posted == [15, 30]
    changed = events(players[0], "level_changed")
    assert [c["level"] for c in changed] == [1, 2]
    assert changed[1]["next_level"] is None and changed[1]["ends_ms"] is None
    view = players[0].last_view()["tournament"]
    assert (view["level"], view["big_blind"], view["next_level"]) == (2, 30, None)


def test_r9_3_the_level_timer_records_each_level_once_however_often_it_fires() -> None:
    h = harness()
    tid, _ = spin(h, structure=levels((10, 20), (15, 30), (20, 40), minutes=1))
    assert h.tournaments is not None
    started = h.tournaments.load(tid).started_ms
    assert started is not None
    timer = next(t for t in h.tournaments.load(tid).timers if t.kind is TimerKind.LEVEL)
    assert (timer.token, timer.due_ms) == ("level:2", started + MINUTE)
    h.clock.now = started + MINUTE
    target = "T:" + tid
    assert h.service.timer_fired(target, "level:2")
    assert not h.service.timer_fired(target, "level:2")  # delivered twice: nothing more
    assert h.tournaments.load(tid).level == 2
    assert [(e["level"], e["at_ms"]) for e in log(h, tid, "level")] == [(2, started + MINUTE)]
    # A late timer (the sweep, 5 minutes on) records the levels it missed, each once.
    h.clock.now = started + 5 * MINUTE
    h.service.sweep()
    h.service.sweep()
    assert [e["level"] for e in log(h, tid, "level")] == [2, 3]
    assert h.tournaments.load(tid).level == 3


# -- R9.4 absent players --------------------------------------------------------------------------

def test_r9_4_a_player_sitting_out_is_dealt_in_and_blinded_away() -> None:
    h = harness()
    tid, players = spin(h, structure=levels((100, 200)))
    ann, bob, cy = players
    assert cy.send(action="sit_out", table_id=f"{tid}-1")["type"] in ("ack", "update")
    hands = 0
    while results(h, tid).get("cy") is None:
        deal(h, tid)
        hands += 1
        assert hands < 20
        while (hand := table_of(h, tid).state.hand) is not None and not hand.complete:
            assert hand.actor != seat_of(h, tid, cy)  # never waits for the absent player
            assert not any(t.kind is TimerKind.DECISION and t.seat_index == seat_of(h, tid, cy)
                           for t in table_of(h, tid).timers)
            mover = at(h, tid, hand.actor, players)
            prompt = mover.last_view()["prompt"]
            if mover is ann:  # ann raises whenever she can, so cy's blinds are lost
                move = "raise_to" if "raise_to" in prompt["actions"] else (
                    "bet" if "bet" in prompt["actions"] else "call"
                    if "call" in prompt["actions"] else "check")
                amount = prompt["min_raise_to"] if move in ("raise_to", "bet") else None
                act(h, tid, players, move, amount)
            else:
                act(h, tid, players, "fold" if "fold" in prompt["actions"] else "check")
    assert results(h, tid)["cy"][0] == 3  # blinded away: last
    cy_seat = table_seat(h, tid, "cy")
    posted = [e["amount"] for e in events(ann, "blind_posted") if e["seat_index"] == cy_seat]
    assert posted and set(posted) <= {100, 200}  # cy posted blinds while sitting out
    moved = {e["action"] for e in events(ann, "action") if e["seat_index"] == cy_seat}
    assert moved <= {"fold", "check", "call"} and "fold" in moved  # played for, at once
    assert hands >= 2


def test_r9_4_a_player_who_times_out_sits_out_and_is_played_at_once_until_back() -> None:
    h = harness()
    tid, players = spin(h)
    deal(h, tid)
    hand = table_of(h, tid).state.hand
    assert hand is not None and hand.actor is not None
    sleeper = at(h, tid, hand.actor, players)
    h.clock.advance(20_000)  # the decision clock runs out (the player is connected)
    h.fire_due_timers()
    assert not events(sleeper, "timed_out")  # the Spin's time bank runs first (R8.7)
    h.clock.advance(15_000)
    h.fire_due_timers()
    assert events(sleeper, "timed_out")
    seat = seat_of(h, tid, sleeper)
    assert table_of(h, tid).state.seats[seat].sitting_out  # type: ignore[union-attr]
    # The next hands: the sleeper is dealt in and acts at once, without a clock.
    for _ in range(3):
        while table_of(h, tid).state.hand_in_progress:
            actor_seat = table_of(h, tid).state.hand.actor  # type: ignore[union-attr]
            assert actor_seat != seat
            act(h, tid, players, "fold" if "fold" in at(h, tid, actor_seat, players)
                .last_view()["prompt"]["actions"] else "check")
        if results(h, tid):
            break
        deal(h, tid)
        assert table_of(h, tid).state.hand.dealt[seat]  # type: ignore[union-attr]
    assert sleeper.send(action="sit_in", table_id=f"{tid}-1")["type"] in ("ack", "update")
    assert not table_of(h, tid).state.seats[seat].sitting_out  # type: ignore[union-attr]


# -- R9.5 places, R9.9 prizes ---------------------------------------------------------------------

def spin_25x(h: Harness, entry: int = 100) -> tuple[str, list[Player]]:
    """A Spin whose multiplier draw is the 25x row: the pool is 25 entries, 80/12/8."""
    h.service.deps.rng = Scripted(WEIGHT_OF_25X)
    tid, players = spin(h, entry=entry)
    assert h.tournaments is not None
    record = h.tournaments.load(tid)
    assert record.spin is not None and record.spin.multiplier == 25
    return tid, players


def test_r9_5_two_players_out_in_one_hand_are_ranked_by_their_starting_stacks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, players = spin_25x(h)  # pool 2,500: 2,000 / 300 / 200
    table = table_of(h, tid)
    assert table.tournament is not None
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    # Hand 1: the button raises to 200, the small blind folds, the big blind calls; the button
    # wins a 410 pot. Stacks: button 500 + 210 = 710, small blind 490, big blind 300.
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "7c2d"), (big, "KsKh")], "Ad9c5h3s2c")
    deal(h, tid)
    act(h, tid, players, "raise_to", 200, who=button)
    act(h, tid, players, "fold", who=small)
    act(h, tid, players, "call", who=big)
    for _ in range(3):
        act(h, tid, players, "check", who=big)
        act(h, tid, players, "check", who=button)
    after = {p.player_id: s for p, s in zip(players, [table_of(h, tid).state.stack(
        seat_of(h, tid, p)) for p in players], strict=True)}
    assert after == {button.player_id: 710, small.player_id: 490, big.player_id: 300}
    # Hand 2: everybody all in; the old button (710) wins with the best hand.
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    act(h, tid, players, "all_in", who=small)  # now on the button: 490
    act(h, tid, players, "all_in", who=big)  # now the small blind: 300
    act(h, tid, players, "call", who=button)  # now the big blind: calls 490
    assert results(h, tid) == {button.player_id: (1, 2_000), small.player_id: (2, 300),
                               big.player_id: (3, 200)}
    out = log(h, tid, "eliminated")
    assert [(e["player"], e["place"], e["hand"]) for e in out] == [  # last place first
        (big.player_id, 3, 2), (small.player_id, 2, 2)]
    finished = log(h, tid, "finished")[0]
    assert finished["places"] == {button.player_id: 1, small.player_id: 2, big.player_id: 3}
    assert h.accounts.balance(button.player_id) == 10_000 - 100 + 2_000
    assert h.accounts.balance(small.player_id) == 10_000 - 100 + 300
    assert h.accounts.balance(big.player_id) == 10_000 - 100 + 200
    assert table_of(h, tid).closed


def test_r9_5_a_tie_shares_two_prizes_and_the_odd_chip_goes_to_the_better_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, players = spin_25x(h, entry=101)  # pool 2,525: 2,020 / 303 / 202
    assert h.tournaments is not None and h.tournaments.load(tid).payouts == [2_020, 303, 202]
    table = table_of(h, tid)
    assert table.tournament is not None
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    # Both started the hand with 500: they tie for 2nd and share 303 + 202 = 505; the odd
    # chip goes to the first clockwise from the button (the small blind).
    assert results(h, tid) == {button.player_id: (1, 2_020), small.player_id: (2, 253),
                               big.player_id: (2, 252)}
    assert [e["place"] for e in log(h, tid, "eliminated")] == [2, 2]
    assert sum(amount for _, amount in ledger(h, LedgerReason.PRIZE)
               if _ != HOUSE_PRIZES) == 2_525


@pytest.mark.parametrize("seed", [2, 1, 0])  # the seat draw puts the first button on 0, 1, 2
def test_r9_5_the_odd_chip_of_a_tie_goes_clockwise_from_the_button_wherever_it_is(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    # With the button on seat 1 the small blind sits on seat 2 and the big blind on seat 0:
    # taking the busted players in seat order (not from the button) would hand the odd chip
    # to the big blind.
    h = harness()
    h.service.deps.rng = Scripted(WEIGHT_OF_25X, seed=seed)
    tid, players = spin(h, entry=101)  # pool 2,525: 2,020 / 303 / 202
    table = table_of(h, tid)
    assert table.tournament is not None
    b = table.tournament.first_button
    assert b == {2: 0, 1: 1, 0: 2}[seed]
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    assert results(h, tid) == {button.player_id: (1, 2_020), small.player_id: (2, 253),
                               big.player_id: (2, 252)}
    assert h.accounts.balance(small.player_id) == 10_000 - 101 + 253
    assert h.accounts.balance(big.player_id) == 10_000 - 101 + 252
    assert h.store.audit().holds


def test_r9_9_a_prize_is_paid_once_although_its_timer_fires_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, players = spin_25x(h)
    table = table_of(h, tid)
    assert table.tournament is not None
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    # The process "dies" right after the hand's write: the payments do not run then.
    monkeypatch.setattr(tournament_tables, "settle", lambda deps, tid: 1 / 0)
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    assert h.accounts.balance(button.player_id) == 9_900  # not paid yet
    assert h.counters.get("AfterFailures") == 1
    assert h.tournaments is not None
    payout = next(t for t in h.tournaments.load(tid).timers if t.kind is TimerKind.PAYOUT)
    h.clock.now = payout.due_ms
    assert h.service.timer_fired("T:" + tid, payout.token)
    assert not h.service.timer_fired("T:" + tid, payout.token)  # a duplicate execution
    h.service.sweep()
    # Both blinds started with 500 and tie for 2nd: 300 + 200 shared, 250 each.
    assert h.accounts.balance(button.player_id) == 9_900 + 2_000
    assert h.accounts.balance(small.player_id) == 9_900 + 250
    assert sorted(ledger(h, LedgerReason.PRIZE)) == sorted([  # each place paid once
        (button.player_id, 2_000), (HOUSE_PRIZES, -2_000), (small.player_id, 250),
        (HOUSE_PRIZES, -250), (big.player_id, 250), (HOUSE_PRIZES, -250)])
    assert not any(t.kind is TimerKind.PAYOUT for t in h.tournaments.load(tid).timers)
    assert h.tournaments.load(tid).paid == 3
    # Two more invocations pay nothing, even one that read before the payment was written
    # (its stale read says "unpaid": the paid# item's condition refuses the second payment).
    assert tournament_payments.pay_prizes(h.service.deps, tid) == 0
    monkeypatch.setattr(tournament_payments, "has_item", lambda *args: False)
    assert tournament_payments.pay_prizes(h.service.deps, tid) == 0
    assert h.accounts.balance(button.player_id) == 9_900 + 2_000
    assert len(ledger(h, LedgerReason.PRIZE)) == 6 and h.store.audit().holds



def test_r9_9_an_unpaid_prize_is_tried_again_5_s_after_its_place_then_every_minute(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/tournaments.md, ``payout:<v>``: a payment that failed is tried 5 s later, then
    every minute (``PAYOUT_BACKOFF_MS``) until it is made, not every 5 s forever."""
    h = harness()
    tid, players = spin_25x(h)
    table = table_of(h, tid)
    assert table.tournament is not None and h.tournaments is not None
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    monkeypatch.setattr(tournament_tables, "settle", lambda deps, tid: 0)  # could not pay
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    ended = h.clock.now
    tournaments_ = h.tournaments

    def payout() -> Any:
        return next(t for t in tournaments_.load(tid).timers if t.kind is TimerKind.PAYOUT)

    due = [payout().due_ms]
    assert due[0] == ended + tournament_payments.PAYOUT_RETRY_MS == ended + 5_000
    unpaid = tournaments.pay_prizes
    monkeypatch.setattr(tournaments, "pay_prizes", lambda deps, tid: 0)  # still failing
    for _ in range(3):
        timer = payout()
        h.clock.now = timer.due_ms
        assert h.service.timer_fired("T:" + tid, timer.token)
        due.append(payout().due_ms)
    assert [due[n + 1] - due[n] for n in range(3)] == [60_000] * 3
    assert h.accounts.balance(button.player_id) == 9_900  # not paid yet
    monkeypatch.setattr(tournaments, "pay_prizes", unpaid)  # the house account is funded
    timer = payout()
    h.clock.now = timer.due_ms
    assert h.service.timer_fired("T:" + tid, timer.token)
    assert h.accounts.balance(button.player_id) == 9_900 + 2_000
    assert not any(t.kind is TimerKind.PAYOUT for t in tournaments_.load(tid).timers)
    assert h.store.audit().holds

# -- R9.6 button and blinds -----------------------------------------------------------------------

def test_r9_6_going_from_three_to_two_the_last_big_blind_gets_the_button(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, players = spin(h)
    table = table_of(h, tid)
    assert table.tournament is not None
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "7c2d"), (small, "8c3d"), (big, "AsAh")], "Ad9c5h3s2c")
    deal(h, tid)
    act(h, tid, players, "all_in", who=button)
    act(h, tid, players, "fold", who=small)
    act(h, tid, players, "call", who=big)
    assert results(h, tid) == {button.player_id: (3, 0)}
    deal(h, tid)
    hand = table_of(h, tid).state.hand
    assert hand is not None and hand.button == seat_of(h, tid, big)  # R2.6 heads-up: button
    assert hand.small_blind_seat == seat_of(h, tid, big)  # posts the small blind


# -- R9.10 the Spin -------------------------------------------------------------------------------

def test_r9_10_the_multiplier_is_drawn_when_it_fills_and_shown_before_the_first_hand() -> None:
    h = harness()
    tid, players = spin_25x(h)
    assert h.accounts.balance(HOUSE_PRIZES) == 100_300  # the three entries went to the house
    started = events(players[0], "tournament_started")
    assert started and started[0]["multiplier"] == 25 and started[0]["payouts"] == [
        2_000, 300, 200]
    assert players[0].last_view()["tournament"]["multiplier"] == 25
    first_update = next(i for i, m in enumerate(players[0].messages) if m["type"] == "update")
    dealt = [i for i, m in enumerate(players[0].messages) if m["type"] == "update"
             and any(e["kind"] == "hand_started" for e in m["events"])]
    assert not dealt  # nothing dealt yet: the players see the multiplier first
    deal(h, tid)
    dealt = [i for i, m in enumerate(players[0].messages) if m["type"] == "update"
             and any(e["kind"] == "hand_started" for e in m["events"])]
    assert first_update < dealt[0]
    assert log(h, tid, "started")[0]["multiplier"] == 25
    assert h.store.audit().holds


def test_r9_10_a_spin_prize_comes_from_the_house_prize_account(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, players = spin(h)  # the seeded draw
    assert h.tournaments is not None
    record = h.tournaments.load(tid)
    assert record.spin is not None
    pool = 100 * record.spin.multiplier
    assert sum(record.payouts) == pool
    table = table_of(h, tid)
    assert table.tournament is not None
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    assert h.accounts.balance(button.player_id) == 9_900 + record.payouts[0]
    assert h.accounts.balance(HOUSE_PRIZES) == 100_300 - pool
    assert h.store.audit().holds


# -- R8.6 at a tournament table ---------------------------------------------------------------

def test_r8_6_a_cancelled_tournament_hand_is_in_the_log_and_the_stacks_go_back() -> None:
    h = harness()
    tid, players = spin(h)
    deal(h, tid)
    act(h, tid, players, "call")
    h.store.corrupt(f"{tid}-1")  # the stored state cannot be read any more
    snapshot = players[0].send(action="snapshot", table_id=f"{tid}-1")
    assert snapshot["type"] == "snapshot"
    table = table_of(h, tid)
    assert table.state.hand is None and [s.stack for s in table.state.seats if s] == [500] * 3
    entry = log(h, tid, "hand")[-1]
    assert entry["cancelled"] is True and entry["hand"] == 1
    assert entry["stacks_before"] == entry["stacks_after"] == {
        "ann": 500, "bob": 500, "cy": 500}
    deal(h, tid)  # play goes on: the next hand is dealt after the pause
    assert table_of(h, tid).state.hand.number == 2  # type: ignore[union-attr]


# -- requests: all or nothing, answered once --------------------------------------------------

def test_r9_1_bots_fill_in_one_transaction_or_not_at_all() -> None:
    h = harness()
    tid = new_tournament(h, replace(sng_terms(6), bots_allowed=True))
    creator = h.player("ops")  # new_tournament's creator
    ann = h.player("ann")
    register(tid, ann)
    assert creator.send(action="tournament_add_bots", tournament_id=tid,
                        count=8)["code"] == "tournament_full"  # 5 seats free: nothing done
    assert h.tournaments is not None and h.tournaments.load(tid).entrants == 1
    h.accounts.grant(HOUSE_BOTS, 499)  # 5 entries of 100 need 500: the house cannot pay
    assert creator.send(action="tournament_add_bots",
                        tournament_id=tid)["code"] == "insufficient_funds"
    assert h.tournaments.load(tid).entrants == 1 and h.accounts.balance(HOUSE_BOTS) == 499
    h.accounts.grant(HOUSE_BOTS, 1)
    assert creator.send(action="tournament_add_bots", tournament_id=tid)["type"] == "ack"
    record = h.tournaments.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.entrants == 6
    assert h.accounts.balance(HOUSE_BOTS) == 0
    table = table_of(h, tid)
    assert sum(1 for s in table.state.seats if s and s.is_bot) == 5


def test_r9_1_a_retried_request_is_answered_not_applied_twice() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(3))
    ann, bob, cy = h.player("ann"), h.player("bob"), h.player("cy")
    first = ann.send(action="register", tournament_id=tid, request_id="reg-1")
    again = ann.send(action="register", tournament_id=tid, request_id="reg-1")
    assert first["type"] == again["type"] == "ack" and again["replayed"] is True
    assert again["version"] == first["version"] and h.accounts.balance("ann") == 9_900
    out = ann.send(action="unregister", tournament_id=tid, request_id="out-1")
    assert ann.send(action="unregister", tournament_id=tid,
                    request_id="out-1")["version"] == out["version"]
    assert h.accounts.balance("ann") == 10_000
    register(tid, ann, bob)
    # The registration that fills it: its ack comes first, then the table's first update.
    before = len(cy.messages)
    assert cy.send(action="register", tournament_id=tid)["type"] == "ack"
    kinds_after = [m["type"] for m in cy.messages[before:]]
    assert kinds_after[:2] == ["ack", "update"]


def test_r9_9_the_tournament_names_its_tables_and_which_prizes_are_paid(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    tid, players = spin_25x(h)
    table = table_of(h, tid)
    assert table.tournament is not None
    shown = players[0].send(action="get_tournament", tournament_id=tid)["tournament"]
    assert shown["tables"] == [f"{tid}-1"] and shown["table_count"] == 1
    assert shown["you"] == {"registered": True, "entries": 1, "result": None}
    assert players[0].send(action="tournament_results", tournament_id=tid)["results"] == []
    b = table.tournament.first_button
    button, small, big = (at(h, tid, (b + k) % 3, players) for k in range(3))
    rig(monkeypatch, h, tid, [(button, "AsAh"), (small, "KsKh"), (big, "QsQh")], "Ad9c5h3s2c")
    deal(h, tid)
    for _ in range(3):
        act(h, tid, players, "all_in")
    shown = players[0].send(action="tournament_results", tournament_id=tid)["results"]
    assert sorted((r["place"], r["paid"]) for r in shown) == [(1, True), (2, True), (2, True)]
    mine = players[0].send(action="get_tournament", tournament_id=tid)["tournament"]["you"]
    assert mine["registered"] and mine["result"] == next(
        r for r in shown if r["player_id"] == players[0].player_id)


def test_r8_4_a_bot_that_wins_a_sit_and_go_pays_its_prize_to_the_house() -> None:
    """A BOT's entry came from the house's bot account; its prize goes back there, the
    winner's as well as those knocked out (the winner's once went to an account named after
    the BOT)."""
    h = harness()
    tid = new_tournament(h, replace(sng_terms(2), bots_allowed=True))
    creator, ann = h.player("ops"), h.player("ann")
    register(tid, ann)
    h.accounts.grant(HOUSE_BOTS, 100)
    assert creator.send(action="tournament_add_bots", tournament_id=tid)["type"] == "ack"
    deal(h, tid)
    assert ann.send(action="sit_out", table_id=f"{tid}-1")["type"] in ("ack", "update")
    assert h.tournaments is not None
    for _ in range(2_000):  # ann is blinded away (R9.4); the BOT plays its own seat
        if h.tournaments.load(tid).status is TournamentStatus.FINISHED:
            break
        h.clock.advance(5_000)
        h.fire_due_timers()
    assert h.tournaments.load(tid).status is TournamentStatus.FINISHED
    (bot,) = (pid for pid, (place, _) in results(h, tid).items() if place == 1)
    prize = results(h, tid)[bot][1]
    assert prize == 200 and bot != "ann"
    assert h.accounts.balance(HOUSE_BOTS) == prize and h.accounts.balance(bot) == 0
    assert ledger(h, LedgerReason.PRIZE) == [(HOUSE_BOTS, prize)]
    assert h.store.audit().holds


def test_r9_9_the_split_by_field_size_and_the_current_split_are_shown_before_the_start() -> None:
    h = harness()
    tid = new_tournament(h, sng_terms(6, entry=250))
    ann, bob = h.player("ann"), h.player("bob")
    register(tid, ann, bob)
    (listed,) = [t for t in ann.send(action="list_tournaments")["tournaments"]
                 if t["tournament_id"] == tid]
    shown = ann.send(action="get_tournament", tournament_id=tid)["tournament"]
    for summary in (listed, shown):
        assert summary["payouts"] == []  # fixed only at the start
        assert summary["payout_table"] == [
            {"min_entrants": 6, "max_entrants": 6, "percent": [65, 35]}]
        # Two registered: the split of the field that starts it (6 x 250 = 1,500, 65/35).
        assert summary["payout_split"] == {"entrants": 6, "prizes": [975, 525]}
    cy, dee, eve, fay = (h.player(n) for n in ("cy", "dee", "eve", "fay"))
    register(tid, cy, dee, eve, fay)
    shown = ann.send(action="get_tournament", tournament_id=tid)["tournament"]
    assert shown["payouts"] == [975, 525]
    assert shown["payout_split"] == {"entrants": 6, "prizes": [975, 525]}


def test_r9_9_a_spin_publishes_its_multiplier_table_not_a_split_by_field_size() -> None:
    h = harness()
    tid = new_tournament(h, spin_terms(100))
    ann = h.player("ann")
    shown = ann.send(action="get_tournament", tournament_id=tid)["tournament"]
    assert shown["payout_table"] is None and shown["payout_split"] is None
    assert shown["terms"]["spin_table"] == SPIN_TABLE.to_dict()
