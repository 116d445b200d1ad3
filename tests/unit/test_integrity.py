"""R10.3: the integrity review over stored hands (naiko_service.integrity).

Scripted hands with chosen cards check each signal (a strong fold, chips put in with
nothing, a cooler that is not a giveaway, heads-up rounds), then the review's flags over
many such hands: a dumping pair, a soft-playing pair, a ring, and innocent look-alikes that
stay unflagged. A small planted population checks the simulation itself.
"""

from __future__ import annotations

import importlib.util
import json
import math
import random
from pathlib import Path

import pytest
from integrity_testing import (
    cooler,
    heads_up_population,
    normal,
    scripted,
    strong_fold,
    weak_call,
)
from naiko_service.hand_records import HandRecord
from naiko_service.integrity import analysis
from naiko_service.integrity.analysis import (
    EVIDENCE_HANDS,
    STRENGTH_BINS,
    Decision,
    Giveaway,
    HandFacts,
    HeadsUpRound,
    Review,
    Thresholds,
    binomial_low_tail,
    hand_facts,
    poisson_binomial_low_tail,
    saddlepoint_tail,
    weighted_tail,
)
from naiko_service.integrity.population import STAKES, Plan, simulate
from naiko_service.integrity.sources import from_jsonl

# -- one hand's facts ----------------------------------------------------------------------

def test_r10_3_folding_aces_to_a_raise_with_seven_deuce_is_a_giveaway():
    facts = hand_facts(strong_fold())
    assert facts is not None
    [given] = facts.giveaways
    assert (given.giver, given.taker, given.reason) == ("A", "B", "folded_ahead")
    # forfeited: equity (~0.87) x (pot 14 + call 10) - call 10, in big blinds
    assert 4.0 < given.chips < 6.0
    assert facts.flow == {("A", "B"): 1.0}
    [decision] = [d for d in facts.decisions if d.actor == "A" and d.telling]
    # facing B's bet, ahead of B's hand, preflop, a strong hand: the fold is the tell
    context, preflop, strength = decision.stratum
    assert (context, preflop) == ("ahead_facing_bet", True)
    assert strength >= len(STRENGTH_BINS) - 1  # Aces: 0.85 against a random hand


def test_r10_3_calling_off_with_nothing_is_a_giveaway():
    facts = hand_facts(weak_call())
    assert facts is not None
    # the raise to 6 and the call of the all-in, both with 7-2 far behind Aces
    assert {(g.giver, g.taker, g.reason) for g in facts.giveaways} == {("A", "B", "put_in_behind")}
    assert max(g.chips for g in facts.giveaways) > 60
    assert facts.flow == {("A", "B"): 100.0}


def test_r10_3_a_cooler_is_a_loss_but_not_a_giveaway():
    facts = hand_facts(cooler())
    assert facts is not None
    assert facts.giveaways == []
    assert facts.flow == {("A", "B"): 100.0}
    # the call behind is a decision all the same, compared with other strong hands' calls
    context, preflop, strength = [d.stratum for d in facts.decisions if d.actor == "A"][-1]
    assert (context, preflop) == ("behind_facing_bet", True)
    assert strength >= len(STRENGTH_BINS) - 1  # Kings: 0.82 against a random hand


def test_r10_3_a_giveaway_counts_only_when_the_giver_lost_to_the_taker():
    # the same call off with 7-2 against Aces, but the board pairs both of its cards
    record = scripted({"A": "7c2d", "B": "AhAd"}, "7h2sKc9d4s",
                      [("A", "raise", 6), ("B", "raise", 200), ("A", "call", 0)])
    facts = hand_facts(record)
    assert facts is not None
    assert facts.flow == {("B", "A"): 100.0}
    assert facts.giveaways == []


def test_r10_3_heads_up_rounds_record_whether_anybody_bet():
    # (pair, aggressive, preflop): dealt in heads-up, preflop is a heads-up round too
    facts = hand_facts(normal("A", "B", aggressive=False))
    assert facts is not None
    assert [(r.pair, r.aggressive, r.preflop) for r in facts.rounds] == \
        [(("A", "B"), False, True)] + [(("A", "B"), False, False)] * 3
    facts = hand_facts(normal("A", "B", aggressive=True))
    assert facts is not None
    assert [(r.pair, r.aggressive, r.preflop) for r in facts.rounds] == \
        [(("A", "B"), False, True), (("A", "B"), True, False)]


def test_r10_3_soft_play_a_preflop_round_begins_when_the_others_fold():
    holes = {"A": "9c8c", "B": "QhJh", "C": "Ts4d"}  # A on the button, B small, C big blind
    board = "2s5d7hKcAs"
    # folded to the blinds: the small blind raises (aggressive) or completes and the big
    # blind checks (passive); checked down after
    checks = [("B", "check", 0), ("C", "check", 0)] * 3
    raised = hand_facts(scripted(holes, board, [("A", "fold", 0), ("B", "raise", 6),
                                                ("C", "call", 0), *checks]))
    limped = hand_facts(scripted(holes, board, [("A", "fold", 0), ("B", "call", 0),
                                                ("C", "check", 0), *checks]))
    assert raised is not None and limped is not None
    assert [(r.pair, r.aggressive, r.preflop) for r in raised.rounds][:1] == \
        [(("B", "C"), True, True)]
    assert [(r.pair, r.aggressive, r.preflop) for r in limped.rounds][:1] == \
        [(("B", "C"), False, True)]
    assert len(raised.rounds) == len(limped.rounds) == 4
    # the big blind's fold leaves two whose betting is closed: no choice, no round
    closed = hand_facts(scripted(holes, board, [("A", "raise", 6), ("B", "call", 0),
                                                ("C", "fold", 0),
                                                *[("B", "check", 0), ("A", "check", 0)] * 3]))
    assert closed is not None
    assert [r.preflop for r in closed.rounds] == [False] * 3


# -- the review's flags --------------------------------------------------------------------

def population_of(hands: list[HandRecord]) -> list[HandRecord]:
    """*hands* among ordinary play: everybody plays everybody, betting in a quarter of the
    heads-up rounds (one bet in one hand, three checked rounds in the next)."""
    others = ["C", "D", "E", "F"]
    filler = []
    for i, a in enumerate(["A", "B", *others]):
        for b in ["A", "B", *others][i + 1:]:
            filler += [normal(a, b), normal(b, a, aggressive=False)] * 3
    return filler + hands


@pytest.fixture(scope="module")
def dumping_review() -> Review:
    """200 heads-up hands among eight accounts: A dumps to B (knowing B's cards) in half
    their hands, L is dealt the better hand against U in half theirs (a lucky streak)."""
    return Review(Thresholds(min_shared_hands=20)).add_all(heads_up_population(1, 200))


def test_r10_3_a_player_who_keeps_giving_chips_to_one_account_is_flagged(dumping_review):
    flags = [f for f in dumping_review.flags() if f.kind == "dumping"]
    assert [f.accounts for f in flags] == [("A", "B")]
    flag = flags[0]
    assert flag.score >= Thresholds().dumping_score
    assert set(flag.details["reasons"]) == {"folded_ahead", "put_in_behind"}
    assert flag.details["given_bb"] >= Thresholds().dumping_min_bb
    assert flag.details["flow_bb"] > 0
    assert len(flag.hands) == min(EVIDENCE_HANDS, flag.details["giveaway_hands"])


def test_r10_3_the_dumping_score_has_a_direction(dumping_review):
    """B takes what A gives: B's choices against A (it bets when it would lose, so that A
    folds) are B's own pair, and B -> A must not be scored as dumping."""
    scores = dumping_review.dumping_scores()
    assert scores[("A", "B")] >= Thresholds().dumping_score
    assert scores[("B", "A")] < 1.0


def test_r10_3_losing_to_a_lucky_player_is_not_dumping(dumping_review):
    scores = dumping_review.dumping_scores()
    assert max(scores.get(("U", "L"), 0.0), scores.get(("L", "U"), 0.0)) < 1.0
    assert dumping_review.flow[("U", "L")] > dumping_review.flow[("L", "U")] + 100  # bb


def _decision(actor: str, opponent: str, telling: bool, stratum: int = 1) -> Decision:
    return Decision(actor, opponent, ("behind_checked_to", False, stratum), 20.0, telling,
                    10.0 if telling else 0.0, "river", 0.3)


def test_r10_3_a_player_who_gives_chips_to_everybody_alike_is_not_dumping():
    """Facts of 3,000 heads-up hands among ten accounts: checked to while behind, everybody
    bets a fifth of the time; L, a reckless player, half the time whoever it plays; A bets
    into B 70 % of the time (into others a fifth). Only A -> B is dumping."""
    rnd = random.Random(3)
    accounts = ["A", "B", "L", *"CDEFGHI"[:7]]
    review = Review()
    for number in range(3000):
        players = tuple(rnd.sample(accounts, 2)) if number % 5 else ("A", "B")
        facts = HandFacts(("synthetic", number), players, "cash")
        for actor, opponent in (players, players[::-1]):
            rate = 0.7 if (actor, opponent) == ("A", "B") else 0.5 if actor == "L" else 0.2
            telling = rnd.random() < rate
            facts.decisions.append(_decision(actor, opponent, telling))
            if telling:
                facts.giveaways.append(Giveaway(actor, opponent, 10.0, "put_in_behind",
                                                "river"))
                facts.flow[(actor, opponent)] = 10.0
        review.add_facts(facts)
    scores = review.dumping_scores()
    assert max(scores.get(("L", other), 0.0) for other in accounts if other != "L") < 2.0
    assert [f.accounts for f in review.flags() if f.kind == "dumping"] == [("A", "B")]


def _rare_folds_review() -> Review:
    """Facts of 2,000 heads-up hands among ten accounts (G and T in one in 100): facing a
    bet while behind everybody calls 87 % of the time (six such decisions a hand), G against
    T too; facing one while ahead everybody folds 2 % of the time, G against T 25 %."""
    rnd = random.Random(8)
    accounts = ["G", "T", *"CDEFGHIJ"[:8]]
    review = Review(Thresholds(min_shared_hands=10))
    for number in range(2000):
        players = tuple(rnd.sample(accounts, 2)) if number % 100 else ("G", "T")
        facts = HandFacts(("synthetic", number), players, "cash")
        for actor, opponent in (players, players[::-1]):
            fold = 0.25 if (actor, opponent) == ("G", "T") else 0.02
            for _ in range(6):
                called = rnd.random() < 0.87
                facts.decisions.append(Decision(actor, opponent, ("behind_facing_bet", False, 1),
                                                20.0, called, 5.0 if called else 0.0, "turn",
                                                0.3))
            folded = rnd.random() < fold
            facts.decisions.append(Decision(actor, opponent, ("ahead_facing_bet", False, 3),
                                            20.0, folded, 10.0 if folded else 0.0, "turn", 0.7))
            if folded:
                facts.giveaways.append(Giveaway(actor, opponent, 10.0, "folded_ahead", "turn"))
        review.add_facts(facts)
    return review


def test_r10_3_a_rare_telling_choice_weighs_more_than_a_common_one(monkeypatch):
    """G folds ahead to T 25 % of the time where everybody, G too, folds 2 %; its many calls
    behind, made by everybody, are as usual. Weighed by their surprise the rare folds stand
    out of the calls' variance: flagged; weighed by the stake alone they are drowned."""
    review = _rare_folds_review()
    assert review.dumping_scores()[("G", "T")] > 10
    assert [f.accounts for f in review.flags() if f.kind == "dumping"] == [("G", "T")]
    monkeypatch.setattr(analysis, "surprise", lambda chance: 1.0)  # the stake alone
    assert review.dumping_scores()[("G", "T")] < Thresholds().dumping_score


def test_r10_3_the_dumping_tail_is_an_improbability():
    assert weighted_tail([(50.0, 0.05)], 50.0) == pytest.approx(-math.log10(0.05))
    # the same excess means more over more shared decisions
    few = weighted_tail([(20.0, 0.2)] * 20, 20.0 * 8)
    many = weighted_tail([(20.0, 0.2)] * 80, 20.0 * 32)
    assert many > 2 * few > 0
    assert weighted_tail([(20.0, 0.2)] * 20, 20.0 * 4) == 0.0  # just the expected
    assert weighted_tail([(1.0, 1e-3)] * 400, 400.0) == pytest.approx(1200.0)


def test_r10_3_the_flag_leaves_with_its_evidence_as_json(dumping_review):
    flag = next(f for f in dumping_review.flags() if f.kind == "dumping")
    data = json.loads(json.dumps(flag.to_dict()))
    assert data["accounts"] == ["A", "B"]
    assert all(set(h) == {"table_id", "hand_number"} for h in data["hands"])


def test_r10_3_friends_who_never_bet_into_each_other_are_flagged_for_soft_play():
    hands = [normal("A", "B", aggressive=False) for _ in range(16)]
    hands += [normal("C", "D", aggressive=i % 2 == 0) for i in range(16)]  # friends, normal
    flags = Review(Thresholds(min_shared_hands=10)).add_all(population_of(hands)).flags()
    soft = [f for f in flags if f.kind == "soft_play"]
    assert [f.accounts for f in soft] == [("A", "B")]
    # each hand's preflop round and three checked down; and the ordinary hands' 18
    assert soft[0].details["heads_up_rounds"] == 16 * 4 + 3 * (2 + 4)
    assert soft[0].details["aggressive_rounds"] == 3  # the ordinary hands' bets


def test_r10_3_accounts_always_together_soft_playing_each_other_are_a_ring():
    ring = ["R1", "R2", "R3"]
    hands = []
    for i in range(30):  # three-handed, the button folds, the blinds check it down
        a, b, c = ring[i % 3], ring[(i + 1) % 3], ring[(i + 2) % 3]
        hands.append(scripted({a: "QhJh", b: "9c8c", c: "4d3d"}, "2s5d7hKcAs",
                              [(a, "fold", 0), (b, "call", 0), (c, "check", 0)]
                              + [(b, "check", 0), (c, "check", 0)] * 3))
    for i in range(3):  # ...and sit down together against others, betting as anybody does
        a, b, d = ring[i], ring[(i + 1) % 3], ring[(i + 2) % 3]
        for outsider in ["C", "D", "E", "F"] * 3:
            hands.append(scripted({a: "QhJh", b: "9c8c", outsider: "4d3d", d: "6s2h"},
                                  "2s5d7hKcAs",
                                  [(d, "fold", 0), (a, "call", 0), (b, "fold", 0),
                                   (outsider, "check", 0), (outsider, "check", 0),
                                   (a, "bet", 4), (outsider, "fold", 0)]))
    hands += [normal("C", "D", aggressive=False) for _ in range(10)]  # C, D also play others
    review = Review(Thresholds(min_shared_hands=10)).add_all(population_of(hands))
    rings = [f for f in review.flags() if f.kind == "ring"]
    assert [f.accounts for f in rings] == [("R1", "R2", "R3")]
    assert rings[0].details["coseating"] == 1.0


def test_r10_3_a_checked_down_round_tells_by_the_strength_in_it():
    """Facts of 4,000 heads-up rounds among ten accounts: everybody bets 80 % of the rounds
    with a strong hand in them (the top strength bin), 20 % of those with two weak hands. A
    and B check down 14 rounds with a strong hand: flagged; C and D check down 14 rounds of
    weak hands, as everybody mostly does: not flagged (at one rate for all rounds, about half,
    both pairs would score about 4.3, both flagged)."""
    rnd = random.Random(5)
    accounts = ["A", "B", "C", "D", *"EFGHIJ"]
    review = Review()
    for number in range(4000):
        players = tuple(sorted(rnd.sample(accounts, 2)))
        if players in (("A", "B"), ("C", "D")):
            continue  # the two pairs' rounds together are only theirs below
        strong = rnd.random() < 0.5
        facts = HandFacts(("synthetic", number), players, "cash")
        facts.rounds.append(HeadsUpRound(players, rnd.random() < (0.8 if strong else 0.2),
                                         len(STRENGTH_BINS) if strong else 0))
        review.add_facts(facts)
    for pair, strength in ((("A", "B"), len(STRENGTH_BINS)), (("C", "D"), 0)):
        for number in range(14):
            facts = HandFacts((f"{pair}", number), pair, "cash")
            facts.rounds.append(HeadsUpRound(pair, False, strength))
            review.add_facts(facts)
    scores = review.soft_scores()
    assert scores[("A", "B")] > 8  # 14 x -log10(0.2 or so)
    assert scores[("C", "D")] < 2
    assert [f.accounts for f in review.flags() if f.kind == "soft_play"] == [("A", "B")]


def test_r10_3_a_heads_up_round_records_the_stronger_hand():
    facts = hand_facts(normal("A", "B", aggressive=False))
    assert facts is not None
    # Q-J and 9-8 on 2-5-7-K-A: no pair, a draw, nothing; neither hand near the top bin
    bins = [r.strength_bin for r in facts.rounds if not r.preflop]
    assert len(bins) == 3 and all(0 <= b < len(STRENGTH_BINS) for b in bins)
    strong = hand_facts(scripted({"A": "KhKd", "B": "9c8c"}, "Ks5d7h2c3s",
                                 [("A", "call", 0), ("B", "check", 0)]
                                 + [("B", "check", 0), ("A", "check", 0)] * 3))
    assert strong is not None
    assert [r.strength_bin for r in strong.rounds if not r.preflop] \
        == [len(STRENGTH_BINS)] * 3  # sets of Kings


def _taker_side_review(taker_bluffs_giver: float) -> Review:
    """Facts of 2,000 heads-up hands among ten accounts (G and T in one in 40): facing a bet
    while ahead everybody folds a fifth of the time, G (a wild player) half the time whoever
    bets, and 60 % of the time against T; checked to while behind everybody bets a fifth of
    the time, T against G *taker_bluffs_giver* of the time."""
    rnd = random.Random(7)
    accounts = ["G", "T", *"CDEFGHIJ"[:8]]
    review = Review()
    for number in range(2000):
        players = tuple(rnd.sample(accounts, 2)) if number % 40 else ("G", "T")
        facts = HandFacts(("synthetic", number), players, "cash")
        for actor, opponent in (players, players[::-1]):
            fold = 0.6 if (actor, opponent) == ("G", "T") else 0.5 if actor == "G" else 0.2
            bluff = taker_bluffs_giver if (actor, opponent) == ("T", "G") else 0.2
            folded = rnd.random() < fold
            facts.decisions.append(Decision(actor, opponent, ("ahead_facing_bet", False, 3),
                                            20.0, folded, 10.0 if folded else 0.0, "turn", 0.7))
            facts.decisions.append(Decision(actor, opponent, ("behind_checked_to", False, 0),
                                            20.0, rnd.random() < bluff, 0.0, "river", 0.2))
            if folded:
                facts.giveaways.append(Giveaway(actor, opponent, 10.0, "folded_ahead", "turn"))
                facts.flow[(actor, opponent)] = 10.0
        review.add_facts(facts)
    return review


def test_r10_3_the_taker_betting_into_the_giver_adds_to_the_dumping_score():
    """G's folds to T alone are not improbable enough for its wild style; T betting behind
    into G when checked to (G, ahead, then folds) makes the pair's transfer improbable."""
    alone, both = _taker_side_review(0.2), _taker_side_review(0.9)
    assert alone.dumping_scores()[("G", "T")] < Thresholds().dumping_score \
        <= both.dumping_scores()[("G", "T")]
    assert [f.accounts for f in alone.flags() if f.kind == "dumping"] == []
    assert [f.accounts for f in both.flags() if f.kind == "dumping"] == [("G", "T")]


def test_r10_3_the_tails_are_improbabilities():
    assert poisson_binomial_low_tail(3, [0.4] * 30) == pytest.approx(binomial_low_tail(3, 30, 0.4))
    # P(K = 0) of chances 0.5 and 0.9: 0.5 x 0.1
    assert poisson_binomial_low_tail(0, [0.5, 0.9]) == pytest.approx(-math.log10(0.05))
    assert poisson_binomial_low_tail(0, [0.999] * 2000) > 5000  # no underflow to 0
    assert binomial_low_tail(0, 30, 0.5) > 9 > binomial_low_tail(10, 30, 0.5) > 0
    assert binomial_low_tail(15, 30, 0.5) == 0.0


def _exact_weighted_tail(trials: list[tuple[float, float]], observed: float) -> float:
    """``-log10 P(sum of w x >= observed)``, by enumerating the sums."""
    sums = {0.0: 1.0}
    for w, p in trials:
        grown: dict[float, float] = {}
        for total, chance in sums.items():
            grown[total] = grown.get(total, 0.0) + chance * (1 - p)
            grown[total + w] = grown.get(total + w, 0.0) + chance * p
        sums = grown
    return -math.log10(sum(c for total, c in sums.items() if total >= observed - 1e-9))


def test_r10_3_the_dumping_score_is_close_to_the_exact_chance():
    """The saddlepoint score is within 0.1 of the exact tail (on the low side: it errs
    toward innocence), where the Chernoff bound is 0.4 to 0.9 below it."""
    rnd = random.Random(11)
    mixed = [(rnd.choice([4.0, 10.0, 25.0, 50.0]), rnd.choice([0.1, 0.3, 0.5])) for _ in range(40)]
    cases = [([(1.0, 0.35)] * 17, 10.0), ([(1.0, 0.2)] * 100, 30.0), ([(1.0, 0.1)] * 30, 12.0),
             (mixed, 500.0), (mixed, 600.0)]
    for trials, observed in cases:
        exact = _exact_weighted_tail(trials, observed)
        close = saddlepoint_tail(trials, observed)
        assert exact - 0.1 <= close <= exact + 0.01
        assert weighted_tail(trials, observed) < close - 0.4
    assert saddlepoint_tail([(50.0, 0.05)], 50.0) == pytest.approx(-math.log10(0.05))
    assert saddlepoint_tail([(1.0, 0.5)] * 20, 10.0) == 0.0  # the mean: nothing improbable


def test_r10_3_a_cancelled_or_logless_hand_tells_nothing():
    record = strong_fold()
    assert hand_facts(record.stub("too_large")) is None


# -- the planted population ----------------------------------------------------------------

def test_r10_3_the_population_plants_what_it_says_and_conserves_chips(tmp_path):
    plan = Plan(accounts=14, dumping_pairs=1, soft_pairs=1, rings=1, innocent_friend_pairs=1,
                lucky_pairs=1, hands_per_session=8)
    records, truth = simulate(24, seed=7, plan=plan)
    kept = list(records)
    assert len(kept) == 24
    assert len(truth.dumping) == 1 and len(truth.rings) == 1
    assert len(truth.soft_play) == 1 + 3  # the friends and the ring's three pairs
    everybody = set(truth.accounts)
    for record in kept:
        assert sum(record.results.values()) == 0
        assert set(record.players) <= everybody
    ring = truth.rings[0]
    for record in kept:  # a ring's accounts only ever sit down together
        assert len(ring & set(record.players)) in (0, 3)
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(r.to_document()) + "\n" for r in kept))
    assert [r.key for r in from_jsonl(path)] == [r.key for r in kept]
    assert {int(r.config["big_blind"]) for r in kept} <= set(STAKES)
    # two parts played apart are the whole run's sessions, hand for hand
    halves = [list(simulate(24, seed=7, plan=plan, part=(i, 2))[0]) for i in range(2)]
    assert sorted((r.key, r.results) for half in halves for r in half) \
        == sorted((r.key, r.results) for r in kept)


def test_r10_3_the_review_command_prints_the_flags_of_an_export(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(
        "naiko_integrity_review_script", Path(__file__).parents[2] / "scripts"
        / "integrity_review.py")
    assert spec is not None and spec.loader is not None
    integrity_review = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(integrity_review)
    records = heads_up_population(1, 200)
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(r.to_document()) + "\n" for r in records))
    assert integrity_review.main(["--hands", str(path), "--json"]) == 0
    flags = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(f["kind"], f["accounts"]) for f in flags] == [("dumping", ["A", "B"])]
    assert len(flags[0]["hands"]) == min(EVIDENCE_HANDS, flags[0]["details"]["giveaway_hands"])
    assert integrity_review.main(["--hands", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{len(records)} hands reviewed, 8 accounts, 1 flags")
    assert "dumping    A -> B" in out
