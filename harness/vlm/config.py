"""The typed configurations a VLM run is driven by, built only from the profile's ``[vlm]``.

``VlmOverrides`` is the one record of what a user may set (the ``harness vlm``
flags, declared once on its fields, harness/flags.py): ``vlm run`` takes all of
the run's, ``vlm import`` and ``vlm latency`` the ones that apply to them
(:data:`IMPORT_FLAGS`, :data:`HTTP_FLAGS`). ``from_profile`` (``vlm run``),
``import_from_profile`` (``vlm import``) and ``http_from_profile`` (``vlm
latency``) are the builders. The four contest settings (:data:`OVERRIDABLE`) a
test or a quick look may lower: any that differs from the profile makes the run
non-official (``VlmReport.non_official`` and one ``non_official`` flag).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harness.argtypes import non_negative_int, positive_int
from harness.errors import ConfigError
from harness.flags import option, seconds
from harness.overrides import Overrides
from harness.profiles import Profile, VlmSpec
from harness.target import Target

API_KEY_ENV = "HARNESS_API_KEY"  # vlm latency's bearer token, as harness submit's
NO_MODEL_PATH = Path(".")  # vlm import without --model-path

# the contest settings an override may lower (each one makes the run non-official)
OVERRIDABLE: tuple[str, ...] = (
    "warmup_samples",
    "warmup_tokens",
    "throughput_tokens",
    "answer_tokens",
)


def _nonofficial(what: str) -> str:
    return f"NON-OFFICIAL: {what}"


@dataclass(frozen=True)
class VlmOverrides(Overrides):
    """What a user may set for a VLM run; None: the profile's value (or none)."""

    COMMAND = "vlm run"

    wrapper_dir: Path | None = option(
        "--wrapper-dir", type=Path, metavar="DIR", help="folder holding evaluation_wrapper.py"
    )
    model_path: Path | None = option(
        "--model-path",
        type=Path,
        metavar="DIR",
        help="the model folder (run: passed to VLMModel(); import: read for the pixel-budget "
        "check)",
    )
    dataset_path: Path | None = option(
        "--dataset-path", type=Path, metavar="DIR", help="TextVQA save_to_disk folder"
    )
    num_samples: int | None = option(
        "--num-samples",
        type=positive_int,
        metavar="N",
        help="first N rows (default: min(5000, len), the profile's max_samples)",
    )
    python: str = option(
        "--python",
        default=sys.executable,
        metavar="PATH",
        help="the participant's Python (default: the one running harness)",
    )
    baseline: Path | None = option(
        "--baseline",
        type=Path,
        metavar="RUN",
        help="a run folder of the template wrapper, same machine (default: none)",
    )
    seed: int | None = option(
        "--seed",
        type=int,
        help="--random-seed: seeds RNGs, never the order (default: none, as the organisers')",
    )
    timeout_s: float | None = seconds(
        "--timeout", help="stop the runner after this many seconds (default: no limit)"
    )
    warmup_samples: int | None = option(
        "--warmup-samples",
        type=non_negative_int,
        metavar="N",
        help=_nonofficial(
            "warm-up samples (default: the profile's, {aicas-vlm:vlm.warmup_samples})"
        ),
    )
    warmup_tokens: int | None = option(
        "--warmup-tokens",
        type=positive_int,
        metavar="N",
        help=_nonofficial("warm-up tokens (default: the profile's, {aicas-vlm:vlm.warmup_tokens})"),
    )
    throughput_tokens: int | None = option(
        "--throughput-tokens",
        type=positive_int,
        metavar="N",
        help=_nonofficial(
            "tokens of the tok/s call (default: the profile's, {aicas-vlm:vlm.throughput_tokens})"
        ),
    )
    answer_tokens: int | None = option(
        "--answer-tokens",
        type=positive_int,
        metavar="N",
        help=_nonofficial(
            "answer cap, for CPU tests (default: the profile's, {aicas-vlm:vlm.answer_tokens})"
        ),
    )
    # vlm audit only: rows per set
    audit_samples: int | None = option(
        "--audit-samples",
        type=positive_int,
        metavar="N",
        help="vlm audit: rows per set, a second set only to confirm a fail "
        "(default: the profile's, {aicas-vlm:vlm.audit.samples})",
    )
    # vlm latency only: the served model and the per-request timeout
    model: str | None = option("--model", help="the model name sent (default: the profile's)")
    request_timeout_s: float = seconds(
        "--request-timeout", default=600.0, help="per-request timeout in s"
    )

    def differing(self, spec: VlmSpec) -> dict[str, int]:
        """The contest settings given that differ from the profile's (non-official)."""
        out: dict[str, int] = {}
        for name in OVERRIDABLE:
            value = getattr(self, name)
            if value is not None and value != getattr(spec, name):
                out[name] = int(value)
        return out


# the fields each sub-command takes (``vlm run`` takes every run field)
RUN_FLAGS = (
    "wrapper_dir",
    "model_path",
    "dataset_path",
    "num_samples",
    "python",
    "baseline",
    "seed",
    "timeout_s",
    *OVERRIDABLE,
)
RUN_REQUIRED = ("wrapper_dir", "model_path", "dataset_path")
IMPORT_FLAGS = ("model_path", "baseline", *OVERRIDABLE)
AUDIT_FLAGS = (
    "wrapper_dir",
    "model_path",
    "dataset_path",
    "python",
    "timeout_s",
    "audit_samples",
    "answer_tokens",
)
HTTP_FLAGS = (
    "dataset_path",
    "num_samples",
    "model",
    "throughput_tokens",
    "answer_tokens",
    "request_timeout_s",
)


@dataclass(frozen=True)
class VlmHttpConfig:
    """``harness vlm latency``: the procedure's three calls per sample sent to a server."""

    url: str
    dataset_path: Path
    spec: VlmSpec
    model: str
    num_samples: int | None  # None: min(max_samples, rows)
    answer_tokens: int | None  # None: the profile's
    throughput_tokens: int | None  # None: the profile's
    timeout_s: float  # per request
    api_key: str | None = None


@dataclass(frozen=True)
class VlmRunConfig:
    """``harness vlm run``: the participant's wrapper run by the runner script, in its Python."""

    wrapper_dir: Path
    model_path: Path
    dataset_path: Path
    spec: VlmSpec
    python: str  # the participant's interpreter
    num_samples: int | None  # None: min(max_samples, rows), as the official script
    seed: int | None  # --random-seed: seeds the RNGs, never the order
    non_official: dict[str, int] = field(default_factory=dict)  # setting → value used
    baseline: Path | None = None  # a run folder of the template wrapper, same machine
    timeout_s: float | None = None  # stop the runner after this many seconds

    def value(self, name: str) -> int:
        """A contest setting as this run uses it (the override, else the profile's)."""
        return int(self.non_official.get(name, getattr(self.spec, name)))

    @property
    def baseline_name(self) -> str:
        return self.baseline.name if self.baseline is not None else ""


def from_profile(profile: Profile, target: Target, o: VlmOverrides) -> VlmRunConfig:
    """The profile's VLM procedure on the wrapper ``o.wrapper_dir``, then ``o``'s settings.

    The run folder is ``target.folder`` (the core writes there); the three paths are
    required (a ConfigError naming them, exit 2)."""
    spec = profile.require_vlm()
    if o.wrapper_dir is None or o.model_path is None or o.dataset_path is None:
        raise ConfigError(
            "vlm run needs --wrapper-dir, --model-path and --dataset-path",
            hint="see harness vlm run --help",
        )
    return VlmRunConfig(
        wrapper_dir=o.wrapper_dir,
        model_path=o.model_path,
        dataset_path=o.dataset_path,
        spec=spec,
        python=o.python,
        num_samples=o.num_samples,
        seed=o.seed,
        non_official=o.differing(spec),
        baseline=o.baseline,
        timeout_s=o.timeout_s,
    )


def import_from_profile(profile: Profile, o: VlmOverrides) -> VlmRunConfig:
    """``vlm import``: records run elsewhere; only the model folder (the pixel-budget check),
    the baseline and the contest settings matter (the records' own settings are merged in by
    the core, harness/vlm/core.py: import_vlm)."""
    spec = profile.require_vlm()
    return VlmRunConfig(
        wrapper_dir=Path("."),
        model_path=o.model_path or NO_MODEL_PATH,
        dataset_path=Path("."),
        spec=spec,
        python="(imported)",
        num_samples=None,
        seed=None,
        non_official=o.differing(spec),
        baseline=o.baseline,
    )


def http_from_profile(profile: Profile, target: Target, o: VlmOverrides) -> VlmHttpConfig:
    """The same figures over HTTP at ``target.url`` (``vlm latency``); only the token caps
    override. The bearer token is ``$HARNESS_API_KEY`` when set."""
    spec = profile.require_vlm()
    if o.dataset_path is None:
        raise ConfigError("vlm latency needs --dataset-path", hint="see harness vlm latency --help")
    non_official = o.differing(spec)
    return VlmHttpConfig(
        url=target.url.rstrip("/"),
        dataset_path=o.dataset_path,
        spec=spec,
        model=o.model or spec.model,
        num_samples=o.num_samples,
        answer_tokens=non_official.get("answer_tokens"),
        throughput_tokens=non_official.get("throughput_tokens"),
        timeout_s=o.request_timeout_s,
        api_key=os.environ.get(API_KEY_ENV),
    )
