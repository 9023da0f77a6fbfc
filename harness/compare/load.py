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
from harness.throughput.report import ThroughputReport

Sample = dict[str, Any]
VLM_FILE = "vlm.json"
VLM_SCHEMA_VERSION = 1


@dataclass
class RunData:
    """What one run folder holds for a comparison; a missing report is None."""

    folder: Path
    latency: LatencyReport | None = None
    repeats: RepeatsReport | None = None
    quality: QualityReport | None = None
    samples: dict[str, list[Sample]] = field(default_factory=dict)  # benchmark name → rows
    throughput: ThroughputReport | None = None
    # vlm.json as plain data: its typed model lives in the VLM package (harness/compare/vlm.py)
    vlm: dict[str, Any] | None = None

    @property
    def profile(self) -> str | None:
        for rep in (self.latency, self.quality, self.throughput):
            if rep is not None:
                return rep.provenance.profile
        if self.vlm is not None:
            prov = self.vlm.get("provenance")
            return str(prov.get("profile")) if isinstance(prov, dict) else None
        return None

    @property
    def vlm_samples(self) -> list[Sample]:
        rows = (self.vlm or {}).get("samples")
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


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


def _json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"{path}: unreadable ({err.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ConfigError(f"{path}: not valid JSON") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a JSON object")
    if data.get("schema_version") != VLM_SCHEMA_VERSION:
        raise ConfigError(
            f"{path}: schema_version {data.get('schema_version')}, compare reads {VLM_SCHEMA_VERSION}"
        )
    return data


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
    if (folder / VLM_FILE).is_file():
        run.vlm = _json_object(folder / VLM_FILE)
    if run.latency is None and run.quality is None and run.throughput is None and not run.vlm:
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
