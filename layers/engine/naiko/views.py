""":mod:`naiko.views` builds what one seat (or a spectator) may see of a table.

This is the only road from the state to a client. A view holds the viewer's own hole cards,
hands shown at showdown, and public information; never another seat's hidden cards, never the
deck. :func:`events_for` filters engine events the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import powers
from .cards import Card, format_cards, parse_cards
from .commitment import DeckCommitment, commit_deck
from .engine import legal_actions
from .events import (
    ActionTaken,
    BoardDealt,
    Event,
    HandStarted,
    HoleCardsDealt,
    Move,
    PeekResult,
    Showdown,
    SleeveSwapResult,
)
from .state import HandState, TableState


def view_for(state: TableState, seat_index: int | None, *,
             proofs: bool = False) -> dict[str, Any]:
    """The table as *seat_index* may see it (``None``: a spectator).

    The hand carries its deck ``commitment`` (R10.2); with *proofs*, also ``proofs``: one
    inclusion proof for every card the viewer has seen in the hand so far (a snapshot; updates
    carry only the proofs of the cards they show, :func:`proofs_for_events`).

    >>> from naiko.state import TableConfig
    >>> view = view_for(TableState.new(TableConfig(seat_count=2)), None)
    >>> view["seats"], view["hand"]
    ([None, None], None)
    """
    config = state.config
    hand = state.hand
    own = viewer_seat(state, seat_index)  # a newcomer sees nothing of the seat's earlier player
    seats: list[dict[str, Any] | None] = []
    for index, seat in enumerate(state.seats):
        if seat is None:
            seats.append(None)
            continue
        entry: dict[str, Any] = {
            "seat_index": index, "player_id": seat.player_id, "stack": seat.stack,
            "is_bot": seat.is_bot, "sitting_out": seat.sitting_out,
        }
        if config.rules.powers:
            entry["destellos"] = seat.destellos  # public, like a stack (R5.1)
        if config.entry_rules:  # R7.8: who owes blinds, and posts them or waits (public)
            entry["owes_big"] = seat.owes_big
            entry["owes_small"] = seat.owes_small
            entry["entry"] = seat.entry.value
        if hand is not None and hand.dealt[index] and hand.player_ids[index] == seat.player_id:
            entry["in_hand"] = True
            entry["folded"] = hand.folded[index]
            entry["all_in"] = not hand.folded[index] and seat.stack == 0
            entry["bet"] = hand.bets[index]
            if index == own or hand.shown[index]:
                entry["cards"] = format_cards(hand.hole[index])
            else:
                entry["cards"] = None
                entry["card_count"] = 0 if hand.folded[index] else len(hand.hole[index])
        else:
            entry["in_hand"] = False
        seats.append(entry)
    view: dict[str, Any] = {
        "config": config.to_dict(),
        "seat_index": seat_index,
        "hand_count": state.hand_count,
        "seats": seats,
        "hand": None,
        "prompt": None,
    }
    if hand is not None:
        view["hand"] = {
            "number": hand.number,
            "button": hand.button,
            "small_blind_seat": hand.small_blind_seat,
            "big_blind_seat": hand.big_blind_seat,
            "street": hand.street.name.lower(),
            "board": format_cards(hand.board),
            "pot": hand.pot,
            "bets_total": sum(hand.bets),
            "current_bet": hand.current_bet,
            "actor": hand.actor,
            "complete": hand.complete,
            "awards": [dict(a) for a in hand.awards] if hand.complete else [],
            "commitment": hand.commitment,
            "aggression": aggression_of(hand),
        }
        if proofs and hand.commitment is not None:
            view["hand"]["proofs"] = proofs_for(hand, seen_cards(state, own))
        if hand.powers is not None:
            view["hand"]["powers"] = _powers_view(state, own)
        prompt = legal_actions(state)
        if prompt is not None and own is not None and prompt.seat_index == own:
            view["prompt"] = prompt.to_dict()
    return view


def aggression_of(hand: HandState) -> list[dict[str, Any]]:
    """The hand's public betting so far, one entry per street reached (preflop first):
    ``{"street", "raises", "last"}``, the bets and raises made on the street (blinds and antes
    not counted) and the seat that made the last of them (``None`` when nobody bet). Every seat
    saw these actions as events (R8.4: nothing private); a bot reads from it who was the
    preflop aggressor (:mod:`naiko.bot_styles`).
    """
    streets: list[dict[str, Any]] = [{"street": "preflop", "raises": 0, "last": None}]
    for event in hand.log:
        if isinstance(event, BoardDealt):
            streets.append({"street": event.street, "raises": 0, "last": None})
        elif isinstance(event, ActionTaken) and event.action in (Move.BET, Move.RAISE_TO):
            streets[-1]["raises"] += 1
            streets[-1]["last"] = event.seat_index
    return streets


def viewer_seat(state: TableState, seat_index: int | None) -> int | None:
    """*seat_index* when the player sitting there now sat there when the current hand was dealt
    (or no hand was dealt yet), else ``None``: a player who takes a seat during a hand (its
    earlier player folded and left) is, for that hand, a spectator. What is private to a seat
    (hole cards, a Peek, a Sleeve Swap, their proofs, R10.2) belongs to the player dealt there,
    never to the seat's next occupant.

    >>> from naiko.state import TableConfig
    >>> viewer_seat(TableState.new(TableConfig(seat_count=2)), 1) is None  # an empty seat
    True
    """
    if seat_index is None:
        return None
    seat = state.seats[seat_index]
    if seat is None:
        return None
    hand = state.hand
    if hand is not None and hand.player_ids[seat_index] != seat.player_id:
        return None
    return seat_index


def _powers_view(state: TableState, seat_index: int | None) -> dict[str, Any]:
    """Naiko mode: the public Carousel, uses, anchors and windows; the viewer's own peek."""
    hand = state.hand
    assert hand is not None and hand.powers is not None
    p = hand.powers
    out: dict[str, Any] = {
        "carousel": p.carousel[:],
        "used": {str(s): u[:] for s, u in enumerate(p.used) if u},
        "round_activations": p.round_activations,
        "anchors": {str(s): {"state": a, "by": p.anchored_by[s]}
                    for s, a in enumerate(p.anchors) if a is not None},
        "windows": [w.to_dict() for w in p.windows],
        "peek": None,
        "can_shield": False,
    }
    if seat_index is not None:
        peeked = p.peeks[seat_index]
        # Shown while still undealt: once a Sleeve Swap takes it, it is someone's hole card.
        if peeked is not None and peeked in hand.deck:
            out["peek"] = format_cards([peeked])
        out["can_shield"] = not hand.complete and powers.can_shield_now(state, hand, seat_index)
    return out


def events_for(events: list[Event], seat_index: int | None,
               player_id: str | None = None) -> list[dict[str, Any]]:
    """The events *seat_index* (played by *player_id*) may see, as dicts (private events of
    other seats and notices to other players removed)."""
    return [e.to_dict() for e in events if e.visible_to(seat_index, player_id)]


# -- R10.2: proofs of the cards a viewer saw ----------------------------------------------------

def cards_in(events: Iterable[Event]) -> list[Card]:
    """Every card the *events* show for the first time, in order, each once: hole cards, board
    cards, a Peek, the card a Sleeve Swap brings in, the hands shown at showdown.
    Filter the events for a viewer first (:meth:`Event.visible_to`)."""
    cards: list[Card] = []
    for event in events:
        match event:
            case HoleCardsDealt(cards=text) | BoardDealt(cards=text):
                cards.extend(parse_cards(text))
            case PeekResult(card=text):
                cards.extend(parse_cards(text))
            case SleeveSwapResult(received=new):  # the discarded card was proved when dealt
                cards.extend(parse_cards(new))
            case Showdown(hands=hands):
                for shown in hands:
                    cards.extend(parse_cards(shown.cards))
            case _:
                pass
    return list(dict.fromkeys(cards))


def seen_cards(state: TableState, seat_index: int | None,
               player_id: str | None = None) -> list[Card]:
    """Every card *seat_index* has seen in the current hand (from the hand's record): the
    seat's private events only while its occupant is the player dealt there
    (:func:`viewer_seat`)."""
    hand = state.hand
    if hand is None:
        return []
    seat_index = viewer_seat(state, seat_index)
    visible = [e for e in hand.log if e.visible_to(seat_index, player_id)]
    # As the view's peek (R6.8): a peeked card a Sleeve Swap took is someone's hole card now,
    # so a snapshot no longer names it (its proof came with the peek) unless the viewer was
    # shown it otherwise (its own swap, a showdown).
    shown = cards_in(e for e in visible if not isinstance(e, PeekResult))
    peeked = [c for c in cards_in(e for e in visible if isinstance(e, PeekResult))
              if c in hand.deck or c in hand.board]
    return list(dict.fromkeys(shown + peeked))


def commitment_of(hand: HandState) -> DeckCommitment | None:
    """The hand's deck commitment rebuilt from its secret seed, or ``None`` without one."""
    if hand.commitment is None or hand.deck_seed is None or not hand.shuffled:
        return None
    return commit_deck(hand.shuffled, hand.deck_seed)


def proofs_for(hand: HandState, cards: Iterable[Card],
               commitment: DeckCommitment | None = None) -> list[dict[str, Any]]:
    """R10.2: the inclusion proof of each of *cards* in the hand's committed deck (wire form,
    :meth:`naiko.commitment.CardProof.to_dict`); ``[]`` for a hand dealt without commitment.

    :param commitment: The hand's commitment when the caller has built it already
        (:func:`commitment_of`): a fan-out builds it once for every recipient.
    """
    commitment = commitment or commitment_of(hand)
    if commitment is None:
        return []
    position = {card: i for i, card in enumerate(commitment.cards)}
    return [commitment.proof(position[card]).to_dict() for card in cards]


def proofs_for_events(hand: HandState | None, events: Iterable[Event],
                      commitment: DeckCommitment | None = None) -> list[dict[str, Any]]:
    """The proofs of the cards that *events* (already filtered for one viewer) show, for the
    current *hand*: when the events run from the end of one hand into the deal of the next,
    only the cards after the last ``hand_started`` are the current hand's (the earlier hand's
    cards are proved by its stored record, R10.1)."""
    if hand is None or hand.commitment is None:
        return []
    events = list(events)
    starts = [i for i, e in enumerate(events) if isinstance(e, HandStarted)]
    cards = cards_in(events[starts[-1]:] if starts else events)
    return proofs_for(hand, cards, commitment) if cards else []
