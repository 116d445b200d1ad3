"""Property tests over random tables and random legal play (hypothesis).

Invariants (RULES.md §1–4): chips are conserved (R4.1, R4.2); no card is dealt twice (R1.1);
the advertised legal actions are exactly what ``apply`` accepts (R3.1); every hand terminates
(R2.4, R4.3); no view shows another seat's hidden cards or the deck; the state round-trips
through its dict form.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko.cards import FULL_DECK, seeded_random, shuffled_deck
from naiko.commands import (
    AddChips,
    AllIn,
    Bet,
    Call,
    CancelHand,
    Check,
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
from naiko.engine import Prompt, apply, apply_in_place, legal_actions
from naiko.errors import EngineError, NotYourTurn
from naiko.events import Event
from naiko.state import AnteMode, TableConfig, TableState, Variant
from naiko.views import events_for, view_for
from naiko_testing import cards_in, hidden_from, player_at, shown_to_everyone

MAX_ACTIONS_PER_HAND = 400


@st.composite
def tables(draw: st.DrawFn) -> TableState:
    seat_count = draw(st.integers(2, 10))
    variant = draw(st.sampled_from([Variant.NLHE, Variant.PLO]))
    big_blind = draw(st.sampled_from([2, 10, 100]))
    small_blind = draw(st.sampled_from([big_blind // 2, big_blind // 4 or 1, big_blind]))
    ante_mode = draw(st.sampled_from(list(AnteMode)))
    ante = 0 if ante_mode is AnteMode.NONE else draw(st.integers(1, big_blind))
    config = TableConfig(variant=variant, seat_count=seat_count, small_blind=small_blind,
                         big_blind=big_blind, ante=ante, ante_mode=ante_mode)
    state = TableState.new(config)
    # stacks from less than a small blind to 300 big blinds; some seats empty
    stack_choices = st.one_of(st.integers(1, big_blind * 2), st.integers(1, big_blind * 300))
    seated = 0
    for seat in range(seat_count):
        if seated >= 2 and draw(st.booleans()) and draw(st.booleans()):
            continue
        stack = draw(stack_choices)
        state, _ = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}", stack=stack))
        seated += 1
    return state


def candidate_commands(p: Prompt) -> list[Command]:
    """Every kind of betting command, with amounts at and just outside the advertised range."""
    s = p.seat_index
    commands: list[Command] = [Fold(seat_index=s), Check(seat_index=s), Call(seat_index=s),
                               AllIn(seat_index=s)]
    amounts = {1, 2}
    if p.min_raise_to is not None and p.max_raise_to is not None:
        amounts |= {p.min_raise_to - 1, p.min_raise_to, p.max_raise_to, p.max_raise_to + 1,
                    (p.min_raise_to + p.max_raise_to) // 2}
    for amount in sorted(amounts):
        commands.append(Bet(seat_index=s, amount=amount))
        commands.append(RaiseTo(seat_index=s, amount=amount))
    return commands


def advertised(p: Prompt, command: Command) -> bool:
    if isinstance(command, Fold):
        return "fold" in p.actions
    if isinstance(command, Check):
        return "check" in p.actions
    if isinstance(command, Call):
        return "call" in p.actions
    if isinstance(command, AllIn):
        return "all_in" in p.actions
    kind = "bet" if isinstance(command, Bet) else "raise_to"
    amount = command.amount  # type: ignore[attr-defined]
    return (kind in p.actions and p.min_raise_to is not None and p.max_raise_to is not None
            and p.min_raise_to <= amount <= p.max_raise_to)


def check_views(state: TableState, events: list[Event]) -> None:
    """No view and no event shows a viewer another seat's hidden cards or the deck, during
    the hand and after its end: only the hands still in at a showdown are shown (R2.4, R4.4);
    the prompt goes to the seat to act only."""
    hand = state.hand
    assert hand is not None
    for viewer in [None, *range(state.config.seat_count)]:
        view = view_for(state, viewer, proofs=True)
        hidden = hidden_from(hand, player_at(state, viewer))
        seen = cards_in(view) | cards_in(events_for(events, viewer))
        assert not seen & hidden, (viewer, hand.complete, sorted(seen & hidden))
        for seat, entry in enumerate(view["seats"]):
            if entry is not None and entry.get("in_hand") and seat != viewer:
                assert (entry["cards"] is not None) == (seat in shown_to_everyone(hand)), \
                    (viewer, seat, hand.complete)
        if view["prompt"] is not None:
            assert view["prompt"]["seat_index"] == viewer


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=tables(), data=st.data())
def test_random_play_keeps_every_invariant(state: TableState, data: st.DataObject) -> None:
    total = state.total_chips()
    rng = seeded_random(data.draw(st.integers(0, 2**32)))
    for _ in range(data.draw(st.integers(1, 4))):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        button = rng.choice(active) if state.last_big_blind_seat is None else None
        state, events = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button,
                                               deck_seed=rng.randbytes(32).hex()))
        for _ in range(MAX_ACTIONS_PER_HAND):
            hand = state.hand
            assert hand is not None
            # R1.1: no card twice: hole cards, board and the rest of the deck are the deck
            dealt = [c for h in hand.hole for c in h] + hand.board + hand.deck
            assert sorted(dealt) == list(FULL_DECK)
            assert state.total_chips() == total
            assert all(s.stack >= 0 for s in state.seats if s)
            for viewer in range(state.config.seat_count):
                for event in events_for(events, viewer):
                    if event["kind"] == "hole_cards":
                        assert event["seat_index"] == viewer
            check_views(state, events)  # after the hand's end too
            if hand.complete:
                break
            p = legal_actions(state)
            assert p is not None
            before = state.to_dict()
            accepted = []
            for command in candidate_commands(p):
                try:
                    apply(state, command)
                    accepted.append(command)
                    ok = True
                except EngineError:
                    ok = False
                assert ok == advertised(p, command), (p, command)
                assert state.to_dict() == before  # apply never touches its input
            other = (p.seat_index + 1) % state.config.seat_count
            try:
                apply(state, Fold(seat_index=other))
                raise AssertionError("a seat acted out of turn")
            except NotYourTurn:
                pass
            command = data.draw(st.sampled_from(accepted))
            state, events = apply(state, command)
            if isinstance(command, Fold) and data.draw(st.booleans()):
                # The folded player leaves at once and a newcomer takes the seat with as many
                # chips, during the hand: the seat's secrets stay the folded player's.
                seat = command.seat_index
                stack = state.stack(seat)
                state, left = apply(state, StandUp(seat_index=seat))
                if stack:
                    state, joined = apply(state, SitDown(seat_index=seat, stack=stack,
                                                         player_id=f"new{seat}.{hand.number}"))
                    events = [*events, *left, *joined]
        else:
            raise AssertionError("the hand did not terminate")
        assert state.total_chips() == total
        assert TableState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_many_seeded_hands_terminate_and_conserve_chips() -> None:
    rng = seeded_random(2024)
    for table_number in range(200):
        seat_count = rng.randint(2, 10)
        config = TableConfig(variant=rng.choice([Variant.NLHE, Variant.PLO]),
                             seat_count=seat_count, small_blind=1, big_blind=2)
        state = TableState.new(config)
        for seat in range(seat_count):
            state, _ = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}",
                                            stack=rng.choice([1, 3, 40, 200, 1000])))
        total = state.total_chips()
        for _ in range(10):
            active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
            if len(active) < 2:
                break
            button = active[0] if state.last_big_blind_seat is None else None
            state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button))
            for _ in range(MAX_ACTIONS_PER_HAND):
                p = legal_actions(state)
                if p is None:
                    break
                action = rng.choice(p.actions)
                s = p.seat_index
                command: Command
                if action in ("bet", "raise_to"):
                    assert p.min_raise_to is not None and p.max_raise_to is not None
                    amount = rng.randint(p.min_raise_to, p.max_raise_to)
                    command = (Bet(seat_index=s, amount=amount) if action == "bet"
                               else RaiseTo(seat_index=s, amount=amount))
                else:
                    command = {"fold": Fold, "check": Check, "call": Call,
                               "all_in": AllIn}[action](seat_index=s)
                state, _ = apply(state, command)
            assert state.hand is not None and state.hand.complete, table_number
            assert state.total_chips() == total


# -- Naiko mode ------------------------------------------------------------------------------

def _power_attempts(state: TableState, rng: object) -> list[Command]:
    from naiko.commands import PassWindow, UsePower, WindowTimeout

    n = state.config.seat_count
    hand = state.hand
    assert hand is not None and hand.powers is not None
    attempts: list[Command] = []
    for seat in range(n):
        attempts.append(UsePower(seat_index=seat, power="peek"))
        attempts.append(UsePower(seat_index=seat, power="seal_shield"))
        attempts.append(PassWindow(seat_index=seat))
        for card_index in (0, 1, 2):
            attempts.append(UsePower(seat_index=seat, power="sleeve_swap",
                                     card_index=card_index))
        for target in range(n):
            attempts.append(UsePower(seat_index=seat, power="short_anchor", target_seat=target,
                                     at_ms=1000))
    for window in hand.powers.windows:
        attempts.append(WindowTimeout(window_id=window.window_id))
    attempts.append(WindowTimeout(window_id="h0-r0-s0"))
    return attempts


def check_private_information(state: TableState, events: list[Event]) -> None:
    """R6.1/R6.2 and R4.4: nobody's view or events show another seat's hole cards (unless
    shown at a showdown) or an undealt card, except the viewer's own peek; after the hand's
    end too."""
    hand = state.hand
    assert hand is not None and hand.powers is not None
    for viewer in [None, *range(state.config.seat_count)]:
        seen = cards_in(view_for(state, viewer)) | cards_in(events_for(events, viewer))
        forbidden = hidden_from(hand, player_at(state, viewer))
        assert not seen & forbidden, (viewer, hand.complete, seen & forbidden)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seat_count=st.integers(2, 8), data=st.data())
def test_random_naiko_hands_keep_every_invariant(seat_count: int, data: st.DataObject) -> None:
    from naiko.powers import ALLOWED_CAROUSELS, MAX_DESTELLOS, draw_carousel

    rng = seeded_random(data.draw(st.integers(0, 2**32)))
    config = TableConfig(variant=Variant.NAIKO, seat_count=seat_count, small_blind=1,
                         big_blind=2)
    state = TableState.new(config)
    for seat in range(seat_count):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=f"p{seat}",
                                        stack=rng.choice([3, 40, 200])))
    total = state.total_chips()
    for _ in range(data.draw(st.integers(1, 5))):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        button = active[0] if state.last_big_blind_seat is None else None
        state, events = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button,
                                               carousel=draw_carousel(rng)))
        hand = state.hand
        assert hand is not None and hand.powers is not None
        assert tuple(hand.powers.carousel) in ALLOWED_CAROUSELS
        for _ in range(MAX_ACTIONS_PER_HAND):
            hand = state.hand
            assert hand is not None
            assert all(s is None or 0 <= s.destellos <= MAX_DESTELLOS for s in state.seats)
            assert state.total_chips() == total
            dealt = [c for h in hand.hole for c in h] + hand.board + hand.deck
            assert hand.powers is not None
            assert sorted(dealt + hand.powers.discarded) == list(FULL_DECK)
            check_private_information(state, events)
            if hand.complete:
                break
            if data.draw(st.booleans()):
                attempts = _power_attempts(state, rng)
                command = data.draw(st.sampled_from(attempts))
                work = state.copy()  # apply_in_place, not apply (which copies first)
                before = work.to_dict()
                try:
                    events = apply_in_place(work, command)
                    state = work
                    continue
                except EngineError:
                    assert work.to_dict() == before  # a rejected attempt costs nothing (R5.7)
            p = legal_actions(state)
            assert p is not None
            action = data.draw(st.sampled_from(p.actions))
            s = p.seat_index
            if action in ("bet", "raise_to"):
                assert p.min_raise_to is not None and p.max_raise_to is not None
                amount = data.draw(st.integers(p.min_raise_to, p.max_raise_to))
                command = (Bet(seat_index=s, amount=amount) if action == "bet"
                           else RaiseTo(seat_index=s, amount=amount))
            else:
                command = {"fold": Fold, "check": Check, "call": Call,
                           "all_in": AllIn}[action](seat_index=s)
            state, events = apply(state, command)
        else:
            raise AssertionError("the hand did not terminate")


# -- a rejected command changes nothing ------------------------------------------------------

POWER_NAMES = ("peek", "sleeve_swap", "short_anchor", "seal_shield", "x_ray")
"""The four powers and one that does not exist."""


def commands_of_every_kind(state: TableState, rng: random.Random) -> list[Command]:
    """Commands of every kind for the seat to act, another seat and seats that do not exist,
    with amounts and parameters at, inside and outside what the rules allow: most of them are
    illegal now."""
    n = state.config.seat_count
    hand = state.hand
    actor = hand.actor if hand is not None and hand.actor is not None else rng.randrange(n)
    other = rng.choice([s for s in range(n) if s != actor])
    p = legal_actions(state)
    amounts = {-1, 0, 1, state.config.big_blind, state.stack(actor) + 1, 10**9}
    if hand is not None:
        all_in_to = state.stack(actor) + hand.bets[actor]
        amounts |= {hand.current_bet, all_in_to, all_in_to + 1}
    if p is not None and p.min_raise_to is not None and p.max_raise_to is not None:
        amounts |= {p.min_raise_to - 1, p.min_raise_to, p.max_raise_to, p.max_raise_to + 1}
    deck = shuffled_deck(rng)
    window_ids = ["h0-r0-s0"]
    if hand is not None and hand.powers is not None:
        window_ids += [w.window_id for w in hand.powers.windows]
    carousels = [(), ("peek", "sleeve_swap", "short_anchor"), ("peek", "sleeve_swap"),
                 ("peek", "sleeve_swap", "seal_shield")]
    commands: list[Command] = [
        CancelHand(),
        *(WindowTimeout(window_id=w) for w in window_ids),
        StartHand(deck=tuple(deck), button=rng.choice([None, actor, -1, n]),
                  carousel=rng.choice(carousels)),
        StartHand(deck=(*deck[:-1], deck[0]), button=actor, carousel=rng.choice(carousels)),
    ]
    for seat in (actor, other, -1, n):
        commands += [Fold(seat_index=seat), Check(seat_index=seat), Call(seat_index=seat),
                     AllIn(seat_index=seat), StandUp(seat_index=seat), SitOut(seat_index=seat),
                     SitIn(seat_index=seat), PassWindow(seat_index=seat)]
        commands += [Bet(seat_index=seat, amount=a) for a in amounts]
        commands += [RaiseTo(seat_index=seat, amount=a) for a in amounts]
        commands += [AddChips(seat_index=seat, amount=a) for a in (-1, 0, 5)]
        commands += [SitDown(seat_index=seat, player_id=player, stack=stack)
                     for player in ("p0", f"new{seat}") for stack in (-1, 0, 50)]
        for power in POWER_NAMES:
            for _ in range(4):
                commands.append(UsePower(
                    seat_index=seat, power=power,
                    card_index=rng.choice([None, -1, 0, 1, 2]),
                    target_seat=rng.choice([None, -1, seat, other, actor, n]),
                    at_ms=rng.choice([-1, 0, 1000])))
    return commands


def assert_rejections_change_nothing(state: TableState, commands: list[Command]) -> None:
    """R5.7 and the engine's promise: every rejected command leaves the state it was applied
    to as it was. Each command goes to ``apply_in_place`` on a copy made here (``apply`` would
    copy first and hide a handler that changes the state before it raises)."""
    before = state.to_dict()
    for command in commands:
        work = state.copy()
        try:
            apply_in_place(work, command)
        except EngineError as error:
            after = work.to_dict()
            assert after == before, (command, error.code, _first_difference(before, after))


def _first_difference(before: object, after: object, path: str = "") -> str:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before:
            if before[key] != after.get(key):
                return _first_difference(before[key], after.get(key), f"{path}.{key}")
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (b, a) in enumerate(zip(before, after, strict=True)):
            if b != a:
                return _first_difference(b, a, f"{path}[{index}]")
    return f"{path}: {before!r} -> {after!r}"


def _next_legal_command(state: TableState, rng: random.Random) -> Command | None:
    """A legal command that moves the table on: a new hand, a power (Naiko), an answer to a
    Short Anchor's window, or a betting action; ``None`` when the table cannot play on."""
    from naiko.powers import anchor_targets, draw_carousel

    hand = state.hand
    if hand is None or hand.complete:
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            return None
        button = rng.choice(active) if state.last_big_blind_seat is None else None
        carousel = draw_carousel(rng) if state.config.rules.powers else ()
        return StartHand(deck=tuple(shuffled_deck(rng)), button=button, carousel=carousel)
    p = legal_actions(state)
    assert p is not None
    s = p.seat_index
    if hand.powers is not None and hand.powers.windows and rng.random() < 0.3:
        from naiko.powers import PowerRejected, verify_use_power

        window = rng.choice(hand.powers.windows)
        answers: list[Command] = [WindowTimeout(window_id=window.window_id),
                                  PassWindow(seat_index=window.target)]
        shield = UsePower(seat_index=window.target, power="seal_shield")
        try:  # the engine's own check: a target without destellos cannot shield
            verify_use_power(state, shield)
            answers.append(shield)
        except PowerRejected:
            pass
        return rng.choice(answers)
    if p.powers and rng.random() < 0.5:
        power = rng.choice(p.powers)
        if power == "short_anchor":
            return UsePower(seat_index=s, power=power, at_ms=0,
                            target_seat=rng.choice(anchor_targets(state, hand, s)))
        return UsePower(seat_index=s, power=power, card_index=rng.choice([0, 1]))
    action = rng.choice(p.actions)
    if action in ("bet", "raise_to"):
        assert p.min_raise_to is not None and p.max_raise_to is not None
        amount = rng.randint(p.min_raise_to, p.max_raise_to)
        return (Bet(seat_index=s, amount=amount) if action == "bet"
                else RaiseTo(seat_index=s, amount=amount))
    return {"fold": Fold, "check": Check, "call": Call, "all_in": AllIn}[action](seat_index=s)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from([Variant.NLHE, Variant.PLO, Variant.NAIKO]),
       seat_count=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_a_rejected_command_changes_nothing_in_place(variant: Variant, seat_count: int,
                                                       seed: int) -> None:
    rng = seeded_random(seed)
    state = TableState.new(TableConfig(variant=variant, seat_count=seat_count, small_blind=1,
                                       big_blind=2))
    for seat in range(seat_count):
        if seat >= 2 and rng.random() < 0.2:
            continue  # an empty seat
        apply_in_place(state, SitDown(seat_index=seat, player_id=f"p{seat}",
                                      stack=rng.choice([1, 3, 40, 200])))
        seat_state = state.seats[seat]
        assert seat_state is not None
        seat_state.destellos = rng.randrange(3) if variant is Variant.NAIKO else 0
    hands = 0
    for _ in range(MAX_ACTIONS_PER_HAND):
        commands = commands_of_every_kind(state, rng)
        assert_rejections_change_nothing(state, rng.sample(commands, 40))
        command = _next_legal_command(state, rng)
        if command is None:
            break
        if isinstance(command, StartHand):
            hands += 1
            if hands > 3:
                break
        apply_in_place(state, command)
