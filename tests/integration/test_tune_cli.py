"""harness tune's wrong inputs: one line, exit 2, nothing started."""

from __future__ import annotations

import json
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


def test_candidates_that_never_start_are_classified_and_the_search_goes_on(
    tmp_path: Path,
) -> None:
    from harness.data.layout import SAMPLES_DIR

    space = _space(
        tmp_path,
        f"""
[serve]
command = "{sys.executable} -c \\"import sys; print('no GPU for {{size}}'); sys.exit(3)\\" {{port}}"
[params]
size = ["small", "big"]
[options]
data_dir = "{SAMPLES_DIR}"
""",
    )
    out = tmp_path / "t"
    assert main(["tune", str(space), "--out", str(out), "--quiet"]) == 1  # nothing feasible
    tune = json.loads((out / "tune.json").read_text())
    assert tune["stopped_by"] == "grid exhausted" and tune["best"] is None
    assert [t["status"] for t in tune["trials"]] == ["failed-to-start"] * 2
    assert {t["log_tail"] for t in tune["trials"]} == {"no GPU for small", "no GPU for big"}
    assert all("exited with code 3" in t["why"] for t in tune["trials"])
