"""The race, attached to a trial's latency run: the latency package's stop-rule seam
(harness/latency/stop_rule.py) fed with the pure rule of harness/tune/trial/race.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.latency.config import LatencyConfig
from harness.latency.report import RequestRow
from harness.tune.space import Race
from harness.tune.trial.race import RaceLook, RaceSpec, race_look


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


class RaceSeat:
    """Built before the trial measures; the latency step's config gets its Racer."""

    def __init__(self, race: Race, incumbent: float | None) -> None:
        self.race = race
        self.incumbent = incumbent
        self.racer: Racer | None = None

    def configure(self, cfg: Any) -> Any:
        """``run_step``'s hook: a latency config gets the race (off, or no incumbent yet:
        unchanged)."""
        if not self.race.enabled or self.incumbent is None or not isinstance(cfg, LatencyConfig):
            return cfg
        spec = RaceSpec(
            buckets=tuple((b.name, b.baseline_ms) for b in cfg.buckets),
            cap=cfg.runs,
            max_speedup=self.race.max_speedup,
        )
        self.racer = Racer(spec, self.incumbent, "strict" if cfg.mode == "strict" else "official")
        return replace(cfg, stop_rule=self.racer)
