"""``runs.new_run_folder``: two runs never share a folder, even started in the same second
by different processes (mkdir without exist_ok decides; a taken name gets a suffix)."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.run_folder import new_run_folder

MAKERS = 12


def _make(
    root: str, barrier: multiprocessing.synchronize.Barrier, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    os.environ["HARNESS_REPORTS_DIR"] = root
    barrier.wait()
    folder = new_run_folder(None, "same", "latency")
    (folder / "owner").write_text(str(os.getpid()))
    out.put(str(folder))


def test_concurrent_makers_get_distinct_folders(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(MAKERS)
    out: multiprocessing.Queue = ctx.Queue()  # type: ignore[type-arg]
    procs = [ctx.Process(target=_make, args=(str(tmp_path), barrier, out)) for _ in range(MAKERS)]
    for p in procs:
        p.start()
    folders = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert len(set(folders)) == MAKERS
    owners = {(Path(f) / "owner").read_text() for f in folders}
    assert len(owners) == MAKERS  # no folder was written by two makers


def test_a_taken_name_gets_the_next_suffix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(tmp_path))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    first = new_run_folder(None, "x", "latency")
    second = new_run_folder(None, "x", "latency")
    if first.name.startswith(stamp) and second.name.startswith(stamp):
        assert second.name == f"{first.name}-2"
    assert first != second and first.is_dir() and second.is_dir()


def test_out_reuses_the_given_folder(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    assert new_run_folder(target, None, "latency") == target
    assert new_run_folder(target, None, "latency") == target


def test_an_unwritable_reports_folder_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(blocker))
    with pytest.raises(ConfigError):
        new_run_folder(None, "x", "latency")
