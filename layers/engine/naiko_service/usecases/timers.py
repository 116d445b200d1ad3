""":mod:`naiko_service.usecases.timers` is what happens when a table's time comes: the timer
callback of the Step Functions wake-up, the sweep that recovers lost wake-ups, and one handler
per :class:`~naiko_service.records.TimerKind` (:data:`HANDLERS`).

A timer acts only while its token is still on the table; anything else (the turn moved on, a
superseded wake-up, an execution delivered twice) is a no-op that writes nothing, so a timer
never needs cancelling. See ``docs/timers.md``."""

from __future__ import annotations

from collections.abc import Callable

from naiko import commands as cmd
from naiko.engine import legal_actions

from ..notices import ReconnectGrace, TimedOut
from ..ports import TableNotFound
from ..records import TableRecord, Timer, TimerKind
from . import bots, dealer, path, seats
from .base import Deps, NoOp, Outcome, engine_step

SWEEP_LIMIT = 1_000
"""Due ``(table, token)`` pairs one sweep run takes (a table has its timers and its wake-up
marker): hundreds of tables per minute, well inside the sweep function's 60 s."""

MAX_TIMERS_PER_WAKE = 16
"""Timers one wake-up fires at most (several can be due together: a decision and a sit-out
limit); the rest, if any, stay due and the re-armed wake-up fires them at once."""


def timer_fired(deps: Deps, table_id: str, token: str) -> bool:
    """A timer execution carrying *token* fired. Returns whether a timer acted.

    It acts if *token* is still pending on the table (that timer fires), or if it names the
    table's armed wake-up and its time has come (every timer already due fires: the deadline
    may have moved since it was armed). Either way the table then re-arms one wake-up for its
    earliest remaining deadline (:func:`~naiko_service.usecases.path.arm`)."""
    return _wake(deps, table_id, token) > 0


def sweep(deps: Deps) -> int:
    """Every minute: wake every table whose earliest deadline (armed wake-up included) passed,
    found on the ``due-index`` (a query, never a scan). This recovers lost timer executions: a
    table is never stuck more than about a minute. Returns the number of timers that acted."""
    fired = 0
    woken: set[str] = set()
    for table_id, _token in deps.tables.due_tables(deps.clock.now_ms(), limit=SWEEP_LIMIT):
        if table_id not in woken:
            woken.add(table_id)
            fired += _wake(deps, table_id, None)
    return fired


def due(record: TableRecord, now: int) -> list[Timer]:
    """The table's timers (not the wake-up marker) whose deadline has come."""
    return [t for t in record.timers if t.kind is not TimerKind.WAKE and t.due_ms <= now]


def _wake(deps: Deps, table_id: str, token: str | None) -> int:
    """Fire what is due on the table for the execution that carried *token* (``None``: the
    sweep, which also takes over an overdue wake-up); returns how many timers acted."""
    fired = 0

    def change(record: TableRecord, now: int) -> Outcome:
        nonlocal fired
        fired = 0
        wake = next((t for t in record.timers if t.kind is TimerKind.WAKE), None)
        pending = None if token is None else next(
            (t for t in record.timers if t.kind is not TimerKind.WAKE and t.token == token),
            None)
        if token is None:  # the sweep takes over an overdue wake-up (lost, or late)
            ours = wake is not None and wake.due_ms <= now
        else:  # the armed execution fired: its time came, or its timer is still pending
            ours = (wake is not None and wake.token == path.WAKE_PREFIX + token
                    and (wake.due_ms <= now or pending is not None))
        if pending is None and not ours and (token is not None or not due(record, now)):
            raise NoOp()  # stale, duplicated, or not yet time
        if ours and wake is not None:
            record.timers.remove(wake)  # consumed: the write re-arms (path.arm)
        outcome = Outcome()
        timer = pending
        for _ in range(MAX_TIMERS_PER_WAKE):
            if timer is None:
                ready = due(record, now)
                if not ready:
                    break
                timer = min(ready, key=lambda t: (t.due_ms, t.token))
            record.timers.remove(timer)
            outcome.add(HANDLERS[timer.kind](deps, record, now, timer))
            fired += 1
            dealer.after_change(deps, record, now, outcome)  # as if each were its own write
            timer = None
        return outcome

    try:
        path.mutate(deps, table_id, change)
    except (NoOp, TableNotFound):
        return 0
    return fired


# -- one handler per timer kind --------------------------------------------------------------

TimerHandler = Callable[[Deps, TableRecord, int, Timer], Outcome]


def on_decision(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """R8.1: the clock ran out: check when legal, otherwise fold. R8.2: a disconnected player
    first gets 20 more seconds, and is sat out when the hand ends if the clock decides."""
    state = record.state
    hand = state.hand
    actor = None if hand is None or hand.complete else hand.actor
    if actor is None or actor != timer.seat_index:
        return Outcome()
    seat = state.seats[actor]
    assert seat is not None
    player = seat.player_id
    if timer.kind is TimerKind.DECISION and player in record.disconnected:
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
    if player in record.disconnected and player not in record.sit_out_after_hand:
        record.sit_out_after_hand.append(player)  # R8.2
    return outcome


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


def on_wake_marker(deps: Deps, record: TableRecord, now: int, timer: Timer) -> Outcome:
    """Never due as a timer (:func:`due` skips markers); here so the table is complete."""
    return Outcome()


HANDLERS: dict[TimerKind, TimerHandler] = {
    TimerKind.DECISION: on_decision,
    TimerKind.GRACE: on_decision,
    TimerKind.WINDOW: on_window,
    TimerKind.NEXT_HAND: on_next_hand,
    TimerKind.SIT_OUT_LIMIT: on_sit_out_limit,
    TimerKind.BOT: bots.on_bot_timer,
    TimerKind.BOT_RESPOND: bots.on_bot_timer,
    TimerKind.WAKE: on_wake_marker,
}
"""The token -> handler table: what each kind of timer does when it fires."""
