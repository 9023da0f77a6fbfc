"""Issue 28: submit what was gated. A real image (Podman), packaged by ``harness package``,
is refused by ``harness submit`` until a gate verdict names it, and accepted once the gate
passes; a later FAIL stops it again; ``--ungated-ok`` goes on and is recorded.

The gate verdicts are the gate's own (``harness gate RUN_DIR --image-id NAME``, the name
looked up in the engine as a URL run's would be); the organiser is the portal + moto.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.gate.report import GateReport
from harness.image.report import PackageReport
from harness.submit.core import SubmitReport
from tests.fixtures.archives import write_image_archive
from tests.fixtures.gated import image_id, measured_run
from tests.fixtures.podman import PROGRAM_STUB, PodmanService, build_image, model_files
from tests.fixtures.s3 import TEST_API_KEY, PortalFactory
from tests.fixtures.simulator import SimProcessFactory

pytestmark = pytest.mark.timeout(300)

IMAGE = "harness-test/gated:1"


def _submit(url: str, archive: Path, out: Path, *extra: str) -> int:
    argv = ["submit", str(archive), "--team", "team-g", "--api-url", url, "--out", str(out)]
    return main([*argv, "--quiet", *extra])


def _gate(podman: PodmanService, reports: Path, name: str, *, passing: bool) -> GateReport:
    folder = measured_run(reports / name, passing=passing)
    argv = ["gate", str(folder), "--image-id", IMAGE, "--docker-host", podman.socket_url]
    assert main([*argv, "--quiet"]) == (0 if passing else 1)
    return GateReport.load(folder)


@pytest.mark.podman
def test_submit_refuses_an_ungated_image_until_the_gate_passes(
    podman: PodmanService,
    portal_stack: PortalFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    reports = tmp_path / "reports"
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(reports))
    monkeypatch.setenv("HARNESS_API_KEY", TEST_API_KEY)
    build_image(podman, IMAGE, {**model_files([100, 8]), "/bin/serve": PROGRAM_STUB})
    pkg = tmp_path / "pkg"
    argv = ["package", "--image", IMAGE, "--docker-host", podman.socket_url, "--out", str(pkg)]
    assert main([*argv, "--quiet"]) == 0
    archive = pkg / "image.tar.gz"
    packaged = PackageReport.load(pkg)
    # the id the engine shows is the archive's config digest: what submit reads
    assert packaged.image_id is not None and image_id(archive).endswith(
        packaged.image_id.removeprefix("sha256:")
    )
    stack = portal_stack(single_max_bytes=100_000_000)

    # never gated: refused before any organiser call, saying what to run
    capsys.readouterr()
    assert _submit(stack.url, archive, tmp_path / "r1") == 1
    err = capsys.readouterr().err
    assert f"image sha256:{image_id(archive)[7:19]}… was never gated" in err, err
    assert "harness gate --url URL --image-id" in err and "--ungated-ok" in err
    assert stack.portal.state.calls == []

    # gated by name (looked up in the engine, as for a URL run): PASS → submitted
    passed = _gate(podman, reports, "gate-1", passing=True)
    assert passed.image_id == image_id(archive)
    assert _submit(stack.url, archive, tmp_path / "r2") == 0
    report = SubmitReport.load(tmp_path / "r2")
    assert report.gated == "passed" and report.gate_verdict == "PASS"
    assert report.gate_folder == "gate-1" and report.image_id == image_id(archive)
    assert report.submission_id and len(stack.portal.state.submissions) == 1

    # a later gate of the same image FAILs: the next submit stops, naming when and where
    _gate(podman, reports, "gate-2", passing=False)
    calls = len(stack.portal.state.calls)
    capsys.readouterr()
    assert _submit(stack.url, archive, tmp_path / "r3", "--restart", "--resubmit") == 1
    err = capsys.readouterr().err
    assert "was last gated" in err and "in gate-2: FAIL: quality gate failed" in err, err
    assert len(stack.portal.state.calls) == calls

    # the override goes on, and submit.json says so
    assert (
        _submit(stack.url, archive, tmp_path / "r4", "--restart", "--resubmit", "--ungated-ok") == 0
    )
    report = SubmitReport.load(tmp_path / "r4")
    assert report.gated == "ungated_ok" and report.gate_verdict == "FAIL"
    assert any("--ungated-ok" in w for w in report.warnings)
    assert len(stack.portal.state.submissions) == 2


@pytest.mark.podman
def test_gate_image_id_that_names_nothing_is_a_usage_error(
    podman: PodmanService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = measured_run(tmp_path / "run")
    argv = ["gate", str(folder), "--image-id", "harness-test/none:404"]
    assert main([*argv, "--docker-host", podman.socket_url, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--image-id harness-test/none:404: not an image id" in err
    assert "docker image inspect --format" in err
    assert not (folder / "gate.json").exists()


def test_gate_by_url_records_the_image_id_and_submit_reads_its_verdict(
    portal_stack: PortalFactory,
    sim_process: SimProcessFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`gate --url U --image-id ID` (only the check measured here: INCOMPLETE) records the id;
    submit of that image then stops on the INCOMPLETE verdict, naming the gate's folder. (A
    gate that measured nothing writes no verdict at all: tests/integration/test_gate_options.py.)"""
    reports = tmp_path / "reports"
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(reports))
    monkeypatch.setenv("HARNESS_API_KEY", TEST_API_KEY)
    archive = write_image_archive(tmp_path / "pkg", 20_000, seed=41)
    short_id = image_id(archive)[7:19]  # a short id, as `docker images` shows it
    folder = reports / "gate-url"
    sim = sim_process(ttft_ms=1, itl_ms=0.1)
    argv = ["gate", "--url", sim.url, "--image-id", short_id, "--out", str(folder)]
    skips = ["--skip", "latency", "--skip", "quality", "--skip", "audit"]
    assert main([*argv, *skips, "--quiet"]) == 4
    gated = GateReport.load(folder)
    assert gated.verdict == "INCOMPLETE" and gated.image_id == "sha256:" + short_id
    stack = portal_stack()
    capsys.readouterr()
    assert _submit(stack.url, archive, tmp_path / "r1") == 1
    err = capsys.readouterr().err
    assert "was last gated" in err and "in gate-url: INCOMPLETE" in err, err
    assert stack.portal.state.calls == []
