"""Throughput A/B (GPU MODE Paris): per concurrency level and for the weighted score.

Pure over the two reports; CIs from the per-request rows (see
:func:`harness.compare.stats.weighted_throughput_diff_ci`).
"""

from __future__ import annotations

from harness.compare.model import LevelDiff, ScoreDiff, Verdict
from harness.compare.stats import LevelSample, verdict, weighted_throughput_diff_ci
from harness.throughput.report import LevelResult, ThroughputReport

WORDS = {"better": "higher", "worse": "lower"}


def level_sample(rep: ThroughputReport, level: LevelResult) -> LevelSample | None:
    if level.tok_s is None:
        return None
    tokens: list[float] = []
    seconds: list[float] = []
    for r in rep.requests:
        if r.level != level.concurrency or r.phase != "timed" or not r.ok or r.e2e_ms is None:
            continue
        tokens.append(float((r.prompt_tokens or 0) + (r.output_tokens or 0)))
        seconds.append(r.e2e_ms / 1000)
    return LevelSample(tok_s=level.tok_s, tokens=tokens, seconds=seconds)


def _verdict(diff: float | None, ci: tuple[float, float] | None, noise: float) -> Verdict:
    v = verdict(diff, ci, noise=noise, higher_is_better=True)
    return WORDS.get(v, v)  # type: ignore[return-value]


def compare_throughput(
    a: ThroughputReport, b: ThroughputReport, *, min_effect_pct: float = 1.0, seed: int = 0
) -> tuple[list[LevelDiff], ScoreDiff]:
    la = {x.concurrency: x for x in a.levels}
    diffs: list[LevelDiff] = []
    pairs: list[tuple[LevelSample, LevelSample, float]] = []
    for xb in b.levels:
        xa = la.get(xb.concurrency)
        if xa is None:
            continue
        sa, sb = level_sample(a, xa), level_sample(b, xb)
        diff = xb.tok_s - xa.tok_s if xa.tok_s is not None and xb.tok_s is not None else None
        ci = weighted_throughput_diff_ci([sa], [sb], [1.0], seed=seed) if sa and sb else None
        if sa and sb:
            pairs.append((sa, sb, xb.weight))
        diffs.append(
            LevelDiff(
                concurrency=xb.concurrency,
                tok_s_a=xa.tok_s,
                tok_s_b=xb.tok_s,
                diff=diff,
                diff_pct=diff / xa.tok_s * 100 if diff is not None and xa.tok_s else None,
                ci95=ci,
                verdict=_verdict(diff, ci, abs(xa.tok_s or 0) * min_effect_pct / 100),
            )
        )
    diff = b.score - a.score if a.score is not None and b.score is not None else None
    ci = (
        weighted_throughput_diff_ci(
            [p[0] for p in pairs], [p[1] for p in pairs], [p[2] for p in pairs], seed=seed
        )
        if len(pairs) == len(diffs)
        else None
    )
    noise = abs(a.score or 0.0) * min_effect_pct / 100
    score = ScoreDiff(
        mode=b.mode,
        score_a=a.score,
        score_b=b.score,
        diff=diff,
        diff_pct=diff / a.score * 100 if diff is not None and a.score else None,
        ci95=ci,
        noise=noise,
        noise_source=f"min-effect {min_effect_pct:g} %",
        verdict=_verdict(diff, ci, noise),
    )
    return diffs, score
