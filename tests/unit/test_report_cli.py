"""``harness report`` end to end through the CLI entry point, on literal run folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.report.ledger import LEDGER_FILENAME, read_ledger, record_run
from tests.unit.test_report_data import make_history


def test_report_indexes_prints_the_table_and_writes_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folders = make_history(tmp_path)
    record_run(folders[1], "awq", "AWQ int4 weights")
    assert main(["report", "--reports-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "indexed 3 run folder(s)" in out
    assert "★ best: 20260104-100000-spec 2.50×" in out
    assert "AWQ int4 weights" in out
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count('src="data:image/png;base64,') == 5
    assert len(read_ledger(tmp_path / LEDGER_FILENAME).entries) == 4


def test_report_json_lists_runs_newest_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_history(tmp_path)
    assert main(["report", "--reports-dir", str(tmp_path), "--json", "--no-html"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["id"][-4:] for r in data["runs"]] == ["spec", "int3", "-awq", "base"]
    assert data["best"] == "20260104-100000-spec"
    assert data["frontier"] == [
        "20260101-100000-base",
        "20260102-100000-awq",
        "20260104-100000-spec",
    ]
    assert data["html"] is None and not (tmp_path / "report.html").exists()
    assert (data["runs"][1]["valid"], data["runs"][0]["risky"]) == (False, True)


def test_report_reads_the_reports_dir_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    make_history(tmp_path)
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(tmp_path))
    assert main(["report", "--no-html", "--quiet"]) == 0
    assert (tmp_path / LEDGER_FILENAME).is_file()


def test_report_run_dir_renders_one_run_and_records_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_history(tmp_path)[2]
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "verdict: FAIL" in out and "GPQA-Diamond 0.520 < 0.60" in out
    assert (folder / "report.html").is_file()
    assert [e.id for e in read_ledger(tmp_path / LEDGER_FILENAME).entries] == [folder.name]


def test_empty_reports_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--reports-dir", str(tmp_path)]) == 0
    assert "no runs recorded" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["report", "{tmp}/missing"], 2, "no such run folder"),
        (["report", "{tmp}/empty"], 4, "no report in this folder"),
        (["report", "--reports-dir", "{tmp}/missing"], 2, "no such reports folder"),
        (["report", "{tmp}/a", "{tmp}/b", "--html", "x.html"], 2, "--html takes one RUN_DIR"),
    ],
)
def test_bad_input_is_one_line_and_an_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    (tmp_path / "empty").mkdir()
    assert main([a.format(tmp=tmp_path) for a in args]) == code
    err = capsys.readouterr().err
    assert err.startswith("harness: error: ") and message in err and err.count("\n") == 1


def test_a_reports_folder_as_run_dir_shows_its_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_history(tmp_path)
    assert main(["report", str(tmp_path), "--no-html"]) == 0
    assert "★ best: 20260104-100000-spec" in capsys.readouterr().out


def test_profile_filters_the_ledger(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_history(tmp_path)
    assert main(["report", "--reports-dir", str(tmp_path), "--profile", "gpumode-paris"]) == 0
    assert "no runs with profile 'gpumode-paris' recorded" in capsys.readouterr().out
    assert (
        main(
            [
                "report",
                "--reports-dir",
                str(tmp_path),
                "--profile",
                "efficient-qwen",
                "--json",
                "--no-html",
            ]
        )
        == 0
    )
    assert len(json.loads(capsys.readouterr().out)["runs"]) == 4


def test_an_unwritable_html_path_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_history(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["report", "--reports-dir", str(tmp_path), "--html", str(blocker / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the report" in err and err.count("\n") == 1


def test_plain_report_finds_the_ledger_runs_written_with_out_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No reports folder: the ledger beside runs written with --out (DIR's parent), in the
    working folder or one level below, is the one shown; several are named; none: the
    error says where a --out run's ledger is."""
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(tmp_path / "missing"))
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--no-html"]) == 2
    err = capsys.readouterr().err
    assert "no such reports folder" in err and "--out DIR records into DIR's parent" in err
    for folder in make_history(tmp_path / "runs"):  # as --out runs/NAME left them
        record_run(folder, None, "")
    assert main(["report", "--no-html"]) == 0
    out = capsys.readouterr().out
    assert f"the ledger of runs written with --out is {tmp_path / 'runs'}" in out
    assert "★ best: 20260104-100000-spec" in out
    record_run(make_history(tmp_path / "more")[0], None, "")
    assert main(["report", "--no-html"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'more'}, {tmp_path / 'runs'}" in err
