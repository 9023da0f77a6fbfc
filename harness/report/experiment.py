"""Which ledger group a run belongs to: its best, frontier and waterfall compare only these runs.

A run given ``--experiment NAME`` belongs to that experiment (within its profile).
Otherwise it is grouped by profile and by the server's world, read from the
fingerprint the run recorded: the engine and its version with the served models
(a simulator, vLLM and another engine are different worlds). A run that took no
fingerprint (pure official mode sends only the grader's requests: a standalone
official ``harness throughput`` never asks ``/v1/models``) is the server at its address:
it joins the world that the run nearest in time at the same address fingerprinted (a
check, a gate, another step of the same server), so one server is one group; with no
such run, its address is its world. Pure functions over ledger entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
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


def _fingerprinted(e: LedgerEntry) -> bool:
    s = e.server
    return bool(s.engine or s.version or s.models)


def _seconds(e: LedgerEntry) -> float:
    try:
        return datetime.fromisoformat(e.time).timestamp()
    except ValueError:
        return 0.0


def worlds(entries: Sequence[LedgerEntry], known: Sequence[LedgerEntry] = ()) -> dict[str, str]:
    """Each run's world by id: its own fingerprint's, else that of the run nearest in time
    that fingerprinted the server at its address (among ``entries`` and ``known``: runs
    that are no row, such as a check-only folder, still say which server was there)."""
    at: dict[str, list[LedgerEntry]] = {}
    for e in (*entries, *known):
        if _fingerprinted(e) and (address := _address(e.server.url)):
            at.setdefault(address, []).append(e)
    out: dict[str, str] = {}
    for e in entries:
        there = at.get(_address(e.server.url) or "", [])
        if _fingerprinted(e) or not there:
            out[e.id] = world(e)
            continue
        t = _seconds(e)
        nearest = min(there, key=lambda o: (abs(_seconds(o) - t), o.id))
        out[e.id] = world(nearest)
    return out


def group_key(e: LedgerEntry, world_of: str | None = None) -> GroupKey:
    """The run's group; ``world_of``: its world as :func:`worlds` resolved it (default: its
    own fingerprint's)."""
    profile = e.profile or "no profile"
    if e.experiment:
        return GroupKey(
            f"experiment:{profile}:{e.experiment}",
            f"experiment {e.experiment} ({profile})",
            e.experiment,
        )
    w = world_of or world(e)
    return GroupKey(f"world:{profile}:{w}", f"{profile} on {w}")


def group_keys(
    entries: Sequence[LedgerEntry], known: Sequence[LedgerEntry] = ()
) -> dict[str, GroupKey]:
    """Each run's group by id, a run without a fingerprint joining its server's world."""
    found = worlds(entries, known)
    return {e.id: group_key(e, found[e.id]) for e in entries}


@dataclass(frozen=True)
class Group:
    key: GroupKey
    entries: list[LedgerEntry]  # oldest first


def group_entries(entries: Sequence[LedgerEntry], known: Sequence[LedgerEntry] = ()) -> list[Group]:
    """Entries by group; the group with the newest run first, each group oldest first
    (``known``: other runs of the ledger, for :func:`worlds`)."""
    ordered = sorted(entries, key=lambda e: (e.time, e.id))
    keys = group_keys(ordered, known)
    groups: dict[GroupKey, list[LedgerEntry]] = {}
    for e in ordered:
        groups.setdefault(keys[e.id], []).append(e)
    out = [Group(k, v) for k, v in groups.items()]
    out.sort(key=lambda g: (g.entries[-1].time, g.entries[-1].id), reverse=True)
    return out


def in_experiment(
    entries: Sequence[LedgerEntry], name: str, known: Sequence[LedgerEntry] = ()
) -> list[LedgerEntry]:
    """The runs of ``--experiment NAME`` (an experiment's name, or a group's key or label)."""
    keys = group_keys(entries, known)
    return [e for e in entries if (k := keys[e.id]).experiment == name or name in (k.key, k.label)]
