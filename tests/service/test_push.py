"""Push notifications when the app sleeps (issue 25, item 4), through the service on the
in-memory adapters: each trigger (a turn, a Seal Shield window, a waiting-list seat offered, a
tournament starting in 5 minutes, a tournament move) notifies a player with no live connection
and nobody connected; the per-player rate limit; nothing hidden in a notification; a failing
push service never reaches the game; ``register_device`` and ``unregister_device``."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.cards import FULL_DECK, format_card
from naiko.engine import legal_actions
from naiko.state import Variant
from naiko_local.tournament import Simulation, terms_for
from naiko_service import i18n
from naiko_service.aws.notifier import payload
from naiko_service.memory import MemoryDevices, RecordingNotifier
from naiko_service.notices import PlayerMoved
from naiko_service.ports import Device, DeviceBook, Notification, NotificationKind, Platform
from naiko_service.records import TableRecord, TimerKind
from naiko_service.usecases import push, tournaments
from service_testing import ACCEPTED, Harness, Player, harness
from test_nothing_lost import install
from test_service import actor, seated

TABLE_NAME = "t"
"""The tables ``test_service.seated`` opens are called this."""

CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][shdc](?![A-Za-z0-9])")
"""A card as the protocol writes one (``Ah``, ``Td``), standing alone."""


def notifier(h: Harness) -> RecordingNotifier:
    assert h.notifier is not None
    return h.notifier


def devices(h: Harness) -> MemoryDevices:
    assert h.devices is not None
    return h.devices


def register(player: Player, platform: str = "fcm") -> dict[str, Any]:
    reply = player.send(action="register_device", platform=platform,
                        token=f"tok-{player.player_id}")
    assert reply["type"] == "ack", reply
    return reply


def kinds(h: Harness, player_id: str) -> list[NotificationKind]:
    return [n.kind for n in notifier(h).of(player_id)]


def call_or_check(player: Player, table_id: str) -> dict[str, Any]:
    reply = player.send(action="act", table_id=table_id, move="call")
    if reply.get("code") == "nothing_to_call":
        reply = player.send(action="act", table_id=table_id, move="check")
    return reply


def next_actor_after(h: Harness, table_id: str, players: list[Player]) -> Player:
    """Who acts once the player on turn calls (the next seat dealt in and not folded)."""
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None and hand.actor is not None
    seats = len(record.state.seats)
    for step in range(1, seats):
        seat = (hand.actor + step) % seats
        if hand.dealt[seat] and not hand.folded[seat]:
            return next(p for p in players if record.seat_of(p.player_id) == seat)
    raise AssertionError("nobody after the actor")


def turn_ahead(h: Harness) -> tuple[str, list[Player], Player, Player]:
    """A 3-seat table of players who each registered a device: its id, its players, the one on
    turn and the one who acts after them (a call hands them the turn)."""
    table_id, players = seated(h, 3)
    for player in players:
        register(player)
    return table_id, players, actor(players), next_actor_after(h, table_id, players)


# -- the turn (R8.1) ----------------------------------------------------------------------------

def test_r8_1_a_turn_notifies_the_player_to_act_who_has_no_live_connection() -> None:
    h = harness(push=True)
    table_id, players, first, after = turn_ahead(h)
    h.service.disconnect(after.connection_id)
    assert first.send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    assert notifier(h).of(after.player_id) == [Notification(
        NotificationKind.TURN, "Your turn", f"It is your turn at {TABLE_NAME}.",
        {"table_id": table_id})]
    assert [p for p in players if notifier(h).of(p.player_id)] == [after]
    assert h.counters.get("PushSent") == 1


def test_r8_1_a_connected_player_gets_the_update_and_no_notification() -> None:
    h = harness(push=True)
    table_id, players = seated(h, 3)
    for player in players:
        register(player)
    for _ in range(3):
        assert call_or_check(actor(players), table_id)["type"] in ACCEPTED
    assert notifier(h).sent == []
    assert h.counters.get("PushSkippedConnected", 0) >= 3


def test_r8_2_a_connection_the_fan_out_finds_gone_counts_as_not_live() -> None:
    h = harness(push=True)
    table_id, players, first, after = turn_ahead(h)
    h.gateway.gone.add(after.connection_id)  # the phone slept: $disconnect has not run yet
    assert first.send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    assert kinds(h, after.player_id) == [NotificationKind.TURN]
    assert after.player_id in h.store.load(table_id).disconnected  # dropped in the same pass


def test_a_player_without_a_device_costs_nothing_and_gets_nothing() -> None:
    h = harness(push=True)
    table_id, players = seated(h, 3)
    first = actor(players)
    after = next_actor_after(h, table_id, players)
    h.service.disconnect(after.connection_id)
    assert first.send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    assert notifier(h).sent == [] and "PushSent" not in h.counters


# -- a Seal Shield window aimed at them (R6.5) ---------------------------------------------------

def test_r6_5_a_shield_window_aimed_at_a_player_away_notifies_them() -> None:
    h = harness(push=True)
    table_id, players = seated(h, 3, "NAIKO")

    def edit(record: TableRecord) -> None:
        hand = record.state.hand
        assert hand is not None and hand.powers is not None
        hand.powers.carousel = ["peek", "short_anchor", "seal_shield"]
        for seat in record.state.seats:
            if seat is not None:
                seat.destellos = 3

    install(h, table_id, edit)
    attacker = actor(players)
    prompt = legal_actions(h.store.load(table_id).state)
    assert prompt is not None and prompt.anchor_targets
    target_seat = prompt.anchor_targets[0]
    record = h.store.load(table_id)
    target = next(p for p in players if record.seat_of(p.player_id) == target_seat)
    register(target, "apns")
    h.service.disconnect(target.connection_id)
    reply = attacker.send(action="use_power", table_id=table_id, power="short_anchor",
                          target_seat=target_seat)
    assert reply["type"] in ACCEPTED, reply
    (sent,) = [n for n in notifier(h).of(target.player_id)
               if n.kind is NotificationKind.SHIELD]
    assert sent.title == "Seal Shield" and TABLE_NAME in sent.body
    assert sent.data == {"table_id": table_id}


# -- a waiting-list seat offered (R7.10) ---------------------------------------------------------

def test_r7_10_a_seat_offered_to_a_player_away_notifies_them() -> None:
    h = harness(push=True)
    a, b = h.player("a"), h.player("b")
    table_id = str(a.send(action="create_table", name="Demo NLHE", variant="NLHE",
                          small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400,
                          seat_count=2)["table_id"])
    for player in (a, b):
        assert player.send(action="join_table", table_id=table_id,
                           buy_in=200)["type"] in ACCEPTED
    first = h.player("first")
    assert first.send(action="join_waitlist", table_id=table_id)["type"] in ACCEPTED
    register(first)
    h.service.disconnect(first.connection_id)
    assert b.send(action="leave_table", table_id=table_id)["type"] in ACCEPTED
    assert notifier(h).of("first") == [Notification(
        NotificationKind.SEAT_OFFERED, "A seat is free",
        "A seat at Demo NLHE is held for you: join to take it.", {"table_id": table_id})]


# -- a tournament move (R9.7) --------------------------------------------------------------------

def test_r9_7_a_player_moved_is_notified_at_the_destination_unless_watching_it() -> None:
    h = harness(push=True)
    table_id, players = seated(h, 3)
    mover, watcher = players[1], players[2]
    register(mover)
    register(watcher)
    record = h.store.load(table_id)
    record.settings = replace(record.settings, name="Sunday Major #4")
    del record.connections[mover.player_id]  # the app sleeps: it followed no table
    moves = [PlayerMoved(player_id=p.player_id, from_table="elsewhere", to_table=table_id,
                         seat_index=0, stack=1) for p in (mover, watcher)]
    leaving = PlayerMoved(player_id=mover.player_id, from_table=table_id, to_table="other",
                          seat_index=0, stack=1)
    assert push.after_fan_out(h.service.deps, record, [*moves, leaving]) == 1
    assert notifier(h).of(mover.player_id) == [Notification(
        NotificationKind.TABLE_BROKEN, "New table",
        "You were moved to another table in Sunday Major.", {"table_id": table_id})]
    assert notifier(h).of(watcher.player_id) == []  # watching the table it arrives at


# -- a tournament starting in 5 minutes (R9.2) ---------------------------------------------------

MINUTE = 60_000


def scheduled_with_devices() -> tuple[Simulation, str, int]:
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 20), seat_count=6, bots_allowed=True)
    sim = Simulation(terms, 20, 1, check=True)
    deps = sim.service.deps
    deps.devices, deps.notifier = MemoryDevices(), RecordingNotifier()
    starts = sim.clock.now + 60 * MINUTE
    tournaments.create(deps, "mtt-1", "Sunday Major", sim.terms, "ops", starts_ms=starts)
    sim.tournament_id = "mtt-1"
    for n in range(3):
        sim.accounts.grant(f"p{n}", 100, ref="test")
    tournaments.enter(deps, None, "mtt-1", [tournaments.Entrant(f"p{n}", f"p{n}")
                                            for n in range(3)])
    return sim, "mtt-1", starts


def test_r9_2_registered_players_away_are_told_5_minutes_before_the_start() -> None:
    sim, tid, starts = scheduled_with_devices()
    deps = sim.service.deps
    books = deps.devices
    assert isinstance(books, MemoryDevices)
    gateway = deps.gateway
    for n in range(4):  # p3 has a device but did not register for it
        books.add(f"p{n}", Device(Platform.FCM, f"tok{n}", f"memory:p{n}:fcm:tok{n}"), "pt",
                  0)
    sim.service.connect("c1", "p1")  # p1 has the app open (a live connection)
    sim.service.connect("c2", "p2")
    gateway.gone.add("c2")  # p2's phone slept without its $disconnect
    timers = {t.kind: t.due_ms for t in sim.tournaments.load(tid).timers}
    assert timers[TimerKind.NOTIFY_START] == starts - 5 * MINUTE
    while sim.scheduler.heap and sim.scheduler.heap[0][0] <= starts - 5 * MINUTE:
        assert sim.step()
    recorder = deps.notifier
    assert isinstance(recorder, RecordingNotifier)
    expected = Notification(NotificationKind.TOURNAMENT_STARTING, "Torneio começando",
                            "Sunday Major começa em 5 minutos.", {"tournament_id": tid})
    assert {player: recorder.of(player) for player in ("p0", "p1", "p2", "p3")} == {
        "p0": [expected], "p1": [], "p2": [expected], "p3": []}
    book = books.book("p2")
    assert book is not None and book.live == frozenset()  # the dead connection forgotten
    assert all(t.kind is not TimerKind.NOTIFY_START
               for t in sim.tournaments.load(tid).timers)  # once


def test_r9_2_no_start_notice_timer_where_notifications_are_off() -> None:
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 20), seat_count=6)
    sim = Simulation(terms, 20, 1, check=True)
    record = tournaments.create(sim.service.deps, "mtt-1", "Sunday", sim.terms, "ops",
                                starts_ms=sim.clock.now + 60 * MINUTE)
    assert [t.kind for t in record.timers] == [TimerKind.START]


# -- the rate limit ------------------------------------------------------------------------------

def sent_now(h: Harness, kind: NotificationKind, player_id: str = "p") -> bool:
    return push.notify(h.service.deps, player_id, push._Render(kind, table="x"),
                       at_table=False)


def test_one_notification_of_a_kind_per_30_seconds_and_a_bucket_of_6_a_minute() -> None:
    h = harness(push=True)
    devices(h).add("p", Device(Platform.FCM, "tok", "memory:p:fcm:tok"), "en", 0)
    assert sent_now(h, NotificationKind.TURN)
    h.clock.advance(29_999)
    assert not sent_now(h, NotificationKind.TURN)  # the same kind within 30 s
    h.clock.advance(1)
    assert sent_now(h, NotificationKind.TURN)
    h.clock.advance(60_000)  # the bucket is full again (6)
    for kind in NotificationKind:  # 5 kinds now: 1 token left
        assert sent_now(h, kind)
    h.clock.advance(30_000)  # +3 tokens: 4
    for kind in list(NotificationKind)[:4]:
        assert sent_now(h, kind)
    assert not sent_now(h, list(NotificationKind)[4])  # 30 s since, but the bucket is empty
    assert h.counters["PushRateLimited"] == 2
    assert len(notifier(h).of("p")) == 11


def test_two_writers_at_one_book_version_send_once() -> None:
    h = harness(push=True)
    books = devices(h)
    books.add("p", Device(Platform.FCM, "tok", "memory:p:fcm:tok"), "en", 0)
    book = books.book("p")
    assert book is not None
    assert books.sent(book, NotificationKind.TURN, 5.0, 1)
    assert not books.sent(book, NotificationKind.SHIELD, 5.0, 1)  # stale version: refused


@given(st.lists(st.tuples(st.sampled_from(list(NotificationKind)),
                          st.integers(min_value=0, max_value=40_000)), max_size=40))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_limit_holds_whatever_the_moments(moments: list[tuple[NotificationKind, int]]
                                              ) -> None:
    """Property: in any 60 s window at most 6 + 6 (the bucket and its refill) are sent, and
    two of one kind are never less than 30 s apart."""
    book = DeviceBook("p", (Device(Platform.FCM, "t", "e"),))
    now = 0
    sent: list[tuple[NotificationKind, int]] = []
    for kind, wait in moments:
        now += wait
        tokens = push.admit(book, kind, now)
        if tokens is not None:
            sent.append((kind, now))
            book = replace(book, tokens=tokens, at_ms=now,
                           last={**book.last, str(kind): now}, version=book.version + 1)
    for kind in NotificationKind:
        times = [t for k, t in sent if k is kind]
        assert all(b - a >= push.PER_KIND_MS for a, b in zip(times, times[1:], strict=False))
    for _, start in sent:
        assert sum(1 for _, t in sent if start <= t < start + 60_000) <= 2 * push.PER_MINUTE


# -- nothing hidden ------------------------------------------------------------------------------

def every_text(name: str) -> list[str]:
    texts = []
    for lang in i18n.LANGUAGES:
        for kind in NotificationKind:
            n = push.render(kind, lang, table=name, tournament=name,
                            ids={"table_id": "t1", "tournament_id": "u1"})
            texts += [n.title, n.body, *n.data.values(),
                      *(payload(platform, n) for platform in Platform)]
    return texts


def test_no_notification_text_of_any_kind_or_language_names_a_card_or_a_number() -> None:
    """Exhaustive: every notification the service can make (every kind, every language, every
    platform's payload) is one catalogue template filled with a name and an id: no card, and no
    number but the 5 minutes of a tournament's start."""
    for text in every_text("Demo NLHE"):
        assert not CARD.search(text), text
        assert set(re.findall(r"\d+", text)) <= {"5", "1"}, text  # "t1"/"u1" ids, 5 minutes


@given(st.integers(min_value=0, max_value=10_000))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_notifications_of_a_played_hand_hold_nothing_a_view_hides(seed: int) -> None:
    """Property: at a table where every player but the one to act is away, whatever the deal
    (the seed), each notification sent is exactly a catalogue text filled with the table's name,
    carries only the table's id, and names none of the hand's cards."""
    h = harness(seed, push=True)
    table_id, players = seated(h, 3)
    for player in players:
        register(player)
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None
    for _ in range(6):
        current = actor(players)
        for player in players:
            if player is not current and player.player_id in h.store.load(
                    table_id).connections:
                h.service.disconnect(player.connection_id)
        if call_or_check(current, table_id)["type"] not in ACCEPTED:
            break
        if not h.store.load(table_id).state.hand_in_progress:
            break
        # the next actor comes back to act, as a woken app would
        nxt = actor([Player(h, p.player_id, p.connection_id) for p in players])
        nxt.connection_id = f"{nxt.player_id}-{_ + 1}"
        h.service.connect(nxt.connection_id, nxt.player_id)
        nxt.send(action="snapshot", table_id=table_id)
        players = [nxt if p.player_id == nxt.player_id else p for p in players]
    allowed = [push.render(kind, "en", table=TABLE_NAME, ids={"table_id": table_id})
               for kind in (NotificationKind.TURN, NotificationKind.SHIELD)]
    dealt = {format_card(c) for c in FULL_DECK}
    assert notifier(h).sent, "nobody was notified"
    for _, _, notification in notifier(h).sent:
        assert notification in allowed
        texts = [notification.title, notification.body, *notification.data.values(),
                 *(payload(p, notification) for p in Platform)]
        assert not any(card in CARD.findall(t) for t in texts for card in dealt)


# -- failures never reach the game ---------------------------------------------------------------

def test_a_failing_push_service_is_counted_and_the_game_goes_on() -> None:
    h = harness(push=True)
    table_id, players, first, after = turn_ahead(h)
    h.service.disconnect(after.connection_id)
    notifier(h).failing = True
    version = h.store.load(table_id).version
    assert first.send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    assert h.store.load(table_id).version > version
    assert h.counters["PushFailures"] == 1 and "PushSent" not in h.counters


def test_a_device_whose_endpoint_was_disabled_is_forgotten() -> None:
    h = harness(push=True)
    table_id, players, first, after = turn_ahead(h)
    book = devices(h).book(after.player_id)
    assert book is not None
    notifier(h).disabled.add(book.devices[0].endpoint)  # the app was uninstalled
    h.service.disconnect(after.connection_id)
    assert first.send(action="act", table_id=table_id, move="call")["type"] in ACCEPTED
    assert h.counters["PushEndpointsDisabled"] == 1
    book = devices(h).book(after.player_id)
    assert book is not None and book.devices == ()


# -- the routes ----------------------------------------------------------------------------------

def test_register_device_keeps_the_language_and_the_connection_and_unregister_forgets_it() -> None:
    h = harness(push=True)
    erin = h.player("erin")
    with i18n.speaking("vi"):
        register(erin, "apns_sandbox")
    book = devices(h).book("erin")
    assert book is not None and book.language == "vi"
    assert [(d.platform, d.token) for d in book.devices] == [(Platform.APNS_SANDBOX,
                                                              "tok-erin")]
    assert book.live == {erin.connection_id}
    h.service.disconnect(erin.connection_id)
    book = devices(h).book("erin")
    assert book is not None and book.live == frozenset()
    reply = erin.send(action="unregister_device", token="tok-erin")
    assert reply["type"] == "ack"
    book = devices(h).book("erin")
    assert book is not None and book.devices == ()
    assert notifier(h).forgotten == ["memory:erin:apns_sandbox:tok-erin"]
    assert erin.send(action="unregister_device", token="tok-erin")["type"] == "ack"  # again


def test_at_most_5_devices_the_oldest_forgotten() -> None:
    h = harness(push=True)
    erin = h.player("erin")
    for n in range(7):
        erin.send(action="register_device", platform="fcm", token=f"tok{n}")
    erin.send(action="register_device", platform="fcm", token="tok3")  # again: the newest
    book = devices(h).book("erin")
    assert book is not None
    assert [d.token for d in book.devices] == ["tok2", "tok4", "tok5", "tok6", "tok3"]


@pytest.mark.parametrize("push_on", [False, True])
def test_register_device_is_refused_where_the_platform_is_not_served(push_on: bool) -> None:
    h = harness(push=push_on)
    if push_on:
        notifier(h).reach = frozenset({Platform.FCM})
    erin = h.player("erin")
    reply = erin.send(action="register_device", platform="apns", token="abc")
    assert (reply["type"], reply["code"]) == ("error", "push_unavailable")
    assert h.service.deps.devices is None or devices(h).book("erin") is None
