""":mod:`naiko_service.i18n`: the texts the service sends people, in five languages.

One catalogue per language (``en``, ``pl``, ``pt``, ``vi``, ``ro``: plain dicts in this package,
no library and no data file, so the Lambda layer stays lean), each mapping a key to a
:meth:`str.format` template with *named* parameters: ``"error.<code>"`` for every
:data:`naiko_service.protocol.ErrorCode`, ``"scope.*"`` words some of them take, the game's own
terms (``"term.*"``, ``"power.*"``) as the rule texts of each language name them. English is the
reference; every other catalogue has exactly its keys with the same parameters
(``tests/unit/test_i18n.py``).

A connection chooses its language once, with ``?lang=`` at ``$connect`` (the authorizer passes
it on with every frame, :func:`language_of`); the error text sent to it is then rendered in that
language (:func:`speaking`, used by ``functions/game/app.py`` around the handling of one frame,
and :func:`naiko_service.protocol.error_message`). The ``code`` never changes with the
language: clients switch on it. English connections keep the exact English text the refusal was
raised with (it is often more specific than the catalogue's, e.g. naming the seat on turn).
"""

from __future__ import annotations

import contextlib
import contextvars
import string
from collections.abc import Iterator, Mapping
from typing import Any

from . import en, pl, pt, ro, vi

DEFAULT = "en"
"""The language of a connection that asks for none, or for one we do not have."""

CATALOGUES: Mapping[str, Mapping[str, str]] = {
    "en": en.MESSAGES, "pl": pl.MESSAGES, "pt": pt.MESSAGES, "vi": vi.MESSAGES,
    "ro": ro.MESSAGES,
}
LANGUAGES: tuple[str, ...] = tuple(CATALOGUES)
"""The languages served, English first."""

_speaking: contextvars.ContextVar[str] = contextvars.ContextVar("naiko_language", default=DEFAULT)


def language_of(value: object) -> str:
    """The served language for a requested tag: ``"pl"``, ``"pt-BR"``, ``"PT_br"`` -> its base
    language when served, anything else (absent, unknown, not a string) -> :data:`DEFAULT`."""
    if not isinstance(value, str):
        return DEFAULT
    base = value.strip().replace("_", "-").split("-", 1)[0].lower()
    return base if base in CATALOGUES else DEFAULT


def parameters(template: str) -> frozenset[str]:
    """The named parameters of a catalogue template (``{name}`` fields)."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def text(key: str, lang: str = DEFAULT, **params: Any) -> str:
    """The catalogue entry *key* in *lang* (English when *lang* is not served), formatted with
    *params*.

    :raises KeyError: If *key* is in no catalogue, or a parameter it names is not given."""
    catalogue = CATALOGUES.get(lang, CATALOGUES[DEFAULT])
    return catalogue[key].format_map(params)


def current_language() -> str:
    """The language of the connection whose frame is being handled (:func:`speaking`)."""
    return _speaking.get()


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Render error texts in *lang* while handling one frame of a connection that chose it.
    A context variable: threads the handling starts (the fan-out) do not inherit it, and they
    only send views, never error texts."""
    token = _speaking.set(language_of(lang))
    try:
        yield
    finally:
        _speaking.reset(token)


def error_text(code: str, english: str, lang: str | None = None, **params: Any) -> str:
    """The ``message`` of an ``error`` frame with *code*: *english* (the refusal's own text)
    for English, else the catalogue's ``error.<code>`` in *lang* (default: the language being
    spoken, :func:`current_language`). A ``scope`` parameter is a ``scope.*`` key's value and
    is translated too. An unknown code, or a parameter missing, falls back to *english*."""
    lang = current_language() if lang is None else language_of(lang)
    if lang == DEFAULT:
        return english
    if isinstance(params.get("scope"), str):
        params["scope"] = CATALOGUES[lang].get(f"scope.{params['scope']}", params["scope"])
    try:
        return text(f"error.{code}", lang, **params)
    except (KeyError, ValueError, IndexError):
        return english
