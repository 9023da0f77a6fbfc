"""The gate's rules: pure functions from report data to reasons and flags.

Each rule reads one report and returns :class:`Reason` lines (blocking or not)
and :class:`~harness.risk.RiskFlag` records. :func:`judge` combines them: any
blocking reason → FAIL; else any missing or partial required report →
INCOMPLETE; else PASS. ``strict`` turns every risk flag into a blocking reason.
Rules read flags by ``kind``, never by their text, and take every grader number
(readiness limit, runs, warm-ups, buckets) from the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.conformance.model import CheckReport, Result
from harness.gate.report import Reason, Verdict
from harness.image.package import PackageReport
from harness.latency.procedure import official_procedure
from harness.latency.report import GapCause, LatencyReport
from harness.profiles import LatencySpec, Profile
from harness.quality.report import QualityReport
from harness.risk import FlagKind, RiskFlag
from harness.stats import binomial_stderr
from harness.throughput.correctness import evaluate, gated_score
from harness.throughput.report import ThroughputReport
from harness.vlm.report import VlmReport

# harness's own threshold, not a grader's: more than half the official speedup
# not reproduced by unique prompts is worth a flag
PREFIX_SHARE_RISK = 0.5

# check names whose failure or warning is a named risk of the competition rules
RISKY_CHECKS: dict[str, tuple[FlagKind, str]] = {
    "thinking_off": (FlagKind.THINKING_LEAK, "thinking leaks into content with thinking OFF"),
    "thinking_default": (
        FlagKind.THINKING_DEFAULT,
        "the grader's MMLU-Pro (no thinking switch) would be answered thinking",
    ),
    "one_stack": (
        FlagKind.ENDPOINT_ROUTING,
        "different answers through different endpoints (routing by endpoint is forbidden)",
    ),
}

# the report's own flags the gate replaces with its own lines (from the bucket counts)
_RESTATED_BY_GATE = {FlagKind.REQUEST_FAILURES, FlagKind.NO_DATA}

_GAP_LABEL: dict[GapCause, str] = {
    "agree": "the modes agree",
    "early_stop": "early stop",
    "prefix_cache": "prefix cache",
    "strict_faster": "strict is faster",
    "no_data": "no data",
}


def _flag(kind: FlagKind, source: str, text: str) -> RiskFlag:
    return RiskFlag(kind=kind, text=text, source=source)


def _readiness_flag(source: str, readiness_s: float | None, limit_s: float) -> list[RiskFlag]:
    if readiness_s is None or readiness_s <= limit_s:
        return []
    text = f"readiness took {readiness_s:.0f} s, over the grader's {limit_s:.0f} s"
    return [_flag(FlagKind.SLOW_READINESS, source, text)]


@dataclass
class GateInputs:
    profile: Profile
    check: CheckReport | None = None
    latency: LatencyReport | None = None
    quality: QualityReport | None = None
    throughput: ThroughputReport | None = None
    package: PackageReport | None = None  # only with --image
    vlm: VlmReport | None = None  # the AICAS profile's in-process run
    required: list[str] = field(default_factory=list)


def required_reports(profile: Profile, *, image: bool = False) -> list[str]:
    out = ["check"] if profile.vlm is None else []  # the AICAS benchmark has no server
    if profile.vlm is not None:
        out.append("vlm")
    if profile.latency is not None:
        out.append("latency")
    if profile.throughput is not None:
        out.append("throughput")
    if profile.quality is not None:
        out.append("quality")
    if image:
        out.append("package")
    return out


def check_rules(rep: CheckReport, ready_limit_s: float) -> tuple[list[Reason], list[RiskFlag]]:
    reasons: list[Reason] = []
    flags: list[RiskFlag] = []
    for c in rep.checks:
        if c.required and c.result is Result.FAIL:
            reasons.append(
                Reason(source="check", text=f"check {c.name} failed: {c.reason}", blocking=True)
            )
        elif c.result in (Result.FAIL, Result.WARN):
            text = f"check {c.name} ({c.result.value}): {c.reason}"
            flags.append(_flag(FlagKind.CHECK_NOT_PASSED, "check", text))
        risky = RISKY_CHECKS.get(c.name)
        if risky is not None and c.result in (Result.FAIL, Result.WARN):
            flags.append(_flag(risky[0], "check", f"{risky[1]}: {c.reason}"))
    flags += _readiness_flag("check", rep.readiness_s, ready_limit_s)
    if not rep.complete:
        reasons.append(
            Reason(source="check", text="check.json is partial (interrupted)", incomplete=True)
        )
    return reasons, flags


def latency_rules(
    rep: LatencyReport, spec: LatencySpec | None, ready_limit_s: float
) -> tuple[list[Reason], list[RiskFlag]]:
    reasons: list[Reason] = []
    flags = [
        _flag(f.kind, "latency", f"latency: {f.text}")
        for f in rep.flags
        if f.kind not in _RESTATED_BY_GATE
    ]
    buckets = rep.buckets()
    for b in buckets:
        if b.n_ok == 0:
            reasons.append(
                Reason(
                    source="latency",
                    text=f"bucket {b.name}: every timed request failed ({b.errors})",
                    blocking=True,
                )
            )
        elif b.n_failed:
            flags.append(
                _flag(
                    FlagKind.REQUEST_FAILURES,
                    "latency",
                    f"latency: {b.n_failed} timed {b.name} requests failed and were dropped "
                    f"({b.errors})",
                )
            )
    for gap in rep.gaps:
        share = gap.share_of_official_speedup
        if share is not None and share > PREFIX_SHARE_RISK:
            flags.append(
                _flag(
                    FlagKind.SPEEDUP_GAP,
                    "latency",
                    f"latency: {share:.0%} of the {gap.bucket} speedup is not reproduced with "
                    f"unique prompts ({_GAP_LABEL[gap.cause_kind]}): the grader's repeated "
                    "prompt flatters it",
                )
            )
    flags += _readiness_flag("latency", rep.readiness_s, ready_limit_s)
    expected = [b.name for b in spec.buckets] if spec else []
    missing = [n for n in expected if n not in {b.name for b in buckets}]
    if missing:
        reasons.append(
            Reason(
                source="latency",
                text=f"latency buckets not measured: {', '.join(missing)} (no score)",
                incomplete=True,
            )
        )
    if rep.score is not None:
        speeds = ", ".join(f"{b.name} {b.speedup:.2f}×" for b in buckets if b.speedup is not None)
        reasons.append(Reason(source="latency", text=f"latency score {rep.score:.2f}× ({speeds})"))
    settings = rep.settings
    # judged against this profile, not the report's own ``official_procedure``: the
    # profile is what the gate predicts for (reports without settings are not judged)
    if (
        spec is not None
        and "runs" in settings
        and not official_procedure(
            settings.get("runs"), settings.get("warmup"), settings.get("buckets"), spec
        )
    ):
        flags.append(
            _flag(
                FlagKind.NON_OFFICIAL,
                "latency",
                f"latency measured with {settings.get('runs')} runs / {settings.get('warmup')} "
                f"warm-up over {settings.get('buckets')} (the grader: {spec.runs} / "
                f"{spec.warmup} over {', '.join(b.name for b in spec.buckets)})",
            )
        )
    if not rep.complete:
        reasons.append(
            Reason(source="latency", text="latency.json is partial (interrupted)", incomplete=True)
        )
    return reasons, flags


def quality_rules(
    rep: QualityReport, expected: list[str] | None = None
) -> tuple[list[Reason], list[RiskFlag]]:
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
    for b in rep.benchmarks:
        if b.score is None:
            why = b.error or "no score"
            reasons.append(
                Reason(source="quality", text=f"{b.title}: no score ({why})", incomplete=True)
            )
            continue
        se = binomial_stderr(b.score, b.n)
        unc = f", ±{se:.3f} sampling error at n={b.n}" if se is not None else ""
        judged = b.judged_score  # the grader's round(score, 4), as its script compares
        assert judged is not None
        shown = f"{judged:.3f}" if round(judged, 3) == judged else f"{judged:.4f}"
        line = f"{b.title} {shown} {'≥' if judged >= b.threshold else '<'} {b.threshold:.3f}{unc}"
        if b.grader_abort:
            text = (
                f"{b.title}: {b.grader_abort} ({b.grader_aborts} requests; "
                f"harness's own score {b.score:.3f})"
            )
            reasons.append(
                Reason(source="quality", text=f"quality gate failed: {text}", blocking=True)
            )
        elif b.decide is not None and b.decide.stopped_early:
            d = b.decide
            line = (
                f"{b.title} ≈ {d.projected:.4f} (95 % interval {d.ci_low:.4f}–{d.ci_high:.4f}) "
                f"{'≥' if d.decision == 'pass' else '<'} {b.threshold:.3f}, decided on "
                f"{d.asked} of {d.total} documents"
            )
            verb = "passed" if d.decision == "pass" else "failed"
            reasons.append(
                Reason(
                    source="quality",
                    text=f"quality gate {verb}: {line}",
                    blocking=d.decision != "pass",
                )
            )
            how = (
                "its decision certain"
                if d.settled_by == "certain"
                else f"at risk {d.risk or 0:.2g}"
            )
            text = (
                f"quality: {b.title} is an estimate (--decide stopped, {how}, after {d.asked} of "
                f"{d.total} documents); re-run without --decide into the same folder to "
                "complete it from the answer cache"
            )
            flags.append(_flag(FlagKind.ESTIMATE, "quality", text))
        elif judged < b.threshold:
            reasons.append(
                Reason(source="quality", text=f"quality gate failed: {line}", blocking=True)
            )
        else:
            reasons.append(Reason(source="quality", text=f"quality gate passed: {line}"))
        estimated = b.decide is not None and b.decide.stopped_early  # its risk says it all
        if se is not None and not estimated and abs(b.score - b.threshold) <= 2 * se:
            text = f"quality: {b.title} is within its sampling error of the threshold ({line})"
            flags.append(_flag(FlagKind.NEAR_THRESHOLD, "quality", text))
        if b.errors:
            text = f"quality: {b.errors} {b.title} requests failed every attempt and were scored as wrong"
            flags.append(_flag(FlagKind.REQUEST_FAILURES, "quality", text))
        if b.thinking_stats and b.thinking_stats.lost_to_budget:
            text = f"quality: {b.thinking_stats.lost_to_budget} {b.title} answers lost to the thinking budget"
            flags.append(_flag(FlagKind.THINKING_BUDGET, "quality", text))
    if not rep.official and rep.non_official:
        text = f"quality measured with non-official settings: {rep.non_official}"
        flags.append(_flag(FlagKind.NON_OFFICIAL, "quality", text))
    if not rep.complete:
        reasons.append(
            Reason(source="quality", text="quality.json is partial (interrupted)", incomplete=True)
        )
    return reasons, flags


def throughput_rules(rep: ThroughputReport) -> tuple[list[Reason], list[RiskFlag]]:
    reasons: list[Reason] = []
    flags = [_flag(f.kind, "throughput", f"throughput: {f.text}") for f in rep.flags]
    if rep.score is not None:
        reasons.append(
            Reason(source="throughput", text=f"throughput score {rep.score:,.1f} (weighted tok/s)")
        )
    else:
        reasons.append(
            Reason(source="throughput", text="throughput.json has no score", incomplete=True)
        )
    if not rep.complete:
        reasons.append(
            Reason(source="throughput", text="throughput.json is partial", incomplete=True)
        )
    if not rep.score_complete:
        flags.append(
            _flag(
                FlagKind.PARTIAL_SWEEP,
                "throughput",
                "throughput: not every level of the profile was measured: the score is not "
                "comparable",
            )
        )
    if not rep.official:
        text = f"throughput measured with non-official settings: {rep.non_official}"
        flags.append(_flag(FlagKind.NON_OFFICIAL, "throughput", text))
    if not rep.spot_checks_passed:
        text = "throughput: a math spot check failed (garbage output under load?)"
        flags.append(_flag(FlagKind.SPOT_CHECK, "throughput", text))
    if rep.passed is False:
        reasons.append(
            Reason(
                source="throughput",
                text="strict throughput run failed its spot checks or requests",
                blocking=True,
            )
        )
    return reasons, flags


def correctness_rules(inputs: GateInputs) -> list[Reason]:
    """Every reading of a throughput profile's correctness gate (Paris: the README's and
    eval/score.py's); a failing one is blocking and named, and says when the grader
    scores 0 (harness/throughput/correctness.py)."""
    spec = inputs.profile.throughput
    if spec is None or not spec.correctness_rules or inputs.quality is None:
        return []
    metrics: dict[str, dict[str, float]] = {}
    for b in inputs.quality.benchmarks:
        metrics[b.name] = dict(b.other_metrics)
        if b.score is not None:
            metrics[b.name][b.metric] = b.score
    verdict = evaluate(spec.correctness_rules, metrics)
    out = [
        Reason(
            source="quality",
            text=f"correctness gate {'passed' if o.passed else 'FAILED' if o.passed is False else 'not measured'}: {o.line()}",
            blocking=o.passed is False,
            incomplete=o.passed is None,
        )
        for o in verdict.outcomes
    ]
    if verdict.zeroes_score:
        score = inputs.throughput.score if inputs.throughput else None
        out.append(
            Reason(
                source="throughput",
                text=f"the grader's score is {gated_score(score, verdict):.0f}: "
                f"{', '.join(o.rule.name for o in verdict.failed)} failed "
                f"(harness measured {score if score is not None else 'no score'})",
                blocking=True,
            )
        )
    return out


def package_rules(rep: PackageReport) -> tuple[list[Reason], list[RiskFlag]]:
    reasons: list[Reason] = []
    flags: list[RiskFlag] = []
    for rule in rep.rules:
        text = f"package rule {rule.rule}: {rule.detail}"
        if rule.status == "fail":
            reasons.append(Reason(source="package", text=text, blocking=True))
        elif rule.status == "warn":
            flags.append(_flag(FlagKind.PACKAGE_WARNING, "package", text))
    if not rep.passed and not reasons:
        reasons.append(
            Reason(
                source="package", text="package.json says the image failed its rules", blocking=True
            )
        )
    return reasons, flags


def judge(
    inputs: GateInputs, *, strict: bool = False
) -> tuple[Verdict, list[Reason], list[RiskFlag]]:
    profile = inputs.profile
    ready_limit_s = profile.readiness.timeout_s
    reasons: list[Reason] = []
    flags: list[RiskFlag] = []
    present = {
        "check": inputs.check,
        "latency": inputs.latency,
        "quality": inputs.quality,
        "throughput": inputs.throughput,
        "package": inputs.package,
        "vlm": inputs.vlm,
    }
    for name in inputs.required:
        if present.get(name) is None:
            reasons.append(
                Reason(
                    source="gate",
                    text=f"{name}.json is missing: run harness {name} into this folder",
                    incomplete=True,
                )
            )
    steps: list[tuple[list[Reason], list[RiskFlag]]] = []
    if inputs.check is not None:
        steps.append(check_rules(inputs.check, ready_limit_s))
    if inputs.latency is not None:
        steps.append(latency_rules(inputs.latency, profile.latency, ready_limit_s))
    if inputs.throughput is not None:
        steps.append(throughput_rules(inputs.throughput))
    if inputs.quality is not None:
        qspec = profile.quality
        steps.append(
            quality_rules(inputs.quality, [b.name for b in qspec.benchmarks] if qspec else None)
        )
    if inputs.quality is not None and profile.throughput is not None:
        steps.append((correctness_rules(inputs), []))
    if inputs.package is not None:
        steps.append(package_rules(inputs.package))
    if inputs.vlm is not None:
        from harness.gate.vlm_rules import vlm_rules

        steps.append(vlm_rules(inputs.vlm))
    for step_reasons, step_flags in steps:
        reasons += step_reasons
        flags += step_flags
    # the same risk seen by two reports (slow readiness: check and latency) is one flag
    unique: dict[tuple[FlagKind, str], RiskFlag] = {}
    for flag in flags:
        unique.setdefault((flag.kind, flag.text), flag)
    flags = list(unique.values())
    if strict:
        reasons += [
            Reason(source="gate", text=f"--strict: {flag.text}", blocking=True) for flag in flags
        ]
    if any(r.blocking for r in reasons):
        verdict = Verdict.FAIL
    elif any(r.incomplete for r in reasons):
        verdict = Verdict.INCOMPLETE
    else:
        verdict = Verdict.PASS
    return verdict, reasons, flags
