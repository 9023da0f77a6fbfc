import json

import pytest

from harness.stats.intervals import (
    binomial_stderr,
    bootstrap_median_ci,
    bootstrap_score_ci,
    wilson_interval,
)
from harness.stats.robust import median
from harness.stats.summary import Dist, dist, mean_speedup, percentile, speedup


def test_median_and_percentiles_literal():
    xs = [1.0, 2.0, 3.0, 4.0, 100.0]
    assert median(xs) == 3.0
    assert percentile(xs, 50) == 3.0
    assert percentile([10.0, 20.0], 90) == pytest.approx(19.0)
    assert median([4.0, 1.0]) == 2.5


def test_empty_and_single_sample():
    assert median([]) is None
    assert percentile([], 99) is None
    s = dist([])
    assert s.n == 0 and s.median is None and s.p99 is None
    one = dist([7.0])
    assert (one.n, one.median, one.p99, one.stdev) == (1, 7.0, 7.0, 0.0)
    assert bootstrap_median_ci([]) is None
    assert bootstrap_median_ci([5.0]) == (5.0, 5.0)


def test_summary_literal():
    s = dist([1.0, 2.0, 3.0, 4.0])
    assert s.mean == 2.5
    assert s.median == 2.5
    assert s.min == 1.0 and s.max == 4.0
    assert s.p90 == pytest.approx(3.7)
    assert s.ci95 is None


def test_dist_ci_is_the_seeded_bootstrap_of_the_median():
    xs = [float(x) for x in range(100, 150)]
    assert dist(xs, ci=True, seed=3).ci95 == bootstrap_median_ci(xs, seed=3)
    assert dist([], ci=True).ci95 is None


def test_speedup_and_score_match_published_example():
    # A published official result: medians 345 / 881 / 2684 ms give 5.37.
    baselines = [2582.0, 5441.0, 6576.0]
    medians = [345.0, 881.0, 2684.0]
    sp = [speedup(b, m) for b, m in zip(baselines, medians, strict=True)]
    assert mean_speedup(sp) == pytest.approx(5.37, abs=0.005)


def test_speedup_edge_cases():
    assert speedup(100.0, None) is None
    assert speedup(100.0, 0.0) is None
    assert mean_speedup([]) is None
    assert mean_speedup([2.0, None]) is None
    assert mean_speedup([1.0, 3.0]) == 2.0


def test_bootstrap_ci_brackets_median_and_is_deterministic():
    xs = [float(x) for x in range(100, 150)]
    lo, hi = bootstrap_median_ci(xs, seed=1)
    assert lo <= median(xs) <= hi
    assert bootstrap_median_ci(xs, seed=1) == (lo, hi)
    constant = bootstrap_median_ci([3.0] * 10)
    assert constant == (3.0, 3.0)


def test_score_ci():
    ci = bootstrap_score_ci([[100.0] * 5, [200.0] * 5], [200.0, 200.0])
    assert ci == pytest.approx((1.5, 1.5))
    assert bootstrap_score_ci([[1.0], []], [1.0, 1.0]) is None


def test_wilson_interval():
    assert wilson_interval(0, 0) is None
    lo, hi = wilson_interval(0, 40)  # type: ignore[misc]
    assert lo == 0.0 and hi == pytest.approx(0.0876, abs=1e-4)  # 1.96² / (40 + 1.96²)
    lo, hi = wilson_interval(40, 40)  # type: ignore[misc]
    assert lo == pytest.approx(1 - 0.0876, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(1, 1)  # type: ignore[misc]
    assert lo == pytest.approx(0.2065, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(2, 40)  # type: ignore[misc]
    assert lo == pytest.approx(0.0138, abs=1e-4) and hi == pytest.approx(0.1650, abs=1e-4)
    lo, hi = wilson_interval(50, 100)  # type: ignore[misc]
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)


def test_binomial_stderr():
    assert binomial_stderr(0.5, 100) == pytest.approx(0.05)
    assert binomial_stderr(0.5, 0) is None


def test_dist_records_what_each_percentile_can_claim() -> None:
    from harness.view import fmt

    small = dist([float(i) for i in range(50)])
    assert small.p99 is not None and small.tails is not None
    p99 = small.tail("p99")
    assert p99 is not None and not p99.sufficient and p99.min_samples == 662
    assert fmt.tail(small.p99, p99) == "48.5, not enough samples (50 of 662 needed)"
    big = dist([float(i) for i in range(2048)])
    p90 = big.tail("p90")
    assert p90 is not None and p90.estimate == 1875.0 and p90.discarded == 172
    assert fmt.tail(big.p90, p90) == "1,842 (≤ 1,875 at 99%)"
    # JSON keeps the empirical value where old readers look, the claim beside it
    data = json.loads(big.model_dump_json())
    assert data["p90"] == big.p90 and data["tails"]["p90"]["estimate"] == 1875.0
    assert set(data["tails"]["p99"]) >= {"estimate", "sufficient", "min_samples"}
    assert Dist.model_validate(data) == big


def test_a_dist_written_before_claims_knows_its_floor_only() -> None:
    from harness.view import fmt

    old = Dist.model_validate({"n": 50, "p99": 9.0})
    claim = old.tail("p99")
    assert claim is not None and not claim.recorded and not claim.sufficient
    assert fmt.tail(old.p99, claim) == "9.0, not enough samples (50 of 662 needed)"
    many = Dist.model_validate({"n": 5000, "p99": 9.0})
    assert fmt.tail(many.p99, many.tail("p99")) == "9.0 (estimate not recorded)"
    assert Dist().tail("p99") is None
