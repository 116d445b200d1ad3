""":mod:`naiko.tournaments.seating` seats the players of multi-table tournaments (RULES.md R9.2,
R9.6-R9.8, R9.11): the first draw, balancing, breaking tables and the final table.

Everything here is a pure function of light values (:class:`TableSeats`, what the service keeps
on a tournament's table items) and of a random source passed in; nothing reads the engine's state.
"Clockwise" is increasing seat index, as in the engine.

After a table finishes a hand, the service (between hands of every table concerned, R9.7) does:

1. remove the players eliminated in that hand (R9.5);
2. while ``len(tables) > tables_needed(players_left, seats_per_table)``: if one table is needed,
   replace every table by :func:`final_table`, otherwise apply :func:`break_table` (it breaks the
   highest-numbered table: tables break in the published order 'highest number first');
3. while :func:`balance_move` for the finished table returns a move, apply it (each call moves one
   player; the table deals only once it is within one player of the shortest). With moves that
   wait for a destination's hand, :func:`balance_destinations` on the counts (moves decided
   included) plans them all at once, for the players :func:`big_blind_order` lists first;
4. before each hand of a table, :func:`next_deal` says which seats are dealt in (players who
   arrived on the small blind or between the button and the small blind wait for the big blind,
   R9.7); store :meth:`TableSeats.after_deal` once the hand has started. Hand-for-hand play
   (:func:`bubble`, R9.8) holds every table's next hand until all tables have finished their
   current one.

:func:`apply_moves` and :meth:`TableSeats.remove_players` apply moves and eliminations to the
values; the service does the same on its items (each player keeps their stack, R9.7).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ..cards import RandomSource
from ..errors import EngineError
from ..state import MAX_SEATS, MIN_SEATS

__all__ = [
    "Deal",
    "LateSeat",
    "Move",
    "Positions",
    "SeatingError",
    "TableSeats",
    "apply_moves",
    "balance_destinations",
    "balance_move",
    "big_blind_order",
    "break_table",
    "bubble",
    "final_table",
    "initial_seating",
    "must_wait",
    "next_big_blind_seat",
    "next_deal",
    "next_positions",
    "next_to_break",
    "seat_late_entrant",
    "seat_reached_soonest",
    "shortest_table",
    "tables_needed",
]

_T = TypeVar("_T")


class SeatingError(EngineError):
    """The tables or the request are impossible (a player twice, a move into a taken seat,
    more players than seats...)."""

    code = "seating_error"


@dataclass(frozen=True, slots=True)
class TableSeats:
    """Who sits where at one table of a tournament, and where its blinds were.

    >>> t = TableSeats(number=1, seat_count=4, seats=("a", None, "b", "c"),
    ...                last_big_blind_seat=2, last_small_blind_position=0)
    >>> t.player_count, t.empty_seats
    (3, (1,))
    """

    number: int
    """The table's number, from 1: the published order (the highest number breaks first)."""
    seat_count: int
    """Seats at the table (R1.6: 2 to 10)."""
    seats: tuple[str | None, ...]
    """The player id in each seat (``seat_index`` from 0), ``None`` for an empty seat."""
    last_big_blind_seat: int | None = None
    """The engine's :attr:`naiko.state.TableState.last_big_blind_seat`: where last hand's big
    blind was; ``None`` before the table's first hand."""
    last_small_blind_position: int | None = None
    """The engine's :attr:`naiko.state.TableState.last_small_blind_position`: where last hand's
    small blind fell (possibly dead); ``None`` before the table's first hand."""
    waiting: frozenset[int] = field(default_factory=frozenset)
    """Seats of players who arrived (moved in, or late entrants) on the small blind or between
    the button and the small blind: they wait there, without posting, until the big blind
    reaches them (R9.7). Seats that hold a player."""
    arrived: frozenset[int] = field(default_factory=frozenset)
    """Seats of players who arrived since the table's last hand and have not been dealt in
    here yet: :func:`next_deal` decides at the next hand whether they wait (the positions are
    only known then, when every move to the table is done). Seats that hold a player."""

    def __post_init__(self) -> None:
        n = self.seat_count
        if self.number < 1:
            raise SeatingError(f"table numbers start at 1, not {self.number}")
        if not MIN_SEATS <= n <= MAX_SEATS:
            raise SeatingError(f"seat_count must be {MIN_SEATS}..{MAX_SEATS}, not {n}")
        if len(self.seats) != n:
            raise SeatingError(f"table {self.number} has {n} seats but {len(self.seats)} given")
        players = [p for p in self.seats if p is not None]
        if len(set(players)) != len(players):
            raise SeatingError(f"a player sits twice at table {self.number}: {self.seats}")
        for name, seat in (("last_big_blind_seat", self.last_big_blind_seat),
                           ("last_small_blind_position", self.last_small_blind_position)):
            if seat is not None and not 0 <= seat < n:
                raise SeatingError(f"{name} {seat} is not a seat of table {self.number}")
        if self.last_big_blind_seat is None and self.last_small_blind_position is not None:
            raise SeatingError("a small blind position without a big blind seat")
        for name, group in (("waiting", self.waiting), ("arrived", self.arrived)):
            if any(not 0 <= s < n or self.seats[s] is None for s in group):
                raise SeatingError(f"{name} seats {sorted(group)} must hold players")

    @classmethod
    def empty(cls, number: int, seat_count: int) -> TableSeats:
        """A table with nobody seated that has not dealt yet.

        :param number: The table's number (from 1).
        :param seat_count: Its seats.
        :raises SeatingError: If a value is out of range.
        """
        return cls(number=number, seat_count=seat_count, seats=(None,) * seat_count)

    @property
    def player_count(self) -> int:
        """Players seated (waiting ones included: they are at this table)."""
        return sum(p is not None for p in self.seats)

    @property
    def players(self) -> tuple[str, ...]:
        """The seated players, in seat order."""
        return tuple(p for p in self.seats if p is not None)

    @property
    def occupied_seats(self) -> frozenset[int]:
        """The seats that hold a player."""
        return frozenset(i for i, p in enumerate(self.seats) if p is not None)

    @property
    def empty_seats(self) -> tuple[int, ...]:
        """The empty seats, in seat order."""
        return tuple(i for i, p in enumerate(self.seats) if p is None)

    def seat_of(self, player: str) -> int | None:
        """The seat of *player* at this table, ``None`` if they are not here."""
        for i, p in enumerate(self.seats):
            if p == player:
                return i
        return None

    def remove_players(self, players: Collection[str]) -> TableSeats:
        """The table without *players* (eliminated, R9.5); the blinds' history stays, so the
        dead-button rule goes on (R9.6).

        :param players: Player ids; those not at this table are ignored.
        """
        gone = frozenset(i for i, p in enumerate(self.seats) if p is not None and p in players)
        seats = tuple(None if i in gone else p for i, p in enumerate(self.seats))
        return replace(self, seats=seats, waiting=self.waiting - gone,
                       arrived=self.arrived - gone)

    def arrive(self, seat: int, player: str, wait_for_big_blind: bool = False) -> TableSeats:
        """The table once *player* (moved in, or a late entrant) sat at the empty *seat*: in
        :attr:`waiting` when told to wait for the big blind, otherwise in :attr:`arrived`.

        :param seat: An empty seat.
        :param player: The player's id.
        :param wait_for_big_blind: The ``wait_for_big_blind`` of the :class:`Move` or
            :class:`LateSeat`.
        :raises SeatingError: If the seat is taken or the player already sits here.
        """
        if not 0 <= seat < self.seat_count or self.seats[seat] is not None:
            raise SeatingError(f"seat {seat} of table {self.number} is not an empty seat")
        seats = tuple(player if i == seat else p for i, p in enumerate(self.seats))
        if wait_for_big_blind:
            return replace(self, seats=seats, waiting=self.waiting | {seat})
        return replace(self, seats=seats, arrived=self.arrived | {seat})

    def after_deal(self, deal: Deal, big_blind_seat: int,
                   small_blind_position: int) -> TableSeats:
        """The table once the hand planned by *deal* has started: the engine's big blind seat
        and small blind position of that hand become the last ones, the players who arrived
        have been placed (dealt in, or waiting), and the waiting players dealt in stop waiting.

        :param deal: The :func:`next_deal` the hand was started with.
        :param big_blind_seat: The hand's big blind seat (the engine's ``big_blind_seat``).
        :param small_blind_position: The hand's small blind position (``small_blind_position``).
        :raises SeatingError: If a seat is not a seat of the table.
        """
        return replace(self, last_big_blind_seat=big_blind_seat,
                       last_small_blind_position=small_blind_position,
                       waiting=deal.waiting, arrived=frozenset())


@dataclass(frozen=True, slots=True)
class Move:
    """One player moved between tables between hands, keeping their stack (R9.7)."""

    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    wait_for_big_blind: bool
    """:func:`must_wait` at the move: the destination seat is the small blind's or between the
    button and the small blind for the destination's next hand, so the player waits there,
    without posting, until the big blind reaches them (R9.7). A player told to wait waits;
    when more players arrive at that table before it deals, :func:`next_deal` may also keep
    one told otherwise out until the big blind reaches them."""


@dataclass(frozen=True, slots=True)
class LateSeat:
    """Where a late entrant sits (R9.11), and whether they wait for the big blind there."""

    player: str
    table: int
    seat: int
    wait_for_big_blind: bool


@dataclass(frozen=True, slots=True)
class Deal:
    """Who is dealt into a table's next hand (:func:`next_deal`)."""

    dealt: frozenset[int]
    """The seats dealt in: for the engine, every other seated player sits this hand out."""
    waiting: frozenset[int]
    """The seats that wait for the big blind after this hand is dealt
    (:attr:`TableSeats.waiting` from then on)."""


@dataclass(frozen=True, slots=True)
class Positions:
    """Button, small blind position (the seat may be empty: a dead small blind) and big blind of
    a table's next hand, as the engine's dead-button rule places them (R2.6, R9.6)."""

    button: int
    small_blind_position: int
    big_blind_seat: int


# -- the engine's dead-button rule on plain values ---------------------------------------------

def _next_seat(after: int, candidates: frozenset[int], n: int) -> int:
    """The first seat of *candidates* clockwise after *after* (never *after* itself); as
    ``naiko.engine._next_seat``."""
    for step in range(1, n + 1):
        seat = (after + step) % n
        if seat in candidates and seat != after:
            return seat
    raise AssertionError("no candidate seat")


def _previous_seat(before: int, candidates: frozenset[int], n: int) -> int:
    """The first seat of *candidates* counter-clockwise before *before*."""
    for step in range(1, n + 1):
        seat = (before - step) % n
        if seat in candidates and seat != before:
            return seat
    raise AssertionError("no candidate seat")


def _positions(n: int, active: frozenset[int], last_bb: int | None,
               last_sb: int | None) -> Positions | None:
    """The engine's ``_positions`` after the first hand (R2.6): the big blind on the next active
    seat after last hand's big blind, the small blind where that big blind was, the button where
    last hand's small blind fell (or the nearest active seat before the small blind when that
    would put the button inside the blinds). Heads-up the other player is button and small
    blind (R2.2). ``None`` before the first hand or with fewer than two players."""
    if last_bb is None or len(active) < 2:
        return None
    big_blind = _next_seat(last_bb, active, n)
    if len(active) == 2:
        other = _next_seat(big_blind, active, n)
        return Positions(other, other, big_blind)
    small_blind_position = last_bb
    to_sb = (small_blind_position - last_sb) % n if last_sb is not None else 0
    to_bb = (big_blind - last_sb) % n if last_sb is not None else 0
    if last_sb is not None and 0 < to_sb < to_bb:
        button = last_sb
    else:
        button = _previous_seat(small_blind_position, active - {big_blind}, n)
    return Positions(button, small_blind_position, big_blind)


def next_positions(table: TableSeats) -> Positions | None:
    """Where the engine puts the button and the blinds for the table's next hand if every seated
    player is dealt in (R2.6, R9.6).

    :param table: The table.
    :return: The positions; ``None`` before the table's first hand (the button is then drawn at
        random, R2.6, R9.2) or with fewer than two players seated.

    >>> t = TableSeats(1, 6, ("a", "b", None, "c", "d", None), 3, 1)
    >>> next_positions(t)
    Positions(button=1, small_blind_position=3, big_blind_seat=4)
    """
    return _positions(table.seat_count, table.occupied_seats, table.last_big_blind_seat,
                      table.last_small_blind_position)


def next_big_blind_seat(table: TableSeats) -> int | None:
    """The seat of the table's next big blind: the next occupied seat clockwise after last hand's
    big blind (R2.6; waiting players count, which is how the big blind reaches them).

    :param table: The table.
    :return: The seat; ``None`` before the table's first hand or with fewer than two players.

    >>> next_big_blind_seat(TableSeats(1, 6, ("a", "b", None, "c", None, "d"), 3, 1))
    5
    """
    positions = next_positions(table)
    return None if positions is None else positions.big_blind_seat


def _in_gap(seat: int, positions: Positions, n: int) -> bool:
    """On the small blind position or strictly between the button and it (R9.7)."""
    from_button = (seat - positions.button) % n
    return 0 < from_button <= (positions.small_blind_position - positions.button) % n


def next_deal(table: TableSeats) -> Deal:
    """Which seats are dealt into the table's next hand (R9.7, R9.6).

    Every seated player is dealt in except those who wait for the big blind: the
    :attr:`TableSeats.waiting` ones, and the :attr:`TableSeats.arrived` ones whose seat is, for
    this hand, the small blind position or between the button and the small blind. A waiting
    player is dealt in on the hand the big blind reaches them (:func:`next_big_blind_seat`).
    The positions are the engine's for exactly the seats dealt in, so the engine, dealing those
    seats, puts the button and blinds where this function assumed.

    Decisions: a table's first hand deals everybody seated (its button is drawn at random by
    the engine's caller, R2.6, R9.2). When waiting would leave fewer than two players dealt in,
    everybody seated is dealt in (a hand needs two players; otherwise the table would never
    deal again). Heads-up (two dealt in) the button is the small blind (R2.2): no seat lies
    between them, so nobody waits for that.

    :param table: The table, between hands.
    :return: The seats to deal in and those that wait. With fewer than two players seated the
        table cannot deal.

    Worked example: seats 0:a 1:b 2:w 3:c 4:d (5 empty), last hand small blind 1, big blind 3;
    w arrived on seat 2. Next hand: big blind 4, small blind 3, button 1: seat 2 lies between
    button and small blind, so w waits.

    >>> t = TableSeats(1, 6, ("a", "b", "w", "c", "d", None), 3, 1, arrived=frozenset({2}))
    >>> d = next_deal(t)
    >>> sorted(d.dealt), sorted(d.waiting)
    ([0, 1, 3, 4], [2])
    """
    return _deal(table.seat_count, table.occupied_seats, table.waiting, table.arrived,
                 table.last_big_blind_seat, table.last_small_blind_position)


def _deal(n: int, occupied: frozenset[int], waiting: frozenset[int], arrived: frozenset[int],
          last_bb: int | None, last_sb: int | None) -> Deal:
    """:func:`next_deal` on plain values."""
    if last_bb is None or len(occupied) < 2:
        return Deal(occupied, frozenset())
    big_blind = _next_seat(last_bb, occupied, n)  # the big blind reaches a waiting player here
    out = set(waiting) - {big_blind}
    positions = _positions(n, occupied - out, last_bb, last_sb)
    if positions is not None:
        out |= {s for s in arrived - out if _in_gap(s, positions, n)}
    dealt = occupied - out
    if positions is None or len(dealt) < 2:  # a hand needs two players: deal everybody
        return Deal(occupied, frozenset())
    # Taking the arrivals in the gap out moves nothing: the big blind comes after the small
    # blind position (last hand's big blind seat), and the button stays last hand's small blind
    # position, or else the nearest dealt seat before the small blind position, which lies
    # outside the gap; with two left the engine deals heads-up (no gap, R2.2). So the engine,
    # dealing exactly *dealt*, puts nobody who arrived between the button and the small blind
    # or, three-handed or more, on the small blind.
    return Deal(dealt, frozenset(out))


def must_wait(table: TableSeats, seat: int) -> bool:
    """Whether a player who arrives now at *seat* of *table* (moved in, or a late entrant)
    would wait there, without posting, until the big blind reaches them (R9.7): whether
    :func:`next_deal` would keep *seat* out of the table's next hand, the table as it stands.

    Players who arrive later, before that hand, can change the positions: the final word is
    :func:`next_deal` at that hand, which only adds waits (a player told to wait waits, unless
    the table could not deal otherwise).

    :param table: The destination table, before or after the player sat at *seat*.
    :param seat: The seat (empty, or holding the arriving player).
    :raises SeatingError: If *seat* is not a seat of the table.

    Worked example: seats 0-5, seats 2 and 5 empty; last hand small blind 1, big blind 3. The
    next hand has its big blind on seat 4, the small blind on seat 3 and the button on seat 1,
    so a player arriving at seat 2 (between button and small blind) waits; one arriving at
    seat 5 is dealt in.

    >>> t = TableSeats(1, 6, ("a", "b", None, "c", "d", None), 3, 1)
    >>> must_wait(t, 2), must_wait(t, 5)
    (True, False)
    """
    if not 0 <= seat < table.seat_count:
        raise SeatingError(f"seat {seat} is not a seat of table {table.number}")
    arrived = table.arrived if seat in table.waiting else table.arrived | {seat}
    deal = _deal(table.seat_count, table.occupied_seats | {seat}, table.waiting, arrived,
                 table.last_big_blind_seat, table.last_small_blind_position)
    return seat in deal.waiting


# -- helpers -----------------------------------------------------------------------------------

def _shuffle(items: list[_T], rng: RandomSource) -> None:
    """Fisher-Yates with ``rng.randrange`` only (like :func:`naiko.cards.shuffled_deck`)."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randrange(i + 1)
        items[i], items[j] = items[j], items[i]


def _check_seats_per_table(seats_per_table: int) -> None:
    if not MIN_SEATS <= seats_per_table <= MAX_SEATS:
        raise SeatingError(f"seats_per_table must be {MIN_SEATS}..{MAX_SEATS}, "
                           f"not {seats_per_table}")


def _by_number(tables: Iterable[TableSeats]) -> dict[int, TableSeats]:
    """The tables by number, after checking that numbers are unique and no player sits twice."""
    result: dict[int, TableSeats] = {}
    seen: set[str] = set()
    for t in tables:
        if t.number in result:
            raise SeatingError(f"two tables numbered {t.number}")
        result[t.number] = t
        for p in t.players:
            if p in seen:
                raise SeatingError(f"player {p!r} sits at two tables (R9.7)")
            seen.add(p)
    return result


def _shortest(tables: Iterable[TableSeats]) -> TableSeats:
    """The table with the fewest players; ties: the lowest table number (R9.7)."""
    return min(tables, key=lambda t: (t.player_count, t.number))


def _unseat(table: TableSeats, seat: int, player: str) -> TableSeats:
    if table.seats[seat] != player:
        raise SeatingError(f"{player!r} is not at seat {seat} of table {table.number}")
    seats = list(table.seats)
    seats[seat] = None
    return replace(table, seats=tuple(seats), waiting=table.waiting - {seat},
                   arrived=table.arrived - {seat})


def _random_layout(players: Sequence[str], seat_count: int,
                   rng: RandomSource) -> tuple[str | None, ...]:
    """*players* on random distinct seats of a *seat_count*-seat table."""
    seat_order = list(range(seat_count))
    _shuffle(seat_order, rng)
    seats: list[str | None] = [None] * seat_count
    for player, seat in zip(players, seat_order, strict=False):
        seats[seat] = player
    return tuple(seats)


# -- the rules ---------------------------------------------------------------------------------

def tables_needed(players_left: int, seats_per_table: int) -> int:
    """The number of tables that *players_left* players fit at: ``ceil(players / seats)``.

    :param players_left: Players still in the tournament.
    :param seats_per_table: Seats at each table (2..10).
    :raises SeatingError: If a value is out of range.

    >>> tables_needed(19, 9), tables_needed(18, 9), tables_needed(1, 9)
    (3, 2, 1)
    """
    _check_seats_per_table(seats_per_table)
    if players_left < 0:
        raise SeatingError(f"players_left must be >= 0, not {players_left}")
    return -(-players_left // seats_per_table)


def initial_seating(players: Sequence[str], seats_per_table: int,
                    rng: RandomSource) -> list[TableSeats]:
    """The tournament's first seat draw (R9.2).

    ``ceil(N / seats_per_table)`` tables numbered from 1, as even as possible (sizes differ by at
    most one; the lower-numbered tables take the extra players), players and seats drawn at
    random. The tables have not dealt: the engine's caller draws each table's first button at
    random among its players when it deals (R2.6, R9.2).

    :param players: The entrants' ids (at least two, no repeats).
    :param seats_per_table: Seats at each table (2..10).
    :param rng: The random source (``randrange``).
    :raises SeatingError: If fewer than two players, a repeated id or a bad seat count.

    >>> from naiko.cards import seeded_random
    >>> tables = initial_seating([f"p{i}" for i in range(13)], 6, seeded_random(1))
    >>> [t.player_count for t in tables]
    [5, 4, 4]
    """
    _check_seats_per_table(seats_per_table)
    if len(players) < 2:
        raise SeatingError("a tournament needs at least two players")
    if len(set(players)) != len(players):
        raise SeatingError("a player is registered twice")
    order = list(players)
    _shuffle(order, rng)
    count = tables_needed(len(order), seats_per_table)
    base, extra = divmod(len(order), count)
    tables: list[TableSeats] = []
    start = 0
    for index in range(count):
        size = base + (1 if index < extra else 0)
        layout = _random_layout(order[start:start + size], seats_per_table, rng)
        tables.append(TableSeats(number=index + 1, seat_count=seats_per_table, seats=layout))
        start += size
    return tables


def seat_reached_soonest(table: TableSeats) -> int:
    """The empty seat the table's big blind reaches soonest (the worst position, R9.7).

    The big blind visits the occupied seats clockwise from the seat after last hand's big blind
    (R2.6), so a player put on the first empty seat clockwise after it is reached first: they
    are the next big blind if that seat comes before the next occupied one. A table that has
    not dealt has no big blind yet; its button will be drawn at random (R2.6), so every seat is
    as good: decision, the lowest empty seat.
    """
    empty = table.empty_seats
    if not empty:
        raise SeatingError(f"table {table.number} has no empty seat")
    last_bb = table.last_big_blind_seat
    if last_bb is None:
        return empty[0]
    n = table.seat_count
    return min(empty, key=lambda s: (s - last_bb - 1) % n)


def shortest_table(counts: Mapping[int, int], exclude: Collection[int] = ()) -> int | None:
    """The table with the fewest players among *counts* (table number -> players, counting the
    moves decided: a player waiting to move counts at the destination), ties: the lowest
    number (R9.7); ``None`` when every table is excluded.

    >>> shortest_table({1: 6, 2: 5, 3: 5}), shortest_table({1: 6, 2: 5}, exclude={2})
    (2, 1)
    """
    candidates = [(count, number) for number, count in counts.items() if number not in exclude]
    return min(candidates)[1] if candidates else None


def next_to_break(counts: Mapping[int, int], breaking: Collection[int] = ()) -> int | None:
    """The table next in the published breaking order (the highest number first, R9.7) among
    the tables not breaking yet; ``None`` when there is none."""
    live = [number for number in counts if number not in breaking]
    return max(live) if live else None


def balance_destinations(counts: Mapping[int, int], source: int,
                         breaking: Collection[int] = ()) -> list[int]:
    """Where the balancing moves from table *source* go (R9.7), in order: while *source* has
    two or more players more than the shortest other table, one more player moves, to the
    shortest table (ties: the lowest number), except that the table next in the breaking order
    (:func:`next_to_break`) gets no move while another table can take the player (it has two
    or more fewer than *source*: the move leaves it no bigger than *source*). Each move counts
    at both tables before the next is decided; *counts* already count the moves decided
    earlier. Tables in *breaking* neither give nor take.

    :param counts: Table number -> players, moves decided included.
    :param source: The table that finished a hand.
    :param breaking: Tables being broken.
    :return: One destination per move (possibly repeated); empty when *source* is within one
        player of the shortest table.
    :raises SeatingError: If *source* is not in *counts*.

    Seven against three: two moves, five and five. Table 3 is next to break; table 2 can
    take the first player (6 against 8), so table 3 gets only the second:

    >>> balance_destinations({1: 7, 2: 3}, 1)
    [2, 2]
    >>> balance_destinations({1: 8, 2: 6, 3: 5}, 1)
    [2, 3]
    """
    if source not in counts:
        raise SeatingError(f"no table numbered {source}")
    if source in breaking:
        return []
    work = dict(counts)
    last = next_to_break(work, breaking)
    others = {n for n in work if n != source and n not in breaking}
    destinations: list[int] = []
    while others:
        shortest = shortest_table({n: work[n] for n in others})
        assert shortest is not None
        if work[source] - work[shortest] < 2:
            break
        target = shortest
        if target == last:
            takers = {n: work[n] for n in others
                      if n != last and work[source] - work[n] >= 2}
            target = shortest_table(takers) or shortest
        work[source] -= 1
        work[target] += 1
        destinations.append(target)
    return destinations


def big_blind_order(table: TableSeats) -> list[int]:
    """The occupied seats in the order the table's big blind reaches them: the next big blind
    first (:func:`next_big_blind_seat`), then clockwise. Balancing moves "the player who would
    be big blind next, then the next such player" (R9.7): the first seats of this list, as
    many as :func:`balance_destinations` returns.

    :return: The seats; empty before the table's first hand.

    >>> big_blind_order(TableSeats(1, 6, ("a", "b", None, "c", None, "d"), 3, 1))
    [5, 0, 1, 3]
    """
    last_bb = table.last_big_blind_seat
    if last_bb is None:
        return []
    n = table.seat_count
    return [s for s in ((last_bb + step) % n for step in range(1, n + 1))
            if table.seats[s] is not None]


def balance_move(tables: Sequence[TableSeats], finished_table: int) -> Move | None:
    """The balancing move after table *finished_table* finished a hand (R9.7, R9.6).

    When that table has two or more players more than the shortest other table (ties: the
    lowest table number), the player who would be its big blind next (the next occupied seat
    clockwise after its last big blind, :func:`next_big_blind_seat`) moves to the shortest
    table (the highest-numbered table, next to break, only when no other table has two fewer:
    :func:`balance_destinations`), into the empty seat that table's big blind reaches soonest:
    the first empty seat clockwise after its last big blind (at a table that has not dealt
    yet, the lowest empty seat). The move's ``wait_for_big_blind`` is :func:`must_wait` for
    that seat.

    One move per call, on the seats as they are: apply it (:func:`apply_moves`) and call again
    until ``None``, all before the table deals. The move happens only between hands of both
    tables (the caller's job, R9.7). The service, whose moves may wait for a destination's
    hand, plans them all at once on counts instead (:func:`balance_destinations`,
    :func:`big_blind_order`).

    :param tables: Every table of the tournament.
    :param finished_table: The number of the table that just finished a hand.
    :return: The move, or ``None`` when the table is within one player of the shortest.
    :raises SeatingError: If *finished_table* is not a table, a player sits twice, or the
        table that would give a player has never dealt (it cannot have finished a hand).

    Worked example: table 1 (6 seats) had its big blind on seat 2 and holds five players; table
    2 holds three, its last big blind on seat 4. Table 1's next big blind is seat 3 (the next
    occupied seat after 2); the first empty seat after table 2's seat 4 is seat 5.

    >>> t1 = TableSeats(1, 6, ("a", "b", "c", "d", "e", None), 2, 1)
    >>> t2 = TableSeats(2, 6, ("f", None, None, "g", "h", None), 4, 3)
    >>> balance_move([t1, t2], 1)
    Move(player='d', from_table=1, from_seat=3, to_table=2, to_seat=5, wait_for_big_blind=False)
    """
    by_number = _by_number(tables)
    source = by_number.get(finished_table)
    if source is None:
        raise SeatingError(f"no table numbered {finished_table}")
    destinations = balance_destinations({n: t.player_count for n, t in by_number.items()},
                                        finished_table)
    if not destinations:
        return None
    target = by_number[destinations[0]]
    from_seat = next_big_blind_seat(source)
    if from_seat is None:
        raise SeatingError(f"table {finished_table} has not dealt a hand: it has no big blind "
                           "to move (R9.7 balances after a hand)")
    player = source.seats[from_seat]
    assert player is not None
    to_seat = seat_reached_soonest(target)
    return Move(player=player, from_table=source.number, from_seat=from_seat,
                to_table=target.number, to_seat=to_seat,
                wait_for_big_blind=must_wait(target, to_seat))


def break_table(tables: Sequence[TableSeats], rng: RandomSource) -> list[Move]:
    """Break the highest-numbered table (R9.7).

    Its players go one by one, in random order, each to a random empty seat of the then
    shortest other table (ties: the lowest number): each move counts the players moved before
    it. Each move's ``wait_for_big_blind`` says whether :func:`next_deal` would keep the player
    out of the destination's next hand once every player of the broken table is seated (they
    wait for the big blind there, R9.7). Call it when the remaining players fit
    at one table fewer (:func:`tables_needed`) and more than one table is needed; when one is
    enough, form the :func:`final_table` instead.

    :param tables: Every table of the tournament (at least two).
    :param rng: The random source (``randrange``).
    :return: The moves, in order; :func:`apply_moves` removes the emptied table.
    :raises SeatingError: If there is one table, a player sits twice, or the other tables lack
        the empty seats.
    """
    by_number = _by_number(tables)
    if len(by_number) < 2:
        raise SeatingError("breaking a table needs another table to move its players to")
    broken = by_number.pop(max(by_number))
    movers = [(seat, p) for seat, p in enumerate(broken.seats) if p is not None]
    room = sum(len(t.empty_seats) for t in by_number.values())
    if len(movers) > room:
        raise SeatingError(f"table {broken.number}'s {len(movers)} players do not fit in the "
                           f"{room} empty seats of the other tables")
    _shuffle(movers, rng)
    placed: list[tuple[int, str, int, int]] = []
    for from_seat, player in movers:
        target = _shortest(by_number.values())
        empty = target.empty_seats
        to_seat = empty[rng.randrange(len(empty))]
        placed.append((from_seat, player, target.number, to_seat))
        by_number[target.number] = target.arrive(to_seat, player)
    waits = {number: next_deal(t).waiting for number, t in by_number.items()}
    return [Move(player=player, from_table=broken.number, from_seat=from_seat, to_table=number,
                 to_seat=to_seat, wait_for_big_blind=to_seat in waits[number])
            for from_seat, player, number, to_seat in placed]


def apply_moves(tables: Sequence[TableSeats], moves: Iterable[Move]) -> list[TableSeats]:
    """The tables after *moves*, in order: each player leaves their seat and takes the
    destination seat, in :attr:`TableSeats.waiting` when ``wait_for_big_blind``, otherwise in
    :attr:`TableSeats.arrived` (decided at the next hand, :func:`next_deal`). A table that the
    moves empty (a broken table) is removed. The tables' last blinds are unchanged: the
    dead-button rule carries on at both tables (R9.6).

    :param tables: The tables.
    :param moves: Moves from :func:`balance_move` or :func:`break_table`.
    :return: The new tables, ordered by number.
    :raises SeatingError: If a move's player is not at its source seat, or its destination
        seat is taken (moves only ever go to empty seats).
    """
    by_number = _by_number(tables)
    had_players = {n for n, t in by_number.items() if t.player_count}
    for move in moves:
        source = by_number.get(move.from_table)
        target = by_number.get(move.to_table)
        if source is None or target is None or source is target:
            raise SeatingError(f"bad tables in {move}")
        by_number[move.from_table] = _unseat(source, move.from_seat, move.player)
        by_number[move.to_table] = target.arrive(move.to_seat, move.player,
                                                 move.wait_for_big_blind)
    return [t for n, t in sorted(by_number.items())
            if t.player_count or n not in had_players]


def final_table(tables: Sequence[TableSeats], seats_per_table: int,
                rng: RandomSource) -> TableSeats:
    """The final table, when every remaining player fits at one table (R9.7): every player of
    every table, each once, on seats drawn at random, at a table with a fresh state (no last
    blinds, nobody waiting or arrived), so the engine's caller draws its button at random
    (R2.6). It takes the lowest number of the tables it replaces.

    :param tables: Every table of the tournament.
    :param seats_per_table: Seats at the final table (2..10).
    :param rng: The random source (``randrange``).
    :raises SeatingError: If there is no table, a player sits twice, or the players do not fit.
    """
    _check_seats_per_table(seats_per_table)
    by_number = _by_number(tables)
    if not by_number:
        raise SeatingError("no table to form the final table from")
    players = [p for _, t in sorted(by_number.items()) for p in t.players]
    if len(players) > seats_per_table:
        raise SeatingError(f"{len(players)} players do not fit at one table of "
                           f"{seats_per_table} seats")
    _shuffle(players, rng)
    return TableSeats(number=min(by_number), seat_count=seats_per_table,
                      seats=_random_layout(players, seats_per_table, rng))


def seat_late_entrant(tables: Sequence[TableSeats], player: str,
                      rng: RandomSource) -> LateSeat | None:
    """Where a late entrant sits (R9.11): a random empty seat of the shortest table (ties: the
    lowest number). Decision: like a moved player (R9.7) they wait for the big blind when that
    seat is the small blind's or between the button and the small blind (:func:`must_wait`).

    :param tables: Every table of the tournament.
    :param player: The entrant's id.
    :param rng: The random source (``randrange``).
    :return: The seat (seat the player with :meth:`TableSeats.arrive`), or ``None`` when every
        table is full: the service then opens table ``len(tables) + 1``
        (:meth:`TableSeats.empty`) and balancing fills it (R9.7).
    :raises SeatingError: If the player is already seated or a player sits twice.
    """
    by_number = _by_number(tables)
    if any(player in t.players for t in by_number.values()):
        raise SeatingError(f"player {player!r} is already seated")
    if not by_number:
        return None
    target = _shortest(by_number.values())
    empty = target.empty_seats
    if not empty:
        return None
    seat = empty[rng.randrange(len(empty))]
    return LateSeat(player=player, table=target.number, seat=seat,
                    wait_for_big_blind=must_wait(target, seat))


def bubble(players_left: int, paid_places: int) -> bool:
    """Whether the tournament is on the bubble and plays hand-for-hand (R9.8): the next
    elimination would reach the prizes (``players_left == paid_places + 1``).

    Hand-for-hand: every table deals its next hand only after every table has finished its
    current one, so the tables play one hand at a time together and nobody can stall into the
    money; it stops when a player is eliminated. Players eliminated in the same hand-for-hand
    round at different tables are ranked by their stacks at the start of that hand (R9.5).

    :param players_left: Players still in.
    :param paid_places: Places that win a prize.
    :raises SeatingError: If a count is negative.

    >>> bubble(10, 9), bubble(9, 9), bubble(11, 9)
    (True, False, False)
    """
    if players_left < 0 or paid_places < 0:
        raise SeatingError(f"counts must be >= 0, not {players_left}, {paid_places}")
    return players_left == paid_places + 1
