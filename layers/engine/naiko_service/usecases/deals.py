""":mod:`naiko_service.usecases.deals` is R9.16, deals at a tournament's final table.

The deal lives on the final table's item (:attr:`~naiko_service.records.TournamentSeat.deal`)
and every step is one conditional write of that table (the requests, in
:mod:`.deal_requests`: :func:`.transaction.mutate`), so every
player at the table is told at each step (the table's fan-out) and the deal cannot race the
hands:

1. ``ask_deal``: a player at the final table of a tournament whose terms publish deals
   (:class:`~naiko.tournaments.structures.DealTerms`), with at most ``max_players`` left, asks.
2. When every player at the table has asked, the table holds after the hand in progress
   (:func:`holds`, asked by the policy when the next hand is due) and offers the chip-count
   and ICM splits of the prizes left (:func:`naiko.tournaments.icm.deal_splits`), each
   player's amount shown to all; the deal clock is the table's ``hold`` timer
   (``hold:deal:<n>:<ends_ms>``: :func:`naiko_service.usecases.mtt.hold_timers`).
3. ``accept_deal`` (naming the offer and the split) or ``decline_deal``. When every player
   accepted the same split it is applied in that write: each player's amount moves from the
   tournament's pool to their account (a ``deal`` ledger entry, with a ``deal#<player>`` item
   that may not exist yet: never paid twice), the prizes left become what is kept for the
   winner (place 1) and nothing for places 2..n; play goes on for the kept part, or, when
   nothing is kept, the tournament finishes at once (places by stacks, R9.5's ties).
   A decline, or the clock running out, ends the offer and play resumes.
4. The director's pause (R9.15) takes precedence: it ends an offer and the asks
   (:func:`paused`), and no deal is asked for or made while the tournament is paused.

The log lines (``deal_asked``, ``deal_offered``, ``deal_accepted``, ``deal_declined``,
``deal_expired``, ``deal_paused``, ``deal_made``) are the table's own items
(``log#<ms>#d#<table>#<n>``), like its ``hand`` lines; only the deal made writes the tournament
item.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from naiko.tournaments.icm import deal_splits
from naiko.tournaments.prizes import TieGroup
from naiko.tournaments.structures import DealTerms

from ..notices import DealCancelled, DealMade, DealOffered
from ..ports import AccountMove, LedgerReason, PutItem, PutTournament
from ..records import Deal, DealOffer, Hold, TableRecord, Timer, TimerKind
from ..tournament_records import Result, TournamentRecord, TournamentStatus
from .base import Deps, Outcome, ServiceError
from .tournament_bounties import pay_own_bounty
from .tournament_tables import _finish
from .tournament_uow import store

SPLITS = ("icm", "chip_count")
"""The splits a deal offers (R9.16)."""

DEAL_RESUME_MS = 5_000
"""After a deal is made play resumes this much later: everyone sees what they were paid."""


# -- who may ask ------------------------------------------------------------------------------

def _players(record: TableRecord) -> list[str]:
    """The players at the table, in seat order (a player out stands up at the hand's end)."""
    return [s.player_id for s in record.state.seats if s is not None]


def _late_open(tournament: TournamentRecord) -> bool:
    return any(t.kind is TimerKind.LATE_CLOSE for t in tournament.timers)


def _final_table(deps: Deps, record: TableRecord) -> tuple[TournamentRecord, DealTerms]:
    """The tournament, if this table is its final table and deals are open at it.

    :raises ServiceError: ``deals_off`` (not a tournament's table, or its terms publish no
        deals), ``not_final_table`` (other tables play, late registration is open, the
        tournament is not running or is paused by its director), ``too_many_players``.
    """
    info = record.tournament
    if info is None:
        raise ServiceError("deals_off", "deals are for tournaments' final tables")
    tournament = store(deps).load(info.tournament_id)
    terms = tournament.terms.deals
    if terms is None:
        raise ServiceError("deals_off", "this tournament's terms offer no deals")
    if tournament.status is not TournamentStatus.RUNNING or tournament.tables != [
            record.table_id] or record.closed:
        raise ServiceError("not_final_table", "a deal is made at the final table only, when "
                           "no other table plays")
    _not_paused(tournament)
    if _late_open(tournament):
        raise ServiceError("not_final_table", "late registration is open: the prizes are not "
                           "final yet")
    left = max(tournament.players_left, len(_players(record)))
    if left > terms.max_players:
        raise ServiceError("too_many_players", f"a deal may be asked for once {terms.max_players}"
                           f" players are left; {left} are")
    return tournament, terms


def _not_paused(tournament: TournamentRecord) -> None:
    """R9.15: the director's pause takes precedence over a deal: none is asked for, offered or
    made while the tournament is paused (:func:`paused`)."""
    if tournament.paused is not None:
        raise ServiceError("not_final_table", "the tournament is paused by its director: a "
                           "deal may be asked for once it resumes")


def _deal(record: TableRecord) -> Deal:
    info = record.tournament
    assert info is not None
    return info.deal or Deal()


def _set(record: TableRecord, deal: Deal) -> None:
    info = record.tournament
    assert info is not None
    record.tournament = replace(info, deal=deal)


def _set_held(record: TableRecord, deal: Deal, hold: Hold | None) -> None:
    """The deal, and the table held for it (:attr:`Hold.DEAL`) or let go (``None``)."""
    info = record.tournament
    assert info is not None
    record.tournament = replace(info, deal=deal, hold=hold)


def _log(record: TableRecord, deal: Deal, now: int, kind: str,
         **fields: Any) -> tuple[Deal, PutItem]:
    """A deal's log line, the table's own item (no tournament write)."""
    info = record.tournament
    assert info is not None
    deal = replace(deal, log_seq=deal.log_seq + 1)
    return deal, PutItem(info.tournament_id,
                         f"log#{now:013d}#d#{record.table_id}#{deal.log_seq:06d}",
                         {"type": kind, "tournament": info.tournament_id, "at_ms": now,
                          "table": record.table_id, **fields}, new=True)


# -- the table: holding, the offer, the clock -------------------------------------------------

def holds(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
    """The table's next hand is due (:meth:`.policies.sit_and_go.SitAndGoPolicy.may_deal`):
    whether it holds for a deal instead. When every player at the table asked, the offer is
    made now (between hands, so the stacks are settled): the table holds (:attr:`Hold.DEAL`)
    until the deal clock (its ``hold`` timer) or the players' answers end it. Asks that cannot
    lead to an offer any more (the table is no longer a final table within the terms) go."""
    info = record.tournament
    if info is None or info.deal is None or info.deal.made is not None:
        return False
    deal = info.deal
    if deal.offer is not None:
        return True
    players = _players(record)
    if not players or any(x not in deal.asked for x in players):
        return False
    try:
        tournament, terms = _final_table(deps, record)
    except ServiceError:
        _set(record, Deal(log_seq=deal.log_seq))
        return False
    stacks = [record.state.seats[record.seat_of(x)].stack  # type: ignore[index, union-attr]
              for x in players]
    splits = deal_splits(stacks, tournament.payouts[:len(players)], terms.keep_percent)
    offer = DealOffer(f"{record.state.hand_count}.{now}", now + terms.clock_s * 1_000,
                      tuple(players), tuple(stacks), tuple(splits.prizes), splits.kept,
                      {"icm": tuple(splits.icm), "chip_count": tuple(splits.chip_count)})
    deal, line = _log(record, replace(deal, offer=offer), now, "deal_offered",
                      offer=offer.offer_id, ends_ms=offer.ends_ms, players=list(players),
                      stacks=list(stacks), prizes=splits.prizes, kept=splits.kept,
                      icm=splits.icm, chip_count=splits.chip_count)
    _set_held(record, deal, Hold.DEAL)
    outcome.writes.append(line)
    outcome.events.append(DealOffered(
        offer_id=offer.offer_id, ends_ms=offer.ends_ms, players=offer.players,
        stacks=offer.stacks, prizes=offer.prizes, kept=offer.kept,
        icm=tuple(splits.icm), chip_count=tuple(splits.chip_count)))
    return True


def clock_due(record: TableRecord) -> int | None:
    """When the deal clock of the offer out runs out (the ``hold`` timer's deadline)."""
    info = record.tournament
    if info is None or info.deal is None or info.deal.offer is None:
        return None
    return info.deal.offer.ends_ms


def on_clock(record: TableRecord, now: int, timer: Timer) -> Outcome:
    """The table's ``hold`` timer while a deal is offered: the deal clock ran out (its token
    carries the offer's deadline; an execution of another offer's clock finds none). The
    offer ends unaccepted and play resumes."""
    info = record.tournament
    assert info is not None and info.deal is not None
    deal = info.deal
    offer = deal.offer
    if offer is None or not timer.token.endswith(f":{offer.ends_ms}"):
        return Outcome()
    deal, line = _log(record, deal, now, "deal_expired", offer=offer.offer_id,
                      accepted=dict(offer.accepted))
    _set_held(record, Deal(log_seq=deal.log_seq), None)
    record.timers = [t for t in record.timers if t.kind is not TimerKind.NEXT_HAND]
    return Outcome([DealCancelled(reason="timeout", player_id=None)], writes=[line])


def paused(record: TableRecord, now: int, outcome: Outcome) -> None:
    """R9.15: the director paused the tournament (the table is told,
    :func:`.director.pause`): the offer out, if any, ends unaccepted and the asks go
    (``deal_paused``; ``deal_cancelled`` with ``reason`` ``paused``); the players may ask again
    once it resumes. A deal made stays made."""
    info = record.tournament
    if info is None or info.deal is None or info.deal.made is not None:
        return
    deal = info.deal
    offer = deal.offer
    if offer is None and not deal.asked:
        return
    deal, line = _log(record, deal, now, "deal_paused",
                      offer=None if offer is None else offer.offer_id, asked=list(deal.asked),
                      accepted={} if offer is None else dict(offer.accepted))
    _set_held(record, Deal(log_seq=deal.log_seq), None if offer is not None else info.hold)
    record.timers = [t for t in record.timers if t.kind is not TimerKind.HOLD
                     or offer is None]
    outcome.writes.append(line)
    if offer is not None:
        outcome.events.append(DealCancelled(reason="paused", player_id=None))


# -- the deal made ----------------------------------------------------------------------------

def _apply(deps: Deps, record: TableRecord, deal: Deal, offer: DealOffer, split: str,
           now: int, outcome: Outcome) -> None:
    """Every player accepted *split*: in this write (the table's, conditional on its version,
    with the tournament's, conditional on its own) each player's amount moves from the
    tournament's pool to their account (ledger reason ``deal``; a ``deal#<player>`` item that
    may not exist yet, so never twice); the prizes of places 1..n become the kept part for
    the winner and 0 below; then play goes on for it, or, nothing kept, the tournament ends."""
    info = record.tournament
    assert info is not None
    stored = store(deps).load(info.tournament_id)
    if stored.status is not TournamentStatus.RUNNING:  # cancelled meanwhile (R9.15)
        raise ServiceError("not_final_table", f"the tournament is {stored.status.value}")
    _not_paused(stored)  # the write is conditional on this version: a pause meanwhile fails it
    new = stored.copy()
    new.version += 1
    amounts = offer.splits[split]
    tournament_id = new.tournament_id
    for player, amount in zip(offer.players, amounts, strict=True):
        account = record.room.account_of(player)
        outcome.moves.append(AccountMove(account, -amount, tournament_id, LedgerReason.DEAL,
                                         now))
        outcome.writes.append(PutItem(tournament_id, f"deal#{player}",
                                      {"player_id": player, "account": account,
                                       "amount": amount, "split": split, "at_ms": now},
                                      new=True))
    new.pool_held -= sum(amounts)
    n = len(offer.players)
    places = len(new.payouts[:n])
    new.payouts[:places] = ([offer.kept] + [0] * (places - 1)) if places else []
    deal, line = _log(record, replace(deal, offer=None, made=split), now, "deal_made",
                      offer=offer.offer_id, split=split, players=list(offer.players),
                      amounts=list(amounts), kept=offer.kept)
    outcome.writes.append(line)
    outcome.events.append(DealMade(split=split, players=offer.players, amounts=amounts,
                                   kept=offer.kept))
    record.timers = [t for t in record.timers if t.kind is not TimerKind.HOLD]
    if offer.kept == 0:
        _finish_at_deal(deps, record, new, offer, now, outcome)
    else:  # play goes on for what is kept, a moment later
        record.timers.append(Timer(f"next_hand:deal:{offer.offer_id}", TimerKind.NEXT_HAND,
                                   now + DEAL_RESUME_MS))
    _set_held(record, deal, None)
    info = record.tournament
    assert info is not None
    record.tournament = replace(info, payouts=tuple(new.payouts))
    outcome.writes.append(PutTournament(new, stored.version))


def stack_places(players: tuple[str, ...], stacks: tuple[int, ...]) -> dict[str, int]:
    """Places by stacks when a deal leaves nothing to play for: the larger stack finishes
    higher; equal stacks tie and all get the best place they occupy (as R9.5 ranks players out
    in one hand).

    >>> stack_places(("ann", "bob", "cy"), (300, 500, 300))
    {'bob': 1, 'ann': 2, 'cy': 2}
    """
    order = sorted(range(len(players)), key=lambda i: -stacks[i])
    places: dict[str, int] = {}
    for rank, i in enumerate(order, start=1):
        tied = next((places[players[j]] for j in order[:rank - 1] if stacks[j] == stacks[i]),
                    None)
        places[players[i]] = rank if tied is None else tied
    return places


def _finish_at_deal(deps: Deps, record: TableRecord, new: TournamentRecord, offer: DealOffer,
                    now: int, outcome: Outcome) -> None:
    """Nothing is kept: the deal ends the tournament. Places by stacks
    (:func:`stack_places`), no prize beyond the deal (each ``result#`` has prize 0), at a
    knockout tournament each player's own bounty (R9.13, as the winner's at a finish), the
    ``finished`` log entry; the table closes."""
    places = stack_places(offer.players, offer.stacks)
    groups: list[TieGroup] = []
    for place in sorted(set(places.values())):
        groups.append(TieGroup(place, tuple(x for x in offer.players if places[x] == place)))
    hand = record.state.hand_count
    for player in offer.players:
        result = Result(player, places[player], 0, False, hand, record.table_id,
                        record.room.account_of(player))
        outcome.writes.append(PutItem(new.tournament_id, f"result#{player}", result.to_dict(),
                                      new=True))
    for player in offer.players:  # R9.13: each one's own bounty, as the winner's at a finish
        pay_own_bounty(new, player, record.room.account_of(player), now, outcome.moves,
                       outcome.writes, reason="deal")
    by_player = dict.fromkeys(offer.players)
    _finish(deps, new, groups, dict.fromkeys(offer.players, 0), by_player,  # type: ignore[arg-type]
            now, outcome)
    record.closed = True
