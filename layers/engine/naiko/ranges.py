""":mod:`naiko.ranges`: preflop ranges, opponents' ranges read from the betting, equity against
them, and bet sizes by street and board (issue 24). Pure, standard library, randomness passed in.

A *range* here is the strongest fraction of the 1,326 starting hands, by one fixed order of the
169 hand classes (:data:`HAND_ORDER`: equity against one random hand, with small bonuses for
pairs, suited and connected hands, which play better than their raw equity). ``top(0.15)`` is
the best 15 % of hands. The charts choose a fraction from the position, the stack depth and the
action so far; an opponent's range is the fraction its actions imply, narrowed after the flop to
the part of that range that is strongest on the board (a bet or a raise narrows it more).

Everything reads the seat's own view (:func:`read_spot`): bets, stacks, the button and the
blinds. The view has no action log, so the action so far is rebuilt from what is on the table:
the distinct bet levels above the big blind are the raises of this round, a seat whose bet
equals the current bet has called or made it, the pot at the flop tells a limped pot from a
raised or a re-raised one.

>>> from naiko.cards import parse_cards
>>> [hand_class(parse_cards(h)) for h in ("AhKh", "7c2d", "9s9d")]
['AKs', '72o', '99']
>>> in_top(parse_cards("AsAd"), 0.01), in_top(parse_cards("7c2d"), 0.5)
(True, False)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .cards import RANKS, Card
from .evaluator import evaluate_many

__all__ = [
    "HAND_ORDER",
    "hand_class",
    "strength_of",
    "in_top",
    "top_combos",
    "Spot",
    "read_spot",
    "open_fraction",
    "push_fraction",
    "opponent_fraction",
    "Range",
    "opponent_ranges",
    "equity_vs_ranges",
    "board_texture",
    "bet_fraction",
]

HAND_ORDER: tuple[str, ...] = tuple(
    """AA KK QQ JJ TT 99 88 AKs AQs 77 AJs ATs AKo KQs KJs 66 AQo A9s A8s KTs QJs AJo QTs K9s A6s
    55 A7s ATo KQo A5s KJo A4s A3s JTs A9o K8s A2s A8o Q9s 44 K7s KTo K6s QJo J9s A7o Q8s K5s QTo
    T9s K9o A5o A6o K4s Q7s A4o 33 K3s Q6s JTo K7o J8s K2s K8o T8s Q5s A3o Q9o 98s A2o J7s K6o Q4s
    J9o Q3s Q8o K5o 22 97s J6s T7s Q2s T9o J5s K4o 87s Q7o T6s T8o J8o J4s Q6o K3o J3s Q5o J7o 96s
    K2o 86s T5s J2s T4s 76s Q4o 98o Q3o T7o T3s 95s 75s J6o 97o T2s J5o 85s Q2o 65s 87o 94s J4o
    T6o 84s 93s J2o T5o 92s J3o 86o 74s 96o 76o 54s T4o 83s 64s 73s 82s T3o 95o 53s 63s 75o T2o
    85o 72s 43s 65o 62s 94o 52s 84o 93o 42s 74o 32s 92o 54o 83o 64o 82o 73o 53o 63o 43o 72o 52o
    62o 42o 32o""".split()
)
"""The 169 starting-hand classes, strongest first: heads-up all-in equity against a random hand
(20,000 deals each with the engine's evaluator) plus 0.03 for a pair, 0.025 for suited and
0.012 for a connector or one-gapper above 4-3 (they make straights and flushes that get paid)."""


def hand_class(hole: Sequence[Card]) -> str:
    """The class of a two-card hand: ``"AA"``, ``"AKs"``, ``"72o"``."""
    a, b = sorted((hole[0] >> 2, hole[1] >> 2), reverse=True)
    if a == b:
        return RANKS[a] * 2
    return RANKS[a] + RANKS[b] + ("s" if hole[0] & 3 == hole[1] & 3 else "o")


def _combos_of(name: str) -> list[tuple[Card, Card]]:
    a, b = RANKS.index(name[0]), RANKS.index(name[1])
    if a == b:
        return [(a * 4 + s, a * 4 + t) for s in range(4) for t in range(s + 1, 4)]
    if name[2] == "s":
        return [(a * 4 + s, b * 4 + s) for s in range(4)]
    return [(a * 4 + s, b * 4 + t) for s in range(4) for t in range(4) if s != t]


COMBOS: tuple[tuple[Card, Card], ...] = tuple(c for name in HAND_ORDER for c in _combos_of(name))
"""The 1,326 two-card combinations, strongest class first."""

_TOP_OF: dict[str, float] = {}
_count = 0
for _name in HAND_ORDER:
    _count += len(_combos_of(_name))
    _TOP_OF[_name] = _count / len(COMBOS)
del _name, _count


def strength_of(hole: Sequence[Card]) -> float:
    """The fraction of all hands at least as strong as *hole*'s class (0 = best, 1 = worst):
    a hand is in ``top(f)`` when this is at most ``f``.

    >>> from naiko.cards import parse_cards
    >>> strength_of(parse_cards("AcAd")) < 0.005 < strength_of(parse_cards("KcKd")) < 0.01
    True
    """
    return _TOP_OF[hand_class(hole)]


def in_top(hole: Sequence[Card], fraction: float) -> bool:
    """Whether *hole* is in the strongest *fraction* of hands (whole classes)."""
    return strength_of(hole) <= fraction + 1e-9


@lru_cache(maxsize=128)
def top_combos(percent: int) -> tuple[tuple[Card, Card], ...]:
    """The combinations of the strongest *percent* % of hands (at least the two best classes)."""
    count = max(12, min(len(COMBOS), round(len(COMBOS) * percent / 100)))
    return COMBOS[:count]


# -- reading the spot from the view --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a decision happens, read from the bot's own view."""

    seat: int
    street: str
    big_blind: int
    players: int
    """Seats dealt into the hand."""
    live: tuple[int, ...]
    """Opponents not folded (all-in ones included)."""
    behind: int
    """Preflop: players still to act after this seat in the first round (blinds included)."""
    raises: int
    """Bet levels above the big blind this round (preflop) or above zero (later streets)."""
    limpers: int
    """Preflop, unraised: players other than the blinds who called the big blind."""
    effective_bb: float
    """The smaller of the bot's stack+bet and the largest live opponent's, in big blinds."""
    aggressors: tuple[int, ...]
    """Live opponents whose bet is the current bet above the blind (the raise to answer)."""
    bettor_levels: dict[int, int]
    """Live opponents' bets this round."""
    pot_bb: float
    """Chips already in the pot (earlier streets), in big blinds."""
    is_blind: bool
    tournament_depth: bool
    """Shallow (<= 40 big blinds effective): tournament charts (smaller opens, shoves)."""


def read_spot(view: dict[str, Any]) -> Spot | None:
    """The spot of the view's own seat, or ``None`` without a hand for it."""
    seat = view.get("seat_index")
    hand = view.get("hand")
    seats = view.get("seats") or []
    if not isinstance(seat, int) or not isinstance(hand, dict) or not 0 <= seat < len(seats):
        return None
    me = seats[seat]
    if not isinstance(me, dict) or not me.get("in_hand"):
        return None
    bb = max(1, int(view["config"]["big_blind"]))
    dealt = [s for s in seats if isinstance(s, dict) and s.get("in_hand")]
    n = len(seats)
    street = str(hand["street"])
    button = int(hand.get("button") or 0)
    big_seat = hand.get("big_blind_seat")
    small_seat = hand.get("small_blind_seat")
    # Preflop order: the seat after the big blind first, the big blind last.
    start = (int(big_seat) + 1) % n if big_seat is not None else (button + 1) % n
    order = [(start + i) % n for i in range(n)]
    dealt_ids = {int(s["seat_index"]) for s in dealt}
    order = [i for i in order if i in dealt_ids]
    behind = len(order) - 1 - order.index(seat) if seat in order else 0
    live = tuple(
        int(s["seat_index"]) for s in dealt if int(s["seat_index"]) != seat and not s.get("folded")
    )
    bets = {int(s["seat_index"]): int(s.get("bet", 0)) for s in dealt}
    current = int(hand["current_bet"])
    floor = bb if street == "preflop" else 0
    levels = {b for b in bets.values() if b > floor}
    limpers = 0
    if street == "preflop" and not levels:
        limpers = sum(
            1 for i, b in bets.items() if b == bb and i not in (big_seat, small_seat) and i != seat
        )
    aggressors = tuple(i for i in live if bets[i] == current and current > floor)
    mine = int(me["stack"]) + bets[seat]
    others = [
        int(s["stack"]) + bets[int(s["seat_index"])] for s in dealt if int(s["seat_index"]) in live
    ]
    effective = min(mine, max(others)) if others else mine
    return Spot(
        seat=seat,
        street=street,
        big_blind=bb,
        players=len(dealt),
        live=live,
        behind=behind,
        raises=len(levels),
        limpers=limpers,
        effective_bb=effective / bb,
        aggressors=aggressors,
        bettor_levels={i: bets[i] for i in live},
        pot_bb=int(hand["pot"]) / bb,
        is_blind=seat in (big_seat, small_seat),
        tournament_depth=effective / bb <= 40,
    )


# -- preflop charts ------------------------------------------------------------------------

_OPEN_BY_BEHIND = {1: 0.42, 2: 0.45, 3: 0.28, 4: 0.20, 5: 0.16, 6: 0.13, 7: 0.11, 8: 0.10}


def open_fraction(behind: int, players: int) -> float:
    """A regular's first-in raising range by players left to act behind (6-max at 100 big
    blinds: UTG 16 %, hijack 20 %, cutoff 28 %, button 45 %, small blind 42 %; heads-up the
    button opens 80 %).

    >>> open_fraction(2, 6), open_fraction(1, 2)
    (0.45, 0.8)
    """
    if players == 2:
        return 0.80
    return _OPEN_BY_BEHIND.get(behind, 0.09)


_PUSH_AT_10 = {1: 0.60, 2: 0.45, 3: 0.32, 4: 0.25, 5: 0.20}


def push_fraction(behind: int, depth_bb: float) -> float:
    """A shove-or-fold range first in at *depth_bb* (below ~15 big blinds), after the shape of
    the Nash charts: wider with fewer players behind and shorter stacks (small blind at 10 bb
    60 %, button 45 %, UTG of six 20 %).

    >>> round(push_fraction(1, 10), 2), round(push_fraction(2, 5), 2)
    (0.6, 0.78)
    """
    base = _PUSH_AT_10.get(behind, 0.16)
    return float(min(1.0, base * (10.0 / max(1.0, depth_bb)) ** 0.8))


def opponent_fraction(spot: Spot, seat: int) -> float:
    """The preflop range (a top fraction) of a live opponent, from what the table shows.

    Preflop: the raiser of the current level opened (or re-raised) from its position; seats
    that called a raise hold a calling range; limpers a wide range; the big blind unraised
    anything. After the flop: the pot's size says how the hand was played before (limped,
    raised, re-raised). Heads-up every one of these is wider (an open 70 %, a raised pot's
    caller 60 %).
    """
    heads_up = spot.players == 2  # heads-up ranges are much wider (button opens 80 %)
    if spot.street == "preflop":
        bet = spot.bettor_levels.get(seat, 0)
        if spot.raises == 0:
            return 1.0 if bet <= spot.big_blind or heads_up else 0.5
        if bet <= spot.big_blind:
            return 1.0  # not acted yet (or a blind): anything
        if spot.effective_bb <= 15:
            return 0.25 if spot.raises == 1 else 0.12  # shoves and calls of shoves
        if heads_up:
            return {1: 0.7, 2: 0.25, 3: 0.08}.get(spot.raises, 0.04)
        return {1: 0.22, 2: 0.07, 3: 0.03}.get(spot.raises, 0.025)
    per_player = spot.pot_bb / max(1, len(spot.live) + 1)
    if per_player <= 1.3:
        return 1.0 if heads_up else 0.55
    if per_player <= 4.5:
        return 0.6 if heads_up else 0.28
    if per_player <= 12:
        return 0.22 if heads_up else 0.10
    return 0.08 if heads_up else 0.05


# -- opponents' ranges after the flop ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Range:
    """An opponent's hands: the combinations it may hold (known cards removed)."""

    combos: tuple[tuple[Card, Card], ...]


def opponent_ranges(
    spot: Spot, board: Sequence[Card], known: Sequence[Card], *, narrow: float = 1.0
) -> list[Range]:
    """Every live opponent's range: its preflop fraction (:func:`opponent_fraction`) without
    the cards the bot knows, and after the flop only the part of it strongest on *board*:
    ``0.85`` of it per street it has continued, ``0.5`` of that when it bet this round, ``0.3``
    when it raised (bet above someone's bet). *narrow* scales how much the bot believes in
    reading (1: as above; 0: everything the preflop fraction allows).
    """
    dead = set(known) | set(board)
    out = []
    cache: dict[tuple[int, float], Range] = {}
    for seat in spot.live:
        fraction = opponent_fraction(spot, seat)
        keep = 1.0
        if len(board) >= 3:
            streets = {"flop": 0, "turn": 1, "river": 2}.get(spot.street, 0)
            keep = 0.85**streets
            bet = spot.bettor_levels.get(seat, 0)
            if bet > 0:
                keep *= 0.3 if spot.raises >= 2 and seat in spot.aggressors else 0.5
            keep = 1.0 - narrow * (1.0 - keep)
        key = (round(fraction * 100), round(keep, 2))
        if key not in cache:
            combos = tuple(c for c in top_combos(key[0]) if c[0] not in dead and c[1] not in dead)
            if keep < 1.0 and len(board) >= 3 and combos:
                values = evaluate_many(board, combos)
                ranked = sorted(zip(values, combos, strict=True), key=lambda p: -p[0])
                count = max(6, int(len(ranked) * keep))
                combos = tuple(c for _, c in ranked[:count])
            if not combos:
                combos = tuple(c for c in COMBOS if c[0] not in dead and c[1] not in dead)
            cache[key] = Range(combos)
        out.append(cache[key])
    return out


def equity_vs_ranges(
    hole: Sequence[Card],
    board: Sequence[Card],
    ranges: Sequence[Range],
    rng: random.Random,
    trials: int,
) -> float:
    """The share of the pot *hole* wins against one hand from each of *ranges*, by Monte Carlo
    (each deal: a hand from each range without card clashes, then the rest of the board from
    what is left; ties share).

    >>> from naiko.cards import parse_cards
    >>> r = [Range(top_combos(5))]
    >>> e = equity_vs_ranges(parse_cards("7c2d"), [], r, random.Random(1), 400)
    >>> e < 0.25
    True
    """
    if not ranges:
        return 1.0
    hole = list(hole)
    board = list(board)
    need = 5 - len(board)
    base_dead = set(hole) | set(board)
    deck = [c for c in range(52) if c not in base_dead]
    rnd = rng.random
    won = 0.0
    done = 0
    for _ in range(trials):
        used = set(base_dead)
        hands: list[tuple[Card, Card]] = []
        for r in ranges:
            combos = r.combos
            for _attempt in range(12):
                c = combos[int(rnd() * len(combos))]
                if c[0] not in used and c[1] not in used:
                    break
            else:
                free = [x for x in deck if x not in used]
                c = (free[0], free[1])
            used.add(c[0])
            used.add(c[1])
            hands.append(c)
        if need:
            rest = [x for x in deck if x not in used]
            full = board + _draw(rest, need, rnd)
        else:
            full = board
        values = evaluate_many(full, [hole, *hands])
        mine = values[0]
        ties = 0
        lost = False
        for v in values[1:]:
            if v > mine:
                lost = True
                break
            if v == mine:
                ties += 1
        if not lost:
            won += 1.0 / (ties + 1)
        done += 1
    return won / done if done else 0.0


def _draw(pool: list[Card], k: int, rnd: Any) -> list[Card]:
    """*k* distinct cards from *pool* (a partial Fisher-Yates shuffle, in place)."""
    n = len(pool)
    for i in range(k):
        j = i + int(rnd() * (n - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


# -- bet sizing ----------------------------------------------------------------------------


def board_texture(board: Sequence[Card]) -> str:
    """``"dry"``, ``"wet"`` or ``"paired"``: wet has two or more cards of a suit with three
    ranks within five, or three of a suit; paired has a pair on board.

    >>> from naiko.cards import parse_cards
    >>> board_texture(parse_cards("Kc7d2h")), board_texture(parse_cards("9h8hTc"))
    ('dry', 'wet')
    """
    if len(board) < 3:
        return "dry"
    ranks = sorted({c >> 2 for c in board})
    suits = [c & 3 for c in board]
    flushy = max(suits.count(s) for s in range(4))
    if len(ranks) < len(board):
        return "paired"
    connected = any(ranks[i + 2] - ranks[i] <= 4 for i in range(len(ranks) - 2))
    if flushy >= 3 or (flushy >= 2 and connected) or (connected and len(board) == 3):
        return "wet"
    return "dry"


def bet_fraction(street: str, board: Sequence[Card], opponents: int, strength: float) -> float:
    """A bet as a fraction of the pot: small on dry and paired flops (a third), larger on wet
    boards (two thirds) and later streets (turn 0.65, river 0.75), larger multiway, and larger
    with *strength* (0..1: how far above the value line the hand is).

    >>> from naiko.cards import parse_cards
    >>> bet_fraction("flop", parse_cards("Kc7d2h"), 1, 0.0)
    0.33
    >>> bet_fraction("river", parse_cards("Kc7d2h9s3s"), 1, 1.0)
    1.0
    """
    texture = board_texture(board)
    base = {"flop": 0.33 if texture != "wet" else 0.66, "turn": 0.65, "river": 0.75}.get(
        street, 0.66
    )
    base += 0.1 * max(0, opponents - 1) + 0.25 * max(0.0, min(1.0, strength))
    return round(min(1.0, base), 2)
