"""Issue 27 item 3 (R10.3): operators freeze, unfreeze and reverse, on the in-memory adapters.

A frozen account cannot sit, queue, register or receive a grant, and its requests get
``account_frozen``; what it owns stays in it (a stack it leaves with is cashed out to it).
A reversal moves chips back through the ledger, never below zero, once per reversal id. Every
action is in the operator log with who did it; nothing about a freeze reaches other players.
"""

from __future__ import annotations

import json
import logging

import pytest
from naiko_service.ports import AccountFrozen, LedgerReason
from naiko_service.usecases import accounts
from service_testing import Harness, harness
from test_service import new_table
from test_tournaments import new_tournament, sng_terms
from tournament_testing import script as load_script

FROZEN = "account_frozen"


def frozen(h: Harness, player_id: str, operator: str = "olga") -> None:
    accounts.freeze(h.accounts, operator, player_id, "flag 7: dumping", h.clock.now_ms())


def test_r10_3_issue_27_a_frozen_account_cannot_sit_queue_register_or_reload() -> None:
    h = harness()
    ann, bob, eve = h.player("ann"), h.player("bob"), h.player("eve")
    table_id = new_table(h, ann, seat_count=3)
    full = new_table(h, ann, seat_count=2)
    for player in (ann, eve):
        for table in (table_id, full):
            reply = player.send(action="join_table", table_id=table, buy_in=200)
            assert reply["type"] == "update", reply
    frozen(h, "bob")
    frozen(h, "eve")
    before = (h.accounts.balance("bob"), h.accounts.balance("eve"),
              h.store.load(table_id).version, h.store.load(full).version)
    # join, quick seat, the waiting list of a full table, a reload at the seat it holds
    assert bob.send(action="join_table", table_id=table_id, buy_in=200)["code"] == FROZEN
    quick = bob.send(action="quick_seat", variant="NLHE", small_blind=1, big_blind=2,
                     buy_in=100)
    assert quick["code"] == FROZEN
    assert bob.send(action="join_waitlist", table_id=full)["code"] == FROZEN
    assert eve.send(action="add_chips", table_id=table_id, amount=100)["code"] == FROZEN
    tid = new_tournament(h, sng_terms(2))
    assert bob.send(action="register", tournament_id=tid)["code"] == FROZEN
    assert (h.accounts.balance("bob"), h.accounts.balance("eve"),
            h.store.load(table_id).version, h.store.load(full).version) == before
    assert h.store.audit().holds
    # the others hear nothing of it: no message of theirs names a freeze
    assert "frozen" not in json.dumps(ann.messages)
    assert "frozen" not in json.dumps(ann.send(action="snapshot", table_id=table_id))


def test_r10_3_issue_27_a_frozen_account_keeps_what_it_owns_and_gets_no_grant() -> None:
    h = harness()
    ann, eve = h.player("ann"), h.player("eve")
    table_id = new_table(h, ann)
    for player in (ann, eve):
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] \
            == "update"
    frozen(h, "eve")
    assert eve.send(action="leave_table", table_id=table_id)["type"] in ("ack", "update")
    assert h.accounts.balance("eve") == 10_000  # its own stack, cashed out to it: held there
    with pytest.raises(AccountFrozen):
        h.accounts.grant("eve", 500)
    assert h.accounts.balance("eve") == 10_000
    accounts.unfreeze(h.accounts, "olga", "eve", "reviewed: a cooler streak", h.clock.now_ms())
    assert eve.send(action="join_table", table_id=table_id, buy_in=200)["type"] == "update"
    assert h.store.audit().holds


def test_r10_3_issue_27_freezing_twice_or_an_unknown_account_is_refused() -> None:
    h = harness()
    h.player("bob")
    frozen(h, "bob")
    with pytest.raises(accounts.OperatorError) as refused:
        frozen(h, "bob")
    assert refused.value.code == "already_frozen"
    with pytest.raises(accounts.OperatorError) as refused:
        frozen(h, "nobody")
    assert refused.value.code == "unknown_account"
    accounts.unfreeze(h.accounts, "olga", "bob", "done", h.clock.now_ms() + 1)
    with pytest.raises(accounts.OperatorError) as refused:
        accounts.unfreeze(h.accounts, "olga", "bob", "done", 2)
    assert refused.value.code == "not_frozen"
    with pytest.raises(accounts.OperatorError) as refused:
        accounts.freeze(h.accounts, "olga", "bob", "   ", 3)
    assert refused.value.code == "invalid_request"  # a reason is owed
    assert [a.action for a in accounts.operator_log(h.accounts)[0]] == ["unfreeze", "freeze"]


def test_r10_3_issue_27_a_reversal_moves_chips_back_once_and_never_below_zero() -> None:
    h = harness()
    h.player("giver", chips=1_000)
    h.player("taker", chips=5_000)
    action, done = accounts.reverse(h.accounts, "olga", "taker", "giver", 1_500,
                                    "flag 7: hands t1#4, t1#9", "flag-7", 10)
    assert done and (h.accounts.balance("taker"), h.accounts.balance("giver")) == (3_500, 2_500)
    again, done = accounts.reverse(h.accounts, "pete", "taker", "giver", 1_500, "retry",
                                   "flag-7", 20)
    assert not done and again == action  # the first one stands; nothing moved twice
    assert (h.accounts.balance("taker"), h.accounts.balance("giver")) == (3_500, 2_500)
    with pytest.raises(accounts.OperatorError) as refused:
        accounts.reverse(h.accounts, "olga", "taker", "giver", 3_501, "too much", "flag-8", 30)
    assert refused.value.code == "insufficient_funds"
    assert h.accounts.balance("taker") == 3_500
    reversals = [(e.player_id, e.amount, e.ref) for e in h.accounts.ledger
                 if e.reason is LedgerReason.REVERSAL]
    assert reversals == [("taker", -1_500, "reversal:flag-7"), ("giver", 1_500, "reversal:flag-7")]
    assert h.store.audit().holds  # granted = accounts + tables: a reversal creates nothing


def test_r10_3_issue_27_the_operator_log_says_who_did_what_page_by_page(caplog) -> None:
    h = harness()
    h.player("bob")
    h.player("carol")
    caplog.set_level(logging.INFO, logger="naiko_service.operator")
    accounts.freeze(h.accounts, "olga", "bob", "flag 7", 100)
    accounts.freeze(h.accounts, "pete", "carol", "flag 7", 200)
    accounts.reverse(h.accounts, "olga", "carol", "bob", 300, "flag 7", "flag-7", 300)
    accounts.unfreeze(h.accounts, "pete", "bob", "reviewed", 400)
    first, cursor = accounts.operator_log(h.accounts, limit=3)
    assert [(a.operator, a.action, a.player_id) for a in first] == [
        ("pete", "unfreeze", "bob"), ("olga", "reverse", "carol"), ("pete", "freeze", "carol")]
    assert first[1].details == {"to": "bob", "amount": 300}
    assert cursor is not None
    rest, cursor = accounts.operator_log(h.accounts, limit=3, cursor=cursor)
    assert [(a.operator, a.action) for a in rest] == [("olga", "freeze")] and cursor is None
    logged = [json.loads(r.getMessage().split(" ", 1)[1]) for r in caplog.records]
    assert [(x["operator"], x["action"]) for x in logged] == [
        ("olga", "freeze"), ("pete", "freeze"), ("olga", "reverse"), ("pete", "unfreeze")]


def test_r10_3_issue_27_the_operator_command_acts_and_reads_the_log(capsys) -> None:
    script = load_script("operator")
    h = harness()
    h.player("bob")
    h.player("carol")

    def run(*argv: str) -> int:
        return int(script.run(h.accounts, script.parser().parse_args(list(argv)), 1_000))

    assert run("--operator", "olga", "freeze", "bob", "--reason", "flag 7") == 0
    assert run("freeze", "carol", "--reason", "flag 7") == 2  # who acts is owed
    assert run("--operator", "olga", "freeze", "bob", "--reason", "again") == 1
    assert run("--operator", "olga", "reverse", "--from", "carol", "--to", "bob", "--amount",
               "250", "--id", "flag-7", "--reason", "dumped") == 0
    assert run("--operator", "olga", "reverse", "--from", "carol", "--to", "bob", "--amount",
               "250", "--id", "flag-7", "--reason", "dumped") == 0
    out = capsys.readouterr()
    assert "refused (already_frozen)" in out.err
    assert "reversed already: " in out.out
    assert h.accounts.balance("bob") == 10_250
    assert run("log", "--json") == 0
    logged = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x["operator"], x["action"]) for x in logged] == [("olga", "reverse"),
                                                              ("olga", "freeze")]
