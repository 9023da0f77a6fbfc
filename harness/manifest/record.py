"""Taking the manifest and saving it into a run folder, as the cores and launchers do.

A launch (``Launched``) is known only to whoever started the server (demo, gate
--image, a tuner); a later take by a core, which knows no launch, keeps the launch
settings already recorded in the folder, so the order of the two does not matter.
"""

from __future__ import annotations

from pathlib import Path

import aiohttp

from harness.errors import ConfigError
from harness.manifest.canonical import config_id
from harness.manifest.model import Launched, Manifest, Scalar, Taken, load_manifest
from harness.manifest.take import take_manifest

LAUNCH_SECTIONS = ("launch.", "image.")
# what ``harness package`` read of the image's model files (gate --image packages first)
MODEL_SECTIONS = ("model.",)
_KEPT = ((LAUNCH_SECTIONS, ("launch",)), (MODEL_SECTIONS, ("model", "archive")))


def keep_launch(new: Manifest, old: Manifest | None) -> Manifest:
    """``new`` with the launch and image settings of ``old`` where ``new`` has none, and
    likewise the model settings (pure)."""
    if old is None:
        return new
    kept: dict[str, Scalar] = {}
    sources: dict[str, str] = {}
    for sections, source_keys in _KEPT:
        if any(k.startswith(sections) for k in new.settings):
            continue
        found = {k: v for k, v in old.settings.items() if k.startswith(sections)}
        if found:
            kept.update(found)
            sources.update({s: old.sources[s] for s in source_keys if s in old.sources})
    if not kept:
        return new
    settings = {**new.settings, **kept}
    return new.model_copy(
        update={
            "settings": settings,
            "sources": {**new.sources, **sources},
            "config_id": config_id(settings),
        }
    )


async def record_manifest(
    folder: Path,
    url: str,
    *,
    taken: Taken,
    launched: Launched | None = None,
    timeout_s: float = 10.0,
) -> Manifest:
    """Take the manifest of the server at ``url`` and save ``folder/manifest.json``."""
    async with aiohttp.ClientSession() as session:
        manifest = await take_manifest(session, url, launched, taken=taken, timeout_s=timeout_s)
    try:
        old = load_manifest(folder)
    except ConfigError:
        old = None  # an unreadable earlier manifest is replaced, not merged
    manifest = keep_launch(manifest, old)
    manifest.save(folder)
    return manifest


def adopt_manifest(folder: Path, sub: str) -> Manifest | None:
    """The manifest of ``folder/sub`` (a repetition's) as ``folder``'s own, if there is one."""
    try:
        found, old = load_manifest(folder / sub), load_manifest(folder)
    except ConfigError:
        return None
    if found is None:
        return None
    manifest = keep_launch(found, old)
    manifest.save(folder)
    return manifest
