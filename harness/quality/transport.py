"""Sending the benchmark's requests: concurrency, the grader's retries, cache, progress, timings.

Both lm-eval models (``grader_lm``, ``chat_lm``) hand their request bodies here.
One attempt is one :func:`harness.client.send_request`; a failed attempt is retried
after the configured pauses (the grader: 3 attempts, 5 s then 10 s), and after the
last failure the answer is the empty string, counted as an error, so a run always
completes (lm-eval 0.4.11 aborts instead: #3293).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import aiohttp

from harness.client import send_request
from harness.client.http import READ_BUFSIZE
from harness.quality.cache import ResponseCache, body_key


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

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_cache(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "reasoning": self.reasoning,
            "finish_reason": self.finish_reason,
            "completion_tokens": self.completion_tokens,
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
        connector = aiohttp.TCPConnector(limit=concurrency)
        timeout = aiohttp.ClientTimeout(
            total=timeout_s, sock_connect=30.0, sock_read=self.opts.idle_timeout_s
        )
        return aiohttp.ClientSession(
            connector=connector,
            timeout=timeout,
            read_bufsize=READ_BUFSIZE,
            headers={"Content-Type": "application/json"},
        )

    def run_all(
        self,
        items: list[tuple[str, dict[str, Any]]],
        *,
        concurrency: int | None = None,
        timeout_s: float | None = -1.0,
        attempts: int | None = None,
        retry_sleeps_s: tuple[float, ...] | None = None,
    ) -> list[Answer]:
        """Ask every (tag, body) and return the answers in order (blocking; own event loop)."""
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
        timeout_s: float | None = -1.0,
        attempts: int | None = None,
        retry_sleeps_s: tuple[float, ...] | None = None,
    ) -> list[Answer]:
        conc = concurrency or self.opts.concurrency
        total = self.opts.timeout_s if timeout_s is not None and timeout_s < 0 else timeout_s
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
        for attempt in range(attempts):
            if attempt:
                # the grader sleeps outside its concurrency slot; so do we
                await self.sleep(sleeps[min(attempt - 1, len(sleeps) - 1)] if sleeps else 0.0)
            async with sem:
                rec = await send_request(session, self.opts.url, body)
            self.intervals.append(Interval(rec.send_ns, rec.end_ns or time.perf_counter_ns()))
            answer.attempts = attempt + 1
            if rec.error is None:
                answer.content = rec.text
                answer.reasoning = rec.reasoning
                answer.finish_reason = rec.finish_reason
                answer.completion_tokens = rec.usage_completion_tokens
                answer.error = None
                if self.cache is not None:
                    self.cache.put(key, answer.to_cache())
                break
            answer.error = rec.error.one_line()
            answer.error_kinds.append(str(rec.error.kind))
        self.progress.advance(cached=False, failed=answer.error is not None)
        return answer
