"""The identity of an image's model files: their weights id, or why there is none (pure).

``harness package`` reads every safetensors header under the profile's model folder as
the archive streams by (harness/image/archive.py); what survives the layers' whiteouts is
identified by :func:`harness.manifest.weights.weights_id` over each file's path relative
to the model folder and its header's SHA-256, the same id ``harness vlm`` computes for a
folder on disk. One unreadable header leaves the id unknown: an id over the readable
files alone would name other model files than the image holds.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from harness.manifest.weights import SUFFIX, weights_id

# path (absolute, in the image) -> (its header's SHA-256 or None, why it is unreadable or None)
Headers = Mapping[str, tuple[str | None, str | None]]


@dataclass(frozen=True)
class ModelIdentity:
    weights_id: str | None  # 16 hex digits; None: see ``note``
    files: int  # safetensors files under the model folder
    note: str = ""  # why there is no id ("" when there is one)


def relative(path: str, model_dir: str) -> str:
    """``/opt/ml/model/sub/a.safetensors`` → ``sub/a.safetensors`` for ``/opt/ml/model``."""
    root = "/" + posixpath.normpath("/" + model_dir).strip("/")
    return posixpath.relpath("/" + path.lstrip("/"), root)


def model_identity(headers: Headers, model_dir: str) -> ModelIdentity:
    """The weights id of the ``*.safetensors`` among ``headers`` (the model folder's files)."""
    found = {p: h for p, h in headers.items() if p.endswith(SUFFIX)}
    if not found:
        return ModelIdentity(None, 0, f"no safetensors files under {model_dir.rstrip('/')}")
    bad = sorted(p for p, (sha, _) in found.items() if sha is None)
    if bad:
        why = found[bad[0]][1] or "unreadable"
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        return ModelIdentity(None, len(found), f"header unreadable: {bad[0]}: {why}{more}")
    digests = {relative(p, model_dir): sha for p, (sha, _) in found.items() if sha is not None}
    return ModelIdentity(weights_id(digests), len(found))
