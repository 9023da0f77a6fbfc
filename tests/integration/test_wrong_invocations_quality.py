"""Wrong invocations of ``quality``, ``data fetch`` and ``data prepare``, each as a user types
it (through the entry point, tests/fixtures/wrong_invocation.py; a row that sets a variable
a library reads at import runs as a ``python -m harness`` child): no traceback, the README's exit code (2
usage, config or data; 3 target or transport; 1 a gate fails), and one line saying what
is wrong and what to do. Bad ``--out`` paths are tested for every command elsewhere.
"""

from __future__ import annotations

import shutil
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.data.layout import SAMPLES_DIR
from harness.data.punkt import write_punkt_tab
from harness.profiles import PROFILES_DIR
from harness.simulate import make_config
from harness.simulate.process import SimProcess
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(600)


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]  # after ``harness``; {closed} {data} {corrupt} {fast} {nltk} filled in
    code: int
    says: str  # in the one error line (or, for a run that ends, in its output)
    env: dict[str, str] = field(default_factory=dict)


QUALITY = ["quality", "--url", "http://{closed}", "--ready-timeout", "1"]
SAMPLES = ["--data-dir", "{data}", "--nltk-data", "{nltk}"]

CASES = [
    Case("limit zero", [*QUALITY, "--limit", "0"], 2, "argument --limit: '0' must be > 0"),
    Case("limit 1.5", [*QUALITY, "--limit", "1.5"], 2, "neither a fraction"),
    Case("limit negative", [*QUALITY, "--limit=-0.5"], 2, "argument --limit: '-0.5' must be > 0"),
    Case("limit text", [*QUALITY, "--limit", "ten"], 2, "argument --limit"),
    Case(
        "missing data folder",
        [*QUALITY, "--data-dir", "{absent}"],
        2,
        "run: harness data fetch --out",
    ),
    Case("--only nosuch", [*QUALITY, *SAMPLES, "--only", "nosuch"], 2, "unknown benchmark nosuch"),
    Case(
        "--quality-only nosuch",
        [*QUALITY, *SAMPLES, "--quality-only", "nosuch"],
        2,
        "this profile has: gpqa_diamond, ifeval, mmlu_pro",
    ),
    Case(
        "corrupt data file",
        [*QUALITY, "--data-dir", "{corrupt}", "--only", "ifeval"],
        2,
        "line 2 is not JSON",
    ),
    Case("url without scheme", ["quality", "--url", "127.0.0.1:9"], 2, "http://"),
    Case(
        "--fresh with --resume-answers",
        [*QUALITY, *SAMPLES, "--fresh", "--resume-answers"],
        2,
        "pass one of them",
    ),
    Case("--seed without --decide", [*QUALITY, *SAMPLES, "--seed", "3"], 2, "add --decide"),
    Case("--max-gen-toks 0", [*QUALITY, "--max-gen-toks", "0"], 2, "--max-gen-toks"),
    Case("unknown profile", [*QUALITY, "--profile", "nosuch"], 2, "nosuch"),
    Case(
        "unknown data route",
        [*QUALITY, *SAMPLES],
        2,
        "HARNESS_DATA_ROUTE takes one of: auto, hf-cache, jsonl",
        env={"HARNESS_DATA_ROUTE": "bogus"},
    ),
    Case(
        "unreachable server",
        [*QUALITY, *SAMPLES, "--only", "ifeval"],
        3,
        "check --url and its port",
    ),
    Case("data fetch --only nosuch", ["data", "fetch", "--only", "nosuch"], 2, "choose from"),
    Case(
        "data fetch offline",
        ["data", "fetch", "--out", "{out}", "--only", "ifeval"],
        3,
        "offline? `harness data fetch --samples` writes the small sample sets",
        env={"HF_ENDPOINT": "http://{closed}"},
    ),
    Case(
        "data fetch gated without a token",
        ["data", "fetch", "--out", "{out}", "--only", "gpqa"],
        2,
        "export HF_TOKEN",
    ),
    Case("data without an action", ["data"], 2, "ACTION"),
    Case("data prepare unknown flag", ["data", "prepare", "--bogus"], 2, "--bogus"),
]


@pytest.fixture(scope="module")
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory, closed_port: int) -> dict[str, str]:
    root = tmp_path_factory.mktemp("wrong")
    corrupt = root / "corrupt"
    shutil.copytree(SAMPLES_DIR, corrupt)
    path = corrupt / "ifeval" / "train.jsonl"
    first = path.read_text().splitlines()[0]
    path.write_text(first + '\n{"key": 2, "prompt": \n')  # a download cut short
    write_punkt_tab(root / "nltk")
    fast = root / "fast.toml"
    text = (PROFILES_DIR / "efficient-qwen.toml").read_text()
    fast.write_text(text.replace("retry_sleeps_s = [5.0, 10.0]", "retry_sleeps_s = [0.05, 0.05]"))
    return {
        "closed": f"127.0.0.1:{closed_port}",
        "data": str(SAMPLES_DIR),
        "nltk": str(root / "nltk"),
        "corrupt": str(corrupt),
        "absent": str(root / "absent"),
        "out": str(root / "out"),
        "fast": str(fast),
    }


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, float]:
    started = time.monotonic()
    done = run_harness(
        argv,
        reports=cwd / "reports",
        timeout_s=300,
        cwd=cwd,
        env=env,
        unset=("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"),
    )
    return done.rc, done.stdout + done.stderr, time.monotonic() - started


def _fill(items: list[str], places: dict[str, str]) -> list[str]:
    return [item.format(**places) for item in items]


def _error_line(output: str) -> str:
    lines = [x for x in output.splitlines() if x.startswith("harness") and "error:" in x]
    assert len(lines) == 1, output
    return lines[0]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_wrong_invocation_says_what_to_do(
    case: Case, places: dict[str, str], tmp_path: Path
) -> None:
    env = {k: v.format(**places) for k, v in case.env.items()}
    code, output, took = _run(_fill(case.argv, places), tmp_path, env)
    assert "Traceback" not in output
    assert code == case.code, output
    assert case.says in _error_line(output), output
    assert took < 60, f"{case.name} took {took:.0f} s"  # offline and unreachable fail fast


def test_a_server_answering_garbage_fails_the_gate(places: dict[str, str], tmp_path: Path) -> None:
    """Every reply a truncated JSON body: each request fails its three attempts, is scored
    as wrong (the grader's empty answer) and the run ends with FAIL, saying why."""
    with SimProcess(make_config(malformed_json_rate=1.0, itl_ms=1)) as sim:
        argv = ["quality", "--url", sim.url, *_fill(SAMPLES, places)]
        argv += ["--profile", places["fast"], "--only", "ifeval", "--limit", "0.5"]
        argv += ["--out", str(tmp_path / "run")]
        code, output, _ = _run(argv, tmp_path, {})
    assert "Traceback" not in output
    assert code == 1, output
    assert "IFEval: inst_level_strict_acc,none" in output
    assert "3 empty answers" in output


def test_gate_stops_on_missing_quality_data_before_measuring(
    places: dict[str, str], tmp_path: Path
) -> None:
    with SimProcess(make_config(ttft_ms=5, itl_ms=1)) as sim:
        argv = ["gate", "--url", sim.url, "--data-dir", places["absent"]]
        argv += ["--out", str(tmp_path / "gate")]
        code, output, took = _run(argv, tmp_path, {})
        asked = [e for e in sim.fetch_log() if e.method == "POST"]
    assert "Traceback" not in output
    assert code == 2, output
    assert "run: harness data fetch --out" in output
    assert "--samples" in output
    assert asked == []  # no check, no latency: nothing was measured
    assert not list((tmp_path / "gate").rglob("latency.json"))
    assert took < 60
