"""The measurement-kind registry: every kind has every part, and the gate, the report reader
and compare take their kinds from it (nothing else keeps a list of kinds)."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

from harness.cli import build_parser
from harness.errors import ConfigError
from harness.flags import flag_of
from harness.gate.options import gate_options
from harness.gate.orchestrate import GatePlan, check_usage, speed_step, step_names
from harness.gate.report import GateReport
from harness.gate.rules import GateInputs, required_reports
from harness.kinds.lazy import module_of, resolve
from harness.kinds.record import KindConsole, MeasurementKind
from harness.overrides import Overrides
from harness.profiles import load_profile
from harness.registry import KINDS, engine_kind, kind_named
from harness.report.folder import REPORT_KINDS
from harness.target import Target
from harness.view.summary import KindSummary

PACKAGE = Path(__file__).resolve().parents[2] / "harness"
QWEN, PARIS, AICAS = (load_profile(n) for n in ("efficient-qwen", "gpumode-paris", "aicas-vlm"))

# a profile that has the kind, and the target its command takes
SAMPLE = {
    "check": (QWEN, {"url": "http://h:1"}),
    "latency": (QWEN, {"url": "http://h:1"}),
    "throughput": (PARIS, {"url": "http://h:1"}),
    "quality": (QWEN, {"url": "http://h:1"}),
    "audit": (QWEN, {"url": "http://h:1"}),
    "package": (QWEN, {"image": "team/server:v1"}),
    "vlm": (AICAS, {}),
}
VLM_PATHS = {"wrapper_dir": Path("w"), "model_path": Path("m"), "dataset_path": Path("d")}


def test_the_registry_is_the_seven_kinds_in_order() -> None:
    assert [k.name for k in KINDS] == list(SAMPLE)
    assert kind_named("quality") is KINDS[3]


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kind_has_every_part(kind: MeasurementKind, tmp_path: Path) -> None:
    assert kind.report.model_fields["kind"].default == kind.name
    assert kind.filename == f"{kind.name}.json"
    assert issubclass(kind.overrides, Overrides) and dataclasses.is_dataclass(kind.overrides)
    # every field of the overrides record is a flag: the record is what the user may say
    assert all(flag_of(f) is not None for f in dataclasses.fields(kind.overrides))
    for part in (kind.from_profile, kind.required, kind.rules):
        assert callable(part)
    # compare reads what a change can make better or worse: not checks, not packages
    # (nor an audit: a rule passes or fails, it does not get better)
    assert (kind.compare is not None) == (kind.name not in ("check", "package", "audit"))
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


def references(kind: MeasurementKind) -> dict[str, tuple[str, int | None]]:
    """The record's ``"module:name"`` references: facet → (reference, the parameters its
    function takes; None: an object)."""
    refs: dict[str, tuple[str | None, int | None]] = {
        "run": (kind.run, 2),
        "exit_code": (kind.exit_code, 1),
        "silent_hooks": (kind.silent_hooks, None),
        "preflight": (kind.preflight, 1),
        "summary": (kind.summary, None),
    }
    if kind.console is not None:
        refs |= {"console hooks": (kind.console.hooks, 2), "render": (kind.console.render, 3)}
    if kind.image is not None:
        refs |= {"serve": (kind.image.serve, 1), "identify": (kind.image.identify, 2)}
    return {facet: (ref, n) for facet, (ref, n) in refs.items() if ref is not None}


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_reference_names_its_own_packages_facet(kind: MeasurementKind) -> None:
    """A heavy facet is a reference into the kind's own package (harness/kinds/lazy.py), to a
    function taking what the record passes it, or to the object the record reads."""
    package = kind.report.__module__.rsplit(".", 1)[0]  # harness.latency
    refs = references(kind)
    assert {"run", "exit_code", "silent_hooks"} <= set(refs)
    for facet, (ref, params) in refs.items():
        assert module_of(ref).startswith(package + "."), (facet, ref)
        target = resolve(ref)
        if params is None:
            assert not callable(target) or isinstance(target, KindSummary), (facet, ref)
        else:
            assert len(inspect.signature(target).parameters) == params, (facet, ref)
    facet = kind.summary_facet()
    assert (facet is None) == (kind.summary is None) and (
        facet is None or isinstance(facet, KindSummary)
    )


def test_a_record_refuses_a_malformed_reference() -> None:
    latency = kind_named("latency")
    with pytest.raises(ValueError, match=r"is not a 'harness\.package\.module:name' reference"):
        dataclasses.replace(latency, run="harness.latency.core.run")
    with pytest.raises(ValueError, match="reference"):
        dataclasses.replace(latency, summary="latency.summary:SUMMARY")


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
    assert step_names("server") == ["check", "latency", "throughput", "quality", "audit"]
    assert step_names("image") == ["package"]
    assert required_reports(QWEN) == ["check", "latency", "quality", "audit"]
    assert required_reports(PARIS, image=True) == [
        "check", "throughput", "quality", "audit", "package"
    ]  # fmt: skip
    assert required_reports(AICAS) == ["vlm"]
    plan = GatePlan(url="http://h:1", folder=Path("."), profile=PARIS)
    assert [k.name for k in plan.steps()] == ["check", "throughput", "quality", "audit"]


def test_tune_defers_the_steps_that_neither_gate_the_rest_nor_carry_the_score() -> None:
    from harness.tune.trial import deferred_steps

    # the audit, like quality, runs only on a candidate that could win
    for profile, deferred in ((QWEN, ["quality", "audit"]), (PARIS, ["quality", "audit"])):
        steps = GatePlan(url="http://h:1", folder=Path("."), profile=profile).steps()
        assert [k.name for k in deferred_steps(steps)] == deferred, profile.name


def test_the_kinds_summary_facets_share_no_key() -> None:
    """Each kind's ledger keys and gate.json figures are its own: no two kinds, and no common
    field of the ledger line or of gate.json, share one; one kind's score is ranked."""
    from harness.report.entry import LedgerEntry
    from harness.report.parts import summaries

    facets = summaries()
    assert [k.name for k, _ in facets] == ["check", "latency", "throughput", "quality", "vlm"]
    keys = [key for _, s in facets for key in s.part.model_fields]
    assert len(keys) == len(set(keys)) and not set(keys) & set(LedgerEntry.model_fields)
    figures = [key for _, s in facets if s.headline for key in s.headline(None)]
    assert figures == ["bucket_speedups", "quality"]
    assert not set(figures) & set(GateReport.model_fields)
    assert [k.name for k, s in facets if s.ranked is not None] == ["latency"]
    for _, s in facets:  # a run without the kind's report: every key has its default
        assert s.empty() == s.part.model_validate({})


def test_the_report_reader_reads_every_kind_then_the_verdict() -> None:
    assert (*(k.report for k in KINDS), GateReport) == REPORT_KINDS


def test_a_gate_option_reaches_every_step_that_has_it(tmp_path: Path) -> None:
    """The gate's options are the kinds' fields marked for it: one flag, every step."""
    by_flag = {o.flag: o.kinds for o in gate_options()}
    assert by_flag["--ready-timeout"] == ("check", "latency", "throughput", "quality", "audit")
    assert by_flag["--tokenizer"] == ("check", "latency", "throughput", "audit")
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


# Every module above the registry (its layer in tests/unit/test_layering.py is higher than
# the registry's: gate, compare's engine, report, demo, tune, cli, …) iterates the registry and
# names no kind and no kind's report class (the kind commands are built from the registry,
# harness/cli/kind_command.py). The exceptions that remain, each with its reason:
NAMES_KINDS: dict[str, str] = {
    "cli/vlm.py": "its sub-command `vlm latency` is spelled like the latency kind; it names"
    " the HTTP procedure of the vlm kind, not that kind; `vlm audit` writes the audit kind's"
    " report class (AuditReport, over harness/rule_report.py's RuleReport)",
    "tune/trial/slo_check.py": "SPACE.toml's SLOs are latency figures by definition (p99 TTFT of a"
    " bucket, no bucket slower than the baseline); a facet for them waits for a second kind with"
    " SLOs",
    "tune/trial/slo_step.py": "reads the trial's latency report for those SLOs (as tune/trial/slo_check.py)",
    "tune/trial/tail_race.py": "races a trial on those SLOs: its latency rows, and the baseline "
    "trial's latency report for a baseline bound (as tune/trial/slo_check.py)",
}


def above_the_registry() -> list[str]:
    """The package's modules (paths under harness/) in a layer above the registry's."""
    from tests.unit.test_layering import LAYERS, module_name, sources, unit

    floor = LAYERS[unit("harness.registry")]
    return [
        p.relative_to(PACKAGE).as_posix()
        for p in sources()
        if LAYERS.get(unit(module_name(p)), -1) > floor
    ]


def kind_names_in(text: str) -> list[str]:
    """The kinds' names as string literals and their report classes named in ``text``."""
    classes = [k.report.__name__ for k in KINDS]
    names = "|".join(k.name for k in KINDS)
    found = [c for c in classes if re.search(rf"\b{c}\b", text)]
    return found + [m.group(0) for m in re.finditer(rf"""["']({names})["']""", text)]


def test_no_module_above_the_registry_names_a_kind() -> None:
    modules = above_the_registry()
    # the set is computed, and it holds what iterates the registry
    assert {"gate/judge.py", "report/entry.py", "report/table.py", "tune/trial/__init__.py"} <= set(
        modules
    )
    assert not [m for m in modules if m.endswith("/kind.py") or m.startswith("kinds/")]
    found = []
    for rel in modules:
        if rel in NAMES_KINDS:
            continue
        found += [f"{rel}: {name}" for name in kind_names_in((PACKAGE / rel).read_text("utf-8"))]
    assert not found, found


def test_every_exception_still_names_a_kind() -> None:
    """An exception that no longer names a kind is taken off the list."""
    modules = set(above_the_registry())
    for rel in NAMES_KINDS:
        assert rel in modules, rel
        assert kind_names_in((PACKAGE / rel).read_text("utf-8")), rel


def test_the_guard_sees_a_kind_named() -> None:
    assert kind_names_in('x = run.get(LatencyReport) if k == "quality" else None') == [
        "LatencyReport",
        '"quality"',
    ]
    assert kind_names_in("for kind in KINDS: kind.summary()") == []


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


def test_gate_options_are_checked_by_the_kinds_own_usage() -> None:
    """``gate`` asks each kind's record to check its options before a run folder exists
    (latency: --buckets names the profile's buckets); a profile without latency asks none."""
    with pytest.raises(ConfigError, match="--buckets"):
        check_usage(QWEN, {"buckets": "short,tiny"})
    check_usage(QWEN, {"buckets": "short,long"})
    check_usage(PARIS, {"buckets": "short,tiny"})  # no latency step: nothing to check


def test_the_container_engine_is_the_package_kinds() -> None:
    kind, engine = engine_kind()
    assert kind.name == "package" and engine is kind.image
    assert [k.name for k in KINDS if k.image is not None] == ["package"]


# The modules that drive the gate's steps and the image: they reach the kinds only through
# the registry and their records' facets, never a kind's package itself.
THROUGH_RECORDS = ("cli/gate.py", "gate/image.py", "gate/orchestrate.py", "gate/image_id.py")


@pytest.mark.parametrize("rel", THROUGH_RECORDS)
def test_the_gates_drivers_import_no_kinds_package(rel: str) -> None:
    from tests.unit.test_layering import harness_imports, unit

    packages = {unit(k.report.__module__) for k in KINDS}  # latency, image, …
    found = [
        f"{rel}:{line} imports {target}"
        for line, target in harness_imports(PACKAGE / rel)
        if unit(target) in packages
    ]
    assert not found, found


def test_the_speed_steps_record_names_the_score_and_its_unit() -> None:
    """What a page calls the score and how it writes it come from the speed step's record."""
    qwen = speed_step(GatePlan(url="http://h:1", folder=Path("."), profile=QWEN).steps())
    paris = speed_step(GatePlan(url="http://h:1", folder=Path("."), profile=PARIS).steps())
    assert qwen is not None and qwen.score is not None and paris is not None
    assert (qwen.name, qwen.score.name, qwen.score.text(2.5)) == (
        "latency",
        "mean speedup",
        "2.50×",
    )
    assert qwen.score.text(2.5, 3) == "2.500×"  # a fixed number of decimals (tune's tables)
    assert paris.score is not None
    # every page writes the weighted score one way: whole tok/s, thousands commas (issue 47)
    assert paris.score.text(5800833.880000001) == "5,800,834"
    assert (paris.name, paris.score.name, paris.score.text(1234.5, 1)) == (
        "throughput",
        "weighted tok/s",
        "1234.5",
    )
    assert qwen.score.text(None) == "—"
    assert speed_step([kind_named("check"), kind_named("quality")]) is None


def test_a_runs_gate_cells_come_from_the_kinds_summaries(tmp_path: Path) -> None:
    from harness.report.entry import entry_for_folder
    from harness.report.parts import gate_cells
    from tests.fixtures.report_kinds import write_check
    from tests.unit.test_report_data import make_run

    run = make_run(
        tmp_path,
        "a",
        started_at="2026-02-01T10:00:00+00:00",
        medians={"short": 1291.0, "medium": 2720.5, "long": 3288.0},
        quality={"mmlu_pro": (0.71, 0.621, 120)},
    )
    write_check(run)
    cells = [(k.name, c) for k, c in gate_cells(entry_for_folder(run).parts)]
    assert cells == [("check", ["checks 3/3"]), ("quality", ["MMLU-Pro 0.710 ✓"])]
    bare = [(k.name, c) for k, c in gate_cells({})]
    assert bare == [("check", []), ("quality", [])]
