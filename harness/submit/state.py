"""The resume state file beside the tarball: what the organiser already confirmed.

``image.tar.gz.upload.json`` holds the file's size and sha256, the team, the
API base, the S3 key and upload id, and every part S3 confirmed (its ETag). It
never holds the API key or presigned URLs (URLs embed signatures). Writes are
atomic (temp file + rename) so a SIGKILL leaves the previous or the next state,
never half of one.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pydantic import BaseModel, ValidationError

STATE_SUFFIX = ".upload.json"


class UploadState(BaseModel):
    schema_version: int = 1
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
    uploaded: bool = False  # single PUT done, or multipart completed
    submission_id: str | None = None

    def matches(self, *, size: int, sha256: str, team_id: str, api_url: str) -> bool:
        return (self.size, self.sha256, self.team_id, self.api_url) == (
            size,
            sha256,
            team_id,
            api_url,
        )

    def reset_upload(self) -> None:
        self.upload_type = self.s3_key = self.upload_id = None
        self.part_size = self.num_parts = None
        self.parts = {}
        self.uploaded = False


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
    tmp.write_text(state.model_dump_json(indent=1), encoding="utf-8")
    os.replace(tmp, path)


def discard_state(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
