""":mod:`naiko.bot_styles`: bots that play like people (issue 24) — four styles at three levels,
plus ``"old"``, the first bot of :mod:`naiko.bots`, kept as it was.

A :class:`Profile` is a style and a level. :func:`decide` and :func:`respond` take the seat's own
view (``naiko.views.view_for(state, seat)``), the profile and a random source, exactly like
:func:`naiko.bots.decide` (R8.4: nothing but the view reaches them). :func:`profile_for_seat`
chooses a profile for a seat from the table's settings, varying styles within a table.

- **Styles** (:data:`STYLES`): ``tight_aggressive`` (a regular: narrow ranges, raises, bets its
  value), ``loose_aggressive`` (wide ranges, many 3-bets and bluffs), ``tight_passive`` (narrow
  ranges, limps and calls), ``loose_passive`` (plays too many hands, calls too much).
- **Levels** (:data:`LEVELS`): ``beginner`` (wider ranges, judges hands against random
  holdings, a fifth of its choices loosened at random), ``regular`` (ranges, reads, pot odds),
  ``strong`` (the same reads with more deals, value bets larger, bluffs only heads-up, folds
  less to bets that are often bluffs); ``old`` is :func:`naiko.bots.decide` byte for byte
  (same command, same draws from *rng*).
- Preflop (Hold'em): the charts of :mod:`naiko.ranges` by position, depth and action (open,
  3-bet, 4-bet, call, push/fold below 15 big blinds); after the flop, equity against the
  opponents' ranges read from the table, thresholds and sizes by street and board. Omaha: the
  old bot's equity against random hands with the style's thresholds.
- Naiko powers by expected value in big blinds against the value of the destellos they cost
  (:func:`destello_value`): Peek when seeing the next card may change a call, Sleeve Swap when
  the new card is likely to make a hand worth playing, Short Anchor when a re-raise would push a
  calling hand off a pot, Seal Shield when the Anchor costs the bot more than a destello.

>>> view = {"seat_index": 0, "config": {"big_blind": 2}, "prompt": None}
>>> decide(view, Profile("tight_aggressive", "strong"), random.Random(1)) is None
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from . import bots
from .bots import Knowledge, has_draw, read_view
from .cards import Card, RandomSource
from .commands import Bet, Call, Check, Command, Fold, PassWindow, RaiseTo, UsePower
from .events import Power
from .ranges import (
    Spot,
    bet_fraction,
    board_texture,
    equity_vs_ranges,
    in_top,
    open_fraction,
    opponent_ranges,
    push_fraction,
    read_spot,
    strength_of,
)

__all__ = [
    "STYLES",
    "LEVELS",
    "Profile",
    "Style",
    "STYLE_PARAMS",
    "decide",
    "respond",
    "profile_for_seat",
    "destello_value",
]

STYLES = ("tight_aggressive", "loose_aggressive", "tight_passive", "loose_passive")
LEVELS = ("beginner", "regular", "strong", "old")
PEEK, SLEEVE_SWAP, SHORT_ANCHOR, SEAL_SHIELD = Power


@dataclass(frozen=True, slots=True)
class Profile:
    """A bot's style and level (:data:`STYLES`, :data:`LEVELS`)."""

    style: str = "tight_aggressive"
    level: str = "regular"

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"unknown bot style {self.style!r}")
        if self.level not in LEVELS:
            raise ValueError(f"unknown bot level {self.level!r}")

    @property
    def name(self) -> str:
        """``"old"`` or ``"<style>/<level>"``."""
        return "old" if self.level == "old" else f"{self.style}/{self.level}"


@dataclass(frozen=True, slots=True)
class Style:
    """The numbers that make a style (fractions of all hands, probabilities, equity margins)."""

    width: float
    """Multiplies the opening charts."""
    threebet: float
    """Re-raising range against one raise (top fraction)."""
    flat: float
    """Calling range against one raise (top fraction, beyond the re-raises)."""
    limp: float
    """Chance to limp (call the blind) instead of raising a hand it plays first in."""
    aggression: float
    """Chance to bet or raise a hand that is worth it rather than check or call."""
    bluff: float
    """Chance to bet without value when checked to heads-up (more on dry flops)."""
    value_margin: float
    """Equity above the fair share needed to bet for value."""
    call_slack: float
    """How much worse than the pot odds it still calls."""
    raise_margin: float
    """Equity above the value line needed to raise a bet."""
    cbet: float = 0.0
    """Chance to continuation-bet the flop without value as the preflop aggressor, heads-up
    (more on dry and paired flops, less on wet ones and multiway)."""
    barrel: float = 0.0
    """Chance to bet the turn again without value after betting the flop (the river: half of
    it, busted hands only); the rest give up."""
    give_up: float = 0.0
    """Equity beyond the pot odds it asks for before calling a bet on the turn (half of it on
    the flop, twice on the river): folding weak holdings to aggression."""
    float_slack: float = 0.0
    """Extra slack calling a flop bet (a float: the aggressor often gives up on the turn, where
    :func:`unopened` lets the caller stab); the turn and river fold it again (``give_up``). Not
    at the strong level, which reads value-heavy bettors (the old bot) better by folding."""
    stab: float = 0.0
    """Chance to bet without value into a pot nobody is betting — the street before was
    checked through, or the seat with the initiative checked this street — heads-up and last
    to act (out of position 0.6 of it; 0.6 against two opponents, 0.35 against more; see
    :func:`unopened`, :func:`_stab_chance`)."""
    river_stab: float = 1.0
    """Multiplies ``stab`` on the river: the last chance to take a checked-down pot without a
    showdown."""
    draw_bluff: float = 0.1
    """Added to the bluffing chance (after × 1.6) with a draw checked to: the semi-bluff."""
    limp_behind: float = 2.0
    """How far beyond its opening chart it limps behind limpers or completes the blind: the
    chart times ``1 + limp_behind * limp``."""


STYLE_PARAMS: dict[str, Style] = {
    "tight_aggressive": Style(
        1.15, 0.076, 0.10, 0.0, 0.35, 0.16, 0.14, 0.11, 0.22, cbet=0.55, barrel=0.2, give_up=0.095,
        float_slack=0.11,
        stab=0.25,
        river_stab=2.6,
    ),
    "loose_aggressive": Style(
        1.65, 0.105, 0.14, 0.0, 0.6, 0.22, 0.09, 0.15, 0.17, cbet=0.5, barrel=0.3, give_up=0.01,
        float_slack=0.06,
        stab=0.4,
    ),
    "tight_passive": Style(
        0.75, 0.022, 0.14, 0.45, 0.3, 0.03, 0.16, 0.05, 0.22, cbet=0.2, barrel=0.1, give_up=0.16,
        stab=0.12,
        river_stab=3.5,
        draw_bluff=0.0,
        limp_behind=0.3,
    ),
    "loose_passive": Style(
        1.9, 0.015, 0.38, 0.8, 0.4, 0.06, 0.16, 0.12, 0.25, cbet=0.25, barrel=0.1, give_up=0.08,
        stab=0.1,
    ),
}


STRONG_PARAMS: dict[str, Style] = {
    "tight_aggressive": Style(
        1.15, 0.072, 0.10, 0.0, 0.45, 0.16, 0.14, 0.11, 0.22, cbet=0.55, barrel=0.3, give_up=0.095,
        float_slack=0.11,
        stab=0.3,
    ),
}
"""The strong level's own numbers where they differ from its style's: strong tight-aggressive
keeps the set it was measured with heads-up against the old bot (+65.7 +- 36.6 bb/100, seed
``old1500``); the regular level's centred set (issue 24: less value betting, more river stabs)
read +36.5 +- 32.0 there, under the +20 goal at 95 %."""


def _style(profile: Profile) -> Style:
    """The numbers *profile* plays with."""
    if profile.level == "strong" and profile.style in STRONG_PARAMS:
        return STRONG_PARAMS[profile.style]
    return STYLE_PARAMS[profile.style]


def destello_value(destellos: int, big_blind: int) -> float:
    """What one destello is worth, in chips: about a third of a big blind; a tenth when the
    seat holds the maximum 3 (the next hand's credit would be lost unless one is spent, R5.1).

    >>> destello_value(1, 20), destello_value(3, 20)
    (7.0, 2.0)
    """
    return (0.1 if destellos >= 3 else 0.35) * big_blind


# -- the entry points ----------------------------------------------------------------------


def profile_for_seat(settings: Any, seat_index: int, rng: RandomSource) -> Profile:
    """The profile of the BOT in *seat_index*: the settings' ``bot_level`` (``"regular"`` when
    absent; ``"old"`` keeps the first bot everywhere) and a style that varies within a table:
    a rotation through :data:`STYLES` from an offset drawn from *rng* (pass a random source
    seeded by the table to keep a seat's style for the table's life).

    >>> from types import SimpleNamespace as S
    >>> sorted(profile_for_seat(S(bot_level="strong"), s, random.Random(3)).style for s in range(4))
    ['loose_aggressive', 'loose_passive', 'tight_aggressive', 'tight_passive']
    >>> profile_for_seat(S(bot_level="old"), 0, random.Random(3)).name
    'old'
    """
    level = str(getattr(settings, "bot_level", "regular") or "regular")
    if level not in LEVELS:
        level = "regular"
    order = ("tight_aggressive", "loose_passive", "tight_passive", "loose_aggressive")
    offset = rng.randrange(len(order))
    return Profile(order[(offset + seat_index) % len(order)], level)


def decide(view: dict[str, Any], profile: Profile, rng: RandomSource) -> Command | None:
    """The bot's next command for its own seat's *view*, played as *profile*: a power first
    (Naiko mode, when worth it) or a betting action; ``None`` without a prompt for this seat.
    Every command is legal for the prompt it was given (actions from ``prompt.actions``,
    amounts inside ``min_raise_to..max_raise_to``, powers from ``prompt.powers``)."""
    if profile.level == "old":
        return bots.decide(view, rng)
    prompt = view.get("prompt")
    if not isinstance(prompt, dict) or prompt.get("seat_index") != view.get("seat_index"):
        return None
    seat = int(prompt["seat_index"])
    rnd = random.Random(rng.randrange(1 << 62))
    k = read_view(view)
    spot = read_spot(view)
    if k is None or spot is None:
        return Check(seat_index=seat) if "check" in prompt["actions"] else Fold(seat_index=seat)
    style = _style(profile)
    equity = _equity(k, spot, profile, rnd)
    shield = _shield_choice(view, k, spot, equity, profile)
    if shield is not None and shield.kind == "use_power":
        return shield
    power = _power_choice(prompt, k, spot, equity, profile, rnd)
    if power is not None:
        return power
    if k.street == "preflop" and len(k.hole) == 2:
        choice = _preflop(prompt, k, spot, equity, style, profile, rnd)
    else:
        choice = _postflop(
            prompt, k, spot, equity, style, profile, rnd, initiative(view), unopened(view)
        )
    return _legal(choice, prompt)


def initiative(view: dict[str, Any]) -> int | None:
    """The seat that made the last bet or raise of the street before this one (the preflop
    aggressor on the flop, the flop's bettor on the turn), from the hand's public
    ``aggression`` summary (:func:`naiko.views.aggression_of`); ``None`` before the flop, when
    the last street was checked through, or without a summary.

    >>> initiative({"hand": {"aggression": [{"street": "preflop", "raises": 1, "last": 3},
    ...                                     {"street": "flop", "raises": 0, "last": None}]}})
    3
    """
    streets = (view.get("hand") or {}).get("aggression") or []
    if len(streets) < 2 or not isinstance(streets[-2], dict):
        return None
    last = streets[-2].get("last")
    return int(last) if isinstance(last, int) else None


def unopened(view: dict[str, Any]) -> float | None:
    """After the flop, with nobody betting yet this street: how the own seat may stab at the
    pot — ``1.0`` last to act, ``0.6`` with players still to act behind — when nobody else
    holds the initiative (the street before was checked through, or its bettor folded, is all
    in, or has checked this street: it acted before the seat); ``None`` otherwise (the seat
    holds the initiative itself, a bet was made this street, or the bettor of the street before
    is still to act behind). Public information only (R8.4): the action summary, the button
    and who is still in.

    >>> seats = [{"seat_index": i, "in_hand": True, "folded": False, "all_in": False}
    ...          for i in range(2)]
    >>> hand = {"street": "flop", "button": 0, "aggression": [
    ...     {"street": "preflop", "raises": 1, "last": 1},
    ...     {"street": "flop", "raises": 0, "last": None}]}
    >>> unopened({"seat_index": 0, "seats": seats, "hand": hand})  # the raiser checked to it
    1.0
    >>> unopened({"seat_index": 1, "seats": seats, "hand": hand}) is None  # its own initiative
    True
    """
    hand = view.get("hand") or {}
    streets = hand.get("aggression") or []
    seat = view.get("seat_index")
    if len(streets) < 2 or streets[-1].get("raises") or not isinstance(seat, int):
        return None
    seats = view.get("seats") or []
    n = len(seats)
    button = int(hand.get("button") or 0)
    acting = [
        i
        for i in ((button + 1 + j) % n for j in range(n))
        if isinstance(seats[i], dict)
        and seats[i].get("in_hand")
        and not seats[i].get("folded")
        and not seats[i].get("all_in")
    ]
    if seat not in acting:
        return None
    holder = streets[-2].get("last")
    if holder == seat:
        return None
    if isinstance(holder, int) and holder in acting and acting.index(holder) > acting.index(seat):
        return None  # the bettor of the street before has not acted yet
    return 1.0 if acting[-1] == seat else 0.6


def respond(view: dict[str, Any], profile: Profile, rng: RandomSource) -> Command | None:
    """Answer an open Short Anchor window aimed at the bot: Seal Shield when the Anchor would
    cost it more than a destello, else pass; ``None`` if no window is aimed at it."""
    if profile.level == "old":
        return bots.respond(view, rng)
    k = read_view(view)
    spot = read_spot(view)
    if k is None or spot is None or not _window_aimed_at(view, k.seat):
        return None
    rnd = random.Random(rng.randrange(1 << 62))
    equity = _equity(k, spot, profile, rnd)
    return _shield_choice(view, k, spot, equity, profile)


# -- equity --------------------------------------------------------------------------------


def _trials(profile: Profile, opponents: int) -> int:
    base = 440 if profile.level == "strong" else 360
    return max(60, base // max(1, opponents) + 40)


def _equity(k: Knowledge, spot: Spot, profile: Profile, rnd: random.Random) -> float:
    """Equity against the opponents' ranges (Hold'em, regular and strong), or against random
    hands (beginners, Omaha)."""
    board = list(k.board)
    if k.peek is not None:
        board.append(k.peek)
    if k.opponents == 0:
        return 1.0
    if profile.level == "beginner" or len(k.hole) != 2:
        return bots.estimate_equity(k.hole, board, k.opponents, rnd)
    if len(board) == 0 and spot.raises == 0:
        # Unraised preflop: ranges barely narrowed yet; random hands are the honest model.
        return bots.estimate_equity(k.hole, board, k.opponents, rnd, trials=_trials(profile, 1))
    narrow = 0.8 if profile.level == "strong" else 1.0
    ranges = opponent_ranges(spot, board, k.hole, narrow=narrow)
    return equity_vs_ranges(k.hole, board, ranges, rnd, _trials(profile, len(ranges)))


# -- preflop -------------------------------------------------------------------------------


def _preflop(
    prompt: dict[str, Any],
    k: Knowledge,
    spot: Spot,
    equity: float,
    style: Style,
    profile: Profile,
    rnd: random.Random,
) -> Command:
    seat = k.seat
    to_call = int(prompt["to_call"])
    bb = k.big_blind
    width = style.width * (1.3 if profile.level == "beginner" else 1.0)
    strength = strength_of(k.hole)
    pot_odds = to_call / (k.pot_total + to_call) if to_call else 0.0
    depth = spot.effective_bb
    noise = profile.level == "beginner" and rnd.random() < 0.2
    if depth <= 15 and len(spot.live) >= 1:
        return _push_fold(prompt, k, spot, equity, style, width, pot_odds, rnd)
    if spot.raises == 0:
        if to_call == 0:  # the big blind's option (or everyone limped to it)
            if strength <= 0.10 * width * (0.5 + style.aggression) or (
                noise and rnd.random() < 0.3
            ):
                return _raise_to(prompt, k, bb * (3 + spot.limpers))
            return Check(seat_index=seat)
        first_in = spot.limpers == 0
        chart = open_fraction(spot.behind, spot.players) * width
        if not first_in:
            chart *= 0.55  # raise over limpers with a narrower range
        if strength <= chart:
            if rnd.random() < style.limp:
                return Call(seat_index=seat)
            size = (2.2 if spot.tournament_depth else 2.5) + spot.limpers
            if spot.is_blind and spot.players > 2:
                size += 0.5  # out of position
            return _raise_to(prompt, k, int(bb * size))
        # Limp behind or complete the small blind with a playable hand (passive styles).
        if strength <= chart * (1.0 + style.limp_behind * style.limp) and (
            not first_in or spot.is_blind
        ):
            if to_call <= bb:
                return Call(seat_index=seat)
        if noise and to_call <= bb:
            return Call(seat_index=seat)
        return Fold(seat_index=seat)
    if spot.raises == 1:
        threebet = style.threebet * width / style.width
        flat = style.flat * width / style.width
        if spot.behind == 0 and spot.is_blind:  # the big blind closes the action: defend wider
            flat *= 2.2 if spot.players > 2 else 3.0
        elif spot.players == 2:
            flat *= 2.5
            threebet *= 1.8
        if in_top(k.hole, threebet) or (
            style.aggression > 0.5 and in_top(k.hole, 0.45) and rnd.random() < style.bluff * 0.12
        ):
            size = k.current_bet * (3 if not spot.is_blind else 3.5)
            if depth <= 25:
                size = prompt["max_raise_to"] or size
            return _raise_to(prompt, k, int(size))
        if in_top(k.hole, threebet + flat) or (noise and pot_odds < 0.35):
            return Call(seat_index=seat)
        # Priced in: a tiny raise against a wide range.
        if equity >= pot_odds + 0.05 and pot_odds < 0.25 and in_top(k.hole, 0.6):
            return Call(seat_index=seat)
        return Fold(seat_index=seat)
    if spot.raises == 2:
        if in_top(k.hole, 0.022 * (1.5 if style.aggression > 0.5 else 1.0)):
            size = int(k.current_bet * 2.3)
            if size >= 0.4 * (k.stack + k.my_bet):
                size = int(prompt["max_raise_to"] or size)
            return _raise_to(prompt, k, size)
        if in_top(k.hole, 0.07 * width) and depth >= 30 or equity >= pot_odds + 0.1:
            return Call(seat_index=seat)
        return Fold(seat_index=seat)
    if in_top(k.hole, 0.015):
        return _raise_to(prompt, k, int(prompt["max_raise_to"] or 0))
    if in_top(k.hole, 0.03) or equity >= pot_odds + 0.02:
        return Call(seat_index=seat)
    return Fold(seat_index=seat)


def _push_fold(
    prompt: dict[str, Any],
    k: Knowledge,
    spot: Spot,
    equity: float,
    style: Style,
    width: float,
    pot_odds: float,
    rnd: random.Random,
) -> Command:
    """Below 15 big blinds: shove or fold first in; call a shove by equity against the
    shover's range and the pot odds."""
    seat = k.seat
    to_call = int(prompt["to_call"])
    if spot.raises == 0:
        if to_call == 0:
            if in_top(k.hole, 0.2 * width):
                return _raise_to(prompt, k, int(prompt["max_raise_to"] or 0))
            return Check(seat_index=seat)
        chart = push_fraction(spot.behind if spot.players > 2 else 1, spot.effective_bb) * width
        if spot.limpers:
            chart *= 0.6
        if in_top(k.hole, chart):
            if rnd.random() < style.limp * 0.3 and to_call <= k.big_blind:
                return Call(seat_index=seat)
            return _raise_to(prompt, k, int(prompt["max_raise_to"] or 0))
        if spot.is_blind and to_call <= k.big_blind // 2 and rnd.random() < style.limp:
            return Call(seat_index=seat)
        return Fold(seat_index=seat)
    if equity >= pot_odds - style.call_slack * 0.5:
        if in_top(k.hole, 0.06) and prompt["max_raise_to"] is not None:
            return _raise_to(prompt, k, int(prompt["max_raise_to"]))
        return Call(seat_index=seat)
    return Fold(seat_index=seat)


# -- after the flop ------------------------------------------------------------------------


def _postflop(
    prompt: dict[str, Any],
    k: Knowledge,
    spot: Spot,
    equity: float,
    style: Style,
    profile: Profile,
    rnd: random.Random,
    aggressor: int | None = None,
    stab_position: float | None = None,
) -> Command:
    seat = k.seat
    to_call = int(prompt["to_call"])
    n = max(1, k.opponents)
    mine = aggressor == seat  # the bot bet last on the street before: it has the initiative
    fair = 1.0 / (n + 1)
    value_line = min(0.9, fair + style.value_margin + 0.15 * (1 - fair))
    raise_line = min(0.95, value_line + style.raise_margin)
    can_raise = ("bet" in prompt["actions"] or "raise_to" in prompt["actions"]) and prompt[
        "min_raise_to"
    ] is not None
    draw = k.street != "river" and has_draw(k.hole, k.board)
    strong = profile.level == "strong"
    if strong:  # thinner value; bluffs only heads-up (below)
        value_line -= 0.04
    if profile.level == "beginner" and rnd.random() < 0.2:
        equity = min(1.0, equity + rnd.uniform(-0.1, 0.25))
    if to_call == 0:
        value_chance = min(1.0, style.aggression + (0.2 if mine else 0.0))
        if can_raise and equity >= value_line and rnd.random() < value_chance:
            return _bet(prompt, k, spot, (equity - value_line) / (1 - value_line), strong)
        if can_raise and mine and rnd.random() < _barrel_chance(k, style, draw, equity, n):
            return _bet(prompt, k, spot, 0.0, strong)  # a continuation bet, a barrel
        if can_raise and stab_position is not None and rnd.random() < _stab_chance(
            k, style, stab_position, draw, equity, n
        ):
            return _bet(prompt, k, spot, 0.0, strong)  # a stab at a pot nobody wants
        bluff = style.bluff * (1.0 if n == 1 else 0.0 if strong else 0.3)
        if draw:
            bluff = min(0.9, bluff * 1.6 + style.draw_bluff)
        elif k.street == "river":  # polarised: bluff the busted hands, show down the middle
            bluff = bluff * 1.5 if equity < 0.3 else 0.0
        if can_raise and equity < value_line and rnd.random() < bluff:
            return _bet(prompt, k, spot, 0.0, strong)
        return Check(seat_index=seat)
    pot_odds = to_call / (k.pot_total + to_call)
    if can_raise and equity >= raise_line and rnd.random() < style.aggression:
        return _bet(prompt, k, spot, (equity - raise_line) / (1 - raise_line) + 0.3, strong)
    slack = style.call_slack * (0.5 if k.street == "river" else 1.0) + (0.06 if draw else 0.0)
    # Later streets: a bet there is rarely a bluff; weak holdings give up.
    slack -= style.give_up * {"flop": 0.25, "turn": 1.25, "river": 2.0}.get(k.street, 0.0)
    if k.street == "flop" and not strong:
        slack += style.float_slack  # the strong level does not float: it reads the bettor
    if strong and to_call <= 0.5 * k.pot_total:
        slack += 0.03  # small bets are often bluffs: defend more
    # Equity is not all won: a hand that calls now faces more bets on later streets.
    realized = equity * (0.88 if k.street != "river" and profile.level != "beginner" else 1.0)
    if realized >= pot_odds - slack:
        return Call(seat_index=seat)
    if (
        can_raise
        and draw
        and n == 1
        and rnd.random() < style.bluff * 0.35
        and k.stack > 3 * to_call
    ):
        return _bet(prompt, k, spot, 0.2, strong)
    return Fold(seat_index=seat)


def _barrel_chance(k: Knowledge, style: Style, draw: bool, equity: float, n: int) -> float:
    """The chance the bot with the initiative bets without value: a continuation bet on the
    flop by board texture, a second barrel on the turn (more with a draw), a third on the river
    with a busted hand only; halved against two opponents, rare against more."""
    if k.street == "flop":
        texture = board_texture(k.board)
        chance = style.cbet * {"dry": 1.15, "paired": 1.1}.get(texture, 0.8)
    elif k.street == "turn":
        chance = style.barrel * (1.5 if draw else 1.0)
    else:
        chance = 0.5 * style.barrel if equity < 0.3 else 0.0
    return min(0.95, chance * (1.0 if n == 1 else 0.5 if n == 2 else 0.15))


def _stab_chance(
    k: Knowledge, style: Style, position: float, draw: bool, equity: float, n: int
) -> float:
    """The chance to bet a pot nobody is betting (:func:`unopened`) below the value line: the
    style's ``stab`` by position, more with a draw; on the river busted hands (equity < 0.3)
    and, at half the rate, the middle (a thin bet that folds out worse hands behind a
    checked-down line); 0.6 of it against two opponents, 0.35 against more."""
    chance = style.stab * position * (1.3 if draw else 1.0)
    if k.street == "river":
        chance *= style.river_stab * (0.5 if equity >= 0.3 else 1.0)
    return min(0.9, chance * (1.0 if n == 1 else 0.6 if n == 2 else 0.35))


def _bet(
    prompt: dict[str, Any], k: Knowledge, spot: Spot, strength: float, strong: bool
) -> Command:
    """A bet or a raise sized by street, board and strength, inside the prompt's range."""
    fraction = bet_fraction(k.street, k.board, max(1, k.opponents), strength)
    if strong and strength > 0.5:
        fraction = min(1.0, fraction + 0.15)
    to_call = int(prompt["to_call"])
    if to_call:
        amount = k.current_bet + to_call + int(fraction * (k.pot_total + to_call))
    else:
        amount = int(fraction * k.pot_total)
    high = int(prompt["max_raise_to"])
    if amount >= 0.6 * high:
        amount = high
    return _raise_to(prompt, k, amount)


# -- legality ------------------------------------------------------------------------------


def _raise_to(prompt: dict[str, Any], k: Knowledge, amount: int) -> Command:
    """A bet or raise to *amount*, clamped into the prompt's range; a call (or check) when the
    prompt allows no raise."""
    seat = k.seat
    low, high = prompt.get("min_raise_to"), prompt.get("max_raise_to")
    actions = prompt["actions"]
    if low is None or high is None or not ("bet" in actions or "raise_to" in actions):
        if "call" in actions:
            return Call(seat_index=seat)
        return Check(seat_index=seat) if "check" in actions else Fold(seat_index=seat)
    amount = max(int(low), min(int(high), int(amount)))
    if "bet" in actions:
        return Bet(seat_index=seat, amount=amount)
    return RaiseTo(seat_index=seat, amount=amount)


def _legal(command: Command, prompt: dict[str, Any]) -> Command:
    """The last guard of :func:`naiko.bots._legal`; never a fold when checking is free."""
    seat = int(prompt["seat_index"])
    if command.kind == "fold" and "check" in prompt["actions"]:
        return Check(seat_index=seat)
    return bots._legal(command, prompt)


# -- Naiko powers by expected value --------------------------------------------------------


def _window_aimed_at(view: dict[str, Any], seat: int) -> bool:
    powers = (view.get("hand") or {}).get("powers") or {}
    return any(w.get("target") == seat for w in powers.get("windows", []))


def _shield_choice(
    view: dict[str, Any], k: Knowledge, spot: Spot, equity: float, profile: Profile
) -> Command | None:
    """Seal Shield when the Anchor costs more than a destello: a hand that wants to raise loses
    the part of its raise above the pot-size limit, worth ``(equity - 1/2)`` of the chips it
    could no longer put in, counted at a tenth (the raise is called or not, the limit binds only
    sometimes); else pass."""
    if not _window_aimed_at(view, k.seat):
        return None
    powers = view["hand"].get("powers") or {}
    if (
        powers.get("can_shield")
        and k.destellos >= SEAL_SHIELD.cost
        and SEAL_SHIELD in powers.get("carousel", [])
    ):
        beyond = max(0, k.stack - 2 * k.pot_total)
        cost = max(0.0, equity - 0.5) * beyond * 0.1
        if cost > destello_value(k.destellos, k.big_blind) * SEAL_SHIELD.cost:
            return UsePower(seat_index=k.seat, power=SEAL_SHIELD)
    return PassWindow(seat_index=k.seat)


def peek_value(equity: float, pot_after_call: int, to_call: int, draw: bool) -> float:
    """The expected value (chips) of seeing the next card before a call: with probability
    ``q`` (0.2 with a draw, 0.1 without) the card is a hit that lifts the equity most of the way
    to 1, otherwise the equity drops so the average stays; knowing which lets the bot call only
    when the call is worth it.

    >>> round(peek_value(0.25, 100, 40, True), 1) > 0, round(peek_value(0.9, 100, 10, False), 6)
    (True, 0.0)
    """
    if to_call <= 0:
        return 0.0
    q = 0.2 if draw else 0.1
    hit = min(1.0, equity + (1 - equity) * 0.7)
    miss = max(0.0, (equity - q * hit) / (1 - q))

    def ev(e: float) -> float:
        return max(0.0, e * pot_after_call - to_call)

    return max(0.0, q * ev(hit) + (1 - q) * ev(miss) - ev(equity))


def _power_choice(
    prompt: dict[str, Any],
    k: Knowledge,
    spot: Spot,
    equity: float,
    profile: Profile,
    rnd: random.Random,
) -> Command | None:
    usable = [
        p
        for p in prompt.get("powers") or []
        if p in bots.POWER_NAMES and k.destellos >= Power(p).cost
    ]
    if not usable:
        return None
    d = destello_value(k.destellos, k.big_blind)
    to_call = int(prompt["to_call"])
    if SLEEVE_SWAP in usable and k.street == "preflop" and len(k.hole) == 2:
        index, gain = _swap_gain(k.hole, spot, k.big_blind)
        if index is not None and gain > SLEEVE_SWAP.cost * d:
            return UsePower(seat_index=k.seat, power=SLEEVE_SWAP, card_index=index)
    if PEEK in usable and k.peek is None and k.street != "river" and k.stack > 0:
        draw = has_draw(k.hole, k.board)
        value = peek_value(equity, k.pot_total + to_call, to_call, draw)
        if value > PEEK.cost * d:
            return UsePower(seat_index=k.seat, power=PEEK)
    targets = [t for t in prompt.get("anchor_targets") or [] if t in k.opponent_stacks]
    if SHORT_ANCHOR in usable and targets:
        target = max(targets, key=lambda t: (k.opponent_stacks[t], -t))
        pot_odds = to_call / (k.pot_total + to_call) if to_call else 0.0
        # A hand that means to call but not to face a big re-raise: the chips a re-raise could
        # add beyond a pot-size raise, at the chance it comes (~5 %) times what the bot loses
        # by folding its equity there.
        calling = to_call > 0 and pot_odds <= equity < 0.6
        beyond = max(0, min(k.opponent_stacks[target], k.stack) - 2 * (k.pot_total + to_call))
        value = 0.05 * beyond * equity if calling else 0.0
        if value > SHORT_ANCHOR.cost * d:
            return UsePower(seat_index=k.seat, power=SHORT_ANCHOR, target_seat=target)
    return None


def _swap_gain(hole: tuple[Card, ...], spot: Spot, bb: int) -> tuple[int | None, float]:
    """Sleeve Swap's expected value (chips): keep the higher card, draw the other from the 50
    unseen cards; the gain is the chance the new hand enters the bot's opening chart (it did
    not before) times about one big blind (what an opening hand earns over a fold)."""
    chart = open_fraction(spot.behind, spot.players)
    if strength_of(hole) <= chart:
        return None, 0.0
    low = 0 if hole[0] >> 2 < hole[1] >> 2 else 1
    keep = hole[1 - low]
    seen = set(hole)
    hits = sum(1 for c in range(52) if c not in seen and strength_of((keep, c)) <= chart)
    return low, hits / 50 * bb
