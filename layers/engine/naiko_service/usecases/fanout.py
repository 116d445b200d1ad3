""":mod:`naiko_service.usecases.fanout` tells the players after a commit: one ``update`` per
watching connection, made once per write (:class:`Updates`: the public part serialised once) and
posted concurrently (:func:`post_updates`), and the one-off replies (:func:`send`, :func:`ack`).
Every message the service posts goes through ONE function, :func:`deliver`: serialised once,
measured, and never posted over API Gateway's 32 KB frame (an ``error`` ``reply_too_large``
goes instead, logged and counted ``MessagesOversize``). Nothing here writes: the connections
found gone are the transaction's to forget (:func:`.transaction.fan_out`)."""

from __future__ import annotations

import contextvars
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from naiko.commitment import DeckCommitment
from naiko.events import Event
from naiko.views import cards_in, commitment_of, proofs_for_events, viewer_seat

from .. import protocol as p
from ..ports import ConnectionGone, Encoded
from ..records import TableRecord
from .base import Caller, Deps
from .views import table_view, with_required_buy_in

AWS_CALL_WORST_MS = 4_000
"""The worst case of one AWS call with the clients' settings (``bootstrap.BOTO_CONFIG``: two
attempts of at most 0.5 s to connect and 1 s to read, and the SDK's backoff between them)."""


def ack(caller: Caller, table_id: str, version: int | None,
        replayed: bool = False) -> dict[str, Any]:
    """The ``ack`` message of an applied (or replayed) request."""
    return {"type": "ack", "request_id": caller.request_id, "table_id": table_id,
            "version": version, "replayed": replayed}


FAN_OUT_WORKERS = 10
"""Posts of one fan-out in flight at once (:func:`fan_out`): botocore's connection pool per
client (``max_pool_connections``, 10 by default); more threads would open connections the pool
then throws away. A 10-seat table with 20 spectators posts in 3 rounds instead of 30."""

_pool: ThreadPoolExecutor | None = None

_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The process's fan-out pool: made on first use, kept across warm invocations (Lambda
    freezes its idle threads between them); the Management API client is thread-safe."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(FAN_OUT_WORKERS, thread_name_prefix="fan-out")
        return _pool


def watching(record: TableRecord, caller: Caller) -> bool:
    """Whether *caller*'s connection gets the table's updates (it watches the table)."""
    return caller.connection_id in record.connections.values()


def post_updates(deps: Deps, record: TableRecord, events: list[Event] | Updates,
                 answer: Caller | None = None) -> list[tuple[str, str]]:
    """After the commit: every watching connection gets its own view (R8.3: the confirmed
    state), ONE message per connection; the update to *answer*'s connection carries its
    ``request_id`` and ``replayed: false`` (the answer to that request: no separate
    ``ack``).

    The posts go out concurrently, at most :data:`FAN_OUT_WORKERS` at once (sequentially
    when ``deps.parallel_fan_out`` is off, or for one recipient); the messages are made
    first, in this thread, the public part serialised once (:class:`Updates`). Each
    recipient stands alone: a failure of one (gone, throttled, timed out, any error) is
    counted and logged here, after every post ended, and the others still get their message;
    a post starts only with :data:`AWS_CALL_WORST_MS` left (else it is skipped and counted);
    a recipient that missed one sees the gap in versions and asks for a snapshot.
    Returns the connections found gone, ``(player_id, connection_id)``: the caller forgets
    them (:func:`.transaction.fan_out`, in ONE more write). *events* may come as the
    :class:`Updates` already made (the spectators' update is made from the same one).

    Only the connections in the table item are posted here (seated players, players in line
    or offered a seat): spectators are items of their own, posted off this path
    (:func:`.spectators.publish`)."""
    updates = events if isinstance(events, Updates) else Updates(record, events,
                                                                   deps.clock.now_ms())
    jobs = [(player_id, connection_id, updates.message(
        player_id, answer.request_id
        if answer is not None and connection_id == answer.connection_id else None))
        for player_id, connection_id in list(record.connections.items())]
    results = post_all(deps, [(connection_id, message) for _, connection_id, message in jobs])
    gone: list[tuple[str, str]] = []
    sent = 0
    for (player_id, connection_id, _), result in zip(jobs, results, strict=True):
        if result is None:
            sent += 1
        elif result is SKIPPED:
            deps.count("FanOutSkipped", 1)  # out of time: the client will ask for a snapshot
        elif isinstance(result, ConnectionGone):
            gone.append((player_id, connection_id))
        else:
            deps.count("FanOutFailures", 1)
            deps.warn("could not post an update", {"table_id": record.table_id,
                                                   "connection_id": connection_id,
                                                   "version": record.seq,
                                                   "error": type(result).__name__})
    if sent:
        deps.count("MessagesSent", sent)
    return gone


class Skipped:
    """A post not started: too little of the invocation left."""


SKIPPED = Skipped()


def _post(deps: Deps, connection_id: str, message: dict[str, Any]) -> Exception | Skipped | None:
    """One post: ``None`` when sent, :data:`SKIPPED`, or the exception it raised (what is
    not an :class:`Exception`, a process dying, is raised)."""
    if deps.deadline.remaining_ms() < AWS_CALL_WORST_MS:
        return SKIPPED
    try:
        deliver(deps, connection_id, message)
    except Exception as error:
        return error
    return None


def post_all(deps: Deps, posts: list[tuple[str, dict[str, Any]]],
              pool: ThreadPoolExecutor | None = None) -> list[Exception | Skipped | None]:
    """Every post's result, in order. Concurrently on *pool* (the shared fan-out pool by
    default; each post in a copy of this thread's context: the invocation's deadline and log
    keys), or in order here."""
    if len(posts) <= 1 or not deps.parallel_fan_out:
        return [_post(deps, connection_id, message) for connection_id, message in posts]
    pool = pool or _executor()
    futures = [pool.submit(contextvars.copy_context().run, _post, deps, connection_id, message)
               for connection_id, message in posts]
    return [future.result() for future in futures]


class Updates:
    """The ``update`` messages of one fan-out. The spectators' view (the public part) is
    made once and serialised once; a seat's view is made per recipient (its own cards, its
    prompt) and serialised against the public one: every part equal to the public part's
    reuses its JSON, only what differs is serialised again. Events are serialised once each.
    Each message is an :class:`~naiko_service.ports.Encoded`: the dict, and the exact bytes
    :func:`naiko_service.aws.gateway.encode_message` would make of it."""

    def __init__(self, record: TableRecord, events: list[Event], now: int | None = None):
        self.record = record
        self.now = now
        self.public = table_view(record, None)
        self.events = [(event, event.to_dict()) for event in events]
        self._event_json: dict[int, str] = {}
        self._json: dict[int, str] = {}
        self._head = (f'{{"type":"update","table_id":{_dumps(record.table_id)},'
                      f'"version":{record.seq}')
        self._commitment: DeckCommitment | None = None  # R10.2: built once, when needed

    def message(self, player_id: str | None, request_id: str | None = None) -> Encoded:
        """The update *player_id* gets (with *request_id*: the answer to its request);
        ``None``: the one every spectator gets (the public view, and only the events nobody in
        particular is told of: :func:`.spectators.publish`)."""
        record = self.record
        seat_index = None if player_id is None else record.seat_of(player_id)
        if player_id is None:
            view = self.public
        else:
            view = (with_required_buy_in(self.public, record, player_id, self.now)
                    if seat_index is None else table_view(record, seat_index))
        own = viewer_seat(record.state, seat_index)  # never an earlier occupant's private events
        visible = [i for i, (event, _) in enumerate(self.events)
                   if event.visible_to(own, player_id)]
        message: dict[str, Any] = {"type": "update", "table_id": record.table_id,
                                   "version": record.seq,
                                   "events": [self.events[i][1] for i in visible],
                                   "view": view}
        tail = "}"
        proofs = self._proofs([self.events[i][0] for i in visible])
        if proofs:  # R10.2: the proofs of the cards these events show this recipient
            message["proofs"] = proofs
            tail = f',"proofs":{_dumps(proofs)}}}'
        if request_id is not None:  # the answer: applied now, never a replay (see replay)
            message["request_id"] = request_id
            message["replayed"] = False
            tail = tail[:-1] + f',"request_id":{_dumps(request_id)},"replayed":false}}'
        text = (f'{self._head},"events":[{",".join(self._event(i) for i in visible)}],'
                f'"view":{self._like(view, self.public)}{tail}')
        try:
            data = text.encode()
        except UnicodeEncodeError:  # a lone surrogate: escaped, as encode_message does
            data = json.dumps(message, separators=(",", ":")).encode()
        return Encoded(message, data)

    def _proofs(self, shown: list[Event]) -> list[dict[str, Any]]:
        """R10.2: the inclusion proofs of the cards *shown* (one recipient's events) show."""
        hand = self.record.state.hand
        if hand is None or hand.commitment is None or not cards_in(shown):
            return []
        self._commitment = self._commitment or commitment_of(hand)
        return proofs_for_events(hand, shown, self._commitment)

    def _event(self, index: int) -> str:
        text = self._event_json.get(index)
        if text is None:
            text = self._event_json[index] = _dumps(self.events[index][1])
        return text

    def _like(self, value: Any, public: Any) -> str:
        """*value* as JSON, reusing the JSON of the parts of *public* it equals."""
        if value is public or (type(value) is type(public) and value == public):
            text = self._json.get(id(public))
            if text is None:
                text = self._json[id(public)] = _dumps(public)
            return text
        if type(value) is dict and type(public) is dict \
                and all(type(key) is str for key in value):
            return "{" + ",".join(
                f"{_dumps(key)}:{self._like(item, public[key]) if key in public else _dumps(item)}"
                for key, item in value.items()) + "}"
        if type(value) is list and type(public) is list and len(value) == len(public):
            return "[" + ",".join(self._like(item, base)
                                  for item, base in zip(value, public, strict=True)) + "]"
        return _dumps(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def send(deps: Deps, connection_id: str, message: dict[str, Any]) -> None:
    """Send one message to one connection; a failure (gone or otherwise) is counted and
    logged, never raised: the client can always recover with a snapshot."""
    if deps.deadline.remaining_ms() < AWS_CALL_WORST_MS:
        deps.count("FanOutSkipped", 1)
        return
    try:
        deliver(deps, connection_id, message)
    except ConnectionGone:
        deps.count("ConnectionsGone", 1)
    except Exception as error:
        deps.count("FanOutFailures", 1)
        deps.warn("could not post a reply", {"connection_id": connection_id,
                                             "error": type(error).__name__})


REPLY_TOO_LARGE = "reply_too_large"
"""The ``error`` a client gets instead of a message that would not fit a frame (ask for a
page: ``limit``, docs/protocol.md "Pages")."""


def deliver(deps: Deps, connection_id: str, message: dict[str, Any]) -> None:
    """THE send point: post *message* to one connection, serialised once (an
    :class:`~naiko_service.ports.Encoded` message is serialised already) and measured in UTF-8
    bytes. A message over :data:`~naiko_service.protocol.MAX_FRAME_BYTES` is NOT posted (API
    Gateway would refuse it, and a client never learns why): it is logged as an error with its
    type and size, counted ``MessagesOversize``, and the connection gets an ``error``
    ``reply_too_large`` (with the message's ``request_id``) instead. Every post of the service
    comes here: the fan-out (:func:`post_updates`), the replies (:func:`send`) and the message
    handler's own error frames (``functions/game/app.py``).

    :raises ConnectionGone: If the connection no longer exists (the gateway's errors pass
        unchanged)."""
    encoded = Encoded.of(message)
    size = len(encoded.data)
    if size > p.MAX_FRAME_BYTES:
        kind = str(message.get("type"))
        deps.count("MessagesOversize", 1)
        deps.error("a message over the frame limit was not sent",
                   {"connection_id": connection_id, "message_type": kind, "bytes": size,
                    "limit": p.MAX_FRAME_BYTES})
        request_id = message.get("request_id")
        encoded = Encoded.of(p.error_message(
            REPLY_TOO_LARGE, f"the reply ({kind}, {size} bytes) is larger than a frame "
            f"({p.MAX_FRAME_BYTES} bytes); ask for a smaller page",
            request_id if isinstance(request_id, str) else None,
            type=kind, size=size, limit=p.MAX_FRAME_BYTES))
    deps.gateway.send(connection_id, encoded)
