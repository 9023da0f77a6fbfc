"""The manifest's records: :class:`Manifest` (``manifest.json``), :class:`Launched`, :class:`Change`.

``settings`` is flat: ``"section.key"`` → a JSON scalar, already normalised
(harness/manifest/canonical.py), so another reader (the ledger) needs no parsing.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import ConfigError

Scalar = str | int | float | bool | None
Taken = Literal["before", "after", "separate step"]

FILENAME = "manifest.json"
SCHEMA_VERSION = 1


class Launched(BaseModel):
    """What harness knows because it started the server itself (demo, gate --image, a tuner).

    ``argv`` and ``env`` are what the server process was given; ``image`` what an
    inspection of its image said (id, digest, entrypoint, …). Secrets in ``env`` are
    redacted when the manifest is built, not here."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    by: str  # who launched it: "harness demo", "harness gate --image", "harness tune"
    argv: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    image: dict[str, Scalar] = Field(default_factory=dict)


class Manifest(BaseModel):
    """What ran: the server's own account of itself and what harness launched."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    config_id: str
    settings: dict[str, Scalar] = Field(default_factory=dict)
    # where each part came from, or why it is missing: "/metrics" → "2 *_info metrics"
    sources: dict[str, str] = Field(default_factory=dict)
    taken: Taken = "before"
    taken_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    url: str | None = None

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILENAME
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(path)
        return path


def load_manifest(folder: Path) -> Manifest | None:
    """``folder/manifest.json``, or None when absent. An unreadable one is a ConfigError."""
    path = folder / FILENAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ConfigError(f"{FILENAME}: unreadable ({type(err).__name__})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{FILENAME}: not a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ConfigError(
            f"{FILENAME}: schema_version {version!r}; this harness reads {SCHEMA_VERSION}",
            hint="take it again with this harness (harness check or latency on the server)",
        )
    try:
        return Manifest.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise ConfigError(
            f"{FILENAME}: does not match the manifest schema ({loc}: {first['msg']})"
        ) from None


class Change(BaseModel):
    """One setting that differs between run A and run B (``a``/``b`` None: absent there)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str  # the full "section.key"
    a: Scalar = None
    b: Scalar = None
    in_a: bool = True
    in_b: bool = True
    text: str  # one line: "enable_prefix_caching false → true"
