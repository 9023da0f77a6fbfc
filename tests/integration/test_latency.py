"""harness latency against the built-in simulator (port 0): procedure, timings, faults."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from harness.latency.analysis import build_report
from harness.latency.config import LatencyConfig
from harness.latency.report import LatencyReport
from harness.latency.runner import LatencyState, run_latency
from harness.profiles import Bucket, load_profile
from harness.prompts import official_filler
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.tokenizer import load_tokenizer
from tests.fixtures.configs import latency_config
from tests.fixtures.signals import SIGINT_DEFAULT, SIGINT_IGNORED, interruptible
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(120)

PROFILE = load_profile()
SPEC = PROFILE.require_latency()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")


def small_buckets(max_tokens: int = 8) -> tuple[Bucket, ...]:
    return tuple(b.model_copy(update={"max_tokens": max_tokens}) for b in SPEC.buckets)


def cfg_for(url: str, *, buckets: tuple[Bucket, ...] | None = None, **kw) -> LatencyConfig:
    """The profile's procedure with small buckets (answers of a few tokens) and overrides."""
    base = dict(runs=4, warmup=2, calibrate=False, timeout_s=10.0)
    return latency_config(url, buckets or small_buckets(), **{**base, **kw})


async def test_official_procedure_matches_the_grader(simulator):
    sim = await simulator(ttft_ms=5, itl_ms=1)
    cfg = cfg_for(sim.url)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    log = [e for e in sim.log if e.path == "/invocations"]
    # 3 buckets × (2 warm-up + 4 timed), strictly sequential, all to /invocations
    assert len(log) == 18
    for entry, bucket in zip(log[::6], SPEC.buckets, strict=True):
        assert entry.body == {
            "prompt": official_filler(SPEC, bucket.prompt_tokens),
            "max_tokens": 8,
            "temperature": 0.0,
        }
    # the same text for every request of a bucket
    assert len({e.body["prompt"] for e in log[:6]}) == 1
    # a new TCP connection per request, as the grader's requests.post does
    assert all(e.conn_request_index == 0 for e in log)
    assert len({e.conn_id for e in log}) == 18
    # strictly one at a time: each request arrives after the previous one ended
    for a, b in itertools.pairwise(log):
        assert b.arrival_ns >= a.end_ns
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert [b.prompt_tokens for b in rep.official] == [61, 2041, 8191]
    assert all(b.n_ok == 4 and b.n_failed == 0 for b in rep.official)
    assert rep.score is not None and rep.score == pytest.approx(
        sum(b.baseline_ms / b.median_ms for b in rep.official) / 3
    )
    assert [r.phase for r in rep.requests[:6]] == ["warmup"] * 2 + ["timed"] * 4


async def test_official_median_equals_configured_latency(simulator):
    # TTFT 40 ms + 7 more tokens at 5 ms: the last byte leaves at ~75 ms
    sim = await simulator(ttft_ms=40, itl_ms=5)
    cfg = cfg_for(sim.url, buckets=small_buckets(8)[:1], runs=8, warmup=1)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    truth = [(e.end_ns - e.arrival_ns) / 1e6 for e in sim.log if e.path == "/invocations"]
    med = rep.official[0].median_ms
    assert min(truth) >= 75.0 and med == pytest.approx(75.0, abs=12.0)


async def test_early_stop_is_flagged(simulator):
    sim = await simulator(ttft_ms=1, itl_ms=0, stop_early_at=3)
    cfg = cfg_for(sim.url, buckets=small_buckets(8)[:1])
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert rep.official[0].n_short_outputs == 4
    assert rep.official[0].output_tokens_mean == 3
    assert any(f.kind is FlagKind.EARLY_STOP for f in rep.flags)


async def test_strict_mode_timings_and_prompts(simulator):
    sim = await simulator(ttft_ms=30, itl_ms=4)
    buckets = small_buckets(16)[:2]
    cfg = cfg_for(sim.url, mode="strict", buckets=buckets, runs=5, warmup=1)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    log = [e for e in sim.log if e.path == "/v1/completions"]
    assert len(log) == 12
    prompts = [e.body["prompt"] for e in log]
    assert len(set(prompts)) == 12  # unique prompts
    for e, n in zip(log, [64] * 6 + [2048] * 6, strict=True):
        assert e.body["stream"] is True and e.body["stream_options"] == {"include_usage": True}
        assert e.prompt_tokens == n  # exact length, verified by the server's count
        assert "ignore_eos" not in e.body
    for b in rep.strict:
        assert b.n_prompt_mismatch == 0 and b.n_usage_mismatch == 0
        assert b.ttft.median == pytest.approx(30.0, abs=8.0)
        assert b.tpot.median == pytest.approx(4.0, abs=1.0)
        assert b.itl.median == pytest.approx(4.0, abs=1.0)
        assert b.output_tokens_mean == 16


async def test_force_length_and_concurrency(simulator):
    sim = await simulator(ttft_ms=10, itl_ms=1)
    cfg = cfg_for(
        sim.url,
        mode="strict",
        buckets=small_buckets(4)[:1],
        runs=8,
        warmup=0,
        concurrency=4,
        force_length=True,
    )
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    log = [e for e in sim.log if e.path == "/v1/completions"]
    assert all(e.body["ignore_eos"] is True and e.body["min_tokens"] == 4 for e in log)
    # four in flight: the first four arrive together, before any has finished
    first_end = min(e.end_ns for e in log)
    assert sum(1 for e in log if e.arrival_ns < first_end) == 4
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert rep.strict[0].dispatch_lag.n == 8


@pytest.mark.parametrize(
    ("knobs", "kind"),
    [
        ({"error_rate": 1.0, "error_status": 503}, "http_status"),
        ({"malformed_json_rate": 1.0}, "malformed_json"),
        ({"hang_rate": 1.0}, "timeout"),
    ],
)
async def test_official_faults_are_classified_and_the_run_completes(simulator, knobs, kind):
    sim = await simulator(ttft_ms=1, **knobs)
    cfg = cfg_for(sim.url, buckets=small_buckets()[:1], runs=2, warmup=1, timeout_s=1.0)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    b = rep.official[0]
    assert (b.n_ok, b.n_failed, b.n_warmup_failed) == (0, 2, 1)
    assert b.errors == {kind: 2}
    assert any(f.kind is FlagKind.NO_DATA for f in rep.flags)


@pytest.mark.parametrize(
    ("knobs", "kind"),
    [({"drop_rate": 1.0}, "disconnected"), ({"malformed_sse_rate": 1.0}, "malformed_sse")],
)
async def test_strict_faults_are_classified(simulator, knobs, kind):
    sim = await simulator(ttft_ms=1, itl_ms=1, **knobs)
    cfg = cfg_for(sim.url, mode="strict", buckets=small_buckets()[:1], runs=2, warmup=0)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert rep.strict[0].errors == {kind: 2}


def harness_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args]


async def test_failed_requests_keep_status_and_answer(simulator):
    """A missing route (official) and an unserved model (strict): each failed row keeps the
    status and the server's answer; the failure flag says which, and what to do."""
    sim = await simulator(ttft_ms=1, itl_ms=0, disable_route=("/invocations",))
    cfg = cfg_for(sim.url, buckets=small_buckets()[:1], runs=2, warmup=0, mode="both", model="m9")
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert rep.requests and all(r.status == 404 and r.error_body for r in rep.requests)
    texts = [f.text for f in rep.flags if f.kind == FlagKind.REQUEST_FAILURES]
    assert texts == [
        "failures: 2 timed official short requests failed (http_status×2); first:"
        " http_status 404: HTTP 404 from /invocations: Not Found: /invocations — the server"
        " has no /invocations route: check --url and the profile's endpoint",
        "failures: 2 timed strict short requests failed (http_status×2); first:"
        " http_status 404: HTTP 404 from /v1/completions: The model `m9` does not exist. —"
        " the server does not serve the model 'm9': pass the name it serves with --model"
        " (GET /v1/models lists them)",
    ]


def test_cli_unreachable_exits_3_with_one_line(tmp_path):
    args = ["latency", "--url", "http://127.0.0.1:9", "--ready-timeout", "1"]
    answer = run_harness(
        [*args, "--ready-interval", "0.2", "--out", str(tmp_path)], reports=tmp_path
    )
    assert answer.rc == 3
    err = answer.stderr.strip().splitlines()[-1]
    assert err.startswith("harness: error: http://127.0.0.1:9/ping not ready") and "refused" in err


def test_cli_bad_flag_and_bad_bucket_exit_2(tmp_path):
    bad = run_harness(["latency", "--url", "http://x", "--runs", "-1"], reports=tmp_path)
    assert bad.rc == 2 and "--runs" in bad.stderr
    args = ["latency", "--url", "http://127.0.0.1:9", "--buckets", "huge", "--out", str(tmp_path)]
    bucket = run_harness(args, reports=tmp_path)
    assert bucket.rc == 2 and "valid buckets: short, medium, long" in bucket.stderr


def test_cli_json_and_report_file(sim_process, tmp_path):
    sp = sim_process(ttft_ms=2, itl_ms=0)
    args = ["latency", "--url", sp.url, "--runs", "3", "--warmup", "1", "--no-calibrate"]
    answer = run_harness([*args, "--json", "--out", str(tmp_path)], reports=tmp_path)
    assert answer.rc == 0, answer.stderr
    out = json.loads(answer.stdout)
    saved = json.loads((tmp_path / "latency.json").read_text())
    assert (
        out["score"] == saved["score"]
        and saved["schema_version"] == LatencyReport.SCHEMA_VERSION == 4
    )
    assert [b["name"] for b in saved["official"]] == ["short", "medium", "long"]
    assert {"median_ms", "speedup", "n_ok", "n_failed"} <= set(saved["official"][0])
    assert len(saved["requests"]) == 12
    # official mode sends only the grader's requests: no /v1/models, labelled
    assert saved["provenance"]["server_models"] == []
    assert saved["settings"]["server_models"].startswith("not taken: official mode")


def test_cli_ctrl_c_saves_partial_report(sim_process, tmp_path):
    sp = sim_process(ttft_ms=100, itl_ms=0)
    proc = interruptible(
        harness_cmd(
            "latency",
            "--url",
            sp.url,
            "--runs",
            "50",
            "--warmup",
            "0",
            "--no-calibrate",
            "--out",
            str(tmp_path),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    deadline = time.monotonic() + 30
    # one request at a time: once the 4th has arrived, the client has recorded the first 3
    # (an answered 3rd alone races the client's own bookkeeping on a loaded machine)
    while (
        time.monotonic() < deadline
        and len([e for e in sp.fetch_log() if e.path == "/invocations"]) < 4
    ):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    saved = json.loads((tmp_path / "latency.json").read_text())
    assert saved["complete"] is False
    assert len(saved["requests"]) >= 3
    assert "partial latency report saved" in err


@pytest.mark.parametrize("popen", [SIGINT_DEFAULT, SIGINT_IGNORED], ids=["fg", "background"])
def test_cli_sigterm_saves_partial_report(sim_process, tmp_path, popen):
    """SIGTERM (a scheduler's or `timeout`'s kill) takes Ctrl-C's path: exit 143, partial
    report saved; also when the run was started with SIGINT ignored (a background job)."""
    sp = sim_process(ttft_ms=100, itl_ms=0)
    proc = subprocess.Popen(
        harness_cmd(
            "latency", "--url", sp.url, "--runs", "50", "--warmup", "0", "--no-calibrate",
            "--out", str(tmp_path),
        ),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ), **popen,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while (
        time.monotonic() < deadline
        and len([e for e in sp.fetch_log() if e.path == "/invocations"]) < 4
    ):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    saved = json.loads((tmp_path / "latency.json").read_text())
    assert saved["complete"] is False and len(saved["requests"]) >= 3
    assert "partial latency report saved" in err
    assert "harness: terminated (SIGTERM)" in err


def test_cli_self_test_reports_both_ttft_errors(tmp_path):
    """`--self-test` against its own simulator process: every request matched with the
    log, the TTFT error from the handler start and from the bytes received."""
    proc = subprocess.run(
        harness_cmd("latency", "--self-test", "--concurrency", "4", "--runs", "16", "--json"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["requests_ok"] == 16 and res["requests_failed"] == 0
    assert res["ttft_error_ms"]["n"] == 16 and res["ttft_error_wire_ms"]["n"] == 16
    assert res["sim_queue_ms"]["min"] >= 0
    # from the bytes received the start is earlier, so the truth is longer and the error smaller
    assert res["ttft_error_wire_ms"]["median"] <= res["ttft_error_ms"]["median"]
    assert res["chunk_error_ms"]["n"] == 16 * 128
    # the console wraps to its width (80 columns without a terminal): words, not line breaks
    assert "from bytes received" in " ".join(proc.stderr.split())
