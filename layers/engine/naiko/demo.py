""":mod:`naiko.demo` plays a few hands of each variant between bots (:mod:`naiko.bots`, which
see only their own seat's view) and prints what happened and each hand's history in PHH
(``naiko-demo``).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from .bots import decide
from .cards import seeded_random, shuffled_deck, system_random
from .commands import SitDown, StartHand
from .engine import apply, legal_actions
from .events import (
    ActionTaken,
    BlindPosted,
    BoardDealt,
    Event,
    HandStarted,
    PotAwarded,
    PowerUsed,
    Showdown,
    UncalledBetReturned,
)
from .phh import to_phh
from .powers import draw_carousel
from .state import TableConfig, TableState, Variant
from .views import view_for


def narrate(event: Event) -> str | None:
    """One line for the events worth printing, ``None`` for the others."""
    match event:
        case HandStarted():
            return (f"Hand #{event.hand_number}: button seat {event.button}, blinds "
                    f"{event.small_blind}/{event.big_blind}")
        case BlindPosted():
            return f"  seat {event.seat_index} posts the {event.blind} blind {event.amount}"
        case ActionTaken():
            amount = "" if event.to is None else f" {event.to}"
            return f"  seat {event.seat_index} {event.action.replace('_', ' ')}{amount}"
        case BoardDealt():
            return f"  {event.street}: {event.board}"
        case Showdown():
            return "\n".join(f"  seat {h.seat_index} shows {h.cards} ({h.hand})"
                             for h in event.hands)
        case PotAwarded():
            return f"  pot {event.amount} -> {event.winners}"
        case UncalledBetReturned():
            return f"  {event.amount} uncalled returned to seat {event.seat_index}"
        case PowerUsed():
            target = "" if event.target_seat is None else f" on seat {event.target_seat}"
            return f"  seat {event.seat_index} uses {event.power}{target}"
    return None


def play_table(variant: Variant, hands: int, rng: random.Random, out: list[str]) -> None:
    config = TableConfig(variant=variant, seat_count=4, small_blind=1, big_blind=2)
    state = TableState.new(config)
    for seat in range(4):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=f"player{seat + 1}",
                                        stack=200))
    out.append(f"=== {variant.value} ===")
    for _ in range(hands):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        button = rng.choice(active) if state.last_big_blind_seat is None else None
        carousel = draw_carousel(rng) if config.rules.powers else ()
        state, events = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button,
                                               carousel=carousel))
        while True:
            out.extend(line for e in events if (line := narrate(e)))
            prompt = legal_actions(state)
            if prompt is None:
                break
            command = decide(view_for(state, prompt.seat_index), rng)
            assert command is not None
            state, events = apply(state, command)
        out.append(to_phh(state).rstrip())  # Naiko: NT with the _naiko_* extension
        out.append("")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play a few engine hands and print them.")
    parser.add_argument("--hands", type=int, default=2, help="hands per variant")
    parser.add_argument("--seed", type=int, default=None, help="repeatable demo")
    args = parser.parse_args(argv)
    rng = seeded_random(args.seed) if args.seed is not None else system_random()
    out: list[str] = []
    for variant in Variant:
        play_table(variant, args.hands, rng, out)  # type: ignore[arg-type]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
