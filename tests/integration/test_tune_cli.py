"""harness tune's wrong inputs: one line, exit 2, nothing started."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli import main

SPACE = """
[serve]
command = "{python} -m harness simulate --port {{port}} --itl-ms {{itl_ms}}"
[params]
itl_ms = [1, 2]
[budget]
trials = 2
[options]
data_dir = "{data}"
"""


def _space(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "space.toml"
    path.write_text(text)
    return path


def test_a_misspelt_key_is_exit_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SPACE.format(python=sys.executable, data=tmp_path).replace("trials", "trails")
    rc = main(["tune", str(_space(tmp_path, text)), "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert err == [
        "harness: error: space.toml: budget.trails: Extra inputs are not permitted — "
        "see docs/tune.md for the keys SPACE.toml takes"
    ]
    assert not (tmp_path / "t").exists()


def test_missing_quality_data_stops_before_any_candidate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "nodata"
    empty.mkdir()
    text = SPACE.format(python=sys.executable, data=empty)
    rc = main(["tune", str(_space(tmp_path, text)), "--out", str(tmp_path / "t")])
    assert rc == 2
    assert "Traceback" not in capsys.readouterr().err
    assert not (tmp_path / "t" / "trials").exists()


def test_resume_of_a_folder_that_is_no_tune(tmp_path: Path) -> None:
    assert main(["tune", "--resume", str(tmp_path)]) == 2


def test_space_and_resume_together_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["tune"]) == 2
