"""R10.3: the integrity review over stored hands (naiko_service.integrity).

Scripted hands with chosen cards check each signal (a strong fold, chips put in with
nothing, a cooler that is not a giveaway, heads-up rounds), then the review's flags over
many such hands: a dumping pair, a soft-playing pair, a ring, and innocent look-alikes that
stay unflagged. A small planted population checks the simulation itself.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest
from integrity_testing import cooler, normal, scripted, strong_fold, weak_call
from naiko_service.hand_records import HandRecord
from naiko_service.integrity.analysis import (
    Giveaway,
    HandFacts,
    Review,
    Thresholds,
    binomial_low_tail,
    hand_facts,
    poisson_tail,
)
from naiko_service.integrity.population import Plan, simulate
from naiko_service.integrity.sources import from_jsonl

# -- one hand's facts ----------------------------------------------------------------------

def test_r10_3_folding_aces_to_a_raise_with_seven_deuce_is_a_giveaway():
    facts = hand_facts(strong_fold())
    assert facts is not None
    [given] = facts.giveaways
    assert (given.giver, given.taker, given.reason) == ("A", "B", "folded_strong")
    # forfeited: equity (~0.87) x (pot 14 + call 10) - call 10, in big blinds
    assert 4.0 < given.chips < 6.0
    assert facts.flow == {("A", "B"): 1.0}


def test_r10_3_calling_off_with_nothing_is_a_giveaway():
    facts = hand_facts(weak_call())
    assert facts is not None
    [given] = facts.giveaways
    assert (given.giver, given.taker, given.reason) == ("A", "B", "put_in_weak")
    assert given.chips > 60
    assert facts.flow == {("A", "B"): 100.0}


def test_r10_3_a_cooler_is_a_loss_but_not_a_giveaway():
    facts = hand_facts(cooler())
    assert facts is not None
    assert facts.giveaways == []
    assert facts.flow == {("A", "B"): 100.0}


def test_r10_3_a_giveaway_counts_only_when_the_giver_lost_to_the_taker():
    # the same call off with 7-2 against Aces, but the board pairs both of its cards
    record = scripted({"A": "7c2d", "B": "AhAd"}, "7h2sKc9d4s",
                      [("A", "raise", 6), ("B", "raise", 200), ("A", "call", 0)])
    facts = hand_facts(record)
    assert facts is not None
    assert facts.flow == {("B", "A"): 100.0}
    assert facts.giveaways == []


def test_r10_3_heads_up_rounds_record_whether_anybody_bet():
    facts = hand_facts(normal("A", "B", aggressive=False))
    assert facts is not None
    assert [(r.pair, r.aggressive) for r in facts.rounds] == [(("A", "B"), False)] * 3
    facts = hand_facts(normal("A", "B", aggressive=True))
    assert facts is not None
    assert [(r.pair, r.aggressive) for r in facts.rounds] == [(("A", "B"), True)]


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
    hands = [strong_fold("A", "B") for _ in range(8)] + [weak_call("A", "B") for _ in range(3)]
    hands += [normal("A", "B") for _ in range(20)]
    # innocent look-alike: C loses big to D with strong hands (coolers), often
    hands += [cooler("C", "D") for _ in range(10)] + [normal("C", "D") for _ in range(25)]
    return Review(Thresholds(min_shared_hands=20)).add_all(population_of(hands))


def test_r10_3_a_player_who_keeps_giving_chips_to_one_account_is_flagged(dumping_review):
    flags = [f for f in dumping_review.flags() if f.kind == "dumping"]
    assert [f.accounts for f in flags] == [("A", "B")]
    flag = flags[0]
    assert flag.score >= Thresholds().dumping_score
    assert flag.details["giveaway_hands"] == 11
    assert flag.details["reasons"] == {"folded_strong": 8, "put_in_weak": 3}
    assert len(flag.hands) == 11  # every hand that raised it, for the reviewer


def test_r10_3_losing_to_coolers_is_not_dumping(dumping_review):
    scores = dumping_review.dumping_scores()
    assert scores.get(("C", "D"), 0.0) < Thresholds().dumping_score
    assert dumping_review.flow[("C", "D")] >= 1000  # it lost 1,000 big blinds all the same


def test_r10_3_a_player_who_gives_chips_to_everybody_alike_is_not_dumping():
    """Facts of 3,000 six-handed hands among ten accounts: everybody gives a little away now
    and then; L, a bad player, gives in a tenth of its hands to whoever is there; A gives to B
    in a sixth of their hands together. Only A -> B is dumping."""
    rnd = random.Random(3)
    accounts = ["A", "B", "L", *"CDEFGHI"[:7]]
    review = Review()
    for number in range(3000):
        players = tuple(rnd.sample(accounts, 6))
        facts = HandFacts(("synthetic", number), players, "cash")
        giver = next((p for p in players if p == "L" and rnd.random() < 0.1), None)
        if giver is None and "A" in players and "B" in players and rnd.random() < 1 / 6:
            facts.giveaways.append(Giveaway("A", "B", 20.0, "folded_strong", "flop"))
        elif giver is None and rnd.random() < 0.05:
            giver = rnd.choice(players)
        if giver is not None:
            taker = rnd.choice([p for p in players if p != giver])
            facts.giveaways.append(Giveaway(giver, taker, 20.0, "put_in_weak", "river"))
        review.add_facts(facts)
    scores = review.dumping_scores()
    assert max(scores[("L", other)] for other in accounts if other != "L") < 2.0
    assert [f.accounts for f in review.flags() if f.kind == "dumping"] == [("A", "B")]


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
    assert soft[0].details["heads_up_rounds"] == 16 * 3 + 12  # and the ordinary hands' 12
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


def test_r10_3_the_tails_are_improbabilities():
    assert poisson_tail(10, 2.0) > 4 > poisson_tail(5, 2.0) > 0
    assert poisson_tail(400, 1.0) > 300  # no underflow to 0 or inf
    assert binomial_low_tail(0, 30, 0.5) > 9 > binomial_low_tail(10, 30, 0.5) > 0
    assert binomial_low_tail(15, 30, 0.5) == 0.0


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


def test_r10_3_the_review_command_prints_the_flags_of_an_export(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(
        "naiko_integrity_review_script", Path(__file__).parents[2] / "scripts"
        / "integrity_review.py")
    assert spec is not None and spec.loader is not None
    integrity_review = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(integrity_review)
    records = population_of([strong_fold("A", "B") for _ in range(12)]
                            + [normal("A", "B") for _ in range(30)])
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(r.to_document()) + "\n" for r in records))
    assert integrity_review.main(["--hands", str(path), "--json"]) == 0
    flags = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(f["kind"], f["accounts"]) for f in flags] == [("dumping", ["A", "B"])]
    assert len(flags[0]["hands"]) == 12
    assert integrity_review.main(["--hands", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{len(records)} hands reviewed, 6 accounts, 1 flags")
    assert "dumping    A -> B" in out
