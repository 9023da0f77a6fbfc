"""Folders that measure nothing (only ``check``, ``package`` or ``submit`` reports) are folded.

They are not ledger rows (a row of dashes named after the conformance check says nothing
about speed or quality): the ledger shows one line counting them, e.g. "3 check,
2 package, 1 submit folders". A gated folder is a row, whatever it holds. Which kinds
measure nothing their record says: no summary facet, or one that is no ledger row
(harness/view/summary.py: ``ledger_row``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from harness.registry import KINDS, AnyKind
from harness.report.entry import LedgerEntry
from harness.report.folder import is_run_folder

SUBMIT_FILENAME = "submit.json"  # submit is not a measurement kind: no ledger entry
SUBMIT = "submit"


@cache
def non_measuring() -> tuple[AnyKind, ...]:
    """The kinds whose reports alone make no ledger row (conformance, the image archive)."""
    return tuple(k for k in KINDS if not (s := k.summary_facet()) or not s.ledger_row)


def _order() -> tuple[str, ...]:
    return (*(k.name for k in non_measuring()), SUBMIT)


def measures(e: LedgerEntry) -> bool:
    """Whether the run measured anything a ledger row shows (or was gated)."""
    return bool(e.reports) and not set(e.reports) <= {k.filename for k in non_measuring()}


def folded_kind(e: LedgerEntry, root: Path | None = None) -> str:
    """What a folded folder is: submit (an upload beside its package), else its last kind in
    the registry's order (package, then check)."""
    if root is not None and (root / e.id / SUBMIT_FILENAME).is_file():
        return SUBMIT
    present = [k.name for k in non_measuring() if k.filename in e.reports]
    return present[-1] if present else non_measuring()[0].name


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
    order = _order()
    names = sorted(counts, key=lambda k: (order.index(k) if k in order else len(order), k))
    noun = "folder" if sum(counts.values()) == 1 else "folders"
    return ", ".join(f"{counts[k]} {k}" for k in names) + f" {noun}"


def split(entries: Sequence[LedgerEntry]) -> tuple[list[LedgerEntry], list[LedgerEntry]]:
    """(rows, folded): runs that measured something, and the rest."""
    rows = [e for e in entries if measures(e)]
    return rows, [e for e in entries if not measures(e)]
