"""The ledger (every account movement is an entry written with it, and the identity
granted = accounts + tables holds), the lobby's limits (open tables per player, display text),
and empty tables closing by themselves."""

from __future__ import annotations

import pytest
from naiko_service.ports import LedgerReason
from naiko_service.usecases import dealer
from service_testing import harness
from test_service import actor, seated


def test_every_account_movement_is_a_ledger_entry_with_its_reason() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    alice = players[0]
    # Play the hand out with folds, then reload and leave.
    while (record := h.store.load(table_id)).state.hand_in_progress:
        actor(players).send(action="act", table_id=table_id, move="fold")
    seat = record.seat_of(alice.player_id)
    stack = record.state.seats[seat].stack  # type: ignore[index, union-attr]
    assert alice.send(action="add_chips", table_id=table_id, amount=50)["type"] in ("ack", "update")
    assert alice.send(action="leave_table", table_id=table_id)["type"] in ("ack", "update")
    entries = [e for e in h.accounts.ledger if e.player_id == alice.player_id]
    reasons = [e.reason for e in entries]
    assert reasons == [LedgerReason.GRANT, LedgerReason.BUY_IN, LedgerReason.RELOAD,
                       LedgerReason.CASH_OUT]
    assert [e.amount for e in entries] == [10_000, -200, -50, stack + 50]
    assert all(e.ref == table_id for e in entries[1:])
    assert sum(e.amount for e in entries) == h.accounts.balance(alice.player_id)
    result = h.store.audit()
    assert result.holds, result.line()
    assert result.granted == 30_000 and result.accounts + result.tables == 30_000


def test_the_identity_catches_a_chip_created_outside_the_ledger() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    assert h.store.audit().holds
    h.accounts.balances["p1"] += 1  # a bug that credits without a ledger entry
    broken = h.store.audit()
    assert not broken.holds
    assert broken.mismatched == (("p1", 9_801, 9_800),)
    assert "BROKEN" in broken.line()


def test_a_player_may_have_three_open_tables_and_an_empty_one_closes_after_ten_minutes(
) -> None:
    h = harness()
    host = h.player("host")
    made = []
    for i in range(3):
        reply = host.send(action="create_table", name=f"t{i}", small_blind=1, big_blind=2,
                          min_buy_in=40, max_buy_in=400)
        assert reply["type"] in ("ack", "update")
        made.append(reply["table_id"])
    fourth = host.send(action="create_table", name="t3", small_blind=1, big_blind=2,
                       min_buy_in=40, max_buy_in=400)
    assert (fourth["type"], fourth["code"]) == ("error", "too_many_tables")
    assert len(host.send(action="list_tables")["tables"]) == 3
    h.clock.advance(dealer.IDLE_CLOSE_MS)
    assert h.service.sweep() == 3  # empty tables close: the sweep's job
    assert host.send(action="list_tables")["tables"] == []
    assert h.accounts.open_tables["host"] == 0
    joined = h.player("late").send(action="join_table", table_id=made[0], buy_in=100)
    assert (joined["type"], joined["code"]) == ("error", "table_closed")
    assert host.send(action="create_table", name="again", small_blind=1, big_blind=2,
                     min_buy_in=40, max_buy_in=400)["type"] in ("ack", "update")


def test_a_table_someone_sits_at_does_not_close() -> None:
    h = harness()
    table_id, players = seated(h, 2)  # two seated: no hand yet on a 6-seat table
    h.clock.advance(dealer.IDLE_CLOSE_MS * 2)
    h.service.sweep()
    assert not h.store.load(table_id).closed


@pytest.mark.parametrize("name", ["evil\u202etxt.exe", "nul\u0000name", "   ", "x" * 41,
                                  "zero\u200bwidth", "\u2066isolate\u2069"])
def test_display_text_with_control_or_bidi_characters_is_refused(name: str) -> None:
    h = harness()
    host = h.player("host")
    reply = host.send(action="create_table", name=name, small_blind=1, big_blind=2,
                      min_buy_in=40, max_buy_in=400)
    assert (reply["type"], reply["code"]) == ("error", "invalid_request")
    assert h.store.writes == 0


def test_display_text_keeps_accents_and_emoji() -> None:
    h = harness()
    host = h.player("host")
    reply = host.send(action="create_table", name="  Café \U0001f468\u200d\U0001f469 ",
                      small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400)
    assert reply["type"] in ("ack", "update")
    assert h.store.load(reply["table_id"]).settings.name == "Café \U0001f468\u200d\U0001f469"
