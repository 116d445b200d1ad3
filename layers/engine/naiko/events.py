""":mod:`naiko.events` defines what :func:`naiko.engine.apply` reports.

An event is public unless ``private_to`` names the one seat allowed to see it (a seat's own
hole cards). :func:`naiko.views.events_for` filters a list of events for one seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened: a ``kind`` and JSON-compatible ``data``."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    private_to: int | None = None
    """The only seat that may see this event, or ``None`` if it is public."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, **self.data}
        if self.private_to is not None:
            out["private_to"] = self.private_to
        return out

    def visible_to(self, seat_index: int | None) -> bool:
        return self.private_to is None or self.private_to == seat_index
