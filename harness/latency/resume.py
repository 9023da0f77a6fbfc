"""Finishing an interrupted latency run in its own folder (``harness latency … --resume``).

A run stopped by Ctrl-C or SIGTERM leaves a partial ``latency.json`` (``complete:
false``) that records which (mode, bucket) pairs were measured to their end
(``settings.finished_buckets``). Resuming keeps those buckets' requests as they
are and measures only the rest; a bucket cut in the middle is measured again,
whole, warm-up first: the grader's sequence (its warm-ups, then its timed requests,
one at a time, in one process against a server in one state) is what a bucket's
median stands for, and requests of another process, after a pause of unknown
length, are not that sequence (docs/timing.md, "Interrupted runs").

The folder is also guarded: a command that would write ``latency.json`` over one
already there refuses unless told ``--resume`` (finish it) or ``--force``
(overwrite it).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import BaseModel, Field

from harness.errors import UsageError
from harness.latency.config import LatencyConfig, LatencyOverrides
from harness.latency.report import LatencyReport
from harness.latency.state import LatencyState
from harness.provenance import Provenance
from harness.report_base import load_report
from harness.target import OUT, Target

RESUME = "--resume"
FORCE = "--force"

# settings that must agree between the interrupted run and the one that finishes it: they
# decide what a kept request measured (the seed is handled on its own)
_SAME = (
    "endpoint",
    "strict_endpoint",
    "runs",
    "warmup",
    "buckets",
    "concurrency",
    "force_length",
    "until_ci",
    "until_ci_at",
)


class Resumption(BaseModel):
    """One resumption, recorded in the finished report's provenance (``resumed``)."""

    interrupted_started_at: str  # when the interrupted process started
    interrupted_finished_at: str | None  # when it saved its partial report
    kept: list[str] = Field(default_factory=list)  # "official/short": measured to the end
    requests_kept: int = 0
    remeasured: list[str] = Field(default_factory=list)  # cut in the middle: measured again
    requests_dropped: int = 0  # the cut buckets' requests, not mixed into the new ones


@dataclass(frozen=True)
class Resume:
    """What a resumed run starts from: its config (the interrupted run's seed), the kept
    state, and the record of it."""

    cfg: LatencyConfig
    state: LatencyState
    record: Resumption


def guard_folder(out: str | None, *, resume: bool, force: bool) -> LatencyReport | None:
    """Said before anything is measured (exit 2, one line). Returns the partial report that
    ``--resume`` finishes (None without ``--resume``)."""
    if resume and force:
        raise UsageError(f"{RESUME} and {FORCE} contradict each other", hint="pass one of them")
    if out is None:
        if resume:
            raise UsageError(
                f"{RESUME} needs {OUT} DIR, the interrupted run's folder",
                hint="run the command the interrupted run printed",
            )
        return None
    path = Path(out) / LatencyReport.FILENAME
    if resume:
        partial = load_report(Path(out), LatencyReport)
        if partial is None:
            raise UsageError(
                f"{path} does not exist: nothing to resume",
                hint=f"drop {RESUME} to start a run in {out}",
            )
        if partial.complete:
            raise UsageError(
                f"{path} is a complete run: nothing to resume",
                hint=f"use another {OUT}, or {FORCE} to measure again over it",
            )
        return partial
    if path.exists() and not force:
        raise UsageError(
            f"{path} already holds a latency report",
            hint=f"use {RESUME} to finish it, or another {OUT} / {FORCE} to overwrite it",
        )
    return None


def resume_from(cfg: LatencyConfig, partial: LatencyReport, folder: Path) -> Resume:
    """The state a resumed run starts from: the finished buckets' requests (and their ITL
    summaries), with the interrupted run's seed; refused when the settings differ."""
    old = partial.settings
    if partial.mode != cfg.mode:
        _differs(folder, "--mode", partial.mode, cfg.mode)
    new: dict[str, object] = {
        "endpoint": cfg.endpoint,
        "strict_endpoint": cfg.strict_endpoint,
        "runs": cfg.runs,
        "warmup": cfg.warmup,
        "buckets": [b.name for b in cfg.buckets],
        "concurrency": cfg.concurrency,
        "force_length": cfg.force_length,
        "until_ci": cfg.until_ci,
        "until_ci_at": cfg.until_ci_at,
    }
    for key in _SAME:
        if key in old and old[key] != new[key]:
            _differs(folder, key, old[key], new[key])
    seed = old.get("seed")
    if not cfg.seed_drawn and isinstance(seed, int) and cfg.seed != seed:
        _differs(folder, "--seed", seed, cfg.seed)
    if isinstance(seed, int):
        cfg = replace(cfg, seed=seed, seed_drawn=old.get("seed_source") == "drawn")
    finished = old.get("finished_buckets")
    done = [str(p) for p in finished] if isinstance(finished, list) else []
    pairs = [(p.split("/", 1)[0], p.split("/", 1)[1]) for p in done if "/" in p]
    kept = [r for r in partial.requests if f"{r.mode}/{r.bucket}" in done]
    cut = sorted(
        {f"{r.mode}/{r.bucket}" for r in partial.requests if f"{r.mode}/{r.bucket}" not in done}
    )
    state = LatencyState(rows=list(kept), finished_buckets=list(pairs))
    for b in [*partial.official, *partial.strict]:
        if f"{b.mode}/{b.name}" in done and b.itl is not None:
            state.itl_summaries[(b.mode, b.name)] = b.itl
    record = Resumption(
        interrupted_started_at=partial.provenance.started_at,
        interrupted_finished_at=partial.provenance.finished_at,
        kept=done,
        requests_kept=len(kept),
        remeasured=cut,
        requests_dropped=len(partial.requests) - len(kept),
    )
    return Resume(cfg=cfg, state=state, record=record)


def record_in(provenance: Provenance, partial: LatencyReport, record: Resumption) -> None:
    """``provenance.resumed``: every resumption of this run, the earlier ones first."""
    earlier = getattr(partial.provenance, "resumed", None)
    history = list(earlier) if isinstance(earlier, list) else []
    provenance.resumed = [*history, record.model_dump()]  # type: ignore[attr-defined]


def resume_command(
    target: Target, overrides: LatencyOverrides, profile: str, ledger: list[str] | None = None
) -> str:
    """The one command that finishes an interrupted run in its folder, as the user types it:
    the run's own flags, its ``ledger`` flags (``--name``, ``--note``, ``--experiment``:
    the finished run stays in its group), then ``--resume`` (the seed, drawn or given, is
    read from the folder)."""
    argv = ["harness", "latency", *target.argv(profile), *(ledger or []), *overrides.argv()]
    argv.append(RESUME)
    return " ".join(shlex.quote(a) for a in argv)


def _differs(folder: Path, what: str, old: object, new: object) -> None:
    raise UsageError(
        f"the interrupted run in {folder} was measured with {what} {old!r}; this command "
        f"asks {new!r}",
        hint=f"resume with the interrupted run's flags (the command it printed), or use "
        f"another {OUT}",
    )
