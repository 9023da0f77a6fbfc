"""Reading two run folders: the ONLY module of harness/compare that touches files.

Every measurement kind with a comparison (harness/registry/) is read
through the one report reader, with what its record reads beside it (latency's
repeats, quality's per-sample records). An unreadable file is a ConfigError
that names the side (A or B) and the folder.
"""

from __future__ import annotations

from pathlib import Path

from harness.compare.model import COMPARED, CompareReport
from harness.errors import HarnessError, UsageError
from harness.manifest.model import load_manifest
from harness.paired.side import RunData, Side
from harness.report_base import load_report


def load_run(folder: Path, label: str = "A") -> RunData:
    """Load every report ``compare`` understands from ``folder`` (RUN_``label``)."""
    if not folder.is_dir():
        raise UsageError(
            f"RUN_{label} {folder}: not a run folder", hint="pass two folders under reports/"
        )
    run = RunData(folder=folder, label=label)
    for kind in COMPARED:
        assert kind.compare is not None
        try:
            report = load_report(folder, kind.report)
            if report is None:
                continue
            extra = kind.compare.load_extra(folder, report) if kind.compare.load_extra else None
        except HarnessError as err:
            hint = err.hint or f"pass a run folder whose {kind.filename} harness {kind.name} wrote"
            raise type(err)(f"RUN_{label} {folder}: {err.message}", hint=hint) from None
        run.sides[kind.name] = Side(report, extra)
    try:
        run.manifest = load_manifest(folder)
    except HarnessError as err:
        raise type(err)(f"RUN_{label} {folder}: {err.message}", hint=err.hint) from None
    if not run.sides:
        files = ", ".join(k.filename for k in COMPARED)
        raise UsageError(
            f"RUN_{label} {folder}: none of {files}",
            hint="compare needs run folders written by "
            + " / ".join(f"harness {' '.join(k.command)}" for k in COMPARED),
        )
    return run


def load_pair(folder_a: Path, folder_b: Path) -> tuple[RunData, RunData]:
    """Both runs; two runs of different profiles are refused naming both profiles (their
    buckets, benchmarks and baselines differ: nothing in them compares)."""
    a, b = load_run(folder_a, "A"), load_run(folder_b, "B")
    if a.profile and b.profile and a.profile != b.profile:
        raise UsageError(
            f"RUN_A {folder_a} was measured under profile {a.profile!r}, "
            f"RUN_B {folder_b} under {b.profile!r}",
            hint="compare two runs of one profile",
        )
    return a, b


def load_compare(folder: Path) -> CompareReport | None:
    """The comparison saved in a run folder by ``harness compare`` (None when there is none)."""
    if not (folder / CompareReport.FILENAME).is_file():
        return None
    return CompareReport.load(folder)
