"""The tune page: what a tune found, as view sections (harness/view/), printed by ``harness
report TUNE_DIR`` and drawn into its report.html (harness/tune/show/page.py).

- the summary: the tune, why it stopped, the best trial and its launch line (with a
  confirmation: its pick as the recommendation, with the pick's launch line);
- the confirmation (harness/tune/confirm/page.py): contestants, confirmed scores and CIs,
  the call, the selection error, the pick;
- every trial: its parameters, score with its 95 % CI (from the trial's latency report),
  each step it ran with its result (check, the speed step, quality, audit), status and
  minutes;
- the score of each trial against its number, with the best feasible score so far;
- the frontier: each trial that became the incumbent, what changed since the previous
  one and by how much, marked "within noise" where the change is under compare's minimum
  effect or the two CIs overlap;
- parameter importance (harness/tune/show/importance.py), or why there is none.

A trial's folder is read through the report reader (harness/report/), never re-measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.gate.views import score_label
from harness.paired.stats import MIN_EFFECT_PCT
from harness.report.entry import LedgerEntry, entry_for_folder
from harness.report.parts import gate_cells
from harness.tune.confirm.page import confirm_section
from harness.tune.record.outcome import within_noise
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.score import score_text as written
from harness.tune.record.score import unit_of
from harness.tune.record.status import GROUPS, Status
from harness.tune.show.importance import Importance
from harness.tune.space.template import diff_text
from harness.tune.trial.steps import shown
from harness.view import fmt
from harness.view.chart import XY, Bars, BarSeries, Lines
from harness.view.model import (
    Cell,
    Column,
    Figure,
    Row,
    Section,
    facts,
    section,
    table,
    text,
)

# a tune.json written mid-study (complete: false) and never finished since
NOT_ENDED = (
    "not ended: still running, or its harness was killed (harness tune --resume finishes it)"
)


@dataclass(frozen=True)
class TrialView:
    """One trial with what its run folder says (None: no folder, or nothing readable)."""

    record: TrialRecord
    entry: LedgerEntry | None

    @property
    def ci(self) -> tuple[float, float] | None:
        return self.entry.score_ci95 if self.entry is not None else None


def read_trials(report: TuneReport, folder: Path) -> list[TrialView]:
    out: list[TrialView] = []
    for t in report.trials:
        entry = None
        where = Path(t.folder) if t.folder else None
        if where is not None and not where.is_absolute():
            where = folder / where
        if where is not None and where.is_dir():
            entry = entry_for_folder(where)
        out.append(TrialView(t, entry))
    return out


def score_text(score: float | None, ci: tuple[float, float] | None, name: str = "") -> str:
    """A score with its CI, as the score called ``name`` is written by its kind:
    ``4.600× (4.5…4.7)`` for a speedup, weighted tok/s without the ×."""
    if score is None:
        return fmt.DASH
    return written(name, score) + (f" ({fmt.span(ci, lambda v: fmt.num(v, '.3f'))})" if ci else "")


def gates_text(v: TrialView) -> str:
    """``checks 17/17 · latency 4.757× · quality not measured · audit 6 rules judged, none
    fails (…)``: every step the trial's gate plan has, with its result, as ``tune.json``
    records it (harness/tune/trial/steps.py). A ``tune.json`` written before it recorded
    them: each kind's gate cells from the run folder (harness/report/parts.py); a kind
    measured only when the trial could win (quality) says it was not measured when its
    speed was."""
    if v.record.steps:
        return shown(v.record.steps)
    e = v.entry
    if e is None:
        return fmt.DASH
    parts: list[str] = []
    for kind, cells in gate_cells(e.parts):
        parts += cells
        deferred = not (kind.prerequisite or kind.score is not None)
        if not cells and deferred and v.record.status.speed_measured:
            parts.append(f"{kind.name} not measured")
    return " · ".join(parts) or fmt.DASH


def _summary(report: TuneReport, views: list[TrialView]) -> Section:
    counts: dict[str, int] = {}
    for t in report.trials:
        counts[t.status] = counts.get(t.status, 0) + 1
    best = report.best
    pairs: list[tuple[str, str | Cell]] = [
        ("tune", report.name),
        ("profile", report.provenance.profile or fmt.DASH),
        ("sampler", report.sampler),
        ("stopped by", report.stopped_by or NOT_ENDED),
        ("trials", ", ".join(f"{n} {s}" for s, n in counts.items()) or "none"),
    ]
    pick = report.confirm.pick if report.confirm is not None else None
    if best is not None:
        ci = next((v.ci for v in views if v.record.number == best.number), None)
        # the score's name only beside what qualifies it (``mean speedup: short only``):
        # the trials table's column names it
        label = f" {score_label(report.score_name, best.score_caveat)}" if best.score_caveat else ""
        found = (
            f"trial {best.number}: {score_text(best.score, ci, report.score_name)}{label}"
            f" ({best.note})"
        )
        if pick is not None and report.confirm is not None:
            # the confirmation's pick is the recommendation; the search's best is its input
            pairs.append(("search's best", found))
            picked = next((t for t in report.trials if t.number == pick), None)
            why = report.confirm.pick_by
            note = f" ({picked.note})" if picked is not None else ""
            pairs.append(("recommended", Cell(f"trial {pick}{note} — {why}", "good")))
            launch = report.confirm.pick_command or (picked.launch if picked else best.launch)
            pairs.append(("launch", launch))
        elif report.confirm is not None and report.confirm.pick_by and not report.confirm.skipped:
            pairs.append(("search's best", found))  # broke an SLO on confirmation, as all did
            pairs.append(("recommended", Cell(report.confirm.pick_by, "bad")))
        else:
            pairs.append(("best", Cell(found, "good")))
            pairs.append(("launch", best.launch))
    else:
        pairs.append(("best", Cell("no feasible trial measured in full", "bad")))
    return section("tune", f"Tune {report.name}", facts("tune-summary", "", pairs))


def _trials(report: TuneReport, views: list[TrialView]) -> Section:
    names = sorted({k for t in report.trials for k in t.params})
    columns = [
        Column("trial"),
        *(Column(n, "left") for n in names),
        Column(f"score ({report.score_name or 'score'}, 95 % CI)"),
        Column("steps", "left", wrap=True),
        Column("status", "left"),
        Column("minutes"),
        Column("why", "left", wrap=True),
    ]
    best = report.best.number if report.best is not None else None
    if report.confirm is not None and report.confirm.pick is not None:
        best = report.confirm.pick  # the confirmation's pick is the one recommended
    rows: list[Row] = []
    for v in views:
        t = v.record
        cells = (
            Cell(str(t.number)),
            *(Cell(fmt.text(t.params.get(n))) for n in names),
            Cell(score_text(t.score, v.ci, report.score_name)),
            Cell(gates_text(v)),
            Cell(t.status, t.status.tone),
            Cell(fmt.num(t.minutes, ".2f")),
            Cell(t.why or fmt.DASH),
        )
        rows.append(Row(cells, "strong" if t.number == best else "plain"))
    return section(
        "tune-trials",
        "Trials (★ row: the recommended one)",
        table("tune-trials", "", columns, rows, dense=True),
        text(
            "score: the profile's score as the gate computes it; infeasible trials count 0 "
            "in the search",
            tone="dim",
        ),
    )


def score_chart(report: TuneReport) -> Lines | None:
    scored = [t for t in report.trials if t.score is not None]
    if not scored:
        return None
    series: list[XY] = []
    for label, color in GROUPS.items():
        pts = [(float(t.number), float(t.score or 0.0)) for t in scored if t.status.group == label]
        if pts:
            xs, ys = zip(*pts, strict=True)
            series.append(XY(label, xs, ys, color))
    last_number = max(t.number for t in report.trials)
    steps = frontier(report)
    if steps:
        last = float(last_number)
        xs = (*tuple(float(s.record.number) for s in steps), last)
        ys = (
            *tuple(float(s.record.score or 0.0) for s in steps),
            float(steps[-1].record.score or 0.0),
        )
        series.append(XY("best so far (ok)", xs, ys, "ink", "step"))
    name = report.score_name or "score"
    return Lines(
        key="tune-score",
        title=f"{name} of each trial, in the order measured",
        caption="score against trial number; the step line is the best feasible trial so far",
        alt="score against trial",
        series=tuple(series),
        xlabel="trial",
        ylabel=name,
        xticks=tuple(str(i) for i in range(last_number + 1)) if last_number < 40 else (),
    )


@dataclass(frozen=True)
class Step:
    record: TrialRecord
    ci: tuple[float, float] | None
    change: str  # the parameters changed since the previous step ("baseline" / the diff)
    delta: float | None  # score change from the previous step (None: the first)
    noise: str  # "within noise", "beyond noise", "no CI" ('' for the first)


def frontier(report: TuneReport, views: list[TrialView] | None = None) -> list[Step]:
    """The trials that became the incumbent, in the order measured (status ``ok`` only)."""
    cis = {v.record.number: v.ci for v in views or []}
    steps: list[Step] = []
    for t in sorted(report.trials, key=lambda r: r.number):
        if t.status != Status.OK or t.score is None:
            continue
        if steps and t.score <= (steps[-1].record.score or 0.0):
            continue
        ci = cis.get(t.number)
        if not steps:
            steps.append(Step(t, ci, t.note or "baseline", None, ""))
            continue
        prev = steps[-1]
        change = diff_text(t.params, prev.record.params)
        if change == "baseline":  # diff_text's word for "nothing changed"
            change = "no parameter changed"
        noise = _noise(t.score, ci, prev.record.score or 0.0, prev.ci)
        delta = t.score - (prev.record.score or 0.0)
        steps.append(Step(t, ci, change, delta, noise))
    return steps


def _noise(
    score: float, ci: tuple[float, float] | None, prev: float, prev_ci: tuple[float, float] | None
) -> str:
    """A step's word: ``within noise`` when it is under compare's minimum effect (the band
    a tie is called by, harness/tune/record/outcome.py) or the two 95 % CIs overlap; ``beyond
    noise`` only when neither holds; ``no CI`` when it is above the band but a CI is missing."""
    if within_noise(score, prev):
        return "within noise"
    if ci is None or prev_ci is None:
        return "no CI"
    return "within noise" if ci[0] <= prev_ci[1] else "beyond noise"


def _frontier(report: TuneReport, views: list[TrialView]) -> Section:
    steps = frontier(report, views)
    rows = [
        (
            str(s.record.number),
            score_text(s.record.score, s.ci, report.score_name),
            fmt.DASH if s.delta is None else f"{s.delta:+.3f}",
            s.change,
            Cell(s.noise or fmt.DASH, "warn" if s.noise == "within noise" else "plain"),
        )
        for s in steps
    ]
    chart = None
    if len(steps) > 1:
        chart = Bars(
            key="tune-frontier",
            title="each frontier step's score change",
            caption="score change at each step of the frontier (first bar: its score)",
            alt="frontier waterfall",
            categories=tuple(f"t{s.record.number}" for s in steps),
            series=(
                BarSeries(
                    "",
                    tuple((s.record.score or 0.0) if s.delta is None else s.delta for s in steps),
                    colors=tuple(
                        "s0" if s.delta is None else "warn" if s.noise == "within noise" else "good"
                        for s in steps
                    ),
                    notes=tuple(
                        written(report.score_name, s.record.score, 2)
                        if s.delta is None
                        else f"{s.delta:+.2f}"
                        for s in steps
                    ),
                    bottoms=tuple(
                        0.0 if s.delta is None else (s.record.score or 0.0) - s.delta for s in steps
                    ),
                ),
            ),
            ylabel=report.score_name or "score",
            legend=False,
        )
    return section(
        "tune-frontier",
        "Frontier: each new incumbent and what changed",
        table(
            "tune-frontier",
            "",
            ["trial", "score (95 % CI)", "change", "what changed", "noise"],
            rows,
            left=("what changed", "noise"),
        )
        if rows
        else text("no trial was measured in full without a failed gate: no frontier"),
        Figure(chart) if chart is not None else None,
        text(
            f"within noise: the change is under the {MIN_EFFECT_PCT:g} % minimum effect (two "
            "fresh processes of one server differ by 1–2 %) or the step's 95 % CI overlaps the "
            "previous incumbent's (stricter than the grader, which scores one measurement)",
            tone="dim",
        )
        if rows
        else None,
    )


def _importance(imp: Importance) -> Section:
    rows = [(name, fmt.pct(share, 1)) for name, share in imp.shares.items()]
    return section(
        "tune-importance",
        "Parameter importance",
        table("tune-importance", "", ["parameter", "importance"], rows, left=("parameter",))
        if rows
        else None,
        text(imp.basis, tone="dim"),
    )


def sections(report: TuneReport, folder: Path, importance: Importance) -> list[Section]:
    views = read_trials(report, folder)
    chart = score_chart(report)
    unit = unit_of(report.score_name)
    confirm = confirm_section(report.confirm, unit) if report.confirm is not None else None
    return [
        _summary(report, views),
        *([confirm] if confirm is not None else []),
        _trials(report, views),
        section(
            "tune-score",
            "Score against trial",
            Figure(chart) if chart is not None else text("no trial has a score yet"),
        ),
        _frontier(report, views),
        _importance(importance),
    ]
