"""``harness submit`` core: preflight → register → upload (resumable) → complete → submit."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from pydantic import Field

from harness.errors import HarnessError, ProtocolError
from harness.profiles import PackageSpec, SubmitSpec
from harness.runs import Report
from harness.submit.api import OrganiserApi, UploadTarget
from harness.submit.preflight import check_archive, digest_file
from harness.submit.retry import RetryPolicy
from harness.submit.state import UploadState, discard_state, load_state, save_state, state_path
from harness.submit.uploader import UploadStats, UrlSource, upload_parts, upload_single


class SubmitReport(Report):
    FILENAME = "submit.json"
    kind: str = "submit"
    archive: str
    team_id: str
    api_url: str
    dry_run: bool = False
    size_bytes: int
    sha256: str
    package_report: str
    upload_type: str | None = None
    s3_key: str | None = None
    upload_id: str | None = None
    part_size: int | None = None
    parts_total: int = 0
    parts_sent: int = 0
    parts_resumed: int = 0
    bytes_sent: int = 0
    retries: int = 0
    url_refreshes: int = 0
    etag_mismatches: int = 0
    upload_seconds: float = 0.0
    mb_per_s: float = 0.0
    resumed: bool = False
    already_submitted: bool = False
    submission_id: str | None = None
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)


@dataclass
class SubmitConfig:
    archive: Path
    team_id: str
    api_url: str
    api_key: str
    package: PackageSpec
    submit: SubmitSpec
    parallel: int = 6
    restart: bool = False
    dry_run: bool = False
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    seed: int | None = None


@dataclass
class Hooks:
    """Console callbacks; the core never prints."""

    say: Callable[[str], None] = lambda _msg: None
    hash_bytes: Callable[[int], None] | None = None
    start_upload: Callable[[int, int], None] = lambda _total, _done: None
    sent_bytes: Callable[[int], None] | None = None
    finished: Callable[[SubmitReport], None] = lambda _report: None  # also on failure


def _part_plan(size: int, target: UploadTarget) -> tuple[int, int]:
    part_size = int(target.part_size or 0)
    expected = math.ceil(size / part_size)
    if target.num_parts is not None and target.num_parts != expected:
        raise ProtocolError(
            f"the organiser says {target.num_parts} parts of {part_size} bytes; the file needs {expected}"
        )
    if len(target.part_urls) < expected:
        raise ProtocolError(
            f"the organiser gave {len(target.part_urls)} part URLs for {expected} parts"
        )
    return part_size, expected


async def submit(
    cfg: SubmitConfig, session: aiohttp.ClientSession, hooks: Hooks | None = None
) -> SubmitReport:
    h = hooks or Hooks()
    pre = check_archive(cfg.archive, cfg.package)
    for w in pre.warnings:
        h.say(f"warning: {w}")
    digests = await asyncio.to_thread(digest_file, cfg.archive, h.hash_bytes)
    report = SubmitReport(
        archive=cfg.archive.name,
        team_id=cfg.team_id,
        api_url=cfg.api_url,
        dry_run=cfg.dry_run,
        size_bytes=pre.size,
        sha256=digests.sha256,
        package_report=pre.package_report,
        warnings=pre.warnings,
    )
    spath = state_path(cfg.archive)
    if cfg.restart:
        discard_state(spath)
    state = load_state(spath)
    if state is not None and not state.matches(
        size=pre.size, sha256=digests.sha256, team_id=cfg.team_id, api_url=cfg.api_url
    ):
        h.say("the saved upload state is for another file, team or API: starting over")
        state = None
    if cfg.dry_run:
        kind = "single" if pre.size <= cfg.submit.single_max_bytes else "multipart"
        h.say(
            f"dry run: would upload {pre.size:,} bytes ({kind}) for team {cfg.team_id}; no network call made"
        )
        report.upload_type = kind
        report.resumed = state is not None and bool(state.parts)
        return report
    if state is None:
        state = UploadState(
            file_name=cfg.archive.name,
            size=pre.size,
            sha256=digests.sha256,
            team_id=cfg.team_id,
            api_url=cfg.api_url,
        )
    if state.submission_id:
        h.say(
            f"already submitted as {state.submission_id} (use --restart to upload and submit again)"
        )
        report.already_submitted = True
        report.submission_id = state.submission_id
        report.s3_key, report.upload_id, report.upload_type = (
            state.s3_key,
            state.upload_id,
            state.upload_type,
        )
        return report

    rng = random.Random(cfg.seed)
    api = OrganiserApi(session, cfg.api_url, cfg.api_key, header=cfg.submit.header, rng=rng)
    stats = UploadStats()
    start = time.perf_counter()
    try:
        await api.register(cfg.team_id)
        if not state.uploaded:
            await _upload(cfg, api, session, state, spath, digests.md5, stats, rng, h)
        report.upload_seconds = round(time.perf_counter() - start, 3)
        assert state.s3_key is not None
        report.submission_id = await api.submit(cfg.team_id, state.s3_key)
        state.submission_id = report.submission_id
        save_state(spath, state)
    except BaseException as err:  # recorded, then re-raised: Ctrl-C and errors alike
        report.complete = False
        report.error = err.one_line() if isinstance(err, HarnessError) else type(err).__name__
        raise
    finally:
        if not report.upload_seconds:
            report.upload_seconds = round(time.perf_counter() - start, 3)
        _fill(report, state, stats)
        h.finished(report)
    return report


def _fill(report: SubmitReport, state: UploadState, stats: UploadStats) -> None:
    report.resumed = stats.parts_resumed > 0
    report.upload_type, report.s3_key, report.upload_id = (
        state.upload_type,
        state.s3_key,
        state.upload_id,
    )
    report.part_size = state.part_size
    report.parts_total, report.parts_sent, report.parts_resumed = (
        stats.parts_total,
        stats.parts_sent,
        stats.parts_resumed,
    )
    report.bytes_sent, report.retries, report.url_refreshes = (
        stats.bytes_sent,
        stats.retries,
        stats.refreshes,
    )
    report.etag_mismatches = stats.etag_mismatches
    if report.upload_seconds > 0:
        report.mb_per_s = round(stats.bytes_sent / 1e6 / report.upload_seconds, 1)


async def _upload(
    cfg: SubmitConfig,
    api: OrganiserApi,
    session: aiohttp.ClientSession,
    state: UploadState,
    spath: Path,
    md5: str,
    stats: UploadStats,
    rng: random.Random,
    h: Hooks,
) -> None:
    resuming = state.upload_type == "multipart" and state.upload_id is not None
    target = await api.upload_url(
        cfg.team_id,
        state.size,
        resume_s3_key=state.s3_key if resuming else None,
        resume_upload_id=state.upload_id if resuming else None,
    )
    if resuming and (target.upload_id != state.upload_id or target.s3_key != state.s3_key):
        h.say(
            "the organiser opened a new upload instead of resuming: confirmed parts must be sent again"
        )
        state.reset_upload()
    state.upload_type, state.s3_key = target.upload_type, target.s3_key
    if not target.s3_key:
        raise ProtocolError("organiser API /upload-url: no s3_key in the answer")

    async def refresh() -> UploadTarget:
        fresh = await api.upload_url(
            cfg.team_id, state.size, resume_s3_key=state.s3_key, resume_upload_id=state.upload_id
        )
        if fresh.upload_type == "single":
            # A fresh single URL may name a new key: the object will be there.
            state.s3_key = fresh.s3_key
            save_state(spath, state)
        elif fresh.upload_id != state.upload_id:
            raise ProtocolError("fresh URLs were for a different upload")
        return fresh

    urls = UrlSource(target, refresh, cfg.policy, stats)
    if target.upload_type == "single":
        state.upload_id = None
        save_state(spath, state)
        h.start_upload(state.size, 0)
        await upload_single(
            session,
            cfg.archive,
            state.size,
            md5,
            urls,
            policy=cfg.policy,
            stats=stats,
            rng=rng,
            on_bytes=h.sent_bytes,
        )
        state.uploaded = True
        save_state(spath, state)
        return

    part_size, num_parts = _part_plan(state.size, target)
    if state.part_size not in (None, part_size):
        h.say("the part size changed since the last run: confirmed parts must be sent again")
        state.parts = {}
    state.upload_id, state.part_size, state.num_parts = target.upload_id, part_size, num_parts
    save_state(spath, state)
    todo = [n for n in range(1, num_parts + 1) if n not in state.parts]
    stats.parts_total = num_parts
    stats.parts_resumed = num_parts - len(todo)
    done_bytes = sum(min(part_size, state.size - (n - 1) * part_size) for n in state.parts)
    if stats.parts_resumed:
        h.say(
            f"resuming upload: {stats.parts_resumed}/{num_parts} parts already confirmed, {len(todo)} to send"
        )
    h.start_upload(state.size, done_bytes)

    def confirm(n: int, etag: str) -> None:
        state.parts[n] = etag
        save_state(spath, state)

    await upload_parts(
        session, cfg.archive, state.size, part_size, todo, urls, confirm,
        parallel=cfg.parallel, policy=cfg.policy, stats=stats, rng=rng, on_bytes=h.sent_bytes,
    )  # fmt: skip
    assert state.upload_id is not None and state.s3_key is not None
    await api.complete(cfg.team_id, state.s3_key, state.upload_id, state.parts)
    state.uploaded = True
    save_state(spath, state)
