"""From per-sample records to the figures of ``vlm.json`` and ``result.json``."""

from __future__ import annotations

from typing import Any

from harness.profiles import VlmSpec
from harness.risk import RiskFlag
from harness.stats.summary import dist
from harness.vlm import flags as flag_rules
from harness.vlm.accuracy import accuracy, contains_answer, vqa_accuracy
from harness.vlm.report import Accuracy, Score, VlmReport
from harness.vlm.stats import (
    bootstrap_means,
    official_mean_ms,
    official_mean_rate,
    score_terms,
    slope,
    total_rate,
)


def _weights(spec: VlmSpec) -> tuple[float, float, float]:
    return (spec.weight_accuracy, spec.weight_ttft, spec.weight_throughput)


def analyze(
    rep: VlmReport,
    spec: VlmSpec,
    *,
    folder_config: dict[str, Any] | None = None,
    baseline: VlmReport | None = None,
    baseline_name: str = "",
) -> VlmReport:
    """Fill the report's official means, harness's own figures, scores and flags (in place)."""
    samples = rep.samples
    counted = [s for s in samples if s.counted and s.ttft_ms is not None]
    ttfts_s = [(s.ttft_ms or 0.0) / 1000 for s in counted]
    rates = [s.tok_s for s in counted]
    rep.counted = len(counted)
    rep.avg_ttft_ms = official_mean_ms(ttfts_s, spec.round_digits)
    rep.avg_throughput_tokens_per_sec = official_mean_rate(rates, spec.round_digits)

    ttft_ms = [s.ttft_ms or 0.0 for s in counted]
    rep.ttft_dist = dist(ttft_ms)
    rep.tok_s_dist = dist(rates)
    rep.processor_dist = dist([s.processor_ms for s in samples if s.processor_ms is not None])
    events = [s.ttft_event_ms for s in counted if s.ttft_event_ms is not None]
    rep.ttft_event_mean_ms = sum(events) / len(events) if events else None
    rep.total_tokens_per_sec = total_rate(
        [s.throughput_tokens for s in counted], [(s.throughput_ms or 0.0) / 1000 for s in counted]
    )
    vis = [(float(s.visual_tokens), s.ttft_ms or 0.0) for s in counted if s.visual_tokens]
    rep.ttft_ms_per_visual_token = slope([v for v, _ in vis], [t for _, t in vis])

    per_acc: list[float] | None = None
    if any(s.answers for s in samples):
        for s in samples:
            if s.answers:
                s.accuracy_vqa = vqa_accuracy(s.prediction, s.answers)
                s.accuracy_containment = contains_answer(s.prediction, s.answers)
        figs = accuracy([(s.prediction, s.answers) for s in samples], spec.headline_accuracy)
        rep.accuracy = Accuracy(
            n=figs.n,
            vqa=figs.vqa,
            containment=figs.containment,
            yes_no=figs.yes_no,
            yes_no_n=figs.yes_no_n,
            headline=figs.headline,
            headline_value=figs.headline_value(),
        )
        key = "accuracy_vqa" if spec.headline_accuracy == "vqa" else "accuracy_containment"
        per_acc = [float(getattr(s, key) or 0.0) for s in counted]

    cis = bootstrap_means(
        ttft_ms,
        rates,
        per_acc,
        baseline_ttft_ms=spec.baseline_ttft_ms,
        baseline_tok_s=spec.baseline_tok_s,
        weights=_weights(spec),
    )
    if "ttft_ms" in cis:
        rep.ttft_ci_ms = (cis["ttft_ms"].low, cis["ttft_ms"].high)
        rep.tok_s_ci = (cis["tok_s"].low, cis["tok_s"].high)
    acc = rep.accuracy.headline_value if rep.accuracy else None
    tok_s = rep.avg_throughput_tokens_per_sec if counted else None
    baselines = [("official", spec.baseline_ttft_ms, spec.baseline_tok_s)]
    if baseline is not None and baseline.avg_ttft_ms and baseline.avg_throughput_tokens_per_sec:
        baselines.append(
            (
                f"local:{baseline_name}",
                baseline.avg_ttft_ms,
                baseline.avg_throughput_tokens_per_sec,
            )
        )
    rep.scores = []
    for name, b_ttft, b_tok in baselines:
        t = score_terms(
            acc,
            rep.avg_ttft_ms,
            tok_s,
            baseline_ttft_ms=b_ttft,
            baseline_tok_s=b_tok,
            weights=_weights(spec),
        )
        ci = None
        if name == "official" and "score" in cis:
            ci = (cis["score"].low, cis["score"].high)
        rep.scores.append(
            Score(
                baseline=name,
                baseline_ttft_ms=b_ttft,
                baseline_tok_s=b_tok,
                accuracy=t.accuracy,
                ttft_ms=t.ttft_ms,
                tok_s=t.tok_s,
                accuracy_term=t.accuracy_term,
                ttft_term=t.ttft_term,
                throughput_term=t.throughput_term,
                score=t.score,
                score_ci=ci,
            )
        )

    fl: list[RiskFlag] = []
    fl += flag_rules.dropped(samples)
    fl += flag_rules.early_eos(samples, spec.throughput_tokens)
    fl += flag_rules.call_dependence(samples, spec.throughput_tokens)
    fl += flag_rules.second_call_faster(samples)
    fl += flag_rules.cold_first_sample(samples)
    fl += flag_rules.pixel_budget(rep.environment, folder_config)
    fl += flag_rules.repeated_images(samples)
    if rep.accuracy is None:
        fl += flag_rules.no_ground_truth()
    fl += flag_rules.non_official(rep.non_official)
    rep.flags = fl
    return rep


def official_result(rep: VlmReport) -> dict[str, Any]:
    """``result.json`` exactly as the official script writes it."""
    return {
        "system_info": rep.system_info,
        "performance": {
            "avg_ttft_ms": rep.avg_ttft_ms,
            "avg_throughput_tokens_per_sec": rep.avg_throughput_tokens_per_sec,
        },
        "answers": [
            {"question_id": s.question_id, "prediction": s.prediction} for s in rep.samples
        ],
    }
