"""Small pieces of issue 27's items 14 and 18: the run folder that cannot be created, the
URL example, the subcommand's own usage line, each default said once, piped tables."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.table import Table

from harness.cli import build_parser, main
from harness.client.urls import http_base_url
from harness.errors import ConfigError, UsageError
from harness.report_base import Report
from harness.run_folder import make_folder, new_run_folder
from harness.view.fitted import PIPE_WIDTH, FittedConsole


def test_a_run_folder_under_a_file_is_a_config_error_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("a file")
    with pytest.raises(ConfigError) as err:
        new_run_folder(tmp_path / "README.md" / "x", None, "latency")
    assert err.value.one_line() == (
        f"cannot create run folder {tmp_path}/README.md/x: Not a directory; "
        "pass --out to a writable folder"
    )
    assert err.value.exit_code == 2
    with pytest.raises(ConfigError, match="File exists; pass --out"):
        new_run_folder(tmp_path / "README.md", None, "latency")
    with pytest.raises(ConfigError, match=r"cannot create the folder of --output .*--output"):
        make_folder(tmp_path / "README.md" / "y", "the folder of --output", "--output")


def test_saving_a_report_where_no_folder_can_be_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a file")
    with pytest.raises(ConfigError, match="Not a directory; pass --out"):
        Report(kind="x").save(tmp_path / "f" / "run")


@pytest.mark.parametrize(
    ("text", "example"),
    [
        ("ftp://host:21", "e.g. http://host:21"),
        ("ftp://host:21/path", "e.g. http://host:21/path"),
        ("127.0.0.1:8101", "e.g. http://127.0.0.1:8101"),
        ("grpc://", "e.g. http://HOST:PORT"),
    ],
)
def test_the_url_example_is_always_http(text: str, example: str) -> None:
    with pytest.raises(UsageError) as err:
        http_base_url(text)
    assert err.value.one_line().endswith(example)


def test_an_unknown_flag_prints_the_subcommands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--bogus"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: harness check ")
    assert err.strip().splitlines()[-1] == (
        "harness: error: unrecognized arguments: --bogus — see harness check --help"
    )
    with pytest.raises(SystemExit):
        main(["data", "prepare", "--bogus"])
    err = capsys.readouterr().err
    assert err.startswith("usage: harness data prepare ")
    assert err.strip().endswith("see harness data prepare --help")


def test_simulate_help_says_each_default_once() -> None:
    parser = build_parser(["simulate"])
    sub = next(a for a in parser._actions if a.dest == "command")
    text = " ".join(sub.choices["simulate"].format_help().split())  # type: ignore[attr-defined]
    assert re.search(r"\(default[^)]*\) \(default", text) is None, text
    assert "as vLLM does (default: off)" in text
    assert (
        "absent from the text (vLLM's detokeniser skips them) but timed and counted in usage"
        in text
    )


def test_a_piped_console_prints_a_wide_table_whole() -> None:
    out = io.StringIO()
    console = FittedConsole(file=out, width=PIPE_WIDTH, highlight=False)
    table = Table("run", "note", "score", "verdict")
    note = "a note of two hundred characters " * 6
    table.add_row("paris-fp8-speculative-decoding-run", note.strip(), "4342144.24", "INCOMPLETE")
    console.print(table)
    console.print("x" * 200)  # lines still wrap at the base width
    lines = out.getvalue().splitlines()
    assert any(note.strip() in line and "4342144.24" in line for line in lines)
    assert "…" not in out.getvalue()
    assert console.width == PIPE_WIDTH  # restored after the table
    assert lines[-1] == "x" * (200 - PIPE_WIDTH)
