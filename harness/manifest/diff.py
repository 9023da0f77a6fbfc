"""What changed between two manifests' settings: pure, one line of text per change.

Settings are compared in their canonical form (harness/manifest/canonical.py), so
two runs with equal ``config_id`` have no change and a different id has at least one.
A setting one side reports at its known default and the other does not mention is
shown with the default. The text names a setting by its key less the section
(``enable_prefix_caching false → true``) unless two sections share that key.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping

from harness.manifest.canonical import KNOWN_DEFAULTS, canonical, normalise
from harness.manifest.model import Change, Scalar

ABSENT = "—"
_TEXT_MAX = 80


def show(value: Scalar) -> str:
    """A value as the text shows it: ``true``, ``16``, ``0.9``, ``auto``."""
    if isinstance(value, str):
        return value if len(value) <= _TEXT_MAX else value[: _TEXT_MAX - 1] + "…"
    return json.dumps(value)


def _short(key: str, keys: set[str]) -> str:
    tail = key.split(".", 1)[-1]
    clash = any(k != key and k.split(".", 1)[-1] == tail for k in keys)
    return key if clash else tail


def _argv_text(name: str, a: str, b: str) -> str:
    """Two command lines: the arguments only one of them has."""
    try:
        ta, tb = shlex.split(a), shlex.split(b)
    except ValueError:
        return f"{name} changed"
    gone = [t for t in ta if t not in tb]
    new = [t for t in tb if t not in ta]
    if not gone and not new:
        return f"{name}: the same arguments, reordered"
    parts = ([f"removed {shlex.join(gone)}"] if gone else []) + (
        [f"added {shlex.join(new)}"] if new else []
    )
    return f"{name}: " + "; ".join(parts)


def diff_settings(a: Mapping[str, Scalar], b: Mapping[str, Scalar]) -> list[Change]:
    """Every setting whose canonical value differs between ``a`` and ``b``, sorted by key."""
    ca, cb = canonical(a), canonical(b)
    keys = set(ca) | set(cb)
    out: list[Change] = []
    for key in sorted(keys):
        if (key in ca) == (key in cb) and json.dumps(ca.get(key)) == json.dumps(cb.get(key)):
            continue
        raw_a, raw_b = normalise(a.get(key)), normalise(b.get(key))
        in_a, in_b = raw_a is not None, raw_b is not None
        va = raw_a if in_a else KNOWN_DEFAULTS.get(key)
        vb = raw_b if in_b else KNOWN_DEFAULTS.get(key)
        known_a, known_b = in_a or key in KNOWN_DEFAULTS, in_b or key in KNOWN_DEFAULTS
        name = _short(key, keys)
        if key == "launch.argv" and isinstance(va, str) and isinstance(vb, str):
            text = _argv_text(name, str(ca.get(key, va)), str(cb.get(key, vb)))
        else:
            left = show(va) if known_a else ABSENT
            right = show(vb) if known_b else ABSENT
            text = f"{name} {left} → {right}"
        out.append(Change(key=key, a=va, b=vb, in_a=in_a, in_b=in_b, text=text))
    return out
