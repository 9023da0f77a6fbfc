"""The GPU MODE Paris sweep against llama.cpp's own ``llama-server``: the profile needs no
copy (its routes, ``/health`` and ``/v1/chat/completions``, are llama-server's); ``--model``
names the served alias and ``--tokenizer`` the served model's vocabulary.

Small on purpose (2 cores): levels 1 and 4, 4 requests each, 96-token random prompts and
24-token answers, through the grader's own aiohttp loop (non-streamed chat bodies).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.throughput.report import ThroughputReport
from tests.fixtures.llama_server import LlamaServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_paris_sweep_on_llama_server(
    llama_server: LlamaServer, reference_model_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    argv = ["throughput", "--profile", "gpumode-paris", "--url", llama_server.url]
    argv += ["--levels", "1,4", "--requests-per-level", "4", "--warmup", "1"]
    argv += ["--prompt-tokens", "96", "--max-tokens", "24", "--seed", "11"]
    argv += ["--tokenizer", str(reference_model_dir), "--model", llama_server.model]
    assert main([*argv, "--ready-interval", "0.5", "--out", str(out), "--quiet"]) == 0
    rep = ThroughputReport.load(out)
    assert rep.model == llama_server.model and rep.endpoint == "/v1/chat/completions"
    assert not rep.official and rep.non_official["prompt_tokens"] == 96
    assert [lv.concurrency for lv in rep.levels] == [1, 4]
    for lv in rep.levels:
        assert (lv.n_requests, lv.n_failed) == (4, 0)
        assert lv.think_tags == 0 and lv.usage_missing == 0
        assert lv.output_tokens_per_request.max is not None
        assert lv.output_tokens_per_request.max <= 24 + rep.usage_tolerance_tokens
        timed = [r for r in rep.requests if r.level == lv.concurrency and r.phase == "timed"]
        assert len([r for r in timed if r.kind == "spot"]) == 2
        # llama-server counts the random prompt inside its own chat template
        randoms = [r for r in timed if r.kind == "random"]
        assert len(randoms) == 2
        assert all((r.server_prompt_tokens or 0) > 96 for r in randoms)
    assert rep.score is not None and rep.score > 0
