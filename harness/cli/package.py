"""``harness package --image NAME[:TAG]``: save, compress, inspect, judge."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.cli.common import add_common, byte_progress, positive_int, start_run
from harness.errors import EXIT_FAIL, EXIT_OK, ConfigError, UsageError
from harness.image.console import render
from harness.image.engine import connect
from harness.image.package import PackageConfig, package


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "package", help="docker save → image.tar.gz (parallel gzip) → inspect → judge"
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--image",
        metavar="NAME[:TAG]",
        help="the image to save through the Docker Engine API (required: --image or --archive)",
    )
    src.add_argument(
        "--archive",
        metavar="FILE",
        help="only inspect and judge an existing image.tar.gz (required: --image or --archive)",
    )
    p.add_argument(
        "--docker-host",
        metavar="URL",
        help="engine socket (default: $DOCKER_HOST), e.g. unix:///run/podman/podman.sock",
    )
    p.add_argument(
        "--output",
        metavar="FILE",
        help="where to write the archive (default: RUN_FOLDER/image.tar.gz)",
    )
    p.add_argument(
        "--level",
        type=int,
        choices=range(1, 10),
        default=1,
        metavar="1-9",
        help="gzip level (default 1: fast, ~2%% larger)",
    )
    p.add_argument(
        "--compressor",
        choices=["auto", "pigz", "zlib"],
        default="auto",
        help="pigz when installed, else parallel zlib",
    )
    p.add_argument(
        "--threads",
        type=positive_int,
        metavar="N",
        help="compression threads (default: all cores)",
    )
    p.add_argument(
        "--max-bytes",
        type=positive_int,
        metavar="N",
        help="override the profile's compressed size limit in bytes, for rehearsals and tests"
        " (default: the profile's, 20000000000)",
    )
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ctx = start_run(args, "package")
    spec = ctx.profile.package
    if spec is None:
        raise ConfigError(f"profile {ctx.profile.name!r} has no [package] section")
    if args.max_bytes is not None:
        spec = spec.model_copy(update={"max_compressed_bytes": args.max_bytes})
    if args.archive:
        archive = Path(args.archive)
        if not archive.is_file():
            raise UsageError(f"no such file: {archive}")
    else:
        archive = Path(args.output) if args.output else ctx.folder / spec.image_filename
    cfg = PackageConfig(
        image=args.image,
        archive=archive,
        spec=spec,
        level=args.level,
        compressor=args.compressor,
        threads=args.threads,
    )
    client = connect(args.docker_host) if args.image else None
    with byte_progress(ctx.console) as bar:
        task = bar.add_task(f"save {args.image or archive.name}", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            report = package(cfg, client, progress)
        finally:
            if client is not None:
                client.close()
    report.provenance = ctx.provenance
    report.save(ctx.folder)
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
    render(report, ctx.console)
    ctx.console.print(f"report: {ctx.folder / report.FILENAME}")
    return EXIT_OK if report.passed else EXIT_FAIL
