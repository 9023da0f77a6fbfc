"""Reading two run folders: the ONLY module of harness/compare that touches files.

Kept in one place so it can be swapped for the one report reader
(harness/runs.py) without touching the comparison code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.compare.model import CompareReport
from harness.errors import ConfigError, UsageError
from harness.latency.repeats import RepeatsReport
from harness.latency.report import LatencyReport
from harness.quality.report import QualityReport
from harness.runs import load_report
from harness.throughput.report import ThroughputReport
from harness.vlm.report import VlmReport

Sample = dict[str, Any]


@dataclass
class RunData:
    """What one run folder holds for a comparison; a missing report is None."""

    folder: Path
    latency: LatencyReport | None = None
    repeats: RepeatsReport | None = None
    quality: QualityReport | None = None
    samples: dict[str, list[Sample]] = field(default_factory=dict)  # benchmark name → rows
    throughput: ThroughputReport | None = None
    vlm: VlmReport | None = None

    @property
    def profile(self) -> str | None:
        for rep in (self.latency, self.quality, self.throughput, self.vlm):
            if rep is not None:
                return rep.provenance.profile
        return None


def _samples(path: Path) -> list[Sample]:
    rows: list[Sample] = []
    try:
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    raise ConfigError(f"{path}:{lineno}: not valid JSON") from None
                if isinstance(row, dict):
                    rows.append(row)
    except OSError as err:
        raise ConfigError(f"{path}: unreadable ({err.strerror})") from None
    return rows


def load_run(folder: Path) -> RunData:
    """Load every report ``compare`` understands from ``folder``; a broken one is a ConfigError."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a run folder", hint="pass two folders under reports/")
    run = RunData(folder=folder)
    if (folder / LatencyReport.FILENAME).is_file():
        run.latency = LatencyReport.load(folder)
    if (folder / RepeatsReport.FILENAME).is_file():
        run.repeats = RepeatsReport.load(folder)
    if (folder / QualityReport.FILENAME).is_file():
        run.quality = QualityReport.load(folder)
        for bench in run.quality.benchmarks:
            path = folder / (bench.samples_file or f"samples_{bench.name}.jsonl")
            if path.is_file():
                run.samples[bench.name] = _samples(path)
    if (folder / ThroughputReport.FILENAME).is_file():
        run.throughput = ThroughputReport.load(folder)
    run.vlm = load_report(folder, VlmReport)
    if run.latency is None and run.quality is None and run.throughput is None and run.vlm is None:
        raise UsageError(
            f"{folder}: no latency.json, quality.json, throughput.json or vlm.json",
            hint="compare needs run folders written by harness latency / quality / throughput / vlm",
        )
    return run


def load_compare(folder: Path) -> CompareReport | None:
    """The comparison saved in a run folder by ``harness compare`` (None when there is none)."""
    if not (folder / CompareReport.FILENAME).is_file():
        return None
    return CompareReport.load(folder)
