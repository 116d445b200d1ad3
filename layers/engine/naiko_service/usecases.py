""":mod:`naiko_service.usecases` is the table service: every route and timer, written once
against the ports.

Each table change follows one shape (:meth:`TableService._mutate`): load the item, apply the
engine, write it back only if its version is still the one read (on a conflict: reload and
re-apply while the command is still legal, a bounded number of times), and after the commit push
each connection its own view. Chips move between accounts and tables only inside that same
conditional write (a transaction), so none is ever created or lost.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from naiko import commands as cmd
from naiko.cards import shuffled_deck
from naiko.engine import apply_in_place, legal_actions
from naiko.errors import EngineError
from naiko.events import Event
from naiko.powers import draw_carousel
from naiko.state import TableConfig, TableState, Variant
from naiko.views import events_for, view_for

from . import protocol as p
from .ports import (
    AccountMove,
    Accounts,
    Clock,
    ConcurrentUpdate,
    ConnectionGone,
    Connections,
    Gateway,
    InsufficientFunds,
    Random,
    Scheduler,
    TableNotFound,
    TableStore,
)
from .records import TableRecord, TableSettings, Timer

MAX_ATTEMPTS = 4
"""Conditional-write attempts before a request is answered ``busy``."""

REBUY_PROTECTION_MS = 30 * 60_000
"""R7.7: leaving with 100 big blinds or more and returning within 30 minutes."""

WAKE = "wake"
"""Kind of the marker kept in ``record.timers`` for the table's armed wake-up: the one timer
execution the table relies on (see :meth:`TableService._arm` and ``docs/timers.md``). Its token
is :data:`WAKE_PREFIX` + the token the execution carries; its ``due_ms`` is when it fires."""

WAKE_PREFIX = "wake:"

WAKE_LATE_MS = 10_000
"""An armed wake-up this far past its time is presumed lost (a table write re-arms, and the
sweep, which sees the marker's deadline on ``due-index``, takes over); until then it may still
be on its way (a Lambda retry), and arming another would only add a no-op."""

SWEEP_LIMIT = 1_000
"""Due ``(table, token)`` pairs one sweep run takes (a table has its timers and its wake-up
marker): hundreds of tables per minute, well inside the sweep function's 60 s."""

MAX_TIMERS_PER_WAKE = 16
"""Timers one wake-up fires at most (several can be due together: a decision and a sit-out
limit); the rest, if any, stay due and the re-armed wake-up fires them at once."""


class ServiceError(Exception):
    """A request the service refuses; ``code`` is stable, nothing was changed."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Outcome:
    """What a change to a table produced: engine events and account moves."""

    events: list[Event] = field(default_factory=list)
    moves: list[AccountMove] = field(default_factory=list)


@dataclass
class Deps:
    """The ports the service works against (wired in :mod:`naiko_service.bootstrap`)."""

    tables: TableStore
    accounts: Accounts
    connections: Connections
    gateway: Gateway
    scheduler: Scheduler
    clock: Clock
    rng: Random = field(default_factory=secrets.SystemRandom)
    count: Callable[[str, int], None] = lambda name, value: None
    """Metrics hook: ``count("ActionsApplied", 1)``."""
    default_decision_ms: int = 20_000
    """The decision clock when ``create_table`` does not choose one (R8.1)."""
    default_pause_ms: int = 3_000
    """The pause between hands of new tables."""
    bot_think_ms: int = 800
    """How long a BOT seat "thinks" before acting (R8.4)."""


Change = Callable[[TableRecord, int], Outcome]


class TableService:
    """The use cases. One instance per Lambda container (or per local server)."""

    def __init__(self, deps: Deps):
        self.deps = deps

    # -- connections -------------------------------------------------------------------------

    def connect(self, connection_id: str, player_id: str) -> None:
        """``$connect``: bind the verified player to the connection."""
        self.deps.connections.bind(connection_id, player_id, self.deps.clock.now_ms())

    def disconnect(self, connection_id: str) -> None:
        """``$disconnect``: the player is marked disconnected at the tables it watched; the seat
        is kept and the clock is not reset (R8.2, R8.3)."""
        player_id = self.deps.connections.player_of(connection_id)
        if player_id is not None:
            for table_id in self.deps.connections.tables_of(connection_id):
                self._internal(table_id, lambda r, now: self._drop_connection(
                    r, now, player_id, connection_id))
        self.deps.connections.unbind(connection_id)

    # -- requests ----------------------------------------------------------------------------

    def handle(self, connection_id: str, player_id: str, request: Any) -> None:
        """Apply one validated request from *player_id* and answer on *connection_id*."""
        try:
            self._dispatch(connection_id, player_id, request)
        except (ServiceError, EngineError) as error:
            self.deps.count("Errors", 1)
            self._send(connection_id, p.error_message(error.code, _message(error),
                                                      request.request_id))
        except TableNotFound:
            self.deps.count("Errors", 1)
            self._send(connection_id, p.error_message(
                "unknown_table", "no table has that id", request.request_id))

    def _dispatch(self, connection_id: str, player_id: str, request: Any) -> None:
        if isinstance(request, p.CreateTable):
            self._create_table(connection_id, player_id, request)
            return
        if isinstance(request, p.ListTables):
            tables = [s.to_dict() for s in self.deps.tables.list_open()]
            self._send(connection_id, {"type": "tables", "request_id": request.request_id,
                                       "tables": tables})
            return
        if isinstance(request, p.Snapshot):
            self._snapshot(connection_id, player_id, request)
            return
        change = self._change_for(connection_id, player_id, request)
        self._mutate(request.table_id, change, request_id=request.request_id,
                     reply_to=connection_id, requester=player_id)

    def _change_for(self, connection_id: str, player_id: str, request: Any) -> Change:
        if isinstance(request, p.JoinTable):
            return lambda r, now: self._join(r, now, connection_id, player_id, request)
        if isinstance(request, p.LeaveTable):
            return lambda r, now: self._leave(r, now, player_id)
        if isinstance(request, p.SitOut):
            return lambda r, now: self._engine(r, cmd.SitOut(seat_index=_seat(r, player_id)),
                                               sit_out=(player_id, now))
        if isinstance(request, p.SitIn):
            return lambda r, now: self._sit_in(r, player_id)
        if isinstance(request, p.AddChips):
            return lambda r, now: self._add_chips(r, player_id, request.amount)
        if isinstance(request, p.Act):
            return lambda r, now: self._engine(r, _betting_command(_seat(r, player_id), request))
        if isinstance(request, p.UsePower):
            return lambda r, now: self._engine(r, cmd.UsePower(
                seat_index=_seat(r, player_id), power=request.power,
                target_seat=request.target_seat, card_index=request.card_index, at_ms=now))
        if isinstance(request, p.Shield):
            return lambda r, now: self._engine(r, cmd.UsePower(
                seat_index=_seat(r, player_id), power="seal_shield", at_ms=now))
        if isinstance(request, p.PassWindow):
            return lambda r, now: self._engine(r, cmd.PassWindow(seat_index=_seat(r, player_id)))
        raise ServiceError("unknown_action", f"no use case for {type(request).__name__}")

    def add_bot(self, table_id: str, bot_id: str, buy_in: int) -> None:
        """Seat a BOT (R8.4) with chips from its own account, like any buy-in (ops and local
        mode: bots fill seats of tables created with ``bots: true``)."""
        def change(record: TableRecord, now: int) -> Outcome:
            if not record.settings.bots:
                raise ServiceError("bots_off", "this table was created without bots")
            if record.seat_of(bot_id) is not None:
                raise _NoOp()
            seat_index = next((i for i, s in enumerate(record.state.seats) if s is None), None)
            if seat_index is None:
                raise ServiceError("table_full", "every seat is taken")
            outcome = self._engine(record, cmd.SitDown(seat_index=seat_index, player_id=bot_id,
                                                       stack=buy_in, is_bot=True))
            outcome.moves.append(AccountMove(bot_id, buy_in, table_id))
            return outcome

        try:
            self._mutate(table_id, change)
        except _NoOp:
            pass

    # -- timers ------------------------------------------------------------------------------

    def timer_fired(self, table_id: str, token: str) -> bool:
        """A timer execution carrying *token* fired. Returns whether a timer acted.

        It acts if *token* is still pending on the table (that timer fires), or if it names the
        table's armed wake-up and its time has come (every timer already due fires: the
        deadline may have moved since it was armed). Either way the table then re-arms one
        wake-up for its earliest remaining deadline (:meth:`_arm`). Anything else is stale or a
        duplicate (the turn moved on, a superseded wake-up, an execution delivered twice): a
        no-op that writes nothing."""
        return self._wake(table_id, token) > 0

    def sweep(self) -> int:
        """Every minute: wake every table whose earliest deadline (armed wake-up included)
        passed, found on the ``due-index`` (a query, never a scan). This recovers lost timer
        executions: a table is never stuck more than about a minute. Returns the number of
        timers that acted."""
        fired = 0
        woken: set[str] = set()
        for table_id, _token in self.deps.tables.due_tables(self.deps.clock.now_ms(),
                                                            limit=SWEEP_LIMIT):
            if table_id not in woken:
                woken.add(table_id)
                fired += self._wake(table_id, None)
        return fired

    def _wake(self, table_id: str, token: str | None) -> int:
        """Fire what is due on the table for the execution that carried *token* (``None``: the
        sweep, which also takes over an overdue wake-up); returns how many timers acted."""
        fired = 0

        def change(record: TableRecord, now: int) -> Outcome:
            nonlocal fired
            fired = 0
            wake = next((t for t in record.timers if t.kind == WAKE), None)
            pending = None if token is None else next(
                (t for t in record.timers if t.kind != WAKE and t.token == token), None)
            if token is None:  # the sweep takes over an overdue wake-up (lost, or late)
                ours = wake is not None and wake.due_ms <= now
            else:  # the armed execution fired: its time came, or its timer is still pending
                ours = (wake is not None and wake.token == WAKE_PREFIX + token
                        and (wake.due_ms <= now or pending is not None))
            if pending is None and not ours and (token is not None or not _due(record, now)):
                raise _NoOp()  # stale, duplicated, or not yet time
            if ours and wake is not None:
                record.timers.remove(wake)  # consumed: _mutate re-arms (see _arm)
            outcome = Outcome()
            timer = pending
            for _ in range(MAX_TIMERS_PER_WAKE):
                if timer is None:
                    due = _due(record, now)
                    if not due:
                        break
                    timer = min(due, key=lambda t: (t.due_ms, t.token))
                record.timers.remove(timer)
                step = self._fire(record, now, timer)
                outcome.events.extend(step.events)
                outcome.moves.extend(step.moves)
                fired += 1
                self._after_change(record, now, outcome)  # as if each timer were its own write
                timer = None
            return outcome

        try:
            self._mutate(table_id, change)
        except (_NoOp, TableNotFound):
            return 0
        return fired

    def _fire(self, record: TableRecord, now: int, timer: Timer) -> Outcome:
        state = record.state
        hand = state.hand
        if timer.kind in ("bot", "bot_respond"):
            return self._bot_move(record, now, timer)
        if timer.kind in ("decision", "grace"):
            actor = None if hand is None or hand.complete else hand.actor
            if actor is None or actor != timer.seat_index:
                return Outcome()
            seat = state.seats[actor]
            assert seat is not None
            player = seat.player_id
            if timer.kind == "decision" and player in record.disconnected:
                # R8.2: the normal clock ran out while disconnected: 20 more seconds.
                until = now + record.settings.disconnect_grace_ms
                record.timers.append(Timer(f"grace:{_turn_key(record)}", "grace", until, actor))
                return Outcome([Event("reconnect_grace", {"seat_index": actor,
                                                          "until_ms": until})])
            prompt = legal_actions(state)
            assert prompt is not None
            # R8.1: on expiry check when legal, otherwise fold.
            command: cmd.Command = (cmd.Check(seat_index=actor) if "check" in prompt.actions
                                    else cmd.Fold(seat_index=actor))
            outcome = self._engine(record, command)
            outcome.events.insert(0, Event("timed_out", {
                "seat_index": prompt.seat_index,
                "decision": "check" if isinstance(command, cmd.Check) else "fold"}))
            if player in record.disconnected and player not in record.sit_out_after_hand:
                record.sit_out_after_hand.append(player)  # R8.2
            return outcome
        if timer.kind == "window":
            window_id = timer.token.split(":", 1)[1]
            if hand is None or hand.powers is None or not any(
                    w.window_id == window_id for w in hand.powers.windows):
                return Outcome()
            return self._engine(record, cmd.WindowTimeout(window_id=window_id))
        if timer.kind == "next_hand":
            return Outcome()  # _after_change starts the hand when it can
        if timer.kind == "sit_out_limit":
            player = timer.token.split(":")[1]
            since = record.sitting_out_since.get(player)
            if since is None or since + record.settings.sit_out_limit_ms > now:
                return Outcome()
            return self._remove_player(record, now, player, reason="sat_out_too_long")
        return Outcome()

    # -- the one way a table changes ---------------------------------------------------------

    def _mutate(self, table_id: str, change: Change, *, request_id: str | None = None,
                reply_to: str | None = None, requester: str = "") -> TableRecord | None:
        # Request ids are the client's: remember them per player, so two players who happen
        # to pick the same id never shadow each other.
        key = None if request_id is None else f"{requester}/{request_id}"
        for attempt in range(MAX_ATTEMPTS):
            record = self.deps.tables.load(table_id)
            if key is not None and key in record.recent_requests:
                if reply_to is not None:
                    self._send(reply_to, {"type": "ack", "request_id": request_id,
                                          "table_id": table_id,
                                          "version": record.recent_requests[key],
                                          "replayed": True})
                return record
            now = self.deps.clock.now_ms()
            new = record.copy()
            new.version = record.version + 1
            outcome = change(new, now)  # may raise: nothing is written
            self._after_change(new, now, outcome)
            if key is not None:
                new.remember_request(key, new.version)
            # Armed before the write: if the write loses, the wake-up fires as a no-op; if the
            # process dies after the write, the wake-up exists (and the sweep backs it up).
            self._arm(table_id, new, now)
            try:
                self.deps.tables.save(new, record.version, tuple(outcome.moves))
            except ConcurrentUpdate:
                self.deps.count("Conflicts", 1)
                continue
            except InsufficientFunds as exc:
                raise ServiceError("insufficient_funds",
                                   "your account cannot cover that buy-in") from exc
            if attempt:
                self.deps.count("Retries", attempt)
            self.deps.count("TableWrites", 1)
            if reply_to is not None and request_id is not None:
                self._send(reply_to, {"type": "ack", "request_id": request_id,
                                      "table_id": table_id, "version": new.version,
                                      "replayed": False})
            self._fan_out(new, outcome.events)
            return new
        raise ServiceError("busy", "the table is busy; please retry")

    def _internal(self, table_id: str, change: Change) -> None:
        try:
            self._mutate(table_id, change)
        except (TableNotFound, _NoOp):
            pass

    def _after_change(self, record: TableRecord, now: int, outcome: Outcome) -> None:
        """Drive the table after any change: end-of-hand chores, start the next hand, and keep
        exactly the timers the new state needs."""
        # Players leaving: fold them as soon as they are to act.
        while True:
            hand = record.state.hand
            if hand is None or hand.complete or hand.actor is None:
                break
            seat = record.state.seats[hand.actor]
            if seat is None or seat.player_id not in _leaving(record):
                break
            outcome.events.extend(self._engine(record, cmd.Fold(seat_index=hand.actor)).events)
        hand = record.state.hand
        if hand is not None and hand.complete and hand.number > record.hands_closed:
            record.hands_closed = hand.number
            self._close_hand(record, now, outcome)
            record.timers.append(Timer(f"next_hand:{hand.number}", "next_hand",
                                       now + record.settings.pause_ms))
        if not record.state.hand_in_progress and self._may_start(record, now):
            self._start_hand(record, now, outcome)
        self._sync_timers(record, now)

    def _may_start(self, record: TableRecord, now: int) -> bool:
        state = record.state
        pause = [t for t in record.timers if t.kind == "next_hand"]
        if any(t.due_ms > now for t in pause):
            return False
        active = [s for s in state.seats if s and not s.sitting_out and s.stack > 0]
        # R7.7: a new table needs 3 players (2 at a heads-up table); a hand continues with 2.
        needed = 2 if state.hand_count else min(3, state.config.seat_count)
        return len(active) >= needed

    def _start_hand(self, record: TableRecord, now: int, outcome: Outcome) -> None:
        state = record.state
        rng = self.deps.rng
        button = None
        if state.last_big_blind_seat is None:
            active = [i for i, s in enumerate(state.seats)
                      if s and not s.sitting_out and s.stack > 0]
            button = active[rng.randrange(len(active))]  # R2.6: placed at random
        carousel = draw_carousel(rng) if state.config.rules.powers else ()
        record.timers = [t for t in record.timers if t.kind != "next_hand"]
        outcome.events.extend(self._engine(record, cmd.StartHand(
            deck=tuple(shuffled_deck(rng)), button=button, carousel=carousel)).events)

    def _close_hand(self, record: TableRecord, now: int, outcome: Outcome) -> None:
        """End-of-hand chores: sit out players the clock decided for while disconnected (R8.2),
        let leaving players go with their stacks."""
        state = record.state
        leaving = _leaving(record)
        for player in list(record.sit_out_after_hand):
            if player.startswith("leave:") or player in leaving:
                continue
            seat_index = record.seat_of(player)
            if seat_index is not None:
                seat = state.seats[seat_index]
                if seat is not None and not seat.sitting_out:
                    outcome.events.extend(self._engine(
                        record, cmd.SitOut(seat_index=seat_index), sit_out=(player, now)).events)
            record.sit_out_after_hand.remove(player)
        for player in leaving:
            removed = self._remove_player(record, now, player, reason="left")
            outcome.events.extend(removed.events)
            outcome.moves.extend(removed.moves)
        record.sit_out_after_hand = [x for x in record.sit_out_after_hand
                                     if not x.startswith("leave:")]

    def _sync_timers(self, record: TableRecord, now: int) -> None:
        state = record.state
        hand = state.hand
        wanted: list[Timer] = [t for t in record.timers if t.kind == "next_hand"]
        if hand is not None and not hand.complete and hand.actor is not None:
            key = _turn_key(record)
            kept = [t for t in record.timers if t.kind in ("decision", "grace")
                    and t.token.split(":", 1)[1] == key]
            wanted += kept or [Timer(f"decision:{key}", "decision",
                                     now + record.settings.decision_ms, hand.actor)]
        if hand is not None and hand.powers is not None and not hand.complete:
            for window in hand.powers.windows:
                token = f"window:{window.window_id}"
                wanted.append(next((t for t in record.timers if t.token == token),
                                   Timer(token, "window", window.deadline_ms)))
        wanted += self._bot_timers(record, now)
        for player, since in record.sitting_out_since.items():  # R7.7
            token = f"sit_out_limit:{player}:{since}"
            wanted.append(Timer(token, "sit_out_limit", since + record.settings.sit_out_limit_ms))
        record.timers = wanted + [t for t in record.timers if t.kind == WAKE]

    def _bot_timers(self, record: TableRecord, now: int) -> list[Timer]:
        """R8.4: a BOT seat acts through the timer mechanism, after a short think delay: one
        ``bot`` timer per decision (the token changes with every logged step, so a bot that
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
                                   Timer(token, "bot", now + self.deps.bot_think_ms,
                                         hand.actor)))
        for window in hand.powers.windows if hand.powers is not None else []:
            seat = record.state.seats[window.target]
            if seat is not None and seat.is_bot:
                token = f"bot_respond:{window.window_id}"
                timers.append(next((t for t in record.timers if t.token == token),
                                   Timer(token, "bot_respond", now + self.deps.bot_think_ms,
                                         window.target)))
        return timers

    def _bot_move(self, record: TableRecord, now: int, timer: Timer) -> Outcome:
        """Let the bot at ``timer.seat_index`` decide from its own view only (R8.4)."""
        from dataclasses import replace

        from naiko import bots

        seat_index = timer.seat_index
        if seat_index is None:
            return Outcome()
        view = view_for(record.state, seat_index)
        choose = bots.respond if timer.kind == "bot_respond" else bots.decide
        command = choose(view, self.deps.rng)
        if command is None:
            return Outcome()
        if isinstance(command, cmd.UsePower):
            command = replace(command, at_ms=now)
        return self._engine(record, command)

    def _arm(self, table_id: str, record: TableRecord, now: int) -> None:
        """Keep ONE wake-up armed per table, for its earliest deadline.

        A Step Functions execution is started only when no armed wake-up fires by the earliest
        deadline: when that deadline moved EARLIER than the armed one (the pause after a hand,
        a Shield window), when the armed one was consumed (it fired) or presumed lost. A turn
        that ends early moves the deadline later: nothing is started, the armed wake-up fires
        at its time, finds nothing due, and re-arms for the deadline of the moment. The armed
        wake-up is remembered as a :data:`WAKE` marker in ``record.timers``, so its deadline is
        also on ``due-index`` for the sweep. The execution carries the earliest timer's own
        token and kind (a pending token always acts, so even a superseded execution that
        fires is either useful or a no-op)."""
        real = [t for t in record.timers if t.kind != WAKE]
        wake = next((t for t in record.timers if t.kind == WAKE), None)
        earliest = min(real, key=lambda t: (t.due_ms, t.token), default=None)
        if earliest is None:
            record.timers = real  # nothing to wait for: an armed wake-up will be a no-op
            return
        if wake is not None and now - WAKE_LATE_MS <= wake.due_ms <= earliest.due_ms:
            record.timers = [*real, wake]
            return
        self.deps.scheduler.schedule(table_id, earliest.token, earliest.due_ms, earliest.kind)
        self.deps.count("WakeupsArmed", 1)
        record.timers = [*real, Timer(WAKE_PREFIX + earliest.token, WAKE, earliest.due_ms)]

    # -- the changes -------------------------------------------------------------------------

    def _engine(self, record: TableRecord, command: cmd.Command,
                sit_out: tuple[str, int] | None = None) -> Outcome:
        # The record is already this attempt's private copy (see _mutate): no second copy of
        # the state per command. A rejection happens before any change, and a failed change
        # is never written anyway.
        events = apply_in_place(record.state, command)
        if sit_out is not None:
            record.sitting_out_since.setdefault(*sit_out)
        self.deps.count("EngineCommands", 1)
        return Outcome(events)

    def _create_table(self, connection_id: str, player_id: str, r: p.CreateTable) -> None:
        if r.small_blind > r.big_blind:
            raise ServiceError("invalid_request", "the small blind cannot exceed the big blind")
        if not r.big_blind <= r.min_buy_in <= r.max_buy_in:
            raise ServiceError("invalid_request",
                               "buy-ins must satisfy big_blind <= min_buy_in <= max_buy_in")
        # A replayed create_table finds the same id (derived from the player and request ids).
        table_id = "t" + _short_hash(f"{player_id}/{r.request_id}")
        config = TableConfig(variant=Variant(r.variant), seat_count=r.seat_count,
                             small_blind=r.small_blind, big_blind=r.big_blind)
        decision_ms = (self.deps.default_decision_ms if r.decision_seconds is None
                       else r.decision_seconds * 1000)
        settings = TableSettings(name=r.name, host=player_id, min_buy_in=r.min_buy_in,
                                 max_buy_in=r.max_buy_in, decision_ms=decision_ms,
                                 pause_ms=self.deps.default_pause_ms, private=r.private,
                                 invited=tuple(r.invited), bots=r.bots)
        now = self.deps.clock.now_ms()
        record = TableRecord(table_id, 1, settings, TableState.new(config), created_ms=now)
        record.remember_request(f"{player_id}/{r.request_id}", 1)
        replayed = False
        try:
            self.deps.tables.create(record)
        except ConcurrentUpdate:
            replayed = True
        self._send(connection_id, {"type": "ack", "request_id": r.request_id,
                                   "table_id": table_id, "version": 1, "replayed": replayed})

    def _snapshot(self, connection_id: str, player_id: str, r: p.Snapshot) -> None:
        record = self.deps.tables.load(r.table_id)
        if record.connections.get(player_id) != connection_id \
                or player_id in record.disconnected:
            # (Re)subscribe this connection: the player reconnects to the confirmed state (R8.3).
            def change(rec: TableRecord, now: int) -> Outcome:
                rec.connections[player_id] = connection_id
                if rec.disconnected.pop(player_id, None) is not None:
                    return Outcome([Event("reconnected", {"player_id": player_id})])
                return Outcome()
            record = self._mutate(r.table_id, change) or record
            self.deps.connections.add_table(connection_id, r.table_id)
        self._send(connection_id, self._snapshot_message(record, player_id, r.request_id))

    def _snapshot_message(self, record: TableRecord, player_id: str,
                          request_id: str | None) -> dict[str, Any]:
        return {"type": "snapshot", "table_id": record.table_id, "version": record.version,
                "view": self._view(record, record.seat_of(player_id)),
                "request_id": request_id}

    def _join(self, record: TableRecord, now: int, connection_id: str, player_id: str,
              r: p.JoinTable) -> Outcome:
        settings = record.settings
        state = record.state
        if record.seat_of(player_id) is not None:
            raise ServiceError("already_seated", "you already have a seat at this table")
        if settings.private and player_id != settings.host and player_id not in settings.invited:
            raise ServiceError("not_invited", "this private table is for invited players (R7.2)")
        minimum = settings.min_buy_in
        left = record.left_stacks.get(player_id)
        if left is not None and now - left["left_ms"] < REBUY_PROTECTION_MS:
            minimum = max(minimum, left["stack"])  # R7.7
        if not minimum <= r.buy_in <= max(settings.max_buy_in, minimum):
            raise ServiceError("bad_buy_in", f"the buy-in must be between {minimum} and "
                               f"{max(settings.max_buy_in, minimum)}")
        seat_index = r.seat_index
        if seat_index is None:
            seat_index = next((i for i, s in enumerate(state.seats) if s is None), None)
            if seat_index is None:
                raise ServiceError("table_full", "every seat is taken")
        if seat_index >= state.config.seat_count:
            raise ServiceError("unknown_seat", f"this table has {state.config.seat_count} seats")
        if self.deps.accounts.balance(player_id) < r.buy_in:
            raise ServiceError("insufficient_funds", "your account cannot cover that buy-in")
        outcome = self._engine(record, cmd.SitDown(seat_index=seat_index, player_id=player_id,
                                                   stack=r.buy_in))
        record.connections[player_id] = connection_id
        record.disconnected.pop(player_id, None)
        record.left_stacks.pop(player_id, None)
        self.deps.connections.add_table(connection_id, record.table_id)
        outcome.moves.append(AccountMove(player_id, r.buy_in, record.table_id))
        return outcome

    def _leave(self, record: TableRecord, now: int, player_id: str) -> Outcome:
        _seat(record, player_id)
        return self._remove_player(record, now, player_id, reason="left")

    def _remove_player(self, record: TableRecord, now: int, player_id: str,
                       reason: str) -> Outcome:
        """Stand the player up and cash the stack out; a player still in the hand folds now if
        it is their turn, else as soon as it is, and leaves when the hand ends."""
        seat_index = record.seat_of(player_id)
        if seat_index is None:
            return Outcome()
        hand = record.state.hand
        if hand is not None and not hand.complete and hand.is_live(seat_index):
            marker = f"leave:{player_id}"
            if marker not in record.sit_out_after_hand:
                record.sit_out_after_hand.append(marker)
            if hand.actor == seat_index:
                return self._engine(record, cmd.Fold(seat_index=seat_index))
            return Outcome([Event("leaving_after_hand", {"seat_index": seat_index})])
        seat = record.state.seats[seat_index]
        assert seat is not None
        stack = seat.stack
        outcome = self._engine(record, cmd.StandUp(seat_index=seat_index))
        outcome.events.append(Event("left_table", {"seat_index": seat_index,
                                                   "player_id": player_id, "reason": reason}))
        record.sitting_out_since.pop(player_id, None)
        record.disconnected.pop(player_id, None)
        if stack >= 100 * record.state.config.big_blind:
            record.left_stacks[player_id] = {"stack": stack, "left_ms": now}
        if stack:
            outcome.moves.append(AccountMove(player_id, -stack, record.table_id))
        return outcome

    def _sit_in(self, record: TableRecord, player_id: str) -> Outcome:
        outcome = self._engine(record, cmd.SitIn(seat_index=_seat(record, player_id)))
        record.sitting_out_since.pop(player_id, None)
        if player_id in record.sit_out_after_hand:
            record.sit_out_after_hand.remove(player_id)
        return outcome

    def _add_chips(self, record: TableRecord, player_id: str, amount: int) -> Outcome:
        seat_index = _seat(record, player_id)
        seat = record.state.seats[seat_index]
        assert seat is not None
        if seat.stack + amount > record.settings.max_buy_in:
            raise ServiceError("bad_buy_in", f"a stack may not exceed the maximum buy-in of "
                               f"{record.settings.max_buy_in}")
        outcome = self._engine(record, cmd.AddChips(seat_index=seat_index, amount=amount))
        outcome.moves.append(AccountMove(player_id, amount, record.table_id))
        return outcome

    def _drop_connection(self, record: TableRecord, now: int, player_id: str,
                         connection_id: str) -> Outcome:
        if record.connections.get(player_id) != connection_id:
            raise _NoOp()
        del record.connections[player_id]
        if record.seat_of(player_id) is not None:
            record.disconnected.setdefault(player_id, now)
            return Outcome([Event("disconnected", {"player_id": player_id})])
        return Outcome()

    # -- fan-out -----------------------------------------------------------------------------

    def _view(self, record: TableRecord, seat_index: int | None) -> dict[str, Any]:
        view = view_for(record.state, seat_index)
        view["table_id"] = record.table_id
        view["settings"] = {"name": record.settings.name, "min_buy_in": record.settings.min_buy_in,
                            "max_buy_in": record.settings.max_buy_in,
                            "decision_ms": record.settings.decision_ms}
        view["disconnected"] = sorted(record.disconnected)
        deadline = next((t.due_ms for t in record.timers if t.kind in ("decision", "grace")), None)
        if view["prompt"] is not None:
            view["prompt"]["deadline_ms"] = deadline
        if view["hand"] is not None:
            view["hand"]["actor_deadline_ms"] = deadline
        return view

    def _fan_out(self, record: TableRecord, events: list[Event]) -> None:
        """After the commit: every watching connection gets its own view (R8.3: the confirmed
        state). A gone connection never fails the action."""
        gone: list[tuple[str, str]] = []
        for player_id, connection_id in record.connections.items():
            seat_index = record.seat_of(player_id)
            message = {"type": "update", "table_id": record.table_id, "version": record.version,
                       "events": events_for(events, seat_index),
                       "view": self._view(record, seat_index)}
            try:
                self.deps.gateway.send(connection_id, message)
                self.deps.count("MessagesSent", 1)
            except ConnectionGone:
                gone.append((player_id, connection_id))
        for player_id, connection_id in gone:
            self.deps.count("ConnectionsGone", 1)
            self._internal(record.table_id, self._dropper(player_id, connection_id))

    def _dropper(self, player_id: str, connection_id: str) -> Change:
        return lambda record, now: self._drop_connection(record, now, player_id, connection_id)

    def _send(self, connection_id: str, message: dict[str, Any]) -> None:
        try:
            self.deps.gateway.send(connection_id, message)
        except ConnectionGone:
            self.deps.count("ConnectionsGone", 1)


class _NoOp(Exception):
    """A change that turned out to have nothing to do (nothing is written)."""


def _seat(record: TableRecord, player_id: str) -> int:
    seat_index = record.seat_of(player_id)
    if seat_index is None:
        raise ServiceError("not_seated", "you have no seat at this table")
    return seat_index


def _due(record: TableRecord, now: int) -> list[Timer]:
    """The table's timers (not the wake-up marker) whose deadline has come."""
    return [t for t in record.timers if t.kind != WAKE and t.due_ms <= now]


def _leaving(record: TableRecord) -> list[str]:
    return [x.split(":", 1)[1] for x in record.sit_out_after_hand if x.startswith("leave:")]


def _turn_key(record: TableRecord) -> str:
    """Names the current decision: hand number and how many betting actions came before."""
    hand = record.state.hand
    assert hand is not None
    actions = sum(1 for entry in hand.log if entry.startswith("s") and entry.split()[1] in
                  ("f", "cc", "cbr"))
    return f"{hand.number}.{actions}"


def _betting_command(seat_index: int, r: p.Act) -> cmd.Command:
    if r.move in ("bet", "raise_to"):
        if r.amount is None:
            raise ServiceError("invalid_request", f"{r.move} needs an amount (the total to)")
        return (cmd.Bet(seat_index=seat_index, amount=r.amount) if r.move == "bet"
                else cmd.RaiseTo(seat_index=seat_index, amount=r.amount))
    if r.amount is not None:
        raise ServiceError("invalid_request", f"{r.move} takes no amount")
    return {"fold": cmd.Fold, "check": cmd.Check, "call": cmd.Call,
            "all_in": cmd.AllIn}[r.move](seat_index=seat_index)


def _message(error: ServiceError | EngineError) -> str:
    return error.message


def _short_hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:20]
