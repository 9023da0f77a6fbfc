"""SIGKILL `harness submit` (a real subprocess) at every phase boundary and at random moments.

Each drill checks what issue 15 asks: the last run succeeds, the stored
object's sha256 is the file's, exactly one submission reaches the organiser,
and no part the state file had confirmed before a kill is PUT again (the S3
proxy logs every PUT by part number). Phase boundaries are reached with the
``HARNESS_SUBMIT_PAUSE_AT`` seam (harness/submit/pause.py). The long version
(200 MB, many random kills) is bench/submit_kill.py.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from harness.portal.s3proxy import Faults
from harness.submit.state import load_state, state_path
from tests.fixtures.s3 import PortalFactory
from tests.fixtures.submit_kill import UNCONFIRMED, Drill, make_archive, stopped_line

pytestmark = pytest.mark.timeout(240)

MIB = 1024 * 1024
PART = 5 * MIB


def test_kill_at_each_multipart_phase(portal_stack: PortalFactory, tmp_path: Path) -> None:
    stack = portal_stack(single_max_bytes=MIB, part_size=PART)
    drill = Drill(stack, make_archive(tmp_path / "a", 30 * MIB - 12345, seed=1))  # 6 parts
    for phase in (
        "registered",
        "upload-url",
        "part-confirmed:2",
        "parts-done",
        "complete-requested",  # resumed with 6/6 parts: no /upload-url, straight to completion
        "completed",  # S3 completed, the state does not say so yet
        "submit-requested",  # completion asked again: S3 repeats its 200
    ):
        drill.kill_at(phase)
    out = drill.finish()
    print([(k.moment, k.landed, sorted(k.confirmed)) for k in out.kills])
    assert [k.landed for k in out.kills] == [
        "before upload-url",
        "upload-url, 0 parts",
        "parts in flight",
        "all parts confirmed",
        "complete requested",
        "complete requested",
        "submit requested",
    ]
    assert len(out.kills[2].confirmed) >= 2
    # /submit was never called before the kill: the user finds none, then --resubmit.
    assert out.unconfirmed_submit and out.resubmitted
    assert out.succeeded, out.output
    assert out.resent == []
    # A part S3 stored while the process was frozen at a pause was never confirmed:
    # sending it again is allowed (and is all that may be sent twice).
    assert {r.part_number for r in stack.proxy.stored()} == {1, 2, 3, 4, 5, 6}


def test_kill_after_completion_when_s3_forgot_the_upload(
    portal_stack: PortalFactory, tmp_path: Path
) -> None:
    """S3 answers NoSuchUpload to the repeated completion: submit the saved key, once."""
    stack = portal_stack(single_max_bytes=MIB, part_size=PART, repeat_complete_s=0)
    drill = Drill(stack, make_archive(tmp_path / "b", 12 * MIB, seed=2))
    drill.kill_at("completed")
    drill.kill_at("submitted")  # the organiser took the submission; its answer was lost
    out = drill.finish()
    assert [k.landed for k in out.kills] == ["complete requested", "submit requested"]
    # The final run refuses to submit blindly; the organiser has exactly the one submission.
    assert out.unconfirmed_submit and not out.resubmitted and out.submissions == 1
    assert "--resubmit" in out.output
    assert out.succeeded and out.resent == []


def test_object_missing_after_assumed_completion_uploads_again(
    portal_stack: PortalFactory, tmp_path: Path
) -> None:
    stack = portal_stack(single_max_bytes=MIB, part_size=PART)
    drill = Drill(stack, make_archive(tmp_path / "c", 11 * MIB, seed=3))  # 3 parts
    kill = drill.kill_at("complete-requested")
    state_upload = {r.upload_id for r in stack.proxy.stored()}
    assert kill.confirmed == {1, 2, 3} and len(state_upload) == 1
    # The upload is aborted behind our back (a lifecycle rule, an operator): S3 says
    # NoSuchUpload, harness goes on to /submit, the organiser says no object.
    (upload_id,) = state_upload
    key = next(iter(stack.portal.state.uploads.values())).s3_key
    stack.s3().abort_multipart_upload(Bucket=stack.bucket, Key=key, UploadId=upload_id)
    out = drill.finish()
    assert out.succeeded, out.output
    assert "no object is stored" in out.output and "uploading the whole file again" in out.output
    # Parts were sent again, but only to the new upload, after the organiser said so.
    assert {r.upload_id for r in out.resent} and upload_id not in {r.upload_id for r in out.resent}


def test_kill_around_the_single_put(portal_stack: PortalFactory, tmp_path: Path) -> None:
    stack = portal_stack(single_max_bytes=8 * MIB)
    drill = Drill(stack, make_archive(tmp_path / "d", 3 * MIB, seed=4))
    drill.kill_at("upload-url")  # key saved, PUT not sent
    drill.kill_at("put-done")  # S3 stored it, the state does not say so: not confirmed
    drill.kill_at("submit-requested")
    out = drill.finish()
    assert [k.landed for k in out.kills] == [
        "single PUT in flight",
        "single PUT in flight",
        "submit requested",
    ]
    assert out.resubmitted and out.succeeded and out.resent == []
    assert [r.outcome for r in stack.proxy.log] == ["stored", "stored"]


def test_random_kills(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """Random moments, timed from events at the S3 side (PUTs, completion, submit).

    Every PUT is held 0.6 s at the S3 side (after it is logged, before S3 sees it), so a
    kill up to 0.5 s after the n-th PUT arrives always finds that run still uploading,
    however fast the machine: what is random is where the kill lands, not whether."""
    stack = portal_stack(single_max_bytes=MIB, part_size=PART, faults=Faults(delay_s=0.6))
    drill = Drill(stack, make_archive(tmp_path / "e", 30 * MIB, seed=5))
    rng = random.Random(15)
    for event, nth in [("put", rng.randint(1, 4)), ("put", rng.randint(2, 6)),
                       ("/complete-upload", 1), ("/submit", 1)]:  # fmt: skip
        drill.kill_on(event, nth, rng.uniform(0.0, 0.5 if event == "put" else 0.2))
    out = drill.finish()
    print([(k.moment, k.landed, sorted(k.confirmed)) for k in out.kills])
    assert len(out.kills) >= 2, "runs ended before their kills: too little was tested"
    assert out.succeeded, out.output
    assert out.resent == []


def test_ctrl_c_of_a_restart_advises_a_command_that_resumes(
    portal_stack: PortalFactory, tmp_path: Path
) -> None:
    """Issue 27: Ctrl-C of `submit … --restart` mid-upload. The advice is an exact command
    without --restart; running it sends only the parts not confirmed, then submits once."""
    stack = portal_stack(single_max_bytes=MIB, part_size=64 * 1024, faults=Faults(delay_s=0.2))
    drill = Drill(stack, make_archive(tmp_path / "f", 64 * 1024 * 38 + 999, seed=6))  # 39 parts
    err = drill.interrupt("--restart", parts=5)
    state = load_state(state_path(drill.archive))
    assert state is not None and 5 <= len(state.parts) < 39
    n = len(state.parts)
    line = stopped_line(err)
    assert (
        f"{n} of 39 parts confirmed by S3; to send only the other {39 - n} and submit run:" in line
    )
    assert "--restart" not in line and "--out" not in line, line
    log_at_stop = len(stack.proxy.log)
    done = drill.run_advised(err)
    assert done.returncode == 0, done.stderr
    again = [r for r in stack.proxy.log[log_at_stop:] if r.part_number in state.parts]
    assert again == [], "the advised command sent a confirmed part again"
    assert len(stack.portal.state.submissions) == 1


@pytest.mark.parametrize("phase", ["submit-requested", "submitted"])
def test_ctrl_c_around_submit_never_advises_submitting_again(
    portal_stack: PortalFactory, tmp_path: Path, phase: str
) -> None:
    """Stopped once /submit is (about to be) sent: the advice says it may have arrived, and
    neither its command nor --restart sends /submit again; --resubmit only on purpose."""
    stack = portal_stack(single_max_bytes=8 * MIB)
    drill = Drill(stack, make_archive(tmp_path / "g", 2 * MIB, seed=7))
    err = drill.interrupt("--restart", pause=phase)
    line = stopped_line(err)
    assert "/submit was sent" in line and "do not submit again" in line, line
    assert "--restart" not in line.split("`")[1], line
    sent = 1 if phase == "submitted" else 0
    assert len(stack.portal.state.submissions) == sent
    calls = stack.portal.state.calls.count("/submit")
    checked = drill.run_advised(err)
    assert checked.returncode == 3 and UNCONFIRMED in checked.stderr, checked.stderr
    assert "Traceback" not in checked.stderr
    restarted = drill._plain("--restart")
    assert restarted.returncode == 2, restarted.stderr
    assert "--restart would upload and submit it again" in restarted.stderr
    assert stack.portal.state.calls.count("/submit") == calls
    assert len(stack.portal.state.submissions) == sent
