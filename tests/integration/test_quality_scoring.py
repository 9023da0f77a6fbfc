"""Exact scores through lm-eval, offline: a server that knows the sample answers.

The server answers MMLU-Pro and GPQA correctly (GPQA inside a think block, one
answer cut in its think block as if the budget ran out) and follows every IFEval
instruction, so the expected scores are known: 1.0, 1.0 and 4/5.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from harness.cli import main
from harness.data.layout import SAMPLES_DIR
from harness.data.punkt import has_punkt, write_punkt_tab
from harness.profiles import PROFILES_DIR
from harness.quality.report import QualityReport

pytestmark = pytest.mark.timeout(300)

IFEVAL_ANSWERS = {
    1001: "Hello neighbour. May I borrow your ladder this weekend? Thank you.",
    1002: "Rain taps on the roofs. The streets shine and people hurry to work.",
    1003: "bicycles take little space, make no noise and keep riders healthy.",
    1004: "* Water them weekly.\n* Give them bright light.\n* Use good soil.",
    1005: "The sea is wide. It is blue. Is there anything else I can help with?",
    1006: "This ceramic teapot is lovely. It pairs well with any kettle. It keeps tea warm.",
}


def _rows(rel: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (SAMPLES_DIR / rel).read_text().splitlines()]


class KnowingServer:
    """Answers from the sample files; runs in its own thread and event loop."""

    def __init__(self) -> None:
        self.mmlu = {r["question"]: r["answer"] for r in _rows("mmlu_pro/test.jsonl")}
        self.ifeval = {r["prompt"]: IFEVAL_ANSWERS[r["key"]] for r in _rows("ifeval/train.jsonl")}
        self.gpqa = {r["Question"]: r["Correct Answer"] for r in _rows("gpqa/gpqa_diamond.jsonl")}
        self.gsm8k = {
            r["question"]: r["answer"].split("####")[-1].strip() for r in _rows("gsm8k/test.jsonl")
        }
        self.bodies: list[dict[str, Any]] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.url = ""

    def answer(self, body: dict[str, Any]) -> tuple[str, str]:
        text = body["messages"][-1]["content"]
        if text in self.ifeval:
            return self.ifeval[text], "stop"
        for question, correct in self.gpqa.items():
            if question in text:
                if "mitosis" in question:  # the think budget ran out: no answer at all
                    return "<think>Let me consider each phase in turn, first", "length"
                letter = re.search(r"\(([A-D])\) " + re.escape(correct), text)
                assert letter
                return f"<think>It is {correct}.</think>The answer is ({letter.group(1)}).", "stop"
        for question, number in self.gsm8k.items():
            if question in text:
                return f"Adding up gives {number}. The answer is {number}.", "stop"
        for question, letter in self.mmlu.items():
            if f"Question:\n{question}\n" in text:
                return f"Let's think step by step. The answer is ({letter}).", "stop"
        raise AssertionError(f"unknown prompt: {text[:80]}")

    async def chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        text, finish = self.answer(body)
        if not body.get("stream"):
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish,
            }
            return web.json_response({"choices": [choice], "usage": {"completion_tokens": 7}})
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for piece in (text[:10], text[10:]):
            event = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            await resp.write(f"data: {json.dumps(event)}\n\n".encode())
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
        await resp.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        return resp

    async def models(self, request: web.Request) -> web.Response:
        return web.json_response({"data": [{"id": "Qwen/Qwen3.5-4B"}]})

    async def ping(self, request: web.Request) -> web.Response:
        return web.Response(text="")

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/invocations", self.chat)
        app.router.add_get("/v1/models", self.models)
        app.router.add_get("/ping", self.ping)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = self.runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> KnowingServer:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.runner is not None
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture
def server() -> Iterator[KnowingServer]:
    with KnowingServer() as srv:
        yield srv


def test_exact_scores_offline_with_streamed_gpqa(server: KnowingServer, tmp_path: Path):
    nltk = tmp_path / "nltk"
    write_punkt_tab(nltk)
    out = tmp_path / "run"
    rc = main(
        [
            "quality",
            "--url",
            server.url,
            "--data-dir",
            str(SAMPLES_DIR),
            "--nltk-data",
            str(nltk),
            "--out",
            str(out),
            "--limit",
            "1.0",
            "--stream",
            "--quiet",
        ]
    )
    report = QualityReport.load(out)
    by = {b.name: b for b in report.benchmarks}
    assert by["mmlu_pro"].score == 1.0 and by["mmlu_pro"].n == 28
    assert set(by["mmlu_pro"].subtasks.values()) == {1.0}
    assert by["ifeval"].score == 1.0 and by["ifeval"].n == 6  # scored offline with our punkt_tab
    assert by["ifeval"].other_metrics["prompt_level_strict_acc,none"] == 1.0
    gpqa = by["gpqa_diamond"]
    assert gpqa.score == pytest.approx(0.8) and gpqa.n == 5 and gpqa.stream
    assert gpqa.thinking_stats is not None
    assert gpqa.thinking_stats.lost_to_budget == 1 and gpqa.thinking_stats.extracted == 4
    assert [b.get("stream") for b in server.bodies[-5:]] == [True] * 5
    assert report.non_official["stream"] is True and not report.official
    assert (by["mmlu_pro"].passed, by["ifeval"].passed, gpqa.passed) == (True, True, True)
    assert rc == 0 and report.passed is True and report.complete
    lost = [
        json.loads(x)
        for x in (out / "samples_gpqa_diamond.jsonl").read_text().splitlines()
        if "mitosis" in x and '"flexible-extract"' in x
    ]
    assert lost[0]["finish_reason"] == "length" and lost[0]["correct"] == 0.0


def test_unreachable_server_exits_3_before_any_request(tmp_path: Path):
    nltk = tmp_path / "nltk"
    write_punkt_tab(nltk)
    rc = main(
        [
            "quality",
            "--url",
            "http://127.0.0.1:9",
            "--data-dir",
            str(SAMPLES_DIR),
            "--nltk-data",
            str(nltk),
            "--out",
            str(tmp_path / "run"),
            "--quiet",
        ]
    )
    assert rc == 3


def test_fresh_clone_needs_no_prepare_step(server: KnowingServer, tmp_path: Path, monkeypatch):
    """No --nltk-data, no `harness data prepare`: punkt_tab goes to the cache, not the repo."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(cache))
    out = tmp_path / "run"
    rc = main(
        [
            "quality",
            "--url",
            server.url,
            "--data-dir",
            str(SAMPLES_DIR),
            "--only",
            "ifeval",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    report = QualityReport.load(out)
    # the profile's QUALITY_LIMIT 0.1: the first ceil(0.1 * 6) = 1 document
    assert rc == 0 and report.benchmarks[0].score == 1.0 and report.benchmarks[0].n == 1
    assert has_punkt(cache / "nltk_data")
    assert not (SAMPLES_DIR / "nltk_data").exists()


GSM8K_BENCHMARK = """
[[quality.benchmarks]]
name = "gsm8k"
title = "GSM8K"
task = "gsm8k_cot"
num_fewshot = 8
thinking = false
client = "local-chat-completions"
metric = "exact_match,flexible-extract"
aggregate = "task"
threshold = 0.875
num_docs = 4
top_p = 1.0

[package]"""


def test_a_gsm8k_benchmark_is_just_a_profile(server: KnowingServer, tmp_path: Path):
    text = (PROFILES_DIR / "efficient-qwen.toml").read_text()
    start, end = text.index("[[quality.benchmarks]]"), text.index("[package]")
    profile = tmp_path / "gsm8k.toml"
    profile.write_text(text[:start] + GSM8K_BENCHMARK.strip() + text[end + len("[package]") :])
    out = tmp_path / "run"
    rc = main(
        [
            "quality",
            "--url",
            server.url,
            "--data-dir",
            str(SAMPLES_DIR),
            "--profile",
            str(profile),
            "--out",
            str(out),
            "--quiet",
        ]
    )
    report = QualityReport.load(out)
    gsm = report.benchmarks[0]
    assert (rc, gsm.score, gsm.n, gsm.passed) == (0, 1.0, 4, True)  # num_docs: an integer limit
    assert all(b["top_p"] == 1.0 for b in server.bodies)
    assert len(server.bodies) == 4 and server.bodies[0]["stop"] == ["Q:", "</s>", "<|im_end|>"]
