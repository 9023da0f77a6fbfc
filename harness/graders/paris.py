"""What the GPU MODE Paris grader sends in its throughput sweep, and how it reads the answer
(``eval/throughput/run_throughput.py``; docs/throughput.md).

- :func:`grader_prompts`: its random-token prompts: the allowed ids are the vocabulary minus
  the special ids; prompt ``i`` starts as a window of CONSECUTIVE allowed ids at a random
  offset (+ i, wrapping), then at most 10 decode (specials skipped) → encode rounds pad with
  random allowed ids or cut; the last text is kept even if it is not exact. The grader's
  generator is unseeded; harness passes a seeded ``numpy`` generator (the seam that makes a
  run repeatable and lets tests give both sides the same prompts).
- :func:`sweep_body`: its chat body, key for key;
- :func:`grader_session`: its aiohttp session (aiohttp's defaults, ``auto_decompress``, its
  own headers, one total timeout);
- :func:`post_sweep`: one request as it sends it (``json=``, Python ``json.dumps``
  defaults) and reads it: the bytes, then ``resp.json()`` of those bytes (the end of its
  timer), then for a 200 ``message.content`` (:func:`grader_content`) and ``usage``
  (:func:`grader_usage`). A request fails when anything on that path raises
  (:data:`GRADER_FAILS`: a non-JSON reply, ``choices: []``, a null ``content``); a reply
  with no ``choices`` key is an empty success.

The sweep (harness/throughput/grader_loop.py) and the audit's Paris requests
(harness/audit/timed/send.py) send through these, so the audit's timed prompt differs from the
sweep's only by its text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import numpy as np

from harness.errors import ConfigError
from harness.prompts import regular_ids, settle
from harness.tokenizer import Tokenizer

# what the grader's `except Exception` meets on a request's path, as harness names it
GRADER_FAILS = (aiohttp.ClientError, TimeoutError, ValueError, LookupError, TypeError)


def grader_prompts(
    tok: Tokenizer, count: int, n_tokens: int, rng: np.random.Generator, *, rounds: int = 10
) -> list[str]:
    """``count`` prompts built exactly as the Paris grader builds them (see module doc)."""
    if n_tokens <= 0:
        raise ConfigError(f"prompt length must be positive, got {n_tokens}")
    allowed = np.array(regular_ids(tok))
    size = len(allowed)

    def pad(k: int) -> list[int]:
        return [int(x) for x in allowed[rng.integers(0, size, size=k)]]

    out: list[str] = []
    for i in range(count):
        offset = int(rng.integers(0, size))
        ids = [int(x) for x in allowed[(offset + i + np.arange(n_tokens)) % size]]
        text, _ = settle(tok, ids, n_tokens, pad, rounds, skip_ids=tok.special_ids)
        out.append(text)
    return out


def grader_session(timeout_s: float) -> aiohttp.ClientSession:
    """The grader's session: aiohttp defaults, one total timeout."""
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s))


def sweep_body(
    model: str, prompt: str, max_tokens: int, temperature: float, top_p: float | None
) -> dict[str, Any]:
    """The grader's chat body, key for key (``top_p`` None: not sent, as the grader's)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": temperature,
    }
    if top_p is not None:
        body["top_p"] = top_p
    return body


def grader_content(body: Any) -> str:
    """``body.get("choices", [{}])[0].get("message", {}).get("content", "")``, where every
    step the grader's expression would raise on raises here too."""
    if not isinstance(body, dict):
        raise TypeError(f"response JSON is {type(body).__name__}, not an object")
    choices = body.get("choices", [{}])
    if not isinstance(choices, list) or not choices:
        raise IndexError("choices is empty or not a list")
    first = choices[0]
    if not isinstance(first, dict):
        raise TypeError("choices[0] is not an object")
    msg = first.get("message", {})
    if not isinstance(msg, dict):
        raise TypeError("choices[0].message is not an object")
    content = msg.get("content", "")
    if not isinstance(content, str):
        raise TypeError(f"message.content is {type(content).__name__}, not a string")
    return content


def grader_usage(body: dict[str, Any]) -> tuple[int | None, int | None]:
    usage = body.get("usage", {})
    if not isinstance(usage, dict):
        raise TypeError("usage is not an object")
    p, c = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
    return (p if isinstance(p, int) else None), (c if isinstance(c, int) else None)


@dataclass
class SweepReply:
    """What one request of the grader's got, filled as it is read: a request that failed
    part way keeps what came before (its status, its bytes)."""

    status: int | None = None
    raw: bytes | None = None  # the answer's bytes, read before they are parsed
    body: Any = None
    t_end: float = 0.0  # perf_counter after the JSON parse (the grader's end), or at the failure
    content: str = ""  # a 200's message.content
    prompt_tokens: int | None = None  # grader_usage's reading (absent: 0)
    completion_tokens: int | None = None
    finish_reason: str | None = None
    error: BaseException | None = None  # what raised on the path (one of GRADER_FAILS)


async def post_sweep(
    session: aiohttp.ClientSession,
    url: str,
    payload: dict[str, Any],
    inside: Callable[[str], None] | None = None,
) -> SweepReply:
    """POST ``payload`` and read the answer as the grader does; never raises (but Ctrl-C).

    ``inside(content)`` runs on a 200's content before the response is released, where the
    grader counts its completion tokens; what it raises fails the request as well."""
    reply = SweepReply()
    try:
        async with session.post(url, json=payload) as resp:
            reply.status = resp.status
            reply.raw = await resp.read()  # json() below parses these same bytes, like the grader's
            reply.body = await resp.json()
            reply.t_end = time.perf_counter()
            if resp.status != 200:
                return reply
            reply.content = grader_content(reply.body)
            reply.prompt_tokens, reply.completion_tokens = grader_usage(reply.body)
            choices = reply.body.get("choices")
            reason = choices[0].get("finish_reason") if choices else None
            reply.finish_reason = reason if isinstance(reason, str) else None
            if inside is not None:
                inside(reply.content)
    except GRADER_FAILS as err:
        # the grader's `except Exception`: whatever raised on the path fails the request
        reply.t_end = time.perf_counter()
        reply.error = err
    return reply
