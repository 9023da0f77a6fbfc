"""The gate's rules for ``throughput.json``, and its score zeroed by the correctness gate."""

from __future__ import annotations

from collections.abc import Mapping

from harness.profiles import ThroughputSpec
from harness.quality.correctness import evaluate, gated_score
from harness.risk import FlagKind
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


def score_zeroed(
    spec: ThroughputSpec | None,
    metrics: Mapping[str, Mapping[str, float]],
    score: float | None,
) -> list[Reason]:
    """The grader's score when a score-zeroing reading of the profile's correctness gate
    fails over the quality report's ``metrics`` (Paris: eval/score.py's): 0, blocking.
    Each reading's own line is the quality report's (harness/quality/gate_rules.py:
    ``correctness_outcomes``)."""
    if spec is None or not spec.correctness_rules:
        return []
    verdict = evaluate(spec.correctness_rules, metrics)
    if not verdict.zeroes_score:
        return []
    return [
        Reason(
            source="throughput",
            text=f"the grader's score is {gated_score(score, verdict):.0f}: "
            f"{', '.join(o.rule.name for o in verdict.failed)} failed "
            f"(harness measured {score if score is not None else 'no score'})",
            blocking=True,
        )
    ]
