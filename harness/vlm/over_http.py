"""``harness vlm latency``: the AICAS figures over HTTP, for a served VLM.

One request at a time, per TextVQA sample (the image's original bytes as a data
URL, then the question — the contest's prompt, no system message):

1. non-streamed ``max_tokens=1``: TTFT the official way (send → whole response);
2. streamed ``max_tokens=128`` (``throughput_tokens``): TTFT from the first chunk
   carrying text (harness's own), and tok/s = tokens / (send → last chunk),
   prefill included as in the official 128-token call;
3. non-streamed ``max_tokens=answer_tokens``: the answer, for accuracy.

Timestamps are ``perf_counter`` when bytes arrive; the body is serialised
before the clock starts. The same image sent three times can hit a server's
encoder or prefix cache: repeated images across samples are flagged, and the
docs say how to switch those caches off in vLLM.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from harness.client.sse import SSESplitter
from harness.errors import DataMissingError, UnreachableError
from harness.vlm.config import VlmHttpConfig
from harness.vlm.report import VlmSample

MAGIC = {b"\x89PNG": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF8": "image/gif"}


@dataclass(frozen=True)
class HttpSample:
    index: int
    question_id: Any
    question: str
    answers: list[str]
    image: bytes


def mime_of(raw: bytes) -> str:
    for magic, mime in MAGIC.items():
        if raw.startswith(magic):
            return mime
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return "image/png"


def load_samples(path: Path, n: int | None, max_samples: int) -> list[HttpSample]:
    """The first N rows with each image's ORIGINAL bytes (not re-encoded)."""
    if not (path / "dataset_info.json").is_file():
        raise DataMissingError(
            f"{path} is not a datasets.save_to_disk folder (no dataset_info.json)",
            hint="point --dataset-path at the TextVQA validation folder",
        )
    from datasets import Image, load_from_disk

    ds = load_from_disk(str(path))
    ds = ds.cast_column("image", Image(decode=False))
    total = min(n or min(max_samples, len(ds)), len(ds))
    out = []
    for i in range(total):
        row = ds[i]
        img = row["image"]
        raw = img.get("bytes") or Path(img["path"]).read_bytes()
        out.append(
            HttpSample(
                index=i,
                question_id=row.get("question_id", i),
                question=row["question"],
                answers=[str(a) for a in row.get("answers") or []],
                image=raw,
            )
        )
    return out


def chat_body(cfg: VlmHttpConfig, s: HttpSample, max_tokens: int, stream: bool) -> bytes:
    data_url = f"data:{mime_of(s.image)};base64,{base64.b64encode(s.image).decode('ascii')}"
    body: dict[str, Any] = {
        "model": cfg.model,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": data_url}},
                    {"type": "text", "text": s.question},
                ],
            }
        ],
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "stream": stream,
    }
    if stream:
        body["stream_options"] = {"include_usage": True}
    return json.dumps(body).encode()


@dataclass
class CallResult:
    elapsed_s: float
    first_s: float | None
    text: str
    completion_tokens: int | None
    chunks: int


async def _call(
    session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]
) -> CallResult:
    t0 = time.perf_counter()
    async with session.post(url, data=body, headers=headers) as resp:
        if resp.status != 200:
            text = (await resp.read())[:200].decode("utf-8", "replace")
            raise RuntimeError(f"HTTP {resp.status}: {text}")
        if resp.content_type != "text/event-stream":
            raw = await resp.read()
            elapsed = time.perf_counter() - t0
            obj = json.loads(raw)
            msg = obj["choices"][0].get("message") or {}
            usage = obj.get("usage") or {}
            return CallResult(
                elapsed, None, msg.get("content") or "", usage.get("completion_tokens"), 0
            )
        splitter = SSESplitter()
        first: float | None = None
        parts: list[str] = []
        tokens: int | None = None
        chunks = 0
        last = t0
        async for chunk in resp.content.iter_any():
            now = time.perf_counter()
            for ev in splitter.feed(chunk):
                if ev.strip() == "[DONE]":
                    continue
                obj = json.loads(ev)
                if obj.get("usage"):
                    tokens = obj["usage"].get("completion_tokens", tokens)
                for ch in obj.get("choices") or []:
                    delta = ch.get("delta") or {}
                    piece = delta.get("content") or delta.get("reasoning_content") or ""
                    if piece:
                        chunks += 1
                        parts.append(piece)
                        last = now
                        if first is None:
                            first = now - t0
        return CallResult(last - t0, first, "".join(parts), tokens, chunks)


async def measure_http(
    cfg: VlmHttpConfig,
    on_sample: Callable[[VlmSample], None] | None = None,
    before: Callable[[], Awaitable[object]] | None = None,
) -> list[VlmSample]:
    """Every sample's three calls, one at a time. ``before`` runs once the samples are read
    and before the first request (the manifest's take: never between timed requests)."""
    samples = load_samples(cfg.dataset_path, cfg.num_samples, cfg.spec.max_samples)
    if before is not None:
        await before()
    url = cfg.url.rstrip("/") + cfg.spec.http_endpoint
    headers = {"Content-Type": "application/json"}
    if cfg.api_key:
        headers["Authorization"] = f"Bearer {cfg.api_key}"
    n_tput = cfg.throughput_tokens or cfg.spec.throughput_tokens
    n_ans = cfg.answer_tokens or cfg.spec.answer_tokens
    out: list[VlmSample] = []
    timeout = aiohttp.ClientTimeout(total=cfg.timeout_s)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        for s in samples:
            rec = VlmSample(
                question_id=s.question_id,
                index=s.index,
                question=s.question,
                answers=s.answers,
                image_sha256=hashlib.sha256(s.image).hexdigest(),
            )
            errors = []
            r2: CallResult | None = None
            try:
                r1 = await _call(
                    session, url, chat_body(cfg, s, cfg.spec.ttft_tokens, False), headers
                )
                rec.ttft_ms = r1.elapsed_s * 1000
                r2 = await _call(session, url, chat_body(cfg, s, n_tput, True), headers)
                rec.ttft_stream_ms = r2.first_s * 1000 if r2.first_s is not None else None
                rec.throughput_ms = r2.elapsed_s * 1000
                rec.throughput_tokens = r2.completion_tokens or r2.chunks
                ok = r2.elapsed_s > cfg.spec.min_time_s and rec.throughput_tokens > 0
                rec.tok_s = rec.throughput_tokens / r2.elapsed_s if ok else 0.0
                rec.counted = rec.tok_s > 0
                rec.early_eos = 0 < rec.throughput_tokens < n_tput
            except aiohttp.ClientConnectorError as err:
                raise UnreachableError(f"{cfg.url}: {err}", hint="is the server up?") from None
            except (aiohttp.ClientError, TimeoutError, RuntimeError, ValueError, KeyError) as err:
                errors.append(f"timing: {type(err).__name__}: {err}"[:300])
            try:
                r3 = await _call(session, url, chat_body(cfg, s, n_ans, False), headers)
                rec.prediction = r3.text
                rec.answer_ms = r3.elapsed_s * 1000
                rec.answer_tokens = r3.completion_tokens or 0
                rec.answer_generated = True
                if r2 is not None and rec.prediction and r2.text:
                    # greedy decoding: the 128-token text must begin the answer (or the reverse)
                    rec.throughput_prefix_of_answer = rec.prediction.startswith(
                        r2.text
                    ) or r2.text.startswith(rec.prediction)
            except (aiohttp.ClientError, TimeoutError, RuntimeError, ValueError, KeyError) as err:
                errors.append(f"answer: {type(err).__name__}: {err}"[:300])
            rec.error = "; ".join(errors) or None
            out.append(rec)
            if on_sample:
                on_sample(rec)
    return out
