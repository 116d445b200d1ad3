#!/usr/bin/env python3
"""How long a bot takes to decide: :func:`naiko.bots.decide` timed over whole hands.

    .venv/bin/python scripts/bench_bots.py [--hands 6] [--seed timing]

Bots sit in every seat of NLHE, PLO and NAIKO tables of 2, 6 and 10 seats (stacks 200, blinds
1/2, busted bots reload) and play ``--hands`` hands each, driven only through
:func:`naiko.views.view_for` and :func:`naiko.engine.apply`; open Short Anchor windows are
answered with :func:`naiko.bots.respond` (not timed). Every ``decide`` call is timed; printed:
p50, p99 and max over all decisions, and per table the count, mean, p99 and max. The first
decisions of the process include the evaluator building its lookup tables once. Figures and
the budget: docs/bots.md, "Decision time".
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "engine"))

from naiko.bots import decide, respond  # noqa: E402
from naiko.cards import shuffled_deck  # noqa: E402
from naiko.commands import AddChips, SitDown, StartHand, WindowTimeout  # noqa: E402
from naiko.engine import apply, legal_actions  # noqa: E402
from naiko.powers import draw_carousel  # noqa: E402
from naiko.state import TableConfig, TableState, Variant  # noqa: E402
from naiko.views import view_for  # noqa: E402

MAX_COMMANDS_PER_HAND = 400


def bot_table(variant: Variant, seat_count: int) -> TableState:
    state = TableState.new(TableConfig(variant=variant, seat_count=seat_count, small_blind=1,
                                       big_blind=2))
    for seat in range(seat_count):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=f"bot{seat}", stack=200,
                                        is_bot=True))
    return state


def play(state: TableState, hands: int, rng: random.Random, times: list[float]) -> None:
    """Play *hands* hands with bots in every seat, appending each ``decide`` time."""
    for number in range(hands):
        for seat, player in enumerate(state.seats):  # reload busted bots (R7.1)
            if player is not None and player.stack < 20:
                state, _ = apply(state, AddChips(seat_index=seat, amount=200))
        button = rng.randrange(len(state.seats)) if number == 0 else None
        carousel = draw_carousel(rng) if state.config.rules.powers else ()
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button,
                                          carousel=carousel))
        for _ in range(MAX_COMMANDS_PER_HAND):
            hand = state.hand
            assert hand is not None
            for window in list(hand.powers.windows) if hand.powers is not None else []:
                answer = respond(view_for(state, window.target), rng) if rng.random() < 0.7 \
                    else WindowTimeout(window_id=window.window_id)
                assert answer is not None
                state, _ = apply(state, answer)
            prompt = legal_actions(state)
            if prompt is None:
                break
            view = view_for(state, prompt.seat_index)
            start = time.perf_counter()
            command = decide(view, rng)
            times.append(time.perf_counter() - start)
            assert command is not None
            state, _ = apply(state, command)
        else:
            raise AssertionError("a hand did not end")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=6)
    parser.add_argument("--seed", default="timing")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    everything: list[float] = []
    lines = []
    for variant in Variant:
        for seat_count in (2, 6, 10):
            times: list[float] = []
            play(bot_table(variant, seat_count), args.hands, rng, times)
            times.sort()
            everything += times
            lines.append(f"  {variant.value:5} {seat_count:2} seats: {len(times):4} decisions, "
                         f"mean {statistics.fmean(times) * 1e3:5.2f} ms, "
                         f"p99 {times[int(len(times) * 0.99)] * 1e3:5.2f} ms, "
                         f"max {times[-1] * 1e3:5.2f} ms")
    everything.sort()
    p50 = everything[len(everything) // 2]
    p99 = everything[int(len(everything) * 0.99)]
    print(f"bot decision time over {len(everything)} decisions: p50 {p50 * 1e3:.2f} ms, "
          f"p99 {p99 * 1e3:.2f} ms, max {everything[-1] * 1e3:.2f} ms")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
