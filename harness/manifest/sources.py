"""What each source says, as flat settings: pure functions over the answers (docs/manifest.md).

- ``/version`` → ``server.version``;
- ``/v1/models`` → ``server.models`` (the served ids, sorted, comma-joined),
  ``server.max_model_len``, ``server.owned_by``;
- ``/metrics``: every ``*_info`` gauge (an engine's configuration in its labels, e.g.
  vLLM's ``vllm:cache_config_info``) → ``<section>.<label>``, the section being the
  metric's name less ``_info`` and less vLLM's ``vllm:`` prefix (other prefixes keep
  their name, ``:`` written ``_``): ``cache_config.enable_prefix_caching``;
- ``/server_info`` (where a server exposes it) → ``server_info.<key>``, nested keys joined;
- an engine's own configuration route (harness/engines/): llama.cpp ``/props`` →
  ``props.<key>``, TGI ``/info`` → ``info.<key>``, SGLang ``/get_server_info`` →
  ``get_server_info.<key>`` (its running state left out); and ``server.engine``, the
  engine whose names ``/metrics`` carries;
- a launch → ``launch.by``, ``launch.argv`` (one shell-quoted line), ``launch.env.<NAME>``
  (secrets redacted) and ``image.<key>``.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from harness.engines.read import detect_from_names
from harness.manifest.canonical import flatten, normalise, redact_args, redact_env
from harness.manifest.model import Launched, Scalar

# *_info metrics whose labels change while the server runs: state, not configuration
DYNAMIC_INFO = ("vllm:lora_requests_info",)
# the label naming which engine (an index) a sample belongs to: not a setting
ENGINE_INDEX = "engine"


def from_version(doc: Any) -> dict[str, Scalar]:
    if isinstance(doc, dict) and isinstance(doc.get("version"), str):
        return {"server.version": doc["version"]}
    return {}


def from_models(doc: Any) -> dict[str, Scalar]:
    data = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(data, list):
        return {}
    rows = [m for m in data if isinstance(m, dict)]
    out: dict[str, Scalar] = {
        "server.models": ",".join(sorted(str(m["id"]) for m in rows if "id" in m))
    }
    lens = [m["max_model_len"] for m in rows if isinstance(m.get("max_model_len"), int)]
    if lens:
        out["server.max_model_len"] = max(lens)
    owners = sorted({str(m["owned_by"]) for m in rows if m.get("owned_by")})
    if owners:
        out["server.owned_by"] = ",".join(owners)
    return out


def section_of(metric: str) -> str:
    """``vllm:cache_config_info`` → ``cache_config``; ``harness_sim:config_info`` →
    ``harness_sim_config``; ``python_info`` → ``python``."""
    name = metric.removesuffix("_info")
    name = name.removeprefix("vllm:")
    return name.replace(":", "_")


def from_metrics_text(text: str) -> dict[str, Scalar]:
    """Every configuration ``*_info`` gauge in a Prometheus text exposition, as settings.

    One sample per metric is read (the first engine's: engines of one server share a
    configuration). Raises ValueError on text prometheus_client's parser cannot read."""
    first: dict[str, dict[str, str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.endswith("_info"):
                first.setdefault(sample.name, dict(sample.labels))
    return info_settings(first)


def info_settings(info: Mapping[str, Mapping[str, str]]) -> dict[str, Scalar]:
    """``*_info`` metrics' labels (metric → labels, e.g. ``MetricsSnapshot.info``) as
    settings: ``<section>.<label>``, state metrics (:data:`DYNAMIC_INFO`) left out, and
    ``engine="0"``-style index labels dropped."""
    out: dict[str, Scalar] = {}
    for name, labels in sorted(info.items()):
        if not name.endswith("_info") or name in DYNAMIC_INFO:
            continue
        section = section_of(name)
        for label, value in sorted(labels.items()):
            if label == ENGINE_INDEX and value.isdigit():
                continue
            out[f"{section}.{label}"] = normalise(value)
    return out


def info_metric_count(settings: dict[str, Scalar]) -> int:
    return len({k.split(".", 1)[0] for k in settings})


def from_server_info(doc: Any) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {}
    if isinstance(doc, dict):
        flatten("server_info", doc, out)
    return out


# engine route → its section and the keys that are running state, not configuration
CONFIG_DOCS: dict[str, tuple[str, tuple[str, ...]]] = {
    "/props": ("props", ("is_sleeping",)),
    "/info": ("info", ()),
    "/get_server_info": ("get_server_info", ("internal_states",)),
}


def from_engine_doc(path: str, doc: Any) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {}
    if isinstance(doc, dict) and path in CONFIG_DOCS:
        section, state = CONFIG_DOCS[path]
        flatten(section, {k: v for k, v in doc.items() if k not in state}, out)
    return out


def engine_from_names(text: str) -> dict[str, Scalar]:
    """``server.engine``: the engine whose metric prefix the exposition's names carry."""
    names = [s.name for f in text_string_to_metric_families(text) for s in f.samples]
    found = detect_from_names(names)
    return {"server.engine": found.name} if found is not None else {}


def from_launch(launched: Launched) -> dict[str, Scalar]:
    out: dict[str, Scalar] = {"launch.by": launched.by}
    if launched.argv:
        out["launch.argv"] = shlex.join(redact_args(launched.argv))
    for name, value in sorted(redact_env(launched.env).items()):
        out[f"launch.env.{name}"] = value  # text as given: "4" stays "4"
    for key, item in sorted(launched.image.items()):
        out[f"image.{key}"] = normalise(item)
    return out
