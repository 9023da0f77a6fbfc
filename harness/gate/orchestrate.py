"""``harness gate --url``: the profile's steps (check → latency or throughput → quality) into
one run folder.

The steps are the registry's kinds that run against a server and that the
profile requires, in registry order, less those skipped (``--skip``). Each step
calls its kind's core with the config built from the profile and the gate's
options (harness/gate/options.py: every option reaches every step that has
it), so the gate never re-implements a measurement and never goes back through
the command line; each step's report records the ``harness <command>`` line
that re-runs it. A step that fails with an error is reported and the next one
runs (the gate then judges the folder as it is), except where noted in
``run_steps``. A plan is never changed once made: ``gate --image`` runs the
steps on a copy that names the container's URL.

A gate that measured nothing (its data missing, no server, Ctrl-C before the first
report) writes no verdict and no ledger row (``measured``); a step not run because an
earlier one stopped the gate is recorded with why (``StepsRun.not_run``, gate.json's
``not_run``), so the verdict says so rather than "run harness X into this folder".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from harness.errors import (
    EXIT_FAIL,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TARGET,
    HarnessError,
    UsageError,
    exit_code_for,
)
from harness.gate.hooks import GateHooks
from harness.gate.judge import judge_folder, measured_kinds
from harness.gate.options import gate_options, options_argv
from harness.gate.report import GateReport, Verdict
from harness.kinds.record import GateStep, MeasurementKind, RunEnv
from harness.profiles import Profile
from harness.provenance import Provenance
from harness.registry import KINDS
from harness.target import IMAGE, URL, Target, ledger_argv

AnyKind = MeasurementKind[Any, Any, Any, Any]
C = TypeVar("C")


def step_names(where: GateStep = "server") -> list[str]:
    """The kinds the gate can run (``--skip`` takes these)."""
    return [k.name for k in KINDS if k.gate_step == where]


def steps_for(
    profile: Profile, where: GateStep, skip: frozenset[str] = frozenset()
) -> list[AnyKind]:
    """The kinds the gate runs there, in registry order: required by the profile, not skipped."""
    image = where == "image"
    return [
        k
        for k in KINDS
        if k.gate_step == where and k.required(profile, image) and k.name not in skip
    ]


def speed_step(steps: Sequence[AnyKind]) -> AnyKind | None:
    """The speed step among the gate's steps: the first whose record carries a score (its
    ``KindScore`` names it and its unit: latency's mean speedup ×, throughput's weighted
    tok/s); None when no step is scored."""
    return next((k for k in steps if k.score is not None), None)


@dataclass(frozen=True)
class GatePlan:
    """Everything ``gate --url`` (and the demo) decide before measuring."""

    url: str
    folder: Path
    profile: Profile
    # the gate's step options by key (harness/gate/options.py); absent or None: each
    # step's own default
    options: Mapping[str, object] = field(default_factory=dict)
    skip: frozenset[str] = frozenset()
    keep_going: bool = False  # measure the later steps even when a prerequisite failed
    name: str | None = None  # the run's ledger name and note, recorded in its provenance
    note: str = ""
    experiment: str | None = None  # the ledger group (--experiment)
    # how a command line names the profile when its file stem would not find it again (a
    # profile file outside tasks/profiles: its path)
    profile_arg: str | None = None

    def __post_init__(self) -> None:
        known = {o.key for o in gate_options()}
        unknown = sorted(set(self.options) - known)
        if unknown:
            raise UsageError(
                f"unknown gate option(s): {', '.join(unknown)}",
                hint=f"the gate's options: {', '.join(sorted(known))}",
            )

    @property
    def profile_ref(self) -> str:
        """How a command line names the profile: ``profile_arg``, else its file stem, else
        its name."""
        return self.profile_arg or self.profile.source.removesuffix(".toml") or self.profile.name

    def steps(self, where: GateStep = "server") -> list[AnyKind]:
        """The kinds to run, in registry order: required by the profile, not skipped."""
        image = where == "image"
        return [
            k
            for k in KINDS
            if k.gate_step == where and k.required(self.profile, image) and k.name not in self.skip
        ]

    def overrides(self, kind: AnyKind) -> Any:
        """The kind's overrides record: every gate option it has."""
        return kind.overrides.from_gate(self.options)

    def command_line(self, *, image: str | None = None, strict: bool = False) -> list[str]:
        """The ``harness gate`` command that re-runs this plan (the gate's provenance)."""
        target = [IMAGE, image] if image else [URL, self.url]
        argv = ["harness", "gate", *target, *Target(folder=self.folder).argv(self.profile_ref)]
        argv += ledger_argv(self.name, self.note, self.experiment)
        if strict:
            argv.append("--strict")
        if self.keep_going:
            argv.append("--keep-going")
        for name in sorted(self.skip):
            argv += ["--skip", name]
        return argv + options_argv(self.options)

    def provenance(self, command_line: list[str]) -> Provenance:
        return Provenance(
            profile=self.profile.name,
            command_line=command_line,
            url=self.url or None,
            name=self.name,
            note=self.note,
            experiment=self.experiment,
        )


def run_step(
    kind: AnyKind,
    plan: GatePlan,
    hooks: GateHooks,
    target: Target,
    configure: Callable[[Any], Any] | None = None,
) -> int:
    """One kind's core with the config the profile and the gate's options give it
    (``configure``: a caller's change to that config no flag makes, e.g. tune's race)."""
    overrides = plan.overrides(kind)
    cfg = kind.from_profile(plan.profile, target, overrides)
    if configure is not None:
        cfg = configure(cfg)
    argv = kind.command_line(target, overrides, plan.profile_ref)
    env = RunEnv(provenance=plan.provenance(argv), folder=plan.folder, hooks=hooks.hooks(kind))
    report = kind.measure(cfg, env)
    hooks.done(kind, report)
    rc: int = kind.exit_code_of(report)
    return rc


def _and(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, [", ".join(names[:-1]), *names[-1:]]))


# The URL of a plan built before its server is started (check_plan sends no request).
UNSTARTED = "http://127.0.0.1:1"


def check_usage(profile: Profile, options: Mapping[str, object]) -> None:
    """Every kind's usage check of the gate's options under ``profile`` (latency: --buckets
    names the profile's buckets): light, said before a run folder is made."""
    for kind in KINDS:
        kind.check_usage(profile, kind.overrides.from_gate(options))


@dataclass(frozen=True)
class StepConfigs:
    """The config each of a plan's steps was built with (:func:`check_plan`), by kind name:
    what a launcher reads the settings off (tune: the latency step's runs, buckets and mode)
    rather than deriving them again from the options."""

    by_kind: Mapping[str, object] = field(default_factory=dict)

    def of(self, kind: MeasurementKind[C, Any, Any, Any]) -> C | None:
        """``kind``'s config; None when the plan does not run it (not required, skipped)."""
        return cast("C | None", self.by_kind.get(kind.name))


def check_plan(plan: GatePlan) -> StepConfigs:
    """Build every step's config from the plan (a bad ``--buckets`` is a ConfigError here)
    and check its prerequisites (quality: its data), step by step in the plan's order; the
    configs built. Sends no request, so a launcher (demo, tune) calls it before it starts a
    server. Raises the step's HarnessError."""
    target = Target(folder=plan.folder, url=plan.url)
    built: dict[str, object] = {}
    for kind in plan.steps():
        cfg = kind.from_profile(plan.profile, target, plan.overrides(kind))
        kind.check_first(cfg)
        built[kind.name] = cfg
    return StepConfigs(built)


@dataclass
class StepsRun:
    """How the gate's steps ended: the worst stop code, and the steps an earlier step's stop
    left unmeasured (name → why, as the verdict says it after "X not measured: ")."""

    rc: int = EXIT_OK
    not_run: dict[str, str] = field(default_factory=dict)

    def stopped(self, later: Sequence[AnyKind], why: str) -> None:
        for kind in later:
            self.not_run.setdefault(kind.name, why)


def measured(folder: Path) -> list[str]:
    """The kinds whose report the run folder holds (partial ones too): none means the gate
    measured nothing, and writes no verdict."""
    return measured_kinds(folder)


def run_steps(plan: GatePlan, hooks: GateHooks) -> StepsRun:
    """Run each step; stop early on Ctrl-C or an unreachable server. Returns the worst stop
    code and the steps left unmeasured by a stop.

    Every step's ``preflight`` (quality: its data) runs first: a missing prerequisite stops
    the gate before anything is measured (exit 2). A step's error is shown (one line) and
    the next step runs, as each command would have been run by hand; the gate then judges
    what is in the folder."""
    steps = plan.steps()
    target = Target(folder=plan.folder, url=plan.url)
    try:  # every step's settings and prerequisites (its data, …) before the first measures
        check_plan(plan)
    except HarnessError as err:
        hooks.error(err)
        return StepsRun(rc=exit_code_for(err))
    run = StepsRun()
    for i, kind in enumerate(steps):
        hooks.step(kind.name)
        try:
            rc = run_step(kind, plan, hooks, target)
        except KeyboardInterrupt:
            run.rc = EXIT_INTERRUPTED
            return run
        except HarnessError as err:
            hooks.error(err)
            rc = exit_code_for(err)
        finally:
            hooks.step_end(kind.name)
        if not kind.prerequisite:
            continue
        rest = steps[i + 1 :]
        later = _and([k.name for k in rest])
        if rc == EXIT_TARGET:
            # unreachable: the later steps would only wait for it again
            run.rc = rc
            run.stopped(rest, f"{kind.name} found no server")
            return run
        if rc == EXIT_FAIL and not plan.keep_going and later:
            # The verdict is FAIL already; a quality run on a GPU costs ~20 minutes.
            hooks.say(
                f"[yellow]{kind.name} failed: {later} skipped (--keep-going to measure anyway)[/]"
            )
            run.stopped(rest, f"{kind.name} failed (--keep-going measures anyway)")
            return run
    return run


def conclude(
    folder: Path,
    profile: Profile,
    provenance: Provenance,
    *,
    strict: bool = False,
    image: bool = False,
    skipped: frozenset[str] | list[str] = frozenset(),
    not_run: Mapping[str, str] | None = None,
    image_id: str | None = None,
) -> GateReport:
    """Judge the run folder and save ``gate.json`` (the caller records it in the ledger)."""
    report = judge_folder(
        folder,
        profile,
        provenance,
        strict=strict,
        image=image,
        skipped=sorted(skipped),
        not_run=not_run,
    )
    report.image_id = image_id
    report.save(folder)
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
