"""Throughput A/B (Paris) from literal levels and request rows."""

from __future__ import annotations

import pytest

from harness.compare.comparable import throughput_differences
from harness.compare.throughput import compare_throughput
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


def report(
    tok_s: dict[int, float], weights: dict[int, float], **settings: object
) -> ThroughputReport:
    reqs = [
        RequestRow(
            level=c,
            phase="timed",
            index=i,
            kind="random",
            ok=True,
            prompt_tokens=10,
            output_tokens=10,
            e2e_ms=1000.0,
        )
        for c in tok_s
        for i in range(2)
    ]
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
