"""Play a short, real session through the in-memory service and print one example of every
client request, every server message, every event kind that occurred and every error code
that occurred, as JSON.

Nothing here is invented: every frame goes through :func:`naiko_service.protocol.parse_request`
and :class:`naiko_service.usecases.TableService` exactly as the WebSocket handler sends it, and
every message printed is one the service sent to a connection. ``docs/protocol.md`` takes its
examples from this output::

    python scripts/protocol_examples.py                # the examples, as one JSON object
    python scripts/protocol_examples.py --transcript   # every frame in and out, in order

The session: alice creates a Naiko table; a spectator lists tables; alice, bob and carol join
(bob replays his join); the spectator watches (snapshot); a few bad frames and refused requests;
then hands are played, choosing moves from the prompt, until a Peek, a Sleeve Swap, a Short
Anchor let through with ``pass_window`` and one answered with ``shield`` have happened, plus a
raise, a decision clock running out, a disconnection with the reconnection grace and a
reconnection; between hands bob sits out and back in and alice adds chips; in the last hand
alice leaves while still in it. Then the room around cash tables (R7.7-R7.12,
:func:`_entering`, :func:`_home_game`, :func:`_quick_seat`): newcomers posting or waiting for
the big blind and a player back from sitting out posting a live big blind and a dead small one;
alice's private table with an invite code, a BOT, a waiting list whose seat offer expires and is
taken, a new host and a close; a quick seat, a rathole and the account. Last the tournaments
(R9, :func:`_spin`, :func:`_cancelled`): grace lists a Spin with bots on, erin registers,
unregisters and registers again, grace fills it with a BOT, which starts it; erin sits out for
the first hand (dealt in and folded at once, R9.4) and comes back; everybody shoves until one
player is left, who is paid the prize; dave lists a Sit & Go, two register, and he cancels it.
At the end (R10.1, :func:`_histories`) carol reads her hands, two at a time, and one in full;
dave, who only watched, may not, and stops watching it (``unwatch``).
``tests/unit/test_protocol.py`` validates every message the session sent against the message
models.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "layers" / "engine", ROOT / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from naiko.cards import seeded_random  # noqa: E402
from naiko_service.protocol import ProtocolError, error_message, parse_request  # noqa: E402
from naiko_service.tournament_records import HOUSE_PRIZES  # noqa: E402
from naiko_service.usecases.private import HOUSE_BOTS  # noqa: E402
from naiko_service.usecases.tournament_start import START_DELAY_MS  # noqa: E402
from service_testing import Harness, harness  # noqa: E402

SEED = 7
"""The harness's shuffle and button seed: the session is the same on every run."""

MAX_HANDS = 12
"""Give up (and fail) if the goals are not all reached within this many hands."""

GOALS = ("peek", "sleeve_swap", "anchor_passed", "anchor_shielded", "raise", "timed_out",
         "reconnect")

ROOM_GOALS = ("post", "dead", "offer_expired", "host_changed", "closed", "rathole")
"""What the cash-room part of the session must show (R7.8-R7.12)."""

TOURNAMENT_GOALS = ("started", "level", "absent", "eliminated", "finished", "paid",
                    "cancelled", "refunded")
"""What the tournament part of the session must show (R9.1-R9.5, R9.9, R9.10)."""

BANK_GOALS = ("pre_action", "stale", "time_bank", "bank_empty", "pre_acted")
"""What the time-bank part of the session must show (R8.7, R8.8)."""

TOURNAMENT_SEED = 20
"""The tournaments draw from a source of their own (seats, button, the Spin's multiplier, the
cards), so that what they show does not depend on how many cards the cash tables dealt."""

TOURNAMENT_START_MS = 1_700_000_200_000
"""The clock when the tournament part begins (a round time, later than the cash part ends), so
that its times do not depend on how long the cash tables played."""

TOURNAMENT_FIRST_REQUEST = 201
"""The tournament part's request ids count from here (``grace-0201``...), whatever number of
requests the cash part sent before."""

MAX_TOURNAMENT_HANDS = 30
"""Give up (and fail) if the Spin has not finished within this many hands."""

REPLIES = ("ack", "error", "snapshot", "tables", "account", "table_found", "tournaments",
           "tournament", "tournament_players", "tournament_results", "standings", "hands",
           "hand", "heartbeat")
"""Message types that answer a request (``invite_code`` follows the ``ack`` of
``create_invite_code``); an ``update`` (or a ``chat``, R8.9) answers one when it carries its
``request_id``."""

EVENT_VARIANTS = {"blind_posted": "blind", "left_table": "reason", "table_closed": "reason",
                  "settings_changed": "pending", "table_paused": "paused",
                  "entry_chosen": "entry"}
"""Event kinds whose first example of each value of a field is kept as well (a blind posted
``"post"`` and one ``"dead"``, a pause and a resume...)."""


@dataclass
class Client:
    """A player's WebSocket connection, as a client program would drive it."""

    session: Session
    player_id: str
    connection_id: str

    def send(self, *, example: bool = False, **frame: Any) -> dict[str, Any]:
        """Send one request frame; return the service's reply to it (ack, error, snapshot or
        tables). ``example`` makes this frame the printed example of its action."""
        frame.setdefault("request_id", self.session.next_request_id(self.player_id))
        frame = {"action": frame.pop("action"), **frame}
        return self.send_raw(json.dumps(frame), frame=frame, example=example)

    def exchange(self, **frame: Any) -> dict[str, Any]:
        """Send one request frame; return ``{"request": the frame, "reply": the reply}``
        (an example worth showing besides the one of its action)."""
        frame.setdefault("request_id", self.session.next_request_id(self.player_id))
        reply = self.send(**frame)
        return {"request": {"action": frame.pop("action"), **frame}, "reply": reply}

    def send_raw(self, body: str, *, frame: dict[str, Any] | None = None,
                 example: bool = False) -> dict[str, Any]:
        s = self.session
        shown: Any = frame if frame else body
        if len(body) > 200:  # keep the transcript readable
            shown = f"{body[:40]}... ({len(body.encode())} bytes)"
        s.transcript.append({"from": self.player_id, "request": shown})
        before = len(self.messages)
        try:
            request = parse_request(body)
        except ProtocolError as error:
            # What the message handler does with a frame it cannot parse.
            s.harness.gateway.send(self.connection_id, error_message(
                error.code, error.message, error.request_id))
        else:
            s.harness.service.handle(self.connection_id, self.player_id, request)
        reply = next(m for m in self.messages[before:] if m["type"] in REPLIES
                     or (m["type"] in ("update", "chat") and m.get("request_id") is not None))
        if frame is not None and (example or reply["type"] != "error"):
            action = frame["action"]
            if example or action not in s.requests:
                s.requests[action] = {"request": frame, "reply": reply}
        return reply

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.session.harness.gateway.sent[self.connection_id]

    def view(self, table_id: str | None = None) -> dict[str, Any]:
        """The newest view of *table_id* (the session's first table by default) this
        connection received (snapshot or update)."""
        table_id = table_id or self.session.table_id
        return next(m["view"] for m in reversed(self.messages)
                    if "view" in m and m["table_id"] == table_id)


@dataclass
class Session:
    """The recorded session: the harness, every frame, and the examples picked from it."""

    harness: Harness
    table_id: str = ""
    home_id: str = ""
    """alice's private table (:func:`_home_game`)."""
    spin_id: str = ""
    """grace's Spin (:func:`_spin`)."""
    spin_table: str = ""
    """The Spin's table."""
    sng_id: str = ""
    """dave's Sit & Go, cancelled (:func:`_cancelled`)."""
    chat_id: str = ""
    """erin's table where people chat (:func:`_chat`, R8.9)."""
    transcript: list[dict[str, Any]] = field(default_factory=list)
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    """action -> {"request": the frame, "reply": the service's reply}."""
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    """type -> one message (the most telling one, see :func:`play`)."""
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)
    """More messages worth showing (a spectator's snapshot, a replayed ack...)."""
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    """kind -> {"seen_by": player, "event": the first event of that kind}."""
    event_variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    """"kind field=value" -> the first such event (:data:`EVENT_VARIANTS`)."""
    errors: dict[str, dict[str, Any]] = field(default_factory=dict)
    """code -> {"request": the frame, "error": the error message}."""
    done: set[str] = field(default_factory=set)
    clients: dict[str, Client] = field(default_factory=dict)
    _by_connection: dict[str, str] = field(default_factory=dict)
    _request_counter: int = 0

    def next_request_id(self, player_id: str) -> str:
        self._request_counter += 1
        return f"{player_id}-{self._request_counter:04d}"

    def connect(self, player_id: str, chips: int = 10_000, *, primary: bool = True) -> Client:
        """A player opens a connection (the authorizer verified its token: ``$connect``).
        ``primary=False``: a second connection of a known player, for another table (a
        connection watches one table here, so that its versions read in order); it does not
        replace the player's connection to the first table in :attr:`clients`."""
        h = self.harness
        known = player_id in self._by_connection.values()
        if known:
            connection_id = f"conn-{player_id}-s{len(self._by_connection) + 1}"  # not h.player's
            h.service.connect(connection_id, player_id)
        else:
            connection_id = h.player(player_id, chips).connection_id
        client = Client(self, player_id, connection_id)
        if primary or not known:
            self.clients[player_id] = client
        self._by_connection[connection_id] = player_id
        return client

    def record(self, connection_id: str, message: dict[str, Any]) -> None:
        """Called for every message the gateway delivers."""
        player = self._by_connection.get(connection_id, connection_id)
        self.transcript.append({"to": player, "message": message})
        if message["type"] == "error":
            request = next((t["request"] for t in reversed(self.transcript)
                            if t.get("from") == player), None)
            self.errors.setdefault(message["code"], {"request": request, "error": message})
        for event in message.get("events", ()):
            self.events.setdefault(event["kind"], {"seen_by": player, "event": event})
            variant = EVENT_VARIANTS.get(event["kind"])
            if variant is not None:
                key = f"{event['kind']} {variant}={json.dumps(event[variant])}"
                self.event_variants.setdefault(key, {"seen_by": player, "event": event})

    def client_at(self, seat_index: int) -> Client:
        seat = self.clients["dave"].view()["seats"][seat_index]
        return self.clients[seat["player_id"]]


def play(seed: int = SEED) -> Session:
    """Play the session; return it with its examples."""
    h = harness(seed)
    # The examples' BOT plays as the first bot: the committed examples were made with it.
    h.service.deps.bot_level = "old"
    s = Session(h)
    deliver = h.gateway.send

    def send(connection_id: str, message: dict[str, Any]) -> None:
        deliver(connection_id, message)
        s.record(connection_id, message)

    h.gateway.send = send  # type: ignore[method-assign]

    alice, bob, carol = s.connect("alice"), s.connect("bob"), s.connect("carol")
    dave = s.connect("dave")  # a spectator

    ack = alice.send(action="create_table", name="Friday Naiko", variant="NAIKO", seat_count=4,
                     small_blind=5, big_blind=10, min_buy_in=200, max_buy_in=1000,
                     decision_seconds=20)
    s.table_id = table = ack["table_id"]
    s.messages["ack"] = ack  # a new table: nobody watches it yet, so no update answers
    dave.send(action="list_tables")
    # joining subscribes alice's connection: the update she gets is her answer
    s.extras["update (the answer to a request)"] = alice.send(action="join_table",
                                                              table_id=table, buy_in=500)
    bob.send(action="join_table", table_id=table, buy_in=500, request_id="bob-join-1")
    # The connection dropped before the ack arrived: the client sends the same frame again.
    s.extras["ack (replayed)"] = bob.send(action="join_table", table_id=table, buy_in=500,
                                          request_id="bob-join-1")
    carol.send(action="join_table", table_id=table, buy_in=500, seat_index=3, example=True)
    s.extras["snapshot (spectator)"] = dave.send(action="snapshot", table_id=table)

    _bad_frames(s, table)
    for _ in range(MAX_HANDS):
        _play_hand(s, table, last=s.done >= set(GOALS))
        if "left" in s.done:
            break
        _between_hands(s, table)
    missing = set(GOALS) - s.done
    if missing or "left" not in s.done:
        raise RuntimeError(f"the session did not reach {sorted(missing) or ['leave']}")
    _entering(s, table)
    _home_game(s)
    _quick_seat(s)
    missing = set(ROOM_GOALS) - s.done
    if missing:
        raise RuntimeError(f"the session did not reach {sorted(missing)}")
    _time_bank(s)
    missing = set(BANK_GOALS) - s.done
    if missing:
        raise RuntimeError(f"the session did not reach {sorted(missing)}")
    _spin(s)
    _cancelled(s)
    missing = set(TOURNAMENT_GOALS) - s.done
    if missing:
        raise RuntimeError(f"the session did not reach {sorted(missing)}")
    _histories(s)
    _devices(s)
    s.messages["heartbeat"] = s.clients["dave"].send(action="heartbeat", example=True)
    _chat(s)
    _pages(s)
    _reentry(s)
    _deal(s)
    s.messages.setdefault("tables", s.requests["list_tables"]["reply"])
    return s


def _deal(s: Session) -> None:
    """R9.16, last (the request ids before it stay as they were): ops list a 3-seat Sit & Go
    whose terms publish deals (3 players, 10 % kept for the winner, a 60 s clock); heidi, ivan
    and judy register and, in the first hand, all three ask for a deal. After that hand the
    table holds and offers the ICM and chip-count splits; heidi accepts ICM, ivan declines:
    play resumes. They ask again; all three accept the chip-count split of the next offer, and
    it is paid (play goes on for the 10 % kept)."""
    from dataclasses import replace

    from naiko.state import Variant
    from naiko.tournaments.structures import DealTerms, from_preset
    from naiko_service.usecases import tournaments

    h = s.harness
    deps = h.service.deps
    terms = replace(from_preset("sng_6max_turbo", 100, Variant.NLHE), seat_count=3,
                    min_players=3, max_players=3, deals=DealTerms(3, 10, 60))
    tid = "sng-deal"
    tournaments.create(deps, tid, "Deal Sit & Go", terms, "ops")
    clients = [s.connect(name, primary=False) for name in ("heidi", "ivan", "judy")]
    tournaments.enter(deps, None, tid, [tournaments.Entrant(c.player_id, c.player_id,
                                                            connection_id=c.connection_id)
                                        for c in clients])
    _tick(s, START_DELAY_MS)
    table = deps.tournaments.load(tid).tables[0]  # type: ignore[union-attr]

    def offer_id() -> str:
        for _ in range(600):
            info = h.store.load(table).tournament
            if info is not None and info.deal is not None and info.deal.offer is not None:
                return info.deal.offer.offer_id
            _tick(s, 1_000)
        raise RuntimeError("no deal was offered")

    for n, client in enumerate(clients):
        client.send(action="ask_deal", table_id=table, example=n == 0)
    first = offer_id()
    clients[0].send(action="accept_deal", table_id=table, offer_id=first, split="icm")
    clients[1].send(action="decline_deal", table_id=table, offer_id=first, example=True)
    for client in clients:
        client.send(action="ask_deal", table_id=table)
    second = offer_id()
    for n, client in enumerate(clients):
        client.send(action="accept_deal", table_id=table, offer_id=second, split="chip_count",
                    example=n == 2)


def _reentry(s: Session) -> None:
    """R9.12: ops list a scheduled tournament with two entries per player and late
    registration; erin and eleven BOTs register (two tables, then the final table), every
    stack one big blind, so the blinds put players all in at once. erin is eliminated while
    late registration is open and enters again (``reenter``: the entry paid again, a new
    starting stack)."""

    from dataclasses import replace

    from naiko.state import Variant
    from naiko.tournaments.structures import from_preset
    from naiko_service.usecases import tournaments

    h = s.harness
    deps = h.service.deps
    terms = replace(from_preset("mtt_turbo", 100, Variant.NLHE), seat_count=6, min_players=2,
                    bots_allowed=True, starting_stack=100, late_registration_level=8,
                    entries_per_player=2)
    tid = "mtt-reentry"
    tournaments.create(deps, tid, "Re-entry turbo", terms, "ops",
                       starts_ms=h.clock.now + 60_000)
    # registered without a connection: the one she re-enters from watches her new table only
    tournaments.enter(deps, None, tid, [tournaments.Entrant("erin", "erin")])
    h.accounts.grant(HOUSE_BOTS, 1_100)
    tournaments.enter(deps, None, tid, [tournaments.Entrant(f"bot-{900 + n}", HOUSE_BOTS, True)
                                        for n in range(11)])
    _tick(s, 60_000 + START_DELAY_MS)
    for _ in range(4_000):
        record = deps.tournaments.load(tid)  # type: ignore[union-attr]
        if any(o["player_id"] == "erin" for o in record.late):
            break
        _tick(s, 200)
    else:
        raise RuntimeError("erin was not eliminated during late registration")
    erin = s.connect("erin", primary=False)
    erin.send(action="reenter", tournament_id=tid, example=True)


def _chat(s: Session) -> None:
    """R8.9, last (so that the request ids before it stay as they were): at a table of her
    own, erin says hello to the table, dave (watching) answers with an emote; erin mutes dave,
    whose next emote she no longer gets, then unmutes him. frank, who does not watch the table,
    may not chat there (``not_watching``); at a table whose chat is off, nobody may
    (``chat_off``)."""
    erin = s.connect("erin", primary=False)
    dave, frank = s.connect("dave", primary=False), s.connect("frank", primary=False)
    ack = erin.send(action="create_table", name="Rail talk", small_blind=1, big_blind=2,
                    min_buy_in=40, max_buy_in=200, chat="apart")
    s.chat_id = table = ack["table_id"]
    erin.send(action="join_table", table_id=table, buy_in=100)
    dave.send(action="snapshot", table_id=table)
    s.messages["chat"] = erin.send(action="chat", table_id=table, text="good luck all",
                                   example=True)
    s.extras["chat (an emote)"] = dave.send(action="emote", table_id=table, emote="clap",
                                            example=True)
    erin.send(action="chat_mute", player_id="dave", example=True)
    dave.send(action="emote", table_id=table, emote="laugh")  # erin does not get this one
    erin.send(action="chat_unmute", player_id="dave", example=True)
    frank.send(action="chat", table_id=table, text="hello?")  # not_watching
    quiet = erin.send(action="create_table", name="Quiet table", small_blind=1, big_blind=2,
                      min_buy_in=40, max_buy_in=200, chat="off")["table_id"]
    erin.send(action="join_table", table_id=quiet, buy_in=100)
    erin.send(action="chat", table_id=quiet, text="anyone?")  # chat_off


def _pages(s: Session) -> None:
    """dave pages through the Spin's players one at a time (docs/protocol.md "Pages"), tries a
    cursor that is no list's (``bad_cursor``), and reads its results."""
    dave = s.clients["dave"]
    first = dave.send(action="tournament_players", tournament_id=s.spin_id, limit=1)
    s.messages["tournament_players"] = first
    s.extras["tournament_players (the next page)"] = dave.exchange(
        action="tournament_players", tournament_id=s.spin_id, limit=1, cursor=first["next"])
    dave.send(action="tournament_players", tournament_id=s.spin_id,
              cursor="bm90LWEtY3Vyc29y")  # bad_cursor
    s.messages["tournament_results"] = dave.send(action="tournament_results",
                                                 tournament_id=s.spin_id)
    s.messages["standings"] = dave.send(action="get_standings", tournament_id=s.spin_id,
                                        limit=2)
    s.extras["standings (the tables section)"] = dave.exchange(
        action="get_standings", tournament_id=s.spin_id, section="tables")


def _bad_frames(s: Session, table: str) -> None:
    """Frames the parser refuses, and requests the service or the engine refuses."""
    bob, dave = s.clients["bob"], s.clients["dave"]
    bob.send_raw('{"action": "act", "table_id": ')
    bob.send_raw(json.dumps({"action": "act", "request_id": "bob-x0", "table_id": table,
                             "move": "fold", "note": "x" * 33_000}))
    bob.send_raw(json.dumps({"action": "raise", "request_id": "bob-x1", "table_id": table}))
    bob.send_raw(json.dumps({"action": "act", "request_id": "bob-x2", "table_id": table,
                             "move": "raise_to", "amount": -20}))
    hand = dave.view()["hand"]
    idle = next(c for c in (s.clients[p] for p in ("alice", "bob", "carol"))
                if c.view()["seat_index"] != hand["actor"])
    s.messages["error"] = idle.send(action="act", table_id=table, move="call")
    dave.send(action="leave_table", table_id=table)
    dave.send(action="snapshot", table_id="t00000000000000000000")
    actor = s.client_at(hand["actor"])
    actor.send(action="act", table_id=table, move="raise_to",
               amount=actor.view()["prompt"]["min_raise_to"] - 1)
    actor.send(action="pass_window", table_id=table)
    target = next(i for i, seat in enumerate(actor.view()["seats"])
                  if seat and i != hand["actor"])
    actor.send(action="use_power", table_id=table, power="short_anchor", target_seat=target)


def _play_hand(s: Session, table: str, last: bool) -> None:
    dave = s.clients["dave"]
    if last:  # alice leaves while she is still in the hand
        view = s.clients["alice"].view()
        if view["hand"]["actor"] != view["seat_index"]:
            s.clients["alice"].send(action="leave_table", table_id=table)
            s.done.add("left")
    for _ in range(100):
        hand = dave.view()["hand"]
        if hand["complete"]:
            return
        actor = s.client_at(hand["actor"])
        if _try_power(s, table, actor) or _try_clock(s, actor):
            continue
        prompt = actor.view()["prompt"]
        if last and hand["street"] != "preflop":
            # Someone bets, the other folds: the uncalled bet goes back, the pot is unseen.
            if "bet" in prompt["actions"]:
                actor.send(action="act", table_id=table, move="bet",
                           amount=prompt["min_raise_to"])
            else:
                actor.send(action="act", table_id=table, move="fold")
            continue
        if "raise" not in s.done and "raise_to" in prompt["actions"] and prompt["to_call"]:
            actor.send(action="act", table_id=table, move="raise_to",
                       amount=prompt["min_raise_to"], example=True)
            s.done.add("raise")
            nxt = dave.view()["hand"]["actor"]
            if nxt is not None:
                s.messages["update"] = s.client_at(nxt).messages[-1]
            continue
        move = "check" if "check" in prompt["actions"] else "call"
        actor.send(action="act", table_id=table, move=move)
    raise RuntimeError("the hand did not end")


def _try_power(s: Session, table: str, actor: Client) -> bool:
    """Use the next power the session still needs, if the prompt offers it."""
    view = actor.view()
    prompt, powers = view["prompt"], view["hand"]["powers"]
    if "snapshot" not in s.messages and prompt["powers"]:
        # Any client may ask for the whole table again (after a version gap, say).
        s.messages["snapshot"] = actor.send(action="snapshot", table_id=table, example=True)
    if "peek" in prompt["powers"] and "peek" not in s.done:
        actor.send(action="use_power", table_id=table, power="peek")
        s.done.add("peek")
        return True
    if "sleeve_swap" in prompt["powers"] and "sleeve_swap" not in s.done:
        actor.send(action="use_power", table_id=table, power="sleeve_swap", card_index=1)
        s.done.add("sleeve_swap")
        return True
    wanted = [g for g in ("anchor_passed", "anchor_shielded") if g not in s.done]
    if "short_anchor" not in prompt["powers"] or not wanted \
            or "seal_shield" not in powers["carousel"]:
        return False
    for target in prompt["anchor_targets"]:
        seat = view["seats"][target]
        if seat["destellos"] >= 1 and "seal_shield" not in powers["used"].get(str(target), []):
            actor.send(action="use_power", table_id=table, power="short_anchor",
                       target_seat=target, example=True)
            answer = "pass_window" if wanted[0] == "anchor_passed" else "shield"
            s.client_at(target).send(action=answer, table_id=table)
            s.done.add(wanted[0])
            return True
    return False


def _try_clock(s: Session, actor: Client) -> bool:
    """Let a decision clock run out (R8.1), or disconnect carol on her turn and bring her back
    during the grace period (R8.2, R8.3)."""
    h = s.harness
    decision_ms = actor.view()["settings"]["decision_ms"]
    if "timed_out" not in s.done and actor.player_id == "bob" \
            and {"peek", "raise"} <= s.done:
        h.clock.advance(decision_ms)
        h.fire_due_timers()
        s.done.add("timed_out")
        return True
    if "reconnect" not in s.done and actor.player_id == "carol" and "timed_out" in s.done:
        h.service.disconnect(actor.connection_id)  # $disconnect
        h.clock.advance(decision_ms)
        h.fire_due_timers()  # the clock ran out while disconnected: 20 s of grace
        h.clock.advance(5_000)
        carol = s.connect("carol")  # a new connection, the same verified player
        s.extras["snapshot (reconnect)"] = carol.send(action="snapshot", table_id=s.table_id)
        s.done.add("reconnect")
        return True
    return False


def _between_hands(s: Session, table: str) -> None:
    h = s.harness
    alice, bob = s.clients["alice"], s.clients["bob"]
    if "sit_out" not in s.done:
        bob.send(action="sit_out", table_id=table)
        bob.send(action="sit_in", table_id=table)
        alice.send(action="add_chips", table_id=table, amount=100)
        s.done.add("sit_out")
    h.clock.advance(3_000)  # the pause between hands
    h.fire_due_timers()


# -- cash rooms (R7.7-R7.12) ---------------------------------------------------------------------

def _tick(s: Session, ms: int) -> None:
    """Time passes: every timer due by then fires (as Step Functions would), including the ones
    armed by what the first ones did."""
    s.harness.clock.advance(ms)
    while s.harness.fire_due_timers():
        pass


def _play_out(s: Session, watcher: Client, table: str, clients: dict[str, Client],
              fold: bool = False) -> None:
    """Everyone checks when they can and folds otherwise (*fold*: everyone folds) until the
    hand is over (a BOT is given its think time). *clients*: each player's connection to
    *table*."""
    for _ in range(100):
        view = watcher.view(table)
        hand = view["hand"]
        if hand is None or hand["complete"]:
            return
        seat = view["seats"][hand["actor"]]
        if seat["is_bot"]:
            _tick(s, 1_000)  # a BOT's turn: it acts on its timer
            continue
        actor = clients[seat["player_id"]]
        prompt = actor.view(table)["prompt"]
        move = "check" if "check" in prompt["actions"] and not fold else "fold"
        actor.send(action="act", table_id=table, move=move)
    raise RuntimeError("the hand did not end")


def _entering(s: Session, table: str) -> None:
    """R7.8, R7.9 at the first table once alice has gone (bob, carol and two free seats; the
    hand before had 3 players, so the table is not starting): erin sits down and posts to be
    dealt in at once, grace waits for the big blind (it reaches her at once); bob sits out
    while the blinds go past him and comes back owing both: he chooses to post, waits while
    his seat lies between the button and the small blind, then posts the big blind live and
    the small one dead. Then the table winds down: erin and grace leave, carol sits out."""
    bob, carol, dave = s.clients["bob"], s.clients["carol"], s.clients["dave"]
    bob.send(action="choose_entry", table_id=table, entry="post")  # nothing_owed
    erin, grace = s.connect("erin"), s.connect("grace")
    s.extras["join_table (post)"] = erin.exchange(action="join_table", table_id=table,
                                                  buy_in=500, seat_index=0, entry="post")
    grace.send(action="join_table", table_id=table, buy_in=500, seat_index=2)
    s.extras["view (newcomers)"] = dave.view()
    _tick(s, 3_000)  # the pause after alice's last hand: hand 6
    _play_out(s, dave, table, s.clients)
    bob.send(action="sit_out", table_id=table)
    for _ in range(8):  # the blinds go round without bob
        _tick(s, 3_000)
        _play_out(s, dave, table, s.clients)
        me = dave.view()["seats"][1]
        if me["owes_big"] and me["owes_small"]:
            break
    else:
        raise RuntimeError("bob never missed the blinds")
    s.extras["view (missed blinds)"] = dave.view()
    bob.send(action="sit_in", table_id=table)
    bob.send(action="choose_entry", table_id=table, entry="post", example=True)
    for _ in range(4):  # bob waits while his seat lies between the button and the small blind
        _tick(s, 3_000)
        if dave.view()["seats"][1]["in_hand"]:
            break
        _play_out(s, dave, table, s.clients)
    posted = {k.split("=")[1].strip('"') for k in s.event_variants
              if k.startswith("blind_posted ")}
    s.done |= {"post", "dead"} & posted
    _play_out(s, dave, table, s.clients)
    _tick(s, 3_000)
    _play_out(s, dave, table, s.clients, fold=True)  # no showdown: the table winds down
    erin.send(action="leave_table", table_id=table)
    grace.send(action="leave_table", table_id=table)
    carol.send(action="sit_out", table_id=table)
    _tick(s, 3_000)


def _home_game(s: Session) -> None:
    """R7.10, R7.12: alice hosts a private 3-seat table with bots on (2 players start it). The
    table is paused while she sets it up; dave comes in with an invite code, which she then
    revokes; she invites erin, changes the blinds, seats a BOT. The table is full: bob and erin
    join its waiting list (bob leaves it and queues again, after erin). She resumes it; during
    the first hand she changes the clock (from the next hand). Between hands she removes the
    BOT: the seat is offered to erin, who lets the offer expire, then to bob, who takes it.
    alice leaves: dave, seated longest, becomes the host; he closes the table during a hand,
    and every stack goes back when it ends.

    Each player uses a connection of its own here (a connection watches one table in this
    session, so that the versions it receives read in order)."""
    h = s.harness
    h.accounts.grant(HOUSE_BOTS, 1_000)  # the house's BOT account (R8.4)
    alice, dave, erin, bob = (s.connect(p, primary=False)
                              for p in ("alice", "dave", "erin", "bob"))
    frank = s.connect("frank")
    clients = {c.player_id: c for c in (alice, dave, erin, bob)}
    s.extras["create_table (private)"] = alice.exchange(
        action="create_table", name="Alice's home game", variant="NLHE", seat_count=3,
        small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=200, private=True,
        invited=["bob"], bots=True, min_players=2)
    home = s.home_id = s.extras["create_table (private)"]["reply"]["table_id"]
    alice.send(action="join_table", table_id=home, buy_in=200)
    alice.send(action="host_pause", table_id=home, paused=True)
    alice.send(action="create_invite_code", table_id=home)
    code = next(m for m in alice.messages if m["type"] == "invite_code")["code"]
    frank.send(action="snapshot", table_id=home)  # not_invited: private to watch
    dave.send(action="find_table", code="ZZZZ9999")  # bad_invite_code
    dave.send(action="find_table", code=code)
    s.extras["join_table (invite code)"] = dave.exchange(
        action="join_table", table_id=home, buy_in=200, invite_code=code)
    s.extras["view (host)"] = alice.view(home)  # the code: the host's eyes only
    s.extras["view (not the host)"] = dave.view(home)
    alice.send(action="revoke_invite_code", table_id=home)
    frank.send(action="join_table", table_id=home, buy_in=200, invite_code=code)  # revoked
    alice.send(action="invite", table_id=home, player_id="erin")
    alice.send(action="invite", table_id=home, player_id="grace")
    alice.send(action="uninvite", table_id=home, player_id="grace")  # she may not come after all
    alice.send(action="host_settings", table_id=home, small_blind=2, big_blind=4)
    alice.send(action="host_add_bot", table_id=home, buy_in=100)
    dave.send(action="host_pause", table_id=home, paused=False)  # not_host
    erin.send(action="join_table", table_id=home, buy_in=200)  # table_full
    bob.send(action="join_waitlist", table_id=home)
    erin.send(action="join_waitlist", table_id=home)
    bob.send(action="leave_waitlist", table_id=home)  # bob changes his mind...
    bob.send(action="join_waitlist", table_id=home)  # ...and queues again, after erin
    s.clients["carol"].send(action="leave_waitlist", table_id=home)  # not_waiting
    s.clients["grace"].send(action="join_waitlist", table_id=s.table_id)  # seat_available
    s.extras["view (waiting list)"] = dave.view(home)
    alice.send(action="host_pause", table_id=home, paused=False)  # hand 1 starts
    s.extras["host_settings (during a hand)"] = alice.exchange(
        action="host_settings", table_id=home, decision_seconds=30)
    _play_out(s, dave, home, clients, fold=True)
    alice.send(action="host_remove", table_id=home, player_id="bot-1")  # the seat frees
    s.extras["update (seat offered)"] = erin.messages[-1]
    _tick(s, 3_000)  # hand 2 (alice and dave; a hand goes on with 2) while the seat is held
    _tick(s, h.service.deps.offer_ms - 3_000)  # erin lets the offer go: bob's turn
    if not any(m["type"] == "update" and any(e["kind"] == "offer_expired" for e in m["events"])
               for m in erin.messages):
        raise RuntimeError("erin's offer did not expire")
    s.done.add("offer_expired")
    bob.send(action="join_table", table_id=home, buy_in=200)  # bob takes the held seat
    _play_out(s, dave, home, clients, fold=True)
    alice.send(action="leave_table", table_id=home)
    if dave.view(home)["settings"]["host"] == "dave":
        s.done.add("host_changed")
    _tick(s, 3_000)  # hand 3: dave and bob
    dave.send(action="host_close", table_id=home)
    s.extras["view (closing)"] = dave.view(home)
    _play_out(s, dave, home, clients, fold=True)
    if dave.view(home)["room"]["closed"]:
        s.done.add("closed")
    erin.send(action="join_table", table_id=home, buy_in=200)  # table_closed


def _quick_seat(s: Session) -> None:
    """R7.10, R7.11: frank asks for a seat at NLHE 1/2; no public table of those stakes has
    one, so a table is opened for him (he waits there until 3 players are in). He leaves with
    100 big blinds and comes straight back: an ordinary table only counts it (a deep-stack
    table would hold him to what he left with), and his ratholing counter for the day shows 1."""
    frank = s.clients["frank"]
    ack = frank.send(action="quick_seat", variant="NLHE", small_blind=1, big_blind=2,
                     buy_in=200)
    quick = ack["table_id"]
    frank.send(action="leave_table", table_id=quick)
    frank.send(action="join_table", table_id=quick, buy_in=100)  # counted (R7.11)
    account = frank.send(action="get_account")
    if account["ratholes_today"] == 1:
        s.done.add("rathole")
    s.messages["account"] = account
    s.messages["invite_code"] = next(m for sent in s.harness.gateway.sent.values()
                                     for m in sent if m["type"] == "invite_code")
    s.messages["table_found"] = s.requests["find_table"]["reply"]


# -- time bank and pre-actions (R8.7, R8.8) -------------------------------------------------------

def _time_bank(s: Session) -> None:
    """R8.7, R8.8: hana opens a table that publishes the room's time bank (``time_bank``:
    30 s, +5 s every 10 hands, at most 60 s) with a 10 s clock; ivan and judy join and the
    first hand is dealt. The blinds, not to act yet, queue pre-actions: the small blind a call
    at a wrong price (``price_changed``), then at the price it sees; the big blind a
    check/fold, which it clears, then a check. The button raises, which makes both stale
    (``pre_action_cleared``, each told alone). The next to act may not queue (``your_turn``):
    they start their time bank (``time_bank_started``; again: ``time_bank_running``) while
    the last queues ``call_any``; the bank runs out, the clock folds (R8.1), and the
    ``call_any`` is played at once. The hand is played out."""
    hana, ivan, judy = (s.connect(p) for p in ("hana", "ivan", "judy"))
    clients = {"hana": hana, "ivan": ivan, "judy": judy}
    ack = hana.send(action="create_table", name="Bank night", small_blind=1, big_blind=2,
                    min_buy_in=100, max_buy_in=400, decision_seconds=10, time_bank=True)
    table = ack["table_id"]
    for client in clients.values():
        client.send(action="join_table", table_id=table, buy_in=200)
    _tick(s, 0)

    def actor() -> Client:
        view = hana.view(table)
        return clients[view["seats"][view["hand"]["actor"]]["player_id"]]

    def waiting() -> list[Client]:
        first = actor()
        return [c for c in clients.values() if c is not first]

    def price(client: Client) -> int:
        view = client.view(table)
        own = view["seats"][view["seat_index"]]
        return max(seat["bet"] for seat in view["seats"] if seat) - own["bet"]

    small, big = sorted(waiting(), key=price, reverse=True)  # the blinds: 1 and 0 to call
    small.send(action="pre_action", table_id=table, kind="call", amount=price(small) + 1)
    small.send(action="pre_action", table_id=table, kind="call", amount=price(small),
               example=True)
    big.send(action="pre_action", table_id=table, kind="check_fold")
    big.send(action="clear_pre_action", table_id=table, example=True)
    big.send(action="pre_action", table_id=table, kind="check")
    s.done.add("pre_action")
    raiser = actor()
    prompt = raiser.view(table)["prompt"]
    raiser.send(action="act", table_id=table, move="raise_to", amount=prompt["min_raise_to"])
    if "pre_action_cleared" in s.events:
        s.done.add("stale")
    slow = actor()
    slow.send(action="pre_action", table_id=table, kind="fold")  # your_turn
    slow.send(action="use_time_bank", table_id=table, example=True)
    slow.send(action="use_time_bank", table_id=table)  # time_bank_running
    s.done.add("time_bank")
    last = next(c for c in waiting() if c is not slow)
    last.send(action="pre_action", table_id=table, kind="call_any")
    bank = slow.view(table)["seats"][slow.view(table)["seat_index"]]["time_bank_ms"]
    before = len(last.messages)
    _tick(s, bank)
    if slow.view(table)["seats"][slow.view(table)["seat_index"]]["time_bank_ms"] == 0:
        s.done.add("bank_empty")
    if any(e["kind"] == "action" and e.get("seat_index") == last.view(table)["seat_index"]
           for m in last.messages[before:] for e in m.get("events", ())):
        s.done.add("pre_acted")
    _play_out(s, hana, table, clients, fold=True)


# -- tournaments (R9) ----------------------------------------------------------------------------

def _spin(s: Session) -> None:
    """R9.1-R9.5, R9.9, R9.10: grace lists a Spin (``spin_3max_hyper``, entry 100, bots on);
    dave looks at the lobby. grace registers (twice: ``already_registered``); erin registers,
    unregisters (her entry comes back) and registers again; dave looks the Spin up. erin may not
    add BOTs (``not_host``); grace fills the last seat with one, whose entry the house's BOT
    account pays: the Spin starts in that write, its multiplier drawn and the prizes fixed
    (``tournament_started``, before the ``ack``), the first hand 5 s later. Too late: dave's
    registration and erin's unregistration (``registration_closed``), erin's reload
    (``tournament_table``). erin sits out before the first hand: she is dealt in, posts and is
    folded at once (R9.4), then sits in. From then on the players push all in whenever they
    can (the BOT plays its own game) until one player is left (``eliminated``,
    ``tournament_finished``); the prize is paid from the house's prize account at once (R9.10).
    dave looks the Spin up again, and the lobby lists the next Spin of the same terms.

    Each player uses a connection of its own (the registering connection watches the table)."""
    h = s.harness
    h.service.deps.rng = seeded_random(TOURNAMENT_SEED)
    h.clock.now = max(h.clock.now, TOURNAMENT_START_MS)
    s._request_counter = max(s._request_counter, TOURNAMENT_FIRST_REQUEST - 1)
    _tick(s, 0)
    h.accounts.grant(HOUSE_PRIZES, 100_000)  # ops fund the house's prize account (R9.10)
    h.accounts.grant(HOUSE_BOTS, 1_000)
    grace, erin, dave = (s.connect(p, primary=False) for p in ("grace", "erin", "dave"))
    ack = grace.send(action="create_tournament", preset="spin_3max_hyper", entry=100,
                     name="Spin 100", bots=True)
    spin = s.spin_id = ack["tournament_id"]
    s.messages["tournaments"] = dave.send(action="list_tournaments")
    grace.send(action="register", tournament_id=spin)
    grace.send(action="register", tournament_id=spin)  # already_registered
    erin.send(action="register", tournament_id=spin)
    erin.send(action="unregister", tournament_id=spin)
    erin.send(action="register", tournament_id=spin)
    s.extras["tournament (registering)"] = dave.send(action="get_tournament",
                                                     tournament_id=spin)
    erin.send(action="tournament_add_bots", tournament_id=spin)  # not_host
    before = len(grace.messages)
    grace.send(action="tournament_add_bots", tournament_id=spin)
    started = next((m for m in grace.messages[before:] if m["type"] == "update"
                    and any(e["kind"] == "tournament_started" for e in m["events"])), None)
    if started is None:
        raise RuntimeError("the Spin did not start")
    s.done.add("started")
    s.extras["update (tournament started)"] = started
    table = s.spin_table = started["table_id"]
    dave.send(action="register", tournament_id=spin)  # registration_closed
    erin.send(action="unregister", tournament_id=spin)  # registration_closed (no refund)
    erin.send(action="add_chips", table_id=table, amount=100)  # tournament_table
    erin.send(action="sit_out", table_id=table)
    _tick(s, START_DELAY_MS)  # the first hand
    first = next(m for m in grace.messages if m["type"] == "update"
                 and any(e["kind"] == "level_changed" for e in m["events"]))
    s.done.add("level")
    s.extras["update (first hand)"] = first
    clients = {"grace": grace, "erin": erin}
    _shove_out(s, grace, table, clients)
    seat = next(x for x in grace.view(table)["seats"] if x and x["player_id"] == "erin")
    if seat["sitting_out"] and any(e["kind"] == "action" and e["seat_index"] == seat[
            "seat_index"] for m in grace.messages[grace.messages.index(first):]
            if m["type"] == "update" for e in m["events"]):
        s.done.add("absent")  # dealt in and played for at once, without a clock (R9.4)
    erin.send(action="sit_in", table_id=table)
    for _ in range(MAX_TOURNAMENT_HANDS):
        tournament = grace.view(table)["tournament"]
        if tournament["players_left"] <= 1:
            break
        _tick(s, 3_000)  # the pause between hands
        _shove_out(s, grace, table, clients)
    else:
        raise RuntimeError("the Spin did not finish")
    kinds = {e["kind"] for m in grace.messages if m["type"] == "update" for e in m["events"]}
    s.done |= {"eliminated", "finished"} & {k.removeprefix("tournament_") for k in kinds}
    final = dave.send(action="get_tournament", tournament_id=spin, example=True)
    s.messages["tournament"] = final
    winner = next(data for _, data in h.service.deps.tournaments.items(spin, "result#")
                  if data["place"] == 1) if h.service.deps.tournaments else {}
    if any(e.player_id == winner["account"] and e.ref == spin and e.amount == winner["prize"]
           for e in h.accounts.ledger):
        s.done.add("paid")
    s.extras["list_tournaments (the next Spin)"] = dave.exchange(action="list_tournaments")


def _shove_out(s: Session, watcher: Client, table: str, clients: dict[str, Client]) -> None:
    """Every player goes all in when the prompt allows it (else calls, else checks) until the
    hand is over; a BOT is given its think time."""
    for _ in range(100):
        view = watcher.view(table)
        hand = view["hand"]
        if hand is None or hand["complete"]:
            return
        seat = view["seats"][hand["actor"]]
        if seat["is_bot"]:
            _tick(s, 1_000)  # a BOT's turn: it acts on its timer
            continue
        actor = clients[seat["player_id"]]
        actions = actor.view(table)["prompt"]["actions"]
        move = next(m for m in ("all_in", "call", "check") if m in actions)
        actor.send(action="act", table_id=table, move=move)
    raise RuntimeError("the hand did not end")


def _cancelled(s: Session) -> None:
    """R9.1: dave lists a 6-max Sit & Go (bots off, entry 50). erin, not registered, cannot
    unregister; dave and frank register; dave cannot add BOTs (``bots_off``) and frank cannot
    cancel (``not_host``). dave cancels it: every entry goes back, each in a transaction of its
    own. frank's new registration is refused; an unknown tournament id is refused; erin's
    re-entry is refused (a Sit & Go has no re-entry, R9.12)."""
    h = s.harness
    dave, frank, erin = (s.connect(p, primary=False) for p in ("dave", "frank", "erin"))
    sng = s.sng_id = dave.send(action="create_tournament", preset="sng_6max_turbo",
                               entry=50, name="Six-max 50")["tournament_id"]
    erin.send(action="unregister", tournament_id=sng)  # not_registered
    dave.send(action="register", tournament_id=sng)
    frank.send(action="register", tournament_id=sng)
    dave.send(action="tournament_add_bots", tournament_id=sng, count=2)  # bots_off
    frank.send(action="cancel_tournament", tournament_id=sng)  # not_host
    balances = h.accounts.balance("dave"), h.accounts.balance("frank")
    dave.send(action="cancel_tournament", tournament_id=sng)
    s.done.add("cancelled")
    if (h.accounts.balance("dave"), h.accounts.balance("frank")) == (balances[0] + 50,
                                                                     balances[1] + 50):
        s.done.add("refunded")
    erin.send(action="reenter", tournament_id=sng, example=True)  # reentry_off (R9.12)
    frank.send(action="register", tournament_id=sng)  # registration_closed
    s.extras["tournament (cancelled)"] = dave.send(action="get_tournament", tournament_id=sng)
    dave.send(action="get_tournament", tournament_id="u00000000000000000000")  # unknown


def _histories(s: Session) -> None:
    """R10.1: carol reads her hands at the Naiko table, two at a time, and the page after;
    then one hand in full (a hand with a showdown when there was one), as she saw it. dave,
    who only watched that table, may not read its hands (``not_in_hand``); a hand number the
    table never reached is ``unknown_hand``."""
    carol, dave = s.clients["carol"], s.clients["dave"]
    first = carol.send(action="hand_history", limit=2, example=True)
    s.extras["hands (the next page)"] = carol.send(action="hand_history", limit=2,
                                                   before=first["next"])
    numbers = [h.hand_number for h in s.harness.store.player_hands("carol", None, 50).hands
               if h.table_id == s.table_id]
    shown = [n for n in numbers if any(e["kind"] == "showdown" for e in _events(s, n))]
    number = min(shown or numbers, key=lambda n: len(_events(s, n)))
    s.messages["hand"] = carol.send(action="get_hand", table_id=s.table_id, hand_number=number,
                                    example=True)
    s.messages["hands"] = first
    dave.send(action="get_hand", table_id=s.table_id, hand_number=number)  # not_in_hand
    carol.send(action="get_hand", table_id=s.table_id, hand_number=999)  # unknown_hand
    dave.send(action="unwatch", table_id=s.table_id)  # dave stops watching the Naiko table


def _devices(s: Session) -> None:
    """Issue 25: push notifications are switched on (a recording notifier); erin registers
    her phone (FCM) and unregisters it; dave asks for an APNs token where the deployment has
    no APNs application (``push_unavailable``)."""
    from naiko_service.memory import MemoryDevices, RecordingNotifier
    from naiko_service.ports import Platform

    deps = s.harness.service.deps
    deps.devices = MemoryDevices()
    deps.notifier = RecordingNotifier(reach=frozenset({Platform.FCM}))
    erin, dave = s.clients["erin"], s.clients["dave"]
    token = "fKq1:APA91bHexampleTOKEN_for-docs"
    erin.send(action="register_device", platform="fcm", token=token, example=True)
    dave.send(action="register_device", platform="apns", token="a1b2c3d4" * 8)
    erin.send(action="unregister_device", token=token, example=True)


def _events(s: Session, hand_number: int) -> list[dict[str, Any]]:
    record = s.harness.store.hand(s.table_id, hand_number)
    assert record is not None
    return [e.to_dict() for e in record.events()]


def examples(s: Session) -> dict[str, Any]:
    """The examples, as one JSON-compatible object."""
    return {
        "table_id": s.table_id,
        "home_id": s.home_id,
        "spin_id": s.spin_id,
        "spin_table": s.spin_table,
        "sng_id": s.sng_id,
        "chat_id": s.chat_id,
        "requests": s.requests,
        "messages": s.messages,
        "extras": s.extras,
        "events": s.events,
        "event_variants": s.event_variants,
        "errors": s.errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcript", action="store_true",
                        help="print every frame in and out, in order, one JSON object a line")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    session = play(args.seed)
    if args.transcript:
        for entry in session.transcript:
            print(json.dumps(entry, sort_keys=False))
    else:
        print(json.dumps(examples(session), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
