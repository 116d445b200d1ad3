""":mod:`naiko_service.usecases.dealer` drives a table after any change, as a dealer would:
folds players who are leaving when their turn comes, runs the end-of-hand chores, deals the
next hand when the table may start one, and keeps exactly the timers the new state needs.

:func:`after_change` runs inside every table write
(:func:`naiko_service.usecases.transaction.mutate`), after the use case's own change and before
the conditional write. What differs between table types, it asks the table's policy
(:mod:`.policies`)."""

from __future__ import annotations

from naiko import commands as cmd
from naiko.cards import shuffled_deck
from naiko.commitment import SEED_SIZE
from naiko.powers import draw_carousel

from .. import hand_records
from ..records import DEALT_IN_TIMERS, TableRecord, Timer, TimerKind
from . import pre_actions, room, seats, time_banks
from .base import Deps, Outcome, engine_step
from .policies import policy_for

IDLE_CLOSE_MS = 10 * 60_000
"""A table nobody sits at for this long closes (and stops counting against its opener)."""

STALLED_MS = 5 * 60_000
"""R8.6: a hand that has not progressed for 5 minutes is cancelled."""


def after_change(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
    """Drive the table after any change: end-of-hand chores, start the next hand, and keep
    exactly the timers the new state needs. What differs between table types is the table's
    policy's (:func:`.policies.policy_for`)."""
    policy = policy_for(record)
    # Players leaving fold as soon as they are to act; the policy may play a turn at once
    # (absent tournament players are checked or folded, R9.4).
    while True:
        hand = record.state.hand
        if hand is None or hand.complete or hand.actor is None:
            break
        seat = record.state.seats[hand.actor]
        if seat is not None and seat.player_id in seats.leaving(record):
            outcome.add(engine_step(deps, record, cmd.Fold(seat_index=hand.actor)))
            continue
        queued = pre_actions.at_turn(record, outcome)  # R8.8: a pre-action acts at once
        if queued is not None:
            outcome.add(engine_step(deps, record, queued))
            continue
        absent = policy.absent_turn(record)
        if absent is None:
            break
        outcome.add(engine_step(deps, record, absent))
    pre_actions.clear_stale(record, outcome)  # R8.8: a bet made them stale: told
    hand = record.state.hand
    if hand is not None and hand.complete and hand.number > record.hands_closed:
        record.hands_closed = hand.number
        # R10.1: the hand's record, as the hand ended (before anyone stands up), written with
        # this write; hands_closed makes it once per hand.
        record.histories.append(hand_records.from_table(record, now))
        close_hand(deps, record, now, outcome)
        if not record.closed and not policy.held(record):
            record.timers.append(Timer(f"next_hand:{hand.number}", TimerKind.NEXT_HAND,
                                       now + record.settings.pause_ms))
    if not record.state.hand_in_progress and may_start(deps, record, now, outcome):
        start_hand(deps, record, outcome, now)
    room.offer_seats(deps, record, now, outcome)  # R7.10: a freed seat goes to the first in line
    seated = any(seat is not None for seat in record.state.seats)
    if seated:
        record.empty_since = None
    elif record.empty_since is None:
        record.empty_since = now
    sync_timers(deps, record, now)


def may_start(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> bool:
    """Whether the table may deal now: neither closed nor paused, the pause after the last
    hand is over, and its policy says so (R7.7, R9.4; a scheduled tournament's table first
    does what the tables do together, R9.7)."""
    if record.closed or record.room.paused:
        return False
    if any(t.kind is TimerKind.NEXT_HAND and t.due_ms > now for t in record.timers):
        return False
    return policy_for(record).may_deal(deps, record, now, outcome)


def start_hand(deps: Deps, record: TableRecord, outcome: Outcome, now: int) -> None:
    """Deal: a shuffled deck, the first button at random (R2.6), a Carousel in Naiko mode.
    Before it, the table's policy has its say (a host's changes, R7.12; a tournament table's
    level in effect now, R9.3; the seats that wait, R9.7)."""
    policy = policy_for(record)
    wait = policy.before_deal(deps, record, now, outcome)
    state = record.state
    rng = deps.rng
    button = None
    if state.last_big_blind_seat is None:
        button = policy.draw_button(deps, record)
    carousel = draw_carousel(rng) if state.config.rules.powers else ()
    record.timers = [t for t in record.timers if t.kind is not TimerKind.NEXT_HAND]
    record.hand_started_ms = now
    record.room.stopped = False
    outcome.add(engine_step(deps, record, cmd.StartHand(
        deck=tuple(shuffled_deck(rng)), button=button, carousel=carousel, wait=wait,
        deck_seed=deps.secret_bytes(SEED_SIZE).hex())))  # R10.2: the secret of its salts
    time_banks.top_up(record)  # R8.7: every N hands or levels


def close_hand(deps: Deps, record: TableRecord, now: int, outcome: Outcome) -> None:
    """End-of-hand chores: sit out players the clock decided for while disconnected (R8.2),
    let leaving players go with their stacks; then the table's policy
    (:meth:`~.policies.TablePolicy.after_hand`: busted players R7.9, a host's close R7.12, a
    tournament's places R9.5 and what its tables do together R9.7)."""
    state = record.state
    leaving = seats.leaving(record)
    for player in list(record.sit_out_after_hand):
        if player.startswith("leave:") or player in leaving:
            continue
        seat_index = record.seat_of(player)
        if seat_index is not None:
            seat = state.seats[seat_index]
            if seat is not None and not seat.sitting_out:
                outcome.add(seats.sit_out(deps, record, now, player))
        record.sit_out_after_hand.remove(player)
    for player in leaving:
        outcome.add(seats.remove_player(deps, record, now, player, reason="left"))
    record.sit_out_after_hand = [x for x in record.sit_out_after_hand
                                 if not x.startswith("leave:")]
    policy_for(record).after_hand(deps, record, now, outcome)


def turn_key(record: TableRecord) -> str:
    """Names the current decision: hand number and how many betting actions came before."""
    hand = record.state.hand
    assert hand is not None
    return f"{hand.number}.{hand.betting_actions}"


def sync_timers(deps: Deps, record: TableRecord, now: int) -> None:
    """Keep exactly the timers the state needs (a kept timer keeps its deadline): the pause
    before the next hand, then the turn's clock, the Shield windows, the empty table's and the
    stalled hand's, the table type's own (:meth:`~.policies.TablePolicy.timers`), the BOTs'
    and the sitting-out limits; the wake-up marker stays (:mod:`.arming`)."""
    wanted: list[Timer] = [t for t in record.timers if t.kind is TimerKind.NEXT_HAND]
    wanted += turn_timers(record, now)
    wanted += window_timers(record)
    wanted += idle_timers(record, now)
    wanted += policy_for(record).timers(record, now)  # R7.10 offers, a tournament's hold
    wanted += bot_timers(deps, record, now)
    wanted += sit_out_timers(record)
    time_banks.settle(record, now, wanted)  # R8.7: a turn that ended charges its bank
    record.timers = wanted + [t for t in record.timers if t.kind is TimerKind.WAKE]


def _kept(record: TableRecord, timer: Timer) -> Timer:
    """*timer*, or the table's pending timer of the same token (it keeps its deadline)."""
    return next((t for t in record.timers if t.token == timer.token), timer)


def turn_timers(record: TableRecord, now: int) -> list[Timer]:
    """R8.1: the decision clock of the seat to act (or its R8.2 grace, already running)."""
    hand = record.state.hand
    if hand is None or hand.complete or hand.actor is None:
        return []
    key = turn_key(record)
    kept = [t for t in record.timers if t.kind in DEALT_IN_TIMERS
            and t.token.split(":", 1)[1] == key]
    return kept or [Timer(f"decision:{key}", TimerKind.DECISION,
                          now + record.settings.decision_ms, hand.actor)]


def window_timers(record: TableRecord) -> list[Timer]:
    """R6.5: one timer per open Seal Shield window."""
    hand = record.state.hand
    if hand is None or hand.powers is None or hand.complete:
        return []
    return [_kept(record, Timer(f"window:{w.window_id}", TimerKind.WINDOW, w.deadline_ms))
            for w in hand.powers.windows]


def idle_timers(record: TableRecord, now: int) -> list[Timer]:
    """An empty table's ``idle_close``; a hand's ``stalled`` (R8.6)."""
    timers = []
    if record.empty_since is not None and not record.closed:
        timers.append(Timer(f"idle_close:{record.empty_since}", TimerKind.IDLE_CLOSE,
                            record.empty_since + IDLE_CLOSE_MS))
    stalled = stalled_token(record)
    if stalled is not None:  # R8.6
        timers.append(_kept(record, Timer(stalled, TimerKind.STALLED, now + STALLED_MS)))
    return timers


def sit_out_timers(record: TableRecord) -> list[Timer]:
    """R7.9: sitting out 10 minutes removes the player."""
    return [Timer(f"sit_out_limit:{player}:{since}", TimerKind.SIT_OUT_LIMIT,
                  since + record.settings.sit_out_limit_ms)
            for player, since in record.sitting_out_since.items()]


def stalled_token(record: TableRecord) -> str | None:
    """The token of the hand's ``stalled`` timer: it changes whenever the hand progresses
    (its record grows), so only a hand that stood still for :data:`STALLED_MS` meets it."""
    hand = record.state.hand
    if hand is None or hand.complete:
        return None
    return f"stalled:{hand.number}.{len(hand.log)}"


def bot_timers(deps: Deps, record: TableRecord, now: int) -> list[Timer]:
    """R8.4: a BOT seat acts through the timer mechanism, after a short think delay: one
    ``bot`` timer per decision (the token changes with every recorded step, so a bot that
    used a power gets a new timer for its action) and one ``bot_respond`` timer per Shield
    window aimed at a bot."""
    hand = record.state.hand
    if hand is None or hand.complete:
        return []
    timers = []
    if hand.actor is not None:
        seat = record.state.seats[hand.actor]
        if seat is not None and seat.is_bot:
            token = f"bot:{hand.number}.{len(hand.log)}"
            timers.append(next((t for t in record.timers if t.token == token),
                               Timer(token, TimerKind.BOT, now + deps.think_ms(),
                                     hand.actor)))
    for window in hand.powers.windows if hand.powers is not None else []:
        seat = record.state.seats[window.target]
        if seat is not None and seat.is_bot:
            token = f"bot_respond:{window.window_id}"
            timers.append(next((t for t in record.timers if t.token == token),
                               Timer(token, TimerKind.BOT_RESPOND, now + deps.think_ms(),
                                     window.target)))
    return timers
