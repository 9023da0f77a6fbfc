"""Folders that measure nothing (only ``check``, ``package`` or ``submit`` reports) are folded.

They are not ledger rows (a row of dashes named "check" says nothing about
speed or quality): the ledger shows one line counting them, e.g. "3 check,
2 package, 1 submit folders". A gated folder is a row, whatever it holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.report.entry import LedgerEntry
from harness.report.folder import is_run_folder

# the reports of folders that measure nothing (conformance, the image archive, the upload)
NON_MEASURING = frozenset({"check.json", "package.json"})
SUBMIT_FILENAME = "submit.json"  # submit is not a measurement kind: no ledger entry
ORDER = ("check", "package", "submit")


def measures(e: LedgerEntry) -> bool:
    """Whether the run measured anything a ledger row shows (or was gated)."""
    return bool(e.reports) and not set(e.reports) <= NON_MEASURING


def folded_kind(e: LedgerEntry, root: Path | None = None) -> str:
    """What a folded folder is: submit (an upload beside its package), package or check."""
    if root is not None and (root / e.id / SUBMIT_FILENAME).is_file():
        return "submit"
    return "package" if "package.json" in e.reports else "check"


def submit_folders(root: Path) -> list[str]:
    """Folders holding only an upload's ``submit.json`` (not run folders, so not in the ledger)."""
    if not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir() if (p / SUBMIT_FILENAME).is_file() and not is_run_folder(p)
    )


def fold_line(kinds: Iterable[str]) -> str:
    """``3 check, 2 package, 1 submit folders`` ('' when none)."""
    counts = Counter(kinds)
    if not counts:
        return ""
    names = sorted(counts, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))
    noun = "folder" if sum(counts.values()) == 1 else "folders"
    return ", ".join(f"{counts[k]} {k}" for k in names) + f" {noun}"


def split(entries: Sequence[LedgerEntry]) -> tuple[list[LedgerEntry], list[LedgerEntry]]:
    """(rows, folded): runs that measured something, and the rest."""
    rows = [e for e in entries if measures(e)]
    return rows, [e for e in entries if not measures(e)]
