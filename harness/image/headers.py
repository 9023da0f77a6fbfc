"""One safetensors header as ``harness package`` reads it from a layer: parameters, digest.

The header itself is read by :func:`harness.manifest.weights.read_header` (the one reader,
shared with a folder on disk); here the parameter count, the header's SHA-256 (the weights
id's part) and, for an unreadable one, why, in the words the package report has always used.
"""

from __future__ import annotations

import io
import json
import struct
from typing import IO, cast

from harness.manifest.weights import HEADER_MAX, header_sha256, read_header


def safetensors_parameters(header: bytes) -> int:
    """Parameter count from a safetensors JSON header (sum of prod(shape), metadata skipped)."""
    meta = json.loads(header)
    total = 0
    for name, spec in meta.items():
        if name == "__metadata__":
            continue
        count = 1
        for dim in spec["shape"]:
            count *= int(dim)
        total += count
    return total


class _Head(io.RawIOBase):
    """A stream that keeps its first 8 bytes as they are read: why a header was unreadable."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self.first = b""

    def read(self, n: int = -1) -> bytes:
        data = self._stream.read(n)
        if len(self.first) < 8:
            self.first += data[: 8 - len(self.first)]
        return data


def _why_unreadable(first: bytes) -> str:
    if len(first) < 8:
        return "shorter than a safetensors header"
    (length,) = struct.unpack("<Q", first)
    if length > HEADER_MAX:
        return f"header length {length} is implausible"
    return "truncated safetensors header"


def read_safetensors_header(stream: IO[bytes]) -> tuple[int | None, str | None, str | None]:
    """(parameters, why unreadable, the header's SHA-256) of one safetensors stream."""
    head = _Head(stream)
    header = read_header(cast(IO[bytes], head))
    if header is None:
        return None, _why_unreadable(head.first), None
    try:
        return safetensors_parameters(header), None, header_sha256(header)
    except (ValueError, KeyError, TypeError) as err:
        return None, f"unreadable safetensors header: {err}", None
