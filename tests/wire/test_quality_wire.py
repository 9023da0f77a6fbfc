"""Official quality on the wire: harness sends the graders' exact request bytes, nothing more.

For each procedure (Efficient Qwen MMLU-Pro, IFEval, GPQA-Diamond; GPU MODE
Paris GSM8K), harness's ``measure_quality`` and the grader-equivalent client
(tests/e2e/grader_style.py) talk in turn to a recording server that answers
deterministically from the request body. Compared: the multiset of request
bodies (byte for byte; concurrency 8 reorders them), the requests besides the
generation bodies (the grader sends one ``GET /ping``), and the scores computed
from the same answers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from lm_eval.tasks import TaskManager

from harness.data.layout import SAMPLES_DIR, render_tasks
from harness.data.punkt import write_punkt_tab
from harness.profiles import Benchmark, Profile, load_profile
from harness.provenance import Provenance
from harness.quality.config import QualityConfig, QualityOverrides, from_profile
from harness.quality.core import measure_quality
from harness.quality.report import QualityReport
from harness.target import Target
from tests.e2e.grader_style import grader_score, ping, run_benchmark
from tests.fixtures.recording import MANIFEST_PATHS, RecordingServer, Reply, without_manifest_step

pytestmark = pytest.mark.timeout(120)

LIMIT = 0.5  # the grader's fraction: the first ceil(0.5 n) documents of each task / subject


def _rows(rel: str) -> list[dict[str, Any]]:
    lines = (SAMPLES_DIR / rel).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


MMLU = _rows("mmlu_pro/test.jsonl")
GPQA = _rows("gpqa/gpqa_diamond.jsonl")
GSM8K = _rows("gsm8k/test.jsonl")


def _asked(body: dict[str, Any]) -> str:
    if "messages" in body:
        return str(body["messages"][-1]["content"])
    return str(body.get("prompt", ""))


def answer_for(body: dict[str, Any]) -> str:
    """A deterministic answer per body: right for every other sample question, else wrong,
    so the scores compared are neither all 0 nor all 1."""
    asked = _asked(body)
    for i, row in enumerate(MMLU):
        if row["question"] in asked:
            right = (i // 2) % 2 == 0  # two rows per subject: every other subject right
            letter = row["answer"] if right else ("A" if row["answer"] != "A" else "B")
            return f"Let's see. The answer is ({letter})."
    for i, row in enumerate(GPQA):
        if row["Question"] in asked:
            found = re.search(r"\(([A-D])\) " + re.escape(row["Correct Answer"].strip()), asked)
            right = found.group(1) if found else "A"
            letter = right if i % 2 == 0 else ("A" if right != "A" else "B")
            return f"Thinking done. The answer is ({letter})"
    for i, row in enumerate(GSM8K):
        if row["question"] in asked:
            n = int(row["answer"].split("####")[-1].strip().replace(",", ""))
            return f"Step by step. The answer is {n if i % 2 == 0 else n + 1}."
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
    return f"Here it is, in {digest[0] % 7 + 2} words, as asked: done."


@pytest.fixture(scope="module")
def task_manager(tmp_path_factory: pytest.TempPathFactory) -> TaskManager:
    tasks_dir = render_tasks(SAMPLES_DIR, tmp_path_factory.mktemp("tasks"))
    return TaskManager(include_path=str(tasks_dir), include_defaults=False)


@pytest.fixture(scope="module")
def nltk_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("nltk")
    write_punkt_tab(folder)
    return folder


def quality_config(
    profile: Profile, url: str, folder: Path, *, route: str = "jsonl", **overrides: Any
) -> QualityConfig:
    """The profile's quality run, as the command builds it, with the grader's single GET /ping
    (no readiness polling: the recording server is up) and one data route."""
    cfg = from_profile(profile, Target(folder=folder, url=url), QualityOverrides(**overrides))
    return replace(cfg, ready_timeout_s=0.0, data_route=route)


def _harness(
    srv: RecordingServer, profile_name: str, bench: Benchmark, folder: Path, nltk: Path
) -> QualityReport:
    cfg = quality_config(
        load_profile(profile_name),
        srv.url,
        folder,
        data_dir=SAMPLES_DIR,
        nltk_data=nltk,
        limit=LIMIT,
        only=bench.name,
        resume=False,
    )
    return measure_quality(cfg, provenance=Provenance())


def _grader(
    srv: RecordingServer, profile_name: str, bench: Benchmark, tm: TaskManager
) -> float | None:
    profile = load_profile(profile_name)
    ping(srv.url, profile.server.ready_path)
    out, _ = run_benchmark(profile, bench, srv.url, tm, LIMIT, None)
    return grader_score(out, bench)


def _others(srv: RecordingServer, endpoint: str) -> list[tuple[str, str]]:
    return [
        (r.method, r.path) for r in srv.requests if not (r.method == "POST" and r.path == endpoint)
    ]


CASES = [
    ("efficient-qwen", "mmlu_pro"),
    ("efficient-qwen", "ifeval"),
    ("efficient-qwen", "gpqa_diamond"),
    ("gpumode-paris", "gsm8k"),
]


@pytest.mark.parametrize(("profile_name", "name"), CASES)
def test_bodies_requests_and_scores_match_the_grader(
    profile_name: str,
    name: str,
    task_manager: TaskManager,
    nltk_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    profile = load_profile(profile_name)
    spec = profile.require_quality()
    bench = next(b for b in spec.benchmarks if b.name == name)
    with RecordingServer(text=answer_for) as ours, RecordingServer(text=answer_for) as theirs:
        report = _harness(ours, profile_name, bench, tmp_path / "run", nltk_data)
        grader = _grader(theirs, profile_name, bench, task_manager)
        mine, official = ours.bodies(spec.endpoint), theirs.bodies(spec.endpoint)
        assert official, "the grader-equivalent client sent nothing"
        assert Counter(mine) == Counter(official)  # byte-identical, as a multiset
        extra = len(ours.requests) - len(theirs.requests)  # beyond what the grader sent
        # ours: the manifest's GETs too, in a separate step after the benchmarks
        # (docs/manifest.md)
        step = without_manifest_step(list(ours.requests))
        assert len(step) == len(ours.requests) - len(MANIFEST_PATHS)
        assert (
            [o for o in _others(ours, spec.endpoint) if o[1] not in MANIFEST_PATHS]
            == _others(theirs, spec.endpoint)
            == [("GET", profile.server.ready_path)]
        )
    (result,) = report.benchmarks
    assert result.error is None and result.grader_abort is None
    assert result.requests == len(official)
    assert result.rounded_score == grader  # the grader's rounded number
    assert result.score is not None and round(result.score, 4) == result.rounded_score
    same = sum((Counter(mine) & Counter(official)).values())
    with capsys.disabled():
        print(  # the figure for the closing note
            f"\n{profile_name} {name}: bodies identical {same}/{len(official)}, "
            f"extra requests {extra}, score {result.rounded_score} == grader {grader}"
        )


def test_mmlu_pro_bodies_carry_no_thinking_switch(tmp_path: Path, nltk_data: Path) -> None:
    bench = next(b for b in load_profile().require_quality().benchmarks if b.name == "mmlu_pro")
    with RecordingServer(text=answer_for) as srv:
        _harness(srv, "efficient-qwen", bench, tmp_path / "run", nltk_data)
        bodies = [json.loads(b) for b in srv.bodies("/invocations")]
    assert bodies and all("chat_template_kwargs" not in b and "thinking" not in b for b in bodies)
    assert list(bodies[0]) == ["messages", "model", "max_tokens", "temperature", "stop", "seed"]


def _null_content(rec: Any) -> Reply | None:
    if rec.path != "/invocations":
        return None
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": None},
        "finish_reason": "stop",
    }
    return Reply(200, {"id": "x", "choices": [choice]})


def test_null_content_is_where_the_grader_dies(tmp_path: Path, nltk_data: Path) -> None:
    bench = next(b for b in load_profile().require_quality().benchmarks if b.name == "ifeval")
    with RecordingServer(_null_content) as srv:
        report = _harness(srv, "efficient-qwen", bench, tmp_path / "run", nltk_data)
    (result,) = report.benchmarks
    assert result.score is not None  # harness's own score ("" answers) is kept
    assert result.grader_abort and "no score" in result.grader_abort
    assert result.grader_aborts == result.requests and result.passed is False
    assert result.retries == 0  # a null content is an answer, not a failed attempt


def test_mmlu_pro_failing_three_times_is_where_the_grader_dies(
    tmp_path: Path, nltk_data: Path
) -> None:
    def failing(rec: Any) -> Reply | None:
        return Reply(400, {"error": "bad model"}) if rec.path == "/invocations" else None

    with RecordingServer(failing) as srv:
        cfg = quality_config(
            load_profile(),
            srv.url,
            tmp_path / "run",
            data_dir=SAMPLES_DIR,
            nltk_data=nltk_data,
            limit=0.01,  # one document per subject
            only="mmlu_pro",
            resume=False,
        )
        report = measure_quality(cfg, provenance=Provenance())
        attempts = len(srv.bodies("/invocations"))
    (result,) = report.benchmarks
    assert result.errors == result.requests and attempts == 3 * result.requests
    assert result.grader_abort and "lm-eval re-raises" in result.grader_abort
    assert result.passed is False
