"""The web client in five languages (docs/web.md, "Languages"): the picker in the top bar
switches the page to Polish, the texts come from web/i18n/pl.json, the choice survives a
reload, and the server answers the page's connection in Polish too (?lang=pl at the
handshake): an error keeps its code, its text is Polish."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Shots

pytest.importorskip("websockets")

from naiko_local.stack import LocalStack, open_demo_table  # noqa: E402
from test_web_client import outside_the_page_loop  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")


def test_the_picker_switches_the_page_and_the_server_to_polish(
        stack: LocalStack, open_page: Any, shots: Shots) -> None:
    table = outside_the_page_loop(open_demo_table, stack, variant="NAIKO", seats=4,
                                  small_blind=1, big_blind=2, decision_seconds=20, bots=True)
    page = open_page()
    page.goto(f"{stack.web_url}?player=ola")
    page.wait_for_selector(f"[data-action=play][data-table={table.table_id}]")
    assert page.locator("#conn").inner_text() == "online"
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("[data-action=refresh]").inner_text() == "Refresh"

    page.select_option("#lang", "pl")  # reloads the page, and its connection, in Polish
    page.wait_for_url("**lang=pl**")
    page.wait_for_selector("[data-action=refresh]:text('Odśwież')")
    assert page.locator("html").get_attribute("lang") == "pl"
    # the reloaded page reconnects: "łączenie" (connecting) until its socket opens
    page.wait_for_selector("#conn:text-is('połączono')")
    assert page.locator("#conn").inner_text() == "połączono"
    assert page.locator("[data-action=history]").inner_text() == "Historia rozdań"
    assert page.locator(".lobby h2, section h2").first.inner_text() == "Stoły cash"
    assert page.locator(f"[data-action=play][data-table={table.table_id}]").inner_text() == "Graj"
    shots(page, "lobby-pl")

    # The server's text in the same language, the code unchanged.
    page.locator("[data-invite-code]").fill("ZZZZZZ")
    page.locator("[data-action=find]").click()
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert "ten kod zaproszenia nie otwiera żadnego stołu" in toast.inner_text()
    assert "(bad_invite_code)" in toast.inner_text()

    # A table: its buttons and the Carousel in Polish.
    page.locator(f"[data-action=watch][data-table={table.table_id}]").click()
    page.wait_for_selector("[data-action=join]")
    assert page.locator("[data-action=join]").inner_text() == "Usiądź"

    # The choice is remembered without ?lang= (localStorage).
    page.goto(f"{stack.web_url}?player=ola")
    page.wait_for_selector("[data-action=refresh]:text('Odśwież')")
    assert page.locator("#lang").input_value() == "pl"
