"""Latency A/B from literal per-request rows: verdicts, noise bands, comparability."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.compare.core import check
from harness.latency.compare import bucket_diff, compare_latency, latency_differences
from harness.latency.metrics import bucket_result
from harness.latency.repeats import summarize_repeats
from harness.latency.report import LatencyReport, RequestRow
from harness.paired.side import RunData
from harness.profiles import Bucket
from harness.provenance import Provenance

SHORT = Bucket(name="short", prompt_tokens=64, max_tokens=128, baseline_ms=2582.0)


def rows(
    e2e: list[float], mode: str = "official", ttft: list[float] | None = None
) -> list[RequestRow]:
    return [
        RequestRow(
            bucket="short",
            mode=mode,  # type: ignore[arg-type]
            phase="timed",
            index=i,
            ok=True,
            e2e_ms=v,
            ttft_ms=ttft[i] if ttft else None,
            prompt_tokens=61,
        )
        for i, v in enumerate(e2e)
    ]


def report(e2e: list[float], *, max_tokens: int = 128, seed: int = 0) -> LatencyReport:
    bucket = SHORT.model_copy(update={"max_tokens": max_tokens})
    rs = rows(e2e)
    res = bucket_result(bucket, rs, mode="official", endpoint="/invocations")
    return LatencyReport(
        mode="official",
        official=[res],
        score=res.speedup,
        requests=rs,
        settings={"runs": len(e2e), "concurrency": 1, "force_length": False},
        provenance=Provenance(profile="efficient-qwen", seed=seed),
    )


A = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 100.1, 99.9, 100.3, 99.7]
SLOWER = [x + 10 for x in A]


def test_bucket_diff_slower_and_faster():
    d = bucket_diff(A, SLOWER, mode="official", bucket="short", metric="e2e", min_effect_pct=1.0)
    assert d.verdict == "slower"
    assert d.diff_ms == pytest.approx(10.0)
    assert d.diff_pct == pytest.approx(10.0 / 100.05 * 100)
    assert d.ci95_ms is not None and d.ci95_ms[0] > 0
    d2 = bucket_diff(SLOWER, A, mode="official", bucket="short", metric="e2e", min_effect_pct=1.0)
    assert d2.verdict == "faster"


def test_bucket_diff_below_min_effect_is_within_noise():
    b = [x + 0.5 for x in A]  # 0.5 % of A: a real but negligible shift
    d = bucket_diff(A, b, mode="official", bucket="short", metric="e2e", min_effect_pct=1.0)
    assert d.verdict == "within noise"
    assert d.noise_ms == pytest.approx(1.0005)
    assert d.noise_source == "min-effect 1 %"


def test_bucket_diff_between_run_spread_is_the_band():
    d = bucket_diff(
        A,
        SLOWER,
        mode="official",
        bucket="short",
        metric="e2e",
        min_effect_pct=1.0,
        spread_ms=12.0,
        spread_src="between-run range of 3 repeats",
    )
    assert d.verdict == "within noise"
    assert d.noise_ms == 12.0 and "3 repeats" in d.noise_source


def test_bucket_diff_empty_and_single():
    d = bucket_diff([], A, mode="official", bucket="short", metric="e2e", min_effect_pct=1.0)
    assert d.verdict == "no data" and d.diff_ms is None and d.n_a == 0
    # one request a side: a CI of zero width, but no way to tell how much a run drifts
    d1 = bucket_diff(
        [100.0], [110.0], mode="official", bucket="short", metric="e2e", min_effect_pct=1.0
    )
    assert d1.ci95_ms == (10.0, 10.0) and d1.verdict == "inconclusive"
    assert (
        d1.noise_source
        == "one timed request: no estimate of the runs' drift (needs --runs 2 or more, or --repeats)"
    )
    # ... unless repeats measured the between-run spread
    d2 = bucket_diff(
        [100.0],
        [110.0],
        mode="official",
        bucket="short",
        metric="e2e",
        min_effect_pct=1.0,
        spread_ms=2.0,
        spread_src="between-run range of 2 repeats",
    )
    assert d2.verdict == "slower" and d2.noise_ms == 2.0


def test_bucket_diff_run_drift_is_the_band():
    # A's requests slowed down over the run: block medians 100, 100, 110, 110
    drifting = [100.0, 100.0, 100.0, 100.0, 110.0, 110.0, 110.0, 110.0]
    b = [x + 8 for x in [100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0]]
    d = bucket_diff(drifting, b, mode="official", bucket="short", metric="e2e", min_effect_pct=1.0)
    sd = 1.4826 * 5  # robust SD: deviations from 105 all 5; B does not drift: Welch df 3
    assert d.noise_ms == pytest.approx(3.182 * sd)
    assert d.noise_source == "drift within runs (4/4 blocks)"
    assert d.diff_ms == pytest.approx(3.0) and d.verdict == "within noise"


def test_bucket_diff_spread_of_the_requests_is_the_band():
    # steady blocks (every block's median is 100) but requests spread ±5 ms: a loaded run.
    # A shift of 6 ms is within the requests' own spread, sqrt(2) × 1.4826 × 5
    a = [95.0, 105.0] * 4
    b = [x + 6 for x in a]
    d = bucket_diff(a, b, mode="official", bucket="short", metric="e2e", min_effect_pct=1.0)
    assert d.noise_ms == pytest.approx(2**0.5 * 1.4826 * 5)
    assert d.noise_source == "spread of the runs' requests"
    assert d.verdict == "within noise"


def test_compare_latency_score_and_repeats_band():
    a, b = report(A), report(SLOWER)
    diffs, scores = compare_latency(a, b)
    assert [(d.mode, d.bucket, d.metric, d.verdict) for d in diffs] == [
        ("official", "short", "e2e", "slower")
    ]
    (score,) = scores
    assert score.verdict == "lower"
    assert score.diff == pytest.approx(2582.0 / 110.05 - 2582.0 / 100.05)
    # repeats whose medians moved by 15 ms: the 10 ms difference is within that noise
    reps = summarize_repeats([report(A), report([x + 15 for x in A])])
    diffs, scores = compare_latency(a, b, repeats_a=reps)
    assert diffs[0].verdict == "within noise"
    assert diffs[0].noise_ms == pytest.approx(15.0)


def test_comparable_refuses_other_max_tokens_and_notes_runs(tmp_path: Path):
    diffs, notes = latency_differences(report(A), report(A, max_tokens=64))
    assert diffs == ["official short max_tokens: A 128, B 64"]
    diffs, notes = latency_differences(report(A), report(A[:5]))
    assert diffs == [] and notes == ["timed runs per bucket: A 10, B 5"]


def test_comparable_profile_and_kinds(tmp_path: Path):
    a = RunData.of(tmp_path, report(A))
    other = report(A)
    other.provenance.profile = "gpumode-paris"
    c = check(a, RunData.of(tmp_path, other))
    assert not c.ok and "profile: A 'efficient-qwen', B 'gpumode-paris'" in c.reason()
    c2 = check(RunData(folder=tmp_path), RunData(folder=tmp_path))
    assert not c2.ok and "share no report" in c2.reason()


def test_partial_report_is_a_note(tmp_path: Path):
    partial = report(A)
    partial.complete = False
    c = check(RunData.of(tmp_path, report(A)), RunData.of(tmp_path, partial))
    assert c.ok and c.notes == ["latency: B's report is partial (the run was interrupted)"]
