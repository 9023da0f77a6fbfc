"""The ``vlm`` kind: the AICAS in-process benchmark (``vlm.json`` + ``result.json``).

Its core is harness/vlm/core.py (``measure_vlm``); the gate judges ``vlm.json``
but does not run it (the benchmark needs the participant's Python and a GPU).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.kinds.record import GateInputs, KindCompare, KindConsole, KindScore, MeasurementKind
from harness.profiles import Profile
from harness.verdict import Judgement
from harness.vlm import compare as vlm_compare
from harness.vlm import compare_views as vlm_compare_views
from harness.vlm import views as vlm_views
from harness.vlm.compare import VlmDiff
from harness.vlm.config import VlmOverrides, VlmRunConfig, from_profile
from harness.vlm.gate_rules import vlm_rules, vlm_score
from harness.vlm.report import VlmReport

if TYPE_CHECKING:
    from harness.vlm.hooks import VlmHooks


def rules(report: VlmReport, inputs: GateInputs) -> Judgement:
    return vlm_rules(report)


def required(profile: Profile, image: bool) -> bool:
    return profile.vlm is not None


# The core, its hooks, the console and the summary by reference, imported when first used
# (harness/kinds/lazy.py).
KIND: MeasurementKind[VlmRunConfig, VlmOverrides, VlmReport, VlmHooks] = MeasurementKind(
    name="vlm",
    command=("vlm", "run"),
    report=VlmReport,
    overrides=VlmOverrides,
    from_profile=from_profile,
    run="harness.vlm.core:run",
    exit_code="harness.vlm.core:exit_code",
    silent_hooks="harness.vlm.hooks:NO_HOOKS",
    required=required,
    rules=rules,
    score=KindScore("AICAS final score (official baselines)", vlm_score),
    console=KindConsole(
        hooks="harness.vlm.console:console_hooks", render="harness.vlm.console:render_vlm"
    ),
    compare=KindCompare(
        section=VlmDiff,
        load_extra=None,
        differences=vlm_compare.differences,
        compare=vlm_compare.section,
        views=vlm_compare_views.blocks,
        legacy=vlm_compare.legacy,
    ),
    views=vlm_views.sections,
    summary="harness.vlm.summary:SUMMARY",
)
