"""The latency runner's stop-rule seam (``LatencyConfig.stop_rule``, harness tune's race)
against the simulator: the run ends at the rule's answer, in either mode, and its report
says it is partial and not the grader's procedure."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.latency.analysis import build_report
from harness.latency.report import RequestRow
from harness.latency.runner import LatencyState, run_latency
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.tokenizer import load_tokenizer
from tests.fixtures.configs import latency_config

pytestmark = pytest.mark.timeout(180)

SPEC = load_profile().require_latency()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
SHORT, MEDIUM = (b.model_copy(update={"max_tokens": 8}) for b in SPEC.buckets[:2])


class AfterN:
    """Stops once ``n`` timed requests were shown; records what it saw."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.seen: list[RequestRow] = []

    def after(self, row: RequestRow) -> str | None:
        self.seen.append(row)
        return f"seen {self.n}" if len(self.seen) >= self.n else None


@pytest.mark.parametrize("mode", ["both", "strict"])
async def test_the_rule_ends_the_run_where_it_answers(simulator, mode: str) -> None:
    sim = await simulator(ttft_ms=5, itl_ms=1)
    rule = AfterN(4)
    cfg = latency_config(
        sim.url, (SHORT, MEDIUM), runs=10, warmup=2, calibrate=False, timeout_s=10.0, mode=mode
    )
    cfg = replace(cfg, stop_rule=rule)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    first = "official" if mode == "both" else "strict"
    assert [(r.mode, r.bucket, r.phase) for r in rule.seen] == [(first, "short", "timed")] * 4
    timed = [r for r in state.rows if r.phase == "timed"]
    assert len(timed) == 4 and {r.bucket for r in state.rows} == {"short"}
    assert state.stopped_by == "seen 4" and state.finished_buckets == []
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert rep.complete is False and rep.score is None  # medium was never measured
    assert rep.settings["stopped_by"] == "seen 4" and rep.settings["official_procedure"] is False
    assert FlagKind.RUN_STOPPED in [f.kind for f in rep.flags]


async def test_a_rule_that_never_answers_changes_nothing(simulator) -> None:
    sim = await simulator(ttft_ms=5, itl_ms=1)
    rule = AfterN(10**6)
    cfg = latency_config(sim.url, (SHORT,), runs=5, warmup=1, calibrate=False, timeout_s=10.0)
    state = LatencyState()
    await run_latency(replace(cfg, stop_rule=rule), TOK, state)
    assert len(rule.seen) == 5 and state.stopped_by is None
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert rep.complete and "stopped_by" not in rep.settings
