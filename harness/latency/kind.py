"""The ``latency`` kind: the grader's buckets, speedup and score (``latency.json``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.kinds.record import GateInputs, KindCompare, KindConsole, KindScore, MeasurementKind
from harness.latency import compare as latency_compare
from harness.latency import compare_views as latency_compare_views
from harness.latency import views as latency_views
from harness.latency.buckets import choose_buckets
from harness.latency.compare import LatencySection
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.gate_rules import latency_rules, score_caveat
from harness.latency.repeats import RepeatsReport
from harness.latency.report import LatencyReport
from harness.profiles import Profile
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.latency.hooks import LatencyHooks


def rules(report: LatencyReport, inputs: GateInputs) -> Judgement:
    return latency_rules(report, inputs.profile.latency, inputs.profile.readiness.timeout_s)


def caveat(report: LatencyReport, inputs: GateInputs) -> str:
    """``short only`` while the score is a mean over fewer buckets than the profile's."""
    return score_caveat(report, inputs.profile.latency)


def required(profile: Profile, image: bool) -> bool:
    return profile.latency is not None


def usage(profile: Profile, o: LatencyOverrides) -> None:
    """``--buckets`` names the profile's buckets (a ConfigError before a run folder exists)."""
    if profile.latency is not None:
        choose_buckets(profile.latency, o.buckets)


def repeats_beside(folder: Path, report: LatencyReport) -> RepeatsReport | None:
    """``latency_repeats.json`` (``--repeats``): the between-run spread compare uses."""
    return RepeatsReport.load(folder) if (folder / RepeatsReport.FILENAME).is_file() else None


# The core, its hooks, the console and the summary by reference, imported when first used
# (harness/kinds/lazy.py).
KIND: MeasurementKind[LatencyConfig, LatencyOverrides, LatencyReport, LatencyHooks] = (
    MeasurementKind(
        name="latency",
        command=("latency",),
        report=LatencyReport,
        overrides=LatencyOverrides,
        from_profile=from_profile,
        run="harness.latency.core:run",
        exit_code="harness.latency.core:exit_code",
        silent_hooks="harness.latency.hooks:NO_HOOKS",
        required=required,
        rules=rules,
        gate_step="server",
        usage=usage,
        score=KindScore("mean speedup", lambda r: r.score, unit="×", caveat=caveat),
        console=KindConsole(
            hooks="harness.latency.console:console_hooks",
            render="harness.latency.console:render_report",
        ),
        compare=KindCompare(
            section=LatencySection,
            load_extra=repeats_beside,
            differences=latency_compare.differences,
            compare=latency_compare.section,
            views=latency_compare_views.blocks,
            legacy=latency_compare.legacy,
        ),
        views=latency_views.sections,
        summary="harness.latency.summary:SUMMARY",
    )
)
