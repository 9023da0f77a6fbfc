"""Attribution against the simulator's /metrics: deterministic prefix-cache counts per bucket."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.attribution import build_section
from harness.client.fingerprint import take_fingerprint
from harness.client.metrics import MetricsRecorder
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.runner import LatencyState, run_latency
from harness.profiles import load_profile
from harness.simulate.metrics import ENGINE_NAME
from harness.target import Target
from harness.tokenizer import load_tokenizer
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(120)

SPEC = load_profile().require_latency()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
SHORT_MEDIUM = tuple(b.model_copy(update={"max_tokens": 4}) for b in SPEC.buckets[:2])


def cfg_for(url: str, mode: str) -> LatencyConfig:
    overrides = LatencyOverrides(mode=mode, runs=3, warmup=1, calibrate=False, timeout_s=10)  # type: ignore[arg-type]
    cfg = from_profile(load_profile(), Target(folder=Path("."), url=url), overrides)
    return replace(cfg, buckets=SHORT_MEDIUM)


async def test_official_vs_strict_prefix_cache_from_simulator_counters(simulator):
    sim = await simulator(ttft_ms=1, itl_ms=0.5, prefix_cache=True)
    rec = MetricsRecorder(sim.url)
    await run_latency(cfg_for(sim.url, "both"), TOK, LatencyState(), hook=rec.bucket_hook)
    sec = build_section(rec.pairs, rec.notes)
    short_off = sec.get("official", "short")
    medium_off = sec.get("official", "medium")
    assert short_off is not None and medium_off is not None
    # the filler is 61 / 2041 tokens; 4 identical requests: 3 of them hit every whole
    # 16-token block of the first one (48 / 2032 tokens); the first medium request already
    # finds the short filler's 48 tokens (the same sentence repeated)
    assert (short_off.prefix_queried_tokens, short_off.prefix_hit_tokens) == (244.0, 144.0)
    assert (medium_off.prefix_queried_tokens, medium_off.prefix_hit_tokens) == (8164.0, 6144.0)
    strict_short = sec.get("strict", "short")
    strict_medium = sec.get("strict", "medium")
    assert strict_short is not None and strict_medium is not None
    assert strict_short.prefix_queried_tokens == 4 * 64.0
    assert strict_medium.prefix_queried_tokens == 4 * 2048.0
    assert strict_medium.prefix_hit_rate is not None
    assert medium_off.prefix_hit_rate is not None
    assert medium_off.prefix_hit_rate > strict_medium.prefix_hit_rate
    assert sec.sentences[1].startswith(
        "medium bucket: 75 % of prompt tokens from the prefix cache on the repeated filler, "
    )
    assert sec.notes == []


async def test_absent_metrics_is_one_note(simulator):
    sim = await simulator(ttft_ms=1, itl_ms=0.5, disable_route=["/metrics"])
    rec = MetricsRecorder(sim.url)
    state = LatencyState()
    await run_latency(cfg_for(sim.url, "strict"), TOK, state, hook=rec.bucket_hook)
    sec = build_section(rec.pairs, rec.notes)
    assert sec.items == []
    assert sec.notes[0] == "GET /metrics answered HTTP 404: no attribution from server counters"
    # the engine is unknown: the hint names each engine's flag that turns /metrics on
    assert sec.notes[1].startswith("to turn /metrics on: SGLang: start the server with --enable-")
    assert "llama.cpp: start llama-server with --metrics" in sec.notes[1] and len(sec.notes) == 2
    assert len([e for e in sim.log if e.path == "/metrics"]) == 1  # asked once, then stopped
    assert len(state.rows) == 2 * 4


async def test_disabled_recorder_sends_nothing(simulator):
    sim = await simulator(ttft_ms=1, itl_ms=0.5)
    rec = MetricsRecorder(sim.url, enabled=False)
    await run_latency(cfg_for(sim.url, "official"), TOK, LatencyState(), hook=rec.bucket_hook)
    assert not [e for e in sim.log if e.path == "/metrics"]
    assert rec.pairs == {} and rec.notes == []


async def test_fingerprint_of_the_simulator(simulator):
    sim = await simulator(ttft_ms=1, itl_ms=0.5, max_model_len=9000)
    fp = await take_fingerprint(sim.url)
    assert fp.engine == ENGINE_NAME
    assert fp.max_model_len == 9000
    assert fp.models == list(sim.cfg.models)
    assert fp.note is None


# The simulator in each engine's dialect (--engine): the same requests, the same cache, so
# the same share; each engine's names, and what it lacks said by name.
LACKS = {
    "vllm": [],
    "sglang": ["SGLang counts retractions (num_retracted_reqs), which harness does not read"],
    "llamacpp": [
        "llama.cpp serves no preemption counter",
        "llama.cpp serves no KV-cache usage gauge on /metrics",
    ],
}


@pytest.mark.parametrize("dialect", ["sglang", "llamacpp"])
async def test_attribution_in_each_engines_dialect(simulator, dialect):
    sim = await simulator(ttft_ms=1, itl_ms=0.5, prefix_cache=True, dialect=dialect)
    rec = MetricsRecorder(sim.url)
    await run_latency(cfg_for(sim.url, "official"), TOK, LatencyState(), hook=rec.bucket_hook)
    sec = build_section(rec.pairs, rec.notes)
    short = sec.get("official", "short")
    assert short is not None and sec.engine == dialect and short.engine == dialect
    # as on vLLM's names (the first test): 144 of 244 prompt tokens from the cache; llama.cpp
    # counts 100 computed + 144 cached, and attribution adds them back
    assert (short.prefix_lookups, short.prefix_hits, short.prefix_unit) == (244.0, 144.0, "tokens")
    assert short.prompt_tokens == 244.0
    assert sec.notes == LACKS[dialect]


def test_latency_command_on_llamacpp_names(sim_process, tmp_path):
    sp = sim_process(ttft_ms=1, itl_ms=0.5, prefix_cache=True, dialect="llamacpp")
    args = ["latency", "--url", sp.url, "--mode", "official", "--runs", "3", "--warmup", "0"]
    args += ["--buckets", "short", "--metrics", "on", "--no-calibrate", "--out", str(tmp_path)]
    wrong = run_harness([*args, "--engine", "llama.cpp"], reports=tmp_path)
    assert wrong.rc == 2 and "invalid choice: 'llama.cpp'" in wrong.stderr
    got = run_harness([*args, "--engine", "llamacpp"], reports=tmp_path)
    assert got.rc == 0, got.stderr
    report = json.loads(next(tmp_path.rglob("latency.json")).read_text())
    # official mode asks the server nothing beyond the grader's requests: --engine names it
    server = report["provenance"]["server"]
    assert (server["engine"], server["engine_source"], server["taken"]) == (
        "llamacpp",
        "--engine",
        False,
    )
    att = report["attribution"]
    assert att["engine"] == "llamacpp" and att["items"][0]["prefix_unit"] == "tokens"
    assert "llama.cpp serves no preemption counter" in att["notes"]
    # llama.cpp keeps no e2e histogram: no server-side mean in the network estimate
    assert all(b.get("server_mean_ms") is None for b in report["network"]["buckets"])


async def test_fingerprint_of_a_server_speaking_llamacpp(tmp_path):
    """A server on port 0 answering as llama-server does (tests/fixtures/engines): its
    /metrics names name the engine, its /props the build; /version is a 404 there."""
    from aiohttp import web

    fixtures = Path(__file__).parents[1] / "fixtures" / "engines"
    props = json.loads((fixtures / "routes.json").read_text())["llamacpp"]["answers"]["/props"]
    asked: list[str] = []

    @web.middleware
    async def log(request: web.Request, handler: Any) -> web.StreamResponse:
        asked.append(request.path)  # every GET, the 404s included
        return await handler(request)

    app = web.Application(middlewares=[log])

    async def metrics(request: web.Request) -> web.Response:
        return web.Response(text=(fixtures / "llamacpp.prom").read_text())

    async def answer(request: web.Request) -> web.Response:
        if request.path == "/props":
            return web.json_response(props)
        return web.json_response({"data": [{"id": "m", "owned_by": "llamacpp"}]})

    app.add_routes([web.get("/metrics", metrics), web.get("/props", answer)])
    app.add_routes([web.get("/v1/models", answer)])
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        fp = await take_fingerprint(f"http://127.0.0.1:{port}")
    finally:
        await runner.cleanup()
    assert (fp.engine, fp.version, fp.engine_source) == ("llamacpp", "b6000-abc1234", "GET /props")
    assert fp.models == ["m"] and fp.note == "GET /version: HTTP 404"
    # its own info route only, not every engine's
    assert sorted(asked) == ["/metrics", "/props", "/v1/models", "/version"]
