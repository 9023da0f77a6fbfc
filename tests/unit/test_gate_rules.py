"""The gate's rules over literal reports."""

from harness.audit.report import AuditReport
from harness.conformance.report import Check, CheckReport, Result
from harness.data.samples import SAMPLE_KEY, SAMPLE_REASON
from harness.gate.report import Verdict
from harness.gate.rules import GateInputs, judge, required_reports
from harness.image.gate_rules import package_rules
from harness.image.report import PackageReport
from harness.image.rules import RuleResult
from harness.latency.report import BucketResult, Gap, LatencyReport
from harness.profiles import load_profile
from harness.quality.report import BenchmarkResult, QualityReport
from harness.risk import FlagKind, RiskFlag
from harness.rule_report import RuleResult as AuditResult
from harness.rule_report import RuleVerdict
from harness.throughput.report import ThroughputReport

PROFILE = load_profile("efficient-qwen")
REQUIRED = required_reports(PROFILE)


def check_report(*, failing: str | None = None, warn: str | None = None) -> CheckReport:
    checks = []
    for name in ("readiness", "chat_shape", "thinking_off", "one_stack"):
        result = Result.FAIL if name == failing else Result.WARN if name == warn else Result.PASS
        checks.append(
            Check(
                name=name,
                group="g",
                title=name,
                required=True,
                result=result,
                reason=f"{name} says so",
            )
        )
    return CheckReport(url="http://x", checks=checks)


def bucket(
    name: str, median: float, baseline: float, *, n_ok: int = 50, short: int = 0
) -> BucketResult:
    return BucketResult(
        name=name,
        mode="official",
        endpoint="/invocations",
        prompt_tokens_nominal=64,
        prompt_tokens=61,
        max_tokens=128,
        baseline_ms=baseline,
        n_ok=n_ok,
        n_failed=50 - n_ok,
        median_ms=median if n_ok else None,
        speedup=baseline / median if n_ok else None,
        n_short_outputs=short,
    )


def latency_report(*, long_ok: int = 50, gap_share: float | None = None) -> LatencyReport:
    rep = LatencyReport(
        mode="official",
        official=[
            bucket("short", 500, 2582),
            bucket("medium", 1000, 5441),
            bucket("long", 1200, 6576, n_ok=long_ok),
        ],
        settings={
            "runs": 50,
            "warmup": 5,
            "buckets": ["short", "medium", "long"],
            "official_procedure": True,
        },
    )
    rep.score = 4.0
    if gap_share is not None:
        rep.gaps = [
            Gap(
                bucket="long",
                official_median_ms=1200,
                strict_median_ms=4000,
                official_speedup=5.48,
                strict_speedup=1.64,
                share_of_official_speedup=gap_share,
                cause_kind="prefix_cache",
                cause="prefix cache: same text",
            )
        ]
    return rep


def quality_report(scores: dict[str, float | None], n: int = 1000) -> QualityReport:
    spec = PROFILE.require_quality()
    return QualityReport(
        benchmarks=[
            BenchmarkResult(
                name=b.name,
                title=b.title,
                task=b.task,
                metric=b.metric,
                threshold=b.threshold,
                score=scores[b.name],
                passed=None if scores[b.name] is None else scores[b.name] >= b.threshold,
                n=n,
                error=None if scores[b.name] is not None else "server died",
            )
            for b in spec.benchmarks
        ]
    )


GOOD_Q = {"mmlu_pro": 0.70, "ifeval": 0.86, "gpqa_diamond": 0.71}


def audit_report(failing: str | None = None) -> AuditReport:
    """Every rule of the profile judged; ``failing`` fails (a response cache's words)."""
    return AuditReport(
        url="http://h:1",
        requests=17,
        wall_s=20.0,
        rules=[
            RuleVerdict(
                rule=rule,
                title=rule,
                result=AuditResult.FAIL if rule == failing else AuditResult.PASS,
                why="response cache: decode skipped" if rule == failing else "fine",
            )
            for rule in PROFILE.audit.rules
        ],
    )


def gate_inputs(profile=PROFILE, required=None, **reports) -> GateInputs:
    """GateInputs of the reports given by kind name (None: absent)."""
    present = [r for r in reports.values() if r is not None]
    return GateInputs.of(profile, *present, required=required or [])


def inputs(**kw) -> GateInputs:
    base = dict(
        check=check_report(),
        latency=latency_report(),
        quality=quality_report(GOOD_Q),
        audit=audit_report(),
        required=REQUIRED,
    )
    base.update(kw)
    return gate_inputs(**base)


def test_required_reports_by_profile():
    assert REQUIRED == ["check", "latency", "quality", "audit"]
    assert required_reports(PROFILE, image=True)[-1] == "package"


def test_all_good_passes_with_score_line():
    verdict, reasons, flags = judge(inputs())
    assert verdict is Verdict.PASS
    assert not any(r.blocking for r in reasons)
    assert any(r.text.startswith("latency score 4.00×") for r in reasons)
    assert flags == []


def test_failed_required_check_fails():
    verdict, reasons, _ = judge(inputs(check=check_report(failing="chat_shape")))
    assert verdict is Verdict.FAIL
    assert [r.text for r in reasons if r.blocking] == [
        "check chat_shape failed: chat_shape says so"
    ]


def test_quality_below_threshold_fails_with_uncertainty():
    verdict, reasons, _ = judge(
        inputs(quality=quality_report({**GOOD_Q, "gpqa_diamond": 0.59}, n=20))
    )
    assert verdict is Verdict.FAIL
    (blocking,) = [r for r in reasons if r.blocking]
    assert blocking.text == (
        "quality gate failed: GPQA-Diamond 0.590 < 0.630 (95 % interval 0.378–0.773 at n=20)"
    )


def _on_samples(rep: QualityReport) -> QualityReport:
    rep.official = False
    rep.non_official = {SAMPLE_KEY: f"{SAMPLE_REASON}: ifeval/train.jsonl"}
    return rep


def test_sample_data_never_passes_the_quality_gate():
    """All three above their thresholds on the sample data: undecided (INCOMPLETE), with a
    typed flag, and one right answer of one is shown as the wide interval it is."""
    rep = _on_samples(quality_report({"mmlu_pro": 0.7, "ifeval": 1.0, "gpqa_diamond": 1.0}, n=1))
    verdict, reasons, flags = judge(inputs(quality=rep))
    assert verdict is Verdict.INCOMPLETE
    quality = [r for r in reasons if r.source == "quality"]
    assert all(r.incomplete and not r.blocking for r in quality)
    assert (
        "quality not judged on sample data, not the grader's set: IFEval 1.000 ≥ 0.814 "
        "(95 % interval 0.207–1.000 at n=1)"
    ) in [r.text for r in quality]
    assert [f.kind for f in flags if f.source == "quality"] == [FlagKind.SAMPLE_DATA]


def test_sample_data_failure_still_fails():
    rep = _on_samples(quality_report({**GOOD_Q, "gpqa_diamond": 0.0}, n=1))
    verdict, reasons, _ = judge(inputs(quality=rep))
    assert verdict is Verdict.FAIL
    (blocking,) = [r for r in reasons if r.blocking]
    assert blocking.text == (
        "quality gate failed: GPQA-Diamond 0.000 < 0.630 (95 % interval 0.000–0.793 at n=1), "
        "on sample data, not the grader's set"
    )


def test_close_call_is_a_flag_not_a_failure():
    verdict, _, flags = judge(inputs(quality=quality_report({**GOOD_Q, "ifeval": 0.82}, n=100)))
    assert verdict is Verdict.PASS
    assert {(f.kind, f.source) for f in flags} == {(FlagKind.NEAR_THRESHOLD, "quality")}
    assert any("IFEval is within its sampling error" in f.text for f in flags)


def test_missing_report_is_incomplete_and_fail_wins():
    verdict, reasons, _ = judge(inputs(quality=None))
    assert verdict is Verdict.INCOMPLETE
    assert any(r.incomplete and "quality.json is missing" in r.text for r in reasons)
    verdict, _, _ = judge(inputs(quality=None, check=check_report(failing="readiness")))
    assert verdict is Verdict.FAIL


def test_no_score_benchmark_is_incomplete():
    verdict, reasons, _ = judge(inputs(quality=quality_report({**GOOD_Q, "ifeval": None})))
    assert verdict is Verdict.INCOMPLETE
    assert any("IFEval: no score (server died)" in r.text for r in reasons)


def test_partial_latency_is_incomplete():
    lat = latency_report()
    lat.complete = False
    assert judge(inputs(latency=lat))[0] is Verdict.INCOMPLETE


def test_dead_bucket_fails():
    verdict, reasons, _ = judge(inputs(latency=latency_report(long_ok=0)))
    assert verdict is Verdict.FAIL
    assert any("bucket long: every timed request failed" in r.text for r in reasons)


def test_risk_flags_and_strict():
    lat = latency_report(gap_share=0.7)
    lat.flags = [
        RiskFlag(
            kind=FlagKind.EARLY_STOP,
            text="early-stop: 50/50 official short responses stopped before max_tokens=128",
            source="latency",
        )
    ]
    chk = check_report(warn="thinking_off")
    verdict, _, flags = judge(inputs(latency=lat, check=chk))
    assert verdict is Verdict.PASS
    assert [(f.kind, f.source) for f in flags] == [
        (FlagKind.CHECK_NOT_PASSED, "check"),
        (FlagKind.THINKING_LEAK, "check"),
        (FlagKind.EARLY_STOP, "latency"),
        (FlagKind.SPEEDUP_GAP, "latency"),
    ]
    texts = [f.text for f in flags]
    assert any("70% of the long speedup is not reproduced" in t for t in texts)
    assert "(prefix cache)" in texts[3]
    assert texts[2].startswith("latency: early-stop")
    assert texts[1].startswith("thinking leaks into content")
    verdict, reasons, _ = judge(inputs(latency=lat, check=chk), strict=True)
    assert verdict is Verdict.FAIL
    assert sum(r.blocking for r in reasons) == len(flags)


def package_report(rules: list[RuleResult], passed: bool) -> PackageReport:
    return PackageReport(
        archive="image.tar.gz",
        sha256="0" * 64,
        compressed_bytes=1,
        layout="oci",
        layer_count=1,
        tags=[],
        entrypoint=[],
        cmd=[],
        exposed_ports=[],
        env_names=[],
        model_files={},
        parameters=None,
        rules=rules,
        passed=passed,
    )


def test_package_rules():
    reasons, flags = package_rules(
        package_report(
            [
                RuleResult(rule="weights", status="fail", detail="no /opt/ml/model/config.json"),
                RuleResult(rule="env", status="warn", detail="HF_HUB_OFFLINE not set"),
                RuleResult(rule="port", status="pass", detail="8080 exposed"),
            ],
            passed=False,
        )
    )
    assert [r.text for r in reasons] == ["package rule weights: no /opt/ml/model/config.json"]
    assert [(f.kind, f.text) for f in flags] == [
        (FlagKind.PACKAGE_WARNING, "package rule env: HF_HUB_OFFLINE not set")
    ]


def test_throughput_profile_gate():
    paris = load_profile("gpumode-paris")
    assert required_reports(paris) == ["check", "throughput", "quality", "audit"]
    tp = ThroughputReport(
        url="http://x",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        score=1321.0,
        score_complete=False,
        official=False,
        non_official={"max_tokens": 64},
        spot_checks_passed=False,
        flags=[
            RiskFlag(
                kind=FlagKind.USAGE_MISMATCH, text="usage mismatch at c=4", source="throughput"
            )
        ],
    )
    verdict, reasons, flags = judge(
        gate_inputs(
            profile=paris,
            check=check_report(),
            throughput=tp,
            quality=None,
            required=required_reports(paris),
        )
    )
    assert verdict is Verdict.INCOMPLETE  # no quality.json yet
    # no ✓ beside a score the grader zeroes unless GSM8K passes, and GSM8K is not measured
    (line,) = [r for r in reasons if r.text.startswith("throughput score")]
    assert line.incomplete and line.text == (
        "throughput score 1,321 (weighted tok/s) as measured; the grader scores 0 unless gsm8k"
        " passes score.py's gate (exact_match,strict-match ≥ 0.85): not measured"
    )
    assert [f.kind for f in flags] == [
        FlagKind.USAGE_MISMATCH,
        FlagKind.PARTIAL_SWEEP,
        FlagKind.NON_OFFICIAL,
        FlagKind.SPOT_CHECK,
    ]
    assert flags[0].text == "throughput: usage mismatch at c=4"


def test_partial_measurements_are_incomplete():
    lat = latency_report()
    lat.official = lat.official[:1]
    lat.score = None
    verdict, reasons, _ = judge(inputs(latency=lat, quality=quality_report(GOOD_Q)))
    assert verdict is Verdict.INCOMPLETE
    said = "latency buckets not measured: medium, long (the grader's score is the mean over all 3)"
    assert any(r.text == said for r in reasons)
    q = quality_report(GOOD_Q)
    q.benchmarks = q.benchmarks[1:2]
    verdict, reasons, _ = judge(inputs(quality=q))
    assert verdict is Verdict.INCOMPLETE
    assert any(r.text == "quality gate mmlu_pro was not measured" for r in reasons)


def test_a_score_over_fewer_buckets_never_reads_as_the_graders():
    """``--buckets short``: the mean over one bucket is said to be that, beside the buckets
    not measured, and is no ✓ line: an incomplete reason (issue 47, item 11)."""
    lat = latency_report()
    lat.official = lat.official[:1]
    lat.score = lat.official[0].speedup
    verdict, reasons, _ = judge(inputs(latency=lat, quality=quality_report(GOOD_Q)))
    assert verdict is Verdict.INCOMPLETE
    [score] = [r for r in reasons if r.text.startswith("latency score")]
    assert score.text == (
        f"latency score over short only: {lat.score:.2f}× (short {lat.score:.2f}×), not the "
        "grader's score over short, medium, long"
    )
    assert score.incomplete and not score.blocking


def test_thinking_budget_flag_only_at_the_graders_budget():
    """An answer lost to the thinking budget is a risk at the grader's cap; under the run's
    own max_gen_toks (the demo's 24 tokens) it is that cap's doing, and no flag."""
    from harness.quality.stats import ThinkingStats

    rep = quality_report(GOOD_Q)
    gpqa = next(b for b in rep.benchmarks if b.name == "gpqa_diamond")
    gpqa.thinking_stats = ThinkingStats(
        answers=10, lost_to_budget=2, think_tokens_mean=None, extracted=8
    )
    _, _, flags = judge(inputs(quality=rep))
    assert [f.kind for f in flags if f.kind is FlagKind.THINKING_BUDGET] == [
        FlagKind.THINKING_BUDGET
    ]
    capped = rep.model_copy(update={"official": False, "non_official": {"max_gen_toks": 24}})
    _, _, flags = judge(inputs(quality=capped))
    assert FlagKind.THINKING_BUDGET not in {f.kind for f in flags}
    assert FlagKind.NON_OFFICIAL in {f.kind for f in flags}


def test_a_failing_audit_rule_fails_the_gate_naming_the_rule():
    verdict, reasons, _ = judge(inputs(audit=audit_report(failing="cached_answers")))
    assert verdict is Verdict.FAIL
    (blocking,) = [r for r in reasons if r.blocking]
    assert blocking.source == "audit"
    assert blocking.text == "audit rule cached_answers failed: response cache: decode skipped"


def test_an_audit_left_out_with_skip_is_incomplete_and_says_so():
    given = inputs(audit=None)
    given.skipped = ["audit"]
    verdict, reasons, _ = judge(given)
    assert verdict is Verdict.INCOMPLETE
    assert "audit not measured: skipped with --skip audit" in [r.text for r in reasons]


def test_a_step_an_earlier_stop_left_out_says_why_not_run_it():
    """Issue 47: a step not run because check failed is not "run harness X into this
    folder"; a report measured into the folder since is judged, whatever was recorded."""
    given = inputs(audit=None)
    given.not_run = {"audit": "check failed (--keep-going measures anyway)"}
    _, reasons, _ = judge(given)
    texts = [r.text for r in reasons]
    assert "audit not measured: check failed (--keep-going measures anyway)" in texts
    assert not any("into this folder" in t for t in texts)
    given = inputs()
    given.not_run = {"audit": "check failed (--keep-going measures anyway)"}
    assert not any("audit not measured" in r.text for r in judge(given)[1])
