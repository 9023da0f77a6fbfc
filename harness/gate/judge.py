"""Reading a run folder's reports and judging them (never re-measuring)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.conformance.model import CheckReport
from harness.errors import HarnessError
from harness.gate.report import GateReport, Reason, Verdict
from harness.gate.rules import GateInputs, judge, required_reports
from harness.latency.report import LatencyReport
from harness.profiles import Profile
from harness.quality.report import QualityReport
from harness.runs import Provenance
from harness.vlm.report import VlmReport


def _load_data(folder: Path, name: str, problems: list[Reason]) -> dict[str, Any] | None:
    path = folder / f"{name}.json"
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        problems.append(
            Reason(source="gate", text=f"{path.name} is unreadable: {err}", incomplete=True)
        )
        return None
    return data if isinstance(data, dict) else None


def read_inputs(
    folder: Path, profile: Profile, *, image: bool = False
) -> tuple[GateInputs, list[Reason]]:
    problems: list[Reason] = []
    inputs = GateInputs(profile=profile, required=required_reports(profile, image=image))
    for attr, cls in (
        ("check", CheckReport),
        ("latency", LatencyReport),
        ("quality", QualityReport),
        ("vlm", VlmReport),
    ):
        if not (folder / cls.FILENAME).exists():
            continue
        try:
            setattr(inputs, attr, cls.load(folder))
        except HarnessError as err:
            problems.append(Reason(source="gate", text=err.one_line(), incomplete=True))
    inputs.throughput = _load_data(folder, "throughput", problems)
    inputs.package = _load_data(folder, "package", problems)
    return inputs, problems


def judge_folder(
    folder: Path,
    profile: Profile,
    provenance: Provenance,
    *,
    strict: bool = False,
    image: bool = False,
) -> GateReport:
    inputs, problems = read_inputs(folder, profile, image=image)
    verdict, reasons, flags = judge(inputs, strict=strict)
    if problems and verdict is Verdict.PASS:
        verdict = Verdict.INCOMPLETE
    lat = inputs.latency
    score: float | None = None
    score_name = ""
    if lat is not None:
        score, score_name = lat.score, "mean speedup"
    elif inputs.vlm is not None:
        from harness.gate.vlm_rules import vlm_score

        score, score_name = vlm_score(inputs.vlm), "AICAS final score (official baselines)"
    elif inputs.throughput is not None and isinstance(inputs.throughput.get("score"), int | float):
        score, score_name = float(inputs.throughput["score"]), "weighted tok/s"
    return GateReport(
        verdict=verdict,
        strict=strict,
        reasons=problems + reasons,
        flags=flags,
        score=score,
        score_name=score_name,
        bucket_speedups={b.name: b.speedup for b in lat.buckets()} if lat else {},
        quality={b.name: b.score for b in inputs.quality.benchmarks} if inputs.quality else {},
        reports=[
            n
            for n in ("check", "latency", "throughput", "quality", "package", "vlm")
            if (folder / f"{n}.json").exists()
        ],
        folder=folder.name,
        provenance=provenance,
    )
