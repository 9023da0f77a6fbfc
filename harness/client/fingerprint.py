"""Taking the server's fingerprint: engine, version, served models, max_model_len.

Three GETs a grader never sends (``/version``, ``/v1/models``, ``/metrics``), so
callers take it only outside pure official mode. Every missing piece is a note
in the record, never an error.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from harness.client.metrics import MetricsSnapshot, scrape
from harness.provenance import ServerFingerprint

NOT_TAKEN = "not taken: official mode sends only the grader's requests"


async def _get_json(
    session: aiohttp.ClientSession, url: str, timeout_s: float
) -> tuple[Any | None, str | None]:
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            if resp.status != 200:
                return None, f"HTTP {resp.status}"
            return json.loads(await resp.read()), None
    except (aiohttp.ClientError, TimeoutError) as err:
        return None, type(err).__name__
    except (ValueError, UnicodeDecodeError):
        return None, "not JSON"


def from_answers(
    version_doc: Any, models_doc: Any, metrics: MetricsSnapshot | None
) -> ServerFingerprint:
    """Pure: the record from what the three endpoints answered (None where they did not)."""
    fp = ServerFingerprint()
    if isinstance(version_doc, dict) and isinstance(version_doc.get("version"), str):
        fp.version = version_doc["version"]
    data = models_doc.get("data") if isinstance(models_doc, dict) else None
    if isinstance(data, list):
        rows = [m for m in data if isinstance(m, dict)]
        fp.models = [str(m["id"]) for m in rows if "id" in m]
        lens = [m["max_model_len"] for m in rows if isinstance(m.get("max_model_len"), int)]
        fp.max_model_len = max(lens) if lens else None
        owners = {str(m["owned_by"]) for m in rows if m.get("owned_by")}
        if len(owners) == 1:
            fp.engine = owners.pop()
    # An *_info metric naming an engine and a version outranks owned_by (servers copy
    # vLLM's "owned_by": "vllm", the simulator included).
    for labels in metrics.info.values() if metrics else ():
        if labels.get("engine") and not labels["engine"].isdigit():
            fp.engine = labels["engine"]
            fp.version = labels.get("version", fp.version)
    if fp.engine is None and metrics and any(k.startswith("vllm:") for k in metrics.values):
        fp.engine = "vllm"
    return fp


async def take_fingerprint(base_url: str, *, timeout_s: float = 10.0) -> ServerFingerprint:
    fp, _ = await take_fingerprint_and_metrics(base_url, timeout_s=timeout_s)
    return fp


async def take_fingerprint_and_metrics(
    base_url: str, *, timeout_s: float = 10.0
) -> tuple[ServerFingerprint, MetricsSnapshot | None]:
    """The fingerprint and the ``/metrics`` snapshot it was read from (None: unreadable)."""
    base = base_url.rstrip("/")
    async with aiohttp.ClientSession() as session:
        version_doc, v_err = await _get_json(session, base + "/version", timeout_s)
        models_doc, m_err = await _get_json(session, base + "/v1/models", timeout_s)
        got = await scrape(session, base, timeout_s=timeout_s)
    fp = from_answers(version_doc, models_doc, got.snapshot)
    notes = [
        f"GET {path}: {err}"
        for path, err in (("/version", v_err), ("/v1/models", m_err), ("/metrics", got.note))
        if err
    ]
    fp.note = "; ".join(notes) or None
    return fp, got.snapshot


def not_taken() -> ServerFingerprint:
    return ServerFingerprint(taken=False, note=NOT_TAKEN)
