"""The confidence sequence for a quantile (harness/stats/quantile_sequence.py) and
``--until-ci-at``, on literal numbers."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.latency.report import RequestRow
from harness.latency.until_ci import QUANTILE_RULE, Stopper, until_ci_record
from harness.stats.median_sequence import boundary
from harness.stats.quantile_sequence import (
    fixed_ranks,
    miss_probability,
    quantile_boundary,
    quantile_look,
)


def test_the_median_is_the_case_one_half() -> None:
    b, m = quantile_boundary(50, 0.5), boundary(50)
    assert b.miss == pytest.approx(m.miss)
    for n in range(10, 51):
        lo, hi = b.interval_ranks(n)
        assert lo == m.rank(n) and (lo == 0 or hi == n + 1 - lo)


def test_fixed_ranks_of_a_p90() -> None:
    # 50 samples: [X(41), X(50)] holds the p90 with >= 95 %; no upper rank for a p99
    assert fixed_ranks(50, 0.9, 0.05) == (41, 50)
    assert fixed_ranks(50, 0.99, 0.05) == (0, 0)
    assert fixed_ranks(0, 0.9, 0.05) == (0, 0)


def test_miss_probability_equals_brute_force_for_a_biased_walk() -> None:
    q, cap = 0.8, 12
    ranks = {10: (6, 10), 11: (7, 11), 12: (7, 12)}
    missed = 0.0
    for steps in itertools.product((0, 1), repeat=cap):
        p = 1.0
        for s in steps:
            p *= q if s else 1 - q
        for n, (lo, hi) in ranks.items():
            s_n = sum(steps[:n])
            if s_n < lo or s_n >= hi:
                missed += p
                break
    assert miss_probability(ranks, cap, q) == pytest.approx(missed)


def test_tails_need_many_runs_for_a_first_interval() -> None:
    p90 = quantile_boundary(50, 0.9)
    assert p90.first == 37 and p90.miss <= 0.045
    assert quantile_boundary(50, 0.95).first is None  # a p95 cannot stop within 50 runs
    assert quantile_boundary(200, 0.99).first is None  # nor a p99 within 200
    p99 = quantile_boundary(1000, 0.99)
    assert p99.first == 461 and p99.miss <= 0.045


def test_a_look_at_the_p90() -> None:
    b = quantile_boundary(50, 0.9)
    xs = [float(100 + i) for i in range(40)]
    lk = quantile_look(xs, b, 5.0)
    lo, hi = b.interval_ranks(40)
    assert (lk.lo, lk.hi) == (100.0 + lo - 1, 100.0 + hi - 1)
    assert lk.value == pytest.approx(135.1) and lk.narrow
    assert quantile_look(xs[:30], b, 5.0).lo is None  # before the first interval


def _rows(values: list[float]) -> list[RequestRow]:
    return [
        RequestRow(bucket="short", mode="official", phase="timed", index=i, ok=True, e2e_ms=v)
        for i, v in enumerate(values)
    ]


def test_until_ci_at_a_percentile_stops_and_says_so() -> None:
    values = [float(100 + i % 10) for i in range(50)]
    stop = Stopper(10.0, 50, "p90")
    narrow_at = next(n for n, v in enumerate(values, 1) if stop.add(True, v).narrow)
    assert narrow_at == 37
    rec = until_ci_record(_rows(values[:narrow_at]), 10.0, 50, "p90")
    assert rec.at == "p90" and rec.rule == QUANTILE_RULE and rec.stopped == "narrow"
    assert rec.why == (
        "stopped after 37 of 50 runs: p90 108 ms, 95 % interval 107–109 ms (−0.93 % / +0.93 %), "
        "within ±10 %"
    )
    assert until_ci_record(_rows(values), 1.0, 50).at == "median"


def test_a_percentile_that_cannot_stop_is_refused(tmp_path: Path) -> None:
    from harness.latency.config import LatencyOverrides, from_profile
    from harness.profiles import load_profile
    from harness.target import Target

    profile = load_profile("efficient-qwen")
    target = Target(folder=tmp_path, url="http://127.0.0.1:1")
    ok = from_profile(profile, target, LatencyOverrides(until_ci=5.0, until_ci_at="p90"))
    assert ok.until_ci_at == "p90"
    with pytest.raises(ConfigError) as err:
        from_profile(profile, target, LatencyOverrides(until_ci=5.0, until_ci_at="p99"))
    assert "no 95 % interval of a p99 exists within 50 runs" in str(err.value)
    assert "a p99 at 461" in str(err.value)
    with pytest.raises(ConfigError, match="--until-ci is off"):
        from_profile(profile, target, LatencyOverrides(until_ci_at="p90"))
