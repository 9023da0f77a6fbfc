"""Pure scoring of the throughput sweep, with literal numbers."""

from pathlib import Path

import pytest

from harness.provenance import Provenance
from harness.throughput.report import LevelResult, RequestRow, ThroughputReport
from harness.throughput.scoring import (
    first_wave_ms,
    score_from_levels,
    summarize_level,
    tok_per_s,
    wall_seconds,
    weighted_score,
)

PARIS_WEIGHTS = {1: 1.0, 2: 1.0, 4: 2.0, 8: 2.0, 16: 4.0, 32: 4.0, 64: 8.0}
# The reference vLLM run's tok/s per level (docs/throughput.md, "Reference run").
REFERENCE = {1: 984.0, 2: 1753.0, 4: 3038.0, 8: 4749.0, 16: 6446.0, 32: 11144.0, 64: 12810.0}


def test_weighted_score_of_the_reference_run():
    # 984 + 1753 + 2*3038 + 2*4749 + 4*6446 + 4*11144 + 8*12810
    assert weighted_score(REFERENCE, PARIS_WEIGHTS) == pytest.approx(191_151.0)


def test_weighted_score_single_level_empty_and_missing():
    assert weighted_score({64: 100.0}, PARIS_WEIGHTS) == pytest.approx(800.0)
    assert weighted_score({}, PARIS_WEIGHTS) is None
    assert weighted_score({1: 10.0, 2: None}, PARIS_WEIGHTS) is None


def test_tok_per_s():
    assert tok_per_s(2048, 2.0) == pytest.approx(1024.0)
    assert tok_per_s(0, 1.0) == 0.0
    assert tok_per_s(10, 0.0) is None
    assert tok_per_s(10, None) is None


def row(index, start, end, *, out=10, server=None, ok=True, phase="timed", kind="random", **kw):
    return RequestRow(
        level=2,
        phase=phase,
        index=index,
        kind=kind,
        ok=ok,
        prompt_tokens=100,
        output_tokens=out if ok else None,
        server_output_tokens=out if server is None else server,
        e2e_ms=end - start,
        start_ms=start,
        end_ms=end,
        dispatch_lag_ms=kw.pop("lag", 0.0),
        **kw,
    )


def level_rows():
    return [
        row(0, -500.0, -100.0, phase="warmup", out=999),  # ignored
        row(0, 0.0, 1000.0, out=20, lag=1.0),
        row(1, 0.5, 1500.0, out=30, server=40, lag=2.5),  # usage 10 above: unsettled
        row(2, 1000.0, 2000.0, out=10, lag=0.2),
        row(
            3,
            1500.0,
            2500.0,
            kind="spot",
            out=5,
            spot_question="What is 2 + 3?",
            spot_expected=5,
            spot_passed=True,
            lag=0.4,
        ),
        row(4, 2000.0, 2500.0, ok=False, error_kind="timeout", lag=0.1),
    ]


def test_summarize_level_counts_verified_tokens_over_wall_time():
    lv = summarize_level(level_rows(), concurrency=2, weight=1.0, tolerance=4, client_cpu_s=0.5)
    assert lv.n_requests == 5 and lv.n_ok == 4 and lv.n_failed == 1
    assert lv.wall_s == pytest.approx(2.5)  # 0 ms → 2500 ms, the failed request included
    assert lv.prompt_tokens == 400
    assert lv.output_tokens == 65
    assert lv.tok_s == pytest.approx(465 / 2.5)
    assert lv.output_tok_s == pytest.approx(65 / 2.5)
    assert lv.weighted == pytest.approx(465 / 2.5)
    # the one usage rule (harness/usage.py): usage above the text is unsettled, not a mismatch
    assert lv.usage_mismatches == 0 and lv.usage_unsettled == 1
    assert lv.server_output_tokens == 75
    assert lv.spot_checks[0].question == "What is 2 + 3?" and lv.spot_passed
    assert lv.first_wave_ms == pytest.approx(0.5)
    assert lv.dispatch_lag_ms.max == pytest.approx(2.5)
    assert lv.dispatch_lag_steady_ms.max == pytest.approx(0.4)  # indices >= 2
    assert lv.concurrency_max == 2
    assert lv.e2e_ms.p50 == pytest.approx(1000.0)
    assert lv.client_cpu_s == 0.5 and lv.client_busy == pytest.approx(0.2)


def test_summarize_level_without_rows():
    lv = summarize_level([], concurrency=4, weight=2.0, tolerance=0)
    assert lv.n_requests == 0 and lv.tok_s is None and lv.weighted is None
    assert lv.e2e_ms.n == 0 and lv.first_wave_ms is None and lv.client_busy is None


def test_wall_and_first_wave_helpers():
    rows = level_rows()[1:]
    assert wall_seconds(rows) == pytest.approx(2.5)
    assert wall_seconds([]) is None
    assert first_wave_ms(rows, 1) == 0.0


def test_score_recomputed_from_a_saved_report(tmp_path: Path):
    levels = [
        LevelResult(
            concurrency=c,
            weight=w,
            n_requests=66,
            n_ok=66,
            n_failed=0,
            wall_s=t,
            prompt_tokens=0,
            output_tokens=0,
            server_output_tokens=0,
            tok_s=r,
            output_tok_s=None,
            weighted=w * r,
            usage_mismatches=0,
            usage_missing=0,
            think_tags=0,
        )
        for c, w, t, r in ((1, 1.0, 86.1, 984.0), (4, 2.0, 27.3, 3038.0), (64, 8.0, 6.5, 12810.0))
    ]
    rep = ThroughputReport(
        provenance=Provenance(profile="gpumode-paris"),
        url="http://127.0.0.1:1",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        official=False,
        levels=levels,
        score=score_from_levels(levels),
    )
    rep.save(tmp_path)
    back = ThroughputReport.load(tmp_path)
    assert back.score == pytest.approx(984.0 + 2 * 3038.0 + 8 * 12810.0)
    assert score_from_levels(back.levels) == pytest.approx(back.score)
