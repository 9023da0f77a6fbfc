"""``LedgerEntry``: one run folder summarised as one line of ``ledger.jsonl``.

Built from the run folder's reports (harness.report.folder) and nothing else:
the ledger never re-measures. The keys read from each report are listed in
docs/report.md.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.report.folder import RunFiles, dicts, flag, num, pair, read_run, strings, text

Verdict = Literal["PASS", "FAIL", "INCOMPLETE"]
LEDGER_SCHEMA_VERSION = 1
_STAMP = re.compile(r"^\d{8}-\d{6}-")  # harness.runs.new_run_folder's prefix


class ServerFingerprint(BaseModel):
    model_config = ConfigDict(extra="ignore")

    url: str | None = None
    models: list[str] = Field(default_factory=list)

    def label(self) -> str:
        models = ", ".join(self.models)
        return " · ".join(x for x in (self.url, models) if x) or "—"


class BucketMedian(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    mode: Literal["official", "strict"]
    median_ms: float | None = None
    baseline_ms: float | None = None
    speedup: float | None = None
    n_ok: int = 0
    n_failed: int = 0


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
    strict_score: float | None = None
    quality: list[QualityScore] = Field(default_factory=list)
    quality_limit: float | None = None
    checks_total: int | None = None
    checks_failed: int | None = None
    throughput_score: float | None = None
    vlm: dict[str, Any] | None = None  # AICAS: score, its terms, avg TTFT, avg tok/s, accuracy
    verdict: Verdict | None = None  # None: not gated yet
    reasons: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)  # unreadable report files

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


def _buckets(latency: dict[str, Any] | None) -> list[BucketMedian]:
    out: list[BucketMedian] = []
    for mode in ("official", "strict"):
        for b in dicts(latency, mode):
            name = text(b, "name")
            if name is None:
                continue
            out.append(
                BucketMedian(
                    name=name,
                    mode=mode,
                    median_ms=num(b, "median_ms"),
                    baseline_ms=num(b, "baseline_ms"),
                    speedup=num(b, "speedup"),
                    n_ok=int(num(b, "n_ok") or 0),
                    n_failed=int(num(b, "n_failed") or 0),
                )
            )
    return out


def _quality(quality: dict[str, Any] | None) -> list[QualityScore]:
    out: list[QualityScore] = []
    for b in dicts(quality, "benchmarks"):
        name = text(b, "name")
        if name is None:
            continue
        out.append(
            QualityScore(
                name=name,
                title=text(b, "title") or name,
                metric=text(b, "metric") or "",
                score=num(b, "score"),
                threshold=num(b, "threshold"),
                passed=flag(b, "passed"),
                n=int(num(b, "n") or 0),
            )
        )
    return out


def _reasons(gate: dict[str, Any] | None) -> list[str]:
    """gate.json reasons: objects with ``text`` (and ``blocking``), or plain strings."""
    out: list[str] = []
    raw = gate.get("reasons") if isinstance(gate, dict) else None
    for r in raw if isinstance(raw, list) else []:
        if isinstance(r, str):
            out.append(r)
        elif isinstance(r, dict) and isinstance(r.get("text"), str):
            out.append(("✗ " if r.get("blocking") else "") + r["text"])
    return out


def _checks(check: dict[str, Any] | None) -> tuple[int | None, int | None]:
    if check is None:
        return None, None
    rows = dicts(check, "checks") or dicts(check, "results")
    failed = 0
    for row in rows:
        status = (text(row, "result") or text(row, "status") or "").lower()
        if flag(row, "passed") is False or flag(row, "ok") is False or status in ("fail", "failed"):
            failed += 1
    return len(rows), failed


def _started(run: RunFiles) -> str:
    times = [
        t
        for rep in run.reports.values()
        if (t := text(rep.get("provenance"), "started_at")) is not None
    ]
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
    for rep in run.reports.values():
        prov = rep.get("provenance")
        url = url or text(prov, "url") or text(rep, "url") or None
        for m in strings(prov, "server_models"):
            if m not in models:
                models.append(m)
    quality_model = text(run.get("quality.json"), "model")
    if not models and quality_model:
        models.append(quality_model)
    return ServerFingerprint(url=url, models=models)


def _argv_option(run: RunFiles, option: str) -> str | None:
    """``--name``/``--note`` as recorded in a report's command line (gate's first)."""
    for filename in ("gate.json", *run.reports):
        argv = strings(run.reports.get(filename, {}).get("provenance"), "command_line")
        for i, arg in enumerate(argv):
            if arg == option and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(option + "="):
                return arg.split("=", 1)[1]
    return None


def build_entry(run: RunFiles, *, name: str | None = None, note: str = "") -> LedgerEntry:
    """Summarise a parsed run folder. Pure apart from the folder's mtime fallback.

    Without ``name``/``note`` (a folder indexed later), the ``--name``/``--note``
    its commands were run with are taken from the recorded command lines.
    """
    latency, quality = run.get("latency.json"), run.get("quality.json")
    gate, check = run.get("gate.json"), run.get("check.json")
    profile = next(
        (p for rep in run.reports.values() if (p := text(rep.get("provenance"), "profile"))),
        None,
    )
    verdict_text = (text(gate, "verdict") or "").upper()
    verdict: Verdict | None = (
        verdict_text if verdict_text in ("PASS", "FAIL", "INCOMPLETE") else None  # type: ignore[assignment]
    )
    # The gate's flags already include latency's; before gating, show latency's own.
    flags = strings(gate, "flags") if gate is not None else strings(latency, "flags")
    buckets = _buckets(latency)
    score_mode = None
    if latency is not None and num(latency, "score") is not None:
        score_mode = "official" if any(b.mode == "official" for b in buckets) else "strict"
    total, failed = _checks(check)
    return LedgerEntry(
        id=run.folder.name,
        name=name if name is not None else _argv_option(run, "--name"),
        note=note or _argv_option(run, "--note") or "",
        profile=profile,
        server=_fingerprint(run),
        time=_started(run),
        reports=run.present,
        complete=all(flag(rep, "complete") is not False for rep in run.reports.values()),
        buckets=buckets,
        score=num(latency, "score"),
        score_ci95=pair(latency, "score_ci95"),
        score_mode=score_mode,
        strict_score=num(latency, "strict_score"),
        quality=_quality(quality),
        quality_limit=num(quality, "limit"),
        checks_total=total,
        checks_failed=failed,
        throughput_score=num(run.get("throughput.json"), "score"),
        vlm=_vlm(run.get("vlm.json")),
        verdict=verdict,
        reasons=_reasons(gate),
        flags=flags,
        problems=list(run.problems),
    )


def _vlm(vlm: dict[str, Any] | None) -> dict[str, Any] | None:
    """The AICAS figures of ``vlm.json``: the official means and the official-baseline score."""
    if vlm is None:
        return None
    raw_scores = vlm.get("scores")
    scores: list[Any] = raw_scores if isinstance(raw_scores, list) else []
    official: dict[str, Any] = next(
        (s for s in scores if isinstance(s, dict) and s.get("baseline") == "official"), {}
    )
    raw_acc = vlm.get("accuracy")
    acc: dict[str, Any] = raw_acc if isinstance(raw_acc, dict) else {}
    return {
        "mode": text(vlm, "mode"),
        "avg_ttft_ms": num(vlm, "avg_ttft_ms"),
        "avg_tok_s": num(vlm, "avg_throughput_tokens_per_sec"),
        "counted": vlm.get("counted"),
        "samples": len(vlm.get("samples") or []),
        "score": official.get("score"),
        "terms": [official.get(k) for k in ("accuracy_term", "ttft_term", "throughput_term")],
        "accuracy": acc.get("headline_value"),
        "accuracy_name": acc.get("headline"),
    }


def entry_for_folder(folder: Path, *, name: str | None = None, note: str = "") -> LedgerEntry:
    return build_entry(read_run(folder), name=name, note=note)
