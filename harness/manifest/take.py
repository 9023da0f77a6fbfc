"""Taking the manifest: four GETs a grader never sends, plus what the launcher knows.

``/version``, ``/v1/models``, ``/metrics`` and ``/server_info``, each with a short
timeout; a missing or unreadable answer is a line in ``sources``, never an error.
Callers take it outside the timed requests only (docs/manifest.md, "When").
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from harness.client.body import BodyTooLarge, read_body
from harness.engines.registry import ENGINES
from harness.manifest import sources
from harness.manifest.canonical import config_id
from harness.manifest.model import Launched, Manifest, Scalar, Taken
from harness.manifest.sources import CONFIG_DOCS

_BODY_MAX = 16 * 1024 * 1024
# vLLM's /server_info (served with VLLM_SERVER_DEV_MODE=1) gives its config as JSON when asked
# Each engine's own configuration route (harness/engines/: llama.cpp /props, TGI /info,
# SGLang /get_server_info), asked after those: a 404 is a note, as for /server_info.
_ENGINE_PATHS = tuple(
    dict.fromkeys(r for e in ENGINES for r in e.config_routes if r in CONFIG_DOCS)
)
_PATHS = (
    ("/version", ""),
    ("/v1/models", ""),
    ("/metrics", ""),
    ("/server_info", "?config_format=json"),
    *((path, "") for path in _ENGINE_PATHS),
)


async def _get(
    session: aiohttp.ClientSession, url: str, timeout_s: float
) -> tuple[str | None, str]:
    """(body text, "answered") or (None, why not)."""
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            if resp.status != 200:
                return None, f"HTTP {resp.status}"
            raw = await read_body(resp, _BODY_MAX)
    except BodyTooLarge as err:
        return None, str(err)
    except (aiohttp.ClientError, TimeoutError) as err:
        return None, f"failed: {type(err).__name__}"
    return raw.decode("utf-8", "replace"), "answered"


def _json(text: str | None) -> tuple[Any, str | None]:
    if text is None:
        return None, None
    try:
        return json.loads(text), None
    except ValueError:
        return None, "not JSON"


def build(
    answers: dict[str, str | None],
    notes: dict[str, str],
    launched: Launched | None,
    *,
    taken: Taken,
    url: str | None,
) -> Manifest:
    """Pure: the manifest from the endpoints' bodies (None where there was none)."""
    settings: dict[str, Scalar] = {}
    why = dict(notes)
    for path, parse in (
        ("/version", sources.from_version),
        ("/v1/models", sources.from_models),
        ("/server_info", sources.from_server_info),
    ):
        doc, bad = _json(answers.get(path))
        if bad:
            why[path] = bad
        settings.update(parse(doc))
    for path in _ENGINE_PATHS:
        doc, bad = _json(answers.get(path))
        if bad:
            why[path] = bad
        settings.update(sources.from_engine_doc(path, doc))
    text = answers.get("/metrics")
    if text is not None:
        try:
            info = sources.from_metrics_text(text)
        except ValueError as err:
            why["/metrics"] = f"not Prometheus text ({str(err)[:80]})"
        else:
            settings.update(info)
            why["/metrics"] = f"{sources.info_metric_count(info)} *_info metric(s)"
            settings.update(sources.engine_from_names(text))
    if launched is not None:
        settings.update(sources.from_launch(launched))
        why["launch"] = launched.by
    return Manifest(
        config_id=config_id(settings), settings=settings, sources=why, taken=taken, url=url
    )


async def take_manifest(
    session: aiohttp.ClientSession,
    base_url: str,
    launched: Launched | None = None,
    *,
    taken: Taken = "before",
    timeout_s: float = 10.0,
) -> Manifest:
    """GET what the server tells about itself and build the manifest (never raises on a
    missing endpoint: ``sources`` says what answered)."""
    base = base_url.rstrip("/")
    answers: dict[str, str | None] = {}
    notes: dict[str, str] = {}
    for path, query in _PATHS:
        answers[path], notes[path] = await _get(session, base + path + query, timeout_s)
    return build(answers, notes, launched, taken=taken, url=base)
