"""The gate's rules: pure functions from report data to reasons and flags.

Each rule reads one report and returns :class:`Reason` lines (blocking or not)
and risk flags. :func:`judge` combines them: any blocking reason → FAIL; else
any missing or partial required report → INCOMPLETE; else PASS. ``strict``
turns every risk flag into a blocking reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.conformance.model import CheckReport, Result
from harness.gate.report import Reason, Verdict
from harness.latency.report import LatencyReport
from harness.profiles import Bucket, Profile
from harness.quality.report import QualityReport
from harness.stats import binomial_stderr

READY_LIMIT_S = 600.0  # the grader polls /ping for up to 10 minutes
PREFIX_SHARE_RISK = 0.5  # more than half the official speedup not reproduced by unique prompts

# check names whose failure or warning is a named risk of the competition rules
RISKY_CHECKS = {
    "thinking_off": "thinking leaks into content with thinking OFF",
    "thinking_default": "the grader's MMLU-Pro (no thinking switch) would be answered thinking",
    "one_stack": "different answers through different endpoints (routing by endpoint is forbidden)",
}


@dataclass
class GateInputs:
    profile: Profile
    check: CheckReport | None = None
    latency: LatencyReport | None = None
    quality: QualityReport | None = None
    throughput: dict[str, Any] | None = None  # throughput.json as data (its own schema)
    package: dict[str, Any] | None = None  # package.json as data (only with --image)
    required: list[str] = field(default_factory=list)


def required_reports(profile: Profile, *, image: bool = False) -> list[str]:
    out = ["check"]
    if profile.latency is not None:
        out.append("latency")
    if profile.throughput is not None:
        out.append("throughput")
    if profile.quality is not None:
        out.append("quality")
    if image:
        out.append("package")
    return out


def check_rules(rep: CheckReport) -> tuple[list[Reason], list[str]]:
    reasons: list[Reason] = []
    flags: list[str] = []
    for c in rep.checks:
        if c.required and c.result is Result.FAIL:
            reasons.append(
                Reason(source="check", text=f"check {c.name} failed: {c.reason}", blocking=True)
            )
        elif c.result in (Result.FAIL, Result.WARN):
            flags.append(f"check {c.name} ({c.result.value}): {c.reason}")
        for key, risk in RISKY_CHECKS.items():
            if c.name == key and c.result in (Result.FAIL, Result.WARN):
                flags.append(f"{risk}: {c.reason}")
    if rep.readiness_s is not None and rep.readiness_s > READY_LIMIT_S:
        flags.append(
            f"readiness took {rep.readiness_s:.0f} s, over the grader's {READY_LIMIT_S:.0f} s"
        )
    if not rep.complete:
        reasons.append(
            Reason(source="check", text="check.json is partial (interrupted)", incomplete=True)
        )
    return reasons, flags


def latency_rules(
    rep: LatencyReport, profile_buckets: list[Bucket] | None = None
) -> tuple[list[Reason], list[str]]:
    reasons: list[Reason] = []
    flags = [f"latency: {f}" for f in rep.flags if not f.startswith(("failures", "no-data"))]
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
                f"latency: {b.n_failed} timed {b.name} requests failed and were dropped ({b.errors})"
            )
    for gap in rep.gaps:
        share = gap.share_of_official_speedup
        if share is not None and share > PREFIX_SHARE_RISK:
            flags.append(
                f"latency: {share:.0%} of the {gap.bucket} speedup is not reproduced with unique prompts "
                f"({gap.cause.split(':')[0]}): the grader's repeated prompt flatters it"
            )
    if rep.readiness_s is not None and rep.readiness_s > READY_LIMIT_S:
        flags.append(
            f"readiness took {rep.readiness_s:.0f} s, over the grader's {READY_LIMIT_S:.0f} s"
        )
    expected = [b.name for b in profile_buckets] if profile_buckets else []
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
    if not settings.get("official_procedure", True):
        flags.append(
            f"latency measured with {settings.get('runs')} runs / {settings.get('warmup')} warm-up "
            f"over {settings.get('buckets')} (the grader: 50 / 5 over short, medium, long)"
        )
    if not rep.complete:
        reasons.append(
            Reason(source="latency", text="latency.json is partial (interrupted)", incomplete=True)
        )
    return reasons, flags


def quality_rules(
    rep: QualityReport, expected: list[str] | None = None
) -> tuple[list[Reason], list[str]]:
    reasons: list[Reason] = []
    flags: list[str] = []
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
        elif judged < b.threshold:
            reasons.append(
                Reason(source="quality", text=f"quality gate failed: {line}", blocking=True)
            )
        else:
            reasons.append(Reason(source="quality", text=f"quality gate passed: {line}"))
        if se is not None and abs(b.score - b.threshold) <= 2 * se:
            flags.append(
                f"quality: {b.title} is within its sampling error of the threshold ({line})"
            )
        if b.errors:
            flags.append(
                f"quality: {b.errors} {b.title} requests failed every attempt and were scored as wrong"
            )
        if b.thinking_stats and b.thinking_stats.lost_to_budget:
            flags.append(
                f"quality: {b.thinking_stats.lost_to_budget} {b.title} answers lost to the thinking budget"
            )
    if not rep.official and rep.non_official:
        flags.append(f"quality measured with non-official settings: {rep.non_official}")
    if not rep.complete:
        reasons.append(
            Reason(source="quality", text="quality.json is partial (interrupted)", incomplete=True)
        )
    return reasons, flags


def throughput_rules(data: dict[str, Any]) -> tuple[list[Reason], list[str]]:
    reasons: list[Reason] = []
    flags = [f"throughput: {f}" for f in data.get("flags", []) if isinstance(f, str)]
    score = data.get("score")
    if isinstance(score, int | float):
        reasons.append(
            Reason(source="throughput", text=f"throughput score {score:,.1f} (weighted tok/s)")
        )
    else:
        reasons.append(
            Reason(source="throughput", text="throughput.json has no score", incomplete=True)
        )
    if data.get("complete") is False:
        reasons.append(
            Reason(source="throughput", text="throughput.json is partial", incomplete=True)
        )
    if data.get("score_complete") is False:
        flags.append(
            "throughput: not every level of the profile was measured: the score is not comparable"
        )
    if data.get("official") is False:
        flags.append(
            f"throughput measured with non-official settings: {data.get('non_official', {})}"
        )
    if data.get("spot_checks_passed") is False:
        flags.append("throughput: a math spot check failed (garbage output under load?)")
    if data.get("passed") is False:
        reasons.append(
            Reason(
                source="throughput",
                text="strict throughput run failed its spot checks or requests",
                blocking=True,
            )
        )
    return reasons, flags


def package_rules(data: dict[str, Any]) -> tuple[list[Reason], list[str]]:
    reasons: list[Reason] = []
    flags: list[str] = []
    for rule in data.get("rules", []):
        if not isinstance(rule, dict):
            continue
        text = f"package rule {rule.get('rule')}: {rule.get('detail', '')}"
        if rule.get("status") == "fail":
            reasons.append(Reason(source="package", text=text, blocking=True))
        elif rule.get("status") == "warn":
            flags.append(text)
    if data.get("passed") is False and not reasons:
        reasons.append(
            Reason(
                source="package", text="package.json says the image failed its rules", blocking=True
            )
        )
    return reasons, flags


def judge(inputs: GateInputs, *, strict: bool = False) -> tuple[Verdict, list[Reason], list[str]]:
    reasons: list[Reason] = []
    flags: list[str] = []
    present = {
        "check": inputs.check,
        "latency": inputs.latency,
        "quality": inputs.quality,
        "throughput": inputs.throughput,
        "package": inputs.package,
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
    if inputs.check is not None:
        r, f = check_rules(inputs.check)
        reasons += r
        flags += f
    if inputs.latency is not None:
        spec = inputs.profile.latency
        r, f = latency_rules(inputs.latency, list(spec.buckets) if spec else None)
        reasons += r
        flags += f
    if inputs.throughput is not None:
        r, f = throughput_rules(inputs.throughput)
        reasons += r
        flags += f
    if inputs.quality is not None:
        qspec = inputs.profile.quality
        r, f = quality_rules(inputs.quality, [b.name for b in qspec.benchmarks] if qspec else None)
        reasons += r
        flags += f
    if inputs.package is not None:
        r, f = package_rules(inputs.package)
        reasons += r
        flags += f
    flags = list(dict.fromkeys(flags))
    if strict:
        reasons += [Reason(source="gate", text=f"--strict: {f}", blocking=True) for f in flags]
    if any(r.blocking for r in reasons):
        verdict = Verdict.FAIL
    elif any(r.incomplete for r in reasons):
        verdict = Verdict.INCOMPLETE
    else:
        verdict = Verdict.PASS
    return verdict, reasons, flags
