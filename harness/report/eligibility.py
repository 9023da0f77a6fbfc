"""Whether a run may be the ★ best, join the frontier and the waterfall: why not, in words (pure).

A run competes only when its ranked score (the registry's ranking kind: latency's) was
measured the way the grader measures (docs/report.md, "Which runs are ranked"): the
ranking kind's summary facet says what that takes (``not_ranked``: for latency a complete
report, every bucket of its profile, an official-mode score, the profile's runs and
warm-ups, no ``--until-ci`` early stop; harness/latency/ranking.py), and the run is not
hidden. A run that fails any of these stays in the table with the reasons; it is never ★.
Grouping (harness/report/experiment.py) decides which runs it is compared with.
"""

from __future__ import annotations

from harness.profiles import Profile
from harness.report.entry import LedgerEntry
from harness.report.parts import ranked_kind

HIDDEN = "hidden"


def no_score() -> str:
    """``no latency score``: the run has no score of the ranking kind."""
    found = ranked_kind()
    return f"no {found[0].name} score" if found is not None else "no score"


def why_not(e: LedgerEntry, profile: Profile | None, *, hidden: bool = False) -> list[str]:
    """The reasons ``e`` may not be ranked (empty: it competes). ``profile``: its profile
    (None: unknown here; what it asks of a run is not judged)."""
    out = [HIDDEN] if hidden else []
    if e.score is None:
        return [*out, no_score()]
    found = ranked_kind()
    if found is not None:
        kind, facet = found
        if facet.not_ranked is not None:
            out += facet.not_ranked(e.parts[kind.name], e.complete, profile)
    return out
