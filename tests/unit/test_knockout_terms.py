"""R9.13: a tournament's published knockout terms (the bounty part of each entry, regular or
progressive), their validation, the knockout presets, and the auditor's replay of a log's
``bounty`` lines (:mod:`naiko_local.bounty_audit`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from naiko.state import Variant
from naiko.tournaments.prizes import SpinPrize
from naiko.tournaments.structures import (
    PRESETS,
    InvalidTerms,
    TournamentTerms,
    from_preset,
    knockout,
)
from naiko_local.bounty_audit import audit


def test_r9_13_a_bounty_is_part_of_the_entry_and_the_rest_makes_the_prize_pool() -> None:
    terms = from_preset("sng_6max_turbo_ko", 100)
    assert (terms.entry, terms.bounty, terms.prize_entry, terms.progressive) == (
        100, 50, 50, False)
    assert terms.prize_pool(6) == 300 and terms.prizes(6) == [195, 105]
    assert TournamentTerms.from_dict(terms.to_dict()) == terms
    assert terms.bounty_terms() == {"bounty": 50, "progressive": False}
    # Terms without a bounty store as before (no new key) and publish none.
    plain = from_preset("sng_6max_turbo", 100)
    assert "bounty" not in plain.to_dict() and plain.bounty_terms() == {}
    assert plain.prize_pool(6) == 600
    progressive = knockout(from_preset("mtt_turbo", 101), progressive=True)
    assert (progressive.bounty, progressive.prize_entry) == (50, 51)
    assert TournamentTerms.from_dict(progressive.to_dict()).progressive is True


def test_r9_13_a_knockout_spin_multiplies_only_the_prize_part() -> None:
    terms = from_preset("spin_3max_hyper_ko", 100)
    row = SpinPrize(25, 900, (80, 12, 8))
    assert terms.prize_pool(3, row) == 25 * 50
    assert terms.prizes(3, row) == [1_000, 150, 100]


@pytest.mark.parametrize("name", ["sng_6max_turbo_ko", "sng_9max_turbo_ko",
                                  "sng_headsup_hyper_ko", "spin_3max_hyper_ko"])
def test_r9_13_each_knockout_preset_is_its_preset_with_half_the_entry_a_bounty(
        name: str) -> None:
    terms = PRESETS[name](300, Variant.PLO)
    base = PRESETS[name.removesuffix("_ko")](300, Variant.PLO)
    assert terms == replace(base, bounty=150)


@pytest.mark.parametrize(("fields", "code"), [
    ({"bounty": 100}, "invalid_bounty"),  # the whole entry
    ({"bounty": 150}, "invalid_bounty"),  # more than the entry
    ({"bounty": -1}, "invalid_bounty"),
    ({"bounty": 0, "progressive": True}, "invalid_bounty"),  # progressive, nothing to grow
    ({"bounty": "50"}, "invalid_terms"),
    ({"bounty": True}, "invalid_terms"),
    ({"bounty": 50, "progressive": "yes"}, "invalid_terms"),
])
def test_r9_13_bad_knockout_terms_are_refused(fields: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidTerms) as caught:
        replace(from_preset("sng_6max_turbo", 100), **fields)
    assert caught.value.code == code and caught.value.message
    data = {**from_preset("sng_6max_turbo", 100).to_dict(), **fields}
    with pytest.raises(InvalidTerms):  # stored terms too
        TournamentTerms.from_dict(data)


def test_r9_13_an_entry_too_small_to_split_has_no_knockout_preset() -> None:
    with pytest.raises(InvalidTerms) as caught:
        from_preset("sng_6max_turbo_ko", 1)
    assert caught.value.code == "invalid_bounty" and caught.value.rule_id == "R9.13"


# -- the auditor's replay of the log -------------------------------------------------------------

def _log(*lines: dict[str, Any], progressive: bool = False) -> list[dict[str, Any]]:
    return [{"type": "started", "bounty": 40, "progressive": progressive, "entrants": 3},
            {"type": "prizes_final", "entrants": 3}, *lines]


def _ko(player: str, bounty: int, paid: dict[str, int], added: dict[str, int] | None = None,
        reason: str = "knockout") -> dict[str, Any]:
    return {"type": "bounty", "player": player, "bounty": bounty, "paid": paid,
            "added": added or {}, "reason": reason}


def test_r9_13_the_audit_replays_progressive_bounties_from_the_log_alone() -> None:
    log = _log(_ko("cy", 40, {"ann": 10, "bob": 10}, {"ann": 10, "bob": 10}),
               _ko("bob", 50, {"ann": 25}, {"ann": 25}),
               _ko("ann", 75, {"ann": 75}, reason="winner"), progressive=True)
    result = audit(log)
    assert result.problems == [] and result.holds
    assert (result.payments, result.paid, result.pool) == (3, 120, 120)


def test_r9_13_the_own_bounties_paid_at_a_deal_or_a_cancellation_end_the_audit() -> None:
    result = audit(_log(_ko("cy", 40, {"ann": 40}), _ko("ann", 80, {"ann": 80}, reason="deal"),
                        _ko("bob", 0, {"bob": 0}, reason="deal"), progressive=True))
    assert not result.holds  # a regular 40 each: ann carried 40, not 80
    result = audit(_log(_ko("cy", 40, {"ann": 40}), _ko("ann", 40, {"ann": 40}, reason="deal"),
                        _ko("bob", 40, {"bob": 40}, reason="cancelled")))
    assert result.holds, result.problems
    assert result.paid == 120 and result.payments == 3


@pytest.mark.parametrize(("lines", "problem"), [
    ([_ko("cy", 40, {"ann": 40}), _ko("cy", 40, {"bob": 40}),
      _ko("ann", 40, {"ann": 40}, reason="winner")], "twice"),
    ([_ko("cy", 40, {"ann": 39}), _ko("bob", 40, {"ann": 40}),
      _ko("ann", 40, {"ann": 40}, reason="winner")], "awards"),
    ([_ko("cy", 40, {"ann": 40}), _ko("bob", 40, {"ann": 40})], "winner"),
    ([_ko("cy", 40, {"ann": 40}), _ko("bob", 45, {"ann": 45}),
      _ko("ann", 40, {"ann": 40}, reason="winner")], "bounty of"),
    # R9.15, R9.16: the own bounties of the players left when a deal or the director ends it
    ([_ko("cy", 40, {"ann": 40}), _ko("ann", 40, {"bob": 40}, reason="deal"),
      _ko("bob", 40, {"bob": 40}, reason="deal")], "own bounty not paid to them"),
    ([_ko("ann", 40, {"ann": 40}, reason="cancelled"), _ko("cy", 40, {"bob": 40}),
      _ko("bob", 40, {"bob": 40}, reason="cancelled")], "after the winner"),
])
def test_r9_13_the_audit_finds_a_bounty_paid_twice_short_or_never(
        lines: list[dict[str, Any]], problem: str) -> None:
    result = audit(_log(*lines))
    assert not result.holds
    assert any(problem in p for p in result.problems), result.problems
