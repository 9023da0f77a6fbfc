"""The measurement-kind registry: every kind has every part, and the gate, the report reader
and compare take their kinds from it (nothing else keeps a list of kinds)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from harness.cli import build_parser
from harness.flags import flag_of
from harness.gate.options import gate_options
from harness.gate.orchestrate import GatePlan, step_names
from harness.gate.report import GateReport
from harness.gate.rules import GateInputs, required_reports
from harness.kinds.record import KindConsole, MeasurementKind
from harness.overrides import Overrides
from harness.profiles import load_profile
from harness.registry import KINDS, kind_named
from harness.report.folder import REPORT_KINDS
from harness.target import Target

PACKAGE = Path(__file__).resolve().parents[2] / "harness"
QWEN, PARIS, AICAS = (load_profile(n) for n in ("efficient-qwen", "gpumode-paris", "aicas-vlm"))

# a profile that has the kind, and the target its command takes
SAMPLE = {
    "check": (QWEN, {"url": "http://h:1"}),
    "latency": (QWEN, {"url": "http://h:1"}),
    "throughput": (PARIS, {"url": "http://h:1"}),
    "quality": (QWEN, {"url": "http://h:1"}),
    "package": (QWEN, {"image": "team/server:v1"}),
    "vlm": (AICAS, {}),
}
VLM_PATHS = {"wrapper_dir": Path("w"), "model_path": Path("m"), "dataset_path": Path("d")}


def test_the_registry_is_the_six_kinds_in_order() -> None:
    assert [k.name for k in KINDS] == list(SAMPLE)
    assert kind_named("quality") is KINDS[3]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_has_every_part(kind: MeasurementKind, tmp_path: Path) -> None:
    assert kind.report.model_fields["kind"].default == kind.name
    assert kind.filename == f"{kind.name}.json"
    assert issubclass(kind.overrides, Overrides) and dataclasses.is_dataclass(kind.overrides)
    # every field of the overrides record is a flag: the record is what the user may say
    assert all(flag_of(f) is not None for f in dataclasses.fields(kind.overrides))
    for part in (kind.from_profile, kind.run, kind.exit_code, kind.required, kind.rules):
        assert callable(part)
    # compare reads what a change can make better or worse: not checks, not packages
    assert (kind.compare is not None) == (kind.name not in ("check", "package"))
    if kind.gate_step is not None:
        assert isinstance(kind.console, KindConsole), "the gate shows what it runs"
    # its config is built from a profile that has it, and from nothing else
    profile, target = SAMPLE[kind.name]
    given = VLM_PATHS if kind.name == "vlm" else {}
    overrides = kind.overrides(**given)
    cfg = kind.from_profile(profile, Target(folder=tmp_path, **target), overrides)
    assert cfg is not None
    # a folder without its report: the kind's rules say nothing (the gate says "missing")
    assert kind.judge(GateInputs(profile=profile)) == ([], [])


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_command_line_reparses_through_the_real_cli(kind: MeasurementKind, tmp_path: Path) -> None:
    profile, target = SAMPLE[kind.name]
    overrides = kind.overrides(**(VLM_PATHS if kind.name == "vlm" else {}))
    argv = kind.command_line(Target(folder=tmp_path, **target), overrides, profile.name)
    assert argv[: 1 + len(kind.command)] == ["harness", *kind.command]
    args = build_parser(argv[1:]).parse_args(argv[1:])
    assert kind.overrides.from_args(args) == overrides
    assert (args.profile, args.out) == (profile.name, str(tmp_path))


def test_the_gate_takes_its_steps_and_required_reports_from_the_registry() -> None:
    assert step_names("server") == ["check", "latency", "throughput", "quality"]
    assert step_names("image") == ["package"]
    assert required_reports(QWEN) == ["check", "latency", "quality"]
    assert required_reports(PARIS, image=True) == ["check", "throughput", "quality", "package"]
    assert required_reports(AICAS) == ["vlm"]
    plan = GatePlan(url="http://h:1", folder=Path("."), profile=PARIS)
    assert [k.name for k in plan.steps()] == ["check", "throughput", "quality"]


def test_the_report_reader_reads_every_kind_then_the_verdict() -> None:
    assert (*(k.report for k in KINDS), GateReport) == REPORT_KINDS


def test_a_gate_option_reaches_every_step_that_has_it(tmp_path: Path) -> None:
    """The gate's options are the kinds' fields marked for it: one flag, every step."""
    by_flag = {o.flag: o.kinds for o in gate_options()}
    assert by_flag["--ready-timeout"] == ("check", "latency", "throughput", "quality")
    assert by_flag["--tokenizer"] == ("check", "latency", "throughput")
    assert by_flag["--latency-mode"] == ("latency",)
    assert by_flag["--docker-host"] == ("package",)
    assert by_flag["--decide"] == ("quality",)
    plan = GatePlan(
        url="http://h:1",
        folder=tmp_path,
        profile=QWEN,
        options={"ready_timeout": 45.0, "tokenizer": "qwen:Qwen/Qwen3.5-4B", "limit": 0.5},
    )
    target = Target(folder=tmp_path, url="http://h:1")
    for kind in (*plan.steps(), *GatePlan(plan.url, tmp_path, PARIS, plan.options).steps()):
        cfg = kind.from_profile(plan.profile if kind.name != "throughput" else PARIS,
                                target, plan.overrides(kind))  # fmt: skip
        cfg = getattr(cfg, "cfg", cfg)  # check: its plan holds the config
        assert cfg.ready_timeout_s == 45.0, kind.name
        if kind.name in by_flag["--tokenizer"]:
            assert cfg.tokenizer == "qwen:Qwen/Qwen3.5-4B", kind.name
    assert (
        kind_named("quality")
        .from_profile(QWEN, target, plan.overrides(kind_named("quality")))
        .limit
        == 0.5
    )
    # without the option each step keeps its own default: the gate's latency mode is both
    bare = GatePlan(url="http://h:1", folder=tmp_path, profile=QWEN)
    assert bare.overrides(kind_named("latency")).mode == "both"
    # and every server step waits the profile's readiness timeout (one default, check too)
    for kind in bare.steps():
        cfg = kind.from_profile(QWEN, target, bare.overrides(kind))
        assert getattr(cfg, "cfg", cfg).ready_timeout_s == QWEN.readiness.timeout_s, kind.name


def test_a_plan_is_never_changed_once_made(tmp_path: Path) -> None:
    plan = GatePlan(url="http://h:1", folder=tmp_path, profile=QWEN)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.url = "http://elsewhere:2"  # type: ignore[misc]
    with pytest.raises(Exception, match="unknown gate option"):
        GatePlan(url="", folder=tmp_path, profile=QWEN, options={"ready_timout": 1.0})


# The modules that iterate the registry; none may name a kind or a kind's report class.
ITERATORS = (
    "gate/orchestrate.py",
    "gate/rules.py",
    "gate/hooks.py",
    "gate/console.py",
    "gate/image.py",
    "gate/options.py",
    "report/folder.py",
    "compare/load.py",
    "compare/core.py",
)


def test_no_module_that_iterates_the_registry_names_a_kind() -> None:
    classes = [k.report.__name__ for k in KINDS]
    names = "|".join(k.name for k in KINDS)
    literal = re.compile(rf"""["']({names})["']""")
    found = []
    for rel in ITERATORS:
        text = (PACKAGE / rel).read_text(encoding="utf-8")
        found += [f"{rel}: {c}" for c in classes if re.search(rf"\b{c}\b", text)]
        found += [f"{rel}: {m.group(0)}" for m in literal.finditer(text)]
    assert not found, found


def test_the_demos_options_are_gate_options(tmp_path: Path) -> None:
    from harness.demo import DemoConfig

    options = DemoConfig(folder=tmp_path, profile=QWEN).gate_options(tmp_path, tmp_path / "m")
    plan = GatePlan(url="http://h:1", folder=tmp_path, profile=QWEN, options=options)
    latency = plan.overrides(kind_named("latency"))
    assert (latency.mode, latency.runs, latency.warmup, latency.ready_timeout_s) == (
        "official",
        3,
        1,
        60.0,
    )
    assert plan.overrides(kind_named("check")).tokenizer == str(tmp_path / "m")
    assert plan.overrides(kind_named("quality")).max_gen_toks == 24
