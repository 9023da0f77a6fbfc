"""The typed config of ``harness package`` (and the gate's package step): profile + overrides."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.argtypes import positive_int
from harness.errors import ConfigError
from harness.flags import option
from harness.image.compress import Compressor
from harness.overrides import Overrides
from harness.profiles import PackageSpec, Profile
from harness.target import Target


@dataclass(frozen=True)
class PackageOverrides(Overrides):
    """What a user may set for packaging; the size limit and paths come from the profile."""

    COMMAND = "package"

    archive: Path | None = option(
        "--archive",
        type=Path,
        metavar="FILE",
        help="only inspect and judge an existing image.tar.gz (required: --image or --archive)",
    )
    docker_host: str | None = option(
        "--docker-host",
        metavar="URL",
        help="engine socket, e.g. unix:///run/podman/podman.sock (default: $DOCKER_HOST)",
        gate="--docker-host",
    )
    output: Path | None = option(
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write the archive (default: RUN_FOLDER/image.tar.gz)",
    )
    level: int = option(
        "--level",
        default=1,
        type=int,
        choices=range(1, 10),
        metavar="1-9",
        help="gzip level (default: 1, fast, ~2%% larger)",
    )
    compressor: Compressor = option(
        "--compressor",
        default="auto",
        choices=("auto", "pigz", "zlib"),
        help="pigz when installed, else parallel zlib",
    )
    threads: int | None = option(
        "--threads", type=positive_int, metavar="N", help="compression threads (default: all cores)"
    )
    max_bytes: int | None = option(
        "--max-bytes",
        type=positive_int,
        metavar="N",
        help="override the profile's compressed size limit in bytes, for rehearsals and tests"
        " (default: the profile's, {default:package.max_compressed_bytes})",
    )


@dataclass(frozen=True)
class PackageConfig:
    image: str | None  # None: inspect an existing archive only
    archive: Path
    spec: PackageSpec
    level: int
    compressor: Compressor
    threads: int | None
    docker_host: str | None = None  # None: $DOCKER_HOST


def from_profile(profile: Profile, target: Target, o: PackageOverrides) -> PackageConfig:
    """``target.image`` saved into the run folder (or ``o.archive`` only inspected)."""
    spec = profile.package
    if spec is None:
        raise ConfigError(f"profile {profile.name!r} has no [package] section")
    if o.max_bytes is not None:
        spec = spec.model_copy(update={"max_compressed_bytes": o.max_bytes})
    archive = o.archive or o.output or target.folder / spec.image_filename
    return PackageConfig(
        image=target.image or None,
        archive=archive,
        spec=spec,
        level=o.level,
        compressor=o.compressor,
        threads=o.threads,
        docker_host=o.docker_host,
    )
