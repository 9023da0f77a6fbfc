"""A small S3 proxy that behaves like real S3 where moto does not, and can misbehave on purpose.

Strict (real S3's rules for presigned requests, which moto does not enforce):
expired URLs → 403 ``AccessDenied``; ``x-amz-*`` or ``Content-MD5`` headers
that were not signed → 403 ``SignatureDoesNotMatch``; chunked bodies → 501
``NotImplemented``; no ``Content-Length`` → 411 ``MissingContentLength``.

Faults (for retry tests and rehearsals), counted over presigned PUTs: every
Nth answered 503, every Mth connection dropped after the body was read, the
first K answered "expired", a fixed delay per PUT, and an emulated
per-connection bandwidth (benchmarks).

Every presigned PUT is logged (part number, upload id, outcome, status) so
tests can tell which parts reached S3 and how often.
"""

from __future__ import annotations

import asyncio
import time
from calendar import timegm
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from yarl import URL

_HOP = {"host", "transfer-encoding", "connection", "keep-alive", "content-length"}


@dataclass
class Faults:
    error_every: int = 0
    reset_every: int = 0
    expire_first: int = 0
    delay_s: float = 0.0
    error_status: int = 503
    # Emulated per-connection bandwidth (bytes/s; 0 = off): one TCP stream to a
    # far S3 endpoint is slow, which is why parallel parts pay off.
    bandwidth_bps: float = 0.0


@dataclass
class PutRecord:
    part_number: int | None
    upload_id: str | None
    key: str
    outcome: str  # "stored", "expired", "unsigned-header", "chunked", "no-length", "fault-5xx", "fault-reset", "client-gone"
    status: int
    size: int


@dataclass
class S3Proxy:
    upstream: str
    strict: bool = True
    faults: Faults = field(default_factory=Faults)
    clock: Callable[[], float] = time.time
    log: list[PutRecord] = field(default_factory=list)
    _puts: int = 0
    _session: aiohttp.ClientSession | None = None

    def app(self) -> web.Application:
        app = web.Application(client_max_size=6 * 1024**3)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        app.on_cleanup.append(self._close)
        return app

    async def _close(self, _app: web.Application) -> None:
        if self._session is not None:
            await self._session.close()

    def stored(self) -> list[PutRecord]:
        return [r for r in self.log if r.outcome == "stored"]

    def _strict_error(self, request: web.Request) -> tuple[int, str, str] | None:
        q = request.query
        if "chunked" in request.headers.get("Transfer-Encoding", "").lower():
            return 501, "NotImplemented", "chunked"
        if request.content_length is None:
            return 411, "MissingContentLength", "no-length"
        signed = set(q.get("X-Amz-SignedHeaders", "").lower().split(";"))
        for name in request.headers:
            low = name.lower()
            if (low.startswith("x-amz-") or low == "content-md5") and low not in signed:
                return 403, "SignatureDoesNotMatch", "unsigned-header"
        try:
            issued = timegm(time.strptime(q["X-Amz-Date"], "%Y%m%dT%H%M%SZ"))
            expires = int(q["X-Amz-Expires"])
        except (KeyError, ValueError):
            return 403, "AuthorizationQueryParametersError", "unsigned-header"
        if self.clock() > issued + expires:
            return 403, "AccessDenied", "expired"
        return None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        presigned_put = request.method == "PUT" and "X-Amz-Signature" in request.query
        if not presigned_put:
            return await self._forward(request, await request.read())
        self._puts += 1
        n = self._puts
        q = request.query
        part = int(q["partNumber"]) if "partNumber" in q else None
        record = PutRecord(part, q.get("uploadId"), request.path, "", 0, 0)
        self.log.append(record)
        if self.strict and (err := self._strict_error(request)) is not None:
            status, code, record.outcome = err
            record.status = status
            await request.read()
            return _s3_error(status, code)
        if n <= self.faults.expire_first:
            await request.read()
            record.outcome, record.status = "expired", 403
            return _s3_error(403, "AccessDenied", "Request has expired")
        if self.faults.delay_s:
            await asyncio.sleep(self.faults.delay_s)
        try:
            body = await request.read()
        except ConnectionResetError:
            # The client went away mid-body (killed, or its connection dropped):
            # S3 stores nothing of such a PUT.
            record.outcome = "client-gone"
            return web.Response(status=400)
        record.size = len(body)
        if self.faults.bandwidth_bps:
            await asyncio.sleep(len(body) / self.faults.bandwidth_bps)
        if self.faults.error_every and n % self.faults.error_every == 0:
            record.outcome, record.status = "fault-5xx", self.faults.error_status
            return _s3_error(
                self.faults.error_status,
                "SlowDown" if self.faults.error_status == 503 else "InternalError",
            )
        if self.faults.reset_every and n % self.faults.reset_every == self.faults.reset_every // 2:
            record.outcome, record.status = "fault-reset", 0
            if request.transport is not None:
                request.transport.abort()  # the client sees a reset connection, no answer
            return web.Response(status=500)
        resp = await self._forward(request, body)
        record.outcome = "stored" if resp.status == 200 else f"upstream-{resp.status}"
        record.status = resp.status
        return resp

    async def _forward(self, request: web.Request, body: bytes) -> web.Response:
        if self._session is None:
            self._session = aiohttp.ClientSession(auto_decompress=False)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        url = URL(self.upstream.rstrip("/") + request.path_qs, encoded=True)
        async with self._session.request(
            request.method, url, data=body, headers=headers, skip_auto_headers=("Content-Type",)
        ) as up:
            data = await up.read()
            out = {k: v for k, v in up.headers.items() if k.lower() not in _HOP}
            if request.method == "HEAD" and "Content-Length" in up.headers:
                # HEAD answers carry the object's length with no body: keep it.
                out["Content-Length"] = up.headers["Content-Length"]
                return web.Response(status=up.status, headers=out)
            return web.Response(status=up.status, body=data, headers=out)


def _s3_error(status: int, code: str, message: str = "") -> web.Response:
    xml = f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message or code}</Message></Error>'
    return web.Response(status=status, text=xml, content_type="application/xml")
