"""harness submit through the portal emulator + a strict (and flaky) S3 proxy + moto."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.image.rules import RuleResult
from harness.portal.s3proxy import Faults
from harness.submit.core import SubmitReport
from harness.submit.state import load_state, state_path
from tests.fixtures.archives import write_image_archive
from tests.fixtures.gated import gate_archive
from tests.fixtures.s3 import TEST_API_KEY, PortalFactory, PortalStack
from tests.fixtures.signals import SIGINT_DEFAULT, SIGINT_IGNORED

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]


def _archive(tmp_path: Path, size: int, seed: int = 1) -> Path:
    """An archive whose image the gate passed (a verdict in the reports folder)."""
    archive = write_image_archive(tmp_path / f"pkg{seed}", size, seed)
    gate_archive(archive, tmp_path / "gates", name=f"gate-pkg{seed}")
    return archive


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _submit(stack: PortalStack, archive: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "submit",
            str(archive),
            "--team",
            "team-a",
            "--api-url",
            stack.url,
            "--out",
            str(out),
            *extra,
        ]
    )


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HARNESS_API_KEY", TEST_API_KEY)
    # where submit looks for the gate verdicts (_archive gates each archive there)
    monkeypatch.setenv("HARNESS_REPORTS_DIR", str(tmp_path / "gates"))


def _assert_no_key(*texts: str) -> None:
    for text in texts:
        assert TEST_API_KEY not in text


def test_single_upload(
    portal_stack: PortalFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = portal_stack(single_max_bytes=10_000_000)
    archive = _archive(tmp_path, 300_000)
    assert _submit(stack, archive, tmp_path / "run", "--json") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.upload_type == "single" and report.submission_id
    assert report.s3_key is not None
    assert _sha(stack.object_bytes(report.s3_key)) == _sha(archive.read_bytes()) == report.sha256
    assert [r.outcome for r in stack.proxy.log] == ["stored"]
    out = capsys.readouterr()
    assert json.loads(out.out)["submission_id"] == report.submission_id
    assert stack.portal.state.submissions[0]["submission_id"] == report.submission_id
    _assert_no_key(
        out.out,
        out.err,
        (tmp_path / "run" / "submit.json").read_text(),
        state_path(archive).read_text(),
    )


def test_multipart_upload_each_part_once(
    portal_stack: PortalFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = portal_stack(single_max_bytes=100_000, part_size=64 * 1024)
    archive = _archive(tmp_path, 600_000)
    assert _submit(stack, archive, tmp_path / "run", "--parallel", "4") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.upload_type == "multipart"
    assert report.parts_total == report.parts_sent == 10
    assert report.s3_key is not None
    assert _sha(stack.object_bytes(report.s3_key)) == _sha(archive.read_bytes())
    assert sorted(r.part_number or 0 for r in stack.proxy.stored()) == list(range(1, 11))
    out = capsys.readouterr()
    _assert_no_key(
        out.out,
        out.err,
        (tmp_path / "run" / "submit.json").read_text(),
        state_path(archive).read_text(),
    )
    # A second run does not submit again (one submission a day); nor does --restart
    # alone (it would discard the record of the submission): --resubmit says "on purpose".
    assert _submit(stack, archive, tmp_path / "again") == 0
    assert SubmitReport.load(tmp_path / "again").already_submitted
    assert len(stack.portal.state.submissions) == 1
    calls = len(stack.portal.state.calls)
    assert _submit(stack, archive, tmp_path / "restart", "--restart") == 2
    assert len(stack.portal.state.calls) == calls and load_state(state_path(archive))
    assert _submit(stack, archive, tmp_path / "restart", "--restart", "--resubmit") == 0
    assert len(stack.portal.state.submissions) == 2


def test_flaky_s3_completes(portal_stack: PortalFactory, tmp_path: Path) -> None:
    faults = Faults(error_every=3, reset_every=4, expire_first=2)
    stack = portal_stack(single_max_bytes=100_000, part_size=64 * 1024, faults=faults)
    archive = _archive(tmp_path, 500_000)
    assert _submit(stack, archive, tmp_path / "run", "--parallel", "4") == 0
    report = SubmitReport.load(tmp_path / "run")
    outcomes = {r.outcome for r in stack.proxy.log}
    assert {"fault-5xx", "fault-reset", "expired", "stored"} <= outcomes
    assert report.retries >= 2 and report.url_refreshes >= 1
    assert report.s3_key is not None
    assert _sha(stack.object_bytes(report.s3_key)) == _sha(archive.read_bytes())


def test_single_upload_with_expired_url(portal_stack: PortalFactory, tmp_path: Path) -> None:
    stack = portal_stack(single_max_bytes=10_000_000, faults=Faults(expire_first=1, error_every=2))
    archive = _archive(tmp_path, 200_000)
    assert _submit(stack, archive, tmp_path / "run") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.url_refreshes == 1 and report.retries == 1
    assert [r.outcome for r in stack.proxy.log] == ["expired", "fault-5xx", "stored"]
    assert report.s3_key is not None
    assert _sha(stack.object_bytes(report.s3_key)) == _sha(archive.read_bytes())


def test_refusals_before_any_network_call(portal_stack: PortalFactory, tmp_path: Path) -> None:
    stack = portal_stack()
    wrong = tmp_path / "image.tgz"
    wrong.write_bytes(b"x" * 100)
    assert _submit(stack, wrong, tmp_path / "r1") == 2
    # over the profile's size limit (a profile copy with a 1000-byte limit)
    text = (REPO / "tasks/profiles/efficient-qwen.toml").read_text()
    small = tmp_path / "small.toml"
    small.write_text(
        text.replace("max_compressed_bytes = 20_000_000_000", "max_compressed_bytes = 1000")
    )
    archive = _archive(tmp_path, 20_000)
    assert _submit(stack, archive, tmp_path / "r2", "--profile", str(small)) == 1
    # package.json beside it says FAIL
    from harness.image.core import PackageReport

    failing = PackageReport(
        archive="image.tar.gz", sha256=_sha(archive.read_bytes()), compressed_bytes=20_000, layout="docker",
        layer_count=1, tags=[], entrypoint=[], cmd=[], exposed_ports=[], env_names=[], model_files={},
        parameters=None, rules=[RuleResult(rule="weights", status="fail", detail="no weight files")], passed=False,
    )  # fmt: skip
    failing.save(archive.parent)
    assert _submit(stack, archive, tmp_path / "r3") == 1
    assert stack.portal.state.calls == []
    assert stack.proxy.log == []


def test_key_handling(
    portal_stack: PortalFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stack = portal_stack(single_max_bytes=10_000_000)
    archive = _archive(tmp_path, 20_000)
    monkeypatch.delenv("HARNESS_API_KEY")
    assert _submit(stack, archive, tmp_path / "r1") == 2  # no key
    key_file = tmp_path / "key"
    key_file.write_text(TEST_API_KEY + "\n")
    key_file.chmod(0o644)
    assert _submit(stack, archive, tmp_path / "r2", "--api-key-file", str(key_file)) == 0
    out = capsys.readouterr()
    assert "readable by others" in out.out
    key_file.write_text("wrong-key")
    assert (
        _submit(
            stack,
            archive,
            tmp_path / "r3",
            "--api-key-file",
            str(key_file),
            "--restart",
            "--resubmit",
        )
        == 2
    )
    out2 = capsys.readouterr()
    assert "key rejected" in out2.err
    _assert_no_key(out.out, out.err, out2.out, out2.err)
    assert _submit(stack, archive, tmp_path / "r4", "--dry-run") == 0
    assert SubmitReport.load(tmp_path / "r4").dry_run


@pytest.mark.timeout(180)
def test_kill_and_resume(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """SIGKILL the uploader mid-way; the resumed run sends only unconfirmed parts."""
    stack = portal_stack(single_max_bytes=100_000, part_size=32 * 1024, faults=Faults(delay_s=0.25))
    archive = _archive(tmp_path, 32 * 1024 * 24 + 1000)  # 25 parts
    env = {**os.environ, "HARNESS_API_KEY": TEST_API_KEY}
    cmd = [
        sys.executable,
        "-m",
        "harness",
        "submit",
        str(archive),
        "--team",
        "team-a",
        "--api-url",
        stack.url,
        "--parallel",
        "2",
    ]
    proc = subprocess.Popen(
        [*cmd, "--out", str(tmp_path / "killed")],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    spath = state_path(archive)
    deadline = time.monotonic() + 60
    confirmed: dict[int, str] = {}
    while time.monotonic() < deadline:
        state = load_state(spath)
        if state is not None and len(state.parts) >= 6:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    state = load_state(spath)
    assert state is not None and state.upload_id
    confirmed = dict(state.parts)
    assert 6 <= len(confirmed) < 25, confirmed
    log_at_kill = len(stack.proxy.log)
    resumed = subprocess.run(
        [*cmd, "--out", str(tmp_path / "resumed")],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(resumed.stdout[-3000:])
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    report = SubmitReport.load(tmp_path / "resumed")
    assert report.resumed and report.parts_resumed == len(confirmed)
    assert report.parts_sent == 25 - len(confirmed)
    assert "resuming upload" in resumed.stdout
    after = stack.proxy.log[log_at_kill:]
    print(f"killed (SIGKILL) with parts {sorted(confirmed)} confirmed in the state file")
    print(f"resumed run sent parts {sorted(r.part_number or 0 for r in after)}")
    assert not [r for r in after if r.part_number in confirmed], "a confirmed part was sent again"
    assert report.s3_key is not None
    stored = _sha(stack.object_bytes(report.s3_key))
    print(f"stored object sha256 {stored}, file sha256 {_sha(archive.read_bytes())}")
    assert stored == _sha(archive.read_bytes())
    _assert_no_key(
        resumed.stdout,
        resumed.stderr,
        spath.read_text(),
        (tmp_path / "resumed" / "submit.json").read_text(),
    )


def test_package_then_submit(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """`harness package --archive` writes package.json beside the file; submit trusts it."""
    import gzip
    import io
    import tarfile

    from tests.fixtures.podman import PROGRAM_STUB, safetensors_bytes, tar_of

    layer = tar_of(
        {
            "/bin/serve": PROGRAM_STUB,
            "/opt/ml/model/config.json": b"{}",
            "/opt/ml/model/model.safetensors": safetensors_bytes({"w": [8, 8]}),
        }
    )
    config = {
        "config": {
            "Env": ["HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_DATASETS_OFFLINE=1"],
            "ExposedPorts": {"8080/tcp": {}},
            "Entrypoint": ["/bin/serve"],
        }
    }
    manifest = [{"Config": "c.json", "RepoTags": ["team/x:1"], "Layers": ["l/layer.tar"]}]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in {
            "l/layer.tar": layer,
            "c.json": json.dumps(config).encode(),
            "manifest.json": json.dumps(manifest).encode(),
        }.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    folder = tmp_path / "pkg"
    folder.mkdir()
    archive = folder / "image.tar.gz"
    archive.write_bytes(gzip.compress(buf.getvalue()))
    assert main(["package", "--archive", str(archive), "--out", str(folder), "--quiet"]) == 0
    gate_archive(archive, tmp_path / "gates")
    stack = portal_stack(single_max_bytes=10_000_000)
    assert _submit(stack, archive, tmp_path / "run", "--quiet") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.package_report == "passed" and report.warnings == []


def _package(archive: Path) -> None:
    """`harness package --archive`: package.json beside the archive, with its sha256."""
    assert (
        main(["package", "--archive", str(archive), "--out", str(archive.parent), "--quiet"]) == 0
    )


def test_broken_archives_are_refused_before_register(
    portal_stack: PortalFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Truncated, or same size with changed bytes, with or without package.json beside it:
    refused before /register; the portal and S3 see nothing; no run folder is left."""
    stack = portal_stack(single_max_bytes=100_000, part_size=64 * 1024)
    good = _archive(tmp_path, 300_000, seed=3)
    data = good.read_bytes()
    cases: dict[str, tuple[bytes, bool, str]] = {
        # name: (file bytes, package.json of the good file beside it, what the refusal says)
        "truncated": (data[:200_000], False, "the file is truncated"),
        "truncated, package.json": (data[:200_000], True, "the file is truncated"),
        # a flipped bit in the deflate data: gzip's CRC-32 catches it
        "flipped, package.json": (
            data[:150_000] + bytes([data[150_000] ^ 1]) + data[150_001:],
            True,
            "CRC-32 mismatch",
        ),
        # the gzip header's MTIME changed: still a sound archive, but not the packaged file
        "header changed, package.json": (
            data[:4] + b"\x01\x02\x03\x04" + data[8:],
            True,
            "not the file package.json describes",
        ),
    }
    reports = tmp_path / "reports"
    for i, (name, (content, beside, says)) in enumerate(cases.items()):
        folder = tmp_path / f"case{i}"
        folder.mkdir()
        if beside:
            (folder / "image.tar.gz").write_bytes(data)
            _package(folder / "image.tar.gz")
        archive = folder / "image.tar.gz"
        archive.write_bytes(content)
        assert len(content) == len(data) or name.startswith("truncated")
        capsys.readouterr()
        out = reports / f"run{i}"
        assert _submit(stack, archive, out) == 1, name
        err = capsys.readouterr().err
        assert says in err and "nothing was sent" in err, (name, err)
        assert len(err.strip().splitlines()) == 1, err
        assert not out.exists(), f"{name}: a run folder was left behind"
        assert not state_path(archive).exists()
    assert stack.portal.state.calls == []
    assert stack.proxy.log == []
    # the good archive, beside its package.json, still submits
    _package(good)
    assert _submit(stack, good, tmp_path / "ok") == 0
    report = SubmitReport.load(tmp_path / "ok")
    assert report.package_report == "passed" and report.archive_check == "passed"
    assert report.archive_layout == "docker" and report.submission_id
    assert report.s3_key is not None
    assert _sha(stack.object_bytes(report.s3_key)) == _sha(data)


def test_skip_archive_check_is_recorded(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """The override uploads what it is given, and says so in submit.json."""
    stack = portal_stack(single_max_bytes=10_000_000)
    folder = tmp_path / "pkg"
    folder.mkdir()
    archive = folder / "image.tar.gz"
    archive.write_bytes(os.urandom(50_000))  # not an image at all
    assert _submit(stack, archive, tmp_path / "refused") == 1
    assert stack.portal.state.calls == []
    # not inspected, no image id: no gate verdict can name it, so --ungated-ok too
    assert _submit(stack, archive, tmp_path / "ungated", "--skip-archive-check") == 1
    assert stack.portal.state.calls == []
    assert _submit(stack, archive, tmp_path / "run", "--skip-archive-check", "--ungated-ok") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.archive_check == "skipped" and report.archive_layout is None
    assert report.gated == "ungated_ok" and report.image_id is None
    assert any("--skip-archive-check" in w for w in report.warnings)
    assert report.submission_id


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    ("sig", "popen", "code"),
    [
        (signal.SIGINT, SIGINT_DEFAULT, 130),
        (signal.SIGTERM, SIGINT_DEFAULT, 143),
        (signal.SIGTERM, SIGINT_IGNORED, 143),  # a background job: SIGINT ignored
    ],
    ids=["ctrl-c", "sigterm", "sigterm-background"],
)
def test_stopped_submit_says_what_was_saved_and_resumes(
    portal_stack: PortalFactory, tmp_path: Path, sig: int, popen: dict[str, object], code: int
) -> None:
    """Ctrl-C or SIGTERM mid-upload: the confirmed parts stay in the state file, submit.json
    is saved, the message says how many and what re-running does; the re-run sends the rest."""
    stack = portal_stack(single_max_bytes=100_000, part_size=32 * 1024, faults=Faults(delay_s=0.25))
    archive = _archive(tmp_path, 32 * 1024 * 24 + 1000)  # 25 parts
    env = {**os.environ, "HARNESS_API_KEY": TEST_API_KEY}
    cmd = [sys.executable, "-m", "harness", "submit", str(archive), "--team", "team-a"]
    cmd += ["--api-url", stack.url, "--parallel", "2", "--quiet"]
    proc = subprocess.Popen(
        [*cmd, "--out", str(tmp_path / "stopped")],
        env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        **popen,  # type: ignore[arg-type]
    )  # fmt: skip
    spath = state_path(archive)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = load_state(spath)
        if state is not None and len(state.parts) >= 4:
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    state = load_state(spath)
    assert state is not None and 4 <= len(state.parts) < 25
    n = len(state.parts)
    resume = shlex.join(["harness", *cmd[3:]])  # the command as given, less --out
    assert (
        f"harness: submit stopped: {n} of 25 parts confirmed by S3; to send only the other"
        f" {25 - n} and submit run: {resume} (saved: image.tar.gz.upload.json,"
    ) in err, err
    assert ("terminated (SIGTERM)" if sig == signal.SIGTERM else "interrupted") in err
    stopped = SubmitReport.load(tmp_path / "stopped")
    assert stopped.complete is False and stopped.submission_id is None
    log_at_stop = len(stack.proxy.log)
    resumed = subprocess.run(
        [*cmd, "--out", str(tmp_path / "resumed")],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    report = SubmitReport.load(tmp_path / "resumed")
    assert report.parts_resumed == n and report.submission_id
    assert not [r for r in stack.proxy.log[log_at_stop:] if r.part_number in state.parts]
