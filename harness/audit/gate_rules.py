"""The gate's rules for ``audit.json``: a failing rule blocks, naming the rule; a rule that
could not be judged because its requests failed is a risk flag."""

from __future__ import annotations

from harness.audit.report import AuditReport
from harness.audit_catalogue import entry_named
from harness.risk import FlagKind
from harness.verdict import Judgement, Reason, partial, readiness_flag, risk


def sample_items_line(files: list[str]) -> str:
    """The label of an audit whose quality items were harness's samples (the one rule for
    benchmark data: the grader's, or harness's samples said as such; docs/audit.md)."""
    only = ",".join(f.split("/", 1)[0] for f in files)
    return (
        f"audit: benchmark_detection asked harness's sample items ({', '.join(files)}), not the"
        " grader's: a server keyed on the grader's items is not seen by them; the grader's"
        f" data: harness data fetch --only {only}"
    )


def audit_rules(rep: AuditReport, ready_limit_s: float) -> Judgement:
    reasons = [
        Reason(source="audit", text=f"audit rule {v.rule} failed: {v.why}", blocking=True)
        for v in rep.failing()
    ]
    flags = [
        risk(FlagKind.AUDIT_INCONCLUSIVE, "audit", f"audit rule {v.rule} inconclusive: {v.why}")
        for v in rep.broken()
    ]
    # a failing rule's own risk flag, where its entry names one (one_stack: the routing
    # risk harness check names, now proven by the audit's probes)
    flags += [
        risk(e.flag, "audit", f"{e.flag_words}: {v.why}")
        for v in rep.failing()
        if (e := entry_named(v.rule)) is not None and e.flag is not None
    ]
    if rep.ok and rep.rules:
        reasons.append(
            Reason(
                source="audit",
                text=f"audit: {len(rep.rules)} rules judged, none fails "
                f"({rep.requests} requests, {rep.wall_s:.0f} s)",
            )
        )
    if rep.sample_items:
        flags.append(risk(FlagKind.SAMPLE_DATA, "audit", sample_items_line(rep.sample_items)))
    flags += readiness_flag("audit", rep.readiness_s, ready_limit_s)
    if not rep.complete:
        reasons.append(partial("audit", AuditReport.FILENAME))
    return reasons, flags
