"""What the audit benches share (bench/audit.py, audit_paris.py, audit_paraphrase.py):
the audit's request schedule, one rule's row of trials and the bound their error-rate
tables print. Not a bench."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from harness.audit.report import Phase, Role, Sample
from harness.audit.timed.detection import needs_confirmation, needs_third_look
from harness.audit.timed.possible import one_token_after
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult
from harness.stats.intervals import wilson_interval

ROLES: tuple[Role, ...] = ("repeated", "near_filler", "unique_head")


def send_rounds(
    send: Callable[[Role, Phase, int], None], samples: Sequence[Sample], spec: AuditSpec
) -> None:
    """The audit's schedule, as the product sends it: ``spec.warmup`` repeated prompts, then
    ``spec.rounds`` rounds of the three roles rotated by the round's index (none always first
    or last: harness/audit/timed/controls.py ``rotated``), the repeated prompt for one token
    (``physically_possible``) after the timed rounds ``one_token_after`` names (the k-th
    request's round is k), then as many rounds again when ``needs_confirmation`` asks for
    the second look on what ``send`` appended to ``samples``, and as many again (``third``,
    rounds 2 × ``rounds`` on) when ``needs_third_look`` asks for the third."""
    for i in range(spec.warmup):
        send("repeated", "warmup", i)
    one_token = one_token_after(spec.rounds) if "physically_possible" in spec.rules else []
    looks: tuple[tuple[Phase, int], ...] = (
        ("timed", 0), ("confirm", spec.rounds), ("third", 2 * spec.rounds)
    )  # fmt: skip
    for phase, first in looks:
        if phase == "confirm" and not needs_confirmation(samples, spec):
            break
        if phase == "third" and not needs_third_look(samples, spec):
            break
        for i in range(first, first + spec.rounds):
            k = i % len(ROLES)
            for role in ROLES[k:] + ROLES[:k]:
                send(role, phase, i)
            if phase == "timed":  # the one-token requests due after this round, as sent
                for j in (j for j, at in enumerate(one_token) if at == i):
                    send("one_token", "timed", j)


def upper95(k: int, n: int) -> float:
    """One-sided 95 % upper bound of a rate seen k times in n: Wilson's score bound at z
    1.645, sound at k = 0 and for a handful of events, where the normal approximation is
    not."""
    bound = wilson_interval(k, n, z=1.645)
    assert bound is not None, "no trials"
    return bound[1]


def rule_row(
    rule: str,
    server: str,
    honest: bool,
    trials: int,
    once: Callable[[], tuple[RuleResult, int]],
    width: int = 48,
) -> dict[str, object]:
    """``trials`` audits of one rule on one simulated server (``once``: its verdict and the
    requests it sent), as a table row; the row is also printed to stderr."""
    got = {r: 0 for r in RuleResult}
    requests = 0
    for _ in range(trials):
        result, n = once()
        got[result] += 1
        requests += n
    fail, inc = got[RuleResult.FAIL], got[RuleResult.INCONCLUSIVE]
    print(f"{server:{width}} req {requests / trials:5.1f}  fail {fail / trials:7.3%} "
          f"(≤{upper95(fail, trials):.3%})  inc {inc / trials:6.2%}", file=sys.stderr)  # fmt: skip
    return {"rule": rule, "server": server, "honest": honest, "trials": trials,
            "mean_requests": requests / trials, "fail": fail / trials,
            "fail95": upper95(fail, trials), "inconclusive": inc / trials}  # fmt: skip
