"""One safetensors header as ``harness package`` reads it from a layer: parameters, digest.

The header itself is read by :func:`harness.manifest.weights.read_header` (the one reader,
shared with a folder on disk, and the one that says why a header is unreadable); here the
parameter count and the header's SHA-256 (the weights id's part).
"""

from __future__ import annotations

import json
from typing import IO

from harness.manifest.weights import UnreadableHeader, header_sha256, read_header


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


def read_safetensors_header(stream: IO[bytes]) -> tuple[int | None, str | None, str | None]:
    """(parameters, why unreadable, the header's SHA-256) of one safetensors stream."""
    try:
        header = read_header(stream)
    except UnreadableHeader as err:
        return None, str(err), None
    try:
        return safetensors_parameters(header), None, header_sha256(header)
    except (ValueError, KeyError, TypeError) as err:
        return None, f"unreadable safetensors header: {err}", None
