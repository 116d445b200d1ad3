"""The time bank (R8.7) and pre-actions (R8.8) through the service, on the in-memory adapters,
at cash and tournament tables: the bank starts when the clock runs out (or on request), is
spent second by second, topped up, shown to the table and kept by a tournament move; a
pre-action is played at once when the turn comes at the same price, cleared (and its owner
told) when a bet makes it stale, never seen by anyone else; and a hypothesis property: whatever
players queue, pre-actions never act illegally, never leak, and chips are conserved."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.time_bank import CASH_TIME_BANK, HYPER_TIME_BANK
from naiko.tournaments.structures import from_preset
from naiko_service.records import TableRecord, TimerKind
from naiko_service.tournament_records import HOUSE_PRIZES
from naiko_service.usecases import views
from service_testing import Harness, Player, harness
from test_mtt import arrange, started, where
from test_mtt import deal as mtt_deal
from test_mtt import table as mtt_table
from test_tournaments import deal, new_tournament, register, spin_terms

CLOCK_MS = 20_000
"""The harness's default decision clock."""


def bank_table(h: Harness, n: int = 3, *, bank: bool = True) -> tuple[str, list[Player]]:
    """A 1/2 cash table (a 20 s clock) with the room's time bank when *bank*, n players in,
    the first hand dealt."""
    players = [h.player(f"p{i}") for i in range(n)]
    ack = players[0].send(action="create_table", name="t", small_blind=1, big_blind=2,
                          min_buy_in=40, max_buy_in=400, time_bank=bank)
    assert ack["type"] == "ack", ack
    table_id = str(ack["table_id"])
    for player in players:
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] \
            == "update"
    assert record(h, table_id).state.hand_in_progress
    return table_id, players


def record(h: Harness, table_id: str) -> TableRecord:
    return h.store.load(table_id)


def actor_of(h: Harness, table_id: str, players: list[Player]) -> Player:
    rec = record(h, table_id)
    hand = rec.state.hand
    assert hand is not None and hand.actor is not None
    seat = rec.state.seats[hand.actor]
    assert seat is not None
    return next(p for p in players if p.player_id == seat.player_id)


def waiting(h: Harness, table_id: str, players: list[Player]) -> list[Player]:
    """The players dealt in who are not to act, next to act first."""
    rec = record(h, table_id)
    hand = rec.state.hand
    assert hand is not None and hand.actor is not None
    count = len(rec.state.seats)
    order = [(hand.actor + k) % count for k in range(1, count)]
    ids = [rec.state.seats[i].player_id for i in order  # type: ignore[union-attr]
           if rec.state.seats[i] is not None and hand.dealt[i] and not hand.folded[i]]
    return [next(p for p in players if p.player_id == pid) for pid in ids]


def price(h: Harness, table_id: str, player: Player) -> int:
    rec = record(h, table_id)
    hand = rec.state.hand
    assert hand is not None
    seat = rec.seat_of(player.player_id)
    assert seat is not None
    return max(hand.bets) - hand.bets[seat]


def events(player: Player, kind: str, since: int = 0) -> list[dict[str, Any]]:
    return [e for m in player.messages[since:] for e in m.get("events", ())
            if e["kind"] == kind]


def bank_of(h: Harness, table_id: str, player: Player) -> int:
    entry = record(h, table_id).banks.get(player.player_id)
    return CASH_TIME_BANK.initial_ms if entry is None else entry[0]


def seat_view(player: Player, who: Player) -> dict[str, Any]:
    view = player.last_view()
    return next(s for s in view["seats"] if s and s["player_id"] == who.player_id)


# -- R8.7: the time bank at a cash table ------------------------------------------------------

def test_r8_7_the_bank_starts_when_the_clock_runs_out_r8_1_only_when_empty() -> None:
    h = harness()
    table_id, players = bank_table(h)
    slow = actor_of(h, table_id, players)
    watcher = next(p for p in players if p is not slow)
    h.clock.advance(CLOCK_MS)
    h.fire_due_timers()
    started = events(watcher, "time_bank_started")
    assert started and started[-1]["bank_ms"] == 30_000  # told to the table
    assert started[-1]["until_ms"] == h.clock.now + 30_000
    assert not events(watcher, "timed_out")
    rec = record(h, table_id)
    assert [t.kind for t in rec.timers if t.kind in (TimerKind.DECISION, TimerKind.TIME_BANK)] \
        == [TimerKind.TIME_BANK]
    view = watcher.last_view()
    assert view["hand"]["actor_deadline_ms"] == h.clock.now + 30_000
    assert seat_view(watcher, slow)["time_bank_running"] is True
    h.clock.advance(29_999)
    h.fire_due_timers()
    assert not events(watcher, "timed_out")  # a millisecond of bank left
    h.clock.advance(1)
    h.fire_due_timers()
    assert events(watcher, "timed_out")  # empty: R8.1 checks or folds
    assert bank_of(h, table_id, slow) == 0
    assert seat_view(watcher, slow)["time_bank_ms"] == 0


def test_r8_7_acting_during_the_bank_spends_it_second_by_second() -> None:
    h = harness()
    table_id, players = bank_table(h)
    slow = actor_of(h, table_id, players)
    h.clock.advance(CLOCK_MS)
    h.fire_due_timers()
    h.clock.advance(4_200)  # 4.2 s into the bank: 5 seconds begun
    reply = slow.send(action="act", table_id=table_id, move="fold")
    assert reply["type"] == "update"
    assert bank_of(h, table_id, slow) == 25_000
    assert not record(h, table_id).bank_since
    assert seat_view(players[0] if players[0] is not slow else players[1], slow)[
        "time_bank_ms"] == 25_000  # shown to the table


def test_r8_7_acting_within_the_clock_leaves_the_bank_untouched() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    h.clock.advance(CLOCK_MS - 1)
    actor.send(action="act", table_id=table_id, move="fold")
    assert bank_of(h, table_id, actor) == 30_000


def test_r8_7_use_time_bank_starts_it_at_once_and_is_refused_when_it_cannot() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    other = waiting(h, table_id, players)[0]
    before = record(h, table_id).version
    assert other.send(action="use_time_bank", table_id=table_id)["code"] == "not_your_turn"
    assert record(h, table_id).version == before  # state unchanged
    h.clock.advance(5_000)
    reply = actor.send(action="use_time_bank", table_id=table_id)
    assert reply["type"] == "update"
    assert reply["events"] == [{"kind": "time_bank_started", "seat_index": reply["view"][
        "seat_index"], "bank_ms": 30_000, "until_ms": h.clock.now + 30_000}]
    assert actor.send(action="use_time_bank", table_id=table_id)["code"] == "time_bank_running"
    h.clock.advance(30_000)
    h.fire_due_timers()  # the bank ran out: R8.1
    assert events(actor, "timed_out")
    assert bank_of(h, table_id, actor) == 0


def test_r8_7_an_empty_bank_is_refused_and_the_clock_decides_as_before() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    emptied = record(h, table_id)
    emptied.banks[actor.player_id] = [0, 1]
    h.store.save(emptied, emptied.version)  # a test's shortcut to an empty bank
    assert actor.send(action="use_time_bank", table_id=table_id)["code"] == "time_bank_empty"
    h.clock.advance(CLOCK_MS)
    h.fire_due_timers()
    assert events(actor, "timed_out")  # no bank left: the clock alone (R8.1)
    assert not events(actor, "time_bank_started")


def test_r8_7_a_table_without_a_bank_keeps_the_clock_alone() -> None:
    h = harness()
    table_id, players = bank_table(h, bank=False)
    actor = actor_of(h, table_id, players)
    assert actor.send(action="use_time_bank", table_id=table_id)["code"] == "no_time_bank"
    h.clock.advance(CLOCK_MS)
    h.fire_due_timers()
    assert events(actor, "timed_out") and not events(actor, "time_bank_started")
    view = actor.last_view()
    assert view["settings"]["time_bank"] is None
    assert all("time_bank_ms" not in s for s in view["seats"] if s)


def test_r8_7_the_bank_is_topped_up_every_10_hands_up_to_the_cap() -> None:
    h = harness()
    table_id, players = bank_table(h, 2 + 1)
    rec = record(h, table_id)
    assert rec.settings.time_bank == CASH_TIME_BANK
    assert all(rec.banks[p.player_id] == [30_000, 1] for p in players)
    for _ in range(25):  # everyone folds to the big blind, hand after hand
        while record(h, table_id).state.hand_in_progress:
            actor_of(h, table_id, players).send(action="act", table_id=table_id, move="fold")
        h.clock.advance(3_000)
        h.fire_due_timers()
    rec = record(h, table_id)
    hand = rec.state.hand
    assert hand is not None and hand.number == 26
    # hands 11 and 21: +5 s twice; 26 - 1 = 25 hands: two whole periods
    assert all(rec.banks[p.player_id] == [40_000, 21] for p in players)
    assert CASH_TIME_BANK.topped_up(55_000, 21, 31) == (60_000, 31)  # the cap
    view = players[0].last_view()
    assert view["settings"]["time_bank"] == {"initial_s": 30, "top_up_s": 5, "every": 10,
                                             "per": "hands", "cap_s": 60}
    assert all(s["time_bank_ms"] == 40_000 for s in view["seats"] if s)


def test_r8_7_a_disconnected_player_gets_the_bank_then_the_r8_2_grace() -> None:
    h = harness()
    table_id, players = bank_table(h)
    slow = actor_of(h, table_id, players)
    watcher = next(p for p in players if p is not slow)
    h.service.disconnect(slow.connection_id)
    h.clock.advance(CLOCK_MS)
    h.fire_due_timers()
    assert events(watcher, "time_bank_started") and not events(watcher, "reconnect_grace")
    h.clock.advance(30_000)
    h.fire_due_timers()
    assert events(watcher, "reconnect_grace") and not events(watcher, "timed_out")
    h.clock.advance(20_000)
    h.fire_due_timers()
    assert events(watcher, "timed_out")


# -- R8.7: the time bank at a tournament table ---------------------------------------------------

def spin(h: Harness) -> tuple[str, list[Player]]:
    """A Spin of the preset's terms (its hyper bank: 15 s, +5 s each level, at most 30 s; a
    20 s clock here), its table dealing its first hand."""
    h.accounts.grant(HOUSE_PRIZES, 100_000)
    players = [h.player(f"s{i}") for i in range(3)]
    tid = new_tournament(h, spin_terms())
    register(tid, *players)
    deal(h, tid)
    return f"{tid}-1", players


def test_r8_7_a_tournament_table_runs_its_banks_before_sitting_out() -> None:
    h = harness()
    table_id, players = spin(h)
    rec = record(h, table_id)
    assert rec.settings.time_bank == HYPER_TIME_BANK
    assert rec.tournament is not None and from_preset("spin_3max_hyper", 100).time_bank \
        == HYPER_TIME_BANK
    slow = actor_of(h, table_id, players)
    watcher = next(p for p in players if p is not slow)
    h.clock.advance(rec.settings.decision_ms)
    h.fire_due_timers()
    assert events(watcher, "time_bank_started")[-1]["bank_ms"] == 15_000
    seat = record(h, table_id).seat_of(slow.player_id)
    assert seat is not None
    assert not record(h, table_id).state.seats[seat].sitting_out  # type: ignore[union-attr]
    h.clock.advance(15_000)
    h.fire_due_timers()
    assert events(watcher, "timed_out")
    assert record(h, table_id).state.seats[seat].sitting_out  # type: ignore[union-attr]  # R9.4


def test_r8_7_tournament_banks_are_topped_up_at_each_level_up_to_the_cap() -> None:
    bank = HYPER_TIME_BANK
    assert bank.topped_up(15_000, 1, 2) == (20_000, 2)
    assert bank.topped_up(20_000, 2, 5) == (30_000, 5)  # capped at 30 s
    h = harness()
    table_id, players = spin(h)
    rec = record(h, table_id)
    assert all(rec.banks[p.player_id] == [15_000, 1] for p in players)


def _give_bank(simulation: Any, number: int, player: str, bank: list[int]) -> None:
    record = mtt_table(simulation, number)
    record.banks[player] = list(bank)
    simulation.store.save(record, record.version)


def test_r8_7_a_tournament_move_keeps_the_bank() -> None:
    """The balancing move of test_mtt's first R9.7 test (d moves from table 1 to table 2),
    with d's bank down to 7 s: it arrives at table 2 with 7 s, not a new bank."""
    simulation = started(players=10)
    names = arrange(simulation, {1: dict(enumerate("abcdef")),
                                 2: {0: "g", 1: "h", 3: "i", 4: "j"}},
                    {1: (2, 1), 2: (4, 3)})
    assert mtt_table(simulation, 1).settings.time_bank is not None
    _give_bank(simulation, 1, names["d"], [7_000, 1])
    mtt_deal(simulation, 1)
    assert where(simulation, names["d"]) == [(2, 5)]
    assert mtt_table(simulation, 2).banks[names["d"]] == [7_000, 1]
    assert names["d"] not in mtt_table(simulation, 1).banks
    mtt_deal(simulation, 2)  # the same level: nothing to top up
    assert mtt_table(simulation, 2).banks[names["d"]] == [7_000, 1]


def test_r8_7_the_final_table_keeps_every_bank() -> None:
    simulation = started()
    names = arrange(simulation, {1: {0: "a", 3: "b"}, 2: {1: "c", 4: "d"}, 3: {2: "e", 5: "f"}},
                    {1: (3, 0), 2: (4, 1), 3: (5, 2)})
    _give_bank(simulation, 2, names["c"], [4_000, 1])
    for number in (1, 2, 3):
        mtt_deal(simulation, number)
    final = simulation.store.load(f"{simulation.tournament_id}-final")
    assert final.banks[names["c"]][0] == 4_000


# -- R8.8: pre-actions ---------------------------------------------------------------------------

def test_r8_8_a_call_pre_action_is_played_at_once_when_the_turn_comes_at_the_same_price() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    small, big = waiting(h, table_id, players)  # 3-handed preflop: the button acts first
    assert price(h, table_id, small) == 1
    assert small.send(action="pre_action", table_id=table_id, kind="call", amount=1)["type"] \
        == "ack"
    reply = actor.send(action="act", table_id=table_id, move="call")
    small_seat = record(h, table_id).seat_of(small.player_id)
    # the small blind's call came in the same update as the button's call
    actions = [(e["seat_index"], e["action"]) for e in reply["events"] if e["kind"] == "action"]
    assert actions[-1] == (small_seat, "call")
    assert not record(h, table_id).pre_actions
    assert actor_of(h, table_id, players) is big


def test_r8_8_a_bet_clears_stale_pre_actions_and_tells_only_their_owner() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    small, big = waiting(h, table_id, players)
    small.send(action="pre_action", table_id=table_id, kind="call", amount=1)
    big.send(action="pre_action", table_id=table_id, kind="check")
    marks = {p.player_id: len(p.messages) for p in players}
    actor.send(action="act", table_id=table_id, move="raise_to", amount=6)
    cleared = {p.player_id: events(p, "pre_action_cleared", marks[p.player_id])
               for p in players}
    assert cleared[big.player_id] == [{"kind": "pre_action_cleared", "player_id": big.player_id,
                                       "pre_action": "check", "amount": None,
                                       "reason": "stale"}]
    # the small blind's turn came at once, at 5 to call: its call of 1 is dropped, not played
    assert cleared[small.player_id][0]["reason"] == "price_changed"
    assert cleared[actor.player_id] == []
    assert not record(h, table_id).pre_actions
    assert actor_of(h, table_id, players) is small  # still to decide


def test_r8_8_check_fold_checks_when_it_can_and_folds_only_when_it_cannot() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    small, big = waiting(h, table_id, players)
    big.send(action="pre_action", table_id=table_id, kind="check_fold")
    actor.send(action="act", table_id=table_id, move="call")
    small.send(action="act", table_id=table_id, move="call")
    big_seat = record(h, table_id).seat_of(big.player_id)
    hand = record(h, table_id).state.hand
    assert hand is not None and not hand.folded[big_seat] and len(hand.board) == 3  # checked
    # on the flop: a check/fold facing a bet folds
    first = actor_of(h, table_id, players)
    order = waiting(h, table_id, players)
    later = order[-1]
    later.send(action="pre_action", table_id=table_id, kind="check_fold")
    first.send(action="act", table_id=table_id, move="bet", amount=4)
    if order[0] is not later:
        order[0].send(action="act", table_id=table_id, move="call")
    hand = record(h, table_id).state.hand
    seat = record(h, table_id).seat_of(later.player_id)
    assert hand is not None and hand.folded[seat]


def test_r8_8_call_any_and_fold_are_played_whatever_the_price() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    small, big = waiting(h, table_id, players)
    small.send(action="pre_action", table_id=table_id, kind="fold")
    big.send(action="pre_action", table_id=table_id, kind="call_any")
    actor.send(action="act", table_id=table_id, move="raise_to", amount=10)
    rec = record(h, table_id)
    hand = rec.state.hand
    assert hand is not None
    small_seat, big_seat = rec.seat_of(small.player_id), rec.seat_of(big.player_id)
    assert hand.folded[small_seat] and not hand.folded[big_seat]
    assert hand.bets[big_seat] == 10 or len(hand.board) == 3  # called the raise


@pytest.mark.parametrize(("frame", "code"), [
    ({"kind": "check"}, "cannot_check"),  # the small blind faces the big blind
    ({"kind": "call", "amount": 2}, "price_changed"),
    ({"kind": "call"}, "invalid_request"),
    ({"kind": "fold", "amount": 1}, "invalid_request"),
])
def test_r8_8_bad_pre_actions_are_refused_and_change_nothing(frame: dict[str, Any],
                                                              code: str) -> None:
    h = harness()
    table_id, players = bank_table(h)
    small = waiting(h, table_id, players)[0]
    before = record(h, table_id)
    reply = small.send(action="pre_action", table_id=table_id, **frame)
    assert reply["type"] == "error" and reply["code"] == code, reply
    after = record(h, table_id)
    assert after.version == before.version and not after.pre_actions


def test_r8_8_on_your_turn_or_without_one_queued_the_request_is_refused() -> None:
    h = harness()
    table_id, players = bank_table(h)
    actor = actor_of(h, table_id, players)
    assert actor.send(action="pre_action", table_id=table_id, kind="fold")["code"] \
        == "your_turn"
    assert actor.send(action="clear_pre_action", table_id=table_id)["code"] == "no_pre_action"
    outsider = h.player("outsider")
    assert outsider.send(action="pre_action", table_id=table_id, kind="fold")["code"] \
        == "not_seated"


def test_r8_8_a_pre_action_is_seen_by_its_owner_only_and_clearing_it_drops_it() -> None:
    h = harness()
    table_id, players = bank_table(h)
    spectator = h.player("spectator")
    spectator.send(action="snapshot", table_id=table_id)
    small, big = waiting(h, table_id, players)
    marks = {p.player_id: len(p.messages) for p in (*players, spectator)}
    assert small.send(action="pre_action", table_id=table_id, kind="call_any")["type"] == "ack"
    # a quiet write: nobody is told, not even by a new version
    assert all(len(p.messages) == marks[p.player_id] + (p is small)
               for p in (*players, spectator))
    own = small.send(action="snapshot", table_id=table_id)["view"]
    assert own["pre_action"] == {"kind": "call_any", "amount": None}
    for other in (big, spectator):
        assert other.send(action="snapshot", table_id=table_id)["view"]["pre_action"] is None
    assert small.send(action="clear_pre_action", table_id=table_id)["type"] == "ack"
    assert not record(h, table_id).pre_actions
    assert small.send(action="snapshot", table_id=table_id)["view"]["pre_action"] is None


def test_r8_8_pre_actions_work_at_a_tournament_table_too() -> None:
    h = harness()
    table_id, players = spin(h)
    actor = actor_of(h, table_id, players)
    later = waiting(h, table_id, players)[-1]
    assert later.send(action="pre_action", table_id=table_id, kind="fold")["type"] == "ack"
    actor.send(action="act", table_id=table_id, move="fold")
    nxt = actor_of(h, table_id, players) if record(h, table_id).state.hand_in_progress else None
    if nxt is not None and nxt is not later:
        nxt.send(action="act", table_id=table_id, move="fold" if price(h, table_id, nxt)
                 else "check")
    seat = record(h, table_id).seat_of(later.player_id)
    hand = record(h, table_id).state.hand
    assert hand is not None and (hand.folded[seat] or hand.complete)
    assert not record(h, table_id).pre_actions


# -- the property -------------------------------------------------------------------------------

KINDS = ("check_fold", "check", "call", "call_any", "fold")

step = st.one_of(
    st.tuples(st.just("pre"), st.integers(0, 3), st.sampled_from(KINDS)),
    st.tuples(st.just("clear"), st.integers(0, 3), st.just("")),
    st.tuples(st.just("act"), st.integers(0, 3), st.sampled_from(("fold", "check", "call",
                                                                  "raise"))),
    st.tuples(st.just("wait"), st.integers(0, 3), st.just("")),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=40))
def test_r8_8_property_pre_actions_never_act_illegally_never_leak_and_chips_are_conserved(
        steps: list[tuple[str, int, str]]) -> None:
    h = harness(3)
    table_id, players = bank_table(h, 4)
    total = record(h, table_id).state.total_chips() + sum(
        h.accounts.balance(p.player_id) for p in players)
    queued: set[str] = set()  # players who ever had a pre-action queued
    for what, index, kind in steps:
        player = players[index]
        rec = record(h, table_id)
        if what == "pre":
            frame: dict[str, Any] = {"kind": kind}
            seat = rec.seat_of(player.player_id)
            if kind == "call" and rec.state.hand is not None and seat is not None:
                frame["amount"] = max(1, price(h, table_id, player))
            reply = player.send(action="pre_action", table_id=table_id, **frame)
            assert reply["type"] in ("ack", "update", "error")
            if reply["type"] != "error":
                queued.add(player.player_id)
            if reply["type"] == "error":
                assert record(h, table_id).pre_actions.get(player.player_id) == \
                    rec.pre_actions.get(player.player_id)  # a refusal changes nothing
        elif what == "clear":
            player.send(action="clear_pre_action", table_id=table_id)
        elif what == "act" and rec.state.hand_in_progress:
            actor = actor_of(h, table_id, players)
            prompt = actor.last_view()["prompt"] or {}
            moves = prompt.get("actions", [])
            if kind == "raise" and prompt.get("min_raise_to") is not None:
                move = "bet" if "bet" in moves else "raise_to"
                actor.send(action="act", table_id=table_id, move=move,
                           amount=prompt["min_raise_to"])
            else:
                actor.send(action="act", table_id=table_id,
                           move=kind if kind in moves else "fold")
        else:
            h.clock.advance(CLOCK_MS if rec.state.hand_in_progress else 3_000)
            h.fire_due_timers()
        after = record(h, table_id)
        # every pre-action still queued is legal for a seat still deciding in this hand
        hand = after.state.hand
        for owner, entry in after.pre_actions.items():
            assert hand is not None and not hand.complete and entry["hand"] == hand.number
            seat = after.seat_of(owner)
            assert seat is not None and not hand.folded[seat] and hand.actor != seat
            if entry["kind"] == "check":
                assert max(hand.bets) == hand.bets[seat]
            if entry["kind"] == "call":
                assert min(max(hand.bets) - hand.bets[seat],
                           after.state.seats[seat].stack) == entry["amount"]  # type: ignore[union-attr]
        assert after.state.total_chips() + sum(
            h.accounts.balance(p.player_id) for p in players) == total
        # each seat's view shows its own pre-action and nobody else's; a spectator's none
        assert views.table_view(after, None)["pre_action"] is None
        for seat_index, seat in enumerate(after.state.seats):
            if seat is not None:
                mine = after.pre_actions.get(seat.player_id)
                shown = views.table_view(after, seat_index)["pre_action"]
                assert shown == (None if mine is None else
                                 {"kind": mine["kind"], "amount": mine["amount"]})
    # a pre-action played is an engine command like any other: had one been illegal, the
    # write would have failed and the hand been cancelled (R8.6)
    assert not [e for p in players for e in events(p, "hand_cancelled")]
    # never leaked: no message to anyone but its owner names a pre-action of another player
    for player in players:
        for message in player.messages:
            view = message.get("view")
            if view is not None and view.get("pre_action") is not None:
                assert player.player_id in queued
            for event in message.get("events", ()):
                if event["kind"] == "pre_action_cleared":
                    assert event["player_id"] == player.player_id
