"""The cores' pure parts: command lines that re-parse to the same config, exit-code
policies, the quality environment restored, folders read from the environment now."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

import nltk
import pytest

from harness.argtypes import non_negative_int, positive_float, positive_int, quality_limit
from harness.cli import build_parser
from harness.cli.common import RunContext
from harness.errors import EXIT_FAIL, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK, EXIT_TARGET
from harness.gate.options import gate_options, options_from_args
from harness.gate.orchestrate import UNSTARTED, GatePlan, check_plan, exit_code
from harness.gate.report import GateReport, Verdict
from harness.latency.kind import KIND as LATENCY
from harness.paths import cache_dir, reports_dir
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.quality import core as quality_core
from harness.quality.config import QualityOverrides
from harness.quality.config import from_profile as quality_config
from harness.quality.kind import KIND as QUALITY
from harness.registry import KINDS
from harness.run_folder import new_run_folder
from harness.target import Target
from harness.throughput.config import ThroughputOverrides
from harness.throughput.config import from_profile as throughput_config
from harness.throughput.kind import KIND as THROUGHPUT

QWEN = load_profile()
PARIS = load_profile("gpumode-paris")
OPTION_KEYS = [o.key for o in gate_options()]


def reparse(argv: list[str]):
    assert argv[0] == "harness"
    return build_parser(argv[1:]).parse_args(argv[1:])


def ctx(profile, folder: Path) -> RunContext:
    return RunContext(profile, folder, Provenance(), console=None)  # type: ignore[arg-type]


def test_quality_command_line_reparses_to_the_same_config(tmp_path: Path) -> None:
    from harness.cli.kind_command import kind_config

    target = Target(folder=tmp_path, url="http://127.0.0.1:9")
    overrides = QualityOverrides(
        data_dir=tmp_path / "data",
        limit=0.25,
        only="ifeval,gpqa_diamond",
        max_gen_toks=16,
        stream=True,
        idle_timeout_s=30.0,
        model="m",
        resume=False,
        ready_timeout_s=9.0,
        decide=True,
        seed=7,
    )
    cfg = quality_config(QWEN, target, overrides)
    argv = QUALITY.command_line(target, overrides, "efficient-qwen")
    assert kind_config(QUALITY, reparse(argv), ctx(QWEN, tmp_path)) == cfg


def test_throughput_command_line_reparses_to_the_same_config(tmp_path: Path) -> None:
    from harness.cli.kind_command import kind_config

    target = Target(folder=tmp_path, url="http://127.0.0.1:9")
    overrides = ThroughputOverrides(
        mode="strict",
        levels="1,4",
        requests_per_level=5,
        warmup=1,
        prompt_tokens=100,
        spot_checks=0,
        force_length=True,
        seed=42,
        model="m",
        timeout_s=30.0,
        ready_timeout_s=7.0,
        chart=False,
    )
    cfg = throughput_config(PARIS, target, overrides)
    argv = THROUGHPUT.command_line(target, overrides, "gpumode-paris")
    assert kind_config(THROUGHPUT, reparse(argv), ctx(PARIS, tmp_path)) == cfg


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_kinds_overrides_render_to_flags_that_reparse(kind, tmp_path: Path) -> None:
    """A record of every field set to a non-default value: its flags re-parse to it."""
    sample = {
        None: "x",
        str: "x",
        int: 3,
        positive_int: 3,
        non_negative_int: 3,
        float: 2.5,
        positive_float: 2.5,
        quality_limit: 0.5,
        Path: tmp_path / "p",
    }
    given: dict[str, object] = {}
    for f, spec in kind.overrides.flags():
        if isinstance(f.default, bool):
            given[f.name] = not f.default
        elif spec.choices:
            given[f.name] = next(c for c in spec.choices if c != f.default)
        else:
            given[f.name] = sample[spec.type]
    overrides = kind.overrides(**given)
    argv = overrides.argv()
    parser = argparse.ArgumentParser()
    kind.overrides.add_arguments(parser)
    assert kind.overrides.from_args(parser.parse_args(argv)) == overrides


def test_gate_exit_code_policy() -> None:
    def rep(v: Verdict) -> GateReport:
        return GateReport(verdict=v)

    assert exit_code(rep(Verdict.PASS)) == EXIT_OK
    assert exit_code(rep(Verdict.FAIL)) == EXIT_FAIL
    assert exit_code(rep(Verdict.INCOMPLETE)) == EXIT_INCOMPLETE
    # an unreachable server (3) says more than INCOMPLETE, less than a FAIL verdict
    assert exit_code(rep(Verdict.INCOMPLETE), EXIT_TARGET) == EXIT_TARGET
    assert exit_code(rep(Verdict.FAIL), EXIT_TARGET) == EXIT_FAIL
    assert exit_code(rep(Verdict.FAIL), EXIT_INTERRUPTED) == EXIT_INTERRUPTED


def test_gate_plan_steps_follow_the_profile_and_its_line_reparses(tmp_path: Path) -> None:
    plan = GatePlan(
        url="http://h:1",
        folder=tmp_path,
        profile=QWEN,
        options={"runs": 2, "ready_timeout": 9.0, "decide": True},
        skip=frozenset({"quality"}),
        name="x",
        note="n",
    )
    assert [k.name for k in plan.steps()] == ["check", "latency", "audit"]
    paris = GatePlan(url="http://h:1", folder=tmp_path, profile=PARIS)
    assert [k.name for k in paris.steps()] == ["check", "throughput", "quality", "audit"]
    args = reparse(plan.command_line())
    assert (args.command, args.url, args.runs, args.name, args.note, args.out, args.skip) == (
        "gate",
        "http://h:1",
        2,
        "x",
        "n",
        str(tmp_path),
        ["quality"],
    )
    assert options_from_args(args) == {
        **dict.fromkeys(OPTION_KEYS),
        **plan.options,
        "latency_mode": "both",
    }
    # a switch reaches its step as the flag it is (quality --decide)
    assert plan.overrides(QUALITY).decide
    assert not GatePlan(url="http://h:1", folder=tmp_path, profile=QWEN).overrides(QUALITY).decide


def test_check_plan_returns_the_configs_it_built(tmp_path: Path) -> None:
    """What a launcher reads its settings off (tune: runs, buckets, mode): each step's
    config, the profile's values unless an option says otherwise."""
    skip = frozenset({"quality"})  # its preflight wants the data
    bare = check_plan(GatePlan(url=UNSTARTED, folder=tmp_path, profile=QWEN, skip=skip))
    assert sorted(bare.by_kind) == ["audit", "check", "latency"]
    assert bare.of(QUALITY) is None and bare.of(THROUGHPUT) is None  # skipped; not QWEN's
    latency = bare.of(LATENCY)
    assert QWEN.latency is not None and latency is not None
    assert (latency.runs, latency.mode) == (QWEN.latency.runs, "both")
    assert latency.buckets == tuple(QWEN.latency.buckets)
    options = {"runs": 3, "buckets": "long,short", "latency_mode": "official"}
    told = check_plan(GatePlan(UNSTARTED, tmp_path, QWEN, options, skip)).of(LATENCY)
    assert told is not None
    assert (told.runs, [b.name for b in told.buckets], told.mode) == (
        3,
        ["long", "short"],
        "official",
    )


def test_quality_environment_is_restored(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.delenv("NLTK_DATA", raising=False)
    path_before = list(nltk.data.path)
    level_before = logging.getLogger("lm_eval").level
    with quality_core.offline_env(tmp_path):
        assert os.environ["HF_HUB_OFFLINE"] == os.environ["HF_DATASETS_OFFLINE"] == "1"
        assert os.environ["NLTK_DATA"] == str(tmp_path)
        assert nltk.data.path[0] == str(tmp_path)
        assert logging.getLogger("lm_eval").level == logging.ERROR
    assert os.environ["HF_HUB_OFFLINE"] == "0"
    assert "HF_DATASETS_OFFLINE" not in os.environ and "NLTK_DATA" not in os.environ
    assert nltk.data.path == path_before
    assert logging.getLogger("lm_eval").level == level_before


def test_datasets_progress_bars_are_silent_inside_and_restored_after(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """datasets' bars ("Generating test split", "Filter: 100%") ignore a TQDM_DISABLE set
    after tqdm was imported: 116 such lines once flooded a tune's console."""
    import datasets

    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n')
    with quality_core.offline_env(tmp_path):
        got = datasets.load_dataset("json", data_files=str(data), cache_dir=str(tmp_path / "c"))
        got["train"].filter(lambda row: True)
    assert datasets.is_progress_bar_enabled()
    out, err = capfd.readouterr()
    assert "Generating" not in out + err and "Filter" not in out + err


def test_quality_environment_is_restored_after_an_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    with pytest.raises(KeyboardInterrupt), quality_core.offline_env(tmp_path):
        raise KeyboardInterrupt
    assert "TQDM_DISABLE" not in os.environ


def test_folders_follow_the_environment_at_call_time(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(tmp_path / "r"))
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "c"))
    assert reports_dir() == tmp_path / "r"
    assert cache_dir() == tmp_path / "c"
    assert new_run_folder(None, "x", "latency").parent == tmp_path / "r"
    monkeypatch.delenv("HARNESS_CACHE_DIR")
    assert cache_dir() == Path.home() / ".cache" / "harness"
