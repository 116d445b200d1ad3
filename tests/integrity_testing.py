"""Scripted hands with chosen cards for the integrity review's tests (R10.3)."""

from __future__ import annotations

from itertools import count

from naiko.cards import parse_cards
from naiko.commands import Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import apply, legal_actions
from naiko.events import HandStarted
from naiko.state import TableConfig, TableState
from naiko_service.hand_records import HandRecord, build

_tables = count()


def scripted(holes: dict[str, str], board: str, script: list[tuple[str, str, int]],
             kind: str = "cash", stack: int = 200) -> HandRecord:
    """One hand at a new table: players seated in *holes*' order (the first on the button),
    dealt those cards and *board*, playing *script* (player, fold/check/call/bet/raise, to)."""
    players = list(holes)
    state = TableState.new(TableConfig(seat_count=len(players), small_blind=1, big_blind=2))
    for seat, player in enumerate(players):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=player, stack=stack))
    trial, events = apply(state, StartHand(deck=tuple(range(52)), button=0))
    order = next(e for e in events if isinstance(e, HandStarted)).seats_dealt
    dealt = [c for seat in order for c in parse_cards(holes[players[seat]])]
    dealt += parse_cards(board)
    deck = dealt + [c for c in range(52) if c not in dealt]
    state, _ = apply(state, StartHand(deck=tuple(deck), button=0))
    for player, action, amount in script:
        prompt = legal_actions(state)
        assert prompt is not None, f"nobody to act for {player} {action}"
        seat = players.index(player)
        assert prompt.seat_index == seat, f"{player} is not to act"
        command: Command = {"fold": Fold(seat_index=seat), "check": Check(seat_index=seat),
                            "call": Call(seat_index=seat)}.get(action) or (
            Bet(seat_index=seat, amount=amount) if action == "bet"
            else RaiseTo(seat_index=seat, amount=amount))
        state, _ = apply(state, command)
    assert state.hand is not None and state.hand.complete, "the script left the hand open"
    table_id = f"t{next(_tables)}"
    return build(state, table_id=table_id, table_name=table_id, kind=kind,
                 started_ms=1_767_225_600_000, ended_ms=1_767_225_630_000)


def strong_fold(giver: str = "A", taker: str = "B") -> HandRecord:
    """The giver, on the button with Aces, folds to the taker's raise holding 7-2."""
    return scripted({giver: "AhAd", taker: "7c2d"}, "Ks9h4c2s3d",
                    [(giver, "call", 0), (taker, "raise", 12), (giver, "fold", 0)])


def weak_call(giver: str = "A", taker: str = "B") -> HandRecord:
    """The giver calls the taker's all-in with 7-2 against Aces."""
    return scripted({giver: "7c2d", taker: "AhAd"}, "Ks9h4c3s8d",
                    [(giver, "raise", 6), (taker, "raise", 200), (giver, "call", 0)])


def cooler(loser: str = "A", winner: str = "B") -> HandRecord:
    """Kings against Aces, all in preflop: a big loss with a strong hand, nobody's gift."""
    return scripted({loser: "KhKd", winner: "AhAc"}, "Qs9h4c3s8d",
                    [(loser, "raise", 6), (winner, "raise", 200), (loser, "call", 0)])


def normal(a: str, b: str, aggressive: bool = True) -> HandRecord:
    """A heads-up hand with a bet on the flop (or checked down when not *aggressive*)."""
    if aggressive:
        script = [(a, "call", 0), (b, "check", 0), (b, "bet", 4), (a, "fold", 0)]
    else:
        script = [(a, "call", 0), (b, "check", 0)] + [(b, "check", 0), (a, "check", 0)] * 3
    return scripted({a: "QhJh", b: "9c8c"}, "2s5d7hKcAs", script)
