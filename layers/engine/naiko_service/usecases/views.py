""":mod:`naiko_service.usecases.views` is what a player sees of a table: the engine's view plus
the table's settings, room and tournament (:func:`table_view`), and the ``snapshot`` message."""

from __future__ import annotations

from typing import Any

from naiko.views import view_for

from ..records import DEALT_IN_TIMERS, TableRecord
from . import pre_actions, time_banks
from .room import required_buy_in


def table_view(record: TableRecord, seat_index: int | None, *,
               proofs: bool = False) -> dict[str, Any]:
    """What *seat_index* (``None``: a spectator) sees of the table: the engine's view plus the
    table's settings, who is disconnected, and the deadline of the seat to act; with *proofs*,
    the proof of every card the viewer has seen in the hand (R10.2, a snapshot)."""
    view = view_for(record.state, seat_index, proofs=proofs)
    settings = record.settings
    room = record.room
    view["table_id"] = record.table_id
    view["settings"] = {"name": settings.name, "min_buy_in": settings.min_buy_in,
                        "max_buy_in": settings.max_buy_in, "decision_ms": settings.decision_ms,
                        "kind": settings.kind.value, "host": settings.host,
                        "bots": settings.bots, "min_players": settings.min_players,
                        "deep_stack": settings.deep_stack, "chat": settings.chat,
                        "time_bank": (None if settings.time_bank is None
                                      else settings.time_bank.to_dict())}
    view["disconnected"] = sorted(record.disconnected)
    view["room"] = {"waitlist": list(room.waitlist), "held_seats": len(room.offers),
                    "paused": room.paused, "closing": room.closing, "closed": record.closed,
                    "pending": dict(room.pending)}
    viewer = record.state.seats[seat_index] if seat_index is not None else None
    if viewer is not None and viewer.player_id == settings.host and settings.private:
        view["room"]["invite_code"] = room.invite_code  # the host's eyes only (R7.12)
    if record.tournament is not None:
        view["tournament"] = tournament_view(record)
        if record.tournament.bounty:  # R9.13: every seat's bounty, shown to the table
            for entry in view["seats"]:
                if entry is not None:
                    entry["bounty"] = record.tournament.bounty_of(entry["player_id"])
    if settings.time_bank is not None:  # R8.7: every seat's bank, shown to the table
        for entry in view["seats"]:
            if entry is not None:
                entry["time_bank_ms"] = time_banks.bank_ms(record, entry["player_id"])
                entry["time_bank_running"] = entry["player_id"] in record.bank_since
    # R8.8: the viewer's own pre-action, and nobody else's
    view["pre_action"] = pre_actions.view_of(
        record, viewer.player_id if viewer is not None else None)
    deadline = next((t.due_ms for t in record.timers if t.kind in DEALT_IN_TIMERS), None)
    if view["prompt"] is not None:
        view["prompt"]["deadline_ms"] = deadline
    if view["hand"] is not None:
        view["hand"]["actor_deadline_ms"] = deadline
    return view


def tournament_view(record: TableRecord) -> dict[str, Any]:
    """A tournament table's tournament: the level of the hand (R9.3), when the next level
    starts and what it is, players left, the prizes (and a Spin's multiplier)."""
    info = record.tournament
    assert info is not None
    structure = info.structure
    level = structure.level(max(info.announced_level, 1))
    following = structure.following(level)
    ends = info.level_ends_ms
    if not info.announced_level and len(structure.levels) > 1:  # before the first hand
        ends = structure.level_start_ms(info.started_ms, 2)
    return {"tournament_id": info.tournament_id, "level": level.number,
            "small_blind": level.small_blind, "big_blind": level.big_blind,
            "ante": level.ante, "ante_mode": level.ante_mode.value, "level_ends_ms": ends,
            "next_level": None if following is None else following.to_dict(),
            "players_left": info.players_left, "entrants": info.entrants,
            "payouts": list(info.payouts), "multiplier": info.multiplier,
            "first_hand_ms": info.started_ms,
            **({"bounty": info.bounty} if info.bounty else {}), **deal_view(record)}


def deal_view(record: TableRecord) -> dict[str, Any]:
    """R9.16 at a final table: ``{"deal": ...}`` while a deal is asked for, offered or made
    (who asked, the offer with every player's amount and answer, the split made), so a player
    who connects meanwhile sees it; ``{}`` otherwise."""
    info = record.tournament
    deal = None if info is None else info.deal
    if deal is None or not (deal.asked or deal.offer or deal.made):
        return {}
    offer = deal.offer
    return {"deal": {
        "asked": list(deal.asked), "made": deal.made,
        "offer": None if offer is None else {
            "offer_id": offer.offer_id, "ends_ms": offer.ends_ms,
            "players": list(offer.players), "stacks": list(offer.stacks),
            "prizes": list(offer.prizes), "kept": offer.kept,
            "icm": list(offer.splits["icm"]), "chip_count": list(offer.splits["chip_count"]),
            "accepted": dict(offer.accepted)}}}


def snapshot_message(record: TableRecord, player_id: str, request_id: str | None,
                     now: int | None = None) -> dict[str, Any]:
    """A ``snapshot``: the whole table as *player_id* may see it (at *now*: with the buy-in
    a deep-stack table requires of them, :func:`with_required_buy_in`)."""
    view = table_view(record, record.seat_of(player_id), proofs=True)
    return {"type": "snapshot", "table_id": record.table_id, "version": record.seq,
            "view": with_required_buy_in(view, record, player_id, now),
            "request_id": request_id}


def with_required_buy_in(view: dict[str, Any], record: TableRecord, player_id: str,
                         now: int | None) -> dict[str, Any]:
    """*view* with ``required_buy_in`` when *player_id*, not seated, left this deep-stack
    table less than 30 minutes before *now* (R7.11, :func:`.room.required_buy_in`); a copy
    then, *view* itself otherwise (the spectators' shared view is never changed)."""
    if now is None or view.get("seat_index") is not None:
        return view
    required = required_buy_in(record, player_id, now)
    return view if required is None else {**view, "required_buy_in": required}
