"""The order a trial's decisions are taken in (pure; its statuses: harness/tune/record/status.py).

The real trial (harness/tune/trial/__init__.py) and the bench's simulated one
(bench/tune_landscape.py) both decide through these functions, so the bench measures
the procedure that runs: after the speed measurement, :func:`after_speed` (a blocking
gate reason → ``gate-failed``; raced out → ``lost-race``; no better than the incumbent →
``tie`` within the noise band of :func:`within_noise`, else ``slower``; else quality is
measured), then :func:`after_quality`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.paired.stats import MIN_EFFECT_PCT
from harness.tune.record.status import Status

NEW_INCUMBENT = "new incumbent"  # an ok trial's why when it beat the incumbent it knew of


@dataclass
class TrialResult:
    status: Status
    why: str
    score: float | None = None
    cold_start_s: float | None = None
    launch: str = ""
    log_tail: str = ""
    verdict: str | None = None
    steps: list[str] = field(default_factory=list)
    # each step of the gate plan with its result (harness/tune/trial/steps.py); the bench's
    # simulated trial has none
    results: dict[str, str] = field(default_factory=dict)
    bound: float | None = None  # lost-race: the optimistic score bound it stopped at
    # what qualifies the score while it is not the grader's (its gate's ``score_caveat``:
    # ``short only`` when the space's options.buckets measure fewer than the profile's)
    score_caveat: str = ""

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # a status's string (the bench's) is its member

    @property
    def objective(self) -> float:
        """What the study is told: the score (a gate-failed trial's measured speed too: why,
        harness/tune/study/sampling.py), a lost race's bound, 0 with no speed measured."""
        if not self.status.feasible and self.status is not Status.GATE_FAILED:
            return 0.0
        return float(self.score if self.score is not None else self.bound or 0.0)


def num(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def after_speed(
    *,
    raced: str | None,
    bound: float | None,
    blocking: str | None,
    score: float | None,
    incumbent: float | None,
    quality_next: bool,
    slo: str | None = None,
) -> TrialResult | None:
    """The trial's end after its speed measurement, or None: measure quality next.

    ``raced``: why the race stopped the speed measurement (None: it ran to its end);
    ``blocking``: the first blocking reason of the folder judged without quality;
    ``slo``: why an SLO of the space is violated (None: met, or none)."""
    if blocking is not None:
        return TrialResult(Status.GATE_FAILED, blocking, score, verdict="FAIL")
    if raced:
        return TrialResult(Status.LOST_RACE, raced, None, bound=bound)
    if slo:
        return TrialResult(Status.SLO_FAILED, slo, score)
    if quality_next and incumbent is not None and (score is None or score <= incumbent):
        if score is not None and within_noise(score, incumbent):
            why = (
                f"score {num(score)} within noise of incumbent {num(incumbent)} "
                f"({pct(score, incumbent)}, under the {MIN_EFFECT_PCT:g} % minimum effect): "
                "a tie, quality not measured"
            )
            return TrialResult(Status.TIE, why, score)
        why = f"score {num(score)} ≤ incumbent {num(incumbent)}: quality not measured"
        return TrialResult(Status.SLOWER, why, score)
    return None


def within_noise(score: float, other: float) -> bool:
    """Whether two scores differ by no more than compare's minimum effect
    (harness/paired/stats.py ``MIN_EFFECT_PCT``: two fresh processes of one server differ by
    1–2 %), the noise band the confirmation's call uses too."""
    return other != 0 and abs(score - other) / abs(other) * 100 <= MIN_EFFECT_PCT


def pct(score: float, other: float) -> str:
    """``−0.08 %``: the score's difference from ``other``, in % of it."""
    return f"{(score - other) / other * 100:+.2f} %".replace("-", "−") if other else "—"


def after_quality(
    *,
    blocking: str | None,
    score: float | None,
    incumbent: float | None,
    verdict: str,
    audit: str | None = None,
) -> TrialResult:
    """The trial's end once quality (and the audit) is measured (``blocking``: the final
    verdict's first blocking reason, None when no gate failed; ``audit``: its first failing
    audit rule, which makes the trial infeasible whatever else it scored: objective 0)."""
    if audit is not None:
        return TrialResult(Status.AUDIT_FAILED, audit, score, verdict="FAIL")
    if blocking is not None:
        return TrialResult(Status.GATE_FAILED, blocking, score, verdict="FAIL")
    why = NEW_INCUMBENT if incumbent is None or (score or 0) > incumbent else "ok"
    return TrialResult(Status.OK, why, score, verdict=verdict)
