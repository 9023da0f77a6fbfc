"""The model files' identity: a digest of their safetensors headers.

A safetensors file starts with an 8-byte little-endian length and a JSON header naming
every tensor, its dtype, shape and byte offsets; a quantised checkpoint, a pruned one or
another model has another header. Hashing the headers (kilobytes) instead of the weights
(gigabytes) identifies the model files cheaply, the same way wherever they are read: in an
image archive's layers (``harness package``) or in a folder on disk (``harness vlm``).

``weights_id`` covers each file's path relative to the model folder and its header's
SHA-256, sorted by path, so the same files give the same id in an image and on disk.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import IO

HEADER_MAX = 100 * 1024 * 1024  # a longer declared header is not a safetensors file
SUFFIX = ".safetensors"


def header_sha256(header: bytes) -> str:
    """The SHA-256 (hex) of one file's JSON header bytes."""
    return hashlib.sha256(header).hexdigest()


class UnreadableHeader(ValueError):
    """A stream that holds no safetensors header; the message says why."""


def read_header(stream: IO[bytes]) -> bytes:
    """The JSON header bytes at the start of a safetensors stream. UnreadableHeader when the
    stream is shorter than a header's length field or than its declared header, or declares
    an implausible one."""
    raw = stream.read(8)
    if len(raw) < 8:
        raise UnreadableHeader("shorter than a safetensors header")
    (length,) = struct.unpack("<Q", raw)
    if length > HEADER_MAX:
        raise UnreadableHeader(f"header length {length} is implausible")
    header = stream.read(length)
    if len(header) < length:
        raise UnreadableHeader("truncated safetensors header")
    return header


def weights_id(headers: Mapping[str, str]) -> str | None:
    """16 hex digits over ``{relative path: header SHA-256}``, sorted by path; None when there
    are no safetensors files."""
    if not headers:
        return None
    lines = "".join(f"{path}\0{digest}\n" for path, digest in sorted(headers.items()))
    return hashlib.sha256(lines.encode()).hexdigest()[:16]


def folder_headers(folder: Path) -> dict[str, str]:
    """``{path relative to folder: header SHA-256}`` for every readable ``*.safetensors``
    under ``folder`` (an unreadable or cut file is left out)."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob(f"*{SUFFIX}")):
        if not path.is_file():
            continue
        try:
            with path.open("rb") as stream:
                header = read_header(stream)
        except (OSError, UnreadableHeader):
            continue
        out[path.relative_to(folder).as_posix()] = header_sha256(header)
    return out
