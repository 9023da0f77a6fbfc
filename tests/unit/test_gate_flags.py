"""The gate decides by a flag's kind, never by its wording."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.gate.report import Verdict
from harness.gate.rules import GateInputs, judge, required_reports
from harness.latency.report import LatencyReport
from harness.profiles import load_profile
from harness.risk import FlagKind, RiskFlag
from harness.throughput.report import ThroughputReport
from tests.unit.test_gate_rules import (
    GOOD_Q,
    PROFILE,
    check_report,
    gate_inputs,
    inputs,
    latency_report,
    quality_report,
)


def _flags(*kinds: FlagKind, source: str) -> list[RiskFlag]:
    texts = {
        FlagKind.EARLY_STOP: "early-stop: 3/50 official short responses stopped early",
        FlagKind.REQUEST_FAILURES: "failures: 2 timed official long requests failed (timeout×2)",
        FlagKind.NO_DATA: "no-data: every timed strict long request failed",
        FlagKind.USAGE_MISMATCH: "usage-mismatch: 4 official short responses",
        FlagKind.PROMPT_MISMATCH: "prompt-mismatch: in 5 strict medium requests",
        FlagKind.SPOT_CHECK: "c=4: spot check failed: 2 + 2 expected 4, got '5'",
        FlagKind.SERVED_MODEL: "the server does not serve 'Qwen/Qwen3.5-35B-A3B'",
    }
    return [RiskFlag(kind=k, text=texts[k], source=source) for k in kinds]


def _reworded(flags: list[RiskFlag]) -> list[RiskFlag]:
    return [f.model_copy(update={"text": f"worded otherwise #{i}"}) for i, f in enumerate(flags)]


def _latency() -> LatencyReport:
    lat = latency_report(long_ok=48, gap_share=0.7)
    lat.readiness_s = 900.0
    lat.settings = {**lat.settings, "runs": 10}
    lat.flags = _flags(
        FlagKind.EARLY_STOP,
        FlagKind.REQUEST_FAILURES,
        FlagKind.NO_DATA,
        FlagKind.USAGE_MISMATCH,
        FlagKind.PROMPT_MISMATCH,
        source="latency",
    )
    return lat


def _outcome(gate_inputs: GateInputs, *, strict: bool) -> tuple[Verdict, int, Counter[str]]:
    verdict, reasons, flags = judge(gate_inputs, strict=strict)
    return verdict, sum(r.blocking for r in reasons), Counter(f"{f.source}/{f.kind}" for f in flags)


@pytest.mark.parametrize("strict", [False, True])
def test_rewording_every_latency_flag_and_gap_cause_keeps_the_verdict(strict: bool) -> None:
    lat = _latency()
    plain = inputs(
        latency=lat,
        check=check_report(warn="one_stack"),
        quality=quality_report({**GOOD_Q, "ifeval": 0.82}, n=100),
    )
    before = _outcome(plain, strict=strict)
    reworded = lat.model_copy(
        update={
            "flags": _reworded(lat.flags),
            "gaps": [g.model_copy(update={"cause": "said differently"}) for g in lat.gaps],
        }
    )
    plain.reports["latency"] = reworded
    after = _outcome(plain, strict=strict)
    assert after == before
    verdict, _, kinds = before
    assert verdict is (Verdict.FAIL if strict else Verdict.PASS)
    # the report's failure and no-data flags are restated by the gate from the counts
    assert kinds["latency/request_failures"] == 1 and kinds["latency/no_data"] == 0
    assert kinds["latency/speedup_gap"] == 1 and kinds["latency/non_official"] == 1
    assert kinds["latency/slow_readiness"] == 1 and kinds["check/endpoint_routing"] == 1


@pytest.mark.parametrize("strict", [False, True])
def test_rewording_every_throughput_flag_keeps_the_verdict(strict: bool) -> None:
    paris = load_profile("gpumode-paris")
    tp = ThroughputReport(
        url="http://x",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        official=True,
        score=1000.0,
        score_complete=True,
        flags=_flags(FlagKind.SPOT_CHECK, FlagKind.SERVED_MODEL, source="throughput"),
    )
    inputs_ = gate_inputs(
        profile=paris,
        check=check_report(),
        throughput=tp,
        required=required_reports(paris),
    )
    before = _outcome(inputs_, strict=strict)
    inputs_.reports["throughput"] = tp.model_copy(update={"flags": _reworded(tp.flags)})
    assert _outcome(inputs_, strict=strict) == before
    assert before[0] is (Verdict.FAIL if strict else Verdict.INCOMPLETE)


def test_profile_supplies_the_readiness_limit() -> None:
    lat = latency_report()
    lat.readiness_s = 700.0
    _, _, flags = judge(inputs(latency=lat))
    assert [f.text for f in flags] == ["readiness took 700 s, over the grader's 600 s"]
    patient = PROFILE.model_copy(
        update={"readiness": PROFILE.readiness.model_copy(update={"timeout_s": 900.0})}
    )
    _, _, flags = judge(inputs(latency=lat, profile=patient))
    assert flags == []
