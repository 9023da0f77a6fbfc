"""``harness submit`` core: preflight → register → upload (resumable) → complete → submit.

:func:`run_submit` is the command's core, as a measurement kind's: its config
(submit/config.py: ``from_profile``), provenance, the run folder and hooks in; the typed
report out, saved in the folder (on failure and on Ctrl-C too: what was sent and
confirmed is a record worth keeping). :func:`submit` is its procedure on a given session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import threading
import time
from pathlib import Path

import aiohttp

from harness.errors import EXIT_OK, HarnessError, TargetError, UsageError
from harness.provenance import Provenance
from harness.submit.api import ApiRefused, OrganiserApi, error_text
from harness.submit.gated import GatedCheck, check_gated
from harness.submit.model import Hooks, SubmitConfig, SubmitReport
from harness.submit.pause import checkpoint
from harness.submit.preflight import Preflight, verify_archive
from harness.submit.state import UploadState, discard_state, load_state, save_state, state_path
from harness.submit.steps import UploadRun
from harness.submit.team import team_id_problem
from harness.submit.uploader import UploadStats


def run_submit(
    cfg: SubmitConfig, *, provenance: Provenance, folder: Path, hooks: Hooks | None = None
) -> SubmitReport:
    """Prove the archive, then register, upload and submit it; ``submit.json`` saved in
    ``folder`` whatever the outcome (re-raised after saving, Ctrl-C included)."""
    h = hooks or Hooks()

    def save(report: SubmitReport) -> None:
        report.provenance = provenance
        report.save(folder)

    def finished(report: SubmitReport) -> None:
        save(report)
        h.finished(report)

    async def go() -> SubmitReport:
        connector = aiohttp.TCPConnector(limit=cfg.parallel + 4)
        async with aiohttp.ClientSession(connector=connector) as session:
            return await submit(cfg, session, dataclasses.replace(h, finished=finished))

    report = asyncio.run(go())
    if report.dry_run or report.already_submitted:  # returned before any upload step
        save(report)
    return report


def exit_code(report: SubmitReport) -> int:
    """A submit that returns went through (or was a dry run); failures raise."""
    return EXIT_OK


async def submit(
    cfg: SubmitConfig, session: aiohttp.ClientSession, hooks: Hooks | None = None
) -> SubmitReport:
    h = hooks or Hooks()
    problem = team_id_problem(cfg.submit, cfg.team_id)
    if problem is not None:
        raise UsageError(
            f"{problem}; nothing was sent", hint="pass --team with your team's id as registered"
        )
    pre = await _preflight(cfg, h)
    gated = check_gated(
        cfg.archive.name,
        pre.image_ids,
        cfg.gate_records(),
        ungated_ok=cfg.ungated_ok,
        where=cfg.gate_where,
    )
    if gated.status == "ungated_ok":
        pre.warnings.append(_ungated_warning(gated, dry_run=cfg.dry_run))
    for w in pre.warnings:
        h.say(f"warning: {w}")
    report = SubmitReport(
        archive=cfg.archive.name,
        team_id=cfg.team_id,
        api_url=cfg.api_url,
        dry_run=cfg.dry_run,
        size_bytes=pre.size,
        sha256=pre.sha256,
        package_report=pre.package_report,
        archive_check=pre.archive_check,
        archive_layout=pre.layout,
        warnings=pre.warnings,
    )
    _record_gated(report, gated)
    spath = state_path(cfg.archive)
    if cfg.restart:
        _refuse_restart_after_submit(load_state(spath), cfg, pre.size, pre.sha256)
        discard_state(spath)
    state = load_state(spath)
    if state is not None and not state.matches(
        size=pre.size, sha256=pre.sha256, team_id=cfg.team_id, api_url=cfg.api_url
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
            sha256=pre.sha256,
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
    run = UploadRun(cfg, api, session, state, spath, pre.md5, stats, rng, h, report)
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
            said = error_text(err.body) or f"HTTP {err.status}"
            reason = f"the organiser says no object is stored at {state.s3_key} ({said})"
            h.say(f"uploading the whole file again: {reason}")
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


def _ungated_warning(gated: GatedCheck, *, dry_run: bool) -> str:
    last = gated.record
    said = f"its last gate said {last.verdict} ({last.folder})" if last else "it was never gated"
    if dry_run:  # nothing is sent: say what a real run would do
        return f"--ungated-ok: a real run would submit although {said}"
    return f"--ungated-ok: submitted although {said} (recorded in submit.json)"


def _record_gated(report: SubmitReport, gated: GatedCheck) -> None:
    report.image_id, report.gated = gated.image_id, gated.status
    if gated.record is not None:
        report.gate_verdict = gated.record.verdict
        report.gate_folder, report.gate_at = gated.record.folder, gated.record.at


def _refuse_restart_after_submit(
    state: UploadState | None, cfg: SubmitConfig, size: int, sha256: str
) -> None:
    """--restart discards the state; after a (maybe) sent /submit that would submit twice."""
    if state is None or cfg.resubmit or cfg.dry_run:
        return
    if not state.matches(size=size, sha256=sha256, team_id=cfg.team_id, api_url=cfg.api_url):
        return  # another file, team or API: that state says nothing about this submission
    if state.submission_id:
        said = f"was submitted as {state.submission_id}"
    elif state.submit_requested:
        said = f"had /submit sent for {state.s3_key} (its answer not seen: it may have arrived)"
    else:
        return
    raise UsageError(
        f"{cfg.archive.name} {said}: --restart would upload and submit it again,"
        " spending another submission; nothing was sent",
        hint="drop --restart to see the saved state, or add --resubmit to submit again on purpose",
    )


async def _preflight(cfg: SubmitConfig, h: Hooks) -> Preflight:
    """The file proven in a worker thread, which stops at its next block when cancelled."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(
            verify_archive,
            cfg.archive,
            cfg.package,
            skip_check=cfg.skip_archive_check,
            package_folders=cfg.package_folders,
            on_bytes=h.hash_bytes,
            stop=stop,
        )
    except asyncio.CancelledError:
        stop.set()
        raise


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
