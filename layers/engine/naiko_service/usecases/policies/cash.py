""":mod:`naiko_service.usecases.policies.cash` is a public cash table's policy (R7.7-R7.11):
three players to start, then two to go on; a clock that runs out for a disconnected player sits
them out after the hand (R8.2); a player left without chips is sat out until a reload (R7.9),
a house-funded BOT reloads at once; a freed seat is held for the first in line (R7.10)."""

from __future__ import annotations

from naiko import commands as cmd

from ...ledger import HOUSE_BOTS
from ...ports import AccountMove, LedgerReason
from ...records import TableRecord, Timer
from .. import room, seats
from ..base import Deps, Outcome, engine_step


class CashPolicy:
    """A public cash table (:class:`~naiko_service.records.TableKind` ``cash``)."""

    def refuse(self, record: TableRecord, what: str) -> None:
        """Every cash-table request has its meaning here."""

    def absent_turn(self, record: TableRecord) -> cmd.Command | None:
        """A player sitting out is not dealt in: the seat to act always has its clock."""
        return None

    def held(self, record: TableRecord) -> bool:
        return False

    def may_deal(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
        """R7.7: a new table needs 3 players (2 at a heads-up table; a private table's host
        may say 2); a table that keeps dealing goes on with 2; one that stopped (fewer than 2
        could play when a hand was due) waits for its minimum again."""
        state = record.state
        active = [s for s in state.seats if s and not s.sitting_out and s.stack > 0]
        if state.hand_count and not record.room.stopped:
            if len(active) < 2:
                record.room.stopped = True
                return False
            return True
        return len(active) >= min(record.settings.min_players, state.config.seat_count)

    def before_deal(self, deps: Deps, record: TableRecord, now: int,
                    outcome: Outcome) -> frozenset[int]:
        return frozenset()

    def draw_button(self, deps: Deps, record: TableRecord) -> int:
        """R2.6: at random among the players dealt in (not sitting out, with chips)."""
        active = [i for i, s in enumerate(record.state.seats)
                  if s and not s.sitting_out and s.stack > 0]
        return active[deps.rng.randrange(len(active))]

    def on_timeout(self, deps: Deps, record: TableRecord, now: int, player_id: str) -> Outcome:
        """R8.2: a disconnected player the clock decided for sits out when the hand ends."""
        if player_id in record.disconnected and player_id not in record.sit_out_after_hand:
            record.sit_out_after_hand.append(player_id)
        return Outcome()

    def after_hand(self, deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
        """R7.9: no chips left: sat out until a reload (or leaving); a house-funded BOT
        reloads instead (:func:`reload_house_bot`)."""
        if not record.state.config.entry_rules:
            return
        for index, seat in enumerate(record.state.seats):
            if seat is not None and seat.stack == 0 and not seat.sitting_out:
                reloaded = reload_house_bot(deps, record, index)
                outcome.add(reloaded if reloaded is not None
                            else seats.sit_out(deps, record, now, seat.player_id))

    def timers(self, record: TableRecord, now: int) -> list[Timer]:
        """R7.10: one ``offer`` timer per held seat."""
        return room.offer_timers(record)


def reload_house_bot(deps: Deps, record: TableRecord, seat_index: int) -> Outcome | None:
    """A BOT seat the house funds (:data:`~naiko_service.ledger.HOUSE_BOTS`) that went broke
    reloads at once, as a person may between hands (R7.1), to the table's middle buy-in, so a
    table of BOTs (the local demo table) keeps playing instead of emptying one broke BOT after
    another. ``None`` for a person's seat, or when the house's bot account cannot pay (then it
    sits out, R7.9)."""
    seat = record.state.seats[seat_index]
    if seat is None or not seat.is_bot \
            or record.room.funding.get(seat.player_id) != HOUSE_BOTS:
        return None
    amount = (record.settings.min_buy_in + record.settings.max_buy_in) // 2
    if deps.accounts.balance(HOUSE_BOTS) < amount:
        return None
    outcome = engine_step(deps, record, cmd.AddChips(seat_index=seat_index, amount=amount))
    outcome.moves.append(AccountMove(HOUSE_BOTS, amount, record.table_id,
                                     LedgerReason.RELOAD))
    return outcome


POLICY = CashPolicy()
