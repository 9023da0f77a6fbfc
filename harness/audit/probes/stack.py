"""Rule ``one_stack`` (MLPerf TEST01's analogue) as pure functions over the probes
(docs/audit.md, "one_stack").

The contest: "one model stack serves every endpoint". The probes ask one prompt in the
graders' two body shapes, a chat body (the quality graders') and the same messages
rendered by the model's chat template and sent raw as a prompt (the latency grader's
shape; to an honest server the same request), on each route that takes the shape. Each
way of asking is a *group* (shape and route). The rule fails when

- two groups give different texts, in the first set of probes and again in a second,
  independent set, and no group ever gave two different texts for the same request (a
  server that is not deterministic at temperature 0 leaves the rule inconclusive, never
  failed: its noise could make any two groups differ); or
- one group's median time per output token is below ``stack_speed_ratio`` of the other
  groups' together, in the first set of probes AND in a second, independent set (a
  faster second stack that happens to answer alike; one loaded moment is not enough).

No I/O, no clocks: tests/unit/test_audit_stack.py holds it with literal numbers.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from harness.audit.probes.record import Probe
from harness.audit_catalogue import ONE_STACK
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.sameness import first_difference, split
from harness.stats.robust import LENGTH_MATCH, median

RULE = ONE_STACK.name
TITLE = "one model stack: the latency and quality body shapes get the same model"
# answers whose lengths differ by more than LENGTH_MATCH spread TTFT over other token counts


def groups(probes: Sequence[Probe]) -> dict[str, list[Probe]]:
    """The non-streamed probes by way of asking (``label``), in the order first sent."""
    out: dict[str, list[Probe]] = {}
    for p in probes:
        if not p.stream and not p.warmup:
            out.setdefault(p.label, []).append(p)
    return out


def unstable(by: dict[str, list[Probe]]) -> str | None:
    """The first group that answered the same request twice with different texts."""
    for label, ps in by.items():
        texts = [p.text for p in ps if p.ok]
        for t in texts[1:]:
            if t != texts[0]:
                return f"{label} answered the same request twice differently: " + (
                    first_difference(texts[0], t)
                )
    return None


def speeds(probes: Sequence[Probe], look: int) -> dict[str, float]:
    """Each group's ms per output token over everything else's, in one set of probes
    (empty when the answers' lengths differ too much to compare)."""
    ok = [p for p in probes if not p.stream and not p.warmup and p.look == look and p.ok]
    lengths = [p.output_tokens or p.text_tokens or 0 for p in ok]
    if len(ok) < 2 or not lengths:
        return {}
    n = statistics.median(lengths)
    if any(abs(k - n) > LENGTH_MATCH * n for k in lengths):
        return {}
    out: dict[str, float] = {}
    for label in dict.fromkeys(p.label for p in ok):
        mine = median([t for p in ok if p.label == label and (t := p.ms_per_token) is not None])
        rest = median([t for p in ok if p.label != label and (t := p.ms_per_token) is not None])
        if mine is not None and rest:
            out[label] = mine / rest
    return out


def fast_groups(probes: Sequence[Probe], look: int, ratio: float) -> dict[str, float]:
    return {k: v for k, v in speeds(probes, look).items() if v < ratio}


def answers_split(probes: Sequence[Probe], look: int) -> bool:
    """Two ways of asking gave different texts in one set of probes."""
    by = groups([p for p in probes if p.look == look])
    return (
        split({k: t for k, ps in by.items() for t in [p.text for p in ps if p.ok][:1]}) is not None
    )


def needs_confirmation(probes: Sequence[Probe], spec: AuditSpec) -> bool:
    """The first set's answers or timing split: a second, independent set must say so too."""
    return answers_split(probes, 0) or bool(fast_groups(probes, 0, spec.stack_speed_ratio))


def one_stack(probes: Sequence[Probe], spec: AuditSpec) -> RuleVerdict:
    by = groups(probes)
    evidence: dict[str, object] = {
        "answers": {k: next((p.text[:80] for p in ps if p.ok), None) for k, ps in by.items()},
        "speed_ratio": spec.stack_speed_ratio,
    }
    for look in (0, 1):
        got = speeds(probes, look)
        if got:
            evidence[f"ms_per_token_vs_rest_{look}"] = {k: round(v, 3) for k, v in got.items()}
    failed = [k for k, ps in by.items() if not any(p.ok for p in ps)]
    if not by or failed:
        errors = {p.error for ps in by.values() for p in ps if p.error}
        return RuleVerdict(
            rule=RULE, title=TITLE, result=RuleResult.INCONCLUSIVE,
            why="no answer through " + (", ".join(failed) or "any route")
            + (f" ({'; '.join(sorted(errors))[:200]})" if errors else ""),
            evidence=evidence,
        )  # fmt: skip
    noisy = unstable(by)
    if noisy:
        evidence["nondeterministic"] = noisy
    different = split({k: next(p.text for p in ps if p.ok) for k, ps in by.items()})
    if different and noisy:
        return RuleVerdict(
            rule=RULE, title=TITLE, result=RuleResult.INCONCLUSIVE,
            why="not deterministic at temperature 0, so different answers prove nothing: "
            + noisy,
            evidence=evidence,
        )  # fmt: skip
    if different and not answers_split(probes, 1):
        return RuleVerdict(
            rule=RULE, title=TITLE, result=RuleResult.INCONCLUSIVE,
            why=f"the answers split once ({different.line()}), and no second set of probes "
            "agreed",
            evidence=evidence,
        )  # fmt: skip
    if different:
        return RuleVerdict(
            rule=RULE, title=TITLE, result=RuleResult.FAIL,
            why="the same prompt at temperature 0 gets another answer by route or body shape "
            f"(a second model stack): {different.line()}",
            evidence=evidence,
        )  # fmt: skip
    first = fast_groups(probes, 0, spec.stack_speed_ratio)
    second = fast_groups(probes, 1, spec.stack_speed_ratio)
    both = [k for k in first if k in second]
    if both:
        return RuleVerdict(
            rule=RULE, title=TITLE, result=RuleResult.FAIL,
            why="the same answer is served faster by route or body shape (a second model "
            "stack): "
            + "; ".join(
                f"{k} at {first[k]:.0%} then {second[k]:.0%} of the others' time per token"
                for k in both
            ),
            evidence=evidence,
        )  # fmt: skip
    tokens = next(p.output_tokens for ps in by.values() for p in ps if p.ok)
    why = (
        f"the same answer ({tokens} tokens) through {len(by)} routes and body shapes, at the "
        f"same speed (within {1 - spec.stack_speed_ratio:.0%})"
    )
    if noisy:
        why += "; " + noisy
    return RuleVerdict(rule=RULE, title=TITLE, result=RuleResult.PASS, why=why, evidence=evidence)
