"""Tests of the styled bots (:mod:`naiko.bot_styles`, :mod:`naiko.ranges`, issue 24): every
command legal in every variant and level, decisions only from the bot's own view (R8.4), the
``old`` level is the first bot exactly, each style's statistics in loose bands over a seeded
sample, the charts, and the powers by expected value.

Bots are driven only through :func:`naiko.views.view_for` and :func:`naiko.engine.apply`: an
illegal command would raise. The full statistics (>= 5,000 hands) are measured by
``scripts/bench_bots.py``, not here.
"""

from __future__ import annotations

import ast
import inspect
import json
import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko import bot_styles, bots, ranges
from naiko.bot_styles import LEVELS, STYLES, Profile, decide, profile_for_seat, respond
from naiko.cards import parse_cards, shuffled_deck
from naiko.commands import AddChips, Fold, PassWindow, SitDown, StartHand, UsePower, WindowTimeout
from naiko.engine import apply, legal_actions
from naiko.powers import draw_carousel
from naiko.state import AnteMode, TableConfig, TableState, Variant
from naiko.views import view_for
from naiko_testing import fixed_deck, play, table

MAX_COMMANDS_PER_HAND = 400
PROFILES = [Profile(s, lv) for s in STYLES for lv in LEVELS]


def bot_table(
    variant: Variant,
    seat_count: int,
    stacks: list[int | None],
    *,
    sb: int = 1,
    bb: int = 2,
    ante: int = 0,
    ante_mode: AnteMode = AnteMode.NONE,
) -> TableState:
    config = TableConfig(
        variant=variant,
        seat_count=seat_count,
        small_blind=sb,
        big_blind=bb,
        ante=ante,
        ante_mode=ante_mode,
    )
    state = TableState.new(config)
    for seat, stack in enumerate(stacks):
        if stack is not None:
            state, _ = apply(
                state, SitDown(seat_index=seat, player_id=f"bot{seat}", stack=stack, is_bot=True)
            )
    return state


def play_hand(
    state: TableState,
    profiles: dict[int, Profile],
    rng: random.Random,
    counts: Counter[str],
    stats: dict[int, Counter[str]] | None = None,
    button: int | None = None,
) -> TableState:
    """One hand, *profiles* in the seats; every command checked against its prompt."""
    carousel = draw_carousel(rng) if state.config.rules.powers else ()
    state, _ = apply(
        state, StartHand(deck=tuple(shuffled_deck(rng)), button=button, carousel=carousel)
    )
    hand = state.hand
    assert hand is not None
    seen: dict[int, set[str]] = {i: set() for i, d in enumerate(hand.dealt) if d}
    for _ in range(MAX_COMMANDS_PER_HAND):
        hand = state.hand
        assert hand is not None
        if hand.powers is not None:
            for window in list(hand.powers.windows):
                if rng.random() < 0.7:
                    answer = respond(view_for(state, window.target), profiles[window.target], rng)
                    assert isinstance(answer, (UsePower, PassWindow))
                    assert answer.seat_index == window.target
                    counts["respond_" + getattr(answer, "power", "pass")] += 1
                else:
                    answer = WindowTimeout(window_id=window.window_id)
                state, _ = apply(state, answer)
        prompt = legal_actions(state)
        if prompt is None:
            break
        for seat, profile in profiles.items():  # no prompt, no decision; no window, no answer
            if seat != prompt.seat_index and state.seats[seat] is not None:
                assert decide(view_for(state, seat), profile, rng) is None
                assert respond(view_for(state, seat), profile, rng) is None
        view = view_for(state, prompt.seat_index)
        command = decide(view, profiles[prompt.seat_index], rng)
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
            if stats is not None:
                _track(stats[prompt.seat_index], seen[prompt.seat_index], view, command.kind)
        state, _ = apply(state, command)
    else:
        raise AssertionError("a hand did not finish")
    if stats is not None:
        hand = state.hand
        assert hand is not None
        alive = [i for i, d in enumerate(hand.dealt) if d and not hand.folded[i]]
        for seat, flags in seen.items():
            stats[seat]["hands"] += 1
            for flag in flags:
                stats[seat][flag] += 1
            if len(hand.board) >= 3 and not _folded_before_flop(hand, seat):
                stats[seat]["saw_flop"] += 1  # WTSD: showdowns among the flops seen
                stats[seat]["showdown"] += len(alive) >= 2 and seat in alive
    return state


def _folded_before_flop(hand: Any, seat: int) -> bool:
    for event in hand.log:
        if event.kind == "board_dealt":
            return False
        if event.kind == "action" and event.seat_index == seat and event.action == "fold":
            return True
    return False


def _track(stat: Counter[str], flags: set[str], view: dict[str, Any], kind: str) -> None:
    if view["hand"]["street"] == "preflop":
        if kind in ("call", "bet", "raise_to"):
            flags.add("vpip")
        if kind in ("bet", "raise_to"):
            flags.add("pfr")
    elif kind in ("bet", "raise_to"):
        stat["aggressive"] += 1
    elif kind == "call":
        stat["calls"] += 1


def session(
    state: TableState,
    profiles: dict[int, Profile],
    hands: int,
    rng: random.Random,
    counts: Counter[str],
    stats: dict[int, Counter[str]] | None = None,
) -> None:
    bb = state.config.big_blind
    for number in range(hands):
        for seat, player in enumerate(state.seats):
            if player is not None and player.stack < 100 * bb:
                state, _ = apply(state, AddChips(seat_index=seat, amount=100 * bb - player.stack))
        button = rng.choice([i for i, s in enumerate(state.seats) if s]) if number == 0 else None
        state = play_hand(state, profiles, rng, counts, stats, button=button)
        counts["hands"] += 1


# -- every command legal -------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("seat_count", [2, 3, 6, 9])
def test_every_style_and_level_plays_legal_complete_hands(
    variant: Variant, seat_count: int
) -> None:
    rng = random.Random(f"styles-{variant}-{seat_count}")
    state = bot_table(variant, seat_count, [200] * seat_count)
    profiles = {i: PROFILES[(i * 5 + seat_count) % len(PROFILES)] for i in range(seat_count)}
    counts: Counter[str] = Counter()
    session(state, profiles, 6, rng, counts)
    assert counts["hands"] == 6


@st.composite
def styled_tables(draw: st.DrawFn) -> tuple[TableState, dict[int, Profile]]:
    """Any variant, 2-10 seats (some empty), stacks from below a blind to 300 big blinds,
    antes, and any profile in each seat."""
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
            stacks.append(
                draw(st.one_of(st.integers(1, 3 * big_blind), st.integers(1, 300 * big_blind)))
            )
    state = bot_table(
        variant, seat_count, stacks, sb=small_blind, bb=big_blind, ante=ante, ante_mode=ante_mode
    )
    profiles = {i: draw(st.sampled_from(PROFILES)) for i, s in enumerate(stacks) if s is not None}
    return state, profiles


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table_and_profiles=styled_tables(), seed=st.integers(0, 2**32))
def test_every_command_is_legal_on_random_tables(
    table_and_profiles: tuple[TableState, dict[int, Profile]], seed: int
) -> None:
    state, profiles = table_and_profiles
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    for number in range(3):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        state = play_hand(
            state, profiles, rng, counts, button=rng.choice(active) if number == 0 else None
        )


def test_styled_bots_use_the_powers_in_naiko_mode() -> None:
    rng = random.Random("styled powers")
    counts: Counter[str] = Counter()
    for seat_count in (2, 3, 6):
        state = bot_table(Variant.NAIKO, seat_count, [200] * seat_count)
        profiles = {i: Profile(STYLES[i % 4], "strong") for i in range(seat_count)}
        session(state, profiles, 20, rng, counts)
    assert counts["peek"] > 0, counts
    assert counts["short_anchor"] + counts["sleeve_swap"] > 0, counts


# -- the old level is the first bot --------------------------------------------------------


def collected_views(variant: Variant, seat_count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    state = bot_table(variant, seat_count, [200] * seat_count)
    views: list[dict[str, Any]] = []
    for number in range(3):
        carousel = draw_carousel(rng) if variant is Variant.NAIKO else ()
        state, _ = apply(
            state,
            StartHand(
                deck=tuple(shuffled_deck(rng)),
                button=0 if number == 0 else None,
                carousel=carousel,
            ),
        )
        while (prompt := legal_actions(state)) is not None:
            view = view_for(state, prompt.seat_index)
            views.append(view)
            command = bots.decide(view, rng)
            assert command is not None
            state, _ = apply(state, command)
    return views


@pytest.mark.parametrize("variant", list(Variant))
def test_the_old_level_decides_exactly_as_the_first_bot(variant: Variant) -> None:
    for view in collected_views(variant, 4, 3):
        for style in STYLES:
            a, b = random.Random(7), random.Random(7)
            assert decide(view, Profile(style, "old"), a) == bots.decide(view, b)
            assert a.random() == b.random()  # the same draws from the rng


@pytest.mark.parametrize("variant", list(Variant))
def test_styled_decisions_are_deterministic_for_a_seeded_rng(variant: Variant) -> None:
    for view in collected_views(variant, 4, 11)[:20]:
        for profile in (
            Profile("tight_aggressive", "strong"),
            Profile("loose_passive", "beginner"),
        ):
            first = decide(view, profile, random.Random(1))
            assert decide(json.loads(json.dumps(view)), profile, random.Random(1)) == first


# -- the information boundary (R8.4) -------------------------------------------------------


def test_styled_bots_cannot_reach_the_table() -> None:
    """Only the view and a random source come in; neither module imports the state, the
    engine or the views, so no other seat's hidden cards or the deck can be reached."""
    assert list(inspect.signature(decide).parameters) == ["view", "profile", "rng"]
    assert list(inspect.signature(respond).parameters) == ["view", "profile", "rng"]
    for module in (bot_styles, ranges):
        tree = ast.parse(Path(inspect.getfile(module)).read_text())
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        imported |= {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        assert imported <= {
            "__future__",
            "random",
            "collections.abc",
            "dataclasses",
            "typing",
            "functools",
            "cards",
            "commands",
            "evaluator",
            "events",
            "ranges",
            "bots",
            "",
        }, imported


@pytest.mark.parametrize("variant", [Variant.NLHE, Variant.NAIKO, Variant.PLO])
def test_same_view_from_different_hidden_cards_gives_the_same_decisions(variant: Variant) -> None:
    """Two tables that differ only in the opponents' hole cards and the undealt deck give every
    styled bot the same views and the same decisions."""
    me = "AhKh" if variant is not Variant.PLO else "AhKhQd2c"
    others_a = ("7c7d", "2s3s") if variant is not Variant.PLO else ("7c7d8s9s", "2s3s4d5c")
    others_b = ("QsJs", "9h8d") if variant is not Variant.PLO else ("QsJsTc9c", "6h6d5s5h")
    view_sets = []
    for others, seed in ((others_a, 1), (others_b, 2)):
        state = table([300, 300, 300], variant=variant)
        deck = fixed_deck(state, {0: me, 1: others[0], 2: others[1]}, "Th7h2d4c3h", button=0)
        tail = list(deck[3 * len(me) // 2 + 5 :])
        random.Random(seed).shuffle(tail)
        deck = deck[: 3 * len(me) // 2 + 5] + tuple(tail)
        carousel = ("peek", "short_anchor", "seal_shield") if variant is Variant.NAIKO else ()
        state, _ = apply(state, StartHand(deck=deck, button=0, carousel=carousel))
        views = [view_for(state, 0)]
        state, _ = play(state, "0 c", "1 c", "2 x")
        for _ in range(3):
            state, _ = play(state, "1 x", "2 x")
            views.append(view_for(state, 0))
            state, _ = play(state, "0 x")
        view_sets.append(views)
    assert view_sets[0] == view_sets[1]
    for profile in PROFILES:
        first = [decide(v, profile, random.Random(5)) for v in view_sets[0]]
        second = [decide(v, profile, random.Random(5)) for v in view_sets[1]]
        assert first == second
        assert all(d is not None for d in first)


# -- each style in its band ----------------------------------------------------------------

# A seeded sample (300 hands on each of two 6-max tables, 100 bb) held to the PUBLISHED bands
# (scripts/bench_bots.py's BANDS, the table in docs/bots.md) with the sampling error of its own
# size: each figure is a share — VPIP and PFR of the hands dealt, WTSD of the flops seen, and
# AF = aggressive / calls read as the aggressive share of those actions, AF / (1 + AF) — so a
# band [low, high] of shares is widened by Z standard errors of a binomial share measured at
# the band's edge, sqrt(q (1 - q) / n), n the sample's own count. Z = 3: at a true value on an
# edge one figure in about 740 would fall outside; 16 figures, under 2.2 % for the whole test.
# The 5,000-hand figures (docs/bots.md) are the check of the bands themselves.
BAND_Z = 3.0
BAND_SEATINGS = (
    ("tight_aggressive", "loose_aggressive", "tight_passive", "loose_passive") * 2,
    ("tight_passive", "loose_passive", "tight_aggressive", "loose_aggressive") * 2,
)  # the first six of each: every style in three seats, as in the bench
BAND_HANDS = 150


def published_bands() -> dict[str, dict[str, tuple[float, float]]]:
    """``BANDS`` as written in scripts/bench_bots.py (read, not imported: one source)."""
    source = (Path(__file__).resolve().parents[2] / "scripts" / "bench_bots.py").read_text()
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "BANDS":
            assert node.value is not None
            bands: dict[str, dict[str, tuple[float, float]]] = ast.literal_eval(node.value)
            return bands
    raise AssertionError("no BANDS in scripts/bench_bots.py")


def share_limits(band: tuple[float, float], trials: int, *, ratio: bool) -> tuple[float, float]:
    """The band as shares (percent / 100, or AF / (1 + AF)), widened by ``BAND_Z`` binomial
    standard errors at each edge for a sample of *trials*."""
    low, high = (b / (1 + b) if ratio else b / 100 for b in band)
    return (
        low - BAND_Z * (low * (1 - low) / trials) ** 0.5,
        high + BAND_Z * (high * (1 - high) / trials) ** 0.5,
    )


def band_figures(merged: Counter[str]) -> dict[str, tuple[int, int, bool]]:
    """Each figure as (count, trials, is a ratio)."""
    return {
        "vpip": (merged["vpip"], merged["hands"], False),
        "pfr": (merged["pfr"], merged["hands"], False),
        "wtsd": (merged["showdown"], merged["saw_flop"], False),
        "af": (merged["aggressive"], merged["aggressive"] + merged["calls"], True),
    }


def test_share_limits_follow_the_sample_size() -> None:
    """The allowance shrinks as 1/sqrt(n) and is computed at the band's edges: VPIP 22-28 over
    450 hands is 22 - 3 * 1.953 .. 28 + 3 * 2.117 percent; AF 2-3 over 200 actions is shares
    2/3 - 3 * 0.0333 .. 3/4 + 3 * 0.0306."""
    low, high = share_limits((22, 28), 450, ratio=False)
    assert round(100 * low, 2) == 16.14 and round(100 * high, 2) == 34.35
    wide = share_limits((22, 28), 100, ratio=False)
    narrow = share_limits((22, 28), 10_000, ratio=False)
    assert wide[0] < low < narrow[0] < 0.22 and 0.28 < narrow[1] < high < wide[1]
    low, high = share_limits((2, 3), 200, ratio=True)
    assert round(low, 4) == 0.5667 and round(high, 4) == 0.8419


def test_each_style_lands_in_its_band_over_a_seeded_sample() -> None:
    rng = random.Random("bands")
    merged: dict[str, Counter[str]] = {style: Counter() for style in STYLES}
    for seating in BAND_SEATINGS:
        state = bot_table(Variant.NLHE, 6, [200] * 6)
        profiles = {i: Profile(seating[i], "regular") for i in range(6)}
        stats: dict[int, Counter[str]] = {i: Counter() for i in range(6)}
        session(state, profiles, BAND_HANDS, rng, Counter(), stats)
        for i in range(6):
            merged[seating[i]].update(stats[i])
    bands = published_bands()
    for style, counts in merged.items():
        assert counts["hands"] == 3 * BAND_HANDS, (style, counts)
        for name, (count, trials, ratio) in band_figures(counts).items():
            low, high = share_limits(bands[style][name], trials, ratio=ratio)
            share = count / trials
            figure = count / max(1, trials - count) if ratio else 100 * share
            assert low <= share <= high, (style, name, round(figure, 2), count, trials, low, high)
    # Where two published bands do not overlap, the sample keeps them apart (VPIP: loose above
    # tight at the same aggression; PFR and AF: both aggressive styles above both passive ones).
    shares = {
        (style, name): count / max(1, trials)
        for style, counts in merged.items()
        for name, (count, trials, _) in band_figures(counts).items()
    }
    assert shares["loose_aggressive", "vpip"] > shares["tight_aggressive", "vpip"], shares
    assert shares["loose_passive", "vpip"] > shares["tight_passive", "vpip"], shares
    for name in ("pfr", "af"):
        aggressive = min(shares[s, name] for s in ("tight_aggressive", "loose_aggressive"))
        passive = max(shares[s, name] for s in ("tight_passive", "loose_passive"))
        assert aggressive > passive, (name, shares)


RANKS = "23456789TJQKA"


def hand_classes() -> list[tuple[str, int]]:
    """The 169 starting-hand classes, one hand each, with their number of combinations."""
    classes = []
    for i, high in enumerate(RANKS):
        for low in RANKS[: i + 1]:
            if low == high:
                classes.append((f"{high}s{low}h", 6))
            else:
                classes += [(f"{high}s{low}s", 4), (f"{high}s{low}h", 12)]
    return classes


@pytest.mark.parametrize("style", STYLES)
def test_each_style_raises_its_pfr_band_first_in_under_the_gun(style: str) -> None:
    """Issue 24, PFR checked directly (a 450-hand sample reads PFR to about +-2 points, not
    enough to see a figure drift to its band's edge): under the gun of a 6-max table at 100 big
    blinds nobody has acted, so every hand is a first-in chance and the share of hands the bot
    raises there (the 169 classes weighted by combinations, one seeded decision each) is the PFR
    its charts give before the table's play moves it; it lies inside the style's published PFR
    band (measured: tight-aggressive 18.1 %, loose-aggressive 25.8 %, tight-passive 6.8 %,
    loose-passive 3.9 %: they limp most of their chart; the aggressive styles' 5,000-hand PFRs,
    docs/bots.md, are 1-2 points above these, the passive ones' 0-3: they also raise over
    limpers and from the big blind). With loose-aggressive ``width`` 1.45 (before issue 24's
    centring, PFR 23.7-25.5 over 5,000 hands) it reads 22.8 %, under the band's 24."""
    state = table([200] * 6)
    raised = 0
    for number, (hole, combos) in enumerate(hand_classes()):
        deck = fixed_deck(state, {2: hole}, button=5)  # small blind 0, big blind 1, UTG 2
        started, _ = apply(state, StartHand(deck=deck, button=5))
        view = view_for(started, 2)
        assert view["prompt"]["seat_index"] == 2 and view["prompt"]["to_call"] == 2
        command = decide(view, Profile(style, "regular"), random.Random(number))
        raised += combos * (getattr(command, "kind", None) in ("bet", "raise_to"))
    low, high = published_bands()[style]["pfr"]
    assert low <= 100 * raised / 1326 <= high, (style, round(100 * raised / 1326, 1))


def nuts_facing_a_flop_bet() -> dict[str, Any]:
    """Heads-up: seat 0 (button) raises to 6 with As Ks, seat 1 calls and bets 8 into
    Qs Js Ts: seat 0 holds the royal flush (equity 1, above every style's raise line) and faces
    the bet."""
    state = table([200, 200])
    deck = fixed_deck(state, {0: "AsKs", 1: "9d8d"}, "QsJsTs4h3c", button=0)
    state, _ = apply(state, StartHand(deck=deck, button=0))
    state, _ = play(state, "0 r 6", "1 c", "1 b 8")
    return view_for(state, 0)


@pytest.mark.parametrize("style", ["tight_passive", "loose_passive"])
def test_passive_styles_call_their_best_hands_within_their_af_band(style: str) -> None:
    """Issue 24, AF of the passive styles, checked directly (a 450-hand sample holds a passive
    style's AF to about 50 bets and calls, too few to see it leave its band): facing a bet with
    the nuts, a passive player calls more than it raises; over 200 seeded decisions its raises
    per call, the AF of its strongest hands, stay under its AF band's top (tight-passive 1.6,
    loose-passive 1.2; measured 0.42 and 0.69, from ``aggression`` 0.3 and 0.4). Its weaker
    holdings add calls (and its bluffs and stabs a few bets). With tight-passive
    ``aggression`` 0.8 the raises per call read 3.5 (156 raises, 44 calls)."""
    view = nuts_facing_a_flop_bet()
    kinds = Counter(
        getattr(decide(view, Profile(style, "regular"), random.Random(i)), "kind", None)
        for i in range(200)
    )
    assert set(kinds) <= {"call", "raise_to"}, kinds
    af_high = published_bands()[style]["af"][1]
    assert kinds["raise_to"] / max(1, kinds["call"]) <= af_high, (style, kinds, af_high)


# -- the action summary and continuation bets -----------------------------------------------


def raised_pot_on_a_dry_flop(hole: str = "Qs6c") -> TableState:
    """Heads-up: seat 0 (button, small blind) raises to 6, seat 1 calls; on Kc 7d 2h seat 1
    checks to the preflop raiser."""
    state = table([200, 200])
    deck = fixed_deck(state, {0: hole, 1: "9d8d"}, "Kc7d2h4s3s", button=0)
    state, _ = apply(state, StartHand(deck=deck, button=0))
    state, _ = play(state, "0 r 6", "1 c", "1 x")
    return state


def test_r8_4_the_action_summary_is_public_and_the_same_for_every_viewer() -> None:
    state = raised_pot_on_a_dry_flop()
    summaries = [view_for(state, seat)["hand"]["aggression"] for seat in (0, 1, None)]
    assert (
        summaries[0]
        == summaries[1]
        == summaries[2]
        == [
            {"street": "preflop", "raises": 1, "last": 0},
            {"street": "flop", "raises": 0, "last": None},
        ]
    )
    state, _ = play(state, "0 b 4", "1 r 12")
    assert view_for(state, 1)["hand"]["aggression"][1] == {
        "street": "flop",
        "raises": 2,
        "last": 1,
    }
    assert bot_styles.initiative(view_for(state, 0)) == 0  # the flop's initiative: preflop


def _bets(view: dict[str, Any], profile: Profile, tries: int = 150) -> float:
    commands = [decide(view, profile, random.Random(i)) for i in range(tries)]
    return sum(1 for c in commands if c is not None and c.kind == "bet") / tries


def test_a_preflop_raiser_continuation_bets_a_dry_flop_sometimes() -> None:
    """The preflop raiser, checked to on a dry flop with queen high, bets it often but not
    always; the same view without the initiative (the summary says the caller raised, then
    checked) bets it only at the style's bluffing and stabbing rates."""
    view = view_for(raised_pot_on_a_dry_flop(), 0)
    profile = Profile("tight_aggressive", "regular")
    as_raiser = _bets(view, profile)
    other = json.loads(json.dumps(view))
    other["hand"]["aggression"][0]["last"] = 1
    as_caller = _bets(other, profile)
    assert 0.35 <= as_raiser <= 0.95, as_raiser
    assert as_caller <= as_raiser - 0.2, (as_caller, as_raiser)


def first_to_act_on_a_dry_flop() -> dict[str, Any]:
    """Heads-up: seat 0 (button) raises to 6, seat 1 calls with queen high; seat 1 is first to
    act on Kc 7d 2h, the raiser behind it."""
    state = table([200, 200])
    deck = fixed_deck(state, {0: "9d8d", 1: "Qs6c"}, "Kc7d2h4s3s", button=0)
    state, _ = apply(state, StartHand(deck=deck, button=0))
    state, _ = play(state, "0 r 6", "1 c")
    return view_for(state, 1)


def test_r8_4_a_pot_nobody_is_betting_is_stabbed() -> None:
    """Out of position with air, a bot bets at its plain bluffing rate while the preflop raiser
    is still to act behind it (the raiser's continuation bet is to come); the same view after
    a limped preflop (nobody holds the initiative) is a pot nobody wants: it stabs more. In
    position, the raiser having checked to it, it stabs more again."""
    profile = Profile("tight_aggressive", "regular")
    raiser_behind = first_to_act_on_a_dry_flop()
    assert bot_styles.unopened(raiser_behind) is None
    limped = json.loads(json.dumps(raiser_behind))
    limped["hand"]["aggression"][0] = {"street": "preflop", "raises": 0, "last": None}
    assert bot_styles.unopened(limped) == 0.6
    in_position = view_for(raised_pot_on_a_dry_flop(), 0)
    in_position["hand"]["aggression"][0]["last"] = 1  # the caller raised, then checked
    assert bot_styles.unopened(in_position) == 1.0
    plain, stab, stab_last = (_bets(v, profile, 300) for v in (raiser_behind, limped, in_position))
    assert plain <= 0.25, plain
    assert stab >= plain + 0.1, (plain, stab)
    assert stab_last >= stab + 0.05, (stab, stab_last)


def checked_down_limped_pot(street: str) -> dict[str, Any]:
    """Heads-up: seat 0 (button) limps with queen high (Qs6c, no draw), seat 1 checks its
    option; every street checked by seat 1 (and by seat 0 before *street*): seat 0's view, last
    to act, checked to on *street* in a pot nobody has bet."""
    state = table([200, 200])
    deck = fixed_deck(state, {0: "Qs6c", 1: "9d8d"}, "Kc7d2h4s3s", button=0)
    state, _ = apply(state, StartHand(deck=deck, button=0))
    moves = ["0 c", "1 x", "1 x"]
    for _ in range(("flop", "turn", "river").index(street)):
        moves += ["0 x", "1 x"]
    state, _ = play(state, *moves)
    view = view_for(state, 0)
    assert view["hand"]["street"] == street and bot_styles.unopened(view) == 1.0
    return view


def test_r8_4_tight_passive_takes_a_checked_down_river_more_than_it_bluffs_the_flop() -> None:
    """Issue 24, tight-passive WTSD and AF: it bluffs little (a checked flop with queen high,
    under a quarter of 300 seeded decisions), but a river checked down to it is the last chance
    to take the pot without a showdown: there it bets with air far more often (``river_stab``,
    3.5 ×; measured 13 % and 46 %). Without the river multiplier the river reads 18 %."""
    profile = Profile("tight_passive", "regular")
    flop, river = (_bets(checked_down_limped_pot(s), profile, 300) for s in ("flop", "river"))
    assert flop <= 0.25, flop
    assert river >= 0.35 and river >= flop + 0.12, (flop, river)


def test_tight_passive_limps_behind_with_little_more_than_its_raising_range() -> None:
    """Issue 24: behind one limper, from the cutoff of a 6-max table at 100 big blinds, the
    tight-passive bot enters with 12 % of the hands (the 169 classes weighted by combinations; its
    raising range over limpers, 0.55 of its opening chart, times ``1 + limp_behind * limp``),
    the loose-passive bot with 76 %: fewer limped flops, which are checked down most often
    (about 45 % of them reached a showdown in the bench's count, a third of the raised ones).
    With ``limp_behind`` 2 (before) the tight-passive share was 21 %."""
    shares = {}
    for style in ("tight_passive", "loose_passive"):
        entered = total = 0
        for hole in CLASS_SAMPLES:
            view = behind_a_limper(hole)
            command = decide(view, Profile(style, "regular"), random.Random(7))
            weight = 6 if hole[0] == hole[2] else 4 if hole[1] == hole[3] else 12
            total += weight
            entered += weight * (command is not None and command.kind != "fold")
        shares[style] = entered / total
    assert shares["tight_passive"] <= 0.17, shares
    assert shares["loose_passive"] >= shares["tight_passive"] + 0.15, shares


RANKS = "AKQJT98765432"
CLASS_SAMPLES = [
    f"{RANKS[i]}c{RANKS[j]}{'c' if suited else 'd'}" if i != j else f"{RANKS[i]}c{RANKS[i]}d"
    for i in range(13)
    for j in range(i, 13)
    for suited in ((False,) if i == j else (True, False))
]  # one hand of each of the 169 classes


def behind_a_limper(hole: str) -> dict[str, Any]:
    """6-max, 100 big blinds, button 0: UTG (seat 3) limps, the hijack (seat 4) folds; the
    cutoff (seat 5) holds *hole*."""
    state = table([200] * 6)
    deck = fixed_deck(state, {5: hole}, "KsQhJh9s8s", button=0)
    state, _ = apply(state, StartHand(deck=deck, button=0))
    state, _ = play(state, "3 c", "4 f")
    prompt = legal_actions(state)
    assert prompt is not None and prompt.seat_index == 5
    return view_for(state, 5)


# -- the charts ----------------------------------------------------------------------------


def preflop_view(hole: str, stack_bb: int, button: int = 0, seats: int = 6) -> dict[str, Any]:
    """Everyone folds to seat 0... : seat 0 acts first (under the gun) at a 6-seat table."""
    state = table([stack_bb * 2] * seats)
    state, _ = apply(
        state,
        StartHand(
            deck=fixed_deck(state, {(button + 3) % seats: hole}, "KsQdJh9s8c", button=button),
            button=button,
        ),
    )
    prompt = legal_actions(state)
    assert prompt is not None and prompt.seat_index == (button + 3) % seats
    return view_for(state, prompt.seat_index)


@pytest.mark.parametrize("style", STYLES)
def test_under_the_gun_aces_play_and_seven_deuce_folds(style: str) -> None:
    for depth in (100, 30, 10):
        for seed in range(5):
            aces = decide(
                preflop_view("AsAh", depth), Profile(style, "regular"), random.Random(seed)
            )
            trash = decide(
                preflop_view("7c2d", depth), Profile(style, "regular"), random.Random(seed)
            )
            assert aces is not None and aces.kind in ("raise_to", "call")
            assert trash is not None and trash.kind == "fold"
    shove = decide(
        preflop_view("AsAh", 10), Profile("tight_aggressive", "regular"), random.Random(1)
    )
    assert shove is not None and getattr(shove, "amount", 0) == 20  # all in below 15 bb
    opened = decide(
        preflop_view("AsAh", 100), Profile("tight_aggressive", "regular"), random.Random(1)
    )
    assert opened is not None and getattr(opened, "amount", 0) == 5  # 2.5 big blinds


def test_push_fold_ranges_widen_as_stacks_shorten_and_players_behind_leave() -> None:
    assert ranges.push_fraction(5, 14) < ranges.push_fraction(5, 8) < ranges.push_fraction(5, 4)
    assert ranges.push_fraction(5, 10) < ranges.push_fraction(2, 10) < ranges.push_fraction(1, 10)
    assert ranges.open_fraction(5, 6) < ranges.open_fraction(3, 6) < ranges.open_fraction(2, 6)


def test_equity_against_a_narrow_range_is_lower_than_against_random_hands() -> None:
    rng = random.Random(2)
    hole = parse_cards("AhJd")
    tight = ranges.equity_vs_ranges(hole, [], [ranges.Range(ranges.top_combos(3))], rng, 800)
    loose = ranges.equity_vs_ranges(hole, [], [ranges.Range(ranges.COMBOS)], rng, 800)
    assert tight < 0.42 < 0.55 < loose


def test_bet_sizes_follow_street_and_board() -> None:
    dry, wet = parse_cards("Kc7d2h"), parse_cards("9h8hTc")
    assert ranges.bet_fraction("flop", dry, 1, 0) < ranges.bet_fraction("flop", wet, 1, 0)
    assert ranges.bet_fraction("flop", dry, 1, 0) < ranges.bet_fraction("river", dry + [0, 5], 1, 0)


# -- powers by expected value --------------------------------------------------------------


def test_peek_is_worth_most_on_a_close_call_with_a_draw() -> None:
    close = bot_styles.peek_value(0.3, 100, 30, True)
    clear = bot_styles.peek_value(0.85, 100, 30, True)
    assert close > clear >= 0
    assert bot_styles.peek_value(0.3, 100, 0, True) == 0  # nothing to call: nothing to save


def test_a_destello_is_cheap_when_the_seat_is_full() -> None:
    assert bot_styles.destello_value(3, 100) < bot_styles.destello_value(1, 100)


def test_profiles_vary_within_a_table_and_follow_the_level() -> None:
    settings_ = SimpleNamespace(bot_level="strong")
    styles = {profile_for_seat(settings_, s, random.Random("table-1")).style for s in range(6)}
    assert styles == set(STYLES)
    assert {profile_for_seat(settings_, s, random.Random(1)).level for s in range(6)} == {"strong"}
    old = profile_for_seat(SimpleNamespace(bot_level="old"), 2, random.Random(1))
    assert old.level == "old"
    assert profile_for_seat(SimpleNamespace(), 0, random.Random(1)).level == "regular"
    with pytest.raises(ValueError):
        Profile("maniac", "regular")
