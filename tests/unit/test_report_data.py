"""Realistic run folders for the report tests, and checks that they are what the commands write.

The latency report is built with the real ``LatencyReport`` class; quality.json and
gate.json are literal JSON in the shape their commands write (docs/report.md lists
the keys ``harness report`` reads).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.latency.report import BucketResult, Dist, LatencyReport, RequestRow
from harness.latency.views import samples as latency_samples
from harness.provenance import Provenance
from harness.report.folder import read_run
from harness.risk import RiskFlag, flag_from_text

BASELINES = {"short": 2582.0, "medium": 5441.0, "long": 6576.0}
URL = "http://127.0.0.1:8080"
MODELS = ["Qwen/Qwen3.5-4B", "qwen"]


def write_latency(
    folder: Path,
    medians: dict[str, float],
    *,
    started_at: str,
    mode: str = "official",
    flags: tuple[str, ...] = (),
    spread: float = 0.05,
    n: int = 9,
    complete: bool = True,
) -> LatencyReport:
    """Timed E2E samples around each median (odd ``n``: the median is exactly ``medians[b]``)."""
    buckets: list[BucketResult] = []
    rows: list[RequestRow] = []
    speedups: list[float] = []
    for name, med in medians.items():
        half = n // 2
        xs = [med * (1 + spread * (i - half) / max(half, 1)) for i in range(n)]
        for i, x in enumerate(xs):
            rows.append(
                RequestRow(
                    bucket=name,
                    mode=mode,
                    phase="timed",
                    index=i,
                    ok=True,
                    e2e_ms=x,  # type: ignore[arg-type]
                    output_tokens=128,
                )
            )
        rows.append(
            RequestRow(bucket=name, mode=mode, phase="warmup", index=0, ok=True, e2e_ms=med * 3)  # type: ignore[arg-type]
        )
        speedup = BASELINES[name] / med
        speedups.append(speedup)
        buckets.append(
            BucketResult(
                name=name,
                mode=mode,  # type: ignore[arg-type]
                endpoint="/invocations",
                prompt_tokens_nominal=64,
                prompt_tokens=64,
                max_tokens=128,
                baseline_ms=BASELINES[name],
                n_ok=n,
                n_failed=0,
                median_ms=med,
                speedup=speedup,
                e2e=Dist(n=n, median=med),
            )
        )
    report = LatencyReport(
        mode=mode,  # type: ignore[arg-type]
        complete=complete,
        provenance=Provenance(
            profile="efficient-qwen", url=URL, server_models=MODELS, started_at=started_at
        ),
        official=buckets if mode == "official" else [],
        strict=buckets if mode == "strict" else [],
        score=sum(speedups) / len(speedups),
        score_ci95=(0.9 * sum(speedups) / len(speedups), 1.1 * sum(speedups) / len(speedups)),
        flags=[RiskFlag.model_validate(flag_from_text(f, "latency")) for f in flags],
        requests=rows,
    )
    report.save(folder)
    return report


def write_quality(
    folder: Path, scores: dict[str, tuple[float, float, int]], *, started_at: str
) -> None:
    """``scores``: benchmark name → (score, threshold, n)."""
    titles = {"mmlu_pro": "MMLU-Pro", "ifeval": "IFEval", "gpqa_diamond": "GPQA-Diamond"}
    data: dict[str, Any] = {
        "kind": "quality",
        "schema_version": 1,
        "complete": True,
        "provenance": {"profile": "efficient-qwen", "url": URL, "started_at": started_at},
        "url": URL,
        "model": "Qwen/Qwen3.5-4B",
        "limit": 0.1,
        "benchmarks": [
            {
                "name": name,
                "title": titles.get(name, name),
                "task": name,
                "metric": "exact_match,custom-extract",
                "threshold": threshold,
                "score": score,
                "passed": score >= threshold,
                "n": n,
            }
            for name, (score, threshold, n) in scores.items()
        ],
    }
    data["passed"] = all(b["passed"] for b in data["benchmarks"])
    (folder / "quality.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def write_gate(
    folder: Path, verdict: str, *, reasons: tuple[str, ...] = (), flags: tuple[str, ...] = ()
) -> None:
    data = {
        "kind": "gate",
        "schema_version": 1,
        "complete": True,
        "provenance": {"profile": "efficient-qwen"},
        "verdict": verdict,
        "reasons": list(reasons),
        "flags": list(flags),
    }
    (folder / "gate.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def make_run(
    root: Path,
    run_id: str,
    *,
    started_at: str,
    medians: dict[str, float],
    verdict: str | None = "PASS",
    quality: dict[str, tuple[float, float, int]] | None = None,
    flags: tuple[str, ...] = (),
    reasons: tuple[str, ...] = (),
) -> Path:
    folder = root / run_id
    write_latency(folder, medians, started_at=started_at)
    if quality is not None:
        write_quality(folder, quality, started_at=started_at)
    if verdict is not None:
        write_gate(folder, verdict, reasons=reasons, flags=flags)
    return folder


def make_history(root: Path) -> list[Path]:
    """Four runs: a baseline, an improvement, a faster run failing a gate, the best valid run."""
    good_q = {
        "mmlu_pro": (0.71, 0.70, 120),
        "ifeval": (0.86, 0.85, 54),
        "gpqa_diamond": (0.62, 0.60, 20),
    }
    bad_q = {
        "mmlu_pro": (0.66, 0.70, 120),
        "ifeval": (0.86, 0.85, 54),
        "gpqa_diamond": (0.52, 0.60, 20),
    }
    return [
        make_run(
            root,
            "20260101-100000-base",
            started_at="2026-01-01T10:00:00+00:00",
            medians={"short": 2582.0, "medium": 5441.0, "long": 6576.0},
            quality=good_q,
        ),
        make_run(
            root,
            "20260102-100000-awq",
            started_at="2026-01-02T10:00:00+00:00",
            medians={"short": 1291.0, "medium": 2720.5, "long": 3288.0},
            quality=good_q,
        ),
        make_run(
            root,
            "20260103-100000-int3",
            started_at="2026-01-03T10:00:00+00:00",
            medians={"short": 860.0, "medium": 1800.0, "long": 2200.0},
            quality=bad_q,
            verdict="FAIL",
            reasons=("GPQA-Diamond 0.520 < 0.60",),
        ),
        make_run(
            root,
            "20260104-100000-spec",
            started_at="2026-01-04T10:00:00+00:00",
            medians={"short": 1032.8, "medium": 2176.4, "long": 2630.4},
            quality=good_q,
            flags=("early-stop: 3/50 official short responses stopped before max_tokens",),
        ),
    ]


def test_latency_fixture_is_a_loadable_latency_report(tmp_path: Path) -> None:
    write_latency(tmp_path, {"short": 1000.0}, started_at="2026-01-01T00:00:00+00:00")
    loaded = LatencyReport.load(tmp_path)
    assert loaded.official[0].median_ms == 1000.0
    assert loaded.score == 2.582
    # the samples the distribution plot reads: timed and ok only, warm-up excluded
    samples = latency_samples(read_run(tmp_path).get(LatencyReport), "official")
    assert sorted(samples["short"]) == pytest.approx(
        [950.0, 962.5, 975.0, 987.5, 1000.0, 1012.5, 1025.0, 1037.5, 1050.0]
    )


def test_history_fixture_has_the_reports_each_run_needs(tmp_path: Path) -> None:
    folders = make_history(tmp_path)
    assert [read_run(f).present for f in folders] == [
        ["latency.json", "quality.json", "gate.json"]
    ] * 4
