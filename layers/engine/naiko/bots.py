""":mod:`naiko.bots` decides for a bot seat from that seat's view, and from nothing else.

The information boundary (R8.4) is the signature: :func:`decide` and :func:`respond` take the
JSON-compatible dict :func:`naiko.views.view_for` builds for the bot's own seat, and a random
source. They never see a :class:`~naiko.state.TableState`, another seat's hole cards or the deck,
so they cannot use them. What a bot knows is what a person in its seat knows: its own hole
cards, the board, its own Peek card (Naiko mode), the public stacks, bets, pot, destellos and
Carousel, and the prompt the server gives it. A player's purchases are not in the view and never
change how a bot plays.

The strategy is deliberately simple and is documented in ``docs/bots.md``:

1. Estimate the bot's *equity* (its share of the pot at showdown) by Monte Carlo: deal the
   unknown cards at random (the rest of the board, except a peeked card, and hands for every
   live opponent) a fixed number of times, scaled so one estimate costs a few milliseconds.
2. Compare the equity with the pot odds and with thresholds that depend on the number of live
   opponents: bet or raise for value when strong, call when the price is right, check when free,
   otherwise fold; bluff rarely. Amounts are always picked inside the prompt's
   ``min_raise_to``..``max_raise_to`` and actions only from ``prompt.actions``, so pot limit and
   Short Anchors are respected by construction.
3. Naiko mode, only powers the prompt lists as usable now (and affordable): Sleeve Swap the lower
   card of a weak unpaired hand preflop when calling is cheap; Peek when the next card matters
   (a draw, or a speculative hand preflop); Short Anchor the opponent with the largest stack
   among the legal targets when strong, or sometimes when just calling; Seal Shield an Anchor
   aimed at the bot when strong, else pass.

Determinism: all randomness comes from the *rng* argument (one draw seeds a private
:class:`random.Random` per call) and the number of Monte Carlo trials depends on the view only,
never on the clock; so a seeded *rng* gives the same decision for the same view.

>>> view = {"seat_index": 0, "config": {"big_blind": 2}, "prompt": None}
>>> decide(view, random.Random(1)) is None
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card, RandomSource, parse_cards
from .commands import Bet, Call, Check, Command, Fold, PassWindow, RaiseTo, UsePower
from .evaluator import evaluate_many, evaluate_omaha
from .events import Power

PEEK, SLEEVE_SWAP, SHORT_ANCHOR, SEAL_SHIELD = Power
POWER_NAMES = frozenset(p.value for p in Power)

__all__ = ["decide", "respond", "estimate_equity", "trials_for", "weak_card_to_swap", "has_draw",
           "read_view", "Knowledge", "value_line"]


WORK_BUDGET = 3000
"""Monte Carlo work per equity estimate, in units of one Hold'em hand evaluation (about 0.6 µs;
an Omaha evaluation counts 7, a card dealt 0.5). About 2–4 ms of CPU per decision."""
MIN_TRIALS = 60
MAX_TRIALS = 1000

BLUFF_BET = 0.06
"""Chance to bet with a weak hand when checking is free and at most two opponents are left."""
BLUFF_RAISE = 0.02
"""Chance to raise with a weak hand heads-up facing a bet."""


# -- what the bot knows ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Knowledge:
    """Everything a decision uses, read from the seat's view (and only from it)."""

    seat: int
    hole: tuple[Card, ...]
    board: tuple[Card, ...]
    peek: Card | None
    """The next board card, when the bot peeked at it and it is still to be dealt."""
    street: str
    opponents: int
    """Opponents still in the hand (not folded), all-in ones included."""
    opponent_stacks: dict[int, int]
    pot_total: int
    """The pot with every bet on the table."""
    current_bet: int
    my_bet: int
    stack: int
    big_blind: int
    destellos: int


def read_view(view: dict[str, Any]) -> Knowledge | None:
    """The bot's knowledge from its own view, or ``None`` if the view shows no hand for it.

    >>> read_view({"seat_index": 0, "seats": [], "hand": None}) is None
    True
    """
    seat = view.get("seat_index")
    hand = view.get("hand")
    seats = view.get("seats") or []
    if not isinstance(seat, int) or not isinstance(hand, dict) or not 0 <= seat < len(seats):
        return None
    me = seats[seat]
    if not isinstance(me, dict) or not me.get("in_hand") or not me.get("cards"):
        return None
    powers = hand.get("powers") or {}
    peek_text = powers.get("peek")
    peek = parse_cards(peek_text)[0] if peek_text else None
    opponents: dict[int, int] = {}
    for entry in seats:
        if (isinstance(entry, dict) and entry["seat_index"] != seat and entry.get("in_hand")
                and not entry.get("folded")):
            opponents[int(entry["seat_index"])] = int(entry["stack"])
    return Knowledge(
        seat=seat,
        hole=tuple(parse_cards(me["cards"])),
        board=tuple(parse_cards(hand["board"])),
        peek=peek,
        street=str(hand["street"]),
        opponents=len(opponents),
        opponent_stacks=opponents,
        pot_total=int(hand["pot"]) + int(hand["bets_total"]),
        current_bet=int(hand["current_bet"]),
        my_bet=int(me.get("bet", 0)),
        stack=int(me["stack"]),
        big_blind=int(view["config"]["big_blind"]),
        destellos=int(me.get("destellos", 0)),
    )


# -- equity ----------------------------------------------------------------------------------

def trials_for(hole_count: int, board_known: int, opponents: int) -> int:
    """How many Monte Carlo deals one estimate uses: a fixed work budget divided by the cost of
    one deal (deterministic: it depends on the situation, never on the clock).

    >>> trials_for(2, 0, 1), trials_for(2, 0, 8), trials_for(4, 0, 8)
    (545, 153, 60)
    """
    players = opponents + 1
    eval_cost = 7 if hole_count == 4 else 1
    cards = (5 - board_known) + opponents * hole_count
    cost = players * eval_cost + cards * 0.5
    return max(MIN_TRIALS, min(MAX_TRIALS, int(WORK_BUDGET / cost)))


def estimate_equity(hole: Sequence[Card], board: Sequence[Card], opponents: int,
                    rng: random.Random, trials: int | None = None) -> float:
    """The share of the pot *hole* wins at showdown against *opponents* random hands, by Monte
    Carlo over the cards not in *hole* or *board* (ties share; 4 hole cards: Omaha rules).

    *board* holds the known board cards (a peeked card may be appended: it is as good as dealt
    for this bot). With no opponents the equity is 1.

    >>> from naiko.cards import parse_cards
    >>> estimate_equity(parse_cards("AsAh"), parse_cards("AdAcKs2h3d"), 3, random.Random(1))
    1.0
    >>> e = estimate_equity(parse_cards("7c2d"), [], 1, random.Random(1))
    >>> 0.25 < e < 0.42
    True
    """
    if opponents <= 0:
        return 1.0
    hole = list(hole)
    board = list(board)
    omaha = len(hole) == 4
    known = set(hole) | set(board)
    pool = [c for c in range(52) if c not in known]
    need = 5 - len(board)
    per_hand = len(hole)
    k = need + opponents * per_hand
    if k > len(pool):  # cannot happen at a 10-seat table; keep the function total anyway
        opponents = (len(pool) - need) // per_hand
        if opponents <= 0:
            return 1.0
        k = need + opponents * per_hand
    if trials is None:
        trials = trials_for(per_hand, len(board), opponents)
    rnd = rng.random
    n = len(pool)
    won = 0.0
    if need == 0 and not omaha:
        # The board is known: deal every trial's opponent hands first, then rank them all in
        # one batch against the single board.
        mine = evaluate_many(board, [hole])[0]
        holes: list[list[Card]] = []
        for _ in range(trials):
            for i in range(k):
                j = i + int(rnd() * (n - i))
                pool[i], pool[j] = pool[j], pool[i]
            holes.extend([pool[i], pool[i + 1]] for i in range(0, k, 2))
        strengths = evaluate_many(board, holes)
        for t in range(0, len(strengths), opponents):
            won += _share(mine, strengths[t:t + opponents])
        return won / trials
    for _ in range(trials):
        for i in range(k):  # a partial Fisher-Yates shuffle: pool[:k] is a uniform sample
            j = i + int(rnd() * (n - i))
            pool[i], pool[j] = pool[j], pool[i]
        full = board + pool[:need]
        if omaha:
            mine = evaluate_omaha(hole, full)
            others = [evaluate_omaha(pool[i:i + 4], full) for i in range(need, k, 4)]
        else:
            values = evaluate_many(full, [hole, *([pool[i], pool[i + 1]]
                                                  for i in range(need, k, 2))])
            mine, others = values[0], values[1:]
        won += _share(mine, others)
    return won / trials


def _share(mine: int, others: Sequence[int]) -> float:
    """The bot's share of a pot: 0 if beaten, 1/(ties+1) if tied for best, else 1."""
    ties = 0
    for value in others:
        if value > mine:
            return 0.0
        if value == mine:
            ties += 1
    return 1.0 / (ties + 1)


def _equity(k: Knowledge, rnd: random.Random) -> float:
    """The bot's equity from its knowledge: a peeked card counts as the next board card."""
    board = list(k.board)
    if k.peek is not None:
        board.append(k.peek)
    return estimate_equity(k.hole, board, k.opponents, rnd)


def value_line(opponents: int, exponent: float) -> float:
    """An equity threshold: the fair share ``1/(opponents+1)`` raised to *exponent* (< 1), so
    it rises above the fair share, less so at a crowded table.

    >>> round(value_line(1, 0.5), 3), round(value_line(5, 0.5), 3)
    (0.707, 0.408)
    """
    return float((1.0 / (opponents + 1)) ** exponent)


BET_EXPONENT = 0.65
"""Open the betting (or raise the big blind's option) with equity above ``fair ** 0.65``
(heads-up 0.64, three opponents 0.41, eight 0.24)."""
RAISE_EXPONENT = 0.5
"""Raise a bet with equity above ``fair ** 0.5`` (heads-up 0.71, three 0.5, eight 0.33)."""


# -- heuristics for the powers ---------------------------------------------------------------

def weak_card_to_swap(hole: Sequence[Card], equity: float, opponents: int) -> int | None:
    """Sleeve Swap: the index of the card to throw away from a weak two-card hand, else
    ``None``. Weak: unpaired, not suited and connected, and below the fair share of equity
    (``equity * (opponents + 1) < 1``). The lower card goes (the first one on equal ranks).

    >>> from naiko.cards import parse_cards
    >>> [weak_card_to_swap(parse_cards(h), 0.3, 1) for h in ("7c2d", "2d7c")]
    [1, 0]
    >>> weak_card_to_swap(parse_cards("7c7d"), 0.3, 1) is None
    True
    """
    if len(hole) != 2:
        return None
    a, b = hole[0] >> 2, hole[1] >> 2
    suited = hole[0] & 3 == hole[1] & 3
    if a == b or (suited and abs(a - b) <= 2) or equity * (opponents + 1) >= 1.0:
        return None
    return 1 if b < a else 0


def has_draw(hole: Sequence[Card], board: Sequence[Card]) -> bool:
    """Whether the next card could improve the hand a lot: four cards to a flush, or four
    ranks of a five-rank straight window, using at least one hole card, on a flop or turn, and
    not made already. Preflop any suited or connected hand, or a small pair, counts.

    >>> from naiko.cards import parse_cards
    >>> has_draw(parse_cards("AhKd"), parse_cards("2h7s9c"))
    False
    >>> has_draw(parse_cards("AhKh"), parse_cards("2h7h9c"))
    True
    >>> has_draw(parse_cards("8c9d"), parse_cards("TsJh2c"))
    True
    """
    if len(board) == 0:
        if len(hole) != 2:
            return False
        a, b = hole[0] >> 2, hole[1] >> 2
        return hole[0] & 3 == hole[1] & 3 or abs(a - b) == 1 or (a == b and a < 8)
    if len(board) not in (3, 4):
        return False
    cards = list(hole) + list(board)
    hole_suits = {c & 3 for c in hole}
    flush_draw = False
    for suit in hole_suits:
        count = sum(1 for c in cards if c & 3 == suit)
        if count >= 5:
            return False  # made already
        flush_draw |= count == 4
    mine = _straight_ranks(hole)
    allr = _straight_ranks(cards)
    straight_draw = False
    for low in range(-1, 9):
        window = set(range(low, low + 5))
        held = window & allr
        if len(held) == 5:
            return False  # made already
        if len(held) == 4 and held & mine:
            straight_draw = True
    return flush_draw or straight_draw


def _straight_ranks(cards: Sequence[Card]) -> set[int]:
    """The ranks of *cards* for straights: an ace also counts as -1 (A-2-3-4-5)."""
    out = {c >> 2 for c in cards}
    return out | ({-1} if 12 in out else set())


# -- the decisions ---------------------------------------------------------------------------

def decide(view: dict[str, Any], rng: RandomSource) -> Command | None:
    """The bot's next command for its own seat's *view*: a power first (Naiko mode, when it
    wants one) or a betting action; ``None`` when the view has no prompt for this seat.

    Call it again after a power: the new view's prompt no longer lists powers for this turn
    (one per turn, R5.5), so the next answer is a betting action. Every command it returns is
    legal for the prompt it was given.
    """
    prompt = view.get("prompt")
    if not isinstance(prompt, dict) or prompt.get("seat_index") != view.get("seat_index"):
        return None
    k = read_view(view)
    seat = int(prompt["seat_index"])
    rnd = random.Random(rng.randrange(1 << 62))
    if k is None:  # a prompt without cards cannot happen; stay legal anyway
        return Check(seat_index=seat) if "check" in prompt["actions"] else Fold(seat_index=seat)
    equity = _equity(k, rnd)
    shield = _shield_choice(view, k, equity)
    if shield is not None and shield.kind == "use_power":
        return shield  # answering an Anchor is not the turn's power (R6.7); acting would pass
    power = _power_choice(prompt, k, equity, rnd)
    if power is not None:
        return power
    return _legal(_betting_choice(prompt, k, equity, rnd), prompt)


def respond(view: dict[str, Any], rng: RandomSource) -> Command | None:
    """Answer an open Short Anchor window aimed at the bot (off-turn, R6.5): Seal Shield when
    it holds a strong hand and can shield, else pass; ``None`` if no window is aimed at it."""
    k = read_view(view)
    if k is None or not _window_aimed_at(view, k.seat):
        return None
    rnd = random.Random(rng.randrange(1 << 62))
    return _shield_choice(view, k, _equity(k, rnd))


def _window_aimed_at(view: dict[str, Any], seat: int) -> bool:
    """Whether the view shows an open Short Anchor response window aimed at *seat*."""
    powers = view["hand"].get("powers") or {}
    return any(w.get("target") == seat for w in powers.get("windows", []))


def _shield_choice(view: dict[str, Any], k: Knowledge, equity: float) -> Command | None:
    """Seal Shield, PassWindow, or ``None`` without a window aimed at the bot (R6.4, R6.5)."""
    if not _window_aimed_at(view, k.seat):
        return None
    powers = view["hand"].get("powers") or {}
    if (powers.get("can_shield") and k.destellos >= SEAL_SHIELD.cost
            and SEAL_SHIELD in powers.get("carousel", [])
            and equity >= value_line(k.opponents, RAISE_EXPONENT)):
        return UsePower(seat_index=k.seat, power=SEAL_SHIELD)
    return PassWindow(seat_index=k.seat)


def _power_choice(prompt: dict[str, Any], k: Knowledge, equity: float,
                  rnd: random.Random) -> Command | None:
    """A turn power to use now, or ``None``: only powers the prompt lists (R5.5–R6.3)."""
    usable = [p for p in prompt.get("powers") or []
              if p in POWER_NAMES and k.destellos >= Power(p).cost]
    if not usable:
        return None
    if SLEEVE_SWAP in usable and k.street == "preflop" and int(prompt["to_call"]) <= k.big_blind:
        # Only when seeing the flop is cheap: a swap before folding would be wasted destellos.
        index = weak_card_to_swap(k.hole, equity, k.opponents)
        if index is not None and rnd.random() < 0.7:
            return UsePower(seat_index=k.seat, power=SLEEVE_SWAP, card_index=index)
    if (PEEK in usable and k.peek is None and k.street != "river" and k.stack > 0
            and has_draw(k.hole, k.board)
            and (k.street != "preflop" or int(prompt["to_call"]) > 0)
            and rnd.random() < 0.8):
        return UsePower(seat_index=k.seat, power=PEEK)
    targets = [t for t in prompt.get("anchor_targets") or [] if t in k.opponent_stacks]
    if SHORT_ANCHOR in usable and targets:
        strong = equity >= value_line(k.opponents, RAISE_EXPONENT)
        calling = int(prompt["to_call"]) > 0 and equity >= _pot_odds(prompt, k)
        if (strong and rnd.random() < 0.5) or (calling and rnd.random() < 0.25):
            target = max(targets, key=lambda t: (k.opponent_stacks[t], -t))
            return UsePower(seat_index=k.seat, power=SHORT_ANCHOR, target_seat=target)
    return None


def _legal(command: Command, prompt: dict[str, Any]) -> Command:
    """A last guard: *command* if the prompt lists its kind (and its amount fits), else check
    when free, else fold (both always legal on a turn)."""
    actions = prompt["actions"]
    amount = getattr(command, "amount", None)
    fits = amount is None or (prompt["min_raise_to"] is not None
                              and prompt["min_raise_to"] <= amount <= prompt["max_raise_to"])
    if command.kind in actions and fits:
        return command
    seat = int(prompt["seat_index"])
    return Check(seat_index=seat) if "check" in actions else Fold(seat_index=seat)


def _pot_odds(prompt: dict[str, Any], k: Knowledge) -> float:
    """The share of the pot after a call that the call costs (0 when nothing is owed)."""
    to_call = int(prompt["to_call"])
    return to_call / (k.pot_total + to_call) if to_call > 0 else 0.0


def _betting_choice(prompt: dict[str, Any], k: Knowledge, equity: float,
                    rnd: random.Random) -> Command:
    """Fold, check, call, bet or raise by equity against thresholds and the pot odds."""
    seat = k.seat
    actions = prompt["actions"]
    to_call = int(prompt["to_call"])
    can_raise = ("bet" in actions or "raise_to" in actions) and prompt["min_raise_to"] is not None
    bet_line = value_line(k.opponents, BET_EXPONENT)
    raise_line = value_line(k.opponents, RAISE_EXPONENT)
    if to_call == 0:
        if can_raise and (equity >= bet_line
                          or (k.opponents <= 2 and rnd.random() < BLUFF_BET)):
            return _sized(prompt, k, max(0.0, (equity - bet_line) / (1.0 - bet_line)), rnd)
        return Check(seat_index=seat)
    if can_raise and equity >= raise_line:
        return _sized(prompt, k, (equity - raise_line) / (1.0 - raise_line), rnd)
    pot_odds = _pot_odds(prompt, k)
    # A cheap price (a big blind or two, or a small part of the stack) is called a little more
    # loosely: later streets pay a hand that improves (implied odds).
    cheap = to_call <= max(2 * k.big_blind, (k.stack + k.my_bet) // 20)
    if equity >= pot_odds - (0.08 if cheap else 0.0):
        return Call(seat_index=seat)
    if can_raise and k.opponents == 1 and rnd.random() < BLUFF_RAISE:
        return _sized(prompt, k, 0.0, rnd)
    return Fold(seat_index=seat)


def _sized(prompt: dict[str, Any], k: Knowledge, strength: float,
           rnd: random.Random) -> Command:
    """A bet or raise of half the pot up to the pot, more with *strength* (0..1), inside the
    prompt's range; pushes the whole range when most of it would go in anyway."""
    low = int(prompt["min_raise_to"])
    high = int(prompt["max_raise_to"])
    fraction = 0.5 + 0.5 * min(1.0, strength) + rnd.uniform(-0.1, 0.1)
    to_call = int(prompt["to_call"])
    amount = k.current_bet + int(fraction * (k.pot_total + to_call))
    if amount >= 0.7 * high:
        amount = high
    amount = max(low, min(high, amount))
    if "bet" in prompt["actions"]:
        return Bet(seat_index=k.seat, amount=amount)
    return RaiseTo(seat_index=k.seat, amount=amount)
