"""The tune folder: made for one worker alone (``space.toml`` created exclusively), unmade
when a start is refused before its study exists, and read back for ``--resume``."""

from __future__ import annotations

import contextlib
from pathlib import Path

from harness.errors import ConfigError, UsageError
from harness.tune.space import Space, load_space
from harness.tune.study import storage

SPACE_COPY = "space.toml"
STUDY_DB = storage.STUDY_DB


def resume_space(folder: Path) -> tuple[Space, str]:
    path = folder / SPACE_COPY
    if not path.is_file():
        raise UsageError(
            f"{folder} is not a tune folder (no {SPACE_COPY})",
            hint="pass the folder a harness tune wrote",
        )
    return load_space(path), path.read_text(encoding="utf-8")


def prepare_folder(folder: Path, space_text: str, storage_url: str | None) -> list[Path]:
    """The tune folder, this worker's alone: ``space.toml`` is created exclusively, so a second
    worker pointed at the same folder stops with exit 2 instead of sharing it. Returns what
    it made (:func:`unmake`: a start refused before its study exists leaves nothing)."""
    made = [] if folder.exists() else [folder]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(
            f"cannot create tune folder {folder}: {err.strerror or type(err).__name__}",
            hint="pass --out to a writable folder",
        ) from None
    if (folder / STUDY_DB).exists():
        raise UsageError(
            f"{folder} holds a tune already",
            hint=f"continue it with harness tune --resume {folder}",
        )
    try:
        with (folder / SPACE_COPY).open("x", encoding="utf-8") as f:
            f.write(space_text)
    except FileExistsError:
        raise UsageError(
            f"{folder} is another tune's folder (it holds {SPACE_COPY})",
            hint="give each worker its own --out, or continue that tune with --resume",
        ) from None
    made.append(folder / SPACE_COPY)
    if storage_url is not None:
        storage.record(folder, storage_url)
        made.append(folder / storage.STORAGE_RECORD)
    return made


def unmake(made: list[Path]) -> None:
    """Remove what :func:`prepare_folder` made (files, then the folder if it is empty), so a
    refused start leaves no folder that neither ``--resume`` nor a new start can take."""
    for path in reversed(made):
        if path.is_dir():
            with contextlib.suppress(OSError):  # not empty: something else lives there
                path.rmdir()
        else:
            path.unlink(missing_ok=True)
