"""The resume state file beside the tarball: what the organiser already confirmed.

``image.tar.gz.upload.json`` holds the file's size and sha256, the team, the
API base, the S3 key and upload id, every part S3 confirmed (its ETag), and
two intents written *before* the call they announce: ``complete_requested``
(``/complete-upload`` may have gone through) and ``submit_requested``
(``/submit`` may have gone through). A run killed between S3 acting and the
answer being saved thus leaves a state that says "maybe", never one that says
"not yet" (docs/submit.md, "Kills and resume").

It never holds the API key or presigned URLs (URLs embed signatures). Every
write is atomic and durable (temp file, fsync, rename, fsync of the folder), so
a SIGKILL or a power cut leaves the previous or the next state, never half of one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pydantic import BaseModel, ValidationError

STATE_SUFFIX = ".upload.json"


class UploadState(BaseModel):
    schema_version: int = (
        2  # 2 added the two intents; a version-1 file reads as "neither requested"
    )
    file_name: str
    size: int
    sha256: str
    team_id: str
    api_url: str
    upload_type: str | None = None
    s3_key: str | None = None
    upload_id: str | None = None
    part_size: int | None = None
    num_parts: int | None = None
    parts: dict[int, str] = {}  # part number -> ETag confirmed by S3 (MD5 checked)
    complete_requested: bool = False  # /complete-upload was (about to be) called
    uploaded: bool = False  # single PUT done, or multipart completed
    submit_requested: bool = False  # /submit was (about to be) called
    submission_id: str | None = None

    def matches(self, *, size: int, sha256: str, team_id: str, api_url: str) -> bool:
        return (self.size, self.sha256, self.team_id, self.api_url) == (
            size,
            sha256,
            team_id,
            api_url,
        )

    def all_parts_confirmed(self) -> bool:
        return self.num_parts is not None and len(self.parts) == self.num_parts

    def reset_upload(self) -> None:
        self.upload_type = self.s3_key = self.upload_id = None
        self.part_size = self.num_parts = None
        self.parts = {}
        self.complete_requested = self.uploaded = self.submit_requested = False


def state_path(archive: Path) -> Path:
    return archive.with_name(archive.name + STATE_SUFFIX)


def load_state(path: Path) -> UploadState | None:
    """The saved state, or None when absent or unreadable (an unreadable state is not trusted)."""
    try:
        return UploadState.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError):
        return None


def save_state(path: Path, state: UploadState) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(state.model_dump_json(indent=1))
        fh.flush()
        # Without the fsyncs a crash after rename can leave an empty file: the
        # rename reaches the disk before the data on some file systems.
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    # Opening or syncing a folder is not supported everywhere (Windows, some
    # network file systems); the rename is atomic regardless, only less durable.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def discard_state(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
