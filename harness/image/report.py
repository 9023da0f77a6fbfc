"""``package.json``: what ``harness package`` found in the archive and how its rules judged it.

Kept apart from the package core (which imports the Docker SDK): the gate and
the report reader read this file without importing docker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from harness.image.preflight import SizeBreakdown
from harness.image.rules import RuleResult, failed
from harness.report_base import Migration, Report, load_report

STARTS = "starts"  # the rule gate --image adds when the engine cannot start the image
NOT_RECORDED = "not recorded (package.json schema 1)"


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 added ``weights_id`` and ``weights_note``: unknown in a schema-1 report."""
    data.setdefault("weights_id", None)
    data.setdefault("weights_note", NOT_RECORDED)
    return data


class PackageReport(Report):
    SCHEMA_VERSION: ClassVar[int] = 2
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2}
    FILENAME = "package.json"
    kind: str = "package"
    image: str | None = None
    image_id: str | None = None
    archive: str  # file name only: reports never carry machine paths
    sha256: str
    compressed_bytes: int
    tar_bytes: int | None = None
    seconds: float | None = None
    mb_per_s: float | None = None
    compressor: str | None = None
    level: int | None = None
    layout: str
    layer_count: int
    tags: list[str]
    entrypoint: list[str]
    cmd: list[str]
    exposed_ports: list[str]
    env_names: list[str]  # names only: env values can hold tokens
    model_files: dict[str, int]
    parameters: int | None
    # the model files' identity (harness/manifest/weights.py): 16 hex digits over each
    # safetensors file's path under the model folder and its header's SHA-256; None with why
    weights_id: str | None = None
    weights_note: str = ""
    rules: list[RuleResult]
    passed: bool
    platform: str | None = None  # os/architecture from the image config
    sizes: SizeBreakdown | None = None  # pre-flight: per layer, per directory, with hints

    def failures(self) -> list[RuleResult]:
        return failed(self.rules)

    def did_not_start(self, why: str) -> None:
        """``gate --image`` could not start the image: the ``starts`` rule fails with why."""
        self.rules = [r for r in self.rules if r.rule != STARTS]
        self.rules.append(RuleResult(rule=STARTS, status="fail", detail=why))
        self.passed = False


def record_did_not_start(folder: Path, why: str) -> bool:
    """``folder``'s report gets the failed ``starts`` rule; False when there is no report
    (the package step failed already, and said why)."""
    report = load_report(folder, PackageReport)
    if report is None:
        return False
    report.did_not_start(why)
    report.save(folder)
    return True
