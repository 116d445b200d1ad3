"""Tournaments end to end on the local stack, over real WebSocket connections: a heads-up
Sit & Go against a BOT, and a Spin (R9.1, R9.2, R9.4, R9.5, R9.9, R9.10): a player lists a Spin
with BOTs allowed, registers, a friend registers, the creator fills the last seat with a BOT;
the multiplier is shown before the first hand; the humans play (the friend drops out and is
blinded away, R9.4) until one player is left; the places and prizes arrive as events and on
the accounts (the house prize account pays, R9.10)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("flask", reason="moto's server needs moto[server]")

from naiko_local.stack import WELCOME_CHIPS, LocalStack, StackConfig  # noqa: E402
from test_local_stack import Player, my_turn, run, unique  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

ENTRY = 50


@pytest.fixture
def stack() -> Any:
    """A local stack whose BOTs think 0.1 s (0.8 s by default: a BOT's thinking time is no
    part of what these tests check, and a Spin waits for it at each of its dozens of hands)."""
    local = LocalStack(StackConfig(port=0, management_port=0, pause_seconds=1))
    local.start()
    local.service.deps.bot_think_ms = 100
    try:
        yield local
    finally:
        local.stop()


def kinds(player: Player, kind: str) -> list[dict[str, Any]]:
    return [e for e in player.events if e["kind"] == kind]


async def shove(player: Player, table_id: str) -> None:
    """Move all in (or call, or check) at every turn until the tournament is over."""
    acted = None
    while not kinds(player, "tournament_finished"):
        view = player.view
        if view is not None and my_turn(view) and acted != player.version:
            acted = player.version
            actions = view["prompt"]["actions"]
            move = "all_in" if "all_in" in actions else (
                "call" if "call" in actions else "check")
            await player.send({"action": "act", "table_id": table_id, "move": move})
        player._changed.clear()
        if kinds(player, "tournament_finished"):
            return
        try:
            async with asyncio.timeout(0.5):
                await player._changed.wait()
        except TimeoutError:
            pass


def test_a_heads_up_sit_and_go_against_a_bot(stack: LocalStack) -> None:
    async def scenario() -> None:
        ann = Player(stack, unique("ann"), seed=3)
        await ann.connect()
        made = await ann.request({"action": "create_tournament", "entry": ENTRY, "bots": True,
                                  "preset": "sng_headsup_hyper"})
        tid = made["tournament_id"]
        assert (await ann.request({"action": "register", "tournament_id": tid}))[
            "type"] == "ack"
        assert (await ann.request({"action": "tournament_add_bots", "tournament_id": tid}))[
            "type"] == "ack"
        await ann.wait_for(lambda: kinds(ann, "tournament_started"), timeout=10)
        table_id = next(m["table_id"] for m in ann.messages if m.get("type") == "update")
        await shove(ann, table_id)
        winner = kinds(ann, "tournament_finished")[0]
        assert winner["prize"] == 2 * ENTRY  # heads-up: winner takes all (R9.9)
        account = await ann.request({"action": "get_account"})
        won = winner["winner"] == ann.player_id
        assert account["balance"] == WELCOME_CHIPS - ENTRY + (2 * ENTRY if won else 0)
        await ann.close()

    run(scenario(), timeout=120)


def test_a_spin_with_a_bot_played_to_its_prizes(stack: LocalStack) -> None:
    async def scenario() -> None:
        ann, bob = Player(stack, unique("ann"), seed=1), Player(stack, unique("bob"), seed=2)
        for player in (ann, bob):
            await player.connect()
        made = await ann.request({"action": "create_tournament", "preset": "spin_3max_hyper",
                                  "entry": ENTRY, "bots": True, "name": "e2e spin"})
        assert made["type"] == "ack", made
        tid = made["tournament_id"]
        listed = await bob.request({"action": "list_tournaments"})
        assert tid in [t["tournament_id"] for t in listed["tournaments"]]
        for player in (ann, bob):
            assert (await player.request({"action": "register", "tournament_id": tid}))[
                "type"] == "ack"
        assert (await ann.request({"action": "unregister", "tournament_id": tid}))[
            "type"] == "ack"  # changed her mind (R9.1), and back
        assert (await ann.request({"action": "register", "tournament_id": tid}))[
            "type"] == "ack"
        assert (await ann.request({"action": "tournament_add_bots", "tournament_id": tid}))[
            "type"] == "ack"
        started = await ann.wait_for(lambda: kinds(ann, "tournament_started"), timeout=10)
        multiplier = started[0]["multiplier"]
        assert multiplier >= 2 and sum(started[0]["payouts"]) == ENTRY * multiplier
        assert not kinds(ann, "hand_started")  # the multiplier comes before any card
        table_id = started[0]["table_id"] if "table_id" in started[0] else \
            next(m["table_id"] for m in ann.messages if m.get("type") == "update")
        # bob goes away: he is dealt in and blinded away (R9.4); ann moves all in each turn.
        await bob.request({"action": "sit_out", "table_id": table_id})

        await shove(ann, table_id)
        finished = kinds(ann, "tournament_finished")[0]
        out = kinds(ann, "eliminated")
        assert sorted(e["place"] for e in out) in ([2, 3], [2, 2])
        winner_prize = finished["prize"]
        assert winner_prize > 0
        summary = await ann.request({"action": "get_tournament", "tournament_id": tid})
        tournament = summary["tournament"]
        assert tournament["status"] == "finished"
        standings = await ann.request({"action": "tournament_results", "tournament_id": tid})
        assert standings["next"] is None
        prizes = {r["player_id"]: r["prize"] for r in standings["results"]}
        assert sum(prizes.values()) == ENTRY * multiplier
        for player in (ann, bob):  # each account: the welcome chips - entry + prize
            account = await player.request({"action": "get_account"})
            assert account["balance"] == WELCOME_CHIPS - ENTRY + prizes.get(
                player.player_id, 0), (account, prizes)
        for player in (ann, bob):
            await player.close()

    run(scenario(), timeout=150)
