"""The table service on in-memory adapters: whole hands through the use cases."""

from __future__ import annotations

from service_testing import harness


def test_three_players_play_a_hand_and_the_next_starts_after_the_pause() -> None:
    h = harness()
    alice, bob, carol = h.player("alice"), h.player("bob"), h.player("carol")
    ack = alice.send(action="create_table", name="Friday", small_blind=1, big_blind=2,
                     min_buy_in=40, max_buy_in=200)
    assert ack["type"] in ("ack", "update")
    table_id = ack["table_id"]
    for p in (alice, bob, carol):
        reply = p.send(action="join_table", table_id=table_id, buy_in=100)
        assert reply["type"] in ("ack", "update"), reply
    assert h.accounts.balance("alice") == 9_900
    view = alice.last_view()
    assert view["hand"] is not None and view["hand"]["number"] == 1
    players = {"alice": alice, "bob": bob, "carol": carol}
    for _ in range(20):
        view = alice.last_view()
        if view["hand"]["complete"]:
            break
        actor = view["hand"]["actor"]
        who = next(p for p in players.values()
                   if view["seats"][actor]["player_id"] == p.player_id)
        prompt = who.last_view()["prompt"]
        move = "check" if "check" in prompt["actions"] else "call"
        reply = who.send(action="act", table_id=table_id, move=move)
        assert reply["type"] in ("ack", "update"), reply
    assert alice.last_view()["hand"]["complete"]
    total = sum(s["stack"] for s in alice.last_view()["seats"] if s)
    assert total == 300
    h.clock.advance(3_000)
    assert h.fire_due_timers() >= 1
    assert alice.last_view()["hand"]["number"] == 2
