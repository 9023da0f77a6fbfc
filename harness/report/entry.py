"""``LedgerEntry``: one run folder summarised as one line of ``ledger.jsonl``.

Built from the run folder's typed reports (harness.report.folder, through the
one reader) and nothing else: the ledger never re-measures. The fields read
from each report are listed in docs/report.md.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.conformance.model import CheckReport, Result
from harness.gate.report import GateReport
from harness.latency.report import LatencyReport
from harness.quality.report import QualityReport
from harness.report.folder import RunFiles, read_run
from harness.risk import RiskFlag, migrate_flags
from harness.throughput.report import ThroughputReport
from harness.vlm.report import VlmReport

Verdict = Literal["PASS", "FAIL", "INCOMPLETE"]
# 2: flags are typed RiskFlag records (1: their texts); 3: experiment, the server's engine and
# version, the latency procedure (older lines are re-read from their folders)
LEDGER_SCHEMA_VERSION = 3
_STAMP = re.compile(r"^\d{8}-\d{6}-")  # harness.run_folder.new_run_folder's prefix


class ServerFingerprint(BaseModel):
    model_config = ConfigDict(extra="ignore")

    url: str | None = None
    models: list[str] = Field(default_factory=list)
    build: str | None = None  # provenance.server.label(): engine, version, max_model_len
    engine: str | None = None  # provenance.server.engine, e.g. "vllm", "harness-simulate"
    version: str | None = None

    def label(self) -> str:
        models = ", ".join(self.models)
        return " · ".join(x for x in (self.url, models, self.build) if x) or "—"


class BucketMedian(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    mode: Literal["official", "strict"]
    median_ms: float | None = None
    baseline_ms: float | None = None
    speedup: float | None = None
    n_ok: int = 0
    n_failed: int = 0


class Procedure(BaseModel):
    """How latency was measured (its ``settings``): what decides whether it is the grader's."""

    model_config = ConfigDict(extra="ignore")

    runs: int | None = None  # timed requests per bucket
    warmup: int | None = None
    buckets: list[str] = Field(default_factory=list)
    official: bool | None = None  # the report's own ``official_procedure`` (None: not recorded)
    until_ci: float | None = None  # --until-ci PCT (buckets may stop early: an estimate)


class QualityScore(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    title: str
    metric: str = ""
    score: float | None = None
    threshold: float | None = None
    passed: bool | None = None
    n: int = 0


class LedgerEntry(BaseModel):
    """One run. ``valid``: the gate said PASS. ``risky``: it carries risk flags."""

    # Ignore unknown keys so a ledger written by a newer harness still reads.
    model_config = ConfigDict(extra="ignore")

    schema_version: int = LEDGER_SCHEMA_VERSION
    id: str  # the run folder's name
    name: str | None = None
    note: str = ""
    experiment: str | None = None  # --experiment: the ledger group
    profile: str | None = None
    server: ServerFingerprint = Field(default_factory=ServerFingerprint)
    time: str  # when the run started (ISO 8601, UTC)
    recorded_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    reports: list[str] = Field(default_factory=list)  # the report files present
    complete: bool = True  # False when any present report is partial
    buckets: list[BucketMedian] = Field(default_factory=list)
    score: float | None = None
    score_ci95: tuple[float, float] | None = None
    score_mode: Literal["official", "strict"] | None = None
    procedure: Procedure | None = None  # latency's settings (None: no latency or none recorded)
    strict_score: float | None = None
    quality: list[QualityScore] = Field(default_factory=list)
    quality_limit: float | None = None
    checks_total: int | None = None
    checks_failed: int | None = None
    throughput_score: float | None = None
    vlm: dict[str, Any] | None = None  # AICAS: score, its terms, avg TTFT, avg tok/s, accuracy
    verdict: Verdict | None = None  # None: not gated yet
    reasons: list[str] = Field(default_factory=list)
    flags: list[RiskFlag] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)  # unreadable report files

    @field_validator("flags", mode="before")
    @classmethod
    def _typed_flags(cls, raw: Any) -> Any:
        """Ledger lines written before flags were typed hold their texts."""
        return migrate_flags(raw, "gate")

    @property
    def valid(self) -> bool:
        return self.verdict == "PASS"

    @property
    def risky(self) -> bool:
        return bool(self.flags)

    def label(self) -> str:
        return self.name or self.id

    def short_label(self) -> str:
        """The name, or the folder name without its time stamp (tables show the time beside it)."""
        return self.name or _STAMP.sub("", self.id) or self.id

    def medians(self, mode: str) -> dict[str, BucketMedian]:
        return {b.name: b for b in self.buckets if b.mode == mode}

    def to_line(self) -> str:
        data = self.model_dump(mode="json")
        data["valid"], data["risky"] = self.valid, self.risky
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _buckets(latency: LatencyReport | None) -> list[BucketMedian]:
    if latency is None:
        return []
    return [
        BucketMedian(
            name=b.name,
            mode=b.mode,
            median_ms=b.median_ms,
            baseline_ms=b.baseline_ms,
            speedup=b.speedup,
            n_ok=b.n_ok,
            n_failed=b.n_failed,
        )
        for b in [*latency.official, *latency.strict]
    ]


def _quality(quality: QualityReport | None) -> list[QualityScore]:
    if quality is None:
        return []
    return [
        QualityScore(
            name=b.name,
            title=b.title or b.name,
            metric=b.metric,
            score=b.score,
            threshold=b.threshold,
            passed=b.passed,
            n=b.n,
        )
        for b in quality.benchmarks
    ]


def _reasons(gate: GateReport | None) -> list[str]:
    if gate is None:
        return []
    return [("✗ " if r.blocking else "") + r.text for r in gate.reasons]


def _checks(check: CheckReport | None) -> tuple[int | None, int | None]:
    if check is None:
        return None, None
    return len(check.checks), sum(c.result is Result.FAIL for c in check.checks)


def _started(run: RunFiles) -> str:
    times = [rep.provenance.started_at for rep in run.reports.values()]
    if times:
        return min(times)
    try:
        mtime = run.folder.stat().st_mtime
    except OSError:
        mtime = 0.0
    return datetime.fromtimestamp(mtime, UTC).isoformat()


def _fingerprint(run: RunFiles) -> ServerFingerprint:
    url: str | None = None
    models: list[str] = []
    build: str | None = None
    engine: str | None = None
    version: str | None = None
    for rep in run.reports.values():
        url = url or rep.provenance.url or getattr(rep, "url", None) or None
        for m in rep.provenance.server_models:
            if m not in models:
                models.append(m)
        server = rep.provenance.server
        if build is None and server is not None and server.taken:
            build = server.label()
            engine, version = server.engine, server.version
    quality = run.get(QualityReport)
    if not models and quality is not None and quality.model:
        models.append(quality.model)
    return ServerFingerprint(url=url, models=models, build=build, engine=engine, version=version)


def _recorded(run: RunFiles) -> tuple[str | None, str, str | None]:
    """The ``--name``/``--note``/``--experiment`` the folder's commands were run with, from
    their provenance (the gate's first: it names the whole run)."""
    gate = run.get(GateReport)
    reports = [r for r in (gate, *run.reports.values()) if r is not None]
    name = next((r.provenance.name for r in reports if r.provenance.name), None)
    note = next((r.provenance.note for r in reports if r.provenance.note), "")
    experiment = next((r.provenance.experiment for r in reports if r.provenance.experiment), None)
    return name, note, experiment


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _procedure(latency: LatencyReport | None) -> Procedure | None:
    if latency is None or not latency.settings:
        return None
    s = latency.settings
    buckets = s.get("buckets")
    official = s.get("official_procedure")
    return Procedure(
        runs=_int(s.get("runs")),
        warmup=_int(s.get("warmup")),
        buckets=[str(b) for b in buckets] if isinstance(buckets, list) else [],
        official=official if isinstance(official, bool) else None,
        until_ci=until if isinstance(until := s.get("until_ci"), int | float) else None,
    )


def build_entry(run: RunFiles, *, name: str | None = None, note: str = "") -> LedgerEntry:
    """Summarise a read run folder. Pure apart from the folder's mtime fallback.

    Without ``name``/``note`` (a folder indexed later), the name and note its
    commands were run with are taken from their provenance.
    """
    latency, quality = run.get(LatencyReport), run.get(QualityReport)
    gate, check = run.get(GateReport), run.get(CheckReport)
    throughput = run.get(ThroughputReport)
    profile = next((p for rep in run.reports.values() if (p := rep.provenance.profile)), None)
    # The gate's flags already include latency's; before gating, show latency's own.
    flags = list(gate.flags) if gate is not None else list(latency.flags) if latency else []
    buckets = _buckets(latency)
    score_mode = None
    if latency is not None and latency.score is not None:
        score_mode = "official" if any(b.mode == "official" for b in buckets) else "strict"
    total, failed = _checks(check)
    recorded_name, recorded_note, experiment = _recorded(run)
    return LedgerEntry(
        id=run.folder.name,
        name=name if name is not None else recorded_name,
        note=note or recorded_note,
        experiment=experiment,
        profile=profile,
        server=_fingerprint(run),
        time=_started(run),
        reports=run.present,
        complete=all(rep.complete for rep in run.reports.values()),
        buckets=buckets,
        score=latency.score if latency else None,
        score_ci95=latency.score_ci95 if latency else None,
        score_mode=score_mode,
        procedure=_procedure(latency),
        strict_score=latency.strict_score if latency else None,
        quality=_quality(quality),
        quality_limit=float(quality.limit) if quality and quality.limit is not None else None,
        checks_total=total,
        checks_failed=failed,
        throughput_score=throughput.score if throughput else None,
        vlm=_vlm(run.get(VlmReport)),
        verdict=gate.verdict.value if gate else None,
        reasons=_reasons(gate),
        flags=flags,
        problems=list(run.problems),
    )


def _vlm(vlm: VlmReport | None) -> dict[str, Any] | None:
    """The AICAS figures of ``vlm.json``: the official means and the official-baseline score."""
    if vlm is None:
        return None
    official = vlm.score("official")
    acc = vlm.accuracy
    return {
        "mode": vlm.mode,
        "avg_ttft_ms": vlm.avg_ttft_ms,
        "avg_tok_s": vlm.avg_throughput_tokens_per_sec,
        "counted": vlm.counted,
        "samples": len(vlm.samples),
        "score": official.score if official else None,
        "terms": [
            official.accuracy_term if official else None,
            official.ttft_term if official else None,
            official.throughput_term if official else None,
        ],
        "accuracy": acc.headline_value if acc else None,
        "accuracy_name": acc.headline if acc else None,
    }


def entry_for_folder(folder: Path, *, name: str | None = None, note: str = "") -> LedgerEntry:
    return build_entry(read_run(folder), name=name, note=note)
