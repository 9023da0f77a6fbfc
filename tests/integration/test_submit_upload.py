"""harness submit's upload through the portal emulator + a strict (and flaky) S3 proxy +
moto: single and multipart uploads, expired URLs and faults, the key, and an upload
stopped (SIGKILL, Ctrl-C, SIGTERM) then resumed.

The stopped uploads run as ``python -m harness`` children (signals need a process); their
resumed runs, like every other run here, are ``main(argv)`` in this process. The archive
checks before any upload are tests/integration/test_submit_archive.py's.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness.portal.s3proxy import Faults
from harness.submit.core import SubmitReport
from harness.submit.state import load_state, state_path
from tests.fixtures.s3 import TEST_API_KEY, PortalFactory
from tests.fixtures.signals import SIGINT_DEFAULT, SIGINT_IGNORED
from tests.fixtures.submit_runs import REPO, assert_no_key, gated_archive, gates_dir, sha, submit
from tests.fixtures.wrong_invocation import run_harness

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("submit_env")]


def test_single_upload(
    portal_stack: PortalFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = portal_stack(single_max_bytes=10_000_000)
    archive = gated_archive(tmp_path, 300_000)
    assert submit(stack, archive, tmp_path / "run", "--json") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.upload_type == "single" and report.submission_id
    assert report.s3_key is not None
    assert sha(stack.object_bytes(report.s3_key)) == sha(archive.read_bytes()) == report.sha256
    assert [r.outcome for r in stack.proxy.log] == ["stored"]
    out = capsys.readouterr()
    assert json.loads(out.out)["submission_id"] == report.submission_id
    assert stack.portal.state.submissions[0]["submission_id"] == report.submission_id
    assert_no_key(
        out.out,
        out.err,
        (tmp_path / "run" / "submit.json").read_text(),
        state_path(archive).read_text(),
    )


def test_multipart_upload_each_part_once(
    portal_stack: PortalFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = portal_stack(single_max_bytes=100_000, part_size=64 * 1024)
    archive = gated_archive(tmp_path, 600_000)
    assert submit(stack, archive, tmp_path / "run", "--parallel", "4") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.upload_type == "multipart"
    assert report.parts_total == report.parts_sent == 10
    assert report.s3_key is not None
    assert sha(stack.object_bytes(report.s3_key)) == sha(archive.read_bytes())
    assert sorted(r.part_number or 0 for r in stack.proxy.stored()) == list(range(1, 11))
    out = capsys.readouterr()
    assert_no_key(
        out.out,
        out.err,
        (tmp_path / "run" / "submit.json").read_text(),
        state_path(archive).read_text(),
    )
    # A second run does not submit again (one submission a day); nor does --restart
    # alone (it would discard the record of the submission): --resubmit says "on purpose".
    assert submit(stack, archive, tmp_path / "again") == 0
    assert SubmitReport.load(tmp_path / "again").already_submitted
    assert len(stack.portal.state.submissions) == 1
    calls = len(stack.portal.state.calls)
    assert submit(stack, archive, tmp_path / "restart", "--restart") == 2
    assert len(stack.portal.state.calls) == calls and load_state(state_path(archive))
    assert submit(stack, archive, tmp_path / "restart", "--restart", "--resubmit") == 0
    assert len(stack.portal.state.submissions) == 2


def test_flaky_s3_completes(portal_stack: PortalFactory, tmp_path: Path) -> None:
    faults = Faults(error_every=3, reset_every=4, expire_first=2)
    stack = portal_stack(single_max_bytes=100_000, part_size=64 * 1024, faults=faults)
    archive = gated_archive(tmp_path, 500_000)
    assert submit(stack, archive, tmp_path / "run", "--parallel", "4") == 0
    report = SubmitReport.load(tmp_path / "run")
    outcomes = {r.outcome for r in stack.proxy.log}
    assert {"fault-5xx", "fault-reset", "expired", "stored"} <= outcomes
    assert report.retries >= 2 and report.url_refreshes >= 1
    assert report.s3_key is not None
    assert sha(stack.object_bytes(report.s3_key)) == sha(archive.read_bytes())


def test_single_upload_with_expired_url(portal_stack: PortalFactory, tmp_path: Path) -> None:
    stack = portal_stack(single_max_bytes=10_000_000, faults=Faults(expire_first=1, error_every=2))
    archive = gated_archive(tmp_path, 200_000)
    assert submit(stack, archive, tmp_path / "run") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.url_refreshes == 1 and report.retries == 1
    assert [r.outcome for r in stack.proxy.log] == ["expired", "fault-5xx", "stored"]
    assert report.s3_key is not None
    assert sha(stack.object_bytes(report.s3_key)) == sha(archive.read_bytes())


def test_key_handling(
    portal_stack: PortalFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stack = portal_stack(single_max_bytes=10_000_000)
    archive = gated_archive(tmp_path, 20_000)
    monkeypatch.delenv("HARNESS_API_KEY")
    assert submit(stack, archive, tmp_path / "r1") == 2  # no key
    key_file = tmp_path / "key"
    key_file.write_text(TEST_API_KEY + "\n")
    key_file.chmod(0o644)
    assert submit(stack, archive, tmp_path / "r2", "--api-key-file", str(key_file)) == 0
    out = capsys.readouterr()
    assert "readable by others" in out.out
    key_file.write_text("wrong-key")
    assert (
        submit(
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
    assert_no_key(out.out, out.err, out2.out, out2.err)
    assert submit(stack, archive, tmp_path / "r4", "--dry-run") == 0
    assert SubmitReport.load(tmp_path / "r4").dry_run


@pytest.mark.timeout(180)
def test_kill_and_resume(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """SIGKILL the uploader mid-way; the resumed run sends only unconfirmed parts."""
    stack = portal_stack(single_max_bytes=100_000, part_size=32 * 1024, faults=Faults(delay_s=0.25))
    archive = gated_archive(tmp_path, 32 * 1024 * 24 + 1000)  # 25 parts
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
    resumed = run_harness(
        [*cmd[3:], "--out", str(tmp_path / "resumed")], reports=gates_dir(tmp_path), env=env
    )
    print(resumed.stdout[-3000:])
    assert resumed.rc == 0, resumed.stdout + resumed.stderr
    report = SubmitReport.load(tmp_path / "resumed")
    assert report.resumed and report.parts_resumed == len(confirmed)
    assert report.parts_sent == 25 - len(confirmed)
    assert "resuming upload" in resumed.stdout
    after = stack.proxy.log[log_at_kill:]
    print(f"killed (SIGKILL) with parts {sorted(confirmed)} confirmed in the state file")
    print(f"resumed run sent parts {sorted(r.part_number or 0 for r in after)}")
    assert not [r for r in after if r.part_number in confirmed], "a confirmed part was sent again"
    assert report.s3_key is not None
    stored = sha(stack.object_bytes(report.s3_key))
    print(f"stored object sha256 {stored}, file sha256 {sha(archive.read_bytes())}")
    assert stored == sha(archive.read_bytes())
    assert_no_key(
        resumed.stdout,
        resumed.stderr,
        spath.read_text(),
        (tmp_path / "resumed" / "submit.json").read_text(),
    )


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
    portal_stack: PortalFactory, tmp_path: Path, sig: int, popen: dict[str, Any], code: int
) -> None:
    """Ctrl-C or SIGTERM mid-upload: the confirmed parts stay in the state file, submit.json
    is saved, the message says how many and what re-running does; the re-run sends the rest."""
    stack = portal_stack(single_max_bytes=100_000, part_size=32 * 1024, faults=Faults(delay_s=0.25))
    archive = gated_archive(tmp_path, 32 * 1024 * 24 + 1000)  # 25 parts
    env = {**os.environ, "HARNESS_API_KEY": TEST_API_KEY}
    cmd = [sys.executable, "-m", "harness", "submit", str(archive), "--team", "team-a"]
    cmd += ["--api-url", stack.url, "--parallel", "2", "--quiet"]
    proc = subprocess.Popen(
        [*cmd, "--out", str(tmp_path / "stopped")],
        env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        **popen,
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
    resumed = run_harness(
        [*cmd[3:], "--out", str(tmp_path / "resumed")], reports=gates_dir(tmp_path), env=env
    )
    assert resumed.rc == 0, resumed.stderr
    report = SubmitReport.load(tmp_path / "resumed")
    assert report.parts_resumed == n and report.submission_id
    assert not [r for r in stack.proxy.log[log_at_stop:] if r.part_number in state.parts]
