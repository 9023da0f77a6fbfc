"""The one ordered registry of measurement kinds.

The order is the order of the gate's steps, of its verdict's lines, of the
reports ``harness report`` reads and of ``compare``'s sections. A new
measurement is one record in its package (``harness/<pkg>/kind.py``) and one
line here.

Layering: the registry sits above the measurement packages (it imports each one's
record) and below the gate, ``compare`` and the report reader, which iterate it; the
record type it lists is ``harness/kinds/record.py``, below every package
(tests/unit/test_layering.py).
"""

from __future__ import annotations

from typing import Any

from harness.audit.kind import KIND as AUDIT
from harness.conformance.kind import KIND as CHECK
from harness.errors import UsageError
from harness.image.kind import KIND as PACKAGE
from harness.kinds.record import KindImage, MeasurementKind
from harness.latency.kind import KIND as LATENCY
from harness.quality.kind import KIND as QUALITY
from harness.throughput.kind import KIND as THROUGHPUT
from harness.vlm.kind import KIND as VLM

AnyKind = MeasurementKind[Any, Any, Any, Any]

KINDS: tuple[AnyKind, ...] = (CHECK, LATENCY, THROUGHPUT, QUALITY, AUDIT, PACKAGE, VLM)


def kind_named(name: str) -> AnyKind:
    for kind in KINDS:
        if kind.name == name:
            return kind
    raise UsageError(
        f"no measurement kind {name!r}", hint=f"kinds: {', '.join(k.name for k in KINDS)}"
    )


def names(kinds: tuple[AnyKind, ...] = KINDS) -> list[str]:
    return [k.name for k in kinds]


def engine_kind() -> tuple[AnyKind, KindImage]:
    """The kind whose record drives the container engine, with that facet (``image``: it
    packages images and starts them for ``gate --image``)."""
    return next((k, k.image) for k in KINDS if k.image is not None)
