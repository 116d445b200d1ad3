"""Push notifications on moto (issue 25, item 4): the SNS adapter (one platform endpoint per
device, ``MessageStructure=json`` per platform, a disabled endpoint forgotten and enabled again
when the app registers its token anew), the device books on the connections table made from
``template.yaml``, and a turn notified through the service on both."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from aws_testing import REGION, create_tables_from_template
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID
from moto.sns import sns_backends
from naiko_service import i18n
from naiko_service.aws.dynamodb import DEVICES_PREFIX, DynamoDevices
from naiko_service.aws.notifier import NoNotifier, SnsNotifier, payload
from naiko_service.ports import (
    Device,
    EndpointDisabled,
    Notification,
    NotificationKind,
    Platform,
    PushUnavailable,
)
from naiko_service.usecases import push
from service_testing import ACCEPTED, harness
from test_push import call_or_check, next_actor_after
from test_service import actor, seated

TURN = Notification(NotificationKind.TURN, "Your turn", "It is your turn at Demo NLHE.",
                    {"table_id": "t1"})


@dataclass
class Sns:
    client: Any
    notifier: SnsNotifier
    applications: dict[Platform, str]

    def messages(self, arn: str) -> list[dict[str, Any]]:
        """What moto's endpoint received, parsed (``MessageStructure=json`` bodies)."""
        backend = sns_backends[DEFAULT_ACCOUNT_ID][REGION]
        return [json.loads(m) for m in backend.platform_endpoints[arn].messages.values()]


@pytest.fixture
def sns() -> Iterator[Sns]:
    with mock_aws():
        client = boto3.client("sns", region_name=REGION)
        applications = {
            platform: client.create_platform_application(
                Name=f"naiko-{platform}", Platform=name,
                Attributes={"PlatformCredential": "secret"})["PlatformApplicationArn"]
            for platform, name in ((Platform.APNS, "APNS"),
                                   (Platform.APNS_SANDBOX, "APNS_SANDBOX"),
                                   (Platform.FCM, "GCM"))}
        yield Sns(client, SnsNotifier(client, applications), applications)


def test_one_platform_endpoint_per_device_on_its_platform_s_application(sns: Sns) -> None:
    ios = sns.notifier.endpoint(Platform.APNS, "a1b2" * 16, "erin")
    android = sns.notifier.endpoint(Platform.FCM, "fcm:token-1", "erin")
    assert ":endpoint/APNS/naiko-apns/" in ios and ":endpoint/GCM/naiko-fcm/" in android
    assert sns.notifier.endpoint(Platform.APNS, "a1b2" * 16, "erin") == ios  # idempotent
    listed = sns.client.list_endpoints_by_platform_application(
        PlatformApplicationArn=sns.applications[Platform.APNS])["Endpoints"]
    assert [e["EndpointArn"] for e in listed] == [ios]
    attributes = sns.client.get_endpoint_attributes(EndpointArn=ios)["Attributes"]
    assert attributes["Token"] == "a1b2" * 16 and attributes["Enabled"] in (True, "true")
    assert "erin" not in json.dumps(attributes)  # no player id goes to SNS


def test_publish_sends_the_platform_s_payload_and_nothing_else(sns: Sns) -> None:
    for platform in Platform:
        arn = sns.notifier.endpoint(platform, f"tok-{platform}", "erin")
        sns.notifier.publish(Device(platform, f"tok-{platform}", arn), TURN)
        (message,) = sns.messages(arn)
        key = {"apns": "APNS", "apns_sandbox": "APNS_SANDBOX", "fcm": "GCM"}[platform]
        assert set(message) == {"default", key} and message["default"] == TURN.body
        body = json.loads(message[key])
        if platform is Platform.FCM:
            inner = body["fcmV1Message"]["message"]
            assert inner["notification"] == {"title": "Your turn", "body": TURN.body}
            assert inner["data"] == {"kind": "turn", "table_id": "t1"}
        else:
            assert body["aps"]["alert"] == {"title": "Your turn", "body": TURN.body}
            assert body["naiko"] == {"kind": "turn", "table_id": "t1"}
        assert message == json.loads(payload(platform, TURN))


def test_a_disabled_endpoint_raises_and_a_new_registration_enables_it(sns: Sns) -> None:
    arn = sns.notifier.endpoint(Platform.FCM, "tok", "erin")
    sns.client.set_endpoint_attributes(EndpointArn=arn, Attributes={"Enabled": "false"})
    with pytest.raises(EndpointDisabled):
        sns.notifier.publish(Device(Platform.FCM, "tok", arn), TURN)
    assert sns.notifier.endpoint(Platform.FCM, "tok", "erin") == arn  # the app registered again
    sns.notifier.publish(Device(Platform.FCM, "tok", arn), TURN)
    assert len(sns.messages(arn)) == 1
    sns.notifier.forget(Device(Platform.FCM, "tok", arn))
    with pytest.raises(EndpointDisabled):  # deleted: NotFound
        sns.notifier.publish(Device(Platform.FCM, "tok", arn), TURN)
    sns.notifier.forget(Device(Platform.FCM, "tok", arn))  # idempotent


def test_only_the_platforms_with_an_application_are_served(sns: Sns) -> None:
    notifier = SnsNotifier(sns.client, {Platform.FCM: sns.applications[Platform.FCM],
                                        Platform.APNS: ""})
    assert notifier.platforms() == {Platform.FCM}
    with pytest.raises(PushUnavailable):
        notifier.endpoint(Platform.APNS, "tok", "erin")
    off = NoNotifier()
    assert off.platforms() == frozenset()
    with pytest.raises(PushUnavailable):
        off.endpoint(Platform.FCM, "tok", "erin")


# -- the device books on the connections table ---------------------------------------------------

@dataclass
class Books:
    client: Any
    table: str
    devices: DynamoDevices

    def item(self, player_id: str) -> dict[str, Any]:
        item: dict[str, Any] = self.client.get_item(
            TableName=self.table, Key={"connection_id": {"S": DEVICES_PREFIX + player_id}},
            ConsistentRead=True).get("Item", {})
        return item


@pytest.fixture
def books() -> Iterator[Books]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        names = create_tables_from_template(client)
        table = names["ConnectionsTable"]
        yield Books(client, table, DynamoDevices(client, table))


def device(n: int) -> Device:
    return Device(Platform.FCM, f"tok{n}", f"arn:aws:sns:us-east-1:1:endpoint/GCM/a/{n}", n)


def test_a_book_holds_at_most_5_devices_its_language_and_no_expiry(books: Books) -> None:
    for n in range(7):
        books.devices.add("erin", device(n), "pl", n, connection_id="c1" if n == 0 else None)
    book = books.devices.book("erin")
    assert book is not None
    assert [d.token for d in book.devices] == ["tok2", "tok3", "tok4", "tok5", "tok6"]
    assert book.language == "pl" and book.live == {"c1"} and book.version == 7
    item = books.item("erin")
    assert "expires_at" not in item  # the connections table's TTL keeps it
    assert len(json.dumps(item)) < 6 * 1024
    assert books.devices.remove("erin", "tok4") == device(4)
    assert books.devices.remove("erin", "tok4") is None
    book = books.devices.book("erin")
    assert book is not None and [d.token for d in book.devices] == ["tok2", "tok3", "tok5",
                                                                      "tok6"]


def test_the_rate_limit_write_is_conditional_on_the_version(books: Books) -> None:
    books.devices.add("erin", device(1), "en", 0)
    book = books.devices.book("erin")
    assert book is not None
    assert books.devices.sent(book, NotificationKind.TURN, 4.5, 1_000)
    assert not books.devices.sent(book, NotificationKind.SHIELD, 4.5, 1_000)  # stale
    stored = books.devices.book("erin")
    assert stored is not None
    assert (stored.tokens, stored.at_ms, stored.last) == (4.5, 1_000, {"turn": 1_000})
    assert push.admit(stored, NotificationKind.TURN, 2_000) is None  # within 30 s


def test_connections_are_counted_only_for_players_with_a_book(books: Books) -> None:
    books.devices.connected("nobody", "c9")
    assert books.item("nobody") == {}  # nothing stored for a player without a book
    books.devices.add("erin", device(1), "en", 0)
    version = books.devices.book("erin").version  # type: ignore[union-attr]
    books.devices.connected("erin", "c1")
    books.devices.connected("erin", "c2")
    books.devices.disconnected("erin", "c1")
    book = books.devices.book("erin")
    assert book is not None and book.live == {"c2"}
    assert book.version == version  # open connections never race the rate limit's write


# -- through the service ------------------------------------------------------------------------

def test_r8_1_a_turn_reaches_the_phone_of_the_player_away_through_sns(sns: Sns) -> None:
    """The service on the in-memory tables, but its device books on the connections table and
    its notifier on SNS (moto): erin registers her phone, her app sleeps, her turn comes."""
    client = boto3.client("dynamodb", region_name=REGION)
    names = create_tables_from_template(client)
    h = harness(push=True)
    deps = h.service.deps
    deps.devices = DynamoDevices(client, names["ConnectionsTable"])
    deps.notifier = sns.notifier
    table_id, players = seated(h, 3)
    for player in players:
        with i18n.speaking("ro"):
            assert player.send(action="register_device", platform="fcm",
                               token=f"tok-{player.player_id}")["type"] == "ack"
    first = actor(players)
    after = next_actor_after(h, table_id, players)
    h.service.disconnect(after.connection_id)
    assert call_or_check(first, table_id)["type"] in ACCEPTED
    book = deps.devices.book(after.player_id)
    assert book is not None and book.last.keys() == {"turn"}
    (message,) = sns.messages(book.devices[0].endpoint)
    inner = json.loads(message["GCM"])["fcmV1Message"]["message"]
    assert inner["notification"] == {"title": "Rândul tău",
                                     "body": "Este rândul tău la masa t."}
    assert inner["data"] == {"kind": "turn", "table_id": table_id}
    for player in players:
        if player is not after:
            other = deps.devices.book(player.player_id)
            assert other is not None and sns.messages(other.devices[0].endpoint) == []
