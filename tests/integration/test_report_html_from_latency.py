"""A real ``harness latency`` run against the simulator, then ``harness report`` on its folder.

Guards the seam between the latency report as written and the keys the ledger reads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.cli import main
from harness.latency.report import LatencyReport
from harness.report.ledger import LEDGER_FILENAME, read_ledger
from tests.fixtures.simulator import SimProcessFactory

pytestmark = pytest.mark.timeout(300)


def test_report_reads_what_latency_wrote(
    tmp_path: Path, sim_process: SimProcessFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = sim_process(ttft_ms=5, itl_ms=0.5)
    folder = tmp_path / "reports" / "sim-run"
    argv = ["latency", "--url", sim.url, "--mode", "both", "--runs", "3", "--warmup", "1"]
    argv += ["--out", str(folder), "--name", "sim", "--note", "5 ms TTFT", "--no-calibrate"]
    assert main([*argv, "--quiet"]) == 0
    measured = LatencyReport.load(folder)
    capsys.readouterr()

    assert main(["report", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["id"], data["name"], data["note"], data["verdict"]) == (
        "sim-run",
        "sim",
        "5 ms TTFT",
        None,
    )
    assert data["score"] == measured.score and data["strict_score"] == measured.strict_score
    assert measured.provenance.server is not None  # strict/both: the fingerprint was taken
    assert data["server"] == {
        "url": sim.url,
        "models": measured.provenance.server_models,
        "build": measured.provenance.server.label(),
        "engine": measured.provenance.server.engine,
        "version": measured.provenance.server.version,
    }
    assert [(b["name"], b["mode"], b["median_ms"]) for b in data["buckets"]] == [
        (b.name, b.mode, b.median_ms) for b in [*measured.official, *measured.strict]
    ]
    assert data["time"] == measured.provenance.started_at
    page = (folder / "report.html").read_text(encoding="utf-8")
    plots = re.findall(r'<img id="plot-([a-z]+)"', page)
    assert plots == ["buckets", "distributions"]
    assert [e.id for e in read_ledger(tmp_path / "reports" / LEDGER_FILENAME).entries] == [
        "sim-run"
    ]
