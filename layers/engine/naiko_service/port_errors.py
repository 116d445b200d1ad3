""":mod:`naiko_service.port_errors` holds the port errors the records module raises itself
(re-exported by :mod:`naiko_service.ports`, where the use cases import them from)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .records import Fallback


class PortError(Exception):
    """Base class of the errors adapters raise through the ports."""



class UnreadableTable(PortError):
    """The table's stored state cannot be opened or read (R8.6). ``version`` is the stored
    version; ``fallback`` is the table as it would be with its hand cancelled (kept sealed on its
    own, written with every write during a hand), when there is one and it can be read.

    :param fallback: A :class:`~naiko_service.records.Fallback`, or ``None``.
    """

    def __init__(self, table_id: str, version: int, fallback: Fallback | None):
        super().__init__(table_id)
        self.table_id = table_id
        self.version = version
        self.fallback = fallback
