"""Latency A/B: per mode, bucket and metric, the difference of medians with a bootstrap CI.

Pure: takes the two reports (and their repeat summaries), returns this kind's section of
the comparison (:class:`LatencySection`); what makes two latency runs incomparable is
:func:`latency_differences`.

The noise band a difference must exceed is the largest of the minimum effect
(``min_effect_pct`` of A's median), the runs' own drift and the spread of their
requests (harness/paired/drift.py) and, when either run was repeated, the
between-run range of its medians (docs/compare.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from harness.latency.repeats import RepeatsReport
from harness.latency.report import BucketResult, LatencyReport, RequestRow
from harness.paired.comparable import differ, some
from harness.paired.drift import (
    Drift,
    drift_band,
    median_drift,
    robust_sd,
    score_drift,
    score_spread,
)
from harness.paired.model import CompareSection, ScoreDiff, Verdict
from harness.paired.side import CompareSettings, Side
from harness.paired.stats import MIN_EFFECT_PCT, diff_of_medians_ci, score_diff_ci, verdict
from harness.stats.robust import median


class LatencyDiff(BaseModel):
    """One bucket, one mode, one metric (``e2e`` always; ``ttft`` in strict mode)."""

    mode: Literal["official", "strict"]
    bucket: str
    metric: Literal["e2e", "ttft"]
    n_a: int
    n_b: int
    median_a_ms: float | None
    median_b_ms: float | None
    diff_ms: float | None
    diff_pct: float | None  # of A's median
    ci95_ms: tuple[float, float] | None
    noise_ms: float  # the band a difference must exceed (min effect, between-run spread)
    noise_source: str  # "min-effect 2 %", "drift within runs (4/4 blocks)", "between-run range …"
    verdict: Verdict


class LatencySection(CompareSection):
    """Latency's part of a comparison: per mode, bucket and metric, and each mode's score."""

    buckets: list[LatencyDiff] = Field(default_factory=list)
    scores: list[ScoreDiff] = Field(default_factory=list)


# latency settings that change what a request measures
LATENCY_KEYS = ("force_length", "concurrency", "new_connection_per_request")


def common_modes(a: LatencyReport, b: LatencyReport) -> list[str]:
    return [m for m in ("official", "strict") if getattr(a, m) and getattr(b, m)]


def _buckets(rep: LatencyReport, mode: str) -> dict[str, BucketResult]:
    results: list[BucketResult] = getattr(rep, mode)
    return {x.name: x for x in results}


def latency_differences(a: LatencyReport, b: LatencyReport) -> tuple[list[str], list[str]]:
    diffs: list[str] = []
    notes: list[str] = []
    modes = common_modes(a, b)
    if not modes:
        diffs.append(f"latency modes: A {a.mode!r}, B {b.mode!r} (no mode measured in both)")
    for key in LATENCY_KEYS:
        d = differ(f"latency {key}", a.settings.get(key), b.settings.get(key))
        if d:
            diffs.append(d)
    for mode in modes:
        ba, bb = _buckets(a, mode), _buckets(b, mode)
        if set(ba) != set(bb):
            diffs.append(f"{mode} buckets: A {sorted(ba)}, B {sorted(bb)}")
            continue
        for name, xa in ba.items():
            xb = bb[name]
            diffs += some(
                [
                    differ(f"{mode} {name} endpoint", xa.endpoint, xb.endpoint),
                    differ(f"{mode} {name} max_tokens", xa.max_tokens, xb.max_tokens),
                    differ(
                        f"{mode} {name} prompt tokens (nominal)",
                        xa.prompt_tokens_nominal,
                        xb.prompt_tokens_nominal,
                    ),
                    differ(f"{mode} {name} prompt tokens", xa.prompt_tokens, xb.prompt_tokens),
                    differ(f"{mode} {name} baseline_ms", xa.baseline_ms, xb.baseline_ms),
                ]
            )
    if "strict" in modes and a.provenance.seed != b.provenance.seed:
        notes.append(
            f"strict prompts drawn with different seeds (A {a.provenance.seed}, "
            f"B {b.provenance.seed}): same lengths, different texts"
        )
    if a.settings.get("runs") != b.settings.get("runs"):
        notes.append(
            f"timed runs per bucket: A {a.settings.get('runs')}, B {b.settings.get('runs')}"
        )
    return diffs, notes


SPEED = {"better": "faster", "worse": "slower"}
LEVEL = {"better": "higher", "worse": "lower"}


def samples(rows: Sequence[RequestRow], mode: str, bucket: str, metric: str) -> list[float]:
    """Timed, successful requests' values of ``metric`` (``e2e`` or ``ttft``), in ms."""
    out: list[float] = []
    for r in rows:
        if r.mode != mode or r.bucket != bucket or r.phase != "timed" or not r.ok:
            continue
        v = r.e2e_ms if metric == "e2e" else r.ttft_ms
        if v is not None:
            out.append(v)
    return out


def _between_run(
    reps: Sequence[RepeatsReport | None], mode: str, bucket: str, metric: str
) -> tuple[float, str]:
    """The larger between-run range of this metric's medians over A's and B's repeats."""
    band = 0.0
    counts: list[int] = []
    for rep in reps:
        if rep is None:
            continue
        rb = rep.bucket(mode, bucket)
        rng = None if rb is None else (rb.ttft_range_ms if metric == "ttft" else rb.range_ms)
        if rng is not None:
            band = max(band, rng)
            counts.append(rep.repeats)
    return band, (f"between-run range of {'/'.join(map(str, counts))} repeats" if counts else "")


def _drift(da: Drift | None, db: Drift | None) -> tuple[float | None, str]:
    """The band of the two runs' own drift; None when a run is too short to tell."""
    if da is None or db is None:
        return (
            None,
            "one timed request: no estimate of the runs' drift (needs --runs 2 or more, or --repeats)",
        )
    return drift_band([(1.0, da), (1.0, db)]), f"drift within runs ({da.blocks}/{db.blocks} blocks)"


SPREAD = "spread of the runs' requests"


def _noise(
    floor: float,
    floor_src: str,
    drift: tuple[float | None, str],
    spread: float,
    spread_src: str,
    requests: float,
) -> tuple[float, str]:
    """The largest of the minimum effect, the runs' drift, the between-run spread (repeats)
    and the spread of the runs' requests."""
    options = [(floor, floor_src), (requests, SPREAD)]
    if drift[0] is not None:
        options.append((drift[0], drift[1]))
    if spread_src:
        options.append((spread, spread_src))
    return max(options, key=lambda o: o[0])


def bucket_diff(
    a: Sequence[float],
    b: Sequence[float],
    *,
    mode: str,
    bucket: str,
    metric: str,
    min_effect_pct: float,
    spread_ms: float = 0.0,
    spread_src: str = "",
    seed: int = 0,
) -> LatencyDiff:
    """One bucket's verdict from the per-request samples of A and B (pure)."""
    ma, mb = median(a), median(b)
    diff = mb - ma if ma is not None and mb is not None else None
    ci = diff_of_medians_ci(a, b, seed=seed)
    drift = _drift(median_drift(a), median_drift(b))
    floor = abs(ma or 0.0) * min_effect_pct / 100
    requests = math.hypot(robust_sd(a), robust_sd(b))
    floor_src = f"min-effect {min_effect_pct:g} %"
    noise, src = _noise(floor, floor_src, drift, spread_ms, spread_src, requests)
    # with repeats, their between-run range stands in for a drift a short run cannot show
    known = drift[0] is not None or bool(spread_src)
    if not known:
        src = drift[1]
    v = verdict(diff, ci, noise=noise, estimated=known)
    return LatencyDiff(
        mode=mode,
        bucket=bucket,
        metric=metric,
        n_a=len(a),
        n_b=len(b),
        median_a_ms=ma,
        median_b_ms=mb,
        diff_ms=diff,
        diff_pct=diff / ma * 100 if diff is not None and ma else None,
        ci95_ms=ci,
        noise_ms=noise,
        noise_source=src,
        verdict=_word(v, SPEED),
    )


def _word(v: str, words: dict[str, str]) -> Verdict:
    return words.get(v, v)  # type: ignore[return-value]


def compare_latency(
    a: LatencyReport,
    b: LatencyReport,
    *,
    repeats_a: RepeatsReport | None = None,
    repeats_b: RepeatsReport | None = None,
    min_effect_pct: float = MIN_EFFECT_PCT,
    seed: int = 0,
) -> tuple[list[LatencyDiff], list[ScoreDiff]]:
    diffs: list[LatencyDiff] = []
    scores: list[ScoreDiff] = []
    for mode in common_modes(a, b):
        names = [x.name for x in getattr(a, mode)]
        metrics = ("e2e", "ttft") if mode == "strict" else ("e2e",)
        for name in names:
            for metric in metrics:
                band, src = _between_run((repeats_a, repeats_b), mode, name, metric)
                xa = samples(a.requests, mode, name, metric)
                xb = samples(b.requests, mode, name, metric)
                if metric == "ttft" and not xa and not xb:
                    continue
                diffs.append(
                    bucket_diff(
                        xa,
                        xb,
                        mode=mode,
                        bucket=name,
                        metric=metric,
                        min_effect_pct=min_effect_pct,
                        spread_ms=band,
                        spread_src=src,
                        seed=seed,
                    )
                )
        scores.append(_score_diff(a, b, mode, repeats_a, repeats_b, min_effect_pct, seed))
    return diffs, scores


def _score_of(rep: LatencyReport, mode: str) -> float | None:
    if mode == "official" or not rep.official:
        return rep.score
    return rep.strict_score


def _score_diff(
    a: LatencyReport,
    b: LatencyReport,
    mode: str,
    repeats_a: RepeatsReport | None,
    repeats_b: RepeatsReport | None,
    min_effect_pct: float,
    seed: int,
) -> ScoreDiff:
    buckets = getattr(a, mode)
    names = [x.name for x in buckets]
    sa = [samples(a.requests, mode, n, "e2e") for n in names]
    sb = [samples(b.requests, mode, n, "e2e") for n in names]
    score_a, score_b = _score_of(a, mode), _score_of(b, mode)
    diff = score_b - score_a if score_a is not None and score_b is not None else None
    baselines = [x.baseline_ms for x in buckets]
    ci = score_diff_ci(sa, sb, baselines, seed=seed)
    drift = _drift(score_drift(sa, baselines), score_drift(sb, baselines))
    # a report's `score` is its official score when measured, else strict; with both
    # modes the strict one is `strict_score` (and the repeats keep both spreads)
    use_strict = mode == "strict" and bool(a.official)
    ranges = [
        r.strict_score_range if use_strict else r.score_range
        for r in (repeats_a, repeats_b)
        if r is not None
    ]
    present = [x for x in ranges if x is not None]
    spread, spread_src = (max(present), "between-run range of the score") if present else (0.0, "")
    floor = abs(score_a or 0.0) * min_effect_pct / 100
    requests = math.hypot(score_spread(sa, baselines), score_spread(sb, baselines))
    floor_src = f"min-effect {min_effect_pct:g} %"
    noise, src = _noise(floor, floor_src, drift, spread, spread_src, requests)
    known = drift[0] is not None or bool(spread_src)
    if not known:
        src = drift[1]
    return ScoreDiff(
        mode=mode,
        score_a=score_a,
        score_b=score_b,
        diff=diff,
        diff_pct=diff / score_a * 100 if diff is not None and score_a else None,
        ci95=ci,
        noise=noise,
        noise_source=src,
        verdict=_word(
            verdict(diff, ci, noise=noise, higher_is_better=True, estimated=known), LEVEL
        ),
    )


def differences(a: Side[LatencyReport], b: Side[LatencyReport]) -> tuple[list[str], list[str]]:
    return latency_differences(a.report, b.report)


def section(a: Side[LatencyReport], b: Side[LatencyReport], s: CompareSettings) -> LatencySection:
    """Latency's section; each side's extra is its repeats summary (or None)."""
    buckets, scores = compare_latency(
        a.report,
        b.report,
        repeats_a=a.extra,
        repeats_b=b.extra,
        min_effect_pct=s.min_effect_pct,
        seed=s.seed,
    )
    return LatencySection(buckets=buckets, scores=scores)


def legacy(data: dict[str, Any]) -> dict[str, Any] | None:
    """Latency's section from a compare.json before schema 4 (its keys ``latency`` and
    ``latency_scores`` at the top), taken out of ``data``; None when it held none."""
    buckets, scores = data.pop("latency", None) or [], data.pop("latency_scores", None) or []
    return {"buckets": buckets, "scores": scores} if buckets or scores else None
