"""What ``submit.json`` shows, as view models: the archive, the upload, the gate, the id.

Printed by ``harness submit`` (submit/console.py) with the rich renderer.
"""

from __future__ import annotations

from harness.submit.gated import UNGATED_FLAG
from harness.submit.model import SubmitReport
from harness.view.model import Section, facts, section


def _preflight(report: SubmitReport) -> str:
    read = (
        f"archive read to the end ({report.archive_layout} layout)"
        if report.archive_check == "passed"
        else "archive NOT inspected (--skip-archive-check)"
    )
    package = (
        "; package.json: same sha256" if report.package_report == "passed" else "; no package.json"
    )
    return read + package


def _gated(report: SubmitReport) -> str:
    image = (report.image_id or "image ?")[:19] + "…"
    if report.gate_verdict is None:
        return f"{image} never gated" + (f" ({UNGATED_FLAG})" if report.gated else "")
    last = f"{image} last gated {report.gate_verdict} ({report.gate_folder})"
    return last + (f", {UNGATED_FLAG}" if report.gated == "ungated_ok" else "")


def sections(report: SubmitReport) -> list[Section]:
    part = f", part size {report.part_size:,}" if report.part_size else ""
    pairs: list[tuple[str, str]] = [
        ("size", f"{report.size_bytes:,} bytes"),
        ("sha256", report.sha256),
        ("pre-flight", _preflight(report)),
        ("upload", f"{report.upload_type or '-'}{part}"),
        (
            "parts",
            f"{report.parts_sent} sent, {report.parts_resumed} resumed, of {report.parts_total}",
        ),
        ("retries / URL refreshes", f"{report.retries} / {report.url_refreshes}"),
        ("time", f"{report.upload_seconds:.1f} s ({report.mb_per_s:.1f} MB/s)"),
        ("s3 key", report.s3_key or "-"),
    ]
    if report.completion_assumed:
        pairs.append(("completion", "assumed (S3 no longer knew the upload id)"))
    if report.reupload_reason:
        pairs.append(("uploaded again", report.reupload_reason))
    pairs += [("gate", _gated(report)), ("submission id", report.submission_id or "-")]
    title = f"submit {report.archive} (team {report.team_id})"
    return [section("submit", "", facts("submit", title, pairs))]
