"""The gate's rules for ``throughput.json``, and its score zeroed by the correctness gate."""

from __future__ import annotations

from collections.abc import Mapping

from harness.profiles import ThroughputSpec
from harness.quality.correctness import CorrectnessVerdict, evaluate, gated_score
from harness.risk import FlagKind
from harness.throughput.report import ThroughputReport
from harness.throughput.scoring import SCORE
from harness.verdict import Judgement, Reason, risk


def zero_unless(spec: ThroughputSpec | None) -> str:
    """``the grader scores 0 unless gsm8k passes score.py's gate (exact_match,strict-match
    ≥ 0.85)``: the readings of the correctness gate that zero the score; "" when none does."""
    rules = [r for r in spec.correctness_rules if r.zeroes_score] if spec is not None else []
    if not rules:
        return ""
    gates = " and ".join(
        f"{r.benchmark} passes {r.name}'s gate ({r.metric} ≥ {r.threshold:g})" for r in rules
    )
    return f"the grader scores 0 unless {gates}"


def unjudged(
    spec: ThroughputSpec | None, correctness: CorrectnessVerdict | None, *, judged: bool = True
) -> bool:
    """A reading of the correctness gate that zeroes the score is not measured yet (no quality
    report, or no figure for it): the measured score is not yet the grader's. ``judged``:
    the profile measures that gate (quality is one of its steps)."""
    if not zero_unless(spec) or not judged:
        return False
    zeroing = [o for o in (correctness.outcomes if correctness else ()) if o.rule.zeroes_score]
    return correctness is None or any(o.passed is None for o in zeroing)


def score_caveat(
    spec: ThroughputSpec | None, correctness: CorrectnessVerdict | None, *, judged: bool = True
) -> str:
    """``scored 0 unless gsm8k passes``: the gate's headline beside a score whose
    score-zeroing correctness gate was not measured (``weighted tok/s: scored 0 unless gsm8k
    passes``; the score line below names the gate and its threshold); "" otherwise."""
    if spec is None or not unjudged(spec, correctness, judged=judged):
        return ""
    names = dict.fromkeys(r.benchmark for r in spec.correctness_rules if r.zeroes_score)
    return f"scored 0 unless {' and '.join(names)} passes"


def unmeasured_gate(spec: ThroughputSpec | None, url: str, profile: str, folder: str) -> str:
    """What a sweep says of the correctness gate it does not measure, with the commands that
    do (``throughput.json`` → ``score_gate``); "" when no reading of it zeroes the score."""
    unless = zero_unless(spec)
    if not unless:
        return ""
    at = f"--url {url} --profile {profile}"
    return (
        f"{unless}, which this sweep does not measure: harness quality {at} --out {folder},"
        f" then harness gate {folder} (or the whole gate: harness gate {at})"
    )


def score_reason(
    score: float | None,
    spec: ThroughputSpec | None,
    correctness: CorrectnessVerdict | None,
    *,
    judged: bool = True,
) -> list[Reason]:
    """The score's line, a ✓ only where the grader would give that score: no reading of the
    correctness gate zeroes it, or those that do passed. A score one zeroes is
    :func:`score_zeroed`'s ✗ line (none here); one whose gate was not measured is
    incomplete. ``judged``: the profile measures that gate (quality is one of its steps)."""
    if score is None:
        return [Reason(source="throughput", text="throughput.json has no score", incomplete=True)]
    line = f"throughput score {SCORE.text(score)} ({SCORE.name})"
    if judged and correctness is not None and correctness.zeroes_score:
        return []
    if unjudged(spec, correctness, judged=judged):
        text = f"{line} as measured; {zero_unless(spec)}: not measured"
        return [Reason(source="throughput", text=text, incomplete=True)]
    return [Reason(source="throughput", text=line)]


def throughput_rules(
    rep: ThroughputReport,
    spec: ThroughputSpec | None = None,
    correctness: CorrectnessVerdict | None = None,
    *,
    judged: bool = True,
) -> Judgement:
    """The sweep's rules; ``correctness``: the profile's correctness gate over the folder's
    quality report (None: not measured), which decides whether the score line is a ✓."""
    reasons = score_reason(rep.score, spec, correctness, judged=judged)
    flags = [risk(f.kind, "throughput", f"throughput: {f.text}") for f in rep.flags]
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
    if not rep.spot_checks_passed and not any(f.kind is FlagKind.SPOT_CHECK for f in rep.flags):
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
            text=f"the grader's score is {SCORE.text(gated_score(score, verdict))}: "
            f"{', '.join(o.rule.name for o in verdict.failed)} failed "
            f"(harness measured {SCORE.text(score) if score is not None else 'no score'})",
            blocking=True,
        )
    ]
