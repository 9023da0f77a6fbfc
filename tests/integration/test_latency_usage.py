"""Latency's usage rule against the simulator: vLLM's truthful accounting raises nothing, a
server that inflates usage is caught by the probe of its token ids, never by a guess.
And the self-test's own error judged against the run (an injected self-test: the seam)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.gate.rules import GateInputs, judge
from harness.latency.config import LatencyConfig
from harness.latency.core import measure_latency
from harness.latency.report import Calibration, LatencyReport
from harness.profiles import Bucket, load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.simulate import SimServer
from harness.stats.summary import dist
from harness.tokenizer import load_tokenizer
from tests.fixtures.configs import latency_config

pytestmark = pytest.mark.timeout(120)

PROFILE = load_profile()
SPEC = PROFILE.require_latency()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
SHORT = SPEC.bucket("short").model_copy(update={"max_tokens": 8})
LONG = SPEC.bucket("long").model_copy(update={"max_tokens": 8})


def cfg_for(url: str, *, buckets: tuple[Bucket, ...] = (SHORT,), **kw: object) -> LatencyConfig:
    base: dict[str, object] = dict(
        mode="both", runs=3, warmup=1, calibrate=False, timeout_s=30.0, ready_interval_s=0.1
    )
    return latency_config(url, buckets, **{**base, **kw})


async def run(sim: SimServer, folder: Path, **kw: object) -> LatencyReport:
    return await measure_latency(
        cfg_for(sim.url, **kw), provenance=Provenance(), folder=folder, tokenizer=TOK
    )


def usage_flags(rep: LatencyReport) -> list[str]:
    return [f.text for f in rep.flags if f.kind is FlagKind.USAGE_MISMATCH]


def probes(sim: SimServer) -> list:
    return [e for e in sim.log if isinstance(e.body, dict) and e.body.get("return_token_ids")]


async def test_vllm_accounting_eos_and_skipped_special_tokens_raise_nothing(simulator, tmp_path):
    """Like the CPU reference server: the short answer stops (usage = text + EOS), the long
    one is mostly special tokens the detokeniser skips (usage far above its text)."""
    sim = await simulator(output_tokens=5, count_eos=True)
    rep = await run(sim, tmp_path / "eos")
    for b in [*rep.official, *rep.strict]:
        assert b.n_usage_mismatch == b.n_usage_unsettled == 0  # usage 6 = 5 + the EOS
    assert probes(sim) == [] and rep.usage_checks == [] and rep.notes == []
    assert usage_flags(rep) == []

    sim = await simulator(special_tokens=6)  # 8 generated, 2 in the text, finish "length"
    rep = await run(sim, tmp_path / "special", buckets=(SHORT, LONG))
    assert all(b.n_usage_unsettled == 3 for b in [*rep.official, *rep.strict])
    # one probe per bucket, after every bucket, the official filler first
    assert [(c.mode, c.name, c.result) for c in rep.usage_checks] == [
        ("official", "short", "agrees"),
        ("official", "long", "agrees"),
    ]
    assert all(
        c.id_tokens == c.usage_tokens == 8 and c.special_tokens == 6 for c in rep.usage_checks
    )
    assert [e.index for e in probes(sim)] == [e.index for e in sim.log[-2:]]
    assert usage_flags(rep) == [] and rep.notes == []


async def test_official_mode_says_it_cannot_tell_and_a_probe_settles_it(simulator, tmp_path):
    sim = await simulator(special_tokens=6)
    rep = await run(sim, tmp_path / "off", mode="official")
    assert probes(sim) == [] and usage_flags(rep) == []  # no request the grader does not send
    [note] = rep.notes
    assert "3 official short (+6) tokens" in note and "--usage-probe on" in note
    rep = await run(sim, tmp_path / "on", mode="official", usage_probe="on")
    assert [c.result for c in rep.usage_checks] == ["agrees"] and rep.notes == []
    saved = LatencyReport.load(tmp_path / "on")
    assert saved.usage_checks == rep.usage_checks


async def test_an_inflating_server_is_caught_by_its_own_token_ids(simulator, tmp_path):
    sim = await simulator(usage_skew=3)
    rep = await run(sim, tmp_path / "skew")
    [check] = rep.usage_checks
    assert (check.result, check.usage_tokens, check.id_tokens) == ("disagrees", 11, 8)
    [flag] = usage_flags(rep)
    assert "usage 11 ≠ 8 generated tokens listed" in flag
    # gate shows it
    _, _, flags = judge(GateInputs.of(PROFILE, rep))
    assert any(f.kind is FlagKind.USAGE_MISMATCH for f in flags)

    sim = await simulator(usage_skew=-6)  # below the text beyond the tolerance: no doubt
    rep = await run(sim, tmp_path / "below", mode="official")
    assert rep.official[0].n_usage_mismatch == 3 and probes(sim) == []
    assert ["more than 4 tokens below" in t for t in usage_flags(rep)] == [True]


def calibration(p99_ms: float) -> Calibration:
    errors = [0.4] * 9 + [p99_ms]
    return Calibration(requests=10, ttft_error_ms=dist(errors), e2e_error_ms=dist(errors))


async def test_a_large_self_test_error_is_a_flag_the_gate_shows(simulator, tmp_path):
    sim = await simulator(ttft_ms=50, itl_ms=5)  # every median here is >= 50 ms

    def busy() -> Calibration:  # the self-test of a loaded client: p99 ~ 640 ms
        return calibration(700.0)

    rep = await measure_latency(
        cfg_for(sim.url, mode="strict"),
        provenance=Provenance(),
        folder=tmp_path / "busy",
        tokenizer=TOK,
        self_test=busy,
    )
    [flag] = [f for f in rep.flags if f.kind is FlagKind.SELF_TEST_ERROR]
    assert "strict short TTFT" in flag.text
    assert LatencyReport.load(tmp_path / "busy").flags == rep.flags
    _, _, gate_flags = judge(GateInputs.of(PROFILE, rep))
    assert any(f.kind is FlagKind.SELF_TEST_ERROR for f in gate_flags)

    def idle() -> Calibration:  # an idle client: p99 of a couple of ms
        return calibration(2.0)

    rep = await measure_latency(
        cfg_for(sim.url, mode="strict"),
        provenance=Provenance(),
        folder=tmp_path / "idle",
        tokenizer=TOK,
        self_test=idle,
    )
    assert not [f for f in rep.flags if f.kind is FlagKind.SELF_TEST_ERROR]
