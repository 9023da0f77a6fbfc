"""The engines harness knows, in one ordered tuple (the list above the records).

A new engine is one module holding its :class:`EngineRecord` and one line here.
Detection tries them in this order; every function that looks an engine up takes the
tuple as a parameter (default :data:`ENGINES`), so a test can add a test-only engine
without touching this list.
"""

from __future__ import annotations

from harness.engines import llamacpp, lmdeploy, mistralrs, sglang, tgi, trtllm, vllm
from harness.engines.record import EngineRecord

ENGINES: tuple[EngineRecord, ...] = (
    vllm.RECORD,
    sglang.RECORD,
    trtllm.RECORD,
    lmdeploy.RECORD,
    tgi.RECORD,
    llamacpp.RECORD,
    mistralrs.RECORD,
)


def names(engines: tuple[EngineRecord, ...] = ENGINES) -> tuple[str, ...]:
    return tuple(e.name for e in engines)


def by_name(name: str | None, engines: tuple[EngineRecord, ...] = ENGINES) -> EngineRecord | None:
    """The record called exactly ``name`` (exact names, no prefix matching); None if none."""
    return next((e for e in engines if e.name == name), None)
