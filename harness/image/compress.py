"""Parallel gzip of a byte stream into a file, hashing the compressed bytes on the way.

Two writers with one interface: the ``pigz`` binary (fastest; Debian package
``pigz``) and, when it is absent, a pure-stdlib writer that deflates fixed
blocks in a thread pool and writes each as its own gzip member. Concatenated
gzip members are one valid gzip file (RFC 1952 §2.2); Go's reader (``docker
load``), GNU gzip and Python's ``gzip`` all read them as one stream.

Both are deterministic: the same tar bytes, compressor and level give the same
file (no name, mtime 0 in every gzip header), so an image packaged again has
the same sha256 and an interrupted upload can resume (docs/package.md,
"Reproducible archives").
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
import zlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO, Literal, Protocol

from harness.errors import EngineError

Compressor = Literal["auto", "pigz", "zlib"]
_BLOCK = 8 * 1024 * 1024


class GzipSink(Protocol):
    name: str

    def write(self, data: bytes) -> None: ...
    def close(self) -> tuple[int, str]:
        """Finish; return (compressed bytes, sha256 hex)."""
        ...


class _HashingFile:
    def __init__(self, path: Path) -> None:
        self._fh: IO[bytes] = path.open("wb")
        self._sha = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> None:
        self._sha.update(data)
        self._fh.write(data)
        self.size += len(data)

    def close(self) -> tuple[int, str]:
        self._fh.close()
        return self.size, self._sha.hexdigest()


class PigzSink:
    """``pigz -L -n -p N`` as a child; a thread drains its stdout into the hashing file."""

    def __init__(self, path: Path, level: int, threads: int) -> None:
        binary = shutil.which("pigz")
        if binary is None:
            raise EngineError(
                "pigz is not installed", hint="apt-get install pigz, or --compressor zlib"
            )
        self.name = f"pigz -{level} -n -p {threads}"
        self._out = _HashingFile(path)
        self._proc = subprocess.Popen(
            # -n: no file name and no mtime in the gzip header, so the same tar stream
            # always gives the same bytes (and sha256)
            [binary, f"-{level}", "-n", "-p", str(threads), "-c"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._error: BaseException | None = None
        self._drain = threading.Thread(target=self._pump, name="pigz-drain", daemon=True)
        self._drain.start()

    def _pump(self) -> None:
        assert self._proc.stdout is not None
        try:
            while chunk := self._proc.stdout.read(1 << 20):
                self._out.write(chunk)
        except OSError as err:  # disk full: surfaced by close()
            self._error = err

    def write(self, data: bytes) -> None:
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(data)
        except BrokenPipeError:
            raise EngineError(f"pigz exited early (code {self._proc.poll()})") from None

    def close(self) -> tuple[int, str]:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        code = self._proc.wait()
        self._drain.join()
        result = self._out.close()
        if self._error is not None:
            raise EngineError(f"writing the archive failed: {self._error}")
        if code != 0:
            raise EngineError(f"pigz failed with exit code {code}")
        return result

    def abort(self) -> None:
        self._proc.kill()
        self._proc.wait()
        self._drain.join()
        self._out.close()


class ZlibSink:
    """Blocks deflated in parallel threads (zlib releases the GIL), written in order."""

    def __init__(self, path: Path, level: int, threads: int) -> None:
        self.name = f"zlib -{level} x{threads} threads"
        self._out = _HashingFile(path)
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="deflate")
        self._pending: deque[Future[bytes]] = deque()
        self._buf = bytearray()
        self._level = level
        self._max_pending = threads * 2

    def _compress(self, block: bytes) -> bytes:
        obj = zlib.compressobj(self._level, zlib.DEFLATED, 31)  # wbits 31: a gzip member
        return obj.compress(block) + obj.flush()

    def _submit(self, block: bytes) -> None:
        self._pending.append(self._pool.submit(self._compress, block))
        while len(self._pending) >= self._max_pending:
            self._out.write(self._pending.popleft().result())

    def write(self, data: bytes) -> None:
        self._buf += data
        while len(self._buf) >= _BLOCK:
            self._submit(bytes(self._buf[:_BLOCK]))
            del self._buf[:_BLOCK]

    def close(self) -> tuple[int, str]:
        if self._buf or (not self._pending and self._out.size == 0):
            self._submit(bytes(self._buf))
            self._buf.clear()
        while self._pending:
            self._out.write(self._pending.popleft().result())
        self._pool.shutdown()
        return self._out.close()

    def abort(self) -> None:
        self._pool.shutdown(cancel_futures=True)
        self._out.close()


def open_sink(
    path: Path, *, level: int = 1, compressor: Compressor = "auto", threads: int | None = None
) -> PigzSink | ZlibSink:
    n = threads or os.cpu_count() or 1
    if compressor == "pigz" or (compressor == "auto" and shutil.which("pigz")):
        return PigzSink(path, level, n)
    return ZlibSink(path, level, n)
