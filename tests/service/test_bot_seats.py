"""R8.4: BOT seats filled by the service act through the timer mechanism, from their own view."""

from __future__ import annotations

import pytest
from naiko_service.usecases.private import HOUSE_BOTS
from service_testing import ACCEPTED, harness


@pytest.mark.parametrize("variant", ["NLHE", "PLO", "NAIKO"])
def test_r8_4_bots_fill_seats_and_play_whole_hands_with_a_person(variant: str) -> None:
    h = harness(seed=3)
    human = h.player("human")
    ack = human.send(action="create_table", name="bots", variant=variant, small_blind=1,
                     big_blind=2, min_buy_in=40, max_buy_in=400, bots=True)
    table_id = ack["table_id"]
    h.accounts.grant(HOUSE_BOTS, 2_000)  # bots buy in from the house's bot account
    for i in range(2):
        h.service.add_bot(table_id, f"bot{i}", 200)
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
    h.accounts.grant("bot0", 1_000)
    from naiko_service.usecases import ServiceError

    with pytest.raises(ServiceError) as error:
        h.service.add_bot(table_id, "bot0", 200)
    assert error.value.code == "bots_off"
