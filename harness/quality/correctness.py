"""The Paris correctness gate, both readings, as pure functions (docs/throughput.md).

The track's README says GSM8K exact match ≥ 87.5 %; ``eval/score.py`` gates at
0.85 on the first result key containing ``exact_match`` (``exact_match,strict-match``
under lm-eval 0.4.11) and sets the throughput score to 0 when it fails. They
disagree, so harness evaluates every rule of the profile
(``[[throughput.correctness_rules]]``): the gate FAILS when any fails and names
which; the score is zeroed when a rule that zeroes it (score.py's) fails.
Comparisons are on the raw value, as score.py makes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.profiles import CorrectnessRule

Metrics = Mapping[str, Mapping[str, float]]  # benchmark name → lm-eval metric key → value


@dataclass(frozen=True)
class RuleOutcome:
    rule: CorrectnessRule
    value: float | None  # None: the benchmark or the metric was not measured

    @property
    def passed(self) -> bool | None:
        return None if self.value is None else self.value >= self.rule.threshold

    def line(self) -> str:
        r = self.rule
        if self.value is None:
            return f"{r.name}: {r.benchmark} {r.metric} not measured ({r.source})"
        op = "≥" if self.passed else "<"
        return (
            f"{r.name}: {r.benchmark} {r.metric} {self.value:.4f} {op} {r.threshold} ({r.source})"
        )


@dataclass(frozen=True)
class CorrectnessVerdict:
    outcomes: tuple[RuleOutcome, ...]

    @property
    def failed(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if o.passed is False]

    @property
    def missing(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if o.passed is None]

    @property
    def passed(self) -> bool | None:
        """False when any rule fails; None when none fails but one was not measured."""
        if self.failed:
            return False
        return None if self.missing else True

    @property
    def zeroes_score(self) -> bool:
        return any(o.rule.zeroes_score for o in self.failed)


def evaluate(rules: Sequence[CorrectnessRule], metrics: Metrics) -> CorrectnessVerdict:
    return CorrectnessVerdict(
        tuple(RuleOutcome(r, metrics.get(r.benchmark, {}).get(r.metric)) for r in rules)
    )


def gated_score(score: float | None, verdict: CorrectnessVerdict) -> float | None:
    """The grader's final score: 0 when a score-zeroing rule fails, else ``score``."""
    return 0.0 if verdict.zeroes_score else score
