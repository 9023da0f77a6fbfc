"""Run folders and the versioned report base every command writes.

A run folder is ``reports/<YYYYmmdd-HHMMSS>-<name>/`` (or ``--out DIR``). Each
command writes one ``<command>.json`` into it: a :class:`Report` subclass with a
``schema_version``, provenance, and its own payload. ``gate`` and ``report``
only read these files.
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness import __version__
from harness.errors import ConfigError, IncompleteError
from harness.paths import reports_dir


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


class Provenance(BaseModel):
    """Who measured what, how, from where. Never holds credentials."""

    model_config = ConfigDict(extra="allow")

    harness_version: str = __version__
    profile: str = ""
    command_line: list[str] = Field(default_factory=list)
    url: str | None = None
    server_models: list[str] = Field(default_factory=list)
    tokenizer: str | None = None
    seed: int | None = None
    client_host: str = Field(default_factory=socket.gethostname)
    client_cpu: str = Field(default_factory=_cpu_model)
    client_cpus: int = Field(default_factory=lambda: os.cpu_count() or 0)
    python: str = Field(default_factory=lambda: sys.version.split()[0])
    started_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    finished_at: str | None = None


def redact_argv(argv: list[str]) -> list[str]:
    """Drop values of secret-bearing flags from a command line before it is recorded."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append("***")
            hide_next = False
            continue
        if arg in ("--api-key", "--token"):
            out.append(arg)
            hide_next = True
        elif arg.startswith(("--api-key=", "--token=")):
            out.append(arg.split("=", 1)[0] + "=***")
        else:
            out.append(arg)
    return out


class Report(BaseModel):
    """Base of every JSON report. Subclasses set ``kind`` and ``SCHEMA_VERSION``."""

    model_config = ConfigDict(extra="forbid")

    SCHEMA_VERSION: ClassVar[int] = 1
    FILENAME: ClassVar[str] = "report.json"

    kind: str
    schema_version: int = 1
    complete: bool = True  # False when interrupted or partial
    provenance: Provenance = Field(default_factory=Provenance)

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    @classmethod
    def from_json(cls, text: str) -> Self:
        return cls.model_validate_json(text)

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        self.provenance.finished_at = datetime.now(UTC).isoformat()
        path = folder / self.FILENAME
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, folder: Path) -> Self:
        path = folder / cls.FILENAME
        if not path.exists():
            raise IncompleteError(f"no {cls.FILENAME} in {folder}")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ConfigError(f"{path}: not valid JSON ({err})") from None
        version = data.get("schema_version")
        if version != cls.SCHEMA_VERSION:
            raise ConfigError(
                f"{path}: schema_version {version}, this harness reads {cls.SCHEMA_VERSION}",
                hint="re-run the command with this harness version",
            )
        try:
            return cls.model_validate(data)
        except ValidationError as err:
            raise ConfigError(f"{path}: does not match the {cls.__name__} schema: {err}") from None


_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def new_run_folder(out: str | Path | None, name: str | None, command: str) -> Path:
    """Create (or reuse, for ``--out``) a run folder and return it."""
    if out is not None:
        folder = Path(out)
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        slug = _SLUG.sub("-", name or command).strip("-") or command
        root = reports_dir()
        folder = root / f"{stamp}-{slug}"
        n = 1
        while folder.exists():
            n += 1
            folder = root / f"{stamp}-{slug}-{n}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_json(path: Path, payload: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)
