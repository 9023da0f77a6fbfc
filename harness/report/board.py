"""The ledger arranged for display: groups, each with its own ★ best, frontier and waterfall.

Reads what sits beside the reports in each run folder (the ``hidden`` marker,
``manifest.json``) and the runs' profiles; the decisions themselves are
the pure functions of ``experiment`` (grouping), ``eligibility`` (who competes),
``fold`` (folders that measure nothing), ``changes`` (what changed) and
``frontier``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from harness.errors import HarnessError
from harness.profiles import Profile, load_profile
from harness.report.changes import Settings, read_settings, step_changes, what_changed
from harness.report.eligibility import why_not
from harness.report.entry import LedgerEntry
from harness.report.experiment import GroupKey, group_entries, in_experiment
from harness.report.fold import fold_line, folded_kind, split, submit_folders
from harness.report.frontier import Frontier, WaterfallStep, frontier, waterfall
from harness.report.hidden import is_hidden


@cache
def profile_named(profile: str | None) -> Profile | None:
    """The profile by name (None: no such profile here)."""
    if not profile:
        return None
    try:
        return load_profile(profile)
    except HarnessError:
        return None


@dataclass(frozen=True)
class GroupView:
    key: GroupKey
    entries: list[LedgerEntry]  # the rows, oldest first
    frontier: Frontier  # over the group's ranked runs only
    not_ranked: dict[str, list[str]]  # run id → why it does not compete
    steps: list[WaterfallStep]  # the frontier's waterfall, each step labelled with its diff
    step_diffs: list[list[str]] = field(default_factory=list)  # per frontier point, in full

    @property
    def best(self) -> LedgerEntry | None:
        return self.frontier.best


@dataclass(frozen=True)
class Board:
    groups: list[GroupView]  # the group with the newest run first
    changes: dict[str, list[str]] = field(default_factory=dict)  # run id → manifest diff
    folded: str = ""  # "3 check, 2 package folders"
    hidden: int = 0  # hidden runs left out of the rows (``--all`` shows them)

    @property
    def entries(self) -> list[LedgerEntry]:
        return [e for g in self.groups for e in g.entries]

    @property
    def best(self) -> LedgerEntry | None:
        """The best of the group with the newest run."""
        return self.groups[0].best if self.groups else None


def _labelled(steps: list[WaterfallStep], diffs: list[list[str]]) -> list[WaterfallStep]:
    out: list[WaterfallStep] = []
    for step, diff in zip(steps, diffs, strict=True):
        if diff:
            more = f"\n+{len(diff) - 2} more" if len(diff) > 2 else ""
            step = WaterfallStep(
                label="\n".join([step.label, *diff[:2]]) + more,
                bottom=step.bottom,
                delta=step.delta,
                total=step.total,
                first=step.first,
            )
        out.append(step)
    return out


def arrange(
    entries: Sequence[LedgerEntry],
    root: Path,
    *,
    show_hidden: bool = False,
    experiment: str | None = None,
) -> Board:
    """Group the ledger's runs, rank each group, fold the folders that measure nothing."""
    rows, folded = split(entries)
    kinds = [folded_kind(e, root) for e in folded]
    # a folded folder measured nothing (a package's manifest says what an image is, not
    # how a server ran): no run's "previous run" for what changed (docs/manifest.md)
    unmeasured = {e.id for e in folded}
    known = {e.id for e in entries}
    kinds += ["submit" for name in submit_folders(root) if name not in known]
    hidden = {e.id for e in rows if is_hidden(root / e.id)}
    if experiment is not None:
        rows = in_experiment(rows, experiment, entries)
    shown = [e for e in rows if show_hidden or e.id not in hidden]
    settings: dict[str, Settings | None] = {e.id: read_settings(root / e.id) for e in entries}
    groups: list[GroupView] = []
    for g in group_entries(shown, entries):
        reasons = {
            e.id: r
            for e in g.entries
            if (r := why_not(e, profile_named(e.profile), hidden=e.id in hidden))
        }
        fr = frontier([e for e in g.entries if e.id not in reasons])
        diffs = step_changes(fr.points, settings)
        steps = _labelled(waterfall(fr.points), diffs)
        groups.append(GroupView(g.key, g.entries, fr, reasons, steps, diffs))
    return Board(
        groups=groups,
        changes=what_changed([e for e in entries if e.id not in unmeasured], settings),
        folded=fold_line(kinds),
        hidden=len([e for e in rows if e.id in hidden]) if not show_hidden else 0,
    )
