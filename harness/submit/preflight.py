"""Everything checked before any network call: name, size, package verdict, the key."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import ConfigError, HarnessError, UsageError, VerdictFailed
from harness.image.report import PackageReport
from harness.image.rules import human_bytes
from harness.profiles import PackageSpec

KEY_ENV = "HARNESS_API_KEY"


@dataclass
class Preflight:
    size: int
    package_report: str  # "passed", "absent", or "other file"
    warnings: list[str] = field(default_factory=list)


def check_archive(path: Path, spec: PackageSpec) -> Preflight:
    if path.name != spec.image_filename:
        raise UsageError(
            f"the file is named {path.name!r}; the organiser only accepts {spec.image_filename!r}",
            hint=f"rename it to {spec.image_filename}",
        )
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    size = path.stat().st_size
    if size == 0:
        raise UsageError(f"{path.name} is empty")
    if size > spec.max_compressed_bytes:
        raise VerdictFailed(
            f"{path.name} is {human_bytes(size)}, over the {human_bytes(spec.max_compressed_bytes)} limit",
            hint="shrink the image (drop build caches, quantise) and package again",
        )
    warnings: list[str] = []
    verdict = "absent"
    try:
        report = PackageReport.load(path.parent)
    except HarnessError:
        warnings.append(
            "no readable package.json beside the archive: run `harness package` first to have it inspected"
        )
    else:
        if report.archive == path.name and report.compressed_bytes == size:
            if not report.passed:
                reasons = "; ".join(f"{r.rule}: {r.detail}" for r in report.failures())
                raise VerdictFailed(
                    f"package.json says this image fails: {reasons}",
                    hint="fix the image and package again",
                )
            verdict = "passed"
        else:
            verdict = "other file"
            warnings.append(
                "package.json beside the archive describes another file (size differs): not trusted"
            )
    return Preflight(size=size, package_report=verdict, warnings=warnings)


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


@dataclass
class Digests:
    sha256: str
    md5: str


def digest_file(path: Path, on_bytes: Callable[[int], None] | None = None) -> Digests:
    """sha256 (the resume key) and md5 (the single PUT's expected ETag) in one read."""
    sha = hashlib.sha256()
    md5 = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as fh:
        while block := fh.read(8 << 20):
            sha.update(block)
            md5.update(block)
            if on_bytes:
                on_bytes(len(block))
    return Digests(sha256=sha.hexdigest(), md5=md5.hexdigest())
