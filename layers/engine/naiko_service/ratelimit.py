""":mod:`naiko_service.ratelimit` limits the frames one connection, and one player, may send
(issue 15, item 8): a token bucket per connection and one per player, held in the memory of
the warm Lambda container, so that the normal path costs no DynamoDB round trip at all.

A frame over either limit is answered ``rate_limited`` (with ``retry_after_ms``) and changes
nothing. Refusals are counted per connection in fixed windows; a connection refused
:attr:`RateLimits.close_after` times in one window is closed (``DELETE @connections``). The
count is the container's own, and, so that a flood spread over many containers is caught
too, every :attr:`RateLimits.persist_every`-th refusal of a container is added to a counter
stored with the connection's item (``aws.dynamodb.DynamoConnections.add_refusals``): one
write per *persist_every* refused frames, on the abuse path only. The design and its limits
are in ``docs/service.md`` ("Rate limits").

Nothing here imports boto3: the persisted counter and the close come in as callables.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class RateLimits:
    """How many frames a connection and a player may send; the defaults leave normal play
    (a human or a BOT acting every second or so, a reconnect's burst of snapshots, heartbeats)
    far below them."""

    connection_per_second: float = 5.0
    """Frames a connection may send per second, sustained."""
    connection_burst: int = 20
    """Frames a connection may send at once (the bucket's size)."""
    player_per_second: float = 8.0
    """Frames all of a player's connections together may send per second, sustained."""
    player_burst: int = 40
    close_after: int = 50
    """Refusals of one connection in one window that close it."""
    window_ms: int = 10_000
    """The refusal window."""
    persist_every: int = 10
    """A container adds its refusals of a connection to the stored counter in batches of
    this many (one DynamoDB write per batch; 0: never)."""
    max_keys: int = 20_000
    """Buckets kept per container (least recently used dropped first: a dropped bucket is
    full again, which only ever favours the client)."""

    def __post_init__(self) -> None:
        if min(self.connection_per_second, self.player_per_second) <= 0 \
                or min(self.connection_burst, self.player_burst, self.close_after,
                       self.window_ms, self.max_keys) < 1 or self.persist_every < 0:
            raise ValueError(f"invalid rate limits: {self}")


@dataclass(frozen=True, slots=True)
class Bucket:
    """A token bucket: *tokens* at *at_ms*; it refills at a rate up to a size.

    >>> Bucket(0.0, 0).refilled(500, per_second=4.0, size=10).tokens
    2.0
    >>> Bucket(9.5, 0).refilled(10_000, per_second=4.0, size=10).tokens
    10.0
    """

    tokens: float
    at_ms: int

    def refilled(self, now_ms: int, *, per_second: float, size: int) -> Bucket:
        """The bucket at *now_ms* (a clock going backwards adds nothing)."""
        elapsed = max(0, now_ms - self.at_ms)
        return Bucket(min(float(size), self.tokens + elapsed * per_second / 1000.0),
                      max(now_ms, self.at_ms))

    def wait_ms(self, per_second: float) -> int:
        """Milliseconds until one token is there (0 if one is).

        >>> Bucket(0.5, 0).wait_ms(per_second=2.0)
        250
        """
        missing = 1.0 - self.tokens
        return 0 if missing <= 0 else math.ceil(missing * 1000.0 / per_second)


@dataclass(frozen=True, slots=True)
class Strikes:
    """A connection's refusals in the window that starts at *window*."""

    window: int
    """The window's index (``now_ms // window_ms``: the same windows in every container)."""
    local: int = 0
    """Refusals counted by this container."""
    unsaved: int = 0
    """Of those, refusals not yet added to the stored counter."""
    total: int = 0
    """The stored counter as last read (every container's saved refusals)."""
    closed: bool = False


@dataclass(frozen=True, slots=True)
class Admission:
    """The verdict on one frame."""

    allowed: bool
    retry_after_ms: int = 0
    """When a frame would be allowed again (refusals only)."""
    refusals: int = 0
    """The connection's refusals in this window (the most of this container's count and the
    stored one)."""
    close: bool = False
    """The refusals persisted: close the connection now (said once per connection)."""
    by: str = ""
    """Which bucket refused: ``connection`` or ``player``."""


ALLOWED = Admission(True)

AddRefusals = Callable[[str, int, int], int]
"""``add_refusals(connection_id, count, window) -> total``: add *count* refusals to the
connection's stored counter of *window* and return the counter's total (0: no such
connection)."""


class RateLimiter:
    """The container's buckets; one per :class:`~naiko_service.usecases.TableService`.

    :param limits: The limits.
    :param clock: Milliseconds (the service's clock).
    :param add_refusals: Stores refusals across containers (:data:`AddRefusals`); ``None``:
        this container's count alone decides.
    """

    def __init__(self, limits: RateLimits, clock: Callable[[], int],
                 add_refusals: AddRefusals | None = None):
        self.limits = limits
        self.clock = clock
        self.add_refusals = add_refusals
        self._buckets: OrderedDict[tuple[str, str], Bucket] = OrderedDict()
        self._strikes: OrderedDict[str, Strikes] = OrderedDict()
        self._screened: OrderedDict[str, bool] = OrderedDict()
        """Frames :meth:`screen` admitted whose handler has not run yet (oldest first)."""
        self._lock = threading.Lock()  # the local stack runs invocations in threads

    def admit(self, connection_id: str, player_id: str,
              frame_id: str | None = None) -> Admission:
        """Take a token from the connection's bucket and the player's, or refuse the frame
        (taking none). A refusal is counted against the connection; see :class:`Admission`.
        Only a refusal may call :attr:`add_refusals` (never an allowed frame). A frame
        :meth:`screen` admitted already (its *frame_id*) is allowed without a second token."""
        if frame_id is not None:
            with self._lock:
                if self._screened.pop(frame_id, False):
                    return ALLOWED
        return self._admit(connection_id, player_id, take=True, persist=True)

    def screen(self, connection_id: str, player_id: str, frame_id: str) -> Admission | None:
        """:meth:`admit` for a frame before its handler runs (the local gateway asks this on
        its event loop, before it queues the frame): the refusal, counted as :meth:`admit`
        counts it but without calling :attr:`add_refusals` (no I/O), or ``None`` once the
        tokens are taken; the handler's :meth:`admit` of the same *frame_id* (API Gateway's
        ``messageId``) then takes none."""
        verdict = self._admit(connection_id, player_id, take=True, persist=False)
        if not verdict.allowed:
            return verdict
        with self._lock:
            self._screened[frame_id] = True
            while len(self._screened) > self.limits.max_keys:
                self._screened.popitem(last=False)
        return None

    def _admit(self, connection_id: str, player_id: str, *, take: bool,
               persist: bool) -> Admission:
        limits = self.limits
        now = self.clock()
        with self._lock:
            conn = self._bucket(("c", connection_id), now, limits.connection_per_second,
                                limits.connection_burst)
            player = self._bucket(("p", player_id), now, limits.player_per_second,
                                  limits.player_burst)
            if conn.tokens >= 1.0 and player.tokens >= 1.0:
                if take:
                    self._buckets[("c", connection_id)] = replace(conn,
                                                                  tokens=conn.tokens - 1.0)
                    self._buckets[("p", player_id)] = replace(player,
                                                              tokens=player.tokens - 1.0)
                return ALLOWED
            wait_conn = conn.wait_ms(limits.connection_per_second)
            wait_player = player.wait_ms(limits.player_per_second)
            by = "connection" if wait_conn >= wait_player else "player"
            strikes = self._strike(connection_id, now)
            save = (persist and self.add_refusals is not None and limits.persist_every > 0
                    and strikes.unsaved >= limits.persist_every)
            if save:
                strikes = replace(strikes, unsaved=0)
                self._strikes[connection_id] = strikes
        if save:  # outside the lock: a DynamoDB call, on the abuse path only
            assert self.add_refusals is not None
            total = self.add_refusals(connection_id, limits.persist_every, strikes.window)
            with self._lock:
                current = self._strikes.get(connection_id, strikes)
                if current.window == strikes.window:
                    strikes = replace(current, total=max(current.total, total))
                    self._strikes[connection_id] = strikes
        return self._verdict(connection_id, strikes, max(wait_conn, wait_player), by)

    def _verdict(self, connection_id: str, strikes: Strikes, wait_ms: int,
                 by: str) -> Admission:
        refusals = max(strikes.local, strikes.total)
        close = False
        if refusals >= self.limits.close_after:
            with self._lock:
                current = self._strikes.get(connection_id, strikes)
                if not current.closed:
                    self._strikes[connection_id] = replace(current, closed=True)
                    close = True
        return Admission(False, retry_after_ms=max(1, wait_ms), refusals=refusals,
                         close=close, by=by)

    def _bucket(self, key: tuple[str, str], now: int, per_second: float,
                size: int) -> Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = Bucket(float(size), now)
            self._buckets[key] = bucket
            while len(self._buckets) > self.limits.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.refilled(now, per_second=per_second, size=size)

    def _strike(self, connection_id: str, now: int) -> Strikes:
        window = now // self.limits.window_ms
        strikes = self._strikes.get(connection_id)
        if strikes is None or strikes.window != window:
            strikes = Strikes(window, closed=strikes.closed if strikes else False)
        strikes = replace(strikes, local=strikes.local + 1, unsaved=strikes.unsaved + 1)
        self._strikes[connection_id] = strikes
        self._strikes.move_to_end(connection_id)
        while len(self._strikes) > self.limits.max_keys:
            self._strikes.popitem(last=False)
        return strikes


# -- table chat (R8.9) ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ChatLimits:
    """How fast one player may chat (R8.9): a token bucket per player, on top of the frame
    limits above (a chat message is a frame too)."""

    per_second: float = 0.5
    """Chat messages and emotes a player may send per second, sustained (one every 2 s)."""
    burst: int = 5
    """Messages a player may send at once (the bucket's size)."""
    max_keys: int = 20_000
    """Players whose bucket a container keeps (least recently used dropped first)."""

    def __post_init__(self) -> None:
        if self.per_second <= 0 or min(self.burst, self.max_keys) < 1:
            raise ValueError(f"invalid chat limits: {self}")


class ChatLimiter:
    """The container's chat buckets (:class:`Bucket`, the machinery of :class:`RateLimiter`)
    and the chat requests it applied recently (a replayed request is answered, not said
    twice). Like the frame buckets they live in the warm container: a player spreading chat
    over several containers at once gets a bucket in each (``docs/service.md``, "Table
    chat")."""

    def __init__(self, limits: ChatLimits | None = None):
        self.limits = limits or ChatLimits()
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._said: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, player_id: str, now_ms: int) -> int:
        """Take a token from *player_id*'s bucket: 0 when taken, else the milliseconds until
        one is there (nothing taken)."""
        limits = self.limits
        with self._lock:
            bucket = self._buckets.get(player_id)
            if bucket is None:
                bucket = Bucket(float(limits.burst), now_ms)
            else:
                self._buckets.move_to_end(player_id)
            bucket = bucket.refilled(now_ms, per_second=limits.per_second, size=limits.burst)
            if bucket.tokens < 1.0:
                self._buckets[player_id] = bucket
                return bucket.wait_ms(limits.per_second)
            self._buckets[player_id] = replace(bucket, tokens=bucket.tokens - 1.0)
            while len(self._buckets) > limits.max_keys:
                self._buckets.popitem(last=False)
            return 0

    def said(self, key: str) -> bool:
        """Whether the request *key* (``player/request_id``) was said already here."""
        with self._lock:
            return key in self._said

    def remember(self, key: str, now_ms: int) -> None:
        """The request *key* was said (:meth:`said` answers ``True`` from now on)."""
        with self._lock:
            self._said[key] = now_ms
            while len(self._said) > self.limits.max_keys:
                self._said.popitem(last=False)
