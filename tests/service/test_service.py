"""The table service through its use cases, on the in-memory adapters: joining and leaving with
account transfers, replayed requests, racing writes, bad input, secrecy of every message sent,
disconnect and reconnect (R8.2, R8.3), and timers (R8.1, R7.7)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from naiko.cards import FULL_DECK, format_cards
from naiko.events import ActionTaken, Move
from naiko_service.memory import MemoryTableStore
from naiko_service.ports import ConcurrentUpdate
from naiko_service.records import TableRecord
from naiko_testing import cards_in
from service_testing import ACCEPTED, Harness, Player, harness


def new_table(h: Harness, host: Player, variant: str = "NLHE", **settings: Any) -> str:
    ack = host.send(action="create_table", name="t", variant=variant, small_blind=1,
                    big_blind=2, min_buy_in=40, max_buy_in=400, **settings)
    assert ack["type"] == "ack", ack  # a new table: nobody watches it, no update answers
    return str(ack["table_id"])


def seated(h: Harness, n: int = 3, variant: str = "NLHE",
           **settings: Any) -> tuple[str, list[Player]]:
    players = [h.player(f"p{i}") for i in range(n)]
    table_id = new_table(h, players[0], variant, **settings)
    for player in players:
        reply = player.send(action="join_table", table_id=table_id, buy_in=200)
        assert reply["type"] == "update" and not reply["replayed"], reply  # its answer
    return table_id, players


def actor(players: list[Player]) -> Player:
    view = players[0].last_view()
    seat = view["hand"]["actor"]
    return next(p for p in players if view["seats"][seat]["player_id"] == p.player_id)


def chips_everywhere(h: Harness, table_id: str, players: list[Player]) -> int:
    record = h.store.load(table_id)
    return record.state.total_chips() + sum(h.accounts.balance(p.player_id) for p in players)


# -- accounts ------------------------------------------------------------------------------

def test_r7_1_join_moves_the_buy_in_and_leave_returns_the_stack() -> None:
    h = harness()
    table_id, players = seated(h, 2)  # a new 6-seat table waits for a third player (R7.7)
    assert h.accounts.balance("p0") == 9_800
    reply = players[1].send(action="leave_table", table_id=table_id)
    assert reply["type"] in ("ack", "update")
    assert h.accounts.balance("p1") == 10_000
    assert chips_everywhere(h, table_id, players) == 20_000


def test_buy_in_outside_the_range_or_beyond_the_balance_is_refused() -> None:
    h = harness()
    host = h.player("host")
    poor = h.player("poor", chips=50)
    table_id = new_table(h, host)
    for player, buy_in, code in ((host, 39, "bad_buy_in"), (host, 401, "bad_buy_in"),
                                 (poor, 100, "insufficient_funds")):
        before = h.store.load(table_id).version
        reply = player.send(action="join_table", table_id=table_id, buy_in=buy_in)
        assert reply["type"] == "error" and reply["code"] == code
        assert h.store.load(table_id).version == before
    assert h.accounts.balance("poor") == 50


def test_r7_2_private_table_only_for_invited_players() -> None:
    h = harness()
    host, friend, stranger = h.player("host"), h.player("friend"), h.player("stranger")
    table_id = new_table(h, host, private=True, invited=["friend"])
    assert stranger.send(action="join_table", table_id=table_id, buy_in=100)["code"] \
        == "not_invited"
    assert friend.send(action="join_table", table_id=table_id, buy_in=100)["type"] in ACCEPTED
    assert table_id not in [t["table_id"] for t in host.send(action="list_tables")["tables"]]


def test_list_tables_shows_public_tables_with_free_seats() -> None:
    h = harness()
    host = h.player("host")
    table_id = new_table(h, host)
    listed = host.send(action="list_tables")
    assert listed["type"] == "tables" and listed["tables"][0]["table_id"] == table_id


# -- idempotency and races -------------------------------------------------------------------

def test_replayed_request_is_answered_not_applied_twice() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    p = actor(players)
    move = "call"
    frame = json.dumps({"action": "act", "request_id": "same-1", "table_id": table_id,
                        "move": move})
    first = p.send_raw(frame)
    version = h.store.load(table_id).version
    second = p.send_raw(frame)
    # answered by its update; the replay by an ack naming the same version (and a snapshot)
    assert (first["type"], first["request_id"], first["replayed"]) == ("update", "same-1", False)
    assert second == {"type": "ack", "request_id": "same-1", "table_id": table_id,
                      "version": first["version"], "replayed": True}
    assert h.store.load(table_id).version == version


class InterleavingStore(MemoryTableStore):
    """The in-memory store, with *before_first_save* run once between the first request's
    load and its conditional write: a concurrent writer, made deterministic."""

    before_first_save: Any = None

    @classmethod
    def over(cls, store: MemoryTableStore, before_first_save: Any) -> InterleavingStore:
        racing = cls.__new__(cls)
        racing.__dict__ = store.__dict__  # the same items and accounts
        racing.before_first_save = before_first_save
        racing.saves = []
        return racing

    def save(self, record: TableRecord, expected_version: int,
             moves: tuple[Any, ...] = ()) -> None:
        run, self.before_first_save = self.before_first_save, None
        if run is not None:
            run()
        try:
            super().save(record, expected_version, moves)
        except ConcurrentUpdate:
            self.saves.append(("conflict", expected_version))
            raise
        self.saves.append(("written", expected_version))


def calls_by(record: TableRecord, seat: int | None) -> list[ActionTaken]:
    assert record.state.hand is not None
    return [e for e in record.state.hand.log
            if isinstance(e, ActionTaken) and e.seat_index == seat and e.action is Move.CALL]


def test_racing_writes_one_commits_the_other_is_reapplied() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    total = chips_everywhere(h, table_id, players)
    first = actor(players)
    before = h.store.load(table_id)
    seat = before.seat_of(first.player_id)

    def other_writer() -> None:  # an unrelated change commits between our load and our save
        other = h.store.load(table_id)
        other.version += 1
        other.recent_timers["other-writer"] = 1
        MemoryTableStore.save(h.store, other, other.version - 1)

    store = InterleavingStore.over(h.store, other_writer)
    h.service.deps.tables = store
    reply = first.send(action="act", table_id=table_id, move="call")
    v = before.version
    # ours lost the race at version v, was re-applied to the other writer's v + 1 and written
    assert store.saves == [("conflict", v), ("written", v + 1)]
    record = h.store.load(table_id)
    assert record.version == v + 2
    # the version players see moves once: the other write (a bookkeeping write) was not announced
    assert reply["type"] in ("ack", "update") and reply["version"] == record.seq == before.seq + 1
    assert record.recent_timers["other-writer"] == 1  # the other update was not lost
    assert len(calls_by(record, seat)) == len(calls_by(before, seat)) + 1  # called once
    assert h.counters["Conflicts"] == 1 and h.counters["Retries"] == 1
    assert chips_everywhere(h, table_id, players) == total


def test_racing_actions_of_the_same_turn_apply_once() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    p = actor(players)
    before = h.store.load(table_id)
    seat = before.seat_of(p.player_id)
    late: list[dict[str, Any]] = []

    def same_turn_again() -> None:
        # The same player's second request (another id, e.g. a second tab) read the same
        # version as the first and commits first.
        late.append(p.send(action="act", table_id=table_id, move="call", request_id="second"))

    store = InterleavingStore.over(h.store, same_turn_again)
    h.service.deps.tables = store
    p.send(action="act", table_id=table_id, move="call", request_id="first")
    first = next(m for m in p.messages
                 if m["type"] in ("ack", "error") and m.get("request_id") == "first")
    v = before.version
    # the second request committed v + 1; the first conflicted, was re-applied to v + 1,
    # where it is no longer that player's turn: rejected, nothing more written
    assert late[0]["type"] in ("ack", "update") and late[0]["version"] == v + 1
    assert first["type"] == "error" and first["code"] == "not_your_turn"
    assert store.saves == [("written", v), ("conflict", v)]
    record = h.store.load(table_id)
    assert record.version == v + 1
    assert len(calls_by(record, seat)) == len(calls_by(before, seat)) + 1  # applied once
    assert h.counters["Conflicts"] == 1


def test_a_store_that_never_stops_conflicting_answers_busy() -> None:
    h = harness()
    table_id, players = seated(h, 3)

    class AlwaysConflicting(MemoryTableStore):
        def save(self, record: TableRecord, expected_version: int,
                 moves: tuple[Any, ...] = ()) -> None:
            raise ConcurrentUpdate(record.table_id)

    store = AlwaysConflicting.__new__(AlwaysConflicting)
    store.__dict__ = h.store.__dict__
    h.service.deps.tables = store
    reply = actor(players).send(action="act", table_id=table_id, move="call")
    assert reply["type"] == "error" and reply["code"] == "busy"


# -- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("frame, code", [
    ("{not json", "malformed_json"),
    ("[1, 2]", "malformed_json"),
    ('{"action": "dance", "request_id": "r1"}', "unknown_action"),
    ('{"action": "act", "request_id": "r1", "table_id": "T", "move": "call", "seat_index": 1}',
     "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "T"}', "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "T", "move": "raise_to", '
     '"amount": -5}', "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "T", "move": "raise_to", '
     '"amount": 7.5}', "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "T", "move": "raise_to", '
     '"amount": "10"}', "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "T", "move": "teleport"}',
     "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "nope", "move": "call"}',
     "unknown_table"),
    ('{"action": "join_table", "request_id": "r1", "table_id": "T", "buy_in": 0}',
     "invalid_request"),
    ('{"action": "act", "request_id": "' + "x" * 65 + '", "table_id": "T", "move": "call"}',
     "invalid_request"),
    ('{"action": "act", "request_id": "r1", "table_id": "T", "move": "call", "pad": "'
     + "x" * 40_000 + '"}', "frame_too_large"),
])
def test_bad_input_gets_a_clear_error_and_changes_nothing(frame: str, code: str) -> None:
    h = harness()
    table_id, players = seated(h, 3)
    frame = frame.replace('"T"', json.dumps(table_id))
    before = h.store.load(table_id).to_document()
    balances = dict(h.accounts.balances)
    reply = actor(players).send_raw(frame)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply["message"]
    after = h.store.load(table_id).to_document()
    assert after == before and dict(h.accounts.balances) == balances


def test_r8_5_acting_out_of_turn_or_without_a_seat_is_refused() -> None:
    """R8.5: the server is authoritative: the seat is always the verified player's own, so
    acting out of turn or without a seat is refused and nothing changes."""
    h = harness()
    table_id, players = seated(h, 3)
    waiting = next(p for p in players if p is not actor(players))
    before = h.store.load(table_id).to_document()
    assert waiting.send(action="act", table_id=table_id, move="fold")["code"] == "not_your_turn"
    watcher = h.player("watcher")
    assert watcher.send(action="act", table_id=table_id, move="fold")["code"] == "not_seated"
    assert actor(players).send(action="act", table_id=table_id, move="raise_to",
                               amount=3)["code"] == "amount_below_minimum"
    assert actor(players).send(action="act", table_id=table_id, move="bet")["code"] \
        == "invalid_request"
    assert h.store.load(table_id).to_document() == before


# -- secrecy ---------------------------------------------------------------------------------

def _forbidden_cards(record: TableRecord, seat: int | None) -> set[str]:
    hand = record.state.hand
    if hand is None:
        return set()
    own_peek = hand.powers.peeks[seat] if hand.powers and seat is not None else None
    cards = {format_cards([c]) for c in hand.deck if c != own_peek}
    for other, hole in enumerate(hand.hole):
        if other != seat and not hand.shown[other]:
            cards |= {format_cards([c]) for c in hole}
    return cards


@pytest.mark.parametrize("variant", ["NLHE", "PLO", "NAIKO"])
def test_no_message_ever_reveals_hidden_cards(variant: str) -> None:
    """Whole sessions with random play: each message, when sent, holds no other seat's hole
    cards before showdown, no peek result of another seat, no undealt card."""
    h = harness(seed=11)
    rng = random.Random(3)
    table_id, players = seated(h, 4, variant=variant)
    watcher = h.player("watcher")
    watcher.send(action="snapshot", table_id=table_id)
    everyone = [*players, watcher]
    checked = 0
    for _ in range(400):
        record = h.store.load(table_id)
        counts = {p.player_id: len(p.messages) for p in everyone}
        hand = record.state.hand
        busted = [who for who in players
                  if record.state.seats[record.seat_of(who.player_id)].stack == 0]  # type: ignore[index, union-attr]
        if (hand is None or hand.complete) and busted:
            # reload a busted player (R7.1) so play goes on; one request per step, so that
            # each message is checked against the state it was built from
            busted[0].send(action="add_chips", table_id=table_id, amount=200)
        elif hand is None or hand.complete:
            h.clock.advance(5_000)
            h.fire_due_timers()
        else:
            p = actor(players)
            prompt = p.last_view()["prompt"]
            if variant == "NAIKO" and prompt["powers"] and rng.random() < 0.5:
                power = rng.choice(prompt["powers"])
                frame: dict[str, Any] = {"action": "use_power", "table_id": table_id,
                                         "power": power}
                if power == "sleeve_swap":
                    frame["card_index"] = rng.randrange(2)
                if power == "short_anchor":
                    frame["target_seat"] = rng.choice(prompt["anchor_targets"])
                p.send(**frame)
            else:
                move = rng.choice(prompt["actions"])
                frame = {"action": "act", "table_id": table_id, "move": move}
                if move in ("bet", "raise_to"):
                    frame["amount"] = rng.randint(prompt["min_raise_to"],
                                                  prompt["max_raise_to"])
                p.send(**frame)
        record = h.store.load(table_id)
        for who in everyone:
            seat = record.seat_of(who.player_id)
            forbidden = _forbidden_cards(record, seat)
            for message in who.messages[counts[who.player_id]:]:
                leaked = cards_in(message) & forbidden
                assert not leaked, (who.player_id, message["type"], leaked)
                checked += 1
        if variant == "NAIKO" and rng.random() < 0.3:
            for who in players:  # answer open windows sometimes
                view = who.last_view()
                if view["hand"] and view["hand"].get("powers", {}).get("can_shield"):
                    who.send(action=rng.choice(["shield", "pass_window"]), table_id=table_id)
    assert checked > 500
    assert h.store.load(table_id).state.hand_count >= 3
    deck = sorted(FULL_DECK)
    assert len(deck) == 52


# -- connections and timers ------------------------------------------------------------------

def test_r8_3_disconnect_keeps_the_seat_and_the_clock_reconnect_gets_the_confirmed_state() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    p = actor(players)
    due = [t for t in h.scheduler.scheduled if t[3] == "decision"][-1][2]
    h.clock.advance(5_000)
    h.service.disconnect(p.connection_id)
    record = h.store.load(table_id)
    assert p.player_id in record.disconnected and record.seat_of(p.player_id) is not None
    assert [t.due_ms for t in record.timers if t.kind == "decision"] == [due]  # not reset (R8.2)
    # Reconnect on a new connection before the deadline: the snapshot is the server's state.
    back = Player(h, p.player_id, "conn-new")
    h.service.connect("conn-new", p.player_id)
    snap = back.send(action="snapshot", table_id=table_id)
    assert snap["type"] == "snapshot" and snap["version"] == h.store.load(table_id).version
    assert snap["view"]["prompt"]["deadline_ms"] == due
    assert back.send(action="act", table_id=table_id, move="call")["type"] in ("ack", "update")


def test_r8_1_decision_clock_checks_when_legal_else_folds() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    first = actor(players)
    h.clock.advance(20_000)
    assert h.fire_due_timers() == 1
    events = [m for m in first.messages if m["type"] == "update"][-1]["events"]
    timed_out = next(e for e in events if e["kind"] == "timed_out")
    assert timed_out["decision"] == "fold"  # facing the big blind: fold
    # limp to the big blind, whose clock then checks
    while True:
        view = players[0].last_view()
        if view["hand"]["street"] != "preflop" or view["hand"]["complete"]:
            break
        seat = view["hand"]["actor"]
        if seat == view["hand"]["big_blind_seat"]:
            h.clock.advance(20_000)
            h.fire_due_timers()
            events = [m for m in players[0].messages if m["type"] == "update"][-1]["events"]
            assert any(e["kind"] == "timed_out" and e["decision"] == "check" for e in events)
            break
        actor(players).send(action="act", table_id=table_id, move="call")


def test_r8_2_disconnected_player_gets_20_more_seconds_then_sits_out_after_the_hand() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    p = actor(players)
    h.service.disconnect(p.connection_id)
    h.clock.advance(20_000)
    assert h.fire_due_timers() == 1  # the normal clock: grace starts, nothing decided yet
    record = h.store.load(table_id)
    assert record.state.hand is not None and record.state.hand.actor == record.seat_of(p.player_id)
    assert [t.kind for t in record.timers if t.kind in ("decision", "grace")] == ["grace"]
    h.clock.advance(20_000)
    assert h.fire_due_timers() == 1
    record = h.store.load(table_id)
    # the second timeout folded it (it faced the big blind); two players go on: it sits out
    # when this hand ends
    assert record.state.hand is not None and not record.state.hand.complete
    last = record.state.hand.log[-1]
    assert isinstance(last, ActionTaken) and last.action is Move.FOLD
    assert last.seat_index == record.seat_of(p.player_id)
    assert p.player_id in record.sit_out_after_hand
    while not h.store.load(table_id).state.hand.complete:  # type: ignore[union-attr]
        h.clock.advance(20_000)
        h.fire_due_timers()
    record = h.store.load(table_id)
    seat = record.state.seats[record.seat_of(p.player_id)]  # type: ignore[index]
    assert seat is not None and seat.sitting_out


def test_stale_and_duplicated_timers_do_nothing() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    token = [t for t in h.scheduler.scheduled if t[3] == "decision"][-1][1]
    actor(players).send(action="act", table_id=table_id, move="call")
    version = h.store.load(table_id).version
    assert h.service.timer_fired(table_id, token) is False  # stale: that turn is over
    assert h.store.load(table_id).version == version
    h.clock.advance(20_000)
    new_token = [t for t in h.scheduler.scheduled if t[3] == "decision"][-1][1]
    assert h.service.timer_fired(table_id, new_token) is True
    assert h.service.timer_fired(table_id, new_token) is False  # duplicate


def test_r7_7_a_new_table_starts_with_three_players() -> None:
    h = harness()
    table_id, players = seated(h, 2)
    assert h.store.load(table_id).state.hand is None
    third = h.player("third")
    third.send(action="join_table", table_id=table_id, buy_in=200)
    assert h.store.load(table_id).state.hand is not None


def test_r7_1_busted_player_may_reload_between_hands() -> None:
    h = harness()
    table_id, players = seated(h, 3)  # 200 each
    total = chips_everywhere(h, table_id, players)
    assert actor(players).send(action="add_chips", table_id=table_id,
                               amount=10)["code"] == "in_hand"  # not during a hand
    # Hand 1: everybody all-in preflop; the best hand takes all 600, the other two bust.
    while not h.store.load(table_id).state.hand.complete:  # type: ignore[union-attr]
        assert actor(players).send(action="act", table_id=table_id, move="all_in")["type"] \
            in ("ack", "update")
    record = h.store.load(table_id)
    stacks = {p.player_id: record.state.stack(record.seat_of(p.player_id))  # type: ignore[arg-type]
              for p in players}
    assert sorted(stacks.values()) == [0, 0, 600]
    reloader, other = (p for p in players if stacks[p.player_id] == 0)
    # Between hands (the pause before hand 2): a reload up to the maximum buy-in of 400.
    balance = h.accounts.balance(reloader.player_id)
    assert reloader.send(action="add_chips", table_id=table_id, amount=401)["code"] \
        == "bad_buy_in"
    assert reloader.send(action="add_chips", table_id=table_id, amount=150)["type"] in ACCEPTED
    assert h.accounts.balance(reloader.player_id) == balance - 150
    record = h.store.load(table_id)
    assert record.state.hand is not None and record.state.hand.number == 1
    assert record.state.stack(record.seat_of(reloader.player_id)) == 150  # type: ignore[arg-type]
    # Hand 2 deals the reloaded player in, and not the one who did not reload.
    h.clock.advance(3_000)
    h.fire_due_timers()
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None and hand.number == 2 and not hand.complete
    assert hand.dealt[record.seat_of(reloader.player_id)]  # type: ignore[index]
    assert not hand.dealt[record.seat_of(other.player_id)]  # type: ignore[index]
    assert chips_everywhere(h, table_id, players) == total


def test_r7_11_returning_within_30_minutes_buys_in_for_at_least_what_was_left_with() -> None:
    h = harness()
    players = [h.player(f"p{i}") for i in range(3)]
    table_id = new_table(h, players[0], deep_stack=True)
    for player, buy_in in zip(players, (400, 200, 200), strict=True):
        player.send(action="join_table", table_id=table_id, buy_in=buy_in)
    leaver = players[0]  # 400 chips: 200 big blinds
    leaver.send(action="leave_table", table_id=table_id)
    while h.store.load(table_id).seat_of(leaver.player_id) is not None:
        p = actor(players)
        move = "check" if "check" in p.last_view()["prompt"]["actions"] else "call"
        p.send(action="act", table_id=table_id, move=move)
    left_with = h.store.load(table_id).left_stacks[leaver.player_id]["stack"]
    assert left_with >= 396
    reply = leaver.send(action="join_table", table_id=table_id, buy_in=40)
    assert reply["code"] == "bad_buy_in" and str(left_with) in reply["message"]
    h.clock.advance(31 * 60_000)
    assert leaver.send(action="join_table", table_id=table_id, buy_in=40)["type"] in ACCEPTED


def test_r7_7_sitting_out_ten_minutes_removes_the_player_with_the_stack() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    quitter = players[2]
    quitter.send(action="sit_out", table_id=table_id)
    before = h.accounts.balance(quitter.player_id)
    h.clock.advance(600_000)
    h.fire_due_timers()
    record = h.store.load(table_id)
    assert record.seat_of(quitter.player_id) is None
    assert h.accounts.balance(quitter.player_id) > before


def test_lost_timer_is_recovered_by_the_sweep() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    h.scheduler.scheduled.clear()  # every timer execution lost
    h.clock.advance(21_000)
    assert h.service.sweep() == 1
    events = [m for m in players[0].messages if m["type"] == "update"][-1]["events"]
    assert any(e["kind"] == "timed_out" for e in events)


def test_leaving_mid_hand_folds_at_the_players_turn_and_cashes_out_after_the_hand() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    p = actor(players)
    leaver = next(x for x in players if x is not p)
    assert leaver.send(action="leave_table", table_id=table_id)["type"] in ("ack", "update")
    for _ in range(30):
        record = h.store.load(table_id)
        if record.seat_of(leaver.player_id) is None:
            break
        hand = record.state.hand
        if hand is None or hand.complete:
            h.clock.advance(5_000)
            h.fire_due_timers()
            continue
        p = actor(players)
        move = "check" if "check" in p.last_view()["prompt"]["actions"] else "call"
        assert p.send(action="act", table_id=table_id, move=move)["type"] in ("ack", "update")
    assert h.store.load(table_id).seat_of(leaver.player_id) is None
    total = chips_everywhere(h, table_id, players)
    assert total == 30_000


def test_two_players_may_use_the_same_request_id() -> None:
    h = harness()
    players = [h.player(f"p{i}") for i in range(2)]
    table_id = new_table(h, players[0])
    for player in players:
        reply = player.send(action="join_table", table_id=table_id, buy_in=100, request_id="j1")
        assert reply["type"] in ("ack", "update") and not reply["replayed"]
    record = h.store.load(table_id)
    assert record.seat_of("p0") is not None and record.seat_of("p1") is not None
