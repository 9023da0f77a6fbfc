"""``harness submit``'s records: its config, its console hooks and ``submit.json``.

Apart from the core so the upload steps (steps.py) and the core can both import
them without an import circle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from harness.profiles import PackageSpec, SubmitSpec
from harness.report_base import Report
from harness.submit.gated import GateRecord
from harness.submit.retry import RetryPolicy


class SubmitReport(Report):
    FILENAME = "submit.json"
    kind: str = "submit"
    archive: str
    team_id: str
    api_url: str
    dry_run: bool = False
    size_bytes: int
    sha256: str
    package_report: str  # "passed": package.json beside it, same sha256; "absent"
    archive_check: str = "passed"  # or "skipped": --skip-archive-check
    archive_layout: str | None = None  # "docker" or "oci", as inspected
    upload_type: str | None = None
    s3_key: str | None = None
    upload_id: str | None = None
    part_size: int | None = None
    parts_total: int = 0
    parts_sent: int = 0
    parts_resumed: int = 0
    bytes_sent: int = 0
    retries: int = 0
    url_refreshes: int = 0
    etag_mismatches: int = 0
    upload_seconds: float = 0.0
    mb_per_s: float = 0.0
    resumed: bool = False
    already_submitted: bool = False
    # The organiser had forgotten the upload id when completion was asked again
    # (S3 NoSuchUpload): an earlier run's completion is taken to have gone through.
    completion_assumed: bool = False
    # An earlier run's /submit got no answer; nothing was sent this time (see --resubmit).
    submit_unconfirmed: bool = False
    reupload_reason: str | None = None  # why the file was uploaded again from scratch
    submission_id: str | None = None
    # Submit what was gated (docs/submit.md): the archive's image id, and what was checked:
    # "passed" (its last gate said PASS), "ungated_ok" (--ungated-ok: never gated, or not PASS)
    image_id: str | None = None
    gated: str | None = None
    gate_verdict: str | None = None  # the last gate verdict of this image (None: never gated)
    gate_folder: str | None = None  # where that gate.json is
    gate_at: str | None = None  # when that gate ran
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)


@dataclass
class SubmitConfig:
    archive: Path
    team_id: str
    api_url: str
    api_key: str
    package: PackageSpec
    submit: SubmitSpec
    parallel: int = 6
    restart: bool = False
    resubmit: bool = False  # send /submit although an earlier run's /submit got no answer
    dry_run: bool = False
    skip_archive_check: bool = False  # hash, but do not inspect (recorded in submit.json)
    ungated_ok: bool = False  # submit although the image's last gate is not PASS (recorded)
    # The gate verdicts to look in (read by the caller from the reports folders), and
    # those folders in words for messages; none read: the image counts as never gated.
    gate_records: Callable[[], list[GateRecord]] = lambda: []
    gate_where: str = "the reports folder"
    # where `harness package` leaves package.json (run folders under these): looked in when
    # none lies beside the archive (the reports folder, then --reports)
    package_folders: list[Path] = field(default_factory=list)
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    seed: int | None = None


@dataclass
class Hooks:
    """Console callbacks; the core never prints."""

    say: Callable[[str], None] = lambda _msg: None
    hash_bytes: Callable[[int], None] | None = None
    start_upload: Callable[[int, int], None] = lambda _total, _done: None
    sent_bytes: Callable[[int], None] | None = None
    finished: Callable[[SubmitReport], None] = lambda _report: None  # also on failure
