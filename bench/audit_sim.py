"""What the audit benches share (bench/audit.py, audit_paris.py, audit_paraphrase.py):
the audit's request schedule and the bound their error-rate tables print. Not a bench."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.audit.analysis import needs_confirmation
from harness.audit.report import Phase, Role, Sample
from harness.profiles import AuditSpec
from harness.stats import wilson_interval

ROLES: tuple[Role, ...] = ("repeated", "near_filler", "unique_head")


def send_rounds(
    send: Callable[[Role, Phase, int], None], samples: Sequence[Sample], spec: AuditSpec
) -> None:
    """The audit's schedule, as the product sends it: ``spec.warmup`` repeated prompts, then
    ``spec.rounds`` rounds of the three roles rotated by the round's index (none always first
    or last: harness/audit/controls.py ``rotated``), then as many again when
    ``needs_confirmation`` asks for the second look on what ``send`` appended to ``samples``."""
    for i in range(spec.warmup):
        send("repeated", "warmup", i)
    looks: tuple[tuple[Phase, int], ...] = (("timed", 0), ("confirm", spec.rounds))
    for phase, first in looks:
        if phase == "confirm" and not needs_confirmation(samples, spec):
            break
        for i in range(first, first + spec.rounds):
            k = i % len(ROLES)
            for role in ROLES[k:] + ROLES[:k]:
                send(role, phase, i)


def upper95(k: int, n: int) -> float:
    """One-sided 95 % upper bound of a rate seen k times in n: Wilson's score bound at z
    1.645, sound at k = 0 and for a handful of events, where the normal approximation is
    not."""
    bound = wilson_interval(k, n, z=1.645)
    assert bound is not None, "no trials"
    return bound[1]
