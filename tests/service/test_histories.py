"""Hand histories through the service (R10.1), on the in-memory adapters: every finished or
cancelled hand of every kind of table stored once, with the write that ends it; a player's
hands read a page at a time; one hand read in full as its reader saw it, and by nobody else;
the size of the largest record; and, over random sessions of NLHE, PLO and NAIKO, that no
history a player reads holds a card the table did not show that player during the hand."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko import commands as cmd
from naiko import phh
from naiko.cards import format_cards
from naiko.engine import apply_in_place, legal_actions
from naiko.events import HandCancelled
from naiko.state import TableConfig, TableState, Variant
from naiko_service import hand_records
from naiko_service.aws.dynamodb import dynamodb_item_size
from naiko_service.aws.histories import history_puts
from naiko_service.hand_records import HandRecord
from naiko_service.records import Sealer, TimerKind
from naiko_testing import cards_in
from service_testing import ACCEPTED, Harness, Player, harness
from test_nothing_lost import install
from test_service import seated
from test_tournaments import act, deal, spin, table_of

# -- driving a table ------------------------------------------------------------------------------


def by_seat(h: Harness, table_id: str, players: list[Player], seat: int) -> Player:
    player_id = h.store.load(table_id).state.seats[seat].player_id  # type: ignore[union-attr]
    return next(p for p in players if p.player_id == player_id)


def step(h: Harness, table_id: str, players: list[Player], rng: random.Random,
         powers: bool = False) -> None:
    """One random legal step of the hand in progress: answer a Shield window aimed at a
    player, else (sometimes after trying a power) the actor's action."""
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None and not hand.complete
    if hand.powers is not None and hand.powers.windows:
        target = by_seat(h, table_id, players, hand.powers.windows[0].target)
        target.send(action=rng.choice(["shield", "pass_window"]), table_id=table_id)
        return
    prompt = legal_actions(record.state)
    assert prompt is not None
    player = by_seat(h, table_id, players, prompt.seat_index)
    if powers and rng.random() < 0.4:
        power = rng.choice(hand.powers.carousel if hand.powers else ["peek"])
        frame: dict[str, Any] = {"action": "use_power", "table_id": table_id, "power": power}
        if power == "sleeve_swap":
            frame["card_index"] = rng.randrange(2)
        if power == "short_anchor":
            frame["target_seat"] = rng.choice(list(prompt.anchor_targets) or [0])
        if power != "seal_shield":
            player.send(**frame)  # refused or not: either way the hand goes on
            return
    move = rng.choice([a for a in prompt.actions if a != "all_in"] or ["fold"])
    frame = {"action": "act", "table_id": table_id, "move": move}
    if move in ("bet", "raise_to"):
        frame["amount"] = rng.choice([prompt.min_raise_to, prompt.max_raise_to])
    reply = player.send(**frame)
    # a clock that ran out meanwhile acts first (R8.1): then it is someone else's turn
    assert reply["type"] in ("ack", "update") or reply["code"] == "not_your_turn", (frame, reply)


def play_hands(h: Harness, table_id: str, players: list[Player], count: int,
               rng: random.Random, powers: bool = False) -> None:
    """Play until *count* more hands have ended (the pause between hands included), or until
    no hand can be dealt any more (a player busted)."""
    target = h.store.load(table_id).hands_closed + count
    idle = 0
    for _ in range(2_000):
        record = h.store.load(table_id)
        if record.hands_closed >= target:
            return
        if record.state.hand_in_progress:
            idle = 0
            step(h, table_id, players, rng, powers)
        elif idle > 3:
            return  # nobody left to play with
        else:
            idle += 1
            h.clock.advance(record.settings.pause_ms)
            h.fire_due_timers()
    raise AssertionError("the hands did not end")


def stored(h: Harness, table_id: str) -> list[HandRecord]:
    return h.store.table_hands(table_id, 0, 10_000)


def assert_stored_once(h: Harness, table_id: str) -> list[HandRecord]:
    """Every hand the table closed is stored, once, and each dealt player (not a BOT) has one
    entry for it."""
    closed = h.store.load(table_id).hands_closed
    records = stored(h, table_id)
    assert [r.hand_number for r in records] == list(range(1, closed + 1))
    entries = [e for index in h.store.player_index.values() for e in index.values()
               if e.table_id == table_id]
    assert sorted((e.hand_number, e.player_id) for e in entries) == sorted(
        (r.hand_number, s.player_id) for r in records for s in r.seats if not s.is_bot)
    return records


# -- stored once, for every kind of table ----------------------------------------------------------

def test_r10_1_every_hand_of_a_cash_table_is_stored_once_with_the_write_that_ends_it() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    play_hands(h, table_id, players, 6, random.Random(3))
    records = assert_stored_once(h, table_id)
    assert len(records) >= 6
    for record in records:
        assert record.kind == "cash" and record.table_name == "t"
        assert record.players == tuple(sorted(record.players, key=lambda p: int(p[1:])))
        assert sum(record.results.values()) == 0  # chips conserved: no rake (R2)
        assert record.started_ms <= record.ended_ms and record.cancelled is None
        state = record.table_state()
        assert state.hand is not None and state.hand.complete
        assert state.hand.number == record.hand_number
    # the table write that ended each hand carried its record: the last one is the hand that
    # the table's stored state shows as complete (before the next deal)
    table = h.store.load(table_id)
    assert table.hands_closed == records[-1].hand_number and table.histories == []


def test_r10_1_every_hand_of_a_private_table_is_stored_once() -> None:
    h = harness()
    host, friend = h.player("host"), h.player("friend")
    table_id = host.send(action="create_table", name="Alice's home game", variant="PLO",
                         small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400,
                         private=True, invited=["friend"], min_players=2)["table_id"]
    for player in (host, friend):
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    play_hands(h, table_id, [host, friend], 4, random.Random(5))
    records = assert_stored_once(h, table_id)
    assert {r.kind for r in records} == {"private"} and {r.variant for r in records} == {"PLO"}
    assert records[0].table_name == "Alice's home game"


def test_r10_1_every_hand_of_a_tournament_table_is_stored_once_with_its_tournament() -> None:
    h = harness()
    tid, players = spin(h)
    for _ in range(3):
        deal(h, tid)
        for _ in range(200):
            hand = table_of(h, tid).state.hand
            if hand is None or hand.complete:
                break
            act(h, tid, players, "fold" if hand.street == 0 and hand.actor != hand.big_blind_seat
                else "check" if "check" in legal_actions(table_of(h, tid).state).actions
                else "call")
    records = assert_stored_once(h, f"{tid}-1")
    assert len(records) == 3
    for record in records:
        assert record.kind == "tournament"
        assert record.tournament is not None and record.tournament["tournament_id"] == tid
        assert record.tournament["level"] == 1 and record.tournament["multi"] is False
    entry = players[0].send(action="hand_history")["hands"][0]
    assert entry["tournament_id"] == tid and entry["kind"] == "tournament"


def test_r10_1_a_record_found_stored_already_is_not_written_twice_and_the_table_goes_on(
        ) -> None:
    """A table write carrying a hand's record that is stored already (a write that carried it
    committed before) is made again without it: the hand stays stored once, the table is not
    stuck."""
    h = harness()
    table_id, players = seated(h, 3)
    record = h.store.load(table_id)
    assert record.state.hand is not None
    number = record.state.hand.number
    planted = b"stored before"
    h.store.hands[(table_id, number)] = planted
    play_hands(h, table_id, players, 1, random.Random(1))
    assert h.store.hands[(table_id, number)] == planted  # not written over, nor twice
    assert h.counters["HistoriesStoredBefore"] == 1
    assert h.store.load(table_id).hands_closed == number
    play_hands(h, table_id, players, 1, random.Random(2))  # the next hand is stored as usual
    assert (table_id, number + 1) in h.store.hands


def test_r10_1_a_hand_ended_by_a_deadline_before_a_refused_request_is_stored() -> None:
    """The clock of a heads-up hand ran out (its timer has not fired): the next request meets
    the deadline first, which folds and ends the hand, and is then refused; the write of what
    the deadline did carries the hand's record."""
    h = harness()
    a, b = h.player("a"), h.player("b")
    table_id = a.send(action="create_table", name="hu", seat_count=2, small_blind=1,
                      big_blind=2, min_buy_in=40, max_buy_in=400)["table_id"]
    for player in (a, b):
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    hand = h.store.load(table_id).state.hand
    assert hand is not None and hand.actor is not None
    late = by_seat(h, table_id, [a, b], hand.actor)
    h.clock.advance(20_001)
    reply = late.send(action="act", table_id=table_id, move="call")
    assert reply["type"] == "error"
    record, = assert_stored_once(h, table_id)
    assert record.results[late.player_id] < 0  # folded by the clock (R8.1)


# -- cancelled hands (R8.6) ------------------------------------------------------------------------

def test_r10_1_a_hand_cancelled_by_a_server_error_is_stored_with_its_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h = harness()
    table_id, players = seated(h, 3)
    from naiko_service.usecases import play

    monkeypatch.setattr(play, "betting_command", lambda *a: 1 / 0)
    actor_seat = h.store.load(table_id).state.hand.actor  # type: ignore[union-attr]
    with pytest.raises(ZeroDivisionError):
        by_seat(h, table_id, players, actor_seat).send(action="act", table_id=table_id,
                                                       move="call")
    record, = assert_stored_once(h, table_id)
    assert record.cancelled == "server_error" and record.results == {
        "p0": 0, "p1": 0, "p2": 0}
    assert isinstance(record.events()[-1], HandCancelled)
    reply = players[0].send(action="get_hand", table_id=table_id, hand_number=1)["hand"]
    assert reply["cancelled"] == "server_error" and reply["complete"] is True
    assert not cards_in(reply["events"])  # a cancelled hand shows no hidden card
    assert [e for e in reply["events"] if "private_to" in e] == []
    assert players[0].send(action="hand_history")["hands"][0]["cancelled"] == "server_error"


def test_r10_1_a_stalled_hand_is_stored_cancelled() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    install(h, table_id, lambda r: setattr(r, "timers", [
        t for t in r.timers if t.kind is TimerKind.STALLED]))
    h.clock.advance(5 * 60_000)
    assert h.service.sweep() == 1
    record, = assert_stored_once(h, table_id)
    assert record.cancelled == "stalled"


def test_r10_1_a_hand_whose_state_became_unreadable_is_stored_without_its_actions() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    started = h.clock.now
    h.clock.advance(1_000)
    actor_seat = h.store.load(table_id).state.hand.actor  # type: ignore[union-attr]
    by_seat(h, table_id, players, actor_seat).send(action="act", table_id=table_id,
                                                   move="call")
    h.store.corrupt(table_id)
    h.clock.advance(1_000)
    assert players[0].send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    record, = assert_stored_once(h, table_id)
    assert (record.cancelled, record.lost, record.state) == ("state_unreadable",
                                                             "state_unreadable", None)
    assert record.players == ("p0", "p1", "p2") and record.started_ms == started
    assert record.ended_ms == h.clock.now
    reply = players[1].send(action="get_hand", table_id=table_id, hand_number=1)["hand"]
    assert reply["complete"] is False
    assert [e["kind"] for e in reply["events"]] == ["hand_cancelled"]
    play_hands(h, table_id, players, 1, random.Random(4))  # play goes on, hand 2 is stored
    assert_stored_once(h, table_id)


# -- reading ---------------------------------------------------------------------------------------

def test_r10_1_a_player_s_hands_are_read_newest_first_a_page_at_a_time() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    play_hands(h, table_id, players, 7, random.Random(8))
    other_id, others = seated(h, 3, "PLO")  # p0-p2 again: a second table of theirs
    play_hands(h, other_id, others, 2, random.Random(9))
    h.clock.advance(60_000)
    play_hands(h, table_id, players, 1, random.Random(10))
    pages, before = [], None
    while True:
        frame: dict[str, Any] = {"action": "hand_history", "limit": 3}
        if before is not None:
            frame["before"] = before
        reply = players[1].send(**frame)
        assert reply["type"] == "hands" and len(reply["hands"]) <= 3
        pages.append(reply["hands"])
        before = reply["next"]
        if before is None:
            break
    seen = [(e["table_id"], e["hand_number"]) for page in pages for e in page]
    expected = sorted(((r.ended_ms, r.table_id, r.hand_number)
                       for t in (table_id, other_id) for r in stored(h, t)
                       if "p1" in r.players), reverse=True)
    assert seen == [(t, n) for _, t, n in expected]  # all of them, once, newest first
    assert all(len(page) == 3 for page in pages[:-1]) and pages[-1]
    assert pages[0][0]["table_id"] == table_id  # played last
    entry = pages[0][0]
    record = h.store.hand(table_id, entry["hand_number"])
    assert record is not None
    assert entry["net"] == record.results["p1"] and entry["seat_index"] == record.seat_of("p1")


def test_r10_1_only_players_dealt_in_may_read_a_hand() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    watcher = h.player("watcher")
    assert watcher.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    play_hands(h, table_id, players, 1, random.Random(2))
    late = h.player("late")
    assert late.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    for outsider in (watcher, late):
        reply = outsider.send(action="get_hand", table_id=table_id, hand_number=1)
        assert (reply["type"], reply["code"]) == ("error", "not_in_hand")
        assert outsider.send(action="hand_history")["hands"] == []
    reply = players[0].send(action="get_hand", table_id=table_id, hand_number=99)
    assert (reply["type"], reply["code"]) == ("error", "unknown_hand")
    assert players[0].send(action="get_hand", table_id=table_id, hand_number=1)["type"] == "hand"
    h.service.deps.histories = None
    reply = players[0].send(action="hand_history")
    assert (reply["type"], reply["code"]) == ("error", "no_histories")


def test_r10_1_a_hand_reads_as_its_reader_saw_it() -> None:
    """A showdown hand, worked by hand: each reader sees their own hole cards, the hands
    shown at the showdown, and no folded hand."""
    h = harness()
    table_id, players = seated(h, 3)
    record = h.store.load(table_id)
    hand = record.state.hand
    assert hand is not None
    folder_seat = hand.actor
    assert folder_seat is not None
    folder = by_seat(h, table_id, players, folder_seat)
    assert folder.send(action="act", table_id=table_id, move="fold")["type"] in ("ack", "update")
    for _ in range(20):  # the other two check or call down to the showdown
        record = h.store.load(table_id)
        if record.state.hand is None or record.state.hand.complete:
            break
        prompt = legal_actions(record.state)
        assert prompt is not None
        by_seat(h, table_id, players, prompt.seat_index).send(
            action="act", table_id=table_id,
            move="check" if "check" in prompt.actions else "call")
    stored_record = h.store.hand(table_id, 1)
    assert stored_record is not None
    full = stored_record.table_state().hand
    assert full is not None
    hole = {s: format_cards(full.hole[s]) for s in range(3)}
    for player in players:
        seat = stored_record.seat_of(player.player_id)
        assert seat is not None
        reply = player.send(action="get_hand", table_id=table_id, hand_number=1)["hand"]
        seen = cards_in(reply["events"])
        showdown = {s for s in range(3) if s != folder_seat}
        for other in range(3):
            cards = set(cards_in(hole[other]))
            if other == seat or other in showdown:
                assert cards <= seen, (player.player_id, other)
            else:
                assert not cards & seen, (player.player_id, other)
        assert reply["seat_index"] == seat and reply["results"] == stored_record.results


# -- secrecy over random sessions ---------------------------------------------------------------

def shown_per_hand(player: Player) -> dict[int, set[str]]:
    """Every card the table showed *player*, by hand: what its updates and snapshots said
    while that hand was the table's hand."""
    shown: dict[int, set[str]] = {}
    for message in player.messages:
        view = message.get("view")
        if view is None or view.get("hand") is None:
            continue
        number = view["hand"]["number"]
        shown.setdefault(number, set()).update(cards_in(message.get("events", [])),
                                               cards_in(view))
    return shown


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["NLHE", "PLO", "NAIKO"]), seed=st.integers(0, 10**6),
       count=st.integers(2, 4), hands=st.integers(1, 3))
def test_r10_1_no_history_read_by_a_player_holds_a_card_that_player_was_not_shown(
        variant: str, seed: int, count: int, hands: int) -> None:
    """Secrecy: over random sessions, no stored-history response to a player contains a card
    that player was not shown during the hand."""
    h = harness(seed)
    players = [h.player(f"p{i}") for i in range(count)]
    table_id = players[0].send(action="create_table", name="secrecy", variant=variant,
                               seat_count=count, small_blind=1, big_blind=2, min_buy_in=40,
                               max_buy_in=400)["table_id"]
    for player in players:
        assert player.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    watcher = h.player("watcher")
    watcher.send(action="snapshot", table_id=table_id)
    play_hands(h, table_id, players, hands, random.Random(seed), powers=variant == "NAIKO")
    records = assert_stored_once(h, table_id)
    own_cards_read = 0
    for player in players:
        shown = shown_per_hand(player)
        listed = player.send(action="hand_history", limit=50)["hands"]
        assert {e["hand_number"] for e in listed} == {
            r.hand_number for r in records if player.player_id in r.players}
        for record in records:
            reply = player.send(action="get_hand", table_id=table_id,
                                hand_number=record.hand_number)
            if player.player_id not in record.players:
                assert reply["code"] == "not_in_hand"
                continue
            read = cards_in(reply["hand"]["events"])
            assert read <= shown.get(record.hand_number, set()), (
                player.player_id, record.hand_number, read - shown[record.hand_number])
            full = record.table_state().hand
            assert full is not None
            seat = record.seat_of(player.player_id)
            assert seat is not None
            dealt = next(e.cards for e in record.events()
                         if e.kind == "hole_cards" and e.private_to == seat)  # type: ignore
            own_cards_read += set(cards_in(dealt)) <= read
    assert own_cards_read  # the property is not vacuous: readers do see their own cards
    reply = watcher.send(action="get_hand", table_id=table_id, hand_number=1)
    assert reply["code"] == "not_in_hand"


# -- size ------------------------------------------------------------------------------------------

def _long_naiko_hand(carousel: tuple[str, ...], raises: int) -> TableState:
    """A 10-seat Naiko hand, 64-character player ids, every seat using every power of the
    Carousel it can (a Short Anchor answered by Seal Shield when it is offered), *raises*
    min-raises preflop, then checks and calls to a 10-way showdown."""
    config = TableConfig(variant=Variant.NAIKO, seat_count=10, small_blind=1, big_blind=2)
    state = TableState.new(config)
    for seat in range(10):
        apply_in_place(state, cmd.SitDown(seat_index=seat, player_id=f"{seat}" * 64,
                                          stack=1_000_000))
        state.seats[seat].destellos = 3  # type: ignore[union-attr]
    rng = random.Random(10)
    deck = list(range(52))
    rng.shuffle(deck)
    apply_in_place(state, cmd.StartHand(deck=tuple(deck), button=0, carousel=carousel))
    hand = state.hand
    assert hand is not None
    done_raises = 0
    at_ms = 0
    for _ in range(5_000):
        if hand.complete:
            break
        windows = hand.powers.windows if hand.powers else []
        if windows:
            target = windows[0].target
            if "seal_shield" in carousel:
                apply_in_place(state, cmd.UsePower(seat_index=target, power="seal_shield"))
            else:
                apply_in_place(state, cmd.PassWindow(seat_index=target))
            continue
        prompt = legal_actions(state)
        assert prompt is not None
        seat = prompt.seat_index
        used = hand.powers.used[seat] if hand.powers else []
        order = ["sleeve_swap", "short_anchor", "peek"]  # each seat starts elsewhere
        for power in order[seat % 3:] + order[:seat % 3]:
            if power in carousel and power not in used and not hand.powers.turn_power_used:
                target = (prompt.anchor_targets[0] if prompt.anchor_targets else None)
                command = cmd.UsePower(seat_index=seat, power=power,
                                       card_index=0 if power == "sleeve_swap" else None,
                                       target_seat=target if power == "short_anchor" else None,
                                       at_ms=at_ms)
                try:
                    apply_in_place(state, command)
                except Exception:
                    continue
                break
        else:
            if done_raises < raises and "raise_to" in prompt.actions and \
                    prompt.min_raise_to <= prompt.max_raise_to:
                apply_in_place(state, cmd.RaiseTo(seat_index=seat, amount=prompt.min_raise_to))
                done_raises += 1
            elif "check" in prompt.actions:
                apply_in_place(state, cmd.Check(seat_index=seat))
            else:
                apply_in_place(state, cmd.Call(seat_index=seat))
        at_ms += 100
    assert hand.complete
    return state


@pytest.mark.parametrize("raises", [0, 200])
def test_r10_1_the_record_of_a_ten_seat_naiko_hand_with_every_power_fits_one_item(
        raises: int) -> None:
    """The largest records: 10 seats, every power the Carousel offers used by every seat that
    could, 64-character ids, a 40-character table name, a 10-way showdown, plus *raises*
    min-raises. Sealed (zlib, AES-GCM) they stay far below DynamoDB's 400 KB item."""
    sealer = Sealer(bytes(32))
    sizes = {}
    for carousel in (("peek", "sleeve_swap", "short_anchor"),
                     ("peek", "short_anchor", "seal_shield")):
        state = _long_naiko_hand(carousel, raises)
        hand = state.hand
        assert hand is not None and hand.powers is not None
        used = {p for seat in hand.powers.used for p in seat}
        assert used == set(carousel)
        record = hand_records.build(state, table_id="t" + "f" * 20, table_name="N" * 40,
                                    kind="cash", started_ms=1_700_000_000_000,
                                    ended_ms=1_700_000_900_000)
        puts = history_puts("naiko-prod-hands", sealer, record)
        item = dynamodb_item_size(puts[0]["Item"])
        document = len(json.dumps(record.to_document(), separators=(",", ":")))
        entries = [dynamodb_item_size(put["Item"]) for put in puts[1:]]
        sizes[carousel] = (len(hand.log), document, item, max(entries))
        assert item < 400 * 1024 and item < hand_records.MAX_SEALED_BYTES
        assert record.lost is None and len(entries) == 10
        assert hand_records.open_sealed(sealer, record.table_id, 1, puts[0]["Item"]["blob"][
            "B"]) == record
    print(f"\n{raises} raises: (log events, document JSON bytes, hand item bytes, "
          f"largest player entry bytes): {sizes}")


def test_r10_1_a_record_too_large_for_an_item_is_stored_without_its_log() -> None:
    sealer = Sealer(bytes(32))
    state = _long_naiko_hand(("peek", "sleeve_swap", "short_anchor"), 0)
    record = hand_records.build(state, table_id="t1", table_name="x", kind="cash",
                                started_ms=0, ended_ms=1)
    huge = HandRecord(**{**{f: getattr(record, f) for f in record.__dataclass_fields__},
                         "table_name": base64.b64encode(random.Random(1).randbytes(
                             hand_records.MAX_SEALED_BYTES)).decode()})  # incompressible
    opened = hand_records.open_sealed(sealer, "t1", 1, hand_records.seal(sealer, huge))
    assert opened.lost == "too_large" and opened.state is None
    assert opened.players == record.players and opened.results == record.results


# -- exports of a stored hand ------------------------------------------------------------------

def test_r10_1_a_stored_hand_exports_to_phh_pokerstars_and_ohh_for_its_reader() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    play_hands(h, table_id, players, 2, random.Random(6))
    record = h.store.hand(table_id, 1)
    assert record is not None
    state = record.table_state()
    hand = state.hand
    assert hand is not None
    for reader in ("p0", "p1", "p2", None):
        seat = None if reader is None else record.seat_of(reader)
        text = hand_records.export(record, "phh", reader)
        parsed = phh.loads(text)
        dealt = [a for a in parsed.actions if a.startswith("d dh")]
        assert len(dealt) == 3
        for line in dealt:
            shown = "??" not in line
            owner = int(parsed.extra["seats"][int(line.split()[2][1:]) - 1]) - 1
            assert shown == (owner == seat or hand.shown[owner]), (reader, line)
        stars = hand_records.export(record, "pokerstars", reader)
        assert stars.startswith("PokerStars Hand #")
        if seat is not None:
            assert f"Dealt to {reader} [{format_cards(hand.hole[seat], ' ')}]" in stars
        ohh = json.loads(hand_records.export(record, "ohh", reader))
        assert ohh["ohh"]["table_name"] == "t"
    with pytest.raises(hand_records.NotInHand):
        hand_records.export(record, "pokerstars", "stranger")


# -- naiko-history ---------------------------------------------------------------------------------

def test_r10_1_naiko_history_converts_stored_records_to_each_format(tmp_path: Any) -> None:
    import io
    import tomllib

    from naiko_local import history

    h = harness()
    table_id, players = seated(h, 3)
    play_hands(h, table_id, players, 3, random.Random(6))
    h.clock.advance(60_000)  # the NAIKO hand ends after the NLHE ones
    naiko_id, naiko_players = seated(h, 3, "NAIKO")
    play_hands(h, naiko_id, naiko_players, 1, random.Random(7))
    dump = io.StringIO()
    assert history.main(["--player", "p0", "--recent", "10", "--format", "record"],
                        histories=h.store, out=dump) == 0
    records = tmp_path / "records.jsonl"
    records.write_text(dump.getvalue())
    lines = dump.getvalue().splitlines()
    assert len(lines) == 4  # oldest first: the NLHE hands, then the NAIKO one
    assert [json.loads(line)["table_id"] for line in lines] == [table_id] * 3 + [naiko_id]

    def run(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = history.main(["--file", str(records), *args], out=out, err=err)
        return code, out.getvalue(), err.getvalue()

    record = h.store.hand(table_id, 2)
    assert record is not None
    hand = record.table_state().hand
    assert hand is not None
    seat = record.seat_of("p1")
    assert seat is not None
    code, text, _ = run("--table", table_id, "--hand", "2", "--format", "phh", "--player", "p1")
    assert code == 0
    parsed = phh.loads(text)
    assert parsed.players == [record.seats[s].player_id for s in
                              [int(x) - 1 for x in parsed.extra["seats"]]]
    assert f"{format_cards(hand.hole[seat])}" in text and tomllib.loads(text)["hand"] == 2
    code, text, _ = run("--table", table_id, "--hand", "2", "--format", "pokerstars",
                        "--player", "p1")
    assert code == 0 and text.startswith("PokerStars Hand #")
    assert f"Dealt to p1 [{format_cards(hand.hole[seat], ' ')}]" in text
    code, text, _ = run("--table", table_id, "--hand", "2", "--format", "ohh", "--player", "p1")
    assert code == 0 and json.loads(text)["ohh"]["hero_player_id"] is not None
    code, text, _ = run("--player", "p2", "--recent", "2", "--format", "json")
    assert code == 0
    assert [json.loads(line)["seat_index"] for line in text.splitlines()] == [
        r.seat_of("p2") for r in (h.store.hand(table_id, 3), h.store.hand(naiko_id, 1)) if r]
    # a table's hands, as an observer: the NLHE hands in PHH, one .phhs document
    code, text, _ = run("--table", table_id, "--format", "phh")
    assert code == 0 and [h.source for h in phh.loads_all(text)] == ["[1]", "[2]", "[3]"]
    assert "d dh p1 ????" in text  # an observer sees no hole card that was not shown
    # what a format cannot hold is skipped, and said
    # a Naiko hand is PHH's NT with the Naiko extension; an observer's copy keeps the unseen
    # hole cards and every peeked and swapped card unknown, and still replays (issue 14)
    code, text, err = run("--table", naiko_id, "--hand", "1", "--format", "phh")
    naiko = phh.loads(text)
    assert code == 0 and naiko.variant == "NT" and naiko.is_naiko
    extension = naiko.naiko
    assert extension is not None
    assert all(e.card is None and e.discarded is None and e.received is None
               for e in extension.powers)
    assert phh.replay(naiko).destellos == list(extension.finishing_destellos or ())
    code, _, err = run("--table", table_id, "--hand", "1", "--player", "stranger")
    assert code == 1 and "not dealt" in err
    with pytest.raises(SystemExit):
        run("--table", table_id, "--hand", "9")


def test_naiko_history_is_a_console_script() -> None:
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["naiko-history"] == "naiko_local.history:main"
