"""A profile's values quoted in help texts, read from the profile when the help is shown.

A help text that names a profile's default writes a marker instead of the number:
``{default:latency.runs}`` (the default profile's ``[latency] runs``),
``{gpumode-paris:throughput.levels}`` (a named profile's, where the default profile has
no such section), ``{default:name}`` (the profile's name), and ``…:bytes`` to show a size
in GB. The help formatter (harness/cli/__init__.py) expands them, so the text cannot
drift from the profile (tests/unit/test_cli_help_defaults.py).
"""

from __future__ import annotations

import re
from functools import cache

from harness.overrides import render_value
from harness.profiles import DEFAULT_PROFILE, Profile, load_profile

MARKER = re.compile(r"\{(default|[a-z0-9][a-z0-9-]*):([a-z_][a-z0-9_.]*)(?::(bytes))?\}")


@cache
def _profile(name: str) -> Profile:
    return load_profile(DEFAULT_PROFILE if name == "default" else name)


def profile_value(profile: str, path: str) -> object:
    """The value at ``path`` (``latency.runs``) of ``profile`` (``default``: the default one)."""
    value: object = _profile(profile)
    for part in path.split("."):
        value = getattr(value, part)
    return value


def shown(value: object, fmt: str | None = None) -> str:
    """A profile value as a help text quotes it."""
    if fmt == "bytes" and isinstance(value, int):
        return f"{value / 1e9:g} GB"
    if isinstance(value, list | tuple):
        return ",".join(render_value(v) for v in value)
    return render_value(value)


def expand(text: str) -> str:
    """``text`` with every marker replaced by the profile's value."""
    return MARKER.sub(lambda m: shown(profile_value(m[1], m[2]), m[3]), text)
