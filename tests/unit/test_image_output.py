"""Where the archive goes (harness/image/output.py) and the engine's words (engine.py): one
line each, never cut, never a traceback."""

from __future__ import annotations

from pathlib import Path

import docker.errors
import pytest

from harness.errors import UsageError
from harness.image.engine import engine_errors, engine_message
from harness.image.output import output_errors, prepare_output
from harness.run_folder import new_run_folder


def _open(dest: Path) -> None:
    """What ``harness package`` does before it saves: the folder made, the file opened."""
    prepare_output(dest)
    with output_errors(dest):
        dest.write_bytes(b"")


def test_output_under_a_file_or_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(UsageError) as err:
        _open(blocker / "sub" / "image.tar.gz")
    assert err.value.message == (
        f"cannot write the archive to {blocker / 'sub' / 'image.tar.gz'}: "
        f"{blocker} is a file, not a folder"
    )
    assert err.value.hint is not None and err.value.hint.startswith("pass --output a file path")
    with pytest.raises(UsageError, match="is a folder"):
        _open(tmp_path)
    _open(tmp_path / "new" / "image.tar.gz")  # a folder that does not exist yet is made
    assert (tmp_path / "new" / "image.tar.gz").is_file()


def test_a_run_folder_that_cannot_be_made(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(UsageError) as err:
        new_run_folder(blocker, None, "package")
    assert err.value.message == (
        f"cannot create run folder {blocker}: File exists; pass --out to a writable folder"
    )


def test_the_engine_message_is_whole_and_on_one_line() -> None:
    said = (
        "/usr/sbin/runc: runc create failed: unable to start container process:\n"
        'exec: "/app/serve": permission denied: OCI permission denied ' + "x" * 300
    )
    err = docker.errors.APIError("500 Server Error", explanation=said)
    assert engine_message(err) == " ".join(said.split())
    assert engine_message(err).endswith("OCI permission denied " + "x" * 300)
    with (
        pytest.raises(UsageError, match="not a valid image name"),
        engine_errors("image Bad Name"),
    ):
        raise docker.errors.APIError("400", explanation="invalid reference format")
