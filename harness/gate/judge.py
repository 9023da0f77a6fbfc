"""Reading a run folder's reports and judging them (never re-measuring)."""

from __future__ import annotations

from pathlib import Path

from harness.conformance.model import CheckReport
from harness.errors import HarnessError
from harness.gate.report import GateReport, Reason, Verdict
from harness.gate.rules import GateInputs, judge, required_reports
from harness.image.package import PackageReport
from harness.latency.report import LatencyReport
from harness.profiles import Profile
from harness.quality.report import QualityReport
from harness.runs import Provenance, R, load_report
from harness.throughput.report import ThroughputReport
from harness.vlm.report import VlmReport


def read_inputs(
    folder: Path, profile: Profile, *, image: bool = False
) -> tuple[GateInputs, list[Reason]]:
    """Every report the gate reads, through the one reader; an unreadable one is a problem."""
    problems: list[Reason] = []

    def load(kind: type[R]) -> R | None:
        try:
            return load_report(folder, kind)
        except HarnessError as err:
            problems.append(Reason(source="gate", text=err.one_line(), incomplete=True))
            return None

    inputs = GateInputs(
        profile=profile,
        required=required_reports(profile, image=image),
        check=load(CheckReport),
        latency=load(LatencyReport),
        quality=load(QualityReport),
        throughput=load(ThroughputReport),
        package=load(PackageReport),
        vlm=load(VlmReport),
    )
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
    lat, tp = inputs.latency, inputs.throughput
    score: float | None = None
    score_name = ""
    if lat is not None:
        score, score_name = lat.score, "mean speedup"
    elif inputs.vlm is not None:
        from harness.gate.vlm_rules import vlm_score

        score, score_name = vlm_score(inputs.vlm), "AICAS final score (official baselines)"
    elif tp is not None and tp.score is not None:
        score, score_name = tp.score, "weighted tok/s"
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
