"""The gate's rules for ``quality.json``: each benchmark against its threshold, as the grader rounds."""

from __future__ import annotations

from collections.abc import Mapping

from harness.data.samples import SAMPLE_KEY, SAMPLE_REASON
from harness.profiles import ThroughputSpec
from harness.quality.correctness import evaluate
from harness.quality.report import BenchmarkResult, QualityReport
from harness.quality.stats import score_interval
from harness.risk import FlagKind, RiskFlag
from harness.verdict import Judgement, Reason, partial, risk


def quality_rules(rep: QualityReport, expected: list[str] | None = None) -> Judgement:
    reasons: list[Reason] = []
    flags: list[RiskFlag] = []
    measured = {b.name for b in rep.benchmarks}
    for name in expected or []:
        if name not in measured:
            reasons.append(
                Reason(
                    source="quality", text=f"quality gate {name} was not measured", incomplete=True
                )
            )
    # harness's sample data says nothing of the grader's set: no gate passes on it
    sample = SAMPLE_KEY in rep.non_official
    for b in rep.benchmarks:
        if b.score is None:
            why = b.error or "no score"
            reasons.append(
                Reason(source="quality", text=f"{b.title}: no score ({why})", incomplete=True)
            )
            continue
        ci = score_interval(b.score, b.n)
        unc = f" ({ci.text()})" if ci is not None else ""
        judged = b.judged_score  # the grader's round(score, 4), as its script compares
        assert judged is not None
        shown = f"{judged:.3f}" if round(judged, 3) == judged else f"{judged:.4f}"
        line = f"{b.title} {shown} {'≥' if judged >= b.threshold else '<'} {b.threshold:.3f}{unc}"
        if b.grader_abort:
            text = (
                f"{b.title}: {b.grader_abort} ({b.grader_aborts} requests; "
                f"harness's own score {b.score:.3f})"
            )
            reason = Reason(source="quality", text=f"quality gate failed: {text}", blocking=True)
        elif b.decide is not None and b.decide.stopped_early:
            reason, flag = _decided(b)
            flags.append(flag)
        elif judged < b.threshold:
            reason = Reason(source="quality", text=f"quality gate failed: {line}", blocking=True)
        else:
            reason = Reason(source="quality", text=f"quality gate passed: {line}")
        if sample:
            reason = _on_samples(reason)
        reasons.append(reason)
        estimated = b.decide is not None and b.decide.stopped_early  # its risk says it all
        near = ci is not None and ci.low <= b.threshold <= ci.high
        if near and not estimated and not sample:
            text = f"quality: {b.title} is within its sampling error of the threshold ({line})"
            flags.append(risk(FlagKind.NEAR_THRESHOLD, "quality", text))
        if b.errors:
            text = f"quality: {b.errors} {b.title} requests failed every attempt and were scored as wrong"
            flags.append(risk(FlagKind.REQUEST_FAILURES, "quality", text))
        # under a cap of the run's own (max_gen_toks, non-official) a lost answer is that
        # cap's doing, not a risk at the grader's budget: the quality view still counts it
        own_cap = "max_gen_toks" in rep.non_official
        if b.thinking_stats and b.thinking_stats.lost_to_budget and not own_cap:
            text = f"quality: {b.thinking_stats.lost_to_budget} {b.title} answers lost to the thinking budget"
            flags.append(risk(FlagKind.THINKING_BUDGET, "quality", text))
    if sample:
        text = (
            f"quality measured on {rep.non_official[SAMPLE_KEY]}: no quality gate passes on "
            f"it; the grader's data: harness data fetch"
        )
        flags.append(risk(FlagKind.SAMPLE_DATA, "quality", text))
    settings = {k: v for k, v in rep.non_official.items() if k != SAMPLE_KEY}
    if not rep.official and settings:
        text = f"quality measured with non-official settings: {settings}"
        flags.append(risk(FlagKind.NON_OFFICIAL, "quality", text))
    if not rep.complete:
        reasons.append(partial("quality", QualityReport.FILENAME))
    return reasons, flags


def _on_samples(reason: Reason) -> Reason:
    """A benchmark scored on the sample data: a failure still fails (FAIL-safe), a pass is
    no pass: the quality gate stays undecided (INCOMPLETE), as for a missing benchmark."""
    if reason.blocking:
        return reason.model_copy(update={"text": f"{reason.text}, on {SAMPLE_REASON}"})
    text = reason.text.replace("quality gate passed: ", "", 1)
    return Reason(
        source="quality",
        text=f"quality not judged on {SAMPLE_REASON}: {text}",
        incomplete=True,
    )


def _decided(b: BenchmarkResult) -> tuple[Reason, RiskFlag]:
    """An early-stopped ``--decide`` benchmark: judged by its settled decision, flagged as an
    estimate (docs/quality.md, "Deciding early")."""
    d = b.decide
    assert d is not None
    line = (
        f"{b.title} ≈ {d.projected:.4f} (95 % interval {d.ci_low:.4f}–{d.ci_high:.4f}) "
        f"{'≥' if d.decision == 'pass' else '<'} {b.threshold:.3f}, decided on "
        f"{d.asked} of {d.total} documents"
    )
    verb = "passed" if d.decision == "pass" else "failed"
    reason = Reason(
        source="quality", text=f"quality gate {verb}: {line}", blocking=d.decision != "pass"
    )
    how = (
        "its decision certain"
        if d.settled_by == "certain"
        else f"error risk ≤ {(d.risk or 0.0) * 100:.2g} %"
    )
    text = (
        f"quality: {b.title} is an estimate (--decide stopped, {how}, after {d.asked} of "
        f"{d.total} documents); re-run without --decide into the same folder to "
        "complete it from the answer cache"
    )
    return reason, risk(FlagKind.ESTIMATE, "quality", text)


def quality_metrics(rep: QualityReport) -> dict[str, dict[str, float]]:
    """Every metric lm-eval reported, by benchmark (what a correctness gate reads)."""
    metrics: dict[str, dict[str, float]] = {}
    for b in rep.benchmarks:
        metrics[b.name] = dict(b.other_metrics)
        if b.score is not None:
            metrics[b.name][b.metric] = b.score
    return metrics


def correctness_outcomes(
    spec: ThroughputSpec | None, metrics: Mapping[str, Mapping[str, float]]
) -> list[Reason]:
    """Every reading of a throughput profile's correctness gate (Paris: the README's and
    eval/score.py's) over the quality report's ``metrics``: a failing one is blocking and
    named (harness/quality/correctness.py). The zeroed score is the throughput report's
    line (harness/throughput/gate_rules.py: ``score_zeroed``)."""
    if spec is None or not spec.correctness_rules:
        return []
    verdict = evaluate(spec.correctness_rules, metrics)
    return [
        Reason(
            source="quality",
            text=f"correctness gate {'passed' if o.passed else 'FAILED' if o.passed is False else 'not measured'}: {o.line()}",
            blocking=o.passed is False,
            incomplete=o.passed is None,
        )
        for o in verdict.outcomes
    ]
