""":mod:`naiko_service.usecases.tournament_bounties` pays knockout bounties (R9.13) in the write
that eliminates their players: the table's write at the end of the hand (the table, its
tournament, the results, the log) also moves each bounty from the tournament (``pool_held``) to
the winners' accounts, with their ledger entries and a ``bounty#<player>#<table>#<hand>`` item
that may not exist yet, so a bounty is paid once however often the write is attempted.

Who wins how much is the pure rule (:func:`naiko.tournaments.bounties.knockouts`: the winners
of the pot that eliminated the player, split like that pot, R4.5; progressive: half paid, half
added to the winner's own bounty). The last player's own bounty is paid to them with the
tournament's finish (:func:`pay_own_bounty`), and so are the own bounties of every player still
in when a deal that keeps nothing ends it (R9.16); when the director cancels it (R9.15) each
player still in gets theirs back with their share (:func:`pay_cancelled_bounty`). Each
payment has a ``bounty`` line in the log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from naiko.tournaments.bounties import Knockout, bounties_after, knockouts

from ..ports import AccountMove, LedgerReason, PutItem, Write
from ..records import TableRecord
from ..tournament_records import TournamentRecord
from .base import Deps, Outcome
from .tournament_log import Out, log_entry

BOUNTY_PREFIX = "bounty#"
"""A bounty paid: ``bounty#<eliminated player>#<table>#<hand>`` (a knockout) or
``bounty#<winner>#final`` (the winner's own bounty)."""


def knock_out(deps: Deps, record: TableRecord, new: TournamentRecord, outs: Sequence[Out],
              now: int, outcome: Outcome) -> list[Knockout]:
    """R9.13: the bounties of the players the hand just ended at *record* eliminated (*outs*),
    paid in this write: each winner's paid share from the tournament to their account (a
    BOT's: the house's), progressive halves added to the winners' bounties on *new*; the
    table's view and the hand's record show them. Returns the knockouts (none without a
    bounty)."""
    hand = record.state.hand
    if not new.terms.bounty or not outs or hand is None:
        return []
    seats = list(hand.player_ids)
    seat_of = {pid: index for index, pid in enumerate(seats) if pid is not None}
    before = {pid: new.bounty_of(pid) for pid in seat_of}
    done = knockouts(_with_eligible(hand.awards, seats), seats,
                     [seat_of[out.player_id] for out in outs], before,
                     progressive=new.terms.progressive, button=hand.button)
    for knockout, out in zip(done, outs, strict=True):
        accounts = {winner: record.room.account_of(winner) for winner in knockout.paid}
        _pay(new, knockout, accounts, f"{knockout.eliminated}#{out.table}#{out.hand:06d}",
             now, outcome.moves, outcome.writes, table=out.table, hand=out.hand)
    after = bounties_after(before, done)
    for knockout in done:
        new.bounties.pop(knockout.eliminated, None)
    for pid, amount in after.items():
        if amount != new.terms.bounty:
            new.bounties[pid] = amount
    show_bounties(record, new)
    _record_in_hand(record, before, done)
    deps.count("BountiesPaid", len(done))
    return done


def pay_own_bounty(new: TournamentRecord, player: str, account: str, now: int,
                   moves: list[AccountMove], writes: list[Write], *,
                   reason: str = "winner") -> None:
    """R9.13: the tournament ends with *player* still in: their own bounty (grown, in
    progressive knockout) is paid to them, in the write that ends it (``bounty#<player>#final``,
    written only if absent: once). *reason*: ``winner`` (won by play) or ``deal`` (a deal
    that keeps nothing ends it, R9.16: each player of the deal)."""
    if not new.terms.bounty:
        return
    amount = new.bounties.pop(player, new.terms.bounty)
    _pay(new, Knockout(player, amount, {player: amount}), {player: account}, f"{player}#final",
         now, moves, writes, table=None, hand=None, reason=reason)


def pay_cancelled_bounty(new: TournamentRecord, player: str, account: str, amount: int,
                         now: int, moves: list[AccountMove], writes: list[Write]) -> None:
    """R9.13, R9.15: the director cancelled the tournament after its start: *player*, still
    in, gets their own bounty back (*amount*, as it was at the cancellation), in the
    transaction paying their share (``bounty#<player>#final``, reason ``cancelled``)."""
    _pay(new, Knockout(player, amount, {player: amount}), {player: account}, f"{player}#final",
         now, moves, writes, table=None, hand=None, reason="cancelled")


def show_bounties(record: TableRecord, new: TournamentRecord) -> None:
    """The table's view shows each seat's bounty: the grown ones of its players, as *new*
    has them (the others are the published bounty)."""
    info = record.tournament
    if info is None or not new.terms.bounty:
        return
    seated = {seat.player_id for seat in record.state.seats if seat is not None}
    record.tournament = replace(info, bounty=new.terms.bounty, bounties=tuple(sorted(
        (pid, amount) for pid, amount in new.bounties.items() if pid in seated)))


def _pay(new: TournamentRecord, knockout: Knockout, accounts: Mapping[str, str], key: str,
         now: int, moves: list[AccountMove], writes: list[Write], *, table: str | None,
         hand: int | None, reason: str = "knockout") -> None:
    tournament_id = new.tournament_id
    for winner, amount in knockout.paid.items():
        if amount:
            moves.append(AccountMove(accounts[winner], -amount, tournament_id,
                                     LedgerReason.BOUNTY, now))
            new.pool_held -= amount
    fields: dict[str, Any] = {"player": knockout.eliminated, "bounty": knockout.bounty,
                              "paid": dict(knockout.paid), "added": dict(knockout.added),
                              "accounts": dict(accounts), "table": table, "hand": hand,
                              "reason": reason}
    writes.append(PutItem(tournament_id, BOUNTY_PREFIX + key, {**fields, "at_ms": now},
                          new=True))
    writes.append(log_entry(new, now, "bounty", **fields))


def _with_eligible(awards: Sequence[Mapping[str, Any]],
                   seats: Sequence[str | None]) -> list[dict[str, Any]]:
    """The hand's pot awards, each with its ``eligible`` seats: an uncontested pot's (R2.4:
    everybody else folded) lists none, and every seat dealt in was eligible for it."""
    dealt = [index for index, pid in enumerate(seats) if pid is not None]
    return [{**award, "eligible": award.get("eligible", dealt)} for award in awards]


def _record_in_hand(record: TableRecord, before: Mapping[str, int],
                    done: Sequence[Knockout]) -> None:
    """R9.13, R10.1: the hand's record shows the bounties at its start and its knockouts."""
    hand = record.state.hand
    assert hand is not None
    key = (record.table_id, hand.number)
    for index, history in enumerate(record.histories):
        if history.key == key and history.tournament is not None:
            record.histories[index] = replace(history, tournament={
                **history.tournament, "bounties": dict(before),
                "knockouts": [k.to_dict() for k in done]})
