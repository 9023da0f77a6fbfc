"""What a sweep has measured so far: rows per level, kept across Ctrl-C.

Its own module so the pure analysis (``analysis``) reads it without importing
the I/O of ``runner``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.risk import RiskFlag
from harness.throughput.report import RequestRow
from harness.usage import UsageCheck

if TYPE_CHECKING:  # the I/O module's record; the pure analysis only reads it
    from harness.throughput.grader_loop import GraderLevel


@dataclass
class ThroughputState:
    rows: list[RequestRow] = field(default_factory=list)
    levels_done: list[int] = field(default_factory=list)
    server_models: list[str] = field(default_factory=list)
    model: str = ""
    flags: list[RiskFlag] = field(default_factory=list)  # the runner's own (served model)
    cpu_s: dict[int, float] = field(default_factory=dict)  # client CPU time of each timed phase
    grader: dict[int, GraderLevel] = field(default_factory=dict)  # official: the grader's numbers
    server_models_note: str = ""  # why server_models is empty when it is on purpose
    probe_body: dict[str, Any] | None = None  # a body the sweep sent, for the usage probe
    usage_checks: list[UsageCheck] = field(default_factory=list)
