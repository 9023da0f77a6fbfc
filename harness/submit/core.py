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

from harness.errors import HarnessError, ProtocolError, TargetError
from harness.profiles import PackageSpec, SubmitSpec
from harness.runs import Report
from harness.submit.api import ApiRefused, OrganiserApi, UploadTarget
from harness.submit.pause import checkpoint
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
    # The organiser had forgotten the upload id when completion was asked again
    # (S3 NoSuchUpload): an earlier run's completion is taken to have gone through.
    completion_assumed: bool = False
    # An earlier run's /submit got no answer; nothing was sent this time (see --resubmit).
    submit_unconfirmed: bool = False
    reupload_reason: str | None = None  # why the file was uploaded again from scratch
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
    resubmit: bool = False  # send /submit although an earlier run's /submit got no answer
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
    run = _Run(cfg, api, session, state, spath, digests.md5, stats, rng, h, report)
    try:
        if state.submit_requested:
            if not cfg.resubmit:
                report.submit_unconfirmed = True
                raise TargetError(
                    f"an earlier run sent /submit for {state.s3_key} and got no answer (killed,"
                    " or the connection failed): the submission may have arrived, so nothing was sent",
                    hint="check your team's submissions for today with the organiser;"
                    " only if none arrived, re-run with --resubmit",
                )
            h.say("--resubmit: sending /submit again although an earlier run's may have arrived")
        await api.register(cfg.team_id)
        checkpoint("registered")
        if not state.uploaded:
            await run.upload_and_complete()
        report.upload_seconds = round(time.perf_counter() - start, 3)
        try:
            report.submission_id = await run.submit_key()
        except ApiRefused as err:
            if not err.object_missing():
                raise
            # The organiser's word beats our inference: the object is not there
            # (an assumed completion that did not happen, or a lost object).
            reason = f"the organiser says no object is stored at {state.s3_key} ({err.message})"
            h.say(f"{reason}: uploading the whole file again")
            report.reupload_reason = reason
            state.reset_upload()
            save_state(spath, state)
            await run.upload_and_complete()
            report.submission_id = await run.submit_key()
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


@dataclass
class _Run:
    """One run's upload steps; every state change is saved before the call it announces."""

    cfg: SubmitConfig
    api: OrganiserApi
    session: aiohttp.ClientSession
    state: UploadState
    spath: Path
    md5: str
    stats: UploadStats
    rng: random.Random
    h: Hooks
    report: SubmitReport

    def save(self) -> None:
        save_state(self.spath, self.state)

    async def upload_and_complete(self) -> None:
        state = self.state
        if state.complete_requested:
            # An earlier run was stopped while asking for completion: S3 may have
            # completed the upload already. Ask again; never open a new upload here.
            self.h.say(
                f"resuming: an earlier run asked to complete upload {state.upload_id}; asking again"
            )
            self.stats.parts_total = self.stats.parts_resumed = len(state.parts)
        elif state.upload_type == "multipart" and state.all_parts_confirmed():
            # Every part is confirmed: no URL is needed, and asking for URLs could
            # make an organiser that forgot the upload open a new one.
            n = len(state.parts)
            self.stats.parts_total = self.stats.parts_resumed = n
            self.h.say(f"resuming upload: {n}/{n} parts already confirmed, 0 to send")
        else:
            if await self._send():
                return  # a single PUT: nothing to complete
        await self._complete()

    async def _send(self) -> bool:
        """Send what S3 has not confirmed; True for a single PUT (already final)."""
        cfg, api, state, h = self.cfg, self.api, self.state, self.h
        resuming = state.upload_type == "multipart" and state.upload_id is not None
        if state.upload_type == "single" and state.s3_key:
            # A single PUT is all or nothing in S3 and its answer never reached the
            # state file: nothing of it is confirmed, so it is sent in full again.
            h.say("the earlier run's single PUT was not confirmed by S3: sending the file again")
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
            self.report.reupload_reason = "the organiser did not resume the saved upload id"
            state.reset_upload()
        state.upload_type, state.s3_key = target.upload_type, target.s3_key
        if not target.s3_key:
            raise ProtocolError("organiser API /upload-url: no s3_key in the answer")

        async def refresh() -> UploadTarget:
            fresh = await api.upload_url(
                cfg.team_id,
                state.size,
                resume_s3_key=state.s3_key,
                resume_upload_id=state.upload_id,
            )
            if fresh.upload_type == "single":
                # A fresh single URL may name a new key: the object will be there.
                state.s3_key = fresh.s3_key
                self.save()
            elif fresh.upload_id != state.upload_id:
                raise ProtocolError("fresh URLs were for a different upload")
            return fresh

        urls = UrlSource(target, refresh, cfg.policy, self.stats)
        if target.upload_type == "single":
            state.upload_id = None
            self.save()
            checkpoint("upload-url")
            h.start_upload(state.size, 0)
            await upload_single(
                self.session, cfg.archive, state.size, self.md5, urls,
                policy=cfg.policy, stats=self.stats, rng=self.rng, on_bytes=h.sent_bytes,
            )  # fmt: skip
            checkpoint("put-done")
            state.uploaded = True
            self.save()
            return True

        part_size, num_parts = _part_plan(state.size, target)
        if state.part_size not in (None, part_size):
            h.say("the part size changed since the last run: confirmed parts must be sent again")
            state.parts = {}
        state.upload_id, state.part_size, state.num_parts = target.upload_id, part_size, num_parts
        self.save()
        checkpoint("upload-url")
        todo = [n for n in range(1, num_parts + 1) if n not in state.parts]
        self.stats.parts_total = num_parts
        self.stats.parts_resumed = num_parts - len(todo)
        done_bytes = sum(min(part_size, state.size - (n - 1) * part_size) for n in state.parts)
        if self.stats.parts_resumed:
            h.say(
                f"resuming upload: {self.stats.parts_resumed}/{num_parts} parts already confirmed, {len(todo)} to send"
            )
        h.start_upload(state.size, done_bytes)

        def confirm(n: int, etag: str) -> None:
            # Saved before the part counts as sent: a part is confirmed only once
            # the state file says so, and a confirmed part is never sent again.
            state.parts[n] = etag
            self.save()
            checkpoint("part-confirmed")

        await upload_parts(
            self.session, cfg.archive, state.size, part_size, todo, urls, confirm,
            parallel=cfg.parallel, policy=cfg.policy, stats=self.stats, rng=self.rng,
            on_bytes=h.sent_bytes,
        )  # fmt: skip
        checkpoint("parts-done")
        return False

    async def _complete(self) -> None:
        state = self.state
        assert state.upload_id is not None and state.s3_key is not None
        state.complete_requested = True
        self.save()
        checkpoint("complete-requested")
        try:
            await self.api.complete(self.cfg.team_id, state.s3_key, state.upload_id, state.parts)
        except ApiRefused as err:
            if not (err.names("NoSuchUpload") or err.status == 404):
                raise ApiRefused(
                    err.message, status=err.status, body=err.body,
                    hint="the confirmed parts stay saved; --restart sends every part again",
                ) from None  # fmt: skip
            # S3 forgets an upload id once it is completed (or aborted): after a
            # completion we did not see answered, the object is most likely there.
            # /submit will say so if it is not (docs/submit.md, "Kills and resume").
            self.h.say(
                f"the organiser no longer knows upload {state.upload_id} (S3 NoSuchUpload):"
                f" an earlier completion most likely went through; submitting {state.s3_key}"
            )
            self.report.completion_assumed = True
        else:
            checkpoint("completed")
        state.uploaded = True
        self.save()

    async def submit_key(self) -> str:
        state = self.state
        assert state.s3_key is not None
        state.submit_requested = True
        self.save()
        checkpoint("submit-requested")
        try:
            sid = await self.api.submit(self.cfg.team_id, state.s3_key)
        except ApiRefused:
            # A refusal is an answer: nothing was submitted, a later run may ask again.
            state.submit_requested = False
            self.save()
            raise
        checkpoint("submitted")
        state.submission_id = sid
        self.save()
        return sid
