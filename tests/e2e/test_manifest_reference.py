"""The manifest of the CPU reference server, started without and with prefix caching.

vLLM tells its cache settings in ``vllm:cache_config_info``; the two runs' manifests
differ in that setting, and ``harness compare`` says so above its verdicts. With prefix
caching is the session's reference server (the cpu recipe leaves vLLM's default, on, which
the test asserts), so one start is paid here: the server without it, measured and stopped
while the session's server sits idle (never two measured at once: vLLM on CPU is heavy).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.compare.model import CompareReport
from harness.manifest.model import load_manifest
from reference_server.launch import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1500)]

STARTUP_TIMEOUT_S = 240.0


def measure(server: ServerProcess, folder: Path) -> None:
    """One short strict latency run against ``server``."""
    argv = ["latency", "--url", server.url, "--mode", "strict", "--buckets", "short"]
    argv += ["--runs", "2", "--warmup", "0", "--tokenizer", str(server.model_dir)]
    assert main([*argv, "--no-calibrate", "--out", str(folder), "--quiet"]) == 0


def measure_started(model_dir: Path, folder: Path, *server_args: str) -> None:
    """Start the cpu recipe with ``server_args``, measure it, stop it."""
    server = ServerProcess.start(
        "cpu", model_dir, log_path=folder.parent / f"{folder.name}.log", extra_args=server_args
    )
    try:
        server.wait_ready(timeout_s=STARTUP_TIMEOUT_S)
        measure(server, folder)
    finally:
        server.stop(timeout_s=30.0)


def test_prefix_caching_off_and_on_is_the_diff(
    reference_server: ServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "without", tmp_path / "with"
    measure_started(reference_server.model_dir, a, "--no-enable-prefix-caching")
    measure(reference_server, b)
    ma, mb = load_manifest(a), load_manifest(b)
    assert ma is not None and mb is not None
    assert ma.settings["cache_config.enable_prefix_caching"] is False
    assert mb.settings["cache_config.enable_prefix_caching"] is True
    assert ma.settings["server.max_model_len"] == 8704 and ma.settings["server.version"]
    assert ma.config_id != mb.config_id
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--quiet"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    assert rep.manifest is not None
    assert [c.text for c in rep.manifest.changes] == ["enable_prefix_caching false → true"]
    assert main(["compare", str(a), str(b)]) == 0
    assert "B: enable_prefix_caching false → true" in capsys.readouterr().out
