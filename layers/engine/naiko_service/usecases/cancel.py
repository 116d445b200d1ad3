""":mod:`naiko_service.usecases.cancel` cancels a hand that a server fault stopped (R8.6): the
table returns to exactly its state before the hand (the engine's
:class:`~naiko.commands.CancelHand`), players who left during the hand get their chips back on
their account, and everyone is told why.

A hand is cancelled when applying a command fails unexpectedly (not a rule rejection: see
:func:`.transaction.mutate`), when the stored state cannot be read (the store then hands over the
:class:`~naiko_service.records.Fallback` written with the hand's last write), and when it has not
progressed for 5 minutes (a ``stalled`` timer, :data:`.dealer.STALLED_MS`, which the
sweep also finds)."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.events import HandCancelled

from ..ports import AccountMove, LedgerReason
from ..records import Fallback, TableRecord, Timer, TimerKind
from . import dealer
from .base import Deps, Outcome, engine_step


def cancel_hand(deps: Deps, record: TableRecord, reason: str) -> Outcome:
    """Cancel the hand in progress on *record* (this attempt's copy). Chips owed to players
    who left the table during the hand go back to their accounts in the same write."""
    outcome = engine_step(deps, record, cmd.CancelHand(reason=reason))
    for event in outcome.events:
        if isinstance(event, HandCancelled):
            outcome.moves += [AccountMove(player, -amount, record.table_id,
                                          LedgerReason.REFUND)
                              for player, amount in event.absent.items()]
    deps.count("HandsCancelled", 1)
    return outcome


def fallback_for(deps: Deps, record: TableRecord, now: int) -> Fallback | None:
    """While a hand is in progress: the table as it would be with the hand cancelled because
    its state could not be read, to be sealed on its own next to the state. Its state keeps no
    hand at all (whatever made the hand unreadable cannot be in it); the pause before the next
    hand is armed."""
    hand = record.state.hand
    if hand is None or hand.complete:
        return None
    projection = record.copy()
    projection.fallback = None
    projection.histories = []
    outcome = engine_step(deps, projection, cmd.CancelHand(reason="state_unreadable"))
    event = next(e for e in outcome.events if isinstance(e, HandCancelled))
    projection.state.hand = None
    projection.hands_closed = hand.number
    projection.timers = [t for t in projection.timers if t.kind is TimerKind.WAKE]
    projection.timers.append(Timer(f"next_hand:{hand.number}", TimerKind.NEXT_HAND,
                                   now + projection.settings.pause_ms))
    dealer.sync_timers(deps, projection, now)
    return Fallback(projection, event.to_dict(), tuple(sorted(event.absent.items())),
                    dealt=tuple(i for i, dealt in enumerate(hand.dealt) if dealt),
                    started_ms=now if record.hand_started_ms is None else record.hand_started_ms)
