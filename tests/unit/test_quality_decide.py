"""``quality --decide``'s statistics and plan, on literal numbers (docs/quality.md, Deciding early)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.errors import ConfigError, ProtocolError
from harness.profiles import Benchmark
from harness.quality.decide import Leaf, doc_values, make_plan
from harness.quality.decide_stats import (
    Decider,
    Design,
    Stratum,
    boundary,
    certain,
    exact_score,
    least_log_m,
    look_every,
    passes,
    psi,
    schedule,
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
    """N = 10, threshold 0.5 (b = 0.49995), answers 1, 1, 0, 1; each bet worked out by hand
    in docs/quality.md's notation: λ = gap / (r̄·v̂ + gap), gap = θ̂ − b."""
    dec = Decider(Design((Stratum(0, 1, 10),), 0.5))
    for c in (1, 1, 0, 1):
        dec.add(0, c)
    # bets 0, 0.30771, 0.48783, 0.26254 (the first is 0: the prior sits on the boundary)
    assert dec.up.a[0, 0] == pytest.approx(0.801419, abs=2e-6)
    assert dec.up.b[0, 0] == pytest.approx(1.326756, abs=2e-6)
    assert dec.up.penalty[0] == pytest.approx(0.135541, abs=2e-6)
    assert dec.down.a[0, 0] == 0.0  # the estimate never leaned to FAIL: nothing bet there
    look = dec.look()
    assert look.log_m_pass[0] == pytest.approx(0.801419 - 0.49995 * 1.326756 - 0.135541, abs=3e-6)
    assert look.certain.tolist() == [0] and look.decision(0.001).tolist() == [0]
    assert dec.estimate().tolist() == [0.75]
    low, high = dec.interval()
    assert (low[0], high[0]) == pytest.approx((0.3, 0.9), abs=1e-6)  # no tighter than certain


def test_all_wrong_settles_fail_before_the_end():
    d = Design((Stratum(0, 1, 200),), 0.621)
    dec = Decider(d)
    for _ in range(200):
        dec.add(0, 0)
        look = dec.look()
        if look.decision(0.001)[0]:
            break
    assert look.decision(0.001).tolist() == [-1] and look.certain.tolist() == [0]
    assert dec.asked < 40  # far below the 76 wrong answers that make FAIL certain
    assert look.risk(np.array([-1], dtype=np.int8))[0] < 0.001


def test_wrong_decisions_stay_under_alpha_at_the_boundary():
    """The truth fails by one document (124/200 = 0.62 < 0.621) and the test looks after
    every document at α = 0.05: over 2,000 random orders, under 5 % end on PASS."""
    d = Design((Stratum(0, 1, 200),), 0.621, alpha=0.05)
    values = np.zeros(200)
    values[:124] = 1
    orders = np.random.default_rng(11).permuted(np.tile(values, (2000, 1)), axis=1)
    dec = Decider(d, trials=2000)
    wrong = np.zeros(2000, dtype=bool)
    for i in range(200):
        dec.add(0, orders[:, i])
        wrong |= dec.look().decision(0.05) > 0
    assert wrong.mean() < 0.05


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
    from harness.flags import Target
    from harness.profiles import load_profile
    from harness.quality.config import QualityOverrides, from_profile

    profile = load_profile()
    target = Target(folder=tmp_path, url="http://h:1")
    drawn = from_profile(profile, target, QualityOverrides(decide=True))
    assert drawn.seed is not None and drawn.non_official()["decide"] == {"seed": drawn.seed}
    assert from_profile(profile, target, QualityOverrides(decide=True, seed=5)).seed == 5
    with pytest.raises(ConfigError, match="add --decide"):
        from_profile(profile, target, QualityOverrides(seed=5))
