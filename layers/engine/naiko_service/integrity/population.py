""":mod:`naiko_service.integrity.population`: a simulated population of BOT accounts with
planted colluders and innocent look-alikes, to measure the review (R10.3).

Sessions of 6-max No-Limit Hold'em (blinds 1/2, 5/10 or 25/50 at random, 100 big blinds,
busted stacks reloaded) are played on the pure engine (:func:`naiko.engine.apply`), every
decision the BOT's (:mod:`naiko.bots`) on the seat's own view, varied by a per-account
**style** (loose or tight, aggressive or passive: a share of folds turned into calls, of checks
and calls into bets and raises, and of cheap calls into folds). Each hand becomes the
:class:`~naiko_service.hand_records.HandRecord` the service would store.

Planted, each a group that sits down together at most of its sessions:

- **dumping pairs** (giver → taker), who show each other their cards: in a share of their
  sessions together (:attr:`Plan.dump_sessions`) the giver sets out to pass a budget of chips
  that varies (:attr:`Plan.dump_budget_bb`) and, heads-up against the taker until it is
  spent, bets or raises a part of it when behind (the taker calls), checks and folds to the
  taker's bet when ahead (the taker bets); everywhere else, and in the other sessions, both
  play their style;
- **soft-playing friends**: heads-up against each other they never bet or raise;
- **a multi-accounting ring**: three accounts of one person, only ever seated together,
  soft-playing each other;

and the look-alikes that must not be flagged:

- **innocent friends** at private tables (they sit together but play normally);
- **lucky streaks**: a pair where one is dealt the better hand against the other in a share of
  their hands (the deck is arranged), so chips flow one way with normal play.

:func:`simulate` returns the records and :class:`Truth` (who was planted as what).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from naiko.bots import (  # the BOT's steps, to cache its preflop equities (see _Decider)
    Knowledge,
    _betting_choice,
    _legal,
    estimate_equity,
    read_view,
    trials_for,
)
from naiko.cards import rank_of, shuffled_deck
from naiko.commands import AddChips, Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import apply, legal_actions
from naiko.evaluator import evaluate, evaluate_many
from naiko.events import HandStarted
from naiko.state import TableConfig, TableState
from naiko.views import view_for

from ..hand_records import HandRecord, build

STACK_BB = 100
"""Stacks are bought in (and reloaded) to this many big blinds."""
STAKES = (2, 10, 50)
"""The big blinds of the sessions' tables (one at random per session)."""
SEATS = 6
MAX_COMMANDS = 400


@dataclass(frozen=True, slots=True)
class Style:
    """How an account departs from the plain BOT."""

    loose: float = 0.0
    """Share of folds facing a bet of at most ten big blinds turned into calls."""
    aggressive: float = 0.0
    """Share of checks and calls turned into a bet or raise of about the pot."""
    tight: float = 0.0
    """Share of calls of more than two big blinds turned into folds."""


STYLES = {
    "plain": Style(),
    "loose_passive": Style(loose=0.5, tight=0.0),
    "loose_aggressive": Style(loose=0.4, aggressive=0.25),
    "tight_passive": Style(tight=0.35),
    "tight_aggressive": Style(tight=0.25, aggressive=0.2),
}


@dataclass(slots=True)
class Truth:
    """What was planted: the answers the review is measured against."""

    dumping: set[tuple[str, str]] = field(default_factory=set)
    """(giver, taker)."""
    soft_play: set[tuple[str, str]] = field(default_factory=set)
    """Sorted pairs (ring members' pairs included: they soft-play too)."""
    rings: list[frozenset[str]] = field(default_factory=list)
    innocent_friends: set[tuple[str, str]] = field(default_factory=set)
    lucky: set[tuple[str, str]] = field(default_factory=set)
    """(lucky, unlucky)."""
    accounts: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Plan:
    """The population's shape (the benchmark's defaults)."""

    accounts: int = 80
    dumping_pairs: int = 16
    """Sixteen, so that recall moves by 1/16 a pair (with eight, one pair missed was 0.88)."""
    soft_pairs: int = 6
    rings: int = 1
    innocent_friend_pairs: int = 4
    lucky_pairs: int = 4
    hands_per_session: int = 40
    group_sessions: float = 0.7
    """Share of sessions that seat planted or look-alike groups (the rest at random)."""
    groups_per_table: int = 2
    """Groups seated at such a session, at most (drawn apart; the seats left filled at
    random): with 31 groups, two a table keep each group's sessions together about as many
    as one a table gave 21."""
    dump_sessions: float = 0.6
    """Share of a dumping pair's sessions together in which the giver dumps."""
    dump_budget_bb: tuple[float, float] = (15.0, 90.0)
    """What a giver sets out to pass in a session, in big blinds (uniform in this range)."""
    lucky_rate: float = 0.5
    """Share of a lucky pair's hands together in which the lucky one gets the better hand."""


def _sorted(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


class _Population:
    def __init__(self, plan: Plan, rng: random.Random) -> None:
        self.plan, self.rng = plan, rng
        self.truth = Truth()
        names = [f"acct{i:03d}" for i in range(plan.accounts)]
        self.truth.accounts = names
        pool = names[:]
        rng.shuffle(pool)
        self.style = {n: rng.choice(list(STYLES)) for n in names}
        self.groups: list[tuple[str, tuple[str, ...]]] = []
        """(kind, members) sitting together."""
        self.dump_taker: dict[str, str] = {}
        self.soft_with: dict[str, set[str]] = {}
        self.lucky_over: dict[str, str] = {}
        self.ring_members: set[str] = set()

        def take(k: int) -> tuple[str, ...]:
            return tuple(pool.pop() for _ in range(k))

        for _ in range(plan.dumping_pairs):
            giver, taker = take(2)
            self.dump_taker[giver] = taker
            self.truth.dumping.add((giver, taker))
            self.groups.append(("dumping", (giver, taker)))
        for _ in range(plan.soft_pairs):
            a, b = take(2)
            self.soft_with.setdefault(a, set()).add(b)
            self.soft_with.setdefault(b, set()).add(a)
            self.truth.soft_play.add(_sorted(a, b))
            self.groups.append(("soft", (a, b)))
        for _ in range(plan.rings):
            members = take(3)
            self.truth.rings.append(frozenset(members))
            self.ring_members.update(members)
            for a in members:
                self.soft_with.setdefault(a, set()).update(m for m in members if m != a)
            for i, a in enumerate(members):
                for b in members[i + 1:]:
                    self.truth.soft_play.add(_sorted(a, b))
            self.groups.append(("ring", members))
        for _ in range(plan.innocent_friend_pairs):
            a, b = take(2)
            self.truth.innocent_friends.add(_sorted(a, b))
            self.groups.append(("friends", (a, b)))
        for _ in range(plan.lucky_pairs):
            lucky, unlucky = take(2)
            self.lucky_over[unlucky] = lucky
            self.truth.lucky.add((lucky, unlucky))
            self.groups.append(("lucky", (lucky, unlucky)))
        self.singles = pool
        self.decider = _Decider()
        self.bb = STAKES[0]
        self.budget: dict[str, float] = {}
        """Giver -> chips it still means to pass in this session."""

    # -- sessions ------------------------------------------------------------------------------

    def session_players(self) -> tuple[list[str], str]:
        """Who sits at the next session's table, and the table's kind."""
        rng = self.rng
        players: list[str] = []
        kind = "cash"
        if rng.random() < self.plan.group_sessions:
            count = min(self.plan.groups_per_table, len(self.groups))
            for group_kind, members in rng.sample(self.groups, count):
                if len(players) + len(members) > SEATS:
                    continue
                players.extend(members)
                if group_kind == "friends":
                    kind = "private"
        while len(players) < SEATS:
            candidate = rng.choice(self.truth.accounts)
            if candidate in players or candidate in self.ring_members:
                continue  # a ring's accounts only ever sit down together
            players.append(candidate)
        rng.shuffle(players)
        return players, kind

    def play_session(self, number: int, clock: list[int]) -> Iterator[HandRecord]:
        players, kind = self.session_players()
        rng = self.rng
        bb = rng.choice(STAKES)
        self.bb = bb
        stack = STACK_BB * bb
        # a giver dumps in a share of its sessions with its taker, a budget that varies
        self.budget = {giver: rng.uniform(*self.plan.dump_budget_bb) * bb
                       for giver, taker in self.dump_taker.items()
                       if giver in players and taker in players
                       and rng.random() < self.plan.dump_sessions}
        state = TableState.new(TableConfig(seat_count=SEATS, small_blind=bb // 2, big_blind=bb))
        for seat, player in enumerate(players):
            state, _ = apply(state, SitDown(seat_index=seat, player_id=player, stack=stack,
                                            is_bot=True))
        table_id = f"sim-{number:05d}"
        for hand in range(self.plan.hands_per_session):
            for seat, s in enumerate(state.seats):
                if s is not None and s.stack < stack:
                    state, _ = apply(state, AddChips(seat_index=seat, amount=stack - s.stack))
            button = rng.randrange(SEATS) if hand == 0 else None
            deck = self._deck(state, button)
            started = clock[0]
            state, _ = apply(state, StartHand(deck=tuple(deck), button=button))
            state = self._play_hand(state)
            clock[0] += 30_000
            yield build(state, table_id=table_id, table_name=table_id, kind=kind,
                        started_ms=started, ended_ms=clock[0])

    def _deck(self, state: TableState, button: int | None) -> list[int]:
        """A shuffled deck; for a lucky pair both dealt in, sometimes arranged so the lucky one
        holds the better seven cards."""
        deck = shuffled_deck(self.rng)
        seated = {s.player_id for s in state.seats if s is not None}
        if not any(u in seated and lucky in seated for u, lucky in self.lucky_over.items()):
            return deck  # no lucky pair at this table: no trial deal
        trial, events = apply(state, StartHand(deck=tuple(deck), button=button))
        started = next(e for e in events if isinstance(e, HandStarted))
        order = list(started.seats_dealt)
        seat_of = {trial.seats[s].player_id: s for s in order  # type: ignore[union-attr]
                   if trial.seats[s] is not None}
        for unlucky, lucky in self.lucky_over.items():
            if unlucky not in seat_of or lucky not in seat_of \
                    or self.rng.random() >= self.plan.lucky_rate:
                continue
            board = deck[2 * len(order):2 * len(order) + 5]
            i, j = order.index(seat_of[lucky]), order.index(seat_of[unlucky])
            mine = deck[2 * i:2 * i + 2]
            theirs = deck[2 * j:2 * j + 2]
            if evaluate([*mine, *board]) < evaluate([*theirs, *board]):
                deck[2 * i:2 * i + 2], deck[2 * j:2 * j + 2] = theirs, mine
        return deck

    def _play_hand(self, state: TableState) -> TableState:
        for _ in range(MAX_COMMANDS):
            prompt = legal_actions(state)
            if prompt is None:
                return state
            view = view_for(state, prompt.seat_index)
            command = self.decider.decide(view, self.rng)
            state, _ = apply(state, self._adjust(state, prompt.to_dict(), command))
        raise AssertionError("a simulated hand did not end")

    # -- behaviour -----------------------------------------------------------------------------

    def _adjust(self, state: TableState, prompt: dict[str, Any], command: Command) -> Command:
        hand = state.hand
        assert hand is not None
        seat = int(prompt["seat_index"])
        me = hand.player_ids[seat]
        assert me is not None
        live = [hand.player_ids[s] for s in range(len(hand.player_ids))
                if hand.is_live(s) and s != seat]
        planted = self._planted(state, prompt, command, me, live)
        if planted is not None:
            return planted
        return self._styled(prompt, command, me)

    def _heads_up_equity(self, state: TableState, seat: int, other: str) -> float:
        """*seat*'s equity against *other*'s cards (dumping partners show each other theirs)."""
        hand = state.hand
        assert hand is not None
        other_seat = hand.player_ids.index(other)
        mine, theirs = list(hand.hole[seat]), list(hand.hole[other_seat])
        board = list(hand.board)
        known = set(mine) | set(theirs) | set(board)
        pool = [c for c in range(52) if c not in known]
        need = 5 - len(board)
        won = 0.0
        trials = 1 if need == 0 else 80
        for _ in range(trials):
            full = board + self.rng.sample(pool, need)
            a, b = evaluate_many(full, [mine, theirs])
            won += 1.0 if a > b else 0.5 if a == b else 0.0
        return won / trials

    def _planted(self, state: TableState, prompt: dict[str, Any], command: Command, me: str,
                 live: list[str | None]) -> Command | None:
        seat = int(prompt["seat_index"])
        actions = prompt["actions"]
        to_call = int(prompt["to_call"])
        rng = self.rng
        bb = self.bb
        heads_up = live[0] if len(live) == 1 else None
        taker = self.dump_taker.get(me)
        if taker is not None and self.budget.get(me, 0.0) > 0:
            if heads_up == taker:
                return self._dump(state, prompt, taker)
            if taker in live and command.kind == "fold" and "call" in actions \
                    and to_call <= 3 * bb and rng.random() < 0.5:
                return Call(seat_index=seat)  # the giver stays in the taker's pots
        if heads_up is not None and self.dump_taker.get(heads_up) == me \
                and self.budget.get(heads_up, 0.0) > 0:
            return self._take(state, prompt, command, heads_up)
        friends = self.soft_with.get(me)
        if friends and heads_up in friends:
            if command.kind in ("bet", "raise_to", "all_in"):
                return Call(seat_index=seat) if "call" in actions else Check(seat_index=seat)
        return None

    def _dump(self, state: TableState, prompt: dict[str, Any], taker: str) -> Command:
        """The giver, heads-up against its taker with budget left: lose a part of it."""
        seat = int(prompt["seat_index"])
        hand = state.hand
        assert hand is not None
        giver = hand.player_ids[seat]
        assert giver is not None
        to_call = int(prompt["to_call"])
        pot = sum(hand.committed)
        if self._heads_up_equity(state, seat, taker) >= 0.5:
            # ahead: let the taker bet, and fold to it (what is forfeited is the pot)
            if to_call > 0:
                self.budget[giver] -= max(pot, to_call)
                return Fold(seat_index=seat)
            return Check(seat_index=seat)
        # behind: put a part of the budget in (the taker calls it)
        amount = int(self.rng.uniform(0.3, 1.0) * self.budget[giver])
        if prompt["min_raise_to"] is None or amount < to_call + self.bb:
            self.budget[giver] -= to_call
            return Call(seat_index=seat) if to_call > 0 else Check(seat_index=seat)
        self.budget[giver] -= amount
        return _raise(prompt, hand.current_bet + amount)

    def _take(self, state: TableState, prompt: dict[str, Any], command: Command,
              giver: str) -> Command:
        """The taker, heads-up against its giver with budget left: call when ahead, bet when
        behind (the giver folds)."""
        seat = int(prompt["seat_index"])
        to_call = int(prompt["to_call"])
        ahead = self._heads_up_equity(state, seat, giver) > 0.5
        hand = state.hand
        assert hand is not None
        if to_call > 0:
            if ahead and "call" in prompt["actions"]:
                return Call(seat_index=seat)
            return command
        if ahead or prompt["min_raise_to"] is None:
            return Check(seat_index=seat)
        return _raise(prompt, int(self.rng.uniform(0.4, 1.0) * sum(hand.committed)))

    def _styled(self, prompt: dict[str, Any], command: Command, me: str) -> Command:
        style = STYLES[self.style[me]]
        seat = int(prompt["seat_index"])
        actions = prompt["actions"]
        to_call = int(prompt["to_call"])
        rng = self.rng
        bb = self.bb
        if command.kind == "fold" and "call" in actions and to_call <= 10 * bb \
                and rng.random() < style.loose:
            return Call(seat_index=seat)
        if command.kind == "call" and to_call > 2 * bb and rng.random() < style.tight:
            return Fold(seat_index=seat)
        if command.kind in ("check", "call") and prompt["min_raise_to"] is not None \
                and rng.random() < style.aggressive:
            return _raise(prompt, int(prompt["min_raise_to"]) + to_call + 3 * bb)
        return command


POSTFLOP_TRIALS = 150
"""The BOT's Monte Carlo deals after the flop, at most (it deals up to 1,000: within about
0.04 of its equity, five times faster)."""


class _Decider:
    """:func:`naiko.bots.decide` for betting, faster (a simulation's time is the BOT's Monte
    Carlo): its preflop equities cached (before the flop a hand's equity against random hands
    depends only on its ranks, whether it is suited and the number of opponents, and most
    decisions are made there; the cache is filled by the BOT's own estimate) and fewer deals
    after the flop (:data:`POSTFLOP_TRIALS`)."""

    def __init__(self) -> None:
        self.preflop: dict[tuple[int, int, bool, int], float] = {}

    def decide(self, view: dict[str, Any], rng: random.Random) -> Command:
        prompt = view["prompt"]
        k = read_view(view)
        assert k is not None and k.peek is None  # cash tables: no powers
        rnd = random.Random(rng.randrange(1 << 62))
        return _legal(_betting_choice(prompt, k, self.equity(k, rnd), rnd), prompt)

    def equity(self, k: Knowledge, rnd: random.Random) -> float:
        if k.board:
            trials = min(POSTFLOP_TRIALS, trials_for(len(k.hole), len(k.board), k.opponents))
            return estimate_equity(k.hole, k.board, k.opponents, rnd, trials=trials)
        a, b = sorted((rank_of(c) for c in k.hole), reverse=True)
        key = (a, b, k.hole[0] & 3 == k.hole[1] & 3, k.opponents)
        found = self.preflop.get(key)
        if found is None:  # seeded by the key: the same in every process, in any order
            seeded = random.Random(f"{key}")
            found = self.preflop[key] = estimate_equity(k.hole, (), k.opponents, seeded)
        return found


def _raise(prompt: dict[str, Any], amount: int) -> Command:
    low, high = int(prompt["min_raise_to"]), int(prompt["max_raise_to"])
    amount = max(low, min(high, amount))
    seat = int(prompt["seat_index"])
    if "bet" in prompt["actions"]:
        return Bet(seat_index=seat, amount=amount)
    return RaiseTo(seat_index=seat, amount=amount)


def simulate(hands: int, seed: int | str = 0, plan: Plan | None = None,
             part: tuple[int, int] = (0, 1)) -> tuple[Iterator[HandRecord], Truth]:
    """About *hands* hands (whole sessions) of a planted population, and what was planted.

    The records are generated lazily (a review can take them one at a time). Each session
    draws from its own generator (seeded by *seed* and its number), so that *part* ``(i, n)``
    plays only the sessions numbered ``i`` modulo ``n``: *n* parts played apart (in parallel)
    are together the records of one whole run.
    """
    plan = plan or Plan()
    population = _Population(plan, random.Random(seed))
    index, parts = part
    sessions = -(-hands // plan.hands_per_session)

    def records() -> Iterator[HandRecord]:
        for number in range(index, sessions, parts):
            population.rng = random.Random(f"{seed}/session/{number}")
            clock = [1_767_225_600_000 + number * plan.hands_per_session * 30_000]
            yield from population.play_session(number, clock)

    return records(), population.truth
