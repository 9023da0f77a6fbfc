"""Which server gave the answers: the identity the answer cache keeps them under.

A cached answer is reused only for the server that gave it: the endpoint URL and
the body's model name, what the server says of itself (served models, engine and
version: :mod:`harness.client.fingerprint`) and, where it exposes one, its process
start time (``process_start_time_seconds`` on ``/metrics``: vLLM and the simulator
publish prometheus_client's process metric), so a restarted server at the same URL
is a different server; and the ``config_id`` of its ``*_info`` metrics (its configuration,
harness/manifest: vLLM's ``cache_config_info``), so a server restarted with another
configuration is noticed where there is no single start time (vLLM with several API
server processes exports no process metrics). Taking it costs three GETs the grader never sends
(``/version``, ``/v1/models``, ``/metrics``), before the first benchmark; a
``--fresh`` run takes none (it reuses nothing) and records "not taken".
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from harness.client.fingerprint import take_fingerprint_and_metrics
from harness.client.metrics import MetricsSnapshot
from harness.manifest.canonical import config_id
from harness.manifest.sources import info_settings
from harness.provenance import ServerFingerprint

START_METRIC = "process_start_time_seconds"
IDENTITY_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class ServerIdentity:
    """The server a set of cached answers belongs to (see the module docstring)."""

    url: str  # the endpoint the bodies are posted to
    model: str  # the body's model name (the profile's)
    taken: bool = False  # False: nothing was asked beyond the grader's /ping
    engine: str | None = None
    version: str | None = None
    models: tuple[str, ...] = ()
    started_at: float | None = None  # process_start_time_seconds, when the server has it
    config: str | None = None  # config_id of its *_info metrics, when it has any

    def key(self) -> str:
        """What the answer cache hashes into every key (stable across runs)."""
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    def label(self) -> str:
        """One line for quality.json and the console: ``URL · engine version · started …``."""
        if not self.taken:
            return f"{self.url} · {self.model} · not asked"
        parts = [self.url, " ".join(p for p in (self.engine, self.version) if p) or "engine ?"]
        parts.append(f"serves {', '.join(self.models)}" if self.models else "models ?")
        parts.append(
            f"process started {_when(self.started_at)}" if self.started_at else "no start time"
        )
        if self.config:
            parts.append(f"config {self.config}")
        return " · ".join(parts)

    @classmethod
    def from_key(cls, key: str) -> ServerIdentity | None:
        """The identity a cache recorded (None: unreadable, e.g. another harness version's)."""
        try:
            data = json.loads(key)
            data["models"] = tuple(data.get("models", ()))
            return cls(**data)
        except (ValueError, TypeError):
            return None


def _when(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def identity_of(
    url: str, model: str, fp: ServerFingerprint, metrics: MetricsSnapshot | None
) -> ServerIdentity:
    """Pure: the identity from what the server told (its fingerprint and ``/metrics``)."""
    started = metrics.values.get(START_METRIC) if metrics is not None else None
    return ServerIdentity(
        url=url,
        model=model,
        taken=True,
        engine=fp.engine,
        version=fp.version,
        models=tuple(fp.models),
        started_at=started,
        config=served_config(metrics),
    )


def served_config(metrics: MetricsSnapshot | None) -> str | None:
    """Pure: the ``config_id`` of the ``*_info`` metrics' labels (the manifest's rule:
    harness/manifest/sources.py), None when the server has none."""
    if metrics is None:
        return None
    settings = info_settings(metrics.info)
    return config_id(settings) if settings else None


def changes(before: ServerIdentity, now: ServerIdentity) -> list[str]:
    """Pure: how ``now`` differs from ``before``, in words (empty: the same server)."""
    if before.key() == now.key():
        return []
    if not before.taken or not now.taken:
        return ["the cached answers do not say which server process gave them"]
    out: list[str] = []
    if before.url != now.url or before.model != now.model:
        out.append(f"{before.url} {before.model} → {now.url} {now.model}")
    if before.config != now.config:
        out.append(f"configuration {before.config or 'unknown'} → {now.config or 'unknown'}")
    if before.started_at != now.started_at:
        was = _when(before.started_at) if before.started_at else "unknown"
        is_ = _when(now.started_at) if now.started_at else "unknown"
        out.append(f"process started {was}, now {is_}")
    for name in ("engine", "version", "models"):
        old, new = getattr(before, name), getattr(now, name)
        if old != new:
            show = (lambda v: ", ".join(v) or "none") if name == "models" else str
            out.append(f"{name} {show(old)} → {show(new)}")
    return out


def not_asked(url: str, model: str) -> ServerIdentity:
    """A ``--fresh`` run's identity: the URL and model only, nothing asked."""
    return ServerIdentity(url=url, model=model)


def take_identity(base_url: str, endpoint_url: str, model: str) -> ServerIdentity:
    """Ask the server who it is (``/version``, ``/v1/models``, ``/metrics``); what it does
    not answer stays unknown, never an error."""
    fp, metrics = asyncio.run(take_fingerprint_and_metrics(base_url, timeout_s=IDENTITY_TIMEOUT_S))
    return identity_of(endpoint_url, model, fp, metrics)
