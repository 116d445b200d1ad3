""":mod:`naiko.engine` is the rule book as code: ``apply(state, command) -> (state, events)``.

The engine is pure: no clock, no I/O, no global random (the shuffled deck and the first
button come in with :class:`~naiko.commands.StartHand`). A rejected command raises an
:class:`~naiko.errors.EngineError` and leaves the state untouched.

>>> from naiko.cards import shuffled_deck, seeded_random
>>> from naiko.commands import SitDown, StartHand, Call, Check, Fold
>>> table = TableState.new(TableConfig(seat_count=3, small_blind=1, big_blind=2))
>>> for seat in range(3):
...     table, _ = apply(table, SitDown(seat_index=seat, player_id=f"p{seat}", stack=100))
>>> table, events = apply(table, StartHand(deck=tuple(shuffled_deck(seeded_random(7))), button=0))
>>> prompt = legal_actions(table)
>>> prompt.seat_index, prompt.actions, prompt.to_call, prompt.min_raise_to, prompt.max_raise_to
(0, ('fold', 'call', 'raise_to', 'all_in'), 2, 4, 100)
>>> table, _ = apply(table, Fold(seat_index=0))
>>> table, events = apply(table, Fold(seat_index=1))
>>> [e.kind for e in events]
['action', 'uncalled_bet_returned', 'pot_awarded', 'hand_ended']
>>> [s.stack for s in table.seats]
[100, 99, 101]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import powers
from .cards import DECK_SIZE, format_cards
from .commands import (
    AddChips,
    AllIn,
    Bet,
    Call,
    CancelHand,
    Check,
    ChooseEntry,
    Command,
    Fold,
    PassWindow,
    RaiseTo,
    SitDown,
    SitIn,
    SitOut,
    StandUp,
    StartHand,
    UsePower,
    WindowTimeout,
)
from .commitment import commit_deck
from .errors import (
    EngineError,
    IllegalAction,
    MalformedCommand,
    NoHandInProgress,
    NotYourTurn,
    TableError,
    UnknownSeat,
)
from .events import (
    ActionTaken,
    AntePosted,
    BlindPosted,
    BoardDealt,
    ChipsAdded,
    DeckCommitted,
    EntryChosen,
    Event,
    HandCancelled,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    Move,
    PotAwarded,
    SatIn,
    SatOut,
    Seated,
    Showdown,
    ShownHand,
    StoodUp,
    TurnStarted,
    UncalledBetReturned,
)
from .pots import build_pots, clockwise_from_button, split_pot
from .state import (
    BOARD_CARDS_DEALT,
    AnteMode,
    BettingStructure,
    EntryChoice,
    HandState,
    Seat,
    Street,
    TableConfig,
    TableState,
)

__all__ = ["apply", "apply_in_place", "legal_actions", "Prompt", "TableState", "TableConfig",
           "EngineError", "verify_turn", "verify_fold", "can_fold", "verify_check", "can_check",
           "verify_call", "can_call", "verify_bet", "can_bet", "verify_raise_to", "can_raise_to",
           "verify_all_in", "can_all_in", "raise_bounds", "pot_raise_to", "bet_or_raise"]


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the seat to act may do now (R3.1: every turn states the legal actions, the amount
    to call, and the minimum and maximum raise-to)."""

    seat_index: int
    actions: tuple[str, ...]
    """A subset of ``fold check call bet raise_to all_in``, in that order."""
    to_call: int
    """Chips a call puts in now (the whole stack when it is smaller)."""
    min_raise_to: int | None
    """Smallest legal ``bet``/``raise_to`` total, or ``None`` when raising is not allowed."""
    max_raise_to: int | None
    """Largest legal ``bet``/``raise_to`` total, or ``None`` when raising is not allowed."""
    powers: tuple[str, ...] = ()
    """Naiko mode: powers the seat can activate now, before its action (R5.5)."""
    anchor_targets: tuple[int, ...] = ()
    """Naiko mode: seats a Short Anchor may aim at now (R6.3)."""
    anchored: bool = False
    """Naiko mode: a Short Anchor limits this seat's raises this round (R6.3)."""

    def to_dict(self) -> dict[str, Any]:
        return {"seat_index": self.seat_index, "actions": list(self.actions),
                "to_call": self.to_call, "min_raise_to": self.min_raise_to,
                "max_raise_to": self.max_raise_to, "powers": list(self.powers),
                "anchor_targets": list(self.anchor_targets), "anchored": self.anchored}


# -- entry points ----------------------------------------------------------------------------

def apply(state: TableState, command: Command) -> tuple[TableState, list[Event]]:
    """Apply *command* to a copy of *state*; return the new state and what happened.

    :raises EngineError: If the command is malformed or illegal; *state* is unchanged.
    """
    new_state = state.copy()
    events = apply_in_place(new_state, command)
    return new_state, events


def apply_in_place(state: TableState, command: Command) -> list[Event]:
    """Apply *command* to *state* itself.

    Every check happens before the first change, so a rejected command leaves *state* as it
    was; :func:`apply` adds a copy on top so that even an unexpected failure cannot.

    :raises EngineError: If the command is malformed or illegal.
    """
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise MalformedCommand(f"not a command: {command!r}")
    events: list[Event] = []
    handler(state, command, events)
    hand = state.hand
    if hand is not None:  # the hand's record: every recorded event, in order
        hand.log.extend(e for e in events if e.recorded)
    return events


def legal_actions(state: TableState) -> Prompt | None:
    """The prompt for the seat to act, or ``None`` when nobody is to act."""
    hand = state.hand
    if hand is None or hand.complete or hand.actor is None:
        return None
    return _prompt(state, hand, hand.actor)


# -- seats -----------------------------------------------------------------------------------

def _seat_index(state: TableState, seat: int) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise UnknownSeat(f"seat {seat!r} does not exist at this {len(state.seats)}-seat table")
    return seat


def _occupied(state: TableState, seat_index: int) -> Seat:
    seat = state.seats[_seat_index(state, seat_index)]
    if seat is None:
        raise UnknownSeat(f"seat {seat_index} is empty")
    return seat


def _live_in_hand(state: TableState, seat_index: int) -> bool:
    hand = state.hand
    return hand is not None and not hand.complete and hand.is_live(seat_index)


def _sit_down(state: TableState, c: SitDown, events: list[Event]) -> None:
    seat_index = _seat_index(state, c.seat_index)
    if state.seats[seat_index] is not None:
        raise TableError(f"seat {seat_index} is taken", code="seat_taken")
    if any(s is not None and s.player_id == c.player_id for s in state.seats):
        raise TableError(f"{c.player_id} is already seated at this table", code="already_seated")
    if not isinstance(c.stack, int) or isinstance(c.stack, bool) or c.stack <= 0:
        raise IllegalAction(f"a buy-in must be a positive number of chips, not {c.stack!r}",
                            code="bad_amount")
    # R7.8: at a cash table a new player owes a big blind (posted, or waited for); a table
    # that is starting deals everyone in anyway (see _entry_plan).
    state.seats[seat_index] = Seat(c.player_id, c.stack, sitting_out=False, is_bot=c.is_bot,
                                   owes_big=state.config.entry_rules, entry=EntryChoice(c.entry))
    events.append(Seated(seat_index=seat_index, player_id=c.player_id, stack=c.stack,
                         is_bot=c.is_bot))


def _stand_up(state: TableState, c: StandUp, events: list[Event]) -> None:
    seat = _occupied(state, c.seat_index)
    if _live_in_hand(state, c.seat_index):
        raise TableError("you are still in this hand: fold or finish it before leaving",
                         code="in_hand")
    state.seats[c.seat_index] = None
    events.append(StoodUp(seat_index=c.seat_index, player_id=seat.player_id, stack=seat.stack))


def _sit_out(state: TableState, c: SitOut, events: list[Event]) -> None:
    seat = _occupied(state, c.seat_index)
    seat.sitting_out = True
    events.append(SatOut(seat_index=c.seat_index))


def _sit_in(state: TableState, c: SitIn, events: list[Event]) -> None:
    seat = _occupied(state, c.seat_index)
    entry = EntryChoice(c.entry)
    seat.sitting_out = False
    seat.entry = entry
    events.append(SatIn(seat_index=c.seat_index))


def _choose_entry(state: TableState, c: ChooseEntry, events: list[Event]) -> None:
    """R7.8: post now or wait for the big blind; it counts at the next hand's start."""
    seat = _occupied(state, c.seat_index)
    try:
        entry = EntryChoice(c.entry)
    except ValueError:
        raise MalformedCommand(f"entry must be 'wait' or 'post', not {c.entry!r}") from None
    if not seat.owes:
        raise TableError("you owe no blind: you are dealt in as usual", code="nothing_owed",
                         rule_id="R7.8")
    seat.entry = entry
    events.append(EntryChosen(seat_index=c.seat_index, entry=entry.value))


def _add_chips(state: TableState, c: AddChips, events: list[Event]) -> None:
    seat = _occupied(state, c.seat_index)
    if not isinstance(c.amount, int) or isinstance(c.amount, bool) or c.amount <= 0:
        raise IllegalAction(f"chips to add must be positive, not {c.amount!r}", code="bad_amount")
    hand = state.hand
    if hand is not None and not hand.complete and hand.dealt[c.seat_index]:
        raise TableError("chips can be added only between hands (R7.1)", code="in_hand",
                         rule_id="R7.1")
    seat.stack += c.amount
    events.append(ChipsAdded(seat_index=c.seat_index, amount=c.amount, stack=seat.stack))


# -- starting a hand -------------------------------------------------------------------------

def _next_seat(after: int, candidates: set[int], seat_count: int) -> int:
    """The first seat of *candidates* clockwise after *after* (never *after* itself)."""
    for step in range(1, seat_count + 1):
        seat = (after + step) % seat_count
        if seat in candidates and seat != after:
            return seat
    raise AssertionError("no candidate seat")


def _previous_seat(before: int, candidates: set[int], seat_count: int) -> int:
    """The first seat of *candidates* counter-clockwise before *before*."""
    for step in range(1, seat_count + 1):
        seat = (before - step) % seat_count
        if seat in candidates and seat != before:
            return seat
    raise AssertionError("no candidate seat")


def _positions(state: TableState, active: set[int],
               first_button: int | None) -> tuple[int, int | None, int, int]:
    """Button, small blind seat (``None`` if dead), small blind position and big blind seat.

    R2.1/R2.2 place the blinds left of the button (the button posts the small blind heads-up).
    R2.6 decision, the dead-button rule: after the first hand the big blind moves to the next
    active seat after last hand's big blind, the small blind falls where last hand's big blind
    was (dead if that seat can't post), and the button where last hand's small blind was. Heads
    up, the other player is button and small blind, so going from 3 players to 2 the player who
    paid the big blind most recently gets the button.
    """
    n = state.config.seat_count
    last_bb = state.last_big_blind_seat
    if last_bb is None:
        if first_button is None or first_button not in active:
            raise TableError("the first hand needs a button on an active seat (R2.6)",
                             code="button_required", rule_id="R2.6")
        button = first_button
        if len(active) == 2:
            return button, button, button, _next_seat(button, active, n)
        small_blind = _next_seat(button, active, n)
        return button, small_blind, small_blind, _next_seat(small_blind, active, n)
    if first_button is not None:
        raise MalformedCommand("the button is placed only for a table's first hand; later "
                               "hands move it by the dead-button rule (R2.6)", rule_id="R2.6")
    big_blind = _next_seat(last_bb, active, n)
    if len(active) == 2:
        other = _next_seat(big_blind, active, n)
        return other, other, other, big_blind
    small_blind_position = last_bb
    dead_or_live_sb = small_blind_position if small_blind_position in active else None
    last_sb = state.last_small_blind_position
    if last_sb is not None and _button_precedes(last_sb, small_blind_position, big_blind, n):
        button = last_sb
    else:
        # After a change from heads-up (or a player sitting down between the blinds) the old
        # position would put the button inside the blinds: use the nearest active seat before.
        button = _previous_seat(small_blind_position, active - {big_blind}, n)
    return button, dead_or_live_sb, small_blind_position, big_blind


@dataclass(frozen=True, slots=True)
class _EntryPlan:
    """Who is dealt into the next hand and where the blinds are (R2.6, R7.8)."""

    positions: tuple[int, int | None, int, int]
    """Button, small blind seat (``None``: dead), small blind position, big blind seat."""
    dealt: set[int]
    live_big: frozenset[int] = frozenset()
    """Seats entering by posting a big blind (live) besides the big blind itself."""
    dead_small: frozenset[int] = frozenset()
    """Seats posting a missed small blind (dead)."""
    missed: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    """Absent seats the blinds passed this hand: (missed big, missed small)."""


def _starting(state: TableState) -> bool:
    """R7.8: a table is starting at its first hand, or when fewer than 3 players were dealt in
    the hand before (a cancelled hand does not count, R8.6): everybody seated is then dealt in
    without posting."""
    return state.last_dealt is None or state.last_dealt < 3


def _entry_plan(state: TableState, present: set[int], first_button: int | None) -> _EntryPlan:
    """Who is dealt in and who posts what (R7.8), around the dead-button positions (R2.6).

    The big blind moves to the next present seat, so it reaches a player waiting for it; an
    absent seat it passes has missed the big blind (and the small blind), and an absent seat
    the small blind falls on has missed the small blind (R7.9). A player who owes blinds is
    dealt in when the big blind reaches them (nothing more is owed) or when they chose to post
    and their seat is not the small blind's or between the button and the small blind
    (they wait until the button has passed). Without entry rules (tournaments, R9.4) or while
    the table is starting, every present seat is dealt in and owes nothing.
    """
    positions = _positions(state, present, first_button)
    if not state.config.entry_rules or _starting(state):
        return _EntryPlan(positions, set(present), missed=_missed(state, present, positions))
    n = state.config.seat_count
    button, _, small_blind_position, big_blind = positions
    gap = {(button + step) % n for step in range(1, (small_blind_position - button) % n + 1)}
    dealt: set[int] = set()
    live_big: set[int] = set()
    dead_small: set[int] = set()
    for index in sorted(present):
        seat = state.seats[index]
        assert seat is not None
        if not seat.owes or index == big_blind:
            dealt.add(index)
        elif seat.entry is EntryChoice.POST and index not in gap:
            dealt.add(index)
            if seat.owes_big:
                live_big.add(index)
            if seat.owes_small:
                dead_small.add(index)
    if len(dealt) < 2:  # nobody to play with unless the newcomers come in: a new start
        return _EntryPlan(positions, set(present), missed=_missed(state, present, positions))
    if len(dealt) == 2 and len(present) > 2:
        positions = _positions(state, dealt, first_button)  # heads-up (R2.2) among the two
    elif positions[1] is not None and positions[1] not in dealt:
        # The small blind fell on a player who waits for the button to pass: they post
        # nothing and are not dealt in; the small blind is dead (R2.6, R7.8).
        positions = (button, None, small_blind_position, big_blind)
    return _EntryPlan(positions, dealt, frozenset(live_big), frozenset(dead_small),
                      _missed(state, present, positions))


def _missed(state: TableState, present: set[int],
            positions: tuple[int, int | None, int, int]) -> dict[int, tuple[bool, bool]]:
    """Absent seats (sitting out, or without chips) the blinds pass this hand (R7.9)."""
    if state.last_big_blind_seat is None:
        return {}
    n = state.config.seat_count
    _, small_blind, small_blind_position, big_blind = positions
    missed: dict[int, tuple[bool, bool]] = {}
    last = state.last_big_blind_seat
    for step in range(1, (big_blind - last) % n):
        index = (last + step) % n
        if state.seats[index] is not None and index not in present:
            missed[index] = (True, True)
    if small_blind is None and state.seats[small_blind_position] is not None \
            and small_blind_position not in present:
        big, _ = missed.get(small_blind_position, (False, False))
        missed[small_blind_position] = (big, True)
    return missed


def _settle_owed(state: TableState, plan: _EntryPlan) -> None:
    """After the deal: seats dealt in owe nothing more; absent seats the blinds passed owe
    them (R7.8, R7.9)."""
    for index in plan.dealt:
        seat = state.seats[index]
        assert seat is not None
        seat.owes_big = seat.owes_small = False
    if not state.config.entry_rules:
        return
    for index, (big, small) in plan.missed.items():
        seat = state.seats[index]
        assert seat is not None
        seat.owes_big = seat.owes_big or big
        seat.owes_small = seat.owes_small or small


def _button_precedes(button: int, small_blind_position: int, big_blind: int, n: int) -> bool:
    """Whether, going clockwise from *button*, the small blind position comes before the big
    blind (and neither is the button)."""
    to_sb = (small_blind_position - button) % n
    to_bb = (big_blind - button) % n
    return 0 < to_sb < to_bb


def _start_hand(state: TableState, c: StartHand, events: list[Event]) -> None:
    if state.hand_in_progress:
        raise TableError("a hand is already being played", code="hand_in_progress")
    deck = list(c.deck)
    if len(deck) != DECK_SIZE or set(deck) != set(range(DECK_SIZE)):
        raise MalformedCommand("the deck must hold each of the 52 cards once (R1.1)",
                               rule_id="R1.1")
    config = state.config
    n = config.seat_count
    deal_absent = config.deal_absent  # R9.4: a tournament deals absent players in too
    for index in c.wait:
        _occupied(state, index)
    present = {i for i, s in enumerate(state.seats)
               if s and (deal_absent or not s.sitting_out) and s.stack > 0 and i not in c.wait}
    if len(present) < 2:
        raise TableError("a hand needs at least two seated players with chips",
                         code="not_enough_players")
    if c.button is not None:
        _seat_index(state, c.button)
    powers.check_carousel(state, c.carousel)
    commitment = None
    if c.deck_seed is not None:
        try:
            commitment = commit_deck(deck, c.deck_seed)
        except ValueError as exc:
            raise MalformedCommand(f"the deck seed: {exc} (R10.2)", rule_id="R10.2") from exc
    plan = _entry_plan(state, present, c.button)
    active = plan.dealt
    button, small_blind, small_blind_position, big_blind = plan.positions
    seats = state.seats
    number = state.hand_count + 1
    hand = HandState(
        number=number, button=button, small_blind_seat=small_blind,
        small_blind_position=small_blind_position, big_blind_seat=big_blind,
        player_ids=[s.player_id if s else None for s in seats],
        dealt=[i in active for i in range(n)], hole=[[] for _ in range(n)], deck=deck,
        folded=[False] * n, bets=[0] * n, committed=[0] * n, antes=[0] * n,
        acted=[False] * n, faced=[0] * n, starting_stacks=[state.stack(i) for i in range(n)],
        shown=[False] * n, mucked=[i in c.mucked for i in range(n)],
        current_bet=config.big_blind, min_raise=config.big_blind)
    hand.starting_destellos = [s.destellos if s else 0 for s in seats]
    hand.starting_owes = [(s.owes_big, s.owes_small) if s else (False, False) for s in seats]
    hand.previous_last_dealt = state.last_dealt
    state.last_dealt = len(active)
    hand.previous_big_blind_seat = state.last_big_blind_seat
    hand.previous_small_blind_position = state.last_small_blind_position
    if commitment is not None:
        hand.shuffled, hand.deck_seed, hand.commitment = deck[:], c.deck_seed, commitment.root
    state.hand = hand
    state.hand_count = number
    state.last_big_blind_seat = big_blind
    state.last_small_blind_position = small_blind_position
    order = clockwise_from_button(sorted(active), n, button)
    events.append(HandStarted(
        hand_number=number, button=button, small_blind_seat=small_blind,
        big_blind_seat=big_blind, seats_dealt=tuple(order), small_blind=config.small_blind,
        big_blind=config.big_blind, ante=config.ante))

    # R2.8: antes before the blinds, as dead money; the big-blind ante after the blind.
    if config.ante_mode is AnteMode.EACH:
        for seat in order:
            _post_ante(state, hand, seat, config.ante, events)
    if small_blind is not None:
        _post_blind(state, hand, small_blind, config.small_blind, "small", events)
    _post_blind(state, hand, big_blind, config.big_blind, "big", events)
    # R7.8: players entering by posting: a big blind live (a bet), a missed small blind dead.
    for seat in order:
        if seat in plan.dead_small:
            _post_dead(state, hand, seat, config.small_blind, events)
        if seat in plan.live_big:
            _post_blind(state, hand, seat, config.big_blind, "post", events)
    _settle_owed(state, plan)
    if config.ante_mode is AnteMode.BIG_BLIND:
        _post_ante(state, hand, big_blind, config.ante, events)

    # R10.2: the deck's commitment is published before the first card.
    if hand.commitment is not None:
        events.append(DeckCommitted(root=hand.commitment))
    # Hole cards: each player in turn from the first seat left of the button receives all of
    # their cards (the order a PHH file lists them in).
    hole_count = config.rules.hole_card_count
    for seat in order:
        cards = hand.deck[:hole_count]
        del hand.deck[:hole_count]
        hand.hole[seat] = cards
        events.append(HoleCardsDealt(seat_index=seat, cards=format_cards(cards)))
    if config.rules.powers:
        powers.on_hand_start(state, hand, c.carousel, events)
    # R2.3 decision: a short big blind does not lower the price: the preflop bet to call is
    # at least the nominal big blind and a raise goes at least one big blind above it.
    hand.current_bet = max(config.big_blind, max(hand.bets))
    _advance(state, hand, big_blind, events)


def _post_ante(state: TableState, hand: HandState, seat: int, ante: int,
               events: list[Event]) -> None:
    player = state.seats[seat]
    assert player is not None
    amount = min(ante, player.stack)
    if amount <= 0:
        return
    player.stack -= amount
    hand.antes[seat] += amount
    hand.committed[seat] += amount
    hand.pot += amount
    events.append(AntePosted(seat_index=seat, amount=amount, all_in=player.stack == 0))


def _post_dead(state: TableState, hand: HandState, seat: int, amount: int,
               events: list[Event]) -> None:
    """R7.8: a missed small blind posted dead: straight into the main pot, not part of a bet
    (dead money like an ante: whoever wins the main pot wins it, its poster included)."""
    player = state.seats[seat]
    assert player is not None
    amount = min(amount, player.stack)
    if amount <= 0:
        return
    player.stack -= amount
    hand.antes[seat] += amount  # the dead part of ``committed`` (naiko.pots.build_pots)
    hand.committed[seat] += amount
    hand.pot += amount
    events.append(BlindPosted(seat_index=seat, blind="dead", amount=amount,
                              all_in=player.stack == 0))


def _post_blind(state: TableState, hand: HandState, seat: int, blind: int, which: str,
                events: list[Event]) -> None:
    player = state.seats[seat]
    assert player is not None
    amount = min(blind, player.stack)  # R2.3: a short blind posts what it has, all-in
    player.stack -= amount
    hand.bets[seat] += amount
    hand.committed[seat] += amount
    events.append(BlindPosted(seat_index=seat, blind=which, amount=amount,
                              all_in=player.stack == 0))


# -- betting ---------------------------------------------------------------------------------

def _can_act(state: TableState, hand: HandState, seat: int) -> bool:
    """Live and with chips behind (not all-in)."""
    return hand.is_live(seat) and state.stack(seat) > 0


def _next_to_act(state: TableState, hand: HandState, after: int) -> int | None:
    """The next seat clockwise after *after* that owes a decision, or ``None`` when the
    betting round is over (R2.4)."""
    n = state.config.seat_count
    able = [s for s in range(n) if _can_act(state, hand, s)]
    if not able:
        return None
    if len(able) == 1 and hand.bets[able[0]] >= hand.current_bet:
        return None  # alone against all-in players, with nothing to match
    for step in range(1, n + 1):
        seat = (after + step) % n
        if seat in able and (not hand.acted[seat] or hand.bets[seat] < hand.current_bet):
            return seat
    return None


def _advance(state: TableState, hand: HandState, after: int, events: list[Event]) -> None:
    actor = _next_to_act(state, hand, after)
    hand.actor = actor
    if actor is None:
        _end_round(state, hand, events)
    else:
        powers.on_new_turn(hand)
        events.append(TurnStarted(seat_index=actor))


def _prompt(state: TableState, hand: HandState, seat: int) -> Prompt:
    """The prompt for *seat*, the seat to act, built from the rule helpers that the
    ``verify_*`` functions read (so it offers exactly what the handlers accept)."""
    owed = _owes(hand, seat)
    actions = ["fold", "call" if owed else "check"]
    bounds = raise_bounds(state, hand, seat)
    if bounds is not None:
        actions.append("bet" if bet_or_raise(hand) is Move.BET else "raise_to")
    if _all_in_move(state, hand, seat, bounds) is not None:
        actions.append("all_in")
    min_to, max_to = (None, None) if bounds is None else bounds
    to_call = min(owed, state.stack(seat))
    if hand.powers is None:
        return Prompt(seat, tuple(actions), to_call, min_to, max_to)
    usable = tuple(powers.usable_powers(state, hand, seat))
    targets = powers.anchor_targets(state, hand, seat) if powers.SHORT_ANCHOR in usable else []
    return Prompt(seat, tuple(actions), to_call, min_to, max_to, powers=usable,
                  anchor_targets=tuple(targets), anchored=powers.is_anchored(hand, seat))


# -- legality: each betting rule once; verify (raises), can (bool), do (the handler) ---------
#
# PokerKit's triple: ``verify_<action>`` raises the domain error (its stable code and message)
# or returns the facts the action needs; ``can_<action>`` is the same verify without raising;
# the handler (``_check``, ``_call``...) calls verify, then changes the state. The rules
# themselves are the small pure helpers below, and the prompt (:func:`_prompt`) reads the same
# helpers, so what the seat is offered cannot drift from what the handlers accept.

def _owes(hand: HandState, seat: int) -> int:
    """Chips *seat* must add to match the current bet; 0 when it may check (R2.7)."""
    return max(0, hand.current_bet - hand.bets[seat])


def _covered(state: TableState, hand: HandState, seat: int) -> bool:
    """Whether matching the current bet takes *seat*'s whole stack: calling is all it can do."""
    return state.stack(seat) <= hand.current_bet - hand.bets[seat]


def _reopened(hand: HandState, seat: int) -> bool:
    """R3.2 decision: a seat that already acted this round may raise again only when facing at
    least a full raise in total since its last action (a short all-in does not reopen)."""
    return not hand.acted[seat] or hand.current_bet - hand.faced[seat] >= hand.min_raise


def _anyone_to_raise(state: TableState, hand: HandState, seat: int) -> bool:
    """Whether another live player could put in more than the current bet (raising against
    nobody is pointless, so it is not allowed)."""
    current = hand.current_bet
    for t in range(state.config.seat_count):  # a loop: cheaper than any() on the hot path
        if t != seat and hand.is_live(t) and state.stack(t) + hand.bets[t] > current:
            return True
    return False


def _no_raise_reason(state: TableState, hand: HandState, seat: int) -> str | None:
    """Why *seat* may not bet or raise now, or ``None`` when it may."""
    if _covered(state, hand, seat):
        return "your stack only covers a call"
    if not _reopened(hand, seat):
        return ("an all-in for less than a full raise did not reopen the betting for you "
                "(R3.2)")
    if not _anyone_to_raise(state, hand, seat):
        return "every other player is all-in or folded: there is nobody to raise"
    return None


def _cap_rule(state: TableState, hand: HandState, seat: int) -> str | None:
    """The rule that caps *seat*'s raise at the pot-size raise now: R6.3 (a Short Anchor) or
    R3.3 (pot limit); ``None`` when only its stack limits it (R3.1)."""
    if powers.is_anchored(hand, seat):
        return "R6.3"
    if state.config.rules.betting is BettingStructure.POT_LIMIT:
        return "R3.3"
    return None


def _raise_limits(state: TableState, hand: HandState, seat: int) -> tuple[int, int]:
    """The smallest and largest bet / raise-to totals, for a seat that may raise."""
    all_in_to = state.stack(seat) + hand.bets[seat]
    min_to = hand.current_bet + hand.min_raise  # R3.1: at least the last full bet or raise
    if _cap_rule(state, hand, seat) is None:
        max_to = all_in_to
    else:
        # R3.3, and R6.3: a Short Anchor caps at the pot-size raise computed now, never above
        # the stack and never below a minimum raise that is otherwise legal.
        max_to = min(all_in_to, max(min_to, pot_raise_to(hand, seat)))
    return min(min_to, all_in_to), max_to  # only an all-in may be smaller than a full raise


def raise_bounds(state: TableState, hand: HandState, seat: int) -> tuple[int, int] | None:
    """Legal bet / raise-to totals ``(min_to, max_to)`` for *seat*, or ``None`` if it may not
    bet or raise now (whoever's turn it is)."""
    if _no_raise_reason(state, hand, seat) is not None:
        return None
    return _raise_limits(state, hand, seat)


def pot_raise_to(hand: HandState, seat: int) -> int:
    """R3.3: the pot-size raise-to: current bet + (pot with every bet on the table + the
    amount to call). Pot 100, a bet of 40, nothing in yet: 40 + (140 + 40) = 220."""
    owed = hand.current_bet - hand.bets[seat]
    return hand.current_bet + hand.pot + sum(hand.bets) + owed


def bet_or_raise(hand: HandState) -> Move:
    """R2.7: the first chips of a betting round are a bet; after a bet, a raise."""
    return Move.BET if hand.current_bet == 0 else Move.RAISE_TO


def _all_in_move(state: TableState, hand: HandState, seat: int,
                 bounds: tuple[int, int] | None) -> Move | None:
    """What an all-in is now, given *seat*'s :func:`raise_bounds`: a bet or raise to the whole
    stack when the bounds reach it, a call when the bet covers the stack, or ``None`` (a pot
    limit or a betting that is not reopened keeps the stack from going in)."""
    if bounds is not None and bounds[1] == state.stack(seat) + hand.bets[seat]:
        return bet_or_raise(hand)
    if _covered(state, hand, seat):
        return Move.CALL
    return None


def verify_turn(state: TableState, seat_index: int) -> HandState:
    """The hand in which *seat_index* is to act now.

    :raises NoHandInProgress: If no hand is being played.
    :raises UnknownSeat: If the seat does not exist.
    :raises NotYourTurn: If another seat is to act.
    """
    hand = state.hand
    if hand is None or hand.complete:
        raise NoHandInProgress("no hand is being played")
    _seat_index(state, seat_index)
    if hand.actor != seat_index:
        raise NotYourTurn(f"it is seat {hand.actor}'s turn, not seat {seat_index}'s")
    return hand


def verify_fold(state: TableState, seat_index: int) -> None:
    """A fold is legal on every turn, even when a check is free (online rooms and PHH allow it).

    :raises EngineError: As :func:`verify_turn`.
    """
    verify_turn(state, seat_index)


def verify_check(state: TableState, seat_index: int) -> None:
    """R2.7: a check only when nothing is owed.

    :raises IllegalAction: ``cannot_check`` facing a bet; as :func:`verify_turn` out of turn.
    """
    hand = verify_turn(state, seat_index)
    if _owes(hand, seat_index):
        raise IllegalAction(f"cannot check facing a bet of {hand.current_bet}: call, raise or "
                            "fold", code="cannot_check", rule_id="R2.7")


def verify_call(state: TableState, seat_index: int) -> int:
    """R2.7: a call only facing a bet. Returns the chips it puts in (the whole stack when that
    is smaller: a call all-in).

    :raises IllegalAction: ``nothing_to_call``; as :func:`verify_turn` out of turn.
    """
    hand = verify_turn(state, seat_index)
    owed = _owes(hand, seat_index)
    if not owed:
        raise IllegalAction("there is nothing to call: check instead", code="nothing_to_call",
                            rule_id="R2.7")
    return min(owed, state.stack(seat_index))


_ANY_AMOUNT: Any = object()
"""Asks :func:`_verify_raising` whether some amount is legal (the bounds), not one amount."""


def _verify_raising(state: TableState, seat: int, move: Move, amount: Any) -> tuple[int, int]:
    """The one check of a bet (*move* ``BET``) or raise (``RAISE_TO``) to *amount*: R2.7 (bet
    or raise), R3.2 (allowed at all), R3.1 (at least a full raise), R3.3 / R6.3 (the cap).
    Returns the bounds ``(min_to, max_to)``."""
    hand = verify_turn(state, seat)
    if bet_or_raise(hand) is not move:
        if move is Move.BET:
            raise IllegalAction(f"there is already a bet of {hand.current_bet}: raise instead",
                                code="bet_not_allowed", rule_id="R2.7")
        raise IllegalAction("there is no bet to raise: bet instead", code="raise_not_allowed",
                            rule_id="R2.7")
    if amount is not _ANY_AMOUNT and (not isinstance(amount, int) or isinstance(amount, bool)):
        raise MalformedCommand(f"{move} amount must be an integer, not {amount!r}")
    reason = _no_raise_reason(state, hand, seat)
    if reason is not None:
        raise IllegalAction(reason, code="raise_not_allowed", rule_id="R3.2")
    min_to, max_to = _raise_limits(state, hand, seat)
    if amount is _ANY_AMOUNT:
        return min_to, max_to
    if amount < min_to:
        raise IllegalAction(f"{move} to {amount} is below the minimum of {min_to} (R3.1); "
                            f"only an all-in may be smaller", code="amount_below_minimum",
                            rule_id="R3.1")
    if amount > max_to:
        rule = _cap_rule(state, hand, seat) or "R3.1"
        raise IllegalAction(f"{move} to {amount} is above the maximum of {max_to} ({rule})",
                            code="amount_above_maximum", rule_id=rule)
    return min_to, max_to


def verify_bet(state: TableState, seat_index: int, amount: int | None = None) -> tuple[int, int]:
    """A bet to *amount* (or, when ``None``, some bet) is legal now; returns ``(min_to,
    max_to)``.

    :raises IllegalAction: ``bet_not_allowed`` (there is a bet: raise), ``raise_not_allowed``
        (R3.2), ``amount_below_minimum`` (R3.1), ``amount_above_maximum`` (R3.1/R3.3/R6.3).
    """
    return _verify_raising(state, seat_index, Move.BET, _ANY_AMOUNT if amount is None else amount)


def verify_raise_to(state: TableState, seat_index: int,
                    amount: int | None = None) -> tuple[int, int]:
    """A raise to *amount* (or, when ``None``, some raise) is legal now; returns ``(min_to,
    max_to)``.

    :raises IllegalAction: ``raise_not_allowed`` (no bet to raise, R2.7; not reopened, R3.2),
        ``amount_below_minimum``, ``amount_above_maximum``.
    """
    return _verify_raising(state, seat_index, Move.RAISE_TO,
                           _ANY_AMOUNT if amount is None else amount)


def verify_all_in(state: TableState, seat_index: int) -> Move:
    """An all-in is legal now; returns what it is: a ``BET`` or ``RAISE_TO`` the whole stack,
    or a ``CALL`` when the bet covers the stack.

    :raises IllegalAction: ``all_in_not_allowed`` when the pot limit (R3.3, R6.3) or a betting
        that is not reopened (R3.2) keeps the whole stack from going in.
    """
    hand = verify_turn(state, seat_index)
    bounds = raise_bounds(state, hand, seat_index)
    move = _all_in_move(state, hand, seat_index, bounds)
    if move is None:
        limit = "the pot limit" if bounds is not None else "a raise now"
        raise IllegalAction(f"all-in is not legal here: {limit} does not allow putting in "
                            f"{state.stack(seat_index) + hand.bets[seat_index]}",
                            code="all_in_not_allowed", rule_id="R3.3")
    return move


def _can(verify: Callable[..., object], *args: Any) -> bool:
    try:
        verify(*args)
    except EngineError:
        return False
    return True


def can_fold(state: TableState, seat_index: int) -> bool:
    """Whether :func:`verify_fold` accepts a fold by *seat_index* now."""
    return _can(verify_fold, state, seat_index)


def can_check(state: TableState, seat_index: int) -> bool:
    """Whether :func:`verify_check` accepts a check by *seat_index* now."""
    return _can(verify_check, state, seat_index)


def can_call(state: TableState, seat_index: int) -> bool:
    """Whether :func:`verify_call` accepts a call by *seat_index* now."""
    return _can(verify_call, state, seat_index)


def can_bet(state: TableState, seat_index: int, amount: int | None = None) -> bool:
    """Whether :func:`verify_bet` accepts a bet to *amount* (``None``: some bet) now."""
    return _can(verify_bet, state, seat_index, amount)


def can_raise_to(state: TableState, seat_index: int, amount: int | None = None) -> bool:
    """Whether :func:`verify_raise_to` accepts a raise to *amount* (``None``: some raise) now."""
    return _can(verify_raise_to, state, seat_index, amount)


def can_all_in(state: TableState, seat_index: int) -> bool:
    """Whether :func:`verify_all_in` accepts an all-in by *seat_index* now."""
    return _can(verify_all_in, state, seat_index)


def _fold(state: TableState, c: Fold, events: list[Event]) -> None:
    verify_fold(state, c.seat_index)
    hand = state.hand
    assert hand is not None
    seat = c.seat_index
    powers.on_poker_action(hand, seat, events)
    hand.folded[seat] = True
    hand.acted[seat] = True
    events.append(ActionTaken(seat_index=seat, action=Move.FOLD))
    live = [s for s in range(state.config.seat_count) if hand.is_live(s)]
    if len(live) == 1:
        hand.actor = None
        _end_round(state, hand, events)  # R2.4: the last hand wins at once, unseen
    else:
        _advance(state, hand, seat, events)


def _check(state: TableState, c: Check, events: list[Event]) -> None:
    verify_check(state, c.seat_index)
    hand = state.hand
    assert hand is not None
    seat = c.seat_index
    powers.on_poker_action(hand, seat, events)
    hand.acted[seat] = True
    hand.faced[seat] = hand.current_bet
    events.append(ActionTaken(seat_index=seat, action=Move.CHECK))
    _advance(state, hand, seat, events)


def _call(state: TableState, c: Call, events: list[Event]) -> None:
    amount = verify_call(state, c.seat_index)
    hand = state.hand
    assert hand is not None
    _do_call(state, hand, c.seat_index, amount, events)


def _bet(state: TableState, c: Bet, events: list[Event]) -> None:
    _verify_raising(state, c.seat_index, Move.BET, c.amount)
    hand = state.hand
    assert hand is not None
    _do_raise(state, hand, c.seat_index, c.amount, Move.BET, events)


def _raise(state: TableState, c: RaiseTo, events: list[Event]) -> None:
    _verify_raising(state, c.seat_index, Move.RAISE_TO, c.amount)
    hand = state.hand
    assert hand is not None
    _do_raise(state, hand, c.seat_index, c.amount, Move.RAISE_TO, events)


def _all_in(state: TableState, c: AllIn, events: list[Event]) -> None:
    move = verify_all_in(state, c.seat_index)
    hand = state.hand
    assert hand is not None
    seat = c.seat_index
    if move is Move.CALL:
        _do_call(state, hand, seat, state.stack(seat), events)
    else:
        _do_raise(state, hand, seat, state.stack(seat) + hand.bets[seat], move, events)


def _do_call(state: TableState, hand: HandState, seat: int, amount: int,
             events: list[Event]) -> None:
    powers.on_poker_action(hand, seat, events)
    _put_in(state, hand, seat, amount)
    hand.acted[seat] = True
    hand.faced[seat] = hand.current_bet
    events.append(ActionTaken(seat_index=seat, action=Move.CALL, amount=amount,
                              to=hand.bets[seat], all_in=state.stack(seat) == 0))
    _advance(state, hand, seat, events)


def _do_raise(state: TableState, hand: HandState, seat: int, amount: int, action: Move,
              events: list[Event]) -> None:
    powers.on_poker_action(hand, seat, events)
    increment = amount - hand.current_bet
    if increment >= hand.min_raise:
        hand.min_raise = increment  # a full bet or raise sets the next minimum (R3.1)
    hand.current_bet = amount
    _put_in(state, hand, seat, amount - hand.bets[seat])
    hand.acted[seat] = True
    hand.faced[seat] = amount
    events.append(ActionTaken(seat_index=seat, action=action, to=amount,
                              all_in=state.stack(seat) == 0))
    _advance(state, hand, seat, events)


def _put_in(state: TableState, hand: HandState, seat: int, amount: int) -> None:
    player = state.seats[seat]
    assert player is not None and 0 <= amount <= player.stack
    player.stack -= amount
    hand.bets[seat] += amount
    hand.committed[seat] += amount


# -- end of a round, of the hand -------------------------------------------------------------

def _end_round(state: TableState, hand: HandState, events: list[Event]) -> None:
    powers.on_round_end(hand, events)
    _return_uncalled(state, hand, events)
    hand.pot += sum(hand.bets)
    hand.bets = [0] * state.config.seat_count
    n = state.config.seat_count
    live = [s for s in range(n) if hand.is_live(s)]
    if len(live) == 1:
        _award_uncontested(state, hand, live[0], events)
        return
    run_out = False
    while hand.street < Street.RIVER:
        hand.street = Street(hand.street + 1)
        count = BOARD_CARDS_DEALT[hand.street]
        cards = hand.deck[:count]
        del hand.deck[:count]
        hand.board.extend(cards)
        hand.acted = [False] * n
        hand.faced = [0] * n
        hand.current_bet = 0
        hand.min_raise = state.config.big_blind
        events.append(BoardDealt(street=hand.street.name.lower(), cards=format_cards(cards),
                                 board=format_cards(hand.board), run_out=run_out))
        # R2.1: after the flop the first player able to act left of the button starts.
        actor = _next_to_act(state, hand, hand.button)
        if actor is not None:
            hand.actor = actor
            powers.on_new_turn(hand)  # R5.5/R6.6: a new street's first turn is a new turn
            events.append(TurnStarted(seat_index=actor))
            return
        run_out = True  # R4.3: no more betting is possible: deal the rest at once
    _showdown(state, hand, events)


def _return_uncalled(state: TableState, hand: HandState, events: list[Event]) -> None:
    """R4.2: the part of a bet nobody called goes back to its bettor (not a win)."""
    bets = hand.bets
    top = max(bets)
    if top == 0 or bets.count(top) > 1:
        return
    seat = bets.index(top)
    excess = top - max(b for s, b in enumerate(bets) if s != seat)
    player = state.seats[seat]
    assert player is not None
    bets[seat] -= excess
    hand.committed[seat] -= excess
    player.stack += excess
    events.append(UncalledBetReturned(seat_index=seat, amount=excess))


def _award_uncontested(state: TableState, hand: HandState, winner: int,
                       events: list[Event]) -> None:
    """R2.4: the only hand left wins every pot without being shown."""
    amount = hand.pot
    player = state.seats[winner]
    assert player is not None
    player.stack += amount
    hand.pot = 0
    hand.awards = [{"amount": amount, "winners": {str(winner): amount}, "showdown": False}]
    events.append(PotAwarded(pot_index=0, amount=amount, winners={str(winner): amount},
                             showdown=False))
    _finish(hand, events)


def _showdown(state: TableState, hand: HandState, events: list[Event]) -> None:
    """R4.4: every hand still in shows; R4.1/R4.5: each pot goes to its best eligible hands."""
    # Imported at the first showdown, not with the engine: a new container whose first frames
    # show no hands never reads the evaluator's tables (docs/deploy.md, "7. Cold start").
    from .evaluator import best_hand, evaluate, evaluate_omaha

    n = state.config.seat_count
    omaha = state.config.rules.omaha
    live = [hand.is_live(s) for s in range(n)]
    strengths: dict[int, int] = {}
    shown: list[ShownHand] = []
    for seat in clockwise_from_button([s for s in range(n) if live[s]], n, hand.button):
        if hand.mucked[seat]:
            continue
        hole = hand.hole[seat]
        strengths[seat] = (evaluate_omaha(hole, hand.board) if omaha
                           else evaluate(hole + hand.board))
        value = best_hand(hole, hand.board, omaha=omaha)
        hand.shown[seat] = True
        shown.append(ShownHand(seat_index=seat, cards=format_cards(hole),
                               best_five=format_cards(value.cards), hand=value.description))
    events.append(Showdown(board=format_cards(hand.board), hands=tuple(shown)))
    awards = []
    for index, pot in enumerate(build_pots(hand.committed, hand.antes, live)):
        contenders = [s for s in pot.eligible if s in strengths] or list(pot.eligible)
        best = max(strengths.get(s, 0) for s in contenders)
        winners = [s for s in contenders if strengths.get(s, 0) == best]
        shares = split_pot(pot.amount, winners, n, hand.button)
        for seat, amount in shares.items():
            player = state.seats[seat]
            assert player is not None
            player.stack += amount
        won = {str(s): a for s, a in shares.items()}
        awards.append({"amount": pot.amount, "eligible": list(pot.eligible),
                       "winners": won, "showdown": True})
        events.append(PotAwarded(pot_index=index, amount=pot.amount, winners=dict(won),
                                 showdown=True, eligible=tuple(pot.eligible)))
    hand.pot = 0
    hand.awards = awards
    _finish(hand, events)


def _finish(hand: HandState, events: list[Event]) -> None:
    hand.complete = True
    hand.actor = None
    events.append(HandEnded(hand_number=hand.number))


def _cancel_hand(state: TableState, c: CancelHand, events: list[Event]) -> None:
    """R8.6: a hand that a server fault stopped is cancelled: the table returns to exactly its
    state before the hand. Every chip a player put in goes back to them (to the seat if they
    still sit there; otherwise it is reported in ``absent`` for their account), destellos are
    those before the hand (the credit removed, powers paid refunded), and the blind positions
    are restored so the button does not move. Hand numbers are not reused."""
    hand = state.hand
    if hand is None or hand.complete:
        raise NoHandInProgress("no hand is being played")
    if not isinstance(c.reason, str) or not c.reason:
        raise MalformedCommand("a cancellation needs a reason")
    refunds: dict[str, int] = {}
    absent: dict[str, int] = {}
    for seat, amount in enumerate(hand.committed):
        player_id = hand.player_ids[seat]
        player = state.seats[seat]
        here = player is not None and player.player_id == player_id
        if amount:
            refunds[str(seat)] = amount
            if here:
                assert player is not None
                player.stack += amount
            elif player_id is not None:
                absent[player_id] = absent.get(player_id, 0) + amount
        if here and hand.dealt[seat] and hand.starting_destellos:
            assert player is not None
            player.destellos = hand.starting_destellos[seat]
        if here and hand.starting_owes:  # R7.8: blinds posted to enter are owed again, and
            assert player is not None  # blinds missed in this hand were never missed
            player.owes_big, player.owes_small = hand.starting_owes[seat]
    state.last_big_blind_seat = hand.previous_big_blind_seat
    state.last_small_blind_position = hand.previous_small_blind_position
    state.last_dealt = hand.previous_last_dealt
    hand.pot = 0
    hand.bets = [0] * state.config.seat_count
    hand.complete = True
    hand.cancelled = True
    hand.actor = None
    hand.awards = []
    if hand.powers is not None:
        hand.powers.windows = []
    events.append(HandCancelled(hand_number=hand.number, reason=c.reason, refunds=refunds,
                                absent=absent, player_ids=tuple(hand.player_ids)))


_HANDLERS: dict[type[Command], Callable[[TableState, Any, list[Event]], None]] = {
    SitDown: _sit_down,
    StandUp: _stand_up,
    SitOut: _sit_out,
    SitIn: _sit_in,
    ChooseEntry: _choose_entry,
    AddChips: _add_chips,
    StartHand: _start_hand,
    CancelHand: _cancel_hand,
    Fold: _fold,
    Check: _check,
    Call: _call,
    Bet: _bet,
    RaiseTo: _raise,
    AllIn: _all_in,
    UsePower: powers.use_power,
    PassWindow: powers.pass_window,
    WindowTimeout: powers.window_timeout,
}
