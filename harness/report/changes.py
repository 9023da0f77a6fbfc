"""What changed between two runs, from the server manifests in their folders.

A run folder may hold ``manifest.json``: the server's configuration as
``{"config_id": str, "settings": {flat str -> JSON scalar}}``. ``diff_settings``
(pure) turns two ``settings`` into lines such as ``enable_prefix_caching false →
true``; the ledger shows them as "what changed" when the run carries no
``--note``, and the waterfall labels each frontier step with them. A manifest
that is absent, not JSON or not of that shape gives no diff, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path

from harness.report.entry import LedgerEntry

MANIFEST_FILENAME = "manifest.json"
UNSET = "unset"
Settings = dict[str, object]


def _show(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def diff_settings(before: Mapping[str, object], after: Mapping[str, object]) -> list[str]:
    """One line per key that differs, sorted by key: ``key old → new`` (``unset`` when absent)."""
    lines: list[str] = []
    for key in sorted(set(before) | set(after)):
        a = _show(before[key]) if key in before else UNSET
        b = _show(after[key]) if key in after else UNSET
        if a != b:  # as JSON writes them: 1 and 1.0, true and 1 differ
            lines.append(f"{key} {a} → {b}")
    return lines


def read_settings(folder: Path) -> Settings | None:
    """``manifest.json``'s ``settings`` (None: absent, unreadable or not the expected shape)."""
    try:
        data = json.loads((folder / MANIFEST_FILENAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    settings = data.get("settings") if isinstance(data, dict) else None
    if not isinstance(settings, dict) or not all(isinstance(k, str) for k in settings):
        return None
    return dict(settings)


def previous_runs(entries: Sequence[LedgerEntry]) -> dict[str, LedgerEntry]:
    """Each run's previous run of the same profile and name (by start time)."""
    last: dict[tuple[str | None, str], LedgerEntry] = {}
    out: dict[str, LedgerEntry] = {}
    for e in sorted(entries, key=lambda e: (e.time, e.id)):
        key = (e.profile, e.short_label())
        if key in last:
            out[e.id] = last[key]
        last[key] = e
    return out


def what_changed(
    entries: Sequence[LedgerEntry], settings: Mapping[str, Settings | None]
) -> dict[str, list[str]]:
    """Per run id: the manifest diff against its previous run of the same profile and name.

    ``settings``: each run's manifest settings by id (None or absent: no manifest).
    Runs without a diff (no manifest on either side, nothing changed) are left out."""
    out: dict[str, list[str]] = {}
    for run_id, prev in previous_runs(entries).items():
        a, b = settings.get(prev.id), settings.get(run_id)
        if a is None or b is None:
            continue
        lines = diff_settings(a, b)
        if lines:
            out[run_id] = lines
    return out


def step_changes(
    points: Sequence[LedgerEntry], settings: Mapping[str, Settings | None]
) -> list[list[str]]:
    """For each frontier point, the diff against the point before it ([] for the first)."""
    out: list[list[str]] = [[]]
    for prev, cur in pairwise(points):
        a, b = settings.get(prev.id), settings.get(cur.id)
        out.append(diff_settings(a, b) if a is not None and b is not None else [])
    return out[: len(points)]
