"""What a sweep has measured so far: rows per level, kept across Ctrl-C.

Its own module so the pure analysis (``analysis``) reads it without importing
the I/O of ``runner``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.throughput.report import RequestRow


@dataclass
class ThroughputState:
    rows: list[RequestRow] = field(default_factory=list)
    levels_done: list[int] = field(default_factory=list)
    server_models: list[str] = field(default_factory=list)
    model: str = ""
    flags: list[str] = field(default_factory=list)
    cpu_s: dict[int, float] = field(default_factory=dict)  # client CPU time of each timed phase
