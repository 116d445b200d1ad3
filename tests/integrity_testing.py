"""Scripted hands with chosen cards for the integrity review's tests (R10.3)."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from itertools import count

from naiko.cards import parse_cards, rank_of, shuffled_deck
from naiko.commands import Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import Prompt, apply, legal_actions
from naiko.evaluator import evaluate
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


def _good(hole: list[int], board: list[int]) -> bool:
    """A made hand a plain player bets and calls with: a pocket pair, or a hole card paired
    on the board."""
    ranks = {rank_of(c) for c in board}
    return rank_of(hole[0]) == rank_of(hole[1]) or any(rank_of(c) in ranks for c in hole)


def heads_up_population(seed: int, hands: int) -> list[HandRecord]:
    """*hands* heads-up hands (blinds 1/2, 100 big blinds, a new table each) among eight
    accounts, seeded. C to F, L and U play plainly: after the flop, bet the pot or call with a
    made hand (:func:`_good`), bluff or call without one now and then, fold otherwise. L is
    dealt the better hand against U in half their hands (a lucky streak, played plainly). A
    dumps chips to B in half their hands, both knowing both hands: A bets the pot when it will
    lose and checks and folds to B's bet when it would win, B calls when it will win and bets
    when it would lose; their other hands are plain. A-B and L-U each meet in a quarter of
    the hands, random pairs in the rest."""
    rnd = random.Random(seed)
    accounts = ["A", "B", "L", "U", "C", "D", "E", "F"]
    records = []
    for _ in range(hands):
        roll = rnd.random()
        pair = ["A", "B"] if roll < 0.25 else ["L", "U"] if roll < 0.5 \
            else rnd.sample(accounts, 2)
        rnd.shuffle(pair)
        deck = shuffled_deck(rnd)
        holes = {pair[0]: deck[0:2], pair[1]: deck[2:4]}
        board = deck[4:9]
        if set(pair) == {"L", "U"} and rnd.random() < 0.5 \
                and evaluate([*holes["L"], *board]) < evaluate([*holes["U"], *board]):
            holes["L"], holes["U"] = holes["U"], holes["L"]
        dumping = set(pair) == {"A", "B"} and rnd.random() < 0.5
        wins = {p: evaluate([*holes[p], *board]) > evaluate([*holes[q], *board])
                for p, q in (pair, pair[::-1])}
        act = partial(_plain_or_dumping, rnd, holes, wins if dumping else None)
        records.append(played(holes, board, act))
    return records


def _plain_or_dumping(rnd: random.Random, holes: dict[str, list[int]],
                      wins: dict[str, bool] | None, player: str, prompt: Prompt,
                      seen: list[int]) -> tuple[str, int]:
    """A decision of :func:`heads_up_population` (*wins*: who wins at the showdown, in a
    hand that A and B play as dumper and taker)."""
    pot_bet = max(prompt.min_raise_to or 0, 2 * len(seen) + 4)
    free = prompt.to_call == 0
    if not seen:  # preflop: the button completes, the big blind checks
        return ("call", 0) if not free else ("check", 0)
    if wins is not None:  # A loses what it can, B takes it
        put_in = not wins[player] if player == "A" else wins[player]
        if free:
            return ("check", 0) if put_in == (player == "B") else ("bet", pot_bet)
        return ("call", 0) if put_in else ("fold", 0)
    good = _good(holes[player], seen)
    if free:
        return ("bet", pot_bet) if good or rnd.random() < 0.15 else ("check", 0)
    return ("call", 0) if good or rnd.random() < 0.25 else ("fold", 0)


def played(holes: dict[str, list[int]], board: list[int],
           act: Callable[[str, Prompt, list[int]], tuple[str, int]]) -> HandRecord:
    """One hand at a new table, players seated in *holes*' order (the first on the button),
    dealt those cards and *board*, each decision ``act(player, prompt, board seen)``."""
    players = list(holes)
    state = TableState.new(TableConfig(seat_count=len(players), small_blind=1, big_blind=2))
    for seat, player in enumerate(players):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=player, stack=200))
    trial, events = apply(state, StartHand(deck=tuple(range(52)), button=0))
    order = next(e for e in events if isinstance(e, HandStarted)).seats_dealt
    dealt = [c for seat in order for c in holes[players[seat]]] + list(board)
    deck = dealt + [c for c in range(52) if c not in dealt]
    state, _ = apply(state, StartHand(deck=tuple(deck), button=0))
    while (prompt := legal_actions(state)) is not None:
        seat = prompt.seat_index
        assert state.hand is not None
        action, amount = act(players[seat], prompt, list(state.hand.board))
        command: Command = {"fold": Fold(seat_index=seat), "check": Check(seat_index=seat),
                            "call": Call(seat_index=seat)}.get(action) or (
            Bet(seat_index=seat, amount=min(amount, prompt.max_raise_to or amount))
            if "bet" in prompt.actions
            else RaiseTo(seat_index=seat, amount=min(amount, prompt.max_raise_to or amount)))
        if command.kind not in prompt.actions:
            command = Call(seat_index=seat) if "call" in prompt.actions else Check(seat_index=seat)
        state, _ = apply(state, command)
    table_id = f"t{next(_tables)}"
    return build(state, table_id=table_id, table_name=table_id, kind="cash",
                 started_ms=1_767_225_600_000, ended_ms=1_767_225_630_000)
