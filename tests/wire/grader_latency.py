"""The Efficient Qwen grader's latency loop, written in the tests from the spec facts
(shared spec "Latency"; docs/timing.md): the independent side of the wire comparison.

It deliberately shares no code with harness: stdlib urllib, ``json.dumps``
defaults, the timer around encode → ``json.loads``, failures = any exception,
a 200 without choices = a timed success, ``statistics.median`` per bucket,
saved as ``round(median, 2)``.
"""

from __future__ import annotations

import contextlib
import json
import re
import statistics
import time
import urllib.request
from dataclasses import dataclass, field

FILLER = "The quick brown fox jumps over the lazy dog. "


@dataclass
class GraderBucket:
    name: str
    latencies_ms: list[float] = field(default_factory=list)
    failures: int = 0

    @property
    def median_ms(self) -> float | None:
        return round(statistics.median(self.latencies_ms), 2) if self.latencies_ms else None


def wait_for_container(url: str, tries: int = 120, interval_s: float = 5.0) -> None:
    for _ in range(tries):
        try:
            urllib.request.urlopen(f"{url}/ping", timeout=2)
            return
        except Exception:  # the grader's rule: anything raised means "not yet"
            time.sleep(interval_s)
    raise RuntimeError("not ready")


def invoke(url: str, endpoint: str, prompt: str, max_tokens: int) -> float:
    t0 = time.perf_counter()
    body = json.dumps({"prompt": prompt, "max_tokens": max_tokens, "temperature": 0.0}).encode()
    req = urllib.request.Request(
        f"{url}{endpoint}", data=body, headers={"Content-Type": "application/json"}
    )
    result = json.loads(urllib.request.urlopen(req, timeout=600).read())
    ms = (time.perf_counter() - t0) * 1000
    choices = result.get("choices", [])
    text = choices[0].get("text", "") if choices else ""
    re.sub(r"<think>.*?</think>\s*", "", text, flags=re.DOTALL)
    return ms


def run_latency(
    url: str,
    buckets: list[tuple[str, int, int]],
    *,
    warmup: int = 5,
    runs: int = 50,
    endpoint: str = "/invocations",
) -> dict[str, GraderBucket]:
    """``buckets``: (name, nominal prompt tokens, max_tokens), in order."""
    out: dict[str, GraderBucket] = {}
    for name, n_tokens, max_tokens in buckets:
        prompt = FILLER * max(1, n_tokens // 10)
        for _ in range(warmup):
            with contextlib.suppress(Exception):  # warm-up errors are ignored by the grader
                invoke(url, endpoint, prompt, max_tokens)
        b = out[name] = GraderBucket(name)
        for _ in range(runs):
            try:
                b.latencies_ms.append(invoke(url, endpoint, prompt, max_tokens))
            except Exception:  # any exception drops the request (the grader's rule)
                b.failures += 1
    return out
