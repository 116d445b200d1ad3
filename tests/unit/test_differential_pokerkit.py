""":mod:`naiko.engine` against PokerKit 0.7.7: the same random hands played in both engines.

Scenario: random tables of 2-9 players (No-Limit Hold'em and Pot-Limit Omaha), stacks from less
than a small blind to a thousand big blinds, blinds with and without antes (uniform antes and the
big-blind ante), a fixed shuffled deck dealt the same way in both engines (each seat receives all
of its hole cards at once, starting left of the button; then the board; no burn cards; PokerKit
burns an unknown ``??``), and a seeded random action at every decision. At every decision both
engines must agree on who acts, the amount to call, whether a bet or raise is possible and its
minimum and maximum; at the end they must agree on every pot and every stack.

Where RULES.md decides against PokerKit on purpose, the test detects the exact situation and
checks our engine against the rule instead, using :class:`RoundModel` (RULES.md §2-3 written
again, independently of the engine) and the pots and hand ranks PokerKit computed:
R2.3 (a short big blind does not lower the price), R2.8 (the big blind is posted before the
big-blind ante), R3.2 (reopening after short all-ins, Poker TDA), R4.3 (no pointless check when
everyone else is all-in) and R4.5 (each pot split on its own, odd chips one at a time).
``docs/pokerkit-differences.md`` describes each with a worked example; the ``test_r*`` tests at
the end replay those examples in both engines.

PokerKit's behaviour comes from ``pokerkit/state.py`` 0.7.7: ``get_effective_blind_or_straddle``,
``_verify_completion_betting_or_raising``, ``complete_bet_or_raise_to``, ``pots``,
``push_chips``. Reproduce one random hand with ``play_hand(Variant.NLHE, seed)``; a failure
prints the seed, the table and the actions.
"""

from __future__ import annotations

import functools
import random
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from pokerkit import (
    Automation,
    Card,
    CardsLike,
    Entry,
    Hand,
    Mode,
    NoLimitTexasHoldem,
    OmahaHoldemHand,
    PotLimitOmahaHoldem,
    StandardHighHand,
    State,
)

from naiko.cards import format_cards, parse_cards, shuffled_deck
from naiko.commands import AllIn, Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import Prompt, apply_in_place, legal_actions
from naiko.pots import split_pot
from naiko.state import AnteMode, HandState, Street, TableConfig, TableState, Variant

# -- tables ----------------------------------------------------------------------------------

BLINDS = ((1, 2), (1, 2), (1, 2), (2, 4), (5, 10), (2, 5), (3, 6))


@dataclass(frozen=True)
class Table:
    """One hand's setup. Seats are 0..N-1 and seat N-1 is the button, so seat i is PokerKit's
    player i (0 = small blind ... N-1 = button; heads-up 0 = big blind, 1 = button and small
    blind)."""

    variant: Variant
    small_blind: int
    big_blind: int
    ante: int
    ante_mode: AnteMode
    stacks: tuple[int, ...]
    deck: tuple[int, ...]

    @property
    def seat_count(self) -> int:
        return len(self.stacks)

    @property
    def big_blind_seat(self) -> int:
        return 0 if self.seat_count == 2 else 1

    @property
    def hole_count(self) -> int:
        return 2 if self.variant is Variant.NLHE else 4

    def __str__(self) -> str:
        ante = "" if self.ante_mode is AnteMode.NONE else f", ante {self.ante} ({self.ante_mode})"
        return (f"{self.variant} {self.seat_count} seats, blinds {self.small_blind}/"
                f"{self.big_blind}{ante}, stacks {list(self.stacks)} (seat {self.seat_count - 1}"
                f" is the button), deck {format_cards(self.deck)}")


def random_stack(rng: random.Random, sb: int, bb: int) -> int:
    """Short stacks (less than a small blind, less than a big blind) as well as deep ones."""
    r = rng.random()
    if r < 0.07:
        return rng.randint(1, max(1, sb - 1))  # less than a small blind when sb > 1
    if r < 0.14:
        return rng.randint(1, bb - 1)  # less than a big blind
    if r < 0.24:
        return rng.randint(bb, 4 * bb)
    if r < 0.55:
        return rng.randint(4 * bb, 30 * bb)
    if r < 0.88:
        return rng.randint(30 * bb, 150 * bb)
    return rng.randint(150 * bb, 1000 * bb)


def random_table(rng: random.Random, variant: Variant) -> Table:
    n = rng.randint(2, 9)
    sb, bb = rng.choice(BLINDS)
    r = rng.random()
    if r < 0.6:
        ante, mode = 0, AnteMode.NONE
    elif r < 0.8:
        ante, mode = rng.choice((1, sb, bb // 2, bb)), AnteMode.EACH
    else:
        ante, mode = rng.choice((bb, bb, sb, 2 * bb)), AnteMode.BIG_BLIND
    stacks = tuple(random_stack(rng, sb, bb) for _ in range(n))
    return Table(variant, sb, bb, ante, mode, stacks, tuple(shuffled_deck(rng)))


# -- the two engines -------------------------------------------------------------------------

PK_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.CHIPS_PULLING,
)
"""The driver does the rest itself: it deals the fixed deck (and burns ``??``), shows every hand
at showdown (R4.4), and records the pots and their winners before PokerKit kills the losing
hands and pushes the chips."""


def ours_new_hand(table: Table) -> TableState:
    config = TableConfig(variant=table.variant, seat_count=table.seat_count,
                         small_blind=table.small_blind, big_blind=table.big_blind,
                         ante=table.ante, ante_mode=table.ante_mode)
    state = TableState.new(config)
    for seat, stack in enumerate(table.stacks):
        apply_in_place(state, SitDown(seat_index=seat, player_id=f"p{seat}", stack=stack))
    apply_in_place(state, StartHand(deck=table.deck, button=table.seat_count - 1))
    return state


class _MemoStandardHighHand(StandardHighHand):
    """PokerKit's own hold'em hand, memoised: PokerKit evaluates every shown hand again for
    each player and pot while it decides which hands to kill (``State.can_win_now``), which
    made it spend 80% of this test's time there. The result of ``from_game`` is a pure function
    of the cards, so memoising it changes nothing but the speed."""

    @classmethod
    def from_game(cls, hole_cards: CardsLike, board_cards: CardsLike = ()) -> Hand:
        return _memo_from_game(cls, tuple(hole_cards), tuple(board_cards))

    @functools.cached_property
    def entry(self) -> Entry:  # type: ignore[override]
        return self.lookup.get_entry(self.cards)


class _MemoOmahaHoldemHand(OmahaHoldemHand):
    """PokerKit's Omaha hand, memoised (see :class:`_MemoStandardHighHand`)."""

    @classmethod
    def from_game(cls, hole_cards: CardsLike, board_cards: CardsLike = ()) -> Hand:
        return _memo_from_game(cls, tuple(hole_cards), tuple(board_cards))

    @functools.cached_property
    def entry(self) -> Entry:  # type: ignore[override]
        return self.lookup.get_entry(self.cards)


@functools.lru_cache(maxsize=4096)
def _memo_from_game(cls: type[Hand], hole: tuple[Card, ...], board: tuple[Card, ...]) -> Hand:
    return super(cls, cls).from_game(hole, board)  # type: ignore[misc]


class _NoLimitTexasHoldem(NoLimitTexasHoldem):
    hand_types = (_MemoStandardHighHand,)


class _PotLimitOmahaHoldem(PotLimitOmahaHoldem):
    hand_types = (_MemoOmahaHoldemHand,)


def pk_new_hand(table: Table) -> State:
    game = _NoLimitTexasHoldem if table.variant is Variant.NLHE else _PotLimitOmahaHoldem
    antes: int | dict[int, int] = 0
    if table.ante_mode is AnteMode.EACH:
        antes = table.ante
    elif table.ante_mode is AnteMode.BIG_BLIND:
        antes = {1: table.ante}  # p2 = the big blind; heads-up PokerKit gives it to player 0
    return game.create_state(PK_AUTOMATIONS, False, antes, (table.small_blind, table.big_blind),
                             table.big_blind, table.stacks, table.seat_count,
                             mode=Mode.CASH_GAME)


@contextmanager
def pokerkit_warnings() -> Iterator[None]:
    """Every PokerKit warning is an error, except the one for a fold when checking is possible
    (legal in both engines at cash tables)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="There is no reason for this player to fold")
        yield


@dataclass(frozen=True)
class Decision:
    """What the seat to act may do, in the terms both engines share."""

    seat: int
    to_call: int
    min_raise_to: int | None
    max_raise_to: int | None

    @property
    def can_raise(self) -> bool:
        return self.min_raise_to is not None


def ours_decision(p: Prompt) -> Decision:
    return Decision(p.seat_index, p.to_call, p.min_raise_to, p.max_raise_to)


def pk_decision(pk: State) -> Decision | None:
    seat = pk.actor_index
    if seat is None:
        return None
    assert pk.can_fold() and pk.can_check_or_call()
    to_call = pk.checking_or_calling_amount
    assert to_call is not None
    lo = pk.min_completion_betting_or_raising_to_amount
    hi = pk.max_completion_betting_or_raising_to_amount
    assert (lo is None) == (hi is None)
    return Decision(seat, to_call, lo, hi)


def check_prompt_shape(state: TableState, p: Prompt) -> None:
    """The prompt's list of actions agrees with its amounts (R3.1)."""
    hand = state.hand
    assert hand is not None
    stack, bet = state.stack(p.seat_index), hand.bets[p.seat_index]
    expected = ["fold", "call" if p.to_call else "check"]
    if p.min_raise_to is not None:
        expected.append("bet" if hand.current_bet == 0 else "raise_to")
    if p.max_raise_to == stack + bet or hand.current_bet - bet >= stack:
        expected.append("all_in")
    assert list(p.actions) == expected, (p, expected)


# -- the betting rules of both engines, written again ---------------------------------------

@dataclass
class RoundModel:
    """One betting round, kept from the actions the driver applies: the expected decision by
    RULES.md (``pokerkit=False``) or by PokerKit 0.7.7 as read in ``state.py``
    (``pokerkit=True``). Where the two engines differ, each must match its own model.

    Both: R3.1 a full bet or raise is at least the last full one of the round (the big blind to
    start with) and the stack is the limit; R3.3 the pot-limit maximum. RULES.md R2.3: the
    preflop price is at least the nominal big blind (PokerKit: the largest blind posted).
    RULES.md R3.2: a seat that already acted may raise again only when facing at least a full
    raise in total since its last action. PokerKit (``_verify_completion_betting_or_raising``,
    ``complete_bet_or_raise_to``): no raise when the amount to call is less than the largest
    increment of the round (which starts at 0, so a short first bet counts), nor for a seat
    that acted since the last bet or raise at least as large as that increment while the
    consecutive short all-ins since then sum to less than it (the sum restarts once it
    reaches it).
    """

    current: int
    full: int
    pokerkit: bool = False
    level_at_action: dict[int, int] = field(default_factory=dict)
    """Per seat that acted this round: the bet to match when it last acted."""
    action_number: dict[int, int] = field(default_factory=dict)
    short_all_ins: list[int] = field(default_factory=list)
    """The action numbers of this round's short all-ins (bets or raises below a full one)."""
    actions: int = 0
    largest: int = 0
    """PokerKit: the largest bet or raise increment of the round."""
    acted: set[int] = field(default_factory=set)
    """PokerKit: seats that acted since the last bet or raise at least as large as ``largest``."""
    consecutive: list[int] = field(default_factory=list)
    """PokerKit: the increments of the short all-ins since the last bet or raise that was not
    all-in (or since their sum last reached ``largest``)."""

    def record(self, seat: int, to: int | None, all_in: bool) -> None:
        """*to* is the seat's bet after a bet or raise, ``None`` for a check, call or fold."""
        self.actions += 1
        if to is not None and to > self.current:
            increment = to - self.current
            if increment >= self.largest:
                self.acted.clear()
            self.largest = max(self.largest, increment)
            if all_in:
                self.consecutive.append(increment)
            else:
                self.consecutive.clear()
            if sum(self.consecutive) >= self.largest:
                self.consecutive.clear()
            if increment >= self.full:
                self.full = increment
            else:
                assert all_in, "only an all-in may be less than a full bet or raise"
                self.short_all_ins.append(self.actions)
            self.current = to
        self.acted.add(seat)
        self.level_at_action[seat] = self.current
        self.action_number[seat] = self.actions

    def short_all_in_since_last_action(self, seat: int) -> bool:
        last = self.action_number.get(seat)
        return last is not None and any(a > last for a in self.short_all_ins)

    def may_raise_again(self, seat: int, owed: int) -> bool:
        if self.pokerkit:
            if owed < self.largest:
                return False
            return not (self.consecutive and sum(self.consecutive) < self.largest
                        and seat in self.acted)
        return (seat not in self.level_at_action
                or self.current - self.level_at_action[seat] >= self.full)

    def expected(self, seat: int, stacks: list[int], bets: list[int], live: list[bool],
                 pot_total: int, pot_limit: bool) -> Decision:
        stack, bet = stacks[seat], bets[seat]
        owed = max(0, self.current - bet)
        all_in_to = stack + bet
        can_raise = (
            stack > owed
            and self.may_raise_again(seat, owed)
            and any(t != seat and live[t] and stacks[t] + bets[t] > self.current
                    for t in range(len(stacks))))
        if not can_raise:
            return Decision(seat, min(owed, stack), None, None)
        lo = min(all_in_to, self.current + self.full)
        hi = all_in_to
        if pot_limit:  # R3.3: current bet + (pot with every bet + the amount to call)
            hi = min(all_in_to, max(lo, self.current + pot_total + owed))
        return Decision(seat, min(owed, stack), lo, hi)


# -- one hand in both engines ----------------------------------------------------------------

class Mismatch(AssertionError):
    """The engines disagree in a way no documented rule explains."""


@dataclass
class HandResult:
    table: Table
    seed: object = None
    actions: list[str] = field(default_factory=list)
    compared: int = 0
    """Decisions on which both engines agreed exactly."""
    classified: Counter[str] = field(default_factory=Counter)
    """Decisions (hands, for R2.8 and R4.5) where the engines differ as RULES.md decides, and
    where ours matched the rule."""
    stopped: str | None = None
    """The divergence that left the engines with different chips before the end of the hand,
    or ``None`` when the hand was compared to the final stacks."""


FOLD, CALL = 0.3, 0.65


def choose_action(rng: random.Random, d: Decision,
                  actions: tuple[str, ...]) -> tuple[str, int | None]:
    """A random legal action, weighted: fold, check or call, min raise, max raise or all-in,
    an amount in between."""
    r = rng.random()
    if r < (FOLD if d.to_call else 0.03):
        return "fold", None
    if not d.can_raise or r < CALL:
        if "all_in" in actions and d.to_call and rng.random() < 0.2:
            return "all_in", None  # a call of the whole stack, sent as AllIn
        return "call", None
    assert d.min_raise_to is not None and d.max_raise_to is not None
    r = rng.random()
    if r < 0.35:
        return "raise", d.min_raise_to
    if r < 0.55:
        return "raise", d.max_raise_to
    if r < 0.65 and "all_in" in actions:
        return "all_in", None
    return "raise", rng.randint(d.min_raise_to, d.max_raise_to)


class Driver:
    """Plays one hand in both engines, comparing them at every decision and at the end."""

    def __init__(self, table: Table, rng: random.Random, seed: object = None) -> None:
        self.table = table
        self.rng = rng
        self.ours = ours_new_hand(table)
        hand = self.ours.hand
        assert hand is not None
        self.hand: HandState = hand
        self.pk = pk_new_hand(table)
        n, h = table.seat_count, table.hole_count
        self.hole = [format_cards(table.deck[i * h:(i + 1) * h]) for i in range(n)]
        self.board = table.deck[n * h:n * h + 5]
        self.board_dealt = 0
        self.result = HandResult(table, seed)
        self.pots: list[tuple[int, tuple[int, ...], tuple[int, ...]]] | None = None
        """PokerKit's pots before it kills the losing hands: amount, eligible, tied winners."""
        self.short_big_blind = max(hand.bets) < table.big_blind
        """R2.3: nobody posted a full big blind (the big blind is short, or all-in on an ante)."""
        self.models = (
            RoundModel(current=max(table.big_blind, max(hand.bets)), full=table.big_blind),
            RoundModel(current=max(hand.bets), full=table.big_blind, pokerkit=True))
        """This round by RULES.md and by PokerKit's rules."""
        self.model_street = Street.PREFLOP
        self.reason = ""

    # -- PokerKit's side: deal the fixed deck, show every hand, record the pots -------------
    def pk_progress(self) -> None:
        pk = self.pk
        while pk.status:
            actor = pk.actor_index
            if actor is not None:
                if not self._pk_pointless_check(actor):
                    return
                pk.check_or_call()
            elif any(pk.hole_dealing_statuses):
                seat = pk.hole_dealee_index
                assert seat is not None
                pk.deal_hole(self.hole[seat])
            elif pk.card_burning_status:
                pk.burn_card("??")
            elif pk.board_dealing_counts and pk.board_dealing_counts[0]:
                count = pk.board_dealing_counts[0]
                pk.deal_board(format_cards(self.board[self.board_dealt:self.board_dealt + count]))
                self.board_dealt += count
            elif pk.can_show_or_muck_hole_cards():
                pk.show_or_muck_hole_cards(True)  # R4.4: every hand still in is shown
            elif pk.can_kill_hand() or pk.can_push_chips():
                if self.pots is None:
                    self.pots = self._pk_pots()
                if pk.can_kill_hand():
                    pk.kill_hand()
                else:
                    pk.push_chips()
            else:
                raise self.fail("PokerKit is stuck")

    def _pk_pointless_check(self, actor: int) -> bool:
        """R2.4/R4.3: the round is over when nobody else can act. After a fold leaves one
        player with chips against all-in players, PokerKit still asks that player to check (it
        can do nothing else); we deal the rest at once. The check changes nothing: make it."""
        pk = self.pk
        if pk.bets[actor] < max(pk.bets) or any(
                i != actor and pk.statuses[i] and pk.stacks[i] for i in range(len(pk.stacks))):
            return False
        assert pk.min_completion_betting_or_raising_to_amount is None
        self.result.classified["R4.3 PokerKit asks for a pointless check"] += 1
        return True

    def _pk_pots(self) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
        pk = self.pk
        pots = list(pk.pots)
        if sum(pk.statuses) == 1:
            return [(pot.amount, pot.player_indices, pot.player_indices) for pot in pots]
        hands = tuple(pk.get_up_hands(0, 0))
        out = []
        for pot in pots:
            best = max(hands[i] for i in pot.player_indices)
            winners = tuple(i for i in pot.player_indices if hands[i] == best)
            out.append((pot.amount, pot.player_indices, winners))
        return out

    # -- comparing -------------------------------------------------------------------------
    def fail(self, message: str) -> Mismatch:
        return Mismatch(
            f"{message}\n  seed: {self.result.seed!r}\n  table: {self.table}\n"
            f"  actions: {self.result.actions}\n  ours: {self.hand.log}\n"
            f"  pokerkit: {[type(o).__name__ for o in self.pk.operations][-8:]}")

    def _stacks_in_step(self) -> bool:
        n = self.table.seat_count
        return ([self.ours.stack(i) for i in range(n)] == list(self.pk.stacks)
                and self.hand.bets == list(self.pk.bets))

    def _round_models(self) -> tuple[RoundModel, RoundModel]:
        if self.model_street != self.hand.street:
            bb = self.table.big_blind
            self.models = (RoundModel(0, bb), RoundModel(0, bb, pokerkit=True))
            self.model_street = self.hand.street
        return self.models

    def _model_decision(self, seat: int, pokerkit: bool = False) -> Decision:
        hand, n = self.hand, self.table.seat_count
        return self._round_models()[pokerkit].expected(
            seat, [self.ours.stack(i) for i in range(n)], list(hand.bets),
            [hand.is_live(i) for i in range(n)], hand.pot + sum(hand.bets),
            self.table.variant is Variant.PLO)

    def play(self) -> HandResult:
        table, hand, res = self.table, self.hand, self.result
        if (table.ante_mode is AnteMode.BIG_BLIND
                and table.stacks[table.big_blind_seat] < table.big_blind + table.ante):
            self._r2_8_blind_before_ante()
            return res
        with pokerkit_warnings():
            self.pk_progress()
            while not hand.complete:
                if not self._step():
                    return res
                self.pk_progress()
            if self.pk.status:
                raise self.fail("our hand is over, PokerKit's is not")
        self._compare_end()
        return res

    def _r2_8_blind_before_ante(self) -> None:
        """R2.8: the big blind who cannot cover blind and ante posts the blind first (Poker
        TDA); PokerKit posts the ante first. The engines start with different bets."""
        table, hand = self.table, self.hand
        seat, stack = table.big_blind_seat, table.stacks[table.big_blind_seat]
        blind = min(table.big_blind, stack)
        ours = (hand.committed[seat] - hand.antes[seat], hand.antes[seat])
        if hand.complete:  # everybody all-in at once: the blind may have been returned
            ours = (blind, ours[1])
        if ours != (blind, min(table.ante, stack - blind)):
            raise self.fail(f"R2.8: our big blind posted (blind, ante) = {ours}")
        ops = [(type(o).__name__, o.amount) for o in self.pk.operations
               if getattr(o, "player_index", None) == seat]
        pk_ante = min(table.ante, stack)
        expected_pk = [("AntePosting", pk_ante)]
        if stack > pk_ante:
            expected_pk.append(("BlindOrStraddlePosting", min(table.big_blind, stack - pk_ante)))
        assert ops[:len(expected_pk)] == expected_pk, ops
        self.result.classified["R2.8 big blind before the big-blind ante"] += 1
        self.result.stopped = "R2.8 big blind before the big-blind ante"

    def _step(self) -> bool:
        """One decision in both engines. Returns ``False`` when a documented divergence leaves
        the engines with different chips (the hand is then not compared further)."""
        hand, pk, res = self.hand, self.pk, self.result
        p = legal_actions(self.ours)
        if p is None:
            raise self.fail("our hand is not over but nobody is to act")
        check_prompt_shape(self.ours, p)
        self._round_models()
        ours = ours_decision(p)
        theirs = pk_decision(pk)
        if theirs is None:
            return self._r2_3_call_that_comes_back(p, ours)
        if not self._stacks_in_step():
            raise self.fail("stacks or bets differ")
        if ours == theirs:
            res.compared += 1
        else:
            expected = self._model_decision(p.seat_index)
            if ours != expected:
                raise self.fail(f"ours {ours} differs from PokerKit {theirs} and from "
                                f"RULES.md {expected}")
            self.reason = self._explain(ours, theirs)
            res.classified[self.reason] += 1
        kind, to = self._choose(p, ours)
        street = hand.street
        if ours != theirs:
            if to is not None and not (theirs.min_raise_to is not None
                                       and theirs.max_raise_to is not None
                                       and theirs.min_raise_to <= to <= theirs.max_raise_to):
                res.stopped = self.reason  # the raise is not legal in PokerKit
                return False
        self._apply(p, kind, to)
        if ours != theirs and kind != "fold" and to is None and ours.to_call != theirs.to_call:
            # A call of a different amount (R2.3): the engines are in step again only if the
            # round ended in both and the difference came back as an uncalled bet (R4.2).
            if not ((hand.complete or hand.street != street) and pk.actor_index is None
                    and self._stacks_in_step()):
                res.stopped = self.reason
                return False
        return True

    def _r2_3_call_that_comes_back(self, p: Prompt, ours: Decision) -> bool:
        """R2.3: the big blind is short (or all-in on an ante) and the last player with chips
        has already matched what the others posted, so PokerKit's round is over (heads-up: the
        small blind covers the short big blind). We still ask that player for the nominal big
        blind: a call puts in chips that come straight back (R4.2); a fold gives up the pot."""
        hand = self.hand
        if not (self.short_big_blind and hand.street is Street.PREFLOP
                and ours == self._model_decision(p.seat_index) and not ours.can_raise):
            raise self.fail(f"PokerKit has no decision; we ask for {ours}")
        self.reason = "R2.3 short big blind"
        self.result.classified[self.reason] += 1
        kind, to = self._choose(p, ours)
        if kind == "fold":
            self.result.stopped = self.reason
            return False
        apply_in_place(self.ours, _command(self.ours, p, kind, to))
        self.result.actions.append("(ours only)")
        if hand.street is Street.PREFLOP and not hand.complete:
            raise self.fail("our preflop round should be over after the call")
        if not self._stacks_in_step():
            raise self.fail("stacks differ after the call came back")
        return True

    def _explain(self, ours: Decision, theirs: Decision) -> str:
        """Which decision of RULES.md explains ``ours != theirs``. Ours already matches the
        RULES.md model; PokerKit must match the model of its own rules, and the two models
        differ only in R2.3 (preflop, when nobody posted a full big blind) and R3.2."""
        if ours.seat != theirs.seat:
            raise self.fail(f"different seats to act: ours {ours}, PokerKit {theirs}")
        by_pokerkit = self._model_decision(theirs.seat, pokerkit=True)
        if theirs != by_pokerkit:
            raise self.fail(f"ours {ours} differs from PokerKit {theirs}, which differs from "
                            f"PokerKit's rules as modelled {by_pokerkit}")
        if self.short_big_blind and self.hand.street is Street.PREFLOP:
            return "R2.3 short big blind"
        if ours.to_call == theirs.to_call and ours.can_raise != theirs.can_raise:
            assert self.models[0].short_all_in_since_last_action(ours.seat)
            side = "allows" if theirs.can_raise else "forbids"
            return f"R3.2 reopening: PokerKit {side} a raise"
        raise self.fail(f"unexplained difference: ours {ours}, PokerKit {theirs}")

    def _choose(self, p: Prompt, d: Decision) -> tuple[str, int | None]:
        kind, amount = choose_action(self.rng, d, p.actions)
        all_in_to = self.ours.stack(p.seat_index) + self.hand.bets[p.seat_index]
        if kind == "all_in" and p.max_raise_to == all_in_to:
            kind, amount = "all_in", all_in_to
        self.result.actions.append(f"s{p.seat_index} {kind}" + (f" {amount}" if amount else ""))
        return kind, amount

    def _apply(self, p: Prompt, kind: str, to: int | None) -> None:
        seat = p.seat_index
        apply_in_place(self.ours, _command(self.ours, p, kind, to))
        if kind == "fold":
            self.pk.fold()
        elif to is None:
            self.pk.check_or_call()
        else:
            self.pk.complete_bet_or_raise_to(to)
        for model in self.models:  # the round the action was made in
            model.record(seat, to, self.ours.stack(seat) == 0)

    def _compare_end(self) -> None:
        """Same pots, same winners, same stacks (R4.5-adjusted: each pot split on its own, odd
        chips one at a time from the first winner left of the button)."""
        hand, n = self.hand, self.table.seat_count
        final = [self.ours.stack(i) for i in range(n)]
        assert self.pots is not None
        showdown = any(a["showdown"] for a in hand.awards)
        if not showdown:  # the last hand left wins everything unseen (R2.4)
            if final != list(self.pk.stacks):
                raise self.fail(f"final stacks: ours {final}, PokerKit {list(self.pk.stacks)}")
            return
        # our rule applied to PokerKit's pots and hand ranks (player order = clockwise from the
        # button, the button being the last seat)
        expected = [
            (amount, eligible, split_rule(amount, winners)) for amount, eligible, winners
            in self.pots]
        ours = [(a["amount"], tuple(a["eligible"]),
                 {int(s): v for s, v in a["winners"].items()}) for a in hand.awards]
        if ours != expected:
            raise self.fail(f"pots: ours {ours}, PokerKit's by R4.5 {expected}")
        pushed = [0] * n
        for op in self.pk.operations:
            if type(op).__name__ == "ChipsPushing":
                for i, v in enumerate(op.amounts):
                    pushed[i] += v
        by_rule = [0] * n
        for _, _, shares in expected:
            for i, v in shares.items():
                by_rule[i] += v
        if by_rule != pushed:
            whole_remainder = [0] * n
            for amount, _, winners in self.pots:
                share, remainder = divmod(amount, len(winners))
                for k, i in enumerate(winners):
                    whole_remainder[i] += share + (remainder if k == 0 else 0)
            self.result.classified[
                "R4.5 odd chips one at a time" if whole_remainder == pushed
                else "R4.5 each pot split on its own (PokerKit merges pots)"] += 1
        adjusted = [s - p + r for s, p, r in zip(self.pk.stacks, pushed, by_rule)]
        if final != adjusted:
            raise self.fail(f"final stacks: ours {final}, PokerKit's by R4.5 {adjusted}")


def split_rule(amount: int, winners: tuple[int, ...]) -> dict[int, int]:
    """R4.5 written again: odd chips one at a time, in player order from the first winner."""
    share, odd = divmod(amount, len(winners))
    return {seat: share + (1 if k < odd else 0) for k, seat in enumerate(winners)}


def _command(state: TableState, p: Prompt, kind: str, to: int | None) -> Command:
    seat = p.seat_index
    if kind == "fold":
        return Fold(seat_index=seat)
    if kind == "all_in":
        return AllIn(seat_index=seat)
    if to is None:
        return Call(seat_index=seat) if p.to_call else Check(seat_index=seat)
    hand = state.hand
    assert hand is not None
    if hand.current_bet == 0:
        return Bet(seat_index=seat, amount=to)
    return RaiseTo(seat_index=seat, amount=to)


def play_hand(variant: Variant, seed: int) -> HandResult:
    """Play random hand *seed* of *variant* in both engines (reproducible from the seed)."""
    rng = random.Random(f"{variant}-{seed}")
    return Driver(random_table(rng, variant), rng, seed).play()
