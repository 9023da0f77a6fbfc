"""The ``package`` kind: ``docker save`` → image.tar.gz → inspected and judged (``package.json``).

The gate runs it on ``--image`` before the image is started. The Docker SDK is
imported only when it runs, so judging a folder never imports docker.
"""

from __future__ import annotations

from rich.console import Console

from harness.errors import EXIT_FAIL, EXIT_OK
from harness.image import views as image_views
from harness.image.config import PackageConfig, PackageOverrides, from_profile
from harness.image.console import ConsoleHooks, render_with_path
from harness.image.gate_rules import package_rules
from harness.image.hooks import NO_HOOKS, PackageHooks
from harness.image.report import PackageReport
from harness.kinds.record import GateInputs, KindConsole, MeasurementKind, RunEnv
from harness.profiles import Profile
from harness.verdict import Judgement


def run(cfg: PackageConfig, env: RunEnv[PackageHooks]) -> PackageReport:
    """Save (when ``cfg.image``), inspect and judge; ``package.json`` and ``manifest.json``
    (what the image is: docs/manifest.md) saved in the folder."""
    from harness.image.core import package
    from harness.image.engine import connect

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


def silent_hooks() -> PackageHooks:
    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> PackageHooks:
    return ConsoleHooks(console)


def exit_code(report: PackageReport) -> int:
    return EXIT_OK if report.passed else EXIT_FAIL


def rules(report: PackageReport, inputs: GateInputs) -> Judgement:
    return package_rules(report)


def required(profile: Profile, image: bool) -> bool:
    return image  # judged whenever present; required when the gate packaged the image


KIND: MeasurementKind[PackageConfig, PackageOverrides, PackageReport, PackageHooks] = (
    MeasurementKind(
        name="package",
        command=("package",),
        report=PackageReport,
        overrides=PackageOverrides,
        from_profile=from_profile,
        run=run,
        exit_code=exit_code,
        silent_hooks=silent_hooks,
        required=required,
        rules=rules,
        gate_step="image",
        console=KindConsole(hooks=console_hooks, render=render_with_path),
        views=image_views.sections,
    )
)
