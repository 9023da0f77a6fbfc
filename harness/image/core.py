"""``harness package`` core: save → inspect → judge → :class:`PackageReport`.

The only image module the package step needs that imports the Docker SDK (with
``engine.py``, ``save.py`` and ``run.py``): the kind record imports it when it runs.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import docker

from harness.errors import EXIT_FAIL, EXIT_OK
from harness.image.archive import inspect_archive
from harness.image.config import PackageConfig
from harness.image.engine import connect
from harness.image.hooks import PackageHooks
from harness.image.package_manifest import package_manifest
from harness.image.preflight import platform_rule, size_breakdown
from harness.image.report import PackageReport
from harness.image.rules import ImageFacts, facts_from_config, failed, judge
from harness.image.save import Progress, SaveResult, save_image
from harness.kinds.record import RunEnv
from harness.manifest.model import Manifest


@dataclass(frozen=True)
class Packaged:
    """The verdict (``package.json``) and what the image is (``manifest.json``)."""

    report: PackageReport
    manifest: Manifest


def build_report(cfg: PackageConfig, saved: SaveResult | None) -> Packaged:
    """Inspect ``cfg.archive`` and judge it; ``saved`` carries the save figures when we made it."""
    sha = hashlib.sha256()  # of an archive we did not write: taken in the inspection's one read
    contents = inspect_archive(
        cfg.archive, model_dir=cfg.spec.model_dir, on_block=None if saved else sha.update
    )
    size = saved.compressed_bytes if saved else cfg.archive.stat().st_size
    facts: ImageFacts = facts_from_config(
        filename=cfg.archive.name,
        compressed_bytes=size,
        tags=contents.tags,
        config=contents.config,
        model_files=contents.model_files,
        tree=contents.tree,
    )
    # the platform first: an arm64 image fails on the grader whatever else is right
    rules = [platform_rule(contents.config), *judge(facts, cfg.spec)]
    report = PackageReport(
        image=cfg.image,
        image_id=saved.image_id if saved else None,
        archive=cfg.archive.name,
        sha256=saved.sha256 if saved else sha.hexdigest(),
        compressed_bytes=size,
        tar_bytes=saved.tar_bytes if saved else None,
        seconds=round(saved.seconds, 3) if saved else None,
        mb_per_s=round(saved.mb_per_s, 1) if saved else None,
        compressor=saved.compressor if saved else None,
        level=cfg.level if saved else None,
        layout=contents.layout,
        layer_count=contents.layer_count,
        tags=facts.tags,
        entrypoint=facts.entrypoint,
        cmd=facts.cmd,
        exposed_ports=facts.exposed_ports,
        env_names=[e.split("=", 1)[0] for e in facts.env],
        model_files=facts.model_files,
        parameters=facts.parameters,
        weights_id=contents.weights_id,
        weights_note=contents.weights_note,
        rules=rules,
        passed=not failed(rules),
        platform="/".join(
            str(contents.config.get(k)) for k in ("os", "architecture") if contents.config.get(k)
        )
        or None,
        sizes=size_breakdown(contents, cfg.spec.model_dir),
    )
    return Packaged(report, package_manifest(report, contents.config, contents.config_digest))


def package(
    cfg: PackageConfig, client: docker.DockerClient | None, progress: Progress | None = None
) -> Packaged:
    saved = None
    if cfg.image is not None:
        assert client is not None
        saved = save_image(
            client,
            cfg.image,
            cfg.archive,
            level=cfg.level,
            compressor=cfg.compressor,
            threads=cfg.threads,
            progress=progress,
        )
    return build_report(cfg, saved)


def run(cfg: PackageConfig, env: RunEnv[PackageHooks]) -> PackageReport:
    """The kind record's core (harness/kinds/record.py: ``run``): save (when ``cfg.image``),
    inspect and judge; ``package.json`` and ``manifest.json`` (what the image is:
    docs/manifest.md) saved in the folder."""
    client = connect(cfg.docker_host) if cfg.image else None
    try:
        packaged = package(cfg, client, env.hooks.bytes)
    finally:
        if client is not None:
            client.close()
    report = packaged.report
    report.provenance = env.provenance
    report.save(env.folder)
    packaged.manifest.save(env.folder)
    return report


def exit_code(report: PackageReport) -> int:
    return EXIT_OK if report.passed else EXIT_FAIL
