"""harness quality against `harness simulate` (a separate process): the bodies the server
saw, concurrency measured at the server, failures counted, and a killed run resumed."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.data.layout import SAMPLES_DIR
from harness.data.punkt import write_punkt_tab
from harness.profiles import PROFILES_DIR
from harness.quality.report import QualityReport

pytestmark = pytest.mark.timeout(300)


def fast_profile(tmp_path: Path) -> Path:
    """efficient-qwen with the grader's retry pauses (5 s, 10 s) shortened for tests."""
    text = (PROFILES_DIR / "efficient-qwen.toml").read_text()
    assert "retry_sleeps_s = [5.0, 10.0]" in text
    path = tmp_path / "fast.toml"
    path.write_text(text.replace("retry_sleeps_s = [5.0, 10.0]", "retry_sleeps_s = [0.05, 0.05]"))
    return path


@pytest.fixture
def nltk_data(tmp_path: Path) -> Path:
    write_punkt_tab(tmp_path / "nltk")
    return tmp_path / "nltk"


def _quality(url: str, out: Path, nltk: Path, *extra: str) -> int:
    return main(
        [
            "quality",
            "--url",
            url,
            "--data-dir",
            str(SAMPLES_DIR),
            "--nltk-data",
            str(nltk),
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )


def _peak(entries: list) -> int:
    events = []
    for e in entries:
        if e.end_ns:
            events += [(e.arrival_ns, 1), (e.end_ns, -1)]
    level = peak = 0
    for _, d in sorted(events, key=lambda x: (x[0], x[1])):
        level += d
        peak = max(peak, level)
    return peak


def test_bodies_thinking_caps_and_concurrency_at_the_server(sim_process, tmp_path, nltk_data):
    sim = sim_process(ttft_ms=150, itl_ms=1)
    rc = _quality(sim.url, tmp_path / "run", nltk_data, "--limit", "0.5")
    assert rc == 1  # the simulator's text answers nothing right: FAIL, not an error
    log = [e for e in sim.fetch_log() if e.path == "/invocations"]
    report = QualityReport.load(tmp_path / "run")
    by = {b.name: b for b in report.benchmarks}
    assert [b.name for b in report.benchmarks] == ["mmlu_pro", "ifeval", "gpqa_diamond"]
    assert by["mmlu_pro"].n == 14 and by["ifeval"].n == 3 and by["gpqa_diamond"].n == 3
    assert len(log) == 14 + 3 + 3
    # what ran: taken once the benchmarks are done, a separate step (docs/manifest.md)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["taken"] == "separate step"
    infos = [e.index for e in sim.fetch_log() if e.path == "/server_info"]
    assert len(infos) == 1 and infos[0] > log[-1].index
    mmlu, ifeval, gpqa = log[:14], log[14:17], log[17:]
    for e in mmlu:  # local-chat-completions: lm-eval's body alone, no thinking switch
        assert e.body["model"] == "Qwen/Qwen3.5-4B"
        assert e.body["max_tokens"] == 2048
        assert "chat_template_kwargs" not in e.body and "thinking" not in e.body
        assert e.body["stop"] == ["Question:"]
        assert e.body["messages"][0]["role"] == "system"
    for e in ifeval:  # the grader's LM: one user message, cap 512, thinking off, no model
        assert "model" not in e.body
        assert len(e.body["messages"]) == 1 and e.body["messages"][0]["role"] == "user"
        assert e.body["max_tokens"] == 512
        assert e.body["chat_template_kwargs"] == {"enable_thinking": False}
        assert e.body["temperature"] == 0.0
        assert "stop" not in e.body
    for e in gpqa:  # thinking on, cap 12288
        assert e.body["thinking"] is True and "chat_template_kwargs" not in e.body
        assert e.body["max_tokens"] == 12288
    assert _peak(mmlu) == 8  # 14 requests, concurrency 8, measured at the server
    assert by["mmlu_pro"].concurrency_max == 8
    # the sample data: harness's own rows, recorded as such (never the grader's score)
    assert not report.official and list(report.non_official) == ["sample_data"]
    assert report.non_official["sample_data"].startswith("sample data, not the grader's set: ")
    assert (tmp_path / "run" / "samples_mmlu_pro.jsonl").exists()
    first = json.loads((tmp_path / "run" / "samples_ifeval.jsonl").read_text().splitlines()[0])
    assert {"prompt", "response", "extracted", "target", "correct"} <= set(first)


def test_failing_server_gives_empty_answers_and_a_complete_run(sim_process, tmp_path, nltk_data):
    sim = sim_process(error_rate=0.5, seed=3)
    profile = fast_profile(tmp_path)
    rc = _quality(
        sim.url,
        tmp_path / "run",
        nltk_data,
        "--profile",
        str(profile),
        "--only",
        "ifeval,gpqa_diamond",
        "--max-gen-toks",
        "16",
    )
    assert rc == 1
    report = QualityReport.load(tmp_path / "run")
    assert report.complete and not report.official
    assert report.non_official["max_gen_toks"] == 16
    assert set(report.non_official) == {"max_gen_toks", "sample_data"}
    total_errors = sum(b.errors for b in report.benchmarks)
    total_retries = sum(b.retries for b in report.benchmarks)
    failed_at_server = sum(1 for e in sim.fetch_log() if e.status and e.status >= 500)
    # every failed attempt was either retried or ended as an empty answer
    assert failed_at_server == total_retries + total_errors
    assert total_retries > 0
    for b in report.benchmarks:
        assert b.score is not None and b.max_tokens_sent == 16
        assert b.empty_answers >= b.errors


def test_killed_run_resumes_without_asking_again(sim_process, tmp_path, nltk_data):
    sim = sim_process(ttft_ms=400, itl_ms=1)
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "harness",
        "quality",
        "--url",
        sim.url,
        "--data-dir",
        str(SAMPLES_DIR),
        "--nltk-data",
        str(nltk_data),
        "--out",
        str(out),
        "--quiet",
        "--only",
        "mmlu_pro",
        "--limit",
        "0.9",
    ]  # 2 docs per subject: 28 requests
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Kill once the client has cached 12 answers: answers the server finished but the
        # client had not stored yet are asked again, so counting at the server would race.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _cached(out) < 12:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    first = len([e for e in sim.fetch_log() if e.path == "/invocations"])
    assert 12 <= first < 28
    before = _recorded_identity(out)  # the killed run's server identity
    sim.clear_log()
    assert _quality(sim.url, out, nltk_data, "--only", "mmlu_pro", "--limit", "0.9") == 1
    report = QualityReport.load(out)
    mmlu = report.benchmarks[0]
    asked_again = len([e for e in sim.fetch_log() if e.path == "/invocations"])
    # a miss names both identities: the answers are keyed on the server that gave them
    seen = f"killed run's identity {before}\nresumed run's {_recorded_identity(out)}"
    assert mmlu.requests == 28 and mmlu.cached >= 12, seen
    assert asked_again == 28 - mmlu.cached


def _open_cache(run: Path) -> sqlite3.Connection | None:
    """The run's answer cache (harness/quality/cache.py), read-only, without locking it."""
    db = run / "cache" / "answers.sqlite"
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) if db.exists() else None


def _recorded_identity(run: Path) -> str | None:
    """The server identity the run's answer cache last stored answers under."""
    conn = _open_cache(run)
    if conn is None:
        return None
    with contextlib.closing(conn):
        try:
            row = conn.execute("SELECT value FROM meta WHERE name = 'server'").fetchone()
        except sqlite3.Error:  # no table yet
            return None
    return str(row[0]) if row is not None else None


def _cached(run: Path) -> int:
    """Answers in the run's answer cache."""
    conn = _open_cache(run)
    if conn is None:
        return 0
    with contextlib.closing(conn):
        try:
            return int(conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
        except sqlite3.Error:  # created but no table yet, or busy: not 12 answers yet
            return 0


def test_streamed_gpqa_uses_an_idle_timeout(sim_process, tmp_path, nltk_data):
    sim = sim_process(hang_rate=0.4, seed=2, itl_ms=1)
    profile = fast_profile(tmp_path)
    started = time.monotonic()
    rc = _quality(
        sim.url,
        tmp_path / "run",
        nltk_data,
        "--profile",
        str(profile),
        "--only",
        "gpqa_diamond",
        "--stream",
        "--idle-timeout",
        "1",
        "--max-gen-toks",
        "16",
        "--limit",
        "1.0",
    )
    assert rc == 1 and time.monotonic() - started < 120
    gpqa = QualityReport.load(tmp_path / "run").benchmarks[0]
    assert gpqa.stream and gpqa.requests == 5 and gpqa.score is not None
    assert gpqa.error_kinds.get("timeout", 0) >= 1  # hung requests cut after 1 s of silence
    bodies = [e.body for e in sim.fetch_log() if e.path == "/invocations"]
    assert all(b["stream"] is True and b["thinking"] is True for b in bodies)
