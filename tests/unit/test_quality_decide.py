"""``quality --decide``'s statistics and plan, on literal numbers (docs/quality.md, Deciding early)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from harness.errors import ConfigError, ProtocolError
from harness.profiles import Benchmark
from harness.quality.decide import Leaf, doc_values, make_plan
from harness.quality.decide_exact import (
    ExactTest,
    crossing,
    hypergeom_pmf,
    side,
    spending,
)
from harness.quality.decide_stats import (
    Decider,
    Design,
    Stratum,
    boundary,
    certain,
    exact_score,
    least_log_m,
    look_every,
    look_points,
    passes,
    psi,
    schedule,
    uses_exact,
    worst_fail,
)


def test_the_grader_judges_the_rounded_score():
    assert passes(0.62096, 0.621) and not passes(0.62094, 0.621)
    assert boundary(0.621) == pytest.approx(0.62095, abs=1e-12)
    assert boundary(0.814) == pytest.approx(0.81395, abs=1e-12)
    assert boundary(0.63) == pytest.approx(0.62995, abs=1e-12)
    assert boundary(0.875) == pytest.approx(0.87495, abs=1e-12)


def test_weights_of_subjects_and_of_instruction_counts():
    subjects = Design((Stratum(0, 1, 2), Stratum(1, 1, 4)), 0.5, n_groups=2)
    assert subjects.weights.tolist() == [0.5, 0.5]  # each subject is half the score
    ifeval = Design((Stratum(0, 1, 3), Stratum(0, 2, 1)), 0.5)
    assert ifeval.weights.tolist() == pytest.approx([0.6, 0.4])  # 3 and 2 of 5 instructions
    assert ifeval.group_weight == (5,) and ifeval.total == 4


def test_schedule_follows_the_weights_and_skips_exhausted_strata():
    assert schedule(Design((Stratum(0, 1, 2), Stratum(1, 1, 4)), 0.5, n_groups=2)) == [
        0,
        1,
        0,
        1,
        1,
        1,
    ]
    assert schedule(Design((Stratum(0, 1, 3), Stratum(0, 2, 1)), 0.5)) == [0, 1, 0, 0]


def test_exact_score_is_the_graders_arithmetic():
    subjects = Design((Stratum(0, 1, 2), Stratum(1, 1, 4)), 0.5, n_groups=2)
    assert exact_score(subjects, np.array([[1.0, 2.0]])).tolist() == [0.5]  # (1/2 + 2/4) / 2
    assert exact_score(subjects, np.array([[2.0, 1.0]])).tolist() == [0.625]  # (1 + 1/4) / 2
    ifeval = Design((Stratum(0, 1, 3), Stratum(0, 2, 1)), 0.5)
    assert exact_score(ifeval, np.array([[2.0, 1.0]])).tolist() == [0.6]  # 3 of 5 instructions


def test_certain_when_no_answer_of_the_rest_can_change_it():
    d = Design((Stratum(0, 1, 10),), 0.5)
    taken = np.array([5])
    assert certain(d, np.array([[5.0]]), taken).tolist() == [1]  # 5/10 already passes
    assert certain(d, np.array([[4.0]]), taken).tolist() == [0]  # 0.4 .. 0.9: open
    assert certain(d, np.array([[0.0]]), np.array([6])).tolist() == [-1]  # at most 4/10


def test_psi_and_the_least_value_over_the_null():
    assert psi(np.array([0.5]))[0] == pytest.approx(math.log(2) - 0.5)
    args = (np.array([[1.0, 1.0]]), np.array([[2.0, 1.0]]), np.array([0.5]), np.array([0.5, 0.5]))
    # the null spends its budget where μ costs most: μ = (1, 0), so 1 − 2 + 1 − 0.5
    full = least_log_m(*args, np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]), 0.5)
    assert full.tolist() == pytest.approx([-0.5])
    boxed = least_log_m(*args, np.array([[0.2, 0.0]]), np.array([[0.6, 1.0]]), 0.5)
    assert boxed.tolist() == pytest.approx([1 - 2 * 0.6 + 1 - 1 * 0.4 - 0.5])  # μ = (0.6, 0.4)
    empty = least_log_m(*args, np.array([[1.0, 1.0]]), np.array([[1.0, 1.0]]), 0.5)
    assert empty.tolist() == [math.inf]  # no configuration of the null fits what was seen


def test_four_documents_worked_by_hand():
    """The anytime test (every shape but one right/wrong stratum): N = 10, threshold 0.5
    (b = 0.49995), answers 1, 1, 0, 1; each bet worked out by hand in docs/quality.md's
    notation: λ = gap / (r̄·v̂ + gap), gap = θ̂ − b."""
    dec = Decider(Design((Stratum(0, 1, 10),), 0.5), method="anytime")
    for c in (1, 1, 0, 1):
        dec.add(0, c)
    # bets 0, 0.30771, 0.48783, 0.26254 (the first is 0: the prior sits on the boundary)
    assert dec.up.a[0, 0] == pytest.approx(0.801419, abs=2e-6)
    assert dec.up.b[0, 0] == pytest.approx(1.326756, abs=2e-6)
    assert dec.up.penalty[0] == pytest.approx(0.135541, abs=2e-6)
    assert dec.down.a[0, 0] == 0.0  # the estimate never leaned to FAIL: nothing bet there
    look = dec.look()
    log_m = 0.801419 - 0.49995 * 1.326756 - 0.135541
    assert look.risk_pass[0] == pytest.approx(math.exp(-log_m), abs=3e-6)  # risk 1/M
    assert look.certain.tolist() == [0] and look.decision().tolist() == [0]
    assert dec.estimate().tolist() == [0.75]
    low, high = dec.interval()
    assert (low[0], high[0]) == pytest.approx((0.3, 0.9), abs=1e-6)  # no tighter than certain
    # cut to a settled side: PASS means θ ≥ b, FAIL θ < b (each wrong with probability ≤ α)
    sides = np.array([1, -1, 0], dtype=np.int8)
    dec3 = Decider(Design((Stratum(0, 1, 10),), 0.5), trials=3, method="anytime")
    for c in (1, 1, 0, 1):
        dec3.add(0, c)
    low, high = dec3.interval(sides)
    assert low.tolist() == pytest.approx([0.49995, 0.3, 0.3], abs=1e-6)
    assert high.tolist() == pytest.approx([0.9, 0.49995, 0.9], abs=1e-6)


def test_all_wrong_settles_fail_before_the_end():
    """Two strata (the anytime test), every answer wrong: FAIL long before it is certain."""
    d = Design((Stratum(0, 1, 100), Stratum(1, 1, 100)), 0.621, n_groups=2)
    dec = Decider(d)
    assert dec.exact is None
    for h in schedule(d):
        dec.add(h, 0)
        look = dec.look()
        if look.decision()[0]:
            break
    assert look.decision().tolist() == [-1] and look.certain.tolist() == [0]
    assert dec.asked < 40  # far below the 76 wrong answers that make FAIL certain
    assert look.risk(np.array([-1], dtype=np.int8))[0] < 0.001


def test_wrong_decisions_stay_under_alpha_at_the_boundary():
    """The anytime test, looking after every document at α = 0.05, on a truth that fails
    by one document (124/200 = 0.62 < 0.621): over 2,000 random orders, under 5 % end on
    PASS."""
    d = Design((Stratum(0, 1, 200),), 0.621, alpha=0.05)
    values = np.zeros(200)
    values[:124] = 1
    orders = np.random.default_rng(11).permuted(np.tile(values, (2000, 1)), axis=1)
    dec = Decider(d, trials=2000, method="anytime")
    wrong = np.zeros(2000, dtype=bool)
    for i in range(200):
        dec.add(0, orders[:, i])
        wrong |= dec.look().decision() > 0
    assert wrong.mean() < 0.05


def test_the_exact_test_for_one_right_wrong_stratum_only():
    assert uses_exact(Design((Stratum(0, 1, 198),), 0.63))
    assert not uses_exact(Design((Stratum(0, 1, 2), Stratum(1, 1, 4)), 0.5, n_groups=2))
    assert not uses_exact(Design((Stratum(0, 1, 3), Stratum(0, 2, 1)), 0.5))  # IFEval-like
    assert look_points(20, 8) == [8, 16, 20] and look_points(16, 8) == [8, 16]


def test_worst_failing_count_by_the_graders_rounding():
    # 124/198 = 0.62626 fails 0.63; 125/198 = 0.63131 passes
    assert worst_fail(Design((Stratum(0, 1, 198),), 0.63)) == 124
    assert worst_fail(Design((Stratum(0, 1, 1200),), 0.621)) == 745  # 0.620833; 746: 0.621667
    assert worst_fail(Design((Stratum(0, 1, 2000),), 0.621)) == 1241  # 0.6205 rounds down
    assert worst_fail(Design((Stratum(0, 1, 10),), 0.0)) == -1  # nothing fails
    assert worst_fail(Design((Stratum(0, 1, 10),), 1.01)) == 10  # nothing passes


def test_spending_and_the_hypergeometric_law():
    # α (1 − e^{−2t}) / (1 − e^{−2}): 0.001 · 0.632121 / 0.864665 at t = 0.5
    assert spending(0.5, 0.001) == pytest.approx(0.000731059, abs=1e-9)
    assert spending(0.0, 0.001) == 0.0 and spending(1.0, 0.001) == 0.001
    # 4 of 10 documents, 3 right: C(3,k) C(7,4−k) / C(10,4) = 35, 105, 63, 7, 0 of 210
    pmf = hypergeom_pmf(10, np.array([3, 11]), 4)
    assert pmf[0].tolist() == pytest.approx([35 / 210, 105 / 210, 63 / 210, 7 / 210, 0.0])
    assert pmf[1].tolist() == [0.0] * 5  # 11 right of 10 cannot be: no mass


def _brute_crossing(total: int, right: int, looks: list[int], bound: tuple[int, ...]) -> float:
    """Every placement of the right answers in the order, equally likely: exact by count."""
    where = np.array(list(itertools.combinations(range(total), right)), dtype=np.int64)
    rows = np.zeros((max(len(where), 1), total), dtype=np.int64)
    if right:
        np.put_along_axis(rows, where, 1, axis=1)
    seen = np.cumsum(rows, axis=1)
    hits = np.zeros(len(rows), dtype=bool)
    for n, u in zip(looks, bound, strict=True):
        hits |= seen[:, n - 1] >= u
    return float(hits.mean())


def test_the_exact_tail_against_brute_force_on_a_tiny_set():
    """N = 8, looks at 2, 4, 6, 8, α = 0.3, null "at most 5 right": the boundaries by hand.
    Look 1 cannot reject (3 > 2); look 2 rejects 4 of 4 right: C(5,4)/C(8,4) = 5/70; look 3
    rejects 5 of 6 right, 5/70 more; look 4 needs 6 right, impossible with 5."""
    looks = [2, 4, 6, 8]
    s = side(8, 5, looks, 0.3)
    assert s.bound == (3, 4, 5, 6)
    assert s.spent == pytest.approx((0.0, 5 / 70, 10 / 70, 10 / 70))
    for right in range(9):  # every urn: the DP against all C(8, right) placements
        assert crossing(8, right, looks, s.bound) == pytest.approx(
            _brute_crossing(8, right, looks, s.bound), abs=1e-12
        )
    # more right answers never cross less (the coupling behind the whole null)
    tails = [crossing(8, r, looks, s.bound) for r in range(9)]
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(tails)) and tails[5] <= 0.3


def test_exact_boundaries_of_a_twenty_document_set():
    """N = 20, threshold 0.5 (M0 = 9: 9/20 fails, 10/20 passes), looks every 5, α = 0.05.
    PASS needs 5 of 5, 8 of 10, 9 of 15 right; FAIL 5 of 5, 8 of 10, 10 of 15 wrong. The
    crossing probabilities agree with all C(20, 9) = 167,960 and C(20, 10) = 184,756
    placements: 6,335 and 7,004 of them cross."""
    test = ExactTest.build(20, 9, [5, 10, 15, 20], 0.05)
    assert test.up.bound == (5, 8, 9, 10) and test.down.bound == (5, 8, 10, 11)
    assert test.up.spent[0] == pytest.approx(math.comb(9, 5) / math.comb(20, 5))  # 126/15504
    assert test.up.spent[-1] == pytest.approx(6335 / 167960)
    assert test.down.spent[-1] == pytest.approx(7004 / 184756)
    assert _brute_crossing(20, 9, [5, 10, 15, 20], test.up.bound) == pytest.approx(6335 / 167960)
    assert test.up.spent[-1] <= 0.05 and test.down.spent[-1] <= 0.05
    # the risk of a decision is the error spent by its look; open, the level it would need
    pass_risk, fail_risk = test.risk(1, np.array([8, 5]))
    assert pass_risk[0] == test.up.spent[1]  # settled: the error spent by look 2
    # open at 5 of 10 right: P(S_10 ≥ 5) = 1/2, as 9 right of 20 is symmetric about 4.5
    assert pass_risk[1] == pytest.approx(0.5, abs=1e-12)
    assert fail_risk.tolist() == pytest.approx([0.999453, 0.671859], abs=1e-6)
    assert test.settled(1, np.array([8, 2, 5])).tolist() == [1, -1, 0]
    assert test.index(10) == 1 and test.index(11) is None
    with pytest.raises(ValueError, match="looks must rise"):
        ExactTest.build(20, 9, [5, 10], 0.05)


def test_exact_decider_settles_all_wrong_at_a_scheduled_look():
    """200 documents, threshold 0.621, rounds of 8: all wrong settles FAIL at the second
    look (16 wrong: C(76,16)/C(200,16)-sized risk), never between two looks."""
    dec = Decider(Design((Stratum(0, 1, 200),), 0.621), every=8)
    assert dec.exact is not None and dec.exact.down.bound[:3] == (9, 14, 18)
    for _ in range(12):
        dec.add(0, 0)
    between = dec.look()  # 12 documents: no look of the schedule
    assert between.decision().tolist() == [0] and between.risk_fail.tolist() == [1.0]
    for _ in range(4):
        dec.add(0, 0)
    look = dec.look()
    assert look.decision().tolist() == [-1] and look.certain.tolist() == [0]
    risk = look.risk(np.array([-1], dtype=np.int8))[0]
    assert risk == dec.exact.down.spent[1] == pytest.approx(2.7422913e-05, rel=1e-6)
    low, high = dec.interval(look.decision())
    assert (low[0], high[0]) == pytest.approx((0.0, 0.317532), abs=1e-6)  # 16 of 200 asked


def test_exact_wrong_decisions_match_the_computed_error():
    """At the worst failing urn (124 of 198 right, threshold 0.63) the test errs exactly as
    often as it computes: 0.0968 %; 40,000 random orders see that rate (± its noise)."""
    d = Design((Stratum(0, 1, 198),), 0.63)
    test = ExactTest.build(198, worst_fail(d), look_points(198, 8), d.alpha)
    assert test.up.spent[-1] == pytest.approx(0.00096758, abs=1e-8)
    assert crossing(198, 124, test.looks, test.up.bound) == test.up.spent[-1]
    assert crossing(198, 119, test.looks, test.up.bound) < 0.0002  # 3 points under
    values = np.zeros(198, dtype=np.int8)
    values[:124] = 1
    seen = np.cumsum(np.random.default_rng(3).permuted(np.tile(values, (40_000, 1)), axis=1), 1)
    crossed = np.zeros(40_000, dtype=bool)
    for j, at in enumerate(test.looks):
        crossed |= seen[:, at - 1] >= test.up.bound[j]
    assert 15 <= crossed.sum() <= 65  # mean 38.7, sd 6.2


def test_look_every():
    assert look_every(1209, 8) == 31 and look_every(541, 8) == 14
    assert look_every(20, 8) == 8 and look_every(12_032, 8) == 32


MMLU = Benchmark(
    name="mmlu_pro",
    title="MMLU-Pro",
    task="mmlu_pro",
    metric="exact_match,custom-extract",
    aggregate="mean_of_subtasks",
    threshold=0.621,
)
IFEVAL = Benchmark(
    name="ifeval",
    title="IFEval",
    task="ifeval",
    metric="inst_level_strict_acc,none",
    threshold=0.814,
)


def test_plan_strata_and_a_seeded_order():
    leaves = [Leaf("mmlu_pro_a", (1, 1)), Leaf("mmlu_pro_b", (1, 1, 1, 1))]
    plan = make_plan(MMLU, leaves, seed=3)
    assert [a.stratum for a in plan.order] == [0, 1, 0, 1, 1, 1]
    assert sorted((a.leaf, a.doc) for a in plan.order) == [(0, 0), (0, 1)] + [
        (1, i) for i in range(4)
    ]
    assert make_plan(MMLU, leaves, seed=3).order == plan.order  # --seed replays it
    orders = {make_plan(MMLU, leaves, seed=s).order for s in range(20)}
    assert len(orders) > 1
    ifeval = make_plan(IFEVAL, [Leaf("ifeval", (1, 2, 1, 1, 3))], seed=1).design
    assert [(s.weight, s.size) for s in ifeval.strata] == [(1, 3), (2, 1), (3, 1)]
    assert ifeval.weights.tolist() == pytest.approx([3 / 8, 2 / 8, 3 / 8])


def test_a_group_scored_by_lm_eval_cannot_be_decided():
    group = IFEVAL.model_copy(update={"aggregate": "task"})
    with pytest.raises(ConfigError, match="scores its 2 tasks as a group"):
        make_plan(group, [Leaf("a", (1,)), Leaf("b", (1,))], seed=1)


def test_document_values_from_lm_eval_samples():
    samples = {
        "ifeval": [{"doc_id": 4, "filter": "none", "inst_level_strict_acc": [True, False, True]}],
        "mmlu_pro_law": [
            {"doc_id": 2, "filter": "custom-extract", "exact_match": 1.0},
            {"doc_id": 2, "filter": "strict", "exact_match": 0.0},
        ],
    }
    assert doc_values(samples, "inst_level_strict_acc,none") == {("ifeval", 4): (2, 3)}
    assert doc_values(samples, "exact_match,custom-extract") == {("mmlu_pro_law", 2): (1, 1)}
    with pytest.raises(ProtocolError, match="right/wrong"):
        doc_values({"t": [{"doc_id": 0, "filter": "none", "f1": 0.5}]}, "f1,none")


def test_seed_and_decide_go_together(tmp_path):
    from harness.profiles import load_profile
    from harness.quality.config import QualityOverrides, from_profile
    from harness.target import Target

    profile = load_profile()
    target = Target(folder=tmp_path, url="http://h:1")
    drawn = from_profile(profile, target, QualityOverrides(decide=True))
    assert drawn.seed is not None and drawn.non_official()["decide"] == {"seed": drawn.seed}
    assert from_profile(profile, target, QualityOverrides(decide=True, seed=5)).seed == 5
    with pytest.raises(ConfigError, match="add --decide"):
        from_profile(profile, target, QualityOverrides(seed=5))
