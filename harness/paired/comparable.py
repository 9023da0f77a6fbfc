"""Whether two runs measured the same thing: what differs, in words (pure).

A difference here makes ``compare`` refuse (exit 2): a faster B that sent
shorter prompts, fewer tokens or another benchmark subset is not faster.
Differences that do not change what was measured (a strict-prompt seed, the
number of timed runs) are notes, not refusals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from harness.latency.report import BucketResult, LatencyReport
from harness.quality.report import QualityReport
from harness.throughput.report import ThroughputReport
from harness.vlm.report import VlmReport

# latency settings that change what a request measures
LATENCY_KEYS = ("force_length", "concurrency", "new_connection_per_request")
QUALITY_BENCH_KEYS = ("task", "metric", "thinking", "max_tokens_sent", "client", "n")
THROUGHPUT_KEYS = (
    "levels",
    "requests_per_level",
    "warmup_per_level",
    "prompt_tokens",
    "max_tokens",
    "temperature",
    "top_p",
    "reuse_prompts_across_levels",
    "force_length",
)


@dataclass
class Comparability:
    differences: list[str] = field(default_factory=list)  # refuse when any
    notes: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # report kinds both runs hold

    @property
    def ok(self) -> bool:
        return not self.differences and bool(self.kinds)

    def reason(self, comparable: Iterable[str] = ()) -> str:
        if not self.kinds:
            listed = ", ".join(comparable) or "none"
            return f"the runs share no report that compare reads ({listed})"
        return "runs are not comparable: " + "; ".join(self.differences)


def _diff(what: str, a: Any, b: Any) -> str | None:
    return None if a == b else f"{what}: A {a!r}, B {b!r}"


def _some(items: Iterable[str | None]) -> list[str]:
    return [x for x in items if x]


def common_modes(a: LatencyReport, b: LatencyReport) -> list[str]:
    return [m for m in ("official", "strict") if getattr(a, m) and getattr(b, m)]


def _buckets(rep: LatencyReport, mode: str) -> dict[str, BucketResult]:
    results: list[BucketResult] = getattr(rep, mode)
    return {x.name: x for x in results}


def latency_differences(a: LatencyReport, b: LatencyReport) -> tuple[list[str], list[str]]:
    diffs: list[str] = []
    notes: list[str] = []
    modes = common_modes(a, b)
    if not modes:
        diffs.append(f"latency modes: A {a.mode!r}, B {b.mode!r} (no mode measured in both)")
    for key in LATENCY_KEYS:
        d = _diff(f"latency {key}", a.settings.get(key), b.settings.get(key))
        if d:
            diffs.append(d)
    for mode in modes:
        ba, bb = _buckets(a, mode), _buckets(b, mode)
        if set(ba) != set(bb):
            diffs.append(f"{mode} buckets: A {sorted(ba)}, B {sorted(bb)}")
            continue
        for name, xa in ba.items():
            xb = bb[name]
            diffs += _some(
                [
                    _diff(f"{mode} {name} endpoint", xa.endpoint, xb.endpoint),
                    _diff(f"{mode} {name} max_tokens", xa.max_tokens, xb.max_tokens),
                    _diff(
                        f"{mode} {name} prompt tokens (nominal)",
                        xa.prompt_tokens_nominal,
                        xb.prompt_tokens_nominal,
                    ),
                    _diff(f"{mode} {name} prompt tokens", xa.prompt_tokens, xb.prompt_tokens),
                    _diff(f"{mode} {name} baseline_ms", xa.baseline_ms, xb.baseline_ms),
                ]
            )
    if "strict" in modes and a.provenance.seed != b.provenance.seed:
        notes.append(
            f"strict prompts drawn with different seeds (A {a.provenance.seed}, "
            f"B {b.provenance.seed}): same lengths, different texts"
        )
    if a.settings.get("runs") != b.settings.get("runs"):
        notes.append(
            f"timed runs per bucket: A {a.settings.get('runs')}, B {b.settings.get('runs')}"
        )
    return diffs, notes


def quality_differences(
    a: QualityReport,
    b: QualityReport,
    samples_a: dict[str, list[dict[str, Any]]],
    samples_b: dict[str, list[dict[str, Any]]],
) -> list[str]:
    diffs = _some(
        [
            _diff("quality limit", a.limit, b.limit),
            _diff("lm-eval version", a.lm_eval_version, b.lm_eval_version),
        ]
    )
    ba = {x.name: x for x in a.benchmarks}
    bb = {x.name: x for x in b.benchmarks}
    if set(ba) != set(bb):
        diffs.append(f"benchmarks: A {sorted(ba)}, B {sorted(bb)}")
    for name in sorted(set(ba) & set(bb)):
        for key in QUALITY_BENCH_KEYS:
            d = _diff(f"{name} {key}", getattr(ba[name], key), getattr(bb[name], key))
            if d:
                diffs.append(d)
        d = _data_difference(name, samples_a.get(name, []), samples_b.get(name, []))
        if d:
            diffs.append(d)
    return diffs


def _data_difference(name: str, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> str | None:
    """The same document id must carry the same prompt in both runs (same data, same template)."""
    prompts_a = {(r.get("task"), r.get("doc_id")): r.get("prompt") for r in a}
    for r in b:
        key = (r.get("task"), r.get("doc_id"))
        if key in prompts_a and prompts_a[key] != r.get("prompt"):
            return f"{name} data: document {key[0]}#{key[1]} has a different prompt in B"
    return None


def throughput_differences(a: ThroughputReport, b: ThroughputReport) -> list[str]:
    diffs = _some([_diff("throughput mode", a.mode, b.mode)])
    for key in THROUGHPUT_KEYS:
        d = _diff(f"throughput {key}", a.settings.get(key), b.settings.get(key))
        if d:
            diffs.append(d)
    return diffs


def vlm_differences(a: VlmReport, b: VlmReport) -> list[str]:
    return _some(
        [
            _diff("vlm mode", a.mode, b.mode),
            _diff("vlm non-official settings", a.non_official, b.non_official),
            _diff("vlm samples planned", a.samples_planned, b.samples_planned),
        ]
    )
