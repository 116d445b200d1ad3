"""Legality in one place: the verify / can / do triple of the engine (hypothesis).

Over random states from random hands (No-Limit Hold'em, Pot-Limit Omaha, Naiko mode with
Short Anchors), for every seat and every betting action:

- the prompt, ``can_<action>`` and an independent model of the betting rules agree: R2.7
  (check, call, bet or raise), R3.1 (the minimum raise, the stack), R3.2 (a seat that acted is
  reopened only by a full raise), R3.3 (the pot limit), R6.3 (a Short Anchor's cap), the
  all-in, and nobody to raise against. The model keeps its own ledger of the betting round from
  the events (the current bet, the last full raise, what each seat faced when it last acted,
  the anchors): it never reads the engine's ``min_raise``, ``faced`` or ``acted``;
- ``verify_<action>`` raises exactly when the handler (``apply``) refuses, with the same error
  (type, code, message, rule), and a refused command leaves the state as it was;
- at the offered bounds a bet or raise is accepted, one chip outside it is refused.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.cards import shuffled_deck
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
from naiko.engine import (
    Prompt,
    apply,
    apply_in_place,
    can_all_in,
    can_bet,
    can_call,
    can_check,
    can_fold,
    can_raise_to,
    legal_actions,
    verify_all_in,
    verify_bet,
    verify_call,
    verify_check,
    verify_fold,
    verify_raise_to,
)
from naiko.errors import EngineError
from naiko.events import (
    ActionTaken,
    AnchorApplied,
    BoardDealt,
    Event,
    Move,
    WindowClosed,
    WindowOpened,
)
from naiko.powers import draw_carousel
from naiko.state import AnteMode, BettingStructure, TableConfig, TableState, Variant

MAX_ACTIONS_PER_HAND = 400
KINDS = ("fold", "check", "call", "bet", "raise_to", "all_in")

VERIFY: dict[str, Callable[..., object]] = {
    "fold": verify_fold, "check": verify_check, "call": verify_call, "bet": verify_bet,
    "raise_to": verify_raise_to, "all_in": verify_all_in}
CAN: dict[str, Callable[..., bool]] = {
    "fold": can_fold, "check": can_check, "call": can_call, "bet": can_bet,
    "raise_to": can_raise_to, "all_in": can_all_in}


def command(kind: str, seat: int, amount: int | None = None) -> Command:
    if kind == "bet":
        assert amount is not None
        return Bet(seat_index=seat, amount=amount)
    if kind == "raise_to":
        assert amount is not None
        return RaiseTo(seat_index=seat, amount=amount)
    return {"fold": Fold, "check": Check, "call": Call, "all_in": AllIn}[kind](seat_index=seat)


# -- an independent model of the betting round -----------------------------------------------

@dataclass
class Ledger:
    """The betting round as the events tell it (not the engine's bookkeeping)."""

    big_blind: int
    current: int = 0
    """The bet to match."""
    full_raise: int = 0
    """The last full bet or raise this round (R3.1), at least a big blind."""
    acted: dict[int, int] = field(default_factory=dict)
    """Seats that acted this round -> the bet they faced (matched or made) when they did."""
    anchors: dict[int, str] = field(default_factory=dict)
    """Short Anchor targets this round -> pending / applied / shielded."""

    def new_round(self, current: int) -> None:
        self.current = current
        self.full_raise = self.big_blind
        self.acted.clear()
        self.anchors.clear()

    def record(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, ActionTaken):
                if event.action in (Move.BET, Move.RAISE_TO):
                    assert event.to is not None
                    if event.to - self.current >= self.full_raise:
                        self.full_raise = event.to - self.current
                    self.current = event.to
                if event.action is not Move.FOLD:
                    self.acted[event.seat_index] = self.current
            elif isinstance(event, BoardDealt):
                self.new_round(0)
            elif isinstance(event, WindowOpened):
                self.anchors[event.target] = "pending"
            elif isinstance(event, AnchorApplied):
                self.anchors[event.target] = "applied"
            elif isinstance(event, WindowClosed) and event.reason == "shielded":
                self.anchors[event.target] = "shielded"


@dataclass(frozen=True)
class Expected:
    actions: tuple[str, ...]
    to_call: int
    bounds: tuple[int, int] | None


def expected(state: TableState, ledger: Ledger, seat: int) -> Expected:
    """What RULES.md allows *seat* (the seat to act) now, from the ledger and public chips."""
    hand = state.hand
    assert hand is not None
    n = state.config.seat_count
    stack = state.stack(seat)
    bet = hand.bets[seat]
    current = ledger.current
    owed = current - bet
    assert owed >= 0
    actions = ["fold", "call" if owed > 0 else "check"]
    live = [t for t in range(n) if hand.dealt[t] and not hand.folded[t]]
    reopened = seat not in ledger.acted or current - ledger.acted[seat] >= ledger.full_raise
    somebody = any(t != seat and state.stack(t) + hand.bets[t] > current for t in live)
    all_in_to = stack + bet
    bounds = None
    if stack > owed and reopened and somebody:
        full = current + ledger.full_raise
        high = all_in_to
        capped = (state.config.rules.betting is BettingStructure.POT_LIMIT
                  or ledger.anchors.get(seat) in ("pending", "applied"))
        if capped:
            pot_raise = current + hand.pot + sum(hand.bets) + owed
            high = min(all_in_to, max(full, pot_raise))
        bounds = (min(full, all_in_to), high)
        actions.append("bet" if current == 0 else "raise_to")
    if (bounds is not None and bounds[1] == all_in_to) or stack <= owed:
        actions.append("all_in")
    return Expected(tuple(actions), min(owed, stack), bounds)


# -- the checks ------------------------------------------------------------------------------

def outcome(run: Callable[..., object], *args: object) -> tuple[str, str, str, str | None] | None:
    """``None`` when ``run(*args)`` is accepted, else the refusal: type, code, message, rule."""
    try:
        run(*args)
    except EngineError as exc:
        return type(exc).__name__, exc.code, exc.message, exc.rule_id
    return None


def amounts_for(p: Prompt | None, state: TableState, seat: int) -> list[int]:
    """Amounts at, inside and one chip outside the offered bounds, and a few odd ones."""
    amounts = {0, 1, state.config.big_blind, state.stack(seat)}
    if p is not None and p.min_raise_to is not None and p.max_raise_to is not None:
        lo, hi = p.min_raise_to, p.max_raise_to
        amounts |= {lo - 1, lo, (lo + hi) // 2, hi, hi + 1}
    return sorted(amounts)


def check_legality(state: TableState, ledger: Ledger) -> None:
    p = legal_actions(state)
    assert p is not None
    hand = state.hand
    assert hand is not None
    want = expected(state, ledger, p.seat_index)
    assert (p.actions, p.to_call) == (want.actions, want.to_call), (p, want)
    assert (p.min_raise_to, p.max_raise_to) == (want.bounds or (None, None)), (p, want)
    before = state.copy()
    for seat in range(state.config.seat_count):
        actor = seat == p.seat_index
        offered = set(p.actions) if actor else set()
        for kind in KINDS:
            # can_x is True exactly when the prompt offers x (to this seat)
            assert CAN[kind](state, seat) == (kind in offered), (kind, seat, p)
            cases: list[int | None] = [None]
            if kind in ("bet", "raise_to"):
                cases = [*amounts_for(p, state, seat)] if actor else [p.min_raise_to or 1]
            for amount in cases:
                args = (state, seat) if amount is None else (state, seat, amount)
                verdict = outcome(VERIFY[kind], *args)
                work = state.copy()
                refusal = outcome(apply_in_place, work, command(kind, seat, amount))
                # verify raises exactly when the handler refuses, with the same error
                assert verdict == refusal, (kind, seat, amount, verdict, refusal)
                if refusal is not None:
                    assert work == before, (kind, seat, amount)  # a refusal changes nothing
                if seat != p.seat_index:
                    assert refusal is not None and refusal[0] == "NotYourTurn"
    assert state == before
    seat = p.seat_index
    if "call" in p.actions:
        assert verify_call(state, seat) == p.to_call
    for kind in ("bet", "raise_to"):
        if kind not in p.actions:
            continue
        assert p.min_raise_to is not None and p.max_raise_to is not None
        lo, hi = p.min_raise_to, p.max_raise_to
        assert VERIFY[kind](state, seat) == (lo, hi)
        # at the offered bounds accepted, one chip outside refused
        assert CAN[kind](state, seat, lo) and CAN[kind](state, seat, hi)
        assert not CAN[kind](state, seat, lo - 1) and not CAN[kind](state, seat, hi + 1)
    if "all_in" in p.actions:  # a bet or raise when the bounds reach the stack, else a call
        all_in_to = state.stack(seat) + hand.bets[seat]
        if want.bounds is not None and want.bounds[1] == all_in_to:
            move = Move.BET if ledger.current == 0 else Move.RAISE_TO
        else:
            move = Move.CALL
        assert verify_all_in(state, seat) is move


# -- random hands ----------------------------------------------------------------------------

@st.composite
def tables(draw: st.DrawFn, variant: Variant) -> TableState:
    seat_count = draw(st.integers(2, 9))
    big_blind = draw(st.sampled_from([2, 10]))
    small_blind = draw(st.sampled_from([big_blind // 2, big_blind]))
    ante_mode = (AnteMode.NONE if variant is Variant.NAIKO
                 else draw(st.sampled_from(list(AnteMode))))
    ante = 0 if ante_mode is AnteMode.NONE else draw(st.integers(1, big_blind))
    config = TableConfig(variant=variant, seat_count=seat_count, small_blind=small_blind,
                         big_blind=big_blind, ante=ante, ante_mode=ante_mode)
    state = TableState.new(config)
    # many short stacks: short all-ins are what R3.2's reopening rule is about
    stacks = st.one_of(st.integers(1, big_blind * 4), st.integers(1, big_blind * 60))
    for seat in range(seat_count):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}",
                                        stack=draw(stacks)))
    return state


def power_move(state: TableState, p: Prompt, rnd: random.Random) -> Command | None:
    """Naiko mode: now and then a power (a Short Anchor most of all) or a window's answer."""
    hand = state.hand
    assert hand is not None and hand.powers is not None
    for window in hand.powers.windows:
        choice = rnd.random()
        if choice < 0.3:
            return UsePower(seat_index=window.target, power="seal_shield", at_ms=0)
        if choice < 0.5:
            return PassWindow(seat_index=window.target)
        if choice < 0.6:
            return WindowTimeout(window_id=window.window_id)
    if p.anchor_targets and rnd.random() < 0.5:
        return UsePower(seat_index=p.seat_index, power="short_anchor",
                        target_seat=rnd.choice(p.anchor_targets), at_ms=0)
    if p.powers and rnd.random() < 0.2:
        power = rnd.choice([x for x in p.powers if x != "short_anchor"] or ["peek"])
        return UsePower(seat_index=p.seat_index, power=power, card_index=0)
    return None


def betting_move(p: Prompt, rnd: random.Random) -> Command:
    kind = rnd.choice(p.actions)
    amount = None
    if kind in ("bet", "raise_to"):
        assert p.min_raise_to is not None and p.max_raise_to is not None
        lo, hi = p.min_raise_to, p.max_raise_to
        amount = rnd.choice([lo, lo, hi, rnd.randint(lo, hi)])
    return command(kind, p.seat_index, amount)


def play_and_check(state: TableState, seed: int, hands: int) -> int:
    """Play *hands* random hands; check the legality properties at every decision. Returns the
    number of decisions checked."""
    rnd = random.Random(seed)
    naiko = state.config.rules.powers
    checked = 0
    for _ in range(hands):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        button = rnd.choice(active) if state.last_big_blind_seat is None else None
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rnd)), button=button,
                                          carousel=draw_carousel(rnd) if naiko else ()))
        hand = state.hand
        assert hand is not None
        ledger = Ledger(state.config.big_blind)
        ledger.new_round(max(state.config.big_blind, max(hand.bets)))
        for _ in range(MAX_ACTIONS_PER_HAND):
            hand = state.hand
            assert hand is not None
            if hand.complete:
                break
            p = legal_actions(state)
            assert p is not None
            check_legality(state, ledger)
            checked += 1
            move = power_move(state, p, rnd) if naiko else None
            if move is not None:
                try:
                    state, events = apply(state, move)
                except EngineError:
                    continue
            else:
                state, events = apply(state, betting_move(p, rnd))
            ledger.record(events)
        else:
            raise AssertionError("the hand did not terminate")
    return checked


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("variant", [Variant.NLHE, Variant.PLO, Variant.NAIKO])
@SETTINGS
@given(data=st.data())
def test_the_prompt_can_and_verify_agree_with_the_rules_and_the_handlers(
        variant: Variant, data: st.DataObject) -> None:
    state = data.draw(tables(variant))
    play_and_check(state, data.draw(st.integers(0, 2**32)), hands=3)


def test_seeded_hands_reach_every_rule() -> None:
    """The random hands do reach what the rules are about: a betting not reopened (R3.2), a
    pot-limit cap (R3.3), an anchored seat (R6.3), a covered all-in call."""
    seen: dict[str, int] = dict.fromkeys(("not_reopened", "pot_cap", "anchored", "covered"), 0)
    original = check_legality

    def spy(state: TableState, ledger: Ledger) -> None:
        original(state, ledger)
        p = legal_actions(state)
        assert p is not None and state.hand is not None
        seat = p.seat_index
        stack, owed = state.stack(seat), ledger.current - state.hand.bets[seat]
        if seat in ledger.acted and stack > owed and ledger.current - ledger.acted[seat] \
                < ledger.full_raise:
            seen["not_reopened"] += 1
        if p.max_raise_to is not None and p.max_raise_to < stack + state.hand.bets[seat]:
            seen["pot_cap" if ledger.anchors.get(seat) is None else "anchored"] += 1
        if stack <= owed:
            seen["covered"] += 1

    globals()["check_legality"] = spy
    try:
        for variant in (Variant.NLHE, Variant.PLO, Variant.NAIKO):
            for seed in range(12):
                rnd = random.Random(seed)
                config = TableConfig(variant=variant, seat_count=6, small_blind=1, big_blind=2)
                state = TableState.new(config)
                for seat in range(6):
                    state, _ = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}",
                                                    stack=rnd.choice([3, 5, 9, 40, 120])))
                play_and_check(state, seed, hands=3)
    finally:
        globals()["check_legality"] = original
    assert all(seen.values()), seen

