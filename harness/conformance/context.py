"""What every check gets: the typed settings, one HTTP session, the tokenizers, and helpers
that send a request and return its record together with the evidence to show."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from harness.client.http import send_request
from harness.client.records import RequestRecord
from harness.conformance.report import Evidence, Outcome, excerpt
from harness.tokenizer import Tokenizer

# The texts the checks send. The completion prompt invites a long answer so a small
# max_tokens is hit (finish_reason "length"), which makes every token count exact.
STORY_PROMPT = (
    "The quick brown fox jumps over the lazy dog. Here is a long story about a lighthouse "
    "keeper who finds a message in a bottle:"
)
STORY_QUESTION = "Write a long story about a lighthouse keeper who finds a message in a bottle."
THINK_QUESTION = "What is 17 times 23? Answer with the number."


@dataclass(frozen=True)
class CheckConfig:
    """One typed config for a conformance run, built by ``config.from_profile`` only."""

    url: str
    graders_model: str  # the name graders put in chat bodies
    tokenizer: str  # the client tokenizer usage is compared with
    long_tokenizer: str  # the tokenizer the long prompt is measured in (the profile's)
    chat_endpoint: str  # where the grader sends chat bodies
    usage_endpoint: str  # usage, max_tokens and determinism are asked here
    long_endpoint: str  # where the grader sends its long prompt
    ready_path: str
    model: str | None  # None: the graders' name if served, else the server's first
    engine: str | None  # --engine: names the serving engine in the fingerprint (None: detected)
    timeout_s: float
    ready_timeout_s: float
    ready_interval_s: float
    max_tokens: int
    limit_tokens: int  # the max_tokens check's limit
    usage_tolerance: int
    think_budget: int
    long_prompt_tokens: int
    long_bucket_max_tokens: int  # what the grader asks with the long prompt
    concurrency: tuple[int, ...]
    think_open: str
    think_close: str
    thinking_off: dict[str, Any]
    thinking_on: dict[str, Any]
    checks: tuple[str, ...]  # planned check names, in order
    required: frozenset[str]
    # harness's own: what the check asks with the long prompt (generation at 8k is slow),
    # the concurrency checks' answer length, requests in flight outside them
    long_max_tokens_sent: int = 4
    concurrency_max_tokens: int = 8
    light_parallelism: int = 4
    wait_for_start: bool = False  # refused connections do not end the readiness wait


def body_text(body: dict[str, Any] | bytes) -> str:
    if isinstance(body, bytes):
        return excerpt(body.decode("utf-8", errors="replace"))
    return excerpt(json.dumps(body, ensure_ascii=False))


def record_evidence(path: str, body: dict[str, Any] | bytes, rec: RequestRecord) -> Evidence:
    """What the user needs to see of one exchange."""
    if rec.error is not None:
        answer = rec.error.one_line()
        if rec.error.body_excerpt:
            answer += f" | body: {rec.error.body_excerpt}"
    elif rec.stream:
        usage = (
            f", usage {rec.usage_prompt_tokens}/{rec.usage_completion_tokens}/"
            f"{rec.usage_total_tokens}"
            if rec.usage_total_tokens is not None
            else ", no usage"
        )
        answer = f"{len(rec.events)} events, finish {rec.finish_reason}{usage}, text {rec.text!r}"
        if rec.reasoning:
            answer += f", reasoning {rec.reasoning!r}"
    else:
        answer = json.dumps(rec.response, ensure_ascii=False)
    return Evidence(
        path=path,
        request=body_text(body),
        status=rec.status,
        response=excerpt(answer),
        elapsed_ms=None if rec.end_ns is None else round((rec.end_ns - rec.send_ns) / 1e6, 1),
    )


@dataclass
class RawAnswer:
    status: int | None
    body: bytes
    error: str = ""


class CheckContext:
    """Shared by the checks of one run. Holds no global state: tests build their own."""

    def __init__(
        self,
        cfg: CheckConfig,
        session: aiohttp.ClientSession,
        tokenizer: Tokenizer,
        long_tokenizer: Tokenizer,
        model: str,
    ) -> None:
        self.cfg = cfg
        self.session = session
        # the readiness wait's lines, for the console (run_checks sets it)
        self.on_attempt: Callable[[int, float, str], None] | None = None
        self.tok = tokenizer
        self.long_tok = long_tokenizer
        self.model = model
        self.server_tokenize: bool | None = None  # unknown until first asked
        self.outcomes: dict[str, Outcome] = {}  # finished checks, for dependencies
        self.light = asyncio.Semaphore(cfg.light_parallelism)
        self._memo: dict[str, asyncio.Task[Any]] = {}

    # ---- request bodies as the graders send them
    def completion_body(
        self, prompt: str = STORY_PROMPT, max_tokens: int | None = None
    ) -> dict[str, Any]:
        """The latency grader's body: no model field, greedy."""
        return {
            "prompt": prompt,
            "max_tokens": max_tokens or self.cfg.max_tokens,
            "temperature": 0.0,
        }

    def chat_body(
        self,
        content: str = STORY_QUESTION,
        max_tokens: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": max_tokens or self.cfg.max_tokens,
            "temperature": 0.0,
            **(extra or {}),
        }

    # ---- sending
    async def post(
        self, path: str, body: dict[str, Any], *, light: bool = True
    ) -> tuple[RequestRecord, Evidence]:
        """POST ``body`` and return (record, evidence). ``light`` requests share a small
        in-flight limit, so only the concurrency checks load the server."""
        url = self.cfg.url + path
        if light:
            async with self.light:
                rec = await send_request(self.session, url, body, endpoint=path)
        else:
            rec = await send_request(self.session, url, body, endpoint=path)
        return rec, record_evidence(path, body, rec)

    async def post_raw(self, path: str, data: bytes) -> tuple[RawAnswer, Evidence]:
        """POST bytes as they are (malformed JSON included) and keep the whole answer."""
        start = time.perf_counter_ns()
        async with self.light:
            try:
                async with self.session.post(self.cfg.url + path, data=data) as resp:
                    answer = RawAnswer(resp.status, await resp.read())
            except (aiohttp.ClientError, TimeoutError, OSError) as err:
                answer = RawAnswer(None, b"", f"{type(err).__name__}: {err}")
        shown = answer.error or answer.body.decode("utf-8", errors="replace")
        return answer, Evidence(
            path=path,
            request=body_text(data),
            status=answer.status,
            response=excerpt(shown),
            elapsed_ms=round((time.perf_counter_ns() - start) / 1e6, 1),
        )

    async def memo(self, key: str, factory: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``factory`` once per key (checks that need the same answer share it)."""
        task = self._memo.get(key)
        if task is None:
            task = self._memo[key] = asyncio.ensure_future(factory())
        return await task

    async def server_count(self, prompt: str) -> int | None:
        """The server's own token count of a completion prompt via ``/tokenize``
        (vLLM's route), or None when it has none."""
        if self.server_tokenize is False:
            return None
        body: dict[str, Any] = {"model": self.model, "prompt": prompt}
        answer, _ = await self.post_raw("/tokenize", json.dumps(body).encode())
        count = None
        if answer.status == 200:
            try:
                data = json.loads(answer.body)
                if isinstance(data, dict) and isinstance(data.get("count"), int):
                    count = int(data["count"])
            except (json.JSONDecodeError, UnicodeDecodeError):
                count = None
        self.server_tokenize = count is not None
        return count

    def failed_dependency(self, needs: tuple[str, ...]) -> str | None:
        """The first needed check that failed, if any."""
        for name in needs:
            got = self.outcomes.get(name)
            if got is not None and got.result.value == "fail":
                return name
        return None
