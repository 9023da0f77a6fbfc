"""The race, attached to a trial's latency run: the latency package's stop-rule seam
(harness/latency/stop_rule.py) fed with the pure rules of harness/tune/trial/race.py (the score
against the incumbent) and harness/tune/trial/tail_race.py (a tail SLO that cannot be met)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.latency.config import LatencyConfig
from harness.latency.report import RequestRow
from harness.latency.stop_rule import StopRule
from harness.tune.space import Race
from harness.tune.space.slo import Slo
from harness.tune.trial.race import RaceLook, RaceSpec, race_look
from harness.tune.trial.tail_race import TailRace, tail_race


class Racer:
    """One trial's race: every timed request of the scored mode (official, unless the run is
    strict only) is one look; a request of the other mode only asks again."""

    def __init__(self, spec: RaceSpec, incumbent: float | None, mode: str = "official") -> None:
        self.spec = spec
        self.incumbent = incumbent
        self.mode = mode
        self.values: dict[str, list[float]] = {name: [] for name, _ in spec.buckets}
        self.last: RaceLook | None = None

    def add(self, mode: str, bucket: str, ok: bool, e2e_ms: float | None) -> str | None:
        """One timed request ended: why to stop now (None: go on)."""
        if mode == self.mode and ok and e2e_ms is not None and bucket in self.values:
            self.values[bucket].append(e2e_ms)
        self.last = race_look(self.spec, self.values, self.incumbent)
        return self.last.why if self.last.stop else None

    def after(self, row: RequestRow) -> str | None:
        return self.add(row.mode, row.bucket, row.ok, row.e2e_ms)

    @property
    def stopped(self) -> str | None:
        return self.last.why if self.last is not None and self.last.stop else None

    @property
    def bound(self) -> float | None:
        return self.last.upper if self.last is not None else None


class FirstStop:
    """Several stop rules on one run: each sees every row; the first reason stops it."""

    def __init__(self, rules: Sequence[StopRule]) -> None:
        self.rules = list(rules)

    def after(self, row: RequestRow) -> str | None:
        whys = [rule.after(row) for rule in self.rules]
        return next((w for w in whys if w), None)


class RaceSeat:
    """Built before the trial measures; the latency step's config gets its Racer and, with
    tail SLOs, its TailRace. ``reference``: the baseline trial's folder ("baseline" bounds);
    the baseline trial itself (``reference`` is its ``folder``) is not raced on its tails."""

    def __init__(
        self,
        race: Race,
        incumbent: float | None,
        slos: Sequence[Slo] = (),
        reference: Path | None = None,
        folder: Path | None = None,
    ) -> None:
        self.race = race
        self.incumbent = incumbent
        self.racer: Racer | None = None
        self.tails: TailRace | None = None
        self.slos = list(slos)
        self.reference = reference
        self.folder = folder

    @property
    def slo_stopped(self) -> str | None:
        """Why a tail SLO stopped the run (None: it did not)."""
        return self.tails.stopped if self.tails is not None else None

    def _tail_race(self, cfg: LatencyConfig) -> TailRace | None:
        ref, folder = self.reference, self.folder
        baseline = ref is not None and folder is not None and ref.resolve() == folder.resolve()
        return None if baseline else tail_race(self.slos, cfg, ref)

    def configure(self, cfg: Any) -> Any:
        """``run_step``'s hook: a latency config gets the race (off: unchanged); the score's
        race needs an incumbent, the tail SLOs' does not."""
        if not self.race.enabled or not isinstance(cfg, LatencyConfig):
            return cfg
        self.tails = self._tail_race(cfg)
        if self.incumbent is not None:
            spec = RaceSpec(
                buckets=tuple((b.name, b.baseline_ms) for b in cfg.buckets),
                cap=cfg.runs,
                max_speedup=self.race.max_speedup,
            )
            mode = "strict" if cfg.mode == "strict" else "official"
            self.racer = Racer(spec, self.incumbent, mode)
        rules: list[StopRule] = [r for r in (self.tails, self.racer) if r is not None]
        if not rules:
            return cfg
        return replace(cfg, stop_rule=rules[0] if len(rules) == 1 else FirstStop(rules))
