"""`harness latency --metrics` end to end on a simulator process: what is scraped, and when."""

from __future__ import annotations

import json

import pytest

from harness.cli import main
from harness.conformance.report import CheckReport
from harness.latency.report import LatencyReport
from harness.throughput.report import ThroughputReport

pytestmark = pytest.mark.timeout(180)


def _latency(url: str, out, *extra: str) -> LatencyReport:
    argv = ["latency", "--url", url, "--buckets", "short", "--runs", "2", "--warmup", "1"]
    code = main([*argv, "--no-calibrate", "--out", str(out), "--quiet", *extra])
    assert code == 0
    return LatencyReport.load(out)


def test_official_mode_sends_only_the_grader_requests_by_default(sim_process, tmp_path) -> None:
    sp = sim_process(ttft_ms=1.0, itl_ms=0.05, prefix_cache=True)
    rep = _latency(sp.url, tmp_path / "off")
    paths = [e.path for e in sp.fetch_log()]
    last = max(i for i, p in enumerate(paths) if p == "/invocations")
    # up to the last timed request only the grader's requests and the round-trip probes
    # between buckets (GET /ping; docs/timing.md, "Network"); after it the last probes, then
    # the manifest in a separate step (docs/manifest.md)
    assert set(paths[: last + 1]) <= {"/ping", "/invocations"}
    tail = paths[last + 1 :]
    manifest = {"/version", "/v1/models", "/metrics", "/server_info"}
    manifest |= {"/props", "/info", "/get_server_info"}  # the engines' own (docs/engines.md)
    first_manifest = min(i for i, p in enumerate(tail) if p in manifest)
    assert set(tail[:first_manifest]) == {"/ping"}
    assert set(tail[first_manifest:]) == manifest
    assert json.loads((tmp_path / "off" / "manifest.json").read_text())["taken"] == "separate step"
    assert rep.provenance.server is not None and not rep.provenance.server.taken
    assert rep.provenance.server.note == (
        "not taken: official mode sends only the grader's requests"
    )
    assert rep.attribution is not None and rep.attribution.items == []
    assert rep.attribution.notes[0].startswith("/metrics not scraped (--metrics auto)")


def test_both_modes_scrape_and_fingerprint(sim_process, tmp_path) -> None:
    sp = sim_process(ttft_ms=1.0, itl_ms=0.05, prefix_cache=True, max_model_len=20000)
    rep = _latency(sp.url, tmp_path / "both", "--mode", "both")
    server = rep.provenance.server
    assert server is not None and server.taken
    assert (server.engine, server.max_model_len) == ("harness-simulate", 20000)
    att = rep.attribution
    assert att is not None
    official, strict = att.get("official", "short"), att.get("strict", "short")
    assert official is not None and strict is not None
    # 3 identical 61-token fillers: 2 of them hit 48 tokens; 3 unique 64-token prompts
    assert (official.prefix_queried_tokens, official.prefix_hit_tokens) == (183.0, 96.0)
    assert strict.prefix_queried_tokens == 192.0
    assert att.sentences[0].startswith("short bucket: 52 % of prompt tokens from the prefix cache")
    # scrapes happen around buckets only: 2 modes x (start, end), none between requests
    # + the fingerprint's and the manifest's
    assert sum(e.path == "/metrics" for e in sp.fetch_log()) == 4 + 1 + 1


def test_metrics_on_in_official_mode(sim_process, tmp_path) -> None:
    sp = sim_process(ttft_ms=1.0, itl_ms=0.05, prefix_cache=True)
    rep = _latency(sp.url, tmp_path / "on", "--metrics", "on")
    assert rep.attribution is not None and rep.attribution.get("official", "short") is not None
    assert rep.provenance.server is not None and not rep.provenance.server.taken


def test_throughput_strict_levels_are_attributed(sim_process, tmp_path) -> None:
    sp = sim_process(output_tokens=6, prefix_cache=True)
    out = tmp_path / "tp"
    argv = ["throughput", "--profile", "gpumode-paris", "--url", sp.url, "--levels", "1,2"]
    argv += ["--requests-per-level", "3", "--prompt-tokens", "32", "--max-tokens", "16"]
    argv += ["--seed", "9", "--ready-interval", "0.2", "--no-chart", "--out", str(out)]
    main([*argv, "--mode", "strict", "--quiet"])  # the exit code is the spot checks' business
    rep = ThroughputReport.load(out)
    att = rep.attribution
    assert att is not None and [a.name for a in att.items] == ["c=1", "c=2"]
    assert all(a.mode == "throughput" for a in att.items)
    # every request of a level is counted: its prompt tokens are the server's queries
    for a, level in zip(att.items, (1, 2), strict=True):
        rows = [r for r in rep.requests if r.level == level and r.server_prompt_tokens]
        assert a.prefix_queried_tokens == sum(r.server_prompt_tokens or 0 for r in rows)
    assert [s.split(":")[0] for s in att.sentences] == ["c=1", "c=2"]


def test_check_records_the_server_fingerprint(sim_process, tmp_path) -> None:
    sp = sim_process(ttft_ms=1.0, max_model_len=12345)
    code = main(
        ["check", "--url", sp.url, "--only", "readiness", "--out", str(tmp_path), "--quiet"]
    )
    assert code == 0
    server = CheckReport.load(tmp_path).provenance.server
    assert server is not None and server.taken
    assert (server.engine, server.max_model_len) == ("harness-simulate", 12345)
    assert server.models == list(sp.cfg.models)
