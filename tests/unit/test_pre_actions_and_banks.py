"""The use-case helpers of R8.7 and R8.8 on a table record alone (no service): a bank starts,
is charged second by second when its timer goes, empties; a pre-action is played at the turn
only at its price, ``check_fold`` checks when it can, a stale one is cleared and told to its
owner alone."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.time_bank import CASH_TIME_BANK
from naiko_service.records import TableRecord, TableSettings, TimerKind
from naiko_service.usecases import pre_actions, time_banks
from naiko_service.usecases.base import Outcome
from naiko_testing import play, start, table


def record(bank: bool = True) -> TableRecord:
    """Three players, the button (seat 0) to act preflop at 1/2: seat 1 has 1 to call, seat 2
    (the big blind) none."""
    state, _ = start(table([100, 100, 100]), button=0)
    settings = TableSettings(name="t", host="h", min_buy_in=40, max_buy_in=400,
                             time_bank=CASH_TIME_BANK if bank else None)
    return TableRecord("t1", 1, settings, state, created_ms=0)


def test_r8_7_a_bank_starts_and_is_charged_when_its_timer_is_gone() -> None:
    rec = record()
    player = rec.state.seats[0].player_id  # type: ignore[union-attr]
    timer = time_banks.start(rec, 10_000, 0, player, "1.0")
    assert timer is not None and timer.kind is TimerKind.TIME_BANK
    assert (timer.token, timer.due_ms) == ("time_bank:1.0", 40_000)
    time_banks.settle(rec, 12_500, [timer])  # still running: nothing charged
    assert rec.banks[player][0] == 30_000 and player in rec.bank_since
    time_banks.settle(rec, 12_500, [])  # the turn ended 2.5 s in: 3 s spent
    assert rec.banks[player][0] == 27_000 and player not in rec.bank_since
    time_banks.emptied(rec, player)
    assert rec.banks[player][0] == 0
    assert time_banks.start(rec, 20_000, 0, player, "1.1") is None  # nothing left


def test_r8_7_no_bank_without_a_published_one() -> None:
    rec = record(bank=False)
    assert time_banks.bank_ms(rec, "anyone") is None
    assert time_banks.start(rec, 0, 0, "anyone", "1.0") is None


def test_r8_8_a_call_is_played_at_its_price_and_dropped_at_another() -> None:
    rec = record()
    one = rec.state.seats[1].player_id  # type: ignore[union-attr]
    rec.pre_actions[one] = {"kind": "call", "amount": 1, "hand": rec.state.hand.number}  # type: ignore[union-attr]
    rec.state, _ = play(rec.state, "0 c")  # the button calls: seat 1's turn, still 1 to call
    outcome = Outcome()
    assert pre_actions.at_turn(rec, outcome) == cmd.Call(seat_index=1)
    assert not rec.pre_actions and not outcome.events
    rec = record()
    rec.pre_actions[one] = {"kind": "call", "amount": 1, "hand": rec.state.hand.number}  # type: ignore[union-attr]
    rec.state, _ = play(rec.state, "0 r 6")  # a raise: 5 to call now
    outcome = Outcome()
    assert pre_actions.at_turn(rec, outcome) is None
    (told,) = outcome.events
    assert told.to_player == one and told.reason == "price_changed"  # type: ignore[attr-defined]


def test_r8_8_check_fold_checks_when_it_can_and_a_bet_makes_a_check_stale() -> None:
    rec = record()
    big = rec.state.seats[2].player_id  # type: ignore[union-attr]
    number = rec.state.hand.number  # type: ignore[union-attr]
    rec.pre_actions[big] = {"kind": "check_fold", "amount": None, "hand": number}
    rec.state, _ = play(rec.state, "0 c", "1 c")  # the big blind's option: it may check
    assert pre_actions.at_turn(rec, Outcome()) == cmd.Check(seat_index=2)
    rec = record()
    rec.pre_actions[big] = {"kind": "check", "amount": None, "hand": number}
    rec.state, _ = play(rec.state, "0 r 6")
    outcome = Outcome()
    pre_actions.clear_stale(rec, outcome)
    assert not rec.pre_actions
    (told,) = outcome.events
    assert told.to_player == big and told.reason == "stale"  # type: ignore[attr-defined]
    assert pre_actions.view_of(rec, big) is None


def test_r8_8_a_pre_action_never_outlives_its_hand() -> None:
    rec = record()
    one = rec.state.seats[1].player_id  # type: ignore[union-attr]
    rec.pre_actions[one] = {"kind": "fold", "amount": None, "hand": 99}
    outcome = Outcome()
    pre_actions.clear_stale(rec, outcome)
    assert not rec.pre_actions and not outcome.events  # silently: another hand's
