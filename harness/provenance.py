"""Provenance: who measured what, how, from where, and which server build answered.

Every report carries a :class:`Provenance`; its ``server`` is the
:class:`ServerFingerprint` taken from the server (harness/client/fingerprint.py).
These records sit at the bottom of the house: this module imports nothing of the
harness but its version, so the HTTP client, the flags and the report base can all
use them without importing each other.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness import __version__


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


class ServerFingerprint(BaseModel):
    """Which server build answered: so two runs of different builds are never compared silently.

    Taken from GET /version, /v1/models and /metrics (harness/client/fingerprint.py);
    ``taken`` is False in pure official mode, which sends only the grader's requests.
    """

    taken: bool = True
    engine: str | None = None  # e.g. "vllm" (from /v1/models owned_by or a *_info metric)
    version: str | None = None
    models: list[str] = Field(default_factory=list)
    max_model_len: int | None = None
    note: str | None = None  # what could not be read, or why nothing was taken
    # what named the engine: "--engine", "/metrics names", "GET /props", "Server header",
    # "/v1/models owned_by", an "*_info metric" (None: the engine is unknown)
    engine_source: str | None = None

    def label(self) -> str:
        """A short name for tables: ``vllm 0.32.0 · max_len 8704``."""
        if not self.taken:
            return "not taken"
        parts = [p for p in (self.engine, self.version) if p]
        if self.max_model_len is not None:
            parts.append(f"max_len {self.max_model_len}")
        return " ".join(parts) if parts else "unknown"


class Provenance(BaseModel):
    """Who measured what, how, from where. Never holds credentials."""

    model_config = ConfigDict(extra="allow")

    harness_version: str = __version__
    profile: str = ""
    command_line: list[str] = Field(default_factory=list)
    url: str | None = None
    name: str | None = None  # the run's ledger name (--name)
    note: str = ""  # what changed since the last run (--note)
    experiment: str | None = None  # the ledger group it belongs to (--experiment)
    server_models: list[str] = Field(default_factory=list)
    tokenizer: str | None = None
    seed: int | None = None
    client_host: str = Field(default_factory=socket.gethostname)
    client_cpu: str = Field(default_factory=_cpu_model)
    client_cpus: int = Field(default_factory=lambda: os.cpu_count() or 0)
    python: str = Field(default_factory=lambda: sys.version.split()[0])
    started_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    finished_at: str | None = None
    server: ServerFingerprint | None = None


def with_facts(
    provenance: Provenance,
    *,
    url: str | None = None,
    tokenizer: str | None = None,
    seed: int | None = None,
    server_models: list[str] | None = None,
) -> Provenance:
    """A copy of ``provenance`` holding what a run learnt (the facts given, None: not learnt),
    for the run's report: an analysis returns them in its report, and the caller's record
    stays as the caller made it (a core may build several reports from one)."""
    facts = {"url": url, "tokenizer": tokenizer, "seed": seed, "server_models": server_models}
    return provenance.model_copy(
        deep=True, update={k: v for k, v in facts.items() if v is not None}
    )


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
