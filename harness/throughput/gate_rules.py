"""The gate's rules for ``throughput.json``, and the throughput profile's correctness gate."""

from __future__ import annotations

from collections.abc import Mapping

from harness.profiles import ThroughputSpec
from harness.risk import FlagKind
from harness.throughput.correctness import evaluate, gated_score
from harness.throughput.report import ThroughputReport
from harness.verdict import Judgement, Reason, risk


def throughput_rules(rep: ThroughputReport) -> Judgement:
    reasons: list[Reason] = []
    flags = [risk(f.kind, "throughput", f"throughput: {f.text}") for f in rep.flags]
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
            risk(
                FlagKind.PARTIAL_SWEEP,
                "throughput",
                "throughput: not every level of the profile was measured: the score is not "
                "comparable",
            )
        )
    if not rep.official:
        text = f"throughput measured with non-official settings: {rep.non_official}"
        flags.append(risk(FlagKind.NON_OFFICIAL, "throughput", text))
    if not rep.spot_checks_passed:
        text = "throughput: a math spot check failed (garbage output under load?)"
        flags.append(risk(FlagKind.SPOT_CHECK, "throughput", text))
    if rep.passed is False:
        reasons.append(
            Reason(
                source="throughput",
                text="strict throughput run failed its spot checks or requests",
                blocking=True,
            )
        )
    return reasons, flags


def correctness_rules(
    spec: ThroughputSpec | None,
    metrics: Mapping[str, Mapping[str, float]],
    score: float | None,
) -> list[Reason]:
    """Every reading of a throughput profile's correctness gate (Paris: the README's and
    eval/score.py's) over the quality report's ``metrics``; a failing one is blocking and
    named, and says when the grader scores 0 (harness/throughput/correctness.py)."""
    if spec is None or not spec.correctness_rules:
        return []
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
