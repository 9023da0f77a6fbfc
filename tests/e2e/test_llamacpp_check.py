"""``harness check`` against llama.cpp's own ``llama-server`` (CPU, SmolLM2-135M Q4_1 GGUF):
every check its routes can answer passes, under a profile that names those routes
(tests/fixtures/llamacpp_profiles.py: ``/health``, ``/v1/completions``,
``/v1/chat/completions``; no ``/ping``, no ``/invocations``).

Its stream checks run just before ``concurrency_8``: llama-server closes the connection
after every streamed answer although it said keep-alive, and the pooled client used to
put one of the 8 requests on that dead connection (``ServerDisconnectedError``, ~1 run in
2); it now sends such a request again on a new connection (harness/client/http.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.conformance.report import CheckReport, Result
from tests.fixtures.llama_server import LlamaServer
from tests.fixtures.llamacpp_profiles import CHECKS, LONG_PROMPT_TOKENS

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_llama_server_passes_every_check_its_routes_answer(
    llama_server: LlamaServer, llamacpp_profile: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    argv = ["check", "--url", llama_server.url, "--profile", str(llamacpp_profile)]
    code = main([*argv, "--ready-timeout", "30", "--out", str(out), "--quiet"])
    report = CheckReport.load(out)
    failing = [(c.name, c.reason) for c in report.checks if c.result is not Result.PASS]
    assert code == 0 and not failing, failing
    by = {c.name: c for c in report.checks}
    assert set(by) == {*CHECKS, "stream_chat", "stream_completions"} - {"streaming"}
    assert "GET /health 200" in by["readiness"].reason
    assert report.model == llama_server.model
    # the served model's own tokenizer: usage agrees with the client's count
    usage = by["usage"].details["usage"]
    assert usage[2] == usage[0] + usage[1]
    assert f"{LONG_PROMPT_TOKENS} tokens" in by["long_input"].reason
    assert by["concurrency_8"].details["ok"] == 8
