"""Every list a client can grow is capped (naiko_service.limits): each test fills one cap with
the longest ids a request may carry and sees the clear error, and that the refusal changed
nothing; a property test floods a table with random requests and measures every item."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from limits_testing import (
    fill_every_cap,
    fill_spectators,
    full_table,
    long_id,
    new_table,
    refused,
)
from naiko_service import limits
from naiko_service.records import TableRecord
from naiko_service.usecases import room
from service_testing import ACCEPTED, Harness, Player, harness
from test_service import actor


def stored(h: Harness, table_id: str) -> dict[str, Any]:
    record = h.store.load(table_id)
    return {"doc": record.to_document(), "version": record.version}


# -- invites (issue 29, 1) -----------------------------------------------------------------

def test_r7_12_a_private_table_invites_at_most_max_invited_players() -> None:
    h = harness()
    host = h.player("host")
    table_id = new_table(h, host, private=True)
    for i in range(limits.MAX_INVITED):
        assert host.send(action="invite", table_id=table_id,
                         player_id=long_id(i))["type"] in ACCEPTED
    before = stored(h, table_id)
    refused(host.send(action="invite", table_id=table_id, player_id=long_id(999)),
            "too_many_invites")
    assert stored(h, table_id) == before
    # Inviting someone already invited is not growth: answered, nothing changes.
    assert host.send(action="invite", table_id=table_id, player_id=long_id(0))["type"] \
        in ACCEPTED
    # The invite code cannot let a newcomer past the cap either ...
    assert host.send(action="create_invite_code", table_id=table_id)["type"] in ACCEPTED
    code = h.store.load(table_id).room.invite_code
    late = h.player(long_id(1000))
    refused(late.send(action="snapshot", table_id=table_id, invite_code=code),
            "too_many_invites")
    refused(late.send(action="join_table", table_id=table_id, buy_in=200, invite_code=code),
            "too_many_invites")
    assert h.store.load(table_id).seat_of(late.player_id) is None
    # ... until the host uninvites someone.
    assert host.send(action="uninvite", table_id=table_id,
                     player_id=long_id(5))["type"] in ACCEPTED
    assert late.send(action="join_table", table_id=table_id, buy_in=200,
                     invite_code=code)["type"] in ACCEPTED
    settings = h.store.load(table_id).settings
    assert len(settings.invited) == limits.MAX_INVITED and long_id(5) not in settings.invited
    refused(host.send(action="uninvite", table_id=table_id, player_id=long_id(5)),
            "not_invited")
    assert h.store.audit().holds


# -- waiting lists (R7.10) -------------------------------------------------------------------

def test_r7_10_a_waiting_list_holds_at_most_max_waitlist_players() -> None:
    h = harness()
    table_id, _ = full_table(h)
    for i in range(limits.MAX_WAITLIST):
        assert h.player(long_id(i, "w")).send(action="join_waitlist",
                                              table_id=table_id)["type"] in ACCEPTED
    before = stored(h, table_id)
    late = h.player(long_id(99, "w"))
    refused(late.send(action="join_waitlist", table_id=table_id), "waitlist_full")
    assert stored(h, table_id) == before
    assert h.accounts.profile(late.player_id).waiting == frozenset()


def test_r7_10_one_player_waits_for_at_most_max_waitlists_per_player_tables() -> None:
    h = harness()
    full = [full_table(h) for _ in range(limits.MAX_WAITLISTS_PER_PLAYER + 1)]
    tables = [table_id for table_id, _ in full]
    players = [seated for _, seated in full]
    waiter = h.player(long_id(1, "waiter"))
    for table_id in tables[:-1]:
        assert waiter.send(action="join_waitlist", table_id=table_id)["type"] in ACCEPTED
    assert h.accounts.profile(waiter.player_id).waiting == frozenset(tables[:-1])
    before = stored(h, tables[-1])
    refused(waiter.send(action="join_waitlist", table_id=tables[-1]), "too_many_waitlists")
    assert stored(h, tables[-1]) == before
    # Leaving one list makes room; so does the seat it was waiting for being taken.
    assert waiter.send(action="leave_waitlist", table_id=tables[0])["type"] in ACCEPTED
    assert waiter.send(action="join_waitlist", table_id=tables[-1])["type"] in ACCEPTED
    assert tables[0] not in h.accounts.profile(waiter.player_id).waiting
    assert players[1][1].send(action="leave_table", table_id=tables[1])["type"] in ACCEPTED
    while h.store.load(tables[1]).state.hand_in_progress:  # the leaver goes when it ends
        assert actor(players[1]).send(action="act", table_id=tables[1],
                                      move="fold")["type"] in ACCEPTED
    reply = waiter.send(action="join_table", table_id=tables[1], buy_in=200)
    assert reply["type"] in ACCEPTED, reply
    assert tables[1] not in h.accounts.profile(waiter.player_id).waiting
    assert h.store.audit().holds


def test_r7_10_an_offer_that_expires_or_a_table_that_closes_frees_the_players_list() -> None:
    h = harness()
    host, friend = h.player("host"), h.player("friend")
    table_id = new_table(h, host, seat_count=2, private=True, invited=["friend", "waiter"])
    for player in (host, friend):
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] \
            in ACCEPTED
    waiter = h.player("waiter")
    assert waiter.send(action="join_waitlist", table_id=table_id)["type"] in ACCEPTED
    assert friend.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
    assert h.store.load(table_id).room.offers  # the seat is held for the waiter ...
    h.clock.advance(30_000)
    h.fire_due_timers()  # ... who lets it expire: off the list
    assert h.accounts.profile("waiter").waiting == frozenset()
    assert friend.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    assert waiter.send(action="join_waitlist", table_id=table_id)["type"] in ACCEPTED
    assert host.send(action="host_close", table_id=table_id)["type"] in ACCEPTED
    while h.store.load(table_id).state.hand_in_progress:  # it closes when the hand ends
        assert actor([host, friend]).send(action="act", table_id=table_id,
                                          move="fold")["type"] in ACCEPTED
    assert h.store.load(table_id).closed
    assert h.accounts.profile("waiter").waiting == frozenset()


# -- watching --------------------------------------------------------------------------------

def test_a_table_takes_at_most_max_spectators_and_unwatch_frees_a_place() -> None:
    h = harness()
    table_id, players = full_table(h, seats=3)
    watchers = [h.player(long_id(i, "v")) for i in range(3)]
    for watcher in watchers:
        assert watcher.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    fill_spectators(h.service.deps.watchers, table_id, limits.MAX_SPECTATORS - len(watchers))
    assert h.service.deps.watchers.count(table_id) == limits.MAX_SPECTATORS
    before = stored(h, table_id)
    late = h.player(long_id(limits.MAX_SPECTATORS + 1, "late"))
    refused(late.send(action="snapshot", table_id=table_id), "too_many_spectators")
    assert stored(h, table_id) == before
    assert table_id not in h.connections.tables_of(late.connection_id)  # nor on its item
    # A seated player's own connection is never refused (a reconnect after a disconnect).
    h.service.disconnect(players[1].connection_id)
    again = Player(h, players[1].player_id, "conn-again")
    h.service.connect("conn-again", players[1].player_id)
    assert again.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    # Nor is a spectator's own new connection (it replaces the old one).
    h.service.connect("conn-v0-again", watchers[0].player_id)
    assert Player(h, watchers[0].player_id, "conn-v0-again").send(
        action="snapshot", table_id=table_id)["type"] == "snapshot"
    assert h.service.deps.watchers.connection_of(table_id, watchers[0].player_id) \
        == "conn-v0-again"
    assert watchers[1].send(action="unwatch", table_id=table_id)["type"] == "ack"
    assert table_id not in h.connections.tables_of(watchers[1].connection_id)
    assert stored(h, table_id)["version"] == before["version"] + 2  # the disconnect, the return
    assert late.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    refused(players[0].send(action="unwatch", table_id=table_id), "seated")


def test_a_connection_watches_at_most_max_tables_per_connection_tables() -> None:
    h = harness()
    watcher = h.player("watcher")
    tables = [new_table(h, h.player(f"host{i}")) for i in range(limits.MAX_TABLES_PER_CONNECTION
                                                              + 1)]
    for table_id in tables[:-1]:
        assert watcher.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    before = stored(h, tables[-1])
    refused(watcher.send(action="snapshot", table_id=tables[-1]), "too_many_tables_watched")
    refused(watcher.send(action="join_table", table_id=tables[-1], buy_in=200),
            "too_many_tables_watched")
    assert stored(h, tables[-1]) == before
    assert len(h.connections.tables_of(watcher.connection_id)) \
        == limits.MAX_TABLES_PER_CONNECTION
    assert watcher.send(action="unwatch", table_id=tables[0])["type"] == "ack"
    assert watcher.send(action="join_table", table_id=tables[-1], buy_in=200)["type"] \
        in ACCEPTED
    assert h.store.audit().holds


# -- tables a player opens, and the lobby (issue 29, 3) -----------------------------------------

def test_r7_10_quick_seat_serves_only_the_published_stakes() -> None:
    h = harness()
    player = h.player("flooder")
    tables_before = len(h.store.list_open())
    refused(player.send(action="quick_seat", small_blind=3, big_blind=7, buy_in=300),
            "unknown_stakes")
    assert len(h.store.list_open()) == tables_before
    lobby = player.send(action="list_tables")
    assert {"variant": "NLHE", "small_blind": 1, "big_blind": 2} in lobby["quick_seat_stakes"]


def test_quick_seat_opens_at_most_max_open_tables_empty_tables_for_one_player() -> None:
    h = harness()
    flooder = h.player("flooder")
    opened = set()
    for _ in range(limits.MAX_OPEN_TABLES):
        reply = flooder.send(action="quick_seat", small_blind=1, big_blind=2, buy_in=200)
        assert reply["type"] in ACCEPTED
        opened.add(reply["table_id"])
    assert len(opened) == limits.MAX_OPEN_TABLES  # each time alone: a new table
    refused(flooder.send(action="quick_seat", small_blind=1, big_blind=2, buy_in=200),
            "too_many_tables")
    assert {s.table_id for s in h.store.list_open()} == opened
    # Leaving a quick-seat table releases it: it is the room's table.
    first = sorted(opened)[0]
    assert flooder.send(action="leave_table", table_id=first)["type"] in ACCEPTED
    assert h.accounts.profile("flooder").open_tables == limits.MAX_OPEN_TABLES - 1
    assert h.store.audit().holds


def test_the_lobby_never_shows_one_players_empty_tables_above_tables_with_players() -> None:
    h = harness()
    played = new_table(h, h.player("a"))
    assert h.player("b").send(action="join_table", table_id=played, buy_in=200)["type"] \
        in ACCEPTED
    flooder = h.player("flooder")
    empty = []
    for _ in range(limits.MAX_OPEN_TABLES):  # newer, and empty
        h.clock.advance(1_000)
        empty.append(new_table(h, flooder))
    lobby = flooder.send(action="list_tables")["tables"]
    assert [t["table_id"] for t in lobby] == [played, *reversed(empty)]


# -- tournaments a player creates and registers for (issue 29, 2 and 3) ----------------------------

def test_r9_1_a_player_has_at_most_max_open_tournaments_created_and_not_over() -> None:
    h = harness()
    flooder = h.player("flooder")
    created, request_ids = [], []
    for _ in range(limits.MAX_OPEN_TOURNAMENTS):
        reply = flooder.send(action="create_tournament", preset="sng_6max_turbo", entry=100)
        assert reply["type"] == "ack", reply
        created.append(reply["tournament_id"])
        request_ids.append(reply["request_id"])
    assert h.tournaments is not None
    listed = len(h.tournaments.list_open())
    refused(flooder.send(action="create_tournament", preset="sng_6max_turbo", entry=100),
            "too_many_tournaments")
    assert len(h.tournaments.list_open()) == listed  # nothing listed
    # a retried request is answered, not refused (it created nothing new)
    again = flooder.send(action="create_tournament", preset="sng_6max_turbo", entry=100,
                         request_id=request_ids[0])
    assert again["type"] == "ack" and again["tournament_id"] == created[0], again
    # one cancelled: a place is free again (the full set forgets what is over)
    assert flooder.send(action="cancel_tournament", tournament_id=created[0])["type"] == "ack"
    reply = flooder.send(action="create_tournament", preset="sng_6max_turbo", entry=100)
    assert reply["type"] == "ack", reply
    assert h.accounts.profile("flooder").created == frozenset(
        [*created[1:], reply["tournament_id"]])
    refused(flooder.send(action="create_tournament", preset="sng_6max_turbo", entry=100),
            "too_many_tournaments")


def test_r9_1_a_player_is_registered_for_at_most_max_registrations_per_player() -> None:
    h = harness()
    ops = h.player("ops")
    tids = []
    for i in range(limits.MAX_REGISTRATIONS_PER_PLAYER + 2):
        reply = ops.send(action="create_tournament", preset="sng_6max_turbo", entry=100,
                         request_id=f"c{i}")
        if reply["type"] == "error":  # ops' own cap: another creator each time
            reply = h.player(f"host{i}").send(action="create_tournament", preset="sng_6max_turbo",
                                              entry=100)
        tids.append(reply["tournament_id"])
    player = h.player("eager")
    for tid in tids[:limits.MAX_REGISTRATIONS_PER_PLAYER]:
        assert player.send(action="register", tournament_id=tid)["type"] == "ack"
    balance = h.accounts.balance("eager")
    assert h.tournaments is not None
    last = tids[limits.MAX_REGISTRATIONS_PER_PLAYER]
    refused(player.send(action="register", tournament_id=last), "too_many_registrations")
    assert h.accounts.balance("eager") == balance  # no entry taken
    assert h.tournaments.load(last).entrants == 0
    # unregistering frees a place at once
    assert player.send(action="unregister", tournament_id=tids[0])["type"] == "ack"
    assert player.send(action="register", tournament_id=last)["type"] == "ack"
    # a tournament that started no longer counts: fill tids[1] with others
    for i in range(5):
        assert h.player(f"f{i}").send(action="register", tournament_id=tids[1])["type"] == "ack"
    assert h.tournaments.load(tids[1]).status.value == "running"
    assert player.send(action="register", tournament_id=tids[-1])["type"] == "ack"
    assert tids[1] not in h.accounts.profile("eager").registered
    assert len(h.accounts.profile("eager").registered) == limits.MAX_REGISTRATIONS_PER_PLAYER
    assert h.store.audit().holds


# -- what an account remembers -------------------------------------------------------------------

def test_r7_10_an_account_remembers_the_max_visited_most_recent_tables() -> None:
    h = harness()
    player = h.player("roamer", chips=1_000_000)
    tables = [new_table(h, h.player(f"host{i}")) for i in range(limits.MAX_VISITED + 5)]
    for table_id in tables:
        assert player.send(action="join_table", table_id=table_id, buy_in=40)["type"] \
            in ACCEPTED
        assert player.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
        assert player.send(action="unwatch", table_id=table_id)["type"] == "ack"
    visited = h.accounts.profile("roamer").visited
    assert visited == tuple(tables[-limits.MAX_VISITED:])


def test_r7_11_a_table_remembers_at_most_max_left_stacks_leavers() -> None:
    h = harness()
    table_id = new_table(h, h.player("host"))
    record = h.store.load(table_id)
    for i in range(limits.MAX_LEFT_STACKS + 10):
        room.note_leaving(record, long_id(i), 400, False, now=1_000 + i)
    assert len(record.left_stacks) == limits.MAX_LEFT_STACKS
    assert long_id(0) not in record.left_stacks and long_id(109) in record.left_stacks
    room.note_leaving(record, "late", 400, False, now=1_000 + 31 * 60_000)
    assert list(record.left_stacks) == ["late"]  # older than 30 minutes: forgotten


# -- no item grows past its documented size, whatever the requests ---------------------------------

ROUTES = st.sampled_from(["invite", "join_waitlist", "snapshot", "join_table", "leave_table",
                          "uninvite", "unwatch", "leave_waitlist", "create_invite_code",
                          "join_by_code"])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moves=st.lists(st.tuples(ROUTES, st.integers(0, 150)), min_size=50, max_size=250))
def test_no_item_the_service_writes_outgrows_its_documented_size(
        moves: list[tuple[str, int]]) -> None:
    h = harness()
    table_id, seated = full_table(h, seats=6, private=True)
    host = seated[0]
    players: dict[int, Player] = {}
    code = None

    def player(i: int) -> Player:
        if i not in players:
            players[i] = h.player(long_id(i, "r"))
        return players[i]

    for route, i in moves:
        someone = player(i)
        if route == "invite":
            reply = host.send(action="invite", table_id=table_id, player_id=long_id(i, "r"))
        elif route == "uninvite":
            reply = host.send(action="uninvite", table_id=table_id, player_id=long_id(i, "r"))
        elif route == "create_invite_code":
            reply = host.send(action="create_invite_code", table_id=table_id)
            code = h.store.load(table_id).room.invite_code
        elif route == "join_by_code":
            reply = someone.send(action="snapshot", table_id=table_id, invite_code=code) \
                if code else someone.send(action="snapshot", table_id=table_id)
        elif route == "join_table":
            reply = someone.send(action="join_table", table_id=table_id, buy_in=200)
        else:
            reply = someone.send(action=route, table_id=table_id)
        assert reply["type"] in ("ack", "update", "snapshot", "error"), reply
        if reply["type"] == "error":
            assert reply["code"] != "internal_error", reply
    assert h.store.item_size(table_id) <= limits.TABLE_ITEM_MAX_BYTES
    record: TableRecord = h.store.load(table_id)
    assert len(record.settings.invited) <= limits.MAX_INVITED
    assert len(record.room.waitlist) <= limits.MAX_WAITLIST
    for p in [*players.values(), *seated]:
        assert len(h.connections.tables_of(p.connection_id)) <= limits.MAX_TABLES_PER_CONNECTION
        profile = h.accounts.profile(p.player_id)
        assert len(profile.waiting) <= limits.MAX_WAITLISTS_PER_PLAYER
        assert len(profile.visited) <= limits.MAX_VISITED
    assert h.store.audit().holds


@pytest.mark.parametrize("private", [True, False])
def test_every_cap_full_the_table_item_stays_under_its_documented_size(private: bool) -> None:
    h = harness()
    table_id, _ = fill_every_cap(h, private)
    size = h.store.item_size(table_id)
    print(f"{'private' if private else 'public'} table item with every cap full: {size:,} "
          f"bytes (limit {limits.TABLE_ITEM_MAX_BYTES:,})")
    assert size <= limits.TABLE_ITEM_MAX_BYTES
