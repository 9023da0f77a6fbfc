"""Read a run folder's reports as plain JSON, defensively.

``report`` must show whatever a run left behind, even when another command's
report class changes, a file is missing, or a run was interrupted. So this
module reads ``latency.json``, ``quality.json``, ``check.json``,
``throughput.json`` and ``gate.json`` as dictionaries and takes only the keys
listed in docs/report.md; a missing file or key becomes ``None`` (shown "—").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPORT_FILES = (
    "check.json",
    "latency.json",
    "quality.json",
    "throughput.json",
    "vlm.json",
    "gate.json",
)


@dataclass
class RunFiles:
    """The parsed reports of one run folder; ``problems`` lists unreadable files."""

    folder: Path
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def get(self, filename: str) -> dict[str, Any] | None:
        return self.reports.get(filename)

    @property
    def present(self) -> list[str]:
        return [f for f in REPORT_FILES if f in self.reports]


def read_run(folder: Path) -> RunFiles:
    """Parse every known report in ``folder``; a broken file is noted, never raised."""
    run = RunFiles(folder=folder)
    for name in REPORT_FILES:
        path = folder / name
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            run.problems.append(f"{name}: unreadable ({type(err).__name__})")
            continue
        if not isinstance(data, dict):
            run.problems.append(f"{name}: not a JSON object")
            continue
        run.reports[name] = data
    return run


def is_run_folder(folder: Path) -> bool:
    return folder.is_dir() and any((folder / name).is_file() for name in REPORT_FILES)


# Typed accessors: each returns None when the key is missing or has the wrong type.


def num(d: Any, key: str) -> float | None:
    v = d.get(key) if isinstance(d, dict) else None
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def text(d: Any, key: str) -> str | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, str) else None


def flag(d: Any, key: str) -> bool | None:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, bool) else None


def dicts(d: Any, key: str) -> list[dict[str, Any]]:
    v = d.get(key) if isinstance(d, dict) else None
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def strings(d: Any, key: str) -> list[str]:
    v = d.get(key) if isinstance(d, dict) else None
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def pair(d: Any, key: str) -> tuple[float, float] | None:
    v = d.get(key) if isinstance(d, dict) else None
    if isinstance(v, list | tuple) and len(v) == 2 and all(isinstance(x, int | float) for x in v):
        return (float(v[0]), float(v[1]))
    return None


def latency_samples(latency: dict[str, Any] | None, mode: str) -> dict[str, list[float]]:
    """Timed, successful E2E latencies per bucket (ms), from ``latency.json``'s ``requests``."""
    out: dict[str, list[float]] = {}
    for row in dicts(latency, "requests"):
        if row.get("mode") != mode or row.get("phase") != "timed" or row.get("ok") is not True:
            continue
        bucket, e2e = text(row, "bucket"), num(row, "e2e_ms")
        if bucket is not None and e2e is not None:
            out.setdefault(bucket, []).append(e2e)
    return out
