"""Telling the sample data (``tasks/samples``, written by us) from a benchmark's real data.

``harness data fetch --samples`` copies the sample files into a data folder and
``--data-dir tasks/samples`` reads them in place: a handful of rows per dataset, in
the dataset's schema, that say nothing about a server's score on the grader's set.
A quality run on them is recorded ``official: false`` with this reason, and the gate
never passes on it (docs/quality.md, "Sample data").
"""

from __future__ import annotations

from pathlib import Path

from harness.data.layout import SAMPLES_DIR, source_for_task

SAMPLE_REASON = "sample data, not the grader's set"
SAMPLE_KEY = "sample_data"  # quality.json's non_official key: the reason and the files


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def sample_files(data_dir: Path, tasks: list[str]) -> list[str]:
    """The files of ``tasks`` in ``data_dir`` that are the sample files (relative paths)."""
    found: list[str] = []
    for task in tasks:
        for rel in source_for_task(task).files.values():
            if rel not in found and _same_file(data_dir / rel, SAMPLES_DIR / rel):
                found.append(rel)
    return found
