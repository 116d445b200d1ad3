""":mod:`naiko.tournaments.structures` defines a tournament's published terms (R7.3–R7.6,
R9.1–R9.11): blind structures and the level in effect at a moment (R9.3), the terms themselves,
and the presets the lobby offers.

A level is worked out from the tournament's start time and its published structure alone, so a
table computes it when it deals; nothing about levels is stored.

>>> terms = PRESETS["sng_9max_turbo"](100, Variant.NLHE)
>>> level, started_ms, next_ms = terms.level_at(started_ms=0, now_ms=12 * 60_000)
>>> (level.number, level.small_blind, level.big_blind, started_ms, next_ms)
(3, 25, 50, 600000, 900000)
>>> terms.prizes(entrants=9)
[450, 270, 180]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias

from ..errors import EngineError
from ..state import MAX_SEATS, MIN_SEATS, AnteMode, TableConfig, Variant
from ..time_bank import (
    HYPER_TIME_BANK,
    TURBO_TIME_BANK,
    InvalidTimeBank,
    TimeBank,
    TopUpEvery,
)
from .icm import SplitPolicy
from .prizes import (
    MAX_ENTRANTS,
    MIN_ENTRANTS,
    SIT_AND_GO_TABLE,
    SPIN_PLAYERS,
    SPIN_TABLE,
    PayoutRule,
    PrizeError,
    SpinPrize,
    SpinTable,
    payout_shape,
    payouts,
    prize_pool,
    spin_payouts,
)

MINUTE_MS = 60_000

MIN_DECISION_MS, MAX_DECISION_MS = 5_000, 120_000
"""The decision clock a tournament may publish (R8.1), the range tables accept too."""

MAX_LEVEL_MINUTES = 240
"""The longest level a structure may publish."""

TABLE_FIELDS = SIT_AND_GO_TABLE[-1][1]
"""The largest field :meth:`TournamentTerms.payout_table` lists: the Sit & Go table's (R9.9)."""


class InvalidTerms(EngineError):
    """Tournament terms (or a blind level or structure) are malformed or break a rule."""

    code = "invalid_terms"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


MAX_ENTRIES_PER_PLAYER = 10
"""R9.12: the most entries per player a tournament may publish."""


def _ints(*pairs: tuple[str, object]) -> None:
    for name, value in pairs:
        if not _is_int(value):
            raise InvalidTerms(f"{name} must be an integer, not {value!r}")


# -- R9.3: blind levels --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BlindLevel:
    """One published blind level (R9.3). Amounts are tournament chips (R7.6)."""

    number: int
    """The level's number, counted from 1."""
    small_blind: int
    big_blind: int
    ante: int
    """Posted by every player dealt in (:attr:`AnteMode.EACH`) or by the big blind alone for the
    table (:attr:`AnteMode.BIG_BLIND`); ``0`` exactly when the mode is :attr:`AnteMode.NONE`
    (R2.8)."""
    ante_mode: AnteMode
    minutes: int
    """The level's length; the next level starts this many minutes after this one."""

    def __post_init__(self) -> None:
        _ints(("number", self.number), ("small_blind", self.small_blind),
              ("big_blind", self.big_blind), ("ante", self.ante), ("minutes", self.minutes))
        where = f"level {self.number}"
        if self.number < 1:
            raise InvalidTerms(f"levels are numbered from 1, not {self.number}", rule_id="R9.3")
        if not 0 < self.small_blind <= self.big_blind:
            raise InvalidTerms(f"{where}: blinds must satisfy 0 < small <= big, not "
                               f"{self.small_blind}/{self.big_blind}", rule_id="R9.3")
        if not isinstance(self.ante_mode, AnteMode):
            raise InvalidTerms(f"{where}: ante_mode must be an AnteMode, not {self.ante_mode!r}")
        if self.ante < 0 or (self.ante > 0) != (self.ante_mode is not AnteMode.NONE):
            raise InvalidTerms(f"{where}: an ante needs an ante mode and an ante mode needs an "
                               f"ante (ante {self.ante}, mode {self.ante_mode})", rule_id="R2.8")
        if self.ante_mode is AnteMode.EACH and self.ante > self.big_blind:
            raise InvalidTerms(f"{where}: an ante per player above the big blind ({self.ante} > "
                               f"{self.big_blind})", rule_id="R2.8")
        if self.ante_mode is AnteMode.BIG_BLIND and self.ante > 2 * self.big_blind:
            raise InvalidTerms(f"{where}: a big-blind ante above two big blinds ({self.ante} > "
                               f"{2 * self.big_blind})", rule_id="R2.8")
        if not 0 < self.minutes <= MAX_LEVEL_MINUTES:
            raise InvalidTerms(f"{where}: minutes must be 1..{MAX_LEVEL_MINUTES}, not "
                               f"{self.minutes}", rule_id="R9.3")

    def table_config(self, variant: Variant, seat_count: int) -> TableConfig:
        """The table settings for hands dealt at this level.

        :param variant: The tournament's game.
        :param seat_count: Seats per table.
        """
        return TableConfig(variant=variant, seat_count=seat_count, small_blind=self.small_blind,
                           big_blind=self.big_blind, ante=self.ante, ante_mode=self.ante_mode)

    def to_dict(self) -> dict[str, Any]:
        """The level as a JSON-compatible dict."""
        return {"number": self.number, "small_blind": self.small_blind,
                "big_blind": self.big_blind, "ante": self.ante,
                "ante_mode": self.ante_mode.value, "minutes": self.minutes}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlindLevel:
        """Parse :meth:`to_dict`'s output.

        :raises InvalidTerms: If a field is missing or invalid.
        """
        try:
            return cls(data["number"], data["small_blind"], data["big_blind"], data["ante"],
                       AnteMode(data["ante_mode"]), data["minutes"])
        except (KeyError, ValueError, TypeError) as exc:
            if isinstance(exc, InvalidTerms):
                raise
            raise InvalidTerms(f"bad blind level: {exc!r}") from exc


MAX_BREAK_MINUTES = 60
"""The longest break a structure may publish (R9.14)."""


@dataclass(frozen=True, slots=True)
class Break:
    """R9.14: a published break of *minutes* after level *after_level* ends; play resumes with
    the next level when it is over (the break's time counts for no level)."""

    after_level: int
    minutes: int

    def __post_init__(self) -> None:
        _ints(("after_level", self.after_level), ("minutes", self.minutes))
        if self.after_level < 1:
            raise InvalidTerms(f"a break comes after a level (1, 2, ...), not after "
                               f"{self.after_level}", rule_id="R9.14")
        if not 0 < self.minutes <= MAX_BREAK_MINUTES:
            raise InvalidTerms(f"a break lasts 1..{MAX_BREAK_MINUTES} minutes, not "
                               f"{self.minutes}", rule_id="R9.14")

    def to_dict(self) -> dict[str, Any]:
        """The break as a JSON-compatible dict."""
        return {"after_level": self.after_level, "minutes": self.minutes}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Break:
        """Parse :meth:`to_dict`'s output.

        :raises InvalidTerms: If a field is missing or invalid.
        """
        try:
            return cls(data["after_level"], data["minutes"])
        except (KeyError, TypeError) as exc:
            raise InvalidTerms(f"bad break: {exc!r}", rule_id="R9.14") from exc


class BreakTime(NamedTuple):
    """A break in progress (R9.14): when it started (the end of the level before it) and when
    play resumes (the start of the level after it)."""

    brk: Break
    starts_ms: int
    ends_ms: int


class LevelTime(NamedTuple):
    """The level in effect at a moment, when it started and when the next one starts."""

    level: BlindLevel
    started_ms: int
    """When :attr:`level` started (for level 1, the tournament's start)."""
    next_ms: int | None
    """When the next level starts; ``None`` after the last published level, which goes on."""


@dataclass(frozen=True, slots=True)
class BlindStructure:
    """A published blind structure (R9.3): levels 1, 2, ... in order; the last one goes on
    for ever. Blinds never go down, an ante never goes down while its mode stays, and each
    level differs from the one before."""

    levels: tuple[BlindLevel, ...]
    breaks: tuple[Break, ...] = ()
    """R9.14: the published breaks, in level order, each after a level but the last (which goes
    on for ever); ``()``: none."""

    def __post_init__(self) -> None:
        levels = tuple(self.levels)
        object.__setattr__(self, "levels", levels)
        breaks = tuple(self.breaks)
        object.__setattr__(self, "breaks", breaks)
        if any(not isinstance(b, Break) for b in breaks):
            raise InvalidTerms("breaks must be Break instances", rule_id="R9.14")
        after = [b.after_level for b in breaks]
        if after != sorted(set(after)) or any(a >= len(levels) for a in after):
            raise InvalidTerms(f"breaks come once each, in order, after a level before the last "
                               f"(1..{len(levels) - 1}), not after {after}", rule_id="R9.14")
        if not levels or any(not isinstance(level, BlindLevel) for level in levels):
            raise InvalidTerms("a structure has at least one BlindLevel", rule_id="R9.3")
        for index, (before, level) in enumerate(zip((None, *levels), levels, strict=False)):
            if level.number != index + 1:
                raise InvalidTerms(f"levels must be numbered 1, 2, ...: found {level.number} "
                                   f"at position {index + 1}", rule_id="R9.3")
            if before is None:
                continue
            if level.small_blind < before.small_blind or level.big_blind < before.big_blind:
                raise InvalidTerms(f"level {level.number} lowers the blinds", rule_id="R9.3")
            if level.ante_mode is before.ante_mode and level.ante < before.ante:
                raise InvalidTerms(f"level {level.number} lowers the ante", rule_id="R9.3")
            if (level.small_blind, level.big_blind, level.ante, level.ante_mode) == (
                    before.small_blind, before.big_blind, before.ante, before.ante_mode):
                raise InvalidTerms(f"level {level.number} repeats level {before.number}",
                                   rule_id="R9.3")

    def level(self, number: int) -> BlindLevel:
        """Level *number*; past the last published level, the last one (it goes on).

        :raises InvalidTerms: If *number* is below 1.
        """
        if number < 1:
            raise InvalidTerms(f"levels are numbered from 1, not {number}", rule_id="R9.3")
        return self.levels[min(number, len(self.levels)) - 1]

    def following(self, level: BlindLevel) -> BlindLevel | None:
        """The level after *level* (what players are told comes next, R9.3), ``None`` after the
        last one."""
        return self.levels[level.number] if level.number < len(self.levels) else None

    def break_after(self, number: int) -> Break | None:
        """The break published after level *number*, if any (R9.14)."""
        return next((b for b in self.breaks if b.after_level == number), None)

    def level_start_ms(self, started_ms: int, number: int) -> int:
        """When level *number* (1..len) starts, for a tournament started at *started_ms*.

        :raises InvalidTerms: If the structure has no such level.
        """
        if not 1 <= number <= len(self.levels):
            raise InvalidTerms(f"no level {number} in a structure of {len(self.levels)}",
                               rule_id="R9.3")
        return started_ms + MINUTE_MS * (
            sum(level.minutes for level in self.levels[:number - 1])
            + sum(b.minutes for b in self.breaks if b.after_level < number))

    def to_dict(self) -> dict[str, Any]:
        """The structure as a JSON-compatible dict (``breaks`` only when there are some)."""
        out: dict[str, Any] = {"levels": [level.to_dict() for level in self.levels]}
        if self.breaks:
            out["breaks"] = [b.to_dict() for b in self.breaks]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlindStructure:
        """Parse :meth:`to_dict`'s output.

        :raises InvalidTerms: If the structure is malformed or invalid.
        """
        try:
            rows = data["levels"]
            if not isinstance(rows, list):
                raise TypeError("levels must be a list")
            breaks = data.get("breaks", [])
            if not isinstance(breaks, list):
                raise TypeError("breaks must be a list")
            return cls(tuple(BlindLevel.from_dict(row) for row in rows),
                       tuple(Break.from_dict(row) for row in breaks))
        except (KeyError, TypeError) as exc:
            raise InvalidTerms(f"bad blind structure: {exc!r}") from exc


def level_at(structure: BlindStructure, started_ms: int, now_ms: int) -> LevelTime:
    """R9.3: the level in effect at *now_ms* for a tournament that started at *started_ms*,
    worked out from the published structure alone. A level is in effect from its start time
    exactly (a hand dealt at that millisecond already uses it); a hand in progress is the
    caller's: it keeps the level it was dealt at. Before the start (a clock a little behind),
    level 1. After the last level, the last level goes on and ``next_ms`` is ``None``.

    >>> s = BlindStructure((BlindLevel(1, 10, 20, 0, AnteMode.NONE, 5),
    ...                     BlindLevel(2, 15, 30, 0, AnteMode.NONE, 5)))
    >>> level_at(s, 1_000, 1_000 + 5 * 60_000 - 1).level.number
    1
    >>> level_at(s, 1_000, 1_000 + 5 * 60_000)  # doctest: +ELLIPSIS
    LevelTime(level=BlindLevel(number=2, ...), started_ms=301000, next_ms=None)

    During a published break (R9.14) no level runs: the level returned is the one play resumes
    with, ``started_ms`` the break's end (still to come); a break's minutes count for no level.

    >>> b = BlindStructure(s.levels, (Break(1, 5),))
    >>> level_at(b, 0, 5 * 60_000).level.number, level_at(b, 0, 5 * 60_000).started_ms
    (2, 600000)

    :param structure: The published structure.
    :param started_ms: The tournament's start (epoch milliseconds).
    :param now_ms: The moment asked about, e.g. when a hand is dealt.
    """
    start = started_ms
    last = len(structure.levels)
    for level in structure.levels:
        end = start + level.minutes * MINUTE_MS
        if now_ms < end or level.number == last:
            return LevelTime(level, start, None if level.number == last
                             else end + _break_ms(structure, level.number))
        start = end + _break_ms(structure, level.number)
        if now_ms < start:  # in the break after this level: the next one is what comes
            following = structure.levels[level.number]
            ends = start + following.minutes * MINUTE_MS
            return LevelTime(following, start, None if following.number == last
                             else ends + _break_ms(structure, following.number))
    raise AssertionError("unreachable: a structure has at least one level")


def _break_ms(structure: BlindStructure, number: int) -> int:
    brk = structure.break_after(number)
    return 0 if brk is None else brk.minutes * MINUTE_MS


def break_at(structure: BlindStructure, started_ms: int, now_ms: int) -> BreakTime | None:
    """R9.14: the published break in progress at *now_ms* (from its start, inclusive, to its
    end, exclusive: play resumes at that millisecond), ``None`` outside breaks.

    >>> s = BlindStructure((BlindLevel(1, 10, 20, 0, AnteMode.NONE, 5),
    ...                     BlindLevel(2, 15, 30, 0, AnteMode.NONE, 5)), (Break(1, 3),))
    >>> break_at(s, 0, 5 * 60_000), break_at(s, 0, 8 * 60_000)
    (BreakTime(brk=Break(after_level=1, minutes=3), starts_ms=300000, ends_ms=480000), None)
    """
    for brk in structure.breaks:
        starts = structure.level_start_ms(started_ms, brk.after_level) + MINUTE_MS * \
            structure.levels[brk.after_level - 1].minutes
        ends = starts + brk.minutes * MINUTE_MS
        if starts <= now_ms < ends:
            return BreakTime(brk, starts, ends)
        if now_ms < starts:
            return None
    return None


def hourly_breaks(levels: Sequence[BlindLevel], minutes: int = 5,
                  every_minutes: int = 60) -> tuple[Break, ...]:
    """R9.14: a break of *minutes* after each level at whose end another *every_minutes* of
    play have passed (the rooms' "5 minutes every hour"), never after the last level.

    >>> rows = [BlindLevel(n, 10 * n, 20 * n, 0, AnteMode.NONE, 20) for n in range(1, 8)]
    >>> hourly_breaks(rows)
    (Break(after_level=3, minutes=5), Break(after_level=6, minutes=5))
    """
    out, played = [], 0
    for level in levels[:-1]:
        before, played = played, played + level.minutes
        if played // every_minutes > before // every_minutes:
            out.append(Break(level.number, minutes))
    return tuple(out)


# -- the terms -----------------------------------------------------------------------------------


class TournamentKind(StrEnum):
    """The three kinds of tournament (R7.3–R7.5)."""

    SIT_AND_GO = "sit_and_go"
    """One table; starts when its seats are filled (R7.3, R9.2)."""
    SPIN = "spin"
    """Three players, a prize multiplier drawn when it fills (R7.4, R9.10)."""
    SCHEDULED = "scheduled"
    """Registration, a start time, several tables (R7.5)."""


@dataclass(frozen=True, slots=True)
class DealTerms:
    """R9.16: the published terms of deals at the final table (optional per tournament).

    - ``max_players``: a deal may be asked for at the final table once at most this many
      players are left (2..9: exact ICM covers 9, :data:`naiko.tournaments.icm.MAX_ICM_PLAYERS`;
      at most the seats per table).
    - ``keep_percent``: the part of the prizes left that a deal keeps for the winner to play
      for (0..50 %; 0: a deal shares everything and the tournament ends with it).
    - ``clock_s``: how long the players have to accept an offer (15..300 s).
    """

    max_players: int
    keep_percent: int = 0
    clock_s: int = 60

    def __post_init__(self) -> None:
        _ints(("max_players", self.max_players), ("keep_percent", self.keep_percent),
              ("clock_s", self.clock_s))
        if not MIN_DEAL_PLAYERS <= self.max_players <= MAX_DEAL_PLAYERS:
            raise InvalidTerms(f"deals are for final tables of {MIN_DEAL_PLAYERS}.."
                               f"{MAX_DEAL_PLAYERS} players, not {self.max_players}",
                               rule_id="R9.16")
        if not 0 <= self.keep_percent <= MAX_DEAL_KEEP_PERCENT:
            raise InvalidTerms(f"a deal keeps 0..{MAX_DEAL_KEEP_PERCENT} % for the winner, not "
                               f"{self.keep_percent}", rule_id="R9.16")
        if not MIN_DEAL_CLOCK_S <= self.clock_s <= MAX_DEAL_CLOCK_S:
            raise InvalidTerms(f"the deal clock is {MIN_DEAL_CLOCK_S}..{MAX_DEAL_CLOCK_S} s, not "
                               f"{self.clock_s}", rule_id="R9.16")

    def to_dict(self) -> dict[str, Any]:
        return {"max_players": self.max_players, "keep_percent": self.keep_percent,
                "clock_s": self.clock_s}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DealTerms:
        return cls(data["max_players"], data.get("keep_percent", 0), data.get("clock_s", 60))


MIN_DEAL_PLAYERS = 2
MAX_DEAL_PLAYERS = 9
"""Exact ICM (Malmuth–Harville) is computed for up to 9 players (R9.16)."""
MAX_DEAL_KEEP_PERCENT = 50
MIN_DEAL_CLOCK_S = 15
MAX_DEAL_CLOCK_S = 300


@dataclass(frozen=True, slots=True)
class TournamentTerms:
    """A tournament's published terms, shown before registration (R7.3–R7.5, R9.9, R9.10).
    Every instance is valid: the constructor checks the rules below and raises
    :class:`InvalidTerms` (``code == "invalid_terms"``).

    - Sit & Go: one table, ``min_players == max_players == seat_count``; no late registration.
    - Spin: 3 seats and 3 players, payout rule :attr:`PayoutRule.SPIN` with a ``spin_table``.
    - Scheduled: ``2 <= min_players <= max_players <= 100,000``; late registration optional.
    """

    kind: TournamentKind
    variant: Variant
    seat_count: int
    """Seats per table (2..10, R1.6)."""
    entry: int
    """What registering moves from the player's account (R9.1), in account chips (> 0)."""
    starting_stack: int
    """Tournament chips each entrant starts with (R9.1, R7.6); at least level 1's big blind."""
    structure: BlindStructure
    decision_ms: int
    """The decision clock (R8.1), 5..120 seconds."""
    bots_allowed: bool
    """Whether bots may fill seats (R8.4)."""
    min_players: int
    """A scheduled tournament with fewer registered at its start time is cancelled (R9.2)."""
    max_players: int
    payout: PayoutRule
    late_registration_level: int | None = None
    """R9.11: registration stays open until the end of this level; ``None``: it closes at the
    start."""
    spin_table: SpinTable | None = None
    """A Spin's published multiplier table (R9.10); ``None`` for other kinds."""
    time_bank: TimeBank | None = None
    """R8.7: the players' time bank, topped up every N levels; ``None``: none (the clock
    alone, R8.1)."""
    entries_per_player: int = 1
    """R9.12: how many times a player may enter (1: no re-entry). A player eliminated while
    late registration is open may enter again, up to this many entries in all."""
    deals: DealTerms | None = None
    """R9.16: deals at the final table (``None``: no deals). Not for a Spin, whose prizes the
    house's prize account pays."""
    bounty: int = 0
    """R9.13: the part of each entry that is a bounty on its player (account chips, ``0``: no
    knockout); the rest of the entry (:attr:`prize_entry`) makes the prize pool."""
    progressive: bool = False
    """R9.13: progressive knockout: of each bounty won, half is paid at once and half added to
    the winner's own bounty (needs a bounty)."""
    cancellation: SplitPolicy = SplitPolicy.CHIP_COUNT
    """R9.15: how the prizes left are split among the players still in if the director cancels
    the tournament after its start (equal chop, chip-count proportional, ICM:
    :mod:`naiko.tournaments.icm`); before its start every entry is returned."""

    def __post_init__(self) -> None:
        if not isinstance(self.kind, TournamentKind) or not isinstance(self.variant, Variant):
            raise InvalidTerms("kind and variant must be a TournamentKind and a Variant")
        if not isinstance(self.payout, PayoutRule):
            raise InvalidTerms(f"payout must be a PayoutRule, not {self.payout!r}")
        if not isinstance(self.structure, BlindStructure):
            raise InvalidTerms("structure must be a BlindStructure", rule_id="R9.3")
        if not isinstance(self.bots_allowed, bool):
            raise InvalidTerms("bots_allowed must be a boolean", rule_id="R8.4")
        _ints(("seat_count", self.seat_count), ("entry", self.entry),
              ("starting_stack", self.starting_stack), ("decision_ms", self.decision_ms),
              ("min_players", self.min_players), ("max_players", self.max_players))
        if not MIN_SEATS <= self.seat_count <= MAX_SEATS:
            raise InvalidTerms(f"seat_count must be {MIN_SEATS}..{MAX_SEATS}, not "
                               f"{self.seat_count}", rule_id="R1.6")
        if self.entry <= 0:
            raise InvalidTerms(f"the entry must be positive, not {self.entry}", rule_id="R9.1")
        if self.starting_stack < self.structure.levels[0].big_blind:
            raise InvalidTerms(f"a starting stack of {self.starting_stack} cannot post level "
                               f"1's big blind", rule_id="R9.1")
        if not MIN_DECISION_MS <= self.decision_ms <= MAX_DECISION_MS:
            raise InvalidTerms(f"decision_ms must be {MIN_DECISION_MS}..{MAX_DECISION_MS}, not "
                               f"{self.decision_ms}", rule_id="R8.1")
        if not MIN_ENTRANTS <= self.min_players <= self.max_players <= MAX_ENTRANTS:
            raise InvalidTerms(f"players must satisfy {MIN_ENTRANTS} <= min <= max <= "
                               f"{MAX_ENTRANTS}, not {self.min_players}..{self.max_players}",
                               rule_id="R9.2")
        if self.time_bank is not None and (not isinstance(self.time_bank, TimeBank)
                                           or self.time_bank.per is not TopUpEvery.LEVELS):
            raise InvalidTerms("a tournament's time bank is a TimeBank topped up every N "
                               "levels", rule_id="R8.7")
        late = self.late_registration_level
        if late is not None:
            _ints(("late_registration_level", late))
            if self.kind is not TournamentKind.SCHEDULED:
                raise InvalidTerms(f"a {self.kind} starts when full: no late registration",
                                   rule_id="R9.11")
            if not 1 <= late <= len(self.structure.levels):
                raise InvalidTerms(f"late registration must end with a published level "
                                   f"(1..{len(self.structure.levels)}), not {late}",
                                   rule_id="R9.11")
        if not isinstance(self.cancellation, SplitPolicy):
            raise InvalidTerms("cancellation must be a SplitPolicy (equal, chip_count, icm)",
                               rule_id="R9.15")
        _ints(("entries_per_player", self.entries_per_player))
        if not 1 <= self.entries_per_player <= MAX_ENTRIES_PER_PLAYER:
            raise InvalidTerms(f"entries_per_player must be 1..{MAX_ENTRIES_PER_PLAYER}, not "
                               f"{self.entries_per_player}", rule_id="R9.12")
        if self.entries_per_player > 1 and late is None:
            raise InvalidTerms("re-entry needs late registration: a player re-enters while it "
                               "is open", rule_id="R9.12")
        _ints(("bounty", self.bounty))
        if not isinstance(self.progressive, bool):
            raise InvalidTerms("progressive must be a boolean", rule_id="R9.13")
        if self.bounty and not 0 < self.bounty < self.entry:
            raise InvalidTerms(f"a bounty is a part of the entry: 0 < bounty < entry "
                               f"({self.entry}), not {self.bounty}", code="invalid_bounty",
                               rule_id="R9.13")
        if self.progressive and not self.bounty:
            raise InvalidTerms("a progressive knockout needs a bounty", code="invalid_bounty",
                               rule_id="R9.13")
        if self.structure.breaks and self.kind is not TournamentKind.SCHEDULED:
            raise InvalidTerms(f"a {self.kind} publishes no breaks: only a scheduled "
                               f"tournament does", rule_id="R9.14")
        if (self.payout is PayoutRule.SPIN) != (self.kind is TournamentKind.SPIN):
            raise InvalidTerms("a Spin, and only a Spin, uses the spin payout rule",
                               rule_id="R9.10")
        if (self.spin_table is not None) != (self.kind is TournamentKind.SPIN):
            raise InvalidTerms("a Spin, and only a Spin, publishes a multiplier table",
                               rule_id="R9.10")
        if self.spin_table is not None and not isinstance(self.spin_table, SpinTable):
            raise InvalidTerms("spin_table must be a SpinTable", rule_id="R9.10")
        if self.kind is TournamentKind.SPIN and not (
                self.seat_count == self.min_players == self.max_players == SPIN_PLAYERS):
            raise InvalidTerms(f"a Spin seats exactly {SPIN_PLAYERS} players at one table",
                               rule_id="R7.4")
        if self.kind is TournamentKind.SIT_AND_GO and not (
                self.min_players == self.max_players == self.seat_count):
            raise InvalidTerms("a Sit & Go is one table and starts when its seats are filled: "
                               "min_players == max_players == seat_count", rule_id="R9.2")
        if self.deals is not None:
            if not isinstance(self.deals, DealTerms):
                raise InvalidTerms("deals must be DealTerms", rule_id="R9.16")
            if self.kind is TournamentKind.SPIN:
                raise InvalidTerms("a Spin offers no deals: the house's prize account pays its "
                                   "prizes", rule_id="R9.16")
            if self.deals.max_players > self.seat_count:
                raise InvalidTerms(f"a final table of {self.seat_count} seats cannot have "
                                   f"{self.deals.max_players} players", rule_id="R9.16")
        if self.payout is PayoutRule.SIT_AND_GO and self.max_players > SIT_AND_GO_TABLE[-1][1]:
            raise InvalidTerms(f"the Sit & Go payout table covers up to "
                               f"{SIT_AND_GO_TABLE[-1][1]} players", rule_id="R7.3")

    # -- what the service asks of the terms ------------------------------------------------------

    @property
    def prize_entry(self) -> int:
        """R9.13: the part of each entry that goes to the prize pool (the whole entry without
        a bounty).

        >>> PRESETS["sng_6max_turbo_ko"](100, Variant.NLHE).prize_entry
        50
        """
        return self.entry - self.bounty

    def bounty_terms(self) -> dict[str, Any]:
        """R9.13: ``{bounty, progressive}`` of a knockout tournament (what its log's
        ``started`` entry publishes), ``{}`` without a bounty."""
        return {"bounty": self.bounty, "progressive": self.progressive} if self.bounty else {}

    def level_at(self, started_ms: int, now_ms: int) -> LevelTime:
        """The level in effect at *now_ms* (R9.3); see :func:`level_at`."""
        return level_at(self.structure, started_ms, now_ms)

    def table_config(self, started_ms: int, now_ms: int) -> TableConfig:
        """The settings of a hand dealt at *now_ms* (the level in effect then, R9.3)."""
        return self.level_at(started_ms, now_ms).level.table_config(self.variant,
                                                                    self.seat_count)

    def late_registration_ends_ms(self, started_ms: int) -> int | None:
        """R9.11: when late registration closes (the end of the published level), ``None``
        without late registration. Registering at that very millisecond is too late."""
        late = self.late_registration_level
        if late is None:
            return None
        return self.structure.level_start_ms(started_ms, late) + self.structure.level(
            late).minutes * MINUTE_MS

    def prize_pool(self, entrants: int, spin: SpinPrize | None = None) -> int:
        """R9.9: the sum of the entries; for a Spin, the entry times the drawn multiplier.

        :raises InvalidTerms: If a Spin's row is missing or given to another kind.
        """
        if (spin is None) == (self.kind is TournamentKind.SPIN):
            raise InvalidTerms("a Spin's pool needs its drawn multiplier (and only a Spin's)",
                               rule_id="R9.9")
        return prize_pool(self.prize_entry, entrants,
                          None if spin is None else spin.multiplier)

    def prizes(self, entrants: int, spin: SpinPrize | None = None) -> list[int]:
        """The prize of place 1, 2, ... in account chips for *entrants* entries (R9.9): the
        split published for that field, or for a Spin its drawn row's split (R9.10).

        :raises InvalidTerms: If *entrants* is outside the terms or a Spin row is missing.
        """
        if not self.min_players <= entrants <= self.max_players:
            raise InvalidTerms(f"{entrants} entrants outside {self.min_players}.."
                               f"{self.max_players}", rule_id="R9.9")
        pool = self.prize_pool(entrants, spin)  # checks that a Spin, and only a Spin, has a row
        return (payouts(pool, entrants, self.payout) if spin is None
                else spin_payouts(self.prize_entry, spin))

    def prizes_for_entries(self, entries: int, players: int) -> list[int]:
        """R9.12: the prizes of a field of *entries* entries (re-entries count: the pool and
        the split published for that field) among *players* players (each placed once, by
        their last entry). Only when re-entries leave fewer players than the split pays does
        the pool follow the split for *players* entrants instead, so every chip of it is paid.

        >>> terms = PRESETS["mtt_deep"](100, Variant.NLHE)
        >>> terms.prizes_for_entries(20, 20) == terms.prizes(20)
        True
        >>> terms.prizes_for_entries(4, 2)
        [400]
        """
        prizes = self.prizes(entries)
        if len(prizes) <= players or self.kind is TournamentKind.SPIN:
            return prizes
        return payouts(sum(prizes), players, self.payout)

    def payout_table(self) -> list[dict[str, Any]] | None:
        """R9.9: the published split by field size, for the fields these terms allow up to 10
        (the Sit & Go table): rows ``{min_entrants, max_entrants, percent}``, ``percent`` the
        share of the pool for place 1, 2, ... Larger fields of a scheduled tournament follow
        the scheduled curve (:func:`~naiko.tournaments.prizes.payout_shape`). ``None`` for a
        Spin, whose split comes with its multiplier (its ``spin_table``).

        >>> PRESETS["sng_6max_turbo"](100, Variant.NLHE).payout_table()
        [{'min_entrants': 6, 'max_entrants': 6, 'percent': [65, 35]}]
        """
        if self.payout is PayoutRule.SPIN:
            return None
        rows: list[dict[str, Any]] = []
        for field_size in range(self.min_players, min(self.max_players, TABLE_FIELDS) + 1):
            shape = list(payout_shape(field_size, self.payout))
            percent = [100] if self.payout is PayoutRule.WINNER_TAKES_ALL else shape
            if rows and rows[-1]["percent"] == percent:
                rows[-1]["max_entrants"] = field_size
            else:
                rows.append({"min_entrants": field_size, "max_entrants": field_size,
                             "percent": percent})
        return rows

    def payout_split(self, entrants: int) -> dict[str, Any] | None:
        """R9.9: the split for the current field, shown in the lobby: *entrants* brought into
        ``min_players..max_players`` (before enough have registered: the split of the smallest
        field that starts), ``{entrants, prizes}`` with the prizes of place 1, 2, ... in
        account chips for that field's pool. ``None`` for a Spin (its pool is drawn)."""
        if self.payout is PayoutRule.SPIN:
            return None
        field_size = max(self.min_players, min(self.max_players, entrants))
        return {"entrants": field_size, "prizes": self.prizes(field_size)}

    # -- storage -----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The terms as a JSON-compatible dict (:meth:`from_dict` reads it back)."""
        return {"kind": self.kind.value, "variant": self.variant.value,
                "seat_count": self.seat_count, "entry": self.entry,
                "starting_stack": self.starting_stack, "structure": self.structure.to_dict(),
                "decision_ms": self.decision_ms, "bots_allowed": self.bots_allowed,
                "min_players": self.min_players, "max_players": self.max_players,
                "payout": self.payout.value,
                "late_registration_level": self.late_registration_level,
                "spin_table": None if self.spin_table is None else self.spin_table.to_dict(),
                "time_bank": None if self.time_bank is None else self.time_bank.to_dict(),
                "entries_per_player": self.entries_per_player,
                "cancellation": self.cancellation.value,
                **({} if self.deals is None else {"deals": self.deals.to_dict()}),
                **({"bounty": self.bounty, "progressive": self.progressive} if self.bounty
                   else {})}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentTerms:
        """Parse :meth:`to_dict`'s output.

        :raises InvalidTerms: If a field is missing, mistyped or breaks a rule.
        """
        try:
            spin = data["spin_table"]
            return cls(kind=TournamentKind(data["kind"]), variant=Variant(data["variant"]),
                       seat_count=data["seat_count"], entry=data["entry"],
                       starting_stack=data["starting_stack"],
                       structure=BlindStructure.from_dict(data["structure"]),
                       decision_ms=data["decision_ms"], bots_allowed=data["bots_allowed"],
                       min_players=data["min_players"], max_players=data["max_players"],
                       payout=PayoutRule(data["payout"]),
                       late_registration_level=data["late_registration_level"],
                       spin_table=None if spin is None else SpinTable.from_dict(spin),
                       time_bank=(None if data.get("time_bank") is None
                                  else TimeBank.from_dict(data["time_bank"])),
                       entries_per_player=data.get("entries_per_player", 1),
                       deals=(None if data.get("deals") is None
                              else DealTerms.from_dict(data["deals"])),
                       bounty=data.get("bounty", 0),
                       progressive=data.get("progressive", False),
                       cancellation=SplitPolicy(data.get("cancellation",
                                                         SplitPolicy.CHIP_COUNT.value)))
        except InvalidTerms:
            raise
        except InvalidTimeBank as exc:
            raise InvalidTerms(exc.message, rule_id=exc.rule_id) from exc
        except PrizeError as exc:
            raise InvalidTerms(exc.message, rule_id=exc.rule_id) from exc
        except (KeyError, ValueError, TypeError) as exc:
            raise InvalidTerms(f"bad tournament terms: {exc!r}") from exc


# -- presets -------------------------------------------------------------------------------------

Row: TypeAlias = tuple[int, int, int, AnteMode]
"""``(small blind, big blind, ante, ante mode)`` of one level."""

_NO = AnteMode.NONE
_EACH = AnteMode.EACH


def _structure(rows: Sequence[Row], minutes: int) -> BlindStructure:
    return BlindStructure(tuple(BlindLevel(number, sb, bb, ante, mode, minutes)
                                for number, (sb, bb, ante, mode) in enumerate(rows, 1)))


def _ladder(first_big_blind: int, last_big_blind: int, ante_from_level: int) -> list[Row]:
    """Big blinds 100, 120, 160, 200, 250, 300, 400, 500, 600, 800, 1000, ... (the
    "nice number" ladder of online MTTs), small blind half the big blind, and from
    *ante_from_level* on a big-blind ante equal to the big blind (R2.8)."""
    steps = (100, 120, 160, 200, 250, 300, 400, 500, 600, 800)
    big_blinds = [s * 10**k for k in range(8) for s in steps]
    chosen = [bb for bb in big_blinds if first_big_blind <= bb <= last_big_blind]
    return [(bb // 2, bb, bb if n >= ante_from_level else 0,
             AnteMode.BIG_BLIND if n >= ante_from_level else _NO)
            for n, bb in enumerate(chosen, 1)]


SNG_STRUCTURE: tuple[Row, ...] = (
    (10, 20, 0, _NO), (15, 30, 0, _NO), (25, 50, 0, _NO), (50, 100, 0, _NO),
    (75, 150, 0, _NO), (100, 200, 0, _NO), (100, 200, 25, _EACH), (200, 400, 25, _EACH),
    (300, 600, 50, _EACH), (400, 800, 50, _EACH), (600, 1200, 75, _EACH),
    (800, 1600, 75, _EACH), (1000, 2000, 100, _EACH), (1500, 3000, 150, _EACH),
    (2000, 4000, 200, _EACH), (3000, 6000, 300, _EACH), (4000, 8000, 400, _EACH),
    (6000, 12000, 600, _EACH),
)
"""The classic PokerStars single-table Sit & Go structure (1,500 chips: 75 big blinds), with
an ante for every player from level 7."""

HYPER_STRUCTURE: tuple[Row, ...] = (
    (10, 20, 0, _NO), (15, 30, 0, _NO), (20, 40, 0, _NO), (25, 50, 0, _NO),
    (30, 60, 0, _NO), (40, 80, 0, _NO), (50, 100, 0, _NO), (60, 120, 0, _NO),
    (80, 160, 0, _NO), (100, 200, 0, _NO), (120, 240, 0, _NO), (150, 300, 0, _NO),
    (180, 360, 0, _NO), (200, 400, 0, _NO), (250, 500, 0, _NO), (300, 600, 0, _NO),
    (400, 800, 0, _NO), (500, 1000, 0, _NO),
)
"""The hyper-turbo structure of PokerStars' Spin & Go (500 chips: 25 big blinds, no antes)."""


def sng_6max_turbo(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """A 6-max turbo Sit & Go, modelled on PokerStars' 6-max turbo SNGs: 1,500 chips, the
    classic SNG structure with 5-minute levels, 65/35 to the top two.

    :raises InvalidTerms: If the entry is not positive.
    """
    return TournamentTerms(kind=TournamentKind.SIT_AND_GO, variant=variant, seat_count=6,
                           entry=entry, starting_stack=1_500,
                           structure=_structure(SNG_STRUCTURE, 5), decision_ms=15_000,
                           bots_allowed=False, min_players=6, max_players=6,
                           payout=PayoutRule.SIT_AND_GO,
                           time_bank=TURBO_TIME_BANK)


def sng_9max_turbo(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """A 9-max turbo Sit & Go, modelled on PokerStars' 9-max turbo SNGs: 1,500 chips, the
    classic SNG structure with 5-minute levels, 50/30/20 to the top three.

    :raises InvalidTerms: If the entry is not positive.
    """
    return TournamentTerms(kind=TournamentKind.SIT_AND_GO, variant=variant, seat_count=9,
                           entry=entry, starting_stack=1_500,
                           structure=_structure(SNG_STRUCTURE, 5), decision_ms=15_000,
                           bots_allowed=False, min_players=9, max_players=9,
                           payout=PayoutRule.SIT_AND_GO,
                           time_bank=TURBO_TIME_BANK)


def sng_headsup_hyper(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """A heads-up hyper-turbo Sit & Go, modelled on the big rooms' heads-up hypers: 500 chips
    (25 big blinds), the Spin & Go blind ladder with 3-minute levels, winner takes all.

    :raises InvalidTerms: If the entry is not positive.
    """
    return TournamentTerms(kind=TournamentKind.SIT_AND_GO, variant=variant, seat_count=2,
                           entry=entry, starting_stack=500,
                           structure=_structure(HYPER_STRUCTURE, 3), decision_ms=12_000,
                           bots_allowed=False, min_players=2, max_players=2,
                           payout=PayoutRule.SIT_AND_GO,
                           time_bank=HYPER_TIME_BANK)


def spin_3max_hyper(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """A Spin, modelled on PokerStars' Spin & Go: 3 players, 500 chips (25 big blinds),
    3-minute hyper levels from 10/20, the prize pool the entry times a multiplier drawn from
    :data:`~naiko.tournaments.prizes.SPIN_TABLE`.

    :raises InvalidTerms: If the entry is not positive.
    """
    return TournamentTerms(kind=TournamentKind.SPIN, variant=variant, seat_count=SPIN_PLAYERS,
                           entry=entry, starting_stack=500,
                           structure=_structure(HYPER_STRUCTURE, 3), decision_ms=12_000,
                           bots_allowed=False, min_players=SPIN_PLAYERS,
                           max_players=SPIN_PLAYERS, payout=PayoutRule.SPIN,
                           spin_table=SPIN_TABLE,
                           time_bank=HYPER_TIME_BANK)


def mtt_deep(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """A deep-stack scheduled tournament, modelled on the regular-speed deepstack MTTs of
    PokerStars and GGPoker: 9-max tables, 20,000 chips (200 big blinds at 50/100), 10-minute
    levels, a big-blind ante equal to the big blind from level 4, late registration to the end
    of level 12 (two hours), about the top 15 % paid.

    :raises InvalidTerms: If the entry is not positive.
    """
    return TournamentTerms(kind=TournamentKind.SCHEDULED, variant=variant, seat_count=9,
                           entry=entry, starting_stack=20_000,
                           structure=_structure(_ladder(100, 1_000_000, 4), 10),
                           decision_ms=20_000, bots_allowed=False, min_players=2,
                           max_players=10_000, payout=PayoutRule.SCHEDULED,
                           late_registration_level=12,
                           time_bank=TURBO_TIME_BANK)


def mtt_turbo(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """A turbo scheduled tournament, modelled on PokerStars' turbo MTTs: 9-max tables, 10,000
    chips (100 big blinds at 50/100), 5-minute levels, a big-blind ante equal to the big blind
    from level 3, late registration to the end of level 8 (40 minutes), about the top 15 % paid.

    :raises InvalidTerms: If the entry is not positive.
    """
    return TournamentTerms(kind=TournamentKind.SCHEDULED, variant=variant, seat_count=9,
                           entry=entry, starting_stack=10_000,
                           structure=_structure(_ladder(100, 1_000_000, 3), 5),
                           decision_ms=15_000, bots_allowed=False, min_players=2,
                           max_players=10_000, payout=PayoutRule.SCHEDULED,
                           late_registration_level=8,
                           time_bank=TURBO_TIME_BANK)


def mtt_deep_breaks(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """:func:`mtt_deep` with the big rooms' breaks (R9.14): 5 minutes every hour of play,
    after levels 6, 12, 18, ... (10-minute levels); late registration ends with level 12, at
    the start of the second break.

    :raises InvalidTerms: If the entry is not positive.
    """
    terms = mtt_deep(entry, variant)
    levels = terms.structure.levels
    return replace(terms, structure=BlindStructure(levels, hourly_breaks(levels)))


KNOCKOUT_SHARE = 2
"""R9.13: a knockout preset's bounty is ``entry // KNOCKOUT_SHARE`` of each entry (buy-in 100:
50 to the prize pool, 50 on the player's head), as the rooms' knockout Sit & Gos split it."""


def knockout(terms: TournamentTerms, *, progressive: bool = False) -> TournamentTerms:
    """*terms* as a knockout tournament (R9.13): half of each entry (rounded down) is a bounty
    on its player, the rest the prize pool; *progressive*: half of each bounty won is paid at
    once and half added to the winner's own.

    >>> knockout(PRESETS["sng_6max_turbo"](100, Variant.NLHE)).bounty
    50

    :raises InvalidTerms: If the entry is too small to split (``invalid_bounty``: under 2).
    """
    if terms.entry < KNOCKOUT_SHARE:
        raise InvalidTerms(f"an entry of {terms.entry} cannot be split into a prize part and "
                           f"a bounty", code="invalid_bounty", rule_id="R9.13")
    return replace(terms, bounty=terms.entry // KNOCKOUT_SHARE, progressive=progressive)


def sng_6max_turbo_ko(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """:func:`sng_6max_turbo` with a knockout bounty of half the entry (R9.13)."""
    return knockout(sng_6max_turbo(entry, variant))


def sng_9max_turbo_ko(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """:func:`sng_9max_turbo` with a knockout bounty of half the entry (R9.13)."""
    return knockout(sng_9max_turbo(entry, variant))


def sng_headsup_hyper_ko(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """:func:`sng_headsup_hyper` with a knockout bounty of half the entry (R9.13): the winner
    takes the loser's bounty and their own."""
    return knockout(sng_headsup_hyper(entry, variant))


def spin_3max_hyper_ko(entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """:func:`spin_3max_hyper` with a knockout bounty of half the entry (R9.13): the drawn
    multiplier applies to the prize part (:attr:`TournamentTerms.prize_entry`) only; the
    bounties are the entries' other halves."""
    return knockout(spin_3max_hyper(entry, variant))


Preset: TypeAlias = Callable[[int, Variant], TournamentTerms]
"""Builds a preset's terms from the entry and the variant."""

PRESETS: Mapping[str, Preset] = MappingProxyType({
    "sng_6max_turbo": sng_6max_turbo,
    "sng_9max_turbo": sng_9max_turbo,
    "sng_headsup_hyper": sng_headsup_hyper,
    "spin_3max_hyper": spin_3max_hyper,
    "mtt_deep": mtt_deep,
    "mtt_turbo": mtt_turbo,
    "mtt_deep_breaks": mtt_deep_breaks,
    "sng_6max_turbo_ko": sng_6max_turbo_ko,
    "sng_9max_turbo_ko": sng_9max_turbo_ko,
    "sng_headsup_hyper_ko": sng_headsup_hyper_ko,
    "spin_3max_hyper_ko": spin_3max_hyper_ko,
})
"""The presets by name."""


def from_preset(name: str, entry: int, variant: Variant = Variant.NLHE) -> TournamentTerms:
    """The terms of preset *name* for *entry* and *variant*.

    >>> from_preset("spin_3max_hyper", 50).starting_stack
    500

    :raises InvalidTerms: If there is no such preset (``code == "unknown_preset"``) or the
        entry is not positive.
    """
    preset = PRESETS.get(name)
    if preset is None:
        raise InvalidTerms(f"no preset {name!r} (known: {', '.join(sorted(PRESETS))})",
                           code="unknown_preset")
    return preset(entry, variant)
