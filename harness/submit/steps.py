"""The steps of one ``harness submit`` run: send what is unconfirmed, complete, submit.

Each step saves the state *before* the call it announces (docs/submit.md,
"Kills and resume"): parts are confirmed once their ETag is saved, and
"completion requested" / "submit requested" are saved before those calls, so
a kill at any moment leaves a state that a later run can finish from without
sending a confirmed part again or submitting blindly.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from harness.errors import ProtocolError
from harness.submit.api import ApiRefused, OrganiserApi, UploadTarget
from harness.submit.model import Hooks, SubmitConfig, SubmitReport
from harness.submit.pause import checkpoint
from harness.submit.state import UploadState, save_state
from harness.submit.uploader import UploadStats, UrlSource, upload_parts, upload_single


def part_plan(size: int, target: UploadTarget) -> tuple[int, int]:
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


@dataclass
class UploadRun:
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

        part_size, num_parts = part_plan(state.size, target)
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
