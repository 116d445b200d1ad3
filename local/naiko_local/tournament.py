""":mod:`naiko_local.tournament` is ``naiko-tournament``: tournaments from the command line.

``naiko-tournament simulate --kind sng|spin|mtt --players N --seed S --out FILE.jsonl``
plays a whole tournament through the real service and its timers, on the in-memory adapters, in
virtual time: every seat a BOT (R8.4), each BOT's think time drawn per action, every timer
execution fired at its deadline as Step Functions would (the sweep too, every minute), and
writes the tournament's log as JSON Lines (``docs/tournaments.md``). ``--reentries N`` (mtt)
makes BOTs eliminated during late registration enter again (R9.12), up to N times in all;
``--bounties regular|progressive`` makes half of each entry a knockout bounty (R9.13). The
ledger identity is checked after every transaction (``--no-check`` skips it: the check reads
every table).

``naiko-tournament export --tournament ID --out FILE.jsonl`` writes a deployed tournament's log,
and ``naiko-tournament schedule --tournament ID --name N --entry E --starts 2026-12-24T20:00Z``
lists a scheduled tournament (ops: ``TOURNAMENTS_TABLE`` and the other ``bootstrap`` variables in
the environment).
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from naiko.cards import seeded_random
from naiko.state import Variant
from naiko.tournaments.structures import (
    BlindStructure,
    InvalidTerms,
    TournamentKind,
    TournamentTerms,
    from_preset,
    hourly_breaks,
    knockout,
)
from naiko_service.auth import bot_id
from naiko_service.ledger import Audit
from naiko_service.memory import (
    ManualClock,
    MemoryAccounts,
    MemoryConnections,
    MemoryTableStore,
    MemoryTournamentStore,
    RecordingGateway,
)
from naiko_service.tournament_records import HOUSE_PRIZES, TournamentStatus
from naiko_service.usecases import Deps, ServiceError, TableService, scheduled, tournaments
from naiko_service.usecases.private import HOUSE_BOTS

from naiko_local import bounty_audit

SIMULATED_START_MS = 1_767_225_600_000
"""Virtual time starts at 2026-01-01T00:00:00Z."""

START_AFTER_MS = 60_000
"""A simulated scheduled tournament starts a minute after it is listed (its BOTs registered)."""

REGISTRATIONS_PER_TRANSACTION = 40
"""BOTs registered per transaction (each is a registration item and a ledger entry)."""

MAX_EXECUTIONS = 20_000_000
"""A simulation that has not finished after this many timer executions is a bug."""


class VirtualScheduler:
    """Step Functions in virtual time: executions in a heap by deadline."""

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, str, str]] = []
        self._order = itertools.count()
        self.started = 0

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        self.started += 1
        heapq.heappush(self.heap, (due_ms, next(self._order), table_id, token))

    def pop(self) -> tuple[int, str, str] | None:
        if not self.heap:
            return None
        due_ms, _, target, token = heapq.heappop(self.heap)
        return due_ms, target, token



SWEEP_EVERY_MS = 60_000
"""EventBridge runs the sweep every minute."""


class VirtualTime(Protocol):
    """A service driven in virtual time: its timer executions in a :class:`VirtualScheduler`,
    its clock, and the next sweep's time (this module's :class:`Simulation`, the moto tests'
    tournaments)."""

    next_sweep: int

    @property
    def scheduler(self) -> VirtualScheduler: ...

    @property
    def clock(self) -> ManualClock: ...

    @property
    def service(self) -> TableService: ...


def sweep_until(world: VirtualTime, now: int) -> None:
    """Run every sweep due by *now*, each at its own time."""
    while world.next_sweep <= now:
        world.clock.now = max(world.clock.now, world.next_sweep)
        world.service.sweep()
        world.next_sweep += SWEEP_EVERY_MS


def fire_next(world: VirtualTime) -> bool:
    """Fire *world*'s next timer execution, the sweeps due before it first (the clock moves
    to each); ``False`` when none is left."""
    popped = world.scheduler.pop()
    if popped is None:
        return False
    due_ms, target, token = popped
    sweep_until(world, due_ms)
    world.clock.now = max(world.clock.now, due_ms)
    world.service.timer_fired(target, token)
    return True

class CheckedTournamentStore(MemoryTournamentStore):
    """Checks the ledger identity after every transaction (and :attr:`invariants`, the
    property tests' own checks)."""

    audits = 0
    invariants: Callable[[], None] | None = None

    def commit(self, writes: Any, moves: Any = ()) -> None:
        super().commit(writes, moves)
        _assert_balanced(self.tables.audit())
        self.audits += 1
        if self.invariants is not None:
            self.invariants()


class CheckedTableStore(MemoryTableStore):
    invariants: Callable[[], None] | None = None

    def save(self, record: Any, expected_version: int, moves: Any = ()) -> None:
        super().save(record, expected_version, moves)
        if moves:
            _assert_balanced(self.audit())
        if self.invariants is not None:
            self.invariants()


def _assert_balanced(audit: Audit) -> None:
    if not audit.holds:
        raise AssertionError(f"the ledger identity does not hold: {audit.line()}")


@dataclass
class Simulation:
    """One tournament played by BOTs in virtual time."""

    terms: TournamentTerms
    players: int
    seed: int
    check: bool = True
    think_ms: tuple[int, int] = (400, 6_000)
    """Each action's think time is drawn uniformly from this range."""
    service: TableService = field(init=False)
    scheduler: VirtualScheduler = field(init=False)
    clock: ManualClock = field(init=False)
    store: MemoryTableStore = field(init=False)
    tournaments: MemoryTournamentStore = field(init=False)
    accounts: MemoryAccounts = field(init=False)
    reentries: int = 0
    """R9.12: BOT re-entries to make (each of a BOT eliminated while late registration is
    open, as long as its entries allow), the first ones seen out first."""
    executions: int = 0
    tournament_id: str = "sim-1"
    next_sweep: int = 0
    reentered: int = 0

    def __post_init__(self) -> None:
        self.accounts = MemoryAccounts()
        self.store = (CheckedTableStore if self.check else MemoryTableStore)(
            accounts=self.accounts)
        self.tournaments = (CheckedTournamentStore if self.check
                            else MemoryTournamentStore)(self.store)
        self.scheduler = VirtualScheduler()
        self.clock = ManualClock(SIMULATED_START_MS)
        self.next_sweep = SIMULATED_START_MS + 60_000
        think = seeded_random(self.seed + 1)
        low, high = self.think_ms
        deps = Deps(tables=self.store, accounts=self.accounts, connections=MemoryConnections(),
                    gateway=RecordingGateway(), scheduler=self.scheduler, clock=self.clock,
                    rng=seeded_random(self.seed), tournaments=self.tournaments,
                    bot_think=lambda: think.randrange(low, high + 1))
        self.service = TableService(deps)

    def run(self) -> list[dict[str, Any]]:
        """Register the BOTs (the last one starts it), play every timer to the end, and return
        the tournament's log."""
        self.register()
        while not self.finished():
            if not self.step():
                raise RuntimeError("no timer left and the tournament is not finished")
        return tournaments.export_log(self.service.deps, self.tournament_id)

    def register(self) -> None:
        """List the tournament and register its BOTs (a Sit & Go or Spin starts with the
        last; a scheduled one at its start time, a minute later)."""
        deps = self.service.deps
        entries = self.terms.entry * (self.players + self.reentries)
        self.accounts.grant(HOUSE_BOTS, entries, ref="simulation")
        if self.terms.kind is TournamentKind.SPIN:
            # Ops keep the house's prize account able to pay the largest Spin prize.
            self.accounts.grant(HOUSE_PRIZES, max(
                prize.multiplier for prize in self.terms.spin_table.prizes  # type: ignore[union-attr]
            ) * self.terms.entry, ref="simulation")
        scheduled = self.terms.kind is TournamentKind.SCHEDULED
        tournaments.create(deps, self.tournament_id, "simulation",
                           replace(self.terms, bots_allowed=True), "simulation",
                           starts_ms=self.clock.now + START_AFTER_MS if scheduled else None)
        names = [bot_id(n) for n in range(1, self.players + 1)]
        for first in range(0, len(names), REGISTRATIONS_PER_TRANSACTION):
            tournaments.enter(deps, None, self.tournament_id, [
                tournaments.Entrant(name, HOUSE_BOTS, True)
                for name in names[first:first + REGISTRATIONS_PER_TRANSACTION]])
        self.next_sweep = self.clock.now + 60_000

    def step(self) -> bool:
        """Fire the next timer execution (the sweeps due before it first); ``False`` when
        none is left."""
        if not fire_next(self):
            return False
        self.executions += 1
        if self.reentered < self.reentries:
            self._reenter()
        if self.executions > MAX_EXECUTIONS:
            raise RuntimeError(f"not finished after {MAX_EXECUTIONS} executions")
        return True

    def finished(self) -> bool:
        record = self.tournaments.load(self.tournament_id)
        return record.status is TournamentStatus.FINISHED and not record.timers

    def _reenter(self) -> None:
        """R9.12: the BOTs out while late registration is open enter again (the house's bot
        account pays), while the simulation's re-entries last."""
        deps = self.service.deps
        record = self.tournaments.load(self.tournament_id)
        if not scheduled.late_open(record, self.clock.now):
            return
        for out in list(record.late):
            if self.reentered >= self.reentries:
                return
            try:
                tournaments.reenter_player(deps, None, self.tournament_id,
                                           str(out["player_id"]), HOUSE_BOTS)
            except ServiceError as refused:
                if refused.code in ("no_entries_left", "not_eliminated"):
                    continue
                if refused.code in ("tournament_full", "registration_closed"):
                    return
                raise
            self.reentered += 1


def terms_for(kind: str, variant: Variant, entry: int, players: int) -> TournamentTerms:
    """The preset of *kind* for the field: a Sit & Go of *players* seats (2..10), a Spin, or
    a scheduled turbo (``mtt_turbo``, 9-max, no late registration: the field is the BOTs
    registered before the start)."""
    if kind == "spin":
        return from_preset("spin_3max_hyper", entry, variant)
    if kind == "mtt":
        return replace(from_preset("mtt_turbo", entry, variant), late_registration_level=None)
    terms = from_preset("sng_9max_turbo" if players > 6 else "sng_6max_turbo", entry, variant)
    return replace(terms, seat_count=players, min_players=players, max_players=players)


def write_jsonl(entries: Iterable[dict[str, Any]], out: Path | None) -> None:
    lines = (json.dumps(entry, separators=(",", ":"), sort_keys=True) for entry in entries)
    text = "".join(line + "\n" for line in lines)
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")


def _utc(text: str) -> int:
    """An ISO 8601 time (``Z`` or an offset; naive means UTC) in epoch milliseconds."""
    from datetime import UTC, datetime

    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="naiko-tournament", description=__doc__.split(
        "\n\n")[0].replace(":mod:`naiko_local.tournament` is ", ""))
    commands = parser.add_subparsers(dest="command", required=True)
    simulate = commands.add_parser("simulate", help="play a whole tournament with BOTs")
    simulate.add_argument("--kind", choices=("sng", "spin", "mtt"), required=True)
    simulate.add_argument("--players", type=int, default=None)
    simulate.add_argument("--seed", type=int, default=1)
    simulate.add_argument("--variant", choices=[v.value for v in Variant], default="NLHE")
    simulate.add_argument("--entry", type=int, default=100)
    simulate.add_argument("--out", type=Path, default=None)
    simulate.add_argument("--reentries", type=int, default=0,
                          help="mtt: BOT re-entries to make while late registration is open "
                          "(R9.12; the tournament then publishes 3 entries per player and late "
                          "registration to the end of level 4)")
    simulate.add_argument("--bounties", choices=("regular", "progressive"), default=None,
                          help="knockout bounties (R9.13): half of each entry is a bounty on "
                          "its player, paid to whoever eliminates them (progressive: half "
                          "paid, half added to the winner's own bounty)")
    simulate.add_argument("--no-check", action="store_true",
                          help="skip the ledger check after every transaction")
    simulate.add_argument("--breaks", type=int, default=None, metavar="MINUTES",
                          help="mtt: a break of MINUTES every hour of play (R9.14)")
    simulate.add_argument("--break-every", type=int, default=60, metavar="MINUTES",
                          help="with --breaks: play between breaks (default 60)")
    export = commands.add_parser("export", help="a deployed tournament's log as JSON Lines")
    export.add_argument("--tournament", required=True)
    export.add_argument("--out", type=Path, default=None)
    schedule = commands.add_parser("schedule", help="list a scheduled tournament (ops)")
    schedule.add_argument("--tournament", required=True, help="its id")
    schedule.add_argument("--name", required=True)
    schedule.add_argument("--preset", default="mtt_turbo", choices=("mtt_turbo", "mtt_deep",
                                                                   "mtt_deep_breaks"))
    schedule.add_argument("--variant", choices=[v.value for v in Variant], default="NLHE")
    schedule.add_argument("--entry", type=int, required=True)
    schedule.add_argument("--starts", required=True, type=_utc,
                          help="start time, ISO 8601 UTC (2026-12-24T20:00:00Z)")
    schedule.add_argument("--opens", type=_utc, default=None,
                          help="registration opening (default: now)")
    schedule.add_argument("--min-players", type=int, default=None)
    schedule.add_argument("--max-players", type=int, default=None)
    schedule.add_argument("--no-late", action="store_true", help="no late registration")
    schedule.add_argument("--bots", action="store_true", help="BOTs may be registered")
    args = parser.parse_args(argv)
    if args.command in ("export", "schedule"):
        from naiko_service import bootstrap

        config = bootstrap.Config.from_env()
        service = bootstrap.build_service(config, endpoint="https://unused.invalid")
        if args.command == "export":
            write_jsonl(tournaments.export_log(service.deps, args.tournament), args.out)
            return 0
        terms = from_preset(args.preset, args.entry, Variant(args.variant))
        terms = replace(terms, min_players=args.min_players or terms.min_players,
                        max_players=args.max_players or terms.max_players,
                        bots_allowed=args.bots,
                        late_registration_level=None if args.no_late
                        else terms.late_registration_level)
        record = tournaments.create(service.deps, args.tournament, args.name, terms, "ops",
                                    starts_ms=args.starts, opens_ms=args.opens)
        print(json.dumps(record.summary(), sort_keys=True))
        return 0
    players = args.players or {"spin": 3, "sng": 6, "mtt": 100}[args.kind]
    if args.kind == "spin" and players != 3:
        parser.error("a Spin has exactly 3 players")
    if args.kind == "sng" and not 2 <= players <= 10:
        parser.error("a Sit & Go seats 2 to 10 players")
    if args.kind == "mtt" and not 2 <= players <= 10_000:
        parser.error("a scheduled tournament takes 2 to 10,000 players")
    if args.reentries and args.kind != "mtt":
        parser.error("re-entry is a scheduled tournament's (--kind mtt)")
    terms = terms_for(args.kind, Variant(args.variant), args.entry, players)
    if args.reentries:
        terms = replace(terms, late_registration_level=4, entries_per_player=3,
                        max_players=max(terms.max_players, players + args.reentries))
    if args.bounties is not None:
        try:
            terms = knockout(terms, progressive=args.bounties == "progressive")
        except InvalidTerms as error:
            parser.error(str(error))
    if args.breaks is not None:
        if args.kind != "mtt":
            parser.error("only a scheduled tournament (--kind mtt) publishes breaks")
        levels = terms.structure.levels
        try:
            terms = replace(terms, structure=BlindStructure(levels, hourly_breaks(
                levels, args.breaks, args.break_every)))
        except InvalidTerms as error:
            parser.error(str(error))
    simulation = Simulation(terms, players, args.seed, check=not args.no_check,
                            reentries=args.reentries)
    log = simulation.run()
    write_jsonl(log, args.out)
    finished = log[-1]
    hands = sum(1 for entry in log if entry["type"] == "hand")
    print(f"{args.kind}: {players} players, {hands} hands, "
          f"{(finished['at_ms'] - log[0]['at_ms']) / 60_000:.1f} virtual minutes, "
          f"{simulation.executions} timer executions; winner {next(iter(finished['places']))}"
          + (f"; {simulation.reentered} re-entries" if args.reentries else "")
          + (f"; {len(terms.structure.breaks)} breaks published" if terms.structure.breaks
             else "")
          + (f"; {bounty_audit.audit(log).line()}" if args.bounties else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
