"""An archive file read once, to its last byte: raw blocks to observers, the tar bytes out.

:class:`ArchiveStream` reads the file in large blocks and hands each raw block
to ``on_block`` (``harness submit`` hashes them: sha256 and MD5 in the same
pass) before it decompresses it. A gzip file is checked member by member to
its trailer: zlib verifies each member's CRC-32 and length, a file that ends
inside a member is truncated, and bytes after the last member must be another
member (``pigz`` and harness's own writer produce several; ``docker load`` reads
them all and refuses anything else). :meth:`ArchiveStream.finish` reads what the
tar reader left (the end-of-archive blocks) so the check reaches the end of the file.

Decompressed output is produced in bounded pieces (``_OUT_MAX``), so a block of
zeros that inflates a thousandfold never lands in memory at once.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any

from harness.errors import UsageError

BLOCK = 8 << 20  # raw read size: large, so hashing and inflating run in C most of the time
_OUT_MAX = 4 << 20
_GZIP = 16 + zlib.MAX_WBITS
GZIP_MAGIC = b"\x1f\x8b"


class ArchiveError(UsageError):
    """The file is not a complete, readable image archive (truncated, corrupt, not an image)."""


def _unreadable(reason: str) -> ArchiveError:
    return ArchiveError(f"not a readable image archive: {reason}")


def _blocks(fh: IO[bytes], on_block: Callable[[bytes], None] | None) -> Iterator[bytes]:
    while block := fh.read(BLOCK):
        if on_block is not None:
            on_block(block)
        yield block


class ArchiveStream(io.RawIOBase):
    """The tar bytes of ``fh`` (inflated when ``compressed``), every raw byte seen once."""

    def __init__(
        self,
        fh: IO[bytes],
        *,
        compressed: bool,
        on_block: Callable[[bytes], None] | None = None,
    ) -> None:
        self._raw = _blocks(fh, on_block)
        self._compressed = compressed
        self._inflate = zlib.decompressobj(_GZIP)
        self._pending = b""  # compressed input not yet inflated
        self._member_open = False  # a gzip member has started and not reached its trailer
        self.members = 0  # gzip members read to their trailer
        self._cur = b""
        self._pos = 0

    def readable(self) -> bool:
        return True

    def _next_raw(self) -> bytes | None:
        return next(self._raw, None)

    def _more(self) -> bytes:
        """The next piece of tar bytes; b"" only at the clean end of the file."""
        if not self._compressed:
            return self._next_raw() or b""
        while True:
            if not self._pending:
                block = self._next_raw()
                if block is None:
                    if self._member_open:
                        raise _unreadable("the gzip stream ends early (the file is truncated)")
                    if not self.members:
                        raise _unreadable("the file is empty")
                    return b""
                self._pending = block
            if not self._member_open and self.members and not GZIP_MAGIC.startswith(
                self._pending[:2]
            ):
                raise _unreadable("the bytes after the end of the gzip stream are not gzip data")
            self._member_open = True
            try:
                out = self._inflate.decompress(self._pending, _OUT_MAX)
            except zlib.error as err:
                raise _unreadable(f"the gzip data is corrupt ({_zlib_reason(err)})") from None
            d = self._inflate
            if d.eof:
                # zlib checked this member's CRC-32 and length: the next bytes start another one
                self._pending = d.unused_data
                self._inflate = zlib.decompressobj(_GZIP)
                self._member_open = False
                self.members += 1
            else:
                self._pending = d.unconsumed_tail
            if out:
                return out

    def readinto(self, b: Any) -> int:
        if self._pos >= len(self._cur):
            self._cur, self._pos = self._more(), 0
        n = min(len(b), len(self._cur) - self._pos)
        b[:n] = self._cur[self._pos : self._pos + n]
        self._pos += n
        return n

    def finish(self) -> int:
        """Read to the end of the file (checking the gzip stream); the tar bytes left over."""
        left = len(self._cur) - self._pos
        self._cur, self._pos = b"", 0
        while piece := self._more():
            left += len(piece)
        return left


def _zlib_reason(err: zlib.error) -> str:
    text = str(err)
    if "incorrect data check" in text:
        return "CRC-32 mismatch: bytes changed"
    if "incorrect length check" in text:
        return "length mismatch"
    return text.split(": ", 1)[-1]
