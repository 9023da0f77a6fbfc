"""The ``package`` kind: ``docker save`` → image.tar.gz → inspected and judged (``package.json``).

The gate runs it on ``--image`` before the image is started. Its core (and with it the
Docker SDK) is named by reference and imported only when it runs, so judging a folder
never imports docker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.image import views as image_views
from harness.image.config import PackageConfig, PackageOverrides, from_profile
from harness.image.gate_rules import package_rules
from harness.image.report import PackageReport
from harness.kinds.record import GateInputs, KindConsole, KindImage, MeasurementKind
from harness.profiles import Profile
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.image.hooks import PackageHooks


def rules(report: PackageReport, inputs: GateInputs) -> Judgement:
    return package_rules(report)


def required(profile: Profile, image: bool) -> bool:
    return image  # judged whenever present; required when the gate packaged the image


# The core, its hooks and the console by reference, imported when first used
# (harness/kinds/lazy.py).
KIND: MeasurementKind[PackageConfig, PackageOverrides, PackageReport, PackageHooks] = (
    MeasurementKind(
        name="package",
        command=("package",),
        report=PackageReport,
        overrides=PackageOverrides,
        from_profile=from_profile,
        run="harness.image.core:run",
        exit_code="harness.image.core:exit_code",
        silent_hooks="harness.image.hooks:NO_HOOKS",
        required=required,
        rules=rules,
        gate_step="image",
        console=KindConsole(
            hooks="harness.image.console:console_hooks",
            render="harness.image.console:render_with_path",
        ),
        views=image_views.sections,
        image=KindImage(serve="harness.image.serve:serve", identify="harness.image.serve:identify"),
    )
)
