"""PHH for Naiko hands (issue 14, R10.1): the ``_naiko_*`` extension, replayed with its powers
through the engine (R5, R6) and, ignoring it, as plain No-Limit Hold'em; the round trip of
random engine hands of every variant; altered extensions refused with a clear code.

The two example files ``tests/data/phh/naiko-*.phh`` are the export of the two hands built
here (``NAIKO_REGENERATE_GOLDEN=1`` rewrites them).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
import roundtrip_hands
from naiko import phh
from naiko.state import TableState, Variant
from naiko_testing import play, start, table

DATA = Path(__file__).resolve().parents[1] / "data" / "phh"
SWAP_ANCHOR_SHIELD = DATA / "naiko-4p-swap-anchor-shield.phh"
PEEK_SWAP_ANCHOR = DATA / "naiko-3p-peek-swap-anchor.phh"


def swap_anchor_shield_hand() -> TableState:
    """4 players, Carousel sleeve_swap / short_anchor / seal_shield. Preflop p3 swaps its 7c
    (receives 9s), p4 anchors p1, who shields; p1 anchors p2, who passes; p2 raises to the pot
    (30, its limit) and p4 is all-in. p2 goes all-in on the flop: two pots, p1's kings win."""
    state = table([100, 60, 200, 30], variant=Variant.NAIKO, destellos=[2, 3, 2, 1])
    state, _ = start(state, {0: "AhKh", 1: "QsQd", 2: "7c2d", 3: "JcTc"},
                     board="9sKd8h2c5s3h", button=3,
                     carousel=("sleeve_swap", "short_anchor", "seal_shield"))
    state, _ = play(state, "2 swap 0", "2 r 6", "3 anchor 0", "0 shield", "3 c", "0 anchor 1",
                    "1 pass", "0 c", "1 r 30", "2 c", "3 c", "0 c",
                    "0 x", "1 b 30", "2 c", "0 c", "0 x", "2 x", "0 x", "2 x")
    return state


def peek_swap_anchor_hand() -> TableState:
    """3 players, Carousel peek / sleeve_swap / short_anchor. Preflop p3 peeks the Th, which
    p2's Sleeve Swap then takes (R6.8); p2 peeks the turn on the flop; on the turn p1 anchors
    p3, who raises to exactly the pot-size limit, 58 (R6.3)."""
    state = table([100, 100, 100], variant=Variant.NAIKO, destellos=[1, 2, 3])
    state, _ = start(state, {0: "AdJd", 1: "8s8c", 2: "KcQc"}, board="Th9d4s2hJs6c",
                     button=2, carousel=("peek", "sleeve_swap", "short_anchor"))
    state, _ = play(state, "2 peek", "2 c", "0 c", "1 swap 1", "1 x",
                    "0 x", "1 peek", "1 b 4", "2 c", "0 c",
                    "0 anchor 2", "0 b 10", "1 c", "2 r 58", "0 c", "1 c",
                    "0 x", "1 x", "2 x")
    return state


def exported(state: TableState) -> str:
    return phh.dumps(phh.from_state(state))


def altered(text: str, old: str, new: str) -> phh.HandHistory:
    assert text.count(old) == 1, old
    return phh.loads(text.replace(old, new))


def moved(text: str, entry: str, new: str) -> phh.HandHistory:
    """*text* with the ``_naiko_powers`` *entry* replaced by *new*, kept in index order."""
    hand = phh.loads(text)
    entries = [e for e in hand.user_fields["_naiko_powers"] if e != entry]
    index = int(new.split()[0])
    at = next((i for i, e in enumerate(entries) if int(e.split()[0]) > index), len(entries))
    entries.insert(at, new)
    hand.user_fields["_naiko_powers"] = entries
    return phh.loads(phh.dumps(hand))


def naiko_error(hand: phh.HandHistory) -> phh.PHHError:
    with pytest.raises(phh.PHHError) as error:
        phh.replay(hand)
    return error.value


def replays_as_holdem(hand: phh.HandHistory) -> None:
    """Ignoring the extension, the altered file still replays to its finishing stacks."""
    result = phh.replay(hand, naiko=False)
    assert result.matches and result.destellos is None


# -- export ----------------------------------------------------------------------------------

def test_r10_1_a_naiko_hand_exports_as_nt_with_its_powers_in_the_extension() -> None:
    history = phh.from_state(swap_anchor_shield_hand())
    assert history.variant == "NT"
    # the dh lines carry the cards each player ended with: p3's swapped 7c is gone
    assert history.actions[:4] == ["d dh p1 AhKh", "d dh p2 QsQd", "d dh p3 9s2d",
                                   "d dh p4 JcTc"]
    assert history.actions[4:11] == ["p3 cbr 6", "p4 cc", "p1 cc", "p2 cbr 30", "p3 cc",
                                     "p4 cc", "p1 cc"]
    assert history.user_fields == {
        "_naiko_carousel": ["sleeve_swap", "short_anchor", "seal_shield"],
        "_naiko_destellos": [2, 3, 2, 1],
        "_naiko_finishing_destellos": [0, 3, 1, 0],
        "_naiko_powers": ["4 p3 sleeve_swap 0 7c 9s", "5 p4 short_anchor p1",
                          "5 p1 seal_shield", "6 p1 short_anchor p2", "6 p2 pass"]}
    assert history.finishing_stacks == [Decimal(c) for c in (250, 0, 140, 0)]
    text = phh.dumps(history)
    assert '_naiko_powers = ["4 p3 sleeve_swap 0 7c 9s", ' in text
    assert phh.loads(text).user_fields == history.user_fields


def test_r10_1_peeks_are_written_with_the_card_seen() -> None:
    history = phh.from_state(peek_swap_anchor_hand())
    assert history.user_fields["_naiko_powers"] == [
        "3 p3 peek Th", "5 p2 sleeve_swap 1 8c Th", "8 p2 peek Js", "12 p1 short_anchor p3"]
    assert history.actions[7] == "p1 cc" and history.actions[11] == "d db Js"


@pytest.mark.parametrize("build", [swap_anchor_shield_hand, peek_swap_anchor_hand])
def test_r10_1_the_export_replays_with_powers_as_holdem_and_in_pokerkit(build: object) -> None:
    assert callable(build)
    state: TableState = build()
    text = exported(state)
    hand = phh.loads(text)
    naiko = phh.replay(hand)
    assert naiko.matches and naiko.destellos == hand.user_fields["_naiko_finishing_destellos"]
    assert naiko.verdict() == phh.Verdict("ok", "Naiko: powers replayed, destellos match")
    assert naiko.state.config.variant is Variant.NAIKO
    assert naiko.state.hand is not None and state.hand is not None
    assert [e.to_dict() for e in naiko.state.hand.log] == [e.to_dict() for e in state.hand.log]
    holdem = phh.replay(hand, naiko=False)
    assert holdem.matches and holdem.state.config.variant is Variant.NLHE
    pokerkit = pytest.importorskip("pokerkit")
    states = list(pokerkit.HandHistory.loads(text))
    assert [Decimal(s) for s in states[-1].stacks] == hand.finishing_stacks


def header(build: Callable[[], TableState]) -> str:
    """The example file's comment: where it comes from, and the hand's docstring."""
    assert build.__doc__
    lines = [f"# A Naiko hand exported by naiko.phh.from_state: {build.__name__}() in",
             "# tests/unit/test_phh_naiko.py (NAIKO_REGENERATE_GOLDEN=1 rewrites this file).",
             "# Plain No-Limit Hold'em for any PHH replayer; Naiko with its powers for ours",
             "# (the _naiko_* fields, docs/phh.md).",
             "#", *(f"# {line.strip()}" for line in build.__doc__.splitlines())]
    return "\n".join(lines) + "\n"


def test_r10_1_the_example_files_are_these_hands_exported_and_replay() -> None:
    for path, build in ((SWAP_ANCHOR_SHIELD, swap_anchor_shield_hand),
                        (PEEK_SWAP_ANCHOR, peek_swap_anchor_hand)):
        text = exported(build())
        if os.environ.get("NAIKO_REGENERATE_GOLDEN"):
            path.write_text(header(build) + text, encoding="utf-8")
        assert path.read_text(encoding="utf-8").startswith(header(build)), path.name
        assert phh.dumps(phh.load(path)[0]) == text, path.name
    assert phh.main([str(SWAP_ANCHOR_SHIELD), str(PEEK_SWAP_ANCHOR), "-q"]) == 0
    assert phh.main([str(SWAP_ANCHOR_SHIELD), str(PEEK_SWAP_ANCHOR), "--holdem", "-q"]) == 0


def test_r10_1_the_cli_replays_naiko_files_and_names_what_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = exported(swap_anchor_shield_hand())
    (tmp_path / "a.phh").write_text(text)
    # p2 shields instead of passing: legal, but it costs the destello the file does not show
    (tmp_path / "b.phh").write_text(text.replace('"6 p2 pass"', '"6 p2 seal_shield"'))
    (tmp_path / "c.phh").write_text(text.replace('"6 p2 pass"', '"6 p2 pass", "7 p1 peek Kd"'))
    assert phh.main([str(tmp_path), "--reasons"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert any(line.endswith("a.phh: [250, 0, 140, 0] ok (Naiko: powers replayed, destellos "
                             "match)") for line in out)
    assert any(line.endswith("b.phh: [250, 0, 140, 0] MISMATCH (destellos [0, 2, 1, 0], the "
                             "file says [0, 3, 1, 0])") for line in out)
    assert any(line.endswith("c.phh: ERROR: _naiko_powers[5] '7 p1 peek Kd': powers are used "
                             "on your own turn, before your action (R5.5); it is seat 1's turn "
                             "[not_your_turn]") for line in out)  # seat 1 is p2
    assert any(line.split() == ["1", "error:", "illegal_power"] for line in out)
    assert any(line.split() == ["1", "mismatch:", "finishing_destellos"] for line in out)
    assert out[-1] == "1 passed, 2 failed"
    assert phh.main([str(tmp_path), "--holdem", "-q"]) == 0  # plain Hold'em: all pass
    assert capsys.readouterr().out.splitlines()[-1] == "3 passed, 0 failed"


# -- the round trip over random hands --------------------------------------------------------

@pytest.mark.parametrize("variant", list(Variant))
def test_r10_1_random_hands_round_trip_through_phh(variant: Variant) -> None:
    """80 random hands per variant (2-10 players, antes, short stacks, powers): export, parse,
    replay with our replayer (Naiko: with the powers, and as Hold'em) to the same stacks and
    destellos; each player's and an observer's copy replays too and names no card that reader
    was not shown; PokerKit differs only where RULES.md does."""
    pytest.importorskip("pokerkit")
    tally = roundtrip_hands.run(14 + len(variant.value), 80, (variant,))
    assert tally.failures == []
    assert tally.hands == {variant.value: 80}
    for feature in ("side pots", "all-in", "showdown", "2 players", "10 players",
                    "antes (each)", "antes (big_blind)"):
        assert tally.features[feature] > 0, feature
    if variant is Variant.NAIKO:
        for power in ("peek", "sleeve_swap", "short_anchor", "seal_shield"):
            assert tally.features[f"power {power}"] > 0, power
    assert sum(tally.pokerkit.values()) == 80
    assert sum(n for k, n in tally.pokerkit.items() if k.endswith(": same")) >= 60


def test_r3_2_the_round_trip_counts_reopenings_where_pokerkit_differs() -> None:
    """The R3.2 detector of the round trip: a raise by a player who acted before a short
    all-in on the same street."""
    state = table([200, 24, 30, 34, 200], sb=5, bb=10)
    state, _ = start(state, button=4)
    state, _ = play(state, "2 c", "3 c", "4 c", "0 c", "1 x",
                    "0 b 10", "1 a", "2 a", "3 a", "4 c")  # all-ins to 14, 20, 24: short
    assert state.hand is not None
    assert roundtrip_hands.r3_2_reopened(state.hand, 10) is False
    state, _ = play(state, "0 r 40")  # 14 more since its bet: a full raise in total (R3.2)
    assert state.hand is not None
    assert roundtrip_hands.r3_2_reopened(state.hand, 10) is True


# -- altered extensions: the Naiko replay refuses them, the Hold'em replay does not ----------

def test_r6_2_a_sleeve_swap_moved_to_the_flop_fails_the_naiko_replay() -> None:
    text = exported(swap_anchor_shield_hand())
    hand = moved(text, "4 p3 sleeve_swap 0 7c 9s", "14 p3 sleeve_swap 0 7c 9s")
    error = naiko_error(hand)
    assert error.code == "illegal_power"
    assert "Sleeve Swap is used preflop only (R6.2) [wrong_street]" in str(error)
    replays_as_holdem(hand)


def test_r6_2_a_sleeve_swap_after_its_players_first_action_fails() -> None:
    text = exported(swap_anchor_shield_hand())
    hand = moved(text, "4 p3 sleeve_swap 0 7c 9s", "8 p3 sleeve_swap 0 7c 9s")
    error = naiko_error(hand)
    assert error.code == "illegal_power" and "[already_acted]" in str(error)
    replays_as_holdem(hand)


@pytest.mark.parametrize(("old", "new", "code"), [
    ("sleeve_swap 0 7c 9s", "sleeve_swap 0 7c 9h", "swap_mismatch"),   # received another card
    ("sleeve_swap 0 7c 9s", "sleeve_swap 1 7c 9s", "swap_mismatch"),   # the other hole card
    ("sleeve_swap 0 7c 9s", "sleeve_swap 0 Kd 9s", "duplicate_card"),  # discarded a board card
])
def test_r6_2_a_wrong_swap_card_fails_the_naiko_replay(old: str, new: str, code: str) -> None:
    hand = altered(exported(swap_anchor_shield_hand()), old, new)
    assert naiko_error(hand).code == code
    replays_as_holdem(hand)


def test_r6_1_a_peek_of_another_card_or_on_the_river_fails() -> None:
    text = exported(peek_swap_anchor_hand())
    hand = altered(text, '"8 p2 peek Js"', '"8 p2 peek 6c"')
    error = naiko_error(hand)
    assert error.code == "peek_mismatch" and "the next card drawn was Js" in str(error)
    replays_as_holdem(hand)
    hand = moved(text, "8 p2 peek Js", "19 p2 peek Js")  # the river: no card to come
    error = naiko_error(hand)
    assert error.code == "illegal_power" and "(R6.1) [wrong_street]" in str(error)
    replays_as_holdem(hand)


def test_r6_1_a_peek_of_a_card_never_dealt_is_checked_by_the_engine() -> None:
    """The hand ends before the flop: p1's peeked 9d is never dealt, so only the file says
    which card it was; the replay puts it where the flop would have started, and the engine's
    Peek must see it."""
    state = table([100, 100, 100], variant=Variant.NAIKO, destellos=[1, 2, 3])
    state, _ = start(state, {0: "AdJd", 1: "8s8c", 2: "KcQc"}, board="Th9d4s2hJs6c",
                     button=2, carousel=("peek", "sleeve_swap", "short_anchor"))
    state, _ = play(state, "2 f", "0 c", "1 swap 1", "1 r 6", "0 peek", "0 f")
    text = exported(state)
    assert phh.loads(text).user_fields["_naiko_powers"] == ["5 p2 sleeve_swap 1 8c Th",
                                                            "6 p1 peek 9d"]
    assert phh.replay(phh.loads(text)).verdict().passed
    hand = altered(text, '"6 p1 peek 9d"', '"6 p1 peek Th"')  # the card p2's swap took
    error = naiko_error(hand)
    assert error.code == "peek_mismatch" and "the engine shows 2c" in str(error)
    replays_as_holdem(hand)


def test_r6_4_a_seal_shield_without_an_open_window_fails() -> None:
    text = exported(swap_anchor_shield_hand())
    hand = altered(text, '"5 p4 short_anchor p1", "5 p1 seal_shield"',
                   '"5 p1 seal_shield", "5 p4 short_anchor p1"')
    error = naiko_error(hand)
    assert error.code == "illegal_power" and "(R6.4) [no_open_window]" in str(error)
    replays_as_holdem(hand)
    hand = altered(text, '"6 p2 pass"', '"6 p2 pass", "7 p2 seal_shield"')
    error = naiko_error(hand)
    assert error.code == "illegal_power" and "(R6.5) [window_closed]" in str(error)


def test_r6_3_an_anchor_limits_raises_and_targets_only_who_has_not_acted() -> None:
    text = exported(peek_swap_anchor_hand())
    hand = altered(text, '"p3 cbr 58"', '"p3 cbr 59"')  # above the anchored pot-size limit
    error = naiko_error(hand)
    assert error.code == "illegal_action" and "maximum of 58 (R6.3)" in str(error)
    holdem = phh.replay(hand, naiko=False)  # legal No-Limit Hold'em
    assert holdem.chips == [230, 35, 35] and holdem.verdict().code == "finishing_stacks"
    hand = altered(text, '"12 p1 short_anchor p3"', '"13 p1 short_anchor p3"')  # p2's turn
    error = naiko_error(hand)  # at p2's turn: a power is used on one's own turn (R5.5)
    assert error.code == "illegal_power" and "(R5.5)" in str(error)
    hand = altered(exported(swap_anchor_shield_hand()), '"6 p1 short_anchor p2", "6 p2 pass"',
                   '"6 p1 short_anchor p3"')
    error = naiko_error(hand)  # p3 already acted this round
    assert error.code == "illegal_power" and "(R6.3) [invalid_target]" in str(error)
    replays_as_holdem(hand)


def test_r5_7_destellos_and_the_carousel_are_checked() -> None:
    text = exported(swap_anchor_shield_hand())
    hand = altered(text, "_naiko_destellos = [2, 3, 2, 1]", "_naiko_destellos = [2, 3, 0, 1]")
    error = naiko_error(hand)  # p3 holds 1 after the credit: a Sleeve Swap costs 2
    assert error.code == "illegal_power" and "(R5.7) [cannot_pay]" in str(error)
    replays_as_holdem(hand)
    hand = altered(text, "_naiko_finishing_destellos = [0, 3, 1, 0]",
                   "_naiko_finishing_destellos = [0, 3, 2, 0]")
    verdict = phh.replay(hand).verdict()
    assert (verdict.status, verdict.code) == ("mismatch", "finishing_destellos")
    hand = altered(text, '["sleeve_swap", "short_anchor", "seal_shield"]',
                   '["peek", "short_anchor", "seal_shield"]')
    error = naiko_error(hand)
    assert error.code == "illegal_power" and "(R5.7) [not_in_carousel]" in str(error)
    hand = altered(text, '["sleeve_swap", "short_anchor", "seal_shield"]',
                   '["sleeve_swap", "peek", "seal_shield"]')
    error = naiko_error(hand)
    assert error.code == "bad_carousel" and "R5.4" in str(error)
    replays_as_holdem(hand)


@pytest.mark.parametrize(("old", "new"), [
    ('"5 p4 short_anchor p1"', '"5 p4 short_anchor"'),
    ('"5 p4 short_anchor p1"', '"5 p4 anchor p1"'),
    ('"5 p4 short_anchor p1"', '"5 p9 short_anchor p1"'),
    ('"5 p4 short_anchor p1"', '"99 p4 short_anchor p1"'),
    ('"5 p4 short_anchor p1"', '"3 p4 short_anchor p1"'),   # before an earlier entry's index
    ('"4 p3 sleeve_swap 0 7c 9s"', '"4 p3 sleeve_swap 2 7c 9s"'),
    ('"4 p3 sleeve_swap 0 7c 9s"', '"4 p3 sleeve_swap 0 7c9s"'),
    ("_naiko_destellos = [2, 3, 2, 1]", "_naiko_destellos = [2, 3, 2, 4]"),
    ("_naiko_destellos = [2, 3, 2, 1]", "_naiko_destellos = [2, 3, 2]"),
    ('["sleeve_swap", "short_anchor", "seal_shield"]', '["sleeve_swap", "short_anchor"]'),
])
def test_r10_1_a_malformed_extension_is_refused_as_bad_naiko(old: str, new: str) -> None:
    hand = altered(exported(swap_anchor_shield_hand()), old, new)
    assert naiko_error(hand).code == "bad_naiko"
    replays_as_holdem(hand)


def test_r10_1_replay_can_require_or_ignore_the_extension() -> None:
    plain = phh.load(DATA / "nt-hu-board-split.phh")[0]
    with pytest.raises(phh.PHHError) as error:
        phh.replay(plain, naiko=True)
    assert error.value.code == "not_naiko"
    assert phh.replay(plain).destellos is None


# -- one reader's copy -----------------------------------------------------------------------

def test_r10_1_a_readers_copy_hides_other_players_peeks_and_swaps_and_still_replays() -> None:
    hand = phh.from_state(peek_swap_anchor_hand())
    for reader, powers in (
            (None, ["3 p3 peek ??", "5 p2 sleeve_swap 1 ?? ??", "8 p2 peek ??"]),
            (0, ["3 p3 peek ??", "5 p2 sleeve_swap 1 ?? ??", "8 p2 peek ??"]),
            (1, ["3 p3 peek ??", "5 p2 sleeve_swap 1 8c Th", "8 p2 peek Js"]),
            (2, ["3 p3 peek Th", "5 p2 sleeve_swap 1 ?? ??", "8 p2 peek ??"])):
        copy = phh.for_reader(hand, reader)
        assert copy.user_fields["_naiko_powers"] == [*powers, "12 p1 short_anchor p3"]
        assert copy.actions == hand.actions  # everybody was shown at the showdown
        result = phh.replay(phh.loads(phh.dumps(copy)))
        assert result.matches and result.verdict().passed
    # p3 folds preflop: its cards are nobody else's, and p3's peeked Th, which p2's swap then
    # took into a hand nobody was shown, is hidden from p3 too (R6.8)
    state = table([100, 100, 100], variant=Variant.NAIKO, destellos=[1, 2, 3])
    state, _ = start(state, {0: "AdJd", 1: "8s8c", 2: "KcQc"}, board="Th9d4s2hJs6c",
                     button=2, carousel=("peek", "sleeve_swap", "short_anchor"))
    state, _ = play(state, "2 peek", "2 f", "0 c", "1 swap 1", "1 r 6", "0 f")
    hand = phh.from_state(state)
    copy = phh.for_reader(hand, 2)
    assert copy.actions[:3] == ["d dh p1 ????", "d dh p2 ????", "d dh p3 KcQc"]
    assert copy.user_fields["_naiko_powers"] == ["3 p3 peek ??", "5 p2 sleeve_swap 1 ?? ??"]
    assert phh.replay(phh.loads(phh.dumps(copy))).matches
    assert phh.for_reader(hand, 1).user_fields["_naiko_powers"] == [
        "3 p3 peek ??", "5 p2 sleeve_swap 1 8c Th"]
