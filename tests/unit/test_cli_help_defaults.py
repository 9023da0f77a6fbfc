"""Help texts that quote a profile's default read it from the profile, so they cannot drift.

Renders every command's --help (each option's expanded help, as ``--help`` prints it) and
checks every number quoted as "the profile's" default: the option's declared help must
carry a marker for it (harness/cli/help_defaults.py), never a literal number, and the
number shown must equal the profile's value at that marker's path.
"""

from __future__ import annotations

import re

import pytest

from harness.cli.help_defaults import MARKER, expand, profile_value, shown
from harness.profiles import DEFAULT_PROFILE, load_profile
from tests.unit.test_cli_help import _options, commands

# "the profile's, 50", "the profile's [readiness] timeout_s: 600", "(0.1 for efficient-qwen"
NUMBER = r"\d[\d.]*(?:,\d[\d.]*)*(?: GB)?"
QUOTED = re.compile(rf"the profile's(?:,| \[\w+\] \w+:) ({NUMBER})|\(({NUMBER}) for ")
LITERAL = re.compile(r"the profile's(?:,| \[\w+\] \w+:) \d|\(\d[\d.]* for ")


def test_every_number_quoted_as_a_profiles_default_is_the_profiles() -> None:
    checked, wrong = 0, []
    for label, flag, action, text in _options():
        raw = action.help or ""
        if LITERAL.search(raw):
            wrong.append(f"{label} {flag}: a profile's default written as a number: {raw!r}")
            continue
        quoted = [a or b for a, b in QUOTED.findall(text)]
        values = [shown(profile_value(m[1], m[2]), m[3]) for m in MARKER.finditer(raw)]
        values = [v for v in values if v[:1].isdigit()]  # numbers (not a name or a path)
        if quoted != values:
            wrong.append(f"{label} {flag}: quotes {quoted}, the profile has {values}")
        checked += len(quoted)
    assert not wrong, "\n".join(wrong)
    assert checked >= 19  # every command's quoted profile numbers were found


def test_the_markers_read_the_profiles_values() -> None:
    qwen, paris = load_profile(DEFAULT_PROFILE), load_profile("gpumode-paris")
    assert qwen.latency is not None and paris.throughput is not None and qwen.submit
    assert expand("{default:latency.runs}") == str(qwen.latency.runs)
    assert expand("{gpumode-paris:throughput.levels}") == ",".join(
        str(n) for n in paris.throughput.levels
    )
    assert expand("{default:submit.single_max_bytes:bytes}") == "5 GB"
    assert expand("(1 for {default:name})") == f"(1 for {DEFAULT_PROFILE})"
    assert expand("{default:readiness.poll_interval_s}") == "5"  # 5.0 shown as typed


@pytest.mark.parametrize("name", ["latency", "throughput", "quality", "vlm", "portal"])
def test_every_rendered_help_is_free_of_markers(name: str) -> None:
    for label, parser in commands():
        if label.split()[1] == name:
            assert not MARKER.search(parser.format_help()), label
