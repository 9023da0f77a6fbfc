"""The VLM core's pure parts: config from the profile, its command line, exit codes,
typed flags (the non-official one once), vlm.json schema 1 migrated, the records tail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import build_parser
from harness.cli.common import RunContext
from harness.errors import EXIT_INCOMPLETE, EXIT_OK, EXIT_TARGET, ConfigError
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.report_base import load_report
from harness.risk import FlagKind
from harness.target import Target
from harness.vlm.analysis import analyze
from harness.vlm.config import VlmOverrides, from_profile
from harness.vlm.core import exit_code
from harness.vlm.gate_rules import vlm_rules
from harness.vlm.kind import KIND
from harness.vlm.report import VlmReport, VlmSample
from harness.vlm.run import RecordTail

AICAS = load_profile("aicas-vlm")
SPEC = AICAS.require_vlm()


def _sample(i: int, **kw: object) -> VlmSample:
    base: dict[str, object] = dict(
        question_id=34602 + i, index=i, ttft_ms=20.0, throughput_ms=700.0, throughput_tokens=128,
        tok_s=128 / 0.7, counted=True, prediction="stop", answers=["stop"] * 10,
    )  # fmt: skip
    base.update(kw)
    return VlmSample.model_validate(base)


def test_overrides_equal_to_the_profile_are_official(tmp_path: Path) -> None:
    target = Target(folder=tmp_path)
    paths = dict(wrapper_dir=tmp_path, model_path=tmp_path, dataset_path=tmp_path)
    same = VlmOverrides(
        **paths, warmup_samples=SPEC.warmup_samples, answer_tokens=SPEC.answer_tokens
    )
    cfg = from_profile(AICAS, target, same)
    assert cfg.non_official == {} and cfg.value("answer_tokens") == 1024
    low = VlmOverrides(**paths, answer_tokens=8, throughput_tokens=SPEC.throughput_tokens)
    cfg = from_profile(AICAS, target, low)
    assert cfg.non_official == {"answer_tokens": 8}
    assert (cfg.value("answer_tokens"), cfg.value("throughput_tokens")) == (8, 128)


def test_vlm_run_needs_its_three_paths(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--wrapper-dir, --model-path and --dataset-path"):
        from_profile(AICAS, Target(folder=tmp_path), VlmOverrides(model_path=tmp_path))


def test_command_line_reparses_to_the_same_config(tmp_path: Path) -> None:
    from harness.cli.kind_command import kind_config

    overrides = VlmOverrides(
        wrapper_dir=tmp_path / "wrapper",
        model_path=tmp_path / "model",
        dataset_path=tmp_path / "data",
        python="/usr/bin/python3",
        num_samples=6,
        seed=3,
        baseline=tmp_path / "base",
        timeout_s=90.0,
        warmup_samples=1,
        answer_tokens=8,
    )
    target = Target(folder=tmp_path / "run")
    cfg = from_profile(AICAS, target, overrides)
    argv = KIND.command_line(target, overrides, "aicas-vlm")
    assert argv[:3] == ["harness", "vlm", "run"]
    args = build_parser(argv[1:]).parse_args(argv[1:])
    assert args.out == str(tmp_path / "run")
    ctx = RunContext(AICAS, tmp_path / "run", Provenance(), console=None)  # type: ignore[arg-type]
    assert kind_config(KIND, args, ctx) == cfg


def test_exit_code_policy() -> None:
    done = analyze(VlmReport(samples=[_sample(0), _sample(1)]), SPEC)
    assert exit_code(done) == EXIT_OK
    assert exit_code(done.model_copy(update={"complete": False})) == EXIT_INCOMPLETE
    nothing = analyze(VlmReport(samples=[_sample(0, counted=False, tok_s=0.0)]), SPEC)
    assert exit_code(nothing) == EXIT_TARGET


def test_non_official_is_flagged_once_with_its_kind() -> None:
    rep = VlmReport(samples=[_sample(0), _sample(1)], official=False)
    rep.non_official = {"answer_tokens": 8}
    analyze(rep, SPEC)
    kinds = [f.kind for f in rep.flags]
    assert kinds.count(FlagKind.NON_OFFICIAL) == 1
    _, gate_flags = vlm_rules(rep)
    assert [f.kind for f in gate_flags].count(FlagKind.NON_OFFICIAL) == 1
    assert all(f.source == "vlm" for f in rep.flags + gate_flags)


SCHEMA_1_FLAGS = {
    "early EOS in the 128-token call on 3/6 samples (mean 40 tokens): x": FlagKind.EARLY_STOP,
    "the 128-token output is not a prefix of the answer on 1 samples (e.g. 1): x": (
        FlagKind.VLM_CALL_DEPENDENCE
    ),
    "the TTFT call's token differs from the 128-token call's first token on 2 samples": (
        FlagKind.VLM_CALL_DEPENDENCE
    ),
    "the 4/6 multi-token calls took less time than the 1-token call before them on the same "
    "inputs: work is cached across generate calls (x)": FlagKind.VLM_CROSS_CALL_CACHE,
    "the first measured sample ran at 21.6 tok/s against a median of 181.4: x": (
        FlagKind.VLM_COLD_WARMUP
    ),
    "1/6 samples left out of the official averages (1: tok/s 0): x": FlagKind.REQUEST_FAILURES,
    "the processor's pixel budget differs from the model folder's config: x": (
        FlagKind.VLM_PIXEL_BUDGET
    ),
    "2 samples reuse an image already sent: x": FlagKind.VLM_REPEATED_IMAGES,
    "no ground-truth answers in the dataset: accuracy and the score are not computed": (
        FlagKind.VLM_NO_GROUND_TRUTH
    ),
    "non-official settings (tests / quick looks): {'answer_tokens': 8}": FlagKind.NON_OFFICIAL,
    "the runner stopped early (exit -9): killed": FlagKind.RUN_STOPPED,
    "something a newer rule said": FlagKind.VLM_INTEGRITY,
}


def test_schema_1_vlm_json_reads_with_typed_flags(tmp_path: Path) -> None:
    old = {
        "kind": "vlm",
        "schema_version": 1,
        "samples": [{"question_id": 1, "ttft_ms": 20.0, "tok_s": 100.0, "counted": True}],
        "ttft_dist": {"n": 1, "mean": 20.0, "p50": 20.0, "p90": 20.0, "min": 20.0, "max": 20.0},
        "flags": list(SCHEMA_1_FLAGS),
    }
    (tmp_path / "vlm.json").write_text(json.dumps(old))
    rep = load_report(tmp_path, VlmReport)
    assert rep is not None and rep.schema_version == VlmReport.SCHEMA_VERSION == 2
    assert [(f.text, f.kind) for f in rep.flags] == list(SCHEMA_1_FLAGS.items())
    assert rep.ttft_dist.p50 == 20.0 and rep.ttft_dist.median is None  # the one Dist type


def test_records_tail_reads_only_complete_new_lines(tmp_path: Path) -> None:
    path = tmp_path / "vlm-records.jsonl"
    tail = RecordTail(path)
    assert tail.new_records() == []
    path.write_text('{"type": "start"}\n{"type": "sam')
    assert tail.new_records() == [{"type": "start"}]
    with path.open("a") as fh:
        fh.write('ple", "index": 0}\nnot json\n')
    assert tail.new_records() == [{"type": "sample", "index": 0}]
    assert tail.new_records() == []
