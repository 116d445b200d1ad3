""":mod:`naiko_service.usecases.policies` holds one policy per table type: what a cash table
(:mod:`.cash`), a private table (:mod:`.private`), a Sit & Go or Spin table (:mod:`.sit_and_go`)
and a scheduled multi-table tournament's table (:mod:`.mtt`) do at the moments every table
shares. The dealer (:mod:`naiko_service.usecases.dealer`) and the clock
(:mod:`naiko_service.usecases.deadlines`) ask :func:`policy_for` and know no table type, as
Nakama's authoritative match handler knows no game mode (``docs/service.md``, "Where things
live")."""

from __future__ import annotations

from typing import Protocol

from naiko import commands as cmd

from ...records import TableKind, TableRecord, Timer
from ..base import Deps, Outcome
from . import cash, mtt, private, sit_and_go


class TablePolicy(Protocol):
    """The questions every table answers in its own way. Each hook runs inside the table's
    write (:func:`naiko_service.usecases.transaction.mutate`) and edits this attempt's copy of
    the record; what it changes elsewhere goes into the *outcome* (the same transaction)."""

    def refuse(self, record: TableRecord, what: str) -> None:
        """Refuse a cash-table request (*what*: "buying in", "a waiting list", ...) that has
        no meaning at this table.

        :raises ServiceError: ``tournament_table`` at a tournament's table (R7.6, R9.4).
        """
        ...

    def absent_turn(self, record: TableRecord) -> cmd.Command | None:
        """The command played at once for the seat to act, if it is not to wait for its clock
        (a tournament's absent player is checked or folded, R9.4)."""
        ...

    def held(self, record: TableRecord) -> bool:
        """Whether the table waits for something besides its pause before its next hand (a
        scheduled tournament's table held for a move, hand-for-hand, the final table)."""
        ...

    def may_deal(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
        """Whether the next hand is dealt now (the pause is over, the table neither closed nor
        paused): R7.7 at a cash table, R9.4 at a tournament's; a scheduled tournament's table
        first does what the tables do together between hands (R9.7, R9.8)."""
        ...

    def before_deal(self, deps: Deps, record: TableRecord, now: int,
                    outcome: Outcome) -> frozenset[int]:
        """What happens just before the deal (a host's changes, R7.12; the level in effect,
        R9.3); returns the seats that wait this hand out (R9.7: arrivals in the gap)."""
        ...

    def draw_button(self, deps: Deps, record: TableRecord) -> int:
        """The first hand's button (R2.6: at random among those dealt in; a tournament's
        was drawn when it started, R9.2)."""
        ...

    def on_timeout(self, deps: Deps, record: TableRecord, now: int, player_id: str) -> Outcome:
        """After the decision clock played for *player_id* (R8.1): a disconnected cash player
        sits out after the hand (R8.2); a tournament player sits out at once (R9.4)."""
        ...

    def after_hand(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
        """The end of a hand, after the players leaving stood up: busted players at a cash
        table (R7.9), a private table its host closed (R7.12), a tournament's log,
        eliminations and places (R9.5), what a scheduled tournament's tables do together
        (R9.7, R9.8)."""
        ...

    def timers(self, record: TableRecord, now: int) -> list[Timer]:
        """The timers of this table type the state needs (a held seat's ``offer``, R7.10; a
        held tournament table's ``hold``)."""
        ...


POLICIES: dict[TableKind, TablePolicy] = {
    TableKind.CASH: cash.POLICY,
    TableKind.PRIVATE: private.POLICY,
    TableKind.TOURNAMENT: sit_and_go.POLICY,
}
"""The policy of each :class:`~naiko_service.records.TableKind`."""


def policy_for(record: TableRecord) -> TablePolicy:
    """The policy of *record*'s table type: its :class:`~naiko_service.records.TableKind`; a
    tournament's table (it names its tournament) is a Sit & Go's or Spin's, or a scheduled
    multi-table tournament's (``multi``)."""
    info = record.tournament
    if info is not None:
        return mtt.POLICY if info.multi else sit_and_go.POLICY
    return POLICIES[record.settings.kind]

