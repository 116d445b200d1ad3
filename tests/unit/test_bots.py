"""Tests of the bots (:mod:`naiko.bots`): legal and complete play in every variant, powers, the
information boundary (R8.4), determinism and a strength sanity check (the decision time is
measured by scripts/bench_bots.py).

Bots sit in every seat and are driven only through :func:`naiko.views.view_for` and
:func:`naiko.engine.apply`: any illegal command would raise, so a finished run is the proof.
"""

from __future__ import annotations

import ast
import inspect
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko import bots
from naiko.bots import decide, estimate_equity, has_draw, respond, weak_card_to_swap
from naiko.cards import parse_cards, shuffled_deck
from naiko.commands import (
    AddChips,
    Command,
    Fold,
    PassWindow,
    SitDown,
    StartHand,
    UsePower,
    WindowTimeout,
)
from naiko.engine import apply, legal_actions
from naiko.powers import ALLOWED_CAROUSELS, draw_carousel
from naiko.state import AnteMode, TableConfig, TableState, Variant
from naiko.views import view_for
from naiko_testing import fixed_deck, play, start, table

MAX_COMMANDS_PER_HAND = 400

# -- a table of bots -------------------------------------------------------------------------

def bot_table(variant: Variant, seat_count: int, stacks: list[int | None], *, sb: int = 1,
              bb: int = 2, ante: int = 0, ante_mode: AnteMode = AnteMode.NONE) -> TableState:
    config = TableConfig(variant=variant, seat_count=seat_count, small_blind=sb, big_blind=bb,
                         ante=ante, ante_mode=ante_mode)
    state = TableState.new(config)
    for seat, stack in enumerate(stacks):
        if stack is not None:
            state, _ = apply(state, SitDown(seat_index=seat, player_id=f"bot{seat}",
                                            stack=stack, is_bot=True))
    return state


def play_bot_hand(state: TableState, rng: random.Random, counts: Counter[str],
                  button: int | None = None) -> TableState:
    """Play one hand with bots in every seat; check every command against the prompt."""
    carousel = draw_carousel(rng) if state.config.rules.powers else ()
    state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button,
                                      carousel=carousel))
    for _ in range(MAX_COMMANDS_PER_HAND):
        hand = state.hand
        assert hand is not None
        if hand.powers is not None:  # off-turn: windows of Short Anchors aimed at bots
            for window in list(hand.powers.windows):
                roll = rng.random()
                if roll < 0.6:
                    answer = respond(view_for(state, window.target), rng)
                    assert answer is not None
                    assert isinstance(answer, (UsePower, PassWindow))
                    assert answer.seat_index == window.target
                    counts["respond_" + (answer.kind if isinstance(answer, PassWindow)
                                         else answer.power)] += 1
                    state, _ = apply(state, answer)
                elif roll < 0.7:
                    state, _ = apply(state, WindowTimeout(window_id=window.window_id))
                # else: left open; the target's own action closes it (R6.5)
        for seat in range(state.config.seat_count):  # nobody else has a window to answer
            if hand.powers is None or hand.powers.window_for(seat) is None:
                if state.seats[seat] is not None:
                    assert respond(view_for(state, seat), rng) is None
        prompt = legal_actions(state)
        if prompt is None:
            assert state.hand is not None and state.hand.complete
            return state
        for seat in range(state.config.seat_count):  # no prompt, no decision
            if seat != prompt.seat_index and state.seats[seat] is not None:
                assert decide(view_for(state, seat), rng) is None
        view = view_for(state, prompt.seat_index)
        command = decide(view, rng)
        assert command is not None
        assert getattr(command, "seat_index", None) == prompt.seat_index
        if isinstance(command, UsePower):
            if command.power == "seal_shield":
                assert view["hand"]["powers"]["can_shield"]
            else:
                assert command.power in prompt.powers, (command, prompt)
            if command.power == "short_anchor":
                assert command.target_seat in prompt.anchor_targets
            counts[command.power] += 1
        else:
            assert command.kind in prompt.actions, (command, prompt)
            if "check" in prompt.actions:
                assert not isinstance(command, Fold), "never fold when checking is free"
            amount = getattr(command, "amount", None)
            if amount is not None:
                assert prompt.min_raise_to is not None and prompt.max_raise_to is not None
                assert prompt.min_raise_to <= amount <= prompt.max_raise_to
            counts[command.kind] += 1
        state, _ = apply(state, command)  # raises if the engine refuses it
    raise AssertionError(f"hand did not finish within {MAX_COMMANDS_PER_HAND} commands")


def play_session(state: TableState, hands: int, rng: random.Random,
                 counts: Counter[str]) -> None:
    for number in range(hands):
        for seat, player in enumerate(state.seats):  # reload busted bots (R7.1)
            if player is not None and player.stack < 10 * state.config.big_blind:
                state, _ = apply(state, AddChips(seat_index=seat,
                                                 amount=100 * state.config.big_blind))
        button = rng.choice([i for i, s in enumerate(state.seats) if s]) if number == 0 else None
        state = play_bot_hand(state, rng, counts, button=button)
        counts["hands"] += 1


# -- legal, complete play ----------------------------------------------------------------------

@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("seat_count", range(2, 11))
def test_bots_in_every_seat_play_legal_complete_hands(variant: Variant, seat_count: int) -> None:
    rng = random.Random(f"{variant}-{seat_count}")
    state = bot_table(variant, seat_count, [200] * seat_count)
    counts: Counter[str] = Counter()
    play_session(state, 8, rng, counts)
    assert counts["hands"] == 8
    if variant is not Variant.NAIKO:
        assert not any(counts[p] for p in ("peek", "sleeve_swap", "short_anchor"))


def test_bots_use_every_power_in_naiko_mode() -> None:
    """Over many Naiko hands every power is used, Seal Shield included (R8.4)."""
    rng = random.Random("naiko powers")
    counts: Counter[str] = Counter()
    for seat_count in (2, 3, 6, 9):
        state = bot_table(Variant.NAIKO, seat_count, [200] * seat_count)
        play_session(state, 12, rng, counts)
    for power in ("peek", "sleeve_swap", "short_anchor"):
        assert counts[power] > 0, counts
    assert counts["respond_seal_shield"] + counts["seal_shield"] > 0, counts
    assert counts["respond_pass_window"] > 0, counts


@st.composite
def bot_tables(draw: st.DrawFn) -> TableState:
    """Random tables: any variant, 2–10 seats, some empty, short and deep stacks, antes."""
    variant = draw(st.sampled_from(list(Variant)))
    seat_count = draw(st.integers(2, 10))
    big_blind = draw(st.sampled_from([2, 10, 100]))
    small_blind = draw(st.sampled_from([big_blind // 2, big_blind]))
    ante_mode = draw(st.sampled_from(list(AnteMode)))
    ante = 0 if ante_mode is AnteMode.NONE else draw(st.integers(1, big_blind))
    stacks: list[int | None] = []
    for _ in range(seat_count):
        seated = sum(s is not None for s in stacks)
        if seated >= 2 and draw(st.integers(0, 3)) == 0:
            stacks.append(None)
        else:
            stacks.append(draw(st.one_of(st.integers(1, 3 * big_blind),
                                         st.integers(1, 300 * big_blind))))
    return bot_table(variant, seat_count, stacks, sb=small_blind, bb=big_blind, ante=ante,
                     ante_mode=ante_mode)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=bot_tables(), seed=st.integers(0, 2**32))
def test_bots_play_legally_on_random_tables(state: TableState, seed: int) -> None:
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    for number in range(3):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        state = play_bot_hand(state, rng, counts, button=rng.choice(active) if number == 0
                              else None)


# -- determinism and the information boundary ----------------------------------------------------

def collected_views(variant: Variant, seat_count: int, seed: int) -> list[dict[str, Any]]:
    """Views of bots on their turn, from a few played hands."""
    rng = random.Random(seed)
    state = bot_table(variant, seat_count, [200] * seat_count)
    views: list[dict[str, Any]] = []
    for number in range(3):
        carousel = draw_carousel(rng) if variant is Variant.NAIKO else ()
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)),
                                          button=0 if number == 0 else None, carousel=carousel))
        while (prompt := legal_actions(state)) is not None:
            view = view_for(state, prompt.seat_index)
            views.append(view)
            command = decide(view, rng)
            assert command is not None
            state, _ = apply(state, command)
    return views


@pytest.mark.parametrize("variant", list(Variant))
def test_decide_is_deterministic_for_a_seeded_rng(variant: Variant) -> None:
    for view in collected_views(variant, 4, 11):
        for seed in (1, 2):
            first = decide(view, random.Random(seed))
            assert decide(view, random.Random(seed)) == first
            # The view is plain JSON: a copy that went through JSON decides the same.
            assert decide(json.loads(json.dumps(view)), random.Random(seed)) == first


def test_decide_takes_only_a_view_and_a_random_source() -> None:
    assert list(inspect.signature(decide).parameters) == ["view", "rng"]
    assert list(inspect.signature(respond).parameters) == ["view", "rng"]
    # The module cannot reach a table: it imports neither the state, the engine nor the views.
    tree = ast.parse(Path(inspect.getfile(bots)).read_text())
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    assert imported <= {"__future__", "random", "collections.abc", "dataclasses", "typing",
                        "cards", "commands", "evaluator", "events"}, imported


def shuffled_tail(deck: tuple[int, ...], keep: int, rng: random.Random) -> tuple[int, ...]:
    """*deck* with every card after the first *keep* ones in another order."""
    tail = list(deck[keep:])
    rng.shuffle(tail)
    return deck[:keep] + tuple(tail)


@pytest.mark.parametrize("variant", [Variant.NLHE, Variant.NAIKO, Variant.PLO])
def test_same_view_from_different_hidden_states_gives_the_same_decision(
        variant: Variant) -> None:
    """Two tables that differ only in what the bot cannot see (the opponents' hole cards and
    the order of the undealt deck) give the bot the same view and so the same decisions."""
    me = "AhKh" if variant is not Variant.PLO else "AhKhQd2c"
    others_a = ("7c7d", "2s3s") if variant is not Variant.PLO else ("7c7d8s9s", "2s3s4d5c")
    others_b = ("QsJs", "9h8d") if variant is not Variant.PLO else ("QsJsTc9c", "6h6d5s5h")
    board = "Th7h2d4c3h"
    decisions: list[list[Command | None]] = []
    view_sets: list[list[dict[str, Any]]] = []
    for others, seed in ((others_a, 1), (others_b, 2)):
        state = table([300, 300, 300], variant=variant)
        holes = {0: me, 1: others[0], 2: others[1]}
        deck = fixed_deck(state, holes, board, button=0)
        # Board cards stay; everything else still in the deck is reordered.
        deck = shuffled_tail(deck, 3 * len(me) // 2 + 5, random.Random(seed))
        carousel = ("peek", "short_anchor", "seal_shield") if variant is Variant.NAIKO else ()
        state, _ = apply(state, StartHand(deck=deck, button=0, carousel=carousel))
        # Button 0 acts first preflop at 3 seats; check down to every street of the bot.
        views: list[dict[str, Any]] = [view_for(state, 0)]
        state, _ = play(state, "0 c", "1 c", "2 x")
        for _ in range(3):
            state, _ = play(state, "1 x", "2 x")
            views.append(view_for(state, 0))
            state, _ = play(state, "0 x")
        view_sets.append(views)
        decisions.append([decide(v, random.Random(99)) for v in views])
    assert view_sets[0] == view_sets[1]
    assert decisions[0] == decisions[1]
    assert all(d is not None for d in decisions[0])


# -- strength sanity -----------------------------------------------------------------------------

def river_view(hole: str, *, facing_bet: bool) -> dict[str, Any]:
    """Heads-up NLHE, checked down to the river; seat 1 (big blind) holds *hole*. Seat 1 acts
    first on the river; with *facing_bet* seat 0 is to act facing a bet instead."""
    state = table([400, 400])
    holes = {1: hole, 0: "3c4d"} if not facing_bet else {0: hole, 1: "3c4d"}
    state, _ = start(state, holes, board="AhKhQhJh2c", button=0)
    state, _ = play(state, "0 c", "1 x", "1 x", "0 x", "1 x", "0 x")
    if facing_bet:
        state, _ = play(state, "1 b 20")
        return view_for(state, 0)
    return view_for(state, 1)


@pytest.mark.parametrize("facing_bet", [False, True])
def test_bets_and_raises_more_with_the_nuts_than_with_air(facing_bet: bool) -> None:
    nuts = river_view("Th9c", facing_bet=facing_bet)  # royal flush
    air = river_view("5s6d", facing_bet=facing_bet)  # plays the board's ace high
    aggressive = {"bet", "raise_to", "all_in"}

    def rate(view: dict[str, Any]) -> float:
        kinds = [decide(view, random.Random(seed)) for seed in range(200)]
        return sum(c is not None and c.kind in aggressive for c in kinds) / len(kinds)

    nuts_rate, air_rate = rate(nuts), rate(air)
    assert nuts_rate >= 0.95
    assert air_rate <= 0.15
    assert nuts_rate > air_rate


def test_equity_estimates_are_sound() -> None:
    rng = random.Random(5)
    assert estimate_equity(parse_cards("AsAh"), [], 1, rng) > 0.8
    assert estimate_equity(parse_cards("7c2d"), [], 1, rng) < 0.4
    assert estimate_equity(parse_cards("Th9h"), parse_cards("AhKhQhJh2c"), 8, rng) == 1.0
    assert estimate_equity(parse_cards("AsKs"), [], 0, rng) == 1.0
    omaha = estimate_equity(parse_cards("AsAhKsKh"), [], 1, rng)
    assert 0.6 < omaha < 0.8  # the best Omaha starting hand is a favourite, not a lock


# -- the powers ------------------------------------------------------------------------------

def naiko_preflop_view(hole: str, carousel: tuple[str, ...]) -> dict[str, Any]:
    """Heads-up Naiko, button 0 (small blind) to act first preflop with *hole*."""
    state = table([200, 200], variant=Variant.NAIKO, destellos=[2, 2])
    state, _ = start(state, {0: hole}, board="2c8d9hKsAs", button=0, carousel=carousel)
    return view_for(state, 0)


def test_sleeve_swap_throws_the_lower_card_of_a_weak_hand() -> None:
    carousel = ("peek", "sleeve_swap", "short_anchor")
    weak = naiko_preflop_view("7c2d", carousel)
    assert "sleeve_swap" in weak["prompt"]["powers"]
    choices = [decide(weak, random.Random(s)) for s in range(100)]
    swaps = [c for c in choices if isinstance(c, UsePower) and c.power == "sleeve_swap"]
    assert swaps and all(c.card_index == 1 for c in swaps)
    strong = naiko_preflop_view("AcAd", carousel)
    for seed in range(50):
        command = decide(strong, random.Random(seed))
        assert not (isinstance(command, UsePower) and command.power == "sleeve_swap")
    assert weak_card_to_swap(parse_cards("Kd4s"), 0.3, 1) == 1
    assert weak_card_to_swap(parse_cards("8h9h"), 0.3, 1) is None  # suited connectors stay


def test_peek_when_the_next_card_matters() -> None:
    assert has_draw(parse_cards("AhKh"), parse_cards("2h7h9c"))  # flush draw
    assert has_draw(parse_cards("8c9d"), parse_cards("TsJh2c"))  # open-ended
    assert has_draw(parse_cards("Ac2d"), parse_cards("3s4h9c"))  # wheel draw
    assert not has_draw(parse_cards("AhKd"), parse_cards("2c7s9d"))
    assert not has_draw(parse_cards("AhKh"), parse_cards("2h7h9h"))  # made flush
    state = table([200, 200], variant=Variant.NAIKO, destellos=[2, 2])
    state, _ = start(state, {0: "AhKh", 1: "QcQd"}, board="2h7h9c3sJd", button=0,
                     carousel=("peek", "short_anchor", "seal_shield"))
    state, _ = play(state, "0 c", "1 x", "1 b 4")
    view = view_for(state, 0)
    assert "peek" in view["prompt"]["powers"]
    peeks = sum(isinstance(c, UsePower) and c.power == "peek"
                for c in (decide(view, random.Random(s)) for s in range(50)))
    assert peeks > 25
    # After the peek the bot knows the turn card (3s, a blank) and acts on it.
    state, _ = apply(state, UsePower(seat_index=0, power="peek"))
    view = view_for(state, 0)
    assert view["hand"]["powers"]["peek"] == "3s"
    assert view["prompt"]["powers"] == []
    assert decide(view, random.Random(1)) is not None


def test_short_anchor_aims_at_the_largest_stack_among_legal_targets() -> None:
    state = table([200, 500, 300], variant=Variant.NAIKO, destellos=[2, 2, 2])
    state, _ = start(state, {0: "AsAd"}, board="2c8d9hKsQs", button=0,
                     carousel=("peek", "short_anchor", "seal_shield"))
    view = view_for(state, 0)
    assert view["prompt"]["anchor_targets"] == [1, 2]
    anchors = [c for c in (decide(view, random.Random(s)) for s in range(60))
               if isinstance(c, UsePower) and c.power == "short_anchor"]
    assert anchors and all(c.target_seat == 1 for c in anchors)


@pytest.mark.parametrize(("hole", "shields"), [("AsAd", True), ("7c2d", False)])
def test_shield_when_anchored_with_a_strong_hand_else_pass(hole: str, shields: bool) -> None:
    state = table([200, 200], variant=Variant.NAIKO, destellos=[2, 2])
    state, _ = start(state, {1: hole}, board="2c8d9hKsQs", button=0,
                     carousel=("peek", "short_anchor", "seal_shield"))
    state, _ = play(state, "0 anchor 1")
    view = view_for(state, 1)
    assert view["prompt"] is None and view["hand"]["powers"]["can_shield"]
    answer = respond(view, random.Random(3))
    if shields:
        assert answer == UsePower(seat_index=1, power="seal_shield")
    else:
        assert answer == PassWindow(seat_index=1)
    apply(state, answer)  # the engine accepts it
    assert respond(view_for(state, 0), random.Random(3)) is None  # no window aimed at seat 0


def test_no_powers_when_none_is_usable() -> None:
    for carousel in ALLOWED_CAROUSELS:
        state = table([200, 200], variant=Variant.NAIKO)
        state, _ = start(state, {0: "7c2d"}, board="2c8d9hKsQs", button=0, carousel=carousel)
        bot = state.seats[0]
        assert bot is not None
        bot.destellos = 0  # nothing to pay with
        view = view_for(state, 0)
        assert view["prompt"]["powers"] == []
        for seed in range(20):
            assert not isinstance(decide(view, random.Random(seed)), UsePower)
