"""Tests of :mod:`naiko.evaluator`: rules R1.2 (Hold'em), R1.3 (Omaha), R1.5 (ranking).

Independent oracles: treys and eval7 (Hold'em), pokerkit and a brute force over the 60
two-plus-three combinations with treys (Omaha), and the table builder's own slow categoriser.
"""

from __future__ import annotations

import importlib.util
import random
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, starmap
from pathlib import Path
from types import ModuleType

import eval7  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naiko import evaluator as ev
from naiko.cards import RANK_NAMES, RANK_PLURALS, format_card, format_cards, parse_cards
from naiko.evaluator import (
    MAX_STRENGTH,
    Category,
    HandValue,
    best_hand,
    category_of,
    describe,
    evaluate,
    evaluate5,
    evaluate6,
    evaluate7,
    evaluate_many,
    evaluate_omaha,
)
from pokerkit import OmahaHoldemHand
from treys import Card as TreysCard  # type: ignore[import-untyped]
from treys import Evaluator as TreysEvaluator

ROOT = Path(__file__).resolve().parents[2]


def _load_builder() -> ModuleType:
    path = ROOT / "scripts" / "build_eval_tables.py"
    spec = importlib.util.spec_from_file_location("build_eval_tables", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_eval_tables", module)
    spec.loader.exec_module(module)
    return module


builder = _load_builder()


def s(text: str) -> int:
    """Strength of a Hold'em hand written as text."""
    return evaluate(parse_cards(text))


def cat(text: str) -> Category:
    return category_of(s(text))


def desc(text: str) -> str:
    return describe(s(text))


def omaha(hole: str, board: str) -> int:
    return evaluate_omaha(parse_cards(hole), parse_cards(board))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


# --- exhaustive ---------------------------------------------------------------------------------

def test_r1_5_all_five_card_hands_give_7462_values_with_the_known_category_counts() -> None:
    counts = Counter(starmap(evaluate5, combinations(range(52), 5)))
    assert sum(counts.values()) == 2_598_960
    assert sorted(counts) == list(range(1, MAX_STRENGTH + 1))  # dense 1..7462
    by_category: Counter[Category] = Counter()
    for strength, n in counts.items():
        by_category[category_of(strength)] += n
    assert by_category == {
        Category.STRAIGHT_FLUSH: 40,
        Category.FOUR_OF_A_KIND: 624,
        Category.FULL_HOUSE: 3_744,
        Category.FLUSH: 5_108,
        Category.STRAIGHT: 10_200,
        Category.THREE_OF_A_KIND: 54_912,
        Category.TWO_PAIR: 123_552,
        Category.ONE_PAIR: 1_098_240,
        Category.HIGH_CARD: 1_302_540,
    }


def test_r1_5_strengths_follow_the_builders_independent_ordering() -> None:
    """Strength i is the i-th weakest class of the slow categoriser, for all 7,462."""
    classes = builder.hand_classes()
    for rank_tuple in builder.rank_multisets(5):
        # a representative: ranks with suits assigned round-robin, never all the same suit
        cards = [r * 4 + i % 4 for i, r in enumerate(rank_tuple)]
        assert classes[evaluate(cards) - 1] == builder.classify5(rank_tuple, False)
    for rank_tuple in combinations(range(13), 5):
        cards = [r * 4 + 2 for r in rank_tuple]  # all hearts
        assert classes[evaluate(cards) - 1] == builder.classify5(rank_tuple, True)


def test_category_of_boundaries_and_range() -> None:
    tops = [1277, 4137, 4995, 5853, 5863, 7140, 7296, 7452, 7462]
    bottom = 1
    for category, top in zip(Category, tops, strict=True):
        assert category_of(bottom) is category_of(top) is category
        bottom = top + 1
    for bad in (0, -1, MAX_STRENGTH + 1):
        with pytest.raises(ValueError):
            category_of(bad)


# --- R1.5 ranking, hand-worked ------------------------------------------------------------------

def test_r1_5_category_order_high_to_low() -> None:
    hands = [
        "9h8h7h6h5h",  # straight flush
        "QcQdQhQs2c",  # four of a kind
        "KcKdKh4s4c",  # full house
        "Ah9h7h4h2h",  # flush
        "9c8d7h6s5c",  # straight
        "7c7d7h2s3d",  # three of a kind
        "KsKd4c4h2s",  # two pair
        "AcAd9h7s3c",  # one pair
        "AhKs9c5d3h",  # high card
    ]
    strengths = [s(h) for h in hands]
    assert strengths == sorted(strengths, reverse=True)
    assert [category_of(x) for x in strengths] == list(reversed(Category))


def test_r1_5_royal_flush_is_the_ace_high_straight_flush_and_the_best_hand() -> None:
    assert s("AsKsQsJsTs") == MAX_STRENGTH
    assert desc("AsKsQsJsTs") == "royal flush"
    assert desc("KsQsJsTs9s") == "straight flush, King high"
    assert s("AhKhQhJhTh") == s("AsKsQsJsTs")  # suits have no rank


def test_r1_5_wheel_is_lowest_straight() -> None:
    wheel = s("Ah2d3c4s5h")
    assert cat("Ah2d3c4s5h") is Category.STRAIGHT
    assert desc("Ah2d3c4s5h") == "straight, Five high"
    assert wheel < s("2d3c4s5h6c") < s("AhKdQcJsTh")
    assert wheel > s("AcAdAh Ks Qd")  # but it beats the best three of a kind
    assert wheel == s("As2c3d4h5s")
    others = [evaluate([r * 4 + r % 2 for r in range(top - 4, top + 1)]) for top in range(4, 13)]
    assert all(category_of(x) is Category.STRAIGHT for x in others)
    assert wheel < min(others) and wheel + 9 == max(others)


def test_r1_5_steel_wheel_is_the_lowest_straight_flush() -> None:
    steel = s("Ah2h3h4h5h")
    assert cat("Ah2h3h4h5h") is Category.STRAIGHT_FLUSH
    assert steel < s("2h3h4h5h6h")
    assert steel > s("AcAdAhAsKc")
    assert desc("Ah2h3h4h5h") == "straight flush, Five high"


def test_r1_5_ace_is_high_in_broadway() -> None:
    assert desc("AhKdQcJsTh") == "straight, Ace high"
    assert s("AhKdQcJsTh") > s("KdQcJsTh9h")


def test_r1_5_no_wrap_around_straights() -> None:
    for hand in ("QhKdAc2s3h", "KhAd2c3s4h", "JhQdKcAs2h"):
        assert cat(hand) is Category.HIGH_CARD, hand
    assert cat("QhKhAh2h3h") is Category.FLUSH  # a flush, not a straight flush
    assert desc("Qh Kd Ac 2s 3h 8d 9c") == "high card, Ace"


def test_r1_5_kickers_decide_within_a_category() -> None:
    assert s("AcAd Kh 7s 3c") > s("AhAs Qh Js Tc")  # pair of aces, K kicker beats Q
    assert s("AcAd Kh 7s 3c") > s("AhAs Kd 6s 5c")  # third kicker
    assert s("AcAd Kh 7s 4c") > s("AhAs Kd 7c 3c")  # fourth kicker
    assert s("KcKd 4h4s Ac") > s("KhKs 4c4d Qs")  # two pair kicker
    assert s("KcKd 5h5s 2c") > s("KhKs 4c4d As")  # second pair before kicker
    assert s("7c7d7h As 2c") > s("7c7d7h Ks Qc")  # trips kickers
    assert s("QcQdQhQs 3c") > s("QcQdQhQs 2c")  # quads kicker
    assert s("Ah Jh 9h 4h 3h") > s("Ad Jd 9d 4d 2d")  # flush: fifth card decides
    assert s("Ah Kd 9c 5s 3h") > s("Ac Kc 9d 5h 2h")  # high card: fifth card decides


def test_r1_5_full_house_compares_trips_first_then_pair() -> None:
    assert s("3c3d3h 2s2c") > s("2c2d2h AsAc")
    assert s("KcKdKh 4s4c") > s("KcKdKh 3s3c")
    assert desc("KcKdKh4s4c") == "full house, Kings full of Fours"


def test_r1_5_suits_never_break_ties_equal_values_split() -> None:
    assert s("AcKd 9h 7s 3c") == s("AsKh 9d 7c 3h")
    assert s("AhKh9h7h3h") == s("AsKs9s7s3s")
    # identical best five from different seven-card holdings: a split
    board = "2c 7d 9h Js Ks"
    assert s(f"Ac Qd {board}") == s(f"Ad Qc {board}")


def test_r1_5_descriptions() -> None:
    cases = {
        "KsKd4c4h2s": "two pair, Kings and Fours",
        "KcKdKh4s4c": "full house, Kings full of Fours",
        "7c7d7h2s3d": "three of a kind, Sevens",
        "AcAd9h7s3c": "one pair, Aces",
        "AhKs9c5d3h": "high card, Ace",
        "9c8d7h6s5c": "straight, Nine high",
        "Ah2d3c4s5h": "straight, Five high",
        "Ah9h7h4h2h": "flush, Ace high",
        "QcQdQhQs2c": "four of a kind, Queens",
        "9h8h7h6h5h": "straight flush, Nine high",
        "AsKsQsJsTs": "royal flush",
        "7c5d4h3s2c": "high card, Seven",
        "7h5h4h3h2h": "flush, Seven high",
        "3c3d2h2s4c": "two pair, Threes and Twos",
        "2c2d2h3s3c": "full house, Twos full of Threes",
    }
    for hand, text in cases.items():
        assert desc(hand) == text, hand


def _independent_description(category: int, ranks: tuple[int, ...]) -> str:
    names, plurals = RANK_NAMES, RANK_PLURALS
    return [
        lambda: f"high card, {names[ranks[0]]}",
        lambda: f"one pair, {plurals[ranks[0]]}",
        lambda: f"two pair, {plurals[ranks[0]]} and {plurals[ranks[1]]}",
        lambda: f"three of a kind, {plurals[ranks[0]]}",
        lambda: f"straight, {names[ranks[0]]} high",
        lambda: f"flush, {names[ranks[0]]} high",
        lambda: f"full house, {plurals[ranks[0]]} full of {plurals[ranks[1]]}",
        lambda: f"four of a kind, {plurals[ranks[0]]}",
        lambda: ("royal flush" if ranks[0] == 12
                 else f"straight flush, {names[ranks[0]]} high"),
    ][category]()


def test_r1_5_describe_every_strength() -> None:
    for strength, (category, ranks) in enumerate(builder.hand_classes(), start=1):
        assert category_of(strength) == category
        assert describe(strength) == _independent_description(category, ranks)


# --- R1.2 Hold'em -------------------------------------------------------------------------------

def test_r1_2_best_five_of_five_six_or_seven_cards() -> None:
    assert s("AhKhQhJhTh") == s("AhKhQhJhTh 2c") == s("AhKhQhJhTh 2c 3d")
    assert s("Ah Kh 2c 3d Qh Jh Th") == MAX_STRENGTH
    assert evaluate(tuple(parse_cards("9c9d9h4s4c"))) == evaluate5(*parse_cards("9c9d9h4s4c"))
    assert evaluate(parse_cards("9c9d9h4s4c2d")) == evaluate6(*parse_cards("9c9d9h4s4c2d"))
    assert evaluate(parse_cards("9c9d9h4s4c2dKs")) == evaluate7(*parse_cards("9c9d9h4s4c2dKs"))
    for bad in ("AhKhQhJh", "AhKhQhJhTh2c3d4s"):
        with pytest.raises(ValueError):
            evaluate(parse_cards(bad))


def test_r1_2_zero_one_or_two_hole_cards_may_play() -> None:
    board = parse_cards("Ts Js Qs Ks 2d")
    # two hole cards: As 3c -> royal flush uses one hole card
    assert best_hand(parse_cards("As 3c"), board).description == "royal flush"
    # both hole cards
    hv = best_hand(parse_cards("2c 2h"), board)
    assert hv.description == "three of a kind, Twos"
    assert set(parse_cards("2c 2h")) <= set(hv.cards)
    # zero hole cards: the board plays (a flush) and hands split
    a = best_hand(parse_cards("3c 4h"), parse_cards("2s 7s 9s Js Ks"))
    b = best_hand(parse_cards("5d 6c"), parse_cards("2s 7s 9s Js Ks"))
    assert a.strength == b.strength and a.description == "flush, King high"
    assert sorted(a.cards) == sorted(parse_cards("2s 7s 9s Js Ks"))


def test_r1_2_seven_card_flush_with_six_of_a_suit_uses_the_best_five() -> None:
    assert desc("2h 4h 6h 8h Th Qh 3c") == "flush, Queen high"
    assert s("2h 4h 6h 8h Th Qh 3c") == s("4h 6h 8h Th Qh")
    assert desc("2h 3h 4h 5h 6h 7h 8h") == "straight flush, Eight high"
    assert s("Ah 2h 3h 4h 5h 6c 7c") < s("Ah 2h 3h 4h 5h 6h 7c")


def test_r1_2_straight_inside_seven_cards_and_flush_beats_straight() -> None:
    assert desc("Ac 2d 3h 4s 5c 6d Kd") == "straight, Six high"
    assert desc("9h 8h 7d 6c 5h 2h Kh") == "flush, King high"


def test_r1_2_two_trips_make_a_full_house_and_quads_beat_it() -> None:
    assert desc("Kc Kd Kh 4s 4c 4d 2s") == "full house, Kings full of Fours"
    assert desc("4c 4d 4h 4s Kc Kd Kh") == "four of a kind, Fours"
    assert desc("Ac Ad 7h 7s 3c 3d 2h") == "two pair, Aces and Sevens"


def _treys_category(rank_class: int) -> Category:
    """treys numbers its classes 0 (royal flush), 1 (straight flush) .. 9 (high card)."""
    return Category.STRAIGHT_FLUSH if rank_class <= 1 else Category(9 - rank_class)


def _treys_cards(cards: Sequence[int]) -> list[int]:
    return [TreysCard.new(format_card(c)) for c in cards]


def test_r1_2_random_seven_card_hands_agree_with_treys_and_eval7() -> None:
    rng = random.Random(20240521)
    treys = TreysEvaluator()
    deck = list(range(52))
    previous: tuple[int, int, int] | None = None
    for _ in range(20_000):
        cards = rng.sample(deck, 7)
        ours = evaluate(cards)
        t_cards = _treys_cards(cards)
        theirs = treys.evaluate(t_cards[:2], t_cards[2:])  # lower is better
        e7 = eval7.evaluate([eval7.Card(format_card(c)) for c in cards])  # higher is better
        rank_class = treys.get_rank_class(theirs)
        assert category_of(ours) == _treys_category(rank_class), format_cards(cards)
        if previous is not None:
            p_ours, p_theirs, p_e7 = previous
            assert sign(ours - p_ours) == sign(p_theirs - theirs) == sign(e7 - p_e7)
        previous = (ours, theirs, e7)


def test_r1_2_random_five_and_six_card_hands_agree_with_treys() -> None:
    rng = random.Random(11)
    treys = TreysEvaluator()
    for n in (5, 6):
        previous: tuple[int, int] | None = None
        for _ in range(5_000):
            cards = rng.sample(range(52), n)
            ours = evaluate(cards)
            t_cards = _treys_cards(cards)
            theirs = treys.evaluate(t_cards[:2], t_cards[2:])
            assert category_of(ours) == _treys_category(treys.get_rank_class(theirs))
            if previous is not None:
                assert sign(ours - previous[0]) == sign(previous[1] - theirs)
            previous = (ours, theirs)


# --- evaluate_many (equity path) ----------------------------------------------------------------

def _all_holes(board: Sequence[int], rng: random.Random) -> list[tuple[int, int]]:
    rest = [c for c in range(52) if c not in board]
    holes = [(x, y) if rng.random() < 0.5 else (y, x) for x, y in combinations(rest, 2)]
    rng.shuffle(holes)
    return holes


@pytest.mark.parametrize("board_text", [
    "Ah Kd 7c 7s 2h",  # no flush possible
    "Ah Kh 7h 7s 2c",  # three hearts
    "Ah Kh 7h 4h 2c",  # four hearts
    "Ah Kh 7h 4h 2h",  # five hearts: the board's flush plays unless improved
    "9h Th Jh Qh Kh",  # board straight flush
    "5s 4s 3s 2s 9d",  # four to a steel wheel
    "Qc Qd Qh Qs 2c",  # quads on board
    "Ah Kh 7h",  # flop, three hearts
    "Ah Kd 7c",  # flop
    "Ah Kh 7h 4h",  # turn, four hearts
    "Ah Kh 7d 4c",  # turn
])
def test_evaluate_many_agrees_with_evaluate(board_text: str) -> None:
    rng = random.Random(board_text)
    board = parse_cards(board_text)
    holes = _all_holes(board, rng)
    expected = [evaluate([*board, *hole]) for hole in holes]
    assert evaluate_many(board, holes) == expected  # table path
    assert evaluate_many(board, holes[:7]) == expected[:7]  # one-by-one path
    assert evaluate_many(tuple(board), [list(h) for h in holes[:100]]) == expected[:100]
    assert evaluate_many(board, []) == []


def test_evaluate_many_on_random_boards() -> None:
    rng = random.Random(3)
    for _ in range(60):
        board = rng.sample(range(52), rng.choice((3, 4, 5)))
        holes = _all_holes(board, rng)[:rng.choice((5, 60, 1000))]
        assert evaluate_many(board, holes) == [evaluate([*board, *h]) for h in holes]


def test_evaluate_many_rejects_bad_boards() -> None:
    with pytest.raises(ValueError):
        evaluate_many(parse_cards("Ah Kd"), [parse_cards("2c 3c")])


# --- R1.3 Omaha ---------------------------------------------------------------------------------

def test_r1_3_four_suited_hole_cards_alone_make_no_flush() -> None:
    assert category_of(omaha("Ah Kh Qh Jh", "2h 7c 8d 9s 3c")) is Category.HIGH_CARD
    assert category_of(omaha("Ah Kh Qh Jh", "2h 3h 8d 9s 4c")) is Category.HIGH_CARD


def test_r1_3_board_with_four_hearts_and_one_heart_in_hand_is_not_a_flush() -> None:
    hole, board = "Ah 3c 8d 9s", "Kh Qh 7h 2h 4c"
    assert category_of(omaha(hole, board)) is not Category.FLUSH
    assert category_of(s(f"{hole[:2]} {board}")) is Category.FLUSH  # it would be in Hold'em
    assert category_of(omaha("Ah 3h 8d 9s", board)) is Category.FLUSH  # two hearts do it
    assert describe(omaha("Ah 3h 8d 9s", board)) == "flush, Ace high"


def test_r1_3_board_flush_does_not_play_in_omaha() -> None:
    hole, board = "As Ks 2c 3d", "4h 7h 9h Jh Qh"
    assert category_of(omaha(hole, board)) is Category.HIGH_CARD
    assert describe(omaha(hole, board)) == "high card, Ace"


def test_r1_3_trips_on_board_and_pairs_in_hand() -> None:
    board = "Ac Ad Ah 7s 9h"  # AAA on the board: it plays with any two hole cards
    assert describe(omaha("2c 3d 4h 5s", board)) == "three of a kind, Aces"
    assert describe(omaha("Kc Kd 2c 3d", board)) == "full house, Aces full of Kings"
    assert describe(omaha("As 5c 6d 2c", board)) == "four of a kind, Aces"
    # AA in the hand with AA on the board: quads (two from the hand, two from the board).
    assert describe(omaha("Ac Ad 7c 8d", "Ah As Kc 2d 3h")) == "four of a kind, Aces"
    # AA in the hand, A K K on the board: aces full of kings.
    assert describe(omaha("Ac Ad 3c 4d", "Ah Ks Kd 7c 8s")) == "full house, Aces full of Kings"
    # AA in the hand and 7 7 on the board: aces full would need three aces -- two pair.
    assert describe(omaha("Ac Ad 3c 4d", "Ks 7d 7c 8s 2h")) == "two pair, Aces and Sevens"


def test_r1_3_must_use_exactly_two_hole_cards() -> None:
    # Hold'em would play the board straight; Omaha must use two hole cards.
    board = "5c 6d 7h 8s 9c"
    assert describe(omaha("Ac Ad Kh Ks", board)) == "one pair, Aces"
    # Trips in hand are only a pair.
    assert describe(omaha("Kc Kd Kh 2s", "3c 8d 9h Ts 4c")) == "one pair, Kings"
    # Four to a straight in the hand: only two of them play.
    assert cat("9c Td Jh Qs Kc") is Category.STRAIGHT  # four hole cards + one board card
    assert describe(omaha("9c Td Jh Qs", "Kc 2d 3h 4s 7c")) == "high card, King"
    assert describe(omaha("9c Td Jh Qs", "8d 7h 6s 2c Kc")) == "straight, Ten high"


def test_r1_3_board_of_three_or_four_cards() -> None:
    assert describe(omaha("Ah Kh 2c 3d", "Qh Jh Th")) == "royal flush"
    assert describe(omaha("Ah Kh 2c 3d", "Qh Jh Th 9c")) == "royal flush"
    assert describe(omaha("Ah Kc 2c 3d", "Qh Jh Th 9c")) == "straight, Ace high"
    assert describe(omaha("Ah Kc 2c 3d", "Qh Jh Th")) == "straight, Ace high"
    for bad in ("Qh Jh", "Qh Jh Th 9c 8c 7c"):
        with pytest.raises(ValueError):
            omaha("Ah Kc 2c 3d", bad)


def _pokerkit_hand(hole: Sequence[int], board: Sequence[int]) -> OmahaHoldemHand:
    hand = OmahaHoldemHand.from_game(format_cards(list(hole)), format_cards(list(board)))
    assert isinstance(hand, OmahaHoldemHand)
    return hand


def test_r1_3_random_omaha_hands_agree_with_pokerkit() -> None:
    rng = random.Random(1303)
    previous: tuple[int, OmahaHoldemHand] | None = None
    for i in range(600):
        board_size = (5, 5, 4, 3)[i % 4]
        cards = rng.sample(range(52), 4 + board_size)
        hole, board = cards[:4], cards[4:]
        ours = evaluate_omaha(hole, board)
        theirs = _pokerkit_hand(hole, board)
        assert category_of(ours).name == theirs.entry.label.name
        assert ours == theirs.entry.index + 1  # pokerkit 0.7.7 numbers the classes alike
        if previous is not None:
            p_ours, p_theirs = previous
            assert sign(ours - p_ours) == (theirs > p_theirs) - (theirs < p_theirs)
        previous = (ours, theirs)


def test_r1_3_random_omaha_hands_agree_with_a_treys_brute_force() -> None:
    rng = random.Random(60)
    treys = TreysEvaluator()
    for i in range(4_000):
        cards = rng.sample(range(52), 4 + (5, 4, 3)[i % 3])
        hole, board = cards[:4], cards[4:]
        t_hole, t_board = _treys_cards(hole), _treys_cards(board)
        best = min(treys.evaluate(list(h), list(b))
                   for h in combinations(t_hole, 2) for b in combinations(t_board, 3))
        ours = evaluate_omaha(hole, board)
        assert ours == MAX_STRENGTH + 1 - best  # treys numbers the same 7,462 classes
        assert best_hand(hole, board, omaha=True).strength == ours


def test_r1_3_flush_heavy_random_omaha_hands() -> None:
    """Deal from a deck rich in hearts so that Omaha flush rules are exercised often."""
    rng = random.Random(99)
    treys = TreysEvaluator()
    hearts = [c for c in range(52) if c & 3 == 2]
    others = [c for c in range(52) if c & 3 != 2]
    for _ in range(2_000):
        cards = rng.sample(hearts, rng.randint(4, 8))
        cards += rng.sample(others, 9 - len(cards))
        rng.shuffle(cards)
        hole, board = cards[:4], cards[4:]
        brute = max(evaluate5(*h, *b) for h in combinations(hole, 2)
                    for b in combinations(board, 3))
        assert evaluate_omaha(hole, board) == brute
        t = treys.evaluate(_treys_cards(hole[:2]), _treys_cards(board[:3]))
        assert evaluate5(*hole[:2], *board[:3]) == MAX_STRENGTH + 1 - t


# --- best_hand (showdown path) ------------------------------------------------------------------

def test_best_hand_cards_are_human_ordered() -> None:
    def shown(hole: str, board: str, omaha: bool = False) -> tuple[str, str]:
        hv = best_hand(parse_cards(hole), parse_cards(board), omaha)
        return hv.description, format_cards(hv.cards, " ")

    assert shown("Ah 2d", "3c 4s 5h Kd Kh") == ("straight, Five high", "5h 4s 3c 2d Ah")
    assert shown("Kc 4d", "Kh 4s 9c 2d 7h") == ("two pair, Kings and Fours", "Kh Kc 4s 4d 9c")
    assert shown("Kc 4d", "Kh 4s Kd 2d 7h") == (
        "full house, Kings full of Fours", "Kh Kd Kc 4s 4d")
    assert shown("7c 2d", "7h 7s 9c Jd Ah") == ("three of a kind, Sevens", "7s 7h 7c Ah Jd")
    assert shown("Qc Qd", "Qh Qs 9c Jd 2h") == ("four of a kind, Queens", "Qs Qh Qd Qc Jd")
    assert shown("Ac 3d", "Ah 9s 8c 6d 4h") == ("one pair, Aces", "Ah Ac 9s 8c 6d")
    assert shown("9h 2h", "Jh 5h 3h Kc Ad") == ("flush, Jack high", "Jh 9h 5h 3h 2h")
    assert shown("Th 9h", "8h 7h 6h 5h 2c") == ("straight flush, Ten high", "Th 9h 8h 7h 6h")


def test_best_hand_returns_a_frozen_hand_value() -> None:
    hv = best_hand(parse_cards("As Ks"), parse_cards("Qs Js Ts"))
    assert hv == HandValue(MAX_STRENGTH, Category.STRAIGHT_FLUSH,
                           tuple(parse_cards("As Ks Qs Js Ts")), "royal flush")
    with pytest.raises(AttributeError):
        hv.strength = 1  # type: ignore[misc]


def test_best_hand_validates_its_input() -> None:
    with pytest.raises(ValueError):
        best_hand(parse_cards("As Ks"), parse_cards("As Js Ts 2c 3c"))  # duplicate
    with pytest.raises(ValueError):
        best_hand([52, 1], parse_cards("Qs Js Ts"))  # not a card
    with pytest.raises(ValueError):
        best_hand(parse_cards("As Ks"), parse_cards("Qs Js"))  # four cards
    with pytest.raises(ValueError):
        best_hand(parse_cards("As Ks 2c 3c"), parse_cards("Qs Js Ts 4d"))  # eight cards
    with pytest.raises(ValueError):
        best_hand(parse_cards("As Ks 2c"), parse_cards("Qs Js Ts"), omaha=True)
    with pytest.raises(ValueError):
        best_hand(parse_cards("As Ks 2c 3c"), parse_cards("Qs Js"), omaha=True)


def test_best_hand_agrees_with_the_fast_paths_on_random_deals() -> None:
    rng = random.Random(77)
    for i in range(3_000):
        omaha_deal = i % 2 == 1
        cards = rng.sample(range(52), 9 if omaha_deal else rng.choice((5, 6, 7)))
        hole, board = (cards[:4], cards[4:]) if omaha_deal else (cards[:2], cards[2:])
        hv = best_hand(hole, board, omaha=omaha_deal)
        fast = evaluate_omaha(hole, board) if omaha_deal else evaluate(cards)
        assert hv.strength == fast
        assert hv.category is category_of(fast)
        assert hv.description == describe(fast)
        assert len(hv.cards) == 5 and set(hv.cards) <= set(cards)
        assert evaluate(list(hv.cards)) == fast
        if omaha_deal:
            assert len(set(hv.cards) & set(hole)) == 2


# --- table file ---------------------------------------------------------------------------------

def test_shipped_table_file_matches_the_builder() -> None:
    shipped = Path(ev.__file__).parent / "data" / "eval_tables.bin"
    assert shipped == builder.DATA_FILE
    data = shipped.read_bytes()
    assert len(data) < 400_000
    # Compare the inflated sections: another zlib build may compress byte-for-byte differently.
    constants, sections = builder.parse_file(data)
    assert constants == (*ev._RANK_KEYS, *ev._SUIT_KEYS, ev._RANK_BIAS)
    assert sections == builder.build_sections()
    assert builder.parse_file(builder.build_file_bytes()) == (constants, sections)


def test_tables_load_lazily_and_safely_from_several_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each table is inflated on first use; concurrent first uses all get right answers."""
    rng = random.Random(8)
    deals = [rng.sample(range(52), 9) for _ in range(300)]
    expected = [(evaluate(d[:7]), evaluate(d[:6]), evaluate(d[:5]),
                 evaluate_omaha(d[:4], d[4:]), evaluate_omaha(d[:4], d[4:8])) for d in deals]
    empty: dict[int, dict[int, int]] = {5: {}, 6: {}, 7: {}}
    monkeypatch.setattr(ev, "_RANK_TABLES", empty)
    for size in (5, 6, 7):
        monkeypatch.setattr(ev, f"_RANK{size}", empty[size])
    monkeypatch.setattr(ev, "_OMAHA3", [])
    monkeypatch.setattr(ev, "_OMAHA4", [])
    results: list[list[tuple[int, ...]]] = []

    def work() -> None:
        results.append([(evaluate(d[:7]), evaluate(d[:6]), evaluate(d[:5]),
                         evaluate_omaha(d[:4], d[4:]), evaluate_omaha(d[:4], d[4:8]))
                        for d in deals])

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 6
    assert all(ev._RANK_TABLES[size] for size in (5, 6, 7)) and ev._OMAHA4


# --- properties ---------------------------------------------------------------------------------

seven_cards = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)


@settings(max_examples=300, deadline=None)
@given(cards=seven_cards, data=st.data())
def test_r1_2_property_best_of_21_and_invariant_under_permutations(
        cards: list[int], data: st.DataObject) -> None:
    strength = evaluate(cards)
    assert strength == max(evaluate(list(five)) for five in combinations(cards, 5))
    assert evaluate(data.draw(st.permutations(cards))) == strength
    suits = data.draw(st.permutations(range(4)))
    assert evaluate([c & ~3 | suits[c & 3] for c in cards]) == strength


@settings(max_examples=200, deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=9, max_size=9, unique=True),
       data=st.data())
def test_r1_3_property_omaha_is_best_of_60_and_invariant(
        cards: list[int], data: st.DataObject) -> None:
    hole, board = cards[:4], cards[4:]
    strength = evaluate_omaha(hole, board)
    assert strength == max(evaluate5(*h, *b) for h in combinations(hole, 2)
                           for b in combinations(board, 3))
    assert evaluate_omaha(data.draw(st.permutations(hole)),
                          data.draw(st.permutations(board))) == strength
    suits = data.draw(st.permutations(range(4)))

    def recolour(cs: list[int]) -> list[int]:
        return [c & ~3 | suits[c & 3] for c in cs]

    assert evaluate_omaha(recolour(hole), recolour(board)) == strength
