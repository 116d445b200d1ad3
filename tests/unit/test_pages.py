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
