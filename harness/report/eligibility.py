"""Whether a run may be the ★ best, join the frontier and the waterfall: why not, in words (pure).

A run competes only when it was measured the way the grader measures
(docs/report.md, "Which runs are ranked"): a complete report (not interrupted),
every latency bucket of its profile, an official-mode score, the profile's runs
and warm-ups (``harness/latency/procedure.py: official_procedure``), no
``--until-ci`` early stop, and not hidden. A run that fails any of these stays in
the table with the reasons; it is never ★. Grouping (harness/report/experiment.py)
decides which runs it is compared with.
"""

from __future__ import annotations

from harness.latency.procedure import official_procedure
from harness.latency.summary import BucketMedian, LatencyLedger
from harness.profiles import LatencySpec
from harness.report.entry import LedgerEntry

HIDDEN = "hidden"
NO_SCORE = "no latency score"


def _partial(e: LedgerEntry, scored: list[BucketMedian]) -> str:
    """``partial: medium 8/50`` (the buckets cut short), else ``partial (interrupted)``."""
    procedure = e.part(LatencyLedger).procedure
    runs = procedure.runs if procedure else None
    if runs is not None:
        short = [
            f"{b.name} {b.n_ok + b.n_failed}/{runs}" for b in scored if b.n_ok + b.n_failed < runs
        ]
        if short:
            return "partial: " + ", ".join(short)
    return "partial (interrupted)"


def _buckets(e: LedgerEntry, scored: list[BucketMedian], spec: LatencySpec) -> str | None:
    expected = [b.name for b in spec.buckets]
    have = {b.name for b in scored if b.median_ms is not None}
    missing = [n for n in expected if n not in have]
    if not missing:
        return None
    got = len(expected) - len(missing)
    return f"{got} of {len(expected)} buckets (no {', '.join(missing)})"


def _procedure(e: LedgerEntry, spec: LatencySpec | None) -> str | None:
    p = e.part(LatencyLedger).procedure
    if p is None:
        return None  # an older report without settings: not judged (as the gate does)
    judged = spec is not None and p.runs is not None
    if judged and spec and not official_procedure(p.runs, p.warmup, p.buckets, spec):
        if (p.runs, p.warmup) != (spec.runs, spec.warmup):
            return f"{p.runs} runs / {p.warmup} warm-up (the grader: {spec.runs} / {spec.warmup})"
        return None  # only the buckets differ: _buckets says which
    if p.official is False:
        if p.until_ci is not None:
            return f"--until-ci {p.until_ci:g} stopped early: an estimate"
        return "not the grader's procedure"
    return None


def why_not(e: LedgerEntry, spec: LatencySpec | None, *, hidden: bool = False) -> list[str]:
    """The reasons ``e`` may not be ranked (empty: it competes). ``spec``: its profile's
    latency spec (None: the profile is unknown here; its buckets and runs are not judged)."""
    out = [HIDDEN] if hidden else []
    if e.score is None:
        return [*out, NO_SCORE]
    mode = e.score_mode or "official"
    scored = list(e.part(LatencyLedger).medians(mode).values())
    if not e.complete:
        out.append(_partial(e, scored))
    if mode == "strict":
        out.append("strict score only (the grader times official requests)")
    if spec is not None:
        missing = _buckets(e, scored, spec)
        if missing:
            out.append(missing)
    procedure = _procedure(e, spec)
    if procedure:
        out.append(procedure)
    return out
