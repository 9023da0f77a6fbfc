"""The between-run spread of repeated latency runs (pure), and pooling their rows."""

from __future__ import annotations

import pytest

from harness.latency.repeats import pool_states, run_repeats, spread, summarize_repeats
from harness.latency.report import BucketResult, Dist, LatencyReport, RequestRow
from harness.latency.runner import LatencyState


def test_spread_literal():
    s = spread([10.0, 12.0, 14.0])
    assert (s.n, s.mean, s.sd, s.range) == (3, 12.0, 2.0, 4.0)


def test_spread_empty_and_single():
    assert spread([]).mean is None and spread([]).sd is None
    one = spread([5.0])
    assert (one.n, one.mean, one.sd, one.range) == (1, 5.0, 0.0, 0.0)


def _rep(median: float | None, score: float | None, ttft: float | None = None) -> LatencyReport:
    b = BucketResult(
        name="short",
        mode="official",
        endpoint="/invocations",
        prompt_tokens_nominal=64,
        prompt_tokens=61,
        max_tokens=128,
        baseline_ms=100.0,
        n_ok=1,
        n_failed=0,
        median_ms=median,
        median_ci95=(median, median) if median else None,
        speedup=None,
        ttft=Dist(n=1, median=ttft) if ttft is not None else None,
    )
    return LatencyReport(mode="official", official=[b], score=score)


def test_summarize_repeats():
    s = summarize_repeats([_rep(10.0, 1.0), _rep(14.0, 2.0)], ["repeat-1", "repeat-2"])
    (b,) = s.buckets
    assert b.medians_ms == [10.0, 14.0] and b.range_ms == 4.0
    assert b.sd_ms == pytest.approx(2.8284271)
    assert s.scores == [1.0, 2.0] and s.score_range == 1.0
    assert s.repeats == 2 and s.folders == ["repeat-1", "repeat-2"]
    assert s.bucket("official", "short") is b and s.bucket("strict", "short") is None


def test_summarize_repeats_ttft():
    s = summarize_repeats([_rep(10.0, 1.0, ttft=3.0), _rep(14.0, 2.0, ttft=4.5)])
    assert s.buckets[0].ttft_medians_ms == [3.0, 4.5] and s.buckets[0].ttft_range_ms == 1.5
    assert summarize_repeats([_rep(10.0, 1.0)]).buckets[0].ttft_medians_ms == []


def test_summarize_repeats_missing_values():
    s = summarize_repeats([_rep(None, None), _rep(12.0, None)])
    assert s.buckets[0].medians_ms == [None, 12.0] and s.buckets[0].range_ms == 0.0
    assert s.score_range is None
    assert summarize_repeats([]).repeats == 0


def test_run_repeats_in_order():
    assert run_repeats(3, lambda i: i * 10) == [10, 20, 30]


def test_pool_states_renumbers_rows():
    def st(n: int) -> LatencyState:
        s = LatencyState(server_models=["m"], readiness_s=1.0)
        s.rows = [
            RequestRow(bucket="short", mode="strict", phase="timed", index=i, ok=True)
            for i in range(n)
        ]
        s.itls = {("strict", "short"): [1.0] * n}
        return s

    pooled = pool_states([st(2), st(3)])
    assert [r.index for r in pooled.rows] == [0, 1, 2, 3, 4]
    assert pooled.itls[("strict", "short")] == [1.0] * 5
    assert pooled.server_models == ["m"] and pooled.readiness_s == 1.0
