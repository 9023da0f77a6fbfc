"""Which image a gate verdict is about, recorded in ``gate.json`` → ``image_id``.

``gate --image NAME`` knows it (the package step records the id in package.json).
A server gated by URL is tied to an image with ``--image-id ID_OR_NAME``: an id
(``sha256:…``, or 12+ hex digits) is taken as given; a name is looked up in the
container engine (``--docker-host`` / ``$DOCKER_HOST``). ``harness submit`` looks
for these records (docs/submit.md, "Submit what was gated"; harness/gate/records.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.argtypes import image_ref
from harness.errors import HarnessError, UsageError
from harness.flags import option
from harness.gate.report import GateReport
from harness.overrides import Overrides
from harness.registry import KINDS, engine_kind
from harness.report_base import Report
from harness.submit.gated import bare_id, is_image_id


@dataclass(frozen=True)
class GateImageOverrides(Overrides):
    """The gate's own option naming the image a URL (or a run folder) was measured from."""

    COMMAND = "gate"

    image_id: str | None = option(
        "--image-id",
        type=image_ref,
        metavar="ID_OR_NAME",
        help="the image the server runs (an id, or a name the container engine knows);"
        " recorded in gate.json so `harness submit` of that image finds this verdict"
        " (default: the id of --image; none for --url)",
    )


def resolve_image_id(given: str, options: Mapping[str, object]) -> str:
    """``given`` as a full ``sha256:…`` id: an id is kept, a name is looked up in the engine
    of the kind that packages images (its record's ``image`` facet), under the gate's options."""
    if is_image_id(given):
        return "sha256:" + bare_id(given)
    kind, engine = engine_kind()
    try:
        found = engine.image_id(given, kind.overrides.from_gate(options))
    except HarnessError as err:
        raise UsageError(
            f"--image-id {given}: not an image id, and the container engine cannot name its id"
            f" ({err.message})",
            hint="pass the id itself: docker image inspect --format '{{.Id}}' " + given,
        ) from None
    return "sha256:" + bare_id(found)


def judged_image_id(folder: Path, given: str | None) -> str | None:
    """The id to record: ``--image-id`` (resolved), else package.json's (``gate --image``),
    else what an earlier gate.json of this folder recorded (``gate RUN_DIR`` again)."""
    if given:
        return given
    # the reports that record the image they are about (package.json), then the verdict's
    reads: list[type[Report]] = [k.report for k in KINDS if "image_id" in k.report.model_fields]
    reads.append(GateReport)
    for read in reads:
        if (folder / read.FILENAME).exists():
            try:
                found = getattr(read.load(folder), "image_id", None)
            except HarnessError:
                continue  # an unreadable report: judged (and said) by the gate itself
            if isinstance(found, str) and found:
                return found
    return None
