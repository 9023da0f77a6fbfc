"""Folders that measure nothing are folded; runs can be hidden; one experiment shown (CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.report.board import arrange
from harness.report.entry import entry_for_folder
from harness.report.fold import fold_line, measures
from harness.report.folder import is_run_folder
from harness.report.hidden import HIDDEN_FILENAME, is_hidden, set_hidden
from harness.submit.model import SubmitReport
from tests.fixtures.report_kinds import write_audit, write_check, write_package
from tests.unit.test_report_data import make_history

SPEC_ID = "20260104-100000-spec"
AWQ_ID = "20260102-100000-awq"


def write_submit(folder: Path) -> None:
    SubmitReport(
        archive="image.tar.gz",
        team_id="t",
        api_url="http://127.0.0.1:1",
        size_bytes=1,
        sha256="0" * 64,
        package_report="absent",
    ).save(folder)


def make_ledger(root: Path) -> list[Path]:
    """The four-run history, plus 2 check folders, 1 package folder and 1 submit folder."""
    folders = make_history(root)
    write_check(root / "20260105-100000-check")
    write_check(root / "20260105-110000-check")
    write_package(root / "20260105-120000-package")
    write_submit(root / "20260105-130000-submit")
    return folders


def test_fold_line_counts_by_kind() -> None:
    assert fold_line([]) == ""
    assert fold_line(["submit", "check"]) == "1 check, 1 submit folders"
    assert fold_line(["check"]) == "1 check folder"
    assert fold_line(["package", "check", "check", "submit"]) == (
        "2 check, 1 package, 1 submit folders"
    )


def test_check_package_and_submit_folders_are_folded_not_rows(tmp_path: Path) -> None:
    make_ledger(tmp_path)
    es = [entry_for_folder(p) for p in sorted(tmp_path.iterdir()) if is_run_folder(p)]
    assert [measures(e) for e in es] == [True, True, True, True, False, False, False]
    board = arrange(es, tmp_path)
    assert [e.id[-4:] for e in board.entries] == ["base", "-awq", "int3", "spec"]
    assert board.folded == "2 check, 1 package, 1 submit folders"


def test_cli_folds_hides_and_shows_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folders = make_ledger(tmp_path)
    assert main(["report", "--reports-dir", str(tmp_path), "--no-html"]) == 0
    out = capsys.readouterr().out
    assert "not in the table: 2 check, 1 package, 1 submit folders" in out
    assert "★ best: 20260104-100000-spec" in out
    # hiding the best: the marker is a file beside the reports, the report is untouched
    latency = (folders[3] / "latency.json").read_bytes()
    assert main(["report", "--hide", str(folders[3])]) == 0
    assert is_hidden(folders[3]) and (folders[3] / "latency.json").read_bytes() == latency
    assert "hidden" in capsys.readouterr().out
    assert main(["report", "--reports-dir", str(tmp_path), "--json", "--no-html"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best"] == AWQ_ID and data["hidden"] == 1
    assert SPEC_ID not in [r["id"] for r in data["runs"]]
    # --all shows it, marked, never ★
    assert main(["report", "--reports-dir", str(tmp_path), "--json", "--no-html", "--all"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert SPEC_ID in [r["id"] for r in data["runs"]] and data["best"] == AWQ_ID
    assert data["groups"][0]["not_ranked"][SPEC_ID] == ["hidden"]
    assert main(["report", "--unhide", str(folders[3])]) == 0
    assert not (folders[3] / HIDDEN_FILENAME).exists()
    assert "shown again" in capsys.readouterr().out
    assert main(["report", "--reports-dir", str(tmp_path), "--json", "--no-html"]) == 0
    assert json.loads(capsys.readouterr().out)["best"] == SPEC_ID


def test_set_hidden_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    folder = make_history(tmp_path)[0]
    assert set_hidden(folder, True) and not set_hidden(folder, True)
    assert set_hidden(folder, False) and not set_hidden(folder, False)


def test_experiment_shows_one_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folders = make_history(tmp_path)
    for f in folders[2:]:  # int3 and spec belong to the experiment "spec-decode"
        data = json.loads((f / "latency.json").read_text(encoding="utf-8"))
        data["provenance"]["experiment"] = "spec-decode"
        (f / "latency.json").write_text(json.dumps(data), encoding="utf-8")
    args = ["report", "--reports-dir", str(tmp_path), "--json", "--no-html"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["label"] for g in data["groups"]] == [
        "experiment spec-decode (efficient-qwen)",
        "efficient-qwen on Qwen/Qwen3.5-4B, qwen",
    ]
    assert [g["best"] for g in data["groups"]] == [SPEC_ID, AWQ_ID]
    assert main([*args, "--experiment", "spec-decode"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in data["runs"]] == [SPEC_ID, "20260103-100000-int3"]
    assert data["runs"][0]["experiment"] == "spec-decode"


def test_folded_folders_form_no_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Audit-only folders are folded out of the table, so no group the table does not show is
    offered for --experiment (an audit per port once listed 25 groups, most invisible)."""
    make_ledger(tmp_path)
    write_audit(tmp_path / "20260106-100000-audit")
    assert main(["report", "--reports-dir", str(tmp_path), "--json", "--no-html"]) == 0
    data = json.loads(capsys.readouterr().out)
    shown = sorted(g["label"] for g in data["groups"])
    assert data["folded"] == "2 check, 1 audit, 1 package, 1 submit folders"
    assert main(["report", "--reports-dir", str(tmp_path), "--experiment", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"pass one of the groups: {'; '.join(shown)}\n" in err
    # a folded folder's own group is no group to select either
    audit = "no profile on server at h:1 (no fingerprint)"
    assert main(["report", "--reports-dir", str(tmp_path), "--experiment", audit]) == 2
