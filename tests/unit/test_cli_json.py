"""``--json``: one declaration and one writer (harness/cli/common.py: ``add_json``,
``print_json``) for every command; each command's document parses and keeps its keys."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.cli import build_parser, main
from harness.cli.common import print_json
from harness.gate.report import GateReport
from tests.unit.test_report_data import make_run

CLI = Path(__file__).resolve().parents[2] / "harness" / "cli"
T0 = "2026-02-01T10:00:00+00:00"
MEDIANS = {"short": 1291.0, "medium": 2720.5, "long": 3288.0}
# the ledger's document (harness report --json), as the command wrote it before one writer
LEDGER_KEYS = {"runs", "best", "frontier", "frontier_basis", "groups", "changes", "folded"}
LEDGER_KEYS |= {"hidden", "html"}


def test_one_declaration_and_one_writer() -> None:
    """No command module but common.py declares ``--json`` or writes stdout itself."""
    for path in sorted(CLI.glob("*.py")):
        if path.name == "common.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""["']--json["']""", text), path.name
        assert "sys.stdout.write" not in text and "json.dumps" not in text, path.name


@pytest.mark.parametrize(
    "argv",
    [
        ["gate", "R"],
        ["report"],
        ["compare", "A", "B"],
        ["tune", "s.toml"],
        ["data", "fetch"],
        ["data", "prepare"],
        ["portal"],
        ["latency", "--url", "http://h:1"],
        ["submit", "a.tar.gz", "--team", "t", "--api-url", "http://h:1"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_every_command_takes_json(argv: list[str]) -> None:
    args = build_parser([*argv, "--json"]).parse_args([*argv, "--json"])
    assert args.json is True


def test_a_report_is_written_as_it_is_saved(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = make_run(tmp_path, "a", started_at=T0, medians=MEDIANS)
    assert main(["gate", str(run), "--json", "--quiet"]) == 4  # INCOMPLETE: no quality
    out = capsys.readouterr().out
    saved = (run / "gate.json").read_text(encoding="utf-8")
    assert out == saved + "\n"  # the file's bytes: Report.to_json
    keys = set(json.loads(out))
    assert {"kind", "verdict", "score_name", "bucket_speedups", "quality", "reports"} <= keys
    assert GateReport.from_json(out).verdict == "INCOMPLETE"


def _json(capsys: pytest.CaptureFixture) -> object:
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert out == json.dumps(doc, indent=2) + "\n"  # one spelling: indented, one document
    return doc


def test_the_report_commands_documents(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    base = ["--reports-dir", str(reports), "--no-html", "--json", "--quiet"]
    assert main(["report", *base]) == 0
    assert _json(capsys) == {"runs": [], "best": None, "html": None}
    run = make_run(reports, "a", started_at=T0, medians=MEDIANS)
    assert main(["report", *base]) == 0
    ledger = _json(capsys)
    assert isinstance(ledger, dict) and set(ledger) == LEDGER_KEYS
    assert main(["report", str(run), "--no-html", "--json", "--quiet"]) == 0
    detail = _json(capsys)
    assert isinstance(detail, dict) and set(detail) == set(ledger["runs"][0])  # a ledger line
    assert {"id", "name", "note", "profile", "verdict"} <= set(detail)
    assert main(["report", "--hide", str(run), "--json", "--quiet"]) == 0
    assert _json(capsys) == {"hidden": [str(run)], "shown": []}


def test_the_data_commands_documents(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    data = tmp_path / "data"
    assert main(["data", "fetch", "--samples", "--out", str(data), "--json", "--quiet"]) == 0
    fetched = _json(capsys)
    assert isinstance(fetched, dict) and set(fetched) == {"data_dir", "files"}
    assert fetched["data_dir"] == str(data.resolve()) and fetched["files"]
    assert main(["data", "prepare", "--out", str(data), "--json", "--quiet"]) == 0
    prepared = _json(capsys)
    assert isinstance(prepared, dict) and set(prepared) == {"nltk_data", "punkt_tab"}


def test_print_json_writes_a_plain_document_indented(capsys: pytest.CaptureFixture) -> None:
    print_json({"a": [1, 2], "b": None})
    assert capsys.readouterr().out == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": null\n}\n'
