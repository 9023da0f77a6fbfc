"""What changed between runs: the manifest diff (harness/report/changes.py), and its uses."""

from __future__ import annotations

import json
from pathlib import Path

from harness.report.board import arrange
from harness.report.changes import (
    MANIFEST_FILENAME,
    diff_settings,
    read_settings,
    step_changes,
    what_changed,
)
from harness.report.entry import entry_for_folder
from harness.report.pages import ledger_page
from harness.report.render import frontier_text
from harness.report.table import ledger_table
from tests.unit.test_report_data import make_run


def test_diff_settings_one_line_per_changed_key_sorted() -> None:
    before = {"enable_prefix_caching": False, "max_num_seqs": 64, "quantization": "awq"}
    after = {"enable_prefix_caching": True, "max_num_seqs": 64, "kv_cache_dtype": "fp8"}
    assert diff_settings(before, after) == [
        "enable_prefix_caching false → true",
        "kv_cache_dtype unset → fp8",
        "quantization awq → unset",
    ]
    assert diff_settings({}, {}) == [] and diff_settings({"a": 1}, {"a": 1}) == []
    assert diff_settings({"a": 1}, {"a": 1.0}) == ["a 1 → 1.0"]
    assert diff_settings({"a": None}, {"a": 0}) == ["a null → 0"]


def write_manifest(folder: Path, settings: object, config_id: str = "c") -> None:
    text = json.dumps({"config_id": config_id, "settings": settings})
    (folder / MANIFEST_FILENAME).write_text(text, encoding="utf-8")


def test_read_settings_is_defensive(tmp_path: Path) -> None:
    assert read_settings(tmp_path) is None  # absent
    (tmp_path / MANIFEST_FILENAME).write_text("{not json", encoding="utf-8")
    assert read_settings(tmp_path) is None
    (tmp_path / MANIFEST_FILENAME).write_bytes(b"\xff\xfe")
    assert read_settings(tmp_path) is None
    (tmp_path / MANIFEST_FILENAME).write_text("[1, 2]", encoding="utf-8")
    assert read_settings(tmp_path) is None
    write_manifest(tmp_path, ["not", "a", "dict"])
    assert read_settings(tmp_path) is None
    write_manifest(tmp_path, {"tp": 2})
    assert read_settings(tmp_path) == {"tp": 2}


MEDIANS = {"short": 2582.0, "medium": 5441.0, "long": 6576.0}


def _run(root: Path, day: int, name: str, factor: float, settings: object | None) -> Path:
    folder = make_run(
        root,
        f"2026010{day}-100000-{name}",
        started_at=f"2026-01-0{day}T10:00:00+00:00",
        medians={b: m / factor for b, m in MEDIANS.items()},
    )
    if settings is not None:
        write_manifest(folder, settings)
    return folder


def test_what_changed_against_the_previous_run_of_the_same_name(tmp_path: Path) -> None:
    folders = [
        _run(tmp_path, 1, "tune", 1.0, {"enable_prefix_caching": False, "max_num_seqs": 64}),
        _run(tmp_path, 2, "other", 1.1, {"enable_prefix_caching": True}),
        _run(tmp_path, 3, "tune", 1.5, {"enable_prefix_caching": True, "max_num_seqs": 64}),
        _run(tmp_path, 4, "tune", 1.4, None),  # no manifest: no diff
        _run(tmp_path, 5, "tune", 2.0, {"enable_prefix_caching": True, "max_num_seqs": 128}),
    ]
    es = [entry_for_folder(f) for f in folders]
    settings = {e.id: read_settings(tmp_path / e.id) for e in es}
    assert what_changed(es, settings) == {es[2].id: ["enable_prefix_caching false → true"]}
    # the ledger shows it where the run has no note (rows newest first); a note wins
    changes = what_changed(es, settings)
    table = ledger_table(es, None, changes=changes)
    assert [r.cells[2].text for r in table.rows] == [
        "—",
        "—",
        "enable_prefix_caching false → true",
        "—",
        "—",
    ]
    es[2].note = "prefix cache on"
    table = ledger_table(es, None, changes=changes)
    assert table.rows[2].cells[2].text == "prefix cache on"


def test_the_waterfall_labels_each_frontier_step_with_its_diff(tmp_path: Path) -> None:
    folders = [
        _run(tmp_path, 1, "base", 1.0, {"enable_prefix_caching": False, "tp": 1}),
        _run(tmp_path, 2, "cache", 1.5, {"enable_prefix_caching": True, "tp": 1}),
        _run(tmp_path, 3, "tp2", 2.0, {"enable_prefix_caching": True, "tp": 2}),
    ]
    es = [entry_for_folder(f) for f in folders]
    board = arrange(es, tmp_path)
    (group,) = board.groups
    assert [s.label for s in group.steps] == [
        "base",
        "cache\nenable_prefix_caching false → true",
        "tp2\ntp 1 → 2",
    ]
    # in full below the plot and on the console
    assert frontier_text(group) == (
        "frontier: base → cache (enable_prefix_caching false → true) → tp2 (tp 1 → 2)"
    )
    assert "frontier: base → cache (enable_prefix_caching false → true)" in ledger_page(
        board, tmp_path
    )
    settings = {e.id: read_settings(tmp_path / e.id) for e in es}
    assert step_changes([], settings) == [] and step_changes(es[:1], settings) == [[]]


def test_a_package_folders_manifest_is_no_runs_previous_run(tmp_path: Path) -> None:
    """``harness package`` writes manifest.json (what the image is) in a folded folder: it is
    never the run before a server run of the same profile and name."""
    from harness.image.package_manifest import package_manifest
    from harness.provenance import Provenance
    from tests.fixtures.report_kinds import write_package

    first = _run(tmp_path, 1, "tune", 1.0, {"enable_prefix_caching": False})
    package = tmp_path / "20260102-120000-tune"
    rep = write_package(package)
    rep.provenance = Provenance(profile="efficient-qwen", started_at="2026-01-02T12:00:00+00:00")
    rep.save(package)
    package_manifest(rep, {}, "sha256:" + "c" * 64).save(package)
    third = _run(tmp_path, 3, "tune", 1.5, {"enable_prefix_caching": True})
    es = [entry_for_folder(f) for f in (first, package, third)]
    assert es[1].short_label() == "tune" and es[1].profile == es[2].profile
    board = arrange(es, tmp_path)
    assert board.folded == "1 package folder"
    assert board.changes == {es[2].id: ["enable_prefix_caching false → true"]}
