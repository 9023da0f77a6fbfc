"""The command-level tables across the engines' dialects (docs/engines.md, "What each command
tells on each engine"): ``check``, ``throughput``, ``audit`` and the manifest, in-process,
against one ``harness simulate --engine DIALECT`` per dialect (module scope), tiny settings.

Each dialect's simulator serves its engine's own metric names (harness/simulate/metrics.py);
the commands read them through the engine record (harness/engines/). So a command that still
read vLLM's names, or an engine record missing a signal the engine serves, fails here; and
what an engine lacks is said by name, never passed off as zero.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.profiles import load_profile
from harness.simulate import make_config
from harness.simulate.config import DIALECTS
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
}
# the request counter the audit's counter evidence reads (None: the engine has none)
REQUESTS: dict[str, str | None] = {
    "vllm": "vllm:request_success_total",
    "sglang": "sglang:num_requests_total",
    "llamacpp": None,
}


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
    assert c1["prompt_tokens"] == c2["prompt_tokens"] == c1["prefix_lookups"] > 0
    assert c1["generation_tokens"] == 2 * 1024 and c1["prefix_unit"] == "tokens"
    assert c2["prefix_hits"] > 0 and c2["prefix_unit"] == "tokens"
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
