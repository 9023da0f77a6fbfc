"""A ``"module:attribute"`` reference, imported when first used.

A kind record names its heavy facets (its core, the console, the silent hooks, the
summary) by reference instead of importing them, as lm-eval's registry
(``lm_eval/api/registry.py``) holds ``"module:object"`` placeholders until a model is
asked for: building the registry imports no core, HTTP client or container SDK, and
judging a run folder stays light (tests/unit/test_light_judging.py).

A reference reads ``harness.<package>.<module>:<name>``; its form is checked when the
record is built (:func:`checked`), the import on first use (:func:`resolve`, cached).
tests/unit/test_kinds.py resolves every record's references, and
tests/unit/test_layering.py reads them as lazy imports of their module.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import Any

# "harness.latency.core:exit_code"
REF = re.compile(r"(?P<module>harness(?:\.[A-Za-z_]\w*)+):(?P<name>[A-Za-z_]\w*)")


def checked(ref: str) -> str:
    """``ref`` when it has the form of a reference, else ValueError (a mistyped record)."""
    if REF.fullmatch(ref) is None:
        raise ValueError(f"{ref!r} is not a 'harness.package.module:name' reference")
    return ref


def module_of(ref: str) -> str:
    """The module a reference imports (``harness.latency.core``)."""
    return checked(ref).partition(":")[0]


@cache
def resolve(ref: str) -> Any:
    """The object ``ref`` names, its module imported on the first call."""
    module, _, name = checked(ref).partition(":")
    return getattr(importlib.import_module(module), name)
