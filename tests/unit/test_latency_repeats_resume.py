"""What ``--resume`` makes of a folder an interrupted ``--repeats`` run left
(harness/latency/repeats_resume.py), from literal reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.latency.repeats_resume import guard_repeats, repeat_record
from harness.latency.report import LatencyReport


def _repeat(folder: Path, i: int, *, complete: bool, of: int = 3, base: int = 7) -> None:
    rep = LatencyReport(mode="official", complete=complete)
    rep.settings = {"repeat": repeat_record(i, of, base), "seed_source": "drawn"}
    rep.save(folder / f"repeat-{i}")


def test_the_done_and_the_cut_repetitions_and_the_base_seed_are_read(tmp_path: Path):
    _repeat(tmp_path, 1, complete=True)
    _repeat(tmp_path, 2, complete=False)
    got = guard_repeats(str(tmp_path), 3, resume=True, force=False)
    assert got is not None
    assert (got.base_seed, got.seed_drawn) == (7, True)
    assert sorted(got.done) == [1] and sorted(got.cut) == [2]


def test_other_repeats_a_plain_rerun_and_an_empty_folder_are_refused(tmp_path: Path):
    _repeat(tmp_path, 1, complete=False)
    with pytest.raises(UsageError, match=r"measured with --repeats 3; this command asks 4"):
        guard_repeats(str(tmp_path), 4, resume=True, force=False)
    with pytest.raises(UsageError, match=r"already holds a latency run — use --resume"):
        guard_repeats(str(tmp_path), 3, resume=False, force=False)
    assert guard_repeats(str(tmp_path), 3, resume=False, force=True) is None
    with pytest.raises(UsageError, match=r"nothing to resume — drop --resume"):
        guard_repeats(str(tmp_path / "none"), 3, resume=True, force=False)
