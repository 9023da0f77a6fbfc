"""The ``throughput`` kind: the concurrency sweep and its weighted score (``throughput.json``)."""

from __future__ import annotations

import asyncio

from rich.console import Console

from harness.compare.comparable import throughput_differences
from harness.compare.model import CompareReport
from harness.compare.side import CompareSettings, Side
from harness.compare.throughput import compare_throughput
from harness.kinds.record import (
    GateInputs,
    KindCompare,
    KindConsole,
    KindScore,
    MeasurementKind,
    RunEnv,
)
from harness.profiles import Profile
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.core import NO_HOOKS, ThroughputHooks, exit_code, measure_throughput
from harness.throughput.gate_rules import throughput_rules
from harness.throughput.render import ConsoleHooks, render_report
from harness.throughput.report import ThroughputReport
from harness.verdict import Judgement


def run(cfg: ThroughputConfig, env: RunEnv[ThroughputHooks]) -> ThroughputReport:
    return asyncio.run(
        measure_throughput(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )


def rules(inputs: GateInputs) -> Judgement:
    rep = inputs.get(ThroughputReport)
    return throughput_rules(rep) if rep else ([], [])


def required(profile: Profile, image: bool) -> bool:
    return profile.throughput is not None


def differences(
    a: Side[ThroughputReport], b: Side[ThroughputReport]
) -> tuple[list[str], list[str]]:
    return throughput_differences(a.report, b.report), []


def compare(
    a: Side[ThroughputReport], b: Side[ThroughputReport], s: CompareSettings, out: CompareReport
) -> None:
    out.throughput, out.throughput_score = compare_throughput(
        a.report, b.report, min_effect_pct=s.min_effect_pct, seed=s.seed
    )


def console_hooks(console: Console, profile: str) -> ConsoleHooks:
    return ConsoleHooks(console)


KIND: MeasurementKind[ThroughputConfig, ThroughputOverrides, ThroughputReport, ThroughputHooks] = (
    MeasurementKind(
        name="throughput",
        command=("throughput",),
        report=ThroughputReport,
        overrides=ThroughputOverrides,
        from_profile=from_profile,
        run=run,
        exit_code=exit_code,
        no_hooks=NO_HOOKS,
        required=required,
        rules=rules,
        gate_step="server",
        score=KindScore("weighted tok/s", lambda r: r.score),
        console=KindConsole(hooks=console_hooks, render=render_report),
        compare=KindCompare(load_extra=None, differences=differences, compare=compare),
    )
)
