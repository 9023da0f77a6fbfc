"""The ``vlm`` kind: the AICAS in-process benchmark (``vlm.json`` + ``result.json``).

A wrapper around ``harness vlm run``'s runner (harness/vlm/run.py); the gate
judges ``vlm.json`` but does not run it (the benchmark needs the participant's
Python and a GPU).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from harness.compare.comparable import vlm_differences
from harness.compare.model import CompareReport
from harness.compare.side import CompareSettings, Side
from harness.compare.vlm import compare_vlm
from harness.errors import EXIT_INCOMPLETE, EXIT_OK, ConfigError
from harness.flags import Overrides, Target, non_negative_int, option, positive_float, positive_int
from harness.kinds.record import GateInputs, KindCompare, KindScore, MeasurementKind, RunEnv
from harness.profiles import Profile
from harness.verdict import Judgement
from harness.vlm import views as vlm_views
from harness.vlm.gate_rules import vlm_rules, vlm_score
from harness.vlm.report import VlmReport
from harness.vlm.run import OVERRIDABLE, VlmRunConfig, run_vlm


@dataclass(frozen=True)
class VlmOverrides(Overrides):
    """``harness vlm run``'s options. The three paths are required (checked when built)."""

    COMMAND = "vlm run"

    wrapper_dir: Path | None = option(
        "--wrapper-dir", type=Path, metavar="DIR", help="folder holding evaluation_wrapper.py"
    )
    model_path: Path | None = option(
        "--model-path", type=Path, metavar="DIR", help="model folder passed to VLMModel()"
    )
    dataset_path: Path | None = option(
        "--dataset-path", type=Path, metavar="DIR", help="TextVQA save_to_disk folder"
    )
    num_samples: int | None = option(
        "--num-samples", type=positive_int, help="first N rows (default: min(5000, len))"
    )
    python: str = option(
        "--python", default=sys.executable, help="the participant's Python (default: this one)"
    )
    baseline: Path | None = option(
        "--baseline",
        type=Path,
        metavar="RUN",
        help="a run folder of the template wrapper, same machine (default: none)",
    )
    seed: int | None = option(
        "--seed", type=int, help="--random-seed: seeds RNGs, never the order (default: none)"
    )
    timeout_s: float | None = option(
        "--timeout",
        type=positive_float,
        help="stop the runner after this many seconds (default: none)",
    )
    warmup_samples: int | None = option(
        "--warmup-samples",
        type=non_negative_int,
        help="NON-OFFICIAL: warm-up samples (default: the profile's, 10)",
    )
    warmup_tokens: int | None = option(
        "--warmup-tokens",
        type=positive_int,
        help="NON-OFFICIAL: warm-up tokens (default: the profile's, 10)",
    )
    throughput_tokens: int | None = option(
        "--throughput-tokens",
        type=positive_int,
        help="NON-OFFICIAL: tokens of the tok/s call (default: the profile's, 128)",
    )
    answer_tokens: int | None = option(
        "--answer-tokens",
        type=positive_int,
        help="NON-OFFICIAL: answer cap, for CPU tests (default: the profile's, 1024)",
    )


def from_profile(profile: Profile, target: Target, o: VlmOverrides) -> VlmRunConfig:
    spec = profile.require_vlm()
    if o.wrapper_dir is None or o.model_path is None or o.dataset_path is None:
        raise ConfigError(
            "vlm run needs --wrapper-dir, --model-path and --dataset-path",
            hint="see harness vlm run --help",
        )
    given = {n: getattr(o, n) for n in OVERRIDABLE if getattr(o, n) is not None}
    baseline = None
    if o.baseline is not None:
        if not (o.baseline / VlmReport.FILENAME).is_file():
            raise ConfigError(
                f"--baseline {o.baseline}: no vlm.json there", hint="a `vlm run` folder"
            )
        baseline = VlmReport.load(o.baseline)
    return VlmRunConfig(
        wrapper_dir=o.wrapper_dir,
        model_path=o.model_path,
        dataset_path=o.dataset_path,
        folder=target.folder,
        spec=spec,
        python=o.python,
        num_samples=o.num_samples,
        seed=o.seed,
        overrides={n: v for n, v in given.items() if v != getattr(spec, n)},
        baseline=baseline,
        baseline_name=o.baseline.name if o.baseline else "",
        timeout_s=o.timeout_s,
    )


def run(cfg: VlmRunConfig, env: RunEnv[None]) -> VlmReport:
    env.provenance.seed = cfg.seed
    return run_vlm(cfg, env.provenance)


def exit_code(report: VlmReport) -> int:
    return EXIT_OK if report.complete else EXIT_INCOMPLETE


def rules(report: VlmReport, inputs: GateInputs) -> Judgement:
    return vlm_rules(report)


def required(profile: Profile, image: bool) -> bool:
    return profile.vlm is not None


def differences(a: Side[VlmReport], b: Side[VlmReport]) -> tuple[list[str], list[str]]:
    return vlm_differences(a.report.model_dump(), b.report.model_dump()), []


def compare(a: Side[VlmReport], b: Side[VlmReport], s: CompareSettings, out: CompareReport) -> None:
    out.vlm = compare_vlm(
        [x.model_dump() for x in a.report.samples],
        [x.model_dump() for x in b.report.samples],
        min_effect_pct=s.min_effect_pct,
        seed=s.seed,
    )


KIND: MeasurementKind[VlmRunConfig, VlmOverrides, VlmReport, None] = MeasurementKind(
    name="vlm",
    command=("vlm", "run"),
    report=VlmReport,
    overrides=VlmOverrides,
    from_profile=from_profile,
    run=run,
    exit_code=exit_code,
    no_hooks=None,
    required=required,
    rules=rules,
    score=KindScore("AICAS final score (official baselines)", vlm_score),
    compare=KindCompare(load_extra=None, differences=differences, compare=compare),
    views=vlm_views.sections,
)
