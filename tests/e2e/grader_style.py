"""An independent grader-style procedure, to compare `harness quality` against.

Written from the spec's description of the organisers' ``run_quality_local.py``:
one ``simple_evaluate`` per benchmark; MMLU-Pro through lm-eval's own
``local-chat-completions`` (with its own HTTP code and bugs); IFEval and GPQA
through a custom ``LM`` using ``requests`` in a thread pool of 8, 3 attempts with
5 s / 10 s sleeps, empty string after the third failure. Test-only code.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests
from lm_eval import simple_evaluate
from lm_eval.api.model import LM

from harness.profiles import Benchmark, Profile


class GraderStyleLM(LM):
    def __init__(
        self, url: str, model: str, thinking: bool, cap: int, override: int | None
    ) -> None:
        super().__init__()
        self.url, self.model, self.thinking, self.cap, self.override = (
            url,
            model,
            thinking,
            cap,
            override,
        )

    def _one(self, args: tuple[str, dict[str, Any]]) -> str:
        context, gen_kwargs = args
        max_tokens = min(int(gen_kwargs.get("max_gen_toks", self.cap)), self.cap)
        if self.override:
            max_tokens = min(max_tokens, self.override)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": context}],
            "max_tokens": max_tokens,
            "temperature": 0.0,
        }
        if self.thinking:
            body["thinking"] = True
        else:
            body["chat_template_kwargs"] = {"enable_thinking": False}
        for attempt in range(3):
            try:
                resp = requests.post(self.url, json=body, timeout=600)
                resp.raise_for_status()
                return resp.json()["choices"][0]["message"]["content"]
            except (requests.RequestException, KeyError, ValueError):
                if attempt < 2:
                    time.sleep((5, 10)[attempt])
        return ""

    def generate_until(self, requests_: list[Any], disable_tqdm: bool = False) -> list[str]:
        with ThreadPoolExecutor(max_workers=8) as pool:
            return list(pool.map(self._one, [r.args for r in requests_]))

    def loglikelihood(self, requests_: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError

    def loglikelihood_rolling(self, requests_: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError


def run_benchmark(
    profile: Profile,
    bench: Benchmark,
    base_url: str,
    task_manager: Any,
    limit: float | None,
    override: int | None,
) -> tuple[dict[str, Any], float]:
    """lm-eval's output dict and the wall time of one benchmark, grader style."""
    spec = profile.require_quality()
    url = base_url.rstrip("/") + spec.endpoint
    common = dict(
        tasks=[bench.task],
        num_fewshot=bench.num_fewshot,
        batch_size=1,
        limit=limit,
        random_seed=spec.random_seed,
        numpy_random_seed=spec.numpy_random_seed,
        torch_random_seed=spec.torch_random_seed,
        fewshot_random_seed=spec.torch_random_seed,
        task_manager=task_manager,
        log_samples=True,
    )
    started = time.perf_counter()
    if bench.client == "local-chat-completions":
        gen = dict(profile.server.thinking_off)
        if override:
            gen["max_gen_toks"] = override
        out = simple_evaluate(
            model="local-chat-completions",
            model_args={
                "model": profile.server.model,
                "base_url": url,
                "num_concurrent": spec.num_concurrent,
                "tokenized_requests": False,
                "eos_string": spec.eos_string,
                "timeout": int(spec.mmlu_timeout_s),
            },
            apply_chat_template=True,
            gen_kwargs=gen,
            **common,
        )
    else:
        cap = spec.cap_thinking_on if bench.thinking else spec.cap_thinking_off
        lm = GraderStyleLM(url, profile.server.model, bench.thinking, cap, override)
        out = simple_evaluate(model=lm, **common)
    return out, time.perf_counter() - started
