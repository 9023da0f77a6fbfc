"""What ``gate --image`` records of the container it ran, for the manifest (docs/manifest.md).

The image's id and repository digest, its entrypoint, command and environment, as the
engine's inspection gives them; values of secret-looking variables are redacted when
the manifest is built.
"""

from __future__ import annotations

import json
from typing import Any

from harness.manifest.model import Launched, Scalar

BY = "harness gate --image"


def _env(pairs: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs if isinstance(pairs, list) else []:
        name, _, value = str(pair).partition("=")
        out[name] = value
    return out


def _args(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def image_launch(image: str, container: dict[str, Any], image_attrs: dict[str, Any]) -> Launched:
    """Pure: the launch record from ``docker inspect`` of the container and of its image."""
    config = container.get("Config") or {}
    entrypoint, cmd = _args(config.get("Entrypoint")), _args(config.get("Cmd"))
    digests = image_attrs.get("RepoDigests")
    info: dict[str, Scalar] = {
        "ref": image,
        "id": str(container.get("Image") or image_attrs.get("Id") or "") or None,
        "digest": ",".join(sorted(str(d) for d in digests)) if digests else None,
        "entrypoint": json.dumps(entrypoint),
        "cmd": json.dumps(cmd),
        "platform": "/".join(
            str(image_attrs[k]) for k in ("Os", "Architecture") if image_attrs.get(k)
        )
        or None,
    }
    return Launched(
        by=BY,
        argv=(*entrypoint, *cmd),
        env=_env(config.get("Env")),
        image={k: v for k, v in info.items() if v is not None},
    )
