""":mod:`naiko_service.usecases.deadlines` is what happens when one of a table's deadlines comes:
one handler per :class:`~naiko_service.records.TimerKind` (:data:`HANDLERS`), and
:func:`fire_due`, which fires every timer already due. Timer executions (the wake-up callback,
the sweep: :mod:`.timers`) and every table write (:func:`.transaction.mutate`, before it applies a
new request: a late Shield or a late action meets the deadline first, R6.5, R8.1) use it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from random import Random

from naiko import commands as cmd
from naiko.engine import legal_actions
from naiko.views import view_for

from ..notices import ReconnectGrace, TableClosed, TimeBankStarted, TimedOut
from ..ports import AccountMove
from ..records import TableRecord, Timer, TimerKind
from . import cancel, dealer, mtt, room, seats, time_banks
from .base import Deps, Outcome, engine_step
from .policies import policy_for

MAX_TIMERS_PER_WAKE = 16
"""Timers fired at most in one write (several can be due together: a decision and a sit-out
limit); the rest, if any, stay due and the re-armed wake-up fires them at once."""


def due(record: TableRecord, now: int) -> list[Timer]:
    """The table's timers (not the wake-up marker) whose deadline has come."""
    return [t for t in record.timers if t.kind is not TimerKind.WAKE and t.due_ms <= now]


def fire(deps: Deps, record: TableRecord, now: int, timer: Timer, outcome: Outcome) -> None:
    """Fire one pending *timer*, then drive the table as if it were its own write."""
    record.timers.remove(timer)
    outcome.add(HANDLERS[timer.kind](deps, record, now, timer))
    dealer.after_change(deps, record, now, outcome)


def fire_due(deps: Deps, record: TableRecord, now: int, outcome: Outcome,
             first: Timer | None = None, horizon: int | None = None) -> int:
    """Fire *first* (a pending timer named by an execution), then every timer due by
    *horizon* (default: *now*), earliest first; returns how many fired."""
    fired = 0
    timer = first
    for _ in range(MAX_TIMERS_PER_WAKE):
        if timer is None:
            ready = due(record, now if horizon is None else horizon)
            if not ready:
                break
            timer = min(ready, key=lambda t: (t.due_ms, t.token))
        fire(deps, record, now, timer, outcome)
        fired += 1
        timer = None
    return fired


# -- one handler per timer kind --------------------------------------------------------------

TimerHandler = Callable[[Deps, TableRecord, int, Timer], Outcome]


def on_decision(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """R8.1: the clock ran out: check when legal, otherwise fold. R8.7: first the player's time
    bank runs, if the table publishes one and something is left of it (``time_bank``: it is
    empty now). R8.2: a disconnected player then gets 20 more seconds, and is sat out when the
    hand ends if the clock decides."""
    state = record.state
    hand = state.hand
    actor = None if hand is None or hand.complete else hand.actor
    if actor is None or actor != timer.seat_index:
        return Outcome()
    seat = state.seats[actor]
    assert seat is not None
    player = seat.player_id
    if timer.kind is TimerKind.DECISION and not seat.is_bot:
        bank = time_banks.start(record, now, actor, player, dealer.turn_key(record))
        if bank is not None:  # R8.7: the bank starts by itself
            record.timers.append(bank)
            return Outcome([TimeBankStarted(seat_index=actor, bank_ms=bank.due_ms - now,
                                            until_ms=bank.due_ms)])
    if timer.kind is TimerKind.TIME_BANK:
        time_banks.emptied(record, player)
    clock_out = timer.kind in (TimerKind.DECISION, TimerKind.TIME_BANK)
    if clock_out and player not in record.disconnected \
            and not seat.is_bot and not _connected(deps, record, player):
        record.disconnected[player] = now  # its $disconnect never took effect (best effort)
    if clock_out and player in record.disconnected:
        until = now + record.settings.disconnect_grace_ms
        record.timers.append(Timer(f"grace:{dealer.turn_key(record)}", TimerKind.GRACE, until,
                                   actor))
        return Outcome([ReconnectGrace(seat_index=actor, until_ms=until)])
    prompt = legal_actions(state)
    assert prompt is not None
    command: cmd.Command = (cmd.Check(seat_index=actor) if "check" in prompt.actions
                            else cmd.Fold(seat_index=actor))
    outcome = engine_step(deps, record, command)
    outcome.events.insert(0, TimedOut(
        seat_index=actor, decision="check" if isinstance(command, cmd.Check) else "fold"))
    # R8.2 (a disconnected cash player sits out after the hand), R9.4 (a tournament player
    # sits out now, played at once)
    outcome.add(policy_for(record).on_timeout(deps, record, now, player))
    return outcome


def _connected(deps: Deps, record: TableRecord, player_id: str) -> bool:
    """Whether *player_id* has a live connection to the table: API Gateway calls
    ``$disconnect`` on a best-effort basis, so before the clock decides for a player who seems
    connected, the gateway is asked (once per expired clock, R8.2)."""
    connection_id = record.connections.get(player_id)
    return connection_id is not None and deps.gateway.alive(connection_id)


def on_window(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """R6.5: the Seal Shield window timed out: the Anchor applies."""
    window_id = timer.token.split(":", 1)[1]
    hand = record.state.hand
    if hand is None or hand.powers is None or not any(
            w.window_id == window_id for w in hand.powers.windows):
        return Outcome()
    return engine_step(deps, record, cmd.WindowTimeout(window_id=window_id))


def on_next_hand(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """The pause between hands is over: the dealer starts the hand when it can."""
    return Outcome()


def on_sit_out_limit(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """R7.9: sitting out 10 minutes removes the player, stack to the account."""
    player = timer.token.split(":")[1]
    since = record.sitting_out_since.get(player)
    if since is None or since + record.settings.sit_out_limit_ms > now:
        return Outcome()
    return seats.remove_player(deps, record, now, player, reason="sat_out_too_long")


def on_stalled(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """R8.6: the hand has not progressed for 5 minutes: it is cancelled."""
    if timer.token != dealer.stalled_token(record):
        return Outcome()
    return cancel.cancel_hand(deps, record, "stalled")


def on_idle_close(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """Nobody has sat at the table for 10 minutes: it closes, and stops counting against the
    player who opened it (the lobby limit of open tables per player)."""
    if record.closed or record.empty_since is None \
            or timer.token != f"idle_close:{record.empty_since}":
        return Outcome()
    record.closed = True
    outcome = Outcome([TableClosed(reason="idle")])
    if record.opened_by is not None:
        outcome.moves.append(AccountMove(record.opened_by, 0, record.table_id,
                                         open_tables=-1))
    return outcome


def on_offer(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """R7.10: a held seat not taken in 30 s: the next in line is offered it."""
    return room.on_offer_expired(record, timer)


def on_wake_marker(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """Never due as a table timer (:func:`due` skips markers; ``level`` and ``payout`` are the
    tournament's, :mod:`.tournaments`); here so the table is complete."""
    return Outcome()


def on_bot_timer(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """Let the bot at ``timer.seat_index`` decide from its own view only (R8.4): its action or
    power on its turn (``bot``), or its answer to a Shield window (``bot_respond``)."""
    seat_index = timer.seat_index
    if seat_index is None:
        return Outcome()
    # The bots' styles (and their ranges, the evaluator) load at the first bot's turn: a
    # container that serves no bot never imports them (docs/deploy.md, "7. Cold start").
    from naiko import bot_styles as strategy

    view = view_for(record.state, seat_index)
    # The seat's style is drawn from a source seeded by the table: the same for the table's life.
    profile = strategy.profile_for_seat(record.settings, seat_index, Random(record.table_id))
    choose = strategy.respond if timer.kind is TimerKind.BOT_RESPOND else strategy.decide
    command = choose(view, profile, deps.rng)
    if command is None:
        return Outcome()
    if isinstance(command, cmd.UsePower):
        command = replace(command, at_ms=now)
    return engine_step(deps, record, command)


HANDLERS: dict[TimerKind, TimerHandler] = {
    TimerKind.DECISION: on_decision,
    TimerKind.GRACE: on_decision,
    TimerKind.TIME_BANK: on_decision,
    TimerKind.WINDOW: on_window,
    TimerKind.NEXT_HAND: on_next_hand,
    TimerKind.SIT_OUT_LIMIT: on_sit_out_limit,
    TimerKind.BOT: on_bot_timer,
    TimerKind.BOT_RESPOND: on_bot_timer,
    TimerKind.STALLED: on_stalled,
    TimerKind.IDLE_CLOSE: on_idle_close,
    TimerKind.OFFER: on_offer,
    TimerKind.WAKE: on_wake_marker,
    TimerKind.HOLD: mtt.on_hold,
    TimerKind.LEVEL: on_wake_marker,
    TimerKind.PAYOUT: on_wake_marker,
    TimerKind.START: on_wake_marker,
    TimerKind.LATE_CLOSE: on_wake_marker,
}
"""The token -> handler table: what each kind of timer does when it fires."""
