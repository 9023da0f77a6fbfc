"""The server fingerprint in the ledger: a `server` column once any run has one."""

from __future__ import annotations

from pathlib import Path

from harness.latency.report import LatencyReport
from harness.provenance import Provenance
from harness.provenance import ServerFingerprint as RunServer
from harness.report.entry import LedgerEntry, ServerFingerprint, entry_for_folder
from harness.report.table import ledger_table


def test_entry_reads_the_build_from_provenance(tmp_path: Path) -> None:
    server = RunServer(engine="vllm", version="0.32.0", models=["m"], max_model_len=8704)
    rep = LatencyReport(mode="both", provenance=Provenance(url="http://x", server=server))
    rep.save(tmp_path / "a")
    e = entry_for_folder(tmp_path / "a")
    assert e.server.build == "vllm 0.32.0 max_len 8704"
    assert e.server.label() == "http://x · vllm 0.32.0 max_len 8704"
    off = LatencyReport(mode="official", provenance=Provenance(server=RunServer(taken=False)))
    off.save(tmp_path / "b")
    assert entry_for_folder(tmp_path / "b").server.build is None


def test_server_column_only_when_a_run_has_a_build() -> None:
    t = "2026-01-01T10:00:00+00:00"
    a = LedgerEntry(id="a", time=t, verdict="PASS", server=ServerFingerprint(build="vllm 0.32.0"))
    b = LedgerEntry(id="b", time=t, verdict="FAIL")
    table = ledger_table([a, b], None)
    assert [c.header for c in table.columns][:4] == ["time", "run", "server", "note"]
    assert {r.cells[1].text: r.cells[2].text for r in table.rows} == {"a": "vllm 0.32.0", "b": "—"}
    assert "server" not in [c.header for c in ledger_table([b], None).columns]
