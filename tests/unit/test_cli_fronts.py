"""One front end for every kind: commands built from the registry by one runner, one --json
spelling; submit's options as an overrides record; demo's options the gate's declarations;
the simulator's flags declared with option()."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

import harness
from harness.cli import OTHER_COMMANDS, build_parser, commands
from harness.cli.front import Front, Outcome
from harness.cli.kind_command import front_of, json_document
from harness.demo import QUICK
from harness.gate.options import gate_options
from harness.profiles import load_profile
from harness.registry import KINDS, kind_named
from harness.simulate.config import SimConfig
from harness.simulate.flags import SimOverrides
from harness.submit.config import SubmitOverrides, from_profile
from tests.fixtures.report_kinds import write_throughput

CLI = Path(harness.__file__).parent / "cli"


def _sub(argv: list[str]) -> argparse.ArgumentParser:
    root = build_parser(argv)
    (sub,) = [a for a in root._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[argv[0]]  # type: ignore[no-any-return]


def test_every_kind_has_its_command_from_the_registry() -> None:
    names = list(commands())
    assert names[: len(KINDS)] == [k.command[0] for k in KINDS]
    assert names[len(KINDS) :] == list(OTHER_COMMANDS)
    for kind in KINDS:
        assert isinstance(front_of(kind), Front), kind.name
        assert _sub([kind.command[0]]).prog == f"harness {kind.command[0]}"


def test_no_kind_command_module_registers_or_prints_by_hand() -> None:
    """The skeleton is the runner's: a kind's module holds its Front only, and neither it nor
    submit spells --json itself (cli/common.py: print_json is the one spelling)."""
    found = []
    modules = [f"{kind.command[0]}.py" for kind in KINDS]
    for name in modules:
        text = (CLI / name).read_text(encoding="utf-8")
        found += [f"{name}: {w}" for w in ("def register", "add_common(") if w in text]
    for name in [*modules, "kind_command.py", "selftest.py", "submit.py"]:
        text = (CLI / name).read_text(encoding="utf-8")
        if re.search(r"json\.dumps|\.to_json\(\)|stdout\.write", text):
            found.append(f"{name}: writes JSON to stdout itself")
    assert not found, found


def test_json_is_the_report_less_its_exclusions_or_beside_its_repeats(tmp_path: Path) -> None:
    tp = kind_named("throughput")
    report = write_throughput(tmp_path)
    doc = json_document(tp, front_of(tp), Outcome(report))
    assert doc["kind"] == "throughput" and "requests" not in doc
    assert {k: v for k, v in json.loads(report.to_json()).items() if k != "requests"} == doc
    lat = kind_named("latency")
    beside = write_throughput(tmp_path / "b")  # any report: the document holds it whole
    nested = json_document(lat, Front(summary=""), Outcome(report, beside={"repeats": beside}))
    assert list(nested) == ["latency", "repeats"] and "requests" in nested["latency"]


def test_the_demos_options_are_the_gates_declarations() -> None:
    demo = {a.dest: a for a in _sub(["demo"])._actions}
    gate = {a.dest: a for a in _sub(["gate"])._actions}
    by_key = {o.key: o for o in gate_options()}
    for key, default in QUICK.items():
        assert key in by_key, key
        mine, theirs = demo[key], gate[key]
        assert (mine.option_strings, mine.type, mine.choices, mine.metavar) == (
            theirs.option_strings,
            theirs.type,
            theirs.choices,
            theirs.metavar,
        )
        assert mine.default == default


def test_every_simulator_knob_has_a_declared_flag() -> None:
    declared = {f.name: spec.name for f, spec in SimOverrides.flags()}
    assert set(declared) == set(SimConfig.model_fields)
    assert declared["models"] == "--model"  # the flag is declared, not derived from the name
    cfg = SimConfig(prefix_cache=True, log_bodies=False, models=("a",), jitter_pct=2.5)
    assert SimOverrides.of(cfg).argv() == [
        "--model", "a", "--prefix-cache", "--jitter-pct", "2.5", "--no-log-bodies",
    ]  # fmt: skip
    assert SimOverrides.of(SimConfig()).argv() == []


def test_submit_builds_its_config_from_the_profile_and_its_record(tmp_path: Path) -> None:
    argv = ["submit", "a.tar.gz", "--team", "t1", "--api-url", "http://h:1", "--dry-run"]
    args = build_parser(argv).parse_args([*argv, "--reports", "x", "--reports", "y"])
    o = SubmitOverrides.from_args(args)
    assert (o.team_id, o.api_url, o.dry_run, o.reports, o.parallel) == (
        "t1",
        "http://h:1",
        True,
        ("x", "y"),
        6,
    )
    seen: list[list[Path]] = []

    def records(folders: object) -> list[object]:
        seen.append(list(folders))  # type: ignore[call-overload]
        return []

    cfg = from_profile(load_profile(), tmp_path / "a.tar.gz", o, gate_records=records, warn=print)  # type: ignore[arg-type]
    assert cfg.api_key == "" and cfg.policy.attempts == 8 and cfg.gate_records() == []
    assert seen[0][1:] == [Path("x"), Path("y")]


def test_submit_without_a_package_section_is_a_config_error(tmp_path: Path) -> None:
    o = SubmitOverrides(team_id="t1", api_url="http://h:1", dry_run=True)
    with pytest.raises(Exception, match="has no \\[package\\] section"):
        from_profile(load_profile("aicas-vlm"), tmp_path / "a", o, gate_records=list, warn=print)  # type: ignore[arg-type]
