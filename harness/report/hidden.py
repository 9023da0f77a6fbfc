"""Hiding a run from the ledger's groups: a marker file in its folder, never a report rewritten.

``harness report --hide RUN_DIR`` writes ``RUN_DIR/hidden`` (a line saying when);
``--unhide`` removes it. A hidden run is left out of the table (``--all`` shows it,
marked) and never competes for ★ best, the frontier or the waterfall. Its
measurement reports are untouched.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness.errors import UsageError
from harness.report.folder import REPORT_FILES, is_run_folder, not_a_folder

HIDDEN_FILENAME = "hidden"


def is_hidden(folder: Path) -> bool:
    return (folder / HIDDEN_FILENAME).is_file()


def _run_folder(folder: Path, flag: str) -> Path:
    if not folder.is_dir():
        err = not_a_folder(folder)
        raise UsageError(f"{flag} {err.message}", hint=err.hint)
    if not is_run_folder(folder):
        raise UsageError(
            f"{flag} {folder}: not a run folder (none of {', '.join(REPORT_FILES)})",
            hint="pass a run folder, e.g. reports/<time>-<name>",
        )
    return folder


def set_hidden(
    folder: Path, hidden: bool, *, now: datetime | None = None, by: str = "harness report --hide"
) -> bool:
    """Hide (or unhide) one run folder; returns whether it changed anything. ``by``: who hid
    it and why, the marker's one line (``harness tune: void: …``)."""
    flag = "--hide" if hidden else "--unhide"
    marker = _run_folder(folder, flag) / HIDDEN_FILENAME
    try:
        if hidden:
            if marker.is_file():
                return False
            when = (now or datetime.now(UTC)).isoformat()
            marker.write_text(f"hidden by {by} at {when}\n", encoding="utf-8")
            return True
        if not marker.is_file():
            return False
        marker.unlink()
        return True
    except OSError as err:
        raise UsageError(
            f"{flag} {folder}: cannot change {HIDDEN_FILENAME} ({err.strerror or err})",
            hint="make the run folder writable",
        ) from None
