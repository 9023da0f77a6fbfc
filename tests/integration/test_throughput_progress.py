"""The official sweep's progress bars advance as requests complete (issue 27, item 18:
they stayed at '0/64'): the grader's loop reports each timed request through the hooks."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.target import Target
from harness.throughput.config import ThroughputOverrides, from_profile
from harness.throughput.console import ConsoleHooks
from harness.throughput.core import measure_throughput
from harness.throughput.hooks import ThroughputHooks
from harness.throughput.report import Phase, RequestRow
from harness.tokenizer import load_tokenizer

pytestmark = pytest.mark.timeout(120)

TOK = load_tokenizer("qwen:Qwen/Qwen3.5-35B-A3B")


class Counting(ThroughputHooks):
    def __init__(self) -> None:
        self.started: list[tuple[int, str, int]] = []
        self.rows: list[tuple[int, str, bool]] = []

    def level(self, level: int, phase: Phase, total: int) -> None:
        self.started.append((level, phase, total))

    def graded(self, level: int, phase: Phase, row: RequestRow) -> None:
        self.rows.append((level, phase, row.ok))


def official(url: str, tmp_path: Path):
    overrides = ThroughputOverrides(
        levels="1,4",
        requests_per_level=6,
        prompt_tokens=32,
        max_tokens=8,
        seed=5,
        model="Qwen/Qwen3.5-4B",
        chart=False,
    )
    return from_profile(load_profile("gpumode-paris"), Target(folder=tmp_path, url=url), overrides)


async def test_every_timed_request_of_the_graders_loop_reaches_the_hooks(simulator, tmp_path):
    sim = await simulator(output_tokens=4)
    hooks = Counting()
    await measure_throughput(
        official(sim.url, tmp_path), provenance=Provenance(), folder=tmp_path, hooks=hooks
    )
    assert hooks.started == [(1, "timed", 6), (4, "timed", 6)]
    assert hooks.rows == [(1, "timed", True)] * 6 + [(4, "timed", True)] * 6


async def test_the_console_bars_reach_6_of_6(simulator, tmp_path):
    sim = await simulator(output_tokens=4)
    out = io.StringIO()
    hooks = ConsoleHooks(Console(file=out, width=120, force_terminal=False))
    await measure_throughput(
        official(sim.url, tmp_path), provenance=Provenance(), folder=tmp_path, hooks=hooks
    )
    tasks = hooks.bars.progress.tasks
    assert [(t.completed, t.total) for t in tasks] == [(6, 6), (6, 6)]
    assert all("tok/s" in str(t.fields["stats"]) for t in tasks)
