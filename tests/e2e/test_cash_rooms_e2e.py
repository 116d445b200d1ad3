"""Cash rooms end to end on the local stack (R7.8, R7.10, R7.12), over real WebSocket
connections: a host opens a private 3-seat table and shares an invite code; a friend finds the
table by the code and sits; the host seats a BOT (its chips from the house); two more friends
queue on the full table's waiting list; when the friend leaves, the first in line lets the
offer expire and the next takes the seat, posting a big blind to be dealt in."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("flask", reason="moto's server needs moto[server]")

from naiko_local.stack import LocalStack, StackConfig  # noqa: E402
from service_testing import ACCEPTED
from test_local_stack import Player, hand_running, run, unique  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

OFFER_SECONDS = 2


@pytest.fixture
def stack() -> Any:
    local = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1,
                                   offer_seconds=OFFER_SECONDS))
    local.start()
    try:
        yield local
    finally:
        local.stop()


def kinds(player: Player, kind: str) -> list[dict[str, Any]]:
    return [e for e in player.events if e["kind"] == kind]


def test_a_private_table_with_an_invite_code_a_waiting_list_and_a_post(stack: LocalStack
                                                                        ) -> None:
    async def scenario() -> None:
        host, friend, first, second = (Player(stack, unique(n), seed=i) for i, n in
                                       enumerate(("host", "friend", "first", "second")))
        for player in (host, friend, first, second):
            await player.connect()
        made = await host.request({"action": "create_table", "name": "friends", "seat_count": 3,
                                   "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                                   "max_buy_in": 400, "private": True, "bots": True})
        assert made["type"] in ("ack", "update"), made
        table_id = made["table_id"]
        assert (await host.request({"action": "join_table", "table_id": table_id,
                                    "buy_in": 200}))["type"] in ("ack", "update")
        await host.request({"action": "create_invite_code", "table_id": table_id})
        code = (await host.wait_for(lambda: next(
            (m for m in host.messages if m.get("type") == "invite_code"), None)))["code"]

        # A friend finds the table by its code and sits; a stranger without it may not watch.
        found = await friend.request({"action": "find_table", "code": code})
        assert found == {**found, "type": "table_found", "table_id": table_id}
        assert (await friend.request({"action": "join_table", "table_id": table_id,
                                      "buy_in": 200, "invite_code": code}))["type"] in ACCEPTED
        refused = await first.request({"action": "snapshot", "table_id": table_id})
        assert refused["code"] == "not_invited"

        # The host seats a BOT: the table is full and a hand runs.
        assert (await host.request({"action": "host_add_bot", "table_id": table_id}))["type"] \
            in ACCEPTED
        await host.wait_for(lambda: hand_running(host.view), timeout=10)

        # Two friends of the host queue with the code.
        for waiting in (first, second):
            watched = await waiting.request({"action": "snapshot", "table_id": table_id,
                                             "invite_code": code})
            assert watched["type"] == "snapshot", watched
            assert (await waiting.request({"action": "join_waitlist",
                                           "table_id": table_id}))["type"] in ("ack", "update")
        await host.wait_for(lambda: host.view and host.view["room"]["waitlist"]
                            == [first.player_id, second.player_id])

        # The friend leaves (after the hand if still in it): the seat is offered to "first",
        # who lets it expire; "second" is offered it next and takes it, posting to come in.
        assert (await friend.request({"action": "leave_table", "table_id": table_id}))["type"] \
            in ACCEPTED
        # The host plays meanwhile (left alone, each of their turns waited out the decision
        # clock: this step took 20-60 s instead of a few).
        def friend_gone() -> bool:
            return friend.player_id not in [
                s["player_id"] for s in (host.view or {}).get("seats", []) if s]

        await asyncio.gather(friend.play(table_id, until=friend_gone),
                             host.play(table_id, until=friend_gone))
        await first.wait_for(lambda: kinds(first, "seat_offered"), timeout=20)
        await first.wait_for(lambda: kinds(first, "offer_expired"), timeout=OFFER_SECONDS + 10)
        await second.wait_for(lambda: kinds(second, "seat_offered"), timeout=10)
        assert not kinds(host, "seat_offered")  # only the player offered is told
        joined = await second.request({"action": "join_table", "table_id": table_id,
                                       "buy_in": 200, "entry": "post"})
        assert joined["type"] in ("ack", "update"), joined

        # The table had 3 players dealt in before: the newcomer posts (or the big blind reaches
        # them) before playing a hand.
        def dealt_in() -> Any:
            view = second.view or {}
            me = next((s for s in view.get("seats", []) if s and s["player_id"]
                       == second.player_id), None)
            return me and me.get("in_hand") and hand_running(view)

        players = [host, second]
        await asyncio.gather(*(p.play(table_id, until=lambda: bool(dealt_in()))
                               for p in players))
        seat = next(s for s in second.view["seats"] if s and s["player_id"]  # type: ignore
                    == second.player_id)["seat_index"]
        posts = [e for e in second.events if e["kind"] == "blind_posted"
                 and e["seat_index"] == seat]
        if posts:
            assert posts[-1]["blind"] in ("post", "big")
        else:  # a loaded machine: the client caught up from a snapshot, not the events
            view = second.view or {}
            hand = view["hand"]
            me = view["seats"][seat]
            assert hand["big_blind_seat"] == seat or me.get("bet", 0) >= 2 or not me.get(
                "owes_big"), view
        for player in (host, friend, first, second):
            await player.close()

    run(scenario(), timeout=120)
