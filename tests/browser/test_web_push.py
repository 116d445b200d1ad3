"""The web client and push notifications in local mode (issue 25): a player registers a device
from the page, and what the stack's notifier sent to that player while the page was away is
shown once, as a toast, when the page connects; a reload does not show it again."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import wait_until

pytest.importorskip("flask", reason="moto's server needs moto[server]")

from naiko_local.stack import LocalStack  # noqa: E402
from naiko_service.ports import NotificationKind, Platform  # noqa: E402
from naiko_service.usecases import push  # noqa: E402


def test_the_page_shows_a_notification_sent_while_it_was_away_once(
        stack: LocalStack, open_page: Any) -> None:
    assert stack.web is not None
    page = open_page()
    page.goto(f"{stack.web.url}?player=carol")
    page.wait_for_function("document.body.dataset.conn === 'online'")
    reply = page.evaluate("""() => window.naikoApp.conn.request("register_device",
        {platform: "fcm", token: "carol-phone"})""")
    assert reply["type"] == "ack", reply
    book = wait_until(lambda: stack.service.deps.devices.book("carol"), what="carol's book")
    (device,) = book.devices
    assert device.platform is Platform.FCM
    page.close()  # the app sleeps: carol's turn comes at Demo NLHE
    stack.notifier.publish(device, push.render(NotificationKind.TURN, "en", table="Demo NLHE",
                                               ids={"table_id": "t1"}))
    again = open_page()
    again.goto(f"{stack.web.url}?player=carol")
    again.wait_for_selector("#toast:has-text('🔔 Your turn: It is your turn at Demo NLHE.')")
    # seen: a reload (the same browser) does not show it again
    again.reload()
    again.wait_for_function("document.body.dataset.conn === 'online'")
    again.wait_for_timeout(1_000)
    toast = again.locator("#toast")
    assert toast.is_hidden() or "Your turn" not in toast.inner_text()
