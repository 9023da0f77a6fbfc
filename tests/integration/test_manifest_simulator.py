"""The manifest on simulator processes: what each run records, and compare's diff of it.

The simulator tells its knobs the way vLLM tells its cache settings (a
``harness_sim:config_info`` gauge on ``/metrics``), so two simulators started with
different knobs are two configurations, and two started alike are one.
"""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import pytest

from harness.cli import main
from harness.compare.model import CompareReport
from harness.manifest.model import Launched, load_manifest
from harness.manifest.record import record_manifest
from harness.manifest.take import take_manifest

pytestmark = pytest.mark.timeout(240)

LATENCY = ["--mode", "strict", "--buckets", "short", "--runs", "3", "--warmup", "0"]
LATENCY += ["--no-calibrate", "--ready-interval", "0.2", "--quiet"]


def measure(url: str, out: Path) -> Path:
    assert main(["latency", "--url", url, *LATENCY, "--out", str(out)]) == 0
    return out


async def test_the_simulator_tells_its_knobs(simulator) -> None:
    sim = await simulator(ttft_ms=5, prefix_cache=True, max_model_len=20000)
    async with aiohttp.ClientSession() as session:
        m = await take_manifest(session, sim.url, taken="after")
    s = m.settings
    assert s["harness_sim_config.prefix_cache"] is True
    assert s["harness_sim_config.ttft_ms"] == 5
    assert s["harness_sim_config.max_model_len"] == 20000
    assert s["harness_sim_config.models"] == "Qwen/Qwen3.5-4B,sim"
    assert s["server.max_model_len"] == 20000 and s["harness_simulate.engine"] == "harness-simulate"
    assert "harness_sim_config.log_file" not in s  # where it logs is not how it serves
    assert m.sources["/server_info"] == "HTTP 404"  # the simulator has none: noted, not an error
    assert m.taken == "after"


async def test_a_launch_is_kept_by_a_later_take(simulator, tmp_path) -> None:
    sim = await simulator(ttft_ms=1)
    launched = Launched(by="harness demo", argv=("sim", "--port", "9"), env={"HF_TOKEN": "x"})
    first = await record_manifest(tmp_path, sim.url, taken="before", launched=launched)
    later = await record_manifest(tmp_path, sim.url, taken="after")
    assert later.settings["launch.env.HF_TOKEN"] == "***"
    assert later.config_id == first.config_id
    assert load_manifest(tmp_path) == later


def test_compare_shows_the_knob_that_changed(sim_process, tmp_path, capsys) -> None:
    a = measure(sim_process(ttft_ms=2, itl_ms=0, prefix_cache=False).url, tmp_path / "a")
    b = measure(sim_process(ttft_ms=2, itl_ms=0, prefix_cache=True).url, tmp_path / "b")
    ma, mb = load_manifest(a), load_manifest(b)
    assert ma is not None and mb is not None and ma.config_id != mb.config_id
    assert ma.taken == "before"  # strict mode: beside the fingerprint, before the requests
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--quiet"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    assert rep.manifest is not None
    assert (rep.manifest.config_a, rep.manifest.config_b) == (ma.config_id, mb.config_id)
    assert [c.text for c in rep.manifest.changes] == ["prefix_cache false → true"]
    # the console shows it above the verdicts, and compare.json in B keeps it
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "B: prefix_cache false → true" in out
    assert out.index("prefix_cache false → true") < out.index("latency (B − A")
    saved = CompareReport.load(b)
    assert saved.manifest is not None and saved.manifest.changes == rep.manifest.changes


def test_two_runs_of_one_configuration_share_a_config_id(sim_process, tmp_path, capsys) -> None:
    a = measure(sim_process(ttft_ms=2, itl_ms=0, seed=3).url, tmp_path / "a")
    b = measure(sim_process(ttft_ms=2, itl_ms=0, seed=3).url, tmp_path / "b")
    ma, mb = load_manifest(a), load_manifest(b)
    assert ma is not None and mb is not None
    assert ma.config_id == mb.config_id and ma.url != mb.url
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 0
    assert f"the same configuration in A and B (config {ma.config_id})" in capsys.readouterr().out


def test_check_and_official_latency_record_it(sim_process, tmp_path) -> None:
    sp = sim_process(ttft_ms=1, itl_ms=0)
    out = tmp_path / "run"
    assert main(["check", "--url", sp.url, "--out", str(out), "--quiet"]) in (0, 1)
    m = load_manifest(out)
    assert m is not None and m.taken == "after"
    official = ["latency", "--url", sp.url, "--buckets", "short", "--runs", "2", "--warmup", "0"]
    assert main([*official, "--no-calibrate", "--out", str(out), "--quiet"]) == 0
    m2 = load_manifest(out)
    assert m2 is not None and m2.taken == "separate step" and m2.config_id == m.config_id


def test_throughput_records_it_after_the_official_sweep_and_before_a_strict_one(
    sim_process, tmp_path
) -> None:
    sp = sim_process(models=("Qwen/Qwen3.5-35B-A3B",), ttft_ms=1, itl_ms=0.05)
    argv = ["throughput", "--profile", "gpumode-paris", "--url", sp.url, "--levels", "1"]
    argv += ["--requests-per-level", "8", "--prompt-tokens", "256", "--max-tokens", "64", "--quiet"]
    # strict mode judges the spot checks, which the simulator's words fail: exit 1 (FAIL)
    for mode, taken, rc in (("official", "separate step", 0), ("strict", "before", 1)):
        sp.clear_log()
        out = tmp_path / mode
        assert main([*argv, "--mode", mode, "--out", str(out)]) == rc
        m = load_manifest(out)
        assert m is not None and m.taken == taken
        assert m.settings["harness_sim_config.models"] == "Qwen/Qwen3.5-35B-A3B"
        paths = [e.path for e in sp.fetch_log()]
        chats = [i for i, p in enumerate(paths) if p == "/v1/chat/completions"]
        gets = [i for i, p in enumerate(paths) if p == "/server_info"]
        assert chats and gets
        assert (gets[0] > chats[-1]) if mode == "official" else (gets[0] < chats[0])
