"""Risk flags: typed records the measurement reports write and the gate reads by kind.

A risk flag says "this number may not mean what it seems" without failing the
run: an early stop the grader times as fast, a speedup that only a repeated
prompt earns, a setting the grader does not use. The gate decides by
:attr:`RiskFlag.kind` and never by :attr:`RiskFlag.text`, so a message can be
reworded without changing a verdict (tests/unit/test_gate_flags.py).

Reports written before flags were typed hold plain strings; :func:`flag_from_text`
turns one back into a record when the reader migrates such a report.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict


class FlagKind(StrEnum):
    """What a flag is about. The gate reads this; values are stable report data."""

    EARLY_STOP = "early_stop"  # answers shorter than max_tokens, timed as fast
    REQUEST_FAILURES = "request_failures"  # some requests failed and were dropped or scored wrong
    NO_DATA = "no_data"  # every timed request of a bucket failed
    USAGE_MISMATCH = "usage_mismatch"  # usage.completion_tokens ≠ re-tokenised output
    USAGE_MISSING = "usage_missing"  # answers without usage.completion_tokens
    PROMPT_MISMATCH = "prompt_mismatch"  # the server counted another prompt length
    SPEEDUP_GAP = "speedup_gap"  # the official speedup is not reproduced with unique prompts
    SLOW_READINESS = "slow_readiness"  # readiness slower than the grader waits
    NON_OFFICIAL = "non_official"  # measured with settings the grader does not use
    ESTIMATE = "estimate"  # stopped early once the answer was settled: not the grader's full run
    CHECK_NOT_PASSED = "check_not_passed"  # a non-required check failed or warned
    THINKING_LEAK = "thinking_leak"  # thinking in the answer where it must be off
    THINKING_DEFAULT = "thinking_default"  # thinks when no switch is sent (MMLU-Pro's bodies)
    # different answers (or speeds) through different endpoints or body shapes
    ENDPOINT_ROUTING = "endpoint_routing"
    NEAR_THRESHOLD = "near_threshold"  # a quality score within its sampling error of the gate
    SAMPLE_DATA = "sample_data"  # quality scored on harness's sample data, not the grader's set
    THINKING_BUDGET = "thinking_budget"  # answers lost to the thinking budget
    PARTIAL_SWEEP = "partial_sweep"  # not every throughput level was measured
    SPOT_CHECK = "spot_check"  # a throughput spot check failed
    SHORT_OUTPUTS = "short_outputs"  # --force-length not honoured
    CLIENT_BOTTLENECK = "client_bottleneck"  # the client may hold the server back
    SERVED_MODEL = "served_model"  # the server does not serve the profile's model name
    PACKAGE_WARNING = "package_warning"  # a package rule warned
    VLM_INTEGRITY = "vlm_integrity"  # a VLM run's behaviour the official averages hide (older)
    VLM_CALL_DEPENDENCE = "vlm_call_dependence"  # output depends on max_new_tokens or call order
    VLM_CROSS_CALL_CACHE = "vlm_cross_call_cache"  # work reused across the three generate calls
    VLM_COLD_WARMUP = "vlm_cold_warmup"  # the warm-up left the measured path cold
    VLM_PIXEL_BUDGET = "vlm_pixel_budget"  # the processor's pixel budget is not the model's
    VLM_REPEATED_IMAGES = "vlm_repeated_images"  # an image sent again can hit server caches
    VLM_NO_GROUND_TRUTH = "vlm_no_ground_truth"  # no answers in the data: no accuracy, no score
    RUN_STOPPED = "run_stopped"  # the measuring process stopped before the end
    EMPTY_CHOICES = "empty_choices"  # HTTP 200 without choices, timed as a success (the grader)
    STRICT_CACHED = "strict_cached"  # prompts meant to be unique came from the prefix cache
    SELF_TEST_ERROR = "self_test_error"  # the client's own timing error is large against the run
    NETWORK = "network"  # measured over a network whose round trip is a share of the medians
    AUDIT_INCONCLUSIVE = "audit_inconclusive"  # an audit rule could not be judged
    RESPONSE_CACHE = "response_cache"  # the repeated prompt skipped its decode: answers cached
    OTHER = "other"  # a flag of an older report whose kind is unknown


class RiskFlag(BaseModel):
    """One risk: ``kind`` for the gate, ``text`` for the user, ``source`` the report it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: FlagKind
    text: str
    source: str  # check | latency | quality | throughput | package | vlm | gate


# The prefixes older reports' flag texts started with (latency.json schema 1).
_LEGACY_PREFIXES: dict[str, FlagKind] = {
    "early-stop": FlagKind.EARLY_STOP,
    "failures": FlagKind.REQUEST_FAILURES,
    "no-data": FlagKind.NO_DATA,
    "usage-mismatch": FlagKind.USAGE_MISMATCH,
    "prompt-mismatch": FlagKind.PROMPT_MISMATCH,
}


def flag_from_text(raw: Any, source: str) -> Any:
    """Migration helper: a schema-1 flag string becomes a :class:`RiskFlag` dict.

    Anything that is not a string is returned as is (the model validation that
    follows decides whether it is a valid record).
    """
    if not isinstance(raw, str):
        return raw
    head = raw.split(":", 1)[0].strip()
    kind = _LEGACY_PREFIXES.get(head, FlagKind.OTHER)
    return {"kind": kind.value, "text": raw, "source": source}


def migrate_flags(raw: Any, source: str) -> Any:
    """A schema-1 ``flags`` list with its strings made records; anything else unchanged."""
    return [flag_from_text(f, source) for f in raw] if isinstance(raw, list) else raw


def texts(flags: list[RiskFlag]) -> list[str]:
    return [f.text for f in flags]
