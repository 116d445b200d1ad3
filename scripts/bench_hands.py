"""Complete hands per second: our engine against PokerKit 0.7.7, in one process.

Both engines play the same random No-Limit Hold'em hands at a 6-max table (blinds 1/2,
stacks of 20 to 300 big blinds, the same shuffled deck, the same random numbers driving the
same action policy: fold, check or call, min raise, max raise or an amount in between). The
decks, stacks and random numbers are drawn before the clock starts; everything each engine
needs to play a hand is timed: creating the table or state, posting the blinds, dealing the
fixed deck, every decision (legal actions and the action) and the showdown. PokerKit is used
unchanged, with its automations for antes, blinds, bet collection, showdown, hand killing and
pushing/pulling chips; cards are dealt by hand from the fixed deck (burning ``??``).

Also: our ``apply`` (copies the state for every command) against ``apply_in_place``, and the
cold start of a fresh interpreter (import and one complete hand, median of several runs, minus
the start of ``python -c pass``).

Usage: ``python scripts/bench_hands.py [--hands N] [--pokerkit-hands N] [--cold-runs N]``
(about a minute with the defaults on an idle machine).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "layers" / "engine"
if str(ENGINE) not in sys.path:
    sys.path.insert(0, str(ENGINE))

from naiko.cards import format_cards, shuffled_deck  # noqa: E402
from naiko.commands import (  # noqa: E402
    Bet,
    Call,
    Check,
    Command,
    Fold,
    RaiseTo,
    SitDown,
    StartHand,
)
from naiko.engine import apply, apply_in_place, legal_actions  # noqa: E402
from naiko.state import TableConfig, TableState  # noqa: E402
from pokerkit import Automation, NoLimitTexasHoldem  # noqa: E402

SEATS, SMALL_BLIND, BIG_BLIND = 6, 1, 2
NUMBERS_PER_HAND = 400
"""Random numbers drawn per hand for the policy (each decision uses two)."""


@dataclass(frozen=True)
class HandInput:
    """Everything random about one hand, drawn before timing."""

    stacks: tuple[int, ...]
    deck: tuple[int, ...]
    hole_text: tuple[str, ...]
    """PokerKit's hole cards per player (player i = seat i: seat 5 is the button)."""
    board_text: str
    numbers: tuple[float, ...]


def make_inputs(count: int, seed: int) -> list[HandInput]:
    rng = random.Random(seed)
    inputs = []
    for _ in range(count):
        stacks = tuple(rng.randint(20 * BIG_BLIND, 300 * BIG_BLIND) for _ in range(SEATS))
        deck = tuple(shuffled_deck(rng))
        holes = tuple(format_cards(deck[2 * i:2 * i + 2]) for i in range(SEATS))
        board = format_cards(deck[2 * SEATS:2 * SEATS + 5])
        numbers = tuple(rng.random() for _ in range(NUMBERS_PER_HAND))
        inputs.append(HandInput(stacks, deck, holes, board, numbers))
    return inputs


def policy(u: float, v: float, to_call: int, lo: int | None, hi: int | None
           ) -> tuple[str, int | None]:
    """The same action policy for both engines: (kind, raise-to amount)."""
    if to_call and u < 0.25:
        return "fold", None
    if lo is None or hi is None or u < 0.75:
        return "call", None
    if v < 0.4:
        return "raise", lo
    if v < 0.55:
        return "raise", hi
    return "raise", lo + int((hi - lo) * v)


# -- our engine ------------------------------------------------------------------------------

CONFIG = TableConfig(seat_count=SEATS, small_blind=SMALL_BLIND, big_blind=BIG_BLIND)


def ours_hand(hand: HandInput, copying: bool) -> list[int]:
    """One complete hand; returns the final stacks."""
    step: Callable[[TableState, Command], TableState]
    if copying:
        def step(state: TableState, command: Command) -> TableState:
            return apply(state, command)[0]
    else:
        def step(state: TableState, command: Command) -> TableState:
            apply_in_place(state, command)
            return state
    state = TableState.new(CONFIG)
    for seat, stack in enumerate(hand.stacks):
        state = step(state, SitDown(seat_index=seat, player_id=f"p{seat}", stack=stack))
    state = step(state, StartHand(deck=hand.deck, button=SEATS - 1))
    numbers = hand.numbers
    i = 0
    while True:
        p = legal_actions(state)
        if p is None:
            break
        kind, to = policy(numbers[i], numbers[i + 1], p.to_call, p.min_raise_to, p.max_raise_to)
        i += 2
        seat = p.seat_index
        command: Command
        if kind == "fold":
            command = Fold(seat_index=seat)
        elif kind == "call":
            command = Call(seat_index=seat) if p.to_call else Check(seat_index=seat)
        elif "bet" in p.actions:
            assert to is not None
            command = Bet(seat_index=seat, amount=to)
        else:
            assert to is not None
            command = RaiseTo(seat_index=seat, amount=to)
        state = step(state, command)
    return [s.stack if s else 0 for s in state.seats]


# -- PokerKit --------------------------------------------------------------------------------

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def pokerkit_hand(hand: HandInput) -> list[int]:
    """One complete hand; returns the final stacks."""
    state = NoLimitTexasHoldem.create_state(
        AUTOMATIONS, False, 0, (SMALL_BLIND, BIG_BLIND), BIG_BLIND, hand.stacks, SEATS)
    numbers = hand.numbers
    i = 0
    board = hand.board_text
    dealt = 0
    while state.status:
        if state.actor_index is not None:
            to_call = state.checking_or_calling_amount
            assert to_call is not None
            kind, to = policy(numbers[i], numbers[i + 1], to_call,
                              state.min_completion_betting_or_raising_to_amount,
                              state.max_completion_betting_or_raising_to_amount)
            i += 2
            if kind == "fold" and to_call:
                state.fold()
            elif kind == "raise":
                state.complete_bet_or_raise_to(to)
            else:
                state.check_or_call()
        elif any(state.hole_dealing_statuses):
            state.deal_hole(hand.hole_text[state.hole_dealee_index])  # type: ignore[index]
        elif state.card_burning_status:
            state.burn_card("??")
        else:
            count = state.board_dealing_counts[0]
            state.deal_board(board[2 * dealt:2 * (dealt + count)])
            dealt += count
    return list(state.stacks)


# -- measuring -------------------------------------------------------------------------------

def rates(runs: list[tuple[Callable[[HandInput], object], list[HandInput]]],
          passes: int = 3) -> list[float]:
    """Hands per second of each (play, inputs): the best of *passes* passes, the runs taking
    turns so that a change in the machine's load hits them alike."""
    best = [float("inf")] * len(runs)
    for _ in range(passes):
        for k, (play, inputs) in enumerate(runs):
            started = time.perf_counter()
            for hand in inputs:
                play(hand)
            best[k] = min(best[k], time.perf_counter() - started)
    return [len(inputs) / t for (_, inputs), t in zip(runs, best, strict=True)]


OURS_SNIPPET = """
import random
from naiko.cards import shuffled_deck
from naiko.commands import SitDown, StartHand, Call, Check
from naiko.engine import apply_in_place, legal_actions, TableState, TableConfig
state = TableState.new(TableConfig(seat_count=6, small_blind=1, big_blind=2))
for seat in range(6):
    apply_in_place(state, SitDown(seat_index=seat, player_id=f"p{seat}", stack=200))
apply_in_place(state, StartHand(deck=tuple(shuffled_deck(random.Random(1))), button=5))
while (p := legal_actions(state)) is not None:
    seat = p.seat_index
    apply_in_place(state, Call(seat_index=seat) if p.to_call else Check(seat_index=seat))
assert state.hand.complete
"""

POKERKIT_SNIPPET = """
from pokerkit import Automation, NoLimitTexasHoldem
state = NoLimitTexasHoldem.create_state(tuple(Automation), False, 0, (1, 2), 2, (200,) * 6, 6)
while state.status:
    state.check_or_call()
"""


def cold_start(code: str, runs: int) -> float:
    """Median wall time in ms of a fresh ``python -c code``."""
    env = {"PYTHONPATH": str(ENGINE), "PYTHONDONTWRITEBYTECODE": "1"}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4000, help="hands for our engine")
    parser.add_argument("--pokerkit-hands", type=int, default=500, help="hands for PokerKit")
    parser.add_argument("--cold-runs", type=int, default=11)
    parser.add_argument("--seed", type=int, default=20260101)
    args = parser.parse_args()

    inputs = make_inputs(args.hands, args.seed)
    pk_inputs = inputs[:args.pokerkit_hands]
    same = sum(ours_hand(h, False) == pokerkit_hand(h) for h in pk_inputs)

    print(f"Python {platform.python_version()} on {platform.machine()}, "
          f"PokerKit {version('pokerkit')}; "
          f"NLHE 6-max, blinds {SMALL_BLIND}/{BIG_BLIND}, stacks 20-300 bb, random actions")
    print(f"same final stacks in both engines: {same} of {len(pk_inputs)} hands (the others "
          f"differ by design, see docs/pokerkit-differences.md)")
    print(f"load average before timing: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    in_place, copying, theirs = rates([(lambda h: ours_hand(h, False), inputs),
                                       (lambda h: ours_hand(h, True), inputs),
                                       (pokerkit_hand, pk_inputs)])
    print(f"{'engine':<34}{'hands/s':>10}{'ms/hand':>10}")
    for name, r in (("ours, apply_in_place", in_place), ("ours, apply (copies the state)", copying),
                    ("PokerKit 0.7.7", theirs)):
        print(f"{name:<34}{r:>10,.0f}{1000 / r:>10.3f}")
    print(f"ratio ours (apply_in_place) / PokerKit: {in_place / theirs:.1f}x "
          f"(apply: {copying / theirs:.1f}x); goal >= 10x")
    print(f"apply_in_place / apply: {in_place / copying:.2f}x")

    base = cold_start("pass", args.cold_runs)
    rows = (
        ("import naiko.engine", "import naiko.engine"),
        ("import naiko.engine + one hand", OURS_SNIPPET),
        ("import pokerkit", "import pokerkit"),
        ("import pokerkit + one hand", POKERKIT_SNIPPET),
    )
    print(f"cold start, median of {args.cold_runs} fresh interpreters, minus "
          f"`python -c pass` ({base:.0f} ms):")
    for name, code in rows:
        print(f"  {name:<32}{cold_start(code, args.cold_runs) - base:>7.0f} ms")


if __name__ == "__main__":
    main()
