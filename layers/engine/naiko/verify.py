""":mod:`naiko.verify` checks a stored hand against its committed deck (R10.2), as a player
(or anyone they give the hand to) can do afterwards: ``naiko-verify hand.json``.

The input is a hand as a player reads it: the ``hand`` of a ``get_hand`` reply, or what
``naiko-history --format json`` writes (one hand per line, or a JSON list). Each hand carries
the ``commitment`` published before its first card, the ``events`` its reader was shown, and one
``proofs`` entry per card those events show. The check (:func:`check_hand`):

1. every proof holds against the commitment (:func:`naiko.commitment.verify_hand`: the salted
   leaf and its audit path give the root; no position holds two cards, no card two positions);
2. every card the reader saw has a proof, and every proof is of a card the reader saw;
3. every card was at **the position the dealing order gives it**, so the server could not have
   chosen which committed card to hand out: the hole cards go out from the deck's top, all of
   a player's cards at once, in the order of ``hand_started.seats_dealt``; then each Sleeve
   Swap draws one card and each street's board cards come off the top, in the order the
   events report them; a Peek sees the card on top at that moment (R6.1, R6.2). A hand shown at
   showdown is at its seat's hole positions, or at the position of that seat's swap.

It needs nothing but the standard library and the hand itself; ``docs/fairness.md`` describes
the bytes, so that a verifier can be written in any language.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import DECK_SIZE, InvalidCard, format_card, parse_cards
from .commitment import CardProof, MalformedProof, verify_hand

HOLE_CARDS = {"NLHE": 2, "NAIKO": 2, "PLO": 4}
"""Hole cards per player by variant (``config.variant`` of a stored hand)."""


@dataclass
class Report:
    """What :func:`check_hand` found: the cards proved and every problem (none: verified)."""

    hand: str
    """``table_id#hand_number``."""
    proved: int = 0
    """Cards whose proof holds at the position the dealing order gives them."""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.proved > 0

    def line(self) -> str:
        if self.ok:
            return f"{self.hand}: verified, {self.proved} card(s) at their committed positions"
        if not self.problems:
            return f"{self.hand}: nothing to verify (no card proved)"
        return f"{self.hand}: FAILED: " + "; ".join(self.problems)


def _cards(text: object) -> list[int]:
    if not isinstance(text, str):
        raise ValueError(f"not a card list: {text!r}")
    return parse_cards(text)


@dataclass
class _Schedule:
    """The deck positions the dealing order gives each card the reader saw."""

    expected: dict[int, set[int]] = field(default_factory=dict)
    """card -> the positions it may hold (one, or a seat's hole and swap positions)."""
    seen: list[int] = field(default_factory=list)

    def add(self, card: int, positions: set[int]) -> None:
        if card not in self.expected:
            self.seen.append(card)
            self.expected[card] = set(positions)
        else:  # seen twice (a hole card shown at showdown): both must hold
            self.expected[card] &= positions


def _schedule(hand: Mapping[str, Any]) -> _Schedule:
    """Where each card the reader saw must be, from the public order of the deal."""
    config = hand.get("config") or {}
    hole = HOLE_CARDS.get(str(config.get("variant", "NLHE")).upper(), 2)
    events = hand.get("events")
    if not isinstance(events, list):
        raise ValueError("the hand has no events")
    schedule = _Schedule()
    order: list[int] = []
    cursor = 0
    swaps: dict[int, set[int]] = {}
    for event in events:
        if not isinstance(event, Mapping):
            raise ValueError(f"an event is not an object: {event!r}")
        kind = event.get("kind")
        if kind == "hand_started":
            order = [int(s) for s in event.get("seats_dealt", ())]
            cursor = len(order) * hole
        elif kind == "hole_cards":
            seat = int(event["seat_index"])
            first = order.index(seat) * hole
            for i, card in enumerate(_cards(event["cards"])):
                schedule.add(card, {first + i})
        elif kind == "power_used" and event.get("power") == "sleeve_swap":
            swaps.setdefault(int(event["seat_index"]), set()).add(cursor)
            cursor += 1
        elif kind == "sleeve_swap_result":
            seat = int(event["seat_index"])
            (received,) = _cards(event["received"])
            schedule.add(received, set(swaps.get(seat, ())) or {-1})
            for card in _cards(event["discarded"]):
                schedule.add(card, set(range(order.index(seat) * hole,
                                             (order.index(seat) + 1) * hole)))
        elif kind == "peek_result":
            for card in _cards(event["card"]):
                schedule.add(card, {cursor})
        elif kind == "board_dealt":
            for card in _cards(event["cards"]):
                schedule.add(card, {cursor})
                cursor += 1
        elif kind == "showdown":
            for shown in event.get("hands", ()):
                seat = int(shown["seat_index"])
                first = order.index(seat) * hole
                allowed = set(range(first, first + hole)) | swaps.get(seat, set())
                for card in _cards(shown["cards"]):
                    schedule.add(card, allowed)
    return schedule


def check_hand(hand: Mapping[str, Any]) -> Report:
    """Every problem with one stored hand's deck proofs (see the module's docstring).

    Never raises on malformed input: it becomes a problem of the report.
    """
    name = f"{hand.get('table_id', '?')}#{hand.get('hand_number', '?')}"
    report = Report(name)
    root = hand.get("commitment")
    raw = hand.get("proofs")
    if root is None and raw is None:
        report.problems.append("the hand carries no deck commitment (dealt before R10.2)")
        return report
    if not isinstance(root, str) or not isinstance(raw, list):
        report.problems.append("the hand's commitment or proofs are malformed")
        return report
    proofs: list[CardProof] = []
    for index, item in enumerate(raw):
        try:
            proofs.append(CardProof.from_dict(item))
        except MalformedProof as exc:
            report.problems.append(f"proof {index} is malformed: {exc}")
    report.problems.extend(verify_hand(root, proofs))
    try:
        schedule = _schedule(hand)
    except (KeyError, ValueError, TypeError, InvalidCard) as exc:
        report.problems.append(f"the hand's events are malformed: {exc}")
        return report
    by_card = {p.card: p for p in proofs}
    for card in schedule.seen:
        proof = by_card.get(card)
        if proof is None:
            report.problems.append(f"{format_card(card)} was shown without a proof")
        elif proof.position not in schedule.expected[card]:
            want = sorted(schedule.expected[card])
            report.problems.append(
                f"{format_card(card)} is proved at position {proof.position}, but the dealing "
                f"order puts it at {want[0] if len(want) == 1 else want}")
    for proof in proofs:
        if proof.card not in schedule.expected and 0 <= proof.card < DECK_SIZE:
            report.problems.append(f"a proof of {format_card(proof.card)}, a card the hand "
                                   "never showed its reader")
    if not report.problems:
        report.proved = len(schedule.seen)
    return report


def hands_in(text: str) -> Iterator[Mapping[str, Any]]:
    """The hands of a file: a JSON object (a hand, or a ``hand`` message), a JSON list of them,
    or one per line (``naiko-history --format json``).

    :raises ValueError: If the text is not JSON.
    """
    text = text.strip()
    if not text:
        return
    try:
        documents: list[Any] = [json.loads(text)]
    except json.JSONDecodeError:
        documents = [json.loads(line) for line in text.splitlines() if line.strip()]
    for document in documents:
        for item in document if isinstance(document, list) else [document]:
            if isinstance(item, Mapping) and isinstance(item.get("hand"), Mapping):
                item = item["hand"]  # a get_hand reply
            if isinstance(item, Mapping):
                yield item


def main(argv: Sequence[str] | None = None) -> int:
    """``naiko-verify FILE...`` (``-`` reads standard input): one line per hand; exit status 0
    when every hand verifies, 1 when one does not, 2 for unreadable input."""
    parser = argparse.ArgumentParser(
        prog="naiko-verify",
        description="Check stored Naiko hands against the deck the server committed to "
                    "before dealing (R10.2, docs/fairness.md).")
    parser.add_argument("files", nargs="+", help="JSON files of hands ('-': standard input)")
    args = parser.parse_args(argv)
    failed = total = 0
    for path in args.files:
        try:
            text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
            hands = list(hands_in(text))
        except (OSError, ValueError) as exc:
            print(f"{path}: cannot read: {exc}", file=sys.stderr)
            return 2
        for hand in hands:
            report = check_hand(hand)
            total += 1
            failed += not report.ok
            print(report.line())
    print(f"{total} hand(s), {total - failed} verified, {failed} failed")
    return 1 if failed or not total else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
