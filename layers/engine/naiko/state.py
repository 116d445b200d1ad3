""":mod:`naiko.state` defines the table and hand state: plain dataclasses that round-trip
through JSON-compatible dicts (:meth:`TableState.to_dict` / :meth:`TableState.from_dict`).

The state holds hidden information (the deck order, every seat's hole cards). Never send it to a
client: :mod:`naiko.views` builds what a seat may see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

from .errors import MalformedCommand
from .events import ActionTaken, Event, event_from_dict

SCHEMA_VERSION = 1
"""Version of the dict layout produced by :meth:`TableState.to_dict`."""


class Variant(StrEnum):
    """The games a table can play."""

    NLHE = "NLHE"
    """No-Limit Texas Hold'em (R1.2)."""
    PLO = "PLO"
    """Pot-Limit Omaha (R1.3)."""
    NAIKO = "NAIKO"
    """No-Limit Hold'em with the four powers (R1.4)."""


class BettingStructure(StrEnum):
    """How large a bet or raise may be."""

    NO_LIMIT = "no_limit"
    """R3.1: up to the whole stack."""
    POT_LIMIT = "pot_limit"
    """R3.3: up to a pot-size raise."""


class AnteMode(StrEnum):
    """Who pays the ante (R2.8)."""

    NONE = "none"
    EACH = "each"
    """Every player dealt in posts the ante."""
    BIG_BLIND = "big_blind"
    """The big-blind player alone posts the ante for the table (tournament big-blind ante)."""


class EntryChoice(StrEnum):
    """How a player who owes blinds enters a hand at a cash table (R7.8)."""

    WAIT = "wait"
    """Wait until the big blind reaches the seat (then nothing is owed)."""
    POST = "post"
    """Post now and be dealt in at once: a big blind (live) when a big blind is owed, plus the
    small blind (dead) when that is owed too; only the small blind (dead) when only that is."""


class Street(IntEnum):
    """Betting rounds, in order."""

    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3


BOARD_CARDS_DEALT = {Street.FLOP: 3, Street.TURN: 1, Street.RIVER: 1}
"""Board cards dealt at the start of each street (no burn cards, R1.1)."""


@dataclass(frozen=True, slots=True)
class VariantRules:
    """What a variant changes: expressed as data, not if-chains."""

    hole_card_count: int
    betting: BettingStructure
    omaha: bool
    """Hands use exactly two hole and three board cards (R1.3)."""
    powers: bool
    """Naiko powers are available (R1.4)."""


VARIANT_RULES: dict[Variant, VariantRules] = {
    Variant.NLHE: VariantRules(2, BettingStructure.NO_LIMIT, omaha=False, powers=False),
    Variant.PLO: VariantRules(4, BettingStructure.POT_LIMIT, omaha=True, powers=False),
    Variant.NAIKO: VariantRules(2, BettingStructure.NO_LIMIT, omaha=False, powers=True),
}

MIN_SEATS, MAX_SEATS = 2, 10
"""Table sizes (R1.6)."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The fixed settings of a table. Amounts are integer chips."""

    variant: Variant = Variant.NLHE
    seat_count: int = 6
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    ante_mode: AnteMode = AnteMode.NONE
    shield_window_ms: int = 8000
    """Length of the Seal Shield response window in Naiko mode (R6.5)."""
    entry_rules: bool = False
    """R7.8/R7.9, cash and private tables: players who sit down or return owe blinds and
    post or wait for the big blind; blinds that pass an absent seat are missed. Tournaments
    deal everyone in (R9.4)."""
    deal_absent: bool = False
    """R9.4, tournaments: players sitting out are dealt in and post like everybody else."""

    @property
    def rules(self) -> VariantRules:
        """The variant's rules."""
        return VARIANT_RULES[self.variant]

    def validate(self) -> None:
        """Reject impossible settings.

        :raises MalformedCommand: If a setting is out of range.
        """
        if not MIN_SEATS <= self.seat_count <= MAX_SEATS:
            raise MalformedCommand(f"seat_count must be {MIN_SEATS}..{MAX_SEATS}, "
                                   f"not {self.seat_count}", rule_id="R1.6")
        if not 0 <= self.small_blind <= self.big_blind or self.big_blind <= 0:
            raise MalformedCommand(f"blinds must satisfy 0 <= small <= big and big > 0, "
                                   f"not {self.small_blind}/{self.big_blind}")
        if self.ante < 0 or (self.ante > 0) != (self.ante_mode is not AnteMode.NONE):
            raise MalformedCommand("an ante needs an ante_mode and an ante_mode needs an ante",
                                   rule_id="R2.8")
        if self.shield_window_ms <= 0:
            raise MalformedCommand("shield_window_ms must be positive", rule_id="R6.5")

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant.value, "seat_count": self.seat_count,
                "small_blind": self.small_blind, "big_blind": self.big_blind,
                "ante": self.ante, "ante_mode": self.ante_mode.value,
                "shield_window_ms": self.shield_window_ms, "entry_rules": self.entry_rules,
                "deal_absent": self.deal_absent}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableConfig:
        try:
            config = cls(variant=Variant(data.get("variant", "NLHE")),
                         seat_count=int(data.get("seat_count", 6)),
                         small_blind=int(data["small_blind"]),
                         big_blind=int(data["big_blind"]),
                         ante=int(data.get("ante", 0)),
                         ante_mode=AnteMode(data.get("ante_mode", "none")),
                         shield_window_ms=int(data.get("shield_window_ms", 8000)),
                         entry_rules=bool(data.get("entry_rules", False)),
                         deal_absent=bool(data.get("deal_absent", False)))
        except (KeyError, ValueError, TypeError) as exc:
            raise MalformedCommand(f"bad table config: {exc}") from exc
        config.validate()
        return config


@dataclass(slots=True)
class Seat:
    """A player sitting at the table. ``stack`` is the chips in front of the player, not
    counting what they have put into the current hand."""

    player_id: str
    stack: int
    sitting_out: bool = False
    is_bot: bool = False
    destellos: int = 0
    """Naiko mode's power currency, 0..3, public like the stack; kept while seated (R5.1,
    R5.2)."""
    owes_big: bool = False
    """R7.8: a big blind to post (live) before being dealt in again, unless the big blind
    reaches the seat first: a new player, or one whose absence the big blind passed."""
    owes_small: bool = False
    """R7.8: a small blind missed while absent, posted dead (or forgiven by waiting for the
    big blind)."""
    entry: EntryChoice = EntryChoice.WAIT
    """What the player chose for entering while blinds are owed (R7.8)."""

    @property
    def owes(self) -> bool:
        """Whether the seat must post or wait before being dealt in (R7.8)."""
        return self.owes_big or self.owes_small

    def copy(self) -> Seat:
        return Seat(self.player_id, self.stack, self.sitting_out, self.is_bot, self.destellos,
                    self.owes_big, self.owes_small, self.entry)

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "stack": self.stack,
                "sitting_out": self.sitting_out, "is_bot": self.is_bot,
                "destellos": self.destellos, "owes_big": self.owes_big,
                "owes_small": self.owes_small, "entry": self.entry.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(str(data["player_id"]), int(data["stack"]), bool(data["sitting_out"]),
                   bool(data["is_bot"]), int(data.get("destellos", 0)),
                   bool(data.get("owes_big", False)), bool(data.get("owes_small", False)),
                   EntryChoice(data.get("entry", "wait")))


@dataclass(slots=True)
class ResponseWindow:
    """An open Seal Shield response window (R6.5): engine state; the clock lives outside."""

    window_id: str
    target: int
    attacker: int
    deadline_ms: int
    """When the window times out, in the caller's clock (milliseconds)."""

    def to_dict(self) -> dict[str, Any]:
        return {"window_id": self.window_id, "target": self.target, "attacker": self.attacker,
                "deadline_ms": self.deadline_ms}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ResponseWindow:
        return cls(str(d["window_id"]), int(d["target"]), int(d["attacker"]),
                   int(d["deadline_ms"]))


@dataclass(slots=True)
class PowersState:
    """Naiko mode's per-hand power bookkeeping (R5.3–R6.7)."""

    carousel: list[str]
    """The 3 powers offered this hand, public and fixed (R5.3, R5.4)."""
    used: list[list[str]]
    """Powers each seat has used this hand (each once per hand, R5.5)."""
    turn_power_used: bool = False
    """Whether the seat to act has used its one power of this turn (R5.5)."""
    round_activations: int = 0
    """Normal activations this betting round, at most 3 (R5.6); Seal Shield not counted."""
    anchors: list[str | None] = field(default_factory=list)
    """Per seat this round: ``None``, ``"pending"`` (window open), ``"applied"``, ``"shielded"``."""
    anchored_by: list[int | None] = field(default_factory=list)
    windows: list[ResponseWindow] = field(default_factory=list)
    peeks: list[int | None] = field(default_factory=list)
    """The card each seat peeked at (private to that seat)."""
    discarded: list[int] = field(default_factory=list)
    """Cards thrown away by Sleeve Swap: dead for the hand (R1.1, R6.2)."""

    def copy(self) -> PowersState:
        return PowersState(self.carousel[:], [u[:] for u in self.used], self.turn_power_used,
                           self.round_activations, self.anchors[:], self.anchored_by[:],
                           [ResponseWindow(w.window_id, w.target, w.attacker, w.deadline_ms)
                            for w in self.windows], self.peeks[:], self.discarded[:])

    def window_for(self, target: int) -> ResponseWindow | None:
        return next((w for w in self.windows if w.target == target), None)

    def to_dict(self) -> dict[str, Any]:
        return {"carousel": self.carousel[:], "used": [u[:] for u in self.used],
                "turn_power_used": self.turn_power_used,
                "round_activations": self.round_activations, "anchors": self.anchors[:],
                "anchored_by": self.anchored_by[:],
                "windows": [w.to_dict() for w in self.windows], "peeks": self.peeks[:],
                "discarded": self.discarded[:]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PowersState:
        return cls(carousel=[str(p) for p in d["carousel"]],
                   used=[[str(p) for p in u] for u in d["used"]],
                   turn_power_used=bool(d["turn_power_used"]),
                   round_activations=int(d["round_activations"]),
                   anchors=[None if a is None else str(a) for a in d["anchors"]],
                   anchored_by=[None if a is None else int(a) for a in d["anchored_by"]],
                   windows=[ResponseWindow.from_dict(w) for w in d["windows"]],
                   peeks=[None if c is None else int(c) for c in d["peeks"]],
                   discarded=[int(c) for c in d["discarded"]])


@dataclass(slots=True)
class HandState:
    """One hand in progress (or just finished). Per-seat lists have one entry per seat of the
    table; seats not dealt in hold zeros / empty lists."""

    number: int
    button: int
    """The button position; under the dead-button rule it may be an empty seat (R2.6)."""
    small_blind_seat: int | None
    """The seat that posted the small blind, or ``None`` for a dead small blind (R2.6)."""
    small_blind_position: int
    """Where the small blind fell, posted or not (the next hand's button, R2.6)."""
    big_blind_seat: int
    player_ids: list[str | None]
    """Who sat where when the hand was dealt (refunds and histories name players)."""
    dealt: list[bool]
    hole: list[list[int]]
    deck: list[int]
    """Undealt cards, next card first. Hidden information."""
    board: list[int] = field(default_factory=list)
    street: Street = Street.PREFLOP
    complete: bool = False
    folded: list[bool] = field(default_factory=list)
    bets: list[int] = field(default_factory=list)
    """Chips put in on the current street, not yet collected."""
    committed: list[int] = field(default_factory=list)
    """Chips each seat has put into this hand in total (antes included), net of returns."""
    antes: list[int] = field(default_factory=list)
    """Antes (R2.8) and dead small blinds (R7.8) paid: dead money in the main pot, never part
    of a bet."""
    acted: list[bool] = field(default_factory=list)
    """Whether the seat has taken a betting action this round (posting a blind is not one)."""
    faced: list[int] = field(default_factory=list)
    """The current bet at the seat's last action this round (for reopening, R3.2)."""
    pot: int = 0
    """Chips collected from finished streets, antes included."""
    current_bet: int = 0
    """The bet to match this street; preflop at least the nominal big blind (R2.3)."""
    min_raise: int = 0
    """The last full bet or raise increment of this street (R3.1)."""
    actor: int | None = None
    starting_stacks: list[int] = field(default_factory=list)
    starting_destellos: list[int] = field(default_factory=list)
    """Destellos before the hand's credit (R8.6: a cancelled hand gives them back)."""
    previous_big_blind_seat: int | None = None
    """The table's ``last_big_blind_seat`` before this hand (R8.6: the button does not move)."""
    previous_small_blind_position: int | None = None
    """The table's ``last_small_blind_position`` before this hand."""
    cancelled: bool = False
    """R8.6: the hand was cancelled and every chip went back (``complete`` is true too)."""
    shown: list[bool] = field(default_factory=list)
    """Hands shown at showdown (R4.4): public from then on."""
    mucked: list[bool] = field(default_factory=list)
    """Replay of external logs only: hands thrown away unseen at showdown, which cannot win."""
    log: list[Event] = field(default_factory=list)
    """The hand's record: every recorded event (:attr:`naiko.events.Event.recorded`) in order,
    hidden ones included (hole cards, peeks, swaps). Hidden information."""
    awards: list[dict[str, Any]] = field(default_factory=list)
    """Once complete: the pots and who won what."""
    powers: PowersState | None = None
    """Naiko mode only."""
    shuffled: list[int] = field(default_factory=list)
    """R10.2: the whole deck as shuffled, position 0 first (the committed order; empty when the
    hand was dealt without a commitment). Hidden information."""
    deck_seed: str | None = None
    """R10.2: the secret seed of the deck's salts (64 hex digits). Hidden information."""
    commitment: str | None = None
    """R10.2: the published Merkle root of the deck, or ``None``."""
    starting_owes: list[tuple[bool, bool]] = field(default_factory=list)
    """Each seat's blind debts before the hand, ``(owes_big, owes_small)`` (R8.6: a cancelled
    hand gives back what its deal settled or added, R7.8)."""
    previous_last_dealt: int | None = None
    """The table's ``last_dealt`` before this hand (R8.6)."""

    def copy(self) -> HandState:
        return HandState(
            self.number, self.button, self.small_blind_seat, self.small_blind_position,
            self.big_blind_seat, self.player_ids[:], self.dealt[:], [h[:] for h in self.hole],
            self.deck[:],
            self.board[:], self.street, self.complete, self.folded[:], self.bets[:],
            self.committed[:], self.antes[:], self.acted[:], self.faced[:], self.pot,
            self.current_bet, self.min_raise, self.actor, self.starting_stacks[:],
            self.starting_destellos[:], self.previous_big_blind_seat,
            self.previous_small_blind_position, self.cancelled,
            self.shown[:], self.mucked[:], self.log[:], [dict(a) for a in self.awards],
            self.powers.copy() if self.powers else None, self.shuffled[:], self.deck_seed,
            self.commitment, self.starting_owes[:], self.previous_last_dealt)

    @property
    def betting_actions(self) -> int:
        """Betting actions taken so far this hand (folds, checks, calls, bets, raises)."""
        return sum(1 for e in self.log if isinstance(e, ActionTaken))

    def is_live(self, seat: int) -> bool:
        """Dealt in and not folded."""
        return self.dealt[seat] and not self.folded[seat]

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number, "button": self.button,
            "small_blind_seat": self.small_blind_seat,
            "small_blind_position": self.small_blind_position,
            "big_blind_seat": self.big_blind_seat, "player_ids": self.player_ids[:],
            "dealt": self.dealt[:],
            "hole": [h[:] for h in self.hole], "deck": self.deck[:], "board": self.board[:],
            "street": int(self.street), "complete": self.complete, "folded": self.folded[:],
            "bets": self.bets[:], "committed": self.committed[:], "antes": self.antes[:],
            "acted": self.acted[:], "faced": self.faced[:], "pot": self.pot,
            "current_bet": self.current_bet, "min_raise": self.min_raise, "actor": self.actor,
            "starting_stacks": self.starting_stacks[:],
            "starting_destellos": self.starting_destellos[:],
            "previous_big_blind_seat": self.previous_big_blind_seat,
            "previous_small_blind_position": self.previous_small_blind_position,
            "cancelled": self.cancelled, "shown": self.shown[:],
            "mucked": self.mucked[:], "log": [e.to_dict() for e in self.log],
            "awards": [dict(a) for a in self.awards],
            "powers": self.powers.to_dict() if self.powers else None,
            **({"shuffled": self.shuffled[:], "deck_seed": self.deck_seed,
                "commitment": self.commitment} if self.commitment is not None else {}),
            **({"starting_owes": [list(o) for o in self.starting_owes]}
               if self.starting_owes else {}),
            **({"previous_last_dealt": self.previous_last_dealt}
               if self.previous_last_dealt is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HandState:
        def ints(key: str) -> list[int]:
            return [int(x) for x in d[key]]

        def bools(key: str) -> list[bool]:
            return [bool(x) for x in d[key]]

        sb = d["small_blind_seat"]
        actor = d["actor"]
        return cls(
            number=int(d["number"]), button=int(d["button"]),
            small_blind_seat=None if sb is None else int(sb),
            small_blind_position=int(d["small_blind_position"]),
            big_blind_seat=int(d["big_blind_seat"]),
            player_ids=[None if p is None else str(p) for p in d["player_ids"]],
            dealt=bools("dealt"),
            hole=[[int(c) for c in h] for h in d["hole"]], deck=ints("deck"),
            board=ints("board"), street=Street(int(d["street"])), complete=bool(d["complete"]),
            folded=bools("folded"), bets=ints("bets"), committed=ints("committed"),
            antes=ints("antes"), acted=bools("acted"), faced=ints("faced"), pot=int(d["pot"]),
            current_bet=int(d["current_bet"]), min_raise=int(d["min_raise"]),
            actor=None if actor is None else int(actor), starting_stacks=ints("starting_stacks"),
            starting_destellos=ints("starting_destellos"),
            previous_big_blind_seat=_opt_int(d["previous_big_blind_seat"]),
            previous_small_blind_position=_opt_int(d["previous_small_blind_position"]),
            cancelled=bool(d["cancelled"]),
            shown=bools("shown"), mucked=bools("mucked"),
            log=[event_from_dict(e) for e in d["log"]],
            awards=[dict(a) for a in d["awards"]],
            powers=PowersState.from_dict(d["powers"]) if d.get("powers") else None,
            shuffled=[int(c) for c in d.get("shuffled", ())],
            deck_seed=None if d.get("deck_seed") is None else str(d["deck_seed"]),
            commitment=None if d.get("commitment") is None else str(d["commitment"]),
            starting_owes=[(bool(big), bool(small))
                           for big, small in d.get("starting_owes", ())],
            previous_last_dealt=_opt_int(d.get("previous_last_dealt")))


@dataclass(slots=True)
class TableState:
    """A whole table: its settings, its seats, where the blinds were, and the current hand."""

    config: TableConfig
    seats: list[Seat | None]
    hand: HandState | None = None
    hand_count: int = 0
    """Hands started at this table so far."""
    last_big_blind_seat: int | None = None
    """Who posted the big blind last hand; the next big blind is the next active seat (R2.6)."""
    last_small_blind_position: int | None = None
    """Where last hand's small blind fell: this hand's button (R2.6)."""
    last_dealt: int | None = None
    """Players dealt into the last hand that counts (a cancelled hand does not, R8.6), or
    ``None`` before the first: fewer than 3 and the table is starting again (R7.8)."""

    @classmethod
    def new(cls, config: TableConfig) -> TableState:
        """An empty table."""
        config.validate()
        return cls(config=config, seats=[None] * config.seat_count)

    def copy(self) -> TableState:
        return TableState(self.config, [s.copy() if s else None for s in self.seats],
                          self.hand.copy() if self.hand else None, self.hand_count,
                          self.last_big_blind_seat, self.last_small_blind_position,
                          self.last_dealt)

    @property
    def hand_in_progress(self) -> bool:
        return self.hand is not None and not self.hand.complete

    def stack(self, seat: int) -> int:
        s = self.seats[seat]
        return s.stack if s else 0

    def total_chips(self) -> int:
        """Every chip on the table: stacks plus what is in the middle (conserved by play)."""
        total = sum(s.stack for s in self.seats if s)
        if self.hand is not None:
            total += self.hand.pot + sum(self.hand.bets)
        return total

    def to_dict(self) -> dict[str, Any]:
        """A JSON-compatible dict carrying :data:`SCHEMA_VERSION`."""
        return {
            "schema_version": SCHEMA_VERSION,
            "config": self.config.to_dict(),
            "seats": [s.to_dict() if s else None for s in self.seats],
            "hand": self.hand.to_dict() if self.hand else None,
            "hand_count": self.hand_count,
            "last_big_blind_seat": self.last_big_blind_seat,
            "last_small_blind_position": self.last_small_blind_position,
            "last_dealt": self.last_dealt,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableState:
        """Rebuild a state written by :meth:`to_dict`.

        :raises MalformedCommand: If the schema version is unknown.
        """
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise MalformedCommand(f"unknown table state schema_version {version!r}")
        bb = data["last_big_blind_seat"]
        sbp = data["last_small_blind_position"]
        hand = HandState.from_dict(data["hand"]) if data["hand"] else None
        if "last_dealt" in data:
            last_dealt = _opt_int(data["last_dealt"])
        else:  # written before the field: the last hand's, as the engine then counted
            last_dealt = None if hand is None else sum(hand.dealt)
        return cls(
            config=TableConfig.from_dict(data["config"]),
            seats=[Seat.from_dict(s) if s else None for s in data["seats"]],
            hand=hand,
            hand_count=int(data["hand_count"]),
            last_big_blind_seat=None if bb is None else int(bb),
            last_small_blind_position=None if sbp is None else int(sbp),
            last_dealt=last_dealt,
        )


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)
