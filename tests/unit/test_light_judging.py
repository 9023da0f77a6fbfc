"""Judging is light: ``harness gate RUN_DIR`` and ``harness report`` read JSON and import no
HTTP client, metrics parser or Docker SDK; matplotlib only where a page draws a plot.

The commands run in a child process on run folders that hold every kind's report between
them (one folder per profile), and the child lists the heavy packages in ``sys.modules``
when the commands have returned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.report_kinds import (
    write_check,
    write_package,
    write_throughput,
    write_vlm,
)
from tests.unit.test_report_data import make_run

T0 = "2026-02-01T10:00:00+00:00"
# what measuring needs and judging must not load
HEAVY = ("aiohttp", "prometheus_client", "docker", "lm_eval", "boto3", "transformers")
DRAWING = ("matplotlib",)  # only for a page with plots

CHILD = """
import json, sys
from harness.cli import main
rcs = [main(argv) for argv in json.loads(sys.argv[1])]
top = {name.split(".")[0] for name in sys.modules}
print(json.dumps({"rc": rcs, "loaded": sorted(top & set(%r))}))
"""


def _run(commands: list[list[str]], reports: Path) -> dict[str, object]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "HARNESS_REPORTS_DIR": str(reports),
    }
    out = subprocess.run(
        [sys.executable, "-c", CHILD % (HEAVY + DRAWING,), json.dumps(commands)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    answer: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return answer


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    """Run folders holding a report of every kind between them, one profile each."""
    qwen = make_run(
        tmp_path,
        "qwen",
        started_at=T0,
        medians={"short": 1291.0, "medium": 2720.5, "long": 3288.0},
        quality={"mmlu_pro": (0.71, 0.621, 120)},
    )
    write_check(qwen)
    write_package(qwen)
    paris, aicas = tmp_path / "paris", tmp_path / "aicas"
    write_throughput(paris)
    write_vlm(aicas)
    return [qwen, paris, aicas]


def test_gate_on_a_folder_imports_nothing_heavy(runs: list[Path]) -> None:
    answer = _run([["gate", str(run), "--quiet"] for run in runs], runs[0].parent)
    # a verdict for each: the first two lack some of their profile's reports (INCOMPLETE),
    # the AICAS run is whole and passes
    assert answer == {"rc": [4, 4, 0], "loaded": []}


def test_report_without_a_page_imports_nothing_heavy(runs: list[Path]) -> None:
    commands = [["report", "--no-html", "--quiet"]]
    commands += [["report", str(run), "--no-html", "--quiet"] for run in runs]
    assert _run(commands, runs[0].parent) == {"rc": [0, 0, 0, 0], "loaded": []}


def test_report_with_its_page_draws_with_matplotlib_and_nothing_else(runs: list[Path]) -> None:
    answer = _run([["report", str(runs[0]), "--quiet"]], runs[0].parent)
    assert answer == {"rc": [0], "loaded": ["matplotlib"]}
    assert (runs[0] / "report.html").is_file()


REGISTRY_CHILD = """
import json, sys
from harness.registry import KINDS
refs = [(k.run, k.exit_code, k.silent_hooks, k.preflight, k.summary) for k in KINDS]
refs += [(k.console.hooks, k.console.render) for k in KINDS if k.console is not None]
named = sorted({ref.partition(":")[0] for group in refs for ref in group if ref})
print(json.dumps({"named": len(named), "loaded": [m for m in named if m in sys.modules]}))
"""


def test_the_registry_imports_no_module_its_records_name() -> None:
    """The records' references (harness/kinds/lazy.py) stay unimported until used: the cores,
    consoles, silent hooks, preflight and summaries."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", REGISTRY_CHILD],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    answer = json.loads(out.stdout.strip().splitlines()[-1])
    assert answer["loaded"] == [] and answer["named"] > 0
