"""``vlm.json``: one record per sample, the official means, and harness's own figures.

``result.json`` (the official format: ``system_info``, ``performance``,
``answers``) is written beside it by :mod:`harness.vlm.core`; ``gate``,
``report`` and ``compare`` read ``vlm.json`` through :func:`harness.report_base.load_report`.

Schema 2 (this one): ``flags`` are typed :class:`~harness.risk.RiskFlag` records
(schema 1 held strings: the migration gives each its rule's kind), and the
distributions are :class:`harness.stats.summary.Dist`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from harness.report_base import Migration, Report
from harness.risk import FlagKind, RiskFlag
from harness.stats.summary import Dist


class VlmSample(BaseModel):
    """One measured sample, as the runner recorded it (extra keys kept: newer runners)."""

    model_config = ConfigDict(extra="allow")

    question_id: Any = None
    index: int = 0
    question: str | None = None
    answers: list[str] = Field(default_factory=list)  # ground truths (from the dataset, if any)
    input_tokens: int | None = None
    image_grid_thw: list[int] | None = None
    visual_tokens: int | None = None
    image_sha256: str | None = None  # HTTP mode: repeated images hit server caches
    processor_ms: float | None = None  # timed, but outside TTFT (as the official script)
    ttft_ms: float | None = None  # None = the official "inf"
    ttft_event_ms: float | None = None  # CUDA events around the same call (harness's own)
    ttft_stream_ms: float | None = None  # HTTP mode: first streamed chunk
    throughput_ms: float | None = None
    throughput_event_ms: float | None = None
    throughput_tokens: int = 0
    tok_s: float = 0.0
    counted: bool = False  # in the official averages
    early_eos: bool = False
    ttft_token_matches: bool | None = None
    throughput_prefix_of_answer: bool | None = None
    answer_processor_ms: float | None = None
    answer_ms: float | None = None
    answer_tokens: int = 0
    answer_generated: bool = False
    prediction: str = ""
    accuracy_vqa: float | None = None
    accuracy_containment: float | None = None
    error: str | None = None


class Accuracy(BaseModel):
    n: int = 0
    vqa: float | None = None
    containment: float | None = None
    yes_no: float | None = None
    yes_no_n: int = 0
    headline: str = "containment"
    headline_value: float | None = None


class Score(BaseModel):
    """The contest's score from one set of figures and baselines."""

    baseline: str  # "official" (80 ms / 55 tok/s) or "local:<run>"
    baseline_ttft_ms: float
    baseline_tok_s: float
    accuracy: float | None = None
    ttft_ms: float | None = None
    tok_s: float | None = None
    accuracy_term: float | None = None
    ttft_term: float | None = None
    throughput_term: float | None = None
    score: float | None = None
    score_ci: tuple[float, float] | None = None


# Schema-1 flag texts: how each rule's text starts (or what it holds) → its kind.
_LEGACY_STARTS: tuple[tuple[str, FlagKind], ...] = (
    ("early EOS", FlagKind.EARLY_STOP),
    ("the TTFT call's token", FlagKind.VLM_CALL_DEPENDENCE),
    ("the first measured sample", FlagKind.VLM_COLD_WARMUP),
    ("the processor's pixel budget", FlagKind.VLM_PIXEL_BUDGET),
    ("no ground-truth answers", FlagKind.VLM_NO_GROUND_TRUTH),
    ("non-official settings", FlagKind.NON_OFFICIAL),
    ("the runner stopped early", FlagKind.RUN_STOPPED),
)
_LEGACY_HOLDS: tuple[tuple[str, FlagKind], ...] = (
    ("is not a prefix of the answer", FlagKind.VLM_CALL_DEPENDENCE),
    ("cached across generate calls", FlagKind.VLM_CROSS_CALL_CACHE),
    ("left out of the official averages", FlagKind.REQUEST_FAILURES),
    ("reuse an image already sent", FlagKind.VLM_REPEATED_IMAGES),
)


def legacy_flag(raw: Any) -> Any:
    """A schema-1 flag string as a RiskFlag dict of its rule's kind (VLM_INTEGRITY if unknown)."""
    if not isinstance(raw, str):
        return raw
    kind = next((k for head, k in _LEGACY_STARTS if raw.startswith(head)), None)
    kind = kind or next((k for part, k in _LEGACY_HOLDS if part in raw), FlagKind.VLM_INTEGRITY)
    return RiskFlag(kind=kind, text=raw, source="vlm").model_dump(mode="json")


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    flags = data.get("flags")
    if isinstance(flags, list):
        data["flags"] = [legacy_flag(f) for f in flags]
    return data


class VlmReport(Report):
    FILENAME: ClassVar[str] = "vlm.json"
    SCHEMA_VERSION: ClassVar[int] = 2
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2}

    kind: str = "vlm"
    mode: str = "in-process"  # or "http"
    official: bool = True  # every contest number as the profile says
    non_official: dict[str, Any] = Field(default_factory=dict)  # setting → value used
    settings: dict[str, Any] = Field(default_factory=dict)
    system_info: dict[str, Any] = Field(default_factory=dict)
    environment: dict[str, Any] = Field(default_factory=dict)  # device, dtype, processor pixels
    samples_planned: int = 0
    samples: list[VlmSample] = Field(default_factory=list)
    warmup_ms: list[float | None] = Field(default_factory=list)
    # the official figures (result.json's performance block)
    avg_ttft_ms: float | None = None
    avg_throughput_tokens_per_sec: float = 0.0
    counted: int = 0
    # harness's own
    ttft_ci_ms: tuple[float, float] | None = None
    tok_s_ci: tuple[float, float] | None = None
    total_tokens_per_sec: float | None = None
    ttft_ms_per_visual_token: float | None = None
    ttft_event_mean_ms: float | None = None
    ttft_dist: Dist = Field(default_factory=Dist)
    tok_s_dist: Dist = Field(default_factory=Dist)
    processor_dist: Dist = Field(default_factory=Dist)
    accuracy: Accuracy | None = None
    scores: list[Score] = Field(default_factory=list)
    flags: list[RiskFlag] = Field(default_factory=list)
    runner_exit_code: int | None = None
    runner_log: str | None = None

    def score(self, baseline: str = "official") -> Score | None:
        return next((s for s in self.scores if s.baseline.startswith(baseline)), None)
