"""Integrity flags over hand-made records, and the gate's VLM rules."""

from __future__ import annotations

from harness.gate.report import Verdict
from harness.gate.rules import GateInputs, judge, required_reports
from harness.profiles import load_profile
from harness.risk import FlagKind
from harness.vlm import flags
from harness.vlm.analysis import analyze, official_result
from harness.vlm.report import VlmReport, VlmSample


def _s(i: int, **kw: object) -> VlmSample:
    base: dict[str, object] = dict(
        question_id=34602 + i, index=i, ttft_ms=20.0, throughput_ms=700.0, throughput_tokens=128,
        tok_s=128 / 0.7, counted=True, prediction="the sign says stop", answers=["stop"] * 10,
        visual_tokens=100 + 10 * i, ttft_token_matches=True, throughput_prefix_of_answer=True,
    )  # fmt: skip
    base.update(kw)
    return VlmSample.model_validate(base)


def test_early_eos_and_call_dependence() -> None:
    s = [
        _s(0, early_eos=True, throughput_tokens=5),
        _s(1),
        _s(2, throughput_prefix_of_answer=False),
    ]
    (eos,) = flags.early_eos(s, 128)
    assert "early EOS" in eos.text and eos.kind is FlagKind.EARLY_STOP and eos.source == "vlm"
    out = flags.call_dependence(s, 128)
    assert len(out) == 1 and "34604" in out[0].text
    assert out[0].kind is FlagKind.VLM_CALL_DEPENDENCE
    assert flags.early_eos([_s(0)], 128) == []


def test_second_call_faster_means_caching() -> None:
    cached = [_s(i, ttft_ms=50.0, throughput_ms=40.0) for i in range(4)]
    assert [f.kind for f in flags.second_call_faster(cached)] == [FlagKind.VLM_CROSS_CALL_CACHE]
    assert flags.second_call_faster([_s(i) for i in range(4)]) == []


def test_dropped_pixel_budget_repeats_and_cold_first() -> None:
    s = [_s(0, counted=False, ttft_ms=None, tok_s=0.0, error="ttft: OOM"), _s(1)]
    (drop,) = flags.dropped(s)
    assert "1/2 samples left out" in drop.text and drop.kind is FlagKind.REQUEST_FAILURES
    env = {"processor_pixels": {"size": {"shortest_edge": 4096, "longest_edge": 65536}}}
    cfg = {"size": {"shortest_edge": 4096, "longest_edge": 262144}}
    (pix,) = flags.pixel_budget(env, cfg)
    assert "longest_edge 65536 (folder: 262144)" in pix.text
    assert pix.kind is FlagKind.VLM_PIXEL_BUDGET
    assert flags.pixel_budget(env, {"size": env["processor_pixels"]["size"]}) == []
    assert flags.pixel_budget(env, None) == []
    rep = [_s(0, image_sha256="a"), _s(1, image_sha256="a"), _s(2, image_sha256="b")]
    (again,) = flags.repeated_images(rep)
    assert "1 samples reuse" in again.text and again.kind is FlagKind.VLM_REPEATED_IMAGES
    cold = [_s(0, tok_s=10.0)] + [_s(i, tok_s=200.0) for i in range(1, 4)]
    assert [f.kind for f in flags.cold_first_sample(cold)] == [FlagKind.VLM_COLD_WARMUP]
    assert flags.cold_first_sample([_s(i) for i in range(4)]) == []


def test_analyze_official_result_and_gate() -> None:
    spec = load_profile("aicas-vlm").require_vlm()
    rep = VlmReport(samples=[_s(0), _s(1, ttft_ms=30.0), _s(2, counted=False, tok_s=0.0)])
    analyze(rep, spec)
    assert rep.counted == 2
    assert rep.avg_ttft_ms == 25.0
    assert rep.accuracy is not None and rep.accuracy.containment == 1.0 and rep.accuracy.vqa == 0.0
    official = rep.score("official")
    assert official is not None and official.score is not None
    assert official.accuracy_term == 0.4
    result = official_result(rep)
    assert set(result) == {"system_info", "performance", "answers"}
    assert result["performance"] == {
        "avg_ttft_ms": 25.0,
        "avg_throughput_tokens_per_sec": round(128 / 0.7, 2),
    }
    assert [a["question_id"] for a in result["answers"]] == [34602, 34603, 34604]

    profile = load_profile("aicas-vlm")
    assert required_reports(profile) == ["vlm"]
    verdict, reasons, fl = judge(GateInputs.of(profile, rep, required=["vlm"]))
    assert verdict is Verdict.PASS
    assert any("score vs official" in r.text for r in reasons)
    assert any("left out" in f.text and f.kind is FlagKind.REQUEST_FAILURES for f in fl)
    assert all(f.source == "vlm" for f in fl)
    verdict, _, _ = judge(GateInputs.of(profile, rep, required=["vlm"]), strict=True)
    assert verdict is Verdict.FAIL
    empty = analyze(VlmReport(samples=[_s(0, counted=False, tok_s=0.0)]), spec)
    assert empty.avg_ttft_ms is None
    verdict, _, _ = judge(GateInputs.of(profile, empty, required=["vlm"]))
    assert verdict is Verdict.FAIL
    verdict, _, _ = judge(GateInputs.of(profile, required=["vlm"]))
    assert verdict is Verdict.INCOMPLETE
