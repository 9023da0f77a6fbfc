"""Uploads through presigned URLs: one single PUT, or parallel multipart parts.

Parts are read with ``os.pread`` (no shared file offset between workers), sent
4–8 at a time with an exact ``Content-Length`` and no extra signed-looking
headers, and each part's returned ETag is checked against the MD5 of the bytes
sent. Every confirmed part is written to the resume state before the next one
is counted, so a killed run never re-sends it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from harness.errors import ProtocolError, TargetError
from harness.submit.api import UploadTarget, transport_failure
from harness.submit.retry import Action, RetryPolicy, classify_status, etag_matches

OnBytes = Callable[[int], None]
_SKIP = ("Content-Type",)  # aiohttp would add it; presigned PUTs need nothing unsigned


@dataclass
class UploadStats:
    parts_total: int = 0
    parts_sent: int = 0
    parts_resumed: int = 0
    bytes_sent: int = 0
    retries: int = 0
    refreshes: int = 0
    etag_mismatches: int = 0


class UrlSource:
    """The current presigned URLs, refreshed at most once per generation (403 / expired)."""

    def __init__(
        self,
        target: UploadTarget,
        refresh: Callable[[], Awaitable[UploadTarget]],
        policy: RetryPolicy,
        stats: UploadStats,
    ) -> None:
        self._urls = self._index(target)
        self._refresh = refresh
        self._policy = policy
        self._stats = stats
        self._lock = asyncio.Lock()
        self.generation = 0

    @staticmethod
    def _index(target: UploadTarget) -> dict[int, str]:
        if target.upload_type == "single":
            return {1: str(target.upload_url)}
        return {p.part_number: p.upload_url for p in target.part_urls}

    def url(self, part: int) -> str:
        try:
            return self._urls[part]
        except KeyError:
            raise ProtocolError(f"the organiser gave no URL for part {part}") from None

    async def refresh(self, seen_generation: int) -> None:
        async with self._lock:
            if self.generation != seen_generation:
                return  # another worker already refreshed
            if self._stats.refreshes >= self._policy.max_refreshes:
                raise TargetError(
                    f"presigned URLs rejected after {self._stats.refreshes} refreshes",
                    hint="check the clock and --api-url",
                )
            self._urls = self._index(await self._refresh())
            self._stats.refreshes += 1
            self.generation += 1


async def _put(
    session: aiohttp.ClientSession,
    url: str,
    data: bytes | AsyncIterator[bytes],
    length: int,
    timeout_s: float,
) -> tuple[int, str | None, str]:
    # An explicit Content-Length keeps aiohttp from sending a chunked body (S3 answers 501).
    async with session.put(
        url,
        data=data,
        headers={"Content-Length": str(length)},
        skip_auto_headers=_SKIP,
        timeout=aiohttp.ClientTimeout(total=timeout_s),
    ) as resp:
        body = await resp.text(errors="replace")
        return resp.status, resp.headers.get("ETag"), body


async def _with_retries(
    what: str,
    send: Callable[[str], Awaitable[tuple[int, str | None, str]]],
    md5_hex: str,
    urls: UrlSource,
    part: int,
    policy: RetryPolicy,
    stats: UploadStats,
    rng: random.Random,
) -> str:
    """Send until S3 confirms the bytes (ETag == MD5); return the ETag as S3 gave it."""
    for attempt in range(1, policy.attempts + 1):
        generation = urls.generation
        try:
            status, etag, body = await send(urls.url(part))
        except (aiohttp.ClientError, TimeoutError, OSError) as err:
            action, last = Action.RETRY, transport_failure(err, policy.timeout_s)
        else:
            if 200 <= status < 300:
                if etag is not None and etag_matches(etag, md5_hex):
                    return etag.strip()
                stats.etag_mismatches += 1
                action, last = Action.RETRY, f"ETag {etag} does not match the MD5 of the bytes sent"
            else:
                action, last = classify_status(status, body), f"HTTP {status} {_s3_code(body)}"
        if action is Action.FAIL:
            raise TargetError(f"{what}: {last}")
        if attempt == policy.attempts:
            break
        if action is Action.REFRESH:
            await urls.refresh(generation)
        else:
            stats.retries += 1
            await asyncio.sleep(policy.backoff_s(attempt, rng))
    raise TargetError(
        f"{what}: gave up after {policy.attempts} attempts (last: {last})", hint="re-run to resume"
    )


def _s3_code(body: str) -> str:
    start = body.find("<Code>")
    end = body.find("</Code>")
    return body[start + 6 : end] if 0 <= start < end else body[:80].strip()


async def upload_single(
    session: aiohttp.ClientSession,
    path: Path,
    size: int,
    md5_hex: str,
    urls: UrlSource,
    *,
    policy: RetryPolicy,
    stats: UploadStats,
    rng: random.Random,
    on_bytes: OnBytes | None = None,
) -> str:
    stats.parts_total = 1

    async def body() -> AsyncIterator[bytes]:
        with path.open("rb") as fh:
            while block := await asyncio.to_thread(fh.read, 4 << 20):
                stats.bytes_sent += len(block)
                if on_bytes:
                    on_bytes(len(block))
                yield block

    async def send(url: str) -> tuple[int, str | None, str]:
        return await _put(session, url, body(), size, policy.timeout_s)

    etag = await _with_retries("single PUT", send, md5_hex, urls, 1, policy, stats, rng)
    stats.parts_sent = 1
    return etag


async def upload_parts(
    session: aiohttp.ClientSession,
    path: Path,
    size: int,
    part_size: int,
    todo: list[int],
    urls: UrlSource,
    confirm: Callable[[int, str], None],
    *,
    parallel: int,
    policy: RetryPolicy,
    stats: UploadStats,
    rng: random.Random,
    on_bytes: OnBytes | None = None,
) -> None:
    """Send the parts in ``todo``; ``confirm(part, etag)`` records each one S3 accepted."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in todo:
        queue.put_nowait(n)
    fd = os.open(path, os.O_RDONLY)

    def read_part(n: int) -> tuple[bytes, str]:
        offset = (n - 1) * part_size
        data = os.pread(fd, min(part_size, size - offset), offset)
        return data, hashlib.md5(data, usedforsecurity=False).hexdigest()

    async def worker() -> None:
        while True:
            try:
                n = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            data, md5_hex = await asyncio.to_thread(read_part, n)

            async def send(url: str, data: bytes = data) -> tuple[int, str | None, str]:
                return await _put(session, url, data, len(data), policy.timeout_s)

            etag = await _with_retries(f"part {n}", send, md5_hex, urls, n, policy, stats, rng)
            confirm(n, etag)
            stats.parts_sent += 1
            stats.bytes_sent += len(data)
            if on_bytes:
                on_bytes(len(data))

    tasks = [asyncio.create_task(worker()) for _ in range(max(1, min(parallel, len(todo))))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        os.close(fd)
