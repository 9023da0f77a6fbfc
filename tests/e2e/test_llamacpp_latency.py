"""``harness latency`` against llama.cpp's own ``llama-server``: official and strict, and
attribution from its ``llamacpp:`` counters.

One run, ``--mode both`` on the short bucket (3 timed requests and 1 warm-up a mode, 128
tokens at most: ~5 s on 2 cores), read by every test here. Official mode posts the
grader's completion body to ``/v1/completions`` (the profile's ``[latency] endpoint``:
llama-server has no ``/invocations``) through the grader's urllib client; strict mode
streams unique prompts there. Only what is deterministic is asserted: counts, fields,
token counts from the server's own usage.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.latency.report import LatencyReport
from tests.fixtures.llama_server import LlamaServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

RUNS = 3


@pytest.fixture(scope="module")
def llamacpp_latency(
    llama_server: LlamaServer, llamacpp_profile: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[int, Path]:
    out = tmp_path_factory.mktemp("llamacpp_latency") / "run"
    argv = ["latency", "--url", llama_server.url, "--profile", str(llamacpp_profile)]
    argv += ["--mode", "both", "--buckets", "short", "--runs", str(RUNS), "--warmup", "1"]
    code = main([*argv, "--no-calibrate", "--out", str(out), "--quiet"])
    return code, out


def test_official_and_strict_latency_run_on_llama_server(
    llamacpp_latency: tuple[int, Path], llama_server: LlamaServer
) -> None:
    code, out = llamacpp_latency
    assert code == 0
    rep = LatencyReport.load(out)
    assert rep.mode == "both"
    for mode, buckets in (("official", rep.official), ("strict", rep.strict)):
        (short,) = buckets
        assert short.name == "short" and short.mode == mode
        assert short.endpoint == "/v1/completions"
        assert (short.n_ok, short.n_failed, short.n_warmup_failed) == (RUNS, 0, 0), short.errors
        assert short.median_ms is not None and short.median_ms > 0
        assert short.output_tokens_min is not None and 0 < short.output_tokens_min <= 128
    # the official prompt is one filler, the strict ones unique: one prompt length each way
    rows = [r for r in rep.requests if r.phase == "timed"]
    assert {r.mode for r in rows} == {"official", "strict"} and len(rows) == 2 * RUNS
    assert all(r.status == 200 for r in rows)
    official = [r for r in rows if r.mode == "official"]
    assert len({r.output_tokens for r in official}) == 1  # greedy, the same filler each time
    assert rep.score is not None and rep.strict_score is not None
    server = rep.provenance.server
    assert server is not None and server.taken
    assert llama_server.model in server.models


def test_attribution_reads_llamacpp_counters(llamacpp_latency: tuple[int, Path]) -> None:
    """``--mode both`` scrapes ``/metrics`` around each bucket: llama-server's counters
    (``llamacpp:prompt_tokens_total`` leaves out cached tokens,
    ``llamacpp:prompt_tokens_cached_total`` counts them, ``llamacpp:tokens_predicted_total``)
    give the prompt and generated tokens and the prefix-cache hits."""
    _, out = llamacpp_latency
    rep = LatencyReport.load(out)
    att = rep.attribution
    assert att is not None and att.engine == "llamacpp", att
    # what llama.cpp lacks is said, once each (harness/engines/llamacpp.py); nothing else
    assert sorted(att.notes) == [
        "llama.cpp serves no KV-cache usage gauge on /metrics",
        "llama.cpp serves no preemption counter",
    ], att.notes
    for mode in ("official", "strict"):
        a = att.get(mode, "short")
        assert a is not None and a.note is None, (mode, a)
        assert a.generation_tokens and a.generation_tokens > 0
        assert a.prompt_tokens and a.prompt_tokens > 0
    official = att.get("official", "short")
    # 4 requests of one filler: llama-server reuses the slot's cached prompt after the first
    assert official is not None and official.prefix_hit_tokens and official.prefix_hit_tokens > 0
