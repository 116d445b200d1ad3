""":mod:`naiko_service.usecases.field_shards` counts a scheduled tournament's players out on
count shards (issue 23 item 1; docs/tournaments.md "Count shards"), so that eliminations at
different tables do not take turns on the one ``field`` item.

A table's players out count on its group's shard ``field#<g>``
(:func:`~naiko_service.tournament_records.shard_of`), an update in place conditional only on
the shard's ``room``: the players out it may still count without the field item. Room is
granted from the field item (a write of it, conditional on its version, one per
:data:`GRANT` players out per shard), never past the **serial zone**
(:func:`serial_zone`): whatever the tables do at once, the shards cannot count the field
below it. So no decision that needs the exact field is taken on a count the shards make:
hand-for-hand's start (R9.8), the money (R9.9) and the final table all come inside the serial
zone, where the field item counts again. A table whose shard has no room left and that cannot
be granted more closes every shard (each conditional on the outs it read: none counted
meanwhile), and from then on every player out is counted on the field item, as before issue 23.

The players a shard counted get no place when they go out (their ``out#`` item has no
``left``; the ``eliminated`` entry and event no ``place``): no count of the field existed at
that moment. When the shards close, their places are derived from the ``out#`` items in time
order (:func:`naiko.tournaments.places.derive_places`) and their ``result#`` items written
(:func:`place_sharded`, batches of at most :data:`RESULTS_PER_TRANSACTION`, each only if
absent); none is in the money (the serial zone starts above the paid places)."""

from __future__ import annotations

from naiko.tournaments.places import OutRecord, derive_places

from ..ports import CloseOuts, ConcurrentUpdate, CountOuts, PutItem, Write
from ..tournament_records import SHARDS, Result, Shard, TournamentRecord, shard_of
from .base import Deps
from .tournament_uow import store

GRANT = 16
"""Room granted to a shard at a time (a field-item write per this many players out on it)."""

RESULTS_PER_TRANSACTION = 100
"""DynamoDB's limit of items in one ``TransactWriteItems``."""


def serial_zone(new: TournamentRecord) -> int:
    """The field size from which the field item counts every player out again: above the
    bubble (R9.8: ``paid + 1`` left) and the final table (``seat_count`` left), so both are
    decided on the exact count."""
    paid = sum(1 for prize in new.payouts if prize > 0)
    return max(paid + 1, new.terms.seat_count) + 1


def count_out(new: TournamentRecord, number: int, outs: int, writes: list[Write]) -> bool:
    """Table *number*'s *outs* players out, already taken off *new*'s field
    (``players_left`` and the table's count): counted on its shard (``True``; *new*'s shards
    record them, so the field item's document does not change unless room was granted), or,
    in the serial zone, on the field item (``False``; the shards closed here if they were
    open)."""
    if not new.payouts or new.seating is None:
        return False
    if new.serial:
        return False
    key = shard_of(number)
    shard = new.shards.setdefault(key, Shard())
    if shard.closed:  # closed meanwhile: the field item says so once read again
        raise ConcurrentUpdate(key)
    grant = 0
    if shard.room < outs:
        stored_left = new.players_left + outs + sum(s.out for s in new.shards.values())
        grantable = stored_left - new.granted - serial_zone(new)
        # a share of what is left to grant, so that every group can count some (a small
        # field's shards get a little each), at most GRANT; never past the serial zone
        grant = min(max(outs - shard.room, min(GRANT, grantable // SHARDS)), grantable)
        if shard.room + grant < outs:
            _close(new, writes)
            return False
        new.granted += grant
    writes.append(CountOuts(new.tournament_id, key, number, outs, grant))
    shard.out += outs
    shard.room += grant - outs
    shard.tables[number] = shard.tables.get(number, 0) + outs
    return True


def _close(new: TournamentRecord, writes: list[Write]) -> None:
    """The serial zone: every shard written so far closed (conditional on the outs read), the
    field item counting from now on; its stored count keeps the shards' outs (still read).
    A shard never written has no room: counting on it takes a grant, a field-item write,
    which this write's version change refuses."""
    new.serial = True
    for key, shard in sorted(new.shards.items()):
        if shard.out or shard.room:
            writes.append(CloseOuts(new.tournament_id, key, shard.out))
            shard.closed = True


PLACED_KEY = "placed#sharded"
"""Written with the last batch of :func:`place_sharded`: every player a shard counted has
their ``result#`` item (later runs read this one item, not the field's)."""


def place_sharded(deps: Deps, tournament_id: str) -> int:
    """Once the shards closed: each player a shard counted gets their ``result#`` item, the
    place derived from the ``out#`` items (R9.5: in time order, equal stacks of one hand tied),
    never a prize; in transactions of at most :data:`RESULTS_PER_TRANSACTION` items, each only
    if absent (a second run writes what the first did not), the last with
    :data:`PLACED_KEY`. Returns how many were written."""
    tournaments = store(deps)
    if tournaments.items(tournament_id, PLACED_KEY):
        return 0
    record = tournaments.load(tournament_id)
    if not record.serial:
        return 0
    outs = [OutRecord.from_dict(data) for _, data in tournaments.items(tournament_id, "out#")]
    sharded = {o.player_id for o in outs if o.left is None}
    have = {str(d["player_id"]) for _, d in tournaments.items(tournament_id, "result#")}
    by_player = {o.player_id: o for o in outs}
    rows: list[Write] = []
    for group in derive_places(outs, record.players):
        for player_id in group.player_ids:
            if player_id not in sharded or player_id in have:
                continue
            out = by_player[player_id]
            rows.append(PutItem(tournament_id, f"result#{player_id}", Result(
                player_id, group.place, 0, False, out.hand, out.table,
                player_id).to_dict(), new=True))
    rows.append(PutItem(tournament_id, PLACED_KEY, {"players": len(sharded)}, new=True))
    written = 0
    for start in range(0, len(rows), RESULTS_PER_TRANSACTION):
        batch = tuple(rows[start:start + RESULTS_PER_TRANSACTION])
        try:
            tournaments.commit(batch)
        except ConcurrentUpdate:
            return written  # another run wrote some of them: the next run writes the rest
        written += len(batch)
    return written - 1
