"""Every list paged (docs/protocol.md "Pages", issue 23 item 2), written once against a
:class:`~service_testing.Harness` and run on the in-memory adapters
(``tests/service/test_pages_lists.py``) and on the DynamoDB ones against moto
(``tests/integration/test_pages_on_moto.py``): every row exactly once across the pages, in the
list's order; a cursor of one list refused by another (``bad_cursor``, nothing changed); a
cursor that does not decode refused the same way."""

from __future__ import annotations

import math
from typing import Any

from naiko.tournaments.structures import from_preset
from naiko_service.ports import PutItem
from naiko_service.protocol import MAX_FRAME_BYTES
from naiko_service.tournament_records import Result
from naiko_service.usecases import tournaments
from service_testing import ACCEPTED, Harness, Player

FIELD = 60
"""The largest field the tests register: a scheduled tournament of 60 players."""

LONG = "p" * 56
"""A long player id prefix: ids of 64 characters (``auth.MAX_SUBJECT_CHARS``)."""


def player_ids(count: int = FIELD) -> list[str]:
    """*count* player ids of the longest length a token allows (64 characters)."""
    return [f"{LONG}{n:08d}" for n in range(count)]


def sizes(player: Player, start: int) -> list[int]:
    """Bytes of each message posted to *player* since message *start* (as the gateway got
    them: the send point's bytes)."""
    return [len(getattr(m, "data", b"")) for m in player.messages[start:]]


def read_all(player: Player, action: str, key: str, limit: int,
             **fields: Any) -> tuple[list[dict[str, Any]], int]:
    """Every row of a list, page after page (``next`` followed until ``null``), and the
    number of pages read."""
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    pages = 0
    while True:
        frame: dict[str, Any] = {"action": action, "limit": limit, **fields}
        if cursor is not None:
            frame["cursor"] = cursor
        before = len(player.messages)
        reply = player.send(**frame)
        assert reply["type"] != "error", reply
        assert all(size <= MAX_FRAME_BYTES for size in sizes(player, before))
        pages += 1
        assert pages <= 1_000, "the list never ends: its cursor does not move"
        assert len(reply[key]) <= limit
        rows += reply[key]
        cursor = reply["next"]
        if cursor is None:
            return rows, pages
        assert reply[key], "a page before the last is never empty"


def scheduled_field(h: Harness, count: int = FIELD, tid: str = "mtt1") -> tuple[str, Player]:
    """A scheduled tournament with *count* registered players (ids of 64 characters) and a
    player who is not registered (the one who reads the lists)."""
    tournaments.create(h.service.deps, tid, "field", from_preset("mtt_turbo", 10), "ops",
                       starts_ms=h.clock.now + 3_600_000)
    for player_id in player_ids(count):
        assert h.player(player_id).send(action="register",
                                        tournament_id=tid)["type"] in ACCEPTED
    return tid, h.player("reader")


def with_results(h: Harness, tid: str, count: int = FIELD, paid_every: int = 3) -> None:
    """Results for the field, as the tables write them (``result#`` items, a prize paid to
    every *paid_every*-th place: its ``paid#`` item)."""
    store = h.service.deps.tournaments
    assert store is not None
    writes: list[Any] = []
    for place, player_id in enumerate(reversed(player_ids(count)), 1):
        result = Result(player_id, place, 10 if place % paid_every == 0 else 0, hand=place,
                        table=f"{tid}-{place % 7 + 1}", account=player_id)
        writes.append(PutItem(tid, f"result#{player_id}", result.to_dict(), new=True))
        if place % paid_every == 0:
            writes.append(PutItem(tid, f"paid#{player_id}", {"player_id": player_id}, new=True))
        if len(writes) >= 20:
            store.commit(tuple(writes))
            writes = []
    if writes:
        store.commit(tuple(writes))


def issue23_tournament_players_are_paged(h: Harness) -> None:
    tid, reader = scheduled_field(h)
    rows, pages = read_all(reader, "tournament_players", "players", 7, tournament_id=tid)
    assert [r["player_id"] for r in rows] == sorted(player_ids())  # once each, in id order
    assert pages == math.ceil(FIELD / 7)
    assert all(r == {"player_id": r["player_id"], "bot": False} for r in rows)
    # The summary stays small and lists no field: the requester's own entry only.
    shown = reader.send(action="get_tournament", tournament_id=tid)["tournament"]
    assert shown["entrants"] == FIELD and shown["you"] == {"registered": False, "result": None}
    assert "registered" not in shown and "results" not in shown
    mine = h.player(player_ids()[5], chips=1)
    assert mine.send(action="get_tournament", tournament_id=tid)["tournament"]["you"] == {
        "registered": True, "entries": 1, "result": None}
    # The largest page of the largest field fits a frame with room to spare.
    before = len(reader.messages)
    whole = reader.send(action="tournament_players", tournament_id=tid, limit=100)
    assert len(whole["players"]) == FIELD and whole["next"] is None
    assert max(sizes(reader, before)) < MAX_FRAME_BYTES // 2


def issue23_tournament_results_are_paged_with_their_payments(h: Harness) -> None:
    tid, reader = scheduled_field(h)
    with_results(h, tid)
    rows, pages = read_all(reader, "tournament_results", "results", 8, tournament_id=tid)
    assert [r["player_id"] for r in rows] == sorted(player_ids())
    assert sorted(r["place"] for r in rows) == list(range(1, FIELD + 1))
    assert all(r["paid"] == (r["place"] % 3 == 0) for r in rows), "paid as its paid# item"
    assert pages == math.ceil(FIELD / 8)
    winner = next(r for r in rows if r["place"] == 1)
    you = h.player(winner["player_id"], chips=1).send(
        action="get_tournament", tournament_id=tid)["tournament"]["you"]
    assert you == {"registered": True, "entries": 1, "result": winner}


def issue23_the_lobby_tables_are_paged(h: Harness) -> None:
    hosts = [h.player(f"host{n:02d}") for n in range(12)]
    for n, host in enumerate(hosts):
        h.clock.advance(1_000)
        assert host.send(action="create_table", name=f"table {n}", small_blind=1, big_blind=2,
                         min_buy_in=40, max_buy_in=200)["type"] == "ack"
    reader = h.player("reader")
    rows, pages = read_all(reader, "list_tables", "tables", 5)
    every = reader.send(action="list_tables")
    assert every["next"] is None and len(every["tables"]) == 12
    assert rows == every["tables"]  # the same order, page by page or at once
    assert [r["name"] for r in rows] == [f"table {n}" for n in reversed(range(12))]
    assert pages == 3


def issue23_the_lobby_tournaments_are_paged(h: Harness) -> None:
    for n in range(12):
        h.clock.advance(1_000)
        tournaments.create(h.service.deps, f"u{n:02d}", f"Spin {n}",
                           from_preset("spin_3max_hyper", 10), "ops")
    reader = h.player("reader")
    rows, pages = read_all(reader, "list_tournaments", "tournaments", 5)
    assert [r["tournament_id"] for r in rows] == [f"u{n:02d}" for n in reversed(range(12))]
    assert pages == 3
    first = reader.send(action="list_tournaments")
    assert len(first["tournaments"]) == 5 and first["next"] is not None  # the default: 5


def issue23_a_cursor_of_one_list_is_refused_by_another(h: Harness) -> None:
    tid, reader = scheduled_field(h, 6)
    tournaments.create(h.service.deps, "other", "other", from_preset("spin_3max_hyper", 10),
                       "ops")
    players = reader.send(action="tournament_players", tournament_id=tid, limit=2)["next"]
    assert players is not None
    store = h.service.deps.tournaments
    assert store is not None
    before = (store.load(tid).version, store.items(tid, "reg#"),
              h.accounts.balance(reader.player_id))
    refusals = [
        reader.send(action="tournament_results", tournament_id=tid, cursor=players),
        reader.send(action="list_tables", cursor=players),
        reader.send(action="list_tournaments", cursor=players),
        reader.send(action="tournament_players", tournament_id="other", cursor=players),
        reader.send(action="tournament_players", tournament_id=tid, cursor="bm90LWEtY3Vyc29y"),
        reader.send(action="tournament_players", tournament_id=tid, cursor="e30"),
    ]
    for refusal in refusals:
        assert refusal["type"] == "error" and refusal["code"] == "bad_cursor", refusal
        assert refusal["message"]
    assert "another tournament's" in refusals[3]["message"]
    assert (store.load(tid).version, store.items(tid, "reg#"),
            h.accounts.balance(reader.player_id)) == before
    # The cursor still works where it belongs.
    rest = reader.send(action="tournament_players", tournament_id=tid, cursor=players)
    assert [r["player_id"] for r in rest["players"]] == sorted(player_ids(6))[2:]


def issue23_an_unknown_tournament_is_not_an_empty_list(h: Harness) -> None:
    reader = h.player("reader")
    for action in ("tournament_players", "tournament_results"):
        assert reader.send(action=action, tournament_id="nope")["code"] == "unknown_tournament"
