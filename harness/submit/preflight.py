"""Everything checked before any network call: the file is proven, then the key is read.

:func:`verify_archive` refuses a file that is misnamed, empty or over the size
limit; one whose ``package.json`` (beside it) is unreadable or says FAIL; one
that is not a complete saved image (the gzip stream and the tar read to the end,
the manifest, the config and every layer it names found: the same inspection as
``harness package --archive``, harness/image/archive.py); and one whose sha256
differs from the one ``package.json`` recorded. The file is read once: the
inspection hands every raw block to the sha256 (the resume key) and the MD5
(the single PUT's expected ETag). A multipart part's MD5 is taken when the part
is read to be sent, from the bytes sent (harness/submit/uploader.py).
``skip_check`` (``--skip-archive-check``) keeps the hashes, the ``package.json``
comparison and the gzip stream's integrity (inflated to each member's trailer: a
truncated or corrupt file is refused), but not the layout inspection; submit.json
records it.

``harness package --archive`` (and ``--output`` elsewhere) leaves ``package.json`` in
its run folder, not beside the archive: without one beside it, the run folders under
``package_folders`` (the reports folder, ``--reports``) are searched for the
``package.json`` that recorded this very file (its name, size and sha256).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import ConfigError, HarnessError, UsageError, VerdictFailed
from harness.image.archive import inspect_archive
from harness.image.report import PackageReport
from harness.image.rules import human_bytes
from harness.image.stream import GZIP_MAGIC, ArchiveError, tar_pieces
from harness.profiles import PackageSpec

KEY_ENV = "HARNESS_API_KEY"


@dataclass
class Preflight:
    size: int
    sha256: str
    md5: str
    package_report: str  # "passed" (package.json beside it, same sha256) or "absent"
    archive_check: str  # "passed", or "skipped" (--skip-archive-check)
    layout: str | None = None  # "docker" or "oci", when inspected
    warnings: list[str] = field(default_factory=list)
    # the image's ids: its config digest (when inspected), package.json's image_id
    image_ids: list[str] = field(default_factory=list)


class Stopped(HarnessError):
    """The pre-flight was told to stop (Ctrl-C / SIGTERM reached the caller)."""


def check_name_and_size(path: Path, spec: PackageSpec) -> int:
    """The checks that need no read: the name, that it exists, its size."""
    if path.name != spec.image_filename:
        raise UsageError(
            f"the file is named {path.name!r}; the organiser only accepts {spec.image_filename!r}",
            hint=f"rename it to {spec.image_filename}",
        )
    if not path.exists():
        raise UsageError(
            f"no such file: {path}", hint="pass the image.tar.gz `harness package` wrote"
        )
    if not path.is_file():
        raise UsageError(
            f"{path} is not a file", hint="pass the image.tar.gz `harness package` wrote"
        )
    size = path.stat().st_size
    if size == 0:
        raise UsageError(
            f"{path.name} is empty", hint="package the image again (`harness package`)"
        )
    if size > spec.max_compressed_bytes:
        raise VerdictFailed(
            f"{path.name} is {human_bytes(size)}, over the {human_bytes(spec.max_compressed_bytes)} limit",
            hint="shrink the image (drop build caches, quantise) and package again",
        )
    return size


def package_beside(path: Path) -> PackageReport | None:
    """package.json beside the archive: None when absent; refused when unreadable or FAIL."""
    if not (path.parent / PackageReport.FILENAME).exists():
        return None
    try:
        report = PackageReport.load(path.parent)
    except HarnessError as err:
        raise VerdictFailed(
            f"{PackageReport.FILENAME} beside the archive cannot be read ({err.message})",
            hint=f"run `harness package --archive {path.name}` again, or move it away",
        ) from None
    return _judged(report)


def package_records(folders: Iterable[Path], name: str, size: int) -> list[PackageReport]:
    """The readable ``package.json`` in ``folders`` and their run folders (one level down)
    that recorded an archive of this name and size, the newest first (the sha256 decides
    which one describes the file; one that cannot be read proves nothing)."""
    found: list[PackageReport] = []
    for root in folders:
        if not root.is_dir():
            continue
        for where in [root, *sorted(p.parent for p in root.glob(f"*/{PackageReport.FILENAME}"))]:
            if not (where / PackageReport.FILENAME).is_file():
                continue
            try:
                report = PackageReport.load(where)
            except HarnessError:
                continue
            if report.archive == name and report.compressed_bytes == size:
                found.append(report)
    return sorted(found, key=lambda r: r.provenance.finished_at or "", reverse=True)


def _judged(report: PackageReport | None) -> PackageReport | None:
    """``report``, refused when it says the image fails."""
    if report is None:
        return None
    if not report.passed:
        reasons = "; ".join(f"{r.rule}: {r.detail}" for r in report.failures())
        raise VerdictFailed(
            f"package.json says this image fails: {reasons}",
            hint="fix the image and package again",
        )
    return report


def verify_archive(
    path: Path,
    spec: PackageSpec,
    *,
    skip_check: bool = False,
    package_folders: Iterable[Path] = (),
    on_bytes: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
) -> Preflight:
    """Prove the file before any organiser call (module docstring); one read of the file."""
    size = check_name_and_size(path, spec)
    try:
        with path.open("rb"):
            pass
    except OSError as err:
        raise UsageError(
            f"cannot read {path.name}: {err.strerror or type(err).__name__}",
            hint="check the file's permissions",
        ) from None
    package = package_beside(path)
    folders = list(package_folders)
    recorded = [] if package is not None else package_records(folders, path.name, size)
    warnings: list[str] = []
    layout = None
    ids: list[str] = []
    with _Digests() as digests:

        def on_block(block: bytes) -> None:
            if stop is not None and stop.is_set():
                raise Stopped("pre-flight stopped")
            digests.update(block)
            if on_bytes:
                on_bytes(len(block))

        if skip_check:
            _check_gzip(path, on_block)
            warnings.append(
                "--skip-archive-check: the archive's layout was not inspected, only its gzip"
                " stream read to its end (recorded in submit.json)"
            )
        else:
            try:
                contents = inspect_archive(path, model_dir=spec.model_dir, on_block=on_block)
            except ArchiveError as err:
                raise VerdictFailed(
                    f"{path.name}: {err.message}; nothing was sent",
                    hint="package the image again (`harness package`); --skip-archive-check"
                    " only if you know better",
                ) from None
            layout = contents.layout
            ids += [contents.config_digest] if contents.config_digest else []
    digest = digests.sha256.hexdigest()
    if package is None:
        package = _judged(next((r for r in recorded if r.sha256 == digest), None))
    if package is None:
        warnings.append(
            "no package.json describes this file (beside it, or in a run folder under"
            f" {' or '.join(str(f) for f in folders) or 'the reports folder'}): the"
            " container contract (port, env, weights, entrypoint) was not judged;"
            f" `harness package --archive {path}` does it (add --reports DIR here when its"
            " --out is elsewhere)"
        )
    elif package.sha256 != digest:
        raise VerdictFailed(
            f"{path.name} is not the file package.json describes: its sha256 is"
            f" {digest[:12]}…, package.json recorded {package.sha256[:12]}…"
            f" ({human_bytes(size)} now, {human_bytes(package.compressed_bytes)} then);"
            " nothing was sent",
            hint="the file was cut short or changed after `harness package`: package again",
        )
    if package is not None and package.image_id and package.image_id not in ids:
        ids.append(package.image_id)
    return Preflight(
        size=size,
        image_ids=ids,
        sha256=digest,
        md5=digests.md5.hexdigest(),
        package_report="absent" if package is None else "passed",
        archive_check="skipped" if skip_check else "passed",
        layout=layout,
        warnings=warnings,
    )


class _Digests:
    """sha256 and MD5 of the blocks given, each on its own thread, in order.

    hashlib releases the GIL on large buffers, so the two hashes run beside the
    inflating and the tar parsing instead of after them. At most ``_AHEAD`` blocks wait."""

    _AHEAD = 4

    def __init__(self) -> None:
        self.sha256 = hashlib.sha256()
        self.md5 = hashlib.md5(usedforsecurity=False)
        # one thread per hash: a hash's updates must stay in order
        self._pools = [ThreadPoolExecutor(1, thread_name_prefix=n) for n in ("sha256", "md5")]
        self._pending: deque[Future[None]] = deque()

    def update(self, block: bytes) -> None:
        while len(self._pending) >= 2 * self._AHEAD:
            self._pending.popleft().result()
        self._pending.append(self._pools[0].submit(self.sha256.update, block))
        self._pending.append(self._pools[1].submit(self.md5.update, block))

    def __enter__(self) -> _Digests:
        return self

    def __exit__(self, *exc: object) -> None:
        for pool in self._pools:
            pool.shutdown(wait=True)  # every block given is hashed
        for fut in self._pending:
            fut.result()


def _check_gzip(path: Path, on_block: Callable[[bytes], None]) -> None:
    """Read the file through, inflating a gzip stream to each member's trailer (zlib checks
    its CRC-32 and length): a cut or corrupt file is refused before anything is sent."""
    with path.open("rb") as fh:
        compressed = fh.read(2) == GZIP_MAGIC
        fh.seek(0)
        try:
            for _ in tar_pieces(fh, compressed=compressed, on_block=on_block):
                pass
        except ArchiveError as err:
            raise VerdictFailed(
                f"{path.name}: {err.message}; nothing was sent",
                hint="package the image again (`harness package`): --skip-archive-check skips"
                " the layout check, not the gzip stream's integrity",
            ) from None


def read_api_key(key_file: str | None, warn: Callable[[str], None]) -> str:
    """The key from ``--api-key-file`` or ``$HARNESS_API_KEY``; never echoed."""
    if key_file:
        path = Path(key_file)
        try:
            mode = path.stat().st_mode
            key = path.read_text(encoding="utf-8").strip()
        except OSError as err:
            raise ConfigError(f"cannot read the API key file: {err.strerror}") from None
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            warn(f"the API key file is readable by others: chmod 600 {path.name}")
    else:
        key = os.environ.get(KEY_ENV, "").strip()
    if not key:
        raise ConfigError("no API key", hint=f"set {KEY_ENV} or pass --api-key-file FILE")
    return key
