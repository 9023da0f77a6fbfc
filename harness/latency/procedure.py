"""Whether a latency run followed the grader's procedure, as the profile declares it."""

from __future__ import annotations

from harness.profiles import LatencySpec


def official_procedure(runs: object, warmup: object, buckets: object, spec: LatencySpec) -> bool:
    """The profile's runs, warm-ups and buckets, in its order: what the grader does."""
    return runs == spec.runs and warmup == spec.warmup and buckets == [b.name for b in spec.buckets]
