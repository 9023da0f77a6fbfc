"""Values normalised, secrets redacted, and the ``config_id``: pure functions over plain data.

Engines report their settings as strings (Prometheus labels: ``"True"``, ``"0.90"``,
``"None"``); :func:`normalise` turns each into the JSON scalar it means, so
``"16"``, ``16`` and ``16.0`` are one value. :func:`config_id` hashes the canonical
settings: sorted keys, normalised values, unset values (``None``) and the defaults
an engine reports (:data:`KNOWN_DEFAULTS`) dropped, and what changes from one start
of the same configuration to the next left out (:func:`volatile`) — so two runs of
one configuration share an id, whatever the order or spelling of what was reported.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shlex
from collections.abc import Mapping

from harness.manifest.model import Scalar

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
REDACTED = "***"
ID_HEX = 16

# Settings vLLM (0.32) reports at these values when nothing set them (its CacheConfig
# defaults, seen in vllm:cache_config_info); dropped from the id, so a server that
# reports one more default is still the same configuration. Unset ones ("None") are
# dropped anyway.
_CACHE_DEFAULTS: dict[str, Scalar] = {
    "gpu_memory_utilization": 0.92,
    "cache_dtype": "auto",
    "is_attention_free": False,
    "enable_prefix_caching": True,
    "prefix_caching_hash_algo": "sha256",
    "prefix_cache_retention_interval": 0,
    "kv_cache_dtype_skip_layers": "[]",
    "mamba_cache_dtype": "auto",
    "mamba_ssm_cache_dtype": "auto",
    "mamba_cache_mode": "none",
    "enable_mamba_shared_prefix_checkpoint": False,
    "replayssm_buffer_len": 16,
    "use_replayssm": False,
    "use_kda_recoverssm": False,
    "kv_sharing_fast_prefill": False,
    "swa_bounded_replay": True,
    "kv_offloading_backend": "native",
    "_block_size_resolved": True,
}
KNOWN_DEFAULTS: dict[str, Scalar] = {f"cache_config.{k}": v for k, v in _CACHE_DEFAULTS.items()}

# Derived at start-up from the memory found free, not chosen: they move a little from
# one start of the same configuration to the next. Kept in settings, out of the id.
_DERIVED = tuple(
    f"cache_config.{key}"
    for key in (
        "num_gpu_blocks",
        "num_cpu_blocks",
        "kv_cache_size_tokens",
        "kv_cache_max_concurrency",
    )
)
# Where the launched server listened: another port is the same configuration.
_ADDRESS_FLAGS = ("--port", "--host")

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def normalise(value: object) -> Scalar:
    """The JSON scalar ``value`` means: booleans, integers (16.0 → 16), floats, or text.

    Strings are read the way engines write settings into labels: ``True``/``False``,
    ``None``/empty (unset), numbers; anything else is the stripped text. Lists and
    objects become their compact JSON text."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        s = value.strip()
        low = s.lower()
        if low in ("true", "false"):
            return low == "true"
        if low in ("none", "null", ""):
            return None
        if _INT.fullmatch(s):
            return int(s)
        if _FLOAT.fullmatch(s):
            return _number(float(s))
        return s
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _number(x: float) -> Scalar:
    if not math.isfinite(x):
        return str(x)  # JSON has no inf / nan
    if x.is_integer():
        return int(x)
    return float(f"{x:.12g}")  # 0.9000000000000001 and 0.9 are one setting


def is_secret(name: str) -> bool:
    """A name whose words (split at ``-``, ``_`` and the like) include one ending in a secret
    word: ``HF_TOKEN``, ``--api-key``, ``APIKEY``; not ``--max-num-batched-tokens`` nor
    ``TOKENIZERS_PARALLELISM`` (counts and settings, not secrets)."""
    words = re.split(r"[^A-Z0-9]+", name.upper())
    return any(word.endswith(SECRET_WORDS) for word in words if word)


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment with every secret-looking variable's value replaced by ``***``."""
    return {k: (REDACTED if is_secret(k) else v) for k, v in env.items()}


def redact_args(argv: list[str] | tuple[str, ...]) -> list[str]:
    """A command line with the value of every secret-looking flag (``--api-key X``) hidden."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
        elif arg.startswith("--") and "=" in arg and is_secret(arg.split("=", 1)[0]):
            out.append(arg.split("=", 1)[0] + "=" + REDACTED)
        elif arg.startswith("--") and is_secret(arg):
            out.append(arg)
            hide_next = True
        else:
            out.append(arg)
    return out


def flatten(section: str, doc: object, out: dict[str, Scalar], depth: int = 0) -> None:
    """A JSON document as flat ``section.key`` settings (nested objects joined with dots)."""
    if isinstance(doc, Mapping) and depth < 4:
        for key, value in doc.items():
            flatten(f"{section}.{key}", value, out, depth + 1)
    else:
        out[section] = normalise(doc)


def _id_argv(argv: str) -> str:
    """The launch command line without where it listened (``--port N``, ``--host H``)."""
    try:
        args = shlex.split(argv)
    except ValueError:
        return argv
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _ADDRESS_FLAGS:
            skip = True
            continue
        if arg.startswith(tuple(f + "=" for f in _ADDRESS_FLAGS)):
            continue
        out.append(arg)
    return shlex.join(out)


def volatile(key: str) -> bool:
    """A setting that changes between two starts of one configuration (not in the id)."""
    return key in _DERIVED or key.endswith((".instance_id", ".created"))


def canonical(settings: Mapping[str, Scalar]) -> dict[str, Scalar]:
    """The settings the id is made of: normalised, sorted, unset / default / volatile dropped."""
    out: dict[str, Scalar] = {}
    for key in sorted(settings):
        value = normalise(settings[key])
        if value is None or volatile(key):
            continue
        default = KNOWN_DEFAULTS.get(key)
        if key in KNOWN_DEFAULTS and type(default) is type(value) and default == value:
            continue
        if key == "launch.argv" and isinstance(value, str):
            value = _id_argv(value)
        out[key] = value
    return out


def config_id(settings: Mapping[str, Scalar]) -> str:
    """A short hex hash of the canonical settings: equal for two runs of one configuration."""
    blob = json.dumps(canonical(settings), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:ID_HEX]
