""":mod:`naiko_service.usecases.deal_requests`: the players' requests of R9.16, deals at a
tournament's final table (``ask_deal``, ``accept_deal``, ``decline_deal``), each one conditional
write of the table (:func:`.transaction.mutate`). What they change and when the table holds is
:mod:`.deals`, which the tables' policies call (and which therefore imports no unit of work)."""

from __future__ import annotations

from dataclasses import replace

from .. import protocol as p
from ..notices import DealAccepted, DealAsked, DealCancelled
from ..records import Deal, DealOffer, TableRecord, TimerKind
from . import transaction
from .base import Caller, Deps, Outcome, ServiceError, seat_of
from .deals import _apply, _deal, _final_table, _log, _players, _set, _set_held


def ask_deal(deps: Deps, caller: Caller, request: p.AskDeal) -> None:
    """R9.16: ask for a deal at the final table. When every player there has asked, the table
    holds after the hand in progress and offers the splits (:func:`holds`).

    :raises ServiceError: ``not_seated`` (not a player at this table), ``deals_off``,
        ``not_final_table``, ``too_many_players``, ``deal_made`` (a deal was made already),
        ``deal_offered`` (answer the offer instead), ``already_asked``.
    """
    def change(record: TableRecord, now: int) -> Outcome:
        seat_of(record, caller.player_id)
        _final_table(deps, record)
        deal = _deal(record)
        if deal.made is not None:
            raise ServiceError("deal_made", "a deal was made already: play goes on for what is "
                               "kept")
        if deal.offer is not None:
            raise ServiceError("deal_offered", "a deal is offered: accept or decline it")
        if caller.player_id in deal.asked:
            raise ServiceError("already_asked", "you asked for a deal already")
        players = _players(record)
        asked = tuple(x for x in players if x in deal.asked or x == caller.player_id)
        waiting = tuple(x for x in players if x not in asked)
        deal, line = _log(record, replace(deal, asked=asked), now, "deal_asked",
                          player=caller.player_id, asked=list(asked), waiting=list(waiting))
        _set(record, deal)
        return Outcome([DealAsked(player_id=caller.player_id, asked=asked, waiting=waiting)],
                       writes=[line])

    transaction.mutate(deps, request.table_id, change, caller=caller)


def _offer_of(record: TableRecord, player_id: str, offer_id: str) -> tuple[Deal, DealOffer]:
    """:raises ServiceError: ``no_deal_offer``, ``deal_changed`` (another offer's id)."""
    seat_of(record, player_id)
    deal = _deal(record) if record.tournament is not None else Deal()
    offer = deal.offer
    if offer is None:
        raise ServiceError("no_deal_offer", "no deal is offered at this table")
    if offer.offer_id != offer_id:
        raise ServiceError("deal_changed", f"that offer is over: the offer now is "
                           f"{offer.offer_id}")
    if player_id not in offer.players:
        raise ServiceError("not_seated", "you are not one of the players of this deal")
    return deal, offer


def accept_deal(deps: Deps, caller: Caller, request: p.AcceptDeal) -> None:
    """R9.16: accept the offer's ``split`` (a player may accept another split instead until
    everyone agrees). When every player of the offer accepted the same split it is applied in
    this write (:func:`_apply`).

    :raises ServiceError: ``not_seated``, ``no_deal_offer``, ``deal_changed``.
    """
    def change(record: TableRecord, now: int) -> Outcome:
        deal, offer = _offer_of(record, caller.player_id, request.offer_id)
        accepted = {**offer.accepted, caller.player_id: request.split}
        offer = replace(offer, accepted=accepted)
        deal, line = _log(record, replace(deal, offer=offer), now, "deal_accepted",
                          player=caller.player_id, split=request.split, offer=offer.offer_id)
        outcome = Outcome([DealAccepted(player_id=caller.player_id, split=request.split,
                                        accepted=dict(accepted))], writes=[line])
        agreed = set(accepted.values())
        if set(accepted) >= set(offer.players) and len(agreed) == 1:
            _apply(deps, record, deal, offer, agreed.pop(), now, outcome)
        else:
            _set(record, deal)
        return outcome

    transaction.mutate(deps, request.table_id, change, caller=caller)


def decline_deal(deps: Deps, caller: Caller, request: p.DeclineDeal) -> None:
    """R9.16: decline the offer: no deal, play resumes (everyone may ask again).

    :raises ServiceError: ``not_seated``, ``no_deal_offer``, ``deal_changed``.
    """
    def change(record: TableRecord, now: int) -> Outcome:
        deal, offer = _offer_of(record, caller.player_id, request.offer_id)
        deal, line = _log(record, deal, now, "deal_declined", player=caller.player_id,
                          offer=offer.offer_id)
        _set_held(record, Deal(log_seq=deal.log_seq), None)
        record.timers = [t for t in record.timers if t.kind is not TimerKind.HOLD]
        return Outcome([DealCancelled(reason="declined", player_id=caller.player_id)],
                       writes=[line])

    transaction.mutate(deps, request.table_id, change, caller=caller)
