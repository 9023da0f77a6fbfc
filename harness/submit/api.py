"""Client of the organiser's Submission API (docs/graders.md, "Submission API").

Every call is a JSON POST with the key in one header. The key lives only in
this object's header dict; error texts are scrubbed of it before they are
raised, so it can never reach a console, log, report or state file.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from typing import Any, Literal

import aiohttp
from pydantic import BaseModel, ValidationError

from harness.errors import ProtocolError, TargetError, UnreachableError, UsageError
from harness.submit.retry import Action, RetryPolicy, classify_status


class PartUrl(BaseModel):
    part_number: int
    upload_url: str


class UploadTarget(BaseModel):
    """The answer of ``POST /upload-url``."""

    upload_type: Literal["single", "multipart"]
    s3_key: str | None = None
    upload_url: str | None = None
    upload_id: str | None = None
    part_size: int | None = None
    num_parts: int | None = None
    part_urls: list[PartUrl] = []


class ApiRefused(TargetError):
    """The organiser answered with a definite refusal (a 4xx other than 401/403/429).

    A refusal is an answer: the request did not take effect. ``status`` and the
    scrubbed ``body`` let callers tell "no such upload" and "no such object" apart.
    """

    def __init__(self, message: str, *, status: int, body: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.body = body

    def names(self, s3_code: str) -> bool:
        """Whether the refusal names this S3 error code (e.g. ``NoSuchUpload``)."""
        return s3_code.lower() in self.body.lower()

    def object_missing(self) -> bool:
        """``/submit`` refused because no object is stored at the key."""
        return self.names("NoSuchKey") or "no uploaded object" in self.body.lower()


def scrub(text: str, secret: str) -> str:
    return text.replace(secret, "***") if secret else text


def error_text(body: str) -> str:
    """What an error answer says, once: its JSON ``error`` (or ``message``/``detail``) field,
    else its first line (aiohttp's plain ``404: Not Found`` is said as ``Not Found``)."""
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        for key in ("error", "message", "detail"):
            if isinstance(data.get(key), str) and data[key].strip():
                return str(data[key]).strip()[:300]
    first = body.strip().splitlines()[0] if body.strip() else ""
    head, sep, rest = first.partition(": ")
    if sep and head.isdigit():  # "404: Not Found": the status is said already
        first = rest
    return first[:300]


def transport_failure(err: BaseException, timeout_s: float) -> str:
    """A failed request in words, each fact once (no "timeout: timed out: timed out")."""
    if isinstance(err, TimeoutError | aiohttp.ServerTimeoutError):
        return f"no answer within {timeout_s:g} s"
    if isinstance(err, aiohttp.ClientConnectorError):
        os_err = err.os_error
        # asyncio's strerror repeats the address ("Connect call failed ('127.0.0.1', 9)")
        reason = os.strerror(os_err.errno) if os_err.errno else type(os_err).__name__
        return f"cannot connect ({reason.lower()})"
    if isinstance(err, aiohttp.ServerDisconnectedError):
        return "the server closed the connection without answering"
    if isinstance(err, aiohttp.ClientPayloadError | aiohttp.ClientOSError):
        return f"the connection failed ({type(err).__name__})"
    return type(err).__name__


class OrganiserApi:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        api_key: str,
        *,
        header: str = "x-api-key",
        policy: RetryPolicy | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._session = session
        self._base = base_url.rstrip("/")
        self._key = api_key
        self._headers = {header: api_key}
        self._policy = policy or RetryPolicy(attempts=4, timeout_s=60)
        self._rng = rng or random.Random()

    async def _post(
        self, path: str, body: dict[str, Any], *, attempts: int | None = None
    ) -> dict[str, Any]:
        url = self._base + path
        last = ""
        tries = attempts or self._policy.attempts
        for attempt in range(1, tries + 1):
            try:
                async with self._session.post(
                    url,
                    json=body,
                    headers=self._headers,
                    timeout=aiohttp.ClientTimeout(total=self._policy.timeout_s),
                ) as resp:
                    text = await resp.text(errors="replace")
                    status = resp.status
            except (aiohttp.ClientError, TimeoutError, OSError) as err:
                last = transport_failure(err, self._policy.timeout_s)
                if attempt == tries:
                    raise UnreachableError(
                        f"organiser API at {self._base}, POST {path}: {last}"
                        + (f" ({tries} tries)" if tries > 1 else ""),
                        hint="check --api-url and that the organiser's API is up",
                    ) from None
                await asyncio.sleep(self._policy.backoff_s(attempt, self._rng))
                continue
            if status in (401, 403):
                raise UsageError(
                    f"organiser API {path}: key rejected ({status})",
                    hint="check HARNESS_API_KEY or --api-key-file",
                )
            if path == "/register" and status in (404, 405):
                # The first call: an answer of "no such route" means another kind of server.
                raise ProtocolError(
                    f"{self._base} answered {status} to POST /register: is --api-url the"
                    " organiser API's base URL?",
                    hint="pass the Submission API's base URL (the one /register,"
                    " /upload-url and /submit hang off)",
                )
            if 200 <= status < 300:
                return self._answer(path, text)
            # Error texts are scrubbed: a server echoing the request must not leak the key.
            said = error_text(scrub(text, self._key))
            last = f"HTTP {status}: {said}" if said else f"HTTP {status}"
            if 400 <= status < 500 and status != 429:
                raise ApiRefused(
                    f"organiser API {path} refused: {last}",
                    status=status,
                    body=scrub(text, self._key),
                )
            if classify_status(status, text) is not Action.RETRY or attempt == tries:
                raise TargetError(f"organiser API {path}: {last}")
            await asyncio.sleep(self._policy.backoff_s(attempt, self._rng))
        raise TargetError(f"organiser API {path}: {last}")

    def _answer(self, path: str, text: str) -> dict[str, Any]:
        """A 2xx answer: a JSON object without an ``error`` field."""
        try:
            data = json.loads(text) if text.strip() else {}
        except ValueError:
            raise ProtocolError(
                f"organiser API {path}: the answer is not JSON"
                f" ({scrub(text, self._key)[:80].strip()!r}…)",
                hint="is --api-url the organiser API's base URL?",
            ) from None
        if not isinstance(data, dict):
            raise ProtocolError(
                f"organiser API {path}: expected a JSON object, got"
                f" {scrub(text, self._key)[:80].strip()!r}",
                hint="is --api-url the organiser API's base URL?",
            )
        if data.get("error"):  # a 200 can carry an error body
            raise TargetError(f"organiser API {path}: {scrub(str(data['error']), self._key)[:300]}")
        return data

    async def register(self, team_id: str) -> dict[str, Any]:
        """Idempotent: registering an already registered team is fine (409 counts as done)."""
        try:
            return await self._post("/register", {"team_id": team_id})
        except ApiRefused as err:
            if err.status == 409:
                return {"team_id": team_id, "already_registered": True}
            raise

    async def upload_url(
        self,
        team_id: str,
        size: int,
        *,
        resume_s3_key: str | None = None,
        resume_upload_id: str | None = None,
    ) -> UploadTarget:
        body: dict[str, Any] = {"team_id": team_id, "file_size_bytes": size}
        if resume_upload_id:
            # Not in the published API: asks for fresh URLs of an upload already
            # started. A server that ignores it opens a new upload (detected by the caller).
            body.update({"s3_key": resume_s3_key, "upload_id": resume_upload_id})
        data = await self._post("/upload-url", body)
        try:
            target = UploadTarget.model_validate(data)
        except ValidationError as err:
            raise ProtocolError(
                f"organiser API /upload-url: unexpected answer ({err.error_count()} problems)"
            ) from None
        if target.upload_type == "single" and not target.upload_url:
            raise ProtocolError("organiser API /upload-url: single upload without upload_url")
        if target.upload_type == "multipart" and not (
            target.upload_id and target.part_size and target.part_urls
        ):
            raise ProtocolError(
                "organiser API /upload-url: multipart answer lacks upload_id/part_size/part_urls"
            )
        return target

    async def complete(
        self, team_id: str, s3_key: str, upload_id: str, parts: dict[int, str]
    ) -> dict[str, Any]:
        ordered = [{"part_number": n, "etag": parts[n]} for n in sorted(parts)]
        return await self._post(
            "/complete-upload",
            {"team_id": team_id, "s3_key": s3_key, "upload_id": upload_id, "parts": ordered},
        )

    async def submit(self, team_id: str, s3_key: str) -> str:
        # One attempt only: a retried submit after a lost answer could spend a
        # second daily submission. The caller records the intent before this call.
        data = await self._post("/submit", {"team_id": team_id, "s3_key": s3_key}, attempts=1)
        sid = data.get("submission_id")
        if not sid:
            raise ProtocolError("organiser API /submit: no submission_id in the answer")
        return str(sid)
