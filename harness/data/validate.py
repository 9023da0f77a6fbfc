"""A data folder's files read before any request: every line one JSON object.

A file cut short by a killed download, or overwritten by something else, would
otherwise surface as an lm-eval exception in the middle of a quality run, after
the server has been asked for the benchmarks before it. Reading them first is
cheap (MMLU-Pro's 12,032 rows: well under a second) and names the line and the
command that writes the file again.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.data.layout import source_for_task
from harness.errors import DataMissingError


def bad_line(path: Path) -> str | None:
    """Why ``path`` is not JSON Lines of objects (the first bad line), or None."""
    rows = 0
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except ValueError as err:
                    return f"line {number} is not JSON ({err})"
                if not isinstance(row, dict):
                    return f"line {number} is not a JSON object"
                rows += 1
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    return None if rows else "holds no rows"


def require_readable(data_dir: Path, tasks: list[str]) -> None:
    """Raise (exit 2) on the first file of ``tasks`` that is not JSON Lines of objects."""
    seen: set[Path] = set()
    for task in tasks:
        src = source_for_task(task)
        for rel in src.files.values():
            path = data_dir / rel
            if path in seen:
                continue
            seen.add(path)
            why = bad_line(path)
            if why is not None:
                raise DataMissingError(
                    f"benchmark data {path}: {why}",
                    hint=f"write it again: harness data fetch --out {data_dir} --only {src.family}",
                )
