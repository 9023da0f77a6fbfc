"""Which ledger group a run belongs to: its best, frontier and waterfall compare only these runs.

A run given ``--experiment NAME`` belongs to that experiment (within its profile).
Otherwise it is grouped by profile and by the server's world, read from the
fingerprint the run recorded: the engine and its version with the served models
(a simulator, vLLM and another engine are different worlds). A run that took no
fingerprint (pure official mode sends only the grader's requests) is grouped by
the server's address instead. Pure functions over ledger entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from harness.report.entry import LedgerEntry


@dataclass(frozen=True)
class GroupKey:
    key: str  # stable, for ids and ``--experiment`` matching
    label: str  # human words for headings
    experiment: str | None = None  # the --experiment name, when the group is one


def _address(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    return parts.netloc or url


def world(e: LedgerEntry) -> str:
    """The server's world: engine and version, served models; else its address; else unknown."""
    s = e.server
    engine = " ".join(x for x in (s.engine, s.version) if x)
    models = ", ".join(s.models)
    if engine or models:
        return " · ".join(x for x in (engine, models) if x)
    address = _address(s.url)
    return f"server at {address} (no fingerprint)" if address else "unknown server"


def group_key(e: LedgerEntry) -> GroupKey:
    profile = e.profile or "no profile"
    if e.experiment:
        return GroupKey(
            f"experiment:{profile}:{e.experiment}",
            f"experiment {e.experiment} ({profile})",
            e.experiment,
        )
    w = world(e)
    return GroupKey(f"world:{profile}:{w}", f"{profile} on {w}")


@dataclass(frozen=True)
class Group:
    key: GroupKey
    entries: list[LedgerEntry]  # oldest first


def group_entries(entries: Sequence[LedgerEntry]) -> list[Group]:
    """Entries by group; the group with the newest run first, each group oldest first."""
    ordered = sorted(entries, key=lambda e: (e.time, e.id))
    groups: dict[GroupKey, list[LedgerEntry]] = {}
    for e in ordered:
        groups.setdefault(group_key(e), []).append(e)
    out = [Group(k, v) for k, v in groups.items()]
    out.sort(key=lambda g: (g.entries[-1].time, g.entries[-1].id), reverse=True)
    return out


def in_experiment(entries: Sequence[LedgerEntry], name: str) -> list[LedgerEntry]:
    """The runs of ``--experiment NAME`` (an experiment's name, or a group's key or label)."""
    return [
        e for e in entries if (k := group_key(e)).experiment == name or name in (k.key, k.label)
    ]
