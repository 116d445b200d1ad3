""":mod:`naiko_service.integrity.analysis`: flags of chip dumping, soft play and
multi-accounting from stored hands (R10.3).

Each hand is replayed from its stored log (every hole card is in it) into :class:`HandFacts`:

- **flow**: who lost chips to whom (each loser's loss shared among the winners by what they
  won);
- **giveaways**: decisions that handed chips to an opponent *given the cards*: folding a strong
  hand (strong against a random hand, what the folder could know, and ahead or close against
  the hands actually held) facing that opponent's bet, by the chips the fold forfeited
  (equity × pot after a call − the call); or putting chips in with a weak hand, far behind
  what the opponent held, by the chips expected to be lost. Only a decision in a hand the giver
  lost and the taker won counts. A cooler (a strong hand beaten by a stronger one) is not a
  giveaway: the caller's hand was strong;
- **heads-up rounds**: postflop betting rounds that two players began alone (nobody else
  left, neither all-in), and whether either bet or raised in it.

:class:`Review` sums them per pair of accounts and scores (:meth:`Review.flags`):

- **dumping** (giver → taker): how improbable the count of giveaway hands is against what
  the giver gives everybody else and what the population gives, a Poisson tail as
  ``-log10`` (score 3: one chance in a thousand), with the chips given above a floor;
- **soft play** (a pair): how improbable it is that two players so rarely bet into each other
  heads-up, given how often each bets heads-up against others, a binomial tail as ``-log10``;
- **ring** (multi-accounting): accounts that nearly always sit together (each pair's shared
  hands over the less active account's hands) and soft-play each other, as a group.

Equities are Monte Carlo or exact enumeration, seeded by the hand's identity: a review of the
same hands gives the same flags. Thresholds are :class:`Thresholds` (the published ones are
its defaults, measured in ``docs/integrity.md``).
"""

from __future__ import annotations

import math
import random
import zlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from naiko.bots import estimate_equity
from naiko.cards import Card, parse_cards
from naiko.evaluator import evaluate_many, evaluate_omaha
from naiko.events import (
    ActionTaken,
    AntePosted,
    BlindPosted,
    BoardDealt,
    HandStarted,
    HoleCardsDealt,
    Move,
    SleeveSwapResult,
    UncalledBetReturned,
)

from ..hand_records import HandRecord

HandKey = tuple[str, int]
"""A hand's identity: table id, hand number."""

ABSOLUTE_TRIALS = 160
"""Monte Carlo trials of a hand's equity against one random hand (what a player knows)."""
ACTUAL_TRIALS = 240
"""Monte Carlo trials against the hands actually held, when three or more board cards are to
come (two or fewer are enumerated exactly)."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """What makes a decision a giveaway, and a score a flag (the published defaults)."""

    strong_fold: float = 0.66
    """A folded hand is strong from this equity against one random hand..."""
    fold_ahead: float = 0.45
    """...and ahead or close from this equity against the hands actually held."""
    weak_call: float = 0.42
    """Chips put in are weak from below this equity against one random hand..."""
    call_behind: float = 0.25
    """...and far behind from below this equity against the hands held."""
    min_chips_bb: float = 4.0
    """A giveaway counts from this many big blinds at stake."""
    dumping_score: float = 4.0
    """A directed pair is flagged from this ``-log10`` tail."""
    dumping_min_bb: float = 40.0
    """...and at least this many big blinds given away to that player."""
    soft_score: float = 4.0
    """A pair is flagged for soft play from this ``-log10`` tail..."""
    soft_min_rounds: int = 12
    """...over at least this many heads-up rounds."""
    ring_coseating: float = 0.85
    """Accounts are a ring's edge from this share of the less active one's hands together..."""
    ring_soft: float = 2.0
    """...and a soft-play tail of at least this (a ring edge needs both)."""
    min_shared_hands: int = 30
    """Pairs with fewer hands together are not scored."""


@dataclass(frozen=True, slots=True)
class Giveaway:
    """A decision that gave *taker* chips given the cards (see the module's text)."""

    giver: str
    taker: str
    chips: float
    """Expected chips handed over by the decision (big blinds in :class:`HandFacts`)."""
    reason: str
    """``folded_strong`` or ``put_in_weak``."""
    street: str


@dataclass(frozen=True, slots=True)
class HeadsUpRound:
    """A postflop betting round two players began alone."""

    pair: tuple[str, str]
    """Sorted player ids."""
    aggressive: bool
    """Either bet or raised in it."""


@dataclass(slots=True)
class HandFacts:
    """What one stored hand says about pairs of its players (chips in big blinds)."""

    key: HandKey
    players: tuple[str, ...]
    kind: str
    flow: dict[tuple[str, str], float] = field(default_factory=dict)
    """(loser, winner) -> big blinds."""
    giveaways: list[Giveaway] = field(default_factory=list)
    rounds: list[HeadsUpRound] = field(default_factory=list)


class _Equity:
    """Equities with a per-hand seeded generator and a cache of hand strength."""

    def __init__(self) -> None:
        self.absolute_cache: dict[tuple[tuple[Card, ...], tuple[Card, ...]], float] = {}

    def absolute(self, hole: Sequence[Card], board: Sequence[Card], rnd: random.Random) -> float:
        """Equity against one random hand: what the player could know of their hand."""
        key = (tuple(sorted(hole)), tuple(sorted(board)))
        found = self.absolute_cache.get(key)
        if found is None:
            found = estimate_equity(list(hole), list(board), 1, rnd, trials=ABSOLUTE_TRIALS)
            self.absolute_cache[key] = found
        return found

    @staticmethod
    def actual(hole: Sequence[Card], others: Sequence[Sequence[Card]], board: Sequence[Card],
               rnd: random.Random) -> float:
        """Equity of *hole* against the hands *others* held (ties share)."""
        if not others:
            return 1.0
        known = set(hole) | set(board)
        for other in others:
            known |= set(other)
        pool = [c for c in range(52) if c not in known]
        need = 5 - len(board)
        if need <= 0:
            runouts: Iterable[Sequence[Card]] = [()]
        elif need <= 2:
            runouts = combinations(pool, need)
        else:
            runouts = (rnd.sample(pool, need) for _ in range(ACTUAL_TRIALS))
        omaha = len(hole) == 4
        won = 0.0
        count = 0
        for extra in runouts:
            full = [*board, *extra]
            if omaha:
                values = [evaluate_omaha(h, full) for h in (hole, *others)]
            else:
                values = evaluate_many(full, [list(hole), *[list(o) for o in others]])
            best = max(values)
            if values[0] == best:
                won += 1.0 / values.count(best)
            count += 1
        return won / count


def hand_facts(record: HandRecord, thresholds: Thresholds | None = None,
               equity: _Equity | None = None) -> HandFacts | None:
    """The facts of one stored hand, or ``None`` when it tells nothing (cancelled, or its log
    was not kept)."""
    if record.cancelled is not None or record.state is None:
        return None
    t = thresholds or Thresholds()
    eq = equity or _Equity()
    big_blind = max(1, int(record.config.get("big_blind", 1)))
    facts = HandFacts(record.key, record.players, record.kind)
    results = record.results
    losers = {p: -r for p, r in results.items() if r < 0}
    winners = {p: r for p, r in results.items() if r > 0}
    total_won = sum(winners.values())
    for loser, lost in losers.items():
        for winner, won in winners.items():
            facts.flow[(loser, winner)] = lost * won / total_won / big_blind
    _Replay(record, facts, t, eq, big_blind).run()
    return facts


class _Replay:
    """One pass over a hand's log: pot and bets at each decision, cards held, rounds."""

    def __init__(self, record: HandRecord, facts: HandFacts, t: Thresholds, eq: _Equity,
                 big_blind: int) -> None:
        self.record, self.facts, self.t, self.eq, self.bb = record, facts, t, eq, big_blind
        self.player = {s.seat_index: s.player_id for s in record.seats}
        self.rnd = random.Random(zlib.crc32(f"{record.table_id}#{record.hand_number}".encode()))
        self.holes: dict[int, list[Card]] = {}
        self.board: list[Card] = []
        self.street = "preflop"
        self.street_bet: dict[int, int] = defaultdict(int)
        self.total_in: dict[int, int] = defaultdict(int)
        self.live: set[int] = set()
        self.all_in: set[int] = set()
        self.aggressor: int | None = None
        self.round_pair: tuple[int, int] | None = None
        self.round_aggressive = False
        self.pending: list[Giveaway] = []

    def run(self) -> None:
        for event in self.record.events():
            if isinstance(event, HandStarted):
                self.live = set(event.seats_dealt)
                self.aggressor = event.big_blind_seat
            elif isinstance(event, AntePosted | BlindPosted):
                self._put(event.seat_index, event.amount, bool(event.all_in),
                          street=isinstance(event, BlindPosted) and event.blind != "dead")
            elif isinstance(event, HoleCardsDealt):
                self.holes[event.seat_index] = parse_cards(event.cards)
            elif isinstance(event, SleeveSwapResult):
                self.holes[event.seat_index] = parse_cards(event.cards)
            elif isinstance(event, BoardDealt):
                self._new_street(event.street, parse_cards(event.board))
            elif isinstance(event, ActionTaken):
                self._action(event)
            elif isinstance(event, UncalledBetReturned):
                self.total_in[event.seat_index] -= event.amount
        self._close_round()
        results = self.record.results
        for g in self.pending:
            if results.get(g.giver, 0) < 0 < results.get(g.taker, 0):
                self.facts.giveaways.append(g)

    def _put(self, seat: int, amount: int, all_in: bool, street: bool = True) -> None:
        if street:
            self.street_bet[seat] += amount
        self.total_in[seat] += amount
        if all_in:
            self.all_in.add(seat)

    def _new_street(self, street: str, board: list[Card]) -> None:
        self._close_round()
        self.street, self.board = street, board
        self.street_bet.clear()
        self.aggressor = None
        contenders = sorted(s for s in self.live if s not in self.all_in)
        if len(self.live) == 2 and len(contenders) == 2:
            self.round_pair = (contenders[0], contenders[1])
            self.round_aggressive = False

    def _close_round(self) -> None:
        if self.round_pair is not None:
            a, b = (self.player[s] for s in self.round_pair)
            pair = (a, b) if a < b else (b, a)
            self.facts.rounds.append(HeadsUpRound(pair, self.round_aggressive))
        self.round_pair = None

    def _action(self, e: ActionTaken) -> None:
        seat = e.seat_index
        pot = sum(self.total_in.values())
        to_call = max(self.street_bet.values(), default=0) - self.street_bet[seat]
        if e.action is Move.FOLD:
            if to_call > 0:
                self._fold(seat, pot, to_call)
            self.live.discard(seat)
            return
        if e.action is Move.CHECK:
            return
        if e.action is Move.CALL:
            chips = int(e.amount or 0)
        else:
            chips = int(e.to or 0) - self.street_bet[seat]
            self.aggressor = seat
            self.round_aggressive = True
        self._put_in(seat, pot, chips)
        self._put(seat, chips, bool(e.all_in))

    def _others(self, seat: int) -> list[int]:
        return sorted(s for s in self.live if s != seat and s in self.holes)

    def _fold(self, seat: int, pot: int, to_call: int) -> None:
        hole = self.holes.get(seat)
        others = self._others(seat)
        if hole is None or len(others) != 1 or (to_call + pot) < self.t.min_chips_bb * self.bb:
            return
        if self.eq.absolute(hole, self.board, self.rnd) < self.t.strong_fold:
            return
        share = self.eq.actual(hole, [self.holes[s] for s in others], self.board, self.rnd)
        if share < self.t.fold_ahead:
            return
        forfeited = share * (pot + to_call) - to_call
        taker = self.aggressor if self.aggressor in others else None
        if forfeited > 0 and taker is not None:
            self.pending.append(Giveaway(self.player[seat], self.player[taker],
                                         forfeited / self.bb, "folded_strong", self.street))

    def _put_in(self, seat: int, pot: int, chips: int) -> None:
        hole = self.holes.get(seat)
        others = self._others(seat)
        if hole is None or len(others) != 1 or chips < self.t.min_chips_bb * self.bb:
            return
        if self.eq.absolute(hole, self.board, self.rnd) >= self.t.weak_call:
            return
        share = self.eq.actual(hole, [self.holes[s] for s in others], self.board, self.rnd)
        if share >= self.t.call_behind:
            return
        expected_loss = chips - share * (pot + chips)
        if expected_loss <= 0:
            return
        results = self.record.results
        taker = max(others, key=lambda s: results.get(self.player[s], 0))
        self.pending.append(Giveaway(self.player[seat], self.player[taker],
                                     expected_loss / self.bb, "put_in_weak", self.street))


# -- the review --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Flag:
    """One finding for a person to review (never shown to other players)."""

    kind: str
    """``dumping``, ``soft_play`` or ``ring``."""
    accounts: tuple[str, ...]
    """Dumping: (giver, taker); soft play: the pair (sorted); ring: the group (sorted)."""
    score: float
    """``-log10`` of the chance of what was seen if the accounts were independent."""
    hands: tuple[HandKey, ...]
    """The hands that raised it (most telling first; at most :data:`EVIDENCE_HANDS`)."""
    details: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "accounts": list(self.accounts),
                "score": round(self.score, 2), "details": self.details,
                "hands": [{"table_id": t, "hand_number": n} for t, n in self.hands]}


EVIDENCE_HANDS = 20
PRIOR_HANDS = 200
"""Weight, in hands, of the population's rate in a player's own rate (shrinkage)."""
KINDS = ("dumping", "soft_play", "ring")


def poisson_tail(observed: int, expected: float) -> float:
    """``-log10 P(X >= observed)`` for X ~ Poisson(*expected*) (0 when nothing is unusual).

    >>> round(poisson_tail(10, 2.0), 2)
    4.33
    >>> poisson_tail(0, 3.0)
    0.0
    """
    if observed <= 0 or observed <= expected:
        return 0.0
    expected = max(expected, 1e-9)
    term = math.exp(-expected)
    below = 0.0
    for k in range(observed):
        below += term
        term *= expected / (k + 1)
    tail = max(1.0 - below, 0.0)
    if tail <= 1e-300:  # 1 - below loses every digit: sum the tail's terms instead
        log_term = -expected + observed * math.log(expected) - math.lgamma(observed + 1)
        return -log_term / math.log(10)
    return -math.log10(tail)


def binomial_low_tail(observed: int, trials: int, p: float) -> float:
    """``-log10 P(X <= observed)`` for X ~ Binomial(*trials*, *p*).

    >>> round(binomial_low_tail(0, 20, 0.4), 2)
    4.44
    >>> binomial_low_tail(8, 20, 0.4)
    0.0
    """
    if trials <= 0 or observed >= trials * p:
        return 0.0
    p = min(max(p, 1e-9), 1 - 1e-9)
    log_terms = [math.lgamma(trials + 1) - math.lgamma(k + 1) - math.lgamma(trials - k + 1)
                 + k * math.log(p) + (trials - k) * math.log(1 - p) for k in range(observed + 1)]
    top = max(log_terms)
    log_tail = top + math.log(sum(math.exp(x - top) for x in log_terms))
    return max(0.0, -log_tail / math.log(10))


class Review:
    """Per-pair sums over many hands, then :meth:`flags`. Feed it with :meth:`add`."""

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.t = thresholds or Thresholds()
        self._equity = _Equity()
        self.hands = 0
        self.hands_of: dict[str, int] = defaultdict(int)
        self.shared: dict[tuple[str, str], int] = defaultdict(int)
        """Sorted pair -> hands both were dealt in."""
        self.flow: dict[tuple[str, str], float] = defaultdict(float)
        self.given: dict[tuple[str, str], list[tuple[float, HandKey, str]]] = defaultdict(list)
        """(giver, taker) -> (big blinds, hand, reason) per giveaway hand."""
        self.rounds: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        """Sorted pair -> [heads-up rounds, aggressive ones]."""
        self.passive_hands: dict[tuple[str, str], list[HandKey]] = defaultdict(list)
        self.private_pairs: set[tuple[str, str]] = set()

    def add(self, record: HandRecord) -> None:
        """Take one stored hand into the review."""
        facts = hand_facts(record, self.t, self._equity)
        if facts is not None:
            self.add_facts(facts)

    def add_facts(self, facts: HandFacts) -> None:
        """Take one hand's facts into the review (:func:`hand_facts`)."""
        self.hands += 1
        players = sorted(set(facts.players))
        for p in players:
            self.hands_of[p] += 1
        for pair in combinations(players, 2):
            self.shared[pair] += 1
            if facts.kind == "private":
                self.private_pairs.add(pair)
        for pair, bb in facts.flow.items():
            self.flow[pair] += bb
        merged: dict[tuple[str, str], tuple[float, str]] = {}
        for g in facts.giveaways:
            chips, reason = merged.get((g.giver, g.taker), (0.0, g.reason))
            merged[(g.giver, g.taker)] = (chips + g.chips, reason)
        for pair, (chips, reason) in merged.items():
            self.given[pair].append((chips, facts.key, reason))
        for r in facts.rounds:
            counts = self.rounds[r.pair]
            counts[0] += 1
            counts[1] += int(r.aggressive)
            if not r.aggressive and len(self.passive_hands[r.pair]) < 4 * EVIDENCE_HANDS:
                if not self.passive_hands[r.pair] or self.passive_hands[r.pair][-1] != facts.key:
                    self.passive_hands[r.pair].append(facts.key)

    def add_all(self, records: Iterable[HandRecord]) -> Review:
        for record in records:
            self.add(record)
        return self

    # -- scores ----------------------------------------------------------------------------

    def _shared(self, a: str, b: str) -> int:
        return self.shared.get((a, b) if a < b else (b, a), 0)

    def dumping_scores(self) -> dict[tuple[str, str], float]:
        """(giver, taker) -> the Poisson tail of its giveaway hands (pairs with enough hands)."""
        given_hands: dict[str, int] = defaultdict(int)
        opponent_hands: dict[str, int] = defaultdict(int)
        for (a, _b), items in self.given.items():
            given_hands[a] += len(items)
        for (a, b), n in self.shared.items():
            opponent_hands[a] += n
            opponent_hands[b] += n
        total_given = sum(given_hands.values())
        total_pairs = sum(opponent_hands.values())
        population = total_given / total_pairs if total_pairs else 0.0
        scores: dict[tuple[str, str], float] = {}
        for (giver, taker), items in self.given.items():
            n = self._shared(giver, taker)
            if n < self.t.min_shared_hands:
                continue
            elsewhere_hands = opponent_hands[giver] - n
            # the giver's own rate with everybody else, shrunk toward the population's when
            # the giver has few other hands (a bad player gives to everyone: not dumping)
            elsewhere = (given_hands[giver] - len(items) + PRIOR_HANDS * population) \
                / (max(elsewhere_hands, 0) + PRIOR_HANDS)
            rate = max(population, elsewhere)
            scores[(giver, taker)] = poisson_tail(len(items), n * rate)
        return scores

    def soft_scores(self) -> dict[tuple[str, str], float]:
        """Sorted pair -> the binomial tail of its few aggressive heads-up rounds."""
        total: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for (a, b), (n, k) in self.rounds.items():
            for p in (a, b):
                total[p][0] += n
                total[p][1] += k
        all_n = sum(n for n, _ in self.rounds.values())
        all_k = sum(k for _, k in self.rounds.values())
        population = all_k / all_n if all_n else 0.5
        scores: dict[tuple[str, str], float] = {}
        for pair, (n, k) in self.rounds.items():
            rates = []
            for p in pair:
                other_n = total[p][0] - n
                other_k = total[p][1] - k
                # shrunk toward the population's rate when a player has few other rounds
                rates.append((other_k + 10 * population) / (other_n + 10))
            scores[pair] = binomial_low_tail(k, n, sum(rates) / 2)
        return scores

    def coseating(self, a: str, b: str) -> float:
        """Hands together over the less active account's hands."""
        least = min(self.hands_of.get(a, 0), self.hands_of.get(b, 0))
        return self._shared(a, b) / least if least else 0.0

    def flags(self) -> list[Flag]:
        """Every flag, highest score first."""
        t = self.t
        out: list[Flag] = []
        for (giver, taker), score in self.dumping_scores().items():
            items = self.given[(giver, taker)]
            chips = sum(c for c, _, _ in items)
            if score < t.dumping_score or chips < t.dumping_min_bb:
                continue
            top = sorted(items, key=lambda x: -x[0])[:EVIDENCE_HANDS]
            reasons: dict[str, int] = defaultdict(int)
            for _, _, reason in items:
                reasons[reason] += 1
            out.append(Flag("dumping", (giver, taker), score, tuple(k for _, k, _ in top), {
                "hands_together": self._shared(giver, taker),
                "giveaway_hands": len(items), "given_bb": round(chips, 1),
                "flow_bb": round(self.flow.get((giver, taker), 0.0)
                                 - self.flow.get((taker, giver), 0.0), 1),
                "reasons": dict(reasons)}))
        soft = self.soft_scores()
        for pair, score in soft.items():
            n, k = self.rounds[pair]
            if score < t.soft_score or n < t.soft_min_rounds:
                continue
            out.append(Flag("soft_play", pair, score,
                            tuple(self.passive_hands[pair][:EVIDENCE_HANDS]),
                            {"heads_up_rounds": n, "aggressive_rounds": k,
                             "hands_together": self._shared(*pair)}))
        out.extend(self._rings(soft))
        out.sort(key=lambda f: (-f.score, f.kind, f.accounts))
        return out

    def _rings(self, soft: dict[tuple[str, str], float]) -> list[Flag]:
        t = self.t
        edges = [pair for pair, score in soft.items()
                 if score >= t.ring_soft and self._shared(*pair) >= t.min_shared_hands
                 and self.coseating(*pair) >= t.ring_coseating]
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in edges:
            parent[find(a)] = find(b)
        groups: dict[str, list[str]] = defaultdict(list)
        for x in list(parent):
            groups[find(x)].append(x)
        flags = []
        for members in groups.values():
            if len(members) < 3:
                continue  # two accounts: the soft-play flag already names them
            members.sort()
            inner = [p for p in edges if p[0] in members and p[1] in members]
            score = sum(soft[p] for p in inner) / len(inner)
            hands = [k for p in inner for k in self.passive_hands[p][:3]]
            flags.append(Flag("ring", tuple(members), score, tuple(hands[:EVIDENCE_HANDS]), {
                "coseating": round(min(self.coseating(*p) for p in inner), 3),
                "edges": len(inner),
                "private_tables": any(p in self.private_pairs for p in inner)}))
        return flags


def review(records: Iterable[HandRecord], thresholds: Thresholds | None = None) -> list[Flag]:
    """The flags of *records*, highest score first."""
    return Review(thresholds).add_all(records).flags()
