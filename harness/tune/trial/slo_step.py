"""The SLOs of SPACE.toml against a trial's run folder: checked before anything starts
(:func:`preflight`: exit 2), after the trial's speed step (:func:`check_folder`, which
writes ``slo.json``), with the baseline trial's folder as the reference of "baseline"
bounds (:func:`baseline_folder`). The rule itself is pure: harness/tune/trial/slo_check.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import optuna
from optuna.trial import TrialState

from harness.errors import ConfigError
from harness.latency.config import LatencyConfig
from harness.latency.report import LatencyReport
from harness.profiles import Profile
from harness.stats.tails import PERCENTILES, bound_floor
from harness.tune.record import trial_store
from harness.tune.space import Choice, Space, conditions
from harness.tune.space.slo import Slo
from harness.tune.trial.slo_check import check_slos, failed_why

SLO_JSON = "slo.json"


def preflight(space: Space, profile: Profile, latency: LatencyConfig | None) -> None:
    """Each SLO answerable by the latency config the gate plan built (``latency``; None: the
    profile has no latency step): a bucket the profile has and the config measures, a
    streamed metric (ttft, tpot, itl) only with the strict mode, a tail within its runs."""
    if not space.slo:
        return
    if latency is None:
        raise ConfigError(
            f"SPACE.toml: slo: profile {profile.name} has no latency step to check SLOs on",
            hint="SLOs read the latency report; drop [[slo]] or use a latency profile",
        )
    known = [b.name for b in latency.spec.buckets]
    measured = [b.name for b in latency.buckets]
    for i, slo in enumerate(space.slo):
        if slo.bucket is not None and slo.bucket not in known:
            raise ConfigError(
                f"SPACE.toml: slo.{i}.bucket: {slo.bucket!r} is not a bucket of "
                f"{profile.name} ({', '.join(known)})"
            )
        if slo.bucket is not None and slo.bucket not in measured:
            raise ConfigError(
                f"SPACE.toml: slo.{i}.bucket: {slo.bucket} is not measured "
                f"(options.buckets = {space.options.buckets!r})",
                hint="add it to options.buckets or drop the SLO",
            )
        if slo.streamed and latency.mode == "official":
            raise ConfigError(
                f"SPACE.toml: slo.{i}.metric: {slo.metric} is streamed, measured by the "
                "strict mode only (options.latency_mode = 'official')",
                hint='set options.latency_mode = "both" (the gate\'s default)',
            )
        covered = [slo.bucket] if slo.bucket else measured
        tokens = min((b.max_tokens for b in latency.buckets if b.name in covered), default=2)
        _supported(i, slo, latency.runs, tokens)


def _supported(i: int, slo: Slo, runs: int, max_tokens: int) -> None:
    """A tail SLO that ``runs`` runs can never show met is refused (harness/stats/tails.py): with
    none over its bound, a p90 / p95 / p99 needs 44 / 90 / 459 samples; ITL has one per
    token gap of every run, the others one per run."""
    if slo.tail is None:
        return
    floor = bound_floor(slo.tail)
    gaps = max(max_tokens - 1, 1)
    itl = slo.metric.split("_")[1] == "itl"
    most = runs * gaps if itl else runs
    if most >= floor:
        return
    rest = slo.metric.split("_", 1)[1]
    fewer = [k for k, p in PERCENTILES.items() if bound_floor(p) <= most]
    ways = [f"fewer nines ({fewer[-1]}_{rest})"] if fewer else []
    ways += [f"more runs (options.runs ≥ {-(-floor // gaps) if itl else floor})"]
    ways += [f"or a median or mean SLO (median_{rest})"]
    each = f"{runs} runs x {gaps} token gaps" if itl else f"options.runs = {runs}"
    raise ConfigError(
        f"SPACE.toml: slo.{i}.metric: {slo.text()} needs ≥ {floor} samples with none over "
        f"it to be shown at 99 %, and {each} can never give that many",
        hint=", ".join(ways),
    )


def _load(folder: Path | None) -> LatencyReport | None:
    if folder is None or not (folder / LatencyReport.FILENAME).is_file():
        return None
    return LatencyReport.load(folder)


def check_folder(
    slos: Sequence[Slo], folder: Path, reference: Path | None, stopped: str | None = None
) -> str | None:
    """Why the trial in ``folder`` violates an SLO (None: every one met); ``slo.json``
    records every check. ``reference``: the baseline trial's folder (None: not measured);
    ``stopped``: why a tail SLO stopped the measurement (harness/tune/trial/tail_race.py), the
    trial's why, recorded as ``stopped_early`` beside the checks of the partial report."""
    report = _load(folder)
    if report is None:
        return stopped or "slo: no latency report to check the SLOs on"
    base = report if reference is not None and reference.resolve() == folder.resolve() else None
    checks = check_slos(slos, report, base or _load(reference))
    why = stopped or failed_why(checks)
    record: dict[str, object] = {"ok": why is None, "why": why}
    if stopped:
        record["stopped_early"] = stopped
    record["checks"] = [c.as_dict() for c in checks]
    (folder / SLO_JSON).write_text(json.dumps(record, indent=2), encoding="utf-8")
    return why


def is_baseline(space: Space, values: Mapping[str, Choice]) -> bool:
    base = space.baseline
    return bool(base) and all(
        k in values and conditions.same(values[k], v) for k, v in base.items()
    )


def baseline_folder(
    study: optuna.Study, space: Space, values: Mapping[str, Choice], folder: Path, root: Path
) -> Path | None:
    """The run folder of the baseline trial: ``folder`` when this trial is the baseline, else
    the lowest-numbered finished trial with the baseline's values (None: none yet). Another
    worker's trial folder is under its own tune folder (harness/tune/record/trial_store.py)."""
    if not any(s.uses_baseline for s in space.slo):
        return None
    if is_baseline(space, values):
        return folder
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    for t in sorted(done, key=lambda t: t.number):
        where = trial_store.folder_of(t, root)
        if where is not None and is_baseline(space, t.params):
            return where
    return None
