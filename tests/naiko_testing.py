"""Helpers shared by the tests: build tables and fixed decks in a few words."""

from __future__ import annotations

import re
from typing import Any

from naiko.cards import FULL_DECK, format_cards, parse_cards
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
)
from naiko.engine import Prompt, apply, apply_in_place, legal_actions
from naiko.errors import EngineError
from naiko.events import Event, PeekResult
from naiko.pots import clockwise_from_button
from naiko.state import AnteMode, HandState, TableConfig, TableState, Variant


def table(stacks: list[int | None], *, sb: int = 1, bb: int = 2, variant: Variant = Variant.NLHE,
          ante: int = 0, ante_mode: AnteMode = AnteMode.NONE,
          destellos: list[int] | None = None) -> TableState:
    """A table with one seat per entry of *stacks* (``None`` = empty seat); *destellos* sets
    the seats' destellos before the first hand credits one more (Naiko mode)."""
    config = TableConfig(variant=variant, seat_count=len(stacks), small_blind=sb, big_blind=bb,
                         ante=ante, ante_mode=ante_mode)
    state = TableState.new(config)
    for seat, stack in enumerate(stacks):
        if stack is not None:
            state, _ = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}", stack=stack))
            if destellos is not None:
                seat_state = state.seats[seat]
                assert seat_state is not None
                seat_state.destellos = destellos[seat]
    return state


def destellos(state: TableState) -> list[int | None]:
    return [s.destellos if s else None for s in state.seats]


def fixed_deck(state: TableState, holes: dict[int, str], board: str = "",
               button: int | None = None) -> tuple[int, ...]:
    """A full deck that deals *holes* (seat -> cards text) and then *board*.

    Seats not in *holes* get the lowest unused cards. *button* is the button of the hand about
    to start (needed to know the dealing order); it defaults to the engine's next button.
    """
    config = state.config
    active = [i for i, s in enumerate(state.seats) if s and not s.sitting_out and s.stack > 0]
    if button is None:
        button = predicted_button(state)
    order = clockwise_from_button(active, config.seat_count, button)
    wanted = {seat: parse_cards(text) for seat, text in holes.items()}
    board_cards = parse_cards(board)
    used = {c for cards in wanted.values() for c in cards} | set(board_cards)
    assert len(used) == sum(len(c) for c in wanted.values()) + len(board_cards), "duplicate card"
    spare = [c for c in FULL_DECK if c not in used]
    deck: list[int] = []
    count = config.rules.hole_card_count
    for seat in order:
        cards = wanted.get(seat)
        if cards is None:
            cards, spare = spare[:count], spare[count:]
        deck.extend(cards)
    deck.extend(board_cards)
    deck.extend(spare)
    assert sorted(deck) == list(FULL_DECK)
    return tuple(deck)


def predicted_button(state: TableState) -> int:
    """The button the engine will use for the next hand (after the first)."""
    from naiko.engine import _positions  # test-only peek at the rule's implementation

    active = {i for i, s in enumerate(state.seats) if s and not s.sitting_out and s.stack > 0}
    return _positions(state, active, None)[0]


def start(state: TableState, holes: dict[int, str] | None = None, board: str = "",
          button: int | None = None,
          carousel: tuple[str, ...] | None = None) -> tuple[TableState, list[Event]]:
    """Start a hand with a fixed deck; *button* only for the table's first hand. Naiko tables
    get the Carousel peek / short_anchor / seal_shield unless *carousel* says otherwise."""
    first = state.last_big_blind_seat is None
    deck = fixed_deck(state, holes or {}, board, button if first else None)
    if carousel is None:
        carousel = ("peek", "short_anchor", "seal_shield") if state.config.rules.powers else ()
    return apply(state, StartHand(deck=deck, button=button if first else None,
                                  carousel=carousel))


def play(state: TableState, *moves: str) -> tuple[TableState, list[Event]]:
    """Apply moves written in :func:`command` notation; return the state and all events."""
    events: list[Event] = []
    for move in moves:
        state, new_events = apply(state, command(move))
        events.extend(new_events)
    return state, events


def command(move: str) -> Command:
    """The command a move names: ``"2 f"``, ``"0 x"`` (check), ``"1 c"`` (call), ``"3 b 10"``,
    ``"4 r 30"`` (raise to), ``"5 a"`` (all-in), and the powers ``"1 peek"``, ``"1 swap 0"``,
    ``"1 anchor 3"`` (at_ms 0; ``"1 anchor 3 500"``), ``"3 shield"``, ``"3 pass"``."""
    parts = move.split()
    seat, verb = int(parts[0]), parts[1]
    if verb == "f":
        return Fold(seat_index=seat)
    if verb == "x":
        return Check(seat_index=seat)
    if verb == "c":
        return Call(seat_index=seat)
    if verb == "b":
        return Bet(seat_index=seat, amount=int(parts[2]))
    if verb == "r":
        return RaiseTo(seat_index=seat, amount=int(parts[2]))
    if verb == "a":
        return AllIn(seat_index=seat)
    if verb == "peek":
        return UsePower(seat_index=seat, power="peek")
    if verb == "swap":
        return UsePower(seat_index=seat, power="sleeve_swap", card_index=int(parts[2]))
    if verb == "anchor":
        at_ms = int(parts[3]) if len(parts) > 3 else 0
        return UsePower(seat_index=seat, power="short_anchor", target_seat=int(parts[2]),
                        at_ms=at_ms)
    if verb == "shield":
        return UsePower(seat_index=seat, power="seal_shield")
    if verb == "pass":
        return PassWindow(seat_index=seat)
    raise ValueError(move)


def rejected_in_place(state: TableState, command: Command) -> str:
    """Apply *command*, which must be rejected, to *state* itself with ``apply_in_place`` (not
    ``apply``, which works on a copy); check that *state* did not change; return the error
    code."""
    before = state.to_dict()
    try:
        apply_in_place(state, command)
    except EngineError as error:
        assert state.to_dict() == before, f"{command} was rejected but changed the state"
        return error.code
    raise AssertionError(f"{command} was accepted")


def prompt(state: TableState) -> Prompt:
    p = legal_actions(state)
    assert p is not None, "nobody is to act"
    return p


def stack_list(state: TableState) -> list[int | None]:
    return [s.stack if s else None for s in state.seats]


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def shown_to_everyone(hand: HandState) -> set[int]:
    """Seats whose hole cards any viewer may see, by the rules and not by the engine's flags:
    R4.4, the hands still in at a showdown (the hand is over, was not cancelled, and at least
    two hands reached the end). A folded hand is never shown, nor the last hand left (R2.4),
    nor a mucked one (replays only)."""
    live = {s for s in range(len(hand.hole)) if hand.is_live(s)}
    if not hand.complete or not hand.awards or len(live) < 2:
        return set()
    return {s for s in live if not hand.mucked[s]}


def hidden_from(hand: HandState, player: str | None) -> set[str]:
    """Cards *player* (``None``: a spectator) must not see in any view or event of *hand* up to
    now: the hole cards of every seat *player* was not dealt at (compared by player, not by
    seat: a player who takes a folded player's seat during the hand is not the player dealt
    there) unless shown at a showdown, and every card still in the deck, except the viewer's
    own Peek (R6.1) wherever it went: a Sleeve Swap after the Peek takes the top card, so the
    peeked card may now be the swapper's (R6.8: the peeker saw it before it moved, and knowing
    the swapper's new card is accepted)."""
    mine = {s for s, dealt_to in enumerate(hand.player_ids)
            if player is not None and dealt_to == player and hand.dealt[s]}
    own_peeks = {e.card for e in hand.log if isinstance(e, PeekResult) and e.seat_index in mine}
    hidden = {format_cards([c]) for c in hand.deck}
    shown = shown_to_everyone(hand)
    for seat, cards in enumerate(hand.hole):
        if seat not in mine and seat not in shown:
            hidden |= {format_cards([c]) for c in cards}
    return hidden - own_peeks


def player_at(state: TableState, seat_index: int | None) -> str | None:
    """Who sits at *seat_index* now (``None``: an empty seat, or a spectator)."""
    seat = None if seat_index is None else state.seats[seat_index]
    return None if seat is None else seat.player_id


CARDS_TEXT = re.compile(r"^(?:[2-9TJQKA][cdhs])+$")


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a view, event or message: strings made only of cards
    ("AhKd"); words such as "Threes" or "Ace high" are not cards."""
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    if isinstance(value, str) and CARDS_TEXT.match(value):
        return {value[i:i + 2] for i in range(0, len(value), 2)}
    return set()
