"""The web client's HTTP server (``naiko_local.web``) and its files: what it serves, the local
dev-token route, and that the client loads nothing from elsewhere (no CDN: the machine may be
offline)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from naiko_local.web import WebServer, web_root


@pytest.fixture
def server() -> Iterator[WebServer]:
    minted: list[tuple[str, int]] = []

    def mint(player: str, ttl: int) -> str:
        minted.append((player, ttl))
        return f"token-for-{player}"

    def notifications(player: str) -> list[dict[str, object]]:
        return [{"kind": "turn", "title": "Your turn", "body": f"n{n}", "data": {},
                 "platform": "fcm"} for n in range(60)] if player == "erin" else []

    web = WebServer("127.0.0.1", 0, ws_port=8765, mint=mint,
                    notifications=notifications).start()
    try:
        yield web
    finally:
        web.stop()


def get(web: WebServer, path: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(f"{web.url.rstrip('/')}{path}", timeout=5) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def test_serves_the_page_and_its_modules(server: WebServer) -> None:
    status, kind, body = get(server, "/")
    assert status == 200 and kind.startswith("text/html") and b"js/main.js" in body
    status, kind, body = get(server, "/js/connection.js")
    assert status == 200 and kind.startswith("text/javascript") and b"request_id" in body
    assert get(server, "/css/naiko.css")[1].startswith("text/css")


def test_refuses_paths_outside_the_client(server: WebServer) -> None:
    for path in ("/../web.py", "/js/../../stack.py", "/%2e%2e/web.py", "/nothing.js", "/js"):
        assert get(server, path)[0] == 404, path


def test_config_names_the_websocket_port(server: WebServer) -> None:
    status, _, body = get(server, "/api/config")
    assert status == 200 and json.loads(body) == {"ws_port": 8765, "ws_path": "/"}


def test_dev_token_for_a_player_name_only(server: WebServer) -> None:
    status, _, body = get(server, "/api/dev-token?player=alice")
    assert status == 200
    answer = json.loads(body)
    assert answer["player_id"] == "alice" and answer["token"] == "token-for-alice"
    for bad in ("bot-1", "house:bots", "a%20b", "", "x" * 65):
        assert get(server, f"/api/dev-token?player={bad}")[0] == 400, bad


def test_notifications_of_a_player_the_last_50(server: WebServer) -> None:
    """Issue 25: the push notifications the local stack recorded for a player."""
    status, _, body = get(server, "/api/notifications?player=erin")
    answer = json.loads(body)
    assert status == 200 and answer["player_id"] == "erin" and answer["total"] == 60
    assert [n["body"] for n in answer["notifications"]] == [f"n{n}" for n in range(10, 60)]
    assert json.loads(get(server, "/api/notifications?player=dave")[2])["notifications"] == []
    for bad in ("a%20b", "", "x" * 65):
        assert get(server, f"/api/notifications?player={bad}")[0] == 400, bad


def test_the_client_loads_nothing_from_elsewhere() -> None:
    root = Path(str(web_root()))
    files = [p for p in root.rglob("*") if p.is_file()]
    assert {p.suffix for p in files} <= {".html", ".css", ".js"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text), path
        assert not re.search(r"import[^;]*from\s+[\"'](https?:)?//", text), path
        assert "@import url(http" not in text, path


def test_the_package_ships_the_client() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[2]
    data = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["naiko_local"]
    client = Path(str(web_root()))
    shipped = {p for pattern in patterns for p in (root / "local" / "naiko_local").glob(pattern)}
    assert {p for p in client.rglob("*") if p.is_file()} == shipped


def test_the_web_client_narrates_every_event_kind_of_the_protocol() -> None:
    """Every event kind of protocol.md §8 has its sentence in ``narrate.js`` (``turn`` is shown
    by the table itself): the reference client knows the whole protocol."""
    root = Path(__file__).resolve().parents[2]
    protocol = (root / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = protocol[protocol.index("## 8. Events"):protocol.index("## 9. ")]
    kinds = set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M)) | {"ante_posted"}
    assert len(kinds) > 30
    narrate = (Path(str(web_root())) / "js" / "narrate.js").read_text(encoding="utf-8")
    narrated = set(re.findall(r'case "([a-z_]+)":', narrate))
    assert kinds - narrated == {"turn"}
