""":mod:`naiko_service.limits`: every list a client can grow has a cap, here, in one place.

A request that is valid alone can be harmful in bulk: ~7,900 invites of 64-character ids once
grew a table item past DynamoDB's 400 KB limit, and from then on every write of that table
failed. So each list that requests can lengthen is capped, the request that would pass the cap
is refused with a stable error code (and changes nothing), and the items the service writes stay
under the documented sizes below whatever the requests (``tests/service/test_limits.py`` fills
every cap; a property test sends random floods and measures every item; the DynamoDB sizes are
measured on moto). ``docs/protocol.md`` ("Limits") lists them for client developers.

The caps are constants, not settings: they bound item sizes the deployment's capacity planning
relies on (``docs/deploy.md``). The one list a deployment chooses is the stakes quick seat
serves (:data:`DEFAULT_QUICK_SEAT_STAKES`, ``QUICK_SEAT_STAKES`` in ``template.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_INVITED = 100
"""Players invited to one private table (by id, by invite code, or at ``create_table``):
``too_many_invites`` beyond. A player id is 1-64 characters (the protocol's ``PlayerId``)."""

MAX_WAITLIST = 20
"""Players on one table's waiting list (R7.10): ``waitlist_full`` beyond."""

MAX_WAITLISTS_PER_PLAYER = 5
"""Waiting lists one player is on at once, across tables (the account's ``waiting`` set):
``too_many_waitlists`` beyond."""

MAX_SPECTATORS = 10_000
"""Connections watching one table without a seat (or a place on its waiting list):
``too_many_spectators`` beyond. Seated players always may watch their own table. Spectators are
items of their own (``WatchersTable``, :class:`~naiko_service.ports.Watchers`), never in the table
item, and their updates go out off the players' path (:mod:`.usecases.spectators`): the cap
bounds one update's fan-out (10,000 posts, ``scripts/bench_watchers.py``), not an item."""

WATCHER_SHARDS = 16
"""A table's spectators are split into this many shards (``crc32(player_id) % 16``, the sort
key's prefix): above :data:`WATCHERS_PER_WORKER` watchers each shard's posts are one worker
invocation of their own, so 10,000 spectators are posted by 16 invocations at once."""

WATCHERS_PER_WORKER = 1_000
"""Spectators one worker invocation posts an update to by itself; a table with more has its
update split into :data:`WATCHER_SHARDS` messages (one per shard)."""

MAX_TABLES_PER_CONNECTION = 20
"""Tables one connection watches (the connection item's ``tables`` set):
``too_many_tables_watched`` beyond."""

MAX_MUTES = 20
"""R8.9: players one connection may mute (the connection item's ``muted`` set):
``too_many_mutes`` beyond."""

MAX_OPEN_TABLES = 3
"""Tables one player may have open at once: tables they created, and quick-seat tables opened for
them while they sit there (a table closes when it stays empty, or when its host closes it):
``too_many_tables``. One player cannot flood the lobby."""

MAX_VISITED = 50
"""Tables remembered on an account as played at (quick seat prefers them, R7.10): the most
recent are kept, older ones forgotten (never an error)."""

MAX_LEFT_STACKS = 100
"""Players a cash table remembers as having left it in the last 30 minutes (R7.11); beyond, the
oldest is forgotten (never an error)."""

MAX_OPEN_TOURNAMENTS = 3
"""Sit & Gos and Spins one player may have created and not yet finished or cancelled:
``too_many_tournaments`` beyond."""

MAX_REGISTRATIONS_PER_PLAYER = 10
"""Tournaments one player is registered for and still waiting to start:
``too_many_registrations`` beyond."""

TABLE_ITEM_MAX_BYTES = 64 * 1024
"""The largest a table item may grow (state, fallback and index attributes), whatever the
requests: every cap above at its fullest with the longest ids."""

ACCOUNT_ITEM_MAX_BYTES = 8 * 1024
"""The largest an account item may grow."""

CONNECTION_ITEM_MAX_BYTES = 4 * 1024
"""The largest a connection item may grow."""


@dataclass(frozen=True, slots=True)
class Stakes:
    """A game quick seat serves: variant and blinds (R7.10)."""

    variant: str
    small_blind: int
    big_blind: int

    @property
    def key(self) -> str:
        """``"NLHE:1/2"``, the stakes index's key (:func:`naiko_service.records.stakes_key`)."""
        return f"{self.variant}:{self.small_blind}/{self.big_blind}"

    def to_dict(self) -> dict[str, object]:
        return {"variant": self.variant, "small_blind": self.small_blind,
                "big_blind": self.big_blind}

    @classmethod
    def parse(cls, text: str) -> Stakes:
        """``"NLHE:1/2"`` -> the stakes.

        >>> Stakes.parse("PLO:5/10")
        Stakes(variant='PLO', small_blind=5, big_blind=10)

        :raises ValueError: If *text* is not ``VARIANT:SMALL/BIG`` with a known variant and
            ``0 < small <= big``.
        """
        variant, _, blinds = text.strip().partition(":")
        small, _, big = blinds.partition("/")
        if variant not in ("NLHE", "PLO", "NAIKO") or not (small.isdigit() and big.isdigit()):
            raise ValueError(f"not stakes (VARIANT:SMALL/BIG): {text!r}")
        stakes = cls(variant, int(small), int(big))
        if not 0 < stakes.small_blind <= stakes.big_blind:
            raise ValueError(f"blinds must satisfy 0 < small <= big: {text!r}")
        return stakes


def parse_stakes_list(text: str) -> tuple[Stakes, ...]:
    """A deployment's ``QUICK_SEAT_STAKES``: comma-separated stakes.

    >>> [s.key for s in parse_stakes_list("NLHE:1/2, PLO:5/10")]
    ['NLHE:1/2', 'PLO:5/10']
    """
    stakes = tuple(Stakes.parse(part) for part in text.split(",") if part.strip())
    if not stakes:
        raise ValueError("quick seat needs at least one published stakes")
    return stakes


DEFAULT_QUICK_SEAT_STAKES = parse_stakes_list(
    "NLHE:1/2, NLHE:5/10, NLHE:25/50, PLO:1/2, PLO:5/10, NAIKO:1/2, NAIKO:5/10")
"""The stakes quick seat serves unless the deployment publishes others (R7.10)."""

MAX_DEVICES_PER_PLAYER = 5
"""Devices (push tokens) one player registers (``register_device``, issue 25): the oldest is
forgotten beyond (a phone replaced keeps working without an ``unregister_device``). A token is
at most :data:`MAX_DEVICE_TOKEN` characters: the player's device item stays under 6 KB."""

MAX_DEVICE_TOKEN = 512
"""The longest push token taken (an APNs token is 64 hex characters, an FCM one ~160)."""
