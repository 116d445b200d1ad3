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
``push_chips``. PokerKit is used unchanged except for the speed of its hand ranking (see
:class:`_FastStandardHighHand`); the random hands run in one forked process per core.

Reproduce one random hand with ``play_hand(Variant.NLHE, seed)``: a failure prints the seed, the
table and the actions. ``NAIKO_DIFFERENTIAL_HANDS=100000 pytest -s -k random_hands`` plays more.
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
import os
import random
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from naiko.cards import format_cards, parse_cards, shuffled_deck
from naiko.commands import AllIn, Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import Prompt, apply_in_place, legal_actions
from naiko.state import AnteMode, HandState, Street, TableConfig, TableState, Variant
from pokerkit import (
    AntePosting,
    Automation,
    BlindOrStraddlePosting,
    Card,
    CardsLike,
    ChipsPushing,
    Entry,
    Hand,
    Mode,
    NoLimitTexasHoldem,
    OmahaHoldemHand,
    PotLimitOmahaHoldem,
    StandardHighHand,
    State,
)
from profile_testing import by_profile

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


class _FastStandardHighHand(StandardHighHand):
    """PokerKit's hold'em hand, ranked by PokerKit's own lookup table, but faster.

    Unchanged PokerKit spends most of this test's time ranking hands: it ranks every shown hand
    again for each player and pot while deciding which hands to kill (``State.can_win_now``),
    and each ranking builds a ``Hand`` object (two table look-ups) per five-card combination.
    Here each (hole cards, board) is ranked once (memoised) by one look-up per combination in
    the same ``StandardLookup``; only the loop over the combinations is ours. Every 50th ranking
    is checked against PokerKit's own ``from_game``.
    """

    @classmethod
    def from_game(cls, hole_cards: CardsLike, board_cards: CardsLike = ()) -> Hand:
        return _ranked(cls, Card.clean(hole_cards), Card.clean(board_cards))

    @functools.cached_property
    def entry(self) -> Entry:
        return self.lookup.get_entry(self.cards)


class _FastOmahaHoldemHand(OmahaHoldemHand):
    """PokerKit's Omaha hand (exactly two hole cards and three board cards), ranked as in
    :class:`_FastStandardHighHand`."""

    @classmethod
    def from_game(cls, hole_cards: CardsLike, board_cards: CardsLike = ()) -> Hand:
        return _ranked(cls, Card.clean(hole_cards), Card.clean(board_cards))

    @functools.cached_property
    def entry(self) -> Entry:
        return self.lookup.get_entry(self.cards)


_rankings = itertools.count()


@functools.lru_cache(maxsize=4096)
def _ranked(cls: type[Hand], hole: tuple[Card, ...], board: tuple[Card, ...]) -> Hand:
    if issubclass(cls, OmahaHoldemHand):
        combos: Iterator[tuple[Card, ...]] = (
            h + b for h in itertools.combinations(hole, 2)
            for b in itertools.combinations(board, 3))
    else:
        combos = itertools.combinations(hole + board, 5)
    get_entry = cls.lookup.get_entry
    best: tuple[Card, ...] | None = None
    best_entry: Entry | None = None
    for combo in combos:
        entry = get_entry(combo)
        if best_entry is None or entry > best_entry:
            best, best_entry = combo, entry
    if best is None:
        raise ValueError("no hand can be formed from these cards yet")
    hand = cls(best)
    if next(_rankings) % 50 == 0:  # PokerKit's own ranking agrees
        assert super(cls, cls).from_game(hole, board) == hand  # type: ignore[misc]
    return hand


class _NoLimitTexasHoldem(NoLimitTexasHoldem):
    hand_types = (_FastStandardHighHand,)


class _PotLimitOmahaHoldem(PotLimitOmahaHoldem):
    hand_types = (_FastOmahaHoldemHand,)


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
            shown = [(i, hand) for i in pot.player_indices if (hand := hands[i]) is not None]
            best = max(hand for _, hand in shown)
            winners = tuple(i for i, hand in shown if hand == best)
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
        h = table.hole_count
        if [hand.hole[i] for i in range(table.seat_count)] != [
                list(table.deck[i * h:(i + 1) * h]) for i in range(table.seat_count)]:
            raise self.fail("hole cards are not dealt seat by seat from the left of the button")
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
        if hand.board != list(self.board[:len(hand.board)]):
            raise self.fail("the board is not dealt from the top of the rest of the deck")
        self._compare_end()
        return res

    # -- for hand-worked positions ---------------------------------------------------------
    def decisions(self) -> tuple[Decision | None, Decision | None]:
        """Who may do what now: (ours, PokerKit's)."""
        p = legal_actions(self.ours)
        with pokerkit_warnings():
            return (None if p is None else ours_decision(p)), pk_decision(self.pk)

    def act(self, kind: str, to: int | None = None, *, ours: bool = True,
            pokerkit: bool = True) -> None:
        """Apply ``fold``, ``call`` (check or call) or ``raise`` (bet or raise to *to*) in
        both engines (or in one), then let PokerKit deal."""
        with pokerkit_warnings():
            if ours:
                p = legal_actions(self.ours)
                assert p is not None
                apply_in_place(self.ours, _command(self.ours, p, kind, to))
            if pokerkit:
                if kind == "fold":
                    self.pk.fold()
                elif to is None:
                    self.pk.check_or_call()
                else:
                    self.pk.complete_bet_or_raise_to(to)
                self.pk_progress()

    def stacks(self) -> tuple[list[int], list[int]]:
        """(ours, PokerKit's)."""
        return [self.ours.stack(i) for i in range(self.table.seat_count)], list(self.pk.stacks)

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
               if isinstance(o, AntePosting | BlindOrStraddlePosting) and o.player_index == seat]
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
            if isinstance(op, ChipsPushing):
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
        adjusted = [s - p + r for s, p, r in zip(self.pk.stacks, pushed, by_rule, strict=True)]
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
    table = random_table(rng, variant)
    try:
        driver = Driver(table, rng, seed)
    except Exception as exc:
        raise Mismatch(f"{type(exc).__name__}: {exc}\n  seed: {seed!r}\n  table: {table}") from exc
    try:
        return driver.play()
    except Mismatch:
        raise
    except Exception as exc:  # an engine rejected an action the other allowed, say
        raise driver.fail(f"{type(exc).__name__}: {exc}") from exc


# -- many random hands -----------------------------------------------------------------------

SEEDS = by_profile(ci={Variant.NLHE: 2_000, Variant.PLO: 2_100},
                   thorough={Variant.NLHE: 4_400, Variant.PLO: 4_600})
"""Random hands per variant (seeds 0 to n-1; the ``thorough`` profile plays more,
``tests/profile_testing.py``): about 9 in 10 are compared to the final stacks, the rest stop
at a documented divergence that leaves the engines with different chips (R2.3, R2.8)."""
MIN_COMPARED_TO_THE_END = by_profile(ci=1_700, thorough=3_900)


@dataclass
class Totals:
    """What a run of random hands compared (plain data: it crosses process boundaries)."""

    hands: int = 0
    compared_to_the_end: int = 0
    decisions: int = 0
    classified: Counter[str] = field(default_factory=Counter)
    stopped: Counter[str] = field(default_factory=Counter)
    failed: int = 0
    failures: list[str] = field(default_factory=list)
    """The first few failure messages (each names its seed, table and actions)."""

    def add(self, other: Totals) -> None:
        self.hands += other.hands
        self.compared_to_the_end += other.compared_to_the_end
        self.decisions += other.decisions
        self.classified.update(other.classified)
        self.stopped.update(other.stopped)
        self.failed += other.failed
        self.failures.extend(other.failures[:3 - len(self.failures)])

    def as_tuple(self) -> tuple[object, ...]:
        return (self.hands, self.compared_to_the_end, self.decisions, dict(self.classified),
                dict(self.stopped), self.failed, self.failures)

    @classmethod
    def from_tuple(cls, t: tuple[object, ...]) -> Totals:
        hands, end, decisions, classified, stopped, failed, failures = t
        return cls(hands, end, decisions, Counter(classified), Counter(stopped),  # type: ignore
                   failed, list(failures))  # type: ignore


def run_seeds(variant: Variant, seeds: range) -> Totals:
    totals = Totals()
    for seed in seeds:
        totals.hands += 1
        try:
            result = play_hand(variant, seed)
        except Mismatch as exc:
            totals.failed += 1
            if len(totals.failures) < 3:
                totals.failures.append(str(exc))
            continue
        totals.decisions += result.compared
        totals.classified.update(result.classified)
        if result.stopped is None:
            totals.compared_to_the_end += 1
        else:
            totals.stopped[result.stopped] += 1
    return totals


def run_in_parallel(variant: Variant, count: int) -> Totals:
    """Seeds ``0..count-1`` shared by one forked process per core (up to 2): PokerKit plays a
    few hundred hands a second. (Also under pytest-xdist, which may well run both variants on
    the same worker one after the other.)"""
    workers = max(1, min(2, os.cpu_count() or 1))
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return run_seeds(variant, range(count))
    chunks = [range(i, count, workers) for i in range(workers)]
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()

    def work(chunk: range) -> None:
        try:
            queue.put(run_seeds(variant, chunk).as_tuple())
        except BaseException as exc:  # noqa: BLE001 - reported by the parent
            queue.put(Totals(failed=1, failures=[f"worker crashed: {exc!r}"]).as_tuple())

    processes = [ctx.Process(target=work, args=(chunk,)) for chunk in chunks]
    for process in processes:
        process.start()
    total = Totals()
    for _ in processes:
        total.add(Totals.from_tuple(queue.get(timeout=600)))
    for process in processes:
        process.join()
    return total


@pytest.mark.parametrize("variant", [Variant.NLHE, Variant.PLO])
def test_random_hands_agree_with_pokerkit(variant: Variant) -> None:
    """Every decision and every final stack of 1,700+ random hands per variant (3,900+ under
    ``thorough``) agree with PokerKit, or differ exactly as RULES.md decides (R2.3, R2.8,
    R3.2, R4.3, R4.5)."""
    count = int(os.environ.get("NAIKO_DIFFERENTIAL_HANDS", SEEDS[variant]))
    totals = run_in_parallel(variant, count)
    print(f"\n{variant}: {totals.hands} hands; "
          f"{totals.compared_to_the_end} compared to the final stacks; "
          f"{totals.decisions} decisions identical in both engines; failed {totals.failed}")
    for reason, n in sorted(totals.classified.items()):
        print(f"  differs as RULES.md decides: {reason}: {n}")
    for reason, n in sorted(totals.stopped.items()):
        print(f"  hands stopped before the end by {reason}: {n}")
    assert not totals.failures, "\n\n".join(totals.failures)
    if "NAIKO_DIFFERENTIAL_HANDS" not in os.environ:
        assert totals.compared_to_the_end >= MIN_COMPARED_TO_THE_END


# -- hand-worked positions: each divergence in both engines ------------------------------------

def fixed_table(stacks: list[int], blinds: tuple[int, int] = (1, 2), cards: str = "",
                ante: int = 0, ante_mode: AnteMode = AnteMode.NONE,
                variant: Variant = Variant.NLHE) -> Table:
    """Seat N-1 is the button; *cards* are the top of the deck (hole cards seat by seat from
    seat 0, then the board); the rest of the deck follows in order."""
    top = parse_cards(cards)
    deck = top + [c for c in range(52) if c not in top]
    return Table(variant, blinds[0], blinds[1], ante, ante_mode, tuple(stacks), tuple(deck))


def position(table: Table) -> Driver:
    driver = Driver(table, random.Random(0))
    with pokerkit_warnings():
        driver.pk_progress()
    return driver


def test_r2_3_short_big_blind_price_differs_from_pokerkit() -> None:
    """Blinds 1/2, the big blind has 1 chip. We keep the nominal big blind as the price and the
    raise unit; PokerKit's price is the 1 chip posted. Button (seat 2) to act."""
    d = position(fixed_table([100, 1, 100]))
    ours, theirs = d.decisions()
    assert ours == Decision(seat=2, to_call=2, min_raise_to=4, max_raise_to=100)
    assert theirs == Decision(seat=2, to_call=1, min_raise_to=3, max_raise_to=100)
    # A raise to 4 is legal in both; the next full raise differs: our last full raise is
    # 4 - 2 = 2, PokerKit's 4 - 1 = 3.
    d.act("raise", 4)
    ours, theirs = d.decisions()
    assert ours == Decision(seat=0, to_call=3, min_raise_to=6, max_raise_to=100)
    assert theirs == Decision(seat=0, to_call=3, min_raise_to=7, max_raise_to=100)


def test_r2_3_heads_up_small_blind_still_owes_the_nominal_big_blind() -> None:
    """Heads-up, blinds 1/2, the big blind (seat 0) has 1 chip. We ask the small blind to call
    the nominal big blind (the extra chip comes straight back, R4.2); PokerKit's betting is
    already over because the posted small blind covers the big blind."""
    d = position(fixed_table([1, 50], cards="AhAd 2c7d Ks9s4c3h5d"))
    ours, theirs = d.decisions()
    assert ours == Decision(seat=1, to_call=1, min_raise_to=None, max_raise_to=None)
    assert theirs is None and not d.pk.status  # PokerKit ran the board out and paid
    d.act("call", pokerkit=False)
    assert d.hand.complete
    assert d.stacks() == ([2, 49], [2, 49])  # AhAd wins 1 from each; the called chip returned


def test_r2_8_big_blind_posted_before_big_blind_ante() -> None:
    """Blinds 1/2 with a big-blind ante of 2; the big blind (seat 1) has 3 chips. We post the
    blind first (2) and 1 chip of ante (Poker TDA); PokerKit posts the ante first (2) and a 1-chip
    blind, so for PokerKit the big blind is short and the price drops to 1 (compare R2.3)."""
    d = position(fixed_table([100, 3, 100], ante=2, ante_mode=AnteMode.BIG_BLIND))
    assert (d.hand.bets[1], d.hand.antes[1]) == (2, 1)
    assert d.pk.bets[1] == 1 and d.pk.operations[0] == AntePosting(player_index=1, amount=2)
    ours, theirs = d.decisions()
    assert ours == Decision(seat=2, to_call=2, min_raise_to=4, max_raise_to=100)
    assert theirs == Decision(seat=2, to_call=1, min_raise_to=3, max_raise_to=100)


def _limp_to_the_flop(d: Driver, players: int) -> None:
    for _ in range(players):
        d.act("call")  # limps, the small blind completes, the big blind checks
    assert d.hand.street is Street.FLOP


def test_r3_2_pokerkit_differs_on_short_all_in_opening_bet() -> None:
    """Blinds 1/2, everyone limps; on the flop seats 0 and 1 check and the button bets its last
    chip. That bet is less than a full bet (2), so it does not reopen the betting for the two
    players who already acted (R3.2); PokerKit counts the first bet of a round as full whatever
    its size and lets them raise (to 3)."""
    d = position(fixed_table([100, 100, 3]))
    _limp_to_the_flop(d, 3)
    d.act("call")
    d.act("call")
    d.act("raise", 1)  # the button's last chip
    ours, theirs = d.decisions()
    assert ours == Decision(seat=0, to_call=1, min_raise_to=None, max_raise_to=None)
    assert theirs == Decision(seat=0, to_call=1, min_raise_to=3, max_raise_to=98)


def test_r3_2_pokerkit_differs_on_two_short_all_ins() -> None:
    """Blinds 5/10, everyone limps. Flop: seat 0 checks, seat 1 bets its last 4, seat 2 raises
    all-in to 7, seat 3 calls. Seat 0 faces 7 in total since it checked: less than a full bet of
    10, so it may only call or fold (R3.2). PokerKit took the 4 as a full bet (it sets the raise
    unit to 4), so the 3 on top is short but seat 0 acted before the 4 and may raise."""
    d = position(fixed_table([200, 14, 17, 200], blinds=(5, 10)))
    _limp_to_the_flop(d, 4)
    d.act("call")
    d.act("raise", 4)
    d.act("raise", 7)
    d.act("call")
    ours, theirs = d.decisions()
    assert ours == Decision(seat=0, to_call=7, min_raise_to=None, max_raise_to=None)
    assert theirs == Decision(seat=0, to_call=7, min_raise_to=17, max_raise_to=190)


def test_r3_2_pokerkit_forbids_after_its_short_all_in_sum_restarts() -> None:
    """Blinds 5/10, everyone limps. Flop: seat 0 bets 10; seats 1, 2 and 3 go all-in to 14, 20
    and 24; seat 4 calls. Seat 0 faces 14 more since its bet, at least a full raise of 10: it
    may raise again (R3.2). PokerKit adds up consecutive short all-ins (4 + 6 = 10 reopens and
    restarts the sum) and then sees only the last 4, less than 10: no raise for seat 0."""
    d = position(fixed_table([200, 24, 30, 34, 200], blinds=(5, 10)))
    _limp_to_the_flop(d, 5)
    d.act("raise", 10)
    d.act("raise", 14)
    d.act("raise", 20)
    d.act("raise", 24)
    d.act("call")
    ours, theirs = d.decisions()
    assert ours == Decision(seat=0, to_call=14, min_raise_to=34, max_raise_to=190)
    assert theirs == Decision(seat=0, to_call=14, min_raise_to=None, max_raise_to=None)


def test_r3_2_house_rules_example_agrees_with_pokerkit() -> None:
    """RULES.md R3.2's example: A bets 10, B calls, C is all-in to 18, D all-in to 25; the
    increments 8 + 7 reach 10, so A and B may raise. Both engines agree."""
    d = position(fixed_table([100, 100, 20, 27]))
    _limp_to_the_flop(d, 4)
    d.act("raise", 10)
    d.act("call")
    d.act("raise", 18)
    d.act("raise", 25)
    ours, theirs = d.decisions()
    assert ours == theirs == Decision(seat=0, to_call=15, min_raise_to=35, max_raise_to=98)
    d.act("call")
    ours, theirs = d.decisions()
    assert ours == theirs == Decision(seat=1, to_call=15, min_raise_to=35, max_raise_to=98)


def test_r4_3_pokerkit_asks_for_a_pointless_check() -> None:
    """Blinds 1/2: the button calls all-in for 2 and the small blind folds. The big blind has
    nothing to call and nobody left to bet against: we deal the board at once (R4.3); PokerKit
    still asks the big blind to check."""
    d = position(fixed_table([100, 100, 2], cards="7c2d AhAd KsKd 9s8s4c3h5d"))
    d.act("call")
    d.act("fold", ours=False, pokerkit=False)
    apply_in_place(d.ours, Fold(seat_index=0))
    with pokerkit_warnings():
        d.pk.fold()
    ours, theirs = d.decisions()
    assert ours is None and d.hand.complete
    assert theirs == Decision(seat=1, to_call=0, min_raise_to=None, max_raise_to=None)
    d.act("call", ours=False)
    assert d.stacks() == ([99, 103, 0], [99, 103, 0])


def test_r4_5_odd_chips_differ_from_pokerkit() -> None:
    """Blinds 1/2 with a big-blind ante of 1, five players; the big blind, seat 2 and the button
    see a royal flush on the board: a pot of 8 split three ways. We give the two odd chips one
    at a time from the first winner left of the button (3, 3, 2); PokerKit gives both to the
    first winner (4, 2, 2)."""
    d = position(fixed_table([100] * 5, ante=1, ante_mode=AnteMode.BIG_BLIND,
                             cards="2c3d 4c5d 6c7d 8c9d 2h3h AsKsQsJsTs"))
    d.act("call")  # seat 2
    d.act("fold")  # seat 3
    d.act("call")  # the button
    d.act("fold")  # the small blind
    for _ in range(3 * 3 + 1):  # the big blind checks preflop, then everyone checks
        d.act("call")
    assert d.hand.complete and not d.pk.status
    assert d.hand.awards[0]["winners"] == {"1": 3, "2": 3, "4": 2}
    assert d.stacks() == ([99, 100, 101, 100, 100], [99, 101, 100, 100, 100])


def test_r4_5_each_pot_split_on_its_own_differs_from_pokerkit() -> None:
    """Blinds 1/2 with a big-blind ante of 1. Seat 2 raises to 5, the button calls, the small
    blind calls all-in for 4, the big blind calls; on the flop the big blind bets 2, seat 2
    folds, the button calls. The big blind and the button tie with a straight: we split the
    main pot (17) and the side pot (7) each on its own, 9 + 4 to the big blind and 8 + 3 to the
    button. PokerKit removes the losing small blind's hand first, finds both pots have the same
    two players, merges them into one pot of 24 and splits it 12 / 12."""
    d = position(fixed_table([4, 100, 100, 100], ante=1, ante_mode=AnteMode.BIG_BLIND,
                             cards="5h6h Tc3d 7c8d Td4c AhKdQcJs2h"))
    d.act("raise", 5)  # seat 2
    d.act("call")  # the button
    d.act("call")  # the small blind, all-in
    d.act("call")  # the big blind
    d.act("raise", 2)  # flop: the big blind bets
    d.act("fold")  # seat 2
    d.act("call")  # the button
    for _ in range(4):
        d.act("call")
    assert [(a["amount"], a["winners"]) for a in d.hand.awards] == [
        (17, {"1": 9, "3": 8}), (7, {"1": 4, "3": 3})]
    assert d.stacks() == ([0, 105, 95, 104], [0, 104, 95, 105])


def test_fold_when_checking_is_possible_is_legal_in_both_cash_engines() -> None:
    """We allow a fold when checking is possible (R8.1 folds only when checking is not legal,
    but a player may still choose to). PokerKit allows it at cash tables with a warning ("There
    is no reason for this player to fold") and refuses it in its default tournament mode."""
    d = position(fixed_table([100, 100, 100]))
    _limp_to_the_flop(d, 3)
    prompt = legal_actions(d.ours)
    assert prompt is not None and "fold" in prompt.actions and "check" in prompt.actions
    with pytest.warns(UserWarning, match="no reason for this player to fold"):
        d.pk.fold()
    tournament = NoLimitTexasHoldem.create_state(
        PK_AUTOMATIONS, False, 0, (1, 2), 2, (100, 100, 100), 3)
    for cards in ("2c3d", "4c5d", "6c7d"):
        tournament.deal_hole(cards)
    for _ in range(3):
        tournament.check_or_call()
    tournament.burn_card("??")
    tournament.deal_board("AsKsQs")
    with pytest.raises(ValueError, match="no reason for this player to fold"):
        tournament.fold()
