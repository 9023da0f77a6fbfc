"""The graders' quality clients, written from the spec, to compare `harness quality` against.

Test-only code, independent of harness's quality package (spec: Efficient Qwen
"Quality", GPU MODE Paris "Correctness gate"):

- Efficient Qwen MMLU-Pro: lm-eval's own ``local-chat-completions`` behind the
  grader's forwarding proxy (127.0.0.1, port 0 here), which forwards each body's
  bytes UNCHANGED to the server's quality endpoint with urllib (timeout 120 s)
  and answers 500 ``{"error": ...}`` on any upstream failure. No gen_kwargs.
- Efficient Qwen IFEval / GPQA: the grader's own LM: 8 worker threads, urllib
  with ``json.dumps(payload).encode()``, the raw-completion branch for
  thinking-OFF contexts ending in "step by step." (or "Answer: Let" near the
  end), 3 attempts sleeping 5 s then 10 s inside the worker, "" at the end; the
  answer read with ``.get`` defaults as the script reads it.
- GPU MODE Paris GSM8K: lm-eval's CLI call, local-chat-completions straight at
  ``/v1/chat/completions`` with ``--gen_kwargs temperature=0,top_p=1.0``.

``override`` is harness's NON-OFFICIAL generation cap (``--max-gen-toks``),
applied the same way on both sides so that small models finish in tests.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lm_eval import simple_evaluate
from lm_eval.api.model import LM

from harness.profiles import Benchmark, Profile

THINK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


def _post(url: str, payload: dict[str, Any], timeout: float) -> Any:
    data = json.dumps(payload).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read())


class GraderStyleLM(LM):
    """The organisers' LocalLM, from the spec's description."""

    def __init__(
        self,
        url: str,
        thinking: bool,
        cap: int,
        override: int | None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        self.url, self.thinking, self.cap, self.override, self.sleep = (
            url,
            thinking,
            cap,
            override,
            sleep,
        )

    def _ask(self, context: str, max_tokens: int) -> Any:
        if self.thinking:
            payload: dict[str, Any] = {
                "messages": [{"role": "user", "content": context}],
                "max_tokens": max_tokens,
                "temperature": 0.0,
                "thinking": True,
            }
        elif context.rstrip().endswith("step by step.") or "Answer: Let" in context[-30:]:
            reply = _post(
                self.url, {"prompt": context, "max_tokens": max_tokens, "temperature": 0.0}, 600
            )
            return THINK.sub("", reply.get("choices", [{}])[0].get("text", "")).strip()
        else:
            payload = {
                "messages": [{"role": "user", "content": context}],
                "max_tokens": max_tokens,
                "temperature": 0.0,
                "chat_template_kwargs": {"enable_thinking": False},
            }
        reply = _post(self.url, payload, 600)
        return reply.get("choices", [{}])[0].get("message", {}).get("content", "")

    def _one(self, args: tuple[str, dict[str, Any]]) -> Any:
        context, gen_kwargs = args
        max_tokens = min(
            gen_kwargs.get("max_gen_toks", gen_kwargs.get("max_new_tokens", self.cap)), self.cap
        )
        if self.override:
            max_tokens = min(max_tokens, self.override)
        for attempt in range(3):
            try:
                return self._ask(context, max_tokens)
            except (OSError, ValueError, LookupError, AttributeError, TypeError):
                if attempt < 2:
                    self.sleep(5 * (attempt + 1))  # inside the worker: its slot stays taken
        return ""

    def generate_until(self, requests_: list[Any], disable_tqdm: bool = False) -> list[Any]:
        with ThreadPoolExecutor(max_workers=8) as pool:
            return list(pool.map(self._one, [r.args for r in requests_]))

    def loglikelihood(self, requests_: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError

    def loglikelihood_rolling(self, requests_: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError


@contextmanager
def forwarding_proxy(upstream: str, timeout_s: float = 120.0) -> Iterator[str]:
    """The grader's MMLU-Pro proxy: body bytes forwarded unchanged; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            req = urllib.request.Request(
                upstream, data=body, headers={"Content-Type": "application/json"}
            )
            try:
                with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                    result = resp.read()
            except (OSError, ValueError) as err:  # urllib's HTTPError is an OSError
                err_body = json.dumps({"error": str(err)}).encode()
                self.send_response(500)
                self.send_header("Content-Length", str(len(err_body)))
                self.end_headers()
                self.wfile.write(err_body)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(result)))
            self.send_header("Connection", "keep-alive")
            self.end_headers()
            self.wfile.write(result)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def ping(base_url: str, path: str = "/ping") -> None:
    """The grader's one readiness request before its benchmarks."""
    urllib.request.urlopen(base_url.rstrip("/") + path, timeout=5).read()


def grader_score(out: dict[str, Any], bench: Benchmark) -> float | None:
    """The grader's number: MMLU-Pro the mean of its subjects, others the task's metric; round 4."""
    results = out.get("results", {})
    if bench.aggregate == "mean_of_subtasks":
        values = [
            v[bench.metric]
            for k, v in results.items()
            if k.startswith(bench.task + "_")
            and isinstance(v, dict)
            and v.get(bench.metric) is not None
        ]
        return round(sum(values) / len(values), 4) if values else None
    value = results.get(bench.task, {}).get(bench.metric)
    return round(float(value), 4) if value is not None else None


def run_benchmark(
    profile: Profile,
    bench: Benchmark,
    base_url: str,
    task_manager: Any,
    limit: float | None,
    override: int | None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[dict[str, Any], float]:
    """lm-eval's output dict and the wall time of one benchmark, as the grader runs it."""
    spec = profile.require_quality()
    url = base_url.rstrip("/") + spec.endpoint
    common: dict[str, Any] = dict(
        tasks=[bench.task],
        num_fewshot=bench.num_fewshot,
        batch_size=1,
        limit=bench.num_docs if bench.num_docs is not None else limit,  # Paris: --limit 200
        random_seed=spec.random_seed,
        numpy_random_seed=spec.numpy_random_seed,
        torch_random_seed=spec.torch_random_seed,
        task_manager=task_manager,
        log_samples=True,
    )
    started = time.perf_counter()
    if bench.client == "local-chat-completions":
        model_args: dict[str, Any] = {
            "model": profile.server.model,
            "num_concurrent": spec.num_concurrent,
            "tokenized_requests": False,
            "timeout": int(spec.mmlu_timeout_s),
        }
        gen: dict[str, Any] = {}
        if bench.top_p is not None:  # Paris: the CLI's --gen_kwargs temperature=0,top_p=1.0
            gen = {"temperature": 0, "top_p": bench.top_p}
        if override:
            gen["max_gen_toks"] = override  # NON-OFFICIAL, as harness applies it
        if spec.endpoint == "/v1/chat/completions":  # Paris: lm-eval talks to the server
            out = simple_evaluate(
                model="local-chat-completions",
                model_args={**model_args, "base_url": url},
                apply_chat_template=True,
                gen_kwargs=gen or None,
                **common,
            )
        else:  # Efficient Qwen: through the proxy that forwards to the quality endpoint
            with forwarding_proxy(url, timeout_s=spec.mmlu_timeout_s) as proxy:
                out = simple_evaluate(
                    model="local-chat-completions",
                    model_args={
                        **model_args,
                        "base_url": proxy + "/v1/chat/completions",
                        "eos_string": spec.eos_string,
                    },
                    apply_chat_template=True,
                    gen_kwargs=gen or None,
                    **common,
                )
    else:
        cap = spec.cap_thinking_on if bench.thinking else spec.cap_thinking_off
        lm = GraderStyleLM(url, bench.thinking, cap, override, sleep=sleep)
        out = simple_evaluate(model=lm, **common)
    return out, time.perf_counter() - started
