""":mod:`naiko_service.usecases.policies.sit_and_go` is the policy of a Sit & Go's or a Spin's
one table (R9.3-R9.5, R9.9, R9.10): the seats and chips are the tournament's (no cash-table
request), everybody with chips is dealt in, absent or not, and an absent player's turn is
played at once (R9.4); each hand deals the level in effect (R9.3); when a hand ends, its log
entry is written and the players left without chips are eliminated with their places and
prizes (R9.5, R9.9), in the table's write (:mod:`..tournament_tables`)."""

from __future__ import annotations

from naiko import commands as cmd

from ...records import TableRecord, Timer
from .. import deals, mtt, seats, tournament_tables
from ..base import Deps, Outcome


class SitAndGoPolicy:
    """A single-table tournament's table (a Sit & Go, a Spin)."""

    def refuse(self, record: TableRecord, what: str) -> None:
        """:raises ServiceError: ``tournament_table``: seats and chips are the tournament's."""
        tournament_tables.refuse_at_tournament(record, what)

    def absent_turn(self, record: TableRecord) -> cmd.Command | None:
        """R9.4: a player sitting out is checked when they can, else folded, at once."""
        return tournament_tables.absent_turn(record)

    def held(self, record: TableRecord) -> bool:
        info = record.tournament
        return info is not None and info.hold is not None

    def may_deal(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
        """R9.4: everybody with chips is dealt in, sitting out or not; two are enough. The
        table holds for a deal every player asked for (R9.16,
        :func:`naiko_service.usecases.deals.holds`)."""
        if self.held(record) or deals.holds(deps, record, now, outcome):
            return False
        return tournament_tables.may_deal(record)

    def before_deal(self, deps: Deps, record: TableRecord, now: int,
                    outcome: Outcome) -> frozenset[int]:
        """R9.3: the level in effect now."""
        tournament_tables.before_deal(record, now, outcome)
        return frozenset()

    def draw_button(self, deps: Deps, record: TableRecord) -> int:
        """The button the tournament drew when it started (R9.2), if that seat has chips;
        else at random among those with chips (R2.6)."""
        info = record.tournament
        assert info is not None
        active = [i for i, s in enumerate(record.state.seats) if s and s.stack > 0]
        first = info.first_button
        return first if first in active else active[deps.rng.randrange(len(active))]

    def on_timeout(self, deps: Deps, record: TableRecord, now: int, player_id: str) -> Outcome:
        """R9.4: sitting out from now on, played at once."""
        return seats.sit_out(deps, record, now, player_id)

    def after_hand(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
        """R9.5: the hand's log entry, then the players left without chips are eliminated
        (a cancelled hand, R8.6, eliminates nobody)."""
        outcome.writes.append(tournament_tables.hand_log(record, now))
        hand = record.state.hand
        assert hand is not None
        if not hand.cancelled:
            tournament_tables.eliminate(deps, record, now, outcome)

    def timers(self, record: TableRecord, now: int) -> list[Timer]:
        """The deal clock while a deal is offered (R9.16: the ``hold`` timer,
        :func:`naiko_service.usecases.mtt.hold_timers`)."""
        return mtt.hold_timers(record, now)


POLICY = SitAndGoPolicy()
