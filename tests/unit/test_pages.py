"""Pages (docs/protocol.md "Pages"): a cursor round-trips, names its list, and anything else is
``bad_cursor``."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naiko_service import pages

_TEXT = st.text(st.characters(codec="ascii"), max_size=12)


@given(st.dictionaries(_TEXT, st.one_of(st.integers(), _TEXT), max_size=4))
def test_a_cursor_round_trips(position):
    assert pages.decode("lobby", pages.encode("lobby", position)) == position


def test_a_cursor_of_another_list_is_refused():
    cursor = pages.encode("tournament_players", {"after": "p1"})
    with pytest.raises(pages.BadCursor, match="not one of this list's"):
        pages.decode("lobby", cursor)


@pytest.mark.parametrize("cursor", ["!!!", "e30", "bnVsbA", "eyJsIjoibG9iYnkifQ", "a"])
def test_garbage_is_a_bad_cursor(cursor):
    with pytest.raises(pages.BadCursor):
        pages.decode("lobby", cursor)
    assert pages.BadCursor.code == "bad_cursor"


def test_a_cursor_is_short():
    with pytest.raises(ValueError):
        pages.encode("lobby", {"after": "x" * 600})


# -- the largest page of every list fits a frame (issue 23 item 2) -----------------------------

import json  # noqa: E402
from typing import Any  # noqa: E402

from hypothesis import settings  # noqa: E402
from naiko.tournaments.structures import PRESETS, from_preset  # noqa: E402
from naiko_service import protocol  # noqa: E402
from naiko_service.hand_records import PlayerHand  # noqa: E402
from naiko_service.ports import Encoded  # noqa: E402
from naiko_service.records import TableSummary  # noqa: E402
from naiko_service.tournament_records import Result, TournamentRecord  # noqa: E402

_WIDE = st.characters(min_codepoint=0x10000, max_codepoint=0x1FFFF, categories=["So"])
"""4-byte UTF-8 characters a display name may hold (emoji): the widest text per character."""

_NAME = st.text(st.one_of(_WIDE, st.sampled_from('"\\')), min_size=protocol.DISPLAY_TEXT_MAX,
                max_size=protocol.DISPLAY_TEXT_MAX)
"""A display name of the most characters, each as wide as JSON makes it."""

_ID = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_.@-"), min_size=64,
              max_size=64)
"""A player id of the most characters a token allows (``auth.SUBJECT_PATTERN``)."""

_CURSOR = "A" * pages.CURSOR_MAX_CHARS
_REQUEST_ID = "r" * 64


def _bytes(message: dict[str, Any]) -> int:
    return len(Encoded.of(json.loads(json.dumps(message))).data)


def _largest_pages(name: str, player: str) -> dict[str, dict[str, Any]]:
    """The reply of every list at its maximum ``limit``, every row at its largest."""
    table_id = player  # ids of 64 characters everywhere
    tables = [TableSummary(table_id, name, "NAIKO", 10**12, 10**12, 10, 9, 10**12, 10**12,
                           10**13, True).to_dict()] * protocol.LOBBY_PAGE_MAX
    terms = max((from_preset(p, 10**12) for p in PRESETS),
                key=lambda t: len(json.dumps(t.to_dict())))
    summary = {**TournamentRecord(player, 1, name, terms, 10**13, player, entrants=10**6,
                                  payouts=[10**12] * 10).summary(), "created_ms": 10**13}
    results = [{**Result(player, 10**6, 10**12, True, 10**9, f"{table_id}-99999",
                         player).to_dict(), "paid": True}] * pages.PAGE_LIMIT_MAX
    hands = [PlayerHand(player, table_id, 10**12, 10**13, 10**13, name, "tournament", "NAIKO",
                        9, -10**12, "a table's state was unreadable", player).to_dict()] * 50
    return {
        "tables": {"type": "tables", "request_id": _REQUEST_ID, "tables": tables,
                   "quick_seat_stakes": [{"variant": "NAIKO", "small_blind": 10**12,
                                          "big_blind": 10**12}] * 20, "next": _CURSOR},
        "tournaments": {"type": "tournaments", "request_id": _REQUEST_ID,
                        "tournaments": [summary] * protocol.TOURNAMENTS_PAGE_MAX,
                        "next": _CURSOR},
        "tournament": {"type": "tournament", "request_id": _REQUEST_ID, "tournament": {
            **summary, "table_count": 10**6,
            "tables": [f"{table_id}-99999"] * 20,  # tournaments.TABLES_SHOWN
            "you": {"registered": True, "entries": 10**6, "result": results[0]}}},
        "tournament_players": {"type": "tournament_players", "request_id": _REQUEST_ID,
                               "tournament_id": player,
                               "players": [{"player_id": player, "bot": True}]
                               * pages.PAGE_LIMIT_MAX, "next": _CURSOR},
        "tournament_results": {"type": "tournament_results", "request_id": _REQUEST_ID,
                               "tournament_id": player, "results": results, "next": _CURSOR},
        "hands": {"type": "hands", "request_id": _REQUEST_ID, "hands": hands,
                  "next": _CURSOR},
    }


@settings(max_examples=25, deadline=None)
@given(_NAME, _ID)
def test_issue23_any_page_of_any_list_at_its_maximum_fits_a_frame(name: str, player: str) -> None:
    """Every list's largest page (its maximum ``limit``, every row with names of 40 of the
    widest characters and ids of 64) is a valid message and fits 32 KB: the send point never
    has to refuse a page."""
    from naiko_service.usecases import tournaments

    assert tournaments.TABLES_SHOWN == 20
    adapter: Any = protocol.TypeAdapter(protocol.AnyMessage)
    for kind, message in _largest_pages(name, player).items():
        adapter.validate_python(message)
        assert _bytes(message) <= protocol.MAX_FRAME_BYTES, (kind, _bytes(message))


def test_issue23_the_limits_are_the_protocol_s() -> None:
    """The page sizes the property checks are the most the request models allow."""
    assert protocol.ListTables.model_fields["limit"].default == protocol.LOBBY_PAGE_MAX
    assert protocol.ListTournaments.model_fields["limit"].default == \
        protocol.TOURNAMENTS_PAGE_MAX
    largest = {"list_tables": protocol.LOBBY_PAGE_MAX,
               "list_tournaments": protocol.TOURNAMENTS_PAGE_MAX,
               "tournament_players": pages.PAGE_LIMIT_MAX,
               "tournament_results": pages.PAGE_LIMIT_MAX, "hand_history": 50}
    for action, limit in largest.items():
        frame = {"action": action, "request_id": "r", "limit": limit}
        if action.startswith("tournament_"):
            frame["tournament_id"] = "t"
        assert protocol.parse_request(json.dumps(frame)).limit == limit  # type: ignore[union-attr]
        with pytest.raises(protocol.ProtocolError, match="limit"):
            protocol.parse_request(json.dumps({**frame, "limit": limit + 1}))
