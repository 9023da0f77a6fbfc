"""Whether a latency run followed the grader's procedure, as the profile declares it.

One source of truth for the ``non_official`` risk flag: ``harness latency`` puts it
in its own report (and its headline says so), and the gate restates it against
the profile it judges with (harness/latency/gate_rules.py); both call
:func:`procedure_flag`.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.profiles import LatencySpec
from harness.risk import FlagKind, RiskFlag


def official_procedure(runs: object, warmup: object, buckets: object, spec: LatencySpec) -> bool:
    """The profile's runs, warm-ups and buckets, in its order: what the grader does."""
    return runs == spec.runs and warmup == spec.warmup and buckets == [b.name for b in spec.buckets]


def _plural(n: object, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def departures(runs: object, warmup: object, buckets: object, spec: LatencySpec) -> str | None:
    """What differs from the grader's procedure, short: ``1 of 3 buckets; 10 runs / 1 warm-up``
    (None: nothing differs)."""
    if official_procedure(runs, warmup, buckets, spec):
        return None
    graders = [b.name for b in spec.buckets]
    names = list(buckets) if isinstance(buckets, list | tuple) else []
    parts: list[str] = []
    if names != graders:
        if set(names) <= set(graders) and len(names) < len(graders):
            parts.append(f"{len(names)} of {len(graders)} buckets")
        else:
            parts.append(f"buckets {', '.join(map(str, names)) or 'none'}")
    if runs != spec.runs or warmup != spec.warmup:
        parts.append(f"{_plural(runs, 'run')} / {_plural(warmup, 'warm-up')}")
    return "; ".join(parts)


def procedure_flag(settings: Mapping[str, object], spec: LatencySpec) -> RiskFlag | None:
    """The ``non_official`` flag of a report's settings judged against ``spec``; None when
    they are the grader's (or the report records no settings to judge)."""
    if "runs" not in settings:
        return None
    what = departures(settings.get("runs"), settings.get("warmup"), settings.get("buckets"), spec)
    if what is None:
        return None
    graders = ", ".join(b.name for b in spec.buckets)
    return RiskFlag(
        kind=FlagKind.NON_OFFICIAL,
        source="latency",
        text=f"not the grader's procedure ({what}; the grader: {_plural(spec.runs, 'run')} / "
        f"{_plural(spec.warmup, 'warm-up')} over {graders}): the grader's score may differ",
    )
