""":mod:`naiko_service.usecases.policies.mtt` is the policy of a scheduled multi-table
tournament's table (R9.7, R9.8, R9.11): a Sit & Go's table (:mod:`.sit_and_go`) that decides,
between its hands, what the tables do together (:mod:`naiko_service.usecases.mtt`: balancing,
breaking, the final table, hand-for-hand). **When a hand ends here**:
:meth:`MttPolicy.after_hand`."""

from __future__ import annotations

from dataclasses import replace

from naiko.tournaments.seating import next_deal

from ...records import TableRecord, Timer
from .. import deals, tournament_tables
from .. import mtt as tables
from ..base import Deps, Outcome
from .sit_and_go import SitAndGoPolicy


class MttPolicy(SitAndGoPolicy):
    """A scheduled tournament's table (``multi``)."""

    def may_deal(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
        """The next hand is due: the moves waiting for this table, a break, the final table,
        hand-for-hand decide whether it deals now (:func:`naiko_service.usecases.mtt.at_deal`);
        during a published break it holds until play resumes (R9.14,
        :func:`naiko_service.usecases.mtt.at_break`); at the final table it holds for a deal
        every player asked for (R9.16, :func:`naiko_service.usecases.deals.holds`)."""
        if (self.held(record) or tables.at_break(record, now, outcome)
                or deals.holds(deps, record, now, outcome)):
            return False
        return tables.at_deal(deps, record, now, outcome)

    def before_deal(self, deps: Deps, record: TableRecord, now: int,
                    outcome: Outcome) -> frozenset[int]:
        """R9.3: the level in effect; R9.7: players who arrived in the gap between the blinds
        wait for the big blind to reach them."""
        tournament_tables.before_deal(record, now, outcome)
        info = record.tournament
        assert info is not None
        if record.state.last_big_blind_seat is None:
            record.tournament = replace(info, waiting=frozenset(), arrived=frozenset())
            return frozenset()
        wait = frozenset(next_deal(tables.seats_of(record)).waiting)
        record.tournament = replace(info, waiting=wait, arrived=frozenset())
        return wait

    def after_hand(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
        """A hand ended at this table, in its write: its log entry; the players left without
        chips stand up (a cancelled hand, R8.6, puts nobody out); then what the tables do
        together between hands (:func:`naiko_service.usecases.mtt.between_hands`: places,
        R9.5; moves and breaks, R9.7; the final table; hand-for-hand, R9.8)."""
        outcome.writes.append(tournament_tables.hand_log(record, now))
        hand = record.state.hand
        assert hand is not None
        outs = [] if hand.cancelled else tournament_tables.stand_up_out(deps, record, outcome)
        tables.between_hands(deps, record, now, outcome, outs=outs, hand_ended=True)

    def timers(self, record: TableRecord, now: int) -> list[Timer]:
        """A held table's ``hold`` timer (:func:`naiko_service.usecases.mtt.hold_timers`)."""
        return tables.hold_timers(record, now)


POLICY = MttPolicy()
