"""The tune's score: its speed kind's, read from the kind's record (``KindScore``: its
name, its unit), never spelled here. The speed kind is the first of the profile's gate
steps that carries a score (latency's ``mean speedup``, ×; throughput's ``weighted
tok/s``). A saved ``tune.json`` names its score; the name finds the kind again, and a name
no kind carries (an old tune.json's ``score``) is shown without a unit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.gate.orchestrate import UNSTARTED, GatePlan
from harness.kinds.record import KindScore, MeasurementKind
from harness.profiles import Profile
from harness.registry import KINDS
from harness.tune.space import Space
from harness.view.fmt import DASH

AnyKind = MeasurementKind[Any, Any, Any, Any]
UNNAMED = "score"  # a profile whose steps carry no score


def speed_kind(profile: Profile, space: Space) -> AnyKind | None:
    """The profile's speed step: the first of the gate's steps that carries a score."""
    opts = space.options.gate()
    plan = GatePlan(url=UNSTARTED, folder=Path("."), profile=profile, options=opts)
    return next((k for k in plan.steps() if k.score is not None), None)


def score_name(profile: Profile, space: Space) -> str:
    """What the tune's score is called: its speed kind's score's name."""
    kind = speed_kind(profile, space)
    return kind.score.name if kind is not None and kind.score is not None else UNNAMED


def score_of(name: str) -> KindScore[Any] | None:
    """The score a kind's record calls ``name`` (None: no kind's)."""
    return next((k.score for k in KINDS if k.score is not None and k.score.name == name), None)


def unit_of(name: str) -> str:
    """The unit written after the score called ``name`` (× for a speedup; none for tok/s)."""
    score = score_of(name)
    return score.unit if score is not None else ""


def score_text(name: str, value: float | None, digits: int = 3) -> str:
    """``4.600×``: a value of the score called ``name``, as its kind writes it."""
    score = score_of(name)
    if score is not None:
        return score.text(value, digits)
    return DASH if value is None else f"{value:.{digits}f}"
