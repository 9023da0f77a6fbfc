"""The typed configurations a VLM run is driven by, built only from the profile's ``[vlm]``.

``from_profile`` (``vlm run`` / ``vlm import``) and ``http_from_profile``
(``vlm latency``) take the profile, the target (the wrapper folder or the
server URL) and one :class:`VlmOverrides` record: the contest settings a test
or a quick look may lower. Any override that differs from the profile makes
the run non-official (``VlmReport.non_official`` and one ``non_official`` flag).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields
from pathlib import Path

from harness.profiles import Profile, VlmSpec


@dataclass(frozen=True)
class VlmOverrides:
    """Contest settings lowered for tests or quick looks; None keeps the profile's value."""

    warmup_samples: int | None = None
    warmup_tokens: int | None = None
    throughput_tokens: int | None = None
    answer_tokens: int | None = None

    def differing(self, spec: VlmSpec) -> dict[str, int]:
        """The given values that differ from the profile's (the run's non-official settings)."""
        out: dict[str, int] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None and value != getattr(spec, f.name):
                out[f.name] = int(value)
        return out


OVERRIDABLE: tuple[str, ...] = tuple(f.name for f in fields(VlmOverrides))


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


def from_profile(
    profile: Profile,
    wrapper_dir: Path,
    *,
    model_path: Path,
    dataset_path: Path,
    python: str | None = None,
    num_samples: int | None = None,
    seed: int | None = None,
    baseline: Path | None = None,
    timeout_s: float | None = None,
    overrides: VlmOverrides | None = None,
) -> VlmRunConfig:
    """The profile's VLM procedure on the wrapper in ``wrapper_dir``, then ``overrides``."""
    spec = profile.require_vlm()
    return VlmRunConfig(
        wrapper_dir=wrapper_dir,
        model_path=model_path,
        dataset_path=dataset_path,
        spec=spec,
        python=python or sys.executable,
        num_samples=num_samples,
        seed=seed,
        non_official=(overrides or VlmOverrides()).differing(spec),
        baseline=baseline,
        timeout_s=timeout_s,
    )


def http_from_profile(
    profile: Profile,
    url: str,
    *,
    dataset_path: Path,
    model: str | None = None,
    num_samples: int | None = None,
    request_timeout_s: float,
    api_key: str | None = None,
    overrides: VlmOverrides | None = None,
) -> VlmHttpConfig:
    """The same figures over HTTP at ``url`` (``vlm latency``); only the token caps override."""
    spec = profile.require_vlm()
    non_official = (overrides or VlmOverrides()).differing(spec)
    return VlmHttpConfig(
        url=url.rstrip("/"),
        dataset_path=dataset_path,
        spec=spec,
        model=model or spec.model,
        num_samples=num_samples,
        answer_tokens=non_official.get("answer_tokens"),
        throughput_tokens=non_official.get("throughput_tokens"),
        timeout_s=request_timeout_s,
        api_key=api_key,
    )
