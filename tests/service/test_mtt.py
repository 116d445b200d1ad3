"""Scheduled multi-table tournaments through the service, with positions worked by hand
(R9.7 balancing, breaking and the final table; R9.8 hand-for-hand; R9.5 its ties).

Each test starts a real scheduled tournament of BOTs (:class:`naiko_local.tournament.Simulation`:
the in-memory adapters, the real service and timers, virtual time), stops when its tables are
written and before they deal, and then lays the players out by hand: which seats are taken,
where last hand's blinds were, who is already out (their chips go to another player, so the
tournament's chips stay whole). Then one table's timer fires, and the test checks what the
service did against the position worked out in its docstring.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
import tournament_testing
from naiko.state import Seat, Variant
from naiko_local.tournament import Simulation, VirtualScheduler, terms_for
from naiko_service.ports import PutItem, PutTournament, TournamentNotFound
from naiko_service.records import TableRecord, TimerKind
from naiko_service.tournament_records import TournamentRecord, TournamentStatus
from naiko_service.usecases import mtt, tournament_log, transaction
from naiko_service.usecases.tournament_log import Out

PLAYERS = 13
"""Three 6-seat tables at the start (5, 4 and 4 players)."""


def started(players: int = PLAYERS, seats: int = 6, seed: int = 1) -> Simulation:
    """A scheduled tournament just started: its tables written, none dealt yet."""
    return tournament_testing.started(players, seed, seat_count=seats)


def tournament(simulation: Simulation) -> TournamentRecord:
    return simulation.tournaments.load(simulation.tournament_id)


def table(simulation: Simulation, number: int) -> TableRecord:
    seating = tournament(simulation).seating
    assert seating is not None
    return simulation.store.load(seating.table_ids[number])


def arrange(simulation: Simulation, layouts: dict[int, dict[int, str]],
            blinds: dict[int, tuple[int, int]]) -> dict[str, str]:
    """Lay the tournament out by hand: ``layouts[table][seat] = name`` (names are local to the
    test: the BOTs get them in order), ``blinds[table] = (last big blind seat, last small blind
    position)``. Players left over are out: their chips go to the first player placed, and
    the tournament counts them gone. Returns name -> player id."""
    record = tournament(simulation)
    seating = record.seating
    assert seating is not None
    tables = {n: table(simulation, n) for n in seating.table_ids}
    pool: list[tuple[Seat, str | None]] = []
    for number in sorted(tables):
        t = tables[number]
        for seat in t.state.seats:
            if seat is not None:
                pool.append((seat, t.room.funding.get(seat.player_id)))
        t.state.seats = [None] * t.state.config.seat_count
        t.room.funding.clear()
    names: dict[str, str] = {}
    placed: list[Seat] = []
    for number in sorted(layouts):
        t = tables[number]
        for index, name in sorted(layouts[number].items()):
            seat, account = pool.pop(0)
            names[name] = seat.player_id
            t.state.seats[index] = seat
            placed.append(seat)
            if account is not None:
                t.room.funding[seat.player_id] = account
        bb, sb = blinds.get(number, (None, None))  # type: ignore[arg-type]
        t.state.last_big_blind_seat, t.state.last_small_blind_position = bb, sb
        t.state.hand_count = 1 if bb is not None else 0
    placed[0].stack += sum(seat.stack for seat, _ in pool)  # the players out: chips kept
    new = record.copy()
    new.version += 1
    assert new.seating is not None
    new.players_left = len(placed)
    new.seating.counts = {n: len(layouts[n]) for n in layouts}
    new.seating.table_ids = {n: tables[n].table_id for n in layouts}
    new.tables = [tables[n].table_id for n in sorted(layouts)]
    for number, t in tables.items():
        assert t.tournament is not None
        t.tournament = replace(t.tournament, players_left=new.players_left)
        if number not in layouts:  # a table the test does not use: gone
            t.closed = True
            t.timers = []
        simulation.store.save(t, t.version)
    simulation.tournaments.commit((PutTournament(new, record.version),))
    return names


def deal(simulation: Simulation, number: int) -> None:
    """Table *number*'s next-hand timer fires."""
    record = table(simulation, number)
    timer = next(t for t in record.timers if t.kind is TimerKind.NEXT_HAND)
    simulation.clock.now = max(simulation.clock.now, timer.due_ms)
    simulation.service.timer_fired(record.table_id, timer.token)


def where(simulation: Simulation, player: str) -> list[tuple[int, int]]:
    """(table number, seat) of every seat *player* has (one, if all is well)."""
    seating = tournament(simulation).seating
    assert seating is not None
    found = []
    for number in seating.table_ids:
        for index, seat in enumerate(table(simulation, number).state.seats):
            if seat is not None and seat.player_id == player:
                found.append((number, index))
    return found


def total_chips(simulation: Simulation) -> int:
    seating = tournament(simulation).seating
    assert seating is not None
    return sum(table(simulation, n).state.total_chips() for n in seating.table_ids)


def log(simulation: Simulation, kind: str) -> list[dict[str, Any]]:
    from naiko_service.usecases import tournaments

    return [e for e in tournaments.export_log(simulation.service.deps, simulation.tournament_id)
            if e["type"] == kind]


# -- R9.7: balancing -----------------------------------------------------------------------------

def test_r9_7_the_next_big_blind_moves_to_the_short_tables_worst_position() -> None:
    """Table 1 (six players a..f on seats 0-5; last hand's big blind on seat 2, small blind on
    seat 1) has two more than table 2 (g, h, i, j on seats 0, 1, 3, 4; last big blind on seat
    4). Table 1's next big blind is d (seat 3, the next seat after 2): d moves, in one write
    of both tables and the tournament, to the empty seat table 2's big blind reaches first:
    seat 5 (after seat 4), where d is table 2's next big blind (dealt in, nothing skipped).
    Table 1 deals its hand with the five left."""
    simulation = started(players=10)  # two tables of five
    names = arrange(simulation, {1: dict(enumerate("abcdef")),
                                 2: {0: "g", 1: "h", 3: "i", 4: "j"}},
                    {1: (2, 1), 2: (4, 3)})
    chips = total_chips(simulation)
    stack = table(simulation, 1).state.seats[3].stack  # type: ignore[union-attr]
    versions = (table(simulation, 1).version, table(simulation, 2).version,
                tournament(simulation).version)
    deal(simulation, 1)
    assert where(simulation, names["d"]) == [(2, 5)]
    moved = table(simulation, 2)
    assert moved.state.seats[5].stack == stack  # type: ignore[union-attr]
    assert moved.tournament is not None and 5 not in moved.tournament.waiting
    assert moved.version == versions[1] + 1  # one write: the move
    assert tournament(simulation).version == versions[2] + 1
    seating = tournament(simulation).seating
    assert seating is not None and seating.counts == {1: 5, 2: 5} and not seating.pending
    assert table(simulation, 1).state.hand_in_progress  # table 1 deals with five
    assert total_chips(simulation) == chips
    (entry,) = log(simulation, "moved")
    assert (entry["player"], entry["seat"], entry["stack"]) == (names["d"], 5, stack)
    # Table 2's next hand: d, on seat 5, is its big blind (R9.7: the worst position).
    deal(simulation, 2)
    hand = table(simulation, 2).state.hand
    assert hand is not None and hand.big_blind_seat == 5 and hand.dealt[5]


def test_r9_7_a_balancing_move_writes_both_tables_in_the_moves_transaction(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The position of the test above; the process dies right after table 1's write (none of
    its follow-ups run). The move is in that one transaction: d already sits at table 2, with
    the same stack, and no chip is lost. (Writing table 2 after the commit would leave d at
    no table; the random property test then waits forever for a table that never fills.)"""
    simulation = started(players=10)
    names = arrange(simulation, {1: dict(enumerate("abcdef")),
                                 2: {0: "g", 1: "h", 3: "i", 4: "j"}},
                    {1: (2, 1), 2: (4, 3)})
    chips = total_chips(simulation)
    stack = table(simulation, 1).state.seats[3].stack  # type: ignore[union-attr]
    monkeypatch.setattr(transaction, "run_after", lambda deps, table_id, outcome: None)
    deal(simulation, 1)
    assert where(simulation, names["d"]) == [(2, 5)]
    assert table(simulation, 2).state.seats[5].stack == stack  # type: ignore[union-attr]
    assert total_chips(simulation) == chips
    seating = tournament(simulation).seating
    assert seating is not None and seating.counts == {1: 5, 2: 5} and not seating.pending


def test_r9_7_no_move_within_one_player_of_the_shortest_table() -> None:
    """Five against four: no move; table 1 deals with its five."""
    simulation = started(players=10)
    arrange(simulation, {1: {0: "a", 1: "b", 2: "c", 3: "d", 4: "e"},
                         2: {0: "g", 1: "h", 3: "i", 4: "j"}}, {1: (2, 1), 2: (4, 3)})
    deal(simulation, 1)
    seating = tournament(simulation).seating
    assert seating is not None and seating.counts == {1: 5, 2: 4} and not seating.pending
    assert table(simulation, 1).state.hand_in_progress and not log(simulation, "moved")


def test_r9_7_a_move_waits_for_the_hand_in_progress_at_the_destination() -> None:
    """Table 2 is playing a hand when table 1 decides to move d there: the move is recorded
    (counted at both tables), table 1 holds (no deal without d, who has not left), and the
    move happens when table 2 is between hands, in table 2's write."""
    simulation = started(players=10)
    names = arrange(simulation, {1: dict(enumerate("abcdef")),
                                 2: {0: "g", 1: "h", 3: "i", 4: "j"}},
                    {1: (2, 1), 2: (4, 3)})
    deal(simulation, 2)  # table 2 is in a hand
    assert table(simulation, 2).state.hand_in_progress
    deal(simulation, 1)
    seating = tournament(simulation).seating
    assert seating is not None
    assert [(m.player_id, m.from_table, m.to_table) for m in seating.pending] == [
        (names["d"], 1, 2)]
    assert seating.counts == {1: 5, 2: 5}
    assert where(simulation, names["d"]) == [(1, 3)]
    held = table(simulation, 1)
    assert not held.state.hand_in_progress and held.tournament is not None
    assert held.tournament.hold == "move"
    # Table 2 plays its hand to the end: between hands, it takes d.
    while table(simulation, 2).state.hand_in_progress or where(simulation, names["d"]) == [
            (1, 3)]:
        assert simulation.step()
    assert len(where(simulation, names["d"])) == 1 and where(simulation, names["d"])[0][0] == 2
    seating = tournament(simulation).seating
    assert seating is not None and not seating.pending


def test_r9_7_seven_against_three_is_five_and_five_before_the_next_hand() -> None:
    """Table 1 (9 seats) holds a..g on seats 0-6, last big blind on seat 2; table 2 holds three.
    Seven against three: table 1's next big blind (d, seat 3) moves, then the next one (e,
    seat 4), until table 1 is within one of table 2 (5 and 5), both before table 1 deals: it
    deals with five, not six. Each move is logged when decided (``move_planned``, reason
    ``balance``) and when done (``moved``); the ``hand`` entry says when the hand was dealt."""
    simulation = started(players=18, seats=9)  # two tables of nine
    names = arrange(simulation, {1: dict(enumerate("abcdefg")), 2: {0: "h", 3: "i", 6: "j"}},
                    {1: (2, 1), 2: (3, 0)})
    chips = total_chips(simulation)
    deal(simulation, 1)
    seating = tournament(simulation).seating
    assert seating is not None and seating.counts == {1: 5, 2: 5} and not seating.pending
    for name in "de":
        assert len(where(simulation, names[name])) == 1
        assert where(simulation, names[name])[0][0] == 2
    one = table(simulation, 1)
    assert one.state.hand is not None and sum(one.state.hand.dealt) == 5
    assert total_chips(simulation) == chips
    one_id, two_id = one.table_id, table(simulation, 2).table_id
    planned = log(simulation, "move_planned")
    assert [(e["player"], e["from_table"], e["to_table"], e["reason"]) for e in planned] == [
        (names["d"], one_id, two_id, "balance"), (names["e"], one_id, two_id, "balance")]
    moved = log(simulation, "moved")
    assert [e["player"] for e in moved] == [names["d"], names["e"]]
    assert all(p["at_ms"] <= m["at_ms"] for p, m in zip(planned, moved, strict=True))
    # The hand's log entry: dealt at started_ms, ended at at_ms.
    while table(simulation, 1).state.hand_in_progress:
        assert simulation.step()
    (hand,) = [e for e in log(simulation, "hand") if e["table"] == one_id]
    assert hand["started_ms"] == table(simulation, 1).hand_started_ms <= hand["at_ms"]
    assert len(hand["stacks_before"]) == 5


def test_r9_7_moves_waiting_for_the_destinations_hand_are_all_decided_at_once() -> None:
    """As above, with table 2 playing a hand: both moves are decided (counted at both tables:
    5 and 5) and table 1 holds; when table 2's hand ends it takes both players, which releases
    table 1, and table 1 then deals with five."""
    simulation = started(players=18, seats=9)
    names = arrange(simulation, {1: dict(enumerate("abcdefg")), 2: {0: "h", 3: "i", 6: "j"}},
                    {1: (2, 1), 2: (3, 0)})
    deal(simulation, 2)
    deal(simulation, 1)
    seating = tournament(simulation).seating
    assert seating is not None and seating.counts == {1: 5, 2: 5}
    assert [(m.player_id, m.to_table) for m in seating.pending] == [(names["d"], 2),
                                                                    (names["e"], 2)]
    held = table(simulation, 1)
    assert held.tournament is not None and held.tournament.hold == "move"
    assert not held.state.hand_in_progress
    while not table(simulation, 1).state.hand_in_progress:
        assert simulation.step()
    hand = table(simulation, 1).state.hand
    assert hand is not None and sum(hand.dealt) == 5
    assert {where(simulation, names[n])[0][0] for n in "de"} == {2}
    seating = tournament(simulation).seating
    assert seating is not None and not seating.pending


def test_r9_7_no_balancing_move_to_the_table_next_to_break_while_another_can_take() -> None:
    """Three 9-seat tables, 19 players (three needed): table 1 has eight, table 2 six, table 3
    (the highest number: next to break) five. Table 1 is two over both: its next big blind goes
    to table 2, though table 3 is shorter; then seven against five, and no other table two
    under table 1: table 3 takes the next one (6, 7, 6)."""
    simulation = started(players=27, seats=9)  # three tables of nine
    names = arrange(simulation, {1: dict(enumerate("abcdefgh")),
                                 2: {0: "i", 2: "j", 3: "k", 5: "l", 6: "m", 8: "n"},
                                 3: {0: "o", 1: "p", 3: "q", 4: "r", 6: "s"}},
                    {1: (2, 1), 2: (3, 2), 3: (1, 0)})
    deal(simulation, 1)
    seating = tournament(simulation).seating
    assert seating is not None and seating.counts == {1: 6, 2: 7, 3: 6}
    assert where(simulation, names["d"])[0][0] == 2 and where(simulation, names["e"])[0][0] == 3
    planned = log(simulation, "move_planned")
    assert [e["to_table"][-1] for e in planned] == ["2", "3"]


def test_r9_7_a_move_to_a_table_that_starts_breaking_goes_to_the_shortest_instead() -> None:
    """Moves decided to table 3 (a balancing move from table 1, a late entrant's seat) wait for
    its hand; then the field falls to 18, which fits at two 9-seat tables: table 3 (the highest
    number) breaks, and the moves not done yet go to the then shortest table instead
    (``move_cancelled`` and a new ``move_planned`` in the log), so nobody sits down at a table
    being broken only to move again."""
    simulation = started(players=27, seats=9)
    arrange(simulation, {1: dict(enumerate("abcdefg")), 2: dict(enumerate("hijkl")),
                         3: dict(enumerate("mnop"))}, {1: (2, 1), 2: (3, 2), 3: (1, 0)})
    record = tournament(simulation)
    new = record.copy()
    new.version += 1
    seating = new.seating
    assert seating is not None
    from naiko_service.tournament_records import PendingMove

    writes: list[Any] = []
    mtt._plan(new, PendingMove("a-player", 1, 3, "balance", 0), 0, writes)
    mtt._plan(new, PendingMove("late-one", 0, 3, "late", 0), 0, writes)
    assert seating.counts == {1: 6, 2: 5, 3: 6}
    new.players_left = 17  # one out somewhere: 17 fit at two tables
    seating.counts[2] -= 1
    mtt._mark_breaking(new, 1, writes)
    assert seating.breaking == [3]
    assert sorted((m.player_id, m.from_table, m.to_table) for m in seating.pending) == [
        ("a-player", 1, 2), ("late-one", 0, 2)]
    assert seating.counts == {1: 6, 2: 6, 3: 4}
    kinds = [w.data["type"] for w in writes]
    assert kinds == ["move_planned"] * 2 + ["move_cancelled", "move_planned"] * 2
    # A balancing move no longer needed once its destination breaks is dropped: 6 against 6.
    new.seating.pending = []
    seating.breaking = []
    seating.counts = {1: 6, 2: 6, 3: 5}
    mtt._plan(new, PendingMove("a-player", 1, 3, "balance", 0), 0, writes)
    mtt._mark_breaking(new, 2, writes)
    assert not seating.pending and seating.counts == {1: 6, 2: 6, 3: 5}


def test_r9_7_r9_8_three_seat_tables_of_short_stacks_play_to_the_end() -> None:
    """Issue 26, the case that found the defect above: 11 BOTs at 3-seat tables with 20-chip
    stacks (5 big blinds, big-blind antes): a player who arrived in the gap, waiting for the
    big blind, moves out between hand-for-hand rounds. Its deal failed with ``waiting seats
    [0] must hold players``; the tournament now plays to the end, every invariant of the
    property test held after every transaction, and every table's ``waiting``/``arrived``
    seats hold a player."""
    from naiko.state import AnteMode
    from naiko.tournaments.structures import BlindLevel, BlindStructure, from_preset
    from test_mtt_properties import check_seating

    bb = AnteMode.BIG_BLIND
    terms = replace(from_preset("mtt_turbo", 364, Variant.NLHE), seat_count=3,
                    structure=BlindStructure((BlindLevel(1, 2, 4, 4, bb, 3),
                                              BlindLevel(2, 3, 6, 6, bb, 2),
                                              BlindLevel(3, 4, 8, 8, bb, 1))),
                    starting_stack=20, max_players=11, late_registration_level=None,
                    time_bank=None)
    simulation = Simulation(terms, 11, 0, check=True)
    moved_while_waiting: list[str] = []

    def invariants() -> None:
        check_seating(simulation)
        seating = tournament(simulation).seating
        if seating is None:
            return
        for table_id in seating.table_ids.values():
            t = simulation.store.load(table_id)
            info = t.tournament
            assert info is not None
            assert all(t.state.seats[s] is not None for s in info.waiting | info.arrived)
            moving = {m.player_id for m in seating.pending}
            moved_while_waiting.extend(
                seat.player_id for i in info.waiting
                if (seat := t.state.seats[i]) is not None and seat.player_id in moving)

    simulation.tournaments.invariants = invariants  # type: ignore[attr-defined]
    simulation.run()
    assert moved_while_waiting  # the case this guards happened
    assert tournament(simulation).status is TournamentStatus.FINISHED


def test_r9_7_a_player_waiting_for_the_big_blind_leaves_no_waiting_seat_behind() -> None:
    """Issue 26, the same defect outside hand-for-hand. Table 1 (8 players; f on seat 5 waits
    for the big blind there) has two moves waiting: f to table 2 and g to table 3 (decided
    while both were in a hand; table 2 is between hands again, table 3 still plays). When
    table 1 looks again it does f's move and holds for g's: what it keeps must not name f's
    seat (empty now) as waiting; the next player to sit there would wait with it, and a deal
    there would fail (``waiting seats [5] must hold players``)."""
    from naiko_service.tournament_records import PendingMove

    simulation = started(players=27, seats=9)
    names = arrange(simulation, {1: dict(enumerate("abcdefgh")), 2: dict(enumerate("ijklm")),
                                 3: dict(enumerate("nopqrs"))},
                    {1: (4, 3), 2: (3, 2), 3: (1, 0)})
    deal(simulation, 3)  # table 3 plays a hand
    assert table(simulation, 3).state.hand_in_progress
    one = table(simulation, 1)
    assert one.tournament is not None
    one.tournament = replace(one.tournament, waiting=frozenset({5}))
    simulation.store.save(one, one.version)
    record = tournament(simulation)
    new = record.copy()
    new.version += 1
    writes: list[Any] = []
    mtt._plan(new, PendingMove(names["f"], 1, 2, "balance", 0), 0, writes)
    mtt._plan(new, PendingMove(names["g"], 1, 3, "balance", 0), 0, writes)
    simulation.tournaments.commit((PutTournament(new, record.version),))
    deal(simulation, 1)
    assert where(simulation, names["f"])[0][0] == 2 and where(simulation, names["g"]) == [(1, 6)]
    one = table(simulation, 1)
    assert one.tournament is not None and one.tournament.hold == "move"
    assert one.state.seats[5] is None and 5 not in one.tournament.waiting
    assert not one.state.hand_in_progress  # it holds for g
    seating = tournament(simulation).seating
    assert seating is not None and [m.player_id for m in seating.pending] == [names["g"]]


# -- R9.7: breaking ------------------------------------------------------------------------------

def test_r9_7_a_broken_tables_players_spread_at_random_to_empty_seats() -> None:
    """Ten players left at three tables fit at two: the highest-numbered table (3: k and l)
    breaks when it is next between hands. Its players go, in random order, each to the then
    shortest table (1 and 2 hold four each: the first goes to table 1, the lowest number; the
    second to table 2, then the shorter), to a random empty seat there. Over seeds, both the
    order and the seats vary; every player sits once; the chips stay whole."""
    orders, seats_taken = set(), set()
    for seed in range(1, 9):
        simulation = started(seed=seed)
        names = arrange(simulation, {1: {0: "a", 2: "b", 3: "c", 5: "d"},
                                     2: {1: "e", 2: "f", 4: "g", 5: "h"},
                                     3: {0: "k", 3: "l"}},
                        {1: (3, 2), 2: (2, 1), 3: (3, 0)})
        chips = total_chips(simulation)
        deal(simulation, 3)  # tables 1 and 2 between hands: the moves happen at once
        seating = tournament(simulation).seating
        assert seating is not None and seating.counts == {1: 5, 2: 5} and not seating.pending
        moves = log(simulation, "moved")
        moved = {e["player"]: (e["to_table"], e["seat"]) for e in moves}
        assert set(moved) == {names["k"], names["l"]}
        first, second = (e["player"] for e in moves)  # in the order drawn
        orders.add(first == names["k"])
        assert moved[first][0].endswith("-1") and moved[second][0].endswith("-2")
        assert moved[first][1] in (1, 4) and moved[second][1] in (0, 3)
        seats_taken.add((moved[first][1], moved[second][1]))
        for player in (names["k"], names["l"]):
            assert len(where(simulation, player)) == 1
        assert total_chips(simulation) == chips
        (broken,) = log(simulation, "table_broken")
        assert broken["table"].endswith("-3")
    assert len(orders) == 2 and len(seats_taken) > 1, (orders, seats_taken)


def test_r9_7_a_player_moved_between_the_button_and_the_small_blind_waits() -> None:
    """Table 1 holds a..e on seats 0, 1, 3, 4, 5 (last big blind seat 3, last small blind
    seat 1): its next hand has the button on seat 1 (last hand's small blind), the small blind
    on seat 3 and the big blind on seat 4. Seat 2, its only empty seat, lies between the button
    and the small blind. Breaking table 3 sends k there (table 1 is the shortest, tied with
    table 2, and the lowest number): k waits for the big blind, dealt out of table 1's next
    hand, and is dealt in when the big blind reaches seat 2."""
    simulation = started()
    names = arrange(simulation, {1: {0: "a", 1: "b", 3: "c", 4: "d", 5: "e"},
                                 2: {0: "f", 1: "g", 2: "h", 3: "i", 5: "j"},
                                 3: {2: "k"}},
                    {1: (3, 1), 2: (3, 2), 3: (2, 1)})
    deal(simulation, 3)  # table 3 breaks: k to table 1 (between hands), seat 2
    assert where(simulation, names["k"]) == [(1, 2)]
    info = table(simulation, 1).tournament
    assert info is not None and info.waiting == {2}
    deal(simulation, 1)
    hand = table(simulation, 1).state.hand
    assert hand is not None and (hand.button, hand.small_blind_seat, hand.big_blind_seat) == (
        1, 3, 4)
    assert not hand.dealt[2] and not hand.hole[2]
    # Hands go on at table 1 alone (table 2 is left waiting): k is dealt in on the hand whose
    # big blind is seat 2, and not before.
    for _ in range(400):
        record = table(simulation, 1)
        hand = record.state.hand
        if hand is not None and hand.dealt[2]:
            assert hand.big_blind_seat == 2
            return
        assert simulation.step()
    raise AssertionError("k was never dealt in")


# -- R9.7: the final table ------------------------------------------------------------------------

def test_r9_7_the_final_table_forms_when_the_players_fit_at_one() -> None:
    """Six players left at three tables fit at one 6-seat table: each table holds after its
    hand; the last to hold forms the final table (``<tournament>-final``) with every player
    once, their stacks, on seats drawn at random, and closes the three."""
    simulation = started()
    names = arrange(simulation, {1: {0: "a", 3: "b"}, 2: {1: "c", 4: "d"}, 3: {2: "e", 5: "f"}},
                    {1: (3, 0), 2: (4, 1), 3: (5, 2)})
    stacks = {}
    for number in (1, 2, 3):
        for seat in table(simulation, number).state.seats:
            if seat is not None:
                stacks[seat.player_id] = seat.stack
    chips = total_chips(simulation)
    for number in (1, 2):
        deal(simulation, number)
        info = table(simulation, number).tournament
        assert info is not None and info.hold == "final"
        assert not table(simulation, number).state.hand_in_progress
    deal(simulation, 3)
    record = tournament(simulation)
    assert record.tables == [f"{simulation.tournament_id}-final"]
    final = simulation.store.load(record.tables[0])
    seated = {s.player_id: s.stack for s in final.state.seats if s is not None}
    assert seated == stacks and set(seated) == {names[n] for n in "abcdef"}
    assert final.state.total_chips() == chips
    for table_id in (f"{simulation.tournament_id}-{n}" for n in (1, 2, 3)):
        old = simulation.store.load(table_id)
        assert old.closed and not any(old.state.seats)
    (entry,) = log(simulation, "final_table")
    assert entry["table"] == record.tables[0]


def test_r9_7_the_final_table_waits_for_the_hands_in_play() -> None:
    """Ten players at two 9-seat tables, both dealing. The first player out leaves nine, who fit
    at one table: the table where it happened holds, and the final table forms only when the
    other table's hand is over (its pot is someone's stack by then: every chip arrives)."""
    simulation = started(players=18, seats=9)
    arrange(simulation, {1: {0: "a", 2: "b", 4: "c", 6: "d", 8: "e"},
                         2: {1: "f", 3: "g", 5: "h", 7: "i", 8: "j"}}, {1: (4, 2), 2: (5, 3)})
    chips = total_chips(simulation)
    deal(simulation, 1)
    deal(simulation, 2)
    final_id = f"{simulation.tournament_id}-final"
    held_while_other_played = False
    for _ in range(5000):
        record = tournament(simulation)
        if record.tables == [final_id]:
            break
        assert record.seating is not None
        if record.seating.final:
            states = [table(simulation, n).state.hand_in_progress for n in (1, 2)]
            held_while_other_played |= states.count(True) == 1
        assert simulation.step()
    else:
        raise AssertionError("no final table")
    final = simulation.store.load(final_id)
    seated = sum(1 for s in final.state.seats if s is not None)
    assert seated == tournament(simulation).players_left <= 9
    assert final.state.total_chips() == chips
    assert held_while_other_played


def test_r9_7_final_table_seats_are_drawn_at_random() -> None:
    layouts = set()
    for seed in range(1, 7):
        simulation = started(seed=seed)
        names = arrange(simulation, {1: {0: "a", 3: "b"}, 2: {1: "c", 4: "d"},
                                     3: {2: "e", 5: "f"}}, {1: (3, 0), 2: (4, 1), 3: (5, 2)})
        for number in (1, 2, 3):
            deal(simulation, number)
        final = simulation.store.load(f"{simulation.tournament_id}-final")
        by_id = {v: k for k, v in names.items()}
        layouts.add(tuple(by_id[s.player_id] if s else None for s in final.state.seats))
    assert len(layouts) > 3, layouts


# -- R9.8: hand-for-hand; R9.5: its ranking and ties ----------------------------------------

def bubble_field(simulation: Simulation) -> int:
    """The players left that make the bubble: one more than the places paid."""
    return mtt.paid_places(tournament(simulation)) + 1


def test_r9_8_hand_for_hand_starts_at_the_bubble_and_tables_wait_for_each_round() -> None:
    """With one player more than the places paid, at two tables: hand-for-hand starts. A table
    deals round 1 only after every table reported round 0 (the hands in play), and a table that
    finished round 1 holds until the other finished it too."""
    simulation = started(players=24, seats=3)  # eight tables of three; four places paid
    assert bubble_field(simulation) == 5
    names = arrange(simulation, {1: {0: "a", 1: "b", 2: "e"}, 2: {0: "c", 2: "d"}},
                    {1: (1, 0), 2: (2, 0)})
    assert names
    deal(simulation, 1)  # the bubble: hand-for-hand starts; round 0 = no hand in play here
    seating = tournament(simulation).seating
    assert seating is not None and seating.hfh is not None
    assert [e["on"] for e in log(simulation, "hand_for_hand")] == [True]
    one = table(simulation, 1)
    assert not one.state.hand_in_progress and one.tournament is not None
    assert one.tournament.hold == "hfh"
    deal(simulation, 2)  # the last report of round 0 closes it: round 1 starts everywhere
    assert tournament(simulation).seating.hfh == 1  # type: ignore[union-attr]
    rounds: Counter[int] = Counter()
    for _ in range(3000):
        seating = tournament(simulation).seating
        assert seating is not None
        if seating.hfh is None:
            break
        playing = [n for n in seating.table_ids
                   if table(simulation, n).state.hand_in_progress]
        for number in playing:  # no table deals a round before the last closed
            info = table(simulation, number).tournament
            assert info is not None and info.dealt_round == seating.hfh
            rounds[seating.hfh] += 1
        assert simulation.step()
    assert [e["on"] for e in log(simulation, "hand_for_hand")] == [True, False]
    assert rounds, "no round was dealt"


def test_r9_8_r9_7_tables_are_balanced_between_hand_for_hand_rounds() -> None:
    """Ten players at two 9-seat tables on the bubble (nine paid): seven at table 1 (last big
    blind on seat 4), three at table 2. Hand-for-hand starts; when round 0 closes, the close
    plans the moves for the next round until the tables are within one (R9.7): table 1's next
    big blind (seat 5, f), then the next one (seat 6, g), to table 2. Released, the tables
    make both moves before either deals round 1 (5 and 5 players dealt).

    (Until issue 21 the close planned one move per table a round, and this test asserted 6
    and 4 for round 1: a round dealt two players over the shortest table, which R9.7 does not
    allow.)"""
    simulation = started(players=60, seats=9)
    assert bubble_field(simulation) == 10
    names = arrange(simulation, {1: dict(enumerate("abcdefg")), 2: {0: "h", 3: "i", 6: "j"}},
                    {1: (4, 3), 2: (3, 0)})
    deal(simulation, 1)  # hand-for-hand on; table 1 has no hand in play: round 0 reported
    deal(simulation, 2)  # the last report of round 0: the round closes, a move is planned
    seating = tournament(simulation).seating
    assert seating is not None and seating.hfh == 1
    # Released at once (the round's release timers): the move, then round 1.
    sizes = []
    for _ in range(200):
        playing = [table(simulation, n) for n in (1, 2)]
        if all(t.state.hand_in_progress for t in playing):
            sizes = [sum(1 for d in t.state.hand.dealt if d) for t in playing]  # type: ignore[union-attr]
            break
        assert simulation.step()
    assert sizes == [5, 5]
    for name in "fg":
        assert where(simulation, names[name]) and where(simulation, names[name])[0][0] == 2
    moved = log(simulation, "moved")
    assert [(e["player"], e["to_table"][-1]) for e in moved] == [(names["f"], "2"),
                                                                 (names["g"], "2")]
    planned = log(simulation, "move_planned")
    assert [(e["player"], e["reason"]) for e in planned] == [(names["f"], "balance"),
                                                             (names["g"], "balance")]


def test_r9_7_r9_8_a_player_waiting_for_the_big_blind_moves_out_between_rounds() -> None:
    """Issue 26 (``SeatingError: waiting seats [0] must hold players`` at a deal). The balance
    position above, but f (table 1's next big blind, seat 5) had arrived in the gap and waits
    for the big blind there (``waiting`` {5}). When round 0 closes, f and g are to move to
    table 2 (f first: the big blind reaches seat 5 next). Between rounds, whichever table is
    between hands first does the moves and deals round 1 (here table 1: it pushes both):
    table 1 must drop seat 5 from ``waiting`` once f is gone (its item was written back from
    before the moves: the empty seat still waiting, and its deal failed), and at table 2 the
    two arrive in ``arrived`` until its deal places them. Found with 3-seat tables and
    20-chip stacks (the next test); this is its position by hand."""
    simulation = started(players=60, seats=9)
    names = arrange(simulation, {1: dict(enumerate("abcdefg")), 2: {0: "h", 3: "i", 6: "j"}},
                    {1: (4, 3), 2: (3, 0)})
    one = table(simulation, 1)
    assert one.tournament is not None
    one.tournament = replace(one.tournament, waiting=frozenset({5}))
    simulation.store.save(one, one.version)
    deal(simulation, 1)  # hand-for-hand on: round 0 reported (no hand in play here)
    deal(simulation, 2)  # the last report of round 0: the round closes, f and g planned
    planned = log(simulation, "move_planned")
    assert [e["player"] for e in planned] == [names["f"], names["g"]]
    two_seats: list[int] = []
    for _ in range(200):  # released: the moves, then round 1 at both tables
        playing = [table(simulation, n) for n in (1, 2)]
        for t in playing:
            info = t.tournament
            assert info is not None
            # what each table keeps names only seats that hold a player
            assert all(t.state.seats[s] is not None for s in info.waiting | info.arrived)
        if all(t.state.hand_in_progress for t in playing):
            break
        if not two_seats and [where(simulation, names[n])[0][0] for n in "fg"] == [2, 2]:
            two = playing[1].tournament
            assert two is not None
            two_seats = [where(simulation, names[n])[0][1] for n in "fg"]
            if not playing[1].state.hand_in_progress:  # moved in, not dealt yet
                assert set(two_seats) <= two.waiting | two.arrived
        assert simulation.step()
    else:
        raise AssertionError("round 1 was never dealt at both tables")
    one = table(simulation, 1)
    assert one.tournament is not None and 5 not in one.tournament.waiting
    assert one.state.seats[5] is None and one.state.hand is not None
    assert sum(one.state.hand.dealt) == 5
    assert two_seats and {where(simulation, names[n])[0][0] for n in "fg"} == {2}


def out(player: str, stack: int, table_id: str, hand: int = 3) -> dict[str, Any]:
    return Out(player, stack, table_id, hand, "house:bots").to_dict()


def test_r9_5_r9_8_players_out_in_one_round_are_ranked_by_their_stacks_then_tie() -> None:
    """Round 2 of hand-for-hand with six players left (three paid). At table 1, x went out
    having started the round's hand with 900; at table 2, y with 1,500 and z with 900. The
    three places 4 to 6 go together, when both tables reported the round: y (the larger
    stack) 4th; x and z (900 each) tie for 5th (both place 5, sharing 5th and 6th). The
    round took the field past the bubble: hand-for-hand ends."""
    simulation = started(players=18, seats=9)
    names = arrange(simulation, {1: {0: "a", 4: "b", 6: "x"}, 2: {2: "c", 6: "y", 7: "z"}},
                    {1: (4, 0), 2: (6, 2)})
    record = tournament(simulation)
    new = record.copy()
    new.version += 1
    assert new.seating is not None
    new.seating.hfh = 2
    simulation.tournaments.commit((PutTournament(new, record.version),))
    one, two = (table(simulation, n).table_id for n in (1, 2))
    # Their seats are empty once out (the tables already stood them up).
    for number, gone in ((1, ("x",)), (2, ("y", "z"))):
        t = table(simulation, number)
        for name in gone:
            index = next(i for i, s in enumerate(t.state.seats)
                         if s is not None and s.player_id == names[name])
            seat = t.state.seats[index]
            assert seat is not None
            receiver = next(s for s in t.state.seats if s is not None and s is not seat)
            receiver.stack += seat.stack
            t.state.seats[index] = None
        simulation.store.save(t, t.version)
    writes = [PutItem(simulation.tournament_id, mtt.hfh_key(2, 1),
                          {"table": 1, "round": 2, "out": [out(names["x"], 900, one)]},
                          new=True)]
    simulation.tournaments.commit(writes)
    assert not mtt.close_round(simulation.service.deps, simulation.tournament_id, 2)
    assert not log(simulation, "eliminated")  # table 2 has not reported: nobody placed yet
    simulation.tournaments.commit([PutItem(
        simulation.tournament_id, mtt.hfh_key(2, 2),
        {"table": 2, "round": 2, "out": [out(names["y"], 1_500, two),
                                         out(names["z"], 900, two)]}, new=True)])
    assert mtt.close_round(simulation.service.deps, simulation.tournament_id, 2)
    places = {e["player"]: e["place"] for e in log(simulation, "eliminated")}
    assert places == {names["y"]: 4, names["x"]: 5, names["z"]: 5}
    record = tournament(simulation)
    assert record.players_left == 3 and record.seating is not None
    assert record.seating.hfh is None and record.seating.hfh_over  # past the bubble
    assert record.seating.counts == {1: 2, 2: 1}
    assert record.seating.final  # three fit at one table: each table holds for it when next free
    # A duplicate closer finds the round closed and changes nothing.
    version = record.version
    assert not mtt.close_round(simulation.service.deps, simulation.tournament_id, 2)
    assert tournament(simulation).version == version


class LosingScheduler(VirtualScheduler):
    """Step Functions losing executions: every first execution of a hand-for-hand token (the
    round's release, a held table's poll) and every other next-hand execution while
    hand-for-hand is on are dropped (the table keeps its deadline; the sweep and the polls
    must find it)."""

    def __init__(self, simulation: Simulation) -> None:
        super().__init__()
        self.simulation = simulation
        self.seen: set[tuple[str, str]] = set()
        self.lost = 0
        self.next_hands = 0

    def schedule(self, table_id: str, token: str, due_ms: int, kind: str) -> None:
        try:
            seating = tournament(self.simulation).seating
        except TournamentNotFound:
            seating = None
        in_hfh = seating is not None and seating.hfh is not None
        key = (table_id, token)
        lose = False
        if token.startswith("hold:hfh") and key not in self.seen:
            lose = True
        elif in_hfh and token.startswith("next_hand"):
            self.next_hands += 1
            lose = self.next_hands % 2 == 0
        self.seen.add(key)
        if lose:
            self.lost += 1
            return
        super().schedule(table_id, token, due_ms, kind)


def test_r9_8_a_table_whose_timer_is_lost_mid_round_still_closes_the_round() -> None:
    """Hand-for-hand with timer executions lost (a round's release, a held table's first poll,
    every other next-hand timer): the tables find their deadlines again (their own ``hold``
    poll every 15 s and the sweep every minute), every round closes, and the tournament
    finishes with one winner and every place given."""
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 9), seat_count=3)  # three tables
    simulation = Simulation(terms, 9, 5, check=True)  # hand-for-hand on and off, 10 lost
    losing = LosingScheduler(simulation)
    simulation.scheduler = losing
    simulation.service.deps.scheduler = losing
    log_entries = simulation.run()
    assert losing.lost > 0
    assert [e["on"] for e in log_entries if e["type"] == "hand_for_hand"] == [True, False]
    finished = next(e for e in log_entries if e["type"] == "finished")
    assert len(finished["places"]) == 9 and sorted(finished["places"].values())[0] == 1


def test_r9_7_a_move_read_from_an_older_tournament_is_read_again_not_done_twice(
        monkeypatch: Any) -> None:
    """Table 1 (holding for d's move to table 2) is read, then the tournament; then table 2
    does the move (it pulls d) before table 1 reads table 2, where d already sits. Table 1
    reads everything again (as a failed condition would make it) instead of seating d twice
    or failing."""
    simulation = started(players=10)
    names = arrange(simulation, {1: dict(enumerate("abcdef")),
                                 2: {0: "g", 1: "h", 3: "i", 4: "j"}},
                    {1: (2, 1), 2: (4, 3)})
    deal(simulation, 2)
    deal(simulation, 1)  # the move waits for table 2's hand; table 1 holds
    stale_tournament, stale_table = tournament(simulation), table(simulation, 1)
    assert stale_tournament.seating is not None and stale_tournament.seating.pending
    while where(simulation, names["d"])[0][0] == 1:  # table 2's hand ends: it pulls d
        assert simulation.step()
    real_store, real_load = mtt.store(simulation.service.deps), simulation.store.load
    reads = {"tournament": 0, "table": 0}

    class OnceStale:
        def __getattr__(self, name: str) -> Any:
            return getattr(real_store, name)

        def load(self, tournament_id: str) -> Any:
            reads["tournament"] += 1
            if reads["tournament"] == 1:
                return stale_tournament.copy()
            return real_store.load(tournament_id)

    def load_table(table_id: str) -> Any:
        if table_id == stale_table.table_id:
            reads["table"] += 1
            if reads["table"] == 1:
                return stale_table.copy()
        return real_load(table_id)

    monkeypatch.setattr(mtt, "store", lambda deps: OnceStale())
    monkeypatch.setattr(simulation.store, "load", load_table)
    poll = next(t for t in stale_table.timers if t.kind is TimerKind.HOLD)
    simulation.clock.now = max(simulation.clock.now, poll.due_ms)
    simulation.service.timer_fired(stale_table.table_id, poll.token)
    assert reads["tournament"] == 1 and reads["table"] >= 2  # read again (the poll is gone)
    assert len(where(simulation, names["d"])) == 1 and where(simulation, names["d"])[0][0] == 2
    assert not log(simulation, "cancelled") and total_chips(simulation) == 10 * 10_000


def test_r9_7_a_duplicated_hold_poll_does_nothing_once_the_table_holds_again() -> None:
    """A held table's poll carries its deadline in its token: when the poll fired and the table
    holds again (its move still waits), a second execution of the old poll (Step Functions
    delivers at least once; a write that lost its condition had armed one too) finds no such
    timer and writes nothing, instead of polling twice from then on."""
    simulation = started(players=10)
    arrange(simulation, {1: dict(enumerate("abcdef")), 2: {0: "g", 1: "h", 3: "i", 4: "j"}},
            {1: (2, 1), 2: (4, 3)})
    deal(simulation, 2)
    deal(simulation, 1)  # table 1 holds for its move to table 2 (in a hand)
    first = next(t for t in table(simulation, 1).timers if t.kind is TimerKind.HOLD)
    simulation.clock.now = max(simulation.clock.now, first.due_ms)
    assert table(simulation, 2).state.hand_in_progress  # no execution fired: still playing
    simulation.service.timer_fired(table(simulation, 1).table_id, first.token)
    held = table(simulation, 1)
    assert held.tournament is not None and held.tournament.hold == "move"
    second = next(t for t in held.timers if t.kind is TimerKind.HOLD)
    assert second.token != first.token
    version = held.version
    simulation.service.timer_fired(held.table_id, first.token)  # the duplicate
    assert table(simulation, 1).version == version


def test_r9_5_r9_8_places_derived_from_out_items_are_those_given_at_each_elimination() -> None:
    """Every player out leaves an ``out#`` item (the stack at the start of their hand, the
    hand, the hand-for-hand round, and in the serial zone the players left before them); the
    ``finished`` entry's places are derived from those items
    (:func:`naiko.tournaments.places.derive_places`) and equal the places given (``result#``:
    at the elimination, or when the count shards closed, issue 23), the hand-for-hand
    round's players ranked together across tables."""
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 9), seat_count=3)  # three tables
    simulation = Simulation(terms, 9, 5, check=True)  # a player out in a hand-for-hand round
    log_entries = simulation.run()
    tid = simulation.tournament_id
    outs = [d for _, d in simulation.tournaments.items(tid, "out#")]
    assert sorted(d["player_id"] for d in outs) == sorted(
        e["player"] for e in log_entries if e["type"] == "eliminated")
    assert len(outs) == 8 and any(d["round"] is not None for d in outs)  # a round's players
    assert [d["at_ms"] for d in outs] == sorted(d["at_ms"] for d in outs)  # in time order
    results = {d["player_id"]: d["place"] for _, d in simulation.tournaments.items(tid, "result#")}
    finished = next(e for e in log_entries if e["type"] == "finished")
    assert finished["places"] == results and len(results) == 9


def test_r9_5_issue_23_the_finished_entrys_places_come_in_parts_read_back_whole(
        monkeypatch: Any) -> None:
    """The ``finished`` entry carries the places and prizes in parts (issue 23: one entry was
    ~16 B per player, 160 KB at 10,000): with parts of 200 bytes here, a 24-player field's
    come as the ``finished`` entry (``parts`` N) and ``placed`` entries 2..N in its write,
    which :func:`~naiko_service.usecases.tournament_log.joined` reads back as every result."""
    monkeypatch.setattr(tournament_log, "LOG_PART_BYTES", 200)
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 24), seat_count=3)
    simulation = Simulation(terms, 24, 5, check=True)
    log_entries = simulation.run()
    finished = next(e for e in log_entries if e["type"] == "finished")
    placed = [e for e in log_entries if e["type"] == "placed"]
    assert finished["parts"] == len(placed) + 1 > 2
    assert [e["part"] for e in placed] == list(range(2, finished["parts"] + 1))
    assert {e["at_ms"] for e in placed} == {finished["at_ms"]}
    assert all(len(json.dumps(e)) < 200 + 200 for e in [finished, *placed])
    whole = tournament_log.joined(log_entries, "finished", "placed")
    tid = simulation.tournament_id
    results = {d["player_id"]: d for _, d in simulation.tournaments.items(tid, "result#")}
    assert whole["places"] == {p: d["place"] for p, d in results.items()} and len(results) == 24
    assert whole["prizes"] == {p: d["prize"] for p, d in results.items() if d["prize"]}
