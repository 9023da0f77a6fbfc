"""Official latency on the wire: harness sends the grader's exact requests, nothing more,
and turns the same answers into the same numbers (docs/timing.md, "Official mode on the wire").

The grader side is tests/wire/grader_latency.py (urllib + json.dumps, written from
the spec); both talk to the recording server in turn.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.client.readiness import wait_ready
from harness.client.urllib_client import GraderPoll
from harness.latency.analysis import build_report
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.metrics import bucket_result
from harness.latency.runner import NOT_TAKEN, LatencyState, run_latency
from harness.profiles import Bucket, load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.target import Target
from harness.tokenizer import load_tokenizer
from tests.fixtures.recording import Recorded, RecordingServer, Reply
from tests.wire import grader_latency

pytestmark = pytest.mark.timeout(60)

BUCKETS = (
    Bucket(name="short", prompt_tokens=64, max_tokens=128, baseline_ms=2582),
    Bucket(name="medium", prompt_tokens=2048, max_tokens=256, baseline_ms=5441),
    Bucket(name="long", prompt_tokens=8192, max_tokens=256, baseline_ms=6576),
)
GRADER_BUCKETS = [(b.name, b.prompt_tokens, b.max_tokens) for b in BUCKETS]
# urllib fixes these; Host and Content-Length follow from the URL and the body
FIXED_HEADERS = {
    "Accept-Encoding": "identity",
    "Content-Type": "application/json",
    "Connection": "close",
}


def latency_config(
    url: str, *, buckets: Any, warmup: int, runs: int, until_ci: float | None = None
) -> LatencyConfig:
    """The profile's official procedure, as the command builds it, over ``buckets``."""
    overrides = LatencyOverrides(mode="official", warmup=warmup, runs=runs, until_ci=until_ci)
    cfg = from_profile(load_profile(), Target(folder=Path("."), url=url), overrides)
    return replace(cfg, buckets=tuple(buckets))


def _harness(url: str, *, warmup: int, runs: int, until_ci: float | None = None) -> LatencyState:
    cfg = latency_config(url, buckets=BUCKETS, warmup=warmup, runs=runs, until_ci=until_ci)
    state = LatencyState()
    tok = load_tokenizer(cfg.tokenizer)

    async def go() -> None:
        await wait_ready(url, like_grader=GraderPoll("/ping", interval_s=0.05))
        await run_latency(cfg, tok, state)

    asyncio.run(go())
    return state


def _shape(reqs: list[Recorded]) -> list[tuple[str, str, bytes]]:
    return [(r.method, r.path, r.body) for r in reqs]


def test_official_latency_bytes_headers_and_order_equal_the_graders(recording_server):
    srv: RecordingServer = recording_server(text="<think>x</think> ok", compress=True)
    grader_latency.wait_for_container(srv.url, interval_s=0.05)
    grader_latency.run_latency(srv.url, GRADER_BUCKETS, warmup=2, runs=3)
    theirs = list(srv.requests)
    srv.clear()
    state = _harness(srv.url, warmup=2, runs=3)
    ours = list(srv.requests)

    # same requests, same order, byte-identical bodies; nothing extra (no /v1/models)
    assert _shape(ours) == _shape(theirs)
    assert len(ours) == 1 + 3 * (2 + 3)
    assert [r.path for r in ours].count("/v1/models") == 0
    assert ours[1].body.startswith(b'{"prompt": "The quick brown fox')
    for a, b in zip(ours, theirs, strict=True):
        assert sorted(a.headers) == sorted(b.headers)
    for rec in ours[1:]:
        for name, value in FIXED_HEADERS.items():
            assert rec.header(name) == value
        assert (rec.header("User-Agent") or "").startswith("Python-urllib/3.")
        assert rec.header("Content-Length") == str(len(rec.body))
    # a compressing server costs nothing: identity was asked for, every request succeeded
    assert all(r.ok for r in state.rows)
    assert state.server_models == [] and state.server_models_note == NOT_TAKEN


def test_until_ci_sends_the_graders_requests_only_fewer_of_them(recording_server):
    srv: RecordingServer = recording_server(text="<think>x</think> ok")
    grader_latency.wait_for_container(srv.url, interval_s=0.05)
    grader_latency.run_latency(srv.url, GRADER_BUCKETS, warmup=2, runs=14)
    theirs = list(srv.requests)
    srv.clear()
    # a target no interval can miss: every bucket stops at the first look (10 timed runs)
    state = _harness(srv.url, warmup=2, runs=14, until_ci=1e9)
    ours = list(srv.requests)

    # per bucket: the grader's warm-ups, then the first of its timed requests, byte for byte
    used = {b.name: sum(1 for r in state.rows if r.bucket == b.name) - 2 for b in BUCKETS}
    assert used == {"short": 10, "medium": 10, "long": 10}
    expected = theirs[:1]
    for i, b in enumerate(BUCKETS):
        block = theirs[1 + i * (2 + 14) : 1 + (i + 1) * (2 + 14)]
        expected += block[: 2 + used[b.name]]
    assert _shape(ours) == _shape(expected)
    for a, b in zip(ours, expected, strict=True):
        assert sorted(a.headers) == sorted(b.headers)
    assert [r.path for r in ours].count("/v1/models") == 0


def _mixed(rec: Recorded) -> Reply | None:
    """Answers cycling through what the grader counts as success and as failure."""
    if rec.method != "POST":
        return None
    n = _mixed.count  # type: ignore[attr-defined]
    _mixed.count += 1  # type: ignore[attr-defined]
    kind = n % 6
    if kind == 0:
        return None  # normal answer: success
    if kind == 1:
        return Reply(200, {"id": "x", "choices": []})  # success for the grader
    if kind == 2:
        return Reply(200, {"id": "x"})  # no choices key: success for the grader
    if kind == 3:
        return Reply(500, {"error": "boom"})  # HTTPError: failure
    if kind == 4:
        return Reply(200, b"not json", {"Content-Type": "application/json"})  # failure
    return Reply(200, {"choices": [{"text": None}]})  # the think-strip raises: failure


def test_success_rule_and_medians_equal_the_graders(recording_server):
    _mixed.count = 0  # type: ignore[attr-defined]
    srv: RecordingServer = recording_server(_mixed)
    buckets = [GRADER_BUCKETS[0]]
    theirs = grader_latency.run_latency(srv.url, buckets, warmup=0, runs=12)["short"]
    _mixed.count = 0  # type: ignore[attr-defined]
    cfg = latency_config(srv.url, buckets=BUCKETS[:1], warmup=0, runs=12)
    state = LatencyState()
    asyncio.run(run_latency(cfg, load_tokenizer(cfg.tokenizer), state))
    ours = [r for r in state.rows if r.phase == "timed"]
    assert sum(r.ok for r in ours) == len(theirs.latencies_ms) == 6
    assert sum(not r.ok for r in ours) == theirs.failures == 6
    assert sum(r.empty_choices for r in ours) == 4

    report = build_report(cfg, state, Provenance(), complete=True)
    (bucket,) = report.official
    assert any(
        f.kind is FlagKind.EMPTY_CHOICES
        and f.text.startswith("EMPTY-CHOICES: 4 timed official short")
        for f in report.flags
    )
    # the statistic: the grader's round(statistics.median(...), 2) over harness's own times
    ours_ms = [r.e2e_ms for r in ours if r.ok and r.e2e_ms is not None]
    assert bucket.median_ms is not None
    assert round(bucket.median_ms, 2) == round(statistics.median(ours_ms), 2)
    # and the grader's statistic over the grader's times equals harness's over the same list
    grader_rows = [
        r.model_copy(update={"e2e_ms": ms})
        for r, ms in zip([r for r in ours if r.ok], theirs.latencies_ms, strict=True)
    ]
    again = bucket_result(BUCKETS[0], grader_rows, mode="official", endpoint="/invocations")
    assert again.median_ms is not None and theirs.median_ms is not None
    assert round(again.median_ms, 2) == theirs.median_ms


def test_strict_client_asks_identity_and_survives_a_server_that_compresses_anyway(
    recording_server,
):
    import gzip
    import json

    from harness.client.http import HttpOptions, make_session, send_request
    from tests.fixtures.recording import default_reply

    def forced_gzip(rec: Recorded) -> Reply | None:
        if rec.method != "POST":
            return None
        body, headers = default_reply(rec, "compressed but fine").encoded()
        return Reply(200, gzip.compress(body), {**headers, "Content-Encoding": "gzip"})

    srv: RecordingServer = recording_server(forced_gzip)

    async def go() -> list[tuple[bool, str]]:
        out = []
        async with make_session(HttpOptions(timeout_s=10)) as s:
            for stream in (False, True):
                body = {"prompt": "hi", "max_tokens": 4, "stream": stream}
                rec = await send_request(s, srv.url + "/v1/completions", body)
                out.append((rec.ok, rec.text))
        return out

    assert asyncio.run(go()) == [(True, "compressed but fine")] * 2
    assert all(r.header("Accept-Encoding") == "identity" for r in srv.requests)
    assert json.loads(srv.requests[0].body)["prompt"] == "hi"
