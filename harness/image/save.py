"""``docker save`` streamed through the Engine API into a parallel-compressed file."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import docker

from harness.image.compress import Compressor, open_sink
from harness.image.engine import engine_errors
from harness.image.output import output_errors, prepare_output

_CHUNK = 4 * 1024 * 1024

Progress = Callable[[int, int], None]  # (bytes read from the engine, expected total)


@dataclass
class SaveResult:
    image: str
    image_id: str
    image_bytes: int  # the engine's reported size (uncompressed, approximate)
    tar_bytes: int  # bytes of the saved tar stream
    compressed_bytes: int
    sha256: str
    seconds: float
    compressor: str

    @property
    def mb_per_s(self) -> float:
        return self.tar_bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0


def save_image(
    client: docker.DockerClient,
    ref: str,
    dest: Path,
    *,
    level: int = 1,
    compressor: Compressor = "auto",
    threads: int | None = None,
    progress: Progress | None = None,
) -> SaveResult:
    """Save ``ref`` (with its name, so ``docker load`` restores the tag) to ``dest``.

    Written to ``dest`` + ``.partial`` and renamed at the end, so a broken run
    never leaves a file named ``image.tar.gz`` behind.
    """
    with engine_errors(f"image {ref}"):
        image = client.images.get(ref)
    expected = int(image.attrs.get("Size") or 0)
    partial = dest.with_name(dest.name + ".partial")
    prepare_output(dest)
    with output_errors(dest):  # opened now: an unwritable folder fails before the save
        sink = open_sink(partial, level=level, compressor=compressor, threads=threads)
    read = 0
    start = time.perf_counter()
    ok = False
    try:
        with engine_errors(f"saving {ref}"):
            # named: the archive carries the tag the user asked for, so `docker load` restores it.
            named: str | bool = ref if ref in image.tags else True
            for chunk in image.save(chunk_size=_CHUNK, named=named):
                sink.write(chunk)
                read += len(chunk)
                if progress is not None:
                    progress(read, max(expected, read))
        size, digest = sink.close()
        ok = True
    finally:
        if not ok:
            sink.abort()
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
    os.replace(partial, dest)
    return SaveResult(
        image=ref,
        image_id=str(image.id),
        image_bytes=expected,
        tar_bytes=read,
        compressed_bytes=size,
        sha256=digest,
        seconds=time.perf_counter() - start,
        compressor=sink.name,
    )
