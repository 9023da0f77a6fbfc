"""Data folder checks before a run: sample data told from real data, files that are not
JSON Lines, where the hub probe connects, the download libraries' logs printed once."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from harness.data.hub import hub_address, library_logs_once
from harness.data.layout import SAMPLES_DIR
from harness.data.samples import sample_files
from harness.data.validate import bad_line, require_readable
from harness.errors import DataMissingError


def test_sample_files_are_recognised_wherever_they_are(tmp_path: Path) -> None:
    assert sample_files(SAMPLES_DIR, ["ifeval", "gpqa_diamond_cot_zeroshot"]) == [
        "ifeval/train.jsonl",
        "gpqa/gpqa_diamond.jsonl",
    ]
    shutil.copytree(SAMPLES_DIR, tmp_path / "data")
    assert sample_files(tmp_path / "data", ["ifeval"]) == ["ifeval/train.jsonl"]
    # one more row: not the sample file any more
    path = tmp_path / "data" / "ifeval" / "train.jsonl"
    path.write_text(path.read_text() + '{"key": 99, "prompt": "x"}\n')
    assert sample_files(tmp_path / "data", ["ifeval"]) == []
    assert sample_files(tmp_path / "absent", ["ifeval"]) == []


def test_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n')
    assert bad_line(path) is None
    path.write_text('{"a": 1}\n{"a": \n')
    assert (bad_line(path) or "").startswith("line 2 is not JSON (")
    path.write_text("[1, 2]\n")
    assert bad_line(path) == "line 1 is not a JSON object"
    path.write_text("\n")
    assert bad_line(path) == "holds no rows"
    assert (bad_line(tmp_path / "absent.jsonl") or "").startswith("cannot be read")


def test_require_readable_names_the_file_and_the_fetch(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(SAMPLES_DIR, data)
    require_readable(data, ["ifeval"])
    (data / "ifeval" / "train.jsonl").write_bytes(b"\x00garbage")
    with pytest.raises(DataMissingError) as err:
        require_readable(data, ["ifeval"])
    assert "ifeval/train.jsonl: line 1 is not JSON" in str(err.value)
    assert err.value.hint == f"write it again: harness data fetch --out {data} --only ifeval"


def test_hub_address() -> None:
    assert hub_address({}) == ("huggingface.co", 443)
    assert hub_address({"HF_ENDPOINT": "http://127.0.0.1:9"}) == ("127.0.0.1", 9)
    assert hub_address({"HF_ENDPOINT": "https://hf-mirror.example"}) == ("hf-mirror.example", 443)
    proxied = {"HTTPS_PROXY": "http://proxy.local:3128", "HF_ENDPOINT": "https://x"}
    assert hub_address(proxied) == ("proxy.local", 3128)


def test_library_logs_print_once_while_downloading() -> None:
    lib = logging.getLogger("datasets")
    had = list(lib.handlers)
    handler = logging.NullHandler()
    if not had:
        lib.addHandler(handler)
    try:
        before = lib.propagate
        with library_logs_once():
            assert lib.propagate is False  # its own handler prints; the root's copy is off
        assert lib.propagate is before
    finally:
        lib.removeHandler(handler)
