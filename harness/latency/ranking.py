"""Whether a run's latency score may be ranked (★ best, frontier, waterfall): why not, in
words (pure). Latency's summary facet (``ranked``'s companion ``not_ranked``) answers it
for the ledger (harness/report/eligibility.py; docs/report.md, "Which runs are ranked"):
a complete report (not interrupted), every latency bucket of its profile, an
official-mode score, the profile's runs and warm-ups (``procedure.py:
official_procedure``) and no ``--until-ci`` early stop.
"""

from __future__ import annotations

from harness.latency.ledger import BucketMedian, LatencyLedger
from harness.latency.procedure import official_procedure
from harness.profiles import LatencySpec, Profile


def _partial(part: LatencyLedger, scored: list[BucketMedian]) -> str:
    """``partial: medium 8/50`` (the buckets cut short), else ``partial (interrupted)``."""
    runs = part.procedure.runs if part.procedure else None
    if runs is not None:
        short = [
            f"{b.name} {b.n_ok + b.n_failed}/{runs}" for b in scored if b.n_ok + b.n_failed < runs
        ]
        if short:
            return "partial: " + ", ".join(short)
    return "partial (interrupted)"


def _buckets(scored: list[BucketMedian], spec: LatencySpec) -> str | None:
    expected = [b.name for b in spec.buckets]
    have = {b.name for b in scored if b.median_ms is not None}
    missing = [n for n in expected if n not in have]
    if not missing:
        return None
    got = len(expected) - len(missing)
    return f"{got} of {len(expected)} buckets (no {', '.join(missing)})"


def _procedure(part: LatencyLedger, spec: LatencySpec | None) -> str | None:
    p = part.procedure
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


def not_ranked(part: LatencyLedger, complete: bool, profile: Profile | None) -> list[str]:
    """Why this scored run may not be ranked (empty: it competes). ``profile``: the run's
    (None: unknown here; its buckets and runs are not judged)."""
    spec = profile.latency if profile is not None else None
    out: list[str] = []
    scored = list(part.medians(part.scored_mode).values())
    if not complete:
        out.append(_partial(part, scored))
    if part.scored_mode == "strict":
        out.append("strict score only (the grader times official requests)")
    if spec is not None:
        missing = _buckets(scored, spec)
        if missing:
            out.append(missing)
    procedure = _procedure(part, spec)
    if procedure:
        out.append(procedure)
    return out
