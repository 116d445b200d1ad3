"""Helpers shared by the tests of the caps (naiko_service.limits): ids of the longest length,
full tables, and a table with every cap full (tests/service/test_limits.py and
tests/integration/test_limits_on_moto.py)."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

from naiko_service import limits
from naiko_service.aws.watchers import DynamoWatchers
from naiko_service.usecases import room
from service_testing import ACCEPTED, Harness, Player


def new_table(h: Harness, host: Player, **settings: Any) -> str:
    """A table of blinds 1/2 and buy-ins 40 to 400 created by *host*."""
    ack = host.send(action="create_table", name="t", small_blind=1, big_blind=2,
                    min_buy_in=40, max_buy_in=400, **settings)
    assert ack["type"] == "ack", ack
    return str(ack["table_id"])


def long_id(i: int, prefix: str = "p") -> str:
    """A player id of the longest length the protocol accepts (64 characters), as random as
    an id can be (the stored state is compressed: repetitive ids would hide their size)."""
    return (prefix + hashlib.sha256(f"{prefix}{i}".encode()).hexdigest())[:64]


def refused(reply: dict[str, Any], code: str) -> None:
    assert (reply["type"], reply.get("code")) == ("error", code), reply
    assert reply["message"]


_made = itertools.count()


def full_table(h: Harness, seats: int = 2, **settings: Any) -> tuple[str, list[Player]]:
    """A table whose every seat is taken (a hand may be in progress), by players of new ids."""
    host = h.player(long_id(next(_made), "host"))
    table_id = new_table(h, host, seat_count=seats, **settings)
    players = [host] + [h.player(long_id(next(_made), "s")) for _ in range(seats - 1)]
    if settings.get("private"):
        for player in players[1:]:
            assert host.send(action="invite", table_id=table_id,
                             player_id=player.player_id)["type"] in ACCEPTED
    for player in players:
        assert player.send(action="join_table", table_id=table_id,
                           buy_in=200)["type"] in ACCEPTED
    return table_id, players


def fill_spectators(watchers: Any, table_id: str, count: int, prefix: str = "w") -> None:
    """*count* spectators of the longest ids on *table_id*, written straight through the
    :class:`~naiko_service.ports.Watchers` adapter (10,000 ``snapshot`` requests would take a
    minute): on DynamoDB in batches of 25 (``BatchWriteItem``, which the service itself never
    uses) and the counter raised once."""
    players = [(long_id(i, prefix), f"c{prefix}{i}") for i in range(count)]
    if not isinstance(watchers, DynamoWatchers):
        for player_id, connection_id in players:
            watchers.add(table_id, player_id, connection_id, 0)
        return
    for start in range(0, len(players), 25):
        pending: dict[str, Any] = {watchers.table: [
            {"PutRequest": {"Item": watchers._item(table_id, player, connection)}}
            for player, connection in players[start:start + 25]]}
        while pending:
            pending = watchers.client.batch_write_item(
                RequestItems=pending).get("UnprocessedItems") or {}
    watchers.client.update_item(**watchers._counter(table_id, len(players), capped=False))


def fill_every_cap(h: Harness, private: bool) -> tuple[str, list[Player]]:
    """A 10-seat table with every list at its cap, every id of the longest length: invited
    players (a private table; then its spectators are invited players too), a waiting list,
    players who left it in the last 30 minutes; a hand in progress (so the item holds its
    fallback too). Spectators are not in the table item (items of their own): a public
    table's are filled through the port (:func:`fill_spectators`), a private one's watch by
    ``snapshot``."""
    host = h.player(long_id(0, "host"))
    table_id = new_table(h, host, seat_count=10, private=private)
    count = limits.MAX_INVITED if private else 9 + limits.MAX_WAITLIST + 5
    for i in range(count if private else 0):
        assert host.send(action="invite", table_id=table_id,
                         player_id=long_id(i, "i"))["type"] in ACCEPTED
    others = [h.player(long_id(i, "i")) for i in range(count)]
    seated = [host, *others[:9]]
    for player in seated:
        reply = player.send(action="join_table", table_id=table_id, buy_in=400)
        assert reply["type"] in ACCEPTED, reply
    for player in others[9:9 + limits.MAX_WAITLIST]:
        assert player.send(action="join_waitlist", table_id=table_id)["type"] in ACCEPTED
    for player in others[9 + limits.MAX_WAITLIST:]:
        assert player.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    if not private:
        fill_spectators(h.service.deps.watchers, table_id,
                        limits.MAX_SPECTATORS - (len(others) - 9 - limits.MAX_WAITLIST))
    record = h.store.load(table_id)
    new = record.copy()
    new.version += 1
    for i in range(limits.MAX_LEFT_STACKS):
        room.note_leaving(new, long_id(i, "gone"), 800, False, h.clock.now)
    h.store.save(new, record.version)
    assert h.store.load(table_id).state.hand_in_progress
    return table_id, seated
