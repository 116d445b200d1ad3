"""R8.4: BOT seats filled by the service act through the timer mechanism, from their own view."""

from __future__ import annotations

from typing import Any

import pytest
from naiko_service import protocol as p
from naiko_service.records import TableRecord
from naiko_service.usecases import ServiceError, private, tournaments, transaction
from naiko_service.usecases.base import Caller, Outcome
from naiko_service.usecases.private import HOUSE_BOTS
from service_testing import ACCEPTED, Harness, Player, harness


@pytest.mark.parametrize("variant", ["NLHE", "PLO", "NAIKO"])
def test_r8_4_bots_fill_seats_and_play_whole_hands_with_a_person(variant: str) -> None:
    h = harness(seed=3)
    human = h.player("human")
    ack = human.send(action="create_table", name="bots", variant=variant, small_blind=1,
                     big_blind=2, min_buy_in=40, max_buy_in=400, bots=True)
    table_id = ack["table_id"]
    h.accounts.grant(HOUSE_BOTS, 2_000)  # bots buy in from the house's bot account
    for i in range(2):
        h.service.add_bot(table_id, f"bot-{i}", 200)
    assert human.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    view = human.last_view()
    assert [s["is_bot"] for s in view["seats"][:3]] == [True, True, False]
    hands_seen = set()
    for _ in range(400):
        record = h.store.load(table_id)
        hand = record.state.hand
        assert hand is not None
        hands_seen.add(hand.number)
        if len(hands_seen) > 3:
            break
        prompt = human.last_view()["prompt"]
        if not hand.complete and prompt is not None:
            move = "check" if "check" in prompt["actions"] else "call"
            assert human.send(action="act", table_id=table_id, move=move)["type"] in ACCEPTED
            continue
        h.clock.advance(1_000)  # bots think, the pause between hands passes
        h.fire_due_timers()
    assert len(hands_seen) > 3, "play stalled"
    record = h.store.load(table_id)
    total = record.state.total_chips() + sum(h.accounts.balance(p) for p in
                                             ("human", HOUSE_BOTS))
    assert total == 10_000 + 2_000
    assert h.store.audit().holds  # the bots' chips are on the ledger, from the house
    # bots never acted on a timeout: every bot decision came from a bot timer
    timed_out = [e for m in human.messages if m["type"] == "update" for e in m["events"]
                 if e["kind"] == "timed_out"]
    assert timed_out == []


def test_bots_only_at_tables_created_with_bots() -> None:
    h = harness()
    human = h.player("human")
    table_id = human.send(action="create_table", name="no bots", small_blind=1, big_blind=2,
                          min_buy_in=40, max_buy_in=400)["table_id"]
    h.accounts.grant(HOUSE_BOTS, 1_000)
    with pytest.raises(ServiceError) as error:
        h.service.add_bot(table_id, "bot-0", 200)
    assert error.value.code == "bots_off"


# -- R8.4: a BOT's seat is the server's alone (issue 21 item 12) ---------------------------------

def _bot_table(h: Harness, bot: str) -> tuple[str, Player]:
    """A bots table: the BOT *bot* (seated by the server, whatever its id: a record from
    before the BOT namespace may hold one outside it), ``bot-1``, and a person; a hand is
    dealt and it is *bot*'s turn."""
    human = h.player("human")
    table_id = human.send(action="create_table", name="bots", small_blind=1, big_blind=2,
                          min_buy_in=40, max_buy_in=400, bots=True)["table_id"]
    h.accounts.grant(HOUSE_BOTS, 2_000)

    def seat(record: TableRecord, now: int) -> Outcome:
        return private.seat_bot(h.service.deps, record, now, bot, 200)

    transaction.mutate(h.service.deps, table_id, seat)  # as ops would, never a client
    if bot != "bot-1":
        h.service.add_bot(table_id, "bot-1", 200)
    assert human.send(action="join_table", table_id=table_id, buy_in=200)["type"] in ACCEPTED
    for _ in range(200):
        record = h.store.load(table_id)
        hand = record.state.hand
        if hand is not None and not hand.complete and hand.actor == record.seat_of(bot):
            return table_id, human
        prompt = human.last_view()["prompt"]
        if hand is not None and not hand.complete and prompt is not None:
            human.send(action="act", table_id=table_id, move="call" if "call" in
                       prompt["actions"] else "check")
            continue
        h.clock.advance(100)  # the deal, never the bot's 0.8 s thinking
        for table, token, due, kind in list(h.scheduler.scheduled):
            if due <= h.clock.now and kind != "bot":
                h.scheduler.scheduled.remove((table, token, due, kind))
                h.service.timer_fired(table, token)
    raise AssertionError(f"never {bot}'s turn")


def _impersonator(h: Harness, player_id: str) -> Player:
    """A connection bound to *player_id*, as if a token had been issued for it."""
    connection_id = f"conn-{player_id}-impostor"
    h.service.connect(connection_id, player_id)
    return Player(h, player_id, connection_id)


def _seat_requests(table_id: str) -> list[dict[str, Any]]:
    return [
        {"action": "act", "table_id": table_id, "move": "fold"},
        {"action": "act", "table_id": table_id, "move": "call"},
        {"action": "sit_out", "table_id": table_id},
        {"action": "sit_in", "table_id": table_id},
        {"action": "leave_table", "table_id": table_id},
        {"action": "add_chips", "table_id": table_id, "amount": 10},
        {"action": "choose_entry", "table_id": table_id, "entry": "post"},
        {"action": "use_power", "table_id": table_id, "power": "peek"},
        {"action": "shield", "table_id": table_id},
        {"action": "pass_window", "table_id": table_id},
        {"action": "join_waitlist", "table_id": table_id},
        {"action": "unwatch", "table_id": table_id},
        {"action": "snapshot", "table_id": table_id},
    ]


def _refused_and_nothing_changed(h: Harness, table_id: str, player: Player,
                                 frames: list[dict[str, Any]]) -> None:
    before = h.store.load(table_id)
    balances = {p: h.accounts.balance(p) for p in (HOUSE_BOTS, "human", player.player_id)}
    sent = {c: len(m) for c, m in h.gateway.sent.items() if c != player.connection_id}
    for frame in frames:
        reply = player.send(**frame)
        assert (reply["type"], reply["code"]) == ("error", "bot_seat"), (frame, reply)
    after = h.store.load(table_id)
    assert (after.version, after.state.to_dict(), after.connections) == (
        before.version, before.state.to_dict(), before.connections)
    assert {p: h.accounts.balance(p) for p in balances} == balances
    assert {c: len(h.gateway.sent[c]) for c in sent} == sent  # nobody was told anything
    assert h.store.audit().holds


def test_r8_4_bots_are_the_servers_no_request_from_a_bot_id_is_answered() -> None:
    """A connection bound to a BOT's id (the authorizer admits no such token) is answered
    ``bot_seat`` for every request: acting on the BOT's turn, sitting it out, making it leave,
    reading its hands, its account, anything; the table does not change."""
    h = harness(seed=3)
    table_id, _ = _bot_table(h, "bot-2")
    for bot in ("bot-1", "bot-2", "BOT-2"):
        impostor = _impersonator(h, bot)
        _refused_and_nothing_changed(h, table_id, impostor, _seat_requests(table_id) + [
            {"action": "join_table", "table_id": table_id, "buy_in": 100},
            {"action": "hand_history"},
            {"action": "get_hand", "table_id": table_id, "hand_number": 1},
            {"action": "get_account"},
            {"action": "list_tables"},
            {"action": "create_table", "name": "mine", "small_blind": 1, "big_blind": 2,
             "min_buy_in": 40, "max_buy_in": 400},
            {"action": "list_tournaments"},
        ])


def test_r8_4_bots_know_only_their_own_cards_a_bot_seat_is_nobodys_whatever_its_id() -> None:
    """Defence in depth: a seat marked BOT whose id is outside the BOT namespace (a record
    from before it) is still the server's. Its namesake's requests at that table, on the BOT's
    turn, are all refused ``bot_seat``, its view (its cards) is never sent, and the BOT goes on
    acting on its own timer."""
    h = harness(seed=3)
    table_id, human = _bot_table(h, "legacy")
    namesake = _impersonator(h, "legacy")
    _refused_and_nothing_changed(h, table_id, namesake, _seat_requests(table_id))
    assert not any("view" in m for m in namesake.messages)
    bot_seat = h.store.load(table_id).seat_of("legacy")
    hand = h.store.load(table_id).state.hand
    assert hand is not None and hand.actor == bot_seat
    h.clock.advance(1_000)
    h.fire_due_timers()  # the BOT's own timer: it acts
    after = h.store.load(table_id).state.hand
    assert after is not None and (after.number, after.actor) != (hand.number, bot_seat)
    assert h.store.audit().holds


def test_r8_4_a_bots_stored_hands_are_read_by_nobody() -> None:
    """R8.4, R10.1: a BOT's hands are not listed for anyone, and ``get_hand`` of a hand where
    the reader's seat was a BOT's is refused ``bot_seat`` (the person there reads it)."""
    h = harness(seed=3)
    table_id, human = _bot_table(h, "legacy")
    for _ in range(400):
        if h.store.hand(table_id, 1) is not None:
            break
        prompt = human.last_view()["prompt"]
        if prompt is not None:
            human.send(action="act", table_id=table_id, move="fold")
            continue
        h.clock.advance(1_000)
        h.fire_due_timers()
    assert h.store.hand(table_id, 1) is not None
    assert human.send(action="get_hand", table_id=table_id, hand_number=1)["type"] == "hand"
    namesake = _impersonator(h, "legacy")
    reply = namesake.send(action="get_hand", table_id=table_id, hand_number=1)
    assert (reply["type"], reply["code"]) == ("error", "bot_seat")
    assert namesake.send(action="hand_history")["hands"] == []


def test_r8_4_a_bots_tournament_entry_is_the_servers() -> None:
    """``unregister`` of a BOT's entry is refused ``bot_seat`` even past the id check (the
    use case itself, called as a request from the BOT's id would be), and the entry stays."""
    h = harness()
    creator = h.player("ann")
    tid = creator.send(action="create_tournament", preset="spin_3max_hyper", entry=100,
                       bots=True)["tournament_id"]
    h.accounts.grant(HOUSE_BOTS, 1_000)
    assert creator.send(action="tournament_add_bots", tournament_id=tid,
                        count=1)["type"] == "ack"
    house = h.accounts.balance(HOUSE_BOTS)
    with pytest.raises(ServiceError) as caught:
        tournaments.unregister(h.service.deps, Caller("conn-x", "bot-1", "r1"),
                               p.Unregister(action="unregister", request_id="r1",
                                            tournament_id=tid))
    assert caught.value.code == "bot_seat"
    assert h.accounts.balance(HOUSE_BOTS) == house
    assert creator.send(action="tournament_players", tournament_id=tid)["players"] == [
        {"player_id": "bot-1", "bot": True}]
    with pytest.raises(ValueError, match="BOT"):  # a BOT entry outside the namespace
        tournaments.enter(h.service.deps, None, tid,
                          [tournaments.Entrant("legacy", HOUSE_BOTS, True)])
    with pytest.raises(ValueError, match="BOT"):  # a person inside it
        tournaments.enter(h.service.deps, None, tid,
                          [tournaments.Entrant("bot-9", "bot-9", False)])
    with pytest.raises(ValueError, match="BOT"):  # nor does ops seat a BOT outside it
        h.service.add_bot("any-table", "robot-1", 200)


def test_r8_4_a_house_bot_that_goes_broke_reloads_and_the_table_keeps_playing() -> None:
    """Issue 28 item 4: the demo table wore out (broke BOTs sat at 0, were removed after 10
    minutes and never replaced). A house-funded BOT reloads to the middle buy-in from
    ``house:bots`` the moment it is broke; chips stay conserved and on the ledger."""
    h = harness(seed=5)
    human = h.player("human")
    table_id = human.send(action="create_table", name="bots", small_blind=1, big_blind=2,
                          min_buy_in=40, max_buy_in=400, bots=True)["table_id"]
    h.accounts.grant(HOUSE_BOTS, 10_000)
    for i in range(2):
        h.service.add_bot(table_id, f"bot-{i}", 40)
    assert human.send(action="join_table", table_id=table_id, buy_in=400)["type"] in ACCEPTED
    reloads: list[int] = []
    for _ in range(3_000):
        record = h.store.load(table_id)
        hand = record.state.hand
        reloads = [e["amount"] for m in human.messages if m["type"] == "update"
                   for e in m["events"] if e["kind"] == "chips_added"]
        if reloads and hand is not None and hand.number > 1 + len(reloads) and not hand.complete:
            break
        prompt = human.last_view()["prompt"]
        if hand is not None and not hand.complete and prompt is not None:
            assert human.send(action="act", table_id=table_id, move="all_in")["type"] in ACCEPTED
            continue
        h.clock.advance(1_000)
        h.fire_due_timers()
    assert reloads and set(reloads) == {220}, "no broke BOT reloaded"
    record = h.store.load(table_id)
    bots = [s for s in record.state.seats if s is not None and s.is_bot]
    assert len(bots) == 2 and not any(s.sitting_out for s in bots)
    assert record.state.hand is not None and not record.state.hand.complete  # still dealing
    total = record.state.total_chips() + sum(h.accounts.balance(p) for p in
                                             ("human", HOUSE_BOTS))
    assert total == 10_000 + 10_000
    assert h.store.audit().holds
