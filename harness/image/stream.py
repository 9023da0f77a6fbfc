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
import queue
import threading
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any

from harness.errors import UsageError

BLOCK = 8 << 20  # raw read size: large, so hashing and inflating run in C most of the time
_OUT_MAX = 4 << 20
_AHEAD = 8  # pieces inflated ahead of the tar reader (at most 8 x _OUT_MAX bytes)
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


def tar_pieces(
    fh: IO[bytes], *, compressed: bool, on_block: Callable[[bytes], None] | None = None
) -> Iterator[bytes]:
    """The tar bytes of ``fh`` in pieces (inflated when ``compressed``), to the file's end.

    Raises :class:`ArchiveError` where the gzip stream is cut short, corrupt, or
    followed by bytes that are not another gzip member."""
    raw = _blocks(fh, on_block)
    if not compressed:
        yield from raw
        return
    inflate = zlib.decompressobj(_GZIP)
    pending = b""  # compressed input not yet inflated
    member_open = False  # a gzip member has started and not reached its trailer
    members = 0  # gzip members read to their trailer
    while True:
        if not pending:
            block = next(raw, None)
            if block is None:
                if member_open:
                    raise _unreadable("the gzip stream ends early (the file is truncated)")
                if not members:
                    raise _unreadable("the file is empty")
                return
            pending = block
        if not member_open and members and not GZIP_MAGIC.startswith(pending[:2]):
            raise _unreadable("the bytes after the end of the gzip stream are not gzip data")
        member_open = True
        try:
            out = inflate.decompress(pending, _OUT_MAX)
        except zlib.error as err:
            raise _unreadable(f"the gzip data is corrupt ({_zlib_reason(err)})") from None
        if inflate.eof:
            # zlib checked this member's CRC-32 and length: the next bytes start another one
            pending = inflate.unused_data
            inflate = zlib.decompressobj(_GZIP)
            member_open = False
            members += 1
        else:
            pending = inflate.unconsumed_tail
        if out:
            yield out


_END = object()


class ArchiveStream(io.RawIOBase):
    """A readable stream of :func:`tar_pieces`, produced ahead on a worker thread.

    Reading, hashing (``on_block``) and inflating run on the worker while the
    caller parses the tar: zlib and hashlib release the GIL, so on two cores or
    more the pre-flight costs about its slowest stage, not the sum. Whatever the
    worker raises is raised by the next read. Close it (``with``) to stop the worker.
    """

    def __init__(
        self,
        fh: IO[bytes],
        *,
        compressed: bool,
        on_block: Callable[[bytes], None] | None = None,
    ) -> None:
        self._pieces = tar_pieces(fh, compressed=compressed, on_block=on_block)
        self._queue: queue.Queue[object] = queue.Queue(maxsize=_AHEAD)
        self._stop = threading.Event()
        self._done = False
        self._cur = b""
        self._pos = 0
        self._worker = threading.Thread(target=self._produce, name="archive-read", daemon=True)
        self._worker.start()

    def _put(self, item: object) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _produce(self) -> None:
        try:
            for piece in self._pieces:
                if self._stop.is_set():
                    return
                self._put(piece)
            self._put(_END)
        except BaseException as err:  # handed to the reading thread, which raises it
            self._put(err)

    def readable(self) -> bool:
        return True

    def _more(self) -> bytes:
        if self._done:
            return b""
        item = self._queue.get()
        if item is _END:
            self._done = True
            return b""
        if isinstance(item, BaseException):
            self._done = True
            raise item
        assert isinstance(item, bytes)
        return item

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

    def close(self) -> None:
        self._stop.set()
        if self._worker.is_alive():
            self._worker.join()
        super().close()


def _zlib_reason(err: zlib.error) -> str:
    text = str(err)
    if "incorrect data check" in text:
        return "CRC-32 mismatch: bytes changed"
    if "incorrect length check" in text:
        return "length mismatch"
    return text.split(": ", 1)[-1]
