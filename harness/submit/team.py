"""The team id form: the profile's ``[submit]`` rule, checked before any organiser call.

The organiser publishes no form for team ids; the id becomes a path segment of the
S3 key (``submissions/TEAM/…``), so harness sends, and its portal accepts, only
``[submit] team_id_pattern`` (docs/submit.md, "Team ids").
"""

from __future__ import annotations

import re

from harness.profiles import SubmitSpec


def team_id_problem(rules: SubmitSpec, team_id: object) -> str | None:
    """Why the organiser would not take ``team_id`` (None: it is of the accepted form)."""
    if not isinstance(team_id, str):
        return f"team_id must be a string, not {type(team_id).__name__}"
    if re.fullmatch(rules.team_id_pattern, team_id):
        return None
    return f"team id {team_id!r} is not accepted: use {rules.team_id_rule}"
