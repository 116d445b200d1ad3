""":mod:`naiko_service.usecases.tournament_payments` moves a tournament's account chips out:
prizes to the players whose places are final (R9.9) and, when a tournament is cancelled, every
entry back (R9.1). Each payment is a transaction of its own with an item that can exist only
once (``paid#<player>``; the deleted ``reg#<player>`` of a refund), so a payment is never made
twice however often it is attempted (the write's follow-up, the ``payout`` timer, the sweep).
It also starts the tournament's own timer executions (:func:`arm_tournament`)."""

from __future__ import annotations

from contextlib import suppress
from functools import partial

from ..ports import (
    AccountMove,
    DeleteItem,
    InsufficientFunds,
    LedgerReason,
    PutItem,
    TournamentStore,
)
from ..records import Timer, TimerKind
from ..tournament_records import (
    HOUSE_PRIZES,
    TOURNAMENT_PREFIX,
    Result,
    TournamentRecord,
    TournamentStatus,
)
from .base import Deps
from .tournament_uow import Busy, Plan, Unchanged, store, transact

PAYOUT_RETRY_MS = 5_000
"""A prize not paid right after its place became final (a cancelled tournament's entry not
returned) is paid by the tournament's ``payout`` timer this much later (the sweep backs the
timer up)."""

PAYOUT_BACKOFF_MS = 60_000
"""Then, while anything is owed, the ``payout`` timer comes back every minute
(:func:`~.tournaments.tournament_timer`; an alarm watches ``PrizeFailures``)."""

REG_PREFIX = "reg#"
"""A registration item: ``reg#<player>`` (``player_id``, ``account``, ``bot``, ``at_ms``,
``connection_id``)."""


def has_item(tournaments: TournamentStore, tournament_id: str, key: str) -> bool:
    """Whether the tournament has the item *key* (exactly: ``reg#ann`` is not ``reg#anna``)."""
    return any(k == key for k, _ in tournaments.items(tournament_id, key))


def paid_players(tournaments: TournamentStore, tournament_id: str) -> set[str]:
    """The players whose prize is paid (one query of the ``paid#`` items, not one per place)."""
    return {key[len("paid#"):] for key, _ in tournaments.items(tournament_id, "paid#")}


CANCEL_PREFIX = "cancel#"
"""A director's cancellation after the start (R9.15): ``cancel#<k>``, the split's rows
(``player_id``, ``place``, ``prize``, ``account``, ``table``, ``stack``; ``bounty``, the
player's own at a knockout tournament, R9.13), written with it."""


def refunds_entries(record: TournamentRecord) -> bool:
    """A tournament cancelled before its start: its entries go back. One the director cancelled
    after its start (R9.15) pays its split instead (:func:`pay_owed`)."""
    return record.status is TournamentStatus.CANCELLED and record.started_ms is None


def pay_owed(deps: Deps, tournament_id: str, record: TournamentRecord) -> int:
    """What the tournament owes now: a cancelled one's entries, or its prizes (and, cancelled
    after its start, its split: :func:`pay_cancellation`)."""
    if refunds_entries(record):
        return refund_entries(deps, tournament_id)
    made = pay_prizes(deps, tournament_id)
    if record.status is TournamentStatus.CANCELLED:
        made += pay_cancellation(deps, tournament_id)
    return made


def settle(deps: Deps, tournament_id: str) -> int:
    """Pay what is owed now (prizes; a cancelled tournament's entries) and, once nothing is
    owed, retire the ``payout`` timer. Returns how many payments were made. First, once a
    scheduled tournament's count shards closed, the players they counted get their places
    (:func:`.field_shards.place_sharded`: a backup of the write that closed them)."""
    from .field_shards import place_sharded  # it builds on the tournament's unit of work

    place_sharded(deps, tournament_id)
    made = pay_owed(deps, tournament_id, store(deps).load(tournament_id))
    retire_payout_timer(deps, tournament_id)
    return made


def pay_cancellation(deps: Deps, tournament_id: str) -> int:
    """R9.15: pay each share of a director's cancellation split (the ``cancel#`` items) not
    paid yet, each in its own transaction with its ``paid#`` item (only if absent: once); at a
    knockout tournament the row's ``bounty``, the player's own (R9.13), goes back in the same
    transaction (:func:`.tournament_bounties.pay_cancelled_bounty`). Returns how many were
    paid now."""
    tournaments = store(deps)
    paid = paid_players(tournaments, tournament_id)
    made = 0
    for _, chunk in tournaments.items(tournament_id, CANCEL_PREFIX):
        for row in chunk["rows"]:
            result = Result(str(row["player_id"]), int(row["place"]), int(row["prize"]),
                            table=str(row["table"]), account=str(row["account"]))
            bounty = int(row.get("bounty", 0))
            if (result.prize <= 0 and bounty <= 0) or result.player_id in paid:
                continue
            key = f"paid#{result.player_id}"
            try:
                done = transact(deps, tournament_id, partial(_pay_share, result, bounty),
                                settled=partial(has_item, tournaments, tournament_id, key))
            except (InsufficientFunds, Busy):  # the payout timer tries again
                deps.count("PrizeFailures", 1)
                continue
            if done.written:
                made += 1
                deps.count("PrizesPaid", 1)
    return made


def pay_prizes(deps: Deps, tournament_id: str) -> int:
    """R9.9: pay every final place's prize not paid yet, each in a transaction of its own
    that also writes the place's ``paid#`` item on condition that it does not exist: a second
    attempt (a duplicated timer, a retried invocation) cannot pay twice. Returns how many were
    paid now."""
    tournaments = store(deps)
    paid_now = 0
    paid = paid_players(tournaments, tournament_id)
    for _, data in tournaments.items(tournament_id, "result#"):
        result = Result.from_dict(data)
        if result.prize <= 0 or result.player_id in paid:
            continue
        key = f"paid#{result.player_id}"
        try:  # another invocation may pay it meanwhile: then stop
            done = transact(deps, tournament_id, partial(_pay, result),
                            settled=partial(has_item, tournaments, tournament_id, key))
        except InsufficientFunds:  # the house's prize account is short: ops are alerted
            deps.count("PrizeFailures", 1)
            deps.warn("a prize could not be paid", {"tournament_id": tournament_id,
                                                    "account": result.account})
            continue
        except Busy:  # the payout timer tries again
            continue
        if done.written:
            paid_now += 1
            deps.count("PrizesPaid", 1)
    return paid_now


def _pay(result: Result, new: TournamentRecord, now: int, plan: Plan) -> None:
    tournament_id = new.tournament_id
    new.paid += 1
    plan.moves.append(AccountMove(result.account, -result.prize, tournament_id,
                                  LedgerReason.PRIZE, now))
    if new.is_spin:  # R9.10: a Spin's prizes come from the house's prize account
        plan.moves.append(AccountMove(HOUSE_PRIZES, result.prize, tournament_id,
                                      LedgerReason.PRIZE, now))
    else:
        new.pool_held -= result.prize
    plan.writes.append(PutItem(tournament_id, f"paid#{result.player_id}",
                               {"player_id": result.player_id, "place": result.place,
                                "prize": result.prize, "at_ms": now}, new=True))


def _pay_share(result: Result, bounty: int, new: TournamentRecord, now: int,
               plan: Plan) -> None:
    """A cancellation's share (R9.15) and the player's own bounty (R9.13), once (``paid#``)."""
    from .tournament_bounties import pay_cancelled_bounty  # it builds on the tables' module

    if result.prize > 0:
        _pay(result, new, now, plan)
    else:  # only a bounty: the paid# item still says it is done
        plan.writes.append(PutItem(new.tournament_id, f"paid#{result.player_id}",
                                   {"player_id": result.player_id, "place": result.place,
                                    "prize": 0, "at_ms": now}, new=True))
    if bounty > 0:
        pay_cancelled_bounty(new, result.player_id, result.account, bounty, now, plan.moves,
                             plan.writes)


def refund_moves(record: TournamentRecord, account: str, reason: LedgerReason,
                  now: int) -> tuple[AccountMove, ...]:
    entry = record.terms.entry
    move = AccountMove(account, -entry, record.tournament_id, reason, now, registered=False)
    if record.is_spin:  # its bounty part (R9.13) is the tournament's, the rest the house's
        record.pool_held -= record.terms.bounty
        return move, AccountMove(HOUSE_PRIZES, record.terms.prize_entry, record.tournament_id,
                                 reason, now)
    record.pool_held -= entry
    return (move,)


def refund_entries(deps: Deps, tournament_id: str) -> int:
    """A cancelled tournament: each registration goes, with its entry back, in a transaction
    of its own (deleting the registration is the condition: never refunded twice). Returns how
    many were refunded now."""
    tournaments = store(deps)
    refunded = 0
    for key, registration in tournaments.items(tournament_id, REG_PREFIX):
        account = str(registration.get("account", key[len(REG_PREFIX):]))

        def refund(new: TournamentRecord, now: int, plan: Plan, key: str = key,
                   account: str = account) -> None:
            new.entrants -= 1
            if new.entrants == 0:
                new.timers = []
            plan.moves.extend(refund_moves(new, account, LedgerReason.UNREGISTER, now))
            plan.writes.append(DeleteItem(tournament_id, key))

        def gone(key: str = key) -> bool:  # refunded by another invocation
            return not has_item(tournaments, tournament_id, key)

        try:
            done = transact(deps, tournament_id, refund, settled=gone)
        except Busy:  # the payout timer tries again
            continue
        refunded += done.written
    return refunded


def unpaid_shares(tournaments: TournamentStore, tournament_id: str, paid: set[str]) -> int:
    """R9.15: the shares of a director's cancellation split (``cancel#`` rows with a prize or
    a bounty, R9.13) whose ``paid#`` item is not written yet."""
    return sum(1 for _, chunk in tournaments.items(tournament_id, CANCEL_PREFIX)
               for row in chunk["rows"]
               if (int(row["prize"]) > 0 or int(row.get("bounty", 0)) > 0)
               and str(row["player_id"]) not in paid)


def retire_payout_timer(deps: Deps, tournament_id: str) -> None:
    """Once nothing is owed, the payout timer goes (otherwise it fires again and tries
    again): every final place's prize paid and, for a tournament cancelled before its start,
    every entry returned; cancelled after its start (R9.15), also every share of the split
    (its entries stay in: a share is paid per player still in, ``paid#``)."""
    tournaments = store(deps)

    def retire(new: TournamentRecord, now: int, plan: Plan) -> None:
        if refunds_entries(new):
            owed = new.entrants  # each refund takes one off
        else:
            results = [Result.from_dict(d)
                       for _, d in tournaments.items(tournament_id, "result#")]
            paid = paid_players(tournaments, tournament_id)
            owed = sum(1 for r in results if r.prize > 0 and r.player_id not in paid)
            if new.status is TournamentStatus.CANCELLED:
                owed += unpaid_shares(tournaments, tournament_id, paid)
        if owed or not any(t.kind is TimerKind.PAYOUT for t in new.timers):
            raise Unchanged
        new.timers = [t for t in new.timers if t.kind is not TimerKind.PAYOUT]

    with suppress(Busy):  # the timer fires again and retires itself then
        transact(deps, tournament_id, retire)


def arm_tournament(deps: Deps, record: TournamentRecord) -> None:
    """Start an execution for each of the tournament's timers not started yet (a few per
    tournament, minutes apart, on the long-wait machine); a duplicate or late one acts once
    (:func:`naiko_service.usecases.tournaments.tournament_timer`)."""
    armed = []
    for timer in record.timers:
        if timer.seat_index is None:  # not started yet
            deps.scheduler.schedule(TOURNAMENT_PREFIX + record.tournament_id, timer.token,
                                    timer.due_ms, timer.kind)
            timer = Timer(timer.token, timer.kind, timer.due_ms, 0)
        armed.append(timer)
    record.timers = armed
