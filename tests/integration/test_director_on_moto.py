"""R9.15 on DynamoDB (moto, tables from ``template.yaml``): the director pauses a scheduled
tournament (its tables finish their hands and hold), adds a minute, moves a player (one
transaction over both tables and the tournament item), and cancels it after the start: the
split paid once each through the ledger, every action in the operator log (the ledger table's
``ops:log`` partition, written in the action's own transaction) and the tournament log with who
did it; the ledger identity holds."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from naiko.tournaments.structures import MINUTE_MS
from naiko_service.records import Hold, TimerKind
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import director, tournament_payments, tournaments
from naiko_service.usecases.accounts import OperatorError, operator_log
from naiko_service.usecases.private import HOUSE_BOTS
from test_mtt_concurrency_on_moto import TOURNAMENT, Mtt, dynamo, mtt_on  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_director_moto",
                                                  ROOT / "scripts" / "director.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_until(mtt: Mtt, when: int) -> None:
    while mtt.scheduler.heap and mtt.scheduler.heap[0][0] <= when:
        assert mtt.step()
    mtt.clock.now = max(mtt.clock.now, when)


def test_r9_15_the_directors_tools_on_dynamodb(dynamo: tuple[Any, dict[str, str]],  # noqa: F811
                                               capsys: pytest.CaptureFixture[str]) -> None:
    mtt = mtt_on(dynamo, 9, seed=3, seats=6)
    module = script()
    record = mtt.record()
    assert record.started_ms is not None and record.seating is not None
    run_until(mtt, record.started_ms + MINUTE_MS)

    def run(*argv: str) -> int:
        mtt.clock.now += 1_000  # one action a second: the operator log's order
        return int(module.run(mtt.deps, module.parser().parse_args(["--operator", "olga",
                                                                    *argv])))

    assert run("pause", TOURNAMENT, "--reason", "maintenance") == 0
    assert run("pause", TOURNAMENT, "--reason", "again") == 1
    assert "already_paused" in capsys.readouterr().err
    run_until(mtt, mtt.clock.now + 5 * MINUTE_MS)
    paused_at = mtt.record().paused
    assert paused_at is not None
    for number in mtt.record().seating.table_ids:  # type: ignore[union-attr]
        table = mtt.table(number)
        assert not table.state.hand_in_progress
        assert table.tournament is not None and table.tournament.hold == Hold.DIRECTOR
    assert not [t for t in mtt.record().timers if t.kind is TimerKind.LEVEL]
    assert run("add-minute", TOURNAMENT, "--reason", "a long hand") == 0
    numbers = sorted(mtt.record().seating.table_ids)  # type: ignore[union-attr]
    source, target = mtt.table(numbers[0]), mtt.table(numbers[1])
    seat = next(s for s in source.state.seats if s is not None)
    chips = sum(mtt.table(n).state.total_chips() for n in numbers)
    assert run("move", TOURNAMENT, seat.player_id, "--from", str(numbers[0]), "--to",
               target.table_id, "--reason", "by the rail") == 0
    moved = mtt.table(numbers[1])
    index = moved.seat_of(seat.player_id)
    assert index is not None and moved.state.seats[index].stack == seat.stack  # type: ignore[union-attr]
    assert mtt.table(numbers[0]).seat_of(seat.player_id) is None
    assert sum(mtt.table(n).state.total_chips() for n in numbers) == chips
    with pytest.raises(OperatorError) as absent:
        director.move_player(mtt.deps, TOURNAMENT, seat.player_id, str(numbers[0]),
                             str(numbers[1]), "olga", "twice")
    assert absent.value.code == "not_at_table"
    house = mtt.accounts.balance(HOUSE_BOTS)
    owed = sum(mtt.record().payouts)
    assert run("cancel", TOURNAMENT, "--reason", "the venue closed") == 0
    done = mtt.record()
    assert done.status is TournamentStatus.CANCELLED and done.pool_held == 0
    assert mtt.accounts.balance(HOUSE_BOTS) == house + owed  # every prize, to the BOTs' house
    tournament_payments.settle(mtt.deps, TOURNAMENT)  # the payout timer again: nothing more
    assert mtt.accounts.balance(HOUSE_BOTS) == house + owed
    actions, _ = operator_log(mtt.accounts)
    assert [(a.action, a.operator) for a in actions] == [
        ("cancel", "olga"), ("move", "olga"), ("add_minutes", "olga"), ("pause", "olga")]
    entries = [e for e in tournaments.export_log(mtt.deps, TOURNAMENT)
               if e["type"] == "director"]
    assert [e["action_id"] for e in entries] == [a.action_id for a in reversed(actions)]
    mtt.audit()
