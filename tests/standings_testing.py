"""Live standings (issue 26 item 4, ``get_standings``), written once against a simulated
scheduled tournament of BOTs and run on the in-memory adapters
(``tests/service/test_standings.py``) and on the DynamoDB ones against moto
(``tests/integration/test_standings_on_moto.py``).

After hands (every *every*-th hand that ends), the standings are read whole, a page at a time,
and checked against the tournament itself:

- every player who entered is listed exactly once across the pages (the registrations), in
  rank order: stacks largest first, ties by player id, then players out by place;
- the stacks add up to every chip of the tournament (entries' starting stacks): chips
  conserved across the table rows;
- every table between hands shows exactly its table item's players and stacks, in both
  sections;
- the summary: players left, average and largest stack as the rows say, the prizes and the
  level;
- no message over 32 KB."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from naiko.state import Variant
from naiko_local.tournament import Simulation, terms_for
from naiko_service.protocol import MAX_FRAME_BYTES, parse_request
from naiko_service.tournament_records import TournamentStatus
from naiko_service.usecases import standings

READER = "reader"
CONNECTION = "c-reader"


@dataclass
class Checks:
    """What the checks saw (so a test can say they ran)."""

    reads: int = 0
    hands_checked: int = 0
    placed_seen: int = 0
    pages: int = 0
    largest_bytes: int = 0
    sections: set[str] = field(default_factory=set)


def ask(sim: Simulation, **fields: Any) -> tuple[dict[str, Any], int]:
    """One ``get_standings`` request as the reader: the reply and its size in bytes."""
    body = json.dumps({"action": "get_standings", "request_id": "r1",
                       "tournament_id": sim.tournament_id, **fields})
    sent = sim.service.deps.gateway.sent.setdefault(CONNECTION, [])  # type: ignore[attr-defined]
    before = len(sent)
    sim.service.handle(CONNECTION, READER, parse_request(body))
    assert len(sent) == before + 1
    data = sent[-1].data
    return json.loads(data), len(data)


def read_all(sim: Simulation, section: str, limit: int,
             checks: Checks) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    first: dict[str, Any] | None = None
    for _ in range(1_000):
        fields: dict[str, Any] = {"section": section, "limit": limit}
        if cursor is not None:
            fields["cursor"] = cursor
        reply, size = ask(sim, **fields)
        assert reply["type"] == "standings", reply
        assert size <= MAX_FRAME_BYTES
        checks.pages += 1
        checks.largest_bytes = max(checks.largest_bytes, size)
        first = first or reply
        rows += reply[section]
        cursor = reply["next"]
        if cursor is None:
            assert first is not None
            return rows, first["summary"]
        assert reply[section], "a page before the last is never empty"
    raise AssertionError("the standings never end: the cursor does not move")


def between_hands(table: Any) -> bool:
    hand = table.state.hand
    return hand is None or hand.complete


def check(sim: Simulation, checks: Checks, limit: int) -> None:
    """Read the standings whole and check them against the tournament (module docstring)."""
    deps = sim.service.deps
    record = sim.tournaments.load(sim.tournament_id)
    registered = {key.removeprefix("reg#") for key, _ in
                  sim.tournaments.items(sim.tournament_id, "reg#")}
    rows, summary = read_all(sim, "players", limit, checks)
    checks.reads += 1
    ids = [row["player_id"] for row in rows]
    assert len(ids) == len(set(ids)), "a player listed twice"
    assert set(ids) == registered, (set(ids) ^ registered)
    live = [row for row in rows if row["stack"] > 0]
    assert rows[:len(live)] == live, "players with chips first"
    assert [row["rank"] for row in live] == list(range(1, len(live) + 1))
    assert live == sorted(live, key=lambda row: (-row["stack"], row["player_id"]))
    placed = [row for row in rows if row["place"] is not None]
    assert [r["place"] for r in placed] == sorted(r["place"] for r in placed)
    assert all(r["rank"] == r["place"] and r["stack"] == 0 for r in placed)
    checks.placed_seen = max(checks.placed_seen, len(placed))
    chips = record.terms.starting_stack * record.entrants
    if record.status is TournamentStatus.FINISHED:  # every player placed, the winner first
        assert not live and [r["place"] for r in rows][0] == 1 and len(placed) == len(rows)
    else:
        assert sum(row["stack"] for row in live) == chips, "tournament chips conserved"
    # every table between hands shows its table item exactly, in both sections
    tables, _ = read_all(sim, "tables", 2, checks)
    shown = {t["table_id"]: {p["player_id"]: p["stack"] for p in t["players"]}
             for t in tables}
    by_player = {row["player_id"]: row for row in live}
    for table_id in record.tables:
        table = deps.tables.load(table_id)
        seated = {s.player_id: s.stack for s in table.state.seats if s is not None}
        if not seated or table.closed or not between_hands(table):
            continue
        assert shown.get(table_id) == seated, (table_id, shown.get(table_id), seated)
        assert {p: (by_player[p]["stack"], by_player[p]["table_id"]) for p in seated} == {
            p: (stack, table_id) for p, stack in seated.items()}
    assert sum(len(players) for players in shown.values()) == len(live)
    checks.sections |= {"players", "tables"}
    # the summary
    assert summary["players_left"] == record.players_left
    assert summary["entrants"] == record.entrants
    if live:
        assert summary["largest_stack"] == {"player_id": live[0]["player_id"],
                                            "stack": live[0]["stack"]}
        assert summary["average_stack"] == chips // len(live)
    assert summary["prize_pool"] == sum(record.payouts)
    assert summary["prizes"] == list(record.payouts[:standings.PRIZES_SHOWN])
    if summary["status"] == TournamentStatus.RUNNING.value:
        assert summary["level"]["level"] >= 1


def play_and_check(sim: Simulation, *, every: int = 1, limit: int = 7,
                   until_left: int = 1) -> Checks:
    """Play *sim* until *until_left* players are left (1: to its end), checking the
    standings after every *every*-th hand that ends and at the end (each request builds the
    ranking afresh: :data:`~standings.FRESH_MS` is 1 ms here)."""
    checks = Checks()
    ended = 0
    count_hands(sim)
    sim.register()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(standings, "FRESH_MS", 1)
        while not sim.finished() and (
                until_left == 1
                or sim.tournaments.load(sim.tournament_id).players_left > until_left
                or sim.tournaments.load(sim.tournament_id).status is not
                TournamentStatus.RUNNING):
            hands = _hands(sim)
            assert sim.step(), "no timer left and the tournament is not finished"
            now = _hands(sim)
            if now > hands:
                ended += 1
                if ended % every == 0:
                    sim.clock.now += 1  # a new build: the ranking as of now
                    check(sim, checks, limit)
                    checks.hands_checked += 1
        sim.clock.now += 1
        check(sim, checks, limit)
    return checks


def _hands(sim: Simulation) -> int:
    counted = getattr(sim, "_hands_ended", None)
    return 0 if counted is None else int(counted())


def count_hands(sim: Simulation) -> None:
    """Count the hands that end (their ``hand`` log entries) as the store commits them."""
    store = sim.tournaments
    original = store.commit
    ended = [0]

    def commit(writes: Any, moves: Any = ()) -> None:
        original(writes, moves)
        ended[0] += sum(1 for w in writes if "#h#" in str(getattr(w, "key", "")))

    store.commit = commit  # type: ignore[method-assign]
    sim._hands_ended = lambda: ended[0]  # type: ignore[attr-defined]


def on_dynamodb(sim: Simulation, client: Any, names: dict[str, str]) -> Simulation:
    """*sim* on the DynamoDB adapters (moto's tables from ``template.yaml``) instead of its
    in-memory ones: the same service, scheduler and clock."""
    from naiko_service.aws.dynamodb import DynamoAccounts, DynamoTableStore
    from naiko_service.aws.tournaments import DynamoTournamentStore
    from naiko_service.records import Sealer
    from naiko_service.usecases import TableService

    accounts = DynamoAccounts(client, names["AccountsTable"],
                              ledger_table=names["LedgerTable"])
    tables = DynamoTableStore(client, names["TablesTable"], names["AccountsTable"],
                              Sealer(bytes(32)), ledger_table=names["LedgerTable"])
    sim.accounts, sim.store = accounts, tables  # type: ignore[assignment]
    sim.tournaments = DynamoTournamentStore(  # type: ignore[assignment]
        client, names["TournamentsTable"], tables)
    deps = replace(sim.service.deps, tables=tables, accounts=accounts,
                   tournaments=sim.tournaments)
    sim.service = TableService(deps)
    return sim


def scheduled_terms(players: int, seats: int, *, reentries: int = 0) -> Any:
    """A scheduled turbo for *players* at *seats*-seat tables, with 10 big blinds each (short
    stacks: players go out within a few dozen hands, so the tests stay fast)."""
    terms = replace(terms_for("mtt", Variant.NLHE, 10, players), seat_count=seats,
                    starting_stack=1_000)
    if reentries:
        terms = replace(terms, late_registration_level=4, entries_per_player=3,
                        max_players=max(terms.max_players, players + reentries))
    return terms
