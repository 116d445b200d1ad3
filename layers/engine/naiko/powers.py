""":mod:`naiko.powers` implements Naiko mode: destellos, the Carousel and the four powers
(RULES.md §5–6).

The betting engine calls the hooks here (``on_hand_start``, ``on_new_turn``,
``on_poker_action``, ``on_round_end``, ``is_anchored``); the power commands are handled by
``use_power``, ``pass_window`` and ``window_timeout``. Every legality check of a power is in
:func:`verify_use_power`, which runs before any change (so a rejected attempt changes nothing
and costs nothing, R5.7) and which the prompt asks too (:func:`can_use_power`).

>>> sorted(str(p) for p in ALLOWED_CAROUSELS[0])
['peek', 'short_anchor', 'sleeve_swap']
>>> from naiko.cards import seeded_random
>>> draw_carousel(seeded_random(1)) in ALLOWED_CAROUSELS
True
"""

from __future__ import annotations

from .cards import RandomSource, format_card, format_cards
from .commands import PassWindow, UsePower, WindowTimeout
from .errors import EngineError, IllegalAction, MalformedCommand, NoHandInProgress, NotYourTurn
from .events import (
    AnchorApplied,
    CarouselDrawn,
    Event,
    PeekResult,
    Power,
    PowerUsed,
    SleeveSwapResult,
    WindowClosed,
    WindowOpened,
)
from .state import HandState, PowersState, ResponseWindow, Street, TableState

PEEK, SLEEVE_SWAP, SHORT_ANCHOR, SEAL_SHIELD = Power

POWERS: tuple[Power, ...] = tuple(Power)
COSTS: dict[str, int] = {power: power.cost for power in Power}
"""Destellos each power costs (R6.1–R6.4)."""

MAX_DESTELLOS = 3
"""R5.1: at most 3 held."""
MAX_ACTIVATIONS_PER_ROUND = 3
"""R5.6: normal activations per betting round at the whole table."""

ALLOWED_CAROUSELS: tuple[tuple[Power, Power, Power], ...] = (
    (PEEK, SLEEVE_SWAP, SHORT_ANCHOR),
    (PEEK, SHORT_ANCHOR, SEAL_SHIELD),
    (SLEEVE_SWAP, SHORT_ANCHOR, SEAL_SHIELD),
)
"""R5.3/R5.4: 3 of the 4 powers, and Seal Shield never without Short Anchor."""


class PowerRejected(IllegalAction):
    """A power cannot be used now; ``code`` says why. Nothing was paid."""

    code = "power_rejected"


def draw_carousel(rng: RandomSource) -> tuple[Power, Power, Power]:
    """Draw this hand's Carousel uniformly over the three allowed sets (R5.3, R5.4)."""
    return ALLOWED_CAROUSELS[rng.randrange(len(ALLOWED_CAROUSELS))]


# -- hooks called by the betting engine ------------------------------------------------------

def on_hand_start(state: TableState, hand: HandState, carousel: tuple[str, ...],
                  events: list[Event]) -> None:
    """Credit destellos (R5.1) and fix the Carousel (R5.3). Validation is done by
    :func:`check_carousel` before the hand starts."""
    n = state.config.seat_count
    hand.powers = PowersState(carousel=list(carousel), used=[[] for _ in range(n)],
                              anchors=[None] * n, anchored_by=[None] * n, peeks=[None] * n)
    destellos = {}
    for seat, player in enumerate(state.seats):
        if player is not None and hand.dealt[seat]:
            player.destellos = min(MAX_DESTELLOS, player.destellos + 1)
            destellos[str(seat)] = player.destellos
    events.append(CarouselDrawn(powers=tuple(Power(p) for p in carousel), destellos=destellos))


def check_carousel(state: TableState, carousel: tuple[str, ...]) -> None:
    """Reject a Carousel that is missing, present in a classic variant, or not allowed.

    :raises MalformedCommand: If it is.
    """
    if not state.config.rules.powers:
        if carousel:
            raise MalformedCommand("powers exist only in Naiko mode (R1.4)", rule_id="R1.4")
        return
    if tuple(sorted(carousel)) not in {tuple(sorted(c)) for c in ALLOWED_CAROUSELS}:
        raise MalformedCommand(f"a Naiko hand needs a Carousel of 3 powers allowed by R5.4, "
                               f"not {list(carousel)!r}", rule_id="R5.4")


def is_anchored(hand: HandState, seat: int) -> bool:
    """Whether a Short Anchor limits *seat*'s raises now: declared and not shielded. While the
    window is open the Anchor already binds an action the target takes (R6.5: acting closes
    the window and the Anchor applies)."""
    powers = hand.powers
    return powers is not None and powers.anchors[seat] in ("pending", "applied")


def on_new_turn(hand: HandState) -> None:
    """A seat gets the turn: it may activate one power before its action (R5.5)."""
    if hand.powers is not None:
        hand.powers.turn_power_used = False


def on_poker_action(hand: HandState, seat: int, events: list[Event]) -> None:
    """The target's own poker action closes its response window; the Anchor applies (R6.5)."""
    powers = hand.powers
    if powers is not None and powers.window_for(seat) is not None:
        _close_window(hand, powers, seat, "acted", events)


def on_round_end(hand: HandState, events: list[Event]) -> None:
    """Anchors expire with the round (R6.3); open windows close unused; slots reset (R5.6)."""
    powers = hand.powers
    if powers is None:
        return
    for window in list(powers.windows):
        powers.windows.remove(window)
        events.append(WindowClosed(window_id=window.window_id, target=window.target,
                                   reason="round_ended"))
    n = len(powers.anchors)
    powers.anchors = [None] * n
    powers.anchored_by = [None] * n
    powers.round_activations = 0


# -- the power commands: verify (raises), can (bool), use (verify, then change) ---------------

def verify_use_power(state: TableState, c: UsePower) -> None:
    """Every check of a power activation, before anything changes (R5.5–R5.7, R6.1–R6.4,
    R6.7): the one place that decides whether *c* is legal now. :func:`use_power` calls it
    before its first change and the prompt (:func:`usable_powers`, :func:`anchor_targets`,
    :func:`can_shield_now`) asks it through :func:`can_use_power`, so the two never disagree.

    :raises PowerRejected: If the power cannot be used now (nothing is paid, R5.7).
    :raises NotYourTurn: If a turn power is used out of turn.
    :raises NoHandInProgress: If no hand is being played.
    :raises MalformedCommand: For an unknown power or a bad ``at_ms``.
    """
    hand, powers = _hand_with_powers(state)
    seat = c.seat_index
    if not isinstance(seat, int) or not 0 <= seat < state.config.seat_count \
            or state.seats[seat] is None:
        raise PowerRejected(f"seat {seat} is not playing", code="unknown_seat")
    power = _power(c.power)
    if power is Power.SEAL_SHIELD:
        _verify_shield(state, hand, powers, seat, c.at_ms)
        return
    if hand.actor != seat:
        raise NotYourTurn(f"powers are used on your own turn, before your action (R5.5); it is "
                          f"seat {hand.actor}'s turn", rule_id="R5.5")
    if power not in powers.carousel:
        raise PowerRejected(f"{power} is not in this hand's Carousel "
                            f"({', '.join(powers.carousel)})", code="not_in_carousel",
                            rule_id="R5.7")
    if power in powers.used[seat]:
        raise PowerRejected(f"you already used {power} this hand", code="already_used",
                            rule_id="R5.5")
    if powers.turn_power_used:
        raise PowerRejected("one power per turn: you already used one this turn",
                            code="one_power_per_turn", rule_id="R5.5")
    if powers.round_activations >= MAX_ACTIVATIONS_PER_ROUND:
        raise PowerRejected("the table already used 3 powers this betting round",
                            code="table_limit_reached", rule_id="R5.6")
    _verify_can_pay(state, seat, power)
    if power is Power.PEEK:
        if hand.street >= Street.RIVER:
            raise PowerRejected("Peek cannot be used on the river: no board card is left to "
                                "deal", code="wrong_street", rule_id="R6.1")
    elif power is Power.SLEEVE_SWAP:
        if hand.street != Street.PREFLOP:
            raise PowerRejected("Sleeve Swap is used preflop only", code="wrong_street",
                                rule_id="R6.2")
        if hand.acted[seat]:
            raise PowerRejected("Sleeve Swap must come before your first betting action",
                                code="already_acted", rule_id="R6.2")
        if c.card_index not in (0, 1) or isinstance(c.card_index, bool):
            raise PowerRejected("choose the hole card to swap: card_index 0 or 1",
                                code="invalid_card", rule_id="R6.2")
    else:
        _verify_anchor_target(state, hand, powers, seat, c.target_seat)
        if not isinstance(c.at_ms, int) or isinstance(c.at_ms, bool) or c.at_ms < 0:
            raise MalformedCommand("at_ms must be a non-negative integer")


def can_use_power(state: TableState, c: UsePower) -> bool:
    """Whether :func:`verify_use_power` accepts *c* now."""
    try:
        verify_use_power(state, c)
    except EngineError:
        return False
    return True


def use_power(state: TableState, c: UsePower, events: list[Event]) -> None:
    """Verify, then activate a power (R5.5–R5.7, R6.1–R6.4, R6.6, R6.7)."""
    verify_use_power(state, c)
    hand, powers = _hand_with_powers(state)
    power = _power(c.power)
    if power is Power.SEAL_SHIELD:
        _seal_shield(state, hand, powers, c.seat_index, events)
    elif power is Power.PEEK:
        _peek(state, hand, powers, c.seat_index, events)
    elif power is Power.SLEEVE_SWAP:
        assert c.card_index is not None
        _sleeve_swap(state, hand, powers, c.seat_index, c.card_index, events)
    else:
        assert c.target_seat is not None
        _short_anchor(state, hand, powers, c.seat_index, c.target_seat, c.at_ms, events)


def _power(name: str) -> Power:
    try:
        return Power(name)
    except ValueError:
        raise MalformedCommand(f"unknown power {name!r}; expected one of "
                               f"{', '.join(POWERS)}") from None


def _hand_with_powers(state: TableState) -> tuple[HandState, PowersState]:
    if not state.config.rules.powers:
        raise PowerRejected("powers exist only in Naiko mode (R1.4)", code="powers_not_available",
                            rule_id="R1.4")
    hand = state.hand
    if hand is None or hand.complete:
        raise NoHandInProgress("no hand is being played")
    assert hand.powers is not None
    return hand, hand.powers


def _verify_can_pay(state: TableState, seat: int, power: Power) -> None:
    player = state.seats[seat]
    assert player is not None
    if player.destellos < COSTS[power]:
        raise PowerRejected(f"{power} costs {COSTS[power]} destellos; you have "
                            f"{player.destellos}", code="cannot_pay", rule_id="R5.7")


def _verify_anchor_target(state: TableState, hand: HandState, powers: PowersState, seat: int,
                          target: int | None) -> None:
    """R6.3: an opponent who can act (not folded, not all-in), has not acted this round and has
    not received an Anchor declaration this round."""
    n = state.config.seat_count
    if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < n \
            or target == seat or not hand.is_live(target) or state.stack(target) == 0:
        raise PowerRejected("aim Short Anchor at an opponent still in the hand and not all-in",
                            code="invalid_target", rule_id="R6.3")
    if powers.anchors[target] is not None:
        raise PowerRejected(f"seat {target} already received a Short Anchor this round",
                            code="already_anchored", rule_id="R6.3")
    if hand.acted[target]:
        raise PowerRejected(f"seat {target} has already acted in this betting round: a Short "
                            f"Anchor aims at an opponent who has not acted yet",
                            code="invalid_target", rule_id="R6.3")


def _verify_shield(state: TableState, hand: HandState, powers: PowersState, seat: int,
                   at_ms: int) -> None:
    """R6.4/R6.7: only inside the window of an Anchor aimed at *seat*, at any time; R6.5: the
    window's 8 seconds are measured on the caller's (the server's) clock, so a Shield after
    the deadline is refused even before the window's timer has closed it."""
    window = powers.window_for(seat)
    if window is None:
        if powers.anchors[seat] == "applied":
            raise PowerRejected("the Seal Shield window of the Anchor aimed at you has closed",
                                code="window_closed", rule_id="R6.5")
        raise PowerRejected("Seal Shield only answers an open Short Anchor window aimed at you",
                            code="no_open_window", rule_id="R6.4")
    if not isinstance(at_ms, int) or isinstance(at_ms, bool) or at_ms > window.deadline_ms:
        raise PowerRejected(f"the Seal Shield window closed at {window.deadline_ms}",
                            code="window_closed", rule_id="R6.5")
    _verify_shield_owned(state, powers, seat)


def _verify_shield_owned(state: TableState, powers: PowersState, seat: int) -> None:
    """*seat* holds a Seal Shield it may use this hand, the window aside: in the Carousel, not
    used yet, affordable (R5.5, R5.7).

    :raises PowerRejected: If it does not.
    """
    if Power.SEAL_SHIELD not in powers.carousel:
        raise PowerRejected("seal_shield is not in this hand's Carousel", code="not_in_carousel",
                            rule_id="R5.7")
    if Power.SEAL_SHIELD in powers.used[seat]:
        raise PowerRejected("you already used seal_shield this hand", code="already_used",
                            rule_id="R5.5")
    _verify_can_pay(state, seat, Power.SEAL_SHIELD)


def _pay(state: TableState, powers: PowersState, seat: int, power: Power,
         counts: bool = True) -> None:
    player = state.seats[seat]
    assert player is not None
    player.destellos -= COSTS[power]
    powers.used[seat].append(power)
    if counts:
        powers.turn_power_used = True
        powers.round_activations += 1


def _peek(state: TableState, hand: HandState, powers: PowersState, seat: int,
          events: list[Event]) -> None:
    """R6.1: privately see the next board card to be dealt; nothing moves."""
    _pay(state, powers, seat, Power.PEEK)
    card = hand.deck[0]
    powers.peeks[seat] = card
    events.append(_used(state, seat, Power.PEEK))
    events.append(PeekResult(seat_index=seat, card=format_card(card),
                             street=Street(hand.street + 1).name.lower()))


def _sleeve_swap(state: TableState, hand: HandState, powers: PowersState, seat: int,
                 card_index: int, events: list[Event]) -> None:
    """R6.2: preflop, before the seat's first betting action: one hole card is dead, the next
    deck card replaces it, seen only by the swapper."""
    _pay(state, powers, seat, Power.SLEEVE_SWAP)
    old = hand.hole[seat][card_index]
    new = hand.deck.pop(0)
    hand.hole[seat][card_index] = new
    powers.discarded.append(old)
    events.append(_used(state, seat, Power.SLEEVE_SWAP, card_index=card_index))
    events.append(SleeveSwapResult(seat_index=seat, discarded=format_card(old),
                                   received=format_card(new),
                                   cards=format_cards(hand.hole[seat])))


def anchor_targets(state: TableState, hand: HandState, seat: int) -> list[int]:
    """Seats *seat* may aim a Short Anchor at now (R6.3), as :func:`verify_use_power` decides."""
    if hand.powers is None:
        return []
    return [t for t in range(state.config.seat_count)
            if can_use_power(state, UsePower(seat_index=seat, power=Power.SHORT_ANCHOR,
                                             target_seat=t))]


def _short_anchor(state: TableState, hand: HandState, powers: PowersState, seat: int,
                  target: int, at_ms: int, events: list[Event]) -> None:
    """R6.3: limit an opponent's raises this round to the pot-size raise. Paid on declaration,
    even if blocked (R5.7); opens the Seal Shield response window (R6.5)."""
    _pay(state, powers, seat, Power.SHORT_ANCHOR)
    powers.anchored_by[target] = seat
    events.append(_used(state, seat, Power.SHORT_ANCHOR, target_seat=target))
    if _can_shield(state, powers, target):
        window = ResponseWindow(window_id=f"h{hand.number}-r{int(hand.street)}-s{target}",
                                target=target, attacker=seat,
                                deadline_ms=at_ms + state.config.shield_window_ms)
        powers.windows.append(window)
        powers.anchors[target] = "pending"
        events.append(WindowOpened(window_id=window.window_id, target=target, attacker=seat,
                                   deadline_ms=window.deadline_ms))
    else:
        # The target cannot answer (Seal Shield not in the Carousel, already used, or not
        # affordable): a window would only make everyone wait, so the Anchor applies now.
        powers.anchors[target] = "applied"
        events.append(AnchorApplied(target=target, attacker=seat))


def _can_shield(state: TableState, powers: PowersState, seat: int) -> bool:
    """Whether *seat* could answer an Anchor with Seal Shield (before its window opens), as
    :func:`_verify_shield` decides once the window is open."""
    try:
        _verify_shield_owned(state, powers, seat)
    except PowerRejected:
        return False
    return True


def _seal_shield(state: TableState, hand: HandState, powers: PowersState, seat: int,
                 events: list[Event]) -> None:
    """R6.4/R6.7: cancel the Anchor aimed at you; uses neither a table slot nor your one power
    of the turn."""
    window = powers.window_for(seat)
    assert window is not None
    _pay(state, powers, seat, Power.SEAL_SHIELD, counts=False)
    events.append(_used(state, seat, Power.SEAL_SHIELD, target_seat=window.attacker))
    powers.windows.remove(window)
    powers.anchors[seat] = "shielded"
    events.append(WindowClosed(window_id=window.window_id, target=seat, reason="shielded"))


def pass_window(state: TableState, c: PassWindow, events: list[Event]) -> None:
    """The target lets the Anchor apply and spends nothing (R6.5)."""
    hand, powers = _hand_with_powers(state)
    if powers.window_for(c.seat_index) is None:
        raise PowerRejected("there is no open window aimed at you", code="no_open_window",
                            rule_id="R6.5")
    _close_window(hand, powers, c.seat_index, "passed", events)


def window_timeout(state: TableState, c: WindowTimeout, events: list[Event]) -> None:
    """The window's timer fired: the Anchor applies (R6.5). A stale id is rejected."""
    hand, powers = _hand_with_powers(state)
    window = next((w for w in powers.windows if w.window_id == c.window_id), None)
    if window is None:
        raise PowerRejected(f"window {c.window_id!r} is not open", code="no_open_window",
                            rule_id="R6.5")
    _close_window(hand, powers, window.target, "timed_out", events)


def _close_window(hand: HandState, powers: PowersState, target: int, reason: str,
                  events: list[Event]) -> None:
    window = powers.window_for(target)
    assert window is not None
    powers.windows.remove(window)
    powers.anchors[target] = "applied"
    events.append(WindowClosed(window_id=window.window_id, target=target, reason=reason))
    events.append(AnchorApplied(target=target, attacker=window.attacker))


def _used(state: TableState, seat: int, power: Power, *, card_index: int | None = None,
          target_seat: int | None = None) -> PowerUsed:
    player = state.seats[seat]
    assert player is not None
    return PowerUsed(seat_index=seat, power=power, destellos=player.destellos,
                     card_index=card_index, target_seat=target_seat)


def usable_powers(state: TableState, hand: HandState, seat: int) -> list[Power]:
    """Turn powers *seat* could activate right now (for the prompt), as
    :func:`verify_use_power` decides: a Sleeve Swap of either card, an Anchor at some target."""
    powers = hand.powers
    if powers is None or hand.actor != seat:
        return []
    usable: list[Power] = []
    for name in powers.carousel:
        power = Power(name)
        if power is Power.SEAL_SHIELD:
            continue
        if power is Power.SHORT_ANCHOR:
            if anchor_targets(state, hand, seat):
                usable.append(power)
        elif can_use_power(state, UsePower(seat_index=seat, power=power, card_index=0)):
            usable.append(power)
    return usable


def can_shield_now(state: TableState, hand: HandState, seat: int) -> bool:
    """Whether *seat* has an open window it could answer with Seal Shield."""
    return hand.powers is not None and can_use_power(
        state, UsePower(seat_index=seat, power=Power.SEAL_SHIELD))
