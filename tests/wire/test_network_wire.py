"""The round-trip probes on the wire: official mode's timed sequence stays the grader's, byte for
byte; the probes (GETs of the ready path) come only before and after each bucket, never
between two of the grader's requests, and ``--no-rtt-probes`` sends none
(docs/timing.md, "Network")."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from harness.latency.core import measure_latency
from harness.latency.network_probe import PROBES_PER_EDGE
from harness.provenance import Provenance
from harness.tokenizer import load_tokenizer
from tests.fixtures.recording import Recorded, RecordingServer, without_manifest_step
from tests.wire import grader_latency
from tests.wire.test_latency_wire import BUCKETS, GRADER_BUCKETS, latency_config

pytestmark = pytest.mark.timeout(60)


def _shape(reqs: list[Recorded]) -> list[tuple[str, str, bytes]]:
    return [(r.method, r.path, r.body) for r in reqs]


def _measure(url: str, folder: Path, *, probes: bool) -> None:
    cfg = latency_config(url, buckets=BUCKETS, warmup=2, runs=3)
    cfg = replace(cfg, calibrate=False, ready_interval_s=0.05, rtt_probes=probes)
    tok = load_tokenizer(cfg.tokenizer)
    asyncio.run(measure_latency(cfg, provenance=Provenance(), folder=folder, tokenizer=tok))


def test_probes_go_between_buckets_and_the_graders_requests_stay_byte_for_byte(
    recording_server, tmp_path
):
    srv: RecordingServer = recording_server(text="ok")
    grader_latency.wait_for_container(srv.url, interval_s=0.05)
    grader_latency.run_latency(srv.url, GRADER_BUCKETS, warmup=2, runs=3)
    theirs = [r for r in srv.requests if r.method == "POST"]
    srv.clear()
    _measure(srv.url, tmp_path / "a", probes=True)
    ours = without_manifest_step(list(srv.requests))

    posts = [r for r in ours if r.method == "POST"]
    assert _shape(posts) == _shape(theirs)
    for a, b in zip(posts, theirs, strict=True):
        assert sorted(a.headers) == sorted(b.headers)
    # each bucket's 2 + 3 grader requests are one unbroken block: no probe inside
    blocks = [
        list(g)
        for is_post, g in itertools.groupby(ours, key=lambda r: r.method == "POST")
        if is_post
    ]
    assert [len(b) for b in blocks] == [5, 5, 5]
    # and the probes: a GET of the ready path, twice per probe (new, then kept-alive)
    extra = [r for r in ours[1:] if r.method != "POST"]
    assert {(r.method, r.path) for r in extra} == {("GET", "/ping")}
    assert len(extra) == len(BUCKETS) * 2 * PROBES_PER_EDGE * 2


def test_no_rtt_probes_sends_only_the_graders_requests(recording_server, tmp_path):
    srv: RecordingServer = recording_server(text="ok")
    grader_latency.wait_for_container(srv.url, interval_s=0.05)
    grader_latency.run_latency(srv.url, GRADER_BUCKETS, warmup=2, runs=3)
    theirs = list(srv.requests)
    srv.clear()
    _measure(srv.url, tmp_path / "b", probes=False)
    assert _shape(without_manifest_step(list(srv.requests))) == _shape(theirs)
