"""``harness gate --url``: check → latency → quality (or throughput) into one run folder.

Each step calls the measurement's core with a typed config built from the
profile and the gate's options, so the gate never re-implements a measurement
and never goes back through the command line; the gate itself only judges what
the steps wrote. Each step's report records the ``harness <command>`` line that
re-runs it. A step that fails with an error is reported and the next one runs
(the gate then judges the folder as it is), except where noted in ``run_steps``.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from harness.conformance import core as check_core
from harness.conformance.plan import CheckOptions, plan_run
from harness.errors import (
    EXIT_FAIL,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TARGET,
    HarnessError,
    exit_code_for,
)
from harness.gate.hooks import GateHooks
from harness.gate.judge import judge_folder
from harness.gate.report import GateReport, Verdict
from harness.latency import config as latency_config
from harness.latency import core as latency_core
from harness.profiles import Profile
from harness.quality import core as quality_core
from harness.runs import Provenance
from harness.throughput import core as throughput_core
from harness.throughput.config import from_profile as throughput_from_profile

StepName = Literal["check", "latency", "throughput", "quality"]


@dataclass
class GatePlan:
    """Everything ``gate --url`` (and the demo) decide before measuring."""

    url: str
    folder: Path
    profile: Profile
    latency_mode: latency_config.Mode = "both"
    runs: int | None = None
    warmup: int | None = None
    buckets: str | None = None
    until_ci: float | None = None  # latency --until-ci PCT
    limit: float | None = None
    data_dir: Path | None = None
    max_gen_toks: int | None = None
    tokenizer: str | None = None
    ready_timeout: float | None = None
    quality_only: str | None = None
    keep_going: bool = False  # measure latency and quality even when a required check failed
    name: str | None = None  # the run's ledger name and note, recorded in gate's command line
    note: str = ""

    @property
    def profile_ref(self) -> str:
        """How a command line names the profile: its file stem, else its name."""
        return self.profile.source.removesuffix(".toml") or self.profile.name

    def steps(self) -> list[StepName]:
        out: list[StepName] = ["check"]
        if self.profile.latency is not None:
            out.append("latency")
        if self.profile.throughput is not None:
            out.append("throughput")
        if self.profile.quality is not None:
            out.append("quality")
        return out

    def command_line(self, *, image: str | None = None, strict: bool = False) -> list[str]:
        """The ``harness gate`` command that re-runs this plan (the gate's provenance)."""
        target = ["--image", image] if image else ["--url", self.url]
        argv = ["harness", "gate", *target, "--profile", self.profile_ref]
        argv += ["--out", str(self.folder), "--latency-mode", self.latency_mode]
        if self.name:
            argv += ["--name", self.name]
        if self.note:
            argv += ["--note", self.note]
        if strict:
            argv.append("--strict")
        if self.keep_going:
            argv.append("--keep-going")
        for flag, value in (
            ("--runs", self.runs),
            ("--warmup", self.warmup),
            ("--buckets", self.buckets),
            ("--until-ci", self.until_ci),
            ("--limit", self.limit),
            ("--data-dir", self.data_dir),
            ("--max-gen-toks", self.max_gen_toks),
            ("--quality-only", self.quality_only),
            ("--tokenizer", self.tokenizer),
            ("--ready-timeout", self.ready_timeout),
        ):
            if value is not None:
                argv += [flag, str(value)]
        return argv

    def provenance(self, command_line: list[str]) -> Provenance:
        return Provenance(
            profile=self.profile.name, command_line=command_line, url=self.url or None
        )


def run_check(plan: GatePlan, hooks: GateHooks) -> int:
    opts = CheckOptions(tokenizer=plan.tokenizer)
    cfg, planned = plan_run(plan.profile, plan.url, opts)
    argv = check_core.command_line(opts, url=plan.url, profile=plan.profile_ref, folder=plan.folder)
    report = asyncio.run(
        check_core.measure_check(
            cfg,
            planned,
            provenance=plan.provenance(argv),
            folder=plan.folder,
            hooks=hooks.check(),
        )
    )
    hooks.check_done(report)
    return check_core.exit_code(report)


def run_latency(plan: GatePlan, hooks: GateHooks) -> int:
    cfg = latency_config.from_profile(
        plan.profile,
        plan.url,
        buckets=plan.buckets,
        mode=plan.latency_mode,
        runs=plan.runs,
        warmup=plan.warmup,
        tokenizer=plan.tokenizer,
        ready_timeout_s=plan.ready_timeout,
        until_ci=plan.until_ci,
    )
    argv = latency_core.command_line(cfg, profile=plan.profile_ref, folder=plan.folder)
    report = asyncio.run(
        latency_core.measure_latency(
            cfg, provenance=plan.provenance(argv), folder=plan.folder, hooks=hooks.latency()
        )
    )
    hooks.latency_done(report)
    return latency_core.exit_code(report)


def run_throughput(plan: GatePlan, hooks: GateHooks) -> int:
    cfg = throughput_from_profile(
        plan.profile,
        plan.url,
        seed=random.SystemRandom().randrange(1 << 31),  # as the command does without --seed
        ready_timeout_s=plan.ready_timeout,
    )
    argv = throughput_core.command_line(cfg, profile=plan.profile_ref, folder=plan.folder)
    report = asyncio.run(
        throughput_core.measure_throughput(
            cfg, provenance=plan.provenance(argv), folder=plan.folder, hooks=hooks.throughput()
        )
    )
    hooks.throughput_done(report)
    return throughput_core.exit_code(report)


def run_quality(plan: GatePlan, hooks: GateHooks) -> int:
    cfg = quality_core.from_profile(
        plan.profile,
        plan.url,
        plan.folder,
        data_dir=plan.data_dir,
        limit=plan.limit,
        only=plan.quality_only,
        max_gen_toks=plan.max_gen_toks,
    )
    argv = quality_core.command_line(cfg, profile=plan.profile_ref)
    report = quality_core.measure_quality(
        cfg, provenance=plan.provenance(argv), hooks=hooks.quality()
    )
    hooks.quality_done(report)
    return quality_core.exit_code(report)


STEPS = {
    "check": run_check,
    "latency": run_latency,
    "throughput": run_throughput,
    "quality": run_quality,
}


def run_steps(plan: GatePlan, hooks: GateHooks) -> int:
    """Run each step; stop early on Ctrl-C or an unreachable server. Returns the worst stop code.

    A step's error is shown (one line) and the next step runs, as each command would
    have been run by hand; the gate then judges what is in the folder."""
    for name in plan.steps():
        hooks.step(name)
        try:
            rc = STEPS[name](plan, hooks)
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        except HarnessError as err:
            hooks.error(err)
            rc = exit_code_for(err)
        finally:
            hooks.step_end(name)
        if rc == EXIT_TARGET and name == "check":
            return rc  # unreachable: the later steps would only wait for it again
        if rc == EXIT_FAIL and name == "check" and not plan.keep_going:
            # The verdict is FAIL already; a quality run on a GPU costs ~20 minutes.
            hooks.say(
                "[yellow]required checks failed: latency and quality skipped (--keep-going to measure anyway)[/]"
            )
            return EXIT_OK
    return EXIT_OK


def conclude(
    folder: Path,
    profile: Profile,
    provenance: Provenance,
    *,
    strict: bool = False,
    image: bool = False,
    name: str | None = None,
    note: str = "",
) -> GateReport:
    """Judge the run folder, save ``gate.json`` and record the run in the ledger."""
    from harness.report.ledger import record_run

    report = judge_folder(folder, profile, provenance, strict=strict, image=image)
    report.save(folder)
    record_run(folder, name, note)
    return report


EXIT_BY_VERDICT = {
    Verdict.PASS: EXIT_OK,
    Verdict.FAIL: EXIT_FAIL,
    Verdict.INCOMPLETE: EXIT_INCOMPLETE,
}


def exit_code(report: GateReport, measured_rc: int = EXIT_OK) -> int:
    """Ctrl-C wins; a measuring stop code (e.g. 3, unreachable) wins over all but FAIL;
    else the verdict's code (0 PASS, 1 FAIL, 4 INCOMPLETE)."""
    if measured_rc == EXIT_INTERRUPTED:
        return measured_rc
    if measured_rc and report.verdict is not Verdict.FAIL:
        return measured_rc
    return EXIT_BY_VERDICT[report.verdict]
