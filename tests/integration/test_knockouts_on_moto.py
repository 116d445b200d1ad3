"""R9.13 on moto: a knockout Sit & Go played to the end through the real handlers and state
machines, tables and tournaments in DynamoDB. Each bounty is paid in the transaction that
eliminates its player (``TransactWriteItems``: the table, the tournament, the result, the
``bounty#`` item, the winners' accounts and ledger entries), once each, and the ledger audit
holds with the tournament's ``pool_held`` back to 0."""

from __future__ import annotations

from collections import Counter

from naiko_local.bounty_audit import audit
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases.tournament_bounties import BOUNTY_PREFIX
from sit_and_go_on_moto_testing import (
    created_sit_and_go,
    ledger_audit,
    play_to_the_end,
    tournaments,
)
from test_timers_on_moto import World


def test_r9_13_a_knockout_sit_and_go_pays_every_bounty_once_on_dynamodb(world: World) -> None:
    ann, bob, tid = created_sit_and_go(world, "sng_6max_turbo_ko", "moto knockout")
    for connection in (ann, bob):
        assert world.send(connection, action="register", tournament_id=tid)["type"] == "ack"
    assert world.send(ann, action="tournament_add_bots", tournament_id=tid)["type"] == "ack"
    store = tournaments(world)
    record = store.load(tid)
    assert record.status is TournamentStatus.RUNNING and record.payouts == [195, 105]
    table_id = record.tables[0]
    seats = [s for s in world.view(ann)["seats"] if s is not None]
    assert [s["bounty"] for s in seats] == [50] * 6  # shown at the table
    play_to_the_end(world, tid, table_id, ann, bob)
    record = store.load(tid)
    assert record.status is TournamentStatus.FINISHED and record.pool_held == 0
    paid = [data for _, data in store.items(tid, BOUNTY_PREFIX)]
    assert Counter(d["reason"] for d in paid) == {"knockout": 5, "winner": 1}
    assert sum(sum(d["paid"].values()) for d in paid) == 6 * 50
    prizes = {data["player_id"]: data["prize"] for _, data in store.items(tid, "result#")}
    for human in ("ann", "bob"):
        won = sum(amount for d in paid for winner, amount in d["paid"].items()
                  if winner == human)
        assert world.balance(human) == 900 + prizes[human] + won
    log = [data for _, data in store.items(tid, "log#")]
    result = audit(log)
    assert result.holds and result.payments == 6, result.problems
    ledger = ledger_audit(world)
    assert ledger.holds, ledger.line()
