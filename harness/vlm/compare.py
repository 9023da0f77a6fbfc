"""VLM (AICAS) A/B: samples paired by question_id.

TTFT and tok/s: the mean of the per-sample differences B − A over samples
counted in both runs (the contest averages per sample), with a bootstrap CI
over pairs. Accuracy: the containment score (1 when a ground-truth answer
appears in the prediction) as right / wrong per sample, exact McNemar on the
discordant pairs, and the flipped samples.

``vlm.json`` is read by the one report reader (harness/compare/load.py); the
per-sample records are :class:`~harness.vlm.report.VlmSample`. The comparison returns
this kind's section (:class:`VlmDiff`); what makes two VLM runs incomparable is
:func:`vlm_differences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from harness.paired.comparable import differ, some
from harness.paired.model import CompareSection, PairedMean, Verdict
from harness.paired.side import CompareSettings, Side
from harness.paired.stats import MIN_EFFECT_PCT, paired_mean_diff_ci, verdict
from harness.stats.binomial import mcnemar_exact
from harness.vlm.report import VlmReport, VlmSample


class VlmFlip(BaseModel):
    question_id: int | str | None
    correct_a: bool
    correct_b: bool
    prediction_a: str
    prediction_b: str
    answers: list[str] = Field(default_factory=list)


class VlmDiff(CompareSection):
    """VLM's part of a comparison: AICAS runs paired per sample by question_id
    (docs/compare.md)."""

    n_pairs: int
    unpaired: int
    ttft: PairedMean
    tok_s: PairedMean
    accuracy_metric: str = "containment"
    accuracy_a: float | None = None
    accuracy_b: float | None = None
    b_only: int = 0
    a_only: int = 0
    mcnemar_p: float | None = None
    flipped: list[VlmFlip] = Field(default_factory=list)


PREDICTION_CHARS = 200
Metric = Literal["ttft_ms", "tok_s"]


def _by_id(samples: Sequence[VlmSample]) -> dict[Any, VlmSample]:
    out: dict[Any, VlmSample] = {}
    for s in samples:
        qid = s.question_id
        out.setdefault(qid if qid is not None else f"#{s.index}", s)
    return out


def paired_mean(
    pairs: Sequence[tuple[VlmSample, VlmSample]],
    key: Metric,
    *,
    higher_is_better: bool,
    min_effect_pct: float,
    seed: int,
) -> PairedMean:
    xs = [
        (a, b)
        for sa, sb in pairs
        if sa.counted and sb.counted
        for a, b in [(getattr(sa, key), getattr(sb, key))]
        if a is not None and b is not None
    ]
    mean_a = sum(a for a, _ in xs) / len(xs) if xs else None
    mean_b = sum(b for _, b in xs) / len(xs) if xs else None
    diff = mean_b - mean_a if mean_a is not None and mean_b is not None else None
    ci = paired_mean_diff_ci([b - a for a, b in xs], seed=seed)
    v = verdict(
        diff, ci, noise=abs(mean_a or 0.0) * min_effect_pct / 100, higher_is_better=higher_is_better
    )
    words = (
        {"better": "faster", "worse": "slower"}
        if key == "ttft_ms"
        else {"better": "higher", "worse": "lower"}
    )
    word: Verdict = words.get(v, v)  # type: ignore[assignment]
    return PairedMean(
        metric=key,
        n_pairs=len(xs),
        mean_a=mean_a,
        mean_b=mean_b,
        diff=diff,
        diff_pct=diff / mean_a * 100 if diff is not None and mean_a else None,
        ci95=ci,
        verdict=word,
    )


def compare_vlm(
    a: Sequence[VlmSample],
    b: Sequence[VlmSample],
    *,
    min_effect_pct: float = MIN_EFFECT_PCT,
    seed: int = 0,
) -> VlmDiff:
    ia, ib = _by_id(a), _by_id(b)
    common = [k for k in ib if k in ia]
    pairs = [(ia[k], ib[k]) for k in common]
    b_only = a_only = 0
    flips: list[VlmFlip] = []
    scored = 0
    right_a = right_b = 0
    for k, (sa, sb) in zip(common, pairs, strict=True):
        ca, cb = sa.accuracy_containment, sb.accuracy_containment
        if ca is None or cb is None:
            continue
        scored += 1
        ra, rb = ca >= 0.5, cb >= 0.5
        right_a += ra
        right_b += rb
        if ra != rb:
            b_only += rb
            a_only += ra
            flips.append(
                VlmFlip(
                    question_id=k,
                    correct_a=ra,
                    correct_b=rb,
                    prediction_a=sa.prediction[:PREDICTION_CHARS],
                    prediction_b=sb.prediction[:PREDICTION_CHARS],
                    answers=list(sb.answers),
                )
            )
    return VlmDiff(
        n_pairs=len(common),
        unpaired=len(set(ia) ^ set(ib)),
        ttft=paired_mean(
            pairs, "ttft_ms", higher_is_better=False, min_effect_pct=min_effect_pct, seed=seed
        ),
        tok_s=paired_mean(
            pairs, "tok_s", higher_is_better=True, min_effect_pct=min_effect_pct, seed=seed
        ),
        accuracy_a=right_a / scored if scored else None,
        accuracy_b=right_b / scored if scored else None,
        b_only=b_only,
        a_only=a_only,
        mcnemar_p=mcnemar_exact(b_only, a_only) if scored else None,
        flipped=flips,
    )


def vlm_differences(a: VlmReport, b: VlmReport) -> list[str]:
    return some(
        [
            differ("vlm mode", a.mode, b.mode),
            differ("vlm non-official settings", a.non_official, b.non_official),
            differ("vlm samples planned", a.samples_planned, b.samples_planned),
        ]
    )


def differences(a: Side[VlmReport], b: Side[VlmReport]) -> tuple[list[str], list[str]]:
    return vlm_differences(a.report, b.report), []


def section(a: Side[VlmReport], b: Side[VlmReport], s: CompareSettings) -> VlmDiff:
    return compare_vlm(
        a.report.samples, b.report.samples, min_effect_pct=s.min_effect_pct, seed=s.seed
    )


def legacy(data: dict[str, Any]) -> dict[str, Any] | None:
    """VLM's section from a compare.json before schema 4 (its key ``vlm`` at the top),
    taken out of ``data``; None when it held none."""
    section: dict[str, Any] | None = data.pop("vlm", None)
    return section
