"""Tournament terms (RULES.md §7.3–7.6, §9): blind levels worked out from the start time and the
published structure (R9.3), late registration (R9.11), validation, storage round trips and the
presets. Times are epoch milliseconds; amounts worked out by hand.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko.errors import EngineError
from naiko.state import AnteMode, TableConfig, Variant
from naiko.tournaments.prizes import SPIN_TABLE, PayoutRule, SpinPrize
from naiko.tournaments.structures import (
    MINUTE_MS,
    PRESETS,
    BlindLevel,
    BlindStructure,
    InvalidTerms,
    LevelTime,
    TournamentKind,
    TournamentTerms,
    from_preset,
    level_at,
    mtt_deep,
    mtt_turbo,
    sng_6max_turbo,
    sng_9max_turbo,
    sng_headsup_hyper,
    spin_3max_hyper,
)

NONE, EACH, BBA = AnteMode.NONE, AnteMode.EACH, AnteMode.BIG_BLIND
T0 = 1_700_000_000_000  # a start time


def lvl(number: int, sb: int, bb: int, ante: int = 0, mode: AnteMode = NONE,
        minutes: int = 5) -> BlindLevel:
    return BlindLevel(number, sb, bb, ante, mode, minutes)


# Levels of 5, 10 and 15 minutes: level 1 [T0, T0+5'), level 2 [T0+5', T0+15'),
# level 3 from T0+15' on for ever.
MIXED = BlindStructure((lvl(1, 10, 20, minutes=5), lvl(2, 15, 30, minutes=10),
                        lvl(3, 25, 50, 50, BBA, minutes=15)))


def scheduled(**changes: Any) -> TournamentTerms:
    return dataclasses.replace(mtt_turbo(100), **changes)


# -- R9.3 the level in effect -------------------------------------------------------------------


def test_r9_3_level_changes_at_exactly_its_start_time() -> None:
    last_ms_of_level_1 = T0 + 5 * MINUTE_MS - 1
    assert level_at(MIXED, T0, last_ms_of_level_1) == LevelTime(MIXED.levels[0], T0,
                                                                T0 + 5 * MINUTE_MS)
    # A hand dealt at the very millisecond level 2 starts is dealt at level 2.
    assert level_at(MIXED, T0, T0 + 5 * MINUTE_MS) == LevelTime(MIXED.levels[1],
                                                                T0 + 300_000, T0 + 900_000)
    assert level_at(MIXED, T0, T0 + 15 * MINUTE_MS - 1).level.number == 2
    assert level_at(MIXED, T0, T0 + 15 * MINUTE_MS).level.number == 3


def test_r9_3_level_one_at_the_start_and_before_it() -> None:
    assert level_at(MIXED, T0, T0) == LevelTime(MIXED.levels[0], T0, T0 + 300_000)
    # A clock a little behind the one that started the tournament still deals level 1.
    assert level_at(MIXED, T0, T0 - 1_500) == LevelTime(MIXED.levels[0], T0, T0 + 300_000)


def test_r9_3_the_last_level_goes_on_for_ever() -> None:
    for now in (T0 + 15 * MINUTE_MS, T0 + 30 * MINUTE_MS, T0 + 10**12):
        assert level_at(MIXED, T0, now) == LevelTime(MIXED.levels[2], T0 + 900_000, None)
    assert MIXED.level(3) is MIXED.level(99) is MIXED.levels[2]


def test_r9_3_players_are_told_what_comes_next() -> None:
    assert MIXED.following(MIXED.levels[0]) == MIXED.levels[1]
    assert MIXED.following(MIXED.levels[2]) is None
    assert MIXED.level_start_ms(T0, 3) == T0 + 15 * MINUTE_MS


def test_r9_3_level_of_a_preset_worked_by_hand() -> None:
    # mtt_turbo: 5-minute levels on the 100, 120, 160, 200, 250, 300 ... big-blind ladder,
    # a big-blind ante from level 3. 52 minutes in: level 11 (minutes 50..55), 500/1000 BBA 1000.
    terms = mtt_turbo(100)
    level, started, nxt = terms.level_at(T0, T0 + 52 * MINUTE_MS)
    assert (level.number, level.small_blind, level.big_blind, level.ante, level.ante_mode) == (
        11, 500, 1000, 1000, BBA)
    assert (started, nxt) == (T0 + 50 * MINUTE_MS, T0 + 55 * MINUTE_MS)
    config = terms.table_config(T0, T0 + 52 * MINUTE_MS)
    assert config == TableConfig(variant=Variant.NLHE, seat_count=9, small_blind=500,
                                 big_blind=1000, ante=1000, ante_mode=BBA)
    assert terms.table_config(T0, T0 + 14 * MINUTE_MS - 1).ante_mode is BBA      # level 3
    assert terms.table_config(T0, T0 + 10 * MINUTE_MS - 1).ante_mode is NONE     # level 2


@settings(max_examples=200, deadline=None)
@given(minutes=st.lists(st.integers(1, 240), min_size=1, max_size=12),
       offset=st.integers(-10**6, 10**11))
def test_r9_3_level_at_matches_walking_the_structure(minutes: list[int], offset: int) -> None:
    structure = BlindStructure(tuple(lvl(n, 10 * n, 20 * n, minutes=m)
                                     for n, m in enumerate(minutes, 1)))
    now = T0 + offset
    level, started, nxt = level_at(structure, T0, now)
    starts = [T0 + MINUTE_MS * sum(minutes[:k]) for k in range(len(minutes))]
    expected = max([1] + [k + 1 for k, s in enumerate(starts) if s <= now])
    assert level.number == expected
    assert started == starts[expected - 1]
    assert nxt == (starts[expected] if expected < len(minutes) else None)
    assert now < (nxt if nxt is not None else now + 1)


# -- R9.3 / R2.8 validation of levels and structures --------------------------------------------


@pytest.mark.parametrize(("args", "rule"), [
    ((0, 10, 20, 0, NONE, 5), "R9.3"),         # levels count from 1
    ((1, 0, 20, 0, NONE, 5), "R9.3"),          # blinds > 0
    ((1, 30, 20, 0, NONE, 5), "R9.3"),         # small <= big
    ((1, 10, 20, 5, NONE, 5), "R2.8"),         # an ante needs a mode
    ((1, 10, 20, 0, EACH, 5), "R2.8"),         # a mode needs an ante
    ((1, 10, 20, -5, EACH, 5), "R2.8"),
    ((1, 10, 20, 25, EACH, 5), "R2.8"),        # an ante per player above the big blind
    ((1, 10, 20, 41, BBA, 5), "R2.8"),         # a big-blind ante above two big blinds
    ((1, 10, 20, 0, NONE, 0), "R9.3"),         # minutes > 0
    ((1, 10, 20, 0, NONE, 241), "R9.3"),
])
def test_r9_3_invalid_levels_are_rejected(args: tuple[Any, ...], rule: str) -> None:
    with pytest.raises(InvalidTerms) as info:
        BlindLevel(*args)
    assert info.value.rule_id == rule and info.value.code == "invalid_terms"
    assert isinstance(info.value, ValueError) and isinstance(info.value, EngineError)


def test_r9_3_amounts_must_be_true_integers() -> None:
    with pytest.raises(InvalidTerms):
        BlindLevel(1, 10, 20.0, 0, NONE, 5)  # type: ignore[arg-type]
    with pytest.raises(InvalidTerms):
        BlindLevel(True, 10, 20, 0, NONE, 5)


@pytest.mark.parametrize("levels", [
    (),
    (lvl(1, 10, 20), lvl(3, 15, 30)),                          # numbering gap
    (lvl(2, 10, 20),),                                         # does not start at 1
    (lvl(1, 10, 20), lvl(2, 15, 15)),                          # big blind goes down
    (lvl(1, 10, 20), lvl(2, 5, 30)),                           # small blind goes down
    (lvl(1, 10, 20, 5, EACH), lvl(2, 10, 30, 3, EACH)),        # ante goes down
    (lvl(1, 10, 20), lvl(2, 10, 20, minutes=10)),              # repeats the level before
])
def test_r9_3_structures_must_rise_level_by_level(levels: tuple[BlindLevel, ...]) -> None:
    with pytest.raises(InvalidTerms):
        BlindStructure(levels)


def test_r9_3_sensible_structures_are_accepted() -> None:
    # Same blinds with an ante added (the classic SNG level 7), then a switch of ante mode.
    BlindStructure((lvl(1, 100, 200), lvl(2, 100, 200, 25, EACH), lvl(3, 200, 400, 400, BBA)))


# -- terms: validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(("changes", "rule"), [
    ({"seat_count": 1}, "R1.6"),
    ({"seat_count": 11}, "R1.6"),
    ({"entry": 0}, "R9.1"),
    ({"starting_stack": 99}, "R9.1"),                    # cannot post level 1's big blind (100)
    ({"decision_ms": 4_999}, "R8.1"),
    ({"decision_ms": 120_001}, "R8.1"),
    ({"min_players": 1}, "R9.2"),
    ({"min_players": 50, "max_players": 40}, "R9.2"),
    ({"max_players": 100_001}, "R9.2"),
    ({"late_registration_level": 0}, "R9.11"),
    ({"late_registration_level": 42}, "R9.11"),          # the ladder has 41 levels
    ({"payout": PayoutRule.SPIN}, "R9.10"),
    ({"spin_table": SPIN_TABLE}, "R9.10"),
    ({"payout": PayoutRule.SIT_AND_GO}, "R7.3"),         # that table stops at 10 players
])
def test_terms_validation_names_the_rule(changes: dict[str, Any], rule: str) -> None:
    with pytest.raises(InvalidTerms) as info:
        scheduled(**changes)
    assert info.value.rule_id == rule and info.value.code == "invalid_terms"


def test_r9_2_a_sit_and_go_is_one_full_table() -> None:
    terms = sng_6max_turbo(100)
    with pytest.raises(InvalidTerms, match="seats are filled"):
        dataclasses.replace(terms, min_players=5)
    with pytest.raises(InvalidTerms, match="seats are filled"):
        dataclasses.replace(terms, max_players=12)
    with pytest.raises(InvalidTerms) as info:
        dataclasses.replace(terms, late_registration_level=3)
    assert info.value.rule_id == "R9.11"


def test_r7_4_a_spin_is_three_players_with_a_multiplier_table() -> None:
    terms = spin_3max_hyper(100)
    for changes in ({"seat_count": 4}, {"min_players": 2}, {"spin_table": None},
                    {"payout": PayoutRule.WINNER_TAKES_ALL}):
        with pytest.raises(InvalidTerms):
            dataclasses.replace(terms, **changes)


def test_terms_reject_mistyped_fields() -> None:
    for changes in ({"entry": "100"}, {"entry": 100.0}, {"bots_allowed": 1},
                    {"variant": "NLHE"}, {"kind": "spin"}, {"payout": "scheduled"}):
        with pytest.raises(InvalidTerms):
            scheduled(**changes)


# -- R9.11 late registration ----------------------------------------------------------------------


def test_r9_11_late_registration_closes_at_the_end_of_its_level() -> None:
    # mtt_turbo: late registration to the end of level 8, 5-minute levels: 40 minutes.
    assert mtt_turbo(100).late_registration_ends_ms(T0) == T0 + 40 * MINUTE_MS
    assert mtt_turbo(100).level_at(T0, T0 + 40 * MINUTE_MS).level.number == 9
    # mtt_deep: to the end of level 12, 10-minute levels: two hours.
    assert mtt_deep(100).late_registration_ends_ms(T0) == T0 + 120 * MINUTE_MS
    assert sng_9max_turbo(100).late_registration_ends_ms(T0) is None
    assert scheduled(late_registration_level=None).late_registration_ends_ms(T0) is None


# -- R9.9 pools and prizes through the terms ------------------------------------------------------


def test_r9_9_pool_is_the_sum_of_entries_and_split_as_published() -> None:
    terms = sng_9max_turbo(250)
    assert terms.prize_pool(9) == 2_250
    assert terms.prizes(9) == [1_125, 675, 450]
    assert sng_6max_turbo(101).prizes(6) == [394, 212]     # 606: 393.9 -> 393, 212.1 -> 212, +1
    assert sng_headsup_hyper(50).prizes(2) == [100]
    assert sum(mtt_deep(100).prizes(10_000)) == 1_000_000
    with pytest.raises(InvalidTerms):
        terms.prizes(8)                                     # a 9-max SNG has 9 entrants


def test_r9_9_a_spins_pool_is_entry_times_multiplier() -> None:
    terms = spin_3max_hyper(100)
    jackpot = SPIN_TABLE.prizes[-1]
    assert terms.prize_pool(3, jackpot) == 1_200_000
    assert terms.prizes(3, jackpot) == [960_000, 120_000, 120_000]
    assert terms.prizes(3, SpinPrize(2, 1, (100,))) == [200]
    with pytest.raises(InvalidTerms):
        terms.prize_pool(3)                                 # a Spin needs its multiplier
    with pytest.raises(InvalidTerms):
        sng_9max_turbo(100).prize_pool(9, jackpot)          # and only a Spin has one


# -- storage --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("variant", list(Variant))
def test_terms_round_trip_through_json(name: str, variant: Variant) -> None:
    terms = from_preset(name, 75, variant)
    data = json.loads(json.dumps(terms.to_dict()))
    assert TournamentTerms.from_dict(data) == terms
    assert TournamentTerms.from_dict(data).to_dict() == terms.to_dict()


@pytest.mark.parametrize("breakage", [
    lambda d: d.pop("entry"),
    lambda d: d.update(entry="75"),
    lambda d: d.update(kind="freeroll"),
    lambda d: d.update(variant="stud"),
    lambda d: d["structure"].update(levels="none"),
    lambda d: d["structure"]["levels"][0].pop("minutes"),
    lambda d: d["structure"]["levels"][0].update(ante_mode="half"),
    lambda d: d["structure"]["levels"][1].update(big_blind=10),
    lambda d: d.update(spin_table={"prizes": [{"multiplier": 2, "weight": 1, "split": [50]}]}),
    lambda d: d.update(spin_table={"prizes": [{"multiplier": 9, "weight": 1, "split": [100]}]}),
    lambda d: d.update(spin_table=[]),
])
def test_malformed_stored_terms_raise_invalid_terms(breakage: Any) -> None:
    data = spin_3max_hyper(75).to_dict()
    breakage(data)
    with pytest.raises(InvalidTerms):
        TournamentTerms.from_dict(data)


# -- presets --------------------------------------------------------------------------------------


def test_presets_are_what_their_docstrings_say() -> None:
    assert set(PRESETS) == {"sng_6max_turbo", "sng_9max_turbo", "sng_headsup_hyper",
                            "spin_3max_hyper", "mtt_deep", "mtt_turbo", "mtt_deep_breaks",
                            "sng_6max_turbo_ko", "sng_9max_turbo_ko", "sng_headsup_hyper_ko",
                            "spin_3max_hyper_ko"}
    spin = spin_3max_hyper(10)
    assert (spin.kind, spin.seat_count, spin.starting_stack, spin.payout) == (
        TournamentKind.SPIN, 3, 500, PayoutRule.SPIN)
    assert {level.minutes for level in spin.structure.levels} == {3}
    assert spin.structure.levels[0].big_blind == 20 and spin.spin_table is SPIN_TABLE
    for preset, seats in ((sng_6max_turbo, 6), (sng_9max_turbo, 9), (sng_headsup_hyper, 2)):
        sng = preset(10, Variant.PLO)
        assert sng.kind is TournamentKind.SIT_AND_GO and sng.variant is Variant.PLO
        assert sng.seat_count == sng.min_players == sng.max_players == seats
    assert sng_9max_turbo(10).structure.level(7) == BlindLevel(7, 100, 200, 25, EACH, 5)
    deep, turbo = mtt_deep(10), mtt_turbo(10)
    assert (deep.starting_stack, deep.structure.levels[0].minutes) == (20_000, 10)
    assert (turbo.starting_stack, turbo.structure.levels[0].minutes) == (10_000, 5)
    # The big-blind ante (equal to the big blind) starts at level 4 (deep) and 3 (turbo).
    assert [lv.ante_mode for lv in deep.structure.levels[:4]] == [NONE, NONE, NONE, BBA]
    assert [lv.ante_mode for lv in turbo.structure.levels[:3]] == [NONE, NONE, BBA]
    assert all(lv.ante == lv.big_blind for lv in deep.structure.levels[3:])
    assert deep.structure.levels[-1].big_blind == 1_000_000 and len(deep.structure.levels) == 41


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_level_makes_a_valid_table(name: str) -> None:
    terms = from_preset(name, 2, Variant.NAIKO)  # 2: the least a knockout preset splits
    for level in terms.structure.levels:
        level.table_config(terms.variant, terms.seat_count).validate()
    assert terms.starting_stack >= 20 * terms.structure.levels[0].big_blind


def test_unknown_preset_has_its_own_code() -> None:
    with pytest.raises(InvalidTerms) as info:
        from_preset("sng_100max", 10)
    assert info.value.code == "unknown_preset"
    with pytest.raises(InvalidTerms):
        from_preset("mtt_deep", 0)


def test_r9_9_the_split_by_field_size_covers_every_field_up_to_ten() -> None:
    terms = from_preset("mtt_turbo", 100)
    assert terms.payout_table() == [
        {"min_entrants": 2, "max_entrants": 5, "percent": [100]},
        {"min_entrants": 6, "max_entrants": 8, "percent": [65, 35]},
        {"min_entrants": 9, "max_entrants": 10, "percent": [50, 30, 20]}]
    assert terms.payout_split(0) == {"entrants": 2, "prizes": [200]}
    assert terms.payout_split(7) == {"entrants": 7, "prizes": [455, 245]}
    big = terms.payout_split(100)
    assert big is not None and sum(big["prizes"]) == 10_000 and len(big["prizes"]) == 15
    wta = dataclasses.replace(terms, payout=PayoutRule.WINNER_TAKES_ALL)
    assert wta.payout_table() == [{"min_entrants": 2, "max_entrants": 10, "percent": [100]}]
    assert from_preset("spin_3max_hyper", 100).payout_table() is None
