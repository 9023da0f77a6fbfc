"""Which of the audit's requests were answered, and the failures in one line
(harness/audit/answered.py; issue 46 item 1: a failed request is never evidence)."""

from __future__ import annotations

from harness.audit.answered import FIRST, all_failed_alike, answered, failures
from harness.audit.continuations.record import Continuation
from harness.audit.report import Sample
from harness.client.answered import failure_kind, not_checked


def sample(error: str | None = None) -> Sample:
    return Sample(bucket="short", role="repeated", phase="timed", round=0, prompt_tokens=61,
                  e2e_ms=None if error else 300.0, output_tokens=128, error=error)  # fmt: skip


def test_answered_counts_ok_records_and_each_checks_requests_but_the_failed_one() -> None:
    records = [sample(), sample("HTTP 500 from /invocations"), sample()]
    checks = [
        Continuation(bucket="short", max_tokens=128, requests=2),
        Continuation(bucket="short", max_tokens=128, requests=2, error="HTTP 500 from /x"),
        Continuation(bucket="short", max_tokens=128, requests=1, error="HTTP 500 from /x"),
    ]
    assert answered(records, checks) == 2 + (2 + 1 + 0)


def test_failures_are_counted_by_kind_without_the_servers_words() -> None:
    errors = ["HTTP 500 from /invocations", None, "HTTP 500 from /invocations: boom",
              "HTTP 404 from /v1/chat/completions: The model `x` does not exist."]  # fmt: skip
    assert failures(errors) == (
        "2 × HTTP 500 from /invocations; 1 × HTTP 404 from /v1/chat/completions"
    )
    assert failures([None, None]) is None
    assert failures(["a", "b", "b", "c", "d"], limit=2) == "2 × b; 1 × a; 2 more"
    assert failure_kind("TimeoutError: no answer in 30 s") == "TimeoutError"
    assert (
        not_checked("POST /x failed: HTTP 500") == "could not be checked: POST /x failed: HTTP 500"
    )


def test_the_audit_stops_only_when_its_first_requests_all_failed_alike() -> None:
    e404 = "HTTP 404 from /v1/chat/completions: no such model"
    assert all_failed_alike([e404] * (FIRST - 1)) is None  # too few yet
    assert all_failed_alike([e404] * FIRST) == "HTTP 404 from /v1/chat/completions"
    assert all_failed_alike([e404] * (FIRST - 1) + [None]) is None  # one answered
    assert all_failed_alike([e404] * (FIRST - 1) + ["HTTP 500 from /x"]) is None


def test_failed_requests_never_block_the_gate_nor_make_a_tune_trial_audit_failed() -> None:
    """Tune marks a trial ``audit-failed`` on a blocking reason of a rule-judging kind
    (harness/tune/trial: ``judges_rules``); an audit whose rules are inconclusive because
    requests failed gives none, only a risk flag."""
    from harness.audit.gate_rules import audit_rules
    from harness.audit.report import AuditReport
    from harness.rule_report import RuleResult, RuleVerdict

    why = "no successful repeated and control requests to compare: 50 × HTTP 500 from /x"
    rep = AuditReport(
        url="http://s",
        samples=[sample("HTTP 500 from /x")],
        rules=[RuleVerdict(rule="cached_answers", title="t", result=RuleResult.INCONCLUSIVE,
                           why=why)],
    )  # fmt: skip
    reasons, flags = audit_rules(rep, 600.0)
    assert not any(r.blocking for r in reasons)
    assert [f.text for f in flags] == [f"audit rule cached_answers inconclusive: {why}"]
