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

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from harness.gate.report import GateReport
from harness.report.folder import RunFiles, read_run
from harness.report.parts import (
    P,
    empty_parts,
    model_named,
    parts_of,
    ranked,
    ranked_flags,
    split_parts,
)
from harness.risk import RiskFlag, migrate_flags
from harness.view.summary import RankedScore, ScoreMode

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
    # each kind's fields by kind name (its summary facet's ``part``, harness/view/summary.py):
    # flat keys of the line, written after ``complete``; every kind's, its defaults when absent
    parts: dict[str, SerializeAsAny[BaseModel]] = Field(default_factory=empty_parts, exclude=True)
    verdict: Verdict | None = None  # None: not gated yet
    reasons: list[str] = Field(default_factory=list)
    flags: list[RiskFlag] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)  # unreadable report files

    @model_validator(mode="before")
    @classmethod
    def _kind_parts(cls, data: Any) -> Any:
        """A line's (or the constructor's) flat keys → each kind's part."""
        return split_parts(data) if isinstance(data, dict) else data

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        kinds: dict[str, Any] = {}
        for part in self.parts.values():
            kinds.update(part.model_dump(mode=info.mode))
        head = list(data)
        cut = head.index("complete") + 1 if "complete" in head else len(head)
        return {
            **{k: data[k] for k in head[:cut]},
            **kinds,
            **{k: data[k] for k in head[cut:]},
        }

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

    def part(self, cls: type[P]) -> P:
        """One kind's fields (its summary facet's ``part`` class); its defaults when absent."""
        found = next((p for p in self.parts.values() if isinstance(p, cls)), None)
        return found if found is not None else cls()

    @property
    def ranked(self) -> RankedScore:
        """The score the ledger ranks runs by: the ranking kind's (harness/view/summary.py)."""
        return ranked(self.parts)

    @property
    def score(self) -> float | None:
        return self.ranked.score

    @property
    def score_ci95(self) -> tuple[float, float] | None:
        return self.ranked.ci95

    @property
    def score_mode(self) -> ScoreMode | None:
        return self.ranked.mode

    def to_line(self) -> str:
        data = self.model_dump(mode="json")
        data["valid"], data["risky"] = self.valid, self.risky
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _reasons(gate: GateReport | None) -> list[str]:
    if gate is None:
        return []
    return [("✗ " if r.blocking else "") + r.text for r in gate.reasons]


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
    if not models:  # the model a report names (quality's), when provenance names none
        models += model_named(run)[:1]
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


def build_entry(run: RunFiles, *, name: str | None = None, note: str = "") -> LedgerEntry:
    """Summarise a read run folder. Pure apart from the folder's mtime fallback.

    Without ``name``/``note`` (a folder indexed later), the name and note its
    commands were run with are taken from their provenance. Each kind's fields come
    from its summary facet (harness/report/parts.py).
    """
    gate = run.get(GateReport)
    profile = next((p for rep in run.reports.values() if (p := rep.provenance.profile)), None)
    # The gate's flags already include the ranked kind's; before gating, show its own.
    flags = list(gate.flags) if gate is not None else ranked_flags(run)
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
        parts=parts_of(run),
        verdict=gate.verdict.value if gate else None,
        reasons=_reasons(gate),
        flags=flags,
        problems=list(run.problems),
    )


def entry_for_folder(folder: Path, *, name: str | None = None, note: str = "") -> LedgerEntry:
    return build_entry(read_run(folder), name=name, note=note)
