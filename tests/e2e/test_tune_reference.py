"""harness tune on the CPU reference server (vLLM): two real vLLM flags, prefix caching on or
off and max_num_seqs, on the fewest starts that show both: the two points where both flags
change at once (an ``[[exclude]]`` leaves out the other two), so each flag's two values
reach a real vLLM launch. Only deterministic facts are asserted: every trial has a status,
every launch line carries its flags, no vLLM process (the API server nor its engine core)
is left, tune.json reads back and ``harness report`` shows the tune. The two starts'
manifests carry vLLM's own cache settings (``vllm:cache_config_info``): prefix caching off
in one, on in the other, and ``harness compare`` names that change above its verdicts.

A trial is check → latency here (the profile without quality gates and without its audit,
tests/fixtures/tune_profiles.py, its check without the long prompt and the 64 concurrent
requests, which tests/e2e/test_check_reference.py runs): a trial's quality step is the quality core that
tests/e2e/test_quality_reference.py runs on this server, its audit the one
tests/e2e/test_gate_reference.py runs on it (minutes of 128-token answers on 2 cores), and
the gate-failed and audit-failed paths are held on the simulator
(tests/integration/test_tune_simulator.py, test_tune_audit.py). No confirmation leg: its
starts prove nothing more about a launch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.children import die_with_parent
from harness.cli import main
from harness.compare.model import CompareReport
from harness.manifest.model import load_manifest
from harness.report_base import load_report
from harness.tune.launch.candidate import group_alive
from harness.tune.record.report import TuneReport
from tests.fixtures.tune_profiles import speed_only

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(3600)]

STATUSES = {
    "ok",
    "slower",
    "tie",
    "gate-failed",
    "disqualified",
    "failed-to-start",
    "crashed",
    "error",
}
ON, OFF = "--enable-prefix-caching", "--no-enable-prefix-caching"


# every check but the 8192-token prompt and the 64 concurrent requests (minutes on 2 cores,
# and about the server, not the launch: tests/e2e/test_check_reference.py runs them all)
CHECKS = [
    "readiness", "offline", "served_model", "invocations_completion", "invocations_chat",
    "completions", "chat_completions", "model_name", "usage", "max_tokens", "determinism",
    "one_stack", "thinking_off", "thinking_on", "thinking_default", "stream_chat",
    "stream_completions", "concurrency_8", "bad_input",
]  # fmt: skip


def _profile(tmp_path: Path) -> Path:
    """efficient-qwen without quality gates and audit, its check without the two slow ones."""
    path = speed_only(tmp_path, CHECKS)
    text = path.read_text()
    text = text.replace(
        '"streaming",\n    "long_input", "concurrency_8",', '"streaming",\n    "concurrency_8",', 1
    )
    path.write_text(text)
    return path


def _space(tmp_path: Path, model: Path) -> Path:
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "vllm-flags"
profile = "{_profile(tmp_path)}"
[serve]
command = "{sys.executable} -m reference_server --recipe cpu --model {model} --port {{port}} --max-num-seqs {{max_num_seqs}} {{prefix_caching}}"
ready_timeout_s = 400
stop_grace_s = 15
[params]
max_num_seqs = [2, 4]
prefix_caching = ["{OFF}", "{ON}"]
[baseline]
max_num_seqs = 4
prefix_caching = "{OFF}"
[[exclude]]
max_num_seqs = 2
prefix_caching = "{OFF}"
[[exclude]]
max_num_seqs = 4
prefix_caching = "{ON}"
[budget]
trials = 2
[options]
runs = 2
warmup = 1
buckets = "short"
latency_mode = "official"
tokenizer = "{model}"
"""
    )
    return path


def _alive_with(port_flag: str) -> list[int]:
    """Processes whose command line holds ``--port N`` of a trial's launch."""
    out: list[int] = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv]
        if any(words[i : i + 2] == port_flag.split() for i in range(len(words) - 1)):
            out.append(int(proc.name))
    return out


def test_tune_two_vllm_flags_on_the_reference_server(
    reference_model_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tune"
    space = _space(tmp_path, reference_model_dir)
    argv = [sys.executable, "-m", "harness", "tune", str(space), "--out", str(out)]
    proc = subprocess.run(
        [*argv, "--no-confirm", "--quiet"],
        capture_output=True,
        text=True,
        timeout=3500,
        preexec_fn=die_with_parent,  # a killed test run leaves no tune (nor its vLLM) behind
    )
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    tune = load_report(out, TuneReport)
    assert tune is not None and tune.complete
    assert len(tune.trials) == 2
    assert {(t.params["max_num_seqs"], t.params["prefix_caching"]) for t in tune.trials} == {
        (4, OFF),
        (2, ON),
    }
    for t in tune.trials:
        assert t.status in STATUSES, t
        words = t.launch.split()
        assert f"--max-num-seqs {t.params['max_num_seqs']}" in t.launch, t.launch
        assert t.params["prefix_caching"] in words, t.launch
        assert ({ON, OFF} - {t.params["prefix_caching"]}).isdisjoint(words), t.launch
        folder = out / str(t.folder)
        record = json.loads((folder / "candidate.json").read_text())
        assert not group_alive(int(record["pgid"]))
        port = record["argv"][record["argv"].index("--port") + 1]
        assert not _alive_with(f"--port {port}"), f"a process of trial {t.number} still runs"
    assert [t.note for t in tune.trials].count("baseline") == 1
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0, capsys.readouterr().err
    page = (out / "report.html").read_text()
    assert 'id="table-tune-trials"' in page and 'id="section-tune-importance"' in page
    _manifests_tell_prefix_caching_apart(
        {t.params["prefix_caching"]: out / str(t.folder) for t in tune.trials}, capsys
    )


def _manifests_tell_prefix_caching_apart(
    folders: dict[object, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each start's manifest says what vLLM runs with; compare puts the change first."""
    a, b = folders[OFF], folders[ON]
    off, on = load_manifest(a), load_manifest(b)
    assert off is not None and on is not None
    assert off.settings["cache_config.enable_prefix_caching"] is False
    assert on.settings["cache_config.enable_prefix_caching"] is True
    assert off.settings["server.max_model_len"] == 8704 and off.settings["server.version"]
    assert off.config_id != on.config_id
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--quiet"]) == 0
    rep = CompareReport.model_validate_json(capsys.readouterr().out)
    assert rep.manifest is not None
    changes = [c.text for c in rep.manifest.changes]
    # the other flag changed too: the launch line's words, as the tuner gave them
    assert changes == [
        "enable_prefix_caching false → true",
        f"argv: removed 4 {OFF}; added 2 {ON}",
    ], changes
    assert main(["compare", str(a), str(b)]) == 0
    assert "B: enable_prefix_caching false → true" in capsys.readouterr().out
