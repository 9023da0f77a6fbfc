"""Where a measurement runs and where its report goes, and the flags every command shares.

The target flags (``--url``, ``--image``, ``--profile``, ``--out``, ``--name``,
``--note``, ``--experiment``) are spelled here once; :class:`Target` is what a
config builder (``from_profile(profile, target, overrides)``) takes beside the
profile and the overrides record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

URL = "--url"
IMAGE = "--image"
PROFILE = "--profile"
OUT = "--out"
NAME = "--name"
NOTE = "--note"
EXPERIMENT = "--experiment"


@dataclass(frozen=True)
class Target:
    """Where a measurement runs and where its report goes: a server's URL or an image, and
    the run folder. Rendered as the leading flags of the command that re-runs it."""

    folder: Path
    url: str = ""
    image: str = ""

    def argv(self, profile: str) -> list[str]:
        out = [URL, self.url] if self.url else []
        if self.image:
            out += [IMAGE, self.image]
        return [*out, PROFILE, profile, OUT, str(self.folder)]


def ledger_argv(name: str | None, note: str | None, experiment: str | None) -> list[str]:
    """``--name``, ``--note``, ``--experiment`` as given: a command printed to run again
    (a resume line, the gate's provenance) keeps the run in its ledger group."""
    out: list[str] = []
    for flag, value in ((NAME, name), (NOTE, note), (EXPERIMENT, experiment)):
        if value:
            out += [flag, value]
    return out
