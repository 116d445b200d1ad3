"""R9.15 on DynamoDB (moto, tables from ``template.yaml``): the director pauses a scheduled
tournament (its tables finish their hands and hold), adds a minute, moves a player (one
transaction over both tables and the tournament item), and cancels it after the start: the
split paid once each through the ledger; at a Sit & Go and a Spin the same tools, each one
transaction over the table and the tournament item (a move refused ``single_table``, a Spin's
cancel returning its entries from the house's prize account); every action in the operator
log (the ledger table's ``ops:log`` partition, written in the action's own transaction) and the
tournament log with who did it; the ledger identity holds."""

from __future__ import annotations

import importlib.util
import random
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from naiko.state import Variant
from naiko.tournaments.structures import MINUTE_MS
from naiko_local.tournament import (
    SIMULATED_START_MS,
    VirtualScheduler,
    fire_next,
    terms_for,
)
from naiko_service.aws import DynamoAccounts, DynamoTableStore
from naiko_service.aws.tournaments import DynamoTournamentStore
from naiko_service.ledger import audit_dynamodb
from naiko_service.memory import ManualClock, MemoryConnections, RecordingGateway
from naiko_service.records import Hold, Sealer, TableRecord, TimerKind
from naiko_service.tournament_records import HOUSE_PRIZES, TournamentRecord, TournamentStatus
from naiko_service.usecases import Deps, TableService, director, tournament_payments, tournaments
from naiko_service.usecases.accounts import OperatorError, operator_log
from naiko_service.usecases.private import HOUSE_BOTS
from test_mtt_concurrency_on_moto import (  # noqa: F401
    ENTRY,
    KEY,
    TOURNAMENT,
    Mtt,
    dynamo,
    mtt_on,
)
from tournament_testing import the_hands_last_deadline

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


def test_r9_15_a_move_after_a_deadline_that_ended_the_hand_on_dynamodb(
        dynamo: tuple[Any, dict[str, str]]) -> None:  # noqa: F811
    """The move's write catches the source table's deadlines up; the last one ends the hand,
    which writes the tournament's items the move writes too (its log, the tournament item):
    DynamoDB refuses a transaction naming an item twice, so the hand's end is written first,
    then the move."""
    mtt = mtt_on(dynamo, 9, seed=3, seats=6)
    seating = mtt.record().seating
    assert seating is not None
    source, target = sorted(seating.table_ids)[:2]
    while not mtt.table(source).state.hand_in_progress:
        assert mtt.step()
    director.pause(mtt.deps, TOURNAMENT, "olga", "to move a player")
    while (last := the_hands_last_deadline(mtt.deps, mtt.table(source))) is None:
        assert mtt.step()
    timer, ended = last
    mtt.clock.now = timer.due_ms + 1  # past, and its wake-up not delivered yet
    before = mtt.table(source)
    player = max((s for s in ended.state.seats if s is not None), key=lambda s: s.stack)
    director.move_player(mtt.deps, TOURNAMENT, player.player_id, str(source), str(target),
                         "olga", "balance")
    after = mtt.table(source)
    assert after.version == before.version + 2  # the hand's end, then the move
    assert not after.state.hand_in_progress and after.seat_of(player.player_id) is None
    assert mtt.table(target).seat_of(player.player_id) is not None
    actions, _ = operator_log(mtt.accounts)
    assert [(a.action, a.player_id) for a in actions[:1]] == [("move", player.player_id)]
    mtt.audit()


# -- a Sit & Go and a Spin (one table: each action one transaction with the table) -----------

SINGLE = "single-table"


@dataclass
class OneTable:
    """A Sit & Go or a Spin of BOTs on the DynamoDB adapters, in virtual time."""

    deps: Deps
    service: TableService
    scheduler: VirtualScheduler
    clock: ManualClock
    accounts: DynamoAccounts
    client: Any
    names: dict[str, str]
    next_sweep: int = 0

    def record(self) -> TournamentRecord:
        assert self.deps.tournaments is not None
        return self.deps.tournaments.load(SINGLE)

    def table(self) -> TableRecord:
        (table_id,) = self.record().tables
        return self.deps.tables.load(table_id)

    def step(self) -> bool:
        return fire_next(self)

    def until(self, when: int) -> None:
        while self.scheduler.heap and self.scheduler.heap[0][0] <= when:
            assert self.step()
        self.clock.now = max(self.clock.now, when)

    def audit(self) -> None:
        audit = audit_dynamodb(self.client, self.names["AccountsTable"],
                               self.names["LedgerTable"], self.names["TablesTable"],
                               Sealer(KEY), self.names["TournamentsTable"])
        assert audit.holds, audit.line()


def one_table_on(tables: tuple[Any, dict[str, str]], kind: str) -> OneTable:
    client, names = tables
    store = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"], Sealer(KEY),
                             ledger_table=names["LedgerTable"])
    accounts = DynamoAccounts(client, names["AccountsTable"], ledger_table=names["LedgerTable"])
    clock, scheduler, rng = ManualClock(SIMULATED_START_MS), VirtualScheduler(), random.Random(5)
    deps = Deps(tables=store, accounts=accounts, connections=MemoryConnections(),
                gateway=RecordingGateway(), scheduler=scheduler, clock=clock, rng=rng,
                tournaments=DynamoTournamentStore(client, names["TournamentsTable"], store),
                pause=lambda seconds: None, bot_think=lambda: rng.randrange(400, 6_001))
    players = 3 if kind == "spin" else 4
    terms = replace(terms_for(kind, Variant.NLHE, ENTRY, players), bots_allowed=True)
    accounts.grant(HOUSE_BOTS, ENTRY * players, ref="test", at_ms=clock.now)
    if terms.spin_table is not None:  # ops keep the prize account able to pay any draw
        accounts.grant(HOUSE_PRIZES, ENTRY * max(p.multiplier for p in terms.spin_table.prizes),
                       ref="test", at_ms=clock.now)
    one = OneTable(deps, TableService(deps), scheduler, clock, accounts, client, names,
                   clock.now + 60_000)
    tournaments.create(deps, SINGLE, "one table", terms, "test")
    tournaments.enter(deps, None, SINGLE, [tournaments.Entrant(f"bot-{n}", HOUSE_BOTS, True)
                                           for n in range(1, players + 1)])
    assert one.record().status is TournamentStatus.RUNNING and one.record().seating is None
    return one


@pytest.mark.parametrize("kind", ["sng", "spin"])
def test_r9_15_the_directors_tools_at_a_sit_and_go_and_a_spin_on_dynamodb(
        dynamo: tuple[Any, dict[str, str]], capsys: pytest.CaptureFixture[str],  # noqa: F811
        kind: str) -> None:
    one = one_table_on(dynamo, kind)
    module = script()
    house = HOUSE_PRIZES if kind == "spin" else HOUSE_BOTS

    def run(*argv: str) -> int:
        one.clock.now += 1_000  # one action a second: the operator log's order
        return int(module.run(one.deps, module.parser().parse_args(["--operator", "olga",
                                                                    *argv])))

    while not one.table().state.hand_in_progress:
        assert one.step()
    assert run("pause", SINGLE, "--reason", "maintenance") == 0  # mid-hand
    paused_at = one.clock.now
    held = one.table()
    assert held.state.hand_in_progress and held.tournament is not None
    assert held.tournament.hold == Hold.DIRECTOR  # written with the tournament's pause
    one.until(one.clock.now + 5 * MINUTE_MS)
    assert not one.table().state.hand_in_progress
    hands = [e for e in tournaments.export_log(one.deps, SINGLE) if e["type"] == "hand"]
    assert not [h for h in hands if h["started_ms"] > paused_at]
    assert run("add-minute", SINGLE, "--reason", "a long hand") == 0
    table = one.table()
    assert table.tournament is not None
    assert table.tournament.started_ms == one.record().started_ms  # the table's own clock
    player = next(s.player_id for s in table.state.seats if s is not None)
    assert run("move", SINGLE, player, "--from", "1", "--to", "2", "--reason", "x") == 1
    assert "single_table" in capsys.readouterr().err
    live = one.record()
    owed = sum(live.payouts) if kind == "sng" else 3 * live.terms.prize_entry
    before = one.accounts.balance(house)
    assert run("cancel", SINGLE, "--reason", "the venue closed") == 0
    done = one.record()
    assert done.status is TournamentStatus.CANCELLED and done.pool_held == 0
    assert one.table().closed
    assert one.accounts.balance(house) == before + (owed if kind == "sng" else -owed)
    tournament_payments.settle(one.deps, SINGLE)  # the payout timer again: nothing more
    assert one.accounts.balance(house) == before + (owed if kind == "sng" else -owed)
    actions, _ = operator_log(one.accounts)
    assert [(a.action, a.operator) for a in actions] == [
        ("cancel", "olga"), ("add_minutes", "olga"), ("pause", "olga")]
    entries = [e for e in tournaments.export_log(one.deps, SINGLE) if e["type"] == "director"]
    assert [e["action_id"] for e in entries] == [a.action_id for a in reversed(actions)]
    one.audit()
