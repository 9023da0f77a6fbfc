"""``harness submit image.tar.gz --team TEAM``: resumable upload to the organiser, then submit."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

import aiohttp
from rich.console import Console
from rich.table import Table

from harness.cli.common import add_common, byte_progress, http_url, positive_int, start_run
from harness.errors import EXIT_OK, ConfigError
from harness.gate.records import gate_records
from harness.paths import reports_dir
from harness.profiles import SubmitSpec
from harness.submit.core import Hooks, SubmitConfig, SubmitReport, submit
from harness.submit.gated import UNGATED_FLAG
from harness.submit.preflight import read_api_key
from harness.submit.resume import resume_command, resume_note
from harness.submit.retry import RetryPolicy
from harness.submit.state import load_state, state_path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "submit", help="upload image.tar.gz to the organiser (resumable) and submit it"
    )
    p.add_argument("archive", metavar="image.tar.gz", help="the archive `harness package` wrote")
    p.add_argument("--team", required=True, metavar="TEAM", help="your team id")
    p.add_argument(
        "--api-url",
        required=True,
        type=http_url,
        metavar="URL",
        help="the organiser's Submission API base URL (required)",
    )
    p.add_argument(
        "--api-key-file",
        metavar="FILE",
        help="file holding the API key (default: $HARNESS_API_KEY)",
    )
    p.add_argument(
        "--parallel",
        type=positive_int,
        default=6,
        help="parts in flight (default %(default)s; 4–8 is right for S3)",
    )
    p.add_argument(
        "--attempts",
        type=positive_int,
        default=8,
        help="tries per part before giving up (default %(default)s)",
    )
    p.add_argument(
        "--restart", action="store_true", help="discard the saved upload state and start over"
    )
    p.add_argument(
        "--resubmit",
        action="store_true",
        help="send /submit although an earlier run's /submit got no answer, or with --restart"
        " after a submission (only after checking with the organiser: a second"
        " submission costs the day)",
    )
    p.add_argument(
        UNGATED_FLAG,
        action="store_true",
        help="submit although the archive's image was never gated or its last gate verdict is"
        " not PASS; recorded in submit.json (default: off, such a submit stops before any"
        " organiser call)",
    )
    p.add_argument(
        "--reports",
        action="append",
        default=[],
        metavar="DIR",
        help="also look for the image's gate.json in DIR and its sub-folders, repeatable"
        " (default: the reports folder only, $HARNESS_REPORTS_DIR or reports/)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="run every local check (the whole pre-flight), make no network call (default: off)",
    )
    p.add_argument(
        "--skip-archive-check",
        action="store_true",
        help="upload without reading the archive through (gzip, tar, manifest, config); still"
        " hashed and compared with package.json; recorded in submit.json (default: off)",
    )
    add_common(p)
    p.set_defaults(func=run)


def render(report: SubmitReport, console: Console) -> None:
    table = Table(title=f"submit {report.archive} (team {report.team_id})", show_header=False)
    rows = [
        ("size", f"{report.size_bytes:,} bytes"),
        ("sha256", report.sha256),
        (
            "pre-flight",
            (
                f"archive read to the end ({report.archive_layout} layout)"
                if report.archive_check == "passed"
                else "archive NOT inspected (--skip-archive-check)"
            )
            + (
                "; package.json: same sha256"
                if report.package_report == "passed"
                else "; no package.json"
            ),
        ),
        (
            "upload",
            f"{report.upload_type or '-'}"
            + (f", part size {report.part_size:,}" if report.part_size else ""),
        ),
        (
            "parts",
            f"{report.parts_sent} sent, {report.parts_resumed} resumed, of {report.parts_total}",
        ),
        ("retries / URL refreshes", f"{report.retries} / {report.url_refreshes}"),
        ("time", f"{report.upload_seconds:.1f} s ({report.mb_per_s:.1f} MB/s)"),
        ("s3 key", report.s3_key or "-"),
        *(
            [("completion", "assumed (S3 no longer knew the upload id)")]
            if report.completion_assumed
            else []
        ),
        *([("uploaded again", report.reupload_reason)] if report.reupload_reason else []),
        ("gate", _gated_text(report)),
        ("submission id", report.submission_id or "-"),
    ]
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)


def _gated_text(report: SubmitReport) -> str:
    image = (report.image_id or "image ?")[:19] + "…"
    if report.gate_verdict is None:
        return f"{image} never gated" + (f" ({UNGATED_FLAG})" if report.gated else "")
    last = f"{image} last gated {report.gate_verdict} ({report.gate_folder})"
    return last + (f", {UNGATED_FLAG}" if report.gated == "ungated_ok" else "")


def _interrupted(cfg: SubmitConfig, folder: Path, argv: list[str]) -> None:
    """Ctrl-C / SIGTERM: what is saved where, and the exact command that goes on."""
    spath = state_path(cfg.archive)
    note = resume_note(load_state(spath), resume_command(argv))
    saved = [p.name for p in (spath,) if p.exists()]
    if (folder / SubmitReport.FILENAME).exists():
        saved.append(str(folder / SubmitReport.FILENAME))
    where = f" (saved: {', '.join(saved)})" if saved else ""
    print(f"harness: submit stopped: {note}{where}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    ctx = start_run(args, "submit")
    if ctx.profile.package is None:
        raise ConfigError(f"profile {ctx.profile.name!r} has no [package] section")
    warn = lambda msg: ctx.console.print(f"[yellow]warning:[/] {msg}")  # noqa: E731
    key = "" if args.dry_run else read_api_key(args.api_key_file, warn)
    folders = [reports_dir(), *(Path(d) for d in args.reports)]
    cfg = SubmitConfig(
        archive=Path(args.archive),
        team_id=args.team,
        api_url=args.api_url,
        api_key=key,
        package=ctx.profile.package,
        submit=ctx.profile.submit or SubmitSpec(),
        parallel=args.parallel,
        restart=args.restart,
        resubmit=args.resubmit,
        dry_run=args.dry_run,
        skip_archive_check=args.skip_archive_check,
        policy=RetryPolicy(attempts=args.attempts),
        ungated_ok=args.ungated_ok,
        gate_records=lambda: gate_records(folders),
        gate_where=" or ".join(str(f) for f in folders),
    )
    with byte_progress(ctx.console) as bar:
        size = cfg.archive.stat().st_size if cfg.archive.is_file() else 0
        hashing = bar.add_task("verify", total=size)
        upload = bar.add_task("upload", total=size, visible=False)

        def start_upload(total: int, done: int) -> None:
            bar.update(hashing, visible=False)
            bar.update(upload, total=total, completed=done, visible=True)

        def finished(report: SubmitReport) -> None:
            # Saved on failure too: what was sent and confirmed is a record worth keeping.
            report.provenance = ctx.provenance
            report.save(ctx.folder)

        hooks = Hooks(
            say=lambda msg: ctx.console.print(msg),
            finished=finished,
            hash_bytes=lambda n: bar.advance(hashing, n),
            start_upload=start_upload,
            sent_bytes=lambda n: bar.advance(upload, n),
        )

        async def go() -> SubmitReport:
            connector = aiohttp.TCPConnector(limit=cfg.parallel + 4)
            async with aiohttp.ClientSession(connector=connector) as session:
                return await submit(cfg, session, hooks)

        try:
            report = asyncio.run(go())
        except KeyboardInterrupt:
            bar.stop()
            _interrupted(cfg, ctx.folder, list(getattr(args, "argv", ["harness", "submit"])))
            raise
    if report.dry_run or report.already_submitted:
        finished(report)
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
    render(report, ctx.console)
    if report.submission_id:
        ctx.console.print(f"[green]submission_id[/] {report.submission_id}")
    ctx.console.print(f"report: {ctx.folder / report.FILENAME}")
    return EXIT_OK
