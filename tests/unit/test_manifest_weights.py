"""The model files' digest (harness/manifest/weights.py): the same headers give the same id
wherever they are read; another header, path or file changes it."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import pytest

from harness.manifest.weights import (
    UnreadableHeader,
    folder_headers,
    header_sha256,
    read_header,
    weights_id,
)


def _safetensors(tensors: dict[str, list[int]]) -> bytes:
    header = json.dumps(
        {n: {"dtype": "F16", "shape": s, "data_offsets": [0, 0]} for n, s in tensors.items()}
    ).encode()
    return struct.pack("<Q", len(header)) + header + b"\0" * 16


def test_read_header_returns_the_json_bytes_and_refuses_a_cut_file() -> None:
    data = _safetensors({"w": [2, 2]})
    header = read_header(io.BytesIO(data))
    assert header is not None and json.loads(header)["w"]["shape"] == [2, 2]
    with pytest.raises(UnreadableHeader, match="truncated safetensors header"):
        read_header(io.BytesIO(data[:12]))
    with pytest.raises(UnreadableHeader, match="shorter than a safetensors header"):
        read_header(io.BytesIO(b"\x01\x02"))
    with pytest.raises(UnreadableHeader, match="is implausible"):
        read_header(io.BytesIO(struct.pack("<Q", 1 << 40)))


def test_weights_id_is_order_free_and_changes_with_a_header_or_a_path() -> None:
    a, b = header_sha256(b'{"a":1}'), header_sha256(b'{"b":1}')
    one = weights_id({"x.safetensors": a, "y.safetensors": b})
    assert one == weights_id({"y.safetensors": b, "x.safetensors": a})
    assert one is not None and len(one) == 16
    assert one != weights_id({"x.safetensors": b, "y.safetensors": a})
    assert one != weights_id({"x.safetensors": a, "z.safetensors": b})
    assert one != weights_id({"x.safetensors": a})
    assert weights_id({}) is None


def test_folder_headers_are_relative_and_skip_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "model.safetensors").write_bytes(_safetensors({"w": [4]}))
    (tmp_path / "sub" / "part.safetensors").write_bytes(_safetensors({"v": [8]}))
    (tmp_path / "cut.safetensors").write_bytes(b"\x10\x00")
    (tmp_path / "config.json").write_text("{}")
    found = folder_headers(tmp_path)
    assert sorted(found) == ["model.safetensors", "sub/part.safetensors"]
    moved = tmp_path / "copy"
    moved.mkdir()
    (moved / "model.safetensors").write_bytes(_safetensors({"w": [4]}))
    (moved / "sub").mkdir()
    (moved / "sub" / "part.safetensors").write_bytes(_safetensors({"v": [8]}))
    assert weights_id(folder_headers(moved)) == weights_id(found)
