"""Sending the benchmark's requests: concurrency, the grader's retries, cache, progress, timings.

Both lm-eval models (``grader_lm``, ``chat_lm``) hand their request bodies here.
What reaches the server is what the grader's urllib sends: the body as
``json.dumps(body).encode()`` (Python's default separators and ASCII escapes:
lm-eval's aiohttp ``json=`` and the grader's own LM produce these bytes, and the
grader's MMLU-Pro proxy forwards them unchanged), ``Accept-Encoding: identity``
and ``Connection: close`` (a new connection per request, never compressed).

One attempt is one :func:`harness.client.http.send_request`, its reply read by the
grader client's own rules (``grader_reply``). Retries follow the client being
reproduced: the grader's LM sleeps 5 s then 10 s INSIDE its worker thread, so
the concurrency slot stays taken; lm-eval's tenacity wrapper sleeps 1 s, 1 s
after releasing its semaphore. After the last failure the answer is the empty
string, counted as an error, so harness's own run always completes; where the
grader's run would die instead (lm-eval re-raises), the answer says so
(``grader_abort``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import aiohttp

from harness.client.http import HttpOptions, make_session, send_request
from harness.client.records import ErrorKind, RequestRecord
from harness.quality.cache import ResponseCache, body_key
from harness.quality.grader_reply import GRADER_DIES, ClientStyle, Reading, read_reply

# What the grader's urllib sends besides the body (the User-Agent stays harness's own).
GRADER_HEADERS = (("Accept-Encoding", "identity"), ("Connection", "close"))


def encode_grader_body(body: dict[str, Any]) -> bytes:
    """The grader's bytes: ``json.dumps`` defaults (``", "``, ``": "``, ASCII escapes)."""
    return json.dumps(body).encode()


class ProgressSink(Protocol):
    def start(self, total: int) -> None: ...

    def advance(self, *, cached: bool, failed: bool) -> None: ...


class NoProgress:
    def start(self, total: int) -> None:
        pass

    def advance(self, *, cached: bool, failed: bool) -> None:
        pass


@dataclass
class Answer:
    """One logical request: what came back after all attempts (or from the cache)."""

    tag: str  # the prompt as lm-eval knows it, to join answers with logged samples
    content: str = ""
    reasoning: str = ""
    finish_reason: str | None = None
    completion_tokens: int | None = None
    attempts: int = 0
    max_tokens: int | None = None  # as sent
    cached: bool = False
    error: str | None = None  # last attempt's error, when every attempt failed
    error_kinds: list[str] = field(default_factory=list)  # one per failed attempt
    grader_abort: str | None = None  # the grader's script would die on this request

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_cache(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "reasoning": self.reasoning,
            "finish_reason": self.finish_reason,
            "completion_tokens": self.completion_tokens,
            "grader_abort": self.grader_abort,
        }


@dataclass(frozen=True)
class Interval:
    """One HTTP attempt in flight, perf_counter_ns at send and at end."""

    start_ns: int
    end_ns: int


@dataclass
class TransportOptions:
    url: str  # full endpoint URL, e.g. http://host:8080/invocations
    fingerprint: str  # server identity, part of every cache key
    attempts: int = 3
    retry_sleeps_s: tuple[float, ...] = (5.0, 10.0)
    timeout_s: float | None = 600.0  # total per attempt (None with stream: idle timeout only)
    idle_timeout_s: float | None = None
    concurrency: int = 8
    style: ClientStyle = "grader-lm"  # whose retry and reply rules to follow


Sleep = Callable[[float], Awaitable[None]]


class Transport:
    """Shared by one benchmark's lm-eval model; collects answers and attempt intervals."""

    def __init__(
        self,
        opts: TransportOptions,
        *,
        cache: ResponseCache | None = None,
        progress: ProgressSink | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.opts = opts
        self.cache = cache
        self.progress: ProgressSink = progress or NoProgress()
        self.sleep = sleep
        self.answers: list[Answer] = []
        self.intervals: list[Interval] = []

    def _session(self, concurrency: int, timeout_s: float | None) -> aiohttp.ClientSession:
        return make_session(
            HttpOptions(
                timeout_s=timeout_s or 0.0,  # 0: no total limit (aiohttp), streamed reads
                connect_timeout_s=30.0,
                read_idle_timeout_s=self.opts.idle_timeout_s,
                new_connection_per_request=True,
                max_connections=concurrency,
                headers=GRADER_HEADERS,
            )
        )

    def run_all(
        self,
        items: list[tuple[str, dict[str, Any]]],
        *,
        concurrency: int | None = None,
        timeout_s: float | None = None,
        attempts: int | None = None,
        retry_sleeps_s: tuple[float, ...] | None = None,
    ) -> list[Answer]:
        """Ask every (tag, body) and return the answers in order (blocking; own event loop).
        ``None`` for an option: the transport's own (:class:`TransportOptions`)."""
        return asyncio.run(
            self.ask_all(
                items,
                concurrency=concurrency,
                timeout_s=timeout_s,
                attempts=attempts,
                retry_sleeps_s=retry_sleeps_s,
            )
        )

    async def ask_all(
        self,
        items: list[tuple[str, dict[str, Any]]],
        *,
        concurrency: int | None = None,
        timeout_s: float | None = None,
        attempts: int | None = None,
        retry_sleeps_s: tuple[float, ...] | None = None,
    ) -> list[Answer]:
        """Ask every (tag, body) on one session; ``None`` for an option: the transport's own
        (``timeout_s``: ``opts.timeout_s``, which may itself be None, no total limit)."""
        conc = concurrency or self.opts.concurrency
        total = self.opts.timeout_s if timeout_s is None else timeout_s
        n_attempts = attempts or self.opts.attempts
        sleeps = self.opts.retry_sleeps_s if retry_sleeps_s is None else retry_sleeps_s
        sem = asyncio.Semaphore(conc)
        async with self._session(conc, total) as session:
            tasks = [self._ask(session, sem, tag, body, n_attempts, sleeps) for tag, body in items]
            answers = list(await asyncio.gather(*tasks))
        self.answers.extend(answers)
        return answers

    async def _ask(
        self,
        session: aiohttp.ClientSession,
        sem: asyncio.Semaphore,
        tag: str,
        body: dict[str, Any],
        attempts: int,
        sleeps: tuple[float, ...],
    ) -> Answer:
        key = body_key(self.opts.fingerprint, body)
        max_tokens = body.get("max_tokens")
        sent = int(max_tokens) if isinstance(max_tokens, int) else None
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.progress.advance(cached=True, failed=False)
            return Answer(tag=tag, cached=True, max_tokens=sent, **hit)
        answer = Answer(tag=tag, max_tokens=sent)
        if self.opts.style == "grader-lm":
            # the grader's worker thread sleeps between attempts while holding its slot
            async with sem:
                await self._attempts(session, None, body, answer, attempts, sleeps)
        else:
            await self._attempts(session, sem, body, answer, attempts, sleeps)
        if answer.error is not None and self.opts.style == "lm-eval":
            answer.grader_abort = (
                f"failed {answer.attempts} times: lm-eval re-raises and the grader's "
                f"script exits without results; {GRADER_DIES}"
            )
        if answer.error is None and self.cache is not None:
            self.cache.put(key, answer.to_cache())
        self.progress.advance(cached=False, failed=answer.error is not None)
        return answer

    async def _attempts(
        self,
        session: aiohttp.ClientSession,
        sem: asyncio.Semaphore | None,
        body: dict[str, Any],
        answer: Answer,
        attempts: int,
        sleeps: tuple[float, ...],
    ) -> None:
        data = encode_grader_body(body)
        stream = bool(body.get("stream"))
        raw = "messages" not in body  # the grader's raw-completion branch
        for attempt in range(attempts):
            if attempt:
                await self.sleep(sleeps[min(attempt - 1, len(sleeps) - 1)] if sleeps else 0.0)
            async with sem if sem is not None else contextlib.nullcontext():
                rec = await send_request(session, self.opts.url, data, stream=stream)
            self.intervals.append(Interval(rec.send_ns, rec.end_ns or time.perf_counter_ns()))
            answer.attempts = attempt + 1
            reading = self._read(rec, raw)
            if reading.failed is None:
                answer.content = reading.text
                answer.grader_abort = reading.abort
                answer.reasoning = rec.reasoning
                answer.finish_reason = rec.finish_reason
                answer.completion_tokens = rec.usage_completion_tokens
                answer.error = None
                return
            answer.error = reading.failed
            answer.error_kinds.append(
                str(rec.error.kind) if rec.error is not None else "grader_parse"
            )

    def _read(self, rec: RequestRecord, raw: bool) -> Reading:
        if rec.stream:
            # NON-OFFICIAL streaming: the grader never streams, read as harness does
            if rec.error is not None:
                return Reading(failed=rec.error.with_answer())
            return Reading(rec.text)
        if rec.response is not None and (
            rec.error is None or rec.error.kind == ErrorKind.EMPTY_CHOICES
        ):
            return read_reply(self.opts.style, rec.response, raw=raw)
        if rec.error is not None:
            return Reading(failed=rec.error.with_answer())
        return Reading(failed="reply JSON is not an object")
