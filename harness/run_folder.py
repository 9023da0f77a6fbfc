"""Run folders: ``reports/<YYYYmmdd-HHMMSS>-<name>/`` (or ``--out DIR``), created safely.

Each command writes its ``<command>.json`` into one (harness/report_base.py: ``Report.save``).
A folder that cannot be created is a :class:`ConfigError` (exit 2, one line).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.paths import reports_dir

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def new_run_folder(out: str | Path | None, name: str | None, command: str) -> Path:
    """Create (or reuse, for ``--out``) a run folder and return it.

    Without ``--out`` the folder is new, made with ``mkdir`` without ``exist_ok``: a name
    already taken, even by a run started in the same second by another process, gets
    ``-2``, ``-3``, … (the kernel decides who gets a name, so two runs never share one)."""
    if out is not None:
        return make_folder(Path(out))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    slug = _SLUG.sub("-", name or command).strip("-") or command
    return fresh_folder(make_folder(reports_dir()), f"{stamp}-{slug}")


def fresh_folder(root: Path, base: str, what: str = "run folder") -> Path:
    """``root/base``, made with ``mkdir`` without ``exist_ok``: a name already taken, even by
    another process in the same instant, gets ``-2``, ``-3``, … (the kernel decides who gets
    a name, so two never share one). ``root`` must exist."""
    for n in range(1, 10_000):
        folder = root / (base if n == 1 else f"{base}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError as err:
            why = err.strerror or type(err).__name__
            raise ConfigError(
                f"cannot create {what} {folder}: {why}; pass --out to a writable folder"
            ) from None
        return folder
    raise ConfigError(f"no free {what} name for {base} in {root}")


def make_folder(folder: Path, what: str = "run folder", flag: str = "--out") -> Path:
    """``mkdir -p folder``; a folder that cannot be created (a regular file on its path,
    no permission, a read-only disk) is a :class:`ConfigError`: exit 2 and one line."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise ConfigError(
            f"cannot create {what} {folder}: {why}; pass {flag} to a writable folder"
        ) from None
    return folder


def write_json(path: Path, payload: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)
