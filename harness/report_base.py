"""The versioned report base every command writes, and the one reader of report files.

Each command writes one ``<command>.json`` into its run folder
(harness/run_folder.py): a :class:`Report` subclass with a ``schema_version``,
provenance (harness/provenance.py), and its own payload. ``gate``, ``report`` and
``compare`` only read these files, all through :func:`load_report`.

Adding a report kind is one subclass of :class:`Report` (``kind``, ``FILENAME``,
``SCHEMA_VERSION``); changing its JSON shape is a ``SCHEMA_VERSION`` bump plus
one entry in its ``MIGRATIONS`` (docs/reports.md, "Schema versions").
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness import __version__
from harness.errors import ConfigError, IncompleteError
from harness.provenance import Provenance
from harness.run_folder import make_folder
from harness.target import NAME, NOTE

# One schema step on the raw JSON dict: version n in, version n + 1 out.
Migration = Callable[[dict[str, Any]], dict[str, Any]]


Phase = Literal["warmup", "timed"]


class RequestRow(BaseModel):
    """One request as a report records it: what every measurement's rows share.

    ``latency.report.RequestRow`` and ``throughput.report.RequestRow`` add what
    only they measure (bucket and stream timings; level, send/end times, spot
    checks). Times in ms from the request's send.
    """

    phase: Phase
    index: int  # position in the send order of its bucket / level
    ok: bool
    status: int | None = None
    error: str | None = None
    error_kind: str | None = None
    error_body: str | None = None  # the first 300 characters of the server's failed answer
    prompt_tokens: int | None = None  # client tokenizer
    server_prompt_tokens: int | None = None  # usage.prompt_tokens
    output_tokens: int | None = None  # client re-tokenisation of the output (verified)
    server_output_tokens: int | None = None  # usage.completion_tokens
    finish_reason: str | None = None
    e2e_ms: float | None = None
    dispatch_lag_ms: float | None = None  # actual send − intended send
    # sent twice: its reused pooled connection had been closed by the server, unanswered
    # (harness/client/http.py, "A stale pooled connection"); the time includes both sends
    resent: bool = False


class Report(BaseModel):
    """Base of every JSON report. Subclasses set ``kind`` and ``SCHEMA_VERSION``."""

    model_config = ConfigDict(extra="forbid")

    SCHEMA_VERSION: ClassVar[int] = 1
    FILENAME: ClassVar[str] = "report.json"
    # version n → the function that turns a version-n dict into version n + 1
    MIGRATIONS: ClassVar[dict[int, Migration]] = {}

    kind: str
    schema_version: int = 1  # a new report takes its class's SCHEMA_VERSION (below)
    complete: bool = True  # False when interrupted or partial
    provenance: Provenance = Field(default_factory=Provenance)

    @model_validator(mode="before")
    @classmethod
    def _current_version(cls, data: Any) -> Any:
        if isinstance(data, dict) and "schema_version" not in data:
            return {**data, "schema_version": cls.SCHEMA_VERSION}
        return data

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    @classmethod
    def from_json(cls, text: str) -> Self:
        """Parse one report's JSON text, migrating an older schema like :func:`load_report`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ConfigError(f"{cls.FILENAME}: not valid JSON ({err})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{cls.FILENAME}: not a JSON object")
        return _validate(data, cls, cls.FILENAME)

    def save(self, folder: Path, *, fix: str = "pass --out to a writable folder") -> Path:
        """Write the report into ``folder``; ConfigError saying ``fix`` when it cannot."""
        make_folder(folder)
        self.provenance.finished_at = datetime.now(UTC).isoformat()
        path = folder / self.FILENAME
        tmp = path.with_suffix(".json.tmp")
        try:
            tmp.write_text(self.to_json(), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as err:
            why = err.strerror or type(err).__name__
            raise ConfigError(f"cannot write {path}: {why}; {fix}") from None
        return path

    @classmethod
    def load(cls, folder: Path) -> Self:
        """:func:`load_report`, with a missing file an :class:`IncompleteError`."""
        report = load_report(folder, cls)
        if report is None:
            raise IncompleteError(f"no {cls.FILENAME} in {folder}")
        return report


R = TypeVar("R", bound=Report)


def migrate(data: dict[str, Any], kind: type[Report], where: str = "") -> dict[str, Any]:
    """Bring a report's raw dict to ``kind.SCHEMA_VERSION``, one migration at a time.

    A newer version is refused: this harness cannot know what its fields mean.
    """
    where = where or kind.FILENAME
    data = _provenance_name_note(data)
    version = data.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ConfigError(f"{where}: no integer schema_version (got {version!r})")
    if version > kind.SCHEMA_VERSION:
        prov = data.get("provenance")
        writer = prov.get("harness_version", "?") if isinstance(prov, dict) else "?"
        raise ConfigError(
            f"{where}: schema_version {version} (written by harness {writer}); this harness "
            f"{__version__} reads {kind.__name__} up to version {kind.SCHEMA_VERSION}",
            hint=f"read it with harness {writer} or newer",
        )
    while version < kind.SCHEMA_VERSION:
        step = kind.MIGRATIONS.get(version)
        if step is None:
            raise ConfigError(
                f"{where}: schema_version {version} is too old for this harness "
                f"({kind.__name__} {kind.SCHEMA_VERSION})",
                hint="re-run the command that wrote it",
            )
        data = step(dict(data))
        version += 1
        data["schema_version"] = version
    return data


def _argv_value(argv: list[Any], option: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == option and i + 1 < len(argv):
            return str(argv[i + 1])
        if isinstance(arg, str) and arg.startswith(option + "="):
            return arg.split("=", 1)[1]
    return None


def _provenance_name_note(data: dict[str, Any]) -> dict[str, Any]:
    """Every report kind: provenance without ``name``/``note`` (written before they were
    typed fields) takes them from the ``--name``/``--note`` of its recorded command line.

    The one place a recorded command line is read, once, when an old file is loaded;
    files written since carry both fields (null / empty when not given)."""
    prov = data.get("provenance")
    if not isinstance(prov, dict) or "name" in prov or "note" in prov:
        return data
    argv = prov.get("command_line")
    argv = argv if isinstance(argv, list) else []
    name, note = _argv_value(argv, NAME), _argv_value(argv, NOTE)
    return {**data, "provenance": {**prov, "name": name, "note": note or ""}}


def load_report(folder: Path, kind: type[R]) -> R | None:
    """The one reader of run-folder reports.

    ``load_report(folder, LatencyReport)`` reads ``folder/latency.json`` and returns
    a typed ``LatencyReport``, or ``None`` when the file is absent. An older
    ``schema_version`` is migrated (``kind.MIGRATIONS``), a newer one refused.
    Raises :class:`ConfigError` (exit 2) with one line for an unreadable file,
    a newer schema, or data that does not match the model.
    """
    path = folder / kind.FILENAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path.name}: unreadable ({type(err).__name__})") from None
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path.name}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path.name}: not a JSON object")
    return _validate(data, kind, path.name)


def _validate(data: dict[str, Any], kind: type[R], where: str) -> R:
    expected = kind.model_fields["kind"].default
    if data.get("kind", expected) != expected:
        raise ConfigError(f"{where}: a {data.get('kind')!r} report, not {expected!r}")
    data = migrate(data, kind, where)
    try:
        return kind.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{where}: does not match the {kind.__name__} schema "
            f"({err.error_count()} error(s); first at {loc}: {first['msg']})"
        ) from None
