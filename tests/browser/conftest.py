"""Browser tests of the web client (``local/naiko_local/web``, ``docs/web.md``): Playwright for
Python driving Debian's Chromium (``apt-get install chromium``; ``scripts/test`` installs it
when it runs as root). Playwright's own browser download is never used.

Each test starts its own local stack in this process on free ports (``port=0``, the web
client's server too), so the tests run side by side under pytest-xdist. Screenshots go to
``tmp/artifacts/browser/`` (``NAIKO_ARTIFACTS`` to move them).

Without Chromium or Playwright the tests are skipped with the reason, unless
``NAIKO_BROWSER_TESTS=required`` (set by ``scripts/test`` once it has Chromium), where that
is a failure.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("NAIKO_ARTIFACTS", ROOT / "tmp" / "artifacts")) / "browser"

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
"""Without the background-networking flags Chromium keeps trying to reach Google's servers."""


def _unavailable(reason: str) -> None:
    if os.environ.get("NAIKO_BROWSER_TESTS") == "required":
        pytest.fail(f"browser tests required but {reason}")
    pytest.skip(reason)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (and per xdist worker). Not per session:
    Playwright's sync API keeps an asyncio event loop running in this thread while it lives, so
    every later test of the worker that calls ``asyncio.run`` (the e2e tests) would fail with
    "cannot be called from a running event loop" (24 did, 2026-12-07)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed (pip install playwright)")
    path = chromium_path()
    if path is None:
        _unavailable("Chromium is not installed (apt-get install -y chromium; scripts/test does "
                     "it when run as root)")
    pytest.importorskip("flask", reason="moto's server needs moto[server]")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS,
                                              headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def stack() -> Iterator[Any]:
    """A local stack with the web client's server, on free ports; BOTs think 0.15 s, and 2 s
    between hands (long enough to see a showdown on a loaded machine)."""
    from naiko_local.stack import LocalStack, StackConfig

    local = LocalStack(StackConfig(port=0, management_port=0, web_port=0, pause_seconds=2))
    local.start()
    local.service.deps.bot_think_ms = 150
    try:
        yield local
    finally:
        local.stop()


class Shots:
    """Screenshots of one test, numbered, into :data:`ARTIFACTS`."""

    def __init__(self, name: str):
        self.name = name
        self.count = 0
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def __call__(self, page: Any, label: str) -> Path:
        self.count += 1
        path = ARTIFACTS / f"{self.name}-{self.count:02d}-{label}.png"
        page.screenshot(path=str(path))
        return path


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    return Shots(request.node.name.removeprefix("test_"))


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """``open_page()``: a fresh page (own context), not loaded yet (attach listeners, then
    ``page.goto``); JavaScript errors on it fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def opener() -> Any:
        context = browser.new_context(viewport={"width": 1360, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(15_000)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    """One page of the web client's origin for the module, no WebSocket server behind it:
    tests import the client's modules in it (``import('/js/narrate.js')``, ``table.js``) and
    draw views into it (``test_web_narrate.py``, ``test_web_deals.py``); JavaScript errors on
    it fail the module."""
    from naiko_local.web import WebServer

    web = WebServer("127.0.0.1", 0, ws_port=9, mint=lambda p, ttl: "t").start()
    context = browser.new_context()
    errors: list[str] = []
    try:
        tab = context.new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(f"{web.url}/api/config")
        yield tab
    finally:
        context.close()
        web.stop()
    assert not errors, errors


def wait_until(predicate: Callable[[], Any], timeout: float = 15.0, step: float = 0.1,
               what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")
