"""What harness knows about one serving engine: the type at the bottom of ``harness/engines``.

An :class:`EngineRecord` holds, per :data:`Signal` harness reads off ``/metrics``, the
candidate metric names (with the versions they apply to, their unit and whether the
name was checked against the engine's own source), how labels are combined, and what
to say when the engine has no such metric; plus how to turn metrics on, the readiness
routes, where its configuration is served, how to recognise it, and its request quirks.
This module imports nothing of harness: the registry (``engines/registry.py``) lists
the records, the readers (``engines/read.py``) use them. docs/engines.md is the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Signal = Literal[
    "requests",  # requests answered (a counter)
    "prompt_tokens",  # prompt tokens processed (see Reading.includes)
    "generation_tokens",
    "cached_prompt_tokens",  # prompt tokens served from the prefix cache
    "prefix_hits",  # prefix-cache hits, in the metric's unit
    "prefix_lookups",  # prefix-cache lookups, in the metric's unit
    "prefix_hit_rate",  # a gauge 0..1 kept by the engine itself (never a delta)
    "spec_drafts",
    "spec_draft_tokens",
    "spec_accepted_tokens",
    "spec_acceptance_rate",  # a gauge 0..1
    "preemptions",
    "kv_usage",  # a gauge: fraction 0..1 (or blocks, see unit)
    "e2e_seconds",  # a histogram: read its _sum and _count
    "ttft_seconds",  # a histogram: read its _sum and _count
    "info",  # configuration/info metrics (labels hold the settings)
]
SIGNALS: tuple[Signal, ...] = (
    "requests",
    "prompt_tokens",
    "generation_tokens",
    "cached_prompt_tokens",
    "prefix_hits",
    "prefix_lookups",
    "prefix_hit_rate",
    "spec_drafts",
    "spec_draft_tokens",
    "spec_accepted_tokens",
    "spec_acceptance_rate",
    "preemptions",
    "kv_usage",
    "e2e_seconds",
    "ttft_seconds",
    "info",
)

Unit = Literal["requests", "tokens", "blocks", "sequences", "fraction", "seconds", "labels"]
Kind = Literal["counter", "gauge", "histogram", "info"]
# How the samples of one name are combined: summed over their label sets (one server may
# label per model, per engine core, per cache source); "max" for a gauge repeated per
# label set (a per-engine KV fraction must not add up past 1).
Combine = Literal["sum", "max"]


@dataclass(frozen=True)
class MetricName:
    """One candidate name of a signal, as it appears in the exposition (counters with
    ``_total``; a histogram by its base name)."""

    name: str
    unit: Unit
    kind: Kind
    versions: str = "all"  # the engine versions that serve this name, in words
    combine: Combine = "sum"
    verified: bool = True  # False: not found in the engine's own source or docs
    source: str = ""  # the engine's file or page the name was read from


@dataclass(frozen=True)
class SignalSpec:
    """A signal on one engine: its candidate names (first present wins) and meaning."""

    signal: Signal
    names: tuple[MetricName, ...]
    # what the figure includes, where engines differ (e.g. "includes cached tokens")
    includes: str = ""


@dataclass(frozen=True)
class Quirk:
    """A request detail of the engine's API that trips a client."""

    text: str
    verified: bool = True


@dataclass(frozen=True)
class Detect:
    """How a server shows it is this engine."""

    metric_prefixes: tuple[str, ...] = ()  # a /metrics sample name starting with one
    server_headers: tuple[str, ...] = ()  # a ``Server`` header starting with one
    # (route, JSON key whose presence marks the engine, JSON key holding the version)
    routes: tuple[tuple[str, str, str], ...] = ()
    owned_by: tuple[str, ...] = ()  # a /v1/models ``owned_by`` value


@dataclass(frozen=True)
class EngineRecord:
    name: str  # the --engine value and the manifest's engine
    title: str  # how docs and output call it
    signals: tuple[SignalSpec, ...]
    detect: Detect
    metrics_path: str = "/metrics"
    metrics_on: str = ""  # the flag or setting that turns /metrics on; "" = on by default
    ready_routes: tuple[str, ...] = ()
    config_routes: tuple[str, ...] = ()  # routes that serve its configuration/version
    quirks: tuple[Quirk, ...] = ()
    # why a signal is missing, when the engine has no metric for it
    absent: tuple[tuple[Signal, str], ...] = ()

    def spec(self, signal: Signal) -> SignalSpec | None:
        return next((s for s in self.signals if s.signal == signal), None)

    def why_absent(self, signal: Signal) -> str:
        """The sentence for a signal this engine does not serve."""
        said = dict(self.absent).get(signal)
        return said or f"{self.title} serves no {signal.replace('_', ' ')} metric"

    def turn_on(self) -> str:
        """The hint that names the flag turning /metrics on (empty when on by default)."""
        return f"{self.title}: {self.metrics_on}" if self.metrics_on else ""
