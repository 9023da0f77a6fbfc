"""Pure parts of issues 27 and 28: team ids, the resume advice, error texts, the gated check."""

from __future__ import annotations

import shlex
from pathlib import Path

import aiohttp
import pytest

from harness.errors import VerdictFailed
from harness.gate.report import GateReport
from harness.profiles import SubmitSpec
from harness.report_base import migrate
from harness.submit.api import error_text, transport_failure
from harness.submit.gated import GateRecord, check_gated, is_image_id, same_image
from harness.submit.resume import resume_command, resume_note
from harness.submit.state import UploadState
from harness.submit.team import team_id_problem

ID = "sha256:" + "ab12" * 16
OTHER = "sha256:" + "cd34" * 16


@pytest.mark.parametrize("team", ["a", "team-A_1", "x" * 64, "0"])
def test_team_ids_of_the_accepted_form(team: str) -> None:
    assert team_id_problem(SubmitSpec(), team) is None


@pytest.mark.parametrize(
    "team", ["", "a b", "a/b", "../../etc", "x" * 65, "équipe", "a\n", "a.b", None, 7]
)
def test_team_ids_refused_with_the_form_in_words(team: object) -> None:
    problem = team_id_problem(SubmitSpec(), team)
    assert problem is not None
    if isinstance(team, str):
        assert (
            problem
            == f"team id {team!r} is not accepted: use 1 to 64 ASCII letters, digits, '-' or '_'"
        )
    else:
        assert problem.startswith("team_id must be a string")


def test_the_team_id_rule_comes_from_the_profile() -> None:
    rules = SubmitSpec(team_id_pattern="[a-z]{3}", team_id_rule="three small letters")
    assert team_id_problem(rules, "abc") is None
    assert (
        team_id_problem(rules, "abcd") == "team id 'abcd' is not accepted: use three small letters"
    )


def test_resume_command_drops_what_must_not_repeat() -> None:
    argv = ["harness", "submit", "my dir/image.tar.gz", "--team", "t", "--api-url", "http://o",
            "--restart", "--resubmit", "--out", "runs/x", "--name=n", "--parallel", "2"]  # fmt: skip
    cmd = resume_command(argv)
    assert shlex.split(cmd) == [
        "harness", "submit", "my dir/image.tar.gz", "--team", "t", "--api-url", "http://o",
        "--parallel", "2",
    ]  # fmt: skip
    assert cmd.startswith("harness submit 'my dir/image.tar.gz' ")


def _state(**kw: object) -> UploadState:
    base = {"file_name": "image.tar.gz", "size": 10, "sha256": "s", "team_id": "t", "api_url": "u"}
    return UploadState.model_validate({**base, **kw})


CMD = "harness submit image.tar.gz --team t --api-url u"


def test_resume_notes_give_the_command_and_never_advise_submitting_again() -> None:
    parts = _state(upload_type="multipart", upload_id="u1", s3_key="k", num_parts=39,
                   parts={n: "e" for n in range(1, 6)})  # fmt: skip
    assert resume_note(parts, CMD) == (
        f"5 of 39 parts confirmed by S3; to send only the other 34 and submit run: {CMD}"
    )
    assert (
        resume_note(None, CMD) == f"nothing was uploaded yet; to start the upload again run: {CMD}"
    )
    uploaded = _state(upload_type="single", s3_key="k", uploaded=True)
    assert resume_note(uploaded, CMD).endswith(f"to submit it run: {CMD}")
    maybe = _state(upload_type="single", s3_key="k", uploaded=True, submit_requested=True)
    note = resume_note(maybe, CMD)
    assert "/submit was sent for k" in note and "do not submit again" in note
    assert f"`{CMD}` records this and sends nothing; only if none arrived, add --resubmit" in note
    done = _state(upload_type="single", s3_key="k", uploaded=True, submission_id="sub-1")
    assert resume_note(done, CMD) == f"submitted as sub-1; nothing more to send ({CMD} reports it)"


def test_error_text_says_the_answer_once() -> None:
    assert error_text('{"error": "team t is not registered"}') == "team t is not registered"
    assert error_text('{"detail": "Not Found"}') == "Not Found"
    assert error_text("404: Not Found") == "Not Found"
    assert error_text("<html>\n<body>oops</body>") == "<html>"
    assert error_text("") == ""


def test_transport_failures_in_words() -> None:
    assert transport_failure(TimeoutError(), 60) == "no answer within 60 s"
    assert transport_failure(aiohttp.ServerDisconnectedError(), 60) == (
        "the server closed the connection without answering"
    )
    assert transport_failure(ConnectionResetError(), 60) == "ConnectionResetError"


def test_image_ids_and_names() -> None:
    assert is_image_id(ID) and is_image_id(ID[7:19]) and is_image_id(ID.upper()[7:])
    assert not is_image_id("team/qwen:v7") and not is_image_id("ab12ab12")
    assert same_image(ID[:19], [OTHER, ID]) and same_image(ID[7:], [ID])
    assert not same_image(ID[:10], [ID]) and not same_image(OTHER, [ID])


def _rec(verdict: str, at: str, image: str = ID, folder: str = "g") -> GateRecord:
    blocking = ("quality gate failed: GPQA-Diamond 0.40 < 0.63",) if verdict == "FAIL" else ()
    return GateRecord(image, verdict, at, folder, blocking)


def test_the_last_gate_of_the_image_decides() -> None:
    ok = check_gated("image.tar.gz", [ID], [_rec("FAIL", "2026-11-01T00:00:00"),
                     _rec("PASS", "2026-11-02T00:00:00", folder="g2"),
                     _rec("FAIL", "2026-11-03T00:00:00", image=OTHER)],
                     ungated_ok=False, where="reports")  # fmt: skip
    assert ok.status == "passed" and ok.record is not None and ok.record.folder == "g2"
    with pytest.raises(VerdictFailed) as err:
        check_gated("image.tar.gz", [ID], [_rec("PASS", "2026-11-01T00:00:00"),
                    _rec("FAIL", "2026-11-02T08:09:10+00:00", folder="g3")],
                    ungated_ok=False, where="reports")  # fmt: skip
    assert err.value.message == (
        f"image {ID[:19]}… was last gated 2026-11-02 08:09:10 UTC in g3: FAIL: quality gate"
        " failed: GPQA-Diamond 0.40 < 0.63; nothing was sent"
    )
    assert err.value.hint is not None and "--ungated-ok" in err.value.hint


def test_never_gated_is_refused_unless_overridden() -> None:
    with pytest.raises(VerdictFailed) as err:
        check_gated("image.tar.gz", [ID], [_rec("PASS", "t", image=OTHER)],
                    ungated_ok=False, where="reports")  # fmt: skip
    assert err.value.message == (
        f"image {ID[:19]}… was never gated (no gate.json names it in reports); nothing was sent"
    )
    assert f"harness gate --url URL --image-id {ID}" in str(err.value)
    over = check_gated("image.tar.gz", [ID], [], ungated_ok=True, where="reports")
    assert (over.status, over.image_id, over.record) == ("ungated_ok", ID, None)
    with pytest.raises(VerdictFailed, match="its image id cannot be read"):
        check_gated("image.tar.gz", [], [], ungated_ok=False, where="reports")


def test_gate_report_schema_3_reads_without_an_image(tmp_path: Path) -> None:
    old = {"kind": "gate", "schema_version": 3, "verdict": "PASS", "skipped": []}
    data = migrate(old, GateReport)
    assert data["image_id"] is None and data["schema_version"] == GateReport.SCHEMA_VERSION
    report = GateReport(verdict="PASS", image_id=ID)  # type: ignore[arg-type]
    report.save(tmp_path)
    assert GateReport.load(tmp_path).image_id == ID
