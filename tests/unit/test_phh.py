"""PHH hand histories: parsing, exact scaling, refusals, strict replay, export, the CLI.

The hand files under ``tests/data/phh`` were written for this project (two of them transcribe
famous public hands); their finishing stacks are worked out by hand in their comments.
"""

from __future__ import annotations

import random
import re
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko import phh
from naiko.cards import shuffled_deck
from naiko.commands import AllIn, Bet, Call, Check, Command, Fold, RaiseTo, SitDown, StartHand
from naiko.engine import apply, legal_actions
from naiko.state import AnteMode, TableConfig, TableState, Variant

DATA = Path(__file__).resolve().parents[1] / "data" / "phh"
DATA_FILES = sorted(p for p in DATA.iterdir() if p.suffix in (".phh", ".phhs"))
DATA_HANDS = [hand for path in DATA_FILES for hand in phh.load(path)]


def hand_text(actions: list[str], *, stacks: str = "[100, 100, 100]", blinds: str = "[1, 2, 0]",
              antes: str | None = None, variant: str = "NT", min_bet: str = "2",
              extra: str = "") -> str:
    n = stacks.count(",") + 1
    antes = antes or "[" + ", ".join(["0"] * n) + "]"
    quoted = ", ".join(f'"{a}"' for a in actions)
    return (f'variant = "{variant}"\nantes = {antes}\nblinds_or_straddles = {blinds}\n'
            f"min_bet = {min_bet}\nstarting_stacks = {stacks}\nactions = [{quoted}]\n{extra}")


def replay_text(actions: list[str], **kwargs: str) -> phh.Replay:
    return phh.replay(phh.loads(hand_text(actions, **kwargs)))


DEAL3 = ["d dh p1 AsAd", "d dh p2 KsKd", "d dh p3 QsQd"]


# -- parsing ---------------------------------------------------------------------------------

def test_amounts_are_exact_decimals_and_user_fields_are_ignored() -> None:
    hand = phh.loads(hand_text(["p3 f", "p1 f"], stacks="[200.30, 81.60, 197]",
                               blinds="[0.50, 1, 0]", min_bet="1",
                               extra='_mine = 3\nevent = "x"\nplayers = ["a", "b", "c"]\n'))
    assert hand.starting_stacks == [Decimal("200.30"), Decimal("81.60"), Decimal(197)]
    assert hand.blinds_or_straddles[0] == Decimal("0.50")
    assert hand.extra == {"event": "x"}
    assert hand.players == ["a", "b", "c"]
    assert hand.scale == 1 and hand.places == 2  # 200.3 needs tenths; 200.30 is written


def test_scale_is_the_smallest_power_of_ten_over_every_amount() -> None:
    assert phh.loads(hand_text(["p3 f", "p1 f"])).scale == 0
    # only a bet size needs tenths
    assert phh.loads(hand_text(["p3 cbr 4.5", "p1 f", "p2 f"])).scale == 1
    # finishing stacks count too
    text = hand_text(["p3 f", "p1 f"], extra="finishing_stacks = [99, 100.125, 100]\n")
    assert phh.loads(text).scale == 3
    # 1E+2 style values are integers
    assert phh.loads(hand_text(["p3 f", "p1 f"], stacks="[100.00, 100.0, 100]")).scale == 0


def test_cents_are_replayed_in_whole_cents() -> None:
    result = replay_text(["p3 cbr 1.50", "p1 cc", "p2 f", "d db 2c3d4h", "p1 cbr 0.75",
                          "p3 f"], stacks="[10, 10.05, 9.95]", blinds="[0.25, 0.50, 0]",
                         min_bet="0.50")
    assert result.scale == 2
    assert result.state.config.big_blind == 50
    assert result.chips == [1200, 955, 845]
    assert [str(s) for s in result.finishing_stacks] == ["12.00", "9.55", "8.45"]


def test_phhs_hands_keep_file_order_and_labels() -> None:
    one = hand_text(["p3 f", "p1 f"])
    text = f"[2]\n{one}\n[1]\n{one.replace('NT', 'PO')}"
    hands = phh.loads_all(text, source="x.phhs")
    assert [(h.variant, h.source) for h in hands] == [("NT", "x.phhs [2]"), ("PO", "x.phhs [1]")]


@pytest.mark.parametrize(("text", "code"), [
    ("variant = 'NT'\nantes = [", "bad_toml"),
    ('variant = "NT"\nantes = [0, 0]\nmin_bet = 2\nstarting_stacks = [1, 1]\nactions = []',
     "missing_field"),
    (hand_text([], stacks='[100, "x", 100]'), "bad_field"),
    (hand_text([], extra="ante_trimming_status = 1\n"), "bad_field"),
    (hand_text([]).replace('actions = []', 'actions = "p1 f"'), "bad_field"),
])
def test_malformed_files_are_rejected(text: str, code: str) -> None:
    with pytest.raises(phh.PHHError) as error:
        phh.loads(text)
    assert error.value.code == code
    assert not isinstance(error.value, phh.UnsupportedHand)


@pytest.mark.parametrize(("action", "code"), [
    ("p4 f", "bad_action"),          # no p4 in a 3-player hand
    ("p1 cbr", "bad_action"),
    ("p1 cbr -5", "bad_action"),
    ("p1 cbr ten", "bad_action"),
    ("p1 sd", "bad_action"),         # draw games only
    ("d dh p1 AhXx", "bad_card"),
    ("d db AhK", "bad_action"),
    ("x f", "bad_action"),
])
def test_malformed_actions_name_their_index(action: str, code: str) -> None:
    with pytest.raises(phh.PHHError) as error:
        replay_text(["p3 f", action])
    assert error.value.code == code
    assert error.value.action_index == 1 and error.value.action == action
    assert str(error.value).startswith(f"action 1 {action!r}:")


def test_commentary_and_empty_actions_are_no_ops() -> None:
    result = replay_text(["# pre-flop", "", "p3 f  # folds", "p1 f"])
    assert result.chips == [99, 101, 100]


# -- refusals --------------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "code"), [
    ({"variant": "FT"}, "unsupported_variant"),
    ({"variant": "NS"}, "unsupported_variant"),
    ({"blinds": "[1, 2, 4]"}, "straddle"),
    ({"blinds": "[1, 2, 0, 0]", "stacks": "[100, 100, 100, 100]", "antes": "[0, 0, 0, 5]"},
     "antes"),                                            # a button ante
    ({"antes": "[1, 2, 1]"}, "antes"),
    ({"min_bet": "1"}, "min_bet"),
    ({"blinds": "[3, 2, 0]", "min_bet": "2"}, "blinds"),  # small blind above the big blind
    ({"blinds": "[2, 0, 0]", "min_bet": "0"}, "blinds"),  # no big blind
    ({"stacks": "[100, inf, 100]"}, "infinite_amount"),
    ({"stacks": "[" + ", ".join(["100"] * 11) + "]", "blinds": "[1, 2" + ", 0" * 9 + "]"},
     "player_count"),
    ({"stacks": "[100]", "blinds": "[2]", "antes": "[0]"}, "player_count"),
    ({"antes": "[0, 1, 0]", "extra": "ante_trimming_status = true\n"}, "ante_trimming"),
])
def test_what_the_engine_cannot_play_is_refused(kwargs: dict[str, str], code: str) -> None:
    with pytest.raises(phh.UnsupportedHand) as error:
        phh.replay(phh.loads(hand_text(["p3 f", "p1 f"], **kwargs)))
    assert error.value.code == code
    assert isinstance(error.value, ValueError)


def test_fixed_limit_files_parse_and_are_refused_by_replay() -> None:
    text = ('variant = "FT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\n'
            'big_bet = 4\nstarting_stacks = [50, 50]\nactions = ["p2 f"]\n')
    hand = phh.loads(text)
    assert hand.extra["small_bet"] == 2
    verdict, result = phh.check(hand)
    assert (verdict.status, verdict.code, result) == ("unsupported", "unsupported_variant", None)


def test_uniform_antes_and_big_blind_antes_are_played() -> None:
    uniform = replay_text(["p3 f", "p1 f"], antes="[5, 5, 5]",
                          extra="ante_trimming_status = true\n")
    assert uniform.state.config.ante_mode is AnteMode.EACH
    assert uniform.chips == [94, 111, 95]  # antes 15 + small blind 1 + own blind 1 back
    big_blind_ante = replay_text(["p3 f", "p1 f"], antes="[0, 5, 0]")
    assert big_blind_ante.state.config.ante_mode is AnteMode.BIG_BLIND
    assert big_blind_ante.chips == [99, 101, 100]


def test_heads_up_forced_bets_are_reversed_like_phh() -> None:
    # p1 is the big blind and p2 (the button) posts the small blind and acts first; the
    # big-blind ante antes[1] is p1's.
    result = replay_text(["p2 f"], stacks="[50, 50]", blinds="[1, 2]", antes="[0, 3]")
    game = result.state.hand
    assert game is not None
    assert (game.big_blind_seat, game.small_blind_seat, game.button) == (0, 1, 1)
    assert result.chips == [51, 49]


# -- strict replay ---------------------------------------------------------------------------

@pytest.mark.parametrize(("actions", "code", "index"), [
    (DEAL3 + ["p1 f"], "wrong_player", 3),                          # p3 acts first
    (DEAL3 + ["p3 cbr 3"], "illegal_action", 3),                    # below the minimum of 4
    (DEAL3 + ["p3 cc"], "incomplete", None),                        # p1 still to act
    (DEAL3 + ["p3 f", "p1 f", "p2 f"], "extra_action", 5),
    (DEAL3 + ["p3 f", "p1 f", "d db 2c3d4h"], "extra_action", 5),
    (DEAL3 + ["p3 cc", "d db 2c3d4h"], "premature_deal", 4),
    (DEAL3 + ["p3 cc", "p1 cc", "p2 cc", "p1 cc"], "missing_deal", 6),
    (DEAL3 + ["p3 cc", "p1 cc", "p2 cc", "d db 2c3d"], "bad_board", 6),
    (DEAL3 + ["p3 cc", "p1 cc", "p2 cc", "d db 2c3d4h", "d db 5h"], "premature_deal", 7),
    (DEAL3 + ["p3 cc", "p1 sm AsAd"], "premature_showdown", 4),
    (DEAL3 + ["p3 f", "p1 f", "p2 sm KsKd"], "bad_showdown", 5),
    (DEAL3 + ["p3 f", "p1 cc", "p2 cc", "d db 2c3d4h", "p1 cc", "p2 cc", "d db 5h",
              "p1 cc", "p2 cc", "d db 6h", "p1 cc", "p2 cc", "p3 sm QsQd"], "bad_showdown", 15),
    (DEAL3 + ["p3 f", "p1 cc", "p2 cc", "p1 sm AhAd"], "card_mismatch", 6),
    (DEAL3 + ["p3 f", "p1 cc", "p2 cc", "d db As2c3c"], "duplicate_card", None),
    (DEAL3 + ["p3 cc", "d dh p1 ????"], "bad_hole_cards", 4),
    (["d dh p1 AsAd", "d dh p2 KsKd", "p3 f", "d dh p3 QsQd"], "late_deal", 3),
    (DEAL3 + ["p3 cbr 100", "p1 cc", "p2 cc"], "incomplete", None),  # no run-out in the file
])
def test_replay_is_strict(actions: list[str], code: str, index: int | None) -> None:
    with pytest.raises(phh.PHHError) as error:
        replay_text(actions)
    assert error.value.code == code
    assert not isinstance(error.value, phh.UnsupportedHand)
    assert error.value.action_index == index
    if index is not None:
        assert error.value.action == actions[index]


def test_an_engine_rejection_carries_the_rule() -> None:
    with pytest.raises(phh.PHHError) as error:
        replay_text(DEAL3 + ["p3 cbr 3"])
    assert "below the minimum of 4" in str(error.value) and "R3.1" in str(error.value)


def test_r3_2_a_single_short_all_in_does_not_reopen_the_betting() -> None:
    # flop: p1 bets 10, p2 calls, p3 is all-in to 18 (+8 < 10): p1 may not re-raise.
    actions = ["d dh p1 AsAd", "d dh p2 KsKd", "d dh p3 QsQd", "d dh p4 JsJd", "p3 cc", "p4 f",
               "p1 cc", "p2 cc", "d db 2c3c4c", "p1 cbr 10", "p2 cc", "p3 cbr 18",
               "p1 cbr 60"]
    with pytest.raises(phh.PHHError) as error:
        replay_text(actions, stacks="[200, 200, 20, 200]", blinds="[1, 2, 0, 0]")
    assert error.value.code == "illegal_action" and error.value.action_index == 12
    assert "R3.2" in str(error.value)


def test_r3_2_short_all_ins_adding_up_to_a_full_raise_reopen_it() -> None:
    # RULES.md R3.2 example: A bets 10, B calls, C all-in to 18, D all-in to 25: A may raise.
    actions = ["d dh p1 AsAd", "d dh p2 KsKd", "d dh p3 QsQd", "d dh p4 JsJd", "p3 cc", "p4 cc",
               "p1 cc", "p2 cc", "d db 2c3c4c", "p1 cbr 10", "p2 cc", "p3 cbr 18",
               "p4 cbr 25", "p1 cbr 60", "p2 f", "p1 sm AsAd", "p3 sm QsQd", "p4 sm JsJd",
               "d db 8h", "d db 9h"]
    result = replay_text(actions, stacks="[200, 200, 20, 27]", blinds="[1, 2, 0, 0]")
    assert result.chips == [259, 188, 0, 0]  # PokerKit agrees here


def test_r2_3_a_short_big_blind_is_reported_as_a_rule_divergence() -> None:
    # Finishing stacks as PokerKit computes them: there the limpers call the 1 chip the big
    # blind could post; under R2.3 the price stays the nominal big blind of 2.
    actions = ["d dh p1 AsAd", "d dh p2 KsKd", "d dh p3 QsQd", "d dh p4 JsJd",
               "p3 cc", "p4 cc", "p1 cc", "d db 2c3c4c", "p1 cc", "p3 cc", "p4 cc", "d db 8h",
               "p1 cc", "p3 cc", "p4 cc", "d db 9h", "p1 cc", "p3 cc", "p4 cc"]
    text = hand_text(actions, stacks="[200, 1, 200, 200]", blinds="[1, 2, 0, 0]",
                     extra="finishing_stacks = [203, 0, 199, 199]\n")
    verdict, result = phh.check(phh.loads(text))
    assert result is not None and result.chips == [205, 0, 198, 198]
    assert verdict.status == "mismatch"
    assert "big blind was short (1 of 2 chips): R2.3" in verdict.detail


def test_unknown_cards_at_a_showdown_are_refused() -> None:
    actions = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 f", "p1 cc", "p2 cc",
               "d db 2c3d4h", "p1 cc", "p2 cc", "d db 5h", "p1 cc", "p2 cc", "d db 6h",
               "p1 cc", "p2 cc"]
    with pytest.raises(phh.UnsupportedHand) as error:
        replay_text(actions)
    assert error.value.code == "unknown_cards" and "p1" in str(error.value)
    # p2 mucking unseen (sm ????) settles it: p1 wins without showing his hand to us
    result = replay_text(actions + ["p2 sm ????"])
    assert result.chips == [102, 98, 100]
    # both mucking leaves nobody to award the pot to
    with pytest.raises(phh.UnsupportedHand):
        replay_text(actions + ["p1 sm", "p2 sm ????"])


def test_a_hand_mucked_without_cards_cannot_win() -> None:
    actions = DEAL3 + ["p3 f", "p1 cc", "p2 cc", "d db 2c7d9h", "p1 cc", "p2 cc", "d db Th",
                       "p1 cc", "p2 cc", "d db Jh", "p1 cc", "p2 cc"]
    assert replay_text(actions).chips == [102, 98, 100]               # aces win
    assert replay_text(actions + ["p2 sm KsKd", "p1 sm"]).chips == [98, 102, 100]


def test_cards_first_kept_face_down_then_shown_count() -> None:
    actions = ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 100", "p1 cc", "p2 f",
               "p1 sm ????", "p3 sm ????", "d db 2c7d9h", "d db Th", "d db Jh",
               "p1 sm AsAd", "p3 sm KsKd"]
    assert replay_text(actions).chips == [202, 98, 0]


def test_verdicts_against_finishing_stacks() -> None:
    base = ["p3 f", "p1 f"]
    good = phh.check(phh.loads(hand_text(base, extra="finishing_stacks = [99, 101, 100]\n")))
    assert good[0].passed
    bad = phh.check(phh.loads(hand_text(base, extra="finishing_stacks = [100, 100, 100]\n")))
    assert bad[0].status == "mismatch" and "expected [100, 100, 100]" in bad[0].detail
    none = phh.check(phh.loads(hand_text(base)))
    assert none[0].passed and "no finishing_stacks or winnings" in none[0].detail


@pytest.mark.parametrize(("winnings", "status", "detail"), [
    ("[0, 5, 0]", "ok", "winnings match"),        # 1 + 2 + p2's 2 called (4 come back)
    ("[0, 4.8, 0]", "ok", "rake of 0.2"),
    ("[0, 0, 5]", "mismatch", "winnings"),
])
def test_verdicts_against_post_rake_winnings(winnings: str, status: str, detail: str) -> None:
    text = hand_text(["p3 cc", "p1 f", "p2 cbr 6", "p3 f"], extra=f"winnings = {winnings}\n")
    verdict, _ = phh.check(phh.loads(text))
    assert verdict.status == status and detail in verdict.detail


def test_online_sites_count_the_big_blinds_own_blind_in_a_walk() -> None:
    text = hand_text(["p3 f", "p1 f"], extra="winnings = [0, 3, 0]\n")
    verdict, result = phh.check(phh.loads(text))
    assert result is not None and result.collected == [0, 2, 0]  # 1 of the blind came back
    assert verdict.passed and "big blind" in verdict.detail


# -- the hand files --------------------------------------------------------------------------

@pytest.mark.parametrize("hand", DATA_HANDS, ids=[h.source or "?" for h in DATA_HANDS])
def test_data_files_replay_to_their_finishing_stacks(hand: phh.HandHistory) -> None:
    result = phh.replay(hand)
    assert hand.finishing_stacks is not None
    assert result.matches, (result.finishing_stacks, hand.finishing_stacks)
    total = sum(hand.chips(s, result.scale) for s in hand.starting_stacks)
    assert sum(result.chips) == total


def test_data_files_cover_the_required_cases() -> None:
    variants = {h.variant for h in DATA_HANDS}
    counts = {h.player_count for h in DATA_HANDS}
    assert variants == {"NT", "PO"}
    assert 2 in counts and {3, 9} <= counts
    assert any(h.scale == 2 for h in DATA_HANDS)
    assert any(len(set(h.antes)) == 1 and h.antes[0] > 0 for h in DATA_HANDS)
    assert any(h.antes[0] == 0 and h.antes[1] > 0 for h in DATA_HANDS)
    assert any(any("????" in a for a in h.actions) for h in DATA_HANDS)
    assert any(p.suffix == ".phhs" for p in DATA_FILES)


def test_data_files_agree_with_pokerkit_except_where_our_rules_differ() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    for hand in DATA_HANDS:
        history = pokerkit.HandHistory.loads(phh.dumps(hand))
        states = list(history)
        theirs = [Decimal(s) for s in states[-1].stacks]
        ours = [Decimal(s) for s in phh.replay(hand).finishing_stacks]
        if "odd-chips" in (hand.source or ""):
            assert theirs == [98, 102, 100, 100] and ours == [98, 101, 101, 100]  # R4.5
        else:
            assert theirs == ours, hand.source


# -- export ----------------------------------------------------------------------------------

def random_command(state: TableState, rng: random.Random) -> Command:
    prompt = legal_actions(state)
    assert prompt is not None
    action = rng.choice(prompt.actions)
    seat = prompt.seat_index
    if action in ("bet", "raise_to"):
        assert prompt.min_raise_to is not None and prompt.max_raise_to is not None
        amount = rng.choice([prompt.min_raise_to, prompt.max_raise_to,
                             rng.randint(prompt.min_raise_to, prompt.max_raise_to)])
        return Bet(seat_index=seat, amount=amount) if action == "bet" else RaiseTo(
            seat_index=seat, amount=amount)
    kinds: dict[str, type[Fold | Check | Call | AllIn]] = {
        "fold": Fold, "check": Check, "call": Call, "all_in": AllIn}
    return kinds[action](seat_index=seat)


def random_table(rng: random.Random) -> TableState:
    n = rng.randint(2, 10)
    big = rng.choice([2, 10, 100])
    mode = rng.choice(list(AnteMode))
    config = TableConfig(variant=rng.choice([Variant.NLHE, Variant.PLO]), seat_count=n,
                         small_blind=rng.choice([big // 2, big]), big_blind=big,
                         ante=0 if mode is AnteMode.NONE else rng.randint(1, big),
                         ante_mode=mode)
    state = TableState.new(config)
    for seat in range(n):
        if rng.random() < 0.85 or seat < 2:
            stack = rng.choice([rng.randint(1, 3 * big), rng.randint(big, 200 * big)])
            state, _ = apply(state, SitDown(seat_index=seat, player_id=f'p"{seat}', stack=stack))
    return state


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_round_trip_export_parse_replay(seed: int) -> None:
    """Random tables, several hands each (the dead-button rule moves the blinds), random
    legal play: every finished hand exported to PHH replays to the same finishing stacks."""
    rng = random.Random(seed)
    state = random_table(rng)
    exported = []
    for number in range(4):
        active = [i for i, s in enumerate(state.seats) if s and s.stack > 0]
        if len(active) < 2:
            break
        button = rng.choice(active) if number == 0 else None
        state, _ = apply(state, StartHand(deck=tuple(shuffled_deck(rng)), button=button))
        while state.hand is not None and not state.hand.complete:
            state, _ = apply(state, random_command(state, rng))
        hand = state.hand
        assert hand is not None
        scale = rng.choice([0, 2])
        history = phh.from_state(state, scale=scale)
        order = [int(s) - 1 for s in history.extra["seats"]]
        expected = [state.stack(seat) for seat in order]
        text = phh.dumps(history)
        parsed = phh.loads(text)
        assert parsed.finishing_stacks is not None
        assert parsed.finishing_stacks == history.finishing_stacks
        assert [parsed.chips(s, scale) for s in parsed.finishing_stacks] == expected
        if hand.small_blind_seat is None:
            # a dead small blind (R2.6) is written as PHH has it, [big, 0, ...], which only a
            # first hand can be replayed from: refused, not misplayed
            with pytest.raises(phh.UnsupportedHand):
                phh.replay(parsed)
            continue
        result = phh.replay(parsed)
        assert result.matches
        assert result.finishing_stacks == [Decimal(c).scaleb(-scale) for c in expected]
        exported.append(history)
    if exported:
        again = phh.loads_all(phh.dumps_all(exported))
        assert [h.actions for h in again] == [h.actions for h in exported]


def play_fixed_hand(config: TableConfig, stacks: list[int | None], button: int,
                    carousel: tuple[str, ...] = ()) -> TableState:
    state = TableState.new(config)
    for seat, stack in enumerate(stacks):
        if stack is not None:
            state, _ = apply(state, SitDown(seat_index=seat, player_id=f"s{seat}", stack=stack))
    state, _ = apply(state, StartHand(deck=tuple(range(52)), button=button, carousel=carousel))
    return state


def test_export_orders_players_from_the_small_blind_to_the_button() -> None:
    config = TableConfig(seat_count=6, small_blind=1, big_blind=2, ante=1,
                         ante_mode=AnteMode.BIG_BLIND)
    state = play_fixed_hand(config, [50, None, 60, 70, None, 80], button=3)
    # seat 5 small blind, seat 0 big blind, seat 2 under the gun, seat 3 the button
    for seat in (2, 3, 5):
        state, _ = apply(state, Fold(seat_index=seat))
    history = phh.from_state(state)
    assert history.players == ["s5", "s0", "s2", "s3"]
    assert history.extra["seats"] == [6, 1, 3, 4] and history.extra["seat_count"] == 6
    assert history.blinds_or_straddles == [1, 2, 0, 0]
    assert history.antes == [0, 1, 0, 0]
    assert history.starting_stacks == [80, 50, 60, 70]
    assert history.actions[:4] == ["d dh p1 2c2d", "d dh p2 2h2s", "d dh p3 3c3d",
                                   "d dh p4 3h3s"]
    assert history.actions[4:] == ["p3 f", "p4 f", "p1 f"]
    # the big blind: 50 - 2 - 1 + 1 back + the pot of 3
    assert history.finishing_stacks == [Decimal(s) for s in (79, 51, 60, 70)]


def test_export_heads_up_reverses_forced_bets() -> None:
    config = TableConfig(seat_count=2, small_blind=5, big_blind=10, ante=3,
                         ante_mode=AnteMode.BIG_BLIND)
    state = play_fixed_hand(config, [100, 200], button=0)
    state, _ = apply(state, Fold(seat_index=0))
    history = phh.from_state(state)
    assert history.players == ["s1", "s0"]            # p1 = big blind, p2 = button
    assert history.blinds_or_straddles == [5, 10] and history.antes == [0, 3]
    assert history.finishing_stacks == [Decimal(205), Decimal(95)]
    assert phh.replay(phh.loads(phh.dumps(history))).matches


def test_export_writes_the_showdown_and_scaled_amounts() -> None:
    config = TableConfig(seat_count=3, small_blind=25, big_blind=50)
    state = play_fixed_hand(config, [1000, 1000, 1000], button=2)
    for command in (RaiseTo(seat_index=2, amount=150), Call(seat_index=0), Fold(seat_index=1)):
        state, _ = apply(state, command)
    for _ in range(3):
        state, _ = apply(state, Check(seat_index=0))
        state, _ = apply(state, Check(seat_index=2))
    text = phh.to_phh(state, scale=2)
    assert 'blinds_or_straddles = [0.25, 0.50, 0]' in text
    assert '"p3 cbr 1.50"' in text
    assert re.search(r'"p1 sm \w{4}", "p3 sm \w{4}"\]', text)
    hand = phh.loads(text)
    assert phh.replay(hand).matches


def test_export_needs_a_finished_hand() -> None:
    state = play_fixed_hand(TableConfig(seat_count=2), [10, 10], button=0)
    with pytest.raises(phh.PHHError) as error:
        phh.to_phh(state)
    assert error.value.code == "hand_not_complete"
    naiko = play_fixed_hand(TableConfig(variant=Variant.NAIKO, seat_count=2), [10, 10], 0,
                            carousel=("peek", "sleeve_swap", "short_anchor"))
    naiko, _ = apply(naiko, Fold(seat_index=0))
    history = phh.from_state(naiko)  # Naiko: NT with the extension (test_phh_naiko.py)
    assert history.variant == "NT" and history.user_fields["_naiko_powers"] == []


def test_dumps_escapes_strings_and_keeps_extra_fields() -> None:
    hand = phh.loads(hand_text(["p3 f", "p1 f"], extra='event = "x"\n'))
    hand.players = ['quote " back \\ tab \t', "é", "new\nline"]
    hand.extra["tags"] = {"a b": [1, Decimal("2.50")]}
    again = phh.loads(phh.dumps(hand))
    assert again.players == hand.players
    assert again.extra == {"event": "x", "tags": {"a b": [1, Decimal("2.50")]}}


# -- the command line ------------------------------------------------------------------------

def test_cli_over_the_data_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert phh.main([str(DATA)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"{len(DATA_HANDS)} passed, 0 failed"
    assert any("cash-cents.phhs [3]: [19.75, 32.08, 52.67, 15.40] ok" in line for line in lines)


def test_cli_reports_failures_and_skips(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.phh").write_text(hand_text(["p3 f", "p1 f"], blinds="[1, 2, 4]"))
    (tmp_path / "b.phh").write_text(hand_text(["p3 f", "p1 f"],
                                              extra="finishing_stacks = [1, 2, 3]\n"))
    (tmp_path / "c.phh").write_text("not toml [")
    (tmp_path / "d.phhs").write_text(f"[1]\n{hand_text(['p3 f', 'p1 f'])}\n"
                                     f"[2]\n{hand_text(['p1 f'])}")
    (tmp_path / "notes.txt").write_text("ignored")
    assert phh.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 passed, 4 failed"
    assert any(line.endswith("ERROR: blinds_or_straddles [1, 2, 4]: straddles (a third forced "
                             "bet) are not played by the engine") for line in out)
    assert any("b.phh: [99, 101, 100] MISMATCH (expected [1, 2, 3])" in line for line in out)
    assert any("c.phh: ERROR: not valid TOML" in line for line in out)
    assert any("d.phhs [2]: ERROR: action 0 'p1 f': p3 is to act, not p1" in line
               for line in out)

    assert phh.main([str(tmp_path), "--skip-unsupported", "-q", "--reasons"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 passed, 3 failed, 1 skipped"
    assert any("SKIPPED: blinds_or_straddles" in line for line in out)
    assert not any(line.endswith(" ok") for line in out)
    assert any(re.fullmatch(r"\s+1\s+skipped: straddle", line) for line in out)

    assert phh.main([str(tmp_path / "a.phh"), "--skip-unsupported"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "0 passed, 0 failed, 1 skipped"


def test_cli_counts_a_missing_path_as_failed(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert phh.main([str(tmp_path / "nope.phh")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "cannot read" in out[0] and out[-1] == "0 passed, 1 failed"
