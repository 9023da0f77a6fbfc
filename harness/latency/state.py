"""What a latency run has measured so far: rows and per-bucket ITLs, kept across Ctrl-C.

Its own module so the pure analysis (``analysis``) reads it without importing
the I/O of ``runner``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.latency.report import Dist, RequestRow
from harness.usage import UsageCheck


@dataclass
class LatencyState:
    rows: list[RequestRow] = field(default_factory=list)
    itls: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    server_models: list[str] = field(default_factory=list)
    server_models_note: str = ""  # why server_models is empty when it is on purpose
    readiness_s: float | None = None
    finished_buckets: list[tuple[str, str]] = field(default_factory=list)  # (mode, bucket)
    usage_checks: list[UsageCheck] = field(default_factory=list)  # the usage probes' results
    # the ITL distributions of strict buckets kept from an interrupted run (--resume): their
    # samples are not in its report, their summary is (harness/latency/resume.py)
    itl_summaries: dict[tuple[str, str], Dist] = field(default_factory=dict)
    # why the config's stop rule ended the run early (harness/latency/stop_rule.py)
    stopped_by: str | None = None
