""":mod:`naiko_service.integrity.population`: a simulated population of BOT accounts with
planted colluders and innocent look-alikes, to measure the review (R10.3).

Sessions of 6-max No-Limit Hold'em (blinds 1/2, 100 big blinds, busted stacks reloaded) are
played on the pure engine (:func:`naiko.engine.apply`), every decision from
:func:`naiko.bots.decide` on the seat's own view, varied by a per-account **style** (loose or
tight, aggressive or passive: a share of folds turned into calls, of checks and calls into bets
and raises, and of cheap calls into folds). Each hand becomes the
:class:`~naiko_service.hand_records.HandRecord` the service would store.

Planted, each a group that sits down together at most of its sessions:

- **dumping pairs** (giver → taker): in a share of the spots where the taker is in the pot,
  the giver folds a strong hand to the taker's bet, calls the taker's bet with a weak one, and
  heads-up against the taker with a weak hand shoves (the taker calls it);
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

from naiko.bots import decide, estimate_equity
from naiko.cards import shuffled_deck
from naiko.commands import AddChips, Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import apply, legal_actions
from naiko.evaluator import evaluate
from naiko.events import HandStarted
from naiko.state import TableConfig, TableState
from naiko.views import view_for

from ..hand_records import HandRecord, build

STACK = 200
BIG_BLIND = 2
SEATS = 6
MAX_COMMANDS = 400


@dataclass(frozen=True, slots=True)
class Style:
    """How an account departs from the plain BOT."""

    loose: float = 0.0
    """Share of folds facing a bet of at most a tenth of the stack turned into calls."""
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

    accounts: int = 60
    dumping_pairs: int = 4
    soft_pairs: int = 4
    rings: int = 1
    innocent_friend_pairs: int = 4
    lucky_pairs: int = 3
    hands_per_session: int = 40
    dump_rate: float = 0.5
    """Chance a dumping giver dumps in a spot where it can (folds to the taker, or shoves)."""
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

    # -- sessions ------------------------------------------------------------------------------

    def session_players(self) -> tuple[list[str], str]:
        """Who sits at the next session's table, and the table's kind."""
        rng = self.rng
        players: list[str] = []
        kind = "cash"
        if rng.random() < 0.6:
            group_kind, members = rng.choice(self.groups)
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
        state = TableState.new(TableConfig(seat_count=SEATS, small_blind=BIG_BLIND // 2,
                                           big_blind=BIG_BLIND))
        for seat, player in enumerate(players):
            state, _ = apply(state, SitDown(seat_index=seat, player_id=player, stack=STACK,
                                            is_bot=True))
        table_id = f"sim-{number:05d}"
        for hand in range(self.plan.hands_per_session):
            for seat, s in enumerate(state.seats):
                if s is not None and s.stack < STACK:
                    state, _ = apply(state, AddChips(seat_index=seat, amount=STACK - s.stack))
            button = self.rng.randrange(SEATS) if hand == 0 else None
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
            command = decide(view, self.rng)
            assert command is not None
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

    def _planted(self, state: TableState, prompt: dict[str, Any], command: Command, me: str,
                 live: list[str | None]) -> Command | None:
        seat = int(prompt["seat_index"])
        actions = prompt["actions"]
        rng = self.rng
        taker = self.dump_taker.get(me)
        if taker is not None and taker in live and rng.random() < self.plan.dump_rate:
            hand = state.hand
            assert hand is not None
            # the giver knows its own cards: it keeps strong hands from the taker's pots and
            # shoves weak ones into them
            weak = estimate_equity(hand.hole[seat], hand.board, 1, rng, trials=60) < 0.45
            if prompt["to_call"] > 0 and not weak:
                return Fold(seat_index=seat)
            if weak and len(live) == 1 and prompt["max_raise_to"] is not None:
                return _raise(prompt, int(prompt["max_raise_to"]))
            if weak and prompt["to_call"] > 0 and "call" in actions:
                return Call(seat_index=seat)
        if taker is not None and taker in live and command.kind == "fold" \
                and "call" in actions and prompt["to_call"] <= 5 * BIG_BLIND:
            return Call(seat_index=seat)  # the giver stays in the taker's pots
        givers = [g for g in live if g is not None and self.dump_taker.get(g) == me]
        if givers and prompt["to_call"] > 0 and "call" in actions and (
                len(live) == 1 or command.kind == "fold" and prompt["to_call"] <= 5 * BIG_BLIND):
            return Call(seat_index=seat)  # the taker joins the giver's pots, takes its shoves
        friends = self.soft_with.get(me)
        if friends and len(live) == 1 and live[0] in friends:
            if command.kind in ("bet", "raise_to", "all_in"):
                return Call(seat_index=seat) if "call" in actions else Check(seat_index=seat)
        return None

    def _styled(self, prompt: dict[str, Any], command: Command, me: str) -> Command:
        style = STYLES[self.style[me]]
        seat = int(prompt["seat_index"])
        actions = prompt["actions"]
        to_call = int(prompt["to_call"])
        rng = self.rng
        if command.kind == "fold" and "call" in actions and to_call <= STACK // 10 \
                and rng.random() < style.loose:
            return Call(seat_index=seat)
        if command.kind == "call" and to_call > 2 * BIG_BLIND and rng.random() < style.tight:
            return Fold(seat_index=seat)
        if command.kind in ("check", "call") and prompt["min_raise_to"] is not None \
                and rng.random() < style.aggressive:
            return _raise(prompt, int(prompt["min_raise_to"]) + to_call + 3 * BIG_BLIND)
        return command


def _raise(prompt: dict[str, Any], amount: int) -> Command:
    low, high = int(prompt["min_raise_to"]), int(prompt["max_raise_to"])
    amount = max(low, min(high, amount))
    seat = int(prompt["seat_index"])
    if "bet" in prompt["actions"]:
        return Bet(seat_index=seat, amount=amount)
    return RaiseTo(seat_index=seat, amount=amount)


def simulate(hands: int, seed: int | str = 0, plan: Plan | None = None,
             ) -> tuple[Iterator[HandRecord], Truth]:
    """About *hands* hands (whole sessions) of a planted population, and what was planted.

    The records are generated lazily (a review can take them one at a time).
    """
    population = _Population(plan or Plan(), random.Random(seed))

    def records() -> Iterator[HandRecord]:
        clock = [1_767_225_600_000]
        played = 0
        number = 0
        while played < hands:
            for record in population.play_session(number, clock):
                played += 1
                yield record
            number += 1

    return records(), population.truth
