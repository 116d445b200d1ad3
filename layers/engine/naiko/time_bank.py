""":mod:`naiko.time_bank` is the time bank of R8.7, as a published rule and its arithmetic: each
player has a bank of seconds, besides the decision clock, that starts when the clock runs out
(or on request) and is spent second by second; it is topped up by a published amount every N
hands (a cash table) or levels (a tournament), up to a cap.

Pure: the service keeps each player's bank (milliseconds and the hand or level it was last
topped up at) and asks this module what it becomes.

>>> bank = TimeBank(initial_ms=30_000, top_up_ms=5_000, every=10, cap_ms=60_000)
>>> bank.topped_up(30_000, mark=0, progress=25)  # two periods of 10 hands since hand 0
(40000, 20)
>>> bank.spent(40_000, elapsed_ms=2_001)  # each second begun is spent
37000
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .errors import EngineError

MAX_BANK_MS = 600_000
"""No bank, initial or cap, is above 10 minutes."""

SECOND_MS = 1_000


class InvalidTimeBank(EngineError):
    """A time bank's published terms break a rule (R8.7)."""

    code = "invalid_terms"


class TopUpEvery(StrEnum):
    """What the top-up period counts (R8.7)."""

    HANDS = "hands"
    """Hands dealt at the table since the player sat (a cash or private table)."""
    LEVELS = "levels"
    """Blind levels of the tournament (R9.3): the same for every table of it."""


@dataclass(frozen=True, slots=True)
class TimeBank:
    """A published time bank (R8.7): every player starts with *initial_ms*, gets *top_up_ms*
    more every *every* hands or levels (:class:`TopUpEvery`), never more than *cap_ms*."""

    initial_ms: int
    top_up_ms: int
    every: int
    cap_ms: int
    per: TopUpEvery = TopUpEvery.HANDS

    def __post_init__(self) -> None:
        for name in ("initial_ms", "top_up_ms", "every", "cap_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidTimeBank(f"{name} must be an integer, not {value!r}",
                                      rule_id="R8.7")
        if not isinstance(self.per, TopUpEvery):
            raise InvalidTimeBank(f"per must be a TopUpEvery, not {self.per!r}", rule_id="R8.7")
        if not 0 < self.initial_ms <= self.cap_ms <= MAX_BANK_MS:
            raise InvalidTimeBank(f"a bank must satisfy 0 < initial <= cap <= {MAX_BANK_MS} ms, "
                                  f"not {self.initial_ms}..{self.cap_ms}", rule_id="R8.7")
        if self.top_up_ms < 0 or self.every < 1:
            raise InvalidTimeBank("the top-up is >= 0 ms every 1 or more hands or levels",
                                  rule_id="R8.7")
        if self.initial_ms % SECOND_MS or self.top_up_ms % SECOND_MS \
                or self.cap_ms % SECOND_MS:
            raise InvalidTimeBank("a bank is published in whole seconds", rule_id="R8.7")

    def topped_up(self, bank_ms: int, mark: int, progress: int) -> tuple[int, int]:
        """The bank after the top-ups due from *mark* (the hand or level of the last top-up,
        or when the player sat) to *progress* (the hand or level now): ``(bank, new mark)``.
        A bank already at the cap stays there; the mark moves on by whole periods only."""
        periods = max(0, progress - mark) // self.every
        if not periods:
            return bank_ms, mark
        return (min(self.cap_ms, max(bank_ms, bank_ms + periods * self.top_up_ms)),
                mark + periods * self.every)

    @staticmethod
    def spent(bank_ms: int, elapsed_ms: int) -> int:
        """The bank after running *elapsed_ms*: spent second by second, each second begun
        counts (a player who acts 0.3 s into the bank has spent 1 s); never below 0."""
        seconds = -(-max(0, elapsed_ms) // SECOND_MS)
        return max(0, bank_ms - seconds * SECOND_MS)

    def to_dict(self) -> dict[str, Any]:
        """The published terms, in seconds (what players are shown)."""
        return {"initial_s": self.initial_ms // SECOND_MS,
                "top_up_s": self.top_up_ms // SECOND_MS, "every": self.every,
                "per": self.per.value, "cap_s": self.cap_ms // SECOND_MS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TimeBank:
        """Parse :meth:`to_dict`'s output.

        :raises InvalidTimeBank: If a field is missing, mistyped or breaks a rule.
        """
        try:
            return cls(initial_ms=int(data["initial_s"]) * SECOND_MS,
                       top_up_ms=int(data["top_up_s"]) * SECOND_MS, every=int(data["every"]),
                       cap_ms=int(data["cap_s"]) * SECOND_MS, per=TopUpEvery(data["per"]))
        except (KeyError, ValueError, TypeError) as exc:
            raise InvalidTimeBank(f"bad time bank: {exc!r}", rule_id="R8.7") from exc


CASH_TIME_BANK = TimeBank(initial_ms=30_000, top_up_ms=5_000, every=10, cap_ms=60_000)
"""The bank of the room's quick-seat tables (R7.10) and of a table created with
``time_bank: true``: 30 s, +5 s every 10 hands, at most 60 s."""

TURBO_TIME_BANK = TimeBank(initial_ms=30_000, top_up_ms=5_000, every=1, cap_ms=60_000,
                           per=TopUpEvery.LEVELS)
"""The bank of the turbo Sit & Go and scheduled presets: 30 s, +5 s each level, at most 60 s."""

HYPER_TIME_BANK = TimeBank(initial_ms=15_000, top_up_ms=5_000, every=1, cap_ms=30_000,
                           per=TopUpEvery.LEVELS)
"""The bank of the hyper-turbo presets (heads-up hyper, Spin; 3-minute levels, a 12 s clock):
15 s, +5 s each level, at most 30 s."""
