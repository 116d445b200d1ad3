"""R8.9 table chat: messages and emotes go to everyone watching the table at once (never the
table item: no write, no version), rate-limited per player, length-limited and normalised,
muted per connection, off as a table setting (a private host's choice), spectators apart during
a hand when the table says so, and kept with the hand's record as chat only (never in an
export's actions). Bad input: a clear error, nothing changed."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from naiko_service import hand_records
from naiko_service.limits import MAX_MUTES
from naiko_service.protocol import CHAT_TEXT_MAX
from naiko_service.ratelimit import ChatLimits
from service_testing import Harness, Player, harness
from test_histories import play_hands
from test_service import new_table, seated


def chats(player: Player) -> list[dict[str, Any]]:
    return [m for m in player.messages if m["type"] == "chat"]


def watch(h: Harness, table_id: str, name: str) -> Player:
    spectator = h.player(name)
    assert spectator.send(action="snapshot", table_id=table_id)["type"] == "snapshot"
    return spectator


def stored_state(h: Harness, table_id: str) -> tuple[int, int, int]:
    """The table item as stored: its lock version, the version players see, and the store's
    count of writes (of any table)."""
    record = h.store.load(table_id)
    return record.version, record.seq, h.store.writes


def test_r8_9_a_chat_message_reaches_everyone_watching_at_once_without_a_table_write() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    spectator = watch(h, table_id, "s0")
    before = stored_state(h, table_id)
    reply = players[0].send(action="chat", table_id=table_id, text="  good luck\u202e all  ")
    assert reply["type"] == "chat" and reply["text"] == "good luck all"
    assert reply["player_id"] == "p0" and reply["seat_index"] == 0
    # the server adds who and when, nothing else: no view, no cards, no version
    assert set(reply) == {"type", "table_id", "player_id", "seat_index", "at_ms", "text",
                          "request_id"}
    for watcher in (*players[1:], spectator):
        line, = chats(watcher)
        assert line == {k: v for k, v in reply.items() if k != "request_id"}
    assert stored_state(h, table_id) == before  # the hot item is not written per message
    emote = spectator.send(action="emote", table_id=table_id, emote="clap")
    assert emote["emote"] == "clap" and emote["seat_index"] is None and "text" not in emote
    assert all(chats(p)[-1]["emote"] == "clap" for p in players)


def test_r8_9_the_rate_limit_refuses_a_burst_and_lets_the_player_speak_again_later() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    limits = ChatLimits()
    for i in range(limits.burst):
        assert players[0].send(action="chat", table_id=table_id, text=f"hi {i}")["type"] == "chat"
    refused = players[0].send(action="chat", table_id=table_id, text="one too many")
    assert refused["code"] == "rate_limited" and refused["retry_after_ms"] == 2_000
    assert [c["text"] for c in chats(players[1])] == [f"hi {i}" for i in range(limits.burst)]
    assert players[1].send(action="chat", table_id=table_id, text="me")["type"] == "chat"
    h.clock.advance(refused["retry_after_ms"])
    assert players[0].send(action="chat", table_id=table_id, text="later")["type"] == "chat"


def test_r8_9_length_limit_and_bad_text_are_refused_and_nothing_is_said() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    before = stored_state(h, table_id)
    longest = "x" * CHAT_TEXT_MAX
    assert players[0].send(action="chat", table_id=table_id, text=longest)["text"] == longest
    for frame in ({"text": "x" * (CHAT_TEXT_MAX + 1)}, {"text": " \u202e\n\t "}, {"text": ""},
                  {"text": 5}, {"emote": "poop"}, {"text": "hi", "to": "p1"}):
        action = "emote" if "emote" in frame else "chat"
        reply = players[0].send(action=action, table_id=table_id, **frame)
        assert reply["type"] == "error" and reply["code"] == "invalid_request", (frame, reply)
        assert reply["message"]
    assert len(chats(players[1])) == 1 and stored_state(h, table_id) == before


def test_r8_9_a_connection_that_is_not_watching_the_table_cannot_chat_there() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    outsider = h.player("o1")
    reply = outsider.send(action="chat", table_id=table_id, text="hello")
    assert reply["code"] == "not_watching"
    assert outsider.send(action="chat", table_id="nope", text="hello")["code"] == "unknown_table"
    assert not chats(players[0])


def test_r8_9_a_muted_players_chat_is_not_pushed_to_the_muter_only() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    assert players[1].send(action="chat_mute", player_id="p0")["type"] == "ack"
    players[0].send(action="chat", table_id=table_id, text="can you hear me")
    players[0].send(action="emote", table_id=table_id, emote="gg")
    assert chats(players[1]) == [] and len(chats(players[2])) == 2
    assert players[1].send(action="chat_unmute", player_id="p0")["type"] == "ack"
    players[0].send(action="chat", table_id=table_id, text="now?")
    assert [c["text"] for c in chats(players[1])] == ["now?"]
    assert players[0].send(action="chat_mute", player_id="p0")["code"] == "invalid_request"


def test_r8_9_mutes_are_capped_per_connection() -> None:
    h = harness()
    player = h.player("p0")
    for i in range(MAX_MUTES):
        assert player.send(action="chat_mute", player_id=f"x{i}")["type"] == "ack"
    assert player.send(action="chat_mute", player_id="x0")["type"] == "ack"  # idempotent
    assert player.send(action="chat_mute", player_id="one_more")["code"] == "too_many_mutes"
    assert h.connections.muted[player.connection_id] == {f"x{i}" for i in range(MAX_MUTES)}


def test_r8_9_chat_off_is_a_table_setting_and_a_private_hosts_choice() -> None:
    h = harness()
    host = h.player("host")
    table_id = new_table(h, host, chat="off")
    assert host.send(action="snapshot", table_id=table_id)["view"]["settings"]["chat"] == "off"
    before = stored_state(h, table_id)
    assert host.send(action="chat", table_id=table_id, text="hi")["code"] == "chat_off"
    assert host.send(action="emote", table_id=table_id, emote="gg")["code"] == "chat_off"
    assert stored_state(h, table_id) == before
    # a public table has no host controls
    assert host.send(action="host_settings", table_id=table_id, chat="on")["code"] == \
        "not_private"
    friend = h.player("friend")
    private = new_table(h, host, private=True, invited=["friend"])
    host.send(action="snapshot", table_id=private)
    friend.send(action="snapshot", table_id=private)
    assert friend.send(action="host_settings", table_id=private, chat="off")["code"] == \
        "not_host"
    host.send(action="host_settings", table_id=private, chat="off")
    assert friend.last_view()["settings"]["chat"] == "off"
    assert [e for m in friend.messages if m["type"] == "update" for e in m["events"]
            if e["kind"] == "settings_changed"][-1]["changes"] == {"chat": "off"}
    assert friend.send(action="chat", table_id=private, text="hi")["code"] == "chat_off"
    host.send(action="host_settings", table_id=private, chat="on")
    assert friend.send(action="chat", table_id=private, text="hi")["type"] == "chat"


def test_r8_9_spectators_apart_during_a_hand_when_the_table_says_so() -> None:
    h = harness()
    table_id, players = seated(h, 3, chat="apart")
    spectators = [watch(h, table_id, f"s{i}") for i in range(2)]
    assert h.store.load(table_id).state.hand_in_progress
    players[0].send(action="chat", table_id=table_id, text="players only")
    spectators[0].send(action="chat", table_id=table_id, text="watchers only")
    assert [c["text"] for c in chats(players[1])] == ["players only"]
    assert [c["text"] for c in chats(spectators[1])] == ["watchers only"]
    assert [c["text"] for c in chats(players[0])] == ["players only"]
    assert [c["text"] for c in chats(spectators[0])] == ["watchers only"]


def test_r8_9_spectators_apart_only_during_a_hand() -> None:
    h = harness()
    host = h.player("p0")
    table_id = new_table(h, host, chat="apart")
    host.send(action="join_table", table_id=table_id, buy_in=200)
    spectator = watch(h, table_id, "s0")
    assert not h.store.load(table_id).state.hand_in_progress
    host.send(action="chat", table_id=table_id, text="between hands")
    assert [c["text"] for c in chats(spectator)] == ["between hands"]


def test_r8_9_history_has_the_chat_and_the_exports_do_not() -> None:
    h = harness()
    table_id, players = seated(h, 3)
    spectator = watch(h, table_id, "s0")
    players[0].send(action="chat", table_id=table_id, text="SECRET-WORD nice hand")
    spectator.send(action="emote", table_id=table_id, emote="wow")
    play_hands(h, table_id, players, 1, random.Random(3))
    hand = players[1].send(action="get_hand", table_id=table_id, hand_number=1)["hand"]
    assert [(c["player_id"], c.get("text"), c.get("emote")) for c in hand["chat"]] == [
        ("p0", "SECRET-WORD nice hand", None), ("s0", None, "wow")]
    assert all("SECRET-WORD" not in json.dumps(e) for e in hand["events"])
    record = h.store.hand(table_id, 1)
    assert record is not None and record.chat == ()  # the sealed record: the log untouched
    with_chat = hand_records.with_chat(record, h.chat_log.lines(table_id, 1))  # type: ignore[union-attr]
    assert with_chat.chat and "SECRET-WORD" in json.dumps(with_chat.to_document())
    for text in (hand_records.export(with_chat, "pokerstars", "p1"),
                 hand_records.export(with_chat, "phh", "p1")):
        assert "SECRET-WORD" not in text and "wow" not in text
    # a chat line between hands is not kept with any hand
    players[0].send(action="chat", table_id=table_id, text="between")
    assert h.store.load(table_id).state.hand_in_progress or all(
        c.text != "between" for c in h.chat_log.lines(table_id, 1))  # type: ignore[union-attr]


@pytest.mark.parametrize("in_hand", [True, False])
def test_r8_9_a_replayed_chat_request_is_answered_not_said_twice(in_hand: bool) -> None:
    """During a hand the kept line's key refuses the replay too (another container's); between
    hands only the container's memory of what it said does."""
    h = harness()
    table_id, players = seated(h, 3 if in_hand else 2)
    assert h.store.load(table_id).state.hand_in_progress is in_hand
    frame = {"action": "chat", "table_id": table_id, "text": "once", "request_id": "same"}
    assert players[0].send(**frame)["type"] == "chat"
    replay = players[0].send(**frame)
    assert replay["type"] == "ack" and replay["replayed"] is True
    assert [c["text"] for c in chats(players[1])] == ["once"]
    h.service.deps.chat_limiter = type(h.service.deps.chat_limiter)()  # another container
    again = players[0].send(**frame)
    if in_hand:
        assert again["type"] == "ack" and again["replayed"] is True
        assert [c["text"] for c in chats(players[1])] == ["once"]


@pytest.mark.parametrize("frame", [
    {"action": "chat", "table_id": "t", "text": "a" * 401},
    {"action": "chat_mute", "player_id": "has space"},
    {"action": "chat_unmute"},
    {"action": "emote", "table_id": "t"},
])
def test_r8_9_malformed_chat_frames_are_refused(frame: dict[str, Any]) -> None:
    h = harness()
    player = h.player("p0")
    assert player.send(**frame)["code"] == "invalid_request"
    assert not h.connections.muted.get(player.connection_id)
