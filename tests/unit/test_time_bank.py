"""R8.7: the time bank's published terms and arithmetic (:mod:`naiko.time_bank`), the presets'
banks, and their storage in tournament terms and table settings."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from naiko.state import Variant
from naiko.time_bank import (
    CASH_TIME_BANK,
    HYPER_TIME_BANK,
    TURBO_TIME_BANK,
    InvalidTimeBank,
    TimeBank,
    TopUpEvery,
)
from naiko.tournaments.structures import PRESETS, InvalidTerms, TournamentTerms, from_preset
from naiko_service.records import TableSettings


def test_r8_7_spent_second_by_second_each_second_begun_counts() -> None:
    assert TimeBank.spent(30_000, 0) == 30_000
    assert TimeBank.spent(30_000, 1) == 29_000
    assert TimeBank.spent(30_000, 1_000) == 29_000
    assert TimeBank.spent(30_000, 1_001) == 28_000
    assert TimeBank.spent(3_000, 10_000) == 0  # never below empty
    assert TimeBank.spent(3_000, -5) == 3_000  # a clock that went back charges nothing


def test_r8_7_topped_up_by_whole_periods_up_to_the_cap() -> None:
    bank = CASH_TIME_BANK  # 30 s, +5 s every 10 hands, at most 60 s
    assert bank.topped_up(30_000, 1, 10) == (30_000, 1)  # 9 hands: not yet
    assert bank.topped_up(30_000, 1, 11) == (35_000, 11)
    assert bank.topped_up(30_000, 1, 35) == (45_000, 31)  # 3 periods; the mark keeps the rest
    assert bank.topped_up(58_000, 1, 11) == (60_000, 11)  # the cap
    assert bank.topped_up(0, 1, 11) == (5_000, 11)  # an empty bank refills


@given(st.integers(0, 60_000), st.integers(0, 1_000), st.integers(0, 1_000))
def test_r8_7_property_a_bank_never_exceeds_its_cap_nor_shrinks_by_a_top_up(
        ms: int, mark: int, progress: int) -> None:
    ms = ms // 1000 * 1000
    after, new_mark = TURBO_TIME_BANK.topped_up(ms, mark, progress)
    assert ms <= after <= TURBO_TIME_BANK.cap_ms
    assert mark <= new_mark <= max(mark, progress)


@pytest.mark.parametrize("fields", [
    {"initial_ms": 0, "top_up_ms": 0, "every": 1, "cap_ms": 1_000},
    {"initial_ms": 2_000, "top_up_ms": 0, "every": 1, "cap_ms": 1_000},
    {"initial_ms": 1_000, "top_up_ms": -1_000, "every": 1, "cap_ms": 1_000},
    {"initial_ms": 1_000, "top_up_ms": 1_000, "every": 0, "cap_ms": 1_000},
    {"initial_ms": 1_500, "top_up_ms": 0, "every": 1, "cap_ms": 2_000},
    {"initial_ms": 1_000, "top_up_ms": 0, "every": 1, "cap_ms": 601_000},
    {"initial_ms": True, "top_up_ms": 0, "every": 1, "cap_ms": 1_000},
])
def test_r8_7_a_bank_that_breaks_a_rule_is_refused(fields: dict[str, int]) -> None:
    with pytest.raises(InvalidTimeBank) as caught:
        TimeBank(**fields)
    assert caught.value.code == "invalid_terms" and caught.value.rule_id == "R8.7"


def test_r8_7_every_preset_publishes_a_bank_topped_up_each_level() -> None:
    banks = {name: preset(100, Variant.NLHE).time_bank for name, preset in PRESETS.items()}
    assert banks == {"sng_6max_turbo": TURBO_TIME_BANK, "sng_9max_turbo": TURBO_TIME_BANK,
                     "sng_headsup_hyper": HYPER_TIME_BANK, "spin_3max_hyper": HYPER_TIME_BANK,
                     "mtt_deep": TURBO_TIME_BANK, "mtt_turbo": TURBO_TIME_BANK,
                     "mtt_deep_breaks": TURBO_TIME_BANK,
                     # R9.13: the knockout variants keep their preset's bank
                     "sng_6max_turbo_ko": TURBO_TIME_BANK, "sng_9max_turbo_ko": TURBO_TIME_BANK,
                     "sng_headsup_hyper_ko": HYPER_TIME_BANK,
                     "spin_3max_hyper_ko": HYPER_TIME_BANK}
    assert all(b is not None and b.per is TopUpEvery.LEVELS for b in banks.values())
    assert TURBO_TIME_BANK.to_dict() == {"initial_s": 30, "top_up_s": 5, "every": 1,
                                         "per": "levels", "cap_s": 60}


def test_r8_7_terms_and_settings_store_the_bank_and_read_old_items_without_one() -> None:
    terms = from_preset("spin_3max_hyper", 100)
    assert TournamentTerms.from_dict(terms.to_dict()) == terms
    old = terms.to_dict()
    del old["time_bank"]  # an item written before R8.7
    assert TournamentTerms.from_dict(old).time_bank is None
    settings = TableSettings(name="t", host="h", min_buy_in=40, max_buy_in=200,
                             time_bank=CASH_TIME_BANK)
    assert TableSettings.from_dict(settings.to_dict()) == settings
    legacy = settings.to_dict()
    del legacy["time_bank"]
    assert TableSettings.from_dict(legacy).time_bank is None


def test_r8_7_a_tournament_bank_counts_levels_and_a_bad_one_is_invalid_terms() -> None:
    with pytest.raises(InvalidTerms):
        replace(from_preset("spin_3max_hyper", 100), time_bank=CASH_TIME_BANK)  # per hands
    data = from_preset("spin_3max_hyper", 100).to_dict()
    data["time_bank"] = {"initial_s": 0, "top_up_s": 0, "every": 1, "per": "levels",
                         "cap_s": 1}
    with pytest.raises(InvalidTerms):
        TournamentTerms.from_dict(data)
