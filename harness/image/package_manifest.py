"""``harness package``'s ``manifest.json``: what the image is, from its archive (pure).

No server runs here, so there is nothing the server tells: the settings are what the
archive's config and layers say (docs/manifest.md, "Sources"):

- ``image.id`` (the config's SHA-256, the id Docker and Podman show), ``image.entrypoint``
  and ``image.cmd`` (JSON lists, as ``gate --image`` writes them), ``image.platform``,
  ``image.env.<NAME>`` (secret-looking values redacted);
- ``model.weights_id`` (harness/manifest/weights.py), ``model.files`` (safetensors files
  under the model folder), ``model.parameters`` (summed over their headers).

``gate --image`` packages first into its own folder: the ``model.*`` settings stay when
its launch manifest is taken (harness/manifest/record.py: ``keep_launch``).
"""

from __future__ import annotations

import json
from typing import Any

from harness.image.report import PackageReport
from harness.manifest.canonical import config_id, normalise, redact_env
from harness.manifest.model import Manifest, Scalar

ARCHIVE = "archive"  # the sources key: the archive's file name
MODEL = "model"  # the sources key: how many headers were read, or why there is no id


def _env(config: dict[str, Any]) -> dict[str, str]:
    inner = config.get("config") or config.get("Config") or {}
    out: dict[str, str] = {}
    for pair in inner.get("Env") or []:
        name, _, value = str(pair).partition("=")
        out[name] = value
    return out


def safetensors_count(report: PackageReport) -> int:
    return sum(1 for p in report.model_files if p.endswith(".safetensors"))


def package_settings(
    report: PackageReport, config: dict[str, Any], image_id: str | None
) -> dict[str, Scalar]:
    """The flat settings of the package's manifest; unknown values left out."""
    values: dict[str, Scalar] = {
        "image.id": image_id,
        "image.entrypoint": json.dumps(report.entrypoint),
        "image.cmd": json.dumps(report.cmd),
        "image.platform": report.platform,
    }
    for name, value in sorted(redact_env(_env(config)).items()):
        values[f"image.env.{name}"] = value  # text as given: "1" stays "1"
    values["model.weights_id"] = report.weights_id
    values["model.files"] = safetensors_count(report)
    values["model.parameters"] = report.parameters
    return {
        k: (v if k.startswith("image.env.") else normalise(v))
        for k, v in values.items()
        if v is not None
    }


def package_manifest(
    report: PackageReport, config: dict[str, Any], image_id: str | None
) -> Manifest:
    """The manifest ``harness package`` writes beside ``package.json`` (taken ``after``)."""
    settings = package_settings(report, config, image_id)
    count = safetensors_count(report)
    model = (
        f"{count} safetensors header(s)"
        if report.weights_id
        else report.weights_note or "no weights id"
    )
    return Manifest(
        config_id=config_id(settings),
        settings=settings,
        sources={ARCHIVE: report.archive, MODEL: model},
        taken="after",
        url=None,  # no server: the archive is named in sources
    )
