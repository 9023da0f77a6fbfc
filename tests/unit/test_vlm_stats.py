"""Official means, the score and its terms, bootstrap CIs: literal numbers, empty and single cases."""

from __future__ import annotations

import pytest

from harness.stats.summary import dist
from harness.vlm.stats import (
    bootstrap_means,
    official_mean_ms,
    official_mean_rate,
    score_terms,
    slope,
    total_rate,
)

W = (0.4, 0.3, 0.3)


def test_official_means_round_like_the_script() -> None:
    assert official_mean_ms([0.0201, 0.0302]) == round((0.0201 + 0.0302) / 2 * 1000, 2) == 25.15
    assert official_mean_ms([]) is None
    assert official_mean_rate([100.0, 50.0, 33.333]) == 61.11
    assert official_mean_rate([]) == 0.0


def test_score_terms_at_and_off_the_baselines() -> None:
    t = score_terms(0.5, 80.0, 55.0, baseline_ttft_ms=80, baseline_tok_s=55, weights=W)
    assert (t.accuracy_term, t.ttft_term, t.throughput_term) == (0.2, 0.0, 0.0)
    assert t.score == pytest.approx(0.2)
    t = score_terms(1.0, 40.0, 110.0, baseline_ttft_ms=80, baseline_tok_s=55, weights=W)
    assert t.score == pytest.approx(0.4 + 0.15 + 0.3)
    # the throughput term has no upper bound
    t = score_terms(0.0, 80.0, 550.0, baseline_ttft_ms=80, baseline_tok_s=55, weights=W)
    assert t.throughput_term == pytest.approx(2.7)
    assert (
        score_terms(None, 80.0, 55.0, baseline_ttft_ms=80, baseline_tok_s=55, weights=W).score
        is None
    )


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    ttft = [20.0, 22.0, 25.0, 30.0, 21.0]
    rate = [200.0, 190.0, 180.0, 150.0, 210.0]
    a = bootstrap_means(
        ttft, rate, [1, 0, 1, 0, 1], baseline_ttft_ms=80, baseline_tok_s=55, weights=W
    )
    b = bootstrap_means(
        ttft, rate, [1, 0, 1, 0, 1], baseline_ttft_ms=80, baseline_tok_s=55, weights=W
    )
    assert a == b
    assert a["ttft_ms"].low <= sum(ttft) / 5 <= a["ttft_ms"].high
    assert a["tok_s"].low <= sum(rate) / 5 <= a["tok_s"].high
    assert "score" in a
    assert bootstrap_means([1.0], [1.0], baseline_ttft_ms=80, baseline_tok_s=55, weights=W) == {}


def test_distribution_rate_and_slope() -> None:
    d = dist([1.0, 2.0, 3.0])
    assert (d.n, d.mean, d.p50, d.min, d.max) == (3, 2.0, 2.0, 1.0, 3.0)
    assert dist([]).mean is None
    assert total_rate([128, 128], [1.0, 3.0]) == 64.0
    assert total_rate([], []) is None
    assert slope([100, 200, 300], [10.0, 20.0, 30.0]) == pytest.approx(0.1)
    assert slope([100, 100], [1.0, 2.0]) is None
