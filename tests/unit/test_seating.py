"""Seating of multi-table tournaments (RULES.md R9.2, R9.6, R9.7, R9.8, R9.11), positions worked
out by hand.

Seats are numbered from 0 and "clockwise" is increasing seat number, as in the engine. A table is
written ``seat:player`` with ``-`` for an empty seat. The dead-button rule (R2.6) is the engine's:
next big blind = the next occupied seat after last hand's big blind, small blind on last hand's big
blind seat (possibly dead), button on last hand's small blind position.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naiko import engine
from naiko.cards import seeded_random, shuffled_deck
from naiko.commands import Fold, SitDown, SitIn, SitOut, StandUp, StartHand
from naiko.engine import apply
from naiko.state import TableConfig, TableState
from naiko.tournaments.seating import (
    Deal,
    Move,
    Positions,
    SeatingError,
    TableSeats,
    apply_moves,
    balance_destinations,
    balance_move,
    big_blind_order,
    break_table,
    bubble,
    final_table,
    initial_seating,
    must_wait,
    next_big_blind_seat,
    next_deal,
    next_positions,
    next_to_break,
    seat_late_entrant,
    shortest_table,
    tables_needed,
)
from naiko_testing import prompt


def seats(text: str) -> tuple[str | None, ...]:
    """``"A B - C"`` -> ``("A", "B", None, "C")``."""
    return tuple(None if x == "-" else x for x in text.split())


def everyone(tables: list[TableSeats]) -> list[str]:
    return sorted(p for t in tables for p in t.players)


def in_gap(seat: int, button: int, small_blind_position: int, n: int) -> bool:
    """On the small blind position or strictly between the button and it (R9.7)."""
    return 0 < (seat - button) % n <= (small_blind_position - button) % n


def from_engine(state: TableState, number: int = 1, waiting: frozenset[int] = frozenset(),
                arrived: frozenset[int] = frozenset()) -> TableSeats:
    return TableSeats(number, state.config.seat_count,
                      tuple(s.player_id if s else None for s in state.seats),
                      state.last_big_blind_seat, state.last_small_blind_position, waiting,
                      arrived)


def fold_around(state: TableState) -> TableState:
    while state.hand is not None and not state.hand.complete:
        state, _ = apply(state, Fold(seat_index=prompt(state).seat_index))
    return state


# -- R9.2 the first draw -----------------------------------------------------------------------


def test_r9_2_initial_seating_even_tables_every_player_once() -> None:
    players = [f"p{i}" for i in range(23)]
    tables = initial_seating(players, 9, seeded_random(5))
    # ceil(23 / 9) = 3 tables; 23 = 8 + 8 + 7 (the lower numbers take the extra player).
    assert [t.number for t in tables] == [1, 2, 3]
    assert [t.player_count for t in tables] == [8, 8, 7]
    assert everyone(tables) == sorted(players)
    # Nobody has dealt: no last blinds, so the engine's caller draws each first button (R9.2).
    assert all(t.last_big_blind_seat is None and next_positions(t) is None for t in tables)
    assert all(t.seat_count == 9 and not t.waiting for t in tables)


def test_r9_2_initial_seating_is_random_and_repeatable() -> None:
    players = [f"p{i}" for i in range(23)]
    assert initial_seating(players, 9, seeded_random(5)) == \
        initial_seating(players, 9, seeded_random(5))
    layouts = {tuple(t.seats for t in initial_seating(players, 9, seeded_random(s)))
               for s in range(20)}
    assert len(layouts) == 20
    # p0 is drawn to each table and to many seats.
    places = {(t.number, t.seat_of("p0")) for s in range(200)
              for t in initial_seating(players, 9, seeded_random(s)) if "p0" in t.players}
    assert {table for table, _ in places} == {1, 2, 3}
    assert len(places) > 20


def test_r9_2_initial_seating_sizes_differ_by_at_most_one() -> None:
    rng = seeded_random(0)
    for seats_per_table in range(2, 11):
        for n in range(2, 61):
            tables = initial_seating([f"p{i}" for i in range(n)], seats_per_table, rng)
            sizes = [t.player_count for t in tables]
            assert len(tables) == tables_needed(n, seats_per_table)
            assert max(sizes) - min(sizes) <= 1 and max(sizes) <= seats_per_table
            assert sum(sizes) == n


def test_r9_2_initial_seating_rejects_bad_fields() -> None:
    with pytest.raises(SeatingError):
        initial_seating(["a"], 9, seeded_random(0))
    with pytest.raises(SeatingError):
        initial_seating(["a", "a"], 9, seeded_random(0))
    with pytest.raises(SeatingError):
        initial_seating(["a", "b"], 11, seeded_random(0))


# -- R9.7 balancing ----------------------------------------------------------------------------


def test_r9_7_next_big_blind_moves_to_the_seat_the_big_blind_reaches_soonest() -> None:
    # Table 1: 0:A 1:B 2:C 3:- 4:D 5:E 6:F 7:G 8:H, last hand button 1, SB 2, BB 4 (seat 3 empty).
    # Its next big blind is the next occupied seat after 4: seat 5, E. E moves.
    t1 = TableSeats(1, 9, seats("A B C - D E F G H"), 4, 2)
    # Table 2: 0:I 1:- 2:J 3:K 4:- 5:- 6:L 7:N 8:-, last hand button 2, SB 3, BB 6: 5 players.
    # Clockwise after its last BB (6): 7 is taken, 8 is empty -> the BB reaches seat 8 soonest
    # (then the empty seats 1, 4, 5: the lowest empty seat is not it). With E on 8 the next hand is
    # BB 7, SB 6, button 3 (last SB position; 3 comes before 6 before 7): seat 8 is outside the
    # button-SB gap {4, 5, 6}, so E is dealt in, and is the big blind the hand after.
    t2 = TableSeats(2, 9, seats("I - J K - - L N -"), 6, 3)
    t3 = TableSeats(3, 9, seats("O P Q R S T - - -"), 2, 1)  # 6 players
    move = balance_move([t1, t2, t3], 1)
    assert move == Move(player="E", from_table=1, from_seat=5, to_table=2, to_seat=8,
                        wait_for_big_blind=False)
    assert next_positions(TableSeats(2, 9, seats("I - J K - - L N E"), 6, 3)) == \
        Positions(button=3, small_blind_position=6, big_blind_seat=7)
    tables = apply_moves([t1, t2, t3], [move])
    # Nobody skips the big blind: at table 1 it goes on to F (seat 6), next after E's seat.
    assert next_big_blind_seat(tables[0]) == 6
    # At table 2, after N's big blind (last BB 7, SB position 6) it reaches E on seat 8.
    assert next_big_blind_seat(TableSeats(2, 9, tables[1].seats, 7, 6)) == 8
    # 7 / 6 / 6: within one player, no more moves.
    assert [t.player_count for t in tables] == [7, 6, 6]
    assert balance_move(tables, 1) is None


def test_r9_7_destination_between_button_and_small_blind_waits_for_the_big_blind() -> None:
    # Table 2 (worked on the real engine): 0:A 1:B 2:- 3:- 4:C 5:D 6:E 7:F 8:G, first hand button
    # 0 -> SB 1, BB 4 (2 and 3 empty). Table 1 is full and its next big blind is seat 4.
    state = TableState.new(TableConfig(seat_count=9))
    for seat, player in enumerate(seats("A B - - C D E F G")):
        if player is not None:
            state, _ = apply(state, SitDown(seat_index=seat, player_id=player, stack=1000))
    rng = seeded_random(3)
    state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=0))
    assert state.hand is not None
    assert (state.hand.button, state.hand.small_blind_seat, state.hand.big_blind_seat) == (0, 1, 4)
    state = fold_around(state)
    t1 = TableSeats(1, 9, seats("P0 P1 P2 P3 P4 P5 P6 P7 P8"), 3, 2)
    t2 = from_engine(state, number=2)
    # 9 - 7 = 2: P4 moves. After table 2's last BB (4) seats 5..8, 0, 1 are taken: the first
    # empty seat is 2. With P4 there the next hand is BB 5, SB 4, button 1 (last SB position):
    # seat 2 lies between the button (1) and the small blind (4): P4 waits without posting.
    move = balance_move([t1, t2], 1)
    assert move == Move("P4", 1, 4, 2, 2, wait_for_big_blind=True)
    t2 = apply_moves([t1, t2], [move])[1]
    assert t2.waiting == {2} and not t2.arrived
    state, _ = apply(state, SitDown(seat_index=2, player_id="P4", stack=1000))
    state, _ = apply(state, SitOut(seat_index=2))  # the engine deals only next_deal's seats
    # The big blind then walks 5, 6, 7, 8, 0, 1 and reaches seat 2 on the 7th hand after:
    #   hand  button SB BB  P4
    #     2     1    4   5  waits (SB position 4, gap {2, 3, 4})
    #     3     4    5   6  waits
    #     4     5    6   7  waits
    #     5     6    7   8  waits
    #     6     7    8   0  waits
    #     7     8    0   1  waits
    #     8     0    1   2  dealt in, posts the big blind
    expected = [(1, 4, 5), (4, 5, 6), (5, 6, 7), (6, 7, 8), (7, 8, 0), (8, 0, 1), (0, 1, 2)]
    seen = []
    for _ in expected:
        deal = next_deal(t2)
        if 2 in deal.dealt:
            state, _ = apply(state, SitIn(seat_index=2))
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng))))
        hand = state.hand
        assert hand is not None
        assert hand.big_blind_seat == next_big_blind_seat(t2)
        assert [i for i in range(9) if hand.dealt[i]] == sorted(deal.dealt)
        seen.append((hand.button, hand.small_blind_position, hand.big_blind_seat, hand.dealt[2]))
        t2 = t2.after_deal(deal, hand.big_blind_seat, hand.small_blind_position)
        assert t2 == from_engine(state, 2, t2.waiting)
        state = fold_around(state)
    assert seen == [(*p, False) for p in expected[:-1]] + [(0, 1, 2, True)]
    assert not t2.waiting


def test_r9_7_seat_beside_a_dead_small_blind_waits() -> None:
    # Table 2 (6 seats): 0:A 1:B 2:- 3:- 4:C 5:D; last hand button 0, SB 1, BB 3 (seat 2 empty),
    # and the big blind player (seat 3) was eliminated. After 3, seats 4, 5, 0, 1 are taken:
    # the BB reaches seat 2 soonest. Next hand: BB 4, SB 3 (dead), button 1 (last SB position):
    # seat 2 is between button and small blind -> wait. Seat 3, the dead small blind, too.
    t2 = TableSeats(2, 6, seats("A B - - C D"), 3, 1)
    t1 = TableSeats(1, 6, seats("U V W X Y Z"), 0, 5)  # next BB: seat 1, V
    assert balance_move([t1, t2], 1) == Move("V", 1, 1, 2, 2, wait_for_big_blind=True)
    assert must_wait(t2, 3)
    assert next_positions(TableSeats(2, 6, seats("A B V - C D"), 3, 1)) == Positions(1, 3, 4)


def test_r9_7_destination_that_becomes_the_big_blind_is_dealt_in() -> None:
    # Table 2 (6 seats): 0:A 1:- 2:B 3:C 4:- 5:-, last hand button 0, SB 2, BB 3. The seat right
    # after the last BB, 4, is empty: the mover sits there and is the next big blind.
    t2 = TableSeats(2, 6, seats("A - B C - -"), 3, 2)
    t1 = TableSeats(1, 6, seats("U V W X Y -"), 1, 0)  # next BB: seat 2, W
    move = balance_move([t1, t2], 1)
    assert move == Move("W", 1, 2, 2, 4, wait_for_big_blind=False)
    assert next_big_blind_seat(apply_moves([t1, t2], [move])[1]) == 4


def test_r9_7_tie_on_shortest_goes_to_the_lowest_table_number() -> None:
    big = TableSeats(1, 6, seats("A B C D E F"), 2, 1)
    four_a = TableSeats(2, 6, seats("G H I J - -"), 1, 0)
    four_b = TableSeats(3, 6, seats("K L M N - -"), 1, 0)
    move = balance_move([big, four_a, four_b], 1)
    assert move is not None and (move.player, move.to_table) == ("D", 2)  # next BB after 2: 3
    # The same when the big table has the highest number.
    big3 = TableSeats(3, 6, seats("A B C D E F"), 5, 4)
    four_1 = TableSeats(1, 6, seats("G H I J - -"), 1, 0)
    four_2 = TableSeats(2, 6, seats("K L M N - -"), 1, 0)
    move = balance_move([four_2, big3, four_1], 3)
    assert move is not None and (move.player, move.from_seat, move.to_table) == ("A", 0, 1)


def test_r9_7_balancing_moves_until_within_one_counting_the_moves_decided() -> None:
    """Seven against three is two moves (five and five), not one a hand; moves decided earlier
    are in the counts, so a table already promised a player takes fewer; a breaking table
    neither gives nor takes; the players are the next big blinds in the order the big blind
    reaches them."""
    assert balance_destinations({1: 7, 2: 3}, 1) == [2, 2]
    assert balance_destinations({1: 9, 2: 4, 3: 5}, 1) == [2, 2, 3]  # 6, 6, 6
    assert balance_destinations({1: 7, 2: 5}, 1) == [2]
    assert balance_destinations({1: 6, 2: 5}, 1) == [] == balance_destinations({1: 3, 2: 7}, 1)
    assert balance_destinations({1: 8, 2: 3, 3: 8}, 1, breaking={2}) == []
    assert balance_destinations({1: 8, 2: 3}, 2) == []
    with pytest.raises(SeatingError):
        balance_destinations({1: 8}, 2)
    table = TableSeats(1, 9, seats("A B C - D E F G H"), 4, 3)
    assert big_blind_order(table)[:2] == [5, 6]  # E, then F
    assert big_blind_order(TableSeats(1, 6, seats("A B - - - -"))) == []


def test_r9_7_no_balancing_move_to_the_table_next_to_break_while_another_can_take() -> None:
    """Tables 1-3, table 3 next to break (the highest number). Table 1 (8) is two over table 3
    (5) and table 2 (6): the player goes to table 2, though table 3 is shorter; then 7 against
    5 and no other table two under: table 3 takes the next one. When table 3 is the only short
    table it takes the player; breaking tables do not count in the order."""
    assert balance_destinations({1: 8, 2: 6, 3: 5}, 1) == [2, 3]
    assert balance_destinations({1: 8, 2: 7, 3: 5}, 1) == [3]
    assert balance_destinations({1: 8, 2: 6, 3: 5, 4: 1}, 1, breaking={4}) == [2, 3]
    assert next_to_break({1: 8, 2: 6, 3: 5, 4: 1}, {4}) == 3
    assert shortest_table({1: 8, 2: 5, 3: 5}) == 2 and shortest_table({}) is None
    big = TableSeats(1, 6, seats("A B C D E F"), 2, 1)
    four = TableSeats(2, 6, seats("G H I J - -"), 1, 0)
    three = TableSeats(3, 6, seats("K L M - - -"), 1, 0)
    move = balance_move([big, four, three], 1)
    assert move is not None and (move.player, move.to_table) == ("D", 2)


def test_r9_7_no_move_within_one_player_or_from_the_short_table() -> None:
    t1 = TableSeats(1, 6, seats("A B C D E -"), 2, 1)
    t2 = TableSeats(2, 6, seats("G H I J - -"), 1, 0)
    assert balance_move([t1, t2], 1) is None
    assert balance_move([t1, t2], 2) is None
    assert balance_move([t1], 1) is None
    with pytest.raises(SeatingError):
        balance_move([t1, t2], 3)


def test_r9_7_decisions_for_tables_that_have_not_dealt() -> None:
    dealt = TableSeats(1, 6, seats("A B C D E F"), 2, 1)
    fresh = TableSeats(2, 6, seats("- G - H - -"))
    # Destination never dealt: its button will be drawn at random, so any seat is as good: the
    # lowest empty seat, and nobody waits (everybody seated is dealt into a first hand).
    assert balance_move([dealt, fresh], 1) == Move("D", 1, 3, 2, 0, wait_for_big_blind=False)
    assert not any(must_wait(fresh, s) for s in range(6))
    # Source never dealt: it cannot have finished a hand; it has no "next big blind".
    with pytest.raises(SeatingError):
        balance_move([TableSeats(1, 6, seats("A B C D E F")), fresh], 1)


def test_r9_7_nobody_waits_when_fewer_than_two_others_would_be_dealt() -> None:
    # Table: 0:A 1:- 2:- 3:-, last hand heads-up button/SB 0, BB was seat 3 (now eliminated).
    lone = TableSeats(2, 4, seats("A - - -"), 3, 0)
    assert not any(must_wait(lone, s) for s in (1, 2, 3))
    # 0:A 2:W 4:X; last hand SB 1, BB 5, both eliminated since. With a mover on 3 the next
    # hand is BB 0, SB 5 (dead), button 1: seats 2-5 are in the button-SB gap, so the mover
    # waits. But when W and X wait already, only A and the mover are left: heads-up, the
    # button is the small blind (R2.2), nothing lies between them, and the mover plays.
    assert must_wait(TableSeats(2, 6, seats("A - W - X -"), 5, 1), 3)
    waiting = TableSeats(2, 6, seats("A - W - X -"), 5, 1, frozenset({2, 4}))
    assert not must_wait(waiting, 3)
    assert next_deal(TableSeats(2, 6, seats("A - W M X -"), 5, 1, frozenset({2, 4}),
                                frozenset({3}))) == Deal(frozenset({0, 3}), frozenset({2, 4}))


def test_r9_7_waiting_player_is_dealt_in_when_the_big_blind_reaches_them() -> None:
    # 0:A 1:B 2:W(waiting) 3:C, last BB 1, last SB 0: next BB is seat 2 -> W is dealt in.
    assert next_deal(TableSeats(1, 4, seats("A B W C"), 1, 0, frozenset({2}))) == \
        Deal(frozenset({0, 1, 2, 3}), frozenset())
    # Last BB 3: next BB is seat 0 -> W sits out.
    assert next_deal(TableSeats(1, 4, seats("A B W C"), 3, 1, frozenset({2}))) == \
        Deal(frozenset({0, 1, 3}), frozenset({2}))
    # Only one other player could be dealt in: everybody is (a table cannot deal to one).
    assert next_deal(TableSeats(1, 4, seats("A - W -"), 3, 2, frozenset({2}))) == \
        Deal(frozenset({0, 2}), frozenset())
    # First hand of a table: everybody, whoever arrived.
    assert next_deal(TableSeats(1, 4, seats("A B W -"), arrived=frozenset({2}))).dealt == \
        {0, 1, 2}


def test_r9_7_a_later_arrival_can_put_an_earlier_one_on_the_small_blind() -> None:
    # Regression (found by the tournament property): 3 seats, 1:E alone; last hand SB 1, BB 2
    # (seat 2's player eliminated). F arrives on seat 2: heads-up with E, so no wait.
    table = TableSeats(2, 3, seats("- E -"), 2, 1)
    assert not must_wait(table, 2)
    table = apply_moves([table, TableSeats(3, 3, seats("F G -"), 1, 0)],
                        [Move("F", 3, 0, 2, 2, False)])[0]
    # Then G arrives on seat 0. Three-handed the next hand is BB 0 (G, the next seat after 2),
    # SB 2 (F!), button 1: F would be dealt in on the small blind, so F waits; E and G play
    # heads-up (E button and small blind, G big blind).
    assert not must_wait(table, 0)
    table = apply_moves([table, TableSeats(3, 3, seats("- G -"), 1, 0)],
                        [Move("G", 3, 1, 2, 0, False)])[0]
    assert table.arrived == {0, 2}
    deal = next_deal(table)
    assert deal == Deal(frozenset({0, 1}), frozenset({2}))
    # After that hand (BB 0, SB position 1), the big blind goes to E (1), then reaches F (2).
    table = table.after_deal(deal, 0, 1)
    assert next_deal(table) == Deal(frozenset({0, 1}), frozenset({2}))
    table = table.after_deal(next_deal(table), 1, 0)
    assert next_deal(table) == Deal(frozenset({0, 1, 2}), frozenset())


# -- R9.7 breaking and the final table ---------------------------------------------------------


def test_r9_7_break_highest_table_spreads_players_to_the_shortest_tables() -> None:
    t1 = TableSeats(1, 9, seats("A B C D E F G - -"), 3, 2)  # 7
    t2 = TableSeats(2, 9, seats("H I - J K - L M -"), 4, 3)  # 6
    t3 = TableSeats(3, 9, seats("N - O P - Q - R -"), 5, 3)  # 5: the highest number breaks
    # 18 players fit at 2 tables. The then-shortest table for each mover, by hand:
    #   7,6 -> table 2; 7,7 tie -> table 1; 8,7 -> 2; 8,8 tie -> 1; 9,8 -> 2; 9,9.
    assert tables_needed(18, 9) == 2
    first_movers, first_seats = set(), set()
    for s in range(40):
        tables = [t1, t2, t3]
        moves = break_table(tables, seeded_random(s))
        assert [m.to_table for m in moves] == [2, 1, 2, 1, 2]
        assert all(m.from_table == 3 and t3.seats[m.from_seat] == m.player for m in moves)
        assert sorted(m.player for m in moves) == ["N", "O", "P", "Q", "R"]
        current = {t.number: t for t in tables}
        for m in moves:
            assert current[m.to_table].seats[m.to_seat] is None  # only empty seats
            assert m.wait_for_big_blind == must_wait(current[m.to_table], m.to_seat)
            current = {t.number: t for t in apply_moves(list(current.values()), [m])}
        after = apply_moves(tables, moves)
        assert [t.number for t in after] == [1, 2]
        assert [t.player_count for t in after] == [9, 9]
        assert everyone(after) == sorted("ABCDEFGHIJKLMNOPQR")
        first_movers.add(moves[0].player)
        first_seats.add(moves[0].to_seat)
    # Random order and random seats (table 2's empty seats are 2, 5 and 8).
    assert first_movers == {"N", "O", "P", "Q", "R"}
    assert first_seats == {2, 5, 8}


def test_r9_7_break_table_refuses_when_players_do_not_fit() -> None:
    t1 = TableSeats(1, 4, seats("A B C -"), 1, 0)
    t2 = TableSeats(2, 4, seats("D E - -"), 1, 0)
    with pytest.raises(SeatingError):
        break_table([t1, t2], seeded_random(0))
    with pytest.raises(SeatingError):
        break_table([t1], seeded_random(0))


def test_r9_7_final_table_has_every_remaining_player_once_on_random_seats() -> None:
    tables = [TableSeats(1, 9, seats("A - B - C - D - -"), 6, 4),
              TableSeats(2, 9, seats("- E - F - G - - -"), 5, 3),
              TableSeats(3, 9, seats("H - - - - - - - I"), 8, 0, frozenset({8}))]
    assert tables_needed(9, 9) == 1
    layouts = set()
    for s in range(30):
        final = final_table(tables, 9, seeded_random(s))
        assert final.number == 1 and final.seat_count == 9
        assert sorted(final.players) == list("ABCDEFGHI")
        # A fresh table: no last blinds, so the engine's caller draws the button at random.
        assert final.last_big_blind_seat is None and final.last_small_blind_position is None
        assert not final.waiting and next_positions(final) is None
        layouts.add(final.seats)
    assert len(layouts) == 30
    with pytest.raises(SeatingError):
        final_table(tables, 8, seeded_random(0))


def test_r9_7_a_player_on_two_tables_is_refused() -> None:
    t1 = TableSeats(1, 4, seats("A B C -"), 1, 0)
    t2 = TableSeats(2, 4, seats("A E - -"), 1, 0)
    with pytest.raises(SeatingError):
        balance_move([t1, t2], 1)
    with pytest.raises(SeatingError):
        TableSeats(1, 4, seats("A A - -"))
    with pytest.raises(SeatingError):
        apply_moves([t1, TableSeats(2, 4, seats("D E - -"), 1, 0)],
                    [Move("B", 1, 1, 2, 0, False)])  # seat 0 of table 2 is taken


def test_r9_7_tables_needed() -> None:
    assert [tables_needed(n, 9) for n in (1, 9, 10, 18, 19, 27, 28)] == [1, 1, 2, 2, 3, 3, 4]
    assert tables_needed(3, 2) == 2


# -- R9.8 and R9.11 ----------------------------------------------------------------------------


def test_r9_8_bubble_is_one_player_before_the_prizes() -> None:
    # 9 places paid: with 10 left the next elimination reaches the prizes: hand-for-hand.
    assert bubble(10, 9)
    assert not bubble(11, 9)
    assert not bubble(9, 9)  # in the money: back to normal play
    with pytest.raises(SeatingError):
        bubble(-1, 9)


def test_r9_11_late_entrant_takes_a_random_empty_seat_of_the_shortest_table() -> None:
    t1 = TableSeats(1, 6, seats("A B C D E -"), 2, 1)
    t2 = TableSeats(2, 6, seats("F - G H - -"), 2, 0)  # 3 players, tie with table 3
    t3 = TableSeats(3, 6, seats("I J K - - -"), 1, 0)
    places = {seat_late_entrant([t1, t2, t3], "Z", seeded_random(s)) for s in range(30)}
    assert {(p.table, p.seat) for p in places if p is not None} == {(2, 1), (2, 4), (2, 5)}
    # Table 2: last SB 0, last BB 2 -> next hand BB 3, SB 2, button 0: seat 1 is in the gap
    # (decision: a late entrant waits there like a moved player); seats 4 and 5 are dealt in.
    assert {p.seat for p in places if p is not None and p.wait_for_big_blind} == {1}
    late = t2.arrive(1, "Z", wait_for_big_blind=True)
    assert late.waiting == {1} and next_deal(late) == Deal(frozenset({0, 2, 3}), frozenset({1}))
    assert t2.arrive(4, "Z").arrived == {4} and 4 in next_deal(t2.arrive(4, "Z")).dealt
    with pytest.raises(SeatingError):
        t2.arrive(0, "Z")  # taken
    full = TableSeats(1, 2, seats("A B"), 1, 0)
    assert seat_late_entrant([full], "Z", seeded_random(0)) is None
    with pytest.raises(SeatingError):
        seat_late_entrant([t1], "A", seeded_random(0))


# -- R9.6 the positions are the engine's -------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seat_count=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
def test_r9_6_next_positions_are_the_engines_dead_button_positions(seat_count: int,
                                                                    seed: int) -> None:
    """R2.6/R9.6: with players leaving and arriving between hands, the button, small blind
    position and big blind predicted from the light values are those the engine deals."""
    rng = random.Random(seed)
    state = TableState.new(TableConfig(seat_count=seat_count))
    count = rng.randrange(2, seat_count + 1)
    names = iter(f"p{i}" for i in range(1000))
    for seat in rng.sample(range(seat_count), count):
        state, _ = apply(state, SitDown(seat_index=seat, player_id=next(names), stack=1000))
    first = rng.choice([i for i, s in enumerate(state.seats) if s])
    for hand_number in range(10):
        predicted = next_positions(from_engine(state))
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)),
                                          button=first if hand_number == 0 else None))
        hand = state.hand
        assert hand is not None
        if hand_number:
            assert predicted == Positions(hand.button, hand.small_blind_position,
                                          hand.big_blind_seat)
        state = fold_around(state)
        occupied = [i for i, s in enumerate(state.seats) if s]
        empty = [i for i, s in enumerate(state.seats) if not s]
        if len(occupied) > 2 and rng.random() < 0.4:
            state, _ = apply(state, StandUp(seat_index=rng.choice(occupied)))
        if empty and rng.random() < 0.4:
            state, _ = apply(state, SitDown(seat_index=rng.choice(empty),
                                            player_id=next(names), stack=1000))


# -- properties: a whole tournament --------------------------------------------------------------


class Tournament:
    """A random multi-table tournament driven by the seating rules, with the engine's own
    ``_positions`` placing the blinds of every hand (first button drawn at random)."""

    def __init__(self, players: int, seats_per_table: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seats_per_table = seats_per_table
        self.left = {f"p{i}" for i in range(players)}
        self.tables = initial_seating(sorted(self.left), seats_per_table, self.rng)
        self.arrived: set[str] = set()  # moved players not yet dealt in at their new table
        self.moves = 0
        self.waits = 0
        self.spared = 0
        """Balancing moves sent past the shortest table because it is next to break."""
        self.check()

    def table(self, number: int) -> TableSeats | None:
        return next((t for t in self.tables if t.number == number), None)

    def replace(self, table: TableSeats) -> None:
        self.tables = [table if t.number == table.number else t for t in self.tables]

    def check(self) -> None:
        seated = [p for t in self.tables for p in t.players]
        assert sorted(seated) == sorted(self.left)  # nobody on two tables, nobody on none
        assert len(self.tables) == tables_needed(len(self.left), self.seats_per_table)
        assert [t.number for t in self.tables] == list(range(1, len(self.tables) + 1))

    def play_hand(self, number: int, eliminate: bool) -> None:
        table = self.table(number)
        if table is None:
            return
        deal = next_deal(table)
        if len(deal.dealt) < 2:
            return
        n = table.seat_count
        state = TableState.new(TableConfig(seat_count=n))
        state.last_big_blind_seat = table.last_big_blind_seat
        state.last_small_blind_position = table.last_small_blind_position
        first = self.rng.choice(sorted(deal.dealt)) if table.last_big_blind_seat is None else None
        button, _, sb_position, big_blind = engine._positions(state, set(deal.dealt), first)
        if table.last_big_blind_seat is not None:
            assert big_blind == next_big_blind_seat(table)
        for seat in table.waiting & deal.dealt:
            # R9.7: a waiting player comes in on the big blind (or when the table could not
            # deal otherwise: fewer than two players left to deal in).
            assert seat == big_blind or deal.dealt == table.occupied_seats
        regulars = deal.dealt - table.waiting - table.arrived
        for seat in deal.dealt:
            player = table.seats[seat]
            assert player is not None
            if player in self.arrived:
                # R9.7: a moved player is never dealt in on the small blind or between the
                # button and the small blind (unless the table could not deal otherwise; a
                # table's first hand deals everybody seated around a button drawn at random).
                if len(regulars) >= 2 and table.last_big_blind_seat is not None:
                    assert not in_gap(seat, button, sb_position, n), (table, seat)
                self.arrived.discard(player)
        table = table.after_deal(deal, big_blind, sb_position)
        if eliminate:
            count = self.rng.randrange(1, min(3, len(deal.dealt) - 1) + 1)
            out = {table.seats[seat] for seat in self.rng.sample(sorted(deal.dealt), count)}
            gone = {p for p in out if p is not None}
            self.left -= gone
            self.arrived -= gone
            table = table.remove_players(gone)
        self.replace(table)
        self.settle(number)

    def apply(self, move: Move) -> None:
        destination = self.table(move.to_table)
        assert destination is not None and destination.seats[move.to_seat] is None
        self.tables = apply_moves(self.tables, [move])
        self.arrived.add(move.player)
        self.moves += 1
        self.waits += move.wait_for_big_blind

    def settle(self, finished: int) -> None:
        needed = tables_needed(len(self.left), self.seats_per_table)
        while len(self.tables) > needed:
            if needed == 1:
                self.tables = [final_table(self.tables, self.seats_per_table, self.rng)]
                self.arrived.clear()
            else:
                broken = max(t.number for t in self.tables)
                moves = break_table(self.tables, self.rng)
                after = apply_moves(self.tables, moves)
                for move in moves:
                    destination = next(t for t in after if t.number == move.to_table)
                    waits = next_deal(destination).waiting
                    assert move.wait_for_big_blind == (move.to_seat in waits)
                for move in moves:
                    assert move.from_table == broken
                    others = [t for t in self.tables if t.number != broken]
                    shortest = min(others, key=lambda t: (t.player_count, t.number))
                    assert move.to_table == shortest.number
                    self.apply(move)
                assert self.table(broken) is None
        source = self.table(finished)
        while source is not None and (balance := balance_move(self.tables, finished)):
            # R9.7: the player who would be big blind next moves, into the empty seat the big
            # blind of the shortest table reaches soonest; the table next to break (the
            # highest number) only when no other table has two fewer than the source.
            assert balance.from_seat == next_big_blind_seat(source)
            others = [t for t in self.tables if t.number != finished]
            shortest = min(others, key=lambda t: (t.player_count, t.number))
            last = max(t.number for t in self.tables)
            takers = [t for t in others if t.number != last
                      and source.player_count - t.player_count >= 2]
            if shortest.number == last and takers:
                shortest = min(takers, key=lambda t: (t.player_count, t.number))
                self.spared += 1
            assert balance.to_table == shortest.number
            assert balance.wait_for_big_blind == must_wait(shortest, balance.to_seat)
            last_bb = shortest.last_big_blind_seat
            if last_bb is not None:
                steps = [(s - last_bb - 1) % shortest.seat_count for s in shortest.empty_seats]
                assert (balance.to_seat - last_bb - 1) % shortest.seat_count == min(steps)
            self.apply(balance)
            source = self.table(finished)
        if source is not None:
            sizes = [t.player_count for t in self.tables]
            assert source.player_count <= min(sizes) + 1
        self.check()

    def round(self, eliminate: float) -> None:
        numbers = [t.number for t in self.tables]
        self.rng.shuffle(numbers)
        for number in numbers:
            self.play_hand(number, self.rng.random() < eliminate)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 60), seats_per_table=st.integers(2, 10),
       seed=st.integers(0, 2**32 - 1), eliminate=st.sampled_from([0.2, 0.5, 0.9]))
def test_r9_7_random_tournaments_keep_seating_consistent(players: int, seats_per_table: int,
                                                          seed: int, eliminate: float) -> None:
    """R9.7, R9.2, R9.6: through random eliminations with breaking and balancing, every
    remaining player sits at exactly one table, the number of tables is always tables_needed,
    moves only go to empty seats, the finished table is within one player of the shortest after
    it balances, and after a round without eliminations every table is within one player."""
    tournament = Tournament(players, seats_per_table, seed)
    for _ in range(400):
        if len(tournament.left) <= 1:
            break
        quiet = tournament.rng.random() < 0.3
        tournament.round(0.0 if quiet else eliminate)
        if quiet:
            sizes = [t.player_count for t in tournament.tables]
            assert max(sizes) - min(sizes) <= 1, sizes
    assert len(tournament.left) == 1 and len(tournament.tables) == 1


def test_r9_7_random_tournaments_exercise_moves_and_waits() -> None:
    """The property above is not vacuous: its tournaments move players, some of them wait, and
    some balancing moves pass over the table next to break."""
    moves = waits = spared = 0
    for seed in range(40):
        tournament = Tournament(45, 9, seed)
        while len(tournament.left) > 1:
            tournament.round(0.5)
        moves += tournament.moves
        waits += tournament.waits
        spared += tournament.spared
    assert moves > 200 and waits > 5 and spared > 0, (moves, waits, spared)
