"""What submit's pre-flight tells a user in the cases issue 34 found, each a real
``python -m harness`` child (no organiser is called: every run is a dry run or refused).

- ``harness package --archive`` leaves package.json in its run folder under the reports
  folder; submit finds it there (the file's name, size and sha256) instead of pointing
  back at the same command;
- a dry run's ``--ungated-ok`` warning says what a real run would do, not that it
  submitted;
- an INCOMPLETE gate's refusal says what left it incomplete.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.archives import write_image_archive
from tests.fixtures.gated import gate_archive, image_id, measured_run
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(300)

NOWHERE = "http://127.0.0.1:9"  # a dry run calls nothing
DRY = ["--team", "t1", "--api-url", NOWHERE, "--dry-run"]
NO_PACKAGE = "no package.json describes this file"


def test_submit_finds_the_package_json_that_package_archive_wrote(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    archive = write_image_archive(tmp_path / "built", 20_000, seed=41)
    gate_archive(archive, reports, name="gate-ok")
    before = run_harness(["submit", str(archive), *DRY, "--out", str(tmp_path / "s1")],
                         reports=reports)  # fmt: skip
    assert before.rc == 0, before.stderr
    first = json.loads((tmp_path / "s1" / "submit.json").read_text())
    assert first["package_report"] == "absent"
    (warned,) = [w for w in first["warnings"] if w.startswith(NO_PACKAGE)]
    assert f"`harness package --archive {archive}` does it" in warned

    packaged = run_harness(["package", "--archive", str(archive), "--out", str(reports / "pkg")],
                           reports=reports)  # fmt: skip
    assert packaged.rc == 0, packaged.stderr
    assert not (archive.parent / "package.json").exists()  # its run folder holds it
    after = run_harness(["submit", str(archive), *DRY, "--out", str(tmp_path / "s2")],
                        reports=reports)  # fmt: skip
    assert after.rc == 0, after.stderr
    second = json.loads((tmp_path / "s2" / "submit.json").read_text())
    assert second["package_report"] == "passed"
    assert not [w for w in second["warnings"] if w.startswith(NO_PACKAGE)]


def test_a_dry_run_does_not_warn_as_if_it_had_submitted(tmp_path: Path) -> None:
    archive = write_image_archive(tmp_path / "built", 20_000, seed=42)
    answer = run_harness(["submit", str(archive), *DRY, "--ungated-ok"],
                         reports=tmp_path / "reports")  # fmt: skip
    assert answer.rc == 0, answer.stderr
    said = " ".join(answer.stdout.split())
    assert "--ungated-ok: a real run would submit although it was never gated" in said
    assert "submitted although" not in said


def test_an_incomplete_gate_is_refused_with_what_is_missing(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    archive = write_image_archive(tmp_path / "built", 20_000, seed=43)
    folder = measured_run(reports / "gate-partial")
    (folder / "quality.json").unlink()
    gated = run_harness(["gate", str(folder), "--image-id", image_id(archive)], reports=reports)
    assert gated.rc == 4, gated.stderr
    answer = run_harness(["submit", str(archive), *DRY], reports=reports)
    assert answer.rc == 1
    line = answer.last_line
    assert ": INCOMPLETE: quality" in line, line
    assert "— measure what is missing and gate it again" in line, line
