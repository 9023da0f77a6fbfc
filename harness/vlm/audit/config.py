"""From the profile's ``[vlm.audit]`` and the ``harness vlm audit`` flags to one typed config."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import ConfigError
from harness.profiles import Profile, VlmAuditSpec
from harness.vlm.config import VlmOverrides


@dataclass(frozen=True)
class VlmAuditConfig:
    """The participant's wrapper asked about changed inputs, in its own Python."""

    wrapper_dir: Path
    model_path: Path
    dataset_path: Path
    spec: VlmAuditSpec
    python: str
    samples: int  # rows per set
    answer_tokens: int  # the benchmark's answer call's max_new_tokens
    non_official: dict[str, int] = field(default_factory=dict)  # setting → value used
    timeout_s: float | None = None  # per set


def audit_from_profile(profile: Profile, o: VlmOverrides) -> VlmAuditConfig:
    """``vlm audit``: the profile's rule settings, then the flags (``--answer-tokens`` below
    the contest's answer call is non-official: a wrapper could tell the calls apart by it)."""
    vlm = profile.require_vlm()
    if o.wrapper_dir is None or o.model_path is None or o.dataset_path is None:
        raise ConfigError(
            "vlm audit needs --wrapper-dir, --model-path and --dataset-path",
            hint="see harness vlm audit --help",
        )
    if o.audit_samples is not None and o.audit_samples < 3:
        raise ConfigError(
            "--audit-samples must be 3 or more", hint="fewer rows can never show a fail"
        )
    non_official = {k: v for k, v in o.differing(vlm).items() if k == "answer_tokens"}
    return VlmAuditConfig(
        wrapper_dir=o.wrapper_dir,
        model_path=o.model_path,
        dataset_path=o.dataset_path,
        spec=vlm.audit,
        python=o.python,
        samples=o.audit_samples or vlm.audit.samples,
        answer_tokens=non_official.get("answer_tokens", vlm.answer_tokens),
        non_official=non_official,
        timeout_s=o.timeout_s,
    )
