"""The audit's headline says what was judged, and the exit code's reason (issue 46 item 4):
"every rule passes" only when every rule passed."""

from __future__ import annotations

from harness.audit.report import AuditReport
from harness.audit.views import sections, title
from harness.rule_report import RuleResult, RuleVerdict
from harness.view.model import Text


def verdict(rule: str, result: RuleResult, by_design: bool = False) -> RuleVerdict:
    return RuleVerdict(rule=rule, title=rule, result=result, why="why", by_design=by_design)


PASS, FAIL, UNSURE = RuleResult.PASS, RuleResult.FAIL, RuleResult.INCONCLUSIVE


def report(*rules: RuleVerdict, complete: bool = True) -> AuditReport:
    return AuditReport(url="http://s", rules=list(rules), requests=78, wall_s=25.0,
                       complete=complete)  # fmt: skip


def test_every_rule_passes_only_when_every_rule_passed() -> None:
    rep = report(verdict("cached_answers", PASS), verdict("one_stack", PASS))
    assert rep.summary_line() == (
        "every rule passes — 2 pass, 0 fail, 0 inconclusive; 78 requests in 25.0 s"
    )
    assert rep.exit_reason() == "exit 0: every rule passes"


def test_inconclusive_rules_are_named_with_the_exit_codes_reason() -> None:
    """Before: "every rule passes — 3 pass, 0 fail, 3 inconclusive" with exit 3."""
    rep = report(
        verdict("cached_answers", PASS),
        verdict("one_stack", UNSURE),
        verdict("complete_outputs", UNSURE, by_design=True),
    )
    assert rep.summary_line() == (
        "no rule fails — 2 inconclusive: one_stack, complete_outputs (by design) — 1 pass, "
        "0 fail, 2 inconclusive; 78 requests in 25.0 s"
    )
    assert rep.exit_reason().startswith("exit 3: one_stack could not be judged (their requests")
    by_design = report(verdict("complete_outputs", UNSURE, by_design=True))
    assert by_design.exit_reason() == (
        "exit 0: no rule fails (complete_outputs: nothing to judge, by design)"
    )
    assert report(verdict("cached_answers", FAIL)).exit_reason() == "exit 1: cached_answers failed"


def test_an_interrupted_audit_that_judged_nothing_says_so() -> None:
    rep = report(complete=False)
    assert rep.summary_line().startswith("no rule judged (interrupted) — 0 pass")
    assert rep.exit_reason().startswith("interrupted: a partial report, no verdict")
    shown = [x for s in sections(rep) for x in s.blocks if isinstance(x, Text)]
    assert shown[0].tone == "warn"


def test_the_header_names_every_route_the_audit_sent_to() -> None:
    rep = report()
    rep.endpoint, rep.routes = "/invocations", ["/invocations", "/v1/chat/completions"]
    assert title(rep) == "harness audit — http://s: /invocations (timed), /v1/chat/completions"
    rep.routes = []  # a report of before the routes were kept
    assert title(rep) == "harness audit — http://s/invocations"


def test_the_page_says_each_rules_evidence_in_words_with_where_it_is_explained() -> None:
    from harness.audit.evidence import rule_text
    from harness.audit.views import page

    v = RuleVerdict(
        rule="cached_answers", title="no cached answers", result=PASS, why="pays its decode",
        evidence={"requests_answered": 72, "requests_failed": "6 × HTTP 500 from /invocations",
                  "requests_counted": 72,
                  "short_ms_per_token": {"repeated": 3.3, "near_filler": 3.4, "unique_head": 3.5}},
    )  # fmt: skip
    assert rule_text(v) == [
        "cached_answers — no cached answers: PASS",
        "why: pays its decode",
        "· the server's own request counter counted 72 of the 72 requests answered (fewer: "
        "answers that never reached the engine)",
        "· requests that failed (never evidence): 6 × HTTP 500 from /invocations",
        "· short: the repeated prompt took 3.30 ms per output token, its near-filler control "
        "3.40 ms, a fresh prompt (unique head) 3.50 ms (a prefix cache makes the first two "
        "alike; an answer cache makes the repeated prompt far cheaper)",
        "read more: docs/audit.md, The rules; Failed requests (cached_answers)",
    ]
    shown = page(report(v))
    assert [s.key for s in shown] == ["audit", "audit-evidence"]
