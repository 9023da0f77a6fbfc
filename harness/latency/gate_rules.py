"""The gate's rules for ``latency.json``: failed buckets, the speedup gap, the grader's procedure.

Every grader number (runs, warm-ups, buckets, readiness limit) comes from the
profile the folder is judged against, never from the report's own settings.
"""

from __future__ import annotations

from harness.latency.network_report import NetworkSection
from harness.latency.procedure import procedure_flag
from harness.latency.report import GapCause, LatencyReport
from harness.profiles import LatencySpec
from harness.risk import FlagKind
from harness.verdict import Judgement, Reason, partial, readiness_flag, risk

# harness's own threshold, not a grader's: more than half the official speedup
# not reproduced by unique prompts is worth a flag
PREFIX_SHARE_RISK = 0.5

# the report's own flags the gate replaces with its own lines (from the bucket counts)
# (and the procedure flag, judged again against the profile the gate judges with)
_RESTATED_BY_GATE = {FlagKind.REQUEST_FAILURES, FlagKind.NO_DATA, FlagKind.NON_OFFICIAL}

_GAP_LABEL: dict[GapCause, str] = {
    "agree": "the modes agree",
    "early_stop": "early stop",
    "prefix_cache": "prefix cache",
    "response_cache": "response cache: decode skipped, answers cached",
    "strict_faster": "strict is faster",
    "no_data": "no data",
}


def latency_rules(rep: LatencyReport, spec: LatencySpec | None, ready_limit_s: float) -> Judgement:
    reasons: list[Reason] = []
    flags = [
        risk(f.kind, "latency", f"latency: {f.text}")
        for f in rep.flags
        if f.kind not in _RESTATED_BY_GATE
    ]
    buckets = rep.buckets()
    for b in buckets:
        if b.n_ok == 0:
            reasons.append(
                Reason(
                    source="latency",
                    text=f"bucket {b.name}: every timed request failed ({b.errors})",
                    blocking=True,
                )
            )
        elif b.n_failed:
            flags.append(
                risk(
                    FlagKind.REQUEST_FAILURES,
                    "latency",
                    f"latency: {b.n_failed} timed {b.name} requests failed and were dropped "
                    f"({b.errors})",
                )
            )
    for gap in rep.gaps:
        share = gap.share_of_official_speedup
        if share is not None and share > PREFIX_SHARE_RISK:
            flags.append(
                risk(
                    FlagKind.SPEEDUP_GAP,
                    "latency",
                    f"latency: {share:.0%} of the {gap.bucket} speedup is not reproduced with "
                    f"unique prompts ({_GAP_LABEL[gap.cause_kind]}): the grader's repeated "
                    "prompt flatters it",
                )
            )
    flags += readiness_flag("latency", rep.readiness_s, ready_limit_s)
    expected = [b.name for b in spec.buckets] if spec else []
    missing = unmeasured_buckets(rep, spec)
    if missing:
        reasons.append(
            Reason(
                source="latency",
                text=f"latency buckets not measured: {', '.join(missing)} (the grader's score "
                f"is the mean over all {len(expected)})",
                incomplete=True,
            )
        )
    if rep.score is not None:
        speeds = ", ".join(f"{b.name} {b.speedup:.2f}×" for b in buckets if b.speedup is not None)
        if missing:  # a mean over fewer buckets: said so, never shown as the grader's score
            text = (
                f"latency score over {score_caveat(rep, spec)}: {rep.score:.2f}× ({speeds}), not "
                f"the grader's score over {', '.join(expected)}"
            )
            reasons.append(Reason(source="latency", text=text, incomplete=True))
        else:
            reasons.append(
                Reason(source="latency", text=f"latency score {rep.score:.2f}× ({speeds})")
            )
    # judged against this profile, not the report's own flag: the profile is what the gate
    # predicts for (reports without settings are not judged); the same rule as the report's
    own = procedure_flag(rep.settings, spec) if spec is not None else None
    if own is not None:
        flags.append(risk(own.kind, "latency", f"latency: {own.text}"))
    net = rep.network
    if net is not None and (net.label == "network" or (net.label == "unknown" and rep.requests)):
        reasons.append(network_division(rep, net))
    if not rep.complete:
        reasons.append(partial("latency", LatencyReport.FILENAME))
    return reasons, flags


def unmeasured_buckets(rep: LatencyReport, spec: LatencySpec | None) -> list[str]:
    """The profile's buckets the report has no result for (the grader's score is the mean
    over all of them)."""
    measured = {b.name for b in rep.buckets()}
    return [b.name for b in spec.buckets if b.name not in measured] if spec else []


def score_caveat(rep: LatencyReport, spec: LatencySpec | None) -> str:
    """``short only``: a score that is the mean over fewer buckets than the profile's, as the
    gate's headline (``mean speedup: short only``) and its score line (``latency score over
    short only``) say it; "" when it is over all of them (or there is no score)."""
    if rep.score is None or not unmeasured_buckets(rep, spec):
        return ""
    return f"{', '.join(b.name for b in rep.buckets())} only"


def network_division(rep: LatencyReport, net: NetworkSection) -> Reason:
    """The label MLPerf gives its network division: this verdict's latency went over a
    network, not the grader's localhost, or may have (``unknown``: no probe could show
    it); informational; the ``network`` flag, when the network is a share of a median,
    is the risk."""
    text = (
        f"latency measured over a NETWORK ({net.why})"
        if net.label == "network"
        else f"latency's network UNKNOWN, loopback not shown ({net.why})"
    )
    if net.rtt_ms is not None:
        text += f", round trip {net.rtt_ms:.1f} ms"
    if net.estimate_score is not None and rep.score is not None:
        text += (
            f": score {rep.score:.2f}× as measured; localhost-equivalent ESTIMATE "
            f"{net.estimate_score:.2f}×"
        )
    return Reason(source="latency", text=text)
