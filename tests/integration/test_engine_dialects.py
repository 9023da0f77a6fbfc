"""The command-level tables across the engines' dialects (docs/engines.md, "What each command
tells on each engine"): ``check``, ``throughput``, ``audit`` and the manifest, in-process,
against one ``harness simulate --engine DIALECT`` per dialect (module scope), tiny settings.

Each dialect's simulator serves its engine's own metric names (harness/simulate/metrics.py);
the commands read them through the engine record (harness/engines/). So a command that still
read vLLM's names, or an engine record missing a signal the engine serves, fails here; and
what an engine lacks is said by name, never passed off as zero. LMDeploy's, TGI's and
mistral.rs's dialects are written from their records: every name they serve is checked
against that engine's real exposition (tests/fixtures/engines), so a wrong name in a record
fails here too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.client.metrics import parse_exposition
from harness.profiles import load_profile
from harness.simulate import make_config
from harness.simulate.config import DIALECTS
from harness.simulate.metrics import SimCounters, exposition
from harness.simulate.process import SimProcess
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(120)

MODEL = load_profile("gpumode-paris").server.model
PARIS = ("--profile", "gpumode-paris", "--quiet")

# What attribution says each engine lacks among the signals the simulator moves (no
# speculative decoding is simulated: its counters are said by none)
LACKS: dict[str, list[str]] = {
    "vllm": [],
    "sglang": ["SGLang counts retractions (num_retracted_reqs), which harness does not read"],
    "llamacpp": [
        "llama.cpp serves no preemption counter",
        "llama.cpp serves no KV-cache usage gauge on /metrics",
    ],
    "lmdeploy": ["LMDeploy serves no preemption counter"],
    "tgi": [
        "TGI serves no prefix-cache metric",
        "TGI counts speculated tokens per request only (tgi_request_skipped_tokens)",
        "TGI serves no preemption counter",
        "TGI serves no KV-cache usage gauge",
    ],
    "mistralrs": [],
}
# the unit the engine counts prefix-cache use in (None: it keeps no prefix-cache metric)
PREFIX_UNIT: dict[str, str | None] = {
    "vllm": "tokens",
    "sglang": "tokens",
    "llamacpp": "tokens",
    "lmdeploy": "tokens",
    "tgi": None,
    "mistralrs": "sequences",
}
# the request counter the audit's counter evidence reads (None: the engine has none)
REQUESTS: dict[str, str | None] = {
    "vllm": "vllm:request_success_total",
    "sglang": "sglang:num_requests_total",
    "llamacpp": None,
    "lmdeploy": "lmdeploy:request_success_total",
    "tgi": "tgi_request_success_total",
    "mistralrs": "mistralrs_sequences_completed_total",
}
FIXTURES = Path(__file__).parents[1] / "fixtures" / "engines"


@pytest.fixture(scope="module", params=DIALECTS)
def dialect_sim(request: pytest.FixtureRequest) -> Iterator[tuple[str, SimProcess]]:
    """One simulator per dialect for the whole module (a separate process: the commands run
    in-process with their own event loop)."""
    dialect = request.param
    cfg = make_config(
        models=[MODEL], ttft_ms=1, itl_ms=0.02, prefix_cache=True, dialect=dialect, seed=3
    )
    sp = SimProcess(cfg).start()
    try:
        yield dialect, sp
    finally:
        sp.stop()


@pytest.mark.parametrize("dialect", ["lmdeploy", "tgi", "mistralrs"])
def test_a_record_written_dialect_serves_only_the_engines_real_names(dialect):
    c = SimCounters()
    c.record(prompt_tokens=64, cached_tokens=48, generated=8)
    c.finished(0.5)
    served = parse_exposition(exposition(c, MODEL, make_config(dialect=dialect))).values
    real = parse_exposition((FIXTURES / f"{dialect}.prom").read_text()).values
    ours = {k for k in served if not k.startswith(("harness_sim", "process_start"))}
    assert len(ours) >= 4 and ours <= set(real), sorted(ours - set(real))


def _run(argv: list[str], out: Path) -> dict[str, Any]:
    got = run_harness([*argv, *PARIS, "--out", str(out)], reports=out.parent)
    assert got.rc == 0, got.stderr
    return {p.name: json.loads(p.read_text()) for p in out.glob("*.json")}


def test_check_passes_and_the_manifest_names_the_engine(dialect_sim, tmp_path):
    dialect, sp = dialect_sim
    docs = _run(["check", "--url", sp.url], tmp_path / "check")
    # no check blames an honest server in any engine's dialect
    assert {c["name"]: c["result"] for c in docs["check.json"]["checks"]} == {
        "readiness": "pass",
        "served_model": "pass",
        "chat_completions": "pass",
        "usage": "pass",
        "max_tokens": "pass",
        "thinking_off": "pass",
        "concurrency_64": "pass",
    }
    # the engine whose names /metrics carries, and each engine's own route asked
    settings, sources = docs["manifest.json"]["settings"], docs["manifest.json"]["sources"]
    assert settings["server.engine"] == dialect
    assert {"/props", "/info", "/get_server_info"} <= set(sources)


def test_throughput_attribution_in_the_engines_names(dialect_sim, tmp_path):
    dialect, sp = dialect_sim
    argv = ["throughput", "--url", sp.url, "--levels", "1,2", "--requests-per-level", "2"]
    argv += ["--warmup", "0", "--spot-checks", "0", "--no-chart", "--metrics", "on"]
    docs = _run(argv, tmp_path / "tp")
    att = docs["throughput.json"]["attribution"]
    assert att["engine"] == dialect and [i["name"] for i in att["items"]] == ["c=1", "c=2"]
    assert {i["engine"] for i in att["items"]} == {dialect}
    # prompt tokens counted the engine's way and added back to one total (llama.cpp's
    # prompt counter leaves the cached ones out); the second level finds the first's prompt
    # in the prefix cache, in tokens on every engine
    c1, c2 = att["items"]
    unit = PREFIX_UNIT[dialect]
    assert c1["prefix_unit"] == c2["prefix_unit"] == unit
    if unit == "tokens":
        assert c1["prompt_tokens"] == c2["prompt_tokens"] == c1["prefix_lookups"] > 0
        assert c1["generation_tokens"] == 2 * 1024
    if unit is not None:  # nothing cached at c=1; c=2 finds the same prompt in the cache
        assert c1["prefix_hits"] == 0 < c2["prefix_hits"] and c2["prefix_hit_rate"] > 0.9
    else:
        assert c2["prefix_hits"] is None and c2["prefix_hit_rate"] is None
    if unit == "sequences":  # mistral.rs: two requests, each one sequence; never tokens
        assert (c2["prefix_hits"], c2["prefix_lookups"]) == (2.0, 2.0)
        assert c2["prefix_queried_tokens"] is None and c2["prompt_tokens"] is None
    assert att["notes"] == LACKS[dialect]
    assert docs["manifest.json"]["settings"]["server.engine"] == dialect


def test_audit_counter_evidence_or_the_lack_named(dialect_sim, tmp_path):
    dialect, sp = dialect_sim
    docs = _run(["audit", "--url", sp.url, "--rounds", "2", "--seed", "7"], tmp_path / "au")
    rep = docs["audit.json"]
    # an honest dialect fails no rule (two rounds may leave one inconclusive)
    assert {r["rule"]: r["result"] != "fail" for r in rep["rules"]} == {
        "cached_answers": True,
        "benchmark_detection": True,
        "physically_possible": True,
    }
    cached = next(r for r in rep["rules"] if r["rule"] == "cached_answers")
    assert cached["result"] == "pass"
    counter = REQUESTS[dialect]
    if counter is not None:  # the engine's own request counter: every answer counted
        assert rep["counters"][counter] == rep["requests"] and rep["counters_note"] is None
        assert cached["evidence"]["requests_counted"] == rep["requests"]
    else:  # no request counter: the lack said by name, never read as zero answers
        assert rep["counters"] == {}
        assert rep["counters_note"].startswith("llama.cpp counts no answered requests")
        assert cached["evidence"]["counters"] == rep["counters_note"]
        assert "requests_counted" not in cached["evidence"]
    if PREFIX_UNIT[dialect] == "sequences":  # hits in the engine's unit, never as tokens
        assert "prefix_cache_hit_tokens" not in cached["evidence"]
        assert cached["evidence"]["prefix_cache_hits"].endswith(" sequences")
