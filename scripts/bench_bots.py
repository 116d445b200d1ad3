#!/usr/bin/env python3
"""Bots measured: decision time, each style's tracker statistics, heads-up duplicate matches,
the strong bot at a 6-max table of the other styles, and bot-only Spins (issue 24).

    .venv/bin/python scripts/bench_bots.py [--hands 5000] [--seed bench] [--only SECTION ...]

Sections (all by default; ``--only`` picks some):

- ``timing``: the old bot (:func:`naiko.bots.decide`) in every seat of NLHE, PLO and NAIKO
  tables of 2, 6 and 10 seats (stacks 200, blinds 1/2, busted bots reload), ``--hands // 800``
  hands each (at least 3); p50, p99 and max over all decisions, and per table.
- ``styles``: 6-max NLHE, 100 big blinds, busted seats reload; regular bots at two tables that
  seat each style three times, ``--hands / 3`` hands each (so ``--hands`` hands per style);
  beginner and strong at one table (two tight- and loose-aggressive seats), ``--hands // 5``. Per
  style and level: VPIP, PFR, 3-bet (re-raises when facing one raise before the flop), WTSD
  (showdowns among hands that saw the flop), AF ((bets + raises) / calls after the flop),
  checked against the published bands (:data:`BANDS`); decision time mean and p99 per variant.
- ``duplicate``: heads-up NLHE at 100 big blinds, stacks reset every hand, ``--hands // 10``
  deals per match (at least 3); each deal played twice with the same deck, seats swapped; the
  strong tight-aggressive bot against the old bot and the baselines (calling station, all-in
  maniac, random, rule-based tight-aggressive). Printed: the strong bot's bb/100 with a 95 %
  interval over the deals.
- ``sixmax``: the strong tight-aggressive bot with the five regular styles (two
  tight-aggressive), ``--hands // 4`` hands (at least 3): bb/100 of each seat, 95 % intervals.
- ``spin``: bot-only Spins (3 seats, 500 chips, blinds 10/20) played to one winner, regular
  bots of three styles and the old bot; ``--hands // 100`` Spins each (at least 1), the blinds
  fixed, and rising through the hyper structure every 6 hands. Median hands.

Everything is driven only through :func:`naiko.views.view_for` and :func:`naiko.engine.apply`.
Figures and goals: docs/bots.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "engine"))

from naiko import bot_styles  # noqa: E402
from naiko.bot_styles import STYLES, Profile  # noqa: E402
from naiko.bots import decide, respond  # noqa: E402
from naiko.cards import parse_cards, shuffled_deck  # noqa: E402
from naiko.commands import (  # noqa: E402
    AddChips,
    Bet,
    Call,
    Check,
    Command,
    Fold,
    RaiseTo,
    SitDown,
    StandUp,
    StartHand,
    WindowTimeout,
)
from naiko.engine import apply, legal_actions  # noqa: E402
from naiko.evaluator import Category, category_of, evaluate  # noqa: E402
from naiko.powers import draw_carousel  # noqa: E402
from naiko.ranges import in_top, read_spot  # noqa: E402
from naiko.state import TableConfig, TableState, Variant  # noqa: E402
from naiko.views import view_for  # noqa: E402

MAX_COMMANDS_PER_HAND = 400
SECTIONS = ("timing", "styles", "duplicate", "sixmax", "spin")

BANDS: dict[str, dict[str, tuple[float, float]]] = {
    "tight_aggressive": {
        "vpip": (22, 28),
        "pfr": (17, 22),
        "3bet": (6, 9),
        "wtsd": (24, 32),
        "af": (2, 3),
    },
    "loose_aggressive": {
        "vpip": (30, 40),
        "pfr": (24, 32),
        "3bet": (9, 14),
        "wtsd": (25, 33),
        "af": (2.5, 4.5),
    },
    "tight_passive": {
        "vpip": (15, 22),
        "pfr": (5, 11),
        "3bet": (1, 4),
        "wtsd": (27, 36),
        "af": (0.7, 1.6),
    },
    "loose_passive": {
        "vpip": (40, 60),
        "pfr": (3, 10),
        "3bet": (0, 3),
        "wtsd": (30, 40),
        "af": (0.4, 1.2),
    },
}
"""Published bands per style (regular level, 6-max, 100 big blinds): percent, AF a ratio.
WTSD (showdowns among the flops seen): a regular's 24-32 %, passive players who call down more
up to 36 % (tight) and 40 % (loose, a calling station); see docs/bots.md."""

Agent = Callable[[dict[str, Any], random.Random], Command | None]


# -- agents --------------------------------------------------------------------------------


def styled(profile: Profile) -> tuple[Agent, Agent]:
    def act(view: dict[str, Any], rng: random.Random) -> Command | None:
        return bot_styles.decide(view, profile, rng)

    def answer(view: dict[str, Any], rng: random.Random) -> Command | None:
        return bot_styles.respond(view, profile, rng)

    return act, answer


def _seat(view: dict[str, Any]) -> int:
    return int(view["prompt"]["seat_index"])


def calling_station(view: dict[str, Any], rng: random.Random) -> Command | None:
    p = view["prompt"]
    return Call(seat_index=_seat(view)) if "call" in p["actions"] else Check(seat_index=_seat(view))


def maniac(view: dict[str, Any], rng: random.Random) -> Command | None:
    p = view["prompt"]
    if p["max_raise_to"] is not None and ("bet" in p["actions"] or "raise_to" in p["actions"]):
        cls = Bet if "bet" in p["actions"] else RaiseTo
        return cls(seat_index=_seat(view), amount=int(p["max_raise_to"]))
    return calling_station(view, rng)


def random_player(view: dict[str, Any], rng: random.Random) -> Command | None:
    p = view["prompt"]
    kind = rng.choice([a for a in p["actions"] if a != "all_in"] or ["fold"])
    seat = _seat(view)
    if kind in ("bet", "raise_to"):
        amount = rng.randint(int(p["min_raise_to"]), int(p["max_raise_to"]))
        return (Bet if kind == "bet" else RaiseTo)(seat_index=seat, amount=amount)
    return {"call": Call, "check": Check}.get(kind, Fold)(seat_index=seat)


def rule_tag(view: dict[str, Any], rng: random.Random) -> Command | None:
    """A rule-based tight-aggressive player: raise the top 15 % preflop, call a raise with the
    top 8 %, re-raise the top 3 %; after the flop bet a pair or better made with a hole card,
    raise two pair or better, call a pair, otherwise check or fold."""
    p = view["prompt"]
    seat = _seat(view)
    me = view["seats"][seat]
    hole = parse_cards(me["cards"])
    board = parse_cards(view["hand"]["board"])
    to_call = int(p["to_call"])
    bb = int(view["config"]["big_blind"])
    can_raise = p["max_raise_to"] is not None and (
        "bet" in p["actions"] or "raise_to" in p["actions"]
    )
    cls = Bet if "bet" in p["actions"] else RaiseTo
    pot = int(view["hand"]["pot"]) + int(view["hand"]["bets_total"])
    cur = int(view["hand"]["current_bet"])

    def raise_to(amount: int) -> Command:
        if not can_raise:
            return Call(seat_index=seat) if "call" in p["actions"] else Check(seat_index=seat)
        return cls(
            seat_index=seat, amount=max(int(p["min_raise_to"]), min(int(p["max_raise_to"]), amount))
        )

    passive = Check(seat_index=seat) if to_call == 0 else Fold(seat_index=seat)
    if not board:
        if cur <= bb and in_top(hole, 0.15):
            return raise_to(3 * bb)
        if in_top(hole, 0.03):
            return raise_to(3 * cur)
        if in_top(hole, 0.08) and to_call > 0:
            return Call(seat_index=seat)
        return (
            passive
            if to_call > bb or to_call == 0
            else (Call(seat_index=seat) if in_top(hole, 0.3) and to_call <= bb // 2 else passive)
        )
    cat = category_of(evaluate(hole + board))
    board_cat = category_of(evaluate(board)) if len(board) >= 5 else Category.HIGH_CARD
    made = cat >= Category.ONE_PAIR and cat > board_cat
    if cat >= Category.TWO_PAIR and cat > board_cat:
        return raise_to(cur + pot)
    if made:
        if to_call == 0:
            return raise_to(pot * 2 // 3)
        return Call(seat_index=seat)
    return passive


BASELINES: dict[str, Agent] = {
    "calling station": calling_station,
    "all-in maniac": maniac,
    "random": random_player,
    "rule-based TAG": rule_tag,
}


def old_agent() -> tuple[Agent, Agent]:
    return decide, respond


def pass_window(view: dict[str, Any], rng: random.Random) -> Command | None:
    return None


# -- playing -------------------------------------------------------------------------------


@dataclasses.dataclass
class Tracker:
    hands: int = 0
    vpip: int = 0
    pfr: int = 0
    threebet_chances: int = 0
    threebets: int = 0
    saw_flop: int = 0
    showdowns: int = 0
    aggressive: int = 0
    calls: int = 0
    won: int = 0
    results: list[float] = dataclasses.field(default_factory=list)
    times: list[float] = dataclasses.field(default_factory=list)
    cpu: list[float] = dataclasses.field(default_factory=list)

    def line(self) -> dict[str, float]:
        h = max(1, self.hands)
        return {
            "vpip": 100 * self.vpip / h,
            "pfr": 100 * self.pfr / h,
            "3bet": 100 * self.threebets / max(1, self.threebet_chances),
            "wtsd": 100 * self.showdowns / max(1, self.saw_flop),
            "af": self.aggressive / max(1, self.calls),
        }


def new_table(
    seats: int,
    stack: int,
    sb: int,
    bb: int,
    variant: Variant = Variant.NLHE,
    players: int | None = None,
) -> TableState:
    state = TableState.new(
        TableConfig(variant=variant, seat_count=seats, small_blind=sb, big_blind=bb)
    )
    for seat in range(players if players is not None else seats):
        state, _ = apply(
            state, SitDown(seat_index=seat, player_id=f"bot{seat}", stack=stack, is_bot=True)
        )
    return state


def play_hand(
    state: TableState,
    agents: dict[int, tuple[Agent, Agent]],
    rng: random.Random,
    deck: list[int],
    button: int | None,
    trackers: dict[int, Tracker] | None = None,
    times: list[float] | None = None,
) -> TableState:
    carousel = draw_carousel(rng) if state.config.rules.powers else ()
    state, _ = apply(state, StartHand(deck=tuple(deck), button=button, carousel=carousel))
    hand = state.hand
    assert hand is not None
    dealt = [i for i, d in enumerate(hand.dealt) if d]
    flags: dict[int, dict[str, bool]] = {i: {} for i in dealt}
    for _ in range(MAX_COMMANDS_PER_HAND):
        hand = state.hand
        assert hand is not None
        for window in list(hand.powers.windows) if hand.powers is not None else []:
            answer = agents[window.target][1](view_for(state, window.target), rng)
            if answer is None:
                answer = WindowTimeout(window_id=window.window_id)
            state, _ = apply(state, answer)
        prompt = legal_actions(state)
        if prompt is None:
            break
        seat = prompt.seat_index
        view = view_for(state, seat)
        spot = read_spot(view) if trackers is not None else None
        start, cpu = time.perf_counter(), time.thread_time()
        command = agents[seat][0](view, rng)
        elapsed = time.perf_counter() - start
        cpu = time.thread_time() - cpu
        if times is not None:
            times.append(elapsed)
        assert command is not None
        if trackers is not None and seat in trackers and command.kind not in ("use_power",):
            trackers[seat].times.append(elapsed)
            trackers[seat].cpu.append(cpu)
            f = flags[seat]
            assert spot is not None
            if spot.street == "preflop":
                if command.kind in ("call", "bet", "raise_to"):
                    f["vpip"] = True
                if command.kind in ("bet", "raise_to"):
                    f["pfr"] = True
                if spot.raises == 1 and not f.get("3bet_chance") and int(prompt.to_call) > 0:
                    f["3bet_chance"] = True
                    f["3bet"] = command.kind == "raise_to"
            else:
                tr = trackers[seat]
                if command.kind in ("bet", "raise_to"):
                    tr.aggressive += 1
                elif command.kind == "call":
                    tr.calls += 1
        state, _ = apply(state, command)
    else:
        raise AssertionError("a hand did not end")
    hand = state.hand
    assert hand is not None
    if trackers is not None:
        for seat in dealt:
            if seat not in trackers:
                continue
            tr, f = trackers[seat], flags[seat]
            tr.hands += 1
            tr.vpip += f.get("vpip", False)
            tr.pfr += f.get("pfr", False)
            tr.threebet_chances += f.get("3bet_chance", False)
            tr.threebets += f.get("3bet", False)
    return state


def stacks(state: TableState) -> list[int]:
    return [s.stack if s is not None else 0 for s in state.seats]


def session(
    state: TableState,
    agents: dict[int, tuple[Agent, Agent]],
    hands: int,
    rng: random.Random,
    trackers: dict[int, Tracker],
    stack: int,
) -> None:
    """Cash play: *hands* hands, busted or short seats topped back up to *stack*; each seat's
    result per hand (big blinds) goes to its tracker."""
    bb = state.config.big_blind
    for number in range(hands):
        for seat, player in enumerate(state.seats):
            if player is not None and player.stack < stack:
                state, _ = apply(state, AddChips(seat_index=seat, amount=stack - player.stack))
        before = stacks(state)
        button = rng.randrange(len(state.seats)) if number == 0 else None
        state = play_hand_tracked(state, agents, rng, list(shuffled_deck(rng)), button, trackers)
        after = stacks(state)
        for seat, tr in trackers.items():
            tr.results.append((after[seat] - before[seat]) / bb)


def play_hand_tracked(
    state: TableState,
    agents: dict[int, tuple[Agent, Agent]],
    rng: random.Random,
    deck: list[int],
    button: int | None,
    trackers: dict[int, Tracker],
) -> TableState:
    state = play_hand(state, agents, rng, deck, button, trackers)
    hand = state.hand
    assert hand is not None
    # Saw the flop: dealt, not folded before the flop (the hand's log says when).
    reached_flop = len(hand.board) >= 3
    alive = [i for i, d in enumerate(hand.dealt) if d and not hand.folded[i]]
    showdown = len(alive) >= 2
    for seat, tr in trackers.items():
        if not hand.dealt[seat] or not reached_flop or _folded_before_flop(hand, seat):
            continue
        tr.saw_flop += 1
        tr.showdowns += showdown and seat in alive
    return state


def _folded_before_flop(hand: Any, seat: int) -> bool:
    for event in hand.log:
        if event.kind == "board_dealt":
            return False
        if event.kind == "action" and event.seat_index == seat and event.action == "fold":
            return True
    return False


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and 95 % half-width, per 100 of *values* (bb/100)."""
    if len(values) < 2:
        return (100 * (values[0] if values else 0.0), float("nan"))
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return 100 * mean, 100 * half


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0


# -- sections ------------------------------------------------------------------------------


def section_timing(hands: int, rng: random.Random) -> None:
    everything: list[float] = []
    lines = []
    agents_for = {i: old_agent() for i in range(10)}
    for variant in Variant:
        for seat_count in (2, 6, 10):
            times: list[float] = []
            state = new_table(seat_count, 200, 1, 2, variant)
            for number in range(hands):
                for seat, player in enumerate(state.seats):
                    if player is not None and player.stack < 20:
                        state, _ = apply(state, AddChips(seat_index=seat, amount=200))
                button = rng.randrange(seat_count) if number == 0 else None
                state = play_hand(
                    state, agents_for, rng, list(shuffled_deck(rng)), button, times=times
                )
            times.sort()
            everything += times
            lines.append(
                f"  {variant.value:5} {seat_count:2} seats: {len(times):4} decisions, "
                f"mean {statistics.fmean(times) * 1e3:5.2f} ms, "
                f"p99 {p99(times) * 1e3:5.2f} ms, max {times[-1] * 1e3:5.2f} ms"
            )
    everything.sort()
    print(
        f"old bot decision time over {len(everything)} decisions: "
        f"p50 {everything[len(everything) // 2] * 1e3:.2f} ms, "
        f"p99 {p99(everything) * 1e3:.2f} ms, max {everything[-1] * 1e3:.2f} ms"
    )
    print("\n".join(lines))


def section_styles(hands: int, rng: random.Random) -> bool:
    ok = True
    tag, lag, tp, lp = STYLES
    # Two regular tables seat every style three times: ``hands`` observations per style from
    # hands / 3 hands at each table. Beginner and strong: the first table, hands / 5 hands.
    seatings = ((tag, lag, tp, lp, tag, lag), (tp, lp, tag, lag, tp, lp))
    per_table = max(3, -(-hands // 3))
    print(
        "decision times: wall clock (mean, p99) and the thread's CPU time (p99): the CPU figure "
        "is the bot's own cost when other processes share the machine"
    )
    print(
        f"styles: 6-max NLHE, 100 bb; regular: two tables of {per_table} hands (each style in "
        f"three seats), beginner and strong: one table of {max(3, hands // 5)} hands"
    )
    print(
        f"  {'variant':30} {'hands':>6} {'VPIP':>5} {'PFR':>5} {'3bet':>5} {'WTSD':>5} "
        f"{'AF':>5} {'bb/100':>7} {'mean ms':>7} {'p99 ms':>6} {'p99 cpu':>7}  bands"
    )
    for level in ("regular", "beginner", "strong"):
        tables = seatings if level == "regular" else seatings[:1]
        count = per_table if level == "regular" else max(3, hands // 5)
        played: list[tuple[str, Tracker]] = []
        for seating in tables:
            state = new_table(6, 200, 1, 2)
            agents = {i: styled(Profile(seating[i], level)) for i in range(6)}
            trackers = {i: Tracker() for i in range(6)}
            session(state, agents, count, rng, trackers, 200)
            played += [(seating[i], trackers[i]) for i in range(6)]
        for style in STYLES:
            merged = Tracker()
            for t in (t for name, t in played if name == style):
                for f in (
                    "hands",
                    "vpip",
                    "pfr",
                    "threebet_chances",
                    "threebets",
                    "saw_flop",
                    "showdowns",
                    "aggressive",
                    "calls",
                ):
                    setattr(merged, f, getattr(merged, f) + getattr(t, f))
                merged.results += t.results
                merged.times += t.times
                merged.cpu += t.cpu
            s = merged.line()
            bands = BANDS[style]
            misses = [k for k, (lo, hi) in bands.items() if not lo <= s[k] <= hi]
            verdict = "in bands" if not misses else "outside: " + ", ".join(misses)
            if level == "regular" and misses:
                ok = False
            mean, _half = interval(merged.results)
            print(
                f"  {style + '/' + level:30} {merged.hands:6d} {s['vpip']:5.1f} {s['pfr']:5.1f} "
                f"{s['3bet']:5.1f} {s['wtsd']:5.1f} {s['af']:5.2f} {mean:7.1f} "
                f"{statistics.fmean(merged.times) * 1e3:7.2f} {p99(merged.times) * 1e3:6.2f} "
                f"{p99(merged.cpu) * 1e3:7.2f}  "
                f"{verdict if level == 'regular' else ''}"
            )
    print(
        "  published bands (regular, percent; AF a ratio): "
        + "; ".join(
            f"{style}: " + ", ".join(f"{k} {lo:g}-{hi:g}" for k, (lo, hi) in b.items())
            for style, b in BANDS.items()
        )
    )
    return ok


ALL_IN_SAMPLES = 4000
"""Boards drawn for a preflop all-in's equity (from the flop on, every board is counted)."""


def all_in_equity(state: TableState, seat: int, rng: random.Random) -> float | None:
    """Heads-up: *seat*'s share of the pot when nobody could bet any more before the river
    (the first ``run_out`` board, R4.3), the boards to come counted (wins, half the ties):
    exactly from the flop on, from :data:`ALL_IN_SAMPLES` random boards before it. ``None``
    when the hand had no run out (it was decided by play alone)."""
    hand = state.hand
    assert hand is not None
    runs = [e for e in hand.log if e.kind == "board_dealt" and e.run_out]  # type: ignore[attr-defined]
    if not runs:
        return None
    first = runs[0]
    board = parse_cards(first.board)  # type: ignore[attr-defined]
    known = board[: len(board) - len(parse_cards(first.cards))]  # type: ignore[attr-defined]
    mine, theirs = list(hand.hole[seat]), list(hand.hole[1 - seat])
    used = set(known) | set(mine) | set(theirs)
    rest = [c for c in range(52) if c not in used]
    missing = 5 - len(known)
    if missing <= 2:
        boards = list(itertools.combinations(rest, missing))
    else:
        boards = [tuple(rng.sample(rest, missing)) for _ in range(ALL_IN_SAMPLES)]
    share = 0.0
    for extra in boards:
        full = [*known, *extra]
        a, b = evaluate([*full, *mine]), evaluate([*full, *theirs])
        share += 1.0 if a > b else 0.5 if a == b else 0.0
    return share / len(boards)


def duplicate_match(
    hero: tuple[Agent, Agent],
    villain: tuple[Agent, Agent],
    deals: int,
    rng: random.Random,
    hero_times: list[float],
    adjusted: list[float] | None = None,
) -> list[float]:
    """Heads-up duplicate: each deal twice (same deck, same button seat), the hero in seat 0
    then seat 1; the hero's result per deal (both plays, big blinds). *adjusted* gets the same
    with all-in hands scored by the hero's equity when the chips went in (the pot times the
    equity, less what the hero put in; :func:`all_in_equity`): the usual all-in adjustment,
    which takes the luck of the run out away and leaves the decisions."""
    bb = 2
    out = []
    for _ in range(deals):
        deck = list(shuffled_deck(rng))
        total = adjusted_total = 0.0
        for hero_seat in (0, 1):
            agents = {hero_seat: hero, 1 - hero_seat: villain}
            state = new_table(2, 200, 1, bb)
            trackers = {hero_seat: Tracker()}
            state = play_hand(state, agents, rng, deck, 0, trackers)
            net = (stacks(state)[hero_seat] - 200) / bb
            total += net
            hero_times += trackers[hero_seat].times
            if adjusted is not None:
                equity = all_in_equity(state, hero_seat, rng)
                hand = state.hand
                assert hand is not None
                if equity is not None:
                    pot = sum(hand.committed)
                    net = (equity * pot - hand.committed[hero_seat]) / bb
                adjusted_total += net
        out.append(total)
        if adjusted is not None:
            adjusted.append(adjusted_total)
    return out


def section_duplicate(hands: int, rng: random.Random) -> bool:
    deals = max(3, hands // 10)
    strong = styled(Profile("tight_aggressive", "strong"))
    ok = True
    print(
        f"duplicate heads-up matches, NLHE 100 bb, {deals} deals x 2 (seats swapped): "
        "strong tight-aggressive bot's bb/100, 95 % interval"
    )
    opponents: list[tuple[str, tuple[Agent, Agent]]] = [("old bot", old_agent())]
    opponents += [(name, (agent, pass_window)) for name, agent in BASELINES.items()]
    for name, villain in opponents:
        times: list[float] = []
        adjusted: list[float] = []
        results = duplicate_match(strong, villain, deals, rng, times, adjusted)
        mean, half = interval([r / 2 for r in results])
        adj_mean, adj_half = interval([r / 2 for r in adjusted])
        goal = 20.0 if name == "old bot" else 0.0
        ok &= adj_mean > goal
        print(
            f"  vs {name:16}: {mean:+8.1f} ± {half:6.1f} bb/100, all-in adjusted "
            f"{adj_mean:+8.1f} ± {adj_half:6.1f} "
            f"({'ahead' if adj_mean > goal else 'NOT ahead'}{' by >= 20' if goal else ''}"
            f"{'' if adj_mean - adj_half > goal else ', not at 95 %'})"
        )
    return ok


def section_sixmax(hands: int, rng: random.Random) -> None:
    count = max(3, hands // 4)
    seating = [Profile("tight_aggressive", "strong")] + [
        Profile(s, "regular")
        for s in (
            "tight_aggressive",
            "loose_aggressive",
            "tight_passive",
            "loose_passive",
            "tight_aggressive",
        )
    ]
    state = new_table(6, 200, 1, 2)
    agents = {i: styled(p) for i, p in enumerate(seating)}
    trackers = {i: Tracker() for i in range(6)}
    session(state, agents, count, rng, trackers, 200)
    print(f"6-max NLHE 100 bb, {count} hands: bb/100 per seat (95 % interval)")
    for i, p in enumerate(seating):
        mean, half = interval(trackers[i].results)
        print(f"  seat {i} {p.name:28}: {mean:+7.1f} ± {half:5.1f}")


def spin(agents: dict[int, tuple[Agent, Agent]], rng: random.Random, rising: bool) -> int:
    from naiko.tournaments.structures import HYPER_STRUCTURE

    state = new_table(3, 500, 10, 20)
    hands = 0
    while sum(1 for s in state.seats if s is not None) > 1:
        if rising:
            level = HYPER_STRUCTURE[min(len(HYPER_STRUCTURE) - 1, hands // 6)]
            sb, bb = int(level[0]), int(level[1])
            state = dataclasses.replace(
                state, config=dataclasses.replace(state.config, small_blind=sb, big_blind=bb)
            )
        state = play_hand(
            state, agents, rng, list(shuffled_deck(rng)), rng.randrange(3) if hands == 0 else None
        )
        hands += 1
        for seat, player in enumerate(state.seats):
            if player is not None and player.stack == 0:
                state, _ = apply(state, StandUp(seat_index=seat))
        if hands > 2000:
            break
    return hands


def section_spin(hands: int, rng: random.Random) -> bool:
    count = max(1, hands // 100)
    ok = True
    print(f"bot-only Spins (3 seats, 500 chips, 10/20), {count} each: hands to a winner")
    regular = {
        i: styled(Profile(s, "regular"))
        for i, s in enumerate(("tight_aggressive", "loose_aggressive", "tight_passive"))
    }
    old = {i: old_agent() for i in range(3)}
    for name, agents in (("styled regular", regular), ("old", old)):
        for rising in (False, True):
            lengths = sorted(spin(agents, rng, rising) for _ in range(count))
            median = statistics.median(lengths)
            if name != "old" and not rising:
                ok &= median >= 15
            print(
                f"  {name:15} blinds {'rising /6 hands' if rising else 'fixed 10/20    '}: "
                f"median {median:5.1f} hands (min {lengths[0]}, max {lengths[-1]})"
            )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--only", nargs="*", choices=SECTIONS, default=list(SECTIONS))
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    goals = []
    started = time.perf_counter()
    if "timing" in args.only:
        section_timing(max(3, args.hands // 800), rng)
    if "styles" in args.only:
        goals.append(("styles in bands", section_styles(args.hands, rng)))
    if "duplicate" in args.only:
        goals.append(("strong ahead", section_duplicate(args.hands, rng)))
    if "sixmax" in args.only:
        section_sixmax(args.hands, rng)
    if "spin" in args.only:
        goals.append(("Spin median >= 15", section_spin(args.hands, rng)))
    print(
        "goals: "
        + ", ".join(f"{name} {'met' if met else 'NOT met'}" for name, met in goals)
        + f" ({time.perf_counter() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
