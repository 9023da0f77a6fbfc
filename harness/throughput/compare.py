"""Throughput A/B (GPU MODE Paris): per concurrency level and for the weighted score.

Pure over the two reports; returns this kind's section of the comparison
(:class:`ThroughputSection`). The differences are those of the official figures
(tok/s and score as the grader computes them, spot checks included); compare's
own per-request statistics (the CI and the drift of B against A, block of waves
against block of waves) use the random-prompt requests only: a spot check is a ~30-token prompt among ~1000-token ones, and
two of them among eight requests swing a resampled ratio more than the server
does (docs/compare.md). CIs: :func:`harness.paired.stats.weighted_throughput_diff_ci`;
drift: :func:`harness.paired.drift.ratio_drift`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from harness.paired.comparable import differ, some
from harness.paired.drift import Drift, drift_band, ratio_drift, wave_blocks
from harness.paired.model import CompareSection, ScoreDiff, Verdict
from harness.paired.side import CompareSettings, Side
from harness.paired.stats import (
    MIN_EFFECT_PCT,
    LevelSample,
    verdict,
    weighted_throughput_diff_ci,
)
from harness.throughput.report import LevelResult, RequestRow, ThroughputReport


class LevelDiff(BaseModel):
    concurrency: int
    tok_s_a: float | None
    tok_s_b: float | None
    diff: float | None
    diff_pct: float | None
    ci95: tuple[float, float] | None
    # the band a difference must exceed: the runs' drift over waves, or the min effect
    # (schema 2; 0 / "" in a schema-1 compare.json)
    noise: float = 0.0
    noise_source: str = ""
    verdict: Verdict


class ThroughputSection(CompareSection):
    """Throughput's part of a comparison: per concurrency level, and the weighted score."""

    levels: list[LevelDiff] = Field(default_factory=list)
    score: ScoreDiff | None = None


THROUGHPUT_KEYS = (
    "levels",
    "requests_per_level",
    "warmup_per_level",
    "prompt_tokens",
    "max_tokens",
    "temperature",
    "top_p",
    "reuse_prompts_across_levels",
    "force_length",
)
WORDS = {"better": "higher", "worse": "lower"}
ONE_WAVE = (
    "one wave of requests (or other waves in A than in B): no estimate of its drift "
    "(needs ≥ 2 × concurrency requests)"
)


@dataclass(frozen=True)
class LevelData:
    sample: LevelSample  # random-prompt requests: tokens and seconds
    blocks: list[float] | None  # tokens per request-second, block by block of waves


def _timed(rep: ThroughputReport, level: LevelResult) -> list[RequestRow]:
    rows = [r for r in rep.requests if r.level == level.concurrency and r.phase == "timed"]
    return sorted(rows, key=lambda r: (r.start_ms is None, r.start_ms or 0.0, r.index))


def level_data(rep: ThroughputReport, level: LevelResult) -> LevelData | None:
    """A level's random-prompt requests (in send order) and their drift; None without tok/s."""
    if level.tok_s is None:
        return None
    tokens: list[float] = []
    seconds: list[float] = []
    waves: list[int] = []
    # a wave: `concurrency` consecutive sends (spot checks and failures hold a slot too)
    for pos, r in enumerate(_timed(rep, level)):
        if r.kind != "random" or not r.ok or r.e2e_ms is None:
            continue
        tokens.append(float((r.prompt_tokens or 0) + (r.output_tokens or 0)))
        seconds.append(r.e2e_ms / 1000)
        waves.append(pos // max(level.concurrency, 1))
    return LevelData(
        sample=LevelSample(tok_s=level.tok_s, tokens=tokens, seconds=seconds),
        blocks=wave_blocks(tokens, seconds, waves) if tokens else None,
    )


def _verdict(
    diff: float | None, ci: tuple[float, float] | None, noise: float, estimated: bool
) -> Verdict:
    v = verdict(diff, ci, noise=noise, higher_is_better=True, estimated=estimated)
    return WORDS.get(v, v)  # type: ignore[return-value]


def _noise(
    parts: list[tuple[float, Drift | None]], floor: float, min_effect_pct: float
) -> tuple[float, str, bool]:
    """(band, source, estimated): the largest of the minimum effect and the runs' drift."""
    if any(d is None for _, d in parts):
        return floor, ONE_WAVE, False
    drifts = [(scale, d) for scale, d in parts if d is not None]
    band = drift_band(drifts)
    if band > floor:
        what = f"{drifts[0][1].blocks} blocks of waves" if len(drifts) == 1 else "every level"
        return band, f"drift of B against A ({what})", True
    return floor, f"min-effect {min_effect_pct:g} %", True


def compare_throughput(
    a: ThroughputReport,
    b: ThroughputReport,
    *,
    min_effect_pct: float = MIN_EFFECT_PCT,
    seed: int = 0,
) -> tuple[list[LevelDiff], ScoreDiff]:
    la = {x.concurrency: x for x in a.levels}
    diffs: list[LevelDiff] = []
    pairs: list[tuple[LevelSample, LevelSample, float]] = []
    drifts: list[tuple[float, Drift | None]] = []
    for xb in b.levels:
        xa = la.get(xb.concurrency)
        if xa is None:
            continue
        da, db = level_data(a, xa), level_data(b, xb)
        diff = xb.tok_s - xa.tok_s if xa.tok_s is not None and xb.tok_s is not None else None
        ci = None
        parts: list[tuple[float, Drift | None]] = [(0.0, None)]
        if da and db:
            ci = weighted_throughput_diff_ci([da.sample], [db.sample], [1.0], seed=seed)
            pairs.append((da.sample, db.sample, xb.weight))
            paired = ratio_drift(da.blocks, db.blocks) if da.blocks and db.blocks else None
            parts = [(da.sample.tok_s, paired)]
            drifts.append((xb.weight * da.sample.tok_s, paired))
        floor = abs(xa.tok_s or 0) * min_effect_pct / 100
        noise, src, known = _noise(parts, floor, min_effect_pct)
        diffs.append(
            LevelDiff(
                concurrency=xb.concurrency,
                tok_s_a=xa.tok_s,
                tok_s_b=xb.tok_s,
                diff=diff,
                diff_pct=diff / xa.tok_s * 100 if diff is not None and xa.tok_s else None,
                ci95=ci,
                noise=noise,
                noise_source=src,
                verdict=_verdict(diff, ci, noise, known),
            )
        )
    diff = b.score - a.score if a.score is not None and b.score is not None else None
    complete = len(pairs) == len(diffs)
    ci = (
        weighted_throughput_diff_ci(
            [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs], seed=seed
        )
        if complete
        else None
    )
    floor = abs(a.score or 0.0) * min_effect_pct / 100
    noise, src, known = _noise(drifts if complete else [(0.0, None)], floor, min_effect_pct)
    if not known:
        src = "a level with " + ONE_WAVE
    score = ScoreDiff(
        mode=b.mode,
        score_a=a.score,
        score_b=b.score,
        diff=diff,
        diff_pct=diff / a.score * 100 if diff is not None and a.score else None,
        ci95=ci,
        noise=noise,
        noise_source=src,
        verdict=_verdict(diff, ci, noise, known),
    )
    return diffs, score


def throughput_differences(a: ThroughputReport, b: ThroughputReport) -> list[str]:
    diffs = some([differ("throughput mode", a.mode, b.mode)])
    for key in THROUGHPUT_KEYS:
        d = differ(f"throughput {key}", a.settings.get(key), b.settings.get(key))
        if d:
            diffs.append(d)
    return diffs


def differences(
    a: Side[ThroughputReport], b: Side[ThroughputReport]
) -> tuple[list[str], list[str]]:
    return throughput_differences(a.report, b.report), []


def section(
    a: Side[ThroughputReport], b: Side[ThroughputReport], s: CompareSettings
) -> ThroughputSection:
    levels, score = compare_throughput(
        a.report, b.report, min_effect_pct=s.min_effect_pct, seed=s.seed
    )
    return ThroughputSection(levels=levels, score=score)


def legacy(data: dict[str, Any]) -> dict[str, Any] | None:
    """Throughput's section from a compare.json before schema 4 (its keys ``throughput`` and
    ``throughput_score`` at the top), taken out of ``data``; None when it held none.
    A level written before schema 2 has no noise band: 0 and no source (unknown)."""
    levels, score = data.pop("throughput", None) or [], data.pop("throughput_score", None)
    for level in levels:
        if isinstance(level, dict):
            level.setdefault("noise", 0.0)
            level.setdefault("noise_source", "")
    return {"levels": levels, "score": score} if levels or score else None
