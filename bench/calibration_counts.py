"""What ``bench/compare_calibration.py`` measures and how it counts compare's verdicts.

The settings (simulator timings, run sizes, known changes and which metrics each
moves), the verdict of every metric of a comparison, the outcome counts per
(setting, size, metric, change), and the tables printed from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.compare.model import CompareReport
from harness.latency.compare import LatencySection
from harness.stats.intervals import wilson_interval
from harness.throughput.compare import ThroughputSection

# ---------------------------------------------------------------- settings


@dataclass(frozen=True)
class Change:
    """A server B: its simulator timings from A's, and which metrics it moves (and how)."""

    name: str
    ttft: Callable[[float], float]
    itl: Callable[[float], float]
    moves: Callable[[str], str | None]  # metric → expected verdict, None: unchanged


def _latency_moves_all(metric: str) -> str:
    return "lower" if metric.endswith("score") else "slower"


def _latency_moves_e2e(metric: str) -> str | None:
    return None if metric == "strict ttft" else _latency_moves_all(metric)


SAME = Change("same", lambda t: t, lambda i: i, lambda m: None)
LATENCY_CHANGES = {
    "same": SAME,
    "+10%": Change("+10%", lambda t: t * 1.1, lambda i: i * 1.1, _latency_moves_all),
    "ttft+3ms": Change("ttft+3ms", lambda t: t + 3, lambda i: i, _latency_moves_all),
    "itl+10%": Change("itl+10%", lambda t: t, lambda i: i * 1.1, _latency_moves_e2e),
}
THROUGHPUT_CHANGES = {
    "same": SAME,
    # every timing 1/0.9 as long: the token rate 10 % lower
    "rate-10%": Change("rate-10%", lambda t: t / 0.9, lambda i: i / 0.9, lambda m: "lower"),
}


@dataclass(frozen=True)
class Setting:
    kind: str  # latency | throughput
    name: str
    ttft_ms: float
    itl_ms: float
    sizes: tuple[int, ...]  # latency: timed runs; throughput: requests per level
    changes: tuple[str, ...]
    levels: tuple[int, ...] = ()
    prompt_tokens: int = 0
    max_tokens: int = 0

    def describe(self) -> str:
        if self.kind == "latency":
            return (
                f"latency {self.name}: short bucket (64 prompt / 128 output tokens), "
                f"TTFT {self.ttft_ms:g} ms, ITL {self.itl_ms:g} ms, official + strict"
            )
        return (
            f"throughput {self.name}: Paris official sweep, levels "
            f"{','.join(map(str, self.levels))}, {self.prompt_tokens} prompt / "
            f"{self.max_tokens} output tokens, 2 spot checks a level, "
            f"TTFT {self.ttft_ms:g} ms, ITL {self.itl_ms:g} ms"
        )


SETTINGS = {
    ("latency", "fast"): Setting(
        "latency", "fast", 30.0, 0.15, (5, 20, 50), ("same", "+10%", "ttft+3ms", "itl+10%")
    ),
    ("latency", "realistic"): Setting("latency", "realistic", 40.0, 2.0, (20,), ("same", "+10%")),
    ("throughput", "fast"): Setting(
        "throughput", "fast", 5.0, 0.5, (8, 64), ("same", "rate-10%"), (1, 8), 64, 64
    ),
    ("throughput", "realistic"): Setting(
        "throughput", "realistic", 30.0, 2.0, (64,), ("same", "rate-10%"), (4, 16), 1024, 256
    ),
}


def changes_of(setting: Setting) -> dict[str, Change]:
    return LATENCY_CHANGES if setting.kind == "latency" else THROUGHPUT_CHANGES


def verdicts(rep: CompareReport) -> dict[str, str]:
    """metric → compare's verdict, for every metric compare judged."""
    out: dict[str, str] = {}
    lat, tp = rep.section(LatencySection), rep.section(ThroughputSection)
    for d in lat.buckets if lat else []:
        out[f"{d.mode} {d.metric}"] = d.verdict
    for s in lat.scores if lat else []:
        out[f"{s.mode} score"] = s.verdict
    for lv in tp.levels if tp else []:
        out[f"level {lv.concurrency} tok/s"] = lv.verdict
    if tp is not None and tp.score is not None:
        out["score"] = tp.score.verdict
    return out


NO_CALL = ("inconclusive", "no data")  # older compares know only "no data"


@dataclass
class Cell:
    """One (setting, size, metric, change): outcomes over the groups."""

    n: int = 0
    false: int = 0
    detected: int = 0
    no_call: int = 0  # "inconclusive" or "no data": compare declined to judge


def count(
    setting: Setting,
    size: int,
    change_name: str,
    rep: CompareReport,
    cells: dict[tuple[str, int, str, str], Cell],
) -> None:
    """Add (A, change_name)'s verdicts to the cells of its metrics."""
    change = changes_of(setting)[change_name]
    for metric, v in verdicts(rep).items():
        want = change.moves(metric)
        cell = cells.setdefault((setting.name, size, metric, change_name), Cell())
        cell.n += 1
        if v in NO_CALL:
            cell.no_call += 1
        elif want is None:
            cell.false += v != "within noise"
        else:
            cell.detected += v == want
            cell.false += v not in ("within noise", want)


def rate(k: int, n: int) -> str:
    ci = wilson_interval(k, n)
    if ci is None:
        return "-"
    return f"{k:>3}/{n:<3} {100 * k / n:5.1f}% [{100 * ci[0]:4.1f},{100 * ci[1]:5.1f}]"


def table(kind: str, cells: dict[tuple[str, int, str, str], Cell]) -> str:
    lines = [
        f"{'setting':<10} {'size':>4}  {'metric':<17} {'change':<9} "
        f"{'false verdicts':<26} {'detected':<26} {'no call':>7}"
    ]
    for (name, size, metric, change), c in sorted(cells.items(), key=order):
        detected = (
            "" if change == "same" or _no_move(kind, change, metric) else rate(c.detected, c.n)
        )
        lines.append(
            f"{name:<10} {size:>4}  {metric:<17} {change:<9} {rate(c.false, c.n):<26} "
            f"{detected:<26} {c.no_call:>7}"
        )
    return "\n".join(lines)


def markdown(kind: str, cells: dict[tuple[str, int, str, str], Cell]) -> str:
    """One row per (setting, size, metric): false verdicts over every comparison in which the
    metric did not move (identical servers, and changes that leave it alone), the detection
    rate of each change that moves it, verdicts in the wrong direction, and no-calls."""
    moving = [c for c in (LATENCY_CHANGES if kind == "latency" else THROUGHPUT_CHANGES)]
    moving = [c for c in moving if c != "same"]
    rows: dict[tuple[str, int, str], dict[str, Cell]] = {}
    for (name, size, metric, change), c in sorted(cells.items(), key=order):
        rows.setdefault((name, size, metric), {})[change] = c
    head = ["setting", "size", "metric", "false verdicts", *[f"{c} detected" for c in moving]]
    head += ["wrong direction", "no call"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (name, size, metric), by_change in rows.items():
        still = {ch: c for ch, c in by_change.items() if ch == "same" or _no_move(kind, ch, metric)}
        moved = {ch: c for ch, c in by_change.items() if ch not in still}
        false = _md_rate(sum(c.false for c in still.values()), sum(c.n for c in still.values()))
        cols = [name, str(size), metric, false]
        for ch in moving:
            m = moved.get(ch)
            cols.append("—" if m is None else _md_rate(m.detected, m.n))
        wrong = sum(c.false for c in moved.values())
        cols.append(f"{wrong}/{sum(c.n for c in moved.values())}" if moved else "—")
        cols.append(str(sum(c.no_call for c in by_change.values())))
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines)


def _md_rate(k: int, n: int) -> str:
    ci = wilson_interval(k, n)
    if ci is None:
        return "—"
    return f"{k}/{n} = {100 * k / n:.0f} % [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]"


def _no_move(kind: str, change: str, metric: str) -> bool:
    changes = LATENCY_CHANGES if kind == "latency" else THROUGHPUT_CHANGES
    return changes[change].moves(metric) is None


def order(item: tuple[tuple[str, int, str, str], Cell]) -> tuple[Any, ...]:
    name, size, metric, change = item[0]
    words = metric.split()
    level = int(words[1]) if words[0] == "level" else 10**6  # levels in number order, score last
    changes = list(LATENCY_CHANGES | THROUGHPUT_CHANGES)
    return (name, size, level, metric, changes.index(change))
