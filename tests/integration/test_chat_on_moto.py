"""R8.9 table chat on the DynamoDB adapters (moto, tables from template.yaml): a connection's
mutes (the ``muted`` set, capped in its condition), the batched read of the recipients' mutes,
and the chat lines kept next to the hands' records (one item per line, a replay stored once),
then a whole chat through the service: nothing written to the table item."""

from __future__ import annotations

import pytest
from naiko.cards import seeded_random
from naiko_service import limits
from naiko_service.aws.histories import DynamoChatLog
from naiko_service.hand_records import ChatLine
from naiko_service.memory import ManualClock, RecordingGateway, RecordingScheduler
from naiko_service.ports import TooManyMutes
from naiko_service.usecases import Deps, TableService
from service_testing import Harness
from test_dynamodb_adapters import Aws, aws  # noqa: F401 - the fixture
from test_service import seated


def test_r8_9_mutes_are_a_capped_set_on_the_connection_item(aws: Aws) -> None:  # noqa: F811
    connections = aws.connections
    connections.bind("c1", "alice", 0)
    connections.bind("c2", "bob", 0)
    for i in range(limits.MAX_MUTES):
        connections.mute("c1", f"p{i}")
    connections.mute("c1", "p0")  # idempotent, even at the cap
    with pytest.raises(TooManyMutes):
        connections.mute("c1", "one-more")
    connections.unmute("c1", "p3")
    connections.unmute("c1", "p3")  # idempotent
    connections.mute("c1", "one-more")
    connections.mute("c2", "alice")
    many = ["c1", "c2", "c-gone", *(f"c-none-{i}" for i in range(150))]  # two batches
    muted = connections.muted_by(many)
    assert muted == {"c1": frozenset({*(f"p{i}" for i in range(limits.MAX_MUTES) if i != 3),
                                      "one-more"}),
                     "c2": frozenset({"alice"})}
    connections.mute("c-gone", "alice")  # no item: nothing is created, no error
    connections.unmute("c-gone", "alice")
    assert connections.player_of("c-gone") is None and connections.muted_by(["c-gone"]) == {}


def test_r8_9_chat_lines_are_kept_per_hand_once_per_request(aws: Aws) -> None:  # noqa: F811
    log = DynamoChatLog(aws.client, aws.names["HandHistoryTable"], retention_days=30)
    first = ChatLine("alice", 0, 1_700_000_001_000, text="gl \u2663")
    second = ChatLine("dave", None, 1_700_000_000_500, emote="clap")
    assert log.add("t1", 7, "alice/r1", first)
    assert not log.add("t1", 7, "alice/r1", first)  # a replay: stored once
    assert log.add("t1", 7, "dave/r2", second)
    assert log.add("t1", 8, "alice/r3", ChatLine("alice", 0, 1_700_000_009_000, text="x"))
    assert log.lines("t1", 7) == [second, first]  # oldest first
    assert log.lines("t1", 9) == []
    item = aws.client.get_item(TableName=aws.names["HandHistoryTable"], Key={
        "pk": {"S": "chat#t1#0000000007"}, "sk": {"S": "alice/r1"}})["Item"]
    assert int(item["expires_at"]["N"]) == 1_700_000_001 + 30 * 86_400


def test_r8_9_a_chat_reads_the_table_item_and_never_writes_it(aws: Aws) -> None:  # noqa: F811
    gateway, scheduler, clock = RecordingGateway(), RecordingScheduler(), ManualClock()
    log = DynamoChatLog(aws.client, aws.names["HandHistoryTable"])
    deps = Deps(tables=aws.store, accounts=aws.accounts, connections=aws.connections,
                gateway=gateway, scheduler=scheduler, clock=clock, rng=seeded_random(3),
                chat_log=log)
    h = Harness(TableService(deps), aws.store, aws.accounts, gateway,  # type: ignore[arg-type]
                scheduler, clock, aws.connections)  # type: ignore[arg-type]
    table_id, players = seated(h, 3)
    before = aws.raw(table_id)
    assert players[2].send(action="chat_mute", player_id="p0")["type"] == "ack"
    assert players[0].send(action="chat", table_id=table_id, text="hello")["type"] == "chat"
    assert aws.raw(table_id) == before  # not one write of the table item
    assert [m["text"] for m in gateway.sent[players[1].connection_id] if m["type"] == "chat"] \
        == ["hello"]
    assert not [m for m in gateway.sent[players[2].connection_id] if m["type"] == "chat"]
    hand = aws.store.load(table_id).state.hand
    assert hand is not None and [line.text for line in log.lines(table_id, hand.number)] == [
        "hello"]
