"""The ledger: ``<reports>/ledger.jsonl``, one JSON line per recorded run folder.

Append-only, so two commands finishing at once cannot corrupt each other's
lines (each entry is one ``write`` on an ``O_APPEND`` file). A folder recorded
again (re-gated, re-indexed) appends a newer line; readers keep the last line
per id. A run folder always records into the ledger of its parent folder: the
reports folder for default run folders, the parent of ``--out DIR`` otherwise.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from harness.errors import IncompleteError, UsageError
from harness.report.entry import LEDGER_SCHEMA_VERSION, LedgerEntry, entry_for_folder
from harness.report.folder import REPORT_FILES, is_run_folder, not_a_folder

LEDGER_FILENAME = "ledger.jsonl"


def ledger_path_for(folder: Path) -> Path:
    return folder.resolve().parent / LEDGER_FILENAME


@dataclass
class LedgerContents:
    entries: list[LedgerEntry] = field(default_factory=list)  # oldest first
    skipped: int = 0  # lines that were not a readable entry

    def by_id(self) -> dict[str, LedgerEntry]:
        return {e.id: e for e in self.entries}


def read_ledger(path: Path) -> LedgerContents:
    """Every entry, the last line per id winning, sorted by run start time (oldest first)."""
    out = LedgerContents()
    if not path.is_file():
        return out
    latest: dict[str, LedgerEntry] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(
            f"{path}: cannot read the ledger ({type(err).__name__})",
            hint="fix or move the file; `harness report --reindex` rebuilds it from the run folders",
        ) from None
    for line in lines:
        if not line.strip():
            continue
        try:
            entry = LedgerEntry.model_validate_json(line)
        except ValidationError:
            out.skipped += 1  # a torn or hand-edited line: skip it, count it, go on
            continue
        latest.pop(entry.id, None)
        latest[entry.id] = entry
    out.entries = sorted(latest.values(), key=lambda e: (e.time, e.id))
    return out


def ledgers_near(where: Path) -> list[Path]:
    """The folders holding a ledger at ``where`` or one level below it: where runs written
    with ``--out DIR`` recorded (DIR's parent), looked for from the working folder."""
    try:
        below = sorted(p for p in where.iterdir() if p.is_dir())
    except OSError:
        return []
    return [p for p in (where, *below) if (p / LEDGER_FILENAME).is_file()]


def append_entry(path: Path, entry: LedgerEntry) -> None:
    data = (entry.to_line() + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as err:
        raise UsageError(
            f"{path}: cannot append to the ledger ({err.strerror or err})",
            hint="make the reports folder writable (or set HARNESS_REPORTS_DIR)",
        ) from None


def record_run(folder: Path, name: str | None, note: str) -> LedgerEntry:
    """Summarise ``folder`` and append it to its ledger; returns the entry written.

    Called by ``harness gate`` at the end of every gated run. A re-recorded folder
    keeps the name and note it was first given unless new ones are passed.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise not_a_folder(folder)
    if not is_run_folder(folder):
        raise IncompleteError(
            f"{folder}: no report in this folder ({', '.join(REPORT_FILES)})",
            hint="run a measurement into it first, e.g. harness latency --out DIR",
        )
    path = ledger_path_for(folder)
    previous = read_ledger(path).by_id().get(folder.resolve().name)
    if previous is not None:
        name = name if name is not None else previous.name
        note = note or previous.note
    entry = entry_for_folder(folder.resolve(), name=name, note=note)
    append_entry(path, entry)
    return entry


def index_folders(root: Path, *, reindex: bool = False) -> list[LedgerEntry]:
    """Record run folders under ``root`` missing from its ledger (all of them with ``reindex``).

    A folder whose line an older harness wrote (an older ``schema_version``, without the
    fields the groups and the ★ need) is read again from its reports."""
    if not root.is_dir():
        return []
    known = read_ledger(root / LEDGER_FILENAME).by_id()
    added: list[LedgerEntry] = []
    for folder in sorted(p for p in root.iterdir() if is_run_folder(p)):
        old = folder.name in known and known[folder.name].schema_version < LEDGER_SCHEMA_VERSION
        if reindex or old or folder.name not in known:
            added.append(record_run(folder, None, ""))
    return added
