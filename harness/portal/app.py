"""A local emulator of the organiser's Submission API (docs/graders.md).

Same routes, bodies and answers as the real portal, backed by any S3 endpoint
through boto3 (moto's server by default), handing out presigned single and
multipart URLs. Extra, for rehearsals and tests: ``--single-max-bytes`` and
``--part-size`` make small files take the multipart path, and ``/upload-url``
accepts ``upload_id`` + ``s3_key`` to hand out fresh URLs for an upload already
started (the resume path of ``harness submit``).

``/complete-upload`` answers a repeated completion like S3 does
(docs/submit.md, "What S3 answers to a repeated completion"): the same 200
within ``repeat_complete_s`` of the first, then 404 ``NoSuchUpload``, as for
an unknown or aborted upload id. S3's own refusals are passed on with S3's
status and code: ``{"error": "...", "s3_code": "NoSuchUpload"}``.

The API key is compared in constant time and never logged.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import math
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import boto3
import botocore.client
import botocore.exceptions
from aiohttp import web

from harness.profiles import SubmitSpec

MIB = 1024 * 1024


@dataclass
class PortalConfig:
    s3_endpoint: str
    bucket: str = "submissions"
    api_key: str | None = None
    header: str = "x-api-key"
    single_max_bytes: int = 5_000_000_000
    part_size: int = 100 * MIB
    url_expiry_s: int = 7200
    submissions_per_day: int | None = None
    region: str = "us-east-1"
    # How long S3 keeps answering 200 to a repeated completion (not published by
    # AWS; seen right after the first one). 0: every repeat is NoSuchUpload.
    repeat_complete_s: float = 600.0
    # The profile's [submit] rules: the team id form every route checks (docs/submit.md).
    rules: SubmitSpec = field(default_factory=SubmitSpec)


@dataclass
class Upload:
    team_id: str
    s3_key: str
    upload_id: str
    size: int
    part_size: int
    num_parts: int


@dataclass
class Completed:
    """A completed multipart upload, to answer a repeated completion like S3."""

    s3_key: str
    answer: dict[str, Any]
    at: float


@dataclass
class PortalState:
    teams: set[str] = field(default_factory=set)
    uploads: dict[str, Upload] = field(default_factory=dict)
    completed: dict[str, Completed] = field(default_factory=dict)
    submissions: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(
        default_factory=list
    )  # route names, for tests (never bodies or headers)


def s3_client(endpoint: str, region: str = "us-east-1") -> Any:
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id="portal",
        aws_secret_access_key="portal-secret",
        config=botocore.client.Config(signature_version="s3v4", s3={"addressing_style": "path"}),
    )


def _error(status: int, message: str, s3_code: str | None = None) -> web.Response:
    body: dict[str, Any] = {"error": message}
    if s3_code:
        body["s3_code"] = s3_code
    return web.json_response(body, status=status)


def _s3_refusal(err: botocore.exceptions.ClientError, what: str) -> web.Response:
    """S3's refusal passed on: its 4xx status and code; its 5xx as a 502 (the portal's upstream failed)."""
    code = str(err.response.get("Error", {}).get("Code", "?"))
    status = int(err.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 500))
    return _error(status if 400 <= status < 500 else 502, f"S3 refused to {what}: {code}", code)


_NO_SUCH_UPLOAD = (
    "S3 refused to complete the upload: NoSuchUpload"
    " (the upload id is unknown, or the upload was completed or aborted)"
)


class Portal:
    def __init__(self, cfg: PortalConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.cfg = cfg
        self.clock = clock
        self.state = PortalState()
        self.s3 = s3_client(cfg.s3_endpoint, cfg.region)

    def ensure_bucket(self) -> None:
        try:
            self.s3.head_bucket(Bucket=self.cfg.bucket)
        except botocore.exceptions.ClientError:
            self.s3.create_bucket(Bucket=self.cfg.bucket)

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._auth], client_max_size=1 * MIB)
        app.router.add_post("/register", self.register)
        app.router.add_post("/upload-url", self.upload_url)
        app.router.add_post("/complete-upload", self.complete_upload)
        app.router.add_post("/submit", self.submit)
        return app

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.state.calls.append(request.path)
        if self.cfg.api_key is not None:
            given = request.headers.get(self.cfg.header, "")
            if not hmac.compare_digest(given.encode(), self.cfg.api_key.encode()):
                return _error(401, "invalid or missing API key")
        resp: web.StreamResponse = await handler(request)
        return resp

    async def _body(self, request: web.Request, *keys: str) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise web.HTTPBadRequest(
                text='{"error": "body is not JSON"}', content_type="application/json"
            ) from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(
                text='{"error": "body is not a JSON object"}', content_type="application/json"
            )
        missing = [k for k in keys if k not in body]
        if missing:
            raise web.HTTPBadRequest(
                text=f'{{"error": "missing {", ".join(missing)}"}}', content_type="application/json"
            )
        if "team_id" in keys:
            team = body["team_id"]
            problem = (
                f"team_id must be a string, not {type(team).__name__}"
                if not isinstance(team, str)
                else None
                if re.fullmatch(self.cfg.rules.team_id_pattern, team)
                else f"team id {team!r} is not accepted: use {self.cfg.rules.team_id_rule}"
            )
            if problem is not None:
                # Checked before any S3 call: the team id becomes a segment of the S3 key.
                raise web.HTTPBadRequest(
                    text=json.dumps({"error": problem, "field": "team_id"}),
                    content_type="application/json",
                )
        return body

    def _presign(self, method: str, params: dict[str, Any]) -> str:
        url: str = self.s3.generate_presigned_url(
            method, Params={"Bucket": self.cfg.bucket, **params}, ExpiresIn=self.cfg.url_expiry_s
        )
        return url

    async def register(self, request: web.Request) -> web.Response:
        body = await self._body(request, "team_id")
        team = str(body["team_id"])
        new = team not in self.state.teams
        self.state.teams.add(team)
        return web.json_response({"team_id": team, "registered": True, "new": new})

    async def upload_url(self, request: web.Request) -> web.Response:
        body = await self._body(request, "team_id", "file_size_bytes")
        team = str(body["team_id"])
        if team not in self.state.teams:
            return _error(400, f"team {team} is not registered")
        size = int(body["file_size_bytes"])
        if size <= 0:
            return _error(400, "file_size_bytes must be > 0")
        if size <= self.cfg.single_max_bytes:
            key = f"submissions/{team}/{int(time.time())}-{uuid.uuid4().hex[:8]}/image.tar.gz"
            url = await asyncio.to_thread(self._presign, "put_object", {"Key": key})
            return web.json_response(
                {
                    "upload_type": "single",
                    "upload_url": url,
                    "s3_key": key,
                    "expires_in": self.cfg.url_expiry_s,
                }
            )
        upload = self.state.uploads.get(str(body.get("upload_id") or ""))
        if (
            upload is None
            or upload.team_id != team
            or upload.s3_key != body.get("s3_key")
            or upload.size != size
        ):
            key = f"submissions/{team}/{int(time.time())}-{uuid.uuid4().hex[:8]}/image.tar.gz"
            created = await asyncio.to_thread(
                self.s3.create_multipart_upload, Bucket=self.cfg.bucket, Key=key
            )
            part_size = self.cfg.part_size
            upload = Upload(
                team, key, created["UploadId"], size, part_size, math.ceil(size / part_size)
            )
            self.state.uploads[upload.upload_id] = upload
        urls = []
        for n in range(1, upload.num_parts + 1):
            params = {"Key": upload.s3_key, "UploadId": upload.upload_id, "PartNumber": n}
            urls.append(
                {
                    "part_number": n,
                    "upload_url": await asyncio.to_thread(self._presign, "upload_part", params),
                }
            )
        return web.json_response(
            {
                "upload_type": "multipart",
                "upload_id": upload.upload_id,
                "s3_key": upload.s3_key,
                "part_size": upload.part_size,
                "num_parts": upload.num_parts,
                "part_urls": urls,
                "expires_in": self.cfg.url_expiry_s,
            }
        )

    async def complete_upload(self, request: web.Request) -> web.Response:
        body = await self._body(request, "team_id", "s3_key", "upload_id", "parts")
        key, upload_id = str(body["s3_key"]), str(body["upload_id"])
        parts = [
            {"PartNumber": int(p["part_number"]), "ETag": str(p["etag"])} for p in body["parts"]
        ]
        done = self.state.completed.get(upload_id)
        if done is not None:
            if done.s3_key == key and self.clock() - done.at <= self.cfg.repeat_complete_s:
                return web.json_response(done.answer)  # S3 repeats its answer for a while
            return _error(404, _NO_SUCH_UPLOAD, "NoSuchUpload")
        try:
            # Asked first because moto answers 500 (not S3's 404) when completing
            # an unknown upload id; ListParts gives S3's NoSuchUpload.
            await asyncio.to_thread(
                self.s3.list_parts, Bucket=self.cfg.bucket, Key=key, UploadId=upload_id, MaxParts=1
            )
            result = await asyncio.to_thread(
                self.s3.complete_multipart_upload,
                Bucket=self.cfg.bucket,
                Key=key,
                UploadId=upload_id,
                MultipartUpload={"Parts": parts},
            )
        except botocore.exceptions.ClientError as err:
            if err.response.get("Error", {}).get("Code") == "NoSuchUpload":
                return _error(404, _NO_SUCH_UPLOAD, "NoSuchUpload")
            return _s3_refusal(err, "complete the upload")
        self.state.uploads.pop(upload_id, None)
        answer = {"s3_key": key, "etag": result.get("ETag"), "completed": True}
        self.state.completed[upload_id] = Completed(key, answer, self.clock())
        return web.json_response(answer)

    async def submit(self, request: web.Request) -> web.Response:
        body = await self._body(request, "team_id", "s3_key")
        team, key = str(body["team_id"]), str(body["s3_key"])
        try:
            head = await asyncio.to_thread(self.s3.head_object, Bucket=self.cfg.bucket, Key=key)
        except botocore.exceptions.ClientError as err:
            status = int(err.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
            if status == 404:
                return _error(404, f"no uploaded object at {key}", "NoSuchKey")
            return _s3_refusal(err, "look up the object")
        day = time.strftime("%Y-%m-%d", time.gmtime())
        today = [s for s in self.state.submissions if s["team_id"] == team and s["day"] == day]
        limit = self.cfg.submissions_per_day
        if limit is not None and len(today) >= limit:
            return _error(429, f"team {team} already submitted {len(today)} time(s) today")
        sid = f"sub-{uuid.uuid4().hex[:12]}"
        self.state.submissions.append(
            {
                "team_id": team,
                "s3_key": key,
                "day": day,
                "submission_id": sid,
                "size": head["ContentLength"],
            }
        )
        return web.json_response({"submission_id": sid, "status": "queued"})
