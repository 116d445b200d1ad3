""":mod:`naiko_service.integrity.analysis`: flags of chip dumping, soft play and
multi-accounting from stored hands (R10.3).

Each hand is replayed from its stored log (every hole card is in it) into :class:`HandFacts`:

- **flow**: who lost chips to whom (each loser's loss shared among the winners by what they
  won);
- **decisions**: every heads-up decision (the opponent the only other player left) with a
  stake of a few big blinds, given the cards both held: facing the opponent's bet while
  ahead of its hand (folding is the *telling* choice), facing it while behind (calling or
  raising is), or checked to while behind (betting is); each with its stratum (that
  situation, the street, the bin of the hand's strength against one random hand: what the
  player could know) and its stake;
- **giveaways** (the evidence): telling choices that handed chips over and that the hand
  does not explain (folding a hand that looked good, putting chips in with one that looked
  bad), in a hand the giver lost and the taker won, by the chips the fold forfeited (equity
  × pot after a call − the call) or the chips put in were expected to lose. A cooler (a
  strong hand beaten by a stronger one) is not a giveaway: the caller's hand was strong;
- **heads-up rounds**: postflop betting rounds that two players began alone (nobody else
  left, neither all-in), whether either bet or raised in it, and the strength bin of the
  stronger of the two hands on that street.

:class:`Review` sums them per pair of accounts and scores (:meth:`Review.flags`):

- **dumping** (giver → taker): how improbable the giver's telling choices against the taker
  are, each stratum's compared with the giver's own rate against everybody else, weighted by
  the stakes times the choices' surprise (:func:`surprise`), together with the taker's side
  (its bets behind into the giver when checked to, against its own rate elsewhere): the
  saddlepoint approximation of the weighted tail (:func:`saddlepoint_tail`), as ``-log10``
  (score 3: one chance in a thousand), with the chips given and the net chip flow one way;
- **soft play** (a pair): how improbable it is that two players so rarely bet into each other
  heads-up, each round compared with the two players' rounds of the same strength against
  others, an exact tail as ``-log10``;
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
    """What makes a decision telling, and a score a flag (the published defaults)."""

    ahead: float = 0.5
    """A player is ahead from this equity against the hand actually held (behind below it)."""
    gift_strength: float = 0.5
    """A telling choice is a giveaway (the evidence, and the big blinds given) when it is
    unexplained by the hand: a fold ahead with a hand of at least this equity against one
    random hand, chips put in behind with a weaker one."""
    min_chips_bb: float = 4.0
    """A decision counts from this many big blinds at stake (the pot and the price)."""
    max_weight_bb: float = 50.0
    """A decision weighs its stake in big blinds, up to this (no single pot decides)."""
    dumping_score: float = 2.5
    """A directed pair is flagged from this ``-log10`` tail (the saddlepoint approximation of
    the chance, :func:`saddlepoint_tail`: one chance in about 300 for a pair that plays
    independently; set from that chance, not from the planted pairs)..."""
    dumping_min_bb: float = 25.0
    """...with at least this many big blinds given away to that player (giveaways: in hands
    the giver lost and the taker won), and more than the taker gave back."""
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


STRENGTH_BINS = (0.35, 0.5, 0.65, 0.8)
"""Edges of the bins of a hand's strength (equity against one random hand) that stratify the
decisions: a player's choices are compared with their own in the same bin."""

CONTEXTS = ("ahead_facing_bet", "behind_facing_bet", "behind_checked_to")
"""A telling decision's situation: facing the opponent's bet while ahead of the hand it
holds (the telling choice: fold), facing it while behind (call or raise), or free to check
while behind (bet)."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A heads-up decision of *actor* against *opponent* given the cards both held."""

    actor: str
    opponent: str
    stratum: tuple[str, bool, int]
    """(context, preflop, strength bin): what the choice is compared with."""
    weight: float
    """The stake in big blinds (pot and price), capped at :attr:`Thresholds.max_weight_bb`."""
    telling: bool
    """It took the choice that hands chips over: folded ahead, put chips in behind."""
    gift: float
    """Big blinds the choice handed over given the cards: forfeited by a fold (equity x (pot
    + price) - price), expected to be lost by chips put in (chips - equity x pot after)."""
    street: str
    strength: float
    """Equity against one random hand: what the actor could know of its hand."""
    chips: float = 0.0
    """Big blinds the actor put in with the choice (0: a fold or a check)."""


@dataclass(frozen=True, slots=True)
class Giveaway:
    """A telling decision that gave *taker* chips, in a hand the giver lost and the taker won
    (the evidence a reviewer reads)."""

    giver: str
    taker: str
    chips: float
    """Big blinds handed over by the decision (:attr:`Decision.gift`)."""
    reason: str
    """``folded_ahead`` or ``put_in_behind``."""
    street: str


@dataclass(frozen=True, slots=True)
class HeadsUpRound:
    """A postflop betting round two players began alone."""

    pair: tuple[str, str]
    """Sorted player ids."""
    aggressive: bool
    """Either bet or raised in it."""
    strength_bin: int = 0
    """The bin (:data:`STRENGTH_BINS`) of the stronger of the two hands' strength on that
    street's board: a round with a strong hand in it is bet far more often than one with
    two weak ones, so checking it down tells more."""
    preflop: bool = False
    """Preflop, from the moment the two were left alone (the others folded, or only two were
    dealt in) with a choice still to make: compared only with preflop rounds."""


@dataclass(slots=True)
class HandFacts:
    """What one stored hand says about pairs of its players (chips in big blinds)."""

    key: HandKey
    players: tuple[str, ...]
    kind: str
    flow: dict[tuple[str, str], float] = field(default_factory=dict)
    """(loser, winner) -> big blinds."""
    decisions: list[Decision] = field(default_factory=list)
    giveaways: list[Giveaway] = field(default_factory=list)
    rounds: list[HeadsUpRound] = field(default_factory=list)


class Equities:
    """Equities with a per-hand seeded generator and a cache of hand strength."""

    def __init__(self) -> None:
        self.absolute_cache: dict[tuple[tuple[Card, ...], tuple[Card, ...]], float] = {}

    def absolute(self, hole: Sequence[Card], board: Sequence[Card]) -> float:
        """Equity against one random hand: what the player could know of their hand (its
        Monte Carlo seeded by the cards: the same cards, the same value, whichever hand or
        process asks first)."""
        key = (tuple(sorted(hole)), tuple(sorted(board)))
        found = self.absolute_cache.get(key)
        if found is None:
            rnd = random.Random(zlib.crc32(bytes([*key[0], 52, *key[1]])))
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
               equity: Equities | None = None) -> HandFacts | None:
    """The facts of one stored hand, or ``None`` when it tells nothing (cancelled, or its log
    was not kept)."""
    if record.cancelled is not None or record.state is None:
        return None
    t = thresholds or Thresholds()
    eq = equity or Equities()
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

    def __init__(self, record: HandRecord, facts: HandFacts, t: Thresholds, eq: Equities,
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
        self.round_bin = 0
        self.round_actions = 0
        self.pending: list[Decision] = []

    def run(self) -> None:
        for event in self.record.events():
            if isinstance(event, HandStarted):
                self.live = set(event.seats_dealt)
                self.aggressor = event.big_blind_seat
            elif isinstance(event, HoleCardsDealt) and len(self.live) == 2 \
                    and len(self.holes) == 1 and self.round_pair is None:
                self.holes[event.seat_index] = parse_cards(event.cards)
                self._begin_round()  # dealt in heads-up: preflop is a heads-up round
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
        self.facts.decisions.extend(self.pending)
        for d in self.pending:
            folded = d.stratum[0] == "ahead_facing_bet"
            # unexplained by the hand: folded a hand that looked good, or put chips in with
            # one that looked bad (a cooler's call, or a bluff that was called, is neither)
            unexplained = (d.strength >= self.t.gift_strength) == folded
            if d.telling and d.gift > 0 and unexplained \
                    and results.get(d.actor, 0) < 0 < results.get(d.opponent, 0):
                reason = "folded_ahead" if folded else "put_in_behind"
                self.facts.giveaways.append(Giveaway(d.actor, d.opponent, d.gift, reason,
                                                     d.street))

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
        self._begin_round()

    def _begin_round(self) -> None:
        """A heads-up round begins when two players are alone, neither all in: at a new
        street, or preflop when the others have folded (or only two were dealt in)."""
        contenders = sorted(s for s in self.live if s not in self.all_in)
        if len(self.live) != 2 or len(contenders) != 2:
            return
        self.round_pair = (contenders[0], contenders[1])
        self.round_aggressive = False
        self.round_actions = 0
        self.round_bin = max(
            (sum(1 for edge in STRENGTH_BINS if self.eq.absolute(self.holes[s], self.board) >= edge)
             for s in contenders if s in self.holes), default=0)

    def _close_round(self) -> None:
        # a preflop round counts when a choice was made in it (the others' folds may have
        # closed the betting: the big blind's option taken, nothing left to decide)
        if self.round_pair is not None and (self.street != "preflop" or self.round_actions):
            a, b = (self.player[s] for s in self.round_pair)
            pair = (a, b) if a < b else (b, a)
            self.facts.rounds.append(HeadsUpRound(pair, self.round_aggressive, self.round_bin,
                                                  self.street == "preflop"))
        self.round_pair = None

    def _action(self, e: ActionTaken) -> None:
        seat = e.seat_index
        pot = sum(self.total_in.values())
        to_call = max(self.street_bet.values(), default=0) - self.street_bet[seat]
        self.round_actions += 1
        if e.action is Move.FOLD:
            if to_call > 0:
                self._decision(seat, pot, to_call, 0)
            self.live.discard(seat)
            if self.street == "preflop" and self.round_pair is None:
                self._begin_round()  # the others folded: two left alone preflop
            return
        if e.action is Move.CHECK:
            self._decision(seat, pot, 0, 0)
            return
        if e.action is Move.CALL:
            chips = int(e.amount or 0)
        else:
            chips = int(e.to or 0) - self.street_bet[seat]
            self.aggressor = seat
            self.round_aggressive = True
        self._decision(seat, pot, to_call, chips)
        self._put(seat, chips, bool(e.all_in))

    def _others(self, seat: int) -> list[int]:
        return sorted(s for s in self.live if s != seat and s in self.holes)

    def _decision(self, seat: int, pot: int, to_call: int, chips: int) -> None:
        """A heads-up decision: folding (*chips* 0 facing *to_call*), checking (both 0) or
        putting *chips* in, with the pot *pot* before it."""
        hole = self.holes.get(seat)
        others = self._others(seat)
        t = self.t
        if hole is None or len(others) != 1 or pot + to_call < t.min_chips_bb * self.bb:
            return
        other = others[0]
        share = self.eq.actual(hole, [self.holes[other]], self.board, self.rnd)
        ahead = share >= t.ahead
        if to_call > 0:
            if ahead and self.aggressor != other:
                return  # ahead of a player who did not bet: nothing is asked of this one
            context = "ahead_facing_bet" if ahead else "behind_facing_bet"
            telling = (chips == 0) if ahead else (chips > 0)
        else:
            if ahead:
                return  # ahead and free to check: whatever it does gives nothing away
            context, telling = "behind_checked_to", chips > 0
        strength = self.eq.absolute(hole, self.board)
        strength_bin = sum(1 for edge in STRENGTH_BINS if strength >= edge)
        if chips == 0:
            gift = max(0.0, share * (pot + to_call) - to_call) if telling else 0.0
        else:
            gift = max(0.0, chips - share * (pot + chips)) if telling else 0.0
        weight = min((pot + to_call) / self.bb, t.max_weight_bb)
        self.pending.append(Decision(self.player[seat], self.player[other],
                                     (context, self.street == "preflop", strength_bin),
                                     weight, telling, gift / self.bb, self.street,
                                     strength, chips / self.bb))


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
PRIOR_DECISIONS = 20
"""Weight, in decisions, of the population's rate in a player's own rate in a stratum
(shrinkage: a player with few decisions there is compared with everybody)."""
KINDS = ("dumping", "soft_play", "ring")


def _saddlepoint(trials: Sequence[tuple[float, float]], target: float, scale: float) -> float:
    """The ``t >= 0`` at which the tilted mean of the weighted sum (the slope of its cumulant
    generating function, ``sum w p / (p + (1 - p) exp(-t w))``) reaches *target*: doubling
    from ``1 / scale`` (*scale* the largest weight) until it is passed or ``t`` reaches
    ``1e6 / scale``, then 60 halvings of the bracket. Serves :func:`weighted_tail` (the
    Chernoff bound's minimiser) and :func:`saddlepoint_tail` (the saddlepoint)."""

    def slope(t: float) -> float:
        return -target + sum(w * p / (p + (1 - p) * math.exp(-t * w)) for w, p in trials)

    low, high = 0.0, 1.0 / scale
    while slope(high) < 0 and high < 1e6 / scale:
        low, high = high, high * 2
    for _ in range(60):
        middle = (low + high) / 2
        if slope(middle) < 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def weighted_tail(trials: Sequence[tuple[float, float]], observed: float) -> float:
    """``-log10`` of the Chernoff bound on ``P(sum of w x >= observed)`` where each
    ``(w, p)`` of *trials* is an independent ``x`` ~ Bernoulli(*p*) weighing *w* (0 when the
    observed sum is not above its mean).

    The bound, ``min over t >= 0 of exp(-t observed) E[exp(t sum w x)]``, is never below the
    true tail: the score errs toward innocence. It is exact when a single rare choice is all
    that was seen (its chance), and grows with the number of shared decisions.

    >>> round(weighted_tail([(50.0, 0.05)], 50.0), 2)  # one fold of chance 0.05: 1.3
    1.3
    >>> round(weighted_tail([(1.0, 0.5)] * 20, 20.0), 2)  # 20 heads in 20 tosses
    6.02
    >>> weighted_tail([(1.0, 0.5)] * 20, 10.0)
    0.0
    """
    total = sum(w for w, _ in trials)
    mean = sum(w * p for w, p in trials)
    if observed <= mean or not trials:
        return 0.0
    if observed >= total * (1 - 1e-12):  # every choice taken: the product of the chances
        return -sum(math.log10(p) for w, p in trials if w > 0)
    scale = max(w for w, _ in trials)

    def log_bound(t: float) -> float:
        # log E[exp(t w x)] = t w + log(p + (1 - p) exp(-t w)), stable for large t w
        return -t * observed + sum(t * w + math.log(p + (1 - p) * math.exp(-t * w))
                                   for w, p in trials)

    return max(0.0, -log_bound(_saddlepoint(trials, observed, scale)) / math.log(10))


def saddlepoint_tail(trials: Sequence[tuple[float, float]], observed: float) -> float:
    """``-log10 P(sum of w x >= observed)`` as :func:`weighted_tail`, but the chance itself
    (the Lugannani-Rice saddlepoint approximation, with a continuity correction of half the
    smallest weight) rather than the Chernoff bound on it, which overstates the chance
    several times over (5 to 7 times at a chance of 1 in 100). Measured against exact
    tails of binomial and mixed-weight sums it is within 0.1 of the exact score, on the
    low side. It is never below the Chernoff score, and never above it by more than
    ``log10(6 r)`` (*r* the saddlepoint's normal deviate: a guard where the approximation
    would be far off, the tiny chances of huge stakes).

    >>> round(saddlepoint_tail([(1.0, 0.5)] * 20, 15.0), 2)  # exact: 1.68 (P = 0.0207)
    1.67
    >>> round(weighted_tail([(1.0, 0.5)] * 20, 15.0), 2)  # the Chernoff bound
    1.14
    >>> saddlepoint_tail([(1.0, 0.5)] * 20, 10.0)
    0.0
    """
    bound = weighted_tail(trials, observed)
    total = sum(w for w, _ in trials)
    if bound <= 0.0 or observed >= total * (1 - 1e-12):
        return bound  # at or below the mean, or every choice taken (already exact)
    corrected = observed - min(w for w, _ in trials if w > 0) / 2
    mean = sum(w * p for w, p in trials)
    if corrected <= mean:
        return bound
    t = _saddlepoint(trials, corrected, max(w for w, _ in trials))
    cumulant = sum(t * w + math.log(p + (1 - p) * math.exp(-t * w)) for w, p in trials)
    variance = 0.0
    for w, p in trials:
        tilted = p / (p + (1 - p) * math.exp(-t * w))
        variance += w * w * tilted * (1 - tilted)
    root = math.sqrt(max(0.0, 2 * (t * corrected - cumulant)))
    spread = t * math.sqrt(variance)
    if root < 1e-6 or spread < 1e-9:
        return bound
    # P ~ 1 - Phi(r) + phi(r) (1/u - 1/r), written as phi(r) (mills(r) + 1/u - 1/r)
    if root < 30:
        mills = math.erfc(root / math.sqrt(2)) / 2 * math.sqrt(2 * math.pi) \
            * math.exp(root ** 2 / 2)
    else:
        mills = 1 / root - 1 / root ** 3 + 3 / root ** 5
    bracket = mills + 1 / spread - 1 / root
    if bracket <= 0:
        return bound
    log_chance = -root ** 2 / 2 - 0.5 * math.log(2 * math.pi) + math.log(bracket)
    score = -log_chance / math.log(10)
    return max(bound, min(score, bound + math.log10(6 * max(1.0, root))))


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


def poisson_binomial_low_tail(observed: int, chances: Sequence[float]) -> float:
    """``-log10 P(K <= observed)`` where K counts the successes of independent trials of
    *chances* (exact: :func:`binomial_low_tail` when every chance is the same).

    >>> round(poisson_binomial_low_tail(0, [0.4] * 20), 2)
    4.44
    >>> round(poisson_binomial_low_tail(0, [0.9, 0.1]), 2)  # the likely one missed: 1.05
    1.05
    >>> poisson_binomial_low_tail(1, [0.9, 0.1])
    0.0
    """
    if not chances or observed >= sum(chances):
        return 0.0
    chances = [min(max(p, 1e-9), 1 - 1e-9) for p in chances]
    # the distribution of K over 0..observed, kept scaled (its log scale apart)
    dist = [1.0] + [0.0] * observed
    log_scale = 0.0
    for p in chances:
        for k in range(observed, 0, -1):
            dist[k] = dist[k] * (1 - p) + dist[k - 1] * p
        dist[0] *= 1 - p
        top = max(dist)
        if top < 1e-200:
            log_scale += math.log(top)
            dist = [x / top for x in dist]
    return max(0.0, -(log_scale + math.log(sum(dist))) / math.log(10))


DUMPING_SHIFT = 0.5
"""The dumper the dumping score is built to find (fixed, not fitted): it takes the telling
choice in this share of the decisions where an honest player would not have."""


def surprise(chance: float) -> float:
    """What a telling choice of this *chance* weighs, per big blind at stake: the log of the
    likelihood ratio of taking it against not, between a dumper (:data:`DUMPING_SHIFT`) and
    an independent player. A rare choice weighs more than a common one (a fold of Aces that
    nobody makes, 3.2, against a call that everybody makes, 0.8), so a few rare choices are
    not drowned by the variance of many common ones; the weight is known before the choice,
    so the tail of the weighted sum is still the chance of what was seen.

    >>> round(surprise(0.043), 2), round(surprise(0.87), 2)
    (3.19, 0.77)
    """
    p = min(max(chance, 1e-6), 1 - 1e-6)
    shifted = p + DUMPING_SHIFT * (1 - p)
    return math.log(shifted / p) - math.log((1 - shifted) / (1 - p))


class Review:
    """Per-pair sums over many hands, then :meth:`flags`. Feed it with :meth:`add`."""

    def __init__(self, thresholds: Thresholds | None = None) -> None:
        self.t = thresholds or Thresholds()
        self._equity = Equities()
        self.hands = 0
        self.hands_of: dict[str, int] = defaultdict(int)
        self.shared: dict[tuple[str, str], int] = defaultdict(int)
        """Sorted pair -> hands both were dealt in."""
        self.flow: dict[tuple[str, str], float] = defaultdict(float)
        self.given: dict[tuple[str, str], list[tuple[float, HandKey, str]]] = defaultdict(list)
        """(giver, taker) -> (big blinds, hand, reason) per giveaway hand."""
        self.decided: dict[tuple[str, str], list[tuple[tuple[str, bool, int], float, bool]]] = \
            defaultdict(list)
        """(actor, opponent) -> (stratum, weight, telling) per telling-or-not decision."""
        self.rounds: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        """Sorted pair -> [heads-up rounds, aggressive ones]."""
        self.round_strata: dict[tuple[str, str], dict[tuple[bool, int], list[int]]] = \
            defaultdict(lambda: defaultdict(lambda: [0, 0]))
        """Sorted pair -> (preflop, the stronger hand's strength bin) -> [rounds, aggressive
        ones]."""
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
        for d in facts.decisions:
            self.decided[(d.actor, d.opponent)].append((d.stratum, d.weight, d.telling))
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
            stratum = self.round_strata[r.pair][(r.preflop, r.strength_bin)]
            stratum[0] += 1
            stratum[1] += int(r.aggressive)
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
        """(giver, taker) -> how improbable the giver's telling decisions against the taker
        are, given its own choices against everybody else (pairs with enough hands).

        In each stratum (situation x street x strength of the hand) the giver's rate of the
        telling choice against others (shrunk toward the population's) is the chance that an
        independent player takes it against the taker too. Each decision weighs its stake
        times the :func:`surprise` of that chance; the score is :func:`saddlepoint_tail` of
        the weights of the telling choices taken. The
        taker's side joins them: its decisions checked to while behind the giver (betting is
        the telling choice: the giver, ahead, folds it the pot), at the taker's own rate. The
        direction is the flag's one-way test (:meth:`flags`): the reverse pair, scored apart,
        shares the taker's bets and has the giver's bets behind.
        """
        own: dict[tuple[str, tuple[str, bool, int]], list[int]] = defaultdict(lambda: [0, 0])
        everybody: dict[tuple[str, bool, int], list[int]] = defaultdict(lambda: [0, 0])
        for (actor, _), decisions in self.decided.items():
            for stratum, _, telling in decisions:
                for totals in (own[(actor, stratum)], everybody[stratum]):
                    totals[0] += 1
                    totals[1] += telling

        def trials(actor: str, decisions: list[tuple[tuple[str, bool, int], float, bool]]
                   ) -> tuple[list[tuple[float, float]], float]:
            """(weight, chance of the telling choice) per decision of *actor* against one
            opponent, at its own rate in the stratum against everybody else, and the weights
            of the telling choices taken: each decision's stake times :func:`surprise` of its
            chance."""
            mine: dict[tuple[str, bool, int], list[int]] = defaultdict(lambda: [0, 0])
            for stratum, _, telling in decisions:
                mine[stratum][0] += 1
                mine[stratum][1] += telling
            rates = {}
            for stratum, (n, k) in mine.items():
                all_n, all_k = everybody[stratum]
                population = (all_k - k + 1) / (all_n - n + 2)
                own_n, own_k = own[(actor, stratum)]
                rates[stratum] = (own_k - k + PRIOR_DECISIONS * population) \
                    / (own_n - n + PRIOR_DECISIONS)
            weighed = [(w * surprise(rates[stratum]), rates[stratum], telling)
                        for stratum, w, telling in decisions]
            return ([(w, p) for w, p, _ in weighed], sum(w for w, _, telling in weighed if telling))

        scores: dict[tuple[str, str], float] = {}
        for (giver, taker), decisions in self.decided.items():
            if self._shared(giver, taker) < self.t.min_shared_hands:
                continue
            given, observed = trials(giver, decisions)
            # the taker's side: betting behind into the giver when checked to (the giver,
            # ahead, then folds it the pot), at the taker's own rate against others
            bluffs, bluffed = trials(taker, [d for d in self.decided.get((taker, giver), ())
                                             if d[0][0] == "behind_checked_to"])
            scores[(giver, taker)] = saddlepoint_tail(given + bluffs, observed + bluffed)
        return scores

    def soft_scores(self) -> dict[tuple[str, str], float]:
        """Sorted pair -> how improbable its few aggressive heads-up rounds are.

        Each round is compared with the rounds of the same strength (the bin of the stronger
        hand in it: a round with a made hand is bet far more often than two weak hands'): its
        chance of a bet or raise is the mean of the two players' own rates in that bin in
        heads-up rounds against others (shrunk toward the population's over 10 rounds); the
        score is the exact tail of so few aggressive rounds
        (:func:`poisson_binomial_low_tail`).
        """
        total: dict[tuple[str, tuple[bool, int]], list[int]] = defaultdict(lambda: [0, 0])
        everybody: dict[tuple[bool, int], list[int]] = defaultdict(lambda: [0, 0])
        for (a, b), strata in self.round_strata.items():
            for stratum, (n, k) in strata.items():
                for counts in (total[(a, stratum)], total[(b, stratum)], everybody[stratum]):
                    counts[0] += n
                    counts[1] += k
        scores: dict[tuple[str, str], float] = {}
        for pair, strata in self.round_strata.items():
            chances: list[float] = []
            for stratum, (n, k) in strata.items():
                all_n, all_k = everybody[stratum]
                population = (all_k - k + 1) / (all_n - n + 2)
                rates = []
                for p in pair:
                    other_n = total[(p, stratum)][0] - n
                    other_k = total[(p, stratum)][1] - k
                    # shrunk toward the population's rate when a player has few other rounds
                    rates.append((other_k + 10 * population) / (other_n + 10))
                chances.extend([sum(rates) / 2] * n)
            scores[pair] = poisson_binomial_low_tail(self.rounds[pair][1], chances)
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
            flow = self.flow.get((giver, taker), 0.0) - self.flow.get((taker, giver), 0.0)
            back = sum(c for c, _, _ in self.given.get((taker, giver), ()))
            # one way: more given than given back (the net flow of whole hands is mostly the
            # cards' variance, and no test of a transfer)
            if score < t.dumping_score or chips < t.dumping_min_bb or chips <= back:
                continue
            top = sorted(items, key=lambda x: -x[0])[:EVIDENCE_HANDS]
            reasons: dict[str, int] = defaultdict(int)
            for _, _, reason in items:
                reasons[reason] += 1
            out.append(Flag("dumping", (giver, taker), score, tuple(k for _, k, _ in top), {
                "hands_together": self._shared(giver, taker),
                "giveaway_hands": len(items), "given_bb": round(chips, 1),
                "given_back_bb": round(back, 1), "flow_bb": round(flow, 1),
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
