"""Taking the server's fingerprint: engine, version, served models, max_model_len.

GETs a grader never sends (``/version``, ``/v1/models``, ``/metrics`` and each known
engine's own info route: ``/props``, ``/info``, ``/get_server_info``), so callers take
it only outside pure official mode. The engine is named from, strongest first: an
``--engine`` override, an ``*_info`` metric naming one, an engine's info route, the
``Server`` header, the ``/metrics`` sample names (harness/engines/: each record's
prefixes), ``/v1/models`` ``owned_by``. Every missing piece is a note in the record,
never an error; an engine nothing names stays unknown (``engine`` None).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from harness.client.metrics import MetricsSnapshot, scrape
from harness.engines.read import detect_from_names
from harness.engines.record import EngineRecord
from harness.engines.registry import ENGINES, by_name
from harness.provenance import ServerFingerprint

NOT_TAKEN = "not taken: official mode sends only the grader's requests"


@dataclass
class Answers:
    """What the server answered (None where it did not)."""

    version_doc: Any = None
    models_doc: Any = None
    metrics: MetricsSnapshot | None = None
    routes: dict[str, Any] = field(default_factory=dict)  # engine info route → its JSON
    server_header: str | None = None


async def _get_json(
    session: aiohttp.ClientSession, url: str, timeout_s: float
) -> tuple[Any | None, str | None, str | None]:
    """(JSON, error, Server header)."""
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            server = resp.headers.get("Server")
            if resp.status != 200:
                return None, f"HTTP {resp.status}", server
            return json.loads(await resp.read()), None, server
    except (aiohttp.ClientError, TimeoutError) as err:
        return None, type(err).__name__, None
    except (ValueError, UnicodeDecodeError):
        return None, "not JSON", None


def _from_routes(
    got: Answers, engines: tuple[EngineRecord, ...]
) -> tuple[EngineRecord, str | None, str] | None:
    for e in engines:
        for route, marker, version_key in e.detect.routes:
            doc = got.routes.get(route)
            if route == "/version":
                continue  # vLLM's and TensorRT-LLM's: a version, not an engine
            if isinstance(doc, dict) and marker in doc:
                v = doc.get(version_key)
                return e, str(v) if isinstance(v, str | int) else None, f"GET {route}"
    return None


def from_answers(
    version_doc: Any,
    models_doc: Any,
    metrics: MetricsSnapshot | None,
    *,
    answers: Answers | None = None,
    engine: str | None = None,
    engines: tuple[EngineRecord, ...] = ENGINES,
) -> ServerFingerprint:
    """Pure: the record from what the endpoints answered; ``engine`` (``--engine``) wins."""
    got = answers or Answers()
    got.version_doc, got.models_doc, got.metrics = version_doc, models_doc, metrics
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
            known = next((e for e in engines if fp.engine in e.detect.owned_by), None)
            fp.engine = known.name if known else fp.engine
            fp.engine_source = "/v1/models owned_by"
    # Servers copy vLLM's "owned_by": "vllm" (the simulator included): what /metrics, a
    # Server header or an engine's own route says outranks it.
    named = detect_from_names(metrics.values if metrics else (), engines)
    if named is not None:
        fp.engine, fp.engine_source = named.name, "/metrics names"
    header = got.server_header or ""
    by_header = next((e for e in engines if header.startswith(e.detect.server_headers)), None)
    if header and by_header is not None and by_header.detect.server_headers:
        fp.engine, fp.engine_source = by_header.name, "Server header"
    routed = _from_routes(got, engines)
    if routed is not None:
        fp.engine, version, fp.engine_source = routed[0].name, routed[1], routed[2]
        fp.version = version or fp.version
    for labels in metrics.info.values() if metrics else ():
        if labels.get("engine") and not labels["engine"].isdigit():
            fp.engine = labels["engine"]
            fp.version = labels.get("version", fp.version)
            fp.engine_source = "*_info metric"
    if engine is not None:
        fp.engine, fp.engine_source = engine, "--engine"
    return fp


def engine_record(
    fp: ServerFingerprint | None, engines: tuple[EngineRecord, ...] = ENGINES
) -> EngineRecord | None:
    """The record of the engine a fingerprint names (None: unknown or not one harness knows)."""
    return by_name(fp.engine if fp else None, engines)


async def take_fingerprint(
    base_url: str, *, timeout_s: float = 10.0, engine: str | None = None
) -> ServerFingerprint:
    fp, _ = await take_fingerprint_and_metrics(base_url, timeout_s=timeout_s, engine=engine)
    return fp


async def take_fingerprint_and_metrics(
    base_url: str,
    *,
    timeout_s: float = 10.0,
    engine: str | None = None,
    engines: tuple[EngineRecord, ...] = ENGINES,
) -> tuple[ServerFingerprint, MetricsSnapshot | None]:
    """The fingerprint and the ``/metrics`` snapshot it was read from (None: unreadable)."""
    base = base_url.rstrip("/")
    got = Answers()
    async with aiohttp.ClientSession() as session:
        version_doc, v_err, server = await _get_json(session, base + "/version", timeout_s)
        models_doc, m_err, server2 = await _get_json(session, base + "/v1/models", timeout_s)
        got.server_header = server or server2
        scraped = await scrape(session, base, timeout_s=timeout_s)
        # the named or detected engine's own info route (its version: llama.cpp /props);
        # nothing named: each known engine's (one GET each)
        named = by_name(engine, engines) or detect_from_names(
            scraped.snapshot.values if scraped.snapshot else (), engines
        )
        asked = (named,) if named is not None else engines
        for route in dict.fromkeys(r for e in asked for r, _, _ in e.detect.routes):
            if route != "/version":
                got.routes[route], _, _ = await _get_json(session, base + route, timeout_s)
    fp = from_answers(
        version_doc, models_doc, scraped.snapshot, answers=got, engine=engine, engines=engines
    )
    notes = [
        f"GET {path}: {err}"
        for path, err in (("/version", v_err), ("/v1/models", m_err), ("/metrics", scraped.note))
        if err
    ]
    if fp.engine is None:
        notes.append("engine unknown: nothing the server answered names one (--engine NAME)")
    fp.note = "; ".join(notes) or None
    return fp, scraped.snapshot


def not_taken(engine: str | None = None) -> ServerFingerprint:
    """Official mode's: nothing asked; ``--engine`` still names the engine."""
    fp = ServerFingerprint(taken=False, note=NOT_TAKEN)
    if engine is not None:
        fp.engine, fp.engine_source = engine, "--engine"
    return fp
