"""The gate verdicts recorded on disk, as rows ``harness submit`` can check an image against.

Every ``gate.json`` directly in, or one folder below, the folders given (the
reports folder, and ``submit --reports DIR``) that names an image (``image_id``).
A file that cannot be read is passed over: it proves nothing either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.errors import HarnessError
from harness.gate.report import GateReport
from harness.submit.gated import GateRecord


def gate_files(folders: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for root in folders:
        if not root.is_dir():
            continue
        found += [p for p in (root / GateReport.FILENAME,) if p.is_file()]
        found += sorted(root.glob(f"*/{GateReport.FILENAME}"))
    return found


def gate_records(folders: Iterable[Path]) -> list[GateRecord]:
    rows: list[GateRecord] = []
    for path in gate_files(folders):
        try:
            report = GateReport.load(path.parent)
        except (HarnessError, OSError):
            continue
        if not report.image_id:
            continue
        rows.append(
            GateRecord(
                image_id=report.image_id,
                verdict=report.verdict.value,
                at=report.provenance.finished_at or report.provenance.started_at,
                folder=path.parent.name,
                # what decided it: the failing reasons, else what left it incomplete
                blocking=tuple(
                    r.text for r in report.blocking or [r for r in report.reasons if r.incomplete]
                ),
            )
        )
    return rows
