"""Push notifications in the local stack (issue 25, item 4): a player registers a phone over the
real WebSocket API, loses the network mid-game, and when their turn comes the stack's notifier
records the notification, logs it (``naiko_local.push``) and serves it to the web client
(``GET /api/notifications``); the players still connected are not notified."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.request
from typing import Any

import pytest

pytest.importorskip("websockets")
pytest.importorskip("flask", reason="moto's server needs moto[server]")

from naiko import bots  # noqa: E402
from naiko_local.stack import LocalStack, frame_for, my_turn  # noqa: E402
from naiko_local.web import WebServer  # noqa: E402
from test_local_stack import Player, run, seat, stack, unique  # noqa: E402, F401 (fixture)


def test_r8_1_a_player_whose_app_sleeps_is_notified_of_their_turn_and_the_web_shows_it(
        stack: LocalStack, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    caplog.set_level(logging.INFO, logger="naiko_local.push")

    async def scenario() -> str:
        players = [Player(stack, unique(f"push{i}"), seed=30 + i) for i in range(3)]
        table_id = await seat(players, decision_seconds=5)
        sleeper, others = players[2], players[:2]
        for player in players:
            ack = await player.request({"action": "register_device", "platform": "fcm",
                                        "token": f"tok-{player.player_id}"})
            assert ack["type"] == "ack", ack
        # The first hand started with the sleeper's seat. If its first turn is already here,
        # it was prompted while connected (no push, rightly): it acts, so its next turn comes
        # with the app asleep. (Left to time out, it would sit out and never be called on.)
        if my_turn(sleeper.view):
            seen = sleeper.version
            command = bots.decide(sleeper.view, sleeper.rng)
            assert command is not None
            await sleeper.send(frame_for(command, table_id))
            await sleeper.wait_for(lambda: sleeper.version > seen)
        assert not my_turn(sleeper.view)
        await sleeper.drop()  # the phone backgrounds the app: the WebSocket is gone

        def notified() -> bool:
            return any(n["kind"] == "turn" for n in stack.notifications_of(sleeper.player_id))

        playing = [asyncio.create_task(p.play(table_id, notified)) for p in others]
        async with asyncio.timeout(60):  # a 5 s clock per silent turn; a loaded machine
            while not notified():
                await asyncio.sleep(0.1)
        for task in playing:
            await task
        for player in others:
            await player.close()
            assert stack.notifications_of(player.player_id) == []  # connected: no push
        return sleeper.player_id

    sleeper = run(scenario(), timeout=90)
    turn = next(n for n in stack.notifications_of(sleeper) if n["kind"] == "turn")
    assert turn["title"] == "Your turn" and turn["body"] == "It is your turn at e2e NLHE."
    assert turn["platform"] == "fcm" and set(turn["data"]) == {"table_id"}
    assert any(sleeper in r.getMessage() and "Your turn" in r.getMessage()
               for r in caplog.records if r.name == "naiko_local.push")
    web = WebServer("127.0.0.1", 0, ws_port=stack.gateway.port,
                    mint=lambda player, ttl: stack.token(player, ttl),
                    notifications=stack.notifications_of).start()
    try:
        url = f"{web.url}api/notifications?player={sleeper}"
        with urllib.request.urlopen(url, timeout=5) as response:
            answer: dict[str, Any] = json.loads(response.read())
    finally:
        web.stop()
    assert answer["player_id"] == sleeper and turn in answer["notifications"]
