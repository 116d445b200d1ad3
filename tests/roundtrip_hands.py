"""Random engine hands exported to PHH and replayed (issue 14, R10.1): shared by
``tests/unit/test_phh_naiko.py`` (a few hundred hands) and ``scripts/phh_roundtrip.py``
(thousands).

One hand: a fresh table (2-10 seats, heads-up and 10-handed often), blinds, no ante, an ante
each or a big-blind ante, uneven and short stacks (side pots, all-ins); in Naiko mode random
destellos (0-3) and a random allowed Carousel. Play is random among the legal actions, and in
Naiko mode a seat to act uses one of the powers its prompt lists (a Sleeve Swap of either card,
a Short Anchor at any listed target) and an open Seal Shield window is answered by a shield, a
pass or a time-out. The finished hand goes ``from_state`` -> ``dumps`` -> ``loads`` ->
:func:`naiko.phh.replay` and must give the same finishing stacks (Naiko: and destellos); a Naiko
file must also replay as plain Hold'em (the extension ignored) to the same stacks; each
player's copy and an observer's (:func:`naiko.phh.for_reader`) must replay too and name no card
that reader was not shown during the hand. With PokerKit installed the same
text is read by ``pokerkit.HandHistory``; where its stacks differ or it refuses an action, the
hand must touch a rule on which RULES.md differs from PokerKit on purpose (R2.3, R2.8, R3.2,
R4.5), and is counted under that rule.
"""

from __future__ import annotations

import functools
import random
import warnings
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from naiko import phh
from naiko.cards import Card, format_cards, parse_cards, shuffled_deck
from naiko.commands import (
    AllIn,
    Bet,
    Call,
    Check,
    Command,
    Fold,
    PassWindow,
    RaiseTo,
    SitDown,
    StartHand,
    UsePower,
    WindowTimeout,
)
from naiko.engine import apply_in_place, legal_actions
from naiko.events import (
    ActionTaken,
    BoardDealt,
    HoleCardsDealt,
    Move,
    PeekResult,
    SleeveSwapResult,
)
from naiko.powers import ALLOWED_CAROUSELS, can_shield_now
from naiko.state import AnteMode, HandState, TableConfig, TableState, Variant

BLINDS = ((1, 2), (1, 2), (2, 4), (5, 10), (25, 50), (2, 5))


def random_table(rng: random.Random, variant: Variant) -> tuple[TableState, int]:
    """A new table with its players seated (Naiko: with random destellos) and the button."""
    n = rng.choice([2, 10, rng.randint(2, 10), rng.randint(2, 10)])
    sb, bb = rng.choice(BLINDS)
    r = rng.random()
    if r < 0.5:
        ante, mode = 0, AnteMode.NONE
    elif r < 0.75:
        ante, mode = rng.choice((1, sb, bb)), AnteMode.EACH
    else:
        ante, mode = rng.choice((sb, bb)), AnteMode.BIG_BLIND
    state = TableState.new(TableConfig(variant=variant, seat_count=n, small_blind=sb,
                                       big_blind=bb, ante=ante, ante_mode=mode))
    for seat in range(n):
        apply_in_place(state, SitDown(seat_index=seat, player_id=f"player {seat}",
                                      stack=random_stack(rng, bb)))
        player = state.seats[seat]
        assert player is not None
        if variant is Variant.NAIKO:
            player.destellos = rng.randint(0, 3)
    return state, rng.randrange(n)


def random_stack(rng: random.Random, bb: int) -> int:
    """Short stacks (below a blind) now and then, most between 5 and 150 big blinds."""
    r = rng.random()
    if r < 0.06:
        return rng.randint(1, bb)
    if r < 0.3:
        return rng.randint(bb, 10 * bb)
    return rng.randint(10 * bb, 150 * bb)


def random_command(state: TableState, rng: random.Random) -> Command:
    """A legal command: an answer to an open Seal Shield window, a power, or a betting action."""
    hand = state.hand
    assert hand is not None
    powers = hand.powers
    if powers is not None and powers.windows and rng.random() < 0.5:
        window = rng.choice(powers.windows)
        r = rng.random()
        if r < 0.5 and can_shield_now(state, hand, window.target):
            return UsePower(seat_index=window.target, power="seal_shield")
        if r < 0.75:
            return PassWindow(seat_index=window.target)
        return WindowTimeout(window_id=window.window_id)
    prompt = legal_actions(state)
    assert prompt is not None
    seat = prompt.seat_index
    if prompt.powers and rng.random() < 0.4:
        power = rng.choice(prompt.powers)
        if power == "sleeve_swap":
            return UsePower(seat_index=seat, power=power, card_index=rng.randrange(2))
        if power == "short_anchor":
            return UsePower(seat_index=seat, power=power,
                            target_seat=rng.choice(prompt.anchor_targets))
        return UsePower(seat_index=seat, power=power)
    weights = {"fold": 1, "check": 4, "call": 4, "bet": 2, "raise_to": 2, "all_in": 1}
    action = rng.choices(prompt.actions, [weights[a] for a in prompt.actions])[0]
    if action in ("bet", "raise_to"):
        assert prompt.min_raise_to is not None and prompt.max_raise_to is not None
        amount = rng.choice([prompt.min_raise_to, prompt.max_raise_to,
                             rng.randint(prompt.min_raise_to, prompt.max_raise_to)])
        return (Bet if action == "bet" else RaiseTo)(seat_index=seat, amount=amount)
    kinds: dict[str, type[Fold | Check | Call | AllIn]] = {
        "fold": Fold, "check": Check, "call": Call, "all_in": AllIn}
    return kinds[action](seat_index=seat)


def play_random_hand(rng: random.Random, variant: Variant) -> TableState:
    """One random finished hand on a new table."""
    state, button = random_table(rng, variant)
    carousel = tuple(rng.choice(ALLOWED_CAROUSELS)) if variant is Variant.NAIKO else ()
    apply_in_place(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button,
                                    carousel=carousel))
    hand = state.hand
    assert hand is not None
    while not hand.complete:
        apply_in_place(state, random_command(state, rng))
    return state


# -- the round trip --------------------------------------------------------------------------

@dataclass
class Tally:
    """Counts of one run."""

    hands: Counter[str] = field(default_factory=Counter)
    """Hands per variant."""
    features: Counter[str] = field(default_factory=Counter)
    """What the hands covered (side pots, antes, each power, ...)."""
    pokerkit: Counter[str] = field(default_factory=Counter)
    """PokerKit's outcome per hand: ``same``, or the RULES.md rule that explains a difference."""
    failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.hands.update(other.hands)
        self.features.update(other.features)
        self.pokerkit.update(other.pokerkit)
        self.failures.extend(other.failures)


def features(state: TableState) -> list[str]:
    hand = state.hand
    assert hand is not None
    found = [f"{sum(hand.dealt)} players"]
    if len(hand.awards) > 1:
        found.append("side pots")
    if state.config.ante_mode is not AnteMode.NONE and state.config.ante:
        found.append(f"antes ({state.config.ante_mode})")
    if any(isinstance(e, ActionTaken) and e.all_in for e in hand.log):
        found.append("all-in")
    if any(a.get("showdown") for a in hand.awards):
        found.append("showdown")
    if hand.powers is not None:
        found += sorted({f"power {p}" for used in hand.powers.used for p in used})
    return found


def round_trip(state: TableState, rng: random.Random, *, pokerkit: bool) -> Tally:
    """Export the finished hand of *state* and replay it every way it must replay."""
    tally = Tally()
    hand = state.hand
    assert hand is not None
    variant = state.config.variant
    tally.hands[variant.value] += 1
    tally.features.update(features(state))
    label = f"{variant} hand, seed-derived, {sum(hand.dealt)} players"
    scale = rng.choice([0, 0, 2])
    history = phh.from_state(state, scale=scale)
    order = [int(s) - 1 for s in history.extra["seats"]]
    stacks = [state.stack(seat) for seat in order]
    destellos = ([_destellos(state, seat) for seat in order] if variant is Variant.NAIKO
                 else None)
    text = phh.dumps(history)
    try:
        parsed = phh.loads(text)
        _expect(phh.replay(parsed), stacks, destellos, scale, "replay")
        if variant is Variant.NAIKO:
            _expect(phh.replay(parsed, naiko=False), stacks, None, scale, "as Hold'em")
        for reader in [None, *range(len(order))]:
            copy = phh.loads(phh.dumps(phh.for_reader(parsed, reader)))
            _expect(phh.replay(copy), stacks, destellos, scale, f"for reader {reader}")
            seat = None if reader is None else order[reader]
            leaked = cards_named(copy) - cards_shown(hand, seat)
            assert not leaked, f"reader {reader}'s copy names {format_cards(sorted(leaked))}"
    except (phh.PHHError, AssertionError) as exc:
        tally.failures.append(f"{label}: {exc}\n{text}")
        return tally
    if pokerkit:
        # in integer chips: PokerKit splits a decimal pot into fractions of a cent (PHH-NOTES 7)
        outcome = pokerkit_outcome(phh.to_phh(state), state)
        tally.pokerkit[f"{'NLHE (Naiko file)' if variant is Variant.NAIKO else variant}: "
                       f"{outcome}"] += 1
        if outcome.startswith("unexplained"):
            tally.failures.append(f"{label}: PokerKit {outcome}\n{text}")
    return tally


def cards_named(history: phh.HandHistory) -> set[Card]:
    """Every card a PHH hand names: in its actions and its Naiko extension."""
    named = {c for a in history.parsed_actions() for c in a.cards if c is not None}
    extension = history.naiko
    for entry in extension.powers if extension else ():
        named |= {c for c in (entry.card, entry.discarded, entry.received) if c is not None}
    return named


def cards_shown(hand: HandState, seat: int | None) -> set[Card]:
    """The cards *seat* (``None``: an observer) was shown during *hand*: the board, the hands
    shown at the showdown, its own hole cards, Sleeve Swap and Peek (not a peeked card that a
    swap then put into a hand nobody was shown, R6.8)."""
    shown = set(hand.board)
    for other, cards in enumerate(hand.hole):
        if hand.shown[other]:
            shown |= set(cards)
    if seat is None:
        return shown
    shown |= set(hand.hole[seat])
    unseen = {c for other, cards in enumerate(hand.hole) if other != seat and not hand.shown[other]
              for c in cards}
    for event in hand.log:
        if isinstance(event, HoleCardsDealt) and event.seat_index == seat:
            shown |= set(parse_cards(event.cards))
        elif isinstance(event, SleeveSwapResult) and event.seat_index == seat:
            shown |= set(parse_cards(event.discarded + event.received))
        elif isinstance(event, PeekResult) and event.seat_index == seat:
            shown |= set(parse_cards(event.card)) - unseen
    return shown


def _destellos(state: TableState, seat: int) -> int:
    player = state.seats[seat]
    assert player is not None
    return player.destellos


def _expect(result: phh.Replay, stacks: list[int], destellos: list[int] | None, scale: int,
            how: str) -> None:
    got = [result.history.chips(s, scale) for s in result.finishing_stacks]
    assert got == stacks, f"{how}: stacks {got}, the engine's {stacks}"
    assert result.verdict().passed, f"{how}: {result.verdict()}"
    assert result.destellos == destellos, f"{how}: destellos {result.destellos}, {destellos}"


def pokerkit_outcome(text: str, state: TableState) -> str:
    """``same``, or which rule explains PokerKit's different stacks or refusal, or
    ``unexplained: ...``."""
    hints = phh.divergence_hints(state)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            states = list(_pokerkit_history().loads(text))
        theirs: list[Any] = list(states[-1].stacks)
        refused = ""
    except (ValueError, KeyError) as exc:
        theirs, refused = [], str(exc)
    ours = phh.loads(text).finishing_stacks
    if not refused and [Decimal(t) for t in theirs] == ours:
        return "same"
    rules = [_rule_of(h) for h in hints]
    assert state.hand is not None
    if refused and r3_2_reopened(state.hand, state.config.big_blind):
        rules.append("R3.2")
    if not rules:
        return f"unexplained: {refused or f'stacks {theirs}, ours {ours}'}"
    what = "refuses an action" if refused else "different stacks"
    return f"{what} ({', '.join(sorted(set(rules)))})"


@functools.cache
def _pokerkit_history() -> Any:
    """PokerKit's ``HandHistory`` with the differential test's faster hand rankings (PokerKit's
    own lookup tables, each hand ranked once)."""
    import pokerkit
    from unit.test_differential_pokerkit import _NoLimitTexasHoldem, _PotLimitOmahaHoldem

    class FastHandHistory(pokerkit.HandHistory):
        game_types = {**pokerkit.HandHistory.game_types, "NT": _NoLimitTexasHoldem,
                      "PO": _PotLimitOmahaHoldem}

    return FastHandHistory


def _rule_of(hint: str) -> str:
    for rule in ("R2.3", "R2.8", "R4.5"):
        if rule in hint:
            return rule
    return hint


def r3_2_reopened(hand: HandState, big_blind: int) -> bool:
    """Whether someone raised on a street after an all-in for less than a full raise had
    followed their earlier action: the R3.2 situations where PokerKit's reopening differs."""
    current, minimum = big_blind, big_blind
    acted: set[int] = set()
    before_short: set[int] = set()
    for event in hand.log:
        if isinstance(event, BoardDealt):
            current, minimum, acted, before_short = 0, big_blind, set(), set()
        elif isinstance(event, ActionTaken):
            if event.action in (Move.BET, Move.RAISE_TO):
                assert event.to is not None
                increment = event.to - current
                if event.seat_index in before_short:
                    return True
                if increment < minimum:
                    before_short |= acted
                else:
                    minimum = increment
                current = event.to
            acted.add(event.seat_index)
    return False


def run(seed: int, count: int, variants: tuple[Variant, ...] = tuple(Variant), *,
        pokerkit: bool = True) -> Tally:
    """*count* random hands, cycling through *variants*, from *seed*."""
    rng = random.Random(seed)
    tally = Tally()
    for number in range(count):
        variant = variants[number % len(variants)]
        state = play_random_hand(rng, variant)
        tally.add(round_trip(state, rng, pokerkit=pokerkit))
    return tally
