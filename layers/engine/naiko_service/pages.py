""":mod:`naiko_service.pages` is how every list the service sends comes in pages (no message over
API Gateway's 32 KB frame, docs/protocol.md "Pages").

A request for a list may carry ``cursor`` (absent: the first page) and ``limit`` (how many rows,
at most :data:`PAGE_LIMIT_MAX`); the reply carries ``next``: the cursor of the page after it, or
``null`` on the last page. A cursor is opaque to clients: URL-safe base64 of a small JSON object
the list's own code writes (its position, e.g. the last key it sent) under the list's name, so a
cursor of one list is refused by another. A cursor names a position, never whose data is read:
the caller's identity still comes from the token, so a forged cursor reads nothing it could not.

>>> cursor = encode("tournament_players", {"after": "alice"})
>>> decode("tournament_players", cursor)
{'after': 'alice'}
>>> decode("lobby", cursor)
Traceback (most recent call last):
...
naiko_service.pages.BadCursor: this cursor is not one of this list's (lobby)
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import Field, StrictInt

PAGE_LIMIT_MAX = 100
"""Rows per page at most, whatever the list (a row is at most a few hundred bytes)."""

PAGE_LIMIT_DEFAULT = 50
"""Rows of a page whose request names no ``limit``."""

CURSOR_MAX_CHARS = 512

Cursor = Annotated[str, Field(min_length=1, max_length=CURSOR_MAX_CHARS,
                              pattern=r"^[A-Za-z0-9_-]+$")]
"""A request's ``cursor``: the ``next`` of the page before."""

PageLimit = Annotated[StrictInt, Field(ge=1, le=PAGE_LIMIT_MAX)]
"""A request's ``limit``."""

BAD_CURSOR = "bad_cursor"
"""The error code of a cursor that does not decode, or is another list's."""


class BadCursor(ValueError):
    """A cursor that is not one this list wrote (the service answers ``bad_cursor``)."""

    code = BAD_CURSOR


def encode(list_name: str, position: dict[str, Any]) -> str:
    """The opaque cursor of *position* in the list *list_name*."""
    raw = json.dumps({"l": list_name, "p": position}, separators=(",", ":"), sort_keys=True)
    text = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
    if len(text) > CURSOR_MAX_CHARS:
        raise ValueError(f"a cursor is at most {CURSOR_MAX_CHARS} characters")
    return text


def decode(list_name: str, cursor: str) -> dict[str, Any]:
    """The position *cursor* names in the list *list_name*.

    :raises BadCursor: the cursor does not decode or belongs to another list."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
    except (binascii.Error, ValueError) as exc:
        raise BadCursor("this cursor does not decode; ask for the first page again") from exc
    if not isinstance(data, dict) or data.get("l") != list_name or not isinstance(
            data.get("p"), dict):
        raise BadCursor(f"this cursor is not one of this list's ({list_name})")
    position: dict[str, Any] = data["p"]
    return position


Row = TypeVar("Row")


def cut(list_name: str, rows: Sequence[Row], limit: int,
        position: Callable[[Row], dict[str, Any]]) -> tuple[list[Row], str | None]:
    """The page of *rows* and its ``next``: the caller read up to ``limit + 1`` rows (one
    more than it sends, so that it knows whether a page follows without a second read); the
    first *limit* are the page, and when more were read, ``next`` is the cursor of the
    *position* of the page's last row.

    >>> cut("lobby", ["a", "b", "c"], 2, lambda row: {"after": row})
    (['a', 'b'], 'eyJsIjoibG9iYnkiLCJwIjp7ImFmdGVyIjoiYiJ9fQ')
    >>> cut("lobby", ["a", "b"], 2, lambda row: {"after": row})
    (['a', 'b'], None)
    """
    page = list(rows[:limit])
    if len(rows) <= limit or not page:
        return page, None
    return page, encode(list_name, position(page[-1]))
