"""The measurement cores against the in-process simulator: hooks, saved reports, partials,
repeat calls, and the gate's steps calling them (no command line in between)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import EXIT_OK
from harness.gate.hooks import GateHooks
from harness.gate.orchestrate import GatePlan, run_steps
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.core import measure_latency
from harness.latency.hooks import LatencyHooks
from harness.latency.kind import KIND as LATENCY
from harness.latency.report import LatencyReport, RequestRow
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.target import Target
from harness.throughput.config import ThroughputOverrides
from harness.throughput.config import from_profile as throughput_config
from harness.throughput.core import measure_throughput
from harness.throughput.hooks import ThroughputHooks
from harness.throughput.report import Phase, ThroughputReport
from harness.tokenizer import load_tokenizer

pytestmark = pytest.mark.timeout(120)

PROFILE = load_profile()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")


class Recorder(LatencyHooks):
    def __init__(self, stop_after: int | None = None) -> None:
        self.events: list[str] = []
        self.rows = 0
        self.saved: Path | None = None
        self.stop_after = stop_after

    def waiting(self, url: str) -> None:
        self.events.append("waiting")

    def ready(self, result: object) -> None:
        self.events.append("ready")

    def measuring(self, started: bool) -> None:
        self.events.append("start" if started else "stop")

    def row(self, row: RequestRow, total: int) -> None:
        self.rows += 1
        if self.stop_after is not None and self.rows == self.stop_after:
            raise KeyboardInterrupt  # what Ctrl-C raises in the middle of a run

    def partial(self, path: Path) -> None:
        self.saved = path


def quick(url: str) -> LatencyConfig:
    overrides = LatencyOverrides(buckets="short,long", runs=3, warmup=1, calibrate=False)
    cfg = from_profile(PROFILE, Target(folder=Path("."), url=url), overrides)
    small = tuple(b.model_copy(update={"max_tokens": 8}) for b in cfg.buckets)
    return replace(cfg, buckets=small, ready_interval_s=0.1)


async def test_latency_core_saves_its_report_and_can_run_twice(simulator, tmp_path):
    sim = await simulator(ttft_ms=2, itl_ms=1)
    cfg = quick(sim.url)
    for n in (1, 2):  # compare's repeats: the core keeps nothing between calls
        hooks = Recorder()
        folder = tmp_path / f"r{n}"
        report = await measure_latency(
            cfg, provenance=Provenance(), folder=folder, hooks=hooks, tokenizer=TOK
        )
        assert hooks.events == ["waiting", "ready", "start", "stop"]
        assert hooks.rows == 2 * (1 + 3) and hooks.saved is None
        assert report.complete and [b.n_ok for b in report.official] == [3, 3]
        assert LatencyReport.load(folder).model_dump() == report.model_dump()


async def test_latency_core_saves_a_partial_report_then_reraises(simulator, tmp_path):
    sim = await simulator(ttft_ms=2, itl_ms=1)
    hooks = Recorder(stop_after=5)
    with pytest.raises(KeyboardInterrupt):
        await measure_latency(
            quick(sim.url), provenance=Provenance(), folder=tmp_path, hooks=hooks, tokenizer=TOK
        )
    assert hooks.events[-1] == "stop"  # the live display is closed before the save
    assert hooks.saved == tmp_path / "latency.json"
    saved = LatencyReport.load(tmp_path)
    assert saved.complete is False and len(saved.requests) == 5


async def test_latency_core_on_cancel_saves_what_it_has(simulator, tmp_path):
    sim = await simulator(ttft_ms=2, itl_ms=1)
    seen = asyncio.Event()

    class Signal(LatencyHooks):
        def row(self, row: RequestRow, total: int) -> None:
            seen.set()

    task = asyncio.create_task(
        measure_latency(
            quick(sim.url), provenance=Provenance(), folder=tmp_path, hooks=Signal(), tokenizer=TOK
        )
    )
    await asyncio.wait_for(seen.wait(), 30)
    task.cancel()  # what asyncio.run does to the main task on Ctrl-C
    with pytest.raises(asyncio.CancelledError):
        await task
    assert LatencyReport.load(tmp_path).complete is False


def test_latency_command_line_reparses_to_the_same_config(tmp_path):
    from harness.cli import build_parser
    from harness.cli.common import RunContext
    from harness.cli.kind_command import kind_config

    target = Target(folder=tmp_path, url="http://127.0.0.1:9")
    overrides = LatencyOverrides(
        buckets="medium",
        mode="strict",
        runs=7,
        warmup=0,
        concurrency=4,
        force_length=True,
        seed=11,
        model="m",
        calibrate=False,
        ready_timeout_s=12.5,
    )
    cfg = from_profile(PROFILE, target, overrides)
    argv = LATENCY.command_line(target, overrides, "efficient-qwen")
    assert argv[:2] == ["harness", "latency"]
    args = build_parser(argv[1:]).parse_args(argv[1:])
    ctx = RunContext(PROFILE, tmp_path, Provenance(), console=None)  # type: ignore[arg-type]
    assert kind_config(LATENCY, args, ctx) == cfg


async def test_throughput_core_runs_the_sweep_and_saves(simulator, tmp_path):
    sim = await simulator(ttft_ms=1, itl_ms=0.2, output_tokens=16)
    paris = load_profile("gpumode-paris")
    cfg = throughput_config(
        paris,
        Target(folder=tmp_path, url=sim.url),
        ThroughputOverrides(
            levels="1,2",
            requests_per_level=4,
            warmup=0,
            spot_checks=0,
            prompt_tokens=64,
            max_tokens=16,
            seed=3,
            model="sim",
            ready_interval_s=0.1,
            chart=False,
        ),
    )
    levels: list[tuple[int, str, int]] = []

    class Levels(ThroughputHooks):
        def level(self, level: int, phase: Phase, total: int) -> None:
            levels.append((level, phase, total))

    report = await measure_throughput(
        cfg, provenance=Provenance(), folder=tmp_path, hooks=Levels(), tokenizer=TOK
    )
    assert levels == [(1, "timed", 4), (2, "timed", 4)]
    assert report.complete and [lv.n_ok for lv in report.levels] == [4, 4]
    assert ThroughputReport.load(tmp_path).score == report.score


def test_gate_steps_call_the_cores_and_record_rerunnable_lines(sim_process, tmp_path):
    sim = sim_process(ttft_ms=2, itl_ms=1)
    profile = PROFILE.model_copy(update={"quality": None})  # lm-eval is quality's own test
    plan = GatePlan(
        url=sim.url,
        folder=tmp_path,
        profile=profile,
        options={"latency_mode": "official", "runs": 1, "warmup": 0, "buckets": "short"},
    )
    steps: list[str] = []

    class Steps(GateHooks):
        def step(self, name: str) -> None:
            steps.append(name)

    assert run_steps(plan, Steps()).rc == EXIT_OK
    assert steps == ["check", "latency", "audit"]  # the audit: on by default where rules are
    audit = json.loads((tmp_path / "audit.json").read_text())
    assert audit["provenance"]["command_line"][:4] == ["harness", "audit", "--url", sim.url]
    # 1 ms a token: an honest speed; every answer runs to max_tokens: complete_outputs has
    # nothing to continue (inconclusive by design)
    assert {(r["rule"], r["result"]) for r in audit["rules"] if not r["by_design"]} == {
        ("cached_answers", "pass"),
        ("benchmark_detection", "pass"),
        ("physically_possible", "pass"),
        ("one_stack", "pass"),
        ("stream_consistency", "pass"),
    }
    latency = LatencyReport.load(tmp_path)
    argv = latency.provenance.command_line
    assert argv[:4] == ["harness", "latency", "--url", sim.url]
    assert argv[argv.index("--runs") + 1] == "1" and argv[argv.index("--buckets") + 1] == "short"
    check = json.loads((tmp_path / "check.json").read_text())
    assert check["provenance"]["command_line"][:4] == ["harness", "check", "--url", sim.url]
