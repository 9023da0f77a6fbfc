"""Throughput A/B (Paris) from literal levels and request rows."""

from __future__ import annotations

import json

import pytest

from harness.compare.model import CompareReport
from harness.throughput.compare import (
    ThroughputSection,
    compare_throughput,
    throughput_differences,
)
from harness.throughput.report import LevelResult, RequestRow, ThroughputReport


def level(conc: int, tok_s: float | None, weight: float) -> LevelResult:
    return LevelResult(
        concurrency=conc,
        weight=weight,
        n_requests=2,
        n_ok=2,
        n_failed=0,
        wall_s=1.0,
        prompt_tokens=20,
        output_tokens=20,
        server_output_tokens=20,
        tok_s=tok_s,
        output_tok_s=None,
        weighted=None,
        usage_mismatches=0,
        usage_missing=0,
        think_tags=0,
    )


def row(
    c: int, i: int, kind: str = "random", e2e_ms: float = 1000.0, tokens: int = 10
) -> RequestRow:
    return RequestRow(
        level=c,
        phase="timed",
        index=i,
        kind=kind,  # type: ignore[arg-type]
        ok=True,
        prompt_tokens=tokens,
        output_tokens=10,
        e2e_ms=e2e_ms,
        start_ms=float(i),
    )


def report(
    tok_s: dict[int, float], weights: dict[int, float], *, waves: int = 2, **settings: object
) -> ThroughputReport:
    """Identical requests, ``waves`` waves of ``concurrency`` requests per level."""
    reqs = [row(c, i) for c in tok_s for i in range(waves * c)]
    return ThroughputReport(
        url="u",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        official=True,
        levels=[level(c, v, weights[c]) for c, v in tok_s.items()],
        score=sum(weights[c] * v for c, v in tok_s.items()),
        requests=reqs,
        settings={"levels": list(tok_s), **settings},
    )


def test_levels_and_weighted_score():
    w = {1: 0.5, 2: 0.5}
    a = report({1: 100.0, 2: 200.0}, w)
    b = report({1: 100.5, 2: 300.0}, w)
    levels, score = compare_throughput(a, b)
    assert [(x.concurrency, x.diff, x.verdict) for x in levels] == [
        (1, 0.5, "within noise"),  # 0.5 % < the 1 % minimum effect
        (2, 100.0, "higher"),
    ]
    assert levels[1].ci95 == pytest.approx((100.0, 100.0))  # identical requests: no spread
    assert score.diff == pytest.approx(50.25) and score.verdict == "higher"
    assert score.ci95 == pytest.approx((50.25, 50.25))
    # identical requests: no drift, so the band is the minimum effect
    assert levels[1].noise == pytest.approx(4.0) and levels[1].noise_source == "min-effect 2 %"


def test_one_wave_level_is_inconclusive_and_so_is_the_score():
    w = {1: 0.5, 2: 0.5}
    a = report({1: 100.0, 2: 200.0}, w, waves=1)
    b = report({1: 150.0, 2: 300.0}, w, waves=1)
    levels, score = compare_throughput(a, b)
    # level 1 with one request, level 2 with two requests at once: one wave each
    assert [x.verdict for x in levels] == ["inconclusive", "inconclusive"]
    assert "one wave" in levels[0].noise_source
    assert score.verdict == "inconclusive" and "one wave" in score.noise_source


def test_drift_of_b_against_a_is_the_band():
    # A's two waves ran at 10 and 5 tokens per request-second, B's at the same speed:
    # relative blocks 4/3, 2/3 against 1, 1 → differences -1/3, 1/3
    a = report({1: 100.0}, {1: 1.0})
    a.requests = [row(1, 0, e2e_ms=2000.0), row(1, 1, e2e_ms=4000.0)]
    b = report({1: 130.0}, {1: 1.0})
    levels, _ = compare_throughput(a, b)
    sd = (2 / 3) / 2**0.5
    # two blocks, df 1: t 12.706, as a share of A's tok/s
    assert levels[0].noise == pytest.approx(12.706 * 100.0 * sd)
    assert levels[0].noise_source == "drift of B against A (2 blocks of waves)"
    assert levels[0].verdict == "within noise"


def test_a_shape_both_runs_share_is_no_drift():
    # both runs' first half is twice as slow as the second (a closed loop's ramp): it cancels
    a = report({1: 100.0}, {1: 1.0})
    b = report({1: 200.0}, {1: 1.0})
    for rep in (a, b):
        rep.requests = [row(1, i, e2e_ms=2000.0 if i < 4 else 1000.0) for i in range(8)]
    levels, _ = compare_throughput(a, b)
    assert levels[0].noise == pytest.approx(2.0) and levels[0].noise_source == "min-effect 2 %"
    assert levels[0].verdict == "higher"


def test_spot_checks_stay_out_of_the_ci():
    # 8 requests, 2 of them spot checks with a short prompt: the CI comes from the 6 others
    a = report({4: 100.0}, {4: 1.0})
    b = report({4: 120.0}, {4: 1.0})
    for rep in (a, b):
        rep.requests[1] = row(4, 1, kind="spot", tokens=1)
        rep.requests[6] = row(4, 6, kind="spot", tokens=1)
    levels, _ = compare_throughput(a, b)
    assert levels[0].ci95 == pytest.approx((20.0, 20.0))
    assert levels[0].verdict == "higher"


def test_missing_level_value():
    a = report({1: 100.0}, {1: 1.0})
    b = report({1: 100.0}, {1: 1.0})
    b.levels[0].tok_s = None
    b.score = None
    levels, score = compare_throughput(a, b)
    assert levels[0].verdict == "no data" and score.verdict == "no data"


def test_throughput_differences():
    a = report({1: 1.0}, {1: 1.0}, max_tokens=1024)
    b = report({1: 1.0}, {1: 1.0}, max_tokens=512)
    assert throughput_differences(a, b) == ["throughput max_tokens: A 1024, B 512"]


def test_schema_1_compare_json_is_migrated():
    v1 = {
        "schema_version": 1,
        "kind": "compare",
        "run_a": "a",
        "run_b": "b",
        "profile": "gpumode-paris",
        "throughput": [
            {
                "concurrency": 1,
                "tok_s_a": 100.0,
                "tok_s_b": 120.0,
                "diff": 20.0,
                "diff_pct": 20.0,
                "ci95": [15.0, 25.0],
                "verdict": "higher",
            }
        ],
    }
    rep = CompareReport.from_json(json.dumps(v1))
    assert rep.schema_version == 4
    assert rep.manifest is None  # written before compare recorded what ran
    # schema 4: the top-level per-kind keys became that kind's section
    tp = rep.section(ThroughputSection)
    assert tp is not None and list(rep.sections) == ["throughput"] and tp.score is None
    assert tp.levels[0].noise == 0.0 and tp.levels[0].noise_source == ""
    assert tp.levels[0].verdict == "higher"
