# ruff: noqa: E501 - catalogue texts are kept whole, one per line
""":mod:`naiko_client.i18n_statuses`: what the terminal client itself says on its status line
(:mod:`naiko_client.app`: the connection, the answers to your requests, the commands it refuses
before sending them) in Polish, Portuguese, Vietnamese and Romanian, by their English text
(merged into :data:`naiko_client.i18n.CATALOGUES`). The commands in backquotes are typed the
same in every language."""

from __future__ import annotations

TEXTS: dict[str, tuple[str, str, str, str]] = {
}
